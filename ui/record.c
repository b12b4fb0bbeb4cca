/* record.c - `nfscope record` and `nfscope serve`; see record.h and
 * doc/store.md. */
#include "ui/record.h"
#include "analyze/opq.h"
#include "ui/cli.h"
#include "ui/metrics.h"
#include "ui/recorder.h"

#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct rec {
	struct ui_rec rec;		/* the store side (recorder.h) */
	struct dec *dec;
	struct dec_msg *msg;		/* reused for every message (large) */
	struct an_engine *eng;
	struct an_figs *figs;
	struct an_find *find;
	struct an_opq *q;		/* ops to figs and find (opq.h) */
	const char *out;		/* -w (serve: NULL = store nothing) */
	struct ui_mx *mx;		/* --metrics (NULL: none) */
};

/* A store failure ends the capture; the message is printed at the end. */
static void check_failed(struct rec *r)
{
	if (r->rec.failed)
		ui_stop = 1;
}

/* On the consumer thread (opq.h). */
static void on_op_sums(void *user, const struct an_op *op)
{
	struct rec *r = user;

	an_figs_add(r->figs, op);
	an_find_add(r->find, op);
	if (r->mx) {
		ui_mx_op(r->mx, op);
		ui_mx_findings(r->mx, r->find);
	}
}

/* Capture health for the metrics (capture thread). */
static void mx_health(struct rec *r, bool done)
{
	struct cap_stats cs;

	if (r->mx == NULL)
		return;
	cs = *cap_pipe_stats(r->rec.pipe);
	cap_source_stats(r->rec.src, &cs);
	ui_mx_health(r->mx, &cs, dec_get_stats(r->dec), an_get_stats(r->eng),
		     done);
}

/* The store's row is queued here, on the capture thread: it reads the
 * engine's names. */
static void on_op(void *user, const struct an_op *op)
{
	struct rec *r = user;

	an_opq_push(r->q, op);
	if (r->out == NULL)
		return;
	ui_rec_op(&r->rec, op);
	check_failed(r);
}

/* One message the decoder is done with (rpc: *r->msg filled). */
static void store_msg(struct rec *r, const struct cap_msg *m, bool rpc)
{
	if (r->out) {
		ui_rec_msg(&r->rec, m, rpc ? r->msg : NULL);
		check_failed(r);
	}
	if (rpc)
		an_feed(r->eng, m, r->msg);
}

/* Replies the decoder held until their call came (or gave up on). */
static void store_held(struct rec *r)
{
	const struct cap_msg *m;
	bool rpc;

	while ((m = dec_next(r->dec, r->msg, &rpc)) != NULL)
		store_msg(r, m, rpc);
}

static void on_msg(void *user, const struct cap_msg *m)
{
	struct rec *r = user;
	bool rpc = dec_message(r->dec, m, r->msg);

	if (!dec_held(r->dec))
		store_msg(r, m, rpc);
	store_held(r);
}

/* Live, every second: age out unanswered calls, commit the batch. */
static void on_tick(void *user, int64_t now_ns)
{
	struct rec *r = user;

	dec_tick(r->dec, now_ns);
	store_held(r);
	an_tick(r->eng, now_ns);
	mx_health(r, false);
	if (r->out == NULL)
		return;
	ui_rec_commit(&r->rec);
	check_failed(r);
}

/* Live: the capture lost packets; stored with the next batch (table
 * drops) so every reader knows that span is incomplete. */
static void on_drops(void *user, const struct cap_drop_span *sp)
{
	struct rec *r = user;

	if (r->out)
		ui_rec_drops(&r->rec, sp);
}

