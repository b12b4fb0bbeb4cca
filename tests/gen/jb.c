/* jb.c - a JSON writer into a growable memory buffer (nfsgen). */
#include "gen.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

static void jb_grow(struct jb *j, size_t n)
{
	if (j->len + n <= j->cap)
		return;
	while (j->len + n > j->cap)
		j->cap = j->cap ? j->cap * 2 : 4096;
	j->p = realloc(j->p, j->cap);
	if (!j->p)
		abort();
}

void jb_init(struct jb *j)
{
	memset(j, 0, sizeof(*j));
	jb_grow(j, 4096);
	jb_reset(j);
}

void jb_reset(struct jb *j)
{
	j->len = 0;
	j->depth = 1;
	j->comma[1] = false;
}

void jb_raw(struct jb *j, const char *s, size_t n)
{
	jb_grow(j, n);
	memcpy(j->p + j->len, s, n);
	j->len += n;
}

static inline void jb_c(struct jb *j, char c)
{
	jb_grow(j, 1);
	j->p[j->len++] = c;
}

static void jb_key(struct jb *j, const char *key)
{
	if (j->comma[j->depth])
		jb_c(j, ',');
	j->comma[j->depth] = true;
	if (key) {
		size_t n = strlen(key);

		jb_grow(j, n + 3);
		j->p[j->len++] = '"';
		memcpy(j->p + j->len, key, n);
		j->len += n;
		j->p[j->len++] = '"';
		j->p[j->len++] = ':';
	}
}

void jb_obj(struct jb *j, const char *key)
{
	jb_key(j, key);
	jb_c(j, '{');
	assert(j->depth + 1 < JB_DEPTH);
	j->comma[++j->depth] = false;
}

void jb_end_obj(struct jb *j)
{
	jb_c(j, '}');
	j->depth--;
}

void jb_arr(struct jb *j, const char *key)
{
	jb_key(j, key);
	jb_c(j, '[');
	assert(j->depth + 1 < JB_DEPTH);
	j->comma[++j->depth] = false;
}

void jb_end_arr(struct jb *j)
{
	jb_c(j, ']');
	j->depth--;
}

static void jb_num(struct jb *j, uint64_t v)
{
	char b[24];
	int i = 24;

	do {
		b[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	jb_raw(j, b + i, (size_t)(24 - i));
}

void jb_u64(struct jb *j, const char *key, uint64_t v)
{
	jb_key(j, key);
	jb_num(j, v);
}

void jb_i64(struct jb *j, const char *key, int64_t v)
{
	jb_key(j, key);
	if (v < 0) {
		jb_c(j, '-');
		jb_num(j, (uint64_t)0 - (uint64_t)v);
	} else {
		jb_num(j, (uint64_t)v);
	}
}

void jb_bool(struct jb *j, const char *key, bool v)
{
	jb_key(j, key);
	if (v)
		jb_raw(j, "true", 4);
	else
		jb_raw(j, "false", 5);
}

void jb_strn(struct jb *j, const char *key, const char *s, size_t n)
{
	static const char hx[] = "0123456789abcdef";

	jb_key(j, key);
	jb_grow(j, n * 6 + 2);
	j->p[j->len++] = '"';
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\') {
			j->p[j->len++] = '\\';
			j->p[j->len++] = (char)c;
		} else if (c < 0x20 || c > 0x7e) {
			memcpy(j->p + j->len, "\\u00", 4);
			j->len += 4;
			j->p[j->len++] = hx[c >> 4];
			j->p[j->len++] = hx[c & 15];
		} else {
			j->p[j->len++] = (char)c;
		}
	}
	j->p[j->len++] = '"';
}

void jb_str(struct jb *j, const char *key, const char *s)
{
	jb_strn(j, key, s, strlen(s));
}

void jb_hex(struct jb *j, const char *key, const void *p, size_t n)
{
	static const char hx[] = "0123456789abcdef";
	const uint8_t *b = p;

	jb_key(j, key);
	jb_grow(j, n * 2 + 2);
	j->p[j->len++] = '"';
	for (size_t i = 0; i < n; i++) {
		j->p[j->len++] = hx[b[i] >> 4];
		j->p[j->len++] = hx[b[i] & 15];
	}
	j->p[j->len++] = '"';
}

void jb_time(struct jb *j, const char *key, uint32_t sec, uint32_t nsec)
{
	char b[32];
	int n = snprintf(b, sizeof(b), "\"%u.%09u\"", sec, nsec);

	jb_key(j, key);
	jb_raw(j, b, (size_t)n);
}
