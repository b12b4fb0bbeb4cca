/* model.c - the report model: every figure once; see model.h. */
#include "analyze/model.h"
#include "base/hash.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const an_model_group_names[AN_BY_N] = {
	"op", "client", "server", "export", "file" };

double an_mean_ms(double sum_ns, uint64_t n)
{
	return n ? sum_ns / (double)n / 1e6 : 0;
}

void an_lat_of(const struct hist *h, struct an_lat *l)
{
	l->count = h->count;
	l->min_ns = h->min;
	l->max_ns = h->max;
	l->sum_ns = h->sum;
	l->min_ms = an_ms(h->min);
	l->avg_ms = hist_mean(h) / 1e6;
	l->max_ms = an_ms(h->max);
	l->p50_ms = an_ms(hist_percentile(h, 50));
	l->p90_ms = an_ms(hist_percentile(h, 90));
	l->p95_ms = an_ms(hist_percentile(h, 95));
	l->p99_ms = an_ms(hist_percentile(h, 99));
	l->p99_9_ms = an_ms(hist_percentile(h, 99.9));
}

void an_model_row_of(const struct an_row *w, double d, struct an_model_row *o)
{
	o->row = w;
	o->ops_per_s = an_per_s(w->calls, d);
	o->bytes_per_s = an_per_s(w->bytes, d);
	/* nfsiostat's: READ/WRITE data per op and per second, retransmitted
	   calls per call */
	o->has_data = w->data_bytes != 0;
	o->data_kib_per_op = w->calls ? (double)w->data_bytes / 1024 /
				 (double)w->calls : 0.0;
	o->data_kib_per_s = d > 0 ? (double)w->data_bytes / 1024 / d : 0.0;
	o->retrans_pct = w->calls ? 100.0 * (double)w->retrans /
			 (double)w->calls : 0.0;
	an_lat_of(&w->lat, &o->lat);
	an_lat_of(&w->lat_last, &o->lat_last);
	an_lat_of(&w->ivl, &o->ivl);
}

/* ------------------------------------------------------------- names -- */

const char *an_model_proc_name(uint32_t prog, uint32_t vers, uint32_t proc,
			       char *buf, size_t n)
{
	const char *p = dec_prog_name(prog), *q;

	if (proc == AN_PROC_ALL)
		return "(all)";
	q = dec_proc_name(prog, vers, proc);
	if (p && q)
		snprintf(buf, n, "%sv%u %s", p, vers, q);
	else if (p)
		snprintf(buf, n, "%sv%u proc%u", p, vers, proc);
	else
		snprintf(buf, n, "%u v%u proc%u", prog, vers, proc);
	return buf;
}

const char *an_model_status_name(const struct an_row *row, uint32_t status,
				 char *buf, size_t n)
{
	const char *s = NULL;

	if (row->prog == PROG_NFS)
		s = nfs_stat_name(row->vers, status);
	else if (row->prog == PROG_MOUNT)
		s = mnt_stat_name(row->vers, status);
	else if (row->prog == PROG_NLM)
		s = nlm_stat_name(row->vers, status);
	if (s == NULL) {
		snprintf(buf, n, "status_%u", status);
		return buf;
	}
	return s;
}

const char *an_model_row_key(const struct an_model *m,
			     const struct an_row *row, char *buf, size_t n)
{
	char a[64];
	const struct an_export *e;
	uint32_t h = BASE_FNV32_INIT, i;

	switch (row->group) {
	case AN_BY_CLIENT:
	case AN_BY_SERVER:
		return cap_addr_str(&row->addr, buf, n);
	case AN_BY_EXPORT:
		e = an_names_export_get(m->in.names, row->export_id);
		snprintf(buf, n, "%s:%s", cap_addr_str(&row->addr, a, sizeof(a)),
			 e ? e->path : "(export unknown)");
		return buf;
	case AN_BY_FILE:
		for (i = 0; i < row->fh.len; i++)
			h = (h ^ row->fh.data[i]) * BASE_FNV32_PRIME;
		snprintf(buf, n, "%s:%s%sfh=%08x",
			 cap_addr_str(&row->addr, a, sizeof(a)), row->path,
			 row->path[0] ? " " : "", h);
		return buf;
	default:
		return "";
	}
}

/* -------------------------------------------------------------- rows -- */

