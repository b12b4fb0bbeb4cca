/* report_out.c - `nfscope report --json` and `--csv TABLE`: writers over
 * the report model (analyze/model.h), which holds every figure; see
 * report.h and nfscope(1), OUTPUT, for the schema. */
#include "ui/esc.h"
#include "base/units.h"
#include "ui/json.h"
#include "ui/report/report_out.h"
#include "ui/report/rep.h"
#include "ui/report/report_model.h"
#include "ui/report/report_verdict.h"

#include <assert.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- JSON -- */

static void j_lat(struct jw *w, const char *key, const struct an_lat *h)
{
	jw_obj(w, key);
	jw_u64(w, "count", h->count);
	if (h->count) {
		jw_dbl(w, "min", h->min_ms, 3);
		jw_dbl(w, "avg", h->avg_ms, 3);
		jw_dbl(w, "max", h->max_ms, 3);
		jw_dbl(w, "p50", h->p50_ms, 3);
		jw_dbl(w, "p90", h->p90_ms, 3);
		jw_dbl(w, "p95", h->p95_ms, 3);
		jw_dbl(w, "p99", h->p99_ms, 3);
		jw_dbl(w, "p99_9", h->p99_9_ms, 3);
		jw_u64(w, "min_ns", h->min_ns);
		jw_u64(w, "max_ns", h->max_ns);
		jw_dbl(w, "sum_ns", h->sum_ns, 0);
	}
	jw_end_obj(w);
}

/* A row; cells_only: only the figures an interval cell holds (the
 * partial report's procedures, rep_json_row). */
static void j_row_of(struct jw *w, const struct an_model *m,
		     const struct an_model_row *mr, bool cells_only)
{
	const struct an_row *row = mr->row;
	char b[AN_PATH_MAX + 96];
	int k;

	jw_obj(w, NULL);
	if (row->group != AN_BY_OP) {
		jw_str(w, "key", an_model_row_key(m, row, b, sizeof(b)));
		if (row->group == AN_BY_FILE) {
			jw_hex(w, "fh", row->fh.data, row->fh.len);
			jw_str(w, "path", row->path);
		}
	}
	if (row->proc == AN_PROC_ALL) {
		jw_str(w, "procedure", "(all)");
	} else {
		jw_u64(w, "prog", row->prog);
		jw_u64(w, "vers", row->vers);
		jw_u64(w, "proc", row->proc);
		jw_str(w, "procedure", an_model_proc_name(row->prog,
			row->vers, row->proc, b, sizeof(b)));
	}
	jw_u64(w, "calls", row->calls);
	if (row->group == AN_BY_OP && !cells_only)
		jw_u64(w, "from_replies", row->from_replies);
	jw_u64(w, "answered", row->answered);
	jw_u64(w, "unanswered", row->unanswered);
	if (!cells_only)
		jw_u64(w, "reply_not_seen", row->reply_not_seen);
	jw_dbl(w, "ops_per_s", mr->ops_per_s, 3);
	jw_u64(w, "bytes", row->bytes);
	jw_dbl(w, "bytes_per_s", mr->bytes_per_s, 1);
	jw_u64(w, "data_bytes", row->data_bytes);
	jw_u64(w, "errors", row->errors);
	if (cells_only) {
		jw_u64(w, "retrans", row->retrans);
		jw_u64(w, "dup_replies", row->dup_replies);
		j_lat(w, "latency_ms", &mr->lat);
		jw_end_obj(w);
		return;
	}
	jw_u64(w, "rpc_errors", row->rpc_errors);
	jw_obj(w, "errors_by_status");
	for (k = 0; k < AN_STATUS_SLOTS && row->st[k].n; k++)
		jw_u64(w, an_model_status_name(row, row->st[k].status, b,
					       sizeof(b)),
		       row->st[k].n);
	if (row->st_other)
		jw_u64(w, "other", row->st_other);
	jw_end_obj(w);
	jw_u64(w, "retrans", row->retrans);
	jw_u64(w, "retrans_ops", row->retrans_ops);
	jw_u64(w, "late_retrans", row->late_retrans);
	jw_u64(w, "dup_replies", row->dup_replies);
	jw_u64(w, "truncated", row->truncated);
	j_lat(w, "latency_ms", &mr->lat);
	j_lat(w, "latency_last_ms", &mr->lat_last);
	if (mr->ivl.count)
		j_lat(w, "retrans_interval_ms", &mr->ivl);
	jw_end_obj(w);
}

static void j_row(struct jw *w, const struct an_model *m,
		  const struct an_model_row *mr)
{
	j_row_of(w, m, mr, false);
}

static void j_rows(struct jw *w, const struct an_model *m, enum an_group g,
		   const char *key)
{
	uint32_t k;

	jw_arr(w, key);
	for (k = 0; k < m->nrows[g]; k++)
		j_row(w, m, &m->rows[g][k]);
	jw_end_arr(w);
}

