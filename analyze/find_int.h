/*
 * find_int.h - internal to analyze/find.c (detectors: per-op rate, repeat
 * and retransmit bookkeeping), find_base.c (what they all share) and
 * analyze/verdict.c (size verdicts and the
 * end-of-input findings from figures and the detectors' tables).  Not a
 * public header: other modules include analyze/find.h only.
 */
#ifndef NFSCOPE_AN_FIND_INT_H
#define NFSCOPE_AN_FIND_INT_H

#include "analyze/find.h"

#define RING 64
#define REVAL_SLOTS 8192
#define NOENT_SLOTS 4096
#define NOENT_NAME 64

enum {	/* error-burst detectors per server (one-second ring) */
	D_JUKEBOX, D_STALE, D_ACCES, D_NOSPC, D_N
};

#define NFS3ERR_ACCES 13
#define NFS3ERR_NOSPC 28
#define NFS3ERR_NOENT 2
#define NFS3ERR_STALE 70
#define NFS3ERR_JUKEBOX 10008

struct run {
	bool active;
	int64_t start, last_hot;
	uint64_t count;
	uint32_t peak;
};

/*
 * Storm windows (clients): ops counted in 10 ms buckets of their first
 * call, with the first and last event of each timed count (microseconds
 * into the bucket).  A bucket closes SB_HOR buckets after the newest one
 * (the engine delivers ops a little out of order); a window is the
 * storm_window_ms of buckets ending at the bucket that closes.  See the
 * rule in find.h.
 */
#define SB_NS 10000000ll	/* bucket: 10 ms */
#define SB_RING 512		/* buckets kept (5.12 s) */
#define SB_HOR 256		/* a bucket closes 2.56 s after the newest */
#define SB_WIN_MAX 250		/* longest window (2.5 s), buckets */

enum {	/* counts per bucket; the first C_TIMED have event times */
	C_GETATTR, C_ACCESS, C_LOOKUP, C_COMMIT, C_TIMED,
	C_WRITE = C_TIMED, C_TOTAL, C_N
};

enum {	/* storm runs per client: rate storms, then COMMIT phases */
	R_GETATTR, R_ACCESS, R_LOOKUP, R_COMMIT, R_PHASE, R_N
};

struct sbucket {
	uint32_t n[C_N];
	uint16_t first_us[C_TIMED], last_us[C_TIMED];
};

struct srun {
	bool active;
	int64_t first_b, last_hot, last_dense;	/* bucket numbers */
	uint16_t first_us, last_us;	/* first, last event in those */
	uint64_t n, writes, total;	/* up to last_dense */
	uint64_t pn, pwrites, ptotal;	/* after last_dense */
	uint32_t peak;			/* most in one window */
	/* COMMIT phases: the run up to the last dense bucket at which the
	 * phase as a whole still held commit_per_write (a lone COMMIT after
	 * a bulk write, within commit_gap_s, must not swallow the phase) */
	uint64_t ok_n, ok_writes;
	int64_t ok_last_dense;
	uint16_t ok_last_us;
};

struct storms {
	int64_t head;			/* newest bucket */
	uint32_t wsum[C_N];		/* the window ending at the last closed */
	uint32_t nactive;		/* runs active */
	uint64_t commits, writes;	/* whole run so far */
	struct srun run[R_N];
	struct sbucket b[SB_RING];
};

/*
 * Latency (servers): cheap ops (NULL, GETATTR, ACCESS, FSINFO) over and
 * under slow_ms, for the server (from the last transmission) and, in the
 * client's subject, for its view of each server (from the first); all
 * answered ops in intervals of
 * shift_interval_s (a histogram for the current and the previous one),
 * each closed interval kept as its p99, op count and each procedure's
 * slowest op.
 */
#define LAT_CHEAP 4
#define LAT_VIEWS 4		/* servers per client (more: counted) */
#define LAT_PROCS 22		/* NFSv3 procedures */
#define LAT_RECS_MAX 16384	/* intervals kept per server */

struct lat_view {		/* a client's view of a server */
	struct cap_addr server;
	uint64_t n, over;
};

struct lat_ivl {
	int64_t k;			/* interval number */
	struct hist lat;
	uint32_t max_us[LAT_PROCS];
};

struct lat_rec {
	int64_t k;
	uint64_t n, p99;
	uint32_t max_us[LAT_PROCS];
};

#define LAT_CONNS 8		/* connections a server's replies are
				   followed on (more: the oldest goes) */
struct lat_conn {		/* where the last reply on one ended */
	struct cap_addr client;
	uint16_t client_port, server_port;
	bool used;
	int64_t end_ns;
};

