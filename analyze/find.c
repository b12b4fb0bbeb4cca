/* find.c - findings; see find.h. */
#include "analyze/find.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RING 64
#define REVAL_SLOTS 16384
#define NOENT_SLOTS 4096
#define NOENT_NAME 64

enum {	/* detectors per subject */
	D_GETATTR, D_ACCESS, D_LOOKUP, D_COMMIT,		/* clients */
	D_JUKEBOX, D_STALE, D_ACCES, D_NOSPC,			/* servers */
	D_TOTAL, D_N
};

#define NFS3ERR_ACCES 13
#define NFS3ERR_NOSPC 28
#define NFS3ERR_NOENT 2
#define NFS3ERR_STALE 70
#define NFS3ERR_JUKEBOX 10008

struct run {
	bool active;
	int64_t start, last_hot;
	uint64_t count, total;
	uint32_t peak, hot_secs;
};

struct subj {
	struct cap_addr addr;
	bool used, is_server, started;
	int64_t head;			/* newest second in the ring */
	uint32_t ring[RING][D_N];
	struct run run[D_N];
	/* retransmit causes (clients) */
	uint64_t ops, rx_ops, rx, slow, lost, frag, tcp, noreply;
	int64_t rx_first, rx_last, ivl_min, ivl_max;
	double ivl_sum;
};

struct reval {
	struct cap_addr client;
	struct nfs_fh fh;
	int64_t last_ns;
	uint64_t n, fast;
	char path[AN_PATH_MAX];
};

struct noent {
	struct cap_addr client, server;
	struct nfs_fh dir;
	char name[NOENT_NAME];
	char dir_path[AN_PATH_MAX];
	uint64_t n;
	int64_t first_ns, last_ns;
};

struct an_find {
	struct an_find_config cfg;
	struct subj subj[AN_FIND_SUBJECTS];
	uint64_t subj_dropped;
	struct reval *reval;
	struct noent *noent;
	struct an_finding *out;
	size_t nout;
	uint64_t dropped;
};

static const char *const kind_names[AN_F_NKINDS] = {
	[AN_F_GETATTR_STORM] = "getattr_storm",
	[AN_F_ACCESS_STORM] = "access_storm",
	[AN_F_LOOKUP_STORM] = "lookup_storm",
	[AN_F_NOENT_REPEAT] = "noent_repeat",
	[AN_F_COMMIT_STORM] = "commit_storm",
	[AN_F_SIZE_CAPPED] = "size_capped",
	[AN_F_SYNC_EXPORT] = "sync_export",
	[AN_F_SERVER_RESTART] = "server_restart",
	[AN_F_ERROR_BURST] = "error_burst",
	[AN_F_RETRANSMITS] = "retransmits",
};

static const char *const meanings[AN_F_NKINDS] = {
	[AN_F_GETATTR_STORM] = "The client re-validates attributes far more "
		"than it reads or writes: attribute caching is off (noac, "
		"actimeo=0) or close-to-open revalidation of many opens; check "
		"the mount options and the application's open/stat pattern.",
	[AN_F_ACCESS_STORM] = "The client asks for permissions over and over: "
		"its access cache is not kept (noac, lookupcache, or many "
		"users/credentials on one mount); check the mount options.",
	[AN_F_LOOKUP_STORM] = "The client resolves names at a high rate: a "
		"path walk per open or stat (deep paths, no dentry caching, "
		"lookupcache=none); check the application's file access and "
		"the mount's lookupcache option.",
	[AN_F_NOENT_REPEAT] = "The same missing name is looked up again and "
		"again: negative lookups are not cached (lookupcache=positive/"
		"none) or an application polls or searches a path list; check "
		"PATH/LD_LIBRARY_PATH-like searches and lookupcache.",
	[AN_F_COMMIT_STORM] = "The client COMMITs after (nearly) every write: "
		"small rewrites with fsync/O_SYNC or close-to-open flushing "
		"make every write wait for the disk; check the application's "
		"sync pattern and the 'sync' mount option.",
	[AN_F_SIZE_CAPPED] = "Transfers never exceed the server's advertised "
		"maximum: the configured rsize/wsize above it cannot take "
		"effect; raise the server's limit (e.g. nfsd max_block_size) "
		"if larger transfers are wanted.",
	[AN_F_SYNC_EXPORT] = "The client asks for UNSTABLE writes but the "
		"server commits them to disk before replying: the export is "
		"synchronous ('sync' export option, or a server that "
		"always writes through); COMMITs are cheap but every WRITE "
		"waits for the disk.",
	[AN_F_SERVER_RESTART] = "The write verifier changed: the server "
		"restarted (or failed over) and clients must resend all "
		"uncommitted writes; check the server's uptime and logs.",
	[AN_F_ERROR_BURST] = "A burst of one error: JUKEBOX = data offline "
		"(HSM recall, delay), STALE = handle no longer valid (file "
		"removed or export changed), ACCES = permission denied "
		"(identity mapping, root squash), NOSPC = file system full.",
	[AN_F_RETRANSMITS] = "The client retransmitted calls; the causes "
		"in the evidence say whether the server was slow (reply after "
		"the retransmission, duplicate replies), calls or replies were "
		"lost (incl. IP fragments) or TCP connections were re-made.",
};

