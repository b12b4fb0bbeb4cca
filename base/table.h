/*
 * table.h - the packet path's large fixed tables, in huge pages where the
 * system gives them.
 *
 * Contract: base_table_calloc is calloc(n, size) (zeroed, freed with
 * free()), and when the block is at least BASE_TABLE_HUGE bytes asks the
 * kernel (madvise MADV_HUGEPAGE, Linux; elsewhere nothing) to back the
 * 2 MiB-aligned part of it with huge pages as it is first touched.  For
 * tables that every packet reaches at random (the call tables): one TLB
 * entry covers 2 MiB of them instead of 4 KiB, and a page fault fills
 * 2 MiB.  The price: RSS grows in 2 MiB steps within such a table (at
 * most 2 MiB more than its pages touched, per table).  Load: once per
 * table, at start.
 */
#ifndef NFSCOPE_BASE_TABLE_H
#define NFSCOPE_BASE_TABLE_H

#include <stddef.h>

#define BASE_TABLE_HUGE (4u << 20)	/* 4 MiB: smaller tables as they were */

void *base_table_calloc(size_t n, size_t size);

#endif
