/*
 * test_ops.c - the operation engine and figures against a scripted
 * scenario of hand-built (cap_msg, dec_msg) pairs: calls, a retransmit from
 * another client port, a late retransmit, duplicate replies, XID reuse for
 * another procedure, unanswered calls (aged out and at end), a reply that
 * does not fit; exact op records and figures; histogram percentiles within
 * 1% of the exact nearest-rank values; merges bucket for bucket equal to
 * adding the values directly; small histogram chunks turning full; a GETATTR storm from each of more clients
 * than the findings' subject memo has slots, each found once and for its
 * own client.  The messages' call identities come from a real xid map
 * (decode.h), as the decoder gives them; a slot the map hands on after an
 * eviction is not taken for the old call.
 */
#include "analyze/figs.h"
#include "analyze/find.h"
#include "analyze/hist.h"
#include "analyze/ops.h"
#include "decode/decode_int.h"
#include "tests/lib/check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MS 1000000LL
#define MAXOPS 64


struct sink {
	struct an_op ops[MAXOPS];
	int n;
	struct an_figs *figs;
};

static void on_op(void *u, const struct an_op *op)
{
	struct sink *s = u;

	if (s->n < MAXOPS)
		s->ops[s->n++] = *op;
	an_figs_add(s->figs, op);
}

static struct cap_addr A(uint8_t last)
{
	struct cap_addr a;

	memset(&a, 0, sizeof(a));
	a.family = 4;
	a.a[0] = 10;
	a.a[3] = last;
	return a;
}

static struct dec_msg dm;
static struct dec_xidmap *xm;	/* the call table: identities */
static const struct dec_call_id *id_forced;	/* instead of the map's */

/* dm.call_id as the decoder sets it: a call is put into the map, a reply
 * looks its call up (gen 0 when not found). */
static void identify(const struct cap_msg *m, bool call)
{
	struct dec_xid_key k = { .xid = dm.rpc.xid };
	struct dec_xid_call xc = { .prog = dm.prog, .vers = dm.vers,
				   .proc = dm.proc, .ts_ns = m->ts_ns,
				   .frame = m->frame };

	k.client = call ? m->src : m->dst;
	k.server = call ? m->dst : m->src;
	k.client_port = call ? m->sport : m->dport;
	k.server_port = call ? m->dport : m->sport;
	if (id_forced)
		dm.call_id = *id_forced;
	else if (call)
		dm.call_id = dec_xidmap_put(xm, &k, &xc);
	else if (dec_xidmap_get(xm, &k, m->ts_ns, &xc))
		dm.call_id = xc.id;
}

static void feed(struct an_engine *e, int call, uint8_t cl, uint16_t cport,
		 uint32_t xid, uint32_t proc, int64_t t, uint64_t frame,
		 uint32_t status)
{
	struct cap_msg m;

	memset(&m, 0, sizeof(m));
	memset(&dm, 0, sizeof(dm));
	m.frame = m.first_frame = frame;
	m.ts_ns = m.first_ts_ns = t;
	m.transport = CAP_UDP;
	m.len = m.caplen = call ? 120 : 100;
	dm.rpc.xid = xid;
	dm.prog = PROG_NFS;
	dm.vers = 3;
	dm.proc = proc;
	if (call) {
		m.src = A(cl);
		m.dst = A(1);
		m.sport = cport;
		m.dport = 2049;
		dm.rpc.msg_type = RPC_CALL;
		dm.rpc.prog = PROG_NFS;
		dm.rpc.vers = 3;
		dm.rpc.proc = proc;
		dm.rpc.body_off = 40;
		dm.rpc.cred.have = RPC_CRED_SYS;
		dm.rpc.cred.uid = 1000;
		dm.rpc.cred.gid = 100;
		strcpy(dm.rpc.cred.machine, "host");
		dm.kind = DEC_BODY_NFS_CALL;
		dm.u.nfs_call.have = NFSC_FH | NFSC_COUNT | NFSC_OFFSET;
		dm.u.nfs_call.fh.len = 4;
		dm.u.nfs_call.fh.data[0] = 7;
		dm.u.nfs_call.count = 8192;
		dm.u.nfs_call.offset = 0;
	} else {
		m.src = A(1);
		m.dst = A(cl);
		m.sport = 2049;
		m.dport = cport;
		dm.rpc.msg_type = RPC_REPLY;
		dm.call_seen = true;
		dm.kind = DEC_BODY_NFS_REPLY;
		dm.u.nfs_reply.have = NFSR_STATUS;
		dm.u.nfs_reply.status = status;
		if (proc == NFS3_READ && status == 0) {
			dm.u.nfs_reply.have |= NFSR_COUNT | NFSR_EOF;
			dm.u.nfs_reply.count = 8192;
		}
	}
	identify(&m, call);
	an_feed(e, &m, &dm);
}

