/* cli.c - shared capture options; see cli.h. */
#include "ui/cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

volatile sig_atomic_t ui_stop;

static void on_signal(int sig)
{
	(void)sig;
	ui_stop = 1;
}

void ui_install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
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

int ui_src_opt(struct ui_src_opts *o, int opt, const char *arg)
{
	uint64_t v;

	switch (opt) {
	case 'r':
		o->file = arg;
		return 1;
	case 'i':
		o->iface = arg;
		return 1;
	case 'f':
		o->cfg.filter = arg;
		return 1;
	case 's':
		if (!ui_parse_u64(arg, &v) || v > 262144) {
			fprintf(stderr, "nfscope: bad snaplen '%s' (0..262144)\n", arg);
			return -1;
		}
		o->cfg.snaplen = (int)v;
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
	default:
		return 0;
	}
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
		s = cap_open_offline(o->file, &o->cfg, err);
		if (!s)
			fprintf(stderr, "nfscope: %s: %s\n", o->file, err);
		return s;
	}
	s = cap_open_live(o->iface, &o->cfg, err, warn);
	if (!s) {
		fprintf(stderr, "nfscope: %s: %s\n", o->iface, err);
		return NULL;
	}
	if (warn[0])
		fprintf(stderr, "nfscope: warning: %s: %s\n", o->iface, warn);
	return s;
}
