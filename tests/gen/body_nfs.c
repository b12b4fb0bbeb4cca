/*
 * body_nfs.c - NFSv3 (RFC 1813) and NFSv2 (RFC 1094) call and reply bodies
 * for nfsgen: random but valid values, encoded with the rpcgen routines of
 * nfs3.x / nfs2.x, and the same values written as nfscope(1) dump --json keys.
 */
#include "gen.h"
#include "nfs3.h"
#include "nfs2.h"

#include <string.h>

uint8_t *data_pattern;

/* Scratch memory for one message's variable-length parts (reset per body). */
static uint8_t scratch[1 << 18];
static size_t scratch_off;

static void *scr(size_t n)
{
	void *p;

	n = (n + 7) & ~(size_t)7;
	if (scratch_off + n > sizeof(scratch))
		scratch_off = 0;	/* never happens with the sizes used */
	p = scratch + scratch_off;
	scratch_off += n;
	return p;
}

void gen_bytes(uint8_t *p, size_t n)
{
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t v = rnd64();

		memcpy(p + i, &v, 8);
	}
	for (; i < n; i++)
		p[i] = (uint8_t)rnd64();
}

static const char *const words[] = {
	"data", "src", "lib", "home", "user", "report", "tmp", "build", "cache",
	"log", "etc", "mail", "db", "img", "photo", "nfs", "export", "vol",
	"x", "a_very_long_component_name_that_goes_on_and_on_for_a_while",
};

uint32_t gen_name(char *s, uint32_t max)
{
	uint32_t n = 0;
	const char *w = words[rnd(sizeof(words) / sizeof(words[0]))];
	int k = (int)rnd(4);

	while (*w && n < max)
		s[n++] = *w++;
	if (k == 0 && n + 8 < max) {
		n += (uint32_t)snprintf(s + n, max - n, ".%u", rnd(100000));
	} else if (k == 1 && n + 4 < max) {
		/* bytes a JSON writer must escape */
		static const char odd[] = { '"', '\\', '\t', (char)0xe9, ' ', '\'' };

		s[n++] = '-';
		s[n++] = odd[rnd(sizeof(odd))];
	} else if (k == 2 && n + 12 < max) {
		n += (uint32_t)snprintf(s + n, max - n, "_%08x", rnd32());
	}
	if (n == 0)
		s[n++] = 'f';
	s[n] = 0;
	return n;
}

uint32_t gen_path(char *s, uint32_t max)
{
	uint32_t n = 0;
	int parts = 1 + (int)rnd(5);

	for (int i = 0; i < parts && n + 80 < max; i++) {
		s[n++] = '/';
		n += gen_name(s + n, 70);
	}
	s[n] = 0;
	return n;
}

static char *new_name(void)
{
	char *s = scr(256);

	gen_name(s, 200);
	return s;
}

/* ---------------------------------------------------------- v3 types -- */

static void g_fh3(nfs_fh3 *fh)
{
	uint32_t n;

	switch (rnd(6)) {
	case 0: n = 1 + rnd(64); break;		/* odd lengths: padding */
	case 1: n = 64; break;
	case 2: n = 8; break;
	default: n = 4 * rnd_range(3, 16); break;
	}
	fh->data.data_len = n;
	fh->data.data_val = scr(n);
	gen_bytes((uint8_t *)fh->data.data_val, n);
}

static void j_fh3(struct jb *j, const char *key, const nfs_fh3 *fh)
{
	jb_hex(j, key, fh->data.data_val, fh->data.data_len);
}

static uint64_t g_big(void)
{
	switch (rnd(4)) {
	case 0: return rnd(4096);
	case 1: return rnd32();
	case 2: return ((uint64_t)rnd(64) << 32) | rnd32();	/* > 4 GiB */
	default: return rnd64() >> rnd(64);
	}
}

static void g_time3(nfstime3 *t)
{
	t->seconds = 1500000000u + rnd(300000000u);
	t->nseconds = rnd(1000000000u);
}

static void j_time3(struct jb *j, const char *key, const nfstime3 *t)
{
	jb_time(j, key, t->seconds, t->nseconds);
}

static void g_fattr3(fattr3 *a)
{
	a->type = (ftype3)rnd_range(1, 7);
	a->mode = rnd(010000);
	a->nlink = rnd_range(1, 40);
	a->uid = rnd(3) ? rnd(70000) : 0xfffffffeu;
	a->gid = rnd(70000);
	a->size = g_big();
	a->used = g_big();
	a->rdev.specdata1 = rnd(300);
	a->rdev.specdata2 = rnd(300);
	a->fsid = rnd64();
	a->fileid = rnd64() >> rnd(48);
	g_time3(&a->atime);
	g_time3(&a->mtime);
	g_time3(&a->ctime);
}

static void j_fattr3(struct jb *j, const char *key, const fattr3 *a)
{
	jb_obj(j, key);
	jb_u64(j, "type", a->type);
	jb_u64(j, "mode", a->mode);
	jb_u64(j, "nlink", a->nlink);
	jb_u64(j, "uid", a->uid);
	jb_u64(j, "gid", a->gid);
	jb_u64(j, "size", a->size);
	jb_u64(j, "used", a->used);
	jb_u64(j, "rdev_major", a->rdev.specdata1);
	jb_u64(j, "rdev_minor", a->rdev.specdata2);
	jb_u64(j, "fsid", a->fsid);
	jb_u64(j, "fileid", a->fileid);
	j_time3(j, "atime", &a->atime);
	j_time3(j, "mtime", &a->mtime);
	j_time3(j, "ctime", &a->ctime);
	jb_end_obj(j);
}

static void g_post_op(post_op_attr *p)
{
	p->attributes_follow = rnd(5) != 0;
	if (p->attributes_follow)
		g_fattr3(&p->post_op_attr_u.attributes);
}

