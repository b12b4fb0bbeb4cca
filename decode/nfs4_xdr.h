/*
 * nfs4_xdr.h - XDR decoders of the NFSv4 types shared by the argument
 * (nfs4.c) and result (nfs4_reply.c) decoders; internal to decode/.
 *
 * Each is named after its RFC type (RFC 7531, 5662, 7863) and follows
 * nfs_common.h: false with the cursor failed (truncated or malformed).
 * Types whose values the analysis does not use are stepped over exactly
 * (their length fields checked against the wire, their union
 * discriminants range-checked), never stored.
 */
#ifndef NFSCOPE_NFS4_XDR_H
#define NFSCOPE_NFS4_XDR_H

#include "decode/decode_int.h"

/* ok, and the have bit set in op if ok: `return nfs4_set(dec(...), op, B)` */
bool nfs4_set(bool ok, struct nfs4_op *op, uint32_t bit);
/* component4 into n, the have bit set in op when it was kept */
bool nfs4_name(struct xdr *c, struct nfs4_op *op, struct nfs_name *n,
	       uint32_t bit);
/* The arguments of an op of minor version 0 or 1 (nfs4.c), of 2 or an
 * xattr op then the older ones (nfs4_42.c) */
bool nfs4_dec_args_v41(struct xdr *c, struct nfs4_op *op);
bool nfs4_dec_args_v42(struct xdr *c, struct nfs4_op *op);
/* READ4args (READ_PLUS4args has the same shape) */
bool nfs4_dec_read_args(struct xdr *c, struct nfs4_op *op);
/* SEQUENCE4args (CB_SEQUENCE4args begins with the same fields) */
bool nfs4_dec_sequence_args(struct xdr *c, struct nfs4_op *op);
/* The arguments of a back-channel op (nfs4_cb.c) */
bool nfs4_dec_cb_args(struct xdr *c, struct nfs4_op *op);
/* An opaque<> or string<> of no interest, stepped over by its length. */
bool nfs4_skip_opaque(struct xdr *c);
/* Array length n of elements at least min_bytes each: malformed when
 * the wire cannot hold them. */
bool nfs4_dec_count(struct xdr *c, uint32_t *n, uint32_t min_bytes);
/* T x<>: the count, then each element stepped over by skip (min_bytes
 * each at least) */
bool nfs4_skip_array(struct xdr *c, uint32_t min_bytes,
		     bool (*skip)(struct xdr *));
/* T x<> of elements of `size` bytes each (uint32_t, stateid4, deviceid4) */
bool nfs4_skip_fixed_array(struct xdr *c, uint32_t size);
/* n elements of size bytes (n * size fits the wire: nfs4_dec_count) */
bool nfs4_skip_fixed(struct xdr *c, uint64_t n, uint32_t size);
/* stateid4: seqid + other[12] */
bool nfs4_skip_stateid(struct xdr *c);
/* verifier4 */
bool nfs4_dec_verifier(struct xdr *c, uint8_t v[NFS_VERF_SIZE]);
/* nfstime4 */
bool nfs4_skip_nfstime(struct xdr *c);
/* bitmap4: the first `max` words into w (NULL: none), *n = words sent */
bool nfs4_dec_bitmap(struct xdr *c, uint32_t *w, uint32_t max, uint32_t *n);
bool nfs4_skip_bitmap(struct xdr *c);
/* fattr4: bitmap4 attrmask + attrlist4 attr_vals, stepped over */
bool nfs4_skip_fattr(struct xdr *c);
/* nfs_fh4: opaque<NFS4_FHSIZE = 128>, the first NFS_FHSIZE_MAX bytes kept */
bool nfs4_dec_fh(struct xdr *c, struct nfs_fh *fh);
/* component4 (utf8str_cs): kept when <= NFS_NAME_MAX bytes (*kept) */
bool nfs4_dec_component(struct xdr *c, struct nfs_name *n, bool *kept);
/* change_info4 */
bool nfs4_skip_change_info(struct xdr *c);
/* state_owner4 (open_owner4, lock_owner4) */
bool nfs4_skip_state_owner(struct xdr *c);
/* netaddr4 */
bool nfs4_skip_netaddr(struct xdr *c);
/* open_delegation4: *type = delegation_type */
bool nfs4_dec_open_delegation(struct xdr *c, uint32_t *type);
/* callback_sec_parms4<> */
bool nfs4_skip_cb_sec_parms(struct xdr *c);
/* channel_attrs4 */
bool nfs4_dec_channel_attrs(struct xdr *c, struct nfs4_chan *ch);
/* nfs_impl_id4<1> */
bool nfs4_skip_impl_id(struct xdr *c);
/* netloc4 */
bool nfs4_skip_netloc(struct xdr *c);
/* write_response4 into op (count, committed, verifier) */
bool nfs4_dec_write_response(struct xdr *c, struct nfs4_op *op);
/* stable_how4 committed + verifier4 writeverf into op (stable, verf) */
bool nfs4_dec_committed(struct xdr *c, struct nfs4_op *op);
/* notify4 */
bool nfs4_skip_notify(struct xdr *c);
/* layoutupdate4 / layout_content4 / device_addr4: type + opaque body */
bool nfs4_skip_typed_body(struct xdr *c);
/* a GETATTR reply's fattr4: the values the analysis uses into op */
bool nfs4_dec_fattr_used(struct xdr *c, struct nfs4_op *op);

#endif
