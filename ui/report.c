/* report.c - `nfscope report`: the driver; the writers are report_text.c
 * and report_out.c; see report.h. */
#include "ui/report.h"
#include "ui/cli.h"
#include "ui/esc.h"
#include "ui/times.h"

#include <getopt.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ----------------------------------------------------------- driving -- */

/* On the second thread (feedq.h, opq.h): the figures (pipelined: the
 * figures are read only at the end) and findings. */
static void on_op_sums(void *user, const struct an_op *op)
{
	struct rep *r = user;

	an_figs_push(r->figs, op);
	an_find_add(r->find, op);
	if (r->every)
		rep_every_add(r, op);
}

static void on_op(void *user, const struct an_op *op)
{
	struct rep *r = user;

	if (r->filtered) {
		an_filter_resolve(&r->filt, r->first_ns);
		if (!an_filter_match(&r->filt, op, r->first_ns))
			return;
	}
	an_opq_push(r->q, op);
}

/* Replies the decoder held until their call came (or gave up on). */
static void feed_held(struct rep *r)
{
	const struct cap_msg *m;
	bool rpc;

	while ((m = dec_next(r->dec, r->msg, &rpc)) != NULL) {
		if (!rpc)
			continue;
		r->rpc_msgs++;
		an_feedq_feed(r->fq, m, r->msg);
	}
}

static void on_msg(void *user, const struct cap_msg *m)
{
	struct rep *r = user;

	if (r->first_ns == 0 || m->ts_ns < r->first_ns)
		r->first_ns = m->ts_ns;
	if (m->ts_ns > r->last_ns)
		r->last_ns = m->ts_ns;
	if (dec_message(r->dec, m, r->msg)) {
		r->rpc_msgs++;
		an_feedq_feed(r->fq, m, r->msg);
	}
	feed_held(r);
}

static void on_tick(void *user, int64_t now_ns)
{
	struct rep *r = user;

	dec_tick(r->dec, now_ns);
	feed_held(r);
	an_feedq_tick(r->fq, now_ns);	/* live: unanswered calls age out */
}

static void on_drops(void *user, const struct cap_drop_span *sp)
{
	struct rep *r = user;

	ui_drops_add(&r->drops, sp);
}

/* ------------------------------------------------------------- main -- */

static void report_usage(FILE *f)
{
	fputs("usage: nfscope report [-r FILE | -i IFACE] [-f FILTER] "
	      "[-s SNAPLEN] [-c COUNT] [-B KIB] [-p] [-Z USER]\n"
	      "                      [--duration S] [budgets]\n"
	      "       nfscope report OUT.db [--run N | --runs]   (a database "
	      "written by nfscope record)\n"
	      "                      [--from T] [--to T] [--client ADDR] "
	      "[--server ADDR] [--op NAME[,NAME]]...\n"
	      "                      [--json] [--csv TABLE] "
	      "[--by op|client|server|export|file]\n"
	      "                      [--interval SECONDS] [--every SECONDS] [--top N] "
	      "[--threshold NAME=VALUE]... [--thresholds]\n"
	      "                      [EXPRESSION]   (a BPF filter, as tcpdump's)\n"
	      "CSV tables: ops (the --by grouping), sizes, writes, retrans, "
	      "findings, servers, intervals, drops\n" UI_SRC_USAGE, f);
}

