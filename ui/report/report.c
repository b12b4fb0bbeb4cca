/* report.c - `nfscope report`: the driver; the writers are report_text.c
 * and report_out.c; see report.h. */
#include "ui/report/report.h"
#include "ui/report/rep.h"
#include "ui/report/report_db.h"
#include "ui/report/report_every.h"
#include "ui/report/report_html.h"
#include "ui/report/report_out.h"
#include "ui/report/report_partial.h"
#include "ui/report/report_text.h"
#include "base/units.h"
#include "ui/cli.h"
#include "ui/esc.h"
#include "ui/times.h"

#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ----------------------------------------------------------- driving -- */

/* --every's window, on the analysis thread (a sink, run/sink.h). */
static void on_every(void *user, const struct an_op *op, int32_t rx)
{
	(void)rx;
	rep_every_add(user, op);
}

/* On the capture thread: the operation filters (a database's ops too). */
static bool on_op(void *user, const struct an_op *op)
{
	struct rep *r = user;
	/* a database's first time is loaded; a capture's is the run's */
	int64_t first = r->first_ns ? r->first_ns : run_first_ns(r->run);

	if (!r->filtered)
		return true;
	an_filter_resolve(&r->filt, first);
	return an_filter_match(&r->filt, op, first);
}

/* A stored run's operation (report_db.c) into the pipeline. */
static void on_stored_op(void *user, const struct an_op *op)
{
	struct rep *r = user;

	run_put_op(r->run, op);
}

static void on_drops(void *user, const struct cap_drop_span *sp)
{
	struct rep *r = user;

	ui_drops_add(&r->drops, sp);
}

/* The end of the input: the capture's counters (a database's are loaded
 * by rep_store_load) and its TCP handshakes. */
static void on_end(void *user, const struct run_end *e)
{
	struct rep *r = user;

	if (e->error || e->cs == NULL)
		return;
	r->cut = e->cut != NULL;
	if (e->cut)
		r->cut_at = *e->cut;
	r->cs = *e->cs;
	r->ds = e->ds;
	r->es = e->es;
	r->names = e->names;
	r->first_ns = e->first_ns;
	r->last_ns = e->last_ns;
	r->rpc_msgs = e->rpc_msgs;
	an_find_handshakes(r->find, e->handshakes, CAP_HANDSHAKE_PAIRS);
}

void rep_hooks(struct rep *r, struct run_hooks *h)
{
	memset(h, 0, sizeof(*h));
	h->user = r;
	h->drops = on_drops;
	h->end = on_end;
	/* the figures are read only at the end: pipelined */
	h->sinks.figs = r->figs;
	h->sinks.figs_push = true;
	h->sinks.find = r->find;
	h->sinks.series = r->series;
	if (r->every)
		run_sinks_add(&h->sinks, &(struct run_sink){ .user = r,
			      .op = on_every });
	run_evidence_sink(r->ev, &h->sinks);
}

/* ------------------------------------------------------------- main -- */

static void report_usage(FILE *f)
{
	fputs("usage: nfscope report [-r FILE | -i IFACE] [capture options] "
	      "[EXPRESSION]\n"
	      "       nfscope report DB.db [--run N | --runs]   (a database "
	      "written by record)\n"
	      UI_HELP_USAGE
	      "output (default: text within 80 columns):\n"
	      "  --wide             text as wide as its figures (every column)\n"
	      "  --json             one JSON document\n"
	      "  --csv TABLE        one table: ops (the --by grouping), sizes, "
	      "writes,\n"
	      "                     shortio, retrans, vantage, findings, "
	      "servers,\n"
	      "                     intervals, drops\n"
	      "  --html OUT.html    one page with charts ('-': stdout)\n"
	      "  --by GROUP         op (default), client, server, export or "
	      "file\n"
	      "  --top N            rows of --by file and of JSON's files "
	      "(default 20)\n"
	      "  --interval S       a time series of S-second intervals "
	      "(0.001..86400)\n"
	      "  --every S          a block of text every S seconds while "
	      "reading (as\n"
	      "                     nfsiostat's interval; 0.001..86400)\n"
	      "  --threshold NAME=VALUE  a finding's threshold (repeatable)\n"
	      "  --thresholds       list the thresholds, defaults and ranges\n"
	      "databases:\n"
	      "  --run N            run N of the database (repeatable: runs "
	      "as one)\n"
	      "  --runs             list the database's runs\n"
	      "operation filters (comma lists, repeatable):\n"
	      "  --from T           from time T on (time of day, date and time, "
	      "ISO 8601,\n"
	      "                     epoch, +S after the first packet)\n"
	      "  --to T             before time T (the same forms)\n"
	      "  --client ADDR      ADDR, ADDR/LEN or PREFIX*\n"
	      "  --server ADDR      the same\n"
	      "  --op NAME[,NAME]   procedures (READ, NFSv3 WRITE, ...)\n"
	      "  --fh HEX           a file handle or its 8-digit hash\n"
	      UI_PCAP_USAGE
	      "capture options:\n"
	      UI_SRC_USAGE, f);
	ui_budget_usage(f);
}

