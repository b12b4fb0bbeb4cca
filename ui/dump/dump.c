/* dump.c - the `nfscope dump` subcommand: capture -> decode -> print. */
#include "ui/dump/dump.h"
#include "base/grow.h"
#include "base/units.h"
#include "ui/cli.h"
#include "ui/json.h"
#include "store/store.h"
#include "ui/wrap.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/*
 * Files: the lines in capture time.  A reply the decoder holds for a call
 * still to come (run_held_since) comes back after younger messages when
 * none came (an orphan); while one is held the lines wait here, in the
 * order they came, and the orphan goes to its place in time among them.
 * A reply matched to its later call stays after that call.  At most
 * DUMP_QUEUE_BYTES wait: past it the oldest lines go out.
 */
#define DUMP_QUEUE_BYTES (16u << 20)

struct dump_line {
	int64_t ts_ns;
	char *text;		/* malloc'd, len bytes */
	size_t len;
};

struct dump_queue {
	struct dump_line *v;	/* [head, n) waiting */
	size_t head, n, cap, bytes;
};

struct dump_ctx {
	FILE *out;
	struct run *run;	/* files: the decoder's held replies */
	bool reorder;		/* files: lines in capture time */
	struct dump_queue q;
	bool json;
	bool wide;		/* --wide: the summary's lines not wrapped */
	enum ui_time_mode tmode;	/* --utc, --epoch */
	int64_t first_ns, last_ns;	/* packet times of the messages */
	uint64_t rpc_msgs;
	uint64_t shown;		/* messages that passed the filter */
	bool filtered;		/* --client, --server, --op, --fh */
	struct an_marks *marks;
	struct ui_drops drops;	/* live: spans with capture drops */
};

static void show(const struct dump_ctx *x, FILE *f, const struct cap_msg *m,
		 const struct dec_msg *d, const struct an_mark *mk)
{
	if (x->json)
		dump_json_marked(f, m, d, mk);
	else
		dump_text_marked(f, m, d, x->tmode, mk);
}

/* Write the waiting lines older than held_ns (0: all), and the oldest
 * while more than DUMP_QUEUE_BYTES wait. */
static void queue_flush(struct dump_ctx *x, int64_t held_ns)
{
	struct dump_queue *q = &x->q;

	while (q->head < q->n && (held_ns == 0 ||
	       q->v[q->head].ts_ns < held_ns || q->bytes > DUMP_QUEUE_BYTES)) {
		struct dump_line *l = &q->v[q->head++];

		fwrite(l->text, 1, l->len, x->out);
		q->bytes -= l->len;
		free(l->text);
	}
	if (q->head == q->n)
		q->head = q->n = 0;
}

/* One message's line(s) into the queue: at the end, or an orphan reply
 * before the first line younger than it.  false: out of memory (the
 * line is written at once). */
static bool queue_msg(struct dump_ctx *x, const struct cap_msg *m,
		      const struct dec_msg *d, const struct an_mark *mk)
{
	struct dump_queue *q = &x->q;
	struct dump_line l = { .ts_ns = m->ts_ns };
	FILE *f;
	size_t at = q->n;

	if (!base_grow(&q->v, &q->cap, q->n, sizeof(*q->v), 256))
		return false;
	if ((f = open_memstream(&l.text, &l.len)) == NULL)
		return false;
	show(x, f, m, d, mk);
	if (fclose(f) != 0) {
		free(l.text);
		return false;
	}
	if (d->rpc.msg_type == RPC_REPLY && !d->call_seen)
		while (at > q->head && q->v[at - 1].ts_ns > m->ts_ns)
			at--;
	memmove(&q->v[at + 1], &q->v[at], (q->n - at) * sizeof(q->v[0]));
	q->v[at] = l;
	q->n++;
	q->bytes += l.len;
	return true;
}

/* Every RPC message the decoder is done with (run.h: held replies after
 * their calls; files: in capture time, the queue above). */
