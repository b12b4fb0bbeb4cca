/* report_db.c - `nfscope report OUT.db`: a stored run as the report's
 * source.  The run's operations are replayed, in the order the engine
 * delivered them, through the same figures and findings code as a live
 * report, and its counters replace the capture's: the report is the one
 * `report -r FILE` printed for that capture, figure for figure. */
#include "ui/report.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

bool rep_is_store(const char *path)
{
	static const char magic[16] = "SQLite format 3";
	struct stat st;
	char b[16];
	FILE *f;
	bool yes;

	/* only a regular file can be a database: a FIFO, /dev/stdin or
	 * <(...) is never opened here, so no byte of it is consumed before
	 * the capture reader sees it */
	if (path == NULL || !strcmp(path, "-") || stat(path, &st) != 0 ||
	    !S_ISREG(st.st_mode) || (f = fopen(path, "rb")) == NULL)
		return false;
	yes = fread(b, 1, sizeof(b), f) == sizeof(b) &&
	      memcmp(b, magic, sizeof(b)) == 0;
	fclose(f);
	return yes;
}

/* The run's TCP handshakes into find (the vantage point, find.h). */
static int read_handshakes(struct store *s, int64_t run, struct an_find *find,
			   char *err)
{
	struct cap_handshake *hs = calloc(AN_FIND_PAIRS, sizeof(*hs));
	size_t n = 0;
	int rc;

	if (hs == NULL) {
		snprintf(err, STORE_ERRBUF_SIZE, "out of memory");
		return -1;
	}
	rc = store_read_handshakes(s, run, hs, AN_FIND_PAIRS, &n, err);
	if (rc == 0)
		an_find_handshakes(find, hs, n);
	free(hs);
	return rc;
}

static void on_drop(void *user, const struct cap_drop_span *sp)
{
	struct rep *r = user;

	ui_drops_add(&r->drops, sp);
}

int rep_store_load(struct rep *r, const char *path, int64_t run_id,
		   struct store_run *run, struct an_names **names,
		   an_op_fn fn)
{
	char err[STORE_ERRBUF_SIZE];
	struct store *s = NULL;
	int rc = -1;

	*names = NULL;
	if (store_open(path, STORE_RDONLY, &s, err) < 0)
		goto fail;
	if (run_id == 0) {
		if (store_last_run(s, &run_id, err) < 0)
			goto fail;
		if (run_id == 0) {
			snprintf(err, sizeof(err), "%s: no run recorded yet", path);
			goto fail;
		}
	}
	if (store_read_run(s, run_id, run, err) < 0)
		goto fail;
	/* --ops slow/none: rep_partial_text reports the aggregates */
	r->partial = run->ops_mode != STORE_OPS_ALL;
	if (strcmp(run->state, "recording") == 0 ||
	    strcmp(run->state, "failed") == 0)
		fprintf(stderr, "nfscope report: warning: run %" PRId64 " of %s "
			"is incomplete (%s): the report covers the batches "
			"committed so far\n", run->id, path,
			run->state[0] == 'f' ? "the recorder failed" :
			"still recording, or the recorder was killed");
	*names = an_names_new(0);
	if (*names == NULL) {
		snprintf(err, sizeof(err), "out of memory");
		goto fail;
	}
	if (store_read_exports(s, run->id, *names, err) < 0 ||
	    store_read_drops(s, run->id, on_drop, r, err) < 0)
		goto fail;
	r->source = run->source;
	r->first_ns = run->first_ns;
	r->last_ns = run->last_ns;
	r->rpc_msgs = run->rpc_msgs;
	r->cs = run->cs;
	r->ds = &run->ds;
	r->es = &run->es;
	r->names = *names;
	if (strcmp(run->state, "cut") == 0) {
		r->cut = true;
		r->cut_at.packets = run->cs.packets;
		r->cut_at.offset = run->read_error_offset;
		snprintf(r->cut_at.why, sizeof(r->cut_at.why), "%s",
			 run->read_error);
	}
	an_filter_resolve(&r->filt, run->first_ns);
	/* before the ops: once they flow, the findings are the op thread's
	   until the queue is drained (the vantage is judged at the end) */
	if (read_handshakes(s, run->id, r->find, err) < 0)
		goto fail;
	if (!r->partial &&
	    store_read_ops(s, run->id, r->filtered ? &r->filt : NULL,
			   run->first_ns, fn, r, err) < 0)
		goto fail;
	rc = 0;
fail:
	if (rc < 0)
		fprintf(stderr, "nfscope report: %s\n", err);
	store_close(s);
	return rc;
}

int rep_store_list(const char *path, FILE *out, enum ui_time_mode tm)
{
	char t0[48], t1[48];
	char err[STORE_ERRBUF_SIZE];
	struct store *s = NULL;
	struct store_run *run = malloc(sizeof(*run));
	int64_t last = 0, id;
	int rc = -1;

	if (run == NULL || store_open(path, STORE_RDONLY, &s, err) < 0 ||
	    store_last_run(s, &last, err) < 0)
		goto out;
	fprintf(out, "%5s %-12s %-6s %-23s %-23s %10s %10s  %s\n", "run", "state",
		"ops", "first", "last", "packets", "ops", "source");
	for (id = 1; id <= last; id++) {
		if (store_read_run(s, id, run, err) < 0)
			continue;	/* deleted by --retain */
		fprintf(out, "%5" PRId64 " %-12s %-6s %-23s %-23s %10" PRIu64
			" %10" PRIu64 "  %s\n", run->id, run->state,
			run->ops_mode == STORE_OPS_ALL ? "all" :
			run->ops_mode == STORE_OPS_SLOW ? "slow" : "none",
			ui_time_str(run->first_ns, tm, 3, t0, sizeof(t0)),
			ui_time_str(run->last_ns, tm, 3, t1, sizeof(t1)),
			run->cs.packets, run->ops_stored, run->source);
	}
	rc = 0;
out:
	if (rc < 0)
		fprintf(stderr, "nfscope report: %s\n", err);
	store_close(s);
	free(run);
	return rc;
}
