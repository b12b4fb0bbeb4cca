/*
 * decode_int.h - decode/'s inside (as capture_int.h is capture's): the
 * per-program body decoders on the one XDR cursor (xdr.h), the strict RPC
 * probes, the one call table (the xid map), replies held for a later call,
 * and the reply-shape fit of the orphan path.  Only the files of decode/
 * and tests include it; every other stage sees decode.h, the public face: the
 * decoded message, its structs and names, and struct dec.
 *
 * Contract, ownership and load: as decode.h says of struct dec, which owns
 * one xid map, one held-reply store and one pair table.
 */
#ifndef NFSCOPE_DECODE_INT_H
#define NFSCOPE_DECODE_INT_H

#include "decode/decode.h"
#include "decode/xdr.h"

/* ------------------------------------------------------- decoders -- */

/*
 * Strict check that p starts an RPC call (msg_type 0, rpcvers 2, known auth
 * flavours, sane lengths) or an RPC reply (msg_type 1, valid reply_stat and,
 * for accepted replies, valid verifier and accept_stat).  Works on the bytes
 * captured; a header cut by the snaplen is judged on what is there.
 * Signature matches cap_probe_fn.
 */
bool rpc_probe(const uint8_t *p, size_t caplen, size_t len);
/* The call-only half of rpc_probe. */
bool rpc_probe_call(const uint8_t *p, size_t caplen, size_t len);
/*
 * For a call header rpc_decode_hdr decoded whole (it returned true): does
 * it pass rpc_probe_call?  Every check of the probe but the flavours is
 * one the decode made, so this only asks whether both are known - the
 * probe's price (its own reading of the header) is paid only for the
 * rest.  Tested against rpc_probe_call in test_rpc.
 */
bool rpc_call_hdr_probes(const struct rpc_hdr *h);

/* Decode the RPC header; on success c is positioned at the body. */
bool rpc_decode_hdr(struct xdr *c, struct rpc_hdr *h);

/* c at the body; fill out.  False: c->err says truncated or malformed. */
bool nfs3_decode_call(struct xdr *c, uint32_t proc, struct nfs_call *out);
bool nfs3_decode_reply(struct xdr *c, uint32_t proc, struct nfs_reply *out);
bool nfs2_decode_call(struct xdr *c, uint32_t proc, struct nfs_call *out);
bool nfs2_decode_reply(struct xdr *c, uint32_t proc, struct nfs_reply *out);

/*
 * c at the COMPOUND4args / CB_COMPOUND4args (cb) or COMPOUND4res /
 * CB_COMPOUND4res.  True: decoded to the end, or stopped (out->stopped).
 * False: c->err says truncated or malformed; what came before stays.
 */
bool nfs4_decode_call(struct xdr *c, bool cb, struct nfs4_compound *out);
bool nfs4_decode_reply(struct xdr *c, bool cb, struct nfs4_compound *out);

/* Can this opcode be stepped over (a call's or a reply's)? */
bool nfs4_op_known(uint32_t op, bool cb);

bool mnt_decode_call(struct xdr *c, uint32_t vers, uint32_t proc,
		     struct mnt_msg *out);
bool mnt_decode_reply(struct xdr *c, uint32_t vers, uint32_t proc,
		      struct mnt_msg *out);

bool pmap_decode_call(struct xdr *c, uint32_t vers, uint32_t proc,
		      struct pmap_msg *out);
bool pmap_decode_reply(struct xdr *c, uint32_t vers, uint32_t proc,
		       struct pmap_msg *out);

/* Calls include the one-way _MSG and _RES procedures (their body is an
 * args or a res respectively). */
bool nlm_decode_call(struct xdr *c, uint32_t vers, uint32_t proc,
		     struct nlm_msg *out);
bool nlm_decode_reply(struct xdr *c, uint32_t vers, uint32_t proc,
		      struct nlm_msg *out);

/* ---------------------------------------------------------- xid map -- */

