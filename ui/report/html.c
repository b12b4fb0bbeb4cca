/* html.c - the frame of the HTML pages and their escaping; see html.h. */
#include "ui/report/html.h"
#include "ui/esc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char report_css[] =
	"body{font-family:sans-serif;margin:1.5em;max-width:1150px;color:#222}"
	"h1{font-size:1.5em}h2{font-size:1.2em;border-bottom:1px solid #ccc;"
	"margin-top:1.6em}pre{background:#f6f6f6;padding:.6em;"
	"white-space:pre-wrap;font-size:12px}"
	"pre.warn{background:#fff3e0;border-left:4px solid #e6550d}"
	"p.ok{color:#2ca02c}figure{margin:.6em 0}"
	"table{border-collapse:collapse;font-size:12px}"
	"td,th{border:1px solid #ddd;padding:2px 6px;text-align:right}"
	"td:first-child,th:first-child{text-align:left}"
	"p.verdict{margin:.2em 0 1em 0}li{margin-bottom:.5em}"
	"figure.size{display:inline-block;vertical-align:top;width:550px;"
	"margin:0 .5em 0 0}";

static const char diff_css[] =
	"body{font-family:sans-serif;margin:1em}table{border-collapse:collapse}"
	"td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}"
	"td:first-child{text-align:left}";

/* A page's head: the <html> and <meta> tags and the line breaks after
 * the title and the head as each page has always written them. */
static const struct frame {
	const char *html, *meta, *css, *nl;
} frames[HTML_NPAGES] = {
	[HTML_REPORT] = { "<html lang=\"en\">", "<meta charset=\"utf-8\">",
			  report_css, "\n" },
	[HTML_DIFF] = { "<html>", "<meta charset=\"utf-8\"/>", diff_css, "" },
};

static void title_of(FILE *f, const char *title, const char *subject)
{
	html_text(f, title);
	if (subject != NULL) {
		fputs(": ", f);
		html_text(f, subject);
	}
}

void html_open(FILE *f, enum html_page page, const char *title,
	       const char *subject)
{
	const struct frame *fr = &frames[page];

	fprintf(f, "<!DOCTYPE html>\n%s<head>%s<title>", fr->html, fr->meta);
	title_of(f, title, subject);
	fprintf(f, "</title>%s<style>%s</style></head>%s<body>\n<h1>", fr->nl,
		fr->css, fr->nl);
	title_of(f, title, subject);
	fputs("</h1>\n", f);
}

void html_close(FILE *f)
{
	fputs("</body></html>\n", f);
}

void html_text(FILE *f, const char *s)
{
	char in[256], b[4 * sizeof(in) + 1];
	const char *p;
	size_t n;

	/* in pieces: escaping is byte by byte, so no cut shows */
	for (; s && *s; s += n) {
		n = strnlen(s, sizeof(in) - 1);
		memcpy(in, s, n);
		in[n] = '\0';
		ui_esc_str(b, sizeof(b), in, NULL);
		for (p = b; *p; p++) {
			switch (*p) {
			case '&': fputs("&amp;", f); break;
			case '<': fputs("&lt;", f); break;
			case '>': fputs("&gt;", f); break;
			case '"': fputs("&quot;", f); break;
			default: fputc(*p, f);
			}
		}
	}
}

void html_td(FILE *f, int digits, double v)
{
	fprintf(f, "<td>%.*f</td>", digits, v);
}

void html_td_pct(FILE *f, double pct)
{
	if (isnan(pct))
		fputs("<td>-</td>", f);
	else
		fprintf(f, "<td>%+.0f%%</td>", pct);
}

int html_pre(FILE *f, const char *cls, const char *id,
	     void (*fn)(FILE *, const void *, const void *), const void *a,
	     const void *b)
{
	char *buf = NULL, *line, *nl;
	size_t n = 0;
	FILE *m = open_memstream(&buf, &n);

	if (m == NULL)
		return -1;
	fn(m, a, b);
	if (fclose(m) != 0) {
		free(buf);
		return -1;
	}
	for (line = buf; *line == '\n'; line++)
		;			/* a section's blank line above it */
	if (*line) {
		fprintf(f, "<pre class=\"%s\" id=\"%s\">", cls, id);
		for (; *line; line = nl + 1) {
			if ((nl = strchr(line, '\n')) == NULL)
				nl = line + strlen(line) - 1;
			else
				*nl = '\0';
			html_text(f, line);
			fputc('\n', f);
		}
		fputs("</pre>\n", f);
	}
	free(buf);
	return 0;
}
