/*
 * decode.h - ONC RPC (RFC 5531) messages and the bodies of NFSv2 (RFC 1094),
 * NFSv3 (RFC 1813), MOUNT v1/v3, portmap v2 / rpcbind v3-v4 (RFC 1833) and
 * NLM v1/v3/v4, decoded into plain structs.
 *
 * Contract:
 *   - Input is a struct cap_msg (bytes + captured length + wire length).
 *     Decoders read through a bounded XDR cursor (xdr.h) and never read past
 *     the captured bytes.  Truncated (snaplen) is told from malformed (a
 *     length or enum that lies): see enum dec_status.
 *   - Output structs hold fixed-size copies (handle <= 64 bytes, name <= 255,
 *     path <= 1024): nothing points into packet buffers after a call returns.
 *   - Each decoded field has a bit in a `have` mask; printers show exactly the
 *     fields whose bit is set.  Struct field names are the JSON key names used
 *     by `nfscope dump --json` (nfscope(1), OUTPUT, documents them).
 *   - A reply body is decoded with the (prog, vers, proc) of its call, found
 *     in a struct dec_xidmap (bounded, entries expire by age): the one
 *     call table, whose identities (dec_msg.call_id) analyze/ keys on.
 *   - Wire enums are range-checked before they index any table.
 *
 * Ownership: struct dec (the message decoder) owns its xid map.  A struct
 * dec_msg is large (READDIR entries, export lists): allocate one and reuse it;
 * dec_message() overwrites it completely.
 */
#ifndef NFSCOPE_DECODE_H
#define NFSCOPE_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/capture.h"

/* ---------------------------------------------------------------- RPC -- */

enum { RPC_CALL = 0, RPC_REPLY = 1 };
enum { RPC_MSG_ACCEPTED = 0, RPC_MSG_DENIED = 1 };
enum {
	RPC_SUCCESS = 0, RPC_PROG_UNAVAIL = 1, RPC_PROG_MISMATCH = 2,
	RPC_PROC_UNAVAIL = 3, RPC_GARBAGE_ARGS = 4, RPC_SYSTEM_ERR = 5,
};
enum { RPC_MISMATCH = 0, RPC_AUTH_ERROR = 1 };

/* auth flavours (RFC 5531 + RFC 2203) */
enum {
	RPC_AUTH_NONE = 0, RPC_AUTH_SYS = 1, RPC_AUTH_SHORT = 2,
	RPC_AUTH_DH = 3, RPC_AUTH_KERB4 = 4, RPC_AUTH_RSA = 5,
	RPC_RPCSEC_GSS = 6, RPC_AUTH_TLS = 7,
	RPC_AUTH_GSS_KRB5 = 390003, RPC_AUTH_GSS_KRB5I = 390004,
	RPC_AUTH_GSS_KRB5P = 390005,
};

/* program numbers */
enum {
	PROG_PORTMAP = 100000, PROG_NFS = 100003, PROG_MOUNT = 100005,
	PROG_NLM = 100021, PROG_NSM = 100024, PROG_NFS_ACL = 100227,
	PROG_NFS4_CB = 0x40000000,
};

#define RPC_MAX_AUTH_BYTES 400	/* RFC 5531: opaque_auth body <= 400 */
#define RPC_MAX_GIDS 16
#define RPC_MAX_MACHINE 255

/* struct rpc_cred.have */
#define RPC_CRED_SYS 0x1	/* stamp, machine, uid, gid, gids valid */
#define RPC_CRED_GSS 0x2	/* gss_* valid */

struct rpc_cred {
	uint32_t flavor;
	uint32_t len;		/* body length on the wire */
	uint32_t have;
	/* AUTH_SYS */
	uint32_t stamp;
	char machine[RPC_MAX_MACHINE + 1];
	uint32_t uid, gid;
	uint32_t ngids;
	uint32_t gids[RPC_MAX_GIDS];
	/* RPCSEC_GSS (rpc_gss_cred_vers_1_t) */
	uint32_t gss_vers, gss_proc, gss_seq, gss_svc;
	uint32_t gss_ctx_len;
};

struct rpc_verf {
	uint32_t flavor;
	uint32_t len;
};

struct rpc_hdr {
	uint32_t xid;
	uint32_t msg_type;	/* RPC_CALL / RPC_REPLY */
	/* call */
	uint32_t rpcvers, prog, vers, proc;
	struct rpc_cred cred;
	struct rpc_verf verf;
	/* reply */
	uint32_t reply_stat;	/* RPC_MSG_ACCEPTED / RPC_MSG_DENIED */
	uint32_t accept_stat;	/* when accepted */
	uint32_t mismatch_low, mismatch_high;	/* PROG_MISMATCH, RPC_MISMATCH */
	uint32_t reject_stat;	/* when denied */
	uint32_t auth_stat;	/* when denied with AUTH_ERROR */
	uint32_t body_off;	/* offset of the procedure body */
};

/* ------------------------------------------------------- NFS common -- */

#define NFS_FHSIZE_MAX 64
#define NFS_NAME_MAX 255
#define NFS_PATH_MAX 1024
#define NFS_VERF_SIZE 8
#define NFS_ENTRIES_MAX 128

struct nfs_fh {
	uint32_t len;
	uint8_t data[NFS_FHSIZE_MAX];
};

struct nfs_time {
	uint32_t sec, nsec;	/* v2 timeval: nsec = usec * 1000 */
};

