/* cli.c - shared capture options, privileges, signals and the read loop;
 * see cli.h. */
#include "ui/cli.h"

#include <errno.h>
#include <glob.h>
#include <stdarg.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <pthread.h>
#include <signal.h>
#include <linux/capability.h>

#define SNAPLEN_MAX 262144	/* libpcap's MAXIMUM_SNAPLEN; tcpdump's -s 0 */

volatile sig_atomic_t ui_stop;
volatile sig_atomic_t ui_hup;

static void on_signal(int sig)
{
	struct sigaction sa;

	if (sig == SIGHUP) {
		ui_hup = 1;
		return;
	}
	ui_stop = 1;
	/* The stop is known now: from here on a signal interrupts no call,
	 * so the output written at the end cannot lose bytes to an EINTR
	 * (stdio drops a buffer whose write was interrupted).  sigaction is
	 * async-signal-safe. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

void ui_block_signals(bool block)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(block ? SIG_BLOCK : SIG_UNBLOCK, &set, NULL);
}

void ui_install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* without SA_RESTART: a read blocked on a pipe returns EINTR, and
	 * the source takes an error with ui_stop set for the stop it is
	 * (cap_source_set_stop); every packet before it is processed */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* a hangup (terminal gone, or a log rotator's habit) must not lose
	 * a run: nfscope keeps no file it could reopen, so it only says so.
	 * SA_RESTART: a read it interrupts goes on as if nothing happened */
	sa.sa_flags = SA_RESTART;
	sigaction(SIGHUP, &sa, NULL);
}

const char *ui_cut_str(const struct cap_read_error *e, char *buf, size_t n)
{
	char at[64] = "";

	if (e->offset >= 0)
		snprintf(at, sizeof(at), " at byte %" PRId64, e->offset);
	snprintf(buf, n, "reading stopped after packet %" PRIu64 "%s: %s",
		 e->packets, at, e->why);
	return buf;
}

void ui_check_hup(const char *who)
{
	if (!ui_hup)
		return;
	ui_hup = 0;
	fprintf(stderr, "nfscope %s: SIGHUP ignored: nothing to reopen, the "
		"run goes on (SIGINT or SIGTERM end it)\n", who);
}

void ui_src_opts_init(struct ui_src_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->cfg.promisc = true;
	o->cfg.immediate = true;
}

bool ui_parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return false;
	switch (*end) {
	case 'k': case 'K': v *= 1024ull; end++; break;
	case 'm': case 'M': v *= 1024ull * 1024; end++; break;
	case 'g': case 'G': v *= 1024ull * 1024 * 1024; end++; break;
	default: break;
	}
	if (*end)
		return false;
	*out = v;
	return true;
}

/* A budget option: lo..hi entries (or bytes). */
static int budget(const char *name, const char *arg, uint64_t lo, uint64_t hi,
		  uint64_t *v)
{
	if (ui_parse_u64(arg, v) && *v >= lo && *v <= hi)
		return 1;
	fprintf(stderr, "nfscope: bad --%s '%s' (%" PRIu64 "..%" PRIu64 ")\n",
		name, arg, lo, hi);
	return -1;
}

