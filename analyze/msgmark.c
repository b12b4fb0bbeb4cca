/* msgmark.c - retransmission, reply and filter marks of dump's messages. */
#include "analyze/msgmark.h"

#include <stdlib.h>
#include <string.h>

/* The operation an identity's slot holds (gen 0: none). */
struct mk_ent {
	uint32_t gen;
	uint32_t vers, proc;
	uint32_t fh_hash;
	bool have_fh;
	bool pass;		/* its first call passed the filter */
	uint32_t ntx;		/* transmissions seen */
	uint64_t first_frame;
	uint64_t reply_frame;	/* 0: unanswered */
	int64_t first_ns;
};

struct an_marks {
	uint32_t max;
	const struct an_filter *f;	/* NULL: none */
	struct mk_ent *ent;		/* max */
};

struct an_marks *an_marks_new(uint32_t xid_max, const struct an_filter *f)
{
	struct an_marks *k = calloc(1, sizeof(*k));

	if (k == NULL)
		return NULL;
	k->max = xid_max ? xid_max : DEC_XID_MAX_DEFAULT;
	k->f = f && !an_filter_empty(f) ? f : NULL;
	k->ent = calloc(k->max, sizeof(*k->ent));
	if (k->ent == NULL) {
		free(k);
		return NULL;
	}
	return k;
}

void an_marks_free(struct an_marks *k)
{
	if (k == NULL)
		return;
	free(k->ent);
	free(k);
}

/* The handle a call names (an NFS call's object, an NLM lock's), NULL:
 * none decoded. */
static const struct nfs_fh *call_fh(const struct dec_msg *d)
{
	if (d->kind == DEC_BODY_NFS_CALL && (d->u.nfs_call.have & NFSC_FH))
		return &d->u.nfs_call.fh;
	if (d->kind == DEC_BODY_NLM && (d->u.nlm.have & NLM_LOCKV))
		return &d->u.nlm.lock.fh;
	return NULL;
}

/* The filter's handle terms: a call by its handles, a reply by its
 * call's (or, by shape, the handle it carries). */
static bool fh_pass(const struct an_filter *f, const struct dec_msg *d,
		    const struct mk_ent *e)
{
	const struct nfs_fh *fh = call_fh(d);

	if (f->n_fh == 0)
		return true;
	if (d->rpc.msg_type == RPC_REPLY) {
		if (e)
			return e->pass;
		return d->kind == DEC_BODY_NFS_REPLY &&
		       (d->u.nfs_reply.have & NFSR_FH) &&
		       an_filter_fh(f, &d->u.nfs_reply.fh);
	}
	if (fh && an_filter_fh(f, fh))
		return true;
	return d->kind == DEC_BODY_NFS_CALL &&
	       (d->u.nfs_call.have & NFSC_FH2) &&
	       an_filter_fh(f, &d->u.nfs_call.fh2);
}

/* Client, server and procedure terms of f for (m, d); e: a reply's call. */
static bool msg_pass(const struct an_filter *f, const struct cap_msg *m,
		     const struct dec_msg *d, const struct mk_ent *e)
{
	bool call = d->rpc.msg_type == RPC_CALL;
	bool known = call || d->call_seen || d->by_shape;

	if (f == NULL)
		return true;
	if (!an_filter_addr(f, AN_FK_CLIENT, call ? &m->src : &m->dst) ||
	    !an_filter_addr(f, AN_FK_SERVER, call ? &m->dst : &m->src))
		return false;
	if (f->n_op && (!known || !an_filter_proc(f, d->prog, d->vers,
						   d->proc)))
		return false;
	return fh_pass(f, d, e);
}

static struct mk_ent *held(struct an_marks *k, const struct dec_msg *d)
{
	struct mk_ent *e;

	if (d->call_id.gen == 0 || d->call_id.slot >= k->max)
		return NULL;
	e = &k->ent[d->call_id.slot];
	return e->gen == d->call_id.gen ? e : NULL;
}

static void on_call(struct an_marks *k, const struct cap_msg *m,
		    const struct dec_msg *d, struct an_mark *out)
{
	struct mk_ent *e = held(k, d);
	const struct nfs_fh *fh = call_fh(d);
	uint32_t h = fh ? an_fh_hash(fh) : 0;

	if (e && e->vers == d->vers && e->proc == d->proc &&
	    !(e->have_fh && fh && e->fh_hash != h)) {
		out->what = AN_MARK_RETRANS;
		out->nth = e->ntx++;
		out->first_frame = e->first_frame;
		out->pass = e->pass;
		return;
	}
	out->pass = msg_pass(k->f, m, d, NULL);
	if (d->call_id.gen == 0 || d->call_id.slot >= k->max)
		return;
	e = &k->ent[d->call_id.slot];
	*e = (struct mk_ent){ .gen = d->call_id.gen, .vers = d->vers,
		.proc = d->proc, .fh_hash = h, .have_fh = fh != NULL,
		.pass = out->pass, .ntx = 1, .first_frame = m->frame,
		.first_ns = m->ts_ns };
}

void an_marks_msg(struct an_marks *k, const struct cap_msg *m,
		  const struct dec_msg *d, struct an_mark *out)
{
	struct mk_ent *e;

	memset(out, 0, sizeof(*out));
	if (d->rpc.msg_type == RPC_CALL) {
		on_call(k, m, d, out);
		return;
	}
	e = d->call_seen ? held(k, d) : NULL;
	out->pass = msg_pass(k->f, m, d, e);
	if (e == NULL)
		return;
	out->what = AN_MARK_REPLY;
	out->first_frame = e->first_frame;
	out->lat_ns = m->ts_ns - e->first_ns;
	if (e->reply_frame) {
		out->what |= AN_MARK_DUP;
		out->dup_of = e->reply_frame;
	} else {
		e->reply_frame = m->frame;
	}
}
