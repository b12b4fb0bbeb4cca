/*
 * net.c - nfsgen framing: link headers (Ethernet, 802.1Q, QinQ, Linux SLL
 * and SLL2, raw IP), IPv4 (with fragmentation) and IPv6 (with fragment
 * headers), UDP, TCP (handshake, record marking, segmentation, reordering,
 * loss), the nanosecond pcap writer, and the ground-truth lines.
 *
 * Frame numbers are assigned as frames are written, so every truth line is
 * written right after the frames that complete its message: lines come out
 * in frame order.  One TCP batch (a run of records on one stream direction)
 * is pending at a time.
 */
#include "gen.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

int64_t net_now;
struct net_stats net_stats;
static struct net_cfg cfg;

#define MTU 1500

/* ------------------------------------------------------------- pcap -- */

static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}

static uint32_t linktype(void)
{
	switch (cfg.link) {
	case LINK_SLL: return 113;
	case LINK_SLL2: return 276;
	case LINK_RAW: return 101;
	default: return 1;
	}
}

void net_init(const struct net_cfg *c)
{
	uint32_t h[6] = { 0xa1b23c4d, 0x00040002, 0, 0, c->snaplen, 0 };

	cfg = *c;
	h[5] = linktype();
	fwrite(h, sizeof(h), 1, cfg.pcap);	/* host byte order, as pcap does */
}

/*
 * Write one frame: hdr (link..L4 headers) then up to two payload pieces.
 * Returns the captured payload bytes (after hdr) so callers can tell
 * truncation.
 */
static size_t frame_out(const uint8_t *hdr, size_t hlen, const uint8_t *p1, size_t n1,
			const uint8_t *p2, size_t n2)
{
	uint32_t len = (uint32_t)(hlen + n1 + n2);
	uint32_t cap = len < cfg.snaplen ? len : cfg.snaplen;
	uint32_t rec[4];
	size_t left = cap, k;

	net_now += 1000 + rnd(20000);
	rec[0] = (uint32_t)(net_now / 1000000000);
	rec[1] = (uint32_t)(net_now % 1000000000);
	rec[2] = cap;
	rec[3] = len;
	fwrite(rec, sizeof(rec), 1, cfg.pcap);
	k = hlen < left ? hlen : left;
	fwrite(hdr, 1, k, cfg.pcap);
	left -= k;
	k = n1 < left ? n1 : left;
	if (k)
		fwrite(p1, 1, k, cfg.pcap);
	left -= k;
	k = n2 < left ? n2 : left;
	if (k)
		fwrite(p2, 1, k, cfg.pcap);
	net_stats.frames++;
	return cap > hlen ? cap - hlen : 0;
}

/* ------------------------------------------------------- link and IP -- */

static size_t link_hdr(uint8_t *b, const struct flow *f, int dir, uint16_t et)
{
	const struct host *s = dir ? f->srv : f->cli, *d = dir ? f->cli : f->srv;
	size_t n = 0;

	switch (cfg.link) {
	case LINK_RAW:
		return 0;
	case LINK_SLL:
		put16(b, dir ? 0 : 4);	/* to us / outgoing: captured on the client */
		put16(b + 2, 1);	/* ARPHRD_ETHER */
		put16(b + 4, 6);
		memcpy(b + 6, s->mac, 6);
		put16(b + 12, 0);
		put16(b + 14, et);
		return 16;
	case LINK_SLL2:
		put16(b, et);
		put16(b + 2, 0);
		put32(b + 4, 2);	/* ifindex */
		put16(b + 8, 1);	/* ARPHRD_ETHER */
		b[10] = dir ? 0 : 4;
		b[11] = 6;
		memcpy(b + 12, s->mac, 6);
		put16(b + 18, 0);
		return 20;
	default:
		memcpy(b, d->mac, 6);
		memcpy(b + 6, s->mac, 6);
		n = 12;
		if (cfg.link == LINK_QINQ) {
			put16(b + n, 0x88a8);
			put16(b + n + 2, 100);
			n += 4;
		}
		if (cfg.link == LINK_QINQ || cfg.link == LINK_VLAN) {
			put16(b + n, 0x8100);
			put16(b + n + 2, (uint16_t)(0x2000 | 42));	/* PCP 1, VID 42 */
			n += 4;
		}
		put16(b + n, et);
		return n + 2;
	}
}

