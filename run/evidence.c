/* evidence.c - the frames of selected operations into a pcap (evidence.h). */
#include "run/evidence.h"
#include "base/grow.h"
#include "base/hash.h"
#include "base/units.h"
#include "run/evidence_int.h"
#include "run/run.h"

#include <errno.h>
#include <fcntl.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* The frames first..last that carried one message: of its IP fragment
 * train (frag; any_id: its id unknown) or its flow direction. */
struct ev_want {
	uint64_t first, last;
	struct cap_addr src, dst;
	uint8_t proto;
	bool frag, any_id;
	uint32_t id;
	uint16_t sport, dport;
};

/* A TCP flow direction's latest messages (pass 1): a kept record whose
 * first segment holds the end of earlier records needs them too, or no
 * reader finds where it starts.  Direct-mapped by flow; a collision
 * starts the slot over. */
#define EV_FLOWS 4096
#define EV_CHAIN 8
struct ev_flow {
	struct cap_addr src, dst;
	uint16_t sport, dport;
	uint32_t n;			/* messages in span (newest last) */
	bool kept[EV_CHAIN];
	uint64_t span[EV_CHAIN][2];	/* first, last frame */
};

struct run_evidence {
	struct run_ev_select sel;
	struct ev_flow *flows;		/* EV_FLOWS, pass 1 */
	bool any;			/* no criterion: every op offered */
	struct ev_op *ops;
	size_t nops, ops_cap;
	struct ev_want *want;
	size_t nwant, want_cap;
	struct run_ev_stats st;
	struct cap_ip_seen last_ip;	/* pass 1: the latest IP packet */
	/* pass 2 */
	const struct cap_pkt *pkt;	/* the frame being fed */
	uint64_t pkt_frame, written_frame;
	size_t next;			/* first want not yet active */
	size_t *active;			/* wants whose span is open */
	size_t nactive, active_cap;
	pcap_t *dead;
	pcap_dumper_t *dumper;
	int linktype;
	uint64_t other_link;
	bool failed;			/* out of memory: say so */
	/* live: the spool */
	bool live;
	bool spool_made;		/* created: ours to delete */
	bool spool_failed;		/* a write failed: frames lost */
	char spool_path[4096];		/* "" if OUT's is too long */
	pcap_t *spool_dead;
	pcap_dumper_t *spool;		/* open while the run reads */
	uint64_t spooled;		/* frames written to it */
};

int run_ev_select_parse(const char *arg, struct run_ev_select *s, char *err,
			size_t n)
{
	char buf[256], *save = NULL, *w;
	char *end;
	double ms;

	if (strlen(arg) >= sizeof(buf)) {
		snprintf(err, n, "--select too long");
		return -1;
	}
	memcpy(buf, arg, strlen(arg) + 1);
	for (w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if (strncasecmp(w, "slow:", 5) == 0) {
			ms = strtod(w + 5, &end);
			if (end == w + 5 || *end || !(ms >= 0 && ms < 1e9)) {
				snprintf(err, n, "bad --select '%s' (slow:MS, "
					 "MS in milliseconds)", w);
				return -1;
			}
			s->slow_ns = (int64_t)(ms * 1e6);
		} else if (strcasecmp(w, "errors") == 0) {
			s->errors = true;
		} else if (strcasecmp(w, "retrans") == 0) {
			s->retrans = true;
		} else if (strcasecmp(w, "unanswered") == 0) {
			s->unanswered = true;
		} else if (strcasecmp(w, "findings") == 0) {
			s->findings = true;
		} else {
			snprintf(err, n, "bad --select '%s' (slow:MS, errors, "
				 "retrans, unanswered, findings; "
				 "comma-separated)", w);
			return -1;
		}
	}
	return 0;
}

struct run_evidence *run_evidence_new(const struct run_ev_select *sel)
{
	struct run_evidence *ev = calloc(1, sizeof(*ev));

