/*
 * window.h - the dashboard's history: the newest operations as compact
 * records, capture counters per second, lost fragment trains by the second
 * they began, and the rules that lay a time window over them.
 *
 * Purpose: `top` shows any window (10 s .. all) over what it has seen, and
 * its history check needs exactly the newest N operations, which per-second
 * cells cannot give: so a ring of records (struct an_win_rec) is kept, and
 * each record is added to a window's rows by the accumulator's one rule
 * (an_win_opsum -> an_sums_add, acc.h).  The window ends where delivered
 * data ends (AN_ANSWERED_KEEP_NS before the capture clock while the input
 * runs) and starts no earlier than the first message, so its rates are over
 * the span that holds data (an_rate), as report's are; its series buckets
 * are whole seconds on an_bucket_start's boundaries (report's --interval).
 *
 * Ownership: struct an_window owns its ring (an_window_init/fini).  The
 * caller serialises access (top: its model's mutex).
 * Load: an_window_add is a copy into the ring; the ring's pages are touched
 * only as it fills (history x 48 bytes).
 */
#ifndef NFSCOPE_AN_WINDOW_H
#define NFSCOPE_AN_WINDOW_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/acc.h"
#include "analyze/ops.h"
#include "capture/capture.h"

#define AN_WIN_TICKS 4096	/* seconds of capture counters kept */

/* struct an_win_rec.flags */
#define AN_WR_ERR      0x01
#define AN_WR_ANSWERED 0x02
#define AN_WR_READ     0x04
#define AN_WR_WRITE    0x08
#define AN_WR_TRUNC    0x10
#define AN_WR_COMMIT   0x20

/* One delivered operation, as a window needs it.  The keys are the
 * caller's table indexes (top interns addresses, paths, procedures). */
struct an_win_rec {
	int64_t ts_ns;		/* first call */
	int64_t lat_ns;		/* from the first transmission; -1 none */
	uint32_t data;		/* data bytes moved (READ/WRITE) */
	uint32_t size;		/* READ/WRITE count asked (0 otherwise) */
	uint32_t client, server;	/* address indexes */
	uint32_t path;		/* path index (0: unknown) */
	uint16_t proc;		/* procedure index */
	uint16_t retrans;	/* saturating */
	uint8_t dup;		/* saturating */
	uint8_t flags;		/* AN_WR_* */
	uint8_t cause;		/* enum an_rx_cause if retrans */
};

/* Cumulative capture counters at the end of one capture second
 * (frag_lost: as known then; lost trains by the second they began are in
 * struct an_window's lost[]). */
struct an_win_tick {
	int64_t sec;
	uint64_t packets, bytes, frag_lost, tcp_gaps, drops, ifdrops;
};

/* IP fragment trains lost, by the capture second of their first fragment
 * (slot sec % AN_WIN_TICKS). */
struct an_win_lost {
	int64_t sec;
	uint64_t n;
};

struct an_window {
	struct an_win_rec *ring;	/* owned */
	uint64_t cap, n;		/* n: ever appended */
	struct an_win_tick ticks[AN_WIN_TICKS];
	uint64_t nticks;
	struct an_win_lost lost[AN_WIN_TICKS];	/* when timed_lost */
	bool timed_lost;		/* the capture tells when trains began */
};

/* history: records kept (> 0).  -1: out of memory. */
int an_window_init(struct an_window *w, uint64_t history);
void an_window_fini(struct an_window *w);
/* The record of op (not AN_OP_CALL_NOT_SEEN) under the caller's keys;
 * cause: an_retrans_cause's, if op was retransmitted. */
struct an_win_rec an_win_rec_of(const struct an_op *op, uint32_t client,
				uint32_t server, uint32_t path, uint16_t proc,
				uint8_t cause);
/* Append r, overwriting the oldest when the ring is full. */
void an_window_add(struct an_window *w, const struct an_win_rec *r);
/* What the accumulator's rule reads of a record (an_sums_add). */
struct an_opsum an_win_opsum(const struct an_win_rec *r);
/* A READ's or WRITE's record into the figures of that direction: calls,
 * data bytes and, if it asked a size, the sizes asked. */
void an_win_dir_add(uint64_t *calls, uint64_t *bytes, struct an_sizes *sizes,
		    const struct an_win_rec *r);

/*
 * Visit the kept records whose first call is in [from, to), newest first,
 * from *pos (w->n to begin) down, at most budget of them; *pos is where to
 * go on.  The caller may let records be appended between calls (they are
 * not visited): AN_SCAN_CUT says appends overwrote where the scan was.
 * AN_SCAN_DONE: at the oldest record kept, or at records older than from
 * - AN_LATE_NS (an op is delivered at most that much after its call).
 */
enum an_scan { AN_SCAN_MORE, AN_SCAN_DONE, AN_SCAN_CUT };
enum an_scan an_window_scan(const struct an_window *w, int64_t from,
			    int64_t to, uint64_t *pos, uint64_t budget,
			    void (*fn)(void *user, const struct an_win_rec *r),
			    void *user);
/* Does a window from `from` reach back past the oldest record kept? */
bool an_window_cut(const struct an_window *w, int64_t from);

/* Capture counters at capture time ts_ns. */
void an_window_tick(struct an_window *w, int64_t ts_ns,
		    const struct cap_stats *cs);
/* An IP fragment train lost, its first fragment at first_ns. */
void an_window_frag_lost(struct an_window *w, int64_t first_ns);

/* Cumulative counters at the end of the last second before t's (incl:
 * up to and including t's second); zeros if none. */
const struct an_win_tick *an_window_tick_at(const struct an_window *w,
					    int64_t t, bool incl);
/* The window [*from, *to) of width_ns (0: all) ending at end_ns (0: the
 * newest delivered data: clock_ns - AN_ANSWERED_KEEP_NS, or everything
 * when done), cut to start at first_ns. */
void an_window_span(int64_t first_ns, int64_t clock_ns, bool done,
		    int64_t width_ns, int64_t end_ns, int64_t *from,
		    int64_t *to);
/* Whole-second buckets over [from, to), at most nb (> 0) of them: their
 * width, the first one's start and their number. */
void an_window_buckets(int64_t from, int64_t to, uint32_t nb,
		       int64_t *width_ns, int64_t *base, uint32_t *n);
/* The bucket (of n from base) a time falls in, the last for later ones
 * and the first for earlier ones. */
uint32_t an_window_bucket(int64_t t, int64_t width_ns, int64_t base,
			  uint32_t n);

#endif