/* --client/--server/--op/--fh (analyze/filter.h: comma lists, repeatable). */
static int parse_filter(struct an_filter *f, int opt, const char *arg)
{
	return ui_filter_opt(f, "report", opt, arg);
}

/* --from/--to T (filter.h), once --utc is known; a time of day waits for
 * the first packet (an_filter_resolve). */
static int parse_span(struct rep *r, const char *from, const char *to)
{
	char err[512];

	r->filt.utc = r->tmode == UI_TIME_UTC;
	if ((from && an_filter_add(&r->filt, AN_FK_FROM, from, err,
				   sizeof(err)) < 0) ||
	    (to && an_filter_add(&r->filt, AN_FK_TO, to, err,
				 sizeof(err)) < 0)) {
		fprintf(stderr, "nfscope report: --from/--to: %s\n", err);
		return -1;
	}
	return 0;
}

/* --from/--to narrow the time span rates are computed over. */
static void rep_clamp(struct rep *r)
{
	int64_t from, to;

	an_filter_resolve(&r->filt, r->first_ns);
	an_filter_bounds(&r->filt, r->first_ns, &from, &to);
	if (from > r->first_ns)
		r->first_ns = from;
	if (to < r->last_ns)
		r->last_ns = to;
	if (r->last_ns < r->first_ns)
		r->last_ns = r->first_ns;
}

/* report DB of a run without every operation: the text report of its
 * aggregates; what needs every operation is refused, saying why. */
static int report_partial(struct rep *r, const char *db,
			  const struct store_run *run, bool needs_ops,
			  bool json, bool csv)
{
	if (needs_ops) {
		fprintf(stderr, "nfscope report: %s: run %" PRId64 " was "
			"recorded with --ops %s: only the report by procedure "
			"(text, --json or --csv ops) is built from its aggregate "
			"tables; the other --csv tables, --by, --interval and "
			"--every need every operation (--ops all).  The tables "
			"are there for SQL "
			"(doc/store.md)\n", db, run->id,
			run->ops_mode == STORE_OPS_SLOW ? "slow" : "none");
		return 1;
	}
	if (json)
		return rep_partial_json(r, db, run) < 0 ? 1 : 0;
	if (csv)
		return rep_partial_csv_ops(r, db, run) < 0 ? 1 : 0;
	return rep_partial_text(r, db, run) < 0 ? 1 : 0;
}

/* --run N...: the runs of the one database named; a usage error without
 * one database, or with DB:N sources. */
static int rep_src_runs(struct rep_src *srcs, size_t *nsrc,
			const int64_t *run_ids, size_t nruns)
{
	size_t k;

	if (nruns == 0)
		return 0;
	if (*nsrc != 1 || srcs[0].run_id) {
		fprintf(stderr, "nfscope report: --run needs one database "
			"(nfscope report OUT.db --run N [--run M]...; runs of "
			"several databases: DB:N)\n");
		return -1;
	}
	for (k = 0; k < nruns; k++) {
		srcs[k] = srcs[0];
		srcs[k].run_id = run_ids[k];
	}
	*nsrc = nruns;
	return 0;
}

