/*
 * nfs4_reply.c - NFSv4 COMPOUND4res and CB_COMPOUND4res: each operation's
 * result (arguments: nfs4.c).
 *
 * Every nfs_resop4 is its opcode, an nfsstat4 and, for NFS4_OK (and for
 * the few errors that carry data: LOCK/LOCKT NFS4ERR_DENIED, SETCLIENTID
 * NFS4ERR_CLID_INUSE, GETDEVICEINFO NFS4ERR_TOOSMALL, LAYOUTGET
 * NFS4ERR_LAYOUTTRYLATER, COPY NFS4ERR_OFFLOAD_NO_REQS; SETATTR always),
 * the op's result body.  A server stops at the first op that fails, so
 * the resarray may be shorter than the argarray; the COMPOUND's status is
 * that op's.  nfsstat4 values select no layout beyond those and are kept
 * as sent.
 */
#include "decode/nfs4_xdr.h"
#include "decode/nfs_common.h"

#define NFS4ERR_TOOSMALL 10005
#define NFS4ERR_CLID_INUSE 10017
#define NFS4ERR_LAYOUTTRYLATER 10058
#define NFS4ERR_OFFLOAD_NO_REQS 10094

/* eof (a bool that selects no layout: kept as sent, nonzero true) */
static bool
n4_flag(struct xdr *c, struct nfs4_op *op)
{
	if (!nfs_dec_flag(c, &op->eof))
		return false;
	op->have |= N4_EOF;
	return true;
}

static bool
n4_off(struct xdr *c, struct nfs4_op *op)
{
	if (!xdr_u64(c, &op->offset))
		return false;
	op->have |= N4_OFFSET;
	return true;
}

/*
 * struct LOCK4denied {
 *     offset4         offset;
 *     length4         length;
 *     nfs_lock_type4  locktype;
 *     lock_owner4     owner;
 * };
 */
static bool
dec_LOCK4denied(struct xdr *c, struct nfs4_op *op)
{
	if (!xdr_u64(c, &op->offset) || !xdr_u64(c, &op->length) ||
	    !xdr_u32(c, &op->locktype))
		return false;
	op->have |= N4_DENIED;
	return nfs4_skip_state_owner(c);
}

/*
 * struct READ4resok {
 *     bool            eof;
 *     opaque          data<>;
 * };
 */
static bool
dec_READ4resok(struct xdr *c, struct nfs4_op *op)
{
	if (!n4_flag(c, op))
		return false;
	if (!xdr_skip_opaque(c, &op->count, UINT32_MAX))
		return false;
	op->have |= N4_COUNT;
	return true;
}

/*
 * struct WRITE4resok {
 *     count4          count;
 *     stable_how4     committed;
 *     verifier4       writeverf;
 * };
 */
static bool
dec_WRITE4resok(struct xdr *c, struct nfs4_op *op)
{
	if (!xdr_u32(c, &op->count))
		return false;
	op->have |= N4_COUNT;
	return nfs4_dec_committed(c, op);
}

/*
 * struct entry4 {
 *     nfs_cookie4     cookie;
 *     component4      name;
 *     fattr4          attrs;
 *     entry4          *nextentry;
 * };
 * struct dirlist4 { entry4 *entries; bool eof; };
 * struct READDIR4resok {
 *     verifier4       cookieverf;
 *     dirlist4        reply;
 * };
 */
static bool
dec_READDIR4resok(struct xdr *c, struct nfs4_op *op)
{
	uint8_t verf[NFS_VERF_SIZE];
	uint64_t cookie;
	bool more;

	if (!nfs4_dec_verifier(c, verf) || !xdr_bool(c, &more))
		return false;
	op->count = 0;
	while (more) {
		if (!xdr_u64(c, &cookie) || !nfs4_skip_opaque(c) ||
		    !nfs4_skip_fattr(c) || !xdr_bool(c, &more))
			return false;
		op->count++;	/* entries */
	}
	op->have |= N4_COUNT;
	return n4_flag(c, op);
}

