/* acc.c - the one accumulator: the rule that adds an op to a cell and
 * the rules its readers share; see acc.h. */
#include "analyze/acc.h"

#include <assert.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

/* AN_SUMS_MEMBER's named fields are its struct an_sums' */
struct sums_check {
	AN_SUMS_MEMBER;
};
_Static_assert(sizeof(struct an_sums) == sizeof(struct sums_check) &&
	       offsetof(struct sums_check, lat_max_ns) ==
	       offsetof(struct sums_check, s.lat_max_ns),
	       "AN_SUMS_MEMBER: named fields and sums differ");

void an_sums_add(struct an_sums *s, struct hist *lat,
		 const struct an_opsum *x)
{
	s->calls++;
	if (x->retrans) {
		s->retrans += x->retrans;
		s->retrans_ops++;
	}
	s->dup_replies += x->dup;
	s->bytes += x->bytes;
	s->data_bytes += x->data;
	if (!x->answered) {
		s->unanswered++;
		return;
	}
	s->answered++;
	if (x->error)
		s->errors++;
	s->lat_sum_ns += (double)x->lat_ns;
	if ((uint64_t)x->lat_ns > s->lat_max_ns)
		s->lat_max_ns = (uint64_t)x->lat_ns;
	if (lat)
		hist_add(lat, (uint64_t)x->lat_ns);
}

void an_cell_add(struct an_sums *s, struct hist *lat, const struct an_op *op)
{
	struct an_opsum x = an_opsum_of(op);

	assert(!(op->flags & AN_OP_CALL_NOT_SEEN));
	an_sums_add(s, lat, &x);
}

double an_per_s(uint64_t n, double secs)
{
	return secs > 0 ? (double)n / secs : 0.0;
}

double an_rate(uint64_t n, int64_t from_ns, int64_t to_ns)
{
	return an_per_s(n, (double)(to_ns - from_ns) / 1e9);
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
