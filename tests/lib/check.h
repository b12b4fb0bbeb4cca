/*
 * check.h - the C tests' tally: CHECK(e) counts e as passed or failed and
 * prints the line and expression of each failure; main ends with
 * CHECK_SUMMARY() (prints the tally, returns the exit status).
 */
#ifndef NFSCOPE_TESTS_CHECK_H
#define NFSCOPE_TESTS_CHECK_H

#include <stdbool.h>
#include <stdio.h>

static int passed, failed;

static void
check(bool ok, const char *what, int line)
{
	if (ok) {
		passed++;
	} else {
		failed++;
		printf("FAIL line %d: %s\n", line, what);
	}
}

#define CHECK(e) check((e), #e, __LINE__)
#define CHECK_SUMMARY() \
	(printf("%d passed, %d failed\n", passed, failed), failed != 0)

#endif
