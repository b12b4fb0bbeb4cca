/* figs.c - aggregates over operation records; see figs.h. */
#include "analyze/figs.h"
#include "base/units.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>


#define ROWS_MAX_DEFAULT 4096
#define FILES_MAX_DEFAULT 2048
#define PAIRS_MAX_DEFAULT 512
#define SERVERS_MAX_DEFAULT 256
#define IVL_MAX_DEFAULT 86400
#define BLOCK 256		/* rows per allocation block */

/* A growable vector of fixed-address objects, allocated BLOCK at a time. */
struct vec {
	void **blk;
	uint32_t n, nblk, size;
};

static void *vec_at(const struct vec *v, uint32_t k)
{
	return (char *)v->blk[k / BLOCK] + (size_t)(k % BLOCK) * v->size;
}

static void *vec_add(struct vec *v)
{
	if (v->n % BLOCK == 0) {
		uint32_t b = v->n / BLOCK;

		if (b == v->nblk) {
			uint32_t nb = v->nblk ? 2 * v->nblk : 8;
			void **p = realloc(v->blk, nb * sizeof(*p));

			if (p == NULL)
				return NULL;
			v->blk = p;
			v->nblk = nb;
		}
		v->blk[b] = calloc(BLOCK, v->size);
		if (v->blk[b] == NULL)
			return NULL;
	}
	return vec_at(v, v->n++);
}

static void vec_free(struct vec *v)
{
	uint32_t b;

	for (b = 0; b * BLOCK < v->n; b++)
		free(v->blk[b]);
	free(v->blk);
}

/* Open-addressing index: hash -> object number + 1 (0 empty). */
struct index {
	uint64_t *h;
	uint32_t *id;
	uint32_t mask;
};

static bool index_init(struct index *x, uint32_t max)
{
	uint32_t cap = 16;

	while (cap < 2 * max)
		cap <<= 1;
	x->h = calloc(cap, sizeof(*x->h));
	x->id = calloc(cap, sizeof(*x->id));
	x->mask = cap - 1;
	return x->h && x->id;
}

static void index_fini(struct index *x)
{
	free(x->h);
	free(x->id);
}

struct row_key {
	uint32_t group, prog, vers, proc;
	int32_t export_id;
	struct cap_addr addr;
	struct nfs_fh fh;
};

/*
 * A cell: the finest grouping of an op short of files, (client, server,
 * export, prog, vers, proc).  an_figs_add accumulates into one cell; the
 * seven rows it feeds (op, client x proc, client, server x proc, server,
 * export x proc, export) are looked up (created, or found dropped) once,
 * when the cell is created, in the order rows_add would have tried them, so
 * row order and the rows budget are as if every op updated every row.
 * Their sums are folded in at the first read after adds (fold()).  Status
 * slots are order-sensitive (first 8 statuses seen), so errors update the
 * rows' slots directly.
 */
#define CELL_UP 7

struct cell_key {
	struct cap_addr client, server;
	int32_t export_id;
	uint32_t prog, vers, proc;
};

struct cell {
	struct cell_key key;
	uint32_t ndropped;		/* NULL entries in up[] */
	struct an_row *up[CELL_UP];	/* NULL: that row was dropped */
	uint64_t calls, answered, unanswered, errors, rpc_errors;
	uint64_t reply_not_seen;
	uint64_t retrans, retrans_ops, late_retrans, dup_replies;
	uint64_t bytes, data_bytes, truncated;
	struct hist lat, ivl;
	/* latency from the last transmission: where it differs from lat
	   (retransmitted calls) the two values go to lat_xf and lat_xl, so
	   fold() has lat_last = lat - lat_xf + lat_xl; its exact sum, min and
	   max are kept here (count: lat.count) */
	struct hist lat_xf, lat_xl;
	double ll_sum;
	uint64_t ll_min, ll_max;
};

struct an_figs {
	struct an_figs_config cfg;
	struct vec rows[AN_BY_N];
	struct index rix, fix;	/* rows but files; file rows (hot: per op) */
	uint32_t nrows_total, nfiles;
	struct vec cells;
	struct index cix;
	bool unfolded;		/* cells hold sums not yet in rows */
	struct vec pairs, servers;
	struct index pix, six;
	struct an_interval *ivl;
	struct an_interval ivl_void;	/* intervals_counted: interval_get's
					   answer for a counted interval
					   (nothing is added to it) */
	uint32_t nivl, ivl_cap;
	int64_t ivl_base;	/* interval number of ivl[0] */
	struct an_figs_totals tot;
	/* an_figs_push: ops [pout, pin) wait in pipe[k % PIPE] */
	struct pipe_slot *pipe;
	uint32_t pin, pout;
};

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v;
	h *= 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 32);
}

static uint64_t hash_bytes(uint64_t h, const uint8_t *p, size_t n)
{
	uint64_t w;

	for (; n >= 8; p += 8, n -= 8) {
		memcpy(&w, p, 8);
		h = mix(h, w);
	}
	if (n) {
		w = 0;
		memcpy(&w, p, n);
		h = mix(h, w ^ (uint64_t)n << 59);
	}
	return h;
}

