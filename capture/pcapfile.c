/*
 * pcapfile.c - the fast reader of a classic pcap file (see capture_int.h).
 *
 * libpcap reads a savefile with two fread(3)s per packet (the 16-byte
 * record header, then the data into its own buffer): two stdio copies and
 * two locked calls per packet, 8% of report's time on the metadata
 * benchmark (bench/run.sh).  This reads the file with pread(2) into one
 * buffer and hands out packets in place.
 *
 * It reads only what it is sure to read as libpcap would: a file in this
 * machine's byte order, version 2.4, with records whose caplen is at most
 * the snapshot length (libpcap's, after its own adjustment) and at most
 * 262,144.  At anything else (a record past those limits, a record cut by
 * the end of the file, a read error) it stops before that record and the
 * caller hands the rest of the file to libpcap, positioned at that
 * record: libpcap then reports or handles it exactly as it always did.
 * Timestamps are taken as libpcap's pcap_timeval fields (signed 32 bits),
 * microseconds scaled to nanoseconds as libpcap does when asked for
 * nanosecond precision.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/capture_int.h"
#include "base/units.h"

#define PF_MAGIC_US 0xa1b2c3d4u
#define PF_MAGIC_NS 0xa1b23c4du
#define PF_HDR 24u		/* file header */
#define PF_REC 16u		/* record header */
#define PF_CAPLEN_MAX 262144u	/* libpcap's MAXIMUM_SNAPLEN */
#define PF_BUF (256u << 10)	/* read buffer: stays in L2 until parsed */

struct cap_file {
	int fd;			/* borrowed */
	bool ns;		/* file timestamps in nanoseconds */
	uint32_t snapshot;
	uint8_t *buf;
	size_t size;		/* PF_BUF + PF_CAPLEN_MAX + PF_REC */
	size_t lo, hi;		/* unread bytes: buf[lo, hi) */
	uint64_t off;		/* file offset of buf[hi] */
	bool eof;		/* a read returned 0 (or failed) */
};

bool cap_file_header_ok(const uint8_t hdr[24])
{
	uint32_t magic;
	uint16_t major, minor;

	memcpy(&magic, hdr, 4);
	memcpy(&major, hdr + 4, 2);
	memcpy(&minor, hdr + 6, 2);
	return (magic == PF_MAGIC_US || magic == PF_MAGIC_NS) &&
	       major == 2 && minor == 4;
}

struct cap_file *cap_file_new(int fd, const uint8_t hdr[24], int snapshot)
{
	struct cap_file *f;
	uint32_t magic;

	if (!cap_file_header_ok(hdr) || snapshot <= 0)
		return NULL;
	f = calloc(1, sizeof(*f));
	if (f == NULL)
		return NULL;
	f->size = PF_BUF + PF_CAPLEN_MAX + PF_REC;
	f->buf = malloc(f->size);
	if (f->buf == NULL) {
		free(f);
		return NULL;
	}
	memcpy(&magic, hdr, 4);
	f->fd = fd;
	f->ns = magic == PF_MAGIC_NS;
	f->snapshot = (uint32_t)snapshot;
	f->off = PF_HDR;
	return f;
}

void cap_file_free(struct cap_file *f)
{
	if (f == NULL)
		return;
	free(f->buf);
	free(f);
}

uint64_t cap_file_pos(const struct cap_file *f)
{
	return f->off - (f->hi - f->lo);
}

/* Have at least n unread bytes, reading more if needed; false at the end
 * of the file or on an error (the caller hands over to libpcap). */
static bool need(struct cap_file *f, size_t n)
{
	ssize_t r;

	if (f->hi - f->lo >= n)
		return true;
	if (f->eof)
		return false;
	if (f->lo > 0) {
		memmove(f->buf, f->buf + f->lo, f->hi - f->lo);
		f->hi -= f->lo;
		f->lo = 0;
	}
	while (f->hi - f->lo < n) {
		size_t want = f->size - f->hi;

		if (want > PF_BUF)
			want = PF_BUF;
		r = pread(f->fd, f->buf + f->hi, want, (off_t)f->off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			f->eof = true;
			return false;
		}
		f->hi += (size_t)r;
		f->off += (uint64_t)r;
	}
	return true;
}

int cap_file_next(struct cap_file *f, struct cap_pkt *pkt)
{
	const uint8_t *h;
	int32_t sec, frac;
	uint32_t caplen, len;

	if (!need(f, PF_REC))
		return 0;
	h = f->buf + f->lo;
	memcpy(&sec, h, 4);
	memcpy(&frac, h + 4, 4);
	memcpy(&caplen, h + 8, 4);
	memcpy(&len, h + 12, 4);
	if (caplen > f->snapshot || caplen > PF_CAPLEN_MAX)
		return 0;
	if (!need(f, PF_REC + caplen))
		return 0;
	h = f->buf + f->lo;
	pkt->ts_ns = (int64_t)sec * NSEC_PER_SEC +
		     (int64_t)frac * (f->ns ? 1 : 1000);
	pkt->caplen = caplen;
	pkt->len = len;
	pkt->data = h + PF_REC;
	f->lo += PF_REC + caplen;
	return 1;
}