/* fattr3, or fattr (v2) mapped onto it */
struct nfs_fattr {
	uint32_t type;		/* ftype3 / ftype (v2 numbering kept as sent) */
	uint32_t mode, nlink, uid, gid;
	uint64_t size, used;	/* v2: used = blocks * blocksize */
	uint32_t rdev_major, rdev_minor;	/* v2: rdev in major */
	uint64_t fsid, fileid;
	struct nfs_time atime, mtime, ctime;
	/* v2 only */
	uint32_t blocksize, blocks;
};

/* wcc_attr (pre-op) */
struct nfs_wcc_attr {
	uint64_t size;
	struct nfs_time mtime, ctime;
};

/* wcc_data: pre-op and post-op attributes, each optional */
struct nfs_wcc {
	bool have_before, have_after;
	struct nfs_wcc_attr before;
	struct nfs_fattr after;
};

/* struct nfs_sattr.have */
#define SATTR_MODE 0x01
#define SATTR_UID 0x02
#define SATTR_GID 0x04
#define SATTR_SIZE 0x08
#define SATTR_ATIME 0x10	/* atime holds the client time */
#define SATTR_MTIME 0x20
#define SATTR_ATIME_SERVER 0x40	/* v3 SET_TO_SERVER_TIME */
#define SATTR_MTIME_SERVER 0x80

/* sattr3, or sattr (v2: a field of all ones means "not set") */
struct nfs_sattr {
	uint32_t have;
	uint32_t mode, uid, gid;
	uint64_t size;
	struct nfs_time atime, mtime;
};

struct nfs_name {
	uint32_t len;
	char s[NFS_NAME_MAX + 1];
};

struct nfs_path {
	uint32_t len;
	char s[NFS_PATH_MAX + 1];
};

struct nfs_entry {
	uint64_t fileid;
	uint64_t cookie;	/* v2: 32-bit cookie widened */
	struct nfs_name name;
	bool have_fh;		/* READDIRPLUS name_handle present */
	struct nfs_fh fh;
	bool have_attr;		/* READDIRPLUS name_attributes present */
	struct nfs_fattr attr;
};

/* NFSv3 procedures (RFC 1813) */
enum {
	NFS3_NULL = 0, NFS3_GETATTR = 1, NFS3_SETATTR = 2, NFS3_LOOKUP = 3,
	NFS3_ACCESS = 4, NFS3_READLINK = 5, NFS3_READ = 6, NFS3_WRITE = 7,
	NFS3_CREATE = 8, NFS3_MKDIR = 9, NFS3_SYMLINK = 10, NFS3_MKNOD = 11,
	NFS3_REMOVE = 12, NFS3_RMDIR = 13, NFS3_RENAME = 14, NFS3_LINK = 15,
	NFS3_READDIR = 16, NFS3_READDIRPLUS = 17, NFS3_FSSTAT = 18,
	NFS3_FSINFO = 19, NFS3_PATHCONF = 20, NFS3_COMMIT = 21,
	NFS3_NPROC = 22,
};

/* NFSv2 procedures (RFC 1094) */
enum {
	NFS2_NULL = 0, NFS2_GETATTR = 1, NFS2_SETATTR = 2, NFS2_ROOT = 3,
	NFS2_LOOKUP = 4, NFS2_READLINK = 5, NFS2_READ = 6,
	NFS2_WRITECACHE = 7, NFS2_WRITE = 8, NFS2_CREATE = 9,
	NFS2_REMOVE = 10, NFS2_RENAME = 11, NFS2_LINK = 12,
	NFS2_SYMLINK = 13, NFS2_MKDIR = 14, NFS2_RMDIR = 15,
	NFS2_READDIR = 16, NFS2_STATFS = 17,
	NFS2_NPROC = 18,
};

/* stable_how */
enum { NFS3_UNSTABLE = 0, NFS3_DATA_SYNC = 1, NFS3_FILE_SYNC = 2 };

/* struct nfs_call.have */
#define NFSC_FH 0x00000001u	/* object or directory handle */
#define NFSC_NAME 0x00000002u	/* name in that directory */
#define NFSC_FH2 0x00000004u	/* RENAME to-dir, LINK link dir */
#define NFSC_NAME2 0x00000008u	/* RENAME to-name, LINK name */
#define NFSC_OFFSET 0x00000010u
#define NFSC_COUNT 0x00000020u	/* READ/WRITE/COMMIT count, READDIR count */
#define NFSC_STABLE 0x00000040u
#define NFSC_DATA_LEN 0x00000080u	/* WRITE opaque data length */
#define NFSC_SATTR 0x00000100u
#define NFSC_GUARD 0x00000200u	/* SETATTR guard ctime */
#define NFSC_ACCESS 0x00000400u
#define NFSC_CREATEMODE 0x00000800u
#define NFSC_CREATEVERF 0x00001000u
#define NFSC_COOKIE 0x00002000u
#define NFSC_COOKIEVERF 0x00004000u
#define NFSC_DIRCOUNT 0x00008000u	/* READDIRPLUS dircount */
#define NFSC_MAXCOUNT 0x00010000u	/* READDIRPLUS maxcount */
#define NFSC_PATH 0x00020000u	/* SYMLINK target */
#define NFSC_FTYPE 0x00040000u	/* MKNOD type */
#define NFSC_SPEC 0x00080000u	/* MKNOD device */
#define NFSC_BEGINOFFSET 0x00100000u	/* v2 WRITE */
#define NFSC_TOTALCOUNT 0x00200000u	/* v2 READ/WRITE */

