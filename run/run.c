/* run.c - one run: the pipeline from one configuration, the read loop,
 * ticks, drop samples and the end; see run.h. */
#include "run/run.h"
#include "analyze/feedq.h"
#include "analyze/opq.h"
#include "run/recorder.h"

#include <assert.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct run {
	struct run_config cfg;		/* a copy; its strings the caller's */
	struct run_hooks h;
	struct cap_source *src;		/* NULL: ops_only */
	bool src_borrowed;		/* the caller closes it */
	struct dec *dec;
	struct dec_msg *msg;		/* reused for every message (large) */
	struct an_engine *eng;		/* analyze only */
	struct an_feedq *fq;		/* messages to the engine */
	struct an_opq *q;		/* ops to the op hook, when the engine
					   runs on the capture thread */
	struct cap_pipe *pipe;
	struct run_rec rec;		/* the store side (recorder.h) */
	bool recording;
	int64_t first_ns, last_ns;	/* capture times of every message */
	uint64_t rpc_msgs;
	struct cap_stats cs;		/* at the end */
	struct cap_read_error cut;
	const char *state;
	bool ended;			/* the end hook was called */
};

int run_open(struct run **out, const struct run_config *c)
{
	struct run *r = calloc(1, sizeof(*r));

	*out = NULL;
	/* before the capture opens: a signal from then on ends the run
	 * cleanly (or, SIGHUP, is ignored) instead of killing it */
	run_install_signals();
	if (r == NULL) {
		fprintf(stderr, "nfscope: out of memory\n");
		return -1;
	}
	r->cfg = *c;
	r->state = "complete";
	if (!c->ops_only && (r->src = run_open_source(&r->cfg)) == NULL) {
		free(r);
		return -1;
	}
	*out = r;
	return 0;
}

int run_open_borrowed(struct run **out, const struct run_config *c,
		      struct cap_source *src)
{
	struct run *r = calloc(1, sizeof(*r));

	*out = r;
	if (r == NULL)
		return -1;
	r->cfg = *c;
	r->state = "complete";
	r->src = src;
	r->src_borrowed = true;
	return 0;
}

uint64_t run_packet_count(const struct run *r)
{
	return cap_pipe_stats(r->pipe)->packets;
}

int64_t run_last_ns(const struct run *r)
{
	return r->last_ns;
}

int run_after_open(struct run *r)
{
	return run_drop_privileges(r->cfg.user);
}

struct cap_source *run_source(const struct run *r)
{
	return r->src;
}

void run_counters(const struct run *r, struct cap_stats *cs,
		  const struct dec_stats **ds, const struct an_stats **es)
{
	*cs = *cap_pipe_stats(r->pipe);
	cap_source_stats(r->src, cs);
	*ds = dec_get_stats(r->dec);
	*es = r->eng ? an_get_stats(r->eng) : NULL;
}

const char *run_state(const struct run *r)
{
	return r->state;
}

int64_t run_first_ns(const struct run *r)
{
	return r->first_ns;
}

const struct store_run *run_stored(const struct run *r)
{
	return r->recording ? &r->rec.run : NULL;
}

const struct store_counts *run_store_counts(const struct run *r)
{
	return r->recording ? store_get_counts(r->rec.st) : NULL;
}

bool run_store_failed(const struct run *r)
{
	return r->recording && r->rec.failed;
}

const char *run_store_error(const struct run *r)
{
	return run_store_failed(r) ? r->rec.err : NULL;
}

/* A store failure ends the capture; the message is printed at the end. */
static void check_failed(struct run *r)
{
	if (r->rec.failed)
		run_stop = 1;
}

/* ---------------------------------------------------------- messages -- */

/* One message the decoder is done with (rpc: *r->msg filled). */
static void deliver(struct run *r, const struct cap_msg *m, bool rpc)
{
	const struct dec_msg *d = rpc ? r->msg : NULL;

	if (r->recording) {
		run_rec_msg(&r->rec, m, d);
		check_failed(r);
	}
	if (rpc)
		r->rpc_msgs++;
	if (r->h.msg)
		r->h.msg(r->h.user, m, d);
	if (rpc && r->fq)
		an_feedq_feed(r->fq, m, r->msg);
}

/* Replies the decoder held until their call came (or gave up on). */
static void deliver_held(struct run *r)
{
	const struct cap_msg *m;
	bool rpc;

	while ((m = dec_next(r->dec, r->msg, &rpc)) != NULL)
		deliver(r, m, rpc);
}

/* A span of hidden replies open at its flow's end (cap_config). */
static void on_hidden_end(void *user, const struct cap_addr *src,
			  const struct cap_addr *dst, int64_t until_ns)
{
	struct run *r = user;

	if (r->fq)
		an_feedq_hidden(r->fq, src, dst, until_ns);
}

