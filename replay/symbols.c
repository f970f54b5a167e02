// SPDX-License-Identifier: MIT
/*
 * Symbolization from the file's snapshot: KSYMS (kernel and modules), USYMS
 * (function symbols of sampled user DSOs, by build-id), MMAPS items and MMAP2
 * records (which DSO is mapped where in which process).
 *
 * Order of sources for a user DSO: the embedded USYMS, then
 * /usr/lib/debug/.build-id/xx/yyyy.debug, then the DSO path on this machine
 * (only if its build-id matches when one is known); if all fail, the frame is
 * printed "dso+0xoffset", never a bare [unknown] when the DSO is known.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include "pp/elf.h"
#include "pp/format.h"
#include "pp/meta.h"
#include "replay-internal.h"

struct pp_sym {
	uint64_t addr;
	uint64_t size;
	const char *name;
	const char *mod;	/* kernel module, "" = vmlinux; NULL for user */
	uint8_t dm_done;	/* name is demangled already (or needs not be) */
};

struct pp_dso {
	uint8_t build_id[20];
	uint8_t build_id_size;
	char *path;
	const char *short_name;
	struct pp_sym *syms;
	size_t nr_syms;
	int sorted;
	int source;		/* 0 none yet, 1 embedded, 2 debug dir, 3 local file, -1 failed */
	uint8_t rec_source;	/* embedded: PP_USYMS_SRC_* the recorder said */
	uint8_t more_tried;	/* embedded, a miss: this machine's debug file was tried */
};

/* A map, a node of its set's treap (links are slot + 1, 0 = none). */
struct pp_map {
	uint64_t start, end, pgoff;	/* end 0: a free slot */
	int dso;
	uint32_t l, r;		/* children: starts below, above */
	uint32_t prio;		/* heap order: a parent's is at least its children's */
};

/*
 * The maps of one or more processes: a treap by start in one block of
 * slots, so an insertion costs O(log n) wherever the map goes (an array
 * kept sorted moved every map above it: mmap hands out addresses top
 * down, so each new map went first), and a copy is one memcpy (the links
 * are slot numbers, not pointers). A forked process shares its parent's
 * set (@refs counts the sharers) until one of them changes: then that one
 * gets its own copy.
 */
struct pp_mapset {
	uint32_t refs;
	uint32_t uid;		/* gen of its last change: equal uids, equal maps */
	uint32_t nr;		/* maps */
	uint32_t used, cap;	/* slots handed out, slots */
	uint32_t root, free;	/* the tree; the free slots, linked by l */
	struct pp_map m[];
};

/* A process and its maps. */
struct pp_proc {
	uint32_t pid1;		/* pid + 1, 0 = empty slot */
	struct pp_mapset *ms;	/* NULL: no maps */
};

struct pp_symtab {
	struct pp_sym *ksyms;
	size_t nr_ksyms, cap_ksyms;
	int ksorted;
	uint64_t *kmod_start;	/* by sorted ksym: start of its run of one module's symbols */
	uint64_t kbase;		/* lowest vmlinux symbol */
	int kbase_ok;
	struct pp_dso *dsos;
	size_t nr_dsos, cap_dsos;
	/* DSO index + 1 by build-id, and by path (the first DSO of a path); cap: power of 2 */
	uint32_t *dso_by_bid, *dso_by_path;
	size_t dso_hcap;
	struct pp_proc *procs;	/* open addressing by pid */
	size_t procs_cap, procs_nr;
	char **strs;		/* every string we own */
	size_t nr_strs, cap_strs;
	uint32_t gen;		/* bumped whenever a lookup's answer may change */
	uint32_t kver;		/* gen of the last kernel symbol change */
	uint32_t uver;		/* gen of the last user symbol change */
	int no_demangle;	/* --no-demangle: names as the files have them */
	int debuginfod;		/* ask debuginfod servers for debug files by build-id */
	uint64_t rng;		/* the treaps' priorities */
};

/** pp_symtab__gen() - changes whenever symbols or maps change (for caches). */
uint32_t pp_symtab__gen(const struct pp_symtab *t)
{
	return t->gen;
}

static char *own_str(struct pp_symtab *t, const char *s)
{
	char *d;

	if (t->nr_strs == t->cap_strs) {
		size_t n = t->cap_strs ? t->cap_strs * 2 : 4096;
		char **a = realloc(t->strs, n * sizeof(*a));

		if (!a)
			return NULL;
		t->strs = a;
		t->cap_strs = n;
	}
	/* names and paths are printed: escaped for terminals once, here */
	d = malloc(pp_text_size(s));
	if (d) {
		pp_text_escape(d, pp_text_size(s), s);
		t->strs[t->nr_strs++] = d;
	}
	return d;
}

static void mapset_put(struct pp_mapset *ms)
{
	if (ms && !--ms->refs)
		free(ms);
}

static uint32_t pid_hash(uint32_t pid)
{
	return pid * 2654435761u;
}

/* The slot of @pid: its entry, or the empty slot where it would go. */
static struct pp_proc *proc_slot(const struct pp_symtab *t, uint32_t pid)
{
	size_t mask = t->procs_cap - 1;

	for (size_t i = pid_hash(pid) & mask;; i = (i + 1) & mask) {
		struct pp_proc *p = &t->procs[i];

		if (p->pid1 == pid + 1 || !p->pid1)
			return p;
	}
}

/* The process @pid, or NULL when it has no entry. */
static struct pp_proc *proc_find(const struct pp_symtab *t, uint32_t pid)
{
	struct pp_proc *p;

