/* report_text.c - `nfscope report`'s text: a writer over the report model
 * (analyze/model.h), which holds every figure; see report.h and
 * nfscope(1), OUTPUT. */
#include "ui/esc.h"
#include "ui/report/report_text.h"
#include "ui/report/rep.h"
#include "ui/report/report_model.h"
#include "ui/report/report_verdict.h"
#include "ui/wrap.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

const char *rep_time(const struct rep *r, int64_t ns, char *buf, size_t n)
{
	return ui_time_str(ns, r->tmode, 6, buf, n);
}

/* A row's key with its paths escaped (esc.h), cut to n - 1 bytes. */
static const char *text_key(const struct an_model *m, const struct an_row *w,
			    char *buf, size_t n)
{
	char raw[AN_PATH_MAX + 96], e[4 * (AN_PATH_MAX + 96)];

	an_model_row_key(m, w, raw, sizeof(raw));
	snprintf(buf, n, "%s", ui_esc_str(e, sizeof(e), raw, NULL));
	return buf;
}

/* The narrow table's key column; the narrow latency: 6 columns at most
 * up to 999999 ms, 4 significant digits or more. */
#define NARROW_KEY 19

void rep_text_lat_header(FILE *f, const char *first, bool wide)
{
	if (!wide) {
		fprintf(f, "%-*s %7s %6s %5s %5s %5s %6s %6s %6s %6s\n",
			NARROW_KEY, first, "Calls", "Ops/s", "Err", "kB/op",
			"Retr%", "Avg ms", "p50", "p99", "Max ms");
		return;
	}
	fprintf(f, "%-30s %9s %9s %6s %8s %10s %6s %10s %10s %10s %10s %10s "
		"%10s %10s\n", first, "Calls", "Ops/s", "Err", "kB/op", "kB/s",
		"Retr%", "Min ms", "Avg ms", "Max ms", "p50", "p95", "p99",
		"p99.9");
}

/* The row of the 80-column table: the columns an admin reads first. */
static void lat_row_narrow(FILE *f, const char *name,
			   const struct an_model_row *w)
{
	const struct an_lat *l = &w->lat;
	char k[NARROW_KEY + 1], a[32], b[32], c[32], d[32];

	fprintf(f, "%-*s %7" PRIu64 " %6.1f %5" PRIu64, NARROW_KEY,
		ui_shorten_mid(k, sizeof(k), name, NARROW_KEY), w->row->calls,
		w->ops_per_s, w->row->errors);
	if (w->has_data)
		fprintf(f, w->data_kib_per_op < 999.95 ? " %5.1f" : " %5.0f",
			w->data_kib_per_op);
	else
		fprintf(f, " %5s", "-");
	fprintf(f, " %5.1f", w->retrans_pct);
	if (l->count == 0) {
		fprintf(f, " %6s %6s %6s %6s\n", "-", "-", "-", "-");
		return;
	}
	fprintf(f, " %6s %6s %6s %6s\n", ui_fmt_ms(l->avg_ms, a, sizeof(a)),
		ui_fmt_ms(l->p50_ms, b, sizeof(b)), ui_fmt_ms(l->p99_ms, c, sizeof(c)),
		ui_fmt_ms(l->max_ms, d, sizeof(d)));
}

/* --by file in 80 columns: a wider key, fewer figures. */
#define FILE_KEY 39

static void file_header_narrow(FILE *f)
{
	fprintf(f, "%-*s %7s %5s %5s %6s %6s %6s\n", FILE_KEY,
		"File (top by calls)", "Calls", "Err", "Retr%",
		"Avg ms", "p99", "Max ms");
}

static void file_row_narrow(FILE *f, const char *name,
			    const struct an_model_row *w)
{
	const struct an_lat *l = &w->lat;
	char k[FILE_KEY + 1], a[32], c[32], d[32];

	fprintf(f, "%-*s %7" PRIu64 " %5" PRIu64, FILE_KEY,
		ui_shorten_mid(k, sizeof(k), name, FILE_KEY), w->row->calls,
		w->row->errors);
	fprintf(f, " %5.1f", w->retrans_pct);
	if (l->count == 0)
		fprintf(f, " %6s %6s %6s\n", "-", "-", "-");
	else
		fprintf(f, " %6s %6s %6s\n", ui_fmt_ms(l->avg_ms, a, sizeof(a)),
			ui_fmt_ms(l->p99_ms, c, sizeof(c)),
			ui_fmt_ms(l->max_ms, d, sizeof(d)));
}

