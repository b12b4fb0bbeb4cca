/*
 * report_db.h - a database as the report's source: a run, or several
 * merged, replayed into a struct rep; the list of runs.
 */
#ifndef NFSCOPE_UI_REPORT_DB_H
#define NFSCOPE_UI_REPORT_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyze/ops.h"
#include "analyze/paths.h"
#include "store/store.h"
#include "ui/report/rep.h"
#include "ui/times.h"

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

#endif
