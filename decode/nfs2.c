/*
 * nfs2.c - NFSv2 (RFC 1094) procedure arguments and results.
 *
 * Same conventions as nfs3.c: one decoder per RFC type, plain chains, a have
 * bit set only once its field is filled, no allocation, no clearing of the
 * large reply struct.  v2 values are mapped onto the v3-shaped structs of
 * decode.h: fhandle is a 32-byte nfs_fh, the 32-bit offsets and cookies are
 * widened, timeval useconds become nseconds (nfs_common.c).
 *
 * Enum policy: the nfsstat is kept as sent (anything but NFS_OK takes the
 * void arm); ftype in fattr is kept as sent; the "value follows" bools of the
 * readdir entry list are discriminants (0/1 or malformed) while readdirok's
 * eof is a plain bool (nonzero is true).  A procedure number >= NFS2_NPROC
 * fails the cursor MALFORMED.
 */
#include "decode/nfs_common.h"

#define NFS_OK 0
#define NFS2_MAXDATA 8192	/* opaque nfsdata<NFS_MAXDATA> */

/* ------------------------------------------------------------ calls -- */

/* fhandle file; */
static bool
nfs2_args_fh(struct xdr *c, struct nfs_call *a)
{
	if (!nfs_dec_fh2(c, &a->fh))
		return false;
	a->have |= NFSC_FH;
	return true;
}

/*
 * struct diropargs {
 *     fhandle   dir;
 *     filename  name;
 * };
 */
static bool
nfs2_dec_diropargs(struct xdr *c, struct nfs_call *a, struct nfs_fh *fh,
		   uint32_t fh_bit, struct nfs_name *name, uint32_t name_bit)
{
	if (!nfs_dec_fh2(c, fh))
		return false;
	a->have |= fh_bit;
	if (!nfs_dec_name(c, name))
		return false;
	a->have |= name_bit;
	return true;
}

static bool
nfs2_dec_where(struct xdr *c, struct nfs_call *a)
{
	return nfs2_dec_diropargs(c, a, &a->fh, NFSC_FH, &a->name, NFSC_NAME);
}

static bool
nfs2_args_sattr(struct xdr *c, struct nfs_call *a)
{
	if (!nfs2_dec_sattr(c, &a->sattr))
		return false;
	a->have |= NFSC_SATTR;
	return true;
}

/*
 * struct sattrargs {
 *     fhandle  file;
 *     sattr    attributes;
 * };
 */
static bool
nfs2_args_setattr(struct xdr *c, struct nfs_call *a)
{
	if (!nfs2_args_fh(c, a))
		return false;
	return nfs2_args_sattr(c, a);
}

/*
 * struct readargs {
 *     fhandle       file;
 *     unsigned int  offset;
 *     unsigned int  count;
 *     unsigned int  totalcount;    (unused)
 * };
 */
static bool
nfs2_args_read(struct xdr *c, struct nfs_call *a)
{
	uint32_t off;

	if (!nfs2_args_fh(c, a))
		return false;
	if (!xdr_u32(c, &off))
		return false;
	a->offset = off;
	a->have |= NFSC_OFFSET;
	if (!xdr_u32(c, &a->count))
		return false;
	a->have |= NFSC_COUNT;
	if (!xdr_u32(c, &a->totalcount))
		return false;
	a->have |= NFSC_TOTALCOUNT;
	return true;
}

/*
 * struct writeargs {
 *     fhandle       file;
 *     unsigned int  beginoffset;   (unused)
 *     unsigned int  offset;
 *     unsigned int  totalcount;    (unused)
 *     nfsdata       data;          opaque data<NFS_MAXDATA>
 * };
 * v2 has no count: count is the data length.  The data is skipped by its
 * wire length (header-only captures decode OK).
 */
static bool
nfs2_args_write(struct xdr *c, struct nfs_call *a)
{
	uint32_t off;

	if (!nfs2_args_fh(c, a))
		return false;
	if (!xdr_u32(c, &a->beginoffset))
		return false;
	a->have |= NFSC_BEGINOFFSET;
	if (!xdr_u32(c, &off))
		return false;
	a->offset = off;
	a->have |= NFSC_OFFSET;
	if (!xdr_u32(c, &a->totalcount))
		return false;
	a->have |= NFSC_TOTALCOUNT;
	if (!xdr_skip_opaque(c, &a->data_len, NFS2_MAXDATA))
		return false;
	a->count = a->data_len;
	a->have |= NFSC_DATA_LEN | NFSC_COUNT;
	return true;
}

/*
 * struct createargs {
 *     diropargs  where;
 *     sattr      attributes;
 * };
 * (CREATE and MKDIR)
 */
static bool
nfs2_args_create(struct xdr *c, struct nfs_call *a)
{
	if (!nfs2_dec_where(c, a))
		return false;
	return nfs2_args_sattr(c, a);
}

