/* report.c - `nfscope report`: driver and text output; see report.h. */
#include "ui/report.h"
#include "ui/cli.h"
#include "ui/esc.h"
#include "ui/times.h"

#include <getopt.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char *const rep_group_names[AN_BY_N] = {
	"op", "client", "server", "export", "file" };

/* ----------------------------------------------------------- driving -- */

/* On the analysis thread (run.h): the figures (pipelined: the figures
 * are read only at the end) and findings. */
static void on_op_sums(void *user, const struct an_op *op)
{
	struct rep *r = user;

	an_figs_push(r->figs, op);
	an_find_add(r->find, op);
	if (r->every)
		rep_every_add(r, op);
}

/* On the capture thread: the operation filters (a database's ops too). */
static bool on_op(void *user, const struct an_op *op)
{
	struct rep *r = user;
	/* a database's first time is loaded; a capture's is the run's */
	int64_t first = r->first_ns ? r->first_ns : run_first_ns(r->run);

	if (r->from_tod || r->to_tod)
		rep_resolve_times(r, first);
	return !r->filtered || store_filter_match(&r->filt, op, first);
}

/* A stored run's operation (report_db.c) into the pipeline. */
static void on_stored_op(void *user, const struct an_op *op)
{
	struct rep *r = user;

	run_put_op(r->run, op);
}

static void on_drops(void *user, const struct cap_drop_span *sp)
{
	struct rep *r = user;

	ui_drops_add(&r->drops, sp);
}

/* The end of the input: the capture's counters (a database's are loaded
 * by rep_store_load) and its TCP handshakes. */
static void on_end(void *user, const struct run_end *e)
{
	struct rep *r = user;

	if (e->error || e->cs == NULL)
		return;
	r->cut = e->cut != NULL;
	if (e->cut)
		r->cut_at = *e->cut;
	r->cs = *e->cs;
	r->ds = e->ds;
	r->es = e->es;
	r->names = e->names;
	r->first_ns = e->first_ns;
	r->last_ns = e->last_ns;
	r->rpc_msgs = e->rpc_msgs;
	an_find_handshakes(r->find, e->handshakes, CAP_HANDSHAKE_PAIRS);
}

/* ----------------------------------------------------------- helpers -- */

uint64_t rep_evictions(const struct rep *r)
{
	return ui_evictions(&r->cs, r->ds, r->es);
}

bool rep_complete(const struct rep *r)
{
	return r->cs.ps_drop == 0 && r->cs.ps_ifdrop == 0 &&
	       rep_evictions(r) == 0 && r->cs.tcp_hidden_spans == 0 &&
	       !r->cut;
}

void rep_nfs4(const struct rep *r, struct rep_nfs4 *v)
{
	an_figs_nfs4(r->figs, &v->calls, &v->clients, &v->servers);
}

const char *rep_time(const struct rep *r, int64_t ns, char *buf, size_t n)
{
	return ui_time_str(ns, r->tmode, 6, buf, n);
}

double rep_duration_s(const struct rep *r)
{
	double d = (double)(r->last_ns - r->first_ns) / 1e9;

	return d > 0 ? d : 0;
}

static int row_cmp(const void *x, const void *y)
{
	const struct an_row *a = *(const struct an_row *const *)x;
	const struct an_row *b = *(const struct an_row *const *)y;
	int c;

	if (a->group != AN_BY_OP && a->group != AN_BY_FILE) {
		/* group key first (by the key's total), totals row first */
		c = memcmp(&a->addr, &b->addr, sizeof(a->addr));
		if (c)
			return c;
		if (a->export_id != b->export_id)
			return a->export_id < b->export_id ? -1 : 1;
		if (a->proc != b->proc) {
			if (a->proc == AN_PROC_ALL)
				return -1;
			if (b->proc == AN_PROC_ALL)
				return 1;
		}
	}
	if (a->group == AN_BY_FILE && a->calls != b->calls)
		return a->calls < b->calls ? 1 : -1;
	if (a->prog != b->prog)
		return a->prog < b->prog ? -1 : 1;
	if (a->vers != b->vers)
		return a->vers < b->vers ? -1 : 1;
	return a->proc < b->proc ? -1 : a->proc > b->proc;
}

const struct an_row **rep_sorted_rows(const struct rep *r, enum an_group g,
				      uint32_t *n)
{
	uint32_t k, cnt = an_figs_nrows(r->figs, g);
	const struct an_row **v = malloc((cnt ? cnt : 1) * sizeof(*v));

	*n = 0;
	if (v == NULL)
		return NULL;
	for (k = 0; k < cnt; k++)
		v[k] = an_figs_row(r->figs, g, k);
	qsort(v, cnt, sizeof(*v), row_cmp);
	*n = cnt;
	return v;
}

const char *rep_proc_name(uint32_t prog, uint32_t vers, uint32_t proc,
			  char *buf, size_t n)
{
	const char *p = dec_prog_name(prog), *q;

	if (proc == AN_PROC_ALL)
		return "(all)";
	q = dec_proc_name(prog, vers, proc);
	if (p && q)
		snprintf(buf, n, "%s%s%u %s", p, prog == PROG_NFS ? "v" : "v",
			 vers, q);
	else if (p)
		snprintf(buf, n, "%sv%u proc%u", p, vers, proc);
	else
		snprintf(buf, n, "%u v%u proc%u", prog, vers, proc);
	return buf;
}

const char *rep_status_name(const struct an_row *row, uint32_t status,
			    char *buf, size_t n)
{
	const char *s = NULL;

	if (row->prog == PROG_NFS)
		s = nfs_stat_name(row->vers, status);
	else if (row->prog == PROG_MOUNT)
		s = mnt_stat_name(row->vers, status);
	else if (row->prog == PROG_NLM)
		s = nlm_stat_name(row->vers, status);
	if (s == NULL) {
		snprintf(buf, n, "status_%u", status);
		return buf;
	}
	return s;
}

const char *rep_row_key(const struct rep *r, const struct an_row *row,
			bool esc, char *buf, size_t n)
{
	char a[64], p[4 * AN_PATH_MAX];
	const struct an_export *e;
	uint32_t h = 2166136261u, i;

	switch (row->group) {
	case AN_BY_CLIENT:
	case AN_BY_SERVER:
		return cap_addr_str(&row->addr, buf, n);
	case AN_BY_EXPORT:
		e = an_names_export_get(r->names, row->export_id);
		snprintf(buf, n, "%s:%s", cap_addr_str(&row->addr, a, sizeof(a)),
			 !e ? "(export unknown)" : esc ?
			 ui_esc_str(p, sizeof(p), e->path, NULL) : e->path);
		return buf;
	case AN_BY_FILE:
		for (i = 0; i < row->fh.len; i++)
			h = (h ^ row->fh.data[i]) * 16777619u;
		snprintf(buf, n, "%s:%s%sfh=%08x",
			 cap_addr_str(&row->addr, a, sizeof(a)), esc ?
			 ui_esc_str(p, sizeof(p), row->path, NULL) : row->path,
			 row->path[0] ? " " : "", h);
		return buf;
	default:
		return "";
	}
}

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

