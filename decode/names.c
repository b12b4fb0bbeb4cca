/*
 * names.c - RFC names for programs, procedures and status enums.
 *
 * Const tables only; every index is range-checked (name_at) and sparse
 * enums are switches.  Unknown values give NULL: the printer shows the
 * number.
 */
#include "decode/decode_int.h"

#define COUNT(t) (sizeof(t) / sizeof((t)[0]))

static const char *
name_at(const char *const *t, size_t n, uint32_t i)
{
	return i < n ? t[i] : NULL;
}

const char *
dec_prog_name(uint32_t prog)
{
	switch (prog) {
	case PROG_PORTMAP: return "PORTMAP";
	case 100001: return "RSTAT";
	case 100002: return "RUSERS";
	case PROG_NFS: return "NFS";
	case 100004: return "YPSERV";
	case PROG_MOUNT: return "MOUNT";
	case 100007: return "YPBIND";
	case 100008: return "WALL";
	case 100009: return "YPPASSWD";
	case 100011: return "RQUOTA";
	case 100012: return "SPRAY";
	case 100017: return "REX";
	case PROG_NLM: return "NLM";
	case PROG_NSM: return "STATUS";
	case 100069: return "YPXFR";
	case 100083: return "TTDBSERVER";
	case PROG_NFS_ACL: return "NFS_ACL";
	case 100232: return "SADMIND";
	case 100249: return "SMSERVER";
	case 150001: return "PCNFSD";
	case 300019: return "AMD";
	case 391002: return "SGI_FAM";
	case PROG_NFS4_CB: return "NFS4_CB";
	default: return NULL;
	}
}

static const char *const nfs2_procs[] = {
	"NULL", "GETATTR", "SETATTR", "ROOT", "LOOKUP", "READLINK", "READ",
	"WRITECACHE", "WRITE", "CREATE", "REMOVE", "RENAME", "LINK",
	"SYMLINK", "MKDIR", "RMDIR", "READDIR", "STATFS",
};

static const char *const nfs3_procs[] = {
	"NULL", "GETATTR", "SETATTR", "LOOKUP", "ACCESS", "READLINK", "READ",
	"WRITE", "CREATE", "MKDIR", "SYMLINK", "MKNOD", "REMOVE", "RMDIR",
	"RENAME", "LINK", "READDIR", "READDIRPLUS", "FSSTAT", "FSINFO",
	"PATHCONF", "COMMIT",
};

/* MOUNT v1 (RFC 1094), v2 adds PATHCONF (7), v3 stops at EXPORT (5) */
static const char *const mnt_procs[] = {
	"NULL", "MNT", "DUMP", "UMNT", "UMNTALL", "EXPORT", "EXPORTALL",
	"PATHCONF",
};

static const char *const pmap2_procs[] = {
	"NULL", "SET", "UNSET", "GETPORT", "DUMP", "CALLIT",
};

static const char *const rpcb3_procs[] = {
	"NULL", "SET", "UNSET", "GETADDR", "DUMP", "CALLIT", "GETTIME",
	"UADDR2TADDR", "TADDR2UADDR",
};

static const char *const rpcb4_procs[] = {
	"NULL", "SET", "UNSET", "GETADDR", "DUMP", "BCAST", "GETTIME",
	"UADDR2TADDR", "TADDR2UADDR", "GETVERSADDR", "INDIRECT",
	"GETADDRLIST", "GETSTAT",
};

static const char *const nlm_procs[] = {
	"NULL", "TEST", "LOCK", "CANCEL", "UNLOCK", "GRANTED", "TEST_MSG",
	"LOCK_MSG", "CANCEL_MSG", "UNLOCK_MSG", "GRANTED_MSG", "TEST_RES",
	"LOCK_RES", "CANCEL_RES", "UNLOCK_RES", "GRANTED_RES",
	NULL, NULL, NULL, NULL,
	"SHARE", "UNSHARE", "NM_LOCK", "FREE_ALL",
};

static const char *const nsm_procs[] = {
	"NULL", "STAT", "MON", "UNMON", "UNMON_ALL", "SIMU_CRASH", "NOTIFY",
};

static const char *const nfsacl2_procs[] = {
	"NULL", "GETACL", "SETACL", "GETATTR", "ACCESS", "GETXATTRDIR",
};

static const char *const nfsacl3_procs[] = {
	"NULL", "GETACL", "SETACL", "GETXATTRDIR",
};

