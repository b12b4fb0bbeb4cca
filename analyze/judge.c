/*
 * judge.c - the verdict and the findings' impact; see judge.h and
 * doc/report.md ("The verdict").
 */
#include "analyze/judge.h"
#include "analyze/model.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const an_size_state_names[AN_SZ_N] = {
	[AN_SZ_AS_NEGOTIATED] = "as_negotiated",
	[AN_SZ_SMALL_MAX] = "small_maximum",
	[AN_SZ_CLAMPED] = "clamped",
	[AN_SZ_BELOW_MAX] = "below_maximum",
	[AN_SZ_SMALLER] = "mostly_smaller",
	[AN_SZ_NO_EVIDENCE] = "no_evidence",
	[AN_SZ_NO_LIMIT] = "maximum_unknown",
};

/* ------------------------------------------------------------- lines -- */

static void line(struct an_verdict *v, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A line of the verdict; one too long for its column goes on at word
 * boundaries on lines of the same key, indented 2 more (a long IPv6
 * address must not cut off the word that answers). */
static void line(struct an_verdict *v, const char *key, const char *fmt, ...)
{
	const size_t width = AN_VERDICT_COLS - AN_VERDICT_KEY - 1;
	char b[4 * AN_VERDICT_COLS];
	const char *p = b;
	size_t indent = 0, in;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b, sizeof(b), fmt, ap);
	va_end(ap);
	while (b[indent] == ' ')
		indent++;
	for (in = 0; *p && v->nlines < AN_VERDICT_LINES; in = indent + 2) {
		size_t n = strlen(p), cut;

		if (in + n > width) {	/* the last space that fits */
			for (cut = width - in; cut > 0 && p[cut] != ' '; cut--)
				;
			n = cut > 0 ? cut : width - in;
		}
		snprintf(v->line[v->nlines], AN_VERDICT_COLS - AN_VERDICT_KEY,
			 "%*s%.*s", (int)in, "", (int)n, p);
		v->key[v->nlines++] = key;
		for (p += n; *p == ' '; p++)
			;
	}
}

/* ------------------------------------------------------------- sizes -- */

/* The limit of p's READs (WRITEs); *session the session's fore channel
 * size when its room is that limit (an_size_limit names it so), else 0. */
static uint32_t limit_of(const struct an_pair *p, const struct an_server *srv,
			 bool w, uint32_t *session)
{
	char name[64];
	uint32_t lim = an_size_limit(p, srv, w, name, sizeof(name));

	*session = strstr(name, "of its session") ?
		   (w ? p->sess_maxreq : p->sess_maxresp) : 0;
	return lim;
}

static bool size_of(const struct an_model *m, const struct an_model_pair *q,
		    bool w, struct an_verdict_size *o)
{
	const struct an_pair *p = q->pair;
	const struct an_sizes *s = w ? &p->write : &p->read;
	const struct an_sizes *r = w ? &p->write_rep : &p->read_rep;
	uint64_t dn = 0, nshort = w ? p->short_writes : p->short_reads;
	uint32_t small = 16384;

	memset(o, 0, sizeof(*o));
	o->calls = s->total + r->total;
	if (o->calls == 0)
		return false;
	o->client = p->client;
	o->server = p->server;
	o->write = w;
	o->size = an_sizes_dominant(s->total ? s : r, &dn);
	o->pct = (uint32_t)(dn * 100 / (s->total ? s->total : r->total));
	o->asked_max = s->max > r->max ? s->max : r->max;
	o->granted_max = w ? p->write_granted_max : p->read_granted_max;
	o->limit = limit_of(p, q->server, w, &o->session);
	if (m->in.find)
		small = an_find_size_small(m->in.find);
	if (nshort > 0 && o->granted_max < s->max)
		o->state = AN_SZ_CLAMPED;
	else if (o->limit == 0)
		o->state = AN_SZ_NO_LIMIT;
	else if (o->asked_max >= o->limit && o->size == o->limit &&
		 o->pct >= m->in.size_share)
		o->state = o->limit <= small ? AN_SZ_SMALL_MAX :
			   AN_SZ_AS_NEGOTIATED;
	else if (o->asked_max < o->limit &&
		 (o->asked_max < 4096 || (!w && p->read_eof * 2 >= p->reads)))
		o->state = AN_SZ_NO_EVIDENCE;
	else if (o->asked_max < o->limit)
		o->state = AN_SZ_BELOW_MAX;
	else
		o->state = AN_SZ_SMALLER;
	return true;
}

