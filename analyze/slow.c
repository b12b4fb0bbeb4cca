/* slow.c - latency findings per server: cheap operations slow (the server
 * and each client's view of it) and intervals whose p99 is far above the
 * run's baseline; the rules are in find.h and doc/report.md. */
#include "analyze/find_int.h"
#include "base/units.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* NULL, GETATTR, ACCESS, FSINFO (v3; v2 has NULL and GETATTR): the index
 * of a cheap procedure, or -1. */
static int cheap_index(const struct an_op *op)
{
	uint32_t vers = op->vers, proc = op->proc;

	if (vers == 4) {	/* its main op as v3's (ops.h) */
		proc = an_nfs_v3proc(op->prog, 4, proc);
		vers = 3;
	}
	if (proc == NFS3_NULL)
		return 0;
	if (proc == NFS3_GETATTR)		/* 1 in v2 and v3 */
		return 1;
	if (vers == 3 && proc == NFS3_ACCESS)
		return 2;
	if (vers == 3 && proc == NFS3_FSINFO)
		return 3;
	return -1;
}



static struct lat_view *view_of(struct subj *c, const struct cap_addr *srv)
{
	uint32_t k;

	if (c->nview && cap_addr_eq(&c->view[c->last_view].server, srv))
		return &c->view[c->last_view];
	for (k = 0; k < c->nview; k++)
		if (cap_addr_eq(&c->view[k].server, srv)) {
			c->last_view = k;
			return &c->view[k];
		}
	if (c->nview == LAT_VIEWS) {
		c->views_dropped++;
		return NULL;
	}
	memset(&c->view[c->nview], 0, sizeof(c->view[0]));
	c->view[c->nview].server = *srv;
	return &c->view[c->nview++];
}

/* Close the interval held in h (number k): keep its p99, op count and
 * each procedure's slowest op. */
static void ivl_close(struct an_find *f, struct lat *l, struct lat_ivl *h)
{
	struct lat_rec *r;

	if (h->lat.count == 0)
		return;
	if (l->nrec == l->caprec) {
		uint32_t cap = l->caprec ? l->caprec * 2 : 64;

		if (cap > LAT_RECS_MAX ||
		    (r = realloc(l->rec, cap * sizeof(*r))) == NULL) {
			l->rec_dropped++;
			hist_clear(&h->lat);
			return;
		}
		l->rec = r;
		l->caprec = cap;
	}
	r = &l->rec[l->nrec++];
	r->k = h->k;
	r->n = h->lat.count;
	r->p99 = hist_percentile(&h->lat, 99);
	memcpy(r->max_us, h->max_us, sizeof(r->max_us));
	hist_clear(&h->lat);
	memset(h->max_us, 0, sizeof(h->max_us));
	(void)f;
}

/* The interval of op number k: the current, the previous (late ops too),
 * or a new one (closing what it passes). */
static struct lat_ivl *ivl_of(struct an_find *f, struct lat *l, int64_t k)
{
	if (!l->started) {
		l->started = true;
		l->cur.k = k;
		l->prev.k = k - 1;
	}
	if (k > l->cur.k) {
		ivl_close(f, l, &l->prev);
		if (k > l->cur.k + 1) {
			ivl_close(f, l, &l->cur);
			l->cur.k = k - 1;
		}
		{
			struct lat_ivl t = l->prev;	/* empty: reuse chunks */

			l->prev = l->cur;
			l->cur = t;
			l->cur.k = k;
		}
	}
	return k == l->cur.k ? &l->cur : &l->prev;
}

/* The slot of op's connection in l (a new one, the oldest given up, if
 * none). */
static struct lat_conn *conn_of(struct lat *l, const struct an_op *op)
{
	struct lat_conn *c;
	uint32_t k;

	for (k = 0; k < LAT_CONNS; k++) {
		c = &l->conn[k];
		if (c->used && c->client_port == op->client_port_last &&
		    c->server_port == op->server_port &&
		    cap_addr_eq(&c->client, &op->client))
			return c;
	}
	c = &l->conn[l->conn_next++ % LAT_CONNS];
	memset(c, 0, sizeof(*c));
	c->used = true;
	c->client = op->client;
	c->client_port = op->client_port_last;
	c->server_port = op->server_port;
	return c;
}

/* How long op's reply took to end once the server was free to answer it
 * (struct lat free_n), ns: from its call's last segment, or from the end
 * of the reply before it on the connection when that came later (*ahead
 * set): the server was answering that one first.  To the reply's end, not
 * its first segment: the store keeps no first segments, and a report of
 * a database must say what one of the capture says.  Ops come in the
 * order their replies end. */
