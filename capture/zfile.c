/*
 * zfile.c - a capture file compressed with gzip, zstd, xz or bzip2 (found
 * by its magic bytes, not its name) read as a stdio stream: fopencookie
 * over the compression library's streaming decoder, no temporary file.
 * Concatenated streams (pigz, pzstd, pbzip2, xz -T) are read as one.  Its
 * offsets (ftello) are those of the uncompressed data.  A compressed
 * stream that stops early ends the data there, as a cut file does (libpcap
 * then reports the partial record); damaged compressed data is a read
 * error (EIO).
 */
#define _GNU_SOURCE		/* fopencookie */
#include <bzlib.h>
#include <errno.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "capture/capture_int.h"

#define ZIN (256 * 1024)	/* compressed bytes read at a time */

static const char *const znames[CAP_Z_N] = {
	"plain", "gzip", "zstd", "xz", "bzip2"
};

const char *cap_zname(enum cap_zkind k)
{
	return (unsigned)k < CAP_Z_N ? znames[k] : "?";
}

/* The kind of the regular file fd, by its first bytes. */
static enum cap_zkind zkind(int fd)
{
	uint8_t m[6];
	ssize_t n = pread(fd, m, sizeof(m), 0);

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

/* ---------------------------------------------------------------- gzip -- */

static ssize_t gz_read(void *c, char *buf, size_t n)
{
	int k = gzread((gzFile)c, buf, n > (1u << 30) ? 1u << 30 : (unsigned)n);

	if (k < 0)
		errno = EIO;
	return k < 0 ? -1 : k;
}

/* Only where the stream is (ftello): the offset in the uncompressed data. */
static int gz_seek(void *c, off64_t *off, int whence)
{
	if (whence != SEEK_CUR || *off != 0) {
		errno = ESPIPE;
		return -1;
	}
	*off = (off64_t)gztell((gzFile)c);
	return 0;
}

static int gz_close(void *c)
{
	return gzclose((gzFile)c) == Z_OK ? 0 : EOF;
}

/* ---------------------------------------------------- zstd, xz, bzip2 -- */

struct zs {
	enum cap_zkind kind;
	FILE *in;
	uint8_t *ibuf;
	size_t ilen, ipos;	/* compressed bytes held, used */
	bool in_eof, end;	/* no more input; no more output */
	uint64_t out;		/* uncompressed bytes delivered */
	ZSTD_DStream *zd;
	lzma_stream xz;
	bz_stream bz;
};

/* More compressed input when all is used; false at its end. */
static bool zs_fill(struct zs *z)
{
	if (z->ipos < z->ilen)
		return true;
	if (z->in_eof)
		return false;
	z->ilen = fread(z->ibuf, 1, ZIN, z->in);
	z->ipos = 0;
	if (z->ilen < ZIN)
		z->in_eof = true;
	return z->ilen > 0;
}

/* Decode into buf (n > 0): bytes made, 0 at the end, -1 on damage. */
static ssize_t zs_step(struct zs *z, char *buf, size_t n)
{
	bool more = zs_fill(z);

	switch (z->kind) {
	case CAP_Z_ZSTD: {
		ZSTD_inBuffer i = { z->ibuf, z->ilen, z->ipos };
		ZSTD_outBuffer o = { buf, n, 0 };
		size_t r = ZSTD_decompressStream(z->zd, &o, &i);

		z->ipos = i.pos;
		if (ZSTD_isError(r))
			return -1;
		if (o.pos == 0 && !more)
			z->end = true;	/* a cut frame (r > 0) ends here */
		return (ssize_t)o.pos;
	}
	case CAP_Z_XZ: {
		lzma_ret r;

		z->xz.next_in = z->ibuf + z->ipos;
		z->xz.avail_in = z->ilen - z->ipos;
		z->xz.next_out = (uint8_t *)buf;
		z->xz.avail_out = n;
		r = lzma_code(&z->xz, more ? LZMA_RUN : LZMA_FINISH);
		z->ipos = z->ilen - z->xz.avail_in;
		if (r == LZMA_STREAM_END || (r == LZMA_BUF_ERROR && !more))
			z->end = true;	/* LZMA_BUF_ERROR: cut */
		else if (r != LZMA_OK)
			return -1;
		return (ssize_t)(n - z->xz.avail_out);
	}
	default: {	/* CAP_Z_BZIP2 */
		int r;

		z->bz.next_in = (char *)z->ibuf + z->ipos;
		z->bz.avail_in = (unsigned)(z->ilen - z->ipos);
		z->bz.next_out = buf;
		z->bz.avail_out = n > (1u << 30) ? 1u << 30 : (unsigned)n;
		r = BZ2_bzDecompress(&z->bz);
		z->ipos = z->ilen - z->bz.avail_in;
		n = (n > (1u << 30) ? 1u << 30 : n) - z->bz.avail_out;
		if (r == BZ_STREAM_END) {	/* another stream may follow */
			BZ2_bzDecompressEnd(&z->bz);
			memset(&z->bz, 0, sizeof(z->bz));
			if (!zs_fill(z) ||
			    BZ2_bzDecompressInit(&z->bz, 0, 0) != BZ_OK)
				z->end = true;
		} else if (r != BZ_OK) {
			return -1;
		} else if (n == 0 && !more) {
			z->end = true;		/* cut */
		}
		return (ssize_t)n;
	}
	}
}

static ssize_t zs_read(void *c, char *buf, size_t n)
{
	struct zs *z = c;

	while (n > 0 && !z->end) {
		ssize_t k = zs_step(z, buf, n);

		if (k < 0) {
			errno = EIO;
			return -1;
		}
		if (k > 0) {
			z->out += (uint64_t)k;
			return k;
		}
	}
	return 0;
}

static int zs_seek(void *c, off64_t *off, int whence)
{
	if (whence != SEEK_CUR || *off != 0) {
		errno = ESPIPE;
		return -1;
	}
	*off = (off64_t)((struct zs *)c)->out;
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
	free(z->ibuf);
	free(z);
}

static int zs_close(void *c)
{
	struct zs *z = c;
	int rc = fclose(z->in);

	zs_free(z);
	return rc;
}

/* A decoder of kind k over fp (taken, even on failure); NULL: no memory
 * or the library refused. */
static struct zs *zs_new(FILE *fp, enum cap_zkind k)
{
	static const lzma_stream xz0 = LZMA_STREAM_INIT;
	struct zs *z = calloc(1, sizeof(*z));
	bool ok;

