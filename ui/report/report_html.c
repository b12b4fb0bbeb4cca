/*
 * report_html.c - `report --html OUT`: one self-contained page (inline
 * SVG and CSS, no script, no external asset) drawn from the report model
 * (analyze/model.h), in the order an admin reads it: capture health and
 * every incompleteness warning first (the text report's own lines), then
 * operations per second and p50/p99 latency over time per procedure, the
 * latency heat map, READ/WRITE sizes per client/server pair against the
 * server's limits with the verdict, retransmissions over time by kind
 * and retransmitted operations by likely cause, the findings' timeline
 * with their evidence, and the procedure table.  The page's frame (head,
 * CSS, escaping) is html.h's.
 *
 * Every figure drawn carries its numbers (svg.h: data-* and <title>), and
 * each chart sits in a <figure> whose data-t0-ns is the time its x axis
 * counts from, so a test reads the page back and compares it with
 * --json.  Allocation: a few arrays per page, after the capture.
 */
#include "ui/report/report_html.h"
#include "ui/report/rep.h"
#include "ui/report/report_model.h"
#include "ui/report/report_text.h"
#include "ui/report/report_verdict.h"
#include "ui/report/html.h"
#include "ui/report/svg.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PROCS_DRAWN 10		/* procedures in the line charts (most calls) */
#define CHART_W 1100

static void incomplete_fn(FILE *f, const void *a, const void *b)
{
	struct rep r = *(const struct rep *)a;

	r.out = f;
	rep_text_incomplete(&r, b);
}

static void health_fn(FILE *f, const void *a, const void *b)
{
	(void)a;
	rep_text_health(f, b);
}

/* ------------------------------------------------------------ header -- */

static void head(FILE *f, const struct rep *r, const struct an_model *m)
{
	const struct an_figs_totals *t = m->totals;
	char t0[48], t1[48], z[64];

	html_open(f, HTML_REPORT, "nfscope report", r->source);
	fprintf(f, "<p id=\"summary\">%" PRIu64 " packets over %.3f s",
		m->in.cs->packets, m->duration_s);
	if (r->first_ns)
		fprintf(f, " from %s to %s (%s)",
			rep_time(r, r->first_ns, t0, sizeof(t0)),
			rep_time(r, r->last_ns, t1, sizeof(t1)),
			ui_time_zone(r->first_ns, r->tmode, z, sizeof(z)));
	fprintf(f, ", %" PRIu64 " operations (%" PRIu64 " answered, %" PRIu64
		" unanswered", t->ops, t->answered, t->unanswered);
	if (t->reply_not_seen)	/* as the text report's header */
		fprintf(f, ", %" PRIu64 " reply not seen", t->reply_not_seen);
	fprintf(f, ", %" PRIu64 " errors), %.1f ops/s</p>\n", t->errors,
		m->ops_per_s);
}

static int health(FILE *f, const struct rep *r, const struct an_model *m)
{
	fputs("<section id=\"health\"><h2>Capture health</h2>\n", f);
	if (m->complete)
		fputs("<p class=\"ok\">complete: no packet dropped, nothing "
		      "evicted, no TCP record hidden by the snaplen, the "
		      "input read to its end</p>\n", f);
	if (html_pre(f, "warn", "incomplete", incomplete_fn, r, m) < 0 ||
	    html_pre(f, "health", "health-text", health_fn, NULL, m) < 0)
		return -1;
	if (m->series_dropped)
		fprintf(f, "<pre class=\"warn\">INCOMPLETE: %" PRIu64 " operations "
			"left out of the time series per procedure (its cell "
			"budget): the charts over time are too low</pre>\n",
			m->series_dropped);
	fputs("</section>\n", f);
	return 0;
}

/* ------------------------------------------------- charts over time -- */

/* The x axis of the time charts: the first interval's start is t0. */
struct tframe {
	int64_t t0_ns, w_ns;
	uint32_t n;		/* intervals from t0 to the last one */
};

