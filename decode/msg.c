/*
 * msg.c - one candidate message in, a decoded RPC call or reply out.
 *
 * Calls must pass rpc_probe_call (strict shape checks) and then decode; a
 * call whose header was cut by the snaplen is still a call (TRUNCATED) and
 * is remembered if its prog/vers/proc were captured.  Replies are accepted
 * only if a pending call from the reverse direction has the same xid; the
 * body is then decoded with that call's prog/vers/proc.
 *
 * RPCSEC_GSS (RFC 2203): control procedures (INIT, CONTINUE_INIT, DESTROY)
 * and privacy-wrapped bodies are skipped; integrity-wrapped bodies
 * (rpc_gss_integ_data: opaque databody_integ<> = seq_num + args) are
 * unwrapped by skipping the length and seq_num; the checksum after them is
 * ignored.
 *
 * *out is not cleared wholesale (the union is ~100 KB): the header fields
 * are set, and the body struct about to be filled gets have = 0 and its
 * counts zeroed.  Body decoders set have bits only for what they fill.
 */
#include "decode/decode_int.h"
#include "base/units.h"

#include <stdlib.h>

#define DEC_XID_TTL_DEFAULT (120 * (int64_t)NSEC_PER_SEC)
#define DEC_LATE_MEM_DEFAULT ((size_t)1 << 20)
#define DEC_LATE_HOLD_DEFAULT (10 * (int64_t)NSEC_PER_SEC)
#define DEC_SKEW_DEFAULT ((int64_t)5000000)
#define DEC_LATE_SLOT_BYTES 512	/* one held reply per this many bytes */
#define RPCSEC_GSS_DATA 0
#define RPC_GSS_SVC_NONE 1
#define RPC_GSS_SVC_INTEGRITY 2

struct dec {
	struct dec_xidmap *xm;
	struct dec_pairs *pairs;	/* programs seen per pair (shape.c) */
	struct dec_late *late;	/* replies waiting for their call */
	struct dec_msg *scratch;	/* dec_probe_resync's shape decode */
	struct dec_stats st;
	int64_t skew_ns;	/* a reply may predate its call by this */
	bool no_attrs;		/* dec_config.no_attrs */
	bool held;		/* the last message went into late */
};

struct dec *
dec_new(const struct dec_config *cfg)
{
	uint32_t max = DEC_XID_MAX_DEFAULT;
	int64_t ttl = DEC_XID_TTL_DEFAULT, hold = DEC_LATE_HOLD_DEFAULT;
	size_t mem = DEC_LATE_MEM_DEFAULT;
	struct dec *d;

	if (cfg != NULL && cfg->xid_max != 0)
		max = cfg->xid_max;
	if (cfg != NULL && cfg->xid_ttl_ns > 0)
		ttl = cfg->xid_ttl_ns;
	if (cfg != NULL && cfg->late_mem != 0)
		mem = cfg->late_mem;
	if (cfg != NULL && cfg->late_hold_ns > 0)
		hold = cfg->late_hold_ns;
	d = calloc(1, sizeof(*d));
	if (d == NULL)
		return NULL;
	d->skew_ns = DEC_SKEW_DEFAULT;
	if (cfg != NULL && cfg->skew_ns != 0)
		d->skew_ns = cfg->skew_ns > 0 ? cfg->skew_ns : 0;
	d->xm = dec_xidmap_new(max, ttl);
	d->pairs = dec_pairs_new(0);
	d->scratch = malloc(sizeof(*d->scratch));
	d->late = dec_late_new((uint32_t)(mem / DEC_LATE_SLOT_BYTES) + 1, mem,
			       hold);
	d->no_attrs = cfg != NULL && cfg->no_attrs;
	if (d->xm == NULL || d->pairs == NULL || d->late == NULL ||
	    d->scratch == NULL) {
		dec_free(d);
		return NULL;
	}
	return d;
}

