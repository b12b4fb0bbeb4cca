/*
 * ops.c - call/reply matching into operation records; see ops.h.
 *
 * The entries are a fixed pool.  Each entry is on exactly one list: free,
 * pending (ordered by last transmission, oldest first) or answered
 * (ordered by first reply, oldest first), and - unless free - named by the
 * slot of the decoder's call identity it is held under (ref[slot]).
 * Expiry only looks at the heads of the two time-ordered lists, so it is
 * O(1) when nothing expires.  There is no key and no hash here: the
 * decoder's xid map paired the messages (decode.h, struct dec_call_id).
 */
#include "analyze/ops.h"
#include "base/hash.h"
#include "base/table.h"
#include "base/units.h"

#include <assert.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define AN_UNANSWERED_DEFAULT (60 * (int64_t)NSEC_PER_SEC)
/* an_msg.rhave of an NFSv4 reply: a CREATE_SESSION's fore channel limits
 * in rtmax (response) and wtmax (request); above every NFSR_* bit */
#define AN_RH_SESSION 0x80000000u

enum { ST_FREE = 0, ST_PENDING = 1, ST_ANSWERED = 2 };
enum { L_FREE = 0, L_PENDING = 1, L_ANSWERED = 2, L_N = 3 };

struct xent {
	int32_t prev, next;	/* list links */
	uint32_t slot, gen;	/* its identity: ref[slot] names it */
	uint8_t state;
	struct an_op_core op;	/* the path is added at delivery */
};


struct xlist {
	int32_t head, tail;
};

struct an_engine {
	struct an_config cfg;
	an_op_fn fn;
	void *user;
	struct xent *ent;
	uint32_t nent;		/* entries and slots: the call table's size */
	uint32_t fresh;		/* entries [fresh, nent) never used: untouched
				   memory, so RSS follows the peak held */
	uint32_t *ref;		/* per slot of the decoder's table: the
				   entry held under it, index + 1 (0:
				   none); 4 bytes a slot, zero-filled:
				   touched as slots are used */
	struct xlist list[L_N];
	uint32_t held;
	int64_t now;
	struct an_names *names;
	struct an_stats st;
	struct an_msg *msg;	/* an_feed's message (AN_MSG_MAX bytes) */
	struct an_op out;	/* the op being delivered: core + path */
	struct hid_pair *hid;	/* AN_HID_PAIRS: reply directions that lost
				   records to the snaplen, latest time */
	struct slot4 *slots;	/* AN_SLOT_TAB: the last call per session
				   slot (NFSv4.1+) */
};

/* ---------------------------------------------------- session slots -- */

#define AN_SLOT_TAB 1024u

struct slot4 {
	struct cap_addr client, server;
	uint32_t sess_hash, slot, seq, xid;
	uint16_t sport;
	bool used;
};

/*
 * A call with a SEQUENCE: does it repeat the last call on its slot (the
 * same sequence id, another XID)?  The slot then holds this call.
 * *port_changed: the repeat left from another client port (a new
 * connection).
 */
static bool slot_replay(struct an_engine *e, const struct an_msg *am,
			bool *port_changed)
{
	uint32_t h = (am->sess_hash ^ am->slot4 * 2654435761u) &
		     (AN_SLOT_TAB - 1);
	struct slot4 *s = &e->slots[h];
	bool same = s->used && s->sess_hash == am->sess_hash &&
		    s->slot == am->slot4 && cap_addr_eq(&s->client, &am->src) &&
		    cap_addr_eq(&s->server, &am->dst);
	bool replay = same && s->seq == am->seq4 && s->xid != am->xid;

	*port_changed = replay && s->sport != am->sport;
	s->sport = am->sport;
	s->used = true;
	s->client = am->src;
	s->server = am->dst;
	s->sess_hash = am->sess_hash;
	s->slot = am->slot4;
	s->seq = am->seq4;
	s->xid = am->xid;
	return replay;
}

/* ------------------------------------------------ hidden replies -- */

#define AN_HID_PAIRS 1024u

struct hid_pair {
	struct cap_addr client, server;
	int64_t until_ns;	/* 0: empty */
};

static uint32_t hid_slot(const struct cap_addr *c, const struct cap_addr *s)
{
	uint32_t h = BASE_FNV32_INIT;
	int i;

	for (i = 0; i < 16; i++)
		h = (h ^ c->a[i] ^ (uint32_t)s->a[i] << 8) * BASE_FNV32_PRIME;
	return h & (AN_HID_PAIRS - 1);
}

/* Replies from server to client were hidden until ts. */
static void hid_note(struct an_engine *e, const struct cap_addr *client,
		     const struct cap_addr *server, int64_t ts)
{
	struct hid_pair *h = &e->hid[hid_slot(client, server)];

	if (h->until_ns == 0 || !cap_addr_eq(&h->client, client) ||
	    !cap_addr_eq(&h->server, server)) {
		h->client = *client;
		h->server = *server;
		h->until_ns = ts;
	} else if (ts > h->until_ns) {
		h->until_ns = ts;
	}
}

/* Could the reply to o have been hidden? */
static bool hid_reply(const struct an_engine *e, const struct an_op *o)
{
	const struct hid_pair *h = &e->hid[hid_slot(&o->client, &o->server)];

	return h->until_ns != 0 && h->until_ns >= o->first_call_ns &&
	       cap_addr_eq(&h->client, &o->client) &&
	       cap_addr_eq(&h->server, &o->server);
}

/* ------------------------------------------------------------ lists -- */

static void list_push(struct an_engine *e, int l, int32_t i)
{
	struct xlist *L = &e->list[l];

	e->ent[i].prev = L->tail;
	e->ent[i].next = -1;
	if (L->tail >= 0)
		e->ent[L->tail].next = i;
	else
		L->head = i;
	L->tail = i;
}

/* The free list is a stack: a recently freed (cache-warm) entry is reused
 * first, so the entries touched stay near the peak held. */
static void free_push(struct an_engine *e, int32_t i)
{
	struct xlist *L = &e->list[L_FREE];

	e->ent[i].prev = -1;
	e->ent[i].next = L->head;
	if (L->head >= 0)
		e->ent[L->head].prev = i;
	else
		L->tail = i;
	L->head = i;
}

static void list_del(struct an_engine *e, int l, int32_t i)
{
	struct xlist *L = &e->list[l];
	struct xent *x = &e->ent[i];

	if (x->prev >= 0)
		e->ent[x->prev].next = x->next;
	else
		L->head = x->next;
	if (x->next >= 0)
		e->ent[x->next].prev = x->prev;
	else
		L->tail = x->prev;
	x->prev = x->next = -1;
}

