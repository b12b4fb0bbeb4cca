/* dump_json.c - `nfscope dump --json`: every decoded field (doc/dump-json.md). */
#include "ui/dump/dump.h"
#include "base/units.h"
#include "ui/dump/dump_nfs4.h"
#include "ui/json.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static void j_time(struct jw *w, const char *key, const struct nfs_time *t)
{
	jw_time(w, key, t->sec, t->nsec);
}

static void j_fh(struct jw *w, const char *key, const struct nfs_fh *fh)
{
	jw_hex(w, key, fh->data, fh->len <= NFS_FHSIZE_MAX ? fh->len : NFS_FHSIZE_MAX);
}

static void j_fattr(struct jw *w, const char *key, uint32_t vers,
		    const struct nfs_fattr *a)
{
	jw_obj(w, key);
	jw_u64(w, "type", a->type);
	jw_u64(w, "mode", a->mode);
	jw_u64(w, "nlink", a->nlink);
	jw_u64(w, "uid", a->uid);
	jw_u64(w, "gid", a->gid);
	jw_u64(w, "size", a->size);
	jw_u64(w, "used", a->used);
	jw_u64(w, "rdev_major", a->rdev_major);
	jw_u64(w, "rdev_minor", a->rdev_minor);
	jw_u64(w, "fsid", a->fsid);
	jw_u64(w, "fileid", a->fileid);
	j_time(w, "atime", &a->atime);
	j_time(w, "mtime", &a->mtime);
	j_time(w, "ctime", &a->ctime);
	if (vers == 2) {
		jw_u64(w, "blocksize", a->blocksize);
		jw_u64(w, "blocks", a->blocks);
	}
	jw_end_obj(w);
}

static void j_wcc(struct jw *w, const char *key, uint32_t vers,
		  const struct nfs_wcc *c)
{
	jw_obj(w, key);
	if (c->have_before) {
		jw_obj(w, "before");
		jw_u64(w, "size", c->before.size);
		j_time(w, "mtime", &c->before.mtime);
		j_time(w, "ctime", &c->before.ctime);
		jw_end_obj(w);
	}
	if (c->have_after)
		j_fattr(w, "after", vers, &c->after);
	jw_end_obj(w);
}

static void j_sattr(struct jw *w, const struct nfs_sattr *s)
{
	jw_obj(w, "sattr");
	if (s->have & SATTR_MODE)
		jw_u64(w, "mode", s->mode);
	if (s->have & SATTR_UID)
		jw_u64(w, "uid", s->uid);
	if (s->have & SATTR_GID)
		jw_u64(w, "gid", s->gid);
	if (s->have & SATTR_SIZE)
		jw_u64(w, "size", s->size);
	if (s->have & SATTR_ATIME_SERVER)
		jw_str(w, "atime", "server");
	else if (s->have & SATTR_ATIME)
		j_time(w, "atime", &s->atime);
	if (s->have & SATTR_MTIME_SERVER)
		jw_str(w, "mtime", "server");
	else if (s->have & SATTR_MTIME)
		j_time(w, "mtime", &s->mtime);
	jw_end_obj(w);
}