const char *an_find_kind_name(enum an_find_kind k)
{
	return (unsigned)k < AN_F_NKINDS ? kind_names[k] : "unknown";
}

void an_find_config_default(struct an_find_config *c)
{
	memset(c, 0, sizeof(*c));
	c->getattr_rate = 500;
	c->access_rate = 500;
	c->lookup_rate = 500;
	c->storm_min_s = 3;
	c->storm_gap_s = 1;
	c->storm_share = 0.5;
	c->reval_ms = 100;
	c->noent_repeat = 10;
	c->commit_rate = 200;
	c->commit_per_write = 0.5;
	c->commit_min = 50;
	c->error_min = 5;
	c->error_gap_s = 5;
	c->sync_share = 0.9;
	c->sync_min = 20;
	c->size_share = 90;
	c->retrans_min = 10;
	c->retrans_share = 0.01;
}

struct an_find *an_find_new(const struct an_find_config *cfg)
{
	struct an_find *f = calloc(1, sizeof(*f));

	if (f == NULL)
		return NULL;
	if (cfg)
		f->cfg = *cfg;
	else
		an_find_config_default(&f->cfg);
	f->reval = calloc(REVAL_SLOTS, sizeof(*f->reval));
	f->noent = calloc(NOENT_SLOTS, sizeof(*f->noent));
	f->out = calloc(AN_FIND_MAX, sizeof(*f->out));
	if (!f->reval || !f->noent || !f->out) {
		an_find_free(f);
		return NULL;
	}
	return f;
}

void an_find_free(struct an_find *f)
{
	if (f == NULL)
		return;
	free(f->reval);
	free(f->noent);
	free(f->out);
	free(f);
}

size_t an_find_count(const struct an_find *f) { return f->nout; }
uint64_t an_find_dropped(const struct an_find *f) { return f->dropped; }

const struct an_finding *an_find_get(const struct an_find *f, size_t k)
{
	return k < f->nout ? &f->out[k] : NULL;
}

static struct an_finding *emit(struct an_find *f, enum an_find_kind k)
{
	struct an_finding *o;

	if (f->nout == AN_FIND_MAX) {
		f->dropped++;
		return NULL;
	}
	o = &f->out[f->nout++];
	memset(o, 0, sizeof(*o));
	o->kind = k;
	o->meaning = meanings[k];
	return o;
}

static uint64_t addr_hash(const struct cap_addr *a, uint64_t h)
{
	unsigned i;

	for (i = 0; i < 16; i++)
		h = (h ^ a->a[i]) * 1099511628211ull;
	return h ^ a->family;
}