static void on_msg(void *user, const struct cap_msg *m)
{
	struct run *r = user;
	bool rpc;

	if (r->first_ns == 0 || m->ts_ns < r->first_ns)
		r->first_ns = m->ts_ns;
	if (m->ts_ns > r->last_ns)
		r->last_ns = m->ts_ns;
	rpc = dec_message(r->dec, m, r->msg);
	if (!dec_held(r->dec))
		deliver(r, m, rpc);
	deliver_held(r);
}

/* The engine's ops on the capture thread: keep, the store's row (it reads
 * the engine's names), then the queue to the op hook. */
static void eng_op(void *user, const struct an_op *op)
{
	struct run *r = user;

	if (r->h.keep && !r->h.keep(r->h.user, op))
		return;
	if (r->q)
		an_opq_push(r->q, op);
	else
		r->h.op(r->h.user, op);	/* ops_sync */
	if (!r->recording)
		return;
	run_rec_op(&r->rec, op);
	check_failed(r);
}

void run_put_op(void *run, const struct an_op *op)
{
	eng_op(run, op);
}

static void no_op(void *user, const struct an_op *op)
{
	(void)user;
	(void)op;
}

/* Live, about once a second (wall clock): held replies and unanswered
 * calls age out, the store commits its batch. */
static void tick(struct run *r, int64_t now_ns)
{
	dec_tick(r->dec, now_ns);
	deliver_held(r);
	if (r->fq)
		an_feedq_tick(r->fq, now_ns);
	if (r->recording) {
		run_rec_commit(&r->rec);
		check_failed(r);
	}
	if (r->h.tick)
		r->h.tick(r->h.user, now_ns);
}

static void sample_drops(struct run *r)
{
	struct cap_drop_span sp;

	if (!cap_source_drops(r->src, &sp))
		return;
	if (r->recording)
		(void)run_rec_drops(&r->rec, &sp);
	if (r->h.drops)
		r->h.drops(r->h.user, &sp);
}

/* ---------------------------------------------------------- pipeline -- */

/*
 * The engine runs on the second thread (feedq) unless ops pass a filter
 * (keep) or the store on the capture thread: then it runs there and its
 * ops go to the op hook through a queue (opq), on a thread of its own
 * even when every op is stored and the insert thread is busy too: three
 * threads on two CPUs, measured as pairs against the op hook on the
 * capture thread (record --ops all, 2026-12-05): lab mix 8 of 8 faster,
 * median 0.92x; metadata mix 3 of 4 faster (11.0 s against 13.2 s).
 */
static int build(struct run *r)
{
	struct cap_config cc = r->cfg.cap;
	bool on_capture = r->h.keep || r->cfg.store_path || r->cfg.ops_only ||
			  r->cfg.ops_sync;
	an_op_fn op = r->h.op ? r->h.op : no_op;

	r->h.op = op;
	if (r->cfg.analyze && on_capture && !r->cfg.ops_sync)
		r->q = an_opq_new(0, 2, op, r->h.user);
	if (r->cfg.ops_only)
		return r->q ? 0 : -1;
	r->dec = dec_new(&r->cfg.dec);
	r->msg = malloc(sizeof(*r->msg));
	if (r->cfg.analyze) {
		r->eng = on_capture ? an_new(&r->cfg.an, eng_op, r) :
			 an_new(&r->cfg.an, op, r->h.user);
		if (r->eng)
			r->fq = an_feedq_new(r->eng, on_capture ? 0 : 2);
		if (!r->fq || (on_capture && !r->cfg.ops_sync && !r->q))
			return -1;
	}
	if (!r->dec || !r->msg)
		return -1;
	cc.probe = dec_probe_start;
	cc.resync_probe = dec_probe_resync;
	cc.probe_user = r->dec;
	cc.hidden_end = on_hidden_end;
	cc.hidden_end_user = r;
	r->pipe = cap_pipe_new(&cc, on_msg, r);
	return r->pipe ? 0 : -1;
}

static int begin_store(struct run *r)
{
	if (r->cfg.store_path == NULL)
		return 0;
	r->rec.run = r->cfg.store_opts;
	r->rec.batch_rows = r->cfg.batch_rows;
	r->rec.who = r->cfg.who;
	r->rec.quiet = r->cfg.store_quiet;
	r->rec.pipe = r->pipe;
	r->rec.src = r->src;
	r->rec.dec = r->dec;
	r->rec.eng = r->eng;
	r->recording = true;
	return run_rec_begin(&r->rec, r->cfg.store_path, r->cfg.store_replace,
			     &r->cfg, r->src);
}

/* -------------------------------------------------------------- loop -- */

