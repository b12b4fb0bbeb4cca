/*
 * svg_page.c - a page of every chart ui/report/svg.c draws, from fixed inputs
 * (the same numbers svg_check.py expects), including a label from the
 * wire with markup, quotes and control bytes in it.
 *
 *   svg_page OUT.html
 */
#include <math.h>
#include <stdio.h>

#include "ui/report/svg.h"

int main(int argc, char **argv)
{
	static const double x[] = { 0, 1, 2, 3, 4, 5 };
	static const double read[] = { 10, 12.5, 11, NAN, 30, 28.25 };
	static const double write[] = { 1, 2, 3, 4, 5, 6 };
	static const double xe[] = { 0, 10, 20 };
	static const double ye[] = { 0.01, 0.1, 1, 10 };
	static const uint64_t cnt[] = { 5, 0, 1, 100, 7, 0 };
	struct svg_series s[] = {
		{ "NFSv3 READ", x, read, 6 },
		{ "<script>alert(1)</script> \"q\" \x1b[31m", x, write, 6 },
	};
	struct svg_plot p = {
		.id = "lines", .title = "Operations per second", .w = 640,
		.h = 240, .x = { 0, 5, false, true, false, "time" },
		.y = { 0, 35, false, false, false, "ops/s" }, .t0_ns =
		1796033994000000000LL, .tmode = UI_TIME_UTC, .unit = "ops/s",
		.digits = 2,
	};
	struct svg_heat h = { xe, ye, cnt, 2, 3, "ops" };
	struct svg_bar b[] = { { "READ 32768", 32768, 900 }, { "READ 4096", 4096, 12 } };
	struct svg_mark m[] = { { 1048576, "rtmax 1M" }, { 65536, "rtpref 64k" } };
	struct svg_span sp[] = {
		{ 1, 4, "GETATTR storm", "900 calls/s & more", 2 },
		{ 0, 20, "vantage: client side", NULL, 0 },
	};
	FILE *f;

	if (argc != 2 || (f = fopen(argv[1], "w")) == NULL)
		return 2;
	fputs("<html xmlns=\"http://www.w3.org/1999/xhtml\"><body>\n", f);
	svg_lines(f, &p, s, 2);
	p.id = "heat";
	p.title = "Latency";
	p.x.hi = 20;
	p.y = (struct svg_axis){ 0.01, 10, true, false, false, "latency (ms)" };
	svg_heatmap(f, &p, &h);
	p.id = "bars";
	p.title = "READ sizes";
	p.x = (struct svg_axis){ 512, 2097152, true, false, true, "bytes" };
	p.y = (struct svg_axis){ 0, 1000, false, false, false, "operations" };
	p.unit = "ops";
	p.digits = 0;
	svg_bars(f, &p, b, 2, m, 2);
	p.id = "timeline";
	p.title = "Findings";
	p.x = (struct svg_axis){ 0, 20, false, true, false, "time" };
	svg_timeline(f, &p, sp, 2);
	fputs("</body></html>\n", f);
	return fclose(f) != 0;
}
