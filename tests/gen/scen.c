/*
 * scen.c - nfsgen: per-operation ground truth (--ops-truth) and scripted
 * scenarios (--scenario) whose every operation, time, size, status and
 * verifier is chosen here and recorded as sent.  The scenarios target the
 * analysis engine: latency with a known server delay, retransmissions with
 * a known interval, duplicate replies, unanswered calls, XID reuse, capped
 * and uncapped transfer sizes, sync exports, a write-verifier change,
 * storms next to near-storms (just under a threshold), NOENT repeats and
 * error bursts.  See README.md for each scenario's layout.
 */
#include "gen.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

uint64_t scen_ops;
static FILE *opsf;

#define NFS3_GETATTR 1
#define NFS3_LOOKUP 3
#define NFS3_ACCESS 4
#define NFS3_READ 6
#define NFS3_WRITE 7
#define NFS3_FSINFO 19
#define NFS3_COMMIT 21
#define S_UNSTABLE 0
#define S_FILE_SYNC 2

void ops_truth_open(FILE *out)
{
	opsf = out;
}

static void hex(FILE *f, const char *key, const uint8_t *p, size_t n)
{
	fprintf(f, ",\"%s\":\"", key);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%02x", p[i]);
	fputc('"', f);
}

void ops_truth(const struct op_rec *r)
{
	const struct op *op = r->op;
	const struct flow *f = r->f;
	FILE *o = opsf;

	if (!o)
		return;
	fprintf(o, "{\"client\":\"%s\",\"server\":\"%s\",\"cport\":%u,\"cport_last\":%u,"
		"\"sport\":%u,\"proto\":\"%s\",\"xid\":%u,\"prog\":%u,\"vers\":%u,\"proc\":%u,"
		"\"tx_ns\":[",
		f->ipv == 4 ? f->cli->s4 : f->cli->s6, f->ipv == 4 ? f->srv->s4 : f->srv->s6,
		r->cport, r->cport_last, f->sport, f->tcp ? "tcp" : "udp", op->xid, op->prog,
		op->vers, op->proc);
	for (uint32_t i = 0; i < r->ntx; i++)
		fprintf(o, "%s%" PRId64, i ? "," : "", r->tx_ts[i]);
	fprintf(o, "],\"tx_lost\":%u,\"retrans\":%u", r->ntx_lost,
		r->ntx + r->ntx_lost ? r->ntx + r->ntx_lost - 1 : 0);
	if (r->ntx)
		fprintf(o, ",\"first_call_ns\":%" PRId64 ",\"last_call_ns\":%" PRId64,
			r->tx_ts[0], r->tx_ts[r->ntx - 1]);
	fprintf(o, ",\"answered\":%s", r->reply_ts && r->ntx ? "true" : "false");
	if (r->reply_ts)
		fprintf(o, ",\"reply_ns\":%" PRId64, r->reply_ts);
	fprintf(o, ",\"reply_lost\":%s,\"dup_replies\":%u,\"one_way\":%s,\"xid_reused\":%s",
		r->reply_lost ? "true" : "false", r->dup_replies, op->no_reply ? "true" : "false",
		r->xid_reused ? "true" : "false");
	if (r->cause)
		fprintf(o, ",\"cause\":\"%s\"", r->cause);
	if (op->rk != RK_OK)
		fprintf(o, ",\"rpc_error\":%d", (int)op->rk);
	if (op->prog == PROG_NFS && op->vers == 3 && op->o_have_status && op->rk == RK_OK)
		fprintf(o, ",\"status\":%u", op->o_status);
	if (op->o_have_rw)
		fprintf(o, ",\"count\":%u,\"offset\":%" PRIu64, op->o_count, op->o_offset);
	if (op->o_have_write)
		fprintf(o, ",\"stable\":%u", op->o_stable);
	if (op->o_set && op->rk == RK_OK && op->o_status == 0 && op->proc == NFS3_READ &&
	    op->prog == PROG_NFS && op->vers == 3)
		fprintf(o, ",\"rcount\":%u,\"eof\":%s", op->o_rcount, op->o_eof ? "true" : "false");
	if (op->o_set && op->rk == RK_OK && op->o_status == 0 && op->proc == NFS3_WRITE &&
	    op->prog == PROG_NFS && op->vers == 3)
		fprintf(o, ",\"rcount\":%u,\"committed\":%u", op->o_rcount, op->o_committed);
	if (op->o_have_verf && op->rk == RK_OK && op->o_status == 0)
		hex(o, "verf", op->o_verf, 8);
	if (op->fh)
		hex(o, "fh", op->fh, op->fh_len);
	if (op->name)
		fprintf(o, ",\"name\":\"%s\"", op->name);
	if (op->proc == NFS3_FSINFO && op->prog == PROG_NFS && op->vers == 3 && op->rtmax)
		fprintf(o, ",\"rtmax\":%u,\"wtmax\":%u", op->rtmax, op->wtmax);
	fputs("}\n", o);
}

/* ---------------------------------------------------- scripted ops -- */

