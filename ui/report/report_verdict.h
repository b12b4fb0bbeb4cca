/*
 * report_verdict.h - the verdict block in text, JSON and HTML.
 */
#ifndef NFSCOPE_UI_REPORT_VERDICT_H
#define NFSCOPE_UI_REPORT_VERDICT_H

#include <stddef.h>
#include <stdio.h>

#include "analyze/judge.h"
#include "analyze/model.h"

/* The verdict block (report_verdict.c): the text report's first
 * section, JSON's "verdict" object and a finding's impact fields, the
 * HTML page's first section. */
struct jw;
void rep_text_verdict(FILE *f, const struct an_model *m);
void rep_json_verdict(struct jw *w, const struct an_model *m);
void rep_json_impact(struct jw *w, const struct an_model *m, size_t k);
void rep_html_verdict(FILE *f, const struct an_model *m);

#endif