/* The maximum s's size is held to, in the verdict's words: the server's,
 * or the NFSv4.1 session's fore channel when its room is the limit
 * (small: "session's small maxresp 17408", else "session maxresp N"). */
static const char *limit_name(const struct an_verdict_size *s, bool small,
			      char *b, size_t n)
{
	if (!s->session)
		return small ? "the server's small maximum" :
			       "the server's maximum";
	snprintf(b, n, "session%s %s %u", small ? "'s small" : "",
		 s->write ? "maxreq" : "maxresp", s->session);
	return b;
}

static void size_line(struct an_verdict *v, const struct an_verdict_size *s)
{
	const char *op = s->write ? "WRITE" : "READ ";
	const char *whose = s->session ? "session's" : "server's";
	char a[32], b[32], c[48];

	an_size_str(s->size, a, sizeof(a));
	an_size_str(s->limit, b, sizeof(b));
	switch (s->state) {
	case AN_SZ_AS_NEGOTIATED:
		line(v, "sizes", "%s %s in %u%% of %" PRIu64 ": as negotiated, "
		     "%s", op, a, s->pct, s->calls,
		     limit_name(s, false, c, sizeof(c)));
		break;
	case AN_SZ_SMALL_MAX:
		line(v, "sizes", "%s %s in %u%% of %" PRIu64 ": %s, "
		     "%u RPCs/MiB", op, a, s->pct, s->calls,
		     limit_name(s, true, c, sizeof(c)),
		     s->limit ? 1048576 / s->limit : 0);
		break;
	case AN_SZ_CLAMPED:
		line(v, "sizes", "%s asks %s, gets %s: the server clamps it",
		     op, an_size_str(s->asked_max, a, sizeof(a)),
		     an_size_str(s->granted_max, b, sizeof(b)));
		break;
	case AN_SZ_BELOW_MAX:
		line(v, "sizes", "%s %s in %u%% of %" PRIu64 ": under the "
		     "%s %s (client %s or app)", op, a, s->pct, s->calls, whose,
		     b, s->write ? "wsize" : "rsize");
		break;
	case AN_SZ_SMALLER:
		line(v, "sizes", "%s %s in %u%% of %" PRIu64 ": mostly under "
		     "the %s %s (small I/O)", op, a, s->pct, s->calls, whose, b);
		break;
	case AN_SZ_NO_EVIDENCE:
		line(v, "sizes", "%s %s in %u%% of %" PRIu64 ": small files, "
		     "no evidence of %s", op, a, s->pct, s->calls,
		     s->write ? "wsize" : "rsize");
		break;
	default:
		line(v, "sizes", "%s %s in %u%% of %" PRIu64 ": the server's "
		     "maximum not seen (no FSINFO)", op, a, s->pct, s->calls);
		break;
	}
}