static int long_opt(struct ui_src_opts *o, int opt, const char *arg)
{
	uint64_t v;
	double secs;
	char *end;

	switch (opt) {
	case UI_OPT_DURATION:
		secs = strtod(arg, &end);
		if (end == arg || *end || !(secs > 0 && secs <= 1e7)) {
			fprintf(stderr, "nfscope: bad --duration '%s' "
				"(seconds, > 0)\n", arg);
			return -1;
		}
		o->cfg.duration_ns = (int64_t)(secs * 1e9);
		return 1;
	case UI_OPT_XID_MAX:
	case UI_OPT_DEC_XID_MAX:
		if (budget(opt == UI_OPT_XID_MAX ? "xid-max" : "dec-xid-max",
			   arg, 16, 1u << 24, &v) < 0)
			return -1;
		/* both name the one call table (decode.h): the larger */
		if (v > o->dec.xid_max)
			o->dec.xid_max = o->an.xid_max = (uint32_t)v;
		return 1;
	case UI_OPT_FLOWS_MAX:
		if (budget("flows-max", arg, 16, 1u << 22, &v) < 0)
			return -1;
		o->cfg.flows_max = (uint32_t)v;
		return 1;
	case UI_OPT_FRAG_MEM:
		if (budget("frag-mem", arg, 65536, 1ull << 32, &v) < 0)
			return -1;
		o->cfg.frag_mem_max = (size_t)v;
		return 1;
	case UI_OPT_TCP_MEM:
		if (budget("tcp-mem", arg, 1ull << 20, 1ull << 36, &v) < 0)
			return -1;
		o->cfg.tcp_mem_max = (size_t)v;
		return 1;
	case UI_OPT_LATE_MEM:
		if (budget("late-mem", arg, 4096, 1ull << 30, &v) < 0)
			return -1;
		o->dec.late_mem = (size_t)v;
		return 1;
	case UI_OPT_UTC:
	case UI_OPT_EPOCH:
		o->time_mode = opt == UI_OPT_UTC ? UI_TIME_UTC : UI_TIME_EPOCH;
		return 1;
	case UI_OPT_NAMES_MAX:
		if (budget("names-max", arg, 16, 1u << 24, &v) < 0)
			return -1;
		o->an.names_max = (uint32_t)v;
		return 1;
	default:
		return 0;
	}
}

static void name_files(struct ui_src_opts *o);

/* Keep a name a glob matched in the pool; NULL when it is full. */
static const char *pool_keep(struct ui_src_opts *o, const char *name)
{
	size_t n = strlen(name) + 1;
	char *p = o->pool + o->pool_used;

	if (n > sizeof(o->pool) - o->pool_used)
		return NULL;
	memcpy(p, name, n);
	o->pool_used += n;
	return p;
}

/* -r FILE: one more file; a pattern that names no file is a glob. */
static int add_file(struct ui_src_opts *o, const char *arg)
{
	glob_t g;
	size_t k;
	int rc = 1;

	if (access(arg, F_OK) == 0 || strcmp(arg, "-") == 0 ||
	    !strpbrk(arg, "*?[")) {
		if (o->nfiles == UI_FILES_MAX)
			goto full;
		o->files[o->nfiles++] = arg;
		o->file = o->files[0];
		name_files(o);
		return 1;
	}
	if (glob(arg, 0, NULL, &g) != 0) {
		fprintf(stderr, "nfscope: -r %s: no file matches\n", arg);
		return -1;
	}
	for (k = 0; k < g.gl_pathc && rc == 1; k++) {
		const char *p = pool_keep(o, g.gl_pathv[k]);

		if (p == NULL || o->nfiles == UI_FILES_MAX)
			rc = -1;
		else
			o->files[o->nfiles++] = p;
	}
	globfree(&g);
	o->file = o->nfiles ? o->files[0] : NULL;
	name_files(o);
	if (rc == 1)
		return 1;
full:
	fprintf(stderr, "nfscope: too many files for -r (at most %d, and "
		"%d KiB of names)\n", UI_FILES_MAX, UI_GLOB_POOL / 1024);
	return -1;
}

const char *ui_src_name(const struct ui_src_opts *o)
{
	if (o->iface || o->nfiles <= 1)
		return o->iface ? o->iface : o->file;
	return o->name;
}

/* o->name for several files: "a.pcap, b.pcap, ... (N files)". */
static void name_files(struct ui_src_opts *o)
{
	size_t n = 0, cap = sizeof(o->name) - 32;
	uint32_t k;

	for (k = 0; k < o->nfiles; k++) {
		if (n + strlen(o->files[k]) + 2 > cap)
			break;
		n += (size_t)snprintf(o->name + n, sizeof(o->name) - n, "%s%s",
				      k ? ", " : "", o->files[k]);
	}
	snprintf(o->name + n, sizeof(o->name) - n, "%s (%u files)",
		 k < o->nfiles ? ", ..." : "", o->nfiles);
}

