/* recorder.c - the store side of a run (record, top -w); see recorder.h. */
#include "run/recorder.h"

#include <inttypes.h>
#include <stdio.h>

void run_rec_capture(const struct run_rec *r, struct cap_stats *cs,
		     struct dec_stats *ds)
{
	*cs = *cap_pipe_stats(r->pipe);
	cap_source_stats(r->src, cs);
	*ds = *dec_get_stats(r->dec);
}

/* The run's counters as they stand (live: with pcap_stats' drops). */
static void counters(struct run_rec *r)
{
	if (r->async) {
		r->run.cs = r->snap_cs;
		r->run.ds = r->snap_ds;
	} else {
		run_rec_capture(r, &r->run.cs, &r->run.ds);
	}
	r->run.es = *an_get_stats(r->eng);
}

void run_rec_snap(struct run_rec *r, const struct cap_stats *cs,
		  const struct dec_stats *ds)
{
	r->snap_cs = *cs;
	r->snap_ds = *ds;
}

static void log_commit(const struct run_rec *r, const struct store_counts *c,
		       const struct store_run *run)
{
	if (r->quiet)
		return;
	fprintf(stderr, "nfscope %s: batch %" PRIu64 " committed: ops %"
		PRIu64 " intervals %" PRIu64 " flows %" PRIu64 " names %"
		PRIu64 " dropped by kernel %" PRIu64 " by interface %" PRIu64
		" evicted %" PRIu64 " sqlite heap %" PRId64 "\n", r->who,
		c->batches, c->ops, c->intervals, c->flows, c->names,
		run->cs.ps_drop, run->cs.ps_ifdrop,
		run_evictions(&run->cs, &run->ds, &run->es),
		store_sqlite_heap());
}

/* The store's insert thread committed a batch (store_commit). */
static void on_committed(void *user, const struct store_counts *c,
			 const struct store_run *run)
{
	log_commit(user, c, run);
}

int run_rec_begin(struct run_rec *r, const char *path, bool replace,
		 const struct run_config *so, struct cap_source *src)
{
	if (store_open(path, STORE_WRITE | (replace ? STORE_REPLACE : 0),
		       &r->st, r->err) < 0) {
		fprintf(stderr, "nfscope %s: %s%s%s%s\n", r->who, r->err,
			so->user ? " (as -Z user " : "",
			so->user ? so->user : "", so->user ? ")" : "");
		return -1;
	}
	if (r->batch_rows == 0)
		r->batch_rows = 65536;
	snprintf(r->run.source, sizeof(r->run.source), "%s",
		 so->name);
	snprintf(r->run.filter, sizeof(r->run.filter), "%s",
		 so->cap.filter ? so->cap.filter : "");
	r->run.live = so->iface != NULL;
	r->run.snaplen = so->iface ? cap_source_snaplen(src) : 0;
	if (store_run_begin(r->st, &r->run, r->err) < 0) {
		fprintf(stderr, "nfscope %s: %s\n", r->who, r->err);
		return -1;
	}
	store_set_commit_hook(r->st, on_committed, r);
	return 0;
}

void run_rec_commit_at(struct run_rec *r, int64_t now_ns)
{
	if (r->failed)
		return;
	counters(r);
	if (store_commit(r->st, &r->run, an_get_names(r->eng), now_ns,
			 r->err) < 0)
		r->failed = true;	/* else logged when committed */
}

void run_rec_commit(struct run_rec *r)
{
	run_rec_commit_at(r, r->now_ns);
}

bool run_rec_due(int64_t *next, int64_t interval_ns, int64_t ts_ns)
{
	if (*next == 0) {
		*next = ts_ns + interval_ns;
		return false;
	}
	if (ts_ns < *next)
		return false;
	*next = ts_ns + interval_ns;
	return true;
}

void run_rec_times(struct run_rec *r, int64_t ts_ns)
{
	if (r->failed)
		return;
	if (r->run.first_ns == 0 || ts_ns < r->run.first_ns)
		r->run.first_ns = ts_ns;
	if (ts_ns > r->run.last_ns)
		r->run.last_ns = ts_ns;
	r->now_ns = r->run.last_ns;
}

void run_rec_put(struct run_rec *r, const struct cap_msg *m, bool rpc,
		 bool call, bool reply)
{
	if (r->failed)
		return;
	store_put_msg(r->st, m, call, reply);
	if (rpc)
		r->run.rpc_msgs++;
}

void run_rec_msg(struct run_rec *r, const struct cap_msg *m,
		const struct dec_msg *d)
{
	if (r->failed)
		return;
	run_rec_times(r, m->ts_ns);
	if (run_rec_due(&r->next_commit_ns, r->run.interval_ns, m->ts_ns))
		run_rec_commit_at(r, m->ts_ns);
	run_rec_put(r, m, d != NULL, d && d->rpc.msg_type == RPC_CALL,
		    d && d->rpc.msg_type == RPC_REPLY);
}

void run_rec_op(struct run_rec *r, const struct an_op *op)
{
	if (r->failed)
		return;
	if (store_put_op(r->st, op, an_get_names(r->eng), r->err) < 0) {
		r->failed = true;
		return;
	}
	if (store_pending(r->st) >= r->batch_rows)
		run_rec_commit(r);
}

bool run_rec_drops(struct run_rec *r, const struct cap_drop_span *sp)
{
	if (r->failed)
		return false;
	store_put_drop(r->st, sp);
	return true;
}

bool run_rec_cut(struct run_rec *r)
{
	struct cap_read_error e;

	if (!cap_source_read_error(r->src, &e))
		return false;
	snprintf(r->run.read_error, sizeof(r->run.read_error), "%s", e.why);
	r->run.read_error_offset = e.offset;
	return true;
}

int run_rec_end(struct run_rec *r, const struct an_figs *figs,
	       const struct an_find *find, const char *state)
{
	if (r->failed)
		return -1;
	counters(r);
	snprintf(r->run.state, sizeof(r->run.state), "%s", state);
	if (store_run_end(r->st, &r->run, an_get_names(r->eng), figs, find,
			  r->err) < 0) {
		r->failed = true;
		return -1;
	}
	log_commit(r, store_get_counts(r->st), &r->run);
	r->ended = true;
	return 0;
}

void run_rec_close(struct run_rec *r)
{
	if (r->st && !r->ended)		/* an error ended it: 'failed' */
		store_run_fail(r->st);
	store_close(r->st);
	r->st = NULL;
}
