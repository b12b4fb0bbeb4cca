/* filter.c - the operation filter and the times it is given in; see
 * filter.h. */
#define _GNU_SOURCE		/* timegm */
#include "analyze/filter.h"
#include "base/hash.h"
#include "base/units.h"

#include <arpa/inet.h>
#include <assert.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define NS ((long long)NSEC_PER_SEC)

/* -------------------------------------------------------------- times -- */

/* lo..hi digits as a number; advances *p. */
static bool digits(const char **p, int lo, int hi, int *v)
{
	int k = 0;

	*v = 0;
	while (k < hi && isdigit((unsigned char)(*p)[k]))
		*v = *v * 10 + ((*p)[k++] - '0');
	*p += k;
	return k >= lo;
}

/* ".fff" (1..9 digits) as ns, or nothing. */
static bool fraction(const char **p, int64_t *ns)
{
	int64_t scale = NS / 10;

	*ns = 0;
	if (**p != '.')
		return true;
	(*p)++;
	if (!isdigit((unsigned char)**p))
		return false;
	for (; isdigit((unsigned char)**p); (*p)++, scale /= 10)
		if (scale == 0)
			return false;
		else
			*ns += (**p - '0') * scale;
	return true;
}

/* "HH:MM[:SS[.frac]]" into tm (hour, minute, second) and *frac. */
static bool clock_time(const char **p, struct tm *tm, int64_t *frac)
{
	*frac = 0;
	tm->tm_sec = 0;
	if (!digits(p, 1, 2, &tm->tm_hour) || *(*p)++ != ':' ||
	    !digits(p, 2, 2, &tm->tm_min))
		return false;
	if (**p == ':' && (++*p, !digits(p, 2, 2, &tm->tm_sec) ||
			   !fraction(p, frac)))
		return false;
	return tm->tm_hour < 24 && tm->tm_min < 60 && tm->tm_sec <= 60;
}

/* "Z", "+HH:MM", "-HHMM" or "+HH" after a time: seconds east of UTC. */
static bool zone(const char **p, bool *have, long *off)
{
	int h, mi = 0, sign;

	*have = false;
	*off = 0;
	if (**p == 'Z' || **p == 'z') {
		(*p)++;
		*have = true;
		return true;
	}
	if (**p != '+' && **p != '-')
		return true;
	sign = *(*p)++ == '-' ? -1 : 1;
	if (!digits(p, 2, 2, &h))
		return false;
	if (**p == ':')
		(*p)++;
	if (isdigit((unsigned char)**p) && !digits(p, 2, 2, &mi))
		return false;
	*have = true;
	*off = sign * (h * 3600L + mi * 60L);
	return h < 24 && mi < 60;
}

/* Epoch seconds of tm: in the zone given (off), or UTC, or local time. */
static int64_t tm_epoch(struct tm *tm, bool have_zone, long off, bool utc)
{
	tm->tm_isdst = -1;
	if (have_zone)
		return (int64_t)timegm(tm) - off;
	return utc ? (int64_t)timegm(tm) : (int64_t)mktime(tm);
}

static int parse_date(const char *s, bool utc, struct an_time *out)
{
	struct tm tm;
	int64_t frac = 0;
	bool have = false;
	long off = 0;

	memset(&tm, 0, sizeof(tm));
	if (!digits(&s, 4, 4, &tm.tm_year) || *s++ != '-' ||
	    !digits(&s, 2, 2, &tm.tm_mon) || *s++ != '-' ||
	    !digits(&s, 2, 2, &tm.tm_mday))
		return -1;
	if (tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 ||
	    tm.tm_mday > 31 || tm.tm_year < 1900)
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	if ((*s == 'T' || *s == 't' || *s == ' ') &&
	    (++s, !clock_time(&s, &tm, &frac) || !zone(&s, &have, &off)))
		return -1;
	if (*s)
		return -1;
	out->kind = AN_TIME_ABS;
	out->ns = tm_epoch(&tm, have, off, utc) * NS + frac;
	return 0;
}

