/* metrics.c - the Prometheus endpoint; see metrics.h. */
#include "ui/serve/metrics.h"
#include "base/hash.h"
#include "ui/serve/metrics_http.h"
#include "analyze/acc.h"
#include "analyze/figs.h"
#include "ui/cli.h"
#include "analyze/model.h"

#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MX_STATUS_SLOTS 8
#define MX_DROPPED_SLOTS (2 * UI_MX_DROPPED_MAX)
#define MX_ST_DENIED 0xffffffffu		/* RPC MSG_DENIED */
#define MX_ST_ACCEPT 0xfff00000u		/* | accept_stat */

struct mx_key {
	struct cap_addr client, server;
	uint32_t prog, vers, proc;
};

/* What a series counts besides its latency histogram: the sums of the
 * one accumulator (acc.h) and the endpoint's own breakdowns. */
struct mx_counts {
	AN_SUMS_MEMBER;			/* an_sums_add of every op with a call */
	uint64_t reply_not_seen;	/* of unanswered: the reply may be hidden */
	uint64_t from_replies;		/* AN_OP_CALL_NOT_SEEN: in no sum */
	struct an_status_count st[MX_STATUS_SLOTS];
	uint64_t st_other;
	uint64_t size[UI_MX_SIZE_N + 1];
	uint64_t size_count, size_sum;
	uint64_t on_edge[UI_MX_LAT_N];	/* latencies of exactly 2^(lo + i) ns */
};

/* One series: the sums of the operations of one key. */
struct mx_series {
	struct mx_key key;
	bool other;			/* the overflow series */
	struct mx_counts c;
	struct hist lat;		/* owned: an_sums_add's latency */
};

/* A series as a scrape reads it: the histogram cut at the 2^k ns bounds
 * (copied under the mutex, so the text is written without it). */
struct mx_row {
	struct mx_key key;
	bool other;
	struct mx_counts c;
	uint64_t lat[UI_MX_LAT_N + 1];	/* per bucket (not cumulative) */
	uint64_t lat_count;
};

/* What a scrape reads besides the series. */
struct mx_state {
	uint64_t overflow_ops;
	uint64_t dropped_keys;		/* distinct keys refused, to
					   UI_MX_DROPPED_MAX */
	uint32_t max;			/* the series budget */
	uint64_t find_kind[AN_F_NKINDS];
	uint64_t find_dropped;
	struct cap_stats cs;
	struct dec_stats ds;
	struct an_stats es;
	bool done;
	bool cut;			/* the input was cut or damaged */
};

struct ui_mx {
	pthread_mutex_t mu;		/* guards s, n, cap, ix, st, gen */
	uint64_t gen;			/* counts the updates */
	struct mx_series *s;		/* owned; n used of cap */
	uint32_t n, cap;
	uint32_t *ix;			/* owned: 2 max slots, series + 1 */
	uint64_t *dropped;		/* owned: MX_DROPPED_SLOTS key prints,
					   allocated at the first key refused */
	uint32_t other;			/* the overflow series + 1, 0 none */
	struct mx_state st;
	size_t find_seen;		/* findings counted (op thread only) */
	const struct an_find *find;	/* the sink's findings (ui_mx_sink) */
	/* the scrape side (the HTTP server's thread) */
	int fd;				/* the listening socket, -1 none */
	bool v6;
	struct mx_http *http;		/* owned: the server, NULL */
	struct mx_row *snap;		/* owned: the rows of s */
	uint32_t snap_cap;
};

struct ui_mx *ui_mx_new(uint32_t max)
{
	struct ui_mx *m;

	if (max == 0)
		max = UI_MX_SERIES_DEFAULT;
	if (max > UI_MX_SERIES_LIMIT)
		return NULL;
	m = calloc(1, sizeof(*m));
	if (m == NULL)
		return NULL;
	m->st.max = max;
	m->ix = calloc(2 * (size_t)max, sizeof(*m->ix));
	m->fd = -1;
	if (m->ix == NULL || pthread_mutex_init(&m->mu, NULL) != 0) {
		free(m->ix);
		free(m);
		return NULL;
	}
	return m;
}

bool ui_mx_parse_max(const char *s, uint32_t *max)
{
	uint64_t v;

	if (!ui_parse_u64(s, &v) || v == 0 || v > UI_MX_SERIES_LIMIT)
		return false;
	*max = (uint32_t)v;
	return true;
}

