/* metrics_http.c - the metrics endpoint's HTTP side; see metrics_http.h. */
#include "ui/serve/metrics_http.h"
#include "base/units.h"
#include "ui/esc.h"

#include <inttypes.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define NS_PER_S ((long long)NSEC_PER_SEC)
#define MX_BLOCK (64u << 10)	/* bytes a response copies at a time */
#define MX_TICK_NS (250 * 1000000LL)	/* the watchdog's period */

/* A rendered scrape, shared by the responses that send it (and h->cur);
 * touched on libmicrohttpd's thread only. */
struct mx_text {
	struct mx_http *h;
	unsigned refs;
	uint64_t gen;		/* the generation before it was rendered */
	size_t len;
	char *data;		/* owned */
};

/* An open connection: libmicrohttpd's socket context, listed in h->conns
 * (its fields under h->mu). */
struct mx_conn {
	int fd;
	int64_t since_ns;	/* its start, or its last answer's end */
	int64_t answer_ns;	/* its request was read at; 0: not yet */
	bool cut;		/* shut down by the watchdog */
	struct mx_conn *prev, *next;
};

struct mx_http {
	struct mx_http_src src;	/* its user borrowed */
	struct MHD_Daemon *d;
	struct mx_text *cur;	/* the newest text (one ref), NULL */
	size_t inflight;	/* bytes of the texts alive */
	pthread_mutex_t mu;	/* guards conns, stop */
	pthread_cond_t cv;	/* stop asked */
	pthread_t wd;
	bool wd_running, stop;
	struct mx_conn *conns;
	pthread_mutex_t log_mu;	/* guards the log_ fields */
	int64_t log_start_ns;	/* the window's start */
	unsigned log_lines;	/* said in it */
	uint64_t log_left_out;	/* left out in it */
};

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

/* ------------------------------------------------------------ the log -- */

static void mx_log(void *cls, const char *fmt, va_list ap)
{
	struct mx_http *h = cls;
	char raw[512], esc[1024];
	int64_t now = mono_ns();
	uint64_t left = 0;
	size_t n;
	bool say;

	vsnprintf(raw, sizeof(raw), fmt, ap);
	n = strlen(raw);
	while (n > 0 && (raw[n - 1] == '\n' || raw[n - 1] == '\r'))
		raw[--n] = '\0';
	ui_esc_str(esc, sizeof(esc), raw, "");
	pthread_mutex_lock(&h->log_mu);
	if (now - h->log_start_ns >= MX_LOG_WINDOW_S * NS_PER_S) {
		left = h->log_left_out;
		h->log_start_ns = now;
		h->log_lines = 0;
		h->log_left_out = 0;
	}
	say = h->log_lines < MX_LOG_BURST;
	if (say)
		h->log_lines++;
	else
		h->log_left_out++;
	pthread_mutex_unlock(&h->log_mu);
	if (left)
		fprintf(stderr, "nfscope: metrics server: %" PRIu64 " more "
			"messages left out\n", left);
	if (say)
		fprintf(stderr, "nfscope: metrics server: %s\n", esc);
}

/* ---------------------------------------------------------- the texts -- */

static void text_unref(struct mx_text *t)
{
	if (t == NULL || --t->refs > 0)
		return;
	t->h->inflight -= t->len;
	free(t->data);
	free(t);
}

/* A new text of the figures now (one ref for h->cur); NULL out of
 * memory.  The render buffer becomes the text's. */
static struct mx_text *text_new(struct mx_http *h, uint64_t gen)
{
	struct mx_text *t = calloc(1, sizeof(*t));
	char *buf = NULL;
	size_t cap = 0;

	if (t == NULL || (t->len = h->src.render(h->src.user, &buf, &cap)) == 0) {
		free(buf);
		free(t);
		return NULL;
	}
	t->h = h;
	t->refs = 1;
	t->gen = gen;
	t->data = buf;
	h->inflight += t->len;
	return t;
}

/* The text an answer sends, one ref for it: the newest if the figures
 * have not changed since (or HEAD, or the texts held are at the bound),
 * else a new one; NULL: none (HEAD before any GET, out of memory). */
static struct mx_text *text_get(struct mx_http *h, bool head)
{
	uint64_t gen = h->src.generation(h->src.user);
	struct mx_text *t = h->cur;

