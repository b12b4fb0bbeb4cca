/*
 * rpchdr.c - nfsgen: RPC call and reply messages (libtirpc xdr_callmsg /
 * xdr_replymsg, AUTH_SYS / AUTH_NONE / RPCSEC_GSS credentials) around the
 * bodies of body_nfs.c and body_misc.c, with their ground-truth JSON.
 */
#include "gen.h"

#include <stdlib.h>
#include <string.h>

uint8_t *encbuf;
static size_t enccap;

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
size_t enc_call(struct op *op, struct gmsg *m, uint32_t client, bool *gss)
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
size_t enc_reply(struct op *op, struct gmsg *m, uint64_t call_frame, bool call_lost,
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

