/* diff.c - two report models compared; see diff.h. */
#include "analyze/diff.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double an_diff_pct(double a, double b)
{
	return a > 0 ? (b - a) / a * 100.0 : NAN;
}

const char *an_diff_size_name(uint32_t size, char *buf, size_t n)
{
	if (size && size % 1024 == 0)
		snprintf(buf, n, "%uk", size / 1024);
	else
		snprintf(buf, n, "%u", size);
	return buf;
}

/* --------------------------------------------------------- procedures -- */

static void side_of(const struct an_model_row *w, struct an_diff_side *s)
{
	s->calls = w->row->calls;
	s->errors = w->row->errors;
	s->unanswered = w->row->unanswered;
	s->retrans = w->row->retrans;
	s->answered = w->row->answered;
	s->ops_per_s = w->ops_per_s;
	s->p50_ms = w->lat.p50_ms;
	s->p95_ms = w->lat.p95_ms;
	s->p99_ms = w->lat.p99_ms;
}

static int proc_cmp(const void *x, const void *y)
{
	const struct an_diff_proc *a = x, *b = y;

	if (a->prog != b->prog)
		return a->prog < b->prog ? -1 : 1;
	if (a->vers != b->vers)
		return a->vers < b->vers ? -1 : 1;
	return a->proc < b->proc ? -1 : a->proc > b->proc;
}

static struct an_diff_proc *proc_get(struct an_diff *d, const struct an_row *r)
{
	uint32_t k;

	for (k = 0; k < d->nprocs; k++)
		if (d->procs[k].prog == r->prog && d->procs[k].vers == r->vers &&
		    d->procs[k].proc == r->proc)
			return &d->procs[k];
	d->procs[k].prog = r->prog;
	d->procs[k].vers = r->vers;
	d->procs[k].proc = r->proc;
	d->nprocs++;
	return &d->procs[k];
}

static int build_procs(struct an_diff *d)
{
	uint32_t na = d->a->nrows[AN_BY_OP], nb = d->b->nrows[AN_BY_OP], k;

	d->procs = calloc((size_t)na + nb + 1, sizeof(*d->procs));
	if (d->procs == NULL)
		return -1;
	for (k = 0; k < na; k++)
		if (d->a->rows[AN_BY_OP][k].row->proc != AN_PROC_ALL)
			side_of(&d->a->rows[AN_BY_OP][k],
				&proc_get(d, d->a->rows[AN_BY_OP][k].row)->a);
	for (k = 0; k < nb; k++)
		if (d->b->rows[AN_BY_OP][k].row->proc != AN_PROC_ALL)
			side_of(&d->b->rows[AN_BY_OP][k],
				&proc_get(d, d->b->rows[AN_BY_OP][k].row)->b);
	qsort(d->procs, d->nprocs, sizeof(*d->procs), proc_cmp);
	for (k = 0; k < d->nprocs; k++) {
		struct an_diff_proc *p = &d->procs[k];
		bool lat = p->a.answered && p->b.answered;

		p->d_ops_pct = an_diff_pct(p->a.ops_per_s, p->b.ops_per_s);
		p->d_p50_pct = lat ? an_diff_pct(p->a.p50_ms, p->b.p50_ms) : NAN;
		p->d_p95_pct = lat ? an_diff_pct(p->a.p95_ms, p->b.p95_ms) : NAN;
		p->d_p99_pct = lat ? an_diff_pct(p->a.p99_ms, p->b.p99_ms) : NAN;
	}
	return 0;
}

/* -------------------------------------------------------------- sizes -- */

/* Every distinct size of both sides, while they are gathered. */
struct sizes_all {
	struct an_diff_size *s;
	size_t n, max;
};

static void size_add(struct sizes_all *z, uint32_t size, uint64_t n, bool b)
{
	size_t k;

	for (k = 0; k < z->n && z->s[k].size != size; k++)
		;
	if (k == z->n) {
		if (z->n == z->max)	/* sized to hold every size: never */
			return;
		z->s[z->n++].size = size;
	}
	*(b ? &z->s[k].b : &z->s[k].a) += n;
}

static int size_cmp(const void *x, const void *y)
{
	const struct an_diff_size *a = x, *b = y;

	return a->size < b->size ? -1 : a->size > b->size;
}

