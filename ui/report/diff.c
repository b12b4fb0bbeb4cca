/* diff.c - `nfscope diff A B`: each side loaded as `report` loads it
 * (report.c's hooks, report_db.c for a database or a run), both report
 * models compared by analyze/diff.c; text and --json here, --html in
 * diff_html.c.  See diff.h. */
#include "ui/report/diff.h"
#include "ui/esc.h"
#include "ui/json.h"
#include "ui/outfile.h"
#include "ui/report/rep.h"
#include "ui/report/report.h"
#include "ui/report/report_db.h"
#include "ui/report/report_model.h"
#include "ui/wrap.h"

#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One side: its report state, the stored run (a database) and model. */
struct side {
	struct rep r;
	struct store_run run;
	struct rep_src src;
	struct an_names *names;
	struct an_model m;
	bool have_model;
};

static void on_stored_op(void *user, const struct an_op *op)
{
	struct rep *r = user;

	run_put_op(r->run, op);
}

/* A capture's packets, or a database run's stored operations. */
static int side_read(struct side *s, const char *arg, bool db)
{
	struct run_hooks h;

	rep_hooks(&s->r, &h);
	if (run_go(s->r.run, &h) < 0)
		return -1;
	if (!db)
		return 0;
	if (rep_store_load_many(&s->r, &s->src, 1, &s->run, &s->names,
				on_stored_op) < 0)
		return -1;
	if (s->r.partial) {
		fprintf(stderr, "nfscope diff: %s: run %" PRId64 " was "
			"recorded without every operation (--ops all is "
			"needed)\n", arg, s->run.id);
		return -1;
	}
	run_finish(s->r.run, NULL);
	return 0;
}

static int side_load(struct side *s, const char *arg,
		     const struct an_find_config *dc, enum ui_time_mode tm)
{
	struct ui_src_opts so;
	struct an_figs_config fc;
	struct run_config c;
	bool db = rep_src_parse(arg, &s->src) == 0;

	ui_src_opts_init(&so);
	if (!db && (ui_src_opt(&so, 'r', arg) != 1 ||
		    ui_src_args(&so, "diff", 0, NULL, 0) < 0))
		return -1;
	ui_run_config(&so, "diff", &c);
	c.ops_only = db;
	c.analyze = true;
	c.dec.no_attrs = true;
	if (run_open(&s->r.run, &c) < 0 || run_after_open(s->r.run) < 0)
		return -1;
	memset(&fc, 0, sizeof(fc));
	s->r.who = "diff";
	s->r.source = arg;
	s->r.out = stdout;
	s->r.tmode = tm;
	s->r.top = 20;
	s->r.size_share = dc->size_share;
	s->r.figs = an_figs_new(&fc);
	s->r.find = an_find_new(dc);
	if (s->r.figs == NULL || s->r.find == NULL) {
		fprintf(stderr, "nfscope: out of memory\n");
		return -1;
	}
	if (side_read(s, arg, db) < 0)
		return -1;
	an_find_finish(s->r.find, s->r.figs, s->r.cs.ipfrag_incomplete);
	if (rep_model(&s->r, AN_MODEL_ROWS(AN_BY_OP), &s->m) < 0)
		return -1;
	s->have_model = true;
	return 0;
}

static void side_free(struct side *s)
{
	if (s->have_model)
		an_model_fini(&s->m);
	run_free(s->r.run);	/* first: its threads use figs and find */
	an_find_free(s->r.find);
	an_figs_free(s->r.figs);
	an_names_free(s->names);
}

/* --------------------------------------------------------------- text -- */

/* A change in per cent, 7 wide: "-41%", "new", "-". */
static const char *pct_str(double pct, char *b, size_t n)
{
	if (isnan(pct))
		snprintf(b, n, "-");
	else
		snprintf(b, n, "%+.0f%%", pct);
	return b;
}

static void text_side(FILE *f, const char *which, const char *name,
		      const struct an_diff_totals *t)
{
	fprintf(f, "%s: %s: %" PRIu64 " operations over %.3f s, %.1f ops/s, "
		"%.1f kB/s of READ/WRITE data, RPC messages %" PRIu64 " UDP %"
		PRIu64 " TCP%s\n", which, name, t->ops, t->duration_s,
		t->ops_per_s, t->data_kib_per_s, t->udp_msgs, t->tcp_msgs,
		t->complete ? "" : " (INCOMPLETE: see its report)");
}