/* -------------------------------------------------------------- text -- */

void rep_text_lat_header(FILE *f, const char *first)
{
	fprintf(f, "%-30s %9s %9s %6s %8s %10s %6s %10s %10s %10s %10s %10s "
		"%10s %10s\n", first, "Calls", "Ops/s", "Err", "kB/op", "kB/s",
		"Retr%", "Min ms", "Avg ms", "Max ms", "p50", "p95", "p99",
		"p99.9");
}

void rep_text_lat_row(const struct rep *r, const char *name,
		      const struct an_row *w)
{
	double d = rep_duration_s(r);
	const struct hist *h = &w->lat;

	fprintf(r->out, "%-30s %9" PRIu64 " %9.1f %6" PRIu64, name, w->calls,
		d > 0 ? (double)w->calls / d : 0.0, w->errors);
	/* nfsiostat's: READ/WRITE data per op and per second, retransmitted
	   calls per call */
	if (w->data_bytes)
		fprintf(r->out, " %8.1f %10.1f", (double)w->data_bytes / 1024 /
			(double)w->calls, d > 0 ? (double)w->data_bytes / 1024 /
			d : 0.0);
	else
		fprintf(r->out, " %8s %10s", "-", "-");
	fprintf(r->out, " %6.1f", w->calls ? 100.0 * (double)w->retrans /
		(double)w->calls : 0.0);
	if (h->count == 0) {
		fputs("          -          -          -\n", r->out);
		return;
	}
	fprintf(r->out, " %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f\n",
		ms(h->min), hist_mean(h) / 1e6, ms(h->max),
		ms(hist_percentile(h, 50)), ms(hist_percentile(h, 95)),
		ms(hist_percentile(h, 99)), ms(hist_percentile(h, 99.9)));
}

static void text_errors(const struct rep *r, const struct an_row *w)
{
	char b[32], p[64];
	int k;

	if (!w->errors)
		return;
	fprintf(r->out, "    errors %s:", rep_proc_name(w->prog, w->vers,
		w->proc, p, sizeof(p)));
	for (k = 0; k < AN_STATUS_SLOTS && w->st[k].n; k++)
		fprintf(r->out, " %s=%" PRIu64,
			rep_status_name(w, w->st[k].status, b, sizeof(b)),
			w->st[k].n);
	if (w->st_other)
		fprintf(r->out, " other=%" PRIu64, w->st_other);
	if (w->rpc_errors)
		fprintf(r->out, " rpc_rejected=%" PRIu64, w->rpc_errors);
	fputc('\n', r->out);
}

/* The ops known from their reply alone, per procedure (by-op rows). */
static void text_from_replies(const struct rep *r, const struct an_row **v,
			      uint32_t n)
{
	uint32_t k;
	bool head = false;
	char name[96];

	for (k = 0; k < n; k++) {
		if (v[k]->from_replies == 0)
			continue;
		if (!head)
			fprintf(r->out, "From replies (call not in the capture,"
				" procedure from the reply's shape; no latency;"
				" not in Calls above):\n");
		head = true;
		fprintf(r->out, "  %-28s %9" PRIu64 "\n",
			rep_proc_name(v[k]->prog, v[k]->vers, v[k]->proc, name,
				      sizeof(name)), v[k]->from_replies);
	}
}

static void text_ops(const struct rep *r)
{
	uint32_t n, k, shown = 0;
	const struct an_row **v = rep_sorted_rows(r, r->by, &n);
	char name[96], key[AN_PATH_MAX + 96];
	const struct an_row *prev = NULL;

	fprintf(r->out, "\n== Operations (by %s; latency from the first "
		"transmission, ms) ==\n", rep_group_names[r->by]);
	if (v == NULL)
		return;
	if (r->by == AN_BY_OP)
		rep_text_lat_header(r->out, "Procedure");
	else if (r->by == AN_BY_FILE)
		rep_text_lat_header(r->out, "File (top by calls)");
	for (k = 0; k < n; k++) {
		const struct an_row *w = v[k];

		if (w->calls == 0)
			continue;	/* only from replies: said below */
		if (r->by == AN_BY_FILE) {
			if (shown++ >= r->top)
				break;
			rep_text_lat_row(r, rep_row_key(r, w, true, key, sizeof(key)), w);
			continue;
		}
		if (r->by != AN_BY_OP && (prev == NULL ||
		    memcmp(&prev->addr, &w->addr, sizeof(w->addr)) ||
		    prev->export_id != w->export_id)) {
			fprintf(r->out, "\n%s %s\n", rep_group_names[r->by],
				rep_row_key(r, w, true, key, sizeof(key)));
			rep_text_lat_header(r->out, "  Procedure");
		}
		prev = w;
		snprintf(key, sizeof(key), "%s%s", r->by == AN_BY_OP ? "" : "  ",
			 rep_proc_name(w->prog, w->vers, w->proc, name,
				       sizeof(name)));
		rep_text_lat_row(r, key, w);
	}
	for (k = 0; k < n; k++)
		if (r->by == AN_BY_OP || v[k]->proc != AN_PROC_ALL)
			text_errors(r, v[k]);
	if (r->by == AN_BY_OP)
		text_from_replies(r, v, n);
	free(v);
}

static const char *hsz(uint32_t v, char *b, size_t n)
{
	if (v >= 1024 && v % 1024 == 0)
		snprintf(b, n, "%uk", v / 1024);
	else
		snprintf(b, n, "%u", v);
	return b;
}

static int size_cmp(const void *x, const void *y)
{
	const struct an_size_count *a = x, *b = y;

	return a->n < b->n ? 1 : a->n > b->n ? -1 :
	       (a->size < b->size ? -1 : a->size > b->size);
}

static void text_sizes_line(FILE *f, const char *what, const struct an_sizes *s)
{
	struct an_size_count v[AN_SIZES_MAX];
	uint32_t k;
	char b[32];

	memcpy(v, s->s, s->nsizes * sizeof(v[0]));
	qsort(v, s->nsizes, sizeof(v[0]), size_cmp);
	fprintf(f, "  %s sizes:", what);
	for (k = 0; k < s->nsizes && k < 8; k++)
		fprintf(f, " %s x%" PRIu64, hsz(v[k].size, b, sizeof(b)), v[k].n);
	if (s->nsizes > 8)
		fprintf(f, " (+%u more sizes)", s->nsizes - 8);
	if (s->other)
		fprintf(f, " other x%" PRIu64, s->other);
	fputc('\n', f);
}

