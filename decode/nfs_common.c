/*
 * nfs_common.c - XDR types shared by NFSv2 (RFC 1094), NFSv3 (RFC 1813),
 * MOUNT and NLM: file handles, names, paths, attributes, wcc data.
 *
 * Every decoder fills a fixed-size copy and sets every field of it that the
 * wire defines (the caller does not clear the output structs), so a value
 * left over from an earlier message can never show through.
 *
 * Enum policy (RFC 4506: a union discriminant selects the layout):
 *   - a discriminant out of range (sattr3 set_it, time_how, post_op bools)
 *     makes the message MALFORMED: we cannot know where the next field is;
 *   - a plain enum value that does not change the layout (fattr3 type, v2
 *     ftype) is kept as sent: printers range-check it before naming it.
 */
#include "decode/nfs_common.h"
#include "base/units.h"

#define NFS2_FHSIZE 32
#define NFS2_UNSET 0xFFFFFFFFu	/* v2 sattr: field not to be set */

/* time_how (RFC 1813) */
enum { NFS3_DONT_CHANGE = 0, NFS3_SET_TO_SERVER_TIME = 1,
       NFS3_SET_TO_CLIENT_TIME = 2 };

/*
 * typedef opaque nfs_fh3<NFS3_FHSIZE>;    NFS3_FHSIZE = 64
 * A longer handle is malformed (the length lies).
 */
bool
nfs_dec_fh3(struct xdr *c, struct nfs_fh *fh)
{
	return xdr_opaque(c, fh->data, &fh->len, NFS_FHSIZE_MAX);
}

/* typedef opaque fhandle[FHSIZE];          FHSIZE = 32 (RFC 1094) */
bool
nfs_dec_fh2(struct xdr *c, struct nfs_fh *fh)
{
	if (!xdr_fixed(c, fh->data, NFS2_FHSIZE))
		return false;
	fh->len = NFS2_FHSIZE;
	return true;
}

/* typedef string filename3<>;  (NFS_MAXNAMLEN 255 in v2; v3 servers use it
 * too).  A longer name is malformed, whatever the capture holds. */
bool
nfs_dec_name(struct xdr *c, struct nfs_name *n)
{
	return xdr_string(c, n->s, &n->len, NFS_NAME_MAX);
}

/* typedef string nfspath3<>;  (MAXPATHLEN 1024) */
bool
nfs_dec_path(struct xdr *c, struct nfs_path *p)
{
	return xdr_string(c, p->s, &p->len, NFS_PATH_MAX);
}

/*
 * A bool that is not a union discriminant (READ3resok.eof, dirlist3.eof,
 * PATHCONF3resok flags): the layout does not depend on it, so a scrambled
 * value is kept as true rather than failing the whole reply.
 */
bool
nfs_dec_flag(struct xdr *c, bool *b)
{
	uint32_t v;

	if (!xdr_u32(c, &v))
		return false;
	if (c->strict && v > 1)
		return xdr_fail(c, XDR_MALFORMED);
	*b = v != 0;
	return true;
}

/*
 * struct nfstime3 {
 *     uint32   seconds;
 *     uint32   nseconds;
 * };
 */
static bool
nfs3_dec_time(struct xdr *c, struct nfs_time *t)
{
	if (!xdr_u32(c, &t->sec))
		return false;
	return xdr_u32(c, &t->nsec);
}

/*
 * struct timeval {          (RFC 1094)
 *     unsigned int seconds;
 *     unsigned int useconds;
 * };
 * Stored as nsec = usec * 1000; a garbage usec that would overflow the
 * 32-bit nsec saturates (the value is nonsense either way, but stays
 * visibly out of range instead of wrapping to something plausible).
 */
static uint32_t
nfs2_usec_to_nsec(uint32_t usec)
{
	uint64_t ns = (uint64_t)usec * 1000u;

	return ns > UINT32_MAX ? UINT32_MAX : (uint32_t)ns;
}

static bool
nfs2_dec_time(struct xdr *c, struct nfs_time *t)
{
	uint32_t usec;

	if (!xdr_u32(c, &t->sec))
		return false;
	if (!xdr_u32(c, &usec))
		return false;
	t->nsec = nfs2_usec_to_nsec(usec);
	return true;
}

