/*
 * feedq.h - run the operation engine (ops.h) on a second thread.
 *
 * Purpose: the capture thread reads, reassembles and decodes; matching
 * calls to replies, delivering ops and what the engine's callback does
 * with them (figures, findings) can run on another core.  an_feedq_feed
 * builds the engine's flat message (an_msg_build) straight into a ring
 * (ring.h) and the consumer thread feeds it to the engine, in order.
 *
 * Invariants: the engine sees exactly the messages, ticks and flush it
 * would have seen from an_feed, an_tick and an_flush, in the same order,
 * so its results are the same.  The decoder's call identities travel in
 * the messages (an_msg.slot, gen): the engine's per-call state, an array
 * by slot, stays on the consumer thread, and a slot the decoder has
 * handed on meanwhile is told by its generation, in message order.  While the queue is threaded, the engine
 * and everything its callback touches belong to the consumer thread: read
 * them only after an_feedq_flush (or an_feedq_free).  Without a second
 * thread (see an_ring_new) the calls go straight to the engine.
 *
 * Ownership: the caller owns the queue and, apart from it, the engine
 * (free the queue first; an_feedq_free drains; free(NULL) is a no-op).
 *
 * Load: per message one build in place (a few hundred bytes; more for a
 * READDIRPLUS reply's entries); the threads wake each other in batches.
 */
#ifndef NFSCOPE_AN_FEEDQ_H
#define NFSCOPE_AN_FEEDQ_H

#include "analyze/ops.h"

struct an_feedq;

/* min_cpus: as an_ring_new; 0: no thread, the calls go straight to the
 * engine (a caller that hands the engine's ops to a thread of its own).
 * NULL: out of memory. */
struct an_feedq *an_feedq_new(struct an_engine *e, unsigned min_cpus);
void an_feedq_free(struct an_feedq *q);
void an_feedq_feed(struct an_feedq *q, const struct cap_msg *m,
		   const struct dec_msg *d);
void an_feedq_tick(struct an_feedq *q, int64_t now_ns);
/* A span of hidden replies open at its flow's end (AN_MSG_HIDDEN). */
void an_feedq_hidden(struct an_feedq *q, const struct cap_addr *src,
		     const struct cap_addr *dst, int64_t until_ns);
/* an_flush on the engine's thread, then wait until it is done. */
void an_feedq_flush(struct an_feedq *q);
/* Wait until every record so far is done (no flush). */
void an_feedq_sync(struct an_feedq *q);
/* Hand over what waits now, however little (live, after a tick's side
 * records; an_feedq_tick does it itself). */
void an_feedq_kick(struct an_feedq *q);
/* Whether the engine runs on a thread of its own. */
bool an_feedq_threaded(const struct an_feedq *q);

/*
 * Side records: the caller's own work that must happen on the engine's
 * thread in message order (record: the store's rows, batch ends and drop
 * spans, next to the engine whose ops and names they read).  fn gets a
 * copy of the len bytes (len <= AN_FEEDQ_SIDE_MAX), on the consumer thread
 * between the messages fed before and after; without a thread, at once.
 */
#define AN_FEEDQ_SIDE_MAX 4096
typedef void (*an_side_fn)(void *user, const void *rec, size_t len);
void an_feedq_set_side(struct an_feedq *q, an_side_fn fn, void *user);
void an_feedq_side(struct an_feedq *q, const void *rec, size_t len);

#endif
