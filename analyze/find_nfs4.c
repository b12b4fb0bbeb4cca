/*
 * find_nfs4.c - the NFSv4 findings (find.h, find_int.h): session errors
 * (NFS4ERR_DELAY, GRACE, BADSESSION/DEADSESSION, SEQ_MISORDERED,
 * STALE_CLIENTID), session slot replays, delegation recalls and lock
 * contention, per client/server pair.
 *
 * Each kind counts its replies (or calls) per pair, the main ops they
 * came on and the file most of them concern, and measures what it cost
 * the client: the wait from the first refused call to the one that
 * succeeded (the same op on the same file: DELAY, GRACE, DENIED), from a
 * CB_RECALL to its DELEGRETURN, from a lost session or client id to the
 * next CREATE_SESSION (or SETCLIENTID_CONFIRM) that succeeded.  A
 * back-channel op's caller is the server: its pair is (callee, caller).
 * An op's file is its handle; an OPEN's, its handle (the directory: Linux
 * opens with PUTFH dir OPEN name) and its name; an OPEN whose name the
 * snaplen cut, or a CB_RECALL whose handle it cut, has its wait unmeasured.
 *
 * Memory: made at the first v4 op: V4_PAIRS pairs and V4_WAITS waits
 * (~0.6 MB), fixed; a pair past the table is counted (pairs_dropped), a
 * wait that collides replaces the older one (its wait is not measured).
 */
#include "analyze/find_int.h"
#include "base/hash.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define V4_PAIRS 256
#define V4_WAITS 4096
#define V4_PROCS 4	/* main ops named per kind */

enum { K_DELAY, K_GRACE, K_BADSESS, K_MISORD, K_STALE, K_REPLAY, K_RECALL,
       K_DENIED, K_N };

static const enum an_find_kind kind_of[K_N] = {
	[K_DELAY] = AN_F_NFS4_DELAY, [K_GRACE] = AN_F_NFS4_GRACE,
	[K_BADSESS] = AN_F_SESSION_LOST, [K_MISORD] = AN_F_SEQ_MISORDERED,
	[K_STALE] = AN_F_STALE_CLIENTID, [K_REPLAY] = AN_F_SESSION_REPLAY,
	[K_RECALL] = AN_F_DELEG_RECALL, [K_DENIED] = AN_F_LOCK_CONTENTION,
};

struct v4proc {
	uint32_t proc;
	uint64_t n;
};

struct v4count {
	uint64_t n;
	int64_t first_ns, last_ns;
	uint64_t waits;			/* waits measured */
	int64_t wait_ns, wait_max_ns;	/* their sum, the longest */
	int64_t pending_ns;		/* BADSESS/STALE: since (0: none) */
	uint64_t same_conn;		/* REPLAY: from the same client port */
	uint64_t no_fh;			/* RECALL: its handle not captured */
	struct v4proc procs[V4_PROCS];
	uint64_t procs_other;
	struct nfs_fh fh;		/* the first event's file */
	uint64_t name_hash;		/* its OPEN's name in fh (0: none) */
	uint64_t fh_n;			/* events on it */
	char path[AN_PATH_MAX];
};

struct v4pair {
	bool used;
	struct cap_addr client, server;
	uint64_t ops;
	struct v4count k[K_N];
};

/* A refused call waiting for its success (DELAY, GRACE, DENIED) or a
 * recall for its DELEGRETURN. */
struct v4wait {
	bool used;
	uint8_t kind;
	uint32_t pair, proc;
	struct nfs_fh fh;
	uint64_t name;			/* an OPEN's name in fh (0: none) */
	int64_t since_ns;
};

struct an_v4find {
	struct v4pair pair[V4_PAIRS];
	struct v4wait wait[V4_WAITS];
	uint64_t pairs_dropped;
};

#define fh_hash an_find_fh_hash
#define fh_eq an_find_fh_eq