/* The 80-column table: calls, the change in ops/s, p50 and p99. */
static void text_procs_narrow(FILE *f, const struct an_diff *d)
{
	char name[64], p[2][16], o[16], v[4][16];
	uint32_t k;

	fprintf(f, "%-17s %7s %7s %6s %6s %6s %5s %6s %6s %5s\n", "Procedure",
		"Calls A", "Calls B", "dOps/s", "p50 A", "p50 B", "d", "p99 A",
		"p99 B", "d");
	for (k = 0; k < d->nprocs; k++) {
		const struct an_diff_proc *x = &d->procs[k];

		fprintf(f, "%-17s %7" PRIu64 " %7" PRIu64 " %6s %6s %6s %5s "
			"%6s %6s %5s\n", an_model_proc_name(x->prog, x->vers,
			x->proc, name, sizeof(name)), x->a.calls, x->b.calls,
			pct_str(x->d_ops_pct, o, sizeof(o)),
			ui_fmt_ms(x->a.p50_ms, v[0], sizeof(v[0])),
			ui_fmt_ms(x->b.p50_ms, v[1], sizeof(v[1])),
			pct_str(x->d_p50_pct, p[0], sizeof(p[0])),
			ui_fmt_ms(x->a.p99_ms, v[2], sizeof(v[2])),
			ui_fmt_ms(x->b.p99_ms, v[3], sizeof(v[3])),
			pct_str(x->d_p99_pct, p[1], sizeof(p[1])));
	}
}

static void text_procs(FILE *f, const struct an_diff *d, bool wide)
{
	static const char *const q[3] = { "p50", "p95", "p99" };
	char name[64], p[3][16], o[16];
	uint32_t k, i;

	if (!wide) {
		fprintf(f, "\n== Operations (A -> B; latency ms; percentiles "
			"within %.1f%%) ==\n", AN_DIFF_PCT_ERR);
		text_procs_narrow(f, d);
		return;
	}
	fprintf(f, "\n== Operations (A -> B; latency from the first "
		"transmission, ms; each percentile within %.1f%%) ==\n",
		AN_DIFF_PCT_ERR);
	fprintf(f, "%-22s %8s %8s %9s %9s %7s", "Procedure", "Calls A",
		"Calls B", "Ops/s A", "Ops/s B", "dOps/s");
	for (i = 0; i < 3; i++)
		fprintf(f, " %7s A %7s B %7s", q[i], q[i], "d");
	fputc('\n', f);
	for (k = 0; k < d->nprocs; k++) {
		const struct an_diff_proc *x = &d->procs[k];

		fprintf(f, "%-22s %8" PRIu64 " %8" PRIu64 " %9.1f %9.1f %7s"
			" %9.3f %9.3f %7s %9.3f %9.3f %7s %9.3f %9.3f %7s\n",
			an_model_proc_name(x->prog, x->vers, x->proc, name,
					   sizeof(name)),
			x->a.calls, x->b.calls, x->a.ops_per_s, x->b.ops_per_s,
			pct_str(x->d_ops_pct, o, sizeof(o)),
			x->a.p50_ms, x->b.p50_ms,
			pct_str(x->d_p50_pct, p[0], sizeof(p[0])),
			x->a.p95_ms, x->b.p95_ms,
			pct_str(x->d_p95_pct, p[1], sizeof(p[1])),
			x->a.p99_ms, x->b.p99_ms,
			pct_str(x->d_p99_pct, p[2], sizeof(p[2])));
	}
}

static void text_sizes(FILE *f, const char *op, const struct an_diff_sizes *z)
{
	char s[24];
	uint32_t k;

	if (z->total_a == 0 && z->total_b == 0)
		return;
	fprintf(f, "\n== %s sizes (calls by the count asked) ==\n"
		"%-10s %10s %10s\n", op, "Size", "A", "B");
	for (k = 0; k < z->n; k++)
		fprintf(f, "%-10s %10" PRIu64 " %10" PRIu64 "\n",
			an_diff_size_name(z->s[k].size, s, sizeof(s)),
			z->s[k].a, z->s[k].b);
	if (z->other_a || z->other_b)
		fprintf(f, "%-10s %10" PRIu64 " %10" PRIu64 "\n", "other",
			z->other_a, z->other_b);
	fprintf(f, "%-10s %10" PRIu64 " %10" PRIu64 "\n", "total",
		z->total_a, z->total_b);
}

