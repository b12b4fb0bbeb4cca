/* db.c - the bottom of store/: the connection's errors, its prepared
 * statements and binding, the histogram blob, freeing a store; see db.h.
 * Calls nothing else in store/. */
#include "store/db.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const stmt_sql[ST_N] = {
	[ST_BEGIN] = "BEGIN",
	[ST_COMMIT] = "COMMIT",
	[ST_INS_OP] = "INSERT INTO op_rows(" STORE_OP_ROWS_COLUMNS ")"
		" VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
		"?,?,?,?,?,?,?,?,?)",
	[ST_INS_HOST] = "INSERT INTO op_hosts(addr) VALUES(?)",
	[ST_INS_PROC] = "INSERT INTO op_procs(prog, vers, proc, op) "
		"VALUES(?,?,?,?)",
	[ST_INS_BLOB] = "INSERT INTO op_blobs(data) VALUES(?)",
	[ST_INS_STRING] = "INSERT INTO op_strings(text) VALUES(?)",
	[ST_INS_OPMORE] = "INSERT INTO op_more(id, last_call_dns, "
		"retrans_ivl_first_ns, retrans_ivl_max_ns, retrans, dup_replies, "
		"client_port_last, rtmax, rtpref, wtmax, wtpref, dtpref, tsize) "
		"VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)",
	[ST_INS_OPRUN] = "INSERT OR IGNORE INTO op_runs(run, base_ns) "
		"VALUES(?,?)",
	[ST_INS_CELL] = "INSERT INTO intervals(run, start_ns, prog, vers, proc, "
		"op, client, server, calls, answered, unanswered, errors, retrans, "
		"dup_replies, bytes, data_bytes, lat_count, lat_sum_ns, lat_min_ns, "
		"lat_max_ns, lat_hist, lat_p50_ns, lat_p90_ns, lat_p99_ns) "
		"VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	[ST_UPS_FLOW] = "INSERT OR REPLACE INTO flows(run, transport, src, "
		"sport, dst, dport, first_ns, last_ns, msgs, calls, replies, bytes, "
		"truncated, ipfrag, multifrag, after_gap, holes) "
		"VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	[ST_UPS_NAME] = "INSERT OR REPLACE INTO names(run, server, fh, path, "
		"export_id) VALUES(?,?,?,?,?)",
	[ST_INS_EXPORT] = "INSERT OR REPLACE INTO exports(run, export_id, "
		"server, fh, path) VALUES(?,?,?,?,?)",
	[ST_INS_SIZE] = "INSERT INTO sizes(run, client, server, op, size, "
		"calls) VALUES(?,?,?,?,?,?)",
	[ST_INS_SIZE_REP] = "INSERT INTO sizes_from_replies(run, client, "
		"server, op, size, ops) VALUES(?,?,?,?,?,?)",
	[ST_INS_FSINFO] = "INSERT INTO fsinfo(run, server, rtmax, rtpref, "
		"wtmax, wtpref, dtpref, statfs_tsize, write_verifier, "
		"verifier_changes) VALUES(?,?,?,?,?,?,?,?,?,?)",
	[ST_INS_FINDING] = "INSERT INTO findings(run, kind, start_ns, end_ns, "
		"client, server, fh, path, count, peak_rate, evidence, meaning) "
		"VALUES(?,?,?,?,?,?,?,?,?,?,?,?)",
	[ST_RETAIN_OPS] = "DELETE FROM op_rows WHERE run = ?1 AND "
		"first_call_dns < ?2",
	[ST_RETAIN_CELLS] = "DELETE FROM intervals WHERE run = ?1 AND "
		"start_ns < ?2",
	[ST_RETAIN_RUNS] = "DELETE FROM runs WHERE id <> ?1 AND last_ns < ?2",
	[ST_INS_DROP] = "INSERT INTO drops(run, start_ns, end_ns, ps_drop, "
		"ps_ifdrop) VALUES(?,?,?,?,?)",
};

sqlite3_stmt *store_stmt(struct store *s, int k, char *errbuf)
{
	if (s->st[k] == NULL &&
	    sqlite3_prepare_v3(s->db, stmt_sql[k], -1, SQLITE_PREPARE_PERSISTENT,
			       &s->st[k], NULL) != SQLITE_OK) {
		store_err(s, errbuf, "prepare");
		return NULL;
	}
	return s->st[k];
}

/* Step a statement that returns no rows, then reset it. */
int store_run_stmt(struct store *s, sqlite3_stmt *q, char *errbuf,
		   const char *what)
{
	int rc = sqlite3_step(q);

	sqlite3_reset(q);
	if (rc != SQLITE_DONE)
		return store_err(s, errbuf, what);
	return 0;
}

const char *store_op_name(uint32_t prog, uint32_t vers, uint32_t proc,
			  char *buf, size_t n)
{
	const char *p = dec_proc_name(prog, vers, proc);

	if (p)
		return p;
	snprintf(buf, n, "proc%u", proc);
	return buf;
}

void store_bind_text(sqlite3_stmt *q, int k, const char *t)
{
	sqlite3_bind_text(q, k, t, -1, SQLITE_TRANSIENT);
}

void store_bind_addr(sqlite3_stmt *q, int k, const struct cap_addr *a)
{
	char b[64];

	store_bind_text(q, k, cap_addr_str(a, b, sizeof(b)));
}

int store_err(struct store *s, char *errbuf, const char *what)
{
	int rc = s && s->db ? sqlite3_errcode(s->db) : SQLITE_ERROR;
	int ext = s && s->db ? sqlite3_extended_errcode(s->db) : rc;

	/* sqlite keeps no errno for a full disk (os_unix.c: SQLITE_FULL) */
	if (s && s->db)
		s->sys_errno = rc == SQLITE_FULL ? ENOSPC :
			       sqlite3_system_errno(s->db);
	if (rc == SQLITE_FULL || ext == SQLITE_IOERR_WRITE ||
	    ext == SQLITE_IOERR_FSYNC)
		snprintf(errbuf, STORE_ERRBUF_SIZE, "%s: disk full or write "
			 "error (%s): the last batch was not committed",
			 what, s->db ? sqlite3_errmsg(s->db) : "");
	else if (rc == SQLITE_READONLY)
		snprintf(errbuf, STORE_ERRBUF_SIZE, "%s: database is not "
			 "writable (%s)", what, sqlite3_errmsg(s->db));
	else
		snprintf(errbuf, STORE_ERRBUF_SIZE, "%s: %s", what,
			 s && s->db ? sqlite3_errmsg(s->db) : "out of memory");
	return -1;
}

int store_exec(struct store *s, const char *sql, char *errbuf)
{
	if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return store_err(s, errbuf, "sqlite");
	return 0;
}

bool store_has_column(struct store *s, const char *table, const char *col)
{
	sqlite3_stmt *q;
	char sql[128];
	bool yes = false;

	snprintf(sql, sizeof(sql), "SELECT count(*) FROM pragma_table_info('%s')"
		 " WHERE name = ?", table);
	if (sqlite3_prepare_v2(s->db, sql, -1, &q, NULL) != SQLITE_OK)
		return false;
	sqlite3_bind_text(q, 1, col, -1, SQLITE_STATIC);
	if (sqlite3_step(q) == SQLITE_ROW)
		yes = sqlite3_column_int(q, 0) > 0;
	sqlite3_finalize(q);
	return yes;
}

int64_t store_sqlite_heap(void)
{
	sqlite3_int64 cur = 0, hi = 0;

	if (sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &cur, &hi, 0) !=
	    SQLITE_OK)
		return -1;
	return cur;
}

