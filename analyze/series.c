/* series.c - the time series per procedure; see series.h. */
#include "analyze/series.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

struct an_series {
	int64_t interval_ns;
	uint32_t cells_max;
	struct an_series_cell *cell;	/* owned, ncell used of cap */
	uint32_t ncell, cap;
	uint32_t *slot;			/* owned: cell index + 1, 0 empty */
	uint32_t nslot;			/* a power of two, > 2 * ncell */
	uint64_t dropped;
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
	free(s->slot);
	free(s);
}

static uint32_t key_hash(int64_t start, uint32_t prog, uint32_t vers,
			 uint32_t proc)
{
	uint64_t h = (uint64_t)start * 0x9e3779b97f4a7c15ull;

	h ^= ((uint64_t)prog << 40) ^ ((uint64_t)vers << 32) ^ proc;
	h *= 0xff51afd7ed558ccdull;
	return (uint32_t)(h >> 32);
}

/* The slot of the key: its cell's, or the empty one it would take. */
static uint32_t *slot_of(const struct an_series *s, int64_t start,
			 uint32_t prog, uint32_t vers, uint32_t proc)
{
	uint32_t i = key_hash(start, prog, vers, proc) & (s->nslot - 1);

	for (;; i = (i + 1) & (s->nslot - 1)) {
		const struct an_series_cell *c;

		if (s->slot[i] == 0)
			return &s->slot[i];
		c = &s->cell[s->slot[i] - 1];
		if (c->start_ns == start && c->prog == prog &&
		    c->vers == vers && c->proc == proc)
			return &s->slot[i];
	}
}

/* Room for one more cell: the arrays doubled when full.  False: none. */
static bool grow(struct an_series *s)
{
	uint32_t k, n;

	if (s->ncell >= s->cells_max)
		return false;
	if (s->ncell == s->cap) {
		n = s->cap ? s->cap * 2 : 256;
		struct an_series_cell *c = realloc(s->cell, n * sizeof(*c));

		if (c == NULL)
			return false;
		s->cell = c;
		s->cap = n;
	}
	if (2 * (s->ncell + 1) < s->nslot)
		return true;
	n = s->nslot ? s->nslot * 2 : 1024;
	uint32_t *t = calloc(n, sizeof(*t)), *old = s->slot;

	if (t == NULL)
		return false;
	s->slot = t;
	s->nslot = n;
	for (k = 0; k < s->ncell; k++) {
		const struct an_series_cell *c = &s->cell[k];

		*slot_of(s, c->start_ns, c->prog, c->vers, c->proc) = k + 1;
	}
	free(old);
	return true;
}

void an_series_add(struct an_series *s, const struct an_op *op)
{
	int64_t start = an_bucket_start(op->first_call_ns, s->interval_ns);
	struct an_series_cell *c;
	uint32_t *sl;

	if (op->flags & AN_OP_CALL_NOT_SEEN)
		return;
	sl = s->nslot ? slot_of(s, start, op->prog, op->vers, op->proc) : NULL;
	if (sl == NULL || *sl == 0) {
		if (!grow(s)) {
			s->dropped++;
			return;
		}
		sl = slot_of(s, start, op->prog, op->vers, op->proc);
		c = &s->cell[s->ncell];
		memset(c, 0, sizeof(*c));
		c->start_ns = start;
		c->prog = op->prog;
		c->vers = op->vers;
		c->proc = op->proc;
		hist_init(&c->lat);
		*sl = ++s->ncell;
	}
	c = &s->cell[*sl - 1];
	an_cell_add(&c->s, &c->lat, op);
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