static int parse_by(const char *s, enum an_group *g)
{
	int k;

	for (k = 0; k < AN_BY_N; k++)
		if (!strcmp(s, rep_group_names[k])) {
			*g = (enum an_group)k;
			return 0;
		}
	return -1;
}

/* The options of one report, as parsed (rep_opt, rep_opts_check). */
struct rep_opts {
	struct ui_src_opts so;
	struct ui_pcap_opts po;
	struct an_find_config dc;
	const char *csv, *html, *from, *to;
	bool json, list_runs, wide;
	int64_t every_ns;
	int64_t run_ids[REP_SRC_MAX];
	size_t nruns;
};

/* The options that take a number: -1 taken, else the exit status. */
static int rep_opt_num(struct rep *r, struct rep_opts *o, int opt,
		       const char *arg)
{
	double secs;
	char *end;
	uint64_t v;

	switch (opt) {
	case 'I':
		secs = strtod(arg, &end);
		if (*end || !(secs >= 0.001 && secs <= 86400)) {
			fprintf(stderr, "nfscope report: bad --interval "
				"'%s' (0.001..86400 s)\n", arg);
			return 2;
		}
		r->interval_ns = (int64_t)(secs * 1e9);
		return -1;
	case 'G':
		secs = strtod(arg, &end);
		if (end == arg || *end || !(secs >= 0.001 && secs <= 86400))
			return ui_usage_error("report", "bad --every "
					      "'%s' (0.001..86400 s)", arg);
		o->every_ns = (int64_t)(secs * 1e9);
		return -1;
	case 'T':
		if (!ui_parse_u64(arg, &v) || v == 0 || v > 1000000) {
			fprintf(stderr, "nfscope report: bad --top '%s'\n",
				arg);
			return 2;
		}
		r->top = (uint32_t)v;
		return -1;
	default:	/* 'U' */
		if (!ui_parse_u64(arg, &v) || v == 0 || v > INT64_MAX) {
			fprintf(stderr, "nfscope report: bad --run '%s'\n",
				arg);
			return 2;
		}
		if (o->nruns == REP_SRC_MAX)
			return ui_usage_error("report", "more than %d "
					      "--run", REP_SRC_MAX);
		o->run_ids[o->nruns++] = (int64_t)v;
		return -1;
	}
}

/* One option: -1 taken, else the exit status. */
static int rep_opt(struct rep *r, struct rep_opts *o, int opt,
		   const char *arg)
{
	int rc;

	switch (opt) {
	case 'J': o->json = true; return -1;
	case 'X': r->wide = o->wide = true; return -1;
	case 'C': o->csv = arg; return -1;
	case 'M': o->html = arg; return -1;
	case 'W': o->list_runs = true; return -1;
	case 'I': case 'G': case 'T': case 'U':
		return rep_opt_num(r, o, opt, arg);
	case 'Y':
		if (parse_by(arg, &r->by) < 0)
			return ui_usage_error("report", "bad --by '%s' (one of "
					      "op, client, server, export, "
					      "file)", arg);
		return -1;
	case 'H':
		return rep_threshold_parse(&o->dc, arg) < 0 ? 2 : -1;
	case 'L':
		rep_thresholds_list(stdout);
		return 0;
	case 'A':
	case 'E':
		*(opt == 'A' ? &o->from : &o->to) = arg;
		r->filtered = true;
		return -1;
	case 'K':
	case 'V':
	case 'P':
	case UI_OPT_FH:
		if (parse_filter(&r->filt, opt, arg) < 0)
			return 2;
		r->filtered = true;
		return -1;
	case UI_OPT_WRITE_PCAP:
	case UI_OPT_SELECT:
		return ui_pcap_opt(&o->po, "report", opt, arg) < 0 ? 2 : -1;
	case 'h':
		report_usage(stdout);
		return 0;
	default:
		rc = ui_src_opt(&o->so, opt, arg);
		if (rc == 1)
			return -1;
		return rc == 0 ? ui_usage_error("report", NULL) : 2;
	}
}

