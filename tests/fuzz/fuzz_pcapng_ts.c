/*
 * fuzz_pcapng_ts.c - pcapng timestamps through the offline source: libpcap's
 * 64-bit timestamp with if_tsresol and if_tsoffset -> cap_source (seconds
 * and fraction to ns) -> the pipe -> decode -> the engine (latencies, time
 * differences) -> both printers.
 *
 * The input picks the section's byte order, the interface's if_tsresol and
 * if_tsoffset options (each present or not) and the timestamp of each
 * packet; the packets are a fixed NFSv3 GETATTR call and its reply over
 * UDP, alternating, so every time reaches the latency arithmetic.  The
 * file is written to a memfd and opened by path, as `-r` does.
 *
 * Input layout: [0] flags (bit 0: big-endian section, bit 1: if_tsresol,
 * bit 2: if_tsoffset, bit 3: a second interface with other options, bits
 * 4-5: --duration 0/1 s/huge), [1] if_tsresol, [2..9] if_tsoffset, then 9
 * bytes per packet: interface (bit 0), timestamp high, timestamp low.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analyze/ops.h"
#include "decode/decode.h"
#include "ui/dump/dump.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PKTS_MAX 64

struct fz {
	struct dec *dec;
	struct dec_msg *msg;
	struct an_engine *eng;
	FILE *sink;
};

static void on_op(void *user, const struct an_op *op)
{
	struct fz *z = user;

	fprintf(z->sink, "%lld %lld\n", (long long)op->lat_first_ns,
		(long long)op->first_call_ns);
}

static void on_msg(void *user, const struct cap_msg *m)
{
	struct fz *z = user;

	if (!dec_message(z->dec, m, z->msg))
		return;
	dump_text_msg(z->sink, m, z->msg, UI_TIME_LOCAL);
	dump_json_msg(z->sink, m, z->msg);
	an_feed(z->eng, m, z->msg);
}

/* A growing output buffer in the section's byte order. */
struct buf {
	uint8_t b[PKTS_MAX * 200 + 256];
	size_t n;
	bool be;
};

static void put(struct buf *o, const void *p, size_t n)
{
	memcpy(o->b + o->n, p, n);
	o->n += n;
}

static void put32(struct buf *o, uint32_t v)
{
	uint8_t b[4];

	if (o->be) {
		b[0] = v >> 24; b[1] = v >> 16; b[2] = v >> 8; b[3] = v;
	} else {
		b[3] = v >> 24; b[2] = v >> 16; b[1] = v >> 8; b[0] = v;
	}
	put(o, b, 4);
}

static void put16(struct buf *o, uint16_t v)
{
	uint8_t b[2];

	b[o->be ? 0 : 1] = v >> 8;
	b[o->be ? 1 : 0] = (uint8_t)v;
	put(o, b, 2);
}

/* Close a block begun at start: padding, trailing length, length. */
static void end_block(struct buf *o, size_t start)
{
	uint32_t len;
	size_t save;

	while (o->n % 4)
		o->b[o->n++] = 0;
	len = (uint32_t)(o->n - start + 4);
	put32(o, len);
	save = o->n;
	o->n = start + 4;
	put32(o, len);
	o->n = save;
}

static void idb(struct buf *o, bool resol, uint8_t tsresol, bool offset,
		const uint8_t off[8])
{
	size_t start = o->n;

	put32(o, 1);
	put32(o, 0);
	put16(o, 1);		/* LINKTYPE_ETHERNET */
	put16(o, 0);
	put32(o, 262144);
	if (resol) {		/* if_tsresol: 1 byte */
		put16(o, 9);
		put16(o, 1);
		put(o, &tsresol, 1);
		put(o, "\0\0\0", 3);
	}
	if (offset) {		/* if_tsoffset: 64 bits, the section's order */
		put16(o, 14);
		put16(o, 8);
		if (o->be)
			put(o, off, 8);
		else
			for (int k = 7; k >= 0; k--)
				put(o, &off[k], 1);
	}
	put16(o, 0);		/* opt_endofopt */
	put16(o, 0);
	end_block(o, start);
}