struct nfs_call {
	uint32_t have;
	struct nfs_fh fh;
	struct nfs_name name;
	struct nfs_fh fh2;
	struct nfs_name name2;
	uint64_t offset;
	uint32_t count;
	uint32_t stable;
	uint32_t data_len;
	struct nfs_sattr sattr;
	struct nfs_time guard;
	uint32_t access;
	uint32_t createmode;	/* UNCHECKED 0, GUARDED 1, EXCLUSIVE 2 */
	uint8_t createverf[NFS_VERF_SIZE];
	uint64_t cookie;
	uint8_t cookieverf[NFS_VERF_SIZE];
	uint32_t dircount, maxcount;
	struct nfs_path path;
	uint32_t ftype;
	uint32_t spec_major, spec_minor;
	uint32_t beginoffset, totalcount;
};

/* struct nfs_reply.have */
#define NFSR_STATUS 0x00000001u
#define NFSR_ATTR 0x00000002u	/* object attributes (post-op or fattr) */
#define NFSR_WCC 0x00000004u	/* object wcc (SETATTR, WRITE, COMMIT) */
#define NFSR_DIR_ATTR 0x00000008u	/* LOOKUP/READDIR dir attributes */
#define NFSR_DIR_WCC 0x00000010u	/* dir wcc (CREATE..., RENAME from) */
#define NFSR_DIR_WCC2 0x00000020u	/* RENAME to-dir wcc */
#define NFSR_FH 0x00000040u	/* new/looked-up object handle */
#define NFSR_COUNT 0x00000080u
#define NFSR_EOF 0x00000100u
#define NFSR_COMMITTED 0x00000200u
#define NFSR_VERF 0x00000400u	/* WRITE/COMMIT write verifier */
#define NFSR_DATA_LEN 0x00000800u	/* READ opaque data length */
#define NFSR_ACCESS 0x00001000u
#define NFSR_PATH 0x00002000u	/* READLINK target */
#define NFSR_ENTRIES 0x00004000u	/* READDIR(PLUS) entries + eof */
#define NFSR_COOKIEVERF 0x00008000u
#define NFSR_FSSTAT 0x00010000u
#define NFSR_FSINFO 0x00020000u
#define NFSR_PATHCONF 0x00040000u
#define NFSR_STATFS 0x00080000u	/* v2 STATFS */

struct nfs_fsstat {
	uint64_t tbytes, fbytes, abytes, tfiles, ffiles, afiles;
	uint32_t invarsec;
};

struct nfs_fsinfo {
	uint32_t rtmax, rtpref, rtmult, wtmax, wtpref, wtmult, dtpref;
	uint64_t maxfilesize;
	struct nfs_time time_delta;
	uint32_t properties;
};

struct nfs_pathconf {
	uint32_t linkmax, name_max;
	bool no_trunc, chown_restricted, case_insensitive, case_preserving;
};

struct nfs_statfs {
	uint32_t tsize, bsize, blocks, bfree, bavail;
};

struct nfs_reply {
	uint32_t have;
	uint32_t status;	/* nfsstat3 / nfsstat */
	struct nfs_fattr attr;
	struct nfs_wcc wcc;
	struct nfs_fattr dir_attr;
	struct nfs_wcc dir_wcc;
	struct nfs_wcc dir_wcc2;
	struct nfs_fh fh;
	uint32_t count;
	bool eof;
	uint32_t committed;
	uint8_t verf[NFS_VERF_SIZE];
	uint32_t data_len;
	uint32_t access;
	struct nfs_path path;
	uint8_t cookieverf[NFS_VERF_SIZE];
	uint32_t nentries;	/* entries stored (<= NFS_ENTRIES_MAX) */
	uint32_t entries_total;	/* entries on the wire (captured ones) */
	bool entries_eof;	/* dirlist eof */
	struct nfs_entry entries[NFS_ENTRIES_MAX];
	struct nfs_fsstat fsstat;
	struct nfs_fsinfo fsinfo;
	struct nfs_pathconf pathconf;
	struct nfs_statfs statfs;
};

/* ------------------------------------------------------------ NFSv4 -- */

/*
 * NFSv4 COMPOUND (RFC 7530/7531 minor 0, RFC 8881/5662 minor 1, RFC
 * 7862/7863 minor 2, RFC 8276 xattrs) and CB_COMPOUND on the back channel.
 * Every operation of those RFCs is recognised and stepped over exactly;
 * the first NFS4_OPS_MAX are stored with the fields below (have bits).
 * An operation that cannot be stepped over (an opcode no RFC defines, a
 * minor version past 2) stops the decode there: `stopped` says where, the
 * ops before it stay valid, and it is neither truncated nor malformed.
 *
 * The procedure of an NFSv4 operation record (dec_msg.proc, an_op.proc,
 * rows, the store) is the COMPOUND's main operation's opcode: 0 NULL, 1 a
 * COMPOUND whose main op is not known (cut before it), else the nfs_opnum4
 * of the main op (3..75), as nfsiostat and mountstats give a COMPOUND's
 * time to the one operation it was sent for (nfs4_main_op says which).
 * dec_proc_name(PROG_NFS, 4, p) names all three kinds.
 */
