/* grow.c - the one growable array; see grow.h. */
#include "base/grow.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

bool base_grow(void *arrp, size_t *cap, size_t n, size_t size, size_t first)
{
	size_t c = *cap ? *cap * 2 : first;
	void *p, *q;

	if (n < *cap)
		return true;
	if (c <= *cap || size == 0 || c > SIZE_MAX / size)
		return false;
	memcpy(&p, arrp, sizeof(p));	/* any object pointer type */
	if ((q = realloc(p, c * size)) == NULL)
		return false;
	memcpy(arrp, &q, sizeof(q));
	*cap = c;
	return true;
}