static void j_nfs_call(struct jw *w, uint32_t vers, const struct nfs_call *a)
{
	uint32_t h = a->have;

	jw_obj(w, "args");
	if (h & NFSC_FH)
		j_fh(w, "fh", &a->fh);
	if (h & NFSC_NAME)
		jw_strn(w, "name", a->name.s, a->name.len);
	if (h & NFSC_FH2)
		j_fh(w, "fh2", &a->fh2);
	if (h & NFSC_NAME2)
		jw_strn(w, "name2", a->name2.s, a->name2.len);
	if (h & NFSC_OFFSET)
		jw_u64(w, "offset", a->offset);
	if (h & NFSC_COUNT)
		jw_u64(w, "count", a->count);
	if (h & NFSC_STABLE)
		jw_u64(w, "stable", a->stable);
	if (h & NFSC_DATA_LEN)
		jw_u64(w, "data_len", a->data_len);
	if (h & NFSC_SATTR)
		j_sattr(w, &a->sattr);
	if (h & NFSC_GUARD)
		j_time(w, "guard", &a->guard);
	if (h & NFSC_ACCESS)
		jw_u64(w, "access", a->access);
	if (h & NFSC_CREATEMODE)
		jw_u64(w, "createmode", a->createmode);
	if (h & NFSC_CREATEVERF)
		jw_hex(w, "createverf", a->createverf, NFS_VERF_SIZE);
	if (h & NFSC_COOKIE)
		jw_u64(w, "cookie", a->cookie);
	if (h & NFSC_COOKIEVERF)
		jw_hex(w, "cookieverf", a->cookieverf, NFS_VERF_SIZE);
	if (h & NFSC_DIRCOUNT)
		jw_u64(w, "dircount", a->dircount);
	if (h & NFSC_MAXCOUNT)
		jw_u64(w, "maxcount", a->maxcount);
	if (h & NFSC_PATH)
		jw_strn(w, "path", a->path.s, a->path.len);
	if (h & NFSC_FTYPE)
		jw_u64(w, "ftype", a->ftype);
	if (h & NFSC_SPEC) {
		jw_u64(w, "spec_major", a->spec_major);
		jw_u64(w, "spec_minor", a->spec_minor);
	}
	if (h & NFSC_BEGINOFFSET)
		jw_u64(w, "beginoffset", a->beginoffset);
	if (h & NFSC_TOTALCOUNT)
		jw_u64(w, "totalcount", a->totalcount);
	jw_end_obj(w);
}