static struct tframe tframe_of(const struct an_model *m)
{
	struct tframe t = { 0, m->series_width_ns, 0 };

	if (m->nheat > 0) {
		t.t0_ns = m->heat[0].start_ns;
		t.n = (uint32_t)((m->heat[m->nheat - 1].start_ns - t.t0_ns) /
				 t.w_ns) + 1;
	}
	return t;
}

static struct svg_plot plot_of(const struct rep *r, const struct tframe *t,
			       const char *id, const char *title)
{
	struct svg_plot p = {
		.id = id, .title = title, .w = CHART_W, .h = 260,
		.x = { 0, t->n ? (double)t->n * (double)t->w_ns / 1e9 : 1,
		       false, true, false, "time" },
		.t0_ns = t->t0_ns, .tmode = r->tmode, .digits = 3,
	};

	return p;
}

static void figure_open(FILE *f, const struct tframe *t)
{
	fprintf(f, "<figure data-t0-ns=\"%" PRId64 "\" data-width-ns=\"%"
		PRId64 "\">\n", t->t0_ns, t->w_ns);
}

/* A procedure of the charts: its cells m->series[from .. to). */
struct proc_span {
	uint32_t from, to;
	uint64_t calls;
	char name[64];
};

static int span_cmp(const void *x, const void *y)
{
	const struct proc_span *a = x, *b = y;

	if (a->calls != b->calls)
		return a->calls < b->calls ? 1 : -1;
	return a->from < b->from ? -1 : 1;
}

/* The procedures with most calls (at most max) into s; returns how many
 * there are in all. */
static uint32_t procs_of(const struct an_model *m, struct proc_span *s,
			 uint32_t max, uint32_t *drawn)
{
	uint32_t k, n = 0;

	for (k = 0; k < m->nseries; k++) {
		const struct an_series_cell *c = m->series[k].cell;

		if (n == 0 || c->prog != m->series[s[n - 1].from].cell->prog ||
		    c->vers != m->series[s[n - 1].from].cell->vers ||
		    c->proc != m->series[s[n - 1].from].cell->proc) {
			s[n].from = k;
			s[n].calls = 0;
			an_model_proc_name(c->prog, c->vers, c->proc,
					   s[n].name, sizeof(s[n].name));
			n++;
		}
		s[n - 1].to = k + 1;
		s[n - 1].calls += c->calls;
	}
	qsort(s, n, sizeof(*s), span_cmp);
	*drawn = n < max ? n : max;
	return n;
}

enum what { W_RATE, W_P50, W_P99 };

/* One value per interval of procedure p: its rate (0 without calls) or a
 * percentile (NaN without answered ops). */
static void values_of(const struct an_model *m, const struct tframe *t,
		      const struct proc_span *p, enum what w, double *x,
		      double *y)
{
	uint32_t i, k;

	for (i = 0; i < t->n; i++) {
		x[i] = (double)i * (double)t->w_ns / 1e9;
		y[i] = w == W_RATE ? 0 : NAN;
	}
	for (k = p->from; k < p->to; k++) {
		const struct an_model_series *o = &m->series[k];

		i = (uint32_t)((o->cell->start_ns - t->t0_ns) / t->w_ns);
		if (w == W_RATE)
			y[i] = o->ops_per_s;
		else if (o->lat.count)
			y[i] = w == W_P50 ? o->lat.p50_ms : o->lat.p99_ms;
	}
}

static double max_of(const double *v, size_t n, double floor)
{
	double x = floor;
	size_t i;

	for (i = 0; i < n; i++)
		if (!isnan(v[i]) && v[i] > x)
			x = v[i];
	return x;
}

static double min_pos(const double *v, size_t n, double ceil)
{
	double x = ceil;
	size_t i;

	for (i = 0; i < n; i++)
		if (!isnan(v[i]) && v[i] > 0 && v[i] < x)
			x = v[i];
	return x;
}

