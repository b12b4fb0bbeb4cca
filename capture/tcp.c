/*
 * tcp.c - TCP byte streams per flow direction, in stream order, handed to
 * the RPC record parser (rpcrec.c).
 *
 * Following: a direction is followed when its stream start is known (SYN
 * seen: state PENDING, the first record must be a sane mark and pass the
 * probe or the direction is rejected) or, mid-connection, when a payload
 * segment begins with a sane mark (CAP_REC_MIN..CAP_REC_MAX) whose bytes
 * pass cfg.probe (NULL: any sane mark).  Other payload is tcp_not_rpc.
 *
 * Stream: next_seq is the next byte expected (serial arithmetic).  Wholly
 * old segments are tcp_retrans; partly old ones give only their new bytes.
 * Segments ahead are copied into a per-flow sorted queue (tcp_ooo) of at
 * most ooo_mem_max captured bytes.  The hole before the first queued
 * segment is declared lost (tcp_gaps, tcp_gap_bytes) when
 *   - the receiver has acknowledged past it (so the capture, not the
 *     network, lost it: also tcp_gaps_missed) and the hole is older than GAP_ACK_SLACK_NS or
 *     GAP_ACK_SLACK_PKTS frames (captures from multi-core hosts reorder
 *     segments and their ACKs by that much on a clean link); the check runs
 *     before the acknowledging segment's own payload, so calls behind the
 *     hole are delivered before their replies;
 *   - it is older than GAP_MAX_AGE_NS (a sender retransmits a segment the
 *     network lost well within that);
 *   - the queue exceeds ooo_mem_max, or at FIN/RST, idle expiry, flush.
 * Lost bytes, and bytes the snaplen cut (the stream advances by WIRE
 * length), go to the parser as unknown.
 *
 * Table: hash table of at most flows_max directions with an LRU list;
 * the least recently used is evicted (flows_evicted), directions idle for
 * flow_idle_ms of capture time are finished (flows_expired).  The table
 * owns the flows, each flow owns its buffer and queued segments.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "capture/tcp_int.h"
#include "base/hash.h"

#define TH_FIN 0x01
#define TH_SYN 0x02
#define TH_RST 0x04
#define TH_ACK 0x10

#define GAP_ACK_SLACK_NS 200000		/* 200 us */
#define GAP_ACK_SLACK_PKTS 8
#define GAP_MAX_AGE_NS 5000000000LL	/* 5 s */

struct cap_tcp_table {
	struct tcp_flow **bucket;
	uint32_t nbucket;		/* power of two */
	uint32_t nflows;
	struct tcp_flow *lru_head, *lru_tail;	/* head: most recent */
	size_t ooo_segs;		/* queued out of order, all flows */
	struct tcp_flow *last;		/* the last segment's flow: tried
					   first, then its reverse */
};

#define OOO_COST(caplen) (sizeof(struct ooo_seg) + (caplen))

struct cap_tcp_table *cap_tcp_new(uint32_t flows_max)
{
	struct cap_tcp_table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->nbucket = 64;
	while (t->nbucket < flows_max && t->nbucket < (1u << 20))
		t->nbucket *= 2;
	t->bucket = calloc(t->nbucket, sizeof(t->bucket[0]));
	if (!t->bucket) {
		free(t);
		return NULL;
	}
	return t;
}

/* mem: the pipe's tcp_mem to give the bytes back to (NULL: the table
 * goes) */
static void ooo_free_all(struct cap_tcp_table *t, struct tcp_flow *f,
			 size_t *mem)
{
	while (f->ooo) {
		struct ooo_seg *s = f->ooo;

		f->ooo = s->next;
		if (mem)
			*mem -= OOO_COST(s->caplen);
		free(s);
		t->ooo_segs--;
	}
	f->ooo_tail = NULL;
	f->ooo_bytes = 0;
}

static void flow_drop(struct cap_pipe *p, struct tcp_flow *f);