static void text_sizes(const struct rep *r)
{
	uint32_t k;
	char a[64], b[64], v[AN_EVIDENCE_MAX];

	fprintf(r->out, "\n== Transfer sizes and verdicts ==\n");
	for (k = 0; k < an_figs_nservers(r->figs); k++) {
		const struct an_server *s = an_figs_server(r->figs, k);

		if (s->have_fsinfo)
			fprintf(r->out, "server %s FSINFO: rtmax %u rtpref %u "
				"wtmax %u wtpref %u dtpref %u\n",
				cap_addr_str(&s->addr, a, sizeof(a)), s->rtmax,
				s->rtpref, s->wtmax, s->wtpref, s->dtpref);
		if (s->have_statfs)
			fprintf(r->out, "server %s STATFS (v2): tsize %u\n",
				cap_addr_str(&s->addr, a, sizeof(a)), s->tsize);
	}
	for (k = 0; k < an_figs_npairs(r->figs); k++) {
		const struct an_pair *p = an_figs_pair(r->figs, k);
		const struct an_server *s = an_figs_server_find(r->figs, &p->server);

		if (p->reads == 0 && p->writes == 0 &&
		    p->read_rep.total == 0 && p->write_rep.total == 0)
			continue;
		fprintf(r->out, "%s -> %s: %" PRIu64 " READs (%" PRIu64 " bytes, "
			"%" PRIu64 " short, %" PRIu64 " at EOF), %" PRIu64
			" WRITEs (%" PRIu64 " bytes, %" PRIu64 " short)\n",
			cap_addr_str(&p->client, a, sizeof(a)),
			cap_addr_str(&p->server, b, sizeof(b)), p->reads,
			p->bytes_read, p->short_reads, p->read_eof, p->writes,
			p->bytes_written, p->short_writes);
		if (p->read.total)
			text_sizes_line(r->out, "READ", &p->read);
		if (p->read_rep.total)
			text_sizes_line(r->out, "READ from replies (granted, "
					"call not seen)", &p->read_rep);
		if (p->read.total || p->read_rep.total) {
			an_size_verdict(p, s, false, r->size_share, v, sizeof(v));
			fprintf(r->out, "  verdict: %s\n", v);
		}
		if (p->write.total)
			text_sizes_line(r->out, "WRITE", &p->write);
		if (p->write_rep.total)
			text_sizes_line(r->out, "WRITE from replies (granted, "
					"call not seen)", &p->write_rep);
		if (p->write.total || p->write_rep.total) {
			an_size_verdict(p, s, true, r->size_share, v, sizeof(v));
			fprintf(r->out, "  verdict: %s\n", v);
		}
	}
}

static const struct an_row *find_row(const struct rep *r, enum an_group g,
				     const struct cap_addr *a, uint32_t prog,
				     uint32_t vers, uint32_t proc)
{
	uint32_t k;

	for (k = 0; k < an_figs_nrows(r->figs, g); k++) {
		const struct an_row *w = an_figs_row(r->figs, g, k);

		if (w->prog == prog && w->vers == vers && w->proc == proc &&
		    (a == NULL || cap_addr_eq(&w->addr, a)))
			return w;
	}
	return NULL;
}

static void text_writes(const struct rep *r)
{
	static const char *const sn[4] = { "UNSTABLE", "DATA_SYNC",
		"FILE_SYNC", "(no reply)" };
	uint32_t k, i, j;
	char a[64], b[64];

	fprintf(r->out, "\n== Writes ==\n");
	for (k = 0; k < an_figs_npairs(r->figs); k++) {
		const struct an_pair *p = an_figs_pair(r->figs, k);

		if (p->writes == 0 && p->commits == 0)
			continue;
		fprintf(r->out, "%s -> %s: %" PRIu64 " WRITEs, %" PRIu64
			" COMMITs (%.3f per WRITE)\n",
			cap_addr_str(&p->client, a, sizeof(a)),
			cap_addr_str(&p->server, b, sizeof(b)), p->writes,
			p->commits, p->writes ? (double)p->commits /
			(double)p->writes : 0.0);
		for (i = 0; i < 3; i++)
			for (j = 0; j < 4; j++)
				if (p->stable[i][j])
					fprintf(r->out, "  asked %-9s granted %-10s"
						" %" PRIu64 "\n", sn[i], sn[j],
						p->stable[i][j]);
	}
	for (k = 0; k < an_figs_nservers(r->figs); k++) {
		const struct an_server *s = an_figs_server(r->figs, k);
		const struct an_row *c = find_row(r, AN_BY_SERVER, &s->addr,
						  PROG_NFS, 3, NFS3_COMMIT);

		if (c && c->lat.count)
			fprintf(r->out, "server %s COMMIT latency ms: min %.3f "
				"avg %.3f p95 %.3f max %.3f (%" PRIu64 ")\n",
				cap_addr_str(&s->addr, a, sizeof(a)),
				ms(c->lat.min), hist_mean(&c->lat) / 1e6,
				ms(hist_percentile(&c->lat, 95)), ms(c->lat.max),
				c->lat.count);
		if (s->have_verf)
			fprintf(r->out, "server %s write verifier: %u change%s\n",
				cap_addr_str(&s->addr, a, sizeof(a)),
				s->nverf_changes, s->nverf_changes == 1 ? "" : "s");
		for (i = 0; i < s->nverf_changes && i < AN_VERF_CHANGES_MAX; i++)
			fprintf(r->out, "  changed at %s (frame %" PRIu64 ")\n",
				rep_time(r, s->verf_changes[i].ts_ns, a,
					 sizeof(a)), s->verf_changes[i].frame);
	}
}

/* Where the capture was taken, per pair that shows it (find.h). */
static void text_vantage(const struct rep *r)
{
	uint32_t k;
	char a[64], b[64], e[256];

	for (k = 0; k < an_figs_npairs(r->figs); k++) {
		const struct an_pair *p = an_figs_pair(r->figs, k);
		struct an_vantage_info v;

		if (!an_find_vantage(r->find, &p->client, &p->server, &v))
			continue;
		an_vantage_evidence(&v, e, sizeof(e));
		fprintf(r->out, "vantage %s -> %s: %s\n",
			cap_addr_str(&p->client, a, sizeof(a)),
			cap_addr_str(&p->server, b, sizeof(b)), e);
	}
}