static void on_msg(void *user, const struct cap_msg *m,
		   const struct dec_msg *d)
{
	struct dump_ctx *x = user;
	struct an_mark mk;
	int64_t held;

	if (d == NULL)
		return;
	x->rpc_msgs++;
	if (x->first_ns == 0 || m->ts_ns < x->first_ns)
		x->first_ns = m->ts_ns;
	if (m->ts_ns > x->last_ns)
		x->last_ns = m->ts_ns;
	an_marks_msg(x->marks, m, d, &mk);
	if (!mk.pass)
		return;
	x->shown++;
	run_block_signals(true);
	held = x->reorder ? run_held_since(x->run) : 0;
	if ((x->q.n == 0 && held == 0) || !queue_msg(x, m, d, &mk))
		show(x, x->out, m, d, &mk);
	queue_flush(x, held);
	run_block_signals(false);
}

/* Live: the kernel or the interface dropped packets; messages in that span
 * may be missing, so say it where the messages are. */
static void on_drops(void *user, const struct cap_drop_span *sp)
{
	struct dump_ctx *x = user;
	char t0[48], t1[48];

	ui_drops_add(&x->drops, sp);
	if (x->json) {
		struct jw w;

		jw_init(&w, x->out);
		jw_obj(&w, NULL);
		jw_obj(&w, "drops");
		jw_time(&w, "start", (uint64_t)(sp->start_ns / NSEC_PER_SEC),
			(uint32_t)(sp->start_ns % NSEC_PER_SEC));
		jw_time(&w, "end", (uint64_t)(sp->end_ns / NSEC_PER_SEC),
			(uint32_t)(sp->end_ns % NSEC_PER_SEC));
		jw_u64(&w, "ps_drop", sp->drop);
		jw_u64(&w, "ps_ifdrop", sp->ifdrop);
		jw_end_obj(&w);
		jw_end_obj(&w);
		jw_newline(&w);
		return;
	}
	fprintf(x->out, "# %" PRIu64 " packets dropped by the kernel, %" PRIu64
		" by the interface between %s and %s: messages of that "
		"span may be missing\n", sp->drop, sp->ifdrop,
		ui_time_str(sp->start_ns, x->tmode, 6, t0, sizeof(t0)),
		ui_time_str(sp->end_ns, x->tmode, 6, t1, sizeof(t1)));
}

static void text_summary(struct dump_ctx *x, const struct cap_stats *cs,
			 const struct dec_stats *ds,
			 const struct cap_read_error *cut);
static void json_summary(struct dump_ctx *x, const struct cap_stats *cs,
			 const struct dec_stats *ds,
			 const struct cap_read_error *cut);

static void print_summary(struct dump_ctx *x, const struct cap_stats *cs,
			  const struct dec_stats *ds,
			  const struct cap_read_error *cut)
{
	struct ui_wrap wr;
	FILE *out = x->out;

	if (x->json) {
		json_summary(x, cs, ds, cut);
		return;
	}
	/* the summary within 80 columns ("# " and an indent go on) */
	if ((x->out = ui_wrap_begin(&wr, out, x->wide ? 0 :
				    UI_WRAP_COLS)) == NULL) {
		x->out = out;
		return;
	}
	text_summary(x, cs, ds, cut);
	ui_wrap_end(&wr);
	x->out = out;
}