/*
 * struct OPEN4resok {
 *     stateid4        stateid;
 *     change_info4    cinfo;
 *     uint32_t        rflags;
 *     bitmap4         attrset;
 *     open_delegation4 delegation;
 * };
 */
static bool
dec_OPEN4resok(struct xdr *c, struct nfs4_op *op)
{
	if (!nfs4_skip_stateid(c) || !nfs4_skip_change_info(c) ||
	    !xdr_u32(c, &op->flags) || !nfs4_skip_bitmap(c))
		return false;
	op->have |= N4_FLAGS;
	if (!nfs4_dec_open_delegation(c, &op->deleg))
		return false;
	op->have |= N4_DELEG;
	return true;
}

/*
 * union secinfo4 switch (uint32_t flavor) {
 * case RPCSEC_GSS: rpcsec_gss_info flavor_info;
 *     // sec_oid4 oid; qop4 qop; rpc_gss_svc_t service;
 * default:         void;
 * };
 * typedef secinfo4 SECINFO4resok<>;
 */
static bool
dec_SECINFO4resok(struct xdr *c)
{
	uint32_t n, i, flavor, qop, svc;

	if (!nfs4_dec_count(c, &n, 4))
		return false;
	for (i = 0; i < n; i++) {
		if (!xdr_u32(c, &flavor))
			return false;
		if (flavor == RPC_RPCSEC_GSS &&
		    (!nfs4_skip_opaque(c) || !xdr_u32(c, &qop) ||
		     !xdr_u32(c, &svc)))
			return false;
	}
	return true;
}

/*
 * struct ssv_prot_info4 {
 *     state_protect_ops4     spi_ops;
 *     uint32_t               spi_hash_alg;
 *     uint32_t               spi_encr_alg;
 *     uint32_t               spi_ssv_len;
 *     uint32_t               spi_window;
 *     gsshandle4_t           spi_handles<>;
 * };
 * union state_protect4_r switch (state_protect_how4 spr_how) {
 * case SP4_NONE:      void;
 * case SP4_MACH_CRED: state_protect_ops4 spr_mach_ops;
 * case SP4_SSV:       ssv_prot_info4 spr_ssv_info;
 * };
 */
static bool
dec_state_protect4_r(struct xdr *c)
{
	uint8_t skip[16];
	uint32_t how;

	if (!xdr_enum(c, &how, 2))
		return false;
	if (how == 0)
		return true;
	if (!nfs4_skip_bitmap(c) || !nfs4_skip_bitmap(c))
		return false;
	if (how == 1)
		return true;
	return xdr_fixed(c, skip, 16) &&
	       nfs4_skip_array(c, 4, nfs4_skip_opaque);
}

/*
 * struct EXCHANGE_ID4resok {
 *     clientid4        eir_clientid;
 *     sequenceid4      eir_sequenceid;
 *     uint32_t         eir_flags;
 *     state_protect4_r eir_state_protect;
 *     server_owner4    eir_server_owner;
 *         // uint64_t so_minor_id; opaque so_major_id<NFS4_OPAQUE_LIMIT>;
 *     opaque           eir_server_scope<NFS4_OPAQUE_LIMIT>;
 *     nfs_impl_id4     eir_server_impl_id<1>;
 * };
 */
static bool
dec_EXCHANGE_ID4resok(struct xdr *c, struct nfs4_op *op)
{
	uint64_t minor;

	if (!xdr_u64(c, &op->clientid))
		return false;
	op->have |= N4_CLIENTID;
	if (!xdr_u32(c, &op->seqid) || !xdr_u32(c, &op->flags))
		return false;
	op->have |= N4_FLAGS;
	return dec_state_protect4_r(c) && xdr_u64(c, &minor) &&
	       nfs4_skip_opaque(c) && nfs4_skip_opaque(c) &&
	       nfs4_skip_impl_id(c);
}

/*
 * struct CREATE_SESSION4resok {
 *     sessionid4      csr_sessionid;
 *     sequenceid4     csr_sequence;
 *     uint32_t        csr_flags;
 *     channel_attrs4  csr_fore_chan_attrs;
 *     channel_attrs4  csr_back_chan_attrs;
 * };
 */