static void judge_sizes(const struct an_model *m, struct an_verdict *v)
{
	uint32_t k, shown = 0, most, n[AN_SZ_N] = { 0 }, more = 0;
	char a[64], b[64];

	for (k = 0; k < m->npairs; k++)	/* pairs with READs or WRITEs */
		more += m->pairs[k].pair->read.total + m->pairs[k].pair->read_rep.total +
			m->pairs[k].pair->write.total + m->pairs[k].pair->write_rep.total > 0;
	most = more > 2 ? 1 : 2;	/* many pairs: one, and the others' states */
	for (k = 0; k < m->npairs; k++) {
		const struct an_model_pair *q = &m->pairs[k];
		struct an_verdict_size s[2];
		bool r = size_of(m, q, false, &s[0]);
		bool w = size_of(m, q, true, &s[1]);

		if (!r && !w)
			continue;
		v->size_pairs++;
		if (r && v->nsize < AN_VERDICT_SIZES)
			v->size[v->nsize++] = s[0];
		if (w && v->nsize < AN_VERDICT_SIZES)
			v->size[v->nsize++] = s[1];
		if (shown++ >= most) {
			n[s[0].state] += r;
			n[s[1].state] += w;
			continue;
		}
		line(v, "sizes", "%s -> %s", cap_addr_str(&q->pair->client, a,
		     sizeof(a)), cap_addr_str(&q->pair->server, b, sizeof(b)));
		if (r)
			size_line(v, &s[0]);
		if (w)
			size_line(v, &s[1]);
	}
	if (shown > most) {
		char t[160];
		size_t o = 0;
		uint32_t i;

		for (i = 0; i < AN_SZ_N && o < sizeof(t); i++)
			if (n[i])
				o += (size_t)snprintf(t + o, sizeof(t) - o, "%s%s %u",
						      o ? ", " : "",
						      an_size_state_names[i], n[i]);
		line(v, "sizes", "%u more pairs: %s", shown - most, t);
	}
	if (shown == 0)
		line(v, "sizes", "no READ or WRITE seen");
}

/* -------------------------------------------------------------- time -- */

static const struct an_row *server_row(const struct an_model *m,
				       const struct cap_addr *a)
{
	uint32_t k;

	for (k = 0; k < an_figs_nrows(m->in.figs, AN_BY_SERVER); k++) {
		const struct an_row *w = an_figs_row(m->in.figs, AN_BY_SERVER,
						     k);

		if (w->proc == AN_PROC_ALL && cap_addr_eq(&w->addr, a))
			return w;
	}
	return NULL;
}

/* Has server a a slow_server finding? */
static bool slow_server(const struct an_model *m, const struct cap_addr *a)
{
	size_t k;

	for (k = 0; k < an_find_count(m->in.find); k++) {
		const struct an_finding *o = an_find_get(m->in.find, k);

		if (o->kind == AN_F_SLOW_SERVER && o->have_server &&
		    cap_addr_eq(&o->server, a))
			return true;
	}
	return false;
}

static void time_of(const struct an_model *m, const struct an_row *w,
		    struct an_verdict_time *t)
{
	struct an_path pt;
	double fast = 1.0;

	memset(t, 0, sizeof(*t));
	t->server = w->addr;
	t->ops = w->lat_last.count;
	t->rpc_ms = an_ms(hist_percentile(&w->lat_last, 50));
	t->path_known = an_find_path(m->in.find, NULL, &w->addr, &pt);
	an_path_clamp(&pt, (int64_t)w->lat_last.min);
	t->srv_path_ms = pt.srv_ns > 0 ? an_ms((uint64_t)pt.srv_ns) : 0;
	t->cli_path_ms = pt.cli_ns > 0 ? an_ms((uint64_t)pt.cli_ns) : 0;
	t->path_ms = t->srv_path_ms + t->cli_path_ms;
	t->own_ms = t->rpc_ms - t->srv_path_ms;
	if (t->own_ms < 0)
		t->own_ms = 0;
	if (!t->path_known)
		t->where = t->own_ms < fast ? "fast" :
			   "server (path not measured)";
	else if (t->own_ms < fast && t->path_ms < fast)
		t->where = "fast";
	else
		t->where = t->own_ms >= t->path_ms ? "server" : "path";
	an_find_queued(m->in.find, &w->addr, &t->queued_pct, &t->server_pct);
	if (t->queued_pct > t->server_pct && t->own_ms >= fast &&
	    strncmp(t->where, "server", 6) == 0 && !slow_server(m, &w->addr))
		t->where = "queue";
}

