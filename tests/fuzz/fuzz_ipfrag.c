/*
 * fuzz_ipfrag.c - IPv4/IPv6 fragment reassembly (capture/ipfrag.c).
 *
 * Input: a sequence of frames, each
 *     u16 length (big-endian), u8 flags, length bytes of frame
 * flags bit 0: raw IPv4/IPv6 (else Ethernet); bits 1-2: cut caplen to
 * 1/2, 1/4, 1/8 of the frame (snaplen); bits 3-5: timestamp step
 * (0..7 s) so idle expiry runs.  Small budgets force eviction, ooo
 * overflow, resyncs and truncated records.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "capture/capture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool probe(void *user, const struct cap_msg *m)
{
	const uint8_t *p = m->data;
	size_t caplen = m->caplen;

	(void)user;
	if (caplen < 12)
		return false;
	if (p[4] || p[5] || p[6] || p[7] > 1)
		return false;
	return p[7] == 1 || (!p[8] && !p[9] && !p[10] && p[11] == 2);
}

static void on_msg(void *user, const struct cap_msg *m)
{
	uint64_t *sum = user;
	uint32_t i;

	/* touch every byte: the sanitizers check the bounds */
	for (i = 0; i < m->caplen; i++)
		*sum += m->data[i];
	if (m->caplen > m->len)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cap_config cfg;
	struct cap_pipe *p;
	uint64_t sum = 0;
	int64_t ts = 1000000000;
	size_t off = 0;

	memset(&cfg, 0, sizeof(cfg));
	cfg.flows_max = 4;
	cfg.ooo_mem_max = 2048;
	cfg.record_keep = 1024;
	cfg.flow_idle_ms = 3000;
	cfg.frag_mem_max = 4096 + 2 * 1100;
	cfg.frag_timeout_ms = 2000;
	cfg.probe = size > 0 && (data[0] & 1) ? NULL : probe;
	p = cap_pipe_new(&cfg, on_msg, &sum);
	if (!p)
		return 0;
	while (3 <= size - off) {
		struct cap_pkt pkt;
		uint32_t n = (uint32_t)data[off] << 8 | data[off + 1];
		uint8_t fl = data[off + 2];

		off += 3;
		if (n > size - off)
			n = (uint32_t)(size - off);
		pkt.linktype = (fl & 1) ? 101 : 1;
		pkt.len = n;
		pkt.caplen = n >> ((fl >> 1) & 3);
		ts += (int64_t)((fl >> 3) & 7) * 1000000000;
		pkt.ts_ns = ts;
		pkt.data = data + off;
		cap_pipe_feed(p, &pkt);
		off += n;
	}
	cap_pipe_flush(p);
	cap_pipe_free(p);
	return 0;
}