/*
 * struct specdata3 { uint32 specdata1; uint32 specdata2; };
 *
 * struct fattr3 {
 *     ftype3     type;
 *     mode3      mode;
 *     uint32     nlink;
 *     uid3       uid;
 *     gid3       gid;
 *     size3      size;
 *     size3      used;
 *     specdata3  rdev;
 *     uint64     fsid;
 *     fileid3    fileid;
 *     nfstime3   atime;
 *     nfstime3   mtime;
 *     nfstime3   ctime;
 * };
 * type is kept as sent even outside NF3REG..NF3FIFO: it selects no layout
 * (a Zeek test capture carries 0x42424242 and is otherwise well formed).
 */
/*
 * Strict cursors only (xdr.h): RFC 1813 nfstime3 nseconds is a fraction
 * of a second (< 10^9); mode3 defines the bits 0x800 (set uid) down to
 * 0x001 (others execute), nothing above 07777.
 */
static bool
nfs3_time_sane(const struct nfs_time *t)
{
	return t->nsec < NSEC_PER_SEC;
}

static bool
nfs3_fattr_sane(const struct nfs_fattr *a)
{
	return a->type >= 1 && a->type <= 7 && (a->mode & ~07777u) == 0 &&
	       nfs3_time_sane(&a->atime) && nfs3_time_sane(&a->mtime) &&
	       nfs3_time_sane(&a->ctime);
}

bool
nfs3_dec_fattr(struct xdr *c, struct nfs_fattr *a)
{
	if (c->no_attrs && c->err == XDR_OK && xdr_cap_left(c) >= 84) {
		c->off += 84;	/* 13 words and 4 hypers, a fixed size */
		return true;
	}
	if (!xdr_u32(c, &a->type))
		return false;
	if (!xdr_u32(c, &a->mode))
		return false;
	if (!xdr_u32(c, &a->nlink))
		return false;
	if (!xdr_u32(c, &a->uid))
		return false;
	if (!xdr_u32(c, &a->gid))
		return false;
	if (!xdr_u64(c, &a->size))
		return false;
	if (!xdr_u64(c, &a->used))
		return false;
	if (!xdr_u32(c, &a->rdev_major))
		return false;
	if (!xdr_u32(c, &a->rdev_minor))
		return false;
	if (!xdr_u64(c, &a->fsid))
		return false;
	if (!xdr_u64(c, &a->fileid))
		return false;
	if (!nfs3_dec_time(c, &a->atime))
		return false;
	if (!nfs3_dec_time(c, &a->mtime))
		return false;
	if (!nfs3_dec_time(c, &a->ctime))
		return false;
	a->blocksize = 0;	/* v2 only */
	a->blocks = 0;
	if (c->strict && !nfs3_fattr_sane(a))
		return xdr_fail(c, XDR_MALFORMED);
	return true;
}

/*
 * union post_op_attr switch (bool attributes_follow) {
 * case TRUE:
 *     fattr3   attributes;
 * case FALSE:
 *     void;
 * };
 */
bool
nfs3_dec_post_op_attr(struct xdr *c, bool *have, struct nfs_fattr *a)
{
	bool follow;

	*have = false;
	if (!xdr_bool(c, &follow))
		return false;
	if (!follow)
		return true;
	if (!nfs3_dec_fattr(c, a))
		return false;
	*have = true;
	return true;
}

/*
 * struct wcc_attr {
 *     size3      size;
 *     nfstime3   mtime;
 *     nfstime3   ctime;
 * };
 * union pre_op_attr switch (bool attributes_follow) {
 * case TRUE:
 *     wcc_attr  attributes;
 * case FALSE:
 *     void;
 * };
 */
static bool
nfs3_dec_pre_op_attr(struct xdr *c, bool *have, struct nfs_wcc_attr *a)
{
	bool follow;

	*have = false;
	if (!xdr_bool(c, &follow))
		return false;
	if (!follow)
		return true;
	if (c->no_attrs && c->err == XDR_OK && xdr_cap_left(c) >= 24) {
		c->off += 24;	/* size3, two nfstime3 */
		*have = true;
		return true;
	}
	if (!xdr_u64(c, &a->size))
		return false;
	if (!nfs3_dec_time(c, &a->mtime))
		return false;
	if (!nfs3_dec_time(c, &a->ctime))
		return false;
	if (c->strict && !(nfs3_time_sane(&a->mtime) &&
			   nfs3_time_sane(&a->ctime)))
		return xdr_fail(c, XDR_MALFORMED);
	*have = true;
	return true;
}

