/*
 * tcp.c - TCP byte streams per flow direction, cut into ONC RPC records by
 * record marking (RFC 5531 section 11):
 *
 *     A record is one or more record fragments.  A fragment is a four-byte
 *     header followed by 0 to (2**31) - 1 bytes of data.  The high bit of
 *     the header says whether this is the last fragment of the record; the
 *     other 31 bits are the fragment's length in bytes.
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
 *     network, lost it) and the hole is older than GAP_ACK_SLACK_NS or
 *     GAP_ACK_SLACK_PKTS frames (captures from multi-core hosts reorder
 *     segments and their ACKs by that much on a clean link); the check runs
 *     before the acknowledging segment's own payload, so calls behind the
 *     hole are delivered before their replies;
 *   - it is older than GAP_MAX_AGE_NS (a sender retransmits a segment the
 *     network lost well within that);
 *   - the queue exceeds ooo_mem_max, or at FIN/RST, idle expiry, flush.
 *
 * Unknown bytes (holes, or bytes cut by snaplen: the stream advances by
 * WIRE length) inside a record body of known length are skipped: the
 * record is delivered with its captured prefix and CAP_MSG_HOLE or
 * CAP_MSG_TRUNCATED.  Unknown bytes where a mark should be lose the sync:
 * the parser scans forward in captured data for a sane mark followed by
 * bytes the probe accepts (tcp_resyncs; the next record gets
 * CAP_MSG_AFTER_GAP).  A mark longer than CAP_REC_MAX loses the sync too.
 *
 * Delivery: a record lying wholly in one segment is delivered straight
 * from the packet; otherwise its bytes are gathered in the flow's buffer
 * (grown up to record_keep and reused; longer records are delivered
 * truncated to record_keep).
 *
 * Table: hash table of at most flows_max directions with an LRU list;
 * the least recently used is evicted (flows_evicted), directions idle for
 * flow_idle_ms of capture time are finished (flows_expired).  The table
 * owns the flows, each flow owns its buffer and queued segments.
 */
#include <stdlib.h>
#include <string.h>

#include "capture/capture_int.h"

#define TH_FIN 0x01
#define TH_SYN 0x02
#define TH_RST 0x04
#define TH_ACK 0x10

#define GAP_ACK_SLACK_NS 200000		/* 200 us */
#define GAP_ACK_SLACK_PKTS 8
#define GAP_MAX_AGE_NS 5000000000LL	/* 5 s */

enum flow_state { FS_PENDING, FS_FOLLOW, FS_REJECT };
enum rec_state { RS_MARK, RS_BODY, RS_SYNC };

/* A segment held out of order; data[] holds its captured bytes. */
struct ooo_seg {
	struct ooo_seg *next;
	uint32_t seq, caplen, len;
	uint64_t frame;
	int64_t ts_ns;
	uint8_t data[];
};

/*
 * Where the bytes being parsed came from.  frame/ts_ns: the segment's own
 * frame (a record's first_frame is that of its first byte).  done_frame/
 * done_ts_ns: the latest frame of all segments applied to the stream so far
 * (a watermark, monotone): a record is complete when every byte up to its
 * end is there, so it completes in the frame that supplied the last missing
 * one.  Out of order, that is the frame that filled the hole (tshark does
 * the same); after a hole declared lost, the lost bytes do not count.
 */
struct seg_ctx {
	uint64_t frame;
	int64_t ts_ns;
	uint64_t done_frame;
	int64_t done_ts_ns;
};

