/*
 * top.h - `nfscope top`: the ncurses dashboard.  Internal to ui/top*.c.
 *
 * Threads and data:
 *   - the worker (top_src.c) reads the source - a live interface, a capture
 *     file replayed at its own pace (or faster), or a database another
 *     process may still be writing - and runs decode -> analyze (and, with
 *     -w, the store) exactly as `report`/`record` do.  Every operation the
 *     engine delivers becomes a compact record (struct an_win_rec) in a
 *     bounded history ring; per-second capture counters go to a second
 *     ring (both analyze/window.h, with the rules that lay a window over
 *     them).
 *   - the UI thread (top.c, top_draw.c) wakes a few times per second,
 *     takes the model's mutex only to aggregate the shown time window into
 *     its own struct tm_view (top_view.c; it lets the lock go every 64k
 *     records of the scan), releases it, and then draws.
 *     The terminal is written only outside the lock, so a slow terminal
 *     can delay the picture but never the capture; the worker holds the
 *     lock for one batch of packets at a time.
 *
 * Windows are in capture time.  An answered op is delivered by the engine
 * answered_keep (3 s) after its reply, so while the input is still running
 * the shown window ends that much before the capture clock; the header says
 * which span is shown.  The history keeps the last `history` ops (default
 * 1M: 48 MB when full, touched as it fills); a window reaching further back
 * is cut to what is kept, and the header says so.
 */
#ifndef NFSCOPE_TOP_H
#define NFSCOPE_TOP_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "analyze/acc.h"
#include "analyze/figs.h"
#include "analyze/filter.h"
#include "analyze/find.h"
#include "analyze/ops.h"
#include "analyze/window.h"
#include "capture/capture.h"
#include "decode/decode.h"
#include "store/store.h"
#include "ui/cli.h"

#define TM_PROCS_MAX 1024
#define TM_ADDRS_MAX 65536
#define TM_PATHS_MAX 65536
#define TM_ONGOING_MAX 64
/* Index 0 of the procedure and address tables: those past the table. */
#define TM_OTHER "(other)"

struct tm_proc {
	uint32_t prog, vers, proc;
	char name[32];
};

enum tm_mode { TM_LIVE, TM_REPLAY, TM_ATTACH };

struct tm_model {
	pthread_mutex_t mu;
	/* history of operations and capture counters (analyze/window.h) */
	struct an_window win;
	/* interned keys (index 0 is "none"/"other") */
	struct tm_proc procs[TM_PROCS_MAX];
	uint32_t nprocs;
	struct cap_addr *addrs;
	char (*addr_str)[48];
	uint32_t naddrs, *addr_hash;	/* open addressing, 2 x TM_ADDRS_MAX */
	uint32_t addrs_max;		/* naddrs stays <= 1 + addrs_max */
	char **paths;
	uint32_t npaths, *path_hash;
	uint64_t keys_dropped;		/* addresses/paths past their tables */
	/* the analysis (all of the input so far) */
	struct an_figs *figs;
	struct an_find *find;
	struct cap_stats cs;
	struct dec_stats ds;
	struct an_stats es;
	int64_t first_ns;		/* first message */
	int64_t clock_ns;		/* capture clock (latest message/tick) */
	int64_t delivered_ns;		/* ops complete up to here */
	bool done;			/* input ended (everything delivered) */
	bool failed;
	char err[640];
	/* source description */
	enum tm_mode mode;
	char source[256];
	double speed;			/* replay: 0 = as fast as possible */
	uint64_t attach_rows;		/* attach: ops rows read */
	char run_state[16];		/* attach: the run's state */
	bool input_cut;			/* the input was cut short or damaged:
					   note says where and why */
	char note[640];			/* shown under the header */
};

/* history: ops kept (0: 1M); addrs: addresses named (< TM_ADDRS_MAX),
 * the rest are index 0. */
int tm_model_init(struct tm_model *m, uint64_t history, uint32_t addrs);
void tm_model_fini(struct tm_model *m);
/* Worker side, with m->mu held.  tm_model_add: an op into the window's
 * history (a sink of the run, early: before the figures and findings,
 * which the run adds it to). */