void rep_text_lat_row(FILE *f, const char *name, const struct an_model_row *w,
		      bool wide)
{
	const struct an_lat *l = &w->lat;

	if (!wide) {
		lat_row_narrow(f, name, w);
		return;
	}
	fprintf(f, "%-30s %9" PRIu64 " %9.1f %6" PRIu64, name, w->row->calls,
		w->ops_per_s, w->row->errors);
	if (w->has_data)
		fprintf(f, " %8.1f %10.1f", w->data_kib_per_op,
			w->data_kib_per_s);
	else
		fprintf(f, " %8s %10s", "-", "-");
	fprintf(f, " %6.1f", w->retrans_pct);
	if (l->count == 0) {
		fputs("          -          -          -\n", f);
		return;
	}
	fprintf(f, " %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f\n",
		l->min_ms, l->avg_ms, l->max_ms, l->p50_ms, l->p95_ms,
		l->p99_ms, l->p99_9_ms);
}

static void text_errors(FILE *f, const struct an_row *w)
{
	char b[32], p[64];
	int k;

	if (!w->errors)
		return;
	fprintf(f, "    errors %s:", an_model_proc_name(w->prog, w->vers,
		w->proc, p, sizeof(p)));
	for (k = 0; k < AN_STATUS_SLOTS && w->st[k].n; k++)
		fprintf(f, " %s=%" PRIu64,
			an_model_status_name(w, w->st[k].status, b, sizeof(b)),
			w->st[k].n);
	if (w->st_other)
		fprintf(f, " other=%" PRIu64, w->st_other);
	if (w->rpc_errors)
		fprintf(f, " rpc_rejected=%" PRIu64, w->rpc_errors);
	fputc('\n', f);
}

/* The ops known from their reply alone, per procedure (by-op rows). */
static void text_from_replies(FILE *f, const struct an_model *m)
{
	uint32_t k;
	bool head = false;
	char name[96];

	for (k = 0; k < m->nrows[AN_BY_OP]; k++) {
		const struct an_row *w = m->rows[AN_BY_OP][k].row;

		if (w->from_replies == 0)
			continue;
		if (!head)
			fprintf(f, "From replies (call not in the capture,"
				" procedure from the reply's shape; no latency;"
				" not in Calls above):\n");
		head = true;
		fprintf(f, "  %-28s %9" PRIu64 "\n",
			an_model_proc_name(w->prog, w->vers, w->proc, name,
					   sizeof(name)), w->from_replies);
	}
}

/* A group's heading (--by client, server, export): its key cut in the
 * middle to the line (80 columns), whole with --wide. */
static void text_group(const struct rep *r, const struct an_model *m,
		       const struct an_row *w)
{
	char key[AN_PATH_MAX + 96], s[UI_WRAP_COLS];
	const char *g = rep_group_names[r->by];

	text_key(m, w, key, sizeof(key));
	fprintf(r->out, "\n%s %s\n", g, r->wide ? key : ui_shorten_mid(s,
		sizeof(s), key, UI_WRAP_COLS - 1 - strlen(g)));
}

