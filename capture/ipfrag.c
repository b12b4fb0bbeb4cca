/*
 * ipfrag.c - IPv4 (RFC 791) and IPv6 (RFC 8200 section 4.5) fragment
 * reassembly in a bounded table.
 *
 * A train is keyed by (src, dst, id, proto) for IPv4 and (src, dst, id) for
 * IPv6.  Each train keeps two sorted, coalesced interval sets over the
 * payload: the WIRE extent of the fragments received (what was on the
 * wire) and the CAPTURED extent (bytes we actually hold).  The train is
 * complete when the last fragment (MF=0) fixed the total and the wire set
 * is the single interval [0, total).  It is delivered with caplen = the
 * captured prefix starting at 0, len = total, CAP_MSG_IPFRAG always and
 * CAP_MSG_TRUNCATED if caplen < len.
 *
 * Overlaps: any fragment whose wire extent meets already received data is
 * counted in ipfrag_overlaps (exact duplicates included).  FIRST-RECEIVED
 * DATA WINS: only bytes not captured before are copied.
 *
 * Bounds: payload offsets beyond 65535 are malformed (ip_errors).  Trains
 * expire frag_timeout_ms after their first fragment by the capture clock
 * (ipfrag_incomplete).  When the memory held (buffers + train structs)
 * exceeds frag_mem_max, the oldest trains are dropped: counted in
 * ipfrag_evicted AND ipfrag_incomplete (incomplete counts every lost
 * train, evicted says why).  A train needing more than FRAG_IV_MAX
 * disjoint pieces is dropped as incomplete.
 *
 * Memory: the table owns its trains, each train owns its buffer.  One
 * allocation per train (plus buffer growth), none per fragment.
 */
#include <stdlib.h>
#include <string.h>

#include "capture/capture_int.h"
#include "base/hash.h"

#define FRAG_PAYLOAD_MAX 65535u
#define FRAG_IV_MAX 64
#define FRAG_BUCKETS 1024u

struct frag_iv {
	uint32_t lo, hi;	/* [lo, hi) */
};

struct frag_ivset {
	uint32_t n;
	struct frag_iv v[FRAG_IV_MAX];
};

struct frag_train {
	struct frag_train *hnext;	/* hash chain */
	struct frag_train *older, *newer;	/* age list */
	struct cap_addr src, dst;
	uint32_t id;
	uint8_t proto;		/* v4: key; v6: from the offset-0 fragment */
	uint8_t ipver;
	bool have_last;
	uint32_t total;		/* payload length, once have_last */
	uint64_t first_frame;
	int64_t first_ts_ns;
	struct frag_ivset wire, cap;
	uint8_t *buf;		/* owned; buf_cap bytes */
	uint32_t buf_cap;
};

/* The table; owned by the pipe, owns every train. */
struct cap_frag_table {
	struct frag_train *bucket[FRAG_BUCKETS];
	struct frag_train *oldest, *newest;
	size_t mem;		/* structs + buffers */
};

struct cap_frag_table *cap_frag_new(void)
{
	return calloc(1, sizeof(struct cap_frag_table));
}

static uint32_t frag_hash(const struct cap_addr *s, const struct cap_addr *d,
			  uint32_t id)
{
	uint32_t h = id * 0x9e3779b1u;
	int i;

	for (i = 0; i < 16; i++)
		h = (h ^ s->a[i] ^ (uint32_t)d->a[i] << 8) * BASE_FNV32_PRIME;
	return (h ^ h >> 15) & (FRAG_BUCKETS - 1);
}

/* A train given up with fragments missing: counted, and the pipe's owner
 * told when it began. */
static void train_lost(struct cap_pipe *p, const struct frag_train *tr)
{
	p->st.ipfrag_incomplete++;
	if (p->cfg.frag_lost)
		p->cfg.frag_lost(p->cfg.frag_lost_user, tr->first_ts_ns);
}

static void train_unlink_free(struct cap_frag_table *t, struct frag_train *tr)
{
	struct frag_train **pp =
		&t->bucket[frag_hash(&tr->src, &tr->dst, tr->id)];

	while (*pp && *pp != tr)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = tr->hnext;
	if (tr->older)
		tr->older->newer = tr->newer;
	else
		t->oldest = tr->newer;
	if (tr->newer)
		tr->newer->older = tr->older;
	else
		t->newest = tr->older;
	t->mem -= sizeof(*tr) + tr->buf_cap;
	free(tr->buf);
	free(tr);
}

