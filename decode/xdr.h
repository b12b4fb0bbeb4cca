/*
 * xdr.h - a bounded, zero-copy XDR cursor (RFC 4506).
 *
 * Purpose: the one primitive every decoder uses to read wire data.
 *
 * Two lengths: `len` is what was on the wire, `cap` what was captured
 * (cap <= len).  Reading past `cap` but within `len` is TRUNCATED (snaplen cut
 * it: not an error of the sender); reading past `len` is MALFORMED (a length
 * field lies).  Once a cursor has failed it stays failed and every further
 * read fails the same way, so decoders are plain chains of
 *     if (!xdr_u32(c, &v)) return false;
 * Lengths are compared, never pointers: `if (n > c->cap - c->off)`.
 * Opaque payloads (READ/WRITE data) can be skipped by their wire length even
 * when they were not captured (xdr_skip_opaque), so a header-only capture
 * still yields every later field that was captured.
 *
 * Ownership: the cursor borrows its buffer; nothing it returns outlives the
 * buffer.  Values copied into decode structs are fixed-size copies.
 */
#ifndef NFSCOPE_XDR_H
#define NFSCOPE_XDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum xdr_err {
	XDR_OK = 0,
	XDR_TRUNCATED = 1,	/* ran past the captured bytes */
	XDR_MALFORMED = 2,	/* ran past the wire length, or a value lies */
};

struct xdr {
	const uint8_t *buf;
	uint32_t cap;		/* captured bytes at buf */
	uint32_t len;		/* wire bytes (>= cap) */
	uint32_t off;		/* current offset, <= len */
	enum xdr_err err;	/* sticky */
	uint32_t err_off;	/* offset at which the first error happened */
	/* NFS attribute values (fattr3, wcc_attr) and AUTH_SYS gids are not
	   wanted: skip them when they are all captured (their length is
	   known and they hold nothing to check), so only the presence (the
	   count) is decoded; otherwise decode as usual, so errors are the
	   same.  Set by the decoder from dec_config.no_attrs; xdr_init clears
	   it. */
	bool no_attrs;
	/* Shape decoding (decode/shape.c): the reply's procedure is not
	   known, so values that select no layout are checked too - a bool
	   that is not 0 or 1, an ftype3/ftype out of range, a mode with bits
	   no RFC defines, nanoseconds of a second or more make the message
	   MALFORMED instead of being kept as sent.  xdr_init clears it. */
	bool strict;
	/* Shape fitting: a string or opaque past the captured bytes is
	   passed over by its wire length (the part not captured zeroed),
	   not failed, so what follows is judged against the wire length.
	   Never for output (the value is not what was sent).  xdr_init
	   clears it. */
	bool pass_cut;
	/* Shape completion (decode/shape.c): a field the capture cut reads
	   as its captured bytes followed by the smallest value (at least 1:
	   a valid ftype, mode, time), a bool past the cut as the next bit of
	   `choices` (choice_n counts them), so the decode runs to the end of
	   one of the result's possible layouts and its length can be held
	   to the wire length.  A length word past the cut (any length could
	   follow), or more bools than choices holds, sets `open`: the
	   completion cannot be pinned.  xdr_init clears it. */
	bool complete;
	bool open;
	uint8_t choice_n;
	uint32_t choices;
};

void xdr_init(struct xdr *c, const uint8_t *buf, uint32_t cap, uint32_t len);

/* Mark the cursor failed (sticky: the first error wins).  Returns false. */
bool xdr_fail(struct xdr *c, enum xdr_err e);

bool xdr_i32(struct xdr *c, int32_t *v);
/* xdr_bool (malformed unless 0 or 1) and xdr_enum (malformed if v > max)
 * are inline, below */

/* Fixed-length opaque of n bytes (padded to 4) copied into out. */
bool xdr_fixed(struct xdr *c, void *out, uint32_t n);
/*
 * Variable-length opaque, length <= max, copied into out (out must hold max
 * bytes); *n receives the length.  Malformed if the length exceeds max.
 */
bool xdr_opaque(struct xdr *c, void *out, uint32_t *n, uint32_t max);
/*
 * Variable-length string, length <= max, copied and NUL-terminated into out
 * (out holds max + 1 bytes).
 */
bool xdr_string(struct xdr *c, char *out, uint32_t *n, uint32_t max);
/*
 * Variable-length opaque whose bytes are not needed (READ/WRITE data).  The
 * length must be <= max and fit the wire length; bytes not captured are
 * skipped by arithmetic.  If not all of it was captured the cursor is NOT
 * failed: the call returns true and the offset moves past the capture, so
 * a later read fails TRUNCATED (never MALFORMED) unless nothing follows.
 */
bool xdr_skip_opaque(struct xdr *c, uint32_t *n, uint32_t max);
/* Skip n bytes (n a multiple of 4 is not required; no padding added). */
bool xdr_skip(struct xdr *c, uint32_t n);

/* Bytes left on the wire / in the capture. */
static inline uint32_t xdr_wire_left(const struct xdr *c)
{
	return c->len - c->off;
}

static inline uint32_t xdr_cap_left(const struct xdr *c)
{
	return c->off >= c->cap ? 0 : c->cap - c->off;
}

/*
 * The two primitives every decoder calls most are inline: the common case
 * (no error yet, the bytes captured, hence on the wire too since cap <=
 * len) reads in place; anything else goes to the out-of-line version,
 * which sets the error.
 */
bool xdr_u32_slow(struct xdr *c, uint32_t *v);
bool xdr_u64_slow(struct xdr *c, uint64_t *v);
bool xdr_enum_slow(struct xdr *c, uint32_t *v, uint32_t max);
bool xdr_bool_slow(struct xdr *c, bool *v);

static inline uint32_t xdr_load32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static inline bool xdr_u32(struct xdr *c, uint32_t *v)
{
	if (c->err == XDR_OK && xdr_cap_left(c) >= 4) {
		*v = xdr_load32(c->buf + c->off);
		c->off += 4;
		return true;
	}
	return xdr_u32_slow(c, v);
}

/* enum with a range check: malformed if v > max */
static inline bool xdr_enum(struct xdr *c, uint32_t *v, uint32_t max)
{
	if (c->err == XDR_OK && xdr_cap_left(c) >= 4) {
		uint32_t u = xdr_load32(c->buf + c->off);

		if (u <= max) {
			*v = u;
			c->off += 4;
			return true;
		}
	}
	return xdr_enum_slow(c, v, max);
}

/* malformed unless 0 or 1 */
static inline bool xdr_bool(struct xdr *c, bool *v)
{
	if (c->err == XDR_OK && xdr_cap_left(c) >= 4) {
		uint32_t u = xdr_load32(c->buf + c->off);

		if (u <= 1) {
			*v = u != 0;
			c->off += 4;
			return true;
		}
	}
	return xdr_bool_slow(c, v);
}

static inline bool xdr_u64(struct xdr *c, uint64_t *v)
{
	if (c->err == XDR_OK && xdr_cap_left(c) >= 8) {
		*v = (uint64_t)xdr_load32(c->buf + c->off) << 32 |
		     xdr_load32(c->buf + c->off + 4);
		c->off += 8;
		return true;
	}
	return xdr_u64_slow(c, v);
}

#endif
