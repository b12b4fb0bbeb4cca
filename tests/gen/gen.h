/*
 * gen.h - nfsgen, the test-traffic generator: shared types.
 *
 * nfsgen builds ONC RPC messages with libtirpc's XDR routines and rpcgen
 * output (never with nfscope's decoders: it is the independent ground truth),
 * frames them (link, IPv4/IPv6, UDP with IP fragmentation, TCP with record
 * marking), writes a nanosecond pcap, and writes one NDJSON line per RPC
 * message in the format of nfscope(1) dump --json.
 *
 * Modules: jb.c (JSON into memory), net.c (framing, pcap, TCP/UDP, truth
 * lines), body_nfs.c (NFSv2/v3 bodies), body_misc.c (MOUNT, portmap/rpcbind,
 * NLM), nfsgen.c (options and scenario).  Everything is single-threaded and
 * allocation-free after start-up: buffers grow once and are reused.
 */
#ifndef NFSGEN_GEN_H
#define NFSGEN_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <rpc/rpc.h>

/* ------------------------------------------------------------ random -- */

extern uint64_t rng_state;
static inline uint64_t rnd64(void)
{
	/* splitmix64 */
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}
static inline uint32_t rnd(uint32_t n)	/* uniform-ish in [0, n) */
{
	return n ? (uint32_t)(((rnd64() >> 32) * (uint64_t)n) >> 32) : 0;
}
static inline uint32_t rnd32(void) { return (uint32_t)(rnd64() >> 32); }
static inline bool chance(double p) { return p > 0 && (double)(rnd64() >> 11) * 0x1.0p-53 < p; }
static inline uint32_t rnd_range(uint32_t lo, uint32_t hi) { return lo + rnd(hi - lo + 1); }

/* -------------------------------------------------------------- json -- */

#define JB_DEPTH 16
struct jb {
	char *p;
	size_t len, cap;
	int depth;
	bool comma[JB_DEPTH];
};

void jb_init(struct jb *j);		/* allocates once */
void jb_reset(struct jb *j);		/* empty; depth 1 (inside an object) */
void jb_raw(struct jb *j, const char *s, size_t n);
void jb_obj(struct jb *j, const char *key);
void jb_end_obj(struct jb *j);
void jb_arr(struct jb *j, const char *key);
void jb_end_arr(struct jb *j);
void jb_u64(struct jb *j, const char *key, uint64_t v);
void jb_i64(struct jb *j, const char *key, int64_t v);
void jb_bool(struct jb *j, const char *key, bool v);
void jb_str(struct jb *j, const char *key, const char *s);
void jb_strn(struct jb *j, const char *key, const char *s, size_t n);
void jb_hex(struct jb *j, const char *key, const void *p, size_t n);
void jb_time(struct jb *j, const char *key, uint32_t sec, uint32_t nsec);

/* ------------------------------------------------------------ bodies -- */

enum reply_kind {
	RK_OK = 0,		/* accepted, SUCCESS, body */
	RK_PROG_UNAVAIL, RK_PROG_MISMATCH, RK_PROC_UNAVAIL, RK_GARBAGE_ARGS,
	RK_SYSTEM_ERR,
	RK_DENIED_RPC_MISMATCH, RK_DENIED_AUTH,
};

/* One RPC operation: what the call carried, so the reply can match it. */
struct op {
	uint32_t prog, vers, proc, xid;
	enum reply_kind rk;
	bool no_reply;		/* NLM _MSG / _RES one-way calls */
	uint32_t count;		/* READ/WRITE/READDIR sizes requested */
	uint32_t size;		/* --size */
	bool udp;
	bool err;		/* reply with an error status */
	/* scripted overrides (scen.c); zero = random, as before */
	const uint8_t *fh;	/* object (or LOOKUP directory) handle */
	uint32_t fh_len;
	const char *name;	/* LOOKUP name */
	bool set_offset, set_status;
	uint64_t offset;
	uint32_t status;	/* NFSv3 status of the reply */
	uint8_t want_stable;	/* WRITE stable_how asked + 1 */
	uint8_t want_committed;	/* WRITE committed granted + 1 */
	const char *verf;	/* WRITE/COMMIT write verifier (8 bytes) */
	uint32_t rtmax, wtmax;	/* FSINFO advertises these (rtpref = rtmax) */
	bool full_read;		/* READ reply: count as asked, eof false */
	uint32_t grant;		/* READ/WRITE reply count at most this (0: any) */
	bool read_eof;		/* READ reply: eof true */
	/* what the NFSv3 body encoder chose (for --ops-truth) */
	bool o_set;		/* the fields below are valid */
	bool o_have_status, o_have_rw, o_have_write, o_eof;
	uint32_t o_status, o_count, o_rcount, o_stable, o_committed;
	uint64_t o_offset;
	uint8_t o_verf[8];
	bool o_have_verf;
};

