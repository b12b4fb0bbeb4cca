/* storm.c - storms and COMMIT phases on sliding windows of 10 ms buckets,
 * per client; the rule is in find.h, the layout in find_int.h. */
#include "analyze/find_int.h"
#include "base/units.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t run_rate(const struct an_find *f, int r);

static struct sbucket *bucket(struct storms *st, int64_t b)
{
	return &st->b[b & (SB_RING - 1)];
}

static uint32_t win_buckets(const struct an_find *f)
{
	return f->win_b;
}

void an_storm_setup(struct an_find *f)
{
	uint32_t w = f->cfg.storm_window_ms / 10;
	int r;

	f->win_b = w < 1 ? 1 : w > SB_WIN_MAX ? SB_WIN_MAX : w;
	for (r = 0; r < R_PHASE; r++) {
		uint64_t need = ((uint64_t)run_rate(f, r) * f->win_b * 10 + 999) /
				1000;

		f->storm_need[r] = need < 1 ? 1 : need > UINT32_MAX ? UINT32_MAX :
				   (uint32_t)need;
	}
}

static uint32_t run_rate(const struct an_find *f, int r)
{
	switch (r) {
	case R_GETATTR: return f->cfg.getattr_rate;
	case R_ACCESS: return f->cfg.access_rate;
	case R_LOOKUP: return f->cfg.lookup_rate;
	default: return f->cfg.commit_rate;
	}
}

/* The count a run follows (C_COMMIT for phases). */
static int run_count(int r)
{
	return r == R_PHASE ? C_COMMIT : r;
}

/* COMMITs reach commit_per_write x WRITEs (and there is one). */
static bool phase_ratio(const struct an_find *f, uint64_t c, uint64_t w)
{
	return c > 0 && (double)c >= f->cfg.commit_per_write * (double)w;
}

/* The window ending at the bucket just closed is hot. */
static bool win_hot(const struct an_find *f, const struct storms *st, int r)
{
	if (r == R_PHASE)
		return phase_ratio(f, st->wsum[C_COMMIT], st->wsum[C_WRITE]);
	return st->wsum[r] >= f->storm_need[r];
}

/* Some window is hot (the common case, no run going on: none is). */
static bool any_hot(const struct an_find *f, const struct storms *st)
{
	int r;

	for (r = 0; r < R_PHASE; r++)
		if (st->wsum[r] >= f->storm_need[r])
			return true;
	return st->wsum[C_COMMIT] > 0 && win_hot(f, st, R_PHASE);
}

/* A bucket at the rate (10 ms of it) or at the COMMIT ratio: where a run
 * may start or end. */
static bool dense(const struct an_find *f, const struct sbucket *x, int r)
{
	if (r == R_PHASE)
		return phase_ratio(f, x->n[C_COMMIT], x->n[C_WRITE]);
	return (uint64_t)x->n[r] * 100 >= run_rate(f, r);
}

static void srun_add(const struct an_find *f, struct storms *st,
		     struct srun *u, int r, int64_t b)
{
	const struct sbucket *x = bucket(st, b);
	int c = run_count(r);

	if (u->n == 0 && !dense(f, x, r))
		return;			/* the run starts at a dense bucket */
	u->pn += x->n[c];
	u->pwrites += x->n[C_WRITE];
	u->ptotal += x->n[C_TOTAL];
	if (!dense(f, x, r))
		return;
	if (u->n == 0) {
		u->first_b = b;
		u->first_us = x->first_us[c];
	}
	u->n += u->pn;
	u->writes += u->pwrites;
	u->total += u->ptotal;
	u->pn = u->pwrites = u->ptotal = 0;
	u->last_dense = b;
	u->last_us = x->last_us[c];
	if (r == R_PHASE && phase_ratio(f, u->n, u->writes)) {
		u->ok_n = u->n;
		u->ok_writes = u->writes;
		u->ok_last_dense = u->last_dense;
		u->ok_last_us = u->last_us;
	}
}

struct span {
	int64_t start, end, len;	/* ns; len: span + one mean interval */
	double rate;			/* (n - 1) / span, per second */
};

static struct span run_span(const struct srun *u)
{
	struct span s;
	int64_t d;

	s.start = u->first_b * SB_NS + (int64_t)u->first_us * 1000;
	s.end = u->last_dense * SB_NS + (int64_t)u->last_us * 1000;
	d = s.end - s.start;
	if (d < 1000)
		d = 1000;		/* the times' resolution: 1 us */
	s.len = u->n > 1 ? d + d / (int64_t)(u->n - 1) : d;
	s.rate = u->n > 1 ? (double)(u->n - 1) * 1e9 / (double)d : 0;
	return s;
}

static void ts(int64_t ns, char *b, size_t n)
{
	snprintf(b, n, "%" PRId64 ".%06" PRId64, ns / NSEC_PER_SEC,
		 ns % NSEC_PER_SEC / 1000);
}

