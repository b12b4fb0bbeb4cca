/*
 * test_tcp.c - TCP reassembly and RPC record marking (capture/tcp.c),
 * driven with hand-built Ethernet/IPv4/TCP frames.  Checksums are not
 * filled in (nothing checks them).  Exact messages and counters asserted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/capture.h"

#include "tests/lib/check.h"

/* ---- collected messages ---- */

#define MSG_MAX 64

struct got {
	struct cap_msg m;	/* data points into bytes */
	uint8_t *bytes;		/* owned copy */
};

struct sink {
	int n;
	struct got g[MSG_MAX];
};

static void on_msg(void *user, const struct cap_msg *m)
{
	struct sink *s = user;
	struct got *g;

	if (s->n == MSG_MAX)
		return;
	g = &s->g[s->n++];
	g->m = *m;
	g->bytes = malloc(m->caplen ? m->caplen : 1);
	memcpy(g->bytes, m->data, m->caplen);
	g->m.data = g->bytes;
}

static void sink_clear(struct sink *s)
{
	int i;

	for (i = 0; i < s->n; i++)
		free(s->g[i].bytes);
	s->n = 0;
}

/* The probe from the brief: msg_type 0 or 1, calls have rpcvers 2. */
static bool probe(void *user, const struct cap_msg *m)
{
	const uint8_t *p = m->data;
	size_t caplen = m->caplen;

	(void)user;
	if (caplen < 12)
		return false;
	if (p[4] || p[5] || p[6] || p[7] > 1)
		return false;
	if (p[7] == 1)
		return true;
	return !p[8] && !p[9] && !p[10] && p[11] == 2;
}

/* ---- frame building ---- */

static const uint8_t ip_a[4] = { 10, 0, 0, 1 }, ip_b[4] = { 10, 0, 0, 2 };

#define TH_FIN 0x01
#define TH_SYN 0x02
#define TH_RST 0x04
#define TH_ACK 0x10

struct env {
	struct cap_pipe *pipe;
	struct sink sink;
	int64_t ts;
	uint32_t ack;	/* the next segment's acknowledgment number */
};

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v & 0xffff);
}

/* Feed one Ethernet/IPv4/TCP frame from a to b (dir 0) or b to a (dir 1);
 * only caplen_pay of the payload is "captured" (-1: all). */
static void seg(struct env *e, int dir, uint32_t seq, uint8_t flags,
		const uint8_t *pay, uint32_t plen, int caplen_pay)
{
	static uint8_t f[70000];
	struct cap_pkt pkt;
	uint32_t hl = 14 + 20 + 20;

	memset(f, 0, hl);
	put16(f + 12, 0x0800);
	f[14] = 0x45;
	put16(f + 16, 40 + plen);
	f[14 + 8] = 64;
	f[14 + 9] = 6;
	memcpy(f + 26, dir ? ip_b : ip_a, 4);
	memcpy(f + 30, dir ? ip_a : ip_b, 4);
	put16(f + 34, dir ? 2049 : 800);
	put16(f + 36, dir ? 800 : 2049);
	put32(f + 38, seq);
	put32(f + 42, e->ack);
	f[46] = 5 << 4;
	f[47] = flags | TH_ACK;
	if (plen)
		memcpy(f + hl, pay, plen);
	pkt.linktype = 1;
	pkt.ts_ns = e->ts;
	e->ts += 1000000;	/* 1 ms apart */
	pkt.len = hl + plen;
	pkt.caplen = caplen_pay < 0 ? pkt.len : hl + (uint32_t)caplen_pay;
	pkt.data = f;
	cap_pipe_feed(e->pipe, &pkt);
}

static void env_init(struct env *e, const struct cap_config *cfg0)
{
	struct cap_config cfg;

	if (cfg0)
		cfg = *cfg0;
	else
		memset(&cfg, 0, sizeof(cfg));
	if (!cfg.probe)
		cfg.probe = probe;
	memset(e, 0, sizeof(*e));
	e->ts = 1000000000000LL;
	e->pipe = cap_pipe_new(&cfg, on_msg, &e->sink);
}

static void env_fini(struct env *e)
{
	sink_clear(&e->sink);
	cap_pipe_free(e->pipe);
}

