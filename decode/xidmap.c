/*
 * xidmap.c - pending RPC calls keyed by (client address, server address, xid).
 *
 * A chained hash over a node pool allocated once at creation (max nodes,
 * a power-of-two bucket array of at least max slots): no allocation per
 * call.  Nodes are also on an age list in order of their latest put (oldest
 * at the head).  A put with no free node reuses the oldest node, passing
 * over (to the young end) up to XID_PASS calls still awaiting their reply
 * within ttl: if it is older than ttl that is an expiry; if it was
 * answered, nothing is lost (it stayed only for duplicate replies);
 * otherwise an eviction (counted: its reply can no longer be decoded).  A get
 * of an entry older than ttl frees it and misses.
 *
 * Indices, not pointers, link nodes; NIL ends a list.  The hash chain
 * links and xids live apart from the nodes (struct xid_hot, 8 bytes each),
 * so walking a chain touches a node only when its xid matches.  A reply
 * does a get then an answered on the same key: the get's result is kept
 * (last_*) until the table next changes, so the second lookup is free.
 *
 * Identities (decode.h): a node's gen changes when it leaves the table
 * (xid_release) or its key is taken by a call of another program, so
 * (node, gen) names one identity once.  call.id is the identity the node's
 * call belongs to: its own, or the one a call from other ports lent it
 * (that one's node is kept at least as young: xid_refresh).
 */
#include "decode/decode_int.h"

#include <stdlib.h>
#include <string.h>

#define NIL UINT32_MAX
#define XID_PASS 32	/* calls awaiting replies passed over a put */

struct xid_hot {
	uint32_t xid;
	uint32_t hnext;		/* hash chain */
};

struct xid_node {
	struct dec_xid_key key;
	uint32_t aprev, anext;	/* age list; anext also links the free list */
	uint32_t gen;		/* never 0 */
	struct dec_xid_call call;
};

struct dec_xidmap {
	uint32_t max;
	uint32_t mask;		/* buckets - 1 */
	int64_t ttl_ns;
	uint32_t *buckets;
	struct xid_hot *hot;
	struct xid_node *nodes;
	bool last_ok;		/* last_key found at last_i, table unchanged */
	uint32_t last_i;
	struct dec_xid_key last_key;
	uint32_t free_head;
	uint32_t fresh;		/* nodes [fresh, max) never used: untouched
				   until needed, so a short capture does not
				   pay for the whole table */
	uint32_t old_head, new_tail;	/* age list */
	uint32_t next_i, next_b;	/* the next victim and its bucket (a
					   node's key does not change while it
					   is in the table), NIL: none */
	uint64_t evictions;
};

struct dec_xidmap *
dec_xidmap_new(uint32_t max, int64_t ttl_ns)
{
	struct dec_xidmap *m;
	uint32_t nb = 16, i;

	if (max == 0)
		max = 1;
	if (max > (1u << 30))
		max = 1u << 30;
	while (nb < max)
		nb <<= 1;
	m = calloc(1, sizeof(*m));
	if (m == NULL)
		return NULL;
	m->buckets = malloc((size_t)nb * sizeof(*m->buckets));
	m->nodes = calloc(max, sizeof(*m->nodes));
	m->hot = calloc(max, sizeof(*m->hot));
	if (m->buckets == NULL || m->nodes == NULL || m->hot == NULL) {
		dec_xidmap_free(m);
		return NULL;
	}
	m->max = max;
	m->mask = nb - 1;
	m->ttl_ns = ttl_ns;
	for (i = 0; i < nb; i++)
		m->buckets[i] = NIL;
	m->free_head = NIL;
	m->fresh = 0;
	m->next_i = NIL;
	m->old_head = NIL;
	m->new_tail = NIL;
	return m;
}

void
dec_xidmap_free(struct dec_xidmap *m)
{
	if (m == NULL)
		return;
	free(m->buckets);
	free(m->hot);
	free(m->nodes);
	free(m);
}

uint64_t
dec_xidmap_evictions(const struct dec_xidmap *m)
{
	return m->evictions;
}