static uint64_t fh_hash(const struct nfs_fh *fh, uint64_t h)
{
	uint32_t i;

	for (i = 0; i < fh->len && i < NFS_FHSIZE_MAX; i++)
		h = (h ^ fh->data[i]) * 1099511628211ull;
	return h;
}

static bool fh_eq(const struct nfs_fh *a, const struct nfs_fh *b)
{
	return a->len == b->len && memcmp(a->data, b->data, a->len) == 0;
}

static const char *astr(const struct cap_addr *a, char *b)
{
	return cap_addr_str(a, b, 64);
}

/* ----------------------------------------------------- rate detectors -- */

static struct subj *subj_get(struct an_find *f, const struct cap_addr *a,
			     bool server)
{
	uint64_t h = addr_hash(a, server ? 3 : 5);
	uint32_t i, k;

	for (k = 0; k < AN_FIND_SUBJECTS; k++) {
		i = (uint32_t)(h + k) % AN_FIND_SUBJECTS;
		if (!f->subj[i].used) {
			memset(&f->subj[i], 0, sizeof(f->subj[i]));
			f->subj[i].used = true;
			f->subj[i].addr = *a;
			f->subj[i].is_server = server;
			return &f->subj[i];
		}
		if (f->subj[i].is_server == server &&
		    cap_addr_eq(&f->subj[i].addr, a))
			return &f->subj[i];
	}
	f->subj_dropped++;
	return NULL;
}

static uint32_t det_thr(const struct an_find *f, int d)
{
	switch (d) {
	case D_GETATTR: return f->cfg.getattr_rate;
	case D_ACCESS: return f->cfg.access_rate;
	case D_LOOKUP: return f->cfg.lookup_rate;
	case D_COMMIT: return f->cfg.commit_rate;
	default: return 1;	/* errors: any second with one */
	}
}

static const struct reval *reval_top(const struct an_find *f,
				     const struct cap_addr *client)
{
	const struct reval *best = NULL;
	uint32_t i;

	for (i = 0; i < REVAL_SLOTS; i++) {
		const struct reval *r = &f->reval[i];

		if (r->n && cap_addr_eq(&r->client, client) &&
		    (best == NULL || r->fast > best->fast))
			best = r;
	}
	return best;
}

static void run_close(struct an_find *f, struct subj *s, int d)
{
	static const enum an_find_kind storm[] = {
		AN_F_GETATTR_STORM, AN_F_ACCESS_STORM, AN_F_LOOKUP_STORM,
		AN_F_COMMIT_STORM };
	static const char *const pname[] = { "GETATTR", "ACCESS", "LOOKUP",
		"COMMIT" };
	static const char *const ename[] = { "JUKEBOX", "STALE", "ACCES",
		"NOSPC" };
	struct run *r = &s->run[d];
	struct an_finding *o;
	char a[64];
	double share;

	if (!r->active)
		return;
	r->active = false;
	if (d <= D_COMMIT) {
		share = r->total ? (double)r->count / (double)r->total : 0;
		if (r->hot_secs < f->cfg.storm_min_s ||
		    (d != D_COMMIT && share < f->cfg.storm_share))
			return;
		if ((o = emit(f, storm[d])) == NULL)
			return;
		o->have_client = true;
		o->client = s->addr;
		o->start_ns = r->start * 1000000000;
		o->end_ns = (r->last_hot + 1) * 1000000000;
		o->count = r->count;
		o->peak_rate = r->peak;
		snprintf(o->evidence, sizeof(o->evidence),
			 "%s %s: %" PRIu64 " calls in %" PRId64 " s (%.0f/s avg, "
			 "peak %u/s), %.0f%% of the client's ops",
			 astr(&s->addr, a), pname[d], r->count,
			 r->last_hot - r->start + 1,
			 (double)r->count / (double)(r->last_hot - r->start + 1),
			 r->peak, share * 100);
		if (d == D_GETATTR) {
			const struct reval *rv = reval_top(f, &s->addr);

			if (rv && rv->fast) {
				size_t n = strlen(o->evidence);

				o->have_fh = true;
				o->fh = rv->fh;
				memcpy(o->path, rv->path, sizeof(o->path));
				snprintf(o->evidence + n, sizeof(o->evidence) - n,
					 "; one handle%s%s re-validated %" PRIu64
					 " times within %u ms of the previous",
					 rv->path[0] ? " " : "", rv->path, rv->fast,
					 f->cfg.reval_ms);
			}
		}
		return;
	}
	if (d >= D_JUKEBOX && d <= D_NOSPC) {
		if (r->count < f->cfg.error_min)
			return;
		if ((o = emit(f, AN_F_ERROR_BURST)) == NULL)
			return;
		o->have_server = true;
		o->server = s->addr;
		o->start_ns = r->start * 1000000000;
		o->end_ns = (r->last_hot + 1) * 1000000000;
		o->count = r->count;
		o->peak_rate = r->peak;
		snprintf(o->evidence, sizeof(o->evidence),
			 "server %s: %" PRIu64 " %s errors over %" PRId64
			 " s (peak %u/s)", astr(&s->addr, a), r->count,
			 ename[d - D_JUKEBOX], r->last_hot - r->start + 1, r->peak);
	}
}