/* An RPC message of n bytes (n >= 12): xid, call/reply, rpcvers 2, then
 * bytes xid+i so every message is distinct. */
static void rpc_msg(uint8_t *b, uint32_t n, uint32_t xid, int reply)
{
	uint32_t i;

	put32(b, xid);
	put32(b + 4, reply ? 1 : 0);
	put32(b + 8, 2);
	for (i = 12; i < n; i++)
		b[i] = (uint8_t)(0xa0 + ((xid + i) % 16));
}

/* Record: mark + message.  Returns bytes written. */
static uint32_t record(uint8_t *b, uint32_t n, uint32_t xid)
{
	put32(b, 0x80000000u | n);
	rpc_msg(b + 4, n, xid, 0);
	return n + 4;
}

static bool msg_is(const struct got *g, uint32_t n, uint32_t xid,
		   uint32_t caplen, uint32_t flags)
{
	uint8_t want[4096];

	if (n > sizeof(want) || g->m.len != n || g->m.caplen != caplen ||
	    g->m.flags != flags)
		return false;
	rpc_msg(want, n, xid, 0);
	return memcmp(g->m.data, want, caplen) == 0;
}

/* ---- tests ---- */

static void test_single_and_multi(void)
{
	struct env e;
	uint8_t b[4096];
	uint32_t n = 0;
	const struct cap_stats *st;

	env_init(&e, NULL);
	/* three records in one segment, mid-connection */
	n += record(b + n, 100, 1);
	n += record(b + n, 40, 2);
	n += record(b + n, 200, 3);
	seg(&e, 0, 5000, 0, b, n, -1);
	st = cap_pipe_stats(e.pipe);
	CHECK(e.sink.n == 3);
	CHECK(msg_is(&e.sink.g[0], 100, 1, 100, 0));
	CHECK(msg_is(&e.sink.g[1], 40, 2, 40, 0));
	CHECK(msg_is(&e.sink.g[2], 200, 3, 200, 0));
	CHECK(e.sink.g[2].m.frame == 1 && e.sink.g[2].m.first_frame == 1);
	CHECK(e.sink.g[0].m.sport == 800 && e.sink.g[0].m.dport == 2049);
	CHECK(e.sink.g[0].m.transport == CAP_TCP);
	CHECK(st->flows == 1 && st->tcp_msgs == 3 && st->tcp_segments == 1);
	env_fini(&e);
}

static void test_spanning(void)
{
	struct env e;
	uint8_t b[4096];
	uint32_t n;
	const struct cap_stats *st;

	env_init(&e, NULL);
	seg(&e, 0, 999, TH_SYN, NULL, 0, -1);
	n = record(b, 3000, 7);
	seg(&e, 0, 1000, 0, b, 1000, -1);
	seg(&e, 0, 2000, 0, b + 1000, 1000, -1);
	CHECK(e.sink.n == 0);
	seg(&e, 0, 3000, 0, b + 2000, n - 2000, -1);
	st = cap_pipe_stats(e.pipe);
	CHECK(e.sink.n == 1);
	CHECK(msg_is(&e.sink.g[0], 3000, 7, 3000, 0));
	CHECK(e.sink.g[0].m.first_frame == 2 && e.sink.g[0].m.frame == 4);
	CHECK(e.sink.g[0].m.ts_ns - e.sink.g[0].m.first_ts_ns == 2000000);
	CHECK(st->flows == 1 && st->tcp_segments == 3 && st->tcp_not_rpc == 0);
	env_fini(&e);
}

static void test_multifrag(void)
{
	struct env e;
	uint8_t msg[900], b[1000];
	uint32_t n = 0;

	env_init(&e, NULL);
	rpc_msg(msg, 900, 9, 0);
	/* fragments of 300, 500, 100 bytes; the first segment ends inside
	 * the second fragment */
	put32(b + n, 300);
	memcpy(b + n + 4, msg, 300);
	n += 304;
	put32(b + n, 500);
	memcpy(b + n + 4, msg + 300, 500);
	n += 504;
	put32(b + n, 0x80000000u | 100);
	memcpy(b + n + 4, msg + 800, 100);
	n += 104;
	seg(&e, 0, 1, 0, b, 400, -1);
	seg(&e, 0, 401, 0, b + 400, n - 400, -1);
	CHECK(e.sink.n == 1);
	CHECK(msg_is(&e.sink.g[0], 900, 9, 900, CAP_MSG_MULTIFRAG));
	CHECK(e.sink.g[0].m.first_frame == 1 && e.sink.g[0].m.frame == 2);
	env_fini(&e);
}

