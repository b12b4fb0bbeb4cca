/*
 * capture.h - packets in, candidate RPC messages out.
 *
 * Purpose: read packets from a pcap/pcapng file (or stdin) or a live
 * interface, strip the link layer (Ethernet + any number of 802.1Q/802.1ad
 * tags, Linux SLL/SLL2, raw IPv4/IPv6, BSD null/loopback, FDDI), reassemble
 * IPv4/IPv6 fragments, and turn UDP datagrams and TCP byte streams (RPC record
 * marking, RFC 5531 section 11) into messages that may be ONC RPC.
 *
 * Two layers:
 *   struct cap_pipe   - the packet-to-message machinery.  It never touches
 *                       libpcap, so fuzzers and tests can feed it raw frames.
 *   struct cap_source - a libpcap handle (offline or live) feeding a cap_pipe.
 *
 * Invariants:
 *   - Nothing is read past the captured bytes of a packet (caplen).  Bytes that
 *     were on the wire but not captured (snaplen) are skipped by arithmetic:
 *     a struct cap_msg always has caplen <= len.
 *   - Each UDP datagram is one message.  Each complete TCP RPC record (all of
 *     its record-marking fragments, marks removed) is one message.
 *   - A message's data pointer is borrowed: valid only during the callback.
 *   - Memory is bounded by the budgets in struct cap_config; evictions are
 *     counted in struct cap_stats, never silent.
 *
 * Ownership: the caller owns cap_pipe/cap_source (cap_*_new / cap_*_free,
 * free(NULL) is a no-op).  The pipe owns its fragment and flow tables.
 *
 * Load: designed for >1M packets/s offline on one core: no allocation per
 * packet on the hot path except to buffer bytes of records that span
 * segments (pooled per flow).
 */
#ifndef NFSCOPE_CAPTURE_H
#define NFSCOPE_CAPTURE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/hash.h"

#define CAP_ERRBUF_SIZE 512

/* An IPv4 or IPv6 address.  IPv4 is stored in a[0..3], rest zero. */
struct cap_addr {
	uint8_t family;		/* 4 or 6 */
	uint8_t a[16];
};

enum cap_transport { CAP_UDP = 17, CAP_TCP = 6 };

/* struct cap_msg flags */
#define CAP_MSG_TRUNCATED 0x01	/* caplen < len: snaplen (or the record keep
				   budget) cut the message; the rest was
				   skipped by its wire length */
#define CAP_MSG_AFTER_GAP 0x02	/* TCP: bytes were lost before this record
				   and the stream resynchronised on it */
#define CAP_MSG_IPFRAG    0x04	/* UDP: reassembled from IP fragments */
#define CAP_MSG_MULTIFRAG 0x08	/* TCP: record made of >1 record fragment */
#define CAP_MSG_HOLE      0x10	/* TCP: bytes inside the record were lost;
				   data holds only the prefix before the hole */

/*
 * One candidate RPC message.  For TCP the record marks are removed and the
 * record's fragments joined; len is the record's total length.
 */
struct cap_msg {
	uint64_t frame;		/* 1-based frame number that completed it */
	uint64_t first_frame;	/* frame in which it began */
	int64_t ts_ns;		/* time of the completing frame, ns since epoch */
	int64_t first_ts_ns;	/* time of the first frame */
	struct cap_addr src, dst;
	uint16_t sport, dport;
	uint8_t transport;	/* enum cap_transport */
	uint32_t flags;		/* CAP_MSG_* */
	uint32_t caplen;	/* bytes available at data */
	uint32_t len;		/* bytes on the wire */
	const uint8_t *data;	/* borrowed: valid during the callback only */
	int64_t hidden_from_ns;	/* TCP: 0, or this record is the first after
				   records the snaplen hid in its direction
				   (cap_stats tcp_hidden_*), hidden from the
				   segment of this time until this record */
};

typedef void (*cap_msg_fn)(void *user, const struct cap_msg *m);

