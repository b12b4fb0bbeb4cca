/*
 * l4.c - the transport dispatch: UDP datagrams are delivered here as
 * messages, TCP segments go to tcp.c; and the IPv6 extension header walk
 * (RFC 8200) that ip.c and a reassembled fragment share.  ip.c and
 * ipfrag.c both hand datagrams here; this file calls neither.
 *
 * Two lengths throughout: caplen (captured) and len (on the wire).
 */
#include <string.h>

#include "capture/capture_int.h"

/* A header of hlen bytes does not fit: malformed if the wire did not have
 * it either, else truncated (skipped silently: counted as a truncated
 * frame). */
void cap_short_header(struct cap_pipe *p, uint32_t hlen, uint32_t len)
{
	if (hlen > len)
		p->st.ip_errors++;
}

static void udp_input(struct cap_pipe *p, const struct cap_l3 *l3)
{
	struct cap_msg m;
	uint32_t ulen;

	if (l3->caplen < 8) {
		cap_short_header(p, 8, l3->len);
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
bool cap_ip6_walk(struct cap_pipe *p, struct cap_l3 *l3, uint8_t *nh,
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
				cap_short_header(p, 2, l3->len);
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
			cap_short_header(p, hlen, l3->len);
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

			if (!cap_ip6_walk(p, l3, &nh, NULL, NULL))
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

