/*
 * test_nfs.c - NFSv2 (RFC 1094) and NFSv3 (RFC 1813) argument and result
 * decoders, against wire bytes built by hand from the RFCs' XDR.
 *
 * Every procedure, both directions, every field and have bit; then cuts by
 * the snaplen (truncated, fields before the cut kept), lying lengths and
 * bad union discriminants (malformed), and the values we keep leniently;
 * with no_attrs, the same results at every cut, attribute values skipped.
 * The output structs are filled with garbage before each decode, as the
 * real caller does not clear them.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/decode_int.h"

/* ------------------------------------------------------- harness -- */

#include "tests/lib/check.h"

/* big-endian XDR writer */
struct wb {
	uint32_t n;
	uint8_t b[16384];
};

static void
w32(struct wb *w, uint32_t v)
{
	assert(w->n + 4 <= sizeof w->b);
	w->b[w->n++] = (uint8_t)(v >> 24);
	w->b[w->n++] = (uint8_t)(v >> 16);
	w->b[w->n++] = (uint8_t)(v >> 8);
	w->b[w->n++] = (uint8_t)v;
}

static void
w64(struct wb *w, uint64_t v)
{
	w32(w, (uint32_t)(v >> 32));
	w32(w, (uint32_t)v);
}

static void
wbytes(struct wb *w, const void *p, uint32_t n)
{
	assert(w->n + n + 3 <= sizeof w->b);
	memcpy(w->b + w->n, p, n);
	w->n += n;
	while (w->n % 4)
		w->b[w->n++] = 0;
}

static void
wstr(struct wb *w, const char *s)
{
	w32(w, (uint32_t)strlen(s));
	wbytes(w, s, (uint32_t)strlen(s));
}

static void
fh_pattern(uint8_t *out, uint8_t seed, uint32_t len)
{
	for (uint32_t i = 0; i < len; i++)
		out[i] = (uint8_t)(seed + i * 7);
}

static void
wfh3(struct wb *w, uint8_t seed, uint32_t len)
{
	uint8_t d[NFS_FHSIZE_MAX];

	fh_pattern(d, seed, len);
	w32(w, len);
	wbytes(w, d, len);
}

static void
wfh2(struct wb *w, uint8_t seed)
{
	uint8_t d[32];

	fh_pattern(d, seed, 32);
	wbytes(w, d, 32);
}

static bool
fh_is(const struct nfs_fh *fh, uint8_t seed, uint32_t len)
{
	uint8_t d[NFS_FHSIZE_MAX];

	fh_pattern(d, seed, len);
	return fh->len == len && memcmp(fh->data, d, len) == 0;
}

static bool
name_is(const struct nfs_name *n, const char *s)
{
	return n->len == strlen(s) && strcmp(n->s, s) == 0;
}

static bool
path_is(const struct nfs_path *p, const char *s)
{
	return p->len == strlen(s) && strcmp(p->s, s) == 0;
}

static const uint8_t verf_a[8] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4 };

/* fattr3 with values derived from seed s */
static void
wfattr3(struct wb *w, uint32_t s)
{
	w32(w, s % 7 + 1);
	w32(w, 0644 + s);
	w32(w, 2 + s);
	w32(w, 1000 + s);
	w32(w, 2000 + s);
	w64(w, 0x100000000ull + s);
	w64(w, 0x200000000ull + s);
	w32(w, 3 + s);
	w32(w, 4 + s);
	w64(w, 0x1122334455667788ull + s);
	w64(w, 0x99aabbccddeeff00ull + s);
	w32(w, 0x5000 + s); w32(w, 100 + s);
	w32(w, 0x6000 + s); w32(w, 200 + s);
	w32(w, 0x7000 + s); w32(w, 300 + s);
}

static bool
fattr3_is(const struct nfs_fattr *a, uint32_t s)
{
	return a->type == s % 7 + 1 && a->mode == 0644 + s &&
	       a->nlink == 2 + s && a->uid == 1000 + s && a->gid == 2000 + s &&
	       a->size == 0x100000000ull + s && a->used == 0x200000000ull + s &&
	       a->rdev_major == 3 + s && a->rdev_minor == 4 + s &&
	       a->fsid == 0x1122334455667788ull + s &&
	       a->fileid == 0x99aabbccddeeff00ull + s &&
	       a->atime.sec == 0x5000 + s && a->atime.nsec == 100 + s &&
	       a->mtime.sec == 0x6000 + s && a->mtime.nsec == 200 + s &&
	       a->ctime.sec == 0x7000 + s && a->ctime.nsec == 300 + s &&
	       a->blocksize == 0 && a->blocks == 0;
}

/* post_op_attr */
static void
wpost(struct wb *w, bool present, uint32_t s)
{
	w32(w, present);
	if (present)
		wfattr3(w, s);
}

/* wcc_data: before (size/mtime/ctime from s), after fattr3 seed s + 1 */
static void
wwcc(struct wb *w, bool before, bool after, uint32_t s)
{
	w32(w, before);
	if (before) {
		w64(w, 0x1000 + s);
		w32(w, 0x11 + s); w32(w, 0x22 + s);
		w32(w, 0x33 + s); w32(w, 0x44 + s);
	}
	wpost(w, after, s + 1);
}

static bool
wcc_is(const struct nfs_wcc *w, bool before, bool after, uint32_t s)
{
	if (w->have_before != before || w->have_after != after)
		return false;
	if (before && !(w->before.size == 0x1000 + s &&
			w->before.mtime.sec == 0x11 + s &&
			w->before.mtime.nsec == 0x22 + s &&
			w->before.ctime.sec == 0x33 + s &&
			w->before.ctime.nsec == 0x44 + s))
		return false;
	return !after || fattr3_is(&w->after, s + 1);
}

/* sattr3 from a spec (have bits say what is set) */
static void
wsattr3(struct wb *w, const struct nfs_sattr *s)
{
	w32(w, !!(s->have & SATTR_MODE));
	if (s->have & SATTR_MODE)
		w32(w, s->mode);
	w32(w, !!(s->have & SATTR_UID));
	if (s->have & SATTR_UID)
		w32(w, s->uid);
	w32(w, !!(s->have & SATTR_GID));
	if (s->have & SATTR_GID)
		w32(w, s->gid);
	w32(w, !!(s->have & SATTR_SIZE));
	if (s->have & SATTR_SIZE)
		w64(w, s->size);
	if (s->have & SATTR_ATIME) {
		w32(w, 2); w32(w, s->atime.sec); w32(w, s->atime.nsec);
	} else {
		w32(w, !!(s->have & SATTR_ATIME_SERVER));
	}
	if (s->have & SATTR_MTIME) {
		w32(w, 2); w32(w, s->mtime.sec); w32(w, s->mtime.nsec);
	} else {
		w32(w, !!(s->have & SATTR_MTIME_SERVER));
	}
}

static bool
sattr_is(const struct nfs_sattr *a, const struct nfs_sattr *e)
{
	return a->have == e->have &&
	       (!(e->have & SATTR_MODE) || a->mode == e->mode) &&
	       (!(e->have & SATTR_UID) || a->uid == e->uid) &&
	       (!(e->have & SATTR_GID) || a->gid == e->gid) &&
	       (!(e->have & SATTR_SIZE) || a->size == e->size) &&
	       (!(e->have & SATTR_ATIME) || (a->atime.sec == e->atime.sec &&
					     a->atime.nsec == e->atime.nsec)) &&
	       (!(e->have & SATTR_MTIME) || (a->mtime.sec == e->mtime.sec &&
					     a->mtime.nsec == e->mtime.nsec));
}

static const struct nfs_sattr sattr_a = {
	.have = SATTR_MODE | SATTR_GID | SATTR_SIZE | SATTR_ATIME_SERVER |
		SATTR_MTIME,
	.mode = 01755, .gid = 4242, .size = 0x123456789aull,
	.mtime = { 0x5f000000, 999999999 },
};
static const struct nfs_sattr sattr_b = {
	.have = SATTR_UID | SATTR_ATIME | SATTR_MTIME_SERVER,
	.uid = 65534, .atime = { 0x60000001, 7 },
};

/* decode a call / reply of wire length w->n with cap bytes captured */
static bool
run_call(int vers, uint32_t proc, const struct wb *w, uint32_t cap,
	 uint32_t len, struct xdr *c, struct nfs_call *a)
{
	memset(a, 0xa5, sizeof *a);
	a->have = 0;
	xdr_init(c, w->b, cap, len);
	if (vers == 3)
		return nfs3_decode_call(c, proc, a);
	return nfs2_decode_call(c, proc, a);
}

static bool
run_reply(int vers, uint32_t proc, const struct wb *w, uint32_t cap,
	  uint32_t len, struct xdr *c, struct nfs_reply *r)
{
	memset(r, 0xa5, sizeof *r);
	r->have = 0;
	xdr_init(c, w->b, cap, len);
	if (vers == 3)
		return nfs3_decode_reply(c, proc, r);
	return nfs2_decode_reply(c, proc, r);
}

/* fully decoded, every byte consumed */
static bool
all_ok(bool ok, const struct xdr *c, const struct wb *w)
{
	return ok && c->err == XDR_OK && c->off == w->n;
}

/* ------------------------------------------------------ v3 calls -- */

