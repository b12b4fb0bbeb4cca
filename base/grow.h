/*
 * grow.h - the one growable array: room for one more element, doubling.
 *
 * Contract: *arrp points to an array of *cap elements of size bytes, n of
 * them used (n <= *cap).  base_grow leaves it when n < *cap; else it
 * reallocates it to twice *cap (first when *cap is 0) and updates *arrp
 * and *cap.  False when out of memory or the size would overflow: *arrp
 * and *cap are kept, the array still valid.  The caller owns the array
 * (free(*arrp)).  Load: amortised O(1) per element; not for the packet
 * path's fixed tables, which never grow.
 */
#ifndef NFSCOPE_BASE_GROW_H
#define NFSCOPE_BASE_GROW_H

#include <stdbool.h>
#include <stddef.h>

bool base_grow(void *arrp, size_t *cap, size_t n, size_t size, size_t first);

#endif
