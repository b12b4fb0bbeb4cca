/* evidence_find.c - `--select findings`: which operations are a finding's
 * evidence (the table in evidence.h). */
#include "run/evidence_int.h"
#include "base/hash.h"
#include "base/units.h"

#include <string.h>

/* The statuses the findings count (RFC 1813 nfsstat3). */
enum { EV_NOENT = 2, EV_ACCES = 13, EV_NOSPC = 28, EV_STALE = 70,
       EV_JUKEBOX = 10008 };

/* FNV-1a of n bytes; never 0 (0: none). */
static uint32_t fnv(const uint8_t *p, size_t n)
{
	uint32_t h = base_fnv32(BASE_FNV32_INIT, p, n);

	return h ? h : 1;
}

uint32_t ev_fh_hash(const struct nfs_fh *fh)
{
	return fnv(fh->data, fh->len < NFS_FHSIZE_MAX ? fh->len :
		   NFS_FHSIZE_MAX);
}

uint32_t ev_name_hash(const char *name, size_t n)
{
	return fnv((const uint8_t *)name, strnlen(name, n));
}

static enum ev_class op_class(const struct an_op *op)
{
	uint32_t p = op->proc, vers = op->vers;

	if (vers == 4) {	/* its main op as v3's (ops.h) */
		p = an_nfs_v3proc(op->prog, 4, p);
		vers = 3;
	}
	if (op->prog != PROG_NFS || (vers != 2 && vers != 3))
		return EV_C_OTHER;
	if (p == NFS3_NULL || (vers == 3 && p == NFS3_FSINFO))
		return EV_C_CHEAP;
	if (p == NFS3_GETATTR)			/* 1 in v2 and v3 */
		return EV_C_GETATTR;
	if (p == NFS3_READ)			/* 6 in v2 and v3 */
		return EV_C_READ;
	if (vers == 2)
		return p == NFS2_LOOKUP ? EV_C_LOOKUP :
		       p == NFS2_WRITE ? EV_C_WRITE : EV_C_OTHER;
	return p == NFS3_ACCESS ? EV_C_ACCESS : p == NFS3_LOOKUP ? EV_C_LOOKUP :
	       p == NFS3_WRITE ? EV_C_WRITE : p == NFS3_COMMIT ? EV_C_COMMIT :
	       EV_C_OTHER;
}

bool ev_op_candidate(const struct an_op *op)
{
	return op->retrans || op->prog == PROG_NFS4_CB ||
	       (op->prog == PROG_NFS && op->vers >= 2 && op->vers <= 4);
}

/* The NFS error and short-transfer bits of an answered op (as the
 * findings count them: analyze/find.c, figs.c). */
static uint16_t reply_bits(const struct an_op *op, enum ev_class c)
{
	bool st = op->have & AN_HAVE_STATUS;
	bool ok = op->reply_stat == RPC_MSG_ACCEPTED &&
		  op->accept_stat == RPC_SUCCESS && !(st && op->status != 0);
	bool sized = (op->have & (AN_HAVE_COUNT | AN_HAVE_RCOUNT)) ==
		     (AN_HAVE_COUNT | AN_HAVE_RCOUNT) && op->rcount < op->count;
	uint16_t b = EV_B_ANSWERED;

	if (st && (op->status == EV_JUKEBOX || op->status == EV_STALE ||
		   op->status == EV_ACCES || op->status == EV_NOSPC))
		b |= EV_B_BURST;
	if (c == EV_C_LOOKUP && st && op->status == EV_NOENT)
		b |= EV_B_NOENT;
	if (ok && sized && ((c == EV_C_READ && op->vers == 3 &&
			     !((op->have & AN_HAVE_EOF) && op->eof)) ||
			    c == EV_C_WRITE))
		b |= EV_B_SHORT;
	if (ok && c == EV_C_WRITE && op->vers == 3 &&
	    (op->have & (AN_HAVE_STABLE | AN_HAVE_COMMITTED)) ==
	    (AN_HAVE_STABLE | AN_HAVE_COMMITTED) &&
	    op->stable == NFS3_UNSTABLE && op->committed == NFS3_FILE_SYNC)
		b |= EV_B_SYNC_GOT;
	return b;
}

/* Was op's call or reply held on its way (EV_B_HELD)? */
static bool held(const struct an_op *op)
{
	const int64_t ms = 1000000;

	if (op->transport != CAP_TCP)
		return false;
	if (op->call_seg0_ns > 0 && op->last_call_ns - op->call_seg0_ns >= 35 * ms)
		return true;
	if (!(op->flags & AN_OP_ANSWERED))
		return false;
	if (op->reply_seg0_ns > 0 && op->reply_ns - op->reply_seg0_ns >= 35 * ms)
		return true;
	return !(op->flags & AN_OP_CALL_NOT_SEEN) &&
	       op->lat_last_ns >= 36 * ms && op->lat_last_ns <= 44 * ms;
}