static int64_t free_wait(struct lat *l, const struct an_op *op, bool *ahead)
{
	struct lat_conn *c = conn_of(l, op);
	int64_t from = op->last_call_ns, end = op->reply_ns;

	*ahead = c->end_ns > from && c->end_ns <= end;
	if (end > from)
		l->wait_ns += (double)(end - from);
	if (*ahead) {
		l->queued_ns += (double)(c->end_ns - from);
		from = c->end_ns;
	}
	if (end > c->end_ns)
		c->end_ns = end;
	return end > from ? end - from : 0;
}

/* Count op's free wait in its procedure's row. */
static void free_add(struct an_find *f, struct lat *l, const struct an_op *op)
{
	int v = op->vers == 2;
	bool ahead;

	if ((op->vers != 2 && op->vers != 3) || op->proc >= LAT_PROCS)
		return;
	l->free_n[v][op->proc]++;
	l->free_over[v][op->proc] += free_wait(l, op, &ahead) >
				     (int64_t)f->cfg.slow_ms * 1000000;
}

void an_slow_add(struct an_find *f, struct subj *s, struct subj *client,
		 const struct an_op *op)
{
	struct lat *l = s->lat;
	int c = cheap_index(op);
	struct lat_ivl *h;
	uint64_t us;
	uint32_t p3;

	if (l == NULL) {
		if ((l = s->lat = calloc(1, sizeof(*l))) == NULL) {
			f->storms_lost++;
			return;
		}
		hist_init(&l->cur.lat);
		hist_init(&l->prev.lat);
	}
	free_add(f, l, op);
	if (c >= 0) {
		int64_t lim = (int64_t)f->cfg.slow_ms * 1000000;
		struct lat_view *v = client ? view_of(client, &op->server) : NULL;

		l->cheap_n[c]++;
		l->cheap_over[c] += op->lat_last_ns > lim;
		if (v != NULL) {
			v->n++;
			v->over += op->lat_first_ns > lim;
		}
	}
	if (op->first_call_ns < l->ivl_lo || op->first_call_ns >= l->ivl_hi) {
		int64_t w = (int64_t)f->cfg.shift_interval_s * NSEC_PER_SEC;

		l->ivl_k = op->first_call_ns / w;
		l->ivl_lo = l->ivl_k * w;
		l->ivl_hi = l->ivl_lo + w;
	}
	h = l->ivl_k == l->cur.k && l->started ? &l->cur : ivl_of(f, l, l->ivl_k);
	hist_add(&h->lat, (uint64_t)op->lat_last_ns);
	us = (uint64_t)op->lat_last_ns / 1000;
	p3 = op->vers == 4 ? an_nfs_v3proc(op->prog, 4, op->proc) : op->proc;
	if ((op->vers == 3 || op->vers == 4) && p3 < LAT_PROCS &&
	    us > h->max_us[p3])
		h->max_us[p3] = us > UINT32_MAX ? UINT32_MAX : (uint32_t)us;
}

void an_slow_free(struct subj *s)
{
	if (s->lat == NULL)
		return;
	hist_fini(&s->lat->cur.lat);
	hist_fini(&s->lat->prev.lat);
	free(s->lat->rec);
	free(s->lat);
	s->lat = NULL;
}

bool an_find_queued(const struct an_find *f, const struct cap_addr *server,
		    double *queued_pct, double *server_pct)
{
	uint32_t k;

	*queued_pct = *server_pct = -1;
	for (k = an_bit_next(f->subj_bits, AN_FIND_SUBJECTS, 0);
	     k < AN_FIND_SUBJECTS;
	     k = an_bit_next(f->subj_bits, AN_FIND_SUBJECTS, k + 1)) {
		const struct subj *s = &f->subj[k];
		const struct lat *l = s->lat;

		if (!s->used || !s->is_server || l == NULL || l->wait_ns <= 0 ||
		    !cap_addr_eq(&s->addr, server))
			continue;
		*queued_pct = 100.0 * l->queued_ns / l->wait_ns;
		*server_pct = 100.0 - *queued_pct;
		return true;
	}
	return false;
}

/* ------------------------------------------------------ slow server -- */

/* The nearest-rank median is above the limit: more than half over it. */
static bool median_over(uint64_t over, uint64_t n)
{
	return n > 0 && over > n / 2;
}