/* ------------------------------------------------------------ bytes -- */

/*
 * memcpy for the handles and names copied per message and per op, most
 * of them 8 to 64 bytes: two overlapping fixed-size moves, inline, where a
 * call to memcpy with a variable size spent more on the call and its size
 * dispatch than on the bytes.  Reads and writes only [0, n).
 */
static inline void copy_small(void *dst, const void *src, size_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = src;

	if (n > 64) {
		memcpy(d, s, n);
	} else if (n > 32) {
		memcpy(d, s, 32);
		memcpy(d + n - 32, s + n - 32, 32);
	} else if (n >= 16) {
		memcpy(d, s, 16);
		memcpy(d + n - 16, s + n - 16, 16);
	} else if (n >= 8) {
		memcpy(d, s, 8);
		memcpy(d + n - 8, s + n - 8, 8);
	} else if (n >= 4) {
		memcpy(d, s, 4);
		memcpy(d + n - 4, s + n - 4, 4);
	} else if (n > 0) {
		d[0] = s[0];
		d[n / 2] = s[n / 2];
		d[n - 1] = s[n - 1];
	}
}

/* --------------------------------------------------------- delivery -- */

/*
 * Entries are delivered seconds after they were last touched, so they are
 * out of the cache: while one is delivered, fetch the next one ahead.
 */
static void prefetch_ent(const struct an_engine *e, int32_t i)
{
	const char *p = (const char *)&e->ent[i];
	size_t k;

	/* the links, the fixed fields, the handle and the machine name:
	   what delivery reads (entries are not line-aligned: the last
	   byte's line too) */
	for (k = 0; k < offsetof(struct xent, op.rfh); k += 64)
		__builtin_prefetch(p + k, 1);
	__builtin_prefetch(p + offsetof(struct xent, op.rfh) - 1, 1);
	__builtin_prefetch(p + offsetof(struct xent, op.machine), 1);
	__builtin_prefetch(p + offsetof(struct xent, op.machine) +
			   AN_MACHINE_MAX - 1, 1);
}

/* struct an_op is struct an_op_core plus the path: same members, same
 * places (both are built from AN_OP_CORE_FIELDS), so an_core_copy, which
 * writes fields only (never the padding after name), fills either. */
_Static_assert(offsetof(struct an_op, tsize) ==
	       offsetof(struct an_op_core, tsize) &&
	       offsetof(struct an_op, fh) == offsetof(struct an_op_core, fh) &&
	       offsetof(struct an_op, name) == offsetof(struct an_op_core, name) &&
	       offsetof(struct an_op, path) >=
	       offsetof(struct an_op_core, name) + AN_NAME_MAX,
	       "struct an_op must begin with struct an_op_core's layout");

#define CORE_FIXED offsetof(struct an_op_core, fh)

static void fh_copy(struct nfs_fh *d, const struct nfs_fh *s)
{
	d->len = s->len <= NFS_FHSIZE_MAX ? s->len : NFS_FHSIZE_MAX;
	copy_small(d->data, s->data, d->len);
}

static void str_copy(char *d, const char *s, size_t max)
{
	size_t n = strnlen(s, max - 1);

	memcpy(d, s, n);
	d[n] = '\0';
}

/* The handles and strings, empty. */
static void var_clear(struct an_op_core *o)
{
	o->fh.len = o->rfh.len = 0;
	o->machine[0] = o->name[0] = '\0';
}

/* A handle or string whose `have` bit is clear is empty (ops.h), so it
 * is not even read. */
static void an_core_copy(struct an_op_core *dst,
			 const struct an_op_core *src)
{
	memcpy(dst, src, CORE_FIXED);
	var_clear(dst);
	if (src->have & AN_HAVE_FH)
		fh_copy(&dst->fh, &src->fh);
	if (src->have & AN_HAVE_RFH)
		fh_copy(&dst->rfh, &src->rfh);
	/* the machine name whole (one line, set for nearly every op): its
	   strnlen cost more than copying the bytes after its NUL */
	if (src->have & AN_HAVE_CRED)
		memcpy(dst->machine, src->machine, sizeof(dst->machine));
	if (src->have & AN_HAVE_NAME)
		str_copy(dst->name, src->name, sizeof(dst->name));
}

void an_op_copy(struct an_op *dst, const struct an_op *src)
{
	an_core_copy((struct an_op_core *)dst, (const struct an_op_core *)src);
	str_copy(dst->path, src->path, sizeof(dst->path));
}

uint32_t an_nfs_v3proc(uint32_t prog, uint32_t vers, uint32_t proc)
{
	if (prog != PROG_NFS)
		return NFS3_NPROC;
	if (vers == 3)
		return proc < NFS3_NPROC ? proc : NFS3_NPROC;
	if (vers == 2) {
		switch (proc) {
		case NFS2_GETATTR: return NFS3_GETATTR;
		case NFS2_SETATTR: return NFS3_SETATTR;
		case NFS2_LOOKUP: return NFS3_LOOKUP;
		case NFS2_READ: return NFS3_READ;
		case NFS2_WRITE: return NFS3_WRITE;
		default: return NFS3_NPROC;
		}
	}
	if (vers != 4)
		return NFS3_NPROC;
	switch (proc) {
	case NFS4_PROC_NULL: return NFS3_NULL;
	case NFS4_OP_GETATTR: return NFS3_GETATTR;
	case NFS4_OP_SETATTR: return NFS3_SETATTR;
	case NFS4_OP_LOOKUP: return NFS3_LOOKUP;
	case NFS4_OP_ACCESS: return NFS3_ACCESS;
	case NFS4_OP_READ: return NFS3_READ;
	case NFS4_OP_WRITE: return NFS3_WRITE;
	case NFS4_OP_COMMIT: return NFS3_COMMIT;
	case NFS4_OP_REMOVE: return NFS3_REMOVE;
	case NFS4_OP_RENAME: return NFS3_RENAME;
	case NFS4_OP_READDIR: return NFS3_READDIR;
	default: return NFS3_NPROC;
	}
}

/* An empty op: every field 0 / "" (only the used bytes are cleared). */
static void an_core_clear(struct an_op_core *o)
{
	memset(o, 0, CORE_FIXED);
	var_clear(o);
}

