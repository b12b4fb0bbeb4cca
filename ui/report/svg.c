/* svg.c - the HTML report's charts (svg.h). */
#include "ui/report/svg.h"

#include <math.h>
#include <string.h>

#include "ui/report/html.h"

#define ML 64			/* margins: left, right, top, bottom */
#define MR 16
#define MT 30
#define MB 40
#define TICKS_MAX 12

static const char *const palette[] = {
	"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
	"#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
};
#define NPAL (sizeof(palette) / sizeof(palette[0]))

/* Where v falls on axis a, from pixel p0 (lo) to p1 (hi). */
static double at(const struct svg_axis *a, double v, double p0, double p1)
{
	double lo = a->lo, hi = a->hi, t;

	if (a->log) {
		lo = log10(lo > 0 ? lo : 1e-300);
		hi = log10(hi > 0 ? hi : 1e-300);
		v = log10(v > 0 ? v : a->lo > 0 ? a->lo : 1e-300);
	}
	t = hi > lo ? (v - lo) / (hi - lo) : 0.5;
	if (t < 0)
		t = 0;
	if (t > 1)
		t = 1;
	return p0 + t * (p1 - p0);
}

/* A chart being drawn: its plot and the plot area's edges in pixels. */
struct box {
	const struct svg_plot *p;
	struct svg_axis y;	/* the value axis (bars: none) */
	int x0, x1, y0, y1;	/* y0 the bottom */
};

/* legend: a line chart keeps a column on the right for its names */
static struct box box_of(const struct svg_plot *p, bool legend, bool yaxis)
{
	struct box b = { p, p->y, ML, p->w - MR - (legend ? 150 : 0),
			 p->h - MB, MT };

	if (!yaxis)
		b.y.lo = b.y.hi = 0;
	return b;
}

static double xpix(const struct box *b, double v)
{
	return at(&b->p->x, v, b->x0, b->x1);
}

static double ypix(const struct box *b, double v)
{
	return at(&b->y, v, b->y0, b->y1);
}

size_t svg_ticks(const struct svg_axis *a, double *t, size_t max)
{
	static const double tsteps[] = {
		1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600,
		7200, 10800, 21600, 43200, 86400,
	};
	double span = a->hi - a->lo, step = 0, v;
	size_t n = 0, i;

	if (max == 0 || !(span > 0))
		return 0;
	if (a->bytes && a->lo > 0) {	/* powers of two, every 1, 2 or 3 */
		int k0 = (int)ceil(log2(a->lo) - 1e-9), k1 = (int)floor(log2(a->hi) + 1e-9), k, by = 1;

		while (by < 3 && (k1 - k0) / by + 1 > (int)max)
			by++;
		for (k = k0; k <= k1 && n < max; k += by)
			t[n++] = ldexp(1, k);
		return n;
	}
	if (a->log && a->lo > 0) {
		double d = floor(log10(a->lo)), top = log10(a->hi);
		bool fine = top - d <= 2;

		for (; d <= top && n < max; d++)
			for (i = 0; i < (fine ? 3u : 1u) && n < max; i++) {
				v = pow(10, d) * (i == 0 ? 1 : i == 1 ? 2 : 5);
				if (v >= a->lo * 0.999 && v <= a->hi * 1.001)
					t[n++] = v;
			}
		return n;
	}
	if (a->time) {
		for (i = 0; i < sizeof(tsteps) / sizeof(tsteps[0]); i++)
			if (span / tsteps[i] <= (double)max - 1) {
				step = tsteps[i];
				break;
			}
	}
	if (step == 0) {
		double mag = pow(10, floor(log10(span / (double)(max - 1))));

		step = mag;
		while (span / step > (double)max - 1)
			step = step == mag ? 2 * mag : step == 2 * mag ?
			       5 * mag : (mag *= 10);
	}
	for (v = ceil(a->lo / step - 1e-9) * step; v <= a->hi + step * 1e-9 &&
	     n < max; v += step)
		t[n++] = fabs(v) < step * 1e-9 ? 0 : v;
	return n;
}

/* A value on an axis as its label: the time of day, or a short number. */
static void axis_label(FILE *f, const struct svg_plot *p,
		       const struct svg_axis *a, double v)
{
	char b[64];

	if (a->time) {
		const char *s = ui_time_str(p->t0_ns + (int64_t)llround(v * 1e9),
					    p->tmode, 0, b, sizeof(b));
		const char *sp = strrchr(s, ' ');

		fputs(sp ? sp + 1 : s, f);
	} else if (a->bytes && v >= 1024) {
		fprintf(f, "%g%s", v >= 1048576 ? v / 1048576 : v / 1024,
			v >= 1048576 ? "M" : "k");
	} else {
		fprintf(f, "%g", v);
	}
}

/* "TIME" (a time axis) or the number, for titles. */
static void title_x(FILE *f, const struct svg_plot *p, double v)
{
	char b[64];

	if (p->x.time)
		fputs(ui_time_str(p->t0_ns + (int64_t)llround(v * 1e9),
				  p->tmode, 3, b, sizeof(b)), f);
	else
		fprintf(f, "%g", v);
}

