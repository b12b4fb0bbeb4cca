/*
 * test_rpc.c - RPC headers, the strict probe, MOUNT/portmap/rpcbind/NLM
 * bodies, the xid map and dec_message end to end.  Wire bytes are built by
 * hand from the RFC XDR with a small big-endian writer.
 */
#include <stdio.h>
#include <string.h>

#include "decode/decode_int.h"

#include "tests/lib/check.h"

/* ------------------------------------------------------------ writer -- */

struct wbuf {
	uint8_t b[8192];
	uint32_t n;
};

static void
put32(struct wbuf *w, uint32_t v)
{
	w->b[w->n++] = (uint8_t)(v >> 24);
	w->b[w->n++] = (uint8_t)(v >> 16);
	w->b[w->n++] = (uint8_t)(v >> 8);
	w->b[w->n++] = (uint8_t)v;
}

static void
put64(struct wbuf *w, uint64_t v)
{
	put32(w, (uint32_t)(v >> 32));
	put32(w, (uint32_t)v);
}

static void
putfixed(struct wbuf *w, const void *p, uint32_t n)
{
	memcpy(w->b + w->n, p, n);
	w->n += n;
	while (w->n % 4 != 0)
		w->b[w->n++] = 0;
}

static void
putopaque(struct wbuf *w, const void *p, uint32_t n)
{
	put32(w, n);
	putfixed(w, p, n);
}

static void
putstr(struct wbuf *w, const char *s)
{
	putopaque(w, s, (uint32_t)strlen(s));
}

static void
call_hdr(struct wbuf *w, uint32_t xid, uint32_t prog, uint32_t vers,
	 uint32_t proc)
{
	put32(w, xid);
	put32(w, RPC_CALL);
	put32(w, 2);
	put32(w, prog);
	put32(w, vers);
	put32(w, proc);
}

/* AUTH_SYS credential with machine "client1", uid 1000, gid 100, 3 gids */
static void
put_authsys(struct wbuf *w)
{
	put32(w, RPC_AUTH_SYS);
	put32(w, 4 + 4 + 8 + 4 + 4 + 4 + 12);
	put32(w, 0x12345678);
	putstr(w, "client1");
	put32(w, 1000);
	put32(w, 100);
	put32(w, 3);
	put32(w, 1);
	put32(w, 2);
	put32(w, 3);
}

static void
put_none(struct wbuf *w)
{
	put32(w, RPC_AUTH_NONE);
	put32(w, 0);
}

static void
reply_ok_hdr(struct wbuf *w, uint32_t xid)
{
	put32(w, xid);
	put32(w, RPC_REPLY);
	put32(w, RPC_MSG_ACCEPTED);
	put_none(w);
	put32(w, RPC_SUCCESS);
}

static bool
decode_hdr(const struct wbuf *w, uint32_t cap, struct rpc_hdr *h,
	   struct xdr *c)
{
	xdr_init(c, w->b, cap, w->n);
	return rpc_decode_hdr(c, h);
}

/* --------------------------------------------------------- headers -- */

static void
test_call_headers(void)
{
	struct wbuf w = { .n = 0 };
	struct rpc_hdr h;
	struct xdr c;

	/* AUTH_NONE */
	call_hdr(&w, 0xabcd, PROG_NFS, 3, 1);
	put_none(&w);
	put_none(&w);
	put32(&w, 0xdeadbeef);
	CHECK(decode_hdr(&w, w.n, &h, &c));
	CHECK(h.xid == 0xabcd && h.msg_type == RPC_CALL && h.rpcvers == 2);
	CHECK(h.prog == PROG_NFS && h.vers == 3 && h.proc == 1);
	CHECK(h.cred.flavor == 0 && h.cred.len == 0 && h.cred.have == 0);
	CHECK(h.verf.flavor == 0 && h.verf.len == 0);
	CHECK(h.body_off == 40 && c.off == 40);
	CHECK(rpc_probe_call(w.b, w.n, w.n) && rpc_probe(w.b, w.n, w.n));

	/* AUTH_SYS with gids */
	w.n = 0;
	call_hdr(&w, 7, PROG_MOUNT, 3, 1);
	put_authsys(&w);
	put_none(&w);
	CHECK(decode_hdr(&w, w.n, &h, &c));
	CHECK(h.cred.flavor == RPC_AUTH_SYS && h.cred.len == 40);
	CHECK(h.cred.have == RPC_CRED_SYS && h.cred.stamp == 0x12345678);
	CHECK(strcmp(h.cred.machine, "client1") == 0);
	CHECK(h.cred.uid == 1000 && h.cred.gid == 100 && h.cred.ngids == 3);
	CHECK(h.cred.gids[0] == 1 && h.cred.gids[2] == 3);
	CHECK(h.body_off == 32 + 40 + 8);
	CHECK(rpc_probe_call(w.b, w.n, w.n));
	/* the same without gid values (no_attrs): at every cut and wire
	   length, the same result, error and fields but the gids; whole,
	   the cursor ends where it did */
	{
		struct rpc_hdr h2;
		struct xdr c2;
		uint32_t cut, wl, whole = w.n;
		bool r1, r2;

		for (wl = 0; wl <= whole; wl++) {
			for (cut = 0; cut <= wl; cut++) {
				w.n = wl;
				r1 = decode_hdr(&w, cut, &h, &c);
				xdr_init(&c2, w.b, cut, wl);
				c2.no_attrs = true;
				r2 = rpc_decode_hdr(&c2, &h2);
				CHECK(r1 == r2 && c.err == c2.err &&
				      c.err_off == c2.err_off && c.off == c2.off);
				CHECK(h.cred.have == h2.cred.have &&
				      h.cred.ngids == h2.cred.ngids &&
				      h.cred.uid == h2.cred.uid &&
				      h.cred.gid == h2.cred.gid &&
				      h.body_off == h2.body_off &&
				      h.verf.flavor == h2.verf.flavor &&
				      strcmp(h.cred.machine, h2.cred.machine) == 0);
			}
		}
		w.n = whole;
		xdr_init(&c2, w.b, w.n, w.n);
		c2.no_attrs = true;
		CHECK(rpc_decode_hdr(&c2, &h2) && h2.cred.ngids == 3 &&
		      h2.body_off == 32 + 40 + 8 && c2.off == w.n);
	}
	/* the same, cut inside the credential: truncated, probe still ok */
	CHECK(!decode_hdr(&w, 44, &h, &c) && c.err == XDR_TRUNCATED);
	CHECK(h.prog == PROG_MOUNT && h.proc == 1);
	CHECK(rpc_probe_call(w.b, 44, w.n));
	CHECK(rpc_probe_call(w.b, 12, w.n));
	CHECK(!rpc_probe_call(w.b, 11, w.n));

	/* AUTH_SYS whose opaque length (44) disagrees with its body (40) */
	w.n = 0;
	call_hdr(&w, 7, PROG_MOUNT, 3, 1);
	put_authsys(&w);
	put32(&w, 0);
	w.b[31] = 44;
	put_none(&w);
	CHECK(!decode_hdr(&w, w.n, &h, &c) && c.err == XDR_MALFORMED);
	CHECK(!rpc_probe_call(w.b, w.n, w.n));
	/* ... and one shorter (36) than its body */
	w.b[31] = 36;
	CHECK(!decode_hdr(&w, w.n, &h, &c) && c.err == XDR_MALFORMED);
	CHECK(!rpc_probe_call(w.b, w.n, w.n));
	/* machinename longer than 255 */
	w.b[31] = 40;
	w.b[36] = 1;
	CHECK(!decode_hdr(&w, w.n, &h, &c) && c.err == XDR_MALFORMED);
	CHECK(!rpc_probe_call(w.b, w.n, w.n));

	/* RPCSEC_GSS: vers 1, DATA, seq 9, integrity, handle of 8 */
	w.n = 0;
	call_hdr(&w, 8, PROG_NFS, 3, 0);
	put32(&w, RPC_RPCSEC_GSS);
	put32(&w, 28);
	put32(&w, 1);
	put32(&w, 0);
	put32(&w, 9);
	put32(&w, 2);
	putopaque(&w, "ctxhandl", 8);
	put32(&w, RPC_RPCSEC_GSS);
	putopaque(&w, "checksum0123", 12);
	CHECK(decode_hdr(&w, w.n, &h, &c));
	CHECK(h.cred.have == RPC_CRED_GSS && h.cred.gss_vers == 1);
	CHECK(h.cred.gss_proc == 0 && h.cred.gss_seq == 9);
	CHECK(h.cred.gss_svc == 2 && h.cred.gss_ctx_len == 8);
	CHECK(h.verf.flavor == RPC_RPCSEC_GSS && h.verf.len == 12);
	CHECK(h.body_off == w.n);
	CHECK(rpc_probe_call(w.b, w.n, w.n));

	/* AUTH_SHORT: by length only */
	w.n = 0;
	call_hdr(&w, 9, PROG_NFS, 3, 0);
	put32(&w, RPC_AUTH_SHORT);
	putopaque(&w, "shorthand", 9);
	put_none(&w);
	CHECK(decode_hdr(&w, w.n, &h, &c));
	CHECK(h.cred.flavor == RPC_AUTH_SHORT && h.cred.len == 9);
	CHECK(h.cred.have == 0 && h.body_off == w.n);

	/* credential longer than 400 */
	w.n = 0;
	call_hdr(&w, 9, PROG_NFS, 3, 0);
	put32(&w, RPC_AUTH_NONE);
	put32(&w, 404);
	memset(w.b + w.n, 0, 404);
	w.n += 404;
	put_none(&w);
	CHECK(!decode_hdr(&w, w.n, &h, &c) && c.err == XDR_MALFORMED);
	CHECK(c.err_off == 28);
	CHECK(!rpc_probe_call(w.b, w.n, w.n));

	/* rpcvers 3 */
	w.n = 0;
	call_hdr(&w, 9, PROG_NFS, 3, 0);
	w.b[11] = 3;
	put_none(&w);
	put_none(&w);
	CHECK(!decode_hdr(&w, w.n, &h, &c) && c.err == XDR_MALFORMED);
	CHECK(c.err_off == 8);
	CHECK(!rpc_probe_call(w.b, w.n, w.n));

	/* unknown flavour: decodes (by length) but the probe refuses it */
	w.n = 0;
	call_hdr(&w, 9, PROG_NFS, 3, 0);
	put32(&w, 77);
	put32(&w, 0);
	put_none(&w);
	CHECK(decode_hdr(&w, w.n, &h, &c));
	CHECK(!rpc_probe_call(w.b, w.n, w.n));
	/* wire shorter than the header */
	w.n = 0;
	call_hdr(&w, 9, PROG_NFS, 3, 0);
	put_none(&w);
	CHECK(!rpc_probe_call(w.b, w.n, w.n));
}

