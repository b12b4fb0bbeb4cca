/*
 * labclient.c - the lab's own NFSv3 client, for the traffic the libnfs
 * utilities cannot make: UDP, a chosen rsize/wsize and retransmit timeout,
 * a rewrite loop with a COMMIT after each WRITE, a tight GETATTR loop.
 *
 *   labclient --server ADDR --export PATH [--proto udp|tcp] [--timeo MS]
 *             [--retries N] [--rsize N] [--wsize N] [--depth N] [--seed N]
 *             [--stable unstable|data|file] [--nocap 0|1] [--nagle 0|1]
 *             [--pieces N] --out FILE PHASE...
 *   PHASE = mixed[:FILES] | getattr:SECONDS | lookup:SECONDS | rewrite:COUNT | rw:BYTES |
 *           pipe:BYTES (TCP: --depth READs/WRITEs in flight, default 8) |
 *           sleep:SECONDS (no calls)
 *
 * Bodies are encoded and decoded by rpcgen's routines for tests/gen/nfs3.x
 * and RPC headers by libtirpc's xdr_callmsg/xdr_replymsg: nothing here
 * shares code with nfscope.  The transport is ours, not clnt_call, because
 * the client's record must say exactly what went on the wire: over UDP a
 * call is re-sent with the same xid after --timeo ms without its reply,
 * and every re-send is counted against its xid.  Over TCP nothing is ever
 * re-sent at the RPC level (the kernel's TCP does its own recovery).
 *
 * --out gets the client-side ground truth as JSON: per procedure the calls
 * made (one per operation), transmissions, re-sends, NFS/MOUNT errors; the
 * xids that were re-sent; READ and WRITE counts by size; the FSINFO seen;
 * WRITEs by stable_how asked/committed (--stable: what every WRITE asks);
 * short READs (fewer bytes than asked, not at EOF) and short WRITEs (reply
 * count below the count sent: the rest is sent again); each phase's
 * start and end (CLOCK_REALTIME, the captures' clock) and calls.
 * --nocap 1: rsize/wsize are not lowered to FSINFO's rtmax/wtmax (a client
 * asking more than the export allows).
 * --nagle 1 leaves Nagle's algorithm on (TCP_NODELAY is set otherwise);
 * --pieces N writes each TCP call in N writes of about equal size (an
 * application that hands its RPC layer a call in parts): with Nagle on,
 * a piece that is not a full segment waits for the ACK of the ones before.
 * lookup:S LOOKUPs one file it created, in a tight loop, for S seconds.
 * Exits 1 if a call is never answered or an RPC is refused.
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <rpc/rpc.h>

#include "nfs3.h"

#define NFS_PROG	100003
#define MOUNT_PROG	100005
#define NPROC		32	/* NFSv3 has 22 procedures, MOUNTv3 6 */
#define MAX_RESEND	1024	/* xids re-sent that the record lists */
#define BUF_MAX		(1024 * 1024 + 4096)	/* a 1 MiB WRITE and headers */
#define MAX_PHASES	16
#define SEND_BUCKETS	1024	/* a phase's sends per 10 ms, its first 10.24 s */

static const char *const nfs3_names[22] = {
	"NULL", "GETATTR", "SETATTR", "LOOKUP", "ACCESS", "READLINK", "READ",
	"WRITE", "CREATE", "MKDIR", "SYMLINK", "MKNOD", "REMOVE", "RMDIR",
	"RENAME", "LINK", "READDIR", "READDIRPLUS", "FSSTAT", "FSINFO",
	"PATHCONF", "COMMIT",
};
static const char *const mnt3_names[6] = {
	"NULL", "MNT", "DUMP", "UMNT", "UMNTALL", "EXPORT",
};

struct proc_count {
	uint64_t calls, sent, resent, errors;
};

/* A size histogram small enough for a test: sizes are few. */
struct sizes {
	uint32_t size[16];
	uint64_t n[16];
	int used;
};

struct conn {
	int fd;
	uint32_t prog, vers;
};

/* Everything one run owns; one instance, in main. */
struct lab {
	struct sockaddr_in server;
	bool tcp;
	int timeo_ms, retries;
	uint32_t rsize, wsize, xid;
	AUTH *auth;
	char *sbuf, *rbuf;		/* BUF_MAX each, owned */
	struct conn mnt, nfs;
	nfs_fh3 root;			/* owned copy of the MNT handle */
	struct proc_count nfs_count[NPROC], mnt_count[NPROC];
	struct { uint32_t xid, times; const char *proc; } resends[MAX_RESEND];
	int nresends;
	uint64_t late_replies;
	struct sizes reads, writes;
	FSINFO3resok fsinfo;
	bool have_fsinfo;
	unsigned seq;			/* names of created files */
	int depth;			/* calls in flight in pipe: phases */
	int stable;			/* stable_how every WRITE asks */
	bool nocap;			/* keep rsize/wsize above FSINFO's */
	bool nagle;			/* TCP_NODELAY left off */
	int pieces;			/* writes per TCP call (1: one) */
	uint64_t stable_count[3][3];	/* WRITEs: asked x committed */
	uint64_t short_reads, short_writes;
	struct {
		const char *spec;
		int64_t start_ns, end_ns;	/* before its first call, after
						   its last reply */
		int64_t first_call_ns, last_call_ns, max_gap_ns;	/* sends */
		uint64_t calls[NPROC];
		uint32_t sends[SEND_BUCKETS];	/* per 10 ms from start_ns */
	} phases[MAX_PHASES];
	int nphases;
};

#define DEPTH_MAX	64

