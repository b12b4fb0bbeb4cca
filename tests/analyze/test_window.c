/*
 * test_window.c - the dashboard's history (analyze/window.h) on hand-built
 * operations: a record carries what the op had (READ size and data,
 * latency, error, retransmits), the ring keeps exactly the newest N, the
 * window ends at the delivered data and starts no earlier than the first
 * message (so rates are over the span that holds data), its buckets are
 * whole seconds on an_bucket_start's boundaries, a scan visits the
 * window's records newest first (in chunks, and says when appends between
 * them overwrote its place), counters are read at
 * second ends, and a lost fragment train counts in the second it began.
 */
#include "analyze/window.h"
#include "tests/lib/check.h"

#include <string.h>

#define S 1000000000LL
#define T0 (1700000000LL * S)

static struct an_op op_at(int64_t t, uint32_t proc, int64_t lat)
{
	struct an_op o;

	memset(&o, 0, sizeof(o));
	o.prog = PROG_NFS;
	o.vers = 3;
	o.proc = proc;
	o.first_call_ns = o.last_call_ns = t;
	o.lat_first_ns = o.lat_last_ns = -1;
	if (lat >= 0) {
		o.flags |= AN_OP_ANSWERED;
		o.reply_ns = t + lat;
		o.lat_first_ns = o.lat_last_ns = lat;
		o.reply_stat = RPC_MSG_ACCEPTED;
		o.accept_stat = RPC_SUCCESS;
		o.have |= AN_HAVE_STATUS;
	}
	return o;
}

static void records(void)
{
	struct an_op o = op_at(T0, NFS3_READ, 2000000);
	struct an_win_rec r;
	struct an_opsum x;

	o.have |= AN_HAVE_COUNT | AN_HAVE_RCOUNT;
	o.count = 32768;
	o.rcount = 32768;
	o.retrans = 70000;	/* saturates */
	r = an_win_rec_of(&o, 3, 4, 5, 6, 2);
	CHECK(r.ts_ns == T0 && r.lat_ns == 2000000);
	CHECK(r.size == 32768 && r.data == 32768);
	CHECK(r.client == 3 && r.server == 4 && r.path == 5 && r.proc == 6);
	CHECK(r.flags == (AN_WR_ANSWERED | AN_WR_READ));
	CHECK(r.retrans == 0xffff && r.cause == 2);
	x = an_win_opsum(&r);
	CHECK(x.answered && !x.error && x.lat_ns == 2000000 && x.data == 32768);
	/* an error moves no data; unanswered: no latency */
	o.status = 13;
	r = an_win_rec_of(&o, 1, 1, 0, 1, 0);
	CHECK(r.flags == (AN_WR_ANSWERED | AN_WR_READ | AN_WR_ERR));
	CHECK(r.data == 0);
	o = op_at(T0, NFS3_COMMIT, -1);
	r = an_win_rec_of(&o, 1, 1, 0, 1, 0);
	CHECK(r.flags == AN_WR_COMMIT && r.lat_ns == -1 && r.cause == 0);
	x = an_win_opsum(&r);
	CHECK(!x.answered);
}

static void ring(void)
{
	struct an_window w;
	struct an_win_rec r;
	uint64_t k;

	CHECK(an_window_init(&w, 1000) == 0);
	memset(&r, 0, sizeof(r));
	for (k = 0; k < 2500; k++) {
		r.ts_ns = T0 + (int64_t)k;
		an_window_add(&w, &r);
	}
	CHECK(w.n == 2500 && w.cap == 1000);
	/* exactly the newest 1000: 1500 .. 2499 */
	for (k = w.n - w.cap; k < w.n; k++)
		CHECK(w.ring[k % w.cap].ts_ns == T0 + (int64_t)k);
	an_window_fini(&w);
	CHECK(w.ring == NULL);
}

static uint64_t visited;
static int64_t last_ts;
static bool newest_first;

static void visit(void *user, const struct an_win_rec *r)
{
	(void)user;
	if (visited && r->ts_ns >= last_ts)
		newest_first = false;
	last_ts = r->ts_ns;
	visited++;
}

/* 3000 records one a second from T0 in a ring of 2000. */
static void fill(struct an_window *w, uint64_t from, uint64_t to)
{
	struct an_win_rec r;
	uint64_t k;

	memset(&r, 0, sizeof(r));
	for (k = from; k < to; k++) {
		r.ts_ns = T0 + (int64_t)k * S;
		an_window_add(w, &r);
	}
}

