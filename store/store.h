/*
 * store.h - the sqlite store: runs, operations, per-interval aggregates,
 * transfer sizes, FSINFO, findings, names and flows in one database file.
 *
 * Purpose: `nfscope record` writes the analysis of a capture here; `report`,
 * the dashboard and the sqlite3 shell read it back, also while a recorder is
 * still writing.  The schema (store/schema.c, doc/store.md) is the stable
 * interface for SQL users; its version is in table schema_version.
 *
 * Writing: one run per recording.  Operations are appended to an open
 * transaction; store_commit() ends the batch (the caller commits per
 * interval of capture time, or when store_pending() reaches its batch size)
 * and starts the next one.  WAL mode, synchronous=NORMAL: a crash (kill -9,
 * power loss after the WAL was synced by a checkpoint) loses at most the
 * open batch, never the consistency of the file.  A run reads
 * state = 'recording' until store_run_end() marks it 'complete' (or
 * 'interrupted' when a signal stopped the capture): a run left 'recording'
 * was cut short by a crash and is reported as such.
 *
 * Reading: store_read_run() gives a run's metadata and counters;
 * store_read_ops() replays its operations, in the order the engine
 * delivered them, into the caller's callback, so figures and findings are
 * rebuilt by the very code that built them live (identical reports);
 * store_read_intervals() merges per-interval histograms, so percentiles over
 * any time range are exact in the engine's sense (analyze/hist.h).
 *
 * Errors: every function that touches the file returns 0 or a negative
 * value and writes a message into the caller's errbuf (STORE_ERRBUF_SIZE):
 * not writable, disk full (SQLITE_FULL), not an nfscope database, schema
 * newer than this program.  Nothing here prints or exits.
 *
 * Ownership: struct store is owned by the caller (store_open/store_close;
 * store_close(NULL) is a no-op) and is not thread-safe.  Other processes
 * may read the same file concurrently (WAL); only one may write.
 *
 * Load: store_put_op adds the op to its interval cell (a hash lookup and
 * a histogram add) and copies it into a bounded queue (4096 ops); one
 * insert thread per store steps the prepared INSERT (when the op is kept)
 * and writes and commits each batch, so the capture thread never waits for
 * sqlite unless the queue is full.  No allocation per op except when a new
 * interval cell, flow or name appears, and a few per batch.
 */
#ifndef NFSCOPE_STORE_H
#define NFSCOPE_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/figs.h"
#include "analyze/filter.h"
#include "analyze/find.h"
#include "analyze/hist.h"
#include "analyze/paths.h"
#include "analyze/ops.h"
#include "capture/capture.h"
#include "decode/decode.h"

#define STORE_SCHEMA_VERSION 6	/* 2: table drops; 3: runs.read_error,
				   read_error_offset, runs columns of TCP
				   records hidden by the snaplen and of
				   replies decoded by shape, table
				   sizes_from_replies; 4: runs columns
				   tcp_rejected, tcp_mem_evicted, dec_late_*,
				   dec_skew_tolerated; 5: ops a view over
				   op_rows and its key tables, intervals
				   lat_p50_ns, lat_p90_ns, lat_p99_ns (older
				   versions are migrated on write, the
				   percentiles filled from the blobs); 6:
				   runs columns tcp_gaps_missed,
				   tcp_gap_missed_bytes */
#define STORE_ERRBUF_SIZE 512
#define STORE_TEXT_MAX 512

/* store_open flags */
#define STORE_RDONLY  0x0u	/* an existing nfscope database */
#define STORE_WRITE   0x1u	/* create if missing, else append */
#define STORE_REPLACE 0x2u	/* with STORE_WRITE: replace an existing file */
#define STORE_FOLLOW  0x4u	/* read-only, following a writer (top):
				   never immutable */
/* Waiting for another process's lock on the database: a message after
 * 10 s, an error after this many seconds. */
#define STORE_BUSY_MAX_S 600

enum store_ops_mode { STORE_OPS_ALL = 0, STORE_OPS_SLOW, STORE_OPS_NONE };

