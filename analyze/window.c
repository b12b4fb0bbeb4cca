/* window.c - the dashboard's history and its windows; see window.h. */
#include "analyze/window.h"
#include "base/units.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

int an_window_init(struct an_window *w, uint64_t history)
{
	assert(history > 0);
	memset(w, 0, sizeof(*w));
	w->cap = history;
	/* calloc: pages are touched only as the history fills */
	w->ring = calloc(w->cap, sizeof(*w->ring));
	return w->ring ? 0 : -1;
}

void an_window_fini(struct an_window *w)
{
	free(w->ring);
	memset(w, 0, sizeof(*w));
}

struct an_win_rec an_win_rec_of(const struct an_op *op, uint32_t client,
				uint32_t server, uint32_t path, uint16_t proc,
				uint8_t cause)
{
	struct an_win_rec r;
	uint32_t v3 = an_nfs_v3proc(op->prog, op->vers, op->proc);

	assert(!(op->flags & AN_OP_CALL_NOT_SEEN));
	memset(&r, 0, sizeof(r));
	r.ts_ns = op->first_call_ns;
	r.lat_ns = (op->flags & AN_OP_ANSWERED) ? op->lat_first_ns : -1;
	r.data = (uint32_t)an_op_data_bytes(op);
	r.client = client;
	r.server = server;
	r.path = path;
	r.proc = proc;
	r.retrans = op->retrans > 0xffff ? 0xffff : (uint16_t)op->retrans;
	r.dup = op->dup_replies > 0xff ? 0xff : (uint8_t)op->dup_replies;
	if (op->flags & AN_OP_ANSWERED)
		r.flags |= AN_WR_ANSWERED;
	if (an_op_is_error(op))
		r.flags |= AN_WR_ERR;
	if (op->flags & (AN_OP_CALL_TRUNC | AN_OP_REPLY_TRUNC))
		r.flags |= AN_WR_TRUNC;
	if (v3 == NFS3_READ)
		r.flags |= AN_WR_READ;
	if (v3 == NFS3_WRITE)
		r.flags |= AN_WR_WRITE;
	if (v3 == NFS3_COMMIT)
		r.flags |= AN_WR_COMMIT;
	if ((r.flags & (AN_WR_READ | AN_WR_WRITE)) && (op->have & AN_HAVE_COUNT))
		r.size = op->count;
	if (op->retrans)
		r.cause = cause;
	return r;
}

void an_window_add(struct an_window *w, const struct an_win_rec *r)
{
	w->ring[w->n++ % w->cap] = *r;
}

struct an_opsum an_win_opsum(const struct an_win_rec *r)
{
	struct an_opsum x;

	memset(&x, 0, sizeof(x));
	x.answered = r->flags & AN_WR_ANSWERED;
	x.error = r->flags & AN_WR_ERR;
	x.lat_ns = r->lat_ns;
	x.data = r->data;
	x.retrans = r->retrans;
	x.dup = r->dup;
	return x;
}

void an_win_dir_add(uint64_t *calls, uint64_t *bytes, struct an_sizes *sizes,
		    const struct an_win_rec *r)
{
	(*calls)++;
	*bytes += r->data;
	if (r->size)
		an_sizes_add(sizes, r->size);
}

static uint64_t oldest(const struct an_window *w)
{
	return w->n > w->cap ? w->n - w->cap : 0;
}

bool an_window_cut(const struct an_window *w, int64_t from)
{
	uint64_t lo = oldest(w);

	return lo > 0 && w->ring[lo % w->cap].ts_ns > from;
}

