/*
 * test_metrics.c - the Prometheus exposition text (ui/serve/metrics.h) of
 * hand-made operations against hand-computed figures: latency and size
 * buckets at their edges (le is <=), +Inf == _count, cumulative buckets
 * never decrease, errors by status name, the series budget (an "other"
 * series, nothing lost), label values with hostile bytes, and every line
 * in the text format 0.0.4 grammar.
 */
#define _GNU_SOURCE	/* memmem */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/lib/check.h"
#include "ui/serve/metrics.h"

static struct an_op op;

static void op_init(uint32_t client, uint32_t proc)
{
	memset(&op, 0, sizeof(op));
	op.client.family = op.server.family = 4;
	memcpy(op.client.a, &client, 4);
	op.server.a[0] = 10;
	op.server.a[3] = 2;
	op.prog = PROG_NFS;
	op.vers = 3;
	op.proc = proc;
	op.lat_first_ns = op.lat_last_ns = -1;
	op.export_id = -1;
}

static void answered(int64_t lat_ns, uint32_t status)
{
	op.flags |= AN_OP_ANSWERED;
	op.have |= AN_HAVE_STATUS;
	op.status = status;
	op.reply_stat = RPC_MSG_ACCEPTED;
	op.accept_stat = RPC_SUCCESS;
	op.lat_first_ns = op.lat_last_ns = lat_ns;
}

/* The value of the line that starts with `key ` (exact), or NAN. */
static double value_of(const char *text, const char *key)
{
	size_t n = strlen(key);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, key, n) && p[n] == ' ')
			return strtod(p + n + 1, NULL);
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return NAN;
}

