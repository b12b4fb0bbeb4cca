/*
 * test_pcapfile.c - capture/pcapfile.c (the fast reader of classic pcap
 * files) against libpcap itself, the ground truth.
 *
 * For a file, the packets nfscope takes are: the fast reader's, then,
 * from the record it stops at, libpcap's (source.c seeks libpcap's FILE
 * there).  That stream must equal what libpcap alone reads from the file:
 * every packet's timestamp, caplen, len and bytes, and how it ends (end
 * of file, or the same error message).  Checked on every capture given
 * (directories are searched, one level) and on damaged variants of one of
 * them, built here: cut at many offsets, record lengths past the snapshot
 * length and past libpcap's maximum, caplen > len, timestamps with the
 * sign bit set or microseconds past a second, a snapshot length of 0 in
 * the file header, and the nanosecond magic; and on a file of records up
 * to libpcap's maximum, longer than the reader's chunks, whole and cut.
 * On undamaged files the fast reader must read to the end itself (else
 * it is not being used).
 *
 * usage: test_pcapfile SCRATCH_DIR BASE.pcap [FILE_OR_DIR...]
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pcap/pcap.h>

#include "capture/capture_int.h"
#include "tests/lib/check.h"

struct result {
	uint64_t packets;	/* packets read */
	uint64_t fast;		/* of which by the fast reader */
	int end;		/* pcap_next_ex's last return */
	char err[PCAP_ERRBUF_SIZE];
	uint64_t hash;		/* over every packet's fields and bytes */
	bool used;		/* the fast reader took the file */
	bool to_eof;		/* and read it to its end */
};

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n--)
		h = (h ^ *b++) * 0x100000001b3ull;
	return h;
}

static uint64_t pkt_hash(uint64_t h, int64_t ts, uint32_t caplen,
			 uint32_t len, const uint8_t *d)
{
	h = fnv(h, &ts, sizeof(ts));
	h = fnv(h, &caplen, sizeof(caplen));
	h = fnv(h, &len, sizeof(len));
	return fnv(h, d, caplen);
}

static int64_t hdr_ts(const struct pcap_pkthdr *h)
{
	return (int64_t)h->ts.tv_sec * 1000000000 + (int64_t)h->ts.tv_usec;
}

/* the rest of the file with libpcap */
static void pcap_rest(pcap_t *pc, struct result *r)
{
	struct pcap_pkthdr *h;
	const u_char *d;
	int rc;

	while ((rc = pcap_next_ex(pc, &h, &d)) == 1) {
		r->hash = pkt_hash(r->hash, hdr_ts(h), h->caplen, h->len, d);
		r->packets++;
	}
	r->end = rc;
	if (rc == PCAP_ERROR)
		snprintf(r->err, sizeof(r->err), "%s", pcap_geterr(pc));
}

/* libpcap alone; false if it cannot open the file */
static bool read_libpcap(const char *path, struct result *r)
{
	char pe[PCAP_ERRBUF_SIZE];
	pcap_t *pc;

	memset(r, 0, sizeof(*r));
	r->hash = 0xcbf29ce484222325ull;
	pc = pcap_open_offline_with_tstamp_precision(path,
			PCAP_TSTAMP_PRECISION_NANO, pe);
	if (pc == NULL)
		return false;
	pcap_rest(pc, r);
	pcap_close(pc);
	return true;
}

/* As source.c reads it: the fast reader, then libpcap from where it
 * stopped. */
static bool read_nfscope(const char *path, struct result *r)
{
	char pe[PCAP_ERRBUF_SIZE];
	struct cap_file *f = NULL;
	struct cap_pkt pkt;
	uint8_t hdr[24];
	pcap_t *pc;
	FILE *fp;

	memset(r, 0, sizeof(*r));
	r->hash = 0xcbf29ce484222325ull;
	fp = fopen(path, "rb");
	if (fp == NULL)
		return false;
	pc = pcap_fopen_offline_with_tstamp_precision(fp,
			PCAP_TSTAMP_PRECISION_NANO, pe);
	if (pc == NULL) {
		fclose(fp);
		return false;
	}
	if (pread(fileno(fp), hdr, sizeof(hdr), 0) == (ssize_t)sizeof(hdr))
		f = cap_file_new(fileno(fp), hdr, pcap_snapshot(pc));
	if (f != NULL) {
		r->used = true;
		while (cap_file_next(f, &pkt) == 1) {
			r->hash = pkt_hash(r->hash, pkt.ts_ns, pkt.caplen,
					   pkt.len, pkt.data);
			r->packets++;
			r->fast++;
		}
		CHECK(fseeko(fp, (off_t)cap_file_pos(f), SEEK_SET) == 0);
		cap_file_free(f);
	}
	pcap_rest(pc, r);
	r->to_eof = r->used && r->fast == r->packets;
	pcap_close(pc);
	return true;
}