static void second_close(struct an_find *f, struct subj *s, int64_t t)
{
	uint32_t *c = s->ring[t & (RING - 1)];
	int d;

	for (d = 0; d < D_TOTAL; d++) {
		struct run *r = &s->run[d];
		uint32_t gap = d <= D_COMMIT ? f->cfg.storm_gap_s :
			       f->cfg.error_gap_s;

		if (c[d] >= det_thr(f, d) && c[d] > 0) {
			if (r->active && t - r->last_hot > (int64_t)gap + 1)
				run_close(f, s, d);
			if (!r->active) {
				memset(r, 0, sizeof(*r));
				r->active = true;
				r->start = t;
			}
			r->last_hot = t;
			r->hot_secs++;
			if (c[d] > r->peak)
				r->peak = c[d];
		} else if (r->active && t - r->last_hot > (int64_t)gap) {
			run_close(f, s, d);
		}
		if (r->active) {
			r->count += c[d];
			r->total += c[D_TOTAL];
		}
	}
	memset(c, 0, sizeof(s->ring[0]));
}

static void subj_flush(struct an_find *f, struct subj *s)
{
	int64_t t;
	int d;

	for (t = s->head - RING + 1; t <= s->head; t++)
		second_close(f, s, t);
	for (d = 0; d < D_TOTAL; d++)
		run_close(f, s, d);
}

static void subj_count(struct an_find *f, struct subj *s, int64_t sec, int d)
{
	if (!s->started) {
		s->started = true;
		s->head = sec;
	}
	if (sec > s->head + 2 * RING) {
		subj_flush(f, s);
		s->head = sec;
	}
	while (s->head < sec) {
		s->head++;
		second_close(f, s, s->head - RING);
	}
	if (sec <= s->head - RING)
		sec = s->head - RING + 1;
	s->ring[sec & (RING - 1)][d]++;
}

/* ---------------------------------------------------------- per op -- */

static void reval_add(struct an_find *f, const struct an_op *op)
{
	uint64_t h = fh_hash(&op->fh, addr_hash(&op->client, 9));
	struct reval *r = &f->reval[h % REVAL_SLOTS];

	if (!r->n || !cap_addr_eq(&r->client, &op->client) ||
	    !fh_eq(&r->fh, &op->fh)) {
		memset(r, 0, sizeof(*r));
		r->client = op->client;
		r->fh = op->fh;
	} else if (op->first_call_ns - r->last_ns <=
		   (int64_t)f->cfg.reval_ms * 1000000) {
		r->fast++;
	}
	if (op->have & AN_HAVE_PATH)
		memcpy(r->path, op->path, sizeof(r->path));
	r->n++;
	r->last_ns = op->first_call_ns;
}