int an_time_parse(const char *s, bool utc, struct an_time *out)
{
	const char *p = s;
	struct tm tm;
	int64_t frac;
	char *end;
	double v;

	if (strlen(s) > 4 && s[4] == '-')
		return parse_date(s, utc, out);
	if (strchr(s, ':')) {
		memset(&tm, 0, sizeof(tm));
		if (!clock_time(&p, &tm, &frac) || *p)
			return -1;
		out->kind = AN_TIME_TOD;
		out->ns = ((int64_t)tm.tm_hour * 3600 + tm.tm_min * 60 +
			   tm.tm_sec) * NS + frac;
		return 0;
	}
	out->kind = *p == '+' ? AN_TIME_REL : AN_TIME_ABS;
	if (*p == '+')
		p++;
	if (!isdigit((unsigned char)*p))
		return -1;
	v = strtod(p, &end);
	if (*end || !(v >= 0 && v < 9.2e9))
		return -1;
	out->ns = (int64_t)llround(v * 1e9);
	return 0;
}

int64_t an_time_resolve(const struct an_time *t, int64_t first_ns, bool utc)
{
	int64_t sec = first_ns / NS, tod = t->ns / NS;
	struct tm tm;
	time_t tt;

	if (t->kind == AN_TIME_ABS)
		return t->ns;
	if (t->kind == AN_TIME_REL)
		return first_ns + t->ns;
	if (first_ns % NS < 0)
		sec--;
	tt = (time_t)sec;
	if ((utc ? gmtime_r(&tt, &tm) : localtime_r(&tt, &tm)) == NULL)
		return first_ns;
	tm.tm_hour = (int)(tod / 3600);
	tm.tm_min = (int)(tod / 60 % 60);
	tm.tm_sec = (int)(tod % 60);
	return tm_epoch(&tm, false, 0, utc) * NS + t->ns % NS;
}

int an_duration_parse(const char *s, int64_t *ns)
{
	char *end;
	double v, mul = 1;

	if (!isdigit((unsigned char)s[0]))
		return -1;
	v = strtod(s, &end);
	switch (*end) {
	case '\0': case 's': mul = 1; break;
	case 'm': mul = 60; break;
	case 'h': mul = 3600; break;
	case 'd': mul = 86400; break;
	default: return -1;
	}
	if (*end && end[1])
		return -1;
	v *= mul;
	if (!(v > 0 && v < 9.2e9))
		return -1;
	*ns = (int64_t)llround(v * 1e9);
	return 0;
}

/* ------------------------------------------------------------ parsing -- */

void an_filter_init(struct an_filter *f, bool utc)
{
	memset(f, 0, sizeof(*f));
	f->utc = utc;
}

/* Keep the bits of a past len, clear the rest. */
static void net_mask(struct cap_addr *a, unsigned len)
{
	unsigned k;

	for (k = 0; k < 16; k++) {
		unsigned keep = len > 8 * k ? len - 8 * k : 0;

		if (keep < 8)
			a->a[k] &= (uint8_t)(0xff00u >> keep);
	}
}

int an_addr_parse(const char *s, struct cap_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (s == NULL)
		return -1;
	if (inet_pton(AF_INET, s, a->a) == 1) {
		a->family = 4;
		return 0;
	}
	if (inet_pton(AF_INET6, s, a->a) == 1) {
		a->family = 6;
		return 0;
	}
	return -1;
}

