/*
 * dump.h - `nfscope dump`: one line (text) or one JSON object (--json) per
 * RPC message, in the manner of `tcpdump -vv` for NFS, and a summary.
 *
 * The printers take a captured message and its decode and write to a FILE;
 * they never look at packet bytes themselves.  JSON keys are documented in
 * doc/dump-json.md.
 */
#ifndef NFSCOPE_DUMP_H
#define NFSCOPE_DUMP_H

#include <stdio.h>

#include "decode/decode.h"
#include "ui/times.h"

/* 32-bit FNV-1a of a handle: the short handle hash shown in text output. */
uint32_t dump_fh_hash(const struct nfs_fh *fh);

/* Offset up to which the RPC header was decoded (UINT32_MAX: all of it). */
uint32_t dump_hdr_limit(const struct dec_msg *d);

/* One line per message; the time as tm says (times.h). */
void dump_text_msg(FILE *f, const struct cap_msg *m, const struct dec_msg *d,
		   enum ui_time_mode tm);
void dump_json_msg(FILE *f, const struct cap_msg *m, const struct dec_msg *d);

/* The `dump` subcommand; argv[0] is "dump".  Returns the exit status. */
int ui_dump_main(int argc, char **argv);

#endif
