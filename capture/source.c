/*
 * source.c - a libpcap handle (file, stdin or live interface) feeding a
 * cap_pipe, plus the address helpers.
 *
 * Live setup follows libpcap's recommended order: pcap_create, every
 * setter checked, pcap_activate (warnings > 0 reported, errors < 0 with
 * pcap_statustostr + pcap_geterr), then the filter.  Timestamps are asked
 * for in nanoseconds; if the platform cannot, microseconds are scaled.
 *
 * Offline, a file compressed with gzip, zstd, xz or bzip2 (found by its
 * magic bytes, not its name) is read through its library (zfile.c: no
 * temporary file); its offsets are of the uncompressed data.  Several
 * files (a tcpdump -C/-G ring) are one source: read one after another in
 * the order of their first packet, each with the filter.  Files that
 * overlap in time (captures of two mirror ports) are merged by timestamp,
 * as mergecap does: the first packet that comes after the next file's
 * first one starts the merge, from where every file that has begun is
 * open at once and the earliest packet goes first (ties: the file that
 * sorts first).  A frame found twice (the same time to the nanosecond and
 * the same bytes, in two files: one capture's files given twice or cut
 * overlapping) is taken once and counted.  A damaged file stops the
 * reading with a read error: the files after it are not read (the
 * message says how many).
 */
#define _GNU_SOURCE		/* fopencookie */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <pcap/pcap.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>

#include "capture/capture_int.h"
#include "base/hash.h"
#include "base/units.h"

#define BATCH 1024		/* packets between checks of *stop */

/* Owned by the caller; owns the pcap handle. */
#define CAP_IOBUF (1 << 20)	/* stdio buffer of an offline file */

struct cap_source {
	pcap_t *pc;
	char *iobuf;		/* the file's stdio buffer (offline), owned */
	struct cap_file *ff;	/* fast reader (pcapfile.c) until it hands
				   the file back to libpcap; owned */
	bool live;
	enum cap_zkind gz;	/* the file's compression (zfile.c) */
	const struct cap_zstate *zst;	/* its decoder's state, owned by
					   the file (zfile.c), NULL */
	bool nano;		/* tv_usec holds nanoseconds */
	bool nonblock;		/* current pcap_setnonblock state */
	int linktype;
	uint64_t count;		/* stop after this many packets, 0: never */
	uint64_t seen;
	uint64_t file_size;
	struct cap_pipe *pipe;	/* borrowed during cap_run/cap_step */
	/* --duration: offline by capture time, live by wall time */
	int64_t duration_ns;
	int64_t first_ts_ns;	/* offline: first packet's time */
	int64_t deadline_ns;	/* live: CLOCK_MONOTONIC, set at first read */
	bool done;		/* stopped for good (file end, count, duration) */
	volatile sig_atomic_t *stop;	/* cap_source_set_stop; borrowed */
	/* where a read error left the file (cap_source_read_error) */
	FILE *seek_fp;		/* the file, if regular (ftello works); borrowed */
	int64_t good_off;	/* offset after the last whole packet, -1 */
	bool failed;		/* reading stopped on an error */
	char why[CAP_ERRBUF_SIZE];
	/* offline, several files: paths (the array owned, the strings
	   borrowed) in the order of first_ts, the one open is cur */
	const char **paths;
	int64_t *first_ts;
	uint32_t npaths, cur;
	struct cap_config cfg;	/* copied: each file gets the filter */
	int64_t max_ts_ns;	/* latest packet time read so far */
	int64_t next_first;	/* first_ts of the file after cur (INT64_MAX) */
	/* overlapping files, merged by timestamp (merge_*) */
	bool merge_pending;	/* a packet is held: the merge starts */
	bool merging;
	uint8_t *held;		/* that packet's bytes, owned */
	struct cap_pkt held_pkt;
	struct mfile *mf;	/* files open at once, nmf of them, owned */
	uint32_t nmf, next_open;	/* next_open: first path not opened */
	uint32_t merged;	/* files read merged with another */
	uint64_t dup_frames;	/* frames found twice, taken once */
	uint64_t last_hash;	/* the last packet taken while merging */
	int64_t last_ts;
	uint32_t last_file;
	/* pcap_stats samples: libpcap's counters are 32 bits and wrap */
	uint32_t last_recv, last_drop, last_ifdrop;
	uint64_t recv, drop, ifdrop;
	int64_t last_sample_ns;	/* CLOCK_REALTIME */
};

static void close_file(struct cap_source *s);

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static int apply_filter(pcap_t *pc, const char *filter, bpf_u_int32 mask,
			char *errbuf)
{
	struct bpf_program prog;

	if (!filter || !*filter)
		return 0;
	if (pcap_compile(pc, &prog, filter, 1, mask) < 0) {
		snprintf(errbuf, CAP_ERRBUF_SIZE, "bad filter '%s': %s",
			 filter, pcap_geterr(pc));
		return -1;
	}
	if (pcap_setfilter(pc, &prog) < 0) {
		snprintf(errbuf, CAP_ERRBUF_SIZE, "cannot set filter '%s': %s",
			 filter, pcap_geterr(pc));
		pcap_freecode(&prog);
		return -1;
	}
	pcap_freecode(&prog);
	return 0;
}