static void j_sizes(struct jw *w, const char *key, const struct an_sizes *s)
{
	uint32_t k;
	char b[16];

	jw_obj(w, key);
	jw_u64(w, "calls", s->total);
	jw_u64(w, "max", s->max);
	jw_obj(w, "count_by_size");
	for (k = 0; k < s->nsizes; k++) {
		snprintf(b, sizeof(b), "%u", s->s[k].size);
		jw_u64(w, b, s->s[k].n);
	}
	jw_end_obj(w);
	jw_u64(w, "other_sizes", s->other);
	jw_end_obj(w);
}

/* The pair's vantage point and retransmit causes, when it shows one. */
static void j_vantage(struct jw *w, const struct an_model_pair *q)
{
	const struct an_vantage_info *v = &q->vantage;
	uint32_t k;

	if (!q->has_vantage)
		return;
	jw_obj(w, "vantage");
	jw_str(w, "point", an_vantage_name(v->vp));
	jw_str(w, "by", q->vantage_by);
	jw_u64(w, "handshakes", v->handshakes);
	if (v->handshakes) {
		jw_dbl(w, "syn_synack_min_ms", q->syn_synack_min_ms, 3);
		jw_dbl(w, "synack_ack_min_ms", q->synack_ack_min_ms, 3);
	}
	jw_u64(w, "server_acks", v->srv_acks);
	if (v->srv_acks)
		jw_dbl(w, "server_ack_min_ms", q->server_ack_min_ms, 3);
	jw_u64(w, "client_acks", v->cli_acks);
	if (v->cli_acks)
		jw_dbl(w, "client_ack_min_ms", q->client_ack_min_ms, 3);
	jw_u64(w, "replies_before_resend", v->reply_first);
	jw_u64(w, "resends_answered_at_once", v->quick);
	jw_obj(w, "retrans_causes");
	for (k = 0; k < AN_RX_NCAUSES; k++)
		jw_u64(w, an_rx_cause_keys[k], v->cause[k]);
	jw_end_obj(w);
	jw_end_obj(w);
}

static void j_pairs(struct jw *w, const struct an_model *m)
{
	static const char *const sn[4] = { "UNSTABLE", "DATA_SYNC",
		"FILE_SYNC", "none" };
	uint32_t k, i, j;
	char a[64], key[32];

	jw_arr(w, "pairs");
	for (k = 0; k < m->npairs; k++) {
		const struct an_model_pair *q = &m->pairs[k];
		const struct an_pair *p = q->pair;

		jw_obj(w, NULL);
		jw_str(w, "client", cap_addr_str(&p->client, a, sizeof(a)));
		jw_str(w, "server", cap_addr_str(&p->server, a, sizeof(a)));
		j_vantage(w, q);
		jw_u64(w, "reads", p->reads);
		jw_u64(w, "writes", p->writes);
		jw_u64(w, "commits", p->commits);
		jw_dbl(w, "commits_per_write", q->commits_per_write, 4);
		jw_u64(w, "bytes_read", p->bytes_read);
		jw_u64(w, "bytes_written", p->bytes_written);
		jw_u64(w, "short_reads", p->short_reads);
		jw_u64(w, "reads_at_eof", p->read_eof);
		jw_u64(w, "short_writes", p->short_writes);
		jw_u64(w, "read_granted_max", p->read_granted_max);
		jw_u64(w, "write_granted_max", p->write_granted_max);
		if (p->have_session) {
			jw_obj(w, "session");
			jw_u64(w, "maxreq", p->sess_maxreq);
			jw_u64(w, "maxresp", p->sess_maxresp);
			jw_end_obj(w);
		}
		j_sizes(w, "read_sizes", &p->read);
		j_sizes(w, "write_sizes", &p->write);
		j_sizes(w, "read_sizes_from_replies", &p->read_rep);
		j_sizes(w, "write_sizes_from_replies", &p->write_rep);
		jw_obj(w, "stable_asked_granted");
		for (i = 0; i < 3; i++)
			for (j = 0; j < 4; j++)
				if (p->stable[i][j]) {
					snprintf(key, sizeof(key), "%s/%s", sn[i],
						 sn[j]);
					jw_u64(w, key, p->stable[i][j]);
				}
		jw_end_obj(w);
		if (q->has_read_verdict) {
			jw_bool(w, "read_capped", q->read_capped);
			jw_str(w, "read_verdict", q->read_verdict);
		}
		if (q->has_write_verdict) {
			jw_bool(w, "write_capped", q->write_capped);
			jw_str(w, "write_verdict", q->write_verdict);
		}
		jw_end_obj(w);
	}
	jw_end_arr(w);
}