/* Client subject c's view of server srv, or NULL. */
static const struct lat_view *view_in(const struct subj *c,
				      const struct cap_addr *srv)
{
	uint32_t k;

	if (!c->used || c->is_server)
		return NULL;
	for (k = 0; k < c->nview; k++)
		if (cap_addr_eq(&c->view[k].server, srv))
			return &c->view[k];
	return NULL;
}

/* A procedure row of a server: its answered ops, median latency (from
 * the last transmission) and own time (that less the path's server part,
 * at least 0); cheap: needs no disk. */
struct split {
	const struct an_row *w;
	bool cheap, slow;
	int64_t p50_ns, own_ns;
};

/* 0: no; 1: cheap (needs no disk); 2: READ, WRITE or COMMIT. */
static int split_kind(const struct an_row *w)
{
	uint32_t vers = w->vers, proc = w->proc;

	if (w->prog != PROG_NFS || proc == AN_PROC_ALL)
		return 0;
	if (vers == 4) {	/* its main op as v3's (ops.h) */
		proc = an_nfs_v3proc(w->prog, 4, proc);
		vers = 3;
	}
	if (proc == NFS3_NULL || proc == NFS3_GETATTR ||
	    (vers == 3 && (proc == NFS3_ACCESS || proc == NFS3_FSINFO)))
		return 1;
	if (proc == NFS3_READ || (vers == 3 && (proc == NFS3_WRITE ||
	    proc == NFS3_COMMIT)) || (vers == 2 && proc == NFS2_WRITE))
		return 2;
	return 0;
}

/* The rows of server s worth splitting (at most max), srv_ns the path's
 * server part (< 0: unknown, 0 taken). */
static size_t splits_of(const struct an_figs *figs, const struct subj *s,
			int64_t srv_ns, struct split *out, size_t max)
{
	size_t n = 0;
	uint32_t k;

	for (k = 0; figs && k < an_figs_nrows(figs, AN_BY_SERVER) && n < max;
	     k++) {
		const struct an_row *w = an_figs_row(figs, AN_BY_SERVER, k);
		int c = split_kind(w);

		if (c == 0 || !cap_addr_eq(&w->addr, &s->addr) ||
		    w->lat_last.count == 0)
			continue;
		out[n].w = w;
		out[n].cheap = c == 1;
		out[n].slow = false;
		out[n].p50_ns = (int64_t)hist_percentile(&w->lat_last, 50);
		out[n].own_ns = out[n].p50_ns - (srv_ns > 0 ? srv_ns : 0);
		if (out[n].own_ns < 0)
			out[n].own_ns = 0;
		n++;
	}
	return n;
}

/* Did most replies of row w end within slow_ms once the server was free
 * to answer (struct lat free_n)?  Then its latency is queueing behind the
 * connection's other calls, not the server's time. */
static bool row_queued(const struct lat *l, const struct an_row *w)
{
	int v = w->vers == 2;

	if ((w->vers != 2 && w->vers != 3) || w->proc >= LAT_PROCS ||
	    l->free_n[v][w->proc] == 0)
		return false;
	return !median_over(l->free_over[v][w->proc], l->free_n[v][w->proc]);
}

/* Is row v[k] slow by its own time: over slow_ms, not queueing? */
static bool own_slow(const struct an_find *f, const struct lat *l,
		     const struct split *v)
{
	return v->own_ns > (int64_t)f->cfg.slow_ms * 1000000 &&
	       !row_queued(l, v->w);
}

/* Did most cheap ops (rows v) take the server over slow_ms of its own
 * time?  A single slow FSINFO among quick GETATTRs is not enough. */
static bool cheap_own_slow(const struct an_find *f, const struct lat *l,
			   const struct split *v, size_t n)
{
	uint64_t all = 0, slow = 0;
	size_t k;

	for (k = 0; k < n; k++) {
		if (!v[k].cheap)
			continue;
		all += v[k].w->lat_last.count;
		if (own_slow(f, l, &v[k]))
			slow += v[k].w->lat_last.count;
	}
	return all == 0 || median_over(slow, all);
}

static size_t split_evidence(const struct split *v, size_t n, char *b,
			     size_t m)
{
	size_t o = 0, k;

	for (k = 0; k < n && o < m; k++)
		o += (size_t)snprintf(b + o, m - o, "%s%s p50 %.3f ms, own "
				      "%.3f ms (%" PRIu64 ")", k ? ", " : "",
				      dec_proc_name(PROG_NFS, v[k].w->vers,
						    v[k].w->proc),
				      (double)v[k].p50_ns / 1e6,
				      (double)v[k].own_ns / 1e6,
				      v[k].w->lat_last.count);
	return o < m ? o : m - 1;
}