static int files_compared, files_fast, variants;

/* Compare on path; intact: the fast reader must read it all.  True if
 * the fast reader read it to its end. */
static bool compare(const char *path, bool intact)
{
	struct result a, b;
	bool oa = read_libpcap(path, &a), ob = read_nfscope(path, &b);

	CHECK(oa == ob);
	if (!oa || !ob)
		return false;
	files_compared++;
	files_fast += b.used;
	if (a.packets != b.packets || a.hash != b.hash || a.end != b.end ||
	    strcmp(a.err, b.err) != 0)
		printf("  %s: libpcap %llu packets end %d '%s'; nfscope %llu "
		       "(fast %llu) end %d '%s'\n", path,
		       (unsigned long long)a.packets, a.end, a.err,
		       (unsigned long long)b.packets,
		       (unsigned long long)b.fast, b.end, b.err);
	CHECK(a.packets == b.packets);
	CHECK(a.hash == b.hash);
	CHECK(a.end == b.end);
	CHECK(strcmp(a.err, b.err) == 0);
	if (intact && b.used && !b.to_eof)
		printf("  %s: fast reader stopped at packet %llu of %llu\n",
		       path, (unsigned long long)b.fast,
		       (unsigned long long)b.packets);
	if (intact)
		CHECK(!b.used || b.to_eof);
	return b.to_eof;
}

static bool is_capture(const char *name)
{
	size_t n = strlen(name);

	return (n > 5 && strcmp(name + n - 5, ".pcap") == 0) ||
	       (n > 7 && strcmp(name + n - 7, ".pcapng") == 0);
}

static void compare_path(const char *path)
{
	struct dirent *e;
	struct stat st;
	char p[4096];
	DIR *d;

	if (stat(path, &st) != 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		compare(path, true);
		return;
	}
	if ((d = opendir(path)) == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		if (!is_capture(e->d_name))
			continue;
		snprintf(p, sizeof(p), "%s/%s", path, e->d_name);
		if (stat(p, &st) == 0 && S_ISREG(st.st_mode))
			compare(p, true);
	}
	closedir(d);
}

/* ---- damaged variants of base ---- */

static uint8_t *base;
static size_t base_len;
static size_t rec_off[64];	/* offsets of the first records */
static int nrec;

static void write_variant(const char *path, const uint8_t *p, size_t n)
{
	FILE *fp = fopen(path, "wb");

	CHECK(fp != NULL);
	if (fp == NULL)
		return;
	CHECK(fwrite(p, 1, n, fp) == n);
	fclose(fp);
}

static void variant(const char *dir, const uint8_t *p, size_t n)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/variant.pcap", dir);
	write_variant(path, p, n);
	compare(path, false);
	variants++;
}

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static void damaged(const char *dir)
{
	uint8_t *c = malloc(base_len);
	size_t off, step;
	int k;

	if (c == NULL) {
		CHECK(c != NULL);
		return;
	}
	/* cut: every offset through the first records, then strided */
	for (off = 0; off < base_len; off += step) {
		step = off < rec_off[nrec - 1] ? 1 : base_len / 97 + 1;
		variant(dir, base, off);
	}
	/* one record at a time: lengths and times libpcap must judge */
	for (k = 0; k < nrec - 1; k += 3) {
		static const uint32_t bad_caplen[] = {
			0, 65535, 65536, 262144, 262145, 0x7fffffffu,
			0xffffffffu,
		};
		uint8_t *r;
		size_t i;

		for (i = 0; i < sizeof(bad_caplen) / sizeof(bad_caplen[0]); i++) {
			memcpy(c, base, base_len);
			r = c + rec_off[k];
			put32(r + 8, bad_caplen[i]);
			variant(dir, c, base_len);
		}
		memcpy(c, base, base_len);
		r = c + rec_off[k];
		put32(r + 12, get32(r + 8) - 1);	/* caplen > len */
		variant(dir, c, base_len);
		memcpy(c, base, base_len);
		r = c + rec_off[k];
		put32(r, 0x80000001u);			/* negative seconds */
		put32(r + 4, 0xfffffff0u);		/* negative fraction */
		variant(dir, c, base_len);
		memcpy(c, base, base_len);
		put32(c + rec_off[k] + 4, 1999999999u);	/* > 1 s */
		variant(dir, c, base_len);
	}
	/* file header: snapshot 0 (libpcap picks its own), snapshot
	   smaller than the packets, the other timestamp magic */
	memcpy(c, base, base_len);
	put32(c + 16, 0);
	variant(dir, c, base_len);
	memcpy(c, base, base_len);
	put32(c + 16, 96);
	variant(dir, c, base_len);
	memcpy(c, base, base_len);
	put32(c, get32(c) == 0xa1b2c3d4u ? 0xa1b23c4du : 0xa1b2c3d4u);
	variant(dir, c, base_len);
	/* version 2.3: lengths maybe swapped, libpcap's alone */
	memcpy(c, base, base_len);
	c[6] = 3;
	variant(dir, c, base_len);
	free(c);
}

