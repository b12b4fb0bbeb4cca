/*
 * nfs4_xdr.c - the NFSv4 types shared by arguments and results; see
 * nfs4_xdr.h.  XDR text from RFC 7531 (v4.0), RFC 5662 (v4.1) and RFC
 * 7863 (v4.2) above each decoder.
 */
#include "decode/nfs4_xdr.h"

#include <string.h>

#define NFS4_FHSIZE 128
#define NFS4_OPAQUE_MAX UINT32_MAX	/* no bound but the wire length */

bool
nfs4_set(bool ok, struct nfs4_op *op, uint32_t bit)
{
	if (ok)
		op->have |= bit;
	return ok;
}

bool
nfs4_name(struct xdr *c, struct nfs4_op *op, struct nfs_name *n, uint32_t bit)
{
	bool kept;

	if (!nfs4_dec_component(c, n, &kept))
		return false;
	if (kept)
		op->have |= bit;
	return true;
}

bool
nfs4_skip_opaque(struct xdr *c)
{
	uint32_t n;

	return xdr_skip_opaque(c, &n, NFS4_OPAQUE_MAX);
}

bool
nfs4_dec_tag(struct xdr *c, struct nfs4_compound *cp)
{
	if (!xdr_skip_opaque(c, &cp->tag_len, UINT32_MAX))
		return false;
	cp->have |= N4C_TAG;
	return true;
}

bool
nfs4_dec_ops(struct xdr *c, bool cb, struct nfs4_compound *cp,
	     uint32_t min_bytes, bool unknown, nfs4_op_dec dec)
{
	struct nfs4_op scratch, *op;
	uint32_t n, i, opnum;

	if (!nfs4_dec_count(c, &n, min_bytes))
		return false;
	cp->nops_wire = n;
	cp->have |= N4C_NOPS;
	if (unknown) {
		cp->stopped = n > 0;
		return true;
	}
	for (i = 0; i < n; i++) {
		if (!xdr_u32(c, &opnum))
			return false;
		if (!nfs4_op_known(opnum, cb)) {
			cp->stopped = true;
			cp->stop_op = opnum;
			return true;
		}
		op = i < NFS4_OPS_MAX ? &cp->ops[i] : &scratch;
		op->have = 0;
		op->attr_have = 0;
		op->op = opnum;
		if (i < NFS4_OPS_MAX)
			cp->nstored = i + 1;
		if (!dec(c, cb, op))
			return false;
		cp->nops = i + 1;
	}
	return true;
}

bool
nfs4_dec_count(struct xdr *c, uint32_t *n, uint32_t min_bytes)
{
	if (!xdr_u32(c, n))
		return false;
	if ((uint64_t)*n * min_bytes > xdr_wire_left(c))
		return xdr_fail(c, XDR_MALFORMED);
	return true;
}

bool
nfs4_skip_array(struct xdr *c, uint32_t min_bytes, bool (*skip)(struct xdr *))
{
	uint32_t n, i;

	if (!nfs4_dec_count(c, &n, min_bytes))
		return false;
	for (i = 0; i < n; i++)
		if (!skip(c))
			return false;
	return true;
}

bool
nfs4_skip_fixed(struct xdr *c, uint64_t n, uint32_t size)
{
	if (n * size > xdr_wire_left(c))
		return xdr_fail(c, XDR_MALFORMED);
	return xdr_skip(c, (uint32_t)(n * size)) &&
	       (c->off <= c->cap || xdr_fail(c, XDR_TRUNCATED));
}

bool
nfs4_skip_fixed_array(struct xdr *c, uint32_t size)
{
	uint32_t n;

	return nfs4_dec_count(c, &n, size) && nfs4_skip_fixed(c, n, size);
}

/*
 * struct stateid4 {
 *     uint32_t        seqid;
 *     opaque          other[12];
 * };
 */
bool
nfs4_skip_stateid(struct xdr *c)
{
	return nfs4_skip_fixed(c, 1, 16);
}

/* typedef opaque verifier4[NFS4_VERIFIER_SIZE]; */
bool
nfs4_dec_verifier(struct xdr *c, uint8_t v[NFS_VERF_SIZE])
{
	return xdr_fixed(c, v, NFS_VERF_SIZE);
}