/* A mark split after k bytes (k = 0..3) across two segments. */
static void test_split_mark(void)
{
	uint32_t k;

	for (k = 0; k < 4; k++) {
		struct env e;
		uint8_t b[512];
		uint32_t n = 0, cut;

		env_init(&e, NULL);
		n += record(b, 60, 1);
		cut = n + k;
		n += record(b + n, 80, 2);
		seg(&e, 0, 100, 0, b, cut, -1);
		seg(&e, 0, 100 + cut, 0, b + cut, n - cut, -1);
		CHECK(e.sink.n == 2);
		CHECK(msg_is(&e.sink.g[0], 60, 1, 60, 0));
		CHECK(e.sink.n == 2 && msg_is(&e.sink.g[1], 80, 2, 80, 0));
		CHECK(e.sink.n == 2 && e.sink.g[1].m.first_frame ==
		      (k ? 1u : 2u) && e.sink.g[1].m.frame == 2);
		env_fini(&e);
	}
}

static void test_ooo_and_retrans(void)
{
	struct env e;
	uint8_t b[4096];
	uint32_t n = 0;
	const struct cap_stats *st;

	env_init(&e, NULL);
	n += record(b, 1496, 1);	/* 1500 bytes */
	n += record(b + n, 96, 2);	/* 100 */
	seg(&e, 0, 10000, 0, b, 600, -1);		/* 1 */
	seg(&e, 0, 11200, 0, b + 1200, n - 1200, -1);	/* 3, early */
	CHECK(e.sink.n == 0);
	seg(&e, 0, 10600, 0, b + 600, 600, -1);		/* 2 */
	st = cap_pipe_stats(e.pipe);
	CHECK(e.sink.n == 2);
	CHECK(msg_is(&e.sink.g[0], 1496, 1, 1496, 0));
	CHECK(e.sink.n == 2 && msg_is(&e.sink.g[1], 96, 2, 96, 0));
	CHECK(e.sink.g[0].m.frame == 3 && e.sink.g[0].m.first_frame == 1);
	/* both complete when frame 3 fills the hole before them */
	CHECK(e.sink.g[1].m.frame == 3 && e.sink.g[1].m.first_frame == 2);
	CHECK(st->tcp_ooo == 1 && st->tcp_retrans == 0 && st->tcp_gaps == 0);
	/* wholly old: counted, ignored */
	seg(&e, 0, 10600, 0, b + 600, 600, -1);
	CHECK(st->tcp_retrans == 1 && e.sink.n == 2);
	/* partly old: a segment repeating the last 50 bytes + a new record */
	n = 0;
	memcpy(b, b + 1550, 50);
	n = 50 + record(b + 50, 30, 3);
	seg(&e, 0, 11550, 0, b, n, -1);
	CHECK(e.sink.n == 3 && msg_is(&e.sink.g[2], 30, 3, 30, 0));
	CHECK(st->tcp_retrans == 1);
	cap_pipe_flush(e.pipe);
	CHECK(st->tcp_gaps == 0);
	env_fini(&e);
}

/* Lost segment inside a record body of known length: the record comes
 * out with CAP_MSG_HOLE, the next one normally. */
