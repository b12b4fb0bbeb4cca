/*
 * ops.h - the operation engine: RPC calls and replies in, one record per
 * operation out.
 *
 * Purpose: pair each reply with its call and turn the pair (or an
 * unanswered call) into a struct an_op with plain values.  Feed it the
 * (struct cap_msg, struct dec_msg) pairs for which dec_message() returned
 * true, in capture order.
 *
 * Matching: the decoder's xid map is the one call table (decode.h): it
 * pairs each reply with its call and gives both the call's identity
 * (dec_msg.call_id: a slot of the table and its generation).  Transmissions
 * of one operation share an identity - (client address, server address,
 * program, XID), never the ports only, because a UDP retransmission may
 * leave from another client port.  The engine holds each operation's state
 * under its identity's slot (an array by slot, no key, no hash); the
 * generation tells a slot handed on to another call from the old one.
 *   - A call whose identity is held with the same vers/proc (and, when both
 *     carry one, the same filehandle) is a retransmission: counted, the
 *     interval since the previous transmission recorded; latency stays
 *     measured from the first transmission (lat_first) and from the last
 *     (lat_last).
 *   - A call whose identity is held for another vers/proc/handle is XID
 *     reuse: the old entry is closed (AN_OP_XID_REUSED) and a new one
 *     opened under the same identity.
 *   - A reply is accepted only if it fits the entry (same prog/vers/proc as
 *     the call the decoder decoded it with); the first reply completes the
 *     op; later replies are duplicate replies (counted, latency untouched).
 *   - Answered entries stay `answered_keep_ns` (capture time) after their
 *     reply so late retransmissions and duplicate replies land on them; the
 *     op is delivered when that window closes, at an_flush, or earlier when
 *     the decoder's table handed its slot on (counted in retired_early, not
 *     a loss).
 *   - Pending calls with no transmission for `unanswered_ns` are delivered
 *     unanswered (AN_OP_EXPIRED); at an_flush (AN_OP_AT_END); or when the
 *     decoder's table handed their slot on - the table's one eviction rule,
 *     its oldest entry reused - (AN_OP_EVICTED, counted in evicted; a call
 *     that arrives under an identity whose slot was handed on meanwhile is
 *     delivered at once the same way).
 *   - An unanswered call of a client/server pair whose reply direction
 *     lost the TCP stream to the snaplen (records hidden, a message with
 *     hidden_from_ns) at or after the call is AN_OP_REPLY_HIDDEN: its
 *     reply may have been hidden ("reply not seen").  The pairs are kept
 *     in a fixed table of AN_HID_PAIRS (a collision replaces the entry);
 *     a span still open at the end of its flow comes as AN_MSG_HIDDEN.
 *   - Replies the decoder could not pair are counted by the decoder
 *     (dec_stats.orphan_replies); replies the decoder paired whose
 *     operation this engine no longer holds (delivered: a duplicate reply
 *     after the keep window, a reply after unanswered_ns) are counted in
 *     replies_unmatched.
 *   - A reply the decoder named by its shape (dec_msg.by_shape: its call
 *     not in the capture) is delivered at once as an op flagged
 *     AN_OP_CALL_NOT_SEEN, with the reply's fields and no latency.
 *
 * Sessions (NFSv4.1+): a call whose SEQUENCE has the session, slot and
 * sequence id of the previous call on that slot under another XID is a
 * retransmission the XID does not show (a client that re-sent under a new
 * XID): flagged AN_OP_SLOT_REPLAY and counted in slot_replays.  The last
 * call per (client, server, session, slot) is kept in a fixed table of
 * AN_SLOT_TAB entries (a collision replaces the entry).
 *
 * Paths: MOUNT MNT, LOOKUP/CREATE/MKDIR/SYMLINK/MKNOD replies and
 * READDIRPLUS entries feed an internal names table (names.h); an op's path
 * and export are resolved when it is delivered.
 *
 * Ownership: the caller owns the engine (an_new/an_free; an_free(NULL) is a
 * no-op).  The struct an_op passed to the callback is owned by the engine
 * and valid during the callback only.
 *
 * Load: O(1) per message: one array index, no allocation after an_new.
 * The entries are a fixed pool of xid_max (the decoder's table size,
 * default DEC_XID_MAX_DEFAULT: ~12 MB worst case, touched lazily, so
 * memory follows the most held at once), named by a 4-byte-per-slot
 * array; the next entry to deliver is prefetched.
 */