static void json_summary(struct dump_ctx *x, const struct cap_stats *cs,
			 const struct dec_stats *ds,
			 const struct cap_read_error *cut)
{
	char t0[48], t1[48];

	{
		struct jw w;

		jw_init(&w, x->out);
		jw_obj(&w, NULL);
		jw_obj(&w, "summary");
		jw_u64(&w, "packets", cs->packets);
		jw_u64(&w, "rpc_messages", x->rpc_msgs);
		if (x->filtered)
			jw_u64(&w, "shown", x->shown);
		if (x->rpc_msgs) {
			jw_time(&w, "first", (uint64_t)(x->first_ns / NSEC_PER_SEC),
				(uint32_t)(x->first_ns % NSEC_PER_SEC));
			jw_time(&w, "last", (uint64_t)(x->last_ns / NSEC_PER_SEC),
				(uint32_t)(x->last_ns % NSEC_PER_SEC));
			jw_str(&w, "first_utc", ui_time_iso(x->first_ns, t0,
							    sizeof(t0)));
			jw_str(&w, "last_utc", ui_time_iso(x->last_ns, t1,
							   sizeof(t1)));
		}
		jw_u64(&w, "calls", ds->calls);
		jw_u64(&w, "replies", ds->replies);
		jw_u64(&w, "not_rpc", ds->not_rpc);
		jw_u64(&w, "orphan_replies", ds->orphan_replies);
		jw_u64(&w, "shape_fit", ds->shape_fit);
		jw_u64(&w, "shape_ambiguous", ds->shape_ambiguous);
		jw_u64(&w, "shape_nofit", ds->shape_nofit);
		jw_u64(&w, "reply_mismatch", ds->reply_mismatch);
		jw_u64(&w, "malformed", ds->malformed);
		jw_u64(&w, "truncated", ds->truncated);
		jw_u64(&w, "truncated_packets", cs->truncated);
		jw_u64(&w, "ipfrag_incomplete", cs->ipfrag_incomplete);
		jw_u64(&w, "tcp_gaps", cs->tcp_gaps);
		jw_u64(&w, "tcp_gaps_missed", cs->tcp_gaps_missed);
		jw_u64(&w, "tcp_resyncs", cs->tcp_resyncs);
		jw_u64(&w, "tcp_retrans", cs->tcp_retrans);
		jw_u64(&w, "tcp_not_rpc", cs->tcp_not_rpc);
		jw_u64(&w, "tcp_rejected", cs->tcp_rejected);
		jw_u64(&w, "tcp_hidden_spans", cs->tcp_hidden_spans);
		jw_u64(&w, "tcp_hidden_bytes", cs->tcp_hidden_bytes);
		jw_u64(&w, "tcp_hidden_calls", cs->tcp_hidden_calls);
		jw_u64(&w, "tcp_hidden_replies", cs->tcp_hidden_replies);
		jw_u64(&w, "tcp_seg_max", cs->tcp_seg_max);
		jw_u64(&w, "snap_caplen", cs->snap_caplen);
		jw_u64(&w, "tcp_seg_cut_max", cs->tcp_seg_cut_max);
		jw_u64(&w, "flows_evicted", cs->flows_evicted);
		jw_u64(&w, "ipfrag_evicted", cs->ipfrag_evicted);
		jw_u64(&w, "tcp_mem_evicted", cs->tcp_mem_evicted);
		jw_u64(&w, "xid_evictions", ds->xid_evictions);
		jw_u64(&w, "late_held", ds->late_held);
		jw_u64(&w, "late_matched", ds->late_matched);
		jw_u64(&w, "late_expired", ds->late_expired);
		jw_u64(&w, "late_over_budget", ds->late_over_budget);
		jw_u64(&w, "skew_tolerated", ds->skew_tolerated);
		jw_u64(&w, "ps_recv", cs->ps_recv);
		jw_u64(&w, "ps_drop", cs->ps_drop);
		jw_u64(&w, "ps_ifdrop", cs->ps_ifdrop);
		jw_u64(&w, "drop_spans", x->drops.n);
		jw_read_error(&w, "read_error", cut);
		jw_end_obj(&w);
		jw_end_obj(&w);
		jw_newline(&w);
	}
}

