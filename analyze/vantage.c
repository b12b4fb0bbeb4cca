/*
 * vantage.c - where a capture was taken, per client/server pair, and why
 * each retransmitted op was retransmitted, judged from that point (issue
 * 16).  Rules in find.h (enum an_vantage, an_retrans_cause).
 *
 * Per pair: the TCP handshakes (capture/, cap_pipe_handshakes) and the
 * retransmitted ops by the fact that decides their cause (enum rx_fact).
 * The cause of a fact may depend on the pair's vantage point, which is
 * known only at the end: so the facts are counted and the causes derived
 * from them (an_vantage_causes).  Per server: the latency of each
 * procedure, in quarter-octave buckets, for the "client timeout shorter
 * than the server's usual latency" rule.
 */
#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/find_int.h"
#include "base/hash.h"

#define US_ROWS 40		/* NFSv3 procedures 0..21, NFSv2 0..17 */
#define US_BUCKETS 128		/* quarter octaves of microseconds */
#define US_MIN 5		/* samples before a median is trusted */
#define HS_FLOOR_NS 22000	/* the larger handshake gap: at least this */
#define HS_RATIO_NUM 3		/* and 3/2 x the other (the round trip */
#define HS_RATIO_DEN 2		/* against one host's own response) */
#define HS_BETWEEN_NS 100000	/* both gaps this long: in between */
#define ACK_MIN_N 8		/* ACK timings each way before they count */
#define ACK_RATIO 2		/* the far host's smallest: 2 x the near one's */

struct usual {
	uint32_t n[US_ROWS];
	uint32_t b[US_ROWS][US_BUCKETS];
};

static const char *const vp_names[AN_VP_N] = {
	"unknown", "client side", "server side", "in between"
};

const char *an_vantage_name(enum an_vantage v)
{
	return (unsigned)v < AN_VP_N ? vp_names[v] : "?";
}

static int usual_row(const struct an_op *op)
{
	if (op->prog != PROG_NFS)
		return -1;
	if (op->vers == 3 && op->proc < 22)
		return (int)op->proc;
	if (op->vers == 2 && op->proc < 18)
		return 22 + (int)op->proc;
	return -1;
}

static uint32_t us_bucket(int64_t ns)
{
	uint64_t us = ns > 0 ? (uint64_t)ns / 1000 : 0;
	uint32_t b;

	if (us < 4)
		return (uint32_t)us;
	b = 63u - (uint32_t)__builtin_clzll(us);	/* us >= 4: b >= 2 */
	b = b * 4 + (uint32_t)((us >> (b - 2)) & 3);
	return b < US_BUCKETS ? b : US_BUCKETS - 1;
}

static int64_t us_bucket_ns(uint32_t k)
{
	uint32_t b = k / 4, q = k % 4;

	if (k < 4)
		return (int64_t)k * 1000;
	return (int64_t)((uint64_t)(4 + q) << (b - 2)) * 1000;
}

/* The server's median latency for op's procedure so far (the lower end of
 * its bucket), or -1 with fewer than US_MIN samples. */
static int64_t usual_ns(const struct subj *s, const struct an_op *op)
{
	int r = usual_row(op);
	uint64_t seen = 0;
	uint32_t k;

	if (s == NULL || s->usual == NULL || r < 0 || s->usual->n[r] < US_MIN)
		return -1;
	for (k = 0; k < US_BUCKETS; k++) {
		seen += s->usual->b[r][k];
		if (seen * 2 >= s->usual->n[r])
			return us_bucket_ns(k);
	}
	return -1;
}

void an_usual_add(struct subj *s, const struct an_op *op)
{
	int r = usual_row(op);

	if (r < 0 || op->lat_first_ns < 0)
		return;
	/* a resend answered at once, or a reply before the resend, says
	 * nothing of the server's time */
	if (op->retrans && ((op->flags & AN_OP_LATE_RETRANS) ||
			    (op->dup_replies == 0 &&
			     op->lat_last_ns * 4 < op->retrans_ivl_max_ns)))
		return;
	if (s->usual == NULL && (s->usual = calloc(1, sizeof(*s->usual))) == NULL)
		return;
	s->usual->n[r]++;
	s->usual->b[r][us_bucket(op->lat_first_ns)]++;
}

