/*
 * shape.c - a reply whose call is not in the capture, decoded by its shape.
 *
 * In a header-only TCP capture the call that follows a large WRITE call
 * begins past the captured bytes of its segment and is never seen, while
 * its reply, at the start of a segment of the other direction, is.  An RPC
 * reply does not name its program, version or procedure (RFC 5531: only
 * the xid ties it to its call), but every NFS result has its own XDR
 * layout, so the reply's bytes say which procedures it can answer.
 *
 * The candidates: NFS versions the client/server pair and server port is
 * known to carry (struct dec_pairs, filled from the calls seen), else
 * those the server port carries for any client; v3 and v2 when nothing is
 * known of a reply from port 2049; nothing from another unknown port or
 * one that carries only other programs (MOUNT, NLM: their calls are small
 * and seldom hidden; an NLM result can have the shape of an NFSv2 one), and
 * "ambiguous" when it carries NFS and another program (NFS_ACL shares port
 * 2049 with NFS: its results were not tried).  An RPCSEC_GSS verifier
 * means a wrapped body: not tried (no fit).  A reply that is not
 * MSG_ACCEPTED/SUCCESS, or has an empty body (the NULL procedure of any
 * program, NFSv2 ROOT and WRITECACHE), fits every program (ambiguous).
 *
 * Each candidate is decoded with a strict cursor (xdr.h): union
 * discriminants and plain bools 0 or 1, ftype3 NF3REG..NF3FIFO, mode3
 * within 07777, nfstime3 nseconds below 10^9, lengths within their
 * bounds; and then:
 *   - the status is an nfsstat3 (nfsstat) RFC 1813 (RFC 1094) defines;
 *   - the body ends exactly at the end of the record (the wire length is
 *     known even when the snaplen cut the bytes: READ data is skipped by
 *     its length), or, cut by the snaplen, decodes without fault up to the
 *     last captured byte;
 *   - what RFC 1813 says of the values of a successful result whatever
 *     its object: READ3resok count equals the length of its data, WRITE3
 *     committed is a stable_how (0..2), FSINFO3 properties hold only
 *     FSF3_LINK|SYMLINK|HOMOGENEOUS|CANSETTIME.  The object's type is not
 *     held to what the procedure implies (a CREATE answered with a
 *     directory's attributes would become a MKDIR: a guess).
 * Exactly one fit: the reply is decoded as that procedure (by_shape).
 * More than one: ambiguous, counted, never guessed.
 *
 * What can be told apart (NFSv3, RFC 1813; tests/unit/test_shape.c checks
 * every row with independently encoded replies):
 *
 *   result                         recovered when              ambiguous with
 *   NULL (empty body)              never                       NULL of any program
 *   GETATTR ok (fattr3)            always                      -
 *   GETATTR fail (status only)     always                      -
 *   SETATTR ok/fail (wcc_data)     never                       REMOVE, RMDIR
 *   LOOKUP ok                      always                      -
 *   ACCESS ok                      always                      -
 *   READLINK ok                    always                      -
 *   READ ok                        always                      -
 *   WRITE ok                       always                      -
 *   CREATE/MKDIR/SYMLINK/MKNOD ok  never                       each other
 *   REMOVE, RMDIR ok/fail          never                       each other, SETATTR
 *   RENAME ok/fail (2 wcc_data)    always                      -
 *   LINK ok/fail                   always                      -
 *   READDIR, READDIRPLUS ok        one or more entries         each other (no entries)
 *   FSSTAT, FSINFO, PATHCONF ok    always                      -
 *   COMMIT ok                      always                      -
 *   fail = status + post_op_attr   never                       LOOKUP, ACCESS, READLINK,
 *     (LOOKUP ... PATHCONF)                                    READ, READDIR(PLUS), FSSTAT,
 *                                                              FSINFO, PATHCONF
 *   fail = status + wcc_data       never                       SETATTR, WRITE, CREATE..,
 *                                                              REMOVE, RMDIR, COMMIT
 *   any, cut by the snaplen        while what was captured     the procedures whose
 *                                  fits one procedure only     prefix it also fits
 *
 * Load: only replies without a pending call come here; each tries at most
 * 22 + 18 procedures over the captured bytes, decoding into the caller's
 * struct dec_msg: no allocation.
 */
