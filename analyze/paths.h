/*
 * paths.h - filehandle -> path and export, learned from the wire.
 *
 * Purpose: remember what each filehandle is called.  MOUNT MNT replies give
 * export roots (dirpath -> handle); LOOKUP, CREATE, MKDIR, SYMLINK, MKNOD
 * replies and READDIRPLUS entries give children (parent path + "/" + name).
 * A handle first seen below an unknown parent gets no path.
 *
 * Keys are (server address, handle bytes): two servers may hand out equal
 * handles.  Paths longer than AN_PATH_MAX - 1 are cut (and end in "...").
 *
 * Invariants: fixed budget of `max` entries (open addressing, probe window
 * AN_NAMES_PROBE); when the window is full the oldest entry in it is
 * replaced and `evictions` counts it.  At most AN_EXPORTS_MAX exports.
 *
 * Ownership: the caller owns the table (an_names_new/an_names_free).  The
 * returned strings are owned by the table and valid until the next insert.
 *
 * Load: one hash + a few compares per LOOKUP-like reply and per handle
 * resolved; no allocation after an_names_new.
 */
#ifndef NFSCOPE_AN_NAMES_H
#define NFSCOPE_AN_NAMES_H

#include <stdbool.h>
#include <stdint.h>

#include "decode/decode.h"

#define AN_PATH_MAX 256
#define AN_EXPORTS_MAX 256
#define AN_NAMES_PROBE 8

struct an_names;

struct an_export {
	struct cap_addr server;
	struct nfs_fh root;
	char path[AN_PATH_MAX];
};

struct an_names *an_names_new(uint32_t max);
void an_names_free(struct an_names *n);
/* An export root (MNT reply).  Returns the export id (>= 0) or -1 when the
 * export table is full. */
int an_names_export(struct an_names *n, const struct cap_addr *server,
		    const struct nfs_fh *fh, const char *path);
/* A child learned from a directory handle and a name. */
void an_names_child(struct an_names *n, const struct cap_addr *server,
		    const struct nfs_fh *dir, const char *name,
		    const struct nfs_fh *child);
/* Path and export id of a handle; false if unknown (*path = "", *exp = -1). */
bool an_names_get(const struct an_names *n, const struct cap_addr *server,
		  const struct nfs_fh *fh, const char **path, int *export_id);
const struct an_export *an_names_export_get(const struct an_names *n, int id);
int an_names_export_count(const struct an_names *n);
uint64_t an_names_evictions(const struct an_names *n);
uint32_t an_names_count(const struct an_names *n);

#endif
