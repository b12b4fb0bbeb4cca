/*
 * wrap.h - text that fits a terminal: the default text outputs (report,
 * diff, dump's summary, --every) keep every line within UI_WRAP_COLS
 * columns, except one unbreakable token on its own line.  A long line is
 * broken at spaces; its continuation lines carry the line's own lead (its
 * leading blanks, or "# " and blanks) and an indent.  The text here is
 * already escaped (esc.h): one byte, one column.  --wide turns it off.
 */
#ifndef NFSCOPE_WRAP_H
#define NFSCOPE_WRAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define UI_WRAP_COLS 80

/* Write line s (n bytes, no newline) and a newline to f, broken at spaces
 * into lines of at most width columns (0: not broken). */
void ui_wrap_line(FILE *f, const char *s, size_t n, int width);
/* Every line of s (n bytes) through ui_wrap_line; a last line without a
 * newline gets none. */
void ui_wrap_text(FILE *f, const char *s, size_t n, int width);

/*
 * A text writer's output gathered, then written wrapped: ui_wrap_begin
 * returns the FILE to write to (out itself when width is 0); ui_wrap_end
 * writes what was gathered to out and frees it.  Returns 0, or -1 (out of
 * memory; a message on stderr).
 */
struct ui_wrap {
	FILE *out, *mem;
	char *buf;
	size_t len;
	int width;
};
FILE *ui_wrap_begin(struct ui_wrap *w, FILE *out, int width);
int ui_wrap_end(struct ui_wrap *w);

/* A latency in ms in 6 columns up to 999999: 4 significant digits
 * ("0.074", "16.60", "150.5", "1204").  Returns b. */
const char *ui_fmt_ms(double v, char *b, size_t n);

/* s cut in the middle to at most cols columns ("/export/a...b/file"),
 * into buf (n bytes).  Returns buf. */
char *ui_shorten_mid(char *buf, size_t n, const char *s, size_t cols);

/*
 * src with its zero-valued parts left out, into dst (n bytes): in a list
 * of parts separated by ", " or "; " (outside parentheses), a part that
 * ends in the number 0 ("lost reply 0", "TCP 0", "x 0 (0 of these)")
 * goes; a part's label ("causes: ") stays with the first part kept, or
 * says "none" when every part was zero.  Returns dst.
 */
char *ui_drop_zero_parts(char *dst, size_t n, const char *src);

#endif
