/*
 * test_nfs4.c - NFSv4 COMPOUND decoding against hand-built XDR (RFC 7531,
 * 5662, 7863 types written out word by word), checked field by field:
 * arguments and results, the main op, truncated vs malformed, an opcode
 * no RFC defines (stopped), the back channel.
 */
#include <stdlib.h>
#include <string.h>

#include "decode/decode_int.h"
#include "tests/lib/check.h"

struct buf {
	uint8_t b[4096];
	uint32_t n;
};

static void put32(struct buf *w, uint32_t v)
{
	w->b[w->n++] = (uint8_t)(v >> 24);
	w->b[w->n++] = (uint8_t)(v >> 16);
	w->b[w->n++] = (uint8_t)(v >> 8);
	w->b[w->n++] = (uint8_t)v;
}

static void put64(struct buf *w, uint64_t v)
{
	put32(w, (uint32_t)(v >> 32));
	put32(w, (uint32_t)v);
}

static void put_opaque(struct buf *w, const void *p, uint32_t n)
{
	put32(w, n);
	memcpy(w->b + w->n, p, n);
	w->n += n;
	while (w->n % 4)
		w->b[w->n++] = 0;
}

static void put_str(struct buf *w, const char *s)
{
	put_opaque(w, s, (uint32_t)strlen(s));
}

static void put_fixed(struct buf *w, uint8_t fill, uint32_t n)
{
	memset(w->b + w->n, fill, n);
	w->n += n;
}

static void put_stateid(struct buf *w)
{
	put32(w, 1);
	put_fixed(w, 0x5a, 12);
}

static struct nfs4_compound *cp_new(void)
{
	struct nfs4_compound *cp = malloc(sizeof(*cp));

	memset(cp, 0xa5, sizeof(*cp));
	cp->have = 0;
	cp->nops = cp->nstored = cp->nops_wire = 0;
	cp->stopped = false;
	return cp;
}

static bool run(struct buf *w, uint32_t cap, bool reply, bool cb,
		struct nfs4_compound *cp, struct xdr *c)
{
	xdr_init(c, w->b, cap, w->n);
	cp->have = 0;
	cp->nops = cp->nstored = cp->nops_wire = 0;
	cp->stopped = false;
	return reply ? nfs4_decode_reply(c, cb, cp) : nfs4_decode_call(c, cb, cp);
}

/* COMPOUND4args header: tag "t", minor, nops */
static void call_hdr(struct buf *w, uint32_t minor, uint32_t nops)
{
	w->n = 0;
	put_str(w, "t");
	put32(w, minor);
	put32(w, nops);
}

static void reply_hdr(struct buf *w, uint32_t status, uint32_t nops)
{
	w->n = 0;
	put32(w, status);
	put_str(w, "");
	put32(w, nops);
}

static void seq_args(struct buf *w, uint32_t seq, uint32_t slot)
{
	put32(w, NFS4_OP_SEQUENCE);
	put_fixed(w, 0x11, 16);
	put32(w, seq);
	put32(w, slot);
	put32(w, 7);
	put32(w, 1);	/* cachethis */
}