static void j_nfs_reply(struct jw *w, uint32_t vers, const struct nfs_reply *r,
			bool complete)
{
	uint32_t h = r->have;

	jw_obj(w, "res");
	if (h & NFSR_STATUS) {
		const char *n = nfs_stat_name(vers, r->status);

		jw_u64(w, "status", r->status);
		if (n)
			jw_str(w, "status_name", n);
	}
	if (h & NFSR_ATTR)
		j_fattr(w, "attr", vers, &r->attr);
	if (h & NFSR_WCC)
		j_wcc(w, "wcc", vers, &r->wcc);
	if (h & NFSR_DIR_ATTR)
		j_fattr(w, "dir_attr", vers, &r->dir_attr);
	if (h & NFSR_DIR_WCC)
		j_wcc(w, "dir_wcc", vers, &r->dir_wcc);
	if (h & NFSR_DIR_WCC2)
		j_wcc(w, "dir_wcc2", vers, &r->dir_wcc2);
	if (h & NFSR_FH)
		j_fh(w, "fh", &r->fh);
	if (h & NFSR_COUNT)
		jw_u64(w, "count", r->count);
	if (h & NFSR_EOF)
		jw_bool(w, "eof", r->eof);
	if (h & NFSR_COMMITTED)
		jw_u64(w, "committed", r->committed);
	if (h & NFSR_VERF)
		jw_hex(w, "verf", r->verf, NFS_VERF_SIZE);
	if (h & NFSR_DATA_LEN)
		jw_u64(w, "data_len", r->data_len);
	if (h & NFSR_ACCESS)
		jw_u64(w, "access", r->access);
	if (h & NFSR_PATH)
		jw_strn(w, "path", r->path.s, r->path.len);
	if (h & NFSR_COOKIEVERF)
		jw_hex(w, "cookieverf", r->cookieverf, NFS_VERF_SIZE);
	if (h & NFSR_ENTRIES) {
		uint32_t n = r->nentries <= NFS_ENTRIES_MAX ? r->nentries : NFS_ENTRIES_MAX;

		jw_arr(w, "entries");
		for (uint32_t i = 0; i < n; i++) {
			const struct nfs_entry *e = &r->entries[i];

			jw_obj(w, NULL);
			jw_u64(w, "fileid", e->fileid);
			jw_u64(w, "cookie", e->cookie);
			jw_strn(w, "name", e->name.s, e->name.len);
			if (e->have_fh)
				j_fh(w, "fh", &e->fh);
			if (e->have_attr)
				j_fattr(w, "attr", vers, &e->attr);
			jw_end_obj(w);
		}
		jw_end_arr(w);
		if (complete) {
			/* a list cut short says nothing of its length or end */
			jw_u64(w, "entries_total", r->entries_total);
			jw_bool(w, "entries_eof", r->entries_eof);
		}
	}
	if (h & NFSR_FSSTAT) {
		const struct nfs_fsstat *s = &r->fsstat;

		jw_obj(w, "fsstat");
		jw_u64(w, "tbytes", s->tbytes);
		jw_u64(w, "fbytes", s->fbytes);
		jw_u64(w, "abytes", s->abytes);
		jw_u64(w, "tfiles", s->tfiles);
		jw_u64(w, "ffiles", s->ffiles);
		jw_u64(w, "afiles", s->afiles);
		jw_u64(w, "invarsec", s->invarsec);
		jw_end_obj(w);
	}
	if (h & NFSR_FSINFO) {
		const struct nfs_fsinfo *s = &r->fsinfo;

		jw_obj(w, "fsinfo");
		jw_u64(w, "rtmax", s->rtmax);
		jw_u64(w, "rtpref", s->rtpref);
		jw_u64(w, "rtmult", s->rtmult);
		jw_u64(w, "wtmax", s->wtmax);
		jw_u64(w, "wtpref", s->wtpref);
		jw_u64(w, "wtmult", s->wtmult);
		jw_u64(w, "dtpref", s->dtpref);
		jw_u64(w, "maxfilesize", s->maxfilesize);
		j_time(w, "time_delta", &s->time_delta);
		jw_u64(w, "properties", s->properties);
		jw_end_obj(w);
	}
	if (h & NFSR_PATHCONF) {
		const struct nfs_pathconf *s = &r->pathconf;

		jw_obj(w, "pathconf");
		jw_u64(w, "linkmax", s->linkmax);
		jw_u64(w, "name_max", s->name_max);
		jw_bool(w, "no_trunc", s->no_trunc);
		jw_bool(w, "chown_restricted", s->chown_restricted);
		jw_bool(w, "case_insensitive", s->case_insensitive);
		jw_bool(w, "case_preserving", s->case_preserving);
		jw_end_obj(w);
	}
	if (h & NFSR_STATFS) {
		const struct nfs_statfs *s = &r->statfs;

		jw_obj(w, "statfs");
		jw_u64(w, "tsize", s->tsize);
		jw_u64(w, "bsize", s->bsize);
		jw_u64(w, "blocks", s->blocks);
		jw_u64(w, "bfree", s->bfree);
		jw_u64(w, "bavail", s->bavail);
		jw_end_obj(w);
	}
	jw_end_obj(w);
}

