/*
 * nfs4.c - NFSv4 COMPOUND and CB_COMPOUND: the frame, the main operation,
 * and the arguments of the minor version 0 and 1 operations (minor 2 and
 * xattrs: nfs4_42.c; the back channel's: nfs4_cb.c; results:
 * nfs4_reply.c; shared types: nfs4_xdr.c).
 *
 * RFC 7530/7531 (minor 0), RFC 8881/5662 (minor 1), RFC 7862/7863 (minor
 * 2), RFC 8276 (xattrs).  One decoder per *4args type with its XDR above
 * it.  Every operation those RFCs define is stepped over exactly; the
 * first NFS4_OPS_MAX are stored (decode.h says which fields).  An opcode
 * no RFC defines has arguments of unknown length: the decode stops there
 * (nfs4_compound.stopped), neither truncated nor malformed.
 *
 * Enum policy as nfs3.c: a union discriminant out of range is MALFORMED
 * (the layout after it is unknown); values that select no layout are kept
 * as sent.
 */
#include "decode/nfs4_xdr.h"

#include <string.h>

/* the minor versions decoded here */
#define NFS4_MINOR_MAX 2

/* ---------------------------------------------------- v4.0 arguments -- */

/*
 * union createtype4 switch (nfs_ftype4 type) {
 * case NF4LNK:            linktext4 linkdata;
 * case NF4BLK: case NF4CHR: specdata4 devdata;
 * case NF4SOCK: case NF4FIFO: case NF4DIR: void;
 * default:                void;
 * };
 * struct CREATE4args {
 *     createtype4     objtype;
 *     component4      objname;
 *     fattr4          createattrs;
 * };
 */
static bool
dec_CREATE4args(struct xdr *c, struct nfs4_op *op)
{
	uint32_t type, maj, min;

	if (!xdr_u32(c, &type))
		return false;
	if (type == 5 && !nfs4_skip_opaque(c))
		return false;
	if ((type == 3 || type == 4) &&
	    (!xdr_u32(c, &maj) || !xdr_u32(c, &min)))
		return false;
	op->type = type;
	return nfs4_name(c, op, &op->name, N4_NAME) && nfs4_skip_fattr(c);
}

/*
 * union locker4 switch (bool new_lock_owner) {
 * case TRUE:  open_to_lock_owner4 open_owner;
 *     // seqid4 open_seqid; stateid4 open_stateid; seqid4 lock_seqid;
 *     // lock_owner4 lock_owner;
 * case FALSE: exist_lock_owner4 lock_owner;
 *     // stateid4 lock_stateid; seqid4 lock_seqid;
 * };
 * struct LOCK4args {
 *     nfs_lock_type4  locktype;
 *     bool            reclaim;
 *     offset4         offset;
 *     length4         length;
 *     locker4         locker;
 * };
 */
static bool
dec_LOCK4args(struct xdr *c, struct nfs4_op *op)
{
	uint32_t seq, seq2;
	bool reclaim, fresh;

	if (!xdr_u32(c, &op->locktype) || !xdr_bool(c, &reclaim) ||
	    !xdr_u64(c, &op->offset) || !xdr_u64(c, &op->length))
		return false;
	op->have |= N4_LOCK | N4_OFFSET | N4_LENGTH;
	if (!xdr_bool(c, &fresh))
		return false;
	if (fresh)
		return xdr_u32(c, &seq) && nfs4_skip_stateid(c) &&
		       xdr_u32(c, &seq2) && nfs4_skip_state_owner(c);
	return nfs4_skip_stateid(c) && xdr_u32(c, &seq);
}

/*
 * struct LOCKT4args {
 *     nfs_lock_type4  locktype;
 *     offset4         offset;
 *     length4         length;
 *     lock_owner4     owner;
 * };
 */
