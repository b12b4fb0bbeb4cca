/*
 * rpcrec.c - ONC RPC record marking (RFC 5531 section 11) on the byte
 * stream of one TCP flow direction:
 *
 *     A record is one or more record fragments.  A fragment is a four-byte
 *     header followed by 0 to (2**31) - 1 bytes of data.  The high bit of
 *     the header says whether this is the last fragment of the record; the
 *     other 31 bits are the fragment's length in bytes.
 *
 * tcp.c applies bytes in stream order (cap_rec_known) or reports bytes that
 * are unknown (cap_rec_unknown: holes, or cut by the snaplen: the stream
 * advances by wire length).  Unknown bytes inside a record body of known
 * length are skipped: the record is delivered with its captured prefix and
 * CAP_MSG_HOLE or CAP_MSG_TRUNCATED.  Unknown bytes where a mark should be
 * lose the sync: the parser scans forward for a plausible mark (sync_scan,
 * cap_rec_sane_mark; tcp_resyncs; the next record gets CAP_MSG_AFTER_GAP).
 * A mark longer than CAP_REC_MAX loses the sync too.
 *
 * Hidden records (header-only captures): when the snaplen cut the part of a
 * segment where the next mark lies (its place is known from the previous
 * record's length), a span opens at that stream position (hide_open) and
 * closes at the resync (sync_found) or at the end of the flow
 * (cap_rec_end: no record follows to say so, cap_config's hidden_end does).  The span holds whole records, at least one; their number
 * is estimated from its length and the length of the records around it
 * when it closes (hidden_count; the estimator is described at struct
 * cap_stats).  f->pos counts every
 * stream byte the parser was given, captured or not.
 *
 * Delivery: a record lying wholly in one segment is delivered straight
 * from the packet; otherwise its bytes are gathered in the flow's buffer
 * (grown up to record_keep and reused; longer records are delivered
 * truncated to record_keep).
 */
#include <stdlib.h>
#include <string.h>

#include "capture/tcp_int.h"

#define PROBE_BYTES 512u		/* record prefix gathered for the probe */
#define PROBE_FRAGS 16		/* record fragments walked for it */
#define BUF_KEEP 16384u		/* record buffer kept between records */
#define PENDING_PROBES 8	/* records that fail before a direction whose
				   start we saw is taken for not RPC */