static void text_retrans(const struct rep *r)
{
	const struct an_stats *es = r->es;
	const struct dec_stats *ds = r->ds;
	uint32_t n, k;
	const struct an_row **v = rep_sorted_rows(r, AN_BY_CLIENT, &n);
	char a[64], p[96];

	fprintf(r->out, "\n== Retransmits ==\n"
		"calls retransmitted %" PRIu64 " (%" PRIu64 " after the reply), "
		"duplicate replies %" PRIu64 ", unanswered ops %" PRIu64
		", replies without a call %" PRIu64 "\n",
		es->retrans, es->late_retrans, es->dup_replies, es->unanswered,
		ds->orphan_replies + es->replies_unmatched);
	fprintf(r->out, "IP fragment trains incomplete %" PRIu64 ", TCP "
		"segments retransmitted %" PRIu64 ", TCP gaps %" PRIu64 " (%"
		PRIu64 " bytes)\n", r->cs.ipfrag_incomplete, r->cs.tcp_retrans,
		r->cs.tcp_gaps, r->cs.tcp_gap_bytes);
	text_vantage(r);
	if (v == NULL)
		return;
	for (k = 0; k < n; k++) {
		const struct an_row *w = v[k];

		if (w->proc == AN_PROC_ALL ||
		    !(w->retrans || w->dup_replies || w->unanswered))
			continue;
		fprintf(r->out, "%-16s %-22s retrans %" PRIu64 " (ops %" PRIu64
			") dup %" PRIu64 " unanswered %" PRIu64,
			cap_addr_str(&w->addr, a, sizeof(a)),
			rep_proc_name(w->prog, w->vers, w->proc, p, sizeof(p)),
			w->retrans, w->retrans_ops, w->dup_replies, w->unanswered);
		if (w->ivl.count)
			fprintf(r->out, " interval ms min %.3f p50 %.3f max %.3f",
				ms(w->ivl.min), ms(hist_percentile(&w->ivl, 50)),
				ms(w->ivl.max));
		fputc('\n', r->out);
	}
	free(v);
}

static void text_findings(const struct rep *r)
{
	size_t k, n = an_find_count(r->find);
	char t0[48], t1[48], ev[2 * AN_EVIDENCE_MAX];

	fprintf(r->out, "\n== Findings ==\n");
	if (n == 0)
		fprintf(r->out, "none\n");
	for (k = 0; k < n; k++) {
		const struct an_finding *f = an_find_get(r->find, k);

		fprintf(r->out, "[%s] ", an_find_kind_name(f->kind));
		ui_time_text(f->evidence, r->tmode, ev, sizeof(ev));
		ui_esc_put(r->out, ev, strlen(ev), NULL);
		putc('\n', r->out);
		if (f->start_ns)
			fprintf(r->out, "  from %s to %s, count %" PRIu64
				"%s", rep_time(r, f->start_ns, t0, sizeof(t0)),
				rep_time(r, f->end_ns, t1, sizeof(t1)), f->count,
				f->peak_rate > 0 ? "" : "\n");
		if (f->start_ns && f->peak_rate > 0 && f->avg_rate > 0)
			fprintf(r->out, ", peak %.0f/s, avg %.0f/s\n",
				f->peak_rate, f->avg_rate);
		else if (f->start_ns && f->peak_rate > 0)
			fprintf(r->out, ", peak %.0f/s\n", f->peak_rate);
		fputs("  ", r->out);
		ui_esc_put(r->out, f->meaning, strlen(f->meaning), NULL);
		putc('\n', r->out);
	}
}

static void text_health(const struct rep *r)
{
	const struct cap_stats *c = &r->cs;
	const struct dec_stats *d = r->ds;
	const struct an_stats *e = r->es;
	const struct an_figs_totals *t = an_figs_totals(r->figs);

	fprintf(r->out, "\n== Capture health ==\n"
		"packets %" PRIu64 " (%" PRIu64 " truncated by snaplen), "
		"dropped by kernel %" PRIu64 ", by interface %" PRIu64 "\n"
		"not IP %" PRIu64 ", link errors %" PRIu64 ", IP errors %"
		PRIu64 ", other protocols %" PRIu64 "\n"
		"IP fragments %" PRIu64 ", reassembled %" PRIu64 ", incomplete %"
		PRIu64 ", evicted %" PRIu64 "\n"
		"TCP segments %" PRIu64 ", out of order %" PRIu64 ", retrans %"
		PRIu64 ", gaps %" PRIu64 ", resyncs %" PRIu64 ", flows evicted %"
		PRIu64 ", evicted for --tcp-mem %" PRIu64
		", records failing the RPC check at a stream start %"
		PRIu64 "\n"
		"RPC messages %" PRIu64 " (calls %" PRIu64 ", replies %" PRIu64
		"), not RPC %" PRIu64 ", malformed %" PRIu64 ", truncated %"
		PRIu64 ", orphan replies %" PRIu64 " (by shape: %" PRIu64
		" one procedure, %" PRIu64 " ambiguous, %" PRIu64 " no fit)\n"
		"ops %" PRIu64 " (answered %" PRIu64 ", unanswered %" PRIu64
		": aged out %" PRIu64 ", at end %" PRIu64 ", evicted %" PRIu64
		"; from replies, call not seen %" PRIu64 "), XID reused %"
		PRIu64 ", misfit replies %" PRIu64 "\n"
		"budgets: xid entries peak %u, retired early %" PRIu64
		", names evicted %" PRIu64 ", rows dropped %" PRIu64
		", files dropped %" PRIu64 ", decoder xid evictions %" PRIu64
		", findings dropped %" PRIu64 "\n",
		c->packets, c->truncated, c->ps_drop, c->ps_ifdrop, c->not_ip,
		c->link_errors, c->ip_errors, c->other_proto, c->ipfrag_packets,
		c->ipfrag_reassembled, c->ipfrag_incomplete, c->ipfrag_evicted,
		c->tcp_segments, c->tcp_ooo, c->tcp_retrans, c->tcp_gaps,
		c->tcp_resyncs, c->flows_evicted, c->tcp_mem_evicted,
		c->tcp_rejected, r->rpc_msgs,
		d->calls,
		d->replies, d->not_rpc, d->malformed, d->truncated,
		d->orphan_replies, d->shape_fit, d->shape_ambiguous,
		d->shape_nofit, e->ops, e->answered, e->unanswered,
		e->unanswered_expired, e->unanswered_at_end, e->evicted,
		e->from_replies, e->xid_reused, e->misfit_replies, e->pending_peak,
		e->retired_early, e->names_evicted, t->rows_dropped,
		t->files_dropped, d->xid_evictions, an_find_dropped(r->find));
	fprintf(r->out, "late replies: held %" PRIu64 " (matched to a later "
		"call %" PRIu64 ", timed out %" PRIu64 "), not held for the "
		"budget %" PRIu64 "; stamped before their call within the skew "
		"tolerance %" PRIu64 "\n", d->late_held, d->late_matched,
		d->late_expired, d->late_over_budget, d->skew_tolerated);
}