void
dec_free(struct dec *d)
{
	if (d == NULL)
		return;
	dec_xidmap_free(d->xm);
	dec_pairs_free(d->pairs);
	free(d->scratch);
	dec_late_free(d->late);
	free(d);
}

void
dec_trim(struct dec *d)
{
	dec_xidmap_free(d->xm);
	d->xm = NULL;
}

const struct dec_stats *
dec_get_stats(const struct dec *d)
{
	return &d->st;
}

/*
 * An NFSv4 COMPOUND or CB_COMPOUND (cb).  A call's procedure becomes its
 * main op (decode.h), so the call table and every record carry it.
 */
static bool
dec_nfs4(struct xdr *c, struct dec_msg *out, bool call, bool cb)
{
	struct nfs4_compound *cp = &out->u.nfs4;
	bool ok;

	if (out->proc == NFS4_PROC_NULL)
		return true;	/* void */
	out->kind = DEC_BODY_NFS4;
	cp->have = 0;
	cp->nops = cp->nstored = cp->nops_wire = 0;
	cp->stopped = false;
	cp->stop_op = 0;
	cp->status = cp->minor = 0;
	if (!call)
		return nfs4_decode_reply(c, cb, cp);
	if (out->proc != NFS4_PROC_COMPOUND)
		return xdr_fail(c, XDR_MALFORMED);	/* no such procedure */
	ok = nfs4_decode_call(c, cb, cp);
	out->proc = nfs4_proc(cp);
	return ok;
}

/*
 * Decode the body of (prog, vers, proc) at c.  Returns false with *skipped
 * set if the program/version is not decoded here; otherwise the body
 * decoder's result.
 */
static bool
dec_body(struct xdr *c, struct dec_msg *out, bool call, bool *skipped)
{
	uint32_t vers = out->vers, proc = out->proc;

	*skipped = false;
	switch (out->prog) {
	case PROG_NFS4_CB:
		if (vers != 1)
			break;
		return dec_nfs4(c, out, call, true);
	case PROG_NFS:
		if (vers == 4)
			return dec_nfs4(c, out, call, false);
		if (vers != 2 && vers != 3)
			break;
		if (call) {
			out->kind = DEC_BODY_NFS_CALL;
			out->u.nfs_call.have = 0;
			if (vers == 2)
				return nfs2_decode_call(c, proc, &out->u.nfs_call);
			return nfs3_decode_call(c, proc, &out->u.nfs_call);
		}
		out->kind = DEC_BODY_NFS_REPLY;
		out->u.nfs_reply.have = 0;
		out->u.nfs_reply.nentries = 0;
		out->u.nfs_reply.entries_total = 0;
		if (vers == 2)
			return nfs2_decode_reply(c, proc, &out->u.nfs_reply);
		return nfs3_decode_reply(c, proc, &out->u.nfs_reply);
	case PROG_MOUNT:
		if (vers < 1 || vers > 3)
			break;
		out->kind = DEC_BODY_MNT;
		out->u.mnt.have = 0;
		out->u.mnt.nflavors = 0;
		out->u.mnt.nlist = 0;
		out->u.mnt.list_total = 0;
		if (call)
			return mnt_decode_call(c, vers, proc, &out->u.mnt);
		return mnt_decode_reply(c, vers, proc, &out->u.mnt);
	case PROG_PORTMAP:
		if (vers < 2 || vers > 4)
			break;
		out->kind = DEC_BODY_PMAP;
		out->u.pmap.have = 0;
		out->u.pmap.nlist = 0;
		out->u.pmap.list_total = 0;
		if (call)
			return pmap_decode_call(c, vers, proc, &out->u.pmap);
		return pmap_decode_reply(c, vers, proc, &out->u.pmap);
	case PROG_NLM:
		if (vers != 1 && vers != 3 && vers != 4)
			break;
		out->kind = DEC_BODY_NLM;
		out->u.nlm.have = 0;
		if (call)
			return nlm_decode_call(c, vers, proc, &out->u.nlm);
		return nlm_decode_reply(c, vers, proc, &out->u.nlm);
	default:
		break;
	}
	*skipped = true;
	return false;
}