/* Most calls (both sides) first; ties: the smaller size. */
static int size_calls_cmp(const void *x, const void *y)
{
	const struct an_diff_size *a = x, *b = y;

	if (a->a + a->b != b->a + b->b)
		return a->a + a->b > b->a + b->b ? -1 : 1;
	return size_cmp(x, y);
}

/* Distinct sizes a model's pairs hold for READ (write false) or WRITE. */
static size_t sizes_count(const struct an_model *m, bool write)
{
	size_t n = 0;
	uint32_t k;

	for (k = 0; k < m->npairs; k++)
		n += write ? m->pairs[k].pair->write.nsizes :
			     m->pairs[k].pair->read.nsizes;
	return n;
}

/* The pairs' READ or WRITE sizes of one model into z. */
static void sizes_of(const struct an_model *m, bool write, bool b,
		     struct sizes_all *z, struct an_diff_sizes *out)
{
	uint32_t k, i;

	for (k = 0; k < m->npairs; k++) {
		const struct an_sizes *s = write ? &m->pairs[k].pair->write :
						   &m->pairs[k].pair->read;

		for (i = 0; i < s->nsizes; i++)
			size_add(z, s->s[i].size, s->s[i].n, b);
		*(b ? &out->other_b : &out->other_a) += s->other;
		*(b ? &out->total_b : &out->total_a) += s->total;
	}
}

/* The most used size of one side (ties: the larger). */
static uint32_t size_dominant(const struct sizes_all *z, bool b)
{
	uint64_t best = 0;
	uint32_t size = 0;
	size_t k;

	for (k = 0; k < z->n; k++) {
		uint64_t n = b ? z->s[k].b : z->s[k].a;

		if (n && (n > best || (n == best && z->s[k].size > size))) {
			best = n;
			size = z->s[k].size;
		}
	}
	return size;
}

/* What a side's dominant size dom got: less when a pair's transfers came
 * back short and the server never granted as much (a clamp). */
static uint32_t size_granted(const struct an_model *m, bool write,
			     uint32_t dom)
{
	uint32_t k, g = dom;

	for (k = 0; k < m->npairs; k++) {
		const struct an_pair *p = m->pairs[k].pair;
		uint64_t nshort = write ? p->short_writes : p->short_reads;
		uint32_t most = write ? p->write_granted_max :
					p->read_granted_max;

		if (nshort > 0 && most > 0 && most < g)
			g = most;
	}
	return g;
}

/* Both sides' sizes: the AN_DIFF_SIZES most used, by size; the rest in
 * other. */
static int build_sizes(struct an_diff *d, bool write, struct an_diff_sizes *out)
{
	struct sizes_all z;
	size_t k;

	z.max = sizes_count(d->a, write) + sizes_count(d->b, write);
	z.n = 0;
	z.s = calloc(z.max + 1, sizeof(*z.s));
	if (z.s == NULL)
		return -1;
	sizes_of(d->a, write, false, &z, out);
	sizes_of(d->b, write, true, &z, out);
	out->dominant_a = size_dominant(&z, false);
	out->dominant_b = size_dominant(&z, true);
	out->granted_a = size_granted(d->a, write, out->dominant_a);
	out->granted_b = size_granted(d->b, write, out->dominant_b);
	qsort(z.s, z.n, sizeof(*z.s), size_calls_cmp);
	for (k = 0; k < z.n; k++) {
		if (k < AN_DIFF_SIZES) {
			out->s[out->n++] = z.s[k];
		} else {
			out->other_a += z.s[k].a;
			out->other_b += z.s[k].b;
		}
	}
	qsort(out->s, out->n, sizeof(out->s[0]), size_cmp);
	free(z.s);
	return 0;
}

/* ------------------------------------------------------------- totals -- */