/* post_op_attr: the key only when attributes follow */
static void j_post_op(struct jb *j, const char *key, const post_op_attr *p)
{
	if (p->attributes_follow)
		j_fattr3(j, key, &p->post_op_attr_u.attributes);
}

static void g_wcc(wcc_data *w)
{
	w->before.attributes_follow = rnd(10) < 7;
	if (w->before.attributes_follow) {
		wcc_attr *b = &w->before.pre_op_attr_u.attributes;

		b->size = g_big();
		g_time3(&b->mtime);
		g_time3(&b->ctime);
	}
	g_post_op(&w->after);
}

static void j_wcc(struct jb *j, const char *key, const wcc_data *w)
{
	jb_obj(j, key);
	if (w->before.attributes_follow) {
		const wcc_attr *b = &w->before.pre_op_attr_u.attributes;

		jb_obj(j, "before");
		jb_u64(j, "size", b->size);
		j_time3(j, "mtime", &b->mtime);
		j_time3(j, "ctime", &b->ctime);
		jb_end_obj(j);
	}
	j_post_op(j, "after", &w->after);
	jb_end_obj(j);
}

static void g_sattr3(sattr3 *s)
{
	memset(s, 0, sizeof(*s));
	if ((s->mode.set_it = rnd(2)))
		s->mode.set_mode3_u.mode = rnd(010000);
	if ((s->uid.set_it = rnd(3) == 0))
		s->uid.set_uid3_u.uid = rnd(70000);
	if ((s->gid.set_it = rnd(3) == 0))
		s->gid.set_gid3_u.gid = rnd(70000);
	if ((s->size.set_it = rnd(3) == 0))
		s->size.set_size3_u.size = g_big();
	s->atime.set_it = (time_how)rnd(3);
	if (s->atime.set_it == SET_TO_CLIENT_TIME)
		g_time3(&s->atime.set_atime_u.atime);
	s->mtime.set_it = (time_how)rnd(3);
	if (s->mtime.set_it == SET_TO_CLIENT_TIME)
		g_time3(&s->mtime.set_mtime_u.mtime);
}

static void j_sattr3(struct jb *j, const sattr3 *s)
{
	jb_obj(j, "sattr");
	if (s->mode.set_it)
		jb_u64(j, "mode", s->mode.set_mode3_u.mode);
	if (s->uid.set_it)
		jb_u64(j, "uid", s->uid.set_uid3_u.uid);
	if (s->gid.set_it)
		jb_u64(j, "gid", s->gid.set_gid3_u.gid);
	if (s->size.set_it)
		jb_u64(j, "size", s->size.set_size3_u.size);
	if (s->atime.set_it == SET_TO_SERVER_TIME)
		jb_str(j, "atime", "server");
	else if (s->atime.set_it == SET_TO_CLIENT_TIME)
		j_time3(j, "atime", &s->atime.set_atime_u.atime);
	if (s->mtime.set_it == SET_TO_SERVER_TIME)
		jb_str(j, "mtime", "server");
	else if (s->mtime.set_it == SET_TO_CLIENT_TIME)
		j_time3(j, "mtime", &s->mtime.set_mtime_u.mtime);
	jb_end_obj(j);
}

static void g_dirop(diropargs3 *d)
{
	g_fh3(&d->dir);
	d->name = new_name();
}

static void g_verf(char *v)
{
	gen_bytes((uint8_t *)v, 8);
}

/* The op's scripted handle, or a random one. */
static void op_fh3(const struct op *op, nfs_fh3 *fh)
{
	if (op->fh == NULL) {
		g_fh3(fh);
		return;
	}
	fh->data.data_len = op->fh_len;
	fh->data.data_val = (char *)op->fh;
}

static void op_dirop(const struct op *op, diropargs3 *d)
{
	if (op->fh == NULL) {
		g_dirop(d);
		return;
	}
	op_fh3(op, &d->dir);
	d->name = op->name ? (char *)op->name : new_name();
}

static void op_verf(struct op *op, char *v)
{
	if (op->verf)
		memcpy(v, op->verf, 8);
	else
		g_verf(v);
	memcpy(op->o_verf, v, 8);
	op->o_have_verf = true;
}

static uint64_t g_offset(uint32_t count)
{
	switch (rnd(3)) {
	case 0: return (uint64_t)rnd(1000) * count;
	case 1: return ((uint64_t)rnd_range(1, 200) << 32) + (uint64_t)rnd(1000) * 4096;
	default: return rnd32();
	}
}

/* ---------------------------------------------------------- v3 calls -- */

static const char *const nfs3_stat_names[] = {
	[0] = "NFS3_OK", [1] = "NFS3ERR_PERM", [2] = "NFS3ERR_NOENT",
	[5] = "NFS3ERR_IO", [6] = "NFS3ERR_NXIO", [13] = "NFS3ERR_ACCES",
	[17] = "NFS3ERR_EXIST", [18] = "NFS3ERR_XDEV", [19] = "NFS3ERR_NODEV",
	[20] = "NFS3ERR_NOTDIR", [21] = "NFS3ERR_ISDIR", [22] = "NFS3ERR_INVAL",
	[27] = "NFS3ERR_FBIG", [28] = "NFS3ERR_NOSPC", [30] = "NFS3ERR_ROFS",
	[31] = "NFS3ERR_MLINK", [63] = "NFS3ERR_NAMETOOLONG",
	[66] = "NFS3ERR_NOTEMPTY", [69] = "NFS3ERR_DQUOT", [70] = "NFS3ERR_STALE",
	[71] = "NFS3ERR_REMOTE",
};
static const char *const nfs3_stat_names2[] = {
	"NFS3ERR_BADHANDLE", "NFS3ERR_NOT_SYNC", "NFS3ERR_BAD_COOKIE",
	"NFS3ERR_NOTSUPP", "NFS3ERR_TOOSMALL", "NFS3ERR_SERVERFAULT",
	"NFS3ERR_BADTYPE", "NFS3ERR_JUKEBOX",
};
static const uint32_t nfs3_errs[] = {
	1, 2, 5, 6, 13, 17, 18, 19, 20, 21, 22, 27, 28, 30, 31, 63, 66, 69, 70,
	71, 10001, 10002, 10003, 10004, 10005, 10006, 10007, 10008,
};