static void
test_v3_calls(struct wb *w, struct nfs_call *a)
{
	static const uint32_t fh_only[] = {
		NFS3_GETATTR, NFS3_READLINK, NFS3_FSSTAT, NFS3_FSINFO,
		NFS3_PATHCONF,
	};
	static const uint32_t dirop[] = { NFS3_LOOKUP, NFS3_REMOVE,
					  NFS3_RMDIR };
	struct xdr c;
	bool ok;

	/* NULL: void */
	w->n = 0;
	ok = run_call(3, NFS3_NULL, w, 0, 0, &c, a);
	CHECK(all_ok(ok, &c, w) && a->have == 0);

	/* GETATTR3args { nfs_fh3 object; } and the other fh-only args */
	for (size_t i = 0; i < sizeof fh_only / sizeof fh_only[0]; i++) {
		w->n = 0;
		wfh3(w, (uint8_t)(0x10 + i), 28 + (uint32_t)i);
		ok = run_call(3, fh_only[i], w, w->n, w->n, &c, a);
		CHECK(all_ok(ok, &c, w) && a->have == NFSC_FH);
		CHECK(fh_is(&a->fh, (uint8_t)(0x10 + i), 28 + (uint32_t)i));
	}

	/* SETATTR3args: fh, sattr3, guard (check TRUE + ctime) */
	w->n = 0;
	wfh3(w, 0x21, 64);
	wsattr3(w, &sattr_a);
	w32(w, 1); w32(w, 0x61234567); w32(w, 123456789);
	ok = run_call(3, NFS3_SETATTR, w, w->n, w->n, &c, a);
	CHECK(all_ok(ok, &c, w));
	CHECK(a->have == (NFSC_FH | NFSC_SATTR | NFSC_GUARD));
	CHECK(fh_is(&a->fh, 0x21, 64) && sattr_is(&a->sattr, &sattr_a));
	CHECK(a->guard.sec == 0x61234567 && a->guard.nsec == 123456789);
	/* guard FALSE, the other sattr3 arms */
	w->n = 0;
	wfh3(w, 0x22, 8);
	wsattr3(w, &sattr_b);
	w32(w, 0);
	ok = run_call(3, NFS3_SETATTR, w, w->n, w->n, &c, a);
	CHECK(all_ok(ok, &c, w) && a->have == (NFSC_FH | NFSC_SATTR));
	CHECK(sattr_is(&a->sattr, &sattr_b));
	/* nothing set */
	w->n = 0;
	wfh3(w, 0x22, 8);
	for (int i = 0; i < 6; i++)
		w32(w, 0);
	w32(w, 0);
	ok = run_call(3, NFS3_SETATTR, w, w->n, w->n, &c, a);
	CHECK(all_ok(ok, &c, w) && a->sattr.have == 0);

	/* diropargs3 { nfs_fh3 dir; filename3 name; } */
	for (size_t i = 0; i < sizeof dirop / sizeof dirop[0]; i++) {
		w->n = 0;
		wfh3(w, 0x30, 32);
		wstr(w, "lookup.name");
		ok = run_call(3, dirop[i], w, w->n, w->n, &c, a);
		CHECK(all_ok(ok, &c, w) && a->have == (NFSC_FH | NFSC_NAME));
		CHECK(fh_is(&a->fh, 0x30, 32) &&
			 name_is(&a->name, "lookup.name"));
	}
	/* empty name, 255-byte name */
	{
		char longname[256];

		memset(longname, 'x', 255);
		longname[255] = '\0';
		w->n = 0;
		wfh3(w, 0x30, 0);
		wstr(w, longname);
		ok = run_call(3, NFS3_LOOKUP, w, w->n, w->n, &c, a);
		CHECK(all_ok(ok, &c, w) && a->fh.len == 0 &&
			 name_is(&a->name, longname));
	}

	/* ACCESS3args { nfs_fh3 object; uint32 access; } */
	w->n = 0;
	wfh3(w, 0x40, 36);
	w32(w, 0x3f);
	ok = run_call(3, NFS3_ACCESS, w, w->n, w->n, &c, a);
	CHECK(all_ok(ok, &c, w) && a->have == (NFSC_FH | NFSC_ACCESS));
	CHECK(fh_is(&a->fh, 0x40, 36) && a->access == 0x3f);

	/* READ3args / COMMIT3args { fh; offset3; count3 } */
	for (int i = 0; i < 2; i++) {
		uint32_t proc = i ? NFS3_COMMIT : NFS3_READ;

		w->n = 0;
		wfh3(w, 0x50, 20);
		w64(w, 0x0000000180000000ull + (uint64_t)i);
		w32(w, 32768 + (uint32_t)i);
		ok = run_call(3, proc, w, w->n, w->n, &c, a);
		CHECK(all_ok(ok, &c, w) &&
			 a->have == (NFSC_FH | NFSC_OFFSET | NFSC_COUNT));
		CHECK(fh_is(&a->fh, 0x50, 20) &&
			 a->offset == 0x0000000180000000ull + (uint64_t)i &&
			 a->count == 32768 + (uint32_t)i);
	}

	/* WRITE3args { fh; offset; count; stable_how; opaque data<> } */
	{
		uint8_t data[37];

		memset(data, 0x77, sizeof data);
		w->n = 0;
		wfh3(w, 0x60, 32);
		w64(w, 0xfffffffffffff000ull);
		w32(w, 37);
		w32(w, NFS3_FILE_SYNC);
		w32(w, 37);
		wbytes(w, data, 37);
		ok = run_call(3, NFS3_WRITE, w, w->n, w->n, &c, a);
		CHECK(all_ok(ok, &c, w));
		CHECK(a->have == (NFSC_FH | NFSC_OFFSET | NFSC_COUNT |
				     NFSC_STABLE | NFSC_DATA_LEN));
		CHECK(fh_is(&a->fh, 0x60, 32) &&
			 a->offset == 0xfffffffffffff000ull &&
			 a->count == 37 && a->stable == NFS3_FILE_SYNC &&
			 a->data_len == 37);
		/* header only: 32 KB of data on the wire, none captured */
		w->n = 0;
		wfh3(w, 0x61, 32);
		w64(w, 65536);
		w32(w, 32768);
		w32(w, NFS3_UNSTABLE);
		w32(w, 32768);
		ok = run_call(3, NFS3_WRITE, w, w->n, w->n + 32768, &c, a);
		CHECK(ok && c.err == XDR_OK);
		CHECK(a->have == (NFSC_FH | NFSC_OFFSET | NFSC_COUNT |
				     NFSC_STABLE | NFSC_DATA_LEN));
		CHECK(fh_is(&a->fh, 0x61, 32) && a->offset == 65536 &&
			 a->count == 32768 && a->stable == NFS3_UNSTABLE &&
			 a->data_len == 32768);
	}

	/* CREATE3args { diropargs3 where; createhow3 how; } */
	for (uint32_t mode = 0; mode < 2; mode++) {
		w->n = 0;
		wfh3(w, 0x70, 32);
		wstr(w, "newfile");
		w32(w, mode);
		wsattr3(w, &sattr_a);
		ok = run_call(3, NFS3_CREATE, w, w->n, w->n, &c, a);
		CHECK(all_ok(ok, &c, w));
		CHECK(a->have == (NFSC_FH | NFSC_NAME | NFSC_CREATEMODE |
				     NFSC_SATTR));
		CHECK(fh_is(&a->fh, 0x70, 32) &&
			 name_is(&a->name, "newfile") &&
			 a->createmode == mode &&
			 sattr_is(&a->sattr, &sattr_a));
	}
	w->n = 0;
	wfh3(w, 0x71, 32);
	wstr(w, "excl");
	w32(w, 2);
	wbytes(w, verf_a, 8);
	ok = run_call(3, NFS3_CREATE, w, w->n, w->n, &c, a);
	CHECK(all_ok(ok, &c, w));
	CHECK(a->have == (NFSC_FH | NFSC_NAME | NFSC_CREATEMODE |
			     NFSC_CREATEVERF));
	CHECK(a->createmode == 2 && memcmp(a->createverf, verf_a, 8) == 0);

	/* MKDIR3args { diropargs3 where; sattr3 attributes; } */
	w->n = 0;
	wfh3(w, 0x72, 16);
	wstr(w, "dir");
	wsattr3(w, &sattr_b);
	ok = run_call(3, NFS3_MKDIR, w, w->n, w->n, &c, a);
	CHECK(all_ok(ok, &c, w) &&
		 a->have == (NFSC_FH | NFSC_NAME | NFSC_SATTR));
	CHECK(name_is(&a->name, "dir") && sattr_is(&a->sattr, &sattr_b));

	/* SYMLINK3args { where; symlinkdata3 { sattr3; nfspath3 } } */
	w->n = 0;
	wfh3(w, 0x73, 16);
	wstr(w, "link");
	wsattr3(w, &sattr_a);
	wstr(w, "../some/target/path");
	ok = run_call(3, NFS3_SYMLINK, w, w->n, w->n, &c, a);
	CHECK(all_ok(ok, &c, w) &&
		 a->have == (NFSC_FH | NFSC_NAME | NFSC_SATTR | NFSC_PATH));
	CHECK(name_is(&a->name, "link") && sattr_is(&a->sattr, &sattr_a) &&
		 path_is(&a->path, "../some/target/path"));

	/* MKNOD3args: CHR (devicedata3), FIFO (sattr3), REG (void) */
	w->n = 0;
	wfh3(w, 0x74, 16);
	wstr(w, "tty0");
	w32(w, 4);	/* NF3CHR */
	wsattr3(w, &sattr_b);
	w32(w, 136); w32(w, 5);
	ok = run_call(3, NFS3_MKNOD, w, w->n, w->n, &c, a);
	CHECK(all_ok(ok, &c, w) && a->have == (NFSC_FH | NFSC_NAME |
				  NFSC_FTYPE | NFSC_SATTR | NFSC_SPEC));
	CHECK(a->ftype == 4 && sattr_is(&a->sattr, &sattr_b) &&
		 a->spec_major == 136 && a->spec_minor == 5);
	w->n = 0;
	wfh3(w, 0x74, 16);
	wstr(w, "fifo");
	w32(w, 7);	/* NF3FIFO */
	wsattr3(w, &sattr_a);
	ok = run_call(3, NFS3_MKNOD, w, w->n, w->n, &c, a);
	CHECK(all_ok(ok, &c, w) && a->have == (NFSC_FH | NFSC_NAME |
						  NFSC_FTYPE | NFSC_SATTR));
	CHECK(a->ftype == 7 && sattr_is(&a->sattr, &sattr_a));
	w->n = 0;
	wfh3(w, 0x74, 16);
	wstr(w, "reg");
	w32(w, 1);	/* NF3REG: void arm */
	ok = run_call(3, NFS3_MKNOD, w, w->n, w->n, &c, a);
	CHECK(all_ok(ok, &c, w) &&
		 a->have == (NFSC_FH | NFSC_NAME | NFSC_FTYPE) && a->ftype == 1);

	/* RENAME3args { diropargs3 from; diropargs3 to; } */
	w->n = 0;
	wfh3(w, 0x80, 24);
	wstr(w, "old");
	wfh3(w, 0x81, 40);
	wstr(w, "new.name");
	ok = run_call(3, NFS3_RENAME, w, w->n, w->n, &c, a);
	CHECK(all_ok(ok, &c, w) && a->have == (NFSC_FH | NFSC_NAME |
						  NFSC_FH2 | NFSC_NAME2));
	CHECK(fh_is(&a->fh, 0x80, 24) && name_is(&a->name, "old") &&
		 fh_is(&a->fh2, 0x81, 40) && name_is(&a->name2, "new.name"));

	/* LINK3args { nfs_fh3 file; diropargs3 link; } */
	w->n = 0;
	wfh3(w, 0x82, 24);
	wfh3(w, 0x83, 28);
	wstr(w, "hardlink");
	ok = run_call(3, NFS3_LINK, w, w->n, w->n, &c, a);
	CHECK(all_ok(ok, &c, w) &&
		 a->have == (NFSC_FH | NFSC_FH2 | NFSC_NAME2));
	CHECK(fh_is(&a->fh, 0x82, 24) && fh_is(&a->fh2, 0x83, 28) &&
		 name_is(&a->name2, "hardlink"));

	/* READDIR3args { dir; cookie3; cookieverf3; count3 } */
	w->n = 0;
	wfh3(w, 0x90, 32);
	w64(w, 0x7fffffffffffffffull);
	wbytes(w, verf_a, 8);
	w32(w, 4096);
	ok = run_call(3, NFS3_READDIR, w, w->n, w->n, &c, a);
	CHECK(all_ok(ok, &c, w) && a->have == (NFSC_FH | NFSC_COOKIE |
				  NFSC_COOKIEVERF | NFSC_COUNT));
	CHECK(a->cookie == 0x7fffffffffffffffull &&
		 memcmp(a->cookieverf, verf_a, 8) == 0 && a->count == 4096);

	/* READDIRPLUS3args { dir; cookie; cookieverf; dircount; maxcount } */
	w->n = 0;
	wfh3(w, 0x91, 32);
	w64(w, 12345);
	wbytes(w, verf_a, 8);
	w32(w, 1024);
	w32(w, 32768);
	ok = run_call(3, NFS3_READDIRPLUS, w, w->n, w->n, &c, a);
	CHECK(all_ok(ok, &c, w) && a->have == (NFSC_FH | NFSC_COOKIE |
		 NFSC_COOKIEVERF | NFSC_DIRCOUNT | NFSC_MAXCOUNT));
	CHECK(a->cookie == 12345 && a->dircount == 1024 &&
		 a->maxcount == 32768);
}

