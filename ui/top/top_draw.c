/*
 * top_draw.c - the dashboard's screen: header, panels, help; see top.h.
 * Draws only from a struct tm_view (never from the model), so it runs
 * without the model's lock.  Every line is formatted into a buffer and
 * clipped to the terminal's width; 80x24 shows every panel usefully.
 */
#include "ui/esc.h"
#include "base/units.h"
#include "ui/times.h"
#include "analyze/judge.h"
#include "ui/top/top.h"

#include <curses.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The windows and the keys (the help screen; top.c's usage prints them). */
const struct tm_window tm_windows[] = {
	{ "10s", 10000000000LL }, { "1m", 60000000000LL },
	{ "5m", 300000000000LL }, { "all", 0 },
};
const int tm_nwindows = 4;

const struct tm_key tm_keys[] = {
	{ "1-7", "show panel: 1 Ops 2 Clients 3 Servers 4 Sizes 5 Retrans "
	  "6 Findings 7 Latency" },
	{ "Tab, Right", "next panel" },
	{ "Shift-Tab, Left", "previous panel" },
	{ "Up/Down, k/j", "move the selection" },
	{ "PgUp/PgDn", "move the selection a page" },
	{ "Home/End, g/G", "first / last row" },
	{ "< >", "sort by the previous / next column" },
	{ "r", "reverse the sort order" },
	{ "/", "filter: client=ADDR server=ADDR op=NAME path=TEXT or a word "
	  "(ADDR may end in *; empty input clears)" },
	{ "c", "clear the filters" },
	{ "Enter", "drill down: procedure -> latency histogram; client or "
	  "server -> its operations; finding -> its evidence" },
	{ "Esc, Backspace", "go back" },
	{ "l", "latency over time of the selected row (panel 7)" },
	{ "w", "time window: 10 s -> 1 min -> 5 min -> all" },
	{ "[ ]", "move the window one width earlier / later" },
	{ "f", "follow the newest data again" },
	{ "Space, p", "pause the display (capture and recording go on)" },
	{ "+ -", "replay twice / half as fast (-r without --fast)" },
	{ "?", "this help" },
	{ "q", "quit" },
	{ NULL, NULL },
};

enum colid {
	C_NAME, C_COUNT, C_OPSS, C_SHARE, C_AVG, C_P50, C_P99, C_MAX, C_ERR,
	C_RETR, C_RMB, C_WMB, C_RSIZE, C_WSIZE, C_FIND, C_NONE
};

static const char *const col_titles[] = {
	[C_NAME] = "", [C_COUNT] = "OPS", [C_OPSS] = "OPS/S",
	[C_SHARE] = "SHARE", [C_AVG] = "AVG ms", [C_P50] = "P50 ms",
	[C_P99] = "P99 ms", [C_MAX] = "MAX ms", [C_ERR] = "ERR",
	[C_RETR] = "RETR", [C_RMB] = "RD MB/s", [C_WMB] = "WR MB/s",
	[C_RSIZE] = "RSIZE", [C_WSIZE] = "WSIZE", [C_FIND] = "FIND",
};

#define NCOLS 10
static const enum colid panel_cols[3][NCOLS] = {
	{ C_NAME, C_COUNT, C_OPSS, C_SHARE, C_AVG, C_P50, C_P99, C_MAX, C_ERR,
	  C_RETR },
	{ C_NAME, C_COUNT, C_OPSS, C_RMB, C_WMB, C_P99, C_RETR, C_RSIZE,
	  C_WSIZE, C_FIND },
	{ C_NAME, C_COUNT, C_OPSS, C_RMB, C_WMB, C_P50, C_P99, C_ERR, C_RETR,
	  C_NONE },
};
static const char *const group_title[3] = { "PROCEDURE", "CLIENT", "SERVER" };
static const char *const panel_names[TP_N] = {
	"Ops", "Clients", "Servers", "Sizes", "Retrans", "Findings", "Latency" };

enum { PAIR_HEAD = 1, PAIR_SEL, PAIR_BAD, PAIR_WARN, PAIR_GOOD, PAIR_BAR };

int tm_panel_group(enum tm_panel p)
{
	return p == TP_OPS ? 0 : p == TP_CLIENTS ? 1 : p == TP_SERVERS ? 2 : -1;
}

/* ---------------------------------------------------------- helpers -- */

static void line_at(int y, attr_t a, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Print one clipped line at row y, padded to the full width. */
static void line_at(int y, attr_t a, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	if (y < 0 || y >= LINES)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	attrset(a);
	mvaddnstr(y, 0, buf, COLS);
	if ((int)strlen(buf) < COLS)
		hline(' ', COLS - (int)strlen(buf));
	attrset(A_NORMAL);
}

/*
 * Print items on row y separated by two spaces, in their order, as many as
 * fit whole: an item never shows cut.  When not all fit, they are taken by
 * rank (rank[k]: 0 first; NULL: in order).  With cut_last, the last item
 * may be cut instead of left out (a source path: text, not a figure).
 */
static void items_at(int y, attr_t a, const char *const *item,
		     const int *rank, int n, bool cut_last)
{
	char buf[1024];
	bool take[16] = { false };
	size_t o = 0, used = 1;
	int k, r;

	for (r = 0; r < n && r < 16; r++)
		for (k = 0; k < n && k < 16; k++) {
			size_t len = strlen(item[k]);

			if ((rank ? rank[k] : k) != r || len == 0)
				continue;
			if (cut_last && k == n - 1)
				take[k] = true;	/* takes what is left */
			else if (used + len + 2 <= (size_t)COLS) {
				take[k] = true;
				used += len + 2;
			}
		}
	buf[0] = '\0';
	for (k = 0; k < n && k < 16 && o < sizeof(buf); k++)
		if (take[k])
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%s",
					      o ? "  " : " ", item[k]);
	line_at(y, a, "%s", buf);
}