/* The options together, once all are read: -1 good, else the exit
 * status. */
static int rep_opts_check(struct rep *r, struct rep_opts *o)
{
	const char *csv = o->csv;

	r->tmode = o->so.time_mode;
	if (parse_span(r, o->from, o->to) < 0)
		return 2;
	if (csv && rep_csv(NULL, csv) < 0)
		return ui_usage_error("report", "unknown CSV table '%s' (ops, "
				      "sizes, writes, shortio, retrans, "
				      "vantage, findings, servers, intervals, "
				      "drops)",
				      csv);
	if (o->every_ns && (csv || o->json))
		return ui_usage_error("report", "--every prints text blocks: "
				      "not with --%s", csv ? "csv" : "json");
	if (csv && o->json)
		return ui_usage_error("report", "--csv TABLE and --json exclude "
				      "each other: give one");
	if (o->html && (csv || o->json || o->every_ns))
		return ui_usage_error("report", "--html and --%s exclude each "
				      "other: give one", csv ? "csv" : o->json ?
				      "json" : "every");
	if (o->html && r->interval_ns == 0)
		r->interval_ns = NSEC_PER_SEC;	/* the page's time series */
	r->series_cols = o->html ? 600 : 0;	/* points per line */
	return -1;
}

/* --write-pcap and --html against the inputs and each other
 * (ui/outfile.h): -1 good, else 1 (said). */
static int rep_outs_check(const struct rep_opts *o,
			  const struct rep_src *srcs, size_t nsrc)
{
	const struct ui_out_name outs[] = {
		{ "--write-pcap", o->po.path }, { "--html", o->html } };
	const char *ins[UI_FILES_MAX + REP_SRC_MAX];
	size_t n = 0, i;

	for (i = 0; i < o->so.nfiles; i++)
		ins[n++] = o->so.files[i];
	for (i = 0; i < nsrc; i++)
		ins[n++] = srcs[i].path;
	return ui_out_check("report", outs, 2, ins, n) < 0 ? 1 : -1;
}

/* The inputs: a capture (-r, -i) or databases (report DB[:N]...,
 * report -r OUT.db), into srcs/nsrc and *db (the first database, NULL
 * for a capture): -1 good, else the exit status. */
static int rep_inputs(struct rep_opts *o, int argc, char **argv,
		      struct rep_src *srcs, size_t *nsrc, const char **db)
{
	const struct ui_src_opts *so = &o->so;

	/* report DB[:N] [DB[:N]]...: several runs as one */
	while (!so->file && !so->iface && optind < argc &&
	       *nsrc < REP_SRC_MAX && rep_src_parse(argv[optind],
						    &srcs[*nsrc]) == 0) {
		(*nsrc)++;
		optind++;
	}
	if (*nsrc) {
		*db = srcs[0].path;
	} else if (optind + 1 == argc && !so->file && !so->iface) {
		*db = argv[optind++];	/* report OUT.db */
		if (!store_is_db(*db) && access(*db, R_OK) == 0)
			return ui_usage_error("report", "%s is not a database "
					      "written by nfscope record (a "
					      "capture is read with -r %s)",
					      *db, *db);
		*nsrc = 1;	/* not there: store_open says so */
		snprintf(srcs[0].path, sizeof(srcs[0].path), "%s", *db);
	} else if (so->nfiles == 1 && store_is_db(so->file)) {
		*db = so->file;		/* report -r OUT.db */
		*nsrc = 1;
		snprintf(srcs[0].path, sizeof(srcs[0].path), "%s", *db);
	}
	/* nfsiostat's habit: an interval after the options */
	if (optind + 1 == argc && (so->file || so->iface) &&
	    strspn(argv[optind], "0123456789.") == strlen(argv[optind]))
		return ui_usage_error("report", "bad filter '%s': for a block "
				      "every %s seconds (as nfsiostat %s) give "
				      "--every %s", argv[optind], argv[optind],
				      argv[optind], argv[optind]);
	if (optind < argc && (*db || (!so->file && !so->iface)))
		return ui_usage_error("report", *db ? "a filter expression "
				      "('%s') applies to a capture (-r FILE, "
				      "-i IFACE), not to a database" :
				      "no input: give -r FILE or -i IFACE ('%s' "
				      "begins a filter expression)",
				      argv[optind]);
	if (ui_src_args(&o->so, "report", argc, argv, optind) < 0 ||
	    rep_src_runs(srcs, nsrc, o->run_ids, o->nruns) < 0)
		return 2;
	if (o->list_runs) {
		if (!*db) {
			fprintf(stderr, "nfscope report: --runs needs a database\n");
			return 2;
		}
		return rep_store_list(*db, stdout, o->so.time_mode,
				      o->wide) < 0 ? 1 : 0;
	}
	if (ui_pcap_check(&o->po, "report", &o->so, *db != NULL) < 0)
		return 2;
	return rep_outs_check(o, srcs, *nsrc);
}

