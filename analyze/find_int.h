/*
 * find_int.h - internal to analyze/find.c (detectors: per-op rate, repeat
 * and retransmit bookkeeping) and analyze/verdict.c (size verdicts and the
 * end-of-input findings from figures and the detectors' tables).  Not a
 * public header: other modules include analyze/find.h only.
 */
#ifndef NFSCOPE_AN_FIND_INT_H
#define NFSCOPE_AN_FIND_INT_H

#include "analyze/find.h"

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

/* subj_get's memo: an address and role -> its subject (slot + 1; 0:
 * empty).  Subjects are never freed, so a memo entry stays true. */
#define SUBJ_MEMO_BITS 8
#define SUBJ_MEMO (1u << SUBJ_MEMO_BITS)

struct subj_memo {
	struct cap_addr addr;
	bool is_server;
	uint32_t slot1;
};

struct an_find {
	struct an_find_config cfg;
	struct subj subj[AN_FIND_SUBJECTS];
	uint64_t subj_dropped;
	struct subj_memo memo[SUBJ_MEMO];
	struct reval *reval;
	struct noent *noent;
	struct an_finding *out;
	size_t nout;
	uint64_t dropped;
};

/* A new finding slot (NULL when AN_FIND_MAX are kept: counted dropped). */
struct an_finding *an_find_emit(struct an_find *f, enum an_find_kind k);
/* Address text into b (64 bytes). */
const char *an_find_astr(const struct cap_addr *a, char *b);
/* End of input, after the rate runs are closed: NOENT repeats, retransmit
 * causes, size caps, sync exports, COMMIT ratio, verifier changes. */
void an_find_verdicts(struct an_find *f, const struct an_figs *figs,
		      uint64_t ipfrag_incomplete);

#endif
