/*
 * portmap.c - portmap v2 and rpcbind v3/v4 (RFC 1833) call and reply bodies.
 *
 * Decisions:
 *   - rpcbind strings (netid, uaddr, owner) are string<> on the wire; the
 *     first RPCB_STR_MAX bytes are kept, longer ones are skipped past
 *     (not malformed).
 *   - Lists are walked to the end to validate; the first PMAP_LIST_MAX
 *     (v2) or PMAP_LIST_MAX / 4 (v3/v4) items are stored, list_total counts
 *     all.  Each item costs >= 4 bytes and the walk is bounded by
 *     wire length / 4.
 *   - UADDR2TADDR, TADDR2UADDR, GETADDRLIST, GETSTAT are not decoded
 *     (have = 0, true).
 */
#include "decode/decode_int.h"

#include <string.h>

#define PMAP_OPAQUE_MAX UINT32_MAX

/*
 * string<> kept up to RPCB_STR_MAX bytes (out holds RPCB_STR_MAX + 1).
 * Longer strings: the first RPCB_STR_MAX bytes are copied, the rest skipped.
 */
static bool
pmap_dec_str(struct xdr *c, char *out)
{
	struct xdr peek = *c;
	uint32_t n;

	if (!xdr_u32(&peek, &n))
		return xdr_u32(c, &n);
	if (n <= RPCB_STR_MAX)
		return xdr_string(c, out, &n, RPCB_STR_MAX);
	if (!xdr_skip_opaque(c, &n, PMAP_OPAQUE_MAX))
		return false;
	if (!xdr_fixed(&peek, out, RPCB_STR_MAX)) {
		*c = peek;
		return false;
	}
	out[RPCB_STR_MAX] = '\0';
	return true;
}

/*
 * struct mapping {
 *     unsigned int prog;
 *     unsigned int vers;
 *     unsigned int prot;
 *     unsigned int port;
 * };
 */
static bool
pmap_dec_mapping(struct xdr *c, struct pmap_mapping *m)
{
	if (!xdr_u32(c, &m->prog))
		return false;
	if (!xdr_u32(c, &m->vers))
		return false;
	if (!xdr_u32(c, &m->prot))
		return false;
	return xdr_u32(c, &m->port);
}

/*
 * struct rpcb {
 *     unsigned long r_prog;
 *     unsigned long r_vers;
 *     string r_netid<>;
 *     string r_addr<>;      // universal address
 *     string r_owner<>;
 * };
 */
static bool
pmap_dec_rpcb(struct xdr *c, struct rpcb_entry *r)
{
	if (!xdr_u32(c, &r->prog))
		return false;
	if (!xdr_u32(c, &r->vers))
		return false;
	if (!pmap_dec_str(c, r->netid))
		return false;
	if (!pmap_dec_str(c, r->addr))
		return false;
	return pmap_dec_str(c, r->owner);
}

/*
 * struct call_args {                 struct rpcb_rmtcallargs {
 *     unsigned int prog;                 unsigned long prog;
 *     unsigned int vers;                 unsigned long vers;
 *     unsigned int proc;                 unsigned long proc;
 *     opaque args<>;                     opaque args<>;
 * };                                 };
 */
static bool
pmap_dec_callargs(struct xdr *c, struct pmap_msg *out)
{
	if (!xdr_u32(c, &out->call_prog))
		return false;
	if (!xdr_u32(c, &out->call_vers))
		return false;
	if (!xdr_u32(c, &out->call_proc))
		return false;
	if (!xdr_skip_opaque(c, &out->args_len, PMAP_OPAQUE_MAX))
		return false;
	out->have |= PMAP_CALLARGS;
	return true;
}

bool
pmap_decode_call(struct xdr *c, uint32_t vers, uint32_t proc,
		 struct pmap_msg *out)
{
	if (vers == 2) {
		switch (proc) {
		case PMAP_SET:
		case PMAP_UNSET:
		case PMAP_GETPORT:
			if (!pmap_dec_mapping(c, &out->map))
				return false;
			out->have |= PMAP_MAPPING;
			return true;
		case PMAP_CALLIT:
			return pmap_dec_callargs(c, out);
		default:
			return true;
		}
	}
	switch (proc) {
	case RPCB_SET:
	case RPCB_UNSET:
	case RPCB_GETADDR:
		if (!pmap_dec_rpcb(c, &out->rpcb))
			return false;
		out->have |= PMAP_RPCB;
		return true;
	case RPCB_GETVERSADDR:
		if (vers != 4)
			return true;
		if (!pmap_dec_rpcb(c, &out->rpcb))
			return false;
		out->have |= PMAP_RPCB;
		return true;
	case RPCB_CALLIT:
		return pmap_dec_callargs(c, out);
	case RPCB_INDIRECT:
		if (vers != 4)
			return true;
		return pmap_dec_callargs(c, out);
	default:
		return true;
	}
}

/*
 * struct pmaplist {
 *     mapping map;
 *     pmaplist *next;
 * };
 * DUMP returns pmaplist * (bool + item, repeated).
 */