static bool load_base(const char *path)
{
	FILE *fp = fopen(path, "rb");
	size_t off;
	long n;

	if (fp == NULL || fseek(fp, 0, SEEK_END) != 0 || (n = ftell(fp)) < 24) {
		if (fp)
			fclose(fp);
		return false;
	}
	rewind(fp);
	base_len = (size_t)n;
	base = malloc(base_len);
	if (base == NULL || fread(base, 1, base_len, fp) != base_len) {
		fclose(fp);
		return false;
	}
	fclose(fp);
	if (!cap_file_header_ok(base))
		return false;
	for (off = 24; off + 16 <= base_len && nrec < 64;
	     off += 16 + get32(base + off + 8))
		rec_off[nrec++] = off;
	return nrec >= 8;
}

/*
 * Long records (the reader's chunks, capture/pcapfile.c): records of up
 * to libpcap's maximum in a file of several chunks, so records run past
 * a chunk's end with starts longer than the room kept before the next
 * chunk (which then grows) and records span whole chunks; intact (the
 * fast reader must read it all), then cut inside the long records.
 */
static void long_records(const char *dir)
{
	static const uint32_t sizes[] = { 60, 262144, 17000, 200000, 65535,
					  9000, 1500, 262144, 262144, 16400,
					  70, 131072, 300, 262143 };
	size_t cap = 24, n, i, k, rec = 0;
	uint8_t *p;
	char path[4096];

	for (k = 0; k < 3; k++)
		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
			cap += 16 + sizes[i];
	if ((p = malloc(cap)) == NULL) {
		CHECK(p != NULL);
		return;
	}
	put32(p, 0xa1b2c3d4u);
	p[4] = 2; p[5] = 0; p[6] = 4; p[7] = 0;	/* version 2.4 */
	put32(p + 8, 0);
	put32(p + 12, 0);
	put32(p + 16, 262144);			/* snapshot length */
	put32(p + 20, 1);			/* Ethernet */
	n = 24;
	for (k = 0; k < 3; k++)
		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			put32(p + n, (uint32_t)(1000 + rec));
			put32(p + n + 4, (uint32_t)(rec % 1000000));
			put32(p + n + 8, sizes[i]);
			put32(p + n + 12, sizes[i]);
			memset(p + n + 16, (int)(rec * 37 + 11), sizes[i]);
			p[n + 16] = (uint8_t)rec;
			n += 16 + sizes[i];
			rec++;
		}
	snprintf(path, sizeof(path), "%s/long.pcap", dir);
	write_variant(path, p, n);
	CHECK(compare(path, true));
	for (i = 1; i < 16; i++)
		variant(dir, p, n * i / 16 + i * 7);
	free(p);
}

int main(int argc, char **argv)
{
	int i;

	if (argc < 3) {
		fprintf(stderr, "usage: test_pcapfile SCRATCH BASE.pcap "
				"[FILE_OR_DIR...]\n");
		return 2;
	}
	mkdir(argv[1], 0755);
	CHECK(load_base(argv[2]));
	if (base != NULL && nrec >= 8) {
		/* the base is in the reader's format: read by it alone */
		CHECK(compare(argv[2], true));
		damaged(argv[1]);
	}
	long_records(argv[1]);
	for (i = 3; i < argc; i++)
		compare_path(argv[i]);
	printf("%d files compared (%d read by the fast reader), %d of them "
	       "damaged variants\n", files_compared, files_fast, variants);
	free(base);
	return CHECK_SUMMARY();
}
