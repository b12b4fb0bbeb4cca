/*
 * fuzz_rpc.c - the RPC header, the probe and every program's body decoders.
 *
 * Input layout:
 *   byte 0: flags  bit0 cut the capture, bit1 prepend a valid reply header,
 *                  bit2 RPCSEC_GSS integrity call, bits 3-7 the cut point
 *   byte 1: program choice, byte 2: version, byte 3: procedure
 *   rest:   the message bytes
 * Each run: the bytes as a message on their own (call or reply), then a
 * synthetic call of the chosen (prog, vers, proc) with the same xid followed
 * by the bytes as its reply, then the body decoders directly on the bytes.
 * Every buffer handed to the decoder is malloc'd at exactly its captured
 * size, so a read past the capture is an ASan report.
 */
#include <stdlib.h>
#include <string.h>

#include "decode/decode_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX (256 * 1024)

static const uint32_t fuzz_progs[] = {
	PROG_NFS, PROG_MOUNT, PROG_PORTMAP, PROG_NLM, PROG_NSM, PROG_NFS_ACL,
	PROG_NFS4_CB, 100011,
};

/* Fuzz-target state, reused across inputs (allowed in fuzz targets). */
static struct dec *fuzz_dec;
static struct dec_msg *fuzz_out;

static void
fuzz_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* Run bytes [0, len) with caplen captured through dec_message. */
static void
fuzz_msg(const uint8_t *bytes, uint32_t caplen, uint32_t len,
	 const struct cap_addr *src, const struct cap_addr *dst,
	 uint64_t frame)
{
	struct cap_msg m;
	uint8_t *copy = malloc(caplen ? caplen : 1);

	if (copy == NULL)
		return;
	if (caplen > 0)
		memcpy(copy, bytes, caplen);
	memset(&m, 0, sizeof(m));
	m.frame = frame;
	m.ts_ns = (int64_t)frame;
	m.src = *src;
	m.dst = *dst;
	m.transport = CAP_UDP;
	m.caplen = caplen;
	m.len = len;
	m.data = copy;
	(void)dec_message(fuzz_dec, &m, fuzz_out);
	(void)rpc_probe(copy, caplen, len);
	free(copy);
}

/* The body decoders directly on bytes (call and reply forms). */
static void
fuzz_bodies(const uint8_t *bytes, uint32_t caplen, uint32_t len,
	    uint32_t vers, uint32_t proc)
{
	uint8_t *copy = malloc(caplen ? caplen : 1);
	struct dec_msg *o = fuzz_out;
	struct xdr c;
	int i;

	if (copy == NULL)
		return;
	if (caplen > 0)
		memcpy(copy, bytes, caplen);
	for (i = 0; i < 2; i++) {
		xdr_init(&c, copy, caplen, len);
		o->u.mnt.have = 0;
		o->u.mnt.nlist = o->u.mnt.list_total = o->u.mnt.nflavors = 0;
		if (i == 0)
			(void)mnt_decode_call(&c, 1 + vers % 3, proc, &o->u.mnt);
		else
			(void)mnt_decode_reply(&c, 1 + vers % 3, proc, &o->u.mnt);
		xdr_init(&c, copy, caplen, len);
		o->u.pmap.have = 0;
		o->u.pmap.nlist = o->u.pmap.list_total = 0;
		if (i == 0)
			(void)pmap_decode_call(&c, 2 + vers % 3, proc,
					       &o->u.pmap);
		else
			(void)pmap_decode_reply(&c, 2 + vers % 3, proc,
						&o->u.pmap);
		xdr_init(&c, copy, caplen, len);
		o->u.nlm.have = 0;
		if (i == 0)
			(void)nlm_decode_call(&c, vers % 2 ? 4 : 3, proc,
					      &o->u.nlm);
		else
			(void)nlm_decode_reply(&c, vers % 2 ? 4 : 3, proc,
					       &o->u.nlm);
	}
	free(copy);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t reply_hdr[20] = {
		0, 0, 0, 1,  0, 0, 0, 0,  0, 0, 0, 0,  0, 0, 0, 0,  0, 0, 0, 0,
	};
	struct cap_addr a, b;
	uint8_t call[64];
	uint8_t *buf;
	uint32_t len, cut, blen, prog, vers, proc, xid;
	uint8_t flags;

	if (fuzz_dec == NULL) {
		struct dec_config cfg = { .xid_max = 64, .xid_ttl_ns = 1000 };

		fuzz_dec = dec_new(&cfg);
		fuzz_out = malloc(sizeof(*fuzz_out));
		if (fuzz_dec == NULL || fuzz_out == NULL)
			abort();
	}
	if (size < 4 || size > FUZZ_MAX)
		return 0;
	flags = data[0];
	prog = fuzz_progs[data[1] % (sizeof(fuzz_progs) / sizeof(fuzz_progs[0]))];
	vers = data[2] % 6;
	proc = data[3] % 32;
	data += 4;
	len = (uint32_t)(size - 4);
	cut = len;
	if (flags & 1)
		cut = (uint32_t)((uint64_t)len * (flags >> 3) / 32);

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.family = b.family = 4;
	a.a[3] = 1;
	b.a[3] = 2;

	/* 1: the bytes on their own, both directions */
	fuzz_msg(data, cut, len, &a, &b, 1);
	fuzz_msg(data, cut, len, &b, &a, 2);

	/* 2: a call of the chosen program, then the bytes as its reply */
	xid = len >= 4 ? (uint32_t)data[0] << 24 | (uint32_t)data[1] << 16 |
			 (uint32_t)data[2] << 8 | data[3] : 0;
	memset(call, 0, sizeof(call));
	fuzz_put32(call, xid);
	fuzz_put32(call + 8, 2);
	fuzz_put32(call + 12, prog);
	fuzz_put32(call + 16, vers);
	fuzz_put32(call + 20, proc);
	if (flags & 4) {
		/* RPCSEC_GSS v1 DATA integrity, empty handle; verifier none */
		fuzz_put32(call + 24, RPC_RPCSEC_GSS);
		fuzz_put32(call + 28, 20);
		fuzz_put32(call + 32, 1);
		fuzz_put32(call + 44, 2);
		fuzz_msg(call, 60, 60, &a, &b, 3);
	} else {
		fuzz_msg(call, 40, 40, &a, &b, 3);
	}
	if (flags & 2) {
		/* valid accepted/SUCCESS header, the bytes as the body */
		blen = 20 + len;
		buf = malloc(blen);
		if (buf == NULL)
			return 0;
		memcpy(buf, reply_hdr, sizeof(reply_hdr));
		fuzz_put32(buf, xid);
		memcpy(buf + 20, data, len);
		fuzz_msg(buf, cut == len ? blen : 20 + cut, blen, &b, &a, 4);
		free(buf);
	} else {
		fuzz_msg(data, cut, len, &b, &a, 4);
	}

	/* 3: body decoders directly */
	fuzz_bodies(data, cut, len, vers, proc);
	return 0;
}