static int row_cmp(const void *x, const void *y)
{
	const struct an_row *a = *(const struct an_row *const *)x;
	const struct an_row *b = *(const struct an_row *const *)y;
	int c;

	if (a->group != AN_BY_OP && a->group != AN_BY_FILE) {
		/* group key first (by the key's total), totals row first */
		c = memcmp(&a->addr, &b->addr, sizeof(a->addr));
		if (c)
			return c;
		if (a->export_id != b->export_id)
			return a->export_id < b->export_id ? -1 : 1;
		if (a->proc != b->proc) {
			if (a->proc == AN_PROC_ALL)
				return -1;
			if (b->proc == AN_PROC_ALL)
				return 1;
		}
	}
	if (a->group == AN_BY_FILE && a->calls != b->calls)
		return a->calls < b->calls ? 1 : -1;
	if (a->prog != b->prog)
		return a->prog < b->prog ? -1 : 1;
	if (a->vers != b->vers)
		return a->vers < b->vers ? -1 : 1;
	return a->proc < b->proc ? -1 : a->proc > b->proc;
}

static int build_rows(struct an_model *m, enum an_group g)
{
	uint32_t k, cnt = an_figs_nrows(m->in.figs, g);
	const struct an_row **v = malloc((cnt ? cnt : 1) * sizeof(*v));

	if (v == NULL)
		return -1;
	for (k = 0; k < cnt; k++)
		v[k] = an_figs_row(m->in.figs, g, k);
	qsort(v, cnt, sizeof(*v), row_cmp);
	if (g == AN_BY_FILE && cnt > m->in.top)
		cnt = m->in.top;
	m->rows[g] = calloc(cnt ? cnt : 1, sizeof(*m->rows[g]));
	if (m->rows[g] == NULL) {
		free(v);
		return -1;
	}
	for (k = 0; k < cnt; k++)
		an_model_row_of(v[k], m->duration_s, &m->rows[g][k]);
	m->nrows[g] = cnt;
	free(v);
	return 0;
}

/* ------------------------------------------------- pairs and servers -- */

static void build_pair(struct an_model *m, const struct an_pair *p,
		       struct an_model_pair *o)
{
	const struct an_vantage_info *v = &o->vantage;

	o->pair = p;
	o->server = an_figs_server_find(m->in.figs, &p->server);
	o->commits_per_write = p->writes ? (double)p->commits /
			       (double)p->writes : 0.0;
	o->has_read_verdict = p->read.total || p->read_rep.total;
	if (o->has_read_verdict)
		o->read_capped = an_size_verdict(p, o->server, false,
			m->in.size_share, o->read_verdict,
			sizeof(o->read_verdict));
	o->has_write_verdict = p->write.total || p->write_rep.total;
	if (o->has_write_verdict)
		o->write_capped = an_size_verdict(p, o->server, true,
			m->in.size_share, o->write_verdict,
			sizeof(o->write_verdict));
	o->has_vantage = an_find_vantage(m->in.find, &p->client, &p->server,
					 &o->vantage);
	if (!o->has_vantage)
		return;
	an_vantage_evidence(v, o->vantage_text, sizeof(o->vantage_text));
	o->vantage_by = v->by_acks ? "tcp_acks" : v->by_handshake ?
			"tcp_handshakes" : "udp_resends";
	o->syn_synack_min_ms = (double)v->syn_min_ns / 1e6;
	o->synack_ack_min_ms = (double)v->ack_min_ns / 1e6;
	o->server_ack_min_ms = (double)v->srv_ack_min_ns / 1e6;
	o->client_ack_min_ms = (double)v->cli_ack_min_ns / 1e6;
}

/* The server's NFSv3 COMMIT row (by server), whichever rows were built. */
static const struct an_row *commit_row(const struct an_model *m,
				       const struct cap_addr *a)
{
	uint32_t k;

	for (k = 0; k < an_figs_nrows(m->in.figs, AN_BY_SERVER); k++) {
		const struct an_row *w = an_figs_row(m->in.figs, AN_BY_SERVER,
						     k);

		if (w->prog == PROG_NFS && w->vers == 3 &&
		    w->proc == NFS3_COMMIT && cap_addr_eq(&w->addr, a))
			return w;
	}
	return NULL;
}