int ui_src_opt(struct ui_src_opts *o, int opt, const char *arg)
{
	uint64_t v;

	switch (opt) {
	case 'r':
		return add_file(o, arg);
	case 'i':
		o->iface = arg;
		return 1;
	case 'f':
		o->cfg.filter = arg;
		return 1;
	case 's':
		if (!ui_parse_u64(arg, &v) || v > SNAPLEN_MAX) {
			fprintf(stderr, "nfscope: bad snaplen '%s' (0..262144; "
				"0: 262144)\n", arg);
			return -1;
		}
		o->cfg.snaplen = v ? (int)v : SNAPLEN_MAX;
		o->snaplen_set = true;
		return 1;
	case 'c':
		if (!ui_parse_u64(arg, &v) || v == 0) {
			fprintf(stderr, "nfscope: bad packet count '%s'\n", arg);
			return -1;
		}
		o->cfg.count = v;
		return 1;
	case 'B':
		if (!ui_parse_u64(arg, &v) || v == 0 || v > 4u * 1024 * 1024) {
			fprintf(stderr, "nfscope: bad buffer size '%s' (KiB)\n", arg);
			return -1;
		}
		o->cfg.buffer_kib = (int)v;
		return 1;
	case 'p':
		o->cfg.promisc = false;
		return 1;
	case 'n':	/* tcpdump's "do not resolve names": never done */
		return 1;
	case 'Z':
		if (!*arg) {
			fprintf(stderr, "nfscope: -Z needs a user name\n");
			return -1;
		}
		o->user = arg;
		return 1;
	default:
		return long_opt(o, opt, arg);
	}
}

int ui_usage_error(const char *who, const char *fmt, ...)
{
	va_list ap;

	if (fmt) {
		fprintf(stderr, "nfscope %s: ", who);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
	fprintf(stderr, "Try 'nfscope %s --help' for its usage.\n", who);
	return 2;
}

int ui_src_args(struct ui_src_opts *o, const char *who, int argc,
		char **argv, int first)
{
	char *b = o->filter_buf;
	size_t n = 0, cap = sizeof(o->filter_buf);
	bool both = o->cfg.filter && *o->cfg.filter;
	int k, w;

	if (first >= argc)
		return 0;
	w = both ? snprintf(b, cap, "(%s) and (", o->cfg.filter) : 0;
	n = w < 0 ? cap : (size_t)w;
	for (k = first; k < argc && n < cap; k++) {
		w = snprintf(b + n, cap - n, "%s%s", k > first ? " " : "",
			     argv[k]);
		n = w < 0 ? cap : n + (size_t)w;
	}
	if (both && n < cap) {
		w = snprintf(b + n, cap - n, ")");
		n = w < 0 ? cap : n + (size_t)w;
	}
	if (n >= cap) {
		ui_usage_error(who, "filter expression longer than %zu bytes",
			       cap - 1);
		return -1;
	}
	o->cfg.filter = b;
	return 0;
}

/* Live capture was refused for want of privilege: say which and how. */
static void perm_hint(const char *iface)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		snprintf(exe, sizeof(exe), "nfscope");
	else
		exe[n] = '\0';
	fprintf(stderr, "nfscope: capturing on %s needs the CAP_NET_RAW "
		"capability (and CAP_NET_ADMIN for some interface settings), "
		"which this process (uid %u) lacks.\n"
		"nfscope: run it as root (sudo), or give the program the two "
		"capabilities once:\n"
		"nfscope:     sudo setcap cap_net_raw,cap_net_admin=eip %s\n"
		"nfscope: (or read a capture file with -r)\n", iface,
		(unsigned)geteuid(), exe);
}

struct cap_source *ui_open_source(struct ui_src_opts *o)
{
	char err[CAP_ERRBUF_SIZE] = "", warn[CAP_ERRBUF_SIZE] = "";
	struct cap_source *s;

