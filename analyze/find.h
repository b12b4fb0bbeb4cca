/*
 * find.h - findings: detectors over operation records, with plain-language
 * verdicts.
 *
 * Purpose: turn operations and figures into the few statements an admin
 * needs: storms, capped transfer sizes, sync exports and clients, server restarts,
 * error bursts, retransmit causes.  Each finding carries kind, time span,
 * client/server (when one applies), handle and path (when one applies),
 * count, peak rate (per second), evidence and one sentence of meaning.
 *
 * Storms (clients; GETATTR, ACCESS, LOOKUP, COMMIT) are found on sliding
 * windows: ops are counted in 10 ms buckets of their first call (with the
 * first and last call's time in each, to the microsecond); a window is the
 * `storm_window_ms` ending at each bucket.  A window is hot when it holds
 * at least rate x window calls; hot windows no more than `storm_gap_s`
 * apart form one storm, which starts at the first call of its first
 * bucket at the rate (count x 100 >= rate: 10 ms at the rate) and ends at
 * the last call of its last such bucket.  Its rate is over that real span:
 * (calls - 1) / (last - first call); its length is the span plus one mean
 * interval.  It is reported when its rate reaches the threshold and it
 * covers `storm_min_s` of 10 ms buckets, or at any length when its rate reaches
 * `storm_burst` x the threshold; GETATTR/ACCESS/LOOKUP storms must also be
 * `storm_share` of the client's ops in the span.  A COMMIT phase is the
 * same over windows whose COMMITs reach `commit_per_write` x their WRITEs
 * (gap `commit_gap_s`), reported with `commit_min` COMMITs and that ratio
 * over the phase.  Buckets close 2.56 s after the newest (the engine
 * delivers answered ops a few seconds late); an op older than that counts
 * in the oldest open bucket.  Memory: ~20 KB per client, made when the
 * client is first seen.
 *
 * Latency (servers, analyze/slow.c): a server whose cheap ops (NULL,
 * GETATTR, ACCESS, FSINFO) have a median (server time) above `slow_ms`
 * over `slow_min` of them is slow; or one client's view of it (from its
 * first transmission).  Intervals of `shift_interval_s` whose p99 is
 * `shift_factor` x the baseline (the median of the intervals' p99) and
 * at least `shift_min_ms` are a latency shift (intervals of
 * `shift_min_ops` ops count; 3 of them make a baseline).
 *
 * Error bursts (servers) count errors per second in a 64-second ring: a
 * second with one is hot; hot seconds no more than `error_gap_s` apart
 * form a burst, reported with `error_min` errors.  Thresholds: struct
 * an_find_config; defaults in an_find_config_default() and documented in
 * doc/report.md.
 *
 * Ownership: caller owns struct an_find (an_find_new/an_find_free, free(NULL)
 * ok).  Findings are owned by it, valid until an_find_free.  Budgets: at most
 * AN_FIND_SUBJECTS clients+servers tracked, AN_FIND_MAX findings kept
 * (more are counted in `dropped`).
 *
 * Load: a few array updates per op; the repeat tables are fixed-size and
 * overwrite on collision (approximate counts, never allocation).
 */
#ifndef NFSCOPE_AN_FIND_H
#define NFSCOPE_AN_FIND_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/figs.h"
#include "analyze/ops.h"

#define AN_FIND_SUBJECTS 1024
#define AN_FIND_MAX 512
#define AN_FIND_STORMS 64	/* storm_clients' default */
#define AN_EVIDENCE_MAX 768
#define AN_FIND_PAIRS 1024	/* client/server pairs with vantage evidence */
#define AN_FIND_NAME_MAX 64

enum an_find_kind {
	AN_F_GETATTR_STORM, AN_F_ACCESS_STORM, AN_F_LOOKUP_STORM,
	AN_F_NOENT_REPEAT, AN_F_COMMIT_STORM, AN_F_SIZE_CAPPED,
	AN_F_SYNC_EXPORT, AN_F_SERVER_RESTART, AN_F_ERROR_BURST,
	AN_F_RETRANSMITS, AN_F_SHORT_IO, AN_F_SLOW_SERVER, AN_F_LATENCY_SHIFT,
	AN_F_SYNC_CLIENT, AN_F_SLOW_PATH, AN_F_TCP_LOSS, AN_F_TCP_RESET,
	AN_F_TCP_STALL,
	/* NFSv4 (analyze/find_nfs4.c) */
	AN_F_NFS4_DELAY, AN_F_NFS4_GRACE, AN_F_SESSION_LOST,
	AN_F_SEQ_MISORDERED, AN_F_STALE_CLIENTID, AN_F_SESSION_REPLAY,
	AN_F_DELEG_RECALL, AN_F_LOCK_CONTENTION,
	AN_F_NKINDS
};