#include "decode/nfs_common.h"
#include "base/hash.h"

#include <stdlib.h>
#include <string.h>

#define NFS3_OK 0
#define FSF3_ALL 0x1bu		/* LINK 1, SYMLINK 2, HOMOGENEOUS 8,
				   CANSETTIME 0x10 */
#define PAIR_OTHER 0x1u		/* mask bit: a program other than NFS */
#define PAIRS_DEFAULT 4096

/* ------------------------------------------------ per-pair programs -- */

struct pair_slot {
	struct cap_addr client, server;
	uint16_t server_port;
	uint16_t mask;		/* 1 << vers for NFS; PAIR_OTHER */
	bool used;
};

/* Direct-mapped, bounded: a pair that lands on a used slot takes it over
 * (what was known of the old pair is forgotten: its orphans are then
 * tried as v3 and v2). */
struct dec_pairs {
	uint32_t nslots;	/* a power of two */
	struct pair_slot *slot;
	/* the slots the last call noted (its pair's, its server port's):
	   a pair has one slot, so one that holds it still is its own, and
	   the next call of the pair sets its bit there unhashed */
	struct pair_slot *last[2];
};

struct dec_pairs *
dec_pairs_new(uint32_t max)
{
	struct dec_pairs *p;
	uint32_t n = 1;

	if (max == 0)
		max = PAIRS_DEFAULT;
	while (n < max && n < (1u << 24))
		n <<= 1;
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return NULL;
	p->slot = calloc(n, sizeof(*p->slot));
	if (p->slot == NULL) {
		free(p);
		return NULL;
	}
	p->nslots = n;
	return p;
}

void
dec_pairs_free(struct dec_pairs *p)
{
	if (p == NULL)
		return;
	free(p->slot);
	free(p);
}

static uint32_t
pair_hash(const struct cap_addr *cl, const struct cap_addr *sv,
	  uint16_t port)
{
	uint32_t h = cap_addr_fnv(cap_addr_fnv(BASE_FNV32_INIT, cl), sv);

	h = (h ^ (port & 0xff)) * BASE_FNV32_PRIME;
	h = (h ^ (port >> 8)) * BASE_FNV32_PRIME;
	return h;
}

static struct pair_slot *
pair_slot(struct dec_pairs *p, const struct cap_addr *cl,
	  const struct cap_addr *sv, uint16_t port)
{
	return &p->slot[pair_hash(cl, sv, port) & (p->nslots - 1)];
}

static bool
pair_is(const struct pair_slot *s, const struct cap_addr *cl,
	const struct cap_addr *sv, uint16_t port)
{
	return s->used && s->server_port == port &&
	       cap_addr_eq(&s->client, cl) && cap_addr_eq(&s->server, sv);
}

/* The client of a server's own record (any client): no address. */
static const struct cap_addr any_client;

static void
pair_note(struct dec_pairs *p, int k, const struct cap_addr *cl,
	  const struct cap_addr *sv, uint16_t port, uint16_t bit)
{
	struct pair_slot *s = p->last[k];

	if (s != NULL && pair_is(s, cl, sv, port)) {
		s->mask |= bit;
		return;
	}
	s = p->last[k] = pair_slot(p, cl, sv, port);
	if (!pair_is(s, cl, sv, port)) {
		s->client = *cl;
		s->server = *sv;
		s->server_port = port;
		s->mask = 0;
		s->used = true;
	}
	s->mask |= bit;
}

void
dec_pairs_note(struct dec_pairs *p, const struct cap_msg *call,
	       uint32_t prog, uint32_t vers)
{
	uint16_t bit = prog == PROG_NFS && (vers == 2 || vers == 3) ?
		       (uint16_t)(1u << vers) : PAIR_OTHER;

	pair_note(p, 0, &call->src, &call->dst, call->dport, bit);
	pair_note(p, 1, &any_client, &call->dst, call->dport, bit);
}

static uint16_t
pair_get(struct dec_pairs *p, const struct cap_addr *cl,
	 const struct cap_addr *sv, uint16_t port)
{
	struct pair_slot *s = pair_slot(p, cl, sv, port);

	return pair_is(s, cl, sv, port) ? s->mask : 0;
}