#ifndef NFSCOPE_AN_OPS_H
#define NFSCOPE_AN_OPS_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/paths.h"
#include "base/units.h"
#include "decode/decode.h"

#define AN_MACHINE_MAX 64
#define AN_NAME_MAX 256

/* struct an_op.flags */
#define AN_OP_ANSWERED     0x0001u
#define AN_OP_CALL_TRUNC   0x0002u	/* call body cut by the snaplen */
#define AN_OP_REPLY_TRUNC  0x0004u	/* reply body cut by the snaplen */
#define AN_OP_CALL_BAD     0x0008u	/* call body malformed */
#define AN_OP_REPLY_BAD    0x0010u	/* reply body malformed */
#define AN_OP_EXPIRED      0x0020u	/* unanswered: aged out */
#define AN_OP_AT_END       0x0040u	/* unanswered at end of input */
#define AN_OP_EVICTED      0x0080u	/* unanswered: dropped for the budget */
#define AN_OP_XID_REUSED   0x0100u	/* closed: XID reused by another call */
#define AN_OP_AFTER_GAP    0x0200u	/* a TCP message followed a gap/hole */
#define AN_OP_IPFRAG       0x0400u	/* a UDP message was IP-fragmented */
#define AN_OP_LATE_RETRANS 0x0800u	/* a retransmission came after the reply */
#define AN_OP_PORT_CHANGED 0x1000u	/* retransmitted from another port */
#define AN_OP_MISFIT_REPLY 0x2000u	/* a reply for this key did not fit */
#define AN_OP_REPLY_HIDDEN 0x4000u	/* unanswered, but its reply may have
					   been among the records the snaplen
					   hid (the reply direction lost the
					   stream after the call): "reply not
					   seen", not counted unanswered */
#define AN_OP_SLOT_REPLAY 0x10000u	/* NFSv4.1+: its SEQUENCE repeats the
					   session, slot and sequence id of
					   an earlier call under another XID:
					   a retransmission the XID does not
					   show (RFC 8881 2.10.6.1); with
					   AN_OP_PORT_CHANGED: from another
					   client port than that call (a new
					   connection) */
#define AN_OP_CALL_NOT_SEEN 0x8000u	/* from a reply alone, its procedure
					   from its shape (decode/shape.c):
					   no call fields, no latency (-1);
					   first/last call time = reply time */

/* struct an_op.have */
#define AN_HAVE_CRED      0x0001u	/* uid, gid, machine (AUTH_SYS) */
#define AN_HAVE_FH        0x0002u
#define AN_HAVE_PATH      0x0004u
#define AN_HAVE_NAME      0x0008u	/* LOOKUP/CREATE/... name, MNT path */
#define AN_HAVE_OFFSET    0x0010u
#define AN_HAVE_COUNT     0x0020u	/* call: bytes asked (READ/WRITE/COMMIT) */
#define AN_HAVE_RCOUNT    0x0040u	/* reply: bytes read / written */
#define AN_HAVE_EOF       0x0080u
#define AN_HAVE_STABLE    0x0100u
#define AN_HAVE_COMMITTED 0x0200u
#define AN_HAVE_VERF      0x0400u
#define AN_HAVE_STATUS    0x0800u	/* NFS or MOUNT status */
#define AN_HAVE_FSINFO    0x1000u
#define AN_HAVE_STATFS    0x2000u
#define AN_HAVE_EXPORT    0x4000u	/* export_id valid */
#define AN_HAVE_RFH       0x8000u	/* reply handle (LOOKUP, CREATE, MNT) */
#define AN_HAVE_SESSION  0x10000u	/* NFSv4.1+ CREATE_SESSION reply: its
					   fore channel's ca_maxrequestsize in
					   wtmax, ca_maxresponsesize in rtmax
					   (no FSINFO bit: not the server's
					   advertised sizes) */

/*
 * The fields of an operation but its path, as a list so that struct
 * an_op_core (what the engine keeps for each call in flight: the path is
 * looked up only at delivery, and leaving its 256 bytes out makes the
 * table a quarter smaller) and struct an_op share them member for member;
 * ops.c checks that the layouts agree.
 */