	if (o->file && o->iface) {
		fprintf(stderr, "nfscope: give either -r FILE or -i IFACE, not both\n");
		return NULL;
	}
	if (!o->file && !o->iface) {
		fprintf(stderr, "nfscope: no input: give -r FILE or -i IFACE\n");
		return NULL;
	}
	if (o->file) {
		s = cap_open_files(o->files, o->nfiles, &o->cfg, err);
		if (!s)
			fprintf(stderr, "nfscope: %s\n", err);	/* names the file */
		return s;
	}
	s = cap_open_live(o->iface, &o->cfg, err, warn);
	if (!s) {
		bool perm = errno == EPERM;
		size_t n = strlen(o->iface);

		/* most of libpcap's messages name the interface already */
		if (strncmp(err, o->iface, n) == 0 && err[n] == ':')
			fprintf(stderr, "nfscope: %s\n", err);
		else
			fprintf(stderr, "nfscope: %s: %s\n", o->iface, err);
		if (perm)
			perm_hint(o->iface);
		return NULL;
	}
	if (warn[0])
		fprintf(stderr, "nfscope: warning: %s: %s\n", o->iface, warn);
	if (o->cfg.snaplen > 0 && o->cfg.snaplen < CAP_DEFAULT_SNAPLEN)
		fprintf(stderr, "nfscope: note: -s %d: on a capturing host TCP "
			"segments arrive coalesced (GRO/TSO, 64 KiB and more); "
			"an RPC record that begins past byte %d of a segment is "
			"not seen, call or reply: operation counts, READ/WRITE "
			"size shares and latencies may be low (README, -s).  "
			"The default, -s 0, sees every one\n",
			o->cfg.snaplen, o->cfg.snaplen);
	/* as tcpdump says it: the capture is active from here on (scripts
	   wait for this line before they send traffic) */
	fprintf(stderr, "nfscope: listening on %s, link-type %d, snapshot "
		"length %d bytes\n", o->iface, cap_source_linktype(s),
		cap_source_snaplen(s));
	return s;
}

static int become_user(struct ui_src_opts *o);

/* The process's capability sets (capget(2), no libcap): false if the
 * kernel would not say. */
static bool caps_get(struct __user_cap_data_struct d[2])
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };

	memset(d, 0, 2 * sizeof(d[0]));
	return syscall(SYS_capget, &h, d) == 0;
}

static bool cap_effective(const struct __user_cap_data_struct d[2], int cap)
{
	return (d[cap / 32].effective >> (cap % 32)) & 1u;
}

/*
 * The capture is open: a process that is not root (a binary given
 * cap_net_raw,cap_net_admin by setcap, run by an ordinary user) needs no
 * capability any more and gives up every one (effective, permitted,
 * inheritable, ambient), as Wireshark's dumpcap does, so nothing the run
 * does later (decoding hostile packets, writing files) has them.  Then a
 * check that none is left.
 */
static int drop_caps(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct d[2];

	if (!caps_get(d))
		return 0;		/* no capabilities on this kernel */
	if (!(d[0].permitted | d[1].permitted | d[0].inheritable |
	      d[1].inheritable))
		goto ambient;
	memset(d, 0, sizeof(d));
	if (syscall(SYS_capset, &h, d) != 0) {
		fprintf(stderr, "nfscope: cannot drop capabilities: %s\n",
			strerror(errno));
		return -1;
	}
ambient:
	(void)prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (caps_get(d) && (d[0].permitted | d[1].permitted | d[0].effective |
			    d[1].effective)) {
		fprintf(stderr, "nfscope: capabilities still held after "
			"dropping them; stopping\n");
		return -1;
	}
	return 0;
}

/*
 * -Z: tcpdump's order (initgroups, setgid, setuid), each checked, then a
 * check that root cannot be regained.  The capture socket stays open; what
 * the run creates later (record's database) belongs to the user.  A
 * process not root (with or without -Z) then drops every capability.
 */
int ui_after_open(struct ui_src_opts *o)
{
	if (become_user(o) < 0)
		return -1;
	return geteuid() != 0 ? drop_caps() : 0;
}