	if (ev == NULL)
		return NULL;
	ev->sel = *sel;
	ev->any = sel->slow_ns <= 0 && !sel->errors && !sel->retrans &&
		  !sel->unanswered && !sel->findings;
	ev->flows = calloc(EV_FLOWS, sizeof(*ev->flows));
	if (ev->flows == NULL) {
		free(ev);
		return NULL;
	}
	return ev;
}

static void spool_remove(struct run_evidence *ev);

void run_evidence_free(struct run_evidence *ev)
{
	if (ev == NULL)
		return;
	spool_remove(ev);
	free(ev->ops);
	free(ev->want);
	free(ev->active);
	free(ev->flows);
	free(ev);
}

static bool selected(const struct run_ev_select *s, const struct an_op *op)
{
	bool answered = op->flags & AN_OP_ANSWERED;

	if (s->slow_ns > 0 && answered && op->lat_first_ns > s->slow_ns)
		return true;
	if (s->errors && ((op->have & AN_HAVE_STATUS && op->status != 0) ||
			  (answered && (op->reply_stat || op->accept_stat))))
		return true;
	if (s->retrans && (op->retrans || op->dup_replies))
		return true;
	return s->unanswered && !answered &&
	       !(op->flags & AN_OP_CALL_NOT_SEEN);
}

static void sink_op(void *user, const struct an_op *op, int32_t rx)
{
	(void)rx;
	run_evidence_op(user, op);
}

void run_evidence_sink(struct run_evidence *ev, struct run_sinks *s)
{
	if (ev)
		run_sinks_add(s, &(struct run_sink){ .user = ev,
			      .op = sink_op });
}

void run_evidence_op(struct run_evidence *ev, const struct an_op *op)
{
	struct ev_op *o;
	int64_t to = op->last_call_ns;
	bool cand = false;

	if (!ev->any && !selected(&ev->sel, op)) {
		if (!ev->sel.findings || !ev_op_candidate(op))
			return;
		cand = true;
	}
	if (ev->nops >= RUN_EV_OPS_MAX ||
	    !base_grow(&ev->ops, &ev->ops_cap, ev->nops, sizeof(*o), 64)) {
		ev->st.ops_over++;
		return;
	}
	/* answered: duplicate replies and late retransmissions land on it
	 * for the engine's keep window after the reply */
	if (op->flags & AN_OP_ANSWERED)
		to = (op->reply_ns > to ? op->reply_ns : to) +
		     AN_ANSWERED_KEEP_NS;
	o = &ev->ops[ev->nops++];
	o->client = op->client;
	o->server = op->server;
	o->xid = op->xid;
	o->prog = op->prog;
	o->from_ns = op->first_call_ns;
	o->to_ns = to;
	ev_op_facts(o, op);
	if (cand) {
		o->bits |= EV_B_CAND;
		ev->st.candidates++;
	}
	ev->st.ops++;
}

/* A candidate that fits one of the findings stays; the others go. */
void run_evidence_findings(struct run_evidence *ev, const struct an_find *f,
			   uint32_t slow_ms)
{
	size_t n = an_find_count(f), i, k, j = 0;
	int64_t slow_ns = (int64_t)slow_ms * 1000000;

	if (!ev->sel.findings)
		return;
	ev->st.findings = n;
	for (i = 0; i < ev->nops; i++) {
		const struct ev_op *o = &ev->ops[i];
		bool keep = !(o->bits & EV_B_CAND);

		for (k = 0; !keep && k < n; k++)
			keep = ev_op_covered(o, an_find_get(f, k), slow_ns);
		if (!keep)
			continue;
		ev->ops[j++] = *o;
		ev->st.evidence += (o->bits & EV_B_CAND) != 0;
	}
	ev->nops = j;
	ev->st.ops = j;
}

static int cmp_op(const void *a, const void *b)
{
	const struct ev_op *x = a, *y = b;

	if (x->xid != y->xid)
		return x->xid < y->xid ? -1 : 1;
	return (x->from_ns > y->from_ns) - (x->from_ns < y->from_ns);
}

