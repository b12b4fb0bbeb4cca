/* base.c - the run stage's signal flags, clocks and counters; see run.h. */
#include "run/base.h"
#include "base/units.h"

#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

volatile sig_atomic_t run_stop;
volatile sig_atomic_t run_hup;

static void on_signal(int sig)
{
	struct sigaction sa;

	if (sig == SIGHUP) {
		run_hup = 1;
		return;
	}
	run_stop = 1;
	/* The stop is known now: from here on a signal interrupts no call,
	 * so the output written at the end cannot lose bytes to an EINTR
	 * (stdio drops a buffer whose write was interrupted).  sigaction is
	 * async-signal-safe. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

void run_block_signals(bool block)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(block ? SIG_BLOCK : SIG_UNBLOCK, &set, NULL);
}

void run_install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* without SA_RESTART: a read blocked on a pipe returns EINTR, and
	 * the source takes an error with run_stop set for the stop it is
	 * (cap_source_set_stop); every packet before it is processed */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* a hangup (terminal gone, or a log rotator's habit) must not lose
	 * a run: nfscope keeps no file it could reopen, so it only says so.
	 * SA_RESTART: a read it interrupts goes on as if nothing happened */
	sa.sa_flags = SA_RESTART;
	sigaction(SIGHUP, &sa, NULL);
}

void run_check_hup(const char *who)
{
	if (!run_hup)
		return;
	run_hup = 0;
	fprintf(stderr, "nfscope %s: SIGHUP ignored: nothing to reopen, the "
		"run goes on (SIGINT or SIGTERM end it)\n", who);
}

const char *run_cut_str(const struct cap_read_error *e, char *buf, size_t n)
{
	char at[64] = "";

	if (e->offset >= 0)
		snprintf(at, sizeof(at), " at byte %" PRId64, e->offset);
	snprintf(buf, n, "reading stopped after packet %" PRIu64 "%s: %s",
		 e->packets, at, e->why);
	return buf;
}

uint64_t run_evictions(const struct cap_stats *cs, const struct dec_stats *ds,
		       const struct an_stats *es)
{
	return cs->flows_evicted + cs->ipfrag_evicted + cs->tcp_mem_evicted +
	       ds->xid_evictions + ds->late_over_budget +
	       es->evicted + es->names_evicted;
}

double run_mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int64_t run_wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}