static bool
dec_LOCKT4args(struct xdr *c, struct nfs4_op *op)
{
	if (!xdr_u32(c, &op->locktype) || !xdr_u64(c, &op->offset) ||
	    !xdr_u64(c, &op->length))
		return false;
	op->have |= N4_LOCK | N4_OFFSET | N4_LENGTH;
	return nfs4_skip_state_owner(c);
}

/*
 * struct LOCKU4args {
 *     nfs_lock_type4  locktype;
 *     seqid4          seqid;
 *     stateid4        lock_stateid;
 *     offset4         offset;
 *     length4         length;
 * };
 */
static bool
dec_LOCKU4args(struct xdr *c, struct nfs4_op *op)
{
	uint32_t seq;

	if (!xdr_u32(c, &op->locktype) || !xdr_u32(c, &seq) ||
	    !nfs4_skip_stateid(c) || !xdr_u64(c, &op->offset) ||
	    !xdr_u64(c, &op->length))
		return false;
	op->have |= N4_LOCK | N4_OFFSET | N4_LENGTH;
	return true;
}

/*
 * union createhow4 switch (createmode4 mode) {
 * case UNCHECKED4: case GUARDED4: fattr4 createattrs;
 * case EXCLUSIVE4:   verifier4 createverf;
 * case EXCLUSIVE4_1: creatverfattr ch_createboth;   // 4.1
 *     // verifier4 cva_verf; fattr4 cva_attrs;
 * };
 * union openflag4 switch (opentype4 opentype) {
 * case OPEN4_CREATE: createhow4 how;
 * default:           void;
 * };
 */
static bool
dec_openflag4(struct xdr *c, struct nfs4_op *op)
{
	uint8_t verf[NFS_VERF_SIZE];

	if (!xdr_enum(c, &op->opentype, 1))
		return false;
	if (op->opentype == 0)
		return true;
	if (!xdr_enum(c, &op->createmode, 3))
		return false;
	switch (op->createmode) {
	case 0: case 1:
		return nfs4_skip_fattr(c);
	case 2:
		return nfs4_dec_verifier(c, verf);
	default:
		return nfs4_dec_verifier(c, verf) && nfs4_skip_fattr(c);
	}
}

/*
 * union open_claim4 switch (open_claim_type4 claim) {
 * case CLAIM_NULL:          component4 file;
 * case CLAIM_PREVIOUS:      open_delegation_type4 delegate_type;
 * case CLAIM_DELEGATE_CUR:  open_claim_delegate_cur4 delegate_cur_info;
 *     // stateid4 delegate_stateid; component4 file;
 * case CLAIM_DELEGATE_PREV: component4 file_delegate_prev;
 * case CLAIM_FH:            void;                       // 4.1
 * case CLAIM_DELEG_CUR_FH:  stateid4 oc_delegate_stateid;
 * case CLAIM_DELEG_PREV_FH: void;
 * };
 */
static bool
dec_open_claim4(struct xdr *c, struct nfs4_op *op)
{
	uint32_t type;

	if (!xdr_enum(c, &op->claim, 6))
		return false;
	switch (op->claim) {
	case 0: case 3:
		return nfs4_name(c, op, &op->name, N4_NAME);
	case 1:
		return xdr_u32(c, &type);
	case 2:
		return nfs4_skip_stateid(c) &&
		       nfs4_name(c, op, &op->name, N4_NAME);
	case 5:
		return nfs4_skip_stateid(c);
	default:
		return true;
	}
}

/*
 * struct OPEN4args {
 *     seqid4          seqid;
 *     uint32_t        share_access;
 *     uint32_t        share_deny;
 *     open_owner4     owner;
 *     openflag4       openhow;
 *     open_claim4     claim;
 * };
 */
static bool
dec_OPEN4args(struct xdr *c, struct nfs4_op *op)
{
	uint32_t seq, deny;

	if (!xdr_u32(c, &seq) || !xdr_u32(c, &op->share_access) ||
	    !xdr_u32(c, &deny) || !nfs4_skip_state_owner(c) ||
	    !dec_openflag4(c, op) || !dec_open_claim4(c, op))
		return false;
	op->have |= N4_OPEN;
	return true;
}

