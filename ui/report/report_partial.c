/*
 * report_partial.c - `report DB` on a run recorded with --ops slow:MS or
 * --ops none: the report its aggregate tables hold.  Every operation went
 * into table intervals (counts, errors, retransmissions, bytes, a latency
 * histogram per procedure, client and server), and the end-of-run tables
 * sizes, fsinfo and findings are whole; what needs one row per operation
 * (per export and file tables, size verdicts, writes and COMMITs,
 * retransmission causes, findings recomputed with other thresholds) is
 * not there, and the report says so instead of showing a figure that
 * would be wrong.  Text, --json (the full report's keys where the
 * figure is the same, "partial" saying what is whole and what needs
 * --ops all) or --csv ops (its from_replies field empty: unknown).
 */
#include "ui/report/report_partial.h"
#include "ui/report/rep.h"
#include "ui/report/report_model.h"
#include "ui/report/report_out.h"
#include "ui/report/report_text.h"
#include "ui/wrap.h"
#include "ui/esc.h"
#include "ui/json.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define ROWS_MAX 40	/* of each end-of-run table; the rest: SQL */

struct partial {
	struct rep *r;
	double duration_s;		/* the run's span (model.h) */
	struct an_figs_totals t;	/* summed over the cells */
	bool print;			/* second pass: print the rows */
	struct jw *w;			/* --json (NULL: text or CSV) */
	bool csv;			/* --csv ops */
	uint32_t rows;
	int64_t run;
};

static void on_cell(void *user, const struct store_cell *c)
{
	struct partial *p = user;
	struct an_row w;
	struct an_model_row mr;
	char name[96];

	if (!p->print) {
		p->t.ops += c->calls;
		p->t.answered += c->answered;
		p->t.unanswered += c->unanswered;
		p->t.errors += c->errors;
		p->t.retrans += c->retrans;
		p->t.dup_replies += c->dup_replies;
		return;
	}
	memset(&w, 0, sizeof(w));
	w.group = AN_BY_OP;
	w.prog = c->prog;
	w.vers = c->vers;
	w.proc = c->proc;
	w.calls = c->calls;
	w.answered = c->answered;
	w.unanswered = c->unanswered;
	w.errors = c->errors;
	w.retrans = c->retrans;
	w.dup_replies = c->dup_replies;
	w.bytes = c->bytes;
	w.data_bytes = c->data_bytes;
	w.lat = c->lat;		/* borrowed for the call: chunks not freed */
	if (w.calls == 0)
		return;
	an_model_row_of(&w, p->duration_s, &mr);
	if (p->w)
		rep_json_proc_cells(p->w, &mr);
	else if (p->csv)	/* from_replies: not in the cells */
		rep_csv_ops_row(p->r->out, rep_group_names[AN_BY_OP], "", &mr,
				false);
	else
		rep_text_lat_row(p->r->out, an_model_proc_name(c->prog, c->vers,
				 c->proc, name, sizeof(name)), &mr, p->r->wide);
	p->rows++;
}

/* The columns of the end-of-run tables that hold text (the others hold
 * numbers, or NULL). */
static bool text_column(const char *name)
{
	static const char *const t[] = { "client", "server", "op", "kind",
		"path", "evidence", "meaning", "write_verifier" };
	size_t k;

	for (k = 0; k < sizeof(t) / sizeof(t[0]); k++)
		if (!strcmp(name, t[k]))
			return true;
	return false;
}

/* One row of an end-of-run table as a JSON object of its columns (but
 * fh, a blob: the path names the file). */
static void on_json_row(void *user, int n, const char *const *names,
			const char *const *vals)
{
	struct partial *p = user;
	char *end;
	long long i;
	double d;
	int k;

	p->rows++;
	jw_obj(p->w, NULL);
	for (k = 0; k < n; k++) {
		if (!strcmp(names[k], "fh"))
			continue;
		if (vals[k] == NULL) {
			jw_null(p->w, names[k]);
		} else if (text_column(names[k])) {
			jw_str(p->w, names[k], vals[k]);
		} else if (i = strtoll(vals[k], &end, 10), *vals[k] && !*end) {
			jw_i64(p->w, names[k], i);
		} else if (d = strtod(vals[k], &end), *vals[k] && !*end) {
			jw_dbl(p->w, names[k], d, 6);
		} else {
			jw_str(p->w, names[k], vals[k]);
		}
	}
	jw_end_obj(p->w);
}

