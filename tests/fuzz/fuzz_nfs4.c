/*
 * fuzz_nfs4.c - NFSv4 COMPOUND / CB_COMPOUND call and reply decoders
 * (decode/nfs4*.c).
 *
 * Input layout:
 *   byte 0: bit 0   0: call, 1: reply
 *           bit 1   1: CB_COMPOUND (back channel)
 *           bits 2-7 k: wire length = captured length + (k ? 1 << (k-1) : 0)
 *                   (k > 0 is a snaplen cut: payload not captured)
 *   rest:   the COMPOUND body, exactly as captured (ASan sees any
 *           over-read)
 *
 * Besides memory safety it checks the decoder contract: success iff the
 * cursor is clean, the cursor never past the wire length, op counts,
 * handles and names within bounds, the main op one of those stored.
 */
#include <stdlib.h>
#include <string.h>

#include "decode/decode_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
fuzz_check(bool cond)
{
	if (!cond)
		abort();
}

static void
fuzz_check_op(const struct nfs4_op *o)
{
	if (o->have & N4_FH)
		fuzz_check(o->fh.len <= NFS_FHSIZE_MAX);
	if (o->have & N4_NAME)
		fuzz_check(o->name.len <= NFS_NAME_MAX &&
			   o->name.s[o->name.len] == '\0');
	if (o->have & N4_NAME2)
		fuzz_check(o->name2.len <= NFS_NAME_MAX &&
			   o->name2.s[o->name2.len] == '\0');
	if (o->have & N4_STABLE)
		fuzz_check(o->op != NFS4_OP_WRITE || o->stable <= 2 ||
			   (o->have & N4_STATUS));
	fuzz_check(nfs4_op_name(o->op, false) != NULL ||
		   nfs4_op_name(o->op, true) != NULL);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nfs4_compound *cp;
	struct xdr c;
	uint32_t cap, len, k, i;
	bool reply, cb, ok;
	int m;

	if (size < 1 || size - 1 > UINT32_MAX / 2)
		return 0;
	reply = data[0] & 1;
	cb = data[0] & 2;
	k = data[0] >> 2;
	cap = (uint32_t)(size - 1);
	len = cap + (k ? 1u << ((k - 1) & 31) : 0);
	if (len < cap)
		len = UINT32_MAX;
	xdr_init(&c, data + 1, cap, len);
	cp = malloc(sizeof *cp);
	if (cp == NULL)
		return 0;
	memset(cp, 0xa5, sizeof *cp);	/* the caller clears only these */
	cp->have = 0;
	cp->nops = cp->nstored = cp->nops_wire = 0;
	cp->stopped = false;
	ok = reply ? nfs4_decode_reply(&c, cb, cp)
		   : nfs4_decode_call(&c, cb, cp);
	fuzz_check(ok == (c.err == XDR_OK));
	fuzz_check(c.off <= c.len);
	fuzz_check(cp->nstored <= NFS4_OPS_MAX);
	fuzz_check(cp->nops <= cp->nops_wire);
	fuzz_check(cp->nstored <= cp->nops + 1);
	fuzz_check(!cp->stopped || ok);
	for (i = 0; i < cp->nstored; i++)
		fuzz_check_op(&cp->ops[i]);
	m = nfs4_main_op(cp);
	fuzz_check(m < (int)cp->nstored && (m >= 0 || cp->nstored == 0));
	fuzz_check(nfs4_proc_name(nfs4_proc(cp), cb) != NULL);
	free(cp);
	return 0;
}