static void scans(void)
{
	static struct an_window w;
	uint64_t pos;

	CHECK(an_window_init(&w, 2000) == 0);
	fill(&w, 0, 3000);
	/* [T0 + 2500 s, T0 + 2600 s): 100 records, newest first */
	visited = 0;
	newest_first = true;
	pos = w.n;
	CHECK(an_window_scan(&w, T0 + 2500 * S, T0 + 2600 * S, &pos, 1000000,
			     visit, NULL) == AN_SCAN_DONE);
	CHECK(visited == 100 && newest_first);
	CHECK(!an_window_cut(&w, T0 + 2500 * S));
	/* everything kept, in chunks of 300: exactly the newest 2000 */
	CHECK(an_window_cut(&w, T0));
	visited = 0;
	pos = w.n;
	while (an_window_scan(&w, T0, T0 + 4000 * S, &pos, 300, visit,
			      NULL) == AN_SCAN_MORE)
		;
	CHECK(visited == 2000);
	/* appends between the chunks overwrite where the scan was: cut */
	visited = 0;
	pos = w.n;
	CHECK(an_window_scan(&w, T0, T0 + 4000 * S, &pos, 1500, visit,
			     NULL) == AN_SCAN_MORE);
	fill(&w, 3000, 4600);
	CHECK(an_window_scan(&w, T0, T0 + 4000 * S, &pos, 1500, visit,
			     NULL) == AN_SCAN_CUT);
	CHECK(visited == 1500);
	an_window_fini(&w);
}

static void spans(void)
{
	int64_t from, to, width, base;
	uint32_t n;

	/* done: the window "all" is the whole capture, to its last time */
	an_window_span(T0, T0 + 33 * S, true, 0, 0, &from, &to);
	CHECK(from == T0 && to == T0 + 33 * S + 1);
	/* a 1 min window over 33 s of data holds the data's span only */
	an_window_span(T0, T0 + 33 * S, true, 60 * S, 0, &from, &to);
	CHECK(from == T0 && to == T0 + 33 * S + 1);
	CHECK(an_rate(3370, from, to) > 102.1 && an_rate(3370, from, to) < 102.2);
	/* running: ends the keep window before the clock */
	an_window_span(T0, T0 + 100 * S, false, 10 * S, 0, &from, &to);
	CHECK(to == T0 + 100 * S - AN_ANSWERED_KEEP_NS && from == to - 10 * S);
	/* moved back: ends where asked, not before the first message */
	an_window_span(T0, T0 + 100 * S, false, 10 * S, T0 + 5 * S, &from, &to);
	CHECK(from == T0 && to == T0 + 5 * S);
	an_window_span(T0, T0 + 100 * S, false, 10 * S, T0 - S, &from, &to);
	CHECK(from == T0 && to == T0);
	/* 33.5 s in 60 columns: 1 s buckets from the whole second */
	an_window_buckets(T0 + S / 2, T0 + 34 * S, 60, &width, &base, &n);
	CHECK(width == S && base == T0 && n == 34);
	/* 600 s in 60 columns: 10 s buckets; starting at +5 s they take
	   61 columns on multiples of 10 s, so the buckets widen to 11 s */
	an_window_buckets(T0, T0 + 600 * S, 60, &width, &base, &n);
	CHECK(width == 10 * S && base == T0 && n == 60);
	CHECK(an_window_bucket(T0 + 15 * S, width, base, n) == 1);
	CHECK(an_window_bucket(T0 + 9000 * S, width, base, n) == 59);
	an_window_buckets(T0 + 5 * S, T0 + 605 * S, 60, &width, &base, &n);
	CHECK(width == 11 * S && base == an_bucket_start(T0 + 5 * S, 11 * S));
	CHECK(n <= 60 && base + (int64_t)n * width >= T0 + 605 * S);
	CHECK(an_window_bucket(T0 - S, width, base, n) == 0);
}

static void ticks(void)
{
	static struct an_window w;
	struct cap_stats cs;

	CHECK(an_window_init(&w, 10) == 0);
	memset(&cs, 0, sizeof(cs));
	cs.packets = 10;
	an_window_tick(&w, T0 + S / 2, &cs);
	cs.packets = 25;
	an_window_tick(&w, T0 + S - 1, &cs);	/* same second: replaced */
	cs.packets = 40;
	an_window_tick(&w, T0 + 2 * S, &cs);
	CHECK(w.nticks == 2);
	CHECK(an_window_tick_at(&w, T0, false)->packets == 0);
	CHECK(an_window_tick_at(&w, T0, true)->packets == 25);
	CHECK(an_window_tick_at(&w, T0 + S, true)->packets == 25);
	CHECK(an_window_tick_at(&w, T0 + 2 * S, true)->packets == 40);
	/* a train lost at its timeout counts in the second it began */
	an_window_frag_lost(&w, T0 + S / 3);
	an_window_frag_lost(&w, T0 + S / 2);
	an_window_frag_lost(&w, T0 + 2 * S);
	CHECK(w.timed_lost);
	CHECK(w.lost[(T0 / S) % AN_WIN_TICKS].sec == T0 / S);
	CHECK(w.lost[(T0 / S) % AN_WIN_TICKS].n == 2);
	CHECK(w.lost[(T0 / S + 2) % AN_WIN_TICKS].n == 1);
	an_window_fini(&w);
}

int main(void)
{
	records();
	ring();
	scans();
	spans();
	ticks();
	return CHECK_SUMMARY();
}
