/*
 * db.h - internal to store/, its bottom: struct store, the prepared
 * statements and their binding, errors, the histogram blob (db.c).  Every
 * other store/ file builds on it; db.c calls none of them.  Layers, each
 * calling only those below: db.c; keys.c (the ops table's key caches),
 * schema.c (tables, versions, store_open) and tables.c (flows, exports,
 * end-of-run tables); read.c and write.c.
 * Not a public header.
 */
#ifndef NFSCOPE_STORE_DB_H
#define NFSCOPE_STORE_DB_H

#include <pthread.h>
#include <stdatomic.h>
#include <sqlite3.h>
#include <stdint.h>
#include <string.h>

struct store_keys;		/* keys.h */
#include "store/store.h"

#define CELL_MAX 32768		/* open interval cells (then all are written) */
#define CELL_SLOTS 65536	/* their hash index (8 bytes a slot) */
#define FLOW_MAX 65536		/* flow directions tracked per run */
#define NAME_CACHE 65536	/* recently written (server, fh, path) */
#define HIST_BLOB_MAX (HIST_NCHUNK * HIST_SUB * 20)

/* One open cell of table intervals (key: start, procedure, client, server). */
struct cell {
	uint64_t hash;
	int64_t start_ns;
	uint32_t prog, vers, proc;
	struct cap_addr client, server;
	struct an_sums s;		/* an_cell_add (analyze/acc.h) */
	struct hist lat;
};

/* One flow direction of table flows. */
struct flow {
	bool used, dirty;
	uint64_t hash;
	uint8_t transport;
	struct cap_addr src, dst;
	uint16_t sport, dport;
	int64_t first_ns, last_ns;
	uint64_t msgs, calls, replies, bytes, truncated, ipfrag, multifrag;
	uint64_t after_gap, holes;
};

#define DROP_QUEUE 64	/* drop spans held until the next commit */

/*
 * The end of a batch, as store_commit saw it on the producer's side: the
 * interval cells closed, the run's counters, the capture time, the drop
 * spans, the flows touched and the exports learned since the last batch.
 * The writer thread writes it and commits, so the capture never waits for
 * a COMMIT.
 */
struct batch {
	bool commit;			/* false: only cells (the pool was full) */
	uint32_t ncells;
	struct cell *cells;		/* closed interval cells (owned, with
					   their histograms) */
	struct store_run run;
	int64_t now_ns;			/* close interval cells ended by then */
	int64_t max_call_ns;		/* for --retain */
	uint32_t ndrops;
	struct cap_drop_span drops[DROP_QUEUE];
	uint32_t nflows;
	struct flow *flows;		/* owned */
	int first_export, nexports;	/* export numbers first.. */
	struct an_export *exports;	/* owned */
};

#define QUEUE_SLOTS 4096	/* ops handed to the writer thread */
#define QUEUE_BATCH 512		/* it wakes up for this many (or a drain) */
#define QUEUE_STEP 256		/* and frees slots this many at a time */

/* One op on its way to the writer thread (which inserts it into ops and
 * its names; the reply handle's path is resolved by the producer, whose
 * names table the writer must not read). */
struct qop {
	struct batch *batch;		/* not NULL: a batch end, no op */
	struct an_op op;
	bool keep;			/* insert into ops */
	bool rfh_named;
	int32_t rfh_export;
	char rfh_path[AN_PATH_MAX];
};

#define OP_COLS 35		/* parameters of the INSERT INTO op_rows */

enum {	/* prepared statements */
	ST_BEGIN, ST_COMMIT, ST_INS_OP, ST_INS_CELL, ST_UPS_FLOW, ST_UPS_NAME,
	ST_INS_EXPORT, ST_INS_SIZE, ST_INS_SIZE_REP, ST_INS_FSINFO, ST_INS_FINDING,
	ST_RETAIN_OPS, ST_RETAIN_CELLS, ST_RETAIN_RUNS, ST_INS_DROP,
	ST_INS_HOST, ST_INS_PROC, ST_INS_BLOB, ST_INS_STRING,
	ST_INS_OPRUN, ST_INS_OPMORE,
	ST_N
};