	if (!t->procs_cap)
		return NULL;
	p = proc_slot(t, pid);
	return p->pid1 ? p : NULL;
}

/*
 * The process @pid, added (without maps) if new; NULL when out of memory,
 * and for pid 2^32 - 1 (perf's -1, the kernel's maps): its pid1 would wrap
 * to 0, the mark of an empty slot, and the next process added there would
 * drop its maps unfreed.
 */
static struct pp_proc *proc_get(struct pp_symtab *t, uint32_t pid)
{
	struct pp_proc *p;

	if (pid == UINT32_MAX)
		return NULL;
	if ((t->procs_nr + 1) * 2 > t->procs_cap) {
		size_t ncap = t->procs_cap ? t->procs_cap * 2 : 256, ocap = t->procs_cap;
		struct pp_proc *old = t->procs, *n = calloc(ncap, sizeof(*n));

		if (!n)
			return NULL;
		t->procs = n;
		t->procs_cap = ncap;
		for (size_t i = 0; i < ocap; i++) {
			if (old[i].pid1)
				*proc_slot(t, old[i].pid1 - 1) = old[i];
		}
		free(old);
	}
	p = proc_slot(t, pid);
	if (!p->pid1) {
		p->pid1 = pid + 1;
		p->ms = NULL;
		t->procs_nr++;
	}
	return p;
}

/* Make @p's map set its own (copy a shared one) with room for one more map. */
static int mapset_own(struct pp_proc *p)
{
	struct pp_mapset *ms = p->ms, *n;
	uint32_t cap;

	if (ms && ms->refs == 1 && (ms->free || ms->used < ms->cap))
		return 0;
	if (ms && ms->cap >= UINT32_MAX / 4)
		return -ENOMEM;
	cap = ms ? ms->used + 1 : 8;
	if (ms && ms->refs == 1)
		cap = ms->cap * 2;
	else if (cap < 8)
		cap = 8;
	if (ms && ms->refs == 1) {
		n = realloc(ms, sizeof(*n) + cap * sizeof(n->m[0]));
		if (!n)
			return -ENOMEM;
	} else {
		n = malloc(sizeof(*n) + cap * sizeof(n->m[0]));
		if (!n)
			return -ENOMEM;
		if (ms) {
			memcpy(n, ms, sizeof(*n) + ms->used * sizeof(n->m[0]));
			ms->refs--;
		} else {
			memset(n, 0, sizeof(*n));
		}
		n->refs = 1;
	}
	n->cap = cap;
	p->ms = n;
	return 0;
}

/**
 * pp_symtab__new() - empty symbol tables.
 * Return: tables or NULL.
 */
struct pp_symtab *pp_symtab__new(void)
{
	return calloc(1, sizeof(struct pp_symtab));
}

/**
 * pp_symtab__set_demangle() - demangle C++ and Rust names (the default) or not.
 * @t: tables; @on: 0 for the names as the files have them (--no-demangle).
 */
void pp_symtab__set_demangle(struct pp_symtab *t, int on)
{
	t->no_demangle = !on;
	t->gen++;
	t->kver = t->uver = t->gen;
}

/**
 * pp_symtab__set_debuginfod() - look debug files up on debuginfod servers
 * too (DEBUGINFOD_URLS) when this machine has none for a build-id.
 * @t: tables; @on: 1 to.
 */
void pp_symtab__set_debuginfod(struct pp_symtab *t, int on)
{
	t->debuginfod = on;
}

/*
 * The name @s prints as: demangled at its first lookup (most symbols of a
 * file are never looked up), then kept, so a frame costs it once.
 */
static const char *sym_name(struct pp_symtab *t, struct pp_sym *s)
{
	if (!s->dm_done && !t->no_demangle) {
		char *d = pp_demangle(s->name);

		s->dm_done = 1;
		if (d) {
			const char *o = own_str(t, d);

			if (o)
				s->name = o;
			free(d);
		}
	}
	return s->name;
}

/**
 * pp_symtab__free() - free; accepts NULL.
 * @t: tables.
 */
void pp_symtab__free(struct pp_symtab *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nr_strs; i++)
		free(t->strs[i]);
	for (size_t i = 0; i < t->nr_dsos; i++)
		free(t->dsos[i].syms);
	for (size_t i = 0; i < t->procs_cap; i++)
		mapset_put(t->procs[i].ms);
	free(t->strs);
	free(t->ksyms);
	free(t->kmod_start);
	free(t->dso_by_bid);
	free(t->dso_by_path);
	free(t->dsos);
	free(t->procs);
	free(t);
}

/*
 * By address; aliases at one address (libc's __GI_____strtol_l_internal and
 * __GI_____strtoll_l_internal) in perf's order of preference, the preferred
 * last, as sym_find() takes the last (pp_sym_order()). qsort alone left
 * the choice to chance, and perf script named another alias than pp.
 */
static int cmp_sym(const void *a, const void *b)
{
	const struct pp_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return pp_sym_order(x->name, y->name);
}

/**
 * pp_symtab__add_ksyms() - add a KSYMS item (one module's symbols).
 * @t: tables; @body, @size: item body.
 * Return: 0 or -errno.
 */
