/*
 * report_html.h - `report --html OUT`: the page (doc/report.md).
 */
#ifndef NFSCOPE_UI_REPORT_HTML_H
#define NFSCOPE_UI_REPORT_HTML_H

#include <stdio.h>

#include "ui/report/rep.h"

/* --html OUT (report_html.c): the page, to f (OUT opened by the driver
 * before the capture, so a bad path fails at once).  Returns 0, or -1
 * with a message on stderr (out of memory). */
int rep_html(const struct rep *r, FILE *f);

#endif
