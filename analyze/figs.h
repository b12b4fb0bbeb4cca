/*
 * figs.h - figures: operation records in, aggregates out.
 *
 * Purpose: everything the report prints that is a sum over operations:
 *   - rows: per procedure, and per (client | server | export | file) x
 *     procedure (plus an AN_PROC_ALL total row per group key; files have only
 *     the total row): count, answered/unanswered, errors by status, wire and
 *     data bytes, retransmissions and duplicate replies, latency histograms
 *     from the first and from the last transmission, and the intervals
 *     between transmissions of retransmitted calls;
 *   - pairs (client <-> server): READ/WRITE size histograms (exact count of
 *     each requested size), bytes read/written, short reads and writes
 *     (granted less than asked) and the largest count granted, stable_how
 *     asked x committed granted, COMMITs;
 *   - servers: FSINFO (v3) and STATFS tsize (v2) as last seen, write
 *     verifier and its changes with their time;
 *   - a time series (per `interval_ns`) of totals.
 *
 * An op counts as an error when the RPC was not accepted/successful or the
 * NFS/MOUNT status is not 0.  Unanswered ops count in `calls` and
 * `unanswered`, never in latency.  Ops known from their reply alone
 * (AN_OP_CALL_NOT_SEEN) count only in their procedure row's
 * `from_replies`, their pair's read_rep/write_rep and the totals'
 * `from_replies`: never in calls, latency, errors or the time series.
 *
 * Invariants: rows and pairs have fixed budgets (rows_max, files_max,
 * pairs_max, servers_max); what does not fit is counted in *_dropped, never
 * silently lost.  All histograms share hist.h's layout, so they merge.
 *
 * Ownership: the caller owns struct an_figs (an_figs_new/an_figs_free,
 * free(NULL) ok).  Row/pair/server pointers returned are owned by it and
 * stay valid until an_figs_free.
 *
 * Load: an_figs_add does two row lookups per op (its cell - client,
 * server, export, procedure - and its file) and histogram adds: one into
 * the cell (three for a retransmitted call: the latency from the last
 * transmission is kept only where it differs), two into the file row; the
 * op, client, server and export rows a cell feeds are found once,
 * when the cell is created, and its sums are merged into them (exactly) at
 * the first an_figs_nrows/an_figs_row after adds.  Cells share rows_max as
 * their own budget; past it ops update the rows directly (same figures,
 * slower).  Allocation only when a new row/cell/pair/server/interval
 * appears (amortised).  an_figs_push adds the same way, a few ops late,
 * after prefetching the lines the add touches (report uses it: its
 * second thread otherwise waited on one cache miss after another).
 */
#ifndef NFSCOPE_AN_FIGS_H
#define NFSCOPE_AN_FIGS_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/acc.h"
#include "analyze/hist.h"
#include "analyze/ops.h"

enum an_group {
	AN_BY_OP = 0, AN_BY_CLIENT, AN_BY_SERVER, AN_BY_EXPORT, AN_BY_FILE,
	AN_BY_N
};

#define AN_PROC_ALL 0xffffffffu
#define AN_STATUS_SLOTS 8
#define AN_VERF_CHANGES_MAX 16

struct an_status_count {
	uint32_t status;
	uint64_t n;
};

struct an_row {
	uint8_t group;			/* enum an_group */
	struct cap_addr addr;		/* client or server; export/file: server */
	int32_t export_id;		/* export rows: -1 = unknown export */
	struct nfs_fh fh;		/* file rows */
	char path[AN_PATH_MAX];		/* file rows: learned path ("" unknown) */
	uint32_t prog, vers, proc;	/* proc AN_PROC_ALL: every procedure */
	uint64_t calls, answered, unanswered, errors;
	uint64_t reply_not_seen;	/* no reply, but it may have been
					   hidden (AN_OP_REPLY_HIDDEN); not in
					   unanswered */
	uint64_t rpc_errors;		/* not accepted or accept_stat != 0 */
	uint64_t from_replies;		/* AN_BY_OP rows: ops known from their
					   reply alone (AN_OP_CALL_NOT_SEEN),
					   in no other field */
	uint64_t retrans, retrans_ops, late_retrans, dup_replies;
	uint64_t bytes;			/* call + reply wire bytes */
	uint64_t data_bytes;		/* READ bytes returned + WRITE bytes sent */
	uint64_t truncated;		/* partially captured ops */
	struct an_status_count st[AN_STATUS_SLOTS];	/* status != 0 */
	uint64_t st_other;
	struct hist lat;		/* from the first transmission */
	struct hist lat_last;		/* from the last transmission */
	struct hist ivl;		/* between transmissions (retransmits) */
};