static void noent_add(struct an_find *f, const struct an_op *op)
{
	uint64_t h = fh_hash(&op->fh, addr_hash(&op->client, 13));
	struct noent *e;
	size_t nl = strnlen(op->name, NOENT_NAME - 1);

	h = fh_hash(&(struct nfs_fh){ .len = (uint32_t)nl }, h);
	{
		size_t i;

		for (i = 0; i < nl; i++)
			h = (h ^ (uint8_t)op->name[i]) * 1099511628211ull;
	}
	e = &f->noent[h % NOENT_SLOTS];
	if (!e->n || !cap_addr_eq(&e->client, &op->client) ||
	    !fh_eq(&e->dir, &op->fh) || strncmp(e->name, op->name, nl) ||
	    e->name[nl] != '\0') {
		memset(e, 0, sizeof(*e));
		e->client = op->client;
		e->server = op->server;
		e->dir = op->fh;
		memcpy(e->name, op->name, nl);
		e->first_ns = op->first_call_ns;
	}
	if (op->have & AN_HAVE_PATH)
		memcpy(e->dir_path, op->path, sizeof(e->dir_path));
	e->n++;
	e->last_ns = op->first_call_ns;
}

static void retrans_add(struct subj *s, const struct an_op *op)
{
	int64_t ivl = op->retrans_ivl_first_ns;

	if (s->rx_ops == 0 || op->first_call_ns < s->rx_first)
		s->rx_first = op->first_call_ns;
	if (op->last_call_ns > s->rx_last)
		s->rx_last = op->last_call_ns;
	if (s->rx_ops == 0 || ivl < s->ivl_min)
		s->ivl_min = ivl;
	if (ivl > s->ivl_max)
		s->ivl_max = ivl;
	s->ivl_sum += (double)ivl;
	s->rx_ops++;
	s->rx += op->retrans;
	if (!(op->flags & AN_OP_ANSWERED))
		s->noreply++;
	else if (op->dup_replies > 0)
		s->slow++;		/* the server answered twice: slow */
	else if (op->transport == CAP_TCP)
		s->tcp++;		/* RPC-level resend on TCP: reconnect */
	else if (op->flags & AN_OP_IPFRAG)
		s->frag++;		/* fragmented call: a fragment lost */
	else if (op->lat_last_ns * 4 < op->retrans_ivl_max_ns)
		s->lost++;		/* quick answer to the resend */
	else
		s->slow++;		/* reply after the resend: slow */
}

void an_find_add(struct an_find *f, const struct an_op *op)
{
	struct subj *c, *s;
	int64_t sec = op->first_call_ns / 1000000000;
	bool nfs = op->prog == PROG_NFS && (op->vers == 2 || op->vers == 3);
	uint32_t p = op->proc;
	int d = -1;

	c = subj_get(f, &op->client, false);
	if (c != NULL) {
		c->ops++;
		subj_count(f, c, sec, D_TOTAL);
		if (op->retrans)
			retrans_add(c, op);
	}
	if (!nfs)
		return;
	if (op->vers == 3) {
		d = p == NFS3_GETATTR ? D_GETATTR : p == NFS3_ACCESS ? D_ACCESS :
		    p == NFS3_LOOKUP ? D_LOOKUP : p == NFS3_COMMIT ? D_COMMIT : -1;
	} else {
		d = p == NFS2_GETATTR ? D_GETATTR : p == NFS2_LOOKUP ? D_LOOKUP : -1;
	}
	if (c != NULL && d >= 0)
		subj_count(f, c, sec, d);
	if (d == D_GETATTR && (op->have & AN_HAVE_FH))
		reval_add(f, op);
	if (!(op->flags & AN_OP_ANSWERED) || !(op->have & AN_HAVE_STATUS) ||
	    op->status == 0)
		return;
	if (d == D_LOOKUP && op->status == NFS3ERR_NOENT &&
	    (op->have & (AN_HAVE_FH | AN_HAVE_NAME)) == (AN_HAVE_FH | AN_HAVE_NAME))
		noent_add(f, op);
	d = op->status == NFS3ERR_JUKEBOX ? D_JUKEBOX :
	    op->status == NFS3ERR_STALE ? D_STALE :
	    op->status == NFS3ERR_ACCES ? D_ACCES :
	    op->status == NFS3ERR_NOSPC ? D_NOSPC : -1;
	if (d >= 0 && (s = subj_get(f, &op->server, true)) != NULL)
		subj_count(f, s, sec, d);
}

