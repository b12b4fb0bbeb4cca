/*
 * sqlite_ceiling.c - what sqlite alone can insert: the ops rows of an
 * nfscope database (table op_rows since schema 5, without the rows of its
 * key tables and op_more; table ops before), re-inserted into a fresh
 * file with the same table, the same indexes and the same settings as the
 * store (page_size 16384, WAL,
 * synchronous NORMAL, 32 MiB cache, no memory statistics, one transaction
 * per 45,000 rows), by a loop that does nothing but bind and step; as the
 * store's insert thread (store/write.c, bind_i64), an integer equal to the
 * one bound in its column for the row before is not bound again.  No
 * nfscope code runs, so this is the ceiling the store's insert thread can
 * approach, measured on the same machine in the same run.
 *
 * usage: sqlite_ceiling SRC.db DST.db [ROWS]
 * Loads up to 200,000 rows of SRC's ops into memory, inserts them again and
 * again until ROWS (default 2,000,000) are in, prints
 *   indexes <n> rows <n> seconds <s> rows/s <r>
 * then, if the table has indexes, the same without them.
 */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LOAD_MAX 200000
#define BATCH 45000

static const char *tab = "ops";	/* the table of the rows (main) */

struct val {
	int type;		/* SQLITE_INTEGER, _FLOAT, _TEXT, _BLOB, _NULL */
	int len;
	int64_t i;
	double f;
	const void *p;		/* into the arena */
};

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void die(sqlite3 *db, const char *what)
{
	fprintf(stderr, "sqlite_ceiling: %s: %s\n", what,
		db ? sqlite3_errmsg(db) : "out of memory");
	exit(1);
}

static void exec(sqlite3 *db, const char *sql)
{
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		die(db, sql);
}

/* One timed insert of rows rows (the loaded ones, cycled) into a fresh
 * DST with SRC's ops table and, if with_indexes, its indexes. */
static int run(sqlite3 *src, const char *dst, const struct val *v,
		int ncol, long nload, long rows, int with_indexes)
{
	sqlite3 *db;
	sqlite3_stmt *q;
	char *ins, path[4096];
	size_t off;
	long i;
	int k, nidx = 0;
	double t0, t1;
	const struct val *prev = NULL;	/* the row bound last */

	unlink(dst);
	snprintf(path, sizeof(path), "%s-wal", dst);
	unlink(path);
	snprintf(path, sizeof(path), "%s-shm", dst);
	unlink(path);
	if (sqlite3_open_v2(dst, &db, SQLITE_OPEN_READWRITE |
			    SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL))
		die(db, dst);
	exec(db, "PRAGMA page_size=16384");
	exec(db, "PRAGMA journal_mode=WAL");
	exec(db, "PRAGMA synchronous=NORMAL");
	exec(db, "PRAGMA cache_size=-32768");
	exec(db, "PRAGMA wal_autocheckpoint=8192");
	snprintf(path, sizeof(path), "SELECT sql, type FROM sqlite_master "
		 "WHERE tbl_name = '%s' AND sql IS NOT NULL ORDER BY type DESC",
		 tab);
	if (sqlite3_prepare_v2(src, path, -1, &q, NULL))
		die(src, "sqlite_master");
	while (sqlite3_step(q) == SQLITE_ROW) {
		int idx = strcmp((const char *)sqlite3_column_text(q, 1),
				 "index") == 0;

		if (idx && !with_indexes)
			continue;
		nidx += idx;
		exec(db, (const char *)sqlite3_column_text(q, 0));
	}
	sqlite3_finalize(q);
	/* every column but id, as the store's INSERT names them */
	ins = malloc(64 + (size_t)ncol * 4);
	if (ins == NULL)
		die(NULL, "insert");
	off = (size_t)sprintf(ins, "INSERT INTO %s VALUES(NULL", tab);
	for (k = 0; k < ncol; k++)
		off += (size_t)sprintf(ins + off, ",?");
	sprintf(ins + off, ")");
	if (sqlite3_prepare_v3(db, ins, -1, SQLITE_PREPARE_PERSISTENT, &q, NULL))
		die(db, ins);
	free(ins);
	t0 = now();
	exec(db, "BEGIN");
	for (i = 0; i < rows; i++) {
		const struct val *r = &v[(i % nload) * ncol];

		for (k = 0; k < ncol; k++) {
			switch (r[k].type) {
			case SQLITE_INTEGER:
				if (prev && prev[k].type == SQLITE_INTEGER &&
				    prev[k].i == r[k].i)
					break;	/* bound already, as the store */
				sqlite3_bind_int64(q, k + 1, r[k].i);
				break;
			case SQLITE_FLOAT:
				sqlite3_bind_double(q, k + 1, r[k].f);
				break;
			case SQLITE_TEXT:
				sqlite3_bind_text(q, k + 1, r[k].p, r[k].len,
						  SQLITE_STATIC);
				break;
			case SQLITE_BLOB:
				sqlite3_bind_blob(q, k + 1, r[k].p, r[k].len,
						  SQLITE_STATIC);
				break;
			default:
				sqlite3_bind_null(q, k + 1);
			}
		}
		prev = r;
		if (sqlite3_step(q) != SQLITE_DONE)
			die(db, "insert");
		sqlite3_reset(q);
		if ((i + 1) % BATCH == 0) {
			exec(db, "COMMIT");
			exec(db, "BEGIN");
		}
	}
	exec(db, "COMMIT");
	t1 = now();
	sqlite3_finalize(q);
	sqlite3_close(db);
	printf("indexes %d rows %ld seconds %.3f rows/s %.0f\n", nidx, rows,
	       t1 - t0, (double)rows / (t1 - t0));
	return nidx;
}