static void j_status3(struct jb *j, uint32_t st)
{
	const char *n = NULL;

	jb_u64(j, "status", st);
	if (st < sizeof(nfs3_stat_names) / sizeof(nfs3_stat_names[0]))
		n = nfs3_stat_names[st];
	else if (st >= 10001 && st <= 10008)
		n = nfs3_stat_names2[st - 10001];
	if (n)
		jb_str(j, "status_name", n);
}

bool nfs3_call(XDR *x, struct jb *j, struct op *op)
{
	bool ok = true;

	scratch_off = 0;
	jb_obj(j, "args");
	switch (op->proc) {
	case 0:
		break;
	case 1: case 18: case 19: case 20: {	/* GETATTR FSSTAT FSINFO PATHCONF */
		nfs_fh3 fh;

		op_fh3(op, &fh);
		j_fh3(j, "fh", &fh);
		ok = xdr_nfs_fh3(x, &fh);
		break;
	}
	case 2: {
		SETATTR3args a;

		g_fh3(&a.object);
		g_sattr3(&a.new_attributes);
		a.guard.check = rnd(2);
		if (a.guard.check)
			g_time3(&a.guard.sattrguard3_u.obj_ctime);
		j_fh3(j, "fh", &a.object);
		j_sattr3(j, &a.new_attributes);
		if (a.guard.check)
			j_time3(j, "guard", &a.guard.sattrguard3_u.obj_ctime);
		ok = xdr_SETATTR3args(x, &a);
		break;
	}
	case 3: case 12: case 13: {	/* LOOKUP REMOVE RMDIR */
		diropargs3 d;

		op_dirop(op, &d);
		j_fh3(j, "fh", &d.dir);
		jb_str(j, "name", d.name);
		ok = xdr_diropargs3(x, &d);
		break;
	}
	case 4: {
		ACCESS3args a;

		op_fh3(op, &a.object);
		a.access = rnd_range(1, 0x3f);
		j_fh3(j, "fh", &a.object);
		jb_u64(j, "access", a.access);
		ok = xdr_ACCESS3args(x, &a);
		break;
	}
	case 5: {
		READLINK3args a;

		g_fh3(&a.symlink);
		j_fh3(j, "fh", &a.symlink);
		ok = xdr_READLINK3args(x, &a);
		break;
	}
	case 6: case 21: {	/* READ COMMIT */
		READ3args a;

		op_fh3(op, &a.file);
		a.count = op->proc == 21 && !op->set_offset && rnd(3) == 0 ? 0 : op->count;
		a.offset = op->set_offset ? op->offset : g_offset(op->count);
		op->o_have_rw = true;
		op->o_count = a.count;
		op->o_offset = a.offset;
		j_fh3(j, "fh", &a.file);
		jb_u64(j, "offset", a.offset);
		jb_u64(j, "count", a.count);
		ok = op->proc == 6 ? xdr_READ3args(x, &a) : xdr_COMMIT3args(x, (COMMIT3args *)&a);
		break;
	}
	case 7: {
		WRITE3args a;

		op_fh3(op, &a.file);
		a.offset = op->set_offset ? op->offset : g_offset(op->count);
		a.count = op->count;
		a.stable = op->want_stable ? (stable_how)(op->want_stable - 1) : (stable_how)rnd(3);
		op->o_have_rw = op->o_have_write = true;
		op->o_count = a.count;
		op->o_offset = a.offset;
		op->o_stable = a.stable;
		a.data.data_len = op->count;
		a.data.data_val = (char *)data_pattern;
		j_fh3(j, "fh", &a.file);
		jb_u64(j, "offset", a.offset);
		jb_u64(j, "count", a.count);
		jb_u64(j, "stable", a.stable);
		jb_u64(j, "data_len", a.data.data_len);
		ok = xdr_WRITE3args(x, &a);
		break;
	}
	case 8: {
		CREATE3args a;

		g_dirop(&a.where);
		a.how.mode = (createmode3)rnd(3);
		j_fh3(j, "fh", &a.where.dir);
		jb_str(j, "name", a.where.name);
		jb_u64(j, "createmode", a.how.mode);
		if (a.how.mode == EXCLUSIVE) {
			g_verf(a.how.createhow3_u.verf);
			jb_hex(j, "createverf", a.how.createhow3_u.verf, 8);
		} else {
			g_sattr3(&a.how.createhow3_u.obj_attributes);
			j_sattr3(j, &a.how.createhow3_u.obj_attributes);
		}
		ok = xdr_CREATE3args(x, &a);
		break;
	}
	case 9: {
		MKDIR3args a;

		g_dirop(&a.where);
		g_sattr3(&a.attributes);
		j_fh3(j, "fh", &a.where.dir);
		jb_str(j, "name", a.where.name);
		j_sattr3(j, &a.attributes);
		ok = xdr_MKDIR3args(x, &a);
		break;
	}
	case 10: {
		SYMLINK3args a;
		char *path = scr(1100);

		g_dirop(&a.where);
		g_sattr3(&a.symlink.symlink_attributes);
		gen_path(path, 1024);
		a.symlink.symlink_data = path;
		j_fh3(j, "fh", &a.where.dir);
		jb_str(j, "name", a.where.name);
		j_sattr3(j, &a.symlink.symlink_attributes);
		jb_str(j, "path", path);
		ok = xdr_SYMLINK3args(x, &a);
		break;
	}
	case 11: {
		MKNOD3args a;

		g_dirop(&a.where);
		a.what.type = (ftype3)rnd_range(1, 7);
		j_fh3(j, "fh", &a.where.dir);
		jb_str(j, "name", a.where.name);
		jb_u64(j, "ftype", a.what.type);
		if (a.what.type == NF3CHR || a.what.type == NF3BLK) {
			devicedata3 *d = &a.what.mknoddata3_u.device;

			g_sattr3(&d->dev_attributes);
			d->spec.specdata1 = rnd(256);
			d->spec.specdata2 = rnd(65536);
			j_sattr3(j, &d->dev_attributes);
			jb_u64(j, "spec_major", d->spec.specdata1);
			jb_u64(j, "spec_minor", d->spec.specdata2);
		} else if (a.what.type == NF3SOCK || a.what.type == NF3FIFO) {
			g_sattr3(&a.what.mknoddata3_u.pipe_attributes);
			j_sattr3(j, &a.what.mknoddata3_u.pipe_attributes);
		}
		ok = xdr_MKNOD3args(x, &a);
		break;
	}
	case 14: {
		RENAME3args a;

		g_dirop(&a.from);
		g_dirop(&a.to);
		j_fh3(j, "fh", &a.from.dir);
		jb_str(j, "name", a.from.name);
		j_fh3(j, "fh2", &a.to.dir);
		jb_str(j, "name2", a.to.name);
		ok = xdr_RENAME3args(x, &a);
		break;
	}
	case 15: {
		LINK3args a;

		g_fh3(&a.file);
		g_dirop(&a.link);
		j_fh3(j, "fh", &a.file);
		j_fh3(j, "fh2", &a.link.dir);
		jb_str(j, "name2", a.link.name);
		ok = xdr_LINK3args(x, &a);
		break;
	}
	case 16: {
		READDIR3args a;

		g_fh3(&a.dir);
		a.cookie = rnd(2) ? 0 : rnd64();
		g_verf(a.cookieverf);
		a.count = rnd_range(512, 65536);
		j_fh3(j, "fh", &a.dir);
		jb_u64(j, "cookie", a.cookie);
		jb_hex(j, "cookieverf", a.cookieverf, 8);
		jb_u64(j, "count", a.count);
		ok = xdr_READDIR3args(x, &a);
		break;
	}
	case 17: {
		READDIRPLUS3args a;

		g_fh3(&a.dir);
		a.cookie = rnd(2) ? 0 : rnd64();
		g_verf(a.cookieverf);
		a.dircount = rnd_range(512, 65536);
		a.maxcount = rnd_range(4096, 1 << 20);
		j_fh3(j, "fh", &a.dir);
		jb_u64(j, "cookie", a.cookie);
		jb_hex(j, "cookieverf", a.cookieverf, 8);
		jb_u64(j, "dircount", a.dircount);
		jb_u64(j, "maxcount", a.maxcount);
		ok = xdr_READDIRPLUS3args(x, &a);
		break;
	}
	default:
		ok = false;
	}
	jb_end_obj(j);
	return ok;
}