static bool
dec_CREATE_SESSION4resok(struct xdr *c, struct nfs4_op *op)
{
	struct nfs4_chan back;

	if (!xdr_fixed(c, op->sessionid, NFS4_SESSIONID_SIZE))
		return false;
	op->have |= N4_SESSIONID;
	if (!xdr_u32(c, &op->seqid) || !xdr_u32(c, &op->flags))
		return false;
	op->have |= N4_FLAGS;
	if (!nfs4_dec_channel_attrs(c, &op->fore))
		return false;
	op->have |= N4_CHAN;
	return nfs4_dec_channel_attrs(c, &back);
}

/*
 * struct SEQUENCE4resok {
 *     sessionid4      sr_sessionid;
 *     sequenceid4     sr_sequenceid;
 *     slotid4         sr_slotid;
 *     slotid4         sr_highest_slotid;
 *     slotid4         sr_target_highest_slotid;
 *     uint32_t        sr_status_flags;      // not in CB_SEQUENCE4resok
 * };
 */
static bool
dec_SEQUENCE4resok(struct xdr *c, struct nfs4_op *op, bool cb)
{
	if (!xdr_fixed(c, op->sessionid, NFS4_SESSIONID_SIZE) ||
	    !xdr_u32(c, &op->seqid) || !xdr_u32(c, &op->slot) ||
	    !xdr_u32(c, &op->highest_slot) || !xdr_u32(c, &op->target_slot))
		return false;
	if (!cb && !xdr_u32(c, &op->status_flags))
		return false;
	op->cachethis = false;	/* a call's field: not in the result */
	op->have |= N4_SEQ;
	return true;
}

/*
 * union GET_DIR_DELEGATION4res_non_fatal switch (gddrnf4_status) {
 * case GDD4_OK:      GET_DIR_DELEGATION4resok gddrnf_resok4;
 *     // verifier4 cookieverf; stateid4; bitmap4 notification;
 *     // bitmap4 child_attributes; bitmap4 dir_attributes;
 * case GDD4_UNAVAIL: bool gddrnf_will_signal_deleg_avail;
 * };
 */
static bool
dec_GET_DIR_DELEGATION4res_non_fatal(struct xdr *c)
{
	uint8_t verf[NFS_VERF_SIZE];
	uint32_t st;
	bool b;

	if (!xdr_enum(c, &st, 1))
		return false;
	if (st == 1)
		return xdr_bool(c, &b);
	return nfs4_dec_verifier(c, verf) && nfs4_skip_stateid(c) &&
	       nfs4_skip_bitmap(c) && nfs4_skip_bitmap(c) &&
	       nfs4_skip_bitmap(c);
}

/*
 * struct GETDEVICELIST4resok {
 *     nfs_cookie4     gdlr_cookie;
 *     verifier4       gdlr_cookieverf;
 *     deviceid4       gdlr_deviceid_list<>;    // opaque[16] each
 *     bool            gdlr_eof;
 * };
 */
static bool
dec_GETDEVICELIST4resok(struct xdr *c, struct nfs4_op *op)
{
	return nfs4_skip_fixed(c, 1, 16) && nfs4_skip_fixed_array(c, 16) &&
	       n4_flag(c, op);
}

/*
 * struct layout4 {
 *     offset4                 lo_offset;
 *     length4                 lo_length;
 *     layoutiomode4           lo_iomode;
 *     layout_content4         lo_content;
 * };
 * struct LAYOUTGET4resok {
 *     bool               logr_return_on_close;
 *     stateid4           logr_stateid;
 *     layout4            logr_layout<>;
 * };
 */
static bool
dec_LAYOUTGET4resok(struct xdr *c, struct nfs4_op *op)
{
	uint32_t n, i, mode;
	bool b;

	if (!xdr_bool(c, &b) || !nfs4_skip_stateid(c) ||
	    !nfs4_dec_count(c, &n, 28))
		return false;
	for (i = 0; i < n; i++) {
		if (!xdr_u64(c, &op->offset) || !xdr_u64(c, &op->length))
			return false;
		op->have |= N4_OFFSET | N4_LENGTH;
		if (!xdr_u32(c, &mode) || !nfs4_skip_typed_body(c))
			return false;
	}
	return true;
}