void cap_frag_free(struct cap_frag_table *t)
{
	if (!t)
		return;
	while (t->oldest)
		train_unlink_free(t, t->oldest);
	free(t);
}

/* Does [lo, hi) meet any interval of s? */
static bool ivset_meets(const struct frag_ivset *s, uint32_t lo, uint32_t hi)
{
	uint32_t i;

	for (i = 0; i < s->n; i++)
		if (s->v[i].lo < hi && lo < s->v[i].hi)
			return true;
	return false;
}

/* Add [lo, hi) (lo < hi), merging touching intervals.  False if the set
 * would need more than FRAG_IV_MAX intervals. */
static bool ivset_add(struct frag_ivset *s, uint32_t lo, uint32_t hi)
{
	uint32_t i = 0, j;

	while (i < s->n && s->v[i].hi < lo)
		i++;
	/* v[i] is the first interval that may touch [lo, hi) */
	j = i;
	while (j < s->n && s->v[j].lo <= hi) {
		if (s->v[j].lo < lo)
			lo = s->v[j].lo;
		if (s->v[j].hi > hi)
			hi = s->v[j].hi;
		j++;
	}
	if (j == i) {		/* no merge: insert at i */
		if (s->n == FRAG_IV_MAX)
			return false;
		memmove(&s->v[i + 1], &s->v[i], (s->n - i) * sizeof(s->v[0]));
		s->n++;
	} else if (j > i + 1) {	/* v[i..j-1] become one */
		memmove(&s->v[i + 1], &s->v[j], (s->n - j) * sizeof(s->v[0]));
		s->n -= j - i - 1;
	}
	s->v[i].lo = lo;
	s->v[i].hi = hi;
	return true;
}

/* Copy the bytes of [lo, hi) not yet captured (first data wins). */
static void copy_new_bytes(struct frag_train *tr, const uint8_t *d,
			   uint32_t lo, uint32_t hi)
{
	uint32_t pos = lo, i;

	for (i = 0; i < tr->cap.n && pos < hi; i++) {
		const struct frag_iv *v = &tr->cap.v[i];

		if (v->hi <= pos)
			continue;
		if (v->lo > pos) {
			uint32_t end = v->lo < hi ? v->lo : hi;

			memcpy(tr->buf + pos, d + (pos - lo), end - pos);
		}
		pos = v->hi;
	}
	if (pos < hi)
		memcpy(tr->buf + pos, d + (pos - lo), hi - pos);
}

static bool train_grow(struct cap_frag_table *t, struct frag_train *tr,
		       uint32_t need)
{
	uint32_t ncap = tr->buf_cap ? tr->buf_cap : 2048;
	uint8_t *nb;

	if (need <= tr->buf_cap)
		return true;
	while (ncap < need)
		ncap *= 2;
	if (ncap > FRAG_PAYLOAD_MAX)
		ncap = FRAG_PAYLOAD_MAX;
	nb = realloc(tr->buf, ncap);
	if (!nb)
		return false;
	t->mem += ncap - tr->buf_cap;
	tr->buf = nb;
	tr->buf_cap = ncap;
	return true;
}

static void train_deliver(struct cap_pipe *p, struct frag_train *tr)
{
	struct cap_l3 l3;

	memset(&l3, 0, sizeof(l3));
	l3.src = tr->src;
	l3.dst = tr->dst;
	l3.proto = tr->proto;
	l3.flags = CAP_MSG_IPFRAG;
	l3.data = tr->buf;
	l3.len = tr->total;
	if (tr->cap.n > 0 && tr->cap.v[0].lo == 0)
		l3.caplen = tr->cap.v[0].hi < tr->total ? tr->cap.v[0].hi
							 : tr->total;
	if (l3.caplen < l3.len)
		l3.flags |= CAP_MSG_TRUNCATED;
	l3.first_frame = tr->first_frame;
	l3.first_ts_ns = tr->first_ts_ns;
	p->st.ipfrag_reassembled++;
	cap_l4_input(p, &l3);
}