static struct cap_source *source_new(pcap_t *pc, const struct cap_config *cfg,
				     bool live, char *errbuf)
{
	struct cap_source *s;

	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(errbuf, CAP_ERRBUF_SIZE, "out of memory");
		pcap_close(pc);
		return NULL;
	}
	s->pc = pc;
	s->live = live;
	s->next_first = INT64_MAX;	/* one source: nothing to merge */
	s->linktype = pcap_datalink(pc);
	s->count = cfg ? cfg->count : 0;
	s->duration_ns = cfg ? cfg->duration_ns : 0;
	s->last_sample_ns = clock_ns(CLOCK_REALTIME);
	s->nano = pcap_get_tstamp_precision(pc) == PCAP_TSTAMP_PRECISION_NANO;
	if (!cap_linktype_ok(s->linktype, errbuf)) {
		cap_close(s);
		return NULL;
	}
	return s;
}

/* errbuf = "path: errbuf", cut to CAP_ERRBUF_SIZE */
static void name_file(char *errbuf, const char *path)
{
	char m[CAP_ERRBUF_SIZE];
	size_t n = strlen(path), k;

	memcpy(m, errbuf, sizeof(m));
	m[sizeof(m) - 1] = '\0';
	if (n > CAP_ERRBUF_SIZE - 3)
		n = CAP_ERRBUF_SIZE - 3;
	memcpy(errbuf, path, n);
	errbuf[n++] = ':';
	errbuf[n++] = ' ';
	k = strnlen(m, CAP_ERRBUF_SIZE - 1 - n);
	memcpy(errbuf + n, m, k);
	errbuf[n + k] = '\0';
}

/* A file open while overlapping files are merged. */
struct mfile {
	pcap_t *pc;
	char *iobuf;
	FILE *seek_fp;
	enum cap_zkind gz;
	const struct cap_zstate *zst;	/* owned by the file, NULL */
	bool nano;
	int linktype;
	uint32_t idx;		/* in paths */
	struct cap_pkt head;	/* its next packet: data is libpcap's (valid
				   until the next read) or the held copy */
	int64_t next_off;	/* offset after head, -1 */
};

/* ------------------------------------------------------------ offline -- */

/*
 * Open path as the current file of s (pc, its buffer, the fast reader,
 * the offsets), with the filter of cfg.  Returns 0, or -1 with errbuf
 * ("path: what"); s then holds no file.
 */
static int open_file(struct cap_source *s, const char *path,
		     const struct cap_config *cfg, char *errbuf)
{
	char pe[PCAP_ERRBUF_SIZE] = "";
	uint8_t hdr[24];
	struct stat st;
	enum cap_zkind gz;
	const struct cap_zstate *zst;
	bool fast;
	char *buf;
	FILE *fp;
	pcap_t *pc;

	errbuf[0] = '\0';
	/*
	 * The file is opened here, not by pcap_open_offline.  A classic pcap
	 * file in this machine's byte order, read with no filter, is read by
	 * pcapfile.c (libpcap reads its header and takes over from the
	 * first record that reader leaves to it).  Any other file gets a
	 * 1 MiB stdio buffer: libpcap reads each record header and packet
	 * with its own fread, which with the default 4 KiB buffer costs a
	 * read(2) every few packets (350,000 of them for a 1.4 GB capture).
	 * "-" is stdin, as for libpcap.  Every message names the file.
	 */
	if ((fp = cap_zopen(path, cfg ? cfg->decompress_mem : 0, &gz, &zst,
			    errbuf)) == NULL)
		return -1;
	fast = fp != stdin && gz == CAP_Z_NONE && !s->merging &&
	       !(cfg && cfg->filter && *cfg->filter) &&
	       fstat(fileno(fp), &st) == 0 && S_ISREG(st.st_mode) &&
	       pread(fileno(fp), hdr, sizeof(hdr), 0) == (ssize_t)sizeof(hdr) &&
	       cap_file_header_ok(hdr);
	/* glibc takes the size only with a buffer of ours (without one,
	   stdio's default stays); not for stdin, which pcap_close leaves
	   open and which would outlive the buffer */
	buf = fp != stdin && !fast ? malloc(CAP_IOBUF) : NULL;
	if (buf != NULL)
		setvbuf(fp, buf, _IOFBF, CAP_IOBUF);
	pc = pcap_fopen_offline_with_tstamp_precision(fp,
			PCAP_TSTAMP_PRECISION_NANO, pe);
	if (!pc) {
		snprintf(errbuf, CAP_ERRBUF_SIZE, "%s: %s", path,
			 zst && zst->damaged ? zst->why : pe);
		if (fp != stdin)
			fclose(fp);
		free(buf);
		return -1;
	}
	s->pc = pc;
	s->iobuf = buf;
	s->gz = gz;
	s->zst = zst;
	s->linktype = pcap_datalink(pc);
	s->nano = pcap_get_tstamp_precision(pc) == PCAP_TSTAMP_PRECISION_NANO;
	fp = pcap_file(pc);
	s->good_off = -1;
	s->seek_fp = NULL;
	s->file_size = 0;
	if (fp && gz != CAP_Z_NONE) {
		s->seek_fp = fp;	/* offsets of the uncompressed data */
		s->good_off = (int64_t)ftello(fp);
	} else if (fp && fstat(fileno(fp), &st) == 0 && S_ISREG(st.st_mode)) {
		s->file_size = (uint64_t)st.st_size;
		s->seek_fp = fp;
		/* past the file header (pcapng: and the blocks libpcap
		   read before the first packet) */
		s->good_off = (int64_t)ftello(fp);
	}
	if (!cap_linktype_ok(s->linktype, errbuf) ||
	    (cfg && apply_filter(pc, cfg->filter, PCAP_NETMASK_UNKNOWN,
				 errbuf) < 0)) {
		close_file(s);
		name_file(errbuf, path);
		return -1;
	}
	/* NULL (no memory): libpcap reads it all */
	if (fast && fp)
		s->ff = cap_file_new(fileno(fp), hdr, pcap_snapshot(pc));
	return 0;
}