static void j_servers(struct jw *w, const struct an_model *m)
{
	uint32_t k, i;
	char a[64];

	jw_arr(w, "server_info");
	for (k = 0; k < m->nservers; k++) {
		const struct an_server *s = m->servers[k].server;

		jw_obj(w, NULL);
		jw_str(w, "server", cap_addr_str(&s->addr, a, sizeof(a)));
		if (s->have_fsinfo) {
			jw_obj(w, "fsinfo");
			jw_u64(w, "rtmax", s->rtmax);
			jw_u64(w, "rtpref", s->rtpref);
			jw_u64(w, "wtmax", s->wtmax);
			jw_u64(w, "wtpref", s->wtpref);
			jw_u64(w, "dtpref", s->dtpref);
			jw_end_obj(w);
		}
		if (s->have_statfs)
			jw_u64(w, "statfs_tsize", s->tsize);
		if (s->have_verf)
			jw_hex(w, "write_verifier", s->verf, NFS_VERF_SIZE);
		jw_u64(w, "verifier_changes", s->nverf_changes);
		jw_arr(w, "verifier_change_list");
		for (i = 0; i < s->nverf_changes && i < AN_VERF_CHANGES_MAX; i++) {
			jw_obj(w, NULL);
			jw_time(w, "time", (uint64_t)(s->verf_changes[i].ts_ns /
				NSEC_PER_SEC), (uint32_t)(s->verf_changes[i].ts_ns %
				NSEC_PER_SEC));
			jw_u64(w, "frame", s->verf_changes[i].frame);
			jw_hex(w, "old", s->verf_changes[i].old_verf, 8);
			jw_hex(w, "new", s->verf_changes[i].new_verf, 8);
			jw_end_obj(w);
		}
		jw_end_arr(w);
		jw_end_obj(w);
	}
	jw_end_arr(w);
}

static void j_time(struct jw *w, const char *key, int64_t ns)
{
	jw_time(w, key, (uint64_t)(ns / NSEC_PER_SEC), (uint32_t)(ns % NSEC_PER_SEC));
}

static void j_findings(struct jw *w, const struct an_model *m)
{
	size_t k;
	char a[64];

	jw_arr(w, "findings");
	for (k = 0; k < m->nfindings; k++) {
		const struct an_finding *f = m->findings[k];

		jw_obj(w, NULL);
		jw_str(w, "kind", an_find_kind_name(f->kind));
		if (f->start_ns) {
			j_time(w, "start", f->start_ns);
			j_time(w, "end", f->end_ns);
		}
		if (f->have_client)
			jw_str(w, "client", cap_addr_str(&f->client, a, sizeof(a)));
		if (f->have_server)
			jw_str(w, "server", cap_addr_str(&f->server, a, sizeof(a)));
		if (f->have_fh) {
			jw_hex(w, "fh", f->fh.data, f->fh.len);
			jw_str(w, "path", f->path);
		}
		jw_u64(w, "count", f->count);
		jw_dbl(w, "peak_rate", f->peak_rate, 1);
		jw_dbl(w, "avg_rate", f->avg_rate, 1);
		jw_str(w, "evidence", f->evidence);
		jw_str(w, "meaning", f->meaning);
		rep_json_impact(w, m, k);
		jw_end_obj(w);
	}
	jw_end_arr(w);
}