int pp_symtab__add_ksyms(struct pp_symtab *t, const uint8_t *body, size_t size)
{
	t->kver = ++t->gen;
	struct pp_cur c;
	const char *mod;
	uint32_t nr, zero;

	pp_cur__init(&c, body, size);
	if (pp_cur__str(&c, &mod) || pp_cur__align(&c, 8) || pp_cur__u32(&c, &nr) ||
	    pp_cur__u32(&c, &zero))
		return -EINVAL;
	mod = own_str(t, mod);
	if (!mod)
		return -ENOMEM;
	for (uint32_t i = 0; i < nr; i++) {
		uint64_t addr;
		uint32_t sz;
		uint8_t type;
		const char *name;

		if (pp_cur__u64(&c, &addr) || pp_cur__u32(&c, &sz) || pp_cur__u8(&c, &type) ||
		    pp_cur__str(&c, &name))
			return -EINVAL;
		if (t->nr_ksyms == t->cap_ksyms) {
			size_t n = t->cap_ksyms ? t->cap_ksyms * 2 : 4096;
			struct pp_sym *a = realloc(t->ksyms, n * sizeof(*a));

			if (!a)
				return -ENOMEM;
			t->ksyms = a;
			t->cap_ksyms = n;
		}
		t->ksyms[t->nr_ksyms].addr = addr;
		t->ksyms[t->nr_ksyms].size = sz;
		t->ksyms[t->nr_ksyms].name = own_str(t, name);
		if (!t->ksyms[t->nr_ksyms].name)
			return -ENOMEM;
		t->ksyms[t->nr_ksyms].mod = mod;
		t->ksyms[t->nr_ksyms].dm_done = 0;
		t->nr_ksyms++;
	}
	t->ksorted = 0;
	return 0;
}

static uint64_t hash_bytes(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h ^ h >> 29;
}

/*
 * The slot of the DSO with build-id @bid (@path NULL) or path @path in
 * table @h: its entry or the empty slot where it goes.
 */
static uint32_t *dso_slot(const struct pp_symtab *t, uint32_t *h, const uint8_t *bid, size_t bsz,
			  const char *path)
{
	size_t mask = t->dso_hcap - 1;
	size_t i = (path ? hash_bytes(path, strlen(path)) : hash_bytes(bid, bsz)) & mask;

	for (;; i = (i + 1) & mask) {
		const struct pp_dso *d;

		if (!h[i])
			return &h[i];
		d = &t->dsos[h[i] - 1];
		if (path ? !strcmp(d->path, path) :
		    d->build_id_size == bsz && !memcmp(d->build_id, bid, bsz))
			return &h[i];
	}
}

/* Index DSO @i by its build-id (if any) and, the first of its path, by path. */
static void dso_hash_add(struct pp_symtab *t, size_t i)
{
	const struct pp_dso *d = &t->dsos[i];
	uint32_t *e;

	if (d->build_id_size) {
		e = dso_slot(t, t->dso_by_bid, d->build_id, d->build_id_size, NULL);
		if (!*e)
			*e = (uint32_t)i + 1;
	}
	e = dso_slot(t, t->dso_by_path, NULL, 0, d->path);
	if (!*e)
		*e = (uint32_t)i + 1;
}

/* Room in the hashes for one more DSO (at most half full). Return: 0 or -ENOMEM. */
static int dso_hash_grow(struct pp_symtab *t)
{
	size_t ncap = t->dso_hcap ? t->dso_hcap * 2 : 256;
	uint32_t *b, *p;

	if ((t->nr_dsos + 1) * 2 <= t->dso_hcap)
		return 0;
	b = calloc(ncap, sizeof(*b));
	p = calloc(ncap, sizeof(*p));
	if (!b || !p) {
		free(b);
		free(p);
		return -ENOMEM;
	}
	free(t->dso_by_bid);
	free(t->dso_by_path);
	t->dso_by_bid = b;
	t->dso_by_path = p;
	t->dso_hcap = ncap;
	for (size_t i = 0; i < t->nr_dsos; i++)	/* in order: the first of a path stays */
		dso_hash_add(t, i);
	return 0;
}

/*
 * The DSO of build-id @bid (@bsz bytes, 0: unknown) or, without one known
 * on either side, of @path; created if new. Hashed: a file may name 100k DSOs.
 */
static struct pp_dso *dso_get(struct pp_symtab *t, const uint8_t *bid, size_t bsz, const char *path)
{
	uint32_t *e;

	if (dso_hash_grow(t))
		return NULL;
	if (bsz > 20)
		bsz = 20;
	if (bsz) {
		e = dso_slot(t, t->dso_by_bid, bid, bsz, NULL);
		if (*e)
			return &t->dsos[*e - 1];
	}
	if (path) {
		e = dso_slot(t, t->dso_by_path, NULL, 0, path);
		if (*e) {
			struct pp_dso *d = &t->dsos[*e - 1];

			/* by path only when one side has no build-id; then it takes this one */
			if (!bsz)
				return d;
			if (!d->build_id_size) {
				memcpy(d->build_id, bid, bsz);
				d->build_id_size = (uint8_t)bsz;
				*dso_slot(t, t->dso_by_bid, bid, bsz, NULL) = *e;
				return d;
			}
		}
	}
	if (t->nr_dsos == t->cap_dsos) {
		size_t n = t->cap_dsos ? t->cap_dsos * 2 : 64;
		struct pp_dso *a = realloc(t->dsos, n * sizeof(*a));

		if (!a)
			return NULL;
		t->dsos = a;
		t->cap_dsos = n;
	}
	struct pp_dso *d = &t->dsos[t->nr_dsos];

	memset(d, 0, sizeof(*d));
	d->build_id_size = (uint8_t)(bid && bsz ? (bsz > 20 ? 20 : bsz) : 0);
	if (d->build_id_size)
		memcpy(d->build_id, bid, d->build_id_size);
	d->path = own_str(t, path ? path : "[unknown]");
	if (!d->path)
		return NULL;
	d->short_name = strrchr(d->path, '/') ? strrchr(d->path, '/') + 1 : d->path;
	dso_hash_add(t, t->nr_dsos);
	t->nr_dsos++;
	return d;
}