/*
 * struct nfstime4 {
 *     int64_t         seconds;
 *     uint32_t        nseconds;
 * };
 */
bool
nfs4_skip_nfstime(struct xdr *c)
{
	uint64_t s;
	uint32_t ns;

	return xdr_u64(c, &s) && xdr_u32(c, &ns);
}

/* typedef uint32_t bitmap4<>; */
bool
nfs4_dec_bitmap(struct xdr *c, uint32_t *w, uint32_t max, uint32_t *n)
{
	uint32_t i, v;

	if (!nfs4_dec_count(c, n, 4))
		return false;
	for (i = 0; i < *n; i++) {
		if (!xdr_u32(c, &v))
			return false;
		if (i < max)
			w[i] = v;
	}
	return true;
}

bool
nfs4_skip_bitmap(struct xdr *c)
{
	uint32_t n;

	return nfs4_dec_bitmap(c, NULL, 0, &n);
}

/*
 * struct fattr4 {
 *     bitmap4         attrmask;
 *     attrlist4       attr_vals;      // opaque<>
 * };
 */
bool
nfs4_skip_fattr(struct xdr *c)
{
	return nfs4_skip_bitmap(c) && nfs4_skip_opaque(c);
}

/* typedef opaque nfs_fh4<NFS4_FHSIZE>; */
bool
nfs4_dec_fh(struct xdr *c, struct nfs_fh *fh)
{
	uint32_t n, off;

	if (!xdr_u32(c, &n))
		return false;
	if (n > NFS4_FHSIZE)
		return xdr_fail(c, XDR_MALFORMED);
	off = c->off - 4;
	if (n <= NFS_FHSIZE_MAX) {
		c->off = off;
		return xdr_opaque(c, fh->data, &fh->len, NFS_FHSIZE_MAX);
	}
	/* longer than what is kept: its first bytes name it */
	if (!xdr_fixed(c, fh->data, NFS_FHSIZE_MAX))
		return false;
	fh->len = NFS_FHSIZE_MAX;
	return xdr_skip(c, ((n + 3) & ~3u) - NFS_FHSIZE_MAX) &&
	       (c->off <= c->cap || xdr_fail(c, XDR_TRUNCATED));
}

/* typedef utf8str_cs component4;   (opaque<>) */
bool
nfs4_dec_component(struct xdr *c, struct nfs_name *n, bool *kept)
{
	uint32_t len;

	*kept = false;
	if (!xdr_u32(c, &len))
		return false;
	c->off -= 4;
	if (len > NFS_NAME_MAX)
		return nfs4_skip_opaque(c);
	if (!xdr_string(c, n->s, &n->len, NFS_NAME_MAX))
		return false;
	*kept = true;
	return true;
}

/*
 * struct change_info4 {
 *     bool            atomic;
 *     changeid4       before;
 *     changeid4       after;
 * };
 */
bool
nfs4_skip_change_info(struct xdr *c)
{
	uint64_t before, after;
	bool atomic;

	return xdr_bool(c, &atomic) && xdr_u64(c, &before) &&
	       xdr_u64(c, &after);
}

/*
 * struct state_owner4 {
 *     clientid4       clientid;
 *     opaque          owner<NFS4_OPAQUE_LIMIT>;
 * };
 */
bool
nfs4_skip_state_owner(struct xdr *c)
{
	uint64_t clientid;

	return xdr_u64(c, &clientid) && nfs4_skip_opaque(c);
}

/*
 * struct netaddr4 {
 *     string na_r_netid<>;
 *     string na_r_addr<>;
 * };
 */
bool
nfs4_skip_netaddr(struct xdr *c)
{
	return nfs4_skip_opaque(c) && nfs4_skip_opaque(c);
}

/*
 * struct nfsace4 {
 *     acetype4        type;
 *     aceflag4        flag;
 *     acemask4        access_mask;
 *     utf8str_mixed   who;
 * };
 */
static bool
nfs4_skip_nfsace(struct xdr *c)
{
	uint32_t type, flag, mask;

	return xdr_u32(c, &type) && xdr_u32(c, &flag) && xdr_u32(c, &mask) &&
	       nfs4_skip_opaque(c);
}

