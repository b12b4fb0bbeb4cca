/*
 * top_src.c - the dashboard's worker thread: packets (live or replayed) or
 * a database's rows in, struct tm_model out; see top.h.
 */
#include "ui/top/top.h"
#include "ui/cli.h"
#include "ui/serve/metrics.h"

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
	struct run *run;		/* the pipeline (run/run.h) */
	int64_t last_ts;		/* newest message */
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

/* ---------------------------------------------------------- packets -- */

/* On the worker thread, the lock held (run.h: ops_sync). */
static void on_op(void *user, const struct an_op *op)
{
	struct tm_worker *w = user;

	tm_model_add(w->m, op);
	if (w->cfg.mx) {
		ui_mx_op(w->cfg.mx, op);
		ui_mx_findings(w->cfg.mx, w->m->find);
	}
}

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
	if (w->cfg.mx)
		ui_mx_health(w->cfg.mx, &cs, ds, es, false);
}

/* The end of the input (or a cut): everything delivered, then verdicts;
 * called with the lock held (run_end_input). */
static void on_end(void *user, const struct run_end *e)
{
	struct tm_worker *w = user;

	publish(w, w->last_ts);
	an_find_handshakes(w->m->find, e->handshakes, CAP_HANDSHAKE_PAIRS);
	an_find_finish(w->m->find, w->m->figs, w->m->cs.ipfrag_incomplete);
	w->m->done = true;
	if (w->cfg.mx) {
		ui_mx_findings(w->cfg.mx, w->m->find);
		ui_mx_health(w->cfg.mx, e->cs, e->ds, e->es, true);
		if (e->cut)
			ui_mx_input_cut(w->cfg.mx);
	}
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

static void tm_read_packets(struct tm_worker *w)
{
	char err[CAP_ERRBUF_SIZE] = "";
	bool live = w->cfg.mode == TM_LIVE;
	int fd = live ? cap_source_fd(w->cfg.src) : -1;
	double last_tick = run_mono_s();
	int rc = 1;

	while (!stopping(w) && rc == 1) {
		uint64_t before;
		int batch;

		while (!live && !stopping(w) && pace(w))
			;
		batch = (!live && w->speed > 0) ? 16 : 2048;
		pthread_mutex_lock(&w->m->mu);
		before = run_packet_count(w->run);
		rc = run_step(w->run, batch, err);
		if (!live || run_mono_s() - last_tick >= 0.25)
			publish(w, live ? run_wall_ns() : w->last_ts);
		if (live && run_mono_s() - last_tick >= 1.0) {
			last_tick = run_mono_s();
			run_tick(w->run);	/* drops stored, as record does */
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
					 "is shown", run_cut_str(&e, m, sizeof(m)));
				rc = 0;
			} else {
				fail(w, "capture", err);
			}
			pthread_mutex_unlock(&w->m->mu);
			break;
		}
		if (live && fd >= 0 && run_packet_count(w->run) == before) {
			struct pollfd pfd = { .fd = fd, .events = POLLIN };

			(void)poll(&pfd, 1, 100);
		}
	}
	pthread_mutex_lock(&w->m->mu);
	/* live, quit or --duration: what the kernel still holds first */
	if (live && rc >= 0 && run_drain(w->run, err) < 0)
		fail(w, "capture", err);
	/* end of input: deliver everything, then verdicts (on_end) */
	(void)run_end_input(w->run, rc == 0, w->m->input_cut);
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

static void tm_attach_store(struct tm_worker *w)
{
	struct store *st = NULL;
	struct store_run run;
	char err[STORE_ERRBUF_SIZE];
	int64_t id = w->cfg.run_id, last = 0;
	uint32_t k;

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
		w->buf = malloc(ATTACH_BATCH * sizeof(*w->buf));
		if (w->buf == NULL)
			goto fail;
	} else {
		struct run_config rc;
		struct run_hooks h = { .user = w, .msg = on_msg, .op = on_op,
				       .end = on_end };

		/* the source is top's (opened before -Z, closed after) */
		ui_run_config(cfg->so, "top", &rc);
		rc.analyze = true;
		rc.ops_sync = true;	/* the model, under its lock */
		rc.store_path = cfg->out_db;
		rc.store_quiet = true;	/* the terminal is the screen */
		rc.store_opts.interval_ns = 10000000000LL;
		rc.figs = m->figs;
		rc.find = m->find;
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
