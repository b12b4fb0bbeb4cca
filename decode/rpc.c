/*
 * rpc.c - ONC RPC message header (RFC 5531) and credentials (RFC 5531
 * appendix A AUTH_SYS, RFC 2203 RPCSEC_GSS), plus the strict probe used to
 * recognise RPC regardless of port.
 *
 * Decisions:
 *   - rpcvers != 2, msg_type > 1, reply_stat > 1, accept_stat > 5,
 *     reject_stat > 1 and auth_stat > 14 are MALFORMED.
 *   - A credential body is decoded through its own cursor bounded by the
 *     opaque_auth length: an AUTH_SYS or RPCSEC_GSS body whose inner fields
 *     run past that length, or stop short of it, is MALFORMED.
 *   - Other flavours (AUTH_SHORT, AUTH_DH, ...) are kept by length only.
 *   - An RPCSEC_GSS credential of a version other than 1 is skipped by length
 *     (gss_vers set, RPC_CRED_GSS not set).
 */
#include "decode/decode_int.h"

#include <stddef.h>
#include <string.h>

#define RPC_VERSION 2
#define RPC_AUTH_STAT_MAX 14	/* RPCSEC_GSS_CTXPROBLEM */
#define RPCSEC_GSS_VERS_1 1

/*
 * A cursor over the n bytes at c's offset (n fits the wire: checked by the
 * caller), with the part of them that was captured.
 */
static void
rpc_sub(const struct xdr *c, struct xdr *sub, uint32_t n)
{
	uint32_t cap = xdr_cap_left(c);

	if (cap > n)
		cap = n;
	if (cap == 0)
		xdr_init(sub, c->buf, 0, n);
	else
		xdr_init(sub, c->buf + c->off, cap, n);
}

/* Move a sub-cursor's error onto the outer cursor (body started at base). */
static bool
rpc_sub_fail(struct xdr *c, const struct xdr *sub, uint32_t base)
{
	if (c->err == XDR_OK) {
		c->err = sub->err;
		c->err_off = base + sub->err_off;
	}
	return false;
}

/*
 * struct authsys_parms {
 *     unsigned int stamp;
 *     string machinename<255>;
 *     unsigned int uid;
 *     unsigned int gid;
 *     unsigned int gids<16>;
 * };
 */
static bool
rpc_dec_authsys(struct xdr *c, struct rpc_cred *cr)
{
	uint32_t mlen, i;

	if (!xdr_u32(c, &cr->stamp))
		return false;
	if (!xdr_string(c, cr->machine, &mlen, RPC_MAX_MACHINE))
		return false;
	if (!xdr_u32(c, &cr->uid))
		return false;
	if (!xdr_u32(c, &cr->gid))
		return false;
	if (!xdr_enum(c, &cr->ngids, RPC_MAX_GIDS))
		return false;
	/* the gids' values: only dump shows them.  A decoder that reads no
	   values (no_attrs) steps over them when they are all captured -
	   where reading them would succeed too */
	if (c->no_attrs && c->err == XDR_OK &&
	    xdr_cap_left(c) >= 4 * cr->ngids)
		return xdr_skip(c, 4 * cr->ngids);
	for (i = 0; i < cr->ngids; i++) {
		if (!xdr_u32(c, &cr->gids[i]))
			return false;
	}
	return true;
}

/*
 * enum rpc_gss_proc_t { RPCSEC_GSS_DATA = 0, RPCSEC_GSS_INIT = 1,
 *     RPCSEC_GSS_CONTINUE_INIT = 2, RPCSEC_GSS_DESTROY = 3 };
 * enum rpc_gss_service_t { rpc_gss_svc_none = 1,
 *     rpc_gss_svc_integrity = 2, rpc_gss_svc_privacy = 3 };
 * struct rpc_gss_cred_vers_1_t {
 *     rpc_gss_proc_t gss_proc;
 *     unsigned int seq_num;
 *     rpc_gss_service_t service;
 *     opaque handle<>;
 * };
 * union rpc_gss_cred_t switch (unsigned int version) {
 *     case RPCSEC_GSS_VERS_1: rpc_gss_cred_vers_1_t rpc_credentials_v1;
 * };
 */
static bool
rpc_dec_gss_cred(struct xdr *c, struct rpc_cred *cr)
{
	if (!xdr_u32(c, &cr->gss_vers))
		return false;
	if (cr->gss_vers != RPCSEC_GSS_VERS_1)
		return xdr_skip(c, xdr_wire_left(c));
	if (!xdr_u32(c, &cr->gss_proc))
		return false;
	if (!xdr_u32(c, &cr->gss_seq))
		return false;
	if (!xdr_u32(c, &cr->gss_svc))
		return false;
	if (!xdr_skip_opaque(c, &cr->gss_ctx_len, RPC_MAX_AUTH_BYTES))
		return false;
	cr->have |= RPC_CRED_GSS;
	return true;
}

