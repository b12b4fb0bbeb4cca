/*
 * nfs3_reply.c - NFSv3 (RFC 1813) procedure results (arguments: nfs3.c).
 *
 * Every *res3 is a union on nfsstat3.  The status is read as a plain u32 and
 * never range checked: anything but NFS3_OK takes the resfail arm (a Zeek
 * capture has a scrambled 0x41414141 that is still a well-formed failure).
 * See nfs3.c for the enum policy; in short, union discriminants (the bools
 * of post_op_attr/pre_op_attr/post_op_fh3 and of the entry lists) must be
 * 0/1, while WRITE3resok.committed and plain bools are kept as sent.
 *
 * post_op_attr results set NFSR_ATTR / NFSR_DIR_ATTR only when attributes
 * were present; wcc_data sets NFSR_WCC / NFSR_DIR_WCC / NFSR_DIR_WCC2 once
 * decoded (struct nfs_wcc says which halves were present).
 */
#include "decode/nfs_common.h"

#define NFS3_OK 0

/* opaque data<> of READ: no bound but the wire length */
#define NFS3_DATA_MAX UINT32_MAX

static bool
nfs3_res_status(struct xdr *c, struct nfs_reply *r)
{
	if (!xdr_u32(c, &r->status))
		return false;
	r->have |= NFSR_STATUS;
	return true;
}

/* post_op_attr into r->attr (NFSR_ATTR) */
static bool
nfs3_res_attr(struct xdr *c, struct nfs_reply *r)
{
	bool have;

	if (!nfs3_dec_post_op_attr(c, &have, &r->attr))
		return false;
	if (have)
		r->have |= NFSR_ATTR;
	return true;
}

/* post_op_attr into r->dir_attr (NFSR_DIR_ATTR) */
static bool
nfs3_res_dir_attr(struct xdr *c, struct nfs_reply *r)
{
	bool have;

	if (!nfs3_dec_post_op_attr(c, &have, &r->dir_attr))
		return false;
	if (have)
		r->have |= NFSR_DIR_ATTR;
	return true;
}

/* wcc_data into w, with `bit` once decoded */
static bool
nfs3_res_wcc(struct xdr *c, struct nfs_reply *r, struct nfs_wcc *w,
	     uint32_t bit)
{
	if (!nfs3_dec_wcc(c, w))
		return false;
	r->have |= bit;
	return true;
}

static bool
nfs3_res_verf(struct xdr *c, struct nfs_reply *r)
{
	if (!xdr_fixed(c, r->verf, NFS_VERF_SIZE))
		return false;
	r->have |= NFSR_VERF;
	return true;
}

/*
 * union GETATTR3res switch (nfsstat3 status) {
 * case NFS3_OK:
 *     GETATTR3resok  resok;      { fattr3 obj_attributes; }
 * default:
 *     void;
 * };
 */
static bool
nfs3_res_getattr(struct xdr *c, struct nfs_reply *r)
{
	if (r->status != NFS3_OK)
		return true;
	if (!nfs3_dec_fattr(c, &r->attr))
		return false;
	r->have |= NFSR_ATTR;
	return true;
}

/*
 * SETATTR3resok / SETATTR3resfail { wcc_data obj_wcc; }
 */
static bool
nfs3_res_setattr(struct xdr *c, struct nfs_reply *r)
{
	return nfs3_res_wcc(c, r, &r->wcc, NFSR_WCC);
}

/*
 * struct LOOKUP3resok {
 *     nfs_fh3       object;
 *     post_op_attr  obj_attributes;
 *     post_op_attr  dir_attributes;
 * };
 * struct LOOKUP3resfail {
 *     post_op_attr  dir_attributes;
 * };
 */
static bool
nfs3_res_lookup(struct xdr *c, struct nfs_reply *r)
{
	if (r->status != NFS3_OK)
		return nfs3_res_dir_attr(c, r);
	if (!nfs_dec_fh3(c, &r->fh))
		return false;
	r->have |= NFSR_FH;
	if (!nfs3_res_attr(c, r))
		return false;
	return nfs3_res_dir_attr(c, r);
}

/*
 * struct ACCESS3resok {               struct ACCESS3resfail {
 *     post_op_attr  obj_attributes;       post_op_attr  obj_attributes;
 *     uint32        access;           };
 * };
 */
static bool
nfs3_res_access(struct xdr *c, struct nfs_reply *r)
{
	if (!nfs3_res_attr(c, r))
		return false;
	if (r->status != NFS3_OK)
		return true;
	if (!xdr_u32(c, &r->access))
		return false;
	r->have |= NFSR_ACCESS;
	return true;
}

