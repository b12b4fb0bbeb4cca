/* report_db.c - `nfscope report OUT.db`: a stored run as the report's
 * source.  The run's operations are replayed, in the order the engine
 * delivered them, through the same figures and findings code as a live
 * report, and its counters replace the capture's: the report is the one
 * `report -r FILE` printed for that capture, figure for figure. */
#include "ui/report/report_db.h"
#include "ui/report/rep.h"
#include "ui/report/report_partial.h"
#include "ui/wrap.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int rep_src_parse(const char *arg, struct rep_src *src)
{
	const char *colon = strrchr(arg, ':');
	size_t n;
	uint64_t v;

	memset(src, 0, sizeof(*src));
	if (strlen(arg) >= sizeof(src->path))
		return -1;
	if (store_is_db(arg)) {
		snprintf(src->path, sizeof(src->path), "%s", arg);
		return 0;
	}
	if (colon == NULL || !ui_parse_u64(colon + 1, &v) || v == 0 ||
	    v > INT64_MAX)
		return -1;
	n = (size_t)(colon - arg);
	memcpy(src->path, arg, n);
	src->path[n] = '\0';
	src->run_id = (int64_t)v;
	return store_is_db(src->path) ? 0 : -1;
}

/* The pair's handshakes of one more run into hs (*n used, max slots): a
 * pair seen in both adds its counts and keeps the smaller minimums. */
static void hs_merge(struct cap_handshake *hs, size_t *n, size_t max,
		     const struct cap_handshake *h)
{
	size_t k;

	for (k = 0; k < *n; k++)
		if (cap_addr_eq(&hs[k].client, &h->client) &&
		    cap_addr_eq(&hs[k].server, &h->server))
			break;
	if (k == *n) {
		if (*n < max)
			hs[(*n)++] = *h;
		return;
	}
#define MIN_OF(a, an, b, bn) ((an) == 0 || ((bn) && (b) < (a)) ? (b) : (a))
	hs[k].syn_min_ns = MIN_OF(hs[k].syn_min_ns, hs[k].n, h->syn_min_ns, h->n);
	hs[k].ack_min_ns = MIN_OF(hs[k].ack_min_ns, hs[k].n, h->ack_min_ns, h->n);
	hs[k].srv_min_ns = MIN_OF(hs[k].srv_min_ns, hs[k].srv_n, h->srv_min_ns,
				  h->srv_n);
	hs[k].cli_min_ns = MIN_OF(hs[k].cli_min_ns, hs[k].cli_n, h->cli_min_ns,
				  h->cli_n);
#undef MIN_OF
	hs[k].n += h->n;
	hs[k].syn_sum_ns += h->syn_sum_ns;
	hs[k].ack_sum_ns += h->ack_sum_ns;
	hs[k].srv_n += h->srv_n;
	hs[k].cli_n += h->cli_n;
}

/* The runs' TCP handshakes (the vantage point, find.h) into find. */
static int read_handshakes(struct store **s, const struct store_run *runs,
			   size_t nsrc, struct an_find *find, char *err)
{
	struct cap_handshake *all = calloc(2 * AN_FIND_PAIRS, sizeof(*all));
	struct cap_handshake *one = all + AN_FIND_PAIRS;
	size_t n = 0, got, i, k;

	if (all == NULL) {
		snprintf(err, STORE_ERRBUF_SIZE, "out of memory");
		return -1;
	}
	for (i = 0; i < nsrc; i++) {
		if (store_read_handshakes(s[i], runs[i].id, one, AN_FIND_PAIRS,
					  &got, err) < 0) {
			free(all);
			return -1;
		}
		for (k = 0; k < got; k++)
			hs_merge(all, &n, AN_FIND_PAIRS, &one[k]);
	}
	an_find_handshakes(find, all, n);
	free(all);
	return 0;
}

static void on_drop(void *user, const struct cap_drop_span *sp)
{
	struct rep *r = user;

	ui_drops_add(&r->drops, sp);
}

