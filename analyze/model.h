/*
 * model.h - the report model: every figure a report shows, computed once
 * from the figures (figs.h), the findings (find.h) and the run's counters
 * into plain structs.  The writers (text, JSON, CSV; later HTML, metrics)
 * only format what is here: no writer computes a rate, a mean, a
 * percentile or a verdict of its own.
 *
 * Units: times are ns since the epoch (int64_t, as the capture stamps
 * them); durations s (double); latencies ms (double, fields *_ms) beside
 * the exact ns (fields *_ns); rates are per second of the report's span
 * (duration_s; 0 when the span is empty); kib is 1024 bytes; shares are
 * per cent (*_pct).
 *
 * Ownership: an_model_build fills a caller-owned struct an_model and
 * allocates its arrays; an_model_fini frees them (a zeroed model is
 * finished at no cost).  The pointers inside (rows, pairs, servers,
 * intervals, findings, counters) are borrowed from the inputs, which must
 * outlive the model and not change while it is used.
 *
 * Load: built once per report (or per block of a partial report), after
 * the capture: its allocations are not on the packet path.  Rows of a
 * group are summarised only when asked for (want), so a report pays for
 * the tables it prints.
 */
#ifndef NFSCOPE_AN_MODEL_H
#define NFSCOPE_AN_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/figs.h"
#include "analyze/find.h"
#include "analyze/hist.h"
struct an_verdict;	/* analyze/judge.h */
#include "analyze/paths.h"
#include "analyze/series.h"

/* One latency histogram, summarised.  Percentiles are hist.h's
 * (nearest rank, bucket midpoint); all fields are set, 0 when empty. */
struct an_lat {
	uint64_t count;
	double min_ms, avg_ms, max_ms;
	double p50_ms, p90_ms, p95_ms, p99_ms, p99_9_ms;
	uint64_t min_ns, max_ns;
	double sum_ns;
};
void an_lat_of(const struct hist *h, struct an_lat *l);

/* The groups' names ("op", "client", ...), as --by takes them. */
extern const char *const an_model_group_names[AN_BY_N];

/* ns as ms. */
static inline double an_ms(uint64_t ns)
{
	return (double)ns / 1e6;
}
/* The mean of n values summing to sum_ns, in ms; 0 if n is 0. */
double an_mean_ms(double sum_ns, uint64_t n);

/* One row of a table (a procedure, or a group key x procedure). */
struct an_model_row {
	const struct an_row *row;	/* borrowed: counts, status, keys */
	double ops_per_s;		/* calls */
	double bytes_per_s;		/* call + reply wire bytes */
	bool has_data;			/* READ/WRITE data moved: */
	double data_kib_per_op;		/* data_bytes / 1024 per call */
	double data_kib_per_s;
	double retrans_pct;		/* retransmitted calls per 100 calls */
	struct an_lat lat;		/* from the first transmission */
	struct an_lat lat_last;		/* from the last transmission */
	struct an_lat ivl;		/* between transmissions */
};
void an_model_row_of(const struct an_row *w, double duration_s,
		     struct an_model_row *out);

/* A client <-> server pair: sizes, writes, verdicts, vantage point. */
struct an_model_pair {
	const struct an_pair *pair;	/* borrowed */
	const struct an_server *server;	/* its server's info; NULL: none */
	double commits_per_write;	/* 0 without WRITEs */
	bool has_read_verdict, read_capped;
	char read_verdict[AN_EVIDENCE_MAX];
	bool has_write_verdict, write_capped;
	char write_verdict[AN_EVIDENCE_MAX];
	bool has_vantage;		/* find.h's an_find_vantage */
	struct an_vantage_info vantage;
	char vantage_text[512];		/* an_vantage_evidence */
	const char *vantage_by;		/* tcp_acks, tcp_handshakes,
					   udp_resends */
	double syn_synack_min_ms, synack_ack_min_ms;
	double server_ack_min_ms, client_ack_min_ms;
};

/* A server: FSINFO/STATFS, verifier (borrowed) and its COMMIT latency. */
struct an_model_server {
	const struct an_server *server;
	bool has_commit;		/* NFSv3 COMMITs answered */
	struct an_lat commit;
};

/* One interval of the time series. */
struct an_model_interval {
	const struct an_interval *iv;	/* borrowed */
	double ops_per_s, bytes_per_s;	/* over the interval's width */
	double lat_avg_ms, lat_max_ms;	/* answered ops */
	bool incomplete;		/* overlaps a span with drops */
};

/* One interval x procedure of the per-procedure time series (series.h). */
struct an_model_series {
	const struct an_series_cell *cell;	/* borrowed */
	double ops_per_s;		/* calls over the interval's width */
	struct an_lat lat;		/* answered ops of the cell */
};

/* A column of the series (every procedure of one interval): its sums,
 * and for the latency heat map its answered ops per latency range, the
 * histograms' power-of-two ranges (hist.h's hist_range_count): row c from
 * edge_ms[c] to edge_ms[c + 1].  Row 0 (below 128 ns) starts at 64 ns, so
 * a log axis can show it.  rx_cause: its retransmitted ops per cause
 * (find.h's an_rx_cause, at the pairs' vantage points: over the columns
 * they add up to the pairs' vantage.cause[]). */
