/* verdict.c - size verdicts and end-of-input findings; see find.h and
 * find_int.h. */
#include "analyze/find_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define emit an_find_emit
#define astr an_find_astr

/* ---------------------------------------------------- size verdicts -- */

const char *an_size_str(uint32_t v, char *b, size_t n)
{
	if (v >= 1048576 && v % 1048576 == 0)
		snprintf(b, n, "%uM", v / 1048576);
	else if (v >= 1024 && v % 1024 == 0)
		snprintf(b, n, "%uk", v / 1024);
	else
		snprintf(b, n, "%u bytes", v);
	return b;
}

/* The payload room of a session's fore channel size (see find.h). */
static uint32_t session_room(uint32_t size)
{
	if (size <= AN_SESSION_OVERHEAD)
		return 0;
	size -= AN_SESSION_OVERHEAD;
	return size >= 4096 ? size & ~4095u : size;
}

uint32_t an_size_limit(const struct an_pair *p, const struct an_server *srv,
		       bool write, char *name, size_t n)
{
	uint32_t lim = 0, room = 0, sz = 0;

	if (n > 0)
		name[0] = '\0';	/* no limit known: no name */
	if (srv && srv->have_fsinfo) {
		lim = write ? srv->wtmax : srv->rtmax;
		snprintf(name, n, "%s", write ? "wtmax" : "rtmax");
	} else if (srv && srv->have_statfs) {
		lim = srv->tsize;
		snprintf(name, n, "tsize (STATFS)");
	}
	if (p && p->have_session) {
		sz = write ? p->sess_maxreq : p->sess_maxresp;
		room = session_room(sz);
	}
	if (room > 0 && (lim == 0 || room < lim)) {
		snprintf(name, n, "%s %u of its session, room for",
			 write ? "maxreq" : "maxresp", sz);
		return room;
	}
	return lim;
}

/* Calls of s asking more than v bytes. */
static uint64_t sizes_above(const struct an_sizes *s, uint32_t v)
{
	uint64_t n = 0;
	uint32_t k;

	for (k = 0; k < s->nsizes; k++)
		if (s->s[k].size > v)
			n += s->s[k].n;
	return n;
}

/*
 * The verdict from what was granted: the server answered transfers with
 * less than asked (READs short, not at EOF; WRITE counts below the count
 * sent) and never granted as much as the client asked.  Appends to buf
 * (o bytes used); false (nothing written) if the replies show no clamp.
 */
static bool clamp_verdict(const struct an_pair *p, bool write, uint32_t lim,
			  const char *limname, char *buf, size_t o, size_t n)
{
	const struct an_sizes *s = write ? &p->write : &p->read;
	uint64_t nshort = write ? p->short_writes : p->short_reads;
	uint32_t granted = write ? p->write_granted_max : p->read_granted_max;
	uint64_t above;
	char b1[32], b2[32], b3[32];

	if (nshort == 0 || granted >= s->max)
		return false;
	above = sizes_above(s, granted);
	snprintf(buf + o, n - o, "; the client asks %s, the server grants %s: "
		 "the server clamps %s transfer above %s (%" PRIu64 " of the %"
		 PRIu64 " %ss above it came back short%s)%s%s%s%s",
		 an_size_str(s->max, b1, sizeof(b1)), an_size_str(granted, b2, sizeof(b2)),
		 nshort >= above ? "every" : "some", b2, nshort, above,
		 write ? "WRITE" : "READ", write ? "" : ", not at EOF",
		 lim ? "; it advertises " : "", lim ? limname : "",
		 lim ? " " : "", lim ? an_size_str(lim, b3, sizeof(b3)) : "");
	return true;
}

/*
 * The sizes asked by the calls seen and those granted to calls not seen
 * (from their replies, by shape), in one histogram: in a header-only
 * capture the hidden calls are the ones after large records, and the sizes
 * seen alone are biased small.
 */
static void sizes_with_replies(struct an_sizes *all, const struct an_sizes *a,
			       const struct an_sizes *r)
{
	uint32_t k, j;

	*all = *a;
	all->total += r->total;
	all->other += r->other;
	if (r->max > all->max)
		all->max = r->max;
	for (k = 0; k < r->nsizes; k++) {
		for (j = 0; j < all->nsizes; j++)
			if (all->s[j].size == r->s[k].size)
				break;
		if (j < all->nsizes)
			all->s[j].n += r->s[k].n;
		else if (all->nsizes < AN_SIZES_MAX)
			all->s[all->nsizes++] = r->s[k];
		else
			all->other += r->s[k].n;
	}
}