/* ---------------------------------------------------------- v3 replies -- */

static entry3 ents[64];
static entryplus3 entps[64];

bool nfs3_reply(XDR *x, struct jb *j, struct op *op)
{
	uint32_t st = 0;
	bool ok = true;

	scratch_off = 0;
	jb_obj(j, "res");
	if (op->proc == 0) {
		jb_end_obj(j);
		return true;
	}
	if (op->set_status)
		st = op->status;
	else if (op->err)
		st = nfs3_errs[rnd(sizeof(nfs3_errs) / sizeof(nfs3_errs[0]))];
	op->o_set = op->o_have_status = true;
	op->o_status = st;
	j_status3(j, st);
	ok = xdr_nfsstat3(x, (nfsstat3 *)&st);
	switch (op->proc) {
	case 1: {
		fattr3 a;

		if (st)
			break;
		g_fattr3(&a);
		j_fattr3(j, "attr", &a);
		ok = ok && xdr_fattr3(x, &a);
		break;
	}
	case 2: case 12: case 13: case 21: {	/* SETATTR REMOVE RMDIR COMMIT */
		wcc_data w;
		char verf[8];

		g_wcc(&w);
		j_wcc(j, op->proc == 2 || op->proc == 21 ? "wcc" : "dir_wcc", &w);
		ok = ok && xdr_wcc_data(x, &w);
		if (op->proc == 21 && st == 0) {
			op_verf(op, verf);
			jb_hex(j, "verf", verf, 8);
			ok = ok && xdr_writeverf3(x, verf);
		}
		break;
	}
	case 3: {
		LOOKUP3resok r;

		if (st == 0) {
			g_fh3(&r.object);
			g_post_op(&r.obj_attributes);
			j_fh3(j, "fh", &r.object);
			j_post_op(j, "attr", &r.obj_attributes);
			ok = ok && xdr_nfs_fh3(x, &r.object) && xdr_post_op_attr(x, &r.obj_attributes);
		}
		g_post_op(&r.dir_attributes);
		j_post_op(j, "dir_attr", &r.dir_attributes);
		ok = ok && xdr_post_op_attr(x, &r.dir_attributes);
		break;
	}
	case 4: case 5: case 6: case 18: case 19: case 20: {
		post_op_attr p;

		g_post_op(&p);
		j_post_op(j, "attr", &p);
		ok = ok && xdr_post_op_attr(x, &p);
		if (st || !ok)
			break;
		if (op->proc == 4) {
			uint32_t acc = rnd(0x40);

			jb_u64(j, "access", acc);
			ok = xdr_uint32(x, &acc);
		} else if (op->proc == 5) {
			char *path = scr(1100);

			gen_path(path, 1024);
			jb_str(j, "path", path);
			ok = xdr_nfspath3(x, &path);
		} else if (op->proc == 6) {
			uint32_t cnt = op->full_read || rnd(4) ? op->count : rnd(op->count + 1);
			bool_t eof = op->read_eof ||
				     (!op->full_read && (cnt < op->count || rnd(8) == 0));
			u_int dl;
			char *dp = (char *)data_pattern;

			if (op->grant && cnt > op->grant)
				cnt = op->grant;
			dl = cnt;
			op->o_rcount = cnt;
			op->o_eof = eof;
			jb_u64(j, "count", cnt);
			jb_bool(j, "eof", eof);
			jb_u64(j, "data_len", dl);
			ok = xdr_uint32(x, &cnt) && xdr_bool(x, &eof) &&
			     xdr_bytes(x, &dp, &dl, ~0u);
		} else if (op->proc == 18) {
			FSSTAT3resok r;

			r.tbytes = g_big(); r.fbytes = g_big(); r.abytes = g_big();
			r.tfiles = g_big(); r.ffiles = g_big(); r.afiles = g_big();
			r.invarsec = rnd(2) ? 0 : rnd32();
			jb_obj(j, "fsstat");
			jb_u64(j, "tbytes", r.tbytes);
			jb_u64(j, "fbytes", r.fbytes);
			jb_u64(j, "abytes", r.abytes);
			jb_u64(j, "tfiles", r.tfiles);
			jb_u64(j, "ffiles", r.ffiles);
			jb_u64(j, "afiles", r.afiles);
			jb_u64(j, "invarsec", r.invarsec);
			jb_end_obj(j);
			ok = xdr_size3(x, &r.tbytes) && xdr_size3(x, &r.fbytes) &&
			     xdr_size3(x, &r.abytes) && xdr_size3(x, &r.tfiles) &&
			     xdr_size3(x, &r.ffiles) && xdr_size3(x, &r.afiles) &&
			     xdr_uint32(x, &r.invarsec);
		} else if (op->proc == 19) {
			FSINFO3resok r;

			r.rtmax = op->rtmax ? op->rtmax : 1u << rnd_range(12, 20);
			r.rtpref = r.rtmax;
			r.rtmult = 4096;
			r.wtmax = op->wtmax ? op->wtmax : 1u << rnd_range(12, 20);
			r.wtpref = r.wtmax;
			r.wtmult = 512;
			r.dtpref = rnd_range(1, 16) * 4096;
			r.maxfilesize = rnd(2) ? 0x7fffffffffffffffULL : g_big();
			r.time_delta.seconds = rnd(2);
			r.time_delta.nseconds = rnd(2) ? 1 : rnd(1000000000u);
			r.properties = rnd(32);
			jb_obj(j, "fsinfo");
			jb_u64(j, "rtmax", r.rtmax);
			jb_u64(j, "rtpref", r.rtpref);
			jb_u64(j, "rtmult", r.rtmult);
			jb_u64(j, "wtmax", r.wtmax);
			jb_u64(j, "wtpref", r.wtpref);
			jb_u64(j, "wtmult", r.wtmult);
			jb_u64(j, "dtpref", r.dtpref);
			jb_u64(j, "maxfilesize", r.maxfilesize);
			j_time3(j, "time_delta", &r.time_delta);
			jb_u64(j, "properties", r.properties);
			jb_end_obj(j);
			ok = xdr_uint32(x, &r.rtmax) && xdr_uint32(x, &r.rtpref) &&
			     xdr_uint32(x, &r.rtmult) && xdr_uint32(x, &r.wtmax) &&
			     xdr_uint32(x, &r.wtpref) && xdr_uint32(x, &r.wtmult) &&
			     xdr_uint32(x, &r.dtpref) && xdr_size3(x, &r.maxfilesize) &&
			     xdr_nfstime3(x, &r.time_delta) && xdr_uint32(x, &r.properties);
		} else {
			PATHCONF3resok r;

			r.linkmax = rnd_range(1, 65000);
			r.name_max = 255;
			r.no_trunc = rnd(2);
			r.chown_restricted = rnd(2);
			r.case_insensitive = rnd(2);
			r.case_preserving = rnd(2);
			jb_obj(j, "pathconf");
			jb_u64(j, "linkmax", r.linkmax);
			jb_u64(j, "name_max", r.name_max);
			jb_bool(j, "no_trunc", r.no_trunc);
			jb_bool(j, "chown_restricted", r.chown_restricted);
			jb_bool(j, "case_insensitive", r.case_insensitive);
			jb_bool(j, "case_preserving", r.case_preserving);
			jb_end_obj(j);
			ok = xdr_uint32(x, &r.linkmax) && xdr_uint32(x, &r.name_max) &&
			     xdr_bool(x, &r.no_trunc) && xdr_bool(x, &r.chown_restricted) &&
			     xdr_bool(x, &r.case_insensitive) && xdr_bool(x, &r.case_preserving);
		}
		break;
	}
	case 7: {
		wcc_data w;

		g_wcc(&w);
		j_wcc(j, "wcc", &w);
		ok = ok && xdr_wcc_data(x, &w);
		if (st == 0 && ok) {
			uint32_t cnt = op->grant && op->count > op->grant ? op->grant : op->count;
			stable_how c = op->want_committed ? (stable_how)(op->want_committed - 1)
							  : (stable_how)rnd(3);
			char verf[8];

			op_verf(op, verf);
			op->o_rcount = cnt;
			op->o_committed = c;
			jb_u64(j, "count", cnt);
			jb_u64(j, "committed", c);
			jb_hex(j, "verf", verf, 8);
			ok = xdr_uint32(x, &cnt) && xdr_stable_how(x, &c) && xdr_writeverf3(x, verf);
		}
		break;
	}
	case 8: case 9: case 10: case 11: {	/* CREATE MKDIR SYMLINK MKNOD */
		if (st == 0) {
			post_op_fh3 fh;
			post_op_attr p;

			fh.handle_follows = rnd(6) != 0;
			if (fh.handle_follows) {
				g_fh3(&fh.post_op_fh3_u.handle);
				j_fh3(j, "fh", &fh.post_op_fh3_u.handle);
			}
			g_post_op(&p);
			j_post_op(j, "attr", &p);
			ok = ok && xdr_post_op_fh3(x, &fh) && xdr_post_op_attr(x, &p);
		}
		wcc_data w;

		g_wcc(&w);
		j_wcc(j, "dir_wcc", &w);
		ok = ok && xdr_wcc_data(x, &w);
		break;
	}
	case 14: {
		wcc_data w1, w2;

		g_wcc(&w1);
		g_wcc(&w2);
		j_wcc(j, "dir_wcc", &w1);
		j_wcc(j, "dir_wcc2", &w2);
		ok = ok && xdr_wcc_data(x, &w1) && xdr_wcc_data(x, &w2);
		break;
	}
	case 15: {
		post_op_attr p;
		wcc_data w;

		g_post_op(&p);
		g_wcc(&w);
		j_post_op(j, "attr", &p);
		j_wcc(j, "dir_wcc", &w);
		ok = ok && xdr_post_op_attr(x, &p) && xdr_wcc_data(x, &w);
		break;
	}
	case 16: case 17: {
		post_op_attr p;
		char cv[8];
		uint32_t n = rnd(4) ? rnd(41) : 0;
		bool_t eof = rnd(2);
		bool plus = op->proc == 17;
		uint64_t cookie = rnd32();

		g_post_op(&p);
		j_post_op(j, "dir_attr", &p);
		ok = ok && xdr_post_op_attr(x, &p);
		if (st || !ok)
			break;
		g_verf(cv);
		jb_hex(j, "cookieverf", cv, 8);
		jb_arr(j, "entries");
		for (uint32_t i = 0; i < n; i++) {
			cookie += rnd_range(1, 1000);
			jb_obj(j, NULL);
			if (plus) {
				entryplus3 *e = &entps[i];

				e->fileid = rnd64() >> rnd(48);
				e->name = new_name();
				e->cookie = cookie;
				g_post_op(&e->name_attributes);
				e->name_handle.handle_follows = rnd(5) != 0;
				if (e->name_handle.handle_follows)
					g_fh3(&e->name_handle.post_op_fh3_u.handle);
				e->nextentry = i + 1 < n ? &entps[i + 1] : NULL;
				jb_u64(j, "fileid", e->fileid);
				jb_u64(j, "cookie", e->cookie);
				jb_str(j, "name", e->name);
				if (e->name_handle.handle_follows)
					j_fh3(j, "fh", &e->name_handle.post_op_fh3_u.handle);
				j_post_op(j, "attr", &e->name_attributes);
			} else {
				entry3 *e = &ents[i];

				e->fileid = rnd64() >> rnd(48);
				e->name = new_name();
				e->cookie = cookie;
				e->nextentry = i + 1 < n ? &ents[i + 1] : NULL;
				jb_u64(j, "fileid", e->fileid);
				jb_u64(j, "cookie", e->cookie);
				jb_str(j, "name", e->name);
			}
			jb_end_obj(j);
		}
		jb_end_arr(j);
		jb_u64(j, "entries_total", n);
		jb_bool(j, "entries_eof", eof);
		ok = xdr_cookieverf3(x, cv);
		if (plus) {
			dirlistplus3 d = { n ? &entps[0] : NULL, eof };

			ok = ok && xdr_dirlistplus3(x, &d);
		} else {
			dirlist3 d = { n ? &ents[0] : NULL, eof };

			ok = ok && xdr_dirlist3(x, &d);
		}
		break;
	}
	default:
		ok = false;
	}
	jb_end_obj(j);
	return ok;
}

