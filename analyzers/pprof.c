// SPDX-License-Identifier: MIT
/*
 * pprof export (see pprof.h): five interning tables (strings, functions,
 * mappings, locations, samples) that share one byte-key hash set, then at
 * write time the protobuf-c messages built from them, packed, and gzipped
 * with zlib.
 *
 * Every table holds what the profile file will hold anyway, so memory is
 * the size of the profile; the samples table sums values per distinct key.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "pp/analyzer.h"
#include "pp/replay.h"
#include "pprof.pb-c.h"	/* generated into $(O)/analyzers (Makefile) */
#include "flamegraph.h"
#include "pprof.h"

#define PPROF_MAX_FRAMES	1024

/* Byte keys -> dense ids 0, 1, ...; keys copied into one pool. */
struct keyset {
	uint8_t *pool;
	size_t pool_len, pool_cap;
	size_t *off;		/* id -> offset in pool */
	uint32_t *len;		/* id -> key length */
	uint32_t *hash;
	uint32_t nr, cap;
	uint32_t *tab;		/* id + 1, 0 = empty; size a power of two */
	uint32_t tab_size;
};

struct pp_pprof {
	struct pp_pprof_desc desc;
	struct keyset strs, fns, maps, locs, samples;
	int64_t *values;	/* samples.nr * desc.nr_types */
	size_t values_cap;
	uint64_t key[PPROF_MAX_FRAMES + 8];	/* scratch for one sample key */
};

/* Key layouts (arrays of u64, no padding). */
struct fn_key {
	uint64_t name;		/* string index */
	uint64_t file;
};

struct map_key {
	uint64_t start, end, pgoff;
	uint64_t file, build_id;	/* string indexes */
};

struct loc_key {
	uint64_t map;		/* mapping id (1-based), 0 none */
	uint64_t addr;
	uint64_t fn;		/* function id (1-based) */
};

static uint32_t hash_bytes(const void *p, size_t n)
{
	const unsigned char *c = p;
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a */

	for (size_t i = 0; i < n; i++) {
		h ^= c[i];
		h *= 0x100000001b3ull;
	}
	return (uint32_t)(h ^ (h >> 32));
}


static void keyset_free(struct keyset *k)
{
	free(k->pool);
	free(k->off);
	free(k->len);
	free(k->hash);
	free(k->tab);
}

static const void *keyset_key(const struct keyset *k, uint32_t id, size_t *len)
{
	if (len)
		*len = k->len[id];
	return k->pool + k->off[id];
}

static int keyset_rehash(struct keyset *k)
{
	uint32_t nsize = k->tab_size ? k->tab_size * 2 : 1024, *ntab;

	if (nsize < k->tab_size)
		return -ENOMEM;
	ntab = calloc(nsize, sizeof(*ntab));
	if (!ntab)
		return -ENOMEM;
	for (uint32_t i = 0; i < k->nr; i++) {
		uint32_t j = k->hash[i] & (nsize - 1);

		while (ntab[j])
			j = (j + 1) & (nsize - 1);
		ntab[j] = i + 1;
	}
	free(k->tab);
	k->tab = ntab;
	k->tab_size = nsize;
	return 0;
}

