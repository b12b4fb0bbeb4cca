/*
 * series.h - the report's time series per procedure: cells of one
 * interval x procedure holding the sums of their ops (acc.h's one rule)
 * and their latency histogram (from the first transmission), so the
 * report model (model.h) gives ops/s and percentiles over time per
 * procedure and a latency heat map (time x log latency).  The totals'
 * series (figs.h's intervals) stays where it is; this one is built only
 * for a report that draws it (report --html, --json with --interval).
 *
 * An op falls in the interval of its first call (an_bucket_start), as in
 * figs.h; ops known from their reply alone (AN_OP_CALL_NOT_SEEN) are left
 * out, as everywhere in the time series.
 *
 * Beside them, the retransmitted ops per interval and rx key (an_find_add's
 * answer: the pair and the fact that decide the op's cause), so the model
 * gives each interval's retransmitted ops per cause once the pairs'
 * vantage points are known (an_find_rx_cause), adding up to the pairs'
 * causes (an_find_vantage).
 *
 * Invariants: at most cells_max cells, and at most cells_max rx cells; an
 * op whose cell does not fit is counted in an_series_dropped (its rx cell:
 * an_series_rx_dropped), never silently lost.
 *
 * Ownership: the caller owns struct an_series (an_series_new /
 * an_series_free, free(NULL) ok); cells returned stay valid until
 * an_series_free (and are not moved by later adds' lookups only: a new
 * cell may move them, so read them after the adds).
 *
 * Load: one hash probe and an_cell_add per op; allocation only when a
 * new cell appears (amortised) and a histogram's new chunk.
 */
#ifndef NFSCOPE_AN_SERIES_H
#define NFSCOPE_AN_SERIES_H

#include <stdint.h>

#include "analyze/acc.h"
#include "analyze/hist.h"
#include "analyze/ops.h"

#define AN_SERIES_CELLS_DEFAULT 65536

struct an_series_cell {
	int64_t start_ns;		/* the interval's start */
	uint32_t prog, vers, proc;
	AN_SUMS_MEMBER;
	struct hist lat;		/* answered ops, first transmission */
};

struct an_series;

/* interval_ns > 0; cells_max 0: AN_SERIES_CELLS_DEFAULT.  NULL: out of
 * memory. */
struct an_series *an_series_new(int64_t interval_ns, uint32_t cells_max);
void an_series_free(struct an_series *s);
/* rx_key: an_find_add's answer for op (-1: not counted as retransmitted). */
void an_series_add(struct an_series *s, const struct an_op *op,
		   int32_t rx_key);

int64_t an_series_interval_ns(const struct an_series *s);
uint32_t an_series_ncells(const struct an_series *s);
/* Cell k (< an_series_ncells), in the order they appeared. */
const struct an_series_cell *an_series_cell(const struct an_series *s,
					    uint32_t k);
/* Ops whose cell did not fit in cells_max (or memory). */
uint64_t an_series_dropped(const struct an_series *s);

/* Retransmitted ops of one interval and rx key. */
struct an_series_rx {
	int64_t start_ns;		/* the interval's start */
	int32_t rx_key;			/* an_find_rx_cause's argument */
	uint64_t ops;
};
uint32_t an_series_nrx(const struct an_series *s);
/* rx cell k (< an_series_nrx), in the order they appeared. */
const struct an_series_rx *an_series_rx(const struct an_series *s,
					uint32_t k);
/* Retransmitted ops whose rx cell did not fit. */
uint64_t an_series_rx_dropped(const struct an_series *s);

#endif