/*
 * struct READLINK3resok {             struct READLINK3resfail {
 *     post_op_attr  symlink_attributes;   post_op_attr symlink_attributes;
 *     nfspath3      data;             };
 * };
 */
static bool
nfs3_res_readlink(struct xdr *c, struct nfs_reply *r)
{
	if (!nfs3_res_attr(c, r))
		return false;
	if (r->status != NFS3_OK)
		return true;
	if (!nfs_dec_path(c, &r->path))
		return false;
	r->have |= NFSR_PATH;
	return true;
}

/*
 * struct READ3resok {                 struct READ3resfail {
 *     post_op_attr  file_attributes;      post_op_attr  file_attributes;
 *     count3        count;            };
 *     bool          eof;
 *     opaque        data<>;
 * };
 * The data is skipped by its wire length (header-only captures decode OK).
 */
static bool
nfs3_res_read(struct xdr *c, struct nfs_reply *r)
{
	if (!nfs3_res_attr(c, r))
		return false;
	if (r->status != NFS3_OK)
		return true;
	if (!xdr_u32(c, &r->count))
		return false;
	r->have |= NFSR_COUNT;
	if (!nfs_dec_flag(c, &r->eof))
		return false;
	r->have |= NFSR_EOF;
	if (!xdr_skip_opaque(c, &r->data_len, NFS3_DATA_MAX))
		return false;
	r->have |= NFSR_DATA_LEN;
	return true;
}

/*
 * struct WRITE3resok {                struct WRITE3resfail {
 *     wcc_data    file_wcc;               wcc_data  file_wcc;
 *     count3      count;              };
 *     stable_how  committed;
 *     writeverf3  verf;
 * };
 * committed is kept as sent, even out of range (0x43434343 in a Zeek
 * capture): it selects no layout; the verifier after it is still good.
 */
static bool
nfs3_res_write(struct xdr *c, struct nfs_reply *r)
{
	if (!nfs3_res_wcc(c, r, &r->wcc, NFSR_WCC))
		return false;
	if (r->status != NFS3_OK)
		return true;
	if (!xdr_u32(c, &r->count))
		return false;
	r->have |= NFSR_COUNT;
	if (!xdr_u32(c, &r->committed))
		return false;
	r->have |= NFSR_COMMITTED;
	return nfs3_res_verf(c, r);
}

/*
 * struct CREATE3resok {               struct CREATE3resfail {
 *     post_op_fh3   obj;                  wcc_data  dir_wcc;
 *     post_op_attr  obj_attributes;   };
 *     wcc_data      dir_wcc;
 * };
 * MKDIR3res, SYMLINK3res and MKNOD3res have the same shape.
 */
static bool
nfs3_res_create(struct xdr *c, struct nfs_reply *r)
{
	bool have;

	if (r->status != NFS3_OK)
		return nfs3_res_wcc(c, r, &r->dir_wcc, NFSR_DIR_WCC);
	if (!nfs3_dec_post_op_fh(c, &have, &r->fh))
		return false;
	if (have)
		r->have |= NFSR_FH;
	if (!nfs3_res_attr(c, r))
		return false;
	return nfs3_res_wcc(c, r, &r->dir_wcc, NFSR_DIR_WCC);
}

/*
 * REMOVE3resok / REMOVE3resfail { wcc_data dir_wcc; }   (RMDIR3res too)
 */
static bool
nfs3_res_remove(struct xdr *c, struct nfs_reply *r)
{
	return nfs3_res_wcc(c, r, &r->dir_wcc, NFSR_DIR_WCC);
}

/*
 * RENAME3resok / RENAME3resfail {
 *     wcc_data  fromdir_wcc;
 *     wcc_data  todir_wcc;
 * };
 */
static bool
nfs3_res_rename(struct xdr *c, struct nfs_reply *r)
{
	if (!nfs3_res_wcc(c, r, &r->dir_wcc, NFSR_DIR_WCC))
		return false;
	return nfs3_res_wcc(c, r, &r->dir_wcc2, NFSR_DIR_WCC2);
}

/*
 * LINK3resok / LINK3resfail {
 *     post_op_attr  file_attributes;
 *     wcc_data      linkdir_wcc;
 * };
 */
static bool
nfs3_res_link(struct xdr *c, struct nfs_reply *r)
{
	if (!nfs3_res_attr(c, r))
		return false;
	return nfs3_res_wcc(c, r, &r->dir_wcc, NFSR_DIR_WCC);
}

