/*
 * nfs3.c - NFSv3 (RFC 1813) procedure arguments (results: nfs3_reply.c).
 *
 * One decoder per RFC *args3 / *res3 type, each a plain chain over the XDR
 * cursor that sets a have bit only once its field is filled; on a failure the
 * fields decoded before it keep their bits (truncated or malformed is in the
 * cursor).  Nothing is allocated and the large struct nfs_reply is never
 * cleared as a whole: the caller zeroes `have`, we fill what we set.
 *
 * Enum policy:
 *   - a union discriminant out of range (sattr3 set_it, time_how,
 *     createmode3, MKNOD ftype3, the bools of optional data) is MALFORMED:
 *     the layout that follows is unknown.  WRITE3args.stable is range
 *     checked too: a stable_how outside 0..2 is a lie in the request.
 *   - values that select no layout are kept as sent: nfsstat3 (anything but
 *     NFS3_OK takes the resfail arm, e.g. a scrambled 0x41414141),
 *     WRITE3resok.committed (0x43434343 in a Zeek capture, NFSR_COMMITTED is
 *     still set), fattr3.type, and plain bools (READ eof, dirlist eof,
 *     PATHCONF flags: nonzero is true).
 *   - a procedure number >= NFS3_NPROC is not NFSv3: the cursor is failed
 *     MALFORMED and nothing is decoded.
 */
#include "decode/nfs_common.h"

/* opaque data<> of READ/WRITE: no bound but the wire length */
#define NFS3_DATA_MAX UINT32_MAX

/* ftype3 */
enum {
	NF3REG = 1, NF3DIR = 2, NF3BLK = 3, NF3CHR = 4, NF3LNK = 5,
	NF3SOCK = 6, NF3FIFO = 7,
};

/* createmode3 */
enum { NFS3_UNCHECKED = 0, NFS3_GUARDED = 1, NFS3_EXCLUSIVE = 2 };

/*
 * struct diropargs3 {
 *     nfs_fh3     dir;
 *     filename3   name;
 * };
 */
static bool
nfs3_dec_diropargs(struct xdr *c, struct nfs_call *a, struct nfs_fh *fh,
		   uint32_t fh_bit, struct nfs_name *name, uint32_t name_bit)
{
	if (!nfs_dec_fh3(c, fh))
		return false;
	a->have |= fh_bit;
	if (!nfs_dec_name(c, name))
		return false;
	a->have |= name_bit;
	return true;
}

static bool
nfs3_dec_where(struct xdr *c, struct nfs_call *a)
{
	return nfs3_dec_diropargs(c, a, &a->fh, NFSC_FH, &a->name, NFSC_NAME);
}

/*
 * GETATTR3args { nfs_fh3 object; }   (also READLINK3args, FSSTAT3args,
 * FSINFO3args, PATHCONF3args: a single nfs_fh3)
 */
static bool
nfs3_args_fh(struct xdr *c, struct nfs_call *a)
{
	if (!nfs_dec_fh3(c, &a->fh))
		return false;
	a->have |= NFSC_FH;
	return true;
}

static bool
nfs3_args_sattr(struct xdr *c, struct nfs_call *a)
{
	if (!nfs3_dec_sattr(c, &a->sattr))
		return false;
	a->have |= NFSC_SATTR;
	return true;
}

/*
 * union sattrguard3 switch (bool check) {
 * case TRUE:
 *     nfstime3  obj_ctime;
 * case FALSE:
 *     void;
 * };
 * struct SETATTR3args {
 *     nfs_fh3      object;
 *     sattr3       new_attributes;
 *     sattrguard3  guard;
 * };
 */
static bool
nfs3_args_setattr(struct xdr *c, struct nfs_call *a)
{
	bool check;

	if (!nfs3_args_fh(c, a))
		return false;
	if (!nfs3_args_sattr(c, a))
		return false;
	if (!xdr_bool(c, &check))
		return false;
	if (!check)
		return true;
	if (!xdr_u32(c, &a->guard.sec))
		return false;
	if (!xdr_u32(c, &a->guard.nsec))
		return false;
	a->have |= NFSC_GUARD;
	return true;
}

/*
 * struct ACCESS3args {
 *     nfs_fh3  object;
 *     uint32   access;
 * };
 */
static bool
nfs3_args_access(struct xdr *c, struct nfs_call *a)
{
	if (!nfs3_args_fh(c, a))
		return false;
	if (!xdr_u32(c, &a->access))
		return false;
	a->have |= NFSC_ACCESS;
	return true;
}