/*
 * Unwrap an RPCSEC_GSS body if needed.  False: the body cannot be decoded
 * (control procedure, privacy) or the wrapper failed (c->err says).
 *
 * struct rpc_gss_integ_data {
 *     opaque databody_integ<>;   // rpc_gss_data_t: seq_num + args/results
 *     opaque checksum<>;
 * };
 */
static bool
dec_gss_unwrap(struct xdr *c, uint32_t gss_proc, uint32_t gss_svc)
{
	uint32_t n, seq;

	if (gss_svc == 0)
		return true;
	if (gss_proc != RPCSEC_GSS_DATA)
		return false;
	if (gss_svc == RPC_GSS_SVC_NONE)
		return true;
	if (gss_svc != RPC_GSS_SVC_INTEGRITY)
		return false;
	if (!xdr_u32(c, &n))
		return false;
	return xdr_u32(c, &seq);
}

/* Finish *out from the cursor after a body attempt; count the outcome. */
static void
dec_finish(struct dec *d, struct dec_msg *out, const struct xdr *c, bool ok,
	   bool skipped)
{
	if (skipped) {
		out->status = DEC_BODY_SKIPPED;
		out->kind = DEC_BODY_NONE;
		return;
	}
	if (out->kind == DEC_BODY_NFS4 && out->u.nfs4.stopped)
		d->st.nfs4_stopped++;
	if (ok) {
		out->status = DEC_OK;
		return;
	}
	out->err_off = c->err_off;
	if (c->err == XDR_TRUNCATED) {
		out->status = DEC_TRUNCATED;
		d->st.truncated++;
	} else {
		out->status = DEC_MALFORMED;
		d->st.malformed++;
	}
}

static void
dec_call_gss(const struct rpc_hdr *h, struct dec_xid_call *xc)
{
	xc->gss_proc = 0;
	xc->gss_svc = 0;
	if (h->cred.flavor != RPC_RPCSEC_GSS)
		return;
	if (h->cred.have & RPC_CRED_GSS) {
		xc->gss_proc = h->cred.gss_proc;
		xc->gss_svc = h->cred.gss_svc;
	} else {
		/* unknown GSS version or cut credential: not decodable */
		xc->gss_proc = UINT32_MAX;
		xc->gss_svc = UINT32_MAX;
	}
}

static bool
dec_call(struct dec *d, const struct cap_msg *m, struct xdr *c,
	 struct dec_msg *out)
{
	struct dec_xid_call xc;
	bool ok, body = false, skipped = false;