static const char *path_words(const struct an_path *pt, char *b, size_t n)
{
	if (pt->srv_ns < 0 && pt->cli_ns < 0)
		snprintf(b, n, "the path is not measured (no TCP ACK timing "
			 "or handshake)");
	else
		snprintf(b, n, "path round trip %.3f ms (%.3f ms on the "
			 "server's side of the capture point, %.3f ms on the "
			 "client's; from %u TCP %s)",
			 (double)((pt->srv_ns > 0 ? pt->srv_ns : 0) +
				  (pt->cli_ns > 0 ? pt->cli_ns : 0)) / 1e6,
			 (double)(pt->srv_ns > 0 ? pt->srv_ns : 0) / 1e6,
			 (double)(pt->cli_ns > 0 ? pt->cli_ns : 0) / 1e6,
			 pt->samples, pt->by_acks ? "ACK timings and "
			 "handshakes" : "handshakes");
	return b;
}

/* The path takes the time: its round trip is path_ms or more and at
 * least the server's own time for its busiest procedure. */
static void find_slow_path(struct an_find *f, const struct subj *s,
			   const struct an_path *pt, const struct split *v,
			   size_t n)
{
	int64_t path = (pt->srv_ns > 0 ? pt->srv_ns : 0) +
		       (pt->cli_ns > 0 ? pt->cli_ns : 0);
	uint64_t ops = 0, most = 0;
	int64_t own = 0;
	struct an_finding *o;
	char a[64], w[256];
	size_t k, m;

	for (k = 0; k < n; k++) {
		ops += v[k].w->lat_last.count;
		if (v[k].w->lat_last.count > most) {
			most = v[k].w->lat_last.count;
			own = v[k].own_ns;
		}
	}
	if (path < (int64_t)f->cfg.path_ms * 1000000 || path < own ||
	    ops < f->cfg.slow_min || (o = an_find_emit(f, AN_F_SLOW_PATH)) == NULL)
		return;
	o->have_server = true;
	o->server = s->addr;
	o->count = ops;
	o->cost_ns = (double)path * (double)ops;
	m = (size_t)snprintf(o->evidence, sizeof(o->evidence), "server %s: "
			     "%s, against the server's own time: ",
			     an_find_astr(&s->addr, a),
			     path_words(pt, w, sizeof(w)));
	if (m < sizeof(o->evidence))
		split_evidence(v, n, o->evidence + m, sizeof(o->evidence) - m);
}

/* The quickest RPC of server s (from the last transmission); 0: none. */
static int64_t rpc_min(const struct an_figs *figs, const struct subj *s)
{
	uint32_t k;

	for (k = 0; figs && k < an_figs_nrows(figs, AN_BY_SERVER); k++) {
		const struct an_row *w = an_figs_row(figs, AN_BY_SERVER, k);

		if (w->proc == AN_PROC_ALL && cap_addr_eq(&w->addr, &s->addr) &&
		    w->lat_last.count)
			return (int64_t)w->lat_last.min;
	}
	return 0;
}