#define AN_OP_CORE_FIELDS \
	uint64_t call_frame, reply_frame;	/* first call; first reply */ \
	int64_t first_call_ns, last_call_ns; \
	int64_t reply_ns;			/* 0 if unanswered */ \
	int64_t lat_first_ns, lat_last_ns;	/* -1 if unanswered */ \
	int64_t retrans_ivl_first_ns;		/* first -> second transmission */ \
	int64_t retrans_ivl_max_ns;		/* longest interval */ \
	/* the first segment (or IP fragment) of the last call's and of \
	   the first reply's message: a message from its first segment to \
	   its last (the *_ns above) may wait (tcp_stall); 0: unknown */ \
	int64_t call_seg0_ns, reply_seg0_ns; \
	uint64_t offset; \
	uint32_t retrans, dup_replies; \
	struct cap_addr client, server; \
	uint16_t client_port, client_port_last, server_port; \
	uint8_t transport;			/* enum cap_transport */ \
	bool eof; \
	uint32_t xid, prog, vers, proc; \
	uint32_t flags, have; \
	uint32_t uid, gid; \
	int32_t export_id;			/* -1: unknown */ \
	uint32_t count, rcount; \
	uint32_t stable, committed; \
	uint8_t verf[NFS_VERF_SIZE]; \
	uint32_t reply_stat, accept_stat;	/* RPC */ \
	uint32_t status;			/* NFS / MOUNT status */ \
	uint32_t call_len, reply_len;		/* wire bytes of the RPC messages */ \
	uint32_t rtmax, rtpref, wtmax, wtpref, dtpref;	/* FSINFO (v3) */ \
	uint32_t tsize;				/* STATFS (v2) */ \
	/* from here on only the used bytes count: a handle's first len \
	   bytes, a string up to its NUL (an_op_copy copies no more); \
	   each is empty unless its have bit (FH, RFH, CRED, NAME) is set */ \
	struct nfs_fh fh;			/* object or directory handle */ \
	struct nfs_fh rfh;			/* handle in the reply */ \
	char machine[AN_MACHINE_MAX]; \
	char name[AN_NAME_MAX];

struct an_op_core {
	AN_OP_CORE_FIELDS
};

struct an_op {
	AN_OP_CORE_FIELDS
	char path[AN_PATH_MAX];			/* learned path of fh */
};

/*
 * The NFSv3 procedure an NFS operation is (NFS3_READ, NFS3_WRITE,
 * NFS3_COMMIT, NFS3_GETATTR ...): v3's as is, v2's and v4's main
 * operations (decode.h) mapped onto it, so READ/WRITE/COMMIT figures are
 * one code for every version; NFS3_NPROC when none.
 */
uint32_t an_nfs_v3proc(uint32_t prog, uint32_t vers, uint32_t proc);

/* dst = src, copying of the handles and strings only their used bytes
 * (a few hundred bytes instead of 1.2 KB). */
void an_op_copy(struct an_op *dst, const struct an_op *src);

typedef void (*an_op_fn)(void *user, const struct an_op *op);

/* The engine delivers an answered op this long after its reply (the
 * answered_keep_ns default; acc.h's windows of live data end that far
 * back). */
#define AN_ANSWERED_KEEP_NS (3 * (int64_t)NSEC_PER_SEC)

struct an_config {
	uint32_t xid_max;		/* the call table's size: the decoder's
					   dec_config.xid_max (0: both
					   DEC_XID_MAX_DEFAULT) */
	int64_t unanswered_ns;		/* 0: 60 s */
	int64_t answered_keep_ns;	/* 0: 3 s */
	uint32_t names_max;		/* 0: 4096 */
};

struct an_stats {
	uint64_t calls, replies;	/* messages fed */
	uint64_t ops;			/* records delivered */
	uint64_t answered, unanswered;	/* unanswered: reply_not_seen too */
	uint64_t unanswered_expired, unanswered_at_end, evicted;
	uint64_t reply_not_seen;	/* unanswered ops AN_OP_REPLY_HIDDEN */
	uint64_t retrans;		/* call retransmissions */
	uint64_t late_retrans;		/* of which after the reply */
	uint64_t dup_replies;
	uint64_t replies_unmatched;	/* decoder paired it, its op was
					   delivered already */
	uint64_t from_replies;		/* ops delivered from a reply by its
					   shape (AN_OP_CALL_NOT_SEEN): in
					   ops, not in answered/unanswered */
	uint64_t misfit_replies;	/* reply did not fit the held call */
	uint64_t xid_reused;
	uint64_t slot_replays;		/* ops AN_OP_SLOT_REPLAY */
	uint64_t retired_early;		/* answered, delivered before the
					   window: its slot handed on */
	uint64_t names_evicted;
	uint32_t pending_peak;		/* entries held at most */
};

