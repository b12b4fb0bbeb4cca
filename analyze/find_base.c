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
	[AN_F_NFS4_DELAY] = "The server answers NFS4ERR_DELAY: it cannot "
		"serve the request now (a delegation being recalled, a file "
		"offline, a busy or recovering server) and the client waits "
		"and sends it again, from 100 ms to 15 s each time; the "
		"evidence names the operations and the wait; look for "
		"conflicting opens of delegated files (deleg_recall) and the "
		"server's load.",
	[AN_F_NFS4_GRACE] = "The server is in its grace period after a "
		"restart: it refuses new OPENs and LOCKs (NFS4ERR_GRACE) "
		"while clients reclaim their state, 90 s by default; "
		"shorten the grace period (nfsd grace time, ganesha "
		"Grace_Period) if clients wait long, and find why the server "
		"restarted.",
	[AN_F_SESSION_LOST] = "The server no longer knows the client's "
		"session (NFS4ERR_BADSESSION, DEADSESSION): it restarted, "
		"expired the lease or destroyed the session; every call "
		"fails until the client makes a new session (CREATE_SESSION) "
		"and reclaims its state; check the server's restarts and the "
		"client's lease renewal.",
	[AN_F_SEQ_MISORDERED] = "Calls on a session slot carry a sequence "
		"id the server does not expect (NFS4ERR_SEQ_MISORDERED): the "
		"client and server lost step on the slot (a retransmission "
		"after the server dropped the slot's reply, or a client bug); "
		"the calls fail and the client must reset the session; "
		"update the client or server.",
	[AN_F_STALE_CLIENTID] = "The server does not know the client id "
		"(NFS4ERR_STALE_CLIENTID): it restarted and lost its state, "
		"or expired the client's lease; the client must establish "
		"itself again (EXCHANGE_ID or SETCLIENTID) and reclaim its "
		"opens and locks; find why the server restarted or the lease "
		"lapsed.",
	[AN_F_SESSION_REPLAY] = "The client sent calls again on the same "
		"session slot and sequence id under a new XID: after a new "
		"connection (the old one broke: RFC 8881 requires the "
		"resend there) or on the same connection (the client's "
		"timer: NFSv4.1 over TCP should not); the server answers "
		"from its reply cache.  See the evidence for which and check "
		"the connection's health (tcp_reset, tcp_loss).",
	[AN_F_DELEG_RECALL] = "The server recalls delegations (CB_RECALL on "
		"the back channel) because another client or process opens "
		"the file in a conflicting way; the opener waits (its OPEN "
		"gets NFS4ERR_DELAY) until the holder returns it "
		"(DELEGRETURN).  Files shared for writing between clients "
		"should not be delegated: disable delegations for them "
		"(nfsd leases, ganesha Delegations) or keep the writers on "
		"one client.",
	[AN_F_LOCK_CONTENTION] = "Clients ask for locks another owner holds "
		"(LOCK/LOCKT answered NFS4ERR_DENIED) and poll until it is "
		"released: NFSv4 has no lock callback before 4.1's "
		"CB_NOTIFY_LOCK, so each waiter retries at intervals; the "
		"evidence names the file and how long they waited; check "
		"the application's locking (lock held too long, many "
		"workers on one lock file).",
};

/* The retransmits finding's meaning when one cause is most of them: the
 * next step that fits it. */
static const char *const rx_meanings[AN_RX_NCAUSES] = {
	[AN_RX_NOREPLY] = "The client retransmitted calls, most of them "
		"never answered: the server did not respond (down, hung, "
		"overloaded, or a firewall drops its replies); check that it "
		"serves this client and its logs.",
	[AN_RX_SLOW] = "The client retransmitted calls, most because the "
		"server answered after the client's timeout (the reply came "
		"after the resend, or twice): the server is slow (see the "
		"time line and slow_server); fix its load, and over UDP raise "
		"timeo or mount with proto=tcp.",
	[AN_RX_LOST] = "The client retransmitted calls, most because a call "
		"or its reply was lost on the network: find the drops "
		"(netstat -su on both ends, switch port counters); over UDP "
		"mount with proto=tcp, which recovers a loss in a round trip, "
		"not a client timeout.",
	[AN_RX_FRAG] = "The client retransmitted calls, most because a call "
		"or its reply was lost on the network, many of them large UDP "
		"messages sent in IP fragments (one lost fragment loses the "
		"whole datagram): mount with proto=tcp, or lower rsize/wsize "
		"so each message fits the MTU; find the drops (netstat -su, "
		"reassembly failures in netstat -s, switch port counters).",
	[AN_RX_TCP] = "The client sent its calls again on a new TCP "
		"connection: find what closes the connections (see "
		"tcp_reset: a firewall or NAT idle timeout, a load balancer, "
		"the server dropping idle clients).",
	[AN_RX_LOST_REPLY] = "The client retransmitted calls, most because "
		"the server's reply was lost on its way to the client: find "
		"the drops on that direction (netstat -su on the client, "
		"switch port counters); over UDP mount with proto=tcp.",
	[AN_RX_SHORT_TIMEOUT] = "The client retransmitted calls sooner "
		"than this server usually answers: its timeout is too short "
		"(timeo, or a soft mount's retrans), not the server at "
		"fault; raise timeo, or mount with proto=tcp.",
};

/* Losses on the network are one family: which of a lost call and a lost
 * fragment of its reply (or of a fragmented call and its lost reply) it
 * was, one end of the link cannot always tell (find.h), and the next step
 * is the same; fragments in it are said. */
const char *an_find_rx_meaning(const uint64_t *cause)
{
	uint64_t sum = 0, top = 0, net = cause[AN_RX_LOST] +
		cause[AN_RX_FRAG] + cause[AN_RX_LOST_REPLY];
	int i, k = -1;

	for (i = 0; i < AN_RX_NCAUSES; i++) {
		sum += cause[i];
		if (cause[i] > top) {
			top = cause[i];
			k = i;
		}
	}
	if (net > 0 && 2 * net > sum)
		return rx_meanings[cause[AN_RX_FRAG] ? AN_RX_FRAG :
				   2 * cause[AN_RX_LOST_REPLY] > net ?
				   AN_RX_LOST_REPLY : AN_RX_LOST];
	return k >= 0 && 2 * top > sum ? rx_meanings[k] :
	       meanings[AN_F_RETRANSMITS];
}

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

uint64_t an_find_fh_hash(const struct nfs_fh *fh, uint64_t h)
{
	uint32_t i;

	for (i = 0; i < fh->len && i < NFS_FHSIZE_MAX; i++)
		h = (h ^ fh->data[i]) * BASE_FNV64_PRIME;
	return h;
}

bool an_find_fh_eq(const struct nfs_fh *a, const struct nfs_fh *b)
{
	return a->len == b->len && memcmp(a->data, b->data, a->len) == 0;
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