/* ADDR, ADDR/LEN or PREFIX* (len bytes of s). */
static int net_parse(const char *s, size_t len, struct an_net *t)
{
	char buf[sizeof(t->typed)];
	char *slash, *end;
	unsigned long bits;

	memset(t, 0, sizeof(*t));
	if (len == 0 || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (buf[len - 1] == '*') {
		buf[len - 1] = '\0';
		if (strchr(buf, '*') || strchr(buf, '/'))
			return -1;
		t->text = true;
		memcpy(t->typed, buf, len);
		return 0;
	}
	memcpy(t->typed, buf, len + 1);
	slash = strchr(buf, '/');
	if (slash)
		*slash = '\0';
	if (an_addr_parse(buf, &t->addr) < 0)
		return -1;
	t->len = t->addr.family == 4 ? 32 : 128;
	if (slash) {
		if (!isdigit((unsigned char)slash[1]))
			return -1;
		bits = strtoul(slash + 1, &end, 10);
		if (*end || bits > t->len)
			return -1;
		t->len = (uint8_t)bits;
	}
	net_mask(&t->addr, t->len);
	return 0;
}

static int add_nets(struct an_net *v, uint32_t *nv, const char *arg,
		    char *err, size_t n)
{
	const char *p = arg, *comma;
	size_t len;

	do {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		if (*nv == AN_FILTER_ADDRS) {
			snprintf(err, n, "more than %d addresses", AN_FILTER_ADDRS);
			return -1;
		}
		if (net_parse(p, len, &v[*nv]) < 0) {
			snprintf(err, n, "bad address '%.*s' (ADDR, ADDR/LEN or "
				 "PREFIX*, several comma-separated)", (int)len, p);
			return -1;
		}
		++*nv;
		p = comma + 1;
	} while (comma);
	return 0;
}

/* Every (program, version, procedure) dec_proc_name knows, in order: calls
 * fn with each name; stops and returns true when fn does. */
static bool each_proc_name(bool (*fn)(const char *name, void *u), void *u)
{
	static const uint32_t progs[] = { PROG_NFS, PROG_MOUNT, PROG_PORTMAP,
		PROG_NLM, PROG_NSM, PROG_NFS_ACL, PROG_NFS4_CB };
	uint32_t i, vers, proc;
	const char *p;

	for (i = 0; i < sizeof(progs) / sizeof(progs[0]); i++)
		for (vers = 1; vers <= 4; vers++)
			for (proc = 0; proc <= NFS4_OP_LAST; proc++)
				if ((p = dec_proc_name(progs[i], vers, proc)) &&
				    fn(p, u))
					return true;
	return false;
}

/* The first name dec_proc_name gives that equals name (any case), and its
 * position in each_proc_name's order. */
struct proc_first {
	const char *name;
	unsigned pos;
};

static bool proc_first(const char *name, void *u)
{
	struct proc_first *f = u;

	if (strcasecmp(name, f->name) != 0) {
		f->pos++;
		return false;
	}
	return true;
}

struct proc_list {
	char *buf;
	size_t n, off;
	unsigned pos;
};

/* Append each name once: where it occurs first. */
static bool list_new_name(const char *name, void *u)
{
	struct proc_list *l = u;
	struct proc_first f = { name, 0 };
	int w;

	(void)each_proc_name(proc_first, &f);
	if (f.pos == l->pos++ && l->off < l->n) {
		w = snprintf(l->buf + l->off, l->n - l->off, " %s", name);
		l->off += w > 0 ? (size_t)w : 0;
	}
	return false;
}

static int add_op(struct an_filter *f, const char *name, size_t len,
		  char *err, size_t n)
{
	struct proc_first pf = { NULL, 0 };
	struct proc_list l = { err, n, 0, 0 };
	char buf[sizeof(f->op[0])];
	int w;

	if (len == 0 || len >= sizeof(buf)) {
		snprintf(err, n, "bad procedure name '%.*s' (NAME or "
			 "NAME,NAME,...)", (int)len, name);
		return -1;
	}
	memcpy(buf, name, len);
	buf[len] = '\0';
	pf.name = buf;
	if (!each_proc_name(proc_first, &pf)) {
		w = snprintf(err, n, "unknown procedure '%s'; valid names (any "
			     "case):", buf);
		l.off = w > 0 ? (size_t)w : 0;
		(void)each_proc_name(list_new_name, &l);
		return -1;
	}
	if (f->n_op == AN_FILTER_OPS) {
		snprintf(err, n, "more than %d procedure names", AN_FILTER_OPS);
		return -1;
	}
	memcpy(f->op[f->n_op++], buf, len + 1);
	return 0;
}

/* Each term of the comma list arg, through add. */
static int add_list(struct an_filter *f, const char *arg,
		    int (*add)(struct an_filter *, const char *, size_t,
			       char *, size_t), char *err, size_t n)
{
	const char *p = arg, *comma;

	do {
		comma = strchr(p, ',');
		if (add(f, p, comma ? (size_t)(comma - p) : strlen(p), err,
			n) < 0)
			return -1;
		p = comma + 1;
	} while (comma);
	return 0;
}

static int set_text(char *dst, const char *v, char *err, size_t n)
{
	size_t len = strlen(v);

	if (len == 0 || len >= AN_FILTER_TEXT) {
		snprintf(err, n, "filter value %s", len ? "too long" : "empty");
		return -1;
	}
	memcpy(dst, v, len + 1);
	return 0;
}

static int set_time(struct an_filter *f, bool to, const char *arg, char *err,
		    size_t n)
{
	struct an_time t;

	if (an_time_parse(arg, f->utc, &t) < 0) {
		snprintf(err, n, "bad time '%s' (HH:MM[:SS] on the first "
			 "packet's day, YYYY-MM-DD [HH:MM[:SS]], ISO 8601 with T "
			 "and a zone, epoch seconds, or +SECONDS after the first "
			 "packet)", arg);
		return -1;
	}
	*(to ? &f->to : &f->from) = t;
	*(to ? &f->have_to : &f->have_from) = true;
	return 0;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* One handle term of len characters at s: 8 hex digits are a short hash,
 * other even counts up to NFS_FHSIZE_MAX bytes a whole handle. */
static int add_fh(struct an_filter *f, const char *s, size_t len, char *err,
		  size_t n)
{
	struct an_fh_term t;
	size_t i;

	memset(&t, 0, sizeof(t));
	for (i = 0; i < len && hexval((unsigned char)s[i]) >= 0; i++)
		;
	if (len == 0 || i < len || len % 2 || len > 2 * NFS_FHSIZE_MAX) {
		snprintf(err, n, "bad handle '%.*s' (hex bytes of a handle, up "
			 "to %d, or the 8 hex digits of its short hash)",
			 (int)(len < 200 ? len : 200), s, NFS_FHSIZE_MAX);
		return -1;
	}
	if (f->n_fh == AN_FILTER_FHS) {
		snprintf(err, n, "more than %d handles", AN_FILTER_FHS);
		return -1;
	}
	for (i = 0; i < len; i += 2) {
		uint8_t b = (uint8_t)(hexval((unsigned char)s[i]) << 4 |
				      hexval((unsigned char)s[i + 1]));

		if (len == 8)
			t.hash = t.hash << 8 | b;
		else
			t.data[t.len++] = b;
	}
	f->fh[f->n_fh++] = t;
	return 0;
}

/* Into f only when every term parses. */
static int add_into(struct an_filter *f, struct an_filter *tmp,
		    enum an_filter_key k, const char *arg, char *err, size_t n)
{
	int rc;

	*tmp = *f;
	switch (k) {
	case AN_FK_CLIENT:
		rc = add_nets(tmp->client, &tmp->n_client, arg, err, n);
		break;
	case AN_FK_SERVER:
		rc = add_nets(tmp->server, &tmp->n_server, arg, err, n);
		break;
	case AN_FK_OP:
		rc = add_list(tmp, arg, add_op, err, n);
		break;
	case AN_FK_PATH:
		rc = set_text(tmp->path, arg, err, n);
		break;
	case AN_FK_WORD:
		rc = set_text(tmp->word, arg, err, n);
		break;
	case AN_FK_FH:
		rc = add_list(tmp, arg, add_fh, err, n);
		break;
	default:
		rc = set_time(tmp, k == AN_FK_TO, arg, err, n);
		break;
	}
	if (rc == 0)
		*f = *tmp;
	return rc;
}

int an_filter_add(struct an_filter *f, enum an_filter_key k, const char *arg,
		  char *err, size_t n)
{
	struct an_filter *tmp = malloc(sizeof(*tmp));
	int rc;

	if (tmp == NULL) {
		snprintf(err, n, "out of memory");
		return -1;
	}
	rc = add_into(f, tmp, k, arg, err, n);
	free(tmp);
	return rc;
}

/* A key of the prompt ("client" or "c", ...), or -1. */
static int prompt_key(const char *w, size_t kl)
{
	static const struct {
		const char *name;
		enum an_filter_key k;
	} keys[] = {
		{ "client", AN_FK_CLIENT }, { "c", AN_FK_CLIENT },
		{ "server", AN_FK_SERVER }, { "s", AN_FK_SERVER },
		{ "op", AN_FK_OP }, { "proc", AN_FK_OP },
		{ "path", AN_FK_PATH }, { "p", AN_FK_PATH },
		{ "fh", AN_FK_FH },
	};
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strlen(keys[i].name) == kl &&
		    strncmp(w, keys[i].name, kl) == 0)
			return (int)keys[i].k;
	return -1;
}

/* One word of the prompt (len bytes at w) into nf. */
static int prompt_term(struct an_filter *nf, const char *w, size_t len,
		       char *err, size_t n)
{
	char val[AN_FILTER_TEXT + 64];
	const char *eq = memchr(w, '=', len);
	size_t kl = eq ? (size_t)(eq - w) : 0, vl = eq ? len - kl - 1 : len;
	int k = eq ? prompt_key(w, kl) : AN_FK_WORD;

	if (k < 0) {
		snprintf(err, n, "unknown filter key '%.*s' (client, server, "
			 "op, path)", (int)kl, w);
		return -1;
	}
	if (vl == 0 || vl >= sizeof(val)) {
		snprintf(err, n, "filter value %s", vl ? "too long" : "empty");
		return -1;
	}
	memcpy(val, eq ? eq + 1 : w, vl);
	val[vl] = '\0';
	return an_filter_add(nf, (enum an_filter_key)k, val, err, n);
}

int an_filter_parse(const char *s, struct an_filter *f, char *err, size_t n)
{
	struct an_filter *nf = malloc(sizeof(*nf));
	int rc = 0;

	if (nf == NULL) {
		snprintf(err, n, "out of memory");
		return -1;
	}
	an_filter_init(nf, f->utc);
	while (*s && rc == 0) {
		const char *w;

		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			break;
		w = s;
		while (*s && !isspace((unsigned char)*s))
			s++;
		rc = prompt_term(nf, w, (size_t)(s - w), err, n);
	}
	if (rc == 0)
		*f = *nf;
	free(nf);
	return rc;
}

bool an_filter_empty(const struct an_filter *f)
{
	return f->n_client == 0 && f->n_server == 0 && f->n_op == 0 &&
	       !f->path[0] && !f->word[0] && !f->have_from && !f->have_to &&
	       f->n_fh == 0;
}

struct strbuf {
	char *buf;
	size_t n, off;
};

static void put(struct strbuf *b, const char *sep, const char *s,
		const char *end)
{
	int w;

	if (b->off >= b->n)
		return;
	w = snprintf(b->buf + b->off, b->n - b->off, "%s%s%s", sep, s, end);
	b->off += w > 0 ? (size_t)w : 0;
}

static void put_nets(struct strbuf *b, const char *key, const struct an_net *v,
		     uint32_t nv)
{
	uint32_t k;

	for (k = 0; k < nv; k++)
		put(b, k ? "," : b->off ? key : key + 1, v[k].typed,
		    v[k].text ? "*" : "");
}

void an_filter_str(const struct an_filter *f, char *buf, size_t n)
{
	struct strbuf b = { buf, n, 0 };
	uint32_t k;

	buf[0] = '\0';
	put_nets(&b, " client=", f->client, f->n_client);
	put_nets(&b, " server=", f->server, f->n_server);
	for (k = 0; k < f->n_op; k++)
		put(&b, k ? "," : b.off ? " op=" : "op=", f->op[k], "");
	if (f->path[0])
		put(&b, b.off ? " path=" : "path=", f->path, "");
	for (k = 0; k < f->n_fh; k++) {
		char h[2 * NFS_FHSIZE_MAX + 1];
		uint32_t i;

		if (f->fh[k].len == 0)
			snprintf(h, sizeof(h), "%08x", f->fh[k].hash);
		for (i = 0; i < f->fh[k].len; i++)
			snprintf(h + 2 * i, 3, "%02x", f->fh[k].data[i]);
		put(&b, k ? "," : b.off ? " fh=" : "fh=", h, "");
	}
	if (f->word[0])
		put(&b, b.off ? " " : "", f->word, "");
}

/* ----------------------------------------------------------- matching -- */

void an_filter_resolve(struct an_filter *f, int64_t first_ns)
{
	if (f->have_from && f->from.kind == AN_TIME_TOD)
		f->from = (struct an_time){ AN_TIME_ABS,
			an_time_resolve(&f->from, first_ns, f->utc) };
	if (f->have_to && f->to.kind == AN_TIME_TOD)
		f->to = (struct an_time){ AN_TIME_ABS,
			an_time_resolve(&f->to, first_ns, f->utc) };
}

void an_filter_bounds(const struct an_filter *f, int64_t base_ns,
		      int64_t *from, int64_t *to)
{
	*from = INT64_MIN;
	*to = INT64_MAX;
	if (f && f->have_from)
		*from = an_time_resolve(&f->from, base_ns, f->utc);
	if (f && f->have_to)
		*to = an_time_resolve(&f->to, base_ns, f->utc);
}

/* A PREFIX* term: does the printed name begin with it? */
static bool text_has(const struct an_net *t, const char *name)
{
	return t->text && strncmp(name, t->typed, strlen(t->typed)) == 0;
}

static bool net_has(const struct an_net *t, const struct cap_addr *a)
{
	unsigned k = t->len / 8, rest = t->len % 8;

	if (t->text) {
		char b[64];

		cap_addr_str(a, b, sizeof(b));
		return text_has(t, b);
	}
	if (a->family != t->addr.family || memcmp(a->a, t->addr.a, k) != 0)
		return false;
	return rest == 0 ||
	       ((a->a[k] ^ t->addr.a[k]) & (uint8_t)(0xff00u >> rest)) == 0;
}

/* Does a term of the side hold a (or, a NULL, match the printed name)? */
static bool side_has(const struct an_filter *f, enum an_filter_key side,
		     const struct cap_addr *a, const char *name)
{
	const struct an_net *v = side == AN_FK_SERVER ? f->server : f->client;
	uint32_t nv = side == AN_FK_SERVER ? f->n_server : f->n_client, k;

	assert(side == AN_FK_CLIENT || side == AN_FK_SERVER);
	for (k = 0; k < nv; k++)
		if (a ? net_has(&v[k], a) : name && text_has(&v[k], name))
			return true;
	return nv == 0;
}

bool an_filter_addr(const struct an_filter *f, enum an_filter_key side,
		    const struct cap_addr *a)
{
	return side_has(f, side, a, NULL);
}

bool an_filter_addr_name(const struct an_filter *f, enum an_filter_key side,
			 const char *name)
{
	return side_has(f, side, NULL, name);
}

bool an_filter_proc(const struct an_filter *f, uint32_t prog, uint32_t vers,
		    uint32_t proc)
{
	const char *p;
	uint32_t k;

	if (f->n_op == 0)
		return true;
	p = dec_proc_name(prog, vers, proc);
	for (k = 0; p && k < f->n_op; k++)
		if (strcasecmp(p, f->op[k]) == 0)
			return true;
	return false;
}

uint32_t an_fh_hash(const struct nfs_fh *fh)
{
	uint32_t h = BASE_FNV32_INIT;
	uint32_t n = fh->len <= NFS_FHSIZE_MAX ? fh->len : NFS_FHSIZE_MAX;

	for (uint32_t i = 0; i < n; i++) {
		h ^= fh->data[i];
		h *= BASE_FNV32_PRIME;
	}
	return h;
}

bool an_filter_fh(const struct an_filter *f, const struct nfs_fh *fh)
{
	uint32_t k;

	for (k = 0; k < f->n_fh; k++) {
		const struct an_fh_term *t = &f->fh[k];

		if (t->len ? t->len == fh->len &&
			     memcmp(t->data, fh->data, t->len) == 0 :
			     t->hash == an_fh_hash(fh))
			return true;
	}
	return f->n_fh == 0;
}

bool an_filter_path(const struct an_filter *f, const char *path)
{
	return !f->path[0] || (path[0] && strstr(path, f->path));
}

bool an_filter_word(const struct an_filter *f, const char *text)
{
	size_t n = strlen(f->word);

	if (n == 0)
		return false;
	for (; *text; text++)
		if (strncasecmp(text, f->word, n) == 0)
			return true;
	return false;
}

const char *an_proc_label(uint32_t prog, uint32_t vers, uint32_t proc,
			  char *buf, size_t n)
{
	const char *p = dec_prog_name(prog), *q = dec_proc_name(prog, vers, proc);

	if (p && q)
		snprintf(buf, n, "%sv%u %s", p, vers, q);
	else
		snprintf(buf, n, "%u v%u p%u", prog, vers, proc);
	return buf;
}

/* The word in the op's client, server, path or procedure label. */
static bool op_has_word(const struct an_filter *f, const struct an_op *op)
{
	char b[64];

	return an_filter_word(f, cap_addr_str(&op->client, b, sizeof(b))) ||
	       an_filter_word(f, cap_addr_str(&op->server, b, sizeof(b))) ||
	       an_filter_word(f, op->path) ||
	       an_filter_word(f, an_proc_label(op->prog, op->vers, op->proc, b,
					       sizeof(b)));
}

bool an_filter_match(const struct an_filter *f, const struct an_op *op,
		     int64_t base_ns)
{
	int64_t from, to;

	if (f == NULL)
		return true;
	if (!an_filter_addr(f, AN_FK_CLIENT, &op->client) ||
	    !an_filter_addr(f, AN_FK_SERVER, &op->server) ||
	    !an_filter_proc(f, op->prog, op->vers, op->proc) ||
	    !an_filter_path(f, op->path))
		return false;
	if (f->n_fh && !((op->have & AN_HAVE_FH) && an_filter_fh(f, &op->fh)))
		return false;
	if (f->word[0] && !op_has_word(f, op))
		return false;
	if (!f->have_from && !f->have_to)
		return true;
	an_filter_bounds(f, base_ns, &from, &to);
	return op->first_call_ns >= from && op->first_call_ns < to;
}
