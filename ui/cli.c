/* cli.c - options shared by the packet-reading subcommands, into the run
 * stage's configuration; output; see cli.h. */
#include "ui/cli.h"

#include <assert.h>
#include <errno.h>
#include <glob.h>
#include <stdarg.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define SNAPLEN_MAX 262144	/* libpcap's MAXIMUM_SNAPLEN; tcpdump's -s 0 */

#define KIB ((uint64_t)1024)
#define MIB (KIB * 1024)
#define GIB (MIB * 1024)

/* The budgets: default, range, what; --help prints this table, and
 * ui_src_opts_init sets these defaults (the lower stages' own defaults,
 * for a zero, are the same numbers: decode.h, capture_int.h, ops.h). */
static const struct budget {
	int code;
	const char *name, *arg, *what;
	uint64_t def, lo, hi;
} budgets[] = {
	{ UI_OPT_XID_MAX, "xid-max", "N", "calls held: the one call table",
	  DEC_XID_MAX_DEFAULT, 16, 1u << 24 },
	{ UI_OPT_DEC_XID_MAX, "dec-xid-max", "N", "the same table (the larger wins)", DEC_XID_MAX_DEFAULT, 16, 1u << 24 },
	{ UI_OPT_FLOWS_MAX, "flows-max", "N", "TCP flow directions followed",
	  8192, 16, 1u << 22 },
	{ UI_OPT_FRAG_MEM, "frag-mem", "BYTES", "IP fragment reassembly",
	  2 * MIB, 64 * KIB, 4 * GIB },
	{ UI_OPT_TCP_MEM, "tcp-mem", "BYTES", "TCP out-of-order data and "
	  "records", 8 * MIB, 1 * MIB, 64 * GIB },
	{ UI_OPT_NAMES_MAX, "names-max", "N", "file handle -> path names",
	  4096, 16, 1u << 24 },
	{ UI_OPT_LATE_MEM, "late-mem", "BYTES", "replies held for a later "
	  "call", 1 * MIB, 4 * KIB, 1 * GIB },
	{ UI_OPT_DECOMPRESS_MEM, "decompress-mem", "BYTES", "an xz or zstd "
	  "file's decoder", 256 * MIB, 1 * MIB, 16 * GIB },
};
#define NBUDGETS (sizeof(budgets) / sizeof(budgets[0]))

/* v as the options take it: 16384, 8m, 64k. */
static const char *size_str(uint64_t v, bool bytes, char *b, size_t n)
{
	if (bytes && v >= GIB && v % GIB == 0)
		snprintf(b, n, "%" PRIu64 "g", v / GIB);
	else if (bytes && v >= MIB && v % MIB == 0)
		snprintf(b, n, "%" PRIu64 "m", v / MIB);
	else if (bytes && v >= KIB && v % KIB == 0)
		snprintf(b, n, "%" PRIu64 "k", v / KIB);
	else
		snprintf(b, n, "%" PRIu64, v);
	return b;
}

void ui_budget_usage(FILE *f)
{
	char arg[32], d[24], lo[24], hi[24];
	size_t k;

	fputs("budgets (evictions are counted in every output):\n", f);
	for (k = 0; k < NBUDGETS; k++) {
		const struct budget *b = &budgets[k];
		bool bytes = !strcmp(b->arg, "BYTES");

		snprintf(arg, sizeof(arg), "--%s %s", b->name, b->arg);
		fprintf(f, "  %-18s %s (default %s, %s..%s)\n", arg, b->what,
			size_str(b->def, bytes, d, sizeof(d)),
			size_str(b->lo, true, lo, sizeof(lo)),
			size_str(b->hi, true, hi, sizeof(hi)));
	}
}

static const struct budget *budget_of(int code)
{
	size_t k;

	for (k = 0; k < NBUDGETS; k++)
		if (budgets[k].code == code)
			return &budgets[k];
	return NULL;
}

bool ui_pcap_name(const char *path)
{
	static const char *const ext[] = { ".pcap", ".pcapng", ".cap",
					   ".pcap.gz", ".pcapng.gz" };
	size_t k, n = strlen(path), e;

	for (k = 0; k < sizeof(ext) / sizeof(ext[0]); k++) {
		e = strlen(ext[k]);
		if (n > e && strcasecmp(path + n - e, ext[k]) == 0)
			return true;
	}
	return false;
}