/*
 * struct READ4args {
 *     stateid4        stateid;
 *     offset4         offset;
 *     count4          count;
 * };
 * (READ_PLUS4args has the same shape)
 */
bool
nfs4_dec_read_args(struct xdr *c, struct nfs4_op *op)
{
	if (!nfs4_skip_stateid(c) || !xdr_u64(c, &op->offset))
		return false;
	op->have |= N4_OFFSET;
	return nfs4_set(xdr_u32(c, &op->count), op, N4_COUNT);
}

/*
 * struct READDIR4args {
 *     nfs_cookie4     cookie;
 *     verifier4       cookieverf;
 *     count4          dircount;
 *     count4          maxcount;
 *     bitmap4         attr_request;
 * };
 */
static bool
dec_READDIR4args(struct xdr *c, struct nfs4_op *op)
{
	uint8_t verf[NFS_VERF_SIZE];
	uint32_t dircount;

	if (!xdr_u64(c, &op->offset) || !nfs4_dec_verifier(c, verf) ||
	    !xdr_u32(c, &dircount) || !xdr_u32(c, &op->count))
		return false;
	op->have |= N4_COUNT;
	return nfs4_skip_bitmap(c);
}

/*
 * struct RENAME4args {
 *     component4      oldname;
 *     component4      newname;
 * };
 */
static bool
dec_RENAME4args(struct xdr *c, struct nfs4_op *op)
{
	return nfs4_name(c, op, &op->name, N4_NAME) &&
	       nfs4_name(c, op, &op->name2, N4_NAME2);
}

/*
 * struct SETCLIENTID4args {
 *     nfs_client_id4  client;       // verifier4 verifier; opaque id<>;
 *     cb_client4      callback;     // uint32_t cb_program; netaddr4
 *     uint32_t        callback_ident;
 * };
 */
static bool
dec_SETCLIENTID4args(struct xdr *c, struct nfs4_op *op)
{
	uint32_t prog, ident;

	(void)op;
	return nfs4_dec_verifier(c, op->verf) && nfs4_skip_opaque(c) &&
	       xdr_u32(c, &prog) && nfs4_skip_netaddr(c) &&
	       xdr_u32(c, &ident);
}

/*
 * struct WRITE4args {
 *     stateid4        stateid;
 *     offset4         offset;
 *     stable_how4     stable;
 *     opaque          data<>;
 * };
 */
static bool
dec_WRITE4args(struct xdr *c, struct nfs4_op *op)
{
	if (!nfs4_skip_stateid(c) || !xdr_u64(c, &op->offset))
		return false;
	op->have |= N4_OFFSET;
	if (!xdr_enum(c, &op->stable, NFS3_FILE_SYNC))
		return false;
	op->have |= N4_STABLE;
	return nfs4_set(xdr_skip_opaque(c, &op->count, UINT32_MAX), op,
		      N4_COUNT);
}

/* ---------------------------------------------------- v4.1 arguments -- */

/*
 * struct state_protect_ops4 {
 *     bitmap4 spo_must_enforce;
 *     bitmap4 spo_must_allow;
 * };
 * struct ssv_sp_parms4 {
 *     state_protect_ops4      ssp_ops;
 *     sec_oid4                ssp_hash_algs<>;
 *     sec_oid4                ssp_encr_algs<>;
 *     uint32_t                ssp_window;
 *     uint32_t                ssp_num_gss_handles;
 * };
 * union state_protect4_a switch (state_protect_how4 spa_how) {
 * case SP4_NONE:      void;
 * case SP4_MACH_CRED: state_protect_ops4 spa_mach_ops;
 * case SP4_SSV:       ssv_sp_parms4 spa_ssv_parms;
 * };
 */