static void flow_unlink_free(struct cap_tcp_table *t, struct tcp_flow *f,
			     size_t *mem)
{
	struct tcp_flow **pp = &t->bucket[f->hash & (t->nbucket - 1)];

	while (*pp && *pp != f)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = f->hnext;
	if (f->lru_prev)
		f->lru_prev->lru_next = f->lru_next;
	else
		t->lru_head = f->lru_next;
	if (f->lru_next)
		f->lru_next->lru_prev = f->lru_prev;
	else
		t->lru_tail = f->lru_prev;
	t->nflows--;
	if (t->last == f)
		t->last = NULL;
	if (f->rev)
		f->rev->rev = NULL;
	ooo_free_all(t, f, mem);
	if (mem)
		*mem -= f->buf_cap;
	free(f->buf);
	free(f);
}

void cap_tcp_free(struct cap_tcp_table *t)
{
	if (!t)
		return;
	while (t->lru_head)
		flow_unlink_free(t, t->lru_head, NULL);
	free(t->bucket);
	free(t);
}

static uint32_t flow_hash(const struct cap_addr *s, const struct cap_addr *d,
			  uint16_t sport, uint16_t dport)
{
	uint32_t h = ((uint32_t)sport << 16 | dport) * 0x9e3779b1u;
	int i;

	for (i = 0; i < 16; i += 4) {
		h = (h ^ cap_be32(s->a + i)) * 0x85ebca6bu;
		h = (h ^ cap_be32(d->a + i)) * 0xc2b2ae35u;
		h ^= h >> 16;
	}
	return h;
}

/* ---- stream ---- */

/* A segment at or before next_seq: use its new bytes. */
static void seg_apply(struct cap_pipe *p, struct tcp_flow *f,
		      const struct seg_ctx *own, uint32_t seq,
		      const uint8_t *d, uint32_t caplen, uint32_t len)
{
	uint32_t back = f->next_seq - seq;
	struct seg_ctx c;
	const struct seg_ctx *cx = &c;

	if (own->frame > f->wm_frame) {
		f->wm_frame = own->frame;
		f->wm_ts_ns = own->ts_ns;
	}
	c.frame = own->frame;
	c.ts_ns = own->ts_ns;
	c.done_frame = f->wm_frame;
	c.done_ts_ns = f->wm_ts_ns;
	if (back >= len) {
		p->st.tcp_retrans++;
		f->h_resent++;
		f->rec_resent = f->rec_open;
		return;
	}
	if (back > 0) {		/* partly old */
		f->h_resent++;
		f->rec_resent = f->rec_open;
		if (back < caplen) {
			d += back;
			caplen -= back;
		} else {
			caplen = 0;
		}
		len -= back;
	}
	f->next_seq += len;
	cap_rec_known(p, f, cx, d, caplen);
	if (caplen < len)
		cap_rec_unknown(p, f, cx, len - caplen, CAP_MSG_TRUNCATED);
}

/* Apply queued segments that have become contiguous. */
static void ooo_drain(struct cap_pipe *p, struct tcp_flow *f)
{
	while (f->ooo && (int32_t)(f->ooo->seq - f->next_seq) <= 0 &&
	       f->state != FS_REJECT) {
		struct ooo_seg *s = f->ooo;
		struct seg_ctx cx = { s->frame, s->ts_ns, 0, 0 };

		f->ooo = s->next;
		if (!f->ooo)
			f->ooo_tail = NULL;
		f->ooo_bytes -= s->caplen;
		seg_apply(p, f, &cx, s->seq, s->data, s->caplen, s->len);
		cap_tcp_mem_give(p, OOO_COST(s->caplen));
		free(s);
		p->tcp->ooo_segs--;
	}
}

/* Declare the hole before the first queued segment lost. */
static void gap_skip(struct cap_pipe *p, struct tcp_flow *f)
{
	uint32_t hole = f->ooo->seq - f->next_seq;
	struct seg_ctx cx = { f->ooo->frame, f->ooo->ts_ns, f->wm_frame,
			      f->wm_ts_ns };

	p->st.tcp_gaps++;
	p->st.tcp_gap_bytes += hole;
	f->next_seq = f->ooo->seq;
	cap_rec_unknown(p, f, &cx, hole, CAP_MSG_HOLE);
	ooo_drain(p, f);
}

