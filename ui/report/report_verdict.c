/*
 * report_verdict.c - the verdict block (analyze/judge.h) in each of the
 * report's outputs: the text report's first lines, JSON's "verdict"
 * object, the HTML page's first section, and the findings' impact in
 * JSON.  The words are the model's (an_judge); nothing is judged here.
 * See doc/report.md ("The verdict").
 */
#include "ui/esc.h"
#include "ui/report/html.h"
#include "ui/json.h"
#include "ui/report/report_verdict.h"

#include <inttypes.h>
#include <string.h>

void rep_text_verdict(FILE *f, const struct an_model *m)
{
	const struct an_verdict *v = m->verdict;
	uint32_t k;

	if (v == NULL)
		return;
	fputs("\n== Verdict ==\n", f);
	for (k = 0; k < v->nlines; k++) {
		fprintf(f, "%-*s", AN_VERDICT_KEY,
			k > 0 && v->key[k - 1] == v->key[k] ? "" : v->key[k]);
		ui_esc_put(f, v->line[k], strlen(v->line[k]), NULL);
		fputc('\n', f);
	}
}

static void j_sizes(struct jw *w, const struct an_verdict *v)
{
	char a[64];
	uint32_t k;

	jw_arr(w, "sizes");
	for (k = 0; k < v->nsize; k++) {
		const struct an_verdict_size *s = &v->size[k];

		jw_obj(w, NULL);
		jw_str(w, "client", cap_addr_str(&s->client, a, sizeof(a)));
		jw_str(w, "server", cap_addr_str(&s->server, a, sizeof(a)));
		jw_str(w, "op", s->write ? "WRITE" : "READ");
		jw_str(w, "state", an_size_state_names[s->state]);
		jw_u64(w, "size", s->size);
		jw_u64(w, "share_pct", s->pct);
		jw_u64(w, "calls", s->calls);
		jw_u64(w, "server_max", s->limit);
		jw_u64(w, "asked_max", s->asked_max);
		jw_u64(w, "granted_max", s->granted_max);
		jw_end_obj(w);
	}
	jw_end_arr(w);
}

static void j_times(struct jw *w, const struct an_verdict *v)
{
	char a[64];
	uint32_t k;

	jw_arr(w, "time");
	for (k = 0; k < v->ntime; k++) {
		const struct an_verdict_time *t = &v->time[k];

		jw_obj(w, NULL);
		jw_str(w, "server", cap_addr_str(&t->server, a, sizeof(a)));
		jw_u64(w, "ops", t->ops);
		jw_dbl(w, "rpc_p50_ms", t->rpc_ms, 3);
		jw_bool(w, "path_measured", t->path_known);
		jw_dbl(w, "server_ms", t->own_ms, 3);
		jw_dbl(w, "path_ms", t->path_ms, 3);
		jw_dbl(w, "path_server_side_ms", t->srv_path_ms, 3);
		jw_dbl(w, "path_client_side_ms", t->cli_path_ms, 3);
		if (t->queued_pct >= 0) {
			jw_dbl(w, "queued_pct", t->queued_pct, 1);
			jw_dbl(w, "own_pct", t->server_pct, 1);
		} else {
			jw_null(w, "queued_pct");
			jw_null(w, "own_pct");
		}
		jw_str(w, "where", t->where);
		jw_end_obj(w);
	}
	jw_end_arr(w);
}