/* Deliver e->out, its core filled: path, export, counts, the callback. */
static void emit(struct an_engine *e, uint32_t why)
{
	struct an_op *o = &e->out;
	const char *path;
	int exp;

	o->path[0] = '\0';
	o->flags |= why;
	o->export_id = -1;
	if ((o->have & AN_HAVE_FH) &&
	    an_names_get(e->names, &o->server, &o->fh, &path, &exp)) {
		size_t n = strlen(path);

		if (n >= AN_PATH_MAX)
			n = AN_PATH_MAX - 1;
		memcpy(o->path, path, n);
		o->path[n] = '\0';
		o->have |= AN_HAVE_PATH;
		if (exp >= 0) {
			o->export_id = exp;
			o->have |= AN_HAVE_EXPORT;
		}
	}
	e->st.ops++;
	if (o->flags & AN_OP_ANSWERED) {
		e->st.answered++;
	} else {
		e->st.unanswered++;
		if (hid_reply(e, o)) {
			o->flags |= AN_OP_REPLY_HIDDEN;
			e->st.reply_not_seen++;
		}
		if (why & AN_OP_EXPIRED)
			e->st.unanswered_expired++;
		if (why & AN_OP_AT_END)
			e->st.unanswered_at_end++;
		if (why & AN_OP_EVICTED)
			e->st.evicted++;
	}
	e->fn(e->user, o);
}

static void deliver(struct an_engine *e, int32_t i, uint32_t why)
{
	struct xent *x = &e->ent[i];

	/* deliveries mostly go down a time-ordered list (expiry): its next
	   is the next one */
	if (x->next >= 0)
		prefetch_ent(e, x->next);
	list_del(e, x->state == ST_PENDING ? L_PENDING : L_ANSWERED, i);
	assert(e->ref[x->slot] == (uint32_t)i + 1);
	e->ref[x->slot] = 0;
	an_core_copy((struct an_op_core *)&e->out, &x->op);
	emit(e, why);
	x->state = ST_FREE;
	free_push(e, i);
	e->held--;
}

static void expire(struct an_engine *e)
{
	int32_t i;

	while ((i = e->list[L_ANSWERED].head) >= 0 &&
	       e->ent[i].op.reply_ns + e->cfg.answered_keep_ns < e->now)
		deliver(e, i, 0);
	while ((i = e->list[L_PENDING].head) >= 0 &&
	       e->ent[i].op.last_call_ns + e->cfg.unanswered_ns < e->now)
		deliver(e, i, AN_OP_EXPIRED);
}

/* A free entry: there is always one, each entry held names a slot of its
 * own (ref[slot]) and there are as many entries as slots. */
static int32_t entry_alloc(struct an_engine *e)
{
	int32_t i = e->list[L_FREE].head;

	if (i < 0 && e->fresh < e->nent) {
		i = (int32_t)e->fresh++;
		e->ent[i].prev = e->ent[i].next = -1;
		list_push(e, L_FREE, i);
	}
	assert(i >= 0);
	list_del(e, L_FREE, i);
	e->held++;
	if (e->held > e->st.pending_peak)
		e->st.pending_peak = e->held;
	return i;
}

/* ------------------------------------------------------------ setup -- */

struct an_engine *an_new(const struct an_config *cfg, an_op_fn fn, void *user)
{
	struct an_engine *e;
	uint32_t i;

	e = calloc(1, sizeof(*e));
	if (e == NULL)
		return NULL;
	if (cfg != NULL)
		e->cfg = *cfg;
	if (e->cfg.xid_max == 0)
		e->cfg.xid_max = DEC_XID_MAX_DEFAULT;
	if (e->cfg.unanswered_ns <= 0)
		e->cfg.unanswered_ns = AN_UNANSWERED_DEFAULT;
	if (e->cfg.answered_keep_ns <= 0)
		e->cfg.answered_keep_ns = AN_ANSWERED_KEEP_NS;
	e->fn = fn;
	e->user = user;
	e->nent = e->cfg.xid_max;
	e->ent = base_table_calloc(e->nent, sizeof(*e->ent));
	e->ref = calloc(e->nent, sizeof(*e->ref));
	e->names = an_names_new(e->cfg.names_max);
	e->msg = malloc(AN_MSG_MAX);
	e->hid = calloc(AN_HID_PAIRS, sizeof(*e->hid));
	e->slots = calloc(AN_SLOT_TAB, sizeof(*e->slots));
	if (e->ent == NULL || e->ref == NULL || e->names == NULL ||
	    e->msg == NULL || e->hid == NULL || e->slots == NULL) {
		an_free(e);
		return NULL;
	}
	for (i = 0; i < L_N; i++)
		e->list[i].head = e->list[i].tail = -1;
	return e;
}

void an_free(struct an_engine *e)
{
	if (e == NULL)
		return;
	an_names_free(e->names);
	free(e->msg);
	free(e->hid);
	free(e->slots);
	free(e->ref);
	free(e->ent);
	free(e);
}

const struct an_stats *an_get_stats(const struct an_engine *e)
{
	return &e->st;
}

const struct an_names *an_get_names(const struct an_engine *e)
{
	return e->names;
}

/* --------------------------------------------------------- messages -- */

static uint32_t msg_flags(const struct cap_msg *m)
{
	uint32_t f = 0;

	if (m->flags & (CAP_MSG_AFTER_GAP | CAP_MSG_HOLE))
		f |= AN_OP_AFTER_GAP;
	if (m->flags & CAP_MSG_IPFRAG)
		f |= AN_OP_IPFRAG;
	return f;
}

/* Append n bytes to the message's tail. */
static void tail_put(struct an_msg *am, const void *p, size_t n)
{
	copy_small((uint8_t *)am + am->size, p, n);
	am->size += (uint32_t)n;
}

static void tail_fh(struct an_msg *am, const struct nfs_fh *fh, uint8_t *len)
{
	*len = (uint8_t)(fh->len <= NFS_FHSIZE_MAX ? fh->len : NFS_FHSIZE_MAX);
	tail_put(am, fh->data, *len);
}

static void tail_name(struct an_msg *am, const char *s, uint32_t len,
		      uint16_t *out)
{
	if (len >= AN_NAME_MAX)
		len = AN_NAME_MAX - 1;
	*out = (uint16_t)len;
	tail_put(am, s, len);
}

/* Whether op (an nfs_opnum4) names an object a GETFH after it returns. */
static bool nfs4_namer(uint32_t op)
{
	return op == NFS4_OP_LOOKUP || op == NFS4_OP_OPEN ||
	       op == NFS4_OP_CREATE;
}