void tm_model_add(struct tm_model *m, const struct an_op *op);
void tm_model_tick(struct tm_model *m, int64_t ts_ns,
		   const struct cap_stats *cs);
/* An IP fragment train lost, first fragment at first_ns (cap_config's
 * frag_lost hook). */
void tm_model_frag_lost(struct tm_model *m, int64_t first_ns);

/* ---------------------------------------------------------- the view -- */

enum tm_panel {
	TP_OPS, TP_CLIENTS, TP_SERVERS, TP_SIZES, TP_RETRANS, TP_FINDINGS,
	TP_LATENCY, TP_N
};

/* An aggregate row: per procedure, client or server. */
struct tm_row {
	uint32_t key;			/* proc or address index */
	char name[64];
	AN_SUMS_MEMBER;			/* an_sums_add (analyze/acc.h) */
	uint64_t reads, writes, rbytes, wbytes;
	struct an_sizes rsizes, wsizes;	/* READ/WRITE sizes asked */
	uint32_t rsize, wsize;		/* dominant size (an_sizes_dominant) */
	uint64_t rsize_n, wsize_n;	/* calls at it */
	uint32_t rsize_max, wsize_max;
	uint32_t findings;
	struct hist lat;
};

struct tm_size_count {
	uint32_t size;
	uint64_t n;
};

#define TM_SIZES 24
#define TM_SERIES 512
#define TM_VERDICTS 8

/* One time bucket of the retransmit and latency series. */
struct tm_bucket {
	int64_t start_ns;
	AN_SUMS_MEMBER;			/* its ops (an_sums_add) */
	uint64_t frag_lost, tcp_gaps, drops;
	uint64_t p50, p99, max;		/* latency of the selection, ns */
	uint64_t lat_n;
};

struct tm_view {
	/* time */
	int64_t from_ns, to_ns;		/* window shown */
	double secs;			/* its width, s */
	bool cut;			/* history did not reach back */
	int64_t clock_ns, first_ns;
	bool done;
	/* header figures over the window */
	double pkts_s, ops_s, rmb_s, wmb_s;
	uint64_t drops, ifdrops, ops;
	uint32_t nclients, nservers;
	/* rows */
	struct tm_row *rows[3];		/* procs, clients, servers */
	uint32_t nrows[3], rows_cap[3];
	uint64_t total_calls;
	/* sizes in the window */
	struct tm_size_count rsizes[TM_SIZES], wsizes[TM_SIZES];
	uint32_t nrsizes, nwsizes;
	uint64_t rsizes_other, wsizes_other, nreads, nwrites;
	struct an_sizes rs, ws;		/* scratch: every size of the window */
	char verdict[TM_VERDICTS][400];
	uint32_t nverdicts;
	char fsinfo[TM_VERDICTS][160];
	uint32_t nfsinfo;
	struct an_sums sum;		/* the window's ops (an_sums_add) */
	/* retransmits */
	uint64_t retrans, retrans_ops, dups, unanswered, frag_lost, tcp_gaps;
	uint64_t causes[AN_RX_NCAUSES];
	/* series over the window: retransmits and the selection's latency */
	struct tm_bucket series[TM_SERIES];
	uint32_t nseries;
	int64_t bucket_ns;		/* whole seconds */
	int64_t series_base;		/* series[0].start_ns: a multiple of
					   bucket_ns (an_bucket_start) */
	char sel_name[96];		/* what the latency series is of */
	struct hist sel_lat;		/* the selection's whole window */
	struct hist *bucket_lat;	/* TM_SERIES scratch histograms */
	/* findings, newest first */
	struct an_finding *findings;
	uint32_t nfindings, findings_cap, nongoing;
	/* health */
	struct cap_stats cs;
	struct dec_stats ds;
	struct an_stats es;
	uint64_t keys_dropped, history, history_n;
	enum tm_mode mode;
	char source[256];
	double speed;
	bool failed;
	char err[640];
	char run_state[16];
	bool input_cut;
	char note[640];
	/* scratch: address index -> row, per group */
	uint32_t *map[3];
	uint32_t *gen[3], gen_now;
	uint8_t *addr_ok, *path_ok, proc_ok[TM_PROCS_MAX];
};

