/*
 * top_src.c - the dashboard's worker thread: packets (live or replayed) or
 * a database's rows in, struct tm_model out; see top.h and top_src.h.
 */
#include "ui/top_src.h"
#include "ui/cli.h"
#include "ui/recorder.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ATTACH_BATCH 2048	/* ops read from the database per lock */

struct tm_worker {
	struct tm_model *m;
	struct tm_src_cfg cfg;
	pthread_t thread;
	bool started;
	atomic_int quit;		/* set by the UI thread */
	/* packets */
	struct dec *dec;
	struct dec_msg *msg;
	struct an_engine *eng;
	struct cap_pipe *pipe;
	int64_t last_ts;		/* newest message */
	/* replay pacing: capture time base_ts is due at wall time base_wall */
	double speed;
	int64_t base_ts;
	double base_wall;
	/* -w: recording, as record does */
	struct ui_rec rec;
	bool recording;
	/* attach */
	struct an_op *buf;
	uint32_t nbuf;
};

static bool stopping(const struct tm_worker *w)
{
	return atomic_load(&w->quit) || ui_stop;
}

static void fail(struct tm_worker *w, const char *what, const char *err)
{
	w->m->failed = true;
	snprintf(w->m->err, sizeof(w->m->err), "%s: %s", what, err);
}

/* ----------------------------------------------------------- store -- */

/* A failed recording shows in the header; the dashboard goes on. */
static void rec_check(struct tm_worker *w)
{
	if (w->recording && w->rec.failed && !w->m->failed)
		fail(w, "recording", w->rec.err);
}

static void rec_end(struct tm_worker *w)
{
	struct cap_drop_span sp;

	if (!w->recording)
		return;
	if (w->cfg.mode == TM_LIVE && cap_source_drops(w->cfg.src, &sp) == 1)
		ui_rec_drops(&w->rec, &sp);	/* the last sample */
	ui_rec_end(&w->rec, w->m->figs, w->m->find,
		   w->m->input_cut && ui_rec_cut(&w->rec) ? "cut" :
		   w->m->done ? "complete" : "interrupted");
	rec_check(w);
	ui_rec_close(&w->rec);
	w->recording = false;
}

/* ---------------------------------------------------------- packets -- */

static void on_op(void *user, const struct an_op *op)
{
	struct tm_worker *w = user;

	tm_model_add(w->m, op);
	if (w->recording)
		ui_rec_op(&w->rec, op);
}

/* One message the decoder is done with (rpc: *w->msg filled). */
static void take_msg(struct tm_worker *w, const struct cap_msg *m, bool rpc)
{
	if (w->recording)
		ui_rec_msg(&w->rec, m, rpc ? w->msg : NULL);
	if (rpc)
		an_feed(w->eng, m, w->msg);
}

/* Replies the decoder held until their call came (or gave up on). */
static void take_held(struct tm_worker *w)
{
	const struct cap_msg *m;
	bool rpc;

	while ((m = dec_next(w->dec, w->msg, &rpc)) != NULL)
		take_msg(w, m, rpc);
}

static void on_msg(void *user, const struct cap_msg *m)
{
	struct tm_worker *w = user;
	bool rpc;

	if (w->m->first_ns == 0 || m->ts_ns < w->m->first_ns)
		w->m->first_ns = m->ts_ns;
	if (m->ts_ns > w->last_ts)
		w->last_ts = m->ts_ns;
	rpc = dec_message(w->dec, m, w->msg);
	if (!dec_held(w->dec))
		take_msg(w, m, rpc);
	take_held(w);
}

/* A lost IP fragment train (capture's hook; the lock is held). */
static void on_frag_lost(void *user, int64_t first_ns)
{
	struct tm_worker *w = user;

	tm_model_frag_lost(w->m, first_ns);
}

/* Counters into the model; called with the lock held. */
static void publish(struct tm_worker *w, int64_t now_ns)
{
	struct cap_stats cs = *cap_pipe_stats(w->pipe);

	if (w->cfg.mode == TM_LIVE)
		cap_source_stats(w->cfg.src, &cs);
	w->m->ds = *dec_get_stats(w->dec);
	w->m->es = *an_get_stats(w->eng);
	tm_model_tick(w->m, now_ns, &cs);
	rec_check(w);
}

/* Replay: sleep until the newest message is due (at most 100 ms at a time,
 * so quitting and speed changes are prompt).  True if it slept. */
