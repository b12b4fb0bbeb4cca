/*
 * html.h - the one frame of nfscope's HTML pages (report --html in
 * report_html.c, diff --html in diff_html.c): the doctype, the head with
 * the page's title and its CSS, the heading, the end; the escaping of
 * text; and the small pieces both pages write (table cells, a text
 * section as <pre>).  A page is one self-contained file: inline CSS and
 * SVG (svg.h), no script, nothing fetched, readable with JavaScript off.
 *
 * Text from the wire (paths, names, findings' evidence that quotes them)
 * is escaped twice over: ui_esc_str's \xNN for bytes that are not
 * printable ASCII (esc.h), then & < > " as XML entities, so it is safe in
 * a text node and in a quoted attribute.
 *
 * No state; html_pre allocates the section's text for the call's length.
 */
#ifndef NFSCOPE_HTML_H
#define NFSCOPE_HTML_H

#include <stdio.h>

/* The pages; each has its own CSS (and its head the bytes it always had). */
enum html_page { HTML_REPORT, HTML_DIFF, HTML_NPAGES };

/* From the doctype to the page's <h1>: "title: subject" (subject escaped;
 * NULL: the title alone) as the <title> and the heading. */
void html_open(FILE *f, enum html_page page, const char *title,
	       const char *subject);
/* The page's end: </body></html> and a newline. */
void html_close(FILE *f);

/* s (NUL-ended, NULL: nothing) for a text node or attribute, escaped. */
void html_text(FILE *f, const char *s);

/* A table cell of v with digits decimals; of a change in per cent
 * ("+12%", "-" when pct is NaN). */
void html_td(FILE *f, int digits, double v);
void html_td_pct(FILE *f, double pct);

/* The text fn writes for (a, b) as <pre class="cls" id="id">, escaped
 * line by line, blank lines above it dropped; nothing when fn writes
 * nothing.  -1: out of memory. */
int html_pre(FILE *f, const char *cls, const char *id,
	     void (*fn)(FILE *, const void *, const void *), const void *a,
	     const void *b);

#endif
