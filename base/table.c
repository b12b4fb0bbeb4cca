/* table.c - large fixed tables in huge pages (table.h). */
#include "base/table.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#define HUGE_PAGE ((uintptr_t)2 << 20)

void *base_table_calloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

#ifdef MADV_HUGEPAGE
	if (p != NULL && n * size >= BASE_TABLE_HUGE) {	/* calloc checked n * size */
		uintptr_t a = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
		uintptr_t b = ((uintptr_t)p + n * size) & ~(HUGE_PAGE - 1);

		if (b > a)	/* advice only: its failure changes nothing */
			(void)madvise((void *)a, b - a, MADV_HUGEPAGE);
	}
#endif
	return p;
}
