/* hist.c - log-linear histogram; see hist.h. */
#include "analyze/hist.h"

#include <stdlib.h>
#include <string.h>

void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
}

void hist_fini(struct hist *h)
{
	unsigned i;

	if (h == NULL)
		return;
	for (i = 0; i < HIST_NCHUNK; i++)
		free(h->chunk[i]);
	memset(h, 0, sizeof(*h));
}

void hist_clear(struct hist *h)
{
	unsigned i;

	if (h->count == 0 && h->lost == 0)
		return;
	for (i = 0; i < HIST_NCHUNK; i++)
		if (h->chunk[i])
			memset(h->chunk[i], 0, HIST_SUB * sizeof(uint64_t));
	h->count = h->min = h->max = h->lost = 0;
	h->sum = 0;
}

/* chunk 0: [0, 128) width 1; chunk c >= 1: [2^(c+6), 2^(c+7)), width 2^(c-1) */
static void hist_index(uint64_t v, unsigned *c, unsigned *i)
{
	unsigned e;

	if (v < HIST_SUB) {
		*c = 0;
		*i = (unsigned)v;
		return;
	}
	e = 63u - (unsigned)__builtin_clzll(v);
	if (e >= HIST_MAX_EXP) {
		*c = HIST_NCHUNK - 1;
		*i = HIST_SUB - 1;
		return;
	}
	*c = e - HIST_SUB_BITS + 1;
	*i = (unsigned)(v >> (e - HIST_SUB_BITS)) - HIST_SUB;
}

/* lower bound and width of bucket (c, i) */
static void hist_bucket(unsigned c, unsigned i, uint64_t *lo, uint64_t *w)
{
	if (c == 0) {
		*lo = i;
		*w = 1;
		return;
	}
	*w = (uint64_t)1 << (c - 1);
	*lo = ((uint64_t)HIST_SUB + i) << (c - 1);
}

static bool hist_bump(struct hist *h, unsigned c, unsigned i, uint64_t n)
{
	if (h->chunk[c] == NULL) {
		h->chunk[c] = calloc(HIST_SUB, sizeof(uint64_t));
		if (h->chunk[c] == NULL) {
			h->lost += n;
			return false;
		}
	}
	h->chunk[c][i] += n;
	return true;
}

void hist_prefetch_chunk(const struct hist *h, uint64_t v)
{
	unsigned c, i;

	hist_index(v, &c, &i);
	__builtin_prefetch(&h->chunk[c]);
}

void hist_prefetch(const struct hist *h, uint64_t v)
{
	unsigned c, i;

	hist_index(v, &c, &i);
	if (h->chunk[c] != NULL)
		__builtin_prefetch(&h->chunk[c][i], 1);
}

void hist_add(struct hist *h, uint64_t v)
{
	unsigned c, i;

	if (h->count == 0 || v < h->min)
		h->min = v;
	if (h->count == 0 || v > h->max)
		h->max = v;
	h->count++;
	h->sum += (double)v;
	hist_index(v, &c, &i);
	hist_bump(h, c, i, 1);
}

/* Add a chunk's worth of bucket counts v into chunk c of h; the chunk is
 * made only if some count is not 0.  Branch-free loops over the 128
 * buckets (the compiler vectorises the add): a report merges every cell
 * into each of its rows at the end, and bucket by bucket that was a sixth
 * of a short run's instructions. */
static bool chunk_add(struct hist *h, unsigned c,
		      const uint64_t *restrict v)
{
	uint64_t *restrict d = h->chunk[c];
	unsigned i;

	if (d == NULL) {
		uint64_t any = 0;

		for (i = 0; i < HIST_SUB; i++)
			any |= v[i];
		if (any == 0)
			return true;
		if ((d = h->chunk[c] = calloc(HIST_SUB, sizeof(uint64_t))) ==
		    NULL) {
			for (i = 0; i < HIST_SUB; i++)
				h->lost += v[i];
			return false;
		}
	}
	for (i = 0; i < HIST_SUB; i++)
		d[i] += v[i];
	return true;
}

bool hist_merge(struct hist *dst, const struct hist *src)
{
	unsigned c;
	bool ok = true;

	if (src->count == 0)
		return true;
	if (dst->count == 0 || src->min < dst->min)
		dst->min = src->min;
	if (dst->count == 0 || src->max > dst->max)
		dst->max = src->max;
	dst->count += src->count;
	dst->sum += src->sum;
	dst->lost += src->lost;
	for (c = 0; c < HIST_NCHUNK; c++)
		if (src->chunk[c] != NULL && !chunk_add(dst, c, src->chunk[c]))
			ok = false;
	return ok;
}

static const uint64_t chunk_zero[HIST_SUB];

bool hist_merge_replaced(struct hist *dst, const struct hist *all,
			 const struct hist *minus, const struct hist *plus,
			 uint64_t count, double sum, uint64_t min, uint64_t max)
{
	uint64_t v[HIST_SUB];
	unsigned c, i;
	bool ok = true;

	if (count == 0)
		return true;
	if (dst->count == 0 || min < dst->min)
		dst->min = min;
	if (dst->count == 0 || max > dst->max)
		dst->max = max;
	dst->count += count;
	dst->sum += sum;
	dst->lost += all->lost + plus->lost;
	for (c = 0; c < HIST_NCHUNK; c++) {
		const uint64_t *restrict a = all->chunk[c];
		const uint64_t *restrict m = minus->chunk[c];
		const uint64_t *restrict p = plus->chunk[c];

		if (a == NULL && p == NULL)
			continue;
		if (m == NULL && p == NULL) {
			if (!chunk_add(dst, c, a))
				ok = false;
			continue;
		}
		a = a ? a : chunk_zero;
		m = m ? m : chunk_zero;
		p = p ? p : chunk_zero;
		for (i = 0; i < HIST_SUB; i++)
			v[i] = a[i] - m[i] + p[i];
		if (!chunk_add(dst, c, v))
			ok = false;
	}
	return ok;
}

uint64_t hist_percentile(const struct hist *h, double p)
{
	uint64_t rank, seen = 0, lo, w, v;
	unsigned c, i;
	double r;

	if (h->count == 0)
		return 0;
	if (p <= 0)
		return h->min;
	if (p >= 100)
		return h->max;
	r = p / 100.0 * (double)h->count;
	rank = (uint64_t)r;
	if ((double)rank < r)
		rank++;
	if (rank == 0)
		rank = 1;
	for (c = 0; c < HIST_NCHUNK; c++) {
		if (h->chunk[c] == NULL)
			continue;
		for (i = 0; i < HIST_SUB; i++) {
			seen += h->chunk[c][i];
			if (seen < rank)
				continue;
			hist_bucket(c, i, &lo, &w);
			v = lo + w / 2;
			if (v < h->min)
				v = h->min;
			if (v > h->max)
				v = h->max;
			return v;
		}
	}
	return h->max;	/* only if chunks were lost */
}

double hist_mean(const struct hist *h)
{
	return h->count ? h->sum / (double)h->count : 0.0;
}

uint64_t hist_range_count(const struct hist *h, unsigned c, uint64_t *lo,
			  uint64_t *hi)
{
	uint64_t n = 0;
	unsigned i;

	if (c >= HIST_NCHUNK)
		return 0;
	*lo = c == 0 ? 0 : (uint64_t)1 << (c + HIST_SUB_BITS - 1);
	*hi = (uint64_t)1 << (c + HIST_SUB_BITS);
	if (h->chunk[c])
		for (i = 0; i < HIST_SUB; i++)
			n += h->chunk[c][i];
	return n;
}
