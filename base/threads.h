/*
 * threads.h - whether a helper thread is worth having: the one rule for
 * every stage that can hand work to another core (analyze/ring.c's
 * consumers, capture/pcapfile.c's reader).
 *
 * True with at least min_cpus CPUs online, unless NFSCOPE_THREADS=1 asks
 * for everything on the calling thread (tests run both ways; the results
 * are the same).  With fewer CPUs a thread would only add switches.
 */
#ifndef NFSCOPE_BASE_THREADS_H
#define NFSCOPE_BASE_THREADS_H

#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

static inline bool base_threads_ok(long min_cpus)
{
	const char *t = getenv("NFSCOPE_THREADS");

	return sysconf(_SC_NPROCESSORS_ONLN) >= min_cpus &&
	       !(t && atoi(t) == 1);
}

#endif
