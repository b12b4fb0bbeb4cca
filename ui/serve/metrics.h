/*
 * metrics.h - the Prometheus endpoint (`serve`, `record -i --metrics`,
 * `top -r/-i --metrics`):
 * counters and latency histograms per procedure x client x server, findings
 * by kind and capture health, served over HTTP by libmicrohttpd in the
 * text exposition format 0.0.4 (doc/nfscope.1, METRICS, names each metric).
 *
 * Threads: ui_mx_op and ui_mx_findings run on the thread that adds up
 * operations (record's op queue consumer, top's worker), ui_mx_health on
 * the capture thread; each holds the mutex for one update.  A scrape (the
 * HTTP server's thread, ui/serve/metrics_http.h: its bounds on connections,
 * time and memory) holds it only to copy the table, then writes the text
 * outside it: a slow or stuck HTTP client never holds up the capture.
 *
 * Labels: op (report's procedure name) and its parts prog, vers, proc,
 * client, server.
 *
 * Sums: a series adds each op by the one rule (an_cell_add, acc.h) into
 * its an_sums and latency histogram, as report's rows and the store's
 * intervals do; what only the endpoint breaks down (errors by status,
 * hidden replies, transfer sizes) is counted beside them.
 *
 * Cardinality: one series per (client, server, program, version,
 * procedure), at most 59 lines of text (doc/nfscope.1 METRICS: the
 * worst case of a scrape), at most max (--metrics-max; default UI_MX_SERIES_DEFAULT,
 * the figures' cell budget, rows_max), the last place kept for a single
 * series whose labels are all "other": an operation of a new key past the
 * budget is counted there and in nfscope_series_overflow_ops_total, its
 * key (once) in nfscope_series_dropped_total (distinct keys, counted up
 * to UI_MX_DROPPED_MAX: a set of 64-bit key prints, 1 MiB, allocated at
 * the first key refused).
 *
 * Latency buckets: le = 2^k ns for k = 13..35 (8.192 us .. 34.4 s) and
 * +Inf, the power-of-two edges of the report's log-linear histogram
 * (hist.h), whose ranges they sum: a value of exactly 2^k ns (only a
 * nanosecond capture has one) counts in the next bucket.
 *
 * Ownership: ui_mx_new/ui_mx_free (free(NULL) is a no-op; it stops the
 * server first).  Load: ui_mx_op is one hash lookup, a few adds and a
 * histogram add; the table grows by doubling (amortised), never past max;
 * a scrape reads each series' histogram ranges under the mutex.
 */
#ifndef NFSCOPE_UI_METRICS_H
#define NFSCOPE_UI_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/find.h"
#include "analyze/ops.h"
#include "capture/capture.h"
#include "decode/decode.h"
#include "run/sink.h"

#define UI_MX_SERIES_DEFAULT 16384
#define UI_MX_SERIES_LIMIT (1u << 22)	/* --metrics-max's largest */
#define UI_MX_DROPPED_MAX 65536		/* keys refused, counted to this */
#define UI_MX_LAT_LO_EXP 13	/* first latency bound: 2^13 ns */
#define UI_MX_LAT_N 23		/* finite latency bounds (to 2^35 ns) */
#define UI_MX_SIZE_LO_EXP 9	/* first size bound: 512 bytes */
#define UI_MX_SIZE_N 12		/* finite size bounds (to 1 MiB) */

struct ui_mx;

/* An endpoint of at most max series (0: UI_MX_SERIES_DEFAULT; NULL if
 * max > UI_MX_SERIES_LIMIT or out of memory). */
struct ui_mx *ui_mx_new(uint32_t max);
/* Parse --metrics-max's N (1..UI_MX_SERIES_LIMIT); false if bad. */
bool ui_mx_parse_max(const char *s, uint32_t *max);
void ui_mx_free(struct ui_mx *m);
/* Bind and listen on ADDR:PORT (IPv4 "127.0.0.1:9464", IPv6
 * "[::1]:9464"), only that address: before -Z (a port below 1024 needs
 * root).  Returns 0, or -1 with a message in err. */
int ui_mx_listen(struct ui_mx *m, const char *addr_port, char *err,
		 size_t n);
/* Start serving GET /metrics on the socket ui_mx_listen opened, on a
 * thread of libmicrohttpd's: after privileges and capabilities are
 * dropped (capset is per thread: the new thread gets what is left).
 * Returns 0, or -1 with a message in err. */
int ui_mx_start(struct ui_mx *m, char *err, size_t n);
/*
 * The endpoint of a command that opened its capture: with addr_port
 * (NULL: none, *mx stays NULL) a new endpoint of max series bound there,
 * "metrics on http://ADDR/metrics" said on stderr when banner; then
 * after(arg) (-Z: before it, a port below 1024 needs root); then the
 * endpoint's thread (capabilities are per thread).  Errors are said as
 * "nfscope WHO: --metrics: ..."; after's are its own.  0, or -1 (*mx may
 * be set: the caller frees it).
 */
int ui_mx_open(struct ui_mx **mx, const char *addr_port, uint32_t max,
	       const char *who, bool banner, int (*after)(void *), void *arg);
/* An operation the engine delivered. */
void ui_mx_op(struct ui_mx *m, const struct an_op *op);
/* Findings f holds that were not counted yet (f only grows). */
void ui_mx_findings(struct ui_mx *m, const struct an_find *f);
/* Capture health so far (the totals, copied). */
void ui_mx_health(struct ui_mx *m, const struct cap_stats *cs,
		  const struct dec_stats *ds, const struct an_stats *es,
		  bool done);
/* The input was cut short or damaged (nfscope_input_cut). */
void ui_mx_input_cut(struct ui_mx *m);
/* m as a run's sink (run/sink.h): each op and the findings of find it
 * made (NULL: none), the health as it stands, at the end the final
 * health and findings and the cut.  The commands only add it. */
void ui_mx_sink(struct ui_mx *m, const struct an_find *find,
		struct run_sink *out);
/* The exposition text of the figures so far into *buf (grown with
 * realloc, the caller frees it).  Returns its length, or 0 out of memory. */
size_t ui_mx_render(struct ui_mx *m, char **buf, size_t *cap);
/* A label value as the exposition format quotes it: backslash, double
 * quote and newline escaped, other control and non-ASCII bytes as '?'
 * (the text must stay valid UTF-8).  Always NUL-terminated in n > 0. */
void ui_mx_label(const char *s, char *out, size_t n);

#endif
