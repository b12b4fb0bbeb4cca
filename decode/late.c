/*
 * late.c - replies that came before their call, held until it comes.
 *
 * Slots form a FIFO in arrival order (head: oldest); their bytes live in
 * one ring of mem_max bytes allocated at creation, a reply's bytes
 * contiguous (a reply that would straddle the end starts again at 0; the
 * bytes skipped count against the ring until the slot before them goes).
 * Slots and bytes are reclaimed from the head only, so a slot taken out of
 * order (matched) is freed at once but its bytes stay charged until every
 * older slot is gone: the ring never holds more than mem_max, it may hold
 * less than it could.  A chained hash by xid finds the slots a call takes.
 *
 * A slot is WAIT (in the hash), DUE (taken by a call or timed out, queued
 * for dec_late_next) or FREE.  Indices, not pointers; NIL ends a list.
 * No allocation after dec_late_new.
 */
#include "decode/decode_int.h"

#include <stdlib.h>
#include <string.h>

#define NIL UINT32_MAX

enum { SLOT_FREE = 0, SLOT_WAIT, SLOT_DUE };

struct late_slot {
	struct dec_xid_key key;	/* client = the reply's destination */
	struct cap_msg m;	/* m.data points into the ring */
	uint64_t end;		/* ring position after its bytes */
	uint32_t hnext;		/* hash chain (WAIT) */
	uint32_t dnext;		/* due queue (DUE) */
	uint8_t state;
	bool timed_out;		/* DUE because it waited too long */
};

struct dec_late {
	uint32_t nslots, mask;	/* buckets - 1 */
	uint32_t *buckets;
	struct late_slot *slot;
	uint32_t head, count;	/* FIFO of slots: head, number in use */
	uint8_t *ring;
	size_t mem_max;
	uint64_t rhead, rtail;	/* ring: bytes [rhead, rtail) in use */
	uint32_t due_head, due_tail;
	int64_t hold_ns;
};

struct dec_late *
dec_late_new(uint32_t nslots, size_t mem_max, int64_t hold_ns)
{
	struct dec_late *l;
	uint32_t nb = 16, i;

	if (nslots == 0)
		nslots = 1;
	while (nb < nslots)
		nb <<= 1;
	l = calloc(1, sizeof(*l));
	if (l == NULL)
		return NULL;
	l->buckets = malloc((size_t)nb * sizeof(*l->buckets));
	l->slot = calloc(nslots, sizeof(*l->slot));
	l->ring = mem_max ? malloc(mem_max) : NULL;
	if (l->buckets == NULL || l->slot == NULL ||
	    (mem_max && l->ring == NULL)) {
		dec_late_free(l);
		return NULL;
	}
	for (i = 0; i < nb; i++)
		l->buckets[i] = NIL;
	l->nslots = nslots;
	l->mask = nb - 1;
	l->mem_max = mem_max;
	l->hold_ns = hold_ns;
	l->due_head = l->due_tail = NIL;
	return l;
}

void
dec_late_free(struct dec_late *l)
{
	if (l == NULL)
		return;
	free(l->buckets);
	free(l->slot);
	free(l->ring);
	free(l);
}

uint32_t
dec_late_waiting(const struct dec_late *l)
{
	return l->count;
}

int64_t
dec_late_oldest_ns(const struct dec_late *l)
{
	uint32_t k;

	for (k = 0; k < l->count; k++) {	/* arrival order */
		const struct late_slot *s = &l->slot[(l->head + k) % l->nslots];

		if (s->state != SLOT_FREE)
			return s->m.ts_ns;
	}
	return 0;
}

static uint32_t
late_bucket(const struct dec_late *l, uint32_t xid)
{
	return (uint32_t)((xid * 0x9e3779b1u) >> 7) & l->mask;
}

/* Give back slots and bytes from the head while the head is free. */
static void
late_reclaim(struct dec_late *l)
{
	while (l->count > 0 && l->slot[l->head].state == SLOT_FREE) {
		l->rhead = l->slot[l->head].end;
		l->head = (l->head + 1) % l->nslots;
		l->count--;
	}
	if (l->count == 0)
		l->rhead = l->rtail;
}

/*
 * Ring position for n bytes, or false if they do not fit now.  Positions
 * grow without bound; pos % mem_max is the offset.  A reply that would
 * straddle the end starts at the next multiple of mem_max.
 */
static bool
late_alloc(struct dec_late *l, uint32_t n, uint64_t *pos)
{
	uint64_t p = l->rtail, off;

	if (n > l->mem_max)
		return false;
	off = p % l->mem_max;
	if (n > l->mem_max - off)
		p += l->mem_max - off;
	if (p + n - l->rhead > l->mem_max)
		return false;
	*pos = p;
	return true;
}

