/*
 * test_capture.c - link layers, IPv4/IPv6, UDP and IP fragment reassembly
 * (capture/link.c, ip.c, ipfrag.c) and the offline source (source.c),
 * with hand-built frames.  Exact messages and counters asserted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pcap/pcap.h>

#include "capture/capture.h"

#include "tests/lib/check.h"

#define MSG_MAX 16

struct got {
	struct cap_msg m;
	uint8_t *bytes;		/* owned copy of m.data */
};

struct sink {
	int n;
	struct got g[MSG_MAX];
};

static void on_msg(void *user, const struct cap_msg *m)
{
	struct sink *s = user;
	struct got *g;

	if (s->n == MSG_MAX)
		return;
	g = &s->g[s->n++];
	g->m = *m;
	g->bytes = malloc(m->caplen ? m->caplen : 1);
	memcpy(g->bytes, m->data, m->caplen);
	g->m.data = g->bytes;
}

static void sink_clear(struct sink *s)
{
	int i;

	for (i = 0; i < s->n; i++)
		free(s->g[i].bytes);
	s->n = 0;
}

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v & 0xffff);
}

struct env {
	struct cap_pipe *pipe;
	const struct cap_stats *st;
	struct sink sink;
	int64_t ts;
};

static void env_init(struct env *e, const struct cap_config *cfg)
{
	memset(e, 0, sizeof(*e));
	e->ts = 2000000000000LL;
	e->pipe = cap_pipe_new(cfg, on_msg, &e->sink);
	e->st = cap_pipe_stats(e->pipe);
}

static void env_fini(struct env *e)
{
	sink_clear(&e->sink);
	cap_pipe_free(e->pipe);
}

static void feed(struct env *e, int lt, const uint8_t *d, uint32_t len,
		 uint32_t caplen)
{
	struct cap_pkt pkt = { lt, e->ts, caplen, len, d };

	e->ts += 1000000;
	cap_pipe_feed(e->pipe, &pkt);
}

/* UDP payload: bytes i*7+seed. */
static void fill(uint8_t *b, uint32_t n, uint32_t seed)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		b[i] = (uint8_t)(i * 7 + seed);
}

static bool pay_is(const struct got *g, uint32_t len, uint32_t caplen,
		   uint32_t seed, uint32_t flags)
{
	uint8_t want[70000];

	if (g->m.len != len || g->m.caplen != caplen || g->m.flags != flags)
		return false;
	fill(want, caplen, seed);
	return memcmp(g->m.data, want, caplen) == 0;
}

/* IPv4 header + UDP 800 -> 2049 with plen payload bytes at b.  Returns
 * bytes written.  frag: IPv4 flags/offset field. */
static uint32_t ip4_udp(uint8_t *b, uint32_t plen, uint32_t seed)
{
	memset(b, 0, 28);
	b[0] = 0x45;
	put16(b + 2, 28 + plen);
	b[8] = 64;
	b[9] = 17;
	b[12] = 10; b[15] = 1;
	b[16] = 10; b[19] = 2;
	put16(b + 20, 800);
	put16(b + 22, 2049);
	put16(b + 24, 8 + plen);
	fill(b + 28, plen, seed);
	return 28 + plen;
}

static uint32_t ip6_udp(uint8_t *b, const uint8_t *ext, uint32_t extlen,
			uint8_t first_nh, uint32_t plen, uint32_t seed)
{
	memset(b, 0, 40);
	b[0] = 0x60;
	put16(b + 4, extlen + 8 + plen);
	b[6] = first_nh;
	b[7] = 64;
	b[8] = 0xfe; b[9] = 0x80; b[23] = 1;
	b[24] = 0xfe; b[25] = 0x80; b[39] = 2;
	if (extlen)
		memcpy(b + 40, ext, extlen);
	memset(b + 40 + extlen, 0, 8);
	put16(b + 40 + extlen, 700);
	put16(b + 42 + extlen, 2049);
	put16(b + 44 + extlen, 8 + plen);
	fill(b + 48 + extlen, plen, seed);
	return 48 + extlen + plen;
}