void ui_mx_free(struct ui_mx *m)
{
	uint32_t k;

	if (m == NULL)
		return;
	mx_http_stop(m->http);	/* first: its thread renders */
	if (m->fd >= 0)
		close(m->fd);
	pthread_mutex_destroy(&m->mu);
	for (k = 0; k < m->n; k++)
		hist_fini(&m->s[k].lat);
	free(m->s);
	free(m->ix);
	free(m->dropped);
	free(m->snap);
	free(m);
}

/* ------------------------------------------------------- the table -- */

/* FNV-1a of k from basis h (two bases: two independent hashes). */
static uint32_t key_hash(const struct mx_key *k, uint32_t h)
{
	h = cap_addr_fnv(h, &k->client);
	h = cap_addr_fnv(h, &k->server);
	h = (h ^ k->prog) * BASE_FNV32_PRIME;
	h = (h ^ k->vers) * BASE_FNV32_PRIME;
	h = (h ^ k->proc) * BASE_FNV32_PRIME;
	return h;
}

static bool key_eq(const struct mx_key *a, const struct mx_key *b)
{
	return a->prog == b->prog && a->vers == b->vers &&
	       a->proc == b->proc && cap_addr_eq(&a->client, &b->client) &&
	       cap_addr_eq(&a->server, &b->server);
}

/* A new series at the end of the table (grown by doubling); NULL when
 * the table holds max or out of memory. */
static struct mx_series *series_append(struct ui_mx *m, uint32_t max)
{
	struct mx_series *s;
	uint32_t cap;

	if (m->n >= max)
		return NULL;
	if (m->n == m->cap) {
		cap = m->cap ? 2 * m->cap : 64;
		if (cap > m->st.max)
			cap = m->st.max;
		s = realloc(m->s, cap * sizeof(*s));
		if (s == NULL)
			return NULL;
		m->s = s;
		m->cap = cap;
	}
	s = &m->s[m->n++];
	memset(s, 0, sizeof(*s));
	hist_init(&s->lat);
	return s;
}

/* Count key k (hash h) among the keys refused at the budget, once: a
 * 64-bit print of it in a set filled at most half (past
 * UI_MX_DROPPED_MAX keys, or out of memory, the count stops). */
static void count_dropped(struct ui_mx *m, const struct mx_key *k, uint32_t h)
{
	uint32_t i;
	uint64_t fp = (uint64_t)h << 32 | key_hash(k, 0x811c9dc5u ^ 0x5bd1e995u);

	if (m->dropped == NULL &&
	    (m->dropped = calloc(MX_DROPPED_SLOTS, sizeof(*m->dropped))) == NULL)
		return;
	if (fp == 0)
		fp = 1;
	for (i = h % MX_DROPPED_SLOTS; m->dropped[i];
	     i = (i + 1) % MX_DROPPED_SLOTS)
		if (m->dropped[i] == fp)
			return;
	if (m->st.dropped_keys >= UI_MX_DROPPED_MAX)
		return;			/* the set is full: saturated */
	m->dropped[i] = fp;
	m->st.dropped_keys++;
}

/* The series of key k: found, created, or (past the budget, whose last
 * place is kept for it) the overflow series; NULL out of memory. */
static struct mx_series *series_get(struct ui_mx *m, const struct mx_key *k)
{
	uint32_t h = key_hash(k, BASE_FNV32_INIT), slots = 2 * m->st.max;
	uint32_t i = h % slots;
	struct mx_series *s;

	/* at most half the slots are used: a free one comes */
	for (; m->ix[i]; i = (i + 1) % slots) {
		s = &m->s[m->ix[i] - 1];
		if (key_eq(&s->key, k))
			return s;
	}
	s = series_append(m, m->st.max - 1);
	if (s) {
		s->key = *k;
		m->ix[i] = m->n;
		return s;
	}
	m->st.overflow_ops++;
	count_dropped(m, k, h);
	if (m->other == 0) {
		s = series_append(m, m->st.max);
		if (s == NULL)
			return NULL;
		s->other = true;
		m->other = m->n;
	}
	return &m->s[m->other - 1];
}

/* The bucket of v among bounds 2^lo_exp .. 2^(lo_exp + n - 1), v <= bound
 * (n: above every bound, +Inf). */
