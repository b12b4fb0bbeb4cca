/*
 * report.h - `nfscope report`: capture -> decode -> analyze -> a report of
 * operations, sizes and verdicts, writes, retransmits, findings and capture
 * health, as text (default), JSON (--json) or one CSV table (--csv TABLE).
 * Output format: nfscope(1), OUTPUT (doc/report.md: how it is made).
 *
 * Internal to ui/: struct rep (the run's state, owned by ui_report_main) is
 * shared by report.c (driver) and the writers, report_text.c (text) and
 * report_out.c (JSON, CSV).  Every figure they print comes from the report
 * model (analyze/model.h) built from struct rep (report_model.c); the
 * writers only format it and never call each other.
 */
#ifndef NFSCOPE_REPORT_H
#define NFSCOPE_REPORT_H

#include <stdio.h>

#include "analyze/figs.h"
#include "analyze/find.h"
#include "analyze/model.h"
#include "analyze/judge.h"
#include "analyze/ops.h"
#include "analyze/series.h"
#include "analyze/feedq.h"
#include "analyze/opq.h"
#include "decode/decode.h"
#include "store/store.h"
#include "ui/cli.h"
#include "ui/times.h"

struct rep {
	const char *who;		/* the command in messages; NULL: report */
	const char *source;
	FILE *out;
	enum an_group by;
	uint32_t top;
	uint32_t size_share;	/* % for a size verdict to say capped */
	int64_t interval_ns;	/* 0: no time series */
	struct run *run;		/* the pipeline (run/run.h) */
	struct an_figs *figs;
	struct an_find *find;
	struct an_series *series;	/* --html, --json --interval: per
					   procedure over time; else NULL */
	uint32_t series_cols;		/* --html: the series' columns at most
					   (model.h series_cols_max) */
	struct cap_stats cs;
	int64_t first_ns, last_ns;	/* capture time span */
	uint64_t rpc_msgs;
	/* counters and names: the live objects' or a stored run's */
	const struct dec_stats *ds;
	const struct an_stats *es;
	const struct an_names *names;
	struct an_filter filt;		/* --client --server --op --from --to
					   (a time of day waits for the
					   first packet) */
	enum ui_time_mode tmode;	/* how text prints times */
	bool wide;			/* --wide: text lines not fitted to
					   80 columns (wrap.h) */
	struct rep_every *every;	/* --every: blocks while reading */
	struct run_evidence *ev;	/* --write-pcap (NULL: none) */
	bool partial;			/* a database run without every op */
	bool filtered;
	struct ui_drops drops;		/* spans with capture drops (live) */
	bool cut;			/* the input was cut short or damaged: */
	struct cap_read_error cut_at;	/* where and why reading stopped */
};

/* A capture time as the text report prints it (--utc, --epoch; times.h). */
const char *rep_time(const struct rep *r, int64_t ns, char *buf, size_t n);
/* The report model of r (analyze/model.h, report_model.c): want is its
 * AN_MODEL_* bits.  Returns 0, or -1 with a message on stderr (out of
 * memory).  The caller finishes m (an_model_fini). */
int rep_model(const struct rep *r, unsigned want, struct an_model *m);
/* Names the model gives (analyze/model.h), by the report's old names. */
#define rep_group_names an_model_group_names
static inline const char *rep_proc_name(uint32_t prog, uint32_t vers,
					uint32_t proc, char *buf, size_t n)
{
	return an_model_proc_name(prog, vers, proc, buf, n);
}

/* The text report (report_text.c).  Returns 0, or -1 (out of memory). */
int rep_text(const struct rep *r);
/* Pieces of it the partial report shares: the operations table's header
 * and a row; the INCOMPLETE lines. */
void rep_text_lat_header(FILE *f, const char *first, bool wide);
void rep_text_lat_row(FILE *f, const char *name, const struct an_model_row *w,
		      bool wide);
void rep_text_incomplete(const struct rep *r, const struct an_model *m);
/* --threshold NAME=VALUE into c (find.h's table): 0, or -1 with a message
 * on stderr; --thresholds: the table with defaults and ranges. */
int rep_threshold_parse(struct an_find_config *c, const char *arg);
void rep_thresholds_list(FILE *f);
/* A run recorded with --ops slow or none (report_partial.c): the text
 * report its aggregate tables hold, saying what is missing and why.
 * Returns 0, or -1 with a message on stderr. */
int rep_partial_text(struct rep *r, const char *path,
		     const struct store_run *run);
/* The same as JSON (nfscope(1), report --json: partial), and the table
 * --csv ops (by procedure; from_replies empty: unknown). */