/*
 * struct entry3 {                     struct entryplus3 {
 *     fileid3    fileid;                  fileid3       fileid;
 *     filename3  name;                    filename3     name;
 *     cookie3    cookie;                  cookie3       cookie;
 *     entry3    *nextentry;               post_op_attr  name_attributes;
 * };                                      post_op_fh3   name_handle;
 *                                         entryplus3   *nextentry;
 *                                     };
 */
static bool
nfs3_dec_entry(struct xdr *c, struct nfs_entry *e, bool plus)
{
	e->have_attr = false;
	e->have_fh = false;
	if (!xdr_u64(c, &e->fileid))
		return false;
	if (!nfs_dec_name(c, &e->name))
		return false;
	if (!xdr_u64(c, &e->cookie))
		return false;
	if (!plus)
		return true;
	if (!nfs3_dec_post_op_attr(c, &e->have_attr, &e->attr))
		return false;
	return nfs3_dec_post_op_fh(c, &e->have_fh, &e->fh);
}

/*
 * struct dirlist3 {                   struct dirlistplus3 {
 *     entry3  *entries;                   entryplus3  *entries;
 *     bool     eof;                       bool         eof;
 * };                                  };
 * The list is a chain of "value follows" bools.  The first NFS_ENTRIES_MAX
 * entries are kept, all are counted.  Each pass consumes at least the
 * 4-byte bool, so the walk is bounded by the wire length; a list cut by the
 * snaplen keeps the entries decoded so far (NFSR_ENTRIES is set before the
 * walk, entries_eof only becomes true once read).
 */
static bool
nfs3_dec_dirlist(struct xdr *c, struct nfs_reply *r, bool plus)
{
	struct nfs_entry spill;
	struct nfs_entry *e;
	bool follows;

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
		if (!nfs3_dec_entry(c, e, plus))
			return false;
		if (e != &spill)
			r->nentries++;
		r->entries_total++;
	}
	return nfs_dec_flag(c, &r->entries_eof);
}

/*
 * struct READDIR3resok {              struct READDIR3resfail {
 *     post_op_attr  dir_attributes;       post_op_attr  dir_attributes;
 *     cookieverf3   cookieverf;       };
 *     dirlist3      reply;
 * };
 * READDIRPLUS3resok / resfail: the same with dirlistplus3.
 */
static bool
nfs3_res_readdir(struct xdr *c, struct nfs_reply *r, bool plus)
{
	if (!nfs3_res_dir_attr(c, r))
		return false;
	if (r->status != NFS3_OK)
		return true;
	if (!xdr_fixed(c, r->cookieverf, NFS_VERF_SIZE))
		return false;
	r->have |= NFSR_COOKIEVERF;
	return nfs3_dec_dirlist(c, r, plus);
}

/*
 * struct FSSTAT3resok {               struct FSSTAT3resfail {
 *     post_op_attr  obj_attributes;       post_op_attr  obj_attributes;
 *     size3         tbytes;           };
 *     size3         fbytes;
 *     size3         abytes;
 *     size3         tfiles;
 *     size3         ffiles;
 *     size3         afiles;
 *     uint32        invarsec;
 * };
 */
static bool
nfs3_res_fsstat(struct xdr *c, struct nfs_reply *r)
{
	struct nfs_fsstat *s = &r->fsstat;

	if (!nfs3_res_attr(c, r))
		return false;
	if (r->status != NFS3_OK)
		return true;
	if (!xdr_u64(c, &s->tbytes))
		return false;
	if (!xdr_u64(c, &s->fbytes))
		return false;
	if (!xdr_u64(c, &s->abytes))
		return false;
	if (!xdr_u64(c, &s->tfiles))
		return false;
	if (!xdr_u64(c, &s->ffiles))
		return false;
	if (!xdr_u64(c, &s->afiles))
		return false;
	if (!xdr_u32(c, &s->invarsec))
		return false;
	r->have |= NFSR_FSSTAT;
	return true;
}

/*
 * struct FSINFO3resok {               struct FSINFO3resfail {
 *     post_op_attr  obj_attributes;       post_op_attr  obj_attributes;
 *     uint32        rtmax;            };
 *     uint32        rtpref;
 *     uint32        rtmult;
 *     uint32        wtmax;
 *     uint32        wtpref;
 *     uint32        wtmult;
 *     uint32        dtpref;
 *     size3         maxfilesize;
 *     nfstime3      time_delta;
 *     uint32        properties;
 * };
 */