struct lat {
	uint64_t cheap_n[LAT_CHEAP], cheap_over[LAT_CHEAP];
	/* per procedure ([0] NFSv3, [1] NFSv2): answered ops, and those whose
	   reply ended over slow_ms after the server was free to answer: after
	   the call's last segment, or the end of the reply before it on the
	   connection when later (a server answers a connection's calls in
	   turn: time spent on the calls ahead is theirs) */
	uint32_t free_n[2][LAT_PROCS], free_over[2][LAT_PROCS];
	/* the calls' time from their last segment to their reply's end, and
	   the part of it they waited for the reply ahead to end, ns */
	double wait_ns, queued_ns;
	struct lat_conn conn[LAT_CONNS];
	uint32_t conn_next;
	int64_t ivl_k, ivl_lo, ivl_hi;	/* the last op's interval */
	bool started;
	struct lat_ivl cur, prev;
	struct lat_rec *rec;		/* owned */
	uint32_t nrec, caprec;
	uint64_t rec_dropped;
};

struct subj {
	struct cap_addr addr;
	bool used, is_server, started;
	int64_t head;			/* newest second in the ring */
	uint32_t ring[RING][D_N];	/* servers: errors per second */
	struct run run[D_N];
	struct storms *st;		/* clients: owned, made at first op */
	struct lat *lat;		/* servers: owned, made at first op */
	struct lat_view view[LAT_VIEWS];	/* clients: cheap ops */
	uint32_t nview, last_view;
	uint64_t views_dropped;
	struct usual *usual;		/* servers: owned, latency per
					   procedure (vantage.c) */
	/* retransmit causes (clients) */
	uint64_t ops, rx_ops, rx;
	int64_t rx_first, rx_last, ivl_min, ivl_max;
	double ivl_sum;
};

/* A client/server pair's vantage evidence (vantage.c): its handshakes and
 * its retransmitted ops per fact, [1]: the client's first resend came
 * sooner than the server's usual latency. */