static void test_link_layers(void)
{
	struct env e;
	uint8_t f[2048], ip[1024];
	uint32_t n, iplen;
	char buf[64];
	char err[CAP_ERRBUF_SIZE];

	env_init(&e, NULL);
	iplen = ip4_udp(ip, 100, 1);
	/* Ethernet with 60-byte padding trimmed by total length */
	memset(f, 0, sizeof(f));
	put16(f + 12, 0x0800);
	memcpy(f + 14, ip, iplen);
	feed(&e, 1, f, 14 + iplen + 20, 14 + iplen + 20);
	CHECK(e.sink.n == 1 && pay_is(&e.sink.g[0], 100, 100, 1, 0));
	CHECK(e.sink.g[0].m.sport == 800 && e.sink.g[0].m.dport == 2049);
	CHECK(e.sink.g[0].m.transport == CAP_UDP && e.sink.g[0].m.frame == 1);
	CHECK(strcmp(cap_addr_str(&e.sink.g[0].m.src, buf, sizeof(buf)),
		     "10.0.0.1") == 0);
	/* QinQ: 802.1ad + 802.1Q + 0x9100 */
	put16(f + 12, 0x88a8);
	put16(f + 16, 0x8100);
	put16(f + 20, 0x9100);
	put16(f + 24, 0x0800);
	memcpy(f + 26, ip, iplen);
	feed(&e, 1, f, 26 + iplen, 26 + iplen);
	CHECK(e.sink.n == 2 && pay_is(&e.sink.g[1], 100, 100, 1, 0));
	/* Linux SLL */
	memset(f, 0, 16);
	put16(f + 14, 0x0800);
	memcpy(f + 16, ip, iplen);
	feed(&e, 113, f, 16 + iplen, 16 + iplen);
	CHECK(e.sink.n == 3);
	/* Linux SLL2 */
	memset(f, 0, 20);
	put16(f, 0x0800);
	memcpy(f + 20, ip, iplen);
	feed(&e, 276, f, 20 + iplen, 20 + iplen);
	CHECK(e.sink.n == 4);
	/* raw IP, all three numbers */
	feed(&e, 12, ip, iplen, iplen);
	feed(&e, 101, ip, iplen, iplen);
	feed(&e, 228, ip, iplen, iplen);
	CHECK(e.sink.n == 7);
	/* null: AF_INET little-endian; loop: AF_INET6=30 big-endian */
	f[0] = 2; f[1] = 0; f[2] = 0; f[3] = 0;
	memcpy(f + 4, ip, iplen);
	feed(&e, 0, f, 4 + iplen, 4 + iplen);
	CHECK(e.sink.n == 8);
	n = ip6_udp(f + 4, NULL, 0, 17, 50, 2);
	put32(f, 30);
	feed(&e, 108, f, 4 + n, 4 + n);
	CHECK(e.sink.n == 9 && pay_is(&e.sink.g[8], 50, 50, 2, 0));
	CHECK(e.sink.g[8].m.src.family == 6 &&
	      strcmp(cap_addr_str(&e.sink.g[8].m.src, buf, sizeof(buf)),
		     "fe80::1") == 0);
	/* FDDI: fc + dst + src, LLC/SNAP */
	memset(f, 0, 13);
	f[0] = 0x51;
	memcpy(f + 13, "\xaa\xaa\x03\x00\x00\x00\x08\x00", 8);
	memcpy(f + 21, ip, iplen);
	feed(&e, 10, f, 21 + iplen, 21 + iplen);
	CHECK(e.sink.n == 10 && pay_is(&e.sink.g[9], 100, 100, 1, 0));
	/* ARP, short frame, bad IP version, ICMP */
	memset(f, 0, 64);
	put16(f + 12, 0x0806);
	feed(&e, 1, f, 60, 60);
	feed(&e, 1, f, 10, 10);
	feed(&e, 101, f, 40, 40);
	memcpy(f, ip, iplen);
	f[9] = 1;
	feed(&e, 101, f, iplen, iplen);
	CHECK(e.st->not_ip == 1 && e.st->link_errors == 1);
	CHECK(e.st->ip_errors == 1 && e.st->other_proto == 1);
	CHECK(e.st->packets == 14 && e.st->udp_msgs == 10);
	CHECK(cap_linktype_ok(1, err) && cap_linktype_ok(10, err));
	CHECK(!cap_linktype_ok(105, err) && strstr(err, "105") != NULL);
	env_fini(&e);
}