static int cmp_want(const void *a, const void *b)
{
	const struct ev_want *x = a, *y = b;

	return (x->first > y->first) - (x->first < y->first);
}

/* ------------------------------------------- pass 1: the messages -- */

/* Does a kept operation hold message (m, d)?  The skew a reply may have
 * before its call (decode.h) is allowed at the start. */
static bool kept(const struct run_evidence *ev, const struct cap_msg *m,
		 const struct dec_msg *d)
{
	bool call = d->rpc.msg_type == RPC_CALL;
	const struct cap_addr *cl = call ? &m->src : &m->dst;
	const struct cap_addr *sv = call ? &m->dst : &m->src;
	bool known = call || d->call_seen || d->by_shape;
	size_t lo = 0, hi = ev->nops;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ev->ops[mid].xid < d->rpc.xid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < ev->nops && ev->ops[lo].xid == d->rpc.xid; lo++) {
		const struct ev_op *o = &ev->ops[lo];

		if (m->ts_ns >= o->from_ns - 5000000 && m->ts_ns <= o->to_ns &&
		    cap_addr_eq(cl, &o->client) &&
		    cap_addr_eq(sv, &o->server) &&
		    (!known || d->prog == o->prog))
			return true;
	}
	return false;
}

static void on_ip_seen(void *user, const struct cap_ip_seen *s)
{
	struct run_evidence *ev = user;

	ev->last_ip = *s;
}

/* The frames first..last of m's flow direction (or fragment train). */
static void add_want(struct run_evidence *ev, const struct cap_msg *m,
		     uint64_t first, uint64_t last)
{
	struct ev_want *w;

	if (!base_grow(&ev->want, &ev->want_cap, ev->nwant, sizeof(*w), 64)) {
		ev->failed = true;
		return;
	}
	w = &ev->want[ev->nwant++];
	memset(w, 0, sizeof(*w));
	w->first = first;
	w->last = last;
	w->src = m->src;
	w->dst = m->dst;
	w->proto = m->transport;
	w->sport = m->sport;
	w->dport = m->dport;
	if (m->transport == CAP_UDP && (m->flags & CAP_MSG_IPFRAG)) {
		w->frag = true;
		/* delivered while its last fragment is fed, unless held */
		w->any_id = !(ev->last_ip.frame == m->frame &&
			      ev->last_ip.frag);
		w->id = ev->last_ip.id;
	}
}

/* A TCP message: remember it in its flow's chain; if kept, the earlier
 * records its first segment ends (and theirs, EV_CHAIN deep) are wanted. */
static void tcp_chain(struct run_evidence *ev, const struct cap_msg *m,
		      uint64_t first, bool keep)
{
	uint32_t h = cap_addr_fnv(cap_addr_fnv(BASE_FNV32_INIT, &m->src), &m->dst);
	struct ev_flow *f;
	uint64_t at = first;
	uint32_t i;

	h = (h ^ m->sport ^ (uint32_t)m->dport << 16) * BASE_FNV32_PRIME;
	f = &ev->flows[h % EV_FLOWS];
	if (f->n == 0 || f->sport != m->sport || f->dport != m->dport ||
	    !cap_addr_eq(&f->src, &m->src) || !cap_addr_eq(&f->dst, &m->dst)) {
		memset(f, 0, sizeof(*f));
		f->src = m->src;
		f->dst = m->dst;
		f->sport = m->sport;
		f->dport = m->dport;
	}
	for (i = f->n; keep && i-- > 0 && f->span[i][1] >= at;) {
		if (!f->kept[i])
			add_want(ev, m, f->span[i][0], f->span[i][1]);
		f->kept[i] = true;
		at = f->span[i][0];
	}
	if (f->n == EV_CHAIN) {
		memmove(f->span, f->span + 1, sizeof(f->span[0]) * (EV_CHAIN - 1));
		memmove(f->kept, f->kept + 1, sizeof(f->kept[0]) * (EV_CHAIN - 1));
		f->n--;
	}
	f->span[f->n][0] = first;
	f->span[f->n][1] = m->frame;
	f->kept[f->n++] = keep;
}