static void text_intervals(const struct rep *r)
{
	uint32_t k;

	char t[48], z[64];

	fprintf(r->out, "\n== Time series (%.3f s intervals; %s) ==\n"
		"%-26s %9s %9s %6s %8s %10s %10s %12s\n",
		(double)r->interval_ns / 1e9,
		ui_time_zone(r->first_ns, r->tmode, z, sizeof(z)), "Start",
		"Calls", "Ops/s", "Err", "Retrans", "Avg ms", "Max ms",
		"Bytes/s");
	for (k = 0; k < an_figs_nintervals(r->figs); k++) {
		const struct an_interval *v = an_figs_interval(r->figs, k);
		double s = (double)r->interval_ns / 1e9;

		fprintf(r->out, "%-26s %9" PRIu64 " %9.1f %6" PRIu64 " %8"
			PRIu64 " %10.3f %10.3f %12.0f%s\n",
			rep_time(r, v->start_ns, t, sizeof(t)), v->calls,
			(double)v->calls / s, v->errors, v->retrans,
			v->answered ? v->lat_sum_ns / (double)v->answered / 1e6 : 0,
			ms(v->lat_max_ns), (double)v->bytes / s,
			ui_drops_overlap(&r->drops, v->start_ns, v->start_ns +
					 r->interval_ns) ? "  incomplete (drops)" : "");
	}
}

/* Records the snaplen hid (header-only TCP capture): how many, why, which
 * figures they bias, what to do. */
static void text_hidden(const struct rep *r)
{
	const struct cap_stats *c = &r->cs;

	if (c->tcp_hidden_spans == 0)
		return;
	fprintf(r->out, "INCOMPLETE: about %" PRIu64 " calls and %" PRIu64
		" replies were not visible: snaplen %" PRIu64 " (%" PRIu64
		" bytes of TCP payload) against TCP segments of up to %"
		PRIu64 " bytes; %"
		PRIu64 " TCP records (at least) began in the part not "
		"captured, after a large record (%" PRIu64 " bytes skipped "
		"until the stream was found again, in %" PRIu64 " flow "
		"directions; the number hidden is estimated from them)\n",
		c->tcp_hidden_calls, c->tcp_hidden_replies, c->snap_caplen,
		c->tcp_seg_cut_max, c->tcp_seg_max, c->tcp_hidden_spans, c->tcp_hidden_bytes,
		c->tcp_hidden_flows);
	fprintf(r->out, "  too low or biased: operation counts and rates, "
		"READ/WRITE size shares (large transfers hide the next "
		"record), READ/WRITE latency percentiles (pipelined ones are "
		"the hidden ones); calls whose reply was hidden are counted "
		"'reply not seen', not unanswered\n"
		"  capture with -s 0 (tcpdump -s 0), or a snaplen above the "
		"largest segment (%" PRIu64 " bytes + headers)\n",
		c->tcp_seg_max);
}

/* NFSv4 is recognised, not analysed: say so before the empty sections. */
static void text_nfs4(const struct rep *r)
{
	struct rep_nfs4 v;

	rep_nfs4(r, &v);
	if (v.calls == 0)
		return;
	fprintf(r->out, "NOT ANALYSED: %" PRIu64 " NFSv4 COMPOUND calls "
		"between %" PRIu64 " clients and %" PRIu64 " servers: nfscope "
		"analyses NFSv2 and NFSv3 only; the sections below leave "
		"NFSv4 out (no sizes, writes, findings for it)\n", v.calls,
		v.clients, v.servers);
}

/* Said first, and plainly: which figures are incomplete and why. */
void rep_text_incomplete(const struct rep *r)
{
	uint32_t k;
	char t0[48], t1[48];

	if (r->cut) {
		char m[CAP_ERRBUF_SIZE + 96];

		fprintf(r->out, "INCOMPLETE: input cut: %s\n  every packet "
			"before it is analysed; operations whose call or reply "
			"lay after it are missing or shown unanswered\n",
			ui_cut_str(&r->cut_at, m, sizeof(m)));
	}
	if (r->cs.ps_drop || r->cs.ps_ifdrop) {
		fprintf(r->out, "INCOMPLETE: %" PRIu64 " packets dropped by the "
			"kernel, %" PRIu64 " by the interface%s\n", r->cs.ps_drop,
			r->cs.ps_ifdrop, r->drops.n ? ", between:" :
			" (time not recorded)");
		for (k = 0; k < r->drops.n; k++)
			fprintf(r->out, "  %s .. %s  (%.3f s): %" PRIu64
				" + %" PRIu64 "\n",
				rep_time(r, r->drops.span[k].start_ns, t0,
					 sizeof(t0)),
				rep_time(r, r->drops.span[k].end_ns, t1,
					 sizeof(t1)),
				(double)(r->drops.span[k].end_ns -
					 r->drops.span[k].start_ns) / 1e9,
				r->drops.span[k].drop, r->drops.span[k].ifdrop);
		fprintf(r->out, "  operations of that time may be missing or "
			"shown unanswered; counts and rates there are too low "
			"(a larger -B buffer or a -f filter helps; a smaller -s "
			"hides records in coalesced TCP segments)\n");
	}
	if (rep_evictions(r))
		fprintf(r->out, "INCOMPLETE: %" PRIu64 " entries evicted for "
			"memory budgets (see Capture health): some operations "
			"or paths are missing (raise --xid-max, --dec-xid-max, "
			"--flows-max, --frag-mem, --names-max or --late-mem)\n",
			rep_evictions(r));
	text_hidden(r);
	text_nfs4(r);
}

static void rep_text(const struct rep *r)
{
	const struct an_figs_totals *t = an_figs_totals(r->figs);
	double d = rep_duration_s(r);
	char rns[48] = "";

	if (t->reply_not_seen)	/* their reply may be among hidden records */
		snprintf(rns, sizeof(rns), ", %" PRIu64 " reply not seen",
			 t->reply_not_seen);
	char t0[48], t1[48], z[64], span[200] = "";

	if (r->first_ns)
		snprintf(span, sizeof(span), " from %s to %s (%s)",
			 rep_time(r, r->first_ns, t0, sizeof(t0)),
			 rep_time(r, r->last_ns, t1, sizeof(t1)),
			 ui_time_zone(r->first_ns, r->tmode, z, sizeof(z)));
	fprintf(r->out, "nfscope report: %s\n%" PRIu64 " packets over %.3f s"
		"%s, %" PRIu64 " operations (%" PRIu64 " answered, %" PRIu64
		" unanswered%s, %" PRIu64 " errors), %.1f ops/s\n", r->source,
		r->cs.packets, d, span, t->ops, t->answered, t->unanswered,
		rns, t->errors, d > 0 ? (double)t->ops / d : 0.0);
	rep_text_incomplete(r);
	text_ops(r);
	text_sizes(r);
	text_writes(r);
	text_retrans(r);
	text_findings(r);
	text_health(r);
	if (r->interval_ns)
		text_intervals(r);
}

