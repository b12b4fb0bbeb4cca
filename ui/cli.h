/*
 * cli.h - options shared by every subcommand that reads packets (dump,
 * report, record, top), filled into the run stage's configuration
 * (run/run.h, which opens the source, drops privileges and runs the read
 * loop); standard output; drop spans and exit statuses.
 *
 * Options (tcpdump's letters where tcpdump has one):
 *   -r FILE     read a pcap/pcapng file ("-" = stdin), gzip-compressed or
 *               not; repeatable, and a quoted glob ('ring*.pcap') names
 *               every file it matches: one capture (cap_open_files)
 *   -i IFACE    capture live ("any" = all interfaces, Linux cooked)
 *   -f FILTER   BPF filter, tcpdump syntax.  Default: none, every packet is
 *               examined: RPC is recognised by content, MOUNT/NLM/portmap
 *               use other ports than 2049, and IP fragments after the first
 *               carry no ports at all ("port 2049" would lose them)
 *   -s SNAPLEN  live snapshot length (default CAP_DEFAULT_SNAPLEN; 0 = 262144)
 *   -c COUNT    stop after COUNT packets
 *   -B KIB      live capture buffer size in KiB (default CAP_DEFAULT_BUFFER_KIB)
 *   -p          do not put the interface in promiscuous mode
 *   -n          accepted and ignored, as tcpdump's -n/-nn: nfscope never
 *               resolves addresses or ports to names
 *   -Z USER     after opening the source, become USER (setgroups, setgid,
 *               setuid): output files are created afterwards, as USER;
 *               a process not root drops every capability there anyway
 *   --duration S      stop after S seconds (live: wall time; a file:
 *                     capture time from its first packet)
 *   --xid-max N       calls held: the one call table (decode.h), where
 *                     replies are paired and calls await them
 *   --dec-xid-max N   the same table (older name; the larger is used)
 *   --flows-max N     TCP flow directions followed
 *   --frag-mem BYTES  memory for IP fragment reassembly (k/m/g suffixes)
 *   --tcp-mem BYTES   memory for TCP out-of-order segments and record
 *                     buffers, all flows together
 *   --names-max N     file handle -> path names learned
 *   --late-mem BYTES  replies held for a call that comes after them
 *   --decompress-mem BYTES  memory an xz or zstd decoder may take
 *   --utc             print times in UTC (default: local time, as tcpdump)
 *   --epoch           print times as seconds since 1970 (tcpdump -tt)
 *
 * A subcommand parses them with ui_src_opt (and ui_src_args for a filter
 * expression), fills the run stage's configuration with ui_run_config,
 * and hands it, with the hooks of what it shows, to the run stage
 * (run/run.h; ui/dump/dump.c is the shortest example).
 */
#ifndef NFSCOPE_CLI_H
#define NFSCOPE_CLI_H

#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analyze/filter.h"
#include "analyze/ops.h"
#include "capture/capture.h"
#include "decode/decode.h"
#include "run/evidence.h"
#include "run/run.h"
#include "ui/outfile.h"
#include "ui/times.h"

#define UI_FILTER_MAX 4096	/* bytes of a BPF filter expression */

#define UI_FILES_MAX 4096	/* -r FILE ... */
#define UI_GLOB_POOL 262144	/* bytes of the names globs matched */

struct ui_src_opts {
	const char *file;		/* the first -r (NULL: none) */
	const char *files[UI_FILES_MAX];	/* every -r, globs expanded */
	uint32_t nfiles;
	char pool[UI_GLOB_POOL];	/* names a glob matched */
	size_t pool_used;
	char name[1024];		/* ui_src_name */
	const char *iface;
	const char *user;		/* -Z */
	struct cap_config cfg;		/* capture options and budgets */
	struct dec_config dec;		/* --xid-max, --dec-xid-max */
	struct an_config an;		/* the same xid_max, --names-max */
	bool xid_set;			/* --xid-max or --dec-xid-max given */
	bool snaplen_set;
	enum ui_time_mode time_mode;	/* --utc, --epoch (times.h) */
	/* -f and a trailing filter expression together (ui_src_args) */
	char filter_buf[UI_FILTER_MAX];
};

/* Long options of ui_src_opt (codes >= 0x100: they clash with no letter). */
enum {
	UI_OPT_DURATION = 0x100,
	UI_OPT_XID_MAX,
	UI_OPT_DEC_XID_MAX,
	UI_OPT_FLOWS_MAX,
	UI_OPT_FRAG_MEM,
	UI_OPT_NAMES_MAX,
	UI_OPT_TCP_MEM,
	UI_OPT_LATE_MEM,
	UI_OPT_UTC,
	UI_OPT_EPOCH,
	UI_OPT_DECOMPRESS_MEM,
	UI_OPT_FANOUT,
};

