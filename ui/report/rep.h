/*
 * rep.h - the report's state: struct rep, owned by ui_report_main (and by
 * diff.c for each side), filled by the driver (report.c) or a database's
 * replay (report_db.c) and read by the writers, which build the report
 * model from it (report_model.h) and only format that.  The room's
 * headers are one per file (report_text.h for report_text.c ...): no hub.
 */
#ifndef NFSCOPE_UI_REP_H
#define NFSCOPE_UI_REP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analyze/figs.h"
#include "analyze/find.h"
#include "analyze/judge.h"
#include "analyze/model.h"
#include "analyze/ops.h"
#include "analyze/series.h"
#include "decode/decode.h"
#include "ui/cli.h"
#include "ui/times.h"

struct rep_every;
struct run;
struct run_evidence;

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

/* Names the model gives (analyze/model.h), by the report's old names. */
#define rep_group_names an_model_group_names

#endif
