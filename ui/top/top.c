/*
 * top.c - `nfscope top`: options, the UI thread's loop and its keys; see
 * top.h for the threads, top_draw.c for the screen.
 */
#include "ui/top/top.h"
#include "ui/cli.h"
#include "ui/serve/metrics.h"
#include "ui/wrap.h"

#include <curses.h>
#include <getopt.h>
#include <inttypes.h>
#include <locale.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <time.h>
#include <unistd.h>

int ui_top_main(int argc, char **argv);


struct top {
	struct tm_model m;
	struct tm_view v;
	struct tm_ui u;
	struct tm_worker *w;
	int refresh_ms;
};

/* "  KEY   what", the description broken at spaces to fit 80 columns,
 * its continuation lines under its start. */
static void key_usage(FILE *f, const char *key, const char *what)
{
	const size_t room = UI_WRAP_COLS - 21;
	size_t cut, k;

	fprintf(f, "  %-18s ", key);
	while (strlen(what) > room) {
		for (cut = 0, k = 1; k <= room; k++)
			if (what[k] == ' ')
				cut = k;
		if (cut == 0)
			break;
		fprintf(f, "%.*s\n%21s", (int)cut, what, "");
		what += cut + 1;
	}
	fprintf(f, "%s\n", what);
}

static void top_usage(FILE *f)
{
	int k;

	fputs("usage: nfscope top -r FILE [--speed X | --fast] [-w OUT.db]\n"
	      "                   [capture options] [EXPRESSION]\n"
	      "       nfscope top -i IFACE [-w OUT.db] [capture options] "
	      "[EXPRESSION]\n"
	      "       nfscope top DB.db [--run N]\n"
	      "options (all sources): [--window 10s|1m|5m|all] [--refresh MS] "
	      "[--no-color]\n"
	      "                       [--history OPS] [--addresses N]\n"
	      "options (-r, -i): [--metrics ADDR:PORT [--metrics-max N]]\n"
	      UI_HELP_USAGE
	      "  -r FILE        replay a capture at its own pace, then browse it\n"
	      "  --speed X      -r: X times faster (0 < X <= 1000000)\n"
	      "  --fast         -r: as fast as possible\n"
	      "  -i IFACE       capture live\n"
	      "  -w OUT.db      also record the analysis into OUT.db (as record)\n"
	      "  DB.db          attach to a database, also one a record process "
	      "is writing\n"
	      "  --run N        attach: show run N (default: the last)\n"
	      "  --window W     initial time window (default 1m)\n"
	      "  --refresh MS   redraw period, 100..10000 ms (default 500)\n"
	      "  --no-color     no colours (also: NO_COLOR set)\n"
	      "  --history OPS  operations kept for browsing (default 1M)\n"
	      "  --addresses N  addresses named, 16..65535 (default); the rest "
	      "are\n"
	      "                 one row, (other)\n"
	      "  --metrics ADDR:PORT  also serve GET /metrics (Prometheus, "
	      "as serve)\n"
	      "  --metrics-max N      at most N metric series (default 16384)\n"
	      "Needs a terminal; for a text report use 'nfscope report'.\n"
	      "capture options (-r, -i):\n" UI_SRC_USAGE, f);
	ui_budget_usage(f);
	fputs("keys:\n", f);
	for (k = 0; tm_keys[k].key; k++)
		key_usage(f, tm_keys[k].key, tm_keys[k].what);
}

/* --------------------------------------------------------------- keys -- */

static void push(struct top *t, enum tm_panel to, const struct an_filter *f)
{
	struct tm_ui *u = &t->u;

	if (u->depth == TM_STACK) {
		snprintf(u->msg, sizeof(u->msg), "drill-down too deep: Esc first");
		return;
	}
	u->stack_filt[u->depth] = u->q.filt;
	u->stack_panel[u->depth++] = u->panel;
	u->q.filt = *f;
	u->panel = to;
	u->sel[to] = 0;
	u->first[to] = 0;
	u->have_sel_key[to] = false;
}

