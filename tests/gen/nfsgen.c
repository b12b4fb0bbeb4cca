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

enum { SVC_NFS, SVC_MOUNT, SVC_PMAP, SVC_NLM, SVC_N };

static struct {
	const char *out, *truth;
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

static struct host *clients, *servers;
static struct flow *flows;	/* [client][server][svc][tcp][ip6] */
static uint32_t *xid_next;	/* per client */
static uint8_t *encbuf;
static size_t enccap;

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
		f->cli = &clients[c];
		f->srv = &servers[s];
		f->ipv = ipv;
		f->tcp = tcp;
		f->cport = client_port(svc);
		f->sport = svc_port(s, svc);
	}
	return f;
}

static void hosts_init(void)
{
	clients = calloc(opt.clients, sizeof(*clients));
	servers = calloc(opt.servers, sizeof(*servers));
	flows = calloc((size_t)opt.clients * opt.servers * SVC_N * 4, sizeof(*flows));
	xid_next = calloc(opt.clients, sizeof(*xid_next));
	xring = calloc((size_t)opt.clients * XRING, sizeof(*xring));
	if (!clients || !servers || !flows || !xid_next || !xring)
		exit(1);
	for (uint32_t i = 0; i < opt.clients + opt.servers; i++) {
		bool cl = i < opt.clients;
		uint32_t k = cl ? i : i - opt.clients;
		struct host *h = cl ? &clients[k] : &servers[k];
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

/* ------------------------------------------------------- RPC headers -- */

struct credv {
	int flavor;		/* 0 none, 1 sys, 6 gss */
	uint8_t body[400];
	u_int len;
	struct jb *j;
};

static void gen_cred(struct credv *c, struct jb *j, uint32_t client)
{
	uint32_t r = rnd(10);
	XDR x;

	jb_obj(j, "cred");
	if (r < 7) {
		struct authunix_parms a;
		char machine[256];
		gid_t gids[16];
		uint32_t n = rnd(17);

		snprintf(machine, sizeof(machine), rnd(8) ? "client%u" : "client%u.a-rather-long-domain-name.example.org",
			 client);
		a.aup_time = rnd32();
		a.aup_machname = machine;
		a.aup_uid = rnd(3) ? rnd(70000) : 0;
		a.aup_gid = rnd(70000);
		a.aup_len = n;
		for (uint32_t i = 0; i < n; i++)
			gids[i] = rnd(70000);
		a.aup_gids = gids;
		xdrmem_create(&x, (char *)c->body, sizeof(c->body), XDR_ENCODE);
		xdr_authunix_parms(&x, &a);
		c->len = xdr_getpos(&x);
		c->flavor = 1;
		jb_u64(j, "flavor", 1);
		jb_u64(j, "len", c->len);
		jb_u64(j, "stamp", (uint32_t)a.aup_time);
		jb_str(j, "machine", machine);
		jb_u64(j, "uid", a.aup_uid);
		jb_u64(j, "gid", a.aup_gid);
		jb_arr(j, "gids");
		for (uint32_t i = 0; i < n; i++)
			jb_u64(j, NULL, gids[i]);
		jb_end_arr(j);
	} else if (r < 9) {
		c->flavor = 0;
		c->len = 0;
		jb_u64(j, "flavor", 0);
		jb_u64(j, "len", 0);
	} else {
		/* RPCSEC_GSS (RFC 2203) rpc_gss_cred_vers_1_t, DATA, svc none */
		uint32_t v[4] = { 1, 0, rnd(1u << 31), 1 };
		u_int hl = rnd_range(4, 16);
		char handle[16], *hp = handle;

		gen_bytes((uint8_t *)handle, hl);
		xdrmem_create(&x, (char *)c->body, sizeof(c->body), XDR_ENCODE);
		for (int i = 0; i < 4; i++)
			xdr_u_int32_t(&x, &v[i]);
		xdr_bytes(&x, &hp, &hl, 16);
		c->len = xdr_getpos(&x);
		c->flavor = 6;
		jb_u64(j, "flavor", 6);
		jb_u64(j, "len", c->len);
		jb_u64(j, "gss_vers", v[0]);
		jb_u64(j, "gss_proc", v[1]);
		jb_u64(j, "gss_seq", v[2]);
		jb_u64(j, "gss_svc", v[3]);
		jb_u64(j, "gss_ctx_len", hl);
	}
	jb_end_obj(j);
}

static void need_enc(size_t n)
{
	if (n <= enccap)
		return;
	enccap = n;
	encbuf = realloc(encbuf, enccap);
	if (!encbuf)
		exit(1);
}

/* Encode op's call into encbuf and its JSON into m; returns the length. */
static size_t enc_call(struct op *op, struct gmsg *m, uint32_t client, bool *gss)
{
	struct rpc_msg msg;
	struct credv cred;
	uint8_t verf[32];
	XDR x;

	jb_reset(&m->j);
	m->is_call = true;
	jb_u64(&m->j, "xid", op->xid);
	jb_str(&m->j, "type", "call");
	jb_u64(&m->j, "prog", op->prog);
	jb_u64(&m->j, "vers", op->vers);
	jb_u64(&m->j, "proc", op->proc);
	jb_u64(&m->j, "rpcvers", 2);
	gen_cred(&cred, &m->j, client);
	*gss = cred.flavor == 6;
	memset(&msg, 0, sizeof(msg));
	msg.rm_xid = op->xid;
	msg.rm_direction = CALL;
	msg.rm_call.cb_rpcvers = 2;
	msg.rm_call.cb_prog = op->prog;
	msg.rm_call.cb_vers = op->vers;
	msg.rm_call.cb_proc = op->proc;
	msg.rm_call.cb_cred.oa_flavor = cred.flavor;
	msg.rm_call.cb_cred.oa_base = (caddr_t)cred.body;
	msg.rm_call.cb_cred.oa_length = cred.len;
	msg.rm_call.cb_verf.oa_flavor = cred.flavor == 6 ? 6 : 0;
	msg.rm_call.cb_verf.oa_base = (caddr_t)verf;
	msg.rm_call.cb_verf.oa_length = cred.flavor == 6 ? 32 : 0;
	gen_bytes(verf, sizeof(verf));
	jb_obj(&m->j, "verf");
	jb_u64(&m->j, "flavor", (uint32_t)msg.rm_call.cb_verf.oa_flavor);
	jb_u64(&m->j, "len", msg.rm_call.cb_verf.oa_length);
	jb_end_obj(&m->j);
	need_enc((size_t)op->count + 65536);
	xdrmem_create(&x, (char *)encbuf, (u_int)enccap, XDR_ENCODE);
	m->body_off = m->j.len;
	if (!xdr_callmsg(&x, &msg) || !body_call(&x, &m->j, op)) {
		fprintf(stderr, "nfsgen: encoding call prog %u vers %u proc %u failed\n",
			op->prog, op->vers, op->proc);
		exit(1);
	}
	m->len = xdr_getpos(&x);
	return m->len;
}

/* the reply body is encoded after the header, by body_reply() */
static bool_t enc_nothing(XDR *x, ...)
{
	(void)x;
	return TRUE;
}

/* Encode op's reply; call_frame 0: the call is not in the capture. */
static size_t enc_reply(struct op *op, struct gmsg *m, uint64_t call_frame, bool call_lost,
			bool orphan, bool gss)
{
	struct rpc_msg msg;
	uint8_t verf[32];
	XDR x;
	struct jb *j = &m->j;

	jb_reset(j);
	m->is_call = false;
	jb_u64(j, "xid", op->xid);
	jb_str(j, "type", "reply");
	if (orphan) {
		jb_bool(j, "orphan", true);
	} else {
		jb_u64(j, "prog", op->prog);
		jb_u64(j, "vers", op->vers);
		jb_u64(j, "proc", op->proc);
		if (call_lost)
			jb_bool(j, "call_lost", true);
		else
			jb_u64(j, "call_frame", call_frame);
	}
	memset(&msg, 0, sizeof(msg));
	msg.rm_xid = op->xid;
	msg.rm_direction = REPLY;
	gen_bytes(verf, sizeof(verf));
	if (op->rk >= RK_DENIED_RPC_MISMATCH) {
		msg.rm_reply.rp_stat = MSG_DENIED;
		jb_u64(j, "reply_stat", 1);
		if (op->rk == RK_DENIED_RPC_MISMATCH) {
			msg.rjcted_rply.rj_stat = RPC_MISMATCH;
			msg.rjcted_rply.rj_vers.low = 2;
			msg.rjcted_rply.rj_vers.high = 2;
			jb_u64(j, "reject_stat", 0);
			jb_u64(j, "mismatch_low", 2);
			jb_u64(j, "mismatch_high", 2);
		} else {
			uint32_t why = rnd_range(1, 7);

			msg.rjcted_rply.rj_stat = AUTH_ERROR;
			msg.rjcted_rply.rj_why = (enum auth_stat)why;
			jb_u64(j, "reject_stat", 1);
			jb_u64(j, "auth_stat", why);
		}
	} else {
		msg.rm_reply.rp_stat = MSG_ACCEPTED;
		msg.acpted_rply.ar_verf.oa_flavor = gss ? 6 : 0;
		msg.acpted_rply.ar_verf.oa_base = (caddr_t)verf;
		msg.acpted_rply.ar_verf.oa_length = gss ? 32 : 0;
		msg.acpted_rply.ar_stat = (enum accept_stat)op->rk;
		jb_u64(j, "reply_stat", 0);
		jb_obj(j, "verf");
		jb_u64(j, "flavor", gss ? 6 : 0);
		jb_u64(j, "len", gss ? 32 : 0);
		jb_end_obj(j);
		jb_u64(j, "accept_stat", op->rk);
		if (op->rk == RK_PROG_MISMATCH) {
			uint32_t lo = op->prog == PROG_NFS ? 2 : 1, hi = op->prog == PROG_NFS ? 3 : 4;

			msg.acpted_rply.ar_vers.low = lo;
			msg.acpted_rply.ar_vers.high = hi;
			jb_u64(j, "mismatch_low", lo);
			jb_u64(j, "mismatch_high", hi);
		} else if (op->rk == RK_OK) {
			msg.acpted_rply.ar_results.where = NULL;
			msg.acpted_rply.ar_results.proc = enc_nothing;
		}
	}
	need_enc((size_t)op->count + 65536);
	xdrmem_create(&x, (char *)encbuf, (u_int)enccap, XDR_ENCODE);
	m->body_off = j->len;
	if (!xdr_replymsg(&x, &msg)) {
		fprintf(stderr, "nfsgen: encoding reply header failed\n");
		exit(1);
	}
	if (op->rk == RK_OK) {
		bool ok;

		if (orphan) {
			/* body on the wire, not expected in the output */
			static struct jb oj;

			if (!oj.p)
				jb_init(&oj);
			jb_reset(&oj);
			ok = body_reply(&x, &oj, op);
		} else {
			ok = body_reply(&x, j, op);
		}
		if (!ok) {
			fprintf(stderr, "nfsgen: encoding reply prog %u vers %u proc %u failed\n",
				op->prog, op->vers, op->proc);
			exit(1);
		}
	}
	m->len = xdr_getpos(&x);
	return m->len;
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

static void send_msg(struct flow *f, int dir, uint16_t cport, struct gmsg *m,
		     const uint8_t *p, size_t n)
{
	if (f->tcp)
		tcp_queue(f, dir, m, p, n);
	else
		udp_send(f, dir, cport, m, p, n);
}

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
	gf.cli = &clients[c];
	gf.srv = &servers[s];
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
	bool call_ok[MAXOPS], gss[MAXOPS], retx[MAXOPS];
	uint16_t cport[MAXOPS];
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
		if (opt.xid_reuse && rnd(30) == 0) {
			uint32_t k = rnd(XRING);

			if (xring[c * XRING + k].xid && xring[c * XRING + k].srv == s + 1) {
				/* never two outstanding calls with one xid: a
				   client matches replies by it */
				op->xid = xring[c * XRING + k].xid;
				xring[c * XRING + k].xid = 0;
				for (uint32_t j = 0; j < i; j++)
					if (ops[j].xid == op->xid)
						op->xid = xid_next[c]++;
			}
		}
		len = enc_call(op, m, c, &gss[i]);
		calls[i] = m;
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
		m = &slots[sl++];
		len = enc_reply(op, m, call_frame[i], !call_ok[i], false, gss[i]);
		send_msg(f, 1, cport[i], m, encbuf, len);
		if (chance(opt.dup_replies)) {
			struct gmsg *d = &slots[sl++];

			copy_msg(d, m);
			if (tcp)
				tcp_flush();	/* the duplicate in a later segment */
			send_msg(f, 1, cport[i], d, encbuf, len);	/* encbuf unchanged */
		}
	}
	tcp_flush();
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
	      "  --all-features        everything above at modest rates\n", stderr);
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
		O_NLM, O_ALL, O_MULTIFRAG_HDR,
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
		{ NULL, 0, NULL, 0 },
	};
	struct net_cfg nc = { .link = LINK_ETH, .snaplen = 262144, .mss = 1448, .csum = true,
			      .acks = 0.3 };
	uint64_t seed = 1;
	int ch;

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
	while (ops_done < opt.count && (!opt.packets || net_stats.frames < opt.packets))
		one_round();
	net_fini();
	if (fclose(nc.pcap) != 0 || (nc.truth && fclose(nc.truth) != 0)) {
		perror("nfsgen: write");
		return 1;
	}
	fprintf(stderr, "nfsgen: %llu frames, %llu messages (%llu lost), %llu operations\n",
		(unsigned long long)net_stats.frames, (unsigned long long)net_stats.messages,
		(unsigned long long)net_stats.lost, (unsigned long long)ops_done);
	return 0;
}