static uint64_t addr_hash(uint64_t h, const struct cap_addr *a)
{
	uint64_t w0, w1;

	memcpy(&w0, a->a, 8);
	memcpy(&w1, a->a + 8, 8);	/* zero beyond the address (cap.h) */
	return mix(mix(h, w0 ^ (uint64_t)a->family << 56), w1);
}

static uint64_t key_hash(const struct row_key *k)
{
	uint64_t h = mix(mix(mix(k->group, k->prog), k->vers), k->proc);

	h = mix(h, (uint32_t)k->export_id);
	h = addr_hash(h, &k->addr);
	h = hash_bytes(h, k->fh.data, k->fh.len);
	return h ? h : 1;
}

static bool row_is(const struct an_row *r, const struct row_key *k)
{
	return r->group == k->group && r->proc == k->proc &&
	       r->prog == k->prog && r->vers == k->vers &&
	       r->export_id == k->export_id && cap_addr_eq(&r->addr, &k->addr) &&
	       r->fh.len == k->fh.len &&
	       memcmp(r->fh.data, k->fh.data, k->fh.len) == 0;
}

struct an_figs *an_figs_new(const struct an_figs_config *cfg)
{
	struct an_figs *f = calloc(1, sizeof(*f));
	int g;

	if (f == NULL)
		return NULL;
	if (cfg)
		f->cfg = *cfg;
	if (!f->cfg.rows_max)
		f->cfg.rows_max = ROWS_MAX_DEFAULT;
	if (!f->cfg.files_max)
		f->cfg.files_max = FILES_MAX_DEFAULT;
	if (!f->cfg.pairs_max)
		f->cfg.pairs_max = PAIRS_MAX_DEFAULT;
	if (!f->cfg.servers_max)
		f->cfg.servers_max = SERVERS_MAX_DEFAULT;
	if (f->cfg.interval_ns <= 0)
		f->cfg.interval_ns = NSEC_PER_SEC;
	if (!f->cfg.intervals_max)
		f->cfg.intervals_max = IVL_MAX_DEFAULT;
	for (g = 0; g < AN_BY_N; g++)
		f->rows[g].size = sizeof(struct an_row);
	f->cells.size = sizeof(struct cell);
	f->pairs.size = sizeof(struct an_pair);
	f->servers.size = sizeof(struct an_server);
	if (!index_init(&f->rix, f->cfg.rows_max) ||
	    !index_init(&f->fix, f->cfg.files_max) ||
	    !index_init(&f->cix, f->cfg.rows_max) ||
	    !index_init(&f->pix, f->cfg.pairs_max) ||
	    !index_init(&f->six, f->cfg.servers_max)) {
		an_figs_free(f);
		return NULL;
	}
	return f;
}

void an_figs_free(struct an_figs *f)
{
	uint32_t k;
	int g;

	if (f == NULL)
		return;
	for (g = 0; g < AN_BY_N; g++) {
		for (k = 0; k < f->rows[g].n; k++) {
			struct an_row *r = vec_at(&f->rows[g], k);

			hist_fini(&r->lat);
			hist_fini(&r->lat_last);
			hist_fini(&r->ivl);
		}
		vec_free(&f->rows[g]);
	}
	for (k = 0; k < f->cells.n; k++) {
		struct cell *c = vec_at(&f->cells, k);

		hist_fini(&c->lat);
		hist_fini(&c->lat_xf);
		hist_fini(&c->lat_xl);
		hist_fini(&c->ivl);
	}
	vec_free(&f->cells);
	index_fini(&f->cix);
	vec_free(&f->pairs);
	vec_free(&f->servers);
	index_fini(&f->rix);
	index_fini(&f->fix);
	index_fini(&f->pix);
	index_fini(&f->six);
	free(f->ivl);
	free(f->pipe);
	free(f);
}

/* ------------------------------------------------------------- rows -- */

/* The row of k (hash h: key_hash(k), or 0 to compute it). */
static struct an_row *row_get_h(struct an_figs *f, const struct row_key *k,
				uint64_t h)
{
	struct index *x = k->group == AN_BY_FILE ? &f->fix : &f->rix;
	struct vec *v = &f->rows[k->group];
	struct an_row *r;
	uint32_t i, id;

	if (h == 0)
		h = key_hash(k);
	i = (uint32_t)h & x->mask;
	for (;;) {
		if (x->id[i] == 0)
			break;
		if (x->h[i] == h) {
			id = x->id[i] - 1;
			r = vec_at(&f->rows[id >> 24], id & 0xffffff);
			if (row_is(r, k))
				return r;
		}
		i = (i + 1) & x->mask;
	}
	if (k->group == AN_BY_FILE ? f->nfiles >= f->cfg.files_max :
	    f->nrows_total >= f->cfg.rows_max) {
		if (k->group == AN_BY_FILE)
			f->tot.files_dropped++;
		else
			f->tot.rows_dropped++;
		return NULL;
	}
	r = vec_add(v);
	if (r == NULL) {
		f->tot.rows_dropped++;
		return NULL;
	}
	if (k->group == AN_BY_FILE)
		f->nfiles++;
	else
		f->nrows_total++;
	r->group = (uint8_t)k->group;
	r->addr = k->addr;
	r->export_id = k->export_id;
	r->fh = k->fh;
	r->prog = k->prog;
	r->vers = k->vers;
	r->proc = k->proc;
	x->h[i] = h;
	x->id[i] = ((uint32_t)k->group << 24 | (v->n - 1)) + 1;
	return r;
}

