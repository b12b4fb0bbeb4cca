/*
 * test_shape.c - replies decoded by their shape (decode/shape.c).
 *
 * Each NFSv3 result is written here word by word from RFC 1813's XDR (not
 * with the decoders under test), behind an RPC reply header (RFC 5531),
 * and given to dec_shape_try: it must name the right procedure, or be
 * ambiguous among exactly the procedures shape.c's table names.  Then every
 * cut of it (snaplens 12 .. its length) must either name the right
 * procedure or be ambiguous with the right one among the fits: never name
 * a wrong one, never fit none.  Last, the orphan path through dec_message:
 * the pair's versions, the counts.
 */
#include <stdio.h>
#include <string.h>

#include "decode/decode_int.h"
#include "tests/lib/check.h"

#define NF3REG 1
#define NF3DIR 2
#define NF3LNK 5
#define NF3FIFO 7

struct buf {
	uint8_t b[4096];
	uint32_t n;
};

static void
put32(struct buf *w, uint32_t v)
{
	w->b[w->n++] = (uint8_t)(v >> 24);
	w->b[w->n++] = (uint8_t)(v >> 16);
	w->b[w->n++] = (uint8_t)(v >> 8);
	w->b[w->n++] = (uint8_t)v;
}

static void
put64(struct buf *w, uint64_t v)
{
	put32(w, (uint32_t)(v >> 32));
	put32(w, (uint32_t)v);
}

/* opaque<> or string<>: length, bytes, zero padding to 4 */
static void
put_opaque(struct buf *w, const void *p, uint32_t n)
{
	put32(w, n);
	memcpy(w->b + w->n, p, n);
	w->n += n;
	while (w->n % 4)
		w->b[w->n++] = 0;
}

/* RPC reply header: xid, REPLY, MSG_ACCEPTED, verf AUTH_NONE, SUCCESS */
static void
put_reply_hdr(struct buf *w, uint32_t xid)
{
	w->n = 0;
	put32(w, xid);
	put32(w, 1);
	put32(w, 0);
	put32(w, 0);
	put32(w, 0);
	put32(w, 0);
}

/* fattr3 of the given type: plausible values (mode 0644, times < 1 s) */
static void
put_fattr3(struct buf *w, uint32_t type)
{
	put32(w, type);
	put32(w, 0644);
	put32(w, 1);		/* nlink */
	put32(w, 1000);
	put32(w, 1000);
	put64(w, 12345);	/* size */
	put64(w, 16384);	/* used */
	put32(w, 0);		/* rdev */
	put32(w, 0);
	put64(w, 0x1234);	/* fsid */
	put64(w, 777);		/* fileid */
	put32(w, 1700000000);	/* atime, mtime, ctime */
	put32(w, 5);
	put32(w, 1700000001);
	put32(w, 6);
	put32(w, 1700000002);
	put32(w, 7);
}

static void
put_post_op_attr(struct buf *w, int type)
{
	if (type < 0) {
		put32(w, 0);
		return;
	}
	put32(w, 1);
	put_fattr3(w, (uint32_t)type);
}

/* wcc_data: pre_op_attr present, post_op_attr of type (or absent) */
static void
put_wcc(struct buf *w, int type)
{
	put32(w, 1);
	put64(w, 12345);
	put32(w, 1700000001);
	put32(w, 6);
	put32(w, 1700000002);
	put32(w, 7);
	put_post_op_attr(w, type);
}

static const uint8_t fh[32] = { 1, 0, 6, 0, 0xaa, 0xbb, 0xcc, 0xdd, 9 };
static const uint8_t verf[8] = { 0xde, 0xad, 0xbe, 0xef, 0, 0, 0, 42 };
static const uint8_t data100[100] = { 'r', 'e', 'a', 'd' };

static void
put_post_op_fh(struct buf *w)
{
	put32(w, 1);
	put_opaque(w, fh, sizeof(fh));
}

static void
put_entries(struct buf *w, int n, bool plus)
{
	static const char *names[] = { ".", "..", "file" };
	int k;

	for (k = 0; k < n; k++) {
		put32(w, 1);			/* value follows */
		put64(w, 100 + (uint64_t)k);	/* fileid */
		put_opaque(w, names[k % 3], (uint32_t)strlen(names[k % 3]));
		put64(w, 1000 + (uint64_t)k);	/* cookie */
		if (plus) {
			put_post_op_attr(w, k < 2 ? NF3DIR : NF3REG);
			put_post_op_fh(w);
		}
	}
	put32(w, 0);	/* no more entries */
	put32(w, 1);	/* eof */
}

