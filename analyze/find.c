/* find.c - findings: the detectors fed per op (storm and error-burst rate
 * runs, handle re-validation, NOENT repeats, retransmit causes); the
 * end-of-input verdicts are in verdict.c.  See find.h. */
#include "analyze/find_int.h"
#include "base/hash.h"
#include "base/units.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define emit an_find_emit
#define astr an_find_astr

static const char *const kind_names[AN_F_NKINDS] = {
	[AN_F_GETATTR_STORM] = "getattr_storm",
	[AN_F_ACCESS_STORM] = "access_storm",
	[AN_F_LOOKUP_STORM] = "lookup_storm",
	[AN_F_NOENT_REPEAT] = "noent_repeat",
	[AN_F_COMMIT_STORM] = "commit_storm",
	[AN_F_SIZE_CAPPED] = "size_capped",
	[AN_F_SYNC_EXPORT] = "sync_export",
	[AN_F_SERVER_RESTART] = "server_restart",
	[AN_F_ERROR_BURST] = "error_burst",
	[AN_F_RETRANSMITS] = "retransmits",
	[AN_F_SHORT_IO] = "short_io",
	[AN_F_SLOW_SERVER] = "slow_server",
	[AN_F_LATENCY_SHIFT] = "latency_shift",
	[AN_F_SYNC_CLIENT] = "sync_client",
	[AN_F_SLOW_PATH] = "slow_path",
	[AN_F_TCP_LOSS] = "tcp_loss",
	[AN_F_TCP_RESET] = "tcp_reset",
	[AN_F_TCP_STALL] = "tcp_stall",
};

const char *an_find_kind_name(enum an_find_kind k)
{
	return (unsigned)k < AN_F_NKINDS ? kind_names[k] : "unknown";
}

void an_find_config_default(struct an_find_config *c)
{
	memset(c, 0, sizeof(*c));
	c->getattr_rate = 500;
	c->access_rate = 500;
	c->lookup_rate = 500;
	c->storm_min_s = 3;
	c->storm_gap_s = 1;
	c->storm_share = 0.5;
	c->storm_window_ms = 1000;
	c->storm_burst = 10;
	c->reval_ms = 100;
	c->noent_repeat = 10;
	c->commit_rate = 200;
	c->commit_per_write = 0.5;
	c->commit_min = 50;
	c->commit_gap_s = 5;
	c->error_min = 5;
	c->error_gap_s = 5;
	c->sync_share = 0.9;
	c->sync_min = 20;
	c->sync_client_share = 0.5;
	c->sync_client_min = 20;
	c->size_share = AN_SIZE_SHARE_DEFAULT;
	c->short_io_min = 10;
	c->short_io_share = 0.05;
	c->slow_ms = 10;
	c->slow_min = 20;
	c->path_ms = 10;
	c->size_small = 16384;
	c->tcp_loss_share = 0.01;
	c->stall_min = 5;
	c->shift_interval_s = 10;
	c->shift_factor = 10;
	c->shift_min_ms = 10;
	c->shift_min_ops = 20;
	c->retrans_min = 10;
	c->retrans_share = 0.01;
	c->storm_clients = AN_FIND_STORMS;
}

struct an_find *an_find_new(const struct an_find_config *cfg)
{
	struct an_find *f = calloc(1, sizeof(*f));

	if (f == NULL)
		return NULL;
	if (cfg)
		f->cfg = *cfg;
	else
		an_find_config_default(&f->cfg);
	an_storm_setup(f);
	f->reval = calloc(REVAL_SLOTS, sizeof(*f->reval));
	f->noent = calloc(NOENT_SLOTS, sizeof(*f->noent));
	f->out = calloc(AN_FIND_MAX, sizeof(*f->out));
	f->vp = calloc(AN_FIND_PAIRS, sizeof(*f->vp));
	if (!f->reval || !f->noent || !f->out || !f->vp) {
		an_find_free(f);
		return NULL;
	}
	return f;
}

