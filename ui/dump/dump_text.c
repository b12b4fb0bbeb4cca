/* dump_text.c - `nfscope dump` text lines, in the manner of tcpdump -vv. */
#include "ui/esc.h"
#include "ui/dump/dump.h"
#include "ui/dump/dump_nfs4.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static void t_hex(FILE *f, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%02x", p[i]);
}

/* Names are printed quoted, escaped (esc.h; a quote as \x22 too). */
static void t_str(FILE *f, const char *s, uint32_t n)
{
	putc('"', f);
	ui_esc_put(f, s, n, "\"");
	putc('"', f);
}

static void t_fh(FILE *f, const char *label, const struct nfs_fh *fh)
{
	fprintf(f, " %s %08x", label, an_fh_hash(fh));
}

static void t_nfs_call(FILE *f, const struct nfs_call *a)
{
	uint32_t h = a->have;

	if (h & NFSC_FH)
		t_fh(f, "fh", &a->fh);
	if (h & NFSC_NAME) {
		putc(' ', f);
		t_str(f, a->name.s, a->name.len);
	}
	if (h & NFSC_FH2)
		t_fh(f, "to", &a->fh2);
	if (h & NFSC_NAME2) {
		putc(' ', f);
		t_str(f, a->name2.s, a->name2.len);
	}
	if (h & NFSC_COUNT)
		fprintf(f, " %" PRIu32 " bytes", a->count);
	if (h & NFSC_OFFSET)
		fprintf(f, " @ %" PRIu64, a->offset);
	if (h & NFSC_STABLE) {
		const char *n = nfs_stable_name(a->stable);

		if (n)
			fprintf(f, " %s", n);
		else
			fprintf(f, " stable %" PRIu32, a->stable);
	}
	if (h & NFSC_ACCESS)
		fprintf(f, " access 0x%02" PRIx32, a->access);
	if (h & NFSC_CREATEMODE)
		fprintf(f, " mode %s", a->createmode == 0 ? "UNCHECKED" :
			a->createmode == 1 ? "GUARDED" : "EXCLUSIVE");
	if (h & NFSC_SATTR) {
		if (a->sattr.have & SATTR_MODE)
			fprintf(f, " mode %04" PRIo32, a->sattr.mode);
		if (a->sattr.have & SATTR_SIZE)
			fprintf(f, " size %" PRIu64, a->sattr.size);
	}
	if (h & NFSC_COOKIE)
		fprintf(f, " cookie %" PRIu64, a->cookie);
	if (h & NFSC_DIRCOUNT)
		fprintf(f, " dircount %" PRIu32, a->dircount);
	if (h & NFSC_MAXCOUNT)
		fprintf(f, " maxcount %" PRIu32, a->maxcount);
	if (h & NFSC_PATH) {
		fputs(" -> ", f);
		t_str(f, a->path.s, a->path.len);
	}
}