/*
 * What a reply m (server -> client) may answer: what its pair's calls
 * carried; else what the server port's calls from any client carried;
 * else, on port 2049, NFS v3 and v2; else nothing is tried (PAIR_OTHER):
 * an unknown port's reply could be of any program.
 */
static uint16_t
pair_mask(struct dec_pairs *p, const struct cap_msg *m)
{
	uint16_t mask = pair_get(p, &m->dst, &m->src, m->sport);

	if (mask == 0)
		mask = pair_get(p, &any_client, &m->src, m->sport);
	if (mask == 0)
		mask = m->sport == 2049 ? (1u << 2 | 1u << 3) : PAIR_OTHER;
	return mask;
}

/* ------------------------------------------------ result sizes -- */

/*
 * The largest result body each NFS procedure can have (RFC 1813, RFC 1094),
 * in bytes: a reply longer than that cannot answer the call it is paired
 * with.  RES_ANY: no bound (READ, READDIR).  v3: fattr3 84, post_op_attr
 * 88, wcc_data 116, post_op_fh3 72, nfs_fh3 68; v2: fattr 68, fhandle 32.
 */
#define RES_ANY UINT32_MAX

static const uint32_t nfs3_res_max[NFS3_NPROC] = {
	[NFS3_NULL] = 0, [NFS3_GETATTR] = 88, [NFS3_SETATTR] = 120,
	[NFS3_LOOKUP] = 248, [NFS3_ACCESS] = 96, [NFS3_READLINK] = 1120,
	[NFS3_READ] = RES_ANY, [NFS3_WRITE] = 136, [NFS3_CREATE] = 280,
	[NFS3_MKDIR] = 280, [NFS3_SYMLINK] = 280, [NFS3_MKNOD] = 280,
	[NFS3_REMOVE] = 120, [NFS3_RMDIR] = 120, [NFS3_RENAME] = 236,
	[NFS3_LINK] = 208, [NFS3_READDIR] = RES_ANY,
	[NFS3_READDIRPLUS] = RES_ANY, [NFS3_FSSTAT] = 144,
	[NFS3_FSINFO] = 140, [NFS3_PATHCONF] = 116, [NFS3_COMMIT] = 128,
};

static const uint32_t nfs2_res_max[NFS2_NPROC] = {
	[NFS2_NULL] = 0, [NFS2_GETATTR] = 72, [NFS2_SETATTR] = 72,
	[NFS2_ROOT] = 0, [NFS2_LOOKUP] = 104, [NFS2_READLINK] = 1032,
	[NFS2_READ] = 4 + 68 + 4 + 8192, [NFS2_WRITECACHE] = 0,
	[NFS2_WRITE] = 72, [NFS2_CREATE] = 104, [NFS2_REMOVE] = 4,
	[NFS2_RENAME] = 4, [NFS2_LINK] = 4, [NFS2_SYMLINK] = 4,
	[NFS2_MKDIR] = 104, [NFS2_RMDIR] = 4, [NFS2_READDIR] = RES_ANY,
	[NFS2_STATFS] = 24,
};

uint32_t
nfs_res_max(uint32_t vers, uint32_t proc)
{
	if (vers == 3 && proc < NFS3_NPROC)
		return nfs3_res_max[proc];
	if (vers == 2 && proc < NFS2_NPROC)
		return nfs2_res_max[proc];
	return RES_ANY;
}

/* ------------------------------------------------ what the RFC says -- */

/*
 * RFC 1813 on the values of a successful result of proc: those that hold
 * whatever the object (the types of the objects are not held to what the
 * procedure implies: a server that answers a CREATE with a directory's
 * attributes must not make it a MKDIR).
 */
static bool
nfs3_ok_values(uint32_t proc, const struct nfs_reply *r)
{
	switch (proc) {
	case NFS3_READ:
		return (r->have & (NFSR_COUNT | NFSR_DATA_LEN)) !=
		       (NFSR_COUNT | NFSR_DATA_LEN) || r->count == r->data_len;
	case NFS3_WRITE:
		return !(r->have & NFSR_COMMITTED) ||
		       r->committed <= NFS3_FILE_SYNC;
	case NFS3_FSINFO:
		return !(r->have & NFSR_FSINFO) ||
		       (r->fsinfo.properties & ~FSF3_ALL) == 0;
	default:
		return true;
	}
}