/*
 * Do the sizes used say anything of the client's rsize/wsize?  Not when
 * the transfers are small (under 4 KiB: whole small files, small
 * application writes) or most READs ended at EOF (a whole file read,
 * asked by its size).
 */
static bool size_evidence(const struct an_pair *p, bool write,
			  const struct an_sizes *s)
{
	if (s->max < 4096)
		return false;
	return write || p->read_eof * 2 < p->reads;
}

bool an_size_verdict(const struct an_pair *p, const struct an_server *srv,
		     bool write, uint32_t share_pct, char *buf, size_t n)
{
	const struct an_sizes *rep = write ? &p->write_rep : &p->read_rep;
	struct an_sizes all;
	const struct an_sizes *s = &all;
	const char *op = write ? "WRITE" : "READ";
	const char *knob = write ? "wsize" : "rsize";
	uint32_t dom = 0, lim = 0, pref = 0;
	uint64_t dn = 0, pct;
	const char *limname = NULL;
	char b1[32], b2[32], limbuf[64];
	size_t o;
	bool capped = false;

	sizes_with_replies(&all, write ? &p->write : &p->read, rep);
	if (s->total == 0) {
		snprintf(buf, n, "%s: no calls seen", op);
		return false;
	}
	dom = an_sizes_dominant(s, &dn);
	pct = dn * 100 / s->total;
	o = (size_t)snprintf(buf, n, "%s: %u bytes in %" PRIu64 "%% of %" PRIu64
			     " calls, never above %u", op, dom, pct, s->total,
			     s->max);
	if (o < n && rep->total)
		o += (size_t)snprintf(buf + o, n - o, " (%" PRIu64 " of them with the "
				      "call not seen: the size granted in "
				      "the reply)", rep->total);
	if (o >= n)
		return false;
	lim = an_size_limit(p, srv, write, limbuf, sizeof(limbuf));
	limname = limbuf;
	if (srv && srv->have_fsinfo && lim == (write ? srv->wtmax : srv->rtmax))
		pref = write ? srv->wtpref : srv->rtpref;
	if (clamp_verdict(p, write, lim, limname, buf, o, n))
		return false;	/* a clamp: the short_io finding */
	if (lim == 0) {
		snprintf(buf + o, n - o, "; the server's limit is unknown (no "
			 "%s reply in the capture: it is sent at "
			 "mount time); the client's %s is not sent on the wire, "
			 "%u is the largest it used", (p->vers_seen & 0x10) ?
			 "GETATTR maxread/maxwrite or CREATE_SESSION" :
			 "FSINFO/STATFS", knob, s->max);
		return false;
	}
	if (s->max == lim && dom == lim) {
		snprintf(buf + o, n - o, "; server advertises %s %u%s%s -> the "
			 "server caps %ss at %s; a %s above %s cannot take "
			 "effect", limname, lim, pref ? ", pref " : "",
			 pref ? an_size_str(pref, b2, sizeof(b2)) : "",
			 write ? "write" : "read", an_size_str(lim, b1, sizeof(b1)),
			 knob, an_size_str(lim, b1, sizeof(b1)));
		capped = pct >= share_pct;
	} else if (s->max == lim) {
		snprintf(buf + o, n - o, "; server advertises %s %u -> the "
			 "largest transfers reach the server's limit but most "
			 "are smaller (small files or small application I/O); "
			 "a %s above %s cannot take effect", limname, lim, knob,
			 an_size_str(lim, b1, sizeof(b1)));
	} else if (s->max < lim && !size_evidence(p, write, s)) {
		snprintf(buf + o, n - o, "; server advertises %s %u -> the "
			 "server allows more; not enough evidence of the "
			 "client's %s (%s): it is not sent on the wire",
			 limname, lim, knob, write ? "only small WRITEs" :
			 "the READs end at EOF or read whole small files");
	} else if (s->max < lim) {
		snprintf(buf + o, n - o, "; server advertises %s %u -> the "
			 "server allows more: the client's %s (not sent on the "
			 "wire; inferred <= %u from what it used) or the "
			 "application's I/O size is the limit", limname, lim,
			 knob, s->max);
	} else {
		snprintf(buf + o, n - o, "; server advertises %s %u but the "
			 "client asks up to %u (the limit changed, or another "
			 "export); replies granted at most %u, %" PRIu64
			 " short", limname, lim, s->max,
			 write ? p->write_granted_max : p->read_granted_max,
			 write ? p->short_writes : p->short_reads);
	}
	return capped;
}

