/*
 * opq.c - ops handed to a second thread through a ring (ring.h); see
 * opq.h.
 */
#include "analyze/opq.h"
#include "analyze/ring.h"

#include <stdlib.h>

struct an_opq {
	an_op_fn fn;
	void *user;
	struct an_ring *ring;		/* NULL: unthreaded */
};

static void on_rec(void *user, void *rec)
{
	struct an_opq *q = user;

	q->fn(q->user, rec);
}

struct an_opq *an_opq_new(unsigned slots, unsigned min_cpus, an_op_fn fn,
			  void *user)
{
	struct an_opq *q = calloc(1, sizeof(*q));

	if (q == NULL)
		return NULL;
	q->fn = fn;
	q->user = user;
	if (slots == 0)
		slots = 1024;
	q->ring = an_ring_new((size_t)slots * sizeof(struct an_op),
			      sizeof(struct an_op), 0, min_cpus, on_rec, q);
	return q;
}

void an_opq_push(void *user, const struct an_op *op)
{
	struct an_opq *q = user;

	if (q->ring == NULL) {
		q->fn(q->user, op);
		return;
	}
	an_op_copy(an_ring_reserve(q->ring), op);
	an_ring_commit(q->ring, sizeof(struct an_op));
}

void an_opq_drain(struct an_opq *q)
{
	if (q != NULL)
		an_ring_drain(q->ring);
}

void an_opq_free(struct an_opq *q)
{
	if (q == NULL)
		return;
	an_ring_free(q->ring);
	free(q);
}
