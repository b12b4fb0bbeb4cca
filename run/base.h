/*
 * base.h - what the run stage's files share below run.c: the one run
 * configuration (struct run_config), the signal flags and their handlers,
 * the clocks, the budget and cut-input wording (base.c), and opening the
 * source alone (source.c).  run.h includes it; recorder.h needs only this.
 */
#ifndef NFSCOPE_RUN_BASE_H
#define NFSCOPE_RUN_BASE_H

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
};

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