/* ------------------------------------------------------------ finish -- */

/* Short transfers of pair p: enough of them to say so. */
static void find_short_io(struct an_find *f, const struct an_pair *p,
			  const struct an_server *srv)
{
	uint64_t nshort = p->short_reads + p->short_writes;
	struct an_finding *o;
	char a[64], b[64];
	size_t n;

	if (nshort == 0 || nshort < f->cfg.short_io_min ||
	    (double)nshort < f->cfg.short_io_share * (double)(p->reads + p->writes))
		return;
	if ((o = emit(f, AN_F_SHORT_IO)) == NULL)
		return;
	o->have_client = o->have_server = true;
	o->client = p->client;
	o->server = p->server;
	o->count = nshort;
	n = (size_t)snprintf(o->evidence, sizeof(o->evidence), "%s -> %s:",
			     astr(&p->client, a), astr(&p->server, b));
	if (p->reads && n < sizeof(o->evidence))
		n += (size_t)snprintf(o->evidence + n, sizeof(o->evidence) - n,
			 " %" PRIu64 " of %" PRIu64 " READs short, not at EOF "
			 "(asked up to %u, granted at most %u; %" PRIu64
			 " at EOF);", p->short_reads, p->reads,
			 p->short_read_asked_max, p->read_granted_max,
			 p->read_eof);
	if (p->writes && n < sizeof(o->evidence))
		n += (size_t)snprintf(o->evidence + n, sizeof(o->evidence) - n,
			 " %" PRIu64 " of %" PRIu64 " WRITEs short (asked up "
			 "to %u, granted at most %u);", p->short_writes,
			 p->writes, p->short_write_asked_max,
			 p->write_granted_max);
	if (n < sizeof(o->evidence) && o->evidence[n - 1] == ';')
		o->evidence[--n] = '\0';
	if (srv && srv->have_fsinfo && n < sizeof(o->evidence))
		n += (size_t)snprintf(o->evidence + n, sizeof(o->evidence) - n,
			 "; the server advertises rtmax %u wtmax %u",
			 srv->rtmax, srv->wtmax);
	if (p->have_session && n < sizeof(o->evidence))
		snprintf(o->evidence + n, sizeof(o->evidence) - n,
			 "; its session's fore channel: maxreq %u maxresp %u",
			 p->sess_maxreq, p->sess_maxresp);
}

/* WRITEs of a pair asked with stable_how `asked` (0 UNSTABLE, 1 DATA_SYNC,
 * 2 FILE_SYNC), whatever was granted (known or not). */
static uint64_t asked_as(const struct an_pair *p, int asked)
{
	return p->stable[asked][0] + p->stable[asked][1] + p->stable[asked][2] +
	       p->stable[asked][3];
}

/*
 * Who makes the writes synchronous.  sync_export: the client asks
 * UNSTABLE and the server answers FILE_SYNC.  sync_client: the client
 * itself asks FILE_SYNC or DATA_SYNC for most of its WRITEs.
 */
static void find_sync(struct an_find *f, const struct an_pair *p)
{
	uint64_t unst = p->stable[0][0] + p->stable[0][1] + p->stable[0][2];
	uint64_t dsync = asked_as(p, 1), fsync = asked_as(p, 2);
	uint64_t all = asked_as(p, 0) + dsync + fsync;
	struct an_finding *o;
	char a[64], b[64];

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
	if (dsync + fsync < f->cfg.sync_client_min ||
	    (double)(dsync + fsync) < f->cfg.sync_client_share * (double)all ||
	    (o = emit(f, AN_F_SYNC_CLIENT)) == NULL)
		return;
	o->have_client = o->have_server = true;
	o->client = p->client;
	o->server = p->server;
	o->count = dsync + fsync;
	snprintf(o->evidence, sizeof(o->evidence),
		 "%s -> %s: %" PRIu64 " of %" PRIu64 " WRITEs asked stable "
		 "(%" PRIu64 " FILE_SYNC, %" PRIu64 " DATA_SYNC), %" PRIu64
		 " UNSTABLE; %" PRIu64 " COMMITs", astr(&p->client, a),
		 astr(&p->server, b), dsync + fsync, all, fsync, dsync,
		 asked_as(p, 0), p->commits);
}

