/* paths.c - filehandle -> path table; see paths.h. */
#include "analyze/paths.h"

#include <stdlib.h>
#include <string.h>

struct name_ent {
	uint64_t hash;		/* 0: empty */
	uint64_t stamp;		/* insertion order, for replacement */
	struct cap_addr server;
	struct nfs_fh fh;
	int32_t export_id;
	char path[AN_PATH_MAX];
};

struct an_names {
	struct name_ent *e;
	uint32_t mask;
	uint32_t used;
	uint64_t stamp;
	uint64_t evictions;
	int nexports;
	struct an_export exports[AN_EXPORTS_MAX];
};

struct an_names *an_names_new(uint32_t max)
{
	struct an_names *n;
	uint32_t cap = 64;

	if (max == 0)
		max = 4096;
	while (cap < max && cap < (1u << 30))
		cap <<= 1;
	n = calloc(1, sizeof(*n));
	if (n == NULL)
		return NULL;
	n->e = calloc(cap, sizeof(*n->e));
	if (n->e == NULL) {
		free(n);
		return NULL;
	}
	n->mask = cap - 1;
	return n;
}

void an_names_free(struct an_names *n)
{
	if (n == NULL)
		return;
	free(n->e);
	free(n);
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v;
	h *= 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 32);
}

/* Eight bytes at a time: the byte-wise FNV this replaces was a serial
 * chain of up to 80 multiplies, paid for every delivered op. */
static uint64_t fh_hash(const struct cap_addr *s, const struct nfs_fh *fh)
{
	uint64_t h = 1469598103934665603ull, w;
	uint32_t i, len = fh->len <= NFS_FHSIZE_MAX ? fh->len : NFS_FHSIZE_MAX;

	memcpy(&w, s->a, 8);
	h = mix(h, w);
	memcpy(&w, s->a + 8, 8);
	h = mix(h, w);
	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, fh->data + i, 8);
		h = mix(h, w);
	}
	if (i < len) {
		w = 0;
		memcpy(&w, fh->data + i, len - i);
		h = mix(h, w ^ (uint64_t)len << 56);
	}
	h ^= h >> 29;
	return h ? h : 1;
}

static bool ent_is(const struct name_ent *e, uint64_t h,
		   const struct cap_addr *s, const struct nfs_fh *fh)
{
	return e->hash == h && e->fh.len == fh->len &&
	       cap_addr_eq(&e->server, s) &&
	       memcmp(e->fh.data, fh->data, fh->len <= NFS_FHSIZE_MAX ?
		      fh->len : NFS_FHSIZE_MAX) == 0;
}

static struct name_ent *find(const struct an_names *n, uint64_t h,
			     const struct cap_addr *s, const struct nfs_fh *fh)
{
	uint32_t i, k;

	for (k = 0; k < AN_NAMES_PROBE; k++) {
		i = (uint32_t)(h + k) & n->mask;
		if (n->e[i].hash == 0)
			return NULL;
		if (ent_is(&n->e[i], h, s, fh))
			return &n->e[i];
	}
	return NULL;
}

static struct name_ent *slot(struct an_names *n, uint64_t h,
			     const struct cap_addr *s, const struct nfs_fh *fh)
{
	struct name_ent *old = NULL;
	uint32_t i, k;

	for (k = 0; k < AN_NAMES_PROBE; k++) {
		i = (uint32_t)(h + k) & n->mask;
		if (n->e[i].hash == 0) {
			n->used++;
			return &n->e[i];
		}
		if (ent_is(&n->e[i], h, s, fh))
			return &n->e[i];
		if (old == NULL || n->e[i].stamp < old->stamp)
			old = &n->e[i];
	}
	n->evictions++;
	return old;
}

static void put(struct an_names *n, const struct cap_addr *s,
		const struct nfs_fh *fh, const char *path, int export_id)
{
	uint64_t h;
	struct name_ent *e;
	size_t len;

	if (fh->len == 0 || fh->len > NFS_FHSIZE_MAX)
		return;
	h = fh_hash(s, fh);
	e = slot(n, h, s, fh);
	e->hash = h;
	e->stamp = ++n->stamp;
	e->server = *s;
	e->fh = *fh;
	e->export_id = export_id;
	len = strlen(path);
	if (len >= AN_PATH_MAX) {
		memcpy(e->path, path, AN_PATH_MAX - 4);
		memcpy(e->path + AN_PATH_MAX - 4, "...", 4);
	} else {
		memcpy(e->path, path, len + 1);
	}
}

int an_names_export(struct an_names *n, const struct cap_addr *server,
		    const struct nfs_fh *fh, const char *path)
{
	int i;

	for (i = 0; i < n->nexports; i++) {
		if (cap_addr_eq(&n->exports[i].server, server) &&
		    strcmp(n->exports[i].path, path) == 0)
			break;
	}
	if (i == n->nexports) {
		if (n->nexports == AN_EXPORTS_MAX)
			return -1;
		n->nexports++;
		n->exports[i].server = *server;
		strncpy(n->exports[i].path, path, AN_PATH_MAX - 1);
		n->exports[i].path[AN_PATH_MAX - 1] = '\0';
	}
	n->exports[i].root = *fh;
	put(n, server, fh, n->exports[i].path, i);
	return i;
}

void an_names_child(struct an_names *n, const struct cap_addr *server,
		    const struct nfs_fh *dir, const char *name,
		    const struct nfs_fh *child)
{
	const struct name_ent *d;
	char buf[AN_PATH_MAX * 2];
	size_t dl, nl;

	if (n->used == 0 || dir->len == 0 || dir->len > NFS_FHSIZE_MAX ||
	    name[0] == '\0')
		return;	/* no directory known yet: nothing to extend */
	d = find(n, fh_hash(server, dir), server, dir);
	if (d == NULL)
		return;
	if (!strcmp(name, "."))
		return;
	if (!strcmp(name, "..")) 
		return;	/* the parent's own path is not derivable safely */
	dl = strlen(d->path);
	nl = strlen(name);
	if (dl + nl + 2 > sizeof(buf))
		nl = sizeof(buf) - dl - 2;
	memcpy(buf, d->path, dl);
	if (dl == 0 || d->path[dl - 1] != '/')
		buf[dl++] = '/';
	memcpy(buf + dl, name, nl);
	buf[dl + nl] = '\0';
	put(n, server, child, buf, d->export_id);
}

bool an_names_get(const struct an_names *n, const struct cap_addr *server,
		  const struct nfs_fh *fh, const char **path, int *export_id)
{
	const struct name_ent *e = NULL;

	/* used == 0: nothing learned (no MOUNT in the capture, often) */
	if (n->used && fh->len > 0 && fh->len <= NFS_FHSIZE_MAX)
		e = find(n, fh_hash(server, fh), server, fh);
	if (e == NULL) {
		*path = "";
		*export_id = -1;
		return false;
	}
	*path = e->path;
	*export_id = e->export_id;
	return true;
}

const struct an_export *an_names_export_get(const struct an_names *n, int id)
{
	if (id < 0 || id >= n->nexports)
		return NULL;
	return &n->exports[id];
}

int an_names_export_count(const struct an_names *n)
{
	return n->nexports;
}

uint64_t an_names_evictions(const struct an_names *n)
{
	return n->evictions;
}

uint32_t an_names_count(const struct an_names *n)
{
	return n->used;
}