/* metric_name ["{" label="value" {"," label="value"} "}"] " " value */
static bool line_ok(const char *l, const char *end)
{
	const char *p = l;

	if (*l == '#')
		return !strncmp(l, "# HELP ", 7) || !strncmp(l, "# TYPE ", 7);
	if (!(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
		return false;
	while (p < end && (*p == '_' || *p == ':' || (*p >= 'a' && *p <= 'z') ||
			   (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
		p++;
	if (p < end && *p == '{') {
		p++;
		while (p < end && *p != '}') {
			while (p < end && *p != '=' && *p != '"')
				p++;
			if (p + 1 >= end || p[0] != '=' || p[1] != '"')
				return false;
			for (p += 2; p < end && *p != '"'; p++)
				if (*p == '\\' && (p + 1 >= end ||
						   !strchr("\\\"n", *++p)))
					return false;
			if (p >= end)
				return false;
			p++;
			if (p < end && *p == ',')
				p++;
		}
		if (p >= end)
			return false;
		p++;
	}
	if (p >= end || *p != ' ')
		return false;
	p++;
	if (!strncmp(p, "+Inf", 4) || !strncmp(p, "NaN", 3))
		return true;
	return p < end && ((*p >= '0' && *p <= '9') || *p == '-');
}

/* Every line in the grammar; the buckets of each histogram series never
 * decrease and end at +Inf == _count.  Returns the lines checked. */
static unsigned check_text(const char *t)
{
	char series[1024] = "", count_key[1100];
	double prev = -1, v;
	unsigned lines = 0;
	const char *p = t, *e, *le;

	for (; *p; p = e + 1) {
		e = strchr(p, '\n');
		if (e == NULL) {
			CHECK(!"text ends with a newline");
			break;
		}
		lines++;
		if (!line_ok(p, e)) {
			printf("bad line: %.*s\n", (int)(e - p), p);
			CHECK(!"line in the exposition grammar");
		}
		le = memmem(p, (size_t)(e - p), ",le=\"", 5);
		if (le == NULL || !memmem(p, (size_t)(e - p), "_bucket{", 8))
			continue;
		if ((size_t)(le - p) != strlen(series) ||
		    strncmp(series, p, (size_t)(le - p))) {
			snprintf(series, sizeof(series), "%.*s", (int)(le - p), p);
			prev = -1;
		}
		v = strtod(strchr(le, ' ') + 1, NULL);
		CHECK(v >= prev);
		prev = v;
		if (!strncmp(le, ",le=\"+Inf\"}", 11)) {
			/* x_bucket{L,le="+Inf"} == x_count{L}, two lines on */
			snprintf(count_key, sizeof(count_key), "%.*s_count%s}",
				 (int)(strstr(series, "_bucket{") - series),
				 series, strstr(series, "{"));
			CHECK(value_of(e + 1, count_key) == v);
		}
	}
	return lines;
}

#define LAB "op=\"NFSv3 READ\",prog=\"NFS\",vers=\"3\",proc=\"READ\"," \
	"client=\"10.0.0.1\",server=\"10.0.0.2\""
#define LAT "nfscope_latency_seconds_bucket{" LAB ",le="
#define SIZE "nfscope_transfer_size_bytes_bucket{" LAB ",le="
#define WLAB "op=\"NFSv3 WRITE\",prog=\"NFS\",vers=\"3\",proc=\"WRITE\"," \
	"client=\"10.0.0.1\",server=\"10.0.0.2\""
#define OTHER "op=\"other\",prog=\"other\",vers=\"other\",proc=\"other\"," \
	"client=\"other\",server=\"other\""

static void test_figures(void)
{
	struct ui_mx *m = ui_mx_new(0);
	char *buf = NULL;
	size_t cap = 0, len;
	uint32_t c1 = 0x0100000a;	/* 10.0.0.1 */
	uint32_t k;
	double sum;

	/* READs: 8192 ns (on the first edge), 8193 ns, 1 s, 2^36 ns */
	static const int64_t lats[] = { 8192, 8193, 1000000000, 1ll << 36 };
	for (k = 0; k < 4; k++) {
		op_init(c1, NFS3_READ);
		op.have = AN_HAVE_COUNT | AN_HAVE_RCOUNT;
		op.count = k == 0 ? 32768 : 32769;
		op.rcount = 100;
		op.call_len = 100;
		op.reply_len = 200;
		op.retrans = k;
		answered(lats[k], 0);
		ui_mx_op(m, &op);
	}
	/* a WRITE that failed, one never answered, one from its reply */
	op_init(c1, NFS3_WRITE);
	answered(50000, 28);		/* NFS3ERR_NOSPC */
	ui_mx_op(m, &op);
	op_init(c1, NFS3_WRITE);
	ui_mx_op(m, &op);
	op_init(c1, NFS3_WRITE);
	op.flags = AN_OP_ANSWERED | AN_OP_CALL_NOT_SEEN;
	ui_mx_op(m, &op);

	len = ui_mx_render(m, &buf, &cap);
	CHECK(len > 0 && len == strlen(buf));
	CHECK(check_text(buf) > 50);
	CHECK(value_of(buf, "nfscope_ops_total{" LAB "}") == 4);
	CHECK(value_of(buf, "nfscope_answered_total{" LAB "}") == 4);
	CHECK(value_of(buf, "nfscope_retransmissions_total{" LAB "}") == 6);
	CHECK(value_of(buf, "nfscope_wire_bytes_total{" LAB "}") == 1200);
	CHECK(value_of(buf, "nfscope_data_bytes_total{" LAB "}") == 400);
	CHECK(value_of(buf, LAT "\"8.192e-06\"}") == 1);
	CHECK(value_of(buf, LAT "\"1.6384e-05\"}") == 2);
	CHECK(value_of(buf, LAT "\"0.536870912\"}") == 2);
	CHECK(value_of(buf, LAT "\"1.073741824\"}") == 3);
	CHECK(value_of(buf, LAT "\"34.359738368\"}") == 3);
	CHECK(value_of(buf, LAT "\"+Inf\"}") == 4);
	CHECK(value_of(buf, "nfscope_latency_seconds_count{" LAB "}") == 4);
	sum = value_of(buf, "nfscope_latency_seconds_sum{" LAB "}");
	CHECK(fabs(sum - (8192 + 8193 + 1e9 + 68719476736.0) / 1e9) < 1e-9);
	CHECK(value_of(buf, SIZE "\"32768\"}") == 1);
	CHECK(value_of(buf, SIZE "\"65536\"}") == 4);
	CHECK(value_of(buf, SIZE "\"+Inf\"}") == 4);
	CHECK(value_of(buf, "nfscope_ops_total{" WLAB "}") == 2);
	CHECK(value_of(buf, "nfscope_unanswered_total{" WLAB "}") == 1);
	CHECK(value_of(buf, "nfscope_from_replies_total{" WLAB "}") == 1);
	CHECK(value_of(buf, "nfscope_errors_total{" WLAB
		       ",status=\"NFS3ERR_NOSPC\"}") == 1);
	CHECK(value_of(buf, "nfscope_series") == 2);
	CHECK(value_of(buf, "nfscope_input_done") == 0);

	/* past the series budget: one "other" series, no op lost */
	for (k = 0; k < UI_MX_SERIES_DEFAULT + 100; k++) {
		op_init(0x0000000b | (k << 8), NFS3_GETATTR);
		answered(1000, 0);
		ui_mx_op(m, &op);
	}
	len = ui_mx_render(m, &buf, &cap);
	CHECK(len > 0);
	CHECK(check_text(buf) > UI_MX_SERIES_DEFAULT);
	CHECK(value_of(buf, "nfscope_series") == UI_MX_SERIES_DEFAULT);
	/* 2 series before, 16381 more, then the other series */
	CHECK(value_of(buf, "nfscope_series_overflow_ops_total") ==
	      UI_MX_SERIES_DEFAULT + 100 - (UI_MX_SERIES_DEFAULT - 1 - 2));
	CHECK(value_of(buf, "nfscope_ops_total{" OTHER "}") == 103);
	CHECK(value_of(buf, "nfscope_series_dropped_total") == 103);
	CHECK(value_of(buf, "nfscope_series_max") == UI_MX_SERIES_DEFAULT);
	free(buf);
	ui_mx_free(m);
	ui_mx_free(NULL);
}

/* --metrics-max N: N series at most, the last the "other" one; a key
 * refused is counted once in nfscope_series_dropped_total however many
 * of its operations come. */
static void test_max(void)
{
	struct ui_mx *m;
	char *buf = NULL;
	size_t cap = 0;
	uint32_t k, max = 0;

	CHECK(!ui_mx_parse_max("0", &max) && !ui_mx_parse_max("x", &max));
	CHECK(!ui_mx_parse_max("4194305", &max));
	CHECK(ui_mx_parse_max("4", &max) && max == 4);
	CHECK(ui_mx_new(UI_MX_SERIES_LIMIT + 1) == NULL);
	m = ui_mx_new(max);
	/* 3 keys get series; 3 more keys, each 3 times, go to "other" */
	for (k = 0; k < 3 + 3 * 3; k++) {
		op_init(0x0000000b | ((k < 3 ? k : 3 + (k - 3) % 3) << 8),
			NFS3_GETATTR);
		answered(8192, 0);
		ui_mx_op(m, &op);
	}
	CHECK(ui_mx_render(m, &buf, &cap) > 0);
	CHECK(check_text(buf) > 20);
	CHECK(value_of(buf, "nfscope_series") == 4);
	CHECK(value_of(buf, "nfscope_series_max") == 4);
	CHECK(value_of(buf, "nfscope_series_overflow_ops_total") == 9);
	CHECK(value_of(buf, "nfscope_series_dropped_total") == 3);
	CHECK(value_of(buf, "nfscope_ops_total{" OTHER "}") == 9);
	/* on the first edge: le includes it */
	CHECK(value_of(buf, "nfscope_latency_seconds_bucket{" OTHER
		       ",le=\"8.192e-06\"}")
	      == 9);
	/* 10 more keys, once each */
	for (k = 0; k < 10; k++) {
		op_init(0x0000000c | (k << 8), NFS3_GETATTR);
		ui_mx_op(m, &op);
	}
	CHECK(ui_mx_render(m, &buf, &cap) > 0);
	CHECK(value_of(buf, "nfscope_series_dropped_total") == 13);
	CHECK(value_of(buf, "nfscope_series_overflow_ops_total") == 19);
	free(buf);
	ui_mx_free(m);
	m = ui_mx_new(1);	/* only the "other" series */
	op_init(0x0100000a, NFS3_READ);
	ui_mx_op(m, &op);
	buf = NULL;
	cap = 0;
	CHECK(ui_mx_render(m, &buf, &cap) > 0);
	CHECK(value_of(buf, "nfscope_series") == 1);
	CHECK(value_of(buf, "nfscope_series_dropped_total") == 1);
	free(buf);
	ui_mx_free(m);
}

static void test_labels(void)
{
	char out[64], small[6], line[200];

	ui_mx_label("a\"b\\c\nd\x1b[31m\xff\xfe}", out, sizeof(out));
	CHECK(!strcmp(out, "a\\\"b\\\\c\\nd?[31m??}"));
	snprintf(line, sizeof(line), "x{kind=\"%s\"} 1", out);
	CHECK(line_ok(line, line + strlen(line)));
	/* cut short, never an escape cut in half */
	ui_mx_label("ab\"\"\"", small, sizeof(small));
	CHECK(!strcmp(small, "ab\\\""));
	ui_mx_label("\\\\\\", small, sizeof(small));
	CHECK(!strcmp(small, "\\\\\\\\"));
	ui_mx_label("abc", out, 0);
}

static void test_listen(void)
{
	struct ui_mx *m = ui_mx_new(0);
	char err[256];

	CHECK(ui_mx_listen(m, "nohost:1", err, sizeof(err)) < 0);
	CHECK(strstr(err, "bad address") != NULL);
	CHECK(ui_mx_listen(m, "127.0.0.1:99999", err, sizeof(err)) < 0);
	CHECK(ui_mx_listen(m, "127.0.0.1", err, sizeof(err)) < 0);
	CHECK(ui_mx_listen(m, "192.0.2.1:9464", err, sizeof(err)) < 0);
	CHECK(strstr(err, "cannot listen") != NULL);
	CHECK(ui_mx_listen(m, "127.0.0.1:0", err, sizeof(err)) == 0);
	CHECK(ui_mx_start(m, err, sizeof(err)) == 0);
	ui_mx_free(m);	/* stops the server */
	m = ui_mx_new(0);
	CHECK(ui_mx_listen(m, "[::1]:0", err, sizeof(err)) == 0 ||
	      strstr(err, "cannot listen"));	/* a host without IPv6 */
	ui_mx_free(m);	/* closes the socket, never started */
}

int main(void)
{
	test_labels();
	test_figures();
	test_max();
	test_listen();
	return CHECK_SUMMARY();
}