static void text_summary(struct dump_ctx *x, const struct cap_stats *cs,
			 const struct dec_stats *ds,
			 const struct cap_read_error *cut)
{
	uint64_t undecodable = ds->not_rpc + ds->malformed + cs->tcp_rejected;
	char t0[48], t1[48], z[64];

	if (x->rpc_msgs)
		fprintf(x->out, "# messages from %s to %s (%s)\n",
			ui_time_str(x->first_ns, x->tmode, 6, t0, sizeof(t0)),
			ui_time_str(x->last_ns, x->tmode, 6, t1, sizeof(t1)),
			ui_time_zone(x->first_ns, x->tmode, z, sizeof(z)));
	fprintf(x->out,
		"# %" PRIu64 " packets, %" PRIu64 " RPC messages (%" PRIu64
		" calls, %" PRIu64 " replies), %" PRIu64 " not decodable (%" PRIu64
		" not RPC, %" PRIu64 " malformed, %" PRIu64 " failing the RPC "
		"check at a TCP stream start), %" PRIu64 " orphan replies (by"
		" shape: %" PRIu64 " one procedure, %" PRIu64 " ambiguous, %"
		PRIu64 " no fit), %" PRIu64 " replies not fitting their call, %" PRIu64 " truncated, %" PRIu64 " incomplete IP fragment trains, %"
		PRIu64 " TCP gaps, %" PRIu64 " dropped by kernel, %" PRIu64
		" dropped by interface, evicted for budgets: %" PRIu64
		" TCP flows, %" PRIu64 " IP fragment trains, %" PRIu64
		" TCP holes and records (--tcp-mem), %" PRIu64
		" pending xids, %" PRIu64 " held replies (%" PRIu64
		" matched to a later call, %" PRIu64 " timed out, %" PRIu64
		" not held: budget full), %" PRIu64 " replies stamped before "
		"their call within the skew tolerance\n",
		cs->packets, x->rpc_msgs, ds->calls, ds->replies, undecodable,
		ds->not_rpc, ds->malformed, cs->tcp_rejected, ds->orphan_replies,
		ds->shape_fit, ds->shape_ambiguous, ds->shape_nofit,
		ds->reply_mismatch, ds->truncated,
		cs->ipfrag_incomplete, cs->tcp_gaps, cs->ps_drop, cs->ps_ifdrop,
		cs->flows_evicted, cs->ipfrag_evicted, cs->tcp_mem_evicted,
		ds->xid_evictions,
		ds->late_held, ds->late_matched, ds->late_expired,
		ds->late_over_budget, ds->skew_tolerated);
	if (x->filtered)
		fprintf(x->out, "# %" PRIu64 " of the %" PRIu64 " RPC messages "
			"shown: those of the operations --client, --server, "
			"--op and --fh select\n", x->shown, x->rpc_msgs);
	if (cs->tcp_hidden_spans)
		fprintf(x->out, "# hidden by the snaplen: ~%" PRIu64 " calls and "
			"~%" PRIu64 " replies (estimated; %" PRIu64 " TCP records "
			"known, %" PRIu64 " bytes in %" PRIu64 " flow directions) "
			"whose header lay past the captured bytes: %" PRIu64
			" of TCP segments up to %" PRIu64 " bytes captured\n",
			cs->tcp_hidden_calls, cs->tcp_hidden_replies,
			cs->tcp_hidden_spans, cs->tcp_hidden_bytes,
			cs->tcp_hidden_flows, cs->tcp_seg_cut_max,
			cs->tcp_seg_max);
	if (cs->tcp_gaps_missed)
		fprintf(x->out, "# missed by the capture: %" PRIu64 " TCP holes, "
			"%" PRIu64 " bytes the receiver acknowledged; the "
			"messages in them are not above\n", cs->tcp_gaps_missed,
			cs->tcp_gap_missed_bytes);
	if (cut) {
		char m[CAP_ERRBUF_SIZE + 96];

		fprintf(x->out, "# INPUT CUT: %s; every message before it is "
			"above\n", run_cut_str(cut, m, sizeof(m)));
	}
}

/* The end of the input (or of the run): the summary. */
static void on_end(void *user, const struct run_end *e)
{
	queue_flush(user, 0);
	print_summary(user, e->cs, e->ds, e->cut);
}