enum { NFS4_PROC_NULL = 0, NFS4_PROC_COMPOUND = 1 };

/* nfs_opnum4 */
enum {
	NFS4_OP_ACCESS = 3, NFS4_OP_CLOSE = 4, NFS4_OP_COMMIT = 5,
	NFS4_OP_CREATE = 6, NFS4_OP_DELEGPURGE = 7, NFS4_OP_DELEGRETURN = 8,
	NFS4_OP_GETATTR = 9, NFS4_OP_GETFH = 10, NFS4_OP_LINK = 11,
	NFS4_OP_LOCK = 12, NFS4_OP_LOCKT = 13, NFS4_OP_LOCKU = 14,
	NFS4_OP_LOOKUP = 15, NFS4_OP_LOOKUPP = 16, NFS4_OP_NVERIFY = 17,
	NFS4_OP_OPEN = 18, NFS4_OP_OPENATTR = 19, NFS4_OP_OPEN_CONFIRM = 20,
	NFS4_OP_OPEN_DOWNGRADE = 21, NFS4_OP_PUTFH = 22,
	NFS4_OP_PUTPUBFH = 23, NFS4_OP_PUTROOTFH = 24, NFS4_OP_READ = 25,
	NFS4_OP_READDIR = 26, NFS4_OP_READLINK = 27, NFS4_OP_REMOVE = 28,
	NFS4_OP_RENAME = 29, NFS4_OP_RENEW = 30, NFS4_OP_RESTOREFH = 31,
	NFS4_OP_SAVEFH = 32, NFS4_OP_SECINFO = 33, NFS4_OP_SETATTR = 34,
	NFS4_OP_SETCLIENTID = 35, NFS4_OP_SETCLIENTID_CONFIRM = 36,
	NFS4_OP_VERIFY = 37, NFS4_OP_WRITE = 38,
	NFS4_OP_RELEASE_LOCKOWNER = 39,
	/* minor 1 */
	NFS4_OP_BACKCHANNEL_CTL = 40, NFS4_OP_BIND_CONN_TO_SESSION = 41,
	NFS4_OP_EXCHANGE_ID = 42, NFS4_OP_CREATE_SESSION = 43,
	NFS4_OP_DESTROY_SESSION = 44, NFS4_OP_FREE_STATEID = 45,
	NFS4_OP_GET_DIR_DELEGATION = 46, NFS4_OP_GETDEVICEINFO = 47,
	NFS4_OP_GETDEVICELIST = 48, NFS4_OP_LAYOUTCOMMIT = 49,
	NFS4_OP_LAYOUTGET = 50, NFS4_OP_LAYOUTRETURN = 51,
	NFS4_OP_SECINFO_NO_NAME = 52, NFS4_OP_SEQUENCE = 53,
	NFS4_OP_SET_SSV = 54, NFS4_OP_TEST_STATEID = 55,
	NFS4_OP_WANT_DELEGATION = 56, NFS4_OP_DESTROY_CLIENTID = 57,
	NFS4_OP_RECLAIM_COMPLETE = 58,
	/* minor 2 */
	NFS4_OP_ALLOCATE = 59, NFS4_OP_COPY = 60, NFS4_OP_COPY_NOTIFY = 61,
	NFS4_OP_DEALLOCATE = 62, NFS4_OP_IO_ADVISE = 63,
	NFS4_OP_LAYOUTERROR = 64, NFS4_OP_LAYOUTSTATS = 65,
	NFS4_OP_OFFLOAD_CANCEL = 66, NFS4_OP_OFFLOAD_STATUS = 67,
	NFS4_OP_READ_PLUS = 68, NFS4_OP_SEEK = 69, NFS4_OP_WRITE_SAME = 70,
	NFS4_OP_CLONE = 71,
	/* RFC 8276 */
	NFS4_OP_GETXATTR = 72, NFS4_OP_SETXATTR = 73,
	NFS4_OP_LISTXATTRS = 74, NFS4_OP_REMOVEXATTR = 75,
	NFS4_OP_LAST = 75,
	NFS4_OP_ILLEGAL = 10044,
};

/* nfs_cb_opnum4 */
enum {
	NFS4_OP_CB_GETATTR = 3, NFS4_OP_CB_RECALL = 4,
	NFS4_OP_CB_LAYOUTRECALL = 5, NFS4_OP_CB_NOTIFY = 6,
	NFS4_OP_CB_PUSH_DELEG = 7, NFS4_OP_CB_RECALL_ANY = 8,
	NFS4_OP_CB_RECALLABLE_OBJ_AVAIL = 9, NFS4_OP_CB_RECALL_SLOT = 10,
	NFS4_OP_CB_SEQUENCE = 11, NFS4_OP_CB_WANTS_CANCELLED = 12,
	NFS4_OP_CB_NOTIFY_LOCK = 13, NFS4_OP_CB_NOTIFY_DEVICEID = 14,
	NFS4_OP_CB_OFFLOAD = 15,
	NFS4_OP_CB_LAST = 15,
	NFS4_OP_CB_ILLEGAL = 10044,
};

/* nfsstat4 values the analysis names */
enum {
	NFS4_OK = 0, NFS4ERR_DENIED = 10010, NFS4ERR_DELAY = 10008,
	NFS4ERR_GRACE = 10013, NFS4ERR_STALE_CLIENTID = 10022,
	NFS4ERR_BADSESSION = 10052, NFS4ERR_SEQ_MISORDERED = 10063,
	NFS4ERR_RETRY_UNCACHED_REP = 10068, NFS4ERR_DEADSESSION = 10078,
};