struct store {
	sqlite3 *db;
	bool writable;
	char *path;			/* owned copy of store_open's path */
	double busy_since;		/* busy_wait: when the wait began */
	bool busy_said;			/* busy_wait: said so once */
	int sys_errno;			/* the system's errno at store_err */
	int version;			/* schema version of the file */
	sqlite3_stmt *st[ST_N];		/* owned; prepared lazily */
	sqlite3_stmt *upd_run;		/* UPDATE runs SET <counters> */
	/* the run being written */
	int64_t run;
	enum store_ops_mode mode;
	int64_t slow_ns, interval_ns, retain_ns;
	bool in_txn;
	uint64_t pending;
	struct store_counts counts;
	int64_t max_call_ns;		/* latest first call seen */
	/* open interval cells: a pool of CELL_MAX (ncells used) and an
	 * open-addressing index of pool numbers + 1 (0: empty) (both owned;
	 * the producer's: closed cells go to the writer in a batch) */
	struct cell *cell;
	uint32_t ncells;
	struct cslot {
		uint32_t id;		/* pool number + 1; 0: empty */
		uint32_t tag;		/* the cell's hash >> 32 */
	} *slot;
	uint64_t cells_dropped;
	/* flows (owned) */
	struct flow *flow;
	uint32_t nflows;
	uint64_t flows_dropped;
	uint32_t *flow_dirty;		/* indices of the dirty flows, in the
					   order they became dirty (owned) */
	uint32_t nflow_dirty;
	uint32_t flow_last;		/* index + 1 of the last flow found */
	uint32_t flow_prev;		/* and of the one before (a reply's
					   direction): both tried first */
	/* names written recently: hash of (server, fh, path) (owned) */
	uint64_t *name_seen;
	int nexports_written;
	/* drop spans not yet written (producer thread only) */
	struct cap_drop_span drop_q[DROP_QUEUE];
	uint32_t ndrop_q;
	uint8_t blob[HIST_BLOB_MAX];
	/* the ops table's keys and its run's time base (writer thread) */
	struct store_keys *keys;		/* owned; keys.h */
	int64_t op_base_ns;
	bool op_based;				/* op_runs has the run's base */
	bool ops_v4;				/* an older file's ops, renamed */
	uint64_t keys_gc;			/* batches retained (retain_keys) */
	int64_t op_val[OP_COLS + 1];		/* op_rows' bound integers (writer) */
	bool op_bound[OP_COLS + 1];
	/*
	 * The writer thread: store_put_op and store_commit fill queue slots
	 * (producer, which also keeps the interval cells); the thread binds
	 * and steps the INSERTs, and writes each batch end (closed cells,
	 * flows, exports, the run's counters, COMMIT, BEGIN) in its place in
	 * the queue, then calls hook.  Only store_run_begin and store_run_end use the connection on
	 * the producer's side, the first before the thread starts and the
	 * second after drain() has emptied the queue, so the connection and
	 * the cells are never used by both threads at once.
	 * stop/flush/batch_queued under mu; head and tail are written under
	 * mu too, but the producer takes a slot and hands it over without it
	 * (atomics, sequentially consistent): it locks mu only to wait for
	 * room, to wake a writer that waits (waiting, set under mu before
	 * the writer reads tail again) or for a batch end.
	 */
	store_commit_fn hook;
	void *hook_user;
	pthread_t thread;
	bool thread_up;
	pthread_mutex_t mu;
	pthread_cond_t more, space;
	struct qop *q;			/* QUEUE_SLOTS (owned) */
	_Atomic uint64_t head, tail;
	_Atomic bool waiting;
	bool stop, flush;
	bool batch_queued;		/* a batch end waits: no QUEUE_BATCH wait */
	_Atomic bool werr;		/* werrbuf set (under mu) before it */
	char werrbuf[STORE_ERRBUF_SIZE];
};

/* errbuf from the database's last error, prefixed with what failed. */
int store_err(struct store *s, char *errbuf, const char *what);
/* Prepared statement k (prepared on first use), or NULL (errbuf set). */
sqlite3_stmt *store_stmt(struct store *s, int k, char *errbuf);
int store_exec(struct store *s, const char *sql, char *errbuf);
/* Step a statement that returns no rows, then reset it. */
int store_run_stmt(struct store *s, sqlite3_stmt *q, char *errbuf,
		   const char *what);
