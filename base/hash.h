/*
 * hash.h - the one hash: FNV-1a, 32 and 64 bits (the constants of
 * http://www.isthe.com/chongo/tech/comp/fnv/).  Every table of nfscope
 * hashes its keys with these, a byte at a time or by its own mix of key
 * words with the same prime.
 *
 * Contract: pure functions of their arguments; h is the running hash
 * (start from BASE_FNV32_INIT / BASE_FNV64_INIT), so keys of several parts
 * hash part by part.  Load: one multiply per byte; inline.
 */
#ifndef NFSCOPE_BASE_HASH_H
#define NFSCOPE_BASE_HASH_H

#include <stddef.h>
#include <stdint.h>

#define BASE_FNV32_INIT 2166136261u
#define BASE_FNV32_PRIME 16777619u
#define BASE_FNV64_INIT 14695981039346656037ull
#define BASE_FNV64_PRIME 1099511628211ull

/* h with the n bytes at p mixed in. */
static inline uint32_t base_fnv32(uint32_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * BASE_FNV32_PRIME;
	return h;
}

static inline uint64_t base_fnv64(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * BASE_FNV64_PRIME;
	return h;
}

#endif