static int over_time(FILE *f, const struct rep *r, const struct an_model *m,
		     const struct tframe *t)
{
	static const struct {
		enum what w;
		const char *id, *title, *label, *unit;
	} charts[] = {
		{ W_RATE, "ops-rate", "Operations per second",
		  "operations per second", "ops/s" },
		{ W_P50, "lat-p50", "p50 latency (from the first transmission)",
		  "p50 latency (ms)", "ms" },
		{ W_P99, "lat-p99", "p99 latency (from the first transmission)",
		  "p99 latency (ms)", "ms" },
	};
	struct proc_span *ps = calloc(m->nseries ? m->nseries : 1, sizeof(*ps));
	struct svg_series s[PROCS_DRAWN];
	double *xy = calloc(2 * (size_t)PROCS_DRAWN * (t->n ? t->n : 1),
			    sizeof(double));
	uint32_t np, nd, k, c;

	if (ps == NULL || xy == NULL) {
		free(ps);
		free(xy);
		return -1;
	}
	np = procs_of(m, ps, PROCS_DRAWN, &nd);
	fprintf(f, "<section id=\"over-time\"><h2>Operations and latency over "
		"time, per procedure (%.3f s intervals)</h2>\n",
		(double)t->w_ns / 1e9);
	if (m->series_width_ns != m->in.interval_ns)
		fprintf(f, "<p>%.3f s intervals merged %" PRId64 " at a time "
			"(at most %u points a line)</p>\n",
			(double)m->in.interval_ns / 1e9, m->series_width_ns /
			m->in.interval_ns, m->in.series_cols_max);
	if (np > nd)
		fprintf(f, "<p>the %u procedures with most calls (%u more in "
			"the table below)</p>\n", nd, np - nd);
	for (c = 0; c < sizeof(charts) / sizeof(charts[0]); c++) {
		struct svg_plot p = plot_of(r, t, charts[c].id, charts[c].title);
		double hi = 0, lo = 1e300;

		for (k = 0; k < nd; k++) {
			double *x = xy + 2 * (size_t)k * t->n, *y = x + t->n;

			values_of(m, t, &ps[k], charts[c].w, x, y);
			s[k] = (struct svg_series){ ps[k].name, x, y, t->n };
			hi = max_of(y, t->n, hi);
			lo = min_pos(y, t->n, lo);
		}
		p.y = (struct svg_axis){ 0, hi > 0 ? hi * 1.05 : 1, false,
					 false, false, charts[c].label };
		if (charts[c].w != W_RATE)	/* latencies: decades */
			p.y = (struct svg_axis){ lo < hi ? lo / 1.5 : 0.001,
						 hi > 0 ? hi * 1.5 : 1, true,
						 false, false, charts[c].label };
		p.unit = charts[c].unit;
		p.h = 300;
		figure_open(f, t);
		svg_lines(f, &p, s, nd);
		fputs("</figure>\n", f);
	}
	fputs("</section>\n", f);
	free(ps);
	free(xy);
	return 0;
}

