/* headless.c - a run with no screen, record's and serve's; see
 * headless.h and doc/store.md. */
#include "ui/serve/headless.h"
#include "ui/serve/metrics.h"

#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Live: the capture lost packets; the run stage stored the span with the
 * next batch (table drops) so every reader knows it is incomplete. */
static void on_drops(void *user, const struct cap_drop_span *sp)
{
	struct ui_hl *r = user;
	char t0[48], t1[48];

	if (r->out == NULL || r->quiet || run_store_failed(r->run))
		return;
	fprintf(stderr, "nfscope %s: %" PRIu64 " packets dropped by the "
		"kernel, %" PRIu64 " by the interface between %s and %s: what "
		"is recorded for that span is incomplete\n", r->who, sp->drop,
		sp->ifdrop, ui_time_str(sp->start_ns, r->tmode, 6, t0, sizeof(t0)),
		ui_time_str(sp->end_ns, r->tmode, 6, t1, sizeof(t1)));
}

/* The end of the input (the findings are finished, the run stage
 * stores them next). */
static void on_end(void *user, const struct run_end *e)
{
	struct ui_hl *r = user;

	if (e->error && !e->store_failed)
		return;
	if (!e->store_failed) {
		/* the findings' budgets: not in the database (its schema
		 * has no column for them), so said here */
		if (an_find_unexamined(r->find) || an_find_dropped(r->find))
			fprintf(stderr, "nfscope %s: findings are incomplete: "
				"%" PRIu64 " looks skipped for their budgets (a "
				"host past the 1024 followed, the storms of a "
				"client past storm_clients), %" PRIu64 " findings "
				"past the 512 kept\n", r->who,
				an_find_unexamined(r->find),
				an_find_dropped(r->find));
	}
	r->packets = e->cs->packets;
	r->ops = e->es->ops;
}

static void usage(FILE *f, bool serve)
{
	if (serve)
		fputs("usage: nfscope serve [-r FILE | -i IFACE] [capture options] "
		      "--metrics ADDR:PORT\n"
		      "                     [-w OUT.db and record's options] "
		      "[EXPRESSION]\n"
		      "Serves GET /metrics (Prometheus text format 0.0.4) on "
		      "ADDR:PORT only; after the\nend of the input it serves "
		      "the final figures until SIGINT/SIGTERM.\n", f);
	else
		fputs("usage: nfscope record [-r FILE | -i IFACE] [capture "
		      "options] -w OUT.db\n"
		      "                      [EXPRESSION]\n", f);
	fprintf(f, UI_HELP_USAGE
		"  -w OUT.db          the sqlite database (created after -Z "
		"drops privileges:\n"
		"                     USER must be able to write it)%s\n"
		"  --ops MODE         operations stored: all (default), "
		"slow:MS (the slow,\n"
		"                     failed and retransmitted ones) or none\n"
		"  --interval S       the aggregates' cell (default 10, "
		"0.001..86400)\n"
		"  --retain DURATION  keep only the last DURATION (3600, 90m, "
		"12h, 7d)\n"
		"  --batch ROWS       rows per transaction (default 65536)\n"
		"  --force            replace OUT.db (default: append a run)\n"
		"  -q, --quiet        no log lines on stderr\n"
		"  --metrics ADDR:PORT  also serve GET /metrics (Prometheus)\n"
		"  --metrics-max N    at most N metric series (default %u)\n"
		"SIGINT/SIGTERM store the last batch and end the run; SIGHUP is "
		"logged, ignored.\n", serve ? " (serve: optional)" : "",
		UI_MX_SERIES_DEFAULT);
	if (!serve)
		fputs(UI_PCAP_USAGE, f);
	fputs("capture options:\n" UI_SRC_USAGE, f);
	ui_budget_usage(f);
}

static int parse_ops(const char *s, struct store_run *run)
{
	char *end;
	double ms;

	if (!strcmp(s, "all")) {
		run->ops_mode = STORE_OPS_ALL;
		return 0;
	}
	if (!strcmp(s, "none")) {
		run->ops_mode = STORE_OPS_NONE;
		return 0;
	}
	if (strncmp(s, "slow:", 5) == 0) {
		ms = strtod(s + 5, &end);
		if (end != s + 5 && !*end && ms >= 0 && ms < 1e9) {
			run->ops_mode = STORE_OPS_SLOW;
			run->slow_ns = (int64_t)llround(ms * 1e6);
			return 0;
		}
	}
	return -1;
}