void an_usual_free(struct subj *s)
{
	free(s->usual);
	s->usual = NULL;
}

static uint64_t pair_hash(const struct cap_addr *c, const struct cap_addr *s)
{
	uint64_t h = 1469598103934665603ull;
	size_t i;

	for (i = 0; i < 16; i++)
		h = (h ^ c->a[i]) * BASE_FNV64_PRIME;
	for (i = 0; i < 16; i++)
		h = (h ^ s->a[i]) * BASE_FNV64_PRIME;
	return h;
}

static struct vpair *vpair_get(struct an_find *f, const struct cap_addr *c,
			       const struct cap_addr *s, bool make)
{
	uint64_t h = pair_hash(c, s);
	uint32_t k;

	for (k = 0; k < AN_FIND_PAIRS; k++) {
		struct vpair *p = &f->vp[(h + k) % AN_FIND_PAIRS];

		if (p->used && cap_addr_eq(&p->client, c) &&
		    cap_addr_eq(&p->server, s))
			return p;
		if (!p->used) {
			if (!make)
				return NULL;
			p->used = true;
			an_bit_set(f->vp_bits, (uint32_t)((h + k) % AN_FIND_PAIRS));
			p->client = *c;
			p->server = *s;
			return p;
		}
	}
	if (make)
		f->vp_dropped++;
	return NULL;
}

struct vpair *an_vantage_pair(struct an_find *f, const struct cap_addr *c,
			      const struct cap_addr *s)
{
	return vpair_get(f, c, s, true);
}

/* The fact that decides a retransmitted op's cause; *short_to: the
 * client's first resend came sooner than the server's usual latency. */
static enum rx_fact op_fact(const struct an_op *op, int64_t usual,
			    bool *short_to)
{
	*short_to = usual >= 0 && op->retrans_ivl_first_ns > 0 &&
		    usual >= op->retrans_ivl_first_ns;
	if (!(op->flags & AN_OP_ANSWERED))
		return RX_F_NOREPLY;
	if (op->transport == CAP_TCP)
		return RX_F_TCP;
	if (op->flags & AN_OP_LATE_RETRANS)
		return RX_F_REPLY_FIRST;
	if (op->dup_replies > 0)
		return RX_F_DUP;
	if (op->lat_last_ns * 4 >= op->retrans_ivl_max_ns)
		return RX_F_LATE;
	return op->flags & AN_OP_IPFRAG ? RX_F_FRAG : RX_F_QUICK;
}

static enum an_rx_cause fact_cause(enum rx_fact x, bool short_to,
				   enum an_vantage v)
{
	enum an_rx_cause slow = short_to ? AN_RX_SHORT_TIMEOUT : AN_RX_SLOW;

	switch (x) {
	case RX_F_NOREPLY: return AN_RX_NOREPLY;
	case RX_F_TCP: return AN_RX_TCP;
	case RX_F_REPLY_FIRST: return AN_RX_LOST_REPLY;
	case RX_F_FRAG: return v == AN_VP_SERVER ? slow : AN_RX_FRAG;
	case RX_F_QUICK: return v == AN_VP_SERVER ? slow : AN_RX_LOST;
	default: return slow;
	}
}

static enum an_vantage by_handshake(const struct vpair *p)
{
	int64_t syn = p->hs_syn_min_ns, ack = p->hs_ack_min_ns;
	int64_t big = syn > ack ? syn : ack, small = syn > ack ? ack : syn;

	if (p->hs_n == 0 || big < HS_FLOOR_NS)
		return AN_VP_UNKNOWN;
	if (small * HS_RATIO_NUM <= big * HS_RATIO_DEN)
		return syn > ack ? AN_VP_CLIENT : AN_VP_SERVER;
	return small >= HS_BETWEEN_NS ? AN_VP_BETWEEN : AN_VP_UNKNOWN;
}

static bool acks_delayed(const struct vpair *p);

/* The host that acknowledges data sooner is the capture's own. */
static enum an_vantage by_acks(const struct vpair *p)
{
	int64_t s = p->srv_min_ns, c = p->cli_min_ns;
	int64_t big = s > c ? s : c, small = s > c ? c : s;

