/*
 * test_filter.c - the operation filter (analyze/filter.h) on hand-written
 * cases: addresses and CIDR edges, comma lists and repeats, procedure
 * names, times in every form (epoch values computed by hand with
 * calendar.timegm), top's prompt, and bad input with its message.
 */
#include "analyze/filter.h"
#include "tests/lib/check.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NS 1000000000LL
#define T20261201 1796083200LL	/* 2026-12-01T00:00:00Z */

static char err[4096];

static struct cap_addr ip(const char *s)
{
	struct cap_addr a;

	memset(&a, 0, sizeof(a));
	if (inet_pton(AF_INET, s, a.a) == 1)
		a.family = 4;
	else if (inet_pton(AF_INET6, s, a.a) == 1)
		a.family = 6;
	return a;
}

static bool has_client(const struct an_filter *f, const char *s)
{
	struct cap_addr a = ip(s);

	return an_filter_addr(f, AN_FK_CLIENT, &a);
}

static int add(struct an_filter *f, enum an_filter_key k, const char *arg)
{
	err[0] = '\0';
	return an_filter_add(f, k, arg, err, sizeof(err));
}

static void test_addresses(void)
{
	struct an_filter f;
	struct cap_addr a;

	an_filter_init(&f, true);
	CHECK(has_client(&f, "192.0.2.1"));	/* no term: anything */
	CHECK(add(&f, AN_FK_CLIENT, "10.0.0.1") == 0);
	CHECK(has_client(&f, "10.0.0.1"));
	CHECK(!has_client(&f, "10.0.0.2"));
	CHECK(!has_client(&f, "::ffff:10.0.0.1"));	/* another family */
	/* CIDR edges: /31 holds .4 and .5, not .3 or .6 */
	an_filter_init(&f, true);
	CHECK(add(&f, AN_FK_CLIENT, "10.1.2.5/31") == 0);
	CHECK(!has_client(&f, "10.1.2.3"));
	CHECK(has_client(&f, "10.1.2.4"));
	CHECK(has_client(&f, "10.1.2.5"));
	CHECK(!has_client(&f, "10.1.2.6"));
	/* /0 holds every address of its family; /32 one */
	an_filter_init(&f, true);
	CHECK(add(&f, AN_FK_CLIENT, "0.0.0.0/0") == 0);
	CHECK(has_client(&f, "255.255.255.255") && has_client(&f, "1.2.3.4"));
	CHECK(!has_client(&f, "fd00::1"));
	an_filter_init(&f, true);
	CHECK(add(&f, AN_FK_CLIENT, "172.16.0.0/12") == 0);
	CHECK(has_client(&f, "172.31.255.255") && has_client(&f, "172.16.0.0"));
	CHECK(!has_client(&f, "172.32.0.0") && !has_client(&f, "172.15.255.255"));
	/* IPv6: /64 and a prefix not on a byte boundary (/57) */
	an_filter_init(&f, true);
	CHECK(add(&f, AN_FK_CLIENT, "fd00:1:2:3::/64,fd00:9:0:80::/57") == 0);
	CHECK(f.n_client == 2);
	CHECK(has_client(&f, "fd00:1:2:3:ffff::1"));
	CHECK(!has_client(&f, "fd00:1:2:4::1"));
	CHECK(has_client(&f, "fd00:9:0:ff::1"));	/* 0x00ff: bit 57 on */
	CHECK(!has_client(&f, "fd00:9:0:7f::1"));	/* 0x007f: off */
	/* comma lists and repeats add alternatives */
	an_filter_init(&f, true);
	CHECK(add(&f, AN_FK_CLIENT, "10.0.0.1,10.0.0.3") == 0);
	CHECK(add(&f, AN_FK_CLIENT, "192.168.0.0/16") == 0);
	CHECK(f.n_client == 3);
	CHECK(has_client(&f, "10.0.0.3") && has_client(&f, "192.168.7.7"));
	CHECK(!has_client(&f, "10.0.0.2"));
	/* a side is its own: the server list does not hold clients */
	CHECK(add(&f, AN_FK_SERVER, "10.9.9.9") == 0);
	a = ip("10.0.0.1");
	CHECK(!an_filter_addr(&f, AN_FK_SERVER, &a));
	/* PREFIX*: the printed address begins with it */
	an_filter_init(&f, true);
	CHECK(add(&f, AN_FK_CLIENT, "10.0.0.1*") == 0);
	CHECK(has_client(&f, "10.0.0.1") && has_client(&f, "10.0.0.17") &&
	      has_client(&f, "10.0.0.199"));
	CHECK(!has_client(&f, "10.0.0.2"));
	/* bad input: the filter is left as it was, the message names it */
	an_filter_init(&f, true);
	CHECK(add(&f, AN_FK_CLIENT, "10.0.0.1,10.0.0.300") < 0);
	CHECK(strstr(err, "bad address '10.0.0.300'") != NULL);
	CHECK(f.n_client == 0);
	CHECK(add(&f, AN_FK_CLIENT, "10.0.0.0/33") < 0);
	CHECK(add(&f, AN_FK_CLIENT, "fd00::/129") < 0);
	CHECK(add(&f, AN_FK_CLIENT, "10.0.0.0/") < 0);
	CHECK(add(&f, AN_FK_CLIENT, "10.0.0.0/-1") < 0);
	CHECK(add(&f, AN_FK_CLIENT, "10.0.0.0/8x") < 0);
	CHECK(add(&f, AN_FK_CLIENT, "10.0.0.1,") < 0);	/* empty term */
	CHECK(add(&f, AN_FK_CLIENT, "") < 0);
	CHECK(add(&f, AN_FK_CLIENT, "10.*.1*") < 0);
	CHECK(add(&f, AN_FK_CLIENT, "host.example") < 0);
	CHECK(f.n_client == 0);
}

