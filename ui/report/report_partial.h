/*
 * report_partial.h - the report of a run recorded with --ops slow or none.
 */
#ifndef NFSCOPE_UI_REPORT_PARTIAL_H
#define NFSCOPE_UI_REPORT_PARTIAL_H

#include "store/store.h"
#include "ui/report/rep.h"

/* A run recorded with --ops slow or none (report_partial.c): the text
 * report its aggregate tables hold, saying what is missing and why.
 * Returns 0, or -1 with a message on stderr. */
int rep_partial_text(struct rep *r, const char *path,
		     const struct store_run *run);
/* The same as JSON (doc/report.md, "Partial report"), and the table
 * --csv ops (by procedure; from_replies empty: unknown). */
int rep_partial_json(struct rep *r, const char *path,
		     const struct store_run *run);
int rep_partial_csv_ops(struct rep *r, const char *path,
			const struct store_run *run);

#endif