static void j_mnt(struct jw *w, bool call, uint32_t vers, uint32_t proc,
		  const struct mnt_msg *m, bool complete)
{
	uint32_t h = m->have;

	jw_obj(w, call ? "args" : "res");
	if (h & MNT_PATH)
		jw_strn(w, "path", m->path.s, m->path.len);
	if (h & MNT_STATUS) {
		const char *n = mnt_stat_name(vers, m->status);

		jw_u64(w, "status", m->status);
		if (n)
			jw_str(w, "status_name", n);
	}
	if (h & MNT_FH)
		j_fh(w, "fh", &m->fh);
	if (h & MNT_FLAVORS) {
		uint32_t n = m->nflavors <= MNT_FLAVORS_MAX ? m->nflavors : MNT_FLAVORS_MAX;

		jw_arr(w, "flavors");
		for (uint32_t i = 0; i < n; i++)
			jw_u64(w, NULL, m->flavors[i]);
		jw_end_arr(w);
	}
	if (h & MNT_EXPORTS) {
		uint32_t n = m->nlist <= MNT_LIST_MAX ? m->nlist : MNT_LIST_MAX;

		jw_arr(w, "exports");
		for (uint32_t i = 0; i < n; i++) {
			const struct mnt_export *e = &m->exports[i];
			uint32_t g = e->ngroups <= MNT_GROUPS_MAX ? e->ngroups : MNT_GROUPS_MAX;

			jw_obj(w, NULL);
			jw_strn(w, "dir", e->dir.s, e->dir.len);
			jw_arr(w, "groups");
			for (uint32_t k = 0; k < g; k++)
				jw_strn(w, NULL, e->groups[k].s, e->groups[k].len);
			jw_end_arr(w);
			jw_end_obj(w);
		}
		jw_end_arr(w);
		if (complete)
		jw_u64(w, "list_total", m->list_total);
	}
	if (h & MNT_MOUNTS) {
		uint32_t n = m->nlist <= MNT_LIST_MAX ? m->nlist : MNT_LIST_MAX;

		jw_arr(w, "mounts");
		for (uint32_t i = 0; i < n; i++) {
			jw_obj(w, NULL);
			jw_strn(w, "host", m->mounts[i].host.s, m->mounts[i].host.len);
			jw_strn(w, "dir", m->mounts[i].dir.s, m->mounts[i].dir.len);
			jw_end_obj(w);
		}
		jw_end_arr(w);
		if (complete)
		jw_u64(w, "list_total", m->list_total);
	}
	(void)proc;
	jw_end_obj(w);
}

static void j_map(struct jw *w, const char *key, const struct pmap_mapping *m)
{
	jw_obj(w, key);
	jw_u64(w, "prog", m->prog);
	jw_u64(w, "vers", m->vers);
	jw_u64(w, "prot", m->prot);
	jw_u64(w, "port", m->port);
	jw_end_obj(w);
}

static void j_rpcb(struct jw *w, const char *key, const struct rpcb_entry *r)
{
	jw_obj(w, key);
	jw_u64(w, "prog", r->prog);
	jw_u64(w, "vers", r->vers);
	jw_str(w, "netid", r->netid);
	jw_str(w, "addr", r->addr);
	jw_str(w, "owner", r->owner);
	jw_end_obj(w);
}

static void j_pmap(struct jw *w, bool call, const struct pmap_msg *m,
		   bool complete)
{
	uint32_t h = m->have;

	jw_obj(w, call ? "args" : "res");
	if (h & PMAP_MAPPING)
		j_map(w, "map", &m->map);
	if (h & PMAP_RPCB)
		j_rpcb(w, "rpcb", &m->rpcb);
	if (h & PMAP_CALLARGS) {
		jw_u64(w, "call_prog", m->call_prog);
		jw_u64(w, "call_vers", m->call_vers);
		jw_u64(w, "call_proc", m->call_proc);
		jw_u64(w, "args_len", m->args_len);
	}
	if (h & PMAP_PORT)
		jw_u64(w, "port", m->port);
	if (h & PMAP_BOOL)
		jw_bool(w, "result", m->result);
	if (h & PMAP_UADDR)
		jw_str(w, "uaddr", m->uaddr);
	if (h & PMAP_RESLEN)
		jw_u64(w, "res_len", m->res_len);
	if (h & PMAP_TIME)
		jw_u64(w, "time", m->time);
	if (h & PMAP_LIST) {
		uint32_t n = m->nlist;

		jw_arr(w, "maps");
		for (uint32_t i = 0; i < n && i < PMAP_LIST_MAX; i++)
			j_map(w, NULL, &m->maps[i]);
		jw_end_arr(w);
		if (complete)
		jw_u64(w, "list_total", m->list_total);
	}
	jw_end_obj(w);
}