/* One row of an end-of-run table: "name value name value ...". */
static void on_row(void *user, int n, const char *const *names,
		   const char *const *vals)
{
	struct partial *p = user;
	char t[48];
	size_t len;
	int k;

	if (p->rows++ >= ROWS_MAX)
		return;
	fputs(" ", p->r->out);
	for (k = 0; k < n; k++) {
		if (!vals[k] || !*vals[k] || !strcmp(names[k], "fh") ||
		    !strcmp(names[k], "meaning"))
			continue;
		fprintf(p->r->out, " %s ", names[k]);
		len = strlen(names[k]);
		if (len > 3 && !strcmp(names[k] + len - 3, "_ns"))
			fputs(rep_time(p->r, strtoll(vals[k], NULL, 10), t,
				       sizeof(t)), p->r->out);
		else
			ui_esc_put(p->r->out, vals[k], strlen(vals[k]), NULL);
	}
	fputc('\n', p->r->out);
}

static int table(struct partial *p, struct store *s, int64_t run,
		 const char *name, const char *title, char *err)
{
	if (p->w) {
		jw_arr(p->w, name);
		if (store_read_table(s, run, name, on_json_row, p, err) < 0)
			return -1;
		jw_end_arr(p->w);
		return 0;
	}
	fprintf(p->r->out, "\n== %s (table %s, whole) ==\n", title, name);
	p->rows = 0;
	if (store_read_table(s, run, name, on_row, p, err) < 0)
		return -1;
	if (p->rows == 0)
		fputs("none\n", p->r->out);
	if (p->rows > ROWS_MAX)
		fprintf(p->r->out, "  ... %u more rows (SELECT * FROM %s WHERE "
			"run = %" PRId64 ")\n", p->rows - ROWS_MAX, name, run);
	return 0;
}

static void header(struct partial *p, const struct store_run *run)
{
	struct rep *r = p->r;
	double d = p->duration_s;
	char t0[48], t1[48], z[64], slow[48] = "";

	if (run->ops_mode == STORE_OPS_SLOW)
		snprintf(slow, sizeof(slow), ":%.3g", (double)run->slow_ns / 1e6);
	fprintf(r->out, "nfscope report: %s\n%" PRIu64 " packets over %.3f s "
		"from %s to %s (%s), %" PRIu64 " operations (%" PRIu64
		" answered, %" PRIu64 " unanswered, %" PRIu64 " errors), "
		"%.1f ops/s\n", r->source, r->cs.packets, d,
		rep_time(r, r->first_ns, t0, sizeof(t0)),
		rep_time(r, r->last_ns, t1, sizeof(t1)),
		ui_time_zone(r->first_ns, r->tmode, z, sizeof(z)), p->t.ops,
		p->t.answered, p->t.unanswered, p->t.errors,
		an_per_s(p->t.ops, d));
	fprintf(r->out, "PARTIAL: run %" PRId64 " was recorded with --ops "
		"%s%s, so table ops does not hold every operation (%s): this "
		"report shows what the aggregate tables hold.\n"
		"  whole: the operations per procedure (counts, errors, "
		"retransmissions, bytes; latency from the interval histograms, "
		"exact to their bucket), transfer sizes, FSINFO/STATFS, the "
		"findings the recorder computed, the capture counters\n"
		"  missing (they need one row per operation, --ops all): the "
		"tables by client, server, export and file, the size verdicts, "
		"writes and COMMITs (stable_how), retransmission causes, the "
		"time series, findings with other --threshold values; "
		"--from/--to select whole cells of %.3f s (table intervals)\n",
		run->id, run->ops_mode == STORE_OPS_SLOW ? "slow" : "none",
		slow, run->ops_mode == STORE_OPS_SLOW ? "only the slow, "
		"failed, retransmitted and unanswered ones" : "none at all",
		(double)run->interval_ns / 1e9);
}

/* "partial": how the run was recorded, what is whole and what needs
 * --ops all (the full report's keys). */
static void json_partial(struct jw *j, const struct store_run *run)
{
	static const char *const whole[] = { "totals", "procedures", "sizes",
		"sizes_from_replies", "fsinfo", "findings", "capture",
		"decode", "engine" };
	static const char *const lack[] = { "from_replies", "reply_not_seen",
		"rpc_errors", "errors_by_status", "retrans_ops",
		"late_retrans", "truncated", "latency_last_ms",
		"retrans_interval_ms" };
	static const char *const need[] = { "clients", "servers", "exports",
		"files", "pairs", "server_info", "intervals" };
	size_t k;

	jw_obj(j, "partial");
	jw_i64(j, "run", run->id);
	jw_str(j, "ops_mode", run->ops_mode == STORE_OPS_SLOW ? "slow" :
	       "none");
	if (run->ops_mode == STORE_OPS_SLOW)
		jw_dbl(j, "slow_ms", (double)run->slow_ns / 1e6, 3);
	jw_dbl(j, "interval_s", (double)run->interval_ns / 1e9, 3);
	jw_arr(j, "whole");
	for (k = 0; k < sizeof(whole) / sizeof(whole[0]); k++)
		jw_str(j, NULL, whole[k]);
	jw_end_arr(j);
	jw_arr(j, "procedures_lack");
	for (k = 0; k < sizeof(lack) / sizeof(lack[0]); k++)
		jw_str(j, NULL, lack[k]);
	jw_end_arr(j);
	jw_arr(j, "need_ops_all");
	for (k = 0; k < sizeof(need) / sizeof(need[0]); k++)
		jw_str(j, NULL, need[k]);
	jw_str(j, NULL, "findings with other --threshold values");
	jw_end_arr(j);
	jw_str(j, "findings", "as recorded (the recording's thresholds)");
	jw_end_obj(j);
}