static int build_pairs_servers(struct an_model *m)
{
	const struct an_figs *f = m->in.figs;
	uint32_t k, np = an_figs_npairs(f), ns = an_figs_nservers(f);

	m->pairs = calloc(np ? np : 1, sizeof(*m->pairs));
	m->servers = calloc(ns ? ns : 1, sizeof(*m->servers));
	if (m->pairs == NULL || m->servers == NULL)
		return -1;
	for (k = 0; k < np; k++)
		build_pair(m, an_figs_pair(f, k), &m->pairs[k]);
	m->npairs = np;
	for (k = 0; k < ns; k++) {
		struct an_model_server *s = &m->servers[k];
		const struct an_row *c;

		s->server = an_figs_server(f, k);
		c = commit_row(m, &s->server->addr);
		s->has_commit = c && c->lat.count;
		if (s->has_commit)
			an_lat_of(&c->lat, &s->commit);
	}
	m->nservers = ns;
	return 0;
}

/* ------------------------------------------------ intervals, findings -- */

static int build_intervals(struct an_model *m)
{
	uint32_t k, n = an_figs_nintervals(m->in.figs);
	double s = (double)m->in.interval_ns / 1e9;

	m->intervals = calloc(n ? n : 1, sizeof(*m->intervals));
	if (m->intervals == NULL)
		return -1;
	for (k = 0; k < n; k++) {
		const struct an_interval *v = an_figs_interval(m->in.figs, k);
		struct an_model_interval *o = &m->intervals[k];

		o->iv = v;
		o->ops_per_s = s > 0 ? (double)v->calls / s : 0;
		o->bytes_per_s = s > 0 ? (double)v->bytes / s : 0;
		o->lat_avg_ms = an_mean_ms(v->lat_sum_ns, v->answered);
		o->lat_max_ms = an_ms(v->lat_max_ns);
		o->incomplete = cap_drop_spans_overlap(m->in.drops, m->in.ndrops,
						 v->start_ns, v->start_ns +
					      m->in.interval_ns);
	}
	m->nintervals = n;
	return 0;
}

static int build_findings(struct an_model *m)
{
	size_t k, n = an_find_count(m->in.find);

	m->findings = calloc(n ? n : 1, sizeof(*m->findings));
	if (m->findings == NULL)
		return -1;
	for (k = 0; k < n; k++)
		m->findings[k] = an_find_get(m->in.find, k);
	m->nfindings = n;
	m->findings_dropped = an_find_dropped(m->in.find);
	m->findings_unexamined = an_find_unexamined(m->in.find);
	return 0;
}

/* ------------------------------------------ per-procedure time series -- */

static int cell_cmp(const void *x, const void *y)
{
	const struct an_series_cell *a = *(const struct an_series_cell *const *)x;
	const struct an_series_cell *b = *(const struct an_series_cell *const *)y;

	if (a->prog != b->prog)
		return a->prog < b->prog ? -1 : 1;
	if (a->vers != b->vers)
		return a->vers < b->vers ? -1 : 1;
	if (a->proc != b->proc)
		return a->proc < b->proc ? -1 : 1;
	return a->start_ns < b->start_ns ? -1 : a->start_ns > b->start_ns;
}

static int heat_cmp(const void *x, const void *y)
{
	int64_t a = ((const struct an_model_heat *)x)->start_ns;
	int64_t b = ((const struct an_model_heat *)y)->start_ns;

	return a < b ? -1 : a > b;
}

static void sums_merge(struct an_sums *d, const struct an_sums *s)
{
	d->calls += s->calls;
	d->answered += s->answered;
	d->unanswered += s->unanswered;
	d->errors += s->errors;
	d->retrans += s->retrans;
	d->retrans_ops += s->retrans_ops;
	d->dup_replies += s->dup_replies;
	d->bytes += s->bytes;
	d->data_bytes += s->data_bytes;
	d->lat_sum_ns += s->lat_sum_ns;
	if (s->lat_max_ns > d->lat_max_ns)
		d->lat_max_ns = s->lat_max_ns;
}

/* The columns' width: the series' interval, times k when there are more
 * than series_cols_max of them (aligned to multiples of the width, at
 * most series_cols_max columns). */