/* Encode the call body into x and its "args" object into j. */
bool body_call(XDR *x, struct jb *j, struct op *op);
/* Encode the reply body (RK_OK) into x and "res" into j. */
bool body_reply(XDR *x, struct jb *j, struct op *op);

bool nfs3_call(XDR *x, struct jb *j, struct op *op);
bool nfs3_reply(XDR *x, struct jb *j, struct op *op);
bool nfs2_call(XDR *x, struct jb *j, struct op *op);
bool nfs2_reply(XDR *x, struct jb *j, struct op *op);
bool mnt_call(XDR *x, struct jb *j, struct op *op);
bool mnt_reply(XDR *x, struct jb *j, struct op *op);
bool pmap_call(XDR *x, struct jb *j, struct op *op);
bool pmap_reply(XDR *x, struct jb *j, struct op *op);
bool nlm_call(XDR *x, struct jb *j, struct op *op);
bool nlm_reply(XDR *x, struct jb *j, struct op *op);

/* shared helpers for bodies (body_nfs.c) */
void gen_bytes(uint8_t *p, size_t n);
uint32_t gen_name(char *s, uint32_t max);	/* random file name, NUL-ended */
uint32_t gen_path(char *s, uint32_t max);
extern uint8_t *data_pattern;			/* READ/WRITE payload bytes */

#define PROG_PORTMAP 100000
#define PROG_NFS 100003
#define PROG_MOUNT 100005
#define PROG_NLM 100021

/* ------------------------------------------------------------- net -- */

enum link_kind { LINK_ETH, LINK_VLAN, LINK_QINQ, LINK_SLL, LINK_SLL2, LINK_RAW };

struct net_cfg {
	enum link_kind link;
	uint32_t snaplen;
	uint32_t mss;
	bool csum;
	bool split_marks;
	int multifrag;		/* 0 off, 1 any cut points, 2 RPC header kept whole */
	double lost_frags, lost_segs, reorder, acks;
	FILE *pcap, *truth;
};

struct host {
	uint8_t mac[6];
	uint8_t a4[4], a6[16];
	char s4[16], s6[48];
	uint16_t ipid;
};

/* One transport association; dir 0 is client to server. */
struct flow {
	struct host *cli, *srv;
	int ipv;		/* 4 or 6 */
	bool tcp;
	uint16_t cport, sport;
	bool open;		/* TCP handshake done */
	uint32_t seq[2];	/* next sequence number per direction */
	bool gap[2];		/* bytes lost in this direction since the
				   last intact message */
};

/* One RPC message on the wire and its ground-truth line. */
struct gmsg {
	struct jb j;		/* JSON from "xid" on, without braces */
	size_t body_off;	/* j.len before the "args"/"res" key */
	uint32_t len;		/* RPC message bytes (no record marks) */
	bool is_call;
	/* filled by net.c */
	uint64_t s_start, s_end;	/* TCP: batch stream range, marks included */
	const struct flow *f;
	int dir;
	uint16_t sport, dport;
	bool multifrag, ipfrag, lost, truncated, after_gap;
	bool hidden;		/* TCP: its record mark was not captured (the
				   snaplen cut its segment before it) */
	uint32_t caplen;
	uint64_t first_frame, frame;
	int64_t ts;
};

struct net_stats {
	uint64_t frames, messages, calls, replies, lost, truncated;
	uint64_t garbage_payloads;
};

extern int64_t net_now;			/* ns since the epoch */
extern struct net_stats net_stats;

