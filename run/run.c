/* run.c - one run: the pipeline from one configuration, the read loop,
 * ticks, drop samples and the end; see run.h. */
#include "run/run.h"
#include "analyze/feedq.h"
#include "analyze/opq.h"
#include "run/recorder.h"

#include <assert.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
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
	/* record: the store's work on the engine's thread (see build) */
	bool rec_async, es_mu_init;
	_Atomic bool async_failed;	/* rec.failed, for this thread */
	pthread_mutex_t es_mu;		/* es_snap: the engine's counters at */
	struct an_stats es_snap;	/* the last batch end (run_counters) */
	struct an_stats es_out;
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

int64_t run_held_since(const struct run *r)
{
	return r->dec ? dec_held_oldest_ns(r->dec) : 0;
}

int run_after_open(struct run *r)
{
	return run_drop_privileges(r->cfg.user);
}

struct cap_source *run_source(const struct run *r)
{
	return r->src;
}

void run_counters(struct run *r, struct cap_stats *cs,
		  const struct dec_stats **ds, const struct an_stats **es)
{
	*cs = *cap_pipe_stats(r->pipe);
	cap_source_stats(r->src, cs);
	*ds = dec_get_stats(r->dec);
	*es = r->eng ? an_get_stats(r->eng) : NULL;
	if (r->rec_async) {	/* the engine is the other thread's */
		pthread_mutex_lock(&r->es_mu);
		r->es_out = r->es_snap;
		pthread_mutex_unlock(&r->es_mu);
		*es = &r->es_out;
	}
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
	if (r->rec_async)
		return atomic_load(&r->async_failed);
	return r->recording && r->rec.failed;
}

const char *run_store_error(const struct run *r)
{
	return run_store_failed(r) ? r->rec.err : NULL;
}

/* A store failure ends the capture; the message is printed at the end.
 * Async, on the engine's thread: said to the capture thread, which stops
 * (async_check). */
static void check_failed(struct run *r)
{
	if (!r->rec.failed)
		return;
	if (r->rec_async)
		atomic_store(&r->async_failed, true);
	else
		run_stop = 1;
}

static void async_check(struct run *r)
{
	if (atomic_load_explicit(&r->async_failed, memory_order_relaxed))
		run_stop = 1;
}

/* ------------------------------------------------------ async record -- */

/*
 * record: the store's work goes to the engine's thread as side records
 * (feedq.h), in message order: each message's flow, the batch ends of the
 * capture-time clock (kept here, so each carries the capture thread's
 * counters as they stood), live ticks' batch ends and drop spans.
 */
enum { SIDE_MSG = 1, SIDE_BATCH, SIDE_TICK, SIDE_DROPS };

struct side_msg {
	uint8_t kind;
	bool rpc, call, reply;
	struct cap_msg m;		/* data NULL */
};

struct side_batch {
	uint8_t kind;			/* SIDE_BATCH (at ts_ns), SIDE_TICK */
	int64_t ts_ns;
	struct cap_stats cs;
	struct dec_stats ds;
};

struct side_drops {
	uint8_t kind;
	struct cap_drop_span sp;
};

static void side_batch(struct run *r, uint8_t kind, int64_t ts_ns)
{
	struct side_batch b;

	memset(&b, 0, sizeof(b));
	b.kind = kind;
	b.ts_ns = ts_ns;
	run_rec_capture(&r->rec, &b.cs, &b.ds);
	an_feedq_side(r->fq, &b, sizeof(b));
}

static void side_msg(struct run *r, const struct cap_msg *m,
		     const struct dec_msg *d)
{
	struct side_msg x;

	/* the commit clock stays here (the engine's thread does not use
	   rec.next_commit_ns when async) */
	if (run_rec_due(&r->rec.next_commit_ns, r->rec.run.interval_ns,
			m->ts_ns))
		side_batch(r, SIDE_BATCH, m->ts_ns);
	x.kind = SIDE_MSG;
	x.rpc = d != NULL;
	x.call = d && d->rpc.msg_type == RPC_CALL;
	x.reply = d && d->rpc.msg_type == RPC_REPLY;
	x.m = *m;
	x.m.data = NULL;
	an_feedq_side(r->fq, &x, sizeof(x));
	async_check(r);
}

