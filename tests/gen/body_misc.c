/*
 * body_misc.c - MOUNT v1/v3 (RFC 1094 A, RFC 1813 5), portmap v2 and
 * rpcbind v3/v4 (RFC 1833), NLM v1/v3/v4 bodies for nfsgen: encoded with
 * rpcgen output (nfs3.x, nlm.x) and libtirpc's xdr_pmap/xdr_rpcb, and
 * written as nfscope(1) dump --json keys.
 */
#include "gen.h"
#include "nfs3.h"
#include "nlm.h"

#include <rpc/pmap_prot.h>
#include <rpc/rpcb_prot.h>
#include <string.h>

static char sbuf[64][1100];	/* strings of one message */
static uint8_t bbuf[8][1100];	/* byte strings of one message */

bool body_call(XDR *x, struct jb *j, struct op *op)
{
	switch (op->prog) {
	case PROG_NFS:
		return op->vers == 2 ? nfs2_call(x, j, op) : nfs3_call(x, j, op);
	case PROG_MOUNT:
		return mnt_call(x, j, op);
	case PROG_PORTMAP:
		return pmap_call(x, j, op);
	case PROG_NLM:
		return nlm_call(x, j, op);
	}
	return false;
}

bool body_reply(XDR *x, struct jb *j, struct op *op)
{
	switch (op->prog) {
	case PROG_NFS:
		return op->vers == 2 ? nfs2_reply(x, j, op) : nfs3_reply(x, j, op);
	case PROG_MOUNT:
		return mnt_reply(x, j, op);
	case PROG_PORTMAP:
		return pmap_reply(x, j, op);
	case PROG_NLM:
		return nlm_reply(x, j, op);
	}
	return false;
}

/* ------------------------------------------------------------ MOUNT -- */

bool mnt_call(XDR *x, struct jb *j, struct op *op)
{
	bool ok = true;

	jb_obj(j, "args");
	if (op->proc == 1 || op->proc == 3) {
		char *p = sbuf[0];

		gen_path(p, 1024);
		jb_str(j, "path", p);
		ok = xdr_dirpath(x, &p);
	}
	jb_end_obj(j);
	return ok;
}

static const char *mnt3_stat_name(uint32_t st)
{
	switch (st) {
	case 0: return "MNT3_OK";
	case 1: return "MNT3ERR_PERM";
	case 2: return "MNT3ERR_NOENT";
	case 5: return "MNT3ERR_IO";
	case 13: return "MNT3ERR_ACCES";
	case 20: return "MNT3ERR_NOTDIR";
	case 22: return "MNT3ERR_INVAL";
	case 63: return "MNT3ERR_NAMETOOLONG";
	case 10004: return "MNT3ERR_NOTSUPP";
	case 10006: return "MNT3ERR_SERVERFAULT";
	}
	return NULL;
}

static struct mountbody mbodies[32];
static struct exportnode enodes[16];
static struct groupnode gnodes[16][6];