static void ooo_insert(struct cap_pipe *p, struct tcp_flow *f,
		       const struct seg_ctx *cx, uint32_t seq,
		       const uint8_t *d, uint32_t caplen, uint32_t len)
{
	struct ooo_seg **pp = &f->ooo, *s;
	uint32_t ahead = seq - f->next_seq;

	if (f->ooo_tail && f->ooo_tail->seq - f->next_seq < ahead)
		pp = &f->ooo_tail->next;
	while (*pp && (*pp)->seq - f->next_seq < ahead)
		pp = &(*pp)->next;
	if (*pp && (*pp)->seq == seq && (*pp)->len >= len) {
		p->st.tcp_retrans++;	/* already queued */
		f->h_resent++;
		return;
	}
	/* over the budget of all flows: this flow's holes are declared lost
	 * (counted) until the segment fits or is applied in order */
	while (!cap_tcp_mem_take(p, OOO_COST(caplen))) {
		if (!f->ooo || f->state == FS_REJECT) {
			p->st.tcp_mem_evicted++;
			p->st.tcp_gaps++;
			p->st.tcp_gap_bytes += ahead;
			f->next_seq = seq;
			cap_rec_unknown(p, f, cx, ahead, CAP_MSG_HOLE);
			seg_apply(p, f, cx, seq, d, caplen, len);
			return;
		}
		p->st.tcp_mem_evicted++;
		gap_skip(p, f);
		if ((int32_t)(seq - f->next_seq) <= 0) {
			seg_apply(p, f, cx, seq, d, caplen, len);
			ooo_drain(p, f);
			return;
		}
		ahead = seq - f->next_seq;
		pp = &f->ooo;
		while (*pp && (*pp)->seq - f->next_seq < ahead)
			pp = &(*pp)->next;
	}
	s = malloc(sizeof(*s) + caplen);
	if (!s) {
		cap_tcp_mem_give(p, OOO_COST(caplen));
		return;
	}
	s->seq = seq;
	s->caplen = caplen;
	s->len = len;
	s->frame = cx->frame;
	s->ts_ns = cx->ts_ns;
	memcpy(s->data, d, caplen);
	s->next = *pp;
	*pp = s;
	p->tcp->ooo_segs++;
	if (!s->next)
		f->ooo_tail = s;
	f->ooo_bytes += caplen;
	p->st.tcp_ooo++;
	while (f->ooo && f->ooo_bytes > p->cfg.ooo_mem_max &&
	       f->state != FS_REJECT)
		gap_skip(p, f);
}

/*
 * Declare holes lost on evidence (see the file comment): the receiver
 * acknowledged past them (have_ack, ack) and the slack has passed, or they
 * are older than GAP_MAX_AGE_NS.
 */
static void hole_check(struct cap_pipe *p, struct tcp_flow *f, bool have_ack,
		       uint32_t ack)
{
	while (f->ooo && f->state != FS_REJECT) {
		const struct ooo_seg *s = f->ooo;
		int64_t age = p->ts_ns - s->ts_ns;
		bool acked = have_ack && (int32_t)(ack - s->seq) >= 0;
		bool slack = age >= GAP_ACK_SLACK_NS ||
			     p->frame - s->frame >= GAP_ACK_SLACK_PKTS;

		if (!(acked && slack) && age < GAP_MAX_AGE_NS)
			break;
		if (acked && slack) {	/* the receiver has it */
			p->st.tcp_gaps_missed++;
			p->st.tcp_gap_missed_bytes += s->seq - f->next_seq;
		}
		gap_skip(p, f);
	}
}

/* End of the stream: every hole is lost, and so is the rest of an open
 * record. */
static void flow_finish(struct cap_pipe *p, struct tcp_flow *f)
{
	struct seg_ctx cx = { p->frame, p->ts_ns, f->wm_frame, f->wm_ts_ns };

	while (f->ooo && f->state != FS_REJECT)
		gap_skip(p, f);
	cap_rec_end(p, f);
	if (f->state == FS_REJECT || f->rs != RS_BODY || !f->rec_open)
		return;
	p->st.tcp_gaps++;
	p->st.tcp_gap_bytes += f->frag_left;
	if (f->frag_last)
		cap_rec_unknown(p, f, &cx, f->frag_left, CAP_MSG_HOLE);
	f->rec_open = false;
	f->rs = RS_SYNC;
}

/* ---- table ---- */