/*
 * struct opaque_auth {
 *     auth_flavor flavor;
 *     opaque body<400>;
 * };
 * The credential body is decoded for AUTH_SYS and RPCSEC_GSS.
 */
static bool
rpc_dec_cred(struct xdr *c, struct rpc_cred *cr)
{
	struct xdr sub;
	uint32_t at, n;

	if (!xdr_u32(c, &cr->flavor))
		return false;
	at = c->off;
	if (!xdr_u32(c, &n))
		return false;
	if (n > RPC_MAX_AUTH_BYTES || ((n + 3) & ~3u) > xdr_wire_left(c)) {
		c->off = at;
		return xdr_fail(c, XDR_MALFORMED);
	}
	cr->len = n;
	if (cr->flavor == RPC_AUTH_SYS || cr->flavor == RPC_RPCSEC_GSS) {
		rpc_sub(c, &sub, n);
		sub.no_attrs = c->no_attrs;
		if (cr->flavor == RPC_AUTH_SYS) {
			if (!rpc_dec_authsys(&sub, cr))
				return rpc_sub_fail(c, &sub, c->off);
			cr->have |= RPC_CRED_SYS;
		} else {
			if (!rpc_dec_gss_cred(&sub, cr))
				return rpc_sub_fail(c, &sub, c->off);
		}
		if (sub.off != sub.len) {
			/* inner fields stop short of the opaque length */
			cr->have = 0;
			return xdr_fail(c, XDR_MALFORMED);
		}
	}
	return xdr_skip(c, (n + 3) & ~3u);
}

/* opaque_auth used as a verifier: kept by flavour and length. */
static bool
rpc_dec_verf(struct xdr *c, struct rpc_verf *v)
{
	if (!xdr_u32(c, &v->flavor))
		return false;
	return xdr_skip_opaque(c, &v->len, RPC_MAX_AUTH_BYTES);
}

/*
 * struct call_body {
 *     unsigned int rpcvers;       // must be equal to two (2)
 *     unsigned int prog;
 *     unsigned int vers;
 *     unsigned int proc;
 *     opaque_auth cred;
 *     opaque_auth verf;
 *     // procedure-specific parameters start here
 * };
 */
static bool
rpc_dec_call_body(struct xdr *c, struct rpc_hdr *h)
{
	if (!xdr_u32(c, &h->rpcvers))
		return false;
	if (h->rpcvers != RPC_VERSION) {
		c->off -= 4;
		return xdr_fail(c, XDR_MALFORMED);
	}
	if (!xdr_u32(c, &h->prog))
		return false;
	if (!xdr_u32(c, &h->vers))
		return false;
	if (!xdr_u32(c, &h->proc))
		return false;
	if (!rpc_dec_cred(c, &h->cred))
		return false;
	return rpc_dec_verf(c, &h->verf);
}

/*
 * struct accepted_reply {
 *     opaque_auth verf;
 *     union switch (accept_stat stat) {
 *     case SUCCESS:
 *         opaque results[0];
 *     case PROG_MISMATCH:
 *         struct { unsigned int low; unsigned int high; } mismatch_info;
 *     default:
 *         void;   // PROG_UNAVAIL, PROC_UNAVAIL, GARBAGE_ARGS, SYSTEM_ERR
 *     } reply_data;
 * };
 */
static bool
rpc_dec_accepted(struct xdr *c, struct rpc_hdr *h)
{
	if (!rpc_dec_verf(c, &h->verf))
		return false;
	if (!xdr_enum(c, &h->accept_stat, RPC_SYSTEM_ERR))
		return false;
	if (h->accept_stat == RPC_PROG_MISMATCH) {
		if (!xdr_u32(c, &h->mismatch_low))
			return false;
		if (!xdr_u32(c, &h->mismatch_high))
			return false;
	}
	return true;
}

/*
 * union rejected_reply switch (reject_stat stat) {
 * case RPC_MISMATCH:
 *     struct { unsigned int low; unsigned int high; } mismatch_info;
 * case AUTH_ERROR:
 *     auth_stat stat;
 * };
 */
static bool
rpc_dec_rejected(struct xdr *c, struct rpc_hdr *h)
{
	if (!xdr_enum(c, &h->reject_stat, RPC_AUTH_ERROR))
		return false;
	if (h->reject_stat == RPC_MISMATCH) {
		if (!xdr_u32(c, &h->mismatch_low))
			return false;
		return xdr_u32(c, &h->mismatch_high);
	}
	return xdr_enum(c, &h->auth_stat, RPC_AUTH_STAT_MAX);
}