struct xop {
	struct op op;
	uint32_t c, s;
	bool tcp;
	uint32_t retrans;	/* extra transmissions, ivl_ns apart */
	int64_t ivl_ns;
	bool port_change;	/* UDP: retransmissions from another port */
	uint32_t dups;		/* duplicate replies */
	bool unanswered;
	int64_t delay_ns;	/* server time after the last transmission */
	bool have_xid, xid_reused;
};

static struct gmsg xm[16];

static void copy_msg(struct gmsg *dst, const struct gmsg *src)
{
	jb_reset(&dst->j);
	jb_raw(&dst->j, src->j.p, src->j.len);
	dst->body_off = src->body_off;
	dst->len = src->len;
	dst->is_call = src->is_call;
}

/* The message slots once, and the op an NFSv3 one on x's transport. */
static void xop_begin(struct xop *x)
{
	if (!xm[0].j.p)
		for (size_t i = 0; i < sizeof(xm) / sizeof(xm[0]); i++)
			jb_init(&xm[i].j);
	x->op.prog = PROG_NFS;
	x->op.vers = 3;
	x->op.udp = !x->tcp;
}

static void xop_run_cause(struct xop *x, const char *cause)
{
	struct flow *f = gen_flow(x->c, x->s, SVC_NFS, x->tcp, 4);
	struct op_rec rec = { .op = &x->op, .f = f, .cport = f->cport, .cport_last = f->cport,
			      .xid_reused = x->xid_reused, .cause = cause };
	struct gmsg *m = &xm[0];
	uint16_t cp = 0;
	size_t len;
	bool gss;

	xop_begin(x);
	if (!x->have_xid)
		x->op.xid = gen_xid(x->c);
	len = enc_call(&x->op, m, x->c, &gss);
	gen_send(f, 0, 0, m, encbuf, len);
	tcp_flush();
	rec.tx_ts[rec.ntx++] = m->ts;
	for (uint32_t r = 0; r < x->retrans && r < 6; r++) {
		struct gmsg *t = &xm[1 + r];

		net_now = rec.tx_ts[rec.ntx - 1] + x->ivl_ns;
		if (!x->tcp && x->port_change)
			cp = (uint16_t)(f->cport == 1023 ? 512 : f->cport + 1);
		copy_msg(t, m);
		gen_send(f, 0, cp, t, encbuf, t->len);	/* encbuf unchanged */
		tcp_flush();
		rec.tx_ts[rec.ntx++] = t->ts;
	}
	rec.cport_last = cp ? cp : f->cport;
	if (!x->unanswered) {
		struct gmsg *rm = &xm[8];

		net_now += x->delay_ns;
		len = enc_reply(&x->op, rm, m->frame, false, false, gss);
		gen_send(f, 1, cp, rm, encbuf, len);
		tcp_flush();
		rec.reply_ts = rm->ts;
		for (uint32_t d = 0; d < x->dups && d < 6; d++) {
			struct gmsg *t = &xm[9 + d];

			copy_msg(t, rm);
			gen_send(f, 1, cp, t, encbuf, len);
			tcp_flush();
		}
		rec.dup_replies = x->dups;
	}
	ops_truth(&rec);
	scen_ops++;
}

static void xop_run(struct xop *x)
{
	xop_run_cause(x, NULL);
}

/* ------------------------------------------------------- scenarios -- */

static const struct scen_opts *so;
static int64_t t_start;

static int64_t delay(void)
{
	return (int64_t)so->delay_us * 1000 + (so->jitter_us ? (int64_t)rnd(so->jitter_us) * 1000 : 0);
}

static bool pick_tcp(void)
{
	return so->transport == 2 ? rnd(2) : so->transport == 1;
}

static void at(int64_t t)	/* move the clock to t (never back) */
{
	if (net_now < t)
		net_now = t;
}

static void base(struct xop *x, uint32_t c, uint32_t s, uint32_t proc)
{
	memset(x, 0, sizeof(*x));
	x->c = c % so->clients;
	x->s = s % so->servers;
	x->tcp = pick_tcp();
	x->op.proc = proc;
	x->op.set_status = true;	/* NFS3_OK unless a scenario says */
	x->op.full_read = true;
	x->delay_ns = delay();
}

static void fh_of(uint8_t fh[32], uint32_t a, uint32_t b)
{
	memset(fh, 0, 32);
	for (int i = 0; i < 8; i++) {
		fh[i] = (uint8_t)(a >> (i % 4 * 8)) ^ (uint8_t)(0x5a + i);
		fh[8 + i] = (uint8_t)(b >> (i % 4 * 8)) ^ (uint8_t)(0xa5 + i);
	}
	fh[31] = 1;
}