static struct an_row *row_get(struct an_figs *f, const struct row_key *k)
{
	return row_get_h(f, k, 0);
}

/* Count an op's NFS/MOUNT status in r's slots (the op is an error). */
static void status_add(struct an_row *r, const struct an_op *op)
{
	uint32_t k;

	if (op->reply_stat != RPC_MSG_ACCEPTED || op->accept_stat != RPC_SUCCESS)
		return;
	for (k = 0; k < AN_STATUS_SLOTS; k++) {
		if (r->st[k].n == 0)
			r->st[k].status = op->status;
		if (r->st[k].status == op->status) {
			r->st[k].n++;
			return;
		}
	}
	r->st_other++;
}

/*
 * The sums of an op, into a row or a cell (same field names); `err` is
 * an_op_is_error(op).  Status slots and the latency from the last
 * transmission are the caller's.
 */
#define ACC_ADD(r, op, db, err) do {					\
	(r)->calls++;							\
	(r)->bytes += (op)->call_len + (op)->reply_len;			\
	(r)->data_bytes += (db);					\
	if ((op)->flags & (AN_OP_CALL_TRUNC | AN_OP_REPLY_TRUNC))	\
		(r)->truncated++;					\
	if ((op)->retrans) {						\
		(r)->retrans += (op)->retrans;				\
		(r)->retrans_ops++;					\
		hist_add(&(r)->ivl, (uint64_t)(op)->retrans_ivl_first_ns); \
	}								\
	if ((op)->flags & AN_OP_LATE_RETRANS)				\
		(r)->late_retrans++;					\
	(r)->dup_replies += (op)->dup_replies;				\
	if (!((op)->flags & AN_OP_ANSWERED)) {				\
		if ((op)->flags & AN_OP_REPLY_HIDDEN)			\
			(r)->reply_not_seen++;				\
		else							\
			(r)->unanswered++;				\
	} else {							\
		(r)->answered++;					\
		hist_add(&(r)->lat, (uint64_t)(op)->lat_first_ns);	\
		if (err) {						\
			(r)->errors++;					\
			if ((op)->reply_stat != RPC_MSG_ACCEPTED ||	\
			    (op)->accept_stat != RPC_SUCCESS)		\
				(r)->rpc_errors++;			\
		}							\
	}								\
} while (0)

static void row_add(struct an_row *r, const struct an_op *op, uint64_t db,
		    bool err)
{
	ACC_ADD(r, op, db, err);
	if (op->flags & AN_OP_ANSWERED)
		hist_add(&r->lat_last, (uint64_t)op->lat_last_ns);
	if (err)
		status_add(r, op);
}

static void cell_add(struct cell *c, const struct an_op *op, uint64_t db,
		     bool err)
{
	uint64_t l = (uint64_t)op->lat_last_ns;

	ACC_ADD(c, op, db, err);
	if (!(op->flags & AN_OP_ANSWERED))
		return;
	if (c->answered == 1 || l < c->ll_min)
		c->ll_min = l;
	if (c->answered == 1 || l > c->ll_max)
		c->ll_max = l;
	c->ll_sum += (double)l;
	if (op->lat_last_ns != op->lat_first_ns) {
		hist_add(&c->lat_xf, (uint64_t)op->lat_first_ns);
		hist_add(&c->lat_xl, l);
	}
}

/*
 * The rows of an op but its file row, in the order they were always tried;
 * with up != NULL, record them (NULL: dropped) instead of adding the op.
 */
static void rows_walk(struct an_figs *f, const struct an_op *op, uint64_t db,
		      bool err, struct an_row **up)
{
	struct row_key k;
	struct an_row *r;
	int g, n = 0;

	memset(&k, 0, sizeof(k));
	k.prog = op->prog;
	k.vers = op->vers;
	k.export_id = -1;
	for (g = AN_BY_OP; g < AN_BY_FILE; g++) {
		k.group = (uint32_t)g;
		switch (g) {
		case AN_BY_CLIENT:
			k.addr = op->client;
			break;
		case AN_BY_SERVER:
			k.addr = op->server;
			break;
		case AN_BY_EXPORT:
			k.addr = op->server;
			k.export_id = (op->have & AN_HAVE_EXPORT) ? op->export_id : -1;
			break;
		default:
			break;
		}
		k.proc = op->proc;
		r = row_get(f, &k);
		if (up)
			up[n++] = r;
		else if (r)
			row_add(r, op, db, err);
		if (g == AN_BY_OP)
			continue;
		k.prog = k.vers = 0;
		k.proc = AN_PROC_ALL;
		r = row_get(f, &k);
		if (up)
			up[n++] = r;
		else if (r)
			row_add(r, op, db, err);
		k.prog = op->prog;
		k.vers = op->vers;
	}
}