	if (t == NULL || (!head && t->gen != gen &&
			  h->inflight <= MX_INFLIGHT_MAX)) {
		t = head ? NULL : text_new(h, gen);
		if (t) {
			text_unref(h->cur);
			h->cur = t;
		}
		t = h->cur;
	}
	if (t)
		t->refs++;
	return t;
}

static ssize_t text_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	const struct mx_text *t = cls;
	size_t n;

	if (pos >= t->len)
		return MHD_CONTENT_READER_END_OF_STREAM;
	n = t->len - (size_t)pos < max ? t->len - (size_t)pos : max;
	memcpy(buf, t->data + pos, n);
	return (ssize_t)n;
}

static void text_done(void *cls)
{
	text_unref(cls);
}

/* ---------------------------------------------------- the connections -- */

static void on_conn(void *cls, struct MHD_Connection *c, void **ctx,
		    enum MHD_ConnectionNotificationCode code)
{
	struct mx_http *h = cls;
	struct mx_conn *k = *ctx;
	const union MHD_ConnectionInfo *ci;

	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		if ((k = calloc(1, sizeof(*k))) == NULL)
			return;	/* not watched: the idle timeout holds */
		ci = MHD_get_connection_info(c,
					     MHD_CONNECTION_INFO_CONNECTION_FD);
		k->fd = ci ? ci->connect_fd : -1;
		k->since_ns = mono_ns();
		pthread_mutex_lock(&h->mu);
		k->next = h->conns;
		if (h->conns)
			h->conns->prev = k;
		h->conns = k;
		pthread_mutex_unlock(&h->mu);
		*ctx = k;
		return;
	}
	if (k == NULL)
		return;
	pthread_mutex_lock(&h->mu);	/* before libmicrohttpd closes fd */
	if (k->prev)
		k->prev->next = k->next;
	else
		h->conns = k->next;
	if (k->next)
		k->next->prev = k->prev;
	pthread_mutex_unlock(&h->mu);
	free(k);
	*ctx = NULL;
}

/* c's request was read (answer_ns: now), or its answer ended (0). */
static void conn_mark(struct mx_http *h, struct MHD_Connection *c,
		      bool answering)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct mx_conn *k = ci ? ci->socket_context : NULL;
	int64_t now = mono_ns();

	if (k == NULL)
		return;
	pthread_mutex_lock(&h->mu);
	k->answer_ns = answering ? now : 0;
	if (!answering)
		k->since_ns = now;
	pthread_mutex_unlock(&h->mu);
}

static void on_done(void *cls, struct MHD_Connection *c, void **req,
		    enum MHD_RequestTerminationCode toe)
{
	(void)req;
	(void)toe;
	conn_mark(cls, c, false);
}

/* Shut down, once, every connection past its deadline; h->mu held. */
static void reap(struct mx_http *h, int64_t now)
{
	struct mx_conn *k;
	int64_t end;

	for (k = h->conns; k; k = k->next) {
		end = k->answer_ns ? k->answer_ns + MX_SEND_S * NS_PER_S :
				     k->since_ns + MX_REQUEST_S * NS_PER_S;
		if (!k->cut && k->fd >= 0 && now > end) {
			(void)shutdown(k->fd, SHUT_RDWR);
			k->cut = true;
		}
	}
}

static void *watchdog(void *arg)
{
	struct mx_http *h = arg;
	struct timespec ts;
	int64_t t;

	pthread_mutex_lock(&h->mu);
	while (!h->stop) {
		reap(h, mono_ns());
		t = mono_ns() + MX_TICK_NS;
		ts.tv_sec = (time_t)(t / NS_PER_S);
		ts.tv_nsec = (long)(t % NS_PER_S);
		(void)pthread_cond_timedwait(&h->cv, &h->mu, &ts);
	}
	pthread_mutex_unlock(&h->mu);
	return NULL;
}

/* ---------------------------------------------------------- the answer -- */

static struct MHD_Response *metrics_response(struct mx_http *h, bool head)
{
	struct mx_text *t = text_get(h, head);
	struct MHD_Response *r;

