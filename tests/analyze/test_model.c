/*
 * test_model.c - the report model (analyze/model.h) against figures worked
 * out by hand from hand-built operations: rates over the span, means,
 * min/max and percentiles of the latencies, READ data per op and per
 * second, the retransmitted share, interval rows with a drop span, the
 * file rows cut to --top, completeness, names and row keys; and the
 * findings' threshold table (find.h) against an_find_config_default.
 */
#include "analyze/figs.h"
#include "analyze/find.h"
#include "analyze/model.h"
#include "tests/lib/check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MS 1000000LL
#define S 1000000000LL
#define T0 (1700000000LL * S)	/* the capture's first packet */

#define NEAR(a, b) CHECK(fabs((double)(a) - (double)(b)) < 1e-9)
#define WITHIN(a, b, rel) CHECK(fabs((double)(a) - (double)(b)) <= \
				(rel) * fabs((double)(b)))

/* 10.0.0.last */
static struct cap_addr A(uint8_t last)
{
	struct cap_addr a = { .family = 4, .a = { 10, 0, 0, last } };

	return a;
}

/* An NFSv3 op from client 10.0.0.cl to 10.0.0.1 over UDP, called at t;
 * answered after lat (lat < 0: unanswered), on file handle byte fh; sent
 * again 100 ms later when retrans.  Static: valid until the next call. */
static struct an_op *op_make(uint8_t cl, uint32_t proc, int64_t t,
			     int64_t lat, uint8_t fh, uint32_t rcount,
			     uint32_t retrans)
{
	static struct an_op o;

	memset(&o, 0, sizeof(o));
	o.client = A(cl);
	o.server = A(1);
	o.prog = PROG_NFS;
	o.vers = 3;
	o.proc = proc;
	o.export_id = -1;
	o.transport = CAP_UDP;
	o.first_call_ns = t;
	o.last_call_ns = t + (retrans ? 100 * MS : 0);
	o.retrans = retrans;
	if (retrans) {
		o.retrans_ivl_first_ns = 100 * MS;
		o.retrans_ivl_max_ns = 100 * MS;
	}
	o.call_len = 100;
	o.have = AN_HAVE_FH | AN_HAVE_STATUS;
	o.fh.len = 8;
	o.fh.data[0] = fh;
	if (lat >= 0) {
		o.flags = AN_OP_ANSWERED;
		o.reply_ns = t + lat;
		o.lat_first_ns = lat;
		o.lat_last_ns = lat - (o.last_call_ns - t);
		o.reply_len = 100;
		o.reply_stat = RPC_MSG_ACCEPTED;
		o.accept_stat = RPC_SUCCESS;
	} else {
		o.lat_first_ns = o.lat_last_ns = -1;
	}
	if (rcount) {
		o.have |= AN_HAVE_COUNT | AN_HAVE_RCOUNT;
		o.count = o.rcount = rcount;
	}
	return &o;
}

static void op(struct an_figs *f, struct an_find *fd, uint8_t cl,
	       uint32_t proc, int64_t t, int64_t lat, uint8_t fh,
	       uint32_t rcount, uint32_t retrans)
{
	const struct an_op *o = op_make(cl, proc, t, lat, fh, rcount, retrans);

	an_figs_add(f, o);
	an_find_add(fd, o);
}

static const struct an_model_row *row(const struct an_model *m,
				      enum an_group g, uint32_t proc)
{
	uint32_t k;

	for (k = 0; k < m->nrows[g]; k++)
		if (m->rows[g][k].row->proc == proc)
			return &m->rows[g][k];
	return NULL;
}