/* The id of @key, added when new (*@added set). Return: id, or -ENOMEM. */
static int64_t keyset_get(struct keyset *k, const void *key, size_t n, int *added)
{
	uint32_t h = hash_bytes(key, n), j, id;
	size_t cap;

	if (added)
		*added = 0;
	if (n > UINT32_MAX)
		return -ENOMEM;
	if ((uint64_t)(k->nr + 1) * 2 > k->tab_size && keyset_rehash(k) && !k->tab_size)
		return -ENOMEM;
	for (j = h & (k->tab_size - 1); k->tab[j]; j = (j + 1) & (k->tab_size - 1)) {
		id = k->tab[j] - 1;
		if (k->hash[id] == h && k->len[id] == n && !memcmp(k->pool + k->off[id], key, n))
			return id;
	}
	if (k->nr == UINT32_MAX - 1 || (uint64_t)(k->nr + 1) >= k->tab_size)
		return -ENOMEM;
	/* keys start 8-byte aligned: the u64 keys are read in place */
	if (pp_grow((void **)&k->pool, &k->pool_cap, k->pool_len + n + 8, 1))
		return -ENOMEM;
	cap = k->cap;
	if (pp_grow((void **)&k->off, &cap, k->nr + 1, sizeof(*k->off)))
		return -ENOMEM;
	cap = k->cap;
	if (pp_grow((void **)&k->len, &cap, k->nr + 1, sizeof(*k->len)))
		return -ENOMEM;
	cap = k->cap;
	if (pp_grow((void **)&k->hash, &cap, k->nr + 1, sizeof(*k->hash)))
		return -ENOMEM;
	k->cap = (uint32_t)cap;
	id = k->nr++;
	memcpy(k->pool + k->pool_len, key, n);
	k->pool[k->pool_len + n] = 0;	/* string keys read back NUL-terminated */
	k->off[id] = k->pool_len;
	k->len[id] = (uint32_t)n;
	k->hash[id] = h;
	k->pool_len += (n + 1 + 7) & ~(size_t)7;
	k->tab[j] = id + 1;
	if (added)
		*added = 1;
	return id;
}

/* String table index of @s (index 0 is ""). */
static int64_t str_id(struct pp_pprof *pp, const char *s)
{
	return keyset_get(&pp->strs, s ? s : "", s ? strlen(s) : 0, NULL);
}

struct pp_pprof *pp_pprof__new(const struct pp_pprof_desc *desc)
{
	struct pp_pprof *pp;

	if (!desc || !desc->nr_types || desc->nr_types > PP_PPROF_MAX_TYPES) {
		errno = EINVAL;
		return NULL;
	}
	pp = calloc(1, sizeof(*pp));
	if (!pp)
		return NULL;
	pp->desc = *desc;
	if (str_id(pp, "") != 0) {
		pp_pprof__free(pp);
		errno = ENOMEM;
		return NULL;
	}
	return pp;
}

void pp_pprof__free(struct pp_pprof *pp)
{
	if (!pp)
		return;
	keyset_free(&pp->strs);
	keyset_free(&pp->fns);
	keyset_free(&pp->maps);
	keyset_free(&pp->locs);
	keyset_free(&pp->samples);
	free(pp->values);
	free(pp);
}

size_t pp_pprof__samples(const struct pp_pprof *pp)
{
	return pp ? pp->samples.nr : 0;
}

/* Function id (1-based) of @name in @file. */
static int64_t fn_id(struct pp_pprof *pp, const char *name, const char *file)
{
	struct fn_key k;
	int64_t a = str_id(pp, name), b = str_id(pp, file), id;

	if (a < 0 || b < 0)
		return -ENOMEM;
	k = (struct fn_key){ .name = (uint64_t)a, .file = (uint64_t)b };
	id = keyset_get(&pp->fns, &k, sizeof(k), NULL);
	return id < 0 ? id : id + 1;
}

static void hex(char *out, const uint8_t *b, size_t n)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 15];
	}
	out[2 * n] = '\0';
}

/* Mapping id (1-based) of @m. */
static int64_t map_id(struct pp_pprof *pp, const struct pp_map_info *m)
{
	char bid[2 * 64 + 1];
	struct map_key k;
	int64_t f, b, id;

	hex(bid, m->build_id, m->build_id_size > 64 ? 64 : m->build_id_size);
	f = str_id(pp, m->path);
	b = str_id(pp, bid);
	if (f < 0 || b < 0)
		return -ENOMEM;
	k = (struct map_key){ .start = m->start, .end = m->end, .pgoff = m->pgoff,
			      .file = (uint64_t)f, .build_id = (uint64_t)b };
	id = keyset_get(&pp->maps, &k, sizeof(k), NULL);
	return id < 0 ? id : id + 1;
}