/* --------------------------------------------- the cases (RFC 1813) -- */

#define B(p) (1u << (p))
#define FAIL_POST_OP (B(NFS3_LOOKUP) | B(NFS3_ACCESS) | B(NFS3_READLINK) | \
		      B(NFS3_READ) | B(NFS3_READDIR) | B(NFS3_READDIRPLUS) | \
		      B(NFS3_FSSTAT) | B(NFS3_FSINFO) | B(NFS3_PATHCONF))
#define FAIL_WCC (B(NFS3_SETATTR) | B(NFS3_WRITE) | B(NFS3_CREATE) | \
		  B(NFS3_MKDIR) | B(NFS3_SYMLINK) | B(NFS3_MKNOD) | \
		  B(NFS3_REMOVE) | B(NFS3_RMDIR) | B(NFS3_COMMIT))
#define WCC_ONLY (B(NFS3_SETATTR) | B(NFS3_REMOVE) | B(NFS3_RMDIR))
#define CREATES (B(NFS3_CREATE) | B(NFS3_MKDIR) | B(NFS3_SYMLINK) | \
		 B(NFS3_MKNOD))

struct shape_case {
	const char *name;
	uint32_t proc;		/* the procedure that produced it */
	uint32_t fits;		/* the procedures that fit it whole */
	uint32_t data;		/* READ data bytes after the header */
};