/*
 * union nfs_space_limit4 switch (limit_by4 limitby) {
 * case NFS_LIMIT_SIZE:   uint64_t filesize;
 * case NFS_LIMIT_BLOCKS: nfs_modified_limit4 mod_blocks;  // 2 x uint32
 * };
 */
static bool
nfs4_skip_space_limit(struct xdr *c)
{
	uint32_t by;

	if (!xdr_u32(c, &by))
		return false;
	if (by != 1 && by != 2)
		return xdr_fail(c, XDR_MALFORMED);
	return nfs4_skip_fixed(c, 1, 8);
}

/*
 * union open_delegation4 switch (open_delegation_type4 delegation_type) {
 * case OPEN_DELEGATE_NONE:      void;
 * case OPEN_DELEGATE_READ:      open_read_delegation4 read;
 *     // stateid4 stateid; bool recall; nfsace4 permissions;
 * case OPEN_DELEGATE_WRITE:     open_write_delegation4 write;
 *     // stateid4; bool recall; nfs_space_limit4 space_limit; nfsace4;
 * case OPEN_DELEGATE_NONE_EXT:  open_none_delegation4 od_whynone;  // 4.1
 *     // union switch (why_no_delegation4 ond_why) {
 *     //   case WND4_CONTENTION: bool; case WND4_RESOURCE: bool;
 *     //   default: void; }
 * };
 */
