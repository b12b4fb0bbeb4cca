/* read.c - reading a store back: runs, ops replay (through an
 * analyze/filter.h filter), exports, drops, handshakes, merged interval
 * cells, end-of-run tables; see store.h.  Calls db.c and schema.c. */
#include "store/schema.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ------------------------------------------------------------ helpers -- */

/* --------------------------------------------------------------- runs -- */

int store_last_run(struct store *s, int64_t *id, char *errbuf)
{
	sqlite3_stmt *q;
	int rc;

	*id = 0;
	if (sqlite3_prepare_v2(s->db, "SELECT max(id) FROM runs", -1, &q,
			       NULL) != SQLITE_OK)
		return store_err(s, errbuf, "runs");
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW)
		*id = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	if (rc != SQLITE_ROW)
		return store_err(s, errbuf, "runs");
	return 0;
}

static void col_text(sqlite3_stmt *q, int k, char *buf, size_t n)
{
	const unsigned char *t = sqlite3_column_text(q, k);

	snprintf(buf, n, "%s", t ? (const char *)t : "");
}

int store_read_run(struct store *s, int64_t id, struct store_run *run,
		   char *errbuf)
{
	char sql[8192], mode[16];
	size_t k, off;
	sqlite3_stmt *q;
	int rc;

	memset(run, 0, sizeof(*run));
	off = (size_t)snprintf(sql, sizeof(sql), "SELECT id, source, filter, "
		"snaplen, live, ops_mode, slow_ns, interval_ns, retain_ns, "
		"started, ended, state");
	for (k = 0; k < store_run_ncols; k++)	/* 0: older than the file */
		off += (size_t)snprintf(sql + off, sizeof(sql) - off, ", %s",
					store_run_cols[k].since == 0 ||
					store_has_column(s, "runs",
						store_run_cols[k].name) ?
					store_run_cols[k].name : "0");
	/* read_error: schema version 3 on (an older file read-only has none) */
	off += (size_t)snprintf(sql + off, sizeof(sql) - off, "%s",
				store_has_column(s, "runs", "read_error") ?
				", read_error, read_error_offset" : "");
	snprintf(sql + off, sizeof(sql) - off, " FROM runs WHERE id = ?");
	if (sqlite3_prepare_v2(s->db, sql, -1, &q, NULL) != SQLITE_OK)
		return store_err(s, errbuf, "runs");
	sqlite3_bind_int64(q, 1, id);
	rc = sqlite3_step(q);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(q);
		if (rc == SQLITE_DONE) {
			snprintf(errbuf, STORE_ERRBUF_SIZE, "no run %lld in the "
				 "database", (long long)id);
			return -1;
		}
		return store_err(s, errbuf, "runs");
	}
	run->id = sqlite3_column_int64(q, 0);
	col_text(q, 1, run->source, sizeof(run->source));
	col_text(q, 2, run->filter, sizeof(run->filter));
	run->snaplen = sqlite3_column_int(q, 3);
	run->live = sqlite3_column_int(q, 4) != 0;
	col_text(q, 5, mode, sizeof(mode));
	run->ops_mode = !strcmp(mode, "all") ? STORE_OPS_ALL :
			!strcmp(mode, "slow") ? STORE_OPS_SLOW : STORE_OPS_NONE;
	run->slow_ns = sqlite3_column_int64(q, 6);
	run->interval_ns = sqlite3_column_int64(q, 7);
	run->retain_ns = sqlite3_column_int64(q, 8);
	run->started = sqlite3_column_int64(q, 9);
	run->ended = sqlite3_column_int64(q, 10);
	col_text(q, 11, run->state, sizeof(run->state));
	for (k = 0; k < store_run_ncols; k++) {
		char *p = (char *)run + store_run_cols[k].off;
		int64_t v = sqlite3_column_int64(q, (int)k + 12);

		if (store_run_cols[k].u32) {
			uint32_t u = (uint32_t)v;

			memcpy(p, &u, sizeof(u));
		} else {
			memcpy(p, &v, sizeof(v));
		}
	}
	run->read_error_offset = -1;
	if (s->version >= 3) {
		int c = 12 + (int)store_run_ncols;

		col_text(q, c, run->read_error, sizeof(run->read_error));
		if (sqlite3_column_type(q, c + 1) != SQLITE_NULL)
			run->read_error_offset = sqlite3_column_int64(q, c + 1);
	}
	sqlite3_finalize(q);
	return 0;
}