/* The heat map: a column per interval, a row per latency range used. */
static int heat(FILE *f, const struct rep *r, const struct an_model *m,
		const struct tframe *t)
{
	struct svg_plot p = plot_of(r, t, "heat", "Latency heat map: answered "
				    "operations per interval and latency range");
	uint32_t lo = AN_MODEL_HEAT_ROWS, hi = 0, k, c, i, ny;
	double *xe = calloc((size_t)t->n + 1, sizeof(double));
	uint64_t *cnt;

	for (k = 0; k < m->nheat; k++)
		for (c = 0; c < AN_MODEL_HEAT_ROWS; c++)
			if (m->heat[k].count[c]) {
				lo = c < lo ? c : lo;
				hi = c > hi ? c : hi;
			}
	if (lo > hi)
		lo = hi = 0;
	ny = hi - lo + 1;
	cnt = calloc((size_t)(t->n ? t->n : 1) * ny, sizeof(*cnt));
	if (xe == NULL || cnt == NULL) {
		free(xe);
		free(cnt);
		return -1;
	}
	for (i = 0; i <= t->n; i++)
		xe[i] = (double)i * (double)t->w_ns / 1e9;
	for (k = 0; k < m->nheat; k++) {
		i = (uint32_t)((m->heat[k].start_ns - t->t0_ns) / t->w_ns);
		for (c = lo; c <= hi; c++)
			cnt[(size_t)i * ny + (c - lo)] = m->heat[k].count[c];
	}
	struct svg_heat h = { xe, &m->heat_edge_ms[lo], cnt, t->n, ny, "ops" };

	p.y = (struct svg_axis){ m->heat_edge_ms[lo], m->heat_edge_ms[hi + 1],
				 true, false, false, "latency (ms)" };
	p.h = 320;
	fputs("<section id=\"latency-heat\"><h2>Latency heat map</h2>\n"
	      "<p>columns: intervals; rows: latency ranges (powers of two, "
	      "from the first transmission); colour: operations, pale to dark "
	      "on a log scale</p>\n", f);
	figure_open(f, t);
	svg_heatmap(f, &p, &h);
	fputs("</figure>\n</section>\n", f);
	free(xe);
	free(cnt);
	return 0;
}

/* ------------------------------------------------------------- sizes -- */

/* One size chart: the sizes asked, the server's limits, the verdict. */
static void size_chart(FILE *f, const struct rep *r, uint32_t pair,
		       const struct an_model_pair *q, bool write)
{
	const struct an_sizes *sz = write ? &q->pair->write : &q->pair->read;
	const struct an_server *sv = q->server;
	struct svg_bar b[AN_SIZES_MAX];
	struct svg_mark mk[3];
	char lab[AN_SIZES_MAX][32], ml[3][48], id[32], title[200], c[64], s[64];
	const char *op = write ? "WRITE" : "READ";
	double lo = 1e300, hi = 0, top = 1;
	uint32_t k, nm = 0;

	for (k = 0; k < sz->nsizes; k++) {
		snprintf(lab[k], sizeof(lab[k]), "%s %u", op, sz->s[k].size);
		b[k] = (struct svg_bar){ lab[k], sz->s[k].size,
					 (double)sz->s[k].n };
	}
	if (sv && sv->have_fsinfo) {
		snprintf(ml[0], sizeof(ml[0]), "%s %u", write ? "wtmax" :
			 "rtmax", write ? sv->wtmax : sv->rtmax);
		mk[nm++] = (struct svg_mark){ write ? sv->wtmax : sv->rtmax,
					      ml[0] };
		snprintf(ml[1], sizeof(ml[1]), "%s %u", write ? "wtpref" :
			 "rtpref", write ? sv->wtpref : sv->rtpref);
		mk[nm++] = (struct svg_mark){ write ? sv->wtpref : sv->rtpref,
					      ml[1] };
	}
	if (sv && sv->have_statfs) {
		snprintf(ml[2], sizeof(ml[2]), "tsize %u", sv->tsize);
		mk[nm++] = (struct svg_mark){ sv->tsize, ml[2] };
	}
	for (k = 0; k < sz->nsizes; k++) {	/* a size 0 sits at the left */
		if (sz->s[k].size > 0 && sz->s[k].size < lo)
			lo = sz->s[k].size;
		hi = sz->s[k].size > hi ? sz->s[k].size : hi;
		top = b[k].value > top ? b[k].value : top;
	}
	for (k = 0; k < nm; k++) {
		lo = mk[k].at > 0 && mk[k].at < lo ? mk[k].at : lo;
		hi = mk[k].at > hi ? mk[k].at : hi;
	}
	if (lo > hi)			/* no size above 0 */
		lo = 512;
	if (hi < lo * 4)
		hi = lo * 4;
	snprintf(id, sizeof(id), "sizes-%s-%u", write ? "write" : "read", pair);
	snprintf(title, sizeof(title), "%s sizes asked, %s -> %s", op,
		 cap_addr_str(&q->pair->client, c, sizeof(c)),
		 cap_addr_str(&q->pair->server, s, sizeof(s)));
	struct svg_plot p = {
		.id = id, .title = title, .w = CHART_W / 2 - 10, .h = 240,
		.x = { lo / 2, hi * 2, true, false, true, "bytes per call" },
		.y = { 0, top * 1.1, false, false, false, "calls" },
		.tmode = r->tmode, .unit = "calls", .digits = 0,
	};

	fputs("<figure class=\"size\">\n", f);
	svg_bars(f, &p, b, sz->nsizes, mk, nm);
	fprintf(f, "<p class=\"verdict\" id=\"%s-verdict\">", id);
	html_text(f, write ? q->write_verdict : q->read_verdict);
	fputs("</p>\n</figure>\n", f);
}