static void test_figures(void)
{
	struct an_figs_config fc = { .interval_ns = S };
	struct an_find_config dc;
	struct an_figs *f = an_figs_new(&fc);
	struct an_find *fd;
	struct cap_stats cs;
	struct dec_stats ds;
	struct an_stats es;
	struct cap_drop_span drop = { .start_ns = T0 + 1500 * MS,
				      .end_ns = T0 + 1600 * MS, .drop = 3 };
	struct an_model m;
	const struct an_model_row *w;
	char b[256];

	an_find_config_default(&dc);
	fd = an_find_new(&dc);
	memset(&cs, 0, sizeof(cs));
	memset(&ds, 0, sizeof(ds));
	memset(&es, 0, sizeof(es));
	/* second 0: GETATTRs of 1, 2 and 3 ms from client .2 (file 1);
	   second 1: a 32 KiB READ of 4 ms from client .3 (file 2) and a
	   LOOKUP from .3 sent twice and never answered (file 2) */
	op(f, fd, 2, NFS3_GETATTR, T0, 1 * MS, 1, 0, 0);
	op(f, fd, 2, NFS3_GETATTR, T0 + 100 * MS, 2 * MS, 1, 0, 0);
	op(f, fd, 2, NFS3_GETATTR, T0 + 200 * MS, 3 * MS, 1, 0, 0);
	op(f, fd, 3, NFS3_READ, T0 + 1000 * MS, 4 * MS, 2, 32768, 0);
	op(f, fd, 3, NFS3_LOOKUP, T0 + 1200 * MS, -1, 2, 0, 1);
	an_find_finish(fd, f, 0);
	cs.packets = 10;
	cs.ps_drop = 3;

	struct an_model_input in = {
		.figs = f, .find = fd, .cs = &cs, .ds = &ds, .es = &es,
		.first_ns = T0, .last_ns = T0 + 10 * S, .interval_ns = S,
		.size_share = 90, .top = 1, .drops = &drop, .ndrops = 1,
		.want = AN_MODEL_ALL_ROWS | AN_MODEL_INTERVALS,
	};
	CHECK(an_model_build(&m, &in) == 0);
	NEAR(m.duration_s, 10);
	CHECK(m.totals->ops == 5);
	NEAR(m.ops_per_s, 0.5);
	CHECK(!m.complete);		/* 3 packets dropped */

	/* by procedure: GETATTR, READ, LOOKUP in procedure order */
	CHECK(m.nrows[AN_BY_OP] == 3);
	CHECK(m.rows[AN_BY_OP][0].row->proc == NFS3_GETATTR);
	CHECK(m.rows[AN_BY_OP][1].row->proc == NFS3_LOOKUP);
	CHECK(m.rows[AN_BY_OP][2].row->proc == NFS3_READ);
	w = row(&m, AN_BY_OP, NFS3_GETATTR);
	CHECK(w && w->row->calls == 3);
	NEAR(w->ops_per_s, 0.3);
	CHECK(!w->has_data);
	NEAR(w->retrans_pct, 0);
	CHECK(w->lat.count == 3);
	NEAR(w->lat.min_ms, 1);
	NEAR(w->lat.avg_ms, 2);
	NEAR(w->lat.max_ms, 3);
	CHECK(w->lat.min_ns == 1 * MS && w->lat.max_ns == 3 * MS);
	NEAR(w->lat.sum_ns, 6 * MS);
	WITHIN(w->lat.p50_ms, 2, 0.01);	/* nearest rank of 1, 2, 3 */
	WITHIN(w->lat.p95_ms, 3, 0.01);
	WITHIN(w->lat.p99_9_ms, 3, 0.01);
	NEAR(w->bytes_per_s, 600 / 10.0);	/* 3 x (100 + 100) bytes */
	w = row(&m, AN_BY_OP, NFS3_READ);
	CHECK(w && w->has_data);
	NEAR(w->data_kib_per_op, 32);
	NEAR(w->data_kib_per_s, 3.2);
	NEAR(w->lat.avg_ms, 4);
	w = row(&m, AN_BY_OP, NFS3_LOOKUP);
	CHECK(w && w->row->calls == 1 && w->row->unanswered == 1);
	NEAR(w->retrans_pct, 100);
	CHECK(w->lat.count == 0);
	NEAR(w->lat.avg_ms, 0);
	NEAR(w->lat.p50_ms, 0);

	/* by client: each key's total row first, then its procedures */
	CHECK(m.nrows[AN_BY_CLIENT] == 5);
	CHECK(m.rows[AN_BY_CLIENT][0].row->proc == AN_PROC_ALL);
	CHECK(m.rows[AN_BY_CLIENT][0].row->calls == 3);
	CHECK(strcmp(an_model_row_key(&m, m.rows[AN_BY_CLIENT][0].row, b,
				      sizeof(b)), "10.0.0.2") == 0);
	CHECK(m.rows[AN_BY_CLIENT][2].row->proc == AN_PROC_ALL);
	CHECK(m.rows[AN_BY_CLIENT][2].row->calls == 2);
	/* the retransmitted LOOKUP's interval between transmissions */
	w = &m.rows[AN_BY_CLIENT][3];
	CHECK(w->row->proc == NFS3_LOOKUP && w->ivl.count == 1);
	NEAR(w->ivl.min_ms, 100);
	NEAR(w->ivl.max_ms, 100);

	/* files: the one with most calls, --top 1 */
	CHECK(m.nrows[AN_BY_FILE] == 1);
	CHECK(m.rows[AN_BY_FILE][0].row->calls == 3);
	CHECK(strncmp(an_model_row_key(&m, m.rows[AN_BY_FILE][0].row, b,
				       sizeof(b)), "10.0.0.1:fh=", 12) == 0);

	/* the pair of each client, a READ verdict for .3 only */
	CHECK(m.npairs == 2 && m.nservers == 1);
	CHECK(m.servers[0].server && !m.servers[0].has_commit);

	/* one interval per second with ops: 0 and 1 */
	CHECK(m.nintervals == 2);
	if (m.nintervals == 2) {
		CHECK(m.intervals[0].iv->calls == 3);
		NEAR(m.intervals[0].ops_per_s, 3);
		NEAR(m.intervals[0].lat_avg_ms, 2);
		NEAR(m.intervals[0].lat_max_ms, 3);
		CHECK(!m.intervals[0].incomplete);
		CHECK(m.intervals[1].iv->calls == 2);
		NEAR(m.intervals[1].lat_avg_ms, 4);	/* answered only */
		CHECK(m.intervals[1].incomplete);	/* the drop span */
	}
	an_model_fini(&m);
	an_model_fini(&m);		/* finished twice: harmless */

	/* only the totals: no rows, no intervals; complete without drops */
	cs.ps_drop = 0;
	in.want = 0;
	CHECK(an_model_build(&m, &in) == 0);
	CHECK(m.complete);
	CHECK(m.nrows[AN_BY_OP] == 0 && m.nintervals == 0);
	an_model_fini(&m);
	in.evictions = 1;
	CHECK(an_model_build(&m, &in) == 0);
	CHECK(!m.complete);
	an_model_fini(&m);
	an_find_free(fd);
	an_figs_free(f);
}