static int become_user(struct ui_src_opts *o)
{
	struct __user_cap_data_struct d[2];
	struct passwd *pw;

	if (o->user == NULL)
		return 0;
	errno = 0;
	pw = getpwnam(o->user);
	if (pw == NULL) {
		fprintf(stderr, "nfscope: -Z %s: %s\n", o->user,
			errno ? strerror(errno) : "no such user");
		return -1;
	}
	if (geteuid() == pw->pw_uid && getuid() == pw->pw_uid)
		return 0;	/* already that user: nothing to drop */
	/* root, or a process given CAP_SETUID and CAP_SETGID */
	if (geteuid() != 0 && !(caps_get(d) && cap_effective(d, CAP_SETUID) &&
				cap_effective(d, CAP_SETGID))) {
		fprintf(stderr, "nfscope: -Z %s: changing user needs root or "
			"the CAP_SETUID and CAP_SETGID capabilities (this "
			"process runs as uid %u; without -Z it drops every "
			"capability once the capture is open)\n", o->user,
			(unsigned)geteuid());
		return -1;
	}
	if (initgroups(pw->pw_name, pw->pw_gid) < 0 ||
	    setgid(pw->pw_gid) < 0 || setuid(pw->pw_uid) < 0) {
		fprintf(stderr, "nfscope: -Z %s: cannot become uid %u gid %u: "
			"%s\n", o->user, (unsigned)pw->pw_uid,
			(unsigned)pw->pw_gid, strerror(errno));
		return -1;
	}
	if (pw->pw_uid != 0 && setuid(0) == 0) {
		fprintf(stderr, "nfscope: -Z %s: root privileges could be "
			"regained; stopping\n", o->user);
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------- drops -- */

void ui_drops_add(struct ui_drops *d, const struct cap_drop_span *sp)
{
	d->drop += sp->drop;
	d->ifdrop += sp->ifdrop;
	cap_drop_spans_add(d->span, &d->n, UI_DROP_SPANS, sp);
}

bool ui_drops_overlap(const struct ui_drops *d, int64_t start_ns,
		      int64_t end_ns)
{
	uint32_t k;

	for (k = 0; k < d->n; k++)
		if (d->span[k].start_ns < end_ns && d->span[k].end_ns > start_ns)
			return true;
	return false;
}

/* ------------------------------------------------------------ output -- */

bool ui_out_failed(void)
{
	return ferror(stdout) != 0;
}

/* Is fd the write end of a pipe or socket whose reader has gone? */
static bool reader_gone(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };

	return poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLERR);
}

int ui_out_close(const char *who, int rc)
{
	int e = 0;

	errno = 0;
	if (fflush(stdout) != 0)
		e = errno;
	if (ferror(stdout) && e == 0)
		e = reader_gone(STDOUT_FILENO) ? EPIPE : EIO;
	if (fclose(stdout) != 0 && e == 0)
		e = errno ? errno : EIO;
	if (e == 0)
		return rc;
	if (e == EPIPE)		/* the reader has what it wanted: quietly */
		return UI_EXIT_PIPE;
	fprintf(stderr, "nfscope%s%s: writing the output: %s\n", who ? " " : "",
		who ? who : "", strerror(e));
	return rc ? rc : 1;
}

/* -------------------------------------------------------------- loop -- */

uint64_t ui_evictions(const struct cap_stats *cs, const struct dec_stats *ds,
		      const struct an_stats *es)
{
	return cs->flows_evicted + cs->ipfrag_evicted + cs->tcp_mem_evicted +
	       ds->xid_evictions + ds->late_over_budget +
	       es->evicted + es->names_evicted;
}

double ui_mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int64_t ui_wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void sample_drops(struct cap_source *src, const struct ui_run_hooks *h)
{
	struct cap_drop_span sp;

	if (cap_source_drops(src, &sp) && h->drops)
		h->drops(h->user, &sp);
}