static void j_health(struct jw *w, const struct an_model *m)
{
	const struct cap_stats *c = m->in.cs;
	const struct dec_stats *d = m->in.ds;
	const struct an_stats *e = m->in.es;
	const struct an_figs_totals *t = m->totals;

	jw_obj(w, "capture");
	jw_u64(w, "packets", c->packets);
	jw_u64(w, "bytes", c->bytes);
	jw_u64(w, "truncated", c->truncated);
	jw_u64(w, "link_errors", c->link_errors);
	jw_u64(w, "not_ip", c->not_ip);
	jw_u64(w, "ip_errors", c->ip_errors);
	jw_u64(w, "other_proto", c->other_proto);
	jw_u64(w, "ipfrag_packets", c->ipfrag_packets);
	jw_u64(w, "ipfrag_reassembled", c->ipfrag_reassembled);
	jw_u64(w, "ipfrag_incomplete", c->ipfrag_incomplete);
	jw_u64(w, "ipfrag_evicted", c->ipfrag_evicted);
	jw_u64(w, "tcp_segments", c->tcp_segments);
	jw_u64(w, "tcp_ooo", c->tcp_ooo);
	jw_u64(w, "tcp_retrans", c->tcp_retrans);
	jw_u64(w, "tcp_gaps", c->tcp_gaps);
	jw_u64(w, "tcp_gap_bytes", c->tcp_gap_bytes);
	jw_u64(w, "tcp_gaps_missed", c->tcp_gaps_missed);
	jw_u64(w, "tcp_gap_missed_bytes", c->tcp_gap_missed_bytes);
	jw_u64(w, "tcp_resyncs", c->tcp_resyncs);
	jw_u64(w, "tcp_rejected", c->tcp_rejected);
	jw_u64(w, "flows_evicted", c->flows_evicted);
	jw_u64(w, "tcp_mem_evicted", c->tcp_mem_evicted);
	jw_u64(w, "ps_recv", c->ps_recv);
	jw_u64(w, "ps_drop", c->ps_drop);
	jw_u64(w, "ps_ifdrop", c->ps_ifdrop);
	jw_end_obj(w);
	jw_obj(w, "decode");
	jw_u64(w, "rpc_messages", m->in.rpc_msgs);
	jw_u64(w, "calls", d->calls);
	jw_u64(w, "replies", d->replies);
	jw_u64(w, "not_rpc", d->not_rpc);
	jw_u64(w, "orphan_replies", d->orphan_replies);
	jw_u64(w, "shape_fit", d->shape_fit);
	jw_u64(w, "shape_ambiguous", d->shape_ambiguous);
	jw_u64(w, "shape_nofit", d->shape_nofit);
	jw_u64(w, "malformed", d->malformed);
	jw_u64(w, "truncated", d->truncated);
	jw_u64(w, "xid_evictions", d->xid_evictions);
	jw_u64(w, "late_held", d->late_held);
	jw_u64(w, "late_matched", d->late_matched);
	jw_u64(w, "late_expired", d->late_expired);
	jw_u64(w, "late_over_budget", d->late_over_budget);
	jw_u64(w, "skew_tolerated", d->skew_tolerated);
	jw_end_obj(w);
	jw_obj(w, "engine");
	jw_u64(w, "ops", e->ops);
	jw_u64(w, "from_replies", e->from_replies);
	jw_u64(w, "answered", e->answered);
	jw_u64(w, "unanswered", e->unanswered);
	jw_u64(w, "unanswered_expired", e->unanswered_expired);
	jw_u64(w, "unanswered_at_end", e->unanswered_at_end);
	jw_u64(w, "reply_not_seen", e->reply_not_seen);
	jw_u64(w, "evicted", e->evicted);
	jw_u64(w, "retrans", e->retrans);
	jw_u64(w, "late_retrans", e->late_retrans);
	jw_u64(w, "dup_replies", e->dup_replies);
	jw_u64(w, "replies_unmatched", e->replies_unmatched);
	jw_u64(w, "misfit_replies", e->misfit_replies);
	jw_u64(w, "xid_reused", e->xid_reused);
	jw_u64(w, "slot_replays", e->slot_replays);
	jw_u64(w, "retired_early", e->retired_early);
	jw_u64(w, "names_evicted", e->names_evicted);
	jw_u64(w, "xid_peak", e->pending_peak);
	jw_u64(w, "rows_dropped", t->rows_dropped);
	jw_u64(w, "files_dropped", t->files_dropped);
	jw_u64(w, "pairs_dropped", t->pairs_dropped);
	jw_u64(w, "intervals_dropped", t->intervals_dropped);
	jw_u64(w, "findings_dropped", m->findings_dropped);
	if (m->findings_unexamined)	/* only when some: issue 18 */
		jw_u64(w, "findings_looks_skipped",
		       m->findings_unexamined);
	jw_end_obj(w);
}

/* TCP records the snaplen hid (cap_stats tcp_hidden_*): null if none. */
static void j_hidden(struct jw *w, const struct an_model *m)
{
	const struct cap_stats *c = m->in.cs;

	if (c->tcp_hidden_spans == 0) {
		jw_null(w, "hidden");
		return;
	}
	jw_obj(w, "hidden");
	jw_str(w, "reason", "snaplen");
	jw_u64(w, "calls", (m->verdict ? m->verdict->hidden_calls :
	 c->tcp_hidden_calls));
	jw_u64(w, "replies", (m->verdict ? m->verdict->hidden_replies :
	 c->tcp_hidden_replies));
	jw_u64(w, "records_known", c->tcp_hidden_spans);
	jw_u64(w, "bytes", c->tcp_hidden_bytes);
	jw_u64(w, "flow_directions", c->tcp_hidden_flows);
	jw_u64(w, "snaplen", c->snap_caplen);
	jw_u64(w, "captured_max", c->tcp_seg_cut_max);
	jw_u64(w, "segment_max", c->tcp_seg_max);
	jw_arr(w, "figures");
	jw_str(w, NULL, "counts");
	jw_str(w, NULL, "sizes");
	jw_str(w, NULL, "latency");
	jw_end_arr(w);
	jw_str(w, "remedy", "capture with -s 0 or a snaplen above the "
	       "largest TCP segment");
	jw_end_obj(w);
}