/* One row of table runs. */
struct store_run {
	int64_t id;			/* set by store_run_begin */
	char source[STORE_TEXT_MAX];	/* capture file or interface */
	char filter[STORE_TEXT_MAX];	/* BPF filter ("" none) */
	int32_t snaplen;		/* live snaplen (0: file) */
	bool live;
	enum store_ops_mode ops_mode;
	int64_t slow_ns;		/* STORE_OPS_SLOW threshold */
	int64_t interval_ns;		/* width of table intervals' cells */
	int64_t retain_ns;		/* 0: keep everything */
	int64_t started, ended;		/* wall clock, unix seconds (0: open) */
	char state[16];			/* recording | complete | interrupted
				   | cut */
	/* state cut: the input was cut short or damaged (cap_read_error):
	 * libpcap's message, and the file offset where the damage begins
	 * (-1: unknown); every packet before it (cs.packets) is stored */
	char read_error[STORE_TEXT_MAX];	/* "": none */
	int64_t read_error_offset;
	int64_t first_ns, last_ns;	/* capture time span of all messages */
	uint64_t rpc_msgs;		/* messages decoded as RPC */
	uint64_t ops_stored;		/* rows in ops for this run */
	struct cap_stats cs;
	struct dec_stats ds;
	struct an_stats es;
};

/* Rows committed so far in this process (cumulative, for logs and tests). */
struct store_counts {
	uint64_t batches, ops, intervals, flows, names;
	uint64_t writer_ns;	/* CPU time of the thread inserting ops */
};

struct store;

/* Does path name a regular file that starts as an sqlite database does?
 * (A FIFO, "-" or /dev/stdin is never opened: no byte of it is consumed.) */
bool store_is_db(const char *path);
int store_open(const char *path, unsigned flags, struct store **out,
	       char *errbuf);
void store_close(struct store *s);
/* Bytes sqlite holds on the heap in this process (page caches of every
 * connection, statements, its scratch), from sqlite3_status64: bounded by
 * the page caches' cache_size (32 MiB a connection) plus a little. */
int64_t store_sqlite_heap(void);

/* ---- writing ---- */

/* After an error (or a run not ended): best effort, the open batch rolled
 * back and the run marked 'failed', so no run this process began is left
 * 'recording'.  A no-op without a run. */
void store_run_fail(struct store *s);
/* Insert run (state 'recording'); sets run->id. */
int store_run_begin(struct store *s, struct store_run *run, char *errbuf);
/* A message seen by the capture (flows table; cheap, no I/O). */
void store_put_msg(struct store *s, const struct cap_msg *m, bool rpc_call,
		   bool rpc_reply);
/* An operation: into ops (per the run's ops_mode), its interval cell and
 * names.  names may be NULL. */
int store_put_op(struct store *s, const struct an_op *op,
		 const struct an_names *names, char *errbuf);
/* Rows written in the open batch. */
uint64_t store_pending(const struct store *s);
/* End the batch: intervals closed before now_ns (capture time), flows,
 * names and exports, the run's counters; commit.  now_ns INT64_MAX closes
 * every interval cell.  The insert thread does it in its turn: this only
 * queues the batch end (what it needs of run, names and the flows is
 * copied), and returns -1 only for an error already seen (a failed
 * earlier batch, out of memory).  When the COMMIT is done the hook, if
 * any, is called on the insert thread with the counters and the run as
 * committed. */
int store_commit(struct store *s, const struct store_run *run,
		 const struct an_names *names, int64_t now_ns, char *errbuf);
typedef void (*store_commit_fn)(void *user, const struct store_counts *c,
				const struct store_run *run);
void store_set_commit_hook(struct store *s, store_commit_fn fn, void *user);
/* End of the run: last batch, then sizes, fsinfo, findings (from figs and
 * find, either may be NULL) and the final counters; run->state is written
 * as given ("complete" or "interrupted"). */
int store_run_end(struct store *s, struct store_run *run,
		  const struct an_names *names, const struct an_figs *figs,
		  const struct an_find *find, char *errbuf);
const struct store_counts *store_get_counts(const struct store *s);
/* Packets the capture lost in a span (live): a row of table drops, written
 * with the next batch.  Kept in memory until then (touching spans merged). */
void store_put_drop(struct store *s, const struct cap_drop_span *sp);