static void progress(struct cap_source *src, struct cap_pipe *pipe,
		     double t0, double t)
{
	uint64_t done, total, pk = cap_pipe_stats(pipe)->packets;

	cap_source_progress(src, &done, &total);
	fprintf(stderr, "\r%5.1f%%  %" PRIu64 " packets  %.0f pkt/s  %.1f s ",
		total ? 100.0 * (double)done / (double)total : 0.0, pk,
		t > t0 ? (double)pk / (t - t0) : 0.0, t - t0);
}

/*
 * Live, after a stop request: the packets the kernel already holds were
 * captured before it (pcap_stats counts them received), so they are read
 * too, without waiting, for at most a second.  A stop that comes while
 * the command is still setting up (record creating its database) would
 * otherwise lose every packet of the run.
 */
static int drain(struct cap_source *src, struct cap_pipe *pipe, char *err)
{
	double end = ui_mono_s() + 1.0;
	uint64_t before;
	int rc;

	do {
		before = cap_pipe_stats(pipe)->packets;
		rc = cap_step(src, pipe, 4096, err);
	} while (rc > 0 && cap_pipe_stats(pipe)->packets != before &&
		 ui_mono_s() < end);
	return rc;
}

/* Files that overlapped in time: say they were merged, and how many
 * frames two of them held (taken once). */
static void merge_notice(const struct cap_source *src, const char *who)
{
	uint32_t files;
	uint64_t dup;

	cap_source_merge_stats(src, &files, &dup);
	if (files == 0)
		return;
	fprintf(stderr, "nfscope %s: %" PRIu32 " files overlapping in time "
		"were merged by timestamp", who, files);
	if (dup)
		fprintf(stderr, "; %" PRIu64 " frame%s found in two of them "
			"(the same time and bytes) taken once", dup,
			dup == 1 ? "" : "s");
	fputc('\n', stderr);
}

int ui_run(struct cap_source *src, struct cap_pipe *pipe,
	   const struct ui_run_hooks *h)
{
	char err[CAP_ERRBUF_SIZE] = "";
	bool live = cap_source_fd(src) >= 0;
	double t0 = ui_mono_s(), last = t0;
	int rc = 0, fd = cap_source_fd(src);
	struct cap_read_error cut;

	cap_source_set_stop(src, &ui_stop);
	while (!ui_stop && !ui_out_failed()) {
		uint64_t before = cap_pipe_stats(pipe)->packets;
		double t;

		rc = cap_step(src, pipe, live ? 4096 : 65536, err);
		if (rc < 0 && cap_source_read_error(src, &cut)) {
			char m[CAP_ERRBUF_SIZE + 96];

			fprintf(stderr, "nfscope %s: INPUT CUT: %s; everything "
				"before it was processed\n", h->who,
				ui_cut_str(&cut, m, sizeof(m)));
			rc = 1;
			break;
		}
		if (rc < 0) {
			fprintf(stderr, "nfscope %s: %s\n", h->who, err);
			break;
		}
		if (rc == 0)
			break;
		ui_check_hup(h->who);
		if (live && cap_pipe_stats(pipe)->packets == before) {
			struct pollfd pfd = { .fd = fd, .events = POLLIN };

			(void)poll(&pfd, 1, 100);
		}
		t = ui_mono_s();
		if (t - last < (live ? 1.0 : 0.5))
			continue;
		last = t;
		if (!live) {
			if (h->progress)
				progress(src, pipe, t0, t);
			continue;
		}
		sample_drops(src, h);
		if (h->tick)
			h->tick(h->user, ui_wall_ns());
	}
	if (live && ui_stop && rc >= 0 && (rc = drain(src, pipe, err)) < 0)
		fprintf(stderr, "nfscope %s: %s\n", h->who, err);
	if (h->progress && !live)
		fputs("\r\033[K", stderr);
	ui_check_hup(h->who);
	cap_pipe_flush(pipe);
	if (live)
		sample_drops(src, h);
	merge_notice(src, h->who);
	return rc < 0 ? -1 : rc == 1 && cap_source_read_error(src, &cut);
}