/* mixed: latency, retransmissions, duplicates, unanswered, XID reuse. */
static void s_mixed(void)
{
	static const uint32_t procs[] = { 1, 1, 1, 3, 3, 4, 4, 6, 7, 21, 18, 17, 2, 8, 12 };
	uint32_t nring = so->clients * so->servers;
	uint32_t ring[256] = { 0 };
	struct xop x;

	for (uint64_t k = 0; k < so->count; k++) {
		uint32_t c = rnd(so->clients), s = rnd(so->servers);
		uint32_t *last = &ring[(c * so->servers + s) % 256];

		base(&x, c, s, procs[rnd(sizeof(procs) / sizeof(procs[0]))]);
		x.op.count = x.tcp || so->size <= 32768 ? so->size : 32768;
		x.op.set_status = false;
		x.op.err = chance(0.05);
		if (chance(so->retrans)) {
			x.retrans = 1 + rnd(3);
			x.ivl_ns = (int64_t)so->retrans_ivl_us * 1000;
			x.port_change = rnd(2);
		}
		x.dups = chance(so->dup_replies) ? 1 + rnd(2) : 0;
		x.unanswered = chance(so->unanswered);
		if (so->xid_reuse && nring <= 256 && *last && rnd(30) == 0) {
			x.op.xid = *last;	/* a completed xid, another call */
			x.have_xid = x.xid_reused = true;
		}
		xop_run(&x);
		*last = x.op.xid;
		net_now += rnd((uint32_t)(2e9 / so->rate));
	}
}

/* sizes: FSINFO per pair (when a cap is given), then READ/WRITE; 9 in 10
 * at min(--size, cap), the rest random smaller. */
static void s_sizes(void)
{
	uint32_t rmax = so->server_rtmax, wmax = so->server_wtmax;
	struct xop x;

	for (uint32_t c = 0; c < so->clients; c++)
		for (uint32_t s = 0; s < so->servers; s++) {
			if (!rmax && !wmax)
				break;
			base(&x, c, s, NFS3_FSINFO);
			x.op.rtmax = rmax ? rmax : 1048576;
			x.op.wtmax = wmax ? wmax : 1048576;
			xop_run(&x);
			net_now += 1000000;
		}
	for (uint64_t k = 0; k < so->count; k++) {
		bool w = rnd(2);
		uint32_t cap = w ? wmax : rmax, sz = so->size;

		base(&x, rnd(so->clients), rnd(so->servers), w ? NFS3_WRITE : NFS3_READ);
		if (!x.tcp && sz > 32768)
			sz = 32768;
		if (cap && sz > cap)
			sz = cap;
		x.op.count = rnd(10) ? sz : 1 + rnd(sz);
		x.op.want_stable = 1 + S_UNSTABLE;
		xop_run(&x);
		net_now += rnd((uint32_t)(2e9 / so->rate));
	}
}

/* writes: UNSTABLE WRITEs (granted FILE_SYNC with --sync-export; FILE_SYNC
 * asked by PCT of each 100 with --sync-client PCT), a COMMIT
 * after every 10th; the server's verifier changes --verf-change-at s in. */
static void s_writes(void)
{
	static const char va[8] = "VERF-ONE", vb[8] = "VERF-TWO";
	uint8_t fh[32];
	struct xop x;

	for (uint64_t k = 0; k < so->count; k++) {
		uint32_t c = (uint32_t)(k % so->clients);
		bool changed = so->verf_change_at >= 0 &&
			       net_now >= t_start + (int64_t)(so->verf_change_at * 1e9);

		fh_of(fh, c, 7);
		base(&x, c, 0, NFS3_WRITE);
		x.op.fh = fh;
		x.op.fh_len = 32;
		x.op.count = 4096 * (1 + rnd(8));
		x.op.set_offset = true;
		x.op.offset = k * 32768;
		/* --sync-client: the first PCT of each client's every 100
		 * WRITEs ask FILE_SYNC (and are granted it) */
		if ((k / so->clients) % 100 < so->sync_client) {
			x.op.want_stable = 1 + S_FILE_SYNC;
			x.op.want_committed = 1 + S_FILE_SYNC;
		} else {
			x.op.want_stable = 1 + S_UNSTABLE;
			x.op.want_committed = 1 + (so->sync_export ? S_FILE_SYNC :
						   S_UNSTABLE);
		}
		x.op.verf = changed ? vb : va;
		xop_run(&x);
		if (k % 10 == 9) {
			base(&x, c, 0, NFS3_COMMIT);
			x.op.fh = fh;
			x.op.fh_len = 32;
			x.op.set_offset = true;
			x.op.count = 0;
			x.op.verf = changed ? vb : va;
			xop_run(&x);
		}
		net_now += (int64_t)(1e9 / so->rate);
	}
}

/* One client's run of `proc` on one handle at `rate`/s for `secs` s,
 * starting at second `t0` (ns, a whole second). */
static void storm_run(uint32_t c, uint32_t proc, double rate, double secs, int64_t t0)
{
	uint64_t n = (uint64_t)(rate * secs + 0.5);
	double period = 1e9 / rate;
	uint8_t fh[32], dfh[32];
	struct xop x;

	fh_of(fh, c, proc);
	fh_of(dfh, c, 1000 + proc);
	for (uint64_t k = 0; k < n; k++) {
		at(t0 + (int64_t)((double)k * period) + 1000);
		if (proc == NFS3_COMMIT) {
			base(&x, c, 0, NFS3_WRITE);
			x.op.fh = fh;
			x.op.fh_len = 32;
			x.op.count = 4096;
			x.op.set_offset = true;
			x.op.offset = k * 4096;
			x.op.want_stable = 1 + S_UNSTABLE;
			x.op.want_committed = 1 + S_UNSTABLE;
			x.op.verf = "VERF-ONE";
			x.delay_ns = 100000;
			xop_run(&x);
		}
		base(&x, c, 0, proc);
		x.delay_ns = 100000;
		x.op.fh = proc == NFS3_LOOKUP ? dfh : fh;
		x.op.fh_len = 32;
		x.op.name = proc == NFS3_LOOKUP ? "bin" : NULL;
		if (proc == NFS3_COMMIT) {
			x.op.set_offset = true;
			x.op.verf = "VERF-ONE";
		}
		xop_run(&x);
	}
}