static void back(struct top *t)
{
	struct tm_ui *u = &t->u;

	if (u->detail != TD_NONE) {
		u->detail = TD_NONE;
		return;
	}
	if (u->depth > 0) {
		u->depth--;
		u->q.filt = u->stack_filt[u->depth];
		u->panel = u->stack_panel[u->depth];
	}
}

/* Drill into a client or server: it replaces that side's terms. */
static void push_addr(struct top *t, struct an_filter *f,
		      enum an_filter_key side, const char *addr)
{
	*(side == AN_FK_CLIENT ? &f->n_client : &f->n_server) = 0;
	if (an_filter_add(f, side, addr, t->u.msg, sizeof(t->u.msg)) == 0)
		push(t, TP_OPS, f);
}

/* The selected row of a row panel, or NULL. */
static const struct tm_row *selected(const struct top *t)
{
	const struct tm_ui *u = &t->u;
	int g = tm_panel_group(u->panel), s = u->sel[u->panel];

	if (g < 0 || s < 0 || (uint32_t)s >= t->v.nrows[g])
		return NULL;
	return &t->v.rows[g][u->order[g][s]];
}

static void drill(struct top *t)
{
	struct tm_ui *u = &t->u;
	const struct tm_row *r = selected(t);
	struct an_filter f = u->q.filt;

	if (u->panel == TP_OPS && r) {
		u->detail = TD_HIST;
		u->detail_key = r->key;
	} else if ((u->panel == TP_CLIENTS || u->panel == TP_SERVERS) && r) {
		/* the "(other)" row (addresses past the table) by its name */
		push_addr(t, &f, u->panel == TP_CLIENTS ? AN_FK_CLIENT :
			  AN_FK_SERVER, r->key ? r->name : TM_OTHER "*");
	} else if (u->panel == TP_FINDINGS && t->v.nfindings) {
		u->detail = TD_EVIDENCE;
	}
}

static void select_latency(struct top *t)
{
	struct tm_ui *u = &t->u;
	const struct tm_row *r = selected(t);

	if (r) {
		u->q.sel_group = tm_panel_group(u->panel);
		u->q.sel_key = r->key;
	} else if (u->panel != TP_LATENCY) {
		u->q.sel_group = -1;
	}
	u->panel = TP_LATENCY;
	u->detail = TD_NONE;
}

static void move_window(struct top *t, int dir)
{
	struct tm_ui *u = &t->u;
	int64_t w = tm_windows[u->window].ns, end;

	if (w == 0) {
		snprintf(u->msg, sizeof(u->msg), "window 'all' cannot move: "
			 "press w for a shorter one");
		return;
	}
	end = (u->q.end_ns ? u->q.end_ns : t->v.to_ns) + dir * w;
	if (end - w < t->v.first_ns)
		end = t->v.first_ns + w;
	u->q.end_ns = dir > 0 && end >= t->v.to_ns && !u->q.end_ns ? 0 : end;
}

static void set_speed(struct top *t, double f)
{
	struct tm_ui *u = &t->u;

	if (t->m.mode != TM_REPLAY || t->m.speed <= 0) {
		snprintf(u->msg, sizeof(u->msg), "speed applies to a paced "
			 "replay (-r without --fast)");
		return;
	}
	pthread_mutex_lock(&t->m.mu);
	t->m.speed *= f;
	if (t->m.speed > 1e6)
		t->m.speed = 1e6;
	if (t->m.speed < 1.0 / 64)
		t->m.speed = 1.0 / 64;
	pthread_mutex_unlock(&t->m.mu);
}