static void test_ip6_ext(void)
{
	struct env e;
	uint8_t f[2048], ext[64];
	uint32_t n;

	env_init(&e, NULL);
	/* hop-by-hop (8) -> routing (24) -> dest options (8) -> UDP */
	memset(ext, 0, sizeof(ext));
	ext[0] = 43; ext[1] = 0;
	ext[8] = 60; ext[9] = 2;
	ext[32] = 17; ext[33] = 0;
	n = ip6_udp(f, ext, 40, 0, 30, 3);
	feed(&e, 229, f, n, n);
	CHECK(e.sink.n == 1 && pay_is(&e.sink.g[0], 30, 30, 3, 0));
	/* AH (len field 1: (1+2)*4 = 12 bytes) -> UDP */
	memset(ext, 0, sizeof(ext));
	ext[0] = 17; ext[1] = 1;
	n = ip6_udp(f, ext, 12, 51, 30, 4);
	feed(&e, 229, f, n, n);
	CHECK(e.sink.n == 2 && pay_is(&e.sink.g[1], 30, 30, 4, 0));
	/* ESP stops the walk */
	n = ip6_udp(f, NULL, 0, 50, 30, 4);
	feed(&e, 229, f, n, n);
	CHECK(e.sink.n == 2 && e.st->other_proto == 1);
	/* an extension header longer than the packet */
	ext[0] = 17; ext[1] = 200;
	n = ip6_udp(f, ext, 8, 60, 30, 4);
	feed(&e, 229, f, n, n);
	CHECK(e.st->ip_errors == 1);
	env_fini(&e);
}

static void test_truncated_udp(void)
{
	struct env e;
	uint8_t f[2048];
	uint32_t n;

	env_init(&e, NULL);
	n = ip4_udp(f, 1000, 5);
	feed(&e, 101, f, n, 128);
	CHECK(e.sink.n == 1 &&
	      pay_is(&e.sink.g[0], 1000, 100, 5, CAP_MSG_TRUNCATED));
	CHECK(e.st->truncated == 1);
	/* UDP length larger than the IP payload: malformed */
	put16(f + 24, 2000);
	feed(&e, 101, f, n, n);
	CHECK(e.sink.n == 1 && e.st->ip_errors == 1);
	env_fini(&e);
}

/* Fragment the UDP datagram (8 + plen bytes) into pieces of fsz bytes
 * and return them as raw IPv4 packets in frames[]. */
#define FRAG_MAX 64

struct frags {
	int n;
	uint32_t len[FRAG_MAX];
	uint8_t pkt[FRAG_MAX][1600];
};

static void make_frags4(struct frags *fr, uint32_t plen, uint32_t fsz,
			uint16_t id, uint32_t seed)
{
	static uint8_t whole[70000];
	uint32_t total = 8 + plen, off;

	ip4_udp(whole, plen, seed);
	fr->n = 0;
	for (off = 0; off < total; off += fsz) {
		uint32_t l = total - off < fsz ? total - off : fsz;
		uint8_t *p = fr->pkt[fr->n];

		memcpy(p, whole, 20);
		put16(p + 2, 20 + l);
		put16(p + 4, id);
		put16(p + 6, (off / 8) | (off + l < total ? 0x2000 : 0));
		memcpy(p + 20, whole + 20 + off, l);
		fr->len[fr->n++] = 20 + l;
	}
}