static const struct an_op *by_xid(struct sink *s, uint32_t xid, uint32_t proc)
{
	int k;

	for (k = 0; k < s->n; k++)
		if (s->ops[k].xid == xid && s->ops[k].proc == proc)
			return &s->ops[k];
	return NULL;
}

/* Put a PUTROOTFH between feed4's PUTFH and READ. */
static int feed4_rootfh;

/* An NFSv4.1 COMPOUND SEQUENCE PUTFH READ (call) or its reply. */
static void feed4(struct an_engine *e, int call, uint32_t xid, uint32_t seq,
		  int64_t t, uint64_t frame)
{
	struct nfs4_compound *cp = &dm.u.nfs4;
	struct cap_msg m;

	memset(&m, 0, sizeof(m));
	memset(&dm, 0, sizeof(dm));
	m.frame = m.first_frame = frame;
	m.ts_ns = m.first_ts_ns = t;
	m.transport = CAP_TCP;
	m.len = m.caplen = 200;
	m.src = call ? A(2) : A(1);
	m.dst = call ? A(1) : A(2);
	m.sport = call ? 800 : 2049;
	m.dport = call ? 2049 : 800;
	dm.rpc.xid = xid;
	dm.rpc.msg_type = call ? RPC_CALL : RPC_REPLY;
	dm.rpc.body_off = 40;
	dm.prog = PROG_NFS;
	dm.vers = 4;
	dm.proc = NFS4_OP_READ;
	dm.call_seen = !call;
	dm.kind = DEC_BODY_NFS4;
	cp->nops = cp->nstored = cp->nops_wire = 3;
	cp->ops[0].op = NFS4_OP_SEQUENCE;
	cp->ops[0].have = N4_SEQ | (call ? 0 : N4_STATUS);
	memset(cp->ops[0].sessionid, 0x5e, NFS4_SESSIONID_SIZE);
	cp->ops[0].slot = 2;
	cp->ops[0].seqid = seq;
	cp->ops[1].op = NFS4_OP_PUTFH;
	cp->ops[1].have = call ? N4_FH : N4_STATUS;
	cp->ops[1].fh.len = 8;
	cp->ops[1].fh.data[0] = 9;
	cp->ops[2].op = NFS4_OP_READ;
	if (call) {
		dm.rpc.prog = PROG_NFS;
		dm.rpc.vers = 4;
		dm.rpc.proc = NFS4_PROC_COMPOUND;
		cp->have = N4C_MINOR | N4C_NOPS;
		cp->minor = 1;
		cp->ops[2].have = N4_OFFSET | N4_COUNT;
		cp->ops[2].offset = 4096;
		cp->ops[2].count = 65536;
	} else {
		cp->have = N4C_STATUS | N4C_NOPS;
		cp->ops[2].have = N4_STATUS | N4_COUNT | N4_EOF;
		cp->ops[2].count = 1000;
		cp->ops[2].eof = true;
	}
	if (feed4_rootfh) {	/* the READ is on the root's handle */
		cp->ops[3] = cp->ops[2];
		memset(&cp->ops[2], 0, sizeof(cp->ops[2]));
		cp->ops[2].op = NFS4_OP_PUTROOTFH;
		cp->ops[2].have = call ? 0 : N4_STATUS;
		cp->nops = cp->nstored = cp->nops_wire = 4;
	}
	identify(&m, call);
	an_feed(e, &m, &dm);
}

/* NFSv4.1: a COMPOUND is one READ op with its main op's fields; the same
 * slot and sequence id again under a new XID is a slot replay, a new
 * sequence id is not. */
static void test_nfs4(void)
{
	struct sink s;
	struct an_engine *e;
	const struct an_op *o;

	memset(&s, 0, sizeof(s));
	s.figs = an_figs_new(NULL);
	xm = dec_xidmap_new(64, 120000 * MS);
	e = an_new(NULL, on_op, &s);
	feed4(e, 1, 100, 7, 1 * MS, 1);
	feed4(e, 0, 100, 7, 3 * MS, 2);
	feed4(e, 1, 101, 7, 10 * MS, 3);	/* replayed slot: new XID */
	feed4(e, 0, 101, 7, 11 * MS, 4);
	feed4(e, 1, 102, 8, 20 * MS, 5);	/* the next sequence id */
	feed4(e, 0, 102, 8, 21 * MS, 6);
	an_flush(e);
	CHECK(s.n == 3);
	o = by_xid(&s, 100, NFS4_OP_READ);
	CHECK(o && o->vers == 4 && o->lat_first_ns == 2 * MS &&
	      o->offset == 4096 && o->count == 65536 && o->rcount == 1000 &&
	      o->eof && (o->have & AN_HAVE_FH) && o->fh.data[0] == 9 &&
	      !(o->flags & AN_OP_SLOT_REPLAY));
	o = by_xid(&s, 101, NFS4_OP_READ);
	CHECK(o && (o->flags & AN_OP_SLOT_REPLAY));
	o = by_xid(&s, 102, NFS4_OP_READ);
	CHECK(o && !(o->flags & AN_OP_SLOT_REPLAY));
	CHECK(an_get_stats(e)->slot_replays == 1);
	CHECK(an_op_data_bytes(&s.ops[0]) == 1000);
	/* PUTFH PUTROOTFH READ: not on the PUTFH's handle */
	feed4_rootfh = 1;
	feed4(e, 1, 103, 9, 30 * MS, 7);
	feed4(e, 0, 103, 9, 31 * MS, 8);
	feed4_rootfh = 0;
	an_flush(e);
	o = by_xid(&s, 103, NFS4_OP_READ);
	CHECK(o && o->count == 65536 && !(o->have & AN_HAVE_FH));
	an_free(e);
	an_figs_free(s.figs);
	dec_xidmap_free(xm);
}