/* The pair's slot (made if new), or -1 when the table is full. */
static int32_t pair_slot(struct an_v4find *v, const struct cap_addr *c,
			 const struct cap_addr *s)
{
	uint64_t h = an_find_addr_hash(s, an_find_addr_hash(c, 17));
	uint32_t i, k;

	for (i = 0; i < V4_PAIRS; i++) {
		struct v4pair *p;

		k = (uint32_t)((h + i) % V4_PAIRS);
		p = &v->pair[k];
		if (!p->used) {
			p->used = true;
			p->client = *c;
			p->server = *s;
			return (int32_t)k;
		}
		if (cap_addr_eq(&p->client, c) && cap_addr_eq(&p->server, s))
			return (int32_t)k;
	}
	v->pairs_dropped++;
	return -1;
}

/* The op's kind of trouble (K_*), or -1. */
static int trouble_of(const struct an_op *op)
{
	if (op->prog == PROG_NFS4_CB)
		return op->proc == NFS4_OP_CB_RECALL ? K_RECALL : -1;
	if (!(op->flags & AN_OP_ANSWERED) || !(op->have & AN_HAVE_STATUS))
		return -1;
	switch (op->status) {
	case NFS4ERR_DELAY: return K_DELAY;
	case NFS4ERR_GRACE: return K_GRACE;
	case NFS4ERR_BADSESSION:
	case NFS4ERR_DEADSESSION: return K_BADSESS;
	case NFS4ERR_SEQ_MISORDERED: return K_MISORD;
	case NFS4ERR_STALE_CLIENTID: return K_STALE;
	case NFS4ERR_DENIED:
		return op->proc == NFS4_OP_LOCK || op->proc == NFS4_OP_LOCKT ?
		       K_DENIED : -1;
	default: return -1;
	}
}

enum an_find_kind an_nfs4_evidence_kind(const struct an_op *op)
{
	int k;

	if (op->prog == PROG_NFS && op->vers == 4 &&
	    (op->flags & AN_OP_SLOT_REPLAY))
		return AN_F_SESSION_REPLAY;
	if (op->prog == PROG_NFS && op->vers == 4 &&
	    op->proc == NFS4_OP_DELEGRETURN)
		return AN_F_DELEG_RECALL;
	if (!((op->prog == PROG_NFS && op->vers == 4) || op->prog == PROG_NFS4_CB))
		return AN_F_NKINDS;
	k = trouble_of(op);
	return k < 0 ? AN_F_NKINDS : kind_of[k];
}

/* LOCKT asks what LOCK takes: a LOCK that succeeds ends both's waits. */
static uint32_t wait_proc(uint32_t proc)
{
	return proc == NFS4_OP_LOCKT ? NFS4_OP_LOCK : proc;
}

/* A wait's file is its handle and, for an OPEN, its name (name:
 * open_name_hash). */
static struct v4wait *wait_slot(struct an_v4find *v, int kind, int32_t pair,
				uint32_t proc, const struct nfs_fh *fh,
				uint64_t name)
{
	uint64_t h = fh_hash(fh, (uint64_t)pair * 31 + proc * 7 + (uint64_t)kind);

	return &v->wait[(h ^ name) % V4_WAITS];
}

static bool wait_is(const struct v4wait *w, int kind, int32_t pair,
		    uint32_t proc, const struct nfs_fh *fh, uint64_t name)
{
	return w->used && w->kind == kind && w->pair == (uint32_t)pair &&
	       w->proc == proc && fh_eq(&w->fh, fh) && w->name == name;
}

static void wait_start(struct an_v4find *v, int kind, int32_t pair,
		       uint32_t proc, const struct nfs_fh *fh, uint64_t name,
		       int64_t ns)
{
	struct v4wait *w = wait_slot(v, kind, pair, proc, fh, name);

	if (wait_is(w, kind, pair, proc, fh, name))
		return;		/* waiting since its first refusal */
	w->used = true;
	w->kind = (uint8_t)kind;
	w->pair = (uint32_t)pair;
	w->proc = proc;
	w->fh = *fh;
	w->name = name;
	w->since_ns = ns;
}

static void count_wait(struct v4count *k, int64_t ns)
{
	if (ns < 0)
		ns = 0;
	k->waits++;
	k->wait_ns += ns;
	if (ns > k->wait_max_ns)
		k->wait_max_ns = ns;
}