static void text_ops(const struct rep *r, const struct an_model *m)
{
	const struct an_model_row *v = m->rows[r->by];
	uint32_t k, n = m->nrows[r->by];
	char name[96], key[AN_PATH_MAX + 96];
	const struct an_row *prev = NULL;

	fprintf(r->out, "\n== Operations (by %s; latency from the first "
		"transmission, ms) ==\n", rep_group_names[r->by]);
	if (r->by == AN_BY_OP)
		rep_text_lat_header(r->out, "Procedure", r->wide);
	else if (r->by == AN_BY_FILE && !r->wide)
		file_header_narrow(r->out);
	else if (r->by == AN_BY_FILE)
		rep_text_lat_header(r->out, "File (top by calls)", r->wide);
	for (k = 0; k < n; k++) {
		const struct an_row *w = v[k].row;

		if (w->calls == 0)
			continue;	/* only from replies: said below */
		if (r->by == AN_BY_FILE && !r->wide) {
			file_row_narrow(r->out, text_key(m, w, key,
					sizeof(key)), &v[k]);
			continue;
		}
		if (r->by == AN_BY_FILE) {
			rep_text_lat_row(r->out, text_key(m, w, key,
					 sizeof(key)), &v[k], r->wide);
			continue;
		}
		if (r->by != AN_BY_OP && (prev == NULL ||
		    memcmp(&prev->addr, &w->addr, sizeof(w->addr)) ||
		    prev->export_id != w->export_id)) {
			text_group(r, m, w);
			rep_text_lat_header(r->out, "  Procedure", r->wide);
		}
		prev = w;
		snprintf(key, sizeof(key), "%s%s", r->by == AN_BY_OP ? "" : "  ",
			 an_model_proc_name(w->prog, w->vers, w->proc, name,
					    sizeof(name)));
		rep_text_lat_row(r->out, key, &v[k], r->wide);
	}
	for (k = 0; k < n; k++)
		if (r->by == AN_BY_OP || v[k].row->proc != AN_PROC_ALL)
			text_errors(r->out, v[k].row);
	if (r->by == AN_BY_OP)
		text_from_replies(r->out, m);
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

/* READ or WRITE of a pair: sizes asked, sizes granted to calls not seen,
 * the verdict (NULL: none). */
static void text_sizes_op(FILE *f, const char *op, const struct an_sizes *asked,
			  const struct an_sizes *granted, const char *verdict)
{
	char what[64];

	if (asked->total)
		text_sizes_line(f, op, asked);
	if (granted->total) {
		snprintf(what, sizeof(what), "%s from replies (granted, call "
			 "not seen)", op);
		text_sizes_line(f, what, granted);
	}
	if (verdict)
		fprintf(f, "  verdict: %s\n", verdict);
}

static void text_sizes(FILE *f, const struct an_model *m)
{
	uint32_t k;
	char a[64], b[64];

	fprintf(f, "\n== Transfer sizes and verdicts ==\n");
	for (k = 0; k < m->nservers; k++) {
		const struct an_server *s = m->servers[k].server;

		if (s->have_fsinfo)
			fprintf(f, "server %s FSINFO: rtmax %u rtpref %u "
				"wtmax %u wtpref %u dtpref %u\n",
				cap_addr_str(&s->addr, a, sizeof(a)), s->rtmax,
				s->rtpref, s->wtmax, s->wtpref, s->dtpref);
		if (s->have_statfs)
			fprintf(f, "server %s STATFS (v2): tsize %u\n",
				cap_addr_str(&s->addr, a, sizeof(a)), s->tsize);
	}
	for (k = 0; k < m->npairs; k++) {
		const struct an_pair *p = m->pairs[k].pair;

		if (p->have_session)
			fprintf(f, "session %s -> %s: maxreq %u maxresp %u "
				"(CREATE_SESSION)\n",
				cap_addr_str(&p->client, a, sizeof(a)),
				cap_addr_str(&p->server, b, sizeof(b)),
				p->sess_maxreq, p->sess_maxresp);
	}
	for (k = 0; k < m->npairs; k++) {
		const struct an_model_pair *q = &m->pairs[k];
		const struct an_pair *p = q->pair;

		if (p->reads == 0 && p->writes == 0 &&
		    p->read_rep.total == 0 && p->write_rep.total == 0)
			continue;
		fprintf(f, "%s -> %s: %" PRIu64 " READs (%" PRIu64 " bytes, "
			"%" PRIu64 " short, %" PRIu64 " at EOF), %" PRIu64
			" WRITEs (%" PRIu64 " bytes, %" PRIu64 " short)\n",
			cap_addr_str(&p->client, a, sizeof(a)),
			cap_addr_str(&p->server, b, sizeof(b)), p->reads,
			p->bytes_read, p->short_reads, p->read_eof, p->writes,
			p->bytes_written, p->short_writes);
		text_sizes_op(f, "READ", &p->read, &p->read_rep,
			      q->has_read_verdict ? q->read_verdict : NULL);
		text_sizes_op(f, "WRITE", &p->write, &p->write_rep,
			      q->has_write_verdict ? q->write_verdict : NULL);
	}
}

static void text_writes(const struct rep *r, const struct an_model *m)
{
	static const char *const sn[4] = { "UNSTABLE", "DATA_SYNC",
		"FILE_SYNC", "(no reply)" };
	uint32_t k, i, j;
	char a[64], b[64];

	fprintf(r->out, "\n== Writes ==\n");
	for (k = 0; k < m->npairs; k++) {
		const struct an_pair *p = m->pairs[k].pair;

		if (p->writes == 0 && p->commits == 0)
			continue;
		fprintf(r->out, "%s -> %s: %" PRIu64 " WRITEs, %" PRIu64
			" COMMITs (%.3f per WRITE)\n",
			cap_addr_str(&p->client, a, sizeof(a)),
			cap_addr_str(&p->server, b, sizeof(b)), p->writes,
			p->commits, m->pairs[k].commits_per_write);
		for (i = 0; i < 3; i++)
			for (j = 0; j < 4; j++)
				if (p->stable[i][j])
					fprintf(r->out, "  asked %-9s granted %-10s"
						" %" PRIu64 "\n", sn[i], sn[j],
						p->stable[i][j]);
	}
	for (k = 0; k < m->nservers; k++) {
		const struct an_model_server *ms = &m->servers[k];
		const struct an_server *s = ms->server;

		if (ms->has_commit)
			fprintf(r->out, "server %s COMMIT latency ms: min %.3f "
				"avg %.3f p95 %.3f max %.3f (%" PRIu64 ")\n",
				cap_addr_str(&s->addr, a, sizeof(a)),
				ms->commit.min_ms, ms->commit.avg_ms,
				ms->commit.p95_ms, ms->commit.max_ms,
				ms->commit.count);
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

/* A row of retransmissions by client and procedure: one line (--wide), or
 * a row of a table of 80 columns (its header before the first). */
static void retrans_row(const struct rep *r, const struct an_model_row *v,
			bool first)
{
	const struct an_row *w = v->row;
	char a[64], p[96], x[32], y[32], z[32];

	cap_addr_str(&w->addr, a, sizeof(a));
	an_model_proc_name(w->prog, w->vers, w->proc, p, sizeof(p));
	if (r->wide) {
		fprintf(r->out, "%-16s %-22s retrans %" PRIu64 " (ops %" PRIu64
			") dup %" PRIu64 " unanswered %" PRIu64, a, p,
			w->retrans, w->retrans_ops, w->dup_replies, w->unanswered);
		if (v->ivl.count)
			fprintf(r->out, " interval ms min %.3f p50 %.3f max %.3f",
				v->ivl.min_ms, v->ivl.p50_ms, v->ivl.max_ms);
		fputc('\n', r->out);
		return;
	}
	if (first)
		fprintf(r->out, "%-15s %-17s %6s %6s %5s %5s %6s %6s %6s\n",
			"Client", "Procedure", "Resent", "(ops)", "Dup", "Unans",
			"MinIvl", "p50", "MaxIvl");
	fprintf(r->out, "%-15s %-17s %6" PRIu64 " %6" PRIu64 " %5" PRIu64
		" %5" PRIu64, a, p, w->retrans, w->retrans_ops, w->dup_replies,
		w->unanswered);
	if (v->ivl.count)
		fprintf(r->out, " %6s %6s %6s", ui_fmt_ms(v->ivl.min_ms, x,
			sizeof(x)), ui_fmt_ms(v->ivl.p50_ms, y, sizeof(y)),
			ui_fmt_ms(v->ivl.max_ms, z, sizeof(z)));
	fputc('\n', r->out);
}

static void text_retrans(const struct rep *r, const struct an_model *m)
{
	const struct an_stats *es = m->in.es;
	const struct dec_stats *ds = m->in.ds;
	const struct cap_stats *cs = m->in.cs;
	uint32_t k, n;
	char a[64], p[96];

	fprintf(r->out, "\n== Retransmits ==\n"
		"calls retransmitted %" PRIu64 " (%" PRIu64 " after the reply), "
		"duplicate replies %" PRIu64 ", unanswered ops %" PRIu64
		", replies without a call %" PRIu64 "\n",
		es->retrans, es->late_retrans, es->dup_replies, es->unanswered,
		ds->orphan_replies + es->replies_unmatched);
	if (es->slot_replays)	/* NFSv4.1+ sessions */
		fprintf(r->out, "NFSv4 session slot replays %" PRIu64
			" (a call on a slot with its last sequence id under "
			"another XID: a retransmission)\n", es->slot_replays);
	fprintf(r->out, "IP fragment trains incomplete %" PRIu64 ", TCP "
		"segments retransmitted %" PRIu64 ", TCP gaps %" PRIu64 " (%"
		PRIu64 " bytes)\n", cs->ipfrag_incomplete, cs->tcp_retrans,
		cs->tcp_gaps, cs->tcp_gap_bytes);
	for (k = 0; k < m->npairs; k++)	/* where the capture was taken */
		if (m->pairs[k].has_vantage)
			fprintf(r->out, "vantage %s -> %s: %s\n",
				cap_addr_str(&m->pairs[k].pair->client, a,
					     sizeof(a)),
				cap_addr_str(&m->pairs[k].pair->server, p,
					     sizeof(p)),
				m->pairs[k].vantage_text);
	for (k = 0, n = 0; k < m->nrows[AN_BY_CLIENT]; k++) {
		const struct an_row *w = m->rows[AN_BY_CLIENT][k].row;

		if (w->proc != AN_PROC_ALL &&
		    (w->retrans || w->dup_replies || w->unanswered))
			retrans_row(r, &m->rows[AN_BY_CLIENT][k], n++ == 0);
	}
}

static void text_findings(const struct rep *r, const struct an_model *m)
{
	size_t k;
	char t0[48], t1[48], ev[2 * AN_EVIDENCE_MAX], nz[2 * AN_EVIDENCE_MAX];
	const char *e;

	fprintf(r->out, "\n== Findings ==\n");
	if (m->nfindings == 0)
		fprintf(r->out, "none\n");
	for (k = 0; k < m->nfindings; k++) {
		const struct an_finding *f = m->findings[k];

		fprintf(r->out, "[%s] ", an_find_kind_name(f->kind));
		ui_time_text(f->evidence, r->tmode, ev, sizeof(ev));
		/* 80 columns: the parts that are 0 left out (JSON has all) */
		e = r->wide ? ev : ui_drop_zero_parts(nz, sizeof(nz), ev);
		ui_esc_put(r->out, e, strlen(e), NULL);
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

void rep_text_health(FILE *f, const struct an_model *m)
{
	const struct cap_stats *c = m->in.cs;
	const struct dec_stats *d = m->in.ds;
	const struct an_stats *e = m->in.es;
	const struct an_figs_totals *t = m->totals;

	fprintf(f, "\n== Capture health ==\n"
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
		c->tcp_rejected, m->in.rpc_msgs,
		d->calls,
		d->replies, d->not_rpc, d->malformed, d->truncated,
		d->orphan_replies, d->shape_fit, d->shape_ambiguous,
		d->shape_nofit, e->ops, e->answered, e->unanswered,
		e->unanswered_expired, e->unanswered_at_end, e->evicted,
		e->from_replies, e->xid_reused, e->misfit_replies, e->pending_peak,
		e->retired_early, e->names_evicted, t->rows_dropped,
		t->files_dropped, d->xid_evictions, m->findings_dropped);
	fprintf(f, "late replies: held %" PRIu64 " (matched to a later "
		"call %" PRIu64 ", timed out %" PRIu64 "), not held for the "
		"budget %" PRIu64 "; stamped before their call within the skew "
		"tolerance %" PRIu64 "\n", d->late_held, d->late_matched,
		d->late_expired, d->late_over_budget, d->skew_tolerated);
	if (t->pairs_dropped || m->findings_unexamined)
		fprintf(f, "budgets: client/server pairs dropped %" PRIu64
			", findings' looks skipped for their budgets %" PRIu64
			" (a host past the 1024 followed; storms: a client past "
			"storm_clients)\n", t->pairs_dropped,
			m->findings_unexamined);
}

static void text_intervals(const struct rep *r, const struct an_model *m)
{
	uint32_t k;
	char t[48], z[64];

	fprintf(r->out, "\n== Time series (%.3f s intervals; %s) ==\n",
		(double)m->in.interval_ns / 1e9,
		ui_time_zone(m->in.first_ns, r->tmode, z, sizeof(z)));
	if (r->wide)
		fprintf(r->out, "%-26s %9s %9s %6s %8s %10s %10s %12s\n",
			"Start", "Calls", "Ops/s", "Err", "Retrans", "Avg ms",
			"Max ms", "Bytes/s");
	else
		fprintf(r->out, "%-26s %7s %7s %5s %6s %6s %6s %10s\n",
			"Start", "Calls", "Ops/s", "Err", "Resent", "Avg ms",
			"Max ms", "Bytes/s");
	for (k = 0; k < m->nintervals; k++) {
		const struct an_model_interval *o = &m->intervals[k];
		const struct an_interval *v = o->iv;
		char a[32], b[32];

		if (r->wide)
			fprintf(r->out, "%-26s %9" PRIu64 " %9.1f %6" PRIu64
				" %8" PRIu64 " %10.3f %10.3f %12.0f%s\n",
				rep_time(r, v->start_ns, t, sizeof(t)), v->calls,
				o->ops_per_s, v->errors, v->retrans,
				o->lat_avg_ms, o->lat_max_ms, o->bytes_per_s,
				o->incomplete ? "  incomplete (drops)" : "");
		else
			fprintf(r->out, "%-26s %7" PRIu64 " %7.1f %5" PRIu64
				" %6" PRIu64 " %6s %6s %10.0f%s\n",
				rep_time(r, v->start_ns, t, sizeof(t)), v->calls,
				o->ops_per_s, v->errors, v->retrans,
				ui_fmt_ms(o->lat_avg_ms, a, sizeof(a)),
				ui_fmt_ms(o->lat_max_ms, b, sizeof(b)),
				o->bytes_per_s, o->incomplete ?
				" incomplete (drops)" : "");
	}
}

/* Records the snaplen hid (header-only TCP capture): how many, why, which
 * figures they bias, what to do. */
static void text_hidden(FILE *f, const struct an_model *m)
{
	const struct cap_stats *c = m->in.cs;

	if (c->tcp_hidden_spans == 0)
		return;
	fprintf(f, "INCOMPLETE: about %" PRIu64 " calls and %" PRIu64
		" replies were not visible: snaplen %" PRIu64 " (%" PRIu64
		" bytes of TCP payload) against TCP segments of up to %"
		PRIu64 " bytes; %"
		PRIu64 " TCP records (at least) began in the part not "
		"captured, after a large record (%" PRIu64 " bytes skipped "
		"until the stream was found again, in %" PRIu64 " flow "
		"directions; the number hidden is estimated from them)\n",
		(m->verdict ? m->verdict->hidden_calls :
		 c->tcp_hidden_calls), (m->verdict ? m->verdict->hidden_replies :
		 c->tcp_hidden_replies),
		c->snap_caplen,
		c->tcp_seg_cut_max, c->tcp_seg_max, c->tcp_hidden_spans, c->tcp_hidden_bytes,
		c->tcp_hidden_flows);
	fprintf(f, "  too low or biased: operation counts and rates, "
		"READ/WRITE size shares (large transfers hide the next "
		"record), READ/WRITE latency percentiles (pipelined ones are "
		"the hidden ones); calls whose reply was hidden are counted "
		"'reply not seen', not unanswered\n"
		"  capture with -s 0 (tcpdump -s 0), or a snaplen above the "
		"largest segment (%" PRIu64 " bytes + headers)\n",
		c->tcp_seg_max);
}

/* Holes in TCP streams the capture missed (the receiver acknowledged
 * past them): the messages in them are missing. */
static void text_gaps(FILE *f, const struct an_model *m)
{
	const struct cap_stats *c = m->in.cs;

	if (c->tcp_gaps_missed == 0)
		return;
	fprintf(f, "INCOMPLETE: %" PRIu64 " holes in TCP streams, %" PRIu64
		" bytes the capture missed (the receiver acknowledged them; a "
		"larger -B buffer helps): their calls and replies are missing, "
		"%" PRIu64 " replies came without their call\n",
		c->tcp_gaps_missed, c->tcp_gap_missed_bytes,
		m->in.ds ? m->in.ds->orphan_replies : 0);
}

/* Said first, and plainly: which figures are incomplete and why. */
void rep_text_incomplete(const struct rep *r, const struct an_model *m)
{
	const struct cap_stats *c = m->in.cs;
	uint32_t k;
	char t0[48], t1[48];

	if (r->cut) {
		char e[CAP_ERRBUF_SIZE + 96];

		fprintf(r->out, "INCOMPLETE: input cut: %s\n  every packet "
			"before it is analysed; operations whose call or reply "
			"lay after it are missing or shown unanswered\n",
			run_cut_str(&r->cut_at, e, sizeof(e)));
	}
	if (c->ps_drop || c->ps_ifdrop) {
		fprintf(r->out, "INCOMPLETE: %" PRIu64 " packets dropped by the "
			"kernel, %" PRIu64 " by the interface%s\n", c->ps_drop,
			c->ps_ifdrop, m->in.ndrops ? ", between:" :
			" (time not recorded)");
		for (k = 0; k < m->in.ndrops; k++) {
			const struct cap_drop_span *sp = &m->in.drops[k];

			fprintf(r->out, "  %s .. %s  (%.3f s): %" PRIu64
				" + %" PRIu64 "\n",
				rep_time(r, sp->start_ns, t0, sizeof(t0)),
				rep_time(r, sp->end_ns, t1, sizeof(t1)),
				(double)(sp->end_ns - sp->start_ns) / 1e9,
				sp->drop, sp->ifdrop);
		}
		fprintf(r->out, "  operations of that time may be missing or "
			"shown unanswered; counts and rates there are too low "
			"(a larger -B buffer or a -f filter helps; a smaller -s "
			"hides records in coalesced TCP segments)\n");
	}
	if (m->in.evictions)
		fprintf(r->out, "INCOMPLETE: %" PRIu64 " entries evicted for "
			"memory budgets (see Capture health): some operations "
			"or paths are missing (raise --xid-max, --dec-xid-max, "
			"--flows-max, --frag-mem, --names-max or --late-mem)\n",
			m->in.evictions);
	text_gaps(r->out, m);
	text_hidden(r->out, m);
}

static int text_report(const struct rep *r);

/* The text report into r->out as it is (--wide) or wrapped to 80
 * columns. */
int rep_text(const struct rep *r)
{
	struct rep w = *r;
	struct ui_wrap wr;
	int rc;

	w.out = ui_wrap_begin(&wr, r->out, r->wide ? 0 : UI_WRAP_COLS);
	if (w.out == NULL)
		return -1;
	rc = text_report(&w);
	if (ui_wrap_end(&wr) < 0)
		rc = -1;
	return rc;
}

static int text_report(const struct rep *r)
{
	struct an_model m;
	const struct an_figs_totals *t;
	char rns[48] = "", t0[48], t1[48], z[64], span[200] = "";

	if (rep_model(r, AN_MODEL_ROWS(r->by) | AN_MODEL_ROWS(AN_BY_CLIENT) |
		      (r->interval_ns ? AN_MODEL_INTERVALS : 0), &m) < 0)
		return -1;
	t = m.totals;
	if (t->reply_not_seen)	/* their reply may be among hidden records */
		snprintf(rns, sizeof(rns), ", %" PRIu64 " reply not seen",
			 t->reply_not_seen);
	if (r->first_ns)
		snprintf(span, sizeof(span), " from %s to %s (%s)",
			 rep_time(r, r->first_ns, t0, sizeof(t0)),
			 rep_time(r, r->last_ns, t1, sizeof(t1)),
			 ui_time_zone(r->first_ns, r->tmode, z, sizeof(z)));
	fprintf(r->out, "nfscope report: %s\n%" PRIu64 " packets over %.3f s"
		"%s, %" PRIu64 " operations (%" PRIu64 " answered, %" PRIu64
		" unanswered%s, %" PRIu64 " errors), %.1f ops/s\n", r->source,
		m.in.cs->packets, m.duration_s, span, t->ops, t->answered,
		t->unanswered, rns, t->errors, m.ops_per_s);
	rep_text_incomplete(r, &m);
	rep_text_verdict(r->out, &m);
	text_ops(r, &m);
	text_sizes(r->out, &m);
	text_writes(r, &m);
	text_retrans(r, &m);
	text_findings(r, &m);
	rep_text_health(r->out, &m);
	if (r->interval_ns)
		text_intervals(r, &m);
	an_model_fini(&m);
	return 0;
}

/* -------------------------------------------------------- thresholds -- */

int rep_threshold_parse(struct an_find_config *c, const char *arg)
{
	if (an_find_threshold_set(c, arg) == 0)
		return 0;
	fprintf(stderr, "nfscope report: bad --threshold '%s' (NAME=VALUE; "
		"--thresholds lists names, defaults and ranges)\n", arg);
	return -1;
}

void rep_thresholds_list(FILE *f)
{
	struct an_find_threshold t;
	size_t k;

	fputs("threshold            default      range (man nfscope)\n", f);
	for (k = 0; k < an_find_threshold_count(); k++) {
		an_find_threshold_get(k, &t);
		if (t.dbl)
			fprintf(f, "%-20s %-12g %g..%g\n", t.name, t.def, t.lo,
				t.hi);
		else
			fprintf(f, "%-20s %-12u %g..%g\n", t.name,
				(uint32_t)t.def, t.lo, t.hi);
	}
}