/* ---------------------------------------------------- v3 replies -- */

#define NFS3ERR_NOENT 2
#define NFS3ERR_STALE 70

static void
test_v3_replies(struct wb *w, struct nfs_reply *r)
{
	static const uint32_t create_like[] = {
		NFS3_CREATE, NFS3_MKDIR, NFS3_SYMLINK, NFS3_MKNOD,
	};
	struct xdr c;
	bool ok;

	/* NULL: void */
	w->n = 0;
	ok = run_reply(3, NFS3_NULL, w, 0, 0, &c, r);
	CHECK(all_ok(ok, &c, w) && r->have == 0);

	/* GETATTR3res: ok -> fattr3; fail -> void */
	w->n = 0;
	w32(w, 0);
	wfattr3(w, 11);
	ok = run_reply(3, NFS3_GETATTR, w, w->n, w->n, &c, r);
	CHECK(all_ok(ok, &c, w) && r->have == (NFSR_STATUS | NFSR_ATTR));
	CHECK(r->status == 0 && fattr3_is(&r->attr, 11));
	w->n = 0;
	w32(w, NFS3ERR_STALE);
	ok = run_reply(3, NFS3_GETATTR, w, w->n, w->n, &c, r);
	CHECK(all_ok(ok, &c, w) && r->have == NFSR_STATUS &&
		 r->status == NFS3ERR_STALE);

	/* SETATTR3res: wcc_data on both arms */
	for (uint32_t st = 0; st < 2; st++) {
		w->n = 0;
		w32(w, st);
		wwcc(w, true, true, 20 + st);
		ok = run_reply(3, NFS3_SETATTR, w, w->n, w->n, &c, r);
		CHECK(all_ok(ok, &c, w) &&
			 r->have == (NFSR_STATUS | NFSR_WCC));
		CHECK(r->status == st && wcc_is(&r->wcc, true, true, 20 + st));
	}
	w->n = 0;
	w32(w, 0);
	wwcc(w, false, false, 0);
	ok = run_reply(3, NFS3_SETATTR, w, w->n, w->n, &c, r);
	CHECK(all_ok(ok, &c, w) && r->have == (NFSR_STATUS | NFSR_WCC) &&
		 wcc_is(&r->wcc, false, false, 0));

	/* LOOKUP3resok { fh; obj post_op_attr; dir post_op_attr } */
	w->n = 0;
	w32(w, 0);
	wfh3(w, 0xa0, 32);
	wpost(w, true, 30);
	wpost(w, true, 31);
	ok = run_reply(3, NFS3_LOOKUP, w, w->n, w->n, &c, r);
	CHECK(all_ok(ok, &c, w) && r->have == (NFSR_STATUS | NFSR_FH |
				  NFSR_ATTR | NFSR_DIR_ATTR));
	CHECK(fh_is(&r->fh, 0xa0, 32) && fattr3_is(&r->attr, 30) &&
		 fattr3_is(&r->dir_attr, 31));
	w->n = 0;
	w32(w, 0);
	wfh3(w, 0xa1, 12);
	wpost(w, false, 0);
	wpost(w, true, 32);
	ok = run_reply(3, NFS3_LOOKUP, w, w->n, w->n, &c, r);
	CHECK(all_ok(ok, &c, w) &&
		 r->have == (NFSR_STATUS | NFSR_FH | NFSR_DIR_ATTR));
	/* LOOKUP3resfail { dir post_op_attr } */
	w->n = 0;
	w32(w, NFS3ERR_NOENT);
	wpost(w, true, 33);
	ok = run_reply(3, NFS3_LOOKUP, w, w->n, w->n, &c, r);
	CHECK(all_ok(ok, &c, w) &&
		 r->have == (NFSR_STATUS | NFSR_DIR_ATTR));
	CHECK(r->status == NFS3ERR_NOENT && fattr3_is(&r->dir_attr, 33));

	/* ACCESS3res */
	w->n = 0;
	w32(w, 0);
	wpost(w, true, 40);
	w32(w, 0x1d);
	ok = run_reply(3, NFS3_ACCESS, w, w->n, w->n, &c, r);
	CHECK(all_ok(ok, &c, w) &&
		 r->have == (NFSR_STATUS | NFSR_ATTR | NFSR_ACCESS));
	CHECK(fattr3_is(&r->attr, 40) && r->access == 0x1d);
	w->n = 0;
	w32(w, NFS3ERR_STALE);
	wpost(w, false, 0);
	ok = run_reply(3, NFS3_ACCESS, w, w->n, w->n, &c, r);
	CHECK(all_ok(ok, &c, w) && r->have == NFSR_STATUS);

	/* READLINK3res */
	w->n = 0;
	w32(w, 0);
	wpost(w, true, 41);
	wstr(w, "/export/home/target");
	ok = run_reply(3, NFS3_READLINK, w, w->n, w->n, &c, r);
	CHECK(all_ok(ok, &c, w) &&
		 r->have == (NFSR_STATUS | NFSR_ATTR | NFSR_PATH));
	CHECK(path_is(&r->path, "/export/home/target"));
	w->n = 0;
	w32(w, 22);
	wpost(w, true, 42);
	ok = run_reply(3, NFS3_READLINK, w, w->n, w->n, &c, r);
	CHECK(all_ok(ok, &c, w) && r->have == (NFSR_STATUS | NFSR_ATTR));

	/* READ3resok { attr; count; eof; data<> } */
	{
		uint8_t data[100];

		memset(data, 0xaa, sizeof data);
		w->n = 0;
		w32(w, 0);
		wpost(w, true, 50);
		w32(w, 100);
		w32(w, 1);
		w32(w, 100);
		wbytes(w, data, 100);
		ok = run_reply(3, NFS3_READ, w, w->n, w->n, &c, r);
		CHECK(all_ok(ok, &c, w) && r->have == (NFSR_STATUS |
			 NFSR_ATTR | NFSR_COUNT | NFSR_EOF | NFSR_DATA_LEN));
		CHECK(fattr3_is(&r->attr, 50) && r->count == 100 &&
			 r->eof && r->data_len == 100);
		/* header only (snaplen 128-style): data not captured */
		w->n = 0;
		w32(w, 0);
		wpost(w, false, 0);
		w32(w, 32768);
		w32(w, 0);
		w32(w, 32768);
		ok = run_reply(3, NFS3_READ, w, w->n, w->n + 32768, &c, r);
		CHECK(ok && c.err == XDR_OK && r->have == (NFSR_STATUS |
			 NFSR_COUNT | NFSR_EOF | NFSR_DATA_LEN));
		CHECK(r->count == 32768 && !r->eof && r->data_len == 32768);
		w->n = 0;
		w32(w, 5);
		wpost(w, true, 51);
		ok = run_reply(3, NFS3_READ, w, w->n, w->n, &c, r);
		CHECK(all_ok(ok, &c, w) &&
			 r->have == (NFSR_STATUS | NFSR_ATTR) && r->status == 5);
	}

	/* WRITE3resok { wcc; count; committed; verf } */
	w->n = 0;
	w32(w, 0);
	wwcc(w, true, true, 60);
	w32(w, 4096);
	w32(w, NFS3_DATA_SYNC);
	wbytes(w, verf_a, 8);
	ok = run_reply(3, NFS3_WRITE, w, w->n, w->n, &c, r);
	CHECK(all_ok(ok, &c, w) && r->have == (NFSR_STATUS | NFSR_WCC |
				  NFSR_COUNT | NFSR_COMMITTED | NFSR_VERF));
	CHECK(wcc_is(&r->wcc, true, true, 60) && r->count == 4096 &&
		 r->committed == NFS3_DATA_SYNC &&
		 memcmp(r->verf, verf_a, 8) == 0);
	w->n = 0;
	w32(w, 28);	/* NFS3ERR_NOSPC */
	wwcc(w, true, false, 61);
	ok = run_reply(3, NFS3_WRITE, w, w->n, w->n, &c, r);
	CHECK(all_ok(ok, &c, w) && r->have == (NFSR_STATUS | NFSR_WCC) &&
		 wcc_is(&r->wcc, true, false, 61));

	/* CREATE/MKDIR/SYMLINK/MKNOD: post_op_fh3, post_op_attr, dir_wcc */
	for (size_t i = 0; i < 4; i++) {
		w->n = 0;
		w32(w, 0);
		w32(w, 1);
		wfh3(w, (uint8_t)(0xb0 + i), 32);
		wpost(w, true, 70 + (uint32_t)i);
		wwcc(w, true, true, 80 + (uint32_t)i);
		ok = run_reply(3, create_like[i], w, w->n, w->n, &c, r);
		CHECK(all_ok(ok, &c, w) && r->have == (NFSR_STATUS |
			 NFSR_FH | NFSR_ATTR | NFSR_DIR_WCC));
		CHECK(fh_is(&r->fh, (uint8_t)(0xb0 + i), 32) &&
			 fattr3_is(&r->attr, 70 + (uint32_t)i) &&
			 wcc_is(&r->dir_wcc, true, true, 80 + (uint32_t)i));
		/* no handle, no attributes */
		w->n = 0;
		w32(w, 0);
		w32(w, 0);
		wpost(w, false, 0);
		wwcc(w, false, true, 90);
		ok = run_reply(3, create_like[i], w, w->n, w->n, &c, r);
		CHECK(all_ok(ok, &c, w) &&
			 r->have == (NFSR_STATUS | NFSR_DIR_WCC));
		/* resfail { dir_wcc } */
		w->n = 0;
		w32(w, 17);	/* NFS3ERR_EXIST */
		wwcc(w, true, true, 91);
		ok = run_reply(3, create_like[i], w, w->n, w->n, &c, r);
		CHECK(all_ok(ok, &c, w) &&
			 r->have == (NFSR_STATUS | NFSR_DIR_WCC) &&
			 r->status == 17 && wcc_is(&r->dir_wcc, true, true, 91));
	}

	/* REMOVE / RMDIR: dir_wcc on both arms */
	for (uint32_t st = 0; st < 2; st++) {
		uint32_t proc = st ? NFS3_RMDIR : NFS3_REMOVE;

		w->n = 0;
		w32(w, st ? 66 : 0);	/* NFS3ERR_NOTEMPTY */
		wwcc(w, true, true, 100 + st);
		ok = run_reply(3, proc, w, w->n, w->n, &c, r);
		CHECK(all_ok(ok, &c, w) &&
			 r->have == (NFSR_STATUS | NFSR_DIR_WCC) &&
			 wcc_is(&r->dir_wcc, true, true, 100 + st));
	}

	/* RENAME3res { fromdir_wcc; todir_wcc } */
	w->n = 0;
	w32(w, 0);
	wwcc(w, true, true, 110);
	wwcc(w, false, true, 120);
	ok = run_reply(3, NFS3_RENAME, w, w->n, w->n, &c, r);
	CHECK(all_ok(ok, &c, w) && r->have == (NFSR_STATUS |
				  NFSR_DIR_WCC | NFSR_DIR_WCC2));
	CHECK(wcc_is(&r->dir_wcc, true, true, 110) &&
		 wcc_is(&r->dir_wcc2, false, true, 120));

	/* LINK3res { file post_op_attr; linkdir_wcc } */
	w->n = 0;
	w32(w, 0);
	wpost(w, true, 130);
	wwcc(w, true, true, 131);
	ok = run_reply(3, NFS3_LINK, w, w->n, w->n, &c, r);
	CHECK(all_ok(ok, &c, w) &&
		 r->have == (NFSR_STATUS | NFSR_ATTR | NFSR_DIR_WCC));
	CHECK(fattr3_is(&r->attr, 130) &&
		 wcc_is(&r->dir_wcc, true, true, 131));

	/* FSSTAT3resok */
	w->n = 0;
	w32(w, 0);
	wpost(w, true, 140);
	w64(w, 1000000000000ull); w64(w, 500000000000ull);
	w64(w, 400000000000ull); w64(w, 1000000); w64(w, 900000);
	w64(w, 800000); w32(w, 30);
	ok = run_reply(3, NFS3_FSSTAT, w, w->n, w->n, &c, r);
	CHECK(all_ok(ok, &c, w) &&
		 r->have == (NFSR_STATUS | NFSR_ATTR | NFSR_FSSTAT));
	CHECK(r->fsstat.tbytes == 1000000000000ull &&
		 r->fsstat.fbytes == 500000000000ull &&
		 r->fsstat.abytes == 400000000000ull &&
		 r->fsstat.tfiles == 1000000 && r->fsstat.ffiles == 900000 &&
		 r->fsstat.afiles == 800000 && r->fsstat.invarsec == 30);
	w->n = 0;
	w32(w, NFS3ERR_STALE);
	wpost(w, false, 0);
	ok = run_reply(3, NFS3_FSSTAT, w, w->n, w->n, &c, r);
	CHECK(all_ok(ok, &c, w) && r->have == NFSR_STATUS);

	/* FSINFO3resok */
	w->n = 0;
	w32(w, 0);
	wpost(w, true, 150);
	w32(w, 1048576); w32(w, 65536); w32(w, 4096);
	w32(w, 1048576); w32(w, 32768); w32(w, 512);
	w32(w, 8192); w64(w, 0x7fffffffffffffffull);
	w32(w, 0); w32(w, 1);
	w32(w, 0x1b);
	ok = run_reply(3, NFS3_FSINFO, w, w->n, w->n, &c, r);
	CHECK(all_ok(ok, &c, w) &&
		 r->have == (NFSR_STATUS | NFSR_ATTR | NFSR_FSINFO));
	CHECK(r->fsinfo.rtmax == 1048576 && r->fsinfo.rtpref == 65536 &&
		 r->fsinfo.rtmult == 4096 && r->fsinfo.wtmax == 1048576 &&
		 r->fsinfo.wtpref == 32768 && r->fsinfo.wtmult == 512 &&
		 r->fsinfo.dtpref == 8192 &&
		 r->fsinfo.maxfilesize == 0x7fffffffffffffffull &&
		 r->fsinfo.time_delta.sec == 0 &&
		 r->fsinfo.time_delta.nsec == 1 &&
		 r->fsinfo.properties == 0x1b);
	w->n = 0;
	w32(w, 0x41414141);
	wpost(w, true, 151);
	ok = run_reply(3, NFS3_FSINFO, w, w->n, w->n, &c, r);
	CHECK(all_ok(ok, &c, w) && r->have == (NFSR_STATUS | NFSR_ATTR) &&
		 r->status == 0x41414141);

	/* PATHCONF3resok */
	w->n = 0;
	w32(w, 0);
	wpost(w, false, 0);
	w32(w, 32000); w32(w, 255);
	w32(w, 1); w32(w, 1); w32(w, 0); w32(w, 1);
	ok = run_reply(3, NFS3_PATHCONF, w, w->n, w->n, &c, r);
	CHECK(all_ok(ok, &c, w) &&
		 r->have == (NFSR_STATUS | NFSR_PATHCONF));
	CHECK(r->pathconf.linkmax == 32000 && r->pathconf.name_max == 255 &&
		 r->pathconf.no_trunc && r->pathconf.chown_restricted &&
		 !r->pathconf.case_insensitive && r->pathconf.case_preserving);

	/* COMMIT3res { wcc; verf on ok } */
	w->n = 0;
	w32(w, 0);
	wwcc(w, true, true, 160);
	wbytes(w, verf_a, 8);
	ok = run_reply(3, NFS3_COMMIT, w, w->n, w->n, &c, r);
	CHECK(all_ok(ok, &c, w) &&
		 r->have == (NFSR_STATUS | NFSR_WCC | NFSR_VERF));
	CHECK(wcc_is(&r->wcc, true, true, 160) &&
		 memcmp(r->verf, verf_a, 8) == 0);
	w->n = 0;
	w32(w, 5);
	wwcc(w, false, false, 0);
	ok = run_reply(3, NFS3_COMMIT, w, w->n, w->n, &c, r);
	CHECK(all_ok(ok, &c, w) && r->have == (NFSR_STATUS | NFSR_WCC));
}

