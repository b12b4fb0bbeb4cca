/*
 * feedq.c - the engine on a second thread; see feedq.h.
 */
#include "analyze/feedq.h"
#include "analyze/ring.h"

#include <assert.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define FEEDQ_BYTES (1u << 20)
#define FEEDQ_PUBLISH (16u << 10)	/* about 80 messages */
#define FEEDQ_FLUSH 0xff	/* an_msg.type of the flush record */
#define FEEDQ_SIDE 0xfe		/* ... and of a side record */

struct an_feedq {
	struct an_engine *e;
	struct an_ring *ring;	/* NULL: unthreaded */
	an_side_fn side;
	void *side_user;
};

/* A side record: the first 8 bytes as an an_msg's size and type, then
 * the caller's bytes. */
struct side_hdr {
	uint32_t size;
	uint8_t type;
	uint8_t pad[3];
	uint32_t len;
	uint32_t pad2;
};
_Static_assert(offsetof(struct an_msg, size) == 0 &&
	       offsetof(struct an_msg, type) == 4, "side_hdr as an_msg");
_Static_assert(sizeof(struct side_hdr) + AN_FEEDQ_SIDE_MAX <= AN_MSG_MAX,
	       "a side record fits a ring record");

static void on_rec(void *user, void *rec)
{
	struct an_feedq *q = user;
	const struct an_msg *am = rec;

	if (am->type == FEEDQ_FLUSH) {
		an_flush(q->e);
	} else if (am->type == FEEDQ_SIDE) {
		const struct side_hdr *h = rec;

		q->side(q->side_user, h + 1, h->len);
	} else
		an_feed_msg(q->e, am);
}

struct an_feedq *an_feedq_new(struct an_engine *e, unsigned min_cpus)
{
	struct an_feedq *q = calloc(1, sizeof(*q));

	if (q == NULL)
		return NULL;
	q->e = e;
	if (min_cpus > 0)
		q->ring = an_ring_new(FEEDQ_BYTES, AN_MSG_MAX, FEEDQ_PUBLISH,
				      min_cpus, on_rec, q);
	return q;
}

void an_feedq_free(struct an_feedq *q)
{
	if (q == NULL)
		return;
	an_ring_free(q->ring);
	free(q);
}

void an_feedq_feed(struct an_feedq *q, const struct cap_msg *m,
		   const struct dec_msg *d)
{
	if (q->ring == NULL) {
		an_feed(q->e, m, d);
		return;
	}
	an_ring_commit(q->ring, an_msg_build(an_ring_reserve(q->ring), m, d));
}

/* A record with only a type and a time. */
static void put_mark(struct an_feedq *q, uint8_t type, int64_t ts_ns)
{
	struct an_msg *am = an_ring_reserve(q->ring);

	memset(am, 0, sizeof(*am));
	am->size = sizeof(*am);
	am->type = type;
	am->ts_ns = ts_ns;
	an_ring_commit(q->ring, am->size);
	an_ring_kick(q->ring);		/* a tick is not to wait for more */
}

void an_feedq_tick(struct an_feedq *q, int64_t now_ns)
{
	if (q->ring == NULL)
		an_tick(q->e, now_ns);
	else
		put_mark(q, AN_MSG_TIME, now_ns);
}

void an_feedq_hidden(struct an_feedq *q, const struct cap_addr *src,
		     const struct cap_addr *dst, int64_t until_ns)
{
	struct an_msg one, *am = q->ring ? an_ring_reserve(q->ring) : &one;

	memset(am, 0, sizeof(*am));
	am->size = sizeof(*am);
	am->type = AN_MSG_HIDDEN;
	am->ts_ns = until_ns;
	am->src = *src;
	am->dst = *dst;
	if (q->ring)
		an_ring_commit(q->ring, am->size);
	else
		an_feed_msg(q->e, am);
}

void an_feedq_sync(struct an_feedq *q)
{
	if (q->ring)
		an_ring_drain(q->ring);
}

void an_feedq_kick(struct an_feedq *q)
{
	if (q->ring)
		an_ring_kick(q->ring);
}

bool an_feedq_threaded(const struct an_feedq *q)
{
	return q->ring != NULL;
}

void an_feedq_set_side(struct an_feedq *q, an_side_fn fn, void *user)
{
	q->side = fn;
	q->side_user = user;
}

void an_feedq_side(struct an_feedq *q, const void *rec, size_t len)
{
	struct side_hdr *h;

	if (q->ring == NULL) {
		q->side(q->side_user, rec, len);
		return;
	}
	assert(len <= AN_FEEDQ_SIDE_MAX);
	h = an_ring_reserve(q->ring);
	h->type = FEEDQ_SIDE;
	h->len = (uint32_t)len;
	memcpy(h + 1, rec, len);
	h->size = (uint32_t)((sizeof(*h) + len + 7) & ~(size_t)7);
	an_ring_commit(q->ring, h->size);
}

void an_feedq_flush(struct an_feedq *q)
{
	if (q->ring == NULL) {
		an_flush(q->e);
		return;
	}
	put_mark(q, FEEDQ_FLUSH, 0);
	an_ring_drain(q->ring);
}