static void on_msg(void *user, const struct cap_msg *m,
		   const struct dec_msg *d)
{
	struct run_evidence *ev = user;
	uint64_t first = m->first_frame ? m->first_frame : m->frame;
	bool keep = d != NULL && kept(ev, m, d);

	if (m->transport == CAP_TCP)
		tcp_chain(ev, m, first, keep);
	if (!keep)
		return;
	add_want(ev, m, first, m->frame);
	ev->st.msgs++;
}

/* ------------------------------------------- pass 2: the frames ----- */

static bool want_has(const struct ev_want *w, const struct cap_ip_seen *s)
{
	if (s->proto != w->proto || !cap_addr_eq(&s->src, &w->src) ||
	    !cap_addr_eq(&s->dst, &w->dst))
		return false;
	if (s->frag)
		return w->frag && (w->any_id || s->id == w->id);
	return s->sport == w->sport && s->dport == w->dport;
}

static void on_frame(void *user, uint64_t frame, const struct cap_pkt *pkt)
{
	struct run_evidence *ev = user;

	ev->pkt = pkt;
	ev->pkt_frame = frame;
}

/* One frame into d (opened with nanosecond precision). */
static void dump_frame(pcap_dumper_t *d, const struct cap_pkt *pkt)
{
	struct pcap_pkthdr h;

	memset(&h, 0, sizeof(h));
	h.ts.tv_sec = (time_t)(pkt->ts_ns / NSEC_PER_SEC);
	h.ts.tv_usec = (suseconds_t)(pkt->ts_ns % NSEC_PER_SEC);	/* ns */
	h.caplen = pkt->caplen;
	h.len = pkt->len;
	pcap_dump((u_char *)d, &h, pkt->data);
}

static void write_pkt(struct run_evidence *ev, const struct cap_pkt *pkt)
{
	if (pkt->linktype != ev->linktype) {
		ev->other_link++;
		return;
	}
	dump_frame(ev->dumper, pkt);
	ev->st.frames++;
}

/* The wants whose span holds frame f become active; closed ones go. */
static void advance(struct run_evidence *ev, uint64_t f)
{
	size_t i, k = 0;

	for (i = 0; i < ev->nactive; i++)
		if (ev->want[ev->active[i]].last >= f)
			ev->active[k++] = ev->active[i];
	ev->nactive = k;
	while (ev->next < ev->nwant && ev->want[ev->next].first <= f) {
		if (ev->want[ev->next].last >= f) {
			if (!base_grow(&ev->active, &ev->active_cap,
				         ev->nactive, sizeof(*ev->active), 64)) {
				ev->failed = true;
				return;
			}
			ev->active[ev->nactive++] = ev->next;
		}
		ev->next++;
	}
}

static void on_ip_write(void *user, const struct cap_ip_seen *s)
{
	struct run_evidence *ev = user;
	size_t i;

	if (s->frame != ev->pkt_frame || s->frame == ev->written_frame)
		return;
	advance(ev, s->frame);
	for (i = 0; i < ev->nactive; i++)
		if (want_has(&ev->want[ev->active[i]], s)) {
			write_pkt(ev, ev->pkt);
			ev->written_frame = s->frame;
			return;
		}
}

/* ------------------------------------------------ live: the spool -- */

/* The live run's frame tap (capture thread): each frame into the spool;
 * after a failed write, no more (said at the end). */
static void on_spool(void *user, uint64_t frame, const struct cap_pkt *pkt)
{
	struct run_evidence *ev = user;

	(void)frame;
	if (ev->spool == NULL || ev->spool_failed)
		return;
	dump_frame(ev->spool, pkt);
	if (ferror(pcap_dump_file(ev->spool)))
		ev->spool_failed = true;
	else
		ev->spooled++;
}