/* storms: client 0 at --rate for --duration s (fires); client 1 at rate - 1
 * for duration + 2 s and client 2 at rate for duration - 1 s (must not).
 * commit-storm: client 1 writes twice per COMMIT (plus one WRITE), client 2
 * sends --repeat WRITE+COMMIT pairs at 10/s (a COMMIT count just under the
 * per-pair minimum when --repeat is commit_min - 1). */
static void s_storm(uint32_t proc)
{
	int64_t t0 = (net_now / 1000000000 + 1) * 1000000000;
	struct xop x;

	storm_run(0, proc, so->rate, so->duration, t0);
	t0 = (net_now / 1000000000 + 2) * 1000000000;
	if (proc == NFS3_COMMIT && so->clients > 1) {
		uint8_t fh[32];
		uint64_t n = (uint64_t)((so->rate - 1) * (so->duration + 2));

		fh_of(fh, 1, 99);
		for (uint64_t k = 0; k < 2 * n + 1; k++) {
			at(t0 + (int64_t)((double)(k / 2) * 1e9 / (so->rate - 1)) + 1000);
			base(&x, 1, 0, NFS3_WRITE);
			x.op.fh = fh;
			x.op.fh_len = 32;
			x.op.count = 4096;
			x.op.want_stable = 1 + S_UNSTABLE;
			x.op.want_committed = 1 + S_UNSTABLE;
			x.op.verf = "VERF-ONE";
			x.delay_ns = 100000;
			xop_run(&x);
			if (k % 2 == 1) {
				base(&x, 1, 0, NFS3_COMMIT);
				x.op.fh = fh;
				x.op.fh_len = 32;
				x.op.verf = "VERF-ONE";
				x.op.set_offset = true;
				x.delay_ns = 100000;
				xop_run(&x);
			}
		}
		t0 = (net_now / 1000000000 + 2) * 1000000000;
		if (so->clients > 2)
			storm_run(2, proc, 10, so->repeat / 10.0, t0);
		return;
	}
	if (so->clients > 1)
		storm_run(1, proc, so->rate - 1, so->duration + 2, t0);
	t0 = (net_now / 1000000000 + 2) * 1000000000;
	if (so->clients > 2 && so->duration > 1)
		storm_run(2, proc, so->rate, so->duration - 1, t0);
}

/* noent: client 0 looks up "libA.so" --repeat times and "libB.so" --repeat
 * - 1 times in one directory (NOENT), and "libC.so" --repeat times (found),
 * 10 ms apart, interleaved. */
static void s_noent(void)
{
	static const char *const names[] = { "libA.so", "libB.so", "libC.so" };
	uint8_t dfh[32];
	struct xop x;

	fh_of(dfh, 0, 4242);
	for (uint32_t k = 0; k < so->repeat; k++)
		for (int n = 0; n < 3; n++) {
			if (n == 1 && k + 1 == so->repeat)
				continue;
			base(&x, 0, 0, NFS3_LOOKUP);
			x.op.fh = dfh;
			x.op.fh_len = 32;
			x.op.name = names[n];
			x.op.status = n < 2 ? 2 : 0;
			xop_run(&x);
			net_now += 10000000;
		}
}

/* errors: server 0 answers --burst GETATTRs with --error-status, 200 ms
 * apart; server 1 answers --burst - 1 of them (just under the minimum). */
static void s_errors(void)
{
	struct xop x;

	for (uint32_t s = 0; s < 2 && s < so->servers; s++) {
		for (uint32_t k = 0; k < so->burst - s; k++) {
			base(&x, k, s, NFS3_GETATTR);
			x.op.status = so->error_status;
			xop_run(&x);
			net_now += 200000000;
		}
		net_now += 20000000000LL;
	}
}

/* One WRITE (4 KiB UNSTABLE) or COMMIT of client c on its handle. */
static void phase_op(uint32_t c, uint32_t proc, uint64_t k)
{
	uint8_t fh[32];
	struct xop x;

	fh_of(fh, c, 77);
	base(&x, c, 0, proc);
	x.op.fh = fh;
	x.op.fh_len = 32;
	x.op.verf = "VERF-ONE";
	x.op.set_offset = true;
	x.delay_ns = 100000;
	if (proc == NFS3_WRITE) {
		x.op.count = 4096;
		x.op.offset = k * 4096;
		x.op.want_stable = 1 + S_UNSTABLE;
		x.op.want_committed = 1 + S_UNSTABLE;
	}
	xop_run(&x);
}

