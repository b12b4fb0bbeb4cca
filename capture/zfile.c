/*
 * zfile.c - a capture file compressed with gzip, zstd, xz or bzip2 (found
 * by its magic bytes, not its name) read as a stdio stream: fopencookie
 * over the compression library's streaming decoder, no temporary file.
 * Concatenated streams (pigz, pzstd, pbzip2, xz -T) are read as one.  Its
 * offsets (ftello) are those of the uncompressed data.
 *
 * A pipe or stdin is found the same way: its first bytes are read (it
 * cannot be asked again) and handed back first, through the decoder or,
 * when it is not compressed, as they are.
 *
 * A compressed stream that stops early ends the data there, as a cut file
 * does (libpcap then reports the partial record).  Damaged compressed data
 * is a read error (EIO), but only after every byte the decoder produced
 * before it was delivered; struct cap_zstate says where it happened.  xz
 * and zstd take at most mem_max bytes (a forged dictionary or window size
 * asks for gigabytes): past it, a read error (ENOMEM) whose message names
 * --decompress-mem.  gzip and bzip2 need a few MiB at most.
 */
#define _GNU_SOURCE		/* fopencookie */
#include <bzlib.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <lzma.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "capture/capture_int.h"

#define ZIN (256 * 1024)	/* compressed bytes read at a time */
#define ZMAGIC 6		/* bytes that tell the kind */
#define MIB (1024.0 * 1024.0)

static const char *const znames[CAP_Z_N] = {
	"plain", "gzip", "zstd", "xz", "bzip2"
};

const char *cap_zname(enum cap_zkind k)
{
	return (unsigned)k < CAP_Z_N ? znames[k] : "?";
}

/* The kind of data beginning with m[0..n). */
static enum cap_zkind zkind(const uint8_t *m, size_t n)
{
	if (n >= 2 && m[0] == 0x1f && m[1] == 0x8b)
		return CAP_Z_GZIP;
	if (n >= 4 && m[0] == 0x28 && m[1] == 0xb5 && m[2] == 0x2f &&
	    m[3] == 0xfd)
		return CAP_Z_ZSTD;
	if (n >= 6 && memcmp(m, "\xfd" "7zXZ\0", 6) == 0)
		return CAP_Z_XZ;
	if (n >= 4 && memcmp(m, "BZh", 3) == 0 && m[3] >= '1' && m[3] <= '9')
		return CAP_Z_BZIP2;
	return CAP_Z_NONE;
}

/* -------------------------------------------------------------- stream -- */

/* One decoder over fd; owns fd (but never closes 0) and the buffers. */
struct zs {
	enum cap_zkind kind;
	int fd;
	uint8_t *ibuf;
	size_t isize;		/* its size: ZIN, less for a small file */
	size_t ilen, ipos;	/* compressed bytes held, used */
	uint64_t in_read;	/* compressed bytes read from fd */
	bool in_eof, end;	/* no more input; no more output */
	int err;		/* errno for the next read: damage found
				   after the bytes already delivered */
	uint64_t mem_max;	/* xz, zstd: decoder memory limit */
	size_t zhint;		/* zstd: input for its next call (one
				   block at a time: see zstd_step) */
	bool zfull;		/* zstd: the last call filled the output */
	struct cap_zstate st;	/* what the caller may read */
	ZSTD_DStream *zd;
	lzma_stream xz;
	bz_stream bz;
	z_stream gz;
	bool gz_init;
};

/* More compressed input when all is used; false at its end.  EINTR (a
 * stop asked on a pipe) is a read error with errno kept. */
static bool zs_fill(struct zs *z)
{
	ssize_t k;

	if (z->ipos < z->ilen)
		return true;
	if (z->in_eof)
		return false;
	z->ipos = z->ilen = 0;
	k = read(z->fd, z->ibuf, z->isize);
	if (k < 0) {
		z->err = errno;
		z->in_eof = true;
		return false;
	}
	if (k == 0)
		z->in_eof = true;
	z->ilen = (size_t)k;
	z->in_read += (uint64_t)k;
	return k > 0;
}

/* Damage found: the bytes made so far are delivered first, then EIO (or
 * ENOMEM), with st telling where. */
