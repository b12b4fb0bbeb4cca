/*
 * fuzz_pcap.c - the whole pipeline on a pcap file: libpcap reader -> link ->
 * IP/fragments -> UDP/TCP records -> RPC/NFS decode -> both printers.
 * Small budgets so eviction paths run too.
 */
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>

#include "decode/decode.h"
#include "ui/dump/dump.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fz {
	struct dec *dec;
	struct dec_msg *msg;
	FILE *sink;
};

static void on_msg(void *user, const struct cap_msg *m)
{
	struct fz *z = user;

	if (dec_message(z->dec, m, z->msg)) {
		dump_text_msg(z->sink, m, z->msg, UI_TIME_LOCAL);
		dump_json_msg(z->sink, m, z->msg);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[PCAP_ERRBUF_SIZE];
	struct cap_config cfg = {
		.frag_mem_max = 64 * 1024, .flows_max = 8, .record_keep = 4096,
		.ooo_mem_max = 16 * 1024, .probe = dec_probe_start, .resync_probe = dec_probe_resync,
	};
	struct dec_config dcfg = { .xid_max = 16 };
	struct fz z;
	struct cap_pipe *p;
	struct pcap_pkthdr *h;
	const u_char *pkt;
	pcap_t *pc;
	FILE *f;
	int linktype;

	if (size == 0)
		return 0;
	f = fmemopen((void *)data, size, "rb");
	if (!f)
		return 0;
	pc = pcap_fopen_offline(f, err);	/* closes f on success */
	if (!pc) {
		fclose(f);
		return 0;
	}
	linktype = pcap_datalink(pc);
	if (!cap_linktype_ok(linktype, err)) {
		pcap_close(pc);
		return 0;
	}
	z.dec = dec_new(&dcfg);
	cfg.probe_user = z.dec;
	z.msg = malloc(sizeof(*z.msg));
	z.sink = fopen("/dev/null", "w");
	p = cap_pipe_new(&cfg, on_msg, &z);
	if (z.dec && z.msg && z.sink && p) {
		int n = 0;

		while (n++ < 100000 && pcap_next_ex(pc, &h, &pkt) == 1) {
			struct cap_pkt cp = {
				.linktype = linktype,
				/* overflow-safe, as the source does */
				.ts_ns = cap_ts_ns(h->ts.tv_sec,
						   (int64_t)h->ts.tv_usec * 1000),
				.caplen = h->caplen, .len = h->len, .data = pkt,
			};

			cap_pipe_feed(p, &cp);
		}
		cap_pipe_flush(p);
	}
	cap_pipe_free(p);
	if (z.sink)
		fclose(z.sink);
	free(z.msg);
	dec_free(z.dec);
	pcap_close(pc);
	return 0;
}
