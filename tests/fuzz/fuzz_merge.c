/*
 * fuzz_merge.c - several capture files read as one (capture/source.c):
 * files that overlap in time merged by timestamp, frames found twice taken
 * once, a damaged file among them.  The input is split into 2 to 4 pcap
 * files (each gets a valid file header; its records are the input's):
 * any bytes are read to their end or to a read error, never a crash, a
 * hang or a read past the data.
 *
 * Input: byte 0 picks the number of files (2 + b % 3); then for every
 * file but the last a 16-bit little-endian length and that many bytes
 * (cut to what is left); the last file takes the rest.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "capture/capture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FILES_MAX 4

static void on_msg(void *user, const struct cap_msg *m)
{
	(void)m;
	++*(uint64_t *)user;
}

/* A memfd holding a pcap file header (Ethernet, microseconds) and b. */
static int file_of(const uint8_t *b, size_t n)
{
	static const uint8_t hdr[24] = {
		0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 4, 0, 1, 0, 0, 0,
	};
	int fd = memfd_create("fuzz_merge", 0);

	if (fd < 0)
		return -1;
	if (write(fd, hdr, sizeof(hdr)) != (ssize_t)sizeof(hdr) ||
	    (n && write(fd, b, n) != (ssize_t)n)) {
		close(fd);
		return -1;
	}
	return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cap_config cfg = {
		.frag_mem_max = 64 * 1024, .flows_max = 8, .record_keep = 4096,
		.ooo_mem_max = 16 * 1024, .count = 100000,
	};
	char err[CAP_ERRBUF_SIZE], names[FILES_MAX][64];
	const char *paths[FILES_MAX];
	int fds[FILES_MAX];
	uint32_t nf, i, merged;
	uint64_t msgs = 0, dup;
	size_t off = 1;
	struct cap_source *s;
	struct cap_pipe *p;

	if (size == 0)
		return 0;
	nf = 2 + data[0] % 3;
	for (i = 0; i < nf; i++) {
		size_t n = size - off;

		if (i + 1 < nf) {
			n = 0;
			if (off + 2 <= size) {
				n = (size_t)data[off] | (size_t)data[off + 1] << 8;
				off += 2;
			}
			if (n > size - off)
				n = size - off;
		}
		fds[i] = file_of(data + off, n);
		off += n;
		snprintf(names[i], sizeof(names[i]), "/proc/self/fd/%d", fds[i]);
		paths[i] = names[i];
	}
	s = cap_open_files(paths, nf, &cfg, err);
	p = s ? cap_pipe_new(&cfg, on_msg, &msgs) : NULL;
	if (s && p) {
		(void)cap_run(s, p, NULL, err);
		cap_source_merge_stats(s, &merged, &dup);
		if (merged > nf)
			abort();
	}
	cap_pipe_free(p);
	cap_close(s);
	for (i = 0; i < nf; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return 0;
}