static void die(const char *what)
{
	fprintf(stderr, "labclient: %s\n", what);
	exit(1);
}

static void sizes_add(struct sizes *s, uint32_t size)
{
	for (int i = 0; i < s->used; i++)
		if (s->size[i] == size) {
			s->n[i]++;
			return;
		}
	if (s->used == 16)
		die("more than 16 distinct transfer sizes");
	s->size[s->used] = size;
	s->n[s->used++] = 1;
}

/* ---------------------------------------------------------- transport -- */

static int conn_open(struct lab *L, struct conn *c, uint16_t port, uint32_t prog,
		     uint32_t vers)
{
	struct sockaddr_in sa = L->server;
	int one = 1;

	sa.sin_port = htons(port);
	c->prog = prog;
	c->vers = vers;
	c->fd = socket(AF_INET, L->tcp ? SOCK_STREAM : SOCK_DGRAM, 0);
	if (c->fd < 0)
		return -1;
	if (L->tcp && !L->nagle)
		setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	else {
		int sz = 4 * 1024 * 1024;	/* a 1 MiB reply must fit */

		setsockopt(c->fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
		setsockopt(c->fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	}
	return connect(c->fd, (struct sockaddr *)&sa, sizeof(sa));
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int read_all(int fd, char *p, size_t n)
{
	while (n) {
		ssize_t r = read(fd, p, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

/* A TCP call (record mark included) in L->pieces writes of about equal size. */
static int write_call(struct lab *L, int fd, const char *p, size_t n)
{
	size_t piece = (n + (size_t)L->pieces - 1) / (size_t)L->pieces;

	for (size_t off = 0; off < n; off += piece)
		if (write_all(fd, p + off, n - off < piece ? n - off : piece) < 0)
			return -1;
	return 0;
}

/* One record (RFC 5531 record marking), all its fragments joined. */
static ssize_t tcp_recv(int fd, char *buf, size_t max)
{
	size_t got = 0;
	uint32_t mark;

	do {
		uint32_t len;

		if (read_all(fd, (char *)&mark, 4) < 0)
			return -1;
		mark = ntohl(mark);
		len = mark & 0x7fffffffu;
		if (len > max - got || read_all(fd, buf + got, len) < 0)
			return -1;
		got += len;
	} while (!(mark & 0x80000000u));
	return (ssize_t)got;
}

static uint32_t buf_xid(const char *p)
{
	uint32_t x;

	memcpy(&x, p, 4);
	return ntohl(x);
}

static void note_resend(struct lab *L, uint32_t xid, const char *proc)
{
	for (int i = 0; i < L->nresends; i++)
		if (L->resends[i].xid == xid) {
			L->resends[i].times++;
			return;
		}
	if (L->nresends == MAX_RESEND)
		die("more re-sent calls than the record holds");
	L->resends[L->nresends].xid = xid;
	L->resends[L->nresends].proc = proc;
	L->resends[L->nresends++].times = 1;
}

/*
 * Send the call in sbuf[4..4+len) and wait for the reply with its xid.
 * UDP: re-send after timeo ms, up to `retries` times; replies to older
 * xids (answers to earlier re-sends) are counted and skipped.
 */
static ssize_t exchange(struct lab *L, struct conn *c, size_t len, uint32_t xid,
			struct proc_count *pc, const char *fname)
{
	if (L->tcp) {
		uint32_t mark = htonl(0x80000000u | (uint32_t)len);
		ssize_t n;

		memcpy(L->sbuf, &mark, 4);
		pc->sent++;
		if (write_call(L, c->fd, L->sbuf, len + 4) < 0)
			return -1;
		while ((n = tcp_recv(c->fd, L->rbuf, BUF_MAX)) >= 4 && buf_xid(L->rbuf) != xid)
			L->late_replies++;
		return n;
	}
	for (int tries = 0; tries <= L->retries; tries++) {
		struct pollfd p = { c->fd, POLLIN, 0 };

		if (tries) {
			pc->resent++;
			note_resend(L, xid, fname);
		}
		pc->sent++;
		if (send(c->fd, L->sbuf + 4, len, 0) != (ssize_t)len)
			return -1;
		while (poll(&p, 1, L->timeo_ms) > 0) {
			ssize_t n = recv(c->fd, L->rbuf, BUF_MAX, 0);

			if (n >= 4 && buf_xid(L->rbuf) == xid)
				return n;
			L->late_replies++;
		}
	}
	return -1;
}

static bool decode_reply(struct lab *L, size_t n, xdrproc_t xres, void *res)
{
	struct rpc_msg rep;
	XDR x;
	bool ok;

	memset(&rep, 0, sizeof(rep));
	rep.acpted_rply.ar_verf = _null_auth;
	rep.acpted_rply.ar_results.where = res;
	rep.acpted_rply.ar_results.proc = xres;
	xdrmem_create(&x, L->rbuf, (u_int)n, XDR_DECODE);
	ok = xdr_replymsg(&x, &rep) && rep.rm_reply.rp_stat == MSG_ACCEPTED &&
	     rep.acpted_rply.ar_stat == SUCCESS;
	xdr_destroy(&x);
	return ok;
}

/*
 * One RPC: encode header and arguments, exchange, decode the results into
 * *res (free with xdr_free(xres, res)).  Any failure ends the run: the
 * lab's record would be wrong otherwise.
 */
/* Encode a call header and its arguments into sbuf[4..); returns the
 * length encoded, the call's xid in *xid. */
static size_t encode_call(struct lab *L, struct conn *c, uint32_t proc, xdrproc_t xargs,
			  void *args, uint32_t *xid)
{
	struct rpc_msg call;
	size_t len;
	XDR x;

	memset(&call, 0, sizeof(call));
	call.rm_xid = ++L->xid;
	call.rm_direction = CALL;
	call.rm_call.cb_rpcvers = 2;
	call.rm_call.cb_prog = c->prog;
	call.rm_call.cb_vers = c->vers;
	call.rm_call.cb_proc = proc;
	call.rm_call.cb_cred = L->auth->ah_cred;
	call.rm_call.cb_verf = L->auth->ah_verf;
	xdrmem_create(&x, L->sbuf + 4, BUF_MAX - 4, XDR_ENCODE);
	if (!xdr_callmsg(&x, &call) || !xargs(&x, args))
		die("cannot encode a call");
	len = xdr_getpos(&x);
	xdr_destroy(&x);
	*xid = call.rm_xid;
	return len;
}

static int64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A call is about to go out: the phase's first and last send and the
 * longest pause between two sends (a loaded machine stalls the client). */
static void note_send(struct lab *L)
{
	int64_t now = realtime_ns(), b;

	if (!L->nphases)
		return;		/* MNT, FSINFO before the phases */
	b = (now - L->phases[L->nphases - 1].start_ns) / 10000000;
	if (b >= 0 && b < SEND_BUCKETS)
		L->phases[L->nphases - 1].sends[b]++;
	if (L->phases[L->nphases - 1].first_call_ns == 0)
		L->phases[L->nphases - 1].first_call_ns = now;
	else if (now - L->phases[L->nphases - 1].last_call_ns >
		 L->phases[L->nphases - 1].max_gap_ns)
		L->phases[L->nphases - 1].max_gap_ns =
			now - L->phases[L->nphases - 1].last_call_ns;
	L->phases[L->nphases - 1].last_call_ns = now;
}

static struct proc_count *count_of(struct lab *L, struct conn *c, uint32_t proc)
{
	return c->prog == NFS_PROG ? &L->nfs_count[proc] : &L->mnt_count[proc];
}

static void rpc(struct lab *L, struct conn *c, uint32_t proc, xdrproc_t xargs, void *args,
		xdrproc_t xres, void *res)
{
	struct proc_count *pc = count_of(L, c, proc);
	const char *fname = c->prog == NFS_PROG ? nfs3_names[proc] : mnt3_names[proc];
	uint32_t xid;
	size_t len = encode_call(L, c, proc, xargs, args, &xid);
	ssize_t n;

	pc->calls++;
	note_send(L);
	n = exchange(L, c, len, xid, pc, fname);
	if (n < 0) {
		fprintf(stderr, "labclient: %s xid 0x%08x: no reply\n", fname, xid);
		exit(1);
	}
	memset(res, 0, 256);	/* every result struct used here is smaller */
	if (!decode_reply(L, (size_t)n, xres, res)) {
		fprintf(stderr, "labclient: %s xid 0x%08x: RPC refused\n", fname, xid);
		exit(1);
	}
}

/* The status is the first member of every NFSv3/MOUNTv3 result. */
static int status_of(struct lab *L, struct conn *c, uint32_t proc, const void *res)
{
	int st;

	memcpy(&st, res, sizeof(st));
	if (st)
		(c->prog == NFS_PROG ? L->nfs_count : L->mnt_count)[proc].errors++;
	return st;
}

/* ------------------------------------------------------- procedures -- */

union res {
	char room[256];
	mountres3 mnt;
	GETATTR3res getattr;
	LOOKUP3res lookup;
	ACCESS3res access;
	READ3res read;
	WRITE3res write;
	CREATE3res create;
	MKDIR3res mkdir;
	REMOVE3res remove;
	SETATTR3res setattr;
	READDIRPLUS3res readdirplus;
	READDIR3res readdir;
	FSSTAT3res fsstat;
	FSINFO3res fsinfo;
	PATHCONF3res pathconf;
	COMMIT3res commit;
};

#define CALL(L, c, proc, xa, a, xr, r) \
	rpc(L, c, proc, (xdrproc_t)(xa), a, (xdrproc_t)(xr), r)

static void fh_copy(nfs_fh3 *dst, const char *val, u_int len)
{
	dst->data.data_len = len;
	dst->data.data_val = malloc(len ? len : 1);
	if (!dst->data.data_val)
		die("out of memory");
	memcpy(dst->data.data_val, val, len);
}

static void do_mount(struct lab *L, const char *export)
{
	union res r;
	dirpath p = (char *)export;

	CALL(L, &L->mnt, 1, xdr_dirpath, &p, xdr_mountres3, &r);
	if (status_of(L, &L->mnt, 1, &r))
		die("MNT refused");
	fh_copy(&L->root, r.mnt.mountres3_u.mountinfo.fhandle.fhandle3_val,
		r.mnt.mountres3_u.mountinfo.fhandle.fhandle3_len);
	xdr_free((xdrproc_t)xdr_mountres3, (char *)&r);
}

static void do_umount(struct lab *L, const char *export)
{
	union res r;
	dirpath p = (char *)export;

	CALL(L, &L->mnt, 3, xdr_dirpath, &p, xdr_void, &r);
}

static void do_fsinfo(struct lab *L)
{
	FSINFO3args a = { L->root };
	union res r;

	CALL(L, &L->nfs, 19, xdr_FSINFO3args, &a, xdr_FSINFO3res, &r);
	if (status_of(L, &L->nfs, 19, &r))
		die("FSINFO failed");
	L->fsinfo = r.fsinfo.FSINFO3res_u.resok;
	L->have_fsinfo = true;
	/* like a real client: never ask for more than the server allows */
	if (!L->nocap && L->rsize > L->fsinfo.rtmax)
		L->rsize = L->fsinfo.rtmax;
	if (!L->nocap && L->wsize > L->fsinfo.wtmax)
		L->wsize = L->fsinfo.wtmax;
	xdr_free((xdrproc_t)xdr_FSINFO3res, (char *)&r);
}

static void do_getattr(struct lab *L, nfs_fh3 fh)
{
	GETATTR3args a = { fh };
	union res r;

	CALL(L, &L->nfs, 1, xdr_GETATTR3args, &a, xdr_GETATTR3res, &r);
	status_of(L, &L->nfs, 1, &r);
	xdr_free((xdrproc_t)xdr_GETATTR3res, (char *)&r);
}

/* LOOKUP; returns true and an owned handle in *out if found */
static bool do_lookup(struct lab *L, nfs_fh3 dir, const char *fname, nfs_fh3 *out)
{
	LOOKUP3args a = { { dir, (char *)fname } };
	union res r;
	bool found;

	CALL(L, &L->nfs, 3, xdr_LOOKUP3args, &a, xdr_LOOKUP3res, &r);
	found = !status_of(L, &L->nfs, 3, &r);
	if (found && out)
		fh_copy(out, r.lookup.LOOKUP3res_u.resok.object.data.data_val,
			r.lookup.LOOKUP3res_u.resok.object.data.data_len);
	xdr_free((xdrproc_t)xdr_LOOKUP3res, (char *)&r);
	return found;
}

static void do_access(struct lab *L, nfs_fh3 fh)
{
	ACCESS3args a = { fh, 0x3f };
	union res r;

	CALL(L, &L->nfs, 4, xdr_ACCESS3args, &a, xdr_ACCESS3res, &r);
	status_of(L, &L->nfs, 4, &r);
	xdr_free((xdrproc_t)xdr_ACCESS3res, (char *)&r);
}

/* CREATE (UNCHECKED, mode 0644); returns an owned handle */
static nfs_fh3 do_create(struct lab *L, const char *fname)
{
	CREATE3args a;
	union res r;
	nfs_fh3 fh;

	memset(&a, 0, sizeof(a));
	a.where.dir = L->root;
	a.where.name = (char *)fname;
	a.how.mode = UNCHECKED;
	a.how.createhow3_u.obj_attributes.mode.set_it = 1;
	a.how.createhow3_u.obj_attributes.mode.set_mode3_u.mode = 0644;
	CALL(L, &L->nfs, 8, xdr_CREATE3args, &a, xdr_CREATE3res, &r);
	if (status_of(L, &L->nfs, 8, &r) || !r.create.CREATE3res_u.resok.obj.handle_follows)
		die("CREATE failed or returned no handle");
	fh_copy(&fh, r.create.CREATE3res_u.resok.obj.post_op_fh3_u.handle.data.data_val,
		r.create.CREATE3res_u.resok.obj.post_op_fh3_u.handle.data.data_len);
	xdr_free((xdrproc_t)xdr_CREATE3res, (char *)&r);
	return fh;
}

/* WRITE at --stable; returns the count the server granted (> 0) */
static uint32_t do_write(struct lab *L, nfs_fh3 fh, uint64_t off, uint32_t count,
			 char *data)
{
	WRITE3args a = { fh, off, count, (stable_how)L->stable, { count, data } };
	union res r;
	uint32_t got;
	int committed;

	sizes_add(&L->writes, count);
	CALL(L, &L->nfs, 7, xdr_WRITE3args, &a, xdr_WRITE3res, &r);
	if (status_of(L, &L->nfs, 7, &r))
		die("WRITE failed");
	got = r.write.WRITE3res_u.resok.count;
	committed = (int)r.write.WRITE3res_u.resok.committed;
	if (got == 0 || got > count || committed < 0 || committed > 2)
		die("WRITE granted nothing, more than asked, or a bad stable_how");
	L->stable_count[L->stable][committed]++;
	L->short_writes += got < count;
	xdr_free((xdrproc_t)xdr_WRITE3res, (char *)&r);
	return got;
}

static void do_commit(struct lab *L, nfs_fh3 fh, uint64_t off, uint32_t count)
{
	COMMIT3args a = { fh, off, count };
	union res r;

	CALL(L, &L->nfs, 21, xdr_COMMIT3args, &a, xdr_COMMIT3res, &r);
	if (status_of(L, &L->nfs, 21, &r))
		die("COMMIT failed");
	xdr_free((xdrproc_t)xdr_COMMIT3res, (char *)&r);
}

/* READ count bytes at off; returns the bytes read, *eof set */
static uint32_t do_read(struct lab *L, nfs_fh3 fh, uint64_t off, uint32_t count, bool *eof)
{
	READ3args a = { fh, off, count };
	union res r;
	uint32_t got = 0;

	sizes_add(&L->reads, count);
	CALL(L, &L->nfs, 6, xdr_READ3args, &a, xdr_READ3res, &r);
	*eof = true;
	if (!status_of(L, &L->nfs, 6, &r)) {
		got = r.read.READ3res_u.resok.count;
		*eof = r.read.READ3res_u.resok.eof;
		L->short_reads += got < count && !*eof;
	}
	xdr_free((xdrproc_t)xdr_READ3res, (char *)&r);
	return got;
}

static void do_remove(struct lab *L, const char *fname)
{
	diropargs3 a = { L->root, (char *)fname };
	union res r;

	CALL(L, &L->nfs, 12, xdr_diropargs3, &a, xdr_REMOVE3res, &r);
	status_of(L, &L->nfs, 12, &r);
	xdr_free((xdrproc_t)xdr_REMOVE3res, (char *)&r);
}

static void do_setattr_size(struct lab *L, nfs_fh3 fh, uint64_t size)
{
	SETATTR3args a;
	union res r;

	memset(&a, 0, sizeof(a));
	a.object = fh;
	a.new_attributes.size.set_it = 1;
	a.new_attributes.size.set_size3_u.size = size;
	CALL(L, &L->nfs, 2, xdr_SETATTR3args, &a, xdr_SETATTR3res, &r);
	status_of(L, &L->nfs, 2, &r);
	xdr_free((xdrproc_t)xdr_SETATTR3res, (char *)&r);
}

static void do_mkdir_rmdir(struct lab *L, const char *fname)
{
	MKDIR3args a;
	diropargs3 d = { L->root, (char *)fname };
	union res r;

	memset(&a, 0, sizeof(a));
	a.where = d;
	a.attributes.mode.set_it = 1;
	a.attributes.mode.set_mode3_u.mode = 0755;
	CALL(L, &L->nfs, 9, xdr_MKDIR3args, &a, xdr_MKDIR3res, &r);
	status_of(L, &L->nfs, 9, &r);
	xdr_free((xdrproc_t)xdr_MKDIR3res, (char *)&r);
	CALL(L, &L->nfs, 13, xdr_diropargs3, &d, xdr_RMDIR3res, &r);
	status_of(L, &L->nfs, 13, &r);
	xdr_free((xdrproc_t)xdr_RMDIR3res, (char *)&r);
}

static void do_readdirs(struct lab *L)
{
	READDIRPLUS3args p;
	READDIR3args d;
	union res r;

	memset(&p, 0, sizeof(p));
	p.dir = L->root;
	p.dircount = 4096;
	p.maxcount = 32768;
	CALL(L, &L->nfs, 17, xdr_READDIRPLUS3args, &p, xdr_READDIRPLUS3res, &r);
	status_of(L, &L->nfs, 17, &r);
	xdr_free((xdrproc_t)xdr_READDIRPLUS3res, (char *)&r);
	memset(&d, 0, sizeof(d));
	d.dir = L->root;
	d.count = 8192;
	CALL(L, &L->nfs, 16, xdr_READDIR3args, &d, xdr_READDIR3res, &r);
	status_of(L, &L->nfs, 16, &r);
	xdr_free((xdrproc_t)xdr_READDIR3res, (char *)&r);
}

static void do_fsstat_pathconf(struct lab *L)
{
	FSSTAT3args a = { L->root };
	PATHCONF3args b = { L->root };
	union res r;

	CALL(L, &L->nfs, 18, xdr_FSSTAT3args, &a, xdr_FSSTAT3res, &r);
	status_of(L, &L->nfs, 18, &r);
	xdr_free((xdrproc_t)xdr_FSSTAT3res, (char *)&r);
	CALL(L, &L->nfs, 20, xdr_PATHCONF3args, &b, xdr_PATHCONF3res, &r);
	status_of(L, &L->nfs, 20, &r);
	xdr_free((xdrproc_t)xdr_PATHCONF3res, (char *)&r);
}

/* ------------------------------------------------------------ phases -- */

static char *pattern(uint32_t n)
{
	char *p = malloc(n ? n : 1);

	if (!p)
		die("out of memory");
	for (uint32_t i = 0; i < n; i++)
		p[i] = (char)('a' + i % 26);
	return p;
}

/* Write `bytes` in wsize chunks (--stable; a short WRITE's rest is sent
 * again), one COMMIT, read it all back. */
static void phase_rw(struct lab *L, uint64_t bytes)
{
	char fname[64], *data = pattern(L->wsize);
	nfs_fh3 fh;
	uint64_t off;
	bool eof = false;

	snprintf(fname, sizeof(fname), "rw-%u", L->seq++);
	fh = do_create(L, fname);
	for (off = 0; off < bytes; ) {
		uint32_t room = L->wsize - (uint32_t)(off % L->wsize);	/* of the chunk */
		uint32_t n = bytes - off < room ? (uint32_t)(bytes - off) : room;

		off += do_write(L, fh, off, n, data + (off % L->wsize));
	}
	do_commit(L, fh, 0, 0);
	for (off = 0; !eof; ) {
		uint32_t got = do_read(L, fh, off, L->rsize, &eof);

		off += got;
		if (!got && !eof)
			die("READ returned nothing before EOF");
	}
	do_remove(L, fname);
	free(data);
	xdr_free((xdrproc_t)xdr_nfs_fh3, (char *)&fh);
}

/* A bit of everything an application does, with errors (NOENT) in it. */
static void phase_mixed(struct lab *L, unsigned files)
{
	char fname[64];

	do_getattr(L, L->root);
	do_fsstat_pathconf(L);
	do_access(L, L->root);
	for (unsigned i = 0; i < files; i++) {
		nfs_fh3 fh;

		snprintf(fname, sizeof(fname), "mixed-%u", L->seq);
		if (do_lookup(L, L->root, fname, NULL))
			die("a file the lab never made exists");
		phase_rw(L, 4 * (uint64_t)L->wsize);	/* its own file, rw-N */
		snprintf(fname, sizeof(fname), "mixed-%u", L->seq++);
		fh = do_create(L, fname);
		do_setattr_size(L, fh, 1000);
		do_getattr(L, fh);
		do_access(L, fh);
		xdr_free((xdrproc_t)xdr_nfs_fh3, (char *)&fh);
		if (!do_lookup(L, L->root, fname, &fh))
			die("LOOKUP of a created file failed");
		xdr_free((xdrproc_t)xdr_nfs_fh3, (char *)&fh);
	}
	do_readdirs(L);
	snprintf(fname, sizeof(fname), "dir-%u", L->seq++);
	do_mkdir_rmdir(L, fname);
	for (unsigned i = 0; i < L->seq; i++) {
		snprintf(fname, sizeof(fname), "mixed-%u", i);
		if (do_lookup(L, L->root, fname, NULL))
			do_remove(L, fname);
	}
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void phase_getattr(struct lab *L, double seconds)
{
	double end = now_s() + seconds;

	while (now_s() < end)
		do_getattr(L, L->root);
}

/* A LOOKUP storm: one existing name, looked up again and again. */
static void phase_lookup(struct lab *L, double seconds)
{
	char fname[64];
	nfs_fh3 fh;
	double end;

	snprintf(fname, sizeof(fname), "lookup-%u", L->seq++);
	fh = do_create(L, fname);
	end = now_s() + seconds;
	xdr_free((xdrproc_t)xdr_nfs_fh3, (char *)&fh);
	while (now_s() < end)
		if (!do_lookup(L, L->root, fname, NULL))
			die("LOOKUP of a created file failed");
	do_remove(L, fname);
}

/* The rewrite pattern: a database-like client rewrites a few blocks and
 * COMMITs each one before going on. */
static void phase_rewrite(struct lab *L, unsigned count)
{
	char fname[64], *data = pattern(L->wsize);
	nfs_fh3 fh;

	snprintf(fname, sizeof(fname), "rewrite-%u", L->seq++);
	fh = do_create(L, fname);
	for (unsigned i = 0; i < count; i++) {
		uint64_t off = (uint64_t)(i % 8) * L->wsize;

		do_write(L, fh, off, L->wsize, data);
		do_commit(L, fh, off, L->wsize);
	}
	do_remove(L, fname);
	free(data);
	xdr_free((xdrproc_t)xdr_nfs_fh3, (char *)&fh);
}

/*
 * Pipelining (TCP only), as kernel clients and libnfs do with large
 * transfers: up to L->depth READs or WRITEs in flight on one connection,
 * replies taken in whatever order the server sends them.
 */
struct window {
	uint32_t xid[DEPTH_MAX], proc[DEPTH_MAX], count[DEPTH_MAX];
	int n;
};

static void pipe_send(struct lab *L, struct window *w, uint32_t proc, xdrproc_t xargs,
		      void *args, uint32_t count)
{
	struct proc_count *pc = &L->nfs_count[proc];
	uint32_t xid, mark;
	size_t len = encode_call(L, &L->nfs, proc, xargs, args, &xid);

	mark = htonl(0x80000000u | (uint32_t)len);
	memcpy(L->sbuf, &mark, 4);
	pc->calls++;
	pc->sent++;
	note_send(L);
	if (write_call(L, L->nfs.fd, L->sbuf, len + 4) < 0)
		die("cannot send a pipelined call");
	w->xid[w->n] = xid;
	w->proc[w->n] = proc;
	w->count[w->n++] = count;
}

/* Take one reply off the connection and retire its call. */
static void pipe_recv(struct lab *L, struct window *w)
{
	ssize_t n = tcp_recv(L->nfs.fd, L->rbuf, BUF_MAX);
	union res r;
	int i;

	if (n < 4)
		die("connection lost with calls in flight");
	for (i = 0; i < w->n && w->xid[i] != buf_xid(L->rbuf); i++)
		;
	if (i == w->n)
		die("a reply to no call in flight");
	memset(&r, 0, sizeof(r));
	if (w->proc[i] == 7) {
		if (!decode_reply(L, (size_t)n, (xdrproc_t)xdr_WRITE3res, &r) ||
		    status_of(L, &L->nfs, 7, &r) ||
		    r.write.WRITE3res_u.resok.count != w->count[i])
			die("pipelined WRITE failed or short");
		xdr_free((xdrproc_t)xdr_WRITE3res, (char *)&r);
	} else {
		if (!decode_reply(L, (size_t)n, (xdrproc_t)xdr_READ3res, &r) ||
		    status_of(L, &L->nfs, 6, &r) ||
		    r.read.READ3res_u.resok.count != w->count[i])
			die("pipelined READ failed or short");
		xdr_free((xdrproc_t)xdr_READ3res, (char *)&r);
	}
	w->n--;
	w->xid[i] = w->xid[w->n];
	w->proc[i] = w->proc[w->n];
	w->count[i] = w->count[w->n];
}

/* Write `bytes` in wsize chunks, depth in flight; COMMIT; read them back
 * in rsize chunks, depth in flight (each READ asks exactly what is left). */
static void phase_pipe(struct lab *L, uint64_t bytes)
{
	char fname[64], *data = pattern(L->wsize);
	struct window w = { .n = 0 };
	nfs_fh3 fh;
	uint64_t off;

	if (!L->tcp || L->depth < 1 || L->depth > DEPTH_MAX)
		die("pipe: needs --proto tcp and 1 <= --depth <= 64");
	snprintf(fname, sizeof(fname), "pipe-%u", L->seq++);
	fh = do_create(L, fname);
	for (off = 0; off < bytes; off += L->wsize) {
		uint32_t n = bytes - off < L->wsize ? (uint32_t)(bytes - off) : L->wsize;
		WRITE3args a = { fh, off, n, UNSTABLE, { n, data } };

		if (w.n == L->depth)
			pipe_recv(L, &w);
		sizes_add(&L->writes, n);
		pipe_send(L, &w, 7, (xdrproc_t)xdr_WRITE3args, &a, n);
	}
	while (w.n)
		pipe_recv(L, &w);
	do_commit(L, fh, 0, 0);
	for (off = 0; off < bytes; off += L->rsize) {
		uint32_t n = bytes - off < L->rsize ? (uint32_t)(bytes - off) : L->rsize;
		READ3args a = { fh, off, n };

		if (w.n == L->depth)
			pipe_recv(L, &w);
		sizes_add(&L->reads, n);
		pipe_send(L, &w, 6, (xdrproc_t)xdr_READ3args, &a, n);
	}
	while (w.n)
		pipe_recv(L, &w);
	do_remove(L, fname);
	free(data);
	xdr_free((xdrproc_t)xdr_nfs_fh3, (char *)&fh);
}

static void run_phase(struct lab *L, const char *spec)
{
	const char *arg = strchr(spec, ':');
	double v = arg ? strtod(arg + 1, NULL) : 0;
	int k = L->nphases++;

	if (k == MAX_PHASES)
		die("more phases than the record holds");
	L->phases[k].spec = spec;
	for (int i = 0; i < NPROC; i++)
		L->phases[k].calls[i] = L->nfs_count[i].calls;
	L->phases[k].start_ns = realtime_ns();

	if (!strncmp(spec, "mixed", 5))
		phase_mixed(L, arg ? (unsigned)v : 3);
	else if (!strncmp(spec, "getattr:", 8))
		phase_getattr(L, v);
	else if (!strncmp(spec, "lookup:", 7))
		phase_lookup(L, v);
	else if (!strncmp(spec, "rewrite:", 8))
		phase_rewrite(L, (unsigned)v);
	else if (!strncmp(spec, "rw:", 3))
		phase_rw(L, (uint64_t)v);
	else if (!strncmp(spec, "pipe:", 5))
		phase_pipe(L, (uint64_t)v);
	else if (!strncmp(spec, "sleep:", 6)) {
		struct timespec ts = { (time_t)v, (long)((v - (double)(time_t)v) * 1e9) };

		nanosleep(&ts, NULL);	/* idle: no call */
	} else
		die("unknown phase");
	L->phases[k].end_ns = realtime_ns();
	for (int i = 0; i < NPROC; i++)
		L->phases[k].calls[i] = L->nfs_count[i].calls - L->phases[k].calls[i];
}

/* ------------------------------------------------------------ record -- */

static void put_counts(FILE *f, const char *prog, const char *const *names, int n,
		       const struct proc_count *pc, bool *first)
{
	for (int i = 0; i < n; i++) {
		if (!pc[i].calls)
			continue;
		fprintf(f, "%s\n    \"%s %s\": {\"calls\": %llu, \"sent\": %llu, "
			"\"resent\": %llu, \"errors\": %llu}", *first ? "" : ",", prog,
			names[i], (unsigned long long)pc[i].calls,
			(unsigned long long)pc[i].sent, (unsigned long long)pc[i].resent,
			(unsigned long long)pc[i].errors);
		*first = false;
	}
}

static void put_sizes(FILE *f, const char *key, const struct sizes *s)
{
	fprintf(f, ",\n  \"%s\": {", key);
	for (int i = 0; i < s->used; i++)
		fprintf(f, "%s\"%u\": %llu", i ? ", " : "", s->size[i],
			(unsigned long long)s->n[i]);
	fputs("}", f);
}

static const char *const stable_names[3] = { "UNSTABLE", "DATA_SYNC", "FILE_SYNC" };

/* WRITEs by "ASKED/COMMITTED", as nfscope's stable_asked_granted */
static void put_stable(FILE *f, const struct lab *L)
{
	bool first = true;

	fputs(",\n  \"write_stable\": {", f);
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			if (L->stable_count[i][j]) {
				fprintf(f, "%s\"%s/%s\": %llu", first ? "" : ", ",
					stable_names[i], stable_names[j],
					(unsigned long long)L->stable_count[i][j]);
				first = false;
			}
	fputs("}", f);
}

/* A phase's sends per 10 ms, through its last non-empty bucket. */
static void put_sends(FILE *f, const uint32_t *sends)
{
	int n = SEND_BUCKETS;

	while (n > 0 && !sends[n - 1])
		n--;
	for (int i = 0; i < n; i++)
		fprintf(f, "%s%u", i ? "," : "", sends[i]);
}

/* Each phase: its spec, its start and end (ns since the epoch), its
 * first and last call sent and the longest pause between two sends, NFS
 * calls per procedure in it, its sends per 10 ms from its start. */
static void put_phases(FILE *f, const struct lab *L)
{
	fputs(",\n  \"phases\": [", f);
	for (int k = 0; k < L->nphases; k++) {
		bool first = true;

		fprintf(f, "%s\n    {\"phase\": \"%s\", \"start_ns\": %lld, \"end_ns\": %lld, "
			"\"first_call_ns\": %lld, \"last_call_ns\": %lld, \"max_gap_ns\": %lld, "
			"\"calls\": {", k ? "," : "", L->phases[k].spec,
			(long long)L->phases[k].start_ns, (long long)L->phases[k].end_ns,
			(long long)L->phases[k].first_call_ns,
			(long long)L->phases[k].last_call_ns,
			(long long)L->phases[k].max_gap_ns);
		for (int i = 0; i < 22; i++)
			if (L->phases[k].calls[i]) {
				fprintf(f, "%s\"NFSv3 %s\": %llu", first ? "" : ", ",
					nfs3_names[i],
					(unsigned long long)L->phases[k].calls[i]);
				first = false;
			}
		fputs("}, \"sends_10ms\": [", f);
		put_sends(f, L->phases[k].sends);
		fputs("]}", f);
	}
	fputs("]", f);
}

static void write_record(const struct lab *L, const char *path)
{
	FILE *f = fopen(path, "w");
	bool first = true;

	if (!f)
		die("cannot write the record");
	fprintf(f, "{\n  \"transport\": \"%s\", \"timeo_ms\": %d, \"rsize\": %u, \"wsize\": %u,\n"
		"  \"depth\": %d, \"procedures\": {", L->tcp ? "tcp" : "udp", L->timeo_ms, L->rsize,
		L->wsize, L->depth);
	put_counts(f, "NFSv3", nfs3_names, 22, L->nfs_count, &first);
	put_counts(f, "MOUNTv3", mnt3_names, 6, L->mnt_count, &first);
	fputs("\n  },\n  \"resent_xids\": {", f);
	for (int i = 0; i < L->nresends; i++)
		fprintf(f, "%s\"0x%08x\": {\"procedure\": \"%s\", \"times\": %u}", i ? ", " : "",
			L->resends[i].xid, L->resends[i].proc, L->resends[i].times);
	fprintf(f, "},\n  \"late_replies\": %llu", (unsigned long long)L->late_replies);
	put_sizes(f, "read_sizes", &L->reads);
	put_sizes(f, "write_sizes", &L->writes);
	put_stable(f, L);
	fprintf(f, ",\n  \"short_reads\": %llu, \"short_writes\": %llu",
		(unsigned long long)L->short_reads, (unsigned long long)L->short_writes);
	put_phases(f, L);
	if (L->have_fsinfo)
		fprintf(f, ",\n  \"fsinfo\": {\"rtmax\": %u, \"rtpref\": %u, \"wtmax\": %u, "
			"\"wtpref\": %u}", L->fsinfo.rtmax, L->fsinfo.rtpref,
			L->fsinfo.wtmax, L->fsinfo.wtpref);
	fputs("\n}\n", f);
	if (fclose(f))
		die("cannot write the record");
}

/* -------------------------------------------------------------- main -- */

static void usage(void)
{
	fputs("usage: labclient --server ADDR --export PATH [--proto udp|tcp] [--timeo MS]\n"
	      "                 [--retries N] [--rsize N] [--wsize N] [--depth N] [--seed N]\n"
	      "                 [--stable unstable|data|file] [--nocap 0|1] [--nagle 0|1]\n"
	      "                 [--pieces N] --out FILE PHASE...\n"
	      "   PHASE = mixed[:FILES] getattr:S lookup:S rewrite:N rw:BYTES pipe:BYTES\n"
	      "           sleep:S\n",
	      stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	static struct lab L;
	const char *export = NULL, *out = NULL;
	int i;

	L.server.sin_family = AF_INET;
	L.timeo_ms = 300;
	L.retries = 30;
	L.rsize = L.wsize = 32768;
	L.depth = 8;
	L.pieces = 1;
	for (i = 1; i + 1 < argc && !strncmp(argv[i], "--", 2); i += 2) {
		const char *o = argv[i], *v = argv[i + 1];

		if (!strcmp(o, "--server") && inet_pton(AF_INET, v, &L.server.sin_addr) == 1)
			continue;
		if (!strcmp(o, "--export"))
			export = v;
		else if (!strcmp(o, "--proto"))
			L.tcp = !strcmp(v, "tcp");
		else if (!strcmp(o, "--timeo"))
			L.timeo_ms = atoi(v);
		else if (!strcmp(o, "--retries"))
			L.retries = atoi(v);
		else if (!strcmp(o, "--rsize"))
			L.rsize = (uint32_t)atol(v);
		else if (!strcmp(o, "--depth"))
			L.depth = atoi(v);
		else if (!strcmp(o, "--wsize"))
			L.wsize = (uint32_t)atol(v);
		else if (!strcmp(o, "--seed"))
			L.xid = (uint32_t)strtoul(v, NULL, 0) * 0x10000u;	/* xid base */
		else if (!strcmp(o, "--out"))
			out = v;
		else if (!strcmp(o, "--stable"))
			L.stable = !strcmp(v, "file") ? FILE_SYNC : !strcmp(v, "data") ?
				   DATA_SYNC : UNSTABLE;
		else if (!strcmp(o, "--nocap"))
			L.nocap = atoi(v) != 0;
		else if (!strcmp(o, "--nagle"))
			L.nagle = atoi(v) != 0;
		else if (!strcmp(o, "--pieces") && atoi(v) >= 1)
			L.pieces = atoi(v);
		else
			usage();
	}
	if (!export || !out || i == argc || !L.server.sin_addr.s_addr)
		usage();
	L.sbuf = malloc(BUF_MAX);
	L.rbuf = malloc(BUF_MAX);
	L.auth = authunix_create("lab", 0, 0, 0, NULL);
	if (!L.sbuf || !L.rbuf || !L.auth)
		die("out of memory");
	if (conn_open(&L, &L.mnt, 20048, MOUNT_PROG, 3) < 0 ||
	    conn_open(&L, &L.nfs, 2049, NFS_PROG, 3) < 0)
		die("cannot reach the server");
	do_mount(&L, export);
	do_fsinfo(&L);
	for (; i < argc; i++)
		run_phase(&L, argv[i]);
	do_umount(&L, export);
	write_record(&L, out);
	return 0;
}