static void sizes(FILE *f, const struct rep *r, const struct an_model *m)
{
	uint32_t k;

	fputs("<section id=\"sizes\"><h2>READ and WRITE sizes per client and "
	      "server</h2>\n", f);
	for (k = 0; k < m->npairs; k++) {
		const struct an_model_pair *q = &m->pairs[k];

		if (q->has_read_verdict && q->pair->read.total)
			size_chart(f, r, k, q, false);
		if (q->has_write_verdict && q->pair->write.total)
			size_chart(f, r, k, q, true);
	}
	fputs("</section>\n", f);
}

/* ----------------------------------------------------------- retrans -- */

/* Retransmitted ops per interval, a line per cause that occurs (x: the
 * intervals' times, t->n of them). */
static int by_cause(FILE *f, const struct rep *r, const struct an_model *m,
		    const struct tframe *t, const double *x)
{
	size_t n = t->n ? t->n : 1;
	double *v = calloc(AN_RX_NCAUSES * n, sizeof(double)), top = 1;
	struct svg_series s[AN_RX_NCAUSES];
	uint32_t k, i, c, ns = 0;
	uint64_t sum[AN_RX_NCAUSES] = { 0 };
	char w[64];

	if (v == NULL)
		return -1;
	for (k = 0; k < m->nheat; k++) {
		i = (uint32_t)((m->heat[k].start_ns - t->t0_ns) / t->w_ns);
		for (c = 0; c < AN_RX_NCAUSES; c++) {
			v[c * n + i] = (double)m->heat[k].rx_cause[c];
			sum[c] += m->heat[k].rx_cause[c];
		}
	}
	for (c = 0; c < AN_RX_NCAUSES; c++)
		if (sum[c]) {
			s[ns] = (struct svg_series){ an_rx_cause_names[c], x,
						     v + c * n, t->n };
			top = max_of(s[ns++].y, t->n, top);
		}
	if (m->rx_dropped)
		fprintf(f, "<pre class=\"warn\">INCOMPLETE: %" PRIu64 " "
			"retransmitted operations left out of the causes over "
			"time (a budget): those counts are too low</pre>\n",
			m->rx_dropped);
	if (ns == 0) {
		fputs("<p id=\"retrans-cause-none\">no retransmitted operation "
		      "to give a cause of</p>\n", f);
		free(v);
		return 0;
	}
	snprintf(w, sizeof(w), "ops per %.3f s interval", (double)t->w_ns / 1e9);
	struct svg_plot p = plot_of(r, t, "retrans-cause", "Retransmitted "
				    "operations over time by likely cause (at "
				    "each pair's vantage point)");

	p.y = (struct svg_axis){ 0, top * 1.1, false, false, false, w };
	p.unit = "ops";
	p.digits = 0;
	figure_open(f, t);
	svg_lines(f, &p, s, ns);
	fputs("</figure>\n", f);
	free(v);
	return 0;
}