static void test_frag4(void)
{
	static struct frags fr;
	struct env e;
	struct cap_config cfg;
	int i;

	/* in order: 3000 bytes of payload in 1480-byte fragments */
	env_init(&e, NULL);
	make_frags4(&fr, 3000, 1480, 1, 6);
	CHECK(fr.n == 3);
	for (i = 0; i < fr.n; i++)
		feed(&e, 101, fr.pkt[i], fr.len[i], fr.len[i]);
	CHECK(e.sink.n == 1 &&
	      pay_is(&e.sink.g[0], 3000, 3000, 6, CAP_MSG_IPFRAG));
	CHECK(e.sink.g[0].m.first_frame == 1 && e.sink.g[0].m.frame == 3);
	/* reversed, with a duplicate in the middle */
	make_frags4(&fr, 3000, 1480, 2, 7);
	feed(&e, 101, fr.pkt[2], fr.len[2], fr.len[2]);
	feed(&e, 101, fr.pkt[1], fr.len[1], fr.len[1]);
	feed(&e, 101, fr.pkt[1], fr.len[1], fr.len[1]);
	feed(&e, 101, fr.pkt[0], fr.len[0], fr.len[0]);
	CHECK(e.sink.n == 2 &&
	      pay_is(&e.sink.g[1], 3000, 3000, 7, CAP_MSG_IPFRAG));
	CHECK(e.sink.g[1].m.first_frame == 4 && e.sink.g[1].m.frame == 7);
	CHECK(e.st->ipfrag_overlaps == 1 && e.st->ipfrag_reassembled == 2);
	CHECK(e.st->ipfrag_packets == 7);
	/* overlap: a lying second fragment covering the first's tail with
	 * other bytes; first data wins */
	make_frags4(&fr, 2000, 1480, 3, 8);
	feed(&e, 101, fr.pkt[0], fr.len[0], fr.len[0]);
	{
		uint8_t bad[1600];

		memcpy(bad, fr.pkt[0], 20);
		put16(bad + 2, 20 + 80);
		put16(bad + 6, (1400 / 8) | 0x2000);
		memset(bad + 20, 0xee, 80);
		feed(&e, 101, bad, 100, 100);
	}
	feed(&e, 101, fr.pkt[1], fr.len[1], fr.len[1]);
	CHECK(e.sink.n == 3 &&
	      pay_is(&e.sink.g[2], 2000, 2000, 8, CAP_MSG_IPFRAG));
	CHECK(e.st->ipfrag_overlaps == 2);
	/* truncated fragments: snaplen 200 on each */
	make_frags4(&fr, 3000, 1480, 4, 9);
	for (i = 0; i < fr.n; i++)
		feed(&e, 101, fr.pkt[i], fr.len[i], 200);
	CHECK(e.sink.n == 4 &&
	      pay_is(&e.sink.g[3], 3000, 172, 9,
		     CAP_MSG_IPFRAG | CAP_MSG_TRUNCATED));
	/* lost middle fragment: incomplete at flush */
	make_frags4(&fr, 3000, 1480, 5, 10);
	feed(&e, 101, fr.pkt[0], fr.len[0], fr.len[0]);
	feed(&e, 101, fr.pkt[2], fr.len[2], fr.len[2]);
	CHECK(e.sink.n == 4 && e.st->ipfrag_incomplete == 0);
	cap_pipe_flush(e.pipe);
	CHECK(e.st->ipfrag_incomplete == 1 && e.st->ipfrag_reassembled == 4);
	/* an offset past 65535 never writes */
	fr.pkt[0][6] = 0x1f;
	fr.pkt[0][7] = 0xff;
	feed(&e, 101, fr.pkt[0], fr.len[0], fr.len[0]);
	CHECK(e.st->ip_errors == 1);
	env_fini(&e);

	/* timeout by capture clock: 1 s */
	memset(&cfg, 0, sizeof(cfg));
	cfg.frag_timeout_ms = 1000;
	env_init(&e, &cfg);
	make_frags4(&fr, 3000, 1480, 6, 11);
	feed(&e, 101, fr.pkt[0], fr.len[0], fr.len[0]);
	e.ts += 2000000000LL;
	feed(&e, 101, fr.pkt[1], fr.len[1], fr.len[1]);
	feed(&e, 101, fr.pkt[2], fr.len[2], fr.len[2]);
	CHECK(e.sink.n == 0 && e.st->ipfrag_incomplete == 1);
	cap_pipe_flush(e.pipe);
	CHECK(e.st->ipfrag_incomplete == 2);
	env_fini(&e);

	/* memory budget: two trains do not fit, the older goes */
	memset(&cfg, 0, sizeof(cfg));
	cfg.frag_mem_max = 6000;
	env_init(&e, &cfg);
	make_frags4(&fr, 3000, 1480, 7, 12);
	feed(&e, 101, fr.pkt[0], fr.len[0], fr.len[0]);
	feed(&e, 101, fr.pkt[1], fr.len[1], fr.len[1]);
	make_frags4(&fr, 3000, 1480, 8, 13);
	feed(&e, 101, fr.pkt[0], fr.len[0], fr.len[0]);
	feed(&e, 101, fr.pkt[1], fr.len[1], fr.len[1]);
	feed(&e, 101, fr.pkt[2], fr.len[2], fr.len[2]);
	CHECK(e.st->ipfrag_evicted == 1 && e.st->ipfrag_incomplete == 1);
	CHECK(e.sink.n == 1 &&
	      pay_is(&e.sink.g[0], 3000, 3000, 13, CAP_MSG_IPFRAG));
	env_fini(&e);
}