static attr_t pair(const struct tm_ui *u, int p, attr_t mono)
{
	return u->color ? (attr_t)COLOR_PAIR(p) : mono;
}

/* At most 7 characters: 3 decimals below 1 s, then fewer. */
static const char *fmt_ms(uint64_t ns, bool have, char *b, size_t n)
{
	double ms = (double)ns / 1e6;

	if (!have)
		snprintf(b, n, "-");
	else if (ms < 1000)
		snprintf(b, n, "%.3f", ms);
	else if (ms < 100000)
		snprintf(b, n, "%.1f", ms);
	else
		snprintf(b, n, "%.0f", ms);
	return b;
}

/* At most 6 characters: exact below a million. */
static const char *fmt_count(uint64_t v, char *b, size_t n)
{
	if (v < 1000000)
		snprintf(b, n, "%" PRIu64, v);
	else if (v < NSEC_PER_SEC)
		snprintf(b, n, "%.1fM", (double)v / 1e6);
	else
		snprintf(b, n, "%.1fG", (double)v / 1e9);
	return b;
}

static const char *fmt_size(uint32_t s, char *b, size_t n)
{
	if (s == 0)
		snprintf(b, n, "-");
	else if (s % (1024 * 1024) == 0)
		snprintf(b, n, "%uM", s / (1024 * 1024));
	else if (s % 1024 == 0)
		snprintf(b, n, "%uk", s / 1024);
	else
		snprintf(b, n, "%u", s);
	return b;
}

static const char *fmt_clock(int64_t ns, char *b, size_t n)
{
	time_t t = (time_t)(ns / NSEC_PER_SEC);
	struct tm tm;

	if (ns <= 0) {
		snprintf(b, n, "--:--:--");
		return b;
	}
	localtime_r(&t, &tm);
	strftime(b, n, "%H:%M:%S", &tm);
	return b;
}

