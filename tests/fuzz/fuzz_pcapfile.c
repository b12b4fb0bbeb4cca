/*
 * fuzz_pcapfile.c - capture/pcapfile.c, the fast pcap file reader, against
 * libpcap on the same bytes: every packet the fast reader hands out must
 * be the packet libpcap reads there (time, lengths, bytes), and where it
 * stops, libpcap's file position must be the record it stopped at (where
 * source.c hands the file over).  A difference aborts.
 */
#define _GNU_SOURCE
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "capture/capture_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool ok)
{
	if (!ok)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *d;
	struct cap_file *f;
	struct cap_pkt pkt;
	pcap_t *pc;
	FILE *fp;
	int fd, n = 0;

	if (size < 24)
		return 0;
	fd = memfd_create("fuzz_pcapfile", 0);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	fp = fmemopen((void *)data, size, "rb");
	if (fp == NULL) {
		close(fd);
		return 0;
	}
	pc = pcap_fopen_offline_with_tstamp_precision(fp,
			PCAP_TSTAMP_PRECISION_NANO, err);
	if (pc == NULL) {
		fclose(fp);
		close(fd);
		return 0;
	}
	f = cap_file_new(fd, data, pcap_snapshot(pc));
	while (f != NULL && n < 100000 && cap_file_next(f, &pkt) == 1) {
		check(pcap_next_ex(pc, &h, &d) == 1);
		check(pkt.ts_ns == (int64_t)h->ts.tv_sec * 1000000000 +
				   (int64_t)h->ts.tv_usec);
		check(pkt.caplen == h->caplen && pkt.len == h->len);
		check(memcmp(pkt.data, d, pkt.caplen) == 0);
		n++;
	}
	if (f != NULL && n < 100000)
		check(ftell(pcap_file(pc)) == (long)cap_file_pos(f));
	cap_file_free(f);
	pcap_close(pc);		/* closes fp */
	close(fd);
	return 0;
}
