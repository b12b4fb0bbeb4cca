/*
 * fuzz_store.c - a hostile database in front of the store's reader and
 * `nfscope report DB` (issue 17): nothing a file holds may crash the
 * reader or the report, nor make it read out of bounds.
 *
 * The first byte picks the mode, the rest is its input:
 *   0  a histogram blob for store_hist_decode; one that decodes must
 *      encode and decode again to the same counts;
 *   1  the bytes of a database file, read by `report DB` (text and JSON);
 *   2  an SQL script run on a valid database (a run of a few operations
 *      written through the store's own writer), then `report DB`: the
 *      way to hostile values in well-formed tables (a schema_version of
 *      4294967298, lat_hist blobs that lie, negative counts, a runs row
 *      without ops, text with control bytes ...).
 * Files live in the system's temporary directory, one set per process.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "store/store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int ui_report_main(int argc, char **argv);

static char db_path[256], tmpl_path[256];

static void rm_db(const char *p)
{
	static const char *const sfx[] = { "", "-wal", "-shm", "-journal" };
	char b[300];
	size_t k;

	for (k = 0; k < sizeof(sfx) / sizeof(sfx[0]); k++) {
		snprintf(b, sizeof(b), "%s%s", p, sfx[k]);
		unlink(b);
	}
}

/* A valid database with one run of three operations, made once. */
static int make_template(void)
{
	char err[STORE_ERRBUF_SIZE];
	struct store *s;
	struct store_run run;
	struct an_op op;
	int k;

	rm_db(tmpl_path);
	if (store_open(tmpl_path, STORE_WRITE, &s, err) < 0)
		return -1;
	memset(&run, 0, sizeof(run));
	snprintf(run.source, sizeof(run.source), "fuzz");
	run.interval_ns = 1000000000;
	if (store_run_begin(s, &run, err) < 0) {
		store_close(s);
		return -1;
	}
	for (k = 0; k < 3; k++) {
		memset(&op, 0, sizeof(op));
		op.client.family = op.server.family = 4;
		op.client.a[0] = 10;
		op.client.a[3] = 1;
		op.server.a[0] = 10;
		op.server.a[3] = 2;
		op.prog = 100003;
		op.vers = 3;
		op.proc = k == 0 ? 6 : k == 1 ? 7 : 1;	/* READ WRITE GETATTR */
		op.transport = CAP_UDP;
		op.first_call_ns = op.last_call_ns = 1700000000000000000LL +
						     k * 1000000LL;
		op.reply_ns = op.first_call_ns + 500000;
		op.lat_first_ns = op.lat_last_ns = 500000;
		op.flags = AN_OP_ANSWERED;
		op.count = op.rcount = 8192;
		op.export_id = -1;
		op.xid = (uint32_t)k + 1;
		if (store_put_op(s, &op, NULL, err) < 0)
			break;
	}
	snprintf(run.state, sizeof(run.state), "complete");
	run.first_ns = 1700000000000000000LL;
	run.last_ns = run.first_ns + 3000000;
	k = store_run_end(s, &run, NULL, NULL, NULL, err);
	store_close(s);
	return k;
}

static void report(void)
{
	char *text[] = { "report", db_path, NULL };
	char *json[] = { "report", db_path, "--json", NULL };
	char *csv[] = { "report", db_path, "--csv", "intervals", "--interval",
			"1", NULL };

	int out = dup(1), err = dup(2), null = open("/dev/null", O_WRONLY);

	/* the report writes to stdout and stderr: away with it meanwhile */
	fflush(stdout);
	fflush(stderr);
	dup2(null, 1);
	dup2(null, 2);
	optind = 0;
	ui_report_main(2, text);
	optind = 0;
	ui_report_main(3, json);
	optind = 0;
	ui_report_main(6, csv);
	fflush(stdout);
	fflush(stderr);
	dup2(out, 1);
	dup2(err, 2);
	close(out);
	close(err);
	close(null);
}

static int write_file(const char *p, const uint8_t *d, size_t n)
{
	FILE *f = fopen(p, "wb");
	int rc = 0;

	if (f == NULL)
		return -1;
	if (n && fwrite(d, 1, n, f) != n)
		rc = -1;
	if (fclose(f) != 0)
		rc = -1;
	return rc;
}

static int copy_template(void)
{
	FILE *f = fopen(tmpl_path, "rb");
	uint8_t buf[1 << 16];
	size_t n, total = 0;
	uint8_t *all = NULL;
	int rc;

	if (f == NULL)
		return -1;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		uint8_t *a = realloc(all, total + n);

		if (a == NULL)
			break;
		all = a;
		memcpy(all + total, buf, n);
		total += n;
	}
	fclose(f);
	rc = write_file(db_path, all, total);
	free(all);
	return rc;
}

static void hist_mode(const uint8_t *d, size_t n)
{
	struct hist h, g;
	uint8_t buf[65536];
	size_t m;

	hist_init(&h);
	hist_init(&g);
	if (store_hist_decode(&h, d, n) == 0) {
		m = store_hist_encode(&h, buf, sizeof(buf));
		if (m > 0 && (store_hist_decode(&g, buf, m) != 0 ||
			      g.count != h.count || g.max != h.max ||
			      hist_percentile(&g, 50) != hist_percentile(&h, 50)))
			abort();	/* a blob's meaning changed on the way */
	}
	hist_fini(&h);
	hist_fini(&g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;

	if (!ready) {
		const char *t = getenv("TMPDIR");

		snprintf(db_path, sizeof(db_path), "%s/fuzz_store.%d.db",
			 t ? t : "/tmp", (int)getpid());
		snprintf(tmpl_path, sizeof(tmpl_path), "%s/fuzz_store.%d.tmpl",
			 t ? t : "/tmp", (int)getpid());
		if (make_template() < 0)
			abort();	/* the harness itself cannot run */
		ready = 1;
	}
	if (size == 0)
		return 0;
	rm_db(db_path);
	switch (data[0] % 3) {
	case 0:
		hist_mode(data + 1, size - 1);
		break;
	case 1:
		if (write_file(db_path, data + 1, size - 1) == 0)
			report();
		break;
	default: {
		sqlite3 *db;
		char *sql = malloc(size);

		if (sql == NULL || copy_template() < 0) {
			free(sql);
			break;
		}
		memcpy(sql, data + 1, size - 1);
		sql[size - 1] = '\0';
		if (sqlite3_open(db_path, &db) == SQLITE_OK) {
			sqlite3_exec(db, sql, NULL, NULL, NULL);
			sqlite3_close(db);
			report();
		} else {
			sqlite3_close(db);
		}
		free(sql);
		break;
	}
	}
	rm_db(db_path);
	return 0;
}