/* The <svg> element, its title, the frame and both axes (y: when the
 * box has one). */
static void frame(FILE *f, const struct box *b)
{
	const struct svg_plot *p = b->p;
	double t[TICKS_MAX];
	size_t n, i;

	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" "
		"font-family=\"sans-serif\" font-size=\"11\"", p->w, p->h,
		p->w, p->h);
	if (p->id)
		fprintf(f, " id=\"%s\"", p->id);
	fputs("><title>", f);
	html_text(f, p->title);
	fputs("</title>\n<text x=\"4\" y=\"16\" font-size=\"13\" "
	      "font-weight=\"bold\">", f);
	html_text(f, p->title);
	fprintf(f, "</text>\n<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
		"fill=\"none\" stroke=\"#999\"/>\n", b->x0, b->y1,
		b->x1 - b->x0, b->y0 - b->y1);
	/* x labels are up to 8 characters: one every 64 pixels at most */
	n = (size_t)(b->x1 - b->x0) / 64 + 1;
	n = svg_ticks(&p->x, t, n < TICKS_MAX ? n : TICKS_MAX);
	for (i = 0; i < n; i++) {
		double x = xpix(b, t[i]);

		/* a label near the right edge ends there, not past it */
		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
			"stroke=\"#999\"/><text x=\"%.1f\" y=\"%d\" "
			"text-anchor=\"%s\">", x, b->y0, x, b->y0 + 4, x,
			b->y0 + 15, x + 28 > p->w ? "end" : "middle");
		axis_label(f, p, &p->x, t[i]);
		fputs("</text>\n", f);
	}
	fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">",
		(b->x0 + b->x1) / 2.0, p->h - 6);
	html_text(f, p->x.label);
	fputs("</text>\n", f);
	if (!(b->y.hi > b->y.lo))
		return;
	n = svg_ticks(&b->y, t, TICKS_MAX);
	for (i = 0; i < n; i++) {
		double y = ypix(b, t[i]);

		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
			"stroke=\"#eee\"/><text x=\"%d\" y=\"%.1f\" "
			"text-anchor=\"end\">", b->x0, y, b->x1, y, b->x0 - 4,
			y + 4);
		axis_label(f, p, &b->y, t[i]);
		fputs("</text>\n", f);
	}
	fprintf(f, "<text transform=\"translate(12 %.1f) rotate(-90)\" "
		"text-anchor=\"middle\">", (b->y0 + b->y1) / 2.0);
	html_text(f, b->y.label);
	fputs("</text>\n", f);
}

void svg_lines(FILE *f, const struct svg_plot *p, const struct svg_series *s,
	       size_t ns)
{
	struct box b = box_of(p, true, true);
	size_t k, i;

	frame(f, &b);
	for (k = 0; k < ns; k++) {
		const char *c = palette[k % NPAL];
		bool open = false;

		for (i = 0; i < s[k].n; i++) {
			if (isnan(s[k].y[i])) {
				if (open)
					fputs("\"/>\n", f);
				open = false;
				continue;
			}
			if (!open)
				fprintf(f, "<polyline fill=\"none\" "
					"stroke=\"%s\" stroke-width=\"1.5\" "
					"points=\"", c);
			fprintf(f, "%s%.1f,%.1f", open ? " " : "",
				xpix(&b, s[k].x[i]), ypix(&b, s[k].y[i]));
			open = true;
		}
		if (open)
			fputs("\"/>\n", f);
		for (i = 0; i < s[k].n; i++) {
			if (isnan(s[k].y[i]))
				continue;
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" "
				"fill=\"%s\" data-series=\"", xpix(&b, s[k].x[i]),
				ypix(&b, s[k].y[i]), c);
			html_text(f, s[k].name);
			fprintf(f, "\" data-x=\"%.17g\" data-y=\"%.17g\">"
				"<title>", s[k].x[i], s[k].y[i]);
			html_text(f, s[k].name);
			fputs(" at ", f);
			title_x(f, p, s[k].x[i]);
			fprintf(f, ": %.*f %s</title></circle>\n", p->digits,
				s[k].y[i], p->unit ? p->unit : "");
		}
		/* the legend, in its column right of the plot */
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" "
			"fill=\"%s\"/><text x=\"%d\" y=\"%d\">", b.x1 + 8,
			b.y1 + (int)k * 14, c, b.x1 + 22, b.y1 + 9 + (int)k * 14);
		html_text(f, s[k].name);
		fputs("</text>\n", f);
	}
	fputs("</svg>\n", f);
}

/* A count's cell colour: pale to dark blue with its logarithm. */
static void heat_colour(char *b, size_t n, uint64_t c, uint64_t max)
{
	double t = max > 1 ? log((double)c) / log((double)max) : 1;
	int r = (int)lround(239 - t * (239 - 8));
	int g = (int)lround(243 - t * (243 - 48));
	int bl = (int)lround(255 - t * (255 - 107));

	snprintf(b, n, "#%02x%02x%02x", r, g, bl);
}