static void test_read(struct nfs4_compound *cp)
{
	uint8_t fh[40], data[100];
	struct buf w;
	struct xdr c;
	bool ok;

	memset(fh, 0x33, sizeof(fh));
	memset(data, 0x44, sizeof(data));
	call_hdr(&w, 1, 3);
	seq_args(&w, 42, 3);
	put32(&w, NFS4_OP_PUTFH);
	put_opaque(&w, fh, sizeof(fh));
	put32(&w, NFS4_OP_READ);
	put_stateid(&w);
	put64(&w, 1 << 20);
	put32(&w, 65536);
	ok = run(&w, w.n, false, false, cp, &c);
	CHECK(ok && c.off == w.n && cp->nops == 3 && cp->nstored == 3);
	CHECK(cp->minor == 1 && (cp->have & N4C_MINOR));
	CHECK(cp->ops[0].op == NFS4_OP_SEQUENCE && cp->ops[0].slot == 3 &&
	      cp->ops[0].seqid == 42 && cp->ops[0].highest_slot == 7 &&
	      cp->ops[0].cachethis && cp->ops[0].sessionid[15] == 0x11);
	CHECK((cp->ops[1].have & N4_FH) && cp->ops[1].fh.len == 40 &&
	      cp->ops[1].fh.data[39] == 0x33);
	CHECK(cp->ops[2].offset == 1 << 20 && cp->ops[2].count == 65536 &&
	      (cp->ops[2].have & (N4_OFFSET | N4_COUNT)) ==
	      (N4_OFFSET | N4_COUNT));
	CHECK(nfs4_main_op(cp) == 2 && nfs4_proc(cp) == NFS4_OP_READ);
	CHECK(strcmp(nfs4_proc_name(nfs4_proc(cp), false), "READ") == 0);

	/* cut inside READ's arguments: truncated, the ops before kept */
	ok = run(&w, w.n - 6, false, false, cp, &c);
	CHECK(!ok && c.err == XDR_TRUNCATED && cp->nops == 2 &&
	      cp->nstored == 3 && nfs4_proc(cp) == NFS4_OP_READ);
	/* cut before READ's opcode: the main op is not known */
	ok = run(&w, 16 + 36 + 48, false, false, cp, &c);
	CHECK(!ok && c.err == XDR_TRUNCATED &&
	      nfs4_proc(cp) == NFS4_PROC_COMPOUND);

	reply_hdr(&w, NFS4_OK, 3);
	put32(&w, NFS4_OP_SEQUENCE);
	put32(&w, NFS4_OK);
	put_fixed(&w, 0x11, 16);
	put32(&w, 42);
	put32(&w, 3);
	put32(&w, 30);
	put32(&w, 30);
	put32(&w, 0);
	put32(&w, NFS4_OP_PUTFH);
	put32(&w, NFS4_OK);
	put32(&w, NFS4_OP_READ);
	put32(&w, NFS4_OK);
	put32(&w, 1);	/* eof */
	put_opaque(&w, data, sizeof(data));
	ok = run(&w, w.n, true, false, cp, &c);
	CHECK(ok && c.off == w.n && cp->nops == 3 && cp->status == 0);
	CHECK(cp->ops[0].target_slot == 30 && (cp->ops[0].have & N4_SEQ));
	CHECK(cp->ops[2].eof && cp->ops[2].count == 100 &&
	      (cp->ops[2].have & (N4_EOF | N4_COUNT | N4_STATUS)) ==
	      (N4_EOF | N4_COUNT | N4_STATUS));
	/* the data not captured (a header-only capture): still decoded */
	ok = run(&w, w.n - 100, true, false, cp, &c);
	CHECK(ok && cp->ops[2].count == 100);
	/* a data length longer than the message: malformed */
	w.b[w.n - 100 - 1] = 0xff;
	ok = run(&w, w.n, true, false, cp, &c);
	CHECK(!ok && c.err == XDR_MALFORMED);
}

static void test_write_lock(struct nfs4_compound *cp)
{
	struct buf w;
	struct xdr c;
	bool ok;

	call_hdr(&w, 0, 2);
	put32(&w, NFS4_OP_PUTROOTFH);
	put32(&w, NFS4_OP_WRITE);
	put_stateid(&w);
	put64(&w, 8192);
	put32(&w, NFS3_UNSTABLE);
	put_opaque(&w, "hello", 5);
	ok = run(&w, w.n, false, false, cp, &c);
	CHECK(ok && cp->ops[1].count == 5 && cp->ops[1].stable == 0 &&
	      cp->ops[1].offset == 8192 && nfs4_proc(cp) == NFS4_OP_WRITE);
	/* stable_how4 out of range: malformed */
	w.b[16 + 4 + 4 + 16 + 8 + 3] = 7;
	ok = run(&w, w.n, false, false, cp, &c);
	CHECK(!ok && c.err == XDR_MALFORMED);

	reply_hdr(&w, NFS4_OK, 1);
	put32(&w, NFS4_OP_WRITE);
	put32(&w, NFS4_OK);
	put32(&w, 5);
	put32(&w, NFS3_FILE_SYNC);
	put_fixed(&w, 0x77, 8);
	ok = run(&w, w.n, true, false, cp, &c);
	CHECK(ok && cp->ops[0].count == 5 && cp->ops[0].stable == 2 &&
	      cp->ops[0].verf[7] == 0x77 && (cp->ops[0].have & N4_VERF));

	reply_hdr(&w, NFS4ERR_DENIED, 2);
	put32(&w, NFS4_OP_PUTFH);
	put32(&w, NFS4_OK);
	put32(&w, NFS4_OP_LOCK);
	put32(&w, NFS4ERR_DENIED);
	put64(&w, 100);
	put64(&w, 50);
	put32(&w, 2);	/* WRITE_LT */
	put64(&w, 9);
	put_str(&w, "owner");
	ok = run(&w, w.n, true, false, cp, &c);
	CHECK(ok && c.off == w.n && cp->status == NFS4ERR_DENIED);
	CHECK((cp->ops[1].have & N4_DENIED) && cp->ops[1].offset == 100 &&
	      cp->ops[1].length == 50 && cp->ops[1].locktype == 2);
	CHECK(nfs4_proc(cp) == NFS4_OP_LOCK);
	CHECK(strcmp(nfs4_stat_name(NFS4ERR_DENIED), "NFS4ERR_DENIED") == 0 &&
	      strcmp(nfs4_stat_name(NFS4ERR_SEQ_MISORDERED),
		     "NFS4ERR_SEQ_MISORDERED") == 0 &&
	      strcmp(nfs4_stat_name(10096), "NFS4ERR_XATTR2BIG") == 0 &&
	      nfs4_stat_name(10073) == NULL && nfs4_stat_name(10097) == NULL);
}