/* -------------------------------------------------------- thresholds -- */

/* --threshold NAME=VALUE: the fields of struct an_find_config by name. */
static const struct {
	const char *name;
	size_t off;
	bool dbl;
	double lo, hi;
} thr[] = {
#define U(f, lo, hi) { #f, offsetof(struct an_find_config, f), false, lo, hi }
#define D(f, lo, hi) { #f, offsetof(struct an_find_config, f), true, lo, hi }
	U(getattr_rate, 1, 1e9), U(access_rate, 1, 1e9), U(lookup_rate, 1, 1e9),
	U(storm_min_s, 1, 86400), U(storm_gap_s, 0, 3600), D(storm_share, 0, 1),
	U(storm_window_ms, 10, 2500), U(storm_burst, 1, 1000),
	U(reval_ms, 1, 3600000), U(noent_repeat, 1, 1e9), U(commit_rate, 1, 1e9),
	D(commit_per_write, 0, 1e6), U(commit_min, 1, 1e9),
	U(commit_gap_s, 0, 3600), U(error_min, 1, 1e9),
	U(error_gap_s, 0, 3600), D(sync_share, 0, 1), U(sync_min, 1, 1e9),
	D(sync_client_share, 0, 1), U(sync_client_min, 1, 1e9),
	U(size_share, 1, 100), U(short_io_min, 1, 1e9), D(short_io_share, 0, 1),
	U(slow_ms, 1, 3600000), U(slow_min, 1, 1e9),
	U(shift_interval_s, 1, 86400), D(shift_factor, 1, 1e6),
	U(shift_min_ms, 0, 3600000), U(shift_min_ops, 1, 1e9),
	U(retrans_min, 1, 1e9), D(retrans_share, 0, 1),
#undef U
#undef D
};

static int parse_threshold(struct an_find_config *c, const char *arg)
{
	const char *eqs = strchr(arg, '=');
	size_t k, n = eqs ? (size_t)(eqs - arg) : 0;
	char *end;
	double v;

	for (k = 0; eqs && k < sizeof(thr) / sizeof(thr[0]); k++) {
		if (strlen(thr[k].name) != n || strncmp(thr[k].name, arg, n))
			continue;
		v = strtod(eqs + 1, &end);
		if (end == eqs + 1 || *end || !(v >= thr[k].lo && v <= thr[k].hi) ||
		    (!thr[k].dbl && v != (double)(uint32_t)v))
			break;
		if (thr[k].dbl)
			*(double *)((char *)c + thr[k].off) = v;
		else
			*(uint32_t *)((char *)c + thr[k].off) = (uint32_t)v;
		return 0;
	}
	fprintf(stderr, "nfscope report: bad --threshold '%s' (NAME=VALUE; "
		"--thresholds lists names, defaults and ranges)\n", arg);
	return -1;
}

static void list_thresholds(FILE *f)
{
	struct an_find_config d;
	size_t k;

	an_find_config_default(&d);
	fputs("threshold            default      range (doc/report.md)\n", f);
	for (k = 0; k < sizeof(thr) / sizeof(thr[0]); k++) {
		const char *p = (const char *)&d + thr[k].off;

		if (thr[k].dbl)
			fprintf(f, "%-20s %-12g %g..%g\n", thr[k].name,
				*(const double *)p, thr[k].lo, thr[k].hi);
		else
			fprintf(f, "%-20s %-12u %g..%g\n", thr[k].name,
				*(const uint32_t *)p, thr[k].lo, thr[k].hi);
	}
}

/* ------------------------------------------------------------- main -- */

static void report_usage(FILE *f)
{
	fputs("usage: nfscope report [-r FILE | -i IFACE] [-f FILTER] "
	      "[-s SNAPLEN] [-c COUNT] [-B KIB] [-p] [-Z USER]\n"
	      "                      [--duration S] [budgets]\n"
	      "       nfscope report OUT.db [--run N | --runs]   (a database "
	      "written by nfscope record)\n"
	      "                      [--from T] [--to T] [--client ADDR] "
	      "[--server ADDR] [--op NAME[,NAME]]...\n"
	      "                      [--json] [--csv TABLE] "
	      "[--by op|client|server|export|file]\n"
	      "                      [--interval SECONDS] [--every SECONDS] [--top N] "
	      "[--threshold NAME=VALUE]... [--thresholds]\n"
	      "                      [EXPRESSION]   (a BPF filter, as tcpdump's)\n"
	      "CSV tables: ops (the --by grouping), sizes, writes, retrans, "
	      "findings, servers, intervals, drops\n" UI_SRC_USAGE, f);
}

/* Every (program, version, procedure) dec_proc_name knows, in order: calls
 * fn with each name; stops and returns true when fn does. */
static bool each_proc_name(bool (*fn)(const char *name, void *u), void *u)
{
	static const uint32_t progs[] = { PROG_NFS, PROG_MOUNT, PROG_PORTMAP,
		PROG_NLM, PROG_NSM, PROG_NFS_ACL, PROG_NFS4_CB };
	uint32_t i, vers, proc;
	const char *p;

	for (i = 0; i < sizeof(progs) / sizeof(progs[0]); i++)
		for (vers = 1; vers <= 4; vers++)
			for (proc = 0; proc < 64; proc++)
				if ((p = dec_proc_name(progs[i], vers, proc)) &&
				    fn(p, u))
					return true;
	return false;
}

/* The first name dec_proc_name gives that equals f->name (any case), and
 * its position in each_proc_name's order. */
struct proc_first {
	const char *name;
	const char *found;
	unsigned pos;
};

static bool proc_first(const char *name, void *u)
{
	struct proc_first *f = u;

	if (strcasecmp(name, f->name) != 0) {
		f->pos++;
		return false;
	}
	f->found = name;
	return true;
}

struct proc_list {
	FILE *out;
	unsigned pos;
};

/* Print each name once: where it occurs first. */
static bool print_new_name(const char *name, void *u)
{
	struct proc_list *l = u;
	struct proc_first f = { name, NULL, 0 };

	(void)each_proc_name(proc_first, &f);
	if (f.pos == l->pos++)
		fprintf(l->out, " %s", name);
	return false;
}

/* --op NAME: one of the procedure names nfscope decodes. */
static int check_op(const char *arg)
{
	struct proc_first f = { arg, NULL, 0 };
	struct proc_list l = { stderr, 0 };

	if (each_proc_name(proc_first, &f))
		return 0;
	fprintf(stderr, "nfscope report: unknown procedure '%s' for --op; "
		"valid names (any case):", arg);
	(void)each_proc_name(print_new_name, &l);
	fputc('\n', stderr);
	return -1;
}