struct tcp_flow {
	struct tcp_flow *hnext;		/* hash chain */
	struct tcp_flow *lru_prev, *lru_next;	/* prev: more recent */
	struct cap_addr src, dst;
	uint16_t sport, dport;
	uint32_t hash;
	uint8_t state;			/* enum flow_state */
	bool fin;
	uint32_t fin_seq;
	uint32_t next_seq;
	int64_t last_ts_ns;
	/* record parser */
	uint8_t rs;			/* enum rec_state */
	uint8_t mark_have;
	uint8_t mark[4];
	bool rec_open;			/* a record has begun */
	bool frag_last;
	bool buf_frozen;		/* unknown bytes seen: stop gathering */
	uint32_t frag_left;
	uint32_t rec_len, rec_frags;
	uint32_t rec_flags, pend_flags;
	uint64_t first_frame;
	int64_t first_ts_ns;
	uint64_t wm_frame;		/* watermark: see struct seg_ctx */
	int64_t wm_ts_ns;
	uint8_t sync_tail[32];		/* RS_SYNC: last bytes, not yet judged */
	uint8_t sync_have;
	uint8_t *buf;			/* owned, reused between records */
	uint32_t buf_len, buf_cap;
	struct ooo_seg *ooo;		/* owned, sorted by seq */
	struct ooo_seg *ooo_tail;	/* last of ooo: in-order arrivals
					   behind a hole append in O(1) */
	size_t ooo_bytes;
};

/* Owned by the pipe. */
struct cap_tcp_table {
	struct tcp_flow **bucket;
	uint32_t nbucket;		/* power of two */
	uint32_t nflows;
	struct tcp_flow *lru_head, *lru_tail;	/* head: most recent */
};

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

static void ooo_free_all(struct tcp_flow *f)
{
	while (f->ooo) {
		struct ooo_seg *s = f->ooo;

		f->ooo = s->next;
		free(s);
	}
	f->ooo_tail = NULL;
	f->ooo_bytes = 0;
}

static void flow_unlink_free(struct cap_tcp_table *t, struct tcp_flow *f)
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
	ooo_free_all(f);
	free(f->buf);
	free(f);
}

