/*
 * acc.h - the one accumulator: operations added up into cells.
 *
 * Purpose: a cell holds the sums of the operations that share one key, a
 * time bucket x procedure x client x server x export (a caller keys its
 * cells by the part it needs and owns them), and an_sums_add is the one
 * rule that adds an op to it.  Report's time series (figs.c), the store's
 * interval rows (store/write.c), the dashboard's window sums and rows
 * (analyze/window.c's records, an_win_opsum, added by ui/top/top_view.c) and
 * report's --every rows (ui/report/report_every.c) all add through it, so they
 * count alike.  The rules every reader of cells shares live here
 * too: the bucket a time falls in, the rate over the span that holds data,
 * the dominant transfer size and its verdict share, and how long the
 * engine keeps answered ops before delivering them.
 *
 * What a cell counts: calls; answered (with latency from the first
 * transmission); unanswered = every op not answered (a hidden reply too,
 * as the interval rows always counted); errors (an_op_is_error);
 * retransmissions and retransmitted calls; duplicate replies; call + reply
 * wire bytes; data bytes (an_op_data_bytes).  Ops known from their reply
 * alone (AN_OP_CALL_NOT_SEEN) have no call and no latency: the callers
 * leave them out of cells.
 *
 * Ownership: plain values; a cell's histogram is its owner's (hist.h).
 * Load: an_sums_add is a few adds and at most one histogram add per op;
 * it never allocates (but for a histogram's new chunk).
 */
#ifndef NFSCOPE_AN_ACC_H
#define NFSCOPE_AN_ACC_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/hist.h"
#include "base/units.h"
#include "analyze/ops.h"

/* AN_ANSWERED_KEEP_NS (ops.h): a window of live data ends that far back. */
/* Ops are delivered up to unanswered_ns (60 s, +5 s slack) after their
 * first call: an op of a window may come this much later than it. */
#define AN_LATE_NS (65 * (int64_t)NSEC_PER_SEC)

#define AN_SIZES_MAX 64

struct an_size_count {
	uint32_t size;
	uint64_t n;
};

/* Calls per requested size (exact count of each size). */
struct an_sizes {
	uint32_t nsizes;
	struct an_size_count s[AN_SIZES_MAX];
	uint64_t other;			/* sizes beyond AN_SIZES_MAX distinct */
	uint64_t total;
	uint32_t max;
};

/* Is op an error (RPC not successful or status != 0)?  Inline: the
 * figures ask it of every op in several places. */
static inline bool an_op_is_error(const struct an_op *op)
{
	if (!(op->flags & AN_OP_ANSWERED))
		return false;
	if (op->reply_stat != RPC_MSG_ACCEPTED || op->accept_stat != RPC_SUCCESS)
		return true;
	return (op->have & AN_HAVE_STATUS) && op->status != 0;
}

/* Data bytes an op moved: READ bytes returned, WRITE bytes written (0 for
 * errors, unanswered ops and every other procedure). */
static inline uint64_t an_op_data_bytes(const struct an_op *op)
{
	uint32_t p = an_nfs_v3proc(op->prog, op->vers, op->proc);
	bool rd = p == NFS3_READ, wr = p == NFS3_WRITE;

	if (!(op->flags & AN_OP_ANSWERED) || an_op_is_error(op))
		return 0;
	if (rd)
		return (op->have & AN_HAVE_RCOUNT) ? op->rcount : 0;
	if (wr)
		return (op->have & AN_HAVE_RCOUNT) ? op->rcount :
		       (op->have & AN_HAVE_COUNT) ? op->count : 0;
	return 0;
}

/* The sums of a cell (an_cell_add).  The lat_* fields are the latency
 * from the first transmission of the answered ops, without a histogram. */
#define AN_SUMS_FIELDS \
	uint64_t calls, answered, unanswered, errors, retrans, retrans_ops; \
	uint64_t dup_replies, bytes, data_bytes; \
	double lat_sum_ns; \
	uint64_t lat_max_ns
struct an_sums {
	AN_SUMS_FIELDS;
};
/* A member `s` (struct an_sums) whose fields are also members by their
 * own names (x->calls is x->s.calls). */
#define AN_SUMS_MEMBER union { struct an_sums s; struct { AN_SUMS_FIELDS; }; }

/* What the add rule reads of an op: small enough for a history of ops to
 * keep (the dashboard's records, which may saturate retrans and dup). */
struct an_opsum {
	int64_t lat_ns;			/* from the first transmission */
	uint64_t bytes, data;		/* call + reply wire bytes; data bytes */
	uint32_t retrans, dup;
	bool answered, error;
};

static inline struct an_opsum an_opsum_of(const struct an_op *op)
{
	struct an_opsum x;

	x.lat_ns = op->lat_first_ns;
	x.bytes = (uint64_t)op->call_len + op->reply_len;
	x.data = an_op_data_bytes(op);
	x.retrans = op->retrans;
	x.dup = op->dup_replies;
	x.answered = (op->flags & AN_OP_ANSWERED) != 0;
	x.error = an_op_is_error(op);
	return x;
}

/* The one rule: add an op to s; lat, if not NULL, gets its latency
 * (answered ops).  Everything that adds up ops calls one of these. */
void an_sums_add(struct an_sums *s, struct hist *lat,
		 const struct an_opsum *x);
/* an_sums_add of an op (not AN_OP_CALL_NOT_SEEN). */
void an_cell_add(struct an_sums *s, struct hist *lat, const struct an_op *op);

/* Start of the bucket of width w_ns (> 0) that holds t (floor, also for
 * times before 1970). */
static inline int64_t an_bucket_start(int64_t t, int64_t w_ns)
{
	return (t >= 0 ? t / w_ns : (t - w_ns + 1) / w_ns) * w_ns;
}

/* A count per second over the span [from_ns, to_ns) that holds data (0
 * for an empty span), as report's rates are. */
double an_rate(uint64_t n, int64_t from_ns, int64_t to_ns);
/* n events over secs seconds: per second, 0 if secs is not positive (the
 * report model's rates over its span). */
double an_per_s(uint64_t n, double secs);

/* A size verdict's default: the dominant size holds this share of the
 * calls (percent) for the calls to count as using it (find.h size_share). */
#define AN_SIZE_SHARE_DEFAULT 90

/* The dominant size of s: the one most calls used (ties: the larger);
 * *n its calls.  0 (and *n 0) when s is empty. */
uint32_t an_sizes_dominant(const struct an_sizes *s, uint64_t *n);
/* Count one call of `size` in s (sizes past AN_SIZES_MAX distinct go to
 * other). */
void an_sizes_add(struct an_sizes *s, uint32_t size);

#endif
