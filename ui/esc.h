/*
 * esc.h - the one escaping of text from the wire (names, paths, machine
 * names, findings' evidence that quotes them) for the text outputs: dump,
 * report's text and CSV.  A byte below 0x20, 0x7f and above, a backslash
 * and any byte of `extra` becomes \xNN, so no ESC sequence, newline or
 * carriage return reaches a terminal or splits a line.  JSON has its own
 * (\u00NN, ui/json.c).
 */
#ifndef NFSCOPE_ESC_H
#define NFSCOPE_ESC_H

#include <stddef.h>
#include <stdio.h>

/* Write s (len bytes) to f, escaped. */
void ui_esc_put(FILE *f, const char *s, size_t len, const char *extra);
/* Copy s (NUL-ended) into dst (n > 0 bytes), escaped and NUL-ended; a
 * cut falls between whole escapes.  Returns dst. */
char *ui_esc_str(char *dst, size_t n, const char *s, const char *extra);

#endif