static void text_retrans(FILE *f, const struct an_diff *d)
{
	const struct an_diff_totals *a = &d->ta, *b = &d->tb;
	uint32_t c;

	fprintf(f, "\n== Writes, retransmissions and causes ==\n"
		"%-36s %10s %10s\n", "", "A", "B");
	fprintf(f, "%-36s %10.2f %10.2f\n", "COMMITs per WRITE",
		a->commits_per_write, b->commits_per_write);
	fprintf(f, "%-36s %10" PRIu64 " %10" PRIu64 "\n", "retransmitted calls",
		a->retrans, b->retrans);
	fprintf(f, "%-36s %10" PRIu64 " %10" PRIu64 "\n", "duplicate replies",
		a->dup_replies, b->dup_replies);
	fprintf(f, "%-36s %10" PRIu64 " %10" PRIu64 "\n", "unanswered calls",
		a->unanswered, b->unanswered);
	fprintf(f, "%-36s %10" PRIu64 " %10" PRIu64 "\n", "errors",
		a->errors, b->errors);
	for (c = 0; c < AN_RX_NCAUSES; c++)
		if (a->cause[c] || b->cause[c])
			fprintf(f, "cause %-30s %10" PRIu64 " %10" PRIu64 "\n",
				an_rx_cause_keys[c], a->cause[c], b->cause[c]);
}

static void text_findings(FILE *f, const struct an_diff *d,
			  const struct diff_names *n)
{
	char ev[2 * AN_EVIDENCE_MAX], nz[2 * AN_EVIDENCE_MAX];
	const char *e;
	size_t k;

	fprintf(f, "\n== Findings that appear (+, only in B) or disappear "
		"(-, only in A) ==\n");
	if (d->nfindings == 0)
		fprintf(f, "none: the same kinds for the same clients and "
			"servers\n");
	for (k = 0; k < d->nfindings; k++) {
		e = d->findings[k].f->evidence;
		if (!n->wide) {	/* as report's text: zero parts left out */
			ui_time_text(e, n->tmode, ev, sizeof(ev));
			e = ui_drop_zero_parts(nz, sizeof(nz), ev);
		}
		fprintf(f, "%c %s: ", d->findings[k].appears ? '+' : '-',
			an_find_kind_name(d->findings[k].f->kind));
		ui_esc_put(f, e, strlen(e), NULL);
		fputc('\n', f);
	}
}

static void diff_text(FILE *f, const struct an_diff *d,
		      const struct diff_names *n)
{
	struct ui_wrap wr;
	FILE *out = f;

	if ((f = ui_wrap_begin(&wr, out, n->wide ? 0 : UI_WRAP_COLS)) == NULL)
		return;
	fprintf(f, "nfscope diff\n");
	text_side(f, "A (before)", n->a, &d->ta);
	text_side(f, "B (after) ", n->b, &d->tb);
	fprintf(f, "verdict: %s\n", d->verdict);
	text_procs(f, d, n->wide);
	text_sizes(f, "READ", &d->read);
	text_sizes(f, "WRITE", &d->write);
	text_retrans(f, d);
	text_findings(f, d, n);
	ui_wrap_end(&wr);
}

/* --------------------------------------------------------------- json -- */

static void jw_pct(struct jw *w, const char *key, double pct)
{
	if (isnan(pct))
		jw_null(w, key);
	else
		jw_dbl(w, key, pct, 2);
}

static void json_side(struct jw *w, const char *key, const char *name,
		      const struct an_diff_totals *t)
{
	uint32_t c;

	jw_obj(w, key);
	jw_str(w, "source", name);
	jw_u64(w, "ops", t->ops);
	jw_dbl(w, "duration_s", t->duration_s, 6);
	jw_dbl(w, "ops_per_s", t->ops_per_s, 3);
	jw_dbl(w, "data_kib_per_s", t->data_kib_per_s, 3);
	jw_u64(w, "udp_msgs", t->udp_msgs);
	jw_u64(w, "tcp_msgs", t->tcp_msgs);
	jw_u64(w, "errors", t->errors);
	jw_u64(w, "unanswered", t->unanswered);
	jw_u64(w, "retrans", t->retrans);
	jw_u64(w, "dup_replies", t->dup_replies);
	jw_u64(w, "writes", t->writes);
	jw_u64(w, "commits", t->commits);
	jw_dbl(w, "commits_per_write", t->commits_per_write, 4);
	jw_obj(w, "retrans_causes");
	for (c = 0; c < AN_RX_NCAUSES; c++)
		jw_u64(w, an_rx_cause_keys[c], t->cause[c]);
	jw_end_obj(w);
	jw_bool(w, "complete", t->complete);
	jw_end_obj(w);
}

