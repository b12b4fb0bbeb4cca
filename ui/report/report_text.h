/*
 * report_text.h - the text report (doc/report.md) and the pieces of it
 * the partial report and the HTML page share; --threshold.
 */
#ifndef NFSCOPE_UI_REPORT_TEXT_H
#define NFSCOPE_UI_REPORT_TEXT_H

#include <stdbool.h>
#include <stdio.h>

#include "ui/report/rep.h"

/* A capture time as the text report prints it (--utc, --epoch; times.h). */
const char *rep_time(const struct rep *r, int64_t ns, char *buf, size_t n);

/* The text report (report_text.c).  Returns 0, or -1 (out of memory). */
int rep_text(const struct rep *r);
/* Pieces of it the partial report shares: the operations table's header
 * and a row; the INCOMPLETE lines. */
void rep_text_lat_header(FILE *f, const char *first, bool wide);
void rep_text_lat_row(FILE *f, const char *name, const struct an_model_row *w,
		      bool wide);
void rep_text_incomplete(const struct rep *r, const struct an_model *m);

/* The text report's capture health section (report_text.c). */
void rep_text_health(FILE *f, const struct an_model *m);

/* --threshold NAME=VALUE into c (find.h's table): 0, or -1 with a message
 * on stderr; --thresholds: the table with defaults and ranges. */
int rep_threshold_parse(struct an_find_config *c, const char *arg);
void rep_thresholds_list(FILE *f);

#endif