void net_init(const struct net_cfg *cfg);
void net_fini(void);
/* Datagram from f's dir side; cport overrides the client port if nonzero.
 * m NULL: garbage (no truth line).  Writes m's truth line. */
void udp_send(struct flow *f, int dir, uint16_t cport, struct gmsg *m,
	      const uint8_t *p, size_t n);
/* Queue a record (m non-NULL, record marks added) or raw bytes (m NULL) on
 * f's dir stream; flushed by tcp_flush (or by a queue on another stream). */
void tcp_queue(struct flow *f, int dir, struct gmsg *m, const uint8_t *p, size_t n);
void tcp_flush(void);
/* The next tcp_flush of a batch of two segments or more does not capture
 * the segment before the last (a hole the receiver got: it acknowledges
 * past it); its message is lost, its ts that of its last segment (the
 * frame that completes it once the hole is given up).  Cleared by that
 * flush. */
extern bool net_drop_next;
/* The next fragmented UDP datagram loses its second fragment. */
extern bool net_drop_frag_next;
/* TCP handshakes as seen at one end (0: no delay, 1: the client's, 2: the
 * server's): the round trip falls between SYN and SYN/ACK at the client,
 * between SYN/ACK and ACK at the server. */
extern int64_t net_hs_rtt_ns;
extern int net_hs_end;
void tcp_fin(struct flow *f);

/* ------------------------------------------------- rpchdr.c, nfsgen.c -- */

enum { SVC_NFS, SVC_MOUNT, SVC_PMAP, SVC_NLM, SVC_N };

extern uint8_t *encbuf;		/* the last encoded message */
/* Encode op's call (header + body) into encbuf, its truth JSON into m. */
size_t enc_call(struct op *op, struct gmsg *m, uint32_t client, bool *gss);
/* Encode op's reply; call_frame 0: the call is not in the capture. */
size_t enc_reply(struct op *op, struct gmsg *m, uint64_t call_frame, bool call_lost,
		 bool orphan, bool gss);

extern struct host *gen_clients, *gen_servers;
struct flow *gen_flow(uint32_t c, uint32_t s, int svc, bool tcp, int ipv);
uint32_t gen_xid(uint32_t c);		/* the client's next xid */
void gen_send(struct flow *f, int dir, uint16_t cport, struct gmsg *m,
	      const uint8_t *p, size_t n);

/* ------------------------------------------------------------ scen.c -- */

/*
 * Per-operation ground truth (--ops-truth): one NDJSON line per operation
 * as the generator sent it (see README.md).  tx_ts: times of the call's
 * transmissions that reached the wire intact (ntx of them), ntx_lost more
 * were lost; reply_ts 0: no reply on the wire.
 */
struct op_rec {
	const struct op *op;
	const struct flow *f;
	uint16_t cport, cport_last;
	uint32_t ntx, ntx_lost;
	int64_t tx_ts[8];
	int64_t reply_ts;
	bool reply_lost;
	uint32_t dup_replies;
	bool xid_reused;
	const char *cause;	/* vantage: why it was resent, as scripted */
};
void ops_truth_open(FILE *out);
void ops_truth(const struct op_rec *r);

struct scen_opts {
	uint32_t clients, servers;
	uint64_t count;
	int transport;		/* 0 udp, 1 tcp, 2 mix */
	uint32_t delay_us, jitter_us, size;
	double retrans, dup_replies, unanswered, rate, duration;
	uint32_t retrans_ivl_us, repeat, burst, error_status;
	uint32_t server_rtmax, server_wtmax;
	bool sync_export, xid_reuse;
	uint32_t sync_client;	/* writes: % of each client's 100 asked FILE_SYNC */
	bool tail_commit;	/* commit-phase: a COMMIT after the last writes */
	double verf_change_at;	/* seconds after the start; < 0: never */
	int end;		/* vantage: 0 the client's end, 1 the server's */
	uint32_t rtt_us;	/* vantage: round trip (2000) */
};
/* Run a scripted scenario; false if the name is unknown. */
bool scen_run(const char *name, const struct scen_opts *o);
extern uint64_t scen_ops;	/* operations sent by scen_run */

#endif