/* The op ended the wait of kind `kind` on its (pair, proc, file). */
static void wait_end(struct an_v4find *v, struct v4pair *p, int kind,
		     int32_t pair, uint32_t proc, const struct nfs_fh *fh,
		     uint64_t name, int64_t ns)
{
	struct v4wait *w = wait_slot(v, kind, pair, proc, fh, name);

	if (!wait_is(w, kind, pair, proc, fh, name))
		return;
	count_wait(&p->k[kind], ns - w->since_ns);
	w->used = false;
	if (kind == K_RECALL && ns > p->k[kind].last_ns)
		p->k[kind].last_ns = ns;	/* its span: to the return */
}

/* The file of a kind's first event: its handle's path; an OPEN's handle
 * is its directory's, the file is the name in it. */
static void first_path(struct v4count *k, const struct an_op *op)
{
	const char *dir = (op->have & AN_HAVE_PATH) ? op->path : "";
	size_t n = strlen(dir);

	if (op->proc != NFS4_OP_OPEN || !(op->have & AN_HAVE_NAME)) {
		snprintf(k->path, sizeof(k->path), "%s", dir);
		return;
	}
	if (n == 0) {
		k->path[0] = '\0';	/* the directory unknown */
		return;
	}
	if (snprintf(k->path, sizeof(k->path), "%s%s%s", dir,
		     dir[n - 1] == '/' ? "" : "/", op->name) >=
	    (int)sizeof(k->path))
		k->path[0] = '\0';	/* too long to name */
}

/* The file an OPEN by name opens is the name in its handle, a directory
 * (Linux opens with PUTFH dir OPEN name): the name's hash, 0 for any other
 * op (names hashing to 0 are one file more). */
static uint64_t open_name_hash(const struct an_op *op)
{
	if (op->proc != NFS4_OP_OPEN || !(op->have & AN_HAVE_NAME))
		return 0;
	return base_fnv64(BASE_FNV64_INIT, op->name, strlen(op->name));
}

/* Whether the op's file is known: not an OPEN whose name the snaplen cut
 * (its handle is the directory's).  A wait is measured on a known file. */
static bool file_known(const struct an_op *op)
{
	return op->proc != NFS4_OP_OPEN || (op->have & AN_HAVE_NAME) ||
	       !(op->flags & AN_OP_CALL_TRUNC);
}

static void count_event(struct v4count *k, const struct an_op *op,
			int64_t ns)
{
	const struct nfs_fh none = { .len = 0 };
	const struct nfs_fh *fh = (op->have & AN_HAVE_FH) ? &op->fh : &none;
	uint64_t name = open_name_hash(op);
	uint32_t i;

	if (k->n == 0 || ns < k->first_ns)
		k->first_ns = ns;
	if (ns > k->last_ns)
		k->last_ns = ns;
	if (k->n == 0) {
		k->fh = *fh;
		k->name_hash = name;
		first_path(k, op);
	}
	if (fh_eq(&k->fh, fh) && k->name_hash == name)
		k->fh_n++;
	k->n++;
	for (i = 0; i < V4_PROCS; i++) {
		if (k->procs[i].n == 0)
			k->procs[i].proc = op->proc;
		if (k->procs[i].proc == op->proc) {
			k->procs[i].n++;
			return;
		}
	}
	k->procs_other++;
}

/* A successful op: the waits it ends. */
static void success(struct an_v4find *v, struct v4pair *p, int32_t pair,
		    const struct an_op *op)
{
	const struct nfs_fh none = { .len = 0 };
	const struct nfs_fh *fh = (op->have & AN_HAVE_FH) ? &op->fh : &none;
	uint64_t name = open_name_hash(op);
	int64_t end = op->reply_ns;

	if (file_known(op)) {
		wait_end(v, p, K_DELAY, pair, op->proc, fh, name, end);
		wait_end(v, p, K_GRACE, pair, op->proc, fh, name, end);
	}
	if (op->proc == NFS4_OP_LOCK)
		wait_end(v, p, K_DENIED, pair, NFS4_OP_LOCK, fh, 0, end);
	if (op->proc == NFS4_OP_DELEGRETURN) {
		struct v4count *r = &p->k[K_RECALL];

		wait_end(v, p, K_RECALL, pair, NFS4_OP_CB_RECALL, fh, 0,
			 op->first_call_ns);
		/* the recall came on the back channel, where the server's
		   names are not known: the return names the file */
		if (r->n && !r->path[0] && (op->have & AN_HAVE_PATH) &&
		    fh_eq(&r->fh, fh))
			snprintf(r->path, sizeof(r->path), "%s", op->path);
	}
	if (op->proc == NFS4_OP_CREATE_SESSION ||
	    op->proc == NFS4_OP_SETCLIENTID_CONFIRM) {
		static const int lost[] = { K_BADSESS, K_STALE };
		size_t i;

		for (i = 0; i < sizeof(lost) / sizeof(lost[0]); i++) {
			struct v4count *c = &p->k[lost[i]];

			if (c->pending_ns == 0)
				continue;
			count_wait(c, end - c->pending_ns);
			c->pending_ns = 0;
		}
	}
}