static void t_nfs_reply(FILE *f, uint32_t vers, const struct nfs_reply *r)
{
	uint32_t h = r->have;

	if (h & NFSR_STATUS) {
		const char *n = nfs_stat_name(vers, r->status);

		if (r->status == 0)
			fputs(" ok", f);
		else if (n)
			fprintf(f, " %s", n);
		else
			fprintf(f, " status %" PRIu32, r->status);
	}
	if (h & NFSR_FH)
		t_fh(f, "fh", &r->fh);
	if (h & NFSR_COUNT)
		fprintf(f, " %" PRIu32 " bytes", r->count);
	if ((h & NFSR_EOF) && r->eof)
		fputs(" EOF", f);
	if (h & NFSR_COMMITTED) {
		const char *n = nfs_stable_name(r->committed);

		if (n)
			fprintf(f, " %s", n);
		else
			fprintf(f, " committed %" PRIu32, r->committed);
	}
	if (h & NFSR_VERF) {
		fputs(" verf ", f);
		t_hex(f, r->verf, NFS_VERF_SIZE);
	}
	if (h & NFSR_ACCESS)
		fprintf(f, " access 0x%02" PRIx32, r->access);
	if (h & NFSR_PATH) {
		putc(' ', f);
		t_str(f, r->path.s, r->path.len);
	}
	if (h & NFSR_ATTR)
		fprintf(f, " size %" PRIu64 " fileid %" PRIu64, r->attr.size,
			r->attr.fileid);
	if (h & NFSR_ENTRIES)
		fprintf(f, " %" PRIu32 " entries%s", r->entries_total,
			r->entries_eof ? " EOF" : "");
	if (h & NFSR_FSINFO) {
		const struct nfs_fsinfo *s = &r->fsinfo;

		fprintf(f, " rtmax %" PRIu32 " rtpref %" PRIu32 " rtmult %" PRIu32
			" wtmax %" PRIu32 " wtpref %" PRIu32 " wtmult %" PRIu32
			" dtpref %" PRIu32 " maxfilesize %" PRIu64, s->rtmax,
			s->rtpref, s->rtmult, s->wtmax, s->wtpref, s->wtmult,
			s->dtpref, s->maxfilesize);
	}
	if (h & NFSR_FSSTAT)
		fprintf(f, " tbytes %" PRIu64 " fbytes %" PRIu64 " abytes %" PRIu64,
			r->fsstat.tbytes, r->fsstat.fbytes, r->fsstat.abytes);
	if (h & NFSR_PATHCONF)
		fprintf(f, " linkmax %" PRIu32 " name_max %" PRIu32,
			r->pathconf.linkmax, r->pathconf.name_max);
	if (h & NFSR_STATFS)
		fprintf(f, " tsize %" PRIu32 " bsize %" PRIu32 " blocks %" PRIu32
			" bfree %" PRIu32 " bavail %" PRIu32, r->statfs.tsize,
			r->statfs.bsize, r->statfs.blocks, r->statfs.bfree,
			r->statfs.bavail);
}

static void t_mnt(FILE *f, uint32_t vers, const struct mnt_msg *m)
{
	if (m->have & MNT_PATH) {
		putc(' ', f);
		t_str(f, m->path.s, m->path.len);
	}
	if (m->have & MNT_STATUS) {
		const char *n = mnt_stat_name(vers, m->status);

		if (m->status == 0)
			fputs(" ok", f);
		else if (n)
			fprintf(f, " %s", n);
		else
			fprintf(f, " status %" PRIu32, m->status);
	}
	if (m->have & MNT_FH)
		t_fh(f, "fh", &m->fh);
	if (m->have & MNT_FLAVORS) {
		fputs(" flavors", f);
		for (uint32_t i = 0; i < m->nflavors && i < MNT_FLAVORS_MAX; i++) {
			const char *n = rpc_flavor_name(m->flavors[i]);

			if (n)
				fprintf(f, " %s", n);
			else
				fprintf(f, " %" PRIu32, m->flavors[i]);
		}
	}
	if (m->have & (MNT_EXPORTS | MNT_MOUNTS))
		fprintf(f, " %" PRIu32 " entries", m->list_total);
}