const char *
dec_proc_name(uint32_t prog, uint32_t vers, uint32_t proc)
{
	switch (prog) {
	case PROG_NFS:
		if (vers == 2)
			return name_at(nfs2_procs, COUNT(nfs2_procs), proc);
		if (vers == 3)
			return name_at(nfs3_procs, COUNT(nfs3_procs), proc);
		if (vers == 4)
			return nfs4_proc_name(proc, false);
		return NULL;
	case PROG_MOUNT:
		if (vers == 1)
			return name_at(mnt_procs, 7, proc);
		if (vers == 2)
			return name_at(mnt_procs, 8, proc);
		if (vers == 3)
			return name_at(mnt_procs, 6, proc);
		return NULL;
	case PROG_PORTMAP:
		if (vers == 2)
			return name_at(pmap2_procs, COUNT(pmap2_procs), proc);
		if (vers == 3)
			return name_at(rpcb3_procs, COUNT(rpcb3_procs), proc);
		if (vers == 4)
			return name_at(rpcb4_procs, COUNT(rpcb4_procs), proc);
		return NULL;
	case PROG_NLM:
		if (vers == 1)
			return name_at(nlm_procs, 16, proc);
		if (vers == 3 || vers == 4)
			return name_at(nlm_procs, COUNT(nlm_procs), proc);
		return NULL;
	case PROG_NSM:
		if (vers == 1)
			return name_at(nsm_procs, COUNT(nsm_procs), proc);
		return NULL;
	case PROG_NFS_ACL:
		if (vers == 2)
			return name_at(nfsacl2_procs, COUNT(nfsacl2_procs),
				       proc);
		if (vers == 3)
			return name_at(nfsacl3_procs, COUNT(nfsacl3_procs),
				       proc);
		return NULL;
	case PROG_NFS4_CB:
		return nfs4_proc_name(proc, true);
	default:
		return NULL;
	}
}

/* nfsstat (RFC 1094 section 2.3.1) */
static const char *
nfs2_stat_name(uint32_t s)
{
	switch (s) {
	case 0: return "NFS_OK";
	case 1: return "NFSERR_PERM";
	case 2: return "NFSERR_NOENT";
	case 5: return "NFSERR_IO";
	case 6: return "NFSERR_NXIO";
	case 13: return "NFSERR_ACCES";
	case 17: return "NFSERR_EXIST";
	case 19: return "NFSERR_NODEV";
	case 20: return "NFSERR_NOTDIR";
	case 21: return "NFSERR_ISDIR";
	case 27: return "NFSERR_FBIG";
	case 28: return "NFSERR_NOSPC";
	case 30: return "NFSERR_ROFS";
	case 63: return "NFSERR_NAMETOOLONG";
	case 66: return "NFSERR_NOTEMPTY";
	case 69: return "NFSERR_DQUOT";
	case 70: return "NFSERR_STALE";
	case 99: return "NFSERR_WFLUSH";
	default: return NULL;
	}
}

/* nfsstat3 (RFC 1813 section 2.6) */
static const char *
nfs3_stat_name(uint32_t s)
{
	switch (s) {
	case 0: return "NFS3_OK";
	case 1: return "NFS3ERR_PERM";
	case 2: return "NFS3ERR_NOENT";
	case 5: return "NFS3ERR_IO";
	case 6: return "NFS3ERR_NXIO";
	case 13: return "NFS3ERR_ACCES";
	case 17: return "NFS3ERR_EXIST";
	case 18: return "NFS3ERR_XDEV";
	case 19: return "NFS3ERR_NODEV";
	case 20: return "NFS3ERR_NOTDIR";
	case 21: return "NFS3ERR_ISDIR";
	case 22: return "NFS3ERR_INVAL";
	case 27: return "NFS3ERR_FBIG";
	case 28: return "NFS3ERR_NOSPC";
	case 30: return "NFS3ERR_ROFS";
	case 31: return "NFS3ERR_MLINK";
	case 63: return "NFS3ERR_NAMETOOLONG";
	case 66: return "NFS3ERR_NOTEMPTY";
	case 69: return "NFS3ERR_DQUOT";
	case 70: return "NFS3ERR_STALE";
	case 71: return "NFS3ERR_REMOTE";
	case 10001: return "NFS3ERR_BADHANDLE";
	case 10002: return "NFS3ERR_NOT_SYNC";
	case 10003: return "NFS3ERR_BAD_COOKIE";
	case 10004: return "NFS3ERR_NOTSUPP";
	case 10005: return "NFS3ERR_TOOSMALL";
	case 10006: return "NFS3ERR_SERVERFAULT";
	case 10007: return "NFS3ERR_BADTYPE";
	case 10008: return "NFS3ERR_JUKEBOX";
	default: return NULL;
	}
}

const char *
nfs_stat_name(uint32_t vers, uint32_t status)
{
	if (vers == 2)
		return nfs2_stat_name(status);
	if (vers == 3)
		return nfs3_stat_name(status);
	if (vers == 4)
		return nfs4_stat_name(status);
	return NULL;
}

/*
 * MOUNT v1/v2 fhstatus carries a UNIX errno (Sun numbering, RFC 1094
 * appendix A); v3 mountstat3 (RFC 1813 appendix I).
 */