static void judge_time(const struct an_model *m, struct an_verdict *v)
{
	uint32_t k, j;
	char a[64];

	for (k = 0; k < an_figs_nrows(m->in.figs, AN_BY_SERVER); k++) {
		const struct an_row *w = an_figs_row(m->in.figs, AN_BY_SERVER, k);
		struct an_verdict_time t;

		if (w->proc != AN_PROC_ALL || w->lat_last.count == 0 ||
		    server_row(m, &w->addr) != w)
			continue;
		v->time_servers++;
		time_of(m, w, &t);
		for (j = v->ntime; j > 0 && v->time[j - 1].ops < t.ops; j--)
			if (j < AN_VERDICT_TIMES)
				v->time[j] = v->time[j - 1];
		if (j < AN_VERDICT_TIMES) {
			v->time[j] = t;
			if (v->ntime < AN_VERDICT_TIMES)
				v->ntime++;
		}
	}
	for (k = 0; k < v->ntime && k < 2; k++) {
		const struct an_verdict_time *t = &v->time[k];

		cap_addr_str(&t->server, a, sizeof(a));
		if (t->path_known)
			line(v, "time", "%s: RPC p50 %.2f ms = server %.2f + "
			     "path %.2f: %s", a, t->rpc_ms, t->own_ms,
			     t->srv_path_ms, strcmp(t->where, "fast") == 0 ?
			     "fast" : strcmp(t->where, "path") == 0 ?
			     "the path" : strcmp(t->where, "queue") == 0 ?
			     "queueing" : "the server");
		else
			line(v, "time", "%s: RPC p50 %.2f ms (no TCP timing: "
			     "path not split)%s", a, t->rpc_ms,
			     strcmp(t->where, "queue") == 0 ? ": queueing" : "");
		if (strcmp(t->where, "queue") == 0)
			line(v, "time", "  pipelined: %.0f%% of the wait is for "
			     "the replies ahead, %.0f%% their own",
			     t->queued_pct, t->server_pct);
		if (t->path_known && t->cli_path_ms >= 1.0)
			line(v, "time", "  clients wait %.2f ms more on their "
			     "side of the capture point", t->cli_path_ms);
	}
	if (v->time_servers > 2)
		line(v, "time", "and %u more servers", v->time_servers - 2);
	if (v->time_servers == 0)
		line(v, "time", "no answered NFS operation");
}

/* -------------------------------------------------------------- loss -- */

static void judge_loss(const struct an_model *m, struct an_verdict *v)
{
	struct an_verdict_loss *l = &v->loss;
	uint32_t k, d, c;

	l->tcp = an_find_tcp_health(m->in.find, NULL, NULL, &l->h);
	for (d = 0; d < 2; d++) {
		l->lost[d] = l->h.resent[d] > l->h.dupack_loss[d] ?
			     l->h.resent[d] : l->h.dupack_loss[d];
		l->lost_pct[d] = l->h.segs[d] ? 100.0 * (double)l->lost[d] /
			(double)l->h.segs[d] : 0;
	}
	l->ipfrag_incomplete = m->in.cs->ipfrag_incomplete;
	for (k = 0; k < m->npairs; k++)
		for (c = 0; m->pairs[k].has_vantage && c < AN_RX_NCAUSES; c++)
			l->cause[c] += m->pairs[k].vantage.cause[c];
	l->udp_retrans_ops = 0;
	for (c = 0; c < AN_RX_NCAUSES; c++)
		if (c != AN_RX_TCP)
			l->udp_retrans_ops += l->cause[c];
	l->udp_ops = m->totals->ops > l->h.tcp_ops ? m->totals->ops -
		     l->h.tcp_ops : 0;
	l->udp = l->udp_ops > 0 && l->udp_retrans_ops > 0;
	/* at the receiving end a loss shows only by a hole or duplicate ACKs
	   (a lost last segment leaves neither): a lower bound */
	if (l->tcp && l->h.segs[0] + l->h.segs[1])
		line(v, "loss", "TCP segments lost %s%.1f%% client->server, "
		     "%s%.1f%% back; %" PRIu64 " resets",
		     v->vantage == AN_VP_SERVER && l->lost[0] ? "at least " : "",
		     l->lost_pct[0],
		     v->vantage == AN_VP_CLIENT && l->lost[1] ? "at least " : "",
		     l->lost_pct[1], l->h.rsts[0] + l->h.rsts[1]);
	if (l->udp) {
		l->udp_resent_pct = 100.0 * (double)l->udp_retrans_ops /
				    (double)l->udp_ops;
		l->udp_lost_reply_pct = 100.0 * (double)(l->cause[AN_RX_LOST_REPLY] +
				       l->cause[AN_RX_FRAG]) / (double)l->udp_ops;
		l->udp_lost_call_pct = 100.0 * (double)l->cause[AN_RX_LOST] /
				       (double)l->udp_ops;
		line(v, "loss", "UDP resent %.1f%% (%" PRIu64 "): replies lost "
		     "%.1f%%, %s %.1f%%, slow %" PRIu64,
		     l->udp_resent_pct, l->udp_retrans_ops,
		     l->udp_lost_reply_pct, v->vantage == AN_VP_SERVER ?
		     "calls" : "call|reply", l->udp_lost_call_pct,
		     l->cause[AN_RX_SLOW] + l->cause[AN_RX_SHORT_TIMEOUT]);
	}
	if (l->h.stalls)
		line(v, "loss", "%" PRIu64 " TCP messages held at 40/200 ms "
		     "(delayed ACK, RTO): %.1f ms", l->h.stalls,
		     l->h.stall_ns / 1e6);
	if (!(l->tcp && l->h.segs[0] + l->h.segs[1]) && !l->udp &&
	    !l->h.stalls)
		line(v, "loss", "none seen: no call resent%s",
		     m->totals->retrans ? " by the rules" : "");
}