static void
build(int k, struct buf *w, struct shape_case *sc)
{
	put_reply_hdr(w, 0x1000 + (uint32_t)k);
	memset(sc, 0, sizeof(*sc));
#define CASE(n, p, f) do { sc->name = n; sc->proc = p; sc->fits = f; } \
	while (0)
	switch (k) {
	case 0:
		CASE("NULL", NFS3_NULL, 0);
		break;
	case 1:
		CASE("GETATTR ok", NFS3_GETATTR, B(NFS3_GETATTR));
		put32(w, 0);
		put_fattr3(w, NF3REG);
		break;
	case 2:
		CASE("GETATTR stale", NFS3_GETATTR, B(NFS3_GETATTR));
		put32(w, 70);	/* NFS3ERR_STALE */
		break;
	case 3:
		CASE("SETATTR ok file", NFS3_SETATTR, WCC_ONLY);
		put32(w, 0);
		put_wcc(w, NF3REG);
		break;
	case 4:
		CASE("SETATTR ok dir", NFS3_SETATTR, WCC_ONLY);
		put32(w, 0);
		put_wcc(w, NF3DIR);
		break;
	case 5:
		CASE("LOOKUP ok", NFS3_LOOKUP, B(NFS3_LOOKUP));
		put32(w, 0);
		put_opaque(w, fh, sizeof(fh));
		put_post_op_attr(w, NF3REG);
		put_post_op_attr(w, NF3DIR);
		break;
	case 6:
		CASE("LOOKUP noent", NFS3_LOOKUP, FAIL_POST_OP);
		put32(w, 2);	/* NFS3ERR_NOENT */
		put_post_op_attr(w, NF3DIR);
		break;
	case 7:
		CASE("ACCESS ok", NFS3_ACCESS, B(NFS3_ACCESS));
		put32(w, 0);
		put_post_op_attr(w, NF3REG);
		put32(w, 0x1f);
		break;
	case 8:
		CASE("READLINK ok", NFS3_READLINK, B(NFS3_READLINK));
		put32(w, 0);
		put_post_op_attr(w, NF3LNK);
		put_opaque(w, "../target", 9);
		break;
	case 9:
		CASE("READ ok", NFS3_READ, B(NFS3_READ));
		put32(w, 0);
		put_post_op_attr(w, NF3REG);
		put32(w, 8192);
		put32(w, 0);
		put32(w, 8192);
		sc->data = 8192;
		break;
	case 10:
		CASE("READ ok eof, no attrs", NFS3_READ, B(NFS3_READ));
		put32(w, 0);
		put_post_op_attr(w, -1);
		put32(w, 100);
		put32(w, 1);
		put_opaque(w, data100, 100);	/* the data, captured */
		break;
	case 11:
		CASE("WRITE ok", NFS3_WRITE, B(NFS3_WRITE));
		put32(w, 0);
		put_wcc(w, NF3REG);
		put32(w, 32768);
		put32(w, 0);	/* UNSTABLE */
		memcpy(w->b + w->n, verf, 8);
		w->n += 8;
		break;
	case 12:
		CASE("WRITE nospc", NFS3_WRITE, FAIL_WCC);
		put32(w, 28);	/* NFS3ERR_NOSPC */
		put_wcc(w, NF3REG);
		break;
	case 13:
	case 14:
	case 15:
	case 16: {
		static const uint32_t procs[] = { NFS3_CREATE, NFS3_MKDIR,
						  NFS3_SYMLINK, NFS3_MKNOD };
		static const int types[] = { NF3REG, NF3DIR, NF3LNK, NF3FIFO };
		static const char *names[] = { "CREATE ok", "MKDIR ok",
					       "SYMLINK ok", "MKNOD ok" };

		CASE(names[k - 13], procs[k - 13], CREATES);
		put32(w, 0);
		put_post_op_fh(w);
		put_post_op_attr(w, types[k - 13]);
		put_wcc(w, NF3DIR);
		break;
	}
	case 17:
		CASE("CREATE ok, no attrs", NFS3_CREATE, CREATES);
		put32(w, 0);
		put_post_op_fh(w);
		put_post_op_attr(w, -1);
		put_wcc(w, NF3DIR);
		break;
	case 18:
		CASE("REMOVE ok", NFS3_REMOVE, WCC_ONLY);
		put32(w, 0);
		put_wcc(w, NF3DIR);
		break;
	case 19:
		CASE("RMDIR notempty", NFS3_RMDIR, FAIL_WCC);
		put32(w, 66);	/* NFS3ERR_NOTEMPTY */
		put_wcc(w, NF3DIR);
		break;
	case 20:
		CASE("RENAME ok", NFS3_RENAME, B(NFS3_RENAME));
		put32(w, 0);
		put_wcc(w, NF3DIR);
		put_wcc(w, NF3DIR);
		break;
	case 21:
		CASE("LINK ok", NFS3_LINK, B(NFS3_LINK));
		put32(w, 0);
		put_post_op_attr(w, NF3REG);
		put_wcc(w, NF3DIR);
		break;
	case 22:
		CASE("READDIR ok", NFS3_READDIR, B(NFS3_READDIR));
		put32(w, 0);
		put_post_op_attr(w, NF3DIR);
		memcpy(w->b + w->n, verf, 8);
		w->n += 8;
		put_entries(w, 3, false);
		break;
	case 23:
		CASE("READDIRPLUS ok", NFS3_READDIRPLUS, B(NFS3_READDIRPLUS));
		put32(w, 0);
		put_post_op_attr(w, NF3DIR);
		memcpy(w->b + w->n, verf, 8);
		w->n += 8;
		put_entries(w, 3, true);
		break;
	case 24:
		CASE("READDIR ok, empty", NFS3_READDIR,
		     B(NFS3_READDIR) | B(NFS3_READDIRPLUS));
		put32(w, 0);
		put_post_op_attr(w, NF3DIR);
		memcpy(w->b + w->n, verf, 8);
		w->n += 8;
		put_entries(w, 0, false);
		break;
	case 25:
		CASE("FSSTAT ok", NFS3_FSSTAT, B(NFS3_FSSTAT));
		put32(w, 0);
		put_post_op_attr(w, NF3DIR);
		put64(w, 1ull << 40);
		put64(w, 1ull << 39);
		put64(w, 1ull << 38);
		put64(w, 1000000);
		put64(w, 500000);
		put64(w, 400000);
		put32(w, 0);
		break;
	case 26:
		CASE("FSINFO ok", NFS3_FSINFO, B(NFS3_FSINFO));
		put32(w, 0);
		put_post_op_attr(w, NF3DIR);
		put32(w, 1048576);	/* rtmax rtpref rtmult */
		put32(w, 1048576);
		put32(w, 4096);
		put32(w, 1048576);	/* wtmax wtpref wtmult */
		put32(w, 1048576);
		put32(w, 4096);
		put32(w, 1048576);	/* dtpref */
		put64(w, ~0ull);	/* maxfilesize */
		put32(w, 0);		/* time_delta */
		put32(w, 1);
		put32(w, 0x1b);		/* properties */
		break;
	case 27:
		CASE("PATHCONF ok", NFS3_PATHCONF, B(NFS3_PATHCONF));
		put32(w, 0);
		put_post_op_attr(w, NF3DIR);
		put32(w, 32000);
		put32(w, 255);
		put32(w, 1);
		put32(w, 0);
		put32(w, 0);
		put32(w, 1);
		break;
	case 28:
		CASE("COMMIT ok", NFS3_COMMIT, B(NFS3_COMMIT));
		put32(w, 0);
		put_wcc(w, NF3REG);
		memcpy(w->b + w->n, verf, 8);
		w->n += 8;
		break;
	default:
		break;
	}
#undef CASE
}

