/*
 * tcp_int.h - what tcp.c (segments, holes, the flow table) and rpcrec.c
 * (RPC record marking on a flow's byte stream) share; internal to capture/.
 *
 * A flow direction is owned by the TCP table (tcp.c); it owns its record
 * buffer and its queued out-of-order segments.  rpcrec.c parses the bytes
 * tcp.c applies in stream order and delivers records through the pipe's
 * callback.
 */
#ifndef NFSCOPE_TCP_INT_H
#define NFSCOPE_TCP_INT_H

#include <assert.h>

#include "capture/capture_int.h"

enum flow_state { FS_PENDING, FS_FOLLOW, FS_REJECT };

/* The one accounting of packet data TCP holds (cfg.tcp_mem_max, all
 * flows, in p->tcp_mem): take n bytes (false: over the budget, nothing
 * taken), give them back.  Inline, in the pipe: tcp.c and rpcrec.c both
 * take and give, and neither calls the other for it. */
static inline bool cap_tcp_mem_take(struct cap_pipe *p, size_t n)
{
	if (n > p->cfg.tcp_mem_max - p->tcp_mem)
		return false;
	p->tcp_mem += n;
	return true;
}

static inline void cap_tcp_mem_give(struct cap_pipe *p, size_t n)
{
	assert(n <= p->tcp_mem);
	p->tcp_mem -= n;
}
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
	uint8_t probe_rejects;		/* FS_PENDING: records that failed */
	bool fin;
	bool peer_reset;		/* the other way sent an RST: the
					   connection's reset is counted */
	uint32_t fin_seq;
	uint32_t next_seq;
	int64_t last_ts_ns;
	/* handshake (client direction): SYN, then SYN/ACK time; 0 when
	   none is open or it was spoilt by a resent SYN or SYN/ACK */
	int64_t syn_ns, synack_ns;
	/* ACK timing (struct cap_handshake srv_*, cli_*): the data segment
	   awaiting a pure ACK from the other direction (if ack_waiting), the
	   smallest wait and how many; the other direction's flow (NULL:
	   none yet), kept both ways */
	int64_t ack_wait_ns, rsp_min_ns;
	uint32_t ack_wait_end, rsp_n;
	bool ack_waiting;
	bool seg_short;			/* the segment being applied is short
					   (see rec_hold_max) */
	bool rec_rto;			/* see rec_hold_max */
	struct tcp_flow *rev;
	/* health (struct cap_handshake segs, resent, zero_win, rsts: an
	   RST that cut a connection in use, once a connection) */
	uint64_t h_segs, h_resent, h_zwin, h_rsts;
	uint64_t h_dupack_loss;		/* the other direction's losses this
					   direction signalled (3 dup ACKs) */
	uint32_t last_ack, dup_acks;
	uint64_t h_st40, h_st200;	/* records spread over a quantum */
	/* stalls of the open record: its last segment's time; the longest
	   wait before a short segment (seg_short: under 536 bytes or
	   seg_max, one a sender holds for an ACK, Nagle); rec_rto: a wait
	   of 190-230 ms ended by a segment sent again or filling a hole
	   (rec_resent: one was sent again since the record began) */
	int64_t rec_last_ns, rec_hold_max;
	int64_t h_stall_ns;
	/* record parser */
	uint8_t rs;			/* enum rec_state */
	uint8_t mark_have;
	uint8_t mark[4];
	bool rec_open;			/* a record has begun */
	bool frag_last;
	bool buf_frozen;		/* unknown bytes seen: stop gathering */
	bool rec_resent;
	uint32_t frag_left;
	uint32_t rec_len, rec_frags;
	uint32_t rec_flags, pend_flags;
	uint64_t first_frame;
	int64_t first_ts_ns;
	uint64_t wm_frame;		/* watermark: see struct seg_ctx */
	int64_t wm_ts_ns;
	uint8_t sync_tail[32];		/* RS_SYNC: last bytes, not yet judged */
	uint8_t sync_have;
	uint32_t n_hidden;		/* records estimated in closed spans,
					   of the direction's kind */
	/* hidden records (cap_stats tcp_hidden_*): stream position of the
	   parser, the open span's start, a closed span's bytes awaiting
	   the next record's length, the records' total length and number and
	   what the direction delivered */
	uint64_t pos;
	uint64_t hide_start;
	uint64_t last_wire, hide_size;
	uint32_t hide_segs;		/* segment starts inside the span */
	uint32_t seg_max;		/* largest payload (wire) this way */
	int64_t hide_ts_ns;		/* time of the span's first segment */
	int64_t hidden_from_ns;		/* a closed span's, for the next
					   record (cap_msg.hidden_from_ns) */
	uint64_t hide_seg_at;		/* stream position of the last one */
	uint64_t rec_sum, rec_n;
	bool hiding, hidden_any;
	uint64_t n_calls, n_replies;
	uint8_t *buf;			/* owned, reused between records */
	uint32_t buf_len, buf_cap;
	struct ooo_seg *ooo;		/* owned, sorted by seq */
	struct ooo_seg *ooo_tail;	/* last of ooo: in-order arrivals
					   behind a hole append in O(1) */
	size_t ooo_bytes;
};

/* Owned by the pipe. */

/* Does d (n captured bytes) start a plausible record?  resync: judging an
 * arbitrary offset after lost bytes (stricter, see rpcrec.c). */
bool cap_rec_sane_mark(const struct cap_pipe *p, const struct cap_msg *tmpl,
		       const uint8_t *d, uint32_t n, bool resync);
/* n captured stream bytes of f, from the segment cx. */
void cap_rec_known(struct cap_pipe *p, struct tcp_flow *f,
		   const struct seg_ctx *cx, const uint8_t *d, uint32_t n);
/* The flow ends: count a hidden span still open. */
void cap_rec_end(struct cap_pipe *p, struct tcp_flow *f);
/* n stream bytes of f that are unknown: why is CAP_MSG_HOLE (never seen)
 * or CAP_MSG_TRUNCATED (cut by the snaplen). */
void cap_rec_unknown(struct cap_pipe *p, struct tcp_flow *f,
		     const struct seg_ctx *cx, uint32_t n, uint32_t why);

#endif