/* --op NAME[,NAME...], repeatable: every name is kept. */
static int add_ops(struct store_filter *f, const char *arg)
{
	char name[sizeof(f->op[0])];
	const char *p = arg, *comma;
	size_t n;

	do {
		comma = strchr(p, ',');
		n = comma ? (size_t)(comma - p) : strlen(p);
		if (n == 0 || n >= sizeof(name)) {
			fprintf(stderr, "nfscope report: bad --op '%s' (NAME "
				"or NAME,NAME,...)\n", arg);
			return -1;
		}
		memcpy(name, p, n);
		name[n] = '\0';
		if (check_op(name) < 0)
			return -1;
		if (f->n_op == STORE_FILTER_OPS) {
			fprintf(stderr, "nfscope report: more than %d --op "
				"names\n", STORE_FILTER_OPS);
			return -1;
		}
		memcpy(f->op[f->n_op++], name, n + 1);
		p = comma + 1;
	} while (comma);
	return 0;
}

/* --from/--to (time of the first call), --client/--server, --op. */
static int parse_filter(struct store_filter *f, int opt, const char *arg)
{
	switch (opt) {
	case 'K':
		f->have_client = store_addr_parse(arg, &f->client) == 0;
		if (f->have_client)
			return 0;
		break;
	case 'V':
		f->have_server = store_addr_parse(arg, &f->server) == 0;
		if (f->have_server)
			return 0;
		break;
	default:
		return add_ops(f, arg);
	}
	fprintf(stderr, "nfscope report: bad filter value '%s' (--client/"
		"--server: an address)\n", arg);
	return -1;
}

/* --from/--to T (times.h), once --utc is known; a time of day waits for
 * the first packet (rep_resolve_times). */
static int parse_span(struct rep *r, const char *from, const char *to)
{
	const char *bad = NULL;

	if (from && ui_time_parse(from, r->tmode, &r->from) < 0)
		bad = from;
	if (to && ui_time_parse(to, r->tmode, &r->to) < 0)
		bad = to;
	if (bad) {
		fprintf(stderr, "nfscope report: bad time '%s' for --from/--to "
			"(HH:MM[:SS] on the first packet's day, YYYY-MM-DD "
			"[HH:MM[:SS]], ISO 8601 with T and a zone, epoch "
			"seconds, or +SECONDS after the first packet)\n", bad);
		return -1;
	}
	r->filt.have_from = from != NULL;
	r->filt.have_to = to != NULL;
	r->from_tod = from && r->from.kind == UI_TS_TOD;
	r->to_tod = to && r->to.kind == UI_TS_TOD;
	r->filt.from_rel = from && r->from.kind == UI_TS_REL;
	r->filt.to_rel = to && r->to.kind == UI_TS_REL;
	r->filt.from_ns = r->from.ns;
	r->filt.to_ns = r->to.ns;
	return 0;
}

void rep_resolve_times(struct rep *r, int64_t first_ns)
{
	if (r->from_tod)
		r->filt.from_ns = ui_time_resolve(&r->from, first_ns, r->tmode);
	if (r->to_tod)
		r->filt.to_ns = ui_time_resolve(&r->to, first_ns, r->tmode);
	r->from_tod = r->to_tod = false;
}

/* --from/--to narrow the time span rates are computed over. */
static void rep_clamp(struct rep *r)
{
	int64_t first = r->first_ns, t;

	rep_resolve_times(r, first);
	if (r->filt.have_from) {
		t = r->filt.from_rel ? first + r->filt.from_ns : r->filt.from_ns;
		if (t > r->first_ns)
			r->first_ns = t;
	}
	if (r->filt.have_to) {
		t = r->filt.to_rel ? first + r->filt.to_ns : r->filt.to_ns;
		if (t < r->last_ns)
			r->last_ns = t;
	}
	if (r->last_ns < r->first_ns)
		r->last_ns = r->first_ns;
}

/* report DB of a run without every operation: the text report of its
 * aggregates; what needs every operation is refused, saying why. */
static int report_partial(struct rep *r, const char *db,
			  const struct store_run *run, bool needs_ops)
{
	if (needs_ops) {
		fprintf(stderr, "nfscope report: %s: run %" PRId64 " was "
			"recorded with --ops %s: only the text report by "
			"procedure is built from its aggregate tables; --json, "
			"--csv, --by, --interval and --every need every "
			"operation (--ops all).  The tables are there for SQL "
			"(doc/store.md)\n", db, run->id,
			run->ops_mode == STORE_OPS_SLOW ? "slow" : "none");
		return 1;
	}
	return rep_partial_text(r, db, run) < 0 ? 1 : 0;
}

static int parse_by(const char *s, enum an_group *g)
{
	int k;

	for (k = 0; k < AN_BY_N; k++)
		if (!strcmp(s, rep_group_names[k])) {
			*g = (enum an_group)k;
			return 0;
		}
	return -1;
}

