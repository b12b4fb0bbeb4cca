/* top_view.c - aggregate the dashboard's time window; see top.h. */
#include "ui/top/top.h"
#include "base/units.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ----------------------------------------------------------- filters -- */

/* Per-table match marks: addr_ok bit 0 client, 1 server, 2 any;
 * path_ok bit 0 path, bit 1 any; proc_ok bit 0 op, bit 1 any. */
static void filter_prepare(struct tm_view *v, const struct tm_model *m,
			   const struct an_filter *f)
{
	uint32_t k;

	for (k = 0; k < m->naddrs; k++) {
		const struct cap_addr *a = &m->addrs[k];
		const char *s = m->addr_str[k];

		/* index 0: the addresses past the table, by its name */
		v->addr_ok[k] = (uint8_t)((k ? an_filter_addr(f, AN_FK_CLIENT, a) :
			an_filter_addr_name(f, AN_FK_CLIENT, s)) |
			(k ? an_filter_addr(f, AN_FK_SERVER, a) :
			an_filter_addr_name(f, AN_FK_SERVER, s)) << 1 |
			an_filter_word(f, s) << 2);
	}
	for (k = 0; k < m->npaths; k++) {
		const char *p = m->paths[k] ? m->paths[k] : "";

		v->path_ok[k] = (uint8_t)(an_filter_path(f, p) |
			an_filter_word(f, p) << 1);
	}
	for (k = 0; k < m->nprocs; k++)
		v->proc_ok[k] = (uint8_t)(an_filter_proc(f, m->procs[k].prog,
							 m->procs[k].vers,
							 m->procs[k].proc) |
			an_filter_word(f, m->procs[k].name) << 1);
}

static bool rec_match(const struct tm_view *v, const struct an_filter *f,
		      const struct an_win_rec *r)
{
	uint8_t c = v->addr_ok[r->client], s = v->addr_ok[r->server];

	if (!(c & 1) || !(s & 2) || !(v->path_ok[r->path] & 1) ||
	    !(v->proc_ok[r->proc] & 1))
		return false;
	if (f->word[0] && !(c & 4) && !(s & 4) && !(v->path_ok[r->path] & 2) &&
	    !(v->proc_ok[r->proc] & 2))
		return false;
	return true;
}

/* ------------------------------------------------------------- rows -- */

int tm_view_init(struct tm_view *v)
{
	int g;

	memset(v, 0, sizeof(*v));
	v->bucket_lat = calloc(TM_SERIES, sizeof(*v->bucket_lat));
	v->addr_ok = calloc(TM_ADDRS_MAX, 1);
	v->path_ok = calloc(TM_PATHS_MAX, 1);
	if (!v->bucket_lat || !v->addr_ok || !v->path_ok)
		return -1;
	for (g = 0; g < 3; g++) {
		v->map[g] = calloc(TM_ADDRS_MAX, sizeof(uint32_t));
		v->gen[g] = calloc(TM_ADDRS_MAX, sizeof(uint32_t));
		if (!v->map[g] || !v->gen[g])
			return -1;
	}
	return 0;
}

void tm_view_fini(struct tm_view *v)
{
	uint32_t k;
	int g;

	for (g = 0; g < 3; g++) {
		for (k = 0; k < v->rows_cap[g]; k++)
			hist_fini(&v->rows[g][k].lat);
		free(v->rows[g]);
		free(v->map[g]);
		free(v->gen[g]);
	}
	if (v->bucket_lat)
		for (k = 0; k < TM_SERIES; k++)
			hist_fini(&v->bucket_lat[k]);
	hist_fini(&v->sel_lat);
	free(v->bucket_lat);
	free(v->addr_ok);
	free(v->path_ok);
	free(v->findings);
	memset(v, 0, sizeof(*v));
}

/* The row of key in group g (0 procs, 1 clients, 2 servers). */
static struct tm_row *row_get(struct tm_view *v, int g, uint32_t key,
			      const char *name)
{
	struct tm_row *r;

	if (v->gen[g][key] == v->gen_now)
		return &v->rows[g][v->map[g][key]];
	if (v->nrows[g] == v->rows_cap[g]) {
		uint32_t nc = v->rows_cap[g] ? 2 * v->rows_cap[g] : 64;
		struct tm_row *nr = realloc(v->rows[g], nc * sizeof(*nr));

		if (nr == NULL)
			return NULL;
		memset(nr + v->rows_cap[g], 0,
		       (nc - v->rows_cap[g]) * sizeof(*nr));
		v->rows[g] = nr;
		v->rows_cap[g] = nc;
	}
	r = &v->rows[g][v->nrows[g]];
	{
		struct hist keep = r->lat;

		memset(r, 0, sizeof(*r));
		r->lat = keep;
		hist_clear(&r->lat);
	}
	r->key = key;
	snprintf(r->name, sizeof(r->name), "%s", name);
	v->gen[g][key] = v->gen_now;
	v->map[g][key] = v->nrows[g]++;
	return r;
}

