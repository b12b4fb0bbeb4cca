/* diff_html.c - `nfscope diff --html OUT`: one self-contained page (inline
 * CSS and SVG, no script): the verdict, the procedures' table and the
 * READ/WRITE sizes of both sides as bars (svg.h), in the pages' one frame
 * (html.h).  Only formats what analyze/diff.c computed.  See diff.h. */
#include "ui/report/diff.h"
#include "ui/report/html.h"
#include "ui/report/svg.h"

#include <inttypes.h>
#include <math.h>

static void html_procs(FILE *f, const struct an_diff *d)
{
	char name[64];
	uint32_t k;

	fprintf(f, "<h2>Operations</h2><p>Latency from the first transmission "
		"(ms); each percentile within %.1f%% (histogram buckets).</p>\n"
		"<table id=\"procs\"><tr><th>Procedure</th><th>Calls A</th>"
		"<th>Calls B</th><th>Ops/s A</th><th>Ops/s B</th><th>&#916;</th>"
		"<th>p50 A</th><th>p50 B</th><th>&#916;</th><th>p95 A</th>"
		"<th>p95 B</th><th>&#916;</th><th>p99 A</th><th>p99 B</th>"
		"<th>&#916;</th></tr>\n", AN_DIFF_PCT_ERR);
	for (k = 0; k < d->nprocs; k++) {
		const struct an_diff_proc *x = &d->procs[k];

		fprintf(f, "<tr><td>%s</td><td>%" PRIu64 "</td><td>%" PRIu64
			"</td><td>%.1f</td><td>%.1f</td>",
			an_model_proc_name(x->prog, x->vers, x->proc, name,
					   sizeof(name)),
			x->a.calls, x->b.calls, x->a.ops_per_s, x->b.ops_per_s);
		html_td_pct(f, x->d_ops_pct);
		html_td(f, 3, x->a.p50_ms);
		html_td(f, 3, x->b.p50_ms);
		html_td_pct(f, x->d_p50_pct);
		html_td(f, 3, x->a.p95_ms);
		html_td(f, 3, x->b.p95_ms);
		html_td_pct(f, x->d_p95_pct);
		html_td(f, 3, x->a.p99_ms);
		html_td(f, 3, x->b.p99_ms);
		html_td_pct(f, x->d_p99_pct);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* One side's sizes of op as bars (b: side B). */
static void html_bars(FILE *f, const char *op, const struct an_diff_sizes *z,
		      bool b, const char *src)
{
	struct svg_bar bar[AN_DIFF_SIZES];
	char id[32], title[600], label[AN_DIFF_SIZES][32];
	double hi = 1;
	uint32_t k, n = 0;
	struct svg_plot p = {
		.id = id, .title = title, .w = 440, .h = 220,
		.x = { 256, 2097152, true, false, true, "bytes" },
		.y = { 0, 1, false, false, false, "calls" },
		.unit = "calls", .digits = 0,
	};

	for (k = 0; k < z->n; k++) {
		uint64_t c = b ? z->s[k].b : z->s[k].a;

		if (c == 0 || z->s[k].size == 0)
			continue;
		snprintf(label[n], sizeof(label[n]), "%s %u", op, z->s[k].size);
		bar[n] = (struct svg_bar){ label[n], z->s[k].size, (double)c };
		hi = fmax(hi, (double)c);
		n++;
	}
	p.y.hi = hi;
	snprintf(id, sizeof(id), "%s-%c", op, b ? 'b' : 'a');
	snprintf(title, sizeof(title), "%s sizes, %c: %s", op, b ? 'B' : 'A',
		 src);
	svg_bars(f, &p, bar, n, NULL, 0);
}

int diff_html(FILE *f, const struct an_diff *d, const struct diff_names *n)
{
	size_t k;

	html_open(f, HTML_DIFF, "nfscope diff", NULL);
	fputs("<p>A (before): ", f);
	html_text(f, n->a);
	fprintf(f, ", %" PRIu64 " operations, %.1f ops/s<br/>B (after): ",
		d->ta.ops, d->ta.ops_per_s);
	html_text(f, n->b);
	fprintf(f, ", %" PRIu64 " operations, %.1f ops/s</p>\n<p id=\"verdict\">"
		"<b>", d->tb.ops, d->tb.ops_per_s);
	html_text(f, d->verdict);
	fputs("</b></p>\n", f);
	html_procs(f, d);
	fputs("<h2>Sizes</h2>\n", f);
	html_bars(f, "READ", &d->read, false, n->a);
	html_bars(f, "READ", &d->read, true, n->b);
	html_bars(f, "WRITE", &d->write, false, n->a);
	html_bars(f, "WRITE", &d->write, true, n->b);
	fprintf(f, "<h2>Writes and retransmissions</h2><p>COMMITs per WRITE: A "
		"%.2f, B %.2f; retransmitted calls: A %" PRIu64 ", B %" PRIu64
		"</p>\n<h2>Findings</h2><ul id=\"findings\">\n",
		d->ta.commits_per_write, d->tb.commits_per_write, d->ta.retrans,
		d->tb.retrans);
	for (k = 0; k < d->nfindings; k++) {
		fprintf(f, "<li>%s %s: ", d->findings[k].appears ?
			"appears" : "disappears",
			an_find_kind_name(d->findings[k].f->kind));
		html_text(f, d->findings[k].f->evidence);
		fputs("</li>\n", f);
	}
	fputs("</ul>", f);
	html_close(f);
	return ferror(f) ? -1 : 0;
}