static void cell_key_of(struct cell_key *k, const struct an_op *op)
{
	memset(k, 0, sizeof(*k));
	k->client = op->client;
	k->server = op->server;
	k->export_id = (op->have & AN_HAVE_EXPORT) ? op->export_id : -1;
	k->prog = op->prog;
	k->vers = op->vers;
	k->proc = op->proc;
}

static void file_key_of(struct row_key *k, const struct an_op *op)
{
	memset(k, 0, sizeof(*k));
	k->group = AN_BY_FILE;
	k->addr = op->server;
	k->export_id = -1;
	k->fh = op->fh;
	k->proc = AN_PROC_ALL;
}

static uint64_t cell_hash(const struct cell_key *k)
{
	uint64_t h = mix(mix(k->prog, (uint64_t)k->vers << 32 | k->proc),
			 (uint32_t)k->export_id);

	h = addr_hash(addr_hash(h, &k->client), &k->server);
	return h ? h : 1;
}

static bool cell_is(const struct cell *c, const struct cell_key *k)
{
	return c->key.proc == k->proc && c->key.prog == k->prog &&
	       c->key.vers == k->vers && c->key.export_id == k->export_id &&
	       cap_addr_eq(&c->key.client, &k->client) &&
	       cap_addr_eq(&c->key.server, &k->server);
}

/* The op's cell (hash h: cell_hash of its key, or 0 to compute it),
 * created (with its rows) if new; NULL: no room. */
static struct cell *cell_get(struct an_figs *f, const struct an_op *op,
			     uint64_t h)
{
	struct cell_key k;
	struct cell *c;
	uint32_t i, j;

	cell_key_of(&k, op);
	if (h == 0)
		h = cell_hash(&k);
	for (i = (uint32_t)h & f->cix.mask; f->cix.id[i];
	     i = (i + 1) & f->cix.mask) {
		if (f->cix.h[i] == h) {
			c = vec_at(&f->cells, f->cix.id[i] - 1);
			if (cell_is(c, &k))
				return c;
		}
	}
	if (f->cells.n >= f->cfg.rows_max || (c = vec_add(&f->cells)) == NULL)
		return NULL;
	c->key = k;
	rows_walk(f, op, 0, false, c->up);
	for (j = 0; j < CELL_UP; j++)
		c->ndropped += c->up[j] == NULL;
	f->tot.rows_dropped -= c->ndropped;	/* the caller counts them */
	f->cix.h[i] = h;
	f->cix.id[i] = f->cells.n;
	return c;
}

/* ch, rh: the op's cell hash and file row hash (stage0), or 0 */
static void rows_add(struct an_figs *f, const struct an_op *op, uint64_t db,
		     uint64_t ch, uint64_t rh)
{
	bool err = an_op_is_error(op);
	struct row_key k;
	struct an_row *r;
	struct cell *c;
	uint32_t j;

	c = cell_get(f, op, ch);
	if (c == NULL) {
		rows_walk(f, op, db, err, NULL);
	} else {
		f->unfolded = true;
		cell_add(c, op, db, err);
		f->tot.rows_dropped += c->ndropped;
		if (err)
			for (j = 0; j < CELL_UP; j++)
				if (c->up[j])
					status_add(c->up[j], op);
	}
	if (!(op->have & AN_HAVE_FH))
		return;
	file_key_of(&k, op);
	if ((r = row_get_h(f, &k, rh)) != NULL) {
		row_add(r, op, db, err);
		if (op->have & AN_HAVE_PATH)
			memcpy(r->path, op->path, sizeof(r->path));
	}
}

/* Move the sums held by cells into their rows (exact: integer sums and
 * histogram merges), leaving the cells empty. */
static void fold(struct an_figs *f)
{
	uint32_t k, j;

	for (k = 0; k < f->cells.n; k++) {
		struct cell *c = vec_at(&f->cells, k);

		if (c->calls == 0)
			continue;
		for (j = 0; j < CELL_UP; j++) {
			struct an_row *r = c->up[j];

			if (r == NULL)
				continue;
			r->calls += c->calls;
			r->answered += c->answered;
			r->unanswered += c->unanswered;
			r->reply_not_seen += c->reply_not_seen;
			r->errors += c->errors;
			r->rpc_errors += c->rpc_errors;
			r->retrans += c->retrans;
			r->retrans_ops += c->retrans_ops;
			r->late_retrans += c->late_retrans;
			r->dup_replies += c->dup_replies;
			r->bytes += c->bytes;
			r->data_bytes += c->data_bytes;
			r->truncated += c->truncated;
			hist_merge(&r->lat, &c->lat);
			hist_merge_replaced(&r->lat_last, &c->lat, &c->lat_xf,
					    &c->lat_xl, c->lat.count, c->ll_sum,
					    c->ll_min, c->ll_max);
			hist_merge(&r->ivl, &c->ivl);
		}
		c->calls = c->answered = c->unanswered = c->errors = 0;
		c->reply_not_seen = 0;
		c->rpc_errors = c->retrans = c->retrans_ops = 0;
		c->late_retrans = c->dup_replies = c->bytes = 0;
		c->data_bytes = c->truncated = 0;
		c->ll_sum = 0;
		c->ll_min = c->ll_max = 0;
		hist_clear(&c->lat);
		hist_clear(&c->lat_xf);
		hist_clear(&c->lat_xl);
		hist_clear(&c->ivl);
	}
	f->unfolded = false;
}