static bool
dec_state_protect4_a(struct xdr *c)
{
	uint32_t how, w, n;

	if (!xdr_enum(c, &how, 2))
		return false;
	if (how == 0)
		return true;
	if (!nfs4_skip_bitmap(c) || !nfs4_skip_bitmap(c))
		return false;
	if (how == 1)
		return true;
	return nfs4_skip_array(c, 4, nfs4_skip_opaque) &&
	       nfs4_skip_array(c, 4, nfs4_skip_opaque) &&
	       xdr_u32(c, &w) && xdr_u32(c, &n);
}

/*
 * struct EXCHANGE_ID4args {
 *     client_owner4           eia_clientowner;
 *         // verifier4 co_verifier; opaque co_ownerid<NFS4_OPAQUE_LIMIT>;
 *     uint32_t                eia_flags;
 *     state_protect4_a        eia_state_protect;
 *     nfs_impl_id4            eia_client_impl_id<1>;
 * };
 */
static bool
dec_EXCHANGE_ID4args(struct xdr *c, struct nfs4_op *op)
{
	if (!nfs4_dec_verifier(c, op->verf) || !nfs4_skip_opaque(c) ||
	    !xdr_u32(c, &op->flags))
		return false;
	op->have |= N4_FLAGS;
	return dec_state_protect4_a(c) && nfs4_skip_impl_id(c);
}

/*
 * struct CREATE_SESSION4args {
 *     clientid4               csa_clientid;
 *     sequenceid4             csa_sequence;
 *     uint32_t                csa_flags;
 *     channel_attrs4          csa_fore_chan_attrs;
 *     channel_attrs4          csa_back_chan_attrs;
 *     uint32_t                csa_cb_program;
 *     callback_sec_parms4     csa_sec_parms<>;
 * };
 */
static bool
dec_CREATE_SESSION4args(struct xdr *c, struct nfs4_op *op)
{
	struct nfs4_chan back;
	uint32_t prog;

	if (!xdr_u64(c, &op->clientid))
		return false;
	op->have |= N4_CLIENTID;
	if (!xdr_u32(c, &op->seqid) || !xdr_u32(c, &op->flags))
		return false;
	op->have |= N4_FLAGS;
	if (!nfs4_dec_channel_attrs(c, &op->fore))
		return false;
	op->have |= N4_CHAN;
	return nfs4_dec_channel_attrs(c, &back) && xdr_u32(c, &prog) &&
	       nfs4_skip_cb_sec_parms(c);
}

/*
 * struct SEQUENCE4args {
 *     sessionid4     sa_sessionid;
 *     sequenceid4    sa_sequenceid;
 *     slotid4        sa_slotid;
 *     slotid4        sa_highest_slotid;
 *     bool           sa_cachethis;
 * };
 */
bool
nfs4_dec_sequence_args(struct xdr *c, struct nfs4_op *op)
{
	if (!xdr_fixed(c, op->sessionid, NFS4_SESSIONID_SIZE) ||
	    !xdr_u32(c, &op->seqid) || !xdr_u32(c, &op->slot) ||
	    !xdr_u32(c, &op->highest_slot) || !xdr_bool(c, &op->cachethis))
		return false;
	op->have |= N4_SEQ;
	return true;
}

/*
 * struct GET_DIR_DELEGATION4args {
 *     bool            gdda_signal_deleg_avail;
 *     bitmap4         gdda_notification_types;
 *     attr_notice4    gdda_child_attr_delay;     // nfstime4
 *     attr_notice4    gdda_dir_attr_delay;
 *     bitmap4         gdda_child_attributes;
 *     bitmap4         gdda_dir_attributes;
 * };
 */
static bool
dec_GET_DIR_DELEGATION4args(struct xdr *c)
{
	bool b;

	return xdr_bool(c, &b) && nfs4_skip_bitmap(c) &&
	       nfs4_skip_nfstime(c) && nfs4_skip_nfstime(c) &&
	       nfs4_skip_bitmap(c) && nfs4_skip_bitmap(c);
}