/*
 * Probe: is m a plausible start of an RPC message?  m carries the flow
 * (addresses, ports, transport, frame and time) and the bytes captured from
 * where a record would start (record marks removed; len is the record length
 * when known, else an upper bound).  Used to decide which TCP streams to
 * follow (cfg.probe, judging a segment or stream start) and where to
 * resynchronise after a gap (cfg.resync_probe, judging every offset, so it
 * must be stricter: decode's dec_probe_resync accepts a reply only if its
 * xid is a pending call of the reverse direction).  Supplied by the caller,
 * so capture does not depend on downstream stages.  NULL means "accept any
 * record mark of sane length".
 */
typedef bool (*cap_probe_fn)(void *user, const struct cap_msg *m);

struct cap_pkt;

/* An IP packet as the pipe read it (cap_config.ip_tap). */
struct cap_ip_seen {
	uint64_t frame;
	struct cap_addr src, dst;
	uint8_t proto;		/* the transport's (IPv6: after extensions) */
	bool frag;		/* an IP fragment: id, no ports */
	uint32_t id;
	uint16_t sport, dport;	/* 0 unless a whole UDP/TCP header is there */
};

struct cap_config {
	/* live capture */
	int snaplen;		/* 0: default (CAP_DEFAULT_SNAPLEN) */
	int buffer_kib;		/* 0: default (CAP_DEFAULT_BUFFER_KIB) */
	bool promisc;
	bool immediate;
	int timeout_ms;		/* read timeout when not immediate; 0:
				   CAP_DEFAULT_TIMEOUT_MS */
	int fanout;		/* Linux PACKET_FANOUT group (1..65535)
				   this capture joins, its host pairs'
				   packets (fanout.c); 0: none */
	/* both */
	const char *filter;	/* BPF filter in tcpdump syntax, NULL: none */
	uint64_t count;		/* stop after this many packets, 0: no limit */
	int64_t duration_ns;	/* stop after this long, 0: no limit.  Live:
				   wall time from the first read; offline:
				   capture time from the first packet (a
				   packet at first + duration or later is
				   not read), so a file gives the same
				   answer every time */
	/* budgets (0: defaults) */
	size_t frag_mem_max;	/* bytes held by IP fragment reassembly */
	uint32_t frag_timeout_ms;
	uint32_t flows_max;	/* TCP flow directions followed */
	uint32_t flow_idle_ms;
	uint32_t record_keep;	/* bytes of a TCP record kept for decoding;
				   the rest is skipped by length */
	size_t ooo_mem_max;	/* bytes of out-of-order segments held per flow */
	size_t tcp_mem_max;	/* bytes of packet data TCP holds, all flows
				   (out-of-order segments and record buffers,
				   with their headers) */
	uint64_t decompress_mem;	/* offline: memory an xz or zstd
					   decoder may take (0: 256 MiB) */
	cap_probe_fn probe;	/* at a segment start / stream start */
	cap_probe_fn resync_probe;	/* after lost bytes, at any offset:
					   stricter (NULL: probe) */
	void *probe_user;	/* passed to both */
	/* told of each IP fragment train counted in ipfrag_incomplete, with
	   the time of its first fragment (the loss happened then, though it
	   is known only at the timeout): NULL, not told */
	void (*frag_lost)(void *user, int64_t first_ts_ns);
	void *frag_lost_user;
	/* told of each span of hidden records (tcp_hidden_*) still open when
	   its flow direction ends (FIN/RST, idle, eviction, end of input) if
	   the span counted as replies: the direction src -> dst hid records
	   until its last segment, at until_ns, as the next record's
	   hidden_from_ns tells of a closed span: NULL, not told */
	void (*hidden_end)(void *user, const struct cap_addr *src,
			   const struct cap_addr *dst, int64_t until_ns);
	void *hidden_end_user;
	/* taps (NULL: none), for the evidence writer (run/evidence.h):
	   frame_tap sees each frame as it is fed, ip_tap each IP packet of
	   it once its header is read (before reassembly and TCP) */
	void (*frame_tap)(void *user, uint64_t frame,
			  const struct cap_pkt *pkt);
	void (*ip_tap)(void *user, const struct cap_ip_seen *s);
	void *tap_user;
};

/*
 * Live defaults: whole packets, and a kernel buffer that holds a burst of
 * them.  On a capturing host TCP segments arrive coalesced by GRO/TSO (up
 * to 64 KiB and more), so any shorter snaplen hides the RPC records that
 * begin past it inside a segment; whole packets need the larger buffer
 * (doc/bench.md, Live snapshot length: the measurement behind both).
 */