/*
 * struct wcc_data {
 *     pre_op_attr    before;
 *     post_op_attr   after;
 * };
 */
bool
nfs3_dec_wcc(struct xdr *c, struct nfs_wcc *w)
{
	w->have_after = false;
	if (!nfs3_dec_pre_op_attr(c, &w->have_before, &w->before))
		return false;
	return nfs3_dec_post_op_attr(c, &w->have_after, &w->after);
}

/*
 * union post_op_fh3 switch (bool handle_follows) {
 * case TRUE:
 *     nfs_fh3  handle;
 * case FALSE:
 *     void;
 * };
 */
bool
nfs3_dec_post_op_fh(struct xdr *c, bool *have, struct nfs_fh *fh)
{
	bool follow;

	*have = false;
	if (!xdr_bool(c, &follow))
		return false;
	if (!follow)
		return true;
	if (!nfs_dec_fh3(c, fh))
		return false;
	*have = true;
	return true;
}

/*
 * union set_mode3 switch (bool set_it) { case TRUE: mode3 mode;
 *                                        default: void; };
 * (set_uid3, set_gid3 alike; set_size3 carries a size3.)
 * set_it is a discriminant: anything but 0/1 is malformed (a Zeek test
 * capture has 0x42424242 here), we could not tell where the next field is.
 */
static bool
nfs3_dec_set_u32(struct xdr *c, uint32_t *v, bool *set)
{
	if (!xdr_bool(c, set))
		return false;
	if (!*set)
		return true;
	return xdr_u32(c, v);
}

/*
 * enum time_how {
 *     DONT_CHANGE        = 0,
 *     SET_TO_SERVER_TIME = 1,
 *     SET_TO_CLIENT_TIME = 2
 * };
 * union set_atime switch (time_how set_it) {
 * case SET_TO_CLIENT_TIME:
 *     nfstime3  atime;
 * default:
 *     void;
 * };
 * time_how is a discriminant: out of range is malformed.
 */
static bool
nfs3_dec_set_time(struct xdr *c, struct nfs_time *t, uint32_t *have,
		  uint32_t client_bit, uint32_t server_bit)
{
	uint32_t how;

	if (!xdr_enum(c, &how, NFS3_SET_TO_CLIENT_TIME))
		return false;
	if (how == NFS3_SET_TO_SERVER_TIME) {
		*have |= server_bit;
		return true;
	}
	if (how == NFS3_DONT_CHANGE)
		return true;
	if (!nfs3_dec_time(c, t))
		return false;
	*have |= client_bit;
	return true;
}

/*
 * struct sattr3 {
 *     set_mode3   mode;
 *     set_uid3    uid;
 *     set_gid3    gid;
 *     set_size3   size;
 *     set_atime   atime;
 *     set_mtime   mtime;
 * };
 */
bool
nfs3_dec_sattr(struct xdr *c, struct nfs_sattr *s)
{
	bool set;

	s->have = 0;
	if (!nfs3_dec_set_u32(c, &s->mode, &set))
		return false;
	if (set)
		s->have |= SATTR_MODE;
	if (!nfs3_dec_set_u32(c, &s->uid, &set))
		return false;
	if (set)
		s->have |= SATTR_UID;
	if (!nfs3_dec_set_u32(c, &s->gid, &set))
		return false;
	if (set)
		s->have |= SATTR_GID;
	if (!xdr_bool(c, &set))
		return false;
	if (set) {
		if (!xdr_u64(c, &s->size))
			return false;
		s->have |= SATTR_SIZE;
	}
	if (!nfs3_dec_set_time(c, &s->atime, &s->have, SATTR_ATIME,
			       SATTR_ATIME_SERVER))
		return false;
	return nfs3_dec_set_time(c, &s->mtime, &s->have, SATTR_MTIME,
				 SATTR_MTIME_SERVER);
}

