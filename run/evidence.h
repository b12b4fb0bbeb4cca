/*
 * evidence.h - `--write-pcap OUT`: the packets of selected operations,
 * written as a pcap Wireshark opens: every frame that carried one of their
 * messages (each transmission of the call, each reply, every IP fragment
 * and TCP segment of them), in capture order, with the input's link type
 * and nanosecond timestamps.
 *
 * Use: run_evidence_new with the selection; run_evidence_op for every
 * operation of the run (on one thread: the analysis thread's op hook);
 * after the run, run_evidence_write reads the files again twice (the
 * same configuration): once decoding, to find the messages of the kept
 * operations (same client, server and XID, from the first call to the
 * last reply or duplicate reply) and the frames that carried them (first
 * to completing frame, of the same IP fragment train or TCP flow
 * direction; over TCP also the records that end in the segment where a
 * kept one begins, up to EV_CHAIN deep, so a reader finds where it
 * starts), once to copy those frames.  Files only: a live capture
 * cannot be read again.
 *
 * Memory: ~64 bytes per kept operation and per message found (arrays that
 * grow by doubling, never per packet); at most RUN_EV_OPS_MAX operations
 * are kept, the others counted (ops_over).
 */
#ifndef NFSCOPE_RUN_EVIDENCE_H
#define NFSCOPE_RUN_EVIDENCE_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/ops.h"
#include "run/base.h"

#define RUN_EV_OPS_MAX 4000000u

/* Which operations (any of the set ones; none set: every operation
 * offered, which the caller's filters chose). */
struct run_ev_select {
	int64_t slow_ns;	/* > 0: latency (from the first call) above */
	bool errors;		/* an NFS or MOUNT status, or an RPC error */
	bool retrans;		/* retransmitted, or a duplicate reply */
	bool unanswered;	/* no reply seen */
};

struct run_ev_stats {
	uint64_t ops;		/* operations kept */
	uint64_t ops_over;	/* selected, not kept: RUN_EV_OPS_MAX */
	uint64_t msgs;		/* their messages found */
	uint64_t frames;	/* frames written */
};

struct run_evidence;

/* Parse "slow:MS,errors,retrans,unanswered" into *s: 0, or -1 with a
 * message in err. */
int run_ev_select_parse(const char *arg, struct run_ev_select *s, char *err,
			size_t n);
struct run_evidence *run_evidence_new(const struct run_ev_select *sel);
void run_evidence_free(struct run_evidence *ev);
/* One operation of the run: kept if the selection takes it. */
void run_evidence_op(struct run_evidence *ev, const struct an_op *op);
/* Read c's files again and write the kept operations' frames to path.
 * Returns 0, or -1 with a message on stderr. */
int run_evidence_write(struct run_evidence *ev, const struct run_config *c,
		       const char *path, struct run_ev_stats *st);

#endif
