/*
 * find_base.c - what the findings' detectors share (find_int.h): the
 * findings list (an_find_emit), what each kind means, the subjects table
 * (clients and servers by address) and the re-validation evidence.
 * find.c and the detectors (slow.c, storm.c, vantage.c, verdict.c) call
 * down into it; it calls none of them.
 */
#include "analyze/find_int.h"
#include "base/hash.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

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
	[AN_F_COMMIT_STORM] = "The client COMMITs after (nearly) every write "
		"(at a high rate, or in a phase of the run the evidence "
		"names): "
		"small rewrites with fsync/O_SYNC or close-to-open flushing "
		"make every write wait for the disk; check the application's "
		"sync pattern and the 'sync' mount option.",
	[AN_F_SIZE_CAPPED] = "The server's maximum transfer is small (the "
		"evidence gives it): every MiB takes many RPCs (8 KiB: 128 "
		"per MiB, where 64 KiB to 1 MiB is usual: 16 to 1), each a "
		"round trip; raise the export's limit (nfsd max_block_size, "
		"ganesha MaxRead/MaxWrite) and remount.",
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
	[AN_F_SHORT_IO] = "The server moves fewer bytes than the client asks: "
		"READ replies short of the count without EOF, WRITE replies "
		"granting less than was sent.  The client must send the rest "
		"again; the server clamps transfers (its rtmax/wtmax, or a "
		"per-transfer limit of its file system) below the client's "
		"rsize/wsize: lower the mount's rsize/wsize to what is "
		"granted, or raise the server's limit.",
	[AN_F_SLOW_SERVER] = "The server's own time is high (RPC latency "
		"less the network round trip, measured from TCP ACKs and "
		"handshakes): cheap operations (NULL, GETATTR, ACCESS, "
		"FSINFO) mean an overloaded server or nfsd thread pool; READ, "
		"WRITE and COMMIT alone mean its disk; check the server's "
		"load, threads and storage.",
	[AN_F_LATENCY_SHIFT] = "For a while replies took far longer than "
		"usual: a load spike, a backup or scrub, a failover or a "
		"network problem at that time; the evidence names the "
		"intervals and the procedures.",
	[AN_F_SYNC_CLIENT] = "The client itself asks for stable writes "
		"(FILE_SYNC or DATA_SYNC) for most WRITEs: every write waits "
		"for the server's disk.  The application opens with O_SYNC/"
		"O_DSYNC, the mount has the 'sync' option, or (Linux) each "
		"flush fits in one WRITE (small files written and closed); "
		"the export is not to blame (compare sync_export).",
	[AN_F_SLOW_PATH] = "The network path, not the server, takes the "
		"time: the round trip measured from TCP ACKs and handshakes "
		"is most of each RPC's latency; check the route, WAN or VPN "
		"hops, congested links or a shaping device between the "
		"ends.",
	[AN_F_TCP_LOSS] = "TCP segments are lost and sent again: each loss "
		"stalls the connection for a retransmission timeout or a "
		"round trip; check the link (errors, drops on switch ports, "
		"duplex, MTU) in the direction that loses.",
	[AN_F_TCP_RESET] = "Connections are reset or re-made and the "
		"client sends its outstanding calls again on the new one: "
		"find what closes them (a firewall or NAT idle timeout, a "
		"load balancer, the server restarting its threads or "
		"dropping idle clients).",
	[AN_F_TCP_STALL] = "Messages wait a fixed quantum: 40 ms is a "
		"delayed ACK against Nagle (a sender writing a message in "
		"pieces waits for the ACK of the first piece), 200 ms the "
		"minimum retransmission timeout; set TCP_NODELAY in the "
		"sender or write each message in one piece.",
};

struct an_finding *an_find_emit(struct an_find *f, enum an_find_kind k)
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

uint64_t an_find_addr_hash(const struct cap_addr *a, uint64_t h)
{
	unsigned i;

	for (i = 0; i < 16; i++)
		h = (h ^ a->a[i]) * BASE_FNV64_PRIME;
	return h ^ a->family;
}

const char *an_find_astr(const struct cap_addr *a, char *b)
{
	return cap_addr_str(a, b, 64);
}

/* ------------------------------------------------------- subjects -- */

/* The memo slot of (a, server): a word hash, cheap next to the byte-wise
 * FNV chain subj_get probes with (two per op, 16 dependent multiplies
 * each). */
static struct subj_memo *subj_memo_of(struct an_find *f,
				      const struct cap_addr *a, bool server)
{
	uint64_t w0, w1;

	memcpy(&w0, a->a, 8);
	memcpy(&w1, a->a + 8, 8);
	w0 = (w0 ^ (w1 * 0xff51afd7ed558ccdull) ^ a->family ^ server) *
	     0x9e3779b97f4a7c15ull;
	return &f->memo[w0 >> (64 - SUBJ_MEMO_BITS)];
}

static struct subj *subj_get(struct an_find *f, const struct cap_addr *a,
			     bool server)
{
	struct subj_memo *m = subj_memo_of(f, a, server);
	uint64_t h;
	uint32_t i, k;

	if (m->slot1 != 0 && m->is_server == server &&
	    cap_addr_eq(&m->addr, a))
		return &f->subj[m->slot1 - 1];
	h = an_find_addr_hash(a, server ? 3 : 5);
	for (k = 0; k < AN_FIND_SUBJECTS; k++) {
		i = (uint32_t)(h + k) % AN_FIND_SUBJECTS;
		if (!f->subj[i].used) {
			memset(&f->subj[i], 0, sizeof(f->subj[i]));
			f->subj[i].used = true;
			an_bit_set(f->subj_bits, i);
			f->subj[i].addr = *a;
			f->subj[i].is_server = server;
			break;
		}
		if (f->subj[i].is_server == server &&
		    cap_addr_eq(&f->subj[i].addr, a))
			break;
	}
	if (k == AN_FIND_SUBJECTS) {
		f->subj_dropped++;
		return NULL;
	}
	m->addr = *a;
	m->is_server = server;
	m->slot1 = i + 1;
	return &f->subj[i];
}

struct subj *an_find_subj(struct an_find *f, const struct cap_addr *a,
			  bool server, bool make)
{
	uint64_t h;
	uint32_t i, k;

	if (make)
		return subj_get(f, a, server);
	h = an_find_addr_hash(a, server ? 3 : 5);
	for (k = 0; k < AN_FIND_SUBJECTS; k++) {
		i = (uint32_t)(h + k) % AN_FIND_SUBJECTS;
		if (!f->subj[i].used)
			return NULL;
		if (f->subj[i].is_server == server &&
		    cap_addr_eq(&f->subj[i].addr, a))
			return &f->subj[i];
	}
	return NULL;
}

const char *an_find_meaning(enum an_find_kind k)
{
	return (unsigned)k < AN_F_NKINDS ? meanings[k] : "";
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

void an_find_reval_evidence(const struct an_find *f,
			    const struct cap_addr *client,
			    struct an_finding *o, size_t n)
{
	const struct reval *rv = reval_top(f, client);

	if (rv == NULL || rv->fast == 0 || n >= sizeof(o->evidence))
		return;
	o->have_fh = true;
	o->fh = rv->fh;
	memcpy(o->path, rv->path, sizeof(o->path));
	snprintf(o->evidence + n, sizeof(o->evidence) - n,
		 "; one handle%s%s re-validated %" PRIu64
		 " times within %u ms of the previous",
		 rv->path[0] ? " " : "", rv->path, rv->fast, f->cfg.reval_ms);
}