#define NFS4_OPS_MAX 24		/* ops stored per COMPOUND */
#define NFS4_SESSIONID_SIZE 16

/* struct nfs4_op.have: which fields hold a value (call: the op's
 * arguments; reply: its result) */
#define N4_STATUS    0x00000001u	/* reply: status */
#define N4_FH        0x00000002u	/* call PUTFH, CB_RECALL; reply GETFH */
#define N4_NAME      0x00000004u	/* LOOKUP, OPEN file, CREATE, REMOVE,
					   RENAME old name, LINK, SECINFO */
#define N4_NAME2     0x00000008u	/* RENAME new name */
#define N4_OFFSET    0x00000010u	/* READ/WRITE/COMMIT/LOCK*: offset */
#define N4_COUNT     0x00000020u	/* call: READ/COMMIT/READDIR count,
					   WRITE data length; reply: READ
					   data length, WRITE count */
#define N4_STABLE    0x00000040u	/* call: WRITE stable; reply: WRITE
					   committed */
#define N4_EOF       0x00000080u	/* reply READ, READDIR */
#define N4_VERF      0x00000100u	/* reply WRITE/COMMIT writeverf */
#define N4_ACCESS    0x00000200u	/* ACCESS asked / (supported, granted) */
#define N4_ATTRS     0x00000400u	/* GETATTR reply: attr_have */
#define N4_SEQ       0x00000800u	/* SEQUENCE, CB_SEQUENCE */
#define N4_CHAN      0x00001000u	/* CREATE_SESSION: fore channel */
#define N4_OPEN      0x00002000u	/* OPEN call: claim, opentype,
					   createmode, share_access */
#define N4_LOCK      0x00004000u	/* LOCK/LOCKT/LOCKU: locktype, offset,
					   length */
#define N4_DENIED    0x00008000u	/* LOCK/LOCKT reply NFS4ERR_DENIED:
					   the holder's locktype, offset,
					   length */
#define N4_CLIENTID  0x00010000u	/* EXCHANGE_ID/SETCLIENTID reply,
					   CREATE_SESSION call */
#define N4_DELEG     0x00020000u	/* OPEN reply: delegation type */
#define N4_LENGTH    0x00040000u	/* LOCK*, LAYOUTGET, ALLOCATE ... */
#define N4_FLAGS     0x00080000u	/* EXCHANGE_ID eia/eir_flags */
#define N4_SESSIONID 0x00100000u	/* CREATE_SESSION reply,
					   DESTROY_SESSION, BIND_CONN */
#define N4_BITMAP    0x00200000u	/* GETATTR call: attr_request words */

/* struct nfs4_op.attr_have: fattr4 values found (GETATTR reply) */
#define N4A_TYPE      0x01u
#define N4A_FH_EXPIRE 0x02u
#define N4A_CHANGE    0x04u
#define N4A_SIZE      0x08u
#define N4A_MAXREAD   0x10u
#define N4A_MAXWRITE  0x20u

/* channel_attrs4 (RFC 8881 18.36) */
struct nfs4_chan {
	uint32_t headerpad, maxreq, maxresp, maxresp_cached, maxops, maxreqs;
};

struct nfs4_op {
	uint32_t op;		/* nfs_opnum4 / nfs_cb_opnum4 */
	uint32_t have;		/* N4_* */
	uint32_t status;	/* nfsstat4 */
	uint64_t offset, length;
	uint32_t count;
	uint32_t stable;	/* stable_how4 */
	bool eof;
	bool cachethis;		/* SEQUENCE */
	uint8_t verf[NFS_VERF_SIZE];
	uint32_t access, supported;
	uint32_t claim, opentype, createmode, share_access;
	uint32_t locktype;
	uint32_t deleg;		/* open_delegation_type4 */
	uint8_t sessionid[NFS4_SESSIONID_SIZE];
	uint32_t seqid, slot, highest_slot, target_slot, status_flags;
	struct nfs4_chan fore;
	uint64_t clientid;
	uint32_t flags;
	uint32_t nbitmap, bitmap[3];
	uint32_t attr_have;	/* N4A_* */
	uint32_t type, fh_expire_type;
	uint64_t change, size, maxread, maxwrite;
	struct nfs_fh fh;	/* first NFS_FHSIZE_MAX bytes of an nfs_fh4
				   (<= 128 bytes on the wire) */
	struct nfs_name name, name2;	/* a longer component4 is stepped
					   over, its bit not set */
};

/* struct nfs4_compound.have */
#define N4C_TAG    0x1u		/* tag_len */
#define N4C_MINOR  0x2u		/* call: minorversion */
#define N4C_STATUS 0x4u		/* reply: status */
#define N4C_NOPS   0x8u		/* nops_wire */

struct nfs4_compound {
	uint32_t have;
	bool cb;		/* CB_COMPOUND (back channel) */
	uint32_t tag_len;
	uint32_t minor;		/* call */
	uint32_t cb_ident;	/* CB_COMPOUND call: callback_ident */
	uint32_t status;	/* reply: the COMPOUND's status */
	uint32_t nops_wire;	/* argarray / resarray length on the wire */
	uint32_t nops;		/* ops decoded (stepped over), <= nops_wire */
	uint32_t nstored;	/* ops stored in ops[]: min(nops, OPS_MAX) */
	bool stopped;		/* an op could not be stepped over: ops[nops]
				   is not known (its opcode in stop_op) */
	uint32_t stop_op;
	struct nfs4_op ops[NFS4_OPS_MAX];
};

