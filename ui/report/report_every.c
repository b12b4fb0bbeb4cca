/*
 * report_every.c - `report --every S`: a block of rows every S seconds of
 * capture time while the capture is read, as nfsiostat prints one every
 * interval: per procedure ops/s, kB/s and kB/op (READ/WRITE data), retrans
 * and their share, avg RTT (from the last transmission, the server's
 * time) and avg exe (from the first, what the application waited), errors;
 * the model computes them (an_model_rate, analyze/model.h), this file
 * only adds up the window and prints.
 *
 * An operation counts in the window of the time it completed (its reply,
 * or its last call when unanswered); windows are aligned to multiples of S
 * since the epoch (10:20:00, 10:20:05, ...).  A window is printed when the
 * first operation of a later one arrives, and the last at the end; a run
 * of windows without operations is one line.  Runs on the thread that adds
 * up the operations (on_op_sums), or on the main thread at the end.
 */
#include "ui/report/report_every.h"
#include "ui/report/rep.h"
#include "ui/report/report_text.h"
#include "ui/wrap.h"
#include "analyze/acc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define EVERY_PROCS 64		/* rows per window; more: "other" */

/* A procedure's cell of the window: the accumulator's sums (analyze/acc.h;
 * lat_sum_ns is the exe sum) and the RTT sum, which the cell lacks. */
struct every_row {
	uint32_t prog, vers, proc;
	AN_SUMS_MEMBER;
	int64_t rtt_sum_ns;
};

struct rep_every {
	int64_t every_ns;
	int64_t start_ns;		/* the window being added up; 0 none */
	struct every_row row[EVERY_PROCS];
	uint32_t n;
	uint64_t other;			/* ops of procedures past the rows */
	bool zone_said;			/* 80 columns: the time zone is said
					   in the first window's heading */
};

struct rep_every *rep_every_new(int64_t every_ns)
{
	struct rep_every *e = calloc(1, sizeof(*e));

	if (e)
		e->every_ns = every_ns;
	return e;
}

void rep_every_free(struct rep_every *e)
{
	free(e);
}

static int row_cmp(const void *x, const void *y)
{
	const struct every_row *a = x, *b = y;

	return a->calls < b->calls ? 1 : a->calls > b->calls ? -1 : 0;
}

/* A row of the 80-column block. */
static void every_row_narrow(FILE *f, const struct every_row *w, double s)
{
	char name[96], shown[32], a[32], b[32];
	struct an_model_rate v;

	an_model_rate(&w->s, w->rtt_sum_ns, s, &v);
	/* a name past its 19 columns ("NFSv4 RECLAIM_COMPLETE") is cut in
	 * the middle, as the tables' long keys are */
	an_model_proc_name(w->prog, w->vers, w->proc, name, sizeof(name));
	fprintf(f, "%-19s %7.1f %8.1f %6.1f %6" PRIu64 " %5.1f %7s %7s %5"
		PRIu64 "\n", ui_shorten_mid(shown, sizeof(shown), name, 19),
		v.ops_per_s, v.data_kib_per_s, v.data_kib_per_op, w->retrans,
		v.retrans_pct, ui_fmt_ms(v.rtt_avg_ms, a, sizeof(a)),
		ui_fmt_ms(v.exe_avg_ms, b, sizeof(b)), w->errors);
}