/* ----------------------------------------------------------- vantage -- */

static void judge_vantage(const struct an_model *m, struct an_verdict *v)
{
	uint32_t k, n[AN_VP_N] = { 0 }, decided = 0;
	enum an_vantage one = AN_VP_UNKNOWN;
	const char *by = "";

	for (k = 0; k < m->npairs; k++) {
		const struct an_model_pair *q = &m->pairs[k];

		if (!q->has_vantage)
			continue;
		n[q->vantage.vp]++;
		if (q->vantage.vp == AN_VP_UNKNOWN)
			continue;
		if (decided++ == 0 || q->vantage.vp == one)
			by = q->vantage_by;
		one = decided == 1 || q->vantage.vp == one ? q->vantage.vp :
		      AN_VP_N;
	}
	if (decided == 0) {
		v->vantage = AN_VP_UNKNOWN;
		snprintf(v->vantage_why, sizeof(v->vantage_why), "%s",
			 n[AN_VP_UNKNOWN] ? "the evidence is too close to tell"
			 : "no TCP timing and no UDP resend to judge by");
	} else if (one == AN_VP_N) {
		v->vantage = AN_VP_UNKNOWN;
		snprintf(v->vantage_why, sizeof(v->vantage_why), "pairs "
			 "disagree: client side %u, server side %u, in between "
			 "%u (merged captures?)", n[AN_VP_CLIENT],
			 n[AN_VP_SERVER], n[AN_VP_BETWEEN]);
	} else {
		v->vantage = one;
		snprintf(v->vantage_why, sizeof(v->vantage_why), "by %s, %u "
			 "pair%s", strcmp(by, "tcp_acks") == 0 ? "TCP ACK timing"
			 : strcmp(by, "tcp_handshakes") == 0 ? "TCP handshakes"
			 : "UDP resends", decided, decided == 1 ? "" : "s");
	}
	line(v, "vantage", "%s (%s)", an_vantage_name(v->vantage),
	     v->vantage_why);
}

/* ----------------------------------------------------------- impact -- */

static double total_wait_ns(const struct an_model *m)
{
	double s = 0;
	uint32_t k;

	for (k = 0; k < an_figs_nrows(m->in.figs, AN_BY_SERVER); k++) {
		const struct an_row *w = an_figs_row(m->in.figs, AN_BY_SERVER, k);

		if (w->proc == AN_PROC_ALL)
			s += w->lat.sum;
	}
	return s;
}

