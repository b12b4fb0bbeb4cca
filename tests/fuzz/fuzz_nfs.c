/*
 * fuzz_nfs.c - NFSv2/v3 call and reply body decoders (decode/nfs*.c).
 *
 * Input layout:
 *   byte 0: bit 0   version (0: NFSv3, 1: NFSv2)
 *           bit 1   0: call, 1: reply
 *           bit 2   1: take byte 1 as the raw procedure number (mostly out
 *                   of range: the decoders must refuse it cleanly)
 *           bits 3-7 k: wire length = captured length + (k ? 1 << (k-1) : 0)
 *                   (k > 0 is a snaplen cut: payload not captured)
 *   byte 1: procedure (mod the number of procedures unless bit 2)
 *   rest:   the body, exactly as captured (so ASan sees any over-read)
 *
 * Besides memory safety it checks the decoder contract: success iff the
 * cursor is clean, the cursor never passes the wire length, entry counts
 * and string lengths within bounds.
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
fuzz_check_name(const struct nfs_name *n)
{
	fuzz_check(n->len <= NFS_NAME_MAX && n->s[n->len] == '\0');
}

static void
fuzz_check_reply(const struct nfs_reply *r)
{
	if (r->have & NFSR_ENTRIES) {
		fuzz_check(r->nentries <= NFS_ENTRIES_MAX);
		fuzz_check(r->nentries <= r->entries_total);
		for (uint32_t i = 0; i < r->nentries; i++) {
			fuzz_check_name(&r->entries[i].name);
			fuzz_check(!r->entries[i].have_fh ||
				   r->entries[i].fh.len <= NFS_FHSIZE_MAX);
		}
	}
	if (r->have & NFSR_FH)
		fuzz_check(r->fh.len <= NFS_FHSIZE_MAX);
	if (r->have & NFSR_PATH)
		fuzz_check(r->path.len <= NFS_PATH_MAX &&
			   r->path.s[r->path.len] == '\0');
}

static void
fuzz_check_call(const struct nfs_call *a)
{
	if (a->have & NFSC_FH)
		fuzz_check(a->fh.len <= NFS_FHSIZE_MAX);
	if (a->have & NFSC_FH2)
		fuzz_check(a->fh2.len <= NFS_FHSIZE_MAX);
	if (a->have & NFSC_NAME)
		fuzz_check_name(&a->name);
	if (a->have & NFSC_NAME2)
		fuzz_check_name(&a->name2);
	if (a->have & NFSC_PATH)
		fuzz_check(a->path.len <= NFS_PATH_MAX &&
			   a->path.s[a->path.len] == '\0');
	if (a->have & NFSC_CREATEMODE)
		fuzz_check(a->createmode <= 2);
	if (a->have & NFSC_STABLE)
		fuzz_check(a->stable <= NFS3_FILE_SYNC);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xdr c;
	uint32_t proc, cap, len, k;
	bool v2, reply, ok;

	if (size < 2 || size - 2 > UINT32_MAX / 2)
		return 0;
	v2 = data[0] & 1;
	reply = data[0] & 2;
	proc = data[1];
	if (!(data[0] & 4))
		proc %= v2 ? NFS2_NPROC : NFS3_NPROC;
	k = data[0] >> 3;
	cap = (uint32_t)(size - 2);
	len = cap + (k ? 1u << (k - 1) : 0);
	if (len < cap)
		len = UINT32_MAX;
	xdr_init(&c, data + 2, cap, len);

	if (reply) {
		struct nfs_reply *r = malloc(sizeof *r);

		if (r == NULL)
			return 0;
		memset(r, 0xa5, sizeof *r);	/* the caller does not clear */
		r->have = 0;
		ok = v2 ? nfs2_decode_reply(&c, proc, r)
			: nfs3_decode_reply(&c, proc, r);
		fuzz_check_reply(r);
		free(r);
	} else {
		struct nfs_call *a = malloc(sizeof *a);

		if (a == NULL)
			return 0;
		memset(a, 0xa5, sizeof *a);
		a->have = 0;
		ok = v2 ? nfs2_decode_call(&c, proc, a)
			: nfs3_decode_call(&c, proc, a);
		fuzz_check_call(a);
		free(a);
	}
	fuzz_check(ok == (c.err == XDR_OK));
	fuzz_check(c.off <= c.len);
	if (proc >= (v2 ? NFS2_NPROC : NFS3_NPROC))
		fuzz_check(!ok && c.err == XDR_MALFORMED);
	return 0;
}