	if (p->srv_n < ACK_MIN_N || p->cli_n < ACK_MIN_N || big < HS_FLOOR_NS ||
	    small * ACK_RATIO > big || acks_delayed(p))
		return AN_VP_UNKNOWN;
	return s < c ? AN_VP_SERVER : AN_VP_CLIENT;
}

/* The larger smallest ACK wait sits at a delayed-ACK quantum (35-45 ms,
 * or 190-210 ms) and a handshake measured the path as shorter: that host
 * held its ACKs (delayed ACK), its distance is not a round trip. */
static bool acks_delayed(const struct vpair *p)
{
	int64_t big = p->srv_min_ns > p->cli_min_ns ? p->srv_min_ns :
		      p->cli_min_ns;
	int64_t hs = p->hs_syn_min_ns > p->hs_ack_min_ns ? p->hs_syn_min_ns :
		     p->hs_ack_min_ns;
	bool q = (big >= 35000000 && big <= 45000000) ||
		 (big >= 190000000 && big <= 210000000);

	return q && (p->hs_n == 0 || hs * 2 < big);
}

static enum an_vantage vpair_own(const struct vpair *p)
{
	enum an_vantage v = by_acks(p);

	if (v != AN_VP_UNKNOWN)
		return v;
	v = by_handshake(p);
	uint64_t first = p->fact[RX_F_REPLY_FIRST][0] +
			 p->fact[RX_F_REPLY_FIRST][1];
	uint64_t quick = p->fact[RX_F_QUICK][0] + p->fact[RX_F_QUICK][1];

	if (v != AN_VP_UNKNOWN)
		return v;
	if (first && quick)
		return AN_VP_BETWEEN;
	return first ? AN_VP_SERVER : quick ? AN_VP_CLIENT : AN_VP_UNKNOWN;
}

/* How strongly pair p's evidence says its vantage point: its samples. */
static uint64_t strength(const struct vpair *p)
{
	uint64_t u = p->fact[RX_F_REPLY_FIRST][0] + p->fact[RX_F_REPLY_FIRST][1] +
		     p->fact[RX_F_QUICK][0] + p->fact[RX_F_QUICK][1];

	if (by_acks(p) != AN_VP_UNKNOWN)
		return (p->srv_n < p->cli_n ? p->srv_n : p->cli_n) + p->hs_n;
	return by_handshake(p) != AN_VP_UNKNOWN ? p->hs_n : u;
}

/*
 * One capture point: the pairs that share p's client or its server were
 * seen from the same place, so they must agree (opposite answers for one
 * host need two capture points: merged files).  The strongest evidence
 * among the decided ones wins when it is at least twice the strongest
 * that disagrees with it; else unknown.  *why: NULL, or why p's own
 * answer was overruled.
 */
static enum an_vantage vpair_resolve(const struct an_find *f,
				     const struct vpair *p, const char **why);

static enum an_vantage vpair_vantage_why(const struct an_find *f,
					 const struct vpair *p,
					 const char **why)
{
	struct vpair *w = (struct vpair *)p;	/* the kept answer only */

	if (p->vp_kept) {
		*why = p->vp_why;
		return (enum an_vantage)p->vp_final;
	}
	w->vp_final = (uint8_t)vpair_resolve(f, p, &w->vp_why);
	w->vp_kept = f->finished;
	*why = w->vp_why;
	return (enum an_vantage)w->vp_final;
}

static enum an_vantage vpair_resolve(const struct an_find *f,
				     const struct vpair *p, const char **why)
{
	enum an_vantage own = vpair_own(p), best = own;
	uint64_t sbest = own == AN_VP_UNKNOWN ? 0 : strength(p), sother = 0;
	uint32_t k;

	*why = NULL;
	for (k = an_bit_next(f->vp_bits, AN_FIND_PAIRS, 0); k < AN_FIND_PAIRS;
	     k = an_bit_next(f->vp_bits, AN_FIND_PAIRS, k + 1)) {
		const struct vpair *q = &f->vp[k];
		enum an_vantage v;
		uint64_t sq;

		if (q == p || !q->used || (!cap_addr_eq(&q->client, &p->client) &&
		    !cap_addr_eq(&q->server, &p->server)))
			continue;
		if ((v = vpair_own(q)) == AN_VP_UNKNOWN)
			continue;
		if (cap_addr_eq(&q->server, &p->server) &&
		    !cap_addr_eq(&q->client, &p->client) &&
		    v != AN_VP_SERVER && best != AN_VP_SERVER)
			continue;	/* two clients of one server: both
					   client side only at a mirror */
		sq = strength(q);
		if (v == best) {
			if (sq > sbest)
				sbest = sq;
			continue;
		}
		if (sq > sbest) {
			if (sbest > sother)
				sother = sbest;
			best = v;
			sbest = sq;
		} else if (sq > sother) {
			sother = sq;
		}
	}
	if (sother == 0 || best == AN_VP_UNKNOWN)
		return best;
	if (sbest >= 2 * sother) {
		if (best != own)
			*why = "the stronger evidence of the capture's other "
			       "pairs of this host (one capture point)";
		return best;
	}
	*why = "pairs of this host disagree and neither evidence is twice "
	       "the other (one capture point; merged files?)";
	return AN_VP_UNKNOWN;
}