static void j_pmap_v34(struct jw *w, bool call, const struct pmap_msg *m,
		       bool complete)
{
	uint32_t h = m->have;

	if (!(h & PMAP_LIST)) {
		j_pmap(w, call, m, complete);
		return;
	}
	jw_obj(w, call ? "args" : "res");
	jw_arr(w, "rpcbs");
	for (uint32_t i = 0; i < m->nlist && i < PMAP_LIST_MAX / 4; i++)
		j_rpcb(w, NULL, &m->rpcbs[i]);
	jw_end_arr(w);
	if (complete)
		jw_u64(w, "list_total", m->list_total);
	jw_end_obj(w);
}

static void j_netobj(struct jw *w, const char *key, const struct nlm_netobj *o)
{
	jw_hex(w, key, o->data, o->len <= NLM_NETOBJ_MAX ? o->len : NLM_NETOBJ_MAX);
}

static void j_nlm(struct jw *w, bool call, uint32_t vers, const struct nlm_msg *m)
{
	uint32_t h = m->have;

	jw_obj(w, call ? "args" : "res");
	if (h & NLM_COOKIE)
		j_netobj(w, "cookie", &m->cookie);
	if (h & NLM_BLOCK)
		jw_bool(w, "block", m->block);
	if (h & NLM_EXCLUSIVE)
		jw_bool(w, "exclusive", m->exclusive);
	if (h & NLM_LOCKV) {
		const struct nlm_lock *l = &m->lock;

		jw_obj(w, "lock");
		jw_strn(w, "caller_name", l->caller_name.s, l->caller_name.len);
		j_fh(w, "fh", &l->fh);
		j_netobj(w, "oh", &l->oh);
		jw_i64(w, "svid", l->svid);
		jw_u64(w, "offset", l->offset);
		jw_u64(w, "length", l->length);
		jw_end_obj(w);
	}
	if (h & NLM_RECLAIM)
		jw_bool(w, "reclaim", m->reclaim);
	if (h & NLM_STATE)
		jw_u64(w, "state", m->state);
	if (h & NLM_STATUS) {
		const char *n = nlm_stat_name(vers, m->status);

		jw_u64(w, "status", m->status);
		if (n)
			jw_str(w, "status_name", n);
	}
	if (h & NLM_HOLDER) {
		jw_obj(w, "holder");
		jw_bool(w, "exclusive", m->holder_exclusive);
		jw_i64(w, "svid", m->holder_svid);
		j_netobj(w, "oh", &m->holder_oh);
		jw_u64(w, "offset", m->holder_offset);
		jw_u64(w, "length", m->holder_length);
		jw_end_obj(w);
	}
	jw_end_obj(w);
}

static const char *const decode_names[] = {
	[DEC_OK] = "ok", [DEC_TRUNCATED] = "truncated",
	[DEC_MALFORMED] = "malformed", [DEC_BODY_SKIPPED] = "body_skipped",
};

/*
 * How far the RPC header was decoded: all of it (body_off set), or up to the
 * first decode error.  Fields of a cut header are printed only if they lie
 * wholly before the cut (fixed offsets of RFC 5531's call/reply header).
 */
uint32_t dump_hdr_limit(const struct dec_msg *d)
{
	if (d->rpc.body_off != 0)
		return UINT32_MAX;
	return d->err_off;
}

/* "S.NNNNNNNNN", a '-' first when negative. */
static const char *dump_secs(int64_t ns, char *buf, size_t n)
{
	uint64_t a = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;

	snprintf(buf, n, "%s%" PRIu64 ".%09" PRIu64, ns < 0 ? "-" : "",
		 a / NSEC_PER_SEC, a % NSEC_PER_SEC);
	return buf;
}