static void test_session_attrs(struct nfs4_compound *cp)
{
	struct buf w;
	struct xdr c;
	bool ok;
	int k;

	call_hdr(&w, 1, 1);
	put32(&w, NFS4_OP_CREATE_SESSION);
	put64(&w, 0x1234);
	put32(&w, 1);
	put32(&w, 0);
	for (k = 0; k < 2; k++) {	/* fore, back */
		put32(&w, 0);
		put32(&w, 1049620 - k);
		put32(&w, 1049480 - k);
		put32(&w, 3428);
		put32(&w, 8);
		put32(&w, 64);
		put32(&w, 0);
	}
	put32(&w, 0x40000000);
	put32(&w, 1);	/* one callback_sec_parms4: AUTH_SYS */
	put32(&w, RPC_AUTH_SYS);
	put32(&w, 0);
	put_str(&w, "host");
	put32(&w, 0);
	put32(&w, 0);
	put32(&w, 0);
	ok = run(&w, w.n, false, false, cp, &c);
	CHECK(ok && c.off == w.n && (cp->ops[0].have & N4_CHAN) &&
	      cp->ops[0].fore.maxreq == 1049620 &&
	      cp->ops[0].fore.maxresp == 1049480 && cp->ops[0].clientid == 0x1234);

	/* GETATTR: type, fsid (16 bytes, stepped), size, maxread, maxwrite */
	reply_hdr(&w, NFS4_OK, 1);
	put32(&w, NFS4_OP_GETATTR);
	put32(&w, NFS4_OK);
	put32(&w, 1);
	put32(&w, 1u << 1 | 1u << 4 | 1u << 8 | 1u << 30 | 1u << 31);
	put32(&w, 4 + 8 + 16 + 8 + 8);
	put32(&w, 1);
	put64(&w, 123456);
	put64(&w, 1);
	put64(&w, 2);
	put64(&w, 1048576);
	put64(&w, 524288);
	ok = run(&w, w.n, true, false, cp, &c);
	CHECK(ok && c.off == w.n && (cp->ops[0].have & N4_ATTRS));
	CHECK(cp->ops[0].attr_have == (N4A_TYPE | N4A_SIZE | N4A_MAXREAD |
				       N4A_MAXWRITE));
	CHECK(cp->ops[0].size == 123456 && cp->ops[0].maxread == 1048576 &&
	      cp->ops[0].maxwrite == 524288 && cp->ops[0].type == 1);
	CHECK(nfs4_proc(cp) == NFS4_OP_GETATTR);
}

static void test_open(struct nfs4_compound *cp)
{
	struct buf w;
	struct xdr c;
	bool ok;

	call_hdr(&w, 0, 3);
	put32(&w, NFS4_OP_PUTFH);
	put_opaque(&w, "dirhandle", 9);
	put32(&w, NFS4_OP_OPEN);
	put32(&w, 0);		/* seqid */
	put32(&w, 3);		/* share_access BOTH */
	put32(&w, 0);
	put64(&w, 5);
	put_str(&w, "open id");
	put32(&w, 1);		/* OPEN4_CREATE */
	put32(&w, 0);		/* UNCHECKED4: fattr4 */
	put32(&w, 1);
	put32(&w, 1u << 4);
	put32(&w, 8);
	put64(&w, 0);
	put32(&w, 0);		/* CLAIM_NULL */
	put_str(&w, "file.txt");
	put32(&w, NFS4_OP_GETFH);
	ok = run(&w, w.n, false, false, cp, &c);
	CHECK(ok && c.off == w.n && (cp->ops[1].have & (N4_OPEN | N4_NAME)) ==
	      (N4_OPEN | N4_NAME));
	CHECK(strcmp(cp->ops[1].name.s, "file.txt") == 0 &&
	      cp->ops[1].claim == 0 && cp->ops[1].opentype == 1 &&
	      nfs4_proc(cp) == NFS4_OP_OPEN);
	/* claim type 7 does not exist: malformed */
	w.b[w.n - 4 - 12 - 4 + 3] = 7;
	ok = run(&w, w.n, false, false, cp, &c);
	CHECK(!ok && c.err == XDR_MALFORMED);

	reply_hdr(&w, NFS4_OK, 1);
	put32(&w, NFS4_OP_OPEN);
	put32(&w, NFS4_OK);
	put_stateid(&w);
	put32(&w, 1);
	put64(&w, 1);
	put64(&w, 2);
	put32(&w, 4);		/* rflags */
	put32(&w, 0);		/* attrset bitmap */
	put32(&w, 1);		/* OPEN_DELEGATE_READ */
	put_stateid(&w);
	put32(&w, 0);
	put32(&w, 0);
	put32(&w, 0);
	put32(&w, 0);
	put_str(&w, "");
	ok = run(&w, w.n, true, false, cp, &c);
	CHECK(ok && c.off == w.n && (cp->ops[0].have & N4_DELEG) &&
	      cp->ops[0].deleg == 1);
}

