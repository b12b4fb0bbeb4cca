/*
 * cli.h - command-line options shared by the subcommands that read packets
 * (dump now; report, record and top later), and opening their source.
 *
 * Options (tcpdump's letters where tcpdump has one):
 *   -r FILE     read a pcap/pcapng file ("-" = stdin)
 *   -i IFACE    capture live ("any" = all interfaces, Linux cooked)
 *   -f FILTER   BPF filter, tcpdump syntax
 *   -s SNAPLEN  live snapshot length (default CAP_DEFAULT_SNAPLEN)
 *   -c COUNT    stop after COUNT packets
 *   -B KIB      live capture buffer size in KiB
 *   -p          do not put the interface in promiscuous mode
 * The only process-wide mutable state is the stop flag set by signals.
 */
#ifndef NFSCOPE_CLI_H
#define NFSCOPE_CLI_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "capture/capture.h"

struct ui_src_opts {
	const char *file;
	const char *iface;
	struct cap_config cfg;
	bool snaplen_set;
};

extern volatile sig_atomic_t ui_stop;

void ui_src_opts_init(struct ui_src_opts *o);
/*
 * Handle one option letter shared by packet-reading subcommands.  Returns 1
 * if it was one (arg consumed), 0 if not, -1 on a bad value (message on
 * stderr).
 */
int ui_src_opt(struct ui_src_opts *o, int opt, const char *arg);
/* The getopt letters ui_src_opt handles, for building optstrings. */
#define UI_SRC_OPTSTRING "r:i:f:s:c:B:p"
/* Open the source the options name; prints errors/warnings to stderr. */
struct cap_source *ui_open_source(struct ui_src_opts *o);
/* Install SIGINT/SIGTERM handlers setting ui_stop. */
void ui_install_signals(void);
/* Parse an unsigned number with an optional k/m/g suffix. */
bool ui_parse_u64(const char *s, uint64_t *out);

#endif
