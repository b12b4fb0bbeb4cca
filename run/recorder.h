/*
 * recorder.h - the store side of a run (run.c's, for `record` and
 * `top -w`; internal to run/).  run.c hands each message and operation
 * here; this keeps the run's row, commits a batch per interval of capture
 * time (run.interval_ns), per batch_rows rows and whenever run.c asks
 * (live: every second), stores drop spans and ends the run.
 *
 * Errors: the first failure (disk full, ...) sets `failed` and `err`; every
 * call after it does nothing, so run.c checks `failed` after each call (it
 * stops the run; top shows the error and keeps drawing).
 *
 * Ownership: struct run_rec is run.c's; run_rec_close closes the store.
 * pipe, src, dec and eng are run.c's too: they are read for the run's
 * counters (set them before the first message).
 */
#ifndef NFSCOPE_RECORDER_H
#define NFSCOPE_RECORDER_H

#include "store/store.h"
#include "run/base.h"

struct run_rec {
	struct store *st;
	struct store_run run;		/* options (ops_mode, interval_ns,
					   retain_ns) set before run_rec_begin */
	uint64_t batch_rows;		/* 0: 65536 */
	const char *who;		/* "record", "top": in messages */
	bool quiet;			/* no log lines (errors still) */
	/* where the counters come from (the caller's) */
	struct cap_pipe *pipe;
	struct cap_source *src;
	struct dec *dec;
	struct an_engine *eng;
	/* async (record): the recorder works on the engine's thread (run.c
	   hands it messages, batch ends and drop spans through the engine's
	   queue), so the capture thread's counters come as copies taken at
	   each interval's and tick's batch end (run_rec_snap); a batch that
	   --batch rows end carries the last copy */
	bool async;
	struct cap_stats snap_cs;
	struct dec_stats snap_ds;
	/* state */
	int64_t next_commit_ns;		/* capture time of the next commit
					   (async: the capture thread's) */
	int64_t now_ns;			/* latest message time */
	bool failed;
	bool ended;			/* run_rec_end stored the run's end */
	char err[STORE_ERRBUF_SIZE];
};

/* Open (create or append; replace: a new file) path and begin the run,
 * described from so and src.  Prints the error (naming -Z's user) and
 * returns -1 on failure. */
int run_rec_begin(struct run_rec *r, const char *path, bool replace,
		 const struct run_config *so, struct cap_source *src);
/* A message, after decoding (d NULL: not RPC): commits a batch when an
 * interval of capture time has passed, then stores the message's flow. */
void run_rec_msg(struct run_rec *r, const struct cap_msg *m,
		const struct dec_msg *d);
/* run_rec_msg in parts, for a caller that keeps the commit clock itself
 * (async): run_rec_due is that clock (*next: 0 before the first message);
 * when it says so, run_rec_times then run_rec_commit_at(ts_ns) end the
 * batch before the message; run_rec_times then run_rec_put store it. */
bool run_rec_due(int64_t *next, int64_t interval_ns, int64_t ts_ns);
void run_rec_times(struct run_rec *r, int64_t ts_ns);
void run_rec_commit_at(struct run_rec *r, int64_t ts_ns);
void run_rec_put(struct run_rec *r, const struct cap_msg *m, bool rpc,
		 bool call, bool reply);
/* The capture thread's counters as they stand (pipe with pcap_stats',
 * decoder): on the capture thread only. */
void run_rec_capture(const struct run_rec *r, struct cap_stats *cs,
		     struct dec_stats *ds);
/* Async: the capture thread's counters as they stood (see async). */
void run_rec_snap(struct run_rec *r, const struct cap_stats *cs,
		  const struct dec_stats *ds);
/* An operation the engine delivered. */
void run_rec_op(struct run_rec *r, const struct an_op *op);
/* Commit the batch now (live: every second). */
void run_rec_commit(struct run_rec *r);
/* Packets the capture lost in a span: stored with the next batch.  False
 * after a failure (nothing stored; the caller logs a stored span). */
bool run_rec_drops(struct run_rec *r, const struct cap_drop_span *sp);
/* The input was cut short or damaged (cap_source_read_error of src): the
 * run ends in state "cut" with where and why (runs.read_error,
 * read_error_offset).  False if reading did not stop on an error. */
bool run_rec_cut(struct run_rec *r);
/* End the run: last batch, sizes, FSINFO, findings, state ("complete",
 * "interrupted" or "cut").  Returns 0 or -1 (failed, err). */
int run_rec_end(struct run_rec *r, const struct an_figs *figs,
	       const struct an_find *find, const char *state);
void run_rec_close(struct run_rec *r);

#endif