static void json_proc_side(struct jw *w, const char *key,
			   const struct an_diff_side *s)
{
	jw_obj(w, key);
	jw_u64(w, "calls", s->calls);
	jw_u64(w, "answered", s->answered);
	jw_u64(w, "errors", s->errors);
	jw_u64(w, "retrans", s->retrans);
	jw_dbl(w, "ops_per_s", s->ops_per_s, 3);
	jw_dbl(w, "p50_ms", s->p50_ms, 3);
	jw_dbl(w, "p95_ms", s->p95_ms, 3);
	jw_dbl(w, "p99_ms", s->p99_ms, 3);
	jw_end_obj(w);
}

static void json_sizes(struct jw *w, const char *key,
		       const struct an_diff_sizes *z)
{
	uint32_t k;

	jw_obj(w, key);
	jw_u64(w, "dominant_a", z->dominant_a);
	jw_u64(w, "dominant_b", z->dominant_b);
	jw_u64(w, "granted_a", z->granted_a);
	jw_u64(w, "granted_b", z->granted_b);
	jw_u64(w, "total_a", z->total_a);
	jw_u64(w, "total_b", z->total_b);
	jw_u64(w, "other_a", z->other_a);
	jw_u64(w, "other_b", z->other_b);
	jw_arr(w, "sizes");
	for (k = 0; k < z->n; k++) {
		jw_obj(w, NULL);
		jw_u64(w, "size", z->s[k].size);
		jw_u64(w, "a", z->s[k].a);
		jw_u64(w, "b", z->s[k].b);
		jw_end_obj(w);
	}
	jw_end_arr(w);
	jw_end_obj(w);
}

static void diff_json(FILE *f, const struct an_diff *d,
		      const struct diff_names *n)
{
	char name[64];
	struct jw w;
	uint32_t k;
	size_t i;

	jw_init(&w, f);
	jw_obj(&w, NULL);
	jw_str(&w, "verdict", d->verdict);
	jw_dbl(&w, "percentile_error_pct", AN_DIFF_PCT_ERR, 3);
	json_side(&w, "a", n->a, &d->ta);
	json_side(&w, "b", n->b, &d->tb);
	jw_arr(&w, "procedures");
	for (k = 0; k < d->nprocs; k++) {
		const struct an_diff_proc *x = &d->procs[k];

		jw_obj(&w, NULL);
		jw_str(&w, "procedure", an_model_proc_name(x->prog, x->vers,
				x->proc, name, sizeof(name)));
		jw_u64(&w, "prog", x->prog);
		jw_u64(&w, "vers", x->vers);
		jw_u64(&w, "proc", x->proc);
		json_proc_side(&w, "a", &x->a);
		json_proc_side(&w, "b", &x->b);
		jw_pct(&w, "d_ops_pct", x->d_ops_pct);
		jw_pct(&w, "d_p50_pct", x->d_p50_pct);
		jw_pct(&w, "d_p95_pct", x->d_p95_pct);
		jw_pct(&w, "d_p99_pct", x->d_p99_pct);
		jw_end_obj(&w);
	}
	jw_end_arr(&w);
	json_sizes(&w, "read_sizes", &d->read);
	json_sizes(&w, "write_sizes", &d->write);
	jw_arr(&w, "findings");
	for (i = 0; i < d->nfindings; i++) {
		jw_obj(&w, NULL);
		jw_str(&w, "change", d->findings[i].appears ? "appears" :
		       "disappears");
		jw_str(&w, "kind", an_find_kind_name(d->findings[i].f->kind));
		jw_str(&w, "evidence", d->findings[i].f->evidence);
		jw_end_obj(&w);
	}
	jw_end_arr(&w);
	jw_end_obj(&w);
	jw_newline(&w);
}