static const char *fmt_dur(double s, char *b, size_t n)
{
	long t = s > 0 ? (long)s : 0;

	snprintf(b, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
	return b;
}

/* Keep panel p's selection among its n rows and in its h visible ones. */
static void keep_visible(struct tm_ui *u, enum tm_panel p, int n, int h)
{
	if (u->sel[p] >= n)
		u->sel[p] = n - 1;
	if (u->sel[p] < 0)
		u->sel[p] = 0;
	if (u->sel[p] < u->first[p])
		u->first[p] = u->sel[p];
	if (h > 0 && u->sel[p] >= u->first[p] + h)
		u->first[p] = u->sel[p] - h + 1;
}

/* A bar of share (0..1) of the width left from column x on row y. */
static void bar_at(const struct tm_ui *u, int y, int x, double share)
{
	char bar[512];
	int w = COLS - x - 1, len;

	if (w <= 0)
		return;
	len = (int)(share * w + 0.5);
	if (len > (int)sizeof(bar) - 1)
		len = (int)sizeof(bar) - 1;
	memset(bar, '#', (size_t)len);
	bar[len] = '\0';
	attrset(pair(u, PAIR_BAR, A_BOLD));
	mvaddnstr(y, x, bar, COLS - x);
	attrset(A_NORMAL);
}

/* ------------------------------------------------------------ sorting -- */

static double col_val(const struct tm_view *v, const struct tm_row *r,
		      enum colid c)
{
	switch (c) {
	case C_COUNT: case C_OPSS: case C_SHARE: return (double)r->calls;
	case C_AVG: return hist_mean(&r->lat);
	case C_P50: return (double)hist_percentile(&r->lat, 50);
	case C_P99: return (double)hist_percentile(&r->lat, 99);
	case C_MAX: return (double)r->lat.max;
	case C_ERR: return (double)r->errors;
	case C_RETR: return (double)r->retrans;
	case C_RMB: return (double)r->rbytes;
	case C_WMB: return (double)r->wbytes;
	case C_RSIZE: return (double)r->rsize_max;
	case C_WSIZE: return (double)r->wsize_max;
	case C_FIND: return (double)r->findings;
	default: (void)v; return 0;
	}
}

static const struct tm_view *sort_v;
static const struct tm_row *sort_rows;
static enum colid sort_c;
static bool sort_rev;

static int order_cmp(const void *x, const void *y)
{
	const struct tm_row *a = &sort_rows[*(const uint32_t *)x];
	const struct tm_row *b = &sort_rows[*(const uint32_t *)y];
	int c;

	if (sort_c == C_NAME) {
		c = strcmp(a->name, b->name);
	} else {
		double va = col_val(sort_v, a, sort_c), vb = col_val(sort_v, b,
								     sort_c);
		/* numbers: largest first */
		c = va < vb ? 1 : va > vb ? -1 : strcmp(a->name, b->name);
	}
	return sort_rev ? -c : c;
}

void tm_sort(struct tm_ui *u, const struct tm_view *v)
{
	int g;

	for (g = 0; g < 3; g++) {
		enum tm_panel p = g == 0 ? TP_OPS : g == 1 ? TP_CLIENTS :
				  TP_SERVERS;
		uint32_t k, n = v->nrows[g];

		if (n > u->order_cap[g]) {
			uint32_t *o = realloc(u->order[g], n * sizeof(*o));

			if (o == NULL)
				return;
			u->order[g] = o;
			u->order_cap[g] = n;
		}
		for (k = 0; k < n; k++)
			u->order[g][k] = k;
		sort_v = v;
		sort_rows = v->rows[g];
		sort_c = panel_cols[g][u->sort_col[p]];
		sort_rev = u->sort_rev[p];
		if (n)
			qsort(u->order[g], n, sizeof(uint32_t), order_cmp);
		/* keep the selection on the same key when rows move */
		if (u->have_sel_key[p])
			for (k = 0; k < n; k++)
				if (v->rows[g][u->order[g][k]].key == u->sel_key[p]) {
					u->sel[p] = (int)k;
					break;
				}
	}
}

uint32_t tm_rows_shown(const struct tm_ui *u, const struct tm_view *v,
		       enum tm_panel p)
{
	int g = tm_panel_group(p);

	(void)u;
	if (g >= 0)
		return v->nrows[g];
	if (p == TP_FINDINGS)
		return v->nfindings;
	return 0;
}

/* ------------------------------------------------------------- header -- */

static void draw_header(const struct tm_ui *u, const struct tm_view *v)
{
	static const char *const modes[] = { "live", "replay", "database" };
	char clock[32], from[32], to[32], el[32], spd[32] = "", state[64] = "";
	char filt[300], h[5][320];
	int x, p;

	if (v->mode == TM_REPLAY)
		snprintf(spd, sizeof(spd), v->speed > 0 ? " %gx" : " fast",
			 v->speed);
	if (v->failed)
		snprintf(state, sizeof(state), "ERROR");
	else if (v->input_cut)
		snprintf(state, sizeof(state), "INPUT CUT");
	else if (v->mode == TM_ATTACH)
		snprintf(state, sizeof(state), "run %s", v->run_state);
	else if (v->done)
		snprintf(state, sizeof(state), "%s", v->mode == TM_LIVE ?
			 "stopped" : "end of input");
	else
		snprintf(state, sizeof(state), "running");
	snprintf(h[0], sizeof(h[0]), "%s%s", state, u->paused ? "  PAUSED" :
		 "");
	snprintf(h[1], sizeof(h[1]), "%s +%s", fmt_clock(v->clock_ns, clock,
		 sizeof(clock)), fmt_dur((double)(v->clock_ns - v->first_ns) /
		 1e9, el, sizeof(el)));
	snprintf(h[2], sizeof(h[2]), "window %s %s-%s%s",
		 tm_windows[u->window].name, fmt_clock(v->from_ns, from,
		 sizeof(from)), fmt_clock(v->to_ns, to, sizeof(to)),
		 v->cut ? " (cut: history full)" : u->q.end_ns ? " (fixed)" : "");
	/* the source last: a long path is what the width cuts */
	snprintf(h[3], sizeof(h[3]), "%s%s %s", modes[v->mode], spd,
		 v->source);
	/* narrow: the window shown matters more than the clock, the
	   program's name least */
	items_at(0, pair(u, PAIR_HEAD, A_REVERSE), (const char *const[]){
		 "nfscope top", h[0], h[1], h[2], h[3] }, (const int[]){ 4, 0, 2,
		 1, 3 }, 5, true);
	snprintf(h[0], sizeof(h[0]), "pkts/s %.0f", v->pkts_s);
	snprintf(h[1], sizeof(h[1]), "drops %" PRIu64 "+%" PRIu64, v->drops,
		 v->ifdrops);
	snprintf(h[2], sizeof(h[2]), "ops/s %.1f", v->ops_s);
	snprintf(h[3], sizeof(h[3]), "rd %.2f wr %.2f MB/s", v->rmb_s,
		 v->wmb_s);
	snprintf(h[4], sizeof(h[4]), "clients %u servers %u", v->nclients,
		 v->nservers);
	items_at(1, A_NORMAL, (const char *const[]){ h[0], h[1], h[2], h[3],
		 h[4] }, (const int[]){ 3, 1, 0, 2, 4 }, 5, false);
	move(2, 0);
	clrtoeol();
	for (p = 0, x = 0; p < TP_N && x < COLS; p++) {
		char t[32];

		snprintf(t, sizeof(t), " %d %s ", p + 1, panel_names[p]);
		if (p == (int)u->panel)
			attrset(pair(u, PAIR_SEL, A_REVERSE) | A_BOLD);
		mvaddnstr(2, x, t, COLS - x);
		attrset(A_NORMAL);
		x += (int)strlen(t);
	}
	an_filter_str(&u->q.filt, filt, sizeof(filt));
	if (filt[0] && x + 10 < COLS) {
		attrset(pair(u, PAIR_WARN, A_BOLD));
		mvaddnstr(2, x, " filter: ", COLS - x);
		addnstr(filt, COLS - x - 9);
		attrset(A_NORMAL);
	}
}

/* ---------------------------------------------------------- row panels -- */

static void cell(char *b, size_t n, const struct tm_view *v,
		 const struct tm_row *r, enum colid c)
{
	char t[32];

	switch (c) {
	case C_COUNT: fmt_count(r->calls, b, n); break;
	case C_OPSS: snprintf(b, n, (double)r->calls / v->secs < 1000 ? "%.1f" :
			      "%.0f", (double)r->calls / v->secs); break;
	case C_SHARE: snprintf(b, n, "%.1f%%", v->ops ? 100.0 *
				(double)r->calls / (double)v->ops : 0); break;
	case C_AVG: snprintf(b, n, "%s", fmt_ms((uint64_t)hist_mean(&r->lat),
			     r->lat.count, t, sizeof(t))); break;
	case C_P50: snprintf(b, n, "%s", fmt_ms(hist_percentile(&r->lat, 50),
			     r->lat.count, t, sizeof(t))); break;
	case C_P99: snprintf(b, n, "%s", fmt_ms(hist_percentile(&r->lat, 99),
			     r->lat.count, t, sizeof(t))); break;
	case C_MAX: snprintf(b, n, "%s", fmt_ms(r->lat.max, r->lat.count, t,
						sizeof(t))); break;
	case C_ERR: fmt_count(r->errors, b, n); break;
	case C_RETR: fmt_count(r->retrans, b, n); break;
	case C_RMB: snprintf(b, n, "%.2f", (double)r->rbytes / 1e6 / v->secs);
		break;
	case C_WMB: snprintf(b, n, "%.2f", (double)r->wbytes / 1e6 / v->secs);
		break;
	case C_RSIZE: snprintf(b, n, "%s", fmt_size(r->rsize_n ? r->rsize : 0,
						    t, sizeof(t))); break;
	case C_WSIZE: snprintf(b, n, "%s", fmt_size(r->wsize_n ? r->wsize : 0,
						    t, sizeof(t))); break;
	case C_FIND: snprintf(b, n, "%u", r->findings); break;
	default: b[0] = '\0'; break;
	}
}

/*
 * Row panel layout, fitted to the terminal on every draw: a number is never
 * cut.  Each column is as wide as its title (with the sort mark) or its
 * widest value among the rows shown, plus one space before it.  The name
 * column takes what is left, up to NAME_MAX_W.  When that is too narrow for
 * the names, they are abbreviated (start~end) as long as the abbreviations
 * stay distinct and at least NAME_MIN_W wide; otherwise whole columns are
 * dropped, least useful first (drop_rank), never the count, the name or the
 * column the rows are sorted by.
 */
#define NAME_MAX_W 48
#define NAME_MIN_W 10

struct layout {
	int nw;			/* name column, its leading space included */
	int w[NCOLS];		/* per panel column; 0: dropped */
};

/* Higher: dropped earlier when the width is short. */
static int drop_rank(enum colid c)
{
	switch (c) {
	case C_MAX: return 9;
	case C_AVG: return 8;
	case C_SHARE: return 7;
	case C_FIND: return 6;
	case C_P50: return 5;
	case C_ERR: return 4;
	case C_WSIZE: case C_RSIZE: return 3;
	case C_WMB: case C_RMB: return 2;
	case C_RETR: return 1;
	default: return 0;	/* never: name, count, ops/s, p99 */
	}
}

static void col_title(const struct tm_ui *u, enum tm_panel p, int g, int k,
		      char *b, size_t n)
{
	const char *mark = u->sort_col[p] == k ? (u->sort_rev[p] ? "^" : "v") :
			   "";

	snprintf(b, n, "%s%s", k == 0 ? group_title[g] :
		 col_titles[panel_cols[g][k]], mark);
}

/* name abbreviated to w characters: its start, '~', its end. */
static const char *abbrev(const char *name, int w, char *b, size_t n)
{
	int len = (int)strlen(name), tail;

	if (len <= w || w < 3) {
		snprintf(b, n, "%s", name);
		return b;
	}
	tail = (w - 1) / 2;
	snprintf(b, n, "%.*s~%s", w - 1 - tail, name, name + len - tail);
	return b;
}

/* Do the names of rows [first, first + h) stay distinct at width w? */
static bool names_distinct(const struct tm_ui *u, const struct tm_view *v,
			   int g, int first, int h, int w)
{
	char a[128], b[128];
	int i, j, n = (int)v->nrows[g];

	for (i = first; i < first + h && i < n; i++) {
		abbrev(v->rows[g][u->order[g][i]].name, w, a, sizeof(a));
		for (j = i + 1; j < first + h && j < n; j++)
			if (!strcmp(a, abbrev(v->rows[g][u->order[g][j]].name, w,
					      b, sizeof(b))))
				return false;
	}
	return true;
}

static void layout(const struct tm_ui *u, const struct tm_view *v, int g,
		   int first, int h, struct layout *l)
{
	enum tm_panel p = g == 0 ? TP_OPS : g == 1 ? TP_CLIENTS : TP_SERVERS;
	int k, i, used, need, n = (int)v->nrows[g];
	char t[64];

	memset(l, 0, sizeof(*l));
	col_title(u, p, g, 0, t, sizeof(t));
	need = (int)strlen(t);
	for (i = first; i < first + h && i < n; i++) {
		int len = (int)strlen(v->rows[g][u->order[g][i]].name);

		if (len > need)
			need = len;
	}
	need = (need > NAME_MAX_W - 1 ? NAME_MAX_W - 1 : need) + 1;
	for (k = 1; k < NCOLS && panel_cols[g][k] != C_NONE; k++) {
		col_title(u, p, g, k, t, sizeof(t));
		l->w[k] = (int)strlen(t);
		for (i = first; i < first + h && i < n; i++) {
			cell(t, sizeof(t), v, &v->rows[g][u->order[g][i]],
			     panel_cols[g][k]);
			if ((int)strlen(t) > l->w[k])
				l->w[k] = (int)strlen(t);
		}
		l->w[k]++;
	}
	for (;;) {
		int worst = 0;

		for (used = 0, k = 1; k < NCOLS; k++)
			used += l->w[k];
		l->nw = COLS - 1 - used;
		if (l->nw > NAME_MAX_W)
			l->nw = NAME_MAX_W;
		if (l->nw >= need || (l->nw >= NAME_MIN_W &&
		    names_distinct(u, v, g, first, h, l->nw - 1)))
			break;
		for (k = 1; k < NCOLS && panel_cols[g][k] != C_NONE; k++)
			if (l->w[k] && k != u->sort_col[p] &&
			    drop_rank(panel_cols[g][k]) >
			    drop_rank(panel_cols[g][worst]))
				worst = k;
		if (worst == 0)
			break;	/* nothing left to drop: the line is clipped */
		l->w[worst] = 0;
	}
	if (l->nw < NAME_MIN_W)
		l->nw = NAME_MIN_W;
}

/* Format row r (NULL: the column titles) of group g into b. */
static void row_line(const struct tm_ui *u, const struct tm_view *v, int g,
		     const struct layout *l, const struct tm_row *r, char *b,
		     size_t n)
{
	enum tm_panel p = g == 0 ? TP_OPS : g == 1 ? TP_CLIENTS : TP_SERVERS;
	int k;
	size_t o;
	char t[128];

	if (r == NULL)
		col_title(u, p, g, 0, t, sizeof(t));
	else
		abbrev(r->name, l->nw - 1, t, sizeof(t));
	o = (size_t)snprintf(b, n, " %-*s", l->nw - 1, t);
	for (k = 1; k < NCOLS && o < n; k++) {
		if (l->w[k] == 0)
			continue;
		if (r == NULL)
			col_title(u, p, g, k, t, sizeof(t));
		else
			cell(t, sizeof(t), v, r, panel_cols[g][k]);
		o += (size_t)snprintf(b + o, n - o, "%*s", l->w[k], t);
	}
}

static void draw_rows(struct tm_ui *u, const struct tm_view *v, int y0,
		      int y1)
{
	enum tm_panel p = u->panel;
	int g = tm_panel_group(p), n = (int)v->nrows[g], k, h = y1 - y0 - 1;
	struct layout l;
	char b[1024];

	if (n > 0)
		keep_visible(u, p, n, h);
	layout(u, v, g, u->first[p], h, &l);
	row_line(u, v, g, &l, NULL, b, sizeof(b));
	line_at(y0, A_BOLD | A_UNDERLINE, "%s", b);
	if (n == 0) {
		line_at(y0 + 2, A_NORMAL, "  no operations in this window%s",
			an_filter_empty(&u->q.filt) ? "" : " match the filter");
		return;
	}
	for (k = 0; k < h && u->first[p] + k < n; k++) {
		int i = u->first[p] + k;
		const struct tm_row *r = &v->rows[g][u->order[g][i]];
		attr_t a = A_NORMAL;

		if (i == u->sel[p])
			a = pair(u, PAIR_SEL, A_REVERSE);
		else if (r->errors || r->retrans)
			a = pair(u, PAIR_WARN, A_NORMAL);
		row_line(u, v, g, &l, r, b, sizeof(b));
		line_at(y0 + 1 + k, a, "%s", b);
	}
	u->sel_key[p] = v->rows[g][u->order[g][u->sel[p]]].key;
	u->have_sel_key[p] = true;
}

/* -------------------------------------------------------------- sizes -- */

#define SIZES_SHOWN 4	/* per direction: the most used sizes */

static int draw_size_hist(const struct tm_ui *u, int y, int y1,
			  const char *what, const struct tm_size_count *s,
			  uint32_t ns, uint64_t other, uint64_t total)
{
	uint32_t k;
	char t[32];

	line_at(y++, A_BOLD, " %s sizes (%" PRIu64 " calls)%s", what, total,
		ns ? "" : ": none in this window");
	for (k = 0; k < ns && k < SIZES_SHOWN && y < y1; k++) {
		double share = total ? (double)s[k].n / (double)total : 0;

		line_at(y, A_NORMAL, "  %7s %8" PRIu64 " %5.1f%%  ",
			fmt_size(s[k].size, t, sizeof(t)), s[k].n, share * 100);
		bar_at(u, y++, 28, share);
	}
	for (; k < ns; k++)
		other += s[k].n;
	if (other && y < y1)
		line_at(y++, A_NORMAL, "  %7s %8" PRIu64 " %5.1f%%  (other sizes)",
			"", other, total ? 100.0 * (double)other / (double)total : 0);
	return y;
}

/* Print text wrapped at the width, indented; returns the next row. */
static int wrap(int y, int y1, attr_t a, int indent, const char *s)
{
	int w = COLS - indent - 1;

	if (w < 10)
		w = 10;
	while (*s && y < y1) {
		int n = (int)strlen(s), cut = n;

		if (n > w) {
			cut = w;
			while (cut > w / 2 && s[cut] != ' ')
				cut--;
			if (s[cut] != ' ')
				cut = w;
		}
		line_at(y++, a, "%*s%.*s", indent, "", cut, s);
		s += cut;
		while (*s == ' ')
			s++;
	}
	return y;
}

static void draw_sizes(const struct tm_ui *u, const struct tm_view *v,
		       int y, int y1)
{
	uint32_t k;

	y = draw_size_hist(u, y, y1, "READ", v->rsizes, v->nrsizes,
			   v->rsizes_other, v->nreads);
	y = draw_size_hist(u, y, y1, "WRITE", v->wsizes, v->nwsizes,
			   v->wsizes_other, v->nwrites);
	if (y < y1)
		line_at(y++, A_BOLD, " Server advertises%s", v->nfsinfo ? "" :
			": no FSINFO/STATFS reply seen");
	for (k = 0; k < v->nfsinfo && y < y1; k++)
		y = wrap(y, y1, A_NORMAL, 2, v->fsinfo[k]);
	if (y < y1)
		line_at(y++, A_BOLD, " Verdict (whole capture)%s", v->nverdicts ?
			"" : ": no READ or WRITE seen");
	for (k = 0; k < v->nverdicts && y < y1; k++)
		y = wrap(y, y1, pair(u, strstr(v->verdict[k], "caps") ?
				     PAIR_WARN : PAIR_GOOD, A_NORMAL), 2,
			 v->verdict[k]);
}

/* ----------------------------------------------------------- retrans -- */

static void series_table(const struct tm_ui *u, const struct tm_view *v,
			 int y, int y1);

static void draw_retrans(const struct tm_ui *u, const struct tm_view *v,
			 int y, int y1)
{
	static const char *const cause[AN_RX_NCAUSES] = {
		"no reply at all", "slow server (reply came after the resend)",
		"lost call or reply (quick answer to the resend)",
		"lost IP fragment (fragmented call or reply)",
		"TCP reconnect",
		"lost reply (a reply seen before the resend)",
		"client timeout under the server's usual latency" };
	uint64_t tot = 0;
	int k, best = -1;
	char h[5][96];

	snprintf(h[0], sizeof(h[0]), "retransmitted calls %" PRIu64 " (ops %"
		 PRIu64 ")", v->retrans, v->retrans_ops);
	snprintf(h[1], sizeof(h[1]), "duplicate replies %" PRIu64, v->dups);
	snprintf(h[2], sizeof(h[2]), "unanswered %" PRIu64, v->unanswered);
	items_at(y++, A_NORMAL, (const char *const[]){ h[0], h[1], h[2] }, NULL,
		 3, false);
	snprintf(h[0], sizeof(h[0]), "IP fragment trains lost %" PRIu64,
		 v->frag_lost);
	snprintf(h[1], sizeof(h[1]), "TCP gaps %" PRIu64, v->tcp_gaps);
	snprintf(h[2], sizeof(h[2]), "capture drops %" PRIu64 "+%" PRIu64,
		 v->drops, v->ifdrops);
	items_at(y++, A_NORMAL, (const char *const[]){ h[0], h[1], h[2] }, NULL,
		 3, false);
	for (k = 0; k < AN_RX_NCAUSES; k++) {
		tot += v->causes[k];
		if (v->causes[k] && (best < 0 || v->causes[k] > v->causes[best]))
			best = k;
	}
	if (best < 0) {
		line_at(y++, pair(u, PAIR_GOOD, A_NORMAL),
			" likely cause: none - no call was retransmitted");
	} else {
		char b[200];

		snprintf(b, sizeof(b), "likely cause: %s (%.0f%% of retransmitted "
			 "ops)", cause[best], 100.0 * (double)v->causes[best] /
			 (double)tot);
		y = wrap(y, y1, pair(u, PAIR_WARN, A_BOLD), 1, b);
	}
	/* the count first when the width cannot hold both columns */
	for (k = 0; k < AN_RX_NCAUSES && tot && y < y1; k++)
		if (v->causes[k] && COLS >= 64)
			line_at(y++, A_NORMAL, "   %-50s %8" PRIu64, cause[k],
				v->causes[k]);
		else if (v->causes[k])
			line_at(y++, A_NORMAL, "   %8" PRIu64 "  %s", v->causes[k],
				cause[k]);
	if (y + 1 >= y1)
		return;
	y++;
	series_table(u, v, y, y1);
}

/* The per-bucket table, newest first: whole columns only, as many as fit. */
static void series_table(const struct tm_ui *u, const struct tm_view *v,
			 int y, int y1)
{
	static const char *const title[] = { "OPS", "RETR", "DUPS", "UNANS",
		"FRAGLOST", "TCPGAPS", "DROPS" };
	enum { NSER = 7 };
	int k, c, ncol, w[NSER];
	char b[512], t[32];
	size_t o;

	for (c = 0; c < NSER; c++)
		w[c] = (int)strlen(title[c]) + 1;
	for (k = 0; k < (int)v->nseries; k++) {
		const struct tm_bucket *s = &v->series[k];
		const uint64_t x[NSER] = { s->calls, s->retrans, s->dup_replies,
			s->unanswered, s->frag_lost, s->tcp_gaps, s->drops };

		for (c = 0; c < NSER; c++)
			if ((int)snprintf(t, sizeof(t), "%" PRIu64, x[c]) + 1 > w[c])
				w[c] = (int)strlen(t) + 1;
	}
	for (ncol = 0, o = 10; ncol < NSER && o + (size_t)w[ncol] < (size_t)COLS;
	     ncol++)
		o += (size_t)w[ncol];
	o = (size_t)snprintf(b, sizeof(b), " %-9s", "TIME");
	for (c = 0; c < ncol; c++)
		o += (size_t)snprintf(b + o, sizeof(b) - o, "%*s", w[c], title[c]);
	line_at(y++, A_BOLD | A_UNDERLINE, "%s", b);
	for (k = (int)v->nseries - 1; k >= 0 && y < y1; k--) {
		const struct tm_bucket *s = &v->series[k];
		const uint64_t x[NSER] = { s->calls, s->retrans, s->dup_replies,
			s->unanswered, s->frag_lost, s->tcp_gaps, s->drops };

		o = (size_t)snprintf(b, sizeof(b), " %-9s",
				     fmt_clock(s->start_ns, t, sizeof(t)));
		for (c = 0; c < ncol; c++)
			o += (size_t)snprintf(b + o, sizeof(b) - o, "%*" PRIu64,
					      w[c], x[c]);
		line_at(y++, s->retrans || s->dup_replies || s->unanswered ||
			s->frag_lost || s->tcp_gaps || s->drops ?
			pair(u, PAIR_WARN, A_BOLD) : A_NORMAL, "%s", b);
	}
}

/* ---------------------------------------------------------- findings -- */

static const char *subject(const struct an_finding *f, char *b, size_t n)
{
	char a[48], e[4 * 64 + 1];

	if (f->have_client)
		cap_addr_str(&f->client, a, sizeof(a));
	else if (f->have_server)
		cap_addr_str(&f->server, a, sizeof(a));
	else
		snprintf(a, sizeof(a), "-");
	snprintf(b, n, "%s%s%.64s", a, f->path[0] ? " " : "",
		 ui_esc_str(e, sizeof(e), f->path, NULL));
	return b;
}

static void draw_findings(struct tm_ui *u, const struct tm_view *v, int y0,
			  int y1)
{
	int n = (int)v->nfindings, k, h = y1 - y0 - 1;
	enum tm_panel p = TP_FINDINGS;
	char t[32], s[128], e[4 * AN_EVIDENCE_MAX], t2[2 * AN_EVIDENCE_MAX];

	line_at(y0, A_BOLD | A_UNDERLINE, " %-9s %-16s %-22s %8s  %s", "TIME",
		"FINDING", "SUBJECT", "COUNT", "EVIDENCE (Enter: details)");
	if (n == 0) {
		line_at(y0 + 2, pair(u, PAIR_GOOD, A_NORMAL), "  no findings%s",
			v->done ? "" : " so far");
		return;
	}
	keep_visible(u, p, n, h);
	for (k = 0; k < h && u->first[p] + k < n; k++) {
		int i = u->first[p] + k;
		const struct an_finding *f = &v->findings[i];

		line_at(y0 + 1 + k, i == u->sel[p] ? pair(u, PAIR_SEL, A_REVERSE) :
			pair(u, PAIR_WARN, A_NORMAL),
			" %-9s %-16s %-22.22s %8" PRIu64 "  %s",
			f->start_ns ? fmt_clock(f->start_ns, t, sizeof(t)) :
			"(all)",
			an_find_kind_name(f->kind), subject(f, s, sizeof(s)),
			f->count, ui_esc_str(e, sizeof(e),
					     ui_time_text(f->evidence, UI_TIME_LOCAL,
							  t2, sizeof(t2)), NULL));
	}
	u->detail_find = v->findings[u->sel[p]];
}

static void draw_evidence(const struct tm_ui *u, int y, int y1)
{
	const struct an_finding *f = &u->detail_find;
	char a[32], b[32], s[128], e[4 * AN_EVIDENCE_MAX];
	char t[2 * AN_EVIDENCE_MAX];

	line_at(y++, A_BOLD, " %s  %s", an_find_kind_name(f->kind),
		subject(f, s, sizeof(s)));
	if (f->start_ns)
		line_at(y++, A_NORMAL, " from %s to %s, count %" PRIu64
			", peak %.0f/s", fmt_clock(f->start_ns, a, sizeof(a)),
			fmt_clock(f->end_ns, b, sizeof(b)), f->count,
			f->peak_rate);
	else
		line_at(y++, A_NORMAL, " over the whole input, count %" PRIu64,
			f->count);
	y++;
	line_at(y++, A_BOLD, " Evidence");
	y = wrap(y, y1, A_NORMAL, 2, ui_esc_str(e, sizeof(e),
				ui_time_text(f->evidence, UI_TIME_LOCAL, t,
					     sizeof(t)), NULL));
	y++;
	line_at(y++, A_BOLD, " What it means");
	wrap(y, y1, A_NORMAL, 2, f->meaning ? f->meaning : "");
}

/* ----------------------------------------------------------- latency -- */

static void draw_histogram(const struct tm_ui *u, const struct tm_view *v,
			   int y, int y1)
{
	const struct tm_row *r = NULL;
	uint64_t lo, hi, n, maxn = 0;
	uint32_t k;
	unsigned c;
	char a[32], b[32], p50[32], p99[32], title[200];

	for (k = 0; k < v->nrows[0]; k++)
		if (v->rows[0][k].key == u->detail_key)
			r = &v->rows[0][k];
	if (r == NULL) {
		line_at(y, A_NORMAL, "  no operations of this procedure in the "
			"window");
		return;
	}
	snprintf(title, sizeof(title), "%s latency histogram: %" PRIu64
		 " answered, p50 %s ms, p99 %s ms", r->name, r->lat.count,
		 fmt_ms(hist_percentile(&r->lat, 50), r->lat.count, p50,
		 sizeof(p50)), fmt_ms(hist_percentile(&r->lat, 99),
		 r->lat.count, p99, sizeof(p99)));
	y = wrap(y, y1, A_BOLD, 1, title);
	line_at(y++, A_BOLD | A_UNDERLINE, " %-22s %9s %6s", "LATENCY ms",
		"OPS", "SHARE");
	for (c = 0; c < HIST_NCHUNK; c++)
		if ((n = hist_range_count(&r->lat, c, &lo, &hi)) > maxn)
			maxn = n;
	for (c = 0; c < HIST_NCHUNK && y < y1; c++) {
		n = hist_range_count(&r->lat, c, &lo, &hi);
		if (n == 0)
			continue;
		snprintf(a, sizeof(a), "%.4f", (double)lo / 1e6);
		snprintf(b, sizeof(b), "%.4f", (double)hi / 1e6);
		line_at(y, A_NORMAL, " %10s-%-11s %9" PRIu64 " %5.1f%% ", a, b,
			n, 100.0 * (double)n / (double)r->lat.count);
		bar_at(u, y, 42, (double)n / (double)maxn);
		y++;
	}
}

/* Row boundaries of the chart: logarithmic between lo and hi (latencies
 * span decades; a linear axis flattens everything below the worst). */
static uint64_t axis(uint64_t lo, uint64_t hi, int row, int h)
{
	double l = log((double)lo), r = log((double)hi);

	return (uint64_t)exp(l + (r - l) * (double)(h - row) / (double)h);
}

static void draw_latency(const struct tm_ui *u, const struct tm_view *v,
			 int y, int y1)
{
	int h, x0 = 10, k, row;
	uint64_t top = 1, bot = UINT64_MAX;
	char a[32], b[32], c[32], d[32], title[300];

	snprintf(title, sizeof(title), "Latency over time: %s  (%" PRIu64
		 " answered, p50 %s ms, p99 %s ms; '|' p99, '*' p50 per %.0f s, "
		 "log scale)", v->sel_name[0] ? v->sel_name : "all operations",
		 v->sel_lat.count, fmt_ms(hist_percentile(&v->sel_lat, 50),
		 v->sel_lat.count, a, sizeof(a)),
		 fmt_ms(hist_percentile(&v->sel_lat, 99), v->sel_lat.count, b,
		 sizeof(b)), (double)v->bucket_ns / 1e9);
	y = wrap(y, y1, A_BOLD, 1, title);
	h = y1 - y - 2;
	if (h < 3 || v->sel_lat.count == 0) {
		line_at(y + 1, A_NORMAL, "  no answered operations of the "
			"selection in this window");
		return;
	}
	for (k = 0; k < (int)v->nseries; k++) {
		const struct tm_bucket *s = &v->series[k];

		if (s->lat_n == 0)
			continue;
		if (s->p99 > top)
			top = s->p99;
		if (s->p50 < bot)
			bot = s->p50;
	}
	bot = bot < 1000 ? 1000 : bot / 2;	/* >= 1 us, room below p50 */
	if (top <= bot)
		top = bot * 2;
	for (row = 0; row < h; row++) {
		uint64_t lo = axis(bot, top, row + 1, h), hi = axis(bot, top, row, h);

		if (row == 0 || row == h - 1 || row == h / 2)
			line_at(y + row, A_NORMAL, "%8s |", fmt_ms(hi, true, c,
								   sizeof(c)));
		else
			line_at(y + row, A_NORMAL, "%8s |", "");
		for (k = 0; k < (int)v->nseries && x0 + k < COLS; k++) {
			const struct tm_bucket *s = &v->series[k];
			int ch = ' ';

			if (s->lat_n == 0)
				continue;
			if (s->p99 > lo && s->p50 <= hi)
				ch = '|';
			if (s->p50 > lo && s->p50 <= hi)
				ch = '*';
			if (row == h - 1 && s->p50 <= lo)
				ch = '*';
			if (ch != ' ') {
				attrset(ch == '*' ? pair(u, PAIR_GOOD, A_BOLD) :
					pair(u, PAIR_BAR, A_NORMAL));
				mvaddch(y + row, x0 + k, (chtype)ch);
				attrset(A_NORMAL);
			}
		}
	}
	line_at(y + h, A_NORMAL, "%8s +%.*s", "ms", v->nseries < 500 ?
		(int)v->nseries : 500, "--------------------------------------"
		"------------------------------------------------------------"
		"------------------------------------------------------------"
		"------------------------------------------------------------"
		"------------------------------------------------------------"
		"------------------------------------------------------------"
		"------------------------------------------------------------"
		"------------------------------------------------------------"
		"------------------------------------------------------------");
	if (v->nseries >= 20)
		line_at(y + h + 1, A_NORMAL, "%10s%-*s%s", "",
			(int)v->nseries - 8, fmt_clock(v->from_ns, c, sizeof(c)),
			fmt_clock(v->to_ns, d, sizeof(d)));
	else
		line_at(y + h + 1, A_NORMAL, "%10s%s .. %s", "",
			fmt_clock(v->from_ns, c, sizeof(c)),
			fmt_clock(v->to_ns, d, sizeof(d)));
}

/* -------------------------------------------------------------- help -- */

static void draw_help(int y, int y1)
{
	int k;

	line_at(y++, A_BOLD, " Keys (any key closes this help)");
	for (k = 0; tm_keys[k].key && y < y1; k++)
		line_at(y++, A_NORMAL, "  %-18s %s", tm_keys[k].key,
			tm_keys[k].what);
}

static void draw_footer(const struct tm_ui *u)
{
	if (u->prompting) {
		line_at(LINES - 1, A_BOLD, "filter (client= server= op= path= or a "
			"word; empty clears): %s", u->prompt);
		curs_set(1);
		return;
	}
	curs_set(0);
	if (u->msg[0]) {
		line_at(LINES - 1, pair(u, PAIR_BAD, A_BOLD), " %s", u->msg);
		return;
	}
	line_at(LINES - 1, pair(u, PAIR_HEAD, A_REVERSE),
		" q quit  ? help  1-7/Tab panel  </> sort  / filter  Enter drill  "
		"Esc back  w window  [ ] move  f follow  l latency  space pause");
}

void tm_draw(struct tm_ui *u, const struct tm_view *v)
{
	int y0 = 3, y1 = LINES - 1;

	if (u->color && !has_colors())
		u->color = false;
	erase();
	draw_header(u, v);
	if (v->failed)
		line_at(y0++, pair(u, PAIR_BAD, A_BOLD), " %s", v->err);
	if (v->note[0])
		line_at(y0++, pair(u, PAIR_WARN, A_BOLD), " %s", v->note);
	if (v->cs.tcp_hidden_spans)
		line_at(y0++, pair(u, PAIR_WARN, A_BOLD), " INCOMPLETE: ~%"
			PRIu64 " calls ~%" PRIu64 " replies hidden: snaplen %"
			PRIu64 " < TCP segments up to %" PRIu64 " B; counts, "
			"sizes, R/W latency too low (-s 0)",
			v->cs.tcp_hidden_calls, v->cs.tcp_hidden_replies,
			v->cs.snap_caplen, v->cs.tcp_seg_max);
	{	/* the verdict first (analyze/judge.h) */
		char vl[AN_VERDICT_COLS];

		an_judge_line(v->findings, v->nfindings,
			      v->cs.tcp_hidden_spans || v->drops ||
			      v->ifdrops, vl, sizeof(vl) - 1);
		line_at(y0++, pair(u, v->nfindings ? PAIR_WARN : PAIR_GOOD,
				   A_BOLD), " %s", vl);
	}
	if (u->help)
		draw_help(y0, y1);
	else if (u->detail == TD_HIST)
		draw_histogram(u, v, y0, y1);
	else if (u->detail == TD_EVIDENCE)
		draw_evidence(u, y0, y1);
	else if (tm_panel_group(u->panel) >= 0)
		draw_rows(u, v, y0, y1);
	else if (u->panel == TP_SIZES)
		draw_sizes(u, v, y0, y1);
	else if (u->panel == TP_RETRANS)
		draw_retrans(u, v, y0, y1);
	else if (u->panel == TP_FINDINGS)
		draw_findings(u, v, y0, y1);
	else
		draw_latency(u, v, y0, y1);
	draw_footer(u);
	if (u->prompting)
		move(LINES - 1, (int)strlen("filter (client= server= op= path= or "
				 "a word; empty clears): ") + (int)u->plen);
	refresh();
}

void tm_colors(void)
{
	start_color();
	use_default_colors();
	init_pair(PAIR_HEAD, COLOR_BLACK, COLOR_CYAN);
	init_pair(PAIR_SEL, COLOR_BLACK, COLOR_YELLOW);
	init_pair(PAIR_BAD, COLOR_WHITE, COLOR_RED);
	init_pair(PAIR_WARN, COLOR_YELLOW, -1);
	init_pair(PAIR_GOOD, COLOR_GREEN, -1);
	init_pair(PAIR_BAR, COLOR_CYAN, -1);
}
