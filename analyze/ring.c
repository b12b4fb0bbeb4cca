/*
 * ring.c - a single-producer single-consumer ring of records; see ring.h.
 *
 * Each record is an 8-byte header (its size, header included, a multiple
 * of 8; and whether it is padding) and the caller's bytes.  A record never
 * wraps: when the room left before the end of the buffer is less than a
 * header and rec_max, the producer fills it with a padding record and
 * starts again at the beginning.  The producer owns tail and the bytes in
 * [tail, head + size), the consumer head and the bytes in [head, tail).
 */
#include "analyze/ring.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/threads.h"

struct rec_hdr {
	uint32_t size;
	uint32_t pad;		/* 1: padding to the end of the buffer */
};

#define HDR sizeof(struct rec_hdr)

struct an_ring {
	an_ring_fn fn;
	void *user;
	uint8_t *buf;
	uint64_t size, mask;
	uint64_t need;		/* header + rec_max, rounded up to 8 */
	uint64_t batch;		/* a quarter of the ring: the consumer sleeps
				   until this much is queued, and publishes
				   its progress every quarter of it */
	pthread_t tid;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	_Alignas(64) _Atomic uint64_t head;
	_Atomic bool cwait;		/* consumer asleep or about to be */
	_Alignas(64) _Atomic uint64_t tail;	/* published */
	uint64_t ptail;			/* the producer's: padding included */
	uint64_t publish;		/* publish once this much waits */
	_Atomic bool pwait;		/* producer asleep or about to be */
	_Atomic bool flush;		/* producer waits: consume what there is */
	_Atomic bool kick;		/* consume what there is (an_ring_kick) */
	_Atomic bool stop;
};

static void wake(struct an_ring *r)
{
	pthread_mutex_lock(&r->mu);
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
}

static void *consumer(void *arg)
{
	struct an_ring *r = arg;
	uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
	uint64_t published = head;

	for (;;) {
		uint64_t tail = atomic_load_explicit(&r->tail,
						     memory_order_acquire);

		if (tail == head) {
			if (atomic_load(&r->stop))
				return NULL;
			pthread_mutex_lock(&r->mu);
			atomic_store(&r->cwait, true);
			while (atomic_load(&r->tail) - head < r->batch &&
			       !atomic_load(&r->flush) && !atomic_load(&r->stop) &&
			       !atomic_load(&r->kick))
				pthread_cond_wait(&r->cv, &r->mu);
			atomic_store(&r->cwait, false);
			atomic_store(&r->kick, false);
			pthread_mutex_unlock(&r->mu);
			continue;
		}
		while (head != tail) {
			struct rec_hdr *h = (struct rec_hdr *)
					    (r->buf + (head & r->mask));

			if (!h->pad)
				r->fn(r->user, h + 1);
			head += h->size;
			if (head - published >= r->batch / 4 || head == tail) {
				atomic_store(&r->head, head);
				published = head;
				if (atomic_load(&r->pwait))
					wake(r);
			}
		}
	}
}

struct an_ring *an_ring_new(size_t bytes, size_t rec_max, size_t publish,
			    unsigned min_cpus, an_ring_fn fn, void *user)
{
	struct an_ring *r;
	uint64_t need = (HDR + rec_max + 7) & ~(uint64_t)7, n = 4096;

	if (min_cpus < 2)
		min_cpus = 2;
	if (!base_threads_ok((long)min_cpus))
		return NULL;	/* a thread would only add switches */
	while (n < bytes || n < 4 * need)
		n <<= 1;
	r = calloc(1, sizeof(*r));
	if (r == NULL)
		return NULL;
	r->fn = fn;
	r->user = user;
	r->size = n;
	r->mask = n - 1;
	r->need = need;
	r->batch = n / 4;
	r->publish = publish < r->batch ? publish : r->batch;
	r->buf = malloc(n);
	if (r->buf == NULL)
		goto fail;
	if (pthread_mutex_init(&r->mu, NULL) != 0)
		goto fail;
	if (pthread_cond_init(&r->cv, NULL) != 0) {
		pthread_mutex_destroy(&r->mu);
		goto fail;
	}
	if (pthread_create(&r->tid, NULL, consumer, r) != 0) {
		pthread_cond_destroy(&r->cv);
		pthread_mutex_destroy(&r->mu);
		goto fail;
	}
	return r;
fail:
	free(r->buf);
	free(r);
	return NULL;
}