#define CAP_DEFAULT_SNAPLEN 262144
#define CAP_DEFAULT_BUFFER_KIB 32768
/*
 * Live read timeout, not immediate mode.  libpcap's Linux ring
 * (TPACKET_V3) is cut into blocks (256 KiB at the default snaplen: 128 in
 * the default buffer); the kernel hands a block over when it is full or
 * this long after it opened.  Immediate mode hands one over almost every
 * packet: the ring then holds about as many packets as it has blocks, and
 * each packet costs a poll(2).  With 100 ms a packet waits at most about
 * that long; the reader wakes once a block (doc/bench.md, Live: measured).  A
 * filter testing the direction keeps immediate mode (source.c,
 * filter_tests_direction).
 */
#define CAP_DEFAULT_TIMEOUT_MS 100

/* Counters.  Everything that is skipped is counted in exactly one place. */
struct cap_stats {
	uint64_t packets;	/* frames handed to the pipe */
	uint64_t bytes;		/* their wire length */
	uint64_t truncated;	/* frames with caplen < len */
	uint64_t snap_caplen;	/* largest caplen of those: the snaplen */
	uint64_t link_errors;	/* frame too short / unknown ethertype etc. */
	uint64_t not_ip;	/* ARP, other ethertypes */
	uint64_t ip_errors;	/* bad IP headers */
	uint64_t other_proto;	/* IP but not UDP/TCP */
	uint64_t udp_msgs;	/* UDP datagrams delivered */
	uint64_t tcp_msgs;	/* TCP records delivered */
	uint64_t ipfrag_packets;	/* fragments seen */
	uint64_t ipfrag_reassembled;	/* datagrams completed */
	uint64_t ipfrag_incomplete;	/* trains that timed out or were evicted
					   with fragments missing */
	uint64_t ipfrag_overlaps;	/* overlapping fragments seen */
	uint64_t ipfrag_evicted;	/* trains dropped for the memory budget */
	uint64_t tcp_segments;	/* TCP segments with payload on followed flows */
	uint64_t tcp_not_rpc;	/* payload segments on flows not followed */
	uint64_t tcp_retrans;	/* segments wholly already seen */
	uint64_t tcp_ooo;	/* segments that arrived out of order */
	uint64_t tcp_gaps;	/* holes skipped (bytes never seen) */
	uint64_t tcp_gap_bytes;
	uint64_t tcp_gaps_missed;	/* of them, holes the receiver had
					   acknowledged: the capture, not the
					   network, lost those bytes */
	uint64_t tcp_gap_missed_bytes;
	uint64_t tcp_resyncs;	/* resynchronisations on a plausible header */
	uint64_t tcp_mem_evicted;	/* holes declared lost and records cut
					   short for tcp_mem_max */
	uint64_t tcp_rejected;	/* records hidden by the direction lock: they
				   failed the RPC check at the start of a
				   direction that later proved RPC */
	/*
	 * Records hidden by the snaplen (header-only captures).  A span opens
	 * where the end of the previous record (known from its length) falls
	 * in the uncaptured part of a segment: the next record mark was never
	 * captured.  It closes where the stream is found again (a resync) or
	 * at the end of the flow.  A span holds whole records (it starts and
	 * ends on record boundaries), at least one.  The records in a span of
	 * H bytes are estimated as max(1, round(H / S)), S the wire length
	 * (marks included) of the record just before the span (the one whose
	 * end fell in the cut part: pipelined streams repeat it); when the
	 * span runs past the start of a segment without a mark in its
	 * captured bytes (so its records are longer than that), S is the
	 * larger of that and the average record the direction delivered.  The
	 * estimate counts as calls or replies by what the direction delivers
	 * (msg_type of its records).  Records whose header was captured but
	 * that the resync did not accept count as hidden too.  See rpcrec.c.
	 */
	uint64_t tcp_hidden_spans;	/* spans: records known to be hidden */
	uint64_t tcp_hidden_bytes;	/* stream bytes in the spans */
	uint64_t tcp_hidden_calls;	/* estimated records in the spans: */
	uint64_t tcp_hidden_replies;	/*   calls, replies */
	uint64_t tcp_hidden_flows;	/* flow directions with >= 1 span */
	uint64_t tcp_seg_max;	/* largest TCP payload (wire) of a segment
				   on a followed flow */
	uint64_t tcp_seg_cut_max;	/* largest captured payload of a segment
					   the snaplen cut (the snaplen less
					   the headers) */
	uint64_t flows;		/* flow directions followed in total */
	uint64_t flows_evicted;	/* flow directions dropped for the budget */
	uint64_t flows_expired;	/* flow directions dropped for idleness */
	/* pcap_stats (live only), kept in 64 bits across the 32-bit wrap */
	uint64_t ps_recv, ps_drop, ps_ifdrop;
};