struct an_pair {
	struct cap_addr client, server;
	uint8_t vers_seen;		/* bit 2: v2, bit 3: v3 */
	struct an_sizes read, write;
	uint64_t reads, writes, commits;
	/* from replies whose call was not seen (AN_OP_CALL_NOT_SEEN): the
	   sizes granted (READ count returned, WRITE count written) of the
	   successful ones, in none of the fields above */
	struct an_sizes read_rep, write_rep;
	uint64_t bytes_read, bytes_written;
	uint64_t short_reads;		/* fewer bytes than asked, not at EOF */
	uint64_t read_eof;
	uint64_t stable[3][4];		/* asked x granted (3: unknown) */
	uint64_t writes_unstable_small;	/* UNSTABLE writes < 32 KiB */
	/* granted: READ/WRITE reply counts (answered, ok) */
	uint64_t short_writes;		/* reply count below the asked count */
	uint32_t read_granted_max;	/* largest READ reply count */
	uint32_t write_granted_max;	/* largest WRITE reply count */
	uint32_t short_read_asked_max;	/* largest count of a short READ */
	uint32_t short_write_asked_max;	/* largest count of a short WRITE */
	/* NFSv4.1+: the fore channel of the pair's last CREATE_SESSION
	   reply (AN_HAVE_SESSION): ca_maxrequestsize, ca_maxresponsesize */
	bool have_session;
	uint32_t sess_maxreq, sess_maxresp;
};

struct an_verf_change {
	int64_t ts_ns;
	uint64_t frame;
	uint8_t old_verf[NFS_VERF_SIZE], new_verf[NFS_VERF_SIZE];
};

struct an_server {
	struct cap_addr addr;
	bool have_fsinfo, have_statfs, have_verf;
	uint32_t rtmax, rtpref, wtmax, wtpref, dtpref;
	uint32_t tsize;
	uint8_t verf[NFS_VERF_SIZE];
	/* verf is of the NFS version first seen (verf_vers); another
	   version's is kept apart: a server may encode its v3 and v4
	   verifiers differently (Linux nfsd), which is no restart */
	uint8_t verf_vers;
	bool have_verf_other;
	uint8_t verf_other[NFS_VERF_SIZE];
	int64_t verf_first_ns, verf_last_ns;
	uint32_t nverf_changes;		/* total (stored: <= AN_VERF_CHANGES_MAX) */
	struct an_verf_change verf_changes[AN_VERF_CHANGES_MAX];
};

/* One bucket of the time series: the sums of its ops (an_cell_add), also
 * by their field names (v->calls is v->s.calls). */
struct an_interval {
	int64_t start_ns;
	AN_SUMS_MEMBER;
};

struct an_figs_config {
	uint32_t rows_max;	/* 0: 4096 (all groups but files) */
	uint32_t files_max;	/* 0: 2048 (peak RSS: ~3 KB each) */
	uint32_t pairs_max;	/* 0: 512 */
	uint32_t servers_max;	/* 0: 256 */
	int64_t interval_ns;	/* 0: 1 s */
	uint32_t intervals_max;	/* 0: 86400 */
	bool intervals_counted;	/* count the intervals (nintervals, the
				   dropped) but keep none of their sums: for
				   a report that prints no time series */
};

struct an_figs;

struct an_figs *an_figs_new(const struct an_figs_config *cfg);
void an_figs_free(struct an_figs *f);
void an_figs_add(struct an_figs *f, const struct an_op *op);
/* an_figs_add, pipelined for a caller that adds many ops in a row: the op
 * is copied and added a few pushes later, once the cell, file row and
 * histogram buckets it updates have been fetched into the cache (their
 * misses, one after the other, were most of an add).  Every other
 * an_figs_* call first adds the ops still waiting, so the figures are
 * those of adding each op in order. */
void an_figs_push(struct an_figs *f, const struct an_op *op);

uint32_t an_figs_nrows(const struct an_figs *f, enum an_group g);
const struct an_row *an_figs_row(const struct an_figs *f, enum an_group g,
				 uint32_t k);
uint32_t an_figs_npairs(const struct an_figs *f);
const struct an_pair *an_figs_pair(const struct an_figs *f, uint32_t k);
uint32_t an_figs_nservers(const struct an_figs *f);
const struct an_server *an_figs_server(const struct an_figs *f, uint32_t k);
const struct an_server *an_figs_server_find(const struct an_figs *f,
					    const struct cap_addr *a);
uint32_t an_figs_nintervals(const struct an_figs *f);
const struct an_interval *an_figs_interval(const struct an_figs *f,
					   uint32_t k);
int64_t an_figs_interval_ns(const struct an_figs *f);

struct an_figs_totals {
	uint64_t ops, answered, unanswered, errors, retrans, dup_replies;
	uint64_t reply_not_seen;	/* AN_OP_REPLY_HIDDEN, not unanswered */
	uint64_t from_replies;		/* AN_OP_CALL_NOT_SEEN ops (not in ops) */
	int64_t first_ns, last_ns;	/* earliest call, latest event */
	uint64_t rows_dropped, files_dropped, pairs_dropped, servers_dropped;
	uint64_t intervals_dropped;
};
const struct an_figs_totals *an_figs_totals(const struct an_figs *f);


#endif