	if (t == NULL)
		return head ? MHD_create_response_from_buffer(0, (void *)"",
					MHD_RESPMEM_PERSISTENT) : NULL;
	r = MHD_create_response_from_callback(t->len, MX_BLOCK, text_read, t,
					      text_done);
	if (r == NULL)
		text_unref(t);
	return r;
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *c,
			      const char *url, const char *method,
			      const char *version, const char *upload,
			      size_t *upload_size, void **req)
{
	static const char nf[] = "nfscope: GET /metrics\n";
	struct mx_http *h = cls;
	bool metrics = strcmp(url, "/metrics") == 0;
	bool head = strcmp(method, "HEAD") == 0;
	struct MHD_Response *r;
	enum MHD_Result rc;

	unsigned code = MHD_HTTP_NOT_FOUND;

	(void)version;
	(void)upload;
	(void)upload_size;
	(void)req;
	conn_mark(h, c, true);
	if (!head && strcmp(method, "GET") != 0) {
		metrics = false;	/* answered, not logged */
		code = MHD_HTTP_METHOD_NOT_ALLOWED;
	}
	r = metrics ? metrics_response(h, head) :
	    MHD_create_response_from_buffer(sizeof(nf) - 1, (void *)nf,
					    MHD_RESPMEM_PERSISTENT);
	if (r == NULL)
		return MHD_NO;
	MHD_add_response_header(r, "Content-Type", metrics ?
				"text/plain; version=0.0.4; charset=utf-8" :
				"text/plain; charset=utf-8");
	if (code == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, "Allow", "GET, HEAD");
	rc = MHD_queue_response(c, metrics ? MHD_HTTP_OK : code, r);
	MHD_destroy_response(r);
	return rc;
}

/* ------------------------------------------------------ start and stop -- */

static bool sync_init(struct mx_http *h)
{
	pthread_condattr_t ca;
	bool ok;

	if (pthread_condattr_init(&ca) != 0)
		return false;
	ok = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) == 0 &&
	     pthread_cond_init(&h->cv, &ca) == 0;
	pthread_condattr_destroy(&ca);
	if (ok && pthread_mutex_init(&h->mu, NULL) == 0) {
		if (pthread_mutex_init(&h->log_mu, NULL) == 0)
			return true;
		pthread_mutex_destroy(&h->mu);
	}
	if (ok)
		pthread_cond_destroy(&h->cv);
	return false;
}

struct mx_http *mx_http_start(const struct mx_http_src *src, int fd, bool v6,
			      char *err, size_t n)
{
	unsigned flags = MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG |
			 (v6 ? MHD_USE_IPv6 : 0);
	struct mx_http *h = calloc(1, sizeof(*h));

	if (h == NULL || !sync_init(h)) {
		free(h);
		close(fd);
		snprintf(err, n, "out of memory");
		return NULL;
	}
	h->src = *src;
	h->log_start_ns = mono_ns();
	h->d = MHD_start_daemon(flags, 0, NULL, NULL, answer, h,
		MHD_OPTION_EXTERNAL_LOGGER, mx_log, h,	/* first: all */
		MHD_OPTION_LISTEN_SOCKET, fd,
		MHD_OPTION_CONNECTION_LIMIT, MX_CONN_MAX,
		MHD_OPTION_PER_IP_CONNECTION_LIMIT, MX_CONN_PER_ADDR,
		MHD_OPTION_CONNECTION_TIMEOUT, MX_IDLE_S,
		MHD_OPTION_NOTIFY_CONNECTION, on_conn, h,
		MHD_OPTION_NOTIFY_COMPLETED, on_done, h,
		MHD_OPTION_END);
	if (h->d == NULL) {
		close(fd);
		mx_http_stop(h);
		snprintf(err, n, "cannot start the HTTP server");
		return NULL;
	}
	h->wd_running = pthread_create(&h->wd, NULL, watchdog, h) == 0;
	if (!h->wd_running) {
		mx_http_stop(h);
		snprintf(err, n, "cannot start the HTTP server's watchdog");
		return NULL;
	}
	return h;
}

void mx_http_stop(struct mx_http *h)
{
	if (h == NULL)
		return;
	if (h->wd_running) {
		pthread_mutex_lock(&h->mu);
		h->stop = true;
		pthread_cond_signal(&h->cv);
		pthread_mutex_unlock(&h->mu);
		pthread_join(h->wd, NULL);
	}
	if (h->d)
		MHD_stop_daemon(h->d);	/* closes fd; the texts sent */
	text_unref(h->cur);
	pthread_mutex_destroy(&h->log_mu);
	pthread_mutex_destroy(&h->mu);
	pthread_cond_destroy(&h->cv);
	free(h);
}