const char *
mnt_stat_name(uint32_t vers, uint32_t status)
{
	if (vers == 1 || vers == 2) {
		switch (status) {
		case 0: return "OK";
		case 1: return "EPERM";
		case 2: return "ENOENT";
		case 5: return "EIO";
		case 13: return "EACCES";
		case 20: return "ENOTDIR";
		case 22: return "EINVAL";
		case 63: return "ENAMETOOLONG";
		default: return NULL;
		}
	}
	if (vers != 3)
		return NULL;
	switch (status) {
	case 0: return "MNT3_OK";
	case 1: return "MNT3ERR_PERM";
	case 2: return "MNT3ERR_NOENT";
	case 5: return "MNT3ERR_IO";
	case 13: return "MNT3ERR_ACCES";
	case 20: return "MNT3ERR_NOTDIR";
	case 22: return "MNT3ERR_INVAL";
	case 63: return "MNT3ERR_NAMETOOLONG";
	case 10004: return "MNT3ERR_NOTSUPP";
	case 10006: return "MNT3ERR_SERVERFAULT";
	default: return NULL;
	}
}

/* nlm_stats (nlm_prot.x) and nlm4_stats (XNFS) */
static const char *const nlm_stats[] = {
	"LCK_GRANTED", "LCK_DENIED", "LCK_DENIED_NOLOCKS", "LCK_BLOCKED",
	"LCK_DENIED_GRACE_PERIOD",
};

static const char *const nlm4_stats[] = {
	"NLM4_GRANTED", "NLM4_DENIED", "NLM4_DENIED_NOLOCKS", "NLM4_BLOCKED",
	"NLM4_DENIED_GRACE_PERIOD", "NLM4_DEADLCK", "NLM4_ROFS",
	"NLM4_STALE_FH", "NLM4_FBIG", "NLM4_FAILED",
};

const char *
nlm_stat_name(uint32_t vers, uint32_t status)
{
	if (vers == 4)
		return name_at(nlm4_stats, COUNT(nlm4_stats), status);
	if (vers == 1 || vers == 3)
		return name_at(nlm_stats, COUNT(nlm_stats), status);
	return NULL;
}

static const char *const accept_names[] = {
	"SUCCESS", "PROG_UNAVAIL", "PROG_MISMATCH", "PROC_UNAVAIL",
	"GARBAGE_ARGS", "SYSTEM_ERR",
};

const char *
rpc_accept_name(uint32_t accept_stat)
{
	return name_at(accept_names, COUNT(accept_names), accept_stat);
}

static const char *const auth_stat_names[] = {
	"AUTH_OK", "AUTH_BADCRED", "AUTH_REJECTEDCRED", "AUTH_BADVERF",
	"AUTH_REJECTEDVERF", "AUTH_TOOWEAK", "AUTH_INVALIDRESP",
	"AUTH_FAILED", "AUTH_KERB_GENERIC", "AUTH_TIMEEXPIRE",
	"AUTH_TKT_FILE", "AUTH_DECODE", "AUTH_NET_ADDR",
	"RPCSEC_GSS_CREDPROBLEM", "RPCSEC_GSS_CTXPROBLEM",
};

const char *
rpc_auth_stat_name(uint32_t auth_stat)
{
	return name_at(auth_stat_names, COUNT(auth_stat_names), auth_stat);
}

static const char *const flavor_names[] = {
	"AUTH_NONE", "AUTH_SYS", "AUTH_SHORT", "AUTH_DH", "AUTH_KERB4",
	"AUTH_RSA", "RPCSEC_GSS", "AUTH_TLS",
};

const char *
rpc_flavor_name(uint32_t flavor)
{
	switch (flavor) {
	case RPC_AUTH_GSS_KRB5: return "AUTH_GSS_KRB5";
	case RPC_AUTH_GSS_KRB5I: return "AUTH_GSS_KRB5I";
	case RPC_AUTH_GSS_KRB5P: return "AUTH_GSS_KRB5P";
	default: return name_at(flavor_names, COUNT(flavor_names), flavor);
	}
}

static const char *const stable_names[] = {
	"UNSTABLE", "DATA_SYNC", "FILE_SYNC",
};

const char *
nfs_stable_name(uint32_t stable)
{
	return name_at(stable_names, COUNT(stable_names), stable);
}

/* ftype (RFC 1094; 6-8 are the Sun additions) and ftype3 (RFC 1813) */
static const char *const ftype2_names[] = {
	"NFNON", "NFREG", "NFDIR", "NFBLK", "NFCHR", "NFLNK", "NFSOCK",
	"NFBAD", "NFFIFO",
};

static const char *const ftype3_names[] = {
	NULL, "NF3REG", "NF3DIR", "NF3BLK", "NF3CHR", "NF3LNK", "NF3SOCK",
	"NF3FIFO",
};

const char *
nfs_ftype_name(uint32_t vers, uint32_t type)
{
	if (vers == 2)
		return name_at(ftype2_names, COUNT(ftype2_names), type);
	if (vers == 3)
		return name_at(ftype3_names, COUNT(ftype3_names), type);
	return NULL;
}