/**
 * pp_symtab__add_usyms() - add a USYMS item (one DSO's function symbols).
 * @t: tables; @body, @size: item body.
 * Return: 0 or -errno.
 */
int pp_symtab__add_usyms(struct pp_symtab *t, const uint8_t *body, size_t size)
{
	t->uver = ++t->gen;
	struct pp_cur c;
	const uint8_t *bid;
	const char *path;
	uint8_t bsz, pad;
	uint32_t nr;
	struct pp_dso *d;

	uint8_t src;

	pp_cur__init(&c, body, size);
	if (pp_cur__u8(&c, &bsz) || pp_cur__u8(&c, &src) || pp_cur__u8(&c, &pad) ||
	    pp_cur__u8(&c, &pad) || pp_cur__bytes(&c, &bid, 20) || pp_cur__u32(&c, &nr) ||
	    pp_cur__str(&c, &path) || pp_cur__align(&c, 8))
		return -EINVAL;
	d = dso_get(t, bid, bsz > 20 ? 20 : bsz, path);
	if (!d)
		return -ENOMEM;
	if (nr > size / 13)
		return -EINVAL;
	struct pp_sym *a = realloc(d->syms, (d->nr_syms + nr) * sizeof(*a));

	if (!a)
		return -ENOMEM;
	d->syms = a;
	for (uint32_t i = 0; i < nr; i++) {
		uint64_t start;
		uint32_t sz;
		const char *name;

		if (pp_cur__u64(&c, &start) || pp_cur__u32(&c, &sz) || pp_cur__str(&c, &name))
			return -EINVAL;
		d->syms[d->nr_syms].addr = start;
		d->syms[d->nr_syms].size = sz;
		d->syms[d->nr_syms].name = own_str(t, name);
		d->syms[d->nr_syms].mod = NULL;
		d->syms[d->nr_syms].dm_done = 0;
		if (!d->syms[d->nr_syms].name)
			return -ENOMEM;
		d->nr_syms++;
	}
	d->sorted = 0;
	d->source = 1;
	if (src && src <= PP_USYMS_SRC_MAX)
		d->rec_source = src;
	return 0;
}

/* The map of @ms holding @addr, or NULL. */
static const struct pp_map *map_find(const struct pp_mapset *ms, uint64_t addr)
{
	const struct pp_map *best = NULL;

	for (uint32_t x = ms ? ms->root : 0; x;) {
		const struct pp_map *n = &ms->m[x - 1];

		if (n->start <= addr) {
			best = n;
			x = n->r;
		} else {
			x = n->l;
		}
	}
	return best && addr < best->end ? best : NULL;
}

/* Split tree @x into the maps starting below @key (@a) and the others (@b). */
static void map_split(struct pp_mapset *ms, uint32_t x, uint64_t key, uint32_t *a, uint32_t *b)
{
	while (x) {
		struct pp_map *n = &ms->m[x - 1];

		if (n->start < key) {
			*a = x;
			a = &n->r;
			x = n->r;
		} else {
			*b = x;
			b = &n->l;
			x = n->l;
		}
	}
	*a = *b = 0;
}

/* Join trees @a and @b, every start of @a below every start of @b. */
static uint32_t map_join(struct pp_mapset *ms, uint32_t a, uint32_t b)
{
	uint32_t root = 0, *at = &root;

	while (a && b) {
		if (ms->m[a - 1].prio >= ms->m[b - 1].prio) {
			*at = a;
			at = &ms->m[a - 1].r;
			a = ms->m[a - 1].r;
		} else {
			*at = b;
			at = &ms->m[b - 1].l;
			b = ms->m[b - 1].l;
		}
	}
	*at = a ? a : b;
	return root;
}

/* Free the maps of tree @x (each map is freed once: amortised O(1) each). */
static void map_free_tree(struct pp_mapset *ms, uint32_t x)
{
	while (x) {
		struct pp_map *n = &ms->m[x - 1];

		if (n->l) {		/* rotate the left child up: no stack needed */
			uint32_t l = n->l;

			n->l = ms->m[l - 1].r;
			ms->m[l - 1].r = x;
			x = l;
			continue;
		}
		uint32_t r = n->r;

		n->end = 0;
		n->l = ms->free;
		ms->free = x;
		ms->nr--;
		x = r;
	}
}

static int map_insert(struct pp_symtab *t, uint32_t pid, uint64_t start, uint64_t end,
		      uint64_t pgoff, int dso)
{
	struct pp_proc *p = proc_get(t, pid);
	struct pp_mapset *ms;
	uint32_t lo, mid, hi, x, *at;

	if (!p || mapset_own(p))
		return -ENOMEM;
	ms = p->ms;
	ms->uid = ++t->gen;
	/*
	 * Drop the maps of this process that the new one overlaps: those
	 * starting in [start, end), and the last one starting below start if
	 * it reaches past it (the maps never overlap one another).
	 */
	map_split(ms, ms->root, start, &lo, &hi);
	map_split(ms, hi, end, &mid, &hi);
	map_free_tree(ms, mid);
	for (at = &lo; *at && ms->m[*at - 1].r; at = &ms->m[*at - 1].r)
		;
	if (*at && ms->m[*at - 1].end > start) {
		x = *at;
		*at = ms->m[x - 1].l;
		ms->m[x - 1].l = 0;
		map_free_tree(ms, x);
	}
	if (ms->free) {
		x = ms->free;
		ms->free = ms->m[x - 1].l;
	} else {
		x = ++ms->used;
	}
	t->rng = t->rng * 6364136223846793005ull + 1442695040888963407ull;
	ms->m[x - 1] = (struct pp_map){ .start = start, .end = end, .pgoff = pgoff, .dso = dso,
					 .prio = (uint32_t)(t->rng >> 32) };
	ms->nr++;
	ms->root = map_join(ms, map_join(ms, lo, x), hi);
	return 0;
}