/*
 * The index in out->ops of the COMPOUND's main operation: the first one
 * that is not SEQUENCE, PUTFH, PUTROOTFH, PUTPUBFH, SAVEFH, RESTOREFH,
 * GETFH or GETATTR; else its GETATTR; else its last op.  -1: no op
 * stored.
 */
int nfs4_main_op(const struct nfs4_compound *cp);
/* The record procedure of a COMPOUND (see above): its main op's opcode,
 * NFS4_PROC_COMPOUND when there is none. */
uint32_t nfs4_proc(const struct nfs4_compound *cp);
/* "READ", "CB_RECALL" ...; NULL if unknown */
const char *nfs4_op_name(uint32_t op, bool cb);
/* A record procedure (above): "NULL", "COMPOUND" or the main op's name;
 * cb: the back channel's ("CB_NULL", "CB_COMPOUND", "CB_RECALL" ...) */
const char *nfs4_proc_name(uint32_t proc, bool cb);
/* "NFS4ERR_DELAY" ...; NULL if no RFC names it */
const char *nfs4_stat_name(uint32_t status);

/* ------------------------------------------------------------ MOUNT -- */

enum {
	MOUNT_NULL = 0, MOUNT_MNT = 1, MOUNT_DUMP = 2, MOUNT_UMNT = 3,
	MOUNT_UMNTALL = 4, MOUNT_EXPORT = 5,
};

#define MNT_LIST_MAX 64
#define MNT_FLAVORS_MAX 16
#define MNT_GROUPS_MAX 8

/* struct mnt_msg.have */
#define MNT_PATH 0x01		/* call: dirpath */
#define MNT_STATUS 0x02		/* reply: fhstatus / mountstat3 */
#define MNT_FH 0x04		/* reply: handle (v1: 32 bytes, v3: fhandle3) */
#define MNT_FLAVORS 0x08	/* reply v3: auth_flavors */
#define MNT_EXPORTS 0x10	/* reply EXPORT: list */
#define MNT_MOUNTS 0x20		/* reply DUMP: list */

struct mnt_export {
	struct nfs_path dir;
	uint32_t ngroups;	/* groups on the wire */
	struct nfs_name groups[MNT_GROUPS_MAX];
};

struct mnt_mount {
	struct nfs_name host;
	struct nfs_path dir;
};

struct mnt_msg {
	uint32_t have;
	struct nfs_path path;
	uint32_t status;
	struct nfs_fh fh;
	uint32_t nflavors;
	uint32_t flavors[MNT_FLAVORS_MAX];
	uint32_t nlist;		/* stored */
	uint32_t list_total;	/* on the wire */
	struct mnt_export exports[MNT_LIST_MAX];
	struct mnt_mount mounts[MNT_LIST_MAX];
};

/* ------------------------------------------------- portmap/rpcbind -- */

enum {
	PMAP_NULL = 0, PMAP_SET = 1, PMAP_UNSET = 2, PMAP_GETPORT = 3,
	PMAP_DUMP = 4, PMAP_CALLIT = 5,
	/* rpcbind v3/v4 */
	RPCB_SET = 1, RPCB_UNSET = 2, RPCB_GETADDR = 3, RPCB_DUMP = 4,
	RPCB_CALLIT = 5, RPCB_GETTIME = 6, RPCB_UADDR2TADDR = 7,
	RPCB_TADDR2UADDR = 8,
	/* v4 only */
	RPCB_GETVERSADDR = 9, RPCB_INDIRECT = 10, RPCB_GETADDRLIST = 11,
	RPCB_GETSTAT = 12,
};

#define PMAP_LIST_MAX 128
#define RPCB_STR_MAX 255

struct pmap_mapping {
	uint32_t prog, vers, prot, port;
};

struct rpcb_entry {
	uint32_t prog, vers;
	char netid[RPCB_STR_MAX + 1];
	char addr[RPCB_STR_MAX + 1];
	char owner[RPCB_STR_MAX + 1];
};

/* struct pmap_msg.have */
#define PMAP_MAPPING 0x01	/* v2 call SET/UNSET/GETPORT */
#define PMAP_RPCB 0x02		/* v3/v4 call SET/UNSET/GETADDR/GETVERSADDR */
#define PMAP_CALLARGS 0x04	/* CALLIT / INDIRECT call */
#define PMAP_PORT 0x08		/* v2 GETPORT reply, CALLIT reply port */
#define PMAP_BOOL 0x10		/* SET/UNSET reply */
#define PMAP_UADDR 0x20		/* v3/v4 GETADDR reply, CALLIT reply addr */
#define PMAP_LIST 0x40		/* DUMP reply */
#define PMAP_RESLEN 0x80	/* CALLIT reply result length */
#define PMAP_TIME 0x100		/* GETTIME reply */

