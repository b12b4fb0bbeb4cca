/*
 * json.h - a small streaming JSON writer (ui/).
 *
 * Writes to a FILE with no allocation: keys and values are emitted as they
 * come; commas are inserted by tracking, per nesting level, whether a value
 * has already been written.  Strings are escaped; bytes outside printable
 * ASCII become \u00XX so any wire name is valid JSON.
 * Nesting deeper than JW_DEPTH_MAX is a programming error (assert).
 */
#ifndef NFSCOPE_JSON_H
#define NFSCOPE_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "capture/capture.h"

#define JW_DEPTH_MAX 16

struct jw {
	FILE *f;
	int depth;
	bool need_comma[JW_DEPTH_MAX];
};

void jw_init(struct jw *w, FILE *f);
void jw_obj(struct jw *w, const char *key);	/* "key": { (key NULL: bare) */
void jw_arr(struct jw *w, const char *key);	/* "key": [ */
void jw_end_obj(struct jw *w);
void jw_end_arr(struct jw *w);
void jw_u64(struct jw *w, const char *key, uint64_t v);
void jw_i64(struct jw *w, const char *key, int64_t v);
void jw_dbl(struct jw *w, const char *key, double v, int prec);
void jw_bool(struct jw *w, const char *key, bool v);
void jw_null(struct jw *w, const char *key);
void jw_str(struct jw *w, const char *key, const char *s);
void jw_strn(struct jw *w, const char *key, const char *s, size_t n);
void jw_hex(struct jw *w, const char *key, const uint8_t *p, size_t n);
/* "SEC.NNNNNNNNN" */
void jw_time(struct jw *w, const char *key, uint64_t sec, uint32_t nsec);
/* newline after a top-level object */
void jw_newline(struct jw *w);
/* "key": where and why reading stopped (packets, offset or null,
 * reason), or null when e is NULL (dump's summary, report's incomplete). */
void jw_read_error(struct jw *w, const char *key,
		   const struct cap_read_error *e);

#endif