	if (z == NULL || (z->ibuf = malloc(ZIN)) == NULL) {
		free(z);
		fclose(fp);
		return NULL;
	}
	z->kind = k;
	z->in = fp;
	z->xz = xz0;
	if (k == CAP_Z_ZSTD)
		ok = (z->zd = ZSTD_createDStream()) != NULL &&
		     !ZSTD_isError(ZSTD_initDStream(z->zd));
	else if (k == CAP_Z_XZ)
		ok = lzma_stream_decoder(&z->xz, UINT64_MAX,
					 LZMA_CONCATENATED) == LZMA_OK;
	else
		ok = BZ2_bzDecompressInit(&z->bz, 0, 0) == BZ_OK;
	if (!ok) {
		if (k == CAP_Z_BZIP2)	/* nothing to end */
			z->kind = CAP_Z_NONE;
		fclose(fp);
		zs_free(z);
		return NULL;
	}
	return z;
}

/* ---------------------------------------------------------------- open -- */

FILE *cap_zopen(const char *path, enum cap_zkind *kind, char *errbuf)
{
	static const cookie_io_functions_t gz_io = {
		.read = gz_read, .seek = gz_seek, .close = gz_close };
	static const cookie_io_functions_t zs_io = {
		.read = zs_read, .seek = zs_seek, .close = zs_close };
	enum cap_zkind k;
	FILE *fp, *out;
	struct zs *z;
	gzFile g;
	int fd;

	*kind = CAP_Z_NONE;
	if (strcmp(path, "-") == 0)
		return stdin;
	if ((fp = fopen(path, "rb")) == NULL) {
		snprintf(errbuf, CAP_ERRBUF_SIZE, "%s: %s", path,
			 strerror(errno));
		return NULL;
	}
	k = zkind(fileno(fp));
	if (k == CAP_Z_NONE)
		return fp;
	errno = 0;
	if (k == CAP_Z_GZIP) {
		fd = dup(fileno(fp));
		fclose(fp);
		g = fd >= 0 ? gzdopen(fd, "rb") : NULL;
		if (g == NULL) {
			if (fd >= 0)
				close(fd);
			goto fail;
		}
		(void)gzbuffer(g, ZIN);
		if ((out = fopencookie(g, "rb", gz_io)) == NULL)
			gzclose(g);
	} else {
		if ((z = zs_new(fp, k)) == NULL)
			goto fail;
		if ((out = fopencookie(z, "rb", zs_io)) == NULL)
			(void)zs_close(z);
	}
	if (out == NULL)
		goto fail;
	*kind = k;
	return out;
fail:
	snprintf(errbuf, CAP_ERRBUF_SIZE, "%s: cannot read %s: %s", path,
		 cap_zname(k), strerror(errno ? errno : ENOMEM));
	return NULL;
}
