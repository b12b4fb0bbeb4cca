/*
 * feedq.c - the engine on a second thread; see feedq.h.
 */
#include "analyze/feedq.h"
#include "analyze/ring.h"

#include <stdlib.h>
#include <string.h>

#define FEEDQ_BYTES (1u << 20)
#define FEEDQ_PUBLISH (16u << 10)	/* about 80 messages */
#define FEEDQ_FLUSH 0xff	/* an_msg.type of the flush record */

struct an_feedq {
	struct an_engine *e;
	struct an_ring *ring;	/* NULL: unthreaded */
};

static void on_rec(void *user, void *rec)
{
	struct an_feedq *q = user;
	const struct an_msg *am = rec;

	if (am->type == FEEDQ_FLUSH)
		an_flush(q->e);
	else
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
	an_ring_publish(q->ring);	/* a tick is not to wait for more */
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

void an_feedq_flush(struct an_feedq *q)
{
	if (q->ring == NULL) {
		an_flush(q->e);
		return;
	}
	put_mark(q, FEEDQ_FLUSH, 0);
	an_ring_drain(q->ring);
}