static void lru_touch(struct cap_tcp_table *t, struct tcp_flow *f)
{
	if (t->lru_head == f)
		return;
	if (f->lru_prev)
		f->lru_prev->lru_next = f->lru_next;
	if (f->lru_next)
		f->lru_next->lru_prev = f->lru_prev;
	else if (t->lru_tail == f)
		t->lru_tail = f->lru_prev;
	f->lru_prev = NULL;
	f->lru_next = t->lru_head;
	if (t->lru_head)
		t->lru_head->lru_prev = f;
	t->lru_head = f;
	if (!t->lru_tail)
		t->lru_tail = f;
}

static struct tcp_flow *flow_find_addr(struct cap_tcp_table *t, uint32_t h,
				       const struct cap_addr *src,
				       const struct cap_addr *dst,
				       uint16_t sport, uint16_t dport)
{
	struct tcp_flow *f;

	for (f = t->bucket[h & (t->nbucket - 1)]; f; f = f->hnext)
		if (f->hash == h && f->sport == sport && f->dport == dport &&
		    cap_addr_eq(&f->src, src) && cap_addr_eq(&f->dst, dst))
			return f;
	return NULL;
}

static bool flow_is(const struct tcp_flow *f, const struct cap_l3 *l3,
		    uint16_t sport, uint16_t dport)
{
	return f->sport == sport && f->dport == dport &&
	       cap_addr_eq(&f->src, &l3->src) && cap_addr_eq(&f->dst, &l3->dst);
}

/* The segment's flow, *h its hash.  A flow is in the table once, so the
 * last segment's flow or its reverse, when either is the segment's, is
 * the one the hash would find (most segments: hashing skipped). */
static struct tcp_flow *flow_find(struct cap_tcp_table *t, uint32_t *h,
				  const struct cap_l3 *l3, uint16_t sport,
				  uint16_t dport)
{
	struct tcp_flow *f = t->last;

	if (f != NULL && !flow_is(f, l3, sport, dport))
		f = f->rev != NULL && flow_is(f->rev, l3, sport, dport) ?
		    f->rev : NULL;
	if (f != NULL) {
		*h = f->hash;
		return f;
	}
	*h = flow_hash(&l3->src, &l3->dst, sport, dport);
	return flow_find_addr(t, *h, &l3->src, &l3->dst, sport, dport);
}