/* ---- reading ---- */

/* Number of runs and the id of the last one (0 if none). */
int store_last_run(struct store *s, int64_t *id, char *errbuf);
/* Run metadata and counters; -1 (message) if there is no such run. */
int store_read_run(struct store *s, int64_t id, struct store_run *run,
		   char *errbuf);
/* Replay the run's stored operations in delivery order; only those f
 * matches (f may be NULL; its times of day resolved: an_filter_resolve).
 * base_ns resolves "+S" times. */
int store_read_ops(struct store *s, int64_t run, const struct an_filter *f,
		   int64_t base_ns, an_op_fn fn, void *user, char *errbuf);
/* The same replay as a cursor, for merging several runs by time (report
 * and diff over several databases or runs): store_ops_next fills *op with
 * the next operation f matches and returns 1, 0 at the end, or -1 with a
 * message.  The cursor is the caller's (store_ops_close; NULL is a no-op)
 * and must be closed before its store. */
struct store_ops_cursor;
int store_ops_open(struct store *s, int64_t run, const struct an_filter *f,
		   int64_t base_ns, struct store_ops_cursor **out,
		   char *errbuf);
int store_ops_next(struct store_ops_cursor *c, struct an_op *op,
		   char *errbuf);
void store_ops_close(struct store_ops_cursor *c);
/* Add run src's counters into dst, as if one capture held both: counts
 * add, largest sizes and peaks take the larger, the time span covers
 * both (a zero first_ns is no time). */
void store_run_add(struct store_run *dst, const struct store_run *src);
/* Follow a run being written: its operations with ops.id > after_id, at
 * most limit (0: all), in id order; *last_id gets the last id read
 * (after_id if none). */
int store_read_ops_since(struct store *s, int64_t run, int64_t after_id,
			 uint32_t limit, an_op_fn fn, void *user,
			 int64_t *last_id, char *errbuf);
/* The run's rows of table drops, in time order (none in a schema 1
 * database, which had no such table). */
/* The TCP handshakes per pair of a run (table handshakes; a file
 * written before it has none: *n = 0), at most max into hs. */
int store_read_handshakes(struct store *s, int64_t run,
			  struct cap_handshake *hs, size_t max, size_t *n,
			  char *errbuf);
typedef void (*store_drop_fn)(void *user, const struct cap_drop_span *sp);
int store_read_drops(struct store *s, int64_t run, store_drop_fn fn,
		     void *user, char *errbuf);
/* Rebuild the export table (ids as recorded) into names. */
int store_read_exports(struct store *s, int64_t run, struct an_names *names,
		       char *errbuf);

/* A merged cell of table intervals. */
struct store_cell {
	uint32_t prog, vers, proc;
	uint64_t calls, answered, unanswered, errors, retrans, dup_replies;
	uint64_t bytes, data_bytes;
	struct hist lat;		/* from the first transmission */
};
typedef void (*store_cell_fn)(void *user, const struct store_cell *c);
/* Merge the run's interval cells in [from_ns, to_ns) (cell start), per
 * procedure, restricted by f's clients, servers and procedures (its path,
 * word and times are not in table intervals); one callback per
 * procedure.  The hist is owned by the store (valid during the call). */
int store_read_intervals(struct store *s, int64_t run,
			 const struct an_filter *f, int64_t from_ns,
			 int64_t to_ns, store_cell_fn fn, void *user,
			 char *errbuf);

/* The run's rows of an end-of-run table, "sizes", "sizes_from_replies",
 * "fsinfo" or "findings" (any other name: -1), as text (NULL for SQL
 * NULL), in insertion order; names are the column names (run left out). */
typedef void (*store_row_fn)(void *user, int ncols, const char *const *names,
			     const char *const *values);
int store_read_table(struct store *s, int64_t run, const char *table,
		     store_row_fn fn, void *user, char *errbuf);

/* ---- the histogram blob of table intervals (db.c) ---- */

/* Histogram <-> blob (varint pairs of bucket delta and count). */
size_t store_hist_encode(const struct hist *h, uint8_t *buf, size_t n);
int store_hist_decode(struct hist *h, const uint8_t *buf, size_t n);

#endif
