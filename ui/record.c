/* record.c - `nfscope record`; see record.h and doc/store.md. */
#include "ui/record.h"
#include "ui/cli.h"
#include "store/store.h"

#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct rec {
	struct store *st;
	struct store_run run;
	struct dec *dec;
	struct dec_msg *msg;		/* reused for every message (large) */
	struct an_engine *eng;
	struct an_figs *figs;
	struct an_find *find;
	struct cap_pipe *pipe;
	struct cap_source *src;
	uint64_t batch_rows;
	int64_t next_commit_ns;		/* capture time of the next commit */
	int64_t now_ns;			/* latest message time */
	bool failed;
	bool quiet;
	char err[STORE_ERRBUF_SIZE];
};

static void fill_counters(struct rec *r)
{
	r->run.cs = *cap_pipe_stats(r->pipe);
	cap_source_stats(r->src, &r->run.cs);	/* drops so far (live) */
	r->run.ds = *dec_get_stats(r->dec);
	r->run.es = *an_get_stats(r->eng);
}

/* Entries dropped for memory budgets so far (as the report counts them). */
static uint64_t evictions(const struct rec *r)
{
	return r->run.cs.flows_evicted + r->run.cs.ipfrag_evicted +
	       r->run.ds.xid_evictions + r->run.es.evicted +
	       r->run.es.names_evicted;
}

static void log_commit(const struct rec *r)
{
	const struct store_counts *c = store_get_counts(r->st);

	if (r->quiet)
		return;
	fprintf(stderr, "nfscope record: batch %" PRIu64 " committed: ops %"
		PRIu64 " intervals %" PRIu64 " flows %" PRIu64 " names %"
		PRIu64 " dropped by kernel %" PRIu64 " by interface %" PRIu64
		" evicted %" PRIu64 "\n", c->batches, c->ops, c->intervals,
		c->flows, c->names, r->run.cs.ps_drop, r->run.cs.ps_ifdrop,
		evictions(r));
}

static void rec_commit(struct rec *r, int64_t now_ns)
{
	if (r->failed)
		return;
	fill_counters(r);
	if (store_commit(r->st, &r->run, an_get_names(r->eng), now_ns,
			 r->err) < 0) {
		r->failed = true;
		ui_stop = 1;
		return;
	}
	log_commit(r);
}

static void on_op(void *user, const struct an_op *op)
{
	struct rec *r = user;

	an_figs_add(r->figs, op);
	an_find_add(r->find, op);
	if (r->failed)
		return;
	if (store_put_op(r->st, op, an_get_names(r->eng), r->err) < 0) {
		r->failed = true;
		ui_stop = 1;
		return;
	}
	if (store_pending(r->st) >= r->batch_rows)
		rec_commit(r, r->now_ns);
}

static void on_msg(void *user, const struct cap_msg *m)
{
	struct rec *r = user;
	bool rpc;

	if (r->run.first_ns == 0 || m->ts_ns < r->run.first_ns)
		r->run.first_ns = m->ts_ns;
	if (m->ts_ns > r->run.last_ns)
		r->run.last_ns = m->ts_ns;
	r->now_ns = r->run.last_ns;
	if (r->next_commit_ns == 0)
		r->next_commit_ns = m->ts_ns + r->run.interval_ns;
	else if (m->ts_ns >= r->next_commit_ns) {
		rec_commit(r, m->ts_ns);
		r->next_commit_ns = m->ts_ns + r->run.interval_ns;
	}
	rpc = dec_message(r->dec, m, r->msg);
	store_put_msg(r->st, m, rpc && r->msg->rpc.msg_type == RPC_CALL,
		      rpc && r->msg->rpc.msg_type == RPC_REPLY);
	if (!rpc)
		return;
	r->run.rpc_msgs++;
	an_feed(r->eng, m, r->msg);
}