/* ---------------------------------------------------------------- ops -- */

static void col_blob(sqlite3_stmt *q, int k, uint8_t *dst, size_t max,
		     uint32_t *len)
{
	const void *b = sqlite3_column_blob(q, k);
	size_t n = (size_t)sqlite3_column_bytes(q, k);

	if (n > max)
		n = max;
	if (b && n)
		memcpy(dst, b, n);
	if (len)
		*len = (uint32_t)n;
}

static void col_addr(sqlite3_stmt *q, int k, struct cap_addr *a)
{
	an_addr_parse((const char *)sqlite3_column_text(q, k), a);
}

/* Column order as written by write.c's INSERT INTO ops (run first). */
/* Column k0 is ops.run, the first of STORE_OPS_COLUMNS. */
static void row_to_op_at(sqlite3_stmt *q, int k0, struct an_op *op)
{
	const unsigned char *t;
	int k = k0 + 1;

	memset(op, 0, sizeof(*op));
	op->call_frame = (uint64_t)sqlite3_column_int64(q, k++);
	op->reply_frame = (uint64_t)sqlite3_column_int64(q, k++);
	op->first_call_ns = sqlite3_column_int64(q, k++);
	op->last_call_ns = sqlite3_column_int64(q, k++);
	op->reply_ns = sqlite3_column_int64(q, k++);
	op->lat_first_ns = sqlite3_column_type(q, k) == SQLITE_NULL ? -1 :
			   sqlite3_column_int64(q, k);
	k++;
	op->lat_last_ns = sqlite3_column_type(q, k) == SQLITE_NULL ? -1 :
			  sqlite3_column_int64(q, k);
	k++;
	op->retrans_ivl_first_ns = sqlite3_column_int64(q, k++);
	op->retrans_ivl_max_ns = sqlite3_column_int64(q, k++);
	op->retrans = (uint32_t)sqlite3_column_int64(q, k++);
	op->dup_replies = (uint32_t)sqlite3_column_int64(q, k++);
	col_addr(q, k++, &op->client);
	col_addr(q, k++, &op->server);
	op->client_port = (uint16_t)sqlite3_column_int(q, k++);
	op->client_port_last = (uint16_t)sqlite3_column_int(q, k++);
	op->server_port = (uint16_t)sqlite3_column_int(q, k++);
	t = sqlite3_column_text(q, k++);
	op->transport = t && !strcmp((const char *)t, "tcp") ? CAP_TCP : CAP_UDP;
	op->xid = (uint32_t)sqlite3_column_int64(q, k++);
	op->prog = (uint32_t)sqlite3_column_int64(q, k++);
	op->vers = (uint32_t)sqlite3_column_int64(q, k++);
	op->proc = (uint32_t)sqlite3_column_int64(q, k++);
	k += 2;		/* op, error: derived */
	op->flags = (uint32_t)sqlite3_column_int64(q, k++);
	op->have = (uint32_t)sqlite3_column_int64(q, k++);
	op->uid = (uint32_t)sqlite3_column_int64(q, k++);
	op->gid = (uint32_t)sqlite3_column_int64(q, k++);
	col_text(q, k++, op->machine, sizeof(op->machine));
	col_blob(q, k++, op->fh.data, NFS_FHSIZE_MAX, &op->fh.len);
	col_blob(q, k++, op->rfh.data, NFS_FHSIZE_MAX, &op->rfh.len);
	op->export_id = sqlite3_column_int(q, k++);
	col_text(q, k++, op->path, sizeof(op->path));
	col_text(q, k++, op->name, sizeof(op->name));
	op->offset = (uint64_t)sqlite3_column_int64(q, k++);
	op->count = (uint32_t)sqlite3_column_int64(q, k++);
	op->rcount = (uint32_t)sqlite3_column_int64(q, k++);
	op->eof = sqlite3_column_int(q, k++) != 0;
	op->stable = (uint32_t)sqlite3_column_int64(q, k++);
	op->committed = (uint32_t)sqlite3_column_int64(q, k++);
	col_blob(q, k++, op->verf, NFS_VERF_SIZE, NULL);
	op->reply_stat = (uint32_t)sqlite3_column_int64(q, k++);
	op->accept_stat = (uint32_t)sqlite3_column_int64(q, k++);
	op->status = (uint32_t)sqlite3_column_int64(q, k++);
	op->call_len = (uint32_t)sqlite3_column_int64(q, k++);
	op->reply_len = (uint32_t)sqlite3_column_int64(q, k++);
	op->rtmax = (uint32_t)sqlite3_column_int64(q, k++);
	op->rtpref = (uint32_t)sqlite3_column_int64(q, k++);
	op->wtmax = (uint32_t)sqlite3_column_int64(q, k++);
	op->wtpref = (uint32_t)sqlite3_column_int64(q, k++);
	op->dtpref = (uint32_t)sqlite3_column_int64(q, k++);
	op->tsize = (uint32_t)sqlite3_column_int64(q, k++);
}

