/*
 * fuzz.h - what the decoders' fuzz targets share (fuzz_nfs.c,
 * fuzz_nfs4.c): the contract check and the cursor over an input whose
 * first bytes chose what to decode.
 */
#ifndef NFSCOPE_FUZZ_H
#define NFSCOPE_FUZZ_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "decode/decode_int.h"

/* A broken contract: abort (libFuzzer and the replay see a crash). */
static inline void fuzz_check(bool cond)
{
	if (!cond)
		abort();
}

/* A decoded name: within bounds and NUL-terminated. */
static inline void fuzz_check_name(const struct nfs_name *n)
{
	fuzz_check(n->len <= NFS_NAME_MAX && n->s[n->len] == '\0');
}

/*
 * c over data[skip..size), captured as given; k > 0 is a snaplen cut:
 * the wire length is 2^(k-1) bytes longer (payload not captured).  The
 * caller checked skip <= size and size - skip <= UINT32_MAX / 2.
 */
static inline void fuzz_xdr(struct xdr *c, const uint8_t *data, size_t size,
			    size_t skip, uint32_t k)
{
	uint32_t cap = (uint32_t)(size - skip);
	uint32_t len = cap + (k ? 1u << ((k - 1) & 31) : 0);

	if (len < cap)
		len = UINT32_MAX;
	xdr_init(c, data + skip, cap, len);
}

#endif