/* ---------------------------------------------------------------- v2 -- */

static void g_fh2(nfs_fh *fh)
{
	gen_bytes((uint8_t *)fh->data, NFS_FHSIZE);
}

static void j_fh2(struct jb *j, const char *key, const nfs_fh *fh)
{
	jb_hex(j, key, fh->data, NFS_FHSIZE);
}

static void g_time2(nfstime *t)
{
	t->seconds = 1500000000u + rnd(300000000u);
	t->useconds = rnd(1000000u);
}

static void j_time2(struct jb *j, const char *key, const nfstime *t)
{
	jb_time(j, key, t->seconds, t->useconds * 1000u);
}

static void g_fattr2(fattr *a)
{
	static const ftype types[] = { NFNON, NFREG, NFDIR, NFBLK, NFCHR, NFLNK, NFSOCK, NFFIFO };

	a->type = types[rnd(8)];
	a->mode = rnd(0200000);
	a->nlink = rnd_range(1, 40);
	a->uid = rnd(70000);
	a->gid = rnd(70000);
	a->size = rnd32();
	a->blocksize = 512u << rnd(5);
	a->rdev = rnd(3) ? 0 : rnd32();
	a->blocks = rnd(1u << 20);
	a->fsid = rnd32();
	a->fileid = rnd32();
	g_time2(&a->atime);
	g_time2(&a->mtime);
	g_time2(&a->ctime);
}

