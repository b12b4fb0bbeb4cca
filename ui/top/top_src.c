/*
 * top_src.c - the dashboard's worker thread: packets (live or replayed) or
 * a database's rows in, struct tm_model out; see top.h.
 */
#include "ui/top/top.h"
#include "ui/cli.h"
#include "ui/serve/metrics.h"

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
	struct run *run;		/* the pipeline (run/run.h); attach: a
					   run of the database's ops */
	int64_t last_ts;		/* newest message */
	double published;		/* live: when the counters last were */
	/* replay pacing: capture time base_ts is due at wall time base_wall */
	double speed;
	int64_t base_ts;
	double base_wall;
	/* attach */
	struct an_op *buf;
	uint32_t nbuf;
};

static bool stopping(const struct tm_worker *w)
{
	return atomic_load(&w->quit) || run_stop;
}

static void fail(struct tm_worker *w, const char *what, const char *err)
{
	w->m->failed = true;
	snprintf(w->m->err, sizeof(w->m->err), "%s: %s", what, err);
}

/* ------------------------------------------------------------ sinks -- */

/* The window's history, before the figures and findings (run/sink.h);
 * on the worker thread, the lock held (ops_sync). */
static void on_op(void *user, const struct an_op *op, int32_t rx)
{
	(void)rx;
	tm_model_add(user, op);
}

/* What the run's operations feed: the window, the model's figures and
 * findings, the metrics. */
static void tm_sinks(struct tm_worker *w, struct run_sinks *s)
{
	struct run_sink k = { .user = w->m, .early = true, .op = on_op };

	s->figs = w->m->figs;
	s->find = w->m->find;
	s->find_finish = true;
	run_sinks_add(s, &k);
	if (w->cfg.mx) {
		ui_mx_sink(w->cfg.mx, w->m->find, &k);
		run_sinks_add(s, &k);
	}
}

/* ---------------------------------------------------------- packets -- */

static void on_msg(void *user, const struct cap_msg *m,
		   const struct dec_msg *d)
{
	struct tm_worker *w = user;

	(void)m;
	(void)d;
	w->m->first_ns = run_first_ns(w->run);
	w->last_ts = run_last_ns(w->run);
}

/* A failed recording shows in the header; the dashboard goes on. */
static void rec_check(struct tm_worker *w)
{
	const char *err = run_store_error(w->run);

	if (err && !w->m->failed)
		fail(w, "recording", err);
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
	struct cap_stats cs;
	const struct dec_stats *ds;
	const struct an_stats *es;

	run_counters(w->run, &cs, &ds, &es);
	w->m->ds = *ds;
	w->m->es = *es;
	tm_model_tick(w->m, now_ns, &cs);
	rec_check(w);
}

/* After each step (the lock held): replayed, every step; live, each
 * quarter second. */
static bool on_publish(void *user, int64_t now_ns)
{
	struct tm_worker *w = user;
	double t = run_mono_s();

	if (w->cfg.mode == TM_LIVE && t - w->published < 0.25)
		return false;
	w->published = t;
	publish(w, now_ns);
	return true;
}

/* The end of the input (or a cut): everything delivered, the findings
 * finished (the run's sinks); called with the lock held. */
static void on_end(void *user, const struct run_end *e)
{
	struct tm_worker *w = user;

	if (e->error)
		return;
	publish(w, w->last_ts);
	w->m->done = true;
}

/* The input cut (said in the header and under it) or failed; the lock is
 * held. */
static void on_input_end(void *user, const struct cap_read_error *cut,
			 const char *err)
{
	struct tm_worker *w = user;
	char m[CAP_ERRBUF_SIZE + 96];

	if (cut == NULL) {
		fail(w, "capture", err);
		return;
	}
	w->m->input_cut = true;
	snprintf(w->m->note, sizeof(w->m->note), "INPUT CUT: %s; everything "
		 "before it is shown", run_cut_str(cut, m, sizeof(m)));
}

static bool on_stop(void *user)
{
	struct tm_worker *w = user;

	return atomic_load(&w->quit);
}

static void on_lock(void *user, bool on)
{
	struct tm_worker *w = user;

	if (on)
		pthread_mutex_lock(&w->m->mu);
	else
		pthread_mutex_unlock(&w->m->mu);
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
		w->base_wall = run_mono_s();
	}
	pthread_mutex_unlock(&w->m->mu);
	if (w->speed <= 0 || w->last_ts == 0)
		return false;
	if (w->base_ts == 0) {
		w->base_ts = w->last_ts;
		w->base_wall = run_mono_s();
	}
	due = w->base_wall + (double)(w->last_ts - w->base_ts) / 1e9 / w->speed;
	now = run_mono_s();
	if (due <= now)
		return false;
	ns = (int64_t)((due - now) * 1e9);
	if (ns > 100000000)
		ns = 100000000;
	nanosleep(&(struct timespec){ .tv_sec = 0, .tv_nsec = ns }, NULL);
	return true;
}

