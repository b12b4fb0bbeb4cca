/* path.c - the network path of a server from the capture point: TCP ACK
 * timing and handshakes per pair (vantage.c keeps them); see find.h
 * (an_find_path) and doc/report.md ("Where the time goes"). */
#include "analyze/find_int.h"

#include <string.h>

/* The smaller of a (-1: none) and b, where b counts only if have. */
static int64_t min_known(int64_t a, int64_t b, bool have)
{
	if (!have || b < 0)
		return a;
	return a < 0 || b < a ? b : a;
}

bool an_find_path(const struct an_find *f, const struct cap_addr *client,
		  const struct cap_addr *server, struct an_path *out)
{
	uint32_t k;

	memset(out, 0, sizeof(*out));
	out->srv_ns = out->cli_ns = -1;
	for (k = an_bit_next(f->vp_bits, AN_FIND_PAIRS, 0); k < AN_FIND_PAIRS;
	     k = an_bit_next(f->vp_bits, AN_FIND_PAIRS, k + 1)) {
		const struct vpair *p = &f->vp[k];

		if (!p->used || !cap_addr_eq(&p->server, server) ||
		    (client && !cap_addr_eq(&p->client, client)))
			continue;
		out->srv_ns = min_known(out->srv_ns, p->srv_min_ns,
					p->srv_n > 0);
		out->srv_ns = min_known(out->srv_ns, p->hs_syn_min_ns,
					p->hs_n > 0);
		out->cli_ns = min_known(out->cli_ns, p->cli_min_ns,
					p->cli_n > 0);
		out->cli_ns = min_known(out->cli_ns, p->hs_ack_min_ns,
					p->hs_n > 0);
		out->samples += p->srv_n + p->cli_n + p->hs_n;
		out->by_acks |= p->srv_n > 0 || p->cli_n > 0;
	}
	return out->srv_ns >= 0 || out->cli_ns >= 0;
}
