/*
 * headless.h - a run with no screen: the part `record` (ui/record) and
 * `serve` (serve.c) share.  Their options (the store's, the endpoint's,
 * --write-pcap's and the capture's), the figures and findings, the run and
 * the sinks it feeds (the store with the figures and findings at the end,
 * --write-pcap's evidence, the metrics endpoint), and the log lines on
 * stderr (a drop span, the findings' budgets, the run stored).  Each
 * driver chooses what it needs: record a database (-w), serve the
 * endpoint (--metrics).
 *
 * Ownership: struct ui_hl holds the run and what its sinks write into,
 * from ui_hl_open to ui_hl_free (the run first: its threads use them).
 */
#ifndef NFSCOPE_UI_HEADLESS_H
#define NFSCOPE_UI_HEADLESS_H

#include <stdbool.h>
#include <stdint.h>

#include "run/evidence.h"
#include "run/run.h"
#include "ui/cli.h"

struct ui_mx;

/* One headless run (record's or serve's). */
struct ui_hl {
	struct run *run;
	const char *who;
	bool quiet;			/* --quiet */
	enum ui_time_mode tmode;	/* times in log lines (times.h) */
	struct an_figs *figs;
	struct an_find *find;
	const char *out;		/* -w (serve: NULL = store nothing) */
	struct ui_mx *mx;		/* --metrics (NULL: none) */
	struct run_evidence *ev;	/* --write-pcap (NULL: none) */
	uint64_t packets, ops;		/* at the end */
};

/* The options of one record or serve, as parsed (ui_hl_parse). */
struct ui_hl_opts {
	struct ui_src_opts so;
	struct ui_pcap_opts po;
	struct store_run sopts;		/* --ops, --interval, --retain */
	const char *out, *metrics;
	bool force, serve;
	uint64_t batch_rows;
	uint32_t mx_max;
};

/*
 * The options (argv[0]: "record" or "serve"; serve: no --write-pcap,
 * usage says -w is optional).  Returns -1 to go on, else the exit status
 * (--help, a usage error said).
 */
int ui_hl_parse(struct ui_hl *r, struct ui_hl_opts *o, bool serve,
		int argc, char **argv);
/* The options together (serve: an endpoint needed): -1 to go on, else
 * the exit status (said). */
int ui_hl_check(const struct ui_hl *r, const struct ui_hl_opts *o);
/* The run configuration into *c (the caller's, for the run's life), the
 * figures and findings, the run opened, the endpoint bound, -Z, the live
 * spool and --write-pcap's file.  0, or -1 said. */
int ui_hl_open(struct ui_hl *r, struct ui_hl_opts *o, struct run_config *c);
/* The run, with its sinks, to the end of the input.  0, or -1 said. */
int ui_hl_go(struct ui_hl *r);
/* The line that ends a run into the store (stderr). */
void ui_hl_said(const struct ui_hl *r);
void ui_hl_free(struct ui_hl *r, struct ui_hl_opts *o);

#endif
