/* sink.c - an operation into the sinks a command chose; see sink.h. */
#include "run/sink.h"

#include <assert.h>

void run_sinks_add(struct run_sinks *s, const struct run_sink *k)
{
	assert(s->nsinks < RUN_SINKS_MAX);
	s->sink[s->nsinks++] = *k;
}

static void sinks_op(const struct run_sinks *s, const struct an_op *op,
		     bool early, int32_t rx)
{
	uint32_t k;

	for (k = 0; k < s->nsinks; k++)
		if (s->sink[k].early == early && s->sink[k].op)
			s->sink[k].op(s->sink[k].user, op, rx);
}

void run_sinks_op(const struct run_sinks *s, const struct an_op *op)
{
	int32_t rx = -1;

	sinks_op(s, op, true, -1);
	if (s->figs && s->figs_push)
		an_figs_push(s->figs, op);
	else if (s->figs)
		an_figs_add(s->figs, op);
	if (s->find)
		rx = an_find_add(s->find, op);
	if (s->series)
		an_series_add(s->series, op, rx);
	sinks_op(s, op, false, rx);
}

bool run_sinks_want_health(const struct run_sinks *s)
{
	uint32_t k;

	for (k = 0; k < s->nsinks; k++)
		if (s->sink[k].health)
			return true;
	return false;
}

void run_sinks_health(const struct run_sinks *s, const struct cap_stats *cs,
		      const struct dec_stats *ds, const struct an_stats *es)
{
	uint32_t k;

	for (k = 0; k < s->nsinks; k++)
		if (s->sink[k].health)
			s->sink[k].health(s->sink[k].user, cs, ds, es);
}

void run_sinks_end(const struct run_sinks *s, const struct run_end *e)
{
	uint32_t k;

	if (e->error && !e->store_failed)
		return;		/* the input is lost: nothing is shown */
	if (s->find && e->handshakes)
		an_find_handshakes(s->find, e->handshakes,
				   CAP_HANDSHAKE_PAIRS);
	if (s->find && s->find_finish)
		an_find_finish(s->find, s->figs,
			       e->cs ? e->cs->ipfrag_incomplete : 0);
	for (k = 0; k < s->nsinks; k++)
		if (s->sink[k].end)
			s->sink[k].end(s->sink[k].user, e);
}
