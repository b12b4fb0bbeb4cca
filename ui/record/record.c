/* record.c - `nfscope record` and `nfscope serve`; see record.h and
 * doc/store.md. */
#include "ui/record/record.h"
#include "ui/cli.h"
#include "ui/serve/metrics.h"

#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct rec {
	struct run *run;
	const char *who;
	bool quiet;			/* --quiet */
	enum ui_time_mode tmode;	/* times in log lines (times.h) */
	struct an_figs *figs;
	struct an_find *find;
	const char *out;		/* -w (serve: NULL = store nothing) */
	struct ui_mx *mx;		/* --metrics (NULL: none) */
	struct run_evidence *ev;	/* --write-pcap (NULL: none) */
	uint64_t packets, ops;		/* at the end */
};

/* On the analysis thread (run.h). */
static void on_op(void *user, const struct an_op *op)
{
	struct rec *r = user;

	an_figs_add(r->figs, op);
	an_find_add(r->find, op);
	if (r->ev)
		run_evidence_op(r->ev, op);
	if (r->mx) {
		ui_mx_op(r->mx, op);
		ui_mx_findings(r->mx, r->find);
	}
}

/* Capture health for the metrics (capture thread). */
static void mx_health(struct rec *r, const struct cap_stats *cs,
		      const struct dec_stats *ds, const struct an_stats *es,
		      bool done)
{
	if (r->mx)
		ui_mx_health(r->mx, cs, ds, es, done);
}

/* Live, every second (the run stage has committed the batch). */
static void on_tick(void *user, int64_t now_ns)
{
	struct rec *r = user;
	struct cap_stats cs;
	const struct dec_stats *ds;
	const struct an_stats *es;

	(void)now_ns;
	if (r->mx == NULL)
		return;
	run_counters(r->run, &cs, &ds, &es);
	mx_health(r, &cs, ds, es, false);
}

/* Live: the capture lost packets; the run stage stored the span with the
 * next batch (table drops) so every reader knows it is incomplete. */
static void on_drops(void *user, const struct cap_drop_span *sp)
{
	struct rec *r = user;
	char t0[48], t1[48];

	if (r->out == NULL || r->quiet || run_store_failed(r->run))
		return;
	fprintf(stderr, "nfscope %s: %" PRIu64 " packets dropped by the "
		"kernel, %" PRIu64 " by the interface between %s and %s: what "
		"is recorded for that span is incomplete\n", r->who, sp->drop,
		sp->ifdrop, ui_time_str(sp->start_ns, r->tmode, 6, t0, sizeof(t0)),
		ui_time_str(sp->end_ns, r->tmode, 6, t1, sizeof(t1)));
}