/* Whether the figures are whole, and if not why and for which time. */
static void j_incomplete(struct jw *w, const struct rep *r,
			 const struct an_model *m)
{
	uint32_t k;

	jw_bool(w, "complete", m->complete);
	jw_obj(w, "incomplete");
	jw_u64(w, "ps_drop", m->in.cs->ps_drop);
	jw_u64(w, "ps_ifdrop", m->in.cs->ps_ifdrop);
	jw_u64(w, "evictions", m->in.evictions);
	jw_read_error(w, "read_error", r->cut ? &r->cut_at : NULL);
	j_hidden(w, m);
	jw_arr(w, "drop_spans");
	for (k = 0; k < m->in.ndrops; k++) {
		const struct cap_drop_span *sp = &m->in.drops[k];

		jw_obj(w, NULL);
		j_time(w, "start", sp->start_ns);
		j_time(w, "end", sp->end_ns);
		jw_u64(w, "ps_drop", sp->drop);
		jw_u64(w, "ps_ifdrop", sp->ifdrop);
		jw_end_obj(w);
	}
	jw_end_arr(w);
	jw_end_obj(w);
}

static void j_intervals(struct jw *w, const struct an_model *m)
{
	uint32_t k;

	jw_arr(w, "intervals");
	for (k = 0; k < m->nintervals; k++) {
		const struct an_model_interval *o = &m->intervals[k];
		const struct an_interval *v = o->iv;

		jw_obj(w, NULL);
		j_time(w, "start", v->start_ns);
		jw_u64(w, "calls", v->calls);
		jw_u64(w, "answered", v->answered);
		jw_u64(w, "unanswered", v->unanswered);
		jw_u64(w, "errors", v->errors);
		jw_u64(w, "retrans", v->retrans);
		jw_u64(w, "dup_replies", v->dup_replies);
		jw_u64(w, "bytes", v->bytes);
		jw_u64(w, "data_bytes", v->data_bytes);
		jw_dbl(w, "latency_avg_ms", o->lat_avg_ms, 3);
		jw_dbl(w, "latency_max_ms", o->lat_max_ms, 3);
		jw_bool(w, "incomplete", o->incomplete);
		jw_end_obj(w);
	}
	jw_end_arr(w);
}

/* The time series per procedure (--interval; series.h). */
static void j_series(struct jw *w, const struct an_model *m)
{
	uint32_t k;
	char b[64];

	jw_arr(w, "interval_procedures");
	for (k = 0; k < m->nseries; k++) {
		const struct an_model_series *o = &m->series[k];
		const struct an_series_cell *c = o->cell;

		jw_obj(w, NULL);
		j_time(w, "start", c->start_ns);
		jw_str(w, "procedure", an_model_proc_name(c->prog, c->vers,
							  c->proc, b, sizeof(b)));
		jw_u64(w, "calls", c->calls);
		jw_dbl(w, "ops_per_s", o->ops_per_s, 3);
		jw_u64(w, "retrans", c->retrans);
		j_lat(w, "latency_ms", &o->lat);
		jw_end_obj(w);
	}
	jw_end_arr(w);
	jw_u64(w, "interval_procedures_dropped", m->series_dropped);
}

/* Retransmitted ops per cause in the intervals that have any (--interval;
 * model.h's rx_cause). */
static void j_series_causes(struct jw *w, const struct an_model *m)
{
	uint32_t k, c;
	uint64_t n;

	jw_arr(w, "interval_retrans_causes");
	for (k = 0; k < m->nheat; k++) {
		const struct an_model_heat *h = &m->heat[k];

		for (c = 0, n = 0; c < AN_RX_NCAUSES; c++)
			n += h->rx_cause[c];
		if (n == 0)
			continue;
		jw_obj(w, NULL);
		j_time(w, "start", h->start_ns);
		for (c = 0; c < AN_RX_NCAUSES; c++)
			jw_u64(w, an_rx_cause_keys[c], h->rx_cause[c]);
		jw_end_obj(w);
	}
	jw_end_arr(w);
	jw_u64(w, "interval_retrans_causes_dropped", m->rx_dropped);
}

int rep_json(const struct rep *r)
{
	const struct an_figs_totals *t;
	struct an_model m;
	struct jw w;
	char iso[48];

	if (rep_model(r, AN_MODEL_ALL_ROWS | (r->interval_ns ?
		      AN_MODEL_INTERVALS | AN_MODEL_SERIES : 0), &m) < 0)
		return -1;
	t = m.totals;
	jw_init(&w, r->out);
	jw_obj(&w, NULL);
	jw_str(&w, "source", r->source);
	j_time(&w, "first", r->first_ns);
	j_time(&w, "last", r->last_ns);
	jw_str(&w, "first_utc", ui_time_iso(r->first_ns, iso, sizeof(iso)));
	jw_str(&w, "last_utc", ui_time_iso(r->last_ns, iso, sizeof(iso)));
	jw_dbl(&w, "duration_s", m.duration_s, 6);
	j_incomplete(&w, r, &m);
	rep_json_verdict(&w, &m);
	jw_obj(&w, "totals");
	jw_u64(&w, "ops", t->ops);
	jw_u64(&w, "answered", t->answered);
	jw_u64(&w, "unanswered", t->unanswered);
	jw_u64(&w, "reply_not_seen", t->reply_not_seen);
	jw_u64(&w, "errors", t->errors);
	jw_u64(&w, "retrans", t->retrans);
	jw_u64(&w, "dup_replies", t->dup_replies);
	jw_end_obj(&w);
	j_rows(&w, &m, AN_BY_OP, "procedures");
	j_rows(&w, &m, AN_BY_CLIENT, "clients");
	j_rows(&w, &m, AN_BY_SERVER, "servers");
	j_rows(&w, &m, AN_BY_EXPORT, "exports");
	j_rows(&w, &m, AN_BY_FILE, "files");
	j_pairs(&w, &m);
	j_servers(&w, &m);
	j_findings(&w, &m);
	j_health(&w, &m);
	if (r->interval_ns) {
		j_intervals(&w, &m);
		j_series(&w, &m);
		j_series_causes(&w, &m);
	}
	jw_end_obj(&w);
	jw_newline(&w);
	an_model_fini(&m);
	return 0;
}