/* UNSTABLE WRITEs of client c at `rate`/s for `secs` s from t0. */
static void phase_writes(uint32_t c, double rate, double secs, int64_t t0)
{
	uint64_t n = (uint64_t)(rate * secs + 0.5);

	for (uint64_t k = 0; k < n; k++) {
		at(t0 + (int64_t)((double)k * 1e9 / rate) + 1000);
		phase_op(c, NFS3_WRITE, k);
	}
}

/* commit-phase: each client writes at --rate for 3 s, then (100 ms later)
 * a phase of COMMITs at 50/s, then (100 ms later) writes again for 3 s
 * (--tail-commit: then one COMMIT, 10 ms after the last WRITE).
 * The phase: client 0 --repeat WRITE+COMMIT pairs (fires); client 1
 * --repeat - 1 pairs (one COMMIT short of commit_min); client 2 --repeat
 * COMMITs after two WRITEs each plus one more WRITE every 10th (10 per
 * 21, under 0.5); client 3 --repeat COMMITs after exactly two WRITEs each
 * (0.5: fires).  Clients one after another, 2 s apart. */
static void s_commit_phase(void)
{
	int64_t t0;

	for (uint32_t c = 0; c < 4 && c < so->clients; c++) {
		uint32_t n = so->repeat - (c == 1);

		t0 = (net_now / 1000000000 + 2) * 1000000000;
		phase_writes(c, so->rate, 3, t0);
		t0 = net_now + 100000000;
		for (uint32_t k = 0; k < n; k++) {
			uint32_t w = c == 0 || c == 1 ? 1 : 2 + (c == 2 && k % 10 == 9);

			at(t0 + (int64_t)k * 20000000);
			for (uint32_t i = 0; i < w; i++)
				phase_op(c, NFS3_WRITE, 100000 + k * 4 + i);
			phase_op(c, NFS3_COMMIT, k);
		}
		phase_writes(c, so->rate, 3, net_now + 100000000);
		if (so->tail_commit) {	/* fsync after the bulk write */
			at(net_now + 10000000);
			phase_op(c, NFS3_COMMIT, n);
		}
	}
}

/* One READ or WRITE of client c asking `count`, the reply granting at
 * most `grant` (a READ at EOF when eof). */
static void short_op(uint32_t c, bool w, uint32_t count, uint32_t grant, bool eof,
		     uint64_t k)
{
	struct xop x;

	base(&x, c, 0, w ? NFS3_WRITE : NFS3_READ);
	x.tcp = true;
	x.op.count = count;
	x.op.grant = grant;
	x.op.read_eof = eof;
	x.op.set_offset = true;
	x.op.offset = k * count;
	if (w) {
		x.op.want_stable = 1 + S_UNSTABLE;
		x.op.want_committed = 1 + S_UNSTABLE;
		x.op.verf = "VERF-ONE";
	}
	xop_run(&x);
	net_now += 1000000;
}

/* short-io (TCP): FSINFO advertising --server-rtmax/--server-wtmax (8192)
 * to each client, then --count ops per client: client 0 READs and WRITEs
 * (alternating) of --size (65536), granted the server's maximum; client 1
 * READs of --size answered short at EOF; client 2 READs of the maximum
 * (full) of which --repeat - 1 ask --size and come back short; client 3
 * the same with --repeat short. */
static void s_short_io(void)
{
	uint32_t rmax = so->server_rtmax ? so->server_rtmax : 8192;
	uint32_t wmax = so->server_wtmax ? so->server_wtmax : rmax;
	struct xop x;

	for (uint32_t c = 0; c < 4 && c < so->clients; c++) {
		base(&x, c, 0, NFS3_FSINFO);
		x.tcp = true;
		x.op.rtmax = rmax;
		x.op.wtmax = wmax;
		xop_run(&x);
		net_now += 1000000;
	}
	for (uint64_t k = 0; k < so->count; k++) {
		bool w = k % 2;

		short_op(0, w, so->size, w ? wmax : rmax, false, k);
		if (so->clients > 1)
			short_op(1, false, so->size, rmax / 2, true, k);
		for (uint32_t c = 2; c < 4 && c < so->clients; c++) {
			bool sh = k < so->repeat - (c == 2);

			short_op(c, false, sh ? so->size : rmax, rmax, false, k);
		}
	}
}

/* One cheap op (GETATTR or ACCESS) of client c to server sv, answered
 * after delay_ns. */
static void slow_op(uint32_t c, uint32_t sv, uint64_t k, int64_t delay_ns)
{
	uint8_t fh[32];
	struct xop x;

	fh_of(fh, c, 500 + sv);
	base(&x, c, sv, k % 2 ? NFS3_ACCESS : NFS3_GETATTR);
	x.op.fh = fh;
	x.op.fh_len = 32;
	x.delay_ns = delay_ns;
	xop_run(&x);
}

/* slow-server: --count GETATTR/ACCESS (alternating, clients in turn, 20
 * ms apart) to server 0 answered after --delay-us, then to server 1 after
 * --delay-us - 2000; then server 2 at 20 ops/s for 80 s from a whole 10 s,
 * answered after 2 ms, but after 21 ms in [40 s, 50 s) and 19 ms in
 * [60 s, 70 s). */
