/*
 * slowshim.c - a slow disk under a real server: an LD_PRELOAD library for
 * nfs-ganesha that sleeps before each read, write and sync of a regular
 * file, so the server itself answers READ, WRITE and COMMIT late while
 * the network path stays quick (tests/lab/README.md, scenario slow-disk).
 *
 *   LD_PRELOAD=libslowshim.so SLOWSHIM_MS=15 SLOWSHIM_LOG=FILE ganesha.nfsd ...
 *
 * Wrapped: pread, pwrite, preadv, pwritev, preadv2, pwritev2 (and their
 * 64 names), fsync, fdatasync; on a regular file only (ganesha's sockets,
 * pipes and its log pass at once).  Each delayed call is one line of
 * SLOWSHIM_LOG, written with one write(2) on an O_APPEND descriptor (safe
 * from many threads): {"fn":NAME,"t":SECONDS,"ms":MS}.  That log is the
 * lab's ground truth of the server's own slowness.
 *
 * ganesha loads its FSAL plugins with dlopen(RTLD_DEEPBIND), and a deep-
 * bound library resolves libc's symbols before the preloaded ones: dlopen
 * is wrapped too and the flag cleared (LAB-NOTES).
 *
 * The wrappers have their own C names and take the libc names as assembler
 * labels, so they do not clash with the headers' declarations (which map
 * pread to pread64 under _FILE_OFFSET_BITS=64).  The real functions are
 * looked up once, in the constructor, and never change after it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

typedef ssize_t (*rw_fn)(int, void *, size_t, int64_t);
typedef ssize_t (*rwv_fn)(int, const struct iovec *, int, int64_t);
typedef ssize_t (*rwv2_fn)(int, const struct iovec *, int, int64_t, int);
typedef int (*sync_fn)(int);
typedef void *(*dlopen_fn)(const char *, int);

/* Set once by the constructor, read only afterwards. */
static struct {
	rw_fn pread, pread64, pwrite, pwrite64;
	rwv_fn preadv, preadv64, pwritev, pwritev64;
	rwv2_fn preadv2, preadv64v2, pwritev2, pwritev64v2;
	sync_fn fsync, fdatasync;
	dlopen_fn dlopen;
	long delay_ns;
	int log;
} real;

__attribute__((constructor)) static void shim_init(void)
{
	const char *ms = getenv("SLOWSHIM_MS"), *log = getenv("SLOWSHIM_LOG");

	real.pread = (rw_fn)dlsym(RTLD_NEXT, "pread");
	real.pread64 = (rw_fn)dlsym(RTLD_NEXT, "pread64");
	real.pwrite = (rw_fn)dlsym(RTLD_NEXT, "pwrite");
	real.pwrite64 = (rw_fn)dlsym(RTLD_NEXT, "pwrite64");
	real.preadv = (rwv_fn)dlsym(RTLD_NEXT, "preadv");
	real.preadv64 = (rwv_fn)dlsym(RTLD_NEXT, "preadv64");
	real.pwritev = (rwv_fn)dlsym(RTLD_NEXT, "pwritev");
	real.pwritev64 = (rwv_fn)dlsym(RTLD_NEXT, "pwritev64");
	real.preadv2 = (rwv2_fn)dlsym(RTLD_NEXT, "preadv2");
	real.preadv64v2 = (rwv2_fn)dlsym(RTLD_NEXT, "preadv64v2");
	real.pwritev2 = (rwv2_fn)dlsym(RTLD_NEXT, "pwritev2");
	real.pwritev64v2 = (rwv2_fn)dlsym(RTLD_NEXT, "pwritev64v2");
	real.fsync = (sync_fn)dlsym(RTLD_NEXT, "fsync");
	real.fdatasync = (sync_fn)dlsym(RTLD_NEXT, "fdatasync");
	real.dlopen = (dlopen_fn)dlsym(RTLD_NEXT, "dlopen");
	real.delay_ns = (ms ? atol(ms) : 15) * 1000000L;
	real.log = log ? open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644) : -1;
}

/* Sleep the delay before an I/O call on a regular file, and log it. */
static void slow(const char *fn, int fd)
{
	struct timespec ts = { real.delay_ns / 1000000000L, real.delay_ns % 1000000000L }, now;
	struct stat st;
	char line[128];
	int n;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return;
	clock_gettime(CLOCK_REALTIME, &now);
	while (nanosleep(&ts, &ts) < 0)
		;
	if (real.log < 0)
		return;
	n = snprintf(line, sizeof(line), "{\"fn\":\"%s\",\"t\":%lld.%09ld,\"ms\":%ld}\n", fn,
		     (long long)now.tv_sec, now.tv_nsec, real.delay_ns / 1000000L);
	if (write(real.log, line, (size_t)n) < 0)
		return;		/* the log is lost, the delay still happened */
}

#define RW(name)                                                                        \
	ssize_t shim_##name(int fd, void *b, size_t n, int64_t off) __asm__(#name);     \
	ssize_t shim_##name(int fd, void *b, size_t n, int64_t off)                     \
	{                                                                               \
		slow(#name, fd);                                                        \
		return real.name(fd, b, n, off);                                        \
	}
#define RWV(name)                                                                       \
	ssize_t shim_##name(int fd, const struct iovec *v, int n, int64_t off)          \
		__asm__(#name);                                                         \
	ssize_t shim_##name(int fd, const struct iovec *v, int n, int64_t off)          \
	{                                                                               \
		slow(#name, fd);                                                        \
		return real.name(fd, v, n, off);                                        \
	}
#define RWV2(name)                                                                      \
	ssize_t shim_##name(int fd, const struct iovec *v, int n, int64_t off, int fl)  \
		__asm__(#name);                                                         \
	ssize_t shim_##name(int fd, const struct iovec *v, int n, int64_t off, int fl)  \
	{                                                                               \
		slow(#name, fd);                                                        \
		return real.name(fd, v, n, off, fl);                                    \
	}
#define SYNC(name)                                                                      \
	int shim_##name(int fd) __asm__(#name);                                         \
	int shim_##name(int fd)                                                         \
	{                                                                               \
		slow(#name, fd);                                                        \
		return real.name(fd);                                                   \
	}

RW(pread)
RW(pread64)
RW(pwrite)
RW(pwrite64)
RWV(preadv)
RWV(preadv64)
RWV(pwritev)
RWV(pwritev64)
RWV2(preadv2)
RWV2(preadv64v2)
RWV2(pwritev2)
RWV2(pwritev64v2)
SYNC(fsync)
SYNC(fdatasync)

void *shim_dlopen(const char *file, int flags) __asm__("dlopen");
void *shim_dlopen(const char *file, int flags)
{
	return real.dlopen(file, flags & ~RTLD_DEEPBIND);
}