/**
 * pp_symtab__add_mmap() - a mapping of a file in a process.
 * @t: tables; @pid: process; @start, @len, @pgoff: the mapping;
 * @build_id, @build_id_size: the file's build-id (size 0 if unknown);
 * @filename: the file.
 * Return: 0 or -errno.
 */
int pp_symtab__add_mmap(struct pp_symtab *t, uint32_t pid, uint64_t start, uint64_t len,
			uint64_t pgoff, const uint8_t *build_id, size_t build_id_size,
			const char *filename)
{
	t->gen++;
	struct pp_dso *d;

	if (!len || start + len < start)
		return -EINVAL;
	d = dso_get(t, build_id, build_id_size, filename);
	if (!d)
		return -ENOMEM;
	return map_insert(t, pid, start, start + len, pgoff, (int)(d - t->dsos));
}

/**
 * pp_symtab__fork() - a new process inherits its parent's maps.
 * @t: tables; @ppid: parent; @pid: child.
 *
 * A child without maps of its own shares the parent's set (copied when
 * either changes); one with maps gets each of the parent's inserted.
 */
void pp_symtab__fork(struct pp_symtab *t, uint32_t ppid, uint32_t pid)
{
	struct pp_proc *pp, *c;
	struct pp_mapset *pms;

	t->gen++;
	if (ppid == pid)
		return;
	pp = proc_find(t, ppid);
	if (!pp || !pp->ms || !pp->ms->nr)
		return;
	c = proc_get(t, pid);
	if (!c)
		return;
	pp = proc_find(t, ppid);	/* proc_get may have moved it */
	pms = pp->ms;
	if (!c->ms || !c->ms->nr) {
		mapset_put(c->ms);
		c->ms = pms;
		pms->refs++;
		return;
	}
	/* Inserting into the child never changes the parent's set: its copy is made first. */
	pms->refs++;
	for (uint32_t i = 0; i < pms->used; i++) {
		struct pp_map m = pms->m[i];

		if (m.end && map_insert(t, pid, m.start, m.end, m.pgoff, m.dso))
			break;
	}
	mapset_put(pms);
}

static struct pp_sym *sym_find(struct pp_sym *syms, size_t nr, uint64_t addr)
{
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	struct pp_sym *s = &syms[lo - 1];

	if (s->size && addr >= s->addr + s->size)
		return NULL;
	return s;
}

/*
 * Take the functions of @e as @d's, by file offset (a mapping's pgoff plus
 * the distance into it, whatever the load bias). Return: 0, -ENOENT if
 * there are none, or -ENOMEM.
 */
static int take_funcs(struct pp_symtab *t, struct pp_dso *d, struct pp_elf *e, int append)
{
	size_t nsym = pp_elf__nr_symbols(e), pos = 0, nr = 0;
	struct pp_elf_sym b[256];
	struct pp_sym *syms;
	int n;

	if (!nsym)
		return -ENOENT;
	syms = malloc(nsym * sizeof(*syms));
	if (!syms)
		return -ENOMEM;
	while ((n = pp_elf__funcs(e, &pos, b, 256)) > 0) {
		for (int i = 0; i < n; i++) {
			if (!b[i].name[0])
				continue;
			syms[nr].addr = b[i].offset;
			syms[nr].size = b[i].size;
			syms[nr].mod = NULL;
			syms[nr].dm_done = 0;
			syms[nr].name = own_str(t, b[i].name);
			if (!syms[nr].name) {
				free(syms);
				return -ENOMEM;
			}
			nr++;
		}
	}
	if (n < 0 || !nr) {
		free(syms);
		return n < 0 ? n : -ENOENT;
	}
	if (append && d->nr_syms) {
		struct pp_sym *all = realloc(d->syms, (d->nr_syms + nr) * sizeof(*all));

		if (!all) {
			free(syms);
			return -ENOMEM;
		}
		memcpy(all + d->nr_syms, syms, nr * sizeof(*syms));
		free(syms);
		syms = all;
		nr += d->nr_syms;
	} else {
		free(d->syms);
	}
	d->syms = syms;
	d->nr_syms = nr;
	d->sorted = 0;
	return 0;
}

/* Whether @e has the build-id recorded for @d (or none was). */
static int bid_matches(const struct pp_dso *d, struct pp_elf *e)
{
	uint8_t bid[PP_ELF_BUILD_ID_MAX];

	return !d->build_id_size || (pp_elf__build_id(e, bid) == d->build_id_size &&
				     !memcmp(bid, d->build_id, d->build_id_size));
}

/*
 * The functions of @d's debug file in /usr/lib/debug/.build-id. Its file
 * offsets are those of the DSO's segments when the DSO is here too, else
 * the debug file's addresses (pp_elf's rule for a debug file alone).
 */
static int load_debug_elf(struct pp_symtab *t, struct pp_dso *d, struct pp_elf *e, int append);

/*
 * The functions of @d's debug file by build-id: in /usr/lib/debug/.build-id,
 * else (--debuginfod, DEBUGINFOD_URLS) from a debuginfod server.
 */