void an_find_free(struct an_find *f)
{
	uint32_t k;

	if (f == NULL)
		return;
	for (k = an_bit_next(f->subj_bits, AN_FIND_SUBJECTS, 0);
	     k < AN_FIND_SUBJECTS;
	     k = an_bit_next(f->subj_bits, AN_FIND_SUBJECTS, k + 1)) {
		free(f->subj[k].st);
		an_slow_free(&f->subj[k]);
		an_usual_free(&f->subj[k]);
	}
	free(f->vp);
	free(f->reval);
	free(f->noent);
	free(f->out);
	free(f);
}

size_t an_find_count(const struct an_find *f) { return f->nout; }
uint32_t an_find_size_small(const struct an_find *f)
{
	return f->cfg.size_small;
}
uint64_t an_find_dropped(const struct an_find *f) { return f->dropped; }

uint64_t an_find_unexamined(const struct an_find *f)
{
	return f->subj_dropped + f->storms_lost;
}

const struct an_finding *an_find_get(const struct an_find *f, size_t k)
{
	return k < f->nout ? &f->out[k] : NULL;
}

static uint64_t fh_hash(const struct nfs_fh *fh, uint64_t h)
{
	uint32_t i;

	for (i = 0; i < fh->len && i < NFS_FHSIZE_MAX; i++)
		h = (h ^ fh->data[i]) * BASE_FNV64_PRIME;
	return h;
}

static bool fh_eq(const struct nfs_fh *a, const struct nfs_fh *b)
{
	return a->len == b->len && memcmp(a->data, b->data, a->len) == 0;
}

/* ----------------------------------------------------- rate detectors -- */

/*
 * Describe the error burst of detector d of server s into o (zeroed).
 * False if it holds too few errors.  Pure: used when a burst closes and
 * for bursts still going on.
 */
static bool run_describe(const struct an_find *f, const struct subj *s,
			 int d, struct an_finding *o)
{
	static const char *const ename[] = { "JUKEBOX", "STALE", "ACCES",
		"NOSPC" };
	const struct run *r = &s->run[d];
	char a[64];

	if (r->count < f->cfg.error_min)
		return false;
	o->kind = AN_F_ERROR_BURST;
	o->meaning = an_find_meaning(AN_F_ERROR_BURST);
	o->have_server = true;
	o->server = s->addr;
	o->start_ns = r->start * NSEC_PER_SEC;
	o->end_ns = (r->last_hot + 1) * NSEC_PER_SEC;
	o->count = r->count;
	o->peak_rate = r->peak;
	snprintf(o->evidence, sizeof(o->evidence),
		 "server %s: %" PRIu64 " %s errors over %" PRId64
		 " s (peak %u/s)", astr(&s->addr, a), r->count,
		 ename[d], r->last_hot - r->start + 1, r->peak);
	return true;
}

static void run_close(struct an_find *f, struct subj *s, int d)
{
	struct an_finding tmp, *o;

	if (!s->run[d].active)
		return;
	s->run[d].active = false;
	memset(&tmp, 0, sizeof(tmp));
	if (!run_describe(f, s, d, &tmp))
		return;
	if ((o = an_find_emit(f, tmp.kind)) != NULL)
		*o = tmp;
}

size_t an_find_ongoing(const struct an_find *f, struct an_finding *out,
		       size_t max)
{
	size_t n = 0;
	uint32_t k;
	int d;

	for (k = an_bit_next(f->subj_bits, AN_FIND_SUBJECTS, 0);
	     k < AN_FIND_SUBJECTS && n < max;
	     k = an_bit_next(f->subj_bits, AN_FIND_SUBJECTS, k + 1)) {
		const struct subj *s = &f->subj[k];

		if (!s->used)
			continue;
		if (!s->is_server) {
			n += an_storm_ongoing(f, s, out + n, max - n);
			continue;
		}
		for (d = 0; s->started && d < D_N && n < max; d++) {
			if (!s->run[d].active)
				continue;
			memset(&out[n], 0, sizeof(out[n]));
			if (run_describe(f, s, d, &out[n]))
				n++;
		}
	}
	return n;
}