static bool has_proc(const struct an_filter *f, uint32_t prog, uint32_t vers,
		     uint32_t proc)
{
	return an_filter_proc(f, prog, vers, proc);
}

static void test_ops(void)
{
	struct an_filter f;
	int k;

	an_filter_init(&f, false);
	CHECK(has_proc(&f, PROG_NFS, 3, NFS3_READ));
	CHECK(add(&f, AN_FK_OP, "read,Write") == 0);
	CHECK(add(&f, AN_FK_OP, "MNT") == 0);
	CHECK(f.n_op == 3);
	CHECK(has_proc(&f, PROG_NFS, 3, NFS3_READ));
	CHECK(has_proc(&f, PROG_NFS, 2, NFS2_READ));	/* any version */
	CHECK(has_proc(&f, PROG_NFS, 3, NFS3_WRITE));
	CHECK(has_proc(&f, PROG_MOUNT, 3, 1));		/* MNT */
	CHECK(!has_proc(&f, PROG_NFS, 3, NFS3_COMMIT));
	CHECK(!has_proc(&f, 999999, 1, 6));		/* no name */
	CHECK(add(&f, AN_FK_OP, "GETATTRR") < 0);
	CHECK(strstr(err, "unknown procedure 'GETATTRR'") != NULL);
	CHECK(strstr(err, " GETATTR ") != NULL && strstr(err, " COMMIT") != NULL);
	CHECK(f.n_op == 3);
	CHECK(add(&f, AN_FK_OP, "READ,,WRITE") < 0);
	CHECK(add(&f, AN_FK_OP, "") < 0);
	an_filter_init(&f, false);
	for (k = 0; k < AN_FILTER_OPS; k++)
		CHECK(add(&f, AN_FK_OP, "NULL") == 0);
	CHECK(add(&f, AN_FK_OP, "NULL") < 0);
	CHECK(strstr(err, "more than 32") != NULL);
}