/* A record into a row: the accumulator's rule (an_sums_add). */
static void row_add(struct tm_row *w, const struct an_win_rec *r)
{
	struct an_opsum x = an_win_opsum(r);

	an_sums_add(&w->s, &w->lat, &x);
	if (r->flags & AN_WR_READ)
		an_win_dir_add(&w->reads, &w->rbytes, &w->rsizes, r);
	if (r->flags & AN_WR_WRITE)
		an_win_dir_add(&w->writes, &w->wbytes, &w->wsizes, r);
}

/* A row's dominant sizes, once its records are in. */
static void row_sizes(struct tm_row *w)
{
	w->rsize = an_sizes_dominant(&w->rsizes, &w->rsize_n);
	w->rsize_max = w->rsizes.max;
	w->wsize = an_sizes_dominant(&w->wsizes, &w->wsize_n);
	w->wsize_max = w->wsizes.max;
}

static int size_cmp(const void *x, const void *y)
{
	const struct an_size_count *a = x, *b = y;

	if (a->n != b->n)
		return a->n < b->n ? 1 : -1;
	return a->size < b->size ? -1 : a->size > b->size;
}

/* The window's sizes, most used first: the first TM_SIZES shown, the
 * rest in *other. */
static void sizes_shown(struct an_sizes *all, struct tm_size_count *out,
			uint32_t *n, uint64_t *other)
{
	uint32_t k;

	qsort(all->s, all->nsizes, sizeof(all->s[0]), size_cmp);
	*other = all->other;
	*n = 0;
	for (k = 0; k < all->nsizes; k++) {
		if (*n == TM_SIZES) {
			*other += all->s[k].n;
			continue;
		}
		out[*n].size = all->s[k].size;
		out[(*n)++].n = all->s[k].n;
	}
}

/* -------------------------------------------------------- the window -- */

static bool sel_match(const struct tm_query *q, const struct an_win_rec *r)
{
	switch (q->sel_group) {
	case 0: return r->proc == q->sel_key;
	case 1: return r->client == q->sel_key;
	case 2: return r->server == q->sel_key;
	default: return true;
	}
}

static void window(struct tm_view *v, const struct tm_model *m,
		   const struct tm_query *q)
{
	an_window_span(m->first_ns, m->clock_ns, v->done, q->width_ns,
		       q->end_ns, &v->from_ns, &v->to_ns);
	v->secs = (double)(v->to_ns - v->from_ns) / 1e9;
	if (v->secs <= 0)
		v->secs = 1;
}

static void series_prepare(struct tm_view *v, const struct tm_query *q)
{
	uint32_t k, nb = q->buckets > 0 ? (uint32_t)q->buckets : 60;

	if (nb > TM_SERIES)
		nb = TM_SERIES;
	an_window_buckets(v->from_ns, v->to_ns, nb, &v->bucket_ns,
			  &v->series_base, &v->nseries);
	for (k = 0; k < v->nseries; k++) {
		memset(&v->series[k], 0, sizeof(v->series[k]));
		v->series[k].start_ns = v->series_base + (int64_t)k * v->bucket_ns;
		hist_clear(&v->bucket_lat[k]);
	}
	hist_clear(&v->sel_lat);
}

/*
 * Lost fragment trains in the second their first fragment was seen (a
 * train is known lost only at its timeout, often seconds later, or at the
 * end of the input): a second counts where it overlaps the window.
 */
static void series_lost(struct tm_view *v, const struct tm_model *m)
{
	uint32_t k, b;

	v->frag_lost = 0;
	for (k = 0; k < v->nseries; k++)
		v->series[k].frag_lost = 0;
	for (k = 0; k < AN_WIN_TICKS; k++) {
		const struct an_win_lost *x = &m->win.lost[k];
		int64_t t = x->sec * NSEC_PER_SEC;

		if (x->n == 0 || t + NSEC_PER_SEC <= v->from_ns || t >= v->to_ns)
			continue;
		v->frag_lost += x->n;
		b = an_window_bucket(t, v->bucket_ns, v->series_base,
				     v->nseries);
		v->series[b].frag_lost += x->n;
	}
}