/* READDIR / READDIRPLUS: entry lists */
static void
wentry3(struct wb *w, uint32_t i, bool plus, bool attr, bool fh)
{
	char name[32];

	snprintf(name, sizeof name, "entry-%u", i);
	w32(w, 1);	/* value follows */
	w64(w, 0x5500000000ull + i);
	wstr(w, name);
	w64(w, 0xc00c1e0000ull + i);
	if (!plus)
		return;
	wpost(w, attr, 200 + i);
	w32(w, fh);
	if (fh)
		wfh3(w, (uint8_t)i, 32);
}

/* A READDIRPLUS3resok with four entries: with and without attributes and
 * handles. */
static void
wreaddirplus(struct wb *w)
{
	w->n = 0;
	w32(w, 0);
	wpost(w, true, 180);
	wbytes(w, verf_a, 8);
	wentry3(w, 0, true, true, true);
	wentry3(w, 1, true, false, true);
	wentry3(w, 2, true, true, false);
	wentry3(w, 3, true, false, false);
	w32(w, 0);
	w32(w, 1);
}

static bool
entry3_is(const struct nfs_entry *e, uint32_t i, bool attr, bool fh)
{
	char name[32];

	snprintf(name, sizeof name, "entry-%u", i);
	return e->fileid == 0x5500000000ull + i && name_is(&e->name, name) &&
	       e->cookie == 0xc00c1e0000ull + i && e->have_attr == attr &&
	       e->have_fh == fh && (!attr || fattr3_is(&e->attr, 200 + i)) &&
	       (!fh || fh_is(&e->fh, (uint8_t)i, 32));
}

static void
test_v3_dirlists(struct wb *w, struct nfs_reply *r)
{
	struct xdr c;
	bool ok;

	/* READDIR3resok { dir_attributes; cookieverf; dirlist3 } */
	w->n = 0;
	w32(w, 0);
	wpost(w, true, 170);
	wbytes(w, verf_a, 8);
	for (uint32_t i = 0; i < 3; i++)
		wentry3(w, i, false, false, false);
	w32(w, 0);
	w32(w, 1);	/* eof */
	ok = run_reply(3, NFS3_READDIR, w, w->n, w->n, &c, r);
	CHECK(all_ok(ok, &c, w) && r->have == (NFSR_STATUS |
		 NFSR_DIR_ATTR | NFSR_COOKIEVERF | NFSR_ENTRIES));
	CHECK(fattr3_is(&r->dir_attr, 170) &&
		 memcmp(r->cookieverf, verf_a, 8) == 0 && r->nentries == 3 &&
		 r->entries_total == 3 && r->entries_eof);
	for (uint32_t i = 0; i < 3; i++)
		CHECK(entry3_is(&r->entries[i], i, false, false));
	/* resfail { dir_attributes } */
	w->n = 0;
	w32(w, 10003);	/* NFS3ERR_BAD_COOKIE */
	wpost(w, true, 171);
	ok = run_reply(3, NFS3_READDIR, w, w->n, w->n, &c, r);
	CHECK(all_ok(ok, &c, w) &&
		 r->have == (NFSR_STATUS | NFSR_DIR_ATTR));
	/* empty list, not eof */
	w->n = 0;
	w32(w, 0);
	wpost(w, false, 0);
	wbytes(w, verf_a, 8);
	w32(w, 0);
	w32(w, 0);
	ok = run_reply(3, NFS3_READDIR, w, w->n, w->n, &c, r);
	CHECK(all_ok(ok, &c, w) && r->nentries == 0 &&
		 r->entries_total == 0 && !r->entries_eof &&
		 r->have == (NFSR_STATUS | NFSR_COOKIEVERF | NFSR_ENTRIES));

	/* READDIRPLUS3resok: entries with and without attrs/handles */
	wreaddirplus(w);
	ok = run_reply(3, NFS3_READDIRPLUS, w, w->n, w->n, &c, r);
	CHECK(all_ok(ok, &c, w) && r->have == (NFSR_STATUS |
		 NFSR_DIR_ATTR | NFSR_COOKIEVERF | NFSR_ENTRIES));
	CHECK(r->nentries == 4 && r->entries_total == 4 && r->entries_eof);
	CHECK(entry3_is(&r->entries[0], 0, true, true));
	CHECK(entry3_is(&r->entries[1], 1, false, true));
	CHECK(entry3_is(&r->entries[2], 2, true, false));
	CHECK(entry3_is(&r->entries[3], 3, false, false));

	/* more entries than NFS_ENTRIES_MAX: first 128 kept, all counted */
	w->n = 0;
	w32(w, 0);
	wpost(w, false, 0);
	wbytes(w, verf_a, 8);
	for (uint32_t i = 0; i < NFS_ENTRIES_MAX + 5; i++)
		wentry3(w, i, false, false, false);
	w32(w, 0);
	w32(w, 1);
	ok = run_reply(3, NFS3_READDIR, w, w->n, w->n, &c, r);
	CHECK(all_ok(ok, &c, w) && r->nentries == NFS_ENTRIES_MAX &&
		 r->entries_total == NFS_ENTRIES_MAX + 5 && r->entries_eof);
	CHECK(entry3_is(&r->entries[NFS_ENTRIES_MAX - 1],
			   NFS_ENTRIES_MAX - 1, false, false));
}