static struct frag_train *train_find(struct cap_pipe *p,
				     const struct cap_frag_in *f, int ipver)
{
	struct cap_frag_table *t = p->frag;
	uint32_t h = frag_hash(&f->src, &f->dst, f->id);
	struct frag_train *tr;

	for (tr = t->bucket[h]; tr; tr = tr->hnext)
		if (tr->id == f->id && tr->ipver == ipver &&
		    (ipver == 6 || tr->proto == f->proto) &&
		    cap_addr_eq(&tr->src, &f->src) &&
		    cap_addr_eq(&tr->dst, &f->dst))
			return tr;
	tr = calloc(1, sizeof(*tr));
	if (!tr)
		return NULL;
	tr->src = f->src;
	tr->dst = f->dst;
	tr->id = f->id;
	tr->proto = f->proto;
	tr->ipver = (uint8_t)ipver;
	tr->first_frame = p->frame;
	tr->first_ts_ns = p->ts_ns;
	tr->hnext = t->bucket[h];
	t->bucket[h] = tr;
	tr->older = t->newest;
	if (t->newest)
		t->newest->newer = tr;
	else
		t->oldest = tr;
	t->newest = tr;
	t->mem += sizeof(*tr);
	return tr;
}

void cap_frag_input(struct cap_pipe *p, const struct cap_frag_in *f,
		    int ipver)
{
	struct cap_frag_table *t = p->frag;
	struct frag_train *tr;
	uint32_t wend = f->off + f->len, cend = f->off + f->caplen;
	bool evicted_self = false;

	p->st.ipfrag_packets++;
	if (f->len > FRAG_PAYLOAD_MAX || wend > FRAG_PAYLOAD_MAX ||
	    (f->len == 0 && f->more)) {
		p->st.ip_errors++;
		return;
	}
	tr = train_find(p, f, ipver);
	if (!tr)
		return;
	if ((tr->have_last && wend > tr->total) ||
	    (!f->more && tr->wire.n > 0 &&
	     tr->wire.v[tr->wire.n - 1].hi > wend) ||
	    (!f->more && tr->have_last && wend != tr->total)) {
		p->st.ip_errors++;	/* lies about the datagram's end */
		return;
	}
	if (f->len > 0 && ivset_meets(&tr->wire, f->off, wend))
		p->st.ipfrag_overlaps++;
	if (f->caplen > 0 && !train_grow(t, tr, cend))
		return;
	if (f->len > 0 && !ivset_add(&tr->wire, f->off, wend)) {
		train_lost(p, tr);
		train_unlink_free(t, tr);
		return;
	}
	if (f->caplen > 0) {
		copy_new_bytes(tr, f->data, f->off, cend);
		if (!ivset_add(&tr->cap, f->off, cend)) {
			train_lost(p, tr);
			train_unlink_free(t, tr);
			return;
		}
	}
	if (f->off == 0)
		tr->proto = f->proto;
	if (!f->more) {
		tr->have_last = true;
		tr->total = wend;
	}
	/* memory budget: oldest first, possibly this train */
	while (t->mem > p->cfg.frag_mem_max && t->oldest) {
		if (t->oldest == tr)
			evicted_self = true;
		p->st.ipfrag_evicted++;
		train_lost(p, t->oldest);
		train_unlink_free(t, t->oldest);
		if (evicted_self)
			return;
	}
	if (tr->have_last &&
	    (tr->total == 0 ||
	     (tr->wire.n == 1 && tr->wire.v[0].lo == 0 &&
	      tr->wire.v[0].hi == tr->total))) {
		/* unlink from the table, deliver, then free: the callback
		 * cannot reach the table */
		train_deliver(p, tr);
		train_unlink_free(t, tr);
	}
}

void cap_frag_expire(struct cap_pipe *p, bool all)
{
	struct cap_frag_table *t = p->frag;
	uint64_t limit = (uint64_t)p->cfg.frag_timeout_ms * 1000000;

	while (t->oldest &&
	       (all || cap_aged(t->oldest->first_ts_ns, p->now_ns, limit))) {
		train_lost(p, t->oldest);
		train_unlink_free(t, t->oldest);
	}
}
