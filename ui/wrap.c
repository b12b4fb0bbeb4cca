/* wrap.c - text within 80 columns: lines broken at spaces, keys cut in the
 * middle, zero-valued parts left out; see wrap.h. */
#include "ui/wrap.h"

#include <stdlib.h>
#include <string.h>

/* The lead of a line: its leading blanks, or "#" and the blanks after. */
static size_t lead_len(const char *s, size_t n)
{
	size_t k = 0;

	if (n && s[0] == '#')
		k = 1;
	while (k < n && s[k] == ' ')
		k++;
	return k == n ? 0 : k;
}

static void put_lead(FILE *f, const char *s, size_t lead, size_t extra)
{
	fwrite(s, 1, lead, f);
	while (extra--)
		putc(' ', f);
}

void ui_wrap_line(FILE *f, const char *s, size_t n, int width)
{
	size_t lead = lead_len(s, n), extra, room, p, q, cut;

	if (width <= 0 || n <= (size_t)width) {
		fwrite(s, 1, n, f);
		putc('\n', f);
		return;
	}
	/* continuation: the lead and 2 more blanks (4 under no blank) */
	extra = memchr(s, ' ', lead) ? 2 : 4;
	if (lead + extra > (size_t)width / 2)
		extra = 0;
	fwrite(s, 1, lead, f);
	room = (size_t)width - lead;
	p = lead;
	for (;;) {
		if (n - p <= room) {
			fwrite(s + p, 1, n - p, f);
			putc('\n', f);
			return;
		}
		/* the last space at which what comes before fits */
		cut = 0;
		for (q = p + 1; q <= p + room && q < n; q++)
			if (s[q] == ' ' && s[q - 1] != ' ')
				cut = q;
		if (cut == 0) {	/* one token longer than the room: alone */
			for (cut = p; cut < n && s[cut] != ' '; cut++)
				;
		}
		fwrite(s + p, 1, cut - p, f);
		putc('\n', f);
		while (cut < n && s[cut] == ' ')
			cut++;
		if (cut == n)
			return;
		p = cut;
		put_lead(f, s, lead, extra);
		room = (size_t)width - lead - extra;
	}
}

void ui_wrap_text(FILE *f, const char *s, size_t n, int width)
{
	const char *e;

	while (n) {
		e = memchr(s, '\n', n);
		if (e == NULL) {
			if (width <= 0 || n <= (size_t)width)
				fwrite(s, 1, n, f);
			else
				ui_wrap_line(f, s, n, width);
			return;
		}
		ui_wrap_line(f, s, (size_t)(e - s), width);
		n -= (size_t)(e - s) + 1;
		s = e + 1;
	}
}

FILE *ui_wrap_begin(struct ui_wrap *w, FILE *out, int width)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
	w->width = width;
	if (width <= 0)
		return out;
	w->mem = open_memstream(&w->buf, &w->len);
	if (w->mem == NULL)
		fprintf(stderr, "nfscope: out of memory\n");
	return w->mem;
}

int ui_wrap_end(struct ui_wrap *w)
{
	if (w->mem == NULL)
		return w->width <= 0 ? 0 : -1;
	if (fclose(w->mem) != 0) {
		free(w->buf);
		fprintf(stderr, "nfscope: out of memory\n");
		return -1;
	}
	ui_wrap_text(w->out, w->buf, w->len, w->width);
	free(w->buf);
	w->mem = NULL;
	w->buf = NULL;
	return 0;
}

const char *ui_fmt_ms(double v, char *b, size_t n)
{
	snprintf(b, n, v < 9.9995 ? "%.3f" : v < 99.995 ? "%.2f" :
		 v < 999.95 ? "%.1f" : "%.0f", v);
	return b;
}

