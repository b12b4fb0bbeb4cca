/* write.c - recording into a store: runs, ops, interval cells, names,
 * the insert thread, and at the end the run's tables (tables.c) and
 * handshakes; store_close; see store.h.  Calls db.c, schema.c and
 * tables.c, none of which calls it. */
#include "store/schema.h"
#include "store/tables.h"
#include "store/keys.h"
#include "base/table.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HOLD_NS 5000000000LL	/* cells stay open this long past their end
				   (answered ops are delivered <= 3 s late) */

/* The queue and its batch ends (below, with the commit). */
static struct qop *slot_get(struct store *s, char *errbuf);
static void slot_publish(struct store *s, bool now);
static struct batch *batch_cells(struct store *s);
static int batch_commit(struct store *s, const struct batch *b,
			char *errbuf);
static void batch_free(struct batch *b);
static int writer_start(struct store *s, char *errbuf);

static int begin(struct store *s, char *errbuf)
{
	sqlite3_stmt *q;

	if (s->in_txn)
		return 0;
	q = store_stmt(s, ST_BEGIN, errbuf);
	if (q == NULL || store_run_stmt(s, q, errbuf, "begin") < 0)
		return -1;
	s->in_txn = true;
	return 0;
}

static const char *mode_name(enum store_ops_mode m)
{
	return m == STORE_OPS_ALL ? "all" : m == STORE_OPS_SLOW ? "slow" : "none";
}

/* A new run's ops: no time base yet, the keys of an earlier run's rows
 * forgotten (--retain may delete them), an older file's ops_v4 noted;
 * --retain deletes by time: op_rows gets an index on it. */
static int ops_setup(struct store *s, char *errbuf)
{
	sqlite3_stmt *q = NULL;

	s->op_based = false;
	store_keys_reset(s->keys);
	s->ops_v4 = false;
	if (sqlite3_prepare_v2(s->db, "SELECT count(*) FROM sqlite_schema "
			       "WHERE name = 'ops_v4'", -1, &q, NULL) == SQLITE_OK &&
	    sqlite3_step(q) == SQLITE_ROW)
		s->ops_v4 = sqlite3_column_int(q, 0) > 0;
	sqlite3_finalize(q);
	if (s->retain_ns > 0)
		return store_exec(s, "CREATE INDEX IF NOT EXISTS op_rows_time "
				  "ON op_rows(run, first_call_dns)", errbuf);
	return 0;
}

int store_run_begin(struct store *s, struct store_run *run, char *errbuf)
{
	sqlite3_stmt *q = NULL;
	char sql[8192];
	size_t k, off;
	int rc;

	if (!s->writable) {
		snprintf(errbuf, STORE_ERRBUF_SIZE, "store opened read-only");
		return -1;
	}
	if (s->cell == NULL) {
		s->cell = calloc(CELL_MAX, sizeof(*s->cell));
		s->slot = calloc(CELL_SLOTS, sizeof(*s->slot));
		s->flow = calloc(FLOW_MAX, sizeof(*s->flow));
		s->flow_dirty = malloc(FLOW_MAX / 2 * sizeof(*s->flow_dirty));
		s->name_seen = calloc(NAME_CACHE, sizeof(*s->name_seen));
		if (!s->cell || !s->slot || !s->flow || !s->flow_dirty ||
		    !s->name_seen) {
			snprintf(errbuf, STORE_ERRBUF_SIZE, "out of memory");
			return -1;
		}
	}
	if (s->keys == NULL && (s->keys = store_keys_new()) == NULL) {
		snprintf(errbuf, STORE_ERRBUF_SIZE, "out of memory");
		return -1;
	}
	run->started = (int64_t)time(NULL);
	run->ended = 0;
	snprintf(run->state, sizeof(run->state), "recording");
	rc = sqlite3_prepare_v2(s->db, "INSERT INTO runs(source, filter, "
		"snaplen, live, ops_mode, slow_ns, interval_ns, retain_ns, "
		"started, state) VALUES(?,?,?,?,?,?,?,?,?,?)", -1, &q, NULL);
	if (rc != SQLITE_OK)
		return store_err(s, errbuf, "runs");
	store_bind_text(q, 1, run->source);
	store_bind_text(q, 2, run->filter);
	sqlite3_bind_int(q, 3, run->snaplen);
	sqlite3_bind_int(q, 4, run->live);
	store_bind_text(q, 5, mode_name(run->ops_mode));
	sqlite3_bind_int64(q, 6, run->slow_ns);
	sqlite3_bind_int64(q, 7, run->interval_ns);
	sqlite3_bind_int64(q, 8, run->retain_ns);
	sqlite3_bind_int64(q, 9, run->started);
	store_bind_text(q, 10, run->state);
	rc = sqlite3_step(q);
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE)
		return store_err(s, errbuf, "runs");
	run->id = sqlite3_last_insert_rowid(s->db);
	s->run = run->id;
	s->mode = run->ops_mode;
	s->slow_ns = run->slow_ns;
	s->interval_ns = run->interval_ns > 0 ? run->interval_ns : 10000000000LL;
	s->retain_ns = run->retain_ns;
	/* the counters' UPDATE, built from the column list */
	off = (size_t)snprintf(sql, sizeof(sql), "UPDATE runs SET ended = ?1, "
			       "state = ?2");
	for (k = 0; k < store_run_ncols; k++)
		off += (size_t)snprintf(sql + off, sizeof(sql) - off, ", %s = ?%zu",
					store_run_cols[k].name, k + 4);
	snprintf(sql + off, sizeof(sql) - off, ", read_error = ?%zu, "
		 "read_error_offset = ?%zu WHERE id = ?3", k + 4, k + 5);
	sqlite3_finalize(s->upd_run);
	s->upd_run = NULL;
	if (sqlite3_prepare_v2(s->db, sql, -1, &s->upd_run, NULL) != SQLITE_OK)
		return store_err(s, errbuf, "runs");
	if (ops_setup(s, errbuf) < 0 || begin(s, errbuf) < 0)
		return -1;
	return writer_start(s, errbuf);
}

/* ------------------------------------------------------------- cells -- */