/* ---------------------------------------------------- size verdicts -- */

static const char *hsize(uint32_t v, char *b, size_t n)
{
	if (v >= 1048576 && v % 1048576 == 0)
		snprintf(b, n, "%uM", v / 1048576);
	else if (v >= 1024 && v % 1024 == 0)
		snprintf(b, n, "%uk", v / 1024);
	else
		snprintf(b, n, "%u bytes", v);
	return b;
}

bool an_size_verdict(const struct an_pair *p, const struct an_server *srv,
		     bool write, uint32_t share_pct, char *buf, size_t n)
{
	const struct an_sizes *s = write ? &p->write : &p->read;
	const char *op = write ? "WRITE" : "READ";
	const char *knob = write ? "wsize" : "rsize";
	uint32_t k, dom = 0, lim = 0, pref = 0;
	uint64_t dn = 0, pct;
	const char *limname = NULL;
	char b1[32], b2[32];
	size_t o;
	bool capped = false;

	if (s->total == 0) {
		snprintf(buf, n, "%s: no calls seen", op);
		return false;
	}
	for (k = 0; k < s->nsizes; k++)
		if (s->s[k].n > dn || (s->s[k].n == dn && s->s[k].size > dom)) {
			dn = s->s[k].n;
			dom = s->s[k].size;
		}
	pct = dn * 100 / s->total;
	o = (size_t)snprintf(buf, n, "%s: %u bytes in %" PRIu64 "%% of %" PRIu64
			     " calls, never above %u", op, dom, pct, s->total,
			     s->max);
	if (o >= n)
		return false;
	if (srv && srv->have_fsinfo) {
		lim = write ? srv->wtmax : srv->rtmax;
		pref = write ? srv->wtpref : srv->rtpref;
		limname = write ? "wtmax" : "rtmax";
	} else if (srv && srv->have_statfs) {
		lim = srv->tsize;
		limname = "tsize (STATFS)";
	}
	if (lim == 0) {
		snprintf(buf + o, n - o, "; the server's limit is unknown (no "
			 "FSINFO/STATFS reply in the capture: it is sent at "
			 "mount time); the client's %s is not sent on the wire, "
			 "%u is the largest it used", knob, s->max);
		return false;
	}
	if (s->max == lim && dom == lim) {
		snprintf(buf + o, n - o, "; server advertises %s %u%s%s -> the "
			 "server caps %ss at %s; a %s above %s cannot take "
			 "effect", limname, lim, pref ? ", pref " : "",
			 pref ? hsize(pref, b2, sizeof(b2)) : "",
			 write ? "write" : "read", hsize(lim, b1, sizeof(b1)),
			 knob, hsize(lim, b1, sizeof(b1)));
		capped = pct >= share_pct;
	} else if (s->max == lim) {
		snprintf(buf + o, n - o, "; server advertises %s %u -> the "
			 "largest transfers reach the server's limit but most "
			 "are smaller (small files or small application I/O); "
			 "a %s above %s cannot take effect", limname, lim, knob,
			 hsize(lim, b1, sizeof(b1)));
	} else if (s->max < lim) {
		snprintf(buf + o, n - o, "; server advertises %s %u -> the "
			 "server allows more: the client's %s (not sent on the "
			 "wire; inferred <= %u from what it used) or the "
			 "application's I/O size is the limit", limname, lim,
			 knob, s->max);
	} else {
		snprintf(buf + o, n - o, "; server advertises %s %u but "
			 "transfers of %u were seen (the limit changed, or "
			 "another export)", limname, lim, s->max);
	}
	return capped;
}

/* ------------------------------------------------------------ finish -- */