struct pmap_msg {
	uint32_t have;
	struct pmap_mapping map;
	struct rpcb_entry rpcb;
	uint32_t call_prog, call_vers, call_proc, args_len;
	uint32_t port;
	bool result;
	char uaddr[RPCB_STR_MAX + 1];
	uint32_t res_len;
	uint32_t time;
	uint32_t nlist, list_total;
	struct pmap_mapping maps[PMAP_LIST_MAX];	/* v2 DUMP */
	struct rpcb_entry rpcbs[PMAP_LIST_MAX / 4];	/* v3/v4 DUMP */
};

/* -------------------------------------------------------------- NLM -- */

enum {
	NLM_NULL = 0, NLM_TEST = 1, NLM_LOCK = 2, NLM_CANCEL = 3,
	NLM_UNLOCK = 4, NLM_GRANTED = 5, NLM_TEST_MSG = 6, NLM_LOCK_MSG = 7,
	NLM_CANCEL_MSG = 8, NLM_UNLOCK_MSG = 9, NLM_GRANTED_MSG = 10,
	NLM_TEST_RES = 11, NLM_LOCK_RES = 12, NLM_CANCEL_RES = 13,
	NLM_UNLOCK_RES = 14, NLM_GRANTED_RES = 15,
	NLM_SHARE = 20, NLM_UNSHARE = 21, NLM_NM_LOCK = 22, NLM_FREE_ALL = 23,
};

#define NLM_NETOBJ_MAX 64	/* bytes of a netobj kept (cookie, oh) */

struct nlm_netobj {
	uint32_t len;		/* on the wire (<= 1024, MAXNETOBJ_SZ) */
	uint8_t data[NLM_NETOBJ_MAX];	/* first min(len, 64) bytes */
};

struct nlm_lock {
	struct nfs_name caller_name;
	struct nfs_fh fh;	/* netobj holding the file handle */
	struct nlm_netobj oh;
	int32_t svid;
	uint64_t offset, length;	/* v1/v3: 32-bit values widened */
};

/* struct nlm_msg.have */
#define NLM_COOKIE 0x01
#define NLM_BLOCK 0x02
#define NLM_EXCLUSIVE 0x04
#define NLM_LOCKV 0x08		/* the lock (or TEST/GRANTED alock) */
#define NLM_RECLAIM 0x10
#define NLM_STATE 0x20
#define NLM_STATUS 0x40		/* reply or _RES: stat */
#define NLM_HOLDER 0x80		/* TEST denied: holder */

struct nlm_msg {
	uint32_t have;
	struct nlm_netobj cookie;
	bool block, exclusive, reclaim;
	uint32_t state;
	struct nlm_lock lock;
	uint32_t status;
	/* holder of a conflicting lock */
	bool holder_exclusive;
	int32_t holder_svid;
	struct nlm_netobj holder_oh;
	uint64_t holder_offset, holder_length;
};

/* ------------------------------------------------------------ names -- */

/* "NFS", "MOUNT", ... or NULL for an unknown program */
const char *dec_prog_name(uint32_t prog);
/* "READ", "GETPORT", ... or NULL if unknown (never indexes out of range) */
const char *dec_proc_name(uint32_t prog, uint32_t vers, uint32_t proc);
/* "NFS3ERR_NOENT", "NFSERR_STALE", ... ; NULL if unknown */
const char *nfs_stat_name(uint32_t vers, uint32_t status);
const char *mnt_stat_name(uint32_t vers, uint32_t status);
const char *nlm_stat_name(uint32_t vers, uint32_t status);
const char *rpc_accept_name(uint32_t accept_stat);
const char *rpc_auth_stat_name(uint32_t auth_stat);
const char *rpc_flavor_name(uint32_t flavor);
const char *nfs_stable_name(uint32_t stable);
const char *nfs_ftype_name(uint32_t vers, uint32_t type);

/* --------------------------------------------------- call identity -- */

#define DEC_XID_MAX_DEFAULT 16384	/* the call table's default size */

/*
 * A call's identity: the slot (< the table's size) of the entry that
 * opened it and that slot's generation.  A slot's generation changes
 * whenever the slot stops holding the identity (reused for another
 * call, aged out, or a call of another program took its key), so an
 * identity is never handed out twice.  gen 0: none.
 */
struct dec_call_id {
	uint32_t slot, gen;
};

/* ---------------------------------------------------------- message -- */

enum dec_status {
	DEC_OK = 0,		/* header and body fully decoded */
	DEC_TRUNCATED = 1,	/* body cut by the snaplen: fields decoded so
				   far are valid (their have bits set) */
	DEC_MALFORMED = 2,	/* a length or enum lies: fields decoded before
				   the error are kept */
	DEC_BODY_SKIPPED = 3,	/* valid RPC, program not decoded (NFS_ACL,
				   NSM, unknown), or a reply whose
				   call was not seen, or not accepted */
};

enum dec_body_kind {
	DEC_BODY_NONE = 0, DEC_BODY_NFS_CALL, DEC_BODY_NFS_REPLY,
	DEC_BODY_MNT, DEC_BODY_PMAP, DEC_BODY_NLM,
	DEC_BODY_NFS4,		/* NFSv4 COMPOUND / CB_COMPOUND, call or
				   reply (u.nfs4) */
};

