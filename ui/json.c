/* json.c - streaming JSON writer; see json.h. */
#include "ui/json.h"

#include <assert.h>
#include <inttypes.h>
#include <string.h>

void jw_init(struct jw *w, FILE *f)
{
	memset(w, 0, sizeof(*w));
	w->f = f;
}

static void jw_sep(struct jw *w)
{
	if (w->need_comma[w->depth])
		putc(',', w->f);
	w->need_comma[w->depth] = true;
}

static void jw_escaped(FILE *f, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";

	putc('"', f);
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch == '"' || ch == '\\') {
			putc('\\', f);
			putc(ch, f);
		} else if (ch < 0x20 || ch >= 0x7f) {
			fputs("\\u00", f);
			putc(hex[ch >> 4], f);
			putc(hex[ch & 15], f);
		} else {
			putc(ch, f);
		}
	}
	putc('"', f);
}

static void jw_key(struct jw *w, const char *key)
{
	jw_sep(w);
	if (key) {
		jw_escaped(w->f, key, strlen(key));
		putc(':', w->f);
	}
}

static void jw_open(struct jw *w, const char *key, int ch)
{
	jw_key(w, key);
	putc(ch, w->f);
	assert(w->depth + 1 < JW_DEPTH_MAX);
	w->depth++;
	w->need_comma[w->depth] = false;
}

void jw_obj(struct jw *w, const char *key)
{
	jw_open(w, key, '{');
}

void jw_arr(struct jw *w, const char *key)
{
	jw_open(w, key, '[');
}

void jw_end_obj(struct jw *w)
{
	assert(w->depth > 0);
	w->depth--;
	putc('}', w->f);
}

void jw_end_arr(struct jw *w)
{
	assert(w->depth > 0);
	w->depth--;
	putc(']', w->f);
}

void jw_u64(struct jw *w, const char *key, uint64_t v)
{
	jw_key(w, key);
	fprintf(w->f, "%" PRIu64, v);
}

void jw_i64(struct jw *w, const char *key, int64_t v)
{
	jw_key(w, key);
	fprintf(w->f, "%" PRId64, v);
}

void jw_dbl(struct jw *w, const char *key, double v, int prec)
{
	jw_key(w, key);
	fprintf(w->f, "%.*f", prec, v);
}

void jw_bool(struct jw *w, const char *key, bool v)
{
	jw_key(w, key);
	fputs(v ? "true" : "false", w->f);
}

void jw_null(struct jw *w, const char *key)
{
	jw_key(w, key);
	fputs("null", w->f);
}

void jw_str(struct jw *w, const char *key, const char *s)
{
	jw_strn(w, key, s, strlen(s));
}

void jw_strn(struct jw *w, const char *key, const char *s, size_t n)
{
	jw_key(w, key);
	jw_escaped(w->f, s, n);
}

void jw_hex(struct jw *w, const char *key, const uint8_t *p, size_t n)
{
	static const char hex[] = "0123456789abcdef";

	jw_key(w, key);
	putc('"', w->f);
	for (size_t i = 0; i < n; i++) {
		putc(hex[p[i] >> 4], w->f);
		putc(hex[p[i] & 15], w->f);
	}
	putc('"', w->f);
}

void jw_time(struct jw *w, const char *key, uint64_t sec, uint32_t nsec)
{
	jw_key(w, key);
	fprintf(w->f, "\"%" PRIu64 ".%09" PRIu32 "\"", sec, nsec);
}

void jw_newline(struct jw *w)
{
	putc('\n', w->f);
	w->need_comma[0] = false;
}

void jw_read_error(struct jw *w, const char *key,
		   const struct cap_read_error *e)
{
	if (e == NULL) {
		jw_null(w, key);
		return;
	}
	jw_obj(w, key);
	jw_u64(w, "packets", e->packets);
	if (e->offset >= 0)
		jw_i64(w, "offset", e->offset);
	else
		jw_null(w, "offset");
	jw_str(w, "reason", e->why);
	jw_end_obj(w);
}
