/* series.c - the time series per procedure; see series.h. */
#include "analyze/series.h"

#include <assert.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* A slot of the index holds a cell's index + 1 (0: empty), RX_BIT set
 * for a retransmitted ops' cell (rx[]). */
#define RX_BIT 0x80000000u

struct an_series {
	int64_t interval_ns;
	uint32_t cells_max;		/* cells, and rx cells */
	struct an_series_cell *cell;	/* owned, ncell used of cap */
	uint32_t ncell, cap;
	struct an_series_rx *rx;	/* owned, nrx used of rxcap */
	uint32_t nrx, rxcap;
	uint32_t *slot;			/* owned: the index of both */
	uint32_t nslot;			/* a power of two, > 2 * (ncell + nrx) */
	uint64_t dropped, rx_dropped;
};

/* A cell's key: its interval, and its procedure or (rx) its rx key (in
 * proc). */
struct key {
	int64_t start;
	uint32_t prog, vers, proc;
	bool rx;
};

struct an_series *an_series_new(int64_t interval_ns, uint32_t cells_max)
{
	struct an_series *s;

	assert(interval_ns > 0);
	if ((s = calloc(1, sizeof(*s))) == NULL)
		return NULL;
	s->interval_ns = interval_ns;
	s->cells_max = cells_max ? cells_max : AN_SERIES_CELLS_DEFAULT;
	return s;
}

void an_series_free(struct an_series *s)
{
	uint32_t k;

	if (s == NULL)
		return;
	for (k = 0; k < s->ncell; k++)
		hist_fini(&s->cell[k].lat);
	free(s->cell);
	free(s->rx);
	free(s->slot);
	free(s);
}

static uint32_t key_hash(const struct key *k)
{
	uint64_t h = (uint64_t)k->start * 0x9e3779b97f4a7c15ull;

	h ^= ((uint64_t)k->prog << 40) ^ ((uint64_t)k->vers << 32) ^ k->proc ^
	     ((uint64_t)k->rx << 63);
	h *= 0xff51afd7ed558ccdull;
	return (uint32_t)(h >> 32);
}

/* The key of the cell in slot value v (> 0). */
static struct key key_at(const struct an_series *s, uint32_t v)
{
	const struct an_series_cell *c;
	const struct an_series_rx *r;

	if ((v - 1) & RX_BIT) {
		r = &s->rx[(v - 1) & ~RX_BIT];
		return (struct key){ r->start_ns, 0, 0, (uint32_t)r->rx_key,
				     true };
	}
	c = &s->cell[v - 1];
	return (struct key){ c->start_ns, c->prog, c->vers, c->proc, false };
}

static bool key_eq(const struct key *a, const struct key *b)
{
	return a->start == b->start && a->prog == b->prog &&
	       a->vers == b->vers && a->proc == b->proc && a->rx == b->rx;
}

/* The slot of the key: its cell's, or the empty one it would take. */
static uint32_t *slot_of(const struct an_series *s, const struct key *k)
{
	uint32_t i = key_hash(k) & (s->nslot - 1);

	for (;; i = (i + 1) & (s->nslot - 1)) {
		struct key o;

		if (s->slot[i] == 0)
			return &s->slot[i];
		o = key_at(s, s->slot[i]);
		if (key_eq(&o, k))
			return &s->slot[i];
	}
}

/* arr (n used of *cap, size bytes each) with room for one more: itself,
 * or moved and doubled when full.  NULL: out of memory (arr kept). */
static void *room(void *arr, uint32_t n, uint32_t *cap, size_t size)
{
	uint32_t c = *cap ? *cap * 2 : 256;

	if (n < *cap)
		return arr;
	if ((arr = realloc(arr, (size_t)c * size)) != NULL)
		*cap = c;
	return arr;
}

/* Room in the index for one more cell: doubled and rebuilt when half
 * full.  False: none. */
static bool grow_index(struct an_series *s)
{
	uint32_t k, n, used = s->ncell + s->nrx;

	if (2 * (used + 1) < s->nslot)
		return true;
	n = s->nslot ? s->nslot * 2 : 1024;
	uint32_t *t = calloc(n, sizeof(*t)), *old = s->slot;

	if (t == NULL)
		return false;
	s->slot = t;
	s->nslot = n;
	for (k = 0; k < used; k++) {
		uint32_t v = k < s->ncell ? k + 1 : ((k - s->ncell) | RX_BIT) + 1;
		struct key o = key_at(s, v);

		*slot_of(s, &o) = v;
	}
	free(old);
	return true;
}

/* The slot of key k's cell, the cell made when new (rx: in rx[]); NULL
 * when it does not fit. */
static uint32_t *cell_slot(struct an_series *s, const struct key *k)
{
	bool rx = k->rx;
	uint32_t *sl = s->nslot ? slot_of(s, k) : NULL;
	void *a;

	if (sl != NULL && *sl != 0)
		return sl;
	if ((rx ? s->nrx : s->ncell) >= s->cells_max || !grow_index(s))
		return NULL;
	if (rx) {
		if ((a = room(s->rx, s->nrx, &s->rxcap, sizeof(*s->rx))) == NULL)
			return NULL;
		s->rx = a;
		s->rx[s->nrx] = (struct an_series_rx){ k->start,
						       (int32_t)k->proc, 0 };
		sl = slot_of(s, k);
		*sl = (s->nrx++ | RX_BIT) + 1;
		return sl;
	}
	if ((a = room(s->cell, s->ncell, &s->cap, sizeof(*s->cell))) == NULL)
		return NULL;
	s->cell = a;
	struct an_series_cell *c = &s->cell[s->ncell];

	memset(c, 0, sizeof(*c));
	c->start_ns = k->start;
	c->prog = k->prog;
	c->vers = k->vers;
	c->proc = k->proc;
	hist_init(&c->lat);
	sl = slot_of(s, k);
	*sl = ++s->ncell;
	return sl;
}

void an_series_add(struct an_series *s, const struct an_op *op,
		   int32_t rx_key)
{
	int64_t start = an_bucket_start(op->first_call_ns, s->interval_ns);
	struct key k = { start, op->prog, op->vers, op->proc, false };
	uint32_t *sl;

	if (op->flags & AN_OP_CALL_NOT_SEEN)
		return;
	if ((sl = cell_slot(s, &k)) == NULL)
		s->dropped++;
	else
		an_cell_add(&s->cell[*sl - 1].s, &s->cell[*sl - 1].lat, op);
	if (rx_key < 0)
		return;
	k = (struct key){ start, 0, 0, (uint32_t)rx_key, true };
	if ((sl = cell_slot(s, &k)) == NULL)
		s->rx_dropped++;
	else
		s->rx[(*sl - 1) & ~RX_BIT].ops++;
}

int64_t an_series_interval_ns(const struct an_series *s)
{
	return s->interval_ns;
}

uint32_t an_series_ncells(const struct an_series *s)
{
	return s ? s->ncell : 0;
}

const struct an_series_cell *an_series_cell(const struct an_series *s,
					    uint32_t k)
{
	assert(k < s->ncell);
	return &s->cell[k];
}

uint64_t an_series_dropped(const struct an_series *s)
{
	return s ? s->dropped : 0;
}

uint32_t an_series_nrx(const struct an_series *s)
{
	return s ? s->nrx : 0;
}

const struct an_series_rx *an_series_rx(const struct an_series *s,
					uint32_t k)
{
	assert(k < s->nrx);
	return &s->rx[k];
}

uint64_t an_series_rx_dropped(const struct an_series *s)
{
	return s ? s->rx_dropped : 0;
}
