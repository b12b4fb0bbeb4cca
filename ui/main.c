/* main.c - nfscope: passive ONC RPC / NFS v2+v3 analyzer.  Subcommands. */
#include <stdio.h>
#include <string.h>

#include "ui/cli.h"
#include "ui/dump.h"
#include "ui/record.h"
#include "ui/report.h"

int ui_top_main(int argc, char **argv);

static void usage(FILE *f)
{
	fputs("usage: nfscope <command> [options]\n"
	      "commands:\n"
	      "  dump    one line (or --json object) per RPC message\n"
	      "  report  operations, latency, sizes, retransmits, findings\n"
	      "  record  write the analysis into an sqlite database (-w OUT.db)\n"
	      "  top     the live dashboard (-i IFACE, -r FILE or a database)\n"
	      "  version print the version\n"
	      "Run 'nfscope <command> --help' for a command's options.\n"
	      "dump, report, record and top read packets with the same options:\n"
	      "  -r FILE | -i IFACE [-f FILTER] [-s SNAPLEN] [-B KIB] [-p] "
	      "[-c COUNT] [--duration S] [-Z USER]\n"
	      "  budgets: --xid-max --dec-xid-max --flows-max --frag-mem "
	      "--names-max --late-mem\n"
	      "Live capture needs CAP_NET_RAW (root, or setcap "
	      "cap_net_raw,cap_net_admin=eip on the program).\n", f);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "dump"))
		return ui_out_close("dump", ui_dump_main(argc - 1, argv + 1));
	if (!strcmp(argv[1], "report"))
		return ui_out_close("report",
				    ui_report_main(argc - 1, argv + 1));
	if (!strcmp(argv[1], "record"))
		return ui_out_close("record",
				    ui_record_main(argc - 1, argv + 1));
	if (!strcmp(argv[1], "top"))
		return ui_out_close("top", ui_top_main(argc - 1, argv + 1));
	if (!strcmp(argv[1], "version") || !strcmp(argv[1], "--version")) {
		puts("nfscope " NFSCOPE_VERSION);
		return ui_out_close(NULL, 0);
	}
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "-h")) {
		usage(stdout);
		return ui_out_close(NULL, 0);
	}
	fprintf(stderr, "nfscope: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