/*
 * union read_plus_content switch (data_content4 rpc_content) {
 * case NFS4_CONTENT_DATA: data4 rpc_data;   // offset4; opaque d_data<>
 * case NFS4_CONTENT_HOLE: data_info4 rpc_hole;   // offset4; length4
 * default:                void;
 * };
 * struct read_plus_res4 {
 *     bool                    rpr_eof;
 *     read_plus_content       rpr_contents<>;
 * };
 */
static bool
dec_read_plus_res4(struct xdr *c, struct nfs4_op *op)
{
	uint32_t n, i, what, len;
	uint64_t off, hole;

	if (!n4_flag(c, op))
		return false;
	if (!nfs4_dec_count(c, &n, 4))
		return false;
	op->count = 0;
	for (i = 0; i < n; i++) {
		if (!xdr_u32(c, &what))
			return false;
		if (what == 0) {
			if (!xdr_u64(c, &off) ||
			    !xdr_skip_opaque(c, &len, UINT32_MAX))
				return false;
			op->count += len;
		} else if (what == 1) {
			if (!xdr_u64(c, &off) || !xdr_u64(c, &hole))
				return false;
		}
	}
	op->have |= N4_COUNT;
	return true;
}

/*
 * struct LISTXATTRS4resok {
 *     nfs_cookie4     lxr_cookie;
 *     xattrkey4       lxr_names<>;
 *     bool            lxr_eof;
 * };
 */
static bool
dec_LISTXATTRS4resok(struct xdr *c, struct nfs4_op *op)
{
	uint64_t cookie;

	return xdr_u64(c, &cookie) && nfs4_skip_array(c, 4, nfs4_skip_opaque) &&
	       n4_flag(c, op);
}

/* The body of a failed result, for the errors that carry one. */
static bool
dec_res_fail(struct xdr *c, struct nfs4_op *op)
{
	uint32_t u;
	bool b;

	switch (op->op) {
	case NFS4_OP_LOCK: case NFS4_OP_LOCKT:
		return op->status != NFS4ERR_DENIED || dec_LOCK4denied(c, op);
	case NFS4_OP_SETCLIENTID:
		return op->status != NFS4ERR_CLID_INUSE || nfs4_skip_netaddr(c);
	case NFS4_OP_GETDEVICEINFO:
		return op->status != NFS4ERR_TOOSMALL || xdr_u32(c, &u);
	case NFS4_OP_LAYOUTGET:
		return op->status != NFS4ERR_LAYOUTTRYLATER || xdr_bool(c, &b);
	case NFS4_OP_COPY:
		return op->status != NFS4ERR_OFFLOAD_NO_REQS ||
		       (xdr_bool(c, &b) && xdr_bool(c, &b));
	default:
		return true;
	}
}