static int write_cell(struct store *s, struct cell *c, char *errbuf)
{
	sqlite3_stmt *q = store_stmt(s, ST_INS_CELL, errbuf);
	char b[32];
	size_t n;

	if (q == NULL)
		return -1;
	sqlite3_bind_int64(q, 1, s->run);
	sqlite3_bind_int64(q, 2, c->start_ns);
	sqlite3_bind_int64(q, 3, c->prog);
	sqlite3_bind_int64(q, 4, c->vers);
	sqlite3_bind_int64(q, 5, c->proc);
	store_bind_text(q, 6, store_op_name(c->prog, c->vers, c->proc, b, sizeof(b)));
	store_bind_addr(q, 7, &c->client);
	store_bind_addr(q, 8, &c->server);
	sqlite3_bind_int64(q, 9, (int64_t)c->s.calls);
	sqlite3_bind_int64(q, 10, (int64_t)c->s.answered);
	sqlite3_bind_int64(q, 11, (int64_t)c->s.unanswered);
	sqlite3_bind_int64(q, 12, (int64_t)c->s.errors);
	sqlite3_bind_int64(q, 13, (int64_t)c->s.retrans);
	sqlite3_bind_int64(q, 14, (int64_t)c->s.dup_replies);
	sqlite3_bind_int64(q, 15, (int64_t)c->s.bytes);
	sqlite3_bind_int64(q, 16, (int64_t)c->s.data_bytes);
	sqlite3_bind_int64(q, 17, (int64_t)c->lat.count);
	sqlite3_bind_double(q, 18, c->lat.sum);
	if (c->lat.count) {
		sqlite3_bind_int64(q, 19, (int64_t)c->lat.min);
		sqlite3_bind_int64(q, 20, (int64_t)c->lat.max);
	} else {
		sqlite3_bind_null(q, 19);
		sqlite3_bind_null(q, 20);
	}
	n = store_hist_encode(&c->lat, s->blob, sizeof(s->blob));
	sqlite3_bind_blob(q, 21, s->blob, (int)n, SQLITE_STATIC);
	store_bind_pcts(q, 22, &c->lat);
	if (store_run_stmt(s, q, errbuf, "intervals") < 0)
		return -1;
	s->counts.intervals++;
	return 0;
}

/* Slot of the index for the cell of (start, procedure, client, server),
 * h its hash: holding it, or empty. */
static struct cslot *cell_slot(struct store *s, uint64_t h, int64_t start_ns,
				uint32_t prog, uint32_t vers, uint32_t proc,
				const struct cap_addr *client,
				const struct cap_addr *server)
{
	uint32_t i, tag = (uint32_t)(h >> 32);
	struct cslot *x = NULL;

	for (i = 0; i < CELL_SLOTS; i++) {
		const struct cell *c;

		x = &s->slot[(uint32_t)(h + i) & (CELL_SLOTS - 1)];
		if (x->id == 0)
			return x;
		if (x->tag != tag)	/* not even a look at the cell */
			continue;
		c = &s->cell[x->id - 1];
		if (c->hash == h && c->start_ns == start_ns &&
		    c->proc == proc && c->prog == prog && c->vers == vers &&
		    cap_addr_eq(&c->client, client) &&
		    cap_addr_eq(&c->server, server))
			return x;
	}
	return x;	/* not reached: at most CELL_MAX < CELL_SLOTS cells */
}

/* The hash of a cell's key: whole words (cap_addr is zero beyond the
 * address, capture.h), no byte loop. */
static uint64_t cell_hash(int64_t start_ns, uint32_t prog, uint32_t vers,
			  uint32_t proc, const struct cap_addr *client,
			  const struct cap_addr *server)
{
	const struct cap_addr *a[2] = { client, server };
	uint64_t h = 0x9e3779b97f4a7c15ull, w;
	int k;

	h = (h ^ (uint64_t)start_ns) * 0xff51afd7ed558ccdull;
	h ^= h >> 29;
	h = (h ^ ((uint64_t)prog << 32 | vers << 24 | proc)) *
	    0xc4ceb9fe1a85ec53ull;
	h ^= h >> 29;
	for (k = 0; k < 2; k++) {
		memcpy(&w, a[k]->a, 8);
		h = (h ^ w ^ a[k]->family) * 0xff51afd7ed558ccdull;
		h ^= h >> 29;
		memcpy(&w, a[k]->a + 8, 8);
		h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
		h ^= h >> 32;
	}
	return h;
}

/* Move the cells that ended HOLD_NS before now_ns (all for INT64_MAX)
 * into *out (n of them; their histograms go with them); the open ones
 * move down the pool and are indexed again.  Producer. */
static int take_cells(struct store *s, int64_t now_ns, struct cell **out,
		      uint32_t *nout)
{
	uint32_t k, n = 0, m = 0;

	*out = NULL;
	*nout = 0;
	for (k = 0; k < s->ncells; k++)
		m += now_ns == INT64_MAX ||
		     s->cell[k].start_ns + s->interval_ns + HOLD_NS <= now_ns;
	if (m == 0)
		return 0;
	if ((*out = malloc(m * sizeof(**out))) == NULL)
		return -1;
	for (k = 0; k < s->ncells; k++) {
		struct cell *c = &s->cell[k];

		if (now_ns == INT64_MAX ||
		    c->start_ns + s->interval_ns + HOLD_NS <= now_ns)
			(*out)[(*nout)++] = *c;
		else
			s->cell[n++] = *c;
	}
	s->ncells = n;
	memset(s->slot, 0, CELL_SLOTS * sizeof(*s->slot));
	for (k = 0; k < n; k++) {
		const struct cell *c = &s->cell[k];
		struct cslot *x = cell_slot(s, c->hash, c->start_ns, c->prog,
					    c->vers, c->proc, &c->client,
					    &c->server);

		x->id = k + 1;
		x->tag = (uint32_t)(c->hash >> 32);
	}
	return 0;
}

/* Write a batch's cells (writer). */
static int write_cells(struct store *s, const struct batch *b, char *errbuf)
{
	uint32_t k;

	for (k = 0; k < b->ncells; k++)
		if (write_cell(s, &b->cells[k], errbuf) < 0)
			return -1;
	return 0;
}

/* An op into its interval cell (producer: the cells are its own).  A full
 * pool goes to the writer as a batch of cells only (no commit). */