static unsigned pow2_bucket(uint64_t v, unsigned lo_exp, unsigned n)
{
	unsigned e;

	if (v <= (1ull << lo_exp))
		return 0;
	e = 64 - (unsigned)__builtin_clzll(v - 1);	/* 2^e >= v > 2^(e-1) */
	return e - lo_exp >= n ? n : e - lo_exp;
}

static uint32_t error_code(const struct an_op *op)
{
	if (op->reply_stat != RPC_MSG_ACCEPTED)
		return MX_ST_DENIED;
	if (op->accept_stat != RPC_SUCCESS)
		return MX_ST_ACCEPT | (op->accept_stat & 0xffff);
	return op->status;
}

static void count_status(struct mx_counts *s, uint32_t code)
{
	unsigned k;

	for (k = 0; k < MX_STATUS_SLOTS; k++) {
		if (s->st[k].n == 0)
			s->st[k].status = code;
		if (s->st[k].status == code) {
			s->st[k].n++;
			return;
		}
	}
	s->st_other++;
}

static bool is_transfer(const struct an_op *op)
{
	uint32_t v3 = an_nfs_v3proc(op->prog, op->vers, op->proc);

	return (op->have & AN_HAVE_COUNT) &&
	       (v3 == NFS3_READ || v3 == NFS3_WRITE);
}

/* Is ns exactly a finite bucket's bound 2^(UI_MX_LAT_LO_EXP + *i)?  The
 * histogram's range of it starts there; le includes it. */
static bool lat_on_edge(int64_t ns, unsigned *i)
{
	unsigned e;

	if (ns <= 0 || (ns & (ns - 1)) != 0)
		return false;
	e = (unsigned)__builtin_ctzll((uint64_t)ns);
	if (e < UI_MX_LAT_LO_EXP || e - UI_MX_LAT_LO_EXP >= UI_MX_LAT_N)
		return false;
	*i = e - UI_MX_LAT_LO_EXP;
	return true;
}

/* The sums of one op: the one rule (an_cell_add, as report's rows and
 * the store's intervals add), then what only the endpoint breaks down. */
static void series_add(struct mx_series *s, const struct an_op *op)
{
	struct mx_counts *c = &s->c;
	unsigned i;

	if (op->flags & AN_OP_CALL_NOT_SEEN) {
		c->from_replies++;
		return;
	}
	an_cell_add(&c->s, &s->lat, op);
	if (is_transfer(op)) {
		c->size[pow2_bucket(op->count, UI_MX_SIZE_LO_EXP,
				    UI_MX_SIZE_N)]++;
		c->size_count++;
		c->size_sum += op->count;
	}
	if (!(op->flags & AN_OP_ANSWERED) && (op->flags & AN_OP_REPLY_HIDDEN))
		c->reply_not_seen++;
	if ((op->flags & AN_OP_ANSWERED) && lat_on_edge(op->lat_first_ns, &i))
		c->on_edge[i]++;
	if (an_op_is_error(op))
		count_status(c, error_code(op));
}

void ui_mx_op(struct ui_mx *m, const struct an_op *op)
{
	struct mx_key k;
	struct mx_series *s;

	memset(&k, 0, sizeof(k));
	k.client = op->client;
	k.server = op->server;
	k.prog = op->prog;
	k.vers = op->vers;
	k.proc = op->proc;
	pthread_mutex_lock(&m->mu);
	s = series_get(m, &k);
	if (s)
		series_add(s, op);
	m->gen++;
	pthread_mutex_unlock(&m->mu);
}

void ui_mx_findings(struct ui_mx *m, const struct an_find *f)
{
	size_t n = an_find_count(f), k;
	uint64_t kinds[AN_F_NKINDS] = { 0 };
	const struct an_finding *x;

	if (n == m->find_seen && an_find_dropped(f) == m->st.find_dropped)
		return;
	for (k = 0; k < n; k++) {
		x = an_find_get(f, k);
		if (x && (unsigned)x->kind < AN_F_NKINDS)
			kinds[x->kind]++;
	}
	m->find_seen = n;
	pthread_mutex_lock(&m->mu);
	memcpy(m->st.find_kind, kinds, sizeof(kinds));
	m->st.find_dropped = an_find_dropped(f);
	m->gen++;
	pthread_mutex_unlock(&m->mu);
}

