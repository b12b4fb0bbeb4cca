/*
 * mount.c - MOUNT protocol v1/v2 (RFC 1094 appendix A) and v3 (RFC 1813
 * appendix I) call and reply bodies.
 *
 * Decisions:
 *   - The status of fhstatus / mountres3 is kept as sent, whatever its value
 *     (as tshark and Zeek do: an unknown mountstat3 such as 0x42424242 is
 *     shown as a number).  Only status 0 selects the handle arm; any other
 *     value selects the void arm, so an unknown status is not malformed.
 *   - Lists (DUMP mountlist, EXPORT exports and their groups) are walked to
 *     the end to validate them; the first MNT_LIST_MAX (MNT_GROUPS_MAX)
 *     items are stored, list_total (ngroups) counts all of them.  Every item
 *     consumes at least 4 bytes and the walk is also bounded by
 *     wire length / 4, so a lying list cannot spin.
 *   - v2 PATHCONF and v1/v2 EXPORTALL: EXPORTALL is decoded like EXPORT,
 *     PATHCONF is left undecoded (have = 0).
 */
#include "decode/decode_int.h"
#include "decode/nfs_common.h"

#define MOUNTPROC_EXPORTALL 6

/*
 * typedef string dirpath<MNTPATHLEN>;
 * MNT and UMNT take a dirpath; NULL, DUMP, UMNTALL, EXPORT take void.
 */
bool
mnt_decode_call(struct xdr *c, uint32_t vers, uint32_t proc,
		struct mnt_msg *out)
{
	if (proc != MOUNT_MNT && proc != MOUNT_UMNT)
		return true;
	if (!nfs_dec_path(c, &out->path))
		return false;
	out->have |= MNT_PATH;
	return true;
}

/*
 * union fhstatus switch (unsigned fhs_status) {
 * case 0:
 *     fhandle fhs_fhandle;        // opaque[FHSIZE=32]
 * default:
 *     void;
 * };
 */
static bool
mnt_dec_fhstatus(struct xdr *c, struct mnt_msg *out)
{
	if (!xdr_u32(c, &out->status))
		return false;
	out->have |= MNT_STATUS;
	if (out->status != 0)
		return true;
	if (!nfs_dec_fh2(c, &out->fh))
		return false;
	out->have |= MNT_FH;
	return true;
}

/*
 * struct mountres3_ok {
 *     fhandle3   fhandle;        // opaque<FHSIZE3=64>
 *     int        auth_flavors<>;
 * };
 * union mountres3 switch (mountstat3 fhs_status) {
 * case MNT3_OK:
 *     mountres3_ok  mountinfo;
 * default:
 *     void;
 * };
 */
static bool
mnt_dec_mountres3(struct xdr *c, struct mnt_msg *out)
{
	uint32_t n, i, at;

	if (!xdr_u32(c, &out->status))
		return false;
	out->have |= MNT_STATUS;
	if (out->status != 0)
		return true;
	if (!nfs_dec_fh3(c, &out->fh))
		return false;
	out->have |= MNT_FH;
	at = c->off;
	if (!xdr_u32(c, &n))
		return false;
	if (n > xdr_wire_left(c) / 4) {
		c->off = at;
		return xdr_fail(c, XDR_MALFORMED);
	}
	out->nflavors = 0;
	for (i = 0; i < n; i++) {
		uint32_t f;

		if (!xdr_u32(c, &f))
			return false;
		if (i < MNT_FLAVORS_MAX)
			out->flavors[out->nflavors++] = f;
	}
	out->have |= MNT_FLAVORS;
	return true;
}

/* Read the "next" pointer of an XDR optional-data list. */
static bool
mnt_dec_more(struct xdr *c, bool *more, uint32_t *budget)
{
	if (*budget == 0)
		return xdr_fail(c, XDR_MALFORMED);
	(*budget)--;
	return xdr_bool(c, more);
}

/*
 * typedef struct mountbody *mountlist;
 * struct mountbody {
 *     name       ml_hostname;    // string<MNTNAMLEN=255>
 *     dirpath    ml_directory;   // string<MNTPATHLEN=1024>
 *     mountlist  ml_next;
 * };
 */
static bool
mnt_dec_mountlist(struct xdr *c, struct mnt_msg *out)
{
	uint32_t budget = xdr_wire_left(c) / 4 + 1;
	struct mnt_mount scratch;
	bool more;

	out->nlist = 0;
	out->list_total = 0;
	if (!mnt_dec_more(c, &more, &budget))
		return false;
	while (more) {
		struct mnt_mount *e = out->nlist < MNT_LIST_MAX ?
		    &out->mounts[out->nlist] : &scratch;

		if (!nfs_dec_name(c, &e->host))
			return false;
		if (!nfs_dec_path(c, &e->dir))
			return false;
		if (e != &scratch)
			out->nlist++;
		out->list_total++;
		if (!mnt_dec_more(c, &more, &budget))
			return false;
	}
	out->have |= MNT_MOUNTS;
	return true;
}

/*
 * typedef struct groupnode *groups;
 * struct groupnode {
 *     name     gr_name;
 *     groups   gr_next;
 * };
 */
static bool
mnt_dec_groups(struct xdr *c, struct mnt_export *e, uint32_t *budget)
{
	struct nfs_name scratch;
	bool more;

	e->ngroups = 0;
	if (!mnt_dec_more(c, &more, budget))
		return false;
	while (more) {
		struct nfs_name *g = e->ngroups < MNT_GROUPS_MAX ?
		    &e->groups[e->ngroups] : &scratch;

		if (!nfs_dec_name(c, g))
			return false;
		e->ngroups++;
		if (!mnt_dec_more(c, &more, budget))
			return false;
	}
	return true;
}

/*
 * typedef struct exportnode *exports;
 * struct exportnode {
 *     dirpath  ex_dir;
 *     groups   ex_groups;
 *     exports  ex_next;
 * };
 */
static bool
mnt_dec_exports(struct xdr *c, struct mnt_msg *out)
{
	uint32_t budget = xdr_wire_left(c) / 4 + 1;
	struct mnt_export scratch;
	bool more;

	out->nlist = 0;
	out->list_total = 0;
	if (!mnt_dec_more(c, &more, &budget))
		return false;
	while (more) {
		struct mnt_export *e = out->nlist < MNT_LIST_MAX ?
		    &out->exports[out->nlist] : &scratch;

		if (!nfs_dec_path(c, &e->dir))
			return false;
		if (!mnt_dec_groups(c, e, &budget))
			return false;
		if (e != &scratch)
			out->nlist++;
		out->list_total++;
		if (!mnt_dec_more(c, &more, &budget))
			return false;
	}
	out->have |= MNT_EXPORTS;
	return true;
}

bool
mnt_decode_reply(struct xdr *c, uint32_t vers, uint32_t proc,
		 struct mnt_msg *out)
{
	switch (proc) {
	case MOUNT_MNT:
		if (vers == 3)
			return mnt_dec_mountres3(c, out);
		return mnt_dec_fhstatus(c, out);
	case MOUNT_DUMP:
		return mnt_dec_mountlist(c, out);
	case MOUNT_EXPORT:
		return mnt_dec_exports(c, out);
	case MOUNTPROC_EXPORTALL:
		if (vers == 3)
			return true;
		return mnt_dec_exports(c, out);
	default:
		/* NULL, UMNT, UMNTALL: void; v2 PATHCONF: not decoded */
		return true;
	}
}