/* Location id (1-based) of code address @ip of @pid. */
static int64_t addr_loc(struct pp_pprof *pp, struct pp_session *s, uint32_t pid, uint64_t ip,
			int kernel)
{
	struct pp_map_info m;
	struct loc_key k = { .addr = ip };
	const char *dso = NULL;
	char name[256];
	int64_t id;

	pp_session__sym(s, pid, ip, kernel, name, sizeof(name), &dso);
	if (pp_session__map(s, pid, ip, kernel, &m)) {
		id = map_id(pp, &m);
		if (id < 0)
			return id;
		k.map = (uint64_t)id;
		dso = m.path;
	}
	id = fn_id(pp, name, dso);
	if (id < 0)
		return id;
	k.fn = (uint64_t)id;
	id = keyset_get(&pp->locs, &k, sizeof(k), NULL);
	return id < 0 ? id : id + 1;
}

/* Location id of a pseudo frame: a function with no mapping and no address. */
static int64_t pseudo_loc(struct pp_pprof *pp, const char *name)
{
	struct loc_key k = { 0 };
	int64_t id = fn_id(pp, name && *name ? name : "[unknown]", NULL);

	if (id < 0)
		return id;
	k.fn = (uint64_t)id;
	id = keyset_get(&pp->locs, &k, sizeof(k), NULL);
	return id < 0 ? id : id + 1;
}

int pp_pprof__add(struct pp_pprof *pp, struct pp_session *s, uint32_t pid, uint32_t tid,
		  const char *comm, const uint64_t *ips, const uint8_t *kernel, size_t nr,
		  const char *const *leaves, size_t nr_leaves, const int64_t *values)
{
	size_t n = 0, nt = pp->desc.nr_types;
	int64_t id, c;
	int added;

	c = str_id(pp, comm);
	if (c < 0)
		return -ENOMEM;
	pp->key[n++] = pid;
	pp->key[n++] = tid;
	pp->key[n++] = (uint64_t)c;
	/* Locations innermost first, as pprof wants: leaves, then the addresses. */
	for (size_t i = nr_leaves; i-- > 0 && n < PPROF_MAX_FRAMES;) {
		id = pseudo_loc(pp, leaves[i]);
		if (id < 0)
			return -ENOMEM;
		pp->key[n++] = (uint64_t)id;
	}
	for (size_t i = nr; i-- > 0 && n < PPROF_MAX_FRAMES;) {
		id = addr_loc(pp, s, pid, ips[i], kernel[i]);
		if (id < 0)
			return -ENOMEM;
		pp->key[n++] = (uint64_t)id;
	}
	if (n == 3) {
		id = pseudo_loc(pp, "[unknown]");
		if (id < 0)
			return -ENOMEM;
		pp->key[n++] = (uint64_t)id;
	}
	id = keyset_get(&pp->samples, pp->key, n * sizeof(pp->key[0]), &added);
	if (id < 0)
		return -ENOMEM;
	if (added) {
		if (pp_grow((void **)&pp->values, &pp->values_cap, (size_t)(id + 1) * nt,
			 sizeof(*pp->values)))
			return -ENOMEM;
		memset(pp->values + (size_t)id * nt, 0, nt * sizeof(*pp->values));
	}
	for (size_t i = 0; i < nt; i++)
		pp->values[(size_t)id * nt + i] += values[i];
	return 0;
}

int pp_pprof__add_event(struct pp_pprof *pp, struct pp_session *s, const struct pp_event *e,
			const char *const *leaves, size_t nr_leaves, const int64_t *values)
{
	uint64_t ips[PPROF_MAX_FRAMES];
	uint8_t kern[PPROF_MAX_FRAMES];
	size_t nr;

	nr = pp_session__stack_ips(s, e, ips, kern, PPROF_MAX_FRAMES);
	if (!nr && e->ip) {
		ips[0] = e->ip;
		kern[0] = e->ip >= 0xffff800000000000ull;
		nr = 1;
	}
	return pp_pprof__add(pp, s, e->pid, e->tid, pp_session__comm(s, e->tid), ips, kern, nr,
			     leaves, nr_leaves, values);
}