static void dump_usage(FILE *f)
{
	fputs("usage: nfscope dump [-r FILE | -i IFACE] [capture options] "
	      "[EXPRESSION]\n"
	      UI_HELP_USAGE
	      "  --json       one JSON object per message, then a summary\n"
	      "  --wide       the summary's lines unbroken (default: within 80 "
	      "columns)\n"
	      "  -v           ignored: every line has what tcpdump -vv shows\n"
	      "only the messages of the operations these select (comma lists, "
	      "repeatable):\n"
	      "  --client ADDR  ADDR, ADDR/LEN or PREFIX*\n"
	      "  --server ADDR  the same\n"
	      "  --op NAME      procedures (READ, NFSv3 WRITE, ...)\n"
	      "  --fh HEX       a file handle or its 8-digit hash\n"
	      "capture options:\n"
	      UI_SRC_USAGE, f);
	ui_budget_usage(f);
}

int ui_dump_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		UI_SRC_LONGOPTS,
		UI_FILTER_LONGOPTS,
		{ "json", no_argument, NULL, 'J' },
		{ "wide", no_argument, NULL, 'W' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ui_src_opts so;
	struct an_filter filt;
	struct dump_ctx x;
	struct run_config rc_cfg;
	struct run *run;
	struct run_hooks hooks = { .msg = on_msg, .drops = on_drops,
				   .end = on_end };
	int opt, rc;

	memset(&x, 0, sizeof(x));
	an_filter_init(&filt, false);
	ui_src_opts_init(&so);
	optind = 1;
	while ((opt = getopt_long(argc, argv, UI_SRC_OPTSTRING "vh", longopts,
				  NULL)) != -1) {
		if (opt == 'v')	/* tcpdump's -v/-vv: every line has it */
			continue;
		if (opt == 'J' || opt == 'W') {
			*(opt == 'J' ? &x.json : &x.wide) = true;
			continue;
		}
		if (opt == 'h') {
			dump_usage(stdout);
			return 0;
		}
		if (opt == 'K' || opt == 'V' || opt == 'P' ||
		    opt == UI_OPT_FH) {
			if (ui_filter_opt(&filt, "dump", opt, optarg) < 0)
				return 2;
			x.filtered = true;
			continue;
		}
		rc = ui_src_opt(&so, opt, optarg);
		if (rc == 1)
			continue;
		return rc == 0 ? ui_usage_error("dump", NULL) : 2;
	}
	if (ui_src_args(&so, "dump", argc, argv, optind) < 0)
		return 2;
	if (so.nfiles == 1 && store_is_db(so.file))
		return ui_usage_error("dump", "%s is a database written by "
				      "nfscope record, not a capture: 'nfscope "
				      "report %s' reads it (SQL: doc/store.md)",
				      so.file, so.file);
	ui_run_config(&so, "dump", &rc_cfg);
	x.marks = an_marks_new(rc_cfg.dec.xid_max, &filt);
	if (x.marks == NULL) {
		fprintf(stderr, "nfscope dump: out of memory\n");
		return 1;
	}
	if (run_open(&run, &rc_cfg) < 0 || run_after_open(run) < 0) {
		run_free(run);
		an_marks_free(x.marks);
		return 1;
	}
	x.out = stdout;
	x.run = run;
	x.reorder = so.iface == NULL;	/* live: each line at once */
	x.tmode = so.time_mode;
	if (so.iface)	/* live: each message as it comes, even on a pipe */
		setvbuf(stdout, NULL, _IOLBF, 0);
	hooks.user = &x;
	rc = run_go(run, &hooks);
	/* stdout is flushed and checked by main (ui_out_close) */
	queue_flush(&x, 0);	/* the end hook did, unless the run failed */
	free(x.q.v);
	run_free(run);
	an_marks_free(x.marks);
	return rc < 0 ? 1 : rc == RUN_CUT ? UI_EXIT_CUT : 0;
}