void cap_tcp_free(struct cap_tcp_table *t)
{
	if (!t)
		return;
	while (t->lru_head)
		flow_unlink_free(t, t->lru_head);
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

/* ---- record parser ---- */

#define PROBE_BYTES 512u		/* record prefix gathered for the probe */
#define PROBE_FRAGS 16		/* record fragments walked for it */

/*
 * Does d (n captured bytes) start with a record mark followed by bytes that
 * look like the start of an RPC message?  RFC 5531 lets a sender split a
 * record anywhere, so the first fragments may be shorter than an RPC header:
 * then up to PROBE_BYTES of the record are gathered across the following
 * marks (captured ones only) and the probe judges those.
 */
static bool run_probe(cap_probe_fn probe, const struct cap_pipe *p,
		      const struct cap_msg *tmpl, const uint8_t *d,
		      uint32_t caplen, uint32_t len)
{
	struct cap_msg m = *tmpl;

	m.data = d;
	m.caplen = caplen;
	m.len = len;
	return probe(p->cfg.probe_user, &m);
}

/* The flow's identity, for the probe. */
static void flow_tmpl(const struct cap_pipe *p, const struct tcp_flow *f,
		      struct cap_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->frame = m->first_frame = p->frame;
	m->ts_ns = m->first_ts_ns = p->ts_ns;
	m->src = f->src;
	m->dst = f->dst;
	m->sport = f->sport;
	m->dport = f->dport;
	m->transport = CAP_TCP;
}

/* Four bytes that can be a record mark at all. */
static bool mark_plausible(const uint8_t *d)
{
	uint32_t mk = cap_be32(d), fl = mk & 0x7fffffffu;

	if (fl > CAP_REC_MAX)
		return false;
	return !(mk & 0x80000000u) || fl >= CAP_REC_MIN;
}

/*
 * Does d (n captured bytes) start with a record mark followed by bytes that
 * look like the start of an RPC message?  RFC 5531 lets a sender split a
 * record anywhere, so the first fragments may be shorter than an RPC header:
 * then up to PROBE_BYTES of the record are gathered across the following
 * marks (captured ones only) and the probe judges those.
 *
 * After a gap (resync) every offset is a candidate, so more is asked: a
 * record whose end was captured must be followed by a plausible mark (or
 * the end of the data), and a record starting with short fragments must
 * have been captured whole.  Within XDR data, small integers look like
 * short record fragments all the time.
 */
static bool sane_mark(const struct cap_pipe *p, const struct cap_msg *tmpl,
		      const uint8_t *d, uint32_t n, bool resync)
{
	cap_probe_fn probe = resync && p->cfg.resync_probe ?
			     p->cfg.resync_probe : p->cfg.probe;
	uint8_t tmp[PROBE_BYTES];
	uint32_t mk = cap_be32(d), fl = mk & 0x7fffffffu, avail = n - 4;
	uint32_t have = 0, off = 0, total = 0;
	bool last = false;
	int frags = 0;

	if (fl > CAP_REC_MAX)
		return false;
	if ((mk & 0x80000000u) || fl >= PROBE_BYTES) {
		/* the common case: the first fragment holds the header */
		if (fl < CAP_REC_MIN)
			return false;
		if (resync && (mk & 0x80000000u) && fl <= avail &&
		    4 <= avail - fl && !mark_plausible(d + 4 + fl))
			return false;
		if (!probe)
			return true;
		return run_probe(probe, p, tmpl, d + 4, avail < fl ? avail : fl,
				 fl);
	}
	while (have < PROBE_BYTES && !last && frags < PROBE_FRAGS &&
	       4 <= n - off) {
		uint32_t take;

		mk = cap_be32(d + off);
		fl = mk & 0x7fffffffu;
		last = (mk & 0x80000000u) != 0;
		if (fl > CAP_REC_MAX - total)
			return false;
		total += fl;
		off += 4;
		frags++;
		take = fl;
		if (take > n - off)
			take = n - off;
		if (take > PROBE_BYTES - have)
			take = PROBE_BYTES - have;
		memcpy(tmp + have, d + off, take);
		have += take;
		if (take < fl)
			break;
		off += fl;
	}
	if (last && total < CAP_REC_MIN)
		return false;
	if (resync && !(last && have == total &&
			(4 > n - off || mark_plausible(d + off))))
		return false;
	if (!probe)
		return total >= CAP_REC_MIN;
	/* record length unknown until the last mark: judge on what is here */
	return run_probe(probe, p, tmpl, tmp, have, last ? total : CAP_REC_MAX);
}

static void deliver(struct cap_pipe *p, struct tcp_flow *f,
		    const struct seg_ctx *done, const uint8_t *d,
		    uint32_t caplen, uint32_t len, uint32_t flags,
		    uint64_t first_frame, int64_t first_ts_ns)
{
	struct cap_msg m;

	if (f->state == FS_PENDING) {
		/* stream start known: the first record decides */
		flow_tmpl(p, f, &m);
		if (len < CAP_REC_MIN ||
		    (p->cfg.probe &&
		     !run_probe(p->cfg.probe, p, &m, d, caplen, len))) {
			f->state = FS_REJECT;
			return;
		}
		f->state = FS_FOLLOW;
		p->st.flows++;
	}
	if (caplen < len && !(flags & CAP_MSG_HOLE))
		flags |= CAP_MSG_TRUNCATED;
	memset(&m, 0, sizeof(m));
	m.frame = done->done_frame;
	m.ts_ns = done->done_ts_ns;
	m.first_frame = first_frame;
	m.first_ts_ns = first_ts_ns;
	m.src = f->src;
	m.dst = f->dst;
	m.sport = f->sport;
	m.dport = f->dport;
	m.transport = CAP_TCP;
	m.flags = flags;
	m.caplen = caplen;
	m.len = len;
	m.data = d;
	p->st.tcp_msgs++;
	if (p->fn)
		p->fn(p->user, &m);
}

/*
 * The record boundary is lost.  If the bytes at hand were not a record mark
 * (content), a direction whose stream start we saw is not RPC: reject it.
 * If bytes were missing (a hole, or cut by the snaplen), nothing is known
 * about the content: keep looking for a plausible header.
 */
static void lose_sync(struct tcp_flow *f, bool content)
{
	f->rs = RS_SYNC;
	f->rec_open = false;
	f->mark_have = 0;
	f->sync_have = 0;
	if (f->state == FS_PENDING && content)
		f->state = FS_REJECT;
}

/* The current fragment's body is complete. */
static void frag_done(struct cap_pipe *p, struct tcp_flow *f,
		      const struct seg_ctx *cx)
{
	uint32_t flags = f->rec_flags;

	f->rs = RS_MARK;
	if (!f->frag_last)
		return;
	if (f->rec_frags > 1)
		flags |= CAP_MSG_MULTIFRAG;
	f->rec_open = false;
	deliver(p, f, cx, f->buf, f->buf_len, f->rec_len, flags,
		f->first_frame, f->first_ts_ns);
}

static void gather(struct cap_pipe *p, struct tcp_flow *f, const uint8_t *d,
		   uint32_t n)
{
	uint32_t keep = p->cfg.record_keep, room;

	if (f->buf_frozen)
		return;
	room = keep - f->buf_len;
	if (n > room) {
		n = room;
		f->buf_frozen = true;
	}
	if (n > f->buf_cap - f->buf_len) {
		uint32_t ncap = f->buf_cap ? f->buf_cap : 4096;
		uint8_t *nb;

		while (ncap - f->buf_len < n && ncap < keep)
			ncap = ncap > keep / 2 ? keep : ncap * 2;
		nb = realloc(f->buf, ncap);
		if (!nb) {
			f->buf_frozen = true;
			return;
		}
		f->buf = nb;
		f->buf_cap = ncap;
	}
	memcpy(f->buf + f->buf_len, d, n);
	f->buf_len += n;
}

/* A complete mark is in f->mark. */
static void mark_done(struct cap_pipe *p, struct tcp_flow *f)
{
	uint32_t fl = cap_be32(f->mark) & 0x7fffffffu;

	f->mark_have = 0;
	if (fl > CAP_REC_MAX || fl > CAP_REC_MAX - f->rec_len) {
		lose_sync(f, true);
		return;
	}
	f->rec_frags++;
	f->rec_len += fl;
	f->frag_left = fl;
	f->frag_last = (f->mark[0] & 0x80) != 0;
	f->rs = RS_BODY;
}

static void record_begin(struct tcp_flow *f, const struct seg_ctx *cx)
{
	f->rec_open = true;
	f->rec_len = 0;
	f->rec_frags = 0;
	f->rec_flags = f->pend_flags;
	f->pend_flags = 0;
	f->buf_len = 0;
	f->buf_frozen = false;
	f->first_frame = cx->frame;
	f->first_ts_ns = cx->ts_ns;
}

static void rec_known(struct cap_pipe *p, struct tcp_flow *f,
		      const struct seg_ctx *cx, const uint8_t *d, uint32_t n);

static void sync_found(struct cap_pipe *p, struct tcp_flow *f)
{
	f->rs = RS_MARK;
	f->mark_have = 0;
	f->rec_open = false;
	f->sync_have = 0;
	f->pend_flags |= CAP_MSG_AFTER_GAP;
	p->st.tcp_resyncs++;
}

/*
 * Out of sync: look for a sane mark followed by bytes the probe accepts.
 * A candidate is judged once SYNC_LOOK bytes of it are at hand; candidates
 * closer than that to the end of a segment are carried (sync_tail) and
 * judged with the next segment's bytes joined, so a mark split across
 * segments is found too.  Returns the offset in d where parsing goes on
 * (n if nothing was found).
 */
#define SYNC_LOOK 24u

static uint32_t sync_scan(struct cap_pipe *p, struct tcp_flow *f,
			  const struct seg_ctx *cx, const uint8_t *d,
			  uint32_t off, uint32_t n)
{
	uint32_t i, keep;
	struct cap_msg tm;

	flow_tmpl(p, f, &tm);
	if (f->sync_have) {
		uint8_t jb[sizeof(f->sync_tail) + PROBE_BYTES + 4];
		uint32_t th = f->sync_have, add = n - off, jn;

		if (add > sizeof(jb) - th)
			add = (uint32_t)sizeof(jb) - th;
		memcpy(jb, f->sync_tail, th);
		memcpy(jb + th, d + off, add);
		jn = th + add;
		for (i = 0; i < th && SYNC_LOOK <= jn - i; i++) {
			if (sane_mark(p, &tm, jb + i, jn - i, true)) {
				uint8_t tb[sizeof(f->sync_tail)];

				memcpy(tb, jb + i, th - i);
				sync_found(p, f);
				rec_known(p, f, cx, tb, th - i);
				return off;
			}
		}
		if (i < th) {
			/* still too few bytes to judge: carry them on */
			keep = jn - i;
			if (keep > sizeof(f->sync_tail))
				keep = (uint32_t)sizeof(f->sync_tail);
			memcpy(f->sync_tail, jb + jn - keep, keep);
			f->sync_have = (uint8_t)keep;
			if (add == n - off)
				return n;
			f->sync_have = 0;	/* judged with the rest below */
		}
		f->sync_have = 0;
	}
	for (i = off; SYNC_LOOK <= n - i; i++) {
		if (sane_mark(p, &tm, d + i, n - i, true)) {
			sync_found(p, f);
			return i;
		}
	}
	keep = n - i;
	if (keep > sizeof(f->sync_tail))
		keep = (uint32_t)sizeof(f->sync_tail);
	memcpy(f->sync_tail, d + n - keep, keep);
	f->sync_have = (uint8_t)keep;
	return n;
}

/* n captured stream bytes. */
static void rec_known(struct cap_pipe *p, struct tcp_flow *f,
		      const struct seg_ctx *cx, const uint8_t *d, uint32_t n)
{
	uint32_t off = 0, take;

	while (off < n && f->state != FS_REJECT) {
		switch (f->rs) {
		case RS_SYNC:
			off = sync_scan(p, f, cx, d, off, n);
			break;
		case RS_MARK:
			if (!f->rec_open && f->mark_have == 0 &&
			    4 <= n - off && (d[off] & 0x80)) {
				uint32_t fl = cap_be32(d + off) & 0x7fffffffu;

				if (fl <= n - off - 4 && fl <= CAP_REC_MAX) {
					/* whole record here: no copy */
					uint32_t flags = f->pend_flags;
					uint32_t c = fl < p->cfg.record_keep ?
						     fl : p->cfg.record_keep;

					f->pend_flags = 0;
					deliver(p, f, cx, d + off + 4, c, fl,
						flags, cx->frame, cx->ts_ns);
					off += 4 + fl;
					break;
				}
			}
			if (!f->rec_open)
				record_begin(f, cx);
			take = 4u - f->mark_have;
			if (take > n - off)
				take = n - off;
			memcpy(f->mark + f->mark_have, d + off, take);
			f->mark_have += (uint8_t)take;
			off += take;
			if (f->mark_have == 4) {
				mark_done(p, f);
				if (f->rs == RS_BODY && f->frag_left == 0)
					frag_done(p, f, cx);
			}
			break;
		case RS_BODY:
			take = f->frag_left;
			if (take > n - off)
				take = n - off;
			gather(p, f, d + off, take);
			off += take;
			f->frag_left -= take;
			if (f->frag_left == 0)
				frag_done(p, f, cx);
			break;
		}
	}
}

/* n stream bytes that are unknown: why is CAP_MSG_HOLE (never seen) or
 * CAP_MSG_TRUNCATED (cut by snaplen). */
static void rec_unknown(struct cap_pipe *p, struct tcp_flow *f,
			const struct seg_ctx *cx, uint32_t n, uint32_t why)
{
	uint32_t take;

	while (n > 0 && f->state != FS_REJECT) {
		switch (f->rs) {
		case RS_SYNC:
			f->sync_have = 0;	/* the tail is not contiguous */
			return;
		case RS_MARK:
			lose_sync(f, false);
			return;
		case RS_BODY:
			take = f->frag_left < n ? f->frag_left : n;
			f->rec_flags |= why;
			f->buf_frozen = true;
			f->frag_left -= take;
			n -= take;
			if (f->frag_left == 0)
				frag_done(p, f, cx);
			break;
		}
	}
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
		return;
	}
	if (back > 0) {		/* partly old */
		if (back < caplen) {
			d += back;
			caplen -= back;
		} else {
			caplen = 0;
		}
		len -= back;
	}
	f->next_seq += len;
	rec_known(p, f, cx, d, caplen);
	if (caplen < len)
		rec_unknown(p, f, cx, len - caplen, CAP_MSG_TRUNCATED);
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
		free(s);
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
	rec_unknown(p, f, &cx, hole, CAP_MSG_HOLE);
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
		return;
	}
	s = malloc(sizeof(*s) + caplen);
	if (!s)
		return;
	s->seq = seq;
	s->caplen = caplen;
	s->len = len;
	s->frame = cx->frame;
	s->ts_ns = cx->ts_ns;
	memcpy(s->data, d, caplen);
	s->next = *pp;
	*pp = s;
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
	if (f->state == FS_REJECT || f->rs != RS_BODY || !f->rec_open)
		return;
	p->st.tcp_gaps++;
	p->st.tcp_gap_bytes += f->frag_left;
	if (f->frag_last)
		rec_unknown(p, f, &cx, f->frag_left, CAP_MSG_HOLE);
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