int rep_partial_json(struct rep *r, const char *path,
		     const struct store_run *run);
int rep_partial_csv_ops(struct rep *r, const char *path,
			const struct store_run *run);

/* --every S (report_every.c): blocks of rows every S seconds of capture
 * time, printed as the operations come (on the thread adding them up). */
struct rep_every *rep_every_new(int64_t every_ns);
void rep_every_free(struct rep_every *e);
void rep_every_add(struct rep *r, const struct an_op *op);
void rep_every_end(struct rep *r);		/* the last window */

/* --html OUT (report_html.c): the page, to f (OUT opened by the driver
 * before the capture, so a bad path fails at once).  Returns 0, or -1
 * with a message on stderr (out of memory). */
int rep_html(const struct rep *r, FILE *f);
/* The verdict block (report_verdict.c): the text report's first
 * section, JSON's "verdict" object and a finding's impact fields, the
 * HTML page's first section. */
struct jw;
void rep_text_verdict(FILE *f, const struct an_model *m);
void rep_json_verdict(struct jw *w, const struct an_model *m);
void rep_json_impact(struct jw *w, const struct an_model *m, size_t k);
void rep_html_verdict(FILE *f, const struct an_model *m);
/* The text report's capture health section (report_text.c). */
void rep_text_health(FILE *f, const struct an_model *m);

/* JSON (report_out.c).  Returns 0, or -1 (out of memory). */
int rep_json(const struct rep *r);
/* Pieces of it the partial report's JSON shares: a procedure's row with
 * only what an interval cell holds (no from_replies, reply_not_seen,
 * rpc_errors, errors_by_status, retrans_ops, late_retrans, truncated,
 * latency_last_ms, retrans_interval_ms), a time, "complete" and
 * "incomplete", "capture", "decode" and "engine". */
struct jw;
void rep_json_proc_cells(struct jw *w, const struct an_model_row *mr);
void rep_json_time(struct jw *w, const char *key, int64_t ns);
void rep_json_incomplete(struct jw *w, const struct rep *r,
			 const struct an_model *m);
void rep_json_health(struct jw *w, const struct an_model *m);
/* Returns 0, or -1 for an unknown table name (or out of memory); r NULL:
 * only checks the name. */
int rep_csv(const struct rep *r, const char *table);
/* --csv ops's header and one row (the partial report's too: from_replies
 * false leaves that field empty, unknown). */
void rep_csv_ops_header(FILE *f);
void rep_csv_ops_row(FILE *f, const char *group, const char *key,
		     const struct an_model_row *v, bool from_replies);

/* report_db.c: does path hold an sqlite database? */
bool rep_is_store(const char *path);
/* Load run run_id (0: the last) of the store at path into r: counters,
 * exports (*names, caller frees) and every operation replayed through fn
 * (r as user).  run is the caller's and must outlive r.  Prints errors;
 * returns 0 or -1. */
int rep_store_load(struct rep *r, const char *path, int64_t run_id,
		   struct store_run *run, struct an_names **names,
		   an_op_fn fn);

/* One run of a database as a source: "DB" (its last run) or "DB:N"
 * (run N; a file whose own name ends in ":N" is taken whole). */
#define REP_SRC_MAX 64	/* runs one report or diff merges */
struct rep_src {
	char path[4096];
	int64_t run_id;		/* 0: the last */
};
/* Parse arg into src: 0, or -1 if it names no database. */
int rep_src_parse(const char *arg, struct rep_src *src);
/* Several runs as one (rep_store_load for each, merged): counters add,
 * the time span covers them all, exports and handshakes merge, and the
 * operations are replayed interleaved by the time the engine delivered
 * them, so the figures (counts, histograms, sizes) are those of one
 * capture holding them all.  run gets the merged run (its source the
 * runs' sources, comma separated).  Every run must hold every operation
 * (--ops all) when nsrc > 1.  Prints errors; returns 0 or -1. */
int rep_store_load_many(struct rep *r, const struct rep_src *src, size_t nsrc,
			struct store_run *run, struct an_names **names,
			an_op_fn fn);

/* List the runs of the store at path (--runs).  Returns 0 or -1. */
int rep_store_list(const char *path, FILE *out, enum ui_time_mode tm,
		   bool wide);

/* The hooks report reads a capture with (run.h): the figures and
 * findings of every operation, the drops and the counters at the end into
 * struct rep (the caller sets h->user).  diff.c loads each side so. */
void rep_hooks(struct run_hooks *h);

/* The `report` subcommand; argv[0] is "report".  Returns the exit status. */
int ui_report_main(int argc, char **argv);

#endif