static int load_debug_dir(struct pp_symtab *t, struct pp_dso *d, int append)
{
	char path[512];
	struct pp_elf *e;
	int ret = -ENOENT;

	if (pp_elf_build_id_path(d->build_id, d->build_id_size, path, sizeof(path)))
		return -ENOENT;
	e = pp_elf__open(path);
	if (e)
		ret = load_debug_elf(t, d, e, append);
	if (ret && t->debuginfod) {	/* not here: from a debuginfod server */
		int fd = pp_debuginfod_find(d->build_id, d->build_id_size);

		e = fd >= 0 ? pp_elf__open_fd(fd) : NULL;
		if (e)
			ret = load_debug_elf(t, d, e, append);
	}
	return ret;
}

/* The functions of debug file @e of @d (closed here). */
static int load_debug_elf(struct pp_symtab *t, struct pp_dso *d, struct pp_elf *e, int append)
{
	struct pp_elf *orig;
	int ret = -ENOENT;

	orig = d->path && d->path[0] == '/' ? pp_elf__open(d->path) : NULL;
	if (orig && bid_matches(d, orig)) {
		const struct pp_elf_seg *segs;
		int n = pp_elf__segments(orig, &segs);

		pp_elf__set_segments(e, segs, n);
	}
	pp_elf__close(orig);
	if (bid_matches(d, e))
		ret = take_funcs(t, d, e, append);
	pp_elf__close(e);
	return ret;
}

/*
 * The functions of the DSO at its path on this machine, if its build-id
 * matches: of its .symtab, of its debug file's (debuglink) when it has
 * only a .dynsym, else of its .dynsym.
 */
static int load_local(struct pp_symtab *t, struct pp_dso *d)
{
	struct pp_elf *e = pp_elf__open(d->path), *dbg;
	int ret = -ENOENT;

	if (!e)
		return -ENOENT;
	if (!bid_matches(d, e))
		goto out;
	if (!pp_elf__has_symtab(e)) {
		dbg = pp_elf__debug_file(e, d->path);
		ret = dbg && pp_elf__has_symtab(dbg) ? take_funcs(t, d, dbg, 0) : -ENOENT;
		pp_elf__close(dbg);
		if (!ret)
			goto out;
		dbg = pp_elf__minidebug(e);	/* with the .dynsym's functions */
		ret = dbg && pp_elf__has_symtab(dbg) ? take_funcs(t, d, dbg, 0) : -ENOENT;
		pp_elf__close(dbg);
		if (!ret) {
			take_funcs(t, d, e, 1);
			goto out;
		}
	}
	ret = take_funcs(t, d, e, 0);
out:
	pp_elf__close(e);
	return ret;
}

static void dso_load(struct pp_symtab *t, struct pp_dso *d)
{
	if (d->source)
		return;
	d->source = -1;
	if (d->build_id_size >= 2 && !load_debug_dir(t, d, 0)) {
		d->source = 2;
		return;
	}
	if (d->path && d->path[0] == '/' && !load_local(t, d))
		d->source = 3;
}

static void ensure_sorted(struct pp_sym *syms, size_t nr, int *sorted)
{
	if (!*sorted) {
		if (nr)		/* syms may be NULL then */
			qsort(syms, nr, sizeof(*syms), cmp_sym);
		*sorted = 1;
	}
}

/* strlcpy: symbol names are copied per frame, snprintf("%s") was a quarter of profile. */
static void copy_name(char *buf, size_t len, const char *name)
{
	size_t n = strlen(name);

	if (!len)
		return;
	if (n >= len)
		n = len - 1;
	memcpy(buf, name, n);
	buf[n] = '\0';
}

/* A symbol without a size (the last of kallsyms, or an old file) covers this much. */
#define PP_KSYM_NOSIZE_SPAN	0x10000ull

/* Lowest address of the vmlinux symbols ("" module), computed once sorted. */
static uint64_t kernel_base(struct pp_symtab *t)
{
	if (!t->kbase_ok) {
		t->kbase = 0;
		for (size_t i = 0; i < t->nr_ksyms; i++) {
			if (!t->ksyms[i].mod || !t->ksyms[i].mod[0]) {
				t->kbase = t->ksyms[i].addr;
				break;
			}
		}
		t->kbase_ok = 1;
	}
	return t->kbase;
}

/*
 * Kernel address -> "func", using the recorded size: an address past the end
 * of the nearest symbol below it is not that symbol (only the symbols that
 * were hit are stored) and prints as "[kernel]+0xoff" (from the lowest
 * vmlinux symbol) or "module+0xoff" (from the module's lowest symbol).
 */