/*
 * The op whose name the record of cp (main op m) takes: the main op's own
 * (LOOKUP, OPEN, CREATE, REMOVE, RENAME ...), else the first LOOKUP, OPEN
 * or CREATE after it still on the main op's handle (no PUTFH, PUTROOTFH
 * or RESTOREFH between): libnfs opens a file with PUTFH GETATTR ACCESS
 * OPEN name GETFH, whose main op is the ACCESS.  NULL if none.
 */
static const struct nfs4_op *name_op(const struct nfs4_compound *cp, int m)
{
	uint32_t i;

	if (cp->ops[m].have & N4_NAME)
		return &cp->ops[m];
	for (i = (uint32_t)m + 1; i < cp->nstored; i++) {
		const struct nfs4_op *o = &cp->ops[i];

		if (o->op == NFS4_OP_PUTFH || o->op == NFS4_OP_PUTROOTFH ||
		    o->op == NFS4_OP_PUTPUBFH || o->op == NFS4_OP_RESTOREFH)
			return NULL;
		if (nfs4_namer(o->op))
			return (o->have & N4_NAME) ? o : NULL;
	}
	return NULL;
}

/*
 * An NFSv4 COMPOUND call as one operation: its main op's arguments, and
 * the handle it works on (the last PUTFH before it, unless a PUTROOTFH,
 * PUTPUBFH or RESTOREFH after that put a handle the call does not carry;
 * the recalled file of a CB_RECALL).
 */
static void build_call4(struct an_msg *am, const struct nfs4_compound *cp)
{
	const struct nfs4_op *o, *nm, *fh = NULL;
	int m = nfs4_main_op(cp), i;

	if (m < 0)
		return;
	if (cp->ops[0].op == NFS4_OP_SEQUENCE && (cp->ops[0].have & N4_SEQ)) {
		const struct nfs4_op *q = &cp->ops[0];
		uint32_t h = BASE_FNV32_INIT;

		for (i = 0; i < NFS4_SESSIONID_SIZE; i++)
			h = (h ^ q->sessionid[i]) * BASE_FNV32_PRIME;
		am->has_seq = 1;
		am->sess_hash = h;
		am->slot4 = q->slot;
		am->seq4 = q->seqid;
	}
	for (i = 0; i <= m; i++)
		if (cp->ops[i].have & N4_FH)
			fh = &cp->ops[i];
		else if (cp->ops[i].op == NFS4_OP_PUTROOTFH ||
			 cp->ops[i].op == NFS4_OP_PUTPUBFH ||
			 cp->ops[i].op == NFS4_OP_RESTOREFH)
			fh = NULL;
	o = &cp->ops[m];
	if (fh != NULL) {
		am->have |= AN_HAVE_FH;
		am->fh_nfs = 1;
		tail_fh(am, &fh->fh, &am->fh_len);
	}
	if ((nm = name_op(cp, m)) != NULL) {
		am->have |= AN_HAVE_NAME;
		tail_name(am, nm->name.s, nm->name.len, &am->name_len);
	}
	if (o->have & N4_OFFSET) {
		am->offset = o->offset;
		am->have |= AN_HAVE_OFFSET;
	}
	if (o->have & N4_COUNT) {
		am->count = o->count;
		am->have |= AN_HAVE_COUNT;
	}
	if (o->have & N4_STABLE) {
		am->stable = o->stable;
		am->have |= AN_HAVE_STABLE;
	}
}

static void build_call(struct an_msg *am, const struct dec_msg *d)
{
	const struct rpc_cred *cr = &d->rpc.cred;

	if (cr->have & RPC_CRED_SYS) {
		am->have |= AN_HAVE_CRED;
		am->uid = cr->uid;
		am->gid = cr->gid;
		am->machine_len = (uint16_t)strnlen(cr->machine,
						    AN_MACHINE_MAX - 1);
		tail_put(am, cr->machine, am->machine_len);
	}
	if (d->kind == DEC_BODY_NFS_CALL) {
		const struct nfs_call *c = &d->u.nfs_call;

		if (c->have & NFSC_FH) {
			am->have |= AN_HAVE_FH;
			am->fh_nfs = 1;
			tail_fh(am, &c->fh, &am->fh_len);
		}
		if (c->have & NFSC_NAME) {
			am->have |= AN_HAVE_NAME;
			tail_name(am, c->name.s, c->name.len, &am->name_len);
		}
		if (c->have & NFSC_OFFSET) {
			am->offset = c->offset;
			am->have |= AN_HAVE_OFFSET;
		}
		if (c->have & NFSC_COUNT) {
			am->count = c->count;
			am->have |= AN_HAVE_COUNT;
		}
		if (c->have & NFSC_STABLE) {
			am->stable = c->stable;
			am->have |= AN_HAVE_STABLE;
		}
	} else if (d->kind == DEC_BODY_NFS4) {
		build_call4(am, &d->u.nfs4);
	} else if (d->kind == DEC_BODY_MNT && (d->u.mnt.have & MNT_PATH)) {
		am->have |= AN_HAVE_NAME;
		tail_name(am, d->u.mnt.path.s, d->u.mnt.path.len, &am->name_len);
	} else if (d->kind == DEC_BODY_NLM && (d->u.nlm.have & NLM_LOCKV)) {
		am->have |= AN_HAVE_FH;
		tail_fh(am, &d->u.nlm.lock.fh, &am->fh_len);
	}
}

/* A result of the main op's into am, as the NFSR_* bits of a v3 reply. */
static void reply4_op(struct an_msg *am, const struct nfs4_op *o)
{
	if (o->have & N4_COUNT) {
		am->rcount = o->count;
		am->rhave |= NFSR_COUNT;
	}
	if (o->have & N4_EOF) {
		am->eof = o->eof;
		am->rhave |= NFSR_EOF;
	}
	if (o->have & N4_STABLE) {
		am->committed = o->stable;
		am->rhave |= NFSR_COMMITTED;
	}
	if (o->have & N4_VERF) {
		memcpy(am->verf, o->verf, NFS_VERF_SIZE);
		am->rhave |= NFSR_VERF;
	}
}

/* The index in cp's reply of the op that named the object a GETFH after
 * it returns: the main op (proc), or the first LOOKUP, OPEN or CREATE
 * after it (name_op); cp->nstored if proc is not there. */