static void zs_damage(struct zs *z, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void zs_damage(struct zs *z, int err, const char *fmt, ...)
{
	char what[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	z->err = err;
	z->end = true;
	z->st.damaged = true;
	z->st.in_off = z->in_read - (z->ilen - z->ipos);
	snprintf(z->st.why, sizeof(z->st.why), "%s: %s", cap_zname(z->kind),
		 what);
}

static void mem_over(struct zs *z, double need)
{
	char n[48] = "";

	if (need > 0)
		snprintf(n, sizeof(n), " (%.0f MiB)", need / MIB);
	zs_damage(z, ENOMEM, "the data needs more memory to decompress%s than "
		  "the limit of %.0f MiB: --decompress-mem raises it", n,
		  (double)z->mem_max / MIB);
}

static const char *xz_error(lzma_ret r)
{
	switch (r) {
	case LZMA_FORMAT_ERROR:
		return "not xz data (garbage after the stream?)";
	case LZMA_OPTIONS_ERROR:
		return "unsupported options";
	case LZMA_DATA_ERROR:
		return "corrupt data";
	case LZMA_BUF_ERROR:
		return "unexpected end";
	default:
		return "liblzma error";
	}
}

/* zstd hands back nothing of a call that fails, though it may have
 * written blocks already: each call is given at most one block of input
 * (its own hint), and no input at all after a call that filled the
 * output (that one only flushes).  So a failing call made nothing. */
static size_t zstd_step(struct zs *z, char *buf, size_t n, bool more)
{
	size_t avail = z->ilen - z->ipos, r;
	ZSTD_inBuffer i;
	ZSTD_outBuffer o = { buf, n, 0 };

	if (z->zfull)
		avail = 0;
	else if (z->zhint > 0 && avail > z->zhint)
		avail = z->zhint;
	i = (ZSTD_inBuffer){ z->ibuf, z->ipos + avail, z->ipos };
	r = ZSTD_decompressStream(z->zd, &o, &i);
	z->ipos = i.pos;
	if (ZSTD_isError(r)) {
		if (ZSTD_getErrorCode(r) ==
		    ZSTD_error_frameParameter_windowTooLarge)
			mem_over(z, 0);
		else
			zs_damage(z, EIO, "%s", ZSTD_getErrorName(r));
		return 0;
	}
	z->zfull = o.pos == n;
	z->zhint = r > 0 ? r : 5;	/* a frame ended: the next header */
	if (o.pos == 0 && !more)
		z->end = true;	/* a cut frame (r > 0) ends here */
	return o.pos;
}

static size_t xz_step(struct zs *z, char *buf, size_t n, bool more)
{
	lzma_ret r;

	z->xz.next_in = z->ibuf + z->ipos;
	z->xz.avail_in = z->ilen - z->ipos;
	z->xz.next_out = (uint8_t *)buf;
	z->xz.avail_out = n;
	r = lzma_code(&z->xz, more ? LZMA_RUN : LZMA_FINISH);
	z->ipos = z->ilen - z->xz.avail_in;
	if (r == LZMA_STREAM_END || (r == LZMA_BUF_ERROR && !more))
		z->end = true;	/* LZMA_BUF_ERROR: cut */
	else if (r == LZMA_MEMLIMIT_ERROR)
		mem_over(z, (double)lzma_memusage(&z->xz));
	else if (r != LZMA_OK)
		zs_damage(z, EIO, "%s", xz_error(r));
	return n - z->xz.avail_out;	/* made even on an error */
}

static size_t bz_step(struct zs *z, char *buf, size_t n, bool more)
{
	unsigned cap = n > (1u << 30) ? 1u << 30 : (unsigned)n;
	int r;

	z->bz.next_in = (char *)z->ibuf + z->ipos;
	z->bz.avail_in = (unsigned)(z->ilen - z->ipos);
	z->bz.next_out = buf;
	z->bz.avail_out = cap;
	r = BZ2_bzDecompress(&z->bz);
	z->ipos = z->ilen - z->bz.avail_in;
	n = cap - z->bz.avail_out;	/* made even on an error */
	if (r == BZ_STREAM_END) {	/* another stream may follow */
		BZ2_bzDecompressEnd(&z->bz);
		memset(&z->bz, 0, sizeof(z->bz));
		if (!zs_fill(z) ||
		    BZ2_bzDecompressInit(&z->bz, 0, 0) != BZ_OK)
			z->end = true;
	} else if (r != BZ_OK) {
		zs_damage(z, EIO, "%s", r == BZ_DATA_ERROR_MAGIC ?
			  "not bzip2 data (garbage after the stream?)" :
			  "corrupt data");
	} else if (n == 0 && !more) {
		z->end = true;		/* cut */
	}
	return n;
}

static size_t gz_step(struct zs *z, char *buf, size_t n, bool more)
{
	unsigned cap = n > (1u << 30) ? 1u << 30 : (unsigned)n;
	int r;

	z->gz.next_in = z->ibuf + z->ipos;
	z->gz.avail_in = (unsigned)(z->ilen - z->ipos);
	z->gz.next_out = (Bytef *)buf;
	z->gz.avail_out = cap;
	r = inflate(&z->gz, Z_NO_FLUSH);
	z->ipos = z->ilen - z->gz.avail_in;
	n = cap - z->gz.avail_out;	/* made even on an error */
	if (r == Z_STREAM_END) {	/* another member may follow */
		if (!zs_fill(z))
			z->end = true;
		else
			(void)inflateReset(&z->gz);
	} else if (!more && (r == Z_BUF_ERROR || (r == Z_OK && n == 0))) {
		z->end = true;		/* cut */
	} else if (r != Z_OK) {
		zs_damage(z, r == Z_MEM_ERROR ? ENOMEM : EIO,
			  "%s", z->gz.msg ? z->gz.msg : "corrupt data");
	}
	return n;
}

/* Plain data from a pipe: the bytes read to tell its kind, then the rest. */
static size_t plain_step(struct zs *z, char *buf, size_t n, bool more)
{
	size_t k = z->ilen - z->ipos;

	if (!more) {
		z->end = true;
		return 0;
	}
	if (k > n)
		k = n;
	memcpy(buf, z->ibuf + z->ipos, k);
	z->ipos += k;
	return k;
}

/* Decode into buf (n > 0): bytes made (0: none yet, or the end). */
static size_t zs_step(struct zs *z, char *buf, size_t n)
{
	bool more = zs_fill(z);

	if (z->err)		/* the input failed */
		return 0;
	switch (z->kind) {
	case CAP_Z_ZSTD:
		return zstd_step(z, buf, n, more);
	case CAP_Z_XZ:
		return xz_step(z, buf, n, more);
	case CAP_Z_BZIP2:
		return bz_step(z, buf, n, more);
	case CAP_Z_GZIP:
		return gz_step(z, buf, n, more);
	default:
		return plain_step(z, buf, n, more);
	}
}

static ssize_t zs_read(void *c, char *buf, size_t n)
{
	struct zs *z = c;

	while (n > 0 && !z->end && !z->err) {
		size_t k = zs_step(z, buf, n);

		if (k > 0) {
			z->st.out_off += (uint64_t)k;
			return (ssize_t)k;
		}
	}
	if (z->err) {
		errno = z->err;
		return -1;
	}
	return 0;
}

static int zs_seek(void *c, off64_t *off, int whence)
{
	if (whence != SEEK_CUR || *off != 0) {
		errno = ESPIPE;
		return -1;
	}
	*off = (off64_t)((struct zs *)c)->st.out_off;
	return 0;
}

static void zs_free(struct zs *z)
{
	if (z->zd)
		ZSTD_freeDStream(z->zd);
	if (z->kind == CAP_Z_XZ)
		lzma_end(&z->xz);
	if (z->kind == CAP_Z_BZIP2)
		BZ2_bzDecompressEnd(&z->bz);
	if (z->gz_init)
		inflateEnd(&z->gz);
	free(z->ibuf);
	free(z);
}

static int zs_close(void *c)
{
	struct zs *z = c;
	int rc = z->fd > 0 ? close(z->fd) : 0;

	zs_free(z);
	return rc;
}

/* zstd's window limit: the largest power of two within mem_max. */
static bool zstd_init(struct zs *z)
{
	int wlog = 10;
	size_t r;

	while (wlog < 31 && (2ull << wlog) <= z->mem_max)
		wlog++;
	if ((z->zd = ZSTD_createDStream()) == NULL)
		return false;
	r = ZSTD_initDStream(z->zd);
	z->zhint = ZSTD_isError(r) ? 0 : r;
	return !ZSTD_isError(r) &&
	       !ZSTD_isError(ZSTD_DCtx_setParameter(z->zd,
				ZSTD_d_windowLogMax, wlog));
}

static bool zs_init(struct zs *z)
{
	static const lzma_stream xz0 = LZMA_STREAM_INIT;

	z->xz = xz0;
	switch (z->kind) {
	case CAP_Z_ZSTD:
		return zstd_init(z);
	case CAP_Z_XZ:
		return lzma_stream_decoder(&z->xz, z->mem_max,
					   LZMA_CONCATENATED) == LZMA_OK;
	case CAP_Z_BZIP2:
		if (BZ2_bzDecompressInit(&z->bz, 0, 0) == BZ_OK)
			return true;
		z->kind = CAP_Z_NONE;	/* nothing to end */
		return false;
	case CAP_Z_GZIP:	/* gzip only (16), the largest window */
		return (z->gz_init = inflateInit2(&z->gz, 16 + MAX_WBITS) ==
				     Z_OK);
	default:
		return true;
	}
}

/* A decoder of kind k over fd (taken, even on failure) of size bytes
 * (0: unknown) whose first bytes, already read, are m[0..n); NULL: no
 * memory or the library refused. */
static struct zs *zs_new(int fd, uint64_t size, enum cap_zkind k,
			 uint64_t mem_max, const uint8_t *m, size_t n)
{
	struct zs *z = calloc(1, sizeof(*z));
	size_t isize = size == 0 || size >= ZIN ? ZIN : (size_t)size + 1;

	if (isize < ZMAGIC)
		isize = ZMAGIC;
	if (z == NULL || (z->ibuf = malloc(isize)) == NULL) {
		free(z);
		if (fd > 0)
			close(fd);
		return NULL;
	}
	z->kind = z->st.kind = k;
	z->isize = isize;
	z->fd = fd;
	z->mem_max = mem_max ? mem_max : CAP_ZMEM_DEFAULT;
	memcpy(z->ibuf, m, n);
	z->ilen = n;
	z->in_read = n;
	if (!zs_init(z)) {
		(void)zs_close(z);
		return NULL;
	}
	return z;
}

/* ---------------------------------------------------------------- open -- */

/* Up to n first bytes of a pipe into m: how many (fewer at its end). */
static ssize_t peek_pipe(int fd, uint8_t *m, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t k = read(fd, m + got, n - got);

		if (k < 0)	/* EINTR too: a stop asked */
			return -1;
		if (k == 0)
			break;
		got += (size_t)k;
	}
	return (ssize_t)got;
}

static FILE *zs_file(struct zs *z, const struct cap_zstate **st)
{
	static const cookie_io_functions_t zs_io = {
		.read = zs_read, .seek = zs_seek, .close = zs_close };
	FILE *out = fopencookie(z, "rb", zs_io);

	if (out == NULL) {
		(void)zs_close(z);
		return NULL;
	}
	if (st)
		*st = &z->st;
	return out;
}

FILE *cap_zopen(const char *path, uint64_t mem_max, enum cap_zkind *kind,
		const struct cap_zstate **st, char *errbuf)
{
	uint8_t m[ZMAGIC];
	ssize_t n;
	struct stat sb;
	enum cap_zkind k = CAP_Z_NONE;
	bool in = strcmp(path, "-") == 0;
	int fd = in ? 0 : open(path, O_RDONLY | O_CLOEXEC);
	struct zs *z;
	FILE *out;

	*kind = CAP_Z_NONE;
	if (st)
		*st = NULL;
	if (fd < 0 || fstat(fd, &sb) < 0)
		goto fail;
	if (S_ISREG(sb.st_mode)) {
		n = pread(fd, m, sizeof(m), 0);
		k = zkind(m, n > 0 ? (size_t)n : 0);
		if (k == CAP_Z_NONE && in)	/* plain: stdio as it is */
			return stdin;
		if (k == CAP_Z_NONE && (out = fdopen(fd, "rb")) == NULL)
			goto fail;
		if (k == CAP_Z_NONE)
			return out;
		n = 0;			/* read again by the decoder */
	} else if ((n = peek_pipe(fd, m, sizeof(m))) < 0) {
		goto fail;
	} else {
		k = zkind(m, (size_t)n);
	}
	errno = 0;
	if ((z = zs_new(fd, S_ISREG(sb.st_mode) ? (uint64_t)sb.st_size : 0, k,
			mem_max, m, (size_t)n)) == NULL ||
	    (out = zs_file(z, st)) == NULL) {
		snprintf(errbuf, CAP_ERRBUF_SIZE, "%s: cannot read %s: %s",
			 path, cap_zname(k), strerror(errno ? errno : ENOMEM));
		return NULL;
	}
	*kind = k;
	return out;
fail:
	snprintf(errbuf, CAP_ERRBUF_SIZE, "%s: %s", path, strerror(errno));
	if (fd > 0)
		close(fd);
	return NULL;
}
