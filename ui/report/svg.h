/*
 * svg.h - the charts of the HTML report (`report --html`): inline SVG,
 * no script, no external asset, readable with JavaScript off.
 *
 * Every mark a chart draws carries what it shows twice: a <title> a
 * person reads on hover ("NFSv3 READ at 10:20:03: 412.0 ops/s") and
 * data-* attributes with the exact numbers (data-x, data-y, data-count),
 * so a test can read the figures back from the page (its DOM) and compare
 * them with the report's JSON.  Text from the wire (paths, names) is
 * escaped as html.h's html_text does it.
 *
 * Times: a time axis counts seconds after t0_ns (a double holds epoch
 * nanoseconds only to 256 ns); its labels are the time of day in the
 * report's time mode (times.h).  Colours come from a fixed palette, one
 * per series in order; a heat map's cells go from pale to dark with the
 * logarithm of their count.
 *
 * No allocation, no state: each call writes one <svg> element to f.
 */
#ifndef NFSCOPE_SVG_H
#define NFSCOPE_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ui/times.h"

struct svg_axis {
	double lo, hi;		/* the range shown (log: both > 0) */
	bool log;		/* decades */
	bool time;		/* seconds after the plot's t0_ns */
	bool bytes;		/* sizes: ticks on powers of two, "32k" */
	const char *label;	/* "latency (ms)" */
};

struct svg_plot {
	const char *id;		/* the element's id (test hook), or NULL */
	const char *title;	/* drawn above the plot */
	int w, h;		/* pixels */
	struct svg_axis x, y;
	int64_t t0_ns;		/* time axes: their zero */
	enum ui_time_mode tmode;
	const char *unit;	/* of the y values, in titles ("ops/s") */
	int digits;		/* of the y values in titles */
};

/* One line of a line chart: n points (x, y); a NaN y breaks the line. */
struct svg_series {
	const char *name;
	const double *x, *y;
	size_t n;
};
void svg_lines(FILE *f, const struct svg_plot *p, const struct svg_series *s,
	       size_t ns);

/* A heat map: nx columns by ny rows (x_edge[nx + 1], y_edge[ny + 1]);
 * count[i * ny + j] in column i, row j.  Cells with 0 are not drawn. */
struct svg_heat {
	const double *x_edge, *y_edge;
	const uint64_t *count;
	size_t nx, ny;
	const char *what;	/* of the counts, in titles ("ops") */
};
void svg_heatmap(FILE *f, const struct svg_plot *p, const struct svg_heat *h);

/* Bars standing at x = at (a size, on p->x) as high as value (on p->y),
 * with vertical marks across the plot (a server's limits). */
struct svg_bar {
	const char *label;
	double at, value;
};
struct svg_mark {
	double at;
	const char *label;
};
void svg_bars(FILE *f, const struct svg_plot *p, const struct svg_bar *b,
	      size_t nb, const struct svg_mark *m, size_t nm);

/* A timeline: spans from..to on the x axis (a time axis), one row each,
 * coloured by level (0 note, 1 warning, 2 problem). */
struct svg_span {
	double from, to;
	const char *label;
	const char *detail;	/* the title's second line, or NULL */
	int level;
};
void svg_timeline(FILE *f, const struct svg_plot *p, const struct svg_span *s,
		  size_t n);

/*
 * Axis ticks: at most max values between lo and hi, written to t[]:
 * linear on a 1-2-5 step, log on decades (and 2 and 5 within few
 * decades), bytes on powers of two, time on whole seconds, minutes or
 * hours.  Returns the count.
 */
size_t svg_ticks(const struct svg_axis *a, double *t, size_t max);

#endif