#define AN_MODEL_HEAT_ROWS HIST_NCHUNK
struct an_model_heat {
	int64_t start_ns;
	struct an_sums sums;
	uint64_t count[AN_MODEL_HEAT_ROWS];
	uint64_t rx_cause[AN_RX_NCAUSES];
};

/* What to build beyond the totals, pairs, servers and findings. */
#define AN_MODEL_ROWS(g) (1u << (g))	/* the rows of group g */
#define AN_MODEL_ALL_ROWS ((1u << AN_BY_N) - 1)
#define AN_MODEL_INTERVALS (1u << AN_BY_N)
#define AN_MODEL_SERIES (1u << (AN_BY_N + 1))	/* needs input series */

struct an_model_input {
	const struct an_figs *figs;
	const struct an_find *find;	/* finished (an_find_finish) */
	const struct an_names *names;	/* export paths of the row keys */
	const struct cap_stats *cs;
	const struct dec_stats *ds;
	const struct an_stats *es;
	uint64_t rpc_msgs;
	int64_t first_ns, last_ns;	/* the report's span */
	int64_t interval_ns;		/* the time series' width; 0: none */
	uint32_t size_share;		/* % for a size verdict to say capped */
	uint32_t top;			/* file rows kept (most calls first) */
	uint64_t evictions;		/* entries dropped for memory budgets */
	bool cut;			/* the input was cut short */
	const struct cap_drop_span *drops;	/* spans with capture drops */
	uint32_t ndrops;
	const struct an_series *series;	/* per procedure; NULL: none */
	uint32_t series_cols_max;	/* >= 2: more intervals than this are
					   merged, k at a time (exactly: the
					   histograms merge); 0: never */
	unsigned want;			/* AN_MODEL_* bits */
};

struct an_model {
	struct an_model_input in;	/* as given */
	double duration_s;		/* last_ns - first_ns, >= 0 */
	const struct an_figs_totals *totals;
	double ops_per_s;		/* totals->ops */
	bool complete;			/* no drops, evictions, hidden TCP
					   records, TCP holes the capture
					   missed, and the input whole */
	/* rows per group in the writers' order: a group key's rows together
	   (its AN_PROC_ALL total first), then by program, version,
	   procedure; files by calls, at most `top` of them */
	struct an_model_row *rows[AN_BY_N];
	uint32_t nrows[AN_BY_N];
	struct an_model_pair *pairs;	/* figs' order */
	uint32_t npairs;
	struct an_model_server *servers;
	uint32_t nservers;
	struct an_model_interval *intervals;
	uint32_t nintervals;
	const struct an_finding **findings;	/* by impact (judge.h) */
	struct an_impact *impact;	/* findings[k]'s */
	size_t nfindings;
	struct an_verdict *verdict;	/* judge.h; owned */
	uint64_t findings_dropped;
	uint64_t findings_unexamined;	/* an_find_unexamined */
	/* AN_MODEL_SERIES: by procedure (program, version, procedure), then
	   by time, series_width_ns wide (the series' interval, or k of them
	   merged: series_cols_max); the columns (heat map) by time; ops the
	   series could not keep */
	int64_t series_width_ns;
	struct an_series_cell *series_own;	/* merged cells (owned) */
	uint32_t nseries_own;
	struct an_model_series *series;
	uint32_t nseries;
	struct an_model_heat *heat;
	uint32_t nheat;
	double heat_edge_ms[AN_MODEL_HEAT_ROWS + 1];
	uint64_t series_dropped;
	uint64_t rx_dropped;		/* retransmitted ops in no column's
					   rx_cause (a budget) */
};

/* Returns 0, or -1 when out of memory (m is then finished). */
int an_model_build(struct an_model *m, const struct an_model_input *in);
void an_model_fini(struct an_model *m);

/* Names of what the model holds (into buf, n bytes, or a static string):
 * "NFSv3 READ", "(all)" for AN_PROC_ALL; a status by its RFC name or
 * "status_N"; a row's key (address, server:export path, server:path
 * fh=hash) unescaped. */
const char *an_model_proc_name(uint32_t prog, uint32_t vers, uint32_t proc,
			       char *buf, size_t n);
const char *an_model_status_name(const struct an_row *row, uint32_t status,
				 char *buf, size_t n);
const char *an_model_row_key(const struct an_model *m,
			     const struct an_row *row, char *buf, size_t n);

/* A row of `report --every`'s block (nfsiostat's columns) over a window of
 * secs seconds, from a cell's sums (acc.h) and the sum of its answered
 * ops' latency from the last transmission (the server's time).  The
 * writers print these; they compute no rate or mean of their own. */
struct an_model_rate {
	double ops_per_s, data_kib_per_s, data_kib_per_op, retrans_pct;
	double rtt_avg_ms, exe_avg_ms;	/* answered ops; 0 if none */
};
void an_model_rate(const struct an_sums *s, int64_t rtt_sum_ns, double secs,
		   struct an_model_rate *out);

#endif
