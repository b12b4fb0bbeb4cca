/*
 * ip.c - IPv4 and IPv6 headers (RFC 791, RFC 8200), fragments handed to
 * ipfrag.c, then the transport dispatch: UDP datagrams are delivered here,
 * TCP segments go to tcp.c.
 *
 * Two lengths throughout: caplen (captured) and len (on the wire).  A
 * header field that claims more than the wire carried is malformed
 * (ip_errors); a header cut by snaplen is truncation (already counted by
 * the pipe as a truncated frame) and the frame is skipped.
 */
#include <string.h>

#include "capture/capture_int.h"

#define IPPROTO_HOPOPTS_ 0
#define IPPROTO_TCP_ 6
#define IPPROTO_UDP_ 17
#define IPPROTO_ROUTING_ 43
#define IPPROTO_FRAGMENT_ 44
#define IPPROTO_AH_ 51
#define IPPROTO_DSTOPTS_ 60

/* A header of hlen bytes does not fit: malformed if the wire did not have
 * it either, else truncated (skipped silently: counted as a truncated
 * frame). */
static void short_header(struct cap_pipe *p, uint32_t hlen, uint32_t len)
{
	if (hlen > len)
		p->st.ip_errors++;
}

static void udp_input(struct cap_pipe *p, const struct cap_l3 *l3)
{
	struct cap_msg m;
	uint32_t ulen;

	if (l3->caplen < 8) {
		short_header(p, 8, l3->len);
		return;
	}
	ulen = cap_be16(l3->data + 4);
	if (ulen == 0 && l3->len > 0xffff)	/* jumbogram */
		ulen = l3->len;
	if (ulen < 8 || ulen > l3->len) {
		p->st.ip_errors++;
		return;
	}
	memset(&m, 0, sizeof(m));
	m.frame = p->frame;
	m.first_frame = l3->first_frame;
	m.ts_ns = p->ts_ns;
	m.first_ts_ns = l3->first_ts_ns;
	m.src = l3->src;
	m.dst = l3->dst;
	m.sport = cap_be16(l3->data);
	m.dport = cap_be16(l3->data + 2);
	m.transport = CAP_UDP;
	m.len = ulen - 8;
	m.caplen = l3->caplen - 8;
	if (m.caplen > m.len)
		m.caplen = m.len;
	m.flags = l3->flags & CAP_MSG_IPFRAG;
	if (m.caplen < m.len)
		m.flags |= CAP_MSG_TRUNCATED;
	m.data = l3->data + 8;
	p->st.udp_msgs++;
	if (p->fn)
		p->fn(p->user, &m);
}

/*
 * Walk IPv6 extension headers starting with next header *nh at l3->data.
 * On return *nh is the upper-layer protocol and l3 is advanced past the
 * headers.  A fragment header fills *fr (if fr) and stops the walk.
 * Returns false if the packet was skipped (and counted).
 */
static bool ip6_walk(struct cap_pipe *p, struct cap_l3 *l3, uint8_t *nh,
		     struct cap_frag_in *fr, bool *is_frag)
{
	uint32_t hlen;

	for (;;) {
		switch (*nh) {
		case IPPROTO_HOPOPTS_:
		case IPPROTO_ROUTING_:
		case IPPROTO_DSTOPTS_:
		case IPPROTO_AH_:
			if (l3->caplen < 2) {
				short_header(p, 2, l3->len);
				return false;
			}
			if (*nh == IPPROTO_AH_)
				hlen = ((uint32_t)l3->data[1] + 2) * 4;
			else
				hlen = ((uint32_t)l3->data[1] + 1) * 8;
			break;
		case IPPROTO_FRAGMENT_:
			hlen = 8;
			break;
		default:
			return true;
		}
		if (hlen > l3->caplen) {
			short_header(p, hlen, l3->len);
			return false;
		}
		if (*nh == IPPROTO_FRAGMENT_) {
			uint16_t offf = cap_be16(l3->data + 2);

			if (!fr) {	/* nested fragment header */
				p->st.ip_errors++;
				return false;
			}
			fr->proto = l3->data[0];
			fr->off = offf & 0xfff8u;
			fr->more = offf & 1;
			fr->id = cap_be32(l3->data + 4);
			/* an atomic fragment (RFC 6946) is a whole packet */
			*is_frag = fr->off != 0 || fr->more;
		}
		*nh = l3->data[0];
		l3->data += hlen;
		l3->caplen -= hlen;
		l3->len -= hlen;
		if (is_frag && *is_frag)
			return true;
	}
}

void cap_l4_input(struct cap_pipe *p, struct cap_l3 *l3)
{
	switch (l3->proto) {
	case IPPROTO_UDP_:
		udp_input(p, l3);
		return;
	case IPPROTO_TCP_:
		cap_tcp_input(p, l3);
		return;
	case IPPROTO_HOPOPTS_: case IPPROTO_ROUTING_: case IPPROTO_DSTOPTS_:
	case IPPROTO_AH_: case IPPROTO_FRAGMENT_:
		/* IPv6 headers after a reassembled fragment header */
		if (l3->src.family == 6) {
			uint8_t nh = l3->proto;

			if (!ip6_walk(p, l3, &nh, NULL, NULL))
				return;
			l3->proto = nh;
			if (nh == IPPROTO_UDP_ || nh == IPPROTO_TCP_) {
				cap_l4_input(p, l3);
				return;
			}
		}
		p->st.other_proto++;
		return;
	default:
		p->st.other_proto++;
		return;
	}
}

static void ip4_input(struct cap_pipe *p, const uint8_t *d, uint32_t caplen,
		      uint32_t len)
{
	struct cap_l3 l3;
	uint32_t ihl, tot;
	uint16_t offf;

	if (caplen < 20) {
		short_header(p, 20, len);
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
		short_header(p, 40, len);
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
	if (!ip6_walk(p, &l3, &nh, &fr, &is_frag))
		return;
	l3.proto = nh;
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
		short_header(p, 1, len);
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