static int retrans(FILE *f, const struct rep *r, const struct an_model *m,
		   const struct tframe *t)
{
	static const char *const names[] = {
		"calls retransmitted", "duplicate replies", "unanswered calls",
	};
	size_t n = t->n ? t->n : 1;
	double *v = calloc(4 * n, sizeof(double)), top = 1;
	struct svg_series s[3];
	uint32_t k, i;
	char w[48];

	if (v == NULL)
		return -1;
	for (i = 0; i < t->n; i++)
		v[i] = (double)i * (double)t->w_ns / 1e9;
	for (k = 0; k < m->nheat; k++) {
		const struct an_model_heat *c = &m->heat[k];

		i = (uint32_t)((c->start_ns - t->t0_ns) / t->w_ns);
		v[n + i] = (double)c->sums.retrans;
		v[2 * n + i] = (double)c->sums.dup_replies;
		v[3 * n + i] = (double)c->sums.unanswered;
	}
	for (k = 0; k < 3; k++) {
		s[k] = (struct svg_series){ names[k], v, v + (k + 1) * n, t->n };
		top = max_of(s[k].y, t->n, top);
	}
	snprintf(w, sizeof(w), "per %.3f s interval", (double)t->w_ns / 1e9);
	struct svg_plot p = plot_of(r, t, "retrans", "Retransmissions over "
				    "time by kind");

	p.y = (struct svg_axis){ 0, top * 1.1, false, false, false, w };
	p.unit = "";
	p.digits = 0;
	fputs("<section id=\"retransmits\"><h2>Retransmissions over time</h2>\n",
	      f);
	figure_open(f, t);
	svg_lines(f, &p, s, 3);
	fputs("</figure>\n", f);
	if (by_cause(f, r, m, t, v) < 0) {
		free(v);
		return -1;
	}
	for (k = 0; k < m->npairs; k++)
		if (m->pairs[k].has_vantage) {
			char c[64], sv[64];

			fprintf(f, "<p class=\"causes\">%s -> %s: ",
				cap_addr_str(&m->pairs[k].pair->client, c,
					     sizeof(c)),
				cap_addr_str(&m->pairs[k].pair->server, sv,
					     sizeof(sv)));
			html_text(f, m->pairs[k].vantage_text);
			fputs("</p>\n", f);
		}
	fputs("</section>\n", f);
	free(v);
	return 0;
}

/* ---------------------------------------------------------- findings -- */

static int findings(FILE *f, const struct rep *r, const struct an_model *m,
		    const struct tframe *t)
{
	struct svg_span *sp = calloc(m->nfindings ? m->nfindings : 1,
				     sizeof(*sp));
	struct svg_plot p = plot_of(r, t, "findings", "Findings");
	double end = p.x.hi;
	char ev[2 * AN_EVIDENCE_MAX];
	size_t k;

	if (sp == NULL)
		return -1;
	for (k = 0; k < m->nfindings; k++) {
		const struct an_finding *fd = m->findings[k];

		sp[k].label = an_find_kind_name(fd->kind);
		sp[k].detail = fd->evidence;
		sp[k].level = 1;
		sp[k].from = fd->start_ns ? (double)(fd->start_ns - t->t0_ns) /
			     1e9 : 0;
		sp[k].to = fd->start_ns ? (double)(fd->end_ns - t->t0_ns) /
			   1e9 : end;
	}
	p.h = 60 + 24 * (int)(m->nfindings ? m->nfindings : 1);
	fputs("<section id=\"findings-section\"><h2>Findings</h2>\n", f);
	if (m->nfindings == 0)
		fputs("<p>none</p>\n", f);
	figure_open(f, t);
	svg_timeline(f, &p, sp, m->nfindings);
	fputs("</figure>\n<ol id=\"findings-list\">\n", f);
	for (k = 0; k < m->nfindings; k++) {
		const struct an_finding *fd = m->findings[k];

		fprintf(f, "<li><b>[%s]</b> ", an_find_kind_name(fd->kind));
		ui_time_text(fd->evidence, r->tmode, ev, sizeof(ev));
		html_text(f, ev);
		fputs("<br/><i>", f);
		html_text(f, fd->meaning);
		fputs("</i></li>\n", f);
	}
	fputs("</ol>\n</section>\n", f);
	free(sp);
	return 0;
}