#define NCASES 29

static void
msg_of(struct cap_msg *m, const struct buf *w, uint32_t caplen,
       uint32_t data)
{
	memset(m, 0, sizeof(*m));
	m->data = w->b;
	m->caplen = caplen;
	m->len = w->n + data;
	m->src.family = m->dst.family = 4;
	m->src.a[3] = 1;	/* server 0.0.0.1:2049 -> client 0.0.0.2:900 */
	m->dst.a[3] = 2;
	m->sport = 2049;
	m->dport = 900;
	m->transport = CAP_TCP;
}

static struct dec_msg out;

/* The case whole: its procedure, or ambiguous among exactly sc->fits. */
static void
test_whole(const struct buf *w, const struct shape_case *sc)
{
	struct dec_shape_fits fits;
	struct cap_msg m;
	enum dec_shape r;

	msg_of(&m, w, w->n, sc->data);
	r = dec_shape_try(&m, 1u << 3, &out, &fits);
	if (fits.procs[1] != sc->fits)
		printf("%s: fits 0x%x, table 0x%x\n", sc->name,
		       fits.procs[1], sc->fits);
	CHECK(fits.procs[1] == sc->fits);
	if (sc->fits == B(sc->proc)) {
		CHECK(r == DEC_SHAPE_FIT);
		CHECK(out.by_shape && out.prog == PROG_NFS && out.vers == 3 &&
		      out.proc == sc->proc);
		CHECK(out.kind == DEC_BODY_NFS_REPLY);
		CHECK(out.status == DEC_OK);
	} else {
		CHECK(r == DEC_SHAPE_AMBIGUOUS && !out.by_shape);
	}
	/* versions unknown: v2 tried too, the v3 procedure still fits */
	r = dec_shape_try(&m, 1u << 2 | 1u << 3, &out, &fits);
	CHECK(fits.procs[1] == sc->fits);
	if (r != DEC_SHAPE_FIT && sc->fits == B(sc->proc))
		printf("%s: with v2 too: ambiguous (v2 fits 0x%x)\n",
		       sc->name, fits.procs[0]);
}

/* Every snaplen: never a wrong procedure, never no fit.  Returns how many
 * cuts named the procedure. */
static uint32_t
test_cuts(const struct buf *w, const struct shape_case *sc)
{
	struct dec_shape_fits fits;
	struct cap_msg m;
	enum dec_shape r;
	uint32_t cap, wrong = 0, lost = 0, named = 0;

	for (cap = 24; cap < w->n; cap++) {
		msg_of(&m, w, cap, sc->data);
		r = dec_shape_try(&m, 1u << 3, &out, &fits);
		if (r == DEC_SHAPE_FIT && out.proc != sc->proc)
			wrong++;
		named += r == DEC_SHAPE_FIT && out.proc == sc->proc;
		if (!(fits.procs[1] & B(sc->proc)))
			lost++;
		/* cut is TRUNCATED, but READ data not captured (as in
		 * every header-only capture) is decoded OK */
		if (r == DEC_SHAPE_FIT && out.status != DEC_TRUNCATED &&
		    sc->proc != NFS3_READ)
			wrong++;
	}
	if (wrong || lost)
		printf("%s: cut: %u wrong, %u lost\n", sc->name, wrong, lost);
	CHECK(wrong == 0 && lost == 0);
	return named;
}