static uint32_t namer_at(const struct nfs4_compound *cp, uint32_t proc)
{
	uint32_t i, m = cp->nstored;

	for (i = 0; i < cp->nstored; i++) {
		if (m == cp->nstored && cp->ops[i].op == proc) {
			m = i;
			if (nfs4_namer(proc))
				return m;
		} else if (m < cp->nstored && nfs4_namer(cp->ops[i].op)) {
			return i;
		}
	}
	return m;
}

/*
 * An NFSv4 COMPOUND reply as one operation's: the COMPOUND's status, the
 * main op's (proc) result, the handle a GETFH after it returned, and the
 * server's maxread/maxwrite from a GETATTR as v3's FSINFO rtmax/wtmax
 * (NFSv4 has no preferred sizes: rtpref/wtpref take the same values).
 */
static void build_reply4(struct an_msg *am, const struct nfs4_compound *cp,
			 uint32_t proc)
{
	bool after = false, stale = false;
	uint32_t i, named = namer_at(cp, proc);

	if (cp->nstored >= 2 && cp->ops[0].op == NFS4_OP_SEQUENCE)
		i = 1;
	else
		i = 0;
	/* the pseudo-fs root: the base of the paths LOOKUP and OPEN learn */
	if (i + 1 < cp->nstored && cp->ops[i].op == NFS4_OP_PUTROOTFH &&
	    cp->ops[i + 1].op == NFS4_OP_GETFH &&
	    (cp->ops[i + 1].have & N4_FH) && proc != NFS4_OP_LOOKUP) {
		tail_fh(am, &cp->ops[i + 1].fh, &am->rfh_len);
		am->rhave |= NFSR_FH;
		am->root4 = 1;
	}
	if (cp->have & N4C_STATUS) {
		am->status = cp->status;
		am->rhave |= NFSR_STATUS;
	}
	for (i = 0; i < cp->nstored; i++) {
		const struct nfs4_op *o = &cp->ops[i];

		if (o->op == proc && !after) {
			after = true;
			reply4_op(am, o);
		} else if (i > named && nfs4_namer(o->op)) {
			stale = true;	/* LOOKUP a LOOKUP b GETFH: b's */
		} else if (i > named && !stale && o->op == NFS4_OP_GETFH &&
			   (o->have & N4_FH) && !(am->rhave & NFSR_FH)) {
			/* the looked-up, opened or created object's */
			tail_fh(am, &o->fh, &am->rfh_len);
			am->rhave |= NFSR_FH;
			/* PUTROOTFH LOOKUP name GETFH: a mount path */
			if (named > 0 && cp->ops[named - 1].op ==
			    NFS4_OP_PUTROOTFH && proc == NFS4_OP_LOOKUP)
				am->root4 = 2;
		}
		if (o->op == NFS4_OP_CREATE_SESSION && (o->have & N4_CHAN) &&
		    !(am->rhave & NFSR_FSINFO)) {
			am->rtmax = o->fore.maxresp;
			am->wtmax = o->fore.maxreq;
			am->rhave |= AN_RH_SESSION;
		}
		if ((o->attr_have & (N4A_MAXREAD | N4A_MAXWRITE)) ==
		    (N4A_MAXREAD | N4A_MAXWRITE)) {
			am->rtmax = am->rtpref = o->maxread > UINT32_MAX ?
				UINT32_MAX : (uint32_t)o->maxread;
			am->wtmax = am->wtpref = o->maxwrite > UINT32_MAX ?
				UINT32_MAX : (uint32_t)o->maxwrite;
			am->rhave |= NFSR_FSINFO;
		}
	}
}

static void build_reply(struct an_msg *am, const struct dec_msg *d)
{
	am->reply_stat = d->rpc.reply_stat;
	am->accept_stat = d->rpc.accept_stat;
	if (d->kind == DEC_BODY_NFS_REPLY) {
		const struct nfs_reply *r = &d->u.nfs_reply;
		uint32_t k;

		/* only what the have bits say is there: the decoder leaves
		   the rest as it was (a bool there may not even be one) */
		am->rhave = r->have;
		if (r->have & NFSR_STATUS)
			am->status = r->status;
		if (r->have & NFSR_FH)
			tail_fh(am, &r->fh, &am->rfh_len);
		if (r->have & NFSR_COUNT)
			am->rcount = r->count;
		if (r->have & NFSR_EOF)
			am->eof = r->eof;
		if (r->have & NFSR_COMMITTED)
			am->committed = r->committed;
		if (r->have & NFSR_VERF)
			memcpy(am->verf, r->verf, NFS_VERF_SIZE);
		if (r->have & NFSR_FSINFO) {
			am->rtmax = r->fsinfo.rtmax;
			am->rtpref = r->fsinfo.rtpref;
			am->wtmax = r->fsinfo.wtmax;
			am->wtpref = r->fsinfo.wtpref;
			am->dtpref = r->fsinfo.dtpref;
		}
		if (r->have & NFSR_STATFS)
			am->tsize = r->statfs.tsize;
		if (!(r->have & NFSR_ENTRIES) || d->vers != 3 ||
		    d->proc != NFS3_READDIRPLUS)
			return;
		/* the entries with a handle: u8 handle length, u8 name
		   length, the handle, the name (as the C string it is) */
		for (k = 0; k < r->nentries && k < NFS_ENTRIES_MAX; k++) {
			const struct nfs_entry *en = &r->entries[k];
			uint8_t hl[2];

			if (!en->have_fh)
				continue;
			hl[0] = (uint8_t)(en->fh.len <= NFS_FHSIZE_MAX ?
					  en->fh.len : NFS_FHSIZE_MAX);
			hl[1] = (uint8_t)strnlen(en->name.s, NFS_NAME_MAX);
			tail_put(am, hl, 2);
			tail_put(am, en->fh.data, hl[0]);
			tail_put(am, en->name.s, hl[1]);
			am->nentries++;
		}
	} else if (d->kind == DEC_BODY_NFS4) {
		build_reply4(am, &d->u.nfs4, d->proc);
		if (d->proc == NFS4_PROC_COMPOUND)
			am->proc4 = nfs4_proc(&d->u.nfs4);
	} else if (d->kind == DEC_BODY_MNT) {
		const struct mnt_msg *mm = &d->u.mnt;

		am->rhave = mm->have;
		if (mm->have & MNT_STATUS)
			am->status = mm->status;
		if (mm->have & MNT_FH)
			tail_fh(am, &mm->fh, &am->rfh_len);
	}
}

static const struct an_msg msg_zero;