static int add_cell(struct store *s, const struct an_op *op, char *errbuf)
{
	struct cell *c;
	struct cslot *x;
	int64_t start = an_bucket_start(op->first_call_ns, s->interval_ns);
	uint64_t h = cell_hash(start, op->prog, op->vers, op->proc,
			       &op->client, &op->server);

	if (op->flags & AN_OP_CALL_NOT_SEEN)
		return 0;	/* a reply alone: no call, no latency */
	if (s->ncells >= CELL_MAX) {
		struct batch *b = batch_cells(s);
		struct qop *q;

		if (b == NULL) {
			snprintf(errbuf, STORE_ERRBUF_SIZE, "out of memory");
			return -1;
		}
		if ((q = slot_get(s, errbuf)) == NULL) {
			batch_free(b);
			return -1;
		}
		q->batch = b;
		slot_publish(s, false);
	}
	x = cell_slot(s, h, start, op->prog, op->vers, op->proc, &op->client,
		      &op->server);
	if (x->id == 0) {
		c = &s->cell[s->ncells++];
		memset(c, 0, sizeof(*c));
		c->hash = h;
		c->start_ns = start;
		c->prog = op->prog;
		c->vers = op->vers;
		c->proc = op->proc;
		c->client = op->client;
		c->server = op->server;
		x->id = s->ncells;
		x->tag = (uint32_t)(h >> 32);
	}
	an_cell_add(&s->cell[x->id - 1].s, &s->cell[x->id - 1].lat, op);
	return 0;
}

/* ------------------------------------------------------------- names -- */

static int put_name(struct store *s, const struct cap_addr *server,
		    const struct nfs_fh *fh, const char *path, int export_id,
		    char *errbuf)
{
	uint64_t h = 1469598103934665603ull;
	uint64_t *slot;
	sqlite3_stmt *q;

	h = store_hash(h, server, sizeof(*server));
	h = store_hash(h, fh->data, fh->len);
	h = store_hash(h, path, strlen(path));
	h |= 1;
	slot = &s->name_seen[h & (NAME_CACHE - 1)];
	if (*slot == h)
		return 0;
	q = store_stmt(s, ST_UPS_NAME, errbuf);
	if (q == NULL)
		return -1;
	sqlite3_bind_int64(q, 1, s->run);
	store_bind_addr(q, 2, server);
	sqlite3_bind_blob(q, 3, fh->data, (int)fh->len, SQLITE_STATIC);
	store_bind_text(q, 4, path);
	sqlite3_bind_int(q, 5, export_id);
	if (store_run_stmt(s, q, errbuf, "names") < 0)
		return -1;
	*slot = h;
	s->counts.names++;
	return 0;
}

/* --------------------------------------------------------------- ops -- */

static bool keep_op(const struct store *s, const struct an_op *op)
{
	if (s->mode == STORE_OPS_ALL)
		return true;
	if (s->mode == STORE_OPS_NONE)
		return false;
	if (op->flags & AN_OP_CALL_NOT_SEEN)
		return true;	/* their only record (sizes from replies) */
	return !(op->flags & AN_OP_ANSWERED) || op->lat_first_ns > s->slow_ns ||
	       op->retrans > 0 || an_op_is_error(op);
}

/*
 * ops' integer columns: sqlite keeps a statement's bindings across
 * sqlite3_reset, and most columns repeat from one op to the next (0s, the
 * run, ports, procedure), so a value equal to the one bound is not bound
 * again.  Writer thread only.
 */
static void bind_i64(struct store *s, sqlite3_stmt *q, int k, int64_t v)
{
	if (s->op_bound[k] && s->op_val[k] == v)
		return;
	sqlite3_bind_int64(q, k, v);
	s->op_val[k] = v;
	s->op_bound[k] = true;
}

static void bind_null(struct store *s, sqlite3_stmt *q, int k)
{
	sqlite3_bind_null(q, k);
	s->op_bound[k] = false;
}

/*
 * The key of a value in its lookup table (keys.h): cached, or a new row
 * inserted by statement st.  For KEY_MACHINE and KEY_PATH v is the row's
 * one value (a text); for the others the caller has bound the row's values
 * already.
 */
static int key_of(struct store *s, enum store_key_kind kind, int st,
		  const void *v, size_t len, int64_t *id, char *errbuf)
{
	sqlite3_stmt *q;

	if (store_keys_get(s->keys, kind, v, len, id))
		return 0;
	if ((q = store_stmt(s, st, errbuf)) == NULL)
		return -1;
	if (kind == KEY_PATH || kind == KEY_MACHINE)
		sqlite3_bind_text(q, 1, v, (int)len, SQLITE_STATIC);
	if (store_run_stmt(s, q, errbuf, "ops keys") < 0)
		return -1;
	*id = sqlite3_last_insert_rowid(s->db);
	store_keys_put(s->keys, kind, v, len, *id);
	return 0;
}

static int key_host(struct store *s, const struct cap_addr *a, int64_t *id,
		    char *errbuf)
{
	sqlite3_stmt *q;
	char t[64];

	if (store_keys_get(s->keys, KEY_HOST, a, sizeof(*a), id))
		return 0;
	if ((q = store_stmt(s, ST_INS_HOST, errbuf)) == NULL)
		return -1;
	store_bind_text(q, 1, cap_addr_str(a, t, sizeof(t)));
	return key_of(s, KEY_HOST, ST_INS_HOST, a, sizeof(*a), id, errbuf);
}

static int key_proc(struct store *s, const struct an_op *op, int64_t *id,
		    char *errbuf)
{
	uint32_t v[3] = { op->prog, op->vers, op->proc };
	sqlite3_stmt *q;
	char b[32];

	if (store_keys_get(s->keys, KEY_PROC, v, sizeof(v), id))
		return 0;
	if ((q = store_stmt(s, ST_INS_PROC, errbuf)) == NULL)
		return -1;
	sqlite3_bind_int64(q, 1, op->prog);
	sqlite3_bind_int64(q, 2, op->vers);
	sqlite3_bind_int64(q, 3, op->proc);
	store_bind_text(q, 4, store_op_name(op->prog, op->vers, op->proc, b,
					    sizeof(b)));
	return key_of(s, KEY_PROC, ST_INS_PROC, v, sizeof(v), id, errbuf);
}

/* A machine name's or path's key into column k, NULL for an empty one. */
static int bind_text_key(struct store *s, sqlite3_stmt *q, int k,
			 enum store_key_kind kind, const char *t, size_t max,
			 char *errbuf)
{
	size_t len = strnlen(t, max - 1);
	int64_t id;

	if (len == 0) {
		bind_null(s, q, k);
		return 0;
	}
	if (key_of(s, kind, ST_INS_STRING, t, len, &id, errbuf) < 0)
		return -1;
	bind_i64(s, q, k, id);
	return 0;
}

/*
 * A handle or write verifier into column k: NULL for none; the first time
 * it is seen its bytes (a blob, cached with key 0), from then on its key
 * into op_blobs (the row made the second time).
 */
