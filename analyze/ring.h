/*
 * ring.h - a single-producer single-consumer ring of variable-size records
 * with its consumer thread.
 *
 * Purpose: hand work from the capture thread to a second core - finished
 * operations (opq.h) or messages to match (feedq.h).  The producer
 * reserves room for its largest record, builds the record in place and
 * commits its real size; the consumer thread calls fn on each record, in
 * order.
 *
 * Invariants: every committed record reaches fn exactly once, in commit
 * order, before an_ring_drain returns; records are 8-byte aligned; fn runs
 * on the consumer thread only.  Everything the producer wrote before a
 * commit is visible to fn for that record, and everything fn wrote is
 * visible to the producer after an_ring_drain.
 *
 * Ownership: the caller owns the ring (an_ring_new/an_ring_free;
 * an_ring_free(NULL) is a no-op; free drains first).  an_ring_new returns
 * NULL when a thread is not worth it (fewer CPUs online than min_cpus, or
 * NFSCOPE_THREADS=1) or cannot be had: the caller then does the work
 * itself.
 *
 * Load: head and tail are byte counts that only grow; each side publishes
 * its own (the producer in batches if asked: each publication takes the
 * line from the consumer's cache) with a release store and reads the
 * other's with an acquire load.  A side with nothing to do sleeps on the
 * condition variable after saying so (cwait/pwait); the other checks that
 * flag after publishing (sequentially consistent: one of them always sees
 * the other, no lost wake-up) and signals under the mutex, only once a
 * batch (a quarter of the ring) is ready, so the threads do not wake per
 * record.
 */
#ifndef NFSCOPE_AN_RING_H
#define NFSCOPE_AN_RING_H

#include <stddef.h>
#include <stdint.h>

struct an_ring;

typedef void (*an_ring_fn)(void *user, void *rec);

/* bytes: ring size (rounded up to a power of two, at least 4 records of
 * rec_max).  rec_max: the largest record.  publish: the producer hands
 * committed records over once this many bytes of them wait (0: each at
 * once); an_ring_publish, an_ring_drain and a full ring hand over what
 * waits at once. */
struct an_ring *an_ring_new(size_t bytes, size_t rec_max, size_t publish,
			    unsigned min_cpus, an_ring_fn fn, void *user);
void an_ring_free(struct an_ring *r);
/* Room for a record of up to rec_max bytes (waiting for the consumer if
 * the ring is full). */
void *an_ring_reserve(struct an_ring *r);
/* Hand over the reserved record, of size bytes (<= rec_max). */
void an_ring_commit(struct an_ring *r, size_t size);
/* Hand over every record committed so far. */
void an_ring_publish(struct an_ring *r);
/* Wait until fn has returned for every record committed so far. */
void an_ring_drain(struct an_ring *r);
/* Hand over every record committed so far and wake the consumer for them
 * however few (live: once a second), without waiting. */
void an_ring_kick(struct an_ring *r);

#endif
