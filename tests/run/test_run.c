/*
 * test_run.c - the run stage's hooks (run/run.h) against the generator's
 * record of what it sent (tests/gen/README.md): every RPC message reaches
 * the msg hook exactly once, every operation the op hook exactly once,
 * each op after the message that completed it, the end hook once and last
 * with counters that agree with what the hooks saw.
 *
 *   test_run CAPTURE TRUTH.json OPS-TRUTH.json MODE
 *
 * MODE: feed (the engine on the second thread), keep (a keep hook: the
 * engine on the capture thread, ops through a queue), signal (SIGINT
 * raised from the msg hook mid-run: the run ends "interrupted", the end
 * hook still once, its counters equal to what the hooks saw).  Run with
 * NFSCOPE_THREADS=1 as well (meson.build).
 */
#include "run/run.h"

#include <inttypes.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIGNAL_AFTER 1000	/* RPC messages before the SIGINT */

struct key {
	uint64_t a, b;		/* message: frame, xid; op: first call, xid */
	uint32_t seen;
};

struct t {
	struct key *msg, *op;
	size_t nmsg, nop;
	const char *mode;
	/* capture thread */
	uint64_t msgs;
	/* analysis thread */
	uint64_t ops;
	atomic_llong max_msg_ns;	/* newest message handed to msg */
	atomic_int ended;
	int ends;
	int fails;
	struct run_end end;		/* copied at the end */
	struct cap_stats cs;
	struct an_stats es;
	char state[16];
};

#define FAIL(t, ...) do { fprintf(stderr, "FAIL: " __VA_ARGS__); \
			  fputc('\n', stderr); (t)->fails++; } while (0)

static int key_cmp(const void *x, const void *y)
{
	const struct key *a = x, *b = y;

	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	return a->b < b->b ? -1 : a->b > b->b;
}

static bool num(const char *line, const char *name, uint64_t *v)
{
	const char *p = strstr(line, name);

	if (p == NULL)
		return false;
	*v = strtoull(p + strlen(name), NULL, 10);
	return true;
}

/* One key per line having both fields (the summary line has neither). */
static size_t load(const char *path, const char *fa, const char *fb,
		   struct key **out)
{
	FILE *f = fopen(path, "r");
	static char line[1 << 16];
	size_t n = 0, cap = 1024;
	struct key *v = malloc(cap * sizeof(*v));

	if (f == NULL || v == NULL) {
		perror(path);
		exit(1);
	}
	while (fgets(line, sizeof(line), f)) {
		struct key k = { 0, 0, 0 };

		if (!num(line, fa, &k.a) || !num(line, fb, &k.b))
			continue;
		if (n == cap && (v = realloc(v, (cap *= 2) * sizeof(*v))) == NULL)
			exit(1);
		v[n++] = k;
	}
	fclose(f);
	qsort(v, n, sizeof(*v), key_cmp);
	*out = v;
	return n;
}

static struct key *find(struct key *v, size_t n, uint64_t a, uint64_t b)
{
	struct key k = { a, b, 0 };

	return bsearch(&k, v, n, sizeof(k), key_cmp);
}

static void on_msg(void *user, const struct cap_msg *m,
		   const struct dec_msg *d)
{
	struct t *t = user;
	struct key *k;

	if (atomic_load(&t->ended))
		FAIL(t, "message after the end");
	if (d == NULL)
		return;
	t->msgs++;
	k = find(t->msg, t->nmsg, m->frame, d->rpc.xid);
	if (k == NULL)
		FAIL(t, "message frame %" PRIu64 " xid %u not sent", m->frame,
		     d->rpc.xid);
	else if (k->seen++)
		FAIL(t, "message frame %" PRIu64 " twice", m->frame);
	if (m->ts_ns > atomic_load(&t->max_msg_ns))
		atomic_store(&t->max_msg_ns, m->ts_ns);
	if (!strcmp(t->mode, "signal") && t->msgs == SIGNAL_AFTER)
		raise(SIGINT);
}

static bool on_keep(void *user, const struct an_op *op)
{
	(void)user;
	(void)op;
	return true;
}

static void on_op(void *user, const struct an_op *op, int32_t rx)
{
	struct t *t = user;
	struct key *k;
	int64_t last = op->reply_ns ? op->reply_ns : op->last_call_ns;

	(void)rx;
	if (atomic_load(&t->ended))
		FAIL(t, "operation after the end");
	t->ops++;
	/* its message (the reply, or the last call) came first */
	if (last > atomic_load(&t->max_msg_ns))
		FAIL(t, "op xid %u before its message", op->xid);
	k = find(t->op, t->nop, (uint64_t)op->first_call_ns, op->xid);
	if (k == NULL)
		FAIL(t, "op xid %u at %" PRId64 " not sent", op->xid,
		     op->first_call_ns);
	else if (k->seen++)
		FAIL(t, "op xid %u twice", op->xid);
}