/* The protobuf messages of one profile, in arrays freed together. */
struct pb {
	Pp__Pprof__Profile prof;
	Pp__Pprof__ValueType *vt, period_type;
	Pp__Pprof__ValueType **vtp;
	Pp__Pprof__Sample *samples, **samplep;
	Pp__Pprof__Label *labels, **labelp;
	uint64_t *loc_ids;
	Pp__Pprof__Mapping *maps, **mapp;
	Pp__Pprof__Location *locs, **locp;
	Pp__Pprof__Line *lines, **linep;
	Pp__Pprof__Function *fns, **fnp;
	char **strs;
	int64_t comment;
};

static void pb_free(struct pb *b)
{
	free(b->vt);
	free(b->vtp);
	free(b->samples);
	free(b->samplep);
	free(b->labels);
	free(b->labelp);
	free(b->loc_ids);
	free(b->maps);
	free(b->mapp);
	free(b->locs);
	free(b->locp);
	free(b->lines);
	free(b->linep);
	free(b->fns);
	free(b->fnp);
	free(b->strs);
}

#define PB_ALLOC(p, n) ((p) = calloc((n) ? (n) : 1, sizeof(*(p))))

static int pb_build(struct pp_pprof *pp, struct pp_session *s, uint64_t start_ns, uint64_t end_ns,
		    struct pb *b)
{
	const struct pp_pprof_desc *d = &pp->desc;
	size_t nt = d->nr_types, nloc_ids = 0, nlabels;
	int64_t k_comm, k_pid, k_tid, u_count, id;
	uint64_t wall;

	/* Every string first: the string table must not grow after this. */
	k_comm = str_id(pp, "comm");
	k_pid = str_id(pp, "pid");
	k_tid = str_id(pp, "tid");
	u_count = str_id(pp, "count");
	if (k_comm < 0 || k_pid < 0 || k_tid < 0 || u_count < 0)
		return -ENOMEM;
	for (size_t i = 0; i < nt; i++) {
		if (str_id(pp, d->types[i].type) < 0 || str_id(pp, d->types[i].unit) < 0)
			return -ENOMEM;
	}
	if (d->period_type.type && (str_id(pp, d->period_type.type) < 0 ||
				    str_id(pp, d->period_type.unit) < 0))
		return -ENOMEM;
	b->comment = d->comment ? str_id(pp, d->comment) : 0;
	if (b->comment < 0 || (d->default_type && str_id(pp, d->default_type) < 0))
		return -ENOMEM;

	for (uint32_t i = 0; i < pp->samples.nr; i++) {
		size_t len;

		keyset_key(&pp->samples, i, &len);
		nloc_ids += len / sizeof(uint64_t) - 3;
	}
	nlabels = (size_t)pp->samples.nr * 3;
	if (!PB_ALLOC(b->vt, nt) || !PB_ALLOC(b->vtp, nt) ||
	    !PB_ALLOC(b->samples, pp->samples.nr) || !PB_ALLOC(b->samplep, pp->samples.nr) ||
	    !PB_ALLOC(b->labels, nlabels) || !PB_ALLOC(b->labelp, nlabels) ||
	    !PB_ALLOC(b->loc_ids, nloc_ids) || !PB_ALLOC(b->maps, pp->maps.nr) ||
	    !PB_ALLOC(b->mapp, pp->maps.nr) || !PB_ALLOC(b->locs, pp->locs.nr) ||
	    !PB_ALLOC(b->locp, pp->locs.nr) || !PB_ALLOC(b->lines, pp->locs.nr) ||
	    !PB_ALLOC(b->linep, pp->locs.nr) || !PB_ALLOC(b->fns, pp->fns.nr) ||
	    !PB_ALLOC(b->fnp, pp->fns.nr) || !PB_ALLOC(b->strs, pp->strs.nr))
		return -ENOMEM;