/* NFS4_OK results, v4.0 ops. */
static bool
dec_res_v40(struct xdr *c, struct nfs4_op *op)
{
	switch (op->op) {
	case NFS4_OP_ACCESS:	/* uint32_t supported; uint32_t access */
		if (!xdr_u32(c, &op->supported) || !xdr_u32(c, &op->access))
			return false;
		op->have |= N4_ACCESS;
		return true;
	case NFS4_OP_CLOSE: case NFS4_OP_LOCK: case NFS4_OP_LOCKU:
	case NFS4_OP_OPEN_CONFIRM: case NFS4_OP_OPEN_DOWNGRADE:
		return nfs4_skip_stateid(c);	/* stateid4 */
	case NFS4_OP_COMMIT:	/* verifier4 writeverf */
		if (!nfs4_dec_verifier(c, op->verf))
			return false;
		op->have |= N4_VERF;
		return true;
	case NFS4_OP_CREATE:	/* change_info4 cinfo; bitmap4 attrset */
		return nfs4_skip_change_info(c) && nfs4_skip_bitmap(c);
	case NFS4_OP_GETATTR:	/* fattr4 obj_attributes */
		return nfs4_dec_fattr_used(c, op);
	case NFS4_OP_GETFH:	/* nfs_fh4 object */
		if (!nfs4_dec_fh(c, &op->fh))
			return false;
		op->have |= N4_FH;
		return true;
	case NFS4_OP_LINK: case NFS4_OP_REMOVE:	/* change_info4 */
		return nfs4_skip_change_info(c);
	case NFS4_OP_OPEN:
		return dec_OPEN4resok(c, op);
	case NFS4_OP_READ:
		return dec_READ4resok(c, op);
	case NFS4_OP_READDIR:
		return dec_READDIR4resok(c, op);
	case NFS4_OP_READLINK:	/* linktext4 link */
		return nfs4_skip_opaque(c);
	case NFS4_OP_RENAME:	/* change_info4 source, target */
		return nfs4_skip_change_info(c) && nfs4_skip_change_info(c);
	case NFS4_OP_SECINFO:
		return dec_SECINFO4resok(c);
	case NFS4_OP_SETCLIENTID:	/* clientid4; verifier4 */
		if (!xdr_u64(c, &op->clientid))
			return false;
		op->have |= N4_CLIENTID;
		return nfs4_dec_verifier(c, op->verf);
	case NFS4_OP_WRITE:
		return dec_WRITE4resok(c, op);
	default:
		return true;	/* status only */
	}
}

/* NFS4_OK results, v4.1 ops (the v4.0 ones below them). */
static bool
dec_res_v41(struct xdr *c, struct nfs4_op *op)
{
	uint32_t u;
	uint64_t v;
	bool b;

	switch (op->op) {
	case NFS4_OP_BIND_CONN_TO_SESSION:
		/* sessionid4; channel_dir_from_server4; bool rdma_mode */
		if (!xdr_fixed(c, op->sessionid, NFS4_SESSIONID_SIZE))
			return false;
		op->have |= N4_SESSIONID;
		return xdr_u32(c, &u) && xdr_bool(c, &b);
	case NFS4_OP_EXCHANGE_ID:
		return dec_EXCHANGE_ID4resok(c, op);
	case NFS4_OP_CREATE_SESSION:
		return dec_CREATE_SESSION4resok(c, op);
	case NFS4_OP_GET_DIR_DELEGATION:
		return dec_GET_DIR_DELEGATION4res_non_fatal(c);
	case NFS4_OP_GETDEVICEINFO:	/* device_addr4; bitmap4 notification */
		return nfs4_skip_typed_body(c) && nfs4_skip_bitmap(c);
	case NFS4_OP_GETDEVICELIST:
		return dec_GETDEVICELIST4resok(c, op);
	case NFS4_OP_LAYOUTCOMMIT:	/* newsize4: bool + length4 */
		if (!xdr_bool(c, &b))
			return false;
		return !b || xdr_u64(c, &v);
	case NFS4_OP_LAYOUTGET:
		return dec_LAYOUTGET4resok(c, op);
	case NFS4_OP_LAYOUTRETURN:	/* layoutreturn_stateid: bool + stateid */
		if (!xdr_bool(c, &b))
			return false;
		return !b || nfs4_skip_stateid(c);
	case NFS4_OP_SECINFO_NO_NAME:
		return dec_SECINFO4resok(c);
	case NFS4_OP_SEQUENCE:
		return dec_SEQUENCE4resok(c, op, false);
	case NFS4_OP_SET_SSV:	/* opaque ssr_digest<> */
		return nfs4_skip_opaque(c);
	case NFS4_OP_TEST_STATEID:	/* nfsstat4 tsr_status_codes<> */
		return nfs4_skip_fixed_array(c, 4);
	case NFS4_OP_WANT_DELEGATION:	/* open_delegation4 */
		if (!nfs4_dec_open_delegation(c, &op->deleg))
			return false;
		op->have |= N4_DELEG;
		return true;
	default:
		return dec_res_v40(c, op);
	}
}

