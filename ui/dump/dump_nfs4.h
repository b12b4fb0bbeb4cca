/*
 * dump_nfs4.h - dump's printers of an NFSv4 COMPOUND (dump_nfs4.c): the
 * message line's part, one line per operation, the JSON object.
 */
#ifndef NFSCOPE_DUMP_NFS4_H
#define NFSCOPE_DUMP_NFS4_H

#include <stdbool.h>
#include <stdio.h>

#include "decode/decode.h"
#include "ui/json.h"

/* " minor 1 4 ops" (call) / " ok 4 ops" (reply), on the message's line */
void dump_nfs4_head(FILE *f, const struct nfs4_compound *cp, bool call);
/* One indented line per stored op, each ending in a newline. */
void dump_nfs4_ops(FILE *f, const struct nfs4_compound *cp);
/* "nfs4": { "minorversion" | "status", "nops", "ops": [...] } */
void dump_nfs4_json(struct jw *w, const struct nfs4_compound *cp, bool call);

#endif