static size_t put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

static bool get_varint(const uint8_t *p, size_t len, size_t *off, uint64_t *v)
{
	unsigned shift = 0;

	*v = 0;
	while (*off < len && shift < 64) {
		uint8_t b = p[(*off)++];

		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return true;
		shift += 7;
	}
	return false;
}

size_t store_hist_encode(const struct hist *h, uint8_t *buf, size_t n)
{
	uint8_t bi[HIST_SUB];
	uint64_t bn[HIST_SUB], prev = 0;
	size_t off = 0;
	unsigned c, k, m;

	for (c = 0; c < HIST_NCHUNK; c++) {
		m = hist_range_buckets(h, c, bi, bn);
		for (k = 0; k < m; k++) {
			uint64_t idx = (uint64_t)c * HIST_SUB + bi[k];

			if (n - off < 20)
				return off;	/* cannot happen: n >= 20/bucket */
			off += put_varint(buf + off, idx - prev);
			off += put_varint(buf + off, bn[k]);
			prev = idx;
		}
	}
	return off;
}

int store_hist_decode(struct hist *h, const uint8_t *buf, size_t n)
{
	uint64_t idx = 0, d, cnt;
	size_t off = 0;

	while (off < n) {
		unsigned c, i;

		if (!get_varint(buf, n, &off, &d) || !get_varint(buf, n, &off, &cnt))
			return -1;
		idx += d;
		if (idx >= (uint64_t)HIST_NCHUNK * HIST_SUB)
			return -1;
		c = (unsigned)(idx / HIST_SUB);
		i = (unsigned)(idx % HIST_SUB);
		if (!hist_add_bucket(h, c, i, cnt))
			return -1;
	}
	return 0;
}