void an_nfs4_add(struct an_find *f, const struct an_op *op)
{
	bool cb = op->prog == PROG_NFS4_CB;
	const struct nfs_fh none = { .len = 0 };
	const struct nfs_fh *fh = (op->have & AN_HAVE_FH) ? &op->fh : &none;
	struct an_v4find *v;
	struct v4pair *p;
	int32_t pi;
	int k;

	if (f->v4 == NULL && (f->v4 = calloc(1, sizeof(*f->v4))) == NULL) {
		f->storms_lost++;
		return;
	}
	v = f->v4;
	/* the back channel's caller is the server */
	pi = cb ? pair_slot(v, &op->server, &op->client) :
		  pair_slot(v, &op->client, &op->server);
	if (pi < 0)
		return;
	p = &v->pair[pi];
	p->ops++;
	if (!cb && (op->flags & AN_OP_SLOT_REPLAY)) {
		count_event(&p->k[K_REPLAY], op, op->first_call_ns);
		p->k[K_REPLAY].same_conn += !(op->flags & AN_OP_PORT_CHANGED);
	}
	k = trouble_of(op);
	if (k == K_RECALL) {
		count_event(&p->k[k], op, op->first_call_ns);
		if (!(op->have & AN_HAVE_FH))
			p->k[k].no_fh++;	/* no return can be matched */
		else
			wait_start(v, k, pi, NFS4_OP_CB_RECALL, fh, 0,
				   op->first_call_ns);
		return;
	}
	if (k >= 0) {
		count_event(&p->k[k], op, op->first_call_ns);
		if ((k == K_DELAY || k == K_GRACE || k == K_DENIED) &&
		    file_known(op))
			wait_start(v, k, pi, wait_proc(op->proc), fh,
				   open_name_hash(op), op->first_call_ns);
		else if ((k == K_BADSESS || k == K_STALE) &&
			 p->k[k].pending_ns == 0)
			p->k[k].pending_ns = op->first_call_ns;
		return;
	}
	if (!cb && (op->flags & AN_OP_ANSWERED) && !an_op_is_error(op))
		success(v, p, pi, op);
}

/* ---------------------------------------------------------- findings -- */

static size_t procs_str(const struct v4count *k, char *b, size_t n)
{
	size_t o = 0;
	uint32_t i;

	for (i = 0; i < V4_PROCS && k->procs[i].n && o < n; i++)
		o += (size_t)snprintf(b + o, n - o, "%s%s %" PRIu64,
				      i ? ", " : "",
				      nfs4_proc_name(k->procs[i].proc, false),
				      k->procs[i].n);
	if (k->procs_other && o < n)
		o += (size_t)snprintf(b + o, n - o, ", other %" PRIu64,
				      k->procs_other);
	return o < n ? o : n;
}

static uint32_t kind_min(const struct an_find_config *c, int k)
{
	switch (k) {
	case K_DELAY: return c->nfs4_delay_min;
	case K_REPLAY: return c->retrans_min;
	case K_RECALL: return c->recall_min;
	case K_DENIED: return c->lock_denied_min;
	default: return c->nfs4_state_min;
	}
}

/* What the kind's events are called in its evidence: a word before the
 * noun, the noun (one, many), words after it. */
