/*
 * ip.c - IPv4 and IPv6 headers (RFC 791, RFC 8200): fragments go to
 * ipfrag.c, whole datagrams to the transport dispatch (l4.c).
 *
 * Two lengths throughout: caplen (captured) and len (on the wire).  A
 * header field that claims more than the wire carried is malformed
 * (ip_errors); a header cut by snaplen is truncation (already counted by
 * the pipe as a truncated frame) and the frame is skipped.
 */
#include <string.h>

#include "capture/capture_int.h"

/* The evidence writer's tap (capture.h): this packet's addresses and
 * fragment id or ports. */
static void ip_tap(struct cap_pipe *p, const struct cap_l3 *l3, bool frag,
		   uint32_t id)
{
	struct cap_ip_seen s;

	if (p->cfg.ip_tap == NULL)
		return;
	memset(&s, 0, sizeof(s));
	s.frame = p->frame;
	s.src = l3->src;
	s.dst = l3->dst;
	s.proto = l3->proto;
	s.frag = frag;
	s.id = id;
	if (!frag && l3->caplen >= 4) {
		s.sport = cap_be16(l3->data);
		s.dport = cap_be16(l3->data + 2);
	}
	p->cfg.ip_tap(p->cfg.tap_user, &s);
}

static void ip4_input(struct cap_pipe *p, const uint8_t *d, uint32_t caplen,
		      uint32_t len)
{
	struct cap_l3 l3;
	uint32_t ihl, tot;
	uint16_t offf;

	if (caplen < 20) {
		cap_short_header(p, 20, len);
		return;
	}
	ihl = (uint32_t)(d[0] & 0x0f) * 4;
	if (ihl < 20 || ihl > len) {
		p->st.ip_errors++;
		return;
	}
	if (ihl > caplen)
		return;		/* options cut by snaplen */
	tot = cap_be16(d + 2);
	if (tot == 0 && d[9] == IPPROTO_TCP_)
		tot = len;	/* TSO/GSO frame: length not filled in */
	if (tot < ihl || tot > len) {
		p->st.ip_errors++;
		return;
	}
	/* tot trims link-layer padding */
	if (caplen > tot)
		caplen = tot;
	memset(&l3, 0, sizeof(l3));
	l3.src.family = 4;
	memcpy(l3.src.a, d + 12, 4);
	l3.dst.family = 4;
	memcpy(l3.dst.a, d + 16, 4);
	l3.proto = d[9];
	l3.data = d + ihl;
	l3.caplen = caplen - ihl;
	l3.len = tot - ihl;
	l3.first_frame = p->frame;
	l3.first_ts_ns = p->ts_ns;
	if (l3.caplen < l3.len)
		l3.flags |= CAP_MSG_TRUNCATED;
	offf = cap_be16(d + 6);
	ip_tap(p, &l3, (offf & 0x3fff) != 0, cap_be16(d + 4));
	if (offf & 0x3fff) {
		struct cap_frag_in fr;

		fr.src = l3.src;
		fr.dst = l3.dst;
		fr.id = cap_be16(d + 4);
		fr.proto = l3.proto;
		fr.off = (uint32_t)(offf & 0x1fff) * 8;
		fr.more = (offf & 0x2000) != 0;
		fr.data = l3.data;
		fr.caplen = l3.caplen;
		fr.len = l3.len;
		cap_frag_input(p, &fr, 4);
		return;
	}
	cap_l4_input(p, &l3);
}

static void ip6_input(struct cap_pipe *p, const uint8_t *d, uint32_t caplen,
		      uint32_t len)
{
	struct cap_l3 l3;
	struct cap_frag_in fr;
	uint32_t plen;
	uint8_t nh;
	bool is_frag = false;

	if (caplen < 40) {
		cap_short_header(p, 40, len);
		return;
	}
	plen = cap_be16(d + 4);
	if (plen == 0)		/* jumbogram or offloaded: use the frame */
		plen = len - 40;
	if (plen > len - 40) {
		p->st.ip_errors++;
		return;
	}
	if (caplen > plen + 40)
		caplen = plen + 40;
	memset(&l3, 0, sizeof(l3));
	l3.src.family = 6;
	memcpy(l3.src.a, d + 8, 16);
	l3.dst.family = 6;
	memcpy(l3.dst.a, d + 24, 16);
	l3.data = d + 40;
	l3.caplen = caplen - 40;
	l3.len = plen;
	l3.first_frame = p->frame;
	l3.first_ts_ns = p->ts_ns;
	if (l3.caplen < l3.len)
		l3.flags |= CAP_MSG_TRUNCATED;
	nh = d[6];
	memset(&fr, 0, sizeof(fr));
	if (!cap_ip6_walk(p, &l3, &nh, &fr, &is_frag))
		return;
	l3.proto = nh;
	ip_tap(p, &l3, is_frag, fr.id);
	if (is_frag) {
		fr.src = l3.src;
		fr.dst = l3.dst;
		fr.data = l3.data;
		fr.caplen = l3.caplen;
		fr.len = l3.len;
		cap_frag_input(p, &fr, 6);
		return;
	}
	cap_l4_input(p, &l3);
}

void cap_ip_input(struct cap_pipe *p, const uint8_t *d, uint32_t caplen,
		  uint32_t len)
{
	if (caplen < 1) {
		cap_short_header(p, 1, len);
		return;
	}
	switch (d[0] >> 4) {
	case 4:
		ip4_input(p, d, caplen, len);
		return;
	case 6:
		ip6_input(p, d, caplen, len);
		return;
	default:
		p->st.ip_errors++;
		return;
	}
}