void svg_heatmap(FILE *f, const struct svg_plot *p, const struct svg_heat *h)
{
	struct box b = box_of(p, false, true);
	uint64_t max = 0;
	size_t i, j;
	char col[16];

	for (i = 0; i < h->nx * h->ny; i++)
		if (h->count[i] > max)
			max = h->count[i];
	frame(f, &b);
	for (i = 0; i < h->nx; i++)
		for (j = 0; j < h->ny; j++) {
			uint64_t c = h->count[i * h->ny + j];
			double x0 = xpix(&b, h->x_edge[i]);
			double x1 = xpix(&b, h->x_edge[i + 1]);
			double y0 = ypix(&b, h->y_edge[j + 1]);
			double y1 = ypix(&b, h->y_edge[j]);

			if (c == 0)
				continue;
			heat_colour(col, sizeof(col), c, max);
			fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
				"height=\"%.1f\" fill=\"%s\" data-x=\"%.17g\" "
				"data-y=\"%.17g\" data-count=\"%llu\"><title>",
				x0, y0, x1 - x0 > 0.5 ? x1 - x0 : 0.5,
				y1 - y0 > 0.5 ? y1 - y0 : 0.5, col,
				h->x_edge[i], h->y_edge[j],
				(unsigned long long)c);
			title_x(f, p, h->x_edge[i]);
			fprintf(f, ", %g to %g: %llu ", h->y_edge[j],
				h->y_edge[j + 1], (unsigned long long)c);
			html_text(f, h->what);
			fputs("</title></rect>\n", f);
		}
	fputs("</svg>\n", f);
}

void svg_bars(FILE *f, const struct svg_plot *p, const struct svg_bar *bar,
	      size_t nb, const struct svg_mark *m, size_t nm)
{
	struct box b = box_of(p, false, true);
	size_t i;

	frame(f, &b);
	for (i = 0; i < nb; i++) {
		double x = xpix(&b, bar[i].at), y = ypix(&b, bar[i].value);

		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"8\" "
			"height=\"%.1f\" fill=\"%s\" data-label=\"", x - 4, y,
			b.y0 - y > 0.5 ? b.y0 - y : 0.5, palette[0]);
		html_text(f, bar[i].label);
		fprintf(f, "\" data-at=\"%.17g\" data-value=\"%.17g\"><title>",
			bar[i].at, bar[i].value);
		html_text(f, bar[i].label);
		fprintf(f, ": %.*f %s</title></rect>\n", p->digits,
			bar[i].value, p->unit ? p->unit : "");
	}
	for (i = 0; i < nm; i++) {
		double x = xpix(&b, m[i].at);

		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
			"stroke=\"#d62728\" stroke-dasharray=\"4 3\" "
			"data-mark=\"%.17g\"><title>", x, b.y1, x, b.y0, m[i].at);
		html_text(f, m[i].label);
		fprintf(f, "</title></line>\n<text x=\"%.1f\" y=\"%d\" "
			"fill=\"#d62728\" text-anchor=\"%s\">", x > p->w - 80 ?
			x - 3 : x + 3, b.y1 + 10 + (int)i * 12,
			x > p->w - 80 ? "end" : "start");
		html_text(f, m[i].label);
		fputs("</text>\n", f);
	}
	fputs("</svg>\n", f);
}

void svg_timeline(FILE *f, const struct svg_plot *p, const struct svg_span *s,
		  size_t n)
{
	static const char *const lvl[] = { "#9ecae1", "#fdae6b", "#e6550d" };
	struct box b = box_of(p, false, false);
	double row = n ? (double)(b.y0 - b.y1) / (double)n : 0;
	size_t i;

	frame(f, &b);
	for (i = 0; i < n; i++) {
		double x0 = xpix(&b, s[i].from), x1 = xpix(&b, s[i].to);
		double y = b.y1 + row * (double)i;
		int l = s[i].level < 0 ? 0 : s[i].level > 2 ? 2 : s[i].level;

		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			"height=\"%.1f\" fill=\"%s\" data-from=\"%.17g\" "
			"data-to=\"%.17g\"><title>", x0, y + row * 0.1,
			x1 - x0 > 2 ? x1 - x0 : 2, row * 0.8, lvl[l],
			s[i].from, s[i].to);
		html_text(f, s[i].label);
		fputs(", ", f);
		title_x(f, p, s[i].from);
		fputs(" to ", f);
		title_x(f, p, s[i].to);
		if (s[i].detail) {
			fputs("\n", f);
			html_text(f, s[i].detail);
		}
		fprintf(f, "</title></rect>\n<text x=\"%.1f\" y=\"%.1f\">",
			x0 + 3, y + row / 2 + 4);
		html_text(f, s[i].label);
		fputs("</text>\n", f);
	}
	fputs("</svg>\n", f);
}