void run_evidence_live(struct run_evidence *ev, struct run_config *c,
		       const char *out)
{
	int n;

	if (ev == NULL || c->iface == NULL)
		return;
	ev->live = true;
	n = snprintf(ev->spool_path, sizeof(ev->spool_path), "%s.spool", out);
	if (n < 0 || (size_t)n >= sizeof(ev->spool_path))
		ev->spool_path[0] = '\0';	/* run_evidence_spool says so */
	c->cap.frame_tap = on_spool;
	c->cap.tap_user = ev;
}

/* The spool, made anew: O_EXCL | O_NOFOLLOW, never a file or a link
 * already there (its owner's only: it holds every frame).  NULL: errno. */
static pcap_dumper_t *spool_open(struct run_evidence *ev)
{
	int fd = open(ev->spool_path, O_WRONLY | O_CREAT | O_EXCL |
		      O_NOFOLLOW | O_CLOEXEC, 0600);
	pcap_dumper_t *d;
	FILE *f;

	if (fd < 0)
		return NULL;
	ev->spool_made = true;
	if ((f = fdopen(fd, "w")) == NULL) {
		(void)close(fd);
		return NULL;
	}
	if ((d = pcap_dump_fopen(ev->spool_dead, f)) == NULL) {
		(void)fclose(f);
		errno = EIO;
	}
	return d;
}

int run_evidence_spool(struct run_evidence *ev, const struct cap_source *src,
		       const char *who)
{
	int snap;

	if (ev == NULL || !ev->live)
		return 0;	/* files: nothing to spool */
	if (!ev->spool_path[0]) {
		fprintf(stderr, "nfscope %s: --write-pcap: the path is too "
			"long for its live spool\n", who);
		return -1;
	}
	snap = cap_source_snaplen(src);
	ev->spool_dead = pcap_open_dead_with_tstamp_precision(
		cap_source_linktype(src), snap > 0 ? snap : CAP_DEFAULT_SNAPLEN,
		PCAP_TSTAMP_PRECISION_NANO);
	errno = ENOMEM;
	ev->spool = ev->spool_dead ? spool_open(ev) : NULL;
	if (ev->spool == NULL) {
		fprintf(stderr, "nfscope %s: --write-pcap: cannot create the "
			"live spool %s (every captured frame is kept there "
			"until the end): %s\n", who, ev->spool_path,
			strerror(errno));
		return -1;
	}
	return 0;
}

static void spool_close(struct run_evidence *ev)
{
	if (ev->spool)
		pcap_dump_close(ev->spool);
	if (ev->spool_dead)
		pcap_close(ev->spool_dead);
	ev->spool = NULL;
	ev->spool_dead = NULL;
}

/* Closed and deleted, if this run made it. */
static void spool_remove(struct run_evidence *ev)
{
	spool_close(ev);
	if (ev->spool_made)
		(void)unlink(ev->spool_path);
	ev->spool_made = false;
}

/* The spool's writing is done: flush and close it; false if a write
 * failed (said on stderr). */
static bool spool_end(struct run_evidence *ev, const char *who)
{
	bool ok;

	if (ev->spool == NULL)
		return true;
	ok = pcap_dump_flush(ev->spool) == 0 && !ev->spool_failed &&
	     !ferror(pcap_dump_file(ev->spool));
	spool_close(ev);
	if (!ok)
		fprintf(stderr, "nfscope %s: --write-pcap: writing the live "
			"spool %s failed after %llu frames (disk full?): the "
			"evidence is looked for in those only\n", who,
			ev->spool_path, (unsigned long long)ev->spooled);
	return ok;
}

/* ------------------------------------------------------- the passes -- */

