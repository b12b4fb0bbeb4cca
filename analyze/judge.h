/*
 * judge.h - the verdict: what an expert would write first, from the
 * report model (model.h): the sizes used against what was negotiated,
 * where the time goes (the server's own time against the network path),
 * retransmissions and loss, the top problems by what they cost, and what
 * the capture hides.  Healthy is said as healthy.
 *
 * The verdict is data (numbers per pair and server) and its words: at most
 * AN_VERDICT_LINES lines, each under 80 columns with its key ("sizes",
 * "time", ...) in front, which every writer prints as they are (text,
 * HTML, top); JSON writes the numbers and the lines.
 *
 * Impact (the findings' ranking): a finding that measured the wait it
 * explains (struct an_finding cost_ns) counts as its share of the clients'
 * total wait (the latency of every answered op, from its first
 * transmission); else as its share of the operations (cost_ops, or its
 * count).  an_judge sorts the model's findings by it, highest first
 * (stable: equal ones keep their order).
 *
 * Ownership: an_judge fills m->verdict and m->impact (owned by the model,
 * freed by an_model_fini).  Load: once per report, over pairs, servers
 * and findings.
 */
#ifndef NFSCOPE_AN_JUDGE_H
#define NFSCOPE_AN_JUDGE_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/find.h"

#define AN_VERDICT_LINES 16
#define AN_VERDICT_COLS 80	/* a line's text fits in this with its key */
#define AN_VERDICT_KEY 8	/* the key column */
#define AN_VERDICT_SIZES 8	/* pairs x READ/WRITE kept */
#define AN_VERDICT_TIMES 4	/* servers kept (most ops first) */
#define AN_VERDICT_PROBLEMS 3

/* A pair's READ or WRITE sizes against the negotiated maximum. */
enum an_size_state {
	AN_SZ_AS_NEGOTIATED,	/* the server's maximum, >= size_share */
	AN_SZ_SMALL_MAX,	/* that, and the maximum is small */
	AN_SZ_CLAMPED,		/* the client asks more than it gets */
	AN_SZ_BELOW_MAX,	/* below the maximum: rsize/wsize or app */
	AN_SZ_SMALLER,		/* reaches the maximum, mostly smaller */
	AN_SZ_NO_EVIDENCE,	/* small files or writes: no evidence */
	AN_SZ_NO_LIMIT,		/* no FSINFO/STATFS seen */
	AN_SZ_N
};
extern const char *const an_size_state_names[AN_SZ_N];

struct an_verdict_size {
	struct cap_addr client, server;
	bool write;
	enum an_size_state state;
	uint32_t size, pct;		/* the dominant size, its share */
	uint64_t calls;			/* asked, and granted to calls not
					   seen */
	uint32_t limit;			/* rtmax/wtmax/tsize; 0: unknown */
	uint32_t asked_max, granted_max;
};

/* Where a server's time goes, at the capture point: the median RPC
 * latency (from the last transmission) = the path's server part + the
 * server's own time; the clients wait the path's client part more. */
struct an_verdict_time {
	struct cap_addr server;
	uint64_t ops;			/* answered, with latency */
	double rpc_ms;			/* p50 */
	bool path_known;
	double srv_path_ms, cli_path_ms, path_ms;
	double own_ms;			/* rpc_ms less srv_path_ms, >= 0 */
	double queued_pct, server_pct;	/* an_find_queued; -1: unknown */
	const char *where;		/* "server", "queue" (the server's
					   time, more of it the calls
					   waiting for the replies ahead
					   than their own, no slow_server
					   finding), "path", "fast",
					   "server (path not measured)" */
};

struct an_verdict_loss {
	bool tcp, udp;
	struct an_tcp_health h;		/* all pairs */
	uint64_t lost[2];		/* segments, [0] client -> server */
	double lost_pct[2];
	uint64_t udp_ops, udp_retrans_ops;	/* UDP: ops, resent */
	/* per cent of the UDP ops: resent; lost on the way back (a reply
	   seen before the resend, or lost IP fragments: server -> client);
	   a lost call or reply (at the client end they look alike; at the
	   server end a lost call is never seen) */
	double udp_resent_pct, udp_lost_reply_pct, udp_lost_call_pct;
	uint64_t cause[AN_RX_NCAUSES];	/* retransmitted ops per cause */
	uint64_t ipfrag_incomplete;
};

struct an_impact {
	double pct;			/* share, per cent */
	const char *of;			/* "wait" or "ops"; NULL: none */
};

struct an_verdict {
	bool healthy;			/* no finding, complete */
	enum an_vantage vantage;	/* the capture's, one point */
	char vantage_why[160];
	struct an_verdict_size size[AN_VERDICT_SIZES];
	uint32_t nsize, size_pairs;	/* kept; pairs with READ/WRITE */
	struct an_verdict_time time[AN_VERDICT_TIMES];
	uint32_t ntime, time_servers;
	struct an_verdict_loss loss;
	double wait_ms;			/* clients' total wait */
	uint64_t hidden_calls, hidden_replies;	/* at least the recovered */
	const char *key[AN_VERDICT_LINES];
	char line[AN_VERDICT_LINES][AN_VERDICT_COLS];
	uint32_t nlines;
};

/* The one-line verdict of a live view (top) into b (n bytes, under 80
 * columns): "healthy so far" or the findings' number and the costliest
 * (the most wait explained, else the most ops) of f[0..nf); incomplete:
 * the capture hides records or dropped packets. */
void an_judge_line(const struct an_finding *f, size_t nf, bool incomplete,
		   char *b, size_t n);

struct an_model;
/* Fill m->verdict and m->impact, sort m->findings by impact; -1: out of
 * memory. */
int an_judge(struct an_model *m);

#endif