/*
 * union reply_body switch (reply_stat stat) {
 * case MSG_ACCEPTED:
 *     accepted_reply areply;
 * case MSG_DENIED:
 *     rejected_reply rreply;
 * } reply;
 */
static bool
rpc_dec_reply_body(struct xdr *c, struct rpc_hdr *h)
{
	if (!xdr_enum(c, &h->reply_stat, RPC_MSG_DENIED))
		return false;
	if (h->reply_stat == RPC_MSG_ACCEPTED)
		return rpc_dec_accepted(c, h);
	return rpc_dec_rejected(c, h);
}

/*
 * struct rpc_msg {
 *     unsigned int xid;
 *     union switch (msg_type mtype) {
 *     case CALL:
 *         call_body cbody;
 *     case REPLY:
 *         reply_body rbody;
 *     } body;
 * };
 */
/*
 * Every field zero but the bytes of the machine name after its first and
 * the gids: read only as a string and up to ngids.  Three short clears
 * instead of a memset of the whole 428 bytes (a rep stos, slow to start,
 * once per message).
 */
static void
rpc_hdr_clear(struct rpc_hdr *h)
{
	struct rpc_cred *cr = &h->cred;

	memset(h, 0, offsetof(struct rpc_hdr, cred.machine));
	cr->machine[0] = '\0';
	cr->uid = cr->gid = cr->ngids = 0;
	memset(&cr->gss_vers, 0,
	       sizeof(*h) - offsetof(struct rpc_hdr, cred.gss_vers));
}

bool
rpc_decode_hdr(struct xdr *c, struct rpc_hdr *h)
{
	rpc_hdr_clear(h);
	if (!xdr_u32(c, &h->xid))
		return false;
	if (!xdr_enum(c, &h->msg_type, RPC_REPLY))
		return false;
	if (h->msg_type == RPC_CALL) {
		if (!rpc_dec_call_body(c, h))
			return false;
	} else {
		if (!rpc_dec_reply_body(c, h))
			return false;
	}
	h->body_off = c->off;
	return true;
}

/* ---------------------------------------------------------- probing -- */

/*
 * The probe reads words by offset from the captured bytes: `avail` is what
 * was captured (<= wire length).  A word that was not captured is not
 * judged; a structure that cannot fit the wire length fails.
 */
struct rpc_probe_buf {
	const uint8_t *p;
	size_t avail;		/* captured */
	size_t len;		/* wire */
};

static bool
rpc_have(const struct rpc_probe_buf *b, size_t off)
{
	return off <= b->avail && b->avail - off >= 4;
}

static uint32_t
rpc_word(const struct rpc_probe_buf *b, size_t off)
{
	const uint8_t *q = b->p + off;

	return (uint32_t)q[0] << 24 | (uint32_t)q[1] << 16 |
	       (uint32_t)q[2] << 8 | (uint32_t)q[3];
}

static bool
rpc_flavor_known(uint32_t f)
{
	switch (f) {
	case RPC_AUTH_NONE:
	case RPC_AUTH_SYS:
	case RPC_AUTH_SHORT:
	case RPC_AUTH_DH:
	case RPC_RPCSEC_GSS:
	case RPC_AUTH_TLS:
	case RPC_AUTH_GSS_KRB5:
	case RPC_AUTH_GSS_KRB5I:
	case RPC_AUTH_GSS_KRB5P:
		return true;
	default:
		return false;
	}
}

/* AUTH_SYS body of n bytes at off: are the captured inner lengths sane? */
static bool
rpc_probe_authsys(const struct rpc_probe_buf *b, size_t off, uint32_t n)
{
	uint32_t mlen, ngids;
	size_t used;

	if (n < 20 || n % 4 != 0)
		return false;
	if (!rpc_have(b, off + 4))
		return true;
	mlen = rpc_word(b, off + 4);
	if (mlen > RPC_MAX_MACHINE)
		return false;
	used = 8 + (((size_t)mlen + 3) & ~(size_t)3);	/* stamp, machine */
	if (used + 12 > n)
		return false;
	if (!rpc_have(b, off + used + 8))
		return true;
	ngids = rpc_word(b, off + used + 8);
	if (ngids > RPC_MAX_GIDS)
		return false;
	return used + 12 + (size_t)ngids * 4 == n;
}

