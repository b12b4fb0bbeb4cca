/*
 * evidence.h - `--write-pcap OUT`: the packets of selected operations,
 * written as a pcap Wireshark opens: every frame that carried one of their
 * messages (each transmission of the call, each reply, every IP fragment
 * and TCP segment of them), in capture order, with the input's link type
 * and nanosecond timestamps.
 *
 * Use: run_evidence_new with the selection; live (-i), run_evidence_live
 * on the configuration before run_open and run_evidence_spool once the
 * source is open (after -Z); run_evidence_op for every operation of the
 * run (on one thread: the analysis thread's op hook); at the end, with
 * `findings` selected, run_evidence_findings against the run's findings;
 * then run_evidence_write reads the input again twice (the same
 * configuration, as many frames as the run read): once decoding, to find
 * the messages of the kept operations (same client, server and XID, from
 * the first call to the last reply or duplicate reply) and the frames
 * that carried them (first to completing frame, of the same IP fragment
 * train or TCP flow direction; over TCP also the records that end in the
 * segment where a kept one begins, up to EV_CHAIN deep, so a reader finds
 * where it starts), once to copy those frames.
 *
 * Live, a capture cannot be read again: every frame the run reads is
 * spooled as it is read to OUT.spool (a pcap of the interface's link type
 * and snaplen, ns timestamps; it grows with the capture), the two passes
 * read the spool after the run (the end of the input, -c, --duration or
 * SIGINT/SIGTERM: the run's frames are all in it), and it is deleted.
 * The stop that ended the run is spent: a second SIGINT/SIGTERM stops the
 * passes (OUT is then incomplete or not written, and says so).
 *
 * --select findings: the operations that are a finding's evidence
 * (analyze/find.h).  Findings are known only at the end, so every NFS
 * operation and every retransmitted one is kept as a candidate during
 * the run (within RUN_EV_OPS_MAX, as the others), and
 * run_evidence_findings keeps those that fit a finding: its client and
 * server when it has them, its span (first call in start..end; none:
 * the whole run) and, per kind:
 *   getattr/access/lookup storm  the GETATTR / ACCESS / LOOKUP calls
 *   commit_storm      the COMMITs and the WRITEs (the phase's ratio)
 *   noent_repeat      LOOKUPs of its name in its directory answered NOENT
 *   size_capped       the READs, or the WRITEs (as the finding says)
 *   sync_export       WRITEs asked UNSTABLE and granted FILE_SYNC
 *   sync_client       WRITEs asked FILE_SYNC or DATA_SYNC
 *   server_restart    the server's WRITEs and COMMITs answered within
 *                     1 s either side of the verifier change
 *   error_burst       the server's NFS ops answered JUKEBOX, STALE,
 *                     ACCES or NOSPC in its seconds
 *   retransmits       the client's retransmitted ops
 *   short_io          the pair's short READs (not at EOF) and WRITEs
 *   slow_server       the server's cheap ops (NULL, GETATTR, ACCESS,
 *                     FSINFO), READs, WRITEs and COMMITs slower than
 *                     slow_ms (from the last transmission); with a
 *                     client, its cheap ops to the server slower than
 *                     slow_ms from its first transmission
 *   slow_path         the server's answered cheap ops (their time is
 *                     the path's)
 *   tcp_loss          the pair's NFS ops retransmitted or slower than
 *                     slow_ms from the first transmission (a lost
 *                     segment holds its message for a resend)
 *   tcp_reset         the pair's ops sent again (on a new connection)
 *   tcp_stall         the pair's TCP ops whose call or reply spread over
 *                     35 ms from first segment to last, or answered in
 *                     36-44 ms
 *   latency_shift     the server's answered NFS ops in its intervals
 *
 * Memory: ~104 bytes per kept operation and ~64 per message found (arrays
 * that grow by doubling, never per packet); at most RUN_EV_OPS_MAX
 * operations are kept, the others counted (ops_over).
 */
#ifndef NFSCOPE_RUN_EVIDENCE_H
#define NFSCOPE_RUN_EVIDENCE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analyze/ops.h"
#include "run/base.h"
#include "run/sink.h"

#define RUN_EV_OPS_MAX 4000000u

/* Which operations (any of the set ones; none set: every operation
 * offered, which the caller's filters chose). */
struct run_ev_select {
	int64_t slow_ns;	/* > 0: latency (from the first call) above */
	bool errors;		/* an NFS or MOUNT status, or an RPC error */
	bool retrans;		/* retransmitted, or a duplicate reply */
	bool unanswered;	/* no reply seen */
	bool findings;		/* a finding's evidence (the table above) */
};

struct run_ev_stats {
	uint64_t ops;		/* operations kept */
	uint64_t ops_over;	/* selected (or candidates), not kept:
				   RUN_EV_OPS_MAX */
	uint64_t findings;	/* the run's findings (--select findings) */
	uint64_t candidates;	/* operations kept as candidates */
	uint64_t evidence;	/* of which a finding's evidence */
	uint64_t msgs;		/* their messages found */
	uint64_t frames;	/* frames written */
};

struct run_evidence;

/* Parse "slow:MS,errors,retrans,unanswered,findings" into *s: 0, or -1
 * with a message in err. */
int run_ev_select_parse(const char *arg, struct run_ev_select *s, char *err,
			size_t n);
struct run_evidence *run_evidence_new(const struct run_ev_select *sel);
void run_evidence_free(struct run_evidence *ev);
/* One operation of the run: kept if the selection takes it. */
void run_evidence_op(struct run_evidence *ev, const struct an_op *op);
/* ev as one of the run's sinks (run/sink.h: run_evidence_op for every
 * operation), added to s; ev NULL: nothing. */
void run_evidence_sink(struct run_evidence *ev, struct run_sinks *s);
/* Live (c->iface set): spool every frame the run reads to OUT.spool
 * (c's frame tap); before run_open.  Files: nothing.  ev NULL: nothing. */
void run_evidence_live(struct run_evidence *ev, struct run_config *c,
		       const char *out);
/* Live, after run_open (and -Z): create the spool with src's link type
 * and snaplen.  0 (also: not live, ev NULL), or -1 with a message on
 * stderr (who: the subcommand). */
int run_evidence_spool(struct run_evidence *ev, const struct cap_source *src,
		       const char *who);
/* --select findings, at the end of the run: keep of the candidates those
 * that are evidence of one of f's findings (slow_ms: the threshold of
 * slow_server, an_find_config's).  Without findings selected: nothing. */
void run_evidence_findings(struct run_evidence *ev, const struct an_find *f,
			   uint32_t slow_ms);
/* Read c's files (live: the spool, then deleted) again, their first
 * `frames` frames (the run's cap_stats packets; 0: all), and write the
 * kept operations' frames to out (the caller's, open for writing; left
 * open and flushed: the caller closes it), named path in messages.
 * Returns 0, or -1 with a message on stderr. */
int run_evidence_write(struct run_evidence *ev, const struct run_config *c,
		       FILE *out, const char *path, uint64_t frames,
		       struct run_ev_stats *st);

#endif