static void test_helpers(void)
{
	char b[64];

	NEAR(an_per_s(5, 2), 2.5);
	NEAR(an_per_s(5, 0), 0);
	NEAR(an_ms(1500000), 1.5);
	NEAR(an_mean_ms(6e6, 3), 2);
	NEAR(an_mean_ms(6e6, 0), 0);
	CHECK(!strcmp(an_model_proc_name(PROG_NFS, 3, NFS3_GETATTR, b,
					 sizeof(b)), "NFSv3 GETATTR"));
	CHECK(!strcmp(an_model_proc_name(PROG_NFS, 3, AN_PROC_ALL, b,
					 sizeof(b)), "(all)"));
	CHECK(!strcmp(an_model_proc_name(99, 1, 7, b, sizeof(b)),
		      "99 v1 proc7"));
	CHECK(!strcmp(an_model_group_names[AN_BY_EXPORT], "export"));
}

static void test_thresholds(void)
{
	struct an_find_config d, c;
	struct an_find_threshold t;
	size_t k;

	an_find_config_default(&d);
	c = d;
	CHECK(an_find_threshold_count() == 36);
	an_find_threshold_get(0, &t);
	CHECK(!strcmp(t.name, "getattr_rate") && !t.dbl);
	NEAR(t.def, d.getattr_rate);
	for (k = 0; k < an_find_threshold_count(); k++) {
		an_find_threshold_get(k, &t);
		CHECK(t.lo <= t.def && t.def <= t.hi);
		if (!strcmp(t.name, "storm_share"))
			CHECK(t.dbl && t.def == d.storm_share);
		if (!strcmp(t.name, "size_share"))
			CHECK(t.def == 90 && t.lo == 1 && t.hi == 100);
		if (!strcmp(t.name, "storm_clients"))	/* a budget */
			CHECK(t.def == AN_FIND_STORMS && t.lo == 1 &&
			      t.hi == AN_FIND_SUBJECTS);
	}
	CHECK(an_find_threshold_set(&c, "slow_ms=25") == 0);
	CHECK(c.slow_ms == 25);
	CHECK(an_find_threshold_set(&c, "storm_share=0.25") == 0);
	NEAR(c.storm_share, 0.25);
	CHECK(an_find_threshold_set(&c, "slow_ms=2.5") < 0);	/* not whole */
	CHECK(an_find_threshold_set(&c, "size_share=101") < 0);	/* range */
	CHECK(an_find_threshold_set(&c, "nosuch=1") < 0);
	CHECK(an_find_threshold_set(&c, "slow_ms") < 0);
	CHECK(an_find_threshold_set(&c, "slow_ms=") < 0);
	CHECK(an_find_threshold_set(&c, "slow=1") < 0);	/* a prefix */
	CHECK(c.slow_ms == 25 && c.size_share == d.size_share);
}

