/*
 * diff.h - `nfscope diff A B`: two captures, databases or runs compared
 * (analyze/diff.h computes, these files only format): text and --json in
 * diff.c, --html in diff_html.c.  Internal to ui/.
 */
#ifndef NFSCOPE_UI_DIFF_H
#define NFSCOPE_UI_DIFF_H

#include <stdio.h>

#include "analyze/diff.h"
#include "ui/times.h"

/* The names of A and B as the outputs print them. */
struct diff_names {
	const char *a, *b;
	enum ui_time_mode tmode;
	bool wide;		/* --wide: text not fitted to 80 columns */
};

/* The page (diff_html.c): 0, or -1 if it could not be written. */
int diff_html(FILE *f, const struct an_diff *d, const struct diff_names *n);

/* The `diff` subcommand; argv[0] is "diff".  Returns the exit status. */
int ui_diff_main(int argc, char **argv);

#endif
