/* find_thr.c - the findings' thresholds by name (--threshold NAME=VALUE,
 * --thresholds); see find.h. */
#include "analyze/find.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The fields of struct an_find_config by name, with the range each
 * accepts (nfscope(1), Findings, lists them). */
static const struct {
	const char *name;
	size_t off;
	bool dbl;
	double lo, hi;
} thr[] = {
#define U(f, lo, hi) { #f, offsetof(struct an_find_config, f), false, lo, hi }
#define D(f, lo, hi) { #f, offsetof(struct an_find_config, f), true, lo, hi }
	U(getattr_rate, 1, 1e9), U(access_rate, 1, 1e9), U(lookup_rate, 1, 1e9),
	U(storm_min_s, 1, 86400), U(storm_gap_s, 0, 3600), D(storm_share, 0, 1),
	U(storm_window_ms, 10, 2500), U(storm_burst, 1, 1000),
	U(reval_ms, 1, 3600000), U(noent_repeat, 1, 1e9), U(commit_rate, 1, 1e9),
	D(commit_per_write, 0, 1e6), U(commit_min, 1, 1e9),
	U(commit_gap_s, 0, 3600), U(error_min, 1, 1e9),
	U(error_gap_s, 0, 3600), D(sync_share, 0, 1), U(sync_min, 1, 1e9),
	D(sync_client_share, 0, 1), U(sync_client_min, 1, 1e9),
	U(size_share, 1, 100), U(short_io_min, 1, 1e9), D(short_io_share, 0, 1),
	U(slow_ms, 1, 3600000), U(slow_min, 1, 1e9),
	U(path_ms, 1, 3600000), U(size_small, 512, 1 << 30),
	D(tcp_loss_share, 0, 1), U(stall_min, 1, 1e9),
	U(shift_interval_s, 1, 86400), D(shift_factor, 1, 1e6),
	U(shift_min_ms, 0, 3600000), U(shift_min_ops, 1, 1e9),
	U(retrans_min, 1, 1e9), D(retrans_share, 0, 1),
	U(storm_clients, 1, AN_FIND_SUBJECTS),
#undef U
#undef D
};

#define NTHR (sizeof(thr) / sizeof(thr[0]))

size_t an_find_threshold_count(void)
{
	return NTHR;
}

void an_find_threshold_get(size_t k, struct an_find_threshold *t)
{
	struct an_find_config d;
	const char *p = (const char *)&d + thr[k].off;

	an_find_config_default(&d);
	t->name = thr[k].name;
	t->dbl = thr[k].dbl;
	t->lo = thr[k].lo;
	t->hi = thr[k].hi;
	t->def = thr[k].dbl ? *(const double *)p : *(const uint32_t *)p;
}

int an_find_threshold_set(struct an_find_config *c, const char *arg)
{
	const char *eqs = strchr(arg, '=');
	size_t k, n = eqs ? (size_t)(eqs - arg) : 0;
	char *end;
	double v;

	for (k = 0; eqs && k < NTHR; k++) {
		if (strlen(thr[k].name) != n || strncmp(thr[k].name, arg, n))
			continue;
		v = strtod(eqs + 1, &end);
		if (end == eqs + 1 || *end || !(v >= thr[k].lo && v <= thr[k].hi) ||
		    (!thr[k].dbl && v != (double)(uint32_t)v))
			return -1;
		if (thr[k].dbl)
			*(double *)((char *)c + thr[k].off) = v;
		else
			*(uint32_t *)((char *)c + thr[k].off) = (uint32_t)v;
		return 0;
	}
	return -1;
}