/*
 * Run an ops query with three integer parameters; every row (column 0 is
 * ops.id) that f matches goes to fn.  *last_id gets the last id read.
 */
static int ops_query(struct store *s, const char *sql, int64_t a, int64_t b,
		     int64_t c, const struct an_filter *f, int64_t base_ns,
		     an_op_fn fn, void *user, int64_t *last_id, char *errbuf)
{
	struct an_op *op = malloc(sizeof(*op));
	sqlite3_stmt *q = NULL;
	int rc;

	if (op == NULL) {
		snprintf(errbuf, STORE_ERRBUF_SIZE, "out of memory");
		return -1;
	}
	if (sqlite3_prepare_v2(s->db, sql, -1, &q, NULL) != SQLITE_OK) {
		free(op);
		return store_err(s, errbuf, "ops");
	}
	sqlite3_bind_int64(q, 1, a);
	sqlite3_bind_int64(q, 2, b);
	sqlite3_bind_int64(q, 3, c);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		*last_id = sqlite3_column_int64(q, 0);
		row_to_op_at(q, 1, op);
		if (an_filter_match(f, op, base_ns))
			fn(user, op);
	}
	sqlite3_finalize(q);
	free(op);
	if (rc != SQLITE_DONE)
		return store_err(s, errbuf, "ops");
	return 0;
}

int store_read_ops_since(struct store *s, int64_t run, int64_t after_id,
			 uint32_t limit, an_op_fn fn, void *user,
			 int64_t *last_id, char *errbuf)
{
	static const char sql[] = "SELECT id, " STORE_OPS_COLUMNS
		" FROM ops WHERE run = ?1 AND id > ?2 ORDER BY id LIMIT ?3";

	*last_id = after_id;
	return ops_query(s, sql, run, after_id, limit ? (int64_t)limit : -1,
			 NULL, 0, fn, user, last_id, errbuf);
}

int store_read_ops(struct store *s, int64_t run, const struct an_filter *f,
		   int64_t base_ns, an_op_fn fn, void *user, char *errbuf)
{
	static const char sql[] = "SELECT id, " STORE_OPS_COLUMNS
		" FROM ops WHERE run = ?1 AND first_call_ns >= ?2 AND "
		"first_call_ns < ?3 ORDER BY id";
	int64_t from, to, last;

	an_filter_bounds(f, base_ns, &from, &to);
	return ops_query(s, sql, run, from, to, f, base_ns, fn, user, &last,
			 errbuf);
}