static void test_scenario(void)
{
	struct an_config cfg = { .unanswered_ns = 10000 * MS,
				 .answered_keep_ns = 2000 * MS };
	struct sink s = { .n = 0 };
	struct an_engine *e;
	const struct an_op *o;
	const struct an_row *r;
	int64_t t0 = 1000000 * 1000000000LL;
	uint32_t k;

	s.figs = an_figs_new(NULL);
	e = an_new(&cfg, on_op, &s);
	xm = dec_xidmap_new(64, 120000 * MS);
	CHECK(e && s.figs && xm);
	/* 1: GETATTR answered in 2 ms */
	feed(e, 1, 2, 800, 1, NFS3_GETATTR, t0, 1, 0);
	feed(e, 0, 2, 800, 1, NFS3_GETATTR, t0 + 2 * MS, 2, 0);
	/* 2: READ retransmitted from another port after 1100 ms, answered
	 *    5 ms after the retransmit, then a duplicate reply */
	feed(e, 1, 2, 801, 2, NFS3_READ, t0 + 10 * MS, 3, 0);
	feed(e, 1, 2, 802, 2, NFS3_READ, t0 + 1110 * MS, 4, 0);
	feed(e, 0, 2, 802, 2, NFS3_READ, t0 + 1115 * MS, 5, 0);
	feed(e, 0, 2, 802, 2, NFS3_READ, t0 + 1116 * MS, 6, 0);
	/* 3: LOOKUP answered NOENT in 1 ms, then a late retransmit */
	feed(e, 1, 3, 900, 3, NFS3_LOOKUP, t0 + 20 * MS, 7, 0);
	feed(e, 0, 3, 900, 3, NFS3_LOOKUP, t0 + 21 * MS, 8, 2);
	feed(e, 1, 3, 900, 3, NFS3_LOOKUP, t0 + 500 * MS, 9, 0);
	/* 4: a call never answered (ages out: 10 s) */
	feed(e, 1, 3, 900, 4, NFS3_ACCESS, t0 + 30 * MS, 10, 0);
	/* 5: reply with the same key but another procedure: does not fit */
	feed(e, 0, 3, 900, 4, NFS3_GETATTR, t0 + 31 * MS, 11, 0);
	/* 6: xid 1 reused 5 s later for another procedure (old one retired
	 *    by the keep window first: not XID reuse) and xid 5 reused while
	 *    pending for another procedure */
	feed(e, 1, 2, 800, 1, NFS3_FSSTAT, t0 + 5000 * MS, 12, 0);
	feed(e, 0, 2, 800, 1, NFS3_FSSTAT, t0 + 5003 * MS, 13, 0);
	feed(e, 1, 2, 800, 5, NFS3_GETATTR, t0 + 5010 * MS, 14, 0);
	feed(e, 1, 2, 800, 5, NFS3_SETATTR, t0 + 5020 * MS, 15, 0);
	feed(e, 0, 2, 800, 5, NFS3_SETATTR, t0 + 5024 * MS, 16, 0);
	/* 7: time passes: xid 4 ages out */
	an_tick(e, t0 + 20000 * MS);
	/* 8: a call still pending at the end */
	feed(e, 1, 2, 800, 6, NFS3_COMMIT, t0 + 20001 * MS, 17, 0);
	an_flush(e);

	CHECK(s.n == 8);
	o = by_xid(&s, 1, NFS3_GETATTR);
	CHECK(o && o->lat_first_ns == 2 * MS && o->lat_last_ns == 2 * MS &&
	      o->retrans == 0 && o->dup_replies == 0 && o->uid == 1000 &&
	      !strcmp(o->machine, "host") && o->call_frame == 1 &&
	      o->reply_frame == 2 && o->fh.len == 4);
	o = by_xid(&s, 2, NFS3_READ);
	CHECK(o && o->lat_first_ns == 1105 * MS && o->lat_last_ns == 5 * MS &&
	      o->retrans == 1 && o->dup_replies == 1 &&
	      o->retrans_ivl_first_ns == 1100 * MS &&
	      (o->flags & AN_OP_PORT_CHANGED) && o->client_port == 801 &&
	      o->client_port_last == 802 && o->rcount == 8192 &&
	      o->count == 8192);
	o = by_xid(&s, 3, NFS3_LOOKUP);
	CHECK(o && o->lat_first_ns == 1 * MS && o->retrans == 1 &&
	      (o->flags & AN_OP_LATE_RETRANS) && o->status == 2);
	o = by_xid(&s, 4, NFS3_ACCESS);
	CHECK(o && !(o->flags & AN_OP_ANSWERED) && (o->flags & AN_OP_EXPIRED) &&
	      (o->flags & AN_OP_MISFIT_REPLY) && o->lat_first_ns == -1);
	o = by_xid(&s, 1, NFS3_FSSTAT);
	CHECK(o && o->lat_first_ns == 3 * MS && !(o->flags & AN_OP_XID_REUSED));
	o = by_xid(&s, 5, NFS3_GETATTR);
	CHECK(o && (o->flags & AN_OP_XID_REUSED) && !(o->flags & AN_OP_ANSWERED));
	o = by_xid(&s, 5, NFS3_SETATTR);
	CHECK(o && o->lat_first_ns == 4 * MS);
	o = by_xid(&s, 6, NFS3_COMMIT);
	CHECK(o && (o->flags & AN_OP_AT_END));
	CHECK(an_get_stats(e)->retrans == 2 && an_get_stats(e)->late_retrans == 1 &&
	      an_get_stats(e)->dup_replies == 1 && an_get_stats(e)->xid_reused == 1 &&
	      an_get_stats(e)->misfit_replies == 1 &&
	      an_get_stats(e)->unanswered_expired == 1 &&
	      an_get_stats(e)->unanswered_at_end == 1 &&
	      an_get_stats(e)->answered == 5);
	/* figures: per procedure */
	for (k = 0; k < an_figs_nrows(s.figs, AN_BY_OP); k++) {
		r = an_figs_row(s.figs, AN_BY_OP, k);
		if (r->proc == NFS3_READ)
			CHECK(r->calls == 1 && r->lat.count == 1 &&
			      r->lat.min == (uint64_t)(1105 * MS) &&
			      r->retrans == 1 && r->dup_replies == 1 &&
			      r->data_bytes == 8192);
		if (r->proc == NFS3_LOOKUP)
			CHECK(r->errors == 1 && r->st[0].status == 2 &&
			      r->st[0].n == 1);
		if (r->proc == NFS3_GETATTR)
			CHECK(r->calls == 2 && r->answered == 1 &&
			      r->unanswered == 1);
	}
	CHECK(an_figs_totals(s.figs)->ops == 8);
	CHECK(an_figs_npairs(s.figs) == 2);
	an_free(e);
	an_figs_free(s.figs);
	dec_xidmap_free(xm);
}