static void totals_of(const struct an_model *m, struct an_diff_totals *t)
{
	uint32_t k, c;

	t->ops = m->totals->ops;
	t->errors = m->totals->errors;
	t->unanswered = m->totals->unanswered;
	t->retrans = m->totals->retrans;
	t->dup_replies = m->totals->dup_replies;
	t->ops_per_s = m->ops_per_s;
	t->duration_s = m->duration_s;
	t->complete = m->complete;
	if (m->in.cs) {
		t->udp_msgs = m->in.cs->udp_msgs;
		t->tcp_msgs = m->in.cs->tcp_msgs;
	}
	for (k = 0; k < m->nrows[AN_BY_OP]; k++)
		if (m->rows[AN_BY_OP][k].row->proc != AN_PROC_ALL &&
		    m->duration_s > 0)
			t->data_kib_per_s += (double)m->rows[AN_BY_OP][k].row->
					     data_bytes / 1024 / m->duration_s;
	for (k = 0; k < m->npairs; k++) {
		const struct an_model_pair *p = &m->pairs[k];

		t->writes += p->pair->writes;
		t->commits += p->pair->commits;
		if (p->has_vantage)
			for (c = 0; c < AN_RX_NCAUSES; c++)
				t->cause[c] += p->vantage.cause[c];
	}
	t->commits_per_write = t->writes ? (double)t->commits /
					   (double)t->writes : 0;
}

/* ----------------------------------------------------------- findings -- */

static bool finding_same(const struct an_finding *x,
			 const struct an_finding *y)
{
	return x->kind == y->kind && x->have_client == y->have_client &&
	       x->have_server == y->have_server && x->have_fh == y->have_fh &&
	       (!x->have_client || cap_addr_eq(&x->client, &y->client)) &&
	       (!x->have_server || cap_addr_eq(&x->server, &y->server)) &&
	       (!x->have_fh || (x->fh.len == y->fh.len &&
				memcmp(x->fh.data, y->fh.data, x->fh.len) == 0));
}

/* The findings of `of` that `other` has none like. */
static void findings_only(struct an_diff *d, const struct an_model *of,
			  const struct an_model *other, bool appears)
{
	size_t k, i;

	for (k = 0; k < of->nfindings; k++) {
		for (i = 0; i < other->nfindings; i++)
			if (finding_same(of->findings[k], other->findings[i]))
				break;
		if (i == other->nfindings) {
			d->findings[d->nfindings].f = of->findings[k];
			d->findings[d->nfindings++].appears = appears;
		}
	}
}

/* ------------------------------------------------------------ verdict -- */

/* The procedure the verdict's latency speaks of: READ, else WRITE, else
 * the one with the most calls on both sides (NULL: none answered). */
static const struct an_diff_proc *key_proc(const struct an_diff *d)
{
	static const uint32_t pref[] = { 6, 7 };	/* NFSv3 READ, WRITE */
	const struct an_diff_proc *best = NULL;
	uint32_t k, i;

	for (i = 0; i < 2; i++)
		for (k = 0; k < d->nprocs; k++)
			if (d->procs[k].prog == 100003 &&
			    d->procs[k].vers == 3 &&
			    d->procs[k].proc == pref[i] &&
			    !isnan(d->procs[k].d_p99_pct))
				return &d->procs[k];
	for (k = 0; k < d->nprocs; k++)
		if (!isnan(d->procs[k].d_p99_pct) &&
		    (best == NULL || d->procs[k].a.calls + d->procs[k].b.calls >
		     best->a.calls + best->b.calls))
			best = &d->procs[k];
	return best;
}

static const char *transport_of(const struct an_diff_totals *t)
{
	if (t->udp_msgs == 0 && t->tcp_msgs == 0)
		return NULL;
	return t->udp_msgs > t->tcp_msgs ? "UDP" : "TCP";
}

struct vb {
	char *p;
	size_t n, off;
	const char *sep;	/* before the next clause */
};