/* --------------------------------------------------------------- main -- */

static void diff_usage(FILE *f)
{
	fputs("usage: nfscope diff [--json | --html OUT.html | --wide] "
	      "[--utc | --epoch] A B\n"
	      UI_HELP_USAGE
	      "  --json       one JSON document\n"
	      "  --html OUT.html  one self-contained page ('-': stdout)\n"
	      "  --wide       text as wide as its figures (default: within 80 "
	      "columns)\n"
	      "  --utc        times in UTC\n"
	      "  --epoch      times in seconds since 1970\n"
	      "  A, B: a capture file (pcap or pcapng), a database written "
	      "by nfscope record\n"
	      "        (its last run), or DB:N (run N of a database)\n"
	      "  A is before, B after: per procedure the change in ops/s and "
	      "p50/p95/p99,\n"
	      "  READ/WRITE sizes side by side, COMMITs per WRITE, "
	      "retransmissions and causes,\n"
	      "  findings that appear or disappear, and a verdict in words\n",
	      f);
}

/* The chosen output of d: 0, or 1 if it could not be written. */
static int diff_out(const struct an_diff *d, const struct diff_names *n,
		    bool json, const char *html)
{
	struct ui_out o;
	int rc;

	if (html == NULL) {
		if (json)
			diff_json(stdout, d, n);
		else
			diff_text(stdout, d, n);
		return 0;	/* stdout is checked by main */
	}
	if (ui_out_begin(&o, "diff", "--html", html) < 0)
		return 1;
	rc = diff_html(o.f, d, n);
	return ui_out_end(&o, rc == 0) < 0 || rc < 0;
}

/* --html against the two inputs (a database named DB:N is its file):
 * 0, or -1 said. */
static int diff_outs_check(const char *a, const char *b, const char *html)
{
	struct rep_src sa, sb;
	const char *ins[2];

	ins[0] = rep_src_parse(a, &sa) == 0 ? sa.path : a;
	ins[1] = rep_src_parse(b, &sb) == 0 ? sb.path : b;
	return ui_out_check("diff", &(struct ui_out_name){ "--html", html },
			    1, ins, 2);
}

int ui_diff_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'J' },
		{ "html", required_argument, NULL, 'H' },
		{ "utc", no_argument, NULL, 'u' },
		{ "epoch", no_argument, NULL, 'e' },
		{ "wide", no_argument, NULL, 'W' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct an_find_config dc;
	struct side *s = calloc(2, sizeof(*s));
	struct diff_names n = { NULL, NULL, UI_TIME_LOCAL, false };
	struct an_diff d;
	const char *html = NULL;
	bool json = false;
	int opt, rc = 1;

	if (s == NULL) {
		fprintf(stderr, "nfscope: out of memory\n");
		return 1;
	}
	memset(&d, 0, sizeof(d));
	an_find_config_default(&dc);
	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'J':
			json = true;
			break;
		case 'H':
			html = optarg;
			break;
		case 'W':
			n.wide = true;
			break;
		case 'u':
		case 'e':
			n.tmode = opt == 'u' ? UI_TIME_UTC : UI_TIME_EPOCH;
			break;
		case 'h':
			diff_usage(stdout);
			free(s);
			return 0;
		default:
			free(s);
			return ui_usage_error("diff", NULL);
		}
	}
	if (argc - optind != 2 || (json && html)) {
		free(s);
		return ui_usage_error("diff", json && html ? "--json and "
				      "--html exclude each other" :
				      "give two inputs, A (before) and B "
				      "(after)");
	}
	n.a = argv[optind];
	n.b = argv[optind + 1];
	if (diff_outs_check(n.a, n.b, html) < 0)
		goto out;
	if (side_load(&s[0], n.a, &dc, n.tmode) < 0 ||
	    side_load(&s[1], n.b, &dc, n.tmode) < 0)
		goto out;
	if (an_diff_build(&d, &s[0].m, &s[1].m) < 0) {
		fprintf(stderr, "nfscope: out of memory\n");
		goto out;
	}
	rc = diff_out(&d, &n, json, html);
out:
	an_diff_fini(&d);
	side_free(&s[0]);
	side_free(&s[1]);
	free(s);
	return rc;
}