static bool pace(struct tm_worker *w)
{
	double due, now;
	int64_t ns;

	pthread_mutex_lock(&w->m->mu);
	if (w->m->speed != w->speed) {	/* re-base at the current point */
		w->speed = w->m->speed;
		w->base_ts = w->last_ts;
		w->base_wall = ui_mono_s();
	}
	pthread_mutex_unlock(&w->m->mu);
	if (w->speed <= 0 || w->last_ts == 0)
		return false;
	if (w->base_ts == 0) {
		w->base_ts = w->last_ts;
		w->base_wall = ui_mono_s();
	}
	due = w->base_wall + (double)(w->last_ts - w->base_ts) / 1e9 / w->speed;
	now = ui_mono_s();
	if (due <= now)
		return false;
	ns = (int64_t)((due - now) * 1e9);
	if (ns > 100000000)
		ns = 100000000;
	nanosleep(&(struct timespec){ .tv_sec = 0, .tv_nsec = ns }, NULL);
	return true;
}

static void run_packets(struct tm_worker *w)
{
	char err[CAP_ERRBUF_SIZE] = "";
	bool live = w->cfg.mode == TM_LIVE;
	int fd = live ? cap_source_fd(w->cfg.src) : -1;
	double last_tick = ui_mono_s();
	int rc = 1;

	cap_source_set_stop(w->cfg.src, &ui_stop);
	while (!stopping(w) && rc == 1) {
		uint64_t before;
		int batch;

		while (!live && !stopping(w) && pace(w))
			;
		batch = (!live && w->speed > 0) ? 16 : 2048;
		pthread_mutex_lock(&w->m->mu);
		before = cap_pipe_stats(w->pipe)->packets;
		rc = cap_step(w->cfg.src, w->pipe, batch, err);
		if (!live || ui_mono_s() - last_tick >= 0.25)
			publish(w, live ? ui_wall_ns() : w->last_ts);
		if (live && ui_mono_s() - last_tick >= 1.0) {
			int64_t now = ui_wall_ns();
			struct cap_drop_span sp;

			last_tick = ui_mono_s();
			/* packets lost: stored as a span, as record does */
			if (cap_source_drops(w->cfg.src, &sp) == 1 &&
			    w->recording)
				ui_rec_drops(&w->rec, &sp);
			dec_tick(w->dec, now);
			take_held(w);
			an_tick(w->eng, now);
			if (w->recording)
				ui_rec_commit(&w->rec);
		}
		pthread_mutex_unlock(&w->m->mu);
		if (rc < 0) {
			struct cap_read_error e;
			char m[CAP_ERRBUF_SIZE + 96];

			pthread_mutex_lock(&w->m->mu);
			if (cap_source_read_error(w->cfg.src, &e)) {
				/* cut: the end of the input, said in the
				   header and under it */
				w->m->input_cut = true;
				snprintf(w->m->note, sizeof(w->m->note),
					 "INPUT CUT: %s; everything before it "
					 "is shown", ui_cut_str(&e, m, sizeof(m)));
				rc = 0;
			} else {
				fail(w, "capture", err);
			}
			pthread_mutex_unlock(&w->m->mu);
			break;
		}
		if (live && fd >= 0 && cap_pipe_stats(w->pipe)->packets == before) {
			struct pollfd pfd = { .fd = fd, .events = POLLIN };

			(void)poll(&pfd, 1, 100);
		}
	}
	pthread_mutex_lock(&w->m->mu);
	if (rc == 0) {	/* end of input: deliver everything, then verdicts */
		cap_pipe_flush(w->pipe);
		dec_flush(w->dec);
		take_held(w);
		an_flush(w->eng);
		publish(w, w->last_ts);
		an_find_handshakes(w->m->find, cap_pipe_handshakes(w->pipe,
				   NULL), CAP_HANDSHAKE_PAIRS);
		an_find_finish(w->m->find, w->m->figs,
			       w->m->cs.ipfrag_incomplete);
		w->m->done = true;
	}
	rec_end(w);
	pthread_mutex_unlock(&w->m->mu);
}

/* ---------------------------------------------------------- attach -- */

static void on_stored_op(void *user, const struct an_op *op)
{
	struct tm_worker *w = user;

	if (w->nbuf < ATTACH_BATCH)
		w->buf[w->nbuf++] = *op;
}