static void find_slow_server(struct an_find *f, const struct an_figs *figs,
			     const struct subj *s)
{
	const struct lat *l = s->lat;
	uint64_t n = 0, over = 0;
	struct an_finding *o;
	struct an_path pt;
	struct split sp[16], slow[16];
	char a[64], c[64], w[256];
	size_t m, nv, ns = 0, j;
	uint32_t k, shown;
	int i;
	bool cheap_slow;

	for (i = 0; i < LAT_CHEAP; i++) {
		n += l->cheap_n[i];
		over += l->cheap_over[i];
	}
	if (!an_find_path(f, NULL, &s->addr, &pt))
		pt.srv_ns = pt.cli_ns = -1;
	an_path_clamp(&pt, rpc_min(figs, s));
	nv = splits_of(figs, s, pt.srv_ns, sp, 16);
	cheap_slow = n >= f->cfg.slow_min && median_over(over, n) &&
		     cheap_own_slow(f, l, sp, nv);
	for (j = 0; j < nv; j++) {
		bool many = sp[j].w->lat_last.count >= f->cfg.slow_min;

		sp[j].slow = own_slow(f, l, &sp[j]) &&
			    (sp[j].cheap ? cheap_slow : many);
		if (sp[j].slow)
			slow[ns++] = sp[j];
	}
	if (!figs && cheap_slow)	/* no rows: the old rule alone */
		ns = 1;
	if (ns > 0 && an_tcp_stall_explains(f, &s->addr))
		ns = 0;		/* replies wait 40 ms: tcp_stall */
	if (ns == 0)
		find_slow_path(f, s, &pt, sp, nv);
	if (ns > 0) {
		if ((o = an_find_emit(f, AN_F_SLOW_SERVER)) == NULL)
			return;
		o->have_server = true;
		o->server = s->addr;
		o->count = 0;
		for (j = 0; figs && j < ns; j++) {
			o->count += slow[j].w->lat_last.count;
			o->cost_ns += (double)slow[j].own_ns *
				      (double)slow[j].w->lat_last.count;
		}
		m = (size_t)snprintf(o->evidence, sizeof(o->evidence),
			"server %s: its own time (RPC latency from the last "
			"transmission less the path's part) above %u ms: ",
			an_find_astr(&s->addr, a), f->cfg.slow_ms);
		if (m < sizeof(o->evidence) && figs)
			m += split_evidence(slow, ns, o->evidence + m,
					    sizeof(o->evidence) - m);
		if (m < sizeof(o->evidence))
			m += (size_t)snprintf(o->evidence + m,
				sizeof(o->evidence) - m, "; %s; cheap ops (NULL, "
				"GETATTR, ACCESS, FSINFO) over %u ms: %" PRIu64
				" of %" PRIu64, path_words(&pt, w, sizeof(w)),
				f->cfg.slow_ms, over, n);
		for (k = an_bit_next(f->subj_bits, AN_FIND_SUBJECTS, 0),
		     shown = 0; k < AN_FIND_SUBJECTS &&
		     m < sizeof(o->evidence);
		     k = an_bit_next(f->subj_bits, AN_FIND_SUBJECTS, k + 1)) {
			const struct lat_view *vw = view_in(&f->subj[k], &s->addr);

			if (vw != NULL)
				m += (size_t)snprintf(o->evidence + m,
					sizeof(o->evidence) - m, "%s%s waits "
					"over %u ms for %" PRIu64 " of %" PRIu64,
					shown++ ? ", " : "; clients' view: ",
					an_find_astr(&f->subj[k].addr, c),
					f->cfg.slow_ms, vw->over, vw->n);
		}
		return;
	}
	/* the server is quick, but a client waits (retransmissions); not
	   when the path takes that long */
	if ((pt.srv_ns > 0 ? pt.srv_ns : 0) + (pt.cli_ns > 0 ? pt.cli_ns : 0) >=
	    (int64_t)f->cfg.slow_ms * 1000000)
		return;
	for (k = an_bit_next(f->subj_bits, AN_FIND_SUBJECTS, 0);
	     k < AN_FIND_SUBJECTS;
	     k = an_bit_next(f->subj_bits, AN_FIND_SUBJECTS, k + 1)) {
		const struct lat_view *v = view_in(&f->subj[k], &s->addr);

		if (v == NULL || v->n < f->cfg.slow_min ||
		    !median_over(v->over, v->n))
			continue;
		if ((o = an_find_emit(f, AN_F_SLOW_SERVER)) == NULL)
			return;
		o->have_server = o->have_client = true;
		o->server = s->addr;
		o->client = f->subj[k].addr;
		o->count = v->over;
		snprintf(o->evidence, sizeof(o->evidence),
			 "%s waits over %u ms (from its first transmission) for "
			 "%" PRIu64 " of %" PRIu64 " cheap ops (NULL, GETATTR, "
			 "ACCESS, FSINFO) to server %s, which took that long "
			 "for %" PRIu64 " of %" PRIu64 " of everyone's",
			 an_find_astr(&f->subj[k].addr, c), f->cfg.slow_ms, v->over,
			 v->n, an_find_astr(&s->addr, a), over, n);
	}
}

/* ---------------------------------------------------- latency shift -- */

static int u64_cmp(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* The baseline: the median of the intervals' p99 (intervals with
 * shift_min_ops ops), 0 if fewer than 3 such intervals. */
static uint64_t shift_baseline(const struct an_find *f, const struct lat *l)
{
	uint64_t *v, b = 0;
	uint32_t k, n = 0;

	if (l->nrec < 3 || (v = malloc(l->nrec * sizeof(*v))) == NULL)
		return 0;
	for (k = 0; k < l->nrec; k++)
		if (l->rec[k].n >= f->cfg.shift_min_ops)
			v[n++] = l->rec[k].p99;
	if (n >= 3) {
		qsort(v, n, sizeof(*v), u64_cmp);
		b = v[(n + 1) / 2 - 1];
	}
	free(v);
	return b;
}