/* ------------------------------------------------- pairs and servers -- */

static const struct an_server *server_lookup(const struct an_figs *f,
					     const struct cap_addr *a);

static void *obj_get(struct index *x, struct vec *v, uint32_t max,
		     uint64_t *dropped, uint64_t h,
		     bool (*is)(const void *, const void *), const void *key,
		     bool *fresh)
{
	uint32_t i = (uint32_t)h & x->mask;
	void *o;

	*fresh = false;
	for (;;) {
		if (x->id[i] == 0)
			break;
		if (x->h[i] == h && is(vec_at(v, x->id[i] - 1), key))
			return vec_at(v, x->id[i] - 1);
		i = (i + 1) & x->mask;
	}
	if (v->n >= max || (o = vec_add(v)) == NULL) {
		(*dropped)++;
		return NULL;
	}
	x->h[i] = h;
	x->id[i] = v->n;
	*fresh = true;
	return o;
}

static bool pair_is(const void *o, const void *k)
{
	const struct an_pair *p = o;
	const struct an_op *op = k;

	return cap_addr_eq(&p->client, &op->client) &&
	       cap_addr_eq(&p->server, &op->server);
}

static bool server_is(const void *o, const void *k)
{
	return cap_addr_eq(&((const struct an_server *)o)->addr, k);
}

/* A short transfer: granted less than the count asked. */
static void pair_short(uint64_t *n, uint32_t *asked_max, uint32_t count)
{
	(*n)++;
	if (count > *asked_max)
		*asked_max = count;
}

/* The client/server pair of op, made on first sight (NULL: the budget is
 * full, counted in pairs_dropped); notes the NFS version it carries. */
static struct an_pair *pair_of(struct an_figs *f, const struct an_op *op)
{
	uint64_t h = addr_hash(addr_hash(7, &op->client), &op->server);
	struct an_pair *p;
	bool fresh;

	p = obj_get(&f->pix, &f->pairs, f->cfg.pairs_max, &f->tot.pairs_dropped,
		    h ? h : 1, pair_is, op, &fresh);
	if (p == NULL)
		return NULL;
	if (fresh) {
		p->client = op->client;
		p->server = op->server;
	}
	p->vers_seen |= (uint8_t)(1u << (op->vers & 7));
	return p;
}

static void pair_add(struct an_figs *f, const struct an_op *op)
{
	bool ok = (op->flags & AN_OP_ANSWERED) && !an_op_is_error(op);
	uint32_t v3 = an_nfs_v3proc(op->prog, op->vers, op->proc);
	struct an_pair *p;
	uint32_t granted;

	if ((p = pair_of(f, op)) == NULL)
		return;
	if (v3 == NFS3_READ) {
		p->reads++;
		if (op->have & AN_HAVE_COUNT)
			an_sizes_add(&p->read, op->count);
		if (ok && (op->have & AN_HAVE_RCOUNT)) {
			p->bytes_read += op->rcount;
			if (op->rcount > p->read_granted_max)
				p->read_granted_max = op->rcount;
			if ((op->have & AN_HAVE_EOF) && op->eof)
				p->read_eof++;
			else if ((op->have & AN_HAVE_COUNT) && op->rcount < op->count &&
				 op->vers >= 3)
				pair_short(&p->short_reads, &p->short_read_asked_max,
					   op->count);
		}
	} else if (v3 == NFS3_WRITE) {
		p->writes++;
		if (op->have & AN_HAVE_COUNT)
			an_sizes_add(&p->write, op->count);
		if (ok)
			p->bytes_written += (op->have & AN_HAVE_RCOUNT) ?
					    op->rcount : op->count;
		if (ok && (op->have & AN_HAVE_RCOUNT)) {
			if (op->rcount > p->write_granted_max)
				p->write_granted_max = op->rcount;
			if ((op->have & AN_HAVE_COUNT) && op->rcount < op->count)
				pair_short(&p->short_writes,
					   &p->short_write_asked_max, op->count);
		}
		if (op->vers >= 3 && (op->have & AN_HAVE_STABLE) && op->stable < 3) {
			granted = (ok && (op->have & AN_HAVE_COMMITTED) &&
				   op->committed < 3) ? op->committed : 3;
			p->stable[op->stable][granted]++;
			if (op->stable == NFS3_UNSTABLE && op->count < 32768)
				p->writes_unstable_small++;
		}
	} else if (v3 == NFS3_COMMIT) {
		p->commits++;
	}
}

