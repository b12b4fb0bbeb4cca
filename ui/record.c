/* record.c - `nfscope record`; see record.h and doc/store.md. */
#include "ui/record.h"
#include "ui/cli.h"
#include "store/store.h"

#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
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
	r->run.ds = *dec_get_stats(r->dec);
	r->run.es = *an_get_stats(r->eng);
}

static void log_commit(const struct rec *r)
{
	const struct store_counts *c = store_get_counts(r->st);

	if (r->quiet)
		return;
	fprintf(stderr, "nfscope record: batch %" PRIu64 " committed: ops %"
		PRIu64 " intervals %" PRIu64 " flows %" PRIu64 " names %"
		PRIu64 "\n", c->batches, c->ops, c->intervals, c->flows,
		c->names);
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

static double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Read the source; live: poll when idle and commit every second. */
static int rec_loop(struct rec *r, struct cap_source *src, bool live)
{
	char err[CAP_ERRBUF_SIZE] = "";
	double last = wall_s();
	int rc, fd = live ? cap_source_fd(src) : -1;

	while (!ui_stop) {
		uint64_t before = cap_pipe_stats(r->pipe)->packets;

		rc = cap_step(src, r->pipe, 4096, err);
		if (rc < 0) {
			fprintf(stderr, "nfscope: %s\n", err);
			return -1;
		}
		if (rc == 0)
			break;
		if (!live)
			continue;
		if (cap_pipe_stats(r->pipe)->packets == before && fd >= 0) {
			struct pollfd pfd = { .fd = fd, .events = POLLIN };

			(void)poll(&pfd, 1, 100);
		}
		if (wall_s() - last >= 1.0) {
			struct timespec ts;

			last = wall_s();
			clock_gettime(CLOCK_REALTIME, &ts);
			an_tick(r->eng, (int64_t)ts.tv_sec * 1000000000LL +
				ts.tv_nsec);
			rec_commit(r, r->now_ns);
		}
	}
	cap_pipe_flush(r->pipe);
	return 0;
}

static void record_usage(FILE *f)
{
	fputs("usage: nfscope record [-r FILE | -i IFACE] [-f FILTER] "
	      "[-s SNAPLEN] [-c COUNT] [-B KIB] [-p]\n"
	      "                      -w OUT.db [--ops all|slow:MS|none] "
	      "[--interval SECONDS]\n"
	      "                      [--retain DURATION] [--batch ROWS] "
	      "[--force] [--quiet]\n", f);
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
	src = ui_open_source(&so);
	if (!src)
		return 1;
	if (store_open(out, STORE_WRITE | (force ? STORE_REPLACE : 0), &r.st,
		       r.err) < 0) {
		fprintf(stderr, "nfscope record: %s\n", r.err);
		cap_close(src);
		return 1;
	}
	snprintf(r.run.source, sizeof(r.run.source), "%s",
		 so.file ? so.file : so.iface);
	snprintf(r.run.filter, sizeof(r.run.filter), "%s",
		 so.cfg.filter ? so.cfg.filter : "");
	r.run.live = so.iface != NULL;
	r.run.snaplen = so.iface ? cap_source_snaplen(src) : 0;
	r.dec = dec_new(NULL);
	r.msg = malloc(sizeof(*r.msg));
	so.cfg.probe = dec_probe_start;
	so.cfg.resync_probe = dec_probe_resync;
	so.cfg.probe_user = r.dec;
	r.eng = an_new(NULL, on_op, &r);
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
	ui_install_signals();
	if (rec_loop(&r, src, so.iface != NULL) < 0 && !r.failed)
		goto out;
	if (!r.failed) {
		an_flush(r.eng);
		fill_counters(&r);
		cap_source_stats(src, &r.run.cs);
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
