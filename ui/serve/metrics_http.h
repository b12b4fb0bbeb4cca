/*
 * metrics_http.h - the metrics endpoint's HTTP side (ui/ only): GET and
 * HEAD /metrics served by libmicrohttpd on its own thread, bounded
 * whatever clients do (doc/nfscope.1, METRICS):
 *
 *   - connections: at most MX_CONN_MAX, MX_CONN_PER_ADDR per client
 *     address (libmicrohttpd closes the others at once);
 *   - time: a request must be read within MX_REQUEST_S of its
 *     connection's start (or of the previous answer's end) and its answer
 *     sent within MX_SEND_S, however slowly the client trickles or reads:
 *     a watchdog thread shuts the socket down past either (libmicrohttpd
 *     then closes it); MX_IDLE_S without progress closes it too;
 *   - memory: one rendered scrape (a refcounted text) is shared by every
 *     reader while the figures have not changed; a new one is rendered
 *     only while the texts readers still hold total at most
 *     MX_INFLIGHT_MAX bytes, else the newest is shared.  Held at most:
 *     MX_INFLIGHT_MAX + one text, the render buffer (one text) and
 *     metrics.c's snapshot;
 *   - HEAD answers with the newest text's headers and never renders;
 *   - the server's log (its messages may quote what clients sent) goes
 *     to stderr escaped (ui/esc.h: no control byte, one line each), at
 *     most MX_LOG_BURST lines per MX_LOG_WINDOW_S, then one line counting
 *     those left out.
 *
 * Threads: libmicrohttpd's (callbacks, the texts), the watchdog (the
 * connection list, under a mutex libmicrohttpd's callbacks take too: a
 * socket is shut down only while its connection is listed, and
 * libmicrohttpd unlists it, in its close notice, before closing it).
 * Ownership: mx_http_start/mx_http_stop (stop(NULL) is a no-op; it
 * takes fd).
 */
#ifndef NFSCOPE_UI_METRICS_HTTP_H
#define NFSCOPE_UI_METRICS_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>


#define MX_CONN_MAX 128u
#define MX_CONN_PER_ADDR 8u
#define MX_REQUEST_S 5
#define MX_SEND_S 30
#define MX_IDLE_S 10u
#define MX_INFLIGHT_MAX (64u << 20)
#define MX_LOG_BURST 5
#define MX_LOG_WINDOW_S 60

struct mx_http;

/* What the endpoint serves, given by its owner (metrics.c) as calls, so
 * that this file calls nothing of metrics.c's (no circle of files). */
struct mx_http_src {
	void *user;
	/* the exposition text into *buf (grown, *cap bytes); its length,
	 * 0 on failure */
	size_t (*render)(void *user, char **buf, size_t *cap);
	/* a number that changes whenever the figures do */
	uint64_t (*generation)(void *user);
};

/* Serve src on the listening socket fd (taken, also on failure).  NULL
 * with a message in err. */
struct mx_http *mx_http_start(const struct mx_http_src *src, int fd, bool v6,
			      char *err, size_t n);
void mx_http_stop(struct mx_http *h);

#endif
