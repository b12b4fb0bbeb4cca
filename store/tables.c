/* tables.c - the store's per-run tables besides ops and intervals: flows
 * (from every message), exports (with each batch), and at the end of a run
 * sizes, fsinfo and findings (from the analysis' figures); see store.h. */
#include "store/tables.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- flows -- */

static bool flow_is(const struct flow *f, const struct cap_msg *m)
{
	return f->transport == m->transport && f->sport == m->sport &&
	       f->dport == m->dport && cap_addr_eq(&f->src, &m->src) &&
	       cap_addr_eq(&f->dst, &m->dst);
}

/* Messages come in runs of one flow or two (a TCP stream's segments; a
 * call's direction and its reply's), so the last two flows found are
 * tried before the hash. */
void store_put_msg(struct store *s, const struct cap_msg *m, bool rpc_call,
		   bool rpc_reply)
{
	uint64_t h = 1469598103934665603ull;
	uint32_t k, i;
	struct flow *f = NULL;

	if (s->flow == NULL)
		return;
	if (s->flow_last && flow_is(&s->flow[s->flow_last - 1], m)) {
		k = s->flow_last - 1;
		f = &s->flow[k];
		goto found;
	}
	if (s->flow_prev && flow_is(&s->flow[s->flow_prev - 1], m)) {
		k = s->flow_prev - 1;
		f = &s->flow[k];
		goto found;
	}
	h = store_hash(h, &m->transport, 1);
	h = store_hash(h, &m->src, sizeof(m->src));
	h = store_hash(h, &m->dst, sizeof(m->dst));
	h = store_hash(h, &m->sport, 2);
	h = store_hash(h, &m->dport, 2);
	for (i = 0; i < 64; i++) {
		k = (uint32_t)(h + i) & (FLOW_MAX - 1);
		f = &s->flow[k];
		if (!f->used)
			break;
		if (f->hash == h && flow_is(f, m))
			goto found;
	}
	if (f->used || s->nflows >= FLOW_MAX / 2) {
		s->flows_dropped++;
		return;
	}
	f->used = true;
	f->hash = h;
	f->transport = m->transport;
	f->src = m->src;
	f->dst = m->dst;
	f->sport = m->sport;
	f->dport = m->dport;
	f->first_ns = m->ts_ns;
	s->nflows++;
found:
	if (s->flow_last != k + 1) {
		s->flow_prev = s->flow_last;
		s->flow_last = k + 1;
	}
	if (!f->dirty) {	/* at most FLOW_MAX / 2 flows are used */
		f->dirty = true;
		s->flow_dirty[s->nflow_dirty++] = k;
	}
	f->last_ns = m->ts_ns;
	f->msgs++;
	f->calls += rpc_call;
	f->replies += rpc_reply;
	f->bytes += m->len;
	f->truncated += (m->flags & CAP_MSG_TRUNCATED) != 0;
	f->ipfrag += (m->flags & CAP_MSG_IPFRAG) != 0;
	f->multifrag += (m->flags & CAP_MSG_MULTIFRAG) != 0;
	f->after_gap += (m->flags & CAP_MSG_AFTER_GAP) != 0;
	f->holes += (m->flags & CAP_MSG_HOLE) != 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* The flows touched since the last batch, copied into b (producer), in
 * the order of their slots, as the table is written. */
int store_take_flows(struct store *s, struct batch *b)
{
	uint32_t k, n = s->flow ? s->nflow_dirty : 0;

	b->nflows = 0;
	b->flows = NULL;
	if (n == 0)
		return 0;
	b->flows = malloc(n * sizeof(*b->flows));
	if (b->flows == NULL)
		return -1;
	qsort(s->flow_dirty, n, sizeof(s->flow_dirty[0]), cmp_u32);
	for (k = 0; k < n; k++) {
		struct flow *f = &s->flow[s->flow_dirty[k]];

		b->flows[b->nflows++] = *f;
		f->dirty = false;
	}
	s->nflow_dirty = 0;
	return 0;
}

int store_write_flows(struct store *s, const struct batch *b, char *errbuf)
{
	sqlite3_stmt *q = store_stmt(s, ST_UPS_FLOW, errbuf);
	uint32_t k;

	if (q == NULL)
		return -1;
	for (k = 0; k < b->nflows; k++) {
		const struct flow *f = &b->flows[k];

		sqlite3_bind_int64(q, 1, s->run);
		store_bind_text(q, 2, f->transport == CAP_TCP ? "tcp" : "udp");
		store_bind_addr(q, 3, &f->src);
		sqlite3_bind_int(q, 4, f->sport);
		store_bind_addr(q, 5, &f->dst);
		sqlite3_bind_int(q, 6, f->dport);
		sqlite3_bind_int64(q, 7, f->first_ns);
		sqlite3_bind_int64(q, 8, f->last_ns);
		sqlite3_bind_int64(q, 9, (int64_t)f->msgs);
		sqlite3_bind_int64(q, 10, (int64_t)f->calls);
		sqlite3_bind_int64(q, 11, (int64_t)f->replies);
		sqlite3_bind_int64(q, 12, (int64_t)f->bytes);
		sqlite3_bind_int64(q, 13, (int64_t)f->truncated);
		sqlite3_bind_int64(q, 14, (int64_t)f->ipfrag);
		sqlite3_bind_int64(q, 15, (int64_t)f->multifrag);
		sqlite3_bind_int64(q, 16, (int64_t)f->after_gap);
		sqlite3_bind_int64(q, 17, (int64_t)f->holes);
		if (store_run_stmt(s, q, errbuf, "flows") < 0)
			return -1;
		s->counts.flows++;
	}
	return 0;
}

/* The exports learned since the last batch, copied into b (producer). */
int store_take_exports(struct store *s, const struct an_names *names,
		       struct batch *b)
{
	int k, n = names ? an_names_export_count(names) : 0;

	b->first_export = s->nexports_written;
	b->nexports = 0;
	b->exports = NULL;
	if (n <= s->nexports_written)
		return 0;
	b->exports = malloc((size_t)(n - s->nexports_written) *
			    sizeof(*b->exports));
	if (b->exports == NULL)
		return -1;
	for (k = s->nexports_written; k < n; k++)
		b->exports[b->nexports++] = *an_names_export_get(names, k);
	s->nexports_written = n;
	return 0;
}

int store_write_exports(struct store *s, const struct batch *b,
			char *errbuf)
{
	sqlite3_stmt *q;
	int k;

	for (k = 0; k < b->nexports; k++) {
		const struct an_export *e = &b->exports[k];

		if ((q = store_stmt(s, ST_INS_EXPORT, errbuf)) == NULL)
			return -1;
		sqlite3_bind_int64(q, 1, s->run);
		sqlite3_bind_int(q, 2, b->first_export + k);
		store_bind_addr(q, 3, &e->server);
		sqlite3_bind_blob(q, 4, e->root.data, (int)e->root.len,
				  SQLITE_STATIC);
		store_bind_text(q, 5, e->path);
		if (store_run_stmt(s, q, errbuf, "exports") < 0)
			return -1;
	}
	return 0;
}

/* -------------------------------------------------------------- end -- */

/* z into table sizes (stmt ST_INS_SIZE) or sizes_from_replies
 * (ST_INS_SIZE_REP): same columns but the last one's name. */
static int write_sizes(struct store *s, const struct an_pair *p,
		       const struct an_sizes *z, const char *op, int stmt,
		       char *errbuf)
{
	sqlite3_stmt *q;
	uint32_t k;

	for (k = 0; k <= z->nsizes; k++) {
		if (k == z->nsizes && z->other == 0)
			break;
		if ((q = store_stmt(s, stmt, errbuf)) == NULL)
			return -1;
		sqlite3_bind_int64(q, 1, s->run);
		store_bind_addr(q, 2, &p->client);
		store_bind_addr(q, 3, &p->server);
		store_bind_text(q, 4, op);
		if (k < z->nsizes) {
			sqlite3_bind_int64(q, 5, z->s[k].size);
			sqlite3_bind_int64(q, 6, (int64_t)z->s[k].n);
		} else {	/* sizes beyond AN_SIZES_MAX distinct ones */
			sqlite3_bind_null(q, 5);
			sqlite3_bind_int64(q, 6, (int64_t)z->other);
		}
		if (store_run_stmt(s, q, errbuf, "sizes") < 0)
			return -1;
	}
	return 0;
}

int store_write_figs(struct store *s, const struct an_figs *figs,
		     char *errbuf)
{
	sqlite3_stmt *q;
	uint32_t k;
	char hex[2 * NFS_VERF_SIZE + 1];

	for (k = 0; k < an_figs_npairs(figs); k++) {
		const struct an_pair *p = an_figs_pair(figs, k);

		if (write_sizes(s, p, &p->read, "READ", ST_INS_SIZE,
				errbuf) < 0 ||
		    write_sizes(s, p, &p->write, "WRITE", ST_INS_SIZE,
				errbuf) < 0 ||
		    write_sizes(s, p, &p->read_rep, "READ", ST_INS_SIZE_REP,
				errbuf) < 0 ||
		    write_sizes(s, p, &p->write_rep, "WRITE", ST_INS_SIZE_REP,
				errbuf) < 0)
			return -1;
	}
	for (k = 0; k < an_figs_nservers(figs); k++) {
		const struct an_server *v = an_figs_server(figs, k);
		int i;

		if ((q = store_stmt(s, ST_INS_FSINFO, errbuf)) == NULL)
			return -1;
		sqlite3_bind_int64(q, 1, s->run);
		store_bind_addr(q, 2, &v->addr);
		if (v->have_fsinfo) {
			sqlite3_bind_int64(q, 3, v->rtmax);
			sqlite3_bind_int64(q, 4, v->rtpref);
			sqlite3_bind_int64(q, 5, v->wtmax);
			sqlite3_bind_int64(q, 6, v->wtpref);
			sqlite3_bind_int64(q, 7, v->dtpref);
		} else {
			for (i = 3; i <= 7; i++)
				sqlite3_bind_null(q, i);
		}
		if (v->have_statfs)
			sqlite3_bind_int64(q, 8, v->tsize);
		else
			sqlite3_bind_null(q, 8);
		if (v->have_verf) {
			for (i = 0; i < NFS_VERF_SIZE; i++)
				snprintf(hex + 2 * i, 3, "%02x", v->verf[i]);
			store_bind_text(q, 9, hex);
		} else {
			sqlite3_bind_null(q, 9);
		}
		sqlite3_bind_int64(q, 10, v->nverf_changes);
		if (store_run_stmt(s, q, errbuf, "fsinfo") < 0)
			return -1;
	}
	return 0;
}

int store_write_findings(struct store *s, const struct an_find *find,
			 char *errbuf)
{
	size_t k;
	sqlite3_stmt *q;

	for (k = 0; k < an_find_count(find); k++) {
		const struct an_finding *f = an_find_get(find, k);

		if ((q = store_stmt(s, ST_INS_FINDING, errbuf)) == NULL)
			return -1;
		sqlite3_bind_int64(q, 1, s->run);
		store_bind_text(q, 2, an_find_kind_name(f->kind));
		sqlite3_bind_int64(q, 3, f->start_ns);
		sqlite3_bind_int64(q, 4, f->end_ns);
		if (f->have_client)
			store_bind_addr(q, 5, &f->client);
		else
			sqlite3_bind_null(q, 5);
		if (f->have_server)
			store_bind_addr(q, 6, &f->server);
		else
			sqlite3_bind_null(q, 6);
		if (f->have_fh)
			sqlite3_bind_blob(q, 7, f->fh.data, (int)f->fh.len,
					  SQLITE_STATIC);
		else
			sqlite3_bind_null(q, 7);
		store_bind_text(q, 8, f->path);
		sqlite3_bind_int64(q, 9, (int64_t)f->count);
		sqlite3_bind_double(q, 10, f->peak_rate);
		store_bind_text(q, 11, f->evidence);
		store_bind_text(q, 12, f->meaning ? f->meaning : "");
		if (store_run_stmt(s, q, errbuf, "findings") < 0)
			return -1;
	}
	return 0;
}