/* The values of a decoded (or, cut, partly decoded) result of vers/proc. */
static bool
shape_values_ok(uint32_t vers, uint32_t proc, const struct nfs_reply *r)
{
	if (!(r->have & NFSR_STATUS))
		return true;
	if (nfs_stat_name(vers, r->status) == NULL)
		return false;
	if (vers != 3 || r->status != NFS3_OK)
		return true;
	return nfs3_ok_values(proc, r);
}

/* ------------------------------------------------------ the fitting -- */

/*
 * A result the snaplen cut, decoded strictly up to the cut: can some
 * completion of it end exactly at the record's wire length?  Each run
 * reads the cut fields as their smallest valid values and the bools past
 * the cut as a choice of bits (xdr.h, complete); the runs walk the tree of
 * choices depth first (at most SHAPE_RUNS).  A WRITE reply cut inside its
 * wcc_data fits a WRITE of its length and not a RENAME, whose two wcc_data
 * cannot add up to it.  A length past the cut (a handle, a name, READ
 * data) or a tree too large leaves it open: consistent, as before.
 */
#define SHAPE_RUNS 64

static bool
shape_complete(const struct cap_msg *m, uint32_t body_off, uint32_t vers,
	       uint32_t proc, struct dec_msg *out)
{
	struct nfs_reply *r = &out->u.nfs_reply;
	uint32_t cap = m->caplen <= m->len ? m->caplen : m->len;
	struct { uint32_t bits; uint8_t fixed; } todo[SHAPE_RUNS];
	uint32_t ntodo = 1, runs = 0, i;
	struct xdr c;

	if (cap < body_off + 4)
		return true;	/* no status: any layout */
	todo[0].bits = 0;
	todo[0].fixed = 0;
	while (ntodo > 0) {
		uint32_t bits = todo[--ntodo].bits;
		uint8_t fixed = todo[ntodo].fixed;
		bool ok;

		if (++runs > SHAPE_RUNS)
			return true;
		xdr_init(&c, m->data, cap, m->len);
		c.strict = true;
		c.pass_cut = true;
		c.complete = true;
		c.choices = bits;
		c.off = body_off;
		r->have = 0;
		r->nentries = 0;
		r->entries_total = 0;
		ok = vers == 3 ? nfs3_decode_reply(&c, proc, r) :
				 nfs2_decode_reply(&c, proc, r);
		if (c.open)
			return true;
		if (ok && xdr_wire_left(&c) == 0 &&
		    shape_values_ok(vers, proc, r))
			return true;
		/* the bools this run took as 0 past the fixed ones: try
		 * each as 1, the ones before it fixed */
		for (i = fixed; i < c.choice_n; i++) {
			if (ntodo == SHAPE_RUNS)
				return true;
			todo[ntodo].bits = bits | 1u << i;
			todo[ntodo].fixed = (uint8_t)(i + 1);
			ntodo++;
		}
	}
	return false;
}

/*
 * Decode the body of m (at body_off) as vers/proc into out with a strict
 * cursor.  Returns whether it fits; *c is left as the decode left it.
 */
static bool
shape_decode(const struct cap_msg *m, uint32_t body_off, uint32_t vers,
	     uint32_t proc, bool fitting, struct dec_msg *out, struct xdr *c)
{
	struct nfs_reply *r = &out->u.nfs_reply;
	uint32_t cap = m->caplen <= m->len ? m->caplen : m->len;
	bool ok;

	xdr_init(c, m->data, cap, m->len);
	c->strict = true;
	c->pass_cut = fitting;
	c->off = body_off;
	r->have = 0;
	r->nentries = 0;
	r->entries_total = 0;
	if (vers == 3)
		ok = nfs3_decode_reply(c, proc, r);
	else
		ok = nfs2_decode_reply(c, proc, r);
	if (ok && xdr_wire_left(c) != 0)
		return false;	/* the record goes on: not this result */
	if (!ok && c->err != XDR_TRUNCATED)
		return false;
	if (m->len - body_off > nfs_res_max(vers, proc))
		return false;	/* longer than any such result (cut) */
	if (!shape_values_ok(vers, proc, r))
		return false;
	return ok || !fitting || shape_complete(m, body_off, vers, proc, out);
}