size_t an_msg_build(struct an_msg *am, const struct cap_msg *m,
		    const struct dec_msg *d)
{
	/* copied from a zero message: vector moves, where memset's rep
	   stos took a third of the build */
	memcpy(am, &msg_zero, sizeof(*am));
	am->size = sizeof(*am);
	am->ts_ns = m->ts_ns;
	am->first_ts_ns = m->first_ts_ns;
	if (d->rpc.msg_type == RPC_CALL) {
		/* the decoder remembers a call only if its header got as
		   far as the procedure number; so do we */
		if (d->rpc.body_off == 0 &&
		    !(d->status == DEC_TRUNCATED && d->err_off >= 24))
			return am->size;	/* AN_MSG_TIME */
		am->type = AN_MSG_CALL;
	} else if (d->call_seen) {
		am->type = AN_MSG_REPLY;
	} else if (d->by_shape) {
		am->type = AN_MSG_SHAPE;
	} else {
		return am->size;
	}
	am->kind = (uint8_t)d->kind;
	am->dstatus = d->status == DEC_TRUNCATED ? 1 :
		      d->status == DEC_MALFORMED ? 2 : 0;
	am->transport = m->transport;
	am->sport = m->sport;
	am->dport = m->dport;
	am->mflags = msg_flags(m);
	am->hidden_from_ns = m->hidden_from_ns;
	am->frame = m->frame;
	am->len = m->len;
	am->src = m->src;
	am->dst = m->dst;
	am->xid = d->rpc.xid;
	am->prog = d->prog;
	am->vers = d->vers;
	am->proc = d->proc;
	am->slot = d->call_id.slot;
	am->gen = d->call_id.gen;
	if (am->type == AN_MSG_CALL)
		build_call(am, d);
	else
		build_reply(am, d);
	am->size = (am->size + 7) & ~7u;
	return am->size;
}

/* The message's tail, in the order build_* appended it: pointers into
 * the message, nothing copied (handles are copied once, into the op). */
struct msg_tail {
	const char *machine, *name;
	const uint8_t *fh, *rfh;
	const uint8_t *entries;
};

static void tail_get(const struct an_msg *am, struct msg_tail *t)
{
	const uint8_t *p = (const uint8_t *)(am + 1);

	t->machine = (const char *)p;
	p += am->machine_len;
	t->fh = p;
	p += am->fh_len;
	t->name = (const char *)p;
	p += am->name_len;
	t->rfh = p;
	p += am->rfh_len;
	t->entries = p;
}

static void tail_fh_copy(struct nfs_fh *d, const uint8_t *p, uint8_t len)
{
	d->len = len;
	copy_small(d->data, p, len);
}

/* ------------------------------------------------------------ calls -- */

static void copy_name(char *dst, const char *src, uint32_t len)
{
	if (len >= AN_NAME_MAX)
		len = AN_NAME_MAX - 1;
	copy_small(dst, src, len);
	dst[len] = '\0';
}

/* Fill the call side of a fresh op. */
static void call_fill(struct an_op_core *o, const struct an_msg *am,
		      const struct msg_tail *t)
{
	o->call_frame = am->frame;
	o->first_call_ns = o->last_call_ns = am->ts_ns;
	o->call_seg0_ns = am->first_ts_ns;
	o->lat_first_ns = o->lat_last_ns = -1;
	o->client_port = o->client_port_last = am->sport;
	o->server_port = am->dport;
	o->transport = am->transport;
	o->prog = am->prog;
	o->vers = am->vers;
	o->proc = am->proc;
	o->call_len = am->len;
	o->flags |= am->mflags;
	if (am->dstatus == 1)
		o->flags |= AN_OP_CALL_TRUNC;
	else if (am->dstatus == 2)
		o->flags |= AN_OP_CALL_BAD;
	o->have |= am->have;
	if (am->have & AN_HAVE_CRED) {
		o->uid = am->uid;
		o->gid = am->gid;
		copy_name(o->machine, t->machine, am->machine_len);
	}
	if (am->have & AN_HAVE_FH)
		tail_fh_copy(&o->fh, t->fh, am->fh_len);
	if (am->have & AN_HAVE_NAME)
		copy_name(o->name, t->name, am->name_len);
	o->offset = am->offset;
	o->count = am->count;
	o->stable = am->stable;
}

static bool same_call(const struct an_op_core *o, const struct an_msg *am,
		      const struct msg_tail *t)
{
	if (o->vers != am->vers || o->proc != am->proc)
		return false;
	if ((o->have & AN_HAVE_FH) && am->fh_nfs) {
		if (am->fh_len != o->fh.len ||
		    memcmp(t->fh, o->fh.data, am->fh_len) != 0)
			return false;
	}
	return true;
}

/* The entry held in am's slot (whatever its identity), or -1. */
static int32_t slot_entry(const struct an_engine *e, const struct an_msg *am)
{
	if (am->gen == 0 || am->slot >= e->nent)
		return -1;
	return (int32_t)e->ref[am->slot] - 1;
}

/*
 * Identities (decode.h, struct dec_call_id): can am's be held here?  Its
 * slot is one of the table's and the entry held there, if any, is of no
 * newer identity (a slot's generations only grow; an older one is a call
 * whose slot the decoder handed on meanwhile).
 */
static bool id_current(const struct an_engine *e, const struct an_msg *am)
{
	int32_t i = slot_entry(e, am);

	if (am->gen == 0 || am->slot >= e->nent)
		return false;
	return i < 0 || (int32_t)(am->gen - e->ent[i].gen) >= 0;
}

/*
 * A call of identity am's: if its slot holds an older identity's entry,
 * that call left the decoder's table (the table's one eviction rule) and
 * its op goes now - unanswered: evicted; answered: retired before its
 * keep window (retired_early, not a loss).
 */
static void id_open(struct an_engine *e, const struct an_msg *am)
{
	int32_t i = slot_entry(e, am);

	if (i < 0 || e->ent[i].gen == am->gen)
		return;
	if (e->ent[i].state == ST_ANSWERED) {
		e->st.retired_early++;
		deliver(e, i, 0);
	} else {
		deliver(e, i, AN_OP_EVICTED);
	}
}

/* The entry held under am's identity, or -1. */
static int32_t id_entry(const struct an_engine *e, const struct an_msg *am)
{
	int32_t i = slot_entry(e, am);

	return i >= 0 && e->ent[i].gen == am->gen ? i : -1;
}

/* A call whose identity cannot be held (id_current): an op at once,
 * unanswered and evicted, as if the table had pushed it out. */