/*
 * struct renameargs {                 struct linkargs {
 *     diropargs  from;                    fhandle    from;
 *     diropargs  to;                      diropargs  to;
 * };                                  };
 */
static bool
nfs2_args_rename(struct xdr *c, struct nfs_call *a)
{
	if (!nfs2_dec_where(c, a))
		return false;
	return nfs2_dec_diropargs(c, a, &a->fh2, NFSC_FH2, &a->name2,
				  NFSC_NAME2);
}

static bool
nfs2_args_link(struct xdr *c, struct nfs_call *a)
{
	if (!nfs2_args_fh(c, a))
		return false;
	return nfs2_dec_diropargs(c, a, &a->fh2, NFSC_FH2, &a->name2,
				  NFSC_NAME2);
}

/*
 * struct symlinkargs {
 *     diropargs  from;
 *     path       to;
 *     sattr      attributes;
 * };
 */
static bool
nfs2_args_symlink(struct xdr *c, struct nfs_call *a)
{
	if (!nfs2_dec_where(c, a))
		return false;
	if (!nfs_dec_path(c, &a->path))
		return false;
	a->have |= NFSC_PATH;
	return nfs2_args_sattr(c, a);
}

/*
 * typedef opaque nfscookie[NFS_COOKIESIZE];     (4)
 * struct readdirargs {
 *     fhandle       dir;
 *     nfscookie     cookie;
 *     unsigned int  count;
 * };
 * The cookie is read as a big-endian u32 and widened.
 */
static bool
nfs2_args_readdir(struct xdr *c, struct nfs_call *a)
{
	uint32_t cookie;

	if (!nfs2_args_fh(c, a))
		return false;
	if (!xdr_u32(c, &cookie))
		return false;
	a->cookie = cookie;
	a->have |= NFSC_COOKIE;
	if (!xdr_u32(c, &a->count))
		return false;
	a->have |= NFSC_COUNT;
	return true;
}

bool
nfs2_decode_call(struct xdr *c, uint32_t proc, struct nfs_call *out)
{
	switch (proc) {
	case NFS2_NULL:
	case NFS2_ROOT:
	case NFS2_WRITECACHE:
		return true;
	case NFS2_GETATTR:
	case NFS2_READLINK:
	case NFS2_STATFS:
		return nfs2_args_fh(c, out);
	case NFS2_SETATTR:
		return nfs2_args_setattr(c, out);
	case NFS2_LOOKUP:
	case NFS2_REMOVE:
	case NFS2_RMDIR:
		return nfs2_dec_where(c, out);
	case NFS2_READ:
		return nfs2_args_read(c, out);
	case NFS2_WRITE:
		return nfs2_args_write(c, out);
	case NFS2_CREATE:
	case NFS2_MKDIR:
		return nfs2_args_create(c, out);
	case NFS2_RENAME:
		return nfs2_args_rename(c, out);
	case NFS2_LINK:
		return nfs2_args_link(c, out);
	case NFS2_SYMLINK:
		return nfs2_args_symlink(c, out);
	case NFS2_READDIR:
		return nfs2_args_readdir(c, out);
	default:
		return xdr_fail(c, XDR_MALFORMED);
	}
}

/* ---------------------------------------------------------- results -- */

static bool
nfs2_res_fattr(struct xdr *c, struct nfs_reply *r)
{
	if (!nfs2_dec_fattr(c, &r->attr))
		return false;
	r->have |= NFSR_ATTR;
	return true;
}

/*
 * union attrstat switch (stat status) {
 * case NFS_OK:
 *     fattr  attributes;
 * default:
 *     void;
 * };
 * (GETATTR, SETATTR, WRITE)
 */
static bool
nfs2_res_attrstat(struct xdr *c, struct nfs_reply *r)
{
	if (r->status != NFS_OK)
		return true;
	return nfs2_res_fattr(c, r);
}

/*
 * union diropres switch (stat status) {
 * case NFS_OK:
 *     struct {
 *         fhandle  file;
 *         fattr    attributes;
 *     } diropok;
 * default:
 *     void;
 * };
 * (LOOKUP, CREATE, MKDIR)
 */
static bool
nfs2_res_diropres(struct xdr *c, struct nfs_reply *r)
{
	if (r->status != NFS_OK)
		return true;
	if (!nfs_dec_fh2(c, &r->fh))
		return false;
	r->have |= NFSR_FH;
	return nfs2_res_fattr(c, r);
}

/*
 * union readlinkres switch (stat status) {
 * case NFS_OK:
 *     path  data;
 * default:
 *     void;
 * };
 */
static bool
nfs2_res_readlink(struct xdr *c, struct nfs_reply *r)
{
	if (r->status != NFS_OK)
		return true;
	if (!nfs_dec_path(c, &r->path))
		return false;
	r->have |= NFSR_PATH;
	return true;
}

