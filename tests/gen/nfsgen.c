/*
 * nfsgen.c - test traffic for nfscope: options and the scenario.
 *
 * A run is a sequence of rounds.  A round picks a client, a server, a
 * program (NFS v3/v2, MOUNT, portmap/rpcbind, NLM), a transport and an IP
 * version, sends 1-4 calls (pipelined on TCP with --multi-record), maybe
 * retransmits some, waits the server latency and sends the replies (maybe
 * twice, maybe out of order).  Everything derives from --seed.
 */
#include "gen.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

uint64_t rng_state;

static struct {
	const char *out, *truth, *ops_truth, *scenario;
	int transport;		/* 0 udp, 1 tcp, 2 mix */
	int ip;			/* 4, 6, 0 mix */
	uint64_t count, packets;
	int mix;		/* 0 meta, 1 data, 2 all */
	uint32_t size;
	double retrans, dup_replies, errors, rpc_errors;
	bool multi_record, xid_reuse, orphans, garbage, odd_ports;
	bool nfs2, mount, pmap, nlm;
	uint32_t delay_us, jitter_us;
	uint32_t clients, servers;
} opt = {
	.out = "nfsgen.pcap", .transport = 2, .ip = 4, .count = 1000,
	.mix = 0, .size = 32768, .errors = 0.08, .rpc_errors = 0.03,
	.delay_us = 200, .clients = 4, .servers = 2,
};

struct host *gen_clients, *gen_servers;
static struct flow *flows;	/* [client][server][svc][tcp][ip6] */
static uint32_t *xid_next;	/* per client */

/* completed (server, xid) per client, for --xid-reuse */
#define XRING 16
static struct { uint32_t srv, xid; } *xring;

static uint16_t svc_port(uint32_t srv, int svc)
{
	static const uint16_t odd[] = { 2049, 993, 502 };

	switch (svc) {
	case SVC_NFS: return opt.odd_ports ? odd[srv % 3] : 2049;
	case SVC_MOUNT: return 20048;
	case SVC_PMAP: return 111;
	default: return 4045;
	}
}

static uint16_t client_port(int svc)
{
	if (svc == SVC_PMAP)
		return (uint16_t)rnd_range(32768, 60999);
	return (uint16_t)rnd_range(512, 1023);
}

static struct flow *get_flow(uint32_t c, uint32_t s, int svc, bool tcp, int ipv)
{
	size_t i = ((((size_t)c * opt.servers + s) * SVC_N + (size_t)svc) * 2 + tcp) * 2 + (ipv == 6);
	struct flow *f = &flows[i];

	if (!f->cli) {
		f->cli = &gen_clients[c];
		f->srv = &gen_servers[s];
		f->ipv = ipv;
		f->tcp = tcp;
		f->cport = client_port(svc);
		f->sport = svc_port(s, svc);
	}
	return f;
}

struct flow *gen_flow(uint32_t c, uint32_t s, int svc, bool tcp, int ipv)
{
	return get_flow(c, s, svc, tcp, ipv);
}

uint32_t gen_xid(uint32_t c)
{
	return xid_next[c]++;
}