static void progress(struct run *r, double t0, double t)
{
	uint64_t done, total, pk = cap_pipe_stats(r->pipe)->packets;

	cap_source_progress(r->src, &done, &total);
	fprintf(stderr, "\r%5.1f%%  %" PRIu64 " packets  %.0f pkt/s  %.1f s ",
		total ? 100.0 * (double)done / (double)total : 0.0, pk,
		t > t0 ? (double)pk / (t - t0) : 0.0, t - t0);
}

/*
 * Live, after a stop request or the end of --duration: the packets the
 * kernel already holds were captured before it (pcap_stats counts them
 * received), so they are read too, for at most a second.  The kernel hands
 * its ring over a block at a time, when the block is full or
 * CAP_DEFAULT_TIMEOUT_MS after it opened, so the last packets may still be
 * in an open block: the drain goes on until no packet came for twice that
 * and 50 ms more (the kernel retires a block at the second tick of its
 * timer after the block opened; the 50 ms for a late tick).
 * A stop that comes while the command is still setting up (record
 * creating its database) would otherwise lose every packet of the run.
 */
int run_drain(struct run *r, char *err)
{
	double t = run_mono_s(), end = t + 1.0;
	double quiet = (2.0 * CAP_DEFAULT_TIMEOUT_MS + 50) / 1000.0;
	double last = t;	/* when a packet last came */
	int fd = cap_source_fd(r->src), rc;

	cap_source_lift_deadline(r->src);
	for (;;) {
		uint64_t before = cap_pipe_stats(r->pipe)->packets;

		rc = cap_step(r->src, r->pipe, 4096, err);
		t = run_mono_s();
		if (rc <= 0 || t >= end)
			break;
		if (cap_pipe_stats(r->pipe)->packets != before) {
			last = t;
			continue;
		}
		if (t - last >= quiet)
			break;
		if (fd >= 0) {
			struct pollfd pfd = { .fd = fd, .events = POLLIN };

			(void)poll(&pfd, 1, (int)((quiet - (t - last)) * 1000) + 1);
		}
	}
	return rc;
}

/* Files that overlapped in time: say they were merged, and how many
 * frames two of them held (taken once). */
static void merge_notice(const struct cap_source *src, const char *who)
{
	uint32_t files;
	uint64_t dup;

	cap_source_merge_stats(src, &files, &dup);
	if (files == 0)
		return;
	fprintf(stderr, "nfscope %s: %" PRIu32 " files overlapping in time "
		"were merged by timestamp", who, files);
	if (dup)
		fprintf(stderr, "; %" PRIu64 " frame%s found in two of them "
			"(the same time and bytes) taken once", dup,
			dup == 1 ? "" : "s");
	fputc('\n', stderr);
}

/*
 * Read the source until end of file, -c, --duration or run_stop (or a
 * write to stdout failed: the output is lost anyway); live, wait in
 * poll() when idle and tick.  Returns RUN_OK, RUN_CUT or -1.
 */
static int read_loop(struct run *r)
{
	char err[CAP_ERRBUF_SIZE] = "";
	struct cap_source *src = r->src;
	bool live = cap_source_fd(src) >= 0;
	double t0 = run_mono_s(), last = t0;
	int rc = 0, fd = cap_source_fd(src);
	const char *who = r->cfg.who;
	struct cap_read_error cut;

	cap_source_set_stop(src, &run_stop);
	while (!run_stop && !ferror(stdout)) {
		uint64_t before = cap_pipe_stats(r->pipe)->packets;
		double t;

		rc = cap_step(src, r->pipe, live ? 4096 : 65536, err);
		if (rc < 0 && cap_source_read_error(src, &cut)) {
			char m[CAP_ERRBUF_SIZE + 96];

			fprintf(stderr, "nfscope %s: INPUT CUT: %s; everything "
				"before it was processed\n", who,
				run_cut_str(&cut, m, sizeof(m)));
			rc = 1;
			break;
		}
		if (rc < 0) {
			fprintf(stderr, "nfscope %s: %s\n", who, err);
			break;
		}
		if (rc == 0)
			break;
		run_check_hup(who);
		if (live && cap_pipe_stats(r->pipe)->packets == before) {
			struct pollfd pfd = { .fd = fd, .events = POLLIN };

			(void)poll(&pfd, 1, 100);
		}
		t = run_mono_s();
		if (t - last < (live ? 1.0 : 0.5))
			continue;
		last = t;
		if (!live) {
			if (r->cfg.progress)
				progress(r, t0, t);
			continue;
		}
		sample_drops(r);
		tick(r, run_wall_ns());
	}
	if (live && rc >= 0 && (run_stop || cap_source_done(src)) &&
	    (rc = run_drain(r, err)) < 0)
		fprintf(stderr, "nfscope %s: %s\n", who, err);
	if (r->cfg.progress && !live)
		fputs("\r\033[K", stderr);
	run_check_hup(who);
	cap_pipe_flush(r->pipe);
	if (live)
		sample_drops(r);
	merge_notice(src, who);
	return rc < 0 ? -1 : rc == 1 && cap_source_read_error(src, &cut);
}