int store_read_exports(struct store *s, int64_t run, struct an_names *names,
		       char *errbuf)
{
	sqlite3_stmt *q;
	int rc;

	if (sqlite3_prepare_v2(s->db, "SELECT server, fh, path FROM exports "
			       "WHERE run = ? ORDER BY export_id", -1, &q,
			       NULL) != SQLITE_OK)
		return store_err(s, errbuf, "exports");
	sqlite3_bind_int64(q, 1, run);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		struct cap_addr a;
		struct nfs_fh fh;
		char path[AN_PATH_MAX];

		memset(&fh, 0, sizeof(fh));
		col_addr(q, 0, &a);
		col_blob(q, 1, fh.data, NFS_FHSIZE_MAX, &fh.len);
		col_text(q, 2, path, sizeof(path));
		an_names_export(names, &a, &fh, path);
	}
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE)
		return store_err(s, errbuf, "exports");
	return 0;
}

int store_read_drops(struct store *s, int64_t run, store_drop_fn fn,
		     void *user, char *errbuf)
{
	sqlite3_stmt *q;
	int rc;

	/* a schema 1 file opened read-only has no table drops: no spans */
	rc = sqlite3_prepare_v2(s->db, "SELECT 1 FROM sqlite_schema WHERE "
				"type = 'table' AND name = 'drops'", -1, &q, NULL);
	if (rc != SQLITE_OK)
		return store_err(s, errbuf, "drops");
	rc = sqlite3_step(q);
	sqlite3_finalize(q);
	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return store_err(s, errbuf, "drops");
	if (sqlite3_prepare_v2(s->db, "SELECT start_ns, end_ns, ps_drop, "
			       "ps_ifdrop FROM drops WHERE run = ? ORDER BY "
			       "start_ns", -1, &q, NULL) != SQLITE_OK)
		return store_err(s, errbuf, "drops");
	sqlite3_bind_int64(q, 1, run);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		struct cap_drop_span sp;

		sp.start_ns = sqlite3_column_int64(q, 0);
		sp.end_ns = sqlite3_column_int64(q, 1);
		sp.drop = (uint64_t)sqlite3_column_int64(q, 2);
		sp.ifdrop = (uint64_t)sqlite3_column_int64(q, 3);
		fn(user, &sp);
	}
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE)
		return store_err(s, errbuf, "drops");
	return 0;
}

/* Table tcp_health (issue 30) into the handshakes read so far (*n of
 * them), a pair not among them in a slot of its own; none in files
 * before it. */
static int read_tcp_health(struct store *s, int64_t run,
			   struct cap_handshake *hs, size_t max, size_t *n,
			   char *errbuf)
{
	sqlite3_stmt *q;
	int rc, d, c;

	if (sqlite3_prepare_v2(s->db, "SELECT client, server, segs_c2s, "
			       "segs_s2c, resent_c2s, resent_s2c, "
			       "dupack_loss_c2s, dupack_loss_s2c, zero_win_c2s, "
			       "zero_win_s2c, rsts_c2s, rsts_s2c, stalls40_c2s, "
			       "stalls40_s2c, stalls200_c2s, stalls200_s2c, "
			       "stall_ns_c2s, stall_ns_s2c FROM tcp_health "
			       "WHERE run = ?", -1, &q, NULL) != SQLITE_OK)
		return 0;	/* a file from before it */
	sqlite3_bind_int64(q, 1, run);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		const char *cs = (const char *)sqlite3_column_text(q, 0);
		const char *ss = (const char *)sqlite3_column_text(q, 1);
		struct cap_handshake h, *e = NULL;
		size_t k;

		memset(&h, 0, sizeof(h));
		if (cs == NULL || ss == NULL || an_addr_parse(cs, &h.client) < 0 ||
		    an_addr_parse(ss, &h.server) < 0)
			continue;
		for (k = 0; k < *n && e == NULL; k++)
			if (cap_addr_eq(&hs[k].client, &h.client) &&
			    cap_addr_eq(&hs[k].server, &h.server))
				e = &hs[k];
		if (e == NULL && *n < max) {
			e = &hs[(*n)++];
			*e = h;
		}
		if (e == NULL)
			continue;
		for (d = 0, c = 2; d < 2; d++, c++) {
			e->segs[d] = (uint64_t)sqlite3_column_int64(q, c);
			e->resent[d] = (uint64_t)sqlite3_column_int64(q, c + 2);
			e->dupack_loss[d] = (uint64_t)sqlite3_column_int64(q, c + 4);
			e->zero_win[d] = (uint64_t)sqlite3_column_int64(q, c + 6);
			e->rsts[d] = (uint64_t)sqlite3_column_int64(q, c + 8);
			e->stalls40[d] = (uint64_t)sqlite3_column_int64(q, c + 10);
			e->stalls200[d] = (uint64_t)sqlite3_column_int64(q, c + 12);
			e->stall_ns[d] = sqlite3_column_int64(q, c + 14);
		}
	}
	sqlite3_finalize(q);
	return rc == SQLITE_DONE ? 0 : store_err(s, errbuf, "tcp_health");
}