static int bind_blob_key(struct store *s, sqlite3_stmt *q, int k,
			 const void *v, size_t len, char *errbuf)
{
	int64_t id;

	if (len == 0) {
		bind_null(s, q, k);
		return 0;
	}
	if (!store_keys_get(s->keys, KEY_BLOB, v, len, &id)) {
		store_keys_put(s->keys, KEY_BLOB, v, len, 0);
		sqlite3_bind_blob(q, k, v, (int)len, SQLITE_STATIC);
		s->op_bound[k] = false;
		return 0;
	}
	if (id == 0) {
		sqlite3_stmt *b = store_stmt(s, ST_INS_BLOB, errbuf);

		if (b == NULL)
			return -1;
		sqlite3_bind_blob(b, 1, v, (int)len, SQLITE_STATIC);
		if (store_run_stmt(s, b, errbuf, "ops keys") < 0)
			return -1;
		id = sqlite3_last_insert_rowid(s->db);
		store_keys_put(s->keys, KEY_BLOB, v, len, id);
	}
	bind_i64(s, q, k, id);
	return 0;
}

/* The run's time base: the first op's first call (op_runs). */
static int op_base(struct store *s, const struct an_op *op, char *errbuf)
{
	sqlite3_stmt *q;

	if (s->op_based)
		return 0;
	if ((q = store_stmt(s, ST_INS_OPRUN, errbuf)) == NULL)
		return -1;
	s->op_base_ns = op->first_call_ns;
	sqlite3_bind_int64(q, 1, s->run);
	sqlite3_bind_int64(q, 2, s->op_base_ns);
	if (store_run_stmt(s, q, errbuf, "ops") < 0)
		return -1;
	s->op_based = true;
	return 0;
}

/* What few ops have, into op_more (row id): retransmissions, duplicate
 * replies, a second client port, FSINFO/STATFS sizes. */
static bool has_more(const struct an_op *op)
{
	return op->last_call_ns != op->first_call_ns || op->retrans ||
	       op->dup_replies || op->retrans_ivl_first_ns ||
	       op->retrans_ivl_max_ns || op->client_port_last != op->client_port ||
	       op->rtmax || op->rtpref || op->wtmax || op->wtpref ||
	       op->dtpref || op->tsize;
}

static int insert_more(struct store *s, const struct an_op *op, int64_t id,
		       char *errbuf)
{
	sqlite3_stmt *q = store_stmt(s, ST_INS_OPMORE, errbuf);
	const int64_t v[] = { op->last_call_ns - op->first_call_ns,
		op->retrans_ivl_first_ns, op->retrans_ivl_max_ns, op->retrans,
		op->dup_replies, op->client_port_last, op->rtmax, op->rtpref,
		op->wtmax, op->wtpref, op->dtpref, op->tsize };
	size_t k;

	if (q == NULL)
		return -1;
	sqlite3_bind_int64(q, 1, id);
	for (k = 0; k < sizeof(v) / sizeof(v[0]); k++)
		sqlite3_bind_int64(q, (int)k + 2, v[k]);
	return store_run_stmt(s, q, errbuf, "ops");
}

/*
 * One row of op_rows, and of op_more if the op has what it holds (the
 * view ops turns them back into the old columns, schema.c).  Latencies are
 * not stored: the engine makes them from the times (analyze/ops.c), and
 * the view does the same.
 */
static int insert_op(struct store *s, const struct an_op *op, char *errbuf)
{
	sqlite3_stmt *q = store_stmt(s, ST_INS_OP, errbuf);
	bool ans = (op->flags & AN_OP_ANSWERED) &&
		   !(op->flags & AN_OP_CALL_NOT_SEEN);	/* no latency */
	int64_t client, server, proc, drep;
	int k = 1;

	if (q == NULL || op_base(s, op, errbuf) < 0 ||
	    key_host(s, &op->client, &client, errbuf) < 0 ||
	    key_host(s, &op->server, &server, errbuf) < 0 ||
	    key_proc(s, op, &proc, errbuf) < 0)
		return -1;
	drep = op->reply_ns - op->first_call_ns;
	bind_i64(s, q, k++, s->run);
	bind_i64(s, q, k++, (int64_t)op->call_frame);
	if (op->reply_frame)
		bind_i64(s, q, k++, (int64_t)(op->reply_frame - op->call_frame));
	else
		bind_null(s, q, k++);
	bind_i64(s, q, k++, op->first_call_ns - s->op_base_ns);
	if (ans) {
		int64_t dl = drep - (op->last_call_ns - op->first_call_ns);

		assert(op->lat_first_ns == (drep > 0 ? drep : 0));
		assert(op->lat_last_ns == (dl > 0 ? dl : 0));
		bind_i64(s, q, k++, drep);
	} else {
		bind_null(s, q, k++);
	}
	bind_i64(s, q, k++, client);
	bind_i64(s, q, k++, server);
	bind_i64(s, q, k++, op->client_port);
	bind_i64(s, q, k++, op->server_port);
	bind_i64(s, q, k++, op->transport == CAP_TCP);
	bind_i64(s, q, k++, (int32_t)op->xid);	/* 4 bytes, not 6 */
	bind_i64(s, q, k++, proc);
	bind_i64(s, q, k++, an_op_is_error(op));
	bind_i64(s, q, k++, op->flags);
	bind_i64(s, q, k++, op->have);
	bind_i64(s, q, k++, op->uid);
	bind_i64(s, q, k++, op->gid);
	if (bind_text_key(s, q, k++, KEY_MACHINE, op->machine, AN_MACHINE_MAX,
			  errbuf) < 0 ||
	    bind_blob_key(s, q, k++, op->fh.data, op->fh.len, errbuf) < 0 ||
	    bind_blob_key(s, q, k++, op->rfh.data, op->rfh.len, errbuf) < 0)
		return -1;
	bind_i64(s, q, k++, op->export_id);
	if (bind_text_key(s, q, k++, KEY_PATH, op->path, AN_PATH_MAX,
			  errbuf) < 0)
		return -1;
	if (op->name[0])
		sqlite3_bind_text(q, k++, op->name, -1, SQLITE_STATIC);
	else
		bind_null(s, q, k++);
	bind_i64(s, q, k++, (int64_t)op->offset);
	bind_i64(s, q, k++, op->count);
	bind_i64(s, q, k++, op->rcount);
	bind_i64(s, q, k++, op->eof);
	bind_i64(s, q, k++, op->stable);
	bind_i64(s, q, k++, op->committed);
	if (bind_blob_key(s, q, k++, op->verf, (op->have & AN_HAVE_VERF) ?
			  NFS_VERF_SIZE : 0, errbuf) < 0)
		return -1;
	bind_i64(s, q, k++, op->reply_stat);
	bind_i64(s, q, k++, op->accept_stat);
	bind_i64(s, q, k++, op->status);
	bind_i64(s, q, k++, op->call_len);
	bind_i64(s, q, k++, op->reply_len);
	assert(k == OP_COLS + 1);
	if (store_run_stmt(s, q, errbuf, "ops") < 0)
		return -1;
	if (has_more(op) &&
	    insert_more(s, op, sqlite3_last_insert_rowid(s->db), errbuf) < 0)
		return -1;
	s->counts.ops++;
	return 0;
}