static void series_ticks(struct tm_view *v, const struct tm_model *m)
{
	const struct an_win_tick *a = an_window_tick_at(&m->win, v->from_ns,
							false), *b;
	uint32_t k;

	b = an_window_tick_at(&m->win, v->to_ns - 1, true);
	v->pkts_s = (double)(b->packets - a->packets) / v->secs;
	v->drops = b->drops - a->drops;
	v->ifdrops = b->ifdrops - a->ifdrops;
	v->frag_lost = b->frag_lost - a->frag_lost;
	v->tcp_gaps = b->tcp_gaps - a->tcp_gaps;
	for (k = 0; k < v->nseries; k++) {
		struct tm_bucket *s = &v->series[k];
		int64_t end = s->start_ns + v->bucket_ns;

		a = an_window_tick_at(&m->win, s->start_ns, false);
		b = an_window_tick_at(&m->win, (end < v->to_ns ? end :
						 v->to_ns) - 1, true);
		s->frag_lost = b->frag_lost - a->frag_lost;
		s->tcp_gaps = b->tcp_gaps - a->tcp_gaps;
		s->drops = (b->drops - a->drops) + (b->ifdrops - a->ifdrops);
	}
	if (m->win.timed_lost)
		series_lost(v, m);
}

/*
 * Scan the history (an_window_scan) with m->mu held, letting it go every
 * SCAN_CHUNK records so the worker never waits long.  Records appended
 * after the start are not in this view (the window was fixed before).
 */
#define SCAN_CHUNK 65536

struct scan_ctx {
	struct tm_view *v;
	const struct tm_model *m;
	const struct tm_query *q;
	uint64_t rb, wb;		/* READ/WRITE data bytes */
};

/* One record of the window: its rows, the window's sums and series (the
 * accumulator's rule), its sizes, retransmit causes and the selection's
 * latency. */
static void scan_rec(void *user, const struct an_win_rec *r)
{
	struct scan_ctx *c = user;
	struct tm_view *v = c->v;
	const struct tm_model *m = c->m;
	struct an_opsum x;
	struct tm_row *w;
	uint32_t b;

	if (!rec_match(v, &c->q->filt, r))
		return;
	x = an_win_opsum(r);
	an_sums_add(&v->sum, NULL, &x);
	b = an_window_bucket(r->ts_ns, v->bucket_ns, v->series_base,
			     v->nseries);
	an_sums_add(&v->series[b].s, NULL, &x);
	if ((w = row_get(v, 0, r->proc, m->procs[r->proc].name)))
		row_add(w, r);
	if ((w = row_get(v, 1, r->client, m->addr_str[r->client])))
		row_add(w, r);
	if ((w = row_get(v, 2, r->server, m->addr_str[r->server])))
		row_add(w, r);
	if (r->flags & AN_WR_READ)
		an_win_dir_add(&v->nreads, &c->rb, &v->rs, r);
	if (r->flags & AN_WR_WRITE)
		an_win_dir_add(&v->nwrites, &c->wb, &v->ws, r);
	if (r->retrans && r->cause < AN_RX_NCAUSES)
		v->causes[r->cause]++;
	if ((r->flags & AN_WR_ANSWERED) && sel_match(c->q, r)) {
		hist_add(&v->bucket_lat[b], (uint64_t)r->lat_ns);
		hist_add(&v->sel_lat, (uint64_t)r->lat_ns);
	}
}