static void t_pmap(FILE *f, const struct pmap_msg *m)
{
	if (m->have & PMAP_MAPPING) {
		const char *n = dec_prog_name(m->map.prog);

		fprintf(f, " %s(%" PRIu32 ") v%" PRIu32 " %s port %" PRIu32,
			n ? n : "prog", m->map.prog, m->map.vers,
			m->map.prot == 6 ? "tcp" : m->map.prot == 17 ? "udp" : "?",
			m->map.port);
	}
	if (m->have & PMAP_RPCB) {
		const char *n = dec_prog_name(m->rpcb.prog);

		fprintf(f, " %s(%" PRIu32 ") v%" PRIu32 " netid ",
			n ? n : "prog", m->rpcb.prog, m->rpcb.vers);
		t_str(f, m->rpcb.netid, (uint32_t)strlen(m->rpcb.netid));
		fputs(" addr ", f);
		t_str(f, m->rpcb.addr, (uint32_t)strlen(m->rpcb.addr));
		fputs(" owner ", f);
		t_str(f, m->rpcb.owner, (uint32_t)strlen(m->rpcb.owner));
	}
	if (m->have & PMAP_CALLARGS)
		fprintf(f, " call %" PRIu32 " v%" PRIu32 " proc %" PRIu32
			" args %" PRIu32 " bytes", m->call_prog, m->call_vers,
			m->call_proc, m->args_len);
	if (m->have & PMAP_PORT)
		fprintf(f, " port %" PRIu32, m->port);
	if (m->have & PMAP_BOOL)
		fprintf(f, " %s", m->result ? "true" : "false");
	if (m->have & PMAP_UADDR) {
		fputs(" uaddr ", f);
		t_str(f, m->uaddr, (uint32_t)strlen(m->uaddr));
	}
	if (m->have & PMAP_LIST)
		fprintf(f, " %" PRIu32 " entries", m->list_total);
	if (m->have & PMAP_TIME)
		fprintf(f, " time %" PRIu32, m->time);
}

static void t_nlm(FILE *f, uint32_t vers, const struct nlm_msg *m)
{
	if (m->have & NLM_LOCKV) {
		const struct nlm_lock *l = &m->lock;

		fprintf(f, " %s", (m->have & NLM_EXCLUSIVE) && m->exclusive ?
			"exclusive" : "");
		t_fh(f, "fh", &l->fh);
		fprintf(f, " svid %" PRId32 " %" PRIu64 "+%" PRIu64 " caller ",
			l->svid, l->offset, l->length);
		t_str(f, l->caller_name.s, l->caller_name.len);
	}
	if ((m->have & NLM_BLOCK) && m->block)
		fputs(" block", f);
	if ((m->have & NLM_RECLAIM) && m->reclaim)
		fputs(" reclaim", f);
	if (m->have & NLM_STATUS) {
		const char *n = nlm_stat_name(vers, m->status);

		if (n)
			fprintf(f, " %s", n);
		else
			fprintf(f, " status %" PRIu32, m->status);
	}
	if (m->have & NLM_HOLDER)
		fprintf(f, " holder svid %" PRId32 " %" PRIu64 "+%" PRIu64,
			m->holder_svid, m->holder_offset, m->holder_length);
}

static void t_rpc_reply(FILE *f, const struct rpc_hdr *h)
{
	if (h->reply_stat == RPC_MSG_DENIED) {
		if (h->reject_stat == RPC_MISMATCH)
			fprintf(f, " DENIED RPC_MISMATCH %" PRIu32 "-%" PRIu32,
				h->mismatch_low, h->mismatch_high);
		else {
			const char *n = rpc_auth_stat_name(h->auth_stat);

			fprintf(f, " DENIED AUTH_ERROR %s", n ? n : "?");
		}
		return;
	}
	if (h->accept_stat != RPC_SUCCESS) {
		const char *n = rpc_accept_name(h->accept_stat);

		fprintf(f, " %s", n ? n : "accept_stat?");
		if (h->accept_stat == RPC_PROG_MISMATCH)
			fprintf(f, " %" PRIu32 "-%" PRIu32, h->mismatch_low,
				h->mismatch_high);
	}
}

/* tshark's marks, shortly: which call a reply answers, how long after
 * it, and what a message repeats. */
static void t_mark(FILE *f, const struct an_mark *mk)
{
	if (mk->what & AN_MARK_RETRANS)
		fprintf(f, " [retransmission of #%" PRIu64 "]", mk->first_frame);
	if (mk->what & AN_MARK_REPLY)
		fprintf(f, " [reply to #%" PRIu64 " in %.3f ms]",
			mk->first_frame, (double)mk->lat_ns / 1e6);
	if (mk->what & AN_MARK_DUP)
		fprintf(f, " [duplicate of reply #%" PRIu64 "]", mk->dup_of);
}