static void find_pairs(struct an_find *f, const struct an_figs *figs)
{
	uint32_t k;
	char a[64], b[64];

	for (k = 0; k < an_figs_npairs(figs); k++) {
		const struct an_pair *p = an_figs_pair(figs, k);
		const struct an_server *srv = an_figs_server_find(figs, &p->server);
		uint64_t unst = p->stable[0][0] + p->stable[0][1] +
				p->stable[0][2];
		struct an_finding *o;
		int w;

		for (w = 0; w < 2; w++) {
			char v[AN_EVIDENCE_MAX];

			if ((w ? p->write.total : p->read.total) == 0)
				continue;
			if (!an_size_verdict(p, srv, w, f->cfg.size_share, v,
					     sizeof(v)))
				continue;
			if ((o = emit(f, AN_F_SIZE_CAPPED)) == NULL)
				return;
			o->have_client = o->have_server = true;
			o->client = p->client;
			o->server = p->server;
			o->count = w ? p->write.total : p->read.total;
			snprintf(o->evidence, sizeof(o->evidence), "%s", v);
		}
		if (unst >= f->cfg.sync_min &&
		    (double)p->stable[0][2] >= f->cfg.sync_share * (double)unst &&
		    (o = emit(f, AN_F_SYNC_EXPORT)) != NULL) {
			o->have_client = o->have_server = true;
			o->client = p->client;
			o->server = p->server;
			o->count = p->stable[0][2];
			snprintf(o->evidence, sizeof(o->evidence),
				 "%s -> %s: %" PRIu64 " of %" PRIu64 " UNSTABLE "
				 "WRITEs were granted FILE_SYNC; %" PRIu64
				 " COMMITs", astr(&p->client, a),
				 astr(&p->server, b), p->stable[0][2], unst,
				 p->commits);
		}
		if (p->commits >= f->cfg.commit_min && p->writes &&
		    (double)p->commits >= f->cfg.commit_per_write *
					  (double)p->writes &&
		    (o = emit(f, AN_F_COMMIT_STORM)) != NULL) {
			o->have_client = o->have_server = true;
			o->client = p->client;
			o->server = p->server;
			o->count = p->commits;
			snprintf(o->evidence, sizeof(o->evidence),
				 "%s -> %s: %" PRIu64 " COMMITs for %" PRIu64
				 " WRITEs (%.2f per WRITE), %" PRIu64 " of the "
				 "WRITEs UNSTABLE and below 32k",
				 astr(&p->client, a), astr(&p->server, b),
				 p->commits, p->writes,
				 (double)p->commits / (double)p->writes,
				 p->writes_unstable_small);
		}
	}
}

static void find_restarts(struct an_find *f, const struct an_figs *figs)
{
	uint32_t k, i;
	char a[64];

	for (k = 0; k < an_figs_nservers(figs); k++) {
		const struct an_server *s = an_figs_server(figs, k);

		for (i = 0; i < s->nverf_changes && i < AN_VERF_CHANGES_MAX; i++) {
			const struct an_verf_change *c = &s->verf_changes[i];
			struct an_finding *o = emit(f, AN_F_SERVER_RESTART);

			if (o == NULL)
				return;
			o->have_server = true;
			o->server = s->addr;
			o->start_ns = o->end_ns = c->ts_ns;
			o->count = 1;
			snprintf(o->evidence, sizeof(o->evidence),
				 "server %s: write verifier %02x%02x%02x%02x"
				 "%02x%02x%02x%02x -> %02x%02x%02x%02x%02x%02x"
				 "%02x%02x in frame %" PRIu64 " (%u change%s in "
				 "all)", astr(&s->addr, a),
				 c->old_verf[0], c->old_verf[1], c->old_verf[2],
				 c->old_verf[3], c->old_verf[4], c->old_verf[5],
				 c->old_verf[6], c->old_verf[7],
				 c->new_verf[0], c->new_verf[1], c->new_verf[2],
				 c->new_verf[3], c->new_verf[4], c->new_verf[5],
				 c->new_verf[6], c->new_verf[7], c->frame,
				 s->nverf_changes, s->nverf_changes == 1 ? "" : "s");
		}
	}
}