/*
 * Pending calls, so replies can be recognised and decoded.  Keyed by
 * (client address and port, server address and port, xid): a reply goes
 * back to the port its call came from, so a reply is decoded with the call
 * it answers even when another client process on the same host uses the
 * same xid.  A lookup with no exact match falls back to the latest call
 * with the same addresses and xid from another port: a UDP retransmission
 * comes from another port, and the server may answer the one the capture
 * lost.
 *
 * This is the one call table: every call remembered gets an identity
 * (struct dec_call_id), carried in the decoded call and in every reply
 * paired with it, under which analyze/ keeps its per-call state - no second
 * key, hash or budget there.  The transmissions of one operation share
 * one identity: a call whose exact key (ports too) is held takes that
 * entry's identity; otherwise a call of the same program, addresses and
 * xid from other ports (a UDP retransmission from another client port)
 * lends it its identity.  analyze/ tells a retransmission from XID reuse.
 * A call of another program on the exact key of a held one starts a new
 * identity.
 * Bounded: at most `max` entries; the oldest are reused first; evictions
 * of unanswered entries younger than ttl are counted (an answered entry
 * only waits for duplicate replies).  An entry whose identity another
 * entry carries is made as young as that one, so the identity's slot is
 * the last of them to be reused.
 */
struct dec_xidmap;

struct dec_xid_key {
	struct cap_addr client, server;
	uint16_t client_port, server_port;
	uint32_t xid;
};

#define DEC_PROC_UNKNOWN UINT32_MAX	/* call cut before its procedure */

struct dec_xid_call {
	uint32_t prog, vers, proc;
	/* length of the first reply decoded for it, 0 while unanswered */
	uint32_t reply_len;
	int64_t ts_ns;		/* time of the (latest) call */
	uint64_t frame;
	/* RPCSEC_GSS: the call's gss_proc and service (1 none, 2 integrity,
	   3 privacy); gss_svc 0 if the call was not RPCSEC_GSS.  Tells how
	   the reply body is wrapped. */
	uint32_t gss_proc, gss_svc;
	struct dec_call_id id;	/* set by the map: put ignores it */
};

struct dec_xidmap *dec_xidmap_new(uint32_t max, int64_t ttl_ns);
void dec_xidmap_free(struct dec_xidmap *m);
/* Remember a call (replaces an entry with the same key); returns its
 * identity. */
struct dec_call_id dec_xidmap_put(struct dec_xidmap *m,
				  const struct dec_xid_key *k,
				  const struct dec_xid_call *call);
/* Look up; true and *out filled (its identity in out->id) if found.  The
 * entry stays (duplicate replies decode too) until it ages out or is
 * replaced. */
bool dec_xidmap_get(struct dec_xidmap *m, const struct dec_xid_key *k,
		    int64_t now_ns, struct dec_xid_call *out);
uint64_t dec_xidmap_evictions(const struct dec_xidmap *m);
/* Note that the call k was answered by a reply of len bytes. */
void dec_xidmap_answered(struct dec_xidmap *m, const struct dec_xid_key *k,
			 uint32_t len);

/* ----------------------------------------------------- held replies -- */

/*
 * Replies that came before their call, waiting for it: a call held in a
 * TCP hole is delivered when the hole is given up, after its reply; a call
 * on another flow; a clock that stamped the reply first.  A reply is held
 * with a copy of its captured bytes; the call that arrives takes every
 * held reply with its addresses, ports and xid stamped no earlier
 * than the call minus the skew tolerance, oldest first.  Bounded: at most
 * nslots replies and mem_max bytes (what does not fit is not held); a reply
 * waits at most hold_ns of capture time.  Taken and timed-out replies come
 * back from dec_late_next in that order; its cap_msg stays valid until the
 * next dec_late_hold or dec_late_expire.
 */
struct dec_late;

struct dec_late *dec_late_new(uint32_t nslots, size_t mem_max,
			      int64_t hold_ns);