char *ui_shorten_mid(char *buf, size_t n, const char *s, size_t cols)
{
	size_t len = strlen(s), head, tail;

	if (n == 0)
		return buf;
	if (len <= cols || cols < 5) {
		snprintf(buf, n, "%s", s);
		return buf;
	}
	/* more of the end (the file's name) than of the start */
	head = (cols - 3) / 3;
	tail = cols - 3 - head;
	snprintf(buf, n, "%.*s...%s", (int)head, s, s + len - tail);
	return buf;
}

/* ------------------------------------------------- zero-valued parts -- */

/* Does part s (n bytes, no label) end in the number 0, a parenthesis
 * after it aside? */
static bool part_zero(const char *s, size_t n)
{
	int depth = 0;

	while (n && s[n - 1] == ' ')
		n--;
	while (n && s[n - 1] == ')') {	/* "x 0 (0 of these)": the 0 */
		size_t k = n;

		for (depth = 0; k > 0; k--) {
			depth += s[k - 1] == ')' ? 1 : s[k - 1] == '(' ? -1 : 0;
			if (depth == 0)
				break;
		}
		if (k == 0)
			return false;
		n = k - 1;
		while (n && s[n - 1] == ' ')
			n--;
	}
	return n >= 1 && s[n - 1] == '0' && (n == 1 || s[n - 2] == ' ');
}

/* The end of the part at s: the next ", " or "; " outside parentheses. */
static const char *part_end(const char *s)
{
	int depth = 0;

	for (; *s; s++) {
		depth += *s == '(' ? 1 : *s == ')' ? -1 : 0;
		if (depth <= 0 && (s[0] == ',' || s[0] == ';') && s[1] == ' ')
			return s;
	}
	return s;
}

/* The length of a part's label ("causes: "), 0: none. */
static size_t label_len(const char *s, size_t n)
{
	int depth = 0;
	size_t k;

	for (k = 0; k + 1 < n; k++) {
		depth += s[k] == '(' ? 1 : s[k] == ')' ? -1 : 0;
		if (depth == 0 && s[k] == ':' && s[k + 1] == ' ')
			return k + 2;
	}
	return 0;
}

struct zbuf {
	char *d;
	size_t n, len;
	char sep;		/* the separator owed before the next part */
	const char *label;	/* a label not yet written, and its length */
	size_t label_n;
};

static void zput(struct zbuf *z, const char *s, size_t n)
{
	if (z->len + n >= z->n)
		n = z->n - 1 - z->len;
	memcpy(z->d + z->len, s, n);
	z->len += n;
	z->d[z->len] = '\0';
}

static void zsep(struct zbuf *z)
{
	char b[2] = { z->sep, ' ' };

	if (z->len)
		zput(z, b, 2);
	z->sep = ',';
}

/* A label all of whose parts were zero: "label none". */
static void zlabel_flush(struct zbuf *z)
{
	if (z->label == NULL)
		return;
	zsep(z);
	zput(z, z->label, z->label_n);
	zput(z, "none", 4);
	z->label = NULL;
}

char *ui_drop_zero_parts(char *dst, size_t n, const char *src)
{
	struct zbuf z = { .d = dst, .n = n, .sep = ',' };
	const char *p = src, *e;
	bool dropped = false;

	if (n == 0)
		return dst;
	dst[0] = '\0';
	for (;;) {
		size_t len, lab;

		e = part_end(p);
		len = (size_t)(e - p);
		lab = label_len(p, len);
		if (lab) {
			zlabel_flush(&z);
			z.label = p;
			z.label_n = lab;
		}
		if (part_zero(p + lab, len - lab)) {
			dropped = true;
		} else {
			zsep(&z);
			if (z.label) {
				zput(&z, z.label, z.label_n);
				z.label = NULL;
			}
			zput(&z, p + lab, len - lab);
		}
		if (*e == '\0')
			break;
		if (*e == ';') {
			zlabel_flush(&z);
			z.sep = ';';
		}
		p = e + 2;
	}
	zlabel_flush(&z);
	if (!dropped || z.len == 0)
		snprintf(dst, n, "%s", src);
	return dst;
}
