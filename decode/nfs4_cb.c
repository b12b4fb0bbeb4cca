/*
 * nfs4_cb.c - the arguments of the NFSv4.1+ back channel's operations
 * (CB_COMPOUND, RFC 8881 20, RFC 7862 16; results: nfs4_reply.c), one
 * decoder per *4args type with its XDR above it.
 */
#include "decode/nfs4_xdr.h"

/*
 * union layoutrecall4 switch (layoutrecall_type4 lor_recalltype) {
 * case LAYOUTRECALL4_FILE: layoutrecall_file4 lor_layout;
 *     // nfs_fh4 lor_fh; offset4; length4; stateid4
 * case LAYOUTRECALL4_FSID: fsid4 lor_fsid;
 * case LAYOUTRECALL4_ALL:  void;
 * };
 * struct CB_LAYOUTRECALL4args {
 *     layouttype4             clora_type;
 *     layoutiomode4           clora_iomode;
 *     bool                    clora_changed;
 *     layoutrecall4           clora_recall;
 * };
 */
static bool
dec_CB_LAYOUTRECALL4args(struct xdr *c, struct nfs4_op *op)
{
	uint32_t type, mode, rt;
	uint64_t a, b;
	bool ch;

	if (!xdr_u32(c, &type) || !xdr_u32(c, &mode) || !xdr_bool(c, &ch) ||
	    !xdr_u32(c, &rt))
		return false;
	if (rt == 1) {
		if (!nfs4_dec_fh(c, &op->fh))
			return false;
		op->have |= N4_FH;
		return xdr_u64(c, &op->offset) && xdr_u64(c, &op->length) &&
		       nfs4_skip_stateid(c);
	}
	if (rt == 2)
		return xdr_u64(c, &a) && xdr_u64(c, &b);
	if (rt == 3)
		return true;
	return xdr_fail(c, XDR_MALFORMED);
}

static bool
dec_referring_call_list4(struct xdr *c)
{
	return nfs4_skip_fixed(c, 1, NFS4_SESSIONID_SIZE) &&
	       nfs4_skip_fixed_array(c, 8);
}

/*
 * struct referring_call4 { sequenceid4 rc_sequenceid; slotid4 rc_slotid; };
 * struct referring_call_list4 {
 *     sessionid4      rcl_sessionid;
 *     referring_call4 rcl_referring_calls<>;
 * };
 * struct CB_SEQUENCE4args {
 *     sessionid4           csa_sessionid;
 *     sequenceid4          csa_sequenceid;
 *     slotid4              csa_slotid;
 *     slotid4              csa_highest_slotid;
 *     bool                 csa_cachethis;
 *     referring_call_list4 csa_referring_call_lists<>;
 * };
 */
static bool
dec_CB_SEQUENCE4args(struct xdr *c, struct nfs4_op *op)
{
	return nfs4_dec_sequence_args(c, op) &&
	       nfs4_skip_array(c, 20, dec_referring_call_list4);
}

bool
nfs4_dec_cb_args(struct xdr *c, struct nfs4_op *op)
{
	uint32_t u, dtype;
	bool b;

	switch (op->op) {
	case NFS4_OP_CB_GETATTR:	/* nfs_fh4 fh; bitmap4 attr_request */
		return nfs4_set(nfs4_dec_fh(c, &op->fh), op, N4_FH) &&
		       nfs4_skip_bitmap(c);
	case NFS4_OP_CB_RECALL:	/* stateid4; bool truncate; nfs_fh4 fh */
		return nfs4_skip_stateid(c) && xdr_bool(c, &b) &&
		       nfs4_set(nfs4_dec_fh(c, &op->fh), op, N4_FH);
	case NFS4_OP_CB_LAYOUTRECALL:
		return dec_CB_LAYOUTRECALL4args(c, op);
	case NFS4_OP_CB_NOTIFY:	/* stateid4; nfs_fh4; notify4 changes<> */
		if (!nfs4_skip_stateid(c) || !nfs4_dec_fh(c, &op->fh))
			return false;
		op->have |= N4_FH;
		return nfs4_skip_array(c, 8, nfs4_skip_notify);
	case NFS4_OP_CB_PUSH_DELEG:	/* nfs_fh4; open_delegation4 */
		return nfs4_set(nfs4_dec_fh(c, &op->fh), op, N4_FH) &&
		       nfs4_dec_open_delegation(c, &dtype);
	case NFS4_OP_CB_RECALL_ANY:	/* uint32_t keep; bitmap4 type_mask */
	case NFS4_OP_CB_RECALLABLE_OBJ_AVAIL:
		return xdr_u32(c, &u) && nfs4_skip_bitmap(c);
	case NFS4_OP_CB_RECALL_SLOT:	/* slotid4 target_highest_slotid */
		return xdr_u32(c, &op->target_slot);
	case NFS4_OP_CB_SEQUENCE:
		return dec_CB_SEQUENCE4args(c, op);
	case NFS4_OP_CB_WANTS_CANCELLED:	/* bool; bool */
		return xdr_bool(c, &b) && xdr_bool(c, &b);
	case NFS4_OP_CB_NOTIFY_LOCK:	/* nfs_fh4; lock_owner4 */
		return nfs4_set(nfs4_dec_fh(c, &op->fh), op, N4_FH) &&
		       nfs4_skip_state_owner(c);
	case NFS4_OP_CB_NOTIFY_DEVICEID:	/* notify4 cnda_changes<> */
		return nfs4_skip_array(c, 8, nfs4_skip_notify);
	case NFS4_OP_CB_OFFLOAD:
		/* nfs_fh4; stateid4; offload_info4: union switch (nfsstat4)
		 * { NFS4_OK: write_response4; default: length4 } */
		if (!nfs4_set(nfs4_dec_fh(c, &op->fh), op, N4_FH) ||
		    !nfs4_skip_stateid(c) || !xdr_u32(c, &u))
			return false;
		if (u == NFS4_OK)
			return nfs4_dec_write_response(c, op);
		return xdr_u64(c, &op->length);
	default:
		return true;	/* CB_ILLEGAL: no arguments */
	}
}