/*
 * The lab's case (pipe-mix at snaplen 256): eight 136-byte WRITE replies in
 * one segment, the second cut 22 bytes into its result (status, the
 * pre_op_attr bool, 14 bytes of wcc_attr).  Only a WRITE with both
 * attributes is 136 bytes long: RENAME's two wcc_data cannot add up to it,
 * SETATTR, REMOVE, RMDIR and COMMIT are shorter, and the CREATEs' handle
 * length and attributes are not those bytes.  Every longer cut names it too.
 */
static void
test_cut_write_wcc(void)
{
	struct dec_shape_fits fits;
	struct shape_case sc;
	struct cap_msg m;
	struct buf w;
	uint32_t cap, bad = 0;

	build(11, &w, &sc);
	CHECK(sc.proc == NFS3_WRITE && w.n == 24 + 4 + 116 + 16);
	for (cap = 24 + 22; cap < w.n; cap++) {
		msg_of(&m, &w, cap, 0);
		if (dec_shape_try(&m, 1u << 3, &out, &fits) != DEC_SHAPE_FIT ||
		    out.proc != NFS3_WRITE || !out.by_shape) {
			printf("WRITE cut at %u: fits 0x%x\n", cap,
			       fits.procs[1]);
			bad++;
		}
	}
	CHECK(bad == 0);
}

/* The RFC values checks: each broken value makes a fitting reply fit no
 * more (or differently). */
static void
test_strict(void)
{
	struct dec_shape_fits fits;
	struct shape_case sc;
	struct cap_msg m;
	struct buf w;

	/* READ count != data length */
	build(9, &w, &sc);
	w.b[w.n - 12 + 3] = 0x01;	/* count 8193 */
	msg_of(&m, &w, w.n, sc.data);
	CHECK(dec_shape_try(&m, 1u << 3, &out, &fits) != DEC_SHAPE_FIT ||
	      out.proc != NFS3_READ);
	CHECK(!(fits.procs[1] & B(NFS3_READ)));
	/* READ eof 2 */
	build(9, &w, &sc);
	w.b[w.n - 8 + 3] = 2;
	msg_of(&m, &w, w.n, sc.data);
	dec_shape_try(&m, 1u << 3, &out, &fits);
	CHECK(!(fits.procs[1] & B(NFS3_READ)));
	/* GETATTR with ftype 8 */
	build(1, &w, &sc);
	w.b[24 + 4 + 3] = 8;
	msg_of(&m, &w, w.n, 0);
	CHECK(dec_shape_try(&m, 1u << 3, &out, &fits) == DEC_SHAPE_NOFIT);
	/* GETATTR with an undefined status: fits nothing */
	build(2, &w, &sc);
	w.b[24 + 3] = 3;	/* between NOENT 2 and IO 5 */
	msg_of(&m, &w, w.n, 0);
	CHECK(dec_shape_try(&m, 1u << 3, &out, &fits) == DEC_SHAPE_NOFIT);
	/* WRITE committed 3 */
	build(11, &w, &sc);
	w.b[w.n - 12 + 3] = 3;
	msg_of(&m, &w, w.n, 0);
	dec_shape_try(&m, 1u << 3, &out, &fits);
	CHECK(!(fits.procs[1] & B(NFS3_WRITE)));
	/* one byte more on the wire than the body: no fit */
	build(11, &w, &sc);
	msg_of(&m, &w, w.n, 4);
	CHECK(dec_shape_try(&m, 1u << 3, &out, &fits) == DEC_SHAPE_NOFIT);
	/* a header-only READ reply (data not captured) still fits */
	build(9, &w, &sc);
	msg_of(&m, &w, w.n, sc.data);
	CHECK(dec_shape_try(&m, 1u << 3, &out, &fits) == DEC_SHAPE_FIT);
	CHECK(out.u.nfs_reply.count == 8192 && !out.u.nfs_reply.eof &&
	      out.u.nfs_reply.data_len == 8192);
	/* a denied reply has no body: ambiguous */
	build(1, &w, &sc);
	w.b[8 + 3] = 1;		/* MSG_DENIED */
	w.b[12 + 3] = 1;	/* AUTH_ERROR */
	w.b[16 + 3] = 1;	/* AUTH_BADCRED */
	w.n = 20;
	msg_of(&m, &w, w.n, 0);
	CHECK(dec_shape_try(&m, 1u << 3, &out, &fits) == DEC_SHAPE_AMBIGUOUS);
}