/*
 * Packets lost before they reached us (pcap_stats ps_drop: the kernel's
 * buffer was full; ps_ifdrop: the interface dropped them) between two
 * samples.  Times are wall clock (CLOCK_REALTIME, ns), which is the clock
 * live packets are stamped with, so a span can be laid over capture times.
 */
struct cap_drop_span {
	int64_t start_ns, end_ns;	/* previous sample (or open), this one */
	uint64_t drop, ifdrop;		/* packets lost in between */
};

/* Append sp to a list of *n spans (room for max): merged into the last
 * one when they touch or the list is full, so nothing is ever lost. */
void cap_drop_spans_add(struct cap_drop_span *span, uint32_t *n,
			uint32_t max, const struct cap_drop_span *sp);
/* Does [start_ns, end_ns) overlap one of the n spans? */
bool cap_drop_spans_overlap(const struct cap_drop_span *span, uint32_t n,
			    int64_t start_ns, int64_t end_ns);

/*
 * TCP handshakes per address pair (issue 16: where was this captured?).
 * A handshake is a SYN, the SYN/ACK that answers it and the first ACK
 * after it on the same connection, none of them sent twice.  At the
 * client end SYN->SYN/ACK is the round trip and SYN/ACK->ACK about 0; at
 * the server end the reverse; in between both are part of it.  Kept for
 * at most CAP_HANDSHAKE_PAIRS (client, server) pairs; more are counted in
 * cap_pipe_handshakes' dropped.  client is the SYN's sender (without a
 * handshake: the sender of RPC calls).
 */
#define CAP_HANDSHAKE_PAIRS 256

struct cap_handshake {
	struct cap_addr client, server;
	uint32_t n;			/* handshakes */
	int64_t syn_min_ns, syn_sum_ns;	/* SYN -> SYN/ACK */
	int64_t ack_min_ns, ack_sum_ns;	/* SYN/ACK -> ACK */
	/* ACK timing on the pair's RPC connections, handshake seen or not:
	   from a new data segment to the first ACK that covers it (none
	   resent between), the smallest.  srv: the server acknowledging
	   the client's data; cli: the reverse.  The capture's own host
	   answers in microseconds, the far one a round trip later.  A slot
	   with n, srv_n and cli_n all 0 is unused. */
	uint32_t srv_n, cli_n;
	int64_t srv_min_ns, cli_min_ns;
	/* TCP health on the pair's RPC connections, [0] client -> server,
	   [1] server -> client (a direction is known by the RPC messages it
	   carried): segments with data, those sent again (wholly or partly
	   seen before), losses the receiver signalled (a third duplicate
	   ACK: fast retransmit; counted in the data's direction), segments
	   advertising a zero window; RSTs that cut a connection in use (a
	   call outstanding or a message partly sent), once a connection */
	uint64_t segs[2], resent[2], dupack_loss[2], zero_win[2], rsts[2];
	/* RPC records held at a fixed quantum (rpcrec.c stall_note): a
	   short last piece waiting 30 ms or more for an ACK (delayed ACK
	   against Nagle), a wait of 190-230 ms for a segment sent again
	   (minimum RTO); the time they waited, ns */
	uint64_t stalls40[2], stalls200[2];
	int64_t stall_ns[2];
};

/* Does slot e of the handshake table hold anything? */
static inline bool cap_handshake_used(const struct cap_handshake *e)
{
	return e->n || e->srv_n || e->cli_n || e->segs[0] || e->segs[1] ||
	       e->rsts[0] || e->rsts[1] || e->dupack_loss[0] ||
	       e->dupack_loss[1];
}

/* ---- the pipe ---- */