/* On the engine's thread. */
static void on_side(void *user, const void *rec, size_t len)
{
	struct run *r = user;
	const uint8_t *kind = rec;

	(void)len;
	switch (*kind) {
	case SIDE_MSG: {
		const struct side_msg *x = rec;

		run_rec_times(&r->rec, x->m.ts_ns);
		run_rec_put(&r->rec, &x->m, x->rpc, x->call, x->reply);
		break;
	}
	case SIDE_BATCH:
	case SIDE_TICK: {
		const struct side_batch *b = rec;

		run_rec_snap(&r->rec, &b->cs, &b->ds);
		if (*kind == SIDE_BATCH) {
			run_rec_times(&r->rec, b->ts_ns);
			run_rec_commit_at(&r->rec, b->ts_ns);
		} else {
			run_rec_commit(&r->rec);
		}
		pthread_mutex_lock(&r->es_mu);
		r->es_snap = *an_get_stats(r->eng);
		pthread_mutex_unlock(&r->es_mu);
		break;
	}
	case SIDE_DROPS: {
		const struct side_drops *x = rec;

		(void)run_rec_drops(&r->rec, &x->sp);
		break;
	}
	default:
		break;
	}
	check_failed(r);
}

/* ---------------------------------------------------------- messages -- */

/* One message the decoder is done with (rpc: *r->msg filled). */
static void deliver(struct run *r, const struct cap_msg *m, bool rpc)
{
	const struct dec_msg *d = rpc ? r->msg : NULL;

	if (r->rec_async) {
		side_msg(r, m, d);
	} else if (r->recording) {
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
		run_sinks_op(&r->h.sinks, op);	/* ops_sync */
	if (!r->recording)
		return;
	run_rec_op(&r->rec, op);
	check_failed(r);
}

void run_put_op(void *run, const struct an_op *op)
{
	eng_op(run, op);
}

/* The sinks' side of the engine or the op queue (an_op_fn). */
static void to_sinks(void *user, const struct an_op *op)
{
	struct run *r = user;

	run_sinks_op(&r->h.sinks, op);
}

/* The counters into the sinks that want them (capture thread). */
static void sinks_health(struct run *r)
{
	struct cap_stats cs;
	const struct dec_stats *ds;
	const struct an_stats *es;

	if (!run_sinks_want_health(&r->h.sinks))
		return;
	run_counters(r, &cs, &ds, &es);
	run_sinks_health(&r->h.sinks, &cs, ds, es);
}

/* Live, about once a second (wall clock): held replies and unanswered
 * calls age out, the store commits its batch. */
static void tick(struct run *r, int64_t now_ns)
{
	dec_tick(r->dec, now_ns);
	deliver_held(r);
	if (r->fq)
		an_feedq_tick(r->fq, now_ns);
	if (r->rec_async) {
		side_batch(r, SIDE_TICK, 0);
		an_feedq_kick(r->fq);	/* committed now, not with more */
		async_check(r);
	} else if (r->recording) {
		run_rec_commit(&r->rec);
		check_failed(r);
	}
	sinks_health(r);
	if (r->h.tick)
		r->h.tick(r->h.user, now_ns);
}

static void sample_drops(struct run *r)
{
	struct cap_drop_span sp;

	if (!cap_source_drops(r->src, &sp))
		return;
	if (r->rec_async) {
		struct side_drops x;

		memset(&x, 0, sizeof(x));
		x.kind = SIDE_DROPS;
		x.sp = sp;
		an_feedq_side(r->fq, &x, sizeof(x));
	} else if (r->recording) {
		(void)run_rec_drops(&r->rec, &sp);
	}
	if (r->h.drops)
		r->h.drops(r->h.user, &sp);
}

/* ---------------------------------------------------------- pipeline -- */

static int build_pipe(struct run *r)
{
	struct cap_config cc = r->cfg.cap;

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

/*
 * record (the store, every op to the op hook): the engine and the store's
 * per-message and per-op work on the engine's thread (side records, see
 * above), the op hook on a third; the capture thread only reads and
 * decodes.  Without a thread for the engine (one CPU, NFSCOPE_THREADS=1)
 * as build's store path below.
 */
static int build_async(struct run *r)
{
	r->q = an_opq_new(0, 2, to_sinks, r);
	r->dec = dec_new(&r->cfg.dec);
	r->msg = malloc(sizeof(*r->msg));
	r->eng = an_new(&r->cfg.an, eng_op, r);
	if (!r->q || !r->eng ||
	    !(r->fq = an_feedq_new(r->eng, 2)))
		return -1;
	if (an_feedq_threaded(r->fq)) {
		r->rec_async = r->es_mu_init = true;
		pthread_mutex_init(&r->es_mu, NULL);
		an_feedq_set_side(r->fq, on_side, r);
	}
	return build_pipe(r);
}

/*
 * The engine runs on the second thread (feedq) unless ops pass a filter
 * (keep), a database's ops are fed (ops_only) or the caller wants them
 * under its lock (ops_sync: top): then it runs on the capture thread and
 * its ops go to the op hook through a queue (opq), on a thread of its
 * own.  record (build_async) keeps it on the second thread with the
 * store's work, the op hook on a third: three threads on two CPUs, each
 * step measured as pairs (record --ops all, 2026-12-05): the op hook off
 * the capture thread, lab mix 8 of 8 faster, median 0.92x; then the
 * engine and the store's work off it, lab mix 0.69 s against 0.77 s
 * (median of 8; report 0.57 s), the -s 256 twin and the metadata mix
 * unchanged (the insert thread and the total CPU bound them).
 */
static int build(struct run *r)
{
	bool on_capture = r->h.keep || r->cfg.store_path || r->cfg.ops_only ||
			  r->cfg.ops_sync;

	if (r->cfg.analyze && r->cfg.store_path && !r->h.keep &&
	    !r->cfg.ops_only && !r->cfg.ops_sync)
		return build_async(r);
	if (r->cfg.analyze && on_capture && !r->cfg.ops_sync)
		r->q = an_opq_new(0, 2, to_sinks, r);
	if (r->cfg.ops_only)
		return r->q || r->cfg.ops_sync ? 0 : -1;
	r->dec = dec_new(&r->cfg.dec);
	r->msg = malloc(sizeof(*r->msg));
	if (r->cfg.analyze) {
		r->eng = on_capture ? an_new(&r->cfg.an, eng_op, r) :
			 an_new(&r->cfg.an, to_sinks, r);
		if (r->eng)
			r->fq = an_feedq_new(r->eng, on_capture ? 0 : 2);
		if (!r->fq || (on_capture && !r->cfg.ops_sync && !r->q))
			return -1;
	}
	return build_pipe(r);
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
	r->rec.async = r->rec_async;
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
static int run_drain(struct run *r, char *err)
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

static bool stopping(struct run *r)
{
	return run_stop || (r->h.stop && r->h.stop(r->h.user));
}

static void lock(struct run *r, bool on)
{
	if (r->h.lock)
		r->h.lock(r->h.user, on);
}

/* The input was cut (cut) or failed (err): on stderr, or the caller's
 * screen (input_end). */
static void said(struct run *r, const struct cap_read_error *cut,
		 const char *err)
{
	char m[CAP_ERRBUF_SIZE + 96];

	if (r->h.input_end)
		r->h.input_end(r->h.user, cut, err);
	else if (cut)
		fprintf(stderr, "nfscope %s: INPUT CUT: %s; everything before "
			"it was processed\n", r->cfg.who,
			run_cut_str(cut, m, sizeof(m)));
	else
		fprintf(stderr, "nfscope %s: %s\n", r->cfg.who, err);
}

/* After a step, under the lock: the publication, then live each second
 * the drop sample and the tick, offline each half second the progress. */
static void after_step(struct run *r, bool live, double t0, double *last)
{
	double t;

	if (r->h.publish &&
	    r->h.publish(r->h.user, live ? run_wall_ns() : r->last_ns))
		sinks_health(r);
	t = run_mono_s();
	if (t - *last < (live ? 1.0 : 0.5))
		return;
	*last = t;
	if (!live) {
		if (r->cfg.progress)
			progress(r, t0, t);
		return;
	}
	sample_drops(r);
	tick(r, run_wall_ns());
}

/*
 * Read the source until end of file, -c, --duration, run_stop or the stop
 * hook (*quit: the caller's stop) (or a write to stdout failed: the output
 * is lost anyway); live, wait in poll() when idle and tick.  Returns
 * cap_step's last answer: 0 the end, 1 stopped (or cut: the read error
 * says), -1 an error.
 */
static int read_loop(struct run *r, bool *quit)
{
	char err[CAP_ERRBUF_SIZE] = "";
	struct cap_source *src = r->src;
	int fd = cap_source_fd(src), rc = 0;
	bool live = fd >= 0;
	double t0 = run_mono_s(), last = t0;
	struct cap_read_error cut;

	cap_source_set_stop(src, &run_stop);
	*quit = false;
	while (!(*quit = stopping(r)) && !ferror(stdout)) {
		uint64_t before = cap_pipe_stats(r->pipe)->packets;
		int max = r->h.pace ? r->h.pace(r->h.user) : 0;

		lock(r, true);
		rc = cap_step(src, r->pipe, max > 0 ? max : live ? 4096 : 65536,
			      err);
		if (rc >= 0)
			after_step(r, live, t0, &last);
		else if (cap_source_read_error(src, &cut))
			said(r, &cut, NULL);
		else
			said(r, NULL, err);
		lock(r, false);
		if (rc < 0) {
			rc = cap_source_read_error(src, &cut) ? 1 : -1;
			break;
		}
		if (rc == 0)
			break;
		if (!r->h.input_end)
			run_check_hup(r->cfg.who);
		if (live && cap_pipe_stats(r->pipe)->packets == before) {
			struct pollfd pfd = { .fd = fd, .events = POLLIN };

			(void)poll(&pfd, 1, 100);
		}
	}
	*quit = *quit && r->h.stop;	/* run_stop alone: flushed */
	return rc;
}

/*
 * The end of the reading, under the lock: live, what the kernel still
 * holds (read_loop stopped, or --duration/-c ended it); the pipe's
 * held records (not when the caller quit); the drop sample.  Returns
 * RUN_OK, RUN_CUT or -1.
 */
static int read_end(struct run *r, int rc, bool quit)
{
	char err[CAP_ERRBUF_SIZE] = "";
	struct cap_source *src = r->src;
	bool live = cap_source_fd(src) >= 0;
	struct cap_read_error cut;

	if (live && rc >= 0 && (run_stop || quit || cap_source_done(src)) &&
	    (rc = run_drain(r, err)) < 0)
		said(r, NULL, err);
	if (r->cfg.progress && !live)
		fputs("\r\033[K", stderr);
	if (!r->h.input_end)
		run_check_hup(r->cfg.who);
	if (!quit)
		cap_pipe_flush(r->pipe);
	if (live)
		sample_drops(r);
	if (!r->h.input_end)
		merge_notice(src, r->cfg.who);
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
	run_sinks_end(&r->h.sinks, e);
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
	bool failed, flush;

	if (r->rec_async)	/* the store's state is this thread's again */
		an_feedq_sync(r->fq);
	failed = run_store_failed(r);
	flush = rc >= 0 || !r->cfg.analyze || failed;
	memset(&e, 0, sizeof(e));
	if (flush) {
		dec_flush(r->dec);
		deliver_held(r);
	}
	if (r->rec_async) {
		/* from here on the engine's thread runs only while this one
		   waits (the flush): the store's calls are as without it */
		an_feedq_sync(r->fq);
		r->rec_async = r->rec.async = false;
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
	if (run_rec_end(&r->rec, r->h.sinks.figs, r->h.sinks.find,
			r->state) < 0) {
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

/* The caller quit (the stop hook): the stored run ends "interrupted",
 * nothing held is delivered, no end hook. */
static int end_unflushed(struct run *r)
{
	r->state = "interrupted";
	if (r->recording && run_rec_end(&r->rec, r->h.sinks.figs,
					r->h.sinks.find, r->state) < 0)
		return -1;
	return 0;
}

int run_loop(struct run *r)
{
	bool quit;
	int rc = read_loop(r, &quit);

	lock(r, true);
	rc = read_end(r, rc, quit);
	rc = quit ? end_unflushed(r) : finish(r, rc);
	lock(r, false);
	return rc;
}

int run_go(struct run *r, const struct run_hooks *h)
{
	if (run_start(r, h) < 0)
		return -1;
	if (r->cfg.ops_only)
		return 0;
	return run_loop(r);
}

void run_finish(struct run *r, const struct cap_stats *cs)
{
	struct run_end e;

	memset(&e, 0, sizeof(e));
	e.cs = cs;
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
	if (r->es_mu_init)
		pthread_mutex_destroy(&r->es_mu);
	an_free(r->eng);
	free(r->msg);
	dec_free(r->dec);
	if (!r->src_borrowed)
		cap_close(r->src);
	free(r);
}