/*
 * enum ftype { NFNON = 0, NFREG = 1, NFDIR = 2, NFBLK = 3, NFCHR = 4,
 *              NFLNK = 5, (NFSOCK = 6, NFBAD = 7, NFFIFO = 8) };
 * struct fattr {
 *     ftype        type;
 *     unsigned int mode;
 *     unsigned int nlink;
 *     unsigned int uid;
 *     unsigned int gid;
 *     unsigned int size;
 *     unsigned int blocksize;
 *     unsigned int rdev;
 *     unsigned int blocks;
 *     unsigned int fsid;
 *     unsigned int fileid;
 *     timeval      atime;
 *     timeval      mtime;
 *     timeval      ctime;
 * };
 * Mapped onto fattr3: used = blocks * blocksize, rdev in rdev_major, v2
 * type numbering kept as sent (not range checked: it selects no layout).
 */
bool
nfs2_dec_fattr(struct xdr *c, struct nfs_fattr *a)
{
	uint32_t size, fsid, fileid;

	if (!xdr_u32(c, &a->type))
		return false;
	if (!xdr_u32(c, &a->mode))
		return false;
	if (!xdr_u32(c, &a->nlink))
		return false;
	if (!xdr_u32(c, &a->uid))
		return false;
	if (!xdr_u32(c, &a->gid))
		return false;
	if (!xdr_u32(c, &size))
		return false;
	if (!xdr_u32(c, &a->blocksize))
		return false;
	if (!xdr_u32(c, &a->rdev_major))
		return false;
	if (!xdr_u32(c, &a->blocks))
		return false;
	if (!xdr_u32(c, &fsid))
		return false;
	if (!xdr_u32(c, &fileid))
		return false;
	if (!nfs2_dec_time(c, &a->atime))
		return false;
	if (!nfs2_dec_time(c, &a->mtime))
		return false;
	if (!nfs2_dec_time(c, &a->ctime))
		return false;
	/* strict: ftype NFNON..NFLNK (0..5), timeval useconds < 10^6 (the
	   v2 mode carries the file type bits too: not checked) */
	if (c->strict && (a->type > 5 || a->atime.nsec >= NSEC_PER_SEC ||
			  a->mtime.nsec >= NSEC_PER_SEC ||
			  a->ctime.nsec >= NSEC_PER_SEC))
		return xdr_fail(c, XDR_MALFORMED);
	a->size = size;
	a->used = (uint64_t)a->blocks * a->blocksize;
	a->rdev_minor = 0;
	a->fsid = fsid;
	a->fileid = fileid;
	return true;
}

/*
 * struct sattr {
 *     unsigned int mode;
 *     unsigned int uid;
 *     unsigned int gid;
 *     unsigned int size;
 *     timeval      atime;
 *     timeval      mtime;
 * };
 * "A value of -1 indicates a field that should be ignored" (RFC 1094); for
 * the times we follow the seconds field.  Like Linux nfsd (and the Sun
 * convention it cites), an mtime with useconds == 1000000 means "set atime
 * and mtime to the server's time": reported as the *_SERVER bits.
 */
bool
nfs2_dec_sattr(struct xdr *c, struct nfs_sattr *s)
{
	uint32_t v, sec, usec;

	s->have = 0;
	if (!xdr_u32(c, &s->mode))
		return false;
	if (s->mode != NFS2_UNSET)
		s->have |= SATTR_MODE;
	if (!xdr_u32(c, &s->uid))
		return false;
	if (s->uid != NFS2_UNSET)
		s->have |= SATTR_UID;
	if (!xdr_u32(c, &s->gid))
		return false;
	if (s->gid != NFS2_UNSET)
		s->have |= SATTR_GID;
	if (!xdr_u32(c, &v))
		return false;
	s->size = v;
	if (v != NFS2_UNSET)
		s->have |= SATTR_SIZE;
	if (!xdr_u32(c, &sec))
		return false;
	if (!xdr_u32(c, &usec))
		return false;
	s->atime.sec = sec;
	s->atime.nsec = nfs2_usec_to_nsec(usec);
	if (sec != NFS2_UNSET)
		s->have |= SATTR_ATIME;
	if (!xdr_u32(c, &sec))
		return false;
	if (!xdr_u32(c, &usec))
		return false;
	s->mtime.sec = sec;
	s->mtime.nsec = nfs2_usec_to_nsec(usec);
	if (sec != NFS2_UNSET) {
		if (usec == 1000000) {
			s->have |= SATTR_MTIME_SERVER;
			if (s->have & SATTR_ATIME)
				s->have ^= SATTR_ATIME | SATTR_ATIME_SERVER;
		} else {
			s->have |= SATTR_MTIME;
		}
	}
	return true;
}
