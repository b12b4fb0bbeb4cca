/*
 * store_tool.c - test helper for the store suite.
 *   store_tool hist               histogram blob round trip (exit 1 on error)
 *   store_tool intervals DB [RUN [FROM_NS TO_NS]]
 *                                 per procedure, the run's interval cells
 *                                 (starting in [FROM, TO)) merged by
 *                                 store_read_intervals, one JSON object per
 *                                 line: the latency figures exactly as
 *                                 `report --json` prints them
 *   store_tool ops DB [RUN]       number of ops replayed (store_read_ops)
 *   store_tool memstat NEW.db     store_open makes NEW.db; sqlite must keep
 *                                 no memory statistics (each malloc and
 *                                 free would take a global mutex), so
 *                                 its count of memory used stays 0
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"

#include <sqlite3.h>
#include <unistd.h>

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int test_hist(void)
{
	static const double ps[] = { 1, 50, 90, 95, 99, 99.9 };
	uint64_t seed = 88172645463325252ull;
	uint8_t *buf = malloc(HIST_NCHUNK * HIST_SUB * 20);
	int t, fails = 0;
	size_t k, n;

	for (t = 0; t < 200 && buf; t++) {
		struct hist a, b;
		int i, cnt = (int)(rnd(&seed) % 5000);

		hist_init(&a);
		hist_init(&b);
		for (i = 0; i < cnt; i++) {
			uint64_t sh = rnd(&seed) % 46;

			hist_add(&a, rnd(&seed) >> (63 - sh));
		}
		n = store_hist_encode(&a, buf, HIST_NCHUNK * HIST_SUB * 20);
		b.count = a.count;
		b.min = a.min;
		b.max = a.max;
		b.sum = a.sum;
		if (store_hist_decode(&b, buf, n) < 0) {
			fails++;
			continue;
		}
		for (k = 0; k < sizeof(ps) / sizeof(ps[0]); k++)
			if (hist_percentile(&a, ps[k]) != hist_percentile(&b, ps[k])) {
				printf("FAIL: trial %d p%g differs\n", t, ps[k]);
				fails++;
			}
		hist_fini(&a);
		hist_fini(&b);
	}
	/* garbage must be refused, never crash */
	{
		struct hist h;
		uint8_t bad[] = { 0xff, 0xff, 0xff, 0xff, 0x7f, 1 };

		hist_init(&h);
		if (store_hist_decode(&h, bad, sizeof(bad)) == 0) {
			printf("FAIL: bad blob accepted\n");
			fails++;
		}
		hist_fini(&h);
	}
	free(buf);
	printf("hist: %d failures\n", fails);
	return fails ? 1 : 0;
}

static void put_cell(void *user, const struct store_cell *c)
{
	const struct hist *h = &c->lat;

	(void)user;
	printf("{\"prog\": %u, \"vers\": %u, \"proc\": %u, \"calls\": %" PRIu64
	       ", \"answered\": %" PRIu64 ", \"unanswered\": %" PRIu64
	       ", \"errors\": %" PRIu64 ", \"retrans\": %" PRIu64
	       ", \"dup_replies\": %" PRIu64 ", \"bytes\": %" PRIu64
	       ", \"data_bytes\": %" PRIu64 ", \"count\": %" PRIu64,
	       c->prog, c->vers, c->proc, c->calls, c->answered, c->unanswered,
	       c->errors, c->retrans, c->dup_replies, c->bytes, c->data_bytes,
	       h->count);
	if (h->count)
		printf(", \"min_ns\": %" PRIu64 ", \"max_ns\": %" PRIu64
		       ", \"sum_ns\": %.0f, \"p50\": %.3f, \"p90\": %.3f, "
		       "\"p95\": %.3f, \"p99\": %.3f, \"p99_9\": %.3f",
		       h->min, h->max, h->sum, hist_percentile(h, 50) / 1e6,
		       hist_percentile(h, 90) / 1e6, hist_percentile(h, 95) / 1e6,
		       hist_percentile(h, 99) / 1e6, hist_percentile(h, 99.9) / 1e6);
	printf("}\n");
}

/* A new file (store_open's first sqlite use is making it): memory used
 * must read 0, i.e. the statistics are off. */
static int test_memstat(const char *path)
{
	char err[STORE_ERRBUF_SIZE];
	sqlite3_int64 cur = -1, hi = -1;
	struct store *s;

	unlink(path);
	if (store_open(path, STORE_WRITE, &s, err) < 0) {
		fprintf(stderr, "store_tool: %s\n", err);
		return 1;
	}
	sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &cur, &hi, 0);
	store_close(s);
	unlink(path);
	if (cur != 0 || hi != 0) {
		fprintf(stderr, "store_tool: sqlite keeps memory statistics "
			"(%lld bytes used, %lld at most): SQLITE_CONFIG_MEMSTATUS "
			"came after its first use\n", (long long)cur,
			(long long)hi);
		return 1;
	}
	printf("memstat: off\n");
	return 0;
}

static void count_op(void *user, const struct an_op *op)
{
	(void)op;
	++*(uint64_t *)user;
}

int main(int argc, char **argv)
{
	char err[STORE_ERRBUF_SIZE];
	struct store *s;
	int64_t run = 0, from = INT64_MIN, to = INT64_MAX;
	uint64_t n = 0;
	int rc;

	if (argc >= 2 && !strcmp(argv[1], "hist"))
		return test_hist();
	if (argc == 3 && !strcmp(argv[1], "memstat"))
		return test_memstat(argv[2]);
	if (argc < 3) {
		fprintf(stderr, "usage: store_tool hist | intervals DB [RUN] | "
			"ops DB [RUN]\n");
		return 2;
	}
	if (store_open(argv[2], STORE_RDONLY, &s, err) < 0) {
		fprintf(stderr, "store_tool: %s\n", err);
		return 1;
	}
	if (argc > 3)
		run = strtoll(argv[3], NULL, 10);
	if (argc > 5) {
		from = strtoll(argv[4], NULL, 10);
		to = strtoll(argv[5], NULL, 10);
	}
	else if (store_last_run(s, &run, err) < 0)
		goto fail;
	if (!strcmp(argv[1], "intervals"))
		rc = store_read_intervals(s, run, NULL, from, to, put_cell,
					  NULL, err);
	else
		rc = store_read_ops(s, run, NULL, 0, count_op, &n, err);
	if (rc < 0)
		goto fail;
	if (!strcmp(argv[1], "ops"))
		printf("%" PRIu64 "\n", n);
	store_close(s);
	return 0;
fail:
	fprintf(stderr, "store_tool: %s\n", err);
	store_close(s);
	return 1;
}