void ui_src_opts_init(struct ui_src_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->cfg.promisc = true;
	o->dec.xid_max = o->an.xid_max =
		(uint32_t)budget_of(UI_OPT_XID_MAX)->def;
	o->cfg.flows_max = (uint32_t)budget_of(UI_OPT_FLOWS_MAX)->def;
	o->cfg.frag_mem_max = (size_t)budget_of(UI_OPT_FRAG_MEM)->def;
	o->cfg.tcp_mem_max = (size_t)budget_of(UI_OPT_TCP_MEM)->def;
	o->an.names_max = (uint32_t)budget_of(UI_OPT_NAMES_MAX)->def;
	o->dec.late_mem = (size_t)budget_of(UI_OPT_LATE_MEM)->def;
	o->cfg.decompress_mem = budget_of(UI_OPT_DECOMPRESS_MEM)->def;
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

/* A budget option (the table's code): its range checked. */
static int budget(int code, const char *arg, uint64_t *v)
{
	const struct budget *b = budget_of(code);

	if (ui_parse_u64(arg, v) && *v >= b->lo && *v <= b->hi)
		return 1;
	fprintf(stderr, "nfscope: bad --%s '%s' (%" PRIu64 "..%" PRIu64 ")\n",
		b->name, arg, b->lo, b->hi);
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
		if (budget(opt, arg, &v) < 0)
			return -1;
		/* both name the one call table (decode.h): the larger */
		if (!o->xid_set || v > o->dec.xid_max)
			o->dec.xid_max = o->an.xid_max = (uint32_t)v;
		o->xid_set = true;
		return 1;
	case UI_OPT_FLOWS_MAX:
		if (budget(opt, arg, &v) < 0)
			return -1;
		o->cfg.flows_max = (uint32_t)v;
		return 1;
	case UI_OPT_FRAG_MEM:
		if (budget(opt, arg, &v) < 0)
			return -1;
		o->cfg.frag_mem_max = (size_t)v;
		return 1;
	case UI_OPT_TCP_MEM:
		if (budget(opt, arg, &v) < 0)
			return -1;
		o->cfg.tcp_mem_max = (size_t)v;
		return 1;
	case UI_OPT_DECOMPRESS_MEM:
		if (budget(opt, arg, &v) < 0)
			return -1;
		o->cfg.decompress_mem = v;
		return 1;
	case UI_OPT_LATE_MEM:
		if (budget(opt, arg, &v) < 0)
			return -1;
		o->dec.late_mem = (size_t)v;
		return 1;
	case UI_OPT_UTC:
	case UI_OPT_EPOCH:
		o->time_mode = opt == UI_OPT_UTC ? UI_TIME_UTC : UI_TIME_EPOCH;
		return 1;
	case UI_OPT_NAMES_MAX:
		if (budget(opt, arg, &v) < 0)
			return -1;
		o->an.names_max = (uint32_t)v;
		return 1;
	case UI_OPT_FANOUT:
		if (!ui_parse_u64(arg, &v) || v == 0 || v > 65535) {
			fprintf(stderr, "nfscope: bad --fanout '%s' (a group "
				"id, 1..65535)\n", arg);
			return -1;
		}
		o->cfg.fanout = (int)v;
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

int ui_filter_opt(struct an_filter *f, const char *who, int opt,
		  const char *arg)
{
	static const struct {
		int opt;
		enum an_filter_key key;
		const char *name;
	} keys[] = {
		{ 'K', AN_FK_CLIENT, "--client" },
		{ 'V', AN_FK_SERVER, "--server" },
		{ 'P', AN_FK_OP, "--op" },
		{ UI_OPT_FH, AN_FK_FH, "--fh" },
	};
	char err[4096];
	size_t k;

	for (k = 0; keys[k].opt != opt; k++)
		assert(k + 1 < sizeof(keys) / sizeof(keys[0]));
	if (an_filter_add(f, keys[k].key, arg, err, sizeof(err)) == 0)
		return 0;
	fprintf(stderr, "nfscope %s: %s: %s\n", who, keys[k].name, err);
	return -1;
}

int ui_pcap_opt(struct ui_pcap_opts *o, const char *who, int opt,
		const char *arg)
{
	char err[256];

	if (opt == UI_OPT_WRITE_PCAP) {
		o->path = arg;
		return 0;
	}
	o->select = arg;
	if (run_ev_select_parse(arg, &o->sel, err, sizeof(err)) == 0)
		return 0;
	fprintf(stderr, "nfscope %s: %s\n", who, err);
	return -1;
}

int ui_pcap_check(const struct ui_pcap_opts *o, const char *who,
		  const struct ui_src_opts *so, bool db)
{
	if (o->select && !o->path)
		ui_usage_error(who, "--select chooses what --write-pcap "
			       "writes: give --write-pcap OUT");
	else if (o->path && db)
		ui_usage_error(who, "--write-pcap reads the capture again: "
			       "it needs -r FILE or -i IFACE, not a database");
	else
		return 0;
	return -1;
}

int ui_pcap_begin(struct ui_pcap_opts *o, const char *who)
{
	return ui_out_begin(&o->out, who, "--write-pcap", o->path);
}

void ui_pcap_abort(struct ui_pcap_opts *o)
{
	(void)ui_out_end(&o->out, false);
}

int ui_pcap_write(struct run_evidence *ev, struct ui_pcap_opts *o,
		  const struct run_config *c, const struct ui_pcap_end *e,
		  bool quiet)
{
	struct run_ev_stats st;
	int rc;

	run_evidence_findings(ev, e->find, e->slow_ms);
	rc = run_evidence_write(ev, c, o->out.f, o->path, e->frames, &st);
	if (ui_out_end(&o->out, rc == 0) < 0)
		return -1;
	if (quiet)
		goto over;
	if (o->sel.findings && st.findings == 0)
		fprintf(stderr, "nfscope %s: --write-pcap %s: --select "
			"findings: no finding in this run%s\n", c->who,
			o->path, st.ops ? "" : ": no operation to write");
	else if (o->sel.findings)
		fprintf(stderr, "nfscope %s: --write-pcap %s: --select "
			"findings: %" PRIu64 " finding%s, %" PRIu64 " of %"
			PRIu64 " candidate operations their evidence\n",
			c->who, o->path, st.findings, st.findings == 1 ? "" :
			"s", st.evidence, st.candidates);
	fprintf(stderr, "nfscope %s: --write-pcap %s: %" PRIu64 " frames, %"
		PRIu64 " messages of %" PRIu64 " operations\n", c->who, o->path,
		st.frames, st.msgs, st.ops);
over:
	if (st.ops_over)
		fprintf(stderr, "nfscope %s: --write-pcap: %" PRIu64
			" operations selected%s past the first %u not "
			"written\n", c->who, st.ops_over, o->sel.findings ?
			" (or candidates for a finding's evidence)" : "",
			RUN_EV_OPS_MAX);
	if (o->sel.findings && e->find && an_find_dropped(e->find))
		fprintf(stderr, "nfscope %s: --write-pcap: %" PRIu64
			" findings past the first %u kept: their evidence is "
			"not written\n", c->who, an_find_dropped(e->find),
			AN_FIND_MAX);
	return 0;
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

void ui_run_config(const struct ui_src_opts *o, const char *who,
		   struct run_config *c)
{
	memset(c, 0, sizeof(*c));
	c->who = who;
	c->files = o->files;
	c->nfiles = o->nfiles;
	c->iface = o->iface;
	c->name = ui_src_name(o);
	c->user = o->user;
	c->cap = o->cfg;
	c->dec = o->dec;
	c->an = o->an;
}

struct cap_source *ui_open_source(struct ui_src_opts *o)
{
	struct run_config c;

	ui_run_config(o, NULL, &c);
	return run_open_source(&c);
}

int ui_after_open(struct ui_src_opts *o)
{
	return run_drop_privileges(o->user);
}

/* ------------------------------------------------------------- drops -- */

void ui_drops_add(struct ui_drops *d, const struct cap_drop_span *sp)
{
	d->drop += sp->drop;
	d->ifdrop += sp->ifdrop;
	cap_drop_spans_add(d->span, &d->n, UI_DROP_SPANS, sp);
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