static void hosts_init(void)
{
	gen_clients = calloc(opt.clients, sizeof(*gen_clients));
	gen_servers = calloc(opt.servers, sizeof(*gen_servers));
	flows = calloc((size_t)opt.clients * opt.servers * SVC_N * 4, sizeof(*flows));
	xid_next = calloc(opt.clients, sizeof(*xid_next));
	xring = calloc((size_t)opt.clients * XRING, sizeof(*xring));
	if (!gen_clients || !gen_servers || !flows || !xid_next || !xring)
		exit(1);
	for (uint32_t i = 0; i < opt.clients + opt.servers; i++) {
		bool cl = i < opt.clients;
		uint32_t k = cl ? i : i - opt.clients;
		struct host *h = cl ? &gen_clients[k] : &gen_servers[k];
		uint8_t net = cl ? 0 : 1;

		h->mac[0] = 0x02;
		h->mac[3] = net;
		h->mac[4] = (uint8_t)(k >> 8);
		h->mac[5] = (uint8_t)k;
		h->a4[0] = 10;
		h->a4[1] = net;
		h->a4[2] = (uint8_t)((k + 1) >> 8);
		h->a4[3] = (uint8_t)(k + 1);
		snprintf(h->s4, sizeof(h->s4), "%u.%u.%u.%u", h->a4[0], h->a4[1], h->a4[2], h->a4[3]);
		/* fd00::N:K (RFC 5952 text) */
		memset(h->a6, 0, 16);
		h->a6[0] = 0xfd;
		h->a6[13] = (uint8_t)(net + 1);
		h->a6[14] = (uint8_t)((k + 1) >> 8);
		h->a6[15] = (uint8_t)(k + 1);
		snprintf(h->s6, sizeof(h->s6), "fd00::%x:%x", net + 1, k + 1);
		h->ipid = (uint16_t)rnd32();
	}
	for (uint32_t i = 0; i < opt.clients; i++)
		xid_next[i] = rnd32();
}

/* ------------------------------------------------------------ choice -- */

static int pick_svc(void)
{
	int w[SVC_N + 1] = { 0 }, tot = 0, r;

	w[SVC_NFS] = 70;
	w[SVC_MOUNT] = opt.mount ? 8 : 0;
	w[SVC_PMAP] = opt.pmap ? 8 : 0;
	w[SVC_NLM] = opt.nlm ? 10 : 0;
	for (int i = 0; i < SVC_N; i++)
		tot += w[i];
	r = (int)rnd((uint32_t)tot);
	for (int i = 0; i < SVC_N; i++) {
		if (r < w[i])
			return i;
		r -= w[i];
	}
	return SVC_NFS;
}

static void pick_op(struct op *op, int svc, bool tcp)
{
	memset(op, 0, sizeof(*op));
	op->udp = !tcp;
	op->size = opt.size;
	switch (svc) {
	case SVC_NFS:
		op->prog = PROG_NFS;
		op->vers = opt.nfs2 && rnd(5) == 0 ? 2 : 3;
		if (opt.mix == 1)
			op->proc = op->vers == 3 ? (uint32_t[]){ 6, 6, 6, 7, 7, 7, 21, 1 }[rnd(8)]
						 : (rnd(2) ? 6 : 8);
		else if (opt.mix == 0)
			do
				op->proc = rnd(op->vers == 3 ? 22 : 18);
			while (op->vers == 3 ? op->proc == 6 || op->proc == 7 || op->proc == 21
					     : op->proc == 6 || op->proc == 8);
		else
			op->proc = rnd(4) == 0 ? (op->vers == 3 ? 6 + rnd(2) : (rnd(2) ? 6 : 8))
					       : rnd(op->vers == 3 ? 22 : 18);
		break;
	case SVC_MOUNT:
		op->prog = PROG_MOUNT;
		op->vers = rnd(2) ? 3 : 1;
		op->proc = rnd(6);
		break;
	case SVC_PMAP:
		op->prog = PROG_PORTMAP;
		op->vers = 2 + rnd(3);
		if (op->vers == 2)
			op->proc = rnd(6);
		else if (op->vers == 3)
			op->proc = rnd(7);
		else
			op->proc = (uint32_t[]){ 0, 1, 2, 3, 4, 5, 6, 9, 10 }[rnd(9)];
		break;
	default:
		op->prog = PROG_NLM;
		op->vers = (uint32_t[]){ 1, 3, 4, 4 }[rnd(4)];
		op->proc = op->vers == 1 ? rnd(16) : (rnd(5) == 0 ? 20 + rnd(4) : rnd(16));
		op->no_reply = op->proc >= 6 && op->proc <= 15;
		break;
	}
	/* READ/WRITE sizes: UDP keeps datagrams under 64 KiB */
	{
		uint32_t max = op->vers == 2 && op->prog == PROG_NFS ? 8192 : opt.size;

		if (!tcp && max > 32768)
			max = 32768;
		if (max > opt.size)
			max = opt.size;
		op->count = rnd(5) == 0 ? 1 + rnd(max) : max;
	}
	op->err = chance(opt.errors);
	op->rk = RK_OK;
	if (chance(opt.rpc_errors))
		op->rk = (enum reply_kind)rnd_range(RK_PROG_UNAVAIL, RK_DENIED_AUTH);
}

