/*
 * nfs_common.h - XDR decoders shared by the NFS, MOUNT and NLM decoders
 * (internal to decode/).  Each follows the RFC type it is named after and
 * fills a fixed-size copy.  All return false with the cursor failed
 * (truncated or malformed) on error.
 */
#ifndef NFSCOPE_NFS_COMMON_H
#define NFSCOPE_NFS_COMMON_H

#include "decode/decode_int.h"

/* nfs_fh3: opaque<NFS3_FHSIZE=64> */
bool nfs_dec_fh3(struct xdr *c, struct nfs_fh *fh);
/* fhandle (v2): opaque[FHSIZE=32] */
bool nfs_dec_fh2(struct xdr *c, struct nfs_fh *fh);
/* filename: string<NFS_NAME_MAX=255>; malformed if longer */
bool nfs_dec_name(struct xdr *c, struct nfs_name *n);
/* path: string<MAXPATHLEN=1024> */
bool nfs_dec_path(struct xdr *c, struct nfs_path *p);
/* a bool that selects no layout (READ eof, PATHCONF flags): any nonzero
 * value is true, never malformed */
bool nfs_dec_flag(struct xdr *c, bool *b);
/* fattr3 */
bool nfs3_dec_fattr(struct xdr *c, struct nfs_fattr *a);
/* post_op_attr: bool + fattr3; *have receives the bool */
bool nfs3_dec_post_op_attr(struct xdr *c, bool *have, struct nfs_fattr *a);
/* wcc_data */
bool nfs3_dec_wcc(struct xdr *c, struct nfs_wcc *w);
/* post_op_fh3 */
bool nfs3_dec_post_op_fh(struct xdr *c, bool *have, struct nfs_fh *fh);
/* sattr3 */
bool nfs3_dec_sattr(struct xdr *c, struct nfs_sattr *s);
/* fattr (v2) */
bool nfs2_dec_fattr(struct xdr *c, struct nfs_fattr *a);
/* sattr (v2) */
bool nfs2_dec_sattr(struct xdr *c, struct nfs_sattr *s);

#endif