/* The pieces the partial report's --json shares (report.h). */
void rep_json_proc_cells(struct jw *w, const struct an_model_row *mr)
{
	assert(mr->row->group == AN_BY_OP);	/* no key: m unused */
	j_row_of(w, NULL, mr, true);
}

void rep_json_time(struct jw *w, const char *key, int64_t ns)
{
	j_time(w, key, ns);
}

void rep_json_incomplete(struct jw *w, const struct rep *r,
			 const struct an_model *m)
{
	j_incomplete(w, r, m);
}

void rep_json_health(struct jw *w, const struct an_model *m)
{
	j_health(w, m);
}

/* -------------------------------------------------------------- CSV -- */

/* A field: escaped (esc.h), so one line a row; quoted if it holds a comma
 * or a quote. */
static void csv_str(FILE *f, const char *raw, bool last)
{
	char b[4 * AN_EVIDENCE_MAX];
	const char *s = ui_esc_str(b, sizeof(b), raw, NULL);

	if (strpbrk(s, ",\"")) {
		putc('"', f);
		for (; *s; s++) {
			if (*s == '"')
				putc('"', f);
			putc(*s, f);
		}
		putc('"', f);
	} else {
		fputs(s, f);
	}
	putc(last ? '\n' : ',', f);
}

void rep_csv_ops_header(FILE *f)
{
	fputs("group,key,procedure,calls,answered,unanswered,errors,ops_per_s,"
	      "bytes_per_s,retrans,dup_replies,lat_min_ms,lat_avg_ms,lat_max_ms,"
	      "lat_p50_ms,lat_p90_ms,lat_p95_ms,lat_p99_ms,lat_p99_9_ms,"
	      "from_replies\n", f);
}

void rep_csv_ops_row(FILE *f, const char *group, const char *key,
		     const struct an_model_row *v, bool from_replies)
{
	const struct an_row *w = v->row;
	const struct an_lat *h = &v->lat;
	char b[96];

	csv_str(f, group, false);
	csv_str(f, key, false);
	csv_str(f, an_model_proc_name(w->prog, w->vers, w->proc, b, sizeof(b)),
		false);
	fprintf(f, "%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
		",%.3f,%.1f,%" PRIu64 ",%" PRIu64
		",%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,",
		w->calls, w->answered, w->unanswered, w->errors,
		v->ops_per_s, v->bytes_per_s, w->retrans,
		w->dup_replies, h->min_ms, h->avg_ms, h->max_ms,
		h->p50_ms, h->p90_ms, h->p95_ms, h->p99_ms, h->p99_9_ms);
	if (from_replies)
		fprintf(f, "%" PRIu64, w->from_replies);
	fputc('\n', f);
}

static void csv_ops(const struct rep *r, const struct an_model *m)
{
	uint32_t k;
	char b[AN_PATH_MAX + 96];

	rep_csv_ops_header(r->out);
	for (k = 0; k < m->nrows[r->by]; k++) {
		const struct an_model_row *v = &m->rows[r->by][k];

		rep_csv_ops_row(r->out, rep_group_names[r->by],
				r->by == AN_BY_OP ? "" :
				an_model_row_key(m, v->row, b, sizeof(b)), v,
				true);
	}
}

/* How many of s have the given size. */
static uint64_t size_n(const struct an_sizes *s, uint32_t size)
{
	uint32_t i;

	for (i = 0; i < s->nsizes; i++)
		if (s->s[i].size == size)
			return s->s[i].n;
	return 0;
}