/*
 * struct LAYOUTCOMMIT4args {
 *     offset4                 loca_offset;
 *     length4                 loca_length;
 *     bool                    loca_reclaim;
 *     stateid4                loca_stateid;
 *     newoffset4              loca_last_write_offset;
 *         // union switch (bool no_newoffset) { TRUE: offset4; FALSE: void }
 *     newtime4                loca_time_modify;
 *         // union switch (bool nt_timechanged) { TRUE: nfstime4; ... }
 *     layoutupdate4           loca_layoutupdate;
 * };
 */
static bool
dec_LAYOUTCOMMIT4args(struct xdr *c, struct nfs4_op *op)
{
	uint64_t last;
	bool b;

	if (!xdr_u64(c, &op->offset) || !xdr_u64(c, &op->length))
		return false;
	op->have |= N4_OFFSET | N4_LENGTH;
	if (!xdr_bool(c, &b) || !nfs4_skip_stateid(c) || !xdr_bool(c, &b))
		return false;
	if (b && !xdr_u64(c, &last))
		return false;
	if (!xdr_bool(c, &b))
		return false;
	if (b && !nfs4_skip_nfstime(c))
		return false;
	return nfs4_skip_typed_body(c);
}

/*
 * struct LAYOUTGET4args {
 *     bool                    loga_signal_layout_avail;
 *     layouttype4             loga_layout_type;
 *     layoutiomode4           loga_iomode;
 *     offset4                 loga_offset;
 *     length4                 loga_length;
 *     length4                 loga_minlength;
 *     stateid4                loga_stateid;
 *     count4                  loga_maxcount;
 * };
 */
static bool
dec_LAYOUTGET4args(struct xdr *c, struct nfs4_op *op)
{
	uint32_t type, mode;
	uint64_t minlen;
	bool b;

	if (!xdr_bool(c, &b) || !xdr_u32(c, &type) || !xdr_u32(c, &mode) ||
	    !xdr_u64(c, &op->offset) || !xdr_u64(c, &op->length))
		return false;
	op->have |= N4_OFFSET | N4_LENGTH;
	return xdr_u64(c, &minlen) && nfs4_skip_stateid(c) &&
	       nfs4_set(xdr_u32(c, &op->count), op, N4_COUNT);
}

/*
 * union layoutreturn4 switch (layoutreturn_type4 lr_returntype) {
 * case LAYOUTRETURN4_FILE: layoutreturn_file4 lr_layout;
 *     // offset4 lrf_offset; length4 lrf_length; stateid4 lrf_stateid;
 *     // opaque lrf_body<>;
 * default: void;
 * };
 * struct LAYOUTRETURN4args {
 *     bool                    lora_reclaim;
 *     layouttype4             lora_layout_type;
 *     layoutiomode4           lora_iomode;
 *     layoutreturn4           lora_layoutreturn;
 * };
 */
static bool
dec_LAYOUTRETURN4args(struct xdr *c, struct nfs4_op *op)
{
	uint32_t type, mode, rt;
	bool b;

	if (!xdr_bool(c, &b) || !xdr_u32(c, &type) || !xdr_u32(c, &mode) ||
	    !xdr_u32(c, &rt))
		return false;
	if (rt != 1)
		return true;
	if (!xdr_u64(c, &op->offset) || !xdr_u64(c, &op->length))
		return false;
	op->have |= N4_OFFSET | N4_LENGTH;
	return nfs4_skip_stateid(c) && nfs4_skip_opaque(c);
}

/*
 * struct TEST_STATEID4args { stateid4 ts_stateids<>; };
 */
static bool
dec_TEST_STATEID4args(struct xdr *c)
{
	return nfs4_skip_fixed_array(c, 16);
}

/*
 * union deleg_claim4 switch (open_claim_type4 dc_claim) {
 * case CLAIM_FH: case CLAIM_DELEG_PREV_FH: void;
 * case CLAIM_PREVIOUS: open_delegation_type4 dc_delegate_type;
 * };
 * struct WANT_DELEGATION4args { uint32_t wda_want; deleg_claim4 wda_claim; };
 */
