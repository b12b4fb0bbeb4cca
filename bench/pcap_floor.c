/*
 * pcap_floor.c - the benchmark floor: read every packet of a capture with
 * libpcap and touch its bytes, nothing else.  Prints packets, bytes and the
 * time taken; `nfscope report` and the other tools are timed against it.
 *
 * usage: pcap_floor [-b] FILE
 * -b gives the file a 1 MiB stdio buffer (libpcap's own
 * pcap_open_offline leaves stdio's 4 KiB: a read(2) every few packets).
 */
#include <pcap/pcap.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *p;
	uint64_t n = 0, bytes = 0, sum = 0;
	struct timespec t0, t1;
	pcap_t *pc;
	int rc;

	static char buf[1 << 20];
	int big = argc == 3 && strcmp(argv[1], "-b") == 0;
	const char *path = argv[argc - 1];
	FILE *f;

	if (argc != 2 && !big) {
		fputs("usage: pcap_floor [-b] FILE\n", stderr);
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (big) {
		if ((f = fopen(path, "rb")) == NULL) {
			perror(path);
			return 1;
		}
		setvbuf(f, buf, _IOFBF, sizeof(buf));
		pc = pcap_fopen_offline_with_tstamp_precision(f,
				PCAP_TSTAMP_PRECISION_NANO, err);
	} else {
		pc = pcap_open_offline_with_tstamp_precision(path,
				PCAP_TSTAMP_PRECISION_NANO, err);
	}
	if (pc == NULL) {
		fprintf(stderr, "pcap_floor: %s\n", err);
		return 1;
	}
	while ((rc = pcap_next_ex(pc, &h, &p)) == 1) {
		n++;
		bytes += h->caplen;
		if (h->caplen)
			sum += p[0] + p[h->caplen - 1];	/* touch the packet */
	}
	if (rc == PCAP_ERROR)
		fprintf(stderr, "pcap_floor: %s\n", pcap_geterr(pc));
	pcap_close(pc);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%llu packets %llu bytes %.3f s (check %llu)\n", (unsigned long long)n,
	       (unsigned long long)bytes, (double)(t1.tv_sec - t0.tv_sec) +
	       (double)(t1.tv_nsec - t0.tv_nsec) / 1e9, (unsigned long long)sum);
	return rc == PCAP_ERROR;
}
