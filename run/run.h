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
#include "store/store.h"

struct run_config {
	const char *who;		/* subcommand, for messages */
	/* source: files (nfiles > 0) or iface; ops_only: neither */
	const char *const *files;
	uint32_t nfiles;
	const char *iface;
	const char *name;		/* the source, for the store */
	const char *user;		/* -Z */
	bool ops_only;			/* no source: run_put_op feeds it */
	struct cap_config cap;		/* capture options and budgets */
	struct dec_config dec;		/* --dec-xid-max, --late-mem */
	struct an_config an;		/* --xid-max, --names-max */
	bool analyze;			/* false: decode only (no ops) */
	bool ops_sync;			/* ops straight to `op` on the capture
					   thread (no queue, no second thread) */
	bool progress;			/* a progress line on stderr */
	/* the store (store_path NULL: none) */
	const char *store_path;
	bool store_replace;		/* a new file */
	struct store_run store_opts;	/* ops_mode, interval_ns, retain_ns */
	uint64_t batch_rows;		/* 0: 65536 */
	bool store_quiet;		/* no log lines */
	const struct an_figs *figs;	/* stored at the end (the caller's, */
	const struct an_find *find;	/* filled by its op hook) */
};

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
 * or -1 when the store failed.
 */
int run_start(struct run *r, const struct run_hooks *h);
int run_step(struct run *r, int max, char *err);
void run_tick(struct run *r);
int run_end_input(struct run *r, bool flush, bool cut);
/* An already open source (the caller's: run_free leaves it open). */
int run_open_borrowed(struct run **out, const struct run_config *c,
		      struct cap_source *src);
/* Packets read so far. */
uint64_t run_packet_count(const struct run *r);
/* Capture time of the newest message so far (0: none). */
int64_t run_last_ns(const struct run *r);
/* ops_only: one operation from elsewhere (a database), through keep and
 * op as the engine's would go. */
void run_put_op(void *run, const struct an_op *op);
/* ops_only: the analysis thread is done; the end hook is called. */
void run_finish(struct run *r);
/* The counters as they stand, on the capture thread (hooks msg, keep,
 * tick, drops): *cs the pipe's with pcap_stats', *es NULL without an
 * engine. */
void run_counters(const struct run *r, struct cap_stats *cs,
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

/* ------------------------------------------------- signals, clocks -- */

extern volatile sig_atomic_t run_stop;	/* SIGINT, SIGTERM */
extern volatile sig_atomic_t run_hup;	/* SIGHUP: logged and ignored */
/* Install SIGINT/SIGTERM (set run_stop) and SIGHUP (set run_hup). */
void run_install_signals(void);
/* Hold SIGINT, SIGTERM and SIGHUP back (block true) while writing output,
 * then let them in: a signal that interrupted a write blocked on a full
 * pipe would make stdio drop that buffer. */
void run_block_signals(bool block);
/* If a SIGHUP came, log on stderr that it is ignored (who: "record"). */
void run_check_hup(const char *who);
/* Clocks: monotonic seconds (intervals); wall time in ns. */
double run_mono_s(void);
int64_t run_wall_ns(void);
/* Entries dropped for memory budgets so far (TCP flows, IP fragment
 * trains, decoder and engine xid entries, names, replies not held). */
uint64_t run_evictions(const struct cap_stats *cs, const struct dec_stats *ds,
		       const struct an_stats *es);
/* "reading stopped after packet N at byte B: WHY" into buf. */
const char *run_cut_str(const struct cap_read_error *e, char *buf, size_t n);

/* Source opening alone (source.c), for a caller with its own loop. */
struct cap_source *run_open_source(const struct run_config *c);
int run_drop_privileges(const char *user);

#endif