	/* decoded first: a header decoded whole with known flavours passes
	   the strict probe without its reading the header again */
	ok = rpc_decode_hdr(c, &out->rpc);
	if (!(ok && rpc_call_hdr_probes(&out->rpc)) &&
	    !rpc_probe_call(m->data, m->caplen, m->len)) {
		d->st.not_rpc++;
		return false;
	}
	d->st.calls++;
	out->prog = out->rpc.prog;
	out->vers = out->rpc.vers;
	out->proc = out->rpc.proc;
	if (!ok && c->err != XDR_TRUNCATED) {
		/* malformed header: nothing to remember */
		dec_finish(d, out, c, false, false);
		return true;
	}
	xc.prog = out->prog;
	xc.vers = out->vers;
	xc.proc = out->proc;
	if (!ok && c->err_off < 24) {
		/*
		 * Cut by the snaplen before the procedure: a call happened,
		 * of an unknown procedure.  Remembered as such, so its reply
		 * is not decoded with an older call that used the same xid.
		 */
		xc.prog = xc.vers = xc.proc = DEC_PROC_UNKNOWN;
	} else {
		dec_pairs_note(d->pairs, m, xc.prog, xc.vers);
	}
	xc.ts_ns = m->ts_ns;
	xc.frame = m->frame;
	xc.reply_len = 0;
	dec_call_gss(&out->rpc, &xc);
	if (ok && !dec_gss_unwrap(c, xc.gss_proc, xc.gss_svc)) {
		skipped = c->err == XDR_OK;
		body = false;
	} else if (ok) {
		body = dec_body(c, out, true, &skipped);
		/* NFSv4: the COMPOUND's main op (dec_nfs4) */
		if (xc.proc != DEC_PROC_UNKNOWN)
			xc.proc = out->proc;
	}
	{
		struct dec_xid_key k = {
			.client = m->src, .server = m->dst,
			.client_port = m->sport, .server_port = m->dport,
			.xid = out->rpc.xid,
		};

		out->call_id = dec_xidmap_put(d->xm, &k, &xc);
		dec_late_take(d->late, &k, xc.ts_ns, d->skew_ns);
	}
	d->st.xid_evictions = dec_xidmap_evictions(d->xm);
	dec_finish(d, out, c, ok && body, skipped);
	return true;
}

/* Can a result body of n bytes answer (prog, vers, proc)? */
static bool
dec_res_fits(const struct dec_xid_call *xc, uint32_t n)
{
	if (xc->prog != PROG_NFS)
		return true;
	return n <= nfs_res_max(xc->vers, xc->proc);
}

/* Did the body decode a status value its RFC does not define? */
static bool
dec_status_unknown(const struct dec_msg *out)
{
	switch (out->kind) {
	case DEC_BODY_NFS_REPLY:
		return (out->u.nfs_reply.have & NFSR_STATUS) &&
		       !nfs_stat_name(out->vers, out->u.nfs_reply.status);
	case DEC_BODY_MNT:
		return (out->u.mnt.have & MNT_STATUS) &&
		       !mnt_stat_name(out->vers, out->u.mnt.status);
	case DEC_BODY_NLM:
		return (out->u.nlm.have & NLM_STATUS) &&
		       !nlm_stat_name(out->vers, out->u.nlm.status);
	default:
		return false;
	}
}

/*
 * A reply whose call is not in the capture (none came, or none within the
 * hold time).  The one way out for such replies: counted, and decoded by
 * their shape when exactly one procedure fits (shape.c).
 */
static bool
dec_orphan(struct dec *d, const struct cap_msg *m, struct xdr *c,
	   struct dec_msg *out)
{
	(void)c;
	/* no call for it: what its shape says (shape.c) */
	d->st.orphan_replies++;
	return dec_reply_shape(d->pairs, m, out, &d->st);
}

/* Hold reply m for a call that may come after it; false if it cannot. */
static bool
dec_hold(struct dec *d, const struct dec_xid_key *k, const struct cap_msg *m)
{
	if (!dec_late_hold(d->late, k, m)) {
		d->st.late_over_budget++;
		return false;
	}
	d->st.late_held++;
	d->held = true;
	return true;
}

/*
 * held: m comes from the held replies (its call just came, or it timed
 * out), so it is not held again.
 */