/* Run src->run_id (0: the last) of an open store into *run. */
static int read_run(const char *who, struct store *s,
		    const struct rep_src *src, struct store_run *run, char *err)
{
	int64_t id = src->run_id;

	if (id == 0) {
		if (store_last_run(s, &id, err) < 0)
			return -1;
		if (id == 0) {
			snprintf(err, STORE_ERRBUF_SIZE, "%s: no run recorded "
				 "yet", src->path);
			return -1;
		}
	}
	if (store_read_run(s, id, run, err) < 0)
		return -1;
	if (strcmp(run->state, "recording") == 0 ||
	    strcmp(run->state, "failed") == 0)
		fprintf(stderr, "nfscope %s: warning: run %" PRId64 " of %s "
			"is incomplete (%s): the report covers the batches "
			"committed so far\n", who, run->id, src->path,
			run->state[0] == 'f' ? "the recorder failed" :
			"still recording, or the recorder was killed");
	return 0;
}

/* Several runs as one: their export tables into names, each run's
 * export ids mapped to the merged ones (map[i * AN_EXPORTS_MAX + id]). */
static int read_exports(struct store **s, const struct store_run *runs,
			size_t nsrc, struct an_names *names, int32_t *map,
			char *err)
{
	size_t i;
	int k;

	for (i = 0; i < nsrc; i++) {
		struct an_names *one = an_names_new(0);

		if (one == NULL) {
			snprintf(err, STORE_ERRBUF_SIZE, "out of memory");
			return -1;
		}
		if (store_read_exports(s[i], runs[i].id, one, err) < 0) {
			an_names_free(one);
			return -1;
		}
		for (k = 0; k < an_names_export_count(one); k++) {
			const struct an_export *e = an_names_export_get(one, k);

			map[i * AN_EXPORTS_MAX + (size_t)k] =
				an_names_export(names, &e->server, &e->root,
						e->path);
		}
		an_names_free(one);
	}
	return 0;
}

/* When the engine delivered op, as far as the store tells: at its reply
 * (also of a call not seen) or last call, and not before the op the run
 * delivered before it (an unanswered call is delivered when it expires,
 * after later replies).  Merged runs interleave their operations by it. */
static int64_t op_delivered_ns(const struct an_op *op, int64_t prev)
{
	int64_t t = op->reply_ns > op->last_call_ns ? op->reply_ns :
						       op->last_call_ns;

	return t > prev ? t : prev;
}

/* The next operation of run i into head[i]: its delivery time in at[i]
 * (not before the last one's); live[i] false at the end. */
static int merged_next(struct store_ops_cursor *cur, struct an_op *head,
		       int64_t *at, bool *live, char *err)
{
	int got = store_ops_next(cur, head, err);

	if (got < 0)
		return -1;
	*live = got == 1;
	if (*live)
		*at = op_delivered_ns(head, *at);
	return 0;
}

/* Replay the runs' operations merged by delivery time (each run's own
 * order kept), their export ids mapped into the merged names. */
static int replay_merged(struct rep *r, struct store **s,
			 const struct store_run *runs, size_t nsrc,
			 const int32_t *map, an_op_fn fn, char *err)
{
	struct store_ops_cursor **cur = calloc(nsrc, sizeof(*cur));
	struct an_op *head = calloc(nsrc, sizeof(*head));
	int64_t *at = calloc(nsrc, sizeof(*at));
	bool *live = calloc(nsrc, sizeof(*live));
	int rc = -1;
	size_t i, best;

	if (cur == NULL || head == NULL || at == NULL || live == NULL) {
		snprintf(err, STORE_ERRBUF_SIZE, "out of memory");
		goto out;
	}
	for (i = 0; i < nsrc; i++)
		if (store_ops_open(s[i], runs[i].id, r->filtered ? &r->filt :
				   NULL, r->first_ns, &cur[i], err) < 0 ||
		    merged_next(cur[i], &head[i], &at[i], &live[i], err) < 0)
			goto out;
	for (;;) {
		struct an_op *op;

		best = nsrc;
		for (i = 0; i < nsrc; i++)
			if (live[i] && (best == nsrc || at[i] < at[best]))
				best = i;
		if (best == nsrc)
			break;
		op = &head[best];
		if ((op->have & AN_HAVE_EXPORT) && op->export_id >= 0 &&
		    op->export_id < AN_EXPORTS_MAX)
			op->export_id = map[best * AN_EXPORTS_MAX +
					    (size_t)op->export_id];
		if (op->export_id < 0)
			op->have &= ~AN_HAVE_EXPORT;
		fn(r, op);
		if (merged_next(cur[best], &head[best], &at[best], &live[best],
				err) < 0)
			goto out;
	}
	rc = 0;
out:
	for (i = 0; cur && i < nsrc; i++)
		store_ops_close(cur[i]);
	free(cur);
	free(head);
	free(at);
	free(live);
	return rc;
}