/*
 * union readres switch (stat status) {
 * case NFS_OK:
 *     fattr    attributes;
 *     nfsdata  data;
 * default:
 *     void;
 * };
 * No count on the wire: count is the data length.
 */
static bool
nfs2_res_read(struct xdr *c, struct nfs_reply *r)
{
	if (r->status != NFS_OK)
		return true;
	if (!nfs2_res_fattr(c, r))
		return false;
	if (!xdr_skip_opaque(c, &r->data_len, NFS2_MAXDATA))
		return false;
	r->count = r->data_len;
	r->have |= NFSR_DATA_LEN | NFSR_COUNT;
	return true;
}

/*
 * struct entry {
 *     unsigned int  fileid;
 *     filename      name;
 *     nfscookie     cookie;
 *     entry        *nextentry;
 * };
 */
static bool
nfs2_dec_entry(struct xdr *c, struct nfs_entry *e)
{
	uint32_t fileid, cookie;

	e->have_attr = false;
	e->have_fh = false;
	if (!xdr_u32(c, &fileid))
		return false;
	e->fileid = fileid;
	if (!nfs_dec_name(c, &e->name))
		return false;
	if (!xdr_u32(c, &cookie))
		return false;
	e->cookie = cookie;
	return true;
}

/*
 * union readdirres switch (stat status) {
 * case NFS_OK:
 *     struct {
 *         entry  *entries;
 *         bool    eof;
 *     } readdirok;
 * default:
 *     void;
 * };
 * Walked like dirlist3 (nfs3_reply.c): the first NFS_ENTRIES_MAX entries
 * are kept, all captured ones counted; every pass consumes the 4-byte
 * "value follows" bool, so the walk is bounded by the wire length.
 */
static bool
nfs2_res_readdir(struct xdr *c, struct nfs_reply *r)
{
	struct nfs_entry spill;
	struct nfs_entry *e;
	bool follows;

	if (r->status != NFS_OK)
		return true;
	r->nentries = 0;
	r->entries_total = 0;
	r->entries_eof = false;
	r->have |= NFSR_ENTRIES;
	for (;;) {
		if (!xdr_bool(c, &follows))
			return false;
		if (!follows)
			break;
		e = r->nentries < NFS_ENTRIES_MAX ? &r->entries[r->nentries]
						  : &spill;
		if (!nfs2_dec_entry(c, e))
			return false;
		if (e != &spill)
			r->nentries++;
		r->entries_total++;
	}
	return nfs_dec_flag(c, &r->entries_eof);
}

/*
 * union statfsres switch (stat status) {
 * case NFS_OK:
 *     struct {
 *         unsigned int  tsize;
 *         unsigned int  bsize;
 *         unsigned int  blocks;
 *         unsigned int  bfree;
 *         unsigned int  bavail;
 *     } info;
 * default:
 *     void;
 * };
 */
static bool
nfs2_res_statfs(struct xdr *c, struct nfs_reply *r)
{
	struct nfs_statfs *s = &r->statfs;

	if (r->status != NFS_OK)
		return true;
	if (!xdr_u32(c, &s->tsize))
		return false;
	if (!xdr_u32(c, &s->bsize))
		return false;
	if (!xdr_u32(c, &s->blocks))
		return false;
	if (!xdr_u32(c, &s->bfree))
		return false;
	if (!xdr_u32(c, &s->bavail))
		return false;
	r->have |= NFSR_STATFS;
	return true;
}

/*
 * ROOT and WRITECACHE return void (as does NULL); REMOVE, RENAME, LINK,
 * SYMLINK and RMDIR return a bare `stat`.
 */
bool
nfs2_decode_reply(struct xdr *c, uint32_t proc, struct nfs_reply *out)
{
	if (proc >= NFS2_NPROC)
		return xdr_fail(c, XDR_MALFORMED);
	if (proc == NFS2_NULL || proc == NFS2_ROOT ||
	    proc == NFS2_WRITECACHE)
		return true;
	if (!xdr_u32(c, &out->status))
		return false;
	out->have |= NFSR_STATUS;
	switch (proc) {
	case NFS2_GETATTR:
	case NFS2_SETATTR:
	case NFS2_WRITE:
		return nfs2_res_attrstat(c, out);
	case NFS2_LOOKUP:
	case NFS2_CREATE:
	case NFS2_MKDIR:
		return nfs2_res_diropres(c, out);
	case NFS2_READLINK:
		return nfs2_res_readlink(c, out);
	case NFS2_READ:
		return nfs2_res_read(c, out);
	case NFS2_READDIR:
		return nfs2_res_readdir(c, out);
	case NFS2_STATFS:
		return nfs2_res_statfs(c, out);
	case NFS2_REMOVE:
	case NFS2_RENAME:
	case NFS2_LINK:
	case NFS2_SYMLINK:
	case NFS2_RMDIR:
		return true;
	default:
		return xdr_fail(c, XDR_MALFORMED);
	}
}