static bool
dec_reply(struct dec *d, const struct cap_msg *m, struct xdr *c,
	  uint32_t xid, struct dec_msg *out, bool held)
{
	struct dec_xid_call xc;
	bool ok, skipped = false;

	struct dec_xid_key k = {
		.client = m->dst, .server = m->src,
		.client_port = m->dport, .server_port = m->sport, .xid = xid,
	};

	if (!dec_xidmap_get(d->xm, &k, m->ts_ns, &xc)) {
		if (!rpc_probe(m->data, m->caplen, m->len)) {
			d->st.not_rpc++;
			return false;
		}
		if (!held && dec_hold(d, &k, m))
			return false;
		return dec_orphan(d, m, c, out);
	}
	if (xc.ts_ns > m->ts_ns) {
		if (xc.ts_ns - m->ts_ns > d->skew_ns) {
			/* the pending call came after this reply (a reply
			 * held back behind a TCP hole, its xid reused
			 * meanwhile): it answers an earlier call, which is
			 * gone from the map */
			d->st.reply_mismatch++;
			return false;
		}
		/* stamped a little before its call: two clocks (a merged
		 * or multi-queue capture), not another call */
		d->st.skew_tolerated++;
	}
	if (xc.reply_len && xc.reply_len != m->len) {
		/*
		 * The call was answered already and this reply differs in
		 * length: not a duplicate (a server's reply cache replays the
		 * same bytes) but the answer to a later call that reused the
		 * xid and was not captured.
		 */
		d->st.reply_mismatch++;
		return false;
	}
	d->st.replies++;
	out->call_id = xc.id;
	out->prog = xc.prog;
	out->vers = xc.vers;
	out->proc = xc.proc;
	out->call_seen = true;
	if (xc.proc == DEC_PROC_UNKNOWN) {
		/* its call was cut before the procedure (a header-only
		 * capture): what the reply's shape says, as for a reply
		 * whose call is not in the capture, else the header only */
		dec_xidmap_answered(d->xm, &k, m->len);
		out->call_seen = false;
		out->call_id.slot = out->call_id.gen = 0;
		if (dec_reply_shape(d->pairs, m, out, NULL)) {
			d->st.replies--;	/* counted as an orphan */
			d->st.orphan_replies++;
			d->st.shape_fit++;
			return true;
		}
		out->call_seen = false;
		out->by_shape = false;
		out->prog = out->vers = out->proc = 0;
		out->status = DEC_OK;
		out->err_off = 0;
		out->kind = DEC_BODY_NONE;
		if (rpc_decode_hdr(c, &out->rpc))
			dec_finish(d, out, c, false, true);
		else
			dec_finish(d, out, c, false, false);
		return true;
	}
	out->call_frame = xc.frame;
	out->call_ts_ns = xc.ts_ns;
	if (!rpc_decode_hdr(c, &out->rpc)) {
		dec_xidmap_answered(d->xm, &k, m->len);
		dec_finish(d, out, c, false, false);
		return true;
	}
	if (out->rpc.reply_stat != RPC_MSG_ACCEPTED ||
	    out->rpc.accept_stat != RPC_SUCCESS) {
		dec_xidmap_answered(d->xm, &k, m->len);
		dec_finish(d, out, c, false, true);
		return true;
	}
	if (xc.gss_proc == 0 && xc.gss_svc == 0 &&
	    !dec_res_fits(&xc, m->len - out->rpc.body_off)) {
		/* longer than any result of the pending call's procedure:
		 * the answer to another call that reused the xid */
		d->st.replies--;
		d->st.reply_mismatch++;
		return false;
	}
	if (!dec_gss_unwrap(c, xc.gss_proc, xc.gss_svc)) {
		skipped = c->err == XDR_OK;
		dec_xidmap_answered(d->xm, &k, m->len);
		dec_finish(d, out, c, false, skipped);
		return true;
	}
	ok = dec_body(c, out, false, &skipped);
	if (ok && !skipped && xc.gss_proc == 0 && xdr_wire_left(c) >= 4 &&
	    !(out->kind == DEC_BODY_NFS4 && out->u.nfs4.stopped)) {
		if (dec_status_unknown(out)) {
			/* a status no RFC defines took the failure arm: the
			 * reply lies, it is not another call's */
			dec_xidmap_answered(d->xm, &k, m->len);
			xdr_fail(c, XDR_MALFORMED);
			dec_finish(d, out, c, false, false);
			return true;
		}
		/*
		 * A reply must fit its call: this one decodes as the pending
		 * call's procedure but leaves bytes over, so it answers
		 * another call with the same xid (reused, and its call not
		 * captured).  Not delivered, counted.
		 */
		d->st.replies--;
		d->st.reply_mismatch++;
		return false;
	}
	dec_xidmap_answered(d->xm, &k, m->len);
	dec_finish(d, out, c, ok, skipped);
	return true;
}