static int pass(struct run_evidence *ev, const struct run_config *c,
		FILE *out, const char *path, uint64_t frames)
{
	struct run_config rc = *c;
	struct run_hooks h = { .user = ev };
	const char *spool[1] = { ev->spool_path };
	struct run *r;
	bool write = out != NULL;
	int ret;

	if (ev->live) {		/* the spool holds the frames */
		rc.files = spool;
		rc.nfiles = 1;
		rc.iface = NULL;
		rc.cap.filter = NULL;	/* they passed it */
		rc.cap.duration_ns = 0;
	}
	rc.cap.count = frames;		/* the run's: where it stopped */
	rc.analyze = false;
	rc.ops_sync = false;
	rc.progress = false;
	rc.user = NULL;		/* -Z was done by the first run */
	rc.store_path = NULL;
	rc.cap.tap_user = ev;
	rc.cap.frame_tap = write ? on_frame : NULL;
	rc.cap.ip_tap = write ? on_ip_write : on_ip_seen;
	h.msg = write ? NULL : on_msg;
	if (run_open(&r, &rc) < 0)
		return -1;
	if (write) {
		struct cap_source *src = run_source(r);
		int snap = cap_source_snaplen(src);

		ev->linktype = cap_source_linktype(src);
		ev->dead = pcap_open_dead_with_tstamp_precision(ev->linktype,
			snap > 0 ? snap : CAP_DEFAULT_SNAPLEN,
			PCAP_TSTAMP_PRECISION_NANO);
		/* pcap_dump_fopen writes the header and hands out as the
		   dumper: flushed, never closed here (the caller's) */
		ev->dumper = ev->dead ? pcap_dump_fopen(ev->dead, out) : NULL;
		if (ev->dumper == NULL) {
			fprintf(stderr, "nfscope %s: --write-pcap %s: %s\n",
				c->who, path, ev->dead ? pcap_geterr(ev->dead) :
				"out of memory");
			if (ev->dead)
				pcap_close(ev->dead);
			run_free(r);
			return -1;
		}
	}
	ret = (write && ev->nwant == 0) ? 0 : run_go(r, &h);
	run_free(r);
	return ret < 0 ? -1 : 0;
}

/* A second SIGINT/SIGTERM (the first ended the run) stopped a pass. */
static bool stopped(const struct run_config *c, const char *path, bool done)
{
	if (!run_stop)
		return false;
	fprintf(stderr, "nfscope %s: --write-pcap %s: interrupted: %s\n",
		c->who, path, done ? "it holds the frames found before the "
		"signal only" : "not written");
	return true;
}

int run_evidence_write(struct run_evidence *ev, const struct run_config *c,
		       FILE *out, const char *path, uint64_t frames,
		       struct run_ev_stats *st)
{
	int rc = -1;

	*st = ev->st;
	if (!spool_end(ev, c->who) && (frames == 0 || frames > ev->spooled))
		frames = ev->spooled;
	run_stop = 0;	/* the stop that ended the run is spent */
	if (ev->nops) {		/* none: no array (qsort wants one) */
		qsort(ev->ops, ev->nops, sizeof(*ev->ops), cmp_op);
		if (pass(ev, c, NULL, path, frames) < 0)
			return -1;
	}
	if (stopped(c, path, false))
		return -1;
	if (ev->nwant)
		qsort(ev->want, ev->nwant, sizeof(*ev->want), cmp_want);
	if (!ev->failed && pass(ev, c, out, path, frames) == 0)
		rc = 0;
	if (rc == 0 && stopped(c, path, true))
		rc = -1;
	if (ev->dumper) {
		if (pcap_dump_flush(ev->dumper) != 0 || ferror(out)) {
			fprintf(stderr, "nfscope %s: --write-pcap %s: write "
				"error: %s\n", c->who, path, strerror(errno));
			rc = -1;
		}
		pcap_close(ev->dead);
		ev->dumper = NULL;
	}
	if (ev->failed) {
		fprintf(stderr, "nfscope %s: --write-pcap: out of memory\n",
			c->who);
		rc = -1;
	}
	spool_remove(ev);
	if (ev->other_link)
		fprintf(stderr, "nfscope %s: --write-pcap: %llu frames of "
			"another link type than the first file's not "
			"written\n", c->who, (unsigned long long)ev->other_link);
	*st = ev->st;
	return rc;
}