static int64_t series_width(const struct an_model *m,
			    const struct an_series_cell *const *v, uint32_t n)
{
	int64_t w = an_series_interval_ns(m->in.series), lo = 0, hi = 0, cols;
	uint32_t k, max = m->in.series_cols_max;

	for (k = 0; k < n; k++) {
		if (k == 0 || v[k]->start_ns < lo)
			lo = v[k]->start_ns;
		if (k == 0 || v[k]->start_ns > hi)
			hi = v[k]->start_ns;
	}
	cols = n ? (hi - lo) / w + 1 : 0;
	if (max < 2 || cols <= max)
		return w;
	return w * ((cols + max - 2) / (max - 1));
}

/* v sorted (cell_cmp) into the model's cells, merged to width wd: a run
 * of one procedure's cells that fall in one column becomes one. */
static int merge_cells(struct an_model *m, const struct an_series_cell **v,
		       uint32_t n, int64_t wd)
{
	struct an_series_cell *o = NULL;
	uint32_t k;

	if ((m->series_own = calloc(n ? n : 1, sizeof(*o))) == NULL)
		return -1;
	for (k = 0; k < n; k++) {
		int64_t st = an_bucket_start(v[k]->start_ns, wd);

		if (o == NULL || o->start_ns != st || o->prog != v[k]->prog ||
		    o->vers != v[k]->vers || o->proc != v[k]->proc) {
			o = &m->series_own[m->nseries_own++];
			o->start_ns = st;
			o->prog = v[k]->prog;
			o->vers = v[k]->vers;
			o->proc = v[k]->proc;
			hist_init(&o->lat);
		}
		sums_merge(&o->s, &v[k]->s);
		if (!hist_merge(&o->lat, &v[k]->lat))
			return -1;
	}
	for (k = 0; k < m->nseries_own; k++)
		v[k] = &m->series_own[k];
	return 0;
}

/* The columns: one entry per cell sorted by time, then each run of one
 * time added into its first. */
static void heat_columns(struct an_model *m)
{
	uint32_t k, c, n = 0;

	qsort(m->heat, m->nheat, sizeof(*m->heat), heat_cmp);
	for (k = 0; k < m->nheat; k++) {
		struct an_model_heat *d, *h = &m->heat[k];

		if (n == 0 || m->heat[n - 1].start_ns != h->start_ns) {
			m->heat[n++] = *h;
			continue;
		}
		d = &m->heat[n - 1];
		sums_merge(&d->sums, &h->sums);
		for (c = 0; c < AN_MODEL_HEAT_ROWS; c++)
			d->count[c] += h->count[c];
	}
	m->nheat = n;
}

/* Each column's retransmitted ops per cause, from the series' rx cells
 * (merged to the columns' width). */
static void rx_columns(struct an_model *m)
{
	const struct an_series *s = m->in.series;
	uint32_t k, lo, hi, mid;

	m->rx_dropped = an_series_rx_dropped(s);
	for (k = 0; k < an_series_nrx(s); k++) {
		const struct an_series_rx *x = an_series_rx(s, k);
		int64_t st = an_bucket_start(x->start_ns, m->series_width_ns);

		for (lo = 0, hi = m->nheat; lo < hi;) {
			mid = lo + (hi - lo) / 2;
			if (m->heat[mid].start_ns < st)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < m->nheat && m->heat[lo].start_ns == st)
			m->heat[lo].rx_cause[an_find_rx_cause(m->in.find,
							      x->rx_key)] += x->ops;
		else
			m->rx_dropped += x->ops;
	}
}