static void test_hole_in_body(void)
{
	struct env e;
	uint8_t b[4096];
	uint32_t n = 0;
	const struct cap_stats *st;

	env_init(&e, NULL);
	n += record(b, 996, 1);		/* 1000 */
	n += record(b + n, 96, 2);	/* 100 */
	seg(&e, 0, 1, 0, b, 400, -1);
	/* bytes 400..799 lost */
	seg(&e, 0, 801, 0, b + 800, n - 800, -1);
	CHECK(e.sink.n == 0);
	cap_pipe_flush(e.pipe);
	st = cap_pipe_stats(e.pipe);
	CHECK(e.sink.n == 2);
	CHECK(msg_is(&e.sink.g[0], 996, 1, 396, CAP_MSG_HOLE));
	CHECK(e.sink.n == 2 && msg_is(&e.sink.g[1], 96, 2, 96, 0));
	CHECK(st->tcp_gaps == 1 && st->tcp_gap_bytes == 400);
	CHECK(st->tcp_resyncs == 0 && st->tcp_ooo == 1);
	/* no ACK said the receiver had the hole: not the capture's miss */
	CHECK(st->tcp_gaps_missed == 0 && st->tcp_gap_missed_bytes == 0);
	env_fini(&e);
}

/* The receiver acknowledges past a hole: it got those bytes, the capture
 * did not (tcp_gaps_missed); a hole the sender fills again is neither. */
static void test_hole_missed(void)
{
	struct env e;
	uint8_t b[4096];
	uint32_t n = 0;
	const struct cap_stats *st;

	env_init(&e, NULL);
	n += record(b, 996, 1);		/* 1000 */
	n += record(b + n, 96, 2);	/* 100 */
	seg(&e, 0, 1, 0, b, 400, -1);
	seg(&e, 0, 801, 0, b + 800, 100, -1);	/* 400..799 not seen */
	seg(&e, 0, 401, 0, b + 400, 400, -1);	/* resent: fills it */
	st = cap_pipe_stats(e.pipe);
	CHECK(st->tcp_gaps == 0 && st->tcp_gaps_missed == 0);
	seg(&e, 0, 901, 0, b + 900, 120, -1);	/* to 1019: record 1 whole */
	seg(&e, 0, 1071, 0, b + 1070, 30, -1);	/* 1020..1069 not seen */
	e.ack = 1 + n;				/* the server has it all */
	seg(&e, 1, 1, 0, NULL, 0, -1);		/* its pure ACK, 1 ms on */
	CHECK(st->tcp_gaps == 1 && st->tcp_gap_bytes == 50);
	CHECK(st->tcp_gaps_missed == 1 && st->tcp_gap_missed_bytes == 50);
	cap_pipe_flush(e.pipe);
	CHECK(e.sink.n == 2 && msg_is(&e.sink.g[0], 996, 1, 996, 0));
	CHECK(e.sink.n == 2 && msg_is(&e.sink.g[1], 96, 2, 16, CAP_MSG_HOLE));
	env_fini(&e);
}

/* Lost segment holding a record mark: resync on the next plausible one,
 * with the ooo budget forcing the decision. */
static void test_lost_mark_resync(void)
{
	struct env e;
	struct cap_config cfg;
	uint8_t b[4096];
	uint32_t n = 0, a, bend;
	const struct cap_stats *st;

	memset(&cfg, 0, sizeof(cfg));
	cfg.ooo_mem_max = 1000;
	env_init(&e, &cfg);
	a = record(b, 196, 1);			/* A: 0..199 */
	bend = a + record(b + a, 496, 2);	/* B: 200..699 */
	n = bend + record(b + bend, 296, 3);	/* C: 700..999 */
	n += record(b + n, 796, 4);		/* D: 1000..1799 */
	seg(&e, 0, 0, 0, b, a, -1);
	/* B's first 300 bytes (with its mark) lost */
	seg(&e, 0, 500, 0, b + 500, n - 500, -1);	/* 1300 bytes > 1000 */
	st = cap_pipe_stats(e.pipe);
	CHECK(e.sink.n == 3);
	CHECK(msg_is(&e.sink.g[0], 196, 1, 196, 0));
	CHECK(e.sink.n == 3 &&
	      msg_is(&e.sink.g[1], 296, 3, 296, CAP_MSG_AFTER_GAP));
	CHECK(e.sink.n == 3 && msg_is(&e.sink.g[2], 796, 4, 796, 0));
	CHECK(st->tcp_gaps == 1 && st->tcp_gap_bytes == 300);
	CHECK(st->tcp_resyncs == 1 && st->tcp_ooo == 1);
	env_fini(&e);
}