/*
 * A message as the engine reads it: what an_feed takes from a (cap_msg,
 * dec_msg) pair, flat and small (an_msg_build), so that decoding and
 * matching can run on two threads (feedq.h).  The machine name, the call's
 * handle and name, the reply's handle and the handles and names of
 * READDIRPLUS entries follow the struct, in that order; size counts them
 * and is a multiple of 8.  AN_MSG_TIME carries only the time (a message
 * the engine does not match still lets time pass).
 */
enum { AN_MSG_TIME = 0, AN_MSG_CALL = 1, AN_MSG_REPLY = 2,
       AN_MSG_SHAPE = 3,	/* a reply by its shape (dec_msg.by_shape) */
       AN_MSG_HIDDEN = 4 };	/* src -> dst hid replies until ts_ns: a
				   span open at its flow's end (cap_config
				   hidden_end; only src, dst, ts_ns) */

struct an_msg {
	uint32_t size;
	uint8_t type, kind;		/* AN_MSG_*; enum dec_body_kind */
	uint8_t dstatus;		/* 0 decoded, 1 truncated, 2 malformed */
	uint8_t transport;
	uint16_t sport, dport;
	uint32_t mflags;		/* AN_OP_AFTER_GAP, AN_OP_IPFRAG */
	int64_t hidden_from_ns;		/* cap_msg.hidden_from_ns */
	int64_t first_ts_ns;		/* cap_msg.first_ts_ns */
	uint64_t frame;
	int64_t ts_ns;
	uint32_t len;
	struct cap_addr src, dst;
	uint32_t xid, prog, vers, proc;
	uint32_t slot, gen;		/* dec_msg.call_id (CALL, REPLY) */
	/* call: AN_HAVE_CRED/FH/NAME/OFFSET/COUNT/STABLE */
	uint32_t have;
	uint32_t uid, gid, count, stable;
	uint64_t offset;
	uint8_t fh_nfs;			/* the handle is an NFS call's */
	/* reply: rhave is the body's NFSR_* or MNT_* bits (by kind) */
	uint8_t eof;
	uint16_t nentries;
	uint32_t reply_stat, accept_stat;
	uint32_t rhave, status, rcount, committed;
	uint8_t verf[NFS_VERF_SIZE];
	uint32_t rtmax, rtpref, wtmax, wtpref, dtpref, tsize;
	uint16_t machine_len, name_len;
	uint8_t fh_len, rfh_len;
	uint8_t root4;			/* NFSv4 reply: rfh is the server's
					   root (1: PUTROOTFH then GETFH)
					   or its child named by the call
					   (2: PUTROOTFH LOOKUP name GETFH) */
	/* NFSv4.1+ call: its SEQUENCE (has_seq): a hash of the session
	   id, the slot and the sequence id */
	uint8_t has_seq;
	uint32_t sess_hash, slot4, seq4;
	uint32_t proc4;			/* NFSv4 reply to a COMPOUND whose
					   main op was not known (its call
					   cut): the reply's main op */
};

#define AN_MSG_MAX (sizeof(struct an_msg) + AN_MACHINE_MAX + AN_NAME_MAX + \
		    2 * NFS_FHSIZE_MAX + \
		    NFS_ENTRIES_MAX * (2 + NFS_FHSIZE_MAX + NFS_NAME_MAX) + 8)

/* Build am (AN_MSG_MAX bytes of room) from a pair an_feed would take;
 * returns am->size. */
size_t an_msg_build(struct an_msg *am, const struct cap_msg *m,
		    const struct dec_msg *d);

struct an_engine;

struct an_engine *an_new(const struct an_config *cfg, an_op_fn fn, void *user);
void an_free(struct an_engine *e);
void an_feed(struct an_engine *e, const struct cap_msg *m,
	     const struct dec_msg *d);
/* The same, from an an_msg_build message: an_feed is build + this. */
void an_feed_msg(struct an_engine *e, const struct an_msg *am);
/* Let time pass without a message (live capture): expire by age. */
void an_tick(struct an_engine *e, int64_t now_ns);
/* End of input: deliver everything still held. */
void an_flush(struct an_engine *e);
/* After an_flush, when nothing more will be fed: give the call table's
 * entries back (the report's model is built after, on a lower peak);
 * stats and names stay.  an_feed must not be called after it. */
void an_trim(struct an_engine *e);
const struct an_stats *an_get_stats(const struct an_engine *e);
const struct an_names *an_get_names(const struct an_engine *e);

#endif