/* ---------------------------------------------------------- v2 -- */

/* v2 fattr from seed s */
static void
wfattr2(struct wb *w, uint32_t s)
{
	w32(w, s % 5 + 1);
	w32(w, 0100644 + s);
	w32(w, 1 + s);
	w32(w, 500 + s);
	w32(w, 600 + s);
	w32(w, 0x10000 + s);
	w32(w, 4096);
	w32(w, 0x0801 + s);
	w32(w, 8 + s);
	w32(w, 0x77 + s);
	w32(w, 0x1234 + s);
	w32(w, 0x5000 + s); w32(w, 100 + s);
	w32(w, 0x6000 + s); w32(w, 200 + s);
	w32(w, 0x7000 + s); w32(w, 999999);
}

static bool
fattr2_is(const struct nfs_fattr *a, uint32_t s)
{
	return a->type == s % 5 + 1 && a->mode == 0100644 + s &&
	       a->nlink == 1 + s && a->uid == 500 + s && a->gid == 600 + s &&
	       a->size == 0x10000 + s && a->blocksize == 4096 &&
	       a->rdev_major == 0x0801 + s && a->rdev_minor == 0 &&
	       a->blocks == 8 + s && a->used == (uint64_t)(8 + s) * 4096 &&
	       a->fsid == 0x77 + s && a->fileid == 0x1234 + s &&
	       a->atime.sec == 0x5000 + s && a->atime.nsec == (100 + s) * 1000 &&
	       a->mtime.sec == 0x6000 + s && a->mtime.nsec == (200 + s) * 1000 &&
	       a->ctime.sec == 0x7000 + s && a->ctime.nsec == 999999000;
}

/* v2 sattr: mode set, uid/gid unset, size 0, atime unset, mtime set */
static void
wsattr2(struct wb *w)
{
	w32(w, 0755);
	w32(w, 0xffffffff);
	w32(w, 0xffffffff);
	w32(w, 0);
	w32(w, 0xffffffff); w32(w, 0xffffffff);
	w32(w, 0x5eadbeef); w32(w, 250000);
}

static bool
sattr2_is(const struct nfs_sattr *s)
{
	return s->have == (SATTR_MODE | SATTR_SIZE | SATTR_MTIME) &&
	       s->mode == 0755 && s->size == 0 &&
	       s->mtime.sec == 0x5eadbeef && s->mtime.nsec == 250000000;
}

static void
test_v2_calls(struct wb *w, struct nfs_call *a)
{
	static const uint32_t void_procs[] = { NFS2_NULL, NFS2_ROOT,
					       NFS2_WRITECACHE };
	static const uint32_t fh_only[] = { NFS2_GETATTR, NFS2_READLINK,
					    NFS2_STATFS };
	static const uint32_t dirop[] = { NFS2_LOOKUP, NFS2_REMOVE,
					  NFS2_RMDIR };
	struct xdr c;
	bool ok;

	for (size_t i = 0; i < 3; i++) {
		w->n = 0;
		ok = run_call(2, void_procs[i], w, 0, 0, &c, a);
		CHECK(all_ok(ok, &c, w) && a->have == 0);
	}
	for (size_t i = 0; i < 3; i++) {
		w->n = 0;
		wfh2(w, (uint8_t)(0x10 + i));
		ok = run_call(2, fh_only[i], w, w->n, w->n, &c, a);
		CHECK(all_ok(ok, &c, w) && a->have == NFSC_FH &&
			 fh_is(&a->fh, (uint8_t)(0x10 + i), 32));
	}
	for (size_t i = 0; i < 3; i++) {
		w->n = 0;
		wfh2(w, 0x20);
		wstr(w, "v2name");
		ok = run_call(2, dirop[i], w, w->n, w->n, &c, a);
		CHECK(all_ok(ok, &c, w) &&
			 a->have == (NFSC_FH | NFSC_NAME) &&
			 fh_is(&a->fh, 0x20, 32) && name_is(&a->name, "v2name"));
	}

	/* sattrargs { fhandle file; sattr attributes; } */
	w->n = 0;
	wfh2(w, 0x21);
	wsattr2(w);
	ok = run_call(2, NFS2_SETATTR, w, w->n, w->n, &c, a);
	CHECK(all_ok(ok, &c, w) && a->have == (NFSC_FH | NFSC_SATTR) &&
		 sattr2_is(&a->sattr));
	/* everything unset */
	w->n = 0;
	wfh2(w, 0x21);
	for (int i = 0; i < 8; i++)
		w32(w, 0xffffffff);
	ok = run_call(2, NFS2_SETATTR, w, w->n, w->n, &c, a);
	CHECK(all_ok(ok, &c, w) && a->sattr.have == 0);
	/* Sun "touch": mtime useconds 1000000 = both times to server time */
	w->n = 0;
	wfh2(w, 0x21);
	for (int i = 0; i < 4; i++)
		w32(w, 0xffffffff);
	w32(w, 0x1000); w32(w, 1000000);
	w32(w, 0x1000); w32(w, 1000000);
	ok = run_call(2, NFS2_SETATTR, w, w->n, w->n, &c, a);
	CHECK(all_ok(ok, &c, w) && a->sattr.have ==
		 (SATTR_ATIME_SERVER | SATTR_MTIME_SERVER));

	/* readargs { fhandle; offset; count; totalcount } */
	w->n = 0;
	wfh2(w, 0x22);
	w32(w, 0xfffff000);
	w32(w, 8192);
	w32(w, 8193);
	ok = run_call(2, NFS2_READ, w, w->n, w->n, &c, a);
	CHECK(all_ok(ok, &c, w) && a->have == (NFSC_FH | NFSC_OFFSET |
				  NFSC_COUNT | NFSC_TOTALCOUNT));
	CHECK(a->offset == 0xfffff000 && a->count == 8192 &&
		 a->totalcount == 8193);

	/* writeargs { fh; beginoffset; offset; totalcount; nfsdata } */
	{
		uint8_t data[10] = { 0 };

		w->n = 0;
		wfh2(w, 0x23);
		w32(w, 111);
		w32(w, 8192);
		w32(w, 333);
		w32(w, 10);
		wbytes(w, data, 10);
		ok = run_call(2, NFS2_WRITE, w, w->n, w->n, &c, a);
		CHECK(all_ok(ok, &c, w) && a->have == (NFSC_FH |
			 NFSC_BEGINOFFSET | NFSC_OFFSET | NFSC_TOTALCOUNT |
			 NFSC_DATA_LEN | NFSC_COUNT));
		CHECK(a->beginoffset == 111 && a->offset == 8192 &&
			 a->totalcount == 333 && a->data_len == 10 &&
			 a->count == 10);
		/* header only */
		w->n = 0;
		wfh2(w, 0x23);
		w32(w, 0); w32(w, 16384); w32(w, 8192); w32(w, 8192);
		ok = run_call(2, NFS2_WRITE, w, w->n, w->n + 8192, &c, a);
		CHECK(ok && c.err == XDR_OK && a->data_len == 8192 &&
			 a->count == 8192 && a->offset == 16384);
	}

	/* createargs { diropargs where; sattr attributes } (CREATE, MKDIR) */
	for (int i = 0; i < 2; i++) {
		w->n = 0;
		wfh2(w, 0x24);
		wstr(w, i ? "newdir" : "newfile");
		wsattr2(w);
		ok = run_call(2, i ? NFS2_MKDIR : NFS2_CREATE, w, w->n, w->n,
			      &c, a);
		CHECK(all_ok(ok, &c, w) &&
			 a->have == (NFSC_FH | NFSC_NAME | NFSC_SATTR));
		CHECK(name_is(&a->name, i ? "newdir" : "newfile") &&
			 sattr2_is(&a->sattr));
	}

	/* renameargs { diropargs from; diropargs to } */
	w->n = 0;
	wfh2(w, 0x25);
	wstr(w, "a");
	wfh2(w, 0x26);
	wstr(w, "bb");
	ok = run_call(2, NFS2_RENAME, w, w->n, w->n, &c, a);
	CHECK(all_ok(ok, &c, w) && a->have == (NFSC_FH | NFSC_NAME |
						  NFSC_FH2 | NFSC_NAME2));
	CHECK(fh_is(&a->fh, 0x25, 32) && name_is(&a->name, "a") &&
		 fh_is(&a->fh2, 0x26, 32) && name_is(&a->name2, "bb"));

	/* linkargs { fhandle from; diropargs to } */
	w->n = 0;
	wfh2(w, 0x27);
	wfh2(w, 0x28);
	wstr(w, "lnk");
	ok = run_call(2, NFS2_LINK, w, w->n, w->n, &c, a);
	CHECK(all_ok(ok, &c, w) &&
		 a->have == (NFSC_FH | NFSC_FH2 | NFSC_NAME2));
	CHECK(fh_is(&a->fh, 0x27, 32) && fh_is(&a->fh2, 0x28, 32) &&
		 name_is(&a->name2, "lnk"));

	/* symlinkargs { diropargs from; path to; sattr attributes } */
	w->n = 0;
	wfh2(w, 0x29);
	wstr(w, "sym");
	wstr(w, "/target");
	wsattr2(w);
	ok = run_call(2, NFS2_SYMLINK, w, w->n, w->n, &c, a);
	CHECK(all_ok(ok, &c, w) && a->have == (NFSC_FH | NFSC_NAME |
						  NFSC_PATH | NFSC_SATTR));
	CHECK(name_is(&a->name, "sym") && path_is(&a->path, "/target") &&
		 sattr2_is(&a->sattr));

	/* readdirargs { fhandle dir; nfscookie cookie; count } */
	w->n = 0;
	wfh2(w, 0x2a);
	w32(w, 0xfedcba98);
	w32(w, 1024);
	ok = run_call(2, NFS2_READDIR, w, w->n, w->n, &c, a);
	CHECK(all_ok(ok, &c, w) &&
		 a->have == (NFSC_FH | NFSC_COOKIE | NFSC_COUNT));
	CHECK(a->cookie == 0xfedcba98 && a->count == 1024);
}