static int64_t parse(const char *s, bool utc, enum an_time_kind *kind)
{
	struct an_time t = { AN_TIME_ABS, -1 };

	if (an_time_parse(s, utc, &t) < 0)
		return -1;
	*kind = t.kind;
	return t.ns;
}

static void test_times(void)
{
	enum an_time_kind k = AN_TIME_ABS;
	struct an_time t;

	/* epoch seconds and +S, with fractions */
	CHECK(parse("1796120400", true, &k) == 1796120400LL * NS &&
	      k == AN_TIME_ABS);
	/* through a double, as always: exact to 256 ns at today's epoch */
	CHECK(llabs(parse("1796120400.25", true, &k) -
		    (1796120400LL * NS + NS / 4)) <= 256);
	CHECK(parse("+90", true, &k) == 90 * NS && k == AN_TIME_REL);
	CHECK(parse("+0.5", true, &k) == NS / 2 && k == AN_TIME_REL);
	/* HH:MM[:SS[.frac]]: a time of day */
	CHECK(parse("10:20", true, &k) == (10 * 3600 + 20 * 60) * NS &&
	      k == AN_TIME_TOD);
	CHECK(parse("9:05:07.5", true, &k) ==
	      (9 * 3600 + 5 * 60 + 7) * NS + NS / 2 && k == AN_TIME_TOD);
	/* ISO: dates, with a time, a zone; UTC or the local zone */
	CHECK(parse("2026-12-01", true, &k) == T20261201 * NS && k == AN_TIME_ABS);
	CHECK(parse("2026-12-01 10:20", true, &k) == 1796120400LL * NS);
	CHECK(parse("2026-12-01T10:20:00Z", false, &k) == 1796120400LL * NS);
	CHECK(parse("2026-12-01T10:20:00+01:00", false, &k) ==
	      1796116800LL * NS);
	CHECK(parse("2026-12-01T10:20:30-0530", true, &k) ==
	      (1796120430LL + 5 * 3600 + 30 * 60) * NS);
	CHECK(parse("2026-12-01T10:20:00.000000001Z", true, &k) ==
	      1796120400LL * NS + 1);
	setenv("TZ", "XXX-1", 1);	/* UTC+1, no daylight saving */
	tzset();
	CHECK(parse("2026-12-01 10:20", false, &k) == 1796116800LL * NS);
	CHECK(parse("2026-12-01 10:20", true, &k) == 1796120400LL * NS);
	/* a time of day on the first packet's day, in the zone */
	t.kind = AN_TIME_TOD;
	t.ns = (10 * 3600 + 20 * 60) * NS;
	CHECK(an_time_resolve(&t, (T20261201 + 3600) * NS, true) ==
	      1796120400LL * NS);
	CHECK(an_time_resolve(&t, (T20261201 + 3600) * NS, false) ==
	      1796116800LL * NS);
	/* 23:30 UTC is already the next day in UTC+1 */
	CHECK(an_time_resolve(&t, (T20261201 - 1800) * NS, false) ==
	      1796116800LL * NS);
	t.kind = AN_TIME_REL;
	t.ns = 5 * NS;
	CHECK(an_time_resolve(&t, 100 * NS, false) == 105 * NS);
	/* bad times */
	CHECK(parse("", true, &k) < 0);
	CHECK(parse("+", true, &k) < 0);
	CHECK(parse("-5", true, &k) < 0);
	CHECK(parse("12x", true, &k) < 0);
	CHECK(parse("24:00", true, &k) < 0);
	CHECK(parse("10:60", true, &k) < 0);
	CHECK(parse("10:2", true, &k) < 0);
	CHECK(parse("2026-13-01", true, &k) < 0);
	CHECK(parse("2026-12-32", true, &k) < 0);
	CHECK(parse("2026-12-01T10:20+25:00", true, &k) < 0);
	CHECK(parse("2026-12-01T10:20:00.1234567890Z", true, &k) < 0);
	CHECK(parse("1e99", true, &k) < 0);
}