static void call_evicted(struct an_engine *e, const struct an_msg *am,
			 const struct msg_tail *t)
{
	struct an_op_core *o = (struct an_op_core *)&e->out;

	an_core_clear(o);
	o->client = am->src;
	o->server = am->dst;
	o->xid = am->xid;
	call_fill(o, am, t);
	emit(e, AN_OP_EVICTED);
}

static void on_call(struct an_engine *e, const struct an_msg *am)
{
	int32_t i;
	struct msg_tail t;
	struct xent *x;
	struct an_op_core *o;
	int64_t ivl;
	bool moved = false;

	e->st.calls++;
	tail_get(am, &t);
	if (!id_current(e, am)) {
		call_evicted(e, am, &t);
		return;
	}
	id_open(e, am);
	i = id_entry(e, am);
	if (i >= 0 && same_call(&e->ent[i].op, am, &t)) {
		x = &e->ent[i];
		o = &x->op;
		/* a copy older than the one held (its connection cut, the
		   cut message delivered late): the interval is the same */
		ivl = am->ts_ns >= o->last_call_ns ?
		      am->ts_ns - o->last_call_ns : o->last_call_ns - am->ts_ns;
		if (o->retrans == 0)
			o->retrans_ivl_first_ns = ivl;
		if (ivl > o->retrans_ivl_max_ns)
			o->retrans_ivl_max_ns = ivl;
		o->retrans++;
		e->st.retrans++;
		o->flags |= am->mflags;
		if (am->sport != o->client_port_last)
			o->flags |= AN_OP_PORT_CHANGED;
		o->client_port_last = am->sport;
		if (x->state == ST_ANSWERED) {
			o->flags |= AN_OP_LATE_RETRANS;
			e->st.late_retrans++;
			return;
		}
		o->last_call_ns = am->ts_ns;
		o->call_seg0_ns = am->first_ts_ns;
		list_del(e, L_PENDING, i);
		list_push(e, L_PENDING, i);
		return;
	}
	if (i >= 0) {
		e->st.xid_reused++;
		deliver(e, i, AN_OP_XID_REUSED);
	}
	i = entry_alloc(e);
	x = &e->ent[i];
	o = &x->op;
	an_core_clear(o);
	o->client = am->src;
	o->server = am->dst;
	o->xid = am->xid;
	call_fill(o, am, &t);
	if (am->has_seq && slot_replay(e, am, &moved)) {
		o->flags |= AN_OP_SLOT_REPLAY | (moved ? AN_OP_PORT_CHANGED : 0);
		e->st.slot_replays++;
	}
	x->slot = am->slot;
	x->gen = am->gen;
	x->state = ST_PENDING;
	e->ref[am->slot] = (uint32_t)i + 1;
	list_push(e, L_PENDING, i);
}

/* ----------------------------------------------------------- replies -- */

/* Whether an NFSv4 op has a name of its own (N4_NAME) that is no
 * namer's: the record's name is then that op's, never a later LOOKUP's. */
static bool nfs4_names_own(uint32_t op)
{
	return op == NFS4_OP_REMOVE || op == NFS4_OP_RENAME ||
	       op == NFS4_OP_LINK || op == NFS4_OP_SECINFO ||
	       op == NFS4_OP_GETXATTR || op == NFS4_OP_SETXATTR ||
	       op == NFS4_OP_REMOVEXATTR;
}

static bool creates_name(uint32_t vers, uint32_t proc)
{
	if (vers == 4)	/* a main op that names none takes a namer's name */
		return nfs4_namer(proc) || !nfs4_names_own(proc);
	if (vers == 3)
		return proc == NFS3_LOOKUP || proc == NFS3_CREATE ||
		       proc == NFS3_MKDIR || proc == NFS3_SYMLINK ||
		       proc == NFS3_MKNOD;
	return proc == NFS2_LOOKUP || proc == NFS2_CREATE ||
	       proc == NFS2_MKDIR;
}

/* An NFSv4 export learned from a reply (an_msg.root4): 1 the pseudo-fs
 * root "/", 2 its child o->name (PUTROOTFH LOOKUP name GETFH, as a
 * client mounts /name). */
static void root4_export(struct an_engine *e, const struct an_op_core *o,
			 uint8_t how)
{
	char path[AN_NAME_MAX + 1];
	size_t n = strnlen(o->name, AN_NAME_MAX - 1);

	if (how == 1) {
		an_names_export(e->names, &o->server, &o->rfh, "/");
	} else if (o->have & AN_HAVE_NAME) {
		path[0] = '/';
		memcpy(path + 1, o->name, n);
		path[n + 1] = '\0';
		an_names_export(e->names, &o->server, &o->rfh, path);
	}
}

static void reply_nfs(struct an_engine *e, struct an_op_core *o,
		      const struct an_msg *am, const struct msg_tail *t)
{
	const uint8_t *p = t->entries;
	char name[NFS_NAME_MAX + 1];
	struct nfs_fh fh;
	uint32_t k;

	if (am->rhave & NFSR_STATUS) {
		o->status = am->status;
		o->have |= AN_HAVE_STATUS;
	}
	if (am->rhave & NFSR_FH) {
		tail_fh_copy(&o->rfh, t->rfh, am->rfh_len);
		o->have |= AN_HAVE_RFH;
		if (am->root4)
			root4_export(e, o, am->root4);
		if ((o->have & (AN_HAVE_FH | AN_HAVE_NAME)) ==
		    (AN_HAVE_FH | AN_HAVE_NAME) && creates_name(o->vers, o->proc))
			an_names_child(e->names, &o->server, &o->fh, o->name,
				       &o->rfh);
	}
	if (am->rhave & NFSR_COUNT) {
		o->rcount = am->rcount;
		o->have |= AN_HAVE_RCOUNT;
	}
	if (am->rhave & NFSR_EOF) {
		o->eof = am->eof;
		o->have |= AN_HAVE_EOF;
	}
	if (am->rhave & NFSR_COMMITTED) {
		o->committed = am->committed;
		o->have |= AN_HAVE_COMMITTED;
	}
	if (am->rhave & NFSR_VERF) {
		memcpy(o->verf, am->verf, NFS_VERF_SIZE);
		o->have |= AN_HAVE_VERF;
	}
	if (am->rhave & NFSR_FSINFO) {
		o->rtmax = am->rtmax;
		o->rtpref = am->rtpref;
		o->wtmax = am->wtmax;
		o->wtpref = am->wtpref;
		o->dtpref = am->dtpref;
		o->have |= AN_HAVE_FSINFO;
	}
	if (am->rhave & AN_RH_SESSION) {
		o->rtmax = am->rtmax;
		o->wtmax = am->wtmax;
		o->have |= AN_HAVE_SESSION;
	}
	if (am->rhave & NFSR_STATFS) {
		o->tsize = am->tsize;
		o->have |= AN_HAVE_STATFS;
	}
	/* entries were kept for a v3 READDIRPLUS reply only */
	if (!(o->have & AN_HAVE_FH))
		return;
	for (k = 0; k < am->nentries; k++) {
		fh.len = p[0];
		memcpy(fh.data, p + 2, p[0]);
		memcpy(name, p + 2 + p[0], p[1]);
		name[p[1]] = '\0';
		p += 2 + p[0] + p[1];
		an_names_child(e->names, &o->server, &o->fh, name, &fh);
	}
}