static void j_mark(struct jw *w, const struct an_mark *mk)
{
	char b[32];

	if (mk->what & AN_MARK_RETRANS)
		jw_u64(w, "retrans_of", mk->first_frame);
	if (mk->what & AN_MARK_REPLY) {
		jw_u64(w, "reply_to", mk->first_frame);
		jw_str(w, "time_from_request", dump_secs(mk->lat_ns, b,
							 sizeof(b)));
	}
	if (mk->what & AN_MARK_DUP)
		jw_u64(w, "dup_of", mk->dup_of);
}

void dump_json_msg(FILE *f, const struct cap_msg *m, const struct dec_msg *d)
{
	dump_json_marked(f, m, d, NULL);
}

void dump_json_marked(FILE *f, const struct cap_msg *m,
		      const struct dec_msg *d, const struct an_mark *mk)
{
	struct jw w;
	char a[64];
	const struct rpc_hdr *h = &d->rpc;
	bool call = h->msg_type == RPC_CALL;
	const char *pn = dec_prog_name(d->prog);
	const char *qn = dec_proc_name(d->prog, d->vers, d->proc);
	uint32_t lim = dump_hdr_limit(d);

	jw_init(&w, f);
	jw_obj(&w, NULL);
	jw_u64(&w, "frame", m->frame);
	jw_u64(&w, "first_frame", m->first_frame);
	jw_time(&w, "ts", (uint64_t)(m->ts_ns / NSEC_PER_SEC), (uint32_t)(m->ts_ns % NSEC_PER_SEC));
	jw_str(&w, "src", cap_addr_str(&m->src, a, sizeof(a)));
	jw_u64(&w, "sport", m->sport);
	jw_str(&w, "dst", cap_addr_str(&m->dst, a, sizeof(a)));
	jw_u64(&w, "dport", m->dport);
	jw_str(&w, "proto", m->transport == CAP_TCP ? "tcp" : "udp");
	jw_u64(&w, "len", m->len);
	jw_u64(&w, "caplen", m->caplen);
	if (m->flags) {
		jw_arr(&w, "flags");
		if (m->flags & CAP_MSG_TRUNCATED)
			jw_str(&w, NULL, "truncated");
		if (m->flags & CAP_MSG_AFTER_GAP)
			jw_str(&w, NULL, "after_gap");
		if (m->flags & CAP_MSG_IPFRAG)
			jw_str(&w, NULL, "ipfrag");
		if (m->flags & CAP_MSG_MULTIFRAG)
			jw_str(&w, NULL, "multifrag");
		if (m->flags & CAP_MSG_HOLE)
			jw_str(&w, NULL, "hole");
		jw_end_arr(&w);
	}
	jw_u64(&w, "xid", h->xid);
	jw_str(&w, "type", call ? "call" : "reply");
	if (call ? lim >= 24 : d->call_seen || d->by_shape) {
		if (d->by_shape)
			jw_bool(&w, "call_not_seen", true);
		jw_u64(&w, "prog", d->prog);
		jw_u64(&w, "vers", d->vers);
		jw_u64(&w, "proc", d->proc);
		if (pn)
			jw_str(&w, "prog_name", pn);
		if (qn)
			jw_str(&w, "proc_name", qn);
	} else if (call && lim >= 16) {
		jw_u64(&w, "prog", d->prog);
		if (lim >= 20)
			jw_u64(&w, "vers", d->vers);
		if (pn)
			jw_str(&w, "prog_name", pn);
	}
	if ((unsigned)d->status < sizeof(decode_names) / sizeof(decode_names[0]))
		jw_str(&w, "decode", decode_names[d->status]);
	if (d->status == DEC_TRUNCATED || d->status == DEC_MALFORMED)
		jw_u64(&w, "err_off", d->err_off);
	if (call) {
		if (lim >= 12)
			jw_u64(&w, "rpcvers", h->rpcvers);
		if (lim < 28)
			goto body;
		jw_obj(&w, "cred");
		jw_u64(&w, "flavor", h->cred.flavor);
		if (lim >= 32)
			jw_u64(&w, "len", h->cred.len);
		if (h->cred.have & RPC_CRED_SYS) {
			uint32_t n = h->cred.ngids <= RPC_MAX_GIDS ? h->cred.ngids : RPC_MAX_GIDS;

			jw_u64(&w, "stamp", h->cred.stamp);
			jw_str(&w, "machine", h->cred.machine);
			jw_u64(&w, "uid", h->cred.uid);
			jw_u64(&w, "gid", h->cred.gid);
			jw_arr(&w, "gids");
			for (uint32_t i = 0; i < n; i++)
				jw_u64(&w, NULL, h->cred.gids[i]);
			jw_end_arr(&w);
		}
		if (h->cred.have & RPC_CRED_GSS) {
			jw_u64(&w, "gss_vers", h->cred.gss_vers);
			jw_u64(&w, "gss_proc", h->cred.gss_proc);
			jw_u64(&w, "gss_seq", h->cred.gss_seq);
			jw_u64(&w, "gss_svc", h->cred.gss_svc);
			jw_u64(&w, "gss_ctx_len", h->cred.gss_ctx_len);
		}
		jw_end_obj(&w);
		if (lim != UINT32_MAX)
			goto body;
		jw_obj(&w, "verf");
		jw_u64(&w, "flavor", h->verf.flavor);
		jw_u64(&w, "len", h->verf.len);
		jw_end_obj(&w);
	} else {
		if (d->call_seen)
			jw_u64(&w, "call_frame", d->call_frame);
		if (lim < 12)
			goto body;
		jw_u64(&w, "reply_stat", h->reply_stat);
		if (lim != UINT32_MAX)
			goto body;
		if (h->reply_stat == RPC_MSG_ACCEPTED) {
			jw_obj(&w, "verf");
			jw_u64(&w, "flavor", h->verf.flavor);
			jw_u64(&w, "len", h->verf.len);
			jw_end_obj(&w);
			jw_u64(&w, "accept_stat", h->accept_stat);
			if (h->accept_stat == RPC_PROG_MISMATCH) {
				jw_u64(&w, "mismatch_low", h->mismatch_low);
				jw_u64(&w, "mismatch_high", h->mismatch_high);
			}
		} else {
			jw_u64(&w, "reject_stat", h->reject_stat);
			if (h->reject_stat == RPC_MISMATCH) {
				jw_u64(&w, "mismatch_low", h->mismatch_low);
				jw_u64(&w, "mismatch_high", h->mismatch_high);
			} else {
				jw_u64(&w, "auth_stat", h->auth_stat);
			}
		}
	}
body:
	switch (d->kind) {
	case DEC_BODY_NFS_CALL:
		j_nfs_call(&w, d->vers, &d->u.nfs_call);
		break;
	case DEC_BODY_NFS_REPLY:
		j_nfs_reply(&w, d->vers, &d->u.nfs_reply, d->status == DEC_OK);
		break;
	case DEC_BODY_MNT:
		j_mnt(&w, call, d->vers, d->proc, &d->u.mnt, d->status == DEC_OK);
		break;
	case DEC_BODY_PMAP:
		if (d->vers >= 3)
			j_pmap_v34(&w, call, &d->u.pmap, d->status == DEC_OK);
		else
			j_pmap(&w, call, &d->u.pmap, d->status == DEC_OK);
		break;
	case DEC_BODY_NLM:
		j_nlm(&w, call, d->vers, &d->u.nlm);
		break;
	case DEC_BODY_NFS4:
		dump_nfs4_json(&w, &d->u.nfs4, call);
		break;
	case DEC_BODY_NONE:
		break;
	}
	if (mk)
		j_mark(&w, mk);
	jw_end_obj(&w);
	jw_newline(&w);
}