static void csv_sizes(const struct rep *r, const struct an_model *m)
{
	uint32_t k, i;
	char a[64], b[64];
	int wr;

	fputs("client,server,op,size,calls,from_replies\n", r->out);
	for (k = 0; k < m->npairs; k++) {
		const struct an_pair *p = m->pairs[k].pair;

		for (wr = 0; wr < 2; wr++) {
			const struct an_sizes *s = wr ? &p->write : &p->read;
			const struct an_sizes *q = wr ? &p->write_rep :
					       &p->read_rep;

			cap_addr_str(&p->client, a, sizeof(a));
			cap_addr_str(&p->server, b, sizeof(b));
			/* the sizes asked, with the same size granted to
			 * calls not seen; then sizes only granted */
			for (i = 0; i < s->nsizes; i++)
				fprintf(r->out, "%s,%s,%s,%u,%" PRIu64 ",%"
					PRIu64 "\n", a, b, wr ? "WRITE" : "READ",
					s->s[i].size, s->s[i].n,
					size_n(q, s->s[i].size));
			for (i = 0; i < q->nsizes; i++)
				if (size_n(s, q->s[i].size) == 0)
					fprintf(r->out, "%s,%s,%s,%u,0,%" PRIu64
						"\n", a, b, wr ? "WRITE" :
						"READ", q->s[i].size,
						q->s[i].n);
		}
	}
}

static void csv_writes(const struct rep *r, const struct an_model *m)
{
	uint32_t k;
	char a[64], b[64];

	fputs("client,server,writes,commits,commits_per_write,bytes_written,"
	      "unstable_unstable,unstable_datasync,unstable_filesync,"
	      "datasync_datasync,datasync_filesync,filesync_filesync\n", r->out);
	for (k = 0; k < m->npairs; k++) {
		const struct an_pair *p = m->pairs[k].pair;

		fprintf(r->out, "%s,%s,%" PRIu64 ",%" PRIu64 ",%.4f,%" PRIu64
			",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
			",%" PRIu64 "\n",
			cap_addr_str(&p->client, a, sizeof(a)),
			cap_addr_str(&p->server, b, sizeof(b)), p->writes,
			p->commits, m->pairs[k].commits_per_write,
			p->bytes_written, p->stable[0][0],
			p->stable[0][1], p->stable[0][2], p->stable[1][1],
			p->stable[1][2], p->stable[2][2]);
	}
}

static void csv_shortio(const struct rep *r, const struct an_model *m)
{
	uint32_t k;
	char a[64], b[64];

	fputs("client,server,reads,short_reads,reads_at_eof,read_asked_max,"
	      "read_granted_max,writes,short_writes,write_asked_max,"
	      "write_granted_max\n", r->out);
	for (k = 0; k < m->npairs; k++) {
		const struct an_pair *p = m->pairs[k].pair;

		if (p->reads == 0 && p->writes == 0)
			continue;
		fprintf(r->out, "%s,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%u,%u,"
			"%" PRIu64 ",%" PRIu64 ",%u,%u\n",
			cap_addr_str(&p->client, a, sizeof(a)),
			cap_addr_str(&p->server, b, sizeof(b)), p->reads,
			p->short_reads, p->read_eof, p->read.max,
			p->read_granted_max, p->writes, p->short_writes,
			p->write.max, p->write_granted_max);
	}
}

static void csv_retrans(const struct rep *r, const struct an_model *m)
{
	uint32_t k;
	char a[64], p[96];

	fputs("client,procedure,calls,retrans,retrans_ops,late_retrans,"
	      "dup_replies,unanswered,ivl_min_ms,ivl_p50_ms,ivl_max_ms\n", r->out);
	for (k = 0; k < m->nrows[AN_BY_CLIENT]; k++) {
		const struct an_model_row *v = &m->rows[AN_BY_CLIENT][k];
		const struct an_row *w = v->row;

		if (w->proc == AN_PROC_ALL)
			continue;
		fprintf(r->out, "%s,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%"
			PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.3f,%.3f,%.3f\n",
			cap_addr_str(&w->addr, a, sizeof(a)),
			an_model_proc_name(w->prog, w->vers, w->proc, p,
					   sizeof(p)),
			w->calls, w->retrans, w->retrans_ops, w->late_retrans,
			w->dup_replies, w->unanswered, v->ivl.min_ms,
			v->ivl.p50_ms, v->ivl.max_ms);
	}
}

static void csv_vantage(const struct rep *r, const struct an_model *m)
{
	uint32_t k, i;
	char a[64], b[64];

	fputs("client,server,vantage,by,handshakes,syn_synack_min_ms,"
	      "synack_ack_min_ms,server_acks,server_ack_min_ms,client_acks,"
	      "client_ack_min_ms,replies_before_resend,"
	      "resends_answered_at_once", r->out);
	for (i = 0; i < AN_RX_NCAUSES; i++)
		fprintf(r->out, ",%s", an_rx_cause_keys[i]);
	fputc('\n', r->out);
	for (k = 0; k < m->npairs; k++) {
		const struct an_model_pair *q = &m->pairs[k];
		const struct an_vantage_info *v = &q->vantage;

		if (!q->has_vantage)
			continue;
		fprintf(r->out, "%s,%s,%s,%s,%u,%.3f,%.3f,%u,%.3f,%u,%.3f,%"
			PRIu64 ",%" PRIu64,
			cap_addr_str(&q->pair->client, a, sizeof(a)),
			cap_addr_str(&q->pair->server, b, sizeof(b)),
			an_vantage_name(v->vp), q->vantage_by,
			v->handshakes, q->syn_synack_min_ms,
			q->synack_ack_min_ms, v->srv_acks,
			q->server_ack_min_ms, v->cli_acks,
			q->client_ack_min_ms, v->reply_first, v->quick);
		for (i = 0; i < AN_RX_NCAUSES; i++)
			fprintf(r->out, ",%" PRIu64, v->cause[i]);
		fputc('\n', r->out);
	}
}

