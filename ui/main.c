/* main.c - nfscope: passive ONC RPC / NFS v2+v3 analyzer.  Subcommands. */
#include <stdio.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "ui/cli.h"
#include "ui/report/diff.h"
#include "ui/dump/dump.h"
#include "ui/record/record.h"
#include "ui/serve/serve.h"
#include "ui/report/report.h"

int ui_top_main(int argc, char **argv);

static void usage(FILE *f)
{
	fputs("usage: nfscope <command> [options]\n"
	      "commands:\n"
	      "  dump    one line (or --json object) per RPC message\n"
	      "  report  operations, latency, sizes, retransmits, findings\n"
	      "  diff    compare two captures, databases or runs (A B)\n"
	      "  record  write the analysis into an sqlite database (-w OUT.db)\n"
	      "  serve   headless: a Prometheus endpoint (--metrics ADDR:PORT)\n"
	      "  top     the live dashboard (-i IFACE, -r FILE or a database)\n"
	      "  version print the version\n"
	      "Run 'nfscope <command> --help' for a command's options.\n"
	      "dump, report, record, serve and top read packets with the same "
	      "options:\n"
	      "  -r FILE | -i IFACE [-f FILTER] [-s SNAPLEN] [-B KIB] [-p] "
	      "[-c COUNT]\n"
	      "  [--duration S] [-Z USER] [-n] [--utc | --epoch]\n"
	      "  budgets: --xid-max --dec-xid-max --flows-max --frag-mem "
	      "--tcp-mem\n"
	      "  --names-max --late-mem --decompress-mem\n"
	      "Live capture needs CAP_NET_RAW (root, or setcap "
	      "cap_net_raw,cap_net_admin=eip\n"
	      "on the program).  The reference: man nfscope.\n", f);
}

/* "nfscope dump": what getopt's messages name (argv[0] of the command) */
static char *cmd_name(const char *cmd)
{
	static char name[32];

	snprintf(name, sizeof(name), "nfscope %s", cmd);
	return name;
}

int main(int argc, char **argv)
{
	const char *cmd;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	cmd = argv[1];
	argv[1] = cmd_name(cmd);
#ifdef __GLIBC__
	/* One malloc arena for the commands that only read and analyse: the
	 * capture thread frees TCP and fragment memory the engine thread can
	 * then reuse, where an arena per thread keeps both resident (the
	 * default budgets' worst case: 65.4 MiB peak RSS with an arena per
	 * thread, 61.4 with one; doc/bench.md, Budgets).  The threads allocate
	 * only when a table grows, so they do not contend.  record and serve
	 * keep glibc's default: their insert thread allocates per row. */
	if (strcmp(cmd, "record") && strcmp(cmd, "serve"))
		mallopt(M_ARENA_MAX, 1);
#endif
	if (!strcmp(cmd, "dump"))
		return ui_out_close("dump", ui_dump_main(argc - 1, argv + 1));
	if (!strcmp(cmd, "report"))
		return ui_out_close("report",
				    ui_report_main(argc - 1, argv + 1));
	if (!strcmp(cmd, "diff"))
		return ui_out_close("diff", ui_diff_main(argc - 1, argv + 1));
	if (!strcmp(cmd, "record"))
		return ui_out_close("record",
				    ui_record_main(argc - 1, argv + 1));
	if (!strcmp(cmd, "serve"))
		return ui_out_close("serve", ui_serve_main(argc - 1, argv + 1));
	if (!strcmp(cmd, "top"))
		return ui_out_close("top", ui_top_main(argc - 1, argv + 1));
	if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
		puts("nfscope " NFSCOPE_VERSION);
		return ui_out_close(NULL, 0);
	}
	if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") ||
	    !strcmp(cmd, "-h")) {
		usage(stdout);
		return ui_out_close(NULL, 0);
	}
	fprintf(stderr, "nfscope: unknown command '%s'\n", cmd);
	if (cmd[0] == '-')	/* tcpdump's habit: options first */
		fprintf(stderr, "A command comes first: 'nfscope report %s%s%s' "
			"reads a capture (dump: a line per message).\n", cmd,
			argc > 2 ? " " : "", argc > 2 ? argv[2] : "");
	fprintf(stderr, "Try 'nfscope --help' for the list of commands.\n");
	return 2;
}
