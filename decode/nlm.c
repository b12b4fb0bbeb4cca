/*
 * nlm.c - Network Lock Manager v1/v3 (nlm_prot.x) and v4 (Open Group XNFS,
 * 64-bit offsets) call and reply bodies, including the one-way _MSG (args)
 * and _RES (results) procedures.
 *
 * Decisions:
 *   - netobj is opaque<MAXNETOBJ_SZ=1024>: longer is MALFORMED.  Cookie and
 *     owner handle keep their wire length in len and their first 64 bytes.
 *     The file handle netobj is stored in lock.fh with fh.len = the stored
 *     length, min(wire length, 64): a longer netobj (never a valid v2/v3
 *     handle) keeps its first 64 bytes.
 *   - caller_name is string<LM_MAXSTRLEN=1024>: the first 255 bytes are
 *     kept (caller_name.len = stored length).
 *   - The stat of a res/testres/shareres is kept as sent; only
 *     nlm_denied (1) selects the holder arm, so an unknown stat is not
 *     malformed (same policy as MOUNT).
 *   - SHARE/UNSHARE: cookie, caller_name, fh and oh are decoded into the
 *     lock (svid/offset/length left 0, mode/access skipped) and reclaim.
 *     FREE_ALL: the name goes to lock.caller_name (NLM_LOCKV) and state.
 */
#include "decode/decode_int.h"

#include <string.h>

#define NLM_MAXNETOBJ_SZ 1024
#define NLM_LM_MAXSTRLEN 1024
#define NLM_MAXNAMELEN (NLM_LM_MAXSTRLEN + 1)
#define NLM_STAT_DENIED 1

/*
 * opaque<max>, keeping the first `keep` bytes in data; *n gets the wire
 * length.
 */
static bool
nlm_dec_obj(struct xdr *c, uint8_t *data, uint32_t keep, uint32_t max,
	    uint32_t *n)
{
	struct xdr peek = *c;
	uint32_t len, k, skip;

	if (!xdr_skip_opaque(c, &len, max))
		return false;
	k = len < keep ? len : keep;
	if (k > 0) {
		if (!xdr_u32(&peek, &skip) || !xdr_fixed(&peek, data, k)) {
			*c = peek;
			return false;
		}
	}
	*n = len;
	return true;
}

/* typedef opaque netobj<MAXNETOBJ_SZ>; */
static bool
nlm_dec_netobj(struct xdr *c, struct nlm_netobj *o)
{
	return nlm_dec_obj(c, o->data, NLM_NETOBJ_MAX, NLM_MAXNETOBJ_SZ,
			   &o->len);
}

static bool
nlm_dec_fh(struct xdr *c, struct nfs_fh *fh)
{
	uint32_t n;

	if (!nlm_dec_obj(c, fh->data, NFS_FHSIZE_MAX, NLM_MAXNETOBJ_SZ, &n))
		return false;
	fh->len = n < NFS_FHSIZE_MAX ? n : NFS_FHSIZE_MAX;
	return true;
}

/* string<max>, first NFS_NAME_MAX bytes kept */
static bool
nlm_dec_name(struct xdr *c, struct nfs_name *nm, uint32_t max)
{
	uint32_t n;

	if (!nlm_dec_obj(c, (uint8_t *)nm->s, NFS_NAME_MAX, max, &n))
		return false;
	nm->len = n < NFS_NAME_MAX ? n : NFS_NAME_MAX;
	nm->s[nm->len] = '\0';
	return true;
}

/* 32-bit (v1/v3) or 64-bit (v4) offset/length */
static bool
nlm_dec_off(struct xdr *c, uint32_t vers, uint64_t *v)
{
	uint32_t u;

	if (vers == 4)
		return xdr_u64(c, v);
	if (!xdr_u32(c, &u))
		return false;
	*v = u;
	return true;
}

/*
 * struct nlm_lock {                      struct nlm4_lock {
 *     string caller_name<LM_MAXSTRLEN>;      string caller_name<LM_MAXSTRLEN>;
 *     netobj fh;                             netobj fh;
 *     netobj oh;                             netobj oh;
 *     int svid;                              int32 svid;
 *     unsigned l_offset;                     uint64 l_offset;
 *     unsigned l_len;                        uint64 l_len;
 * };                                     };
 */