static void server_add(struct an_figs *f, const struct an_op *op)
{
	uint64_t h = addr_hash(11, &op->server);
	struct an_server *s;
	bool fresh;

	if (!(op->have & (AN_HAVE_FSINFO | AN_HAVE_STATFS | AN_HAVE_VERF)) &&
	    server_lookup(f, &op->server) != NULL)
		return;
	s = obj_get(&f->six, &f->servers, f->cfg.servers_max,
		    &f->tot.servers_dropped, h ? h : 1, server_is, &op->server,
		    &fresh);
	if (s == NULL)
		return;
	if (fresh)
		s->addr = op->server;
	if (op->have & AN_HAVE_FSINFO) {
		s->have_fsinfo = true;
		s->rtmax = op->rtmax;
		s->rtpref = op->rtpref;
		s->wtmax = op->wtmax;
		s->wtpref = op->wtpref;
		s->dtpref = op->dtpref;
	}
	if (op->have & AN_HAVE_STATFS) {
		s->have_statfs = true;
		s->tsize = op->tsize;
	}
	if (!(op->have & AN_HAVE_VERF))
		return;
	if (!s->have_verf) {
		s->have_verf = true;
		memcpy(s->verf, op->verf, NFS_VERF_SIZE);
		s->verf_first_ns = op->reply_ns;
	} else if (memcmp(s->verf, op->verf, NFS_VERF_SIZE) != 0) {
		if (s->nverf_changes < AN_VERF_CHANGES_MAX) {
			struct an_verf_change *c =
				&s->verf_changes[s->nverf_changes];

			c->ts_ns = op->reply_ns;
			c->frame = op->reply_frame;
			memcpy(c->old_verf, s->verf, NFS_VERF_SIZE);
			memcpy(c->new_verf, op->verf, NFS_VERF_SIZE);
		}
		s->nverf_changes++;
		memcpy(s->verf, op->verf, NFS_VERF_SIZE);
	}
	s->verf_last_ns = op->reply_ns;
}

/* --------------------------------------------------------- intervals -- */

static struct an_interval *interval_get(struct an_figs *f, int64_t ts)
{
	int64_t n = ts / f->cfg.interval_ns, k;
	uint32_t need;

	if (f->nivl == 0)
		f->ivl_base = n;
	if (n < f->ivl_base) {	/* late op before the first interval: shift */
		uint32_t d = (uint32_t)(f->ivl_base - n);

		if ((uint64_t)f->nivl + d > f->cfg.intervals_max)
			return NULL;
		need = f->nivl + d;
		if (f->cfg.intervals_counted) {
			f->nivl = need;
			f->ivl_base = n;
			return &f->ivl_void;
		}
		if (need > f->ivl_cap) {
			struct an_interval *p = realloc(f->ivl, need * 2 * sizeof(*p));

			if (p == NULL)
				return NULL;
			f->ivl = p;
			f->ivl_cap = need * 2;
		}
		memmove(f->ivl + d, f->ivl, f->nivl * sizeof(*f->ivl));
		memset(f->ivl, 0, d * sizeof(*f->ivl));
		for (k = 0; k < d; k++)
			f->ivl[k].start_ns = (n + k) * f->cfg.interval_ns;
		f->nivl = need;
		f->ivl_base = n;
	}
	k = n - f->ivl_base;
	if (k >= f->cfg.intervals_max)
		return NULL;
	if (f->cfg.intervals_counted) {
		if ((uint32_t)k >= f->nivl)
			f->nivl = (uint32_t)k + 1;
		return &f->ivl_void;
	}
	if ((uint32_t)k >= f->nivl) {
		need = (uint32_t)k + 1;
		if (need > f->ivl_cap) {
			uint32_t cap = f->ivl_cap ? f->ivl_cap : 64;
			struct an_interval *p;

			while (cap < need)
				cap *= 2;
			if (cap > f->cfg.intervals_max)	/* need <= max */
				cap = f->cfg.intervals_max;
			p = realloc(f->ivl, cap * sizeof(*p));
			if (p == NULL)
				return NULL;
			f->ivl = p;
			f->ivl_cap = cap;
		}
		memset(f->ivl + f->nivl, 0, (need - f->nivl) * sizeof(*f->ivl));
		for (; f->nivl < need; f->nivl++)
			f->ivl[f->nivl].start_ns =
				(f->ivl_base + f->nivl) * f->cfg.interval_ns;
	}
	return &f->ivl[k];
}

static void interval_add(struct an_figs *f, const struct an_op *op)
{
	struct an_interval *v = interval_get(f, op->first_call_ns);

	if (v == NULL) {
		f->tot.intervals_dropped++;
		return;
	}
	if (v != &f->ivl_void)
		an_cell_add(&v->s, NULL, op);
}

/* -------------------------------------------------------------- add -- */

/*
 * An op known from its reply alone (AN_OP_CALL_NOT_SEEN): its procedure
 * row's from_replies and, for a successful READ or WRITE, the size the
 * server granted in its pair's read_rep/write_rep.  Nothing else: it has
 * no call (what was asked) and no latency.
 */
static void from_reply_add(struct an_figs *f, const struct an_op *op)
{
	bool ok = !an_op_is_error(op) && (op->have & AN_HAVE_RCOUNT);
	struct an_pair *p;
	struct row_key k;
	uint32_t v3;
	struct an_row *r;

	f->tot.from_replies++;
	memset(&k, 0, sizeof(k));
	k.group = AN_BY_OP;
	k.prog = op->prog;
	k.vers = op->vers;
	k.proc = op->proc;
	k.export_id = -1;
	if ((r = row_get(f, &k)) != NULL)
		r->from_replies++;
	if (op->prog != PROG_NFS || op->vers < 2 || op->vers > 4)
		return;
	if ((p = pair_of(f, op)) == NULL)
		return;
	v3 = an_nfs_v3proc(op->prog, op->vers, op->proc);
	if (ok && v3 == NFS3_READ)
		an_sizes_add(&p->read_rep, op->rcount);
	else if (ok && v3 == NFS3_WRITE)
		an_sizes_add(&p->write_rep, op->rcount);
}

