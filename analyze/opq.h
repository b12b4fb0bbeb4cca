/*
 * opq.h - hand delivered operations to a second thread.
 *
 * Purpose: the engine (ops.h) delivers ops on the capture thread; what
 * consumes them (figures, findings) can run on another core.  an_opq_push
 * copies an op into a bounded ring (the used bytes only: an_op_copy) and a
 * consumer thread calls fn on each, in delivery order.
 *
 * Invariants: every pushed op reaches fn exactly once, in order, before
 * an_opq_drain returns.  fn runs on the consumer thread only, so the state
 * it touches must not be read by the producer between drains.  When the
 * machine has fewer than min_cpus CPUs, the environment has
 * NFSCOPE_THREADS=1 or the thread cannot be started, push calls fn
 * directly (same results, one thread).
 *
 * Ownership: the caller owns the queue (an_opq_new/an_opq_free; free(NULL)
 * is a no-op; free drains first).
 *
 * Load: one ~1 KB slot copy per op; the threads sleep (condition variable)
 * only when the ring is empty or full, and wake each other in batches.
 */
#ifndef NFSCOPE_AN_OPQ_H
#define NFSCOPE_AN_OPQ_H

#include <stdbool.h>

#include "analyze/ops.h"

struct an_opq;

/* slots: ring size (0: 1024; rounded up to a power of two).  min_cpus:
 * start the thread only on a machine with at least that many CPUs online
 * (a caller that already runs other busy threads asks for more). */
struct an_opq *an_opq_new(unsigned slots, unsigned min_cpus, an_op_fn fn,
			  void *user);
void an_opq_free(struct an_opq *q);
/* An an_op_fn: user is the queue. */
void an_opq_push(void *q, const struct an_op *op);
/* The same in two steps, for a producer that builds the op in place (the
 * engine: an_set_queue): reserve returns the next slot (waiting for room),
 * commit hands it over.  Unthreaded, the slot is a scratch op given to fn
 * at commit. */
struct an_op *an_opq_reserve(struct an_opq *q);
void an_opq_commit(struct an_opq *q);
/* Wait until fn has returned for every op pushed so far. */
void an_opq_drain(struct an_opq *q);

#endif