static void
test_reply_headers(void)
{
	struct wbuf w = { .n = 0 };
	struct rpc_hdr h;
	struct xdr c;

	reply_ok_hdr(&w, 5);
	put32(&w, 0);
	CHECK(decode_hdr(&w, w.n, &h, &c));
	CHECK(h.xid == 5 && h.msg_type == RPC_REPLY);
	CHECK(h.reply_stat == RPC_MSG_ACCEPTED && h.accept_stat == 0);
	CHECK(h.body_off == 24);
	CHECK(rpc_probe(w.b, w.n, w.n) && !rpc_probe_call(w.b, w.n, w.n));

	/* PROG_MISMATCH */
	w.n = 0;
	put32(&w, 6);
	put32(&w, RPC_REPLY);
	put32(&w, RPC_MSG_ACCEPTED);
	put32(&w, RPC_AUTH_SHORT);
	putopaque(&w, "abcd", 4);
	put32(&w, RPC_PROG_MISMATCH);
	put32(&w, 2);
	put32(&w, 3);
	CHECK(decode_hdr(&w, w.n, &h, &c));
	CHECK(h.verf.flavor == RPC_AUTH_SHORT && h.verf.len == 4);
	CHECK(h.accept_stat == RPC_PROG_MISMATCH);
	CHECK(h.mismatch_low == 2 && h.mismatch_high == 3);
	CHECK(rpc_probe(w.b, w.n, w.n));

	/* PROC_UNAVAIL, GARBAGE_ARGS, SYSTEM_ERR; 6 is malformed */
	for (uint32_t s = RPC_PROG_UNAVAIL; s <= 6; s++) {
		if (s == RPC_PROG_MISMATCH)
			continue;
		w.n = 0;
		put32(&w, 6);
		put32(&w, RPC_REPLY);
		put32(&w, RPC_MSG_ACCEPTED);
		put_none(&w);
		put32(&w, s);
		if (s <= RPC_SYSTEM_ERR) {
			CHECK(decode_hdr(&w, w.n, &h, &c));
			CHECK(h.accept_stat == s && h.body_off == 24);
			CHECK(rpc_probe(w.b, w.n, w.n));
		} else {
			CHECK(!decode_hdr(&w, w.n, &h, &c));
			CHECK(c.err == XDR_MALFORMED && c.err_off == 20);
			CHECK(!rpc_probe(w.b, w.n, w.n));
		}
	}

	/* denied: RPC_MISMATCH */
	w.n = 0;
	put32(&w, 7);
	put32(&w, RPC_REPLY);
	put32(&w, RPC_MSG_DENIED);
	put32(&w, RPC_MISMATCH);
	put32(&w, 2);
	put32(&w, 2);
	CHECK(decode_hdr(&w, w.n, &h, &c));
	CHECK(h.reply_stat == RPC_MSG_DENIED && h.reject_stat == RPC_MISMATCH);
	CHECK(h.mismatch_low == 2 && h.mismatch_high == 2 && h.body_off == 24);
	CHECK(rpc_probe(w.b, w.n, w.n));

	/* denied: AUTH_ERROR AUTH_TOOWEAK */
	w.n = 0;
	put32(&w, 7);
	put32(&w, RPC_REPLY);
	put32(&w, RPC_MSG_DENIED);
	put32(&w, RPC_AUTH_ERROR);
	put32(&w, 5);
	CHECK(decode_hdr(&w, w.n, &h, &c));
	CHECK(h.reject_stat == RPC_AUTH_ERROR && h.auth_stat == 5);
	CHECK(rpc_probe(w.b, w.n, w.n));
	w.b[19] = 15;
	CHECK(!decode_hdr(&w, w.n, &h, &c) && c.err == XDR_MALFORMED);
	CHECK(!rpc_probe(w.b, w.n, w.n));
	w.b[15] = 2;
	CHECK(!decode_hdr(&w, w.n, &h, &c) && c.err == XDR_MALFORMED);
	CHECK(!rpc_probe(w.b, w.n, w.n));
	/* reply_stat 2, msg_type 2 */
	w.b[11] = 2;
	CHECK(!decode_hdr(&w, w.n, &h, &c) && c.err_off == 8);
	CHECK(!rpc_probe(w.b, w.n, w.n));
	w.b[7] = 2;
	CHECK(!decode_hdr(&w, w.n, &h, &c) && c.err_off == 4);
	CHECK(!rpc_probe(w.b, w.n, w.n));
}