/* Live, every second: age out unanswered calls, commit the batch. */
static void on_tick(void *user, int64_t now_ns)
{
	struct rec *r = user;

	an_tick(r->eng, now_ns);
	rec_commit(r, r->now_ns);
}

/* Live: the capture lost packets; stored with the next batch (table
 * drops) so every reader knows that span is incomplete. */
static void on_drops(void *user, const struct cap_drop_span *sp)
{
	struct rec *r = user;

	store_put_drop(r->st, sp);
	if (!r->quiet)
		fprintf(stderr, "nfscope record: %" PRIu64 " packets dropped by "
			"the kernel, %" PRIu64 " by the interface between %.6f "
			"and %.6f: what is recorded for that span is "
			"incomplete\n", sp->drop, sp->ifdrop,
			(double)sp->start_ns / 1e9, (double)sp->end_ns / 1e9);
}

static void record_usage(FILE *f)
{
	fputs("usage: nfscope record [-r FILE | -i IFACE] [-f FILTER] "
	      "[-s SNAPLEN] [-c COUNT] [-B KIB] [-p] [-Z USER]\n"
	      "                      [--duration S] [budgets]\n"
	      "                      -w OUT.db [--ops all|slow:MS|none] "
	      "[--interval SECONDS]\n"
	      "                      [--retain DURATION] [--batch ROWS] "
	      "[--force] [--quiet]\n"
	      "-w OUT.db is created after -Z has dropped privileges: USER must "
	      "be able to write it.\n"
	      "SIGINT/SIGTERM store the last batch and end the run; SIGHUP is "
	      "logged and ignored.\n" UI_SRC_USAGE, f);
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

int ui_record_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		UI_SRC_LONGOPTS,
		{ "ops", required_argument, NULL, 'O' },
		{ "interval", required_argument, NULL, 'I' },
		{ "retain", required_argument, NULL, 'R' },
		{ "batch", required_argument, NULL, 'N' },
		{ "force", no_argument, NULL, 'F' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ui_src_opts so;
	struct rec r;
	struct cap_source *src = NULL;
	const char *out = NULL;
	bool force = false;
	double secs;
	char *end;
	uint64_t v;
	int opt, rc;

	memset(&r, 0, sizeof(r));
	r.run.interval_ns = 10000000000LL;
	r.batch_rows = 65536;
	ui_src_opts_init(&so);
	optind = 1;
	while ((opt = getopt_long(argc, argv, UI_SRC_OPTSTRING "w:qh", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'w':
			out = optarg;
			continue;
		case 'O':
			if (parse_ops(optarg, &r.run) < 0) {
				fprintf(stderr, "nfscope record: bad --ops '%s' "
					"(all, slow:MS or none)\n", optarg);
				return 2;
			}
			continue;
		case 'I':
			secs = strtod(optarg, &end);
			if (*end || !(secs >= 0.001 && secs <= 86400)) {
				fprintf(stderr, "nfscope record: bad --interval "
					"'%s' (0.001..86400 s)\n", optarg);
				return 2;
			}
			r.run.interval_ns = (int64_t)llround(secs * 1e9);
			continue;
		case 'R':
			if (store_parse_duration(optarg, &r.run.retain_ns) < 0) {
				fprintf(stderr, "nfscope record: bad --retain '%s' "
					"(e.g. 3600, 90m, 12h, 7d)\n", optarg);
				return 2;
			}
			continue;
		case 'N':
			if (!ui_parse_u64(optarg, &v) || v == 0 || v > 100000000) {
				fprintf(stderr, "nfscope record: bad --batch "
					"'%s'\n", optarg);
				return 2;
			}
			r.batch_rows = v;
			continue;
		case 'F':
			force = true;
			continue;
		case 'q':
			r.quiet = true;
			continue;
		case 'h':
			record_usage(stdout);
			return 0;
		default:
			break;
		}
		rc = ui_src_opt(&so, opt, optarg);
		if (rc == 1)
			continue;
		if (rc == 0)
			record_usage(stderr);
		return 2;
	}
	if (optind < argc || out == NULL) {
		if (optind < argc)
			fprintf(stderr, "nfscope record: unexpected argument "
				"'%s'\n", argv[optind]);
		else
			fprintf(stderr, "nfscope record: no output: give -w "
				"OUT.db\n");
		record_usage(stderr);
		return 2;
	}
	/*
	 * The capture device first (it needs root), then -Z, then the
	 * database, as tcpdump does with -w: the file and its -wal/-shm then
	 * belong to the user who can later open, checkpoint and delete them,
	 * and root never writes where that user could point it.
	 */
	ui_install_signals();	/* before the capture opens (see dump.c) */
	src = ui_open_source(&so);
	if (!src)
		return 1;
	if (ui_after_open(&so) < 0) {
		cap_close(src);
		return 1;
	}
	if (store_open(out, STORE_WRITE | (force ? STORE_REPLACE : 0), &r.st,
		       r.err) < 0) {
		fprintf(stderr, "nfscope record: %s%s%s%s\n", r.err,
			so.user ? " (as -Z user " : "", so.user ? so.user : "",
			so.user ? ")" : "");
		cap_close(src);
		return 1;
	}
	r.src = src;
	snprintf(r.run.source, sizeof(r.run.source), "%s",
		 so.file ? so.file : so.iface);
	snprintf(r.run.filter, sizeof(r.run.filter), "%s",
		 so.cfg.filter ? so.cfg.filter : "");
	r.run.live = so.iface != NULL;
	r.run.snaplen = so.iface ? cap_source_snaplen(src) : 0;
	r.dec = dec_new(&so.dec);
	r.msg = malloc(sizeof(*r.msg));
	so.cfg.probe = dec_probe_start;
	so.cfg.resync_probe = dec_probe_resync;
	so.cfg.probe_user = r.dec;
	r.eng = an_new(&so.an, on_op, &r);
	r.figs = an_figs_new(NULL);
	r.find = an_find_new(NULL);
	rc = 1;
	if (r.dec && r.msg && r.eng && r.figs && r.find)
		r.pipe = cap_pipe_new(&so.cfg, on_msg, &r);
	if (r.pipe == NULL) {
		fprintf(stderr, "nfscope: out of memory\n");
		goto out;
	}
	if (store_run_begin(r.st, &r.run, r.err) < 0) {
		fprintf(stderr, "nfscope record: %s\n", r.err);
		goto out;
	}
	{
		struct ui_run_hooks h = { .user = &r, .who = "record",
			.tick = on_tick, .drops = on_drops };

		if (ui_run(src, r.pipe, &h) < 0 && !r.failed)
			goto out;
	}
	if (!r.failed) {
		an_flush(r.eng);
		fill_counters(&r);
		an_find_finish(r.find, r.figs, r.run.cs.ipfrag_incomplete);
		snprintf(r.run.state, sizeof(r.run.state), "%s",
			 ui_stop ? "interrupted" : "complete");
	}
	if (r.failed || store_run_end(r.st, &r.run, an_get_names(r.eng),
				      r.figs, r.find, r.err) < 0) {
		fprintf(stderr, "nfscope record: %s: %s\n", out, r.err);
		goto out;
	}
	log_commit(&r);
	if (!r.quiet)
		fprintf(stderr, "nfscope record: run %" PRId64 " %s: %" PRIu64
			" packets, %" PRIu64 " operations, %" PRIu64 " stored "
			"in %s (insert thread %.3f s CPU)\n", r.run.id,
			r.run.state, r.run.cs.packets, r.run.es.ops,
			store_get_counts(r.st)->ops, out,
			store_get_counts(r.st)->writer_ns / 1e9);
	rc = 0;
out:
	store_close(r.st);
	cap_pipe_free(r.pipe);
	an_find_free(r.find);
	an_figs_free(r.figs);
	an_free(r.eng);
	free(r.msg);
	dec_free(r.dec);
	cap_close(src);
	return rc;
}