static void s_slow_server(void)
{
	int64_t t0;

	for (uint32_t sv = 0; sv < 2 && sv < so->servers; sv++)
		for (uint64_t k = 0; k < so->count; k++) {
			slow_op((uint32_t)(k % so->clients), sv, k,
				((int64_t)so->delay_us - 2000 * sv) * 1000);
			net_now += 20000000;
		}
	if (so->servers < 3)
		return;
	t0 = (net_now / 10000000000LL + 1) * 10000000000LL;
	for (uint64_t k = 0; k < 1600; k++) {
		int64_t t = (int64_t)k * 50000000, d = 2000000;

		if (t >= 40000000000LL && t < 50000000000LL)
			d = 21000000;
		else if (t >= 60000000000LL && t < 70000000000LL)
			d = 19000000;
		at(t0 + t + 1000);
		slow_op((uint32_t)(k % so->clients), 2, k, d);
	}
}

/* pipeline: runs of 8 READs or 8 WRITEs of --size and a GETATTR, sent back
 * to back on one TCP connection (the calls in one batch, the replies in
 * one batch): the record after a large one begins inside a segment, where
 * a snaplen cuts its header (header-only captures, --snaplen). */
#define PIPE_N 9
static void s_pipeline(void)
{
	static struct gmsg cm[PIPE_N], rm[PIPE_N];
	static struct xop xs[PIPE_N];
	bool gss[PIPE_N];

	if (!cm[0].j.p)
		for (int i = 0; i < PIPE_N; i++) {
			jb_init(&cm[i].j);
			jb_init(&rm[i].j);
		}
	for (uint64_t k = 0; k < so->count; k += PIPE_N) {
		uint32_t c = rnd(so->clients), sv = rnd(so->servers);
		bool w = rnd(2);
		struct flow *f = gen_flow(c, sv, SVC_NFS, true, 4);

		for (int i = 0; i < PIPE_N; i++) {
			struct xop *x = &xs[i];
			size_t len;

			base(x, c, sv, i + 1 < PIPE_N ? (w ? NFS3_WRITE : NFS3_READ) :
			     NFS3_GETATTR);
			x->tcp = true;
			x->op.prog = PROG_NFS;
			x->op.vers = 3;
			x->op.udp = false;
			x->op.xid = gen_xid(x->c);
			x->op.count = so->size;
			x->op.want_stable = 1 + S_UNSTABLE;
			len = enc_call(&x->op, &cm[i], x->c, &gss[i]);
			gen_send(f, 0, 0, &cm[i], encbuf, len);
		}
		tcp_flush();
		net_now += delay();
		for (int i = 0; i < PIPE_N; i++) {
			size_t len = enc_reply(&xs[i].op, &rm[i], cm[i].frame, false,
					       false, gss[i]);

			gen_send(f, 1, 0, &rm[i], encbuf, len);
		}
		tcp_flush();
		for (int i = 0; i < PIPE_N; i++) {
			struct op_rec rec = { .op = &xs[i].op, .f = f, .cport = f->cport,
					      .cport_last = f->cport };

			rec.tx_ts[rec.ntx++] = cm[i].ts;
			rec.reply_ts = rm[i].ts;
			ops_truth(&rec);
			scen_ops++;
		}
		net_now += rnd((uint32_t)(2e9 / so->rate));
	}
}


/* late-calls: TCP WRITEs of --size whose segment before the last is not
 * captured (the server got it and acknowledges past it), answered after
 * --delay-us (keep it under 200 us: the reply then comes before the
 * capture gives the hole up, and the call is delivered after its reply);
 * a GETATTR between them, whole.  Every op answered. */
static void s_late_calls(void)
{
	struct xop x;

	for (uint64_t k = 0; k < so->count; k++) {
		bool w = k % 2 == 0;

		base(&x, (uint32_t)k, 0, w ? NFS3_WRITE : NFS3_GETATTR);
		x.tcp = true;
		x.op.count = so->size;
		x.op.want_stable = 1 + S_UNSTABLE;
		net_drop_next = w;
		xop_run(&x);
		net_now += 1000000 + rnd((uint32_t)(2e9 / so->rate));
	}
}

/*
 * One GETATTR whose reply is stamped skew_ns before its call (two clocks:
 * a merged capture, a multi-queue NIC), written to the file before the
 * call (reply_first: a capture sorted by time) or after it.  Ground truth
 * as sent: reply_ns < first_call_ns.
 */
static void xop_skew(struct xop *x, int64_t skew_ns, bool reply_first)
{
	static uint8_t callbuf[1024];
	struct flow *f = gen_flow(x->c, x->s, SVC_NFS, x->tcp, 4);
	struct op_rec rec = { .op = &x->op, .f = f, .cport = f->cport, .cport_last = f->cport };
	struct gmsg *m = &xm[0], *rm = &xm[8];
	int64_t t = net_now;
	size_t clen, rlen;
	bool gss;

	xop_begin(x);
	x->op.xid = gen_xid(x->c);
	clen = enc_call(&x->op, m, x->c, &gss);
	if (clen > sizeof(callbuf))
		abort();
	memcpy(callbuf, encbuf, clen);
	if (!reply_first) {
		gen_send(f, 0, 0, m, callbuf, clen);
		tcp_flush();
	}
	rlen = enc_reply(&x->op, rm, reply_first ? 0 : m->frame, false, false, gss);
	net_now = t - skew_ns;
	gen_send(f, 1, 0, rm, encbuf, rlen);
	tcp_flush();
	net_now = t;
	if (reply_first) {
		gen_send(f, 0, 0, m, callbuf, clen);
		tcp_flush();
	}
	rec.tx_ts[rec.ntx++] = m->ts;
	rec.reply_ts = rm->ts;
	ops_truth(&rec);
	scen_ops++;
}