static bool
rpc_probe_call_buf(const struct rpc_probe_buf *b)
{
	uint32_t cflav, clen, vflav, vlen;
	size_t voff;

	if (b->avail < 12 || rpc_word(b, 4) != RPC_CALL)
		return false;
	if (rpc_word(b, 8) != RPC_VERSION)
		return false;
	if (b->len < 40)
		return false;
	if (!rpc_have(b, 24))
		return true;
	cflav = rpc_word(b, 24);
	if (!rpc_flavor_known(cflav))
		return false;
	if (!rpc_have(b, 28))
		return true;
	clen = rpc_word(b, 28);
	if (clen > RPC_MAX_AUTH_BYTES || b->len < 40 + (size_t)clen)
		return false;
	if (cflav == RPC_AUTH_SYS && !rpc_probe_authsys(b, 32, clen))
		return false;
	voff = 32 + (((size_t)clen + 3) & ~(size_t)3);
	if (b->len < voff + 8)
		return false;
	if (!rpc_have(b, voff))
		return true;
	vflav = rpc_word(b, voff);
	if (!rpc_flavor_known(vflav))
		return false;
	if (!rpc_have(b, voff + 4))
		return true;
	vlen = rpc_word(b, voff + 4);
	if (vlen > RPC_MAX_AUTH_BYTES)
		return false;
	return b->len >= voff + 8 + (((size_t)vlen + 3) & ~(size_t)3);
}

static bool
rpc_probe_reply_buf(const struct rpc_probe_buf *b)
{
	uint32_t vlen, stat;
	size_t soff;

	if (b->avail < 12 || rpc_word(b, 4) != RPC_REPLY)
		return false;
	switch (rpc_word(b, 8)) {
	case RPC_MSG_ACCEPTED:
		if (b->len < 24)
			return false;
		if (!rpc_have(b, 12))
			return true;
		if (!rpc_flavor_known(rpc_word(b, 12)))
			return false;
		if (!rpc_have(b, 16))
			return true;
		vlen = rpc_word(b, 16);
		if (vlen > RPC_MAX_AUTH_BYTES)
			return false;
		soff = 20 + (((size_t)vlen + 3) & ~(size_t)3);
		if (b->len < soff + 4)
			return false;
		if (!rpc_have(b, soff))
			return true;
		stat = rpc_word(b, soff);
		if (stat > RPC_SYSTEM_ERR)
			return false;
		if (stat == RPC_PROG_MISMATCH && b->len < soff + 12)
			return false;
		return true;
	case RPC_MSG_DENIED:
		if (b->len < 20)
			return false;
		if (!rpc_have(b, 12))
			return true;
		stat = rpc_word(b, 12);
		if (stat == RPC_MISMATCH)
			return b->len >= 24;
		if (stat != RPC_AUTH_ERROR)
			return false;
		if (!rpc_have(b, 16))
			return true;
		return rpc_word(b, 16) <= RPC_AUTH_STAT_MAX;
	default:
		return false;
	}
}

static void
rpc_probe_init(struct rpc_probe_buf *b, const uint8_t *p, size_t caplen,
	       size_t len)
{
	b->p = p;
	b->avail = caplen <= len ? caplen : len;
	b->len = len;
}

/*
 * What rpc_probe_call_buf checks of a call, against what a whole decode
 * (rpc_decode_hdr true) has already made sure of:
 *   msg_type CALL, rpcvers 2          - decoded, 2 required
 *   wire >= 40, >= 40 + cred length   - cred and verifier decoded whole
 *   cred length <= 400                - rpc_dec_cred, MALFORMED above
 *   AUTH_SYS: length >= 20, % 4, machine <= 255, gids <= 16 and the
 *     fields fill the length exactly - rpc_dec_authsys and sub.off == len
 *   verifier length <= 400, fits      - xdr_skip_opaque
 *   both flavours known               - NOT checked by the decode
 */
bool
rpc_call_hdr_probes(const struct rpc_hdr *h)
{
	return h->msg_type == RPC_CALL && rpc_flavor_known(h->cred.flavor) &&
	       rpc_flavor_known(h->verf.flavor);
}

bool
rpc_probe_call(const uint8_t *p, size_t caplen, size_t len)
{
	struct rpc_probe_buf b;

	rpc_probe_init(&b, p, caplen, len);
	return rpc_probe_call_buf(&b);
}

bool
rpc_probe(const uint8_t *p, size_t caplen, size_t len)
{
	struct rpc_probe_buf b;

	rpc_probe_init(&b, p, caplen, len);
	if (b.avail < 12)
		return false;
	if (rpc_word(&b, 4) == RPC_CALL)
		return rpc_probe_call_buf(&b);
	return rpc_probe_reply_buf(&b);
}