/* What the run adds operations to: false, out of memory. */
static bool rep_alloc(struct rep *r, const struct rep_opts *o)
{
	struct an_figs_config fc;

	memset(&fc, 0, sizeof(fc));
	fc.interval_ns = r->interval_ns ? r->interval_ns : NSEC_PER_SEC;
	/* the totals' series is printed only with --interval, --html and
	 * --csv (intervals): without them it is counted, not kept */
	fc.intervals_counted = !r->interval_ns && !o->html && !o->csv;
	r->size_share = o->dc.size_share;
	r->figs = an_figs_new(&fc);
	r->find = an_find_new(&o->dc);
	if ((o->html || (o->json && r->interval_ns)) &&
	    (r->series = an_series_new(fc.interval_ns, 0)) == NULL)
		return false;
	if (o->every_ns && (r->every = rep_every_new(o->every_ns)) == NULL)
		return false;
	return r->figs && r->find;
}

/* The report itself, once the input is read: the exit status. */
static int rep_write(struct rep *r, const struct rep_opts *o, FILE *hf)
{
	if (o->html)
		return rep_html(r, hf) < 0;
	if (o->csv)
		return rep_csv(r, o->csv) < 0;	/* the name was checked */
	if (o->json)
		return rep_json(r) < 0;
	return rep_text(r) < 0;
}