static void second_close(struct an_find *f, struct subj *s, int64_t t)
{
	uint32_t *c = s->ring[t & (RING - 1)];
	int d;

	for (d = 0; d < D_N; d++) {
		struct run *r = &s->run[d];
		int64_t gap = f->cfg.error_gap_s;

		if (c[d] > 0) {
			if (r->active && t - r->last_hot > gap + 1)
				run_close(f, s, d);
			if (!r->active) {
				memset(r, 0, sizeof(*r));
				r->active = true;
				r->start = t;
			}
			r->last_hot = t;
			if (c[d] > r->peak)
				r->peak = c[d];
		} else if (r->active && t - r->last_hot > gap) {
			run_close(f, s, d);
		}
		if (r->active)
			r->count += c[d];
	}
	memset(c, 0, sizeof(s->ring[0]));
}

static void subj_flush(struct an_find *f, struct subj *s)
{
	int64_t t;
	int d;

	for (t = s->head - RING + 1; t <= s->head; t++)
		second_close(f, s, t);
	for (d = 0; d < D_N; d++)
		run_close(f, s, d);
}

static void subj_count(struct an_find *f, struct subj *s, int64_t sec, int d)
{
	if (!s->started) {
		s->started = true;
		s->head = sec;
	}
	if (sec > s->head + 2 * RING) {
		subj_flush(f, s);
		s->head = sec;
	}
	while (s->head < sec) {
		s->head++;
		second_close(f, s, s->head - RING);
	}
	if (sec <= s->head - RING)
		sec = s->head - RING + 1;
	s->ring[sec & (RING - 1)][d]++;
}

/* ---------------------------------------------------------- per op -- */

static void reval_add(struct an_find *f, const struct an_op *op)
{
	uint64_t h = fh_hash(&op->fh, an_find_addr_hash(&op->client, 9));
	struct reval *r = &f->reval[h % REVAL_SLOTS];

	if (!r->n || !cap_addr_eq(&r->client, &op->client) ||
	    !fh_eq(&r->fh, &op->fh)) {
		memset(r, 0, sizeof(*r));
		r->client = op->client;
		r->fh = op->fh;
	} else if (op->first_call_ns - r->last_ns <=
		   (int64_t)f->cfg.reval_ms * 1000000) {
		r->fast++;
	}
	if (op->have & AN_HAVE_PATH)
		memcpy(r->path, op->path, sizeof(r->path));
	r->n++;
	r->last_ns = op->first_call_ns;
}

static void noent_add(struct an_find *f, const struct an_op *op)
{
	uint64_t h = fh_hash(&op->fh, an_find_addr_hash(&op->client, 13));
	struct noent *e;
	size_t nl = strnlen(op->name, NOENT_NAME - 1);

	h = fh_hash(&(struct nfs_fh){ .len = (uint32_t)nl }, h);
	{
		size_t i;

		for (i = 0; i < nl; i++)
			h = (h ^ (uint8_t)op->name[i]) * BASE_FNV64_PRIME;
	}
	e = &f->noent[h % NOENT_SLOTS];
	an_bit_set(f->noent_bits, (uint32_t)(h % NOENT_SLOTS));
	if (!e->n || !cap_addr_eq(&e->client, &op->client) ||
	    !fh_eq(&e->dir, &op->fh) || strncmp(e->name, op->name, nl) ||
	    e->name[nl] != '\0') {
		memset(e, 0, sizeof(*e));
		e->client = op->client;
		e->server = op->server;
		e->dir = op->fh;
		memcpy(e->name, op->name, nl);
		e->first_ns = op->first_call_ns;
	}
	if (op->have & AN_HAVE_PATH)
		memcpy(e->dir_path, op->path, sizeof(e->dir_path));
	e->n++;
	e->last_ns = op->first_call_ns;
}

static int32_t retrans_add(struct an_find *f, struct subj *s,
			   const struct an_op *op)
{
	int64_t ivl = op->retrans_ivl_first_ns;

	/* calls sent again on a new TCP connection are tcp_reset's (cause
	   TCP reconnect), not retransmits' */
	if (an_op_reconnect(op))
		return an_vantage_retrans(f, op);
	if (s->rx_ops == 0 || op->first_call_ns < s->rx_first)
		s->rx_first = op->first_call_ns;
	if (op->last_call_ns > s->rx_last)
		s->rx_last = op->last_call_ns;
	if (s->rx_ops == 0 || ivl < s->ivl_min)
		s->ivl_min = ivl;
	if (ivl > s->ivl_max)
		s->ivl_max = ivl;
	s->ivl_sum += (double)ivl;
	s->rx_ops++;
	s->rx += op->retrans;
	return an_vantage_retrans(f, op);
}