/* ch, rh: as rows_add */
static void figs_add(struct an_figs *f, const struct an_op *op, uint64_t ch,
		     uint64_t rh)
{
	uint64_t db = an_op_data_bytes(op);
	int64_t last = op->reply_ns > op->last_call_ns ? op->reply_ns :
		       op->last_call_ns;
	struct an_figs_totals *t = &f->tot;

	if (op->flags & AN_OP_CALL_NOT_SEEN) {
		from_reply_add(f, op);
		return;
	}
	if (t->ops == 0 || op->first_call_ns < t->first_ns)
		t->first_ns = op->first_call_ns;
	if (t->ops == 0 || last > t->last_ns)
		t->last_ns = last;
	t->ops++;
	if (op->flags & AN_OP_ANSWERED)
		t->answered++;
	else if (op->flags & AN_OP_REPLY_HIDDEN)
		t->reply_not_seen++;
	else
		t->unanswered++;
	if (an_op_is_error(op))
		t->errors++;
	t->retrans += op->retrans;
	t->dup_replies += op->dup_replies;
	rows_add(f, op, db, ch, rh);
	interval_add(f, op);
	if (op->prog == PROG_NFS && op->vers >= 2 && op->vers <= 4) {
		pair_add(f, op);
		server_add(f, op);
	}
}

/* --------------------------------------------------------- pipeline -- */

/*
 * an_figs_push: an op waits PIPE pushes; at its push the index slots of
 * its cell and file row are fetched, STAGE1 pushes later the cell and row
 * found there (the index lines are in the cache by then), STAGE2 pushes
 * later their histogram buckets, and it is added when it leaves.  The
 * stages only read and prefetch: what they find may be gone or not yet
 * made when the op is added (an earlier op in the pipe creates its cell),
 * and figs_add looks everything up again.
 */
#define PIPE 8
#define STAGE1 3
#define STAGE2 6

struct pipe_slot {
	struct an_op op;
	uint64_t ch;		/* cell hash */
	uint64_t rh;		/* file row hash; 0: no handle */
	/* what STAGE1 found, for STAGE2 to prefetch from (cells and rows
	   never move, so a stale one is still memory, only a wasted
	   prefetch) */
	const struct cell *pc;
	const struct an_row *pr;
};

/* The entry of x holding hash h, without comparing keys; 0 if none. */
static uint32_t index_peek(const struct index *x, uint64_t h)
{
	uint32_t i;

	for (i = (uint32_t)h & x->mask; x->id[i]; i = (i + 1) & x->mask)
		if (x->h[i] == h)
			return x->id[i];
	return 0;
}

static void stage0(struct an_figs *f, struct pipe_slot *s)
{
	struct cell_key ck;
	struct row_key rk;
	uint32_t i;

	cell_key_of(&ck, &s->op);
	s->ch = cell_hash(&ck);
	i = (uint32_t)s->ch & f->cix.mask;
	__builtin_prefetch(&f->cix.id[i]);
	__builtin_prefetch(&f->cix.h[i]);
	s->rh = 0;
	if (!(s->op.have & AN_HAVE_FH))
		return;
	file_key_of(&rk, &s->op);
	s->rh = key_hash(&rk);
	i = (uint32_t)s->rh & f->fix.mask;
	__builtin_prefetch(&f->fix.id[i]);
	__builtin_prefetch(&f->fix.h[i]);
}

static const struct cell *peek_cell(const struct an_figs *f,
				    const struct pipe_slot *s)
{
	uint32_t id = index_peek(&f->cix, s->ch);

	return id ? vec_at(&f->cells, id - 1) : NULL;
}

static const struct an_row *peek_file(const struct an_figs *f,
				      const struct pipe_slot *s)
{
	uint32_t id = s->rh ? index_peek(&f->fix, s->rh) : 0;

	if (id == 0)
		return NULL;
	id--;
	return vec_at(&f->rows[id >> 24], id & 0xffffff);
}

static void prefetch_lines(const void *p, size_t n)
{
	size_t k;

	for (k = 0; k < n; k += 64)
		__builtin_prefetch((const char *)p + k, 1);
}

static void stage1(const struct an_figs *f, struct pipe_slot *s)
{
	const struct cell *c = s->pc = peek_cell(f, s);
	const struct an_row *r = s->pr = peek_file(f, s);
	uint64_t l = (uint64_t)s->op.lat_first_ns;
	bool ans = s->op.flags & AN_OP_ANSWERED;

	if (c != NULL) {
		prefetch_lines(c, offsetof(struct cell, lat.chunk));
		if (ans)
			hist_prefetch_chunk(&c->lat, l);
	}
	if (r != NULL) {
		__builtin_prefetch(r, 1);
		prefetch_lines(&r->calls, offsetof(struct an_row, st) -
					  offsetof(struct an_row, calls));
		prefetch_lines(&r->lat, offsetof(struct hist, chunk));
		prefetch_lines(&r->lat_last, offsetof(struct hist, chunk));
		if (ans) {
			hist_prefetch_chunk(&r->lat, l);
			hist_prefetch_chunk(&r->lat_last,
					    (uint64_t)s->op.lat_last_ns);
		}
	}
}

