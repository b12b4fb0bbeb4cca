/*
 * nfs4_42.c - the arguments of the NFSv4.2 operations (RFC 7862/7863) and
 * of the extended attributes (RFC 8276); results: nfs4_reply.c.  One
 * decoder per *4args type with its XDR above it; the older minor
 * versions' operations go to nfs4.c.
 */
#include "decode/nfs4_xdr.h"

/*
 * struct COPY4args {
 *     stateid4        ca_src_stateid;
 *     stateid4        ca_dst_stateid;
 *     offset4         ca_src_offset;
 *     offset4         ca_dst_offset;
 *     length4         ca_count;
 *     bool            ca_consecutive;
 *     bool            ca_synchronous;
 *     netloc4         ca_source_server<>;
 * };
 */
static bool dec_CLONE4args(struct xdr *c, struct nfs4_op *op);

static bool
dec_COPY4args(struct xdr *c, struct nfs4_op *op)
{
	bool b;

	return dec_CLONE4args(c, op) && xdr_bool(c, &b) && xdr_bool(c, &b) &&
	       nfs4_skip_array(c, 8, nfs4_skip_netloc);
}

/*
 * struct ALLOCATE4args   { stateid4; offset4; length4; };
 * (DEALLOCATE4args the same)
 */
static bool
dec_ALLOCATE4args(struct xdr *c, struct nfs4_op *op)
{
	if (!nfs4_skip_stateid(c) || !xdr_u64(c, &op->offset) ||
	    !xdr_u64(c, &op->length))
		return false;
	op->have |= N4_OFFSET | N4_LENGTH;
	return true;
}

/*
 * struct device_error4 { deviceid4 de_deviceid; nfsstat4 de_status;
 *                        nfs_opnum4 de_opnum; };
 * struct LAYOUTERROR4args {
 *     offset4         lea_offset;
 *     length4         lea_length;
 *     stateid4        lea_stateid;
 *     device_error4   lea_errors<>;
 * };
 */
static bool
dec_LAYOUTERROR4args(struct xdr *c, struct nfs4_op *op)
{
	return dec_ALLOCATE4args(c, op) && nfs4_skip_fixed_array(c, 24);
}

/*
 * struct io_info4 { uint64_t ii_count; uint64_t ii_bytes; };
 * struct LAYOUTSTATS4args {
 *     offset4                 lsa_offset;
 *     length4                 lsa_length;
 *     stateid4                lsa_stateid;
 *     io_info4                lsa_read;
 *     io_info4                lsa_write;
 *     deviceid4               lsa_deviceid;
 *     layoutupdate4           lsa_layoutupdate;
 * };
 */
static bool
dec_LAYOUTSTATS4args(struct xdr *c, struct nfs4_op *op)
{
	uint8_t skip[48];

	return dec_ALLOCATE4args(c, op) && xdr_fixed(c, skip, 48) &&
	       nfs4_skip_typed_body(c);
}

/*
 * struct app_data_block4 {
 *     offset4         adb_offset;
 *     length4         adb_block_size;
 *     length4         adb_block_count;
 *     length4         adb_reloff_blocknum;
 *     count4          adb_block_num;
 *     length4         adb_reloff_pattern;
 *     opaque          adb_pattern<>;
 * };
 * struct WRITE_SAME4args {
 *     stateid4        wsa_stateid;
 *     stable_how4     wsa_stable;
 *     app_data_block4 wsa_adb;
 * };
 */
static bool
dec_WRITE_SAME4args(struct xdr *c, struct nfs4_op *op)
{
	uint8_t skip[36];

	if (!nfs4_skip_stateid(c) || !xdr_enum(c, &op->stable, NFS3_FILE_SYNC))
		return false;
	op->have |= N4_STABLE;
	if (!xdr_u64(c, &op->offset))
		return false;
	op->have |= N4_OFFSET;
	return xdr_fixed(c, skip, 36) && nfs4_skip_opaque(c);
}

/*
 * struct CLONE4args {
 *     stateid4        cl_src_stateid;
 *     stateid4        cl_dst_stateid;
 *     offset4         cl_src_offset;
 *     offset4         cl_dst_offset;
 *     length4         cl_count;
 * };
 */
static bool
dec_CLONE4args(struct xdr *c, struct nfs4_op *op)
{
	uint64_t src;

	if (!nfs4_skip_stateid(c) || !nfs4_skip_stateid(c) ||
	    !xdr_u64(c, &src) || !xdr_u64(c, &op->offset) ||
	    !xdr_u64(c, &op->length))
		return false;
	op->have |= N4_OFFSET | N4_LENGTH;
	return true;
}

bool
nfs4_dec_args_v42(struct xdr *c, struct nfs4_op *op)
{
	uint32_t u;
	uint64_t v;

	switch (op->op) {
	case NFS4_OP_ALLOCATE:
	case NFS4_OP_DEALLOCATE:
		return dec_ALLOCATE4args(c, op);
	case NFS4_OP_COPY:
		return dec_COPY4args(c, op);
	case NFS4_OP_COPY_NOTIFY:	/* stateid4; netloc4 */
		return nfs4_skip_stateid(c) && nfs4_skip_netloc(c);
	case NFS4_OP_IO_ADVISE:	/* stateid4; offset4; length4; bitmap4 */
		return dec_ALLOCATE4args(c, op) && nfs4_skip_bitmap(c);
	case NFS4_OP_LAYOUTERROR:
		return dec_LAYOUTERROR4args(c, op);
	case NFS4_OP_LAYOUTSTATS:
		return dec_LAYOUTSTATS4args(c, op);
	case NFS4_OP_READ_PLUS:
		return nfs4_dec_read_args(c, op);
	case NFS4_OP_SEEK:	/* stateid4; offset4; data_content4 */
		if (!nfs4_skip_stateid(c) || !xdr_u64(c, &op->offset))
			return false;
		op->have |= N4_OFFSET;
		return xdr_u32(c, &u);
	case NFS4_OP_WRITE_SAME:
		return dec_WRITE_SAME4args(c, op);
	case NFS4_OP_CLONE:
		return dec_CLONE4args(c, op);
	case NFS4_OP_GETXATTR:	/* xattrkey4 */
	case NFS4_OP_REMOVEXATTR:
		return nfs4_name(c, op, &op->name, N4_NAME);
	case NFS4_OP_SETXATTR:
		/* setxattr_option4; xattrkey4; xattrvalue4 (opaque<>) */
		return xdr_u32(c, &u) && nfs4_name(c, op, &op->name, N4_NAME) &&
		       nfs4_skip_opaque(c);
	case NFS4_OP_LISTXATTRS:	/* nfs_cookie4; count4 */
		return xdr_u64(c, &v) && nfs4_set(xdr_u32(c, &op->count), op,
						N4_COUNT);
	default:
		return nfs4_dec_args_v41(c, op);
	}
}