void dec_late_free(struct dec_late *l);
/* Hold a copy of reply m (k: client = m's destination); false if full. */
bool dec_late_hold(struct dec_late *l, const struct dec_xid_key *k,
		   const struct cap_msg *m);
/* A call k stamped call_ts_ns arrived: its held replies become due. */
uint32_t dec_late_take(struct dec_late *l, const struct dec_xid_key *k,
		       int64_t call_ts_ns, int64_t skew_ns);
/* Replies held longer than hold_ns at now_ns (all of them: all) are due. */
uint32_t dec_late_expire(struct dec_late *l, int64_t now_ns, bool all);
/* The next due reply, its key, and whether it timed out; NULL if none. */
const struct cap_msg *dec_late_next(struct dec_late *l, struct dec_xid_key *k,
				    bool *timed_out);
uint32_t dec_late_waiting(const struct dec_late *l);
/* Capture time of the oldest reply held or due (0: none). */
int64_t dec_late_oldest_ns(const struct dec_late *l);

/* ------------------------------------------------------ reply shape -- */

/*
 * A reply whose call is not in the capture, decoded by its shape
 * (shape.c says how and what can be told apart).  struct dec_pairs
 * remembers, per client/server pair and server port, which programs and
 * NFS versions the calls seen carried: a direct-mapped table of `max`
 * slots (0: 4096), a colliding pair takes the slot over.
 */
struct dec_pairs;

/* The largest result body (bytes after the RPC header) NFS vers/proc can
 * have (RFC 1813, RFC 1094); UINT32_MAX: no bound (READ, READDIR). */
uint32_t nfs_res_max(uint32_t vers, uint32_t proc);

struct dec_pairs *dec_pairs_new(uint32_t max);
void dec_pairs_free(struct dec_pairs *p);
/* A call (src client, dst server) of prog/vers was seen. */
void dec_pairs_note(struct dec_pairs *p, const struct cap_msg *call,
		    uint32_t prog, uint32_t vers);

enum dec_shape {
	DEC_SHAPE_NOFIT = 0, DEC_SHAPE_FIT = 1, DEC_SHAPE_AMBIGUOUS = 2,
};

/* The procedures that fit: bit proc of procs[vers - 2]. */
struct dec_shape_fits {
	uint32_t procs[2];
};

/*
 * Try every procedure of the NFS versions in vers_mask (bit 2, bit 3) on
 * the reply m.  DEC_SHAPE_FIT: exactly one fits and *out holds the reply
 * decoded as it (by_shape, prog/vers/proc, status DEC_OK or DEC_TRUNCATED);
 * otherwise *out holds the header and scratch.
 */
enum dec_shape dec_shape_try(const struct cap_msg *m, uint32_t vers_mask,
			     struct dec_msg *out, struct dec_shape_fits *fits);
/*
 * The orphan path: m is a reply with no pending call.  The versions are
 * those p knows for the pair, else for the server port (v3 and v2 when
 * unknown on port 2049, none on another port); the outcome is
 * counted in st (shape_fit, shape_ambiguous, shape_nofit; st NULL: not
 * counted).  True: *out is the reply, by_shape, to deliver.  Also used for
 * a reply whose call was cut before its procedure (counted as an orphan
 * reply when it fits).
 */
bool dec_reply_shape(struct dec_pairs *p, const struct cap_msg *m,
		     struct dec_msg *out, struct dec_stats *st);
/*
 * For the resync probe after a TCP gap: is m a reply captured whole whose
 * body fits exactly one NFS procedure (as dec_reply_shape would deliver
 * it)?  Nothing is counted; scratch is overwritten.  A reply after a gap
 * whose call lay in the part the snaplen cut has no pending call; its
 * shape, the record consumed exactly, is the evidence instead.
 */
bool dec_reply_shape_whole(struct dec_pairs *p, const struct cap_msg *m,
			   struct dec_msg *scratch);

#endif