static bool phase_describe(const struct an_find *f, const struct subj *s,
			   const struct srun *run, struct an_finding *o)
{
	struct srun held = *run, *u = &held;
	struct span sp;
	char a[64], t0[32], t1[32];

	/* the phase ends where it last held its ratio (srun_add) */
	u->n = run->ok_n;
	u->writes = run->ok_writes;
	u->last_dense = run->ok_last_dense;
	u->last_us = run->ok_last_us;
	sp = run_span(u);

	if (u->n < f->cfg.commit_min || !phase_ratio(f, u->n, u->writes))
		return false;
	o->kind = AN_F_COMMIT_STORM;
	o->meaning = an_find_meaning(AN_F_COMMIT_STORM);
	o->have_client = true;
	o->client = s->addr;
	o->start_ns = sp.start;
	o->end_ns = sp.end;
	o->count = u->n;
	ts(sp.start, t0, sizeof(t0));
	ts(sp.end, t1, sizeof(t1));
	snprintf(o->evidence, sizeof(o->evidence),
		 "%s: a phase from %s to %s (%.3f s): %" PRIu64 " COMMITs for %"
		 PRIu64 " WRITEs (%.2f per WRITE; rule: >= %g per WRITE in "
		 "%u ms windows, >= %u COMMITs); the client's whole run so "
		 "far: %" PRIu64 " COMMITs for %" PRIu64 " WRITEs",
		 an_find_astr(&s->addr, a), t0, t1, (double)sp.len / 1e9,
		 u->n, u->writes, u->writes ? (double)u->n / (double)u->writes
		 : 0.0, f->cfg.commit_per_write, win_buckets(f) * 10,
		 f->cfg.commit_min, s->st->commits, s->st->writes);
	return true;
}

/*
 * Describe run r of client s into o (zeroed): false if it does not
 * qualify.  Pure: for runs that close and for runs still going on.
 */
static bool run_describe(const struct an_find *f, const struct subj *s,
			 int r, struct an_finding *o)
{
	static const enum an_find_kind kind[] = {
		AN_F_GETATTR_STORM, AN_F_ACCESS_STORM, AN_F_LOOKUP_STORM,
		AN_F_COMMIT_STORM };
	static const char *const pname[] = { "GETATTR", "ACCESS", "LOOKUP",
		"COMMIT" };
	const struct srun *u = &s->st->run[r];
	uint32_t rate = run_rate(f, r);
	struct span sp;
	double share;
	char a[64], t0[32], t1[32];
	size_t n;

	if (u->n == 0)
		return false;
	if (r == R_PHASE)
		return phase_describe(f, s, u, o);
	sp = run_span(u);
	share = u->total ? (double)u->n / (double)u->total : 0;
	if (u->n < 2 || sp.rate < (double)rate ||
	    (r != R_COMMIT && share < f->cfg.storm_share) ||
	    ((u->last_dense - u->first_b + 1) * SB_NS <
	     (int64_t)f->cfg.storm_min_s * NSEC_PER_SEC &&
	     sp.rate < (double)rate * f->cfg.storm_burst))
		return false;
	o->kind = kind[r];
	o->meaning = an_find_meaning(kind[r]);
	o->have_client = true;
	o->client = s->addr;
	o->start_ns = sp.start;
	o->end_ns = sp.end;
	o->count = u->n;
	o->peak_rate = (double)u->peak * 1000.0 / (win_buckets(f) * 10);
	if (o->peak_rate < sp.rate)
		o->peak_rate = sp.rate;	/* shorter than the window */
	o->avg_rate = sp.rate;
	ts(sp.start, t0, sizeof(t0));
	ts(sp.end, t1, sizeof(t1));
	n = (size_t)snprintf(o->evidence, sizeof(o->evidence),
		 "%s %s: %" PRIu64 " calls in %.3f s from %s to %s (%.0f/s "
		 "avg over that span, peak %u in %u ms), %.0f%% of the "
		 "client's ops; rule: >= %u/s for >= %u s, or >= %u/s at any "
		 "length", an_find_astr(&s->addr, a), pname[r], u->n,
		 (double)sp.len / 1e9, t0, t1, sp.rate, u->peak,
		 win_buckets(f) * 10, share * 100, rate, f->cfg.storm_min_s,
		 rate * f->cfg.storm_burst);
	if (r == R_GETATTR && n < sizeof(o->evidence))
		an_find_reval_evidence(f, &s->addr, o, n);
	return true;
}

static void run_close(struct an_find *f, struct subj *s, int r)
{
	struct srun *u = &s->st->run[r];
	struct an_finding tmp, *o;

	if (!u->active)
		return;
	memset(&tmp, 0, sizeof(tmp));
	if (run_describe(f, s, r, &tmp) &&
	    (o = an_find_emit(f, tmp.kind)) != NULL)
		*o = tmp;
	memset(u, 0, sizeof(*u));
	assert(s->st->nactive > 0);
	s->st->nactive--;
}

