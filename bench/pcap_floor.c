/*
 * pcap_floor.c - the benchmark floor: read every packet of a capture with
 * libpcap and touch its bytes, nothing else.  Prints packets, bytes and the
 * time taken; `nfscope report` and the other tools are timed against it.
 */
#include <pcap/pcap.h>
#include <stdint.h>
#include <stdio.h>
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

	if (argc != 2) {
		fputs("usage: pcap_floor FILE\n", stderr);
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pc = pcap_open_offline_with_tstamp_precision(argv[1], PCAP_TSTAMP_PRECISION_NANO, err);
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