static bool
nlm_dec_lock(struct xdr *c, uint32_t vers, struct nlm_msg *out)
{
	struct nlm_lock *l = &out->lock;

	if (!nlm_dec_name(c, &l->caller_name, NLM_LM_MAXSTRLEN))
		return false;
	if (!nlm_dec_fh(c, &l->fh))
		return false;
	if (!nlm_dec_netobj(c, &l->oh))
		return false;
	if (!xdr_i32(c, &l->svid))
		return false;
	if (!nlm_dec_off(c, vers, &l->offset))
		return false;
	if (!nlm_dec_off(c, vers, &l->length))
		return false;
	out->have |= NLM_LOCKV;
	return true;
}

static bool
nlm_dec_cookie(struct xdr *c, struct nlm_msg *out)
{
	if (!nlm_dec_netobj(c, &out->cookie))
		return false;
	out->have |= NLM_COOKIE;
	return true;
}

static bool
nlm_dec_flag(struct xdr *c, bool *v, uint32_t bit, struct nlm_msg *out)
{
	if (!xdr_bool(c, v))
		return false;
	out->have |= bit;
	return true;
}

/*
 * struct nlm_lockargs {
 *     netobj cookie;
 *     bool block;
 *     bool exclusive;
 *     struct nlm_lock alock;
 *     bool reclaim;
 *     int state;
 * };
 * struct nlm_cancargs = the first four fields of nlm_lockargs.
 */
static bool
nlm_dec_lockargs(struct xdr *c, uint32_t vers, bool cancel,
		 struct nlm_msg *out)
{
	if (!nlm_dec_cookie(c, out))
		return false;
	if (!nlm_dec_flag(c, &out->block, NLM_BLOCK, out))
		return false;
	if (!nlm_dec_flag(c, &out->exclusive, NLM_EXCLUSIVE, out))
		return false;
	if (!nlm_dec_lock(c, vers, out))
		return false;
	if (cancel)
		return true;
	if (!nlm_dec_flag(c, &out->reclaim, NLM_RECLAIM, out))
		return false;
	if (!xdr_u32(c, &out->state))
		return false;
	out->have |= NLM_STATE;
	return true;
}

/*
 * struct nlm_testargs {
 *     netobj cookie;
 *     bool exclusive;
 *     struct nlm_lock alock;
 * };
 */
static bool
nlm_dec_testargs(struct xdr *c, uint32_t vers, struct nlm_msg *out)
{
	if (!nlm_dec_cookie(c, out))
		return false;
	if (!nlm_dec_flag(c, &out->exclusive, NLM_EXCLUSIVE, out))
		return false;
	return nlm_dec_lock(c, vers, out);
}

/*
 * struct nlm_unlockargs {
 *     netobj cookie;
 *     struct nlm_lock alock;
 * };
 */
static bool
nlm_dec_unlockargs(struct xdr *c, uint32_t vers, struct nlm_msg *out)
{
	if (!nlm_dec_cookie(c, out))
		return false;
	return nlm_dec_lock(c, vers, out);
}

static bool
nlm_dec_stat(struct xdr *c, struct nlm_msg *out)
{
	if (!xdr_u32(c, &out->status))
		return false;
	out->have |= NLM_STATUS;
	return true;
}

/*
 * struct nlm_res {
 *     netobj cookie;
 *     nlm_stat stat;
 * };
 */
static bool
nlm_dec_res(struct xdr *c, struct nlm_msg *out)
{
	if (!nlm_dec_cookie(c, out))
		return false;
	return nlm_dec_stat(c, out);
}

/*
 * struct nlm_holder {
 *     bool exclusive;
 *     int svid;
 *     netobj oh;
 *     unsigned l_offset;     // uint64 in nlm4_holder
 *     unsigned l_len;        // uint64 in nlm4_holder
 * };
 * union nlm_testrply switch (nlm_stats stat) {
 * case nlm_denied:
 *     struct nlm_holder holder;
 * default:
 *     void;
 * };
 * struct nlm_testres {
 *     netobj cookie;
 *     nlm_testrply stat;
 * };
 */
static bool
nlm_dec_testres(struct xdr *c, uint32_t vers, struct nlm_msg *out)
{
	if (!nlm_dec_res(c, out))
		return false;
	if (out->status != NLM_STAT_DENIED)
		return true;
	if (!xdr_bool(c, &out->holder_exclusive))
		return false;
	if (!xdr_i32(c, &out->holder_svid))
		return false;
	if (!nlm_dec_netobj(c, &out->holder_oh))
		return false;
	if (!nlm_dec_off(c, vers, &out->holder_offset))
		return false;
	if (!nlm_dec_off(c, vers, &out->holder_length))
		return false;
	out->have |= NLM_HOLDER;
	return true;
}

