/*
 * diff.h - two report models compared (`nfscope diff A B`): per procedure
 * the change in ops/s and in p50/p95/p99, READ and WRITE sizes side by
 * side, COMMITs per WRITE, retransmissions and their causes, the findings
 * that appear or disappear, and a verdict in words ("after: TCP (was
 * UDP), 32k READs (was 8k); READ p99 -41%").  A is "before", B "after".
 *
 * Error: both sides' percentiles are hist.h's bucket midpoints, within
 * AN_DIFF_PCT_ERR per cent of the true value, so a change of a percentile
 * is known to about twice that; the verdict calls a smaller change
 * "unchanged".  Counts and rates are exact.
 *
 * Ownership: an_diff_build fills a caller-owned struct an_diff and
 * allocates its arrays (an_diff_fini frees them; a zeroed diff is finished
 * at no cost).  The findings it points to are the models' (borrowed: the
 * models must outlive the diff).  Built once per diff, off the packet path.
 */
#ifndef NFSCOPE_AN_DIFF_H
#define NFSCOPE_AN_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/model.h"

#define AN_DIFF_PCT_ERR (100.0 / 256)	/* hist.h: <= 1/256 of the value */
#define AN_DIFF_SIZES 12		/* sizes shown (most calls); more: other */

/* One procedure on one side. */
struct an_diff_side {
	uint64_t calls, errors, unanswered, retrans;
	double ops_per_s;
	double p50_ms, p95_ms, p99_ms;	/* 0 without answered calls */
	uint64_t answered;
};

struct an_diff_proc {
	uint32_t prog, vers, proc;
	struct an_diff_side a, b;
	/* changes in per cent of A (NaN: A has none to compare with) */
	double d_ops_pct, d_p50_pct, d_p95_pct, d_p99_pct;
};

/* READ or WRITE calls per size (the count asked), both sides. */
struct an_diff_size {
	uint32_t size;
	uint64_t a, b;
};
struct an_diff_sizes {
	struct an_diff_size s[AN_DIFF_SIZES];	/* the most used, by size */
	uint32_t n;
	uint64_t other_a, other_b;	/* the other sizes' calls */
	uint64_t total_a, total_b;
	uint32_t dominant_a, dominant_b;	/* most asked (0: none) */
	uint32_t granted_a, granted_b;	/* what that got: the dominant size,
					   or less when the server clamped
					   it (its largest grant) */
};

/* Totals of one side. */
struct an_diff_totals {
	uint64_t ops, errors, unanswered, retrans, dup_replies;
	double ops_per_s, duration_s;
	double data_kib_per_s;		/* READ + WRITE data moved */
	uint64_t udp_msgs, tcp_msgs;	/* RPC messages by transport */
	uint64_t writes, commits;
	double commits_per_write;	/* 0 without WRITEs */
	uint64_t cause[AN_RX_NCAUSES];	/* retransmitted ops by cause, over
					   the pairs with a vantage point */
	bool complete;
};

/* A finding on one side only (kind, client, server and handle differ
 * from every finding of the other side). */
struct an_diff_finding {
	const struct an_finding *f;	/* borrowed from a model */
	bool appears;			/* only in B; false: only in A */
};

struct an_diff {
	const struct an_model *a, *b;	/* borrowed */
	struct an_diff_totals ta, tb;
	struct an_diff_proc *procs;	/* by program, version, procedure */
	uint32_t nprocs;
	struct an_diff_sizes read, write;
	struct an_diff_finding *findings;
	size_t nfindings;
	char verdict[512];
};

/* Returns 0, or -1 when out of memory (d is then finished). */
int an_diff_build(struct an_diff *d, const struct an_model *a,
		  const struct an_model *b);
void an_diff_fini(struct an_diff *d);
/* "32k" for a multiple of 1024, else the bytes, into buf. */
const char *an_diff_size_name(uint32_t size, char *buf, size_t n);
/* The change of a percentile or rate in per cent of a (NaN if a is 0). */
double an_diff_pct(double a, double b);

#endif