static uint32_t gap_buckets(const struct an_find *f, int r)
{
	return (r == R_PHASE ? f->cfg.commit_gap_s : f->cfg.storm_gap_s) * 100;
}

/* The window ending at bucket b has been summed: start, extend or close
 * run r. */
static void storm_step(struct an_find *f, struct subj *s, int r, int64_t b)
{
	struct storms *st = s->st;
	struct srun *u = &st->run[r];
	bool hot = win_hot(f, st, r);
	int64_t k;

	if (u->active) {
		if (!hot && b - u->last_hot > (int64_t)gap_buckets(f, r)) {
			run_close(f, s, r);
			return;
		}
		srun_add(f, st, u, r, b);
	} else {
		if (!hot)
			return;
		u->active = true;
		st->nactive++;
		for (k = b - win_buckets(f) + 1; k <= b; k++)
			srun_add(f, st, u, r, k);
	}
	if (hot) {
		u->last_hot = b;
		if (r != R_PHASE && st->wsum[r] > u->peak)
			u->peak = st->wsum[r];
	}
}

/* Bucket b leaves the reorder horizon: slide the windows over it. */
static void bucket_close(struct an_find *f, struct subj *s, int64_t b)
{
	struct storms *st = s->st;
	const struct sbucket *in = bucket(st, b);
	const struct sbucket *out = bucket(st, b - win_buckets(f));
	int c, r;

	if (in->n[C_TOTAL] != 0 || out->n[C_TOTAL] != 0) {
		for (c = 0; c < C_N; c++)
			st->wsum[c] += in->n[c] - out->n[c];
		if (st->nactive == 0 && !any_hot(f, st))
			return;
	} else if (st->nactive == 0) {
		return;
	}
	for (r = 0; r < R_N; r++)
		storm_step(f, s, r, b);
}

/* Close every bucket still open and every run (end of input, or a jump
 * past the ring: then runs whose gap is not over by `next` stay). */
static void storms_close_all(struct an_find *f, struct subj *s, int64_t next)
{
	struct storms *st = s->st;
	int64_t b;
	int r;

	for (b = st->head - SB_HOR + 1; b <= st->head; b++)
		bucket_close(f, s, b);
	for (r = 0; r < R_N; r++)
		if (st->run[r].active &&
		    (next == INT64_MAX ||
		     next - st->run[r].last_hot > (int64_t)gap_buckets(f, r)))
			run_close(f, s, r);
	memset(st->b, 0, sizeof(st->b));
	memset(st->wsum, 0, sizeof(st->wsum));
}

void an_storm_count(struct an_find *f, struct subj *s, int64_t ns, int c)
{
	struct storms *st = s->st;
	int64_t b = ns / SB_NS;
	struct sbucket *x;
	uint16_t us;
	bool late = false;

	if (st == NULL) {
		if (f->nstorms >= f->cfg.storm_clients ||
		    (st = s->st = calloc(1, sizeof(*st))) == NULL) {
			f->storms_lost++;
			return;
		}
		f->nstorms++;
		st->head = b;
	}
	if (b > st->head + SB_RING) {
		storms_close_all(f, s, b - SB_HOR);
		st->head = b;
	}
	while (st->head < b) {
		int64_t cb = ++st->head - SB_HOR;

		/* an empty bucket leaving an empty window changes nothing
		 * unless a run waits for its gap to end (most of them) */
		if (bucket(st, cb)->n[C_TOTAL] |
		    bucket(st, cb - f->win_b)->n[C_TOTAL] | st->nactive)
			bucket_close(f, s, cb);
		memset(bucket(st, st->head), 0, sizeof(struct sbucket));
	}
	if (b <= st->head - SB_HOR) {
		b = st->head - SB_HOR + 1;	/* too late: the oldest open */
		late = true;
	}
	x = bucket(st, b);
	x->n[C_TOTAL]++;
	if (c < 0)
		return;
	if (c < C_TIMED) {
		us = late ? 0 : (uint16_t)(ns % SB_NS / 1000);
		if (x->n[c] == 0 || us < x->first_us[c])
			x->first_us[c] = us;
		if (x->n[c] == 0 || us > x->last_us[c])
			x->last_us[c] = us;
	}
	x->n[c]++;
	if (c == C_COMMIT)
		st->commits++;
	else if (c == C_WRITE)
		st->writes++;
}

void an_storm_finish(struct an_find *f, struct subj *s)
{
	if (s->st != NULL)
		storms_close_all(f, s, INT64_MAX);
}

size_t an_storm_ongoing(const struct an_find *f, const struct subj *s,
			struct an_finding *out, size_t max)
{
	size_t n = 0;
	int r;

	for (r = 0; s->st != NULL && r < R_N && n < max; r++) {
		if (!s->st->run[r].active)
			continue;
		memset(&out[n], 0, sizeof(out[n]));
		if (run_describe(f, s, r, &out[n]))
			n++;
	}
	return n;
}
