/*
 * blast.c - a sender fast enough to saturate nfscope's live readers: the
 * frames of a capture, loaded into memory once, sent onto an interface
 * (one end of a veth pair in a namespace of bench/live.sh) through an
 * AF_PACKET socket that bypasses the qdisc (PACKET_QDISC_BYPASS), in
 * batches of sendmmsg(2), at a given rate or flat out, the file looped.
 *
 * Each frame goes out as captured (its caplen bytes; a frame the capture
 * cut short is sent short and counted), in the file's order, without its
 * timing.  The rate is a token bucket over batches: a batch of b frames
 * leaves once the clock since the start allows sent + b frames at PPS,
 * with at most a millisecond's worth of frames in a batch, so bursts stay
 * short; a sender that cannot keep up sends flat out and says what it
 * reached.  On a veth pair the receiving side's kernel work (the packet
 * sockets' filters and rings of the readers) runs in the sender's
 * softirq, on the sender's CPU.
 *
 * usage: blast [-r PPS] [-n LOOPS] [-t SECONDS] [-b BATCH] [-q] IFACE FILE
 *   -r PPS      frames a second (default 0: flat out)
 *   -n LOOPS    passes over the file (default 1; 0: until -t or SIGINT)
 *   -t SECONDS  stop after this long (default: no limit)
 *   -b BATCH    frames a sendmmsg at most (default 64, at most 1024)
 *   -q          no line a second on stderr
 * stdout, one line at the end:
 *   sent P frames B bytes in S s: R frames/s M Mbit/s, L loops, E retries,
 *   C cut, cpu U s
 * (U: blast's user and system time, which holds the receiving side's
 * kernel work its softirqs did, unless the kernel counts softirq time
 * apart).  Exit 0 when every frame asked was sent; 1 on an error (said on stderr);
 * 2 on bad usage.  Needs CAP_NET_RAW.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <net/if.h>
#include <pcap/pcap.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifdef __linux__
#include <linux/if_packet.h>
#include <net/ethernet.h>
#endif

#define BLAST_BATCH_MAX 1024
#define NS_PER_S 1000000000LL

static volatile sig_atomic_t blast_stop;

/* the capture in memory: frame i is data[off[i] .. off[i] + len[i]) */
struct frames {
	unsigned char *data;
	size_t *off;
	size_t *len;
	size_t n, cap, bytes, used, cut;
};

struct opts {
	double pps;
	uint64_t loops;
	double seconds;
	unsigned batch;
	int quiet;
	const char *ifname, *path;
};

/* what was sent: totals and the current second's */
struct tally {
	uint64_t frames, bytes, retries, loops;
	uint64_t sec_frames, sec_bytes;
	long long start, next_print;
};

static void on_signal(int sig)
{
	(void)sig;
	blast_stop = 1;
}

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * NS_PER_S + t.tv_nsec;
}

static void sleep_until(long long ns)
{
	struct timespec t = { .tv_sec = ns / NS_PER_S, .tv_nsec = ns % NS_PER_S };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR &&
	       !blast_stop)
		;
}

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap ? *cap : 4096;
	void *q;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	if ((q = realloc(*p, c * size)) == NULL)
		return -1;
	*p = q;
	*cap = c;
	return 0;
}

static int frames_add(struct frames *f, const struct pcap_pkthdr *h,
		      const unsigned char *p, size_t *data_cap)
{
	size_t cap = f->cap;

	if (grow((void **)&f->off, &cap, f->n + 1, sizeof(*f->off)) < 0)
		return -1;
	cap = f->cap;
	if (grow((void **)&f->len, &cap, f->n + 1, sizeof(*f->len)) < 0)
		return -1;
	f->cap = cap;
	if (grow((void **)&f->data, data_cap, f->used + h->caplen, 1) < 0)
		return -1;
	memcpy(f->data + f->used, p, h->caplen);
	f->off[f->n] = f->used;
	f->len[f->n] = h->caplen;
	f->used += h->caplen;
	f->bytes += h->caplen;
	f->cut += h->caplen < h->len;
	f->n++;
	return 0;
}