/* The run's pacing hook: replayed at a speed, a few packets at a time,
 * each when due. */
static int on_pace(void *user)
{
	struct tm_worker *w = user;

	if (w->cfg.mode == TM_LIVE)
		return 2048;
	while (!stopping(w) && pace(w))
		;
	return w->speed > 0 ? 16 : 2048;
}

static void tm_read_packets(struct tm_worker *w)
{
	(void)run_loop(w->run);	/* failures are in the model */
	pthread_mutex_lock(&w->m->mu);
	rec_check(w);
	pthread_mutex_unlock(&w->m->mu);
}

/* ---------------------------------------------------------- attach -- */

static void on_stored_op(void *user, const struct an_op *op)
{
	struct tm_worker *w = user;

	if (w->nbuf < ATTACH_BATCH)
		w->buf[w->nbuf++] = *op;
}

/* A batch of a database's ops into the model (the lock held): through
 * the run's sinks, as a capture's. */
static void attach_batch(struct tm_worker *w, const struct store_run *run,
			 bool more)
{
	uint32_t k;

	for (k = 0; k < w->nbuf; k++)
		run_put_op(w->run, &w->buf[k]);
	w->m->attach_rows += w->nbuf;
	w->nbuf = 0;
	w->m->first_ns = run->first_ns;
	w->m->ds = run->ds;
	w->m->es = run->es;
	snprintf(w->m->run_state, sizeof(w->m->run_state), "%s", run->state);
	if (run->ops_mode != STORE_OPS_ALL)	/* say what is missing */
		snprintf(w->m->note, sizeof(w->m->note), "run recorded with "
			 "--ops %s: only the operations stored are shown",
			 run->ops_mode == STORE_OPS_NONE ? "none" : "slow");
	tm_model_tick(w->m, run->last_ns, &run->cs);
	/* a finished run: everything it has is read */
	if (!more && strcmp(run->state, "recording") != 0 && !w->m->done) {
		run_finish(w->run, &run->cs);	/* the findings' end */
		w->m->done = true;
	}
}

static void tm_attach_store(struct tm_worker *w)
{
	struct store *st = NULL;
	struct store_run run;
	char err[STORE_ERRBUF_SIZE];
	int64_t id = w->cfg.run_id, last = 0;

	if (store_open(w->cfg.db, STORE_RDONLY | STORE_FOLLOW, &st, err) < 0 ||
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
		attach_batch(w, &run, more);
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
		tm_attach_store(w);
	else
		tm_read_packets(w);
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
		/* a database's ops through run_put_op, under the lock */
		struct run_config rc;
		struct run_hooks h = { .user = w };

		memset(&rc, 0, sizeof(rc));
		rc.who = "top";
		rc.ops_only = rc.ops_sync = rc.analyze = true;
		tm_sinks(w, &h.sinks);
		w->buf = malloc(ATTACH_BATCH * sizeof(*w->buf));
		if (w->buf == NULL ||
		    run_open_borrowed(&w->run, &rc, NULL) < 0 ||
		    run_start(w->run, &h) < 0)
			goto fail;
	} else {
		struct run_config rc;
		struct run_hooks h = { .user = w, .msg = on_msg, .end = on_end,
				       .stop = on_stop, .pace = on_pace,
				       .lock = on_lock, .publish = on_publish,
				       .input_end = on_input_end };

		tm_sinks(w, &h.sinks);
		/* the source is top's (opened before -Z, closed after) */
		ui_run_config(cfg->so, "top", &rc);
		rc.analyze = true;
		rc.ops_sync = true;	/* the model, under its lock */
		rc.store_path = cfg->out_db;
		rc.store_quiet = true;	/* the terminal is the screen */
		rc.store_opts.interval_ns = 10000000000LL;
		rc.cap.frag_lost = on_frag_lost;	/* per second, top */
		rc.cap.frag_lost_user = w;
		if (run_open_borrowed(&w->run, &rc, cfg->src) < 0 ||
		    run_start(w->run, &h) < 0)
			goto fail;
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
	run_free(w->run);
	free(w->buf);
	free(w);
}