struct cap_pipe;

/* A raw frame as libpcap hands it. */
struct cap_pkt {
	int linktype;		/* DLT_* */
	int64_t ts_ns;
	uint32_t caplen;
	uint32_t len;
	const uint8_t *data;
};

/* linktype as tcpdump names it: "EN10MB (Ethernet)", or its number. */
const char *cap_linktype_str(int linktype, char *buf, size_t n);
/* Is linktype supported?  On false, errbuf says why. */
bool cap_linktype_ok(int linktype, char *errbuf);

struct cap_pipe *cap_pipe_new(const struct cap_config *cfg, cap_msg_fn fn,
			      void *user);
void cap_pipe_free(struct cap_pipe *p);
/* Feed one frame.  Frame numbers count from 1 in feeding order. */
void cap_pipe_feed(struct cap_pipe *p, const struct cap_pkt *pkt);
/* End of input: expire everything (incomplete trains are counted). */
void cap_pipe_flush(struct cap_pipe *p);
const struct cap_stats *cap_pipe_stats(const struct cap_pipe *p);
/* The handshake table (CAP_HANDSHAKE_PAIRS slots, unused ones n = 0);
 * *dropped: handshakes of pairs that found no slot. */
const struct cap_handshake *cap_pipe_handshakes(const struct cap_pipe *p,
						uint64_t *dropped);

/* ---- the source ---- */

struct cap_source;

/* Open a pcap or pcapng file; path "-" is stdin.  Returns NULL and fills
 * errbuf, "path: what", on error (missing file, not a capture, unsupported
 * link type, bad filter). */
struct cap_source *cap_open_offline(const char *path,
				    const struct cap_config *cfg,
				    char *errbuf);
/*
 * Several files as one capture (a tcpdump -C/-G ring, -r A -r B): read one
 * after another in the order of their first packet; a compressed file is
 * read through its library (also by cap_open_offline).  Files that overlap
 * in time are merged by timestamp (cap_source_merge_stats).  A file that
 * fails to open, or is damaged, stops the reading there with a read error
 * (cap_source_read_error: "FILE: what; N later files not read").  The
 * path strings are borrowed until cap_close; cfg is copied (its filter
 * string borrowed).
 */
struct cap_source *cap_open_files(const char *const *paths, uint32_t n,
				  const struct cap_config *cfg, char *errbuf);
/* Open a live interface with pcap_create/pcap_activate.  Activation
 * warnings are written to warnbuf (empty string if none).  On failure
 * errno is EPERM when the cause is missing privilege (libpcap's
 * PCAP_ERROR_PERM_DENIED, e.g. no CAP_NET_RAW), so the caller can say how
 * to get it; otherwise 0. */
struct cap_source *cap_open_live(const char *iface,
				 const struct cap_config *cfg,
				 char *errbuf, char *warnbuf);
void cap_close(struct cap_source *s);

/*
 * Read packets into pipe until end of file, cfg->count packets, an error,
 * or *stop becoming non-zero.  Returns 0 at end/stop, -1 on error (errbuf).
 * The pipe is flushed at the end.
 */
int cap_run(struct cap_source *s, struct cap_pipe *pipe,
	    volatile sig_atomic_t *stop, char *errbuf);
/* Like cap_run, but returns after at most max_packets frames (for event loops
 * that interleave other work): returns 1 if more may come, 0 at end, -1 on
 * error.  Does not flush. */
int cap_step(struct cap_source *s, struct cap_pipe *pipe, int max_packets,
	     char *errbuf);
/*
 * Where and why reading stopped early.  When cap_run or cap_step returns
 * -1 once the source is open (a file cut short or with a damaged record or
 * block, a read error, a device gone), every packet before the damage has
 * already been fed to the pipe: the caller goes on as at the end of the
 * input and says this.  packets: frames read whole; offset: file offset of
 * the first byte not read as part of a whole packet (where the damaged
 * record or block, or the cut, begins; -1 when unknown: a pipe or a live
 * device); why: libpcap's message ("truncated dump file; ...").
 */
struct cap_read_error {
	uint64_t packets;
	int64_t offset;
	char why[CAP_ERRBUF_SIZE];
};
/* True, and *e filled, if reading stopped on an error. */
bool cap_source_read_error(const struct cap_source *s,
			   struct cap_read_error *e);