/* The options that take a number: -1 taken, else the exit status. */
static int opt_num(struct ui_hl *r, struct ui_hl_opts *o, int opt,
		       const char *arg)
{
	double secs;
	char *end;
	uint64_t v;

	switch (opt) {
	case 'X':
		if (!ui_mx_parse_max(arg, &o->mx_max)) {
			fprintf(stderr, "nfscope %s: bad --metrics-max "
				"'%s' (1..%u series)\n", r->who, arg,
				UI_MX_SERIES_LIMIT);
			return 2;
		}
		return -1;
	case 'I':
		secs = strtod(arg, &end);
		if (*end || !(secs >= 0.001 && secs <= 86400)) {
			fprintf(stderr, "nfscope %s: bad --interval "
				"'%s' (0.001..86400 s)\n", r->who, arg);
			return 2;
		}
		o->sopts.interval_ns = (int64_t)llround(secs * 1e9);
		return -1;
	default:	/* 'N' */
		if (!ui_parse_u64(arg, &v) || v == 0 || v > 100000000) {
			fprintf(stderr, "nfscope %s: bad --batch "
				"'%s'\n", r->who, arg);
			return 2;
		}
		o->batch_rows = v;
		return -1;
	}
}

/* One option: -1 taken, else the exit status. */
static int one_opt(struct ui_hl *r, struct ui_hl_opts *o, int opt,
		   const char *arg)
{
	int rc;

	switch (opt) {
	case 'w': o->out = arg; return -1;
	case 'M': o->metrics = arg; return -1;
	case 'F': o->force = true; return -1;
	case 'q': r->quiet = true; return -1;
	case 'X': case 'I': case 'N':
		return opt_num(r, o, opt, arg);
	case 'O':
		if (parse_ops(arg, &o->sopts) < 0) {
			fprintf(stderr, "nfscope %s: bad --ops '%s' "
				"(all, slow:MS or none)\n", r->who, arg);
			return 2;
		}
		return -1;
	case 'R':
		if (an_duration_parse(arg, &o->sopts.retain_ns) < 0) {
			fprintf(stderr, "nfscope %s: bad --retain '%s' "
				"(e.g. 3600, 90m, 12h, 7d)\n", r->who, arg);
			return 2;
		}
		return -1;
	case UI_OPT_WRITE_PCAP:
	case UI_OPT_SELECT:
		if (o->serve)
			break;
		return ui_pcap_opt(&o->po, r->who, opt, arg) < 0 ? 2 : -1;
	case 'h':
		usage(stdout, o->serve);
		return 0;
	default:
		break;
	}
	rc = ui_src_opt(&o->so, opt, arg);
	if (rc == 1)
		return -1;
	return rc == 0 ? ui_usage_error(r->who, NULL) : 2;
}

static int after_open(void *run)
{
	return run_after_open(run);
}

/* After run_open: the metrics endpoint, -Z, its thread (ui_mx_open).
 * 0, or -1 said. */
static int open_endpoint(struct ui_hl *r, const struct ui_hl_opts *o)
{
	return ui_mx_open(&r->mx, o->metrics, o->mx_max, r->who, !r->quiet,
			  after_open, r->run);
}

void ui_hl_said(const struct ui_hl *r)
{
	const struct store_run *sr = run_stored(r->run);
	const struct store_counts *sc = run_store_counts(r->run);

	fprintf(stderr, "nfscope %s: run %" PRId64 " %s: %" PRIu64
		" packets, %" PRIu64 " operations, %" PRIu64 " stored "
		"in %s (insert thread %.3f s CPU)\n", r->who, sr->id,
		sr->state, sr->cs.packets, sr->es.ops, sc->ops, r->out,
		sc->writer_ns / 1e9);
}