static int build_series(struct an_model *m)
{
	const struct an_series *s = m->in.series;
	uint32_t k, c, n = an_series_ncells(s);
	const struct an_series_cell **v = calloc(n ? n : 1, sizeof(*v));
	uint64_t lo, hi;
	struct hist none;
	int rc = -1;

	m->series = calloc(n ? n : 1, sizeof(*m->series));
	m->heat = calloc(n ? n : 1, sizeof(*m->heat));
	if (v == NULL || m->series == NULL || m->heat == NULL)
		goto out;
	for (k = 0; k < n; k++)
		v[k] = an_series_cell(s, k);
	qsort(v, n, sizeof(*v), cell_cmp);
	m->series_width_ns = s ? series_width(m, v, n) : m->in.interval_ns;
	if (s && m->series_width_ns != an_series_interval_ns(s)) {
		if (merge_cells(m, v, n, m->series_width_ns) < 0)
			goto out;
		n = m->nseries_own;
	}
	for (k = 0; k < n; k++) {
		struct an_model_series *o = &m->series[k];
		struct an_model_heat *h = &m->heat[k];

		o->cell = v[k];
		o->ops_per_s = an_per_s(o->cell->calls,
					(double)m->series_width_ns / 1e9);
		an_lat_of(&o->cell->lat, &o->lat);
		h->start_ns = o->cell->start_ns;
		h->sums = o->cell->s;
		for (c = 0; c < AN_MODEL_HEAT_ROWS; c++)
			h->count[c] += hist_range_count(&o->cell->lat, c, &lo,
							&hi);
	}
	m->nseries = m->nheat = n;
	heat_columns(m);
	rx_columns(m);
	hist_init(&none);
	for (c = 0; c < AN_MODEL_HEAT_ROWS; c++) {
		hist_range_count(&none, c, &lo, &hi);
		m->heat_edge_ms[c] = an_ms(c == 0 ? 64 : lo);
		m->heat_edge_ms[c + 1] = an_ms(hi);
	}
	m->series_dropped = an_series_dropped(s);
	rc = 0;
out:
	free(v);
	return rc;
}

/* ------------------------------------------------------------- model -- */

int an_model_build(struct an_model *m, const struct an_model_input *in)
{
	const struct cap_stats *c = in->cs;
	/* stored times may be anything: in double, no signed overflow */
	double d = ((double)in->last_ns - (double)in->first_ns) / 1e9;
	int g;

	assert(in->figs && in->find && in->cs);
	memset(m, 0, sizeof(*m));
	m->in = *in;
	m->duration_s = d > 0 ? d : 0;
	m->totals = an_figs_totals(in->figs);
	m->ops_per_s = an_per_s(m->totals->ops, m->duration_s);
	m->complete = c->ps_drop == 0 && c->ps_ifdrop == 0 &&
		      in->evictions == 0 && c->tcp_hidden_spans == 0 &&
		      c->tcp_gaps_missed == 0 && !in->cut;
	for (g = 0; g < AN_BY_N; g++)
		if ((in->want & AN_MODEL_ROWS(g)) &&
		    build_rows(m, (enum an_group)g) < 0)
			goto fail;
	if (build_pairs_servers(m) < 0 || build_findings(m) < 0 ||
	    ((in->want & AN_MODEL_INTERVALS) && build_intervals(m) < 0) ||
	    ((in->want & AN_MODEL_SERIES) && build_series(m) < 0))
		goto fail;
	return 0;
fail:
	an_model_fini(m);
	return -1;
}

void an_model_fini(struct an_model *m)
{
	int g;

	for (g = 0; g < AN_BY_N; g++) {
		free(m->rows[g]);
		m->rows[g] = NULL;
		m->nrows[g] = 0;
	}
	free(m->pairs);
	free(m->servers);
	free(m->intervals);
	free(m->findings);
	free(m->impact);
	free(m->verdict);
	m->impact = NULL;
	m->verdict = NULL;
	free(m->series);
	free(m->heat);
	for (g = 0; g < (int)m->nseries_own; g++)
		hist_fini(&m->series_own[g].lat);
	free(m->series_own);
	m->series_own = NULL;
	m->nseries_own = 0;
	m->series = NULL;
	m->heat = NULL;
	m->nseries = m->nheat = 0;
	m->pairs = NULL;
	m->servers = NULL;
	m->intervals = NULL;
	m->findings = NULL;
	m->npairs = m->nservers = m->nintervals = 0;
	m->nfindings = 0;
}

void an_model_rate(const struct an_sums *s, int64_t rtt_sum_ns, double secs,
		   struct an_model_rate *out)
{
	out->ops_per_s = (double)s->calls / secs;
	out->data_kib_per_s = (double)s->data_bytes / 1024 / secs;
	out->data_kib_per_op = (double)s->data_bytes / 1024 / (double)s->calls;
	out->retrans_pct = 100.0 * (double)s->retrans / (double)s->calls;
	out->rtt_avg_ms = s->answered ? (double)rtt_sum_ns / 1e6 /
					(double)s->answered : 0.0;
	out->exe_avg_ms = s->answered ? s->lat_sum_ns / 1e6 /
					(double)s->answered : 0.0;
}
