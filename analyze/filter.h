/*
 * filter.h - which operations a report, a stored run's reader or the
 * dashboard covers: clients, servers, procedures, a path, a word and a time
 * span.  One type, parsed once: from report's options (--client, --server,
 * --op, --from, --to: an_filter_add) or from top's prompt ("client=A
 * op=READ path=/x word": an_filter_parse), and read by report, the store's
 * reader (store_read_ops, store_read_intervals) and top's window.
 *
 * Terms of one kind are alternatives (any of them matches); kinds combine
 * (all must match).  Lists are comma-separated, and a kind given again adds
 * to it.  An address term is ADDR (IPv4 or IPv6), ADDR/LEN (a CIDR
 * network) or PREFIX* (the printed address begins with PREFIX: "10.0.0.*").
 * A procedure is a name nfscope decodes (dec_proc_name: READ, MNT, ...),
 * any case, any program.  The path matches when it contains the text; the
 * word when any of the client, the server, the path or the procedure's
 * label ("NFSv3 READ") contains it in any case.  A handle term is the
 * handle in hex (as dump --json and report --json print it) or its 8-hex-
 * digit short hash (an_fh_hash, as dump's text lines print it).  Times: struct an_time; an
 * operation is in the span when its first call is in [from, to).
 *
 * Plain values, no allocation, no I/O; parsers write a message into err
 * (n bytes) and return -1, leaving the filter as it was.  Matching costs a
 * few comparisons per term (a PREFIX* term or the word also prints the
 * address).
 */
#ifndef NFSCOPE_FILTER_H
#define NFSCOPE_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/ops.h"
#include "capture/capture.h"

#define AN_FILTER_ADDRS 32	/* address terms per side */
#define AN_FILTER_OPS 32	/* procedure names */
#define AN_FILTER_TEXT 128	/* path and word, with their NUL */
#define AN_FILTER_FHS 16	/* handle terms */

/*
 * A time as typed: epoch seconds "1796033994[.5]", "+S[.frac]" after the
 * first packet, "YYYY-MM-DD", "YYYY-MM-DD HH:MM[:SS[.frac]]" ('T' for the
 * space), optionally ending in "Z" or "+HH:MM"/"-HHMM", and
 * "HH:MM[:SS[.frac]]" on the day of the first packet.  Without a zone:
 * local time, or UTC when the parser is told so.
 */
enum an_time_kind { AN_TIME_ABS, AN_TIME_REL, AN_TIME_TOD };
struct an_time {
	enum an_time_kind kind;
	int64_t ns;		/* ABS: epoch ns; REL: ns after the first
				   packet; TOD: ns after midnight */
};

/* One address term: a network, or a prefix of the printed address. */
struct an_net {
	struct cap_addr addr;	/* the network (bits past len are 0) */
	uint8_t len;		/* prefix length in bits */
	bool text;		/* PREFIX*: match the printed address */
	char typed[48];		/* as typed (without the '*' for text) */
};

enum an_filter_key {
	AN_FK_CLIENT, AN_FK_SERVER, AN_FK_OP, AN_FK_PATH, AN_FK_WORD,
	AN_FK_FROM, AN_FK_TO, AN_FK_FH
};

/* One handle term: the whole handle (len > 0) or its short hash. */
struct an_fh_term {
	uint32_t len;		/* 0: match hash */
	uint32_t hash;
	uint8_t data[NFS_FHSIZE_MAX];
};

struct an_filter {
	struct an_net client[AN_FILTER_ADDRS], server[AN_FILTER_ADDRS];
	uint32_t n_client, n_server;
	char op[AN_FILTER_OPS][32];	/* as typed; none: any procedure */
	uint32_t n_op;
	char path[AN_FILTER_TEXT];	/* "": any */
	char word[AN_FILTER_TEXT];	/* "": none */
	bool have_from, have_to;
	struct an_time from, to;	/* TOD until an_filter_resolve */
	bool utc;			/* zone of dates, times of day */
	struct an_fh_term fh[AN_FILTER_FHS];	/* none: any handle */
	uint32_t n_fh;
};

/* An empty filter (matches everything); utc: the zone of times typed
 * without one is UTC (else local time). */
void an_filter_init(struct an_filter *f, bool utc);
/* Add the terms of arg (a comma list for client, server and op; one value
 * otherwise) to kind k; from/to replace an earlier value. */
int an_filter_add(struct an_filter *f, enum an_filter_key k, const char *arg,
		  char *err, size_t n);
/* top's prompt: space-separated "client=", "server=", "op=", "path=",
 * "fh=" (also c=, s=, proc=, p=) and a bare word; f is replaced (its zone kept)
 * only when the whole text parses. */
int an_filter_parse(const char *s, struct an_filter *f, char *err, size_t n);
/* No term at all (times included). */
bool an_filter_empty(const struct an_filter *f);
/* The terms as an_filter_parse reads them ("client=A,B op=READ"). */
void an_filter_str(const struct an_filter *f, char *buf, size_t n);

/* Times of day on the day of first_ns become absolute (once). */
void an_filter_resolve(struct an_filter *f, int64_t first_ns);
/* The span [*from, *to) in epoch ns (INT64_MIN/INT64_MAX when open),
 * relative times from base_ns; f may be NULL. */
void an_filter_bounds(const struct an_filter *f, int64_t base_ns,
		      int64_t *from, int64_t *to);

/* The parts, for callers that test tables of values once (top); each is
 * true when the kind has no term. */
bool an_filter_addr(const struct an_filter *f, enum an_filter_key side,
		    const struct cap_addr *a);
/* The same for a row that stands for no one address (top's "(other)":
 * the addresses past its table): only PREFIX* terms can match its name. */
bool an_filter_addr_name(const struct an_filter *f, enum an_filter_key side,
			 const char *name);
bool an_filter_proc(const struct an_filter *f, uint32_t prog, uint32_t vers,
		    uint32_t proc);
bool an_filter_path(const struct an_filter *f, const char *path);
/* Is fh one of the handle terms (true when there is none)? */
bool an_filter_fh(const struct an_filter *f, const struct nfs_fh *fh);
/* 32-bit FNV-1a of a handle's bytes: its short hash. */
uint32_t an_fh_hash(const struct nfs_fh *fh);
/* Does text contain the word (any case)?  False without a word. */
bool an_filter_word(const struct an_filter *f, const char *text);
/* Does op pass every term of f (NULL: yes)?  base_ns resolves "+S".  A
 * handle term matches the op's handle (AN_HAVE_FH). */
bool an_filter_match(const struct an_filter *f, const struct an_op *op,
		     int64_t base_ns);

/* A procedure's label as top shows it: "NFSv3 READ", or "100003 v3 p99". */
const char *an_proc_label(uint32_t prog, uint32_t vers, uint32_t proc,
			  char *buf, size_t n);

/* An IPv4 or IPv6 address (NULL: -1). */
int an_addr_parse(const char *s, struct cap_addr *a);
int an_time_parse(const char *s, bool utc, struct an_time *out);
/* The epoch ns a time names, given the first packet's. */
int64_t an_time_resolve(const struct an_time *t, int64_t first_ns, bool utc);
/* "90", "30s", "10m", "2h", "7d" into ns (> 0). */
int an_duration_parse(const char *s, int64_t *ns);

#endif