struct an_finding {
	enum an_find_kind kind;
	int64_t start_ns, end_ns;
	bool have_client, have_server, have_fh;
	bool write;		/* size_capped: the WRITE verdict (else READ) */
	struct cap_addr client, server;
	struct nfs_fh fh;
	char path[AN_PATH_MAX];
	char name[AN_FIND_NAME_MAX];	/* noent_repeat: the name looked up
					   (its first 63 bytes); else "" */
	uint64_t count;
	double peak_rate;	/* per second; 0 if not a rate */
	double avg_rate;	/* per second over start..end; 0 if not a rate */
	char evidence[AN_EVIDENCE_MAX];
	const char *meaning;	/* static string: what it means, next step */
	/* what it costs (its impact, for the ranking; analyze/judge.h): the
	   clients' wait it explains (ns, summed over the ops), else the ops
	   it concerns; 0 and 0: not measured */
	double cost_ns;
	uint64_t cost_ops;
};

struct an_find_config {
	uint32_t getattr_rate;	/* GETATTR/s per client: 500 */
	uint32_t access_rate;	/* ACCESS/s per client: 500 */
	uint32_t lookup_rate;	/* LOOKUP/s per client: 500 */
	uint32_t storm_min_s;	/* seconds a storm lasts at least: 3 */
	uint32_t storm_gap_s;	/* quiet seconds allowed inside a storm: 1 */
	double storm_share;	/* the kind's share of the client's ops in
				   the storm: 0.5 */
	uint32_t storm_window_ms;	/* sliding window: 1000 ms */
	uint32_t storm_burst;	/* x the rate: a storm at any length: 10 */
	uint32_t reval_ms;	/* same handle again within this: 100 ms */
	uint32_t noent_repeat;	/* same (dir, name) NOENT lookups: 10 */
	uint32_t commit_rate;	/* COMMIT/s per client: 200 */
	double commit_per_write;	/* COMMITs per WRITE in a phase: 0.5 */
	uint32_t commit_min;	/* with at least this many COMMITs: 50 */
	uint32_t commit_gap_s;	/* quiet seconds inside a phase: 5 */
	uint32_t error_min;	/* errors of one kind in a burst: 5 */
	uint32_t error_gap_s;	/* quiet seconds inside a burst: 5 */
	double sync_share;	/* UNSTABLE asked, FILE_SYNC granted: 0.9 */
	uint32_t sync_min;	/* with at least this many writes: 20 */
	double sync_client_share;	/* WRITEs asked FILE_SYNC or DATA_SYNC
					   by the client: 0.5 */
	uint32_t sync_client_min;	/* with at least this many: 20 */
	uint32_t size_share;	/* % of calls at the dominant size:
				   AN_SIZE_SHARE_DEFAULT */
	uint32_t short_io_min;	/* short READs + WRITEs per pair: 10 */
	double short_io_share;	/* or under this share of its READs +
				   WRITEs: no finding: 0.05 */
	uint32_t slow_ms;	/* cheap ops' median above this: 10 ms */
	uint32_t slow_min;	/* with at least this many cheap ops: 20 */
	uint32_t path_ms;	/* slow_path: the path's round trip at or
				   above this, and above the server's own
				   time: 10 ms */
	uint32_t size_small;	/* size_capped: the server's maximum at or
				   below this (bytes): 16384 */
	double tcp_loss_share;	/* tcp_loss: retransmitted segments per
				   segment, either way: 0.01 */
	uint32_t stall_min;	/* tcp_stall: messages held at a fixed
				   quantum (40 ms, 200 ms): 5 */
	uint32_t shift_interval_s;	/* latency shift intervals: 10 s */
	double shift_factor;	/* p99 >= this x the baseline p99: 10 */
	uint32_t shift_min_ms;	/* and >= this: 10 ms */
	uint32_t shift_min_ops;	/* intervals with this many ops: 20 */
	uint32_t retrans_min;	/* retransmitted ops per client: 10 */
	double retrans_share;	/* or this share of its ops: 0.01 */
	uint32_t nfs4_delay_min;	/* NFS4ERR_DELAY replies per pair: 5 */
	uint32_t nfs4_state_min;	/* GRACE, BADSESSION/DEADSESSION,
				   SEQ_MISORDERED, STALE_CLIENTID replies
				   per pair and kind: 1 */
	uint32_t recall_min;	/* CB_RECALLs per pair: 5 */
	uint32_t lock_denied_min;	/* LOCK/LOCKT NFS4ERR_DENIED per
				   pair: 5 */
	uint32_t storm_clients;	/* clients given storm rings (~21 KB each;
				   later clients' ops are not examined for
				   storms, counted): AN_FIND_STORMS */
};