	pp__pprof__profile__init(&b->prof);
	for (size_t i = 0; i < nt; i++) {
		pp__pprof__value_type__init(&b->vt[i]);
		b->vt[i].type = str_id(pp, d->types[i].type);
		b->vt[i].unit = str_id(pp, d->types[i].unit);
		b->vtp[i] = &b->vt[i];
	}
	b->prof.n_sample_type = nt;
	b->prof.sample_type = b->vtp;

	nloc_ids = 0;
	for (uint32_t i = 0; i < pp->samples.nr; i++) {
		size_t len;
		const uint64_t *key = keyset_key(&pp->samples, i, &len);
		size_t nloc = len / sizeof(uint64_t) - 3;
		Pp__Pprof__Sample *sm = &b->samples[i];
		Pp__Pprof__Label *l = &b->labels[(size_t)i * 3];

		pp__pprof__sample__init(sm);
		memcpy(b->loc_ids + nloc_ids, key + 3, nloc * sizeof(uint64_t));
		sm->n_location_id = nloc;
		sm->location_id = b->loc_ids + nloc_ids;
		nloc_ids += nloc;
		sm->n_value = nt;
		sm->value = pp->values + (size_t)i * nt;
		for (int j = 0; j < 3; j++) {
			pp__pprof__label__init(&l[j]);
			b->labelp[(size_t)i * 3 + j] = &l[j];
		}
		l[0].key = k_comm;
		l[0].str = (int64_t)key[2];
		l[1].key = k_pid;
		l[1].num = (int64_t)key[0];
		l[2].key = k_tid;
		l[2].num = (int64_t)key[1];
		sm->n_label = 3;
		sm->label = b->labelp + (size_t)i * 3;
		b->samplep[i] = sm;
	}
	b->prof.n_sample = pp->samples.nr;
	b->prof.sample = b->samplep;

	for (uint32_t i = 0; i < pp->maps.nr; i++) {
		const struct map_key *k = keyset_key(&pp->maps, i, NULL);
		Pp__Pprof__Mapping *m = &b->maps[i];

		pp__pprof__mapping__init(m);
		m->id = i + 1;
		m->memory_start = k->start;
		m->memory_limit = k->end;
		m->file_offset = k->pgoff;
		m->filename = (int64_t)k->file;
		m->build_id = (int64_t)k->build_id;
		m->has_functions = 1;
		b->mapp[i] = m;
	}
	b->prof.n_mapping = pp->maps.nr;
	b->prof.mapping = b->mapp;

	for (uint32_t i = 0; i < pp->locs.nr; i++) {
		const struct loc_key *k = keyset_key(&pp->locs, i, NULL);
		Pp__Pprof__Location *lc = &b->locs[i];

		pp__pprof__location__init(lc);
		pp__pprof__line__init(&b->lines[i]);
		lc->id = i + 1;
		lc->mapping_id = k->map;
		lc->address = k->addr;
		b->lines[i].function_id = k->fn;
		b->linep[i] = &b->lines[i];
		lc->n_line = 1;
		lc->line = &b->linep[i];
		b->locp[i] = lc;
	}
	b->prof.n_location = pp->locs.nr;
	b->prof.location = b->locp;

	for (uint32_t i = 0; i < pp->fns.nr; i++) {
		const struct fn_key *k = keyset_key(&pp->fns, i, NULL);
		Pp__Pprof__Function *f = &b->fns[i];

		pp__pprof__function__init(f);
		f->id = i + 1;
		f->name = (int64_t)k->name;
		f->system_name = (int64_t)k->name;
		f->filename = (int64_t)k->file;
		b->fnp[i] = f;
	}
	b->prof.n_function = pp->fns.nr;
	b->prof.function = b->fnp;

	for (uint32_t i = 0; i < pp->strs.nr; i++)
		b->strs[i] = (char *)keyset_key(&pp->strs, i, NULL);
	b->prof.n_string_table = pp->strs.nr;
	b->prof.string_table = b->strs;