/*
 * struct nlm_share {
 *     string caller_name<LM_MAXSTRLEN>;
 *     netobj fh;
 *     netobj oh;
 *     fsh_mode mode;
 *     fsh_access access;
 * };
 * struct nlm_shareargs {
 *     netobj cookie;
 *     nlm_share share;
 *     bool reclaim;
 * };
 */
static bool
nlm_dec_shareargs(struct xdr *c, struct nlm_msg *out)
{
	struct nlm_lock *l = &out->lock;
	uint32_t mode, access;

	if (!nlm_dec_cookie(c, out))
		return false;
	if (!nlm_dec_name(c, &l->caller_name, NLM_LM_MAXSTRLEN))
		return false;
	if (!nlm_dec_fh(c, &l->fh))
		return false;
	if (!nlm_dec_netobj(c, &l->oh))
		return false;
	l->svid = 0;
	l->offset = 0;
	l->length = 0;
	out->have |= NLM_LOCKV;
	if (!xdr_u32(c, &mode))
		return false;
	if (!xdr_u32(c, &access))
		return false;
	return nlm_dec_flag(c, &out->reclaim, NLM_RECLAIM, out);
}

/*
 * struct nlm_shareres {
 *     netobj cookie;
 *     nlm_stats stat;
 *     int sequence;
 * };
 */
static bool
nlm_dec_shareres(struct xdr *c, struct nlm_msg *out)
{
	uint32_t seq;

	if (!nlm_dec_res(c, out))
		return false;
	return xdr_u32(c, &seq);
}

/*
 * struct nlm_notify {
 *     string name<MAXNAMELEN>;
 *     long state;
 * };
 */
static bool
nlm_dec_notify(struct xdr *c, struct nlm_msg *out)
{
	struct nlm_lock *l = &out->lock;

	if (!nlm_dec_name(c, &l->caller_name, NLM_MAXNAMELEN))
		return false;
	memset(&l->fh, 0, sizeof(l->fh));
	l->oh.len = 0;
	l->svid = 0;
	l->offset = 0;
	l->length = 0;
	out->have |= NLM_LOCKV;
	if (!xdr_u32(c, &out->state))
		return false;
	out->have |= NLM_STATE;
	return true;
}

bool
nlm_decode_call(struct xdr *c, uint32_t vers, uint32_t proc,
		struct nlm_msg *out)
{
	if (vers == 1 && proc > NLM_GRANTED_RES)
		return true;
	switch (proc) {
	case NLM_TEST:
	case NLM_TEST_MSG:
	case NLM_GRANTED:
	case NLM_GRANTED_MSG:
		return nlm_dec_testargs(c, vers, out);
	case NLM_LOCK:
	case NLM_LOCK_MSG:
	case NLM_NM_LOCK:
		return nlm_dec_lockargs(c, vers, false, out);
	case NLM_CANCEL:
	case NLM_CANCEL_MSG:
		return nlm_dec_lockargs(c, vers, true, out);
	case NLM_UNLOCK:
	case NLM_UNLOCK_MSG:
		return nlm_dec_unlockargs(c, vers, out);
	case NLM_TEST_RES:
		return nlm_dec_testres(c, vers, out);
	case NLM_LOCK_RES:
	case NLM_CANCEL_RES:
	case NLM_UNLOCK_RES:
	case NLM_GRANTED_RES:
		return nlm_dec_res(c, out);
	case NLM_SHARE:
	case NLM_UNSHARE:
		return nlm_dec_shareargs(c, out);
	case NLM_FREE_ALL:
		return nlm_dec_notify(c, out);
	default:
		return true;
	}
}

bool
nlm_decode_reply(struct xdr *c, uint32_t vers, uint32_t proc,
		 struct nlm_msg *out)
{
	if (vers == 1 && proc > NLM_GRANTED_RES)
		return true;
	switch (proc) {
	case NLM_TEST:
		return nlm_dec_testres(c, vers, out);
	case NLM_LOCK:
	case NLM_CANCEL:
	case NLM_UNLOCK:
	case NLM_GRANTED:
	case NLM_NM_LOCK:
		return nlm_dec_res(c, out);
	case NLM_SHARE:
	case NLM_UNSHARE:
		return nlm_dec_shareres(c, out);
	default:
		/* NULL, the one-way _MSG/_RES procedures, FREE_ALL: void */
		return true;
	}
}
