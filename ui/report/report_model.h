/*
 * report_model.h - the report model (analyze/model.h) of a struct rep.
 */
#ifndef NFSCOPE_UI_REPORT_MODEL_H
#define NFSCOPE_UI_REPORT_MODEL_H

#include "ui/report/rep.h"

/* The report model of r (analyze/model.h, report_model.c): want is its
 * AN_MODEL_* bits.  Returns 0, or -1 with a message on stderr (out of
 * memory).  The caller finishes m (an_model_fini). */
int rep_model(const struct rep *r, unsigned want, struct an_model *m);

#endif
