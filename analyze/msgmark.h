/*
 * msgmark.h - what `dump` says about each message beyond its own bytes, in
 * the manner of tshark's RPC fields: a call that repeats an earlier one is
 * a retransmission of the first transmission's frame (rpc.call.dup); a
 * reply answers the first transmission of its call (rpc.reqframe), that
 * long after it (rpc.time); a second reply duplicates the first (rpc.dup).
 * And whether a message passes the operation filters (filter.h: client,
 * server, procedure, handle), a reply when its call did.
 *
 * Feed every message the decoder is done with, in the order run.h's msg
 * hook gives them.  Operations are keyed as the engine keys them (ops.h):
 * by the decoder's call identity (dec_msg.call_id), an array by slot; a
 * call under an identity held for the same program, version, procedure
 * (and handle, when both carry one) repeats it, else it opens a new one
 * (an XID reused).  A reply the decoder did not pair (by shape, orphan)
 * has no marks.
 *
 * Ownership: an_marks_new allocates the table once (xid_max entries, the
 * decoder's table size, ~48 bytes each); nothing per message.
 */
#ifndef NFSCOPE_AN_MSGMARK_H
#define NFSCOPE_AN_MSGMARK_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/filter.h"
#include "capture/capture.h"
#include "decode/decode.h"

/* struct an_mark.what */
#define AN_MARK_RETRANS  0x1u	/* call: repeats the call of first_frame */
#define AN_MARK_REPLY    0x2u	/* reply: to the call of first_frame */
#define AN_MARK_DUP      0x4u	/* reply: the op was answered in dup_of */

struct an_mark {
	uint32_t what;
	bool pass;		/* passes the filter */
	uint32_t nth;		/* RETRANS: 1 for the first retransmission */
	uint64_t first_frame;	/* the call's first transmission */
	uint64_t dup_of;	/* DUP: the frame of the first reply */
	int64_t lat_ns;		/* REPLY: from the first transmission */
};

struct an_marks;

/* xid_max: the decoder's table size (0: DEC_XID_MAX_DEFAULT); f: the
 * filter (NULL or empty: every message passes), the caller's, kept. */
struct an_marks *an_marks_new(uint32_t xid_max, const struct an_filter *f);
void an_marks_free(struct an_marks *k);
/* The marks of message (m, d) into *out. */
void an_marks_msg(struct an_marks *k, const struct cap_msg *m,
		  const struct dec_msg *d, struct an_mark *out);

#endif