static uint32_t
lcg(uint32_t *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

static void
test_probe_garbage(void)
{
	uint8_t b[96];
	uint32_t seed = 1, i, j, hits = 0, hits_shaped = 0;

	for (i = 0; i < 200000; i++) {
		for (j = 0; j < sizeof(b); j++)
			b[j] = (uint8_t)lcg(&seed);
		if (rpc_probe(b, sizeof(b), sizeof(b)))
			hits++;
		/* call-shaped garbage: msg_type 0, rpcvers 2, rest random */
		memset(b + 4, 0, 4);
		memcpy(b + 8, "\0\0\0\2", 4);
		if (rpc_probe(b, sizeof(b), sizeof(b)))
			hits_shaped++;
	}
	CHECK(hits == 0);
	CHECK(hits_shaped == 0);
	/* fewer than 12 bytes captured */
	memset(b, 0, sizeof(b));
	b[11] = 2;
	CHECK(!rpc_probe(b, 11, 96));
	CHECK(!rpc_probe(b, 0, 0));
}

/* ----------------------------------------------------------- bodies -- */

static void
body(const struct wbuf *w, struct xdr *c)
{
	xdr_init(c, w->b, w->n, w->n);
}

static void
test_mount(void)
{
	struct wbuf w = { .n = 0 };
	static struct mnt_msg m;
	uint8_t fh[32];
	struct xdr c;

	for (int i = 0; i < 32; i++)
		fh[i] = (uint8_t)i;

	/* MNT call */
	putstr(&w, "/export/home");
	body(&w, &c);
	m.have = 0;
	CHECK(mnt_decode_call(&c, 3, MOUNT_MNT, &m));
	CHECK(m.have == MNT_PATH && strcmp(m.path.s, "/export/home") == 0);
	CHECK(m.path.len == 12);

	/* v1 MNT reply: fhstatus 0 + fhandle[32] */
	w.n = 0;
	put32(&w, 0);
	putfixed(&w, fh, 32);
	body(&w, &c);
	m.have = 0;
	CHECK(mnt_decode_reply(&c, 1, MOUNT_MNT, &m));
	CHECK(m.have == (MNT_STATUS | MNT_FH) && m.status == 0);
	CHECK(m.fh.len == 32 && memcmp(m.fh.data, fh, 32) == 0);
	/* v1 error: errno, no handle */
	w.n = 0;
	put32(&w, 13);
	body(&w, &c);
	m.have = 0;
	CHECK(mnt_decode_reply(&c, 1, MOUNT_MNT, &m));
	CHECK(m.have == MNT_STATUS && m.status == 13);

	/* v3 MNT reply: MNT3_OK, fhandle3 (28), auth_flavors {1, 390003} */
	w.n = 0;
	put32(&w, 0);
	putopaque(&w, fh, 28);
	put32(&w, 2);
	put32(&w, 1);
	put32(&w, 390003);
	body(&w, &c);
	m.have = 0;
	CHECK(mnt_decode_reply(&c, 3, MOUNT_MNT, &m));
	CHECK(m.have == (MNT_STATUS | MNT_FH | MNT_FLAVORS));
	CHECK(m.fh.len == 28 && memcmp(m.fh.data, fh, 28) == 0);
	CHECK(m.nflavors == 2 && m.flavors[0] == 1 && m.flavors[1] == 390003);
	CHECK(c.off == w.n);
	/* lying flavour count */
	w.b[4 + 4 + 28 + 3] = 200;
	body(&w, &c);
	m.have = 0;
	CHECK(!mnt_decode_reply(&c, 3, MOUNT_MNT, &m));
	CHECK(c.err == XDR_MALFORMED);

	/* v3 bad status (Zeek's 0x42424242): kept, void arm, not malformed */
	w.n = 0;
	put32(&w, 0x42424242);
	body(&w, &c);
	m.have = 0;
	CHECK(mnt_decode_reply(&c, 3, MOUNT_MNT, &m));
	CHECK(m.have == MNT_STATUS && m.status == 0x42424242);
	CHECK(mnt_stat_name(3, m.status) == NULL);

	/* EXPORT: /a (groups g1, g2), /b (none) */
	w.n = 0;
	put32(&w, 1);
	putstr(&w, "/a");
	put32(&w, 1);
	putstr(&w, "g1");
	put32(&w, 1);
	putstr(&w, "g2");
	put32(&w, 0);
	put32(&w, 1);
	putstr(&w, "/b");
	put32(&w, 0);
	put32(&w, 0);
	body(&w, &c);
	m.have = 0;
	CHECK(mnt_decode_reply(&c, 3, MOUNT_EXPORT, &m));
	CHECK(m.have == MNT_EXPORTS && m.nlist == 2 && m.list_total == 2);
	CHECK(strcmp(m.exports[0].dir.s, "/a") == 0);
	CHECK(m.exports[0].ngroups == 2);
	CHECK(strcmp(m.exports[0].groups[1].s, "g2") == 0);
	CHECK(strcmp(m.exports[1].dir.s, "/b") == 0);
	CHECK(m.exports[1].ngroups == 0);
	/* the same, cut in the middle: truncated, first export kept */
	xdr_init(&c, w.b, 48, w.n);
	m.have = 0;
	CHECK(!mnt_decode_reply(&c, 3, MOUNT_EXPORT, &m));
	CHECK(c.err == XDR_TRUNCATED && m.have == 0 && m.nlist == 1);

	/* DUMP: two mounts */
	w.n = 0;
	put32(&w, 1);
	putstr(&w, "hostA");
	putstr(&w, "/x");
	put32(&w, 1);
	putstr(&w, "hostB");
	putstr(&w, "/y/z");
	put32(&w, 0);
	body(&w, &c);
	m.have = 0;
	CHECK(mnt_decode_reply(&c, 1, MOUNT_DUMP, &m));
	CHECK(m.have == MNT_MOUNTS && m.nlist == 2 && m.list_total == 2);
	CHECK(strcmp(m.mounts[0].host.s, "hostA") == 0);
	CHECK(strcmp(m.mounts[1].dir.s, "/y/z") == 0);
	/* a list that never ends: runs out of wire, malformed */
	w.n = 0;
	for (int i = 0; i < 100; i++) {
		put32(&w, 1);
		putstr(&w, "h");
		putstr(&w, "/");
	}
	body(&w, &c);
	m.have = 0;
	CHECK(!mnt_decode_reply(&c, 1, MOUNT_DUMP, &m));
	CHECK(c.err == XDR_MALFORMED && m.nlist == MNT_LIST_MAX);
	CHECK(m.list_total == 100);

	/* UMNTALL reply: void */
	w.n = 0;
	body(&w, &c);
	m.have = 0;
	CHECK(mnt_decode_reply(&c, 3, MOUNT_UMNTALL, &m) && m.have == 0);
}

static void
test_portmap(void)
{
	struct wbuf w = { .n = 0 };
	static struct pmap_msg p;
	struct xdr c;

	/* GETPORT call: mapping */
	put32(&w, PROG_NFS);
	put32(&w, 3);
	put32(&w, 17);
	put32(&w, 0);
	body(&w, &c);
	p.have = 0;
	CHECK(pmap_decode_call(&c, 2, PMAP_GETPORT, &p));
	CHECK(p.have == PMAP_MAPPING && p.map.prog == PROG_NFS);
	CHECK(p.map.vers == 3 && p.map.prot == 17 && p.map.port == 0);
	/* GETPORT reply */
	w.n = 0;
	put32(&w, 2049);
	body(&w, &c);
	p.have = 0;
	CHECK(pmap_decode_reply(&c, 2, PMAP_GETPORT, &p));
	CHECK(p.have == PMAP_PORT && p.port == 2049);
	/* SET reply: bool; 2 is malformed */
	w.n = 0;
	put32(&w, 1);
	body(&w, &c);
	p.have = 0;
	CHECK(pmap_decode_reply(&c, 2, PMAP_SET, &p) && p.result);
	CHECK(p.have == PMAP_BOOL);
	w.b[3] = 2;
	body(&w, &c);
	CHECK(!pmap_decode_reply(&c, 2, PMAP_SET, &p));

	/* DUMP reply: 3 mappings */
	w.n = 0;
	for (uint32_t i = 0; i < 3; i++) {
		put32(&w, 1);
		put32(&w, 100000 + i);
		put32(&w, 2);
		put32(&w, 6);
		put32(&w, 111 + i);
	}
	put32(&w, 0);
	body(&w, &c);
	p.have = 0;
	CHECK(pmap_decode_reply(&c, 2, PMAP_DUMP, &p));
	CHECK(p.have == PMAP_LIST && p.nlist == 3 && p.list_total == 3);
	CHECK(p.maps[2].prog == 100002 && p.maps[2].port == 113);
	CHECK(p.maps[0].prot == 6);

	/* CALLIT call and reply */
	w.n = 0;
	put32(&w, 100232);
	put32(&w, 10);
	put32(&w, 0);
	putopaque(&w, "argsargsa", 9);
	body(&w, &c);
	p.have = 0;
	CHECK(pmap_decode_call(&c, 2, PMAP_CALLIT, &p));
	CHECK(p.have == PMAP_CALLARGS && p.call_prog == 100232);
	CHECK(p.call_vers == 10 && p.call_proc == 0 && p.args_len == 9);
	w.n = 0;
	put32(&w, 32771);
	putopaque(&w, "res", 3);
	body(&w, &c);
	p.have = 0;
	CHECK(pmap_decode_reply(&c, 2, PMAP_CALLIT, &p));
	CHECK(p.have == (PMAP_PORT | PMAP_RESLEN) && p.port == 32771);
	CHECK(p.res_len == 3);
	/* results not captured: skipped by length */
	xdr_init(&c, w.b, 8, w.n);
	p.have = 0;
	CHECK(pmap_decode_reply(&c, 2, PMAP_CALLIT, &p) && p.res_len == 3);

	/* rpcbind v4 GETADDR call (rpcb) and reply (uaddr) */
	w.n = 0;
	put32(&w, PROG_MOUNT);
	put32(&w, 3);
	putstr(&w, "tcp");
	putstr(&w, "");
	putstr(&w, "superuser");
	body(&w, &c);
	p.have = 0;
	CHECK(pmap_decode_call(&c, 4, RPCB_GETADDR, &p));
	CHECK(p.have == PMAP_RPCB && p.rpcb.prog == PROG_MOUNT);
	CHECK(strcmp(p.rpcb.netid, "tcp") == 0 && p.rpcb.addr[0] == 0);
	CHECK(strcmp(p.rpcb.owner, "superuser") == 0);
	w.n = 0;
	putstr(&w, "10.0.0.1.78.80");
	body(&w, &c);
	p.have = 0;
	CHECK(pmap_decode_reply(&c, 4, RPCB_GETADDR, &p));
	CHECK(p.have == PMAP_UADDR && strcmp(p.uaddr, "10.0.0.1.78.80") == 0);
	/* a 300-byte owner: first 255 kept */
	w.n = 0;
	put32(&w, 1);
	put32(&w, 1);
	putstr(&w, "udp");
	putstr(&w, "0.0.0.0.0.111");
	{
		char big[301];

		memset(big, 'o', 300);
		big[300] = 0;
		putstr(&w, big);
	}
	body(&w, &c);
	p.have = 0;
	CHECK(pmap_decode_call(&c, 3, RPCB_SET, &p));
	CHECK(strlen(p.rpcb.owner) == 255 && c.off == w.n);
	/* GETTIME */
	w.n = 0;
	put32(&w, 1700000000);
	body(&w, &c);
	p.have = 0;
	CHECK(pmap_decode_reply(&c, 3, RPCB_GETTIME, &p));
	CHECK(p.have == PMAP_TIME && p.time == 1700000000);
}

static void
put_nlm4_lock(struct wbuf *w, const uint8_t *fh)
{
	putstr(w, "clienthost");
	putopaque(w, fh, 32);
	putopaque(w, "owner", 5);
	put32(w, 4242);
	put64(w, 0x100000000ull);
	put64(w, 0xffffffffffffffffull);
}

static void
test_nlm(void)
{
	struct wbuf w = { .n = 0 };
	static struct nlm_msg n;
	uint8_t fh[32];
	struct xdr c;

	for (int i = 0; i < 32; i++)
		fh[i] = (uint8_t)(0xa0 + i);

	/* v4 LOCK: nlm4_lockargs */
	putopaque(&w, "cook", 4);
	put32(&w, 1);
	put32(&w, 1);
	put_nlm4_lock(&w, fh);
	put32(&w, 0);
	put32(&w, 3);
	body(&w, &c);
	n.have = 0;
	CHECK(nlm_decode_call(&c, 4, NLM_LOCK, &n));
	CHECK(n.have == (NLM_COOKIE | NLM_BLOCK | NLM_EXCLUSIVE | NLM_LOCKV |
			 NLM_RECLAIM | NLM_STATE));
	CHECK(n.cookie.len == 4 && memcmp(n.cookie.data, "cook", 4) == 0);
	CHECK(n.block && n.exclusive && !n.reclaim && n.state == 3);
	CHECK(strcmp(n.lock.caller_name.s, "clienthost") == 0);
	CHECK(n.lock.fh.len == 32 && memcmp(n.lock.fh.data, fh, 32) == 0);
	CHECK(n.lock.oh.len == 5 && memcmp(n.lock.oh.data, "owner", 5) == 0);
	CHECK(n.lock.svid == 4242 && n.lock.offset == 0x100000000ull);
	CHECK(n.lock.length == 0xffffffffffffffffull);
	CHECK(c.off == w.n);
	/* the same bytes as LOCK_MSG */
	body(&w, &c);
	n.have = 0;
	CHECK(nlm_decode_call(&c, 4, NLM_LOCK_MSG, &n) && c.off == w.n);

	/* v4 TEST reply denied with holder */
	w.n = 0;
	putopaque(&w, "cook", 4);
	put32(&w, 1);
	put32(&w, 0);
	put32(&w, (uint32_t)-7);
	putopaque(&w, "other", 5);
	put64(&w, 10);
	put64(&w, 20);
	body(&w, &c);
	n.have = 0;
	CHECK(nlm_decode_reply(&c, 4, NLM_TEST, &n));
	CHECK(n.have == (NLM_COOKIE | NLM_STATUS | NLM_HOLDER));
	CHECK(n.status == 1 && !n.holder_exclusive && n.holder_svid == -7);
	CHECK(n.holder_oh.len == 5 && n.holder_offset == 10);
	CHECK(n.holder_length == 20);
	CHECK(strcmp(nlm_stat_name(4, n.status), "NLM4_DENIED") == 0);
	/* same as TEST_RES call body */
	body(&w, &c);
	n.have = 0;
	CHECK(nlm_decode_call(&c, 4, NLM_TEST_RES, &n));
	CHECK(n.have & NLM_HOLDER);

	/* v1 TEST granted: no holder; 32-bit offsets in testargs */
	w.n = 0;
	putopaque(&w, "c", 1);
	put32(&w, 0);
	body(&w, &c);
	n.have = 0;
	CHECK(nlm_decode_reply(&c, 1, NLM_TEST, &n));
	CHECK(n.have == (NLM_COOKIE | NLM_STATUS) && n.status == 0);
	w.n = 0;
	putopaque(&w, "c", 1);
	put32(&w, 1);
	putstr(&w, "h");
	putopaque(&w, fh, 32);
	putopaque(&w, "o", 1);
	put32(&w, 1);
	put32(&w, 100);
	put32(&w, 200);
	body(&w, &c);
	n.have = 0;
	CHECK(nlm_decode_call(&c, 1, NLM_TEST, &n));
	CHECK(n.lock.offset == 100 && n.lock.length == 200 && c.off == w.n);

	/* netobj longer than 1024: malformed */
	w.n = 0;
	put32(&w, 1025);
	memset(w.b + w.n, 0, 1028);
	w.n += 1028;
	body(&w, &c);
	n.have = 0;
	CHECK(!nlm_decode_reply(&c, 4, NLM_LOCK, &n) && c.err == XDR_MALFORMED);
	/* a 100-byte fh netobj: first 64 kept */
	w.n = 0;
	putopaque(&w, "c", 1);
	{
		uint8_t big[100];

		memset(big, 0x5a, sizeof(big));
		putstr(&w, "h");
		putopaque(&w, big, 100);
	}
	putopaque(&w, "o", 1);
	put32(&w, 1);
	put32(&w, 0);
	put32(&w, 0);
	body(&w, &c);
	n.have = 0;
	CHECK(nlm_decode_call(&c, 3, NLM_UNLOCK, &n));
	CHECK(n.lock.fh.len == 64 && n.lock.fh.data[63] == 0x5a);
}

/* ---------------------------------------------------------- xid map -- */

static void
addr4(struct cap_addr *a, uint8_t last)
{
	memset(a, 0, sizeof(*a));
	a->family = 4;
	a->a[0] = 10;
	a->a[3] = last;
}

static struct dec_xid_key
xm_key(const struct cap_addr *cl, const struct cap_addr *sv, uint32_t xid)
{
	struct dec_xid_key k = { .client = *cl, .server = *sv,
				 .client_port = 800, .server_port = 2049,
				 .xid = xid };

	return k;
}

static void
xm_put(struct dec_xidmap *m, const struct cap_addr *cl,
       const struct cap_addr *sv, uint32_t xid, const struct dec_xid_call *c)
{
	struct dec_xid_key k = xm_key(cl, sv, xid);

	dec_xidmap_put(m, &k, c);
}

static bool
xm_get(struct dec_xidmap *m, const struct cap_addr *cl,
       const struct cap_addr *sv, uint32_t xid, int64_t now,
       struct dec_xid_call *out)
{
	struct dec_xid_key k = xm_key(cl, sv, xid);

	return dec_xidmap_get(m, &k, now, out);
}

static void
test_xidmap(void)
{
	struct dec_xidmap *m = dec_xidmap_new(2, 1000);
	struct dec_xid_call call = { .prog = PROG_NFS, .vers = 3, .proc = 6,
				     .ts_ns = 100, .frame = 1 };
	struct dec_xid_call out;
	struct cap_addr cl, sv, other;

	addr4(&cl, 1);
	addr4(&sv, 2);
	addr4(&other, 3);
	CHECK(m != NULL);
	xm_put(m, &cl, &sv, 1, &call);
	CHECK(xm_get(m, &cl, &sv, 1, 200, &out));
	CHECK(out.prog == PROG_NFS && out.proc == 6 && out.frame == 1);
	{
		/* another client port: falls back to the call from port 800
		   (a UDP retransmission from another port) ... */
		struct dec_xid_key k = xm_key(&cl, &sv, 1);
		struct dec_xid_call c2 = call;

		k.client_port = 801;
		CHECK(dec_xidmap_get(m, &k, 200, &out) && out.frame == 1);
		/* ... but an exact match wins over it */
		c2.proc = 8;
		c2.frame = 9;
		dec_xidmap_put(m, &k, &c2);
		CHECK(dec_xidmap_get(m, &k, 200, &out) && out.proc == 8);
		k.client_port = 800;
		CHECK(dec_xidmap_get(m, &k, 200, &out) && out.proc == 6);
		/* other addresses never match */
		k.server = other;
		CHECK(!dec_xidmap_get(m, &k, 200, &out));
		dec_xidmap_free(m);
		m = dec_xidmap_new(2, 1000);
		xm_put(m, &cl, &sv, 1, &call);
	}
	CHECK(!xm_get(m, &sv, &cl, 1, 200, &out));
	CHECK(!xm_get(m, &cl, &other, 1, 200, &out));
	CHECK(!xm_get(m, &cl, &sv, 2, 200, &out));
	/* stays for duplicate replies */
	CHECK(xm_get(m, &cl, &sv, 1, 300, &out));
	/* replace with the same key */
	call.proc = 7;
	call.frame = 2;
	xm_put(m, &cl, &sv, 1, &call);
	CHECK(xm_get(m, &cl, &sv, 1, 300, &out) && out.proc == 7);
	/* expiry: older than ttl (1000 ns) misses */
	CHECK(!xm_get(m, &cl, &sv, 1, 1200, &out));
	CHECK(!xm_get(m, &cl, &sv, 1, 300, &out));
	/* eviction: 3 live entries in a map of 2 */
	call.ts_ns = 2000;
	xm_put(m, &cl, &sv, 10, &call);
	xm_put(m, &cl, &sv, 11, &call);
	CHECK(dec_xidmap_evictions(m) == 0);
	xm_put(m, &cl, &sv, 12, &call);
	CHECK(dec_xidmap_evictions(m) == 1);
	CHECK(!xm_get(m, &cl, &sv, 10, 2100, &out));
	CHECK(xm_get(m, &cl, &sv, 11, 2100, &out));
	CHECK(xm_get(m, &cl, &sv, 12, 2100, &out));
	/* reuse of an expired entry is not an eviction */
	call.ts_ns = 9000;
	xm_put(m, &cl, &sv, 13, &call);
	CHECK(dec_xidmap_evictions(m) == 1);
	dec_xidmap_free(m);
	dec_xidmap_free(NULL);
	{
		/* A full table passes over a call still awaiting its reply:
		 * xid 100 is never answered, then 1000 answered calls go
		 * through a table of 8; 100 is still there (its reply would
		 * decode), nothing evicted. */
		struct dec_xid_key k;
		uint32_t x;

		m = dec_xidmap_new(8, 1000000);
		call.ts_ns = 10000;
		xm_put(m, &cl, &sv, 100, &call);
		for (x = 1000; x < 2000; x++) {
			xm_put(m, &cl, &sv, x, &call);
			k = xm_key(&cl, &sv, x);
			dec_xidmap_answered(m, &k, 100);
		}
		CHECK(xm_get(m, &cl, &sv, 100, 20000, &out));
		CHECK(xm_get(m, &cl, &sv, 1999, 20000, &out));
		CHECK(!xm_get(m, &cl, &sv, 1000, 20000, &out));
		CHECK(dec_xidmap_evictions(m) == 0);
		/* calls awaiting replies fill it: the 7 answered nodes go
		 * first, then each of the other 41 puts evicts one (100
		 * among them) */
		for (x = 3000; x < 3048; x++)
			xm_put(m, &cl, &sv, x, &call);
		CHECK(dec_xidmap_evictions(m) == 41);
		CHECK(!xm_get(m, &cl, &sv, 100, 20000, &out));
		CHECK(xm_get(m, &cl, &sv, 3047, 20000, &out));
		dec_xidmap_free(m);
	}
}

/* ---------------------------------------------------------- message -- */

static void
msg_init(struct cap_msg *m, const struct wbuf *w, const struct cap_addr *src,
	 const struct cap_addr *dst, uint64_t frame)
{
	memset(m, 0, sizeof(*m));
	m->frame = frame;
	m->ts_ns = (int64_t)frame * 1000;
	m->src = *src;
	m->dst = *dst;
	m->transport = CAP_UDP;
	m->caplen = w->n;
	m->len = w->n;
	m->data = w->b;
}

/* End of input: every held reply goes its way (none finds a call here). */
static void
settle(struct dec *d, struct dec_msg *out)
{
	bool rpc = true;

	dec_flush(d);
	while (dec_next(d, out, &rpc) != NULL)
		CHECK(!rpc);
}

static void
test_message(void)
{
	static struct dec_msg out;
	struct dec *d = dec_new(NULL);
	struct cap_addr cl, sv;
	struct wbuf w = { .n = 0 };
	struct cap_msg m;
	uint8_t fh[28];
	const struct dec_stats *st;

	addr4(&cl, 1);
	addr4(&sv, 2);
	memset(fh, 0x11, sizeof(fh));
	CHECK(d != NULL);
	st = dec_get_stats(d);

	/* MOUNT v3 MNT call */
	call_hdr(&w, 0x1001, PROG_MOUNT, 3, MOUNT_MNT);
	put_authsys(&w);
	put_none(&w);
	putstr(&w, "/export");
	msg_init(&m, &w, &cl, &sv, 1);
	CHECK(dec_message(d, &m, &out));
	CHECK(out.status == DEC_OK && out.kind == DEC_BODY_MNT);
	CHECK(out.prog == PROG_MOUNT && out.vers == 3 && out.proc == 1);
	CHECK(out.rpc.cred.uid == 1000 && !out.call_seen);
	CHECK(out.u.mnt.have == MNT_PATH);
	CHECK(strcmp(out.u.mnt.path.s, "/export") == 0);
	CHECK(st->calls == 1 && st->msgs == 1);

	/* its reply */
	w.n = 0;
	reply_ok_hdr(&w, 0x1001);
	put32(&w, 0);
	putopaque(&w, fh, 28);
	put32(&w, 1);
	put32(&w, 1);
	msg_init(&m, &w, &sv, &cl, 2);
	CHECK(dec_message(d, &m, &out));
	CHECK(out.status == DEC_OK && out.kind == DEC_BODY_MNT);
	CHECK(out.call_seen && out.call_frame == 1 && out.call_ts_ns == 1000);
	CHECK(out.prog == PROG_MOUNT && out.proc == MOUNT_MNT);
	CHECK(out.u.mnt.have == (MNT_STATUS | MNT_FH | MNT_FLAVORS));
	CHECK(out.u.mnt.fh.len == 28 && out.u.mnt.nflavors == 1);
	CHECK(st->replies == 1);
	/* the same reply coming from the wrong direction: orphan (held for
	   a call that might come later; none does) */
	msg_init(&m, &w, &cl, &sv, 3);
	CHECK(!dec_message(d, &m, &out));
	CHECK(dec_held(d) && st->late_held == 1);
	settle(d, &out);
	CHECK(st->orphan_replies == 1);
	/* a reply with no call */
	w.b[3] = 0x02;
	msg_init(&m, &w, &sv, &cl, 4);
	CHECK(!dec_message(d, &m, &out));
	settle(d, &out);
	CHECK(st->orphan_replies == 2 && st->replies == 1);

	/* garbage */
	memset(w.b, 0x41, 64);
	w.n = 64;
	msg_init(&m, &w, &cl, &sv, 5);
	CHECK(!dec_message(d, &m, &out) && st->not_rpc == 1);
	w.n = 8;
	CHECK(!dec_message(d, &m, &out) && st->not_rpc == 2);

	/* NFSv3 READ call cut by the snaplen inside the body, then a reply
	   whose data was not captured */
	w.n = 0;
	call_hdr(&w, 0x2002, PROG_NFS, 3, NFS3_READ);
	put_none(&w);
	put_none(&w);
	putopaque(&w, fh, 28);
	put64(&w, 8192);
	put32(&w, 4096);
	msg_init(&m, &w, &cl, &sv, 6);
	m.caplen = 50;
	CHECK(dec_message(d, &m, &out));
	CHECK(out.status == DEC_TRUNCATED && out.kind == DEC_BODY_NFS_CALL);
	CHECK(out.proc == NFS3_READ && st->truncated == 1);
	/* header cut: still a call, remembered */
	m.caplen = 30;
	CHECK(dec_message(d, &m, &out));
	CHECK(out.status == DEC_TRUNCATED && out.kind == DEC_BODY_NONE);
	CHECK(out.err_off == 28);
	/* denied reply: body skipped */
	w.n = 0;
	put32(&w, 0x2002);
	put32(&w, RPC_REPLY);
	put32(&w, RPC_MSG_DENIED);
	put32(&w, RPC_AUTH_ERROR);
	put32(&w, 1);
	msg_init(&m, &w, &sv, &cl, 7);
	CHECK(dec_message(d, &m, &out));
	CHECK(out.status == DEC_BODY_SKIPPED && out.kind == DEC_BODY_NONE);
	CHECK(out.call_seen && out.rpc.auth_stat == 1);

	/* NSM call: valid RPC, body skipped */
	w.n = 0;
	call_hdr(&w, 0x3003, PROG_NSM, 1, 0);
	put_none(&w);
	put_none(&w);
	msg_init(&m, &w, &cl, &sv, 8);
	CHECK(dec_message(d, &m, &out));
	CHECK(out.status == DEC_BODY_SKIPPED && out.kind == DEC_BODY_NONE);

	/* malformed MOUNT call body (path > 1024) */
	w.n = 0;
	call_hdr(&w, 0x4004, PROG_MOUNT, 3, MOUNT_MNT);
	put_none(&w);
	put_none(&w);
	put32(&w, 2000);
	memset(w.b + w.n, 'a', 2000);
	w.n += 2000;
	msg_init(&m, &w, &cl, &sv, 9);
	CHECK(dec_message(d, &m, &out));
	CHECK(out.status == DEC_MALFORMED && out.err_off == 40);
	CHECK(st->malformed == 1);

	/* portmap GETPORT call + reply through dec_message */
	w.n = 0;
	call_hdr(&w, 0x5005, PROG_PORTMAP, 2, PMAP_GETPORT);
	put_none(&w);
	put_none(&w);
	put32(&w, PROG_MOUNT);
	put32(&w, 3);
	put32(&w, 6);
	put32(&w, 0);
	msg_init(&m, &w, &cl, &sv, 10);
	CHECK(dec_message(d, &m, &out) && out.kind == DEC_BODY_PMAP);
	CHECK(out.u.pmap.have == PMAP_MAPPING);
	w.n = 0;
	reply_ok_hdr(&w, 0x5005);
	put32(&w, 20048);
	msg_init(&m, &w, &sv, &cl, 11);
	CHECK(dec_message(d, &m, &out) && out.kind == DEC_BODY_PMAP);
	CHECK(out.u.pmap.have == PMAP_PORT && out.u.pmap.port == 20048);

	dec_free(d);
	dec_free(NULL);
}

static void
test_names(void)
{
	CHECK(strcmp(dec_prog_name(PROG_NFS), "NFS") == 0);
	CHECK(strcmp(dec_prog_name(100011), "RQUOTA") == 0);
	CHECK(dec_prog_name(12345) == NULL);
	CHECK(strcmp(dec_proc_name(PROG_NFS, 3, 21), "COMMIT") == 0);
	CHECK(dec_proc_name(PROG_NFS, 3, 22) == NULL);
	CHECK(strcmp(dec_proc_name(PROG_NFS, 2, 17), "STATFS") == 0);
	CHECK(strcmp(dec_proc_name(PROG_NLM, 4, 23), "FREE_ALL") == 0);
	CHECK(dec_proc_name(PROG_NLM, 4, 17) == NULL);
	CHECK(dec_proc_name(PROG_NLM, 1, 20) == NULL);
	CHECK(strcmp(dec_proc_name(PROG_PORTMAP, 4, 9), "GETVERSADDR") == 0);
	CHECK(dec_proc_name(PROG_PORTMAP, 2, 6) == NULL);
	CHECK(strcmp(dec_proc_name(PROG_NSM, 1, 6), "NOTIFY") == 0);
	CHECK(dec_proc_name(PROG_MOUNT, 3, 6) == NULL);
	CHECK(strcmp(dec_proc_name(PROG_MOUNT, 1, 6), "EXPORTALL") == 0);
	CHECK(strcmp(nfs_stat_name(3, 10008), "NFS3ERR_JUKEBOX") == 0);
	CHECK(strcmp(nfs_stat_name(2, 70), "NFSERR_STALE") == 0);
	CHECK(nfs_stat_name(3, 3) == NULL);
	CHECK(strcmp(mnt_stat_name(3, 10006), "MNT3ERR_SERVERFAULT") == 0);
	CHECK(strcmp(nlm_stat_name(1, 4), "LCK_DENIED_GRACE_PERIOD") == 0);
	CHECK(nlm_stat_name(1, 5) == NULL);
	CHECK(strcmp(nlm_stat_name(4, 9), "NLM4_FAILED") == 0);
	CHECK(strcmp(rpc_accept_name(5), "SYSTEM_ERR") == 0);
	CHECK(rpc_accept_name(6) == NULL);
	CHECK(strcmp(rpc_auth_stat_name(14), "RPCSEC_GSS_CTXPROBLEM") == 0);
	CHECK(strcmp(rpc_flavor_name(1), "AUTH_SYS") == 0);
	CHECK(rpc_flavor_name(0xFFFFFFFFu) == NULL);
	CHECK(strcmp(nfs_stable_name(2), "FILE_SYNC") == 0);
	CHECK(strcmp(nfs_ftype_name(3, 7), "NF3FIFO") == 0);
	CHECK(nfs_ftype_name(3, 0) == NULL && nfs_ftype_name(3, 8) == NULL);
}

/*
 * rpc_call_hdr_probes: a call header decoded whole with it true must pass
 * rpc_probe_call (dec_message skips the probe then).  Valid headers of
 * each credential shape, then 1 to 3 of their words replaced (by small
 * numbers, flavours, lengths near the limits or random words) and the
 * capture and wire cut anywhere, from a fixed seed; the cases where the
 * shortcut is taken are counted, so the test cannot pass vacuously.
 */
static uint32_t sc_state = 12345;

static uint32_t
sc_rand(void)
{
	sc_state = sc_state * 1103515245u + 12345u;
	return sc_state >> 8;
}

static void
test_probe_shortcut(void)
{
	static const uint32_t vals[] = {
		0, 1, 2, 3, 4, 6, 8, 9, 20, 24, 28, 36, 40, 44, 255, 256,
		396, 400, 401, 404, RPC_RPCSEC_GSS, 390004, 0xFFFFFFFFu
	};
	struct wbuf base[4], w;
	struct rpc_hdr h;
	struct xdr c;
	uint32_t nshort = 0, nprobe_only = 0, i, k;

	for (k = 0; k < 4; k++) {
		base[k].n = 0;
		call_hdr(&base[k], 0x100 + k, PROG_NFS, 3, 4);
	}
	put_none(&base[0]);
	put_none(&base[0]);
	put_authsys(&base[1]);
	put_none(&base[1]);
	put_authsys(&base[2]);
	put32(&base[2], RPC_AUTH_SHORT);
	putopaque(&base[2], "verifier", 8);
	put32(&base[3], RPC_RPCSEC_GSS);
	put32(&base[3], 28);
	put32(&base[3], 1);
	put32(&base[3], 0);
	put32(&base[3], 9);
	put32(&base[3], 1);
	putopaque(&base[3], "ctxhandl", 8);
	put32(&base[3], RPC_RPCSEC_GSS);
	putopaque(&base[3], "checksum0123", 12);
	for (k = 0; k < 4; k++) {
		put32(&base[k], 0xcafe);	/* a body word */
		CHECK(decode_hdr(&base[k], base[k].n, &h, &c) &&
		      rpc_call_hdr_probes(&h) &&
		      rpc_probe_call(base[k].b, base[k].n, base[k].n));
	}
	for (i = 0; i < 200000; i++) {
		uint32_t nmut = 1 + sc_rand() % 3, m, wl, cap;
		bool ok;

		w = base[sc_rand() % 4];
		for (m = 0; m < nmut && i % 8 != 0; m++) {
			uint32_t at = 4 * (2 + sc_rand() % (w.n / 4 - 2));
			uint32_t v = sc_rand() % 4 == 0 ? sc_rand() * 7919u :
				     vals[sc_rand() % (sizeof(vals) /
						   sizeof(vals[0]))];

			w.b[at] = (uint8_t)(v >> 24);
			w.b[at + 1] = (uint8_t)(v >> 16);
			w.b[at + 2] = (uint8_t)(v >> 8);
			w.b[at + 3] = (uint8_t)v;
		}
		wl = sc_rand() % 4 == 0 ? sc_rand() % (w.n + 1) : w.n;
		cap = sc_rand() % 4 == 0 ? sc_rand() % (wl + 1) : wl;
		w.n = wl;
		ok = decode_hdr(&w, cap, &h, &c);
		if (ok && rpc_call_hdr_probes(&h)) {
			nshort++;
			if (!rpc_probe_call(w.b, cap, wl)) {
				CHECK(!"shortcut taken where the probe fails");
				printf("  case %u: wire %u cap %u\n", i, wl, cap);
				break;
			}
		} else if (rpc_probe_call(w.b, cap, wl)) {
			nprobe_only++;
		}
	}
	printf("  probe shortcut: %u cases, probe alone: %u\n", nshort, nprobe_only);
	/* both paths taken many times */
	CHECK(nshort > 20000 && nprobe_only > 1000);
}

/* An NFSv3 GETATTR call (xid) and its reply (status NFS3ERR_NOENT: no
 * attributes follow), hand-written. */
static void
getattr_call(struct wbuf *w, uint32_t xid)
{
	static const uint8_t fh[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };

	w->n = 0;
	call_hdr(w, xid, PROG_NFS, 3, NFS3_GETATTR);
	put_none(w);
	put_none(w);
	putopaque(w, fh, sizeof(fh));
}

static void
getattr_reply(struct wbuf *w, uint32_t xid)
{
	w->n = 0;
	reply_ok_hdr(w, xid);
	put32(w, 2);	/* NFS3ERR_NOENT */
}

/* Replies that come before their call: held, matched when it comes. */
static void
test_late_replies(void)
{
	static struct dec_msg out;
	struct dec_config cfg = { .late_mem = 4096 };
	struct dec *d = dec_new(&cfg);
	struct wbuf w = { .n = 0 };
	struct cap_addr cl, sv;
	const struct cap_msg *hm;
	const struct dec_stats *st;
	struct cap_msg m;
	bool rpc = false;
	int i, n;

	addr4(&cl, 1);
	addr4(&sv, 2);
	CHECK(d != NULL);
	st = dec_get_stats(d);

	/* a TCP hole: the reply (frame 20) is decoded before its call
	   (frame 10), which comes with the hole given up */
	getattr_reply(&w, 0x7001);
	msg_init(&m, &w, &sv, &cl, 20);
	CHECK(!dec_message(d, &m, &out) && dec_held(d));
	CHECK(dec_next(d, &out, &rpc) == NULL);
	getattr_call(&w, 0x7001);
	msg_init(&m, &w, &cl, &sv, 10);
	CHECK(dec_message(d, &m, &out) && !dec_held(d));
	CHECK(out.rpc.msg_type == RPC_CALL && out.proc == NFS3_GETATTR);
	hm = dec_next(d, &out, &rpc);
	CHECK(hm != NULL && rpc && hm->frame == 20 && hm->ts_ns == 20000);
	CHECK(out.rpc.msg_type == RPC_REPLY && out.call_seen);
	CHECK(out.call_frame == 10 && out.call_ts_ns == 10000);
	CHECK(out.proc == NFS3_GETATTR && out.status == DEC_OK);
	CHECK(out.u.nfs_reply.status == 2);
	CHECK(dec_next(d, &out, &rpc) == NULL);
	CHECK(st->late_held == 1 && st->late_matched == 1 &&
	      st->replies == 1 && st->orphan_replies == 0);

	/* a call stamped after the held reply by more than the skew
	   tolerance (5 ms) reused the xid: the reply stays an orphan */
	getattr_reply(&w, 0x7002);
	msg_init(&m, &w, &sv, &cl, 100);
	CHECK(!dec_message(d, &m, &out));
	getattr_call(&w, 0x7002);
	msg_init(&m, &w, &cl, &sv, 100 + 5001);
	CHECK(dec_message(d, &m, &out));
	CHECK(dec_next(d, &out, &rpc) == NULL);
	/* ... within the tolerance it is the answer, stamped early */
	getattr_reply(&w, 0x7003);
	msg_init(&m, &w, &sv, &cl, 200);
	CHECK(!dec_message(d, &m, &out));
	getattr_call(&w, 0x7003);
	msg_init(&m, &w, &cl, &sv, 201);
	CHECK(dec_message(d, &m, &out));
	hm = dec_next(d, &out, &rpc);
	CHECK(hm != NULL && rpc && out.call_seen && out.call_frame == 201);
	CHECK(st->skew_tolerated == 1 && st->replies == 2);
	/* in file order, call first, the reply stamped 1 us before it */
	getattr_call(&w, 0x7004);
	msg_init(&m, &w, &cl, &sv, 301);
	CHECK(dec_message(d, &m, &out));
	getattr_reply(&w, 0x7004);
	msg_init(&m, &w, &sv, &cl, 300);
	CHECK(dec_message(d, &m, &out) && out.call_seen && !dec_held(d));
	CHECK(st->skew_tolerated == 2 && st->replies == 3);
	/* ... 6 ms before it: the answer to another call */
	getattr_call(&w, 0x7005);
	msg_init(&m, &w, &cl, &sv, 6400);
	CHECK(dec_message(d, &m, &out));
	getattr_reply(&w, 0x7005);
	msg_init(&m, &w, &sv, &cl, 400);
	CHECK(!dec_message(d, &m, &out) && st->reply_mismatch == 1);
	CHECK(st->skew_tolerated == 2);

	/* held 10 s of capture time at most, then the orphan path */
	CHECK(st->orphan_replies == 0 && st->late_expired == 0);
	getattr_call(&w, 0x7006);
	msg_init(&m, &w, &cl, &sv, 11000000);
	m.ts_ns = 11 * (int64_t)1000000000;
	CHECK(dec_message(d, &m, &out));
	hm = dec_next(d, &out, &rpc);
	/* the orphan path decodes it by its shape: a GETATTR failure is
	   the one NFSv3 procedure that fits (decode/shape.c) */
	CHECK(hm != NULL && rpc && out.by_shape && out.proc == 1 &&
	      hm->frame == 100);
	CHECK(dec_next(d, &out, &rpc) == NULL);
	CHECK(st->late_expired == 1 && st->orphan_replies == 1 &&
	      st->shape_fit == 1);

	/* the budget: 4096 bytes of replies of 28 bytes, 9 slots */
	for (i = 0, n = 0; i < 20; i++) {
		getattr_reply(&w, 0x8000 + (uint32_t)i);
		msg_init(&m, &w, &sv, &cl, 12000000 + (uint64_t)i);
		m.ts_ns = 12 * (int64_t)1000000000 + i;
		/* held (nothing yet), or past the budget: the orphan path at
		   once, where its shape names it */
		CHECK(dec_message(d, &m, &out) == !dec_held(d));
		n += dec_held(d);
	}
	CHECK(n == 9 && st->late_over_budget == 11);
	CHECK(st->orphan_replies == 12 && st->shape_fit == 12);
	/* end of input: all nine go to the orphan path, in order */
	dec_flush(d);
	for (i = 0; (hm = dec_next(d, &out, &rpc)) != NULL; i++)
		CHECK(rpc && out.by_shape &&
		      hm->ts_ns == 12 * (int64_t)1000000000 + i);
	CHECK(i == 9 && st->orphan_replies == 21 && st->late_expired == 10 &&
	      st->shape_fit == 21);
	/* and the ring is usable again */
	getattr_reply(&w, 0x9000);
	msg_init(&m, &w, &sv, &cl, 13000000);
	m.ts_ns = 13 * (int64_t)1000000000;
	CHECK(!dec_message(d, &m, &out) && dec_held(d));
	/* a call with that xid from another client port (another mount's
	   transport with its own xids, another TCP connection) does not
	   take it; the one from the reply's port does */
	m.dport = 900;
	CHECK(!dec_message(d, &m, &out) && dec_held(d));	/* 2nd reply */
	getattr_call(&w, 0x9000);
	msg_init(&m, &w, &cl, &sv, 13000001);
	m.ts_ns = 13 * (int64_t)1000000000 + 1;
	m.sport = 901;
	CHECK(dec_message(d, &m, &out) && dec_next(d, &out, &rpc) == NULL);
	m.sport = 900;
	CHECK(dec_message(d, &m, &out));
	hm = dec_next(d, &out, &rpc);
	CHECK(hm != NULL && rpc && out.call_seen && hm->dport == 900);
	CHECK(dec_next(d, &out, &rpc) == NULL);
	dec_free(d);
}

/*
 * A call cut by the snaplen before its procedure (22 of its bytes
 * captured: xid through the version): its reply is decoded by its shape,
 * as if the call were not in the capture, and counted as an orphan reply
 * that fits (a header-only TCP capture cuts calls inside the header).
 */
static void
test_cut_call_reply_by_shape(void)
{
	static struct dec_msg out;
	struct dec *d = dec_new(NULL);
	struct wbuf w = { .n = 0 };
	struct cap_addr cl, sv;
	const struct dec_stats *st;
	struct cap_msg m;

	addr4(&cl, 1);
	addr4(&sv, 2);
	CHECK(d != NULL);
	st = dec_get_stats(d);
	/* a whole GETATTR first: the pair is known to carry NFSv3 */
	getattr_call(&w, 0x5001);
	msg_init(&m, &w, &cl, &sv, 10);
	CHECK(dec_message(d, &m, &out));
	getattr_reply(&w, 0x5001);
	msg_init(&m, &w, &sv, &cl, 11);
	CHECK(dec_message(d, &m, &out) && out.call_seen && !out.by_shape);
	/* the cut call, then its reply */
	getattr_call(&w, 0x5002);
	msg_init(&m, &w, &cl, &sv, 20);
	m.caplen = 22;
	CHECK(dec_message(d, &m, &out));
	getattr_reply(&w, 0x5002);
	msg_init(&m, &w, &sv, &cl, 21);
	CHECK(dec_message(d, &m, &out));
	CHECK(!out.call_seen && out.by_shape && out.prog == PROG_NFS &&
	      out.vers == 3 && out.proc == NFS3_GETATTR);
	CHECK(st->orphan_replies == 1 && st->shape_fit == 1 &&
	      st->replies == 1);
	dec_free(d);
}

int
main(void)
{
	test_call_headers();
	test_probe_shortcut();
	test_reply_headers();
	test_probe_garbage();
	test_mount();
	test_portmap();
	test_nlm();
	test_xidmap();
	test_message();
	test_late_replies();
	test_cut_call_reply_by_shape();
	test_names();
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