int store_col_hist(sqlite3_stmt *q, int col, struct hist *h)
{
	h->count = (uint64_t)sqlite3_column_int64(q, col);
	h->sum = sqlite3_column_double(q, col + 1);
	h->min = (uint64_t)sqlite3_column_int64(q, col + 2);
	h->max = (uint64_t)sqlite3_column_int64(q, col + 3);
	return store_hist_decode(h, sqlite3_column_blob(q, col + 4),
				 (size_t)sqlite3_column_bytes(q, col + 4));
}

void store_bind_pcts(sqlite3_stmt *q, int k, const struct hist *h)
{
	static const double pct[] = { 50, 90, 99 };
	int i;

	for (i = 0; i < 3; i++) {
		if (h->count)
			sqlite3_bind_int64(q, k + i,
					   (int64_t)hist_percentile(h, pct[i]));
		else
			sqlite3_bind_null(q, k + i);
	}
}

void store_db_free(struct store *s)
{
	uint32_t k;
	int i;

	if (s == NULL)
		return;
	if (s->in_txn)
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	for (i = 0; i < ST_N; i++)
		sqlite3_finalize(s->st[i]);
	sqlite3_finalize(s->upd_run);
	sqlite3_close(s->db);
	if (s->cell)
		for (k = 0; k < s->ncells; k++)
			hist_fini(&s->cell[k].lat);
	free(s->cell);
	free(s->slot);
	free(s->flow);
	free(s->flow_dirty);
	free(s->name_seen);
	free(s->path);
	free(s);
}

/* "file:PATH?immutable=1", PATH's bytes other than unreserved ones and
 * '/' percent-encoded (RFC 3986: sqlite decodes them).  false: too long. */
static bool immutable_uri(const char *path, char *uri, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t o = (size_t)snprintf(uri, n, "file:");
	const unsigned char *p;

	for (p = (const unsigned char *)path; *p; p++) {
		if (o + 4 >= n)
			return false;
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("/._-~", *p)) {
			uri[o++] = (char)*p;
		} else {
			uri[o++] = '%';
			uri[o++] = hex[*p >> 4];
			uri[o++] = hex[*p & 15];
		}
	}
	return (size_t)snprintf(uri + o, n - o, "?immutable=1") < n - o;
}

int store_db_open(const char *path, int oflags, bool immutable, sqlite3 **db)
{
	char uri[3 * PATH_MAX + 32];

	if (!immutable)
		return sqlite3_open_v2(path, db, oflags, NULL);
	if (!immutable_uri(path, uri, sizeof(uri))) {
		*db = NULL;
		return SQLITE_CANTOPEN;
	}
	return sqlite3_open_v2(uri, db, oflags | SQLITE_OPEN_URI, NULL);
}

/* Does path's companion file (suffix "-wal", "-shm") exist; its size. */
static bool beside(const char *path, const char *suffix, off_t *size)
{
	char p[PATH_MAX];
	struct stat st;

	if ((size_t)snprintf(p, sizeof(p), "%s%s", path, suffix) >= sizeof(p) ||
	    stat(p, &st) < 0)
		return false;
	*size = st.st_size;
	return true;
}

bool store_wal_empty(const char *path)
{
	off_t n = 0;

	return !beside(path, "-wal", &n) || n == 0;
}

bool store_no_writer(const char *path)
{
	off_t n;

	return store_wal_empty(path) && !beside(path, "-shm", &n);
}

bool store_is_db(const char *path)
{
	static const char magic[16] = "SQLite format 3";
	struct stat st;
	char b[16];
	FILE *f;
	bool yes;

	/* only a regular file can be a database: a FIFO, /dev/stdin or
	 * <(...) is never opened here, so no byte of it is consumed before
	 * the capture reader sees it */
	if (path == NULL || !strcmp(path, "-") || stat(path, &st) != 0 ||
	    !S_ISREG(st.st_mode) || (f = fopen(path, "rb")) == NULL)
		return false;
	yes = fread(b, 1, sizeof(b), f) == sizeof(b) &&
	      memcmp(b, magic, sizeof(b)) == 0;
	fclose(f);
	return yes;
}