int ui_hl_parse(struct ui_hl *r, struct ui_hl_opts *o, bool serve,
		int argc, char **argv)
{
	static const struct option longopts[] = {
		UI_SRC_LONGOPTS,
		{ "ops", required_argument, NULL, 'O' },
		{ "interval", required_argument, NULL, 'I' },
		{ "retain", required_argument, NULL, 'R' },
		{ "batch", required_argument, NULL, 'N' },
		{ "force", no_argument, NULL, 'F' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "metrics", required_argument, NULL, 'M' },
		UI_PCAP_LONGOPTS,
		{ "metrics-max", required_argument, NULL, 'X' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt, rc;

	memset(r, 0, sizeof(*r));
	memset(o, 0, sizeof(*o));
	o->sopts.interval_ns = 10000000000LL;
	o->batch_rows = 65536;
	o->serve = serve;
	r->who = serve ? "serve" : "record";
	ui_src_opts_init(&o->so);
	optind = 1;
	while ((opt = getopt_long(argc, argv, UI_SRC_OPTSTRING "w:qh", longopts,
				  NULL)) != -1)
		if ((rc = one_opt(r, o, opt, optarg)) >= 0)
			return rc;
	if (ui_src_args(&o->so, r->who, argc, argv, optind) < 0)
		return 2;
	return -1;
}

int ui_hl_check(const struct ui_hl *r, const struct ui_hl_opts *o)
{
	const char *who = r->who;

	if (o->out && ui_pcap_name(o->out))	/* tcpdump's -w habit */
		return ui_usage_error(who, "-w %s: record writes an sqlite "
				      "database, not a capture: name it .db, "
				      "or give --write-pcap %s for the frames",
				      o->out, o->out);
	if (o->metrics == NULL && o->serve)
		return ui_usage_error(who, "no endpoint: give --metrics "
				      "ADDR:PORT");
	if (ui_pcap_check(&o->po, who, &o->so, false) < 0)
		return 2;
	if (ui_out_check(who, (const struct ui_out_name[]){
			{ "-w", o->out }, { "--write-pcap", o->po.path } }, 2,
			o->so.files, o->so.nfiles) < 0)
		return 1;
	return -1;
}

int ui_hl_open(struct ui_hl *r, struct ui_hl_opts *o, struct run_config *c)
{
	const char *who = r->who;

	r->out = o->out;
	/*
	 * The capture device first (it needs root), then -Z, then the
	 * database, as tcpdump does with -w: the file and its -wal/-shm then
	 * belong to the user who can later open, checkpoint and delete them,
	 * and root never writes where that user could point it.
	 */
	r->tmode = o->so.time_mode;
	ui_run_config(&o->so, who, c);
	c->analyze = true;
	c->dec.no_attrs = true;		/* the store keeps no attribute values */
	c->store_path = o->out;
	c->store_replace = o->force;
	c->store_opts = o->sopts;
	c->batch_rows = o->batch_rows;
	c->store_quiet = r->quiet;
	r->figs = an_figs_new(NULL);
	r->find = an_find_new(NULL);
	if (o->po.path && (r->ev = run_evidence_new(&o->po.sel)) == NULL)
		r->find = (an_find_free(r->find), NULL);	/* out of memory */
	run_evidence_live(r->ev, c, o->po.path);	/* live: spool every frame */
	if (!r->figs || !r->find) {
		fprintf(stderr, "nfscope: out of memory\n");
		return -1;
	}
	if (run_open(&r->run, c) < 0 || open_endpoint(r, o) < 0 ||
	    run_evidence_spool(r->ev, run_source(r->run), who) < 0 ||
	    ui_pcap_begin(&o->po, who) < 0)
		return -1;
	return 0;
}

int ui_hl_go(struct ui_hl *r)
{
	struct run_hooks h = { .user = r, .drops = on_drops, .end = on_end };

	h.sinks.figs = r->figs;		/* stored at the end of the run */
	h.sinks.find = r->find;
	h.sinks.find_finish = true;
	run_evidence_sink(r->ev, &h.sinks);
	if (r->mx) {
		struct run_sink mx;

		ui_mx_sink(r->mx, r->find, &mx);
		run_sinks_add(&h.sinks, &mx);
	}
	return run_go(r->run, &h) < 0 ? -1 : 0;
}

void ui_hl_free(struct ui_hl *r, struct ui_hl_opts *o)
{
	ui_pcap_abort(&o->po);	/* not written: removed */
	run_free(r->run);	/* first: its threads use figs, find, mx */
	ui_mx_free(r->mx);
	run_evidence_free(r->ev);
	an_find_free(r->find);
	an_figs_free(r->figs);
}
