/* keys.c - the writer's caches of the ops table's lookup keys; see
 * keys.h.  Calls db.c's hash only.  Per kind an open-addressing table of a fixed number of slots
 * (value hash, key, the value's bytes); a lookup probes PROBES slots, a
 * value that finds them all taken replaces the first. */
#include "store/keys.h"
#include "store/db.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define PROBES 8

struct kslot {
	uint64_t h;		/* 0: empty */
	int64_t id;
	uint32_t len;
	/* then the value's bytes, the kind's keymax of them */
};

struct kcache {
	uint32_t mask;
	size_t keymax, stride;
	uint8_t *mem;		/* (mask + 1) * stride bytes (owned) */
	/* the slots the last two lookups found, compared before hashing:
	   an op's values are mostly the op's before's (a value is in one
	   slot at most: slots are only ever emptied all together) */
	struct kslot *recent[2];
};

struct store_keys {
	struct kcache c[KEY_N];
};

/* Slots and largest value per kind: hosts and procedures are few; a
 * handle's cache covers the files a capture works on at once. */
static const struct { uint32_t slots; size_t keymax; } kdef[KEY_N] = {
	[KEY_HOST] = { 4096, 20 },
	[KEY_PROC] = { 1024, 12 },
	[KEY_BLOB] = { 65536, 64 },
	[KEY_MACHINE] = { 1024, 64 },
	[KEY_PATH] = { 4096, 256 },
};

struct store_keys *store_keys_new(void)
{
	struct store_keys *k = calloc(1, sizeof(*k));
	int i;

	if (k == NULL)
		return NULL;
	for (i = 0; i < KEY_N; i++) {
		struct kcache *c = &k->c[i];

		c->mask = kdef[i].slots - 1;
		c->keymax = kdef[i].keymax;
		c->stride = (sizeof(struct kslot) + c->keymax + 7) & ~(size_t)7;
		c->mem = calloc(kdef[i].slots, c->stride);
		if (c->mem == NULL) {
			store_keys_free(k);
			return NULL;
		}
	}
	return k;
}

void store_keys_free(struct store_keys *k)
{
	int i;

	if (k == NULL)
		return;
	for (i = 0; i < KEY_N; i++)
		free(k->c[i].mem);
	free(k);
}

void store_keys_reset(struct store_keys *k)
{
	int i;

	for (i = 0; i < KEY_N; i++) {
		memset(k->c[i].mem, 0, (k->c[i].mask + 1) * k->c[i].stride);
		k->c[i].recent[0] = k->c[i].recent[1] = NULL;
	}
}

/* store_hash (db.c), mixed further so that every bit reaches the low
 * ones the slot is taken from (murmur3's finalizer); never 0 (0: an
 * empty slot). */
static uint64_t khash(const void *v, size_t len)
{
	uint64_t h = store_hash(0x9e3779b97f4a7c15ull ^ len, v, len);

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h | 1;
}

static struct kslot *slot_at(const struct kcache *c, uint64_t i)
{
	return (struct kslot *)(c->mem + (i & c->mask) * c->stride);
}

static bool same(const struct kslot *x, uint64_t h, const void *v, size_t len)
{
	return x->h == h && x->len == len && memcmp(x + 1, v, len) == 0;
}

static bool recent_has(const struct kslot *x, const void *v, size_t len)
{
	return x != NULL && x->h != 0 && x->len == len &&
	       memcmp(x + 1, v, len) == 0;
}

bool store_keys_get(struct store_keys *k, enum store_key_kind kind,
		    const void *v, size_t len, int64_t *id)
{
	struct kcache *c = &k->c[kind];
	uint64_t h;
	int i;

	assert(len <= c->keymax);
	for (i = 0; i < 2; i++)
		if (recent_has(c->recent[i], v, len)) {
			*id = c->recent[i]->id;
			return true;
		}
	h = khash(v, len);
	for (i = 0; i < PROBES; i++) {
		struct kslot *x = slot_at(c, h + (uint64_t)i);

		if (x->h == 0)
			return false;
		if (same(x, h, v, len)) {
			c->recent[1] = c->recent[0];
			c->recent[0] = x;
			*id = x->id;
			return true;
		}
	}
	return false;
}

void store_keys_put(struct store_keys *k, enum store_key_kind kind,
		    const void *v, size_t len, int64_t id)
{
	const struct kcache *c = &k->c[kind];
	uint64_t h = khash(v, len);
	struct kslot *x = slot_at(c, h);
	int i;

	assert(len <= c->keymax);
	for (i = 0; i < PROBES; i++) {
		struct kslot *y = slot_at(c, h + (uint64_t)i);

		if (y->h == 0 || same(y, h, v, len)) {
			x = y;
			break;
		}
	}
	x->h = h;
	x->id = id;
	x->len = (uint32_t)len;
	memcpy(x + 1, v, len);
}