int ui_report_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		UI_SRC_LONGOPTS,
		{ "json", no_argument, NULL, 'J' },
		{ "csv", required_argument, NULL, 'C' },
		{ "html", required_argument, NULL, 'M' },
		{ "by", required_argument, NULL, 'Y' },
		{ "wide", no_argument, NULL, 'X' },
		{ "interval", required_argument, NULL, 'I' },
		{ "every", required_argument, NULL, 'G' },
		{ "top", required_argument, NULL, 'T' },
		{ "threshold", required_argument, NULL, 'H' },
		{ "thresholds", no_argument, NULL, 'L' },
		{ "run", required_argument, NULL, 'U' },
		{ "runs", no_argument, NULL, 'W' },
		{ "from", required_argument, NULL, 'A' },
		{ "to", required_argument, NULL, 'E' },
		{ "client", required_argument, NULL, 'K' },
		{ "server", required_argument, NULL, 'V' },
		{ "op", required_argument, NULL, 'P' },
		{ "fh", required_argument, NULL, UI_OPT_FH },
		UI_PCAP_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct rep_opts o;
	struct rep r;
	struct run_config c;
	struct run_hooks h;
	struct store_run run;
	struct an_names *names = NULL;
	const char *db = NULL;
	struct ui_out html = { 0 };	/* --html's file */
	bool wrote = false;		/* the report was written */
	size_t nsrc = 0;
	struct rep_src *srcs = NULL;
	bool pcap_failed;
	int opt, rc;

	memset(&r, 0, sizeof(r));
	memset(&o, 0, sizeof(o));
	an_find_config_default(&o.dc);
	r.top = 20;
	ui_src_opts_init(&o.so);
	optind = 1;
	while ((opt = getopt_long(argc, argv, UI_SRC_OPTSTRING "h", longopts,
				  NULL)) != -1)
		if ((rc = rep_opt(&r, &o, opt, optarg)) >= 0)
			return rc;
	if ((rc = rep_opts_check(&r, &o)) >= 0)
		return rc;
	srcs = calloc(REP_SRC_MAX, sizeof(*srcs));
	if (srcs == NULL) {
		fprintf(stderr, "nfscope: out of memory\n");
		return 1;
	}
	if ((rc = rep_inputs(&o, argc, argv, srcs, &nsrc, &db)) >= 0) {
		free(srcs);
		return rc;
	}
	ui_run_config(&o.so, "report", &c);
	c.ops_only = db != NULL;	/* a database's ops: run_put_op */
	c.analyze = true;
	c.dec.no_attrs = true;		/* no figure uses attribute values */
	c.progress = o.so.file && isatty(2);
	rc = 1;
	/* before the source opens: live, it spools every frame */
	if (o.po.path && (r.ev = run_evidence_new(&o.po.sel)) == NULL) {
		fprintf(stderr, "nfscope: out of memory\n");
		goto out;
	}
	run_evidence_live(r.ev, &c, o.po.path);
	/* the output files after -Z, before the capture: a bad path fails
	   at once */
	if (run_open(&r.run, &c) < 0 || run_after_open(r.run) < 0 ||
	    run_evidence_spool(r.ev, run_source(r.run), "report") < 0 ||
	    ui_pcap_begin(&o.po, "report") < 0 ||
	    ui_out_begin(&html, "report", "--html", o.html) < 0)
		goto out;
	r.source = ui_src_name(&o.so);
	r.out = stdout;
	/*
	 * With none of the operation filters (--from, --to, --client,
	 * --server, --op) and a capture, the engine runs on the second
	 * thread with the figures and findings: the capture thread only
	 * reads and decodes.  Otherwise the filter runs where the ops come
	 * from (keep) and the ops that pass go to the second thread.
	 */
	if (!rep_alloc(&r, &o)) {
		fprintf(stderr, "nfscope: out of memory\n");
		goto out;
	}
	rep_hooks(&r, &h);
	h.keep = db || r.filtered ? on_op : NULL;
	if (run_go(r.run, &h) < 0)
		goto out;
	if (db) {
		if (rep_store_load_many(&r, srcs, nsrc, &run, &names,
					on_stored_op) < 0)
			goto out;
		if (r.partial) {
			rc = report_partial(&r, db, &run, (o.csv &&
					    strcmp(o.csv, "ops") != 0) ||
					    o.html || o.every_ns ||
					    r.interval_ns || r.by != AN_BY_OP,
					    o.json, o.csv != NULL);
			goto out;
		}
		run_finish(r.run, NULL);	/* the findings are ours again */
	}
	rep_every_end(&r);
	rep_clamp(&r);
	an_find_finish(r.find, r.figs, r.cs.ipfrag_incomplete);
	/* a pcap that failed (said) leaves the report, not its status */
	pcap_failed = r.ev && ui_pcap_write(r.ev, &o.po, &c,
		&(struct ui_pcap_end){ .find = r.find, .slow_ms = o.dc.slow_ms,
				       .frames = r.cs.packets }, false) < 0;
	rc = rep_write(&r, &o, html.f);
	wrote = rc == 0;
	if (rc == 0 && pcap_failed)
		rc = 1;
	/* stdout is flushed and checked by main (ui_out_close) */
	if (rc == 0 && r.cut && !db)
		rc = UI_EXIT_CUT;
out:
	run_free(r.run);	/* first: its threads use figs, find, every */
	an_find_free(r.find);
	an_figs_free(r.figs);
	an_series_free(r.series);
	rep_every_free(r.every);
	run_evidence_free(r.ev);
	an_names_free(names);
	ui_pcap_abort(&o.po);	/* not written: removed */
	if (ui_out_end(&html, wrote) < 0 && wrote)
		rc = 1;
	free(srcs);
	return rc;
}
