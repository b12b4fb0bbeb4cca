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
 * Load: one copy of the op's used bytes into the ring (ring.h) per op;
 * the threads sleep only when the ring is empty or full, and wake each
 * other in batches.
 */
#ifndef NFSCOPE_AN_OPQ_H
#define NFSCOPE_AN_OPQ_H

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
/* Wait until fn has returned for every op pushed so far. */
void an_opq_drain(struct an_opq *q);

#endif