/* The pair's maximum for READ (w 0) or WRITE; 0: unknown. */
static uint32_t size_limit(const struct an_pair *p,
			   const struct an_server *srv, int w)
{
	char name[64];

	return an_size_limit(p, srv, w != 0, name, sizeof(name));
}

/* A small server maximum's cost: RPCs per MiB at it against 64 KiB
 * (o->count calls of lim bytes; the extra ones are its cost). */
static void size_cost(struct an_finding *o, uint32_t lim, const char *v)
{
	uint64_t per = lim ? 1048576u / lim : 0;
	size_t n;

	o->cost_ops = lim && lim < 65536 ? o->count - o->count * lim / 65536
					 : 0;
	n = strnlen(v, sizeof(o->evidence) - 1);
	memcpy(o->evidence, v, n);
	o->evidence[n] = '\0';
	snprintf(o->evidence + n, sizeof(o->evidence) - n, "; at %u bytes a "
		 "MiB takes %" PRIu64 " %ss where 64 KiB takes 16: %" PRIu64
		 " of these %" PRIu64 " calls would not be needed", lim,
		 per, o->write ? "WRITE" : "READ", o->cost_ops, o->count);
}

static void find_pairs(struct an_find *f, const struct an_figs *figs)
{
	uint32_t k;

	for (k = 0; k < an_figs_npairs(figs); k++) {
		const struct an_pair *p = an_figs_pair(figs, k);
		const struct an_server *srv = an_figs_server_find(figs, &p->server);
		struct an_finding *o;
		int w;

		for (w = 0; w < 2; w++) {
			char v[AN_EVIDENCE_MAX];

			if ((w ? p->write.total + p->write_rep.total :
				 p->read.total + p->read_rep.total) == 0)
				continue;
			if (!an_size_verdict(p, srv, w, f->cfg.size_share, v,
					     sizeof(v)) ||
			    size_limit(p, srv, w) > f->cfg.size_small)
				continue;	/* as negotiated: a verdict */
			if ((o = emit(f, AN_F_SIZE_CAPPED)) == NULL)
				return;
			o->have_client = o->have_server = true;
			o->write = w != 0;
			o->client = p->client;
			o->server = p->server;
			o->count = w ? p->write.total + p->write_rep.total :
				       p->read.total + p->read_rep.total;
			size_cost(o, size_limit(p, srv, w), v);
		}
		find_short_io(f, p, srv);
		find_sync(f, p);
	}
}

/* Verifiers among s's recorded changes that an earlier one had: the
 * server did not restart each time, several answer for its address. */
static uint32_t verf_returns(const struct an_server *s, uint32_t n)
{
	uint32_t i, j, back = 0;

	for (i = 0; i < n; i++)
		for (j = 0; j <= i; j++)
			if (memcmp(s->verf_changes[i].new_verf,
				   s->verf_changes[j].old_verf,
				   NFS_VERF_SIZE) == 0) {
				back++;
				break;
			}
	return back;
}

/* One finding per server whose write verifier changed: the first change,
 * and how many followed (one storm of changes, one finding). */