/* The time of path's first packet (INT64_MAX: none, or unreadable: it
 * then fails when its turn comes). */
static int64_t first_time(const char *path)
{
	char pe[PCAP_ERRBUF_SIZE], e[CAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *d;
	int64_t t = INT64_MAX;
	enum cap_zkind gz;
	FILE *fp = cap_zopen(path, 0, &gz, NULL, e);
	pcap_t *pc;

	if (fp == NULL)
		return t;
	pc = pcap_fopen_offline_with_tstamp_precision(fp,
			PCAP_TSTAMP_PRECISION_NANO, pe);
	if (pc == NULL) {
		fclose(fp);
		return t;
	}
	if (pcap_next_ex(pc, &h, &d) == 1)
		t = cap_ts_ns(h->ts.tv_sec,
			      pcap_get_tstamp_precision(pc) ==
			      PCAP_TSTAMP_PRECISION_NANO ? h->ts.tv_usec :
			      (int64_t)h->ts.tv_usec * 1000);
	pcap_close(pc);
	return t;
}

struct cap_source *cap_open_offline(const char *path,
				    const struct cap_config *cfg,
				    char *errbuf)
{
	return cap_open_files(&path, 1, cfg, errbuf);
}

struct cap_source *cap_open_files(const char *const *paths, uint32_t n,
				  const struct cap_config *cfg, char *errbuf)
{
	struct cap_source *s = calloc(1, sizeof(*s));
	uint32_t i, j;

	errbuf[0] = '\0';
	if (s)
		s->paths = calloc(n, sizeof(*s->paths));
	if (s && s->paths)
		s->first_ts = calloc(n, sizeof(*s->first_ts));
	if (!s || !s->paths || !s->first_ts) {
		snprintf(errbuf, CAP_ERRBUF_SIZE, "out of memory");
		cap_close(s);
		return NULL;
	}
	s->npaths = n;
	if (cfg)
		s->cfg = *cfg;
	s->count = s->cfg.count;
	s->duration_ns = s->cfg.duration_ns;
	s->last_sample_ns = clock_ns(CLOCK_REALTIME);
	s->max_ts_ns = INT64_MIN;
	/* in the order of their first packet (insertion: a ring is small) */
	for (i = 0; i < n; i++) {
		int64_t t = n > 1 ? first_time(paths[i]) : 0;

		for (j = i; j > 0 && s->first_ts[j - 1] > t; j--) {
			s->paths[j] = s->paths[j - 1];
			s->first_ts[j] = s->first_ts[j - 1];
		}
		s->paths[j] = paths[i];
		s->first_ts[j] = t;
	}
	s->next_first = n > 1 ? s->first_ts[1] : INT64_MAX;
	if (open_file(s, s->paths[0], cfg, errbuf) < 0) {
		cap_close(s);
		return NULL;
	}
	return s;
}

static int live_fail(pcap_t *pc, const char *iface, const char *what,
		     int rc, char *errbuf)
{
	snprintf(errbuf, CAP_ERRBUF_SIZE, "%s: %s: %s (%s)", iface, what,
		 pcap_statustostr(rc), pcap_geterr(pc));
	pcap_close(pc);
	/* the caller explains how to get the privilege (see capture.h) */
	errno = rc == PCAP_ERROR_PERM_DENIED ? EPERM : 0;
	return -1;
}

/*
 * Does the filter test the packet's direction (inbound, outbound)?  On a
 * link whose header does not carry it (Ethernet) libpcap compiles that to
 * a load of the kernel's packet-type metadata.  libpcap 1.10's TPACKET_V3
 * ring mishandles such a filter: the packets of the first block are lost
 * (counted received, neither delivered nor dropped: 799 of 20,000
 * datagrams with tcpdump too) and later ones are not filtered by
 * direction.  Its immediate mode (a TPACKET_V2 ring) filters them right,
 * so such a capture keeps it.  Compiled here for Ethernet, before the
 * capture is created (the mode must be chosen before activation); a
 * filter that does not compile is left to apply_filter's message.
 */
#define AD_PKTTYPE 0xfffff004u	/* <linux/filter.h> SKF_AD_OFF + SKF_AD_PKTTYPE */

static bool filter_tests_direction(const char *filter)
{
	struct bpf_program prog;
	bool yes = false;
	pcap_t *dead;
	u_int k;

	if (!filter || !*filter)
		return false;
	dead = pcap_open_dead(DLT_EN10MB, CAP_DEFAULT_SNAPLEN);
	if (!dead)
		return false;
	if (pcap_compile(dead, &prog, filter, 1, PCAP_NETMASK_UNKNOWN) == 0) {
		for (k = 0; k < prog.bf_len; k++) {
			const struct bpf_insn *in = &prog.bf_insns[k];

			if (BPF_CLASS(in->code) == BPF_LD &&
			    BPF_MODE(in->code) == BPF_ABS &&
			    in->k == AD_PKTTYPE)
				yes = true;
		}
		pcap_freecode(&prog);
	}
	pcap_close(dead);
	return yes;
}

struct cap_source *cap_open_live(const char *iface,
				 const struct cap_config *cfg,
				 char *errbuf, char *warnbuf)
{
	char pe[PCAP_ERRBUF_SIZE] = "";
	bpf_u_int32 net = 0, mask = PCAP_NETMASK_UNKNOWN;
	struct cap_config def;
	pcap_t *pc;
	int rc;

	errbuf[0] = '\0';
	errno = 0;
	if (warnbuf)
		warnbuf[0] = '\0';
	if (!cfg) {
		memset(&def, 0, sizeof(def));
		cfg = &def;
	}
	pc = pcap_create(iface, pe);
	if (!pc) {
		snprintf(errbuf, CAP_ERRBUF_SIZE, "%s: %s", iface, pe);
		return NULL;
	}
	rc = pcap_set_snaplen(pc, cfg->snaplen > 0 ? cfg->snaplen
						  : CAP_DEFAULT_SNAPLEN);
	if (rc != 0) {
		live_fail(pc, iface, "set snaplen", rc, errbuf);
		return NULL;
	}
	rc = pcap_set_promisc(pc, cfg->promisc);
	if (rc != 0) {
		live_fail(pc, iface, "set promisc", rc, errbuf);
		return NULL;
	}
	if (cfg->immediate || filter_tests_direction(cfg->filter)) {
		rc = pcap_set_immediate_mode(pc, 1);
		if (rc != 0) {
			live_fail(pc, iface, "set immediate mode", rc, errbuf);
			return NULL;
		}
	}
	rc = pcap_set_timeout(pc, cfg->timeout_ms > 0 ? cfg->timeout_ms
						       : CAP_DEFAULT_TIMEOUT_MS);
	if (rc != 0) {
		live_fail(pc, iface, "set timeout", rc, errbuf);
		return NULL;
	}
	rc = pcap_set_buffer_size(pc, (cfg->buffer_kib > 0 ? cfg->buffer_kib
				      : CAP_DEFAULT_BUFFER_KIB) * 1024);
	if (rc != 0) {
		live_fail(pc, iface, "set buffer size", rc, errbuf);
		return NULL;
	}
	/* nanoseconds if the platform can; not an error otherwise */
	(void)pcap_set_tstamp_precision(pc, PCAP_TSTAMP_PRECISION_NANO);
	rc = pcap_activate(pc);
	if (rc < 0) {
		live_fail(pc, iface, "activate", rc, errbuf);
		return NULL;
	}
	if (rc > 0 && warnbuf)
		snprintf(warnbuf, CAP_ERRBUF_SIZE, "%s: %s%s%s", iface,
			 pcap_statustostr(rc), rc == PCAP_WARNING ? ": " : "",
			 rc == PCAP_WARNING ? pcap_geterr(pc) : "");
	if (cfg->filter && *cfg->filter &&
	    pcap_lookupnet(iface, &net, &mask, pe) < 0)
		mask = PCAP_NETMASK_UNKNOWN;
	if (apply_filter(pc, cfg->filter, mask, errbuf) < 0) {
		pcap_close(pc);
		errno = 0;
		return NULL;
	}
	errno = 0;
	return source_new(pc, cfg, true, errbuf);
}

static void close_file(struct cap_source *s)
{
	cap_file_free(s->ff);
	s->ff = NULL;
	if (s->pc)
		pcap_close(s->pc);	/* closes the file before its buffer goes */
	s->pc = NULL;
	s->seek_fp = NULL;
	s->zst = NULL;
	free(s->iobuf);
	s->iobuf = NULL;
}

static void merge_close(struct cap_source *s);
static int fast_hand_back(struct cap_source *s, char *errbuf);

void cap_close(struct cap_source *s)
{
	if (!s)
		return;
	close_file(s);
	merge_close(s);
	free(s->paths);
	free(s->first_ts);
	free(s);
}

/* The packet that comes at or after the next file's first one: kept (copied:
 * the reader's buffer goes on) for the merge, which starts when the
 * current read returns.  False without memory (the packet is then read
 * as if the files did not overlap). */
static bool hold(struct cap_source *s, const struct cap_pkt *pkt)
{
	s->held = malloc(pkt->caplen ? pkt->caplen : 1);
	if (s->held == NULL) {
		s->next_first = INT64_MAX;
		return false;
	}
	memcpy(s->held, pkt->data, pkt->caplen);
	s->held_pkt = *pkt;
	s->held_pkt.data = s->held;
	s->merge_pending = true;
	return true;
}

/* Take one packet; false if it is past --duration (done) or begins the
 * merge of overlapping files (held). */
static bool take(struct cap_source *s, struct cap_pkt *pkt)
{
	pkt->linktype = s->linktype;
	if (pkt->ts_ns >= s->next_first && hold(s, pkt))
		return false;
	if (s->duration_ns && !s->live) {
		if (s->seen == 0)
			s->first_ts_ns = pkt->ts_ns;
		else if (pkt->ts_ns - s->first_ts_ns >= s->duration_ns) {
			s->done = true;	/* this packet is past the end */
			return false;
		}
	}
	s->seen++;
	if (pkt->ts_ns > s->max_ts_ns)
		s->max_ts_ns = pkt->ts_ns;
	cap_pipe_feed(s->pipe, pkt);
	return true;
}

int64_t cap_ts_ns(int64_t sec, int64_t frac_ns)
{
	int64_t t;

	if (__builtin_mul_overflow(sec, (int64_t)NSEC_PER_SEC, &t) ||
	    __builtin_add_overflow(t, frac_ns, &t))
		return sec < 0 ? -CAP_TS_MAX : CAP_TS_MAX;
	return t < -CAP_TS_MAX ? -CAP_TS_MAX : t > CAP_TS_MAX ? CAP_TS_MAX : t;
}

static bool stop_asked(const struct cap_source *s)
{
	return s->stop && *s->stop;
}

static void on_packet(u_char *user, const struct pcap_pkthdr *h,
		      const u_char *bytes)
{
	struct cap_source *s = (struct cap_source *)user;
	struct cap_pkt pkt;
	int64_t frac = h->ts.tv_usec;

	/* libpcap gives a pcapng timestamp (64 bits in if_tsresol units,
	   plus if_tsoffset seconds) as any time_t: see cap_ts_ns */
	if (!s->nano && __builtin_mul_overflow(frac, (int64_t)1000, &frac))
		frac = frac < 0 ? -CAP_TS_MAX : CAP_TS_MAX;
	pkt.ts_ns = cap_ts_ns(h->ts.tv_sec, frac);
	pkt.caplen = h->caplen;
	pkt.len = h->len;
	pkt.data = bytes;
	if (!take(s, &pkt)) {
		pcap_breakloop(s->pc);
		return;
	}
	/* a regular file: where the next record or block begins (stdio
	   keeps the offset: no system call) */
	if (s->seek_fp)
		s->good_off = (int64_t)ftello(s->seek_fp);
	if (stop_asked(s))
		pcap_breakloop(s->pc);
}

/* At most max packets from the fast reader: the count taken, -1 (and
 * errbuf) if the file cannot be handed back.  When it stops, the file goes
 * back to libpcap at the record it stopped at. */
static int fast_dispatch(struct cap_source *s, int max, char *errbuf)
{
	struct cap_pkt pkt;
	int n = 0;

	while (n < max) {
		if (cap_file_next(s->ff, &pkt) <= 0) {
			if (fast_hand_back(s, errbuf) < 0)
				return -1;
			break;
		}
		if (!take(s, &pkt))
			break;
		n++;
		if (stop_asked(s))
			break;
	}
	return n;
}

static void set_nonblock(struct cap_source *s, bool on)
{
	char pe[PCAP_ERRBUF_SIZE];

	if (!s->live || s->nonblock == on)
		return;
	if (pcap_setnonblock(s->pc, on, pe) == 0)
		s->nonblock = on;
}

/* Reading stopped on an error: why, naming the file among several and
 * how many were left unread. */
static void fail(struct cap_source *s, const char *what)
{
	/* merging, the files after cur may be open already, read in part */
	uint32_t left = s->merging ? s->npaths - s->next_open :
			s->npaths > s->cur + 1 ? s->npaths - s->cur - 1 : 0;
	char gz[64] = "", z[CAP_ERRBUF_SIZE];

	if (s->zst && s->zst->damaged) {	/* what libpcap saw: EIO */
		snprintf(z, sizeof(z), "%.200s, found at compressed byte %" PRIu64
			 " (the %" PRIu64 " bytes decoded before it were read)",
			 s->zst->why, s->zst->in_off, s->zst->out_off);
		what = z;
	}
	if (s->gz != CAP_Z_NONE)
		snprintf(gz, sizeof(gz), " (%s: offsets in the uncompressed "
			 "data)", cap_zname(s->gz));

	s->failed = true;
	if (s->npaths > 1)
		snprintf(s->why, sizeof(s->why), "%.200s: %.200s%s; %u later "
			 "file%s not read", s->paths[s->cur], what, gz, left,
			 left == 1 ? "" : "s");
	else
		snprintf(s->why, sizeof(s->why), "%.400s%s", what, gz);
}

/* Open file cur of the ring.  0, or -1 (s->why). */
static int open_cur(struct cap_source *s, char *errbuf)
{
	s->gz = CAP_Z_NONE;
	s->zst = NULL;
	s->good_off = -1;	/* no byte of the next file is at fault */
	if (open_file(s, s->paths[s->cur], &s->cfg, errbuf) < 0) {
		char m[CAP_ERRBUF_SIZE];
		size_t k = strlen(s->paths[s->cur]);

		/* errbuf names the file already: fail() names it again */
		snprintf(m, sizeof(m), "%s", strncmp(errbuf, s->paths[s->cur],
				k) == 0 && errbuf[k] == ':' ? errbuf + k + 2 :
				errbuf);
		fail(s, m);
		return -1;
	}
	return 0;
}

/* The current file ended: open the next one.  0, or -1 (s->why).  It
 * does not begin before a packet already read: a packet after its first
 * one would have started the merge (take). */
static int next_file(struct cap_source *s, char *errbuf)
{
	close_file(s);
	s->cur++;
	s->next_first = s->cur + 1 < s->npaths ? s->first_ts[s->cur + 1]
					       : INT64_MAX;
	return open_cur(s, errbuf);
}

/* ------------------------------------------------ overlapping files -- */

/* 64-bit FNV-1a of a packet's captured bytes (frames found twice). */
static uint64_t pkt_hash(const struct cap_pkt *p)
{
	uint64_t h = 1469598103934665603ULL ^ p->caplen ^
		     ((uint64_t)p->len << 32);
	uint32_t i;

	for (i = 0; i < p->caplen; i++)
		h = (h ^ p->data[i]) * BASE_FNV64_PRIME;
	return h;
}

static void mfile_close(struct mfile *f)
{
	if (f->pc)
		pcap_close(f->pc);
	f->pc = NULL;
	f->zst = NULL;
	free(f->iobuf);
	f->iobuf = NULL;
}

static void merge_close(struct cap_source *s)
{
	uint32_t i;

	for (i = 0; i < s->nmf; i++)
		mfile_close(&s->mf[i]);
	free(s->mf);
	s->mf = NULL;
	s->nmf = 0;
	free(s->held);
	s->held = NULL;
}

/* Read f's next packet into its head: 1, 0 at its end, -1 on an error
 * (s->why names the file). */
static int mfile_next(struct cap_source *s, struct mfile *f)
{
	struct pcap_pkthdr *h;
	const u_char *d;
	int64_t frac;
	int rc = pcap_next_ex(f->pc, &h, &d);

	if (rc == PCAP_ERROR_BREAK)
		return 0;
	if (rc != 1) {
		char m[CAP_ERRBUF_SIZE];

		snprintf(m, sizeof(m), "%s", pcap_geterr(f->pc));
		s->cur = f->idx;
		s->gz = f->gz;
		s->zst = f->zst;
		s->good_off = f->next_off;
		s->seek_fp = NULL;
		fail(s, m);
		return -1;
	}
	frac = h->ts.tv_usec;
	if (!f->nano && __builtin_mul_overflow(frac, (int64_t)1000, &frac))
		frac = frac < 0 ? -CAP_TS_MAX : CAP_TS_MAX;
	f->head.linktype = f->linktype;
	f->head.ts_ns = cap_ts_ns(h->ts.tv_sec, frac);
	f->head.caplen = h->caplen;
	f->head.len = h->len;
	f->head.data = d;
	f->next_off = f->seek_fp ? (int64_t)ftello(f->seek_fp) : -1;
	return 1;
}

/* The file s holds open (s->pc ...) becomes merged file f. */
static void mfile_take(struct cap_source *s, struct mfile *f)
{
	f->pc = s->pc;
	f->iobuf = s->iobuf;
	f->seek_fp = s->seek_fp;
	f->gz = s->gz;
	f->zst = s->zst;
	s->zst = NULL;
	f->nano = s->nano;
	f->linktype = s->linktype;
	f->idx = s->cur;
	s->pc = NULL;
	s->iobuf = NULL;
	s->seek_fp = NULL;
	s->merged++;
}

/* The fast reader stopped (or was stopped): libpcap goes on at the record
 * it stopped at.  0, or -1 (errbuf). */
static int fast_hand_back(struct cap_source *s, char *errbuf)
{
	uint64_t pos = cap_file_pos(s->ff);
	FILE *fp = pcap_file(s->pc);

	cap_file_free(s->ff);
	s->ff = NULL;
	s->good_off = (int64_t)pos;
	if (fp == NULL || fseeko(fp, (off_t)pos, SEEK_SET) != 0) {
		snprintf(errbuf, CAP_ERRBUF_SIZE,
			 "read: cannot seek to offset %llu: %s",
			 (unsigned long long)pos,
			 fp ? strerror(errno) : "no file");
		return -1;
	}
	return 0;
}

/* A packet was held (take): the current file, with that packet as its
 * head, becomes the first merged file.  0, or -1 (s->why). */
static int merge_start(struct cap_source *s, char *errbuf)
{
	struct mfile *f;

	s->merge_pending = false;
	if (s->ff && fast_hand_back(s, errbuf) < 0) {
		fail(s, errbuf);
		return -1;
	}
	s->mf = calloc(s->npaths - s->cur, sizeof(*s->mf));
	if (s->mf == NULL) {
		fail(s, "out of memory merging overlapping files");
		return -1;
	}
	f = &s->mf[s->nmf++];
	/* libpcap (or the hand-back) is past the held packet */
	f->next_off = s->seek_fp ? (int64_t)ftello(s->seek_fp) : -1;
	mfile_take(s, f);
	f->head = s->held_pkt;
	s->next_open = s->cur + 1;
	s->next_first = INT64_MAX;	/* take() holds no more */
	s->merging = true;
	s->last_ts = INT64_MIN;
	return 0;
}

/* Open the next file of the ring as a merged file with its first packet
 * read (an empty one is closed at once).  0, or -1 (s->why). */
static int merge_open(struct cap_source *s, char *errbuf)
{
	struct mfile *f;
	int rc;

	s->cur = s->next_open++;
	if (open_cur(s, errbuf) < 0)
		return -1;
	f = &s->mf[s->nmf++];
	f->next_off = s->good_off;
	mfile_take(s, f);
	rc = mfile_next(s, f);
	if (rc <= 0) {
		mfile_close(f);
		s->nmf--;
	}
	return rc < 0 ? -1 : 0;
}

/* The merged file whose head comes first (ties: the file sorted first),
 * or -1 when every file is read. */
static int merge_first(const struct cap_source *s)
{
	int best = -1;
	uint32_t i;

	for (i = 0; i < s->nmf; i++)
		if (best < 0 || s->mf[i].head.ts_ns < s->mf[best].head.ts_ns ||
		    (s->mf[i].head.ts_ns == s->mf[best].head.ts_ns &&
		     s->mf[i].idx < s->mf[best].idx))
			best = (int)i;
	return best;
}

/* At most max packets of the merged files, in time order: the count
 * taken, 0 at the end, -1 on an error (s->why). */
static int merge_dispatch(struct cap_source *s, int max, char *errbuf)
{
	int n = 0;

	while (n < max) {
		struct mfile *f;
		uint64_t h;
		int k = merge_first(s), rc;

		/* every file that begins before the earliest head opens */
		while (s->next_open < s->npaths &&
		       (k < 0 || s->first_ts[s->next_open] <=
				 s->mf[k].head.ts_ns)) {
			if (merge_open(s, errbuf) < 0)
				return -1;
			k = merge_first(s);
		}
		if (k < 0) {
			s->done = true;
			break;
		}
		f = &s->mf[k];
		h = pkt_hash(&f->head);
		if (f->head.ts_ns == s->last_ts && h == s->last_hash &&
		    f->idx != s->last_file) {
			s->dup_frames++;	/* the same frame, twice */
		} else {
			s->linktype = f->linktype;
			s->cur = f->idx;
			s->gz = f->gz;
			if (!take(s, &f->head))
				break;	/* past --duration */
			s->good_off = f->next_off;
			s->last_ts = f->head.ts_ns;
			s->last_hash = h;
			s->last_file = f->idx;
			n++;
		}
		rc = mfile_next(s, f);
		if (rc < 0)
			return -1;
		if (rc == 0) {
			mfile_close(f);
			*f = s->mf[--s->nmf];
		}
		if (stop_asked(s))
			break;
	}
	return n;
}

/* Reading stopped on an error (s->why): -1, errbuf saying so. */
static int read_failed(struct cap_source *s, char *errbuf)
{
	snprintf(errbuf, CAP_ERRBUF_SIZE, "read: %.500s", s->why);
	return -1;
}

/* One pcap_dispatch of at most max packets: >0 packets read, 0 none (end
 * of file offline), -1 error. */
static int dispatch(struct cap_source *s, struct cap_pipe *pipe, int max,
		    char *errbuf)
{
	int n;

	if (s->done)
		return 0;
	if (s->count) {
		if (s->seen >= s->count)
			return 0;
		if ((uint64_t)max > s->count - s->seen)
			max = (int)(s->count - s->seen);
	}
	s->pipe = pipe;
again:
	if (s->merging) {
		n = merge_dispatch(s, max, errbuf);
		return n < 0 ? read_failed(s, errbuf) : n;
	}
	if (s->ff) {
		n = fast_dispatch(s, max, errbuf);
		if (n < 0)
			fail(s, errbuf);
		if (s->merge_pending) {
			if (merge_start(s, errbuf) < 0)
				return read_failed(s, errbuf);
			if (n > 0)
				return n;
			goto again;
		}
		if (n != 0 || s->done)
			return n;
		/* handed back with none taken: libpcap goes on below */
	}
	n = pcap_dispatch(s->pc, max, on_packet, (u_char *)s);
	if (s->merge_pending) {
		/* pcap_breakloop's flag is still up (a packet was taken in
		   that dispatch): the next read clears it, reading nothing */
		struct pcap_pkthdr *h;
		const u_char *d;

		(void)pcap_next_ex(s->pc, &h, &d);
		if (merge_start(s, errbuf) < 0)
			return read_failed(s, errbuf);
		if (n > 0)
			return n;
		goto again;
	}
	if (n == PCAP_ERROR && stop_asked(s))
		return 0;	/* EINTR, or a writer killed by the same signal */
	if (n == PCAP_ERROR) {
		fail(s, pcap_geterr(s->pc));
		snprintf(errbuf, CAP_ERRBUF_SIZE, "read: %.500s", s->why);
		return -1;
	}
	if (n == PCAP_ERROR_BREAK)
		return 0;
	if (n == 0 && !s->live && !s->done && !stop_asked(s) &&
	    s->cur + 1 < s->npaths) {
		if (next_file(s, errbuf) < 0) {
			snprintf(errbuf, CAP_ERRBUF_SIZE, "read: %.500s", s->why);
			return -1;
		}
		goto again;
	}
	return n;
}

/* Live --duration: is the wall-time deadline (set at the first read)
 * past?  Milliseconds left in *left_ms (for poll), -1 without a limit. */
static bool deadline_passed(struct cap_source *s, int *left_ms)
{
	int64_t now, left;

	*left_ms = -1;
	if (!s->live || !s->duration_ns)
		return s->done;
	now = clock_ns(CLOCK_MONOTONIC);
	if (s->deadline_ns == 0)
		s->deadline_ns = now + s->duration_ns;
	left = s->deadline_ns - now;
	if (left <= 0)
		s->done = true;
	else
		*left_ms = (int)(left / 1000000 + 1 < 100 ? left / 1000000 + 1
							  : 100);
	return s->done;
}

int cap_run(struct cap_source *s, struct cap_pipe *pipe,
	    volatile sig_atomic_t *stop, char *errbuf)
{
	int n, rc = 0, fd = -1;
	volatile sig_atomic_t *prev = s->stop;

	/*
	 * Live: non-blocking reads, waiting in poll() at most 100 ms at a time
	 * so a stop request (a signal handler setting *stop) is seen even when
	 * no packet comes; libpcap itself would resume its read after EINTR.
	 */
	if (stop)
		s->stop = stop;
	set_nonblock(s, s->live);
	if (s->live)
		fd = pcap_get_selectable_fd(s->pc);
	for (;;) {
		int left;

		if (stop && *stop)
			break;
		if (s->count && s->seen >= s->count)
			break;
		if (deadline_passed(s, &left))
			break;
		n = dispatch(s, pipe, BATCH, errbuf);
		if (n < 0) {
			rc = -1;
			break;
		}
		if (n == 0 && !s->live)
			break;	/* end of file (or of --duration) */
		if (n == 0) {
			struct pollfd pfd = { .fd = fd, .events = POLLIN };

			if (fd >= 0)
				(void)poll(&pfd, 1, left >= 0 ? left : 100);
			else
				(void)poll(NULL, 0, 10);
		}
	}
	set_nonblock(s, false);
	s->stop = prev;
	cap_pipe_flush(pipe);
	return rc;
}

int cap_step(struct cap_source *s, struct cap_pipe *pipe, int max_packets,
	     char *errbuf)
{
	int n, left;

	if (max_packets <= 0)
		max_packets = 1;
	if (s->count && s->seen >= s->count)
		return 0;
	if (deadline_passed(s, &left))
		return 0;
	set_nonblock(s, true);
	n = dispatch(s, pipe, max_packets, errbuf);
	if (n < 0)
		return -1;
	if (n == 0 && !s->live) {
		s->done = true;
		return 0;
	}
	if (s->count && s->seen >= s->count)
		return 0;
	return s->done ? 0 : 1;
}

void cap_drop_spans_add(struct cap_drop_span *span, uint32_t *n,
			uint32_t max, const struct cap_drop_span *sp)
{
	struct cap_drop_span *last = *n ? &span[*n - 1] : NULL;

	if (last && (sp->start_ns <= last->end_ns || *n == max)) {
		if (sp->end_ns > last->end_ns)
			last->end_ns = sp->end_ns;
		last->drop += sp->drop;
		last->ifdrop += sp->ifdrop;
		return;
	}
	span[(*n)++] = *sp;
}

bool cap_drop_spans_overlap(const struct cap_drop_span *span, uint32_t n,
			    int64_t start_ns, int64_t end_ns)
{
	uint32_t k;

	for (k = 0; k < n; k++)
		if (span[k].start_ns < end_ns && span[k].end_ns > start_ns)
			return true;
	return false;
}

int cap_source_drops(struct cap_source *s, struct cap_drop_span *span)
{
	struct pcap_stat ps;
	uint32_t d, i;
	int64_t now;

	if (!s->live || pcap_stats(s->pc, &ps) != 0)
		return 0;
	now = clock_ns(CLOCK_REALTIME);
	/* unsigned 32-bit differences survive one wrap between samples */
	d = (uint32_t)ps.ps_drop - s->last_drop;
	i = (uint32_t)ps.ps_ifdrop - s->last_ifdrop;
	s->recv += (uint32_t)ps.ps_recv - s->last_recv;
	s->drop += d;
	s->ifdrop += i;
	s->last_recv = ps.ps_recv;
	s->last_drop = ps.ps_drop;
	s->last_ifdrop = ps.ps_ifdrop;
	span->start_ns = s->last_sample_ns;
	span->end_ns = now;
	span->drop = d;
	span->ifdrop = i;
	s->last_sample_ns = now;
	return d || i;
}

void cap_source_stats(struct cap_source *s, struct cap_stats *st)
{
	struct pcap_stat ps;

	if (!s->live || pcap_stats(s->pc, &ps) != 0)
		return;
	/* totals so far without taking a sample: the next
	 * cap_source_drops() still reports what happened since the last */
	st->ps_recv = s->recv + (uint32_t)((uint32_t)ps.ps_recv - s->last_recv);
	st->ps_drop = s->drop + (uint32_t)((uint32_t)ps.ps_drop - s->last_drop);
	st->ps_ifdrop = s->ifdrop +
			(uint32_t)((uint32_t)ps.ps_ifdrop - s->last_ifdrop);
}

bool cap_source_read_error(const struct cap_source *s,
			   struct cap_read_error *e)
{
	if (!s->failed)
		return false;
	e->packets = s->seen;
	e->offset = s->live ? -1 : s->good_off;
	snprintf(e->why, sizeof(e->why), "%s", s->why);
	return true;
}

void cap_source_set_stop(struct cap_source *s, volatile sig_atomic_t *stop)
{
	s->stop = stop;
}

void cap_source_merge_stats(const struct cap_source *s, uint32_t *files,
			    uint64_t *dup_frames)
{
	*files = s->merged;
	*dup_frames = s->dup_frames;
}

void cap_source_lift_deadline(struct cap_source *s)
{
	if (!s->live)
		return;
	s->duration_ns = 0;
	s->done = false;
}

bool cap_source_done(const struct cap_source *s)
{
	return s->done || (s->count && s->seen >= s->count);
}

int cap_source_linktype(const struct cap_source *s)
{
	return s->linktype;
}

int cap_source_snaplen(const struct cap_source *s)
{
	return s->pc ? pcap_snapshot(s->pc) : s->nmf ?
	       pcap_snapshot(s->mf[0].pc) : 0;
}

int cap_source_fd(const struct cap_source *s)
{
	if (!s->live)
		return -1;
	return pcap_get_selectable_fd(s->pc);
}

void cap_source_progress(struct cap_source *s, uint64_t *done,
			 uint64_t *total)
{
	FILE *fp = s->live || s->ff || !s->pc ? NULL : pcap_file(s->pc);
	long pos = fp ? ftell(fp) : -1;

	*done = s->ff ? cap_file_pos(s->ff) : pos > 0 ? (uint64_t)pos : 0;
	*total = s->merging ? 0 : s->file_size;	/* merging: one of many */
}

const char *cap_addr_str(const struct cap_addr *a, char *buf, size_t n)
{
	if (!inet_ntop(a->family == 6 ? AF_INET6 : AF_INET, a->a, buf,
		       (socklen_t)n)) {
		if (n > 0)
			snprintf(buf, n, "?");
	}
	return buf;
}