static void json_head(struct partial *p, const struct store_run *run,
		      const struct an_model *m)
{
	struct jw *j = p->w;
	struct rep *r = p->r;
	char iso[48];

	jw_obj(j, NULL);
	jw_str(j, "source", r->source);
	rep_json_time(j, "first", r->first_ns);
	rep_json_time(j, "last", r->last_ns);
	jw_str(j, "first_utc", ui_time_iso(r->first_ns, iso, sizeof(iso)));
	jw_str(j, "last_utc", ui_time_iso(r->last_ns, iso, sizeof(iso)));
	jw_dbl(j, "duration_s", m->duration_s, 6);
	rep_json_incomplete(j, r, m);
	json_partial(j, run);
	jw_obj(j, "totals");
	jw_u64(j, "ops", p->t.ops);
	jw_u64(j, "answered", p->t.answered);
	jw_u64(j, "unanswered", p->t.unanswered);
	jw_u64(j, "errors", p->t.errors);
	jw_u64(j, "retrans", p->t.retrans);
	jw_u64(j, "dup_replies", p->t.dup_replies);
	jw_end_obj(j);
	jw_arr(j, "procedures");
}

/* The report of the cells and tables: text (w NULL, not csv), JSON or
 * the CSV table ops. */
static int partial(struct rep *r, const char *path,
		   const struct store_run *run, struct jw *w, bool csv)
{
	char err[STORE_ERRBUF_SIZE];
	struct partial p = { .r = r, .w = w, .csv = csv };
	struct an_model m = { 0 };
	struct store *s = NULL;
	const struct an_filter *f = r->filtered ? &r->filt : NULL;
	int64_t from, to;
	int rc = -1;

	an_filter_resolve(&r->filt, run->first_ns);
	an_filter_bounds(f, run->first_ns, &from, &to);
	if (rep_model(r, 0, &m) < 0)
		return -1;
	p.duration_s = m.duration_s;
	if (store_open(path, STORE_RDONLY, &s, err) < 0 ||
	    store_read_intervals(s, run->id, f, from, to, on_cell, &p,
				 err) < 0)
		goto out;
	if (w) {
		json_head(&p, run, &m);
	} else if (csv) {
		rep_csv_ops_header(r->out);
	} else {
		header(&p, run);
		rep_text_incomplete(r, &m);
		fprintf(r->out, "\n== Operations (by op, from table intervals; "
			"latency from the first transmission, ms) ==\n");
		rep_text_lat_header(r->out, "Procedure", r->wide);
	}
	p.print = true;
	if (store_read_intervals(s, run->id, f, from, to, on_cell, &p,
				 err) < 0)
		goto out;
	if (w)
		jw_end_arr(w);
	if (csv) {
		rc = 0;
		goto out;
	}
	if (table(&p, s, run->id, "sizes", "Transfer sizes: READ/WRITE calls "
		  "by count asked", err) < 0 ||
	    (w && table(&p, s, run->id, "sizes_from_replies", NULL, err) < 0) ||
	    table(&p, s, run->id, "fsinfo", "Servers: FSINFO, STATFS, write "
		  "verifier", err) < 0 ||
	    table(&p, s, run->id, "findings", "Findings (as recorded, default "
		  "or recording thresholds)", err) < 0)
		goto out;
	if (w) {
		rep_json_health(w, &m);
		jw_end_obj(w);
		jw_newline(w);
	}
	rc = 0;
out:
	if (rc < 0)
		fprintf(stderr, "nfscope report: %s\n", err);
	store_close(s);
	an_model_fini(&m);
	return rc;
}

int rep_partial_text(struct rep *r, const char *path,
		     const struct store_run *run)
{
	struct ui_wrap wr;
	FILE *out = r->out;
	int rc;

	r->out = ui_wrap_begin(&wr, out, r->wide ? 0 : UI_WRAP_COLS);
	if (r->out == NULL) {
		r->out = out;
		return -1;
	}
	rc = partial(r, path, run, NULL, false);
	if (ui_wrap_end(&wr) < 0)
		rc = -1;
	r->out = out;
	return rc;
}

int rep_partial_csv_ops(struct rep *r, const char *path,
			const struct store_run *run)
{
	return partial(r, path, run, NULL, true);
}

int rep_partial_json(struct rep *r, const char *path,
		     const struct store_run *run)
{
	struct jw w;

	jw_init(&w, r->out);
	return partial(r, path, run, &w, false);
}