static bool
dec_WANT_DELEGATION4args(struct xdr *c)
{
	uint32_t want, claim, type;

	if (!xdr_u32(c, &want) || !xdr_u32(c, &claim))
		return false;
	if (claim == 1)
		return xdr_u32(c, &type);
	if (claim == 4 || claim == 6)
		return true;
	return xdr_fail(c, XDR_MALFORMED);
}

/* ------------------------------------------------------ all the ops -- */

/* Arguments of ops 3..39 with fixed or simple shapes, by their fields. */
static bool
dec_args_v40(struct xdr *c, struct nfs4_op *op)
{
	uint8_t verf[NFS_VERF_SIZE];
	uint32_t u;
	uint64_t v;
	bool b;

	switch (op->op) {
	case NFS4_OP_ACCESS:	/* uint32_t access */
		return nfs4_set(xdr_u32(c, &op->access), op, N4_ACCESS);
	case NFS4_OP_CLOSE:	/* seqid4 seqid; stateid4 open_stateid */
		return xdr_u32(c, &u) && nfs4_skip_stateid(c);
	case NFS4_OP_COMMIT:	/* offset4 offset; count4 count */
		if (!xdr_u64(c, &op->offset))
			return false;
		op->have |= N4_OFFSET;
		return nfs4_set(xdr_u32(c, &op->count), op, N4_COUNT);
	case NFS4_OP_CREATE:
		return dec_CREATE4args(c, op);
	case NFS4_OP_DELEGPURGE:	/* clientid4 */
	case NFS4_OP_RENEW:
	case NFS4_OP_DESTROY_CLIENTID:
		return nfs4_set(xdr_u64(c, &op->clientid), op, N4_CLIENTID);
	case NFS4_OP_DELEGRETURN:	/* stateid4 */
	case NFS4_OP_FREE_STATEID:
	case NFS4_OP_OFFLOAD_CANCEL:
	case NFS4_OP_OFFLOAD_STATUS:
		return nfs4_skip_stateid(c);
	case NFS4_OP_GETATTR:	/* bitmap4 attr_request */
		return nfs4_set(nfs4_dec_bitmap(c, op->bitmap, 3, &op->nbitmap),
			      op, N4_BITMAP);
	case NFS4_OP_GETFH: case NFS4_OP_LOOKUPP: case NFS4_OP_PUTPUBFH:
	case NFS4_OP_PUTROOTFH: case NFS4_OP_READLINK:
	case NFS4_OP_RESTOREFH: case NFS4_OP_SAVEFH:
		return true;
	case NFS4_OP_LINK:	/* component4 newname */
	case NFS4_OP_LOOKUP:	/* component4 objname */
	case NFS4_OP_REMOVE:	/* component4 target */
	case NFS4_OP_SECINFO:	/* component4 name */
		return nfs4_name(c, op, &op->name, N4_NAME);
	case NFS4_OP_LOCK:
		return dec_LOCK4args(c, op);
	case NFS4_OP_LOCKT:
		return dec_LOCKT4args(c, op);
	case NFS4_OP_LOCKU:
		return dec_LOCKU4args(c, op);
	case NFS4_OP_NVERIFY:	/* fattr4 obj_attributes */
	case NFS4_OP_VERIFY:
		return nfs4_skip_fattr(c);
	case NFS4_OP_OPEN:
		return dec_OPEN4args(c, op);
	case NFS4_OP_OPENATTR:	/* bool createdir */
		return xdr_bool(c, &b);
	case NFS4_OP_OPEN_CONFIRM:	/* stateid4 open_stateid; seqid4 */
		return nfs4_skip_stateid(c) && xdr_u32(c, &u);
	case NFS4_OP_OPEN_DOWNGRADE:
		/* stateid4; seqid4; uint32 share_access; uint32 share_deny */
		return nfs4_skip_stateid(c) && xdr_u32(c, &u) &&
		       xdr_u32(c, &u) && xdr_u32(c, &u);
	case NFS4_OP_PUTFH:	/* nfs_fh4 object */
		return nfs4_set(nfs4_dec_fh(c, &op->fh), op, N4_FH);
	case NFS4_OP_READ:
		return nfs4_dec_read_args(c, op);
	case NFS4_OP_READDIR:
		return dec_READDIR4args(c, op);
	case NFS4_OP_RENAME:
		return dec_RENAME4args(c, op);
	case NFS4_OP_SETATTR:	/* stateid4 stateid; fattr4 obj_attributes */
		return nfs4_skip_stateid(c) && nfs4_skip_fattr(c);
	case NFS4_OP_SETCLIENTID:
		return dec_SETCLIENTID4args(c, op);
	case NFS4_OP_SETCLIENTID_CONFIRM:	/* clientid4; verifier4 */
		return xdr_u64(c, &v) && nfs4_dec_verifier(c, verf);
	case NFS4_OP_WRITE:
		return dec_WRITE4args(c, op);
	case NFS4_OP_RELEASE_LOCKOWNER:	/* lock_owner4 */
		return nfs4_skip_state_owner(c);
	default:
		return xdr_fail(c, XDR_MALFORMED);	/* not reached */
	}
}