void ui_mx_health(struct ui_mx *m, const struct cap_stats *cs,
		  const struct dec_stats *ds, const struct an_stats *es,
		  bool done)
{
	pthread_mutex_lock(&m->mu);
	m->st.cs = *cs;
	m->st.ds = *ds;
	m->st.es = *es;
	m->st.done = done;
	m->gen++;
	pthread_mutex_unlock(&m->mu);
}

void ui_mx_input_cut(struct ui_mx *m)
{
	pthread_mutex_lock(&m->mu);
	m->st.cut = true;
	m->gen++;
	pthread_mutex_unlock(&m->mu);
}

static uint64_t mx_gen_of(struct ui_mx *m)
{
	uint64_t g;

	pthread_mutex_lock(&m->mu);
	g = m->gen;
	pthread_mutex_unlock(&m->mu);
	return g;
}

/* ------------------------------------------------------ the text -- */

void ui_mx_label(const char *s, char *out, size_t n)
{
	size_t o = 0;
	unsigned char c;

	if (n == 0)
		return;
	for (; (c = (unsigned char)*s) != 0 && o + 3 <= n; s++) {
		if (c == '\\' || c == '"' || c == '\n') {
			out[o++] = '\\';
			out[o++] = c == '\n' ? 'n' : (char)c;
		} else if (c < 0x20 || c >= 0x7f) {
			out[o++] = '?';
		} else {
			out[o++] = (char)c;
		}
	}
	out[o] = '\0';
}

struct tbuf {
	char **buf;
	size_t *cap, len;
	bool oom;
};