static void test_mid_connection(void)
{
	struct env e;
	uint8_t b[4096];
	uint32_t n;
	const struct cap_stats *st;

	env_init(&e, NULL);
	n = record(b, 500, 1);
	/* the tail of a record we never saw the start of */
	seg(&e, 0, 7000, 0, b + 100, 300, -1);
	seg(&e, 0, 7300, 0, b + 400, n - 400, -1);
	st = cap_pipe_stats(e.pipe);
	CHECK(e.sink.n == 0 && st->tcp_not_rpc == 2 && st->flows == 0);
	/* the reply direction starts at a mark */
	n = 4 + 40;
	put32(b, 0x80000000u | 40);
	rpc_msg(b + 4, 40, 1, 1);
	seg(&e, 1, 3000, 0, b, n, -1);
	CHECK(e.sink.n == 1 && st->flows == 1 && e.sink.g[0].m.len == 40);
	CHECK(e.sink.g[0].m.sport == 2049);
	/* then the call direction */
	n = record(b, 64, 2);
	seg(&e, 0, 7300 + 104, 0, b, n, -1);
	CHECK(e.sink.n == 2 && st->flows == 2);
	CHECK(msg_is(&e.sink.g[1], 64, 2, 64, 0));
	env_fini(&e);
	/* a sane mark whose message the probe refuses starts nothing */
	env_init(&e, NULL);
	memset(b, 0, 64);
	put32(b, 0x80000000u | 60);
	put32(b + 8, 7);		/* msg_type 7 */
	seg(&e, 0, 100, 0, b, 64, -1);
	st = cap_pipe_stats(e.pipe);
	CHECK(e.sink.n == 0 && st->tcp_not_rpc == 1 && st->flows == 0);
	env_fini(&e);
}

/* SYN-started flow whose first record fails the probe is rejected. */
static void test_syn_reject(void)
{
	struct env e;
	uint8_t b[64] = "SSH-2.0-OpenSSH_9.2\r\n";
	const struct cap_stats *st;

	env_init(&e, NULL);
	seg(&e, 0, 41, TH_SYN, NULL, 0, -1);
	seg(&e, 0, 42, 0, b, 21, -1);
	seg(&e, 0, 63, 0, b, 21, -1);
	st = cap_pipe_stats(e.pipe);
	CHECK(e.sink.n == 0 && st->flows == 0);
	CHECK(st->tcp_segments == 1 && st->tcp_not_rpc == 1);
	env_fini(&e);
}

static void test_truncated(void)
{
	struct env e;
	uint8_t b[4096];
	uint32_t n = 0, a;
	const struct cap_stats *st;

	env_init(&e, NULL);
	/* snaplen cut a 1000-byte record after 200 captured payload bytes;
	 * the next segment starts a record: follows on by wire length */
	a = record(b, 996, 1);
	seg(&e, 0, 1, 0, b, a, 200);
	n = record(b + a, 50, 2);
	seg(&e, 0, 1 + a, 0, b + a, n, -1);
	st = cap_pipe_stats(e.pipe);
	CHECK(e.sink.n == 2);
	CHECK(msg_is(&e.sink.g[0], 996, 1, 196, CAP_MSG_TRUNCATED));
	CHECK(e.sink.n == 2 && msg_is(&e.sink.g[1], 50, 2, 50, 0));
	CHECK(st->tcp_resyncs == 0 && st->tcp_gaps == 0);
	/* two records in a cut segment: the second's mark is not captured,
	 * resync on the next segment */
	n = record(b, 100, 3);
	n += record(b + n, 100, 4);
	seg(&e, 0, 1 + a + 54, 0, b, n, 105);
	CHECK(e.sink.n == 3 && msg_is(&e.sink.g[2], 100, 3, 100, 0));
	a = 1 + a + 54 + n;
	n = record(b, 70, 5);
	seg(&e, 0, a, 0, b, n, -1);
	CHECK(e.sink.n == 4 &&
	      msg_is(&e.sink.g[3], 70, 5, 70, CAP_MSG_AFTER_GAP));
	CHECK(st->tcp_resyncs == 1 && st->tcp_gaps == 0);
	/* record 4 was hidden: one span of its 104 bytes, estimated as one
	 * record (the one before it is as long); the first cut (record 1's
	 * body) hid nothing */
	CHECK(st->tcp_hidden_spans == 1 && st->tcp_hidden_bytes == 104);
	CHECK(st->tcp_hidden_calls + st->tcp_hidden_replies == 1);
	CHECK(st->tcp_hidden_flows == 1 && st->tcp_seg_cut_max == 200);
	CHECK(st->tcp_seg_max == 1000);
	env_fini(&e);
}

