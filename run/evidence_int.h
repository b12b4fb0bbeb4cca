/*
 * evidence_int.h - what evidence.c and evidence_find.c share: a kept
 * operation, with what `--select findings` needs to know of it to decide
 * at the end of the run whether it is a finding's evidence (the table is
 * in evidence.h).  Plain values, ~104 bytes an operation.
 */
#ifndef NFSCOPE_RUN_EVIDENCE_INT_H
#define NFSCOPE_RUN_EVIDENCE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/find.h"
#include "analyze/ops.h"

/* struct ev_op.cls: the procedure as the findings group them */
enum ev_class {
	EV_C_OTHER, EV_C_GETATTR, EV_C_ACCESS, EV_C_LOOKUP, EV_C_COMMIT,
	EV_C_WRITE, EV_C_READ, EV_C_CHEAP	/* NULL, FSINFO */
};

/* struct ev_op.bits */
#define EV_B_CAND	0x001u	/* kept only as a candidate (findings) */
#define EV_B_ANSWERED	0x002u
#define EV_B_RETRANS	0x004u	/* retransmitted (not: duplicate reply) */
#define EV_B_BURST	0x008u	/* JUKEBOX, STALE, ACCES or NOSPC */
#define EV_B_NOENT	0x010u	/* a LOOKUP answered NOENT */
#define EV_B_SHORT	0x020u	/* short READ (not at EOF) or WRITE */
#define EV_B_SYNC_ASKED	0x040u	/* WRITE asked FILE_SYNC or DATA_SYNC */
#define EV_B_SYNC_GOT	0x080u	/* WRITE asked UNSTABLE, got FILE_SYNC */
#define EV_B_LAT	0x100u	/* has latencies (its call was seen) */
#define EV_B_NFS	0x200u	/* an NFSv2 or v3 operation */
#define EV_B_HELD	0x400u	/* TCP: its call or reply spread over 35 ms
				   from first segment to last, or answered
				   in 36-44 ms (tcp_stall) */

/* A kept operation: its messages are those of its client, server, program
 * and XID between from_ns and to_ns. */
struct ev_op {
	struct cap_addr client, server;
	uint32_t xid, prog;
	int64_t from_ns, to_ns;
	/* --select findings */
	int64_t lat_first_ns, lat_last_ns, reply_ns;
	uint32_t fh_hash;	/* of its handle (0: none) */
	uint32_t name_hash;	/* of its name's first 63 bytes (0: none) */
	uint16_t bits;
	uint8_t cls;		/* enum ev_class */
};

/* The facts of op (cls, bits, fh_hash, latencies) into o. */
void ev_op_facts(struct ev_op *o, const struct an_op *op);
/* Could op be evidence of some finding (an NFS operation, or one
 * retransmitted)? */
bool ev_op_candidate(const struct an_op *op);
/* Is o evidence of finding f (evidence.h's table)?  slow_ns: the slow
 * server threshold (an_find_config slow_ms). */
bool ev_op_covered(const struct ev_op *o, const struct an_finding *f,
		   int64_t slow_ns);
/* A handle's hash, as ev_op.fh_hash holds it; a name's (its first n
 * bytes), as ev_op.name_hash. */
uint32_t ev_fh_hash(const struct nfs_fh *fh);
uint32_t ev_name_hash(const char *name, size_t n);

#endif