	wall = start_ns ? pp_session__realtime(s, start_ns) : 0;
	b->prof.time_nanos = (int64_t)wall;
	b->prof.duration_nanos = end_ns > start_ns ? (int64_t)(end_ns - start_ns) : 0;
	if (d->period_type.type) {
		pp__pprof__value_type__init(&b->period_type);
		b->period_type.type = str_id(pp, d->period_type.type);
		b->period_type.unit = str_id(pp, d->period_type.unit);
		b->prof.period_type = &b->period_type;
		b->prof.period = d->period;
	}
	if (b->comment > 0) {
		b->prof.n_comment = 1;
		b->prof.comment = &b->comment;
	}
	id = d->default_type ? str_id(pp, d->default_type) : 0;
	b->prof.default_sample_type = id;
	return 0;
}

static int write_gz(const char *path, const uint8_t *buf, size_t len)
{
	gzFile gz = gzopen(path, "wb9");
	size_t done = 0;
	int err;

	if (!gz)
		return errno ? -errno : -ENOMEM;
	while (done < len) {
		unsigned int n = len - done > (1u << 30) ? 1u << 30 : (unsigned int)(len - done);
		int w = gzwrite(gz, buf + done, n);

		if (w <= 0) {
			int e = errno;

			gzclose(gz);
			return e ? -e : -EIO;
		}
		done += (size_t)w;
	}
	err = gzclose(gz);
	if (err != Z_OK)
		return errno ? -errno : -EIO;
	return 0;
}

int pp_pprof__write(struct pp_pprof *pp, struct pp_session *s, uint64_t start_ns, uint64_t end_ns,
		    const char *path)
{
	struct pb b;
	uint8_t *buf = NULL;
	size_t len;
	int err;

	memset(&b, 0, sizeof(b));
	err = pb_build(pp, s, start_ns, end_ns, &b);
	if (!err) {
		len = pp__pprof__profile__get_packed_size(&b.prof);
		buf = malloc(len ? len : 1);
		if (!buf)
			err = -ENOMEM;
		else if (pp__pprof__profile__pack(&b.prof, buf) != len)
			err = -EIO;
	}
	if (!err) {
		errno = 0;
		err = write_gz(path, buf, len);
	}
	if (err)
		fprintf(stderr, "pp-analyze: %s: %s\n", path, strerror(-err));
	free(buf);
	pb_free(&b);
	return err;
}

void pp_pprof__report(struct pp_pprof *pp, struct pp_session *s, uint64_t start_ns,
		      uint64_t end_ns, const char *path)
{
	int err;

	if (!pp)
		return;
	err = pp_pprof__write(pp, s, start_ns, end_ns, path);
	if (!err)
		fprintf(stderr, "pp-analyze: wrote %s (pprof, %zu stacks)\n", path,
			pp_pprof__samples(pp));
	pp_session__fail(s, err);
}

int pp_pprof__check_opt(struct pp_session *s)
{
	const char *path = pp_opts__mod(pp_session__opts(s), "pprof");

	if (!path)
		return 0;
	if (!strcmp(path, "-")) {
		fprintf(stderr, "pp-analyze: --pprof: the profile is binary, give a file name\n");
		return -EINVAL;
	}
	return pp_session__output_ok(s, "--pprof", path);
}

int pp_pprof__open_opt(struct pp_session *s, const struct pp_pprof_desc *desc, struct pp_pprof **pp)
{
	int err;

	*pp = NULL;
	if (!pp_opts__mod(pp_session__opts(s), "pprof"))
		return 0;
	err = pp_pprof__check_opt(s);
	if (err)
		return err;
	*pp = pp_pprof__new(desc);
	if (!*pp) {
		err = -errno;
		fprintf(stderr, "pp-analyze: --pprof: %s\n", strerror(errno));
		return err;
	}
	return 0;
}
