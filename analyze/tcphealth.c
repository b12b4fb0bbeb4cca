/*
 * tcphealth.c - TCP trouble per client/server pair: segments sent again
 * (tcp_loss), connections reset and calls re-sent on a new one
 * (tcp_reset), messages held at a fixed quantum (tcp_stall: 40 ms delayed
 * ACK against Nagle, 200 ms minimum retransmission timeout).  The counters
 * come from capture/ (struct cap_handshake segs, resent, zero_win, rsts)
 * and from the ops (first and last segment of each message); the rules
 * are in doc/report.md.
 */
#include "analyze/find_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define MS 1000000ll
void an_tcp_stall_add(struct an_find *f, const struct an_op *op)
{
	struct vpair *p;

	if (op->transport != CAP_TCP || !(op->flags & AN_OP_ANSWERED) ||
	    (op->flags & AN_OP_CALL_NOT_SEEN) ||
	    (p = an_vantage_pair(f, &op->client, &op->server)) == NULL)
		return;
	p->tcp_ops++;
	if (op->lat_last_ns >= 36 * MS && op->lat_last_ns <= 44 * MS)
		p->lat_40++;
}

/* Replies of pair p sit at 40 ms: most of its TCP ops, stall_min at least. */
static bool lat_stalled(const struct an_find *f, const struct vpair *p)
{
	return p->lat_40 >= f->cfg.stall_min && p->lat_40 * 2 >= p->tcp_ops;
}

bool an_tcp_stall_explains(const struct an_find *f,
			   const struct cap_addr *server)
{
	uint32_t k;

	for (k = an_bit_next(f->vp_bits, AN_FIND_PAIRS, 0); k < AN_FIND_PAIRS;
	     k = an_bit_next(f->vp_bits, AN_FIND_PAIRS, k + 1))
		if (f->vp[k].used && cap_addr_eq(&f->vp[k].server, server) &&
		    lat_stalled(f, &f->vp[k]))
			return true;
	return false;
}

static struct an_finding *pair_emit(struct an_find *f, const struct vpair *p,
				    enum an_find_kind k)
{
	struct an_finding *o = an_find_emit(f, k);

	if (o == NULL)
		return NULL;
	o->have_client = o->have_server = true;
	o->client = p->client;
	o->server = p->server;
	return o;
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0;
}

/* Records of pair p spread over 40 (q 0) or 200 ms, both directions. */
static uint64_t spread_n(const struct vpair *p, int q)
{
	return q == 0 ? p->stalls40[0] + p->stalls40[1] :
			p->stalls200[0] + p->stalls200[1];
}

static void find_stall(struct an_find *f, const struct vpair *p)
{
	uint64_t spread = spread_n(p, 0) + spread_n(p, 1);
	double held = (double)(p->stall_seg_ns[0] + p->stall_seg_ns[1]);
	struct an_finding *o;
	char a[64], b[64];

	if (spread < f->cfg.stall_min && !lat_stalled(f, p))
		return;
	if ((o = pair_emit(f, p, AN_F_TCP_STALL)) == NULL)
		return;
	o->count = spread + (lat_stalled(f, p) ? p->lat_40 : 0);
	o->cost_ns = held + (lat_stalled(f, p) ?
			     (double)p->lat_40 * 40.0 * MS : 0);
	snprintf(o->evidence, sizeof(o->evidence),
		 "%s -> %s: %" PRIu64 " messages whose last short piece "
		 "waited 30 ms or more for an ACK (delayed ACK against Nagle) "
		 "and %" PRIu64 " held 190-230 ms for a segment sent again "
		 "(minimum RTO), %.1f ms in all from first segment to last; %"
		 PRIu64 " of %" PRIu64 " TCP ops answered in 36-44 ms (from "
		 "the call's last segment)", an_find_astr(&p->client, a),
		 an_find_astr(&p->server, b), spread_n(p, 0), spread_n(p, 1),
		 held / 1e6, p->lat_40, p->tcp_ops);
}

/* Segments of direction d lost, at least: sent again and seen twice
 * here, or signalled by the receiver's duplicate ACKs (a loss before the
 * capture point shows only so; at the receiving end a lost last segment
 * shows not at all: the evidence says "at least"). */
static uint64_t lost(const struct vpair *p, int d)
{
	return p->resent[d] > p->dupack_loss[d] ? p->resent[d] :
	       p->dupack_loss[d];
}

static void find_loss(struct an_find *f, const struct vpair *p,
		      enum an_vantage vp)
{
	uint64_t l0 = lost(p, 0), l1 = lost(p, 1);
	double s0 = pct(l0, p->segs[0]), s1 = pct(l1, p->segs[1]);
	struct an_finding *o;
	char a[64], b[64];

