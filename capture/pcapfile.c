/*
 * pcapfile.c - the fast reader of a classic pcap file (see capture_int.h).
 *
 * libpcap reads a savefile with two fread(3)s per packet (the 16-byte
 * record header, then the data into its own buffer): two stdio copies and
 * two locked calls per packet, 8% of report's time on the metadata
 * benchmark (bench/run.sh).  This reads the file with pread(2) into
 * large chunks and hands out packets in place.
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
 *
 * Reading ahead: with two CPUs or more (and NFSCOPE_THREADS not 1) a
 * thread of its own preads the file into PF_NCHUNK chunks in turn, so the
 * kernel's copy of the file runs beside the parsing instead of in it (on
 * the lab mix's header-only twin the copy and its page-cache lookups were
 * a tenth of the reading thread, the one that bounds report's time).
 * Packets are handed out in place in the chunk being parsed; a record
 * that runs past a chunk's end is made whole by copying its start into
 * the area before the next chunk's bytes (PF_PRE, grown to a whole
 * record, PF_SPAN, the first time a longer start comes), so nothing else
 * is copied.  The two chunks take as much memory as the one buffer of
 * before.  A chunk goes back to the reader when parsing has moved to the
 * next one (a packet is the caller's until the next call).  The thread
 * starts with the file's second chunk; without it the same chunks are
 * read here, when needed.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/capture_int.h"
#include "base/threads.h"
#include "base/units.h"

#define PF_MAGIC_US 0xa1b2c3d4u
#define PF_MAGIC_NS 0xa1b23c4du
#define PF_HDR 24u		/* file header */
#define PF_REC 16u		/* record header */
#define PF_CAPLEN_MAX 262144u	/* libpcap's MAXIMUM_SNAPLEN */
#define PF_SPAN (PF_REC + PF_CAPLEN_MAX)	/* the most one record takes */
#define PF_PRE (16u << 10)	/* room for a record's start, at first */
#define PF_CHUNK (256u << 10)	/* one pread (doc/bench.md: 64 KiB to
				   512 KiB measured) */
#define PF_NCHUNK 2u

enum { CH_EMPTY, CH_READING, CH_FULL };

struct chunk {
	uint8_t *mem;		/* pre bytes, then PF_CHUNK read */
	size_t pre;		/* PF_PRE, or PF_SPAN once grown */
	size_t len;		/* bytes read (0: the end) */
	uint64_t off;		/* file offset of mem[pre] */
	int state;		/* CH_*: under mu when threaded */
};

struct cap_file {
	int fd;			/* borrowed */
	bool ns;		/* file timestamps in nanoseconds */
	uint32_t snapshot;
	struct chunk ch[PF_NCHUNK];
	unsigned cur;		/* the chunk being parsed */
	uint8_t *buf;		/* its mem */
	size_t lo, hi;		/* unread bytes: buf[lo, hi) */
	bool eof;		/* no chunk after cur: a read returned 0 or
				   failed, or no memory to make a record
				   whole (libpcap reads on from cur) */
	/* reading ahead */
	bool thread_ok;		/* a reader thread is to start */
	bool threaded;		/* it runs */
	pthread_t tid;
	pthread_mutex_t mu;
	pthread_cond_t cv;	/* a chunk filled, or emptied, or stop */
	bool stop;
	uint64_t next_off;	/* the reader's: file offset of its next read */
	unsigned next;		/* the reader's: the chunk it fills next */
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

/* Read chunk c from file offset off (its state is the caller's): len 0
 * at the end of the file or on an error. */
static void read_chunk(int fd, struct chunk *c, uint64_t off)
{
	ssize_t r;

	c->off = off;
	do
		r = pread(fd, c->mem + c->pre, PF_CHUNK, (off_t)off);
	while (r < 0 && errno == EINTR);
	c->len = r > 0 ? (size_t)r : 0;
}

/* Room for a whole record's start before c's bytes (c is the parser's).
 * False without memory. */
static bool grow(struct chunk *c)
{
	uint8_t *m = malloc(PF_SPAN + PF_CHUNK);

	if (m == NULL)
		return false;
	memcpy(m + PF_SPAN, c->mem + c->pre, c->len);
	free(c->mem);
	c->mem = m;
	c->pre = PF_SPAN;
	return true;
}

/* The reader thread: fill each chunk in turn as it comes back empty,
 * until the end of the file or stop. */
static void *reader(void *arg)
{
	struct cap_file *f = arg;

	pthread_mutex_lock(&f->mu);
	for (;;) {
		struct chunk *c = &f->ch[f->next];

		while (!f->stop && c->state != CH_EMPTY)
			pthread_cond_wait(&f->cv, &f->mu);
		if (f->stop)
			break;
		c->state = CH_READING;
		pthread_mutex_unlock(&f->mu);
		read_chunk(f->fd, c, f->next_off);
		pthread_mutex_lock(&f->mu);
		c->state = CH_FULL;
		pthread_cond_broadcast(&f->cv);
		if (c->len == 0)
			break;
		f->next_off += c->len;
		f->next = (f->next + 1) % PF_NCHUNK;
	}
	pthread_mutex_unlock(&f->mu);
	return NULL;
}

/* A thread is worth it with a second CPU, on a file. */
static bool want_thread(int fd)
{
	struct stat st;

	return base_threads_ok(2) && fstat(fd, &st) == 0 &&
	       S_ISREG(st.st_mode);
}

/* The reader thread from chunk k on, at file offset off; every chunk but
 * cur empty.  Without it (no thread to be had) reading goes on here. */
static void start_reader(struct cap_file *f, unsigned k, uint64_t off)
{
	unsigned i;

	f->thread_ok = false;	/* one try */
	for (i = 0; i < PF_NCHUNK; i++)
		f->ch[i].state = i == f->cur ? CH_FULL : CH_EMPTY;
	f->next = k;
	f->next_off = off;
	if (pthread_mutex_init(&f->mu, NULL) != 0)
		return;
	if (pthread_cond_init(&f->cv, NULL) != 0) {
		pthread_mutex_destroy(&f->mu);
		return;
	}
	if (pthread_create(&f->tid, NULL, reader, f) != 0) {
		pthread_cond_destroy(&f->cv);
		pthread_mutex_destroy(&f->mu);
		return;
	}
	f->threaded = true;
}

void cap_file_free(struct cap_file *f)
{
	unsigned i;

	if (f == NULL)
		return;
	if (f->threaded) {
		pthread_mutex_lock(&f->mu);
		f->stop = true;
		pthread_cond_broadcast(&f->cv);
		pthread_mutex_unlock(&f->mu);
		pthread_join(f->tid, NULL);
		pthread_cond_destroy(&f->cv);
		pthread_mutex_destroy(&f->mu);
	}
	for (i = 0; i < PF_NCHUNK; i++)
		free(f->ch[i].mem);
	free(f);
}

struct cap_file *cap_file_new(int fd, const uint8_t hdr[24], int snapshot)
{
	struct cap_file *f;
	uint32_t magic;
	unsigned i;