struct vpair {
	struct cap_addr client, server;
	bool used;
	uint32_t hs_n;
	int64_t hs_syn_min_ns, hs_ack_min_ns, hs_syn_sum_ns, hs_ack_sum_ns;
	uint32_t srv_n, cli_n;		/* ACK timing (struct cap_handshake) */
	int64_t srv_min_ns, cli_min_ns;
	uint64_t segs[2], resent[2], dupack_loss[2], zero_win[2], rsts[2];	/* health */
	uint64_t stalls40[2], stalls200[2];
	int64_t stall_seg_ns[2];
	/* TCP ops (tcp_stall): answered, and those whose latency sat at
	   40 ms */
	/* the vantage point resolved over the capture's pairs, kept once
	   the input has ended (an_find_finish): it no longer changes */
	bool vp_kept;
	uint8_t vp_final;
	const char *vp_why;
	uint64_t tcp_ops, lat_40;
	uint64_t fact[RX_F_N][2];
	uint64_t reconnect;		/* TCP calls sent again from another
					   port: on a new connection */
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

/* subj_get's memo: an address and role -> its subject (slot + 1; 0:
 * empty).  Subjects are never freed, so a memo entry stays true. */
#define SUBJ_MEMO_BITS 8
#define SUBJ_MEMO (1u << SUBJ_MEMO_BITS)

struct subj_memo {
	struct cap_addr addr;
	bool is_server;
	uint32_t slot1;
};

/* Slots taken, one bit each (subjects, ENOENT slots, vantage pairs): the
 * end-of-input scans and an_find_free walk the slots taken, in slot
 * order, not every page of the tables. */
#define AN_BITS(n) (((n) + 63) / 64)

static inline void an_bit_set(uint64_t *b, uint32_t k)
{
	b[k / 64] |= 1ull << (k % 64);
}

/* The first slot at or after k whose bit is set; n if none. */
static inline uint32_t an_bit_next(const uint64_t *b, uint32_t n, uint32_t k)
{
	while (k < n) {
		uint64_t w = b[k / 64] >> (k % 64);

		if (w != 0) {
			k += (uint32_t)__builtin_ctzll(w);
			return k < n ? k : n;
		}
		k = (k / 64 + 1) * 64;
	}
	return n;
}

struct an_find {
	struct an_find_config cfg;
	struct subj subj[AN_FIND_SUBJECTS];
	uint64_t subj_bits[AN_BITS(AN_FIND_SUBJECTS)];
	uint64_t noent_bits[AN_BITS(NOENT_SLOTS)];
	uint64_t vp_bits[AN_BITS(AN_FIND_PAIRS)];
	uint64_t subj_dropped;
	struct subj_memo memo[SUBJ_MEMO];
	struct reval *reval;
	struct noent *noent;
	struct vpair *vp;		/* AN_FIND_PAIRS, owned */
	uint64_t vp_dropped;
	struct an_finding *out;
	size_t nout;
	uint64_t dropped;
	uint32_t win_b;			/* storm window, buckets */
	uint32_t storm_need[R_PHASE];	/* calls that make a window hot */
	uint32_t nstorms;		/* storm rings made (AN_FIND_STORMS) */
	uint64_t storms_lost;		/* ops not followed: no storm or
					   latency memory */
	bool finished;			/* an_find_finish was called */
	struct an_v4find *v4;		/* NFSv4 detectors (find_nfs4.c),
					   owned, made at the first v4 op */
};

/* Was op sent again over TCP from another port: on a new connection (the
 * old one reset or dropped)?  Such calls are tcp_reset's, not
 * retransmits'. */
static inline bool an_op_reconnect(const struct an_op *op)
{
	return op->retrans && op->transport == CAP_TCP &&
	       (op->flags & AN_OP_PORT_CHANGED);
}

/* find_base.c, what find.c and the detectors share (it calls neither).
 * A new finding slot (NULL when AN_FIND_MAX are kept: counted dropped). */
struct an_finding *an_find_emit(struct an_find *f, enum an_find_kind k);
/* FNV-1a of an address onto h (subjects, re-validation and ENOENT slots). */
uint64_t an_find_addr_hash(const struct cap_addr *a, uint64_t h);
/* FNV-1a of a handle's bytes onto h; are two handles the same? */
uint64_t an_find_fh_hash(const struct nfs_fh *fh, uint64_t h);
bool an_find_fh_eq(const struct nfs_fh *a, const struct nfs_fh *b);
/* The static meaning of kind k. */
const char *an_find_meaning(enum an_find_kind k);
/* The retransmits finding's meaning for its causes (cause[AN_RX_NCAUSES]):
 * the next step of the cause that is most of them (the losses on the
 * network, lost calls, replies and fragments, as one), or the general
 * one. */
const char *an_find_rx_meaning(const uint64_t *cause);
/* Append to o->evidence (n bytes used) the handle client re-validated
 * most often within reval_ms, if any (GETATTR storms). */
void an_find_reval_evidence(const struct an_find *f,
			    const struct cap_addr *client,
			    struct an_finding *o, size_t n);
/* storm.c: the window and thresholds from f->cfg (at an_find_new); count
 * an op of client s (C_TOTAL, and kind c: C_* below it, or -1) at ns,
 * closing what ends; at end of input close everything; describe runs
 * going on. */
void an_storm_setup(struct an_find *f);
void an_storm_count(struct an_find *f, struct subj *s, int64_t ns, int c);
void an_storm_finish(struct an_find *f, struct subj *s);
size_t an_storm_ongoing(const struct an_find *f, const struct subj *s,
			struct an_finding *out, size_t max);
/* slow.c: an answered NFS op of server s; at end of input the slow
 * server and latency shift findings; free s's latency memory. */
void an_slow_add(struct an_find *f, struct subj *s, struct subj *client,
		 const struct an_op *op);
void an_slow_finish(struct an_find *f, const struct an_figs *figs);
void an_slow_free(struct subj *s);
/* find_base.c: address text into b (64 bytes). */
const char *an_find_astr(const struct cap_addr *a, char *b);
/* find_base.c: the subject of address a in its role; make: create it if
 * new (NULL when the table is full or, without make, a is unknown). */
struct subj *an_find_subj(struct an_find *f, const struct cap_addr *a,
			  bool server, bool make);
/* vantage.c: count a retransmitted op in its pair (its rx key, or -1
 * when the pair table is full); a server's answered op in its usual
 * latency; free that. */
int32_t an_vantage_retrans(struct an_find *f, const struct an_op *op);
void an_usual_add(struct subj *s, const struct an_op *op);
void an_usual_free(struct subj *s);
/* vantage.c: pair (client, server)'s slot, made if new (NULL: full). */
struct vpair *an_vantage_pair(struct an_find *f, const struct cap_addr *c,
			      const struct cap_addr *s);
/* tcphealth.c: an answered op's TCP stalls; at end of input the TCP
 * findings; does a 40 ms stall explain server s's latency? */
void an_tcp_stall_add(struct an_find *f, const struct an_op *op);
void an_tcp_health_findings(struct an_find *f);
bool an_tcp_stall_explains(const struct an_find *f,
			   const struct cap_addr *server);
/* find_nfs4.c: an NFSv4 op (a COMPOUND's or a CB_COMPOUND's) into the
 * session, delegation and lock detectors; at end of input their
 * findings; free their memory. */
void an_nfs4_add(struct an_find *f, const struct an_op *op);
void an_nfs4_finish(struct an_find *f);
void an_nfs4_free(struct an_find *f);
/* End of input, after the rate runs are closed: NOENT repeats, retransmit
 * causes, size caps, sync exports, COMMIT ratio, verifier changes. */
void an_find_verdicts(struct an_find *f, const struct an_figs *figs,
		      uint64_t ipfrag_incomplete);

#endif