enum an_scan an_window_scan(const struct an_window *w, int64_t from,
			    int64_t to, uint64_t *pos, uint64_t budget,
			    void (*fn)(void *user, const struct an_win_rec *r),
			    void *user)
{
	uint64_t lo = oldest(w), k = *pos;
	int64_t stop = from - AN_LATE_NS;

	assert(k <= w->n);
	if (k < w->n && k <= lo)
		return AN_SCAN_CUT;	/* overwritten since the last call */
	for (; k > lo && budget > 0; k--, budget--) {
		const struct an_win_rec *r = &w->ring[(k - 1) % w->cap];

		if (r->ts_ns < stop)
			return AN_SCAN_DONE;
		if (r->ts_ns >= from && r->ts_ns < to)
			fn(user, r);
	}
	*pos = k;
	return k > lo ? AN_SCAN_MORE : AN_SCAN_DONE;
}

void an_window_tick(struct an_window *w, int64_t ts_ns,
		    const struct cap_stats *cs)
{
	int64_t sec = ts_ns / NSEC_PER_SEC;
	struct an_win_tick *t;

	if (w->nticks && w->ticks[(w->nticks - 1) % AN_WIN_TICKS].sec >= sec)
		t = &w->ticks[(w->nticks - 1) % AN_WIN_TICKS];
	else
		t = &w->ticks[w->nticks++ % AN_WIN_TICKS];
	t->sec = sec;
	t->packets = cs->packets;
	t->bytes = cs->bytes;
	t->frag_lost = cs->ipfrag_incomplete;
	t->tcp_gaps = cs->tcp_gaps;
	t->drops = cs->ps_drop;
	t->ifdrops = cs->ps_ifdrop;
}

void an_window_frag_lost(struct an_window *w, int64_t first_ns)
{
	int64_t sec = first_ns / NSEC_PER_SEC;
	struct an_win_lost *x = &w->lost[(uint64_t)sec % AN_WIN_TICKS];

	w->timed_lost = true;
	if (x->sec > sec && x->n)
		return;		/* older than the seconds kept */
	if (x->sec != sec) {
		x->sec = sec;
		x->n = 0;
	}
	x->n++;
}

const struct an_win_tick *an_window_tick_at(const struct an_window *w,
					    int64_t t, bool incl)
{
	static const struct an_win_tick zero;
	uint64_t lo = w->nticks > AN_WIN_TICKS ? w->nticks - AN_WIN_TICKS : 0;
	uint64_t k = w->nticks;
	int64_t sec = t / NSEC_PER_SEC + (incl ? 1 : 0);

	while (k > lo) {
		const struct an_win_tick *x = &w->ticks[(k - 1) % AN_WIN_TICKS];

		if (x->sec < sec)
			return x;
		k--;
	}
	return &zero;
}

void an_window_span(int64_t first_ns, int64_t clock_ns, bool done,
		    int64_t width_ns, int64_t end_ns, int64_t *from,
		    int64_t *to)
{
	int64_t end = done ? clock_ns + 1 : clock_ns - AN_ANSWERED_KEEP_NS;

	if (end_ns && end_ns < end)
		end = end_ns;
	if (end < first_ns)
		end = first_ns;
	*to = end;
	/* a window reaching back before the first message starts at it:
	   rates are over the span that holds data, as report's are */
	*from = width_ns && end - width_ns > first_ns ? end - width_ns :
		first_ns;
	if (*from > end)
		*from = end;
}

void an_window_buckets(int64_t from, int64_t to, uint32_t nb,
		       int64_t *width_ns, int64_t *base, uint32_t *n)
{
	int64_t last = to > from ? to - 1 : from, w;

	assert(nb > 0);
	/* whole seconds, on the accumulator's bucket boundaries (as report's
	   --interval), as few as fit in nb columns */
	w = ((last - from) / nb / NSEC_PER_SEC + 1) * NSEC_PER_SEC;
	for (;;) {
		*base = an_bucket_start(from, w);
		if ((last - *base) / w < nb)
			break;
		w += NSEC_PER_SEC;
	}
	*width_ns = w;
	*n = (uint32_t)((last - *base) / w + 1);
}

uint32_t an_window_bucket(int64_t t, int64_t width_ns, int64_t base,
			  uint32_t n)
{
	uint32_t b = t > base ? (uint32_t)((t - base) / width_ns) : 0;

	return b >= n ? n - 1 : b;
}