static void impact_of(const struct an_model *m, double wait,
		      const struct an_finding *f, struct an_impact *o)
{
	double ops = (double)m->totals->ops;
	uint64_t n = f->cost_ops ? f->cost_ops : f->count;

	o->of = NULL;
	o->pct = 0;
	if (f->cost_ns > 0 && wait > 0) {
		o->of = "wait";
		o->pct = 100.0 * f->cost_ns / wait;
	} else if (n > 0 && ops > 0) {
		o->of = "ops";
		o->pct = 100.0 * (double)n / ops;
	}
	if (o->pct > 100)
		o->pct = 100;
}

struct ranked {
	const struct an_finding *f;
	struct an_impact imp;
	size_t k;
};

static int ranked_cmp(const void *x, const void *y)
{
	const struct ranked *a = x, *b = y;

	if (a->imp.pct != b->imp.pct)
		return a->imp.pct < b->imp.pct ? 1 : -1;
	return a->k < b->k ? -1 : a->k > b->k;
}

static int rank(struct an_model *m, double wait)
{
	struct ranked *r = calloc(m->nfindings ? m->nfindings : 1, sizeof(*r));
	size_t k;

	m->impact = calloc(m->nfindings ? m->nfindings : 1, sizeof(*m->impact));
	if (r == NULL || m->impact == NULL) {
		free(r);
		return -1;
	}
	for (k = 0; k < m->nfindings; k++) {
		r[k].f = m->findings[k];
		r[k].k = k;
		impact_of(m, wait, r[k].f, &r[k].imp);
	}
	qsort(r, m->nfindings, sizeof(*r), ranked_cmp);
	for (k = 0; k < m->nfindings; k++) {
		m->findings[k] = r[k].f;
		m->impact[k] = r[k].imp;
	}
	free(r);
	return 0;
}

/* The finding's subject in a few words. */
static const char *subject(const struct an_finding *f, char *b, size_t n)
{
	char a[64], c[64];

	if (f->have_server && f->have_client)
		snprintf(b, n, "%s -> %s", cap_addr_str(&f->client, c,
			 sizeof(c)), cap_addr_str(&f->server, a, sizeof(a)));
	else if (f->have_server)
		snprintf(b, n, "server %s", cap_addr_str(&f->server, a,
							 sizeof(a)));
	else if (f->have_client)
		snprintf(b, n, "client %s", cap_addr_str(&f->client, a,
							 sizeof(a)));
	else
		b[0] = '\0';
	return b;
}

static void judge_problems(const struct an_model *m, struct an_verdict *v)
{
	size_t k;
	char s[80];

	for (k = 0; k < m->nfindings && k < AN_VERDICT_PROBLEMS; k++) {
		const struct an_impact *i = &m->impact[k];

		subject(m->findings[k], s, sizeof(s));
		if (i->of)
			line(v, "problem", "%zu. %s %s: %.1f%% of the %s", k + 1,
			     an_find_kind_name(m->findings[k]->kind), s, i->pct,
			     strcmp(i->of, "wait") == 0 ? "clients' wait" :
			     "operations");
		else
			line(v, "problem", "%zu. %s %s", k + 1,
			     an_find_kind_name(m->findings[k]->kind), s);
	}
	if (m->nfindings > AN_VERDICT_PROBLEMS)
		line(v, "problem", "and %zu more (see Findings)",
		     m->nfindings - AN_VERDICT_PROBLEMS);
}

/* ----------------------------------------------------------- capture -- */

/* Holes in TCP streams the capture missed (the receiver acknowledged
 * past them): the messages in them are lost to the analysis, and their
 * replies come without a call. */