static void vb_add(struct vb *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void vb_add(struct vb *v, const char *fmt, ...)
{
	va_list ap;
	int w;

	if (v->off >= v->n)
		return;
	w = snprintf(v->p + v->off, v->n - v->off, "%s", v->sep);
	v->off += w > 0 ? (size_t)w : 0;
	if (v->off >= v->n)
		return;
	va_start(ap, fmt);
	w = vsnprintf(v->p + v->off, v->n - v->off, fmt, ap);
	va_end(ap);
	v->off += w > 0 ? (size_t)w : 0;
	v->sep = ", ";
}

/* A change in per cent as words: "-41%", "+3%", or "unchanged" within
 * the percentiles' error. */
static void pct_words(double pct, double err, char *b, size_t n)
{
	if (fabs(pct) <= err)
		snprintf(b, n, "unchanged (within %.1f%%)", err);
	else
		snprintf(b, n, "%+.0f%%", pct);
}

static void size_clause(struct vb *v, const char *op,
			const struct an_diff_sizes *z)
{
	char a[24], b[24], c[24];

	/* the sizes granted decide (issue 30): a client asking more of a
	   server that still grants the same moved nothing more */
	if (z->granted_b == 0 || (z->granted_a == z->granted_b &&
				  z->dominant_a == z->dominant_b))
		return;
	an_diff_size_name(z->granted_b, b, sizeof(b));
	if (z->granted_a == z->granted_b)
		vb_add(v, "%s %ss as before (asked %s, was %s)", b, op,
		       an_diff_size_name(z->dominant_b, c, sizeof(c)),
		       an_diff_size_name(z->dominant_a, a, sizeof(a)));
	else if (z->granted_a)
		vb_add(v, "%s %ss (was %s)", b, op,
		       an_diff_size_name(z->granted_a, a, sizeof(a)));
	else
		vb_add(v, "%s %ss (none before)", b, op);
}

static void build_verdict(struct an_diff *d)
{
	struct vb v = { d->verdict, sizeof(d->verdict), 0, "after: " };
	const char *ta = transport_of(&d->ta), *tb = transport_of(&d->tb);
	const struct an_diff_proc *kp = key_proc(d);
	size_t k, appear = 0;
	char pct[48], name[64];

	if (ta && tb && strcmp(ta, tb) != 0)
		vb_add(&v, "%s (was %s)", tb, ta);
	size_clause(&v, "READ", &d->read);
	size_clause(&v, "WRITE", &d->write);
	if (kp) {
		pct_words(kp->d_p99_pct, 2 * AN_DIFF_PCT_ERR, pct, sizeof(pct));
		vb_add(&v, "%s p99 %s", an_model_proc_name(kp->prog, kp->vers,
							   kp->proc, name,
							   sizeof(name)),
		       pct);
	}
	if (!isnan(an_diff_pct(d->ta.ops_per_s, d->tb.ops_per_s))) {
		pct_words(an_diff_pct(d->ta.ops_per_s, d->tb.ops_per_s), 0.5,
			  pct, sizeof(pct));
		vb_add(&v, "ops/s %s", pct);
	}
	if (d->ta.data_kib_per_s > 0 && d->tb.data_kib_per_s > 0) {
		pct_words(an_diff_pct(d->ta.data_kib_per_s, d->tb.data_kib_per_s),
			  0.5, pct, sizeof(pct));
		vb_add(&v, "data kB/s %s", pct);
	}
	if (d->ta.retrans != d->tb.retrans)
		vb_add(&v, "retransmissions %llu -> %llu",
		       (unsigned long long)d->ta.retrans,
		       (unsigned long long)d->tb.retrans);
	if (fabs(d->ta.commits_per_write - d->tb.commits_per_write) >= 0.05 &&
	    d->ta.writes && d->tb.writes)
		vb_add(&v, "COMMITs per WRITE %.2f -> %.2f",
		       d->ta.commits_per_write, d->tb.commits_per_write);
	for (k = 0; k < d->nfindings; k++)
		appear += d->findings[k].appears;
	if (d->nfindings)
		vb_add(&v, "findings %zu new, %zu gone", appear,
		       d->nfindings - appear);
	if (v.off == 0)
		snprintf(d->verdict, sizeof(d->verdict), "no difference");
}

/* ---------------------------------------------------------------- api -- */

int an_diff_build(struct an_diff *d, const struct an_model *a,
		  const struct an_model *b)
{
	memset(d, 0, sizeof(*d));
	d->a = a;
	d->b = b;
	totals_of(a, &d->ta);
	totals_of(b, &d->tb);
	d->findings = calloc(a->nfindings + b->nfindings + 1,
			     sizeof(*d->findings));
	if (d->findings == NULL || build_procs(d) < 0) {
		an_diff_fini(d);
		return -1;
	}
	if (build_sizes(d, false, &d->read) < 0 ||
	    build_sizes(d, true, &d->write) < 0) {
		an_diff_fini(d);
		return -1;
	}
	findings_only(d, a, b, false);
	findings_only(d, b, a, true);
	build_verdict(d);
	return 0;
}

void an_diff_fini(struct an_diff *d)
{
	free(d->procs);
	free(d->findings);
	d->procs = NULL;
	d->findings = NULL;
	d->nprocs = 0;
	d->nfindings = 0;
}