static bool
pmap_dec_pmaplist(struct xdr *c, struct pmap_msg *out)
{
	uint32_t budget = xdr_wire_left(c) / 4 + 1;
	struct pmap_mapping scratch;
	bool more;

	out->nlist = 0;
	out->list_total = 0;
	if (!xdr_bool(c, &more))
		return false;
	while (more) {
		struct pmap_mapping *m = out->nlist < PMAP_LIST_MAX ?
		    &out->maps[out->nlist] : &scratch;

		if (budget-- == 0)
			return xdr_fail(c, XDR_MALFORMED);
		if (!pmap_dec_mapping(c, m))
			return false;
		if (m != &scratch)
			out->nlist++;
		out->list_total++;
		if (!xdr_bool(c, &more))
			return false;
	}
	out->have |= PMAP_LIST;
	return true;
}

/*
 * struct rp__list {
 *     rpcb rpcb_map;
 *     struct rp__list *rpcb_next;
 * };
 * typedef rp__list *rpcblist_ptr;
 */
static bool
pmap_dec_rpcblist(struct xdr *c, struct pmap_msg *out)
{
	uint32_t budget = xdr_wire_left(c) / 4 + 1;
	struct rpcb_entry scratch;
	bool more;

	out->nlist = 0;
	out->list_total = 0;
	if (!xdr_bool(c, &more))
		return false;
	while (more) {
		struct rpcb_entry *r = out->nlist < PMAP_LIST_MAX / 4 ?
		    &out->rpcbs[out->nlist] : &scratch;

		if (budget-- == 0)
			return xdr_fail(c, XDR_MALFORMED);
		if (!pmap_dec_rpcb(c, r))
			return false;
		if (r != &scratch)
			out->nlist++;
		out->list_total++;
		if (!xdr_bool(c, &more))
			return false;
	}
	out->have |= PMAP_LIST;
	return true;
}

static bool
pmap_dec_bool_res(struct xdr *c, struct pmap_msg *out)
{
	if (!xdr_bool(c, &out->result))
		return false;
	out->have |= PMAP_BOOL;
	return true;
}

static bool
pmap_dec_uaddr(struct xdr *c, struct pmap_msg *out)
{
	if (!pmap_dec_str(c, out->uaddr))
		return false;
	out->have |= PMAP_UADDR;
	return true;
}

/*
 * struct rpcb_rmtcallres {
 *     string addr<>;
 *     opaque results<>;
 * };
 */
static bool
pmap_dec_rmtcallres(struct xdr *c, struct pmap_msg *out)
{
	if (!pmap_dec_uaddr(c, out))
		return false;
	if (!xdr_skip_opaque(c, &out->res_len, PMAP_OPAQUE_MAX))
		return false;
	out->have |= PMAP_RESLEN;
	return true;
}

/*
 * struct call_result {
 *     unsigned int port;
 *     opaque res<>;
 * };
 */
static bool
pmap_dec_call_result(struct xdr *c, struct pmap_msg *out)
{
	if (!xdr_u32(c, &out->port))
		return false;
	out->have |= PMAP_PORT;
	if (!xdr_skip_opaque(c, &out->res_len, PMAP_OPAQUE_MAX))
		return false;
	out->have |= PMAP_RESLEN;
	return true;
}

static bool
pmap_decode_reply_v2(struct xdr *c, uint32_t proc, struct pmap_msg *out)
{
	switch (proc) {
	case PMAP_SET:
	case PMAP_UNSET:
		return pmap_dec_bool_res(c, out);
	case PMAP_GETPORT:
		if (!xdr_u32(c, &out->port))
			return false;
		out->have |= PMAP_PORT;
		return true;
	case PMAP_DUMP:
		return pmap_dec_pmaplist(c, out);
	case PMAP_CALLIT:
		return pmap_dec_call_result(c, out);
	default:
		return true;
	}
}

bool
pmap_decode_reply(struct xdr *c, uint32_t vers, uint32_t proc,
		  struct pmap_msg *out)
{
	if (vers == 2)
		return pmap_decode_reply_v2(c, proc, out);
	switch (proc) {
	case RPCB_SET:
	case RPCB_UNSET:
		return pmap_dec_bool_res(c, out);
	case RPCB_GETADDR:
		return pmap_dec_uaddr(c, out);
	case RPCB_DUMP:
		return pmap_dec_rpcblist(c, out);
	case RPCB_CALLIT:
		return pmap_dec_rmtcallres(c, out);
	case RPCB_GETTIME:
		if (!xdr_u32(c, &out->time))
			return false;
		out->have |= PMAP_TIME;
		return true;
	case RPCB_GETVERSADDR:
		if (vers != 4)
			return true;
		return pmap_dec_uaddr(c, out);
	case RPCB_INDIRECT:
		if (vers != 4)
			return true;
		return pmap_dec_rmtcallres(c, out);
	default:
		/* UADDR2TADDR, TADDR2UADDR, GETADDRLIST, GETSTAT */
		return true;
	}
}