int store_read_handshakes(struct store *s, int64_t run,
			  struct cap_handshake *hs, size_t max, size_t *n,
			  char *errbuf)
{
	sqlite3_stmt *q;
	int rc;

	*n = 0;
	rc = sqlite3_prepare_v2(s->db, "SELECT 1 FROM sqlite_schema WHERE "
				"type = 'table' AND name = 'handshakes'", -1, &q,
				NULL);
	if (rc != SQLITE_OK)
		return store_err(s, errbuf, "handshakes");
	rc = sqlite3_step(q);
	sqlite3_finalize(q);
	if (rc == SQLITE_DONE)
		return 0;
	/* a table from before the ACK timing: without it */
	if (rc != SQLITE_ROW ||
	    (sqlite3_prepare_v2(s->db, "SELECT client, server, n, syn_min_ns, "
				"syn_sum_ns, ack_min_ns, ack_sum_ns, srv_acks, "
				"srv_ack_min_ns, cli_acks, cli_ack_min_ns FROM "
				"handshakes WHERE run = ?", -1, &q,
				NULL) != SQLITE_OK &&
	     sqlite3_prepare_v2(s->db, "SELECT client, server, n, syn_min_ns, "
				"syn_sum_ns, ack_min_ns, ack_sum_ns, 0, 0, 0, 0 "
				"FROM handshakes WHERE run = ?", -1, &q,
				NULL) != SQLITE_OK))
		return store_err(s, errbuf, "handshakes");
	sqlite3_bind_int64(q, 1, run);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW && *n < max) {
		struct cap_handshake *h = &hs[*n];
		const char *c = (const char *)sqlite3_column_text(q, 0);
		const char *v = (const char *)sqlite3_column_text(q, 1);

		memset(h, 0, sizeof(*h));
		if (c == NULL || v == NULL || an_addr_parse(c, &h->client) < 0 ||
		    an_addr_parse(v, &h->server) < 0)
			continue;
		h->n = (uint32_t)sqlite3_column_int64(q, 2);
		h->syn_min_ns = sqlite3_column_int64(q, 3);
		h->syn_sum_ns = sqlite3_column_int64(q, 4);
		h->ack_min_ns = sqlite3_column_int64(q, 5);
		h->ack_sum_ns = sqlite3_column_int64(q, 6);
		h->srv_n = (uint32_t)sqlite3_column_int64(q, 7);
		h->srv_min_ns = sqlite3_column_int64(q, 8);
		h->cli_n = (uint32_t)sqlite3_column_int64(q, 9);
		h->cli_min_ns = sqlite3_column_int64(q, 10);
		(*n)++;
	}
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return store_err(s, errbuf, "handshakes");
	return read_tcp_health(s, run, hs, max, n, errbuf);
}

/* ---------------------------------------------------------- intervals -- */

#define PROCS_MAX 256