static void scan(struct tm_view *v, struct tm_model *m,
		 const struct tm_query *q)
{
	struct scan_ctx c = { v, m, q, 0, 0 };
	uint64_t pos = m->win.n, k;
	enum an_scan st;
	int g;

	memset(&v->sum, 0, sizeof(v->sum));
	memset(&v->rs, 0, sizeof(v->rs));
	memset(&v->ws, 0, sizeof(v->ws));
	v->cut = an_window_cut(&m->win, v->from_ns);
	while ((st = an_window_scan(&m->win, v->from_ns, v->to_ns, &pos,
				    SCAN_CHUNK, scan_rec, &c)) == AN_SCAN_MORE) {
		pthread_mutex_unlock(&m->mu);
		pthread_mutex_lock(&m->mu);
	}
	if (st == AN_SCAN_CUT)
		v->cut = true;
	v->ops = v->sum.calls;
	v->retrans = v->sum.retrans;
	v->retrans_ops = v->sum.retrans_ops;
	v->dups = v->sum.dup_replies;
	v->unanswered = v->sum.unanswered;
	v->ops_s = an_rate(v->ops, v->from_ns, v->to_ns);
	v->rmb_s = an_rate(c.rb, v->from_ns, v->to_ns) / 1e6;
	v->wmb_s = an_rate(c.wb, v->from_ns, v->to_ns) / 1e6;
	for (g = 0; g < 3; g++)
		for (k = 0; k < v->nrows[g]; k++)
			row_sizes(&v->rows[g][k]);
	v->nclients = v->nrows[1];
	v->nservers = v->nrows[2];
	v->total_calls = v->ops;
	for (k = 0; k < v->nseries; k++) {
		struct tm_bucket *s = &v->series[k];

		s->lat_n = v->bucket_lat[k].count;
		s->p50 = hist_percentile(&v->bucket_lat[k], 50);
		s->p99 = hist_percentile(&v->bucket_lat[k], 99);
		s->max = v->bucket_lat[k].max;
	}
	sizes_shown(&v->rs, v->rsizes, &v->nrsizes, &v->rsizes_other);
	sizes_shown(&v->ws, v->wsizes, &v->nwsizes, &v->wsizes_other);
}

/* ---------------------------------------------------------- findings -- */

static bool finding_match(const struct an_filter *f, const struct an_finding *x)
{
	if (f->n_client && (!x->have_client ||
			    !an_filter_addr(f, AN_FK_CLIENT, &x->client)))
		return false;
	if (f->n_server && (!x->have_server ||
			    !an_filter_addr(f, AN_FK_SERVER, &x->server)))
		return false;
	if (!an_filter_path(f, x->path))
		return false;
	if (f->word[0] && !an_filter_word(f, x->evidence))
		return false;
	return true;
}

static int finding_cmp(const void *x, const void *y)
{
	const struct an_finding *a = x, *b = y;

	if (a->end_ns != b->end_ns)
		return a->end_ns < b->end_ns ? 1 : -1;
	return a->start_ns < b->start_ns ? 1 : a->start_ns > b->start_ns ? -1 : 0;
}

static void findings(struct tm_view *v, const struct tm_model *m,
		     const struct an_filter *f)
{
	size_t n = an_find_count(m->find), k, need = n + TM_ONGOING_MAX;
	uint32_t i;

	if (need > v->findings_cap) {
		struct an_finding *nf = realloc(v->findings, need * sizeof(*nf));

		if (nf == NULL)
			return;
		v->findings = nf;
		v->findings_cap = (uint32_t)need;
	}
	v->nfindings = 0;
	for (k = 0; k < n; k++) {
		const struct an_finding *x = an_find_get(m->find, k);

		if (finding_match(f, x))
			v->findings[v->nfindings++] = *x;
	}
	/* storms still going on: shown with their end so far */
	n = an_find_ongoing(m->find, v->findings + v->nfindings, TM_ONGOING_MAX);
	v->nongoing = 0;
	for (k = 0; k < n; k++) {
		struct an_finding *x = &v->findings[v->nfindings + k];

		if (!finding_match(f, x))
			continue;
		v->findings[v->nfindings + v->nongoing++] = *x;
	}
	v->nfindings += v->nongoing;
	qsort(v->findings, v->nfindings, sizeof(v->findings[0]), finding_cmp);
	/* per client: findings that name it */
	for (k = 0; k < v->nfindings; k++) {
		const struct an_finding *x = &v->findings[k];

		if (!x->have_client)
			continue;
		for (i = 0; i < v->nrows[1]; i++)
			if (cap_addr_eq(&m->addrs[v->rows[1][i].key], &x->client))
				v->rows[1][i].findings++;
	}
}

/* ------------------------------------------------- sizes and servers -- */