/* A reply with no pending call: held by the decoder for a call that may
 * come after it (decode/late.c) until the end of input, then the orphan
 * path.  True if it came out delivered. */
static bool
orphan_msg(struct dec *d, const struct cap_msg *m)
{
	bool rpc = false;

	if (dec_message(d, m, &out))
		return true;
	if (!dec_held(d))
		return false;
	dec_flush(d);
	return dec_next(d, &out, &rpc) != NULL && rpc;
}

/* The orphan path: dec_message, the pair's versions, the counts. */
static void
test_orphans(void)
{
	struct dec *d = dec_new(NULL);
	const struct dec_stats *st = dec_get_stats(d);
	struct shape_case sc;
	struct cap_msg m, call;
	struct buf w, cw;

	/* nothing known of the pair: v3 and v2 tried; a v3 WRITE reply
	 * fits no v2 result */
	build(11, &w, &sc);
	msg_of(&m, &w, w.n, 0);
	CHECK(orphan_msg(d, &m));
	CHECK(out.by_shape && !out.call_seen && out.proc == NFS3_WRITE &&
	      out.vers == 3);
	CHECK(out.u.nfs_reply.count == 32768 &&
	      out.u.nfs_reply.committed == NFS3_UNSTABLE &&
	      memcmp(out.u.nfs_reply.verf, verf, 8) == 0);
	CHECK(st->orphan_replies == 1 && st->shape_fit == 1);
	/* a GETATTR failure is status only: so are many v2 results */
	build(2, &w, &sc);
	msg_of(&m, &w, w.n, 0);
	CHECK(!orphan_msg(d, &m));
	CHECK(st->shape_ambiguous == 1);
	/* a v3 call seen on the pair: now only v3 is tried */
	cw.n = 0;
	put32(&cw, 0x99);
	put32(&cw, 0);		/* CALL */
	put32(&cw, 2);
	put32(&cw, PROG_NFS);
	put32(&cw, 3);
	put32(&cw, NFS3_NULL);
	put32(&cw, 0);		/* cred AUTH_NONE */
	put32(&cw, 0);
	put32(&cw, 0);		/* verf AUTH_NONE */
	put32(&cw, 0);
	memset(&call, 0, sizeof(call));
	call.data = cw.b;
	call.caplen = call.len = cw.n;
	call.src = m.dst;
	call.dst = m.src;
	call.sport = m.dport;
	call.dport = m.sport;
	call.transport = CAP_TCP;
	CHECK(dec_message(d, &call, &out));
	CHECK(orphan_msg(d, &m));
	CHECK(out.by_shape && out.proc == NFS3_GETATTR &&
	      out.u.nfs_reply.status == 70);
	CHECK(st->shape_fit == 2);
	/* garbage after the header: no fit */
	build(1, &w, &sc);
	w.b[24 + 3] = 0;
	w.b[28 + 3] = 9;	/* ftype 9 */
	msg_of(&m, &w, w.n, 0);
	CHECK(!orphan_msg(d, &m));
	CHECK(st->shape_nofit == 1);
	/* from a port nothing is known of (NLM's 4045): not tried, even
	 * with the shape of a v3 WRITE result */
	build(11, &w, &sc);
	msg_of(&m, &w, w.n, 0);
	m.sport = 4045;
	CHECK(!orphan_msg(d, &m));
	CHECK(st->shape_nofit == 2);
	/* ... but once a v3 call to port 4045 of another client was seen,
	 * the server port's record is used */
	call.sport = 700;
	call.dport = 4045;
	call.src.a[3] = 3;
	cw.b[3] = 0x9a;		/* another xid */
	CHECK(dec_message(d, &call, &out));
	CHECK(orphan_msg(d, &m) && out.by_shape &&
	      out.proc == NFS3_WRITE);
	CHECK(st->orphan_replies ==
	      st->shape_fit + st->shape_ambiguous + st->shape_nofit);
	dec_free(d);
}

int
main(void)
{
	struct shape_case sc;
	struct buf w;
	uint32_t named = 0;
	int k;

	for (k = 0; k < NCASES; k++) {
		build(k, &w, &sc);
		test_whole(&w, &sc);
		named += test_cuts(&w, &sc);
	}
	printf("cuts that name their procedure: %u\n", named);
	test_cut_write_wcc();
	test_strict();
	test_orphans();
	return CHECK_SUMMARY();
}