static void test_stop_cb(struct nfs4_compound *cp)
{
	struct buf w;
	struct xdr c;
	bool ok;

	/* an opcode no RFC defines: stopped there, not malformed */
	call_hdr(&w, 2, 3);
	put32(&w, NFS4_OP_PUTROOTFH);
	put32(&w, 99);
	put32(&w, NFS4_OP_GETFH);
	ok = run(&w, w.n, false, false, cp, &c);
	CHECK(ok && cp->stopped && cp->stop_op == 99 && cp->nops == 1 &&
	      nfs4_proc(cp) == NFS4_PROC_COMPOUND);
	/* a minor version past 2 */
	call_hdr(&w, 3, 1);
	put32(&w, NFS4_OP_PUTROOTFH);
	ok = run(&w, w.n, false, false, cp, &c);
	CHECK(ok && cp->stopped && cp->nops == 0);
	/* more ops than the wire can hold: malformed */
	call_hdr(&w, 0, 1000);
	put32(&w, NFS4_OP_PUTROOTFH);
	ok = run(&w, w.n, false, false, cp, &c);
	CHECK(!ok && c.err == XDR_MALFORMED);
	/* more ops than stored: all stepped over, the first kept */
	call_hdr(&w, 0, NFS4_OPS_MAX + 6);
	for (int i = 0; i < NFS4_OPS_MAX + 6; i++) {
		put32(&w, NFS4_OP_LOOKUP);
		put_str(&w, "d");
	}
	ok = run(&w, w.n, false, false, cp, &c);
	CHECK(ok && cp->nops == NFS4_OPS_MAX + 6 &&
	      cp->nstored == NFS4_OPS_MAX && c.off == w.n);

	/* CB_COMPOUND: CB_SEQUENCE + CB_RECALL */
	w.n = 0;
	put_str(&w, "");
	put32(&w, 1);
	put32(&w, 77);	/* callback_ident */
	put32(&w, 2);
	put32(&w, NFS4_OP_CB_SEQUENCE);
	put_fixed(&w, 0x22, 16);
	put32(&w, 1);
	put32(&w, 0);
	put32(&w, 0);
	put32(&w, 0);
	put32(&w, 0);	/* no referring call lists */
	put32(&w, NFS4_OP_CB_RECALL);
	put_stateid(&w);
	put32(&w, 0);
	put_opaque(&w, "fh", 2);
	ok = run(&w, w.n, false, true, cp, &c);
	CHECK(ok && c.off == w.n && cp->cb && cp->cb_ident == 77 &&
	      nfs4_proc(cp) == NFS4_OP_CB_RECALL);
	CHECK(strcmp(nfs4_proc_name(nfs4_proc(cp), true), "CB_RECALL") == 0);
	CHECK(strcmp(dec_proc_name(PROG_NFS4_CB, 1, 4), "CB_RECALL") == 0 &&
	      strcmp(dec_proc_name(PROG_NFS, 4, 1), "COMPOUND") == 0 &&
	      strcmp(dec_proc_name(PROG_NFS, 4, NFS4_OP_READ), "READ") == 0 &&
	      dec_proc_name(PROG_NFS, 4, 2) == NULL &&
	      dec_proc_name(PROG_NFS, 4, 76) == NULL);
}

int main(void)
{
	struct nfs4_compound *cp = cp_new();

	test_read(cp);
	test_write_lock(cp);
	test_session_attrs(cp);
	test_open(cp);
	test_stop_cb(cp);
	free(cp);
	return CHECK_SUMMARY();
}