/* The writer has work (under mu): a full step, a stop, or a flush or a
 * batch end with anything queued. */
static bool writer_ready(struct store *s)
{
	uint64_t h = s->head, t = s->tail;

	return t - h >= QUEUE_BATCH || s->stop ||
	       ((s->flush || s->batch_queued) && h != t);
}

/* The writer thread: insert queued ops (and their names), commit queued
 * batch ends. */
static void *writer(void *arg)
{
	struct store *s = arg;
	char err[STORE_ERRBUF_SIZE];
	struct timespec t0, t1;
	uint64_t h, t, k;

	pthread_mutex_lock(&s->mu);
	for (;;) {
		while (!writer_ready(s)) {
			/* the producer reads waiting after it moves tail:
			   it wakes us, or we see its slot */
			s->waiting = true;
			if (writer_ready(s)) {
				s->waiting = false;
				break;
			}
			pthread_cond_wait(&s->more, &s->mu);
			s->waiting = false;
		}
		if (s->head == s->tail) {
			if (s->stop)
				break;
			continue;
		}
		h = s->head;
		t = s->tail;
		if (t - h > QUEUE_STEP)	/* give room back as it goes */
			t = h + QUEUE_STEP;
		s->batch_queued = t != s->tail;
		pthread_mutex_unlock(&s->mu);
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
		for (k = h; k < t && !s->werr; k++) {
			struct qop *x = &s->q[k % QUEUE_SLOTS];
			const struct an_op *op = &x->op;
			int rc = 0;

			if (x->batch && !x->batch->commit) {
				rc = write_cells(s, x->batch, err);
				batch_free(x->batch);
				x->batch = NULL;
				goto next;
			}
			if (x->batch) {
				rc = batch_commit(s, x->batch, err);
				if (rc == 0 && s->hook)
					s->hook(s->hook_user, &s->counts,
						&x->batch->run);
				batch_free(x->batch);
				x->batch = NULL;
				goto next;
			}
			if (x->keep)
				rc = insert_op(s, op, err);
			if (rc == 0 && (op->have & AN_HAVE_PATH) && op->fh.len)
				rc = put_name(s, &op->server, &op->fh, op->path,
					      op->export_id, err);
			if (rc == 0 && x->rfh_named)
				rc = put_name(s, &op->server, &op->rfh,
					      x->rfh_path, x->rfh_export, err);
next:
			if (rc < 0) {
				pthread_mutex_lock(&s->mu);
				s->werr = true;
				memcpy(s->werrbuf, err, sizeof(err));
				pthread_mutex_unlock(&s->mu);
			}
		}
		for (; k < t; k++) {	/* skipped after an error */
			struct qop *x = &s->q[k % QUEUE_SLOTS];

			batch_free(x->batch);
			x->batch = NULL;
		}
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
		pthread_mutex_lock(&s->mu);
		s->counts.writer_ns += (uint64_t)((t1.tv_sec - t0.tv_sec) *
			(long long)NSEC_PER_SEC + (t1.tv_nsec - t0.tv_nsec));
		s->head = t;
		pthread_cond_signal(&s->space);
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

static int writer_start(struct store *s, char *errbuf)
{
	if (s->thread_up)
		return 0;
	s->q = base_table_calloc(QUEUE_SLOTS, sizeof(*s->q));
	if (s->q == NULL || pthread_mutex_init(&s->mu, NULL) != 0) {
		free(s->q);
		s->q = NULL;
		snprintf(errbuf, STORE_ERRBUF_SIZE, "out of memory");
		return -1;
	}
	pthread_cond_init(&s->more, NULL);
	pthread_cond_init(&s->space, NULL);
	if (pthread_create(&s->thread, NULL, writer, s) != 0) {
		pthread_cond_destroy(&s->more);
		pthread_cond_destroy(&s->space);
		pthread_mutex_destroy(&s->mu);
		free(s->q);
		s->q = NULL;
		snprintf(errbuf, STORE_ERRBUF_SIZE, "cannot start the writer "
			 "thread");
		return -1;
	}
	s->thread_up = true;
	return 0;
}

static void writer_stop(struct store *s)
{
	if (!s->thread_up)
		return;
	pthread_mutex_lock(&s->mu);
	s->stop = true;
	pthread_cond_signal(&s->more);
	pthread_mutex_unlock(&s->mu);
	pthread_join(s->thread, NULL);
	pthread_cond_destroy(&s->more);
	pthread_cond_destroy(&s->space);
	pthread_mutex_destroy(&s->mu);
	free(s->q);
	s->q = NULL;
	s->thread_up = false;
	store_keys_free(s->keys);
	s->keys = NULL;
}

/* The writer thread stopped (what it had queued inserted), then the
 * connection closed; a store opened read-only has no thread. */
void store_close(struct store *s)
{
	if (s == NULL)
		return;
	writer_stop(s);
	store_db_free(s);
}

/* Wait until the writer has inserted everything queued; its error, if
 * any, into errbuf. */
static int drain(struct store *s, char *errbuf)
{
	bool bad;

	if (!s->thread_up)
		return 0;
	pthread_mutex_lock(&s->mu);
	s->flush = true;
	pthread_cond_signal(&s->more);
	while (s->head != s->tail && !s->werr)
		pthread_cond_wait(&s->space, &s->mu);
	while (s->head != s->tail)	/* it skips the rest after an error */
		pthread_cond_wait(&s->space, &s->mu);
	s->flush = false;
	bad = s->werr;
	if (bad)
		memcpy(errbuf, s->werrbuf, STORE_ERRBUF_SIZE);
	pthread_mutex_unlock(&s->mu);
	return bad ? -1 : 0;
}

/* The next free queue slot (waiting for room), or NULL after a writer
 * error (in errbuf).  The producer's until slot_publish. */
static struct qop *slot_get(struct store *s, char *errbuf)
{
	uint64_t t = atomic_load_explicit(&s->tail, memory_order_relaxed);

	if (t - s->head < QUEUE_SLOTS && !s->werr)
		return &s->q[t % QUEUE_SLOTS];
	pthread_mutex_lock(&s->mu);
	while (s->tail - s->head >= QUEUE_SLOTS && !s->werr)
		pthread_cond_wait(&s->space, &s->mu);
	if (s->werr) {
		memcpy(errbuf, s->werrbuf, STORE_ERRBUF_SIZE);
		pthread_mutex_unlock(&s->mu);
		return NULL;
	}
	pthread_mutex_unlock(&s->mu);
	return &s->q[t % QUEUE_SLOTS];
}

/* Hand the slot over; now: wake the writer even for a short queue (a
 * batch end, under mu).  Else without mu: tail moves, then a writer that
 * waits is woken once a step is queued. */
static void slot_publish(struct store *s, bool now)
{
	uint64_t t;

	if (now) {
		pthread_mutex_lock(&s->mu);
		s->tail++;
		s->batch_queued = true;
		if (s->waiting)
			pthread_cond_signal(&s->more);
		pthread_mutex_unlock(&s->mu);
		return;
	}
	t = atomic_fetch_add(&s->tail, 1) + 1;
	if (s->waiting && t - s->head >= QUEUE_BATCH) {
		pthread_mutex_lock(&s->mu);
		pthread_cond_signal(&s->more);
		pthread_mutex_unlock(&s->mu);
	}
}

int store_put_op(struct store *s, const struct an_op *op,
		 const struct an_names *names, char *errbuf)
{
	struct qop *x;
	bool keep = keep_op(s, op), rfh_named = false;
	const char *p = NULL;
	int e = -1;

	if (!s->thread_up) {
		snprintf(errbuf, STORE_ERRBUF_SIZE, "no run begun");
		return -1;
	}
	if (op->first_call_ns > s->max_call_ns)
		s->max_call_ns = op->first_call_ns;
	if (names && (op->have & AN_HAVE_RFH) && op->rfh.len &&
	    an_names_get(names, &op->server, &op->rfh, &p, &e) && p[0])
		rfh_named = true;
	if (add_cell(s, op, errbuf) < 0 || (x = slot_get(s, errbuf)) == NULL)
		return -1;
	x->batch = NULL;
	an_op_copy(&x->op, op);
	x->keep = keep;
	x->rfh_named = rfh_named;
	if (rfh_named) {
		x->rfh_export = e;
		snprintf(x->rfh_path, sizeof(x->rfh_path), "%s", p);
	}
	s->pending += keep;
	slot_publish(s, false);
	return 0;
}

uint64_t store_pending(const struct store *s)
{
	return s->pending;
}

const struct store_counts *store_get_counts(const struct store *s)
{
	return &s->counts;
}

/* ------------------------------------------------------------ commit -- */

static int write_run(struct store *s, const struct store_run *run,
		     char *errbuf)
{
	sqlite3_stmt *q = s->upd_run;
	struct store_run r = *run;
	size_t k;

	r.ops_stored = s->counts.ops;
	run = &r;

	sqlite3_bind_int64(q, 1, run->ended);
	store_bind_text(q, 2, run->state);
	sqlite3_bind_int64(q, 3, s->run);
	for (k = 0; k < store_run_ncols; k++) {
		const char *p = (const char *)run + store_run_cols[k].off;
		int64_t v;

		if (store_run_cols[k].u32) {
			uint32_t u;

			memcpy(&u, p, sizeof(u));
			v = u;
		} else {
			memcpy(&v, p, sizeof(v));
		}
		sqlite3_bind_int64(q, (int)k + 4, v);
	}
	if (run->read_error[0]) {
		store_bind_text(q, (int)k + 4, run->read_error);
		if (run->read_error_offset >= 0)
			sqlite3_bind_int64(q, (int)k + 5, run->read_error_offset);
		else
			sqlite3_bind_null(q, (int)k + 5);
	} else {
		sqlite3_bind_null(q, (int)k + 4);
		sqlite3_bind_null(q, (int)k + 5);
	}
	return store_run_stmt(s, q, errbuf, "runs");
}

static int retain(struct store *s, int64_t max_call_ns, char *errbuf)
{
	int64_t cut = max_call_ns - s->retain_ns;
	static const char *const tabs[] = { "op_rows", "op_runs", "ops_v4",
		"intervals", "sizes", "sizes_from_replies", "fsinfo", "findings",
		"names", "exports", "flows", "drops" };
	int k, i;
	char sql[256];

	for (k = ST_RETAIN_OPS; k <= ST_RETAIN_CELLS; k++) {
		sqlite3_stmt *q = store_stmt(s, k, errbuf);

		if (q == NULL)
			return -1;
		sqlite3_bind_int64(q, 1, s->run);
		/* op_rows' times are offsets from the run's base */
		sqlite3_bind_int64(q, 2, k == ST_RETAIN_OPS ?
				   cut - s->op_base_ns : cut);
		if (store_run_stmt(s, q, errbuf, "retain") < 0)
			return -1;
	}
	for (i = 0; i < (int)(sizeof(tabs) / sizeof(tabs[0])); i++) {
		if (i == 2 && !s->ops_v4)
			continue;
		snprintf(sql, sizeof(sql), "DELETE FROM %s WHERE run IN (SELECT "
			 "id FROM runs WHERE id <> %" PRId64 " AND last_ns < %"
			 PRId64 ")", tabs[i], s->run, cut);
		if (store_exec(s, sql, errbuf) < 0)
			return -1;
	}
	{
		sqlite3_stmt *q = store_stmt(s, ST_RETAIN_RUNS, errbuf);

		if (q == NULL)
			return -1;
		sqlite3_bind_int64(q, 1, s->run);
		sqlite3_bind_int64(q, 2, cut);
		return store_run_stmt(s, q, errbuf, "retain");
	}
}

#define KEYS_GC_EVERY 64	/* batches with --retain */

/*
 * --retain: the lookup rows no op_rows row names any more, deleted every
 * KEYS_GC_EVERY batches (each pass reads op_rows whole), and the writer's
 * cache of keys forgotten with them.
 */
static int retain_keys(struct store *s, char *errbuf)
{
	if (++s->keys_gc % KEYS_GC_EVERY)
		return 0;
	store_keys_reset(s->keys);
	return store_exec(s, "DELETE FROM op_more WHERE id NOT IN (SELECT id "
		"FROM op_rows);"
		"DELETE FROM op_hosts WHERE id NOT IN (SELECT client FROM op_rows "
		"WHERE run <> 0 UNION SELECT server FROM op_rows WHERE run <> 0);"
		"DELETE FROM op_procs WHERE id NOT IN (SELECT proc FROM op_rows "
		"WHERE run <> 0);"
		"DELETE FROM op_blobs WHERE id NOT IN (SELECT fh FROM op_rows "
		"WHERE typeof(fh) = 'integer' UNION SELECT rfh FROM op_rows "
		"WHERE typeof(rfh) = 'integer' UNION SELECT verf FROM op_rows "
		"WHERE typeof(verf) = 'integer');"
		"DELETE FROM op_strings WHERE id NOT IN (SELECT machine FROM "
		"op_rows WHERE machine IS NOT NULL UNION SELECT path FROM op_rows "
		"WHERE path IS NOT NULL);", errbuf);
}

void store_put_drop(struct store *s, const struct cap_drop_span *sp)
{
	cap_drop_spans_add(s->drop_q, &s->ndrop_q, DROP_QUEUE, sp);
}

static int write_drops(struct store *s, const struct batch *b,
		       char *errbuf)
{
	sqlite3_stmt *q;
	uint32_t k;

	if (b->ndrops == 0)
		return 0;
	q = store_stmt(s, ST_INS_DROP, errbuf);
	if (q == NULL)
		return -1;
	for (k = 0; k < b->ndrops; k++) {
		sqlite3_bind_int64(q, 1, s->run);
		sqlite3_bind_int64(q, 2, b->drops[k].start_ns);
		sqlite3_bind_int64(q, 3, b->drops[k].end_ns);
		sqlite3_bind_int64(q, 4, (int64_t)b->drops[k].drop);
		sqlite3_bind_int64(q, 5, (int64_t)b->drops[k].ifdrop);
		if (store_run_stmt(s, q, errbuf, "drops") < 0)
			return -1;
	}
	return 0;
}

static void batch_free(struct batch *b)
{
	uint32_t k;

	if (b == NULL)
		return;
	for (k = 0; k < b->ncells; k++)
		hist_fini(&b->cells[k].lat);
	free(b->cells);
	free(b->flows);
	free(b->exports);
	free(b);
}

/* The batch end as the producer's side stands now: what is copied (drop
 * spans, flows touched, new exports) is taken, so the next batch starts
 * empty.  NULL: out of memory. */
static struct batch *batch_new(struct store *s, const struct store_run *run,
			       const struct an_names *names, int64_t now_ns)
{
	struct batch *b = calloc(1, sizeof(*b));

	if (b == NULL)
		return NULL;
	b->commit = true;
	b->run = *run;
	b->now_ns = now_ns;
	b->max_call_ns = s->max_call_ns;
	if (take_cells(s, now_ns, &b->cells, &b->ncells) < 0 ||
	    store_take_exports(s, names, b) < 0 ||
	    store_take_flows(s, b) < 0) {
		batch_free(b);
		return NULL;
	}
	b->ndrops = s->ndrop_q;
	memcpy(b->drops, s->drop_q, s->ndrop_q * sizeof(s->drop_q[0]));
	s->ndrop_q = 0;
	return b;
}

/* Every open cell, for the writer: the pool is full. */
static struct batch *batch_cells(struct store *s)
{
	struct batch *b = calloc(1, sizeof(*b));

	if (b && take_cells(s, INT64_MAX, &b->cells, &b->ncells) < 0) {
		free(b);
		return NULL;
	}
	return b;
}

/* Write a batch end into the open transaction (writer thread, or the
 * producer once the queue is drained). */
static int batch_write(struct store *s, const struct batch *b, char *errbuf)
{
	if (begin(s, errbuf) < 0 || write_cells(s, b, errbuf) < 0 ||
	    write_drops(s, b, errbuf) < 0 || store_write_flows(s, b, errbuf) < 0 ||
	    store_write_exports(s, b, errbuf) < 0)
		return -1;
	if (s->retain_ns > 0 && b->max_call_ns > s->retain_ns &&
	    (retain(s, b->max_call_ns, errbuf) < 0 ||
	     retain_keys(s, errbuf) < 0))
		return -1;
	return write_run(s, &b->run, errbuf);
}

static int commit(struct store *s, char *errbuf)
{
	sqlite3_stmt *q = store_stmt(s, ST_COMMIT, errbuf);

	if (q == NULL || store_run_stmt(s, q, errbuf, "commit") < 0)
		return -1;
	s->in_txn = false;
	s->counts.batches++;
	return 0;
}

/* Writer thread: a queued batch end, committed; the next batch begun. */
static int batch_commit(struct store *s, const struct batch *b, char *errbuf)
{
	if (batch_write(s, b, errbuf) < 0 || commit(s, errbuf) < 0)
		return -1;
	return begin(s, errbuf);
}

int store_commit(struct store *s, const struct store_run *run,
		 const struct an_names *names, int64_t now_ns, char *errbuf)
{
	struct batch *b;
	struct qop *x;

	if (!s->thread_up) {
		snprintf(errbuf, STORE_ERRBUF_SIZE, "no run begun");
		return -1;
	}
	if ((x = slot_get(s, errbuf)) == NULL)
		return -1;
	if ((b = batch_new(s, run, names, now_ns)) == NULL) {
		snprintf(errbuf, STORE_ERRBUF_SIZE, "out of memory");
		return -1;
	}
	x->batch = b;
	s->pending = 0;
	slot_publish(s, true);
	return 0;
}

void store_set_commit_hook(struct store *s, store_commit_fn fn, void *user)
{
	s->hook = fn;
	s->hook_user = user;
}

/* -------------------------------------------------------------- end -- */

void store_run_fail(struct store *s)
{
	char sql[160];

	if (s == NULL || s->run == 0)
		return;
	writer_stop(s);
	if (s->in_txn)
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	s->in_txn = false;
	snprintf(sql, sizeof(sql), "UPDATE runs SET state = 'failed', ended = "
		 "%lld WHERE id = %lld AND state = 'recording'",
		 (long long)time(NULL), (long long)s->run);
	(void)sqlite3_exec(s->db, sql, NULL, NULL, NULL);
}

/* The pairs' TCP health (table tcp_health, made here). */
static int write_tcp_health(struct store *s, const struct cap_handshake *hs,
			    size_t n, char *errbuf)
{
	sqlite3_stmt *q;
	char a[64], b[64];
	size_t k;
	int rc = SQLITE_DONE, d, c;

	if (store_exec(s, store_tcp_health_sql, errbuf) < 0)
		return -1;
	if (sqlite3_prepare_v2(s->db, "INSERT INTO tcp_health VALUES(?,?,?,?,"
			       "?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &q,
			       NULL) != SQLITE_OK)
		return store_err(s, errbuf, "tcp_health");
	for (k = 0; k < n && rc == SQLITE_DONE; k++) {
		const struct cap_handshake *h = &hs[k];

		if (!h->segs[0] && !h->segs[1] && !h->rsts[0] && !h->rsts[1] &&
		    !h->dupack_loss[0] && !h->dupack_loss[1])
			continue;
		sqlite3_reset(q);
		sqlite3_bind_int64(q, 1, s->run);
		sqlite3_bind_text(q, 2, cap_addr_str(&h->client, a, sizeof(a)),
				  -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(q, 3, cap_addr_str(&h->server, b, sizeof(b)),
				  -1, SQLITE_TRANSIENT);
		for (d = 0, c = 4; d < 2; d++, c += 1) {
			sqlite3_bind_int64(q, c, (int64_t)h->segs[d]);
			sqlite3_bind_int64(q, c + 2, (int64_t)h->resent[d]);
			sqlite3_bind_int64(q, c + 4, (int64_t)h->dupack_loss[d]);
			sqlite3_bind_int64(q, c + 6, (int64_t)h->zero_win[d]);
			sqlite3_bind_int64(q, c + 8, (int64_t)h->rsts[d]);
			sqlite3_bind_int64(q, c + 10, (int64_t)h->stalls40[d]);
			sqlite3_bind_int64(q, c + 12, (int64_t)h->stalls200[d]);
			sqlite3_bind_int64(q, c + 14, h->stall_ns[d]);
		}
		rc = sqlite3_step(q);
	}
	sqlite3_finalize(q);
	return rc == SQLITE_DONE ? 0 : store_err(s, errbuf, "tcp_health");
}

/* The run's TCP handshakes per pair (table handshakes, made here if the
 * file predates it). */
static int write_handshakes(struct store *s, const struct an_find *find,
			    char *errbuf)
{
	struct cap_handshake *hs = calloc(AN_FIND_PAIRS, sizeof(*hs));
	size_t n, k;
	sqlite3_stmt *q;
	char a[64], b[64];
	int rc = SQLITE_DONE;

	if (hs == NULL) {
		snprintf(errbuf, STORE_ERRBUF_SIZE, "out of memory");
		return -1;
	}
	n = an_find_handshake_list(find, hs, AN_FIND_PAIRS);
	if (n == 0) {
		free(hs);
		return 0;
	}
	if (store_exec(s, store_handshakes_sql, errbuf) < 0) {
		free(hs);
		return -1;
	}
	if (sqlite3_prepare_v2(s->db, "SELECT srv_acks FROM handshakes "
			       "LIMIT 0", -1, &q, NULL) == SQLITE_OK)
		sqlite3_finalize(q);
	else if (store_exec(s, store_ack_cols_sql, errbuf) < 0) {
		free(hs);
		return -1;
	}
	if (sqlite3_prepare_v2(s->db, "INSERT INTO handshakes(run, client, "
			       "server, n, syn_min_ns, syn_sum_ns, ack_min_ns, "
			       "ack_sum_ns, srv_acks, srv_ack_min_ns, cli_acks, "
			       "cli_ack_min_ns) VALUES(?,?,?,?,?,?,?,?,?,?,?,?)",
			       -1, &q, NULL) != SQLITE_OK) {
		free(hs);
		return store_err(s, errbuf, "handshakes");
	}
	for (k = 0; k < n && rc == SQLITE_DONE; k++) {
		if (hs[k].n == 0 && hs[k].srv_n == 0 && hs[k].cli_n == 0)
			continue;	/* TCP health only: tcp_health */
		sqlite3_reset(q);
		sqlite3_bind_int64(q, 1, s->run);
		sqlite3_bind_text(q, 2, cap_addr_str(&hs[k].client, a, sizeof(a)),
				  -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(q, 3, cap_addr_str(&hs[k].server, b, sizeof(b)),
				  -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(q, 4, hs[k].n);
		sqlite3_bind_int64(q, 5, hs[k].syn_min_ns);
		sqlite3_bind_int64(q, 6, hs[k].syn_sum_ns);
		sqlite3_bind_int64(q, 7, hs[k].ack_min_ns);
		sqlite3_bind_int64(q, 8, hs[k].ack_sum_ns);
		sqlite3_bind_int64(q, 9, hs[k].srv_n);
		sqlite3_bind_int64(q, 10, hs[k].srv_min_ns);
		sqlite3_bind_int64(q, 11, hs[k].cli_n);
		sqlite3_bind_int64(q, 12, hs[k].cli_min_ns);
		rc = sqlite3_step(q);
	}
	sqlite3_finalize(q);
	if (rc == SQLITE_DONE && write_tcp_health(s, hs, n, errbuf) < 0) {
		free(hs);
		return -1;
	}
	free(hs);
	return rc == SQLITE_DONE ? 0 : store_err(s, errbuf, "handshakes");
}

int store_run_end(struct store *s, struct store_run *run,
		  const struct an_names *names, const struct an_figs *figs,
		  const struct an_find *find, char *errbuf)
{
	struct batch *b;
	int rc;

	run->ended = (int64_t)time(NULL);
	if (drain(s, errbuf) < 0)
		return -1;
	if ((b = batch_new(s, run, names, INT64_MAX)) == NULL) {
		snprintf(errbuf, STORE_ERRBUF_SIZE, "out of memory");
		return -1;
	}
	rc = batch_write(s, b, errbuf);
	batch_free(b);
	if (rc < 0)
		return -1;
	if (figs && store_write_figs(s, figs, errbuf) < 0)
		return -1;
	if (find && store_write_findings(s, find, errbuf) < 0)
		return -1;
	if (find && write_handshakes(s, find, errbuf) < 0)
		return -1;
	if (commit(s, errbuf) < 0)
		return -1;
	return store_exec(s, "PRAGMA wal_checkpoint(TRUNCATE)", errbuf);
}
