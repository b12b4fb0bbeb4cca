/*
 * test_xdr.c - the XDR cursor primitives: bounds, truncated vs malformed,
 * padding, overflowing lengths, sticky errors, skipping uncaptured data.
 */
#include <stdio.h>
#include <string.h>

#include "decode/xdr.h"

#include "tests/lib/check.h"

static void
test_u32_u64_i32(void)
{
	static const uint8_t b[] = {
		0x01, 0x02, 0x03, 0x04,
		0xff, 0xff, 0xff, 0xfe,
		0x00, 0x00, 0x00, 0x01, 0x80, 0x00, 0x00, 0x02,
	};
	struct xdr c;
	uint32_t u;
	int32_t i;
	uint64_t q;

	xdr_init(&c, b, sizeof(b), sizeof(b));
	CHECK(xdr_u32(&c, &u) && u == 0x01020304);
	CHECK(xdr_i32(&c, &i) && i == -2);
	CHECK(xdr_u64(&c, &q) && q == 0x0000000180000002ull);
	CHECK(c.off == 16 && c.err == XDR_OK);
	CHECK(xdr_wire_left(&c) == 0 && xdr_cap_left(&c) == 0);
	/* past the wire: malformed */
	CHECK(!xdr_u32(&c, &u) && c.err == XDR_MALFORMED && c.err_off == 16);
}

static void
test_truncated_vs_malformed(void)
{
	static const uint8_t b[12] = { 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3 };
	struct xdr c;
	uint32_t u;
	uint64_t q;

	/* 6 captured of 12 on the wire */
	xdr_init(&c, b, 6, 12);
	CHECK(xdr_u32(&c, &u) && u == 1);
	CHECK(xdr_cap_left(&c) == 2 && xdr_wire_left(&c) == 8);
	CHECK(!xdr_u32(&c, &u) && c.err == XDR_TRUNCATED && c.err_off == 4);
	/* sticky: a read that would be fine still fails, error unchanged */
	CHECK(!xdr_u32(&c, &u) && c.err == XDR_TRUNCATED && c.err_off == 4);
	CHECK(!xdr_skip(&c, 0));

	/* u64 straddling the wire end: malformed, not truncated */
	xdr_init(&c, b, 12, 12);
	CHECK(xdr_u32(&c, &u));
	CHECK(xdr_u32(&c, &u));
	CHECK(!xdr_u64(&c, &q) && c.err == XDR_MALFORMED && c.err_off == 8);

	/* cap > len is clamped */
	xdr_init(&c, b, 100, 8);
	CHECK(c.cap == 8);
	CHECK(xdr_u32(&c, &u) && xdr_u32(&c, &u) && !xdr_u32(&c, &u));
	CHECK(c.err == XDR_MALFORMED);

	/* xdr_fail: first error wins */
	xdr_init(&c, b, 12, 12);
	CHECK(!xdr_fail(&c, XDR_TRUNCATED));
	CHECK(!xdr_fail(&c, XDR_MALFORMED));
	CHECK(c.err == XDR_TRUNCATED && c.err_off == 0);
}

static void
test_bool_enum(void)
{
	static const uint8_t b[] = { 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2 };
	struct xdr c;
	bool v;
	uint32_t e;

	xdr_init(&c, b, sizeof(b), sizeof(b));
	CHECK(xdr_bool(&c, &v) && v);
	CHECK(xdr_bool(&c, &v) && !v);
	CHECK(!xdr_bool(&c, &v) && c.err == XDR_MALFORMED && c.err_off == 8);

	xdr_init(&c, b, sizeof(b), sizeof(b));
	CHECK(xdr_enum(&c, &e, 1) && e == 1);
	CHECK(xdr_enum(&c, &e, 0) && e == 0);
	e = 77;
	CHECK(!xdr_enum(&c, &e, 1) && e == 77 && c.err == XDR_MALFORMED);
	xdr_init(&c, b + 8, 4, 4);
	CHECK(xdr_enum(&c, &e, 2) && e == 2);
}

static void
test_fixed(void)
{
	static const uint8_t b[] = { 'a', 'b', 'c', 'd', 'e', 0, 0, 0,
				     0, 0, 0, 9 };
	uint8_t out[8];
	struct xdr c;
	uint32_t u;

	xdr_init(&c, b, sizeof(b), sizeof(b));
	CHECK(xdr_fixed(&c, out, 5) && memcmp(out, "abcde", 5) == 0);
	CHECK(c.off == 8);
	CHECK(xdr_u32(&c, &u) && u == 9);

	/* padding past the wire: malformed */
	xdr_init(&c, b, 6, 6);
	CHECK(!xdr_fixed(&c, out, 5) && c.err == XDR_MALFORMED);
	/* data within the wire, cut by the capture */
	xdr_init(&c, b, 6, 12);
	CHECK(!xdr_fixed(&c, out, 5) && c.err == XDR_TRUNCATED);
	/* zero length */
	xdr_init(&c, b, 0, 0);
	CHECK(xdr_fixed(&c, out, 0) && c.off == 0);
	/* huge n must not wrap */
	xdr_init(&c, b, sizeof(b), sizeof(b));
	CHECK(!xdr_fixed(&c, out, 0xFFFFFFFFu) && c.err == XDR_MALFORMED);
}

