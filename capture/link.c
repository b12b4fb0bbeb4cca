/*
 * link.c - the pipe's front door: frame counting, the capture clock, and
 * the link layers (Ethernet + VLAN tags, Linux SLL/SLL2, raw IP, BSD
 * null/loopback, FDDI).  Hands the network-layer bytes to ip.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

#include "capture/capture_int.h"

/* Link types by number: some DLT_* values differ between platforms
 * (DLT_RAW is 12 or 14, DLT_LOOP 108 or 12), savefiles use LINKTYPE_*. */
enum {
	LT_NULL = 0,
	LT_EN10MB = 1,
	LT_FDDI = 10,
	LT_RAW_12 = 12,
	LT_RAW_14 = 14,
	LT_RAW = 101,
	LT_LOOP = 108,
	LT_SLL = 113,
	LT_IPV4 = 228,
	LT_IPV6 = 229,
	LT_SLL2 = 276,
};

#define ETHERTYPE_IP 0x0800
#define ETHERTYPE_IPV6 0x86dd
#define VLAN_TAGS_MAX 16	/* more tags than this is garbage */

const char *cap_linktype_str(int linktype, char *buf, size_t n)
{
	const char *name = pcap_datalink_val_to_name(linktype);
	const char *what = pcap_datalink_val_to_description(linktype);

	if (name && what)
		snprintf(buf, n, "%s (%s)", name, what);
	else
		snprintf(buf, n, "%d", linktype);
	return buf;
}

bool cap_linktype_ok(int linktype, char *errbuf)
{
	const char *name;

	switch (linktype) {
	case LT_NULL: case LT_EN10MB: case LT_FDDI: case LT_RAW_12:
	case LT_RAW_14: case LT_RAW: case LT_LOOP: case LT_SLL:
	case LT_IPV4: case LT_IPV6: case LT_SLL2:
		return true;
	default:
		break;
	}
	name = pcap_datalink_val_to_name(linktype);
	if (errbuf)
		snprintf(errbuf, CAP_ERRBUF_SIZE,
			 "unsupported link type %d (%s); supported: Ethernet "
			 "(+VLAN), Linux SLL/SLL2, raw IP, null/loopback, FDDI",
			 linktype, name ? name : "unknown");
	return false;
}

/* Ethernet-style dispatch on an ethertype at d[off-2..off-1], skipping any
 * number of VLAN tags (802.1Q, 802.1ad, old QinQ 0x9100/0x9200). */
static void ether_dispatch(struct cap_pipe *p, uint16_t type,
			   const uint8_t *d, uint32_t caplen, uint32_t len,
			   uint32_t off)
{
	int tags = 0;

	while (type == 0x8100 || type == 0x88a8 || type == 0x9100 ||
	       type == 0x9200) {
		if (4 > caplen - off || ++tags > VLAN_TAGS_MAX) {
			p->st.link_errors++;
			return;
		}
		type = cap_be16(d + off + 2);
		off += 4;
	}
	if (type <= 1500) {
		/* 802.3 length: only LLC/SNAP carries IP */
		if (8 > caplen - off || d[off] != 0xaa || d[off + 1] != 0xaa ||
		    d[off + 2] != 0x03) {
			p->st.not_ip++;
			return;
		}
		type = cap_be16(d + off + 6);
		off += 8;
		/* the 802.3 length bounds the frame: ignore padding */
	}
	if (type != ETHERTYPE_IP && type != ETHERTYPE_IPV6) {
		p->st.not_ip++;
		return;
	}
	cap_ip_input(p, d + off, caplen - off, len - off);
}

static void link_ether(struct cap_pipe *p, const uint8_t *d, uint32_t caplen,
		       uint32_t len)
{
	if (caplen < 14) {
		p->st.link_errors++;
		return;
	}
	ether_dispatch(p, cap_be16(d + 12), d, caplen, len, 14);
}

/* FDDI: frame control, dst, src (13 bytes), then 802.2 LLC/SNAP.  Some
 * systems' libpcap put 3 bytes of padding first (PCAP_FDDIPAD). */
static void link_fddi(struct cap_pipe *p, const uint8_t *d, uint32_t caplen,
		      uint32_t len)
{
	uint32_t off = 13;

	if (caplen >= 24 && d[13] != 0xaa && d[16] == 0xaa && d[17] == 0xaa)
		off = 16;
	if (caplen < off || 8 > caplen - off) {
		p->st.link_errors++;
		return;
	}
	if (d[off] != 0xaa || d[off + 1] != 0xaa || d[off + 2] != 0x03) {
		p->st.not_ip++;
		return;
	}
	ether_dispatch(p, cap_be16(d + off + 6), d, caplen, len, off + 8);
}