static void j_fattr2(struct jb *j, const char *key, const fattr *a)
{
	jb_obj(j, key);
	jb_u64(j, "type", a->type);
	jb_u64(j, "mode", a->mode);
	jb_u64(j, "nlink", a->nlink);
	jb_u64(j, "uid", a->uid);
	jb_u64(j, "gid", a->gid);
	jb_u64(j, "size", a->size);
	jb_u64(j, "used", (uint64_t)a->blocks * a->blocksize);
	jb_u64(j, "rdev_major", a->rdev);
	jb_u64(j, "rdev_minor", 0);
	jb_u64(j, "fsid", a->fsid);
	jb_u64(j, "fileid", a->fileid);
	j_time2(j, "atime", &a->atime);
	j_time2(j, "mtime", &a->mtime);
	j_time2(j, "ctime", &a->ctime);
	jb_u64(j, "blocksize", a->blocksize);
	jb_u64(j, "blocks", a->blocks);
	jb_end_obj(j);
}

/* v2 sattr: all ones means "do not set" */
static void g_sattr2(sattr *s)
{
	s->mode = rnd(2) ? rnd(010000) : ~0u;
	s->uid = rnd(3) == 0 ? rnd(70000) : ~0u;
	s->gid = rnd(3) == 0 ? rnd(70000) : ~0u;
	s->size = rnd(3) == 0 ? rnd32() >> 1 : ~0u;
	if (rnd(2)) {
		g_time2(&s->atime);
	} else {
		s->atime.seconds = ~0u;
		s->atime.useconds = ~0u;
	}
	if (rnd(2)) {
		g_time2(&s->mtime);
	} else {
		s->mtime.seconds = ~0u;
		s->mtime.useconds = ~0u;
	}
}