int store_read_intervals(struct store *s, int64_t run,
			 const struct an_filter *f, int64_t from_ns,
			 int64_t to_ns, store_cell_fn fn, void *user,
			 char *errbuf)
{
	static const char sql[] = "SELECT prog, vers, proc, client, server, "
		"calls, answered, unanswered, errors, retrans, dup_replies, bytes, "
		"data_bytes, lat_count, lat_sum_ns, lat_min_ns, lat_max_ns, "
		"lat_hist FROM intervals WHERE run = ?1 AND start_ns >= ?2 AND "
		"start_ns < ?3";
	struct store_cell *v = calloc(PROCS_MAX, sizeof(*v));
	uint32_t n = 0, k;
	sqlite3_stmt *q = NULL;
	int rc, ret = 0;

	if (v == NULL) {
		snprintf(errbuf, STORE_ERRBUF_SIZE, "out of memory");
		return -1;
	}
	if (sqlite3_prepare_v2(s->db, sql, -1, &q, NULL) != SQLITE_OK) {
		free(v);
		return store_err(s, errbuf, "intervals");
	}
	sqlite3_bind_int64(q, 1, run);
	sqlite3_bind_int64(q, 2, from_ns);
	sqlite3_bind_int64(q, 3, to_ns);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		struct store_cell *c = NULL;
		struct cap_addr cl, sv;
		struct hist h;
		uint32_t prog = (uint32_t)sqlite3_column_int64(q, 0);
		uint32_t vers = (uint32_t)sqlite3_column_int64(q, 1);
		uint32_t proc = (uint32_t)sqlite3_column_int64(q, 2);

		col_addr(q, 3, &cl);
		col_addr(q, 4, &sv);
		if (f && (!an_filter_addr(f, AN_FK_CLIENT, &cl) ||
			  !an_filter_addr(f, AN_FK_SERVER, &sv) ||
			  !an_filter_proc(f, prog, vers, proc)))
			continue;
		for (k = 0; k < n; k++)
			if (v[k].prog == prog && v[k].vers == vers &&
			    v[k].proc == proc)
				c = &v[k];
		if (c == NULL) {
			if (n == PROCS_MAX)
				continue;
			c = &v[n++];
			c->prog = prog;
			c->vers = vers;
			c->proc = proc;
		}
		c->calls += (uint64_t)sqlite3_column_int64(q, 5);
		c->answered += (uint64_t)sqlite3_column_int64(q, 6);
		c->unanswered += (uint64_t)sqlite3_column_int64(q, 7);
		c->errors += (uint64_t)sqlite3_column_int64(q, 8);
		c->retrans += (uint64_t)sqlite3_column_int64(q, 9);
		c->dup_replies += (uint64_t)sqlite3_column_int64(q, 10);
		c->bytes += (uint64_t)sqlite3_column_int64(q, 11);
		c->data_bytes += (uint64_t)sqlite3_column_int64(q, 12);
		hist_init(&h);
		if (store_col_hist(q, 13, &h) < 0) {
			hist_fini(&h);
			snprintf(errbuf, STORE_ERRBUF_SIZE, "intervals: bad "
				 "histogram blob");
			ret = -1;
			break;
		}
		hist_merge(&c->lat, &h);
		hist_fini(&h);
	}
	sqlite3_finalize(q);
	if (ret == 0 && rc != SQLITE_DONE && rc != SQLITE_ROW)
		ret = store_err(s, errbuf, "intervals");
	for (k = 0; k < n; k++) {
		if (ret == 0)
			fn(user, &v[k]);
		hist_fini(&v[k].lat);
	}
	free(v);
	return ret;
}

/* -------------------------------------------------- end-of-run tables -- */

#define TABLE_COLS 16

int store_read_table(struct store *s, int64_t run, const char *table,
		     store_row_fn fn, void *user, char *errbuf)
{
	static const char *const ok[] = { "sizes", "sizes_from_replies",
		"fsinfo", "findings" };
	const char *names[TABLE_COLS], *vals[TABLE_COLS];
	sqlite3_stmt *q = NULL;
	char sql[128];
	size_t k;
	int n, rc;

	for (k = 0; k < sizeof(ok) / sizeof(ok[0]); k++)
		if (strcmp(table, ok[k]) == 0)
			break;
	if (k == sizeof(ok) / sizeof(ok[0])) {
		snprintf(errbuf, STORE_ERRBUF_SIZE, "no table %s", table);
		return -1;
	}
	/* (a schema 1 database has no sizes_from_replies: no rows) */
	snprintf(sql, sizeof(sql), "SELECT * FROM %s WHERE run = ?1 ORDER BY "
		 "rowid", ok[k]);
	if (sqlite3_prepare_v2(s->db, sql, -1, &q, NULL) != SQLITE_OK)
		return strcmp(table, "sizes_from_replies") == 0 ? 0 :
		       store_err(s, errbuf, table);
	sqlite3_bind_int64(q, 1, run);
	n = sqlite3_column_count(q) - 1;	/* column 0 is run */
	if (n > TABLE_COLS)
		n = TABLE_COLS;
	for (k = 0; k < (size_t)n; k++)
		names[k] = sqlite3_column_name(q, (int)k + 1);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		for (k = 0; k < (size_t)n; k++)
			vals[k] = (const char *)sqlite3_column_text(q,
								    (int)k + 1);
		fn(user, n, names, vals);
	}
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE)
		return store_err(s, errbuf, table);
	return 0;
}