void ev_op_facts(struct ev_op *o, const struct an_op *op)
{
	enum ev_class c = op_class(op);

	o->cls = (uint8_t)c;
	o->bits = 0;
	if (op->retrans)
		o->bits |= EV_B_RETRANS;
	if (op->prog == PROG_NFS && op->vers >= 2 && op->vers <= 4)
		o->bits |= EV_B_NFS;
	o->v4kind = (uint8_t)an_nfs4_evidence_kind(op);
	if (op->flags & AN_OP_ANSWERED)
		o->bits |= reply_bits(op, c);
	if (!(op->flags & AN_OP_CALL_NOT_SEEN))
		o->bits |= EV_B_LAT;
	if (c == EV_C_WRITE && op->vers == 3 && (op->have & AN_HAVE_STABLE) &&
	    (op->stable == NFS3_DATA_SYNC || op->stable == NFS3_FILE_SYNC))
		o->bits |= EV_B_SYNC_ASKED;
	if (held(op))
		o->bits |= EV_B_HELD;
	o->fh_hash = (op->have & AN_HAVE_FH) ? ev_fh_hash(&op->fh) : 0;
	o->name_hash = (op->have & AN_HAVE_NAME) ?
		       ev_name_hash(op->name, AN_FIND_NAME_MAX - 1) : 0;
	o->lat_first_ns = op->lat_first_ns;
	o->lat_last_ns = op->lat_last_ns;
	o->reply_ns = op->reply_ns;
}

/* Is t in f's span: [start, end]; [start, end) for the findings counted
 * in whole seconds or intervals; for storms, whose times are whole
 * microseconds (find.h), the end's microsecond whole.  A finding with no
 * span (0, 0) covers the whole run. */
static bool in_span(const struct an_finding *f, int64_t t)
{
	int64_t end = f->end_ns;

	if (f->start_ns == 0 && f->end_ns == 0)
		return true;
	switch (f->kind) {
	case AN_F_ERROR_BURST:
	case AN_F_LATENCY_SHIFT:
		break;
	case AN_F_GETATTR_STORM:
	case AN_F_ACCESS_STORM:
	case AN_F_LOOKUP_STORM:
	case AN_F_COMMIT_STORM:
		end += 1000;
		break;
	default:
		end++;
	}
	return t >= f->start_ns && t < end;
}

/* The kind's own test, once the client, server and span fit. */
static bool kind_covers(const struct ev_op *o, const struct an_finding *f,
			int64_t slow_ns)
{
	unsigned c = o->cls, b = o->bits;
	bool cheap = c == EV_C_CHEAP || c == EV_C_GETATTR ||
		     c == EV_C_ACCESS;
	bool disk = c == EV_C_READ || c == EV_C_WRITE || c == EV_C_COMMIT;
	int64_t d;

	switch (f->kind) {
	case AN_F_GETATTR_STORM: return c == EV_C_GETATTR;
	case AN_F_ACCESS_STORM: return c == EV_C_ACCESS;
	case AN_F_LOOKUP_STORM: return c == EV_C_LOOKUP;
	case AN_F_COMMIT_STORM: return c == EV_C_COMMIT || c == EV_C_WRITE;
	case AN_F_NOENT_REPEAT:
		return (b & EV_B_NOENT) && o->fh_hash == ev_fh_hash(&f->fh) &&
		       o->name_hash == ev_name_hash(f->name, sizeof(f->name));
	case AN_F_SIZE_CAPPED:
		return c == (f->write ? EV_C_WRITE : EV_C_READ);
	case AN_F_SYNC_EXPORT: return (b & EV_B_SYNC_GOT) != 0;
	case AN_F_SYNC_CLIENT: return (b & EV_B_SYNC_ASKED) != 0;
	case AN_F_SERVER_RESTART:	/* the changes, a second either side */
		d = o->reply_ns - f->start_ns;
		return (c == EV_C_WRITE || c == EV_C_COMMIT) &&
		       (b & EV_B_ANSWERED) && d >= -NSEC_PER_SEC &&
		       o->reply_ns - f->end_ns <= NSEC_PER_SEC;
	case AN_F_ERROR_BURST: return (b & EV_B_BURST) && (b & EV_B_NFS);
	case AN_F_RETRANSMITS: return (b & EV_B_RETRANS) != 0;
	case AN_F_SHORT_IO: return (b & EV_B_SHORT) != 0;
	case AN_F_SLOW_SERVER:	/* the server's time, or the client's wait */
		return (cheap || (!f->have_client && disk)) &&
		       (b & EV_B_ANSWERED) && (b & EV_B_LAT) &&
		       (f->have_client ? o->lat_first_ns : o->lat_last_ns) >
		       slow_ns;
	case AN_F_SLOW_PATH:	/* cheap ops: their time is the path's */
		return cheap && (b & EV_B_ANSWERED) && (b & EV_B_LAT);
	case AN_F_TCP_LOSS:	/* delayed by a resend, or sent again */
		return (b & EV_B_NFS) && ((b & EV_B_RETRANS) ||
		       ((b & EV_B_ANSWERED) && (b & EV_B_LAT) &&
			o->lat_first_ns > slow_ns));
	case AN_F_TCP_RESET: return (b & EV_B_RETRANS) != 0;
	case AN_F_TCP_STALL: return (b & EV_B_HELD) != 0;
	case AN_F_LATENCY_SHIFT:
		return (b & EV_B_NFS) && (b & EV_B_ANSWERED) &&
		       (b & EV_B_LAT);
	default:	/* NFSv4's (find_nfs4.c) */
		return o->v4kind == (unsigned)f->kind;
	}
}

bool ev_op_covered(const struct ev_op *o, const struct an_finding *f,
		   int64_t slow_ns)
{
	/* the back channel's caller is the server */
	bool cb = o->prog == PROG_NFS4_CB;

	if (f->have_client && !cap_addr_eq(cb ? &o->server : &o->client,
					   &f->client))
		return false;
	if (f->have_server && !cap_addr_eq(cb ? &o->client : &o->server,
					   &f->server))
		return false;
	if (f->kind != AN_F_SERVER_RESTART && !in_span(f, o->from_ns))
		return false;
	return kind_covers(o, f, slow_ns);
}