static void sizes(struct tm_view *v, const struct tm_model *m,
		  const struct an_filter *f)
{
	uint32_t k, np = an_figs_npairs(m->figs), ns = an_figs_nservers(m->figs);
	char a[48], b[48];

	v->nverdicts = 0;
	for (k = 0; k < np && v->nverdicts < TM_VERDICTS; k++) {
		const struct an_pair *p = an_figs_pair(m->figs, k);
		const struct an_server *s = an_figs_server_find(m->figs, &p->server);
		char line[256];
		int w;

		cap_addr_str(&p->client, a, sizeof(a));
		cap_addr_str(&p->server, b, sizeof(b));
		if (!an_filter_addr(f, AN_FK_CLIENT, &p->client) ||
		    !an_filter_addr(f, AN_FK_SERVER, &p->server))
			continue;
		for (w = 0; w < 2 && v->nverdicts < TM_VERDICTS; w++) {
			if ((w ? p->writes : p->reads) == 0)
				continue;
			an_size_verdict(p, s, w == 1, AN_SIZE_SHARE_DEFAULT, line,
				       sizeof(line));
			snprintf(v->verdict[v->nverdicts++], sizeof(v->verdict[0]),
				 "%s -> %s  %s", a, b, line);
		}
	}
	v->nfsinfo = 0;
	for (k = 0; k < ns && v->nfsinfo < TM_VERDICTS; k++) {
		const struct an_server *s = an_figs_server(m->figs, k);
		char *o = v->fsinfo[v->nfsinfo];
		size_t n = sizeof(v->fsinfo[0]);

		cap_addr_str(&s->addr, b, sizeof(b));
		if (!an_filter_addr(f, AN_FK_SERVER, &s->addr))
			continue;
		if (s->have_fsinfo)
			snprintf(o, n, "%s FSINFO rtmax %u rtpref %u wtmax %u "
				 "wtpref %u dtpref %u%s", b, s->rtmax, s->rtpref,
				 s->wtmax, s->wtpref, s->dtpref,
				 s->have_statfs ? "" : "");
		else if (s->have_statfs)
			snprintf(o, n, "%s STATFS (v2) tsize %u", b, s->tsize);
		else
			continue;
		v->nfsinfo++;
	}
}

void tm_view_build(struct tm_view *v, struct tm_model *m,
		   const struct tm_query *q)
{
	int g;

	pthread_mutex_lock(&m->mu);
	v->gen_now++;
	if (v->gen_now == 0) {	/* wrapped: forget every stamp */
		for (g = 0; g < 3; g++)
			memset(v->gen[g], 0, TM_ADDRS_MAX * sizeof(uint32_t));
		v->gen_now = 1;
	}
	for (g = 0; g < 3; g++)
		v->nrows[g] = 0;
	v->ops = v->nreads = v->nwrites = 0;
	v->nrsizes = v->nwsizes = 0;
	v->rsizes_other = v->wsizes_other = 0;
	v->retrans = v->retrans_ops = v->dups = v->unanswered = 0;
	memset(v->causes, 0, sizeof(v->causes));
	v->cut = false;
	/* taken once, before the window and the scan (which lets the lock
	   go every SCAN_CHUNK records): a view says "end of input" only if
	   its window and counts are those of the ended input */
	v->done = m->done;
	window(v, m, q);
	series_prepare(v, q);
	filter_prepare(v, m, &q->filt);
	series_ticks(v, m);
	scan(v, m, q);
	findings(v, m, &q->filt);
	sizes(v, m, &q->filt);
	v->sel_name[0] = '\0';
	if (q->sel_group == 0 && q->sel_key < m->nprocs)
		snprintf(v->sel_name, sizeof(v->sel_name), "%s",
			 m->procs[q->sel_key].name);
	else if ((q->sel_group == 1 || q->sel_group == 2) &&
		 q->sel_key < m->naddrs)
		snprintf(v->sel_name, sizeof(v->sel_name), "%s %s",
			 q->sel_group == 1 ? "client" : "server",
			 m->addr_str[q->sel_key]);
	v->clock_ns = m->clock_ns;
	v->first_ns = m->first_ns;
	v->cs = m->cs;
	v->ds = m->ds;
	v->es = m->es;
	v->keys_dropped = m->keys_dropped;
	v->history = m->win.cap;
	v->history_n = m->win.n;
	v->mode = m->mode;
	snprintf(v->source, sizeof(v->source), "%s", m->source);
	v->speed = m->speed;
	v->failed = m->failed;
	v->input_cut = m->input_cut;
	snprintf(v->err, sizeof(v->err), "%s", m->err);
	snprintf(v->run_state, sizeof(v->run_state), "%s", m->run_state);
	snprintf(v->note, sizeof(v->note), "%s", m->note);
	pthread_mutex_unlock(&m->mu);
}