#define UI_SRC_LONGOPTS \
	{ "duration", required_argument, NULL, UI_OPT_DURATION }, \
	{ "xid-max", required_argument, NULL, UI_OPT_XID_MAX }, \
	{ "dec-xid-max", required_argument, NULL, UI_OPT_DEC_XID_MAX }, \
	{ "flows-max", required_argument, NULL, UI_OPT_FLOWS_MAX }, \
	{ "frag-mem", required_argument, NULL, UI_OPT_FRAG_MEM }, \
	{ "names-max", required_argument, NULL, UI_OPT_NAMES_MAX }, \
	{ "tcp-mem", required_argument, NULL, UI_OPT_TCP_MEM }, \
	{ "late-mem", required_argument, NULL, UI_OPT_LATE_MEM }, \
	{ "utc", no_argument, NULL, UI_OPT_UTC }, \
	{ "epoch", no_argument, NULL, UI_OPT_EPOCH }, \
	{ "decompress-mem", required_argument, NULL, UI_OPT_DECOMPRESS_MEM }, \
	{ "fanout", required_argument, NULL, UI_OPT_FANOUT }

/* The getopt letters ui_src_opt handles, for building optstrings. */
#define UI_SRC_OPTSTRING "r:i:f:s:c:B:pZ:n"

#define UI_STR_(x) #x
#define UI_STR(x) UI_STR_(x)
/* The help option every command takes, as its usage prints it. */
#define UI_HELP_USAGE "  -h, --help   this help\n"

/* One line per option (continuations indented), within 80 columns, for
 * usage texts; the man page's "Capture options" says the same. */
#define UI_SRC_USAGE \
	"source: -r FILE | -i IFACE\n" \
	"  -r FILE      a pcap or pcapng file, compressed (gzip, zstd, xz,\n" \
	"               bzip2) or not, '-' stdin; several -r (or a quoted\n" \
	"               glob) are read as one capture in time order\n" \
	"  -i IFACE     capture live ('any': all interfaces; needs CAP_NET_RAW)\n" \
	"  -f FILTER    BPF filter (default none: RPC is found by content,\n" \
	"               on any port, and IP fragments carry no ports); a filter\n" \
	"               expression after the options works as in tcpdump (with\n" \
	"               -f too, a packet must match both)\n" \
	"  -n           ignored (also -nn): nfscope never resolves names\n" \
	"  -s SNAPLEN   live snapshot length (default 0: 262144, whole packets;\n" \
	"               shorter hides records inside coalesced TCP segments)\n" \
	"  -B KIB       live capture buffer (default " \
	UI_STR(CAP_DEFAULT_BUFFER_KIB) ")\n" \
	"  -p           do not put the interface into promiscuous mode\n" \
	"  -c COUNT     stop after COUNT packets\n" \
	"  --duration S stop after S seconds (live: wall time; file: capture\n" \
	"               time from its first packet)\n" \
	"  --fanout ID  live, Linux: one worker of PACKET_FANOUT group ID\n" \
	"               (1..65535): the workers share the traffic by host pair\n" \
	"  -Z USER      drop root privileges to USER once the source is open\n" \
	"               (output files are created afterwards, as USER)\n" \
	"times: local date and time (TZ) by default, as tcpdump -tttt;\n" \
	"  --utc        in UTC\n" \
	"  --epoch      seconds since 1970, as tcpdump -tt\n"

/*
 * The budgets (--xid-max ... --late-mem): one table in cli.c gives their
 * defaults (set by ui_src_opts_init), ranges (checked by ui_src_opt) and
 * usage lines (ui_budget_usage, after UI_SRC_USAGE), one line each:
 *   "  --NAME ARG    what (default D, LO..HI)".
 */
void ui_budget_usage(FILE *f);

void ui_src_opts_init(struct ui_src_opts *o);
/* Does path name a capture file (.pcap, .pcapng, .cap, .pcap.gz)? */
bool ui_pcap_name(const char *path);
/*
 * Handle one option shared by packet-reading subcommands (a letter of
 * UI_SRC_OPTSTRING or a code of UI_SRC_LONGOPTS).  Returns 1 if it was
 * one (arg consumed), 0 if not, -1 on a bad value (message on stderr).
 */
int ui_src_opt(struct ui_src_opts *o, int opt, const char *arg);
/*
 * The words left after the options (argv[first..argc)), as tcpdump takes
 * them: one BPF filter expression, joined with spaces.  With -f as well,
 * a packet must match both: "(F) and (EXPR)".  Returns 0, or -1 with a
 * usage error printed (who: "dump").
 */
int ui_src_args(struct ui_src_opts *o, const char *who, int argc,
		char **argv, int first);
/*
 * A usage error, GNU style: "nfscope WHO: MESSAGE" (when fmt is not NULL)
 * then one line saying where the usage is.  Returns 2, the exit status of
 * a usage error.
 */