static void j_loss(struct jw *w, const struct an_verdict *v)
{
	const struct an_verdict_loss *l = &v->loss;
	uint32_t c;

	jw_obj(w, "loss");
	jw_bool(w, "tcp", l->tcp);
	jw_u64(w, "tcp_segments_c2s", l->h.segs[0]);
	jw_u64(w, "tcp_segments_s2c", l->h.segs[1]);
	jw_u64(w, "tcp_lost_c2s", l->lost[0]);
	jw_u64(w, "tcp_lost_s2c", l->lost[1]);
	jw_dbl(w, "tcp_lost_c2s_pct", l->lost_pct[0], 2);
	jw_dbl(w, "tcp_lost_s2c_pct", l->lost_pct[1], 2);
	jw_u64(w, "tcp_resent_c2s", l->h.resent[0]);
	jw_u64(w, "tcp_resent_s2c", l->h.resent[1]);
	jw_u64(w, "tcp_dupack_losses_c2s", l->h.dupack_loss[0]);
	jw_u64(w, "tcp_dupack_losses_s2c", l->h.dupack_loss[1]);
	jw_u64(w, "tcp_resets_by_client", l->h.rsts[0]);
	jw_u64(w, "tcp_resets_by_server", l->h.rsts[1]);
	jw_u64(w, "tcp_zero_windows", l->h.zero_win[0] + l->h.zero_win[1]);
	jw_u64(w, "tcp_connections", l->h.connections);
	jw_u64(w, "tcp_calls_resent", l->h.resent_calls);
	jw_u64(w, "tcp_stalls", l->h.stalls);
	jw_u64(w, "tcp_stalls_c2s", l->h.stalls_dir[0]);
	jw_u64(w, "tcp_stalls_s2c", l->h.stalls_dir[1]);
	jw_dbl(w, "tcp_stall_ms", l->h.stall_ns / 1e6, 3);
	jw_bool(w, "udp", l->udp);
	jw_u64(w, "udp_ops", l->udp_ops);
	jw_u64(w, "udp_ops_resent", l->udp_retrans_ops);
	jw_dbl(w, "udp_resent_pct", l->udp_resent_pct, 2);
	jw_dbl(w, "udp_lost_reply_pct", l->udp_lost_reply_pct, 2);
	jw_dbl(w, "udp_lost_call_or_reply_pct", l->udp_lost_call_pct, 2);
	jw_u64(w, "ipfrag_incomplete", l->ipfrag_incomplete);
	jw_obj(w, "causes");
	for (c = 0; c < AN_RX_NCAUSES; c++)
		jw_u64(w, an_rx_cause_keys[c], l->cause[c]);
	jw_end_obj(w);
	jw_end_obj(w);
}

static void j_problems(struct jw *w, const struct an_model *m)
{
	size_t k;

	jw_arr(w, "problems");
	for (k = 0; k < m->nfindings && k < AN_VERDICT_PROBLEMS; k++) {
		jw_obj(w, NULL);
		jw_u64(w, "finding", k);
		jw_str(w, "kind", an_find_kind_name(m->findings[k]->kind));
		jw_dbl(w, "impact_pct", m->impact[k].pct, 1);
		if (m->impact[k].of)
			jw_str(w, "impact_of", m->impact[k].of);
		else
			jw_null(w, "impact_of");
		jw_end_obj(w);
	}
	jw_end_arr(w);
}

void rep_json_verdict(struct jw *w, const struct an_model *m)
{
	const struct an_verdict *v = m->verdict;
	uint32_t k;

	if (v == NULL) {
		jw_null(w, "verdict");
		return;
	}
	jw_obj(w, "verdict");
	jw_bool(w, "healthy", v->healthy);
	jw_bool(w, "complete", m->complete);
	jw_str(w, "vantage", an_vantage_name(v->vantage));
	jw_str(w, "vantage_why", v->vantage_why);
	jw_dbl(w, "clients_wait_ms", v->wait_ms, 3);
	jw_u64(w, "hidden_calls", v->hidden_calls);
	jw_u64(w, "hidden_replies", v->hidden_replies);
	j_problems(w, m);
	j_sizes(w, v);
	j_times(w, v);
	j_loss(w, v);
	jw_arr(w, "lines");
	for (k = 0; k < v->nlines; k++) {
		jw_obj(w, NULL);
		jw_str(w, "key", v->key[k]);
		jw_str(w, "text", v->line[k]);
		jw_end_obj(w);
	}
	jw_end_arr(w);
	jw_end_obj(w);
}

void rep_json_impact(struct jw *w, const struct an_model *m, size_t k)
{
	jw_dbl(w, "impact_pct", m->impact[k].pct, 1);
	if (m->impact[k].of)
		jw_str(w, "impact_of", m->impact[k].of);
	else
		jw_null(w, "impact_of");
}

void rep_html_verdict(FILE *f, const struct an_model *m)
{
	const struct an_verdict *v = m->verdict;
	uint32_t k;

	if (v == NULL)
		return;
	fprintf(f, "<section id=\"verdict\"><h2>Verdict</h2>\n<table "
		"class=\"verdict%s\">\n", v->healthy ? " healthy" : "");
	for (k = 0; k < v->nlines; k++) {
		fputs("<tr><th>", f);
		if (k == 0 || v->key[k - 1] != v->key[k])
			html_text(f, v->key[k]);
		fputs("</th><td>", f);
		html_text(f, v->line[k]);
		fputs("</td></tr>\n", f);
	}
	fputs("</table></section>\n", f);
}