static int noent_cmp(const void *x, const void *y)
{
	const struct noent *a = *(const struct noent *const *)x;
	const struct noent *b = *(const struct noent *const *)y;

	return a->n < b->n ? 1 : a->n > b->n ? -1 : 0;
}

static void find_noent(struct an_find *f)
{
	const struct noent *top[16];
	size_t nt = 0, i;
	uint32_t k;
	char a[64];

	for (k = 0; k < NOENT_SLOTS; k++) {
		const struct noent *e = &f->noent[k];

		if (e->n < f->cfg.noent_repeat)
			continue;
		if (nt < 16) {
			top[nt++] = e;
			continue;
		}
		qsort(top, nt, sizeof(top[0]), noent_cmp);
		if (e->n > top[nt - 1]->n)
			top[nt - 1] = e;
	}
	qsort(top, nt, sizeof(top[0]), noent_cmp);
	for (i = 0; i < nt && i < 10; i++) {
		struct an_finding *o = emit(f, AN_F_NOENT_REPEAT);

		if (o == NULL)
			return;
		o->have_client = o->have_server = o->have_fh = true;
		o->client = top[i]->client;
		o->server = top[i]->server;
		o->fh = top[i]->dir;
		memcpy(o->path, top[i]->dir_path, sizeof(o->path));
		o->start_ns = top[i]->first_ns;
		o->end_ns = top[i]->last_ns;
		o->count = top[i]->n;
		snprintf(o->evidence, sizeof(o->evidence),
			 "%s: LOOKUP of \"%s\" in %s answered NOENT %" PRIu64
			 " times", astr(&top[i]->client, a), top[i]->name,
			 top[i]->dir_path[0] ? top[i]->dir_path : "a directory",
			 top[i]->n);
	}
}

static void find_retrans(struct an_find *f, uint64_t ipfrag_incomplete)
{
	uint32_t k;
	char a[64];

	for (k = 0; k < AN_FIND_SUBJECTS; k++) {
		const struct subj *s = &f->subj[k];
		struct an_finding *o;

		if (!s->used || s->is_server || s->rx_ops == 0)
			continue;
		if (s->rx_ops < f->cfg.retrans_min &&
		    (double)s->rx_ops < f->cfg.retrans_share * (double)s->ops)
			continue;
		if ((o = emit(f, AN_F_RETRANSMITS)) == NULL)
			return;
		o->have_client = true;
		o->client = s->addr;
		o->start_ns = s->rx_first;
		o->end_ns = s->rx_last;
		o->count = s->rx_ops;
		snprintf(o->evidence, sizeof(o->evidence),
			 "%s: %" PRIu64 " of %" PRIu64 " ops retransmitted (%"
			 PRIu64 " retransmissions, first after %.3f..%.3f ms, "
			 "avg %.3f ms); causes: slow server %" PRIu64
			 ", lost call or reply %" PRIu64 ", lost IP fragments %"
			 PRIu64 " (%" PRIu64 " incomplete trains), TCP "
			 "reconnect %" PRIu64 ", never answered %" PRIu64,
			 astr(&s->addr, a), s->rx_ops, s->ops, s->rx,
			 (double)s->ivl_min / 1e6, (double)s->ivl_max / 1e6,
			 s->ivl_sum / (double)s->rx_ops / 1e6, s->slow, s->lost,
			 s->frag, ipfrag_incomplete, s->tcp, s->noreply);
	}
}

void an_find_finish(struct an_find *f, const struct an_figs *figs,
		    uint64_t ipfrag_incomplete)
{
	uint32_t k;

	for (k = 0; k < AN_FIND_SUBJECTS; k++)
		if (f->subj[k].used && f->subj[k].started)
			subj_flush(f, &f->subj[k]);
	find_noent(f);
	find_retrans(f, ipfrag_incomplete);
	if (figs != NULL) {
		find_pairs(f, figs);
		find_restarts(f, figs);
	}
}
