/*
 * leaseshim.c - an LD_PRELOAD library for nfs-ganesha 4.3 over FSAL_GLUSTER
 * under which ganesha grants read delegations (lab_v4_deleg.py).
 *
 *   LD_PRELOAD=libleaseshim.so LEASESHIM_LOG=FILE ganesha.nfsd ...
 *
 * ganesha grants a delegation only when its FSAL takes a lease on the
 * file; FSAL_GLUSTER's lease_op2 asks gfapi's glfs_lease().  On Debian 12
 * (ganesha 4.3-2, Gluster 10.3) that never succeeds: ganesha passes a
 * lease id of sixteen zero bytes (its fd's id comes from
 * op_ctx->client->addr, empty in 4.3), which gfapi refuses (EINVAL); with
 * an id given, the brick's leases translator refuses (EPERM, "Unable to
 * get fd ctx": the lease id of ganesha's opens does not reach it).  A
 * Gluster lease guards a file against opens that bypass ganesha; ganesha
 * is the volume's only client here, so this wrapper answers every
 * glfs_lease() with success and takes no lease.  Everything NFSv4 - the
 * grant, the conflicting OPEN found, CB_RECALL on the back channel,
 * NFS4ERR_DELAY to the opener, DELEGRETURN - is ganesha's own code.
 *
 * Each call is one line of LEASESHIM_LOG (one write(2), O_APPEND):
 * {"cmd":C,"type":T} with gfapi's values (cmd 2 set, 3 unlock; type 1
 * read, 2 read-write): the server's own count of the delegations it
 * granted and gave up.
 *
 * ganesha loads its FSALs with dlopen(RTLD_DEEPBIND), whose libraries
 * resolve their dependencies' symbols (libgfapi's glfs_lease) before the
 * preloaded ones: dlopen is wrapped and the flag cleared, as slowshim.c.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* gfapi's struct glfs_lease (glfs.h, GFAPI_4.0.0) */
struct lab_glfs_lease {
	int cmd;
	int lease_type;
	char lease_id[16];
	unsigned int lease_flags;
};

typedef void *(*dlopen_fn)(const char *, int);

/* Set once by the constructor, read only afterwards. */
static struct {
	dlopen_fn dlopen;
	int log;
} real = { NULL, -1 };

__attribute__((constructor)) static void shim_init(void)
{
	const char *log = getenv("LEASESHIM_LOG");

	real.dlopen = (dlopen_fn)dlsym(RTLD_NEXT, "dlopen");
	if (log && *log)
		real.log = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

void *shim_dlopen(const char *file, int flags) __asm__("dlopen");
void *shim_dlopen(const char *file, int flags)
{
	return real.dlopen(file, flags & ~RTLD_DEEPBIND);
}

int shim_glfs_lease(void *glfd, struct lab_glfs_lease *lease, void *fn,
		    void *data) __asm__("glfs_lease");
int shim_glfs_lease(void *glfd, struct lab_glfs_lease *lease, void *fn,
		    void *data)
{
	char line[64];
	int n;

	if (real.log >= 0) {
		n = snprintf(line, sizeof(line), "{\"cmd\":%d,\"type\":%d}\n",
			     lease->cmd, lease->lease_type);
		if (n > 0 && write(real.log, line, (size_t)n) != n)
			return 0;	/* the log is the lab's; the lease holds */
	}
	return 0;
}