static int ksym_lookup(struct pp_symtab *t, uint64_t addr, char *buf, size_t len, const char **dso)
{
	size_t lo = 0, hi;
	struct pp_sym *s;

	if (!t->ksorted) {
		uint64_t *ms = NULL;

		if (t->nr_ksyms) {
			qsort(t->ksyms, t->nr_ksyms, sizeof(*t->ksyms), cmp_sym);
			ms = malloc(t->nr_ksyms * sizeof(*ms));
		}
		/* where each module's run starts, once: not a walk back per miss */
		for (size_t i = 0; ms && i < t->nr_ksyms; i++) {
			const struct pp_sym *k = &t->ksyms[i];

			ms[i] = i && k->mod && t->ksyms[i - 1].mod &&
				!strcmp(k->mod, t->ksyms[i - 1].mod) ? ms[i - 1] : k->addr;
		}
		free(t->kmod_start);
		t->kmod_start = ms;
		t->ksorted = 1;
		t->kbase_ok = 0;
	}
	hi = t->nr_ksyms;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (t->ksyms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	s = lo ? &t->ksyms[lo - 1] : NULL;
	if (dso)
		*dso = s && s->mod && s->mod[0] ? s->mod : "[kernel.kallsyms]";
	if (s && (s->size ? addr - s->addr < s->size : addr - s->addr < PP_KSYM_NOSIZE_SPAN)) {
		copy_name(buf, len, sym_name(t, s));
		return 1;
	}
	if (s && s->mod && s->mod[0]) {
		uint64_t start = t->kmod_start ? t->kmod_start[lo - 1] : s->addr;

		snprintf(buf, len, "%s+0x%llx", s->mod, (unsigned long long)(addr - start));
		return 0;
	}
	if (t->nr_ksyms && addr >= kernel_base(t) && kernel_base(t))
		snprintf(buf, len, "[kernel]+0x%llx", (unsigned long long)(addr - kernel_base(t)));
	else
		snprintf(buf, len, "[kernel]+0x%llx", (unsigned long long)addr);
	return 0;
}

/**
 * pp_symtab__lookup() - symbolize an address.
 * @t: tables; @pid: process; @addr: address; @kernel: a kernel address;
 * @buf, @len: receives the function name, or "dso+0xoff", or "0xaddr";
 * @dso: receives the DSO name (may be NULL).
 * Return: 1 if a symbol was found, else 0.
 */
int pp_symtab__lookup(struct pp_symtab *t, uint32_t pid, uint64_t addr, int kernel, char *buf,
		      size_t len, const char **dso)
{
	struct pp_sym *s;

	if (kernel)
		return ksym_lookup(t, addr, buf, len, dso);
	const struct pp_proc *p = proc_find(t, pid);
	const struct pp_map *m = map_find(p ? p->ms : NULL, addr);

	if (m) {
		struct pp_dso *d = &t->dsos[m->dso];
		uint64_t off = addr - m->start + m->pgoff;

		dso_load(t, d);
		if (dso)
			*dso = d->short_name;
		ensure_sorted(d->syms, d->nr_syms, &d->sorted);
		s = sym_find(d->syms, d->nr_syms, off);
		if (!s && d->source == 1)	/* a JIT map's symbols are absolute */
			s = sym_find(d->syms, d->nr_syms, addr);
		/*
		 * An address the file could not name (its DSO named from .dynsym,
		 * or no debug file where it was recorded): this machine's debug
		 * file of the build-id, once, its functions added to the file's.
		 */
		if (!s && d->source == 1 && !d->more_tried && d->build_id_size >= 2 &&
		    d->rec_source != PP_USYMS_SRC_PERFMAP) {
			d->more_tried = 1;
			if (!load_debug_dir(t, d, 1)) {
				t->uver = ++t->gen;
				d->sorted = 0;
				ensure_sorted(d->syms, d->nr_syms, &d->sorted);
				s = sym_find(d->syms, d->nr_syms, off);
			}
		}
		/*
		 * Just past a function, in no other: the return address of its
		 * last instruction, a call that does not return (exit() calling
		 * __run_exit_handlers()), as a walk by the tables finds it
		 */
		if (!s && off && (s = sym_find(d->syms, d->nr_syms, off - 1)) &&
		    (!s->size || off != s->addr + s->size))
			s = NULL;
		if (s) {
			copy_name(buf, len, sym_name(t, s));
			return 1;
		}
		snprintf(buf, len, "%s+0x%llx", d->short_name, (unsigned long long)off);
		return 0;
	}
	if (dso)
		*dso = "[unknown]";
	snprintf(buf, len, "0x%llx", (unsigned long long)addr);
	return 0;
}

/* User addresses end below this (x86-64 with 5-level paging: 57 bits). */
#define PP_USER_ADDR_END	(1ull << 56)
/* A run of this many equal frames ending the chain is a frame-pointer loop. */
#define PP_LOOP_RUN		4

/**
 * pp_symtab__cut_chain() - where a callchain's user frames stop being frames.
 * @t: tables; @pid: the sample's process; @chain, @nr: its callchain,
 *   callee first, context markers included.
 *
 * A frame-pointer walk through code built without frame pointers reads
 * whatever the register held: zeros, small integers, ASCII words, a loop.
 * The chain is cut at its first user frame that is below 4096, not a user
 * address, or (when the process's maps are known) outside every executable
 * map; a run of PP_LOOP_RUN or more equal frames that ends the chain (a
 * walk going round until the kernel's depth limit) keeps its first frame.
 * Kernel frames come from the kernel's own unwinder and are kept. Zeros
 * that end the chain are where a walk found no next frame: they are cut
 * too, but are no junk (@junk stays 0).
 * @junk: set to 1 when a junk frame was cut.
 * Return: how many entries to keep (@nr when all are good).
 */
uint32_t pp_symtab__cut_chain(const struct pp_symtab *t, uint32_t pid, const uint64_t *chain,
			      uint32_t nr, int *junk)
{
	const struct pp_proc *p = proc_find(t, pid);
	const struct pp_mapset *ms = p && p->ms && p->ms->nr ? p->ms : NULL;
	int user = 0;

	for (uint32_t i = 0; i < nr; i++) {
		uint64_t ip = chain[i];
		uint32_t j;

		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			user = ip == (uint64_t)PERF_CONTEXT_USER;
			continue;
		}
		if (!user)
			continue;
		if (ip < 4096 || ip >= PP_USER_ADDR_END || (ms && !map_find(ms, ip))) {
			for (j = i; j < nr && !chain[j]; j++)
				;
			*junk = j < nr;
			return i;
		}
		for (j = i + 1; j < nr && chain[j] == ip; j++)
			;
		if (j == nr && j - i >= PP_LOOP_RUN) {
			*junk = 1;
			return i + 1;
		}
	}
	*junk = 0;
	return nr;
}

