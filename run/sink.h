/*
 * sink.h - what a run's operations feed.  A command chooses its sinks
 * (struct run_sinks, in its run_hooks); run/ wires them: every operation
 * kept goes, on the analysis thread and in this order, to
 *
 *   1. the sinks marked `early` (they see the findings as they stood
 *      before the op: top's window takes its retransmit cause there),
 *   2. the figures (an_figs_add, or an_figs_push when read only at the end),
 *   3. the findings (an_find_add: its answer is the op's rx key),
 *   4. the time series (an_series_add, with that rx key),
 *   5. the other sinks, in their order (report --every, the evidence
 *      for --write-pcap: run_evidence_sink, the metrics: ui_mx_sink);
 *
 * and the store (run_config.store_path) takes it on the same thread.  A
 * sink's `health` gets the counters as they stand (live: each second,
 * after the store's commit; a run with a publish hook: at each
 * publication), on the capture thread.  At the end of the input, unless
 * reading failed and lost it, the findings get the TCP handshakes and
 * (find_finish) are finished, then each sink's `end` is called, before
 * the command's end hook; the store keeps the figures and findings with
 * the runs row.  A database replayed (run_put_op) feeds the same sinks.
 *
 * Ownership: every object named here is the caller's and must outlive
 * the run (run_free stops the threads that use them).
 */
#ifndef NFSCOPE_RUN_SINK_H
#define NFSCOPE_RUN_SINK_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/figs.h"
#include "analyze/find.h"
#include "analyze/ops.h"
#include "analyze/series.h"
#include "capture/capture.h"
#include "decode/decode.h"


/* What the end of a run hands its sinks and the end hook: the final
 * counters (a database replayed: all NULL and zero, or the stored run's
 * counters in cs). */
struct run_end {
	const struct cap_stats *cs;	/* pipe's, with pcap_stats' */
	const struct dec_stats *ds;
	const struct an_stats *es;	/* NULL: no engine */
	const struct an_names *names;	/* NULL: no engine */
	const struct cap_handshake *handshakes;	/* CAP_HANDSHAKE_PAIRS */
	const struct cap_read_error *cut;	/* NULL: not cut */
	const char *state;		/* complete, interrupted or cut */
	bool error;			/* reading failed: input lost */
	bool store_failed;
	uint64_t rpc_msgs;
	int64_t first_ns, last_ns;	/* capture times of the messages */
};

/* One sink of the command's own (any callback may be NULL). */
struct run_sink {
	void *user;
	bool early;			/* before the figures and findings */
	/* rx: an_find_add's answer (-1: early, or no findings) */
	void (*op)(void *user, const struct an_op *op, int32_t rx);
	void (*health)(void *user, const struct cap_stats *cs,
		       const struct dec_stats *ds, const struct an_stats *es);
	void (*end)(void *user, const struct run_end *e);
};

#define RUN_SINKS_MAX 4

struct run_sinks {
	struct an_figs *figs;		/* NULL: none */
	bool figs_push;			/* an_figs_push (report: read at the end) */
	struct an_find *find;		/* NULL: none */
	bool find_finish;		/* an_find_finish at the end (else the
					   caller finishes them) */
	struct an_series *series;	/* NULL: none */
	struct run_sink sink[RUN_SINKS_MAX];
	uint32_t nsinks;
};

/* Add a sink of the command's own (at most RUN_SINKS_MAX; asserted). */
void run_sinks_add(struct run_sinks *s, const struct run_sink *k);
/* One operation into every sink, in the order above. */
void run_sinks_op(const struct run_sinks *s, const struct an_op *op);
/* The counters into every sink that wants them. */
void run_sinks_health(const struct run_sinks *s, const struct cap_stats *cs,
		      const struct dec_stats *ds, const struct an_stats *es);
/* Does a sink want the counters? */
bool run_sinks_want_health(const struct run_sinks *s);
/* The end of the input (see above). */
void run_sinks_end(const struct run_sinks *s, const struct run_end *e);

#endif