static int n_flagged(const struct sink *s, uint32_t xid, uint32_t flag)
{
	int k, n = 0;

	for (k = 0; k < s->n; k++)
		n += s->ops[k].xid == xid && (s->ops[k].flags & flag);
	return n;
}

/*
 * One call table of two slots, shared by the decoder's map and the
 * engine: a slot the map hands on (an unanswered call evicted, an
 * answered one retired) is not taken for the old call - a reply or a
 * call still carrying the old identity does not touch the new one.
 */
static void test_slot_reuse(void)
{
	struct an_config cfg = { .xid_max = 2 };
	struct sink s = { .n = 0 };
	struct an_engine *e;
	struct dec_call_id a, c;
	const struct an_stats *st;
	const struct an_op *o;
	int64_t t0 = 2000000 * 1000000000LL;

	s.figs = an_figs_new(NULL);
	e = an_new(&cfg, on_op, &s);
	xm = dec_xidmap_new(2, 120000 * MS);
	CHECK(e && s.figs && xm);
	feed(e, 1, 2, 800, 10, NFS3_GETATTR, t0, 1, 0);		/* A */
	a = dm.call_id;
	feed(e, 1, 2, 800, 11, NFS3_READ, t0 + 1 * MS, 2, 0);	/* B */
	feed(e, 0, 2, 800, 11, NFS3_READ, t0 + 2 * MS, 3, 0);
	/* C: the table is full, A (unanswered, oldest) is evicted and its
	   slot is C's under a new generation; A's op goes now */
	feed(e, 1, 2, 800, 12, NFS3_ACCESS, t0 + 3 * MS, 4, 0);
	c = dm.call_id;
	CHECK(c.slot == a.slot && c.gen != a.gen && c.gen != 0);
	CHECK(dec_xidmap_evictions(xm) == 1);
	CHECK(s.n == 1 && s.ops[0].xid == 10 &&
	      (s.ops[0].flags & AN_OP_EVICTED) &&
	      !(s.ops[0].flags & AN_OP_ANSWERED));
	/* a reply and a retransmission still under A's identity (a slot
	   handed on while they were on their way): not C's */
	id_forced = &a;
	feed(e, 0, 2, 800, 10, NFS3_GETATTR, t0 + 4 * MS, 5, 0);
	feed(e, 1, 2, 800, 10, NFS3_GETATTR, t0 + 5 * MS, 6, 0);
	id_forced = NULL;
	CHECK(s.n == 2 && n_flagged(&s, 10, AN_OP_EVICTED) == 2);
	/* C's own reply answers C */
	feed(e, 0, 2, 800, 12, NFS3_ACCESS, t0 + 6 * MS, 7, 0);
	/* D: B (answered) is the oldest: retired early, not lost */
	feed(e, 1, 2, 800, 13, NFS3_COMMIT, t0 + 7 * MS, 8, 0);
	CHECK(s.n == 3 && s.ops[2].xid == 11 &&
	      (s.ops[2].flags & AN_OP_ANSWERED));
	/* a duplicate reply to B: its call is gone from the table */
	feed(e, 0, 2, 800, 11, NFS3_READ, t0 + 8 * MS, 9, 0);
	CHECK(dm.call_id.gen == 0);
	an_flush(e);
	st = an_get_stats(e);
	o = by_xid(&s, 12, NFS3_ACCESS);
	CHECK(o && (o->flags & AN_OP_ANSWERED) && o->lat_first_ns == 3 * MS &&
	      o->dup_replies == 0 && o->retrans == 0 && o->call_frame == 4);
	o = by_xid(&s, 11, NFS3_READ);
	CHECK(o && o->dup_replies == 0 && o->lat_first_ns == 1 * MS);
	o = by_xid(&s, 13, NFS3_COMMIT);
	CHECK(o && (o->flags & AN_OP_AT_END));
	CHECK(s.n == 5 && st->ops == 5 && st->answered == 2 &&
	      st->evicted == 2 && st->retired_early == 1 &&
	      st->replies_unmatched == 2 && st->retrans == 0 &&
	      st->dup_replies == 0 && st->xid_reused == 0 &&
	      st->calls == 5 && st->pending_peak <= 2);
	an_free(e);
	an_figs_free(s.figs);
	dec_xidmap_free(xm);
	xm = NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void test_hist(void)
{
	static const double ps[] = { 50, 90, 95, 99, 99.9 };
	enum { N = 100000 };
	uint64_t *v = malloc(N * sizeof(*v)), seed = 42;
	struct hist h, h1, h2;
	size_t i, k;

	hist_init(&h);
	hist_init(&h1);
	hist_init(&h2);
	for (i = 0; i < N; i++) {
		/* log-uniform-ish between 10 us and 10 s */
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		v[i] = 10000ull << ((seed >> 33) % 20);
		v[i] += (seed >> 11) % v[i];
		hist_add(&h, v[i]);
		hist_add(i % 2 ? &h1 : &h2, v[i]);
	}
	CHECK(hist_merge(&h1, &h2));
	qsort(v, N, sizeof(*v), cmp_u64);
	CHECK(h.count == N && h.min == v[0] && h.max == v[N - 1]);
	for (k = 0; k < sizeof(ps) / sizeof(ps[0]); k++) {
		size_t rank = (size_t)((ps[k] / 100.0) * N + 0.999999);
		double exact = (double)v[rank - 1];
		double got = (double)hist_percentile(&h, ps[k]);
		double merged = (double)hist_percentile(&h1, ps[k]);

		CHECK(got >= exact * 0.99 && got <= exact * 1.01);
		CHECK(merged == got);
	}
	/* exact below 128 ns */
	hist_fini(&h2);
	hist_add(&h2, 5);
	hist_add(&h2, 100);
	CHECK(hist_percentile(&h2, 50) == 5 && hist_percentile(&h2, 100) == 100);
	hist_fini(&h);
	hist_fini(&h1);
	hist_fini(&h2);
	free(v);
}

/* Same buckets, count, min and max: every nearest-rank percentile equal
 * (each rank's bucket is then the same) and the same counts per range. */
static bool hist_same(const struct hist *a, const struct hist *b)
{
	uint64_t lo, hi, k;
	unsigned c;

	if (a->count != b->count || a->min != b->min || a->max != b->max)
		return false;
	for (k = 1; k <= a->count; k++) {
		double p = 100.0 * (double)k / (double)a->count;

		if (hist_percentile(a, p) != hist_percentile(b, p))
			return false;
	}
	for (c = 0; c < HIST_NCHUNK; c++)
		if (hist_range_count(a, c, &lo, &hi) !=
		    hist_range_count(b, c, &lo, &hi))
			return false;
	return true;
}

/*
 * hist_merge and hist_merge_replaced against the histogram of the same
 * values added one by one: `all` holds values of which `minus` is a
 * subset, replaced by `plus`; the merge must equal adding (all - minus +
 * plus) directly, into an empty and into a non-empty histogram, and make
 * no chunk for a range whose values were all replaced away.
 */
static void test_hist_merges(void)
{
	enum { N = 3000 };
	struct hist all, minus, plus, want, got, got2, want2, clr, dst;
	uint64_t seed = 7, v, w, sum = 0, mn = UINT64_MAX, mx = 0, lo, hi;
	unsigned c0, k;
	size_t i;

	hist_init(&all);
	hist_init(&minus);
	hist_init(&plus);
	hist_init(&want);
	hist_init(&got);
	hist_init(&got2);
	hist_init(&want2);
	for (i = 0; i < N; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		v = 200ull << ((seed >> 33) % 24);
		v += (seed >> 11) % v;
		hist_add(&all, v);
		/* every third value replaced by one ~3x as large, and every
		   value in [2^20, 2^21) ns replaced by one out of it, so that
		   range ends empty */
		if (i % 3 == 0 || (v >> 20) == 1) {
			hist_add(&minus, v);
			w = v * 3 + 1;
			if ((w >> 20) == 1)
				w <<= 2;
			hist_add(&plus, w);
		} else {
			w = v;
		}
		hist_add(&want, w);
		hist_add(&want2, w);
		sum += w;
		mn = w < mn ? w : mn;
		mx = w > mx ? w : mx;
	}
	CHECK(hist_merge_replaced(&got, &all, &minus, &plus, N, (double)sum,
				  mn, mx));
	CHECK(hist_same(&got, &want));
	CHECK(got.sum == (double)sum);
	/* range of [2^20, 2^21) ns: c = 20 - 7 + 1 */
	c0 = 20 - HIST_SUB_BITS + 1;
	CHECK(hist_range_count(&all, c0, &lo, &hi) > 0);
	CHECK(hist_range_count(&want, c0, &lo, &hi) == 0);
	CHECK(got.chunk[c0] == NULL);
	/* into a histogram that already holds values */
	for (k = 0; k < 50; k++) {
		hist_add(&got2, 1000 + 37 * k);
		hist_add(&want2, 1000 + 37 * k);
	}
	CHECK(hist_merge_replaced(&got2, &all, &minus, &plus, N, (double)sum,
				  mn, mx));
	CHECK(hist_same(&got2, &want2));
	/* hist_merge of the same values */
	hist_init(&dst);
	CHECK(hist_merge(&dst, &want));
	CHECK(hist_same(&dst, &want));
	hist_fini(&dst);
	/* a cleared histogram keeps its (zeroed) chunks: merging it makes
	   none in the destination */
	hist_init(&clr);
	hist_init(&dst);
	hist_add(&clr, 5000000);
	hist_clear(&clr);
	hist_add(&clr, 50);
	CHECK(hist_merge(&dst, &clr));
	CHECK(dst.count == 1 && dst.min == 50 && dst.max == 50);
	for (k = 1; k < HIST_NCHUNK; k++)
		CHECK(dst.chunk[k] == NULL);
	hist_fini(&clr);
	hist_fini(&dst);
	hist_fini(&all);
	hist_fini(&minus);
	hist_fini(&plus);
	hist_fini(&want);
	hist_fini(&got);
	hist_fini(&got2);
	hist_fini(&want2);
}

/*
 * A histogram's small chunks (hist.h: up to HIST_FEW distinct buckets of a
 * power of two in 56 bytes, then the full 1 KiB chunk), the bug of a live
 * recorder's rows growing by 1 KiB for every rare latency: each range
 * holds 1..10 distinct values (some repeated), added in a scrambled order,
 * so ranges stay small, turn full and turn full while merged.  Against the
 * values themselves: every nearest-rank percentile within a bucket
 * (1/256) of the exact sorted value, each range's count by arithmetic on
 * its bounds, the buckets a range lists inside those bounds and summing to
 * it; a small chunk is what the range uses until its seventh bucket; merges
 * (small into small, small into full, full into small) and a cleared
 * histogram reused give the same percentiles as adding the values.
 */
static void test_hist_small(void)
{
	enum { R = 30, MAXV = R * 10 * 3 };
	uint64_t v[MAXV], lo, hi, seed = 11;
	struct hist h, a, b, m;
	uint8_t idx[HIST_SUB];
	uint64_t cnt[HIST_SUB], sum;
	unsigned c, k, j, n = 0, nb, distinct[HIST_NCHUNK] = { 0 };
	size_t i;

	hist_init(&h);
	hist_init(&a);
	hist_init(&b);
	hist_init(&m);
	for (c = 1; c <= R; c++) {	/* range c: [2^(c+6), 2^(c+7)) */
		unsigned d = 1 + c % 10;	/* distinct values in it */

		for (k = 0; k < d; k++) {
			/* spread over the range's 128 buckets: bucket 12k + 3 */
			uint64_t x = ((uint64_t)128 + 12 * k + 3) << (c - 1);

			for (j = 0; j < 1 + k % 3; j++)
				v[n++] = x;
		}
		distinct[c] = d;
	}
	for (i = n - 1; i > 0; i--) {	/* scramble */
		uint64_t t;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		k = (unsigned)((seed >> 33) % (i + 1));
		t = v[i];
		v[i] = v[k];
		v[k] = t;
	}
	for (i = 0; i < n; i++) {
		hist_add(&h, v[i]);
		hist_add(i % 3 ? &a : &b, v[i]);
	}
	for (c = 1; c <= R; c++) {
		CHECK(((h.few >> c) & 1) == (distinct[c] <= HIST_FEW));
		for (i = 0, sum = 0; i < n; i++)
			sum += v[i] >> (c + 6) == 1;
		CHECK(hist_range_count(&h, c, &lo, &hi) == sum);
		nb = hist_range_buckets(&h, c, idx, cnt);
		CHECK(nb == distinct[c]);
		for (k = 0; k < nb; k++) {
			uint64_t w = (hi - lo) / HIST_SUB, at = lo + idx[k] * w;

			CHECK(k == 0 || idx[k] > idx[k - 1]);
			CHECK(idx[k] == 12 * k + 3 && at >= lo && at + w <= hi);
			sum -= cnt[k];
		}
		CHECK(sum == 0);
	}
	CHECK(hist_range_count(&h, R + 1, &lo, &hi) == 0 && h.chunk[R + 1] == NULL);
	/* merges: b (a third of the values) into a, and a, b into empty m */
	CHECK(hist_merge(&m, &b));
	CHECK(hist_merge(&m, &a));
	CHECK(hist_merge(&a, &b));
	qsort(v, n, sizeof(*v), cmp_u64);
	for (k = 1; k <= n; k++) {
		double p = 100.0 * (k - 0.5) / n, exact = (double)v[k - 1];
		double got = (double)hist_percentile(&h, p);

		CHECK(got >= exact * (1 - 1.0 / 256) && got <= exact * (1 + 1.0 / 256));
		CHECK(hist_percentile(&a, p) == hist_percentile(&h, p));
		CHECK(hist_percentile(&m, p) == hist_percentile(&h, p));
	}
	CHECK(a.few == h.few && m.few == h.few);
	/* a cleared histogram keeps its chunks, small ones too, and counts
	   again from nothing */
	hist_clear(&h);
	CHECK(h.count == 0 && hist_range_count(&h, 1, &lo, &hi) == 0);
	hist_add(&h, 200);
	hist_add(&h, 200);
	CHECK(hist_range_count(&h, 1, &lo, &hi) == 2 &&
	      hist_range_buckets(&h, 1, idx, cnt) == 1 && cnt[0] == 2);
	CHECK(hist_percentile(&h, 50) == 200 && h.count == 2);
	hist_fini(&h);
	hist_fini(&a);
	hist_fini(&b);
	hist_fini(&m);
}

/*
 * CLIENTS clients (more than the findings' 256-slot subject memo, so memo
 * slots collide and are taken over) each send 600 GETATTR/s for 4 s, all
 * interleaved, with the default 500/s threshold: each client gets exactly
 * one GETATTR storm finding, with its own address and its 2400 calls.
 */
static void find_many_clients(uint32_t storm_clients)
{
	enum { CLIENTS = 400, RATE = 600, SECS = 4 };
	struct an_figs *figs = an_figs_new(NULL);
	struct an_find_config cfg;
	struct an_find *f;
	static int seen[CLIENTS];
	struct an_op op;
	size_t k, n;
	int c, t;

	an_find_config_default(&cfg);
	if (storm_clients)
		cfg.storm_clients = storm_clients;
	f = an_find_new(&cfg);
	if (figs == NULL || f == NULL) {
		CHECK(!"out of memory");
		return;
	}
	memset(&op, 0, sizeof(op));
	op.prog = PROG_NFS;
	op.vers = 3;
	op.proc = NFS3_GETATTR;
	op.flags = AN_OP_ANSWERED;
	op.have = AN_HAVE_STATUS;
	op.server = A(1);
	for (t = 0; t < RATE * SECS; t++) {
		for (c = 0; c < CLIENTS; c++) {
			memset(&op.client, 0, sizeof(op.client));
			op.client.family = 4;
			op.client.a[0] = 10;
			op.client.a[1] = 1;
			op.client.a[2] = (uint8_t)(c >> 8);
			op.client.a[3] = (uint8_t)c;
			op.first_call_ns = op.last_call_ns =
				1000000000LL + (int64_t)t * 1000000000 / RATE;
			op.reply_ns = op.first_call_ns + 100000;
			op.lat_first_ns = op.lat_last_ns = 100000;
			an_find_add(f, &op);
		}
	}
	an_find_finish(f, figs, 0);
	n = an_find_count(f);
	for (k = 0; k < n; k++) {
		const struct an_finding *g = an_find_get(f, k);

		if (g->kind != AN_F_GETATTR_STORM)
			continue;
		c = g->client.a[2] << 8 | g->client.a[3];
		CHECK(g->have_client && g->client.a[0] == 10 &&
		      g->client.a[1] == 1 && c < CLIENTS);
		if (c < CLIENTS) {
			seen[c]++;
			CHECK(g->count == RATE * SECS);
		}
	}
	for (c = 0; c < CLIENTS; c++) {	/* the first clients seen */
		CHECK(seen[c] == (c < (int)cfg.storm_clients));
		seen[c] = 0;
	}
	CHECK(an_find_dropped(f) == 0);
	/* the later clients' ops are counted as not examined */
	CHECK((an_find_unexamined(f) == 0) ==
	      (cfg.storm_clients >= CLIENTS));
	an_find_free(f);
	an_figs_free(figs);
}

/* NFSv4: 600 COMPOUNDs/s for 4 s from one client.  Main op GETATTR: one
 * GETATTR storm finding; main op READ at the same rate: none. */
static int nfs4_storms(uint32_t proc)
{
	struct an_figs *figs = an_figs_new(NULL);
	struct an_find_config cfg;
	struct an_find *f;
	struct an_op op;
	size_t k, n;
	int t, storms = 0;

	an_find_config_default(&cfg);
	f = an_find_new(&cfg);
	memset(&op, 0, sizeof(op));
	op.prog = PROG_NFS;
	op.vers = 4;
	op.proc = proc;
	op.flags = AN_OP_ANSWERED;
	op.have = AN_HAVE_STATUS;
	op.server = A(1);
	op.client = A(2);
	for (t = 0; t < 600 * 4; t++) {
		op.first_call_ns = op.last_call_ns =
			1000000000LL + (int64_t)t * 1000000000 / 600;
		op.reply_ns = op.first_call_ns + 100000;
		op.lat_first_ns = op.lat_last_ns = 100000;
		an_find_add(f, &op);
	}
	an_find_finish(f, figs, 0);
	n = an_find_count(f);
	for (k = 0; k < n; k++)
		storms += an_find_get(f, k)->kind == AN_F_GETATTR_STORM;
	an_find_free(f);
	an_figs_free(figs);
	return storms;
}

static void test_nfs4_storm(void)
{
	CHECK(nfs4_storms(NFS4_OP_GETATTR) == 1);
	CHECK(nfs4_storms(NFS4_OP_READ) == 0);
}

/* ... with storm_clients raised to all of them, and with the default
 * (AN_FIND_STORMS: the first 64 seen get storms, the rest are counted). */
static void test_find_many_clients(void)
{
	find_many_clients(400);
	find_many_clients(0);
}

/*
 * A storm delivered out of order, as the engine does (answered ops leave
 * a few seconds after their reply, so a slow reply's op comes after later
 * ones): 3000 GETATTRs at 1000/s, each delivered up to 1.5 s late.  One
 * storm with every call, starting and ending at the first and last call
 * (to the microsecond), its average rate (n - 1) / span.
 */
static void test_find_storm_late(void)
{
	enum { N = 3000 };
	static int64_t t[N];
	struct an_figs *figs = an_figs_new(NULL);
	struct an_find *f = an_find_new(NULL);
	uint32_t lcg = 12345;
	struct an_op op;
	size_t k, n, storms = 0;
	int i, j;

	if (figs == NULL || f == NULL) {
		CHECK(!"out of memory");
		return;
	}
	for (i = 0; i < N; i++)
		t[i] = 10000000000LL + 500123 + (int64_t)i * 1000000;
	/* a delivery order: each op moved up to 1500 places later */
	for (i = 0; i < N; i++) {
		int64_t x;

		lcg = lcg * 1103515245u + 12345u;
		j = i + (int)((lcg >> 8) % 1500);
		if (j >= N)
			continue;
		x = t[i];
		memmove(&t[i], &t[i + 1], (size_t)(j - i) * sizeof(t[0]));
		t[j] = x;
	}
	memset(&op, 0, sizeof(op));
	op.prog = PROG_NFS;
	op.vers = 3;
	op.proc = NFS3_GETATTR;
	op.flags = AN_OP_ANSWERED;
	op.client = A(7);
	op.server = A(1);
	for (i = 0; i < N; i++) {
		op.first_call_ns = op.last_call_ns = t[i];
		op.reply_ns = t[i] + 100000;
		op.lat_first_ns = op.lat_last_ns = 100000;
		an_find_add(f, &op);
	}
	an_find_finish(f, figs, 0);
	n = an_find_count(f);
	for (k = 0; k < n; k++) {
		const struct an_finding *g = an_find_get(f, k);

		if (g->kind != AN_F_GETATTR_STORM)
			continue;
		storms++;
		CHECK(g->count == N);
		CHECK(g->start_ns == 10000000000LL + 500000);
		CHECK(g->end_ns == 10000000000LL + 500000 + (int64_t)(N - 1) * 1000000);
		CHECK(g->avg_rate > 999.999 && g->avg_rate < 1000.001);
	}
	CHECK(storms == 1);
	an_find_free(f);
	an_figs_free(figs);
}

int main(void)
{
	test_scenario();
	test_slot_reuse();
	test_nfs4();
	test_hist();
	test_hist_merges();
	test_hist_small();
	test_find_many_clients();
	test_nfs4_storm();
	test_find_storm_late();
	return CHECK_SUMMARY();
}