/* Retransmitted ops per interval and cause (series.h's rx cells, the
 * model's heat[].rx_cause), with a series of cells_max cells.  Client .2,
 * UDP, every op resent after 100 ms: at 0 s answered 1 ms after the resend
 * (a quick answer: the pair is seen from the client side, so a lost call
 * or reply), at 0.3 s never answered, at 2 s answered twice (a duplicate
 * reply: a slow server). */
static void test_rx_causes(uint32_t cells_max)
{
	struct an_figs_config fc = { .interval_ns = S };
	struct an_find_config dc;
	struct an_figs *f = an_figs_new(&fc);
	struct an_series *s = an_series_new(S, cells_max);
	struct an_find *fd;
	struct an_op *o;
	struct cap_stats cs;
	struct an_model m;
	uint32_t c;
	uint64_t sum[AN_RX_NCAUSES] = { 0 };

	an_find_config_default(&dc);
	fd = an_find_new(&dc);
	memset(&cs, 0, sizeof(cs));
	o = op_make(2, NFS3_GETATTR, T0, 101 * MS, 1, 0, 1);
	an_figs_add(f, o);
	an_series_add(s, o, an_find_add(fd, o));
	o = op_make(2, NFS3_GETATTR, T0 + 300 * MS, -1, 1, 0, 1);
	an_figs_add(f, o);
	an_series_add(s, o, an_find_add(fd, o));
	o = op_make(2, NFS3_GETATTR, T0 + 2 * S, 160 * MS, 1, 0, 1);
	o->dup_replies = 1;
	an_figs_add(f, o);
	an_series_add(s, o, an_find_add(fd, o));
	CHECK(an_find_add(fd, op_make(2, NFS3_GETATTR, T0, MS, 1, 0, 0)) == -1);
	an_find_finish(fd, f, 0);

	struct an_model_input in = {
		.figs = f, .find = fd, .cs = &cs, .first_ns = T0,
		.last_ns = T0 + 3 * S, .interval_ns = S, .series = s,
		.want = AN_MODEL_SERIES,
	};
	CHECK(an_model_build(&m, &in) == 0);
	CHECK(m.npairs == 1 && m.pairs[0].has_vantage);
	CHECK(m.pairs[0].vantage.vp == AN_VP_CLIENT);
	CHECK(m.pairs[0].vantage.cause[AN_RX_LOST] == 1);
	CHECK(m.pairs[0].vantage.cause[AN_RX_NOREPLY] == 1);
	CHECK(m.pairs[0].vantage.cause[AN_RX_SLOW] == 1);
	if (cells_max == 0) {		/* the default: all fit */
		CHECK(m.nheat == 2 && m.rx_dropped == 0);
		CHECK(m.heat[0].start_ns == T0 && m.heat[1].start_ns == T0 + 2 * S);
		CHECK(m.heat[0].rx_cause[AN_RX_LOST] == 1);
		CHECK(m.heat[0].rx_cause[AN_RX_NOREPLY] == 1);
		CHECK(m.heat[1].rx_cause[AN_RX_SLOW] == 1);
		for (c = 0; m.nheat == 2 && c < AN_RX_NCAUSES; c++) {
			sum[c] = m.heat[0].rx_cause[c] + m.heat[1].rx_cause[c];
			CHECK(sum[c] == m.pairs[0].vantage.cause[c]);
		}
	} else {	/* one cell of each kind: the rest counted dropped */
		CHECK(m.nheat == 1 && m.series_dropped == 1);
		CHECK(m.heat[0].rx_cause[AN_RX_LOST] == 1);
		CHECK(m.heat[0].rx_cause[AN_RX_NOREPLY] == 0);
		CHECK(m.rx_dropped == 2);
	}
	an_model_fini(&m);
	an_find_free(fd);
	an_series_free(s);
	an_figs_free(f);
}

int main(void)
{
	test_helpers();
	test_figures();
	test_rx_causes(0);
	test_rx_causes(1);
	test_thresholds();
	return CHECK_SUMMARY();
}