void an_find_config_default(struct an_find_config *c);

/* The thresholds by name (--threshold NAME=VALUE, find_thr.c): each field
 * of struct an_find_config with the range it accepts and its default. */
struct an_find_threshold {
	const char *name;	/* the field's name */
	bool dbl;		/* a double, else a uint32_t */
	double lo, hi;		/* accepted values */
	double def;		/* an_find_config_default's */
};
size_t an_find_threshold_count(void);
/* Threshold k, k < an_find_threshold_count(), in the table's order. */
void an_find_threshold_get(size_t k, struct an_find_threshold *t);
/* Set the field "NAME=VALUE" names in c: 0, or -1 for an unknown name,
 * a value that is not a number, out of range, or not whole for a
 * uint32_t field (c unchanged). */
int an_find_threshold_set(struct an_find_config *c, const char *arg);

struct an_find;

struct an_find *an_find_new(const struct an_find_config *cfg);
void an_find_free(struct an_find *f);
/* Returns the op's rx key when it was counted in its pair's retransmit
 * causes (an_find_rx_cause), else -1. */
int32_t an_find_add(struct an_find *f, const struct an_op *op);
/* End of input: close open runs and add the findings that come from the
 * figures (sizes, sync exports, restarts, COMMIT ratio, retransmits).
 * ipfrag_incomplete is from struct cap_stats. */
void an_find_finish(struct an_find *f, const struct an_figs *figs,
		    uint64_t ipfrag_incomplete);
size_t an_find_count(const struct an_find *f);
const struct an_finding *an_find_get(const struct an_find *f, size_t k);
uint64_t an_find_dropped(const struct an_find *f);
/* Looks at ops the detectors could not examine for the budgets: a host past
 * AN_FIND_SUBJECTS, a client past AN_FIND_STORMS (storms), out of memory. */
uint64_t an_find_unexamined(const struct an_find *f);
const char *an_find_kind_name(enum an_find_kind k);

/*
 * Storms and error bursts still going on (not yet in an_find_get): those
 * that already qualify, described as they stand (end_ns = the last hot
 * second so far).  For live views; at most max into out.  Does not change
 * f.
 */
size_t an_find_ongoing(const struct an_find *f, struct an_finding *out,
		       size_t max);

/*
 * Vantage point of a client/server pair (where the capture was taken),
 * from what it shows (analyze/vantage.c):
 *   - TCP ACK timing (struct cap_handshake srv_*, cli_*): the smallest
 *     wait for a pure ACK of new data, each way, 8 at least.  The capture's
 *     own host acknowledges in microseconds, the far one a round trip
 *     later: the larger at least 22 us and 2 x the other = the side of the
 *     host that answers faster.  Decides first (hundreds of samples, where
 *     a handshake is one or two).
 *   - Else TCP handshakes (capture/, cap_pipe_handshakes, fed by
 *     an_find_handshakes before an_find_finish): the smallest SYN->SYN/ACK
 *     and SYN/ACK->ACK gaps.  The larger one at least 22 us and 1.5 x
 *     the other: SYN->SYN/ACK larger = client side (it is the round trip, the
 *     other only the client's own response), SYN/ACK->ACK larger = server
 *     side; else both at least 100 us = in between.
 *   - Otherwise UDP retransmissions: a reply seen before a resend of its
 *     call = the capture is on the server's side of the loss (server
 *     side); a resend answered at once with no reply seen before = the
 *     client's side (client side; a server slow by just over the client's
 *     timeout looks the same); both = in between; neither = unknown.
 */
enum an_vantage { AN_VP_UNKNOWN, AN_VP_CLIENT, AN_VP_SERVER, AN_VP_BETWEEN,
		  AN_VP_N };
const char *an_vantage_name(enum an_vantage v);