bool mnt_reply(XDR *x, struct jb *j, struct op *op)
{
	static const uint32_t errs[] = { 1, 2, 5, 13, 20, 22, 63, 10004, 10006 };
	bool ok = true;
	int si = 0;

	jb_obj(j, "res");
	switch (op->proc) {
	case 1: {
		uint32_t st = op->err ? errs[rnd(op->vers == 3 ? 9 : 7)] : 0;

		jb_u64(j, "status", st);
		if (op->vers == 3) {
			mountres3 r;
			int fl[4] = { 1, 390003, 390004, 390005 };
			uint32_t n = rnd_range(1, 4);
			const char *nm = mnt3_stat_name(st);

			if (nm)
				jb_str(j, "status_name", nm);
			r.fhs_status = (mountstat3)st;
			if (st == 0) {
				mountres3_ok *o = &r.mountres3_u.mountinfo;

				o->fhandle.fhandle3_len = 4 * rnd_range(2, 16);
				o->fhandle.fhandle3_val = (char *)bbuf[0];
				gen_bytes(bbuf[0], o->fhandle.fhandle3_len);
				o->auth_flavors.auth_flavors_len = n;
				o->auth_flavors.auth_flavors_val = fl;
				jb_hex(j, "fh", bbuf[0], o->fhandle.fhandle3_len);
				jb_arr(j, "flavors");
				for (uint32_t i = 0; i < n; i++)
					jb_u64(j, NULL, (uint32_t)fl[i]);
				jb_end_arr(j);
			}
			ok = xdr_mountres3(x, &r);
		} else {
			fhstatus r;

			r.fhs_status = st;
			if (st == 0) {
				gen_bytes((uint8_t *)r.fhstatus_u.fhs_fhandle, FHSIZE);
				jb_hex(j, "fh", r.fhstatus_u.fhs_fhandle, FHSIZE);
			}
			ok = xdr_fhstatus(x, &r);
		}
		break;
	}
	case 2: {
		uint32_t n = rnd(20);
		mountlist ml = n ? &mbodies[0] : NULL;

		jb_arr(j, "mounts");
		for (uint32_t i = 0; i < n; i++) {
			struct mountbody *b = &mbodies[i];

			b->ml_hostname = sbuf[si++];
			snprintf(b->ml_hostname, 64, "client%u.example.com", rnd(1000));
			b->ml_directory = sbuf[si++];
			gen_path(b->ml_directory, 200);
			b->ml_next = i + 1 < n ? &mbodies[i + 1] : NULL;
			jb_obj(j, NULL);
			jb_str(j, "host", b->ml_hostname);
			jb_str(j, "dir", b->ml_directory);
			jb_end_obj(j);
		}
		jb_end_arr(j);
		jb_u64(j, "list_total", n);
		ok = xdr_mountlist(x, &ml);
		break;
	}
	case 5: {
		uint32_t n = rnd(9);
		exports ex = n ? &enodes[0] : NULL;

		jb_arr(j, "exports");
		for (uint32_t i = 0; i < n; i++) {
			struct exportnode *e = &enodes[i];
			uint32_t g = rnd(6);

			e->ex_dir = sbuf[si++];
			gen_path(e->ex_dir, 300);
			e->ex_groups = g ? &gnodes[i][0] : NULL;
			e->ex_next = i + 1 < n ? &enodes[i + 1] : NULL;
			jb_obj(j, NULL);
			jb_str(j, "dir", e->ex_dir);
			jb_arr(j, "groups");
			for (uint32_t k = 0; k < g; k++) {
				char *s = sbuf[si++];

				if (rnd(2))
					snprintf(s, 64, "10.%u.0.0/16", rnd(256));
				else
					snprintf(s, 64, "@netgroup%u", rnd(100));
				gnodes[i][k].gr_name = s;
				gnodes[i][k].gr_next = k + 1 < g ? &gnodes[i][k + 1] : NULL;
				jb_str(j, NULL, s);
			}
			jb_end_arr(j);
			jb_end_obj(j);
		}
		jb_end_arr(j);
		jb_u64(j, "list_total", n);
		ok = xdr_exports(x, &ex);
		break;
	}
	default:	/* NULL, UMNT, UMNTALL: void */
		break;
	}
	jb_end_obj(j);
	return ok;
}

/* ---------------------------------------------------- portmap/rpcbind -- */

static const uint32_t progs[] = { 100003, 100005, 100021, 100024, 100227, 100000, 100011, 395649 };

static void g_rpcb(rpcb *r, int si)
{
	static const char *const netids[] = { "tcp", "udp", "tcp6", "udp6", "local" };
	int nid = (int)rnd(5);

	r->r_prog = progs[rnd(8)];
	r->r_vers = rnd_range(1, 4);
	r->r_netid = (char *)netids[nid];
	r->r_addr = sbuf[si];
	if (nid >= 2 && nid <= 3)
		snprintf(r->r_addr, 64, "fd00::%x.%u.%u", rnd(65536), rnd(256), rnd(256));
	else if (nid == 4)
		snprintf(r->r_addr, 64, "/run/rpcbind.sock");
	else
		snprintf(r->r_addr, 64, "10.1.%u.%u.%u.%u", rnd(256), rnd(256), rnd(256), rnd(256));
	r->r_owner = sbuf[si + 1];
	if (rnd(2))
		snprintf(r->r_owner, 64, "superuser");
	else
		snprintf(r->r_owner, 64, "%u", rnd(2000));
}