static void
test_v2_replies(struct wb *w, struct nfs_reply *r)
{
	static const uint32_t attrstat[] = { NFS2_GETATTR, NFS2_SETATTR,
					     NFS2_WRITE };
	static const uint32_t diropres[] = { NFS2_LOOKUP, NFS2_CREATE,
					     NFS2_MKDIR };
	static const uint32_t stat_only[] = { NFS2_REMOVE, NFS2_RENAME,
					      NFS2_LINK, NFS2_SYMLINK,
					      NFS2_RMDIR };
	static const uint32_t void_procs[] = { NFS2_NULL, NFS2_ROOT,
					       NFS2_WRITECACHE };
	struct xdr c;
	bool ok;

	for (size_t i = 0; i < 3; i++) {
		w->n = 0;
		ok = run_reply(2, void_procs[i], w, 0, 0, &c, r);
		CHECK(all_ok(ok, &c, w) && r->have == 0);
	}
	/* attrstat */
	for (size_t i = 0; i < 3; i++) {
		w->n = 0;
		w32(w, 0);
		wfattr2(w, 10 + (uint32_t)i);
		ok = run_reply(2, attrstat[i], w, w->n, w->n, &c, r);
		CHECK(all_ok(ok, &c, w) &&
			 r->have == (NFSR_STATUS | NFSR_ATTR) &&
			 fattr2_is(&r->attr, 10 + (uint32_t)i));
		w->n = 0;
		w32(w, 70);	/* NFSERR_STALE */
		ok = run_reply(2, attrstat[i], w, w->n, w->n, &c, r);
		CHECK(all_ok(ok, &c, w) && r->have == NFSR_STATUS &&
			 r->status == 70);
	}
	/* diropres { fhandle file; fattr attributes } */
	for (size_t i = 0; i < 3; i++) {
		w->n = 0;
		w32(w, 0);
		wfh2(w, (uint8_t)(0x40 + i));
		wfattr2(w, 20 + (uint32_t)i);
		ok = run_reply(2, diropres[i], w, w->n, w->n, &c, r);
		CHECK(all_ok(ok, &c, w) &&
			 r->have == (NFSR_STATUS | NFSR_FH | NFSR_ATTR));
		CHECK(fh_is(&r->fh, (uint8_t)(0x40 + i), 32) &&
			 fattr2_is(&r->attr, 20 + (uint32_t)i));
		w->n = 0;
		w32(w, 2);
		ok = run_reply(2, diropres[i], w, w->n, w->n, &c, r);
		CHECK(all_ok(ok, &c, w) && r->have == NFSR_STATUS);
	}
	for (size_t i = 0; i < 5; i++) {
		w->n = 0;
		w32(w, (uint32_t)i);
		ok = run_reply(2, stat_only[i], w, w->n, w->n, &c, r);
		CHECK(all_ok(ok, &c, w) && r->have == NFSR_STATUS &&
			 r->status == (uint32_t)i);
	}
	/* readlinkres */
	w->n = 0;
	w32(w, 0);
	wstr(w, "v2/target");
	ok = run_reply(2, NFS2_READLINK, w, w->n, w->n, &c, r);
	CHECK(all_ok(ok, &c, w) && r->have == (NFSR_STATUS | NFSR_PATH) &&
		 path_is(&r->path, "v2/target"));
	/* readres { fattr; nfsdata } */
	{
		uint8_t data[6] = { 1, 2, 3, 4, 5, 6 };

		w->n = 0;
		w32(w, 0);
		wfattr2(w, 30);
		w32(w, 6);
		wbytes(w, data, 6);
		ok = run_reply(2, NFS2_READ, w, w->n, w->n, &c, r);
		CHECK(all_ok(ok, &c, w) && r->have == (NFSR_STATUS |
			 NFSR_ATTR | NFSR_DATA_LEN | NFSR_COUNT));
		CHECK(fattr2_is(&r->attr, 30) && r->data_len == 6 &&
			 r->count == 6);
	}
	/* statfsres */
	w->n = 0;
	w32(w, 0);
	w32(w, 8192); w32(w, 4096); w32(w, 1000000); w32(w, 500000);
	w32(w, 400000);
	ok = run_reply(2, NFS2_STATFS, w, w->n, w->n, &c, r);
	CHECK(all_ok(ok, &c, w) && r->have == (NFSR_STATUS | NFSR_STATFS));
	CHECK(r->statfs.tsize == 8192 && r->statfs.bsize == 4096 &&
		 r->statfs.blocks == 1000000 && r->statfs.bfree == 500000 &&
		 r->statfs.bavail == 400000);
	/* readdirres { entry *entries; bool eof } */
	w->n = 0;
	w32(w, 0);
	for (uint32_t i = 0; i < 3; i++) {
		char name[16];

		snprintf(name, sizeof name, "f%u", i);
		w32(w, 1);
		w32(w, 900 + i);
		wstr(w, name);
		w32(w, 0x80000000u + i);
	}
	w32(w, 0);
	w32(w, 1);
	ok = run_reply(2, NFS2_READDIR, w, w->n, w->n, &c, r);
	CHECK(all_ok(ok, &c, w) && r->have == (NFSR_STATUS | NFSR_ENTRIES));
	CHECK(r->nentries == 3 && r->entries_total == 3 && r->entries_eof);
	CHECK(r->entries[2].fileid == 902 &&
		 name_is(&r->entries[2].name, "f2") &&
		 r->entries[2].cookie == 0x80000002u &&
		 !r->entries[2].have_fh && !r->entries[2].have_attr);
	w->n = 0;
	w32(w, 13);	/* NFSERR_ACCES */
	ok = run_reply(2, NFS2_READDIR, w, w->n, w->n, &c, r);
	CHECK(all_ok(ok, &c, w) && r->have == NFSR_STATUS);
}

/* ----------------------------------------------- truncated by snaplen -- */

struct cut {
	uint32_t cap;
	uint32_t have;
	bool ok;
};

static void
check_cuts(struct wb *w, int vers, bool call, uint32_t proc,
	   const struct cut *cuts, size_t ncuts, struct nfs_call *a,
	   struct nfs_reply *r)
{
	struct xdr c;
	uint32_t have;
	bool ok;

	for (size_t i = 0; i < ncuts; i++) {
		if (call) {
			ok = run_call(vers, proc, w, cuts[i].cap, w->n, &c, a);
			have = a->have;
		} else {
			ok = run_reply(vers, proc, w, cuts[i].cap, w->n, &c, r);
			have = r->have;
		}
		CHECK(ok == cuts[i].ok && have == cuts[i].have);
		CHECK(c.err == (cuts[i].ok ? XDR_OK : XDR_TRUNCATED));
		if (ok != cuts[i].ok || have != cuts[i].have)
			fprintf(stderr, "  cut at %u: ok %d have %#x\n",
				cuts[i].cap, ok, have);
	}
}

/*
 * Every snaplen from 0 to the full length: never malformed, success iff the
 * cursor is clean, and the have bits only grow as more is captured.
 */
static void
sweep(struct wb *w, int vers, bool call, uint32_t proc,
      struct nfs_call *a, struct nfs_reply *r)
{
	uint32_t prev = 0, have;
	struct xdr c;
	bool ok, good = true;

	for (uint32_t cap = 0; cap <= w->n; cap++) {
		if (call) {
			ok = run_call(vers, proc, w, cap, w->n, &c, a);
			have = a->have;
		} else {
			ok = run_reply(vers, proc, w, cap, w->n, &c, r);
			have = r->have;
		}
		if (c.err == XDR_MALFORMED || ok != (c.err == XDR_OK) ||
		    (have & prev) != prev) {
			fprintf(stderr, "  sweep v%d %s proc %u cap %u\n", vers,
				call ? "call" : "reply", proc, cap);
			good = false;
		}
		prev = have;
	}
	CHECK(good);
}

static void
test_truncated(struct wb *w, struct nfs_call *a,
	       struct nfs_reply *r)
{
	uint8_t data[100];
	const uint32_t rd = NFSR_STATUS | NFSR_ATTR;

	memset(data, 0x5a, sizeof data);
	/* READ3res: status 0-4, attr 4-92, count -96, eof -100, len -104 */
	w->n = 0;
	w32(w, 0);
	wpost(w, true, 1);
	w32(w, 100);
	w32(w, 0);
	w32(w, 100);
	wbytes(w, data, 100);
	{
		const struct cut cuts[] = {
			{ 0, 0, false }, { 3, 0, false },
			{ 4, NFSR_STATUS, false }, { 50, NFSR_STATUS, false },
			{ 92, rd, false }, { 96, rd | NFSR_COUNT, false },
			{ 100, rd | NFSR_COUNT | NFSR_EOF, false },
			{ 104, rd | NFSR_COUNT | NFSR_EOF | NFSR_DATA_LEN,
			  true },
			{ 150, rd | NFSR_COUNT | NFSR_EOF | NFSR_DATA_LEN,
			  true },
		};
		check_cuts(w, 3, false, NFS3_READ, cuts,
			   sizeof cuts / sizeof cuts[0], a, r);
	}
	sweep(w, 3, false, NFS3_READ, a, r);