bool
dec_late_hold(struct dec_late *l, const struct dec_xid_key *k,
	      const struct cap_msg *m)
{
	uint32_t cap = m->caplen <= m->len ? m->caplen : m->len;
	uint32_t i, b;
	struct late_slot *s;
	uint64_t pos = 0;

	late_reclaim(l);
	if (l->count == l->nslots || (cap && !late_alloc(l, cap, &pos)))
		return false;
	if (cap == 0)
		pos = l->rtail;
	i = (l->head + l->count) % l->nslots;
	s = &l->slot[i];
	s->key = *k;
	s->m = *m;
	s->m.caplen = cap;
	s->m.data = cap ? l->ring + pos % l->mem_max : NULL;
	if (cap)
		memcpy(l->ring + pos % l->mem_max, m->data, cap);
	s->end = pos + cap;
	l->rtail = s->end;
	s->state = SLOT_WAIT;
	s->timed_out = false;
	b = late_bucket(l, k->xid);
	s->hnext = l->buckets[b];
	l->buckets[b] = i;
	l->count++;
	return true;
}

static void
late_hash_unlink(struct dec_late *l, uint32_t i)
{
	uint32_t *pp = &l->buckets[late_bucket(l, l->slot[i].key.xid)];

	while (*pp != NIL && *pp != i)
		pp = &l->slot[*pp].hnext;
	if (*pp == i)
		*pp = l->slot[i].hnext;
}

/* Out of the hash, onto the due queue. */
static void
late_make_due(struct dec_late *l, uint32_t i, bool timed_out)
{
	struct late_slot *s = &l->slot[i];

	late_hash_unlink(l, i);
	s->state = SLOT_DUE;
	s->timed_out = timed_out;
	s->dnext = NIL;
	if (l->due_tail != NIL)
		l->slot[l->due_tail].dnext = i;
	else
		l->due_head = i;
	l->due_tail = i;
}

/* FIFO position of slot i (0: the oldest). */
static uint32_t
late_age_rank(const struct dec_late *l, uint32_t i)
{
	return (i + l->nslots - l->head) % l->nslots;
}

uint32_t
dec_late_take(struct dec_late *l, const struct dec_xid_key *k,
	      int64_t call_ts_ns, int64_t skew_ns)
{
	uint32_t taken = 0;

	if (l->count == 0)
		return 0;
	for (;;) {
		uint32_t i, best = NIL;

		/* oldest first: a duplicate reply comes after the answer */
		for (i = l->buckets[late_bucket(l, k->xid)]; i != NIL;
		     i = l->slot[i].hnext) {
			const struct late_slot *s = &l->slot[i];

			if (s->key.xid != k->xid ||
			    s->key.client_port != k->client_port ||
			    s->key.server_port != k->server_port ||
			    !cap_addr_eq(&s->key.client, &k->client) ||
			    !cap_addr_eq(&s->key.server, &k->server) ||
			    (call_ts_ns > s->m.ts_ns &&
			     call_ts_ns - s->m.ts_ns > skew_ns))
				continue;
			if (best == NIL ||
			    late_age_rank(l, i) < late_age_rank(l, best))
				best = i;
		}
		if (best == NIL)
			return taken;
		late_make_due(l, best, false);
		taken++;
	}
}

uint32_t
dec_late_expire(struct dec_late *l, int64_t now_ns, bool all)
{
	uint32_t n = 0, k;

	late_reclaim(l);
	for (k = 0; k < l->count; k++) {
		uint32_t i = (l->head + k) % l->nslots;
		struct late_slot *s = &l->slot[i];

		if (s->state != SLOT_WAIT)
			continue;
		if (!all && now_ns - s->m.ts_ns <= l->hold_ns)
			break;	/* arrival order: the rest are younger */
		late_make_due(l, i, true);
		n++;
	}
	return n;
}

const struct cap_msg *
dec_late_next(struct dec_late *l, struct dec_xid_key *k, bool *timed_out)
{
	uint32_t i = l->due_head;
	struct late_slot *s;

	if (i == NIL)
		return NULL;
	s = &l->slot[i];
	l->due_head = s->dnext;
	if (l->due_head == NIL)
		l->due_tail = NIL;
	/* freed now, its bytes reclaimed only by a later hold: they stay
	   valid until then */
	s->state = SLOT_FREE;
	*k = s->key;
	*timed_out = s->timed_out;
	return &s->m;
}