/* BSD loopback: 4-byte address family, host order (NULL) or network
 * order (LOOP); AF_INET is 2 everywhere, AF_INET6 is 10, 24, 28 or 30. */
static void link_null(struct cap_pipe *p, const uint8_t *d, uint32_t caplen,
		      uint32_t len)
{
	uint32_t af;

	if (caplen < 4) {
		p->st.link_errors++;
		return;
	}
	af = cap_be32(d);
	if (af > 0xffff)	/* little-endian writer */
		af = (uint32_t)d[3] << 24 | (uint32_t)d[2] << 16 |
		     (uint32_t)d[1] << 8 | d[0];
	switch (af) {
	case 2: case 10: case 24: case 28: case 30:
		cap_ip_input(p, d + 4, caplen - 4, len - 4);
		return;
	default:
		p->st.not_ip++;
		return;
	}
}

void cap_pipe_feed(struct cap_pipe *p, const struct cap_pkt *pkt)
{
	uint32_t caplen = pkt->caplen, len = pkt->len;
	const uint8_t *d = pkt->data;

	p->frame++;
	p->ts_ns = pkt->ts_ns;
	if (p->cfg.frame_tap)
		p->cfg.frame_tap(p->cfg.tap_user, p->frame, pkt);
	if (pkt->ts_ns > p->now_ns)
		p->now_ns = pkt->ts_ns;
	if (caplen > len)	/* broken writer: trust what we have */
		len = caplen;
	p->st.packets++;
	p->st.bytes += len;
	if (caplen < len) {
		p->st.truncated++;
		if (caplen > p->st.snap_caplen)
			p->st.snap_caplen = caplen;
	}
	cap_frag_expire(p, false);
	cap_tcp_expire(p, false);

	switch (pkt->linktype) {
	case LT_EN10MB:
		link_ether(p, d, caplen, len);
		break;
	case LT_SLL:
		if (caplen < 16) {
			p->st.link_errors++;
			break;
		}
		ether_dispatch(p, cap_be16(d + 14), d, caplen, len, 16);
		break;
	case LT_SLL2:
		if (caplen < 20) {
			p->st.link_errors++;
			break;
		}
		ether_dispatch(p, cap_be16(d), d, caplen, len, 20);
		break;
	case LT_RAW: case LT_RAW_12: case LT_RAW_14: case LT_IPV4:
	case LT_IPV6:
		cap_ip_input(p, d, caplen, len);
		break;
	case LT_NULL: case LT_LOOP:
		link_null(p, d, caplen, len);
		break;
	case LT_FDDI:
		link_fddi(p, d, caplen, len);
		break;
	default:
		p->st.link_errors++;
		break;
	}
}

struct cap_pipe *cap_pipe_new(const struct cap_config *cfg, cap_msg_fn fn,
			      void *user)
{
	struct cap_pipe *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	if (cfg)
		p->cfg = *cfg;
	p->cfg.filter = NULL;
	if (!p->cfg.frag_mem_max)
		p->cfg.frag_mem_max = CAP_DEF_FRAG_MEM;
	if (!p->cfg.frag_timeout_ms)
		p->cfg.frag_timeout_ms = CAP_DEF_FRAG_TIMEOUT_MS;
	if (!p->cfg.flows_max)
		p->cfg.flows_max = CAP_DEF_FLOWS;
	if (!p->cfg.flow_idle_ms)
		p->cfg.flow_idle_ms = CAP_DEF_FLOW_IDLE_MS;
	if (!p->cfg.record_keep)
		p->cfg.record_keep = CAP_DEF_RECORD_KEEP;
	if (!p->cfg.ooo_mem_max)
		p->cfg.ooo_mem_max = CAP_DEF_OOO_MEM;
	if (!p->cfg.tcp_mem_max)
		p->cfg.tcp_mem_max = CAP_DEF_TCP_MEM;
	p->fn = fn;
	p->user = user;
	p->now_ns = INT64_MIN;
	p->frag = cap_frag_new();
	p->tcp = cap_tcp_new(p->cfg.flows_max);
	if (!p->frag || !p->tcp) {
		cap_pipe_free(p);
		return NULL;
	}
	return p;
}

void cap_pipe_free(struct cap_pipe *p)
{
	if (!p)
		return;
	cap_frag_free(p->frag);
	cap_tcp_free(p->tcp);
	free(p);
}

void cap_pipe_flush(struct cap_pipe *p)
{
	cap_frag_expire(p, true);
	cap_tcp_expire(p, true);
}

const struct cap_stats *cap_pipe_stats(const struct cap_pipe *p)
{
	return &p->st;
}

const struct cap_handshake *cap_pipe_handshakes(const struct cap_pipe *p,
						uint64_t *dropped)
{
	if (dropped)
		*dropped = p->hs_dropped;
	return p->hs;
}