	/* WRITE3args: fh 0-36, offset -44, count -48, stable -52, len -56 */
	w->n = 0;
	wfh3(w, 1, 32);
	w64(w, 4096);
	w32(w, 100);
	w32(w, NFS3_UNSTABLE);
	w32(w, 100);
	wbytes(w, data, 100);
	{
		const uint32_t f = NFSC_FH | NFSC_OFFSET | NFSC_COUNT;
		const struct cut cuts[] = {
			{ 0, 0, false }, { 20, 0, false },
			{ 36, NFSC_FH, false }, { 40, NFSC_FH, false },
			{ 44, NFSC_FH | NFSC_OFFSET, false },
			{ 48, f, false }, { 52, f | NFSC_STABLE, false },
			{ 56, f | NFSC_STABLE | NFSC_DATA_LEN, true },
			{ 120, f | NFSC_STABLE | NFSC_DATA_LEN, true },
		};
		check_cuts(w, 3, true, NFS3_WRITE, cuts,
			   sizeof cuts / sizeof cuts[0], a, r);
	}
	sweep(w, 3, true, NFS3_WRITE, a, r);

	/* READDIRPLUS3res: cut inside entry 1, after it, inside eof */
	{
		uint32_t after0, after1, after2;
		struct xdr c;
		bool ok;

		w->n = 0;
		w32(w, 0);
		wpost(w, true, 2);
		wbytes(w, verf_a, 8);
		wentry3(w, 0, true, true, true);
		after0 = w->n;
		wentry3(w, 1, true, true, true);
		after1 = w->n;
		wentry3(w, 2, true, false, false);
		w32(w, 0);
		after2 = w->n;
		w32(w, 1);

		ok = run_reply(3, NFS3_READDIRPLUS, w, after0 + 40, w->n, &c,
			       r);
		CHECK(!ok && c.err == XDR_TRUNCATED);
		CHECK(r->have == (NFSR_STATUS | NFSR_DIR_ATTR |
				     NFSR_COOKIEVERF | NFSR_ENTRIES));
		CHECK(r->nentries == 1 && r->entries_total == 1 &&
			 !r->entries_eof &&
			 entry3_is(&r->entries[0], 0, true, true));
		ok = run_reply(3, NFS3_READDIRPLUS, w, after1, w->n, &c, r);
		CHECK(!ok && c.err == XDR_TRUNCATED && r->nentries == 2 &&
			 entry3_is(&r->entries[1], 1, true, true));
		ok = run_reply(3, NFS3_READDIRPLUS, w, after2 + 2, w->n, &c,
			       r);
		CHECK(!ok && c.err == XDR_TRUNCATED && r->nentries == 3 &&
			 r->entries_total == 3 && !r->entries_eof);
		ok = run_reply(3, NFS3_READDIRPLUS, w, 3, w->n, &c, r);
		CHECK(!ok && c.err == XDR_TRUNCATED && r->have == 0);
		sweep(w, 3, false, NFS3_READDIRPLUS, a, r);
	}

	/* a few more sweeps over calls and replies with optional parts */
	w->n = 0;
	wfh3(w, 3, 40);
	wsattr3(w, &sattr_a);
	w32(w, 1); w32(w, 2); w32(w, 3);
	sweep(w, 3, true, NFS3_SETATTR, a, r);
	w->n = 0;
	w32(w, 0);
	w32(w, 1);
	wfh3(w, 4, 32);
	wpost(w, true, 5);
	wwcc(w, true, true, 6);
	sweep(w, 3, false, NFS3_CREATE, a, r);
	w->n = 0;
	w32(w, 0);
	wwcc(w, true, true, 7);
	w32(w, 10); w32(w, 2);
	wbytes(w, verf_a, 8);
	sweep(w, 3, false, NFS3_WRITE, a, r);
	w->n = 0;
	w32(w, 0);
	wfattr2(w, 8);
	w32(w, 100);
	wbytes(w, data, 100);
	sweep(w, 2, false, NFS2_READ, a, r);
	w->n = 0;
	wfh2(w, 9);
	w32(w, 0); w32(w, 0); w32(w, 0);
	w32(w, 100);
	wbytes(w, data, 100);
	sweep(w, 2, true, NFS2_WRITE, a, r);
}

/* ------------------------------------------------------- malformed -- */

static bool
malformed_call(int vers, uint32_t proc, struct wb *w, struct nfs_call *a,
	       uint32_t want_have)
{
	struct xdr c;
	bool ok = run_call(vers, proc, w, w->n, w->n, &c, a);

	return !ok && c.err == XDR_MALFORMED && a->have == want_have;
}

static bool
malformed_reply(int vers, uint32_t proc, struct wb *w, struct nfs_reply *r,
		uint32_t want_have)
{
	struct xdr c;
	bool ok = run_reply(vers, proc, w, w->n, w->n, &c, r);

	return !ok && c.err == XDR_MALFORMED && r->have == want_have;
}

static void
test_malformed(struct wb *w, struct nfs_call *a,
	       struct nfs_reply *r)
{
	static const uint32_t bad_lens[] = { 256, 0x10000, 0xfffffffdu,
					     0xffffffffu };
	struct xdr c;
	bool ok;

	/* nfs_fh3 longer than 64 bytes */
	w->n = 0;
	wfh3(w, 1, 64);
	w->b[3] = 65;
	w32(w, 0);
	CHECK(malformed_call(3, NFS3_GETATTR, w, a, 0));
	/* a name length that lies (tcpdump nfs-cannot-pad-32-bit) */
	for (size_t i = 0; i < sizeof bad_lens / sizeof bad_lens[0]; i++) {
		w->n = 0;
		wfh3(w, 1, 32);
		w32(w, bad_lens[i]);
		for (int k = 0; k < 80; k++)
			w32(w, 0x41414141);
		CHECK(malformed_call(3, NFS3_LOOKUP, w, a, NFSC_FH));
		w->n = 0;
		wfh2(w, 1);
		w32(w, bad_lens[i]);
		for (int k = 0; k < 80; k++)
			w32(w, 0x41414141);
		CHECK(malformed_call(2, NFS2_LOOKUP, w, a, NFSC_FH));
	}
	/* name length 4, but the wire ends */
	w->n = 0;
	wfh3(w, 1, 32);
	w32(w, 12);
	w32(w, 0x41414141);
	CHECK(malformed_call(3, NFS3_REMOVE, w, a, NFSC_FH));
	/* a path longer than 1024 */
	w->n = 0;
	wfh3(w, 1, 8);
	wstr(w, "l");
	wsattr3(w, &sattr_b);
	w32(w, 1025);
	for (int k = 0; k < 260; k++)
		w32(w, 0x2f2f2f2f);
	CHECK(malformed_call(3, NFS3_SYMLINK, w, a,
				NFSC_FH | NFSC_NAME | NFSC_SATTR));
	/* WRITE data count beyond the wire (captured whole) */
	w->n = 0;
	wfh3(w, 1, 32);
	w64(w, 0);
	w32(w, 1000);
	w32(w, 0);
	w32(w, 1000);
	w32(w, 0); w32(w, 0);
	CHECK(malformed_call(3, NFS3_WRITE, w, a, NFSC_FH | NFSC_OFFSET |
				NFSC_COUNT | NFSC_STABLE));
	/* READ3resok data count beyond the wire */
	w->n = 0;
	w32(w, 0);
	wpost(w, false, 0);
	w32(w, 64);
	w32(w, 1);
	w32(w, 64);
	w32(w, 0);
	CHECK(malformed_reply(3, NFS3_READ, w, r, NFSR_STATUS |
				 NFSR_COUNT | NFSR_EOF));
	/* v2 nfsdata longer than NFS_MAXDATA */
	w->n = 0;
	wfh2(w, 1);
	w32(w, 0); w32(w, 0); w32(w, 0);
	w32(w, 8196);
	ok = run_call(2, NFS2_WRITE, w, w->n, w->n + 8196, &c, a);
	CHECK(!ok && c.err == XDR_MALFORMED && !(a->have & NFSC_DATA_LEN));
	/* v2 fhandle: wire shorter than 32 bytes */
	w->n = 0;
	w32(w, 1); w32(w, 2);
	CHECK(malformed_call(2, NFS2_GETATTR, w, a, 0));

	/* sattr3 set_it = 0x42424242 (Zeek nfs_setattr_bad_set_it) */
	w->n = 0;
	wfh3(w, 1, 32);
	w32(w, 0x42424242);
	w32(w, 0644);
	for (int k = 0; k < 8; k++)
		w32(w, 0);
	CHECK(malformed_call(3, NFS3_SETATTR, w, a, NFSC_FH));
	/* set_size3 discriminant 2 */
	w->n = 0;
	wfh3(w, 1, 32);
	w32(w, 0); w32(w, 0); w32(w, 0);
	w32(w, 2);
	for (int k = 0; k < 6; k++)
		w32(w, 0);
	CHECK(malformed_call(3, NFS3_SETATTR, w, a, NFSC_FH));
	/* time_how 3 */
	w->n = 0;
	wfh3(w, 1, 32);
	w32(w, 0); w32(w, 0); w32(w, 0); w32(w, 0);
	w32(w, 3);
	for (int k = 0; k < 6; k++)
		w32(w, 0);
	CHECK(malformed_call(3, NFS3_SETATTR, w, a, NFSC_FH));
	/* sattrguard3 check = 5 */
	w->n = 0;
	wfh3(w, 1, 32);
	for (int k = 0; k < 6; k++)
		w32(w, 0);
	w32(w, 5);
	w32(w, 0); w32(w, 0);
	CHECK(malformed_call(3, NFS3_SETATTR, w, a, NFSC_FH | NFSC_SATTR));
	/* createmode3 3 */
	w->n = 0;
	wfh3(w, 1, 32);
	wstr(w, "x");
	w32(w, 3);
	w32(w, 0); w32(w, 0);
	CHECK(malformed_call(3, NFS3_CREATE, w, a, NFSC_FH | NFSC_NAME));
	/* MKNOD ftype 0 and 8 */
	for (uint32_t ft = 0; ft <= 8; ft += 8) {
		w->n = 0;
		wfh3(w, 1, 32);
		wstr(w, "dev");
		w32(w, ft);
		for (int k = 0; k < 8; k++)
			w32(w, 0);
		CHECK(malformed_call(3, NFS3_MKNOD, w, a,
					NFSC_FH | NFSC_NAME));
	}
	/* WRITE3args stable_how 3 (and 0x43434343) */
	for (uint32_t k = 0; k < 2; k++) {
		w->n = 0;
		wfh3(w, 1, 32);
		w64(w, 0);
		w32(w, 4);
		w32(w, k ? 0x43434343 : 3);
		w32(w, 4);
		w32(w, 0);
		CHECK(malformed_call(3, NFS3_WRITE, w, a, NFSC_FH |
					NFSC_OFFSET | NFSC_COUNT));
	}
	/* post_op_attr attributes_follow = 2 */
	w->n = 0;
	w32(w, 0);
	wfh3(w, 1, 32);
	w32(w, 2);
	wfattr3(w, 1);
	wpost(w, false, 0);
	CHECK(malformed_reply(3, NFS3_LOOKUP, w, r, NFSR_STATUS | NFSR_FH));
	/* pre_op_attr = 7 */
	w->n = 0;
	w32(w, 0);
	w32(w, 7);
	for (int k = 0; k < 8; k++)
		w32(w, 0);
	CHECK(malformed_reply(3, NFS3_SETATTR, w, r, NFSR_STATUS));
	/* dirlist value_follows = 2 after one entry: the entry is kept */
	w->n = 0;
	w32(w, 0);
	wpost(w, false, 0);
	wbytes(w, verf_a, 8);
	wentry3(w, 0, false, false, false);
	w32(w, 2);
	w32(w, 1);
	CHECK(malformed_reply(3, NFS3_READDIR, w, r, NFSR_STATUS |
				 NFSR_COOKIEVERF | NFSR_ENTRIES));
	CHECK(r->nentries == 1 && r->entries_total == 1);
	/* a dirlist that never ends: bounded by the wire, malformed */
	w->n = 0;
	w32(w, 0);
	for (int k = 0; k < 100; k++)
		w32(w, 1);
	CHECK(malformed_reply(2, NFS2_READDIR, w, r,
				 NFSR_STATUS | NFSR_ENTRIES));