/*
 * A stop flag (a signal handler sets it) checked after every packet, and
 * on a read error: an error while *stop is set (EINTR on a pipe, a writer
 * killed by the same Ctrl-C) is a stop, not a read error.  NULL: none.
 */
void cap_source_set_stop(struct cap_source *s, volatile sig_atomic_t *stop);
/* Fill ps_recv/ps_drop/ps_ifdrop in st with the totals so far (live only;
 * offline leaves them).  Does not take a cap_source_drops() sample. */
void cap_source_stats(struct cap_source *s, struct cap_stats *st);
/* Sample pcap_stats now.  Returns 1 and fills *span if packets were dropped
 * since the previous sample (or the open), 0 if not (always 0 offline). */
int cap_source_drops(struct cap_source *s, struct cap_drop_span *span);
/* Overlapping files merged by timestamp so far: how many files were read
 * merged, and frames found in two files (the same time and bytes) that
 * were taken once. */
void cap_source_merge_stats(const struct cap_source *s, uint32_t *files,
			    uint64_t *dup_frames);
/* Has the source stopped for good (end of file, count or duration)? */
bool cap_source_done(const struct cap_source *s);
/* Live, the run over: --duration no longer stops cap_step, so the packets
 * the kernel still holds can be read (run.c's drain).  Offline: nothing. */
void cap_source_lift_deadline(struct cap_source *s);
int cap_source_linktype(const struct cap_source *s);
int cap_source_snaplen(const struct cap_source *s);
/* Selectable fd for live capture, -1 if none. */
int cap_source_fd(const struct cap_source *s);
/* Bytes of the file consumed so far and its size (0 if unknown). */
void cap_source_progress(struct cap_source *s, uint64_t *done,
			 uint64_t *total);

/*
 * sec seconds + frac_ns nanoseconds as ns since the epoch, without
 * overflow: clamped to [-CAP_TS_MAX, CAP_TS_MAX] (1823..2116), so the
 * difference of any two packet times fits in 64 bits.  A pcapng
 * timestamp is 64 bits in units of if_tsresol plus if_tsoffset seconds:
 * libpcap can hand over any second of a 64-bit time_t.
 */
#define CAP_TS_MAX (((int64_t)1 << 62) - 1)
int64_t cap_ts_ns(int64_t sec, int64_t frac_ns);

/* Format an address ("10.0.0.1", "fe80::1") into buf (>= 46 bytes). */
const char *cap_addr_str(const struct cap_addr *a, char *buf, size_t n);

/* FNV-1a (32 bits) of a's 16 address bytes, continuing from h (start
 * with 2166136261u): the client/server pair tables' hash.  A zero byte
 * only multiplies by the prime, so when bytes 4..15 are zero (IPv4) the
 * last twelve rounds are one multiply by the prime's 12th power: the
 * same value in a quarter of the rounds. */
#define CAP_FNV_PRIME_12 0xd38c7031u	/* 16777619^12 mod 2^32 */
static inline uint32_t cap_addr_fnv(uint32_t h, const struct cap_addr *a)
{
	uint64_t hi;
	uint32_t mid;
	size_t i;

	memcpy(&mid, a->a + 4, 4);
	memcpy(&hi, a->a + 8, 8);
	if ((mid | hi) == 0) {
		for (i = 0; i < 4; i++)
			h = (h ^ a->a[i]) * BASE_FNV32_PRIME;
		return h * CAP_FNV_PRIME_12;
	}
	for (i = 0; i < 16; i++)
		h = (h ^ a->a[i]) * BASE_FNV32_PRIME;
	return h;
}

/* Same address.  The bytes past an IPv4 address are zero, so the whole
 * 16 bytes compare as two words (inline: every table lookup calls it). */
static inline bool cap_addr_eq(const struct cap_addr *a,
			       const struct cap_addr *b)
{
	uint64_t a0, a1, b0, b1;

	memcpy(&a0, a->a, 8);
	memcpy(&a1, a->a + 8, 8);
	memcpy(&b0, b->a, 8);
	memcpy(&b1, b->a + 8, 8);
	return a->family == b->family && ((a0 ^ b0) | (a1 ^ b1)) == 0;
}

#endif
