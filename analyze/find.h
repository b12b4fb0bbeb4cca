/*
 * find.h - findings: detectors over operation records, with plain-language
 * verdicts.
 *
 * Purpose: turn operations and figures into the few statements an admin
 * needs: storms, capped transfer sizes, sync exports and clients, server restarts,
 * error bursts, retransmit causes.  Each finding carries kind, time span,
 * client/server (when one applies), handle and path (when one applies),
 * count, peak rate (per second), evidence and one sentence of meaning.
 *
 * Storms (clients; GETATTR, ACCESS, LOOKUP, COMMIT) are found on sliding
 * windows: ops are counted in 10 ms buckets of their first call (with the
 * first and last call's time in each, to the microsecond); a window is the
 * `storm_window_ms` ending at each bucket.  A window is hot when it holds
 * at least rate x window calls; hot windows no more than `storm_gap_s`
 * apart form one storm, which starts at the first call of its first
 * bucket at the rate (count x 100 >= rate: 10 ms at the rate) and ends at
 * the last call of its last such bucket.  Its rate is over that real span:
 * (calls - 1) / (last - first call); its length is the span plus one mean
 * interval.  It is reported when its rate reaches the threshold and it
 * covers `storm_min_s` of 10 ms buckets, or at any length when its rate reaches
 * `storm_burst` x the threshold; GETATTR/ACCESS/LOOKUP storms must also be
 * `storm_share` of the client's ops in the span.  A COMMIT phase is the
 * same over windows whose COMMITs reach `commit_per_write` x their WRITEs
 * (gap `commit_gap_s`), reported with `commit_min` COMMITs and that ratio
 * over the phase.  Buckets close 2.56 s after the newest (the engine
 * delivers answered ops a few seconds late); an op older than that counts
 * in the oldest open bucket.  Memory: ~20 KB per client, made when the
 * client is first seen.
 *
 * Latency (servers, analyze/slow.c): a server whose cheap ops (NULL,
 * GETATTR, ACCESS, FSINFO) have a median (server time) above `slow_ms`
 * over `slow_min` of them is slow; or one client's view of it (from its
 * first transmission).  Intervals of `shift_interval_s` whose p99 is
 * `shift_factor` x the baseline (the median of the intervals' p99) and
 * at least `shift_min_ms` are a latency shift (intervals of
 * `shift_min_ops` ops count; 3 of them make a baseline).
 *
 * Error bursts (servers) count errors per second in a 64-second ring: a
 * second with one is hot; hot seconds no more than `error_gap_s` apart
 * form a burst, reported with `error_min` errors.  Thresholds: struct
 * an_find_config; defaults in an_find_config_default() and documented in
 * doc/report.md.
 *
 * Ownership: caller owns struct an_find (an_find_new/an_find_free, free(NULL)
 * ok).  Findings are owned by it, valid until an_find_free.  Budgets: at most
 * AN_FIND_SUBJECTS clients+servers tracked, AN_FIND_MAX findings kept
 * (more are counted in `dropped`).
 *
 * Load: a few array updates per op; the repeat tables are fixed-size and
 * overwrite on collision (approximate counts, never allocation).
 */
#ifndef NFSCOPE_AN_FIND_H
#define NFSCOPE_AN_FIND_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/figs.h"
#include "analyze/ops.h"

#define AN_FIND_SUBJECTS 1024
#define AN_FIND_MAX 512
#define AN_EVIDENCE_MAX 512

enum an_find_kind {
	AN_F_GETATTR_STORM, AN_F_ACCESS_STORM, AN_F_LOOKUP_STORM,
	AN_F_NOENT_REPEAT, AN_F_COMMIT_STORM, AN_F_SIZE_CAPPED,
	AN_F_SYNC_EXPORT, AN_F_SERVER_RESTART, AN_F_ERROR_BURST,
	AN_F_RETRANSMITS, AN_F_SHORT_IO, AN_F_SLOW_SERVER, AN_F_LATENCY_SHIFT,
	AN_F_SYNC_CLIENT, AN_F_NKINDS
};

struct an_finding {
	enum an_find_kind kind;
	int64_t start_ns, end_ns;
	bool have_client, have_server, have_fh;
	struct cap_addr client, server;
	struct nfs_fh fh;
	char path[AN_PATH_MAX];
	uint64_t count;
	double peak_rate;	/* per second; 0 if not a rate */
	double avg_rate;	/* per second over start..end; 0 if not a rate */
	char evidence[AN_EVIDENCE_MAX];
	const char *meaning;	/* static string */
};