static void tb_printf(struct tbuf *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void tb_printf(struct tbuf *t, const char *fmt, ...)
{
	va_list ap;
	size_t room;
	int w;
	char *nb;

	for (;;) {
		if (t->oom)
			return;
		room = *t->cap - t->len;
		va_start(ap, fmt);
		w = vsnprintf(*t->buf ? *t->buf + t->len : NULL, room, fmt, ap);
		va_end(ap);
		if (w < 0) {
			t->oom = true;
			return;
		}
		if ((size_t)w < room) {
			t->len += (size_t)w;
			return;
		}
		nb = realloc(*t->buf, *t->cap * 2 + (size_t)w + 4096);
		if (nb == NULL) {
			t->oom = true;
			return;
		}
		*t->buf = nb;
		*t->cap = *t->cap * 2 + (size_t)w + 4096;
	}
}

static void family(struct tbuf *t, const char *name, const char *type,
		   const char *help)
{
	tb_printf(t, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A name from the decoder's table, its number when it has none. */
static const char *name_or_number(const char *name, uint32_t v, char *buf,
				  size_t n)
{
	if (name)
		return name;
	snprintf(buf, n, "%u", v);
	return buf;
}

/* op="NFSv3 READ",prog="NFS",vers="3",proc="READ",client="..",
 * server=".." (escaped): op as report names it, and its three parts */
static void series_labels(const struct mx_row *s, char *out, size_t n)
{
	char p[64], c[64], v[64], g[16], r[16], ep[130], ec[100], ev[100];
	const struct mx_key *k = &s->key;

	if (s->other) {
		snprintf(out, n, "op=\"other\",prog=\"other\",vers=\"other\","
			 "proc=\"other\",client=\"other\",server=\"other\"");
		return;
	}
	ui_mx_label(an_model_proc_name(k->prog, k->vers, k->proc, p, sizeof(p)),
		    ep, sizeof(ep));
	ui_mx_label(cap_addr_str(&k->client, c, sizeof(c)), ec, sizeof(ec));
	ui_mx_label(cap_addr_str(&k->server, v, sizeof(v)), ev, sizeof(ev));
	snprintf(out, n, "op=\"%s\",prog=\"%.24s\",vers=\"%u\",proc=\"%.24s\","
		 "client=\"%s\",server=\"%s\"", ep,
		 name_or_number(dec_prog_name(k->prog), k->prog, g, sizeof(g)),
		 k->vers, name_or_number(dec_proc_name(k->prog, k->vers,
				k->proc), k->proc, r, sizeof(r)), ec, ev);
}

/* The status label of an error code: the RFC's name, "status_N" when
 * there is none, the RPC-level reasons by their RFC 5531 names. */
static const char *status_name(const struct mx_row *s, uint32_t code,
			       char *buf, size_t n)
{
	const char *r = NULL;

	if (code == MX_ST_DENIED)
		return "MSG_DENIED";
	if ((code & 0xffff0000u) == MX_ST_ACCEPT)
		r = rpc_accept_name(code & 0xffff);
	else if (s->key.prog == PROG_NFS)
		r = nfs_stat_name(s->key.vers, code);
	else if (s->key.prog == PROG_MOUNT)
		r = mnt_stat_name(s->key.vers, code);
	else if (s->key.prog == PROG_NLM)
		r = nlm_stat_name(s->key.vers, code);
	if (r == NULL) {
		snprintf(buf, n, "status_%u", code);
		return buf;
	}
	return r;
}

/* One counter family over every series; field: offset of a uint64_t. */
static void counter_family(struct tbuf *t, const struct mx_row *v,
			   uint32_t n, char (*lab)[512], const char *name,
			   const char *help, size_t field)
{
	uint32_t k;

	family(t, name, "counter", help);
	for (k = 0; k < n; k++)
		tb_printf(t, "%s{%s} %llu\n", name, lab[k],
			  (unsigned long long)*(const uint64_t *)
			  ((const char *)&v[k] + field));
}

static void errors_family(struct tbuf *t, const struct mx_row *v,
			  uint32_t n, char (*lab)[512])
{
	char b[32], e[64];
	uint32_t k, j;

	family(t, "nfscope_errors_total", "counter",
	       "Answered operations that failed, by status (RPC or NFS/MOUNT/NLM).");
	for (k = 0; k < n; k++) {
		const struct mx_counts *c = &v[k].c;

		for (j = 0; j < MX_STATUS_SLOTS && c->st[j].n; j++) {
			ui_mx_label(status_name(&v[k], c->st[j].status, b,
						sizeof(b)), e, sizeof(e));
			tb_printf(t, "nfscope_errors_total{%s,status=\"%s\"} "
				  "%llu\n", lab[k], e,
				  (unsigned long long)c->st[j].n);
		}
		if (c->st_other)
			tb_printf(t, "nfscope_errors_total{%s,status=\"other\"} "
				  "%llu\n", lab[k],
				  (unsigned long long)c->st_other);
	}
}

/* A classic histogram: cumulative buckets at 2^(lo_exp + i) * unit. */
static void hist_lines(struct tbuf *t, const char *name, const char *lab,
		       const uint64_t *b, unsigned nb, unsigned lo_exp,
		       double unit, uint64_t count, double sum)
{
	uint64_t cum = 0;
	unsigned i;

	for (i = 0; i < nb; i++) {
		cum += b[i];
		tb_printf(t, "%s_bucket{%s,le=\"%.12g\"} %llu\n", name, lab,
			  (double)(1ull << (lo_exp + i)) * unit,
			  (unsigned long long)cum);
	}
	cum += b[nb];
	assert(cum == count);
	tb_printf(t, "%s_bucket{%s,le=\"+Inf\"} %llu\n", name, lab,
		  (unsigned long long)cum);
	tb_printf(t, "%s_sum{%s} %.17g\n%s_count{%s} %llu\n", name, lab, sum,
		  name, lab, (unsigned long long)count);
}

static void series_text(struct tbuf *t, const struct mx_row *v,
			uint32_t n, char (*lab)[512])
{
	static const struct {
		const char *name, *help;
		size_t off;
	} ctr[] = {
		{ "nfscope_ops_total", "Operations whose call was seen.",
		  offsetof(struct mx_row, c.calls) },
		{ "nfscope_answered_total", "Operations answered.",
		  offsetof(struct mx_row, c.answered) },
		{ "nfscope_unanswered_total", "Operations never answered "
		  "(not those whose reply may have been hidden).",
		  offsetof(struct mx_row, c.unanswered) },
		{ "nfscope_reply_not_seen_total", "Unanswered operations "
		  "whose reply may be among records the snaplen hid.",
		  offsetof(struct mx_row, c.reply_not_seen) },
		{ "nfscope_from_replies_total", "Operations known from their "
		  "reply alone (call not seen); in no other counter.",
		  offsetof(struct mx_row, c.from_replies) },
		{ "nfscope_retransmissions_total", "Call retransmissions.",
		  offsetof(struct mx_row, c.retrans) },
		{ "nfscope_duplicate_replies_total", "Duplicate replies.",
		  offsetof(struct mx_row, c.dup_replies) },
		{ "nfscope_wire_bytes_total", "RPC call and reply bytes on "
		  "the wire.", offsetof(struct mx_row, c.bytes) },
		{ "nfscope_data_bytes_total", "Bytes READ returned and WRITE "
		  "wrote (successful operations).",
		  offsetof(struct mx_row, c.data_bytes) },
	};
	uint32_t k;
	unsigned i;

	for (i = 0; i < sizeof(ctr) / sizeof(ctr[0]); i++)
		counter_family(t, v, n, lab, ctr[i].name, ctr[i].help,
			       ctr[i].off);
	errors_family(t, v, n, lab);
	family(t, "nfscope_latency_seconds", "histogram", "Latency of "
	       "answered operations from the first transmission of the call.");
	for (k = 0; k < n; k++)
		if (v[k].lat_count)
			hist_lines(t, "nfscope_latency_seconds", lab[k],
				   v[k].lat, UI_MX_LAT_N, UI_MX_LAT_LO_EXP,
				   1e-9, v[k].lat_count, v[k].c.lat_sum_ns / 1e9);
	family(t, "nfscope_transfer_size_bytes", "histogram",
	       "Bytes asked by READ and WRITE calls.");
	for (k = 0; k < n; k++)
		if (v[k].c.size_count)
			hist_lines(t, "nfscope_transfer_size_bytes", lab[k],
				   v[k].c.size, UI_MX_SIZE_N, UI_MX_SIZE_LO_EXP,
				   1, v[k].c.size_count, (double)v[k].c.size_sum);
}

static void health_counter(struct tbuf *t, const char *name,
			   const char *help, uint64_t v)
{
	family(t, name, "counter", help);
	tb_printf(t, "%s %llu\n", name, (unsigned long long)v);
}

static void health_text(struct tbuf *t, const struct mx_state *st,
			uint32_t nseries)
{
	const struct cap_stats *c = &st->cs;
	unsigned k;
	char e[64];

	family(t, "nfscope_findings_total", "counter",
	       "Findings closed so far, by kind (report's findings).");
	for (k = 0; k < AN_F_NKINDS; k++) {
		ui_mx_label(an_find_kind_name((enum an_find_kind)k), e,
			    sizeof(e));
		tb_printf(t, "nfscope_findings_total{kind=\"%s\"} %llu\n", e,
			  (unsigned long long)st->find_kind[k]);
	}
	health_counter(t, "nfscope_findings_dropped_total", "Findings past "
		       "the findings budget.", st->find_dropped);
	health_counter(t, "nfscope_packets_total", "Packets read.",
		       c->packets);
	health_counter(t, "nfscope_packet_bytes_total", "Wire bytes of the "
		       "packets read.", c->bytes);
	health_counter(t, "nfscope_kernel_drops_total", "Packets the "
		       "kernel dropped (pcap_stats ps_drop, live).", c->ps_drop);
	health_counter(t, "nfscope_interface_drops_total", "Packets the "
		       "interface dropped (pcap_stats ps_ifdrop, live).",
		       c->ps_ifdrop);
	health_counter(t, "nfscope_evictions_total", "Entries dropped for "
		       "memory budgets (flows, fragments, xids, names, late "
		       "replies).", run_evictions(&st->cs, &st->ds, &st->es));
	family(t, "nfscope_hidden_records_total", "counter", "RPC records "
	       "the snaplen hid inside TCP segments (estimated).");
	tb_printf(t, "nfscope_hidden_records_total{type=\"call\"} %llu\n"
		  "nfscope_hidden_records_total{type=\"reply\"} %llu\n",
		  (unsigned long long)c->tcp_hidden_calls,
		  (unsigned long long)c->tcp_hidden_replies);
	health_counter(t, "nfscope_tcp_gaps_total", "TCP stream holes "
		       "skipped.", c->tcp_gaps);
	health_counter(t, "nfscope_tcp_gaps_missed_total", "TCP stream holes "
		       "the receiver acknowledged: the capture missed them.",
		       c->tcp_gaps_missed);
	health_counter(t, "nfscope_ipfrag_incomplete_total", "IP fragment "
		       "trains never completed.", c->ipfrag_incomplete);
	health_counter(t, "nfscope_not_rpc_total", "Messages that failed "
		       "the RPC checks.", st->ds.not_rpc);
	health_counter(t, "nfscope_series_overflow_ops_total", "Operations "
		       "of keys past the series budget (in op=\"other\").",
		       st->overflow_ops);
	health_counter(t, "nfscope_series_dropped_total", "Distinct keys "
		       "(op x client x server) refused at the series budget "
		       "(--metrics-max), their operations in op=\"other\"; "
		       "counted up to 65536 keys.", st->dropped_keys);
	family(t, "nfscope_series_max", "gauge", "The series budget "
	       "(--metrics-max), the overflow series included.");
	tb_printf(t, "nfscope_series_max %u\n", st->max);
	family(t, "nfscope_series", "gauge", "Series (op x client x server) "
	       "held.");
	tb_printf(t, "nfscope_series %u\n", nseries);
	family(t, "nfscope_input_done", "gauge", "Whether the input ended "
	       "(1: the figures are final).");
	tb_printf(t, "nfscope_input_done %d\n", st->done ? 1 : 0);
	family(t, "nfscope_input_cut", "gauge", "Whether reading stopped on "
	       "a cut or damaged input (1: the figures cover what was read "
	       "before it).");
	tb_printf(t, "nfscope_input_cut %d\n", st->cut ? 1 : 0);
}

/* Series s as a scrape reads it, the mutex held.  Bucket i (le =
 * 2^(UI_MX_LAT_LO_EXP + i) ns) is the histogram's power-of-two range
 * below that bound (hist.h: range c >= 1 is [2^(c+6), 2^(c+7)) ns; the
 * first bucket also takes the ranges under it, +Inf those above the
 * last), plus the values exactly on its bound, less those on the bound
 * below (which its range holds). */
static void series_row(const struct mx_series *s, struct mx_row *r)
{
	const uint64_t *e = s->c.on_edge;
	uint64_t lo, hi, n;
	unsigned c, i;

	r->key = s->key;
	r->other = s->other;
	r->c = s->c;
	/* the unanswered counter leaves out what the snaplen may have hid */
	r->c.unanswered -= r->c.reply_not_seen;
	memset(r->lat, 0, sizeof(r->lat));
	for (c = 0; c < HIST_NCHUNK; c++) {
		n = hist_range_count(&s->lat, c, &lo, &hi);
		i = hi <= (1ull << UI_MX_LAT_LO_EXP) ? 0 :
		    (unsigned)__builtin_ctzll(hi) - UI_MX_LAT_LO_EXP;
		r->lat[i < UI_MX_LAT_N ? i : UI_MX_LAT_N] += n;
	}
	r->lat_count = 0;
	for (i = 0; i <= UI_MX_LAT_N; i++) {
		n = i > 0 ? e[i - 1] : 0;
		/* (a value lost with a chunk the histogram could not
		   allocate may leave fewer than its edge count) */
		r->lat[i] = r->lat[i] >= n ? r->lat[i] - n : 0;
		r->lat[i] += i < UI_MX_LAT_N ? e[i] : 0;
		r->lat_count += r->lat[i];
	}
}

size_t ui_mx_render(struct ui_mx *m, char **buf, size_t *cap)
{
	struct tbuf t = { .buf = buf, .cap = cap };
	struct mx_state st;
	char (*lab)[512];
	struct mx_row *v;
	uint32_t n, k;

	pthread_mutex_lock(&m->mu);
	n = m->n;
	if (n > m->snap_cap) {
		v = realloc(m->snap, n * sizeof(*v));
		if (v == NULL) {
			pthread_mutex_unlock(&m->mu);
			return 0;
		}
		m->snap = v;
		m->snap_cap = n;
	}
	for (k = 0; k < n; k++)
		series_row(&m->s[k], &m->snap[k]);
	st = m->st;
	pthread_mutex_unlock(&m->mu);
	lab = malloc((n ? n : 1) * sizeof(*lab));
	if (lab == NULL)
		return 0;
	for (k = 0; k < n; k++)
		series_labels(&m->snap[k], lab[k], sizeof(lab[k]));
	series_text(&t, m->snap, n, lab);
	health_text(&t, &st, n);
	free(lab);
	return t.oom ? 0 : t.len;
}

/* ---------------------------------------------------- the server -- */

/* "127.0.0.1:9464" or "[::1]:9464" into ss; -1 if malformed. */
static int parse_addr(const char *s, struct sockaddr_storage *ss,
		      socklen_t *len)
{
	char host[64];
	const char *colon = strrchr(s, ':');
	char *end;
	unsigned long port;
	size_t hl;
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;

	if (colon == NULL || colon == s)
		return -1;
	port = strtoul(colon + 1, &end, 10);
	if (colon[1] == '\0' || *end || port > 65535)
		return -1;
	hl = (size_t)(colon - s);
	if (s[0] == '[' && hl >= 2 && s[hl - 1] == ']') {
		s++;
		hl -= 2;
	}
	if (hl >= sizeof(host))
		return -1;
	memcpy(host, s, hl);
	host[hl] = '\0';
	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, host, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons((uint16_t)port);
		*len = sizeof(*a4);
		return 0;
	}
	if (inet_pton(AF_INET6, host, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*a6);
		return 0;
	}
	return -1;
}

int ui_mx_listen(struct ui_mx *m, const char *addr_port, char *err,
		 size_t n)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, one = 1;

	if (parse_addr(addr_port, &ss, &len) < 0) {
		snprintf(err, n, "bad address '%s' (ADDR:PORT, e.g. "
			 "127.0.0.1:9464 or [::1]:9464)", addr_port);
		return -1;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&ss, len) < 0 ||
	    listen(fd, (int)MX_CONN_MAX) < 0) {
		snprintf(err, n, "cannot listen on %s: %s", addr_port,
			 strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	m->fd = fd;
	m->v6 = ss.ss_family == AF_INET6;
	return 0;
}

static size_t mx_render(void *user, char **buf, size_t *cap)
{
	return ui_mx_render(user, buf, cap);
}

static uint64_t mx_generation(void *user)
{
	return mx_gen_of(user);
}

int ui_mx_open(struct ui_mx **mx, const char *addr_port, uint32_t max,
	       const char *who, bool banner, int (*after)(void *), void *arg)
{
	char err[256];

	if (addr_port && ((*mx = ui_mx_new(max)) == NULL ||
			  ui_mx_listen(*mx, addr_port, err, sizeof(err)) < 0)) {
		fprintf(stderr, "nfscope %s: --metrics: %s\n", who,
			*mx ? err : "out of memory");
		return -1;
	}
	if (addr_port && banner)
		fprintf(stderr, "nfscope %s: metrics on http://%s/metrics\n",
			who, addr_port);
	if (after(arg) < 0)
		return -1;
	if (*mx && ui_mx_start(*mx, err, sizeof(err)) < 0) {
		fprintf(stderr, "nfscope %s: --metrics: %s\n", who, err);
		return -1;
	}
	return 0;
}

int ui_mx_start(struct ui_mx *m, char *err, size_t n)
{
	assert(m->fd >= 0 && m->http == NULL);
	const struct mx_http_src src = { .user = m, .render = mx_render,
					 .generation = mx_generation };

	m->http = mx_http_start(&src, m->fd, m->v6, err, n);
	m->fd = -1;		/* taken */
	return m->http ? 0 : -1;
}

/* ------------------------------------------------------------ sink -- */

/* The run's sinks (run/sink.h): each op, with the findings it made. */
static void sink_op(void *user, const struct an_op *op, int32_t rx)
{
	struct ui_mx *m = user;

	(void)rx;
	ui_mx_op(m, op);
	if (m->find)
		ui_mx_findings(m, m->find);
}

static void sink_health(void *user, const struct cap_stats *cs,
			const struct dec_stats *ds, const struct an_stats *es)
{
	ui_mx_health(user, cs, ds, es, false);
}

static void sink_end(void *user, const struct run_end *e)
{
	struct ui_mx *m = user;

	if (e->ds == NULL)	/* a database's: no capture counters */
		return;
	if (m->find)
		ui_mx_findings(m, m->find);
	ui_mx_health(m, e->cs, e->ds, e->es, true);
	if (e->cut)
		ui_mx_input_cut(m);
}

void ui_mx_sink(struct ui_mx *m, const struct an_find *find,
		struct run_sink *out)
{
	m->find = find;
	*out = (struct run_sink){ .user = m, .op = sink_op,
				  .health = sink_health, .end = sink_end };
}