/* ---------------------------------------------------------------- end -- */

static void call_end(struct run *r, struct run_end *e)
{
	assert(!r->ended);
	r->ended = true;
	e->state = r->state;
	e->rpc_msgs = r->rpc_msgs;
	e->first_ns = r->first_ns;
	e->last_ns = r->last_ns;
	e->store_failed = run_store_failed(r);
	if (r->h.end)
		r->h.end(r->h.user, e);
}

/*
 * After the loop: the decoder's held replies, the engine's pending calls
 * (as unanswered ops), the op queue drained, then the end hook and the
 * stored run's end.  An error that lost the input skips the analysis'
 * flush (nothing is reported from it) unless only messages are shown.
 */
static int finish(struct run *r, int rc)
{
	struct run_end e;
	bool failed = run_store_failed(r);
	bool flush = rc >= 0 || !r->cfg.analyze || failed;

	memset(&e, 0, sizeof(e));
	if (flush) {
		dec_flush(r->dec);
		deliver_held(r);
	}
	if (rc == RUN_CUT && cap_source_read_error(r->src, &r->cut)) {
		e.cut = &r->cut;
		if (r->recording)
			(void)run_rec_cut(&r->rec);
		r->state = "cut";
	} else if (run_stop) {
		r->state = "interrupted";
	}
	if (flush && r->fq && !failed) {
		an_feedq_flush(r->fq);	/* the engine is ours again */
		/* nothing is fed after this: the call tables' memory goes
		   back before the end hook and the report's model */
		an_trim(r->eng);
		dec_trim(r->dec);
	}
	r->cs = *cap_pipe_stats(r->pipe);
	cap_source_stats(r->src, &r->cs);
	if (flush)
		an_opq_drain(r->q);	/* the op hook's state is ours again */
	e.cs = &r->cs;
	e.ds = dec_get_stats(r->dec);
	e.es = r->eng ? an_get_stats(r->eng) : NULL;
	e.names = r->eng ? an_get_names(r->eng) : NULL;
	e.handshakes = cap_pipe_handshakes(r->pipe, NULL);
	e.error = rc < 0;
	call_end(r, &e);
	if (!r->recording || (rc < 0 && !failed))
		return rc;
	if (run_rec_end(&r->rec, r->cfg.figs, r->cfg.find, r->state) < 0) {
		fprintf(stderr, "nfscope %s: %s: %s\n", r->cfg.who,
			r->cfg.store_path, r->rec.err);
		return -1;
	}
	return rc;
}

int run_start(struct run *r, const struct run_hooks *h)
{
	r->h = *h;
	if (build(r) < 0) {
		fprintf(stderr, "nfscope: out of memory\n");
		return -1;
	}
	if (r->cfg.ops_only)
		return 0;
	if (r->src)
		cap_source_set_stop(r->src, &run_stop);
	return begin_store(r);
}

int run_go(struct run *r, const struct run_hooks *h)
{
	if (run_start(r, h) < 0)
		return -1;
	if (r->cfg.ops_only)
		return 0;
	return finish(r, read_loop(r));
}

int run_step(struct run *r, int max, char *err)
{
	return cap_step(r->src, r->pipe, max, err);
}

void run_tick(struct run *r)
{
	sample_drops(r);
	tick(r, run_wall_ns());
}

int run_end_input(struct run *r, bool flush, bool cut)
{
	bool live = cap_source_fd(r->src) >= 0;

	if (flush) {
		cap_pipe_flush(r->pipe);
		if (live)
			sample_drops(r);
		return finish(r, cut ? RUN_CUT : RUN_OK);
	}
	if (live)
		sample_drops(r);
	r->state = "interrupted";
	if (r->recording && run_rec_end(&r->rec, r->cfg.figs, r->cfg.find,
					r->state) < 0)
		return -1;
	return 0;
}

void run_finish(struct run *r)
{
	struct run_end e;

	memset(&e, 0, sizeof(e));
	an_opq_drain(r->q);
	call_end(r, &e);
}

void run_free(struct run *r)
{
	if (r == NULL)
		return;
	if (r->recording)
		run_rec_close(&r->rec);
	cap_pipe_free(r->pipe);
	an_feedq_free(r->fq);
	an_opq_free(r->q);
	an_free(r->eng);
	free(r->msg);
	dec_free(r->dec);
	if (!r->src_borrowed)
		cap_close(r->src);
	free(r);
}
