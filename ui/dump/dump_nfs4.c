/*
 * dump_nfs4.c - `nfscope dump` of an NFSv4 COMPOUND: on the message's line
 * its minor version (call) or status (reply) and op count, then one line
 * per operation, indented; in JSON an "nfs4" object with an "ops" array.
 * Keys in nfscope(1), dump --json.
 */
#include "ui/dump/dump_nfs4.h"

#include <inttypes.h>

#include "analyze/filter.h"
#include "ui/esc.h"

static const char *
op_name(const struct nfs4_compound *cp, uint32_t op, char *buf, size_t n)
{
	const char *s = nfs4_op_name(op, cp->cb);

	if (s)
		return s;
	snprintf(buf, n, "op %" PRIu32, op);
	return buf;
}

static void
t_status(FILE *f, uint32_t st)
{
	const char *n = nfs4_stat_name(st);

	if (st == NFS4_OK)
		fputs(" ok", f);
	else if (n)
		fprintf(f, " %s", n);
	else
		fprintf(f, " status %" PRIu32, st);
}

static void
t_name(FILE *f, const struct nfs_name *n)
{
	fputs(" \"", f);
	ui_esc_put(f, n->s, n->len, "\"");
	putc('"', f);
}

void
dump_nfs4_head(FILE *f, const struct nfs4_compound *cp, bool call)
{
	if (call && (cp->have & N4C_MINOR))
		fprintf(f, " minor %" PRIu32, cp->minor);
	if (!call && (cp->have & N4C_STATUS))
		t_status(f, cp->status);
	if (cp->have & N4C_NOPS)
		fprintf(f, " %" PRIu32 " ops", cp->nops_wire);
	if (cp->stopped)
		fprintf(f, " [stopped at op %" PRIu32 ": opcode %" PRIu32 "]",
			cp->nops, cp->stop_op);
}

static void
t_op_fields(FILE *f, const struct nfs4_op *o)
{
	uint32_t h = o->have;

	if (h & N4_STATUS)
		t_status(f, o->status);
	if (h & N4_FH)
		fprintf(f, " fh %08" PRIx32, an_fh_hash(&o->fh));
	if (h & N4_NAME)
		t_name(f, &o->name);
	if (h & N4_NAME2)
		t_name(f, &o->name2);
	if (h & N4_SEQ) {
		fputs(" session ", f);
		for (int i = 0; i < NFS4_SESSIONID_SIZE; i++)
			fprintf(f, "%02x", o->sessionid[i]);
		fprintf(f, " slot %" PRIu32 " seq %" PRIu32 " highest %" PRIu32,
			o->slot, o->seqid, o->highest_slot);
		if (!(h & N4_STATUS) && o->cachethis)	/* a call's only */
			fputs(" cachethis", f);
	}
	if (h & N4_COUNT)
		fprintf(f, " %" PRIu32 " bytes", o->count);
	if (h & N4_OFFSET)
		fprintf(f, " @ %" PRIu64, o->offset);
	if (h & N4_LENGTH)
		fprintf(f, " len %" PRIu64, o->length);
	if (h & N4_STABLE) {
		const char *n = nfs_stable_name(o->stable);

		if (n)
			fprintf(f, " %s", n);
		else
			fprintf(f, " stable %" PRIu32, o->stable);
	}
	if ((h & N4_EOF) && o->eof)
		fputs(" EOF", f);
	if (h & N4_VERF) {
		fputs(" verf ", f);
		for (int i = 0; i < NFS_VERF_SIZE; i++)
			fprintf(f, "%02x", o->verf[i]);
	}
	if (h & N4_ACCESS)
		fprintf(f, " access 0x%02" PRIx32, o->access);
	if (h & N4_OPEN)
		fprintf(f, " claim %" PRIu32 "%s", o->claim,
			o->opentype ? " create" : "");
	if (h & N4_DELEG)
		fprintf(f, " deleg %" PRIu32, o->deleg);
	if (h & (N4_LOCK | N4_DENIED))
		fprintf(f, " locktype %" PRIu32, o->locktype);
	if (h & N4_CHAN)
		fprintf(f, " maxreq %" PRIu32 " maxresp %" PRIu32
			" maxops %" PRIu32 " maxreqs %" PRIu32, o->fore.maxreq,
			o->fore.maxresp, o->fore.maxops, o->fore.maxreqs);
	if (h & N4_CLIENTID)
		fprintf(f, " clientid %016" PRIx64, o->clientid);
	if (o->attr_have & N4A_SIZE)
		fprintf(f, " size %" PRIu64, o->size);
	if (o->attr_have & N4A_CHANGE)
		fprintf(f, " change %" PRIu64, o->change);
	if (o->attr_have & N4A_MAXREAD)
		fprintf(f, " maxread %" PRIu64, o->maxread);
	if (o->attr_have & N4A_MAXWRITE)
		fprintf(f, " maxwrite %" PRIu64, o->maxwrite);
	if (o->attr_have & N4A_FH_EXPIRE)
		fprintf(f, " fh_expire_type %" PRIu32, o->fh_expire_type);
}

void
dump_nfs4_ops(FILE *f, const struct nfs4_compound *cp)
{
	char buf[24];

	for (uint32_t i = 0; i < cp->nstored; i++) {
		const struct nfs4_op *o = &cp->ops[i];

		fprintf(f, "    %s", op_name(cp, o->op, buf, sizeof(buf)));
		t_op_fields(f, o);
		putc('\n', f);
	}
	if (cp->nops > cp->nstored)
		fprintf(f, "    ... %" PRIu32 " more ops\n",
			cp->nops - cp->nstored);
}