/*
 * struct READ3args {              struct COMMIT3args {
 *     nfs_fh3  file;                  nfs_fh3  file;
 *     offset3  offset;                offset3  offset;
 *     count3   count;                 count3   count;
 * };                              };
 */
static bool
nfs3_args_read(struct xdr *c, struct nfs_call *a)
{
	if (!nfs3_args_fh(c, a))
		return false;
	if (!xdr_u64(c, &a->offset))
		return false;
	a->have |= NFSC_OFFSET;
	if (!xdr_u32(c, &a->count))
		return false;
	a->have |= NFSC_COUNT;
	return true;
}

/*
 * enum stable_how { UNSTABLE = 0, DATA_SYNC = 1, FILE_SYNC = 2 };
 * struct WRITE3args {
 *     nfs_fh3     file;
 *     offset3     offset;
 *     count3      count;
 *     stable_how  stable;
 *     opaque      data<>;
 * };
 * The data is skipped by its wire length: a header-only capture still
 * yields data_len and the call decodes OK.
 */
static bool
nfs3_args_write(struct xdr *c, struct nfs_call *a)
{
	if (!nfs3_args_read(c, a))
		return false;
	if (!xdr_enum(c, &a->stable, NFS3_FILE_SYNC))
		return false;
	a->have |= NFSC_STABLE;
	if (!xdr_skip_opaque(c, &a->data_len, NFS3_DATA_MAX))
		return false;
	a->have |= NFSC_DATA_LEN;
	return true;
}

/*
 * enum createmode3 { UNCHECKED = 0, GUARDED = 1, EXCLUSIVE = 2 };
 * union createhow3 switch (createmode3 mode) {
 * case UNCHECKED:
 * case GUARDED:
 *     sattr3       obj_attributes;
 * case EXCLUSIVE:
 *     createverf3  verf;
 * };
 * struct CREATE3args {
 *     diropargs3   where;
 *     createhow3   how;
 * };
 */
static bool
nfs3_args_create(struct xdr *c, struct nfs_call *a)
{
	if (!nfs3_dec_where(c, a))
		return false;
	if (!xdr_enum(c, &a->createmode, NFS3_EXCLUSIVE))
		return false;
	a->have |= NFSC_CREATEMODE;
	if (a->createmode != NFS3_EXCLUSIVE)
		return nfs3_args_sattr(c, a);
	if (!xdr_fixed(c, a->createverf, NFS_VERF_SIZE))
		return false;
	a->have |= NFSC_CREATEVERF;
	return true;
}

/*
 * struct MKDIR3args {
 *     diropargs3   where;
 *     sattr3       attributes;
 * };
 */
static bool
nfs3_args_mkdir(struct xdr *c, struct nfs_call *a)
{
	if (!nfs3_dec_where(c, a))
		return false;
	return nfs3_args_sattr(c, a);
}

/*
 * struct symlinkdata3 {
 *     sattr3    symlink_attributes;
 *     nfspath3  symlink_data;
 * };
 * struct SYMLINK3args {
 *     diropargs3    where;
 *     symlinkdata3  symlink;
 * };
 */
static bool
nfs3_args_symlink(struct xdr *c, struct nfs_call *a)
{
	if (!nfs3_dec_where(c, a))
		return false;
	if (!nfs3_args_sattr(c, a))
		return false;
	if (!nfs_dec_path(c, &a->path))
		return false;
	a->have |= NFSC_PATH;
	return true;
}

/*
 * struct devicedata3 {
 *     sattr3     dev_attributes;
 *     specdata3  spec;
 * };
 * union mknoddata3 switch (ftype3 type) {
 * case NF3CHR:
 * case NF3BLK:
 *     devicedata3  device;
 * case NF3SOCK:
 * case NF3FIFO:
 *     sattr3       pipe_attributes;
 * default:
 *     void;
 * };
 * struct MKNOD3args {
 *     diropargs3   where;
 *     mknoddata3   what;
 * };
 * type is a discriminant: outside NF3REG..NF3FIFO is malformed (REG, DIR
 * and LNK are valid XDR with a void arm; the server answers BADTYPE).
 */