static bool
nfs3_res_fsinfo(struct xdr *c, struct nfs_reply *r)
{
	struct nfs_fsinfo *f = &r->fsinfo;

	if (!nfs3_res_attr(c, r))
		return false;
	if (r->status != NFS3_OK)
		return true;
	if (!xdr_u32(c, &f->rtmax))
		return false;
	if (!xdr_u32(c, &f->rtpref))
		return false;
	if (!xdr_u32(c, &f->rtmult))
		return false;
	if (!xdr_u32(c, &f->wtmax))
		return false;
	if (!xdr_u32(c, &f->wtpref))
		return false;
	if (!xdr_u32(c, &f->wtmult))
		return false;
	if (!xdr_u32(c, &f->dtpref))
		return false;
	if (!xdr_u64(c, &f->maxfilesize))
		return false;
	if (!xdr_u32(c, &f->time_delta.sec))
		return false;
	if (!xdr_u32(c, &f->time_delta.nsec))
		return false;
	if (!xdr_u32(c, &f->properties))
		return false;
	r->have |= NFSR_FSINFO;
	return true;
}

/*
 * struct PATHCONF3resok {             struct PATHCONF3resfail {
 *     post_op_attr  obj_attributes;       post_op_attr  obj_attributes;
 *     uint32        linkmax;          };
 *     uint32        name_max;
 *     bool          no_trunc;
 *     bool          chown_restricted;
 *     bool          case_insensitive;
 *     bool          case_preserving;
 * };
 */
static bool
nfs3_res_pathconf(struct xdr *c, struct nfs_reply *r)
{
	struct nfs_pathconf *p = &r->pathconf;

	if (!nfs3_res_attr(c, r))
		return false;
	if (r->status != NFS3_OK)
		return true;
	if (!xdr_u32(c, &p->linkmax))
		return false;
	if (!xdr_u32(c, &p->name_max))
		return false;
	if (!nfs_dec_flag(c, &p->no_trunc))
		return false;
	if (!nfs_dec_flag(c, &p->chown_restricted))
		return false;
	if (!nfs_dec_flag(c, &p->case_insensitive))
		return false;
	if (!nfs_dec_flag(c, &p->case_preserving))
		return false;
	r->have |= NFSR_PATHCONF;
	return true;
}

/*
 * struct COMMIT3resok {               struct COMMIT3resfail {
 *     wcc_data    file_wcc;               wcc_data  file_wcc;
 *     writeverf3  verf;               };
 * };
 */
static bool
nfs3_res_commit(struct xdr *c, struct nfs_reply *r)
{
	if (!nfs3_res_wcc(c, r, &r->wcc, NFSR_WCC))
		return false;
	if (r->status != NFS3_OK)
		return true;
	return nfs3_res_verf(c, r);
}

bool
nfs3_decode_reply(struct xdr *c, uint32_t proc, struct nfs_reply *out)
{
	if (proc >= NFS3_NPROC)
		return xdr_fail(c, XDR_MALFORMED);
	if (proc == NFS3_NULL)
		return true;
	if (!nfs3_res_status(c, out))
		return false;
	switch (proc) {
	case NFS3_GETATTR:
		return nfs3_res_getattr(c, out);
	case NFS3_SETATTR:
		return nfs3_res_setattr(c, out);
	case NFS3_LOOKUP:
		return nfs3_res_lookup(c, out);
	case NFS3_ACCESS:
		return nfs3_res_access(c, out);
	case NFS3_READLINK:
		return nfs3_res_readlink(c, out);
	case NFS3_READ:
		return nfs3_res_read(c, out);
	case NFS3_WRITE:
		return nfs3_res_write(c, out);
	case NFS3_CREATE:
	case NFS3_MKDIR:
	case NFS3_SYMLINK:
	case NFS3_MKNOD:
		return nfs3_res_create(c, out);
	case NFS3_REMOVE:
	case NFS3_RMDIR:
		return nfs3_res_remove(c, out);
	case NFS3_RENAME:
		return nfs3_res_rename(c, out);
	case NFS3_LINK:
		return nfs3_res_link(c, out);
	case NFS3_READDIR:
		return nfs3_res_readdir(c, out, false);
	case NFS3_READDIRPLUS:
		return nfs3_res_readdir(c, out, true);
	case NFS3_FSSTAT:
		return nfs3_res_fsstat(c, out);
	case NFS3_FSINFO:
		return nfs3_res_fsinfo(c, out);
	case NFS3_PATHCONF:
		return nfs3_res_pathconf(c, out);
	case NFS3_COMMIT:
		return nfs3_res_commit(c, out);
	default:
		return xdr_fail(c, XDR_MALFORMED);
	}
}