bool
nfs4_dec_args_v41(struct xdr *c, struct nfs4_op *op)
{
	uint32_t u;
	bool b;

	switch (op->op) {
	case NFS4_OP_BACKCHANNEL_CTL:
		/* uint32_t bca_cb_program; callback_sec_parms4 <> */
		return xdr_u32(c, &u) && nfs4_skip_cb_sec_parms(c);
	case NFS4_OP_BIND_CONN_TO_SESSION:
		/* sessionid4; channel_dir_from_client4; bool rdma_mode */
		if (!xdr_fixed(c, op->sessionid, NFS4_SESSIONID_SIZE))
			return false;
		op->have |= N4_SESSIONID;
		return xdr_u32(c, &u) && xdr_bool(c, &b);
	case NFS4_OP_EXCHANGE_ID:
		return dec_EXCHANGE_ID4args(c, op);
	case NFS4_OP_CREATE_SESSION:
		return dec_CREATE_SESSION4args(c, op);
	case NFS4_OP_DESTROY_SESSION:	/* sessionid4 */
		return nfs4_set(xdr_fixed(c, op->sessionid, NFS4_SESSIONID_SIZE),
			      op, N4_SESSIONID);
	case NFS4_OP_GET_DIR_DELEGATION:
		return dec_GET_DIR_DELEGATION4args(c);
	case NFS4_OP_GETDEVICEINFO:
		/* deviceid4[16]; layouttype4; count4 maxcount; bitmap4 */
		return xdr_skip(c, 16) && xdr_u32(c, &u) && xdr_u32(c, &u) &&
		       nfs4_skip_bitmap(c);
	case NFS4_OP_GETDEVICELIST: {
		/* layouttype4; count4; nfs_cookie4; verifier4 */
		uint8_t skip[24];

		return xdr_fixed(c, skip, 24);
	}
	case NFS4_OP_LAYOUTCOMMIT:
		return dec_LAYOUTCOMMIT4args(c, op);
	case NFS4_OP_LAYOUTGET:
		return dec_LAYOUTGET4args(c, op);
	case NFS4_OP_LAYOUTRETURN:
		return dec_LAYOUTRETURN4args(c, op);
	case NFS4_OP_SECINFO_NO_NAME:	/* secinfo_style4 */
		return xdr_u32(c, &u);
	case NFS4_OP_SEQUENCE:
		return nfs4_dec_sequence_args(c, op);
	case NFS4_OP_SET_SSV:	/* opaque ssa_ssv<>; opaque ssa_digest<> */
		return nfs4_skip_opaque(c) && nfs4_skip_opaque(c);
	case NFS4_OP_TEST_STATEID:
		return dec_TEST_STATEID4args(c);
	case NFS4_OP_WANT_DELEGATION:
		return dec_WANT_DELEGATION4args(c);
	case NFS4_OP_RECLAIM_COMPLETE:	/* bool rca_one_fs */
		return xdr_bool(c, &b);
	default:
		return dec_args_v40(c, op);
	}
}