static bool
nfs3_args_mknod(struct xdr *c, struct nfs_call *a)
{
	if (!nfs3_dec_where(c, a))
		return false;
	if (!xdr_enum(c, &a->ftype, NF3FIFO))
		return false;
	if (a->ftype < NF3REG)
		return xdr_fail(c, XDR_MALFORMED);
	a->have |= NFSC_FTYPE;
	switch (a->ftype) {
	case NF3CHR:
	case NF3BLK:
		if (!nfs3_args_sattr(c, a))
			return false;
		if (!xdr_u32(c, &a->spec_major))
			return false;
		if (!xdr_u32(c, &a->spec_minor))
			return false;
		a->have |= NFSC_SPEC;
		return true;
	case NF3SOCK:
	case NF3FIFO:
		return nfs3_args_sattr(c, a);
	default:
		return true;
	}
}

/*
 * struct RENAME3args {                struct LINK3args {
 *     diropargs3   from;                  nfs_fh3      file;
 *     diropargs3   to;                    diropargs3   link;
 * };                                  };
 */
static bool
nfs3_args_rename(struct xdr *c, struct nfs_call *a)
{
	if (!nfs3_dec_where(c, a))
		return false;
	return nfs3_dec_diropargs(c, a, &a->fh2, NFSC_FH2, &a->name2,
				  NFSC_NAME2);
}

static bool
nfs3_args_link(struct xdr *c, struct nfs_call *a)
{
	if (!nfs3_args_fh(c, a))
		return false;
	return nfs3_dec_diropargs(c, a, &a->fh2, NFSC_FH2, &a->name2,
				  NFSC_NAME2);
}

/*
 * struct READDIR3args {               struct READDIRPLUS3args {
 *     nfs_fh3      dir;                   nfs_fh3      dir;
 *     cookie3      cookie;                cookie3      cookie;
 *     cookieverf3  cookieverf;            cookieverf3  cookieverf;
 *     count3       count;                 count3       dircount;
 * };                                      count3       maxcount;
 *                                     };
 */
static bool
nfs3_args_readdir_head(struct xdr *c, struct nfs_call *a)
{
	if (!nfs3_args_fh(c, a))
		return false;
	if (!xdr_u64(c, &a->cookie))
		return false;
	a->have |= NFSC_COOKIE;
	if (!xdr_fixed(c, a->cookieverf, NFS_VERF_SIZE))
		return false;
	a->have |= NFSC_COOKIEVERF;
	return true;
}

static bool
nfs3_args_readdir(struct xdr *c, struct nfs_call *a)
{
	if (!nfs3_args_readdir_head(c, a))
		return false;
	if (!xdr_u32(c, &a->count))
		return false;
	a->have |= NFSC_COUNT;
	return true;
}

static bool
nfs3_args_readdirplus(struct xdr *c, struct nfs_call *a)
{
	if (!nfs3_args_readdir_head(c, a))
		return false;
	if (!xdr_u32(c, &a->dircount))
		return false;
	a->have |= NFSC_DIRCOUNT;
	if (!xdr_u32(c, &a->maxcount))
		return false;
	a->have |= NFSC_MAXCOUNT;
	return true;
}

bool
nfs3_decode_call(struct xdr *c, uint32_t proc, struct nfs_call *out)
{
	switch (proc) {
	case NFS3_NULL:
		return true;
	case NFS3_GETATTR:
	case NFS3_READLINK:
	case NFS3_FSSTAT:
	case NFS3_FSINFO:
	case NFS3_PATHCONF:
		return nfs3_args_fh(c, out);
	case NFS3_SETATTR:
		return nfs3_args_setattr(c, out);
	case NFS3_LOOKUP:
	case NFS3_REMOVE:
	case NFS3_RMDIR:
		return nfs3_dec_where(c, out);
	case NFS3_ACCESS:
		return nfs3_args_access(c, out);
	case NFS3_READ:
	case NFS3_COMMIT:
		return nfs3_args_read(c, out);
	case NFS3_WRITE:
		return nfs3_args_write(c, out);
	case NFS3_CREATE:
		return nfs3_args_create(c, out);
	case NFS3_MKDIR:
		return nfs3_args_mkdir(c, out);
	case NFS3_SYMLINK:
		return nfs3_args_symlink(c, out);
	case NFS3_MKNOD:
		return nfs3_args_mknod(c, out);
	case NFS3_RENAME:
		return nfs3_args_rename(c, out);
	case NFS3_LINK:
		return nfs3_args_link(c, out);
	case NFS3_READDIR:
		return nfs3_args_readdir(c, out);
	case NFS3_READDIRPLUS:
		return nfs3_args_readdirplus(c, out);
	default:
		return xdr_fail(c, XDR_MALFORMED);
	}
}