static bool shifted(const struct an_find *f, const struct lat_rec *r,
		    uint64_t base)
{
	return r->n >= f->cfg.shift_min_ops &&
	       (double)r->p99 >= f->cfg.shift_factor * (double)base &&
	       r->p99 >= (uint64_t)f->cfg.shift_min_ms * 1000000;
}

static size_t rec_evidence(const struct an_find *f, const struct lat_rec *r,
			   uint64_t base, char *b, size_t n)
{
	int64_t w = (int64_t)f->cfg.shift_interval_s;
	size_t o;
	uint32_t p, shown = 0;

	o = (size_t)snprintf(b, n, "; %" PRId64 " s: p99 %.3f ms over %" PRIu64
			     " ops", r->k * w, (double)r->p99 / 1e6, r->n);
	for (p = 0; p < LAT_PROCS && o < n && shown < 4; p++) {
		if ((double)r->max_us[p] * 1000 < f->cfg.shift_factor * (double)base)
			continue;
		o += (size_t)snprintf(b + o, n - o, "%s%s up to %.3f ms",
				      shown++ ? ", " : " (", dec_proc_name(
				      PROG_NFS, 3, p), (double)r->max_us[p] / 1e3);
	}
	if (shown && o < n)
		o += (size_t)snprintf(b + o, n - o, ")");
	return o < n ? o : n - 1;
}

static void shift_emit(struct an_find *f, const struct subj *s, uint64_t base,
		       uint32_t k0, uint32_t k1)
{
	const struct lat *l = s->lat;
	int64_t w = (int64_t)f->cfg.shift_interval_s * NSEC_PER_SEC;
	struct an_finding *o = an_find_emit(f, AN_F_LATENCY_SHIFT);
	uint64_t n = 0;
	char a[64];
	size_t m;
	uint32_t k;

	if (o == NULL)
		return;
	for (k = k0; k <= k1; k++)
		n += l->rec[k].n;
	o->have_server = true;
	o->server = s->addr;
	o->start_ns = l->rec[k0].k * w;
	o->end_ns = (l->rec[k1].k + 1) * w;
	o->count = n;
	m = (size_t)snprintf(o->evidence, sizeof(o->evidence),
		"server %s: %u interval%s of %u s with p99 >= %g x the run's "
		"baseline p99 %.3f ms (the median of %u intervals' p99; server "
		"time)", an_find_astr(&s->addr, a), k1 - k0 + 1,
		k1 > k0 ? "s" : "", f->cfg.shift_interval_s, f->cfg.shift_factor,
		(double)base / 1e6, l->nrec);
	for (k = k0; k <= k1 && k < k0 + 4 && m < sizeof(o->evidence); k++)
		m += rec_evidence(f, &l->rec[k], base, o->evidence + m,
				  sizeof(o->evidence) - m);
}

static void find_shift(struct an_find *f, const struct subj *s)
{
	const struct lat *l = s->lat;
	uint64_t base = shift_baseline(f, l);
	uint32_t k, k0 = 0;
	bool in = false;

	if (base == 0)
		return;
	for (k = 0; k < l->nrec; k++) {
		bool sh = shifted(f, &l->rec[k], base);

		if (sh && in && l->rec[k].k == l->rec[k - 1].k + 1)
			continue;
		if (in)
			shift_emit(f, s, base, k0, k - 1);
		in = sh;
		k0 = k;
	}
	if (in)
		shift_emit(f, s, base, k0, l->nrec - 1);
}

void an_slow_finish(struct an_find *f, const struct an_figs *figs)
{
	uint32_t k;

	for (k = an_bit_next(f->subj_bits, AN_FIND_SUBJECTS, 0);
	     k < AN_FIND_SUBJECTS;
	     k = an_bit_next(f->subj_bits, AN_FIND_SUBJECTS, k + 1)) {
		struct subj *s = &f->subj[k];

		if (!s->used || !s->is_server || s->lat == NULL)
			continue;
		if (s->lat->prev.k < s->lat->cur.k)
			ivl_close(f, s->lat, &s->lat->prev);
		ivl_close(f, s->lat, &s->lat->cur);
		find_slow_server(f, figs, s);
		find_shift(f, s);
	}
}