	/* procedures outside the program */
	w->n = 0;
	w32(w, 0);
	CHECK(malformed_call(3, NFS3_NPROC, w, a, 0));
	CHECK(malformed_reply(3, NFS3_NPROC, w, r, 0));
	CHECK(malformed_call(2, NFS2_NPROC, w, a, 0));
	CHECK(malformed_reply(2, NFS2_NPROC, w, r, 0));
	CHECK(malformed_call(3, 0xffffffffu, w, a, 0));
	CHECK(malformed_reply(2, 0xffffffffu, w, r, 0));
}

/* -------------------------------------------- kept, not malformed -- */

static void
test_lenient(struct wb *w, struct nfs_call *a,
	     struct nfs_reply *r)
{
	struct xdr c;
	bool ok;

	/* scrambled nfsstat3 (Zeek): still a failure, resfail arm */
	w->n = 0;
	w32(w, 0x41414141);
	wpost(w, true, 3);
	ok = run_reply(3, NFS3_LOOKUP, w, w->n, w->n, &c, r);
	CHECK(all_ok(ok, &c, w) && r->status == 0x41414141 &&
		 r->have == (NFSR_STATUS | NFSR_DIR_ATTR) &&
		 fattr3_is(&r->dir_attr, 3));
	/* WRITE3resok committed = 0x43434343 (Zeek): kept, verf still read */
	w->n = 0;
	w32(w, 0);
	wwcc(w, false, true, 4);
	w32(w, 512);
	w32(w, 0x43434343);
	wbytes(w, verf_a, 8);
	ok = run_reply(3, NFS3_WRITE, w, w->n, w->n, &c, r);
	CHECK(all_ok(ok, &c, w) && r->committed == 0x43434343 &&
		 (r->have & (NFSR_COMMITTED | NFSR_VERF)) ==
		 (NFSR_COMMITTED | NFSR_VERF) &&
		 memcmp(r->verf, verf_a, 8) == 0);
	/* fattr3 type = 0x42424242 (Zeek nfs_getattr_bad_ftype): kept */
	w->n = 0;
	w32(w, 0);
	wfattr3(w, 5);
	w->b[4] = 0x42; w->b[5] = 0x42; w->b[6] = 0x42; w->b[7] = 0x42;
	ok = run_reply(3, NFS3_GETATTR, w, w->n, w->n, &c, r);
	CHECK(all_ok(ok, &c, w) && r->attr.type == 0x42424242 &&
		 r->attr.fileid == 0x99aabbccddeeff00ull + 5);
	/* READ eof = 7, PATHCONF bools = 2: nonzero is true */
	w->n = 0;
	w32(w, 0);
	wpost(w, false, 0);
	w32(w, 0);
	w32(w, 7);
	w32(w, 0);
	ok = run_reply(3, NFS3_READ, w, w->n, w->n, &c, r);
	CHECK(all_ok(ok, &c, w) && r->eof && r->data_len == 0);
	w->n = 0;
	w32(w, 0);
	wpost(w, false, 0);
	w32(w, 1); w32(w, 2); w32(w, 2); w32(w, 0); w32(w, 0); w32(w, 9);
	ok = run_reply(3, NFS3_PATHCONF, w, w->n, w->n, &c, r);
	CHECK(all_ok(ok, &c, w) && r->pathconf.no_trunc &&
		 !r->pathconf.chown_restricted && r->pathconf.case_preserving);
	/* v2 timeval useconds garbage: saturates, no wrap */
	w->n = 0;
	w32(w, 0);
	wfattr2(w, 6);
	w->b[4 + 4 * 12] = 0xff; w->b[5 + 4 * 12] = 0xff;
	w->b[6 + 4 * 12] = 0xff; w->b[7 + 4 * 12] = 0xff;
	ok = run_reply(2, NFS2_GETATTR, w, w->n, w->n, &c, r);
	CHECK(all_ok(ok, &c, w) && r->attr.atime.nsec == UINT32_MAX);
	/* v2 ftype outside the RFC list: kept */
	w->n = 0;
	w32(w, 0);
	wfh2(w, 1);
	wfattr2(w, 7);
	w->b[4 + 32 + 3] = 99;
	ok = run_reply(2, NFS2_LOOKUP, w, w->n, w->n, &c, r);
	CHECK(all_ok(ok, &c, w) && r->attr.type == 99);
	(void)a;
}

/* ------------------------------------------------ no_attrs skipping -- */

/* The fields a no_attrs decode must give as a full one does: all but the
 * attribute values (fattr3, wcc_attr). */
static bool
same_but_attrs(const struct nfs_reply *a, const struct nfs_reply *b)
{
	uint32_t k;

	if (a->have != b->have || a->status != b->status ||
	    a->wcc.have_before != b->wcc.have_before ||
	    a->wcc.have_after != b->wcc.have_after)
		return false;
	if ((a->have & NFSR_FH) && (a->fh.len != b->fh.len ||
				     memcmp(a->fh.data, b->fh.data, a->fh.len)))
		return false;
	if ((a->have & NFSR_COUNT) && a->count != b->count)
		return false;
	if ((a->have & NFSR_ENTRIES) &&
	    (a->nentries != b->nentries || a->entries_total != b->entries_total))
		return false;
	for (k = 0; (a->have & NFSR_ENTRIES) && k < a->nentries; k++) {
		const struct nfs_entry *x = &a->entries[k], *y = &b->entries[k];

		if (x->fileid != y->fileid || x->cookie != y->cookie ||
		    strcmp(x->name.s, y->name.s) != 0 ||
		    x->have_fh != y->have_fh || x->have_attr != y->have_attr ||
		    (x->have_fh && (x->fh.len != y->fh.len ||
				    memcmp(x->fh.data, y->fh.data, x->fh.len))))
			return false;
	}
	return true;
}

/* Decode w as a reply to proc at every captured length (truncated) and
 * every wire length (malformed), with and without no_attrs: the same
 * result, error, error offset, end offset and non-attribute fields. */
static void
no_attrs_cuts(uint32_t proc, const struct wb *w,
	      struct nfs_reply *r, struct nfs_reply *r2)
{
	uint32_t n, bad = 0, runs = 0;

	for (n = 0; n <= w->n; n++) {
		for (int lenient = 0; lenient < 2; lenient++) {
			struct xdr c, c2;
			uint32_t cap = n, len = lenient ? n : w->n;
			bool ok, ok2;

			ok = run_reply(3, proc, w, cap, len, &c, r);
			memset(r2, 0xa5, sizeof *r2);
			r2->have = 0;
			xdr_init(&c2, w->b, cap, len);
			c2.no_attrs = true;
			ok2 = nfs3_decode_reply(&c2, proc, r2);
			runs++;
			if (ok != ok2 || c.err != c2.err ||
			    c.err_off != c2.err_off || c.off != c2.off ||
			    !same_but_attrs(r, r2))
				bad++;
		}
	}
	CHECK(runs == 2 * (w->n + 1) && bad == 0);
}

static void
test_no_attrs(struct wb *w, struct nfs_reply *r)
{
	struct nfs_reply *r2 = malloc(sizeof *r2);

	if (r2 == NULL) {
		CHECK(r2 != NULL);
		return;
	}
	/* GETATTR: fattr3 */
	w->n = 0;
	w32(w, 0);
	wfattr3(w, 11);
	no_attrs_cuts(NFS3_GETATTR, w, r, r2);
	/* SETATTR: wcc_data, both halves */
	w->n = 0;
	w32(w, 0);
	wwcc(w, true, true, 20);
	no_attrs_cuts(NFS3_SETATTR, w, r, r2);
	/* LOOKUP: handle, then two post_op_attrs */
	w->n = 0;
	w32(w, 0);
	wfh3(w, 0xa0, 32);
	wpost(w, true, 30);
	wpost(w, true, 31);
	no_attrs_cuts(NFS3_LOOKUP, w, r, r2);
	/* READDIRPLUS: entries with and without attributes and handles */
	wreaddirplus(w);
	no_attrs_cuts(NFS3_READDIRPLUS, w, r, r2);
	/* and the skip takes the values out: a no_attrs GETATTR leaves the
	   attribute struct as it was */
	w->n = 0;
	w32(w, 0);
	wfattr3(w, 11);
	{
		struct xdr c;

		memset(r2, 0xa5, sizeof *r2);
		r2->have = 0;
		xdr_init(&c, w->b, w->n, w->n);
		c.no_attrs = true;
		CHECK(nfs3_decode_reply(&c, NFS3_GETATTR, r2) &&
			 all_ok(true, &c, w) && r2->have == (NFSR_STATUS | NFSR_ATTR) &&
			 !fattr3_is(&r2->attr, 11));
	}
	free(r2);
}

int
main(void)
{
	struct nfs_call *a = malloc(sizeof *a);
	struct nfs_reply *r = malloc(sizeof *r);
	struct wb *w = malloc(sizeof *w);

	if (a == NULL || r == NULL || w == NULL)
		return 2;
	test_v3_calls(w, a);
	test_v3_replies(w, r);
	test_v3_dirlists(w, r);
	test_v2_calls(w, a);
	test_v2_replies(w, r);
	test_truncated(w, a, r);
	test_malformed(w, a, r);
	test_lenient(w, a, r);
	test_no_attrs(w, r);
	free(a);
	free(r);
	free(w);
	return CHECK_SUMMARY();
}
