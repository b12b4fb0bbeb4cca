/*
 * test_opq.c - the op queue (analyze/opq.h) and an_op_copy: every op
 * pushed reaches the consumer once, in order, with its fields, handles and
 * strings intact; drain waits for all of them; a slow consumer fills the
 * ring and the producer waits without losing any.  The expected values
 * are the test's own sequence numbers.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "analyze/opq.h"
#include "tests/lib/check.h"


struct sink {
	uint64_t seen, bad_order, bad_body;
	int slow_every;		/* sleep 1 ms every this many ops (0: never) */
};

/* The op numbered k, as the producer builds it. */
static void fill(struct an_op *o, uint64_t k)
{
	memset(o, 0xa5, sizeof(*o));	/* garbage beyond the used bytes */
	o->call_frame = k;
	o->xid = (uint32_t)(k * 2654435761u);
	o->have = AN_HAVE_FH | AN_HAVE_CRED;
	o->fh.len = (uint32_t)(k % (NFS_FHSIZE_MAX + 1));
	memset(o->fh.data, (int)(k & 0xff), o->fh.len);
	o->rfh.len = 0;
	snprintf(o->machine, sizeof(o->machine), "client%llu",
		 (unsigned long long)k);
	if (k % 3 == 0) {
		o->have |= AN_HAVE_NAME;
		snprintf(o->name, sizeof(o->name), "file-%llu",
			 (unsigned long long)k);
	} else {
		o->name[0] = '\0';
	}
	snprintf(o->path, sizeof(o->path), "/export/d%llu",
		 (unsigned long long)(k % 97));
}

static bool body_ok(const struct an_op *o, uint64_t k)
{
	char buf[64];
	uint32_t i;

	if (o->xid != (uint32_t)(k * 2654435761u) ||
	    o->fh.len != k % (NFS_FHSIZE_MAX + 1) || o->rfh.len != 0)
		return false;
	for (i = 0; i < o->fh.len; i++)
		if (o->fh.data[i] != (uint8_t)(k & 0xff))
			return false;
	snprintf(buf, sizeof(buf), "client%llu", (unsigned long long)k);
	if (strcmp(o->machine, buf) != 0)
		return false;
	if (k % 3 == 0) {
		snprintf(buf, sizeof(buf), "file-%llu", (unsigned long long)k);
		if (strcmp(o->name, buf) != 0)
			return false;
	} else if (o->name[0] != '\0') {
		return false;
	}
	snprintf(buf, sizeof(buf), "/export/d%llu",
		 (unsigned long long)(k % 97));
	return strcmp(o->path, buf) == 0;
}

static void consume(void *user, const struct an_op *o)
{
	struct sink *s = user;

	if (o->call_frame != s->seen)
		s->bad_order++;
	if (!body_ok(o, o->call_frame))
		s->bad_body++;
	s->seen++;
	if (s->slow_every && s->seen % (uint64_t)s->slow_every == 0) {
		struct timespec ts = { 0, 1000000 };

		nanosleep(&ts, NULL);
	}
}

static void run(unsigned slots, uint64_t n, int slow_every)
{
	struct sink s = { .slow_every = slow_every };
	struct an_opq *q = an_opq_new(slots, 2, consume, &s);
	struct an_op op;
	uint64_t k;

	CHECK(q != NULL);
	if (q == NULL)
		return;
	for (k = 0; k < n; k++) {
		fill(&op, k);
		an_opq_push(q, &op);
		if (k == n / 2) {
			an_opq_drain(q);
			CHECK(s.seen == n / 2 + 1);	/* drain: all so far */
		}
	}
	an_opq_drain(q);
	CHECK(s.seen == n);
	CHECK(s.bad_order == 0);
	CHECK(s.bad_body == 0);
	an_opq_free(q);
	CHECK(s.seen == n);
}

static void test_copy(void)
{
	struct an_op a, b;

	fill(&a, 300);
	memset(&b, 0x5a, sizeof(b));
	an_op_copy(&b, &a);
	CHECK(body_ok(&b, 300));
	CHECK(b.call_frame == 300);
	/* a handle or string whose have bit is clear comes out empty */
	a.have &= ~(AN_HAVE_FH | AN_HAVE_CRED);
	memset(&b, 0x5a, sizeof(b));
	an_op_copy(&b, &a);
	CHECK(b.fh.len == 0 && b.machine[0] == '\0' && b.rfh.len == 0);
	CHECK(strcmp(b.name, "file-300") == 0);
}

int main(void)
{
	test_copy();
	run(0, 200000, 0);		/* default ring, fast consumer */
	run(128, 20000, 0);		/* small ring */
	run(128, 3000, 50);		/* slow consumer: the ring fills */
	run(1024, 5, 0);		/* fewer ops than a batch */
	run(1024, 0, 0);		/* none */
	return CHECK_SUMMARY();
}