static struct tcp_flow *flow_find(struct cap_tcp_table *t, uint32_t h,
				  const struct cap_l3 *l3, uint16_t sport,
				  uint16_t dport)
{
	return flow_find_addr(t, h, &l3->src, &l3->dst, sport, dport);
}

static struct tcp_flow *flow_new(struct cap_pipe *p, uint32_t h,
				 const struct cap_l3 *l3, uint16_t sport,
				 uint16_t dport)
{
	struct cap_tcp_table *t = p->tcp;
	struct tcp_flow *f;

	if (t->nflows >= p->cfg.flows_max && t->lru_tail) {
		p->st.flows_evicted++;
		flow_unlink_free(t, t->lru_tail);
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->src = l3->src;
	f->dst = l3->dst;
	f->sport = sport;
	f->dport = dport;
	f->hash = h;
	f->hnext = t->bucket[h & (t->nbucket - 1)];
	t->bucket[h & (t->nbucket - 1)] = f;
	t->nflows++;
	lru_touch(t, f);
	return f;
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
	h = flow_hash(&l3->src, &l3->dst, sport, dport);
	if (fl & TH_ACK) {
		/* the reverse direction's holes: did its receiver (us) get
		 * bytes the capture never showed? */
		uint32_t rh = flow_hash(&l3->dst, &l3->src, dport, sport);
		struct tcp_flow *r = flow_find_addr(t, rh, &l3->dst, &l3->src,
						    dport, sport);

		if (r && r->ooo)
			hole_check(p, r, true, cap_be32(l3->data + 8));
	}
	f = flow_find(t, h, l3, sport, dport);

	if (fl & TH_SYN) {
		if (f && f->next_seq == seq + 1 && f->state != FS_REJECT)
			return;		/* retransmitted SYN */
		if (f) {
			flow_finish(p, f);
			flow_unlink_free(t, f);
		}
		f = flow_new(p, h, l3, sport, dport);
		if (f) {
			f->state = FS_PENDING;
			f->next_seq = seq + 1;
			f->last_ts_ns = p->ts_ns;
		}
		return;
	}
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
		if (caplen < 4 || !sane_mark(p, &tm, d, caplen, false)) {
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
	f->last_ts_ns = p->ts_ns;
	if (f->ooo)
		hole_check(p, f, false, 0);
	if (len > 0) {
		if (f->state == FS_REJECT) {
			p->st.tcp_not_rpc++;
		} else {
			p->st.tcp_segments++;
			if ((int32_t)(seq - f->next_seq) > 0)
				ooo_insert(p, f, &cx, seq, d, caplen, len);
			else
				seg_apply(p, f, &cx, seq, d, caplen, len);
			ooo_drain(p, f);
		}
	}
	if (f->state == FS_REJECT) {
		ooo_free_all(f);
		f->rs = RS_SYNC;
	}
	if (fl & TH_RST) {
		flow_finish(p, f);
		flow_unlink_free(t, f);
		return;
	}
	if (fl & TH_FIN) {
		f->fin = true;
		f->fin_seq = seq + len;
	}
	if (f->fin && (int32_t)(f->next_seq - f->fin_seq) >= 0) {
		flow_finish(p, f);
		flow_unlink_free(t, f);
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
		flow_unlink_free(t, f);
	}
}
