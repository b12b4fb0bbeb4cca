/*
 * test_ring.c - the record ring (analyze/ring.h): records of every size
 * from 1 byte to rec_max reach the consumer once, in order, with their
 * bytes, 8-byte aligned; records that would cross the end of the buffer
 * are placed at its start; publishing in batches loses nothing and
 * an_ring_drain hands over what waits; a slow consumer
 * fills the ring and the producer waits; an_ring_kick hands over even one
 * small record to a sleeping consumer at once (no drain, no batch), again
 * and again.  The expected values are the
 * test's own sequence numbers and a byte pattern derived from them.
 * With NFSCOPE_THREADS=1 an_ring_new must refuse (the caller works alone).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analyze/ring.h"
#include "tests/lib/check.h"

#define REC_MAX 3000

struct sink {
	_Atomic uint64_t seen;
	uint64_t bad_order, bad_body, misaligned;
	int slow_every;		/* sleep 1 ms every this many records */
};

/* record k: its number, its length, then bytes (k + i) & 0xff */
static size_t rec_len(uint64_t k)
{
	return 16 + (size_t)((k * 2654435761u) % (REC_MAX - 15));
}

static void fill(uint8_t *p, uint64_t k)
{
	size_t n = rec_len(k), i;

	memcpy(p, &k, 8);
	memcpy(p + 8, &n, sizeof(n) < 8 ? sizeof(n) : 8);
	for (i = 16; i < n; i++)
		p[i] = (uint8_t)(k + i);
}

static void on_rec(void *user, void *rec)
{
	struct sink *s = user;
	const uint8_t *p = rec;
	uint64_t k, seen = atomic_load(&s->seen);
	size_t n = 0, i;

	if ((uintptr_t)p % 8 != 0)
		s->misaligned++;
	memcpy(&k, p, 8);
	memcpy(&n, p + 8, sizeof(n) < 8 ? sizeof(n) : 8);
	if (k != seen)
		s->bad_order++;
	if (n != rec_len(k)) {
		s->bad_body++;
	} else {
		for (i = 16; i < n; i++)
			if (p[i] != (uint8_t)(k + i)) {
				s->bad_body++;
				break;
			}
	}
	if (s->slow_every && seen % (uint64_t)s->slow_every == 0) {
		struct timespec ts = { 0, 1000000 };

		nanosleep(&ts, NULL);
	}
	atomic_store(&s->seen, seen + 1);
}

static void run(size_t bytes, size_t publish, int slow_every, uint64_t n)
{
	struct sink s = { .slow_every = slow_every };
	struct an_ring *r = an_ring_new(bytes, REC_MAX, publish, 2, on_rec, &s);
	uint64_t k;

	CHECK(r != NULL);
	if (r == NULL)
		return;
	for (k = 0; k < n; k++) {
		uint8_t *p = an_ring_reserve(r);

		fill(p, k);
		an_ring_commit(r, rec_len(k));
		if (k == n / 2) {
			/* drain mid-way: everything so far, published or
			   waiting in a batch, has been consumed */
			an_ring_drain(r);
			CHECK(atomic_load(&s.seen) == k + 1);
		}
	}
	an_ring_drain(r);
	CHECK(atomic_load(&s.seen) == n);
	CHECK(s.bad_order == 0);
	CHECK(s.bad_body == 0);
	CHECK(s.misaligned == 0);
	an_ring_free(r);
	printf("ring %zu B, publish %zu, slow %d: %llu records\n", bytes,
	       publish, slow_every, (unsigned long long)n);
}

/* One small record at a time, each kicked: the consumer, asleep with
 * nothing near a batch waiting, must take it without a drain (within 10 s;
 * it takes microseconds); 200 times, so a lost wake-up would show. */
static void kick(void)
{
	struct sink s = { 0 };
	struct an_ring *r = an_ring_new(1 << 20, REC_MAX, 16 << 10, 2, on_rec,
					&s);
	uint64_t k, late = 0;

	CHECK(r != NULL);
	if (r == NULL)
		return;
	for (k = 0; k < 200; k++) {
		struct timespec ts = { 0, 200000 };
		int waited = 0;

		fill(an_ring_reserve(r), k);
		an_ring_commit(r, rec_len(k));
		if (k % 2)	/* the consumer asleep, or about to be */
			nanosleep(&ts, NULL);
		an_ring_kick(r);
		while (atomic_load(&s.seen) != k + 1 && waited < 50000) {
			nanosleep(&ts, NULL);
			waited++;
		}
		late += atomic_load(&s.seen) != k + 1;
		if (atomic_load(&s.seen) != k + 1)
			an_ring_drain(r);
	}
	CHECK(late == 0);
	an_ring_free(r);
	printf("kick: 200 single records, %llu not taken without a drain\n",
	       (unsigned long long)late);
}

int main(void)
{
	const char *t = getenv("NFSCOPE_THREADS");

	/* one thread asked for, or one CPU: no ring (the caller's work) */
	if ((t && atoi(t) == 1) || sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		CHECK(an_ring_new(1 << 16, REC_MAX, 0, 2, on_rec, NULL) == NULL);
		return CHECK_SUMMARY();
	}
	run(1 << 16, 0, 0, 200000);		/* wraps ~ 4,500 times */
	run(1 << 16, 1 << 12, 0, 200000);	/* published in batches */
	run(1 << 20, 16 << 10, 0, 200000);	/* as feedq.c */
	run(1 << 14, 1 << 12, 50, 4000);	/* slow: the producer waits */
	kick();
	return CHECK_SUMMARY();
}
