/*
 * report.h - `nfscope report`: capture -> decode -> analyze -> a report of
 * operations, sizes and verdicts, writes, retransmits, findings and capture
 * health, as text (default), JSON (--json) or one CSV table (--csv TABLE).
 * Output format: nfscope(1), OUTPUT (doc/report.md: how it is made).
 *
 * The room's public face (main.c, diff.c).  struct rep (rep.h, the run's
 * state, owned by ui_report_main) is shared by report.c (driver) and the
 * writers, report_text.c (text) and report_out.c (JSON, CSV), each with its
 * own header.  Every figure they print comes from the report model
 * (analyze/model.h) built from struct rep (report_model.c); the writers
 * only format it.
 */
#ifndef NFSCOPE_REPORT_H
#define NFSCOPE_REPORT_H

#include "run/run.h"
#include "ui/report/rep.h"

/* The hooks and sinks report reads a capture with (run.h): r's figures,
 * findings, series, --every and evidence take every operation, the drops
 * and the counters at the end go into r (r's objects allocated first).
 * diff.c loads each side so. */
void rep_hooks(struct rep *r, struct run_hooks *h);

/* The `report` subcommand; argv[0] is "report".  Returns the exit status. */
int ui_report_main(int argc, char **argv);

#endif