/* ------------------------------------------------------------ rounds -- */

#define MAXOPS 4
static struct gmsg slots[3 * MAXOPS + 4];
static uint8_t *copybuf[MAXOPS];
static size_t copycap[MAXOPS];

static void copy_msg(struct gmsg *dst, const struct gmsg *src)
{
	jb_reset(&dst->j);
	jb_raw(&dst->j, src->j.p, src->j.len);
	dst->body_off = src->body_off;
	dst->len = src->len;
	dst->is_call = src->is_call;
}

void gen_send(struct flow *f, int dir, uint16_t cport, struct gmsg *m,
	      const uint8_t *p, size_t n)
{
	if (f->tcp)
		tcp_queue(f, dir, m, p, n);
	else
		udp_send(f, dir, cport, m, p, n);
}
#define send_msg gen_send

static void garbage(uint32_t c, uint32_t s, bool tcp, int ipv)
{
	static const char *const texts[] = {
		"GET /index.html HTTP/1.1\r\nHost: nfs.example.com\r\n\r\n",
		"SSH-2.0-OpenSSH_9.6\r\n",
		"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03 not really TLS either",
		"hello, this is not an RPC message at all; ignore me please.\n",
	};
	uint8_t buf[1400];
	size_t n;
	struct flow gf;

	if (rnd(2)) {
		const char *t = texts[rnd(4)];

		n = strlen(t);
		memcpy(buf, t, n);
	} else {
		n = rnd_range(16, sizeof(buf));
		gen_bytes(buf, n);
		buf[4] = 0xff;	/* msg_type neither CALL nor REPLY, mark not sane */
		buf[0] = 0x7f;
	}
	memset(&gf, 0, sizeof(gf));
	gf.cli = &gen_clients[c];
	gf.srv = &gen_servers[s];
	gf.ipv = ipv;
	gf.tcp = tcp;
	gf.cport = (uint16_t)rnd_range(40000, 60000);
	gf.sport = 2049;
	if (tcp) {
		tcp_queue(&gf, 0, NULL, buf, n);
		tcp_flush();
		tcp_fin(&gf);
	} else {
		udp_send(&gf, 0, 0, NULL, buf, n);
	}
}

static uint64_t ops_done;