/* ------------------------------------------------------------- JSON -- */

static void
j_op(struct jw *w, const struct nfs4_compound *cp, const struct nfs4_op *o)
{
	uint32_t h = o->have;
	char buf[24];

	jw_obj(w, NULL);
	jw_str(w, "op", op_name(cp, o->op, buf, sizeof(buf)));
	jw_u64(w, "opcode", o->op);
	if (h & N4_STATUS) {
		const char *n = nfs4_stat_name(o->status);

		jw_u64(w, "status", o->status);
		if (n)
			jw_str(w, "status_name", n);
	}
	if (h & N4_FH)
		jw_hex(w, "fh", o->fh.data, o->fh.len);
	if (h & N4_NAME)
		jw_strn(w, "name", o->name.s, o->name.len);
	if (h & N4_NAME2)
		jw_strn(w, "name2", o->name2.s, o->name2.len);
	if (h & N4_SEQ) {
		jw_hex(w, "sessionid", o->sessionid, NFS4_SESSIONID_SIZE);
		jw_u64(w, "slot", o->slot);
		jw_u64(w, "seqid", o->seqid);
		jw_u64(w, "highest_slot", o->highest_slot);
		if (h & N4_STATUS) {	/* reply: SEQUENCE4resok */
			jw_u64(w, "target_highest_slot", o->target_slot);
			jw_u64(w, "status_flags", o->status_flags);
		} else {
			jw_bool(w, "cachethis", o->cachethis);
		}
	}
	if (h & N4_SESSIONID)
		jw_hex(w, "sessionid", o->sessionid, NFS4_SESSIONID_SIZE);
	if (h & N4_COUNT)
		jw_u64(w, "count", o->count);
	if (h & N4_OFFSET)
		jw_u64(w, "offset", o->offset);
	if (h & N4_LENGTH)
		jw_u64(w, "length", o->length);
	if (h & N4_STABLE)
		jw_u64(w, "stable", o->stable);
	if (h & N4_EOF)
		jw_bool(w, "eof", o->eof);
	if (h & N4_VERF)
		jw_hex(w, "verf", o->verf, NFS_VERF_SIZE);
	if (h & N4_ACCESS) {
		jw_u64(w, "access", o->access);
		if (h & N4_STATUS)	/* reply: supported, granted */
			jw_u64(w, "supported", o->supported);
	}
	if (h & N4_OPEN) {
		jw_u64(w, "claim", o->claim);
		jw_u64(w, "opentype", o->opentype);
		jw_u64(w, "share_access", o->share_access);
	}
	if (h & N4_DELEG)
		jw_u64(w, "delegation", o->deleg);
	if (h & (N4_LOCK | N4_DENIED))
		jw_u64(w, "locktype", o->locktype);
	if (h & N4_DENIED)
		jw_bool(w, "denied", true);
	if (h & N4_CHAN) {
		jw_obj(w, "fore_channel");
		jw_u64(w, "maxrequestsize", o->fore.maxreq);
		jw_u64(w, "maxresponsesize", o->fore.maxresp);
		jw_u64(w, "maxresponsesize_cached", o->fore.maxresp_cached);
		jw_u64(w, "maxoperations", o->fore.maxops);
		jw_u64(w, "maxrequests", o->fore.maxreqs);
		jw_end_obj(w);
	}
	if (h & N4_CLIENTID)
		jw_u64(w, "clientid", o->clientid);
	if (h & N4_FLAGS)
		jw_u64(w, "flags", o->flags);
	if (h & N4_BITMAP) {
		jw_arr(w, "attr_request");
		for (uint32_t i = 0; i < o->nbitmap && i < 3; i++)
			jw_u64(w, NULL, o->bitmap[i]);
		jw_end_arr(w);
	}
	if (o->attr_have & N4A_TYPE)
		jw_u64(w, "type", o->type);
	if (o->attr_have & N4A_FH_EXPIRE)
		jw_u64(w, "fh_expire_type", o->fh_expire_type);
	if (o->attr_have & N4A_CHANGE)
		jw_u64(w, "change", o->change);
	if (o->attr_have & N4A_SIZE)
		jw_u64(w, "size", o->size);
	if (o->attr_have & N4A_MAXREAD)
		jw_u64(w, "maxread", o->maxread);
	if (o->attr_have & N4A_MAXWRITE)
		jw_u64(w, "maxwrite", o->maxwrite);
	jw_end_obj(w);
}

void
dump_nfs4_json(struct jw *w, const struct nfs4_compound *cp, bool call)
{
	jw_obj(w, "nfs4");
	jw_bool(w, "callback", cp->cb);
	if (call && (cp->have & N4C_MINOR))
		jw_u64(w, "minorversion", cp->minor);
	if (!call && (cp->have & N4C_STATUS)) {
		const char *n = nfs4_stat_name(cp->status);

		jw_u64(w, "status", cp->status);
		if (n)
			jw_str(w, "status_name", n);
	}
	if (cp->have & N4C_NOPS)
		jw_u64(w, "nops", cp->nops_wire);
	if (cp->stopped)
		jw_u64(w, "stopped_at_opcode", cp->stop_op);
	jw_arr(w, "ops");
	for (uint32_t i = 0; i < cp->nstored; i++)
		j_op(w, cp, &cp->ops[i]);
	jw_end_arr(w);
	jw_end_obj(w);
}