static void j_sattr2(struct jb *j, const sattr *s)
{
	jb_obj(j, "sattr");
	if (s->mode != ~0u)
		jb_u64(j, "mode", s->mode);
	if (s->uid != ~0u)
		jb_u64(j, "uid", s->uid);
	if (s->gid != ~0u)
		jb_u64(j, "gid", s->gid);
	if (s->size != ~0u)
		jb_u64(j, "size", s->size);
	if (s->atime.seconds != ~0u)
		j_time2(j, "atime", &s->atime);
	if (s->mtime.seconds != ~0u)
		j_time2(j, "mtime", &s->mtime);
	jb_end_obj(j);
}

static void g_dirop2(diropargs *d)
{
	g_fh2(&d->dir);
	d->name = new_name();
}

static uint64_t be32(const char *p)
{
	const uint8_t *b = (const uint8_t *)p;

	return (uint64_t)b[0] << 24 | (uint64_t)b[1] << 16 | (uint64_t)b[2] << 8 | b[3];
}

bool nfs2_call(XDR *x, struct jb *j, struct op *op)
{
	bool ok = true;

	scratch_off = 0;
	jb_obj(j, "args");
	switch (op->proc) {
	case 0: case 3: case 7:
		break;
	case 1: case 5: case 17: {
		nfs_fh fh;

		g_fh2(&fh);
		j_fh2(j, "fh", &fh);
		ok = xdr_nfs_fh(x, &fh);
		break;
	}
	case 2: {
		sattrargs a;

		g_fh2(&a.file);
		g_sattr2(&a.attributes);
		j_fh2(j, "fh", &a.file);
		j_sattr2(j, &a.attributes);
		ok = xdr_sattrargs(x, &a);
		break;
	}
	case 4: case 10: case 15: {
		diropargs d;

		g_dirop2(&d);
		j_fh2(j, "fh", &d.dir);
		jb_str(j, "name", d.name);
		ok = xdr_diropargs(x, &d);
		break;
	}
	case 6: {
		readargs a;

		g_fh2(&a.file);
		a.offset = rnd32();
		a.count = op->count;
		a.totalcount = rnd(2) ? 0 : rnd32();
		j_fh2(j, "fh", &a.file);
		jb_u64(j, "offset", a.offset);
		jb_u64(j, "count", a.count);
		jb_u64(j, "totalcount", a.totalcount);
		ok = xdr_readargs(x, &a);
		break;
	}
	case 8: {
		writeargs a;

		g_fh2(&a.file);
		a.beginoffset = rnd32();
		a.offset = rnd32();
		a.totalcount = rnd(2) ? 0 : rnd32();
		a.data.data_len = op->count;
		a.data.data_val = (char *)data_pattern;
		j_fh2(j, "fh", &a.file);
		jb_u64(j, "beginoffset", a.beginoffset);
		jb_u64(j, "offset", a.offset);
		jb_u64(j, "totalcount", a.totalcount);
		jb_u64(j, "data_len", a.data.data_len);
		ok = xdr_writeargs(x, &a);
		break;
	}
	case 9: case 14: {
		createargs a;

		g_dirop2(&a.where);
		g_sattr2(&a.attributes);
		j_fh2(j, "fh", &a.where.dir);
		jb_str(j, "name", a.where.name);
		j_sattr2(j, &a.attributes);
		ok = xdr_createargs(x, &a);
		break;
	}
	case 11: {
		renameargs a;

		g_dirop2(&a.from);
		g_dirop2(&a.to);
		j_fh2(j, "fh", &a.from.dir);
		jb_str(j, "name", a.from.name);
		j_fh2(j, "fh2", &a.to.dir);
		jb_str(j, "name2", a.to.name);
		ok = xdr_renameargs(x, &a);
		break;
	}
	case 12: {
		linkargs a;

		g_fh2(&a.from);
		g_dirop2(&a.to);
		j_fh2(j, "fh", &a.from);
		j_fh2(j, "fh2", &a.to.dir);
		jb_str(j, "name2", a.to.name);
		ok = xdr_linkargs(x, &a);
		break;
	}
	case 13: {
		symlinkargs a;
		char *path = scr(1100);

		g_dirop2(&a.from);
		gen_path(path, 1024);
		a.to = path;
		g_sattr2(&a.attributes);
		j_fh2(j, "fh", &a.from.dir);
		jb_str(j, "name", a.from.name);
		j_sattr2(j, &a.attributes);
		jb_str(j, "path", path);
		ok = xdr_symlinkargs(x, &a);
		break;
	}
	case 16: {
		readdirargs a;

		g_fh2(&a.dir);
		if (rnd(2))
			memset(a.cookie, 0, 4);
		else
			gen_bytes((uint8_t *)a.cookie, 4);
		a.count = rnd_range(512, 8192);
		j_fh2(j, "fh", &a.dir);
		jb_u64(j, "cookie", be32(a.cookie));
		jb_u64(j, "count", a.count);
		ok = xdr_readdirargs(x, &a);
		break;
	}
	default:
		ok = false;
	}
	jb_end_obj(j);
	return ok;
}