static void stage2(const struct an_figs *f, const struct pipe_slot *s)
{
	const struct cell *c = s->pc;
	const struct an_row *r = s->pr;
	uint64_t l = (uint64_t)s->op.lat_first_ns;

	if (!(s->op.flags & AN_OP_ANSWERED))
		return;
	if (c != NULL)
		hist_prefetch(&c->lat, l);
	if (r != NULL) {
		hist_prefetch(&r->lat, l);
		hist_prefetch(&r->lat_last, (uint64_t)s->op.lat_last_ns);
	}
}

/* Add the oldest op waiting. */
static void pipe_out(struct an_figs *f)
{
	const struct pipe_slot *s = &f->pipe[f->pout++ % PIPE];

	figs_add(f, &s->op, s->ch, s->rh);
}

/* Add the ops still waiting, in order. */
static void figs_sync(struct an_figs *f)
{
	while (f->pout != f->pin)
		pipe_out(f);
}

void an_figs_add(struct an_figs *f, const struct an_op *op)
{
	figs_sync(f);
	figs_add(f, op, 0, 0);
}

void an_figs_push(struct an_figs *f, const struct an_op *op)
{
	struct pipe_slot *s;

	if (f->pipe == NULL &&
	    (f->pipe = malloc(PIPE * sizeof(*f->pipe))) == NULL) {
		figs_add(f, op, 0, 0);	/* no memory: unpipelined */
		return;
	}
	if (f->pin - f->pout == PIPE)
		pipe_out(f);
	s = &f->pipe[f->pin % PIPE];
	an_op_copy(&s->op, op);
	s->pc = NULL;
	s->pr = NULL;
	stage0(f, s);
	if (f->pin - f->pout >= STAGE1)
		stage1(f, &f->pipe[(f->pin - STAGE1) % PIPE]);
	if (f->pin - f->pout >= STAGE2)
		stage2(f, &f->pipe[(f->pin - STAGE2) % PIPE]);
	f->pin++;
}

/* ---------------------------------------------------------- access -- */

/* Reads are logically const: folding pending cell sums changes no figure. */
uint32_t an_figs_nrows(const struct an_figs *f, enum an_group g)
{
	figs_sync((struct an_figs *)f);
	if (f->unfolded)
		fold((struct an_figs *)f);
	return f->rows[g].n;
}

const struct an_row *an_figs_row(const struct an_figs *f, enum an_group g,
				 uint32_t k)
{
	figs_sync((struct an_figs *)f);
	if (f->unfolded)
		fold((struct an_figs *)f);
	return k < f->rows[g].n ? vec_at(&f->rows[g], k) : NULL;
}

uint32_t an_figs_npairs(const struct an_figs *f)
{
	figs_sync((struct an_figs *)f);
	return f->pairs.n;
}

const struct an_pair *an_figs_pair(const struct an_figs *f, uint32_t k)
{
	figs_sync((struct an_figs *)f);
	return k < f->pairs.n ? vec_at(&f->pairs, k) : NULL;
}

uint32_t an_figs_nservers(const struct an_figs *f)
{
	figs_sync((struct an_figs *)f);
	return f->servers.n;
}

const struct an_server *an_figs_server(const struct an_figs *f, uint32_t k)
{
	figs_sync((struct an_figs *)f);
	return k < f->servers.n ? vec_at(&f->servers, k) : NULL;
}

const struct an_server *an_figs_server_find(const struct an_figs *f,
					    const struct cap_addr *a)
{
	figs_sync((struct an_figs *)f);
	return server_lookup(f, a);
}

static const struct an_server *server_lookup(const struct an_figs *f,
					     const struct cap_addr *a)
{
	uint64_t h = addr_hash(11, a);
	uint32_t i;

	h = h ? h : 1;
	for (i = (uint32_t)h & f->six.mask; f->six.id[i];
	     i = (i + 1) & f->six.mask)
		if (f->six.h[i] == h &&
		    server_is(vec_at(&f->servers, f->six.id[i] - 1), a))
			return vec_at(&f->servers, f->six.id[i] - 1);
	return NULL;
}

uint32_t an_figs_nintervals(const struct an_figs *f)
{
	figs_sync((struct an_figs *)f);
	return f->cfg.intervals_counted ? 0 : f->nivl;
}

const struct an_interval *an_figs_interval(const struct an_figs *f,
					   uint32_t k)
{
	figs_sync((struct an_figs *)f);
	return k < f->nivl ? &f->ivl[k] : NULL;
}

int64_t an_figs_interval_ns(const struct an_figs *f)
{
	return f->cfg.interval_ns;
}

const struct an_figs_totals *an_figs_totals(const struct an_figs *f)
{
	figs_sync((struct an_figs *)f);
	return &f->tot;
}