int ui_usage_error(const char *who, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The source for headers and the store: the interface, the file, or
 * the files ("a.pcap, b.pcap, ... (N files)"). */
const char *ui_src_name(const struct ui_src_opts *o);
/* The run stage's configuration from the options: source, -Z, budgets
 * (the rest zero; who: the subcommand, for messages).  The strings stay
 * the options'. */
void ui_run_config(const struct ui_src_opts *o, const char *who,
		   struct run_config *c);
/* For a caller with its own loop (top): run_open_source and
 * run_drop_privileges (run.h) of the options. */
struct cap_source *ui_open_source(struct ui_src_opts *o);
int ui_after_open(struct ui_src_opts *o);
/*
 * Standard output, for every command: the run stage stops reading once a
 * write to it failed (a full disk, a reader gone with SIGPIPE ignored);
 * main() ends every command with ui_out_close, which flushes and closes it.  Returns
 * rc if all was written; after an error a message on stderr and rc or 1;
 * when the reader went away (EPIPE) quietly UI_EXIT_PIPE (128 + SIGPIPE,
 * what a shell reports for a process SIGPIPE ended, as it ends tcpdump).
 */
#define UI_EXIT_PIPE 141
bool ui_out_failed(void);
int ui_out_close(const char *who, int rc);
/* Parse an unsigned number with an optional k/m/g suffix. */
bool ui_parse_u64(const char *s, uint64_t *out);

/*
 * The operation filters report and dump share (analyze/filter.h: comma
 * lists, repeatable): --client, --server, --op, --fh, as getopt codes
 * 'K', 'V', 'P', UI_OPT_FH.  ui_filter_opt adds arg to f; -1 with a message on
 * stderr naming who.
 */
#define UI_OPT_FH 0x1f0
#define UI_FILTER_LONGOPTS \
	{ "client", required_argument, NULL, 'K' }, \
	{ "server", required_argument, NULL, 'V' }, \
	{ "op", required_argument, NULL, 'P' }, \
	{ "fh", required_argument, NULL, UI_OPT_FH }
int ui_filter_opt(struct an_filter *f, const char *who, int opt,
		  const char *arg);

/*
 * --write-pcap OUT [--select slow:MS,errors,retrans,unanswered,findings]
 * (report, record): the frames of the selected operations
 * (run/evidence.h) into OUT, after the run, from the same files (live:
 * from the spool OUT.spool).  ui_pcap_opt takes the two options (-1: a
 * message on stderr); ui_pcap_check refuses what cannot be done (a
 * database, --select alone: exit 2); OUT is checked with the other
 * outputs (ui/outfile.h) before the run; live, run_evidence_live before
 * run_open and run_evidence_spool after -Z; ui_pcap_begin after -Z makes
 * OUT's temporary file (0, or -1 said); ui_pcap_write, at the end (the
 * findings finished), writes, puts the file in place and says on stderr
 * what it wrote (0, or -1); ui_pcap_abort on every other way out removes
 * what was begun.
 */
#define UI_OPT_WRITE_PCAP 0x1f1
#define UI_OPT_SELECT 0x1f2
#define UI_PCAP_LONGOPTS \
	{ "write-pcap", required_argument, NULL, UI_OPT_WRITE_PCAP }, \
	{ "select", required_argument, NULL, UI_OPT_SELECT }
#define UI_PCAP_USAGE \
	"  --write-pcap OUT   after the run, the frames of the selected " \
	"operations\n" \
	"               (every transmission, reply, IP fragment and TCP " \
	"segment) to\n" \
	"               the pcap OUT (live: every frame is spooled to " \
	"OUT.spool\n" \
	"               until the end; it grows with the capture)\n" \
	"  --select slow:MS,errors,retrans,unanswered,findings   which " \
	"ones (any\n" \
	"               of them; findings: a finding's evidence; default: " \
	"every\n" \
	"               operation the filters keep)\n"
struct ui_pcap_opts {
	const char *path;		/* NULL: no --write-pcap */
	const char *select;		/* as given */
	struct run_ev_select sel;
	struct ui_out out;		/* OUT being written */
};
int ui_pcap_begin(struct ui_pcap_opts *o, const char *who);
void ui_pcap_abort(struct ui_pcap_opts *o);
int ui_pcap_opt(struct ui_pcap_opts *o, const char *who, int opt,
		const char *arg);
int ui_pcap_check(const struct ui_pcap_opts *o, const char *who,
		  const struct ui_src_opts *so, bool db);
/* What ui_pcap_write needs of the ended run. */
struct ui_pcap_end {
	const struct an_find *find;	/* its findings, finished */
	uint32_t slow_ms;		/* their slow_server threshold */
	uint64_t frames;		/* frames it read (cap_stats packets) */
};
int ui_pcap_write(struct run_evidence *ev, struct ui_pcap_opts *o,
		  const struct run_config *c, const struct ui_pcap_end *e,
		  bool quiet);

/*
 * Capture drops seen in a run: spans merged when they touch (samples come
 * every second, so a stretch of drops is one span), at most UI_DROP_SPANS
 * (then the last one grows).  Plain values: zero it to start.
 */
#define UI_DROP_SPANS 256
struct ui_drops {
	struct cap_drop_span span[UI_DROP_SPANS];
	uint32_t n;
	uint64_t drop, ifdrop;		/* totals over the spans */
};
void ui_drops_add(struct ui_drops *d, const struct cap_drop_span *sp);

/*
 * Exit status of every command whose input was cut short or damaged (a
 * read error after the source was open): everything before it was
 * processed and printed or stored, and the output says where and why
 * reading stopped (doc/nfscope.1, EXIT STATUS).
 */
#define UI_EXIT_CUT 3

#endif