/* --client/--server/--op (analyze/filter.h: comma lists, repeatable). */
static int parse_filter(struct an_filter *f, int opt, const char *arg)
{
	static const struct {
		int opt;
		enum an_filter_key key;
		const char *name;
	} keys[] = {
		{ 'K', AN_FK_CLIENT, "--client" },
		{ 'V', AN_FK_SERVER, "--server" },
		{ 'P', AN_FK_OP, "--op" },
	};
	char err[4096];
	size_t k;

	for (k = 0; keys[k].opt != opt; k++)
		;
	if (an_filter_add(f, keys[k].key, arg, err, sizeof(err)) == 0)
		return 0;
	fprintf(stderr, "nfscope report: %s: %s\n", keys[k].name, err);
	return -1;
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
			  const struct store_run *run, bool needs_ops)
{
	if (needs_ops) {
		fprintf(stderr, "nfscope report: %s: run %" PRId64 " was "
			"recorded with --ops %s: only the text report by "
			"procedure is built from its aggregate tables; --json, "
			"--csv, --by, --interval and --every need every "
			"operation (--ops all).  The tables are there for SQL "
			"(doc/store.md)\n", db, run->id,
			run->ops_mode == STORE_OPS_SLOW ? "slow" : "none");
		return 1;
	}
	return rep_partial_text(r, db, run) < 0 ? 1 : 0;
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

int ui_report_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		UI_SRC_LONGOPTS,
		{ "json", no_argument, NULL, 'J' },
		{ "csv", required_argument, NULL, 'C' },
		{ "by", required_argument, NULL, 'Y' },
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
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ui_src_opts so;
	struct rep r;
	struct an_figs_config fc;
	struct an_find_config dc;
	struct cap_source *src = NULL;
	struct cap_pipe *pipe = NULL;
	struct store_run run;
	struct an_names *names = NULL;
	const char *csv = NULL, *db = NULL, *from = NULL, *to = NULL;
	int64_t run_id = 0;
	bool list_runs = false;
	bool json = false, feed;
	double secs;
	char *end;
	uint64_t v;
	int64_t every_ns = 0;
	int opt, rc, cut;

	memset(&r, 0, sizeof(r));
	memset(&fc, 0, sizeof(fc));
	an_find_config_default(&dc);
	r.top = 20;
	ui_src_opts_init(&so);
	optind = 1;
	while ((opt = getopt_long(argc, argv, UI_SRC_OPTSTRING "h", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'J':
			json = true;
			continue;
		case 'C':
			csv = optarg;
			continue;
		case 'Y':
			if (parse_by(optarg, &r.by) < 0) {
				fprintf(stderr, "nfscope report: bad --by '%s'\n",
					optarg);
				return 2;
			}
			continue;
		case 'I':
			secs = strtod(optarg, &end);
			if (*end || !(secs >= 0.001 && secs <= 86400)) {
				fprintf(stderr, "nfscope report: bad --interval "
					"'%s' (0.001..86400 s)\n", optarg);
				return 2;
			}
			r.interval_ns = (int64_t)(secs * 1e9);
			continue;
		case 'G':
			secs = strtod(optarg, &end);
			if (end == optarg || *end || !(secs >= 0.001 &&
						       secs <= 86400))
				return ui_usage_error("report", "bad --every "
						      "'%s' (0.001..86400 s)",
						      optarg);
			every_ns = (int64_t)(secs * 1e9);
			continue;
		case 'T':
			if (!ui_parse_u64(optarg, &v) || v == 0 || v > 1000000) {
				fprintf(stderr, "nfscope report: bad --top '%s'\n",
					optarg);
				return 2;
			}
			r.top = (uint32_t)v;
			continue;
		case 'H':
			if (rep_threshold_parse(&dc, optarg) < 0)
				return 2;
			continue;
		case 'L':
			rep_thresholds_list(stdout);
			return 0;
		case 'U':
			if (!ui_parse_u64(optarg, &v) || v == 0 ||
			    v > INT64_MAX) {
				fprintf(stderr, "nfscope report: bad --run '%s'\n",
					optarg);
				return 2;
			}
			run_id = (int64_t)v;
			continue;
		case 'W':
			list_runs = true;
			continue;
		case 'A':
		case 'E':
			*(opt == 'A' ? &from : &to) = optarg;
			r.filtered = true;
			continue;
		case 'K':
		case 'V':
		case 'P':
			if (parse_filter(&r.filt, opt, optarg) < 0)
				return 2;
			r.filtered = true;
			continue;
		case 'h':
			report_usage(stdout);
			return 0;
		default:
			break;
		}
		rc = ui_src_opt(&so, opt, optarg);
		if (rc == 1)
			continue;
		return rc == 0 ? ui_usage_error("report", NULL) : 2;
	}
	r.tmode = so.time_mode;
	if (parse_span(&r, from, to) < 0)
		return 2;
	if (csv && rep_csv(NULL, csv) < 0)
		return ui_usage_error("report", "unknown CSV table '%s' (ops, "
				      "sizes, writes, shortio, retrans, "
				      "findings, servers, intervals, drops)",
				      csv);
	if (every_ns && (csv || json))
		return ui_usage_error("report", "--every prints text blocks: "
				      "not with --%s", csv ? "csv" : "json");
	if (csv && json)
		return ui_usage_error("report", "--csv TABLE and --json exclude "
				      "each other: give one");
	if (optind + 1 == argc && !so.file && !so.iface) {
		db = argv[optind++];	/* report OUT.db */
		if (!rep_is_store(db) && access(db, R_OK) == 0)
			return ui_usage_error("report", "%s is not a database "
					      "written by nfscope record (a "
					      "capture is read with -r %s)",
					      db, db);
	} else if (so.nfiles == 1 && rep_is_store(so.file)) {
		db = so.file;		/* report -r OUT.db */
	}
	if (optind < argc && (db || (!so.file && !so.iface)))
		return ui_usage_error("report", db ? "a filter expression "
				      "('%s') applies to a capture (-r FILE, "
				      "-i IFACE), not to a database" :
				      "no input: give -r FILE or -i IFACE ('%s' "
				      "begins a filter expression)",
				      argv[optind]);
	if (ui_src_args(&so, "report", argc, argv, optind) < 0)
		return 2;
	if (list_runs) {
		if (!db) {
			fprintf(stderr, "nfscope report: --runs needs a database\n");
			return 2;
		}
		return rep_store_list(db, stdout, r.tmode) < 0 ? 1 : 0;
	}
	if (run_id && !db) {
		fprintf(stderr, "nfscope report: --run needs a database "
			"(nfscope report OUT.db --run N)\n");
		return 2;
	}
	ui_install_signals();	/* before the capture opens (see dump.c) */
	if (!db && !(src = ui_open_source(&so)))
		return 1;
	if (ui_after_open(&so) < 0) {
		cap_close(src);
		return 1;
	}
	r.source = ui_src_name(&so);
	r.out = stdout;
	fc.interval_ns = r.interval_ns ? r.interval_ns : 1000000000;
	r.size_share = dc.size_share;
	so.dec.no_attrs = true;		/* no figure uses attribute values */
	r.dec = dec_new(&so.dec);
	r.msg = malloc(sizeof(*r.msg));
	so.cfg.probe = dec_probe_start;
	so.cfg.resync_probe = dec_probe_resync;
	so.cfg.probe_user = r.dec;
	/*
	 * Reading a capture with none of the operation filters (--from,
	 * --to, --client, --server, --op), the engine runs on the second
	 * thread with the figures and findings (feedq.h): the capture
	 * thread only reads and decodes.  Otherwise the engine stays on the
	 * capture thread (an unthreaded feedq) and ops go through on_op
	 * (the filter; a database's ops) to the second thread (opq.h).
	 */
	feed = !db && !r.filtered;
	r.eng = an_new(&so.an, feed ? on_op_sums : on_op, &r);
	r.figs = an_figs_new(&fc);
	if (every_ns && (r.every = rep_every_new(every_ns)) == NULL)
		r.figs = (an_figs_free(r.figs), NULL);	/* out of memory */
	r.find = an_find_new(&dc);
	if (r.figs && r.find && r.eng) {
		r.fq = an_feedq_new(r.eng, feed ? 2 : 0);
		if (!feed)
			r.q = an_opq_new(0, 2, on_op_sums, &r);
	}
	if (r.dec && r.msg && r.fq && (feed || r.q))
		pipe = cap_pipe_new(&so.cfg, on_msg, &r);
	rc = 1;
	if (pipe == NULL) {
		fprintf(stderr, "nfscope: out of memory\n");
		goto out;
	}
	if (db) {
		if (rep_store_load(&r, db, run_id, &run, &names, on_op) < 0)
			goto out;
		if (r.partial) {
			rc = report_partial(&r, db, &run, csv || json ||
					    every_ns || r.interval_ns ||
					    r.by != AN_BY_OP);
			goto out;
		}
	} else {
		struct ui_run_hooks h = {
			.user = &r, .who = "report", .tick = on_tick,
			.drops = on_drops, .progress = so.file && isatty(2),
		};

		cut = ui_run(src, pipe, &h);
		if (cut < 0)
			goto out;
		r.cut = cut == 1 && cap_source_read_error(src, &r.cut_at);
		dec_flush(r.dec);
		feed_held(&r);
		an_feedq_flush(r.fq);	/* the engine is ours again */
		r.cs = *cap_pipe_stats(pipe);
		cap_source_stats(src, &r.cs);
		r.ds = dec_get_stats(r.dec);
		r.es = an_get_stats(r.eng);
		r.names = an_get_names(r.eng);
	}
	an_opq_drain(r.q);	/* the findings are ours again */
	if (!db)
		an_find_handshakes(r.find, cap_pipe_handshakes(pipe, NULL),
				   CAP_HANDSHAKE_PAIRS);
	rep_every_end(&r);
	rep_clamp(&r);
	an_find_finish(r.find, r.figs, r.cs.ipfrag_incomplete);
	if (csv) {
		rc = rep_csv(&r, csv) < 0;	/* the name was checked above */
	} else if (json) {
		rc = rep_json(&r) < 0;
	} else {
		rc = rep_text(&r) < 0;
	}
	/* stdout is flushed and checked by main (ui_out_close) */
	if (rc == 0 && r.cut && !db)
		rc = UI_EXIT_CUT;
out:
	cap_pipe_free(pipe);
	an_feedq_free(r.fq);
	an_opq_free(r.q);
	an_find_free(r.find);
	an_figs_free(r.figs);
	rep_every_free(r.every);
	an_free(r.eng);
	free(r.msg);
	dec_free(r.dec);
	an_names_free(names);
	cap_close(src);
	return rc;
}