static enum an_vantage vpair_vantage_of(const struct an_find *f,
					const struct vpair *p)
{
	const char *why;

	return vpair_vantage_why(f, p, &why);
}

const char *const an_rx_cause_keys[AN_RX_NCAUSES] = {
	[AN_RX_NOREPLY] = "never_answered",
	[AN_RX_SLOW] = "slow_server",
	[AN_RX_LOST] = "lost_call_or_reply",
	[AN_RX_FRAG] = "lost_ip_fragments",
	[AN_RX_TCP] = "tcp_reconnect",
	[AN_RX_LOST_REPLY] = "lost_reply",
	[AN_RX_SHORT_TIMEOUT] = "client_timeout_under_usual_latency",
};

const char *const an_rx_cause_names[AN_RX_NCAUSES] = {
	[AN_RX_NOREPLY] = "never answered",
	[AN_RX_SLOW] = "slow server",
	[AN_RX_LOST] = "lost call or reply",
	[AN_RX_FRAG] = "lost IP fragments",
	[AN_RX_TCP] = "TCP reconnect",
	[AN_RX_LOST_REPLY] = "lost reply",
	[AN_RX_SHORT_TIMEOUT] = "client timeout under the server's usual "
				"latency",
};

enum an_rx_cause an_retrans_cause(const struct an_find *f,
				  const struct an_op *op)
{
	struct an_find *w = (struct an_find *)f;	/* lookups only */
	const struct vpair *p = f ? vpair_get(w, &op->client, &op->server,
					      false) : NULL;
	const struct subj *s = f ? an_find_subj(w, &op->server, true, false)
			       : NULL;
	bool short_to;
	enum rx_fact x = op_fact(op, usual_ns(s, op), &short_to);

	return fact_cause(x, short_to, p ? vpair_vantage_of(f, p) :
			  AN_VP_UNKNOWN);
}

/* An rx key: the pair's slot in f->vp, the fact and short_to. */
#define RX_KEYS_PER_PAIR (2 * RX_F_N)

int32_t an_vantage_retrans(struct an_find *f, const struct an_op *op)
{
	struct vpair *p = vpair_get(f, &op->client, &op->server, true);
	const struct subj *s = an_find_subj(f, &op->server, true, false);
	bool short_to;
	enum rx_fact x = op_fact(op, usual_ns(s, op), &short_to);

	if (p == NULL)
		return -1;
	p->fact[x][short_to]++;
	if (an_op_reconnect(op))
		p->reconnect++;
	return (int32_t)(p - f->vp) * RX_KEYS_PER_PAIR + 2 * (int32_t)x +
	       short_to;
}

enum an_rx_cause an_find_rx_cause(const struct an_find *f, int32_t rx_key)
{
	const struct vpair *p;
	int32_t k = rx_key % RX_KEYS_PER_PAIR;

	assert(rx_key >= 0 && rx_key < AN_FIND_PAIRS * RX_KEYS_PER_PAIR);
	p = &f->vp[rx_key / RX_KEYS_PER_PAIR];
	assert(p->used && p->fact[k / 2][k % 2] > 0);
	return fact_cause((enum rx_fact)(k / 2), k % 2, vpair_vantage_of(f, p));
}