int ui_report_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		UI_SRC_LONGOPTS,
		{ "json", no_argument, NULL, 'J' },
		{ "csv", required_argument, NULL, 'C' },
		{ "by", required_argument, NULL, 'Y' },
		{ "interval", required_argument, NULL, 'I' },
		{ "every", required_argument, NULL, 'G' },
		{ "top", required_argument, NULL, 'T' },
		{ "threshold", required_argument, NULL, 'H' },
		{ "thresholds", no_argument, NULL, 'L' },
		{ "run", required_argument, NULL, 'U' },
		{ "runs", no_argument, NULL, 'W' },
		{ "from", required_argument, NULL, 'A' },
		{ "to", required_argument, NULL, 'E' },
		{ "client", required_argument, NULL, 'K' },
		{ "server", required_argument, NULL, 'V' },
		{ "op", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ui_src_opts so;
	struct rep r;
	struct an_figs_config fc;
	struct an_find_config dc;
	struct run_config c;
	struct run_hooks h = { .op = on_op_sums, .drops = on_drops,
			       .end = on_end };
	struct store_run run;
	struct an_names *names = NULL;
	const char *csv = NULL, *db = NULL, *from = NULL, *to = NULL;
	int64_t run_id = 0;
	bool list_runs = false;
	bool json = false;
	double secs;
	char *end;
	uint64_t v;
	int64_t every_ns = 0;
	int opt, rc;

	memset(&r, 0, sizeof(r));
	memset(&fc, 0, sizeof(fc));
	an_find_config_default(&dc);
	r.top = 20;
	ui_src_opts_init(&so);
	optind = 1;
	while ((opt = getopt_long(argc, argv, UI_SRC_OPTSTRING "h", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'J':
			json = true;
			continue;
		case 'C':
			csv = optarg;
			continue;
		case 'Y':
			if (parse_by(optarg, &r.by) < 0) {
				fprintf(stderr, "nfscope report: bad --by '%s'\n",
					optarg);
				return 2;
			}
			continue;
		case 'I':
			secs = strtod(optarg, &end);
			if (*end || !(secs >= 0.001 && secs <= 86400)) {
				fprintf(stderr, "nfscope report: bad --interval "
					"'%s' (0.001..86400 s)\n", optarg);
				return 2;
			}
			r.interval_ns = (int64_t)(secs * 1e9);
			continue;
		case 'G':
			secs = strtod(optarg, &end);
			if (end == optarg || *end || !(secs >= 0.001 &&
						       secs <= 86400))
				return ui_usage_error("report", "bad --every "
						      "'%s' (0.001..86400 s)",
						      optarg);
			every_ns = (int64_t)(secs * 1e9);
			continue;
		case 'T':
			if (!ui_parse_u64(optarg, &v) || v == 0 || v > 1000000) {
				fprintf(stderr, "nfscope report: bad --top '%s'\n",
					optarg);
				return 2;
			}
			r.top = (uint32_t)v;
			continue;
		case 'H':
			if (parse_threshold(&dc, optarg) < 0)
				return 2;
			continue;
		case 'L':
			list_thresholds(stdout);
			return 0;
		case 'U':
			if (!ui_parse_u64(optarg, &v) || v == 0 ||
			    v > INT64_MAX) {
				fprintf(stderr, "nfscope report: bad --run '%s'\n",
					optarg);
				return 2;
			}
			run_id = (int64_t)v;
			continue;
		case 'W':
			list_runs = true;
			continue;
		case 'A':
		case 'E':
			*(opt == 'A' ? &from : &to) = optarg;
			r.filtered = true;
			continue;
		case 'K':
		case 'V':
		case 'P':
			if (parse_filter(&r.filt, opt, optarg) < 0)
				return 2;
			r.filtered = true;
			continue;
		case 'h':
			report_usage(stdout);
			return 0;
		default:
			break;
		}
		rc = ui_src_opt(&so, opt, optarg);
		if (rc == 1)
			continue;
		return rc == 0 ? ui_usage_error("report", NULL) : 2;
	}
	r.tmode = so.time_mode;
	if (parse_span(&r, from, to) < 0)
		return 2;
	if (csv && rep_csv(NULL, csv) < 0)
		return ui_usage_error("report", "unknown CSV table '%s' (ops, "
				      "sizes, writes, shortio, retrans, "
				      "findings, servers, intervals, drops)",
				      csv);
	if (every_ns && (csv || json))
		return ui_usage_error("report", "--every prints text blocks: "
				      "not with --%s", csv ? "csv" : "json");
	if (csv && json)
		return ui_usage_error("report", "--csv TABLE and --json exclude "
				      "each other: give one");
	if (optind + 1 == argc && !so.file && !so.iface) {
		db = argv[optind++];	/* report OUT.db */
		if (!rep_is_store(db) && access(db, R_OK) == 0)
			return ui_usage_error("report", "%s is not a database "
					      "written by nfscope record (a "
					      "capture is read with -r %s)",
					      db, db);
	} else if (so.nfiles == 1 && rep_is_store(so.file)) {
		db = so.file;		/* report -r OUT.db */
	}
	if (optind < argc && (db || (!so.file && !so.iface)))
		return ui_usage_error("report", db ? "a filter expression "
				      "('%s') applies to a capture (-r FILE, "
				      "-i IFACE), not to a database" :
				      "no input: give -r FILE or -i IFACE ('%s' "
				      "begins a filter expression)",
				      argv[optind]);
	if (ui_src_args(&so, "report", argc, argv, optind) < 0)
		return 2;
	if (list_runs) {
		if (!db) {
			fprintf(stderr, "nfscope report: --runs needs a database\n");
			return 2;
		}
		return rep_store_list(db, stdout, r.tmode) < 0 ? 1 : 0;
	}
	if (run_id && !db) {
		fprintf(stderr, "nfscope report: --run needs a database "
			"(nfscope report OUT.db --run N)\n");
		return 2;
	}
	ui_run_config(&so, "report", &c);
	c.ops_only = db != NULL;	/* a database's ops: run_put_op */
	c.analyze = true;
	c.dec.no_attrs = true;		/* no figure uses attribute values */
	c.progress = so.file && isatty(2);
	if (run_open(&r.run, &c) < 0)
		return 1;
	if (run_after_open(r.run) < 0) {
		run_free(r.run);
		return 1;
	}
	r.source = ui_src_name(&so);
	r.out = stdout;
	fc.interval_ns = r.interval_ns ? r.interval_ns : 1000000000;
	r.size_share = dc.size_share;
	r.figs = an_figs_new(&fc);
	if (every_ns && (r.every = rep_every_new(every_ns)) == NULL)
		r.figs = (an_figs_free(r.figs), NULL);	/* out of memory */
	r.find = an_find_new(&dc);
	/*
	 * With none of the operation filters (--from, --to, --client,
	 * --server, --op) and a capture, the engine runs on the second
	 * thread with the figures and findings: the capture thread only
	 * reads and decodes.  Otherwise the filter runs where the ops come
	 * from (keep) and the ops that pass go to the second thread.
	 */
	h.keep = db || r.filtered ? on_op : NULL;
	h.user = &r;
	rc = 1;
	if (!r.figs || !r.find) {
		fprintf(stderr, "nfscope: out of memory\n");
		goto out;
	}
	if (run_go(r.run, &h) < 0)
		goto out;
	if (db) {
		if (rep_store_load(&r, db, run_id, &run, &names,
				   on_stored_op) < 0)
			goto out;
		if (r.partial) {
			rc = report_partial(&r, db, &run, csv || json ||
					    every_ns || r.interval_ns ||
					    r.by != AN_BY_OP);
			goto out;
		}
		run_finish(r.run);	/* the findings are ours again */
	}
	rep_every_end(&r);
	rep_clamp(&r);
	an_find_finish(r.find, r.figs, r.cs.ipfrag_incomplete);
	rc = 0;
	if (csv) {
		(void)rep_csv(&r, csv);	/* the name was checked above */
	} else if (json) {
		rep_json(&r);
	} else {
		rep_text(&r);
	}
	/* stdout is flushed and checked by main (ui_out_close) */
	if (rc == 0 && r.cut && !db)
		rc = UI_EXIT_CUT;
out:
	run_free(r.run);	/* first: its threads use figs, find, every */
	an_find_free(r.find);
	an_figs_free(r.figs);
	rep_every_free(r.every);
	an_names_free(names);
	return rc;
}
