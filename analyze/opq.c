/*
 * opq.c - a single-producer single-consumer ring of ops; see opq.h.
 *
 * head (next slot to consume) and tail (next slot to fill) only grow; the
 * producer owns tail and the slots in [tail, head + n), the consumer head
 * and the slots in [head, tail).  Each publishes its index with a release
 * store and reads the other's with an acquire load, so a slot's contents
 * are visible before its index is.  A side with nothing to do sleeps on
 * the condition variable after saying so (cwait/pwait); the other side
 * checks that flag after publishing (sequentially consistent, so one of
 * them always sees the other: no lost wake-up) and signals under the mutex
 * - only once a batch is ready, so the threads do not wake per op.
 */
#include "analyze/opq.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#define BATCH 64	/* the consumer publishes its progress this often */
#define WAKE(q) ((q)->n / 4)	/* it sleeps until this many are queued */

struct an_opq {
	an_op_fn fn;
	void *user;
	struct an_op *slot;
	struct an_op *scratch;		/* unthreaded reserve/commit */
	uint64_t n, mask;
	bool threaded;
	pthread_t tid;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	_Alignas(64) _Atomic uint64_t head;
	_Atomic bool cwait;		/* consumer asleep or about to be */
	_Alignas(64) _Atomic uint64_t tail;
	_Atomic bool pwait;		/* producer asleep or about to be */
	_Atomic bool flush;		/* producer waits: consume what there is */
	_Atomic bool stop;
};

static void wake(struct an_opq *q)
{
	pthread_mutex_lock(&q->mu);
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
}

static void *consumer(void *arg)
{
	struct an_opq *q = arg;
	uint64_t head = atomic_load_explicit(&q->head, memory_order_relaxed);

	for (;;) {
		uint64_t tail = atomic_load_explicit(&q->tail,
						     memory_order_acquire);

		if (tail == head) {
			if (atomic_load(&q->stop))
				return NULL;
			pthread_mutex_lock(&q->mu);
			atomic_store(&q->cwait, true);
			while (atomic_load(&q->tail) - head < WAKE(q) &&
			       !atomic_load(&q->flush) && !atomic_load(&q->stop))
				pthread_cond_wait(&q->cv, &q->mu);
			atomic_store(&q->cwait, false);
			pthread_mutex_unlock(&q->mu);
			continue;
		}
		while (head != tail) {
			q->fn(q->user, &q->slot[head & q->mask]);
			head++;
			if ((head & (BATCH - 1)) == 0 || head == tail) {
				atomic_store(&q->head, head);
				if (atomic_load(&q->pwait))
					wake(q);
			}
		}
	}
}

/* No second thread: ops go to fn in the producer's call. */
static struct an_opq *unthreaded(struct an_opq *q)
{
	free(q->slot);
	q->slot = NULL;
	q->scratch = malloc(sizeof(*q->scratch));
	if (q->scratch == NULL) {
		free(q);
		return NULL;
	}
	return q;
}

struct an_opq *an_opq_new(unsigned slots, unsigned min_cpus, an_op_fn fn,
			  void *user)
{
	struct an_opq *q = calloc(1, sizeof(*q));
	uint64_t n = 2 * BATCH;

	if (q == NULL)
		return NULL;
	q->fn = fn;
	q->user = user;
	if (slots == 0)
		slots = 1024;
	while (n < slots)
		n <<= 1;
	if (min_cpus < 2)
		min_cpus = 2;
	if (sysconf(_SC_NPROCESSORS_ONLN) < (long)min_cpus ||
	    (getenv("NFSCOPE_THREADS") && atoi(getenv("NFSCOPE_THREADS")) == 1))
		return unthreaded(q);	/* a thread would only add switches */
	q->slot = malloc(n * sizeof(*q->slot));
	if (q->slot == NULL)
		return unthreaded(q);
	q->n = n;
	q->mask = n - 1;
	if (pthread_mutex_init(&q->mu, NULL) != 0)
		return unthreaded(q);
	if (pthread_cond_init(&q->cv, NULL) != 0) {
		pthread_mutex_destroy(&q->mu);
		return unthreaded(q);
	}
	if (pthread_create(&q->tid, NULL, consumer, q) != 0) {
		pthread_cond_destroy(&q->cv);
		pthread_mutex_destroy(&q->mu);
		return unthreaded(q);
	}
	q->threaded = true;
	return q;
}

struct an_op *an_opq_reserve(struct an_opq *q)
{
	uint64_t tail, head;

	if (!q->threaded)
		return q->scratch;
	tail = atomic_load_explicit(&q->tail, memory_order_relaxed);
	head = atomic_load_explicit(&q->head, memory_order_acquire);
	if (tail - head == q->n) {
		pthread_mutex_lock(&q->mu);
		atomic_store(&q->pwait, true);
		while (tail - atomic_load(&q->head) > q->n / 2)
			pthread_cond_wait(&q->cv, &q->mu);
		atomic_store(&q->pwait, false);
		pthread_mutex_unlock(&q->mu);
	}
	return &q->slot[tail & q->mask];
}

void an_opq_commit(struct an_opq *q)
{
	uint64_t tail;

	if (!q->threaded) {
		q->fn(q->user, q->scratch);
		return;
	}
	tail = atomic_load_explicit(&q->tail, memory_order_relaxed) + 1;
	atomic_store(&q->tail, tail);
	if (atomic_load(&q->cwait) && tail % BATCH == 0 &&
	    tail - atomic_load(&q->head) >= WAKE(q))
		wake(q);
}

void an_opq_push(void *user, const struct an_op *op)
{
	struct an_opq *q = user;
	struct an_op *o;

	if (!q->threaded) {
		q->fn(q->user, op);
		return;
	}
	o = an_opq_reserve(q);
	an_op_copy(o, op);
	an_opq_commit(q);
}

void an_opq_drain(struct an_opq *q)
{
	uint64_t tail;

	if (q == NULL || !q->threaded)
		return;
	tail = atomic_load(&q->tail);
	pthread_mutex_lock(&q->mu);
	atomic_store(&q->flush, true);
	atomic_store(&q->pwait, true);
	pthread_cond_broadcast(&q->cv);
	while (atomic_load(&q->head) != tail)
		pthread_cond_wait(&q->cv, &q->mu);
	atomic_store(&q->pwait, false);
	atomic_store(&q->flush, false);
	pthread_mutex_unlock(&q->mu);
}

void an_opq_free(struct an_opq *q)
{
	if (q == NULL)
		return;
	if (q->threaded) {
		an_opq_drain(q);
		atomic_store(&q->stop, true);
		wake(q);
		pthread_join(q->tid, NULL);
		pthread_cond_destroy(&q->cv);
		pthread_mutex_destroy(&q->mu);
	}
	free(q->slot);
	free(q->scratch);
	free(q);
}