void an_find_handshakes(struct an_find *f, const struct cap_handshake *hs,
			size_t n)
{
	size_t k;

	for (k = 0; k < n; k++) {
		struct vpair *p;

		if (!cap_handshake_used(&hs[k]) ||
		    (p = vpair_get(f, &hs[k].client, &hs[k].server, true)) == NULL)
			continue;
		p->srv_n = hs[k].srv_n;
		p->cli_n = hs[k].cli_n;
		p->srv_min_ns = hs[k].srv_min_ns;
		p->cli_min_ns = hs[k].cli_min_ns;
		p->hs_n = hs[k].n;
		p->hs_syn_min_ns = hs[k].syn_min_ns;
		p->hs_ack_min_ns = hs[k].ack_min_ns;
		p->hs_syn_sum_ns = hs[k].syn_sum_ns;
		p->hs_ack_sum_ns = hs[k].ack_sum_ns;
		memcpy(p->segs, hs[k].segs, sizeof(p->segs));
		memcpy(p->resent, hs[k].resent, sizeof(p->resent));
		memcpy(p->dupack_loss, hs[k].dupack_loss,
		       sizeof(p->dupack_loss));
		memcpy(p->zero_win, hs[k].zero_win, sizeof(p->zero_win));
		memcpy(p->rsts, hs[k].rsts, sizeof(p->rsts));
		memcpy(p->stalls40, hs[k].stalls40, sizeof(p->stalls40));
		memcpy(p->stalls200, hs[k].stalls200, sizeof(p->stalls200));
		memcpy(p->stall_seg_ns, hs[k].stall_ns, sizeof(p->stall_seg_ns));
	}
}

size_t an_find_handshake_list(const struct an_find *f,
			      struct cap_handshake *out, size_t max)
{
	size_t n = 0;
	uint32_t k;

	for (k = an_bit_next(f->vp_bits, AN_FIND_PAIRS, 0);
	     k < AN_FIND_PAIRS && n < max;
	     k = an_bit_next(f->vp_bits, AN_FIND_PAIRS, k + 1)) {
		const struct vpair *p = &f->vp[k];

		memset(&out[n], 0, sizeof(out[n]));
		memcpy(out[n].segs, p->segs, sizeof(p->segs));
		memcpy(out[n].resent, p->resent, sizeof(p->resent));
		memcpy(out[n].dupack_loss, p->dupack_loss,
		       sizeof(p->dupack_loss));
		memcpy(out[n].zero_win, p->zero_win, sizeof(p->zero_win));
		memcpy(out[n].rsts, p->rsts, sizeof(p->rsts));
		memcpy(out[n].stalls40, p->stalls40, sizeof(p->stalls40));
		memcpy(out[n].stalls200, p->stalls200, sizeof(p->stalls200));
		memcpy(out[n].stall_ns, p->stall_seg_ns, sizeof(p->stall_seg_ns));
		out[n].n = p->hs_n;
		out[n].srv_n = p->srv_n;
		out[n].cli_n = p->cli_n;
		if (!p->used || !cap_handshake_used(&out[n]))
			continue;
		out[n].srv_n = p->srv_n;
		out[n].cli_n = p->cli_n;
		out[n].srv_min_ns = p->srv_min_ns;
		out[n].cli_min_ns = p->cli_min_ns;
		out[n].client = p->client;
		out[n].server = p->server;
		out[n].n = p->hs_n;
		out[n].syn_min_ns = p->hs_syn_min_ns;
		out[n].ack_min_ns = p->hs_ack_min_ns;
		out[n].syn_sum_ns = p->hs_syn_sum_ns;
		out[n].ack_sum_ns = p->hs_ack_sum_ns;
		n++;
	}
	return n;
}