struct an_find_config {
	uint32_t getattr_rate;	/* GETATTR/s per client: 500 */
	uint32_t access_rate;	/* ACCESS/s per client: 500 */
	uint32_t lookup_rate;	/* LOOKUP/s per client: 500 */
	uint32_t storm_min_s;	/* seconds a storm lasts at least: 3 */
	uint32_t storm_gap_s;	/* quiet seconds allowed inside a storm: 1 */
	double storm_share;	/* the kind's share of the client's ops in
				   the storm: 0.5 */
	uint32_t storm_window_ms;	/* sliding window: 1000 ms */
	uint32_t storm_burst;	/* x the rate: a storm at any length: 10 */
	uint32_t reval_ms;	/* same handle again within this: 100 ms */
	uint32_t noent_repeat;	/* same (dir, name) NOENT lookups: 10 */
	uint32_t commit_rate;	/* COMMIT/s per client: 200 */
	double commit_per_write;	/* COMMITs per WRITE in a phase: 0.5 */
	uint32_t commit_min;	/* with at least this many COMMITs: 50 */
	uint32_t commit_gap_s;	/* quiet seconds inside a phase: 5 */
	uint32_t error_min;	/* errors of one kind in a burst: 5 */
	uint32_t error_gap_s;	/* quiet seconds inside a burst: 5 */
	double sync_share;	/* UNSTABLE asked, FILE_SYNC granted: 0.9 */
	uint32_t sync_min;	/* with at least this many writes: 20 */
	double sync_client_share;	/* WRITEs asked FILE_SYNC or DATA_SYNC
					   by the client: 0.5 */
	uint32_t sync_client_min;	/* with at least this many: 20 */
	uint32_t size_share;	/* % of calls at the dominant size: 90 */
	uint32_t short_io_min;	/* short READs + WRITEs per pair: 10 */
	double short_io_share;	/* or under this share of its READs +
				   WRITEs: no finding: 0.05 */
	uint32_t slow_ms;	/* cheap ops' median above this: 10 ms */
	uint32_t slow_min;	/* with at least this many cheap ops: 20 */
	uint32_t shift_interval_s;	/* latency shift intervals: 10 s */
	double shift_factor;	/* p99 >= this x the baseline p99: 10 */
	uint32_t shift_min_ms;	/* and >= this: 10 ms */
	uint32_t shift_min_ops;	/* intervals with this many ops: 20 */
	uint32_t retrans_min;	/* retransmitted ops per client: 10 */
	double retrans_share;	/* or this share of its ops: 0.01 */
};

void an_find_config_default(struct an_find_config *c);

struct an_find;

struct an_find *an_find_new(const struct an_find_config *cfg);
void an_find_free(struct an_find *f);
void an_find_add(struct an_find *f, const struct an_op *op);
/* End of input: close open runs and add the findings that come from the
 * figures (sizes, sync exports, restarts, COMMIT ratio, retransmits).
 * ipfrag_incomplete is from struct cap_stats. */
void an_find_finish(struct an_find *f, const struct an_figs *figs,
		    uint64_t ipfrag_incomplete);
size_t an_find_count(const struct an_find *f);
const struct an_finding *an_find_get(const struct an_find *f, size_t k);
uint64_t an_find_dropped(const struct an_find *f);
const char *an_find_kind_name(enum an_find_kind k);

/*
 * Storms and error bursts still going on (not yet in an_find_get): those
 * that already qualify, described as they stand (end_ns = the last hot
 * second so far).  For live views; at most max into out.  Does not change
 * f.
 */
size_t an_find_ongoing(const struct an_find *f, struct an_finding *out,
		       size_t max);

/* The likely cause of a retransmitted op (the retransmit finding's
 * classification): no reply at all; the server answered twice or only
 * after the resend (slow); a quick answer to the resend (the first call or
 * its reply was lost); a fragmented UDP call (a fragment lost); a resend on
 * TCP (reconnect). */
enum an_rx_cause {
	AN_RX_NOREPLY, AN_RX_SLOW, AN_RX_LOST, AN_RX_FRAG, AN_RX_TCP,
	AN_RX_NCAUSES
};
enum an_rx_cause an_retrans_cause(const struct an_op *op);

/*
 * The transfer-size verdict for a client<->server pair, e.g.
 * "READ: 8192 bytes in 97% of calls, never above 8192; server advertises
 * rtmax 8192 -> the server caps reads at 8k; a 32k rsize cannot take
 * effect".  write: false for READ, true for WRITE.  srv may be NULL (no
 * FSINFO/STATFS seen).  Writes at most n bytes into buf; returns true if the
 * size looks capped by the server.
 */
bool an_size_verdict(const struct an_pair *p, const struct an_server *srv,
		     bool write, uint32_t share_pct, char *buf, size_t n);

#endif