static void one_round(void)
{
	uint32_t c = rnd(opt.clients), s = rnd(opt.servers);
	int ipv = opt.ip ? opt.ip : (rnd(2) ? 4 : 6);
	bool tcp = opt.transport == 2 ? rnd(2) : opt.transport == 1;
	int svc = pick_svc();
	struct flow *f;
	struct op ops[MAXOPS];
	struct gmsg *calls[MAXOPS];
	uint64_t call_frame[MAXOPS];
	bool call_ok[MAXOPS], gss[MAXOPS], retx[MAXOPS], reused[MAXOPS];
	uint16_t cport[MAXOPS];
	struct gmsg *first[MAXOPS], *rmsg[MAXOPS], *dmsg[MAXOPS];
	uint32_t n, order[MAXOPS];
	int sl = 0;

	if (opt.garbage && rnd(50) == 0)
		garbage(c, s, rnd(2), ipv);
	f = get_flow(c, s, svc, tcp, ipv);
	n = tcp && opt.multi_record ? rnd_range(1, MAXOPS) : (rnd(4) == 0 ? 2 : 1);

	/* orphan reply: its call is not in the capture */
	if (opt.orphans && rnd(40) == 0) {
		struct op o;
		struct gmsg *m = &slots[sl++];
		size_t len;

		pick_op(&o, svc, tcp);
		o.xid = rnd32();
		o.rk = RK_OK;
		o.no_reply = false;
		len = enc_reply(&o, m, 0, false, true, false);
		send_msg(f, 1, 0, m, encbuf, len);
		tcp_flush();
	}

	/* calls */
	for (uint32_t i = 0; i < n; i++) {
		struct op *op = &ops[i];
		struct gmsg *m = &slots[sl++];
		size_t len;

		pick_op(op, svc, tcp);
		op->xid = xid_next[c]++;
		reused[i] = false;
		if (opt.xid_reuse && rnd(30) == 0) {
			uint32_t k = rnd(XRING);

			if (xring[c * XRING + k].xid && xring[c * XRING + k].srv == s + 1) {
				/* never two outstanding calls with one xid: a
				   client matches replies by it */
				op->xid = xring[c * XRING + k].xid;
				xring[c * XRING + k].xid = 0;
				reused[i] = true;
				for (uint32_t j = 0; j < i; j++)
					if (ops[j].xid == op->xid) {
						op->xid = xid_next[c]++;
						reused[i] = false;
					}
			}
		}
		len = enc_call(op, m, c, &gss[i]);
		calls[i] = first[i] = m;
		rmsg[i] = dmsg[i] = NULL;
		cport[i] = 0;
		retx[i] = chance(opt.retrans);
		if (retx[i]) {
			if (copycap[i] < len) {
				copycap[i] = len;
				copybuf[i] = realloc(copybuf[i], len);
				if (!copybuf[i])
					exit(1);
			}
			memcpy(copybuf[i], encbuf, len);
		}
		send_msg(f, 0, 0, m, encbuf, len);
	}
	tcp_flush();
	for (uint32_t i = 0; i < n; i++) {
		call_ok[i] = !calls[i]->lost;
		call_frame[i] = calls[i]->frame;
	}
	/* retransmissions: same xid; UDP maybe from another port */
	for (uint32_t i = 0; i < n; i++) {
		struct gmsg *m;

		if (!retx[i])
			continue;
		net_now += 1000000 + rnd(50000000);	/* a timeout later */
		m = &slots[sl++];
		copy_msg(m, calls[i]);
		calls[i] = m;
		if (!tcp && rnd(2))
			cport[i] = (uint16_t)rnd_range(512, 1023);
		send_msg(f, 0, cport[i], m, copybuf[i], m->len);
		if (tcp)
			tcp_flush();
		if (!m->lost) {
			call_ok[i] = true;
			call_frame[i] = m->frame;
		}
	}
	/* server latency */
	net_now += (int64_t)opt.delay_us * 1000 + (opt.jitter_us ? (int64_t)rnd(opt.jitter_us) * 1000 : 0);
	/* replies, on TCP maybe out of order */
	for (uint32_t i = 0; i < n; i++)
		order[i] = i;
	if (tcp && n > 1 && rnd(2)) {
		uint32_t a = rnd(n), b = rnd(n), t = order[a];

		order[a] = order[b];
		order[b] = t;
	}
	for (uint32_t k = 0; k < n; k++) {
		uint32_t i = order[k];
		struct op *op = &ops[i];
		struct gmsg *m;
		size_t len;

		ops_done++;
		if (op->no_reply)
			continue;
		m = rmsg[i] = &slots[sl++];
		len = enc_reply(op, m, call_frame[i], !call_ok[i], false, gss[i]);
		send_msg(f, 1, cport[i], m, encbuf, len);
		if (chance(opt.dup_replies)) {
			struct gmsg *d = dmsg[i] = &slots[sl++];

			copy_msg(d, m);
			if (tcp)
				tcp_flush();	/* the duplicate in a later segment */
			send_msg(f, 1, cport[i], d, encbuf, len);	/* encbuf unchanged */
		}
	}
	tcp_flush();
	for (uint32_t i = 0; i < n; i++) {
		struct op_rec rec = { .op = &ops[i], .f = f, .cport = f->cport,
				      .cport_last = cport[i] ? cport[i] : f->cport,
				      .xid_reused = reused[i] };
		const struct gmsg *tx[2] = { first[i], calls[i] != first[i] ? calls[i] : NULL };

		for (int t = 0; t < 2; t++)
			if (tx[t] && tx[t]->lost)
				rec.ntx_lost++;
			else if (tx[t])
				rec.tx_ts[rec.ntx++] = tx[t]->ts;
		if (rmsg[i]) {
			rec.reply_lost = rmsg[i]->lost;
			rec.reply_ts = rmsg[i]->lost ? 0 : rmsg[i]->ts;
			if (dmsg[i] && !dmsg[i]->lost) {
				if (rec.reply_ts)
					rec.dup_replies = 1;
				else
					rec.reply_ts = dmsg[i]->ts;
			}
		}
		ops_truth(&rec);
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t k = rnd(XRING);

		xring[c * XRING + k].srv = s + 1;
		xring[c * XRING + k].xid = ops[i].xid;
	}
	net_now += rnd(100000);
}