int main(int argc, char **argv)
{
	sqlite3 *src;
	sqlite3_stmt *q;
	struct val *v;
	char *arena;
	size_t used = 0, cap = 64u << 20;
	long nload = 0, rows = argc > 3 ? atol(argv[3]) : 2000000;
	char sel[128];
	int ncol, k;

	if (argc < 3) {
		fprintf(stderr, "usage: sqlite_ceiling SRC.db DST.db [ROWS]\n");
		return 2;
	}
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	if (sqlite3_open_v2(argv[1], &src, SQLITE_OPEN_READONLY, NULL))
		die(src, argv[1]);
	if (sqlite3_prepare_v2(src, "SELECT 1 FROM op_rows LIMIT 0", -1, &q,
			       NULL) == SQLITE_OK)
		tab = "op_rows";	/* schema 5: the table under the view */
	sqlite3_finalize(q);
	snprintf(sel, sizeof(sel), "SELECT * FROM %s WHERE run <> 0 ORDER BY "
		 "id LIMIT 200000", tab);
	if (sqlite3_prepare_v2(src, sel, -1, &q, NULL))
		die(src, "ops");
	ncol = sqlite3_column_count(q) - 1;	/* id is left to sqlite */
	v = malloc((size_t)LOAD_MAX * (size_t)ncol * sizeof(*v));
	arena = malloc(cap);
	if (v == NULL || arena == NULL)
		die(NULL, "load");
	while (nload < LOAD_MAX && sqlite3_step(q) == SQLITE_ROW) {
		struct val *r = &v[nload * ncol];

		for (k = 0; k < ncol; k++) {
			int c = k + 1, n;
			const void *p;

			r[k].type = sqlite3_column_type(q, c);
			if (r[k].type == SQLITE_INTEGER) {
				r[k].i = sqlite3_column_int64(q, c);
				continue;
			}
			if (r[k].type == SQLITE_FLOAT) {
				r[k].f = sqlite3_column_double(q, c);
				continue;
			}
			if (r[k].type == SQLITE_NULL)
				continue;
			p = r[k].type == SQLITE_TEXT ?
			    (const void *)sqlite3_column_text(q, c) :
			    sqlite3_column_blob(q, c);
			n = sqlite3_column_bytes(q, c);
			if (used + (size_t)n + 1 > cap)
				die(NULL, "arena");
			if (n)
				memcpy(arena + used, p, (size_t)n);
			arena[used + (size_t)n] = '\0';
			r[k].p = arena + used;
			r[k].len = n;
			used += (size_t)n + 1;
		}
		nload++;
	}
	sqlite3_finalize(q);
	if (nload == 0) {
		fprintf(stderr, "sqlite_ceiling: %s: no ops rows\n", argv[1]);
		return 1;
	}
	if (run(src, argv[2], v, ncol, nload, rows, 1) > 0)
		run(src, argv[2], v, ncol, nload, rows, 0);
	sqlite3_close(src);
	free(v);
	free(arena);
	return 0;
}