static int frames_load(struct frames *f, const char *path)
{
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const unsigned char *p;
	size_t data_cap = 0;
	struct stat st;
	pcap_t *pc;
	int rc;

	if ((pc = pcap_open_offline(path, err)) == NULL) {
		fprintf(stderr, "blast: %s\n", err);
		return -1;
	}
	/* the frames take less than the file: one allocation, no copies */
	if (stat(path, &st) == 0 && st.st_size > 0 &&
	    grow((void **)&f->data, &data_cap, (size_t)st.st_size, 1) < 0) {
		fprintf(stderr, "blast: %s: out of memory\n", path);
		pcap_close(pc);
		return -1;
	}
	while ((rc = pcap_next_ex(pc, &h, &p)) == 1) {
		if (h->caplen == 0)
			continue;
		if (frames_add(f, h, p, &data_cap) < 0) {
			fprintf(stderr, "blast: %s: out of memory\n", path);
			pcap_close(pc);
			return -1;
		}
	}
	if (rc == PCAP_ERROR)
		fprintf(stderr, "blast: %s: %s\n", path, pcap_geterr(pc));
	pcap_close(pc);
	if (rc == PCAP_ERROR)
		return -1;
	if (f->n == 0) {
		fprintf(stderr, "blast: %s: no frame\n", path);
		return -1;
	}
	return 0;
}

static void frames_free(struct frames *f)
{
	free(f->data);
	free(f->off);
	free(f->len);
}

#ifdef __linux__
/* a packet socket bound to IFACE that receives nothing (protocol 0) and
 * hands frames to the driver, not the qdisc */
static int open_sender(const char *ifname)
{
	struct sockaddr_ll a = { .sll_family = AF_PACKET };
	int one = 1, sndbuf = 4 << 20;
	int fd;

	if ((a.sll_ifindex = (int)if_nametoindex(ifname)) == 0) {
		fprintf(stderr, "blast: %s: %s\n", ifname, strerror(errno));
		return -1;
	}
	if ((fd = socket(AF_PACKET, SOCK_RAW, 0)) < 0) {
		fprintf(stderr, "blast: packet socket: %s\n", strerror(errno));
		return -1;
	}
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one)) < 0) {
		fprintf(stderr, "blast: %s: %s\n", ifname, strerror(errno));
		close(fd);
		return -1;
	}
	/* a larger buffer only lets more frames wait in the kernel */
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	return fd;
}
#else
static int open_sender(const char *ifname)
{
	fprintf(stderr, "blast: %s: AF_PACKET is Linux only\n", ifname);
	return -1;
}
#endif

static void tally_print_second(struct tally *t, long long now, int quiet)
{
	if (now < t->next_print)
		return;
	if (!quiet)
		fprintf(stderr, "blast: %.0f s: %llu frames %llu bytes\n",
			(double)(t->next_print - t->start) / NS_PER_S,
			(unsigned long long)t->sec_frames,
			(unsigned long long)t->sec_bytes);
	t->sec_frames = t->sec_bytes = 0;
	while (t->next_print <= now)
		t->next_print += NS_PER_S;
}

/* frames i .. i + n - 1 of f in one sendmmsg (what the kernel took may be
 * fewer: the rest go again); the frames taken, or -1 */
static int send_batch(int fd, const struct frames *f, size_t i, unsigned n,
		      struct tally *t)
{
	struct mmsghdr m[BLAST_BATCH_MAX];
	struct iovec v[BLAST_BATCH_MAX];
	unsigned k;
	int got;

	memset(m, 0, n * sizeof(m[0]));
	for (k = 0; k < n; k++) {
		v[k].iov_base = f->data + f->off[i + k];
		v[k].iov_len = f->len[i + k];
		m[k].msg_hdr.msg_iov = &v[k];
		m[k].msg_hdr.msg_iovlen = 1;
	}
	got = sendmmsg(fd, m, n, 0);
	if (got < 0) {
		if (errno == ENOBUFS || errno == EAGAIN || errno == EINTR) {
			t->retries++;
			sched_yield();
			return 0;
		}
		fprintf(stderr, "blast: send frame %zu: %s\n", i + 1, strerror(errno));
		return -1;
	}
	for (k = 0; k < (unsigned)got; k++) {
		t->bytes += f->len[i + k];
		t->sec_bytes += f->len[i + k];
	}
	t->frames += (unsigned)got;
	t->sec_frames += (unsigned)got;
	return got;
}