#define SYNC_LOOK 24u		/* bytes to judge a resync candidate */

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
bool cap_rec_sane_mark(const struct cap_pipe *p, const struct cap_msg *tmpl,
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

/* A closed span of h bytes: estimate its records (each as long as the
 * record before the span, or the direction's average if that is larger:
 * see struct cap_stats) and count them as the direction's kind
 * (what it delivered most; by the ports if nothing). */
static bool hidden_count(struct cap_pipe *p, struct tcp_flow *f, uint64_t h)
{
	uint64_t k = 1, size = f->hide_size;
	bool replies;

	if (f->hide_segs > 0 && f->rec_n > 0 && f->rec_sum / f->rec_n > size)
		size = f->rec_sum / f->rec_n;
	if (size > 0)
		k = (h + size / 2) / size;

	if (k == 0)
		k = 1;
	if (f->n_calls != f->n_replies)
		replies = f->n_replies > f->n_calls;
	else
		replies = f->sport == 2049 || (f->sport < f->dport &&
					       f->dport != 2049);
	if (replies)
		p->st.tcp_hidden_replies += k;
	else
		p->st.tcp_hidden_calls += k;
	f->n_hidden += (uint32_t)k;
	return replies;
}

/* A record of wire bytes (marks included) is delivered: its kind and
 * length feed the estimate of hidden ones. */
static void hidden_note(struct cap_pipe *p, struct tcp_flow *f,
			const uint8_t *d, uint32_t caplen, uint64_t wire)
{
	if (caplen >= 8) {
		uint32_t t = cap_be32(d + 4);

		if (t == 0)
			f->n_calls++;
		else if (t == 1)
			f->n_replies++;
	}
	f->last_wire = wire;
	f->rec_sum += wire;
	f->rec_n++;
}

/* The mark of the record at stream position at was cut by the snaplen. */
static void hide_open(struct cap_pipe *p, struct tcp_flow *f, uint64_t at)
{
	if (f->state != FS_FOLLOW || f->hiding)
		return;
	f->hiding = true;
	f->hide_start = at;
	f->hide_size = f->last_wire;
	f->hide_segs = 0;
	f->hide_ts_ns = p->ts_ns;
	p->st.tcp_hidden_spans++;
	if (!f->hidden_any) {
		f->hidden_any = true;
		p->st.tcp_hidden_flows++;
	}
}

/* The open span ends at stream position at.  True if one was open and
 * its records counted as replies. */
static bool hide_close(struct cap_pipe *p, struct tcp_flow *f, uint64_t at)
{
	if (!f->hiding)
		return false;
	f->hiding = false;
	if (f->hide_segs > 0 && at - f->hide_seg_at < SYNC_LOOK)
		f->hide_segs--;		/* found at the segment's start */
	p->st.tcp_hidden_bytes += at - f->hide_start;
	f->hidden_from_ns = f->hide_ts_ns;
	return hidden_count(p, f, at - f->hide_start);
}

/* No record follows a span open at the end of the flow to carry its
 * hidden_from_ns: the hook tells of the replies it may have hidden. */
void cap_rec_end(struct cap_pipe *p, struct tcp_flow *f)
{
	if (hide_close(p, f, f->pos) && p->cfg.hidden_end)
		p->cfg.hidden_end(p->cfg.hidden_end_user, &f->src, &f->dst,
				  f->last_ts_ns);
}

/* A record held on its way (struct cap_handshake stalls40, stalls200):
 * spread from its first segment to its last over 35 ms, and either a
 * short segment waited 30 ms or more (a sender holding its last piece
 * for the ACK of the one before: Nagle against a delayed ACK, 40 ms a
 * wait) or a wait of 190-230 ms ended by a segment sent again (the
 * minimum RTO).  A large record spread by its size, by the receiver's
 * window or by the sender's application resumes with full segments: no
 * stall.  spread: ns. */
static void stall_note(struct tcp_flow *f, int64_t spread)
{
	if (spread < 35000000)
		return;
	if (f->rec_rto)
		f->h_st200++;
	else if (f->rec_hold_max >= 30000000)
		f->h_st40++;
	else
		return;
	f->h_stall_ns += spread;
}

static void deliver(struct cap_pipe *p, struct tcp_flow *f,
		    const struct seg_ctx *done, const uint8_t *d,
		    uint32_t caplen, uint32_t len, uint32_t flags,
		    uint64_t first_frame, int64_t first_ts_ns, uint64_t wire)
{
	struct cap_msg m;

	if (f->state == FS_PENDING) {
		/* stream start known: the first record that passes the probe
		 * makes the direction RPC; one that fails (a call with 17
		 * gids) must not hide the valid ones after it, so the next
		 * records are probed too, up to PENDING_PROBES; those that
		 * failed in a direction found RPC are counted (tcp_rejected) */
		flow_tmpl(p, f, &m);
		if (len < CAP_REC_MIN ||
		    (p->cfg.probe &&
		     !run_probe(p->cfg.probe, p, &m, d, caplen, len))) {
			if (++f->probe_rejects >= PENDING_PROBES)
				f->state = FS_REJECT;
			return;
		}
		f->state = FS_FOLLOW;
		p->st.tcp_rejected += f->probe_rejects;
		p->st.flows++;
	}
	if (caplen < len && !(flags & CAP_MSG_HOLE))
		flags |= CAP_MSG_TRUNCATED;
	hidden_note(p, f, d, caplen, wire);
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
	m.hidden_from_ns = f->hidden_from_ns;
	f->hidden_from_ns = 0;
	if (first_ts_ns != m.ts_ns)
		stall_note(f, m.ts_ns - first_ts_ns);
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
		f->first_frame, f->first_ts_ns,
		(uint64_t)f->rec_len + 4u * (uint64_t)f->rec_frags);
	if (f->buf_cap > BUF_KEEP) {	/* a big buffer goes back to the budget */
		cap_tcp_mem_give(p, f->buf_cap);
		free(f->buf);
		f->buf = NULL;
		f->buf_cap = 0;
	}
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
		/* small first (many flows hold a short partial record each),
		 * charged to the TCP memory budget of all flows: over it, the
		 * record is delivered cut short (counted) */
		uint32_t ncap = f->buf_cap ? f->buf_cap : 256;
		uint8_t *nb;

		while (ncap - f->buf_len < n && ncap < keep)
			ncap = ncap > keep / 2 ? keep : ncap * 2;
		if (!cap_tcp_mem_take(p, ncap - f->buf_cap)) {
			p->st.tcp_mem_evicted++;
			f->buf_frozen = true;
			return;
		}
		nb = realloc(f->buf, ncap);
		if (!nb) {
			cap_tcp_mem_give(p, ncap - f->buf_cap);
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
	f->rec_hold_max = 0;
	f->rec_rto = false;
	f->rec_resent = false;
}


/* The stream is found again at stream position at. */
static void sync_found(struct cap_pipe *p, struct tcp_flow *f, uint64_t at)
{
	hide_close(p, f, at);
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
 * (n if nothing was found).  base: the stream position of d[0].
 */

static uint32_t sync_scan(struct cap_pipe *p, struct tcp_flow *f,
			  const struct seg_ctx *cx, const uint8_t *d,
			  uint32_t off, uint32_t n, uint64_t base)
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
			if (cap_rec_sane_mark(p, &tm, jb + i, jn - i, true)) {
				uint8_t tb[sizeof(f->sync_tail)];
				uint64_t at = base + off - th + i, sv = f->pos;

				memcpy(tb, jb + i, th - i);
				sync_found(p, f, at);
				f->pos = at;	/* the tail's bytes again */
				cap_rec_known(p, f, cx, tb, th - i);
				f->pos = sv;
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
		if (cap_rec_sane_mark(p, &tm, d + i, n - i, true)) {
			sync_found(p, f, base + i);
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
void cap_rec_known(struct cap_pipe *p, struct tcp_flow *f,
		   const struct seg_ctx *cx, const uint8_t *d, uint32_t n)
{
	uint32_t off = 0, take;
	uint64_t base = f->pos;

	/* a record spread over a quantum by one wait is a stall, one
	   spread by its size (a 1 MiB transfer takes tens of ms) is not:
	   see stall_note */
	if (f->rec_open) {
		int64_t w = cx->ts_ns - f->rec_last_ns;

		if (f->seg_short && w > f->rec_hold_max)
			f->rec_hold_max = w;
		if (w >= 190000000 && w <= 230000000 &&
		    (f->ooo != NULL || f->rec_resent))
			f->rec_rto = true;
	}
	f->rec_last_ns = cx->ts_ns;
	if (f->hiding) {
		f->hide_segs++;
		f->hide_seg_at = base;
	}
	f->pos += n;
	while (off < n && f->state != FS_REJECT) {
		switch (f->rs) {
		case RS_SYNC:
			off = sync_scan(p, f, cx, d, off, n, base);
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
						flags, cx->frame, cx->ts_ns,
						(uint64_t)fl + 4);
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
void cap_rec_unknown(struct cap_pipe *p, struct tcp_flow *f,
		     const struct seg_ctx *cx, uint32_t n, uint32_t why)
{
	uint32_t take;

	f->pos += n;
	while (n > 0 && f->state != FS_REJECT) {
		switch (f->rs) {
		case RS_SYNC:
			f->sync_have = 0;	/* the tail is not contiguous */
			return;
		case RS_MARK:
			if (why == CAP_MSG_TRUNCATED)
				hide_open(p, f, f->pos - n - f->mark_have);
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