static void csv_findings(const struct rep *r, const struct an_model *m)
{
	size_t k;
	char a[64], b[64];

	fputs("kind,start,end,client,server,path,count,peak_rate,avg_rate,"
	      "evidence\n",
	      r->out);
	for (k = 0; k < m->nfindings; k++) {
		const struct an_finding *f = m->findings[k];

		fprintf(r->out, "%s,%.6f,%.6f,%s,%s,", an_find_kind_name(f->kind),
			(double)f->start_ns / 1e9, (double)f->end_ns / 1e9,
			f->have_client ? cap_addr_str(&f->client, a, sizeof(a)) : "",
			f->have_server ? cap_addr_str(&f->server, b, sizeof(b)) : "");
		csv_str(r->out, f->path, false);
		fprintf(r->out, "%" PRIu64 ",%.1f,%.1f,", f->count, f->peak_rate,
			f->avg_rate);
		csv_str(r->out, f->evidence, true);
	}
}

static void csv_servers(const struct rep *r, const struct an_model *m)
{
	uint32_t k;
	char a[64];

	fputs("server,rtmax,rtpref,wtmax,wtpref,dtpref,statfs_tsize,"
	      "verifier_changes\n", r->out);
	for (k = 0; k < m->nservers; k++) {
		const struct an_server *s = m->servers[k].server;

		fprintf(r->out, "%s,%u,%u,%u,%u,%u,%u,%u\n",
			cap_addr_str(&s->addr, a, sizeof(a)), s->rtmax, s->rtpref,
			s->wtmax, s->wtpref, s->dtpref, s->tsize,
			s->nverf_changes);
	}
}

static void csv_intervals(const struct rep *r, const struct an_model *m)
{
	uint32_t k;

	fputs("start,calls,answered,unanswered,errors,retrans,dup_replies,"
	      "bytes,data_bytes,lat_avg_ms,lat_max_ms,incomplete\n", r->out);
	for (k = 0; k < m->nintervals; k++) {
		const struct an_model_interval *o = &m->intervals[k];
		const struct an_interval *v = o->iv;

		fprintf(r->out, "%.6f,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%"
			PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
			",%.3f,%.3f,%d\n", (double)v->start_ns / 1e9, v->calls,
			v->answered, v->unanswered, v->errors, v->retrans,
			v->dup_replies, v->bytes, v->data_bytes, o->lat_avg_ms,
			o->lat_max_ms, o->incomplete);
	}
}

static void csv_drops(const struct rep *r, const struct an_model *m)
{
	uint32_t k;

	fputs("start,end,ps_drop,ps_ifdrop\n", r->out);
	for (k = 0; k < m->in.ndrops; k++)
		fprintf(r->out, "%.6f,%.6f,%" PRIu64 ",%" PRIu64 "\n",
			(double)m->in.drops[k].start_ns / 1e9,
			(double)m->in.drops[k].end_ns / 1e9,
			m->in.drops[k].drop, m->in.drops[k].ifdrop);
}

int rep_csv(const struct rep *r, const char *table)
{
	static const struct {
		const char *name;
		void (*fn)(const struct rep *, const struct an_model *);
		unsigned want;		/* beyond rows by --by */
	} tables[] = {
		{ "ops", csv_ops, 0 }, { "sizes", csv_sizes, 0 },
		{ "writes", csv_writes, 0 }, { "shortio", csv_shortio, 0 },
		{ "retrans", csv_retrans, AN_MODEL_ROWS(AN_BY_CLIENT) },
		{ "vantage", csv_vantage, 0 },
		{ "findings", csv_findings, 0 }, { "servers", csv_servers, 0 },
		{ "intervals", csv_intervals, AN_MODEL_INTERVALS },
		{ "drops", csv_drops, 0 },
	};
	struct an_model m;
	size_t k;

	for (k = 0; k < sizeof(tables) / sizeof(tables[0]); k++) {
		if (strcmp(table, tables[k].name))
			continue;
		if (r == NULL)
			return 0;
		if (rep_model(r, AN_MODEL_ROWS(r->by) | tables[k].want,
			      &m) < 0)
			return -1;
		tables[k].fn(r, &m);
		an_model_fini(&m);
		return 0;
	}
	return -1;
}