struct dec_msg {
	struct rpc_hdr rpc;
	/* for calls from the header; for replies from the matched call */
	uint32_t prog, vers, proc;
	bool call_seen;		/* reply: its call was in the xid map */
	bool by_shape;		/* reply: its call not seen (call_seen
				   false), prog/vers/proc recovered from
				   the shape of its body (dec_reply_shape) */
	uint64_t call_frame;	/* reply: frame of that call */
	int64_t call_ts_ns;
	/* call: the identity the xid map gave it; reply: its call's
	   (call_seen).  gen 0 otherwise. */
	struct dec_call_id call_id;
	enum dec_status status;
	uint32_t err_off;	/* offset of the first decode error */
	enum dec_body_kind kind;
	union {
		struct nfs_call nfs_call;
		struct nfs_reply nfs_reply;
		struct mnt_msg mnt;
		struct pmap_msg pmap;
		struct nlm_msg nlm;
		struct nfs4_compound nfs4;
	} u;
};

struct dec_stats {
	uint64_t msgs;		/* messages examined */
	uint64_t not_rpc;	/* failed the RPC checks (garbage) */
	uint64_t calls, replies;
	uint64_t orphan_replies;	/* reply-shaped, no pending call: only
					   counted, not delivered, unless the
					   reply passed rpc_probe strictly */
	/* the orphan replies by their shape (dec_reply_shape): one NFS
	   procedure fits (delivered, by_shape), several fit, none fits;
	   the three add up to orphan_replies */
	uint64_t shape_fit, shape_ambiguous, shape_nofit;
	uint64_t reply_mismatch;	/* a pending call's xid, but the body
					   does not fit its procedure, or the
					   call was answered already by a
					   reply of another length */
	uint64_t truncated, malformed;
	uint64_t xid_evictions;
	/* replies held for a call that came after them (struct dec_late) */
	uint64_t late_held;		/* held when no call was pending */
	uint64_t late_matched;		/* decoded when their call came */
	uint64_t late_expired;		/* waited too long: orphan path */
	uint64_t late_over_budget;	/* not held, the budget full: orphan
					   path at once */
	uint64_t nfs4_stopped;		/* NFSv4 COMPOUNDs with an op that
					   could not be stepped over (an
					   unknown opcode or minor version):
					   decoded up to it */
	uint64_t skew_tolerated;	/* replies stamped before their call,
					   by no more than the skew tolerance,
					   accepted as its answer */
};

struct dec_config {
	uint32_t xid_max;	/* the call table (0: DEC_XID_MAX_DEFAULT);
				   the engine's an_config.xid_max must be
				   the same */
	int64_t xid_ttl_ns;	/* 0: default 120 s */
	/* NFSv3 attribute values (fattr3, wcc_attr) and the gids of an
	   AUTH_SYS credential are skipped, not stored, when captured whole:
	   the have bits, ngids and every other field are as usual, the
	   attribute structs and gids[] are left as they were.  For callers
	   that never read them (report, record). */
	bool no_attrs;
	size_t late_mem;	/* 0: default 1 MiB of held replies */
	int64_t late_hold_ns;	/* 0: default 10 s */
	int64_t skew_ns;	/* 0: default 5 ms; < 0: no tolerance */
};

struct dec;

struct dec *dec_new(const struct dec_config *cfg);
void dec_free(struct dec *d);
/*
 * Decode one candidate message.  Returns false if it is not RPC (a call that
 * fails the strict checks, or a reply with no pending call in the reverse
 * direction whose shape fits no single NFS procedure: dec_reply_shape);
 * true with *out filled otherwise.  Calls are remembered in the
 * xid map (keyed client=src, server=dst); replies look up (dst, src, xid).
 */
bool dec_message(struct dec *d, const struct cap_msg *m, struct dec_msg *out);
/*
 * A reply with no pending call is held (struct dec_late) rather than
 * dropped: dec_message returns false and dec_held is true.  It comes back,
 * once, from dec_next: decoded when its call came, or handed to the orphan
 * path when it waited too long.  After every dec_message, and after
 * dec_flush (end of input) or dec_tick (live, once a second), call dec_next
 * until it returns NULL; each message it returns is one the caller has not
 * handled yet, *rpc as dec_message would have returned for it, *out
 * overwritten (consume the previous message first).  The cap_msg is valid
 * until the next dec_message, dec_flush or dec_tick.  With them a caller
 * sees every message once, replies after their calls.
 */
bool dec_held(const struct dec *d);
/* Capture time of the oldest reply still held for a later call (0: none):
 * it may yet come back, from dec_next, after younger messages. */
int64_t dec_held_oldest_ns(const struct dec *d);
const struct cap_msg *dec_next(struct dec *d, struct dec_msg *out, bool *rpc);
void dec_flush(struct dec *d);
/* After dec_flush and dec_next's last message, when nothing more will be
 * decoded: give the xid map's memory back; stats stay.  dec_message must
 * not be called after it. */
void dec_trim(struct dec *d);
void dec_tick(struct dec *d, int64_t now_ns);
/*
 * Capture probes (cap_probe_fn, user = struct dec *).  dec_probe_start:
 * m has the shape of an RPC call or reply (rpc_probe), for a record at a
 * segment or stream start.  dec_probe_resync: m starts an RPC call
 * (rpc_probe_call), or an RPC reply whose xid is a call still pending for
 * the reverse direction: after a TCP gap any four bytes may look like a
 * record mark, and a reply's shape alone is weak evidence.
 */
bool dec_probe_start(void *dec, const struct cap_msg *m);
bool dec_probe_resync(void *dec, const struct cap_msg *m);
const struct dec_stats *dec_get_stats(const struct dec *d);

#endif