static void prompt_key(struct top *t, int ch)
{
	struct tm_ui *u = &t->u;
	struct an_filter f = u->q.filt;
	char err[160];

	if (ch == 27) {
		u->prompting = false;
	} else if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
		u->prompting = false;
		if (an_filter_parse(u->prompt, &f, err, sizeof(err)) < 0) {
			snprintf(u->msg, sizeof(u->msg), "%s", err);
			return;
		}
		u->q.filt = f;
		memset(u->sel, 0, sizeof(u->sel));
		memset(u->first, 0, sizeof(u->first));
		memset(u->have_sel_key, 0, sizeof(u->have_sel_key));
	} else if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
		if (u->plen)
			u->prompt[--u->plen] = '\0';
	} else if (ch >= 32 && ch < 127 && u->plen + 1 < sizeof(u->prompt)) {
		u->prompt[u->plen++] = (char)ch;
		u->prompt[u->plen] = '\0';
	}
}

static void move_sel(struct top *t, int d, bool abs)
{
	struct tm_ui *u = &t->u;
	int n = (int)tm_rows_shown(u, &t->v, u->panel), s;

	s = abs ? d : u->sel[u->panel] + d;
	if (s >= n)
		s = n - 1;
	if (s < 0)
		s = 0;
	u->sel[u->panel] = s;
	u->have_sel_key[u->panel] = false;
}

/* Handle one key; false to quit. */
static bool key(struct top *t, int ch)
{
	struct tm_ui *u = &t->u;
	int page = LINES > 8 ? LINES - 6 : 1;
	int ncols = u->panel == TP_SERVERS ? 9 : 10;

	u->msg[0] = '\0';
	if (u->prompting) {
		prompt_key(t, ch);
		return true;
	}
	if (u->help && ch != KEY_RESIZE) {
		u->help = false;
		return ch != 'q';
	}
	switch (ch) {
	case 'q': case 'Q': return false;
	case '?': u->help = true; break;
	case '\t': case KEY_RIGHT:
		u->panel = (enum tm_panel)((u->panel + 1) % TP_N);
		u->detail = TD_NONE;
		break;
	case KEY_BTAB: case KEY_LEFT:
		u->panel = (enum tm_panel)((u->panel + TP_N - 1) % TP_N);
		u->detail = TD_NONE;
		break;
	case KEY_UP: case 'k': move_sel(t, -1, false); break;
	case KEY_DOWN: case 'j': move_sel(t, 1, false); break;
	case KEY_PPAGE: move_sel(t, -page, false); break;
	case KEY_NPAGE: move_sel(t, page, false); break;
	case KEY_HOME: case 'g': move_sel(t, 0, true); break;
	case KEY_END: case 'G': move_sel(t, 1 << 30, true); break;
	case '<': case '>':
		if (tm_panel_group(u->panel) < 0) {
			snprintf(u->msg, sizeof(u->msg), "this panel has a fixed "
				 "order (newest first)");
			break;
		}
		u->sort_col[u->panel] = (u->sort_col[u->panel] +
			(ch == '>' ? 1 : ncols - 1)) % ncols;
		break;
	case 'r':
		u->sort_rev[u->panel] = !u->sort_rev[u->panel];
		break;
	case '/':
		u->prompting = true;
		an_filter_str(&u->q.filt, u->prompt, sizeof(u->prompt));
		u->plen = strlen(u->prompt);
		break;
	case 'c':
		memset(&u->q.filt, 0, sizeof(u->q.filt));
		u->depth = 0;
		break;
	case '\n': case '\r': case KEY_ENTER: drill(t); break;
	case 27: case KEY_BACKSPACE: case 127: case 8: back(t); break;
	case 'l': select_latency(t); break;
	case 'w':
		u->window = (u->window + 1) % tm_nwindows;
		u->q.width_ns = tm_windows[u->window].ns;
		if (u->q.width_ns == 0)
			u->q.end_ns = 0;
		break;
	case '[': move_window(t, -1); break;
	case ']': move_window(t, 1); break;
	case 'f': u->q.end_ns = 0; break;
	case ' ': case 'p': u->paused = !u->paused; break;
	case '+': set_speed(t, 2); break;
	case '-': set_speed(t, 0.5); break;
	default:
		if (ch >= '1' && ch < '1' + TP_N) {
			u->panel = (enum tm_panel)(ch - '1');
			u->detail = TD_NONE;
		}
		break;
	}
	return true;
}