static uint32_t
dec_load32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static void
dec_msg_reset(struct dec_msg *out)
{
	out->prog = out->vers = out->proc = 0;
	out->call_seen = false;
	out->by_shape = false;
	out->call_frame = 0;
	out->call_ts_ns = 0;
	out->call_id.slot = out->call_id.gen = 0;
	out->status = DEC_OK;
	out->err_off = 0;
	out->kind = DEC_BODY_NONE;
}

bool
dec_message(struct dec *d, const struct cap_msg *m, struct dec_msg *out)
{
	struct xdr c;
	uint32_t cap = m->caplen <= m->len ? m->caplen : m->len;
	uint32_t mtype;

	d->st.msgs++;
	d->held = false;
	if (dec_late_waiting(d->late) > 0)
		dec_late_expire(d->late, m->ts_ns, false);
	dec_msg_reset(out);
	if (cap < 12 || m->data == NULL) {
		d->st.not_rpc++;
		return false;
	}
	xdr_init(&c, m->data, cap, m->len);
	c.no_attrs = d->no_attrs;
	mtype = dec_load32(m->data + 4);
	if (mtype == RPC_CALL)
		return dec_call(d, m, &c, out);
	if (mtype == RPC_REPLY)
		return dec_reply(d, m, &c, dec_load32(m->data), out, false);
	d->st.not_rpc++;
	return false;
}

bool
dec_held(const struct dec *d)
{
	return d->held;
}

int64_t
dec_held_oldest_ns(const struct dec *d)
{
	return dec_late_oldest_ns(d->late);
}

const struct cap_msg *
dec_next(struct dec *d, struct dec_msg *out, bool *rpc)
{
	const struct cap_msg *m;
	struct dec_xid_key k;
	bool timed_out;
	struct xdr c;

	m = dec_late_next(d->late, &k, &timed_out);
	if (m == NULL)
		return NULL;
	dec_msg_reset(out);
	/* held only after rpc_probe passed: at least a reply header */
	xdr_init(&c, m->data, m->caplen, m->len);
	c.no_attrs = d->no_attrs;
	if (timed_out) {
		d->st.late_expired++;
		*rpc = dec_orphan(d, m, &c, out);
	} else {
		d->st.late_matched++;
		*rpc = dec_reply(d, m, &c, k.xid, out, true);
	}
	return m;
}

void
dec_flush(struct dec *d)
{
	dec_late_expire(d->late, 0, true);
}

void
dec_tick(struct dec *d, int64_t now_ns)
{
	if (dec_late_waiting(d->late) > 0)
		dec_late_expire(d->late, now_ns, false);
}

bool
dec_probe_start(void *user, const struct cap_msg *m)
{
	(void)user;
	return rpc_probe(m->data, m->caplen, m->len);
}

bool
dec_probe_resync(void *user, const struct cap_msg *m)
{
	struct dec *d = user;
	struct dec_xid_call xc;
	struct dec_xid_key k;

	if (rpc_probe_call(m->data, m->caplen, m->len))
		return true;
	if (!d || m->caplen < 4 || !rpc_probe(m->data, m->caplen, m->len))
		return false;
	k.client = m->dst;
	k.server = m->src;
	k.client_port = m->dport;
	k.server_port = m->sport;
	k.xid = (uint32_t)m->data[0] << 24 | (uint32_t)m->data[1] << 16 |
		(uint32_t)m->data[2] << 8 | m->data[3];
	return dec_xidmap_get(d->xm, &k, m->ts_ns, &xc) ||
	       dec_reply_shape_whole(d->pairs, m, d->scratch);
}