static uint32_t csum_add(uint32_t s0, const uint8_t *p, size_t n)
{
	uint64_t s = s0;

	for (; n >= 8; n -= 8, p += 8)
		s += (uint64_t)p[0] << 8 | p[1], s += (uint64_t)p[2] << 8 | p[3],
		s += (uint64_t)p[4] << 8 | p[5], s += (uint64_t)p[6] << 8 | p[7];
	for (; n >= 2; n -= 2, p += 2)
		s += (uint64_t)p[0] << 8 | p[1];
	if (n)
		s += (uint64_t)p[0] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint32_t)s;
}

static uint16_t csum_fin(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* pseudo header sum */
static uint32_t csum_pseudo(const struct flow *f, int dir, uint8_t proto, uint32_t len)
{
	const struct host *s = dir ? f->srv : f->cli, *d = dir ? f->cli : f->srv;
	uint8_t b[8];
	uint32_t sum;

	if (f->ipv == 4) {
		sum = csum_add(0, s->a4, 4);
		sum = csum_add(sum, d->a4, 4);
	} else {
		sum = csum_add(0, s->a6, 16);
		sum = csum_add(sum, d->a6, 16);
	}
	put32(b, len);
	put32(b + 4, proto);
	return csum_add(sum, b, 8);
}

/* IP header (no fragmentation fields unless frag); returns its length */
static size_t ip_hdr(uint8_t *b, const struct flow *f, int dir, uint8_t proto,
		     size_t paylen, uint16_t id, uint16_t fragoff, bool df)
{
	struct host *s = dir ? f->srv : f->cli, *d = dir ? f->cli : f->srv;

	if (f->ipv == 4) {
		b[0] = 0x45;
		b[1] = 0;
		put16(b + 2, (uint16_t)(20 + paylen));
		put16(b + 4, id);
		put16(b + 6, (uint16_t)(fragoff | (df ? 0x4000 : 0)));
		b[8] = 64;
		b[9] = proto;
		put16(b + 10, 0);
		memcpy(b + 12, s->a4, 4);
		memcpy(b + 16, d->a4, 4);
		put16(b + 10, csum_fin(csum_add(0, b, 20)));
		return 20;
	}
	put32(b, 0x60000000u | (uint32_t)(f->tcp ? 0x12345 : 0));
	put16(b + 4, (uint16_t)paylen);
	b[6] = proto;
	b[7] = 64;
	memcpy(b + 8, s->a6, 16);
	memcpy(b + 24, d->a6, 16);
	return 40;
}

/* ------------------------------------------------------ truth lines -- */

static void truth_out(struct gmsg *m)
{
	FILE *t = cfg.truth;
	char ts[32];
	const struct host *s = m->dir ? m->f->srv : m->f->cli;
	const struct host *d = m->dir ? m->f->cli : m->f->srv;
	bool fl = !m->lost && (m->ipfrag || m->multifrag || m->truncated || m->after_gap);
	int c = 0;

	net_stats.messages++;
	if (m->is_call)
		net_stats.calls++;
	else
		net_stats.replies++;
	if (m->lost)
		net_stats.lost++;
	else if (m->truncated)
		net_stats.truncated++;
	if (!t)
		return;
	snprintf(ts, sizeof(ts), "%lld.%09lld", (long long)(m->ts / 1000000000),
		 (long long)(m->ts % 1000000000));
	fprintf(t, "{\"frame\":%llu,\"first_frame\":%llu,\"ts\":\"%s\",\"src\":\"%s\",\"sport\":%u,"
		"\"dst\":\"%s\",\"dport\":%u,\"proto\":\"%s\",\"len\":%u,",
		(unsigned long long)m->frame, (unsigned long long)m->first_frame, ts,
		m->f->ipv == 4 ? s->s4 : s->s6, m->sport, m->f->ipv == 4 ? d->s4 : d->s6,
		m->dport, m->f->tcp ? "tcp" : "udp", m->len);
	if (!m->truncated)
		fprintf(t, "\"caplen\":%u,", m->len);
	else if (m->caplen != UINT32_MAX)
		fprintf(t, "\"caplen\":%u,", m->caplen);
	if (fl) {
		fputs("\"flags\":[", t);
		if (m->truncated)
			fputs(c++ ? ",\"truncated\"" : "\"truncated\"", t);
		if (m->after_gap)
			fputs(c++ ? ",\"after_gap\"" : "\"after_gap\"", t);
		if (m->ipfrag)
			fputs(c++ ? ",\"ipfrag\"" : "\"ipfrag\"", t);
		if (m->multifrag)
			fputs(c++ ? ",\"multifrag\"" : "\"multifrag\"", t);
		fputs("],", t);
	}
	if (m->lost)
		fputs("\"lost\":true,", t);
	if (m->truncated)
		fputs("\"truncated\":true,", t);
	if (m->after_gap)
		fputs("\"after_gap\":true,", t);
	if (m->hidden && !m->lost)
		fputs("\"hidden\":true,", t);
	/* truncated or lost: the body is not part of the expectation */
	fwrite(m->j.p, 1, m->truncated || m->lost ? m->body_off : m->j.len, t);
	fputs("}\n", t);
}

void net_fini(void)
{
	tcp_flush();
	if (cfg.truth)
		fprintf(cfg.truth, "{\"summary\":{\"messages\":%llu,\"calls\":%llu,\"replies\":%llu,"
			"\"garbage_payloads\":%llu,\"lost\":%llu,\"truncated\":%llu,\"frames\":%llu}}\n",
			(unsigned long long)net_stats.messages, (unsigned long long)net_stats.calls,
			(unsigned long long)net_stats.replies,
			(unsigned long long)net_stats.garbage_payloads,
			(unsigned long long)net_stats.lost, (unsigned long long)net_stats.truncated,
			(unsigned long long)net_stats.frames);
}

/* -------------------------------------------------------------- UDP -- */

void udp_send(struct flow *f, int dir, uint16_t cport, struct gmsg *m,
	      const uint8_t *p, size_t n)
{
	uint8_t hdr[128], udp[8];
	struct host *src = dir ? f->srv : f->cli;
	uint16_t cp = cport ? cport : f->cport;
	uint16_t sp = dir ? f->sport : cp, dp = dir ? cp : f->sport;
	size_t total = 8 + n, iph = f->ipv == 4 ? 20 : 40;
	bool trunc = false;
	uint32_t capfirst = UINT32_MAX;
	uint64_t first = 0;

	if (m) {
		m->ipfrag = m->multifrag = m->lost = m->truncated = m->after_gap = false;
		m->len = (uint32_t)n;
	}
	put16(udp, sp);
	put16(udp + 2, dp);
	put16(udp + 4, (uint16_t)total);
	put16(udp + 6, 0);
	if (cfg.csum || f->ipv == 6) {
		uint32_t s = csum_pseudo(f, dir, 17, (uint32_t)total);
		uint16_t c;

		s = csum_add(s, udp, 8);
		s = csum_add(s, p, n);
		c = csum_fin(s);
		put16(udp + 6, c ? c : 0xffff);
	}
	if (iph + total <= MTU) {
		size_t l = link_hdr(hdr, f, dir, f->ipv == 4 ? 0x0800 : 0x86dd);
		size_t cap;

		l += ip_hdr(hdr + l, f, dir, 17, total, src->ipid++, 0, false);
		memcpy(hdr + l, udp, 8);
		cap = frame_out(hdr, l + 8, p, n, NULL, 0);
		if (cap < n) {
			trunc = true;
			capfirst = (uint32_t)cap;
		}
		first = net_stats.frames;
	} else {
		/* fragments of [udp header | payload] */
		size_t per = f->ipv == 4 ? (MTU - 20) & ~7u : (MTU - 48) & ~7u;
		size_t nfrag = (total + per - 1) / per;
		size_t drop = net_drop_frag_next ? 1 :
			      cfg.lost_frags > 0 && chance(cfg.lost_frags) ? rnd((uint32_t)nfrag) : SIZE_MAX;
		uint16_t id = src->ipid++;
		uint32_t id6 = rnd32();

		net_drop_frag_next = false;
		if (m)
			m->ipfrag = true;
		for (size_t i = 0; i < nfrag; i++) {
			size_t off = i * per, len = total - off < per ? total - off : per;
			bool more = i + 1 < nfrag;
			size_t l, cap;
			const uint8_t *p1;
			size_t n1;

			if (i == drop) {
				if (m)
					m->lost = true;
				continue;
			}
			l = link_hdr(hdr, f, dir, f->ipv == 4 ? 0x0800 : 0x86dd);
			if (f->ipv == 4) {
				l += ip_hdr(hdr + l, f, dir, 17, len, id,
					    (uint16_t)((off / 8) | (more ? 0x2000 : 0)), false);
			} else {
				l += ip_hdr(hdr + l, f, dir, 44, len + 8, 0, 0, false);
				hdr[l] = 17;
				hdr[l + 1] = 0;
				put16(hdr + l + 2, (uint16_t)(off | (more ? 1 : 0)));
				put32(hdr + l + 4, id6);
				l += 8;
			}
			if (i == 0) {
				memcpy(hdr + l, udp, 8);
				l += 8;
				p1 = p;
				n1 = len - 8;
			} else {
				p1 = p + off - 8;
				n1 = len;
			}
			cap = frame_out(hdr, l, p1, n1, NULL, 0);
			if (cap < n1)
				trunc = true;
			if (!first)
				first = net_stats.frames;
		}
	}
	if (!m) {
		net_stats.garbage_payloads++;
		return;
	}
	m->f = f;
	m->dir = dir;
	m->sport = sp;
	m->dport = dp;
	m->frame = net_stats.frames;
	m->first_frame = first ? first : net_stats.frames;
	m->ts = net_now;
	m->truncated = trunc && !m->lost;
	m->caplen = m->ipfrag ? UINT32_MAX : capfirst;
	truth_out(m);
}

/* -------------------------------------------------------------- TCP -- */

bool net_drop_next;

static struct {
	struct flow *f;
	int dir;
	uint8_t *buf;
	size_t len, cap;
	struct gmsg *msgs[64];
	uint32_t marks[256];	/* offsets of record marks */
	int nmsgs, nmarks;
	bool raw;
	/* segments */
	size_t *soff, *slen, *scap;
	uint64_t *sframe;
	int64_t *sts;
	int *order;
	bool *sdrop;
	size_t segcap;
} bt;

static void seg_grow(size_t n)
{
	if (n <= bt.segcap)
		return;
	bt.segcap = n * 2;
	bt.soff = realloc(bt.soff, bt.segcap * sizeof(*bt.soff));
	bt.slen = realloc(bt.slen, bt.segcap * sizeof(*bt.slen));
	bt.scap = realloc(bt.scap, bt.segcap * sizeof(*bt.scap));
	bt.sframe = realloc(bt.sframe, bt.segcap * sizeof(*bt.sframe));
	bt.sts = realloc(bt.sts, bt.segcap * sizeof(*bt.sts));
	bt.order = realloc(bt.order, bt.segcap * sizeof(*bt.order));
	bt.sdrop = realloc(bt.sdrop, bt.segcap * sizeof(*bt.sdrop));
	if (!bt.soff || !bt.slen || !bt.scap || !bt.sframe || !bt.sts || !bt.order || !bt.sdrop)
		abort();
}

/* one TCP segment; returns captured payload bytes */
static size_t tcp_seg(struct flow *f, int dir, uint8_t flags, const uint8_t *p, size_t n)
{
	uint8_t hdr[128];
	uint8_t *th;
	size_t l = link_hdr(hdr, f, dir, f->ipv == 4 ? 0x0800 : 0x86dd);
	struct host *src = dir ? f->srv : f->cli;

	l += ip_hdr(hdr + l, f, dir, 6, 20 + n, src->ipid++, 0, true);
	th = hdr + l;
	put16(th, dir ? f->sport : f->cport);
	put16(th + 2, dir ? f->cport : f->sport);
	put32(th + 4, f->seq[dir]);
	put32(th + 8, (flags & 0x10) ? f->seq[!dir] : 0);
	th[12] = 5 << 4;
	th[13] = flags;
	put16(th + 14, 65535);
	put16(th + 16, 0);
	put16(th + 18, 0);
	if (cfg.csum) {
		uint32_t s = csum_pseudo(f, dir, 6, (uint32_t)(20 + n));

		s = csum_add(s, th, 20);
		s = csum_add(s, p, n);
		put16(th + 16, csum_fin(s));
	}
	return frame_out(hdr, l + 20, p, n, NULL, 0);
}

bool net_drop_frag_next;
int64_t net_hs_rtt_ns;
int net_hs_end;

static void tcp_open(struct flow *f)
{
	f->seq[0] = rnd32();
	f->seq[1] = rnd32();
	tcp_seg(f, 0, 0x02, NULL, 0);	/* SYN */
	f->seq[0]++;
	if (net_hs_end == 1)	/* client end: the SYN/ACK a round trip later */
		net_now += net_hs_rtt_ns;
	tcp_seg(f, 1, 0x12, NULL, 0);	/* SYN-ACK */
	f->seq[1]++;
	if (net_hs_end == 2)	/* server end: the ACK a round trip later */
		net_now += net_hs_rtt_ns;
	tcp_seg(f, 0, 0x10, NULL, 0);	/* ACK */
	f->open = true;
}

void tcp_fin(struct flow *f)
{
	if (bt.f == f)
		tcp_flush();
	if (!f->open)
		return;
	tcp_seg(f, 0, 0x11, NULL, 0);
	f->seq[0]++;
	tcp_seg(f, 1, 0x11, NULL, 0);
	f->seq[1]++;
	tcp_seg(f, 0, 0x10, NULL, 0);
	f->open = false;
}

static void bt_put(const void *p, size_t n)
{
	if (bt.len + n > bt.cap) {
		while (bt.len + n > bt.cap)
			bt.cap = bt.cap ? bt.cap * 2 : 1 << 20;
		bt.buf = realloc(bt.buf, bt.cap);
		if (!bt.buf)
			abort();
	}
	memcpy(bt.buf + bt.len, p, n);
	bt.len += n;
}

static void bt_mark(uint32_t v)
{
	uint8_t b[4];

	if (bt.nmarks < 256)
		bt.marks[bt.nmarks++] = (uint32_t)bt.len;
	put32(b, v);
	bt_put(b, 4);
}

void tcp_queue(struct flow *f, int dir, struct gmsg *m, const uint8_t *p, size_t n)
{
	if (bt.f && (bt.f != f || bt.dir != dir || bt.nmsgs == 64 || bt.nmarks > 240 ||
		     bt.raw != !m))
		tcp_flush();
	if (!f->open)
		tcp_open(f);
	bt.f = f;
	bt.dir = dir;
	bt.raw = !m;
	if (!m) {
		bt_put(p, n);
		return;
	}
	m->s_start = bt.len;
	m->multifrag = false;
	if (cfg.multifrag && n >= (cfg.multifrag == 2 ? 48u : 8u) && chance(0.4)) {
		/* 2-4 record fragments at random cut points */
		size_t k = 2 + rnd(3), done = 0;
		/* the first fragment holds at least the RPC header (40 bytes)
		 * with multifrag 2, and half the time with multifrag 1 */
		size_t first_min = cfg.multifrag == 2 || rnd(2) ? 40 : 1;

		if (n < first_min + 8)
			first_min = 1;
		m->multifrag = true;
		for (size_t i = 0; i < k; i++) {
			size_t left = n - done;
			size_t take = i + 1 == k ? left : 1 + rnd((uint32_t)(left - (k - 1 - i)) / 2 + 1);

			if (i == 0 && take < first_min)
				take = first_min;
			if (take > left - (k - 1 - i))
				take = left - (k - 1 - i);
			bt_mark((uint32_t)take | (i + 1 == k ? 0x80000000u : 0));
			bt_put(p + done, take);
			done += take;
		}
	} else {
		bt_mark((uint32_t)n | 0x80000000u);
		bt_put(p, n);
	}
	m->s_end = bt.len;
	m->len = (uint32_t)n;
	m->f = f;
	m->dir = dir;
	m->sport = dir ? f->sport : f->cport;
	m->dport = dir ? f->cport : f->sport;
	bt.msgs[bt.nmsgs++] = m;
}

static int cmp_frame(const void *a, const void *b)
{
	const struct gmsg *x = *(struct gmsg *const *)a, *y = *(struct gmsg *const *)b;

	if (x->frame != y->frame)
		return x->frame < y->frame ? -1 : 1;
	return x->s_start < y->s_start ? -1 : x->s_start > y->s_start;
}

void tcp_flush(void)
{
	struct flow *f = bt.f;
	int dir = bt.dir;
	size_t nseg = 0, pos = 0, mi = 0;
	uint32_t base;
	uint64_t last = 0;
	bool hole_only;		/* net_drop_next: m->ts of its last segment */

	if (!f)
		return;
	/* cut points: MSS, or inside a record mark */
	while (pos < bt.len) {
		size_t next = pos + cfg.mss < bt.len ? pos + cfg.mss : bt.len;

		if (cfg.split_marks) {
			while (mi < (size_t)bt.nmarks && bt.marks[mi] + 1 <= pos)
				mi++;
			if (mi < (size_t)bt.nmarks && bt.marks[mi] + 3 < next && chance(0.5))
				next = bt.marks[mi] + 1 + rnd(3);
		}
		seg_grow(nseg + 1);
		bt.soff[nseg] = pos;
		bt.slen[nseg] = next - pos;
		bt.order[nseg] = (int)nseg;
		bt.sdrop[nseg] = chance(cfg.lost_segs);
		nseg++;
		pos = next;
	}
	hole_only = net_drop_next && nseg >= 2;
	if (hole_only)
		bt.sdrop[nseg - 2] = true;	/* scen.c: a hole before the last */
	net_drop_next = false;
	for (size_t i = 0; i + 1 < nseg; i++) {
		if (chance(cfg.reorder)) {
			int t = bt.order[i];

			bt.order[i] = bt.order[i + 1];
			bt.order[i + 1] = t;
			i++;
		}
	}
	base = f->seq[dir];
	for (size_t i = 0; i < nseg; i++) {
		int s = bt.order[i];

		bt.sframe[s] = 0;
		bt.scap[s] = 0;
		if (bt.sdrop[s])
			continue;
		f->seq[dir] = base + (uint32_t)bt.soff[s];
		bt.scap[s] = tcp_seg(f, dir, 0x18, bt.buf + bt.soff[s], bt.slen[s]);
		bt.sframe[s] = net_stats.frames;
		bt.sts[s] = net_now;
		if (!bt.raw)
			continue;
		net_stats.garbage_payloads++;
	}
	f->seq[dir] = base + (uint32_t)bt.len;
	last = net_stats.frames;
	if (chance(cfg.acks))
		tcp_seg(f, !dir, 0x10, NULL, 0);

	/* messages: lost, truncated, completion frame */
	{
		size_t s0 = 0;
		uint64_t upto = 0;	/* max frame of all segments before */
		int64_t upto_ts = 0;

		for (int k = 0; k < bt.nmsgs; k++) {
			struct gmsg *m = bt.msgs[k];
			uint64_t fmax = 0;
			int64_t fts = net_now;

			m->lost = m->truncated = m->after_gap = false;
			m->hidden = false;
			m->caplen = UINT32_MAX;
			m->first_frame = 0;
			for (size_t s = s0; s < nseg && bt.soff[s] < m->s_end; s++) {
				size_t so = bt.soff[s], se = so + bt.slen[s];

				if (se <= m->s_start) {
					if (bt.sframe[s] > upto) {
						upto = bt.sframe[s];
						upto_ts = bt.sts[s];
					}
					s0 = s + 1;
					continue;
				}
				if (bt.sdrop[s]) {
					m->lost = true;
					continue;
				}
				if (so <= m->s_start && m->s_start < se) {
					m->first_frame = bt.sframe[s];
					m->hidden = so + bt.scap[s] < m->s_start + 4;
				}
				if (so + bt.scap[s] < se && so + bt.scap[s] < m->s_end)
					m->truncated = true;
				if (bt.sframe[s] > fmax) {
					fmax = bt.sframe[s];
					fts = bt.sts[s];
				}
			}
			if (m->lost) {
				m->frame = last;
				m->first_frame = m->first_frame ? m->first_frame : last;
				f->gap[dir] = true;
				m->truncated = false;
			} else {
				if (f->gap[dir]) {
					m->after_gap = true;
					f->gap[dir] = false;
				} else if (upto > fmax) {
					fmax = upto;
					fts = upto_ts;
				}
				m->frame = fmax;
				m->ts = fts;
				if (m->truncated)
					f->gap[dir] = true;
			}
			if (fmax > upto && !m->lost) {
				upto = fmax;
				upto_ts = fts;
			}
			if (m->lost)
				m->ts = hole_only && fmax ? fts : net_now;
		}
	}
	qsort(bt.msgs, (size_t)bt.nmsgs, sizeof(bt.msgs[0]), cmp_frame);
	for (int k = 0; k < bt.nmsgs; k++) {
		struct gmsg *m = bt.msgs[k];

		truth_out(m);
	}
	bt.f = NULL;
	bt.len = 0;
	bt.nmsgs = bt.nmarks = 0;
}