static void test_frag6(void)
{
	static uint8_t whole[8192], f[2][2048];
	struct env e;
	uint32_t total, l0, n;

	env_init(&e, NULL);
	n = ip6_udp(whole, NULL, 0, 17, 2000, 14);
	total = n - 40;		/* UDP header + payload */
	l0 = 1232;
	/* fragment header: next header 17, offset, M, id */
	memcpy(f[0], whole, 40);
	f[0][6] = 44;
	put16(f[0] + 4, 8 + l0);
	memset(f[0] + 40, 0, 8);
	f[0][40] = 17;
	put16(f[0] + 42, 0 | 1);
	put32(f[0] + 44, 0xdeadbeef);
	memcpy(f[0] + 48, whole + 40, l0);
	memcpy(f[1], f[0], 48);
	put16(f[1] + 4, 8 + total - l0);
	put16(f[1] + 42, l0);
	memcpy(f[1] + 48, whole + 40 + l0, total - l0);
	feed(&e, 229, f[1], 48 + total - l0, 48 + total - l0);
	feed(&e, 229, f[0], 48 + l0, 48 + l0);
	CHECK(e.sink.n == 1 &&
	      pay_is(&e.sink.g[0], 2000, 2000, 14, CAP_MSG_IPFRAG));
	CHECK(e.sink.n == 1 && e.sink.g[0].m.src.family == 6);
	/* first fragment only: nothing, one incomplete train at flush */
	feed(&e, 229, f[0], 48 + l0, 48 + l0);
	cap_pipe_flush(e.pipe);
	CHECK(e.sink.n == 1 && e.st->ipfrag_incomplete == 1);
	env_fini(&e);
}