/*
 * vantage: one op as it crossed a link with a one-way delay d, written as
 * seen at the client's end or at the server's (so->end).  The client sends
 * ntx transmissions ivl apart from t0; lost[k]: transmission k never
 * reached the server.  The server answers transmission k (as received) at
 * rep[k] ns after it (< 0: no answer); rlost[k]: that reply never reached
 * the client, rfrag[k]: it lost its second IP fragment on the way.
 */
struct vop {
	struct xop x;
	const char *cause;
	uint32_t ntx;
	int64_t t0, ivl;
	bool lost[4], rlost[4], rfrag[4];
	int64_t rep[4];
};

struct vev {
	int64_t t;
	int reply;	/* 0: transmission k, 1: the reply to it */
	uint32_t k;
	bool frag_lost;
};

static uint8_t vbuf[2][70000];
static size_t vlen[2];

static void vop_run(struct vop *v, int64_t d)
{
	struct xop *x = &v->x;
	struct flow *f = gen_flow(x->c, x->s, SVC_NFS, false, 4);
	struct op_rec rec = { .op = &x->op, .f = f, .cport = f->cport,
			      .cport_last = f->cport, .cause = v->cause };
	struct vev ev[8];
	uint32_t n = 0, i, j, nrep = 0;
	uint64_t call_frame = 0;
	size_t len;
	bool gss;

	x->tcp = false;
	xop_begin(x);
	x->op.xid = gen_xid(x->c);
	for (i = 0; i < v->ntx && i < 4; i++) {
		int64_t sent = v->t0 + (int64_t)i * v->ivl, got = sent + d;

		if (so->end == 0 || !v->lost[i])
			ev[n++] = (struct vev){ so->end ? got : sent, 0, i, false };
		if (v->lost[i] || v->rep[i] < 0 || (so->end == 0 && v->rlost[i]))
			continue;
		ev[n++] = (struct vev){ got + v->rep[i] + (so->end ? 0 : d), 1, i,
					so->end == 0 && v->rfrag[i] };
	}
	for (i = 1; i < n; i++)	/* by time */
		for (j = i; j > 0 && ev[j].t < ev[j - 1].t; j--) {
			struct vev t = ev[j];

			ev[j] = ev[j - 1];
			ev[j - 1] = t;
		}
	/* one call and one reply, sent again as they are (a resend, a
	 * replayed reply) */
	len = enc_call(&x->op, &xm[0], x->c, &gss);
	if (len > sizeof(vbuf[0]))
		abort();
	memcpy(vbuf[0], encbuf, len);
	vlen[0] = len;
	vlen[1] = 0;
	for (i = 0; i < n; i++) {
		at(ev[i].t);
		if (!ev[i].reply) {
			copy_msg(&xm[1], &xm[0]);
			gen_send(f, 0, 0, &xm[1], vbuf[0], vlen[0]);
			call_frame = xm[1].frame;
			if (rec.ntx < 8)
				rec.tx_ts[rec.ntx++] = xm[1].ts;
			continue;
		}
		if (!vlen[1]) {
			vlen[1] = enc_reply(&x->op, &xm[8], call_frame, false,
					    false, gss);
			if (vlen[1] > sizeof(vbuf[1]))
				abort();
			memcpy(vbuf[1], encbuf, vlen[1]);
		}
		copy_msg(&xm[9], &xm[8]);
		net_drop_frag_next = ev[i].frag_lost;
		gen_send(f, 1, 0, &xm[9], vbuf[1], vlen[1]);
		net_drop_frag_next = false;
		if (ev[i].frag_lost)
			continue;	/* an incomplete train */
		if (nrep++ == 0)
			rec.reply_ts = xm[9].ts;
		else
			rec.dup_replies++;
	}
	ops_truth(&rec);
	scen_ops++;
}

/*
 * vantage: client 1 <-> server 1 over UDP, client 3 <-> server 2 over
 * TCP, a round trip of --rtt-us, seen from --end.  Before: 30 quick
 * GETATTRs (0.5 ms) and 8 READs of client 2 answered in 150 ms (the
 * server's usual READ latency).  Then --repeat rounds of: lost call, lost
 * reply, slow server (one late reply; a late reply to each transmission),
 * client timeout shorter than the usual READ latency, a READ reply that
 * lost an IP fragment, never answered, a TCP resend, 3 quick GETATTRs.
 * The client resends after 100 ms.  Each op's cause is in its ops-truth
 * line ("cause").
 */