static void test_wrap(void)
{
	struct env e;
	uint8_t b[4096];
	uint32_t n;

	env_init(&e, NULL);
	seg(&e, 0, 0xfffffe00u, TH_SYN, NULL, 0, -1);
	n = record(b, 1200, 5);
	seg(&e, 0, 0xfffffe01u, 0, b, 600, -1);
	seg(&e, 0, 0xfffffe01u + 600, 0, b + 600, n - 600, -1);
	CHECK(e.sink.n == 1 && msg_is(&e.sink.g[0], 1200, 5, 1200, 0));
	/* retransmission across the wrap */
	seg(&e, 0, 0xfffffe01u + 600, 0, b + 600, n - 600, -1);
	CHECK(cap_pipe_stats(e.pipe)->tcp_retrans == 1);
	env_fini(&e);
}

static void test_keep_and_fin(void)
{
	struct env e;
	struct cap_config cfg;
	uint8_t b[4096];
	uint32_t n;

	memset(&cfg, 0, sizeof(cfg));
	cfg.record_keep = 1000;
	env_init(&e, &cfg);
	n = record(b, 3000, 3);
	seg(&e, 0, 1, 0, b, 1500, -1);
	seg(&e, 0, 1501, TH_FIN, b + 1500, n - 1500, -1);
	CHECK(e.sink.n == 1 &&
	      msg_is(&e.sink.g[0], 3000, 3, 1000, CAP_MSG_TRUNCATED));
	/* a record wholly in one segment is kept to record_keep too */
	n = record(b, 1200, 4);
	seg(&e, 1, 1, 0, b, n, -1);
	CHECK(e.sink.n == 2 &&
	      msg_is(&e.sink.g[1], 1200, 4, 1000, CAP_MSG_TRUNCATED));
	env_fini(&e);
}

static void test_flow_budget(void)
{
	struct env e;
	struct cap_config cfg;
	uint8_t b[1024];
	uint32_t n;
	const struct cap_stats *st;

	memset(&cfg, 0, sizeof(cfg));
	cfg.flows_max = 1;
	cfg.flow_idle_ms = 1000;
	env_init(&e, &cfg);
	n = record(b, 500, 1);
	seg(&e, 0, 1, 0, b, 100, -1);	/* flow 1 open record */
	seg(&e, 1, 1, 0, b, 100, -1);	/* flow 2 evicts flow 1 */
	st = cap_pipe_stats(e.pipe);
	CHECK(st->flows == 2 && st->flows_evicted == 1);
	seg(&e, 0, 101, 0, b + 100, n - 100, -1);	/* not followed now */
	CHECK(e.sink.n == 0 && st->tcp_not_rpc == 1 && st->flows_evicted == 1);
	/* idle expiry by capture time: flow 2's open record is delivered
	 * with its hole, the late rest of it is not followed */
	e.ts += 5000000000LL;
	seg(&e, 1, 101, 0, b + 100, n - 100, -1);
	CHECK(st->flows_expired == 1 && st->tcp_not_rpc == 2);
	CHECK(st->tcp_gaps == 1 && st->tcp_gap_bytes == 404);
	CHECK(e.sink.n == 1 && msg_is(&e.sink.g[0], 500, 1, 96, CAP_MSG_HOLE));
	env_fini(&e);
}

int main(void)
{
	test_single_and_multi();
	test_spanning();
	test_multifrag();
	test_split_mark();
	test_ooo_and_retrans();
	test_hole_in_body();
	test_hole_missed();
	test_lost_mark_resync();
	test_mid_connection();
	test_syn_reject();
	test_truncated();
	test_wrap();
	test_keep_and_fin();
	test_flow_budget();
	return CHECK_SUMMARY();
}