/* NFS4_OK results, v4.2 and xattr ops (the older ones below them). */
static bool
dec_res_v42(struct xdr *c, struct nfs4_op *op)
{
	uint32_t n, u;
	bool b;

	switch (op->op) {
	case NFS4_OP_COPY:
		/* write_response4 cr_response; copy_requirements4 (2 bools) */
		return nfs4_dec_write_response(c, op) && xdr_bool(c, &b) &&
		       xdr_bool(c, &b);
	case NFS4_OP_COPY_NOTIFY:
		/* nfstime4 lease_time; stateid4; netloc4 source_server<> */
		return nfs4_skip_nfstime(c) && nfs4_skip_stateid(c) &&
		       nfs4_skip_array(c, 8, nfs4_skip_netloc);
	case NFS4_OP_IO_ADVISE:	/* bitmap4 ior_hints */
		return nfs4_skip_bitmap(c);
	case NFS4_OP_OFFLOAD_STATUS:	/* length4; nfsstat4 complete<1> */
		if (!xdr_u64(c, &op->length) || !xdr_u32(c, &n))
			return false;
		if (n > 1)
			return xdr_fail(c, XDR_MALFORMED);
		return n == 0 || xdr_u32(c, &u);
	case NFS4_OP_READ_PLUS:
		return dec_read_plus_res4(c, op);
	case NFS4_OP_SEEK:	/* bool sr_eof; offset4 sr_offset */
		if (!n4_flag(c, op))
			return false;
		return n4_off(c, op);
	case NFS4_OP_WRITE_SAME:	/* write_response4 */
		return nfs4_dec_write_response(c, op);
	case NFS4_OP_GETXATTR:	/* xattrvalue4 (opaque<>) */
		return nfs4_skip_opaque(c);
	case NFS4_OP_SETXATTR: case NFS4_OP_REMOVEXATTR:	/* change_info4 */
		return nfs4_skip_change_info(c);
	case NFS4_OP_LISTXATTRS:
		return dec_LISTXATTRS4resok(c, op);
	default:
		return dec_res_v41(c, op);
	}
}

/* NFS4_OK results of the callback ops. */
static bool
dec_cb_res(struct xdr *c, struct nfs4_op *op)
{
	if (op->op == NFS4_OP_CB_GETATTR)	/* fattr4 obj_attributes */
		return nfs4_dec_fattr_used(c, op);
	if (op->op == NFS4_OP_CB_SEQUENCE)
		return dec_SEQUENCE4resok(c, op, true);
	return true;
}

/*
 * union nfs_resop4 switch (nfs_opnum4 resop) {
 * case OP_ACCESS: ACCESS4res opaccess;   // nfsstat4 status; ...
 * ...
 * };
 * SETATTR4res { nfsstat4 status; bitmap4 attrsset; } holds its bitmap
 * whatever the status.
 */
static bool
dec_resop(struct xdr *c, bool cb, struct nfs4_op *op)
{
	if (!xdr_u32(c, &op->status))
		return false;
	op->have |= N4_STATUS;
	if (!cb && op->op == NFS4_OP_SETATTR)
		return nfs4_skip_bitmap(c);
	if (op->status != NFS4_OK)
		return cb || dec_res_fail(c, op);
	if (cb)
		return dec_cb_res(c, op);
	if (op->op == NFS4_OP_ILLEGAL)
		return true;
	return dec_res_v42(c, op);
}

/*
 * struct COMPOUND4res {
 *     nfsstat4        status;
 *     utf8str_cs      tag;
 *     nfs_resop4      resarray<>;
 * };
 * (CB_COMPOUND4res the same, of nfs_cb_resop4)
 */
bool
nfs4_decode_reply(struct xdr *c, bool cb, struct nfs4_compound *cp)
{
	cp->cb = cb;
	if (!xdr_u32(c, &cp->status))
		return false;
	cp->have |= N4C_STATUS;
	return nfs4_dec_tag(c, cp) && nfs4_dec_ops(c, cb, cp, 8, false,
						    dec_resop);
}