static void reply_fill(struct an_engine *e, struct an_op_core *o,
		       const struct an_msg *am, const struct msg_tail *t)
{
	o->flags |= AN_OP_ANSWERED | am->mflags;
	o->reply_frame = am->frame;
	o->reply_ns = am->ts_ns;
	o->reply_seg0_ns = am->first_ts_ns;
	o->lat_first_ns = am->ts_ns - o->first_call_ns;
	o->lat_last_ns = am->ts_ns - o->last_call_ns;
	if (o->lat_first_ns < 0)
		o->lat_first_ns = 0;
	if (o->lat_last_ns < 0)
		o->lat_last_ns = 0;
	o->reply_len = am->len;
	o->reply_stat = am->reply_stat;
	o->accept_stat = am->accept_stat;
	if (am->dstatus == 1)
		o->flags |= AN_OP_REPLY_TRUNC;
	else if (am->dstatus == 2)
		o->flags |= AN_OP_REPLY_BAD;
	if (am->kind == DEC_BODY_NFS_REPLY || am->kind == DEC_BODY_NFS4) {
		reply_nfs(e, o, am, t);
	} else if (am->kind == DEC_BODY_MNT) {
		if (am->rhave & MNT_STATUS) {
			o->status = am->status;
			o->have |= AN_HAVE_STATUS;
		}
		if ((am->rhave & MNT_FH) && o->proc == MOUNT_MNT &&
		    am->status == 0) {
			tail_fh_copy(&o->rfh, t->rfh, am->rfh_len);
			o->have |= AN_HAVE_RFH;
			if (o->have & AN_HAVE_NAME)
				an_names_export(e->names, &o->server, &o->rfh,
						o->name);
		}
	}
	e->st.names_evicted = an_names_evictions(e->names);
}

static void on_reply(struct an_engine *e, const struct an_msg *am)
{
	int32_t i = id_entry(e, am);
	struct msg_tail t;
	struct xent *x;

	e->st.replies++;
	if (i < 0) {
		e->st.replies_unmatched++;
		return;
	}
	x = &e->ent[i];
	if (x->op.vers != am->vers || x->op.proc != am->proc) {
		x->op.flags |= AN_OP_MISFIT_REPLY;
		e->st.misfit_replies++;
		return;
	}
	if (x->state == ST_ANSWERED) {
		x->op.dup_replies++;
		e->st.dup_replies++;
		return;
	}
	/* a header-only capture cut the COMPOUND call before its main op:
	   the reply's ops say it (the statuses of the ops run; one that
	   failed early leaves a setup op, which nfs4_proc does not name) */
	if (am->proc4 > NFS4_PROC_COMPOUND)
		x->op.proc = am->proc4;
	tail_get(am, &t);
	reply_fill(e, &x->op, am, &t);
	x->state = ST_ANSWERED;
	list_del(e, L_PENDING, i);
	list_push(e, L_ANSWERED, i);
}

/*
 * A reply whose call is not in the capture, its procedure from its shape:
 * an op of its own at once (no entry: no call will come to pair with it),
 * with the reply's fields, no latency, the reply's time as call time.
 */
static void on_shape(struct an_engine *e, const struct an_msg *am)
{
	struct an_op *o = &e->out;
	struct msg_tail t;

	e->st.replies++;
	tail_get(am, &t);
	an_core_clear((struct an_op_core *)o);
	o->path[0] = '\0';
	o->export_id = -1;
	o->client = am->dst;
	o->server = am->src;
	o->client_port = o->client_port_last = am->dport;
	o->server_port = am->sport;
	o->transport = am->transport;
	o->xid = am->xid;
	o->prog = am->prog;
	o->vers = am->vers;
	o->proc = am->proc;
	o->first_call_ns = o->last_call_ns = am->ts_ns;
	reply_fill(e, (struct an_op_core *)o, am, &t);
	o->lat_first_ns = o->lat_last_ns = -1;
	o->flags |= AN_OP_CALL_NOT_SEEN;
	e->st.ops++;
	e->st.from_replies++;
	e->fn(e->user, o);
}

/* ------------------------------------------------------------- feed -- */

void an_feed_msg(struct an_engine *e, const struct an_msg *am)
{
	if (am->ts_ns > e->now) {
		e->now = am->ts_ns;
		expire(e);
	}
	if (am->type == AN_MSG_HIDDEN) {	/* time is the span's */
		hid_note(e, &am->dst, &am->src, am->ts_ns);
		return;
	}
	if (am->type == AN_MSG_REPLY && am->hidden_from_ns)
		hid_note(e, &am->dst, &am->src, am->ts_ns);
	if (am->type == AN_MSG_CALL)
		on_call(e, am);
	else if (am->type == AN_MSG_REPLY)
		on_reply(e, am);
	else if (am->type == AN_MSG_SHAPE)
		on_shape(e, am);
}

void an_feed(struct an_engine *e, const struct cap_msg *m,
	     const struct dec_msg *d)
{
	an_msg_build(e->msg, m, d);
	an_feed_msg(e, e->msg);
}

void an_tick(struct an_engine *e, int64_t now_ns)
{
	if (now_ns > e->now) {
		e->now = now_ns;
		expire(e);
	}
}

void an_flush(struct an_engine *e)
{
	int32_t i;

	while ((i = e->list[L_ANSWERED].head) >= 0)
		deliver(e, i, 0);
	while ((i = e->list[L_PENDING].head) >= 0)
		deliver(e, i, AN_OP_AT_END);
}

void an_trim(struct an_engine *e)
{
	assert(e->held == 0);
	free(e->ent);
	free(e->ref);
	e->ent = NULL;
	e->ref = NULL;
	e->nent = e->fresh = 0;
	e->list[L_FREE].head = e->list[L_FREE].tail = -1;
}