	if (l0 + l1 < 10 || (s0 < 100 * f->cfg.tcp_loss_share &&
			     s1 < 100 * f->cfg.tcp_loss_share))
		return;
	if ((o = pair_emit(f, p, AN_F_TCP_LOSS)) == NULL)
		return;
	o->count = l0 + l1;
	o->cost_ops = l0 + l1;
	snprintf(o->evidence, sizeof(o->evidence),
		 "%s -> %s: segments lost %s%.1f%% client -> server (%" PRIu64
		 " of %" PRIu64 "), %s%.1f%% server -> client (%" PRIu64 " of %"
		 PRIu64 "); seen from %s: sent again and seen twice %" PRIu64
		 " and %" PRIu64 ", signalled by 3 duplicate ACKs %" PRIu64
		 " and %" PRIu64 "; %" PRIu64 " zero windows advertised",
		 an_find_astr(&p->client, a), an_find_astr(&p->server, b),
		 vp == AN_VP_SERVER && l0 ? "at least " : "", s0, l0,
		 p->segs[0], vp == AN_VP_CLIENT && l1 ? "at least " : "", s1,
		 l1, p->segs[1], an_vantage_name(vp),
		 p->resent[0], p->resent[1], p->dupack_loss[0],
		 p->dupack_loss[1], p->zero_win[0] + p->zero_win[1]);
}

/* Connections cut while in use (capture/: an RST with a call outstanding
 * or a message partly through; a close by RST at rest is no trouble), or
 * calls sent again on a new connection. */
static void find_reset(struct an_find *f, const struct vpair *p)
{
	uint64_t rst = p->rsts[0] + p->rsts[1];
	uint64_t again = p->reconnect;
	struct an_finding *o;
	char a[64], b[64];

	if (rst == 0 && again == 0)
		return;
	if ((o = pair_emit(f, p, AN_F_TCP_RESET)) == NULL)
		return;
	o->count = rst;
	o->cost_ops = again;
	snprintf(o->evidence, sizeof(o->evidence),
		 "%s -> %s: %" PRIu64 " connections reset in use, a call "
		 "outstanding or a message cut (%" PRIu64 " by the client, %"
		 PRIu64 " by the server), %u connections opened (handshakes "
		 "seen); %" PRIu64 " calls sent again (same XID) on a new "
		 "connection", an_find_astr(&p->client, a),
		 an_find_astr(&p->server, b), rst, p->rsts[0], p->rsts[1],
		 p->hs_n, again);
}

void an_tcp_health_findings(struct an_find *f)
{
	uint32_t k;

	for (k = an_bit_next(f->vp_bits, AN_FIND_PAIRS, 0); k < AN_FIND_PAIRS;
	     k = an_bit_next(f->vp_bits, AN_FIND_PAIRS, k + 1)) {
		const struct vpair *p = &f->vp[k];
		struct an_vantage_info v;

		if (!p->used)
			continue;
		an_find_vantage(f, &p->client, &p->server, &v);
		find_reset(f, p);
		find_loss(f, p, v.vp);
		find_stall(f, p);
	}
}

bool an_find_tcp_health(const struct an_find *f, const struct cap_addr *client,
			const struct cap_addr *server, struct an_tcp_health *h)
{
	uint32_t k, d;

	memset(h, 0, sizeof(*h));
	for (k = an_bit_next(f->vp_bits, AN_FIND_PAIRS, 0); k < AN_FIND_PAIRS;
	     k = an_bit_next(f->vp_bits, AN_FIND_PAIRS, k + 1)) {
		const struct vpair *p = &f->vp[k];

		if (!p->used || (client && !cap_addr_eq(&p->client, client)) ||
		    (server && !cap_addr_eq(&p->server, server)))
			continue;
		for (d = 0; d < 2; d++) {
			h->segs[d] += p->segs[d];
			h->resent[d] += p->resent[d];
			h->dupack_loss[d] += p->dupack_loss[d];
			h->zero_win[d] += p->zero_win[d];
			h->rsts[d] += p->rsts[d];
			h->stalls_dir[d] += p->stalls40[d] + p->stalls200[d];
		}
		h->connections += p->hs_n;
		h->resent_calls += p->reconnect;
		h->stalls += spread_n(p, 0) + spread_n(p, 1) +
			     (lat_stalled(f, p) ? p->lat_40 : 0);
		h->stall_ns += (double)(p->stall_seg_ns[0] +
					p->stall_seg_ns[1]);
		h->tcp_ops += p->tcp_ops;
	}
	return h->segs[0] + h->segs[1] + h->tcp_ops > 0;
}