/* ------------------------------------------------------------- main -- */

static void usage(void)
{
	fputs("usage: nfsgen [options]  (see tests/gen/README.md)\n"
	      "  -o, --out FILE        pcap to write (nfsgen.pcap)\n"
	      "  -t, --truth FILE      ground truth NDJSON (none)\n"
	      "  --transport udp|tcp|mix   --ip 4|6|mix   --link eth|vlan|qinq|sll|sll2|raw\n"
	      "  --count N (operations)    --packets N (stop after N frames)   --seed S\n"
	      "  --snaplen N  --mix meta|data|all  --size N  --mss N  --no-csum\n"
	      "  --lost-frags P  --lost-segments P  --reorder P  --retrans P  --dup-replies P\n"
	      "  --multifrag  --multifrag-hdr  --multi-record  --split-marks  --xid-reuse  --orphan-replies\n"
	      "  --garbage  --odd-ports  --delay-us N  --jitter-us N  --clients N  --servers N\n"
	      "  --errors P  --rpc-errors P  --acks P  --nfs2  --mount  --portmap  --nlm\n"
	      "  --all-features        everything above at modest rates\n"
	      "  --ops-truth FILE      per-operation ground truth NDJSON\n"
	      "  --scenario mixed|sizes|writes|getattr-storm|access-storm|lookup-storm|\n"
	      "             commit-storm|commit-phase|noent|errors|short-io|slow-server|\n"
	      "             pipeline|late-calls|skew|vantage   (scripted; see README.md)\n"
	      "  --server-rtmax N --server-wtmax N --sync-export --sync-client PCT\n"
	      "  --verf-change-at S\n"
	      "  --unanswered P --retrans-ivl-us N --rate R --duration S --repeat N\n"
	      "  --burst N --error-status N --tail-commit --end client|server --rtt-us N\n", stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	enum {
		O_TRANSPORT = 256, O_IP, O_LINK, O_COUNT, O_PACKETS, O_SEED, O_SNAPLEN,
		O_MIX, O_SIZE, O_MSS, O_NOCSUM, O_LOSTFRAGS, O_LOSTSEGS, O_REORDER,
		O_RETRANS, O_DUP, O_MULTIFRAG, O_MULTIREC, O_SPLIT, O_XIDREUSE,
		O_ORPHANS, O_GARBAGE, O_ODDPORTS, O_DELAY, O_JITTER, O_CLIENTS,
		O_SERVERS, O_ERRORS, O_RPCERRORS, O_ACKS, O_NFS2, O_MOUNT, O_PMAP,
		O_NLM, O_ALL, O_MULTIFRAG_HDR, O_OPSTRUTH, O_SCEN, O_RTMAX, O_WTMAX,
		O_SYNC, O_VERFAT, O_UNANS, O_RIVL, O_RATE, O_DUR, O_REPEAT, O_BURST,
		O_ERRST, O_SYNCCL, O_TAILC, O_END, O_RTT,
	};
	static const struct option lo[] = {
		{ "out", 1, NULL, 'o' }, { "truth", 1, NULL, 't' },
		{ "transport", 1, NULL, O_TRANSPORT }, { "ip", 1, NULL, O_IP },
		{ "link", 1, NULL, O_LINK }, { "count", 1, NULL, O_COUNT },
		{ "packets", 1, NULL, O_PACKETS }, { "seed", 1, NULL, O_SEED },
		{ "snaplen", 1, NULL, O_SNAPLEN }, { "mix", 1, NULL, O_MIX },
		{ "size", 1, NULL, O_SIZE }, { "mss", 1, NULL, O_MSS },
		{ "no-csum", 0, NULL, O_NOCSUM }, { "lost-frags", 1, NULL, O_LOSTFRAGS },
		{ "lost-segments", 1, NULL, O_LOSTSEGS }, { "reorder", 1, NULL, O_REORDER },
		{ "retrans", 1, NULL, O_RETRANS }, { "dup-replies", 1, NULL, O_DUP },
		{ "multifrag", 0, NULL, O_MULTIFRAG }, { "multifrag-hdr", 0, NULL, O_MULTIFRAG_HDR }, { "multi-record", 0, NULL, O_MULTIREC },
		{ "split-marks", 0, NULL, O_SPLIT }, { "xid-reuse", 0, NULL, O_XIDREUSE },
		{ "orphan-replies", 0, NULL, O_ORPHANS }, { "garbage", 0, NULL, O_GARBAGE },
		{ "odd-ports", 0, NULL, O_ODDPORTS }, { "delay-us", 1, NULL, O_DELAY },
		{ "jitter-us", 1, NULL, O_JITTER }, { "clients", 1, NULL, O_CLIENTS },
		{ "servers", 1, NULL, O_SERVERS }, { "errors", 1, NULL, O_ERRORS },
		{ "rpc-errors", 1, NULL, O_RPCERRORS }, { "acks", 1, NULL, O_ACKS },
		{ "nfs2", 0, NULL, O_NFS2 }, { "mount", 0, NULL, O_MOUNT },
		{ "portmap", 0, NULL, O_PMAP }, { "nlm", 0, NULL, O_NLM },
		{ "all-features", 0, NULL, O_ALL }, { "help", 0, NULL, 'h' },
		{ "ops-truth", 1, NULL, O_OPSTRUTH }, { "scenario", 1, NULL, O_SCEN },
		{ "server-rtmax", 1, NULL, O_RTMAX }, { "server-wtmax", 1, NULL, O_WTMAX },
		{ "sync-export", 0, NULL, O_SYNC }, { "verf-change-at", 1, NULL, O_VERFAT },
		{ "unanswered", 1, NULL, O_UNANS }, { "retrans-ivl-us", 1, NULL, O_RIVL },
		{ "rate", 1, NULL, O_RATE }, { "duration", 1, NULL, O_DUR },
		{ "repeat", 1, NULL, O_REPEAT }, { "burst", 1, NULL, O_BURST },
		{ "error-status", 1, NULL, O_ERRST }, { "sync-client", 1, NULL, O_SYNCCL },
		{ "tail-commit", 0, NULL, O_TAILC },
		{ "end", 1, NULL, O_END }, { "rtt-us", 1, NULL, O_RTT },
		{ NULL, 0, NULL, 0 },
	};
	struct net_cfg nc = { .link = LINK_ETH, .snaplen = 262144, .mss = 1448, .csum = true,
			      .acks = 0.3 };
	uint64_t seed = 1;
	int ch;
	struct scen_opts so = { .verf_change_at = -1, .retrans_ivl_us = 700000, .rate = 100,
				.duration = 5, .repeat = 10, .burst = 5, .error_status = 10008,
				.rtt_us = 2000 };
	FILE *opsf = NULL;

	while ((ch = getopt_long(argc, argv, "o:t:h", lo, NULL)) != -1) {
		switch (ch) {
		case 'o': opt.out = optarg; break;
		case 't': opt.truth = optarg; break;
		case O_TRANSPORT:
			opt.transport = !strcmp(optarg, "udp") ? 0 : !strcmp(optarg, "tcp") ? 1 : 2;
			break;
		case O_IP: opt.ip = !strcmp(optarg, "6") ? 6 : !strcmp(optarg, "4") ? 4 : 0; break;
		case O_LINK:
			if (!strcmp(optarg, "eth")) nc.link = LINK_ETH;
			else if (!strcmp(optarg, "vlan")) nc.link = LINK_VLAN;
			else if (!strcmp(optarg, "qinq")) nc.link = LINK_QINQ;
			else if (!strcmp(optarg, "sll")) nc.link = LINK_SLL;
			else if (!strcmp(optarg, "sll2")) nc.link = LINK_SLL2;
			else if (!strcmp(optarg, "raw")) nc.link = LINK_RAW;
			else usage();
			break;
		case O_COUNT: opt.count = strtoull(optarg, NULL, 0); break;
		case O_PACKETS: opt.packets = strtoull(optarg, NULL, 0); break;
		case O_SEED: seed = strtoull(optarg, NULL, 0); break;
		case O_SNAPLEN: nc.snaplen = (uint32_t)strtoul(optarg, NULL, 0); break;
		case O_MIX:
			opt.mix = !strcmp(optarg, "meta") ? 0 : !strcmp(optarg, "data") ? 1 : 2;
			break;
		case O_SIZE: opt.size = (uint32_t)strtoul(optarg, NULL, 0); break;
		case O_MSS: nc.mss = (uint32_t)strtoul(optarg, NULL, 0); break;
		case O_NOCSUM: nc.csum = false; break;
		case O_LOSTFRAGS: nc.lost_frags = atof(optarg); break;
		case O_LOSTSEGS: nc.lost_segs = atof(optarg); break;
		case O_REORDER: nc.reorder = atof(optarg); break;
		case O_RETRANS: opt.retrans = atof(optarg); break;
		case O_DUP: opt.dup_replies = atof(optarg); break;
		case O_MULTIFRAG: nc.multifrag = 1; break;
		case O_MULTIFRAG_HDR: nc.multifrag = 2; break;
		case O_MULTIREC: opt.multi_record = true; break;
		case O_SPLIT: nc.split_marks = true; break;
		case O_XIDREUSE: opt.xid_reuse = true; break;
		case O_ORPHANS: opt.orphans = true; break;
		case O_GARBAGE: opt.garbage = true; break;
		case O_ODDPORTS: opt.odd_ports = true; break;
		case O_DELAY: opt.delay_us = (uint32_t)strtoul(optarg, NULL, 0); break;
		case O_JITTER: opt.jitter_us = (uint32_t)strtoul(optarg, NULL, 0); break;
		case O_CLIENTS: opt.clients = (uint32_t)strtoul(optarg, NULL, 0); break;
		case O_SERVERS: opt.servers = (uint32_t)strtoul(optarg, NULL, 0); break;
		case O_ERRORS: opt.errors = atof(optarg); break;
		case O_RPCERRORS: opt.rpc_errors = atof(optarg); break;
		case O_ACKS: nc.acks = atof(optarg); break;
		case O_NFS2: opt.nfs2 = true; break;
		case O_MOUNT: opt.mount = true; break;
		case O_PMAP: opt.pmap = true; break;
		case O_NLM: opt.nlm = true; break;
		case O_OPSTRUTH: opt.ops_truth = optarg; break;
		case O_SCEN: opt.scenario = optarg; break;
		case O_RTMAX: so.server_rtmax = (uint32_t)strtoul(optarg, NULL, 0); break;
		case O_WTMAX: so.server_wtmax = (uint32_t)strtoul(optarg, NULL, 0); break;
		case O_SYNC: so.sync_export = true; break;
		case O_TAILC: so.tail_commit = true; break;
		case O_SYNCCL: so.sync_client = (uint32_t)strtoul(optarg, NULL, 0); break;
		case O_VERFAT: so.verf_change_at = atof(optarg); break;
		case O_UNANS: so.unanswered = atof(optarg); break;
		case O_RIVL: so.retrans_ivl_us = (uint32_t)strtoul(optarg, NULL, 0); break;
		case O_RATE: so.rate = atof(optarg); break;
		case O_DUR: so.duration = atof(optarg); break;
		case O_REPEAT: so.repeat = (uint32_t)strtoul(optarg, NULL, 0); break;
		case O_BURST: so.burst = (uint32_t)strtoul(optarg, NULL, 0); break;
		case O_ERRST: so.error_status = (uint32_t)strtoul(optarg, NULL, 0); break;
		case O_END: so.end = !strcmp(optarg, "server"); break;
		case O_RTT: so.rtt_us = (uint32_t)strtoul(optarg, NULL, 0); break;
		case O_ALL:
			opt.transport = 2;
			opt.ip = 0;
			opt.mix = 2;
			opt.nfs2 = opt.mount = opt.pmap = opt.nlm = true;
			opt.multi_record = opt.xid_reuse = opt.orphans = opt.garbage = true;
			opt.odd_ports = true;
			opt.retrans = 0.02;
			opt.dup_replies = 0.02;
			opt.jitter_us = 500;
			nc.multifrag = 1;
			nc.split_marks = true;
			nc.lost_frags = 0.02;
			nc.lost_segs = 0.002;
			nc.reorder = 0.02;
			break;
		default:
			usage();
		}
	}
	if (opt.mix == 2)
		opt.nfs2 = opt.mount = opt.pmap = opt.nlm = true;
	if (!opt.clients || !opt.servers || nc.mss < 16 || nc.snaplen < 64 || !opt.size)
		usage();
	rng_state = seed * 0x2545f4914f6cdd1dULL + 1;
	nc.pcap = fopen(opt.out, "wb");
	if (!nc.pcap) {
		perror(opt.out);
		return 1;
	}
	setvbuf(nc.pcap, NULL, _IOFBF, 1 << 22);
	if (opt.truth) {
		nc.truth = fopen(opt.truth, "w");
		if (!nc.truth) {
			perror(opt.truth);
			return 1;
		}
		setvbuf(nc.truth, NULL, _IOFBF, 1 << 22);
	}
	if (opt.ops_truth) {
		opsf = fopen(opt.ops_truth, "w");
		if (!opsf) {
			perror(opt.ops_truth);
			return 1;
		}
		setvbuf(opsf, NULL, _IOFBF, 1 << 22);
	}
	ops_truth_open(opsf);
	data_pattern = malloc((size_t)opt.size + 16);
	if (!data_pattern)
		return 1;
	for (uint32_t i = 0; i < opt.size + 16; i++)
		data_pattern[i] = (uint8_t)(i * 7 + (i >> 8));
	for (size_t i = 0; i < sizeof(slots) / sizeof(slots[0]); i++)
		jb_init(&slots[i].j);
	net_now = (int64_t)1700000000 * 1000000000 + (int64_t)rnd(1000000000);
	hosts_init();
	net_init(&nc);
	if (opt.scenario) {
		so.clients = opt.clients;
		so.servers = opt.servers;
		so.count = opt.count;
		so.transport = opt.transport;
		so.delay_us = opt.delay_us;
		so.jitter_us = opt.jitter_us;
		so.size = opt.size;
		so.retrans = opt.retrans;
		so.dup_replies = opt.dup_replies;
		so.xid_reuse = opt.xid_reuse;
		if (!scen_run(opt.scenario, &so)) {
			fprintf(stderr, "nfsgen: unknown scenario '%s'\n", opt.scenario);
			return 2;
		}
		ops_done = scen_ops;
	}
	while (!opt.scenario && ops_done < opt.count &&
	       (!opt.packets || net_stats.frames < opt.packets))
		one_round();
	net_fini();
	if (fclose(nc.pcap) != 0 || (nc.truth && fclose(nc.truth) != 0) ||
	    (opsf && fclose(opsf) != 0)) {
		perror("nfsgen: write");
		return 1;
	}
	fprintf(stderr, "nfsgen: %llu frames, %llu messages (%llu lost), %llu operations\n",
		(unsigned long long)net_stats.frames, (unsigned long long)net_stats.messages,
		(unsigned long long)net_stats.lost, (unsigned long long)ops_done);
	return 0;
}
