/*
 * xdr.c - the bounded XDR cursor (RFC 4506).  See xdr.h for the contract.
 *
 * Every primitive first checks the sticky error, then checks the bytes it
 * needs against the wire length (MALFORMED if they are not there: the
 * message is shorter than its own fields say) and then against the capture
 * (TRUNCATED: the snaplen cut it).  All checks compare lengths, never
 * pointers, and padded lengths are computed in 64 bits so a length of
 * 0xFFFFFFFF cannot wrap.
 *
 * Skips (xdr_skip, xdr_skip_opaque) are pure arithmetic on the offset: they
 * fail only if the wire length is exceeded, and may leave off > cap, after
 * which any read fails TRUNCATED.
 */
#include "decode/xdr.h"

#include <string.h>

void
xdr_init(struct xdr *c, const uint8_t *buf, uint32_t cap, uint32_t len)
{
	c->buf = buf;
	c->cap = cap <= len ? cap : len;
	c->len = len;
	c->off = 0;
	c->err = XDR_OK;
	c->err_off = 0;
	c->no_attrs = false;
	c->strict = false;
	c->pass_cut = false;
	c->complete = false;
	c->open = false;
	c->choice_n = 0;
	c->choices = 0;
}

static bool
xdr_fail_at(struct xdr *c, enum xdr_err e, uint32_t off)
{
	if (c->err == XDR_OK) {
		c->err = e;
		c->err_off = off;
	}
	return false;
}

bool
xdr_fail(struct xdr *c, enum xdr_err e)
{
	return xdr_fail_at(c, e, c->off);
}

/* XDR padding of n bytes to a multiple of 4, in 64 bits (no wrap). */
static uint64_t
xdr_padded(uint32_t n)
{
	return ((uint64_t)n + 3) & ~(uint64_t)3;
}

/*
 * Can n bytes be read at the current offset?  Fails MALFORMED past the wire
 * length, TRUNCATED past the capture.
 */
static bool
xdr_need(struct xdr *c, uint64_t n)
{
	if (c->err != XDR_OK)
		return false;
	if (n > xdr_wire_left(c))
		return xdr_fail(c, XDR_MALFORMED);
	if (n > xdr_cap_left(c))
		return xdr_fail(c, XDR_TRUNCATED);
	return true;
}

/*
 * A completing cursor (xdr.h) reads an n-byte field (4 or 8) the capture
 * cut, on the wire, as its captured bytes then the smallest value: zeros,
 * or 1 when every captured byte is zero.  Returns false if it does not
 * apply (not completing, an error, or the field not on the wire).
 */
static bool
xdr_synth(struct xdr *c, uint32_t n, uint64_t *v)
{
	uint32_t have = xdr_cap_left(c), i;
	uint64_t x = 0;

	if (!c->complete || c->err != XDR_OK || n > xdr_wire_left(c) ||
	    have >= n)
		return false;
	for (i = 0; i < n; i++)
		x = x << 8 | (i < have ? c->buf[c->off + i] : 0);
	*v = x != 0 ? x : 1;
	c->off += n;
	return true;
}

bool
xdr_u32_slow(struct xdr *c, uint32_t *v)
{
	uint64_t x;

	if (xdr_synth(c, 4, &x)) {
		*v = (uint32_t)x;
		return true;
	}
	if (!xdr_need(c, 4))
		return false;
	*v = xdr_load32(c->buf + c->off);
	c->off += 4;
	return true;
}

bool
xdr_i32(struct xdr *c, int32_t *v)
{
	uint32_t u;

	if (!xdr_u32(c, &u))
		return false;
	*v = (int32_t)u;	/* two's complement: implementation-defined,
				   but every target we build for wraps */
	return true;
}

bool
xdr_u64_slow(struct xdr *c, uint64_t *v)
{
	if (xdr_synth(c, 8, v))
		return true;
	if (!xdr_need(c, 8))
		return false;
	*v = (uint64_t)xdr_load32(c->buf + c->off) << 32 |
	     xdr_load32(c->buf + c->off + 4);
	c->off += 8;
	return true;
}

bool
xdr_enum_slow(struct xdr *c, uint32_t *v, uint32_t max)
{
	uint32_t u;

	if (!xdr_u32(c, &u))
		return false;
	if (u > max)
		return xdr_fail_at(c, XDR_MALFORMED, c->off - 4);
	*v = u;
	return true;
}