bool an_find_vantage(const struct an_find *f, const struct cap_addr *client,
		     const struct cap_addr *server, struct an_vantage_info *out)
{
	const struct vpair *p = vpair_get((struct an_find *)f, client, server,
					  false);
	uint32_t x, c;

	memset(out, 0, sizeof(*out));
	out->vp = AN_VP_UNKNOWN;
	if (p == NULL)
		return false;
	out->own = vpair_own(p);
	out->vp = vpair_vantage_why(f, p, &out->why);
	out->tcp = p->hs_n || p->srv_n || p->cli_n || p->segs[0] ||
		   p->segs[1] || p->fact[RX_F_TCP][0] || p->fact[RX_F_TCP][1];
	out->by_acks = by_acks(p) != AN_VP_UNKNOWN;
	out->by_handshake = !out->by_acks &&
			    by_handshake(p) != AN_VP_UNKNOWN;
	out->srv_acks = p->srv_n;
	out->cli_acks = p->cli_n;
	out->srv_ack_min_ns = p->srv_min_ns;
	out->cli_ack_min_ns = p->cli_min_ns;
	out->handshakes = p->hs_n;
	out->syn_min_ns = p->hs_syn_min_ns;
	out->ack_min_ns = p->hs_ack_min_ns;
	out->syn_avg_ns = p->hs_n ? p->hs_syn_sum_ns / p->hs_n : 0;
	out->ack_avg_ns = p->hs_n ? p->hs_ack_sum_ns / p->hs_n : 0;
	for (x = 0; x < RX_F_N; x++)
		for (c = 0; c < 2; c++) {
			out->cause[fact_cause((enum rx_fact)x, c, out->vp)] +=
				p->fact[x][c];
			out->fact[x] += p->fact[x][c];
		}
	out->reply_first = out->fact[RX_F_REPLY_FIRST];
	out->quick = out->fact[RX_F_QUICK];
	out->short_to = p->fact[RX_F_DUP][1] + p->fact[RX_F_LATE][1];
	for (x = 0; x < RX_F_N; x++)
		if (out->fact[x])
			return true;
	return out->vp != AN_VP_UNKNOWN;
}

/* "server side (12 replies seen before a resend of their call, 0 resends
 * answered at once with none before)" or the handshake's figures. */
size_t an_vantage_evidence(const struct an_vantage_info *v, char *b, size_t n)
{
	int w;

	if (v->by_acks)
		w = snprintf(b, n, "%s (TCP ACK timing: the server acknowledged "
			     "the client's data within %.3f ms at best (%u "
			     "times), the client the server's within %.3f ms "
			     "(%u))", an_vantage_name(v->vp),
			     (double)v->srv_ack_min_ns / 1e6, v->srv_acks,
			     (double)v->cli_ack_min_ns / 1e6, v->cli_acks);
	else if (v->by_handshake)
		w = snprintf(b, n, "%s (%u TCP handshake%s: SYN->SYN/ACK min "
			     "%.3f ms, SYN/ACK->ACK min %.3f ms)",
			     an_vantage_name(v->vp), v->handshakes,
			     v->handshakes == 1 ? "" : "s",
			     (double)v->syn_min_ns / 1e6,
			     (double)v->ack_min_ns / 1e6);
	else if (v->tcp && v->reply_first + v->quick == 0)
		w = snprintf(b, n, "%s (TCP: ACK timing %s: the server "
			     "acknowledged within %.3f ms at best (%u times), "
			     "the client within %.3f ms (%u); %u handshake%s%s)",
			     an_vantage_name(v->vp), v->srv_acks < 8 ||
			     v->cli_acks < 8 ? "too sparse" : "too close to "
			     "tell or a delayed-ACK quantum",
			     (double)v->srv_ack_min_ns / 1e6, v->srv_acks,
			     (double)v->cli_ack_min_ns / 1e6, v->cli_acks,
			     v->handshakes, v->handshakes == 1 ? "" : "s",
			     v->handshakes ? " too close to tell" : "");
	else
		w = snprintf(b, n, "%s (UDP: %" PRIu64 " replies seen before "
			     "a resend of their call, %" PRIu64 " resends "
			     "answered at once with none before%s)",
			     an_vantage_name(v->vp), v->reply_first, v->quick,
			     v->handshakes ? "; TCP handshakes too close to "
			     "tell" : "");
	if (w >= 0 && (size_t)w < n && v->why) {
		int e = snprintf(b + w, n - (size_t)w, "; this pair alone "
				 "says %s: %s", an_vantage_name(v->own),
				 v->why);

		w = e < 0 ? w : w + e;
	}
	if (w >= 0 && (size_t)w < n && v->vp == AN_VP_SERVER) {
		int e = snprintf(b + w, n - (size_t)w, "; calls lost before "
				 "they reached here are not seen");

		w = e < 0 ? w : w + e;
	}
	return w < 0 ? 0 : (size_t)w < n ? (size_t)w : n - 1;
}