/* Write a pcap with libpcap, read it back through cap_open_offline. */
static void test_source(void)
{
	char path[] = "/tmp/test_capture_XXXXXX";
	char err[CAP_ERRBUF_SIZE];
	struct cap_config cfg;
	struct cap_source *s;
	struct cap_pipe *p;
	struct sink sink = { 0 };
	struct pcap_pkthdr h;
	pcap_dumper_t *dw;
	pcap_t *dead;
	uint8_t f[2048];
	uint64_t done, total;
	int fd, i;

	fd = mkstemp(path);
	CHECK(fd >= 0);
	close(fd);
	dead = pcap_open_dead_with_tstamp_precision(1, 65535,
			PCAP_TSTAMP_PRECISION_NANO);
	dw = pcap_dump_open(dead, path);
	CHECK(dw != NULL);
	memset(f, 0, sizeof(f));
	put16(f + 12, 0x0800);
	for (i = 0; i < 3; i++) {
		uint32_t n = ip4_udp(f + 14, 40 + i, (uint32_t)i);

		if (i == 1)
			put16(f + 14 + 22, 111);	/* portmap */
		h.ts.tv_sec = 1000 + i;
		h.ts.tv_usec = 123456789;	/* ns in a nano file */
		h.caplen = h.len = 14 + n;
		pcap_dump((u_char *)dw, &h, f);
	}
	pcap_dump_close(dw);
	pcap_close(dead);

	memset(&cfg, 0, sizeof(cfg));
	cfg.filter = "udp port 2049";
	s = cap_open_offline(path, &cfg, err);
	CHECK(s != NULL);
	if (s) {
		p = cap_pipe_new(&cfg, on_msg, &sink);
		CHECK(cap_source_linktype(s) == 1 && cap_source_fd(s) == -1);
		CHECK(cap_run(s, p, NULL, err) == 0);
		CHECK(sink.n == 2 && sink.g[0].m.len == 40 &&
		      sink.g[1].m.len == 42);
		CHECK(sink.n == 2 &&
		      sink.g[1].m.ts_ns == 1002123456789LL &&
		      sink.g[1].m.frame == 2);
		cap_source_progress(s, &done, &total);
		CHECK(total > 0 && done == total);
		cap_pipe_free(p);
		cap_close(s);
	}
	sink_clear(&sink);
	cfg.filter = "udp port";
	s = cap_open_offline(path, &cfg, err);
	CHECK(s == NULL && strstr(err, "bad filter") != NULL);
	cfg.filter = NULL;
	cfg.count = 1;
	s = cap_open_offline(path, &cfg, err);
	if (s) {
		p = cap_pipe_new(&cfg, on_msg, &sink);
		CHECK(cap_run(s, p, NULL, err) == 0 && sink.n == 1);
		cap_pipe_free(p);
		cap_close(s);
	}
	sink_clear(&sink);
	s = cap_open_offline("/nonexistent/x.pcap", &cfg, err);
	CHECK(s == NULL && strstr(err, "/nonexistent/x.pcap") != NULL);
	unlink(path);
	cap_close(NULL);
	cap_pipe_free(NULL);
}

/* cap_addr_fnv against FNV-1a over the 16 address bytes, the values
 * computed apart (a byte loop in Python): the IPv4 shortcut (twelve zero
 * bytes folded into one multiply) gives the same hash. */
static void test_addr_fnv(void)
{
	struct cap_addr a;

	memset(&a, 0, sizeof(a));
	a.family = 4;
	memcpy(a.a, "\x0a\x63\x00\x01", 4);		/* 10.99.0.1 */
	CHECK(cap_addr_fnv(2166136261u, &a) == 0xaf09c2adu);
	memcpy(a.a, "\xc0\xa8\x01\xc8", 4);		/* 192.168.1.200 */
	CHECK(cap_addr_fnv(2166136261u, &a) == 0xb34f6e5cu);
	memset(a.a, 0, 16);
	CHECK(cap_addr_fnv(2166136261u, &a) == 0x69691905u);
	/* a nonzero byte past the fourth: the long way */
	memcpy(a.a, "\x0a\x00\x00\x01\x00\x00\x00\x07", 8);
	CHECK(cap_addr_fnv(2166136261u, &a) == 0x1c9ed179u);
	memset(a.a, 0, 16);
	a.family = 6;
	a.a[0] = 0xfe;
	a.a[1] = 0x80;
	a.a[15] = 1;					/* fe80::1 */
	CHECK(cap_addr_fnv(2166136261u, &a) == 0xe08432e8u);
	memset(a.a, 0, 16);
	a.family = 4;
	memcpy(a.a, "\x0a\x63\x00\x01", 4);
	{
		struct cap_addr b;

		memset(&b, 0, sizeof(b));
		b.family = 6;
		b.a[0] = 0xfe;
		b.a[1] = 0x80;
		b.a[15] = 1;
		CHECK(cap_addr_fnv(cap_addr_fnv(2166136261u, &a), &b) ==
		      0x0618ce00u);
	}
}

int main(void)
{
	test_addr_fnv();
	test_link_layers();
	test_ip6_ext();
	test_truncated_udp();
	test_frag4();
	test_frag6();
	test_source();
	return CHECK_SUMMARY();
}