bool
xdr_bool_slow(struct xdr *c, bool *v)
{
	uint32_t u;
	uint64_t x;

	if (xdr_synth(c, 4, &x)) {
		/* a bool the capture cut: the captured bytes must be zeros,
		 * its value is the next choice */
		if (x != 1)
			return xdr_fail_at(c, XDR_MALFORMED, c->off - 4);
		if (c->choice_n >= 32) {
			c->open = true;
			return xdr_fail_at(c, XDR_TRUNCATED, c->off - 4);
		}
		*v = (c->choices >> c->choice_n++ & 1) != 0;
		return true;
	}
	if (!xdr_enum_slow(c, &u, 1))
		return false;
	*v = u != 0;
	return true;
}

/*
 * A pass_cut cursor (shape fitting) takes a string or opaque that runs past
 * the captured bytes but fits the wire as read: the captured part copied,
 * the rest zeroed, the offset past it, so the fields after it are judged
 * against the wire length (a later read fails TRUNCATED as usual).
 */
static bool
xdr_copy_cut(struct xdr *c, void *out, uint32_t n)
{
	uint32_t have = xdr_cap_left(c);

	if (have > n)
		have = n;
	if (have > 0)
		memcpy(out, c->buf + c->off, have);
	memset((uint8_t *)out + have, 0, n - have);
	c->off += (uint32_t)xdr_padded(n);
	return true;
}

/* Copy n bytes and consume them plus their padding. */
static bool
xdr_copy_padded(struct xdr *c, void *out, uint32_t n)
{
	if (c->pass_cut && c->err == XDR_OK &&
	    xdr_padded(n) > xdr_cap_left(c) &&
	    xdr_padded(n) <= xdr_wire_left(c))
		return xdr_copy_cut(c, out, n);
	if (!xdr_need(c, xdr_padded(n)))
		return false;
	if (n > 0)
		memcpy(out, c->buf + c->off, n);
	c->off += (uint32_t)xdr_padded(n);
	return true;
}

bool
xdr_fixed(struct xdr *c, void *out, uint32_t n)
{
	return xdr_copy_padded(c, out, n);
}

/*
 * Read a length word: MALFORMED (at the length word) if it exceeds max or
 * if the padded body does not fit the wire length.
 */
static bool
xdr_len(struct xdr *c, uint32_t *n, uint32_t max)
{
	uint32_t at = c->off;
	uint32_t v;

	if (c->complete && c->err == XDR_OK && xdr_cap_left(c) < 4 &&
	    xdr_wire_left(c) >= 4) {
		c->open = true;	/* any length could follow */
		return xdr_fail(c, XDR_TRUNCATED);
	}
	if (!xdr_u32(c, &v))
		return false;
	if (v > max || xdr_padded(v) > xdr_wire_left(c))
		return xdr_fail_at(c, XDR_MALFORMED, at);
	*n = v;
	return true;
}

bool
xdr_opaque(struct xdr *c, void *out, uint32_t *n, uint32_t max)
{
	uint32_t v;

	if (!xdr_len(c, &v, max))
		return false;
	if (!xdr_copy_padded(c, out, v))
		return false;
	*n = v;
	return true;
}

bool
xdr_string(struct xdr *c, char *out, uint32_t *n, uint32_t max)
{
	uint32_t v;

	if (!xdr_len(c, &v, max))
		return false;
	if (!xdr_copy_padded(c, out, v))
		return false;
	out[v] = '\0';
	*n = v;
	return true;
}

bool
xdr_skip_opaque(struct xdr *c, uint32_t *n, uint32_t max)
{
	uint32_t v;

	if (!xdr_len(c, &v, max))
		return false;
	/* fits the wire (checked by xdr_len): advance by arithmetic */
	c->off += (uint32_t)xdr_padded(v);
	*n = v;
	return true;
}

bool
xdr_skip(struct xdr *c, uint32_t n)
{
	if (c->err != XDR_OK)
		return false;
	if (n > xdr_wire_left(c))
		return xdr_fail(c, XDR_MALFORMED);
	c->off += n;
	return true;
}
