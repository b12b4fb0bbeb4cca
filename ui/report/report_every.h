/*
 * report_every.h - `report --every S`: blocks of rows while reading.
 */
#ifndef NFSCOPE_UI_REPORT_EVERY_H
#define NFSCOPE_UI_REPORT_EVERY_H

#include <stdint.h>

#include "analyze/ops.h"
#include "ui/report/rep.h"

/* --every S (report_every.c): blocks of rows every S seconds of capture
 * time, printed as the operations come (on the thread adding them up). */
struct rep_every *rep_every_new(int64_t every_ns);
void rep_every_free(struct rep_every *e);
void rep_every_add(struct rep *r, const struct an_op *op);
void rep_every_end(struct rep *r);		/* the last window */

#endif
