/*
 * fuzz_zfile.c - capture/zfile.c, compressed captures (gzip, zstd, xz,
 * bzip2) read as a stdio stream: any bytes are read to their end or to a
 * read error, with the offset (ftello) equal to the bytes delivered, and
 * never a crash, a hang or a read past the data.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "capture/capture_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[CAP_ERRBUF_SIZE], path[64], buf[4096];
	enum cap_zkind k;
	uint64_t got = 0;
	size_t n;
	FILE *fp;
	int fd = memfd_create("fuzz_zfile", 0);

	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	fp = cap_zopen(path, 1u << 20, &k, NULL, err);
	close(fd);
	if (fp == NULL)
		return 0;
	/* a bound on what a small input may inflate to (bzip2 and xz reach
	   a few thousand to one): beyond it, stop reading.  Small, so that
	   thousands of inputs run a second; the decoders' memory is capped
	   (--decompress-mem's least, 1 MiB: the corpus's xz files have
	   small dictionaries) */
	while (got < (256u << 10) && (n = fread(buf, 1, sizeof(buf), fp)) > 0)
		got += n;
	if (k != CAP_Z_NONE && !ferror(fp) && (uint64_t)ftello(fp) != got)
		abort();
	fclose(fp);
	return 0;
}