static void
test_opaque_string(void)
{
	static const uint8_t b[] = {
		0, 0, 0, 5, 'h', 'e', 'l', 'l', 'o', 0, 0, 0,
		0, 0, 0, 3, 'a', 'b', 'c', 0,
	};
	static const uint8_t huge[] = { 0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4 };
	static const uint8_t near[] = { 0xff, 0xff, 0xff, 0xfd, 1, 2, 3, 4 };
	static const uint8_t shortpad[] = { 0, 0, 0, 5, 'h', 'e', 'l', 'l',
					    'o' };
	uint8_t out[16];
	char s[16];
	uint32_t n;
	struct xdr c;

	xdr_init(&c, b, sizeof(b), sizeof(b));
	CHECK(xdr_opaque(&c, out, &n, 16) && n == 5);
	CHECK(memcmp(out, "hello", 5) == 0 && c.off == 12);
	CHECK(xdr_string(&c, s, &n, 3) && n == 3 && strcmp(s, "abc") == 0);
	CHECK(c.off == 20 && c.err == XDR_OK);

	/* longer than max: malformed at the length word */
	xdr_init(&c, b, sizeof(b), sizeof(b));
	CHECK(!xdr_opaque(&c, out, &n, 4) && c.err == XDR_MALFORMED);
	CHECK(c.err_off == 0);
	xdr_init(&c, b, sizeof(b), sizeof(b));
	CHECK(!xdr_string(&c, s, &n, 4) && c.err == XDR_MALFORMED);

	/* 0xFFFFFFFF and 0xFFFFFFFD: no 32-bit wrap of len + pad */
	xdr_init(&c, huge, sizeof(huge), sizeof(huge));
	CHECK(!xdr_skip_opaque(&c, &n, UINT32_MAX) && c.err == XDR_MALFORMED);
	xdr_init(&c, near, sizeof(near), sizeof(near));
	CHECK(!xdr_skip_opaque(&c, &n, UINT32_MAX) && c.err == XDR_MALFORMED);
	CHECK(c.err_off == 0);

	/* padding missing on the wire: malformed */
	xdr_init(&c, shortpad, sizeof(shortpad), sizeof(shortpad));
	CHECK(!xdr_opaque(&c, out, &n, 16) && c.err == XDR_MALFORMED);

	/* within the wire, beyond the capture: truncated */
	xdr_init(&c, b, 8, sizeof(b));
	CHECK(!xdr_opaque(&c, out, &n, 16) && c.err == XDR_TRUNCATED);
	CHECK(c.err_off == 4);
	xdr_init(&c, b, 8, sizeof(b));
	CHECK(!xdr_string(&c, s, &n, 16) && c.err == XDR_TRUNCATED);

	/* length word itself cut */
	xdr_init(&c, b, 2, sizeof(b));
	CHECK(!xdr_opaque(&c, out, &n, 16) && c.err == XDR_TRUNCATED);
}

static void
test_skip_opaque(void)
{
	static const uint8_t b[] = {
		0, 0, 0, 6, 1, 2, 3, 4, 5, 6, 0, 0, 0, 0, 0, 42,
	};
	struct xdr c;
	uint32_t n, u;

	xdr_init(&c, b, sizeof(b), sizeof(b));
	CHECK(xdr_skip_opaque(&c, &n, 100) && n == 6 && c.off == 12);
	CHECK(xdr_u32(&c, &u) && u == 42);

	/* only the length captured: skipped by arithmetic, not failed */
	xdr_init(&c, b, 4, sizeof(b));
	CHECK(xdr_skip_opaque(&c, &n, 100) && n == 6);
	CHECK(c.err == XDR_OK && c.off == 12);
	CHECK(xdr_cap_left(&c) == 0 && xdr_wire_left(&c) == 4);
	/* the next read is truncated, never malformed */
	CHECK(!xdr_u32(&c, &u) && c.err == XDR_TRUNCATED && c.err_off == 12);

	/* nothing follows on the wire: the read past it is malformed */
	xdr_init(&c, b, 4, 12);
	CHECK(xdr_skip_opaque(&c, &n, 100) && c.off == 12);
	CHECK(!xdr_u32(&c, &u) && c.err == XDR_MALFORMED);

	/* max exceeded, wire exceeded */
	xdr_init(&c, b, 4, sizeof(b));
	CHECK(!xdr_skip_opaque(&c, &n, 5) && c.err == XDR_MALFORMED);
	xdr_init(&c, b, 4, 9);
	CHECK(!xdr_skip_opaque(&c, &n, 100) && c.err == XDR_MALFORMED);

	/* xdr_skip: arithmetic, no padding */
	xdr_init(&c, b, 4, sizeof(b));
	CHECK(xdr_skip(&c, 3) && c.off == 3);
	CHECK(xdr_skip(&c, 13) && c.off == 16);
	CHECK(!xdr_skip(&c, 1) && c.err == XDR_MALFORMED);
}

int
main(void)
{
	test_u32_u64_i32();
	test_truncated_vs_malformed();
	test_bool_enum();
	test_fixed();
	test_opaque_string();
	test_skip_opaque();
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