static void find_restarts(struct an_find *f, const struct an_figs *figs)
{
	uint32_t k, n;
	char a[64], more[256];

	for (k = 0; k < an_figs_nservers(figs); k++) {
		const struct an_server *s = an_figs_server(figs, k);
		const struct an_verf_change *c = &s->verf_changes[0];
		struct an_finding *o;

		if (s->nverf_changes == 0)
			continue;
		n = s->nverf_changes < AN_VERF_CHANGES_MAX ? s->nverf_changes :
			AN_VERF_CHANGES_MAX;
		if ((o = emit(f, AN_F_SERVER_RESTART)) == NULL)
			return;
		o->have_server = true;
		o->server = s->addr;
		o->start_ns = c->ts_ns;
		o->end_ns = s->verf_changes[n - 1].ts_ns;
		o->count = s->nverf_changes;
		more[0] = '\0';
		if (n > 1 && verf_returns(s, n))
			snprintf(more, sizeof(more), "; %u of the first %u "
				 "changes went back to an earlier verifier: "
				 "more than one server answers for this address "
				 "(a cluster or failover pair), not a restart "
				 "each time", verf_returns(s, n), n);
		snprintf(o->evidence, sizeof(o->evidence),
			 "server %s: write verifier %02x%02x%02x%02x"
			 "%02x%02x%02x%02x -> %02x%02x%02x%02x%02x%02x"
			 "%02x%02x in frame %" PRIu64 " (%u change%s in "
			 "all)%s", astr(&s->addr, a),
			 c->old_verf[0], c->old_verf[1], c->old_verf[2],
			 c->old_verf[3], c->old_verf[4], c->old_verf[5],
			 c->old_verf[6], c->old_verf[7],
			 c->new_verf[0], c->new_verf[1], c->new_verf[2],
			 c->new_verf[3], c->new_verf[4], c->new_verf[5],
			 c->new_verf[6], c->new_verf[7], c->frame,
			 s->nverf_changes, s->nverf_changes == 1 ? "" : "s",
			 more);
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

	for (k = an_bit_next(f->noent_bits, NOENT_SLOTS, 0); k < NOENT_SLOTS;
	     k = an_bit_next(f->noent_bits, NOENT_SLOTS, k + 1)) {
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
		snprintf(o->name, sizeof(o->name), "%s", top[i]->name);
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

/* Client s's retransmitted ops over its pairs: per fact, per cause at
 * each pair's vantage point; *vp: the pairs' common one (AN_VP_N: they
 * differ). */
static void retrans_sum(const struct an_find *f, const struct subj *s,
			struct an_vantage_info *sum, enum an_vantage *vp)
{
	uint32_t k, i;
	bool any = false;

	memset(sum, 0, sizeof(*sum));
	*vp = AN_VP_UNKNOWN;
	for (k = an_bit_next(f->vp_bits, AN_FIND_PAIRS, 0); k < AN_FIND_PAIRS;
	     k = an_bit_next(f->vp_bits, AN_FIND_PAIRS, k + 1)) {
		const struct vpair *p = &f->vp[k];
		struct an_vantage_info v;
		uint64_t n = 0;

		if (!p->used || !cap_addr_eq(&p->client, &s->addr) ||
		    !an_find_vantage(f, &p->client, &p->server, &v))
			continue;
		for (i = 0; i < RX_F_N; i++) {
			sum->fact[i] += v.fact[i];
			n += v.fact[i];
		}
		for (i = 0; i < AN_RX_NCAUSES; i++)
			sum->cause[i] += v.cause[i];
		sum->short_to += v.short_to;
		if (n == 0)
			continue;
		*vp = any && *vp != v.vp ? AN_VP_N : v.vp;
		any = true;
	}
}

static void find_retrans(struct an_find *f, uint64_t ipfrag_incomplete)
{
	uint32_t k;
	char a[64];

	for (k = an_bit_next(f->subj_bits, AN_FIND_SUBJECTS, 0);
	     k < AN_FIND_SUBJECTS;
	     k = an_bit_next(f->subj_bits, AN_FIND_SUBJECTS, k + 1)) {
		const struct subj *s = &f->subj[k];
		struct an_finding *o;
		struct an_vantage_info v;
		enum an_vantage vp;
		const uint64_t *c = v.cause, *x = v.fact;

		if (!s->used || s->is_server || s->rx_ops == 0)
			continue;
		if (s->rx_ops < f->cfg.retrans_min &&
		    (double)s->rx_ops < f->cfg.retrans_share * (double)s->ops)
			continue;
		if ((o = emit(f, AN_F_RETRANSMITS)) == NULL)
			return;
		retrans_sum(f, s, &v, &vp);
		o->have_client = true;
		o->client = s->addr;
		o->start_ns = s->rx_first;
		o->end_ns = s->rx_last;
		o->count = s->rx_ops;
		o->meaning = an_find_rx_meaning(v.cause);
		snprintf(o->evidence, sizeof(o->evidence),
			 "%s: %" PRIu64 " of %" PRIu64 " ops retransmitted (%"
			 PRIu64 " retransmissions, first after %.3f..%.3f ms, "
			 "avg %.3f ms); seen from %s; causes: lost reply %"
			 PRIu64 ", lost call or reply %" PRIu64 ", slow server %"
			 PRIu64 ", client timeout under the server's usual "
			 "latency %" PRIu64 ", lost IP fragments %" PRIu64 " (%"
			 PRIu64 " incomplete trains), TCP reconnect %" PRIu64
			 ", never answered %" PRIu64 "; decided by: reply seen "
			 "before the resend %" PRIu64 ", duplicate replies %"
			 PRIu64 ", reply long after the resend %" PRIu64 " (%"
			 PRIu64 " of these two resent sooner than the usual "
			 "latency), answer at once to the resend %" PRIu64
			 ", fragmented %" PRIu64 ", TCP %" PRIu64 ", no reply %"
			 PRIu64 "%s",
			 astr(&s->addr, a), s->rx_ops, s->ops, s->rx,
			 (double)s->ivl_min / 1e6, (double)s->ivl_max / 1e6,
			 s->ivl_sum / (double)s->rx_ops / 1e6,
			 vp == AN_VP_N ? "several points (see the vantage "
			 "lines)" : an_vantage_name(vp),
			 c[AN_RX_LOST_REPLY], c[AN_RX_LOST], c[AN_RX_SLOW],
			 c[AN_RX_SHORT_TIMEOUT], c[AN_RX_FRAG],
			 ipfrag_incomplete, c[AN_RX_TCP], c[AN_RX_NOREPLY],
			 x[RX_F_REPLY_FIRST], x[RX_F_DUP], x[RX_F_LATE],
			 v.short_to, x[RX_F_QUICK], x[RX_F_FRAG], x[RX_F_TCP],
			 x[RX_F_NOREPLY], vp == AN_VP_SERVER ?
			 "; a call lost on the way here is not seen at the "
			 "server side (only its resend, as a first call)" : "");
	}
}

/* Do storm findings a and b name one storm: the same kind and client,
 * their spans touching? */
static bool same_storm(const struct an_finding *a, const struct an_finding *b)
{
	return a->kind == b->kind && a->kind == AN_F_COMMIT_STORM &&
	       a->have_client && b->have_client &&
	       cap_addr_eq(&a->client, &b->client) &&
	       a->start_ns <= b->end_ns && b->start_ns <= a->end_ns;
}

/* One storm, one finding: a COMMIT phase and a COMMIT rate storm over the
 * same time are merged into the one with more COMMITs, over both spans. */
static void merge_storms(struct an_find *f)
{
	size_t i, j, n;

	for (i = 0; i < f->nout; i++)
		for (j = i + 1; j < f->nout; j++) {
			struct an_finding *a = &f->out[i], *b = &f->out[j];

			if (!same_storm(a, b))
				continue;
			if (b->count > a->count) {
				struct an_finding t = *a;

				*a = *b;
				*b = t;
			}
			if (b->start_ns < a->start_ns)
				a->start_ns = b->start_ns;
			if (b->end_ns > a->end_ns)
				a->end_ns = b->end_ns;
			if (b->peak_rate > a->peak_rate)
				a->peak_rate = b->peak_rate;
			n = strnlen(a->evidence, sizeof(a->evidence));
			snprintf(a->evidence + n, sizeof(a->evidence) - n,
				 "; the same storm by the %s rule",
				 strstr(b->evidence, "a phase") ? "phase" :
				 "rate");
			memmove(b, b + 1, (f->nout - j - 1) * sizeof(*b));
			f->nout--;
			j--;
		}
}

void an_find_verdicts(struct an_find *f, const struct an_figs *figs,
		      uint64_t ipfrag_incomplete)
{
	merge_storms(f);
	find_noent(f);
	find_retrans(f, ipfrag_incomplete);
	an_tcp_health_findings(f);
	if (figs != NULL) {
		find_pairs(f, figs);
		find_restarts(f, figs);
	}
}