/* ---------------------------------------------------------- the loop -- */

static void rebuild(struct top *t)
{
	struct tm_ui *u = &t->u;
	int g = tm_panel_group(u->panel);

	/* the latency series follows the selection of the row panels */
	if (g >= 0 && u->have_sel_key[u->panel]) {
		u->q.sel_group = g;
		u->q.sel_key = u->sel_key[u->panel];
	}
	u->q.buckets = u->panel == TP_RETRANS ? 60 : COLS > 20 ? COLS - 12 : 8;
	tm_view_build(&t->v, &t->m, &u->q);
	tm_sort(u, &t->v);
}

/* The dashboard's terminal is gone: stop (record keeps SIGHUP ignored,
 * but a dashboard without a terminal has nothing left to do). */
static void on_hup(int sig)
{
	(void)sig;
	run_stop = 1;
}

static void loop(struct top *t)
{
	double last = 0;
	bool dirty = true;

	timeout(t->refresh_ms < 100 ? 100 : t->refresh_ms / 2);
	while (!run_stop) {
		int ch = getch();

		if (ch != ERR) {
			if (!key(t, ch))
				break;
			/* answer a key at once: new order, filter or window */
			if (t->u.paused)
				tm_sort(&t->u, &t->v);
			else
				last = 0;
			dirty = true;
		}
		if (ch == KEY_RESIZE)
			dirty = true;
		/* redraw at most every refresh_ms; keys get an answer at once */
		if (!t->u.paused && run_mono_s() - last >= t->refresh_ms / 1000.0) {
			rebuild(t);
			last = run_mono_s();
			dirty = true;
		}
		if (dirty) {
			tm_draw(&t->u, &t->v);
			dirty = false;
		}
	}
}

/* A terminal we can draw on?  Otherwise say so and point to report. */
static bool terminal_ok(void)
{
	int err = 0;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "nfscope top: needs a terminal (stdin and stdout "
			"are not both one); for a text report use 'nfscope "
			"report' with the same source, e.g. nfscope report -r "
			"FILE\n");
		return false;
	}
	if (setupterm(NULL, STDOUT_FILENO, &err) != OK) {
		fprintf(stderr, "nfscope top: cannot use terminal type '%s' "
			"(TERM); set TERM (e.g. TERM=xterm) or use 'nfscope "
			"report'\n", getenv("TERM") ? getenv("TERM") : "");
		return false;
	}
	del_curterm(cur_term);	/* initscr sets up its own */
	cur_term = NULL;
	return true;
}

static int parse_window(const char *s)
{
	int k;

	for (k = 0; k < tm_nwindows; k++)
		if (strcmp(s, tm_windows[k].name) == 0)
			return k;
	return -1;
}

/* The options of one top, as parsed (top_opt). */
struct top_opts {
	struct ui_src_opts so;
	const char *out, *metrics;
	uint32_t mx_max;
	double speed;
	bool fast, speed_set, color;
	uint64_t run, history, addrs;
	int window;
};