/* Ethernet, IPv4, UDP 800 -> 2049 (or back), RPC: GETATTR call or reply. */
static size_t frame(uint8_t *f, bool reply, uint32_t xid)
{
	static const uint8_t eth_ip[] = {
		0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 6, 0x08, 0x00,
		0x45, 0, 0, 0, 0, 0, 0x40, 0, 64, 17, 0, 0,
		10, 0, 0, 1, 10, 0, 0, 2,
	};
	uint32_t call[] = { xid, 0, 2, 100003, 3, 1, 0, 0, 0, 0, 8, 1, 2 };
	uint32_t rep[] = { xid, 1, 0, 0, 0, 0, 70 };	/* NFS3ERR_STALE */
	uint32_t *w = reply ? rep : call;
	size_t nw = reply ? 7 : 13, k, n = sizeof(eth_ip);
	size_t ulen = 8 + nw * 4;

	memcpy(f, eth_ip, n);
	f[16] = (uint8_t)((20 + ulen) >> 8);
	f[17] = (uint8_t)(20 + ulen);
	if (reply) {		/* swap the addresses */
		f[29] = 2;
		f[33] = 1;
	}
	f[n++] = reply ? 8 : 3;
	f[n++] = reply ? 1 : 0x20;
	f[n++] = reply ? 3 : 8;
	f[n++] = reply ? 0x20 : 1;
	f[n++] = (uint8_t)(ulen >> 8);
	f[n++] = (uint8_t)ulen;
	f[n++] = 0;
	f[n++] = 0;
	for (k = 0; k < nw; k++, n += 4) {
		f[n] = w[k] >> 24;
		f[n + 1] = w[k] >> 16;
		f[n + 2] = w[k] >> 8;
		f[n + 3] = (uint8_t)w[k];
	}
	return n;
}

static void epb(struct buf *o, uint32_t ifc, uint32_t hi, uint32_t lo,
		int k)
{
	uint8_t f[128];
	size_t n = frame(f, k % 2 == 1, 0x1000u + (uint32_t)k / 2);
	size_t start = o->n;

	put32(o, 6);
	put32(o, 0);
	put32(o, ifc);
	put32(o, hi);
	put32(o, lo);
	put32(o, (uint32_t)n);
	put32(o, (uint32_t)n);
	put(o, f, n);
	end_block(o, start);
}

static size_t build(struct buf *o, const uint8_t *data, size_t size)
{
	uint8_t flags = data[0];
	size_t start, k;
	int np = 0;

	o->n = 0;
	o->be = flags & 1;
	start = o->n;		/* section header */
	put32(o, 0x0a0d0d0a);
	put32(o, 0);
	put32(o, 0x1a2b3c4d);
	put16(o, 1);
	put16(o, 0);
	put32(o, 0xffffffff);
	put32(o, 0xffffffff);
	end_block(o, start);
	idb(o, flags & 2, data[1], flags & 4, data + 2);
	if (flags & 8)
		idb(o, !(flags & 2), (uint8_t)(data[1] ^ 0x80), !(flags & 4),
		    data + 2);
	for (k = 10; k + 9 <= size && np < PKTS_MAX; k += 9, np++) {
		uint32_t hi, lo;

		memcpy(&hi, data + k + 1, 4);
		memcpy(&lo, data + k + 5, 4);
		epb(o, (flags & 8) ? data[k] & 1 : 0, hi, lo, np);
	}
	return o->n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int64_t durations[] = { 0, 1000000000, INT64_MAX / 2, 1 };
	static struct buf o;
	struct cap_config cfg = { .flows_max = 8 };
	struct dec_config dcfg = { .xid_max = 16 };
	struct an_config acfg = { .xid_max = 16 };
	char err[CAP_ERRBUF_SIZE], path[64];
	struct cap_source *src;
	struct cap_pipe *p = NULL;
	struct fz z = { 0 };
	int fd;

	if (size < 10)
		return 0;
	build(&o, data, size);
	fd = memfd_create("fuzz_pcapng_ts", 0);
	if (fd < 0)
		return 0;
	if (write(fd, o.b, o.n) != (ssize_t)o.n) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	cfg.duration_ns = durations[(data[0] >> 4) & 3];
	src = cap_open_offline(path, &cfg, err);
	if (src == NULL) {
		close(fd);
		return 0;
	}
	z.dec = dec_new(&dcfg);
	z.msg = malloc(sizeof(*z.msg));
	z.eng = an_new(&acfg, on_op, &z);
	z.sink = fopen("/dev/null", "w");
	if (z.dec && z.msg && z.eng && z.sink)
		p = cap_pipe_new(&cfg, on_msg, &z);
	if (p) {
		(void)cap_run(src, p, NULL, err);
		an_flush(z.eng);
	}
	cap_pipe_free(p);
	if (z.sink)
		fclose(z.sink);
	an_free(z.eng);
	free(z.msg);
	dec_free(z.dec);
	cap_close(src);
	close(fd);
	return 0;
}