static void run_attach(struct tm_worker *w)
{
	struct store *st = NULL;
	struct store_run run;
	char err[STORE_ERRBUF_SIZE];
	int64_t id = w->cfg.run_id, last = 0;
	uint32_t k;

	if (store_open(w->cfg.db, STORE_RDONLY, &st, err) < 0 ||
	    (id == 0 && store_last_run(st, &id, err) < 0)) {
		pthread_mutex_lock(&w->m->mu);
		fail(w, w->cfg.db, err);
		pthread_mutex_unlock(&w->m->mu);
		store_close(st);
		return;
	}
	while (!stopping(w)) {
		bool more;

		if (id == 0 || store_read_run(st, id, &run, err) < 0 ||
		    store_read_ops_since(st, id, last, ATTACH_BATCH, on_stored_op,
					 w, &last, err) < 0) {
			pthread_mutex_lock(&w->m->mu);
			fail(w, w->cfg.db, id == 0 ? "no run in the database" : err);
			pthread_mutex_unlock(&w->m->mu);
			break;
		}
		more = w->nbuf == ATTACH_BATCH;
		pthread_mutex_lock(&w->m->mu);
		for (k = 0; k < w->nbuf; k++)
			tm_model_add(w->m, &w->buf[k]);
		w->m->attach_rows += w->nbuf;
		w->nbuf = 0;
		w->m->first_ns = run.first_ns;
		w->m->ds = run.ds;
		w->m->es = run.es;
		snprintf(w->m->run_state, sizeof(w->m->run_state), "%s",
			 run.state);
		if (run.ops_mode != STORE_OPS_ALL)	/* say what is missing */
			snprintf(w->m->note, sizeof(w->m->note), "run recorded "
				 "with --ops %s: only the operations stored are "
				 "shown", run.ops_mode == STORE_OPS_NONE ? "none" :
				 "slow");
		tm_model_tick(w->m, run.last_ns, &run.cs);
		/* a finished run: everything it has is read */
		if (!more && strcmp(run.state, "recording") != 0 && !w->m->done) {
			an_find_finish(w->m->find, w->m->figs,
				       run.cs.ipfrag_incomplete);
			w->m->done = true;
		}
		pthread_mutex_unlock(&w->m->mu);
		if (!more)	/* caught up: wait for the next commit */
			usleep(w->m->done ? 200000 : 250000);
	}
	store_close(st);
}

static void *worker_main(void *arg)
{
	struct tm_worker *w = arg;

	if (w->cfg.mode == TM_ATTACH)
		run_attach(w);
	else
		run_packets(w);
	return NULL;
}

/* ------------------------------------------------------------ setup -- */

int tm_worker_start(struct tm_worker **out, struct tm_model *m,
		    const struct tm_src_cfg *cfg)
{
	struct tm_worker *w = calloc(1, sizeof(*w));

	*out = NULL;
	if (w == NULL)
		return -1;
	w->m = m;
	w->cfg = *cfg;
	w->speed = cfg->speed;
	m->mode = cfg->mode;
	m->speed = cfg->speed;
	snprintf(m->source, sizeof(m->source), "%s", cfg->source);
	if (cfg->mode == TM_ATTACH) {
		w->buf = malloc(ATTACH_BATCH * sizeof(*w->buf));
		if (w->buf == NULL)
			goto fail;
	} else {
		struct cap_config cc = cfg->so->cfg;

		w->dec = dec_new(&cfg->so->dec);
		w->msg = malloc(sizeof(*w->msg));
		w->eng = an_new(&cfg->so->an, on_op, w);
		if (!w->dec || !w->msg || !w->eng)
			goto fail;
		cc.probe = dec_probe_start;
		cc.resync_probe = dec_probe_resync;
		cc.probe_user = w->dec;
		cc.frag_lost = on_frag_lost;
		cc.frag_lost_user = w;
		w->pipe = cap_pipe_new(&cc, on_msg, w);
		if (w->pipe == NULL)
			goto fail;
		if (cfg->out_db) {
			w->rec.who = "top";
			w->rec.quiet = true;	/* the terminal is the screen */
			w->rec.run.interval_ns = 10000000000LL;
			w->rec.pipe = w->pipe;
			w->rec.src = cfg->src;
			w->rec.dec = w->dec;
			w->rec.eng = w->eng;
			w->recording = true;
			if (ui_rec_begin(&w->rec, cfg->out_db, false, cfg->so,
					 cfg->src) < 0)
				goto fail;
		}
	}
	if (pthread_create(&w->thread, NULL, worker_main, w) != 0)
		goto fail;
	w->started = true;
	*out = w;
	return 0;
fail:
	tm_worker_stop(w);
	return -1;
}

void tm_worker_stop(struct tm_worker *w)
{
	if (w == NULL)
		return;
	atomic_store(&w->quit, 1);
	if (w->started)
		pthread_join(w->thread, NULL);
	ui_rec_close(&w->rec);
	cap_pipe_free(w->pipe);
	an_free(w->eng);
	free(w->msg);
	dec_free(w->dec);
	free(w->buf);
	free(w);
}