/* The options that take a number: -1 taken, else the exit status. */
static int top_opt_num(struct top *t, struct top_opts *o, int opt,
		       const char *arg)
{
	char *end;
	uint64_t v;

	switch (opt) {
	case 'S':
		o->speed = strtod(arg, &end);
		if (*end || !(o->speed > 0 && o->speed <= 1e6)) {
			fprintf(stderr, "nfscope top: bad --speed '%s' "
				"(> 0)\n", arg);
			return 2;
		}
		o->speed_set = true;
		return -1;
	case 'R':
		if (!ui_parse_u64(arg, &o->run) || o->run == 0) {
			fprintf(stderr, "nfscope top: bad --run '%s'\n", arg);
			return 2;
		}
		return -1;
	case 'T':
		if (!ui_parse_u64(arg, &v) || v < 100 || v > 10000) {
			fprintf(stderr, "nfscope top: bad --refresh '%s' "
				"(100..10000 ms)\n", arg);
			return 2;
		}
		t->refresh_ms = (int)v;
		return -1;
	case 'H':
		if (!ui_parse_u64(arg, &o->history) || o->history < 1000 ||
		    o->history > 100000000) {
			fprintf(stderr, "nfscope top: bad --history '%s' "
				"(1000..100M operations)\n", arg);
			return 2;
		}
		return -1;
	case 'A':
		if (!ui_parse_u64(arg, &o->addrs) || o->addrs < 16 ||
		    o->addrs > TM_ADDRS_MAX - 1) {
			fprintf(stderr, "nfscope top: bad --addresses '%s' "
				"(16..%d)\n", arg, TM_ADDRS_MAX - 1);
			return 2;
		}
		return -1;
	default:	/* 'X' */
		if (!ui_mx_parse_max(arg, &o->mx_max)) {
			fprintf(stderr, "nfscope top: bad --metrics-max "
				"'%s' (1..%u series)\n", arg,
				UI_MX_SERIES_LIMIT);
			return 2;
		}
		return -1;
	}
}

/* One option: -1 taken, else the exit status. */
static int top_opt(struct top *t, struct top_opts *o, int opt,
		   const char *arg)
{
	int rc;

	switch (opt) {
	case 'w': o->out = arg; return -1;
	case 'F': o->fast = true; return -1;
	case 'C': o->color = false; return -1;
	case 'M': o->metrics = arg; return -1;
	case 'S': case 'R': case 'T': case 'H': case 'A': case 'X':
		return top_opt_num(t, o, opt, arg);
	case 'W':
		if ((o->window = parse_window(arg)) < 0) {
			fprintf(stderr, "nfscope top: bad --window '%s' "
				"(10s, 1m, 5m or all)\n", arg);
			return 2;
		}
		return -1;
	case 'h': top_usage(stdout); return 0;
	default: break;
	}
	rc = ui_src_opt(&o->so, opt, arg);
	if (rc == 1)
		return -1;
	return rc == 0 ? ui_usage_error("top", NULL) : 2;
}

/* The one source (a capture, live, or a database) into cfg: -1 good,
 * else the exit status. */
static int top_source(struct top_opts *o, int argc, char **argv,
		      struct tm_src_cfg *cfg)
{
	struct ui_src_opts *so = &o->so;

	if ((so->file || so->iface) &&
	    ui_src_args(so, "top", argc, argv, optind) < 0)
		return 2;
	if ((so->file || so->iface) && optind < argc)
		optind = argc;		/* the filter expression */
	if (optind < argc) {
		if (optind + 1 < argc || so->file || so->iface || o->out ||
		    o->metrics) {
			fprintf(stderr, "nfscope top: give one source: -r FILE, "
				"-i IFACE or a database (and -w, --metrics only "
				"with -r/-i)\n");
			return 2;
		}
		cfg->mode = TM_ATTACH;
		cfg->db = cfg->source = argv[optind];
		cfg->run_id = (int64_t)o->run;
	} else if (so->file || so->iface) {
		cfg->mode = so->iface ? TM_LIVE : TM_REPLAY;
		cfg->source = ui_src_name(so);
		cfg->speed = o->fast ? 0 : o->speed;
		cfg->out_db = o->out;
	} else {
		return ui_usage_error("top", "no source: give -r FILE, -i "
				      "IFACE or a database");
	}
	if (o->fast && o->speed_set) {
		fprintf(stderr, "nfscope top: --speed and --fast exclude each "
			"other\n");
		return 2;
	}
	return terminal_ok() ? -1 : 2;
}

/* A capture opened (the source is in *src): the metrics endpoint (bound
 * before -Z: a port below 1024 needs root), -Z before -w creates a file,
 * then the endpoint's thread (capabilities are per thread).  0, or -1
 * said. */
static int after_open(void *so)
{
	return ui_after_open(so);
}