static void j_rpcb(struct jb *j, const char *key, const rpcb *r)
{
	jb_obj(j, key);
	jb_u64(j, "prog", r->r_prog);
	jb_u64(j, "vers", r->r_vers);
	jb_str(j, "netid", r->r_netid);
	jb_str(j, "addr", r->r_addr);
	jb_str(j, "owner", r->r_owner);
	jb_end_obj(j);
}

static void g_pmap(struct pmap *m)
{
	m->pm_prog = progs[rnd(8)];
	m->pm_vers = rnd_range(1, 4);
	m->pm_prot = rnd(2) ? 6 : 17;
	m->pm_port = rnd(2) ? 2049 : rnd(65536);
}

static void j_pmap(struct jb *j, const char *key, const struct pmap *m)
{
	jb_obj(j, key);
	jb_u64(j, "prog", m->pm_prog);
	jb_u64(j, "vers", m->pm_vers);
	jb_u64(j, "prot", m->pm_prot);
	jb_u64(j, "port", m->pm_port);
	jb_end_obj(j);
}

bool pmap_call(XDR *x, struct jb *j, struct op *op)
{
	bool ok = true;
	uint32_t p = op->proc;

	jb_obj(j, "args");
	if (op->vers == 2 && p >= 1 && p <= 3) {
		struct pmap m;

		g_pmap(&m);
		j_pmap(j, "map", &m);
		ok = xdr_pmap(x, &m);
	} else if (op->vers >= 3 && (p == 1 || p == 2 || p == 3 || p == 9)) {
		rpcb r;

		g_rpcb(&r, 0);
		j_rpcb(j, "rpcb", &r);
		ok = xdr_rpcb(x, &r);
	} else if (p == 5 || p == 10) {
		uint32_t cp = progs[rnd(8)], cv = rnd_range(1, 4), cpr = rnd(20);
		u_int al = rnd(40) * 4 + rnd(4);
		char *ap = (char *)bbuf[0];

		gen_bytes(bbuf[0], al);
		jb_u64(j, "call_prog", cp);
		jb_u64(j, "call_vers", cv);
		jb_u64(j, "call_proc", cpr);
		jb_u64(j, "args_len", al);
		ok = xdr_u_int32_t(x, &cp) && xdr_u_int32_t(x, &cv) &&
		     xdr_u_int32_t(x, &cpr) && xdr_bytes(x, &ap, &al, ~0u);
	}
	jb_end_obj(j);
	return ok;
}

static struct pmaplist pml[24];
static rp__list rpl[24];

bool pmap_reply(XDR *x, struct jb *j, struct op *op)
{
	bool ok = true;
	uint32_t p = op->proc;

	jb_obj(j, "res");
	if (p == 1 || p == 2) {
		bool_t b = rnd(4) != 0;

		jb_bool(j, "result", b);
		ok = xdr_bool(x, &b);
	} else if (op->vers == 2 && p == 3) {
		uint32_t port = rnd(3) ? rnd_range(600, 65535) : 0;

		jb_u64(j, "port", port);
		ok = xdr_u_int32_t(x, &port);
	} else if (op->vers >= 3 && (p == 3 || p == 9)) {
		char *s = sbuf[0];

		if (rnd(4) == 0)
			s[0] = 0;
		else if (rnd(2))
			snprintf(s, 64, "10.1.0.%u.8.1", rnd(256));
		else
			snprintf(s, 64, "fd00::1:%x.%u.%u", rnd(65536), rnd(256), rnd(256));
		jb_str(j, "uaddr", s);
		ok = xdr_wrapstring(x, &s);
	} else if (p == 4) {
		uint32_t n = rnd(20);

		if (op->vers == 2) {
			struct pmaplist *l = n ? &pml[0] : NULL;

			jb_arr(j, "maps");
			for (uint32_t i = 0; i < n; i++) {
				g_pmap(&pml[i].pml_map);
				pml[i].pml_next = i + 1 < n ? &pml[i + 1] : NULL;
				j_pmap(j, NULL, &pml[i].pml_map);
			}
			jb_end_arr(j);
			ok = xdr_pmaplist(x, &l);
		} else {
			rpcblist_ptr l = n ? &rpl[0] : NULL;

			jb_arr(j, "rpcbs");
			for (uint32_t i = 0; i < n; i++) {
				g_rpcb(&rpl[i].rpcb_map, (int)(2 * i));
				rpl[i].rpcb_next = i + 1 < n ? &rpl[i + 1] : NULL;
				j_rpcb(j, NULL, &rpl[i].rpcb_map);
			}
			jb_end_arr(j);
			ok = xdr_rpcblist_ptr(x, &l);
		}
		jb_u64(j, "list_total", n);
	} else if (p == 5 || p == 10) {
		u_int rl = rnd(30) * 4;
		char *rp = (char *)bbuf[0];

		gen_bytes(bbuf[0], rl);
		if (op->vers == 2) {
			uint32_t port = rnd_range(600, 65535);

			jb_u64(j, "port", port);
			ok = xdr_u_int32_t(x, &port);
		} else {
			char *s = sbuf[0];

			snprintf(s, 64, "10.1.0.%u.%u.%u", rnd(256), rnd(256), rnd(256));
			jb_str(j, "uaddr", s);
			ok = xdr_wrapstring(x, &s);
		}
		jb_u64(j, "res_len", rl);
		ok = ok && xdr_bytes(x, &rp, &rl, ~0u);
	} else if (p == 6) {
		uint32_t t = 1700000000u + rnd(1000000);

		jb_u64(j, "time", t);
		ok = xdr_u_int32_t(x, &t);
	}
	jb_end_obj(j);
	return ok;
}