	if (!cap_file_header_ok(hdr) || snapshot <= 0)
		return NULL;
	f = calloc(1, sizeof(*f));
	if (f == NULL)
		return NULL;
	for (i = 0; i < PF_NCHUNK; i++) {
		f->ch[i].pre = PF_PRE;
		if ((f->ch[i].mem = malloc(PF_PRE + PF_CHUNK)) == NULL) {
			cap_file_free(f);
			return NULL;
		}
	}
	memcpy(&magic, hdr, 4);
	f->fd = fd;
	f->ns = magic == PF_MAGIC_NS;
	f->snapshot = (uint32_t)snapshot;
	/* parsing starts in an empty chunk 0 at the first record: the
	   first need reads chunk 1 */
	f->cur = 0;
	f->ch[0].off = PF_HDR;
	f->buf = f->ch[0].mem;
	f->lo = f->hi = PF_PRE;
	f->thread_ok = want_thread(fd);
	return f;
}

uint64_t cap_file_pos(const struct cap_file *f)
{
	return f->ch[f->cur].off + f->lo - f->ch[f->cur].pre;
}

/* The chunk after cur, full: read here, or by the reader thread, which
 * starts with the file's second chunk (a file of one chunk, or one given
 * up on in its first, never has one). */
static struct chunk *next_chunk(struct cap_file *f)
{
	unsigned k = (f->cur + 1) % PF_NCHUNK;
	struct chunk *c = &f->ch[k];
	const struct chunk *p = &f->ch[f->cur];

	if (f->thread_ok && p->len > 0)
		start_reader(f, k, p->off + p->len);
	if (!f->threaded) {
		read_chunk(f->fd, c, p->off + p->len);
		return c;
	}
	pthread_mutex_lock(&f->mu);
	while (c->state != CH_FULL)
		pthread_cond_wait(&f->cv, &f->mu);
	pthread_mutex_unlock(&f->mu);
	return c;
}

/* Have at least n (<= PF_SPAN) unread bytes, moving to the next chunks
 * if needed; false at the end of the file or on an error (the caller
 * hands over to libpcap, at cap_file_pos). */
static bool need(struct cap_file *f, size_t n)
{
	while (f->hi - f->lo < n) {
		size_t left = f->hi - f->lo;
		struct chunk *c;

		if (f->eof)
			return false;
		c = next_chunk(f);
		if (c->len == 0 || (left > c->pre && !grow(c))) {
			f->eof = true;	/* (no memory: libpcap reads on) */
			return false;
		}
		/* the record's start before the chunk's bytes */
		memcpy(c->mem + c->pre - left, f->buf + f->lo, left);
		if (f->threaded) {
			pthread_mutex_lock(&f->mu);
			f->ch[f->cur].state = CH_EMPTY;
			pthread_cond_broadcast(&f->cv);
			pthread_mutex_unlock(&f->mu);
		}
		f->cur = (f->cur + 1) % PF_NCHUNK;
		f->buf = c->mem;
		f->lo = c->pre - left;
		f->hi = c->pre + c->len;
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