static int top_open(struct top_opts *o, struct tm_src_cfg *cfg)
{
	if (ui_mx_open(&cfg->mx, o->metrics, o->mx_max, "top", false,
		       after_open, &o->so) < 0)
		return -1;
	cfg->so = &o->so;
	return 0;
}

/* The terminal, in curses mode, and the first screen's state. */
static void top_screen(struct top *t, const struct top_opts *o)
{
	run_install_signals();
	signal(SIGHUP, on_hup);
	setlocale(LC_ALL, "");
	initscr();
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	t->u.color = o->color && has_colors() && getenv("NO_COLOR") == NULL;
	if (t->u.color)
		tm_colors();
	t->u.window = o->window;
	t->u.sort_col[TP_OPS] = t->u.sort_col[TP_CLIENTS] =
		t->u.sort_col[TP_SERVERS] = 1;	/* busiest first */
	t->u.q.width_ns = tm_windows[o->window].ns;
	t->u.q.sel_group = -1;
}

int ui_top_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		UI_SRC_LONGOPTS,
		{ "speed", required_argument, NULL, 'S' },
		{ "fast", no_argument, NULL, 'F' },
		{ "run", required_argument, NULL, 'R' },
		{ "window", required_argument, NULL, 'W' },
		{ "refresh", required_argument, NULL, 'T' },
		{ "no-color", no_argument, NULL, 'C' },
		{ "history", required_argument, NULL, 'H' },
		{ "addresses", required_argument, NULL, 'A' },
		{ "metrics", required_argument, NULL, 'M' },
		{ "metrics-max", required_argument, NULL, 'X' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct top_opts o;
	struct tm_src_cfg cfg;
	struct cap_source *src = NULL;
	static struct top t;
	int opt, rc;

	memset(&t, 0, sizeof(t));
	memset(&o, 0, sizeof(o));
	t.refresh_ms = 500;
	o.speed = 1;
	o.color = true;
	o.addrs = TM_ADDRS_MAX - 1;
	o.window = 1;
	ui_src_opts_init(&o.so);
	optind = 1;
	while ((opt = getopt_long(argc, argv, UI_SRC_OPTSTRING "w:h", longopts,
				  NULL)) != -1)
		if ((rc = top_opt(&t, &o, opt, optarg)) >= 0)
			return rc;
	memset(&cfg, 0, sizeof(cfg));
	if ((rc = top_source(&o, argc, argv, &cfg)) >= 0)
		return rc;
	rc = 1;
	if (cfg.mode != TM_ATTACH) {
		if ((src = ui_open_source(&o.so)) == NULL)
			return 1;
		if (top_open(&o, &cfg) < 0)
			goto out;
		cfg.src = src;
	}
	if (tm_model_init(&t.m, o.history, (uint32_t)o.addrs) < 0 ||
	    tm_view_init(&t.v) < 0) {
		fprintf(stderr, "nfscope top: out of memory\n");
		goto out;
	}
	if (tm_worker_start(&t.w, &t.m, &cfg) < 0) {
		fprintf(stderr, "nfscope top: cannot start the worker\n");
		goto out;
	}
	top_screen(&t, &o);
	loop(&t);
	endwin();
	tm_worker_stop(t.w);
	t.w = NULL;
	printf("nfscope top: %s: %" PRIu64 " packets, %" PRIu64 " operations%s\n",
	       cfg.source, t.m.cs.packets, t.m.win.n, t.m.failed ? "" : "");
	if (t.m.failed)
		fprintf(stderr, "nfscope top: %s\n", t.m.err);
	else if (t.m.input_cut)
		fprintf(stderr, "nfscope top: %s\n", t.m.note);
	rc = t.m.failed ? 1 : t.m.input_cut ? UI_EXIT_CUT : 0;
out:
	tm_worker_stop(t.w);	/* first: its thread feeds the metrics */
	ui_mx_free(cfg.mx);
	tm_view_fini(&t.v);
	tm_model_fini(&t.m);
	free(t.u.order[0]);
	free(t.u.order[1]);
	free(t.u.order[2]);
	cap_close(src);
	return rc;
}
