/*
 * run.h - the run stage: one packet-reading run built from one
 * configuration, the sinks its operations feed and output hooks.  It
 * opens the source (files or a live interface), drops privileges (-Z),
 * builds capture -> decode -> analyze (and the store, with a recorder),
 * wires the sinks (sink.h), runs the one read loop, handles the signals,
 * samples pcap_stats into drop spans and ends the run.  Subcommands (ui/)
 * fill a run_config from their options, choose their sinks, register the
 * hooks of what they show and call run_open, run_after_open, run_go.  A
 * stored run is one more source: its operations go through run_put_op to
 * the same sinks.
 *
 * Hooks (any may be NULL), per run:
 *   msg   every message the decoder is done with, once, in capture order
 *         except that a reply held for its later call comes after it
 *         (d NULL: not RPC); before the engine sees it; capture thread
 *   keep  an operation, on the capture thread (filters: false drops it);
 *         with keep or a store the engine runs on the capture thread and
 *         ops reach the sinks through a queue (opq.h), else the engine
 *         itself runs on the second thread (feedq.h)
 *   sinks every operation kept, once, on the analysis thread (which is
 *         the capture thread when NFSCOPE_THREADS=1 or ops_sync)
 *   tick  live, about once a second, after the engine's and the store's
 *   drops live: packets the capture lost in a span (after the store)
 *   end   once, last, with the final counters, after the sinks' end; the
 *         analysis thread is done (everything the sinks touched is the
 *         caller's again)
 * and, for a caller whose screen is the terminal (top), the loop's own:
 *   stop     polled with run_stop: true ends the input unflushed
 *            ("interrupted": nothing held is delivered, no end hook)
 *   pace     before each step: may wait (replay speed); returns the
 *            packets of the step (0: the default)
 *   lock     around each step with its publication and tick, and the end
 *   publish  after each step, under the lock; true: the counters were
 *            shown (the sinks' health gets them too)
 *   input_end  the input was cut (cut) or failed (err): shown by the
 *            caller; with it run/ writes nothing on stderr
 *
 * Ownership: struct run (run_open/run_free) owns the source, decoder,
 * engine, queues, pipe and store; the config's strings and the sinks'
 * objects are the caller's and must outlive the run.  The only mutable
 * globals are the signal flags below.  No allocation per packet.
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
#include "run/sink.h"
#include "store/store.h"


struct run_hooks {
	void *user;
	void (*msg)(void *user, const struct cap_msg *m,
		    const struct dec_msg *d);
	bool (*keep)(void *user, const struct an_op *op);
	struct run_sinks sinks;
	void (*tick)(void *user, int64_t now_ns);
	void (*drops)(void *user, const struct cap_drop_span *sp);
	void (*end)(void *user, const struct run_end *e);
	/* the loop's (see above) */
	bool (*stop)(void *user);
	int (*pace)(void *user);
	void (*lock)(void *user, bool on);
	bool (*publish)(void *user, int64_t now_ns);
	void (*input_end)(void *user, const struct cap_read_error *cut,
			  const char *err);
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
 * run_go in two steps, for a caller that starts the reading on a thread
 * of its own (top): run_start builds what run_go would (and begins the
 * store; errors said at once), run_loop reads and ends the run as run_go.
 */
int run_start(struct run *r, const struct run_hooks *h);
int run_loop(struct run *r);
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
/* ops_only: the analysis thread is done; the sinks' end and the end hook
 * are called (cs: the stored run's counters, for the findings' end; NULL:
 * none, the caller has its own). */
void run_finish(struct run *r, const struct cap_stats *cs);
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
