/* esc.c - escaping text from the wire; see esc.h. */
#include "ui/esc.h"

#include <string.h>

static int needs_esc(unsigned char ch, const char *extra)
{
	return ch < 0x20 || ch >= 0x7f || ch == '\\' ||
	       (extra && ch && strchr(extra, ch));
}

void ui_esc_put(FILE *f, const char *s, size_t len, const char *extra)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (needs_esc(ch, extra))
			fprintf(f, "\\x%02x", ch);
		else
			putc(ch, f);
	}
}

char *ui_esc_str(char *dst, size_t n, const char *s, const char *extra)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;

	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (!needs_esc(ch, extra)) {
			if (o + 1 >= n)
				break;
			dst[o++] = (char)ch;
			continue;
		}
		if (o + 4 >= n)
			break;
		dst[o++] = '\\';
		dst[o++] = 'x';
		dst[o++] = hex[ch >> 4];
		dst[o++] = hex[ch & 15];
	}
	dst[o] = '\0';
	return dst;
}