static void record_usage(FILE *f, bool serve)
{
	if (serve)
		fputs("usage: nfscope serve [-r FILE | -i IFACE] [-f FILTER] "
		      "[-s SNAPLEN] [-c COUNT] [-B KIB] [-p] [-Z USER]\n"
		      "                     [--duration S] [budgets] "
		      "--metrics ADDR:PORT\n"
		      "                     [-w OUT.db and record's options] "
		      "[EXPRESSION]\n"
		      "Serves GET /metrics (Prometheus text format 0.0.4) on "
		      "ADDR:PORT only; after the\nend of the input it serves "
		      "the final figures until SIGINT/SIGTERM.\n", f);
	else
		fputs("usage: nfscope record [-r FILE | -i IFACE] [-f FILTER] "
		      "[-s SNAPLEN] [-c COUNT] [-B KIB] [-p] [-Z USER]\n"
		      "                      [--duration S] [budgets] "
		      "[--metrics ADDR:PORT]\n", f);
	fputs("                      -w OUT.db [--ops all|slow:MS|none] "
	      "[--interval SECONDS]\n"
	      "                      [--retain DURATION] [--batch ROWS] "
	      "[--force] [--quiet] [EXPRESSION]\n"
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

/* Wait for SIGINT/SIGTERM, serving the final figures. */
static void serve_linger(void)
{
	struct timespec ts = { 0, 100000000 };

	while (!ui_stop) {
		nanosleep(&ts, NULL);
		ui_check_hup("serve");
	}
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
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ui_src_opts so;
	struct rec r;
	struct cap_source *src = NULL;
	const char *out = NULL, *metrics = NULL;
	const char *who = serve ? "serve" : "record";
	char err[256];
	bool force = false;
	const char *state;
	double secs;
	char *end;
	uint64_t v;
	int opt, rc;

	memset(&r, 0, sizeof(r));
	r.rec.run.interval_ns = 10000000000LL;
	r.rec.batch_rows = 65536;
	r.rec.who = who;
	ui_src_opts_init(&so);
	optind = 1;
	while ((opt = getopt_long(argc, argv, UI_SRC_OPTSTRING "w:qh", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'w':
			out = optarg;
			continue;
		case 'M':
			metrics = optarg;
			continue;
		case 'O':
			if (parse_ops(optarg, &r.rec.run) < 0) {
				fprintf(stderr, "nfscope %s: bad --ops '%s' "
					"(all, slow:MS or none)\n", who, optarg);
				return 2;
			}
			continue;
		case 'I':
			secs = strtod(optarg, &end);
			if (*end || !(secs >= 0.001 && secs <= 86400)) {
				fprintf(stderr, "nfscope %s: bad --interval "
					"'%s' (0.001..86400 s)\n", who, optarg);
				return 2;
			}
			r.rec.run.interval_ns = (int64_t)llround(secs * 1e9);
			continue;
		case 'R':
			if (an_duration_parse(optarg, &r.rec.run.retain_ns) < 0) {
				fprintf(stderr, "nfscope %s: bad --retain '%s' "
					"(e.g. 3600, 90m, 12h, 7d)\n", who, optarg);
				return 2;
			}
			continue;
		case 'N':
			if (!ui_parse_u64(optarg, &v) || v == 0 || v > 100000000) {
				fprintf(stderr, "nfscope %s: bad --batch "
					"'%s'\n", who, optarg);
				return 2;
			}
			r.rec.batch_rows = v;
			continue;
		case 'F':
			force = true;
			continue;
		case 'q':
			r.rec.quiet = true;
			continue;
		case 'h':
			record_usage(stdout, serve);
			return 0;
		default:
			break;
		}
		rc = ui_src_opt(&so, opt, optarg);
		if (rc == 1)
			continue;
		return rc == 0 ? ui_usage_error(who, NULL) : 2;
	}
	if (ui_src_args(&so, who, argc, argv, optind) < 0)
		return 2;
	if (out == NULL && !serve)
		return ui_usage_error(who, "no output: give -w OUT.db");
	if (metrics == NULL && serve)
		return ui_usage_error(who, "no endpoint: give --metrics "
				      "ADDR:PORT");
	r.out = out;
	/*
	 * The capture device first (it needs root), then -Z, then the
	 * database, as tcpdump does with -w: the file and its -wal/-shm then
	 * belong to the user who can later open, checkpoint and delete them,
	 * and root never writes where that user could point it.
	 */
	r.rec.tmode = so.time_mode;
	ui_install_signals();	/* before the capture opens (see dump.c) */
	src = ui_open_source(&so);
	if (!src)
		return 1;
	/* the endpoint before -Z too: a port below 1024 needs root */
	if (metrics && ((r.mx = ui_mx_new()) == NULL ||
			ui_mx_listen(r.mx, metrics, err, sizeof(err)) < 0)) {
		fprintf(stderr, "nfscope %s: --metrics: %s\n", who,
			r.mx ? err : "out of memory");
		ui_mx_free(r.mx);
		cap_close(src);
		return 1;
	}
	if (metrics && !r.rec.quiet)
		fprintf(stderr, "nfscope %s: metrics on http://%s/metrics\n",
			who, metrics);
	if (ui_after_open(&so) < 0) {
		ui_mx_free(r.mx);
		cap_close(src);
		return 1;
	}
	/* its thread after the drop: capabilities are per thread */
	if (r.mx && ui_mx_start(r.mx, err, sizeof(err)) < 0) {
		fprintf(stderr, "nfscope %s: --metrics: %s\n", who, err);
		ui_mx_free(r.mx);
		cap_close(src);
		return 1;
	}
	so.dec.no_attrs = true;		/* the store keeps no attribute values */
	r.dec = dec_new(&so.dec);
	r.msg = malloc(sizeof(*r.msg));
	so.cfg.probe = dec_probe_start;
	so.cfg.resync_probe = dec_probe_resync;
	so.cfg.probe_user = r.dec;
	r.eng = an_new(&so.an, on_op, &r);
	r.figs = an_figs_new(NULL);
	r.find = an_find_new(NULL);
	/* figures and findings on a thread of their own, unless every op is
	   stored and there are only two CPUs: the insert thread is then busy
	   too, and three busy threads on two CPUs took longer than two
	   (metadata bench: 7.3 s against 6.2 s) */
	if (r.figs && r.find)
		r.q = an_opq_new(0, r.rec.run.ops_mode == STORE_OPS_ALL ? 3 : 2,
				 on_op_sums, &r);
	rc = 1;
	if (r.dec && r.msg && r.eng && r.q)
		r.rec.pipe = cap_pipe_new(&so.cfg, on_msg, &r);
	if (r.rec.pipe == NULL) {
		fprintf(stderr, "nfscope: out of memory\n");
		goto out;
	}
	r.rec.src = src;
	r.rec.dec = r.dec;
	r.rec.eng = r.eng;
	if (out && ui_rec_begin(&r.rec, out, force, &so, src) < 0)
		goto out;
	{
		struct ui_run_hooks h = { .user = &r, .who = who,
			.tick = on_tick, .drops = on_drops };

		rc = ui_run(src, r.rec.pipe, &h);
		if (rc < 0 && !r.rec.failed) {
			rc = 1;
			goto out;
		}
	}
	dec_flush(r.dec);
	store_held(&r);
	/* cut: every packet before the damage is stored, and the run says
	   where and why reading stopped */
	state = rc == 1 && ui_rec_cut(&r.rec) ? "cut" :
		ui_stop ? "interrupted" : "complete";
	rc = 1;
	if (!r.rec.failed)
		an_flush(r.eng);
	an_opq_drain(r.q);
	if (!r.rec.failed) {
		an_find_handshakes(r.find,
				   cap_pipe_handshakes(r.rec.pipe, NULL),
				   CAP_HANDSHAKE_PAIRS);
		an_find_finish(r.find, r.figs,
			       cap_pipe_stats(r.rec.pipe)->ipfrag_incomplete);
	}
	if (r.mx) {
		ui_mx_findings(r.mx, r.find);
		mx_health(&r, true);
	}
	if (out && ui_rec_end(&r.rec, r.figs, r.find, state) < 0) {
		fprintf(stderr, "nfscope %s: %s: %s\n", who, out, r.rec.err);
		goto out;
	}
	if (serve && !r.rec.quiet)
		fprintf(stderr, "nfscope serve: input %s: %" PRIu64 " packets, "
			"%" PRIu64 " operations; serving the final figures "
			"until SIGINT or SIGTERM\n", state,
			cap_pipe_stats(r.rec.pipe)->packets,
			an_get_stats(r.eng)->ops);
	if (serve)
		serve_linger();
	if (out && !r.rec.quiet)
		fprintf(stderr, "nfscope %s: run %" PRId64 " %s: %" PRIu64
			" packets, %" PRIu64 " operations, %" PRIu64 " stored "
			"in %s (insert thread %.3f s CPU)\n", who, r.rec.run.id,
			r.rec.run.state, r.rec.run.cs.packets,
			r.rec.run.es.ops, store_get_counts(r.rec.st)->ops, out,
			store_get_counts(r.rec.st)->writer_ns / 1e9);
	rc = strcmp(state, "cut") == 0 ? UI_EXIT_CUT : 0;
out:
	ui_rec_close(&r.rec);
	ui_mx_free(r.mx);
	cap_pipe_free(r.rec.pipe);
	an_opq_free(r.q);
	an_find_free(r.find);
	an_figs_free(r.figs);
	an_free(r.eng);
	free(r.msg);
	dec_free(r.dec);
	cap_close(src);
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
