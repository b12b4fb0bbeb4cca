/*
 * hist.h - log-linear latency histogram (HDR-style), mergeable.
 *
 * Purpose: record non-negative values (nanoseconds) and answer count, min,
 * max, mean and percentiles with a bounded relative error.
 *
 * Layout: values 0..127 have one bucket each (exact).  Above that, every
 * power of two [2^e, 2^(e+1)) is split into HIST_SUB = 128 equal buckets,
 * so a bucket is at most 1/128 of its lower bound wide; a percentile is
 * reported as the bucket's midpoint, clamped to [min, max]: relative error
 * <= 1/256 (0.4%), well inside the 1% the report promises.  Values at or
 * above 2^HIST_MAX_EXP ns (~9.8 hours) land in the top bucket (max is
 * still exact).
 *
 * Invariants: count == sum of all bucket counts; min <= max when count > 0.
 * Two histograms merge exactly (same bucket layout everywhere), so per-
 * interval or per-source histograms can be summed without loss.
 *
 * Ownership: a struct hist is embedded by its owner (zeroed = empty); it
 * owns its bucket chunks, one per power of two actually used, allocated the
 * first time a value falls into it: a small chunk (56 bytes: up to
 * HIST_FEW distinct buckets, bit c of `few` set) that becomes the full 1 KiB
 * one when a (HIST_FEW + 1)th distinct bucket of that power of two is
 * counted.  A row that sees a rare latency once pays 56 bytes (64 with
 * malloc's header), not 1 KiB: a live recorder's long-lived rows grew by
 * 1 KiB per new power of two, for as long as it ran.  hist_fini frees
 * them.  If a chunk cannot be allocated the value is still counted in
 * count/min/max/sum and `lost` is incremented.
 *
 * Load: hist_add is O(1) (a small chunk: a scan of at most HIST_FEW
 * buckets) with no allocation once the used powers of two have been seen
 * (typically 5-10 chunks per histogram) and filled past HIST_FEW buckets.
 */
#ifndef NFSCOPE_HIST_H
#define NFSCOPE_HIST_H

#include <stdbool.h>
#include <stdint.h>

#define HIST_SUB_BITS 7
#define HIST_SUB (1u << HIST_SUB_BITS)
#define HIST_MAX_EXP 45
#define HIST_NCHUNK (HIST_MAX_EXP - HIST_SUB_BITS + 1)
#define HIST_FEW 6	/* distinct buckets a small chunk holds */

struct hist {
	uint64_t count;
	uint64_t min, max;
	double sum;		/* ns; double keeps 2^53 ns (104 days) exact */
	uint64_t lost;
	uint64_t few;			/* bit c: chunk[c] is a small chunk:
					   word 0 its size (bits 0-7) and
					   bucket numbers (bits 8k+8..8k+15),
					   words 1..HIST_FEW their counts */
	uint64_t *chunk[HIST_NCHUNK];	/* owned; NULL until used */
};

void hist_init(struct hist *h);
void hist_fini(struct hist *h);
/* Empty h, keeping its chunks for reuse. */
void hist_clear(struct hist *h);
void hist_add(struct hist *h, uint64_t v);
/* Fetch into the cache the bucket hist_add(h, v) would bump (a hint:
 * nothing changes). */
void hist_prefetch(const struct hist *h, uint64_t v);
/* The same for the pointer to that bucket's chunk (h's line holding it):
 * a step earlier, when h itself may not be in the cache yet. */
void hist_prefetch_chunk(const struct hist *h, uint64_t v);
/* Add every value of src into dst.  False if a chunk could not be
 * allocated (dst->lost counts what went missing). */
bool hist_merge(struct hist *dst, const struct hist *src);
/* Add into dst the values of `all` with those of `minus` (a subset of
 * all, by bucket) replaced by those of `plus` (as many values): the bucket
 * counts all - minus + plus; count, sum, min and max are given (the
 * caller knows them exactly; min and max only matter if count > 0).  How
 * figs.c keeps latency from the last transmission without a second
 * histogram add for the ops that were never retransmitted.  False if a
 * chunk could not be allocated (dst->lost counts what went missing). */
bool hist_merge_replaced(struct hist *dst, const struct hist *all,
			 const struct hist *minus, const struct hist *plus,
			 uint64_t count, double sum, uint64_t min, uint64_t max);
/* Add n values into bucket i of power-of-two range c (hist_bucket's
 * numbering: chunk 0 is [0, 128) ns), leaving count, min, max and sum to
 * the caller (a stored histogram's blob).  False if a chunk could not be
 * allocated (lost counts them). */
bool hist_add_bucket(struct hist *h, unsigned c, unsigned i, uint64_t n);
/* The non-zero buckets of range c in increasing order: their numbers in
 * idx, counts in cnt (HIST_SUB entries each); returns how many. */
unsigned hist_range_buckets(const struct hist *h, unsigned c, uint8_t *idx,
			    uint64_t *cnt);
/* Nearest-rank percentile, p in [0, 100]; 0 if empty. */
uint64_t hist_percentile(const struct hist *h, double p);
double hist_mean(const struct hist *h);
/* Values counted in power-of-two range c (0: [0, 128) ns; c >= 1:
 * [2^(c+6), 2^(c+7)) ns), for drawing a histogram; sets the range's bounds.
 * c >= HIST_NCHUNK: 0. */
uint64_t hist_range_count(const struct hist *h, unsigned c, uint64_t *lo,
			  uint64_t *hi);

#endif