static struct an_op *op_at(const char *client, const char *server,
			   uint32_t proc, int64_t t_ns, const char *path)
{
	static struct an_op op;

	memset(&op, 0, sizeof(op));
	op.client = ip(client);
	op.server = ip(server);
	op.prog = PROG_NFS;
	op.vers = 3;
	op.proc = proc;
	op.first_call_ns = t_ns;
	snprintf(op.path, sizeof(op.path), "%s", path);
	return &op;
}

static void test_match(void)
{
	struct an_filter f;
	int64_t from, to, base = 1000 * NS;

	CHECK(an_filter_match(NULL, op_at("10.0.0.1", "10.0.0.9", NFS3_READ,
					  0, ""), 0));
	an_filter_init(&f, true);
	CHECK(an_filter_empty(&f));
	an_filter_bounds(&f, base, &from, &to);
	CHECK(from == INT64_MIN && to == INT64_MAX);
	CHECK(add(&f, AN_FK_CLIENT, "10.0.0.0/24") == 0);
	CHECK(add(&f, AN_FK_SERVER, "10.0.0.9") == 0);
	CHECK(add(&f, AN_FK_OP, "READ") == 0);
	CHECK(add(&f, AN_FK_FROM, "+10") == 0);
	CHECK(add(&f, AN_FK_TO, "+20") == 0);
	CHECK(!an_filter_empty(&f));
	an_filter_bounds(&f, base, &from, &to);
	CHECK(from == base + 10 * NS && to == base + 20 * NS);
	/* [from, to): the first call at from is in, at to is out */
	CHECK(an_filter_match(&f, op_at("10.0.0.1", "10.0.0.9", NFS3_READ,
					base + 10 * NS, ""), base));
	CHECK(!an_filter_match(&f, op_at("10.0.0.1", "10.0.0.9", NFS3_READ,
					 base + 20 * NS, ""), base));
	CHECK(!an_filter_match(&f, op_at("10.0.0.1", "10.0.0.9", NFS3_READ,
					 base + 10 * NS - 1, ""), base));
	CHECK(!an_filter_match(&f, op_at("10.0.1.1", "10.0.0.9", NFS3_READ,
					 base + 15 * NS, ""), base));
	CHECK(!an_filter_match(&f, op_at("10.0.0.1", "10.0.0.8", NFS3_READ,
					 base + 15 * NS, ""), base));
	CHECK(!an_filter_match(&f, op_at("10.0.0.1", "10.0.0.9", NFS3_WRITE,
					 base + 15 * NS, ""), base));
	/* a time of day becomes absolute once resolved */
	an_filter_init(&f, true);
	CHECK(add(&f, AN_FK_FROM, "10:20") == 0 && f.from.kind == AN_TIME_TOD);
	an_filter_resolve(&f, (T20261201 + 60) * NS);
	CHECK(f.from.kind == AN_TIME_ABS && f.from.ns == 1796120400LL * NS);
	an_filter_resolve(&f, (T20261201 + 86400) * NS);	/* once */
	CHECK(f.from.ns == 1796120400LL * NS);
	CHECK(add(&f, AN_FK_TO, "soon") < 0);
	CHECK(strstr(err, "bad time 'soon'") != NULL && !f.have_to);
	/* path and word */
	an_filter_init(&f, true);
	CHECK(add(&f, AN_FK_PATH, "/home/") == 0);
	CHECK(an_filter_match(&f, op_at("10.0.0.1", "10.0.0.9", NFS3_READ, 0,
					"/export/home/a"), 0));
	CHECK(!an_filter_match(&f, op_at("10.0.0.1", "10.0.0.9", NFS3_READ, 0,
					 "/export/HOME/a"), 0));
	CHECK(!an_filter_match(&f, op_at("10.0.0.1", "10.0.0.9", NFS3_READ, 0,
					 ""), 0));
	an_filter_init(&f, true);
	CHECK(add(&f, AN_FK_WORD, "nfsv3 rea") == 0);
	CHECK(an_filter_match(&f, op_at("10.0.0.1", "10.0.0.9", NFS3_READ, 0,
					""), 0));
	CHECK(!an_filter_match(&f, op_at("10.0.0.1", "10.0.0.9", NFS3_WRITE, 0,
					 ""), 0));
	CHECK(add(&f, AN_FK_WORD, ".0.9") == 0);	/* replaces the word */
	CHECK(an_filter_match(&f, op_at("10.0.0.1", "10.0.0.9", NFS3_WRITE, 0,
					""), 0));
}