/* ------------------------------------------------------------- table -- */

static void table(FILE *f, const struct an_model *m)
{
	uint32_t k;
	char b[64];

	fputs("<section id=\"procedures\"><h2>Operations by procedure "
	      "(latency from the first transmission, ms)</h2>\n"
	      "<table id=\"proc-table\"><tr><th>Procedure</th><th>Calls</th>"
	      "<th>Ops/s</th><th>Err</th><th>kB/op</th><th>kB/s</th>"
	      "<th>Retr%</th><th>Min ms</th><th>Avg ms</th><th>Max ms</th>"
	      "<th>p50</th><th>p95</th><th>p99</th><th>p99.9</th></tr>\n", f);
	for (k = 0; k < m->nrows[AN_BY_OP]; k++) {
		const struct an_model_row *w = &m->rows[AN_BY_OP][k];
		const struct an_row *row = w->row;
		const char *name = an_model_proc_name(row->prog, row->vers,
						      row->proc, b, sizeof(b));

		fputs("<tr data-procedure=\"", f);
		html_text(f, name);
		fprintf(f, "\" data-calls=\"%" PRIu64 "\" data-errors=\"%" PRIu64
			"\" data-p50=\"%.17g\" data-p99=\"%.17g\"><td>", row->calls,
			row->errors, w->lat.p50_ms, w->lat.p99_ms);
		html_text(f, name);
		fprintf(f, "</td><td>%" PRIu64 "</td><td>%.1f</td><td>%" PRIu64
			"</td>", row->calls, w->ops_per_s, row->errors);
		if (w->has_data)
			fprintf(f, "<td>%.1f</td><td>%.1f</td>",
				w->data_kib_per_op, w->data_kib_per_s);
		else
			fputs("<td>-</td><td>-</td>", f);
		fprintf(f, "<td>%.1f</td>", w->retrans_pct);
		html_td(f, 3, w->lat.min_ms);
		html_td(f, 3, w->lat.avg_ms);
		html_td(f, 3, w->lat.max_ms);
		html_td(f, 3, w->lat.p50_ms);
		html_td(f, 3, w->lat.p95_ms);
		html_td(f, 3, w->lat.p99_ms);
		html_td(f, 3, w->lat.p99_9_ms);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n</section>\n", f);
}

/* -------------------------------------------------------------- page -- */

static int page(FILE *f, const struct rep *r, const struct an_model *m)
{
	struct tframe t = tframe_of(m);

	head(f, r, m);
	rep_html_verdict(f, m);	/* the answer first, then its evidence */
	if (findings(f, r, m, &t) < 0 || health(f, r, m) < 0 ||
	    over_time(f, r, m, &t) < 0 || heat(f, r, m, &t) < 0)
		return -1;
	sizes(f, r, m);
	if (retrans(f, r, m, &t) < 0)
		return -1;
	table(f, m);
	html_close(f);
	return 0;
}

int rep_html(const struct rep *r, FILE *f)
{
	struct an_model m;
	int rc;

	if (rep_model(r, AN_MODEL_ROWS(AN_BY_OP) | AN_MODEL_SERIES, &m) < 0)
		return -1;
	rc = page(f, r, &m);
	if (rc < 0)
		fprintf(stderr, "nfscope: out of memory\n");
	an_model_fini(&m);
	return rc;
}