static struct tcp_flow *flow_new(struct cap_pipe *p, uint32_t h,
				 const struct cap_l3 *l3, uint16_t sport,
				 uint16_t dport)
{
	struct cap_tcp_table *t = p->tcp;
	struct tcp_flow *f;

	if (t->nflows >= p->cfg.flows_max && t->lru_tail) {
		p->st.flows_evicted++;
		cap_rec_end(p, t->lru_tail);
		flow_drop(p, t->lru_tail);
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->src = l3->src;
	f->dst = l3->dst;
	f->sport = sport;
	f->dport = dport;
	f->hash = h;
	f->rev = flow_find_addr(t, flow_hash(&l3->dst, &l3->src, dport, sport),
				&l3->dst, &l3->src, dport, sport);
	if (f->rev)
		f->rev->rev = f;
	f->hnext = t->bucket[h & (t->nbucket - 1)];
	t->bucket[h & (t->nbucket - 1)] = f;
	t->nflows++;
	lru_touch(t, f);
	return f;
}

static uint32_t pair_hash(const struct cap_addr *a, const struct cap_addr *b)
{
	return cap_addr_fnv(cap_addr_fnv(BASE_FNV32_INIT, a), b);
}

/* The (client, server) pair's slot of the handshake table, made if new
 * (open addressing); NULL when full (counted). */
static struct cap_handshake *hs_slot(struct cap_pipe *p,
				     const struct cap_addr *client,
				     const struct cap_addr *server)
{
	uint32_t h = pair_hash(client, server), k;

	for (k = 0; k < CAP_HANDSHAKE_PAIRS; k++) {
		struct cap_handshake *e =
			&p->hs[(h + k) % CAP_HANDSHAKE_PAIRS];

		if (!cap_handshake_used(e)) {
			e->client = *client;
			e->server = *server;
			return e;
		}
		if (cap_addr_eq(&e->client, client) &&
		    cap_addr_eq(&e->server, server))
			return e;
	}
	p->hs_dropped++;
	return NULL;
}

/* The first ACK after a SYN/ACK on client direction f: add the
 * handshake's two gaps to its pair's slot. */
static void handshake_done(struct cap_pipe *p, struct tcp_flow *f)
{
	int64_t syn = f->synack_ns - f->syn_ns, ack = p->ts_ns - f->synack_ns;
	struct cap_handshake *e;

	f->syn_ns = f->synack_ns = 0;
	if (syn < 0 || ack < 0 || (e = hs_slot(p, &f->src, &f->dst)) == NULL)
		return;
	if (e->n == 0 || syn < e->syn_min_ns)
		e->syn_min_ns = syn;
	if (e->n == 0 || ack < e->ack_min_ns)
		e->ack_min_ns = ack;
	e->n++;
	e->syn_sum_ns += syn;
	e->ack_sum_ns += ack;
}

/* Calls and replies seen on flow f, hidden ones estimated. */
static void msgs_of(const struct tcp_flow *f, uint64_t *calls,
		    uint64_t *replies)
{
	*calls += f->n_calls;
	*replies += f->n_replies;
	if (f->n_calls > f->n_replies)
		*calls += f->n_hidden;
	else if (f->n_replies > f->n_calls)
		*replies += f->n_hidden;
}

/* Is the connection of flow f in use: a message partly through either
 * way, or a call not yet answered? */
static bool conn_busy(const struct tcp_flow *f)
{
	const struct tcp_flow *r = f->rev;
	uint64_t calls = 0, replies = 0;

	if (f->rec_open || f->hiding || (r && (r->rec_open || r->hiding)))
		return true;
	msgs_of(f, &calls, &replies);
	if (r)
		msgs_of(r, &calls, &replies);
	return calls > replies;
}

/* An RST on flow f: counted (h_rsts) when it cuts a connection in use, once
 * a connection (a close by RST with nothing outstanding is no trouble);
 * the other way's message cut by it is delivered now, before any call sent
 * again on a new connection. */
static void rst_note(struct cap_pipe *p, struct tcp_flow *f)
{
	if (!f->peer_reset && conn_busy(f))
		f->h_rsts++;
	if (f->rev) {
		f->rev->peer_reset = true;
		flow_finish(p, f->rev);
	}
}

/* Flow f ends: its health counters go to its pair's slot, in the
 * direction of its messages. */
static void health_fold(struct cap_handshake *e, struct tcp_flow *f,
			bool calls)
{
	int d = calls ? 0 : 1;

	e->segs[d] += f->h_segs;
	e->resent[d] += f->h_resent;
	e->zero_win[d] += f->h_zwin;
	e->rsts[d] += f->h_rsts;
	e->dupack_loss[1 - d] += f->h_dupack_loss;
	e->stalls40[d] += f->h_st40;
	e->stalls200[d] += f->h_st200;
	e->stall_ns[d] += f->h_stall_ns;
	f->h_segs = f->h_resent = f->h_zwin = f->h_rsts = 0;
	f->h_dupack_loss = f->h_st40 = f->h_st200 = 0;
	f->h_stall_ns = 0;
}

/* Flow f ends: its ACK timing goes to its pair's slot, as the server's
 * (f carries calls) or the client's (f carries replies) response. */
static void rsp_fold(struct cap_pipe *p, struct tcp_flow *f)
{
	struct cap_handshake *e;
	bool calls = f->n_calls > f->n_replies;

	if (f->n_calls == f->n_replies ||
	    (f->rsp_n == 0 && f->h_segs == 0 && f->h_rsts == 0 &&
	     f->h_dupack_loss == 0 && f->h_st40 == 0 && f->h_st200 == 0))
		return;
	e = calls ? hs_slot(p, &f->src, &f->dst) : hs_slot(p, &f->dst, &f->src);
	if (e == NULL)
		return;
	health_fold(e, f, calls);
	if (f->rsp_n == 0)
		return;
	if (calls) {
		if (e->srv_n == 0 || f->rsp_min_ns < e->srv_min_ns)
			e->srv_min_ns = f->rsp_min_ns;
		e->srv_n += f->rsp_n;
	} else {
		if (e->cli_n == 0 || f->rsp_min_ns < e->cli_min_ns)
			e->cli_min_ns = f->rsp_min_ns;
		e->cli_n += f->rsp_n;
	}
	f->rsp_n = 0;
}

static void flow_drop(struct cap_pipe *p, struct tcp_flow *f)
{
	rsp_fold(p, f);
	flow_unlink_free(p->tcp, f, &p->tcp_mem);
}

/* A pure ACK on flow f: the third of the same number in a row signals
 * a lost segment of the other direction (RFC 5681 fast retransmit). */
static void dup_ack(struct tcp_flow *f, uint32_t ack)
{
	if (ack != f->last_ack) {
		f->last_ack = ack;
		f->dup_acks = 0;
	} else if (++f->dup_acks == 3) {
		f->h_dupack_loss++;
	}
}

/* A pure ACK on flow f: does it answer the other direction's data
 * segment that awaits one? */
static void ack_timing(struct cap_pipe *p, struct tcp_flow *f, uint32_t ack)
{
	struct tcp_flow *r = f->rev;
	int64_t w;

	dup_ack(f, ack);
	if (r == NULL || !r->ack_waiting ||
	    (int32_t)(ack - r->ack_wait_end) < 0)
		return;
	r->ack_waiting = false;
	w = p->ts_ns - r->ack_wait_ns;
	if (w < 0)
		return;
	if (r->rsp_n == 0 || w < r->rsp_min_ns)
		r->rsp_min_ns = w;
	r->rsp_n++;
}

/* A data segment on f: new data starts a wait for its ACK if none is
 * open; a resent one ends the wait it overlaps (which copy would the ACK
 * answer?). */
static void ack_wait(struct cap_pipe *p, struct tcp_flow *f, uint32_t seq,
		     uint32_t len)
{
	if (seq == f->next_seq) {
		if (!f->ack_waiting) {
			f->ack_waiting = true;
			f->ack_wait_ns = p->ts_ns;
			f->ack_wait_end = seq + len;
		}
	} else if ((int32_t)(seq - f->next_seq) < 0 && f->ack_waiting &&
		   (int32_t)(seq - f->ack_wait_end) < 0) {
		f->ack_waiting = false;
	}
}

/* A SYN/ACK from l3->src: time it on the client direction's open SYN; a
 * second one spoils the timing. */
static void synack_seen(struct cap_pipe *p, const struct cap_l3 *l3,
			uint16_t sport, uint16_t dport)
{
	struct cap_tcp_table *t = p->tcp;
	uint32_t rh = flow_hash(&l3->dst, &l3->src, dport, sport);
	struct tcp_flow *r = flow_find_addr(t, rh, &l3->dst, &l3->src,
					    dport, sport);

	if (r == NULL || !r->syn_ns)
		return;
	if (r->synack_ns)
		r->syn_ns = r->synack_ns = 0;
	else
		r->synack_ns = p->ts_ns;
}

void cap_tcp_input(struct cap_pipe *p, const struct cap_l3 *l3)
{
	struct cap_tcp_table *t = p->tcp;
	const uint8_t *d = l3->data;
	struct seg_ctx cx = { p->frame, p->ts_ns, p->frame, p->ts_ns };
	struct tcp_flow *f;
	uint32_t doff, seq, caplen, len, h;
	uint16_t sport, dport;
	uint8_t fl;

	if (l3->caplen < 20) {
		if (l3->len < 20)
			p->st.ip_errors++;
		return;
	}
	doff = (uint32_t)(d[12] >> 4) * 4;
	if (doff < 20 || doff > l3->len) {
		p->st.ip_errors++;
		return;
	}
	if (doff > l3->caplen)
		return;		/* options cut by snaplen */
	sport = cap_be16(d);
	dport = cap_be16(d + 2);
	seq = cap_be32(d + 4);
	fl = d[13];
	caplen = l3->caplen - doff;
	len = l3->len - doff;
	d += doff;
	if ((fl & TH_ACK) && t->ooo_segs > 0) {
		/* the reverse direction's holes: did its receiver (us) get
		 * bytes the capture never showed?  (Not looked up while no
		 * flow has a segment queued, hence no hole.) */
		uint32_t rh = flow_hash(&l3->dst, &l3->src, dport, sport);
		struct tcp_flow *r = flow_find_addr(t, rh, &l3->dst, &l3->src,
						    dport, sport);

		if (r && r->ooo)
			hole_check(p, r, true, cap_be32(l3->data + 8));
	}
	f = flow_find(t, &h, l3, sport, dport);

	if (fl & TH_SYN) {
		if (f && f->next_seq == seq + 1 && f->state != FS_REJECT) {
			f->syn_ns = 0;	/* retransmitted SYN: no timing */
			if (fl & TH_ACK)
				synack_seen(p, l3, sport, dport);
			return;
		}
		if (f) {
			flow_finish(p, f);
			flow_drop(p, f);
		}
		if (fl & TH_ACK)
			synack_seen(p, l3, sport, dport);
		f = flow_new(p, h, l3, sport, dport);
		if (f) {
			f->state = FS_PENDING;
			f->next_seq = seq + 1;
			f->last_ts_ns = p->ts_ns;
			if (!(fl & TH_ACK))
				f->syn_ns = p->ts_ns;
		}
		return;
	}
	if (f && f->synack_ns && (fl & TH_ACK))
		handshake_done(p, f);
	if (f && (fl & (TH_ACK | TH_FIN | TH_RST)) == TH_ACK && len == 0)
		ack_timing(p, f, cap_be32(l3->data + 8));
	if (!f) {
		if (len == 0)
			return;
		struct cap_msg tm;

		memset(&tm, 0, sizeof(tm));
		tm.frame = tm.first_frame = p->frame;
		tm.ts_ns = tm.first_ts_ns = p->ts_ns;
		tm.src = l3->src;
		tm.dst = l3->dst;
		tm.sport = sport;
		tm.dport = dport;
		tm.transport = CAP_TCP;
		if (caplen < 4 || !cap_rec_sane_mark(p, &tm, d, caplen, false)) {
			p->st.tcp_not_rpc++;
			return;
		}
		f = flow_new(p, h, l3, sport, dport);
		if (!f)
			return;
		f->state = FS_FOLLOW;
		f->next_seq = seq;
		p->st.flows++;
	}
	lru_touch(t, f);
	t->last = f;
	f->last_ts_ns = p->ts_ns;
	if (f->ooo)
		hole_check(p, f, false, 0);
	if (len > 0) {
		if (f->state == FS_REJECT) {
			p->st.tcp_not_rpc++;
		} else {
			p->st.tcp_segments++;
			f->h_segs++;
			if (len > p->st.tcp_seg_max)
				p->st.tcp_seg_max = len;
			f->seg_short = len < 536 || len < f->seg_max;
			if (len > f->seg_max)
				f->seg_max = len;
			if (caplen < len && caplen > p->st.tcp_seg_cut_max)
				p->st.tcp_seg_cut_max = caplen;
			ack_wait(p, f, seq, len);
			if ((int32_t)(seq - f->next_seq) > 0)
				ooo_insert(p, f, &cx, seq, d, caplen, len);
			else
				seg_apply(p, f, &cx, seq, d, caplen, len);
			ooo_drain(p, f);
		}
	}
	if (f->state == FS_REJECT) {
		ooo_free_all(t, f, &p->tcp_mem);
		f->rs = RS_SYNC;
	}
	if ((fl & (TH_RST | TH_SYN | TH_FIN)) == 0 && l3->caplen >= 16 &&
	    cap_be16(l3->data + 14) == 0)
		f->h_zwin++;
	if (fl & TH_RST) {
		rst_note(p, f);
		flow_finish(p, f);
		flow_drop(p, f);
		return;
	}
	if (fl & TH_FIN) {
		f->fin = true;
		f->fin_seq = seq + len;
	}
	if (f->fin && (int32_t)(f->next_seq - f->fin_seq) >= 0) {
		flow_finish(p, f);
		flow_drop(p, f);
	}
}

void cap_tcp_expire(struct cap_pipe *p, bool all)
{
	struct cap_tcp_table *t = p->tcp;
	uint64_t limit = (uint64_t)p->cfg.flow_idle_ms * 1000000;

	while (t->lru_tail &&
	       (all || cap_aged(t->lru_tail->last_ts_ns, p->now_ns, limit))) {
		struct tcp_flow *f = t->lru_tail;

		flow_finish(p, f);
		if (!all)
			p->st.flows_expired++;
		flow_drop(p, f);
	}
}
