/*
 * report_partial.c - `report DB` on a run recorded with --ops slow:MS or
 * --ops none: the report its aggregate tables hold.  Every operation went
 * into table intervals (counts, errors, retransmissions, bytes, a latency
 * histogram per procedure, client and server), and the end-of-run tables
 * sizes, fsinfo and findings are whole; what needs one row per operation
 * (per export and file tables, size verdicts, writes and COMMITs,
 * retransmission causes, findings recomputed with other thresholds) is
 * not there, and the report says so instead of showing a figure that
 * would be wrong.
 */
#include "ui/report.h"
#include "ui/esc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define ROWS_MAX 40	/* of each end-of-run table; the rest: SQL */

struct partial {
	struct rep *r;
	double duration_s;		/* the run's span (model.h) */
	struct an_figs_totals t;	/* summed over the cells */
	bool print;			/* second pass: print the rows */
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
	rep_text_lat_row(p->r->out, an_model_proc_name(c->prog, c->vers,
			 c->proc, name, sizeof(name)), &mr);
	p->rows++;
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

int rep_partial_text(struct rep *r, const char *path,
		     const struct store_run *run)
{
	char err[STORE_ERRBUF_SIZE];
	struct partial p = { .r = r };
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
	header(&p, run);
	rep_text_incomplete(r, &m);
	fprintf(r->out, "\n== Operations (by op, from table intervals; "
		"latency from the first transmission, ms) ==\n");
	rep_text_lat_header(r->out, "Procedure");
	p.print = true;
	if (store_read_intervals(s, run->id, f, from, to, on_cell, &p,
				 err) < 0)
		goto out;
	if (table(&p, s, run->id, "sizes", "Transfer sizes: READ/WRITE calls "
		  "by count asked", err) < 0 ||
	    table(&p, s, run->id, "fsinfo", "Servers: FSINFO, STATFS, write "
		  "verifier", err) < 0 ||
	    table(&p, s, run->id, "findings", "Findings (as recorded, default "
		  "or recording thresholds)", err) < 0)
		goto out;
	rc = 0;
out:
	if (rc < 0)
		fprintf(stderr, "nfscope report: %s\n", err);
	store_close(s);
	an_model_fini(&m);
	return rc;
}
