/* top_model.c - the dashboard's history of operations; see top.h. */
#include "ui/top/top.h"
#include "base/hash.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HASH_SLOTS (2u * TM_ADDRS_MAX)	/* power of two, load <= 1/2 */

static uint32_t fnv(const void *p, size_t n)
{
	return base_fnv32(BASE_FNV32_INIT, p, n);
}

int tm_model_init(struct tm_model *m, uint64_t history, uint32_t addrs)
{
	memset(m, 0, sizeof(*m));
	if (pthread_mutex_init(&m->mu, NULL) != 0)
		return -1;
	if (an_window_init(&m->win, history ? history : 1u << 20) < 0) {
		pthread_mutex_destroy(&m->mu);
		return -1;
	}
	m->addrs_max = addrs && addrs < TM_ADDRS_MAX ? addrs : TM_ADDRS_MAX - 1;
	m->addrs = calloc(TM_ADDRS_MAX, sizeof(*m->addrs));
	m->addr_str = calloc(TM_ADDRS_MAX, sizeof(*m->addr_str));
	m->addr_hash = calloc(HASH_SLOTS, sizeof(*m->addr_hash));
	m->paths = calloc(TM_PATHS_MAX, sizeof(*m->paths));
	m->path_hash = calloc(HASH_SLOTS, sizeof(*m->path_hash));
	m->figs = an_figs_new(NULL);
	m->find = an_find_new(NULL);
	if (!m->addrs || !m->addr_str || !m->addr_hash ||
	    !m->paths || !m->path_hash || !m->figs || !m->find) {
		tm_model_fini(m);
		return -1;
	}
	/* index 0 of each table: "other" (table full) / "none" */
	m->nprocs = 1;
	snprintf(m->procs[0].name, sizeof(m->procs[0].name), TM_OTHER);
	m->naddrs = 1;
	snprintf(m->addr_str[0], sizeof(m->addr_str[0]), TM_OTHER);
	m->npaths = 1;
	m->paths[0] = NULL;
	return 0;
}

void tm_model_fini(struct tm_model *m)
{
	uint32_t k;

	if (m->win.cap == 0)	/* never initialised, or already finished */
		return;
	if (m->paths)
		for (k = 0; k < m->npaths; k++)
			free(m->paths[k]);
	free(m->paths);
	free(m->path_hash);
	free(m->addr_hash);
	free(m->addr_str);
	free(m->addrs);
	an_window_fini(&m->win);
	an_figs_free(m->figs);
	an_find_free(m->find);
	pthread_mutex_destroy(&m->mu);
	memset(m, 0, sizeof(*m));
}

static uint32_t addr_index(struct tm_model *m, const struct cap_addr *a)
{
	uint32_t h = fnv(a, sizeof(*a)) & (HASH_SLOTS - 1), k;

	while ((k = m->addr_hash[h]) != 0) {
		if (cap_addr_eq(&m->addrs[k], a))
			return k;
		h = (h + 1) & (HASH_SLOTS - 1);
	}
	if (m->naddrs == 1 + m->addrs_max) {
		m->keys_dropped++;
		return 0;
	}
	k = m->naddrs++;
	m->addrs[k] = *a;
	cap_addr_str(a, m->addr_str[k], sizeof(m->addr_str[k]));
	m->addr_hash[h] = k;
	return k;
}

static uint32_t path_index(struct tm_model *m, const char *p)
{
	size_t len = strlen(p);
	uint32_t h, k;

	if (len == 0)
		return 0;
	h = fnv(p, len) & (HASH_SLOTS - 1);
	while ((k = m->path_hash[h]) != 0) {
		if (strcmp(m->paths[k], p) == 0)
			return k;
		h = (h + 1) & (HASH_SLOTS - 1);
	}
	if (m->npaths == TM_PATHS_MAX || (m->paths[m->npaths] =
					  strdup(p)) == NULL) {
		m->keys_dropped++;
		return 0;
	}
	k = m->npaths++;
	m->path_hash[h] = k;
	return k;
}

static uint16_t proc_index(struct tm_model *m, const struct an_op *op)
{
	const char *p, *q;
	uint32_t k;

	for (k = 1; k < m->nprocs; k++)
		if (m->procs[k].proc == op->proc && m->procs[k].vers == op->vers &&
		    m->procs[k].prog == op->prog)
			return (uint16_t)k;
	if (m->nprocs == TM_PROCS_MAX) {
		m->keys_dropped++;
		return 0;
	}
	k = m->nprocs++;
	m->procs[k].prog = op->prog;
	m->procs[k].vers = op->vers;
	m->procs[k].proc = op->proc;
	p = dec_prog_name(op->prog);
	q = dec_proc_name(op->prog, op->vers, op->proc);
	if (p && q)
		snprintf(m->procs[k].name, sizeof(m->procs[k].name), "%sv%u %s",
			 p, op->vers, q);
	else
		snprintf(m->procs[k].name, sizeof(m->procs[k].name), "%u v%u p%u",
			 op->prog, op->vers, op->proc);
	return (uint16_t)k;
}

void tm_model_add(struct tm_model *m, const struct an_op *op)
{
	struct an_win_rec r;
	uint32_t client, server, path;
	uint16_t proc;

	/* known from its reply alone: no call, no latency, so not a record
	 * of the windows; the figures count it apart */
	if (op->flags & AN_OP_CALL_NOT_SEEN)
		return;
	/* interned in this order: the client's address before the server's */
	client = addr_index(m, &op->client);
	server = addr_index(m, &op->server);
	path = path_index(m, op->path);
	proc = proc_index(m, op);
	/* the findings as they stood before this op (an early sink) */
	r = an_win_rec_of(op, client, server, path, proc, op->retrans ?
			  (uint8_t)an_retrans_cause(m->find, op) : 0);
	an_window_add(&m->win, &r);
	if (op->first_call_ns > m->delivered_ns)
		m->delivered_ns = op->first_call_ns;
}

void tm_model_tick(struct tm_model *m, int64_t ts_ns,
		   const struct cap_stats *cs)
{
	an_window_tick(&m->win, ts_ns, cs);
	m->cs = *cs;
	if (ts_ns > m->clock_ns)
		m->clock_ns = ts_ns;
}

void tm_model_frag_lost(struct tm_model *m, int64_t first_ns)
{
	an_window_frag_lost(&m->win, first_ns);
}
