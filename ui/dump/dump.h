/*
 * dump.h - `nfscope dump`: one line (text) or one JSON object (--json) per
 * RPC message, in the manner of `tcpdump -vv` for NFS, and a summary.
 *
 * The printers take a captured message and its decode and write to a FILE;
 * they never look at packet bytes themselves.  JSON keys are documented in
 * nfscope(1), dump --json.
 */
#ifndef NFSCOPE_DUMP_H
#define NFSCOPE_DUMP_H

#include <stdio.h>

#include "analyze/msgmark.h"
#include "decode/decode.h"
#include "ui/times.h"

/* Offset up to which the RPC header was decoded (UINT32_MAX: all of it). */
uint32_t dump_hdr_limit(const struct dec_msg *d);

/* One line per message; the time as tm says (times.h). */
void dump_text_msg(FILE *f, const struct cap_msg *m, const struct dec_msg *d,
		   enum ui_time_mode tm);
void dump_json_msg(FILE *f, const struct cap_msg *m, const struct dec_msg *d);
/* The same with the message's marks (msgmark.h; mk NULL: none): text
 * " [retransmission of #F]", " [reply to #F in MS ms]", " [duplicate of
 * reply #F]"; JSON "retrans_of", "reply_to", "time_from_request",
 * "dup_of" (nfscope(1), dump --json). */
void dump_text_marked(FILE *f, const struct cap_msg *m,
		      const struct dec_msg *d, enum ui_time_mode tm,
		      const struct an_mark *mk);
void dump_json_marked(FILE *f, const struct cap_msg *m,
		      const struct dec_msg *d, const struct an_mark *mk);

/* The `dump` subcommand; argv[0] is "dump".  Returns the exit status. */
int ui_dump_main(int argc, char **argv);

#endif