static void s_vantage(void)
{
	const int64_t ms = 1000000, d = (int64_t)so->rtt_us * 500, T = 100 * ms;
	static const struct {
		const char *cause;
		uint32_t proc, ntx;
		bool lost0, rlost0, rfrag0;
		int64_t rep0, rep1;
	} script[] = {
		{ "lost_call", NFS3_GETATTR, 2, true, false, false, -1, ms / 2 },
		{ "lost_reply", NFS3_GETATTR, 2, false, true, false, ms / 2, ms / 2 },
		{ "slow_server", NFS3_GETATTR, 2, false, false, false, 160 * ms, -1 },
		{ "slow_server", NFS3_GETATTR, 2, false, false, false, 160 * ms, 160 * ms },
		{ "short_timeout", NFS3_READ, 2, false, false, false, 150 * ms, -1 },
		{ "lost_reply_fragment", NFS3_READ, 2, false, false, true, ms / 2, ms / 2 },
		{ "never_answered", NFS3_GETATTR, 3, false, false, false, -1, -1 },
	};
	struct vop v;
	struct xop x;
	uint32_t r, k;

	net_hs_rtt_ns = 2 * d;
	net_hs_end = so->end ? 2 : 1;
	for (k = 0; k < 38; k++) {
		memset(&v, 0, sizeof(v));
		base(&v.x, k < 30 ? 0 : 1, 0, k < 30 ? NFS3_GETATTR : NFS3_READ);
		v.x.op.count = 32768;
		v.t0 = net_now + 10 * ms;
		v.ntx = 1;
		v.rep[0] = k < 30 ? ms / 2 : 150 * ms;
		vop_run(&v, d);
		at(v.t0 + 200 * ms);
	}
	for (r = 0; r < so->repeat; r++) {
		for (k = 0; k < sizeof(script) / sizeof(script[0]); k++) {
			memset(&v, 0, sizeof(v));
			base(&v.x, 0, 0, script[k].proc);
			v.x.op.count = 32768;
			v.cause = script[k].cause;
			v.ntx = script[k].ntx;
			v.t0 = net_now + 10 * ms;
			v.ivl = T;
			v.lost[0] = script[k].lost0;
			v.rlost[0] = script[k].rlost0;
			v.rfrag[0] = script[k].rfrag0;
			v.rep[0] = script[k].rep0;
			v.rep[1] = script[k].rep1;
			v.rep[2] = -1;
			vop_run(&v, d);
			at(v.t0 + 500 * ms);
		}
		base(&x, 2, 1, NFS3_GETATTR);
		x.tcp = true;
		x.retrans = 1;
		x.ivl_ns = T;
		x.delay_ns = ms / 2;
		xop_run_cause(&x, "tcp_resend");
		at(net_now + 10 * ms);
		for (k = 0; k < 3; k++) {
			memset(&v, 0, sizeof(v));
			base(&v.x, 0, 0, NFS3_GETATTR);
			v.t0 = net_now + 10 * ms;
			v.ntx = 1;
			v.rep[0] = ms / 2;
			vop_run(&v, d);
			at(v.t0 + 20 * ms);
		}
	}
}

/* skew: --count GETATTRs, replies stamped 1 us to 20 ms before their call
 * (the 5 ms tolerance and either side of it), half written reply first. */
static void s_skew(void)
{
	static const uint32_t us[] = { 1, 2, 10, 100, 1000, 4000, 5000, 5001, 6000, 20000 };
	struct xop x;

	for (uint64_t k = 0; k < so->count; k++) {
		base(&x, (uint32_t)k, (uint32_t)(k / so->clients), NFS3_GETATTR);
		at(net_now + 30000000);	/* 30 ms: ops do not overlap */
		xop_skew(&x, (int64_t)us[k % 10] * 1000, k / 10 % 2 == 1);
	}
}

bool scen_run(const char *name, const struct scen_opts *o)
{
	so = o;
	t_start = net_now;
	if (!strcmp(name, "mixed"))
		s_mixed();
	else if (!strcmp(name, "sizes"))
		s_sizes();
	else if (!strcmp(name, "writes"))
		s_writes();
	else if (!strcmp(name, "getattr-storm"))
		s_storm(NFS3_GETATTR);
	else if (!strcmp(name, "access-storm"))
		s_storm(NFS3_ACCESS);
	else if (!strcmp(name, "lookup-storm"))
		s_storm(NFS3_LOOKUP);
	else if (!strcmp(name, "commit-storm"))
		s_storm(NFS3_COMMIT);
	else if (!strcmp(name, "commit-phase"))
		s_commit_phase();
	else if (!strcmp(name, "short-io"))
		s_short_io();
	else if (!strcmp(name, "slow-server"))
		s_slow_server();
	else if (!strcmp(name, "pipeline"))
		s_pipeline();
	else if (!strcmp(name, "noent"))
		s_noent();
	else if (!strcmp(name, "errors"))
		s_errors();
	else if (!strcmp(name, "late-calls"))
		s_late_calls();
	else if (!strcmp(name, "skew"))
		s_skew();
	else if (!strcmp(name, "vantage"))
		s_vantage();
	else
		return false;
	return true;
}
