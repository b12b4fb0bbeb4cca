/* report_model.c - the report's state (struct rep) as the report model's
 * input (analyze/model.h): the one place the writers get their figures
 * from.  See report.h. */
#include "ui/report/report_model.h"
#include "ui/report/rep.h"

int rep_model(const struct rep *r, unsigned want, struct an_model *m)
{
	struct an_model_input in = {
		.figs = r->figs, .find = r->find, .names = r->names,
		.cs = &r->cs, .ds = r->ds, .es = r->es,
		.rpc_msgs = r->rpc_msgs,
		.first_ns = r->first_ns, .last_ns = r->last_ns,
		.interval_ns = r->interval_ns, .size_share = r->size_share,
		.top = r->top, .evictions = run_evictions(&r->cs, r->ds, r->es),
		.cut = r->cut, .drops = r->drops.span, .ndrops = r->drops.n,
		.series = r->series,
		.series_cols_max = r->series_cols,
		.want = want,
	};

	/* the verdict and the findings' order: judge.c, on the built model
	 * (model.c calls nothing of judge.c's: no circle of files) */
	if (an_model_build(m, &in) < 0) {
		fprintf(stderr, "nfscope: out of memory\n");
		return -1;
	}
	if (an_judge(m) < 0) {
		an_model_fini(m);
		fprintf(stderr, "nfscope: out of memory\n");
		return -1;
	}
	return 0;
}
