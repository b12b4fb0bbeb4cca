/*
 * metrics.h - the Prometheus endpoint (`serve`, `record -i --metrics`):
 * counters and latency histograms per procedure x client x server, findings
 * by kind and capture health, served over HTTP by libmicrohttpd in the
 * text exposition format 0.0.4 (doc/nfscope.1, METRICS, names each metric).
 *
 * Threads: ui_mx_op and ui_mx_findings run on the thread that adds up
 * operations (record's op queue consumer), ui_mx_health on the capture
 * thread; each holds the mutex for one update.  A scrape (libmicrohttpd's
 * own thread) holds it only to copy the table, then writes the text
 * outside it: a slow or stuck HTTP client never holds up the capture.
 *
 * Cardinality: one series per (client, server, program, version,
 * procedure), at most UI_MX_SERIES_MAX (the figures' cell budget, rows_max);
 * an operation of a new key past it is counted in a single series whose
 * labels are all "other" and in nfscope_series_overflow_ops_total.
 *
 * Latency buckets: le = 2^k ns for k = 13..35 (8.192 us .. 34.4 s) and
 * +Inf, the power-of-two edges of the report's log-linear histogram
 * (hist.h).  A value of le exactly counts in that bucket (<=).
 *
 * Ownership: ui_mx_new/ui_mx_free (free(NULL) is a no-op; it stops the
 * server first).  Load: ui_mx_op is one hash lookup and a few adds; the
 * table grows by doubling (amortised), never past UI_MX_SERIES_MAX.
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

#define UI_MX_SERIES_MAX 16384
#define UI_MX_LAT_LO_EXP 13	/* first latency bound: 2^13 ns */
#define UI_MX_LAT_N 23		/* finite latency bounds (to 2^35 ns) */
#define UI_MX_SIZE_LO_EXP 9	/* first size bound: 512 bytes */
#define UI_MX_SIZE_N 12		/* finite size bounds (to 1 MiB) */

struct ui_mx;

struct ui_mx *ui_mx_new(void);
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
/* An operation the engine delivered. */
void ui_mx_op(struct ui_mx *m, const struct an_op *op);
/* Findings f holds that were not counted yet (f only grows). */
void ui_mx_findings(struct ui_mx *m, const struct an_find *f);
/* Capture health so far (the totals, copied). */
void ui_mx_health(struct ui_mx *m, const struct cap_stats *cs,
		  const struct dec_stats *ds, const struct an_stats *es,
		  bool done);
/* The exposition text of the figures so far into *buf (grown with
 * realloc, the caller frees it).  Returns its length, or 0 out of memory. */
size_t ui_mx_render(struct ui_mx *m, char **buf, size_t *cap);
/* A label value as the exposition format quotes it: backslash, double
 * quote and newline escaped, other control and non-ASCII bytes as '?'
 * (the text must stay valid UTF-8).  Always NUL-terminated in n > 0. */
void ui_mx_label(const char *s, char *out, size_t n);

#endif