/* -------------------------------------------------------------- NLM -- */

static netobj g_netobj(int slot, uint32_t lo, uint32_t hi)
{
	netobj o;

	o.n_len = rnd_range(lo, hi);
	o.n_bytes = (char *)bbuf[slot];
	gen_bytes(bbuf[slot], o.n_len);
	return o;
}

static void j_netobj(struct jb *j, const char *key, const netobj *o)
{
	jb_hex(j, key, o->n_bytes, o->n_len);
}

/* the v4 lock; v1/v3 encode it narrowed to 32 bits */
static void g_lock4(nlm4_lock *l, uint32_t vers)
{
	l->caller_name = sbuf[10];
	snprintf(l->caller_name, 64, "client%u", rnd(1000));
	l->fh = g_netobj(1, vers == 4 ? 8 : 32, vers == 4 ? 64 : 32);
	l->oh = g_netobj(2, 4, 40);
	l->svid = (int)rnd32();
	if (vers == 4) {
		l->l_offset = rnd(2) ? rnd32() : rnd64();
		l->l_len = rnd(3) ? rnd32() : 0;
	} else {
		l->l_offset = rnd32();
		l->l_len = rnd(3) ? rnd32() : 0;
	}
}

static void j_lock4(struct jb *j, const nlm4_lock *l)
{
	jb_obj(j, "lock");
	jb_str(j, "caller_name", l->caller_name);
	j_netobj(j, "fh", &l->fh);
	j_netobj(j, "oh", &l->oh);
	jb_i64(j, "svid", l->svid);
	jb_u64(j, "offset", l->l_offset);
	jb_u64(j, "length", l->l_len);
	jb_end_obj(j);
}

static bool x_lock(XDR *x, nlm4_lock *l, uint32_t vers)
{
	if (vers == 4)
		return xdr_nlm4_lock(x, l);
	nlm_lock o = { l->caller_name, l->fh, l->oh, l->svid,
		       (u_int)l->l_offset, (u_int)l->l_len };
	return xdr_nlm_lock(x, &o);
}

/* nlm_res / nlm_testres (body of a reply or of a _RES call) */
static bool nlm_res_body(XDR *x, struct jb *j, struct op *op, bool test)
{
	netobj cookie = g_netobj(0, 0, 16);
	uint32_t st = op->err ? rnd_range(1, op->vers == 4 ? 9 : 4) : 0;
	bool ok;

	j_netobj(j, "cookie", &cookie);
	jb_u64(j, "status", st);
	ok = xdr_netobj(x, &cookie) && xdr_u_int32_t(x, &st);
	if (test && st == 1) {
		nlm4_holder h;

		h.exclusive = rnd(2);
		h.svid = (int)rnd32();
		h.oh = g_netobj(2, 4, 40);
		h.l_offset = op->vers == 4 ? rnd64() >> rnd(64) : rnd32();
		h.l_len = rnd32();
		jb_obj(j, "holder");
		jb_bool(j, "exclusive", h.exclusive);
		jb_i64(j, "svid", h.svid);
		j_netobj(j, "oh", &h.oh);
		jb_u64(j, "offset", h.l_offset);
		jb_u64(j, "length", h.l_len);
		jb_end_obj(j);
		if (op->vers == 4) {
			ok = ok && xdr_nlm4_holder(x, &h);
		} else {
			nlm_holder o = { h.exclusive, h.svid, h.oh, (u_int)h.l_offset, (u_int)h.l_len };

			ok = ok && xdr_nlm_holder(x, &o);
		}
	}
	return ok;
}