void dump_text_msg(FILE *f, const struct cap_msg *m, const struct dec_msg *d,
		   enum ui_time_mode tm)
{
	dump_text_marked(f, m, d, tm, NULL);
}

void dump_text_marked(FILE *f, const struct cap_msg *m,
		      const struct dec_msg *d, enum ui_time_mode tm,
		      const struct an_mark *mk)
{
	char sa[64], da[64], ts[48];
	const struct rpc_hdr *h = &d->rpc;
	bool call = h->msg_type == RPC_CALL;
	const char *pn = dec_prog_name(d->prog);
	const char *qn = dec_proc_name(d->prog, d->vers, d->proc);
	bool v6 = m->src.family == 6;

	fprintf(f, "%s %s%s%s.%u > %s%s%s.%u: %s %s xid 0x%08" PRIx32,
		ui_time_str(m->ts_ns, tm, 6, ts, sizeof(ts)),
		v6 ? "[" : "", cap_addr_str(&m->src, sa, sizeof(sa)), v6 ? "]" : "",
		m->sport,
		v6 ? "[" : "", cap_addr_str(&m->dst, da, sizeof(da)), v6 ? "]" : "",
		m->dport, m->transport == CAP_TCP ? "tcp" : "udp",
		call ? "call" : "reply", h->xid);
	if (call ? dump_hdr_limit(d) >= 24 : d->call_seen || d->by_shape) {
		if (pn)
			fprintf(f, " %s", pn);
		else
			fprintf(f, " prog %" PRIu32, d->prog);
		fprintf(f, " v%" PRIu32, d->vers);
		if (qn)
			fprintf(f, " %s", qn);
		else
			fprintf(f, " proc %" PRIu32, d->proc);
		if (d->by_shape)
			fputs(" (call not seen: by shape)", f);
	}
	if (call && dump_hdr_limit(d) < 32)
		;	/* credentials not captured */
	else if (call && (h->cred.have & RPC_CRED_SYS))
		fprintf(f, " uid %" PRIu32 " gid %" PRIu32, h->cred.uid, h->cred.gid);
	else if (call && h->cred.flavor != RPC_AUTH_NONE) {
		const char *n = rpc_flavor_name(h->cred.flavor);

		fprintf(f, " %s", n ? n : "auth?");
	}
	if (!call && dump_hdr_limit(d) == UINT32_MAX)
		t_rpc_reply(f, h);
	switch (d->kind) {
	case DEC_BODY_NFS_CALL:
		t_nfs_call(f, &d->u.nfs_call);
		break;
	case DEC_BODY_NFS_REPLY:
		t_nfs_reply(f, d->vers, &d->u.nfs_reply);
		break;
	case DEC_BODY_MNT:
		t_mnt(f, d->vers, &d->u.mnt);
		break;
	case DEC_BODY_PMAP:
		t_pmap(f, &d->u.pmap);
		break;
	case DEC_BODY_NLM:
		t_nlm(f, d->vers, &d->u.nlm);
		break;
	case DEC_BODY_NFS4:
		dump_nfs4_head(f, &d->u.nfs4, call);
		break;
	case DEC_BODY_NONE:
		break;
	}
	if (d->status == DEC_TRUNCATED)
		fputs(" [|truncated]", f);
	else if (d->status == DEC_MALFORMED)
		fprintf(f, " [malformed at %" PRIu32 "]", d->err_off);
	if (m->flags & CAP_MSG_TRUNCATED)
		fprintf(f, " (%" PRIu32 "/%" PRIu32 " captured)", m->caplen, m->len);
	if (m->flags & CAP_MSG_AFTER_GAP)
		fputs(" (after gap)", f);
	if (m->flags & CAP_MSG_HOLE)
		fputs(" (hole)", f);
	if (mk)
		t_mark(f, mk);
	putc('\n', f);
	if (d->kind == DEC_BODY_NFS4)
		dump_nfs4_ops(f, &d->u.nfs4);
}