/* The storm count of an NFS op (C_*), or -1. */
static int storm_kind(const struct an_op *op)
{
	/* NFSv4: its main op as v3's (ops.h) */
	uint32_t p = op->vers == 4 ? an_nfs_v3proc(op->prog, 4, op->proc) :
		     op->proc;

	if (op->prog != PROG_NFS)
		return -1;
	if (op->vers == 3 || op->vers == 4)
		return p == NFS3_GETATTR ? C_GETATTR : p == NFS3_ACCESS ? C_ACCESS :
		       p == NFS3_LOOKUP ? C_LOOKUP : p == NFS3_COMMIT ? C_COMMIT :
		       p == NFS3_WRITE ? C_WRITE : -1;
	if (op->vers == 2)
		return p == NFS2_GETATTR ? C_GETATTR : p == NFS2_LOOKUP ? C_LOOKUP :
		       p == NFS2_WRITE ? C_WRITE : -1;
	return -1;
}

/* An answered NFS op's server side: latency, errors, NOENT repeats (d:
 * its storm count, C_*, or -1; c: its client's subject or NULL). */
static void answered_add(struct an_find *f, struct subj *c,
			 const struct an_op *op, int d)
{
	struct subj *s;

	if (op->prog != PROG_NFS || (op->vers != 2 && op->vers != 3) ||
	    !(op->flags & AN_OP_ANSWERED))
		return;
	/* an op known from its reply alone has no latency (decode/shape.c) */
	if ((s = an_find_subj(f, &op->server, true, true)) != NULL &&
	    !(op->flags & AN_OP_CALL_NOT_SEEN)) {
		an_slow_add(f, s, c, op);
		an_usual_add(s, op);
	}
	if (!(op->have & AN_HAVE_STATUS) || op->status == 0)
		return;
	if (d == C_LOOKUP && op->status == NFS3ERR_NOENT &&
	    (op->have & (AN_HAVE_FH | AN_HAVE_NAME)) == (AN_HAVE_FH | AN_HAVE_NAME))
		noent_add(f, op);
	d = op->status == NFS3ERR_JUKEBOX ? D_JUKEBOX :
	    op->status == NFS3ERR_STALE ? D_STALE :
	    op->status == NFS3ERR_ACCES ? D_ACCES :
	    op->status == NFS3ERR_NOSPC ? D_NOSPC : -1;
	if (d >= 0 && s != NULL)
		subj_count(f, s, op->first_call_ns / NSEC_PER_SEC, d);
}

int32_t an_find_add(struct an_find *f, const struct an_op *op)
{
	struct subj *c;
	int d = storm_kind(op);
	int32_t rx = -1;

	c = an_find_subj(f, &op->client, false, true);
	if (c != NULL) {
		c->ops++;
		an_storm_count(f, c, op->first_call_ns, d);
		if (op->retrans)
			rx = retrans_add(f, c, op);
	}
	if (d == C_GETATTR && (op->have & AN_HAVE_FH))
		reval_add(f, op);
	answered_add(f, c, op, d);
	an_tcp_stall_add(f, op);
	return rx;
}

void an_find_finish(struct an_find *f, const struct an_figs *figs,
		    uint64_t ipfrag_incomplete)
{
	uint32_t k;

	for (k = an_bit_next(f->subj_bits, AN_FIND_SUBJECTS, 0);
	     k < AN_FIND_SUBJECTS;
	     k = an_bit_next(f->subj_bits, AN_FIND_SUBJECTS, k + 1)) {
		if (f->subj[k].started)
			subj_flush(f, &f->subj[k]);
		an_storm_finish(f, &f->subj[k]);
	}
	an_slow_finish(f, figs);
	an_find_verdicts(f, figs, ipfrag_incomplete);
	f->finished = true;
}