/**
 * pp_symtab__coverage() - counts for `pp-analyze info`.
 * @t: tables; @ksyms: kernel symbols; @dsos: DSOs known; @dsos_syms: DSOs
 * with embedded symbols; @maps: mappings.
 */
void pp_symtab__coverage(struct pp_symtab *t, uint64_t *ksyms, uint64_t *dsos, uint64_t *dsos_syms,
			 uint64_t *maps)
{
	*ksyms = t->nr_ksyms;
	*dsos = t->nr_dsos;
	*dsos_syms = 0;
	for (size_t i = 0; i < t->nr_dsos; i++)
		*dsos_syms += t->dsos[i].source == 1;
	*maps = 0;
	for (size_t i = 0; i < t->procs_cap; i++) {
		if (t->procs[i].pid1 && t->procs[i].ms)
			*maps += t->procs[i].ms->nr;
	}
}

/**
 * pp_symtab__dso() - one DSO of the tables, for `pp-analyze info`.
 * @t: tables; @i: 0 to the number of DSOs pp_symtab__coverage() gave;
 * @path: receives its path; @source: receives PP_USYMS_SRC_* for a DSO
 *   with embedded symbols (0: not said), -1 for one without;
 * @nr_syms: receives the number of symbols it has so far.
 * Return: 0, or -ENOENT past the last DSO.
 */
int pp_symtab__dso(const struct pp_symtab *t, size_t i, const char **path, int *source,
		   size_t *nr_syms)
{
	const struct pp_dso *d;

	if (i >= t->nr_dsos)
		return -ENOENT;
	d = &t->dsos[i];
	*path = d->path;
	*source = d->source == 1 ? d->rec_source : -1;
	*nr_syms = d->nr_syms;
	return 0;
}

/**
 * pp_symtab__version() - what the answer of a lookup of an address of @pid
 * (@kernel: of a kernel address) depends on, as one number: the state of
 * the process's maps (shared by the processes that share them) and of the
 * symbols. Two lookups of the same address under the same version give the
 * same name, whatever the pid.
 */
uint64_t pp_symtab__version(const struct pp_symtab *t, uint32_t pid, int kernel)
{
	const struct pp_proc *p;

	if (kernel)
		return 1ull << 63 | t->kver;
	p = proc_find(t, pid);
	return (uint64_t)t->uver << 32 | (p && p->ms ? p->ms->uid : 0);
}

/**
 * pp_symtab__map() - the mapping @addr of @pid falls in (@kernel: the kernel's).
 * @t: tables; @m: receives it (strings lent until the tables change).
 * Return: 1 when found, else 0.
 */
int pp_symtab__map(struct pp_symtab *t, uint32_t pid, uint64_t addr, int kernel,
		   struct pp_map_info *m)
{
	if (kernel) {
		*m = (struct pp_map_info){ .start = kernel_base(t), .end = UINT64_MAX,
					   .path = "[kernel.kallsyms]" };
		if (addr < m->start)
			m->start = addr & ~0xfffull;
		return 1;
	}
	const struct pp_proc *p = proc_find(t, pid);
	const struct pp_map *mp = map_find(p ? p->ms : NULL, addr);

	if (!mp)
		return 0;
	const struct pp_dso *d = &t->dsos[mp->dso];

	*m = (struct pp_map_info){ .start = mp->start, .end = mp->end, .pgoff = mp->pgoff,
				   .path = d->path, .build_id = d->build_id,
				   .build_id_size = d->build_id_size };
	return 1;
}

/**
 * pp_symtab__sym_offset() - how far @addr of @pid is into its symbol.
 * @t: tables; @kernel: a kernel address; @off: receives the distance.
 * Return: 1 when @addr is in a known symbol (as pp_symtab__lookup() finds
 * it), else 0.
 */
int pp_symtab__sym_offset(struct pp_symtab *t, uint32_t pid, uint64_t addr, int kernel,
			  uint64_t *off)
{
	char name[8];

	/* the lookup loads and sorts what the search below needs */
	if (!pp_symtab__lookup(t, pid, addr, kernel, name, sizeof(name), NULL))
		return 0;
	if (kernel) {
		const struct pp_sym *s = sym_find(t->ksyms, t->nr_ksyms, addr);

		if (!s) {	/* a symbol without size: the nearest one below */
			size_t lo = 0, hi = t->nr_ksyms;

			while (lo < hi) {
				size_t mid = (lo + hi) / 2;

				if (t->ksyms[mid].addr <= addr)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (!lo)
				return 0;
			s = &t->ksyms[lo - 1];
		}
		*off = addr - s->addr;
		return 1;
	}
	const struct pp_proc *p = proc_find(t, pid);
	const struct pp_map *m = map_find(p ? p->ms : NULL, addr);

	if (!m)
		return 0;
	struct pp_dso *d = &t->dsos[m->dso];
	uint64_t foff = addr - m->start + m->pgoff;
	const struct pp_sym *s = sym_find(d->syms, d->nr_syms, foff);

	if (s) {
		*off = foff - s->addr;
		return 1;
	}
	s = sym_find(d->syms, d->nr_syms, addr);	/* a JIT map's symbols are absolute */
	if (!s)
		return 0;
	*off = addr - s->addr;
	return 1;
}