void an_ring_publish(struct an_ring *r)
{
	uint64_t tail = r->ptail;

	if (tail == atomic_load_explicit(&r->tail, memory_order_relaxed))
		return;
	atomic_store(&r->tail, tail);
	if (atomic_load(&r->cwait) &&
	    tail - atomic_load(&r->head) >= r->batch)
		wake(r);
}

void *an_ring_reserve(struct an_ring *r)
{
	uint64_t tail = r->ptail, off = tail & r->mask, want = r->need;

	/* a record never wraps: pad to the end when it might not fit */
	if (r->size - off < r->need)
		want += r->size - off;
	if (tail + want - atomic_load_explicit(&r->head, memory_order_acquire) >
	    r->size) {
		an_ring_publish(r);	/* what the consumer is to make room with */
		pthread_mutex_lock(&r->mu);
		atomic_store(&r->pwait, true);
		while (tail - atomic_load(&r->head) > r->size / 2)
			pthread_cond_wait(&r->cv, &r->mu);
		atomic_store(&r->pwait, false);
		pthread_mutex_unlock(&r->mu);
	}
	if (r->size - off < r->need) {
		struct rec_hdr *h = (struct rec_hdr *)(r->buf + off);

		h->size = (uint32_t)(r->size - off);
		h->pad = 1;
		r->ptail = tail + h->size;	/* published with the record */
		off = 0;
	}
	return r->buf + off + HDR;
}

void an_ring_commit(struct an_ring *r, size_t size)
{
	struct rec_hdr *h = (struct rec_hdr *)(r->buf + (r->ptail & r->mask));

	h->size = (uint32_t)((HDR + size + 7) & ~(size_t)7);
	h->pad = 0;
	r->ptail += h->size;
	/* the next record's first lines: take them from the consumer's
	   cache now, not when the record is written */
	__builtin_prefetch(r->buf + (r->ptail & r->mask), 1);
	__builtin_prefetch(r->buf + ((r->ptail + 64) & r->mask), 1);
	__builtin_prefetch(r->buf + ((r->ptail + 128) & r->mask), 1);
	__builtin_prefetch(r->buf + ((r->ptail + 192) & r->mask), 1);
	/* each publication costs the consumer's cache its copy of tail */
	if (r->ptail - atomic_load_explicit(&r->tail, memory_order_relaxed) >=
	    r->publish)
		an_ring_publish(r);
}

/* kick then cwait here, cwait then kick in the consumer's wait
 * (sequentially consistent): the consumer sees the kick or is woken; it
 * clears kick before it reads tail, so a kick after its wait is not lost
 * either. */
void an_ring_kick(struct an_ring *r)
{
	an_ring_publish(r);
	atomic_store(&r->kick, true);
	if (atomic_load(&r->cwait))
		wake(r);
}

void an_ring_drain(struct an_ring *r)
{
	uint64_t tail;

	if (r == NULL)
		return;
	an_ring_publish(r);
	tail = atomic_load(&r->tail);
	pthread_mutex_lock(&r->mu);
	atomic_store(&r->flush, true);
	atomic_store(&r->pwait, true);
	pthread_cond_broadcast(&r->cv);
	while (atomic_load(&r->head) != tail)
		pthread_cond_wait(&r->cv, &r->mu);
	atomic_store(&r->pwait, false);
	atomic_store(&r->flush, false);
	pthread_mutex_unlock(&r->mu);
}

void an_ring_free(struct an_ring *r)
{
	if (r == NULL)
		return;
	an_ring_drain(r);
	atomic_store(&r->stop, true);
	wake(r);
	pthread_join(r->tid, NULL);
	pthread_cond_destroy(&r->cv);
	pthread_mutex_destroy(&r->mu);
	free(r->buf);
	free(r);
}