/* ----------------------------------------------------------- frame -- */

bool
nfs4_op_known(uint32_t op, bool cb)
{
	if (op == NFS4_OP_ILLEGAL)
		return true;
	if (cb)
		return op >= NFS4_OP_CB_GETATTR && op <= NFS4_OP_CB_LAST;
	return op >= NFS4_OP_ACCESS && op <= NFS4_OP_LAST;
}

static bool
dec_argop(struct xdr *c, bool cb, struct nfs4_op *op)
{
	if (cb)
		return nfs4_dec_cb_args(c, op);
	if (op->op == NFS4_OP_ILLEGAL)
		return true;
	return nfs4_dec_args_v42(c, op);
}

/*
 * struct COMPOUND4args {
 *     utf8str_cs      tag;
 *     uint32_t        minorversion;
 *     nfs_argop4      argarray<>;     // nfs_opnum4 argop + its args
 * };
 * struct CB_COMPOUND4args {
 *     utf8str_cs      tag;
 *     uint32_t        minorversion;
 *     uint32_t        callback_ident;
 *     nfs_cb_argop4   argarray<>;
 * };
 */
bool
nfs4_decode_call(struct xdr *c, bool cb, struct nfs4_compound *cp)
{
	cp->cb = cb;
	if (!nfs4_dec_tag(c, cp) || !xdr_u32(c, &cp->minor))
		return false;
	cp->have |= N4C_MINOR;
	if (cb && !xdr_u32(c, &cp->cb_ident))
		return false;
	/* arguments of a minor version not known here: stopped */
	return nfs4_dec_ops(c, cb, cp, 4, cp->minor > NFS4_MINOR_MAX,
			    dec_argop);
}

/* ------------------------------------------------------ main op -- */

/* Ops that set up a COMPOUND's state rather than do its work. */
static bool
n4_setup_op(uint32_t op)
{
	switch (op) {
	case NFS4_OP_SEQUENCE: case NFS4_OP_PUTFH: case NFS4_OP_PUTROOTFH:
	case NFS4_OP_PUTPUBFH: case NFS4_OP_SAVEFH: case NFS4_OP_RESTOREFH:
	case NFS4_OP_GETFH: case NFS4_OP_GETATTR:
		return true;
	default:
		return false;
	}
}

int
nfs4_main_op(const struct nfs4_compound *cp)
{
	uint32_t i, seq = cp->cb ? NFS4_OP_CB_SEQUENCE : NFS4_OP_SEQUENCE;
	int getattr = -1;

	if (cp->nstored == 0)
		return -1;
	for (i = 0; i < cp->nstored; i++) {
		uint32_t op = cp->ops[i].op;

		if (cp->cb ? op != seq : !n4_setup_op(op))
			return (int)i;
		if (!cp->cb && op == NFS4_OP_GETATTR && getattr < 0)
			getattr = (int)i;
	}
	return getattr >= 0 ? getattr : (int)cp->nstored - 1;
}

uint32_t
nfs4_proc(const struct nfs4_compound *cp)
{
	int i = nfs4_main_op(cp);
	uint32_t op;

	if (i < 0)
		return NFS4_PROC_COMPOUND;
	op = cp->ops[i].op;
	/* ops not all seen (cut, or stopped): a setup op is not the main
	   one, the one it set up for is not known */
	if (cp->nops < cp->nops_wire && (cp->cb ? op == NFS4_OP_CB_SEQUENCE :
					 n4_setup_op(op)))
		return NFS4_PROC_COMPOUND;
	if (op == NFS4_OP_ILLEGAL)
		return NFS4_PROC_COMPOUND;
	return op;
}