/* What to compute: window and filters and the latency selection. */
struct tm_query {
	int64_t width_ns;		/* 0: everything kept */
	int64_t end_ns;			/* 0: follow the newest data */
	struct an_filter filt;		/* the prompt's (analyze/filter.h) */
	int sel_group;			/* -1 none, 0 proc, 1 client, 2 server */
	uint32_t sel_key;
	int buckets;			/* columns of the series */
};

int tm_view_init(struct tm_view *v);
void tm_view_fini(struct tm_view *v);
/* Aggregate the window: takes m->mu, letting it go now and then during
 * the scan of the history (see top_view.c). */
void tm_view_build(struct tm_view *v, struct tm_model *m,
		   const struct tm_query *q);

/* ------------------------------------------------------- the screen -- */

enum tm_detail { TD_NONE, TD_HIST, TD_EVIDENCE };

#define TM_STACK 8

/* What the user looks at (UI thread only). */
struct tm_ui {
	enum tm_panel panel;
	int sort_col[TP_N];
	bool sort_rev[TP_N];
	int sel[TP_N], first[TP_N];	/* selected row, first row shown */
	uint32_t sel_key[TP_N];
	bool have_sel_key[TP_N];
	int window;			/* index into tm_windows */
	bool paused, help, color;
	struct tm_query q;
	enum tm_detail detail;
	uint32_t detail_key;		/* TD_HIST: proc index */
	struct an_finding detail_find;	/* TD_EVIDENCE */
	/* drill-down: filters and panels to go back to */
	struct an_filter stack_filt[TM_STACK];
	enum tm_panel stack_panel[TM_STACK];
	int depth;
	bool prompting;
	char prompt[128];
	size_t plen;
	char msg[160];			/* one-line message (errors, notes) */
	/* sorted row order of the current view, per row panel */
	uint32_t *order[3];
	uint32_t order_cap[3];
};

struct tm_window {
	const char *name;
	int64_t ns;			/* 0: all */
};
extern const struct tm_window tm_windows[];
extern const int tm_nwindows;

/* Keys, for the help screen and --help: { key, what it does }. */
struct tm_key {
	const char *key, *what;
};
extern const struct tm_key tm_keys[];

/* top_draw.c: sort the view's rows for the UI and draw everything. */
void tm_sort(struct tm_ui *u, const struct tm_view *v);
void tm_draw(struct tm_ui *u, const struct tm_view *v);
/* Colour pairs (after start_color is possible). */
void tm_colors(void);
/* Row group (0 procs, 1 clients, 2 servers) of a panel, -1 if none. */
int tm_panel_group(enum tm_panel p);
/* Rows shown by a row panel, in display order. */
uint32_t tm_rows_shown(const struct tm_ui *u, const struct tm_view *v,
		       enum tm_panel p);

/* ------------------------------------------------ the worker (top_src.c) --
 *
 The dashboard's worker thread: reads the source
 * and fills struct tm_model under its mutex.
 *
 * Sources: TM_LIVE (an opened live cap_source), TM_REPLAY (an opened file,
 * paced at `speed` times its own pace, 0 = as fast as possible; the model's
 * speed field may be changed under the lock and is picked up at once) and
 * TM_ATTACH (a database, followed while its run is still 'recording').
 * With out_db, the analysis is also recorded there, as `record` does.
 *
 * Ownership: the caller keeps the cap_source and closes it after
 * tm_worker_stop, which asks the thread to stop, joins it, ends the
 * recording (state 'complete' if the input ended, else 'interrupted') and
 * frees the worker.
 */
struct tm_worker;

struct tm_src_cfg {
	enum tm_mode mode;
	const char *source;		/* file, interface or database path */
	struct cap_source *src;		/* live/replay */
	const struct ui_src_opts *so;	/* live/replay: options, budgets */
	double speed;			/* replay */
	const char *db;			/* attach */
	int64_t run_id;			/* attach: 0 = the last run */
	const char *out_db;		/* -w */
	struct ui_mx *mx;		/* --metrics (live/replay; NULL none) */
};

int tm_worker_start(struct tm_worker **out, struct tm_model *m,
		    const struct tm_src_cfg *cfg);
void tm_worker_stop(struct tm_worker *w);

#endif
