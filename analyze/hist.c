/* hist.c - log-linear histogram; see hist.h. */
#include "analyze/hist.h"

#include <assert.h>
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

/* A small chunk: word 0 holds its size and bucket numbers, words
 * 1..HIST_FEW the counts (hist.h). */
#define FEW_WORDS (1 + HIST_FEW)

static bool is_few(const struct hist *h, unsigned c)
{
	return (h->few >> c) & 1;
}

static unsigned few_n(const uint64_t *b)
{
	return (unsigned)(b[0] & 0xff);
}

static unsigned few_idx(const uint64_t *b, unsigned k)
{
	return (unsigned)(b[0] >> (8 + 8 * k)) & 0xff;
}

void hist_clear(struct hist *h)
{
	unsigned i;

	if (h->count == 0 && h->lost == 0)
		return;
	for (i = 0; i < HIST_NCHUNK; i++)
		if (h->chunk[i])
			memset(h->chunk[i], 0, (is_few(h, i) ? FEW_WORDS :
						HIST_SUB) * sizeof(uint64_t));
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

/* Small chunk c is full: make it the full one (false: out of memory,
 * nothing changed). */
static bool few_grow(struct hist *h, unsigned c)
{
	uint64_t *b = h->chunk[c], *d = calloc(HIST_SUB, sizeof(uint64_t));
	unsigned k;

	if (d == NULL)
		return false;
	for (k = 0; k < few_n(b); k++)
		d[few_idx(b, k)] += b[1 + k];
	free(b);
	h->chunk[c] = d;
	h->few &= ~((uint64_t)1 << c);
	return true;
}

static bool hist_bump(struct hist *h, unsigned c, unsigned i, uint64_t n)
{
	uint64_t *b = h->chunk[c];
	unsigned k, m;

	if (b == NULL) {
		if ((b = h->chunk[c] = calloc(FEW_WORDS, sizeof(uint64_t))) ==
		    NULL) {
			h->lost += n;
			return false;
		}
		h->few |= (uint64_t)1 << c;
	}
	if (is_few(h, c)) {
		m = few_n(b);
		for (k = 0; k < m; k++)
			if (few_idx(b, k) == i) {
				b[1 + k] += n;
				return true;
			}
		if (m < HIST_FEW) {
			b[0] = (b[0] & ~(uint64_t)0xff) | (m + 1) |
			       (uint64_t)i << (8 + 8 * m);
			b[1 + m] = n;
			return true;
		}
		if (!few_grow(h, c)) {
			h->lost += n;
			return false;
		}
		b = h->chunk[c];
	}
	b[i] += n;
	return true;
}

bool hist_add_bucket(struct hist *h, unsigned c, unsigned i, uint64_t n)
{
	assert(c < HIST_NCHUNK && i < HIST_SUB);
	return n == 0 || hist_bump(h, c, i, n);
}

unsigned hist_range_buckets(const struct hist *h, unsigned c, uint8_t *idx,
			    uint64_t *cnt)
{
	const uint64_t *b = c < HIST_NCHUNK ? h->chunk[c] : NULL;
	unsigned i, k, j, m = 0;

	if (b == NULL)
		return 0;
	if (!is_few(h, c)) {
		for (i = 0; i < HIST_SUB; i++)
			if (b[i] != 0) {
				idx[m] = (uint8_t)i;
				cnt[m++] = b[i];
			}
		return m;
	}
	for (k = 0; k < few_n(b); k++) {	/* insertion, by bucket */
		if (b[1 + k] == 0)
			continue;
		i = few_idx(b, k);
		for (j = m; j > 0 && idx[j - 1] > i; j--) {
			idx[j] = idx[j - 1];
			cnt[j] = cnt[j - 1];
		}
		idx[j] = (uint8_t)i;
		cnt[j] = b[1 + k];
		m++;
	}
	return m;
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
		__builtin_prefetch(is_few(h, c) ? h->chunk[c] :
				   &h->chunk[c][i], 1);
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
 * made only if some count is not 0.  Into a full chunk, branch-free loops
 * over the 128 buckets (the compiler vectorises the add): a report merges
 * every cell into each of its rows at the end, and bucket by bucket that
 * was a sixth of a short run's instructions. */
static bool chunk_add(struct hist *h, unsigned c,
		      const uint64_t *restrict v)
{
	uint64_t *restrict d = h->chunk[c];
	unsigned i;
	bool ok = true;

	if (d == NULL || is_few(h, c)) {
		for (i = 0; i < HIST_SUB; i++)
			if (v[i] != 0 && !hist_bump(h, c, i, v[i]))
				ok = false;
		return ok;
	}
	for (i = 0; i < HIST_SUB; i++)
		d[i] += v[i];
	return true;
}

/* Chunk c of h as 128 counts: the full chunk itself, a small one spread
 * into tmp, or NULL (none). */
static const uint64_t *chunk_view(const struct hist *h, unsigned c,
				  uint64_t *tmp)
{
	const uint64_t *b = h->chunk[c];
	unsigned k;

	if (b == NULL || !is_few(h, c))
		return b;
	memset(tmp, 0, HIST_SUB * sizeof(uint64_t));
	for (k = 0; k < few_n(b); k++)
		tmp[few_idx(b, k)] += b[1 + k];
	return tmp;
}

bool hist_merge(struct hist *dst, const struct hist *src)
{
	unsigned c, k;
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
	for (c = 0; c < HIST_NCHUNK; c++) {
		const uint64_t *b = src->chunk[c];

		if (b == NULL)
			continue;
		if (!is_few(src, c)) {
			if (!chunk_add(dst, c, b))
				ok = false;
			continue;
		}
		for (k = 0; k < few_n(b); k++)
			if (b[1 + k] != 0 &&
			    !hist_bump(dst, c, few_idx(b, k), b[1 + k]))
				ok = false;
	}
	return ok;
}

static const uint64_t chunk_zero[HIST_SUB];

bool hist_merge_replaced(struct hist *dst, const struct hist *all,
			 const struct hist *minus, const struct hist *plus,
			 uint64_t count, double sum, uint64_t min, uint64_t max)
{
	uint64_t v[HIST_SUB], ta[HIST_SUB], tm[HIST_SUB], tp[HIST_SUB];
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
		const uint64_t *restrict a = chunk_view(all, c, ta);
		const uint64_t *restrict m = chunk_view(minus, c, tm);
		const uint64_t *restrict p = chunk_view(plus, c, tp);

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
	unsigned c, k;
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
		uint8_t idx[HIST_SUB];
		uint64_t cnt[HIST_SUB];
		unsigned m = hist_range_buckets(h, c, idx, cnt);

		for (k = 0; k < m; k++) {
			seen += cnt[k];
			if (seen < rank)
				continue;
			hist_bucket(c, idx[k], &lo, &w);
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
	if (h->chunk[c] && is_few(h, c))
		for (i = 0; i < few_n(h->chunk[c]); i++)
			n += h->chunk[c][1 + i];
	else if (h->chunk[c])
		for (i = 0; i < HIST_SUB; i++)
			n += h->chunk[c][i];
	return n;
}