static const char *const nfs2_stat_names[] = {
	[0] = "NFS_OK", [1] = "NFSERR_PERM", [2] = "NFSERR_NOENT",
	[5] = "NFSERR_IO", [6] = "NFSERR_NXIO", [13] = "NFSERR_ACCES",
	[17] = "NFSERR_EXIST", [19] = "NFSERR_NODEV", [20] = "NFSERR_NOTDIR",
	[21] = "NFSERR_ISDIR", [27] = "NFSERR_FBIG", [28] = "NFSERR_NOSPC",
	[30] = "NFSERR_ROFS", [63] = "NFSERR_NAMETOOLONG",
	[66] = "NFSERR_NOTEMPTY", [69] = "NFSERR_DQUOT", [70] = "NFSERR_STALE",
	[99] = "NFSERR_WFLUSH",
};
static const uint32_t nfs2_errs[] = { 1, 2, 5, 6, 13, 17, 19, 20, 21, 27, 28, 30, 63, 66, 69, 70, 99 };

static entry ents2[64];

bool nfs2_reply(XDR *x, struct jb *j, struct op *op)
{
	uint32_t st = 0;
	bool ok;

	scratch_off = 0;
	jb_obj(j, "res");
	if (op->proc == 0 || op->proc == 3 || op->proc == 7) {
		jb_end_obj(j);
		return true;
	}
	if (op->err)
		st = nfs2_errs[rnd(sizeof(nfs2_errs) / sizeof(nfs2_errs[0]))];
	jb_u64(j, "status", st);
	if (nfs2_stat_names[st])
		jb_str(j, "status_name", nfs2_stat_names[st]);
	ok = xdr_nfsstat(x, (nfsstat *)&st);
	if (st) {
		jb_end_obj(j);
		return ok;
	}
	switch (op->proc) {
	case 1: case 2: case 8: {
		fattr a;

		g_fattr2(&a);
		j_fattr2(j, "attr", &a);
		ok = ok && xdr_fattr(x, &a);
		break;
	}
	case 4: case 9: case 14: {
		diropokres r;

		g_fh2(&r.file);
		g_fattr2(&r.attributes);
		j_fh2(j, "fh", &r.file);
		j_fattr2(j, "attr", &r.attributes);
		ok = ok && xdr_diropokres(x, &r);
		break;
	}
	case 5: {
		char *path = scr(1100);

		gen_path(path, 1024);
		jb_str(j, "path", path);
		ok = ok && xdr_nfspath(x, &path);
		break;
	}
	case 6: {
		readokres r;

		g_fattr2(&r.attributes);
		r.data.data_len = rnd(4) ? op->count : rnd(op->count + 1);
		r.data.data_val = (char *)data_pattern;
		j_fattr2(j, "attr", &r.attributes);
		jb_u64(j, "data_len", r.data.data_len);
		ok = ok && xdr_readokres(x, &r);
		break;
	}
	case 10: case 11: case 12: case 13: case 15:
		break;
	case 16: {
		uint32_t n = rnd(30);
		dirlist d;

		jb_arr(j, "entries");
		for (uint32_t i = 0; i < n; i++) {
			entry *e = &ents2[i];

			e->fileid = rnd32();
			e->name = new_name();
			gen_bytes((uint8_t *)e->cookie, 4);
			e->nextentry = i + 1 < n ? &ents2[i + 1] : NULL;
			jb_obj(j, NULL);
			jb_u64(j, "fileid", e->fileid);
			jb_u64(j, "cookie", be32(e->cookie));
			jb_str(j, "name", e->name);
			jb_end_obj(j);
		}
		jb_end_arr(j);
		d.entries = n ? &ents2[0] : NULL;
		d.eof = rnd(2);
		jb_u64(j, "entries_total", n);
		jb_bool(j, "entries_eof", d.eof);
		ok = ok && xdr_dirlist(x, &d);
		break;
	}
	case 17: {
		statfsokres r;

		r.tsize = 8192;
		r.bsize = 512u << rnd(4);
		r.blocks = rnd32();
		r.bfree = rnd32();
		r.bavail = rnd32();
		jb_obj(j, "statfs");
		jb_u64(j, "tsize", r.tsize);
		jb_u64(j, "bsize", r.bsize);
		jb_u64(j, "blocks", r.blocks);
		jb_u64(j, "bfree", r.bfree);
		jb_u64(j, "bavail", r.bavail);
		jb_end_obj(j);
		ok = ok && xdr_statfsokres(x, &r);
		break;
	}
	default:
		ok = false;
	}
	jb_end_obj(j);
	return ok;
}