/* The end of the input: findings, before the run stage stores them. */
static void on_end(void *user, const struct run_end *e)
{
	struct rec *r = user;

	if (e->error && !e->store_failed)
		return;
	if (!e->store_failed) {
		an_find_handshakes(r->find, e->handshakes, CAP_HANDSHAKE_PAIRS);
		an_find_finish(r->find, r->figs, e->cs->ipfrag_incomplete);
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
	if (r->mx) {
		ui_mx_findings(r->mx, r->find);
		mx_health(r, e->cs, e->ds, e->es, true);
		if (e->cut)
			ui_mx_input_cut(r->mx);
	}
	r->packets = e->cs->packets;
	r->ops = e->es->ops;
}

static void record_usage(FILE *f, bool serve)
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

/* Wait for SIGINT/SIGTERM, serving the final figures. */
static void serve_linger(void)
{
	struct timespec ts = { 0, 100000000 };

	while (!run_stop) {
		nanosleep(&ts, NULL);
		run_check_hup("serve");
	}
}

/* The options of one record or serve, as parsed (rec_opt). */
struct rec_opts {
	struct ui_src_opts so;
	struct ui_pcap_opts po;
	struct store_run sopts;		/* --ops, --interval, --retain */
	const char *out, *metrics;
	bool force, serve;
	uint64_t batch_rows;
	uint32_t mx_max;
};

/* The options that take a number: -1 taken, else the exit status. */
static int rec_opt_num(struct rec *r, struct rec_opts *o, int opt,
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
static int rec_opt(struct rec *r, struct rec_opts *o, int opt,
		   const char *arg)
{
	int rc;

	switch (opt) {
	case 'w': o->out = arg; return -1;
	case 'M': o->metrics = arg; return -1;
	case 'F': o->force = true; return -1;
	case 'q': r->quiet = true; return -1;
	case 'X': case 'I': case 'N':
		return rec_opt_num(r, o, opt, arg);
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
		record_usage(stdout, o->serve);
		return 0;
	default:
		break;
	}
	rc = ui_src_opt(&o->so, opt, arg);
	if (rc == 1)
		return -1;
	return rc == 0 ? ui_usage_error(r->who, NULL) : 2;
}

/* After run_open: the metrics endpoint (bound before -Z: a port below
 * 1024 needs root), -Z, then its thread (capabilities are per thread).
 * 0, or -1 said. */
static int rec_open(struct rec *r, const struct rec_opts *o)
{
	char err[256];

	if (o->metrics && ((r->mx = ui_mx_new(o->mx_max)) == NULL ||
			   ui_mx_listen(r->mx, o->metrics, err,
					sizeof(err)) < 0)) {
		fprintf(stderr, "nfscope %s: --metrics: %s\n", r->who,
			r->mx ? err : "out of memory");
		return -1;
	}
	if (o->metrics && !r->quiet)
		fprintf(stderr, "nfscope %s: metrics on http://%s/metrics\n",
			r->who, o->metrics);
	if (run_after_open(r->run) < 0)
		return -1;
	if (r->mx && ui_mx_start(r->mx, err, sizeof(err)) < 0) {
		fprintf(stderr, "nfscope %s: --metrics: %s\n", r->who, err);
		return -1;
	}
	return 0;
}

/* The line that ends a record run (stderr). */
static void rec_said(const struct rec *r, const char *out)
{
	const struct store_run *sr = run_stored(r->run);
	const struct store_counts *sc = run_store_counts(r->run);

	fprintf(stderr, "nfscope %s: run %" PRId64 " %s: %" PRIu64
		" packets, %" PRIu64 " operations, %" PRIu64 " stored "
		"in %s (insert thread %.3f s CPU)\n", r->who, sr->id,
		sr->state, sr->cs.packets, sr->es.ops, sc->ops, out,
		sc->writer_ns / 1e9);
}

static int record_main(int argc, char **argv, bool serve)
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
	static struct rec_opts o;
	struct rec r;
	struct run_config c;
	struct run_hooks h = { .op = on_op, .tick = on_tick,
			       .drops = on_drops, .end = on_end };
	const char *who = serve ? "serve" : "record";
	struct an_find_config dc;	/* an_find_new(NULL)'s */
	const char *state;
	int opt, rc;

	memset(&r, 0, sizeof(r));
	memset(&o, 0, sizeof(o));
	o.sopts.interval_ns = 10000000000LL;
	o.batch_rows = 65536;
	o.serve = serve;
	r.who = who;
	ui_src_opts_init(&o.so);
	optind = 1;
	while ((opt = getopt_long(argc, argv, UI_SRC_OPTSTRING "w:qh", longopts,
				  NULL)) != -1)
		if ((rc = rec_opt(&r, &o, opt, optarg)) >= 0)
			return rc;
	if (ui_src_args(&o.so, who, argc, argv, optind) < 0)
		return 2;
	if (o.out == NULL && !serve)
		return ui_usage_error(who, "no output: give -w OUT.db");
	if (o.out && ui_pcap_name(o.out))	/* tcpdump's -w habit */
		return ui_usage_error(who, "-w %s: record writes an sqlite "
				      "database, not a capture: name it .db, "
				      "or give --write-pcap %s for the frames",
				      o.out, o.out);
	if (o.metrics == NULL && serve)
		return ui_usage_error(who, "no endpoint: give --metrics "
				      "ADDR:PORT");
	if (ui_pcap_check(&o.po, who, &o.so, false) < 0)
		return 2;
	if (ui_out_check(who, (const struct ui_out_name[]){
			{ "-w", o.out }, { "--write-pcap", o.po.path } }, 2,
			o.so.files, o.so.nfiles) < 0)
		return 1;
	r.out = o.out;
	/*
	 * The capture device first (it needs root), then -Z, then the
	 * database, as tcpdump does with -w: the file and its -wal/-shm then
	 * belong to the user who can later open, checkpoint and delete them,
	 * and root never writes where that user could point it.
	 */
	r.tmode = o.so.time_mode;
	ui_run_config(&o.so, who, &c);
	c.analyze = true;
	c.dec.no_attrs = true;		/* the store keeps no attribute values */
	c.store_path = o.out;
	c.store_replace = o.force;
	c.store_opts = o.sopts;
	c.batch_rows = o.batch_rows;
	c.store_quiet = r.quiet;
	r.figs = an_figs_new(NULL);
	r.find = an_find_new(NULL);
	if (o.po.path && (r.ev = run_evidence_new(&o.po.sel)) == NULL)
		r.find = (an_find_free(r.find), NULL);	/* out of memory */
	run_evidence_live(r.ev, &c, o.po.path);	/* live: spool every frame */
	c.figs = r.figs;	/* stored at the end of the run */
	c.find = r.find;
	rc = 1;
	if (!r.figs || !r.find) {
		fprintf(stderr, "nfscope: out of memory\n");
		goto out;
	}
	if (run_open(&r.run, &c) < 0 || rec_open(&r, &o) < 0 ||
	    run_evidence_spool(r.ev, run_source(r.run), who) < 0 ||
	    ui_pcap_begin(&o.po, who) < 0)
		goto out;
	h.user = &r;
	if (run_go(r.run, &h) < 0)
		goto out;
	state = run_state(r.run);
	an_find_config_default(&dc);
	if (r.ev && ui_pcap_write(r.ev, &o.po, &c, &(struct ui_pcap_end){
			.find = r.find, .slow_ms = dc.slow_ms,
			.frames = r.packets }, r.quiet) < 0)
		goto out;
	if (serve && !r.quiet)
		fprintf(stderr, "nfscope serve: input %s: %" PRIu64 " packets, "
			"%" PRIu64 " operations; serving the final figures "
			"until SIGINT or SIGTERM\n", state, r.packets, r.ops);
	if (serve)
		serve_linger();
	if (o.out && !r.quiet)
		rec_said(&r, o.out);
	rc = strcmp(state, "cut") == 0 ? UI_EXIT_CUT : 0;
out:
	ui_pcap_abort(&o.po);	/* not written: removed */
	run_free(r.run);	/* first: its threads use figs, find, mx */
	ui_mx_free(r.mx);
	run_evidence_free(r.ev);
	an_find_free(r.find);
	an_figs_free(r.figs);
	return rc;
}

int ui_record_main(int argc, char **argv)
{
	return record_main(argc, argv, false);
}

int ui_serve_main(int argc, char **argv)
{
	return record_main(argc, argv, true);
}