/*
 * The likely cause of a retransmitted op (the retransmit finding's
 * classification), at the pair's vantage point:
 *   - no reply at all: never answered (AN_RX_NOREPLY);
 *   - TCP: a reconnect resent it (AN_RX_TCP);
 *   - a reply seen before a resend: the reply passed the capture point
 *     and was lost on the way to the client (AN_RX_LOST_REPLY);
 *   - duplicate replies (the server answered both transmissions), or a
 *     reply long after the resend (more than a quarter of the interval):
 *     the reply came after the client's timeout: a slow server
 *     (AN_RX_SLOW), or, when the server's median latency for that
 *     procedure (5 answers at least) is at or above the client's first
 *     resend interval, a client timeout shorter than the server's usual
 *     latency (AN_RX_SHORT_TIMEOUT);
 *   - a resend answered at once (within a quarter of the interval): the
 *     first call or its reply was lost beyond the capture point: when a
 *     message of the op was IP-fragmented, a lost fragment (AN_RX_FRAG),
 *     else a lost call or reply (AN_RX_LOST; at the client end the two
 *     cannot be told apart).
 * At the server side a call lost on the way is never seen (the server
 * sees only the resend, as a first call), so the last two are the
 * server's own delay there: slow (or short timeout).
 */
enum an_rx_cause {
	AN_RX_NOREPLY, AN_RX_SLOW, AN_RX_LOST, AN_RX_FRAG, AN_RX_TCP,
	AN_RX_LOST_REPLY, AN_RX_SHORT_TIMEOUT, AN_RX_NCAUSES
};
/* Their names in JSON keys (report --json's retrans_causes, diff), and
 * in the retransmits finding's words (report --html). */
extern const char *const an_rx_cause_keys[AN_RX_NCAUSES];
extern const char *const an_rx_cause_names[AN_RX_NCAUSES];
/* f: the pair's vantage point and the server's usual latency so far
 * (NULL: unknown, no latency). */
enum an_rx_cause an_retrans_cause(const struct an_find *f,
				  const struct an_op *op);

/* The cause of a retransmitted op from its rx key (an_find_add's answer:
 * its pair and the fact that decides it), at the pair's vantage point as
 * it stands: final once the input has ended, and then the one
 * an_find_vantage's cause[] counts the op under. */
enum an_rx_cause an_find_rx_cause(const struct an_find *f, int32_t rx_key);

/* The facts that decide a cause (counts per rule in the evidence). */
enum rx_fact {
	RX_F_NOREPLY, RX_F_TCP, RX_F_REPLY_FIRST, RX_F_DUP, RX_F_FRAG,
	RX_F_QUICK, RX_F_LATE, RX_F_N
};

struct an_vantage_info {
	enum an_vantage vp;
	bool by_acks;			/* by TCP ACK timing */
	bool by_handshake;		/* else by TCP handshakes; neither:
					   by UDP resends */
	uint32_t handshakes;
	int64_t syn_min_ns, ack_min_ns, syn_avg_ns, ack_avg_ns;
	uint32_t srv_acks, cli_acks;	/* ACK timings and their smallest */
	int64_t srv_ack_min_ns, cli_ack_min_ns;
	uint64_t reply_first, quick;	/* UDP evidence */
	uint64_t short_to;		/* DUP + LATE ops resent sooner than
					   the server's usual latency */
	uint64_t fact[RX_F_N];		/* retransmitted ops per fact */
	uint64_t cause[AN_RX_NCAUSES];	/* and per cause at vp */
	bool tcp;			/* the pair spoke TCP */
	/* the pair's own evidence said `own`; vp differs when the capture's
	   other pairs of the same host say otherwise (one capture point:
	   the stronger evidence decides, or unknown); why: static words
	   saying so, or NULL */
	enum an_vantage own;
	const char *why;
};

/* Handshakes per pair from capture/ (struct cap_handshake). */
void an_find_handshakes(struct an_find *f, const struct cap_handshake *hs,
			size_t n);
/* The handshakes fed to f (for the store), at most max into out. */
size_t an_find_handshake_list(const struct an_find *f,
			      struct cap_handshake *out, size_t max);
/* The vantage point of a pair and its evidence; false if it is unknown
 * and the pair has no retransmitted op (nothing to show). */
bool an_find_vantage(const struct an_find *f, const struct cap_addr *client,
		     const struct cap_addr *server, struct an_vantage_info *out);
/* v as one line of text ("server side (UDP: ...)") into b (n bytes);
 * returns its length. */
size_t an_vantage_evidence(const struct an_vantage_info *v, char *b, size_t n);

/*
 * The network path of a server, as seen from the capture point
 * (analyze/path.c): the round trip between the capture point and the
 * server (srv_ns: the server's pure ACKs of the clients' data, or
 * SYN -> SYN/ACK) and between it and the client (cli_ns: the client's pure
 * ACKs of the server's data, or SYN/ACK -> ACK), each the smallest over
 * the server's pairs (client NULL) or one pair's.  A host answers a
 * segment at once or after its delayed-ACK timer, so the smallest wait is
 * the round trip; at the client end srv_ns is the whole path and cli_ns
 * about 0, at the server end the reverse, in between each a part.  The
 * server's own time is an RPC's latency (from its last transmission) less
 * srv_ns; the clients wait cli_ns more.  false: no TCP timing (UDP).
 */