static uint64_t
xid_mix(uint64_t h, uint64_t v)
{
	h ^= v;
	h *= 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

static uint64_t
xid_hash_addr(uint64_t h, const struct cap_addr *a)
{
	uint64_t w0, w1;

	memcpy(&w0, a->a, 8);
	memcpy(&w1, a->a + 8, 8);
	h = xid_mix(h, w0 ^ a->family);
	return xid_mix(h, w1);
}

static uint32_t
xid_bucket(const struct dec_xidmap *m, const struct dec_xid_key *k)
{
	/* ports are not hashed: a lookup may fall back to another port */
	uint64_t h = xid_mix(0x84222325cbf29ce4ull, k->xid);

	h = xid_hash_addr(h, &k->client);
	h = xid_hash_addr(h, &k->server);
	return (uint32_t)(h ^ (h >> 32)) & m->mask;
}

/*
 * The entry for k; with any_port, failing an exact match, the latest call
 * with the same addresses and xid from another port (a UDP retransmission
 * from another client port, answered there, whose own transmission was not
 * captured).
 */
static uint32_t
xid_find(const struct dec_xidmap *m, uint32_t b, const struct dec_xid_key *k,
	 bool any_port)
{
	uint32_t i, best = NIL;

	for (i = m->buckets[b]; i != NIL; i = m->hot[i].hnext) {
		const struct dec_xid_key *q;

		if (m->hot[i].xid != k->xid)
			continue;
		q = &m->nodes[i].key;
		if (!cap_addr_eq(&q->client, &k->client) ||
		    !cap_addr_eq(&q->server, &k->server))
			continue;
		if (q->client_port == k->client_port &&
		    q->server_port == k->server_port)
			return i;
		if (any_port && (best == NIL || m->nodes[i].call.ts_ns >
						m->nodes[best].call.ts_ns))
			best = i;
	}
	return best;
}

static void
xid_age_unlink(struct dec_xidmap *m, uint32_t i)
{
	struct xid_node *n = &m->nodes[i];

	if (n->aprev != NIL)
		m->nodes[n->aprev].anext = n->anext;
	else
		m->old_head = n->anext;
	if (n->anext != NIL)
		m->nodes[n->anext].aprev = n->aprev;
	else
		m->new_tail = n->aprev;
}

static void
xid_age_append(struct dec_xidmap *m, uint32_t i)
{
	struct xid_node *n = &m->nodes[i];

	n->aprev = m->new_tail;
	n->anext = NIL;
	if (m->new_tail != NIL)
		m->nodes[m->new_tail].anext = i;
	else
		m->old_head = i;
	m->new_tail = i;
}

static void
xid_hash_unlink(struct dec_xidmap *m, uint32_t i)
{
	uint32_t b = m->next_i == i ? m->next_b :
		     xid_bucket(m, &m->nodes[i].key);
	uint32_t *pp = &m->buckets[b];

	while (*pp != NIL && *pp != i)
		pp = &m->hot[*pp].hnext;
	if (*pp == i)
		*pp = m->hot[i].hnext;
	if (m->next_i == i)
		m->next_i = NIL;
}

/* Node i's identity ends: a new gen (never 0). */
static void
xid_new_gen(struct dec_xidmap *m, uint32_t i)
{
	if (++m->nodes[i].gen == 0)
		m->nodes[i].gen = 1;
}

/* Take node i out of the table and onto the free list. */
static void
xid_release(struct dec_xidmap *m, uint32_t i)
{
	xid_new_gen(m, i);
	m->last_ok = false;
	xid_hash_unlink(m, i);
	xid_age_unlink(m, i);
	m->nodes[i].anext = m->free_head;
	m->free_head = i;
}

static bool
xid_expired(const struct dec_xidmap *m, const struct xid_node *n,
	    int64_t now_ns)
{
	return now_ns > n->call.ts_ns && now_ns - n->call.ts_ns > m->ttl_ns;
}

/*
 * Once the table is full every put reuses the oldest node, a whole table
 * of calls old and out of the cache: its node, its hash chain's bucket and
 * link.  Fetch them a put ahead - the next victim's bucket (its hash kept
 * for the release) and link (its node came in at the put before), the node
 * of the one after it.
 */
static void
xid_prefetch_victims(struct dec_xidmap *m)
{
	uint32_t v = m->old_head, w;

	if (v == NIL)
		return;
	m->next_i = v;
	m->next_b = xid_bucket(m, &m->nodes[v].key);
	__builtin_prefetch(&m->buckets[m->next_b], 1);
	__builtin_prefetch(&m->hot[v], 1);
	w = m->nodes[v].anext;
	if (w != NIL) {
		__builtin_prefetch(&m->nodes[w], 1);
		__builtin_prefetch((const char *)&m->nodes[w] +
				   sizeof(m->nodes[w]) - 1, 1);
	}
}

/* Is the call's program known (its header was cut before it)? */
static bool
xid_prog_known(const struct dec_xid_call *c)
{
	return c->prog != DEC_PROC_UNKNOWN;
}

/*
 * The latest entry holding a call of prog with k's addresses and xid, its
 * ports other than k's (no entry has k's exact key): the operation a call
 * from another port belongs to, as analyze/ keys it (no ports).
 */
static uint32_t
xid_find_group(const struct dec_xidmap *m, uint32_t b,
	       const struct dec_xid_key *k, uint32_t prog)
{
	uint32_t i, best = NIL;

	for (i = m->buckets[b]; i != NIL; i = m->hot[i].hnext) {
		const struct xid_node *n = &m->nodes[i];

		if (m->hot[i].xid != k->xid || n->call.prog != prog ||
		    !cap_addr_eq(&n->key.client, &k->client) ||
		    !cap_addr_eq(&n->key.server, &k->server))
			continue;
		if (best == NIL || n->call.ts_ns > m->nodes[best].call.ts_ns)
			best = i;
	}
	return best;
}

/* Node i was just put: the node of the identity it carries, if another
 * and still that identity's, is made as young. */
static void
xid_refresh(struct dec_xidmap *m, uint32_t i)
{
	struct dec_call_id id = m->nodes[i].call.id;

	if (id.slot == i || m->nodes[id.slot].gen != id.gen)
		return;
	xid_age_unlink(m, id.slot);
	xid_age_append(m, id.slot);
}

struct dec_call_id
dec_xidmap_put(struct dec_xidmap *m, const struct dec_xid_key *k,
	       const struct dec_xid_call *call)
{
	uint32_t b = xid_bucket(m, k);
	uint32_t i = xid_find(m, b, k, false), g = NIL;
	struct xid_node *n;
	struct dec_call_id id;

	m->last_ok = false;
	if (i != NIL) {
		n = &m->nodes[i];
		id = n->call.id;
		if (xid_prog_known(call) && xid_prog_known(&n->call) &&
		    n->call.prog != call->prog) {
			/* another program on the same key: another op */
			xid_new_gen(m, i);
			id.slot = i;
			id.gen = n->gen;
		}
		n->call = *call;
		n->call.id = id;
		xid_age_unlink(m, i);
		xid_age_append(m, i);
		xid_refresh(m, i);
		return id;
	}
	if (m->free_head == NIL && m->fresh < m->max) {
		i = m->fresh++;		/* a node never used */
		m->nodes[i].gen = 1;
		m->nodes[i].anext = NIL;
		m->free_head = i;
	}
	if (m->free_head == NIL) {
		uint32_t old = m->old_head, pass;

		/* A call still awaiting its reply (within ttl) goes to the
		 * young end rather than out, while an answered entry (kept
		 * only for duplicate replies) can give its node: a few
		 * unanswered calls do not cost their replies once the table
		 * wraps.  At most XID_PASS a put, so a table full of calls
		 * awaiting replies still evicts its oldest. */
		for (pass = 0; pass < XID_PASS &&
		     m->nodes[old].call.reply_len == 0 &&
		     !xid_expired(m, &m->nodes[old], call->ts_ns); pass++) {
			xid_age_unlink(m, old);
			xid_age_append(m, old);
			old = m->old_head;
		}
		/* a loss only if its reply may still come: an answered entry
		 * is kept just to decode duplicate replies */
		if (!xid_expired(m, &m->nodes[old], call->ts_ns) &&
		    m->nodes[old].call.reply_len == 0)
			m->evictions++;
		xid_release(m, old);
		xid_prefetch_victims(m);
	}
	if (xid_prog_known(call))
		g = xid_find_group(m, b, k, call->prog);
	i = m->free_head;
	n = &m->nodes[i];
	m->free_head = n->anext;
	n->key = *k;
	n->call = *call;
	if (g != NIL) {
		n->call.id = m->nodes[g].call.id;
	} else {
		n->call.id.slot = i;
		n->call.id.gen = n->gen;
	}
	m->hot[i].xid = k->xid;
	m->hot[i].hnext = m->buckets[b];
	m->buckets[b] = i;
	xid_age_append(m, i);
	xid_refresh(m, i);
	return n->call.id;
}

bool
dec_xidmap_get(struct dec_xidmap *m, const struct dec_xid_key *k,
	       int64_t now_ns, struct dec_xid_call *out)
{
	uint32_t b = xid_bucket(m, k);
	uint32_t i = xid_find(m, b, k, true);

	if (i == NIL)
		return false;
	if (xid_expired(m, &m->nodes[i], now_ns)) {
		xid_release(m, i);
		return false;
	}
	*out = m->nodes[i].call;
	m->last_ok = true;
	m->last_i = i;
	m->last_key = *k;
	return true;
}

static bool
xid_key_eq(const struct dec_xid_key *a, const struct dec_xid_key *b)
{
	return a->xid == b->xid && a->client_port == b->client_port &&
	       a->server_port == b->server_port &&
	       cap_addr_eq(&a->client, &b->client) &&
	       cap_addr_eq(&a->server, &b->server);
}

void
dec_xidmap_answered(struct dec_xidmap *m, const struct dec_xid_key *k,
		    uint32_t len)
{
	uint32_t i;

	if (m->last_ok && xid_key_eq(&m->last_key, k))
		i = m->last_i;
	else
		i = xid_find(m, xid_bucket(m, k), k, true);
	if (i != NIL && m->nodes[i].call.reply_len == 0)
		m->nodes[i].call.reply_len = len ? len : 1;
}