/* ------------------------------------------------ several runs as one -- */

struct store_ops_cursor {
	struct store *s;
	sqlite3_stmt *q;
	const struct an_filter *f;	/* borrowed; NULL: every op */
	int64_t base_ns;
};

int store_ops_open(struct store *s, int64_t run, const struct an_filter *f,
		   int64_t base_ns, struct store_ops_cursor **out,
		   char *errbuf)
{
	static const char sql[] = "SELECT id, " STORE_OPS_COLUMNS
		" FROM ops WHERE run = ?1 AND first_call_ns >= ?2 AND "
		"first_call_ns < ?3 ORDER BY id";
	struct store_ops_cursor *c = calloc(1, sizeof(*c));
	int64_t from, to;

	*out = NULL;
	if (c == NULL) {
		snprintf(errbuf, STORE_ERRBUF_SIZE, "out of memory");
		return -1;
	}
	if (sqlite3_prepare_v2(s->db, sql, -1, &c->q, NULL) != SQLITE_OK) {
		free(c);
		return store_err(s, errbuf, "ops");
	}
	an_filter_bounds(f, base_ns, &from, &to);
	sqlite3_bind_int64(c->q, 1, run);
	sqlite3_bind_int64(c->q, 2, from);
	sqlite3_bind_int64(c->q, 3, to);
	c->s = s;
	c->f = f;
	c->base_ns = base_ns;
	*out = c;
	return 0;
}

int store_ops_next(struct store_ops_cursor *c, struct an_op *op,
		   char *errbuf)
{
	int rc;

	while ((rc = sqlite3_step(c->q)) == SQLITE_ROW) {
		row_to_op_at(c->q, 1, op);
		if (an_filter_match(c->f, op, c->base_ns))
			return 1;
	}
	if (rc != SQLITE_DONE)
		return store_err(c->s, errbuf, "ops");
	return 0;
}

void store_ops_close(struct store_ops_cursor *c)
{
	if (c == NULL)
		return;
	sqlite3_finalize(c->q);
	free(c);
}

/* Counters of runs that are a largest value, not a count. */
static bool col_is_max(const char *name)
{
	size_t n = strlen(name);

	return (n > 4 && strcmp(name + n - 4, "_max") == 0) ||
	       strcmp(name, "snap_caplen") == 0 ||
	       strcmp(name, "eng_pending_peak") == 0;
}

void store_run_add(struct store_run *dst, const struct store_run *src)
{
	int64_t first = dst->first_ns, last = dst->last_ns;
	size_t k;

	for (k = 0; k < store_run_ncols; k++) {
		char *d = (char *)dst + store_run_cols[k].off;
		const char *v = (const char *)src + store_run_cols[k].off;
		bool max = col_is_max(store_run_cols[k].name);

		if (store_run_cols[k].u32) {
			uint32_t a, b;

			memcpy(&a, d, sizeof(a));
			memcpy(&b, v, sizeof(b));
			a = max ? (a > b ? a : b) : a + b;
			memcpy(d, &a, sizeof(a));
		} else {
			uint64_t a, b;

			memcpy(&a, d, sizeof(a));
			memcpy(&b, v, sizeof(b));
			a = max ? (a > b ? a : b) : a + b;
			memcpy(d, &a, sizeof(a));
		}
	}
	dst->first_ns = first == 0 || (src->first_ns && src->first_ns < first) ?
			src->first_ns : first;
	dst->last_ns = src->last_ns > last ? src->last_ns : last;
}