static const char *const what[K_N][4] = {
	[K_DELAY] = { "NFS4ERR_DELAY", "reply", "replies", "" },
	[K_GRACE] = { "NFS4ERR_GRACE", "reply", "replies", "" },
	[K_BADSESS] = { "NFS4ERR_BADSESSION/DEADSESSION", "reply", "replies",
			"" },
	[K_MISORD] = { "NFS4ERR_SEQ_MISORDERED", "reply", "replies", "" },
	[K_STALE] = { "NFS4ERR_STALE_CLIENTID", "reply", "replies", "" },
	[K_REPLAY] = { "", "call", "calls", " resent on its session slot "
		       "under a new XID" },
	[K_RECALL] = { "", "delegation", "delegations", " recalled "
		       "(CB_RECALL)" },
	[K_DENIED] = { "LOCK/LOCKT", "reply", "replies", " NFS4ERR_DENIED" },
};

/* What a measured wait is, in the evidence. */
static const char *const wait_what[K_N] = {
	[K_DELAY] = "waited until the op succeeded",
	[K_GRACE] = "waited out the grace period",
	[K_BADSESS] = "took to make a new session",
	[K_STALE] = "took to establish the client again",
	[K_RECALL] = "took to return the delegation (DELEGRETURN)",
	[K_DENIED] = "waited until the LOCK was granted",
};

static void emit_kind(struct an_find *f, const struct v4pair *p, int k)
{
	const struct v4count *c = &p->k[k];
	struct an_finding *o;
	char a[64], b[64], pr[160];
	size_t n, e;

	if (c->n == 0 || c->n < kind_min(&f->cfg, k) ||
	    (o = an_find_emit(f, kind_of[k])) == NULL)
		return;
	e = sizeof(o->evidence);
	o->have_client = o->have_server = true;
	o->client = p->client;
	o->server = p->server;
	o->start_ns = c->first_ns;
	o->end_ns = c->last_ns;
	o->count = c->n;
	o->cost_ns = (double)c->wait_ns;
	o->cost_ops = c->n;
	if (c->fh.len && (k == K_RECALL || k == K_DENIED || k == K_DELAY)) {
		o->have_fh = true;
		o->fh = c->fh;
		memcpy(o->path, c->path, sizeof(o->path));
	}
	procs_str(c, pr, sizeof(pr));
	n = (size_t)snprintf(o->evidence, e, "%s -> %s: %" PRIu64 " %s%s%s%s "
			     "over %.3f s (%s)", an_find_astr(&p->client, a),
			     an_find_astr(&p->server, b), c->n, what[k][0],
			     what[k][0][0] ? " " : "", what[k][c->n == 1 ? 1 : 2],
			     what[k][3],
			     (double)(c->last_ns - c->first_ns) / 1e9,
			     k == K_RECALL ? "back channel" : pr);
	if (n < e && o->have_fh)
		n += (size_t)snprintf(o->evidence + n, e - n, "; %" PRIu64
				      " of them on %s", c->fh_n, c->path[0] ?
				      c->path : "one file");
	if (n < e && k == K_REPLAY)
		n += (size_t)snprintf(o->evidence + n, e - n, "; %" PRIu64
				      " after a new connection, %" PRIu64
				      " on the same connection (the client's "
				      "timer)", c->n - c->same_conn,
				      c->same_conn);
	if (n < e && c->waits && wait_what[k])
		n += (size_t)snprintf(o->evidence + n, e - n, "; the client %s "
				      "%.3f s in all (waits %" PRIu64 ", "
				      "longest %.3f s)", wait_what[k],
				      (double)c->wait_ns / 1e9, c->waits,
				      (double)c->wait_max_ns / 1e9);
	if (n < e && k == K_RECALL && c->waits + c->no_fh < c->n)
		n += (size_t)snprintf(o->evidence + n, e - n, "; %" PRIu64
				      " not returned in the capture",
				      c->n - c->waits - c->no_fh);
	if (n < e && k == K_RECALL && c->no_fh)
		snprintf(o->evidence + n, e - n, "; %" PRIu64 " whose file "
			 "handle the capture cut (snaplen): their return not "
			 "matched", c->no_fh);
}

void an_nfs4_finish(struct an_find *f)
{
	uint32_t i;
	int k;

	if (f->v4 == NULL)
		return;
	for (i = 0; i < V4_PAIRS; i++) {
		const struct v4pair *p = &f->v4->pair[i];

		if (!p->used)
			continue;
		for (k = 0; k < K_N; k++)
			emit_kind(f, p, k);
	}
}

void an_nfs4_free(struct an_find *f)
{
	free(f->v4);
	f->v4 = NULL;
}