static void test_prompt(void)
{
	struct an_filter f, g;
	char buf[512];

	an_filter_init(&f, false);
	CHECK(an_filter_parse("  client=10.0.0.2 s=10.0.0.9,10.1.0.0/16 "
			      "proc=read path=/x  word ", &f, err,
			      sizeof(err)) == 0);
	CHECK(f.n_client == 1 && f.n_server == 2 && f.n_op == 1);
	CHECK(strcmp(f.path, "/x") == 0 && strcmp(f.word, "word") == 0);
	an_filter_str(&f, buf, sizeof(buf));
	CHECK(strcmp(buf, "client=10.0.0.2 server=10.0.0.9,10.1.0.0/16 "
		     "op=read path=/x word") == 0);
	/* the text it prints parses back to the same filter */
	an_filter_init(&g, false);
	CHECK(an_filter_parse(buf, &g, err, sizeof(err)) == 0);
	CHECK(memcmp(&f, &g, sizeof(f)) == 0);
	an_filter_init(&g, false);
	CHECK(an_filter_parse("c=10.0.0.* p=/y", &g, err, sizeof(err)) == 0);
	an_filter_str(&g, buf, sizeof(buf));
	CHECK(strcmp(buf, "client=10.0.0.* path=/y") == 0);
	/* a bad term: an error, the filter kept */
	CHECK(an_filter_parse("op=READ bogus=1", &f, err, sizeof(err)) < 0);
	CHECK(strcmp(err, "unknown filter key 'bogus' (client, server, op, "
		     "path)") == 0);
	CHECK(f.n_client == 1 && strcmp(f.word, "word") == 0);
	CHECK(an_filter_parse("client=", &f, err, sizeof(err)) < 0);
	CHECK(strcmp(err, "filter value empty") == 0);
	CHECK(an_filter_parse("op=NOPE", &f, err, sizeof(err)) < 0);
	CHECK(strstr(err, "unknown procedure 'NOPE'") != NULL);
	/* empty text: an empty filter */
	CHECK(an_filter_parse("   ", &f, err, sizeof(err)) == 0);
	CHECK(an_filter_empty(&f));
	an_filter_str(&f, buf, sizeof(buf));
	CHECK(buf[0] == '\0');
}

static void test_duration(void)
{
	int64_t ns = 0;

	CHECK(an_duration_parse("90", &ns) == 0 && ns == 90 * NS);
	CHECK(an_duration_parse("30s", &ns) == 0 && ns == 30 * NS);
	CHECK(an_duration_parse("10m", &ns) == 0 && ns == 600 * NS);
	CHECK(an_duration_parse("2h", &ns) == 0 && ns == 7200 * NS);
	CHECK(an_duration_parse("7d", &ns) == 0 && ns == 7 * 86400 * NS);
	CHECK(an_duration_parse("0", &ns) < 0);
	CHECK(an_duration_parse("5x", &ns) < 0);
	CHECK(an_duration_parse("5mm", &ns) < 0);
	CHECK(an_duration_parse("m", &ns) < 0);
}

int main(void)
{
	test_addresses();
	test_ops();
	test_times();
	test_match();
	test_prompt();
	test_duration();
	return CHECK_SUMMARY();
}