static void print_window(struct rep *r, struct rep_every *e)
{
	double s = (double)e->every_ns / 1e9;
	uint64_t ops = e->other;
	char t[48], z[64], name[96], head[256];
	uint32_t k;

	for (k = 0; k < e->n; k++)
		ops += e->row[k].calls;
	qsort(e->row, e->n, sizeof(e->row[0]), row_cmp);
	run_block_signals(true);
	if (r->wide)
		snprintf(head, sizeof(head), "--- %s + %.3f s (%s): %" PRIu64
			 " operations, %.1f ops/s ---", rep_time(r, e->start_ns,
			 t, sizeof(t)), s, ui_time_zone(e->start_ns, r->tmode, z,
			 sizeof(z)), ops, (double)ops / s);
	else
		snprintf(head, sizeof(head), "--- %s + %.3f s: %" PRIu64
			 " ops, %.1f ops/s ---%s%s%s", rep_time(r, e->start_ns,
			 t, sizeof(t)), s, ops, (double)ops / s, e->zone_said ?
			 "" : "\n(times: ", e->zone_said ? "" :
			 ui_time_zone(e->start_ns, r->tmode, z, sizeof(z)),
			 e->zone_said ? "" : ")");
	e->zone_said = true;
	fputc('\n', r->out);
	ui_wrap_text(r->out, head, strlen(head), r->wide ? 0 : UI_WRAP_COLS);
	fputc('\n', r->out);
	if (r->wide)
		fprintf(r->out, "%-30s %9s %10s %8s %8s %6s %10s %10s %6s\n",
			"Procedure", "ops/s", "kB/s", "kB/op", "retrans", "(%)",
			"avg RTT ms", "avg exe ms", "Err");
	else
		fprintf(r->out, "%-19s %7s %8s %6s %6s %5s %7s %7s %5s\n",
			"Procedure", "ops/s", "kB/s", "kB/op", "Resent", "(%)",
			"RTT ms", "exe ms", "Err");
	for (k = 0; k < e->n; k++) {
		const struct every_row *w = &e->row[k];
		struct an_model_rate v;

		if (!r->wide) {
			every_row_narrow(r->out, w, s);
			continue;
		}
		an_model_rate(&w->s, w->rtt_sum_ns, s, &v);
		fprintf(r->out, "%-30s %9.1f %10.1f %8.1f %8" PRIu64 " %6.1f "
			"%10.3f %10.3f %6" PRIu64 "\n",
			an_model_proc_name(w->prog, w->vers, w->proc, name,
				      sizeof(name)), v.ops_per_s,
			v.data_kib_per_s, v.data_kib_per_op, w->retrans,
			v.retrans_pct, v.rtt_avg_ms, v.exe_avg_ms, w->errors);
	}
	if (e->other)
		fprintf(r->out, "(%" PRIu64 " operations of further "
			"procedures)\n", e->other);
	fflush(r->out);
	run_block_signals(false);
	memset(e->row, 0, sizeof(e->row));
	e->n = 0;
	e->other = 0;
}

/* Windows [from, to) without operations: one line. */
static void print_idle(struct rep *r, const struct rep_every *e, int64_t from,
		       int64_t to)
{
	char t0[48], t1[48], head[160];

	run_block_signals(true);
	snprintf(head, sizeof(head), "--- %s .. %s: no operations (%" PRId64
		 " windows) ---", rep_time(r, from, t0, sizeof(t0)),
		 rep_time(r, to, t1, sizeof(t1)), (to - from) / e->every_ns);
	fputc('\n', r->out);
	ui_wrap_line(r->out, head, strlen(head), r->wide ? 0 : UI_WRAP_COLS);
	fflush(r->out);
	run_block_signals(false);
}

static struct every_row *row_of(struct rep_every *e, const struct an_op *op)
{
	uint32_t k;

	for (k = 0; k < e->n; k++)
		if (e->row[k].prog == op->prog && e->row[k].vers == op->vers &&
		    e->row[k].proc == op->proc)
			return &e->row[k];
	if (e->n == EVERY_PROCS)
		return NULL;
	e->row[e->n].prog = op->prog;
	e->row[e->n].vers = op->vers;
	e->row[e->n].proc = op->proc;
	return &e->row[e->n++];
}

void rep_every_add(struct rep *r, const struct an_op *op)
{
	struct rep_every *e = r->every;
	int64_t t = op->reply_ns ? op->reply_ns : op->last_call_ns;
	int64_t w = an_bucket_start(t, e->every_ns);
	struct every_row *x;

	if (op->flags & AN_OP_CALL_NOT_SEEN)
		return;		/* as the operations table: said apart */
	if (e->start_ns == 0)
		e->start_ns = w;
	if (w > e->start_ns) {
		print_window(r, e);
		if (w > e->start_ns + e->every_ns)
			print_idle(r, e, e->start_ns + e->every_ns, w);
		e->start_ns = w;
	}
	/* (an operation completed in an earlier window, delivered late: an
	   unanswered call given up on, counts in the current one) */
	if ((x = row_of(e, op)) == NULL) {
		e->other++;
		return;
	}
	an_cell_add(&x->s, NULL, op);
	if (op->flags & AN_OP_ANSWERED)
		x->rtt_sum_ns += op->lat_last_ns;
}

void rep_every_end(struct rep *r)
{
	if (r->every && r->every->start_ns)
		print_window(r, r->every);
}