bool nlm_call(XDR *x, struct jb *j, struct op *op)
{
	uint32_t p = op->proc;
	bool ok = true;

	jb_obj(j, "args");
	if ((p >= 1 && p <= 10) || p == 22) {
		uint32_t b = p > 5 && p <= 10 ? p - 5 : p;	/* _MSG -> base */
		netobj cookie = g_netobj(0, 0, 16);
		bool_t block = rnd(2), excl = rnd(2), recl = rnd(4) == 0;
		int32_t state = (int32_t)rnd(1000);
		nlm4_lock l;

		if (b == 22)
			b = 2;
		g_lock4(&l, op->vers);
		j_netobj(j, "cookie", &cookie);
		ok = xdr_netobj(x, &cookie);
		if (b == 2 || b == 3) {
			jb_bool(j, "block", block);
			ok = ok && xdr_bool(x, &block);
		}
		if (b != 4) {
			jb_bool(j, "exclusive", excl);
			ok = ok && xdr_bool(x, &excl);
		}
		j_lock4(j, &l);
		ok = ok && x_lock(x, &l, op->vers);
		if (b == 2) {
			jb_bool(j, "reclaim", recl);
			jb_u64(j, "state", (uint32_t)state);
			ok = ok && xdr_bool(x, &recl) && xdr_int32_t(x, &state);
		}
	} else if (p >= 11 && p <= 15) {
		ok = nlm_res_body(x, j, op, p == 11);
	} else if (p == 20 || p == 21) {
		nlm_shareargs a;

		a.cookie = g_netobj(0, 0, 16);
		a.share.caller_name = sbuf[10];
		snprintf(a.share.caller_name, 64, "client%u", rnd(1000));
		a.share.fh = g_netobj(1, 32, op->vers == 4 ? 64 : 32);
		a.share.oh = g_netobj(2, 4, 40);
		a.share.mode = (fsh_mode)rnd(4);
		a.share.access = (fsh_access)rnd(4);
		a.reclaim = rnd(4) == 0;
		j_netobj(j, "cookie", &a.cookie);
		jb_obj(j, "lock");
		jb_str(j, "caller_name", a.share.caller_name);
		j_netobj(j, "fh", &a.share.fh);
		j_netobj(j, "oh", &a.share.oh);
		jb_i64(j, "svid", 0);
		jb_u64(j, "offset", 0);
		jb_u64(j, "length", 0);
		jb_end_obj(j);
		jb_bool(j, "reclaim", a.reclaim);
		ok = xdr_nlm_shareargs(x, &a);
	} else if (p == 23) {
		nlm_notify n;

		n.name = sbuf[10];
		snprintf(n.name, 64, "client%u", rnd(1000));
		n.state = (long)rnd(1000);
		jb_u64(j, "state", (uint64_t)n.state);
		ok = xdr_nlm_notify(x, &n);
	}
	jb_end_obj(j);
	return ok;
}

bool nlm_reply(XDR *x, struct jb *j, struct op *op)
{
	uint32_t p = op->proc;
	bool ok = true;

	jb_obj(j, "res");
	if (p >= 1 && p <= 5) {
		ok = nlm_res_body(x, j, op, p == 1);
	} else if (p == 22) {
		ok = nlm_res_body(x, j, op, false);
	} else if (p == 20 || p == 21) {
		nlm_shareres r;

		r.cookie = g_netobj(0, 0, 16);
		r.stat = (nlm_stats)(op->err ? rnd_range(1, 4) : 0);
		r.sequence = (int)rnd(100);
		j_netobj(j, "cookie", &r.cookie);
		jb_u64(j, "status", (uint32_t)r.stat);
		ok = xdr_nlm_shareres(x, &r);
	}
	jb_end_obj(j);
	return ok;
}