struct an_path {
	int64_t srv_ns, cli_ns;		/* -1: not measured */
	uint32_t samples;		/* ACK timings and handshakes used */
	bool by_acks;			/* else by handshakes only */
};
bool an_find_path(const struct an_find *f, const struct cap_addr *client,
		  const struct cap_addr *server, struct an_path *out);
/* Pipelining at a server: of its NFSv2/v3 calls' time (from the call's
 * last segment to its reply's end), the share they waited for the reply
 * ahead of them on their connection to end (a server answers a
 * connection's calls in turn), and the rest, their own turn (the server's
 * time and their reply's transfer), per cent.  false (both -1): none
 * counted. */
bool an_find_queued(const struct an_find *f, const struct cap_addr *server,
		    double *queued_pct, double *server_pct);
/* No round trip is longer than the quickest RPC seen from the same place
 * (rpc_min_ns, from the last transmission; <= 0: none): the server's
 * part of the path at most that (ACKs held by a delayed-ACK timer or a
 * device on the path look farther than the host is). */
void an_path_clamp(struct an_path *pt, int64_t rpc_min_ns);

/* The size_small threshold f was made with (size_capped). */
uint32_t an_find_size_small(const struct an_find *f);

/* TCP health of a pair, or summed over the pairs of a client or server
 * (NULL: any), analyze/tcphealth.c; [0] client -> server, [1] the
 * reverse (struct cap_handshake).  false: no TCP seen. */
struct an_tcp_health {
	uint64_t segs[2], resent[2], dupack_loss[2], zero_win[2], rsts[2];
	uint64_t connections;		/* handshakes seen */
	uint64_t resent_calls;		/* ops sent again over TCP on a new
					   connection (another port) */
	uint64_t stalls;		/* messages held at 40 or 200 ms */
	uint64_t stalls_dir[2];		/* of them records (calls, replies) */
	double stall_ns;		/* the time they spread over */
	uint64_t tcp_ops;		/* answered TCP ops */
};
bool an_find_tcp_health(const struct an_find *f, const struct cap_addr *client,
			const struct cap_addr *server, struct an_tcp_health *h);

/*
 * The transfer-size verdict for a client<->server pair, e.g.
 * "READ: 8192 bytes in 97% of calls, never above 8192; server advertises
 * rtmax 8192 -> the server caps reads at 8k; a 32k rsize cannot take
 * effect".  write: false for READ, true for WRITE.  srv may be NULL (no
 * FSINFO/STATFS seen).  Writes at most n bytes into buf; returns true if the
 * size looks capped by the server.
 */
bool an_size_verdict(const struct an_pair *p, const struct an_server *srv,
		     bool write, uint32_t share_pct, char *buf, size_t n);

/*
 * The largest READ (write false) or WRITE payload pair p may use, and
 * its name in the verdict's words into name (n bytes): the server's
 * advertised maximum (FSINFO rtmax/wtmax; NFSv4: GETATTR maxread/
 * maxwrite; v2: STATFS tsize), or, when lower, the room an NFSv4.1+
 * session's fore channel leaves (ca_maxresponsesize for READ,
 * ca_maxrequestsize for WRITE, less AN_SESSION_OVERHEAD for the RPC and
 * COMPOUND headers around the data, rounded down to 4 KiB as Linux's
 * client does).  0: neither seen (name "").  srv may be NULL.
 */
#define AN_SESSION_OVERHEAD 1024
uint32_t an_size_limit(const struct an_pair *p, const struct an_server *srv,
		       bool write, char *name, size_t n);

/*
 * The NFSv4 finding an op is evidence of (analyze/find_nfs4.c): a reply
 * NFS4ERR_DELAY, GRACE, BADSESSION/DEADSESSION, SEQ_MISORDERED,
 * STALE_CLIENTID; a session slot replay; a CB_RECALL or DELEGRETURN; a
 * LOCK/LOCKT denied.  AN_F_NKINDS: none.  A CB_RECALL's client is the
 * server (the back channel's caller): its finding's pair is the reverse.
 */
enum an_find_kind an_nfs4_evidence_kind(const struct an_op *op);

/* v bytes as people write it: "32k", "1M", "100 bytes"; returns b. */
const char *an_size_str(uint32_t v, char *b, size_t n);

#endif