bool
nfs4_dec_open_delegation(struct xdr *c, uint32_t *type)
{
	uint32_t why;
	bool b;

	if (!xdr_enum(c, type, 3))
		return false;
	switch (*type) {
	case 0:
		return true;
	case 1:
		return nfs4_skip_stateid(c) && xdr_bool(c, &b) &&
		       nfs4_skip_nfsace(c);
	case 2:
		return nfs4_skip_stateid(c) && xdr_bool(c, &b) &&
		       nfs4_skip_space_limit(c) && nfs4_skip_nfsace(c);
	default:
		if (!xdr_u32(c, &why))
			return false;
		if (why == 7 || why == 8)	/* WND4_CONTENTION, _RESOURCE */
			return xdr_bool(c, &b);
		return true;
	}
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
nfs4_skip_authsys(struct xdr *c)
{
	uint32_t stamp, uid, gid;

	return xdr_u32(c, &stamp) && nfs4_skip_opaque(c) &&
	       xdr_u32(c, &uid) && xdr_u32(c, &gid) &&
	       nfs4_skip_fixed_array(c, 4);
}

/*
 * union callback_sec_parms4 switch (uint32_t cb_secflavor) {
 * case AUTH_NONE:   void;
 * case AUTH_SYS:    authsys_parms   cbsp_sys_cred;
 * case RPCSEC_GSS:  gss_cb_handles4 cbsp_gss_handles;
 *     // rpc_gss_svc_t gcbp_service; gsshandle4_t (opaque<>) x 2
 * };
 */
static bool
nfs4_skip_cb_sec_parm(struct xdr *c)
{
	uint32_t flavor, svc;

	if (!xdr_u32(c, &flavor))
		return false;
	switch (flavor) {
	case RPC_AUTH_NONE:
		return true;
	case RPC_AUTH_SYS:
		return nfs4_skip_authsys(c);
	case RPC_RPCSEC_GSS:
		return xdr_u32(c, &svc) && nfs4_skip_opaque(c) &&
		       nfs4_skip_opaque(c);
	default:
		return xdr_fail(c, XDR_MALFORMED);
	}
}

bool
nfs4_skip_cb_sec_parms(struct xdr *c)
{
	return nfs4_skip_array(c, 4, nfs4_skip_cb_sec_parm);
}

/*
 * struct channel_attrs4 {
 *     count4          ca_headerpadsize;
 *     count4          ca_maxrequestsize;
 *     count4          ca_maxresponsesize;
 *     count4          ca_maxresponsesize_cached;
 *     count4          ca_maxoperations;
 *     count4          ca_maxrequests;
 *     uint32_t        ca_rdma_ird<1>;
 * };
 */
bool
nfs4_dec_channel_attrs(struct xdr *c, struct nfs4_chan *ch)
{
	uint32_t n, ird;

	if (!xdr_u32(c, &ch->headerpad) || !xdr_u32(c, &ch->maxreq) ||
	    !xdr_u32(c, &ch->maxresp) || !xdr_u32(c, &ch->maxresp_cached) ||
	    !xdr_u32(c, &ch->maxops) || !xdr_u32(c, &ch->maxreqs) ||
	    !xdr_u32(c, &n))
		return false;
	if (n > 1)
		return xdr_fail(c, XDR_MALFORMED);
	return n == 0 || xdr_u32(c, &ird);
}

/*
 * struct nfs_impl_id4 {
 *     utf8str_cis   nii_domain;
 *     utf8str_cs    nii_name;
 *     nfstime4      nii_date;
 * };
 * ... nfs_impl_id4 eia_client_impl_id<1>;
 */
bool
nfs4_skip_impl_id(struct xdr *c)
{
	uint32_t n;

	if (!xdr_u32(c, &n))
		return false;
	if (n > 1)
		return xdr_fail(c, XDR_MALFORMED);
	if (n == 0)
		return true;
	return nfs4_skip_opaque(c) && nfs4_skip_opaque(c) &&
	       nfs4_skip_nfstime(c);
}

/*
 * union netloc4 switch (netloc_type4 nl_type) {
 * case NL4_NAME:     utf8str_cis nl_name;
 * case NL4_URL:      utf8str_cis nl_url;
 * case NL4_NETADDR:  netaddr4    nl_addr;
 * };
 */
bool
nfs4_skip_netloc(struct xdr *c)
{
	uint32_t type;

	if (!xdr_u32(c, &type))
		return false;
	if (type == 1 || type == 2)
		return nfs4_skip_opaque(c);
	if (type == 3)
		return nfs4_skip_netaddr(c);
	return xdr_fail(c, XDR_MALFORMED);
}

/*
 * struct write_response4 {
 *     stateid4        wr_callback_id<1>;
 *     length4         wr_count;
 *     stable_how4     wr_committed;
 *     verifier4       wr_writeverf;
 * };
 */
bool
nfs4_dec_write_response(struct xdr *c, struct nfs4_op *op)
{
	uint32_t n;
	uint64_t count;

	if (!xdr_u32(c, &n))
		return false;
	if (n > 1)
		return xdr_fail(c, XDR_MALFORMED);
	if (n == 1 && !nfs4_skip_stateid(c))
		return false;
	if (!xdr_u64(c, &count))
		return false;
	op->length = count;
	op->have |= N4_LENGTH;
	return nfs4_dec_committed(c, op);
}

bool
nfs4_dec_committed(struct xdr *c, struct nfs4_op *op)
{
	if (!xdr_u32(c, &op->stable))
		return false;
	op->have |= N4_STABLE;
	if (!nfs4_dec_verifier(c, op->verf))
		return false;
	op->have |= N4_VERF;
	return true;
}

/*
 * struct notify4 {
 *     bitmap4         notify_mask;
 *     notifylist4     notify_vals;    // opaque<>
 * };
 */
bool
nfs4_skip_notify(struct xdr *c)
{
	return nfs4_skip_bitmap(c) && nfs4_skip_opaque(c);
}

/*
 * struct layoutupdate4 { layouttype4 lou_type; opaque lou_body<>; };
 * (layout_content4, device_addr4 and layouthint4 have the same shape)
 */
bool
nfs4_skip_typed_body(struct xdr *c)
{
	uint32_t type;

	return xdr_u32(c, &type) && nfs4_skip_opaque(c);
}

/* ------------------------------------------------------------ fattr4 -- */

/*
 * The attributes up to maxwrite (31), in bit order, as attr_vals holds
 * them (RFC 7530 5.6, 5.7).  Bytes of the fixed-size ones; 0: variable
 * (supported_attrs 0: bitmap4, acl 12: nfsace4<>, filehandle 19: nfs_fh4,
 * fs_locations 24: fs_locations4), stepped over by their own decoders.
 */
static const uint8_t fattr4_size[32] = {
	0, 4, 4, 8, 8, 4, 4, 4, 16, 4, 4, 4, 0, 4, 4, 4,
	4, 4, 4, 0, 8, 8, 8, 8, 0, 4, 4, 8, 4, 4, 8, 8,
};

#define FATTR4_TYPE 1
#define FATTR4_FH_EXPIRE_TYPE 2
#define FATTR4_CHANGE 3
#define FATTR4_SIZE 4
#define FATTR4_MAXREAD 30
#define FATTR4_MAXWRITE 31

/* typedef component4 pathname4<>; */
static bool
nfs4_skip_pathname(struct xdr *c)
{
	return nfs4_skip_array(c, 4, nfs4_skip_opaque);
}

/*
 * struct fs_location4 {
 *     utf8str_cis     server<>;
 *     pathname4       rootpath;
 * };
 * struct fs_locations4 {
 *     pathname4       fs_root;
 *     fs_location4    locations<>;
 * };
 */
static bool
nfs4_skip_fs_location(struct xdr *c)
{
	return nfs4_skip_pathname(c) && nfs4_skip_pathname(c);
}

static bool
nfs4_skip_fs_locations(struct xdr *c)
{
	return nfs4_skip_pathname(c) &&
	       nfs4_skip_array(c, 8, nfs4_skip_fs_location);
}

/* fattr4_acl: nfsace4 acl<> */
static bool
nfs4_skip_acl(struct xdr *c)
{
	return nfs4_skip_array(c, 16, nfs4_skip_nfsace);
}

/* One attribute value of bit b (< 32) at a; what is used goes into op. */
static bool
nfs4_dec_attr(struct xdr *a, uint32_t b, struct nfs4_op *op)
{
	struct nfs_fh fh;
	uint64_t v;

	switch (b) {
	case 0: return nfs4_skip_bitmap(a);
	case 12: return nfs4_skip_acl(a);
	case 19: return nfs4_dec_fh(a, &fh);
	case 24: return nfs4_skip_fs_locations(a);
	case FATTR4_TYPE:
		if (!xdr_u32(a, &op->type))
			return false;
		op->attr_have |= N4A_TYPE;
		return true;
	case FATTR4_FH_EXPIRE_TYPE:
		if (!xdr_u32(a, &op->fh_expire_type))
			return false;
		op->attr_have |= N4A_FH_EXPIRE;
		return true;
	default:
		break;
	}
	if (fattr4_size[b] == 4) {
		uint32_t u;

		return xdr_u32(a, &u);
	}
	if (fattr4_size[b] == 16 && !xdr_u64(a, &v))
		return false;
	if (!xdr_u64(a, &v))
		return false;
	if (b == FATTR4_CHANGE) {
		op->change = v;
		op->attr_have |= N4A_CHANGE;
	} else if (b == FATTR4_SIZE) {
		op->size = v;
		op->attr_have |= N4A_SIZE;
	} else if (b == FATTR4_MAXREAD) {
		op->maxread = v;
		op->attr_have |= N4A_MAXREAD;
	} else if (b == FATTR4_MAXWRITE) {
		op->maxwrite = v;
		op->attr_have |= N4A_MAXWRITE;
	}
	return true;
}

/*
 * fattr4 of a GETATTR reply: the bitmap, then attr_vals walked in bit
 * order up to maxwrite (the last attribute used).  A value that fails
 * inside attr_vals (cut, or lying) ends the walk only: attr_vals itself
 * is stepped over by its length.
 */
bool
nfs4_dec_fattr_used(struct xdr *c, struct nfs4_op *op)
{
	uint32_t w[1] = { 0 }, nw, len, off, cap, b;
	struct xdr a;

	if (!nfs4_dec_bitmap(c, w, 1, &nw))
		return false;
	if (nw == 0)
		w[0] = 0;
	off = c->off + 4;
	if (!xdr_skip_opaque(c, &len, NFS4_OPAQUE_MAX))
		return false;
	cap = c->cap > off ? c->cap - off : 0;
	xdr_init(&a, c->buf + (off < c->cap ? off : c->cap),
		 cap < len ? cap : len, len);
	op->have |= N4_ATTRS;
	for (b = 0; b < 32; b++) {
		if (!(w[0] & (1u << b)))
			continue;
		if (!nfs4_dec_attr(&a, b, op))
			break;
	}
	return true;
}