/* Which file a source is (symlinks followed) and its run. */
struct src_at {
	dev_t dev;
	ino_t ino;
	int64_t run;
};

/* Is src[i] (its run read into runs[n]) a run taken already, from the
 * same file however named (a.db a.db, a.db:1 a.db:1, --run 1 --run 1, a
 * symlink)?  Said on stderr when it is; else at[n] is set. */
static bool taken_twice(const char *who, const struct rep_src *src, size_t i,
			const struct store_run *runs, size_t n,
			struct src_at *at)
{
	struct stat st;
	size_t k;

	if (stat(src[i].path, &st) < 0)
		return false;
	at[n] = (struct src_at){ st.st_dev, st.st_ino, runs[n].id };
	for (k = 0; k < n; k++)
		if (at[k].dev == at[n].dev && at[k].ino == at[n].ino &&
		    at[k].run == at[n].run) {
			fprintf(stderr, "nfscope %s: run %" PRId64 " of %s is "
				"named twice: taken once\n", who ? who : "report",
				runs[n].id, src[i].path);
			return true;
		}
	return false;
}

/* The merged run's name: the sources, comma separated. */
static void merged_source(struct store_run *run, const struct store_run *runs,
			  size_t nsrc)
{
	size_t i, off = 0;

	for (i = 0; i < nsrc && off < sizeof(run->source); i++)
		off += (size_t)snprintf(run->source + off,
					sizeof(run->source) - off, "%s%s",
					i ? ", " : "", runs[i].source);
}