enum dec_shape
dec_shape_try(const struct cap_msg *m, uint32_t vers_mask,
	      struct dec_msg *out, struct dec_shape_fits *fits)
{
	static const uint32_t nproc[4] = { 0, 0, NFS2_NPROC, NFS3_NPROC };
	uint32_t cap = m->caplen <= m->len ? m->caplen : m->len;
	uint32_t vers, proc, n = 0, fv = 0, fp = 0;
	struct xdr c;

	memset(fits, 0, sizeof(*fits));
	out->by_shape = false;
	xdr_init(&c, m->data, cap, m->len);
	if (!rpc_decode_hdr(&c, &out->rpc) || out->rpc.msg_type != RPC_REPLY)
		return DEC_SHAPE_NOFIT;
	if (out->rpc.reply_stat != RPC_MSG_ACCEPTED ||
	    out->rpc.accept_stat != RPC_SUCCESS)
		return DEC_SHAPE_AMBIGUOUS;	/* no body: any procedure */
	if (out->rpc.verf.flavor == RPC_RPCSEC_GSS)
		return DEC_SHAPE_NOFIT;		/* wrapped: not tried */
	if (m->len == out->rpc.body_off)
		return DEC_SHAPE_AMBIGUOUS;	/* void: NULL of any program,
						   v2 ROOT, WRITECACHE */
	for (vers = 3; vers >= 2; vers--) {
		if (!(vers_mask & (1u << vers)))
			continue;
		for (proc = 0; proc < nproc[vers]; proc++) {
			if (!shape_decode(m, out->rpc.body_off, vers, proc,
					  true, out, &c))
				continue;
			fits->procs[vers - 2] |= 1u << proc;
			fv = vers;
			fp = proc;
			n++;
		}
	}
	if (n == 0)
		return DEC_SHAPE_NOFIT;
	if (n > 1)
		return DEC_SHAPE_AMBIGUOUS;
	/* the one fit, decoded again into out (the last try was another),
	 * without passing over what was cut: only whole fields are output */
	out->kind = DEC_BODY_NFS_REPLY;
	out->prog = PROG_NFS;
	out->vers = fv;
	out->proc = fp;
	shape_decode(m, out->rpc.body_off, fv, fp, false, out, &c);
	out->status = c.err == XDR_TRUNCATED ? DEC_TRUNCATED : DEC_OK;
	out->err_off = c.err == XDR_TRUNCATED ? c.err_off : 0;
	out->by_shape = true;
	return DEC_SHAPE_FIT;
}

/* The shape of orphan reply m against the NFS versions p knows for its
 * pair or port; a fit on a port that carries another program too (its
 * results were not tried) is ambiguous. */
static enum dec_shape
shape_of(struct dec_pairs *p, const struct cap_msg *m, struct dec_msg *out)
{
	struct dec_shape_fits fits;
	uint16_t mask = pair_mask(p, m);
	uint32_t nfs = mask & (1u << 2 | 1u << 3);
	enum dec_shape r;

	if (nfs == 0)
		return DEC_SHAPE_NOFIT;	/* only other programs: not tried */
	r = dec_shape_try(m, nfs, out, &fits);
	if (r == DEC_SHAPE_FIT && (mask & PAIR_OTHER)) {
		out->by_shape = false;
		return DEC_SHAPE_AMBIGUOUS;
	}
	return r;
}

bool
dec_reply_shape(struct dec_pairs *p, const struct cap_msg *m,
		struct dec_msg *out, struct dec_stats *st)
{
	enum dec_shape r = shape_of(p, m, out);

	if (st != NULL && r == DEC_SHAPE_FIT)
		st->shape_fit++;
	else if (st != NULL && r == DEC_SHAPE_AMBIGUOUS)
		st->shape_ambiguous++;
	else if (st != NULL)
		st->shape_nofit++;
	return r == DEC_SHAPE_FIT;
}

bool
dec_reply_shape_whole(struct dec_pairs *p, const struct cap_msg *m,
		      struct dec_msg *scratch)
{
	return m->caplen == m->len && shape_of(p, m, scratch) == DEC_SHAPE_FIT &&
	       scratch->status == DEC_OK;
}