static void judge_gaps(const struct an_model *m, struct an_verdict *v)
{
	const struct cap_stats *c = m->in.cs;
	uint64_t orphans = m->in.ds ? m->in.ds->orphan_replies : 0;
	double kib = (double)c->tcp_gap_missed_bytes / 1024;
	uint64_t n = c->tcp_gaps_missed;

	if (kib >= 1024)
		line(v, "capture", "INCOMPLETE: %" PRIu64 " hole%s in TCP "
		     "streams, %.1f MiB the capture missed", n,
		     n == 1 ? "" : "s", kib / 1024);
	else
		line(v, "capture", "INCOMPLETE: %" PRIu64 " hole%s in TCP "
		     "streams, %.1f KiB the capture missed", n,
		     n == 1 ? "" : "s", kib);
	if (orphans)
		line(v, "capture", "  %" PRIu64 " repl%s came without %s call",
		     orphans, orphans == 1 ? "y" : "ies",
		     orphans == 1 ? "its" : "their");
}

static void judge_capture(const struct an_model *m, struct an_verdict *v)
{
	const struct cap_stats *c = m->in.cs;
	const struct an_stats *e = m->in.es;

	v->hidden_calls = c->tcp_hidden_calls;
	v->hidden_replies = c->tcp_hidden_replies;
	if (c->tcp_hidden_spans && e && e->from_replies > v->hidden_calls)
		v->hidden_calls = e->from_replies;
	if (c->tcp_hidden_spans && e && e->reply_not_seen > v->hidden_replies)
		v->hidden_replies = e->reply_not_seen;
	if (m->complete) {
		line(v, "capture", "complete: every message seen");
		return;
	}
	if (m->in.cut)
		line(v, "capture", "INCOMPLETE: the input was cut short");
	if (c->ps_drop || c->ps_ifdrop)
		line(v, "capture", "INCOMPLETE: %" PRIu64 " packets dropped "
		     "while capturing", c->ps_drop + c->ps_ifdrop);
	if (c->tcp_hidden_spans)
		line(v, "capture", "INCOMPLETE: snaplen %" PRIu64 " hid about "
		     "%" PRIu64 " calls, %" PRIu64 " replies", c->snap_caplen,
		     v->hidden_calls, v->hidden_replies);
	if (c->tcp_gaps_missed)
		judge_gaps(m, v);
	if (m->in.evictions)
		line(v, "capture", "INCOMPLETE: %" PRIu64 " entries evicted "
		     "for memory budgets", m->in.evictions);
}

int an_judge(struct an_model *m)
{
	struct an_verdict *v = calloc(1, sizeof(*v));
	double wait = total_wait_ns(m);

	if (v == NULL || rank(m, wait) < 0) {
		free(v);
		return -1;
	}
	m->verdict = v;
	v->wait_ms = wait / 1e6;
	v->healthy = m->nfindings == 0 && m->complete;
	if (v->healthy)
		line(v, "verdict", "healthy: no problem found");
	else if (m->nfindings)
		line(v, "verdict", "%zu problem%s, by what they cost:",
		     m->nfindings, m->nfindings == 1 ? "" : "s");
	else
		line(v, "verdict", "no problem found, but the capture is "
		     "incomplete");
	if (!m->complete)	/* what the capture hides, before its figures */
		judge_capture(m, v);
	judge_problems(m, v);
	judge_sizes(m, v);
	judge_time(m, v);
	judge_vantage(m, v);
	judge_loss(m, v);
	if (m->complete)
		judge_capture(m, v);
	return 0;
}

void an_judge_line(const struct an_finding *f, size_t nf, bool incomplete,
		   char *b, size_t n)
{
	size_t k, best = 0;
	char s[80];

	for (k = 1; k < nf; k++) {
		const struct an_finding *x = &f[k], *y = &f[best];

		if (x->cost_ns > y->cost_ns || (x->cost_ns == y->cost_ns &&
		    (x->cost_ops ? x->cost_ops : x->count) >
		    (y->cost_ops ? y->cost_ops : y->count)))
			best = k;
	}
	if (nf == 0)
		snprintf(b, n, "verdict: %s", incomplete ? "no problem so far, "
			 "but the capture is incomplete" : "healthy so far");
	else
		snprintf(b, n, "verdict: %zu problem%s; costliest: %s %s%s", nf,
			 nf == 1 ? "" : "s", an_find_kind_name(f[best].kind),
			 subject(&f[best], s, sizeof(s)),
			 incomplete ? " (incomplete)" : "");
}
