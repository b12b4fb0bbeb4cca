/*
 * run.h - the run stage: one packet-reading run built from one
 * configuration plus output hooks.  It opens the source (files or a live
 * interface), drops privileges (-Z), builds capture -> decode -> analyze
 * (and the store, with a recorder), runs the read loop, handles the
 * signals, samples pcap_stats into drop spans and ends the run.
 * Subcommands (ui/) fill a run_config from their options, register the
 * hooks of what they show and call run_open, run_after_open, run_go.
 *
 * Hooks (any may be NULL), per run:
 *   msg   every message the decoder is done with, once, in capture order
 *         except that a reply held for its later call comes after it
 *         (d NULL: not RPC); before the engine sees it; capture thread
 *   keep  an operation, on the capture thread (filters: false drops it);
 *         with keep or a store the engine runs on the capture thread and
 *         ops reach `op` through a queue (opq.h), else the engine itself
 *         runs on the second thread (feedq.h)
 *   op    every operation kept, once, on the analysis thread (which is
 *         the capture thread when NFSCOPE_THREADS=1)
 *   tick  live, about once a second, after the engine's and the store's
 *   drops live: packets the capture lost in a span (after the store)
 *   end   once, last, with the final counters; the analysis thread is
 *         done (everything `op` touched is the caller's again)
 *
 * Ownership: struct run (run_open/run_free) owns the source, decoder,
 * engine, queues, pipe and store; the config's strings are the caller's
 * and must outlive the run.  The only mutable globals are the signal
 * flags below.  No allocation per packet.
 */
#ifndef NFSCOPE_RUN_H
#define NFSCOPE_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "analyze/figs.h"
#include "analyze/find.h"
#include "analyze/ops.h"
#include "capture/capture.h"
#include "decode/decode.h"
#include "run/base.h"
#include "store/store.h"


/* What the end hook gets: the run's final counters (ops_only: all NULL
 * and zero, the caller has its own). */
struct run_end {
	const struct cap_stats *cs;	/* pipe's, with pcap_stats' */
	const struct dec_stats *ds;
	const struct an_stats *es;	/* NULL: no engine */
	const struct an_names *names;	/* NULL: no engine */
	const struct cap_handshake *handshakes;	/* CAP_HANDSHAKE_PAIRS */
	const struct cap_read_error *cut;	/* NULL: not cut */
	const char *state;		/* complete, interrupted or cut */
	bool error;			/* reading failed: input lost */
	bool store_failed;
	uint64_t rpc_msgs;
	int64_t first_ns, last_ns;	/* capture times of the messages */
};

struct run_hooks {
	void *user;
	void (*msg)(void *user, const struct cap_msg *m,
		    const struct dec_msg *d);
	bool (*keep)(void *user, const struct an_op *op);
	void (*op)(void *user, const struct an_op *op);
	void (*tick)(void *user, int64_t now_ns);
	void (*drops)(void *user, const struct cap_drop_span *sp);
	void (*end)(void *user, const struct run_end *e);
};

struct run;

/* run_go's results besides -1 (an error that lost the input). */
#define RUN_OK 0
#define RUN_CUT 1	/* reading stopped on a read error; all before it
			   was processed (the message is on stderr) */

/*
 * Install the signal handlers, then open the source the config names
 * (errors and warnings on stderr: a missing privilege says which
 * capability and how to get it).  Returns 0, or -1 (*out NULL).
 */
int run_open(struct run **out, const struct run_config *c);
/* Right after run_open: -Z, become that user (groups, gid, uid, checked;
 * for good); then a process that is not root drops every capability.
 * Returns 0, or -1 with a message on stderr. */
int run_after_open(struct run *r);
/* The open source (NULL: ops_only). */
struct cap_source *run_source(const struct run *r);
/*
 * Build the pipeline (and open the store, after -Z), read until end of
 * input, -c, --duration, a store failure or a stop signal, flush, call the
 * end hook, end the stored run.  Returns RUN_OK, RUN_CUT or -1 (message
 * on stderr).  With ops_only it reads nothing: call run_put_op, then
 * run_finish.
 */
int run_go(struct run *r, const struct run_hooks *h);
/*
 * For a caller with a loop of its own (top: pacing, a lock around each
 * step): run_start builds what run_go would (and begins the store);
 * run_step reads up to max packets (cap_step: 1 more to come, 0 end of
 * input, -1 an error, err filled; run_source's cap_source_read_error says
 * if it was a cut); run_tick is the live second (drop sample, ticks,
 * the store's commit); run_end_input ends the run: flush true (the input
 * ended or was cut) delivers what is held and calls the end hook, false
 * (the caller quit) only ends the stored run ("interrupted").  Returns 0,
 * or -1 when the store failed.  run_drain, live, before run_end_input:
 * reads what the kernel still holds in its ring (the last block is handed
 * over up to 200 ms late: run.c's drain); as run_step.
 */
int run_start(struct run *r, const struct run_hooks *h);
int run_step(struct run *r, int max, char *err);
int run_drain(struct run *r, char *err);
void run_tick(struct run *r);
int run_end_input(struct run *r, bool flush, bool cut);
/* An already open source (the caller's: run_free leaves it open). */
int run_open_borrowed(struct run **out, const struct run_config *c,
		      struct cap_source *src);
/* Packets read so far. */
uint64_t run_packet_count(const struct run *r);
/* Capture time of the newest message so far (0: none). */
int64_t run_last_ns(const struct run *r);
/* Capture time of the oldest reply the decoder holds for a later call (0:
 * none): the msg hook may yet get it after younger messages.  From the
 * msg hook only (the thread that decodes). */
int64_t run_held_since(const struct run *r);
/* ops_only: one operation from elsewhere (a database), through keep and
 * op as the engine's would go. */
void run_put_op(void *run, const struct an_op *op);
/* ops_only: the analysis thread is done; the end hook is called. */
void run_finish(struct run *r);
/* The counters as they stand, on the capture thread (hooks msg, keep,
 * tick, drops): *cs the pipe's with pcap_stats', *es NULL without an
 * engine; record's engine runs on its own thread: *es as at the last
 * batch end (live: the last tick's). */
void run_counters(struct run *r, struct cap_stats *cs,
		  const struct dec_stats **ds, const struct an_stats **es);
/* complete, interrupted or cut (after run_go). */
const char *run_state(const struct run *r);
/* Capture time of the first message seen so far (0: none). */
int64_t run_first_ns(const struct run *r);
/* The stored run (after run_go; NULL without a store). */
const struct store_run *run_stored(const struct run *r);
const struct store_counts *run_store_counts(const struct run *r);
/* Has the store failed (it stopped the run; the message comes at the end)? */
bool run_store_failed(const struct run *r);
/* Its message (NULL: it has not failed). */
const char *run_store_error(const struct run *r);
void run_free(struct run *r);

#endif