/* frames in the next batch: the batch, less at the end of the file, at a
 * rate at most a millisecond's worth */
static unsigned batch_size(const struct opts *o, const struct frames *f, size_t i)
{
	unsigned b = o->batch;

	if (o->pps > 0 && o->pps / 1000 < b)
		b = o->pps < 1000 ? 1 : (unsigned)(o->pps / 1000);
	if (b > f->n - i)
		b = (unsigned)(f->n - i);
	return b;
}

static int out_of_time(const struct opts *o, const struct tally *t, long long now)
{
	return o->seconds > 0 && now - t->start >= (long long)(o->seconds * NS_PER_S);
}

static int blast(int fd, const struct opts *o, const struct frames *f, struct tally *t)
{
	size_t i = 0;
	long long now;

	t->start = now_ns();
	t->next_print = t->start + NS_PER_S;
	while (!blast_stop) {
		unsigned b = batch_size(o, f, i);
		int got;

		if (o->pps > 0)
			sleep_until(t->start + (long long)((double)(t->frames + b) / o->pps * NS_PER_S));
		now = now_ns();
		if (out_of_time(o, t, now) || blast_stop)
			break;
		tally_print_second(t, now, o->quiet);
		if ((got = send_batch(fd, f, i, b, t)) < 0)
			return -1;
		i += (unsigned)got;
		if (i == f->n) {
			i = 0;
			if (++t->loops == o->loops)
				break;
		}
	}
	return 0;
}

static int parse_num(const char *s, double lo, double hi, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return errno || end == s || *end || *v < lo || *v > hi ? -1 : 0;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	double v;
	int c;

	*o = (struct opts){ .loops = 1, .batch = 64 };
	while ((c = getopt(argc, argv, "r:n:t:b:q")) != -1) {
		switch (c) {
		case 'r':
			if (parse_num(optarg, 0, 1e9, &o->pps) < 0)
				return -1;
			break;
		case 'n':
			if (parse_num(optarg, 0, 1e12, &v) < 0)
				return -1;
			o->loops = (uint64_t)v;
			break;
		case 't':
			if (parse_num(optarg, 0, 1e7, &o->seconds) < 0)
				return -1;
			break;
		case 'b':
			if (parse_num(optarg, 1, BLAST_BATCH_MAX, &v) < 0)
				return -1;
			o->batch = (unsigned)v;
			break;
		case 'q':
			o->quiet = 1;
			break;
		default:
			return -1;
		}
	}
	if (argc - optind != 2)
		return -1;
	o->ifname = argv[optind];
	o->path = argv[optind + 1];
	return 0;
}

/* user and system seconds since *base (the CPU the load took before) */
static double cpu_seconds(double base)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return 0;
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6 - base;
}

static void print_summary(const struct tally *t, const struct frames *f, double cpu0)
{
	double s = (double)(now_ns() - t->start) / NS_PER_S;

	printf("sent %llu frames %llu bytes in %.3f s: %.0f frames/s %.1f Mbit/s, "
	       "%llu loops, %llu retries, %llu cut, cpu %.3f s\n",
	       (unsigned long long)t->frames, (unsigned long long)t->bytes, s,
	       s > 0 ? (double)t->frames / s : 0, s > 0 ? (double)t->bytes * 8 / s / 1e6 : 0,
	       (unsigned long long)t->loops, (unsigned long long)t->retries,
	       (unsigned long long)f->cut, cpu_seconds(cpu0));
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct frames f = { 0 };
	struct tally t = { 0 };
	struct opts o;
	double cpu0;
	int fd, rc;

	if (parse_opts(argc, argv, &o) < 0) {
		fputs("usage: blast [-r PPS] [-n LOOPS] [-t SECONDS] [-b BATCH] [-q] "
		      "IFACE FILE\n", stderr);
		return 2;
	}
	if (frames_load(&f, o.path) < 0) {
		frames_free(&f);
		return 1;
	}
	if ((fd = open_sender(o.ifname)) < 0) {
		frames_free(&f);
		return 1;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	cpu0 = cpu_seconds(0);
	rc = blast(fd, &o, &f, &t);
	print_summary(&t, &f, cpu0);
	close(fd);
	frames_free(&f);
	return rc < 0 ? 1 : 0;
}
