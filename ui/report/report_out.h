/*
 * report_out.h - the report as JSON (--json) and CSV (--csv TABLE), and
 * the pieces of them the partial report shares.
 */
#ifndef NFSCOPE_UI_REPORT_OUT_H
#define NFSCOPE_UI_REPORT_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analyze/model.h"
#include "ui/report/rep.h"

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

#endif