void store_bind_text(sqlite3_stmt *q, int k, const char *t);
void store_bind_addr(sqlite3_stmt *q, int k, const struct cap_addr *a);
/* Word-at-a-time multiplicative hash (keys are short, fixed-layout);
 * inline: the store hashes a few fields of every message and op, and
 * with n known the compiler drops the loop. */
static inline uint64_t store_hash(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;
	uint64_t w;

	for (; n >= 8; n -= 8, b += 8) {
		memcpy(&w, b, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 29;
	}
	if (n) {
		w = 0;
		memcpy(&w, b, n);
		h = (h ^ w) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 29;
	}
	return h ^ (h >> 32);
}
/* Has table a column named col?  (A file of an older schema opened
 * read-only lacks the columns added since.) */
bool store_has_column(struct store *s, const char *table, const char *col);
/* An intervals row's histogram from the five columns at col (lat_count,
 * lat_sum_ns, lat_min_ns, lat_max_ns, lat_hist) into h (hist_init'ed,
 * empty): 0, or -1 for a bad blob. */
int store_col_hist(sqlite3_stmt *q, int col, struct hist *h);
/* The columns lat_p50_ns, lat_p90_ns, lat_p99_ns of h bound at k, k + 1,
 * k + 2: hist_percentile, as the report's figures; NULL when h is empty. */
void store_bind_pcts(sqlite3_stmt *q, int k, const struct hist *h);
/* What schema version 5 added to table intervals. */
#define STORE_PCT_COLS_SQL \
	"ALTER TABLE intervals ADD COLUMN lat_p50_ns INTEGER;\n" \
	"ALTER TABLE intervals ADD COLUMN lat_p90_ns INTEGER;\n" \
	"ALTER TABLE intervals ADD COLUMN lat_p99_ns INTEGER;\n"
const char *store_op_name(uint32_t prog, uint32_t vers, uint32_t proc,
			  char *buf, size_t n);
/* Roll back an open transaction, finalize, close and free s (no writer
 * thread may run: store_close stops it first); NULL: a no-op. */
void store_db_free(struct store *s);
/* sqlite3_open_v2 of path with oflags; immutable: as a file nothing
 * writes (URI immutable=1: no lock taken, no -shm or -wal made beside
 * it).  An sqlite result code; *db as sqlite3_open_v2 leaves it. */
int store_db_open(const char *path, int oflags, bool immutable, sqlite3 **db);
/* Does path's write-ahead log hold nothing (no -wal, or empty)?  And
 * with no -shm either: no writer can be at work (store_open then reads
 * a snapshot immutable). */
bool store_wal_empty(const char *path);
bool store_no_writer(const char *path);

/* The columns of table op_rows (version 5) in the order the writer binds
 * them (schema.c, write.c). */
#define STORE_OP_ROWS_COLUMNS "run, call_frame, reply_dframe, " \
	"first_call_dns, reply_dns, client, server, client_port, " \
	"server_port, tcp, xid, proc, error, flags, have, uid, gid, " \
	"machine, fh, rfh, " \
	"export_id, path, name, file_offset, count, rcount, eof, stable, " \
	"committed, verf, reply_stat, accept_stat, status, call_len, reply_len"

/* The columns of the view ops (of the table ops before version 5) in the
 * order the reader reads them back. */
#define STORE_OPS_COLUMNS "run, call_frame, reply_frame, " \
	"first_call_ns, last_call_ns, reply_ns, lat_first_ns, lat_last_ns, " \
	"retrans_ivl_first_ns, retrans_ivl_max_ns, retrans, dup_replies, " \
	"client, server, client_port, client_port_last, server_port, " \
	"transport, xid, prog, vers, proc, op, error, flags, have, uid, gid, " \
	"machine, fh, rfh, export_id, path, name, file_offset, count, " \
	"rcount, eof, stable, committed, verf, reply_stat, accept_stat, " \
	"status, call_len, reply_len, rtmax, rtpref, wtmax, wtpref, dtpref, " \
	"tsize"

#endif