static void on_tick(void *user, int64_t now_ns)
{
	struct t *t = user;

	(void)now_ns;
	FAIL(t, "a tick reading a file");
}

static void on_end(void *user, const struct run_end *e)
{
	struct t *t = user;

	t->ends++;
	atomic_store(&t->ended, 1);
	t->end = *e;
	t->cs = *e->cs;
	t->es = *e->es;
	snprintf(t->state, sizeof(t->state), "%s", e->state);
}

static size_t unseen(const struct key *v, size_t n)
{
	size_t k, c = 0;

	for (k = 0; k < n; k++)
		c += v[k].seen == 0;
	return c;
}

int main(int argc, char **argv)
{
	struct t t;
	struct run_config c;
	struct run_hooks h = { .user = &t, .msg = on_msg,
			       .tick = on_tick, .end = on_end };
	struct run *r;
	const char *files[1];
	bool sig;
	int rc;

	if (argc != 5) {
		fprintf(stderr, "usage: test_run CAPTURE TRUTH OPS-TRUTH "
			"feed|keep|signal\n");
		return 2;
	}
	memset(&t, 0, sizeof(t));
	t.mode = argv[4];
	sig = !strcmp(t.mode, "signal");
	t.nmsg = load(argv[2], "\"frame\":", "\"xid\":", &t.msg);
	t.nop = load(argv[3], "\"first_call_ns\":", "\"xid\":", &t.op);
	if (t.nmsg < 2 * SIGNAL_AFTER || t.nop == 0) {
		fprintf(stderr, "too little truth: %zu messages, %zu ops\n",
			t.nmsg, t.nop);
		return 1;
	}
	if (!strcmp(t.mode, "keep"))
		h.keep = on_keep;
	run_sinks_add(&h.sinks, &(struct run_sink){ .user = &t, .op = on_op });
	files[0] = argv[1];
	memset(&c, 0, sizeof(c));
	c.who = "test";
	c.files = files;
	c.nfiles = 1;
	c.name = argv[1];
	c.analyze = true;
	if (run_open(&r, &c) < 0 || run_after_open(r) < 0)
		return 1;
	rc = run_go(r, &h);
	run_free(r);
	if (rc != RUN_OK)
		FAIL(&t, "run_go returned %d", rc);
	if (t.ends != 1)
		FAIL(&t, "end hook called %d times", t.ends);
	if (t.ends == 0)
		return 1;
	/* the end's counters are what the hooks saw */
	if (t.end.rpc_msgs != t.msgs)
		FAIL(&t, "end says %" PRIu64 " RPC messages, the hook saw %"
		     PRIu64, t.end.rpc_msgs, t.msgs);
	if (t.es.ops != t.ops)
		FAIL(&t, "end says %" PRIu64 " ops, the hook saw %" PRIu64,
		     t.es.ops, t.ops);
	if (sig) {
		if (strcmp(t.state, "interrupted") != 0)
			FAIL(&t, "state %s after SIGINT", t.state);
		if (t.msgs < SIGNAL_AFTER || t.msgs >= t.nmsg)
			FAIL(&t, "SIGINT after %d messages: %" PRIu64 " of %zu "
			     "read", SIGNAL_AFTER, t.msgs, t.nmsg);
		if (t.ops == 0)
			FAIL(&t, "no op before the SIGINT");
	} else {
		if (strcmp(t.state, "complete") != 0)
			FAIL(&t, "state %s", t.state);
		if (t.msgs != t.nmsg || unseen(t.msg, t.nmsg))
			FAIL(&t, "%" PRIu64 " messages of %zu sent (%zu never)",
			     t.msgs, t.nmsg, unseen(t.msg, t.nmsg));
		if (t.ops != t.nop || unseen(t.op, t.nop))
			FAIL(&t, "%" PRIu64 " ops of %zu sent (%zu never)",
			     t.ops, t.nop, unseen(t.op, t.nop));
	}
	printf("%s: %" PRIu64 " messages, %" PRIu64 " ops of %zu / %zu sent, "
	       "state %s, %d failures\n", t.mode, t.msgs, t.ops, t.nmsg, t.nop,
	       t.state, t.fails);
	free(t.msg);
	free(t.op);
	return t.fails ? 1 : 0;
}