int rep_store_load_many(struct rep *r, const struct rep_src *src, size_t nsrc,
			struct store_run *run, struct an_names **names,
			an_op_fn fn)
{
	char err[STORE_ERRBUF_SIZE];
	struct store **s = calloc(nsrc, sizeof(*s));
	struct store_run *runs = calloc(nsrc, sizeof(*runs));
	int32_t *map = calloc(nsrc * AN_EXPORTS_MAX, sizeof(*map));
	struct src_at *at = calloc(nsrc, sizeof(*at));
	size_t i, n, opened = nsrc;
	int rc = -1;

	assert(nsrc >= 1);
	*names = NULL;
	if (s == NULL || runs == NULL || map == NULL || at == NULL) {
		snprintf(err, sizeof(err), "out of memory");
		goto fail;
	}
	for (i = n = 0; i < nsrc; i++) {
		if (store_open(src[i].path, STORE_RDONLY, &s[n], err) < 0 ||
		    read_run(r->who ? r->who : "report", s[n], &src[i], &runs[n],
			     err) < 0)
			goto fail;
		if (taken_twice(r->who, src, i, runs, n, at)) {
			store_close(s[n]);	/* the same run again: once */
			s[n] = NULL;
			continue;
		}
		if (n == 0)
			*run = runs[0];
		else
			store_run_add(run, &runs[n]);
		/* --ops slow/none: rep_partial_text reports the aggregates */
		if (runs[n].ops_mode != STORE_OPS_ALL)
			r->partial = true;
		if (strcmp(runs[n].state, "cut") == 0 && !r->cut) {
			r->cut = true;
			r->cut_at.packets = runs[n].cs.packets;
			r->cut_at.offset = runs[n].read_error_offset;
			snprintf(r->cut_at.why, sizeof(r->cut_at.why), "%s",
				 runs[n].read_error);
		}
		n++;
	}
	nsrc = n;
	if (nsrc > 1) {
		merged_source(run, runs, nsrc);
		if (r->partial) {
			snprintf(err, sizeof(err), "several runs are merged "
				 "from every operation: each must be recorded "
				 "with --ops all");
			goto fail;
		}
	}
	*names = an_names_new(0);
	if (*names == NULL) {
		snprintf(err, sizeof(err), "out of memory");
		goto fail;
	}
	if (read_exports(s, runs, nsrc, *names, map, err) < 0)
		goto fail;
	for (i = 0; i < nsrc; i++)
		if (store_read_drops(s[i], runs[i].id, on_drop, r, err) < 0)
			goto fail;
	r->source = run->source;
	r->first_ns = run->first_ns;
	r->last_ns = run->last_ns;
	r->rpc_msgs = run->rpc_msgs;
	r->cs = run->cs;
	r->ds = &run->ds;
	r->es = &run->es;
	r->names = *names;
	an_filter_resolve(&r->filt, run->first_ns);
	/* before the ops: once they flow, the findings are the op thread's
	   until the queue is drained (the vantage is judged at the end) */
	if (read_handshakes(s, runs, nsrc, r->find, err) < 0)
		goto fail;
	if (r->partial)
		rc = 0;
	else if (nsrc == 1)
		rc = store_read_ops(s[0], runs[0].id, r->filtered ? &r->filt :
				    NULL, run->first_ns, fn, r, err);
	else
		rc = replay_merged(r, s, runs, nsrc, map, fn, err);
fail:
	if (rc < 0)
		fprintf(stderr, "nfscope %s: %s\n", r->who ? r->who : "report",
			err);
	for (i = 0; s && i < opened; i++)
		store_close(s[i]);
	free(s);
	free(runs);
	free(map);
	free(at);
	return rc;
}

int rep_store_load(struct rep *r, const char *path, int64_t run_id,
		   struct store_run *run, struct an_names **names,
		   an_op_fn fn)
{
	struct rep_src src;

	memset(&src, 0, sizeof(src));
	snprintf(src.path, sizeof(src.path), "%s", path);
	src.run_id = run_id;
	return rep_store_load_many(r, &src, 1, run, names, fn);
}

/* A run's line of --runs in 80 columns: its length instead of its last
 * time, times to the second, the source after (broken if long). */
static void list_run_narrow(FILE *out, const struct store_run *run,
			    enum ui_time_mode tm, const char *mode)
{
	char t0[48], line[160 + STORE_TEXT_MAX];

	snprintf(line, sizeof(line), "%4" PRId64 " %-9s %-4s %-19s %8.1f %9"
		 PRIu64 " %9" PRIu64 "  %s", run->id, run->state, mode,
		 ui_time_str(run->first_ns, tm, 0, t0, sizeof(t0)),
		 (double)(run->last_ns - run->first_ns) / 1e9, run->cs.packets,
		 run->ops_stored, run->source);
	ui_wrap_line(out, line, strlen(line), UI_WRAP_COLS);
}

int rep_store_list(const char *path, FILE *out, enum ui_time_mode tm,
		   bool wide)
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
	if (wide)
		fprintf(out, "%5s %-12s %-6s %-23s %-23s %10s %10s  %s\n",
			"run", "state", "ops", "first", "last", "packets", "ops",
			"source");
	else
		fprintf(out, "%4s %-9s %-4s %-19s %8s %9s %9s  %s\n", "run",
			"state", "ops", "first", "length s", "packets", "ops",
			"source");
	for (id = 1; id <= last; id++) {
		if (store_read_run(s, id, run, err) < 0)
			continue;	/* deleted by --retain */
		if (!wide) {
			list_run_narrow(out, run, tm, run->ops_mode ==
					STORE_OPS_ALL ? "all" : run->ops_mode ==
					STORE_OPS_SLOW ? "slow" : "none");
			continue;
		}
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
