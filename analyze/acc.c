/* acc.c - the one accumulator: cells, their add rule and the dashboard's
 * history; see acc.h. */
#include "analyze/acc.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

void an_cell_add(struct an_sums *s, struct hist *lat, const struct an_op *op)
{
	assert(!(op->flags & AN_OP_CALL_NOT_SEEN));
	s->calls++;
	if (op->retrans) {
		s->retrans += op->retrans;
		s->retrans_ops++;
	}
	s->dup_replies += op->dup_replies;
	s->bytes += (uint64_t)op->call_len + op->reply_len;
	s->data_bytes += an_op_data_bytes(op);
	if (!(op->flags & AN_OP_ANSWERED)) {
		s->unanswered++;
		return;
	}
	s->answered++;
	if (an_op_is_error(op))
		s->errors++;
	s->lat_sum_ns += (double)op->lat_first_ns;
	if ((uint64_t)op->lat_first_ns > s->lat_max_ns)
		s->lat_max_ns = (uint64_t)op->lat_first_ns;
	if (lat)
		hist_add(lat, (uint64_t)op->lat_first_ns);
}

double an_rate(uint64_t n, int64_t from_ns, int64_t to_ns)
{
	double secs = (double)(to_ns - from_ns) / 1e9;

	return (double)n / (secs < 1 ? 1 : secs);
}

void an_sizes_add(struct an_sizes *s, uint32_t size)
{
	uint32_t k;

	s->total++;
	if (size > s->max)
		s->max = size;
	for (k = 0; k < s->nsizes; k++) {
		if (s->s[k].size == size) {
			s->s[k].n++;
			return;
		}
	}
	if (s->nsizes == AN_SIZES_MAX) {
		s->other++;
		return;
	}
	s->s[s->nsizes].size = size;
	s->s[s->nsizes++].n = 1;
}

uint32_t an_sizes_dominant(const struct an_sizes *s, uint64_t *n)
{
	uint32_t k, dom = 0;
	uint64_t dn = 0;

	for (k = 0; k < s->nsizes; k++)
		if (s->s[k].n > dn || (s->s[k].n == dn && s->s[k].size > dom)) {
			dn = s->s[k].n;
			dom = s->s[k].size;
		}
	*n = dn;
	return dom;
}
