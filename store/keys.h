/*
 * keys.h - internal to store/: the integer keys of the ops table's lookup
 * tables (op_hosts, op_procs, op_blobs, op_strings; schema.c), cached by
 * the writer thread.  A value's key is looked up in a bounded cache of
 * the values written lately (keys.c); a value not there gets a new row of
 * its table and is cached.  A value whose entry was pushed out gets a
 * second row (another key, the same value): the view ops joins by key, so
 * a reader never sees it.  Writer thread only; no allocation after
 * store_keys_new.  Calls only db.c (its hash).
 */
#ifndef NFSCOPE_STORE_KEYS_H
#define NFSCOPE_STORE_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum store_key_kind {
	KEY_HOST,	/* struct cap_addr -> op_hosts */
	KEY_PROC,	/* prog, vers, proc -> op_procs */
	KEY_BLOB,	/* a handle's or write verifier's bytes -> op_blobs */
	KEY_MACHINE,	/* AUTH_SYS machine name -> op_strings */
	KEY_PATH,	/* learned path -> op_strings */
	KEY_N
};

struct store_keys;

/* The caches, empty; NULL: out of memory.  store_keys_free(NULL) is a
 * no-op. */
struct store_keys *store_keys_new(void);
void store_keys_free(struct store_keys *k);
/* Forget every value (their rows may be gone: --retain). */
void store_keys_reset(struct store_keys *k);
/* The key of value v (len bytes, at most the kind's maximum) if cached
 * (0: seen once, no key yet, if the caller put it so). */
bool store_keys_get(struct store_keys *k, enum store_key_kind kind,
		    const void *v, size_t len, int64_t *id);
/* Cache v's key id (its row just written; or 0: v seen, no row). */
void store_keys_put(struct store_keys *k, enum store_key_kind kind,
		    const void *v, size_t len, int64_t id);

#endif
