// SPDX-License-Identifier: MIT
/*
 * Symbol snapshot and side-band for the recorder.
 *
 * The collector follows the process maps (a /proc snapshot at start, then
 * the MMAP2/COMM records found in the data) and the addresses of samples.
 * A kernel address marks its kallsyms symbol as hit; a user address finds
 * its mapping and DSO, whose function symbols are read once (deduplicated by
 * build-id) while the process or file still exists; only the symbols that
 * samples hit go into the file, each once. What is new is handed out as
 * KSYMS/USYMS items by pp_syms__pending().
 *
 * USYMS entry starts are file offsets (ELF vaddr converted through the
 * PT_LOAD segment that holds it), so a reader maps a sample with
 * addr - map.start + map.pgoff and needs no program headers. JIT maps
 * (/tmp/perf-PID.map) carry absolute addresses and have no build-id.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "pp/elf.h"
#include "pp/sample.h"
#include "pp/tracefs.h"
#include "record.h"
#include "../bpf/ksym.h"

struct ksym {
	uint64_t addr;
	const char *name;	/* into pp_syms.kbuf */
	const char *module;	/* interned, "" = vmlinux */
	uint32_t size;		/* 0: unknown */
	char type;
	uint8_t hit;
};

struct usym {
	uint64_t start;
	uint32_t size;
	uint8_t emitted;	/* already in a USYMS item of this file */
	const char *name;
};

struct dso {
	char *path;
	uint8_t build_id[20];
	uint8_t bid_size;
	int8_t state;		/* 0 not loaded, 1 loaded (JIT: emitted), -1 failed */
	uint8_t jit;
	uid_t ruid, euid;	/* JIT: the process's, which its perf map must be owned by */
	dev_t dev;
	ino_t ino;
	/*
	 * Function symbols read at first sight (while the file is there), in
	 * file order until the lookups make sorting them pay (dso_sort()); only
	 * those that samples hit go into the file, as they are hit.
	 */
	struct usym *syms;
	size_t nr_syms;
	uint8_t sorted;		/* syms sorted by start (else in file order) */
	uint32_t lookups;	/* addresses looked up while not sorted */
	void *map;		/* the mapped string table the names point into */
	size_t map_len;
	void *map2;		/* MiniDebugInfo: the .dynsym's, the names of the rest */
	size_t map2_len;
	size_t *hits;		/* indices into syms hit since the last flush */
	size_t nr_hits, cap_hits;
	uint8_t announced;	/* a USYMS item was written: the file covers this DSO */
	uint8_t source;		/* PP_USYMS_SRC_*: where its functions came from */
};

struct map {
	uint64_t start, end, pgoff;
	uint64_t ns;		/* when it was mapped (0: before anything known) */
	int dso;
};

/*
 * The maps of one process, newest last (a newer map shadows an older one).
 * The side-band comes per CPU, so a process's FORK, exec and MMAP2 records
 * are scanned in an order that may not be the order they happened in: each
 * map keeps its time, and a child keeps a link to its parent instead of a
 * copy of the parent's maps as far as they were scanned at the FORK.
 */
struct pmaps {
	uint32_t pid;
	uint8_t used, jit_tried;	/* jit_tried: 1 looked, 2 has a perf map */
	uint8_t learnt;		/* pp_syms__learn() read /proc for this process */
	uint32_t ppid;		/* forked from, or 0 */
	uint64_t fork_ns;	/* the parent's maps older than this are ours */
	uint64_t exec_ns;	/* our own maps older than this are gone */
	uint64_t exit_ns;	/* its EXIT's time, or 0: alive */
	uint32_t kids;		/* processes linked to it (ppid): kept while they are */
	struct map *v;
	size_t n, cap;
};

/*
 * An exited process's maps are kept this long in the scan's time (records
 * of other CPUs' streams come later), then released (graves_collect()).
 */
#define GRAVE_NS	2000000000ull

#define PARENT_DEPTH	8	/* parent links followed at most */

struct pp_syms {
	int all_kallsyms;
	int ksyms_loaded;
	struct ksym *ksyms;
	size_t nr_ksyms, cap_ksyms;
	char *kbuf;		/* /proc/kallsyms as read, names cut in place */
	/* Or symbols asked for one by one (names then owned, NULL fn: kallsyms). */
	int (*ksym_fn)(void *ctx, uint64_t addr, char *text, size_t len);
	void *ksym_ctx;
	uint64_t *kmiss;	/* sorted addresses the kernel knew no symbol for */
	size_t nr_kmiss, cap_kmiss;
	size_t *kpend;		/* indices of newly hit ksyms */
	size_t nr_kpend, cap_kpend;
	int kall_pending;	/* --kallsyms=all: emit everything once */
	char **modules;
	size_t nr_modules;

	struct dso *dsos;
	size_t nr_dsos;
	int *dpend;		/* dsos to load and emit */
	size_t nr_dpend, cap_dpend;

	/* Open-addressed by pid: a lookup costs the same with 10 or 10000 processes. */
	struct pmaps *pm;
	size_t pm_cap, pm_used;
	/* exited processes whose maps are to be released, in the order seen */
	struct grave {
		uint32_t pid;
		uint64_t exit_ns;
	} *grave;
	size_t nr_grave, cap_grave;
	uint64_t scan_ns;	/* the newest record time scanned */
	uint64_t grave_next;	/* when (scan_ns) the graves are looked at again */
	uint32_t last_pid;	/* the map uaddr_hit found last */
	size_t last_map;
	uint32_t last_gen;	/* under the maps of then (maps_gen): a newer one may cover it */
	/*
	 * User addresses no map held when scanned: the FORK, exec or MMAP2
	 * that tells their map may come in another CPU's stream, scanned
	 * later. Tried again after each scan, for UPEND_SCANS scans.
	 */
	struct upend {
		uint64_t addr;
		uint32_t pid, scans;
	} *upend;
	size_t nr_upend, cap_upend;
	uint16_t *upend_slot;	/* (pid, addr) -> upend index + 1: each waits once */

	/*
	 * User addresses hit already, under the maps as they were (@maps_gen,
	 * which every change to the maps bumps): a stack's frames come again
	 * and again, and each would be sought through its process's maps.
	 */
	struct uhit {
		uint64_t addr;
		uint32_t pid, gen;
	} *uhits;
	uint32_t maps_gen;

	struct pp_buf new_mmaps;

	/*
	 * --call-graph=dwarf: a process's maps read from /proc when the
	 * records that tell them are in another CPU's stream, not scanned yet.
	 * Read at most once per unwound sample (@gen: unwind_gen then).
	 */
	struct procmaps {
		uint32_t pid;
		uint64_t gen;
		size_t n, cap;
		struct procmap {
			uint64_t start, end, pgoff;
			char *path;
		} *v;
	} procmaps;
	uint64_t unwind_gen;
};

static void procmaps_clear(struct procmaps *pm)
{
	for (size_t i = 0; i < pm->n; i++)
		free(pm->v[i].path);
	pm->n = 0;
}

/**
 * pp_syms__new() - a symbol collector.
 * @all_kallsyms: emit every kernel symbol, not only the hit ones.
 * Return: collector or NULL.
 */
struct pp_syms *pp_syms__new(int all_kallsyms)
{
	struct pp_syms *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->all_kallsyms = all_kallsyms;
	s->kall_pending = all_kallsyms;
	pp_buf__init(&s->new_mmaps);
	return s;
}

/** pp_syms__free() - free. @s: collector or NULL. */
void pp_syms__free(struct pp_syms *s)
{
	size_t i;

	if (!s)
		return;
	if (!s->kbuf)
		for (i = 0; i < s->nr_ksyms; i++)
			free((char *)s->ksyms[i].name);
	free(s->ksyms);
	free(s->kbuf);
	free(s->kmiss);
	free(s->uhits);
	free(s->grave);
	for (i = 0; i < s->nr_modules; i++)
		free(s->modules[i]);
	free(s->modules);
	free(s->kpend);
	for (i = 0; i < s->nr_dsos; i++) {
		free(s->dsos[i].path);
		free(s->dsos[i].syms);
		if (s->dsos[i].map)
			munmap(s->dsos[i].map, s->dsos[i].map_len);
		if (s->dsos[i].map2)
			munmap(s->dsos[i].map2, s->dsos[i].map2_len);
		free(s->dsos[i].hits);
	}
	free(s->dsos);
	free(s->dpend);
	for (i = 0; i < s->pm_cap; i++)
		free(s->pm[i].v);
	free(s->pm);
	free(s->upend);
	free(s->upend_slot);
	procmaps_clear(&s->procmaps);
	free(s->procmaps.v);
	pp_buf__exit(&s->new_mmaps);
	free(s);
}

static const char *intern_module(struct pp_syms *s, const char *m, size_t len)
{
	char **nv;
	size_t i;

	for (i = 0; i < s->nr_modules; i++)
		if (strlen(s->modules[i]) == len && !strncmp(s->modules[i], m, len))
			return s->modules[i];
	nv = realloc(s->modules, (s->nr_modules + 1) * sizeof(*nv));
	if (!nv)
		return "";
	s->modules = nv;
	nv[s->nr_modules] = strndup(m, len);
	if (!nv[s->nr_modules])
		return "";
	return nv[s->nr_modules++];
}

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * Merge the sorted runs @k[0, @mid) and @k[@mid, @n) in place, from the
 * back, with a copy of the (short) second run. Without memory, sort.
 */
static void merge_tail(struct ksym *k, size_t mid, size_t n)
{
	size_t nt = n - mid, i = mid, j = nt, o = n;
	struct ksym *tail;

	if (!mid || !nt || k[mid - 1].addr <= k[mid].addr)
		return;
	tail = malloc(nt * sizeof(*tail));
	if (!tail) {
		qsort(k, n, sizeof(*k), ksym_cmp);
		return;
	}
	memcpy(tail, k + mid, nt * sizeof(*tail));
	while (j) {
		if (i && k[i - 1].addr > tail[j - 1].addr)
			k[--o] = k[--i];
		else
			k[--o] = tail[--j];
	}
	free(tail);
}

/*
 * Kernel text symbols from /proc/kallsyms, read in one block and parsed in
 * place (names stay in the block). The core kernel comes sorted; only the
 * modules' part usually needs sorting, and a sorted list is not sorted again.
 */
static void load_kallsyms(struct pp_syms *s)
{
	const char *last_mod = NULL, *vmlinux;
	size_t cap = 0, len, sorted_to = 0, last_len = 0;
	char *p, *line_end;

	s->ksyms_loaded = 1;
	s->kbuf = pp_file_read("/proc/kallsyms", &len);
	if (!s->kbuf)
		return;
	vmlinux = intern_module(s, "", 0);
	for (p = s->kbuf; *p; p = line_end + 1) {
		char *end, *name, *mod, type;
		unsigned long long addr;
		struct ksym *k;

		line_end = strchr(p, '\n');
		if (!line_end)
			line_end = p + strlen(p) - 1;
		else
			*line_end = 0;
		addr = strtoull(p, &end, 16);
		if (end == p || end[0] != ' ' || !end[1] || end[2] != ' ')
			continue;
		type = end[1];
		if (!addr || !(type == 't' || type == 'T' || type == 'w' || type == 'W'))
			continue;
		name = end + 3;
		mod = strchr(name, '\t');
		if (s->nr_ksyms == cap) {
			struct ksym *nv;

			cap = cap ? cap * 2 : 65536;
			nv = realloc(s->ksyms, cap * sizeof(*nv));
			if (!nv)
				break;
			s->ksyms = nv;
		}
		k = &s->ksyms[s->nr_ksyms];
		k->addr = addr;
		k->type = type;
		k->hit = 0;
		k->name = name;
		k->module = vmlinux;
		if (mod) {
			size_t ml;

			*mod++ = 0;
			if (*mod == '[')
				mod++;
			ml = strcspn(mod, "]");
			if (!last_mod || ml != last_len || strncmp(last_mod, mod, ml)) {
				last_mod = intern_module(s, mod, ml);
				last_len = ml;
			}
			k->module = last_mod;
		}
		if (sorted_to == s->nr_ksyms &&
		    (!s->nr_ksyms || s->ksyms[s->nr_ksyms - 1].addr <= addr))
			sorted_to++;
		s->nr_ksyms++;
	}
	if (sorted_to < s->nr_ksyms) {
		/* Sort the tail (modules, BPF programs), then merge it into the core. */
		qsort(s->ksyms + sorted_to, s->nr_ksyms - sorted_to, sizeof(*s->ksyms), ksym_cmp);
		merge_tail(s->ksyms, sorted_to, s->nr_ksyms);
	}
	for (size_t i = 0; i + 1 < s->nr_ksyms; i++) {
		uint64_t size = s->ksyms[i + 1].addr - s->ksyms[i].addr;

		s->ksyms[i].size = size > 0xffffffffu ? 0 : (uint32_t)size;
	}
}

/**
 * pp_syms__set_ksym_fn() - resolve kernel addresses one by one.
 * @s: collector; @fn: gives the "%pS" text of an address (-ENOSYS before
 * any symbol was found: unavailable, read /proc/kallsyms); @ctx: for @fn.
 */
void pp_syms__set_ksym_fn(struct pp_syms *s,
			  int (*fn)(void *ctx, uint64_t addr, char *text, size_t len), void *ctx)
{
	if (s->all_kallsyms || s->ksyms_loaded)
		return;
	s->ksym_fn = fn;
	s->ksym_ctx = ctx;
}

/* Index of the last symbol starting at or below @addr, or nr_ksyms if none. */
static size_t ksym_find(const struct pp_syms *s, uint64_t addr)
{
	size_t lo = 0, hi = s->nr_ksyms;

	if (!hi || addr < s->ksyms[0].addr)
		return s->nr_ksyms;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->ksyms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Position of @addr in the sorted array @v of @n, and whether it is there. */
static size_t u64_find(const uint64_t *v, size_t n, uint64_t addr, int *found)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < n && v[lo] == addr;
	return lo;
}

static void kmiss_add(struct pp_syms *s, uint64_t addr)
{
	int found;
	size_t at = u64_find(s->kmiss, s->nr_kmiss, addr, &found);

	if (found)
		return;
	if (s->nr_kmiss == s->cap_kmiss) {
		size_t ncap = s->cap_kmiss ? s->cap_kmiss * 2 : 64;
		uint64_t *nv = realloc(s->kmiss, ncap * sizeof(*nv));

		if (!nv)
			return;
		s->kmiss = nv;
		s->cap_kmiss = ncap;
	}
	memmove(s->kmiss + at + 1, s->kmiss + at, (s->nr_kmiss - at) * sizeof(*s->kmiss));
	s->kmiss[at] = addr;
	s->nr_kmiss++;
}

/*
 * The symbol holding @addr, asked of s->ksym_fn and inserted in order.
 * Return: its index, or nr_ksyms if there is none.
 */
static size_t ksym_resolve(struct pp_syms *s, uint64_t addr)
{
	struct pp_ksym_text t;
	char text[PP_KSYM_TEXT_LEN], *name;
	struct ksym *k;
	size_t at, i;
	int found, ret;

	u64_find(s->kmiss, s->nr_kmiss, addr, &found);
	if (found)
		return s->nr_ksyms;
	ret = s->ksym_fn(s->ksym_ctx, addr, text, sizeof(text));
	if (ret == -ENOSYS && !s->nr_ksyms) {
		/* the resolver cannot run here: /proc/kallsyms from now on */
		s->nr_kmiss = 0;
		s->ksym_fn = NULL;
		load_kallsyms(s);
		return ksym_find(s, addr);
	}
	if (ret || pp_ksym_parse(text, addr, &t) || (t.size && addr - t.start >= t.size)) {
		kmiss_add(s, addr);
		return s->nr_ksyms;
	}
	at = ksym_find(s, t.start);
	if (at < s->nr_ksyms && s->ksyms[at].addr == t.start)
		return at;		/* known start, address past its size */
	at = at < s->nr_ksyms ? at + 1 : 0;
	if (s->nr_ksyms == s->cap_ksyms) {
		size_t ncap = s->cap_ksyms ? s->cap_ksyms * 2 : 256;
		struct ksym *nv = realloc(s->ksyms, ncap * sizeof(*nv));

		if (!nv)
			return s->nr_ksyms;
		s->ksyms = nv;
		s->cap_ksyms = ncap;
	}
	name = strndup(t.name, t.name_len);
	if (!name)
		return s->nr_ksyms;
	memmove(s->ksyms + at + 1, s->ksyms + at, (s->nr_ksyms - at) * sizeof(*s->ksyms));
	s->nr_ksyms++;
	for (i = 0; i < s->nr_kpend; i++)
		if (s->kpend[i] >= at)
			s->kpend[i]++;
	k = &s->ksyms[at];
	k->addr = t.start;
	k->name = name;
	k->module = intern_module(s, t.module ? t.module : "", t.module_len);
	k->size = t.size;
	k->type = 't';
	k->hit = 0;
	return at;
}

static void kaddr_hit(struct pp_syms *s, uint64_t addr)
{
	size_t i;

	if (s->ksym_fn) {
		i = ksym_find(s, addr);
		if (i == s->nr_ksyms || !s->ksyms[i].size || addr - s->ksyms[i].addr >= s->ksyms[i].size)
			i = ksym_resolve(s, addr);
	} else {
		if (!s->ksyms_loaded)
			load_kallsyms(s);
		i = ksym_find(s, addr);
	}
	if (i == s->nr_ksyms)
		return;
	if (s->ksyms[i].hit)
		return;
	s->ksyms[i].hit = 1;
	if (s->all_kallsyms)
		return;
	if (s->nr_kpend == s->cap_kpend) {
		size_t ncap = s->cap_kpend ? s->cap_kpend * 2 : 256;
		size_t *nv = realloc(s->kpend, ncap * sizeof(*nv));

		if (!nv) {
			s->ksyms[i].hit = 0;
			return;
		}
		s->kpend = nv;
		s->cap_kpend = ncap;
	}
	s->kpend[s->nr_kpend++] = i;
}

/* The build-id of ELF file @path. Return: its size, or 0 (none, or not an ELF file). */
static int file_build_id(const char *path, uint8_t out[20])
{
	struct pp_elf *e = pp_elf__open(path);
	int n;

	if (!e)
		return 0;
	n = pp_elf__build_id(e, out);
	pp_elf__close(e);
	return n;
}

static int find_dso(struct pp_syms *s, const char *path, const uint8_t *bid, int bid_size)
{
	size_t i;

	for (i = 0; i < s->nr_dsos; i++) {
		struct dso *d = &s->dsos[i];

		if (bid_size && d->bid_size == bid_size && !memcmp(d->build_id, bid, (size_t)bid_size))
			return (int)i;
		if (!bid_size && !d->bid_size && !strcmp(d->path, path))
			return (int)i;
	}
	return -1;
}

static int add_dso(struct pp_syms *s, const char *path, const uint8_t *bid, int bid_size)
{
	struct dso *nv, *d;
	int i = find_dso(s, path, bid, bid_size);

	if (i >= 0)
		return i;
	nv = realloc(s->dsos, (s->nr_dsos + 1) * sizeof(*nv));
	if (!nv)
		return -1;
	s->dsos = nv;
	d = &nv[s->nr_dsos];
	memset(d, 0, sizeof(*d));
	d->path = strdup(path);
	if (!d->path)
		return -1;
	if (bid_size)
		memcpy(d->build_id, bid, (size_t)bid_size);
	d->bid_size = (uint8_t)bid_size;
	return (int)s->nr_dsos++;
}

static size_t pm_slot(uint32_t pid, size_t cap)
{
	return (size_t)((pid * 0x9e3779b97f4a7c15ull) >> 32) & (cap - 1);
}

/* The maps of @pid, or NULL when none were ever added. */
static struct pmaps *pm_find(const struct pp_syms *s, uint32_t pid)
{
	if (!s->pm_cap)
		return NULL;
	for (size_t i = pm_slot(pid, s->pm_cap);; i = (i + 1) & (s->pm_cap - 1)) {
		if (!s->pm[i].used)
			return NULL;
		if (s->pm[i].pid == pid)
			return &s->pm[i];
	}
}

/* The maps of @pid, created empty if new; NULL without memory. */
static struct pmaps *pm_get(struct pp_syms *s, uint32_t pid)
{
	struct pmaps *pm = pm_find(s, pid);
	size_t i;

	if (pm)
		return pm;
	if (2 * (s->pm_used + 1) > s->pm_cap) {
		size_t cap = s->pm_cap ? 2 * s->pm_cap : 256;
		struct pmaps *nv = calloc(cap, sizeof(*nv));

		if (!nv)
			return NULL;
		for (size_t k = 0; k < s->pm_cap; k++) {
			if (!s->pm[k].used)
				continue;
			for (i = pm_slot(s->pm[k].pid, cap); nv[i].used; i = (i + 1) & (cap - 1))
				;
			nv[i] = s->pm[k];
		}
		free(s->pm);
		s->pm = nv;
		s->pm_cap = cap;
	}
	for (i = pm_slot(pid, s->pm_cap); s->pm[i].used; i = (i + 1) & (s->pm_cap - 1))
		;
	s->pm[i].used = 1;
	s->pm[i].pid = pid;
	s->pm_used++;
	return &s->pm[i];
}

/* Forget @pm (its maps freed): later entries of its probe run move back. */
static void pm_delete(struct pp_syms *s, struct pmaps *pm)
{
	size_t i = (size_t)(pm - s->pm), j = i;

	free(pm->v);
	memset(pm, 0, sizeof(*pm));
	s->pm_used--;
	for (;;) {
		size_t k;

		j = (j + 1) & (s->pm_cap - 1);
		if (!s->pm[j].used)
			return;
		k = pm_slot(s->pm[j].pid, s->pm_cap);
		/* j's home k lies cyclically in (i, j]: it stays, else it fills i */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		s->pm[i] = s->pm[j];
		memset(&s->pm[j], 0, sizeof(s->pm[j]));
		i = j;
	}
}

/* @pid's link to its parent is gone (an exec, a release): the parent may go. */
static void pm_unlink(struct pp_syms *s, struct pmaps *pm)
{
	struct pmaps *pp = pm->ppid ? pm_find(s, pm->ppid) : NULL;

	if (pp && pp->kids)
		pp->kids--;
	pm->ppid = 0;
}

/* @pid exited at @ns: its maps go once the scan is GRAVE_NS past it. */
static void exit_maps(struct pp_syms *s, uint32_t pid, uint64_t ns)
{
	struct pmaps *pm = pm_find(s, pid);

	if (!pm || pm->exit_ns || (ns && ns < pm->exec_ns))
		return;		/* unknown, told already, or a process before it with this pid */
	pm->exit_ns = ns ? ns : s->scan_ns + 1;
	if (s->nr_grave == s->cap_grave) {
		size_t cap = s->cap_grave ? 2 * s->cap_grave : 256;
		struct grave *v = realloc(s->grave, cap * sizeof(*v));

		if (!v)
			return;	/* kept */
		s->grave = v;
		s->cap_grave = cap;
	}
	s->grave[s->nr_grave++] = (struct grave){ pid, pm->exit_ns };
}

/*
 * The maps of processes exited GRAVE_NS ago (in the scan's time) are
 * released, unless a process linked to them (forked before their exit)
 * still is: those are looked at again later. Once a second of scan time.
 */
static void graves_collect(struct pp_syms *s)
{
	size_t j = 0;

	if (s->scan_ns < s->grave_next)
		return;
	s->grave_next = s->scan_ns + 1000000000ull;
	for (size_t i = 0; i < s->nr_grave; i++) {
		struct grave g = s->grave[i];
		struct pmaps *pm = pm_find(s, g.pid);

		if (!pm || pm->exit_ns != g.exit_ns)
			continue;	/* released, or its pid is another process's now */
		if (g.exit_ns + GRAVE_NS > s->scan_ns || pm->kids) {
			s->grave[j++] = g;
			continue;
		}
		pm_unlink(s, pm);
		pm_delete(s, pm);
		s->maps_gen++;
	}
	s->nr_grave = j;
}

static int pm_reserve(struct pmaps *pm, size_t n)
{
	struct map *nv;
	size_t cap;

	if (n <= pm->cap)
		return 0;
	cap = pm->cap ? pm->cap : 16;
	while (cap < n)
		cap *= 2;
	nv = realloc(pm->v, cap * sizeof(*nv));
	if (!nv)
		return -1;
	pm->v = nv;
	pm->cap = cap;
	return 0;
}

/* @ns: when it was mapped, 0 for the image the process runs now (a /proc read). */
static void add_map(struct pp_syms *s, uint32_t pid, uint64_t start, uint64_t len,
		    uint64_t pgoff, int dso, uint64_t ns)
{
	struct pmaps *pm = pm_get(s, pid);
	struct map *m;

	s->maps_gen++;	/* the hits uaddr_hit() keeps are stale */
	if (!pm || (ns && ns < pm->exec_ns))
		return;		/* of the image before an exec scanned already */
	if (pm_reserve(pm, pm->n + 1))
		return;
	m = &pm->v[pm->n++];
	m->start = start;
	m->end = start + len;
	m->pgoff = pgoff;
	m->ns = ns ? ns : pm->exec_ns;
	m->dso = dso;
}

/*
 * @pid exec'd at @ns (0: unknown): its older maps and its parent's are
 * gone. They are kept for the children forked before, which see them
 * through their links.
 */
static void exec_maps(struct pp_syms *s, uint32_t pid, uint64_t ns)
{
	struct pmaps *pm = pm_get(s, pid);

	s->maps_gen++;
	if (!pm)
		return;
	if (!ns) {
		/* no time: all that is known now is gone */
		for (size_t i = 0; i < pm->n; i++)
			if (pm->v[i].ns + 1 > ns)
				ns = pm->v[i].ns + 1;
		ns = ns > pm->exec_ns ? ns : pm->exec_ns + 1;
	}
	if (ns > pm->exec_ns)
		pm->exec_ns = ns;
	pm_unlink(s, pm);	/* a FORK scanned later does not link again */
	pm->learnt = 0;
}

/* @pid was forked from @ppid at @ns (0: unknown). */
static void fork_link(struct pp_syms *s, uint32_t ppid, uint32_t pid, uint64_t ns)
{
	struct pmaps *pm = pm_get(s, pid);

	s->maps_gen++;
	if (!pm || (ns && ns < pm->exec_ns))
		return;		/* exec'd since (scanned first): the link is moot */
	if (ns)
		pm->exec_ns = ns;	/* older maps were a process before it with this pid */
	if (pm->exit_ns && (!ns || ns > pm->exit_ns))
		pm->exit_ns = 0;	/* a new process of this pid: its grave is stale */
	pm_unlink(s, pm);
	pm->ppid = ppid;
	pm->fork_ns = ns ? ns : UINT64_MAX;
	pm->learnt = 0;
	{
		struct pmaps *pp = pm_find(s, ppid);

		if (pp)
			pp->kids++;
	}
}

/*
 * The map of @pid holding @addr: its own newest one, else the newest of
 * its parent's from before the fork, and so on up.
 * @own: set when the map is @pid's own, with its index in *@at.
 */
static struct map *find_map(const struct pp_syms *s, uint32_t pid, uint64_t addr, int *own,
			    size_t *at)
{
	uint64_t limit = UINT64_MAX;

	for (int depth = 0; depth < PARENT_DEPTH; depth++) {
		const struct pmaps *pm = pm_find(s, pid);

		if (!pm)
			return NULL;
		for (size_t i = pm->n; i-- > 0;) {
			struct map *m = &pm->v[i];

			/* ours: since our exec; a parent's: before our fork */
			if (depth ? m->ns >= limit : m->ns < pm->exec_ns)
				continue;
			if (addr >= m->start && addr < m->end) {
				*own = !depth;
				*at = i;
				return m;
			}
		}
		if (!pm->ppid)
			return NULL;
		limit = pm->fork_ns < limit ? pm->fork_ns : limit;
		pid = pm->ppid;
	}
	return NULL;
}

/**
 * pp_syms__has_maps() - whether the collector knows maps of @pid already
 * (from the snapshot, a FORK from a known parent, or MMAP2 records).
 */
int pp_syms__has_maps(const struct pp_syms *s, uint32_t pid)
{
	uint64_t limit = UINT64_MAX;

	for (int depth = 0; depth < PARENT_DEPTH; depth++) {
		const struct pmaps *pm = pm_find(s, pid);

		if (!pm)
			return 0;
		for (size_t i = 0; i < pm->n; i++)
			if (depth ? pm->v[i].ns < limit : pm->v[i].ns >= pm->exec_ns)
				return 1;
		if (!pm->ppid)
			return 0;
		limit = pm->fork_ns < limit ? pm->fork_ns : limit;
		pid = pm->ppid;
	}
	return 0;
}

static void put_mmap_item(struct pp_buf *b, uint32_t pid, uint32_t prot, uint64_t start,
			  uint64_t len, uint64_t pgoff, const uint8_t *bid, int bid_size,
			  const char *path)
{
	struct pp_mmap_item it;
	size_t at = pp_item__begin(b, 0);

	memset(&it, 0, sizeof(it));
	it.pid = pid;
	it.prot = prot;
	it.start = start;
	it.len = len;
	it.pgoff = pgoff;
	it.build_id_size = (uint8_t)bid_size;
	if (bid_size)
		memcpy(it.build_id, bid, (size_t)bid_size);
	pp_buf__append(b, &it, sizeof(it));
	pp_buf__append_str(b, path);
	pp_item__end(b, at);
}

static void snapshot_maps(struct pp_syms *s, struct pp_buf *mmaps, int pid)
{
	struct pp_procmaps it;
	struct pp_exec_map m;

	if (pp_procmaps__open(&it, (uint32_t)pid, 0))
		return;
	while (pp_procmaps__next(&it, &m)) {
		const char *fpath = pp_procmaps__path(&it);
		char mf[128];
		uint8_t bid[20];
		int bsz = 0, di;

		if (fpath[0] != '/')
			continue;
		/* one build-id read per file: reuse a known DSO of the same path */
		di = -1;
		for (size_t i = 0; i < s->nr_dsos; i++) {
			if (!strcmp(s->dsos[i].path, fpath)) {
				di = (int)i;
				break;
			}
		}
		if (di >= 0) {
			bsz = s->dsos[di].bid_size;
			memcpy(bid, s->dsos[di].build_id, sizeof(bid));
		} else {
			snprintf(mf, sizeof(mf), "/proc/%d/map_files/%llx-%llx", pid, m.start, m.end);
			bsz = file_build_id(mf, bid);
			if (!bsz)
				bsz = file_build_id(fpath, bid);
			di = add_dso(s, fpath, bid, bsz);
		}
		add_map(s, (uint32_t)pid, m.start, m.end - m.start, m.pgoff, di, 0);
		put_mmap_item(mmaps, (uint32_t)pid, 5 /* r-x */, m.start, m.end - m.start, m.pgoff,
			      bid, bsz, fpath);
	}
	pp_procmaps__close(&it);
}

static int read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	return 0;
}

static void snapshot_task(struct pp_buf *tasks, int pid)
{
	char path[96], buf[1024];
	struct dirent *d;
	uint32_t ppid = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (!read_small(path, buf, sizeof(buf))) {
		char *rp = strrchr(buf, ')');

		if (rp)
			sscanf(rp + 1, " %*c %u", &ppid);
	}
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		struct pp_task_item it;
		size_t at;
		int tid;

		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		tid = atoi(d->d_name);
		memset(&it, 0, sizeof(it));
		it.pid = (uint32_t)pid;
		it.tid = (uint32_t)tid;
		it.ppid = ppid;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", pid, tid);
		if (!read_small(path, buf, sizeof(buf))) {
			buf[strcspn(buf, "\n")] = 0;
			memcpy(it.comm, buf, strnlen(buf, sizeof(it.comm) - 1));
		}
		at = pp_item__begin(tasks, 0);
		pp_buf__append(tasks, &it, sizeof(it));
		pp_item__end(tasks, at);
	}
	closedir(dir);
}

/**
 * pp_syms__snapshot() - TASKS and MMAPS items of the running processes.
 * @s: collector; @tasks, @mmaps: receive items; @only, @nr_only: pid filter.
 */
void pp_syms__snapshot(struct pp_syms *s, struct pp_buf *tasks, struct pp_buf *mmaps,
		       const pid_t *only, int nr_only)
{
	struct dirent *d;
	DIR *dir;
	int i;

	if (only && nr_only) {
		for (i = 0; i < nr_only; i++) {
			snapshot_task(tasks, only[i]);
			snapshot_maps(s, mmaps, only[i]);
		}
		return;
	}
	dir = opendir("/proc");
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		int pid;

		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		pid = atoi(d->d_name);
		snapshot_task(tasks, pid);
		snapshot_maps(s, mmaps, pid);
	}
	closedir(dir);
}

void pp_syms__learn(struct pp_syms *s, uint32_t pid, struct pp_buf *tasks, struct pp_buf *mmaps)
{
	struct pmaps *pm;
	pid_t p = (pid_t)pid;

	if (pp_syms__has_maps(s, pid))
		return;
	pm = pm_get(s, pid);
	if (!pm || pm->learnt)
		return;		/* read already: a kernel thread, or gone */
	pm->learnt = 1;
	pp_syms__snapshot(s, tasks, mmaps, &p, 1);
}

static void dso_pend(struct pp_syms *s, int di)
{
	size_t i;

	for (i = 0; i < s->nr_dpend; i++)
		if (s->dpend[i] == di)
			return;
	if (s->nr_dpend == s->cap_dpend) {
		int *nv;

		s->cap_dpend = s->cap_dpend ? s->cap_dpend * 2 : 16;
		nv = realloc(s->dpend, s->cap_dpend * sizeof(*nv));
		if (!nv)
			return;
		s->dpend = nv;
	}
	s->dpend[s->nr_dpend++] = di;
}

#define JIT_MAP_MAX_READ	(64u << 20)	/* bytes of a perf map read at most */
#define JIT_MAP_MAX_ITEM	(8u << 20)	/* bytes of USYMS one perf map gives at most */

/* The real and effective uid of @pid (/proc/PID/status). Return: 0, or -1 when gone. */
static int pid_uids(uint32_t pid, uid_t *ruid, uid_t *euid)
{
	char path[64], line[256];
	unsigned long r, e;
	int ok = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/status", pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid: %lu %lu", &r, &e) == 2) {
			*ruid = (uid_t)r;
			*euid = (uid_t)e;
			ok = 1;
			break;
		}
	fclose(f);
	return ok ? 0 : -1;
}

/*
 * Open a perf map as the recorder (root) may read it on a host shared with
 * other users: any of them can put a FIFO, a device, a symlink or a hard
 * link at /tmp/perf-PID.map. Only a regular file with one link, reached
 * without a symlink and owned by the process's real or effective uid, is
 * read; opened non-blocking, so a FIFO cannot stall the writer thread.
 * Return: an fd, or -1.
 */
static int jit_open(const char *path, uid_t ruid, uid_t euid)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_nlink != 1 ||
	    (st.st_uid != ruid && st.st_uid != euid)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Look for @pid's perf map of JIT code, once. Return: whether it has one. */
static int jit_try(struct pp_syms *s, uint32_t pid)
{
	struct pmaps *pm = pm_get(s, pid);
	char path[64];
	uid_t ruid, euid;
	int di, fd;

	if (!pm || pm->jit_tried)
		return pm && pm->jit_tried == 2;
	pm->jit_tried = 1;
	snprintf(path, sizeof(path), "/tmp/perf-%u.map", pid);
	/* whose it must be is known only while the process lives */
	if (pid_uids(pid, &ruid, &euid))
		return 0;
	fd = jit_open(path, ruid, euid);
	if (fd < 0)
		return 0;
	close(fd);
	di = add_dso(s, path, NULL, 0);
	if (di < 0)
		return 0;
	s->dsos[di].jit = 1;
	s->dsos[di].ruid = ruid;
	s->dsos[di].euid = euid;
	dso_pend(s, di);
	pm->jit_tried = 2;
	return 1;
}

static int load_elf_table(struct dso *d, const char *path);

/* Read a DSO's symbol table, through a live mapping when one exists (the path may be gone). */
static void dso_load(struct pp_syms *s, int di)
{
	struct dso *d = &s->dsos[di];
	int r = -1;

	for (size_t p = 0; p < s->pm_cap && r; p++) {
		const struct pmaps *pm = &s->pm[p];

		for (size_t k = pm->n; k-- > 0;) {
			const struct map *m = &pm->v[k];
			char mf[128];

			if (m->dso != di)
				continue;
			snprintf(mf, sizeof(mf), "/proc/%u/map_files/%llx-%llx", pm->pid,
				 (unsigned long long)m->start, (unsigned long long)m->end);
			if (!access(mf, R_OK))
				r = load_elf_table(d, mf);
			break;
		}
	}
	if (r)
		r = load_elf_table(d, d->path);
	d->state = r ? -1 : 1;
}

#define LINEAR_LOOKUPS	16	/* lookups in a DSO before its symbols are sorted */

static void usyms_sort(struct usym *v, size_t n);

/*
 * Sort @d's symbols by start, each without a size given the room to the
 * next; the pending hits (indices) follow their symbols.
 */
static void dso_sort(struct dso *d)
{
	for (size_t k = 0; k < d->nr_hits; k++)
		d->syms[d->hits[k]].emitted = 2;
	usyms_sort(d->syms, d->nr_syms);
	for (size_t i = 0; i + 1 < d->nr_syms; i++)
		if (!d->syms[i].size && d->syms[i + 1].start - d->syms[i].start < 0xffffffffu)
			d->syms[i].size = (uint32_t)(d->syms[i + 1].start - d->syms[i].start);
	d->nr_hits = 0;
	for (size_t i = 0; i < d->nr_syms; i++)
		if (d->syms[i].emitted == 2) {
			d->syms[i].emitted = 1;
			d->hits[d->nr_hits++] = i;
		}
	d->sorted = 1;
}

/* Of two aliases of @d, is @a the one to name (a name before none)? */
static int alias_better(const struct dso *d, size_t a, size_t b)
{
	if (!d->syms[a].name[0] || !d->syms[b].name[0])
		return !d->syms[b].name[0];
	return pp_sym_order(d->syms[a].name, d->syms[b].name) > 0;
}

/*
 * Index of the symbol of @d holding file offset @off, or nr_syms. The
 * last one starting at or below @off holds it within its size, or up to
 * the next symbol when it has none; of aliases (equal starts), the one
 * perf names the frame by (pp_sym_order()), which the file then holds.
 */
static size_t usym_find(struct dso *d, uint64_t off)
{
	size_t lo = 0, hi = d->nr_syms, i;

	if (!d->sorted) {
		/*
		 * A few lookups scan the table: most libraries see a handful
		 * in a whole recording, cheaper than sorting thousands.
		 */
		if (++d->lookups <= LINEAR_LOOKUPS) {
			size_t best = d->nr_syms;

			for (i = 0; i < d->nr_syms; i++)
				if (d->syms[i].start <= off &&
				    (best == d->nr_syms || d->syms[i].start > d->syms[best].start ||
				     (d->syms[i].start == d->syms[best].start && alias_better(d, i, best))))
					best = i;
			return best;
		}
		dso_sort(d);
	}
	if (!hi || off < d->syms[0].start)
		return d->nr_syms;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->syms[mid].start <= off)
			lo = mid;
		else
			hi = mid;
	}
	for (i = lo; i > 0 && d->syms[i - 1].start == d->syms[lo].start; i--)
		if (alias_better(d, i - 1, lo))
			lo = i - 1;
	return lo;
}

/* The symbol of @d holding file offset @off becomes due for the file, once. */
static void usym_hit(struct dso *d, uint64_t off)
{
	size_t i = usym_find(d, off);

	if (i == d->nr_syms || d->syms[i].emitted ||
	    (d->syms[i].size && off - d->syms[i].start >= d->syms[i].size) || !d->syms[i].name[0])
		return;		/* emitted, beyond it, or nameless (names are read only now) */
	if (d->nr_hits == d->cap_hits) {
		size_t nc = d->cap_hits ? d->cap_hits * 2 : 64, *nv;

		nv = realloc(d->hits, nc * sizeof(*nv));
		if (!nv)
			return;
		d->hits = nv;
		d->cap_hits = nc;
	}
	d->syms[i].emitted = 1;
	d->hits[d->nr_hits++] = i;
}

#define UPEND_SCANS	16		/* scans an unmapped address waits */
#define UPEND_MAX	4096		/* addresses waiting at most */
#define UPEND_SLOTS	(2 * UPEND_MAX)	/* their index, a power of two */

static size_t upend_hash(uint32_t pid, uint64_t addr)
{
	return (size_t)(((addr ^ ((uint64_t)pid << 40)) * 0x9e3779b97f4a7c15ull) >> 51) &
	       (UPEND_SLOTS - 1);
}

/*
 * The slot of (@pid, @addr) in the index: the one holding it, or the empty
 * one where it goes.
 */
static size_t upend_find(const struct pp_syms *s, uint32_t pid, uint64_t addr)
{
	size_t h = upend_hash(pid, addr);

	while (s->upend_slot[h]) {
		const struct upend *u = &s->upend[s->upend_slot[h] - 1];

		if (u->pid == pid && u->addr == addr)
			break;
		h = (h + 1) & (UPEND_SLOTS - 1);
	}
	return h;
}

/*
 * Make (@pid, @addr) wait for its map, once: a sample stream names the same
 * few addresses thousands of times, and queued each time they filled the
 * list before the map came (a process that exec'd on one CPU and ran on
 * another, its MMAP2 in a chunk scanned after its samples' chunks), and
 * the addresses after went unresolved.
 */
static void upend_add(struct pp_syms *s, uint32_t pid, uint64_t addr)
{
	size_t h;

	if (!s->upend_slot && !(s->upend_slot = calloc(UPEND_SLOTS, sizeof(*s->upend_slot))))
		return;
	h = upend_find(s, pid, addr);
	if (s->upend_slot[h])
		return;		/* waiting already */
	if (s->nr_upend == s->cap_upend) {
		size_t cap = s->cap_upend ? 2 * s->cap_upend : 256;
		struct upend *nv;

		if (cap > UPEND_MAX)
			return;
		nv = realloc(s->upend, cap * sizeof(*nv));
		if (!nv)
			return;
		s->upend = nv;
		s->cap_upend = cap;
	}
	s->upend[s->nr_upend++] = (struct upend){ .addr = addr, .pid = pid };
	s->upend_slot[h] = (uint16_t)s->nr_upend;
}

static int uaddr_try(struct pp_syms *s, uint32_t pid, uint64_t addr);

/* After a scan: the waiting addresses whose map is known now are hit. */
static void upend_retry(struct pp_syms *s)
{
	size_t i, j = 0;

	for (i = 0; i < s->nr_upend; i++) {
		struct upend u = s->upend[i];

		if (!uaddr_try(s, u.pid, u.addr) && ++u.scans < UPEND_SCANS)
			s->upend[j++] = u;
	}
	s->nr_upend = j;
	if (s->upend_slot) {	/* the index of those left */
		memset(s->upend_slot, 0, UPEND_SLOTS * sizeof(*s->upend_slot));
		for (i = 0; i < j; i++)
			s->upend_slot[upend_find(s, s->upend[i].pid, s->upend[i].addr)] =
				(uint16_t)(i + 1);
	}
}

#define UHIT_SLOTS	4096	/* a power of two */

static void uaddr_hit(struct pp_syms *s, uint32_t pid, uint64_t addr)
{
	struct uhit *h = NULL;
	int r;

	if (s->uhits || (s->uhits = calloc(UHIT_SLOTS, sizeof(*s->uhits)))) {
		h = &s->uhits[upend_hash(pid, addr) & (UHIT_SLOTS - 1)];
		if (h->gen == s->maps_gen + 1 && h->pid == pid && h->addr == addr)
			return;
	}
	r = uaddr_try(s, pid, addr);
	/* JIT code is in no map, and its perf map covers all of it */
	if (!r && !jit_try(s, pid))
		upend_add(s, pid, addr);
	if (r == 2 && h)
		*h = (struct uhit){ addr, pid, s->maps_gen + 1 };	/* never 0: an empty slot */
}

/*
 * Mark @addr of @pid as hit. Return: 0 if no map holds it (yet), 2 if a
 * second hit would change nothing, else 1 (JIT code, named later).
 */
static int uaddr_try(struct pp_syms *s, uint32_t pid, uint64_t addr)
{
	struct pmaps *pm = pm_find(s, pid);
	struct map *m = NULL;
	size_t at;
	int own;

	if (pm && s->last_pid == pid && s->last_gen == s->maps_gen && s->last_map < pm->n) {
		m = &pm->v[s->last_map];
		if (addr < m->start || addr >= m->end || m->ns < pm->exec_ns)
			m = NULL;
	}
	if (!m) {
		m = find_map(s, pid, addr, &own, &at);
		if (m && own) {
			s->last_pid = pid;
			s->last_map = at;
			s->last_gen = s->maps_gen;
		}
	}
	if (!m)
		return 0;
	if (m->dso < 0)
		return 2;
	if (s->dsos[m->dso].jit) {
		if (!s->dsos[m->dso].state)
			dso_pend(s, m->dso);
		return 1;
	}
	if (!s->dsos[m->dso].state) {
		dso_load(s, m->dso);
		if (s->dsos[m->dso].state == 1)
			dso_pend(s, m->dso);	/* announce it even if no symbol is hit */
	}
	if (s->dsos[m->dso].state == 1) {
		struct dso *d = &s->dsos[m->dso];

		usym_hit(d, addr - m->start + m->pgoff);
		if (d->nr_hits == 1)
			dso_pend(s, m->dso);
	}
	return 2;
}

/*
 * Whether one of @pid's newest maps is this one, learnt from the same
 * MMAP2 record already (record.h: pp_syms__scan() may see a record twice).
 */
static int known_map(const struct pp_syms *s, uint32_t pid, uint64_t start, uint64_t len,
		     uint64_t pgoff, int dso, uint64_t ns)
{
	const struct pmaps *pm = pm_find(s, pid);

	for (size_t i = pm ? pm->n : 0, k = 0; ns && i-- > 0 && k < 64; k++) {
		const struct map *m = &pm->v[i];

		if (m->ns == ns && m->start == start && m->end == start + len &&
		    m->pgoff == pgoff && m->dso == dso)
			return 1;
	}
	return 0;
}

static void scan_mmap2(struct pp_syms *s, const uint8_t *p, size_t size, uint64_t ns)
{
	/* header 8, pid/tid 8, addr 8, len 8, pgoff 8, 24 bytes id, prot/flags 8, filename */
	uint32_t pid, prot;
	uint64_t addr, len, pgoff;
	const char *fn;
	size_t fnlen;
	int bsz = 0, di;
	uint16_t misc;

	if (size < 80)
		return;
	memcpy(&misc, p + 4, 2);
	memcpy(&pid, p + 8, 4);
	memcpy(&addr, p + 16, 8);
	memcpy(&len, p + 24, 8);
	memcpy(&pgoff, p + 32, 8);
	memcpy(&prot, p + 64, 4);
	fn = (const char *)p + 72;
	fnlen = strnlen(fn, size - 72);
	if (fnlen == size - 72 || fn[0] != '/' || !(prot & 4))
		return;
	if (misc & PERF_RECORD_MISC_MMAP_BUILD_ID)
		bsz = p[40] > 20 ? 20 : p[40];
	di = add_dso(s, fn, p + 44, bsz);
	if (known_map(s, pid, addr, len, pgoff, di, ns))
		return;
	add_map(s, pid, addr, len, pgoff, di, ns);
	put_mmap_item(&s->new_mmaps, pid, prot, addr, len, pgoff, p + 44, bsz, fn);
}

/**
 * pp_syms__scan() - learn maps and hit addresses from a DATA payload.
 * @s: collector; @data, @len: perf records;
 * @sample_type_of: id -> sample_type; @ctx: its context.
 */
/*
 * Learn from one record (see pp_syms__scan()). @sample_st: the layout of a
 * sample when it is not the kernel's (a rewritten one), else 0.
 * Return: the pid whose maps changed (MMAP2, exec), else 0.
 */
static uint32_t scan_rec(struct pp_syms *s, const struct pp_rec *rp,
			 uint64_t (*sample_type_of)(uint64_t id, void *ctx), void *ctx,
			 uint64_t sample_st)
{
	struct pp_rec r = *rp;
	uint32_t changed = 0;

	{
		uint64_t ns = 0;

		if (r.type == PERF_RECORD_MMAP2 ||
		    (r.type == PERF_RECORD_COMM && (r.misc & PERF_RECORD_MISC_COMM_EXEC)))
			pp_sample__time(sample_type_of(pp_sample__id(r.data, r.size), ctx), r.data,
					r.size, &ns);
		if (r.type == PERF_RECORD_MMAP2) {
			scan_mmap2(s, r.data, r.size, ns);
			if (r.size >= 16)
				memcpy(&changed, r.data + 8, 4);
		} else if (r.type == PERF_RECORD_FORK && r.size >= 24) {
			uint32_t pid, ppid, tid;

			memcpy(&pid, r.data + 8, 4);
			memcpy(&ppid, r.data + 12, 4);
			memcpy(&tid, r.data + 16, 4);
			if (r.size >= 32)
				memcpy(&ns, r.data + 24, 8);
			if (pid == tid && pid != ppid)
				fork_link(s, ppid, pid, ns);
			if (ns > s->scan_ns)
				s->scan_ns = ns;
		} else if (r.type == PERF_RECORD_EXIT && r.size >= 24) {
			uint32_t pid, tid;

			memcpy(&pid, r.data + 8, 4);
			memcpy(&tid, r.data + 16, 4);
			if (r.size >= 32)
				memcpy(&ns, r.data + 24, 8);
			if (pid == tid)	/* the process, not a thread */
				exit_maps(s, pid, ns);
			if (ns > s->scan_ns)
				s->scan_ns = ns;
		} else if (r.type == PERF_RECORD_COMM && (r.misc & PERF_RECORD_MISC_COMM_EXEC)) {
			uint32_t pid;

			if (r.size >= 16) {
				memcpy(&pid, r.data + 8, 4);
				exec_maps(s, pid, ns);
				changed = pid;
			}
		} else if (r.type == PERF_RECORD_SAMPLE) {
			uint64_t st = sample_st ? sample_st :
				      sample_type_of(pp_sample__id(r.data, r.size), ctx);
			/*
			 * Only what comes up to the callchain is read: the fields after
			 * it (registers, user stack) need the event's own masks, which
			 * differ between --call-graph=dwarf and a probe's regs/ustack=.
			 */
			struct pp_sample_fmt fmt = {
				.sample_type = st & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
						     PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
						     PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
						     PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
						     PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ |
						     PERF_SAMPLE_CALLCHAIN) };
			struct pp_sample smp;
			int user;

			if (!(st & (PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN)))
				return 0;
			if (pp_sample__parse_fmt(&fmt, r.data, r.size, &smp))
				return 0;
			if (smp.time > s->scan_ns)
				s->scan_ns = smp.time;
			user = (smp.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_USER;
			if (st & PERF_SAMPLE_IP) {
				if (user)
					uaddr_hit(s, smp.pid, smp.ip);
				else if (smp.ip)
					kaddr_hit(s, smp.ip);
			}
			for (uint64_t i = 0; i < smp.nr_callchain; i++) {
				uint64_t a;

				memcpy(&a, &smp.callchain[i], 8);
				if (a >= (uint64_t)PERF_CONTEXT_MAX) {
					user = a == (uint64_t)PERF_CONTEXT_USER;
					continue;
				}
				if (user)
					uaddr_hit(s, smp.pid, a);
				else
					kaddr_hit(s, a);
			}
		}
	}
	return changed;
}

void pp_syms__scan(struct pp_syms *s, const void *data, size_t len,
		   uint64_t (*sample_type_of)(uint64_t id, void *ctx), void *ctx)
{
	struct pp_rec_iter it;
	struct pp_rec r;

	pp_rec_iter__init(&it, data, len);
	while (pp_rec_iter__next(&it, &r))
		scan_rec(s, &r, sample_type_of, ctx, 0);
	upend_retry(s);
	graves_collect(s);
}

/* ---- --call-graph=dwarf: samples rewritten with their unwound stacks ---- */

#define DWARF_ST	(PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)
#define UNWIND_MAX	127		/* user frames kept, perf's default depth */

/**
 * pp_syms_dwarf_sample_type() - the layout of a sample of @st after
 * pp_syms__scan_unwind(): without the user registers and stack.
 */
uint64_t pp_syms_dwarf_sample_type(uint64_t st)
{
	return (st & DWARF_ST) == DWARF_ST ? st & ~DWARF_ST : st;
}

/* Read @pid's executable file maps into @pm: by map_files, which opens deleted files too. */
static void procmaps_load(struct procmaps *pm, uint32_t pid)
{
	struct pp_procmaps it;
	struct pp_exec_map e;
	char name[64];

	procmaps_clear(pm);
	pm->pid = pid;
	if (pp_procmaps__open(&it, pid, 0))
		return;
	while (pp_procmaps__next(&it, &e)) {
		const char *path = pp_procmaps__path(&it);
		struct procmap *m;

		if (path[0] != '/')
			continue;
		if (pm->n == pm->cap) {
			size_t cap = pm->cap ? 2 * pm->cap : 32;
			struct procmap *v = realloc(pm->v, cap * sizeof(*v));

			if (!v)
				break;
			pm->v = v;
			pm->cap = cap;
		}
		snprintf(name, sizeof(name), "/proc/%u/map_files/%llx-%llx", pid, e.start, e.end);
		m = &pm->v[pm->n];
		m->path = strdup(access(name, R_OK) ? path : name);
		if (!m->path)
			continue;
		m->start = e.start;
		m->end = e.end;
		m->pgoff = e.pgoff;
		pm->n++;
	}
	pp_procmaps__close(&it);
}

/* @addr's map in @pid's /proc maps, read again at most once per unwound sample. */
static int proc_map_at(struct pp_syms *s, uint32_t pid, uint64_t addr, const char **path,
		       uint64_t *start, uint64_t *pgoff)
{
	struct procmaps *pm = &s->procmaps;

	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; pm->pid == pid && i < pm->n; i++) {
			if (addr >= pm->v[i].start && addr < pm->v[i].end) {
				*path = pm->v[i].path;
				*start = pm->v[i].start;
				*pgoff = pm->v[i].pgoff;
				return 0;
			}
		}
		if (pm->pid == pid && pm->gen == s->unwind_gen)
			break;
		procmaps_load(pm, pid);
		pm->gen = s->unwind_gen;
	}
	return -1;
}

static int map_at(void *ctx, uint32_t pid, uint64_t addr, const char **path, uint64_t *start,
		  uint64_t *pgoff)
{
	struct pp_syms *s = ctx;
	struct map *m;
	size_t at;
	int own;

	m = find_map(s, pid, addr, &own, &at);
	if (!m || m->dso < 0)
		return proc_map_at(s, pid, addr, path, start, pgoff);
	if (s->dsos[m->dso].jit)
		return -1;
	*path = s->dsos[m->dso].path;
	*start = m->start;
	*pgoff = m->pgoff;
	return 0;
}

/*
 * Rewrite the sample at @rec (@size bytes, layout @st) in place: its
 * callchain's kernel part, then PERF_CONTEXT_USER and the unwound frames;
 * the user registers and stack dropped. Never larger than it was.
 * Return: the new size, or 0 if the sample is left as it is.
 */
static size_t unwind_rewrite(struct pp_syms *s, struct pp_unwind *u, uint8_t *rec, size_t size,
			     uint64_t st)
{
	static const uint64_t before_cc = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
		PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
		PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	struct pp_sample_fmt fmt = { .sample_type = st, .sample_regs_user = PP_UNWIND_REGS_MASK };
	struct pp_unwind_maps maps = { map_at, s };
	uint64_t frames[UNWIND_MAX], nr, v, ucx = (uint64_t)PERF_CONTEXT_USER;
	size_t off = 8, cc, cc_end, regs, tail, keep = 0, room;
	uint32_t nf = 0;
	struct pp_sample smp;
	uint8_t *tmp;

	if (!(st & PERF_SAMPLE_CALLCHAIN) || (st & (PERF_SAMPLE_READ | PERF_SAMPLE_BRANCH_STACK)) ||
	    pp_sample__parse_fmt(&fmt, rec, size, &smp))
		return 0;
	off += 8 * (size_t)__builtin_popcountll(st & before_cc);
	cc = off;
	if (off + 8 > size)
		return 0;
	memcpy(&nr, rec + off, 8);
	if (nr > (size - off - 8) / 8)
		return 0;
	cc_end = off + 8 + 8 * nr;
	off = cc_end;
	if (st & PERF_SAMPLE_RAW) {
		uint32_t raw;

		if (off + 4 > size)
			return 0;
		memcpy(&raw, rec + off, 4);
		if (raw > size - off - 4)
			return 0;
		off += 4 + raw;
	}
	regs = off;
	if (off + 8 > size)
		return 0;
	memcpy(&v, rec + off, 8);	/* abi */
	off += 8 + (v ? 8 * (size_t)__builtin_popcountll(PP_UNWIND_REGS_MASK) : 0);
	if (off + 8 > size)
		return 0;
	memcpy(&v, rec + off, 8);	/* stack size */
	off += 8;
	if (v) {
		if (v > size - off || size - off - v < 8)
			return 0;
		off += v + 8;
	}
	tail = off;
	/* the kernel part: up to a PERF_CONTEXT_USER (none with exclude_callchain_user) */
	for (; keep < nr; keep++) {
		memcpy(&v, rec + cc + 8 + 8 * keep, 8);
		if (v == ucx)
			break;
	}
	/* room: what the registers and the stack leave, so the record never grows */
	room = (tail - regs) + 8 * (nr - keep);
	room = room > 8 ? (room - 8) / 8 : 0;
	if (smp.user_abi && smp.user_regs && smp.user_stack) {
		uint64_t dyn = smp.user_stack_dyn_size < smp.user_stack_size ?
			       smp.user_stack_dyn_size : smp.user_stack_size;

		s->unwind_gen++;
		nf = pp_unwind__user(u, smp.pid, smp.tid, &maps, smp.user_regs, smp.user_stack, dyn,
				     frames, room < UNWIND_MAX ? (uint32_t)room : UNWIND_MAX);
	}
	tmp = malloc(size);
	if (!tmp)
		return 0;
	/* the kernel part, then ours; the registers and the stack dropped */
	off = pp_sample__set_user_chain(rec, size, st, frames, nf, regs, tail, tmp, size);
	if (off)
		memcpy(rec, tmp, off);
	free(tmp);
	return off;
}

void pp_syms__scan_side(struct pp_syms *s, struct pp_unwind *u, const void *data, size_t len,
			uint64_t (*sample_type_of)(uint64_t id, void *ctx), void *ctx)
{
	struct pp_rec_iter it;
	struct pp_rec r;

	pp_rec_iter__init(&it, data, len);
	while (pp_rec_iter__next(&it, &r)) {
		uint32_t changed = r.type == PERF_RECORD_SAMPLE ? 0 :
				   scan_rec(s, &r, sample_type_of, ctx, 0);

		if (changed && u)
			pp_unwind__forget(u, changed);
	}
}

void pp_syms__scan_unwind(struct pp_syms *s, struct pp_unwind *u, uint8_t *data, size_t *len,
			  uint64_t (*sample_type_of)(uint64_t id, void *ctx), void *ctx)
{
	size_t in = 0, out = 0;

	while (*len - in >= 8) {
		struct perf_event_header h;
		uint8_t *rec = data + in;
		uint64_t st = 0;
		size_t nsz = 0;
		struct pp_rec r;
		uint32_t changed;

		memcpy(&h, rec, sizeof(h));
		if (h.size < 8 || h.size > *len - in)
			break;
		if (h.type == PERF_RECORD_SAMPLE) {
			st = sample_type_of(pp_sample__id(rec, h.size), ctx);
			if ((st & DWARF_ST) == DWARF_ST)
				nsz = unwind_rewrite(s, u, rec, h.size, st);
		}
		if (!nsz) {
			nsz = h.size;
			st = 0;
		} else {
			st = pp_syms_dwarf_sample_type(st);
		}
		if (out != in)
			memmove(data + out, rec, nsz);
		r.type = h.type;
		r.misc = h.misc;
		r.size = (uint16_t)nsz;
		r.data = data + out;
		changed = scan_rec(s, &r, sample_type_of, ctx, st);
		if (changed)
			pp_unwind__forget(u, changed);
		out += nsz;
		in += h.size;
	}
	if (in < *len && out != in)
		memmove(data + out, data + in, *len - in);
	*len = out + (*len - in);
	upend_retry(s);
	graves_collect(s);
}

/* Hits (indices into @ctx's symbols) by start, then index: as a stable sort orders them. */
static int hit_cmp(const void *a, const void *b, void *ctx)
{
	const struct dso *d = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	uint64_t sx = d->syms[x].start, sy = d->syms[y].start;

	if (sx != sy)
		return sx < sy ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* The size of unsized symbol @i of @d not sorted yet: the room to the next. */
static uint32_t usym_room(const struct dso *d, size_t i)
{
	uint64_t next = UINT64_MAX;

	for (size_t j = 0; j < d->nr_syms; j++)
		if (d->syms[j].start > d->syms[i].start && d->syms[j].start < next)
			next = d->syms[j].start;
	return next != UINT64_MAX && next - d->syms[i].start < 0xffffffffu ?
	       (uint32_t)(next - d->syms[i].start) : 0;
}

static int usym_cmp(const void *a, const void *b)
{
	const struct usym *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static void usyms_item_begin(struct pp_buf *b, const struct dso *d, uint32_t nr, size_t *at,
			     size_t *nr_at)
{
	uint8_t hdr[4] = { d->bid_size, d->jit ? PP_USYMS_SRC_PERFMAP : d->source, 0, 0 };
	uint8_t bid[20] = { 0 };

	*at = pp_item__begin(b, 0);
	pp_buf__append(b, hdr, 4);
	memcpy(bid, d->build_id, d->bid_size);
	pp_buf__append(b, bid, 20);
	*nr_at = b->len;
	pp_buf__append(b, &nr, 4);
	pp_buf__append_str(b, d->path);
	pp_buf__pad(b, 8);
}

static void usym_put(struct pp_buf *b, uint64_t start, uint32_t size, const char *name)
{
	pp_buf__append(b, &start, 8);
	pp_buf__append(b, &size, 4);
	pp_buf__append_str(b, name);
}

/*
 * A perf map's lines "START SIZE NAME" (hex) as one USYMS item: at most
 * JIT_MAP_MAX_READ bytes are read and JIT_MAP_MAX_ITEM bytes given, so a
 * huge or endless file costs bounded time and stays within a chunk.
 */
static int load_jit(struct dso *d, struct pp_buf *out)
{
	char line[4096];
	uint32_t nr = 0;
	size_t at, nr_at, got = 0;
	int fd = jit_open(d->path, d->ruid, d->euid);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "r");

	if (!f) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	usyms_item_begin(out, d, 0, &at, &nr_at);
	while (got < JIT_MAP_MAX_READ && out->len - at < JIT_MAP_MAX_ITEM &&
	       fgets(line, sizeof(line), f)) {
		unsigned long long start, size;
		int n = 0;

		got += strlen(line);
		if (sscanf(line, "%llx %llx %n", &start, &size, &n) < 2 || !n)
			continue;
		line[strcspn(line, "\n")] = 0;
		usym_put(out, start, (uint32_t)size, line + n);
		nr++;
	}
	fclose(f);
	if (!out->error)
		memcpy(out->data + nr_at, &nr, 4);
	pp_item__end(out, at);
	return 0;
}

/*
 * Sort @n symbols by start, keeping the order of equal ones: a radix sort a
 * byte at a time, skipping the bytes every start shares. qsort's merge sort,
 * a callback per comparison, was a sixth of the drain that read a library.
 */
static void usyms_sort(struct usym *v, size_t n)
{
	size_t cnt[8][256];
	struct usym *tmp, *src = v, *dst;
	uint64_t diff = 0;
	unsigned int bytes = 0;
	size_t i;

	for (i = 1; i < n && v[i - 1].start <= v[i].start; i++)
		;
	if (i >= n)
		return;		/* sorted already */
	tmp = n >= 64 ? malloc(n * sizeof(*tmp)) : NULL;
	if (!tmp) {
		qsort(v, n, sizeof(*v), usym_cmp);
		return;
	}
	/* the bytes in which starts differ, and all their counts in one pass */
	for (i = 1; i < n; i++)
		diff |= v[i].start ^ v[0].start;
	while (bytes < 8 && diff >> (8 * bytes))
		bytes++;
	memset(cnt, 0, bytes * sizeof(cnt[0]));
	for (i = 0; i < n; i++)
		for (unsigned int b = 0; b < bytes; b++)
			cnt[b][(v[i].start >> (8 * b)) & 0xff]++;
	dst = tmp;
	for (unsigned int b = 0; b < bytes; b++) {
		size_t at = 0;

		for (i = 0; i < 256; i++) {
			size_t c = cnt[b][i];

			cnt[b][i] = at;
			at += c;
		}
		for (i = 0; i < n; i++)
			dst[cnt[b][(src[i].start >> (8 * b)) & 0xff]++] = src[i];
		dst = src;
		src = src == v ? tmp : v;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
	free(tmp);
}

#define SYM_BATCH	256		/* functions taken from the reader at once */

/*
 * Take the functions of @e as @d's, by file offset, in file order (sorted
 * only at the LINEAR_LOOKUPS+1st address looked up in @d: dso_sort()); the
 * names stay in the reader's mapping of the string table, which @d keeps.
 * Return: 0, or -1.
 */
static int take_funcs(struct dso *d, struct pp_elf *e, int append)
{
	size_t nsym = pp_elf__nr_symbols(e), pos = 0, nv = 0;
	struct pp_elf_sym b[SYM_BATCH];
	struct usym *v;
	int n;

	/* room for all at once: growing by doubling copied them over and over */
	if (append && d->syms) {
		nv = d->nr_syms;
		v = realloc(d->syms, (nv + nsym + 1) * sizeof(*v));
		if (!v)
			return -1;
		d->syms = v;
	} else {
		v = malloc((nsym ? nsym : 1) * sizeof(*v));
		if (!v)
			return -1;
	}
	while ((n = pp_elf__funcs(e, &pos, b, SYM_BATCH)) > 0) {
		for (int i = 0; i < n; i++) {
			v[nv].start = b[i].offset;
			v[nv].size = b[i].size > 0xffffffffu ? 0xffffffffu : (uint32_t)b[i].size;
			v[nv].emitted = 0;
			v[nv].name = b[i].name;
			nv++;
		}
	}
	if (n < 0) {
		if (append && d->syms)
			return -1;	/* d->syms (v) keeps what it had */
		free(v);
		return -1;
	}
	d->syms = v;
	d->nr_syms = nv;
	d->sorted = 0;
	d->lookups = 0;
	if (append)
		d->map2 = pp_elf__take_strings(e, &d->map2_len);
	else
		d->map = pp_elf__take_strings(e, &d->map_len);
	return 0;
}

/*
 * Read the functions of @d from @path into d->syms, by file offset: those
 * of its .symtab, or of its separate debug file's when it has only a
 * .dynsym (a distribution's stripped library), or of its .dynsym.
 * Return: 0, or -1 (not an ELF file, or not the file that was mapped).
 */
static int load_elf_table(struct dso *d, const char *path)
{
	struct pp_elf *e = pp_elf__open(path);
	uint8_t bid[PP_ELF_BUILD_ID_MAX];
	int ret = -1;

	if (!e)
		return -1;
	if (d->bid_size) {
		int n = pp_elf__build_id(e, bid);

		if (n != d->bid_size || memcmp(bid, d->build_id, (size_t)n))
			goto out;	/* not the file that was mapped */
	}
	if (!pp_elf__has_symtab(e)) {
		struct pp_elf *dbg = pp_elf__debug_file(e, d->path);

		if (dbg && pp_elf__has_symtab(dbg) && !take_funcs(d, dbg, 0)) {
			pp_elf__close(dbg);
			d->source = PP_USYMS_SRC_DEBUG;
			ret = 0;
			goto out;
		}
		pp_elf__close(dbg);
		/* MiniDebugInfo: the functions the .dynsym lacks, then the .dynsym's */
		dbg = pp_elf__minidebug(e);
		if (dbg && pp_elf__has_symtab(dbg) && !take_funcs(d, dbg, 0)) {
			pp_elf__close(dbg);
			take_funcs(d, e, 1);
			d->source = PP_USYMS_SRC_MINIDEBUG;
			ret = 0;
			goto out;
		}
		pp_elf__close(dbg);
	}
	ret = take_funcs(d, e, 0);
	d->source = pp_elf__has_symtab(e) ? PP_USYMS_SRC_SYMTAB : PP_USYMS_SRC_DYNSYM;
out:
	pp_elf__close(e);
	return ret;
}

static void emit_ksyms(struct pp_syms *s, struct pp_buf *out, int all)
{
	size_t m, i;

	for (m = 0; m < s->nr_modules; m++) {
		const char *mod = s->modules[m];
		uint32_t nr = 0, zero = 0;
		size_t at = 0, nr_at = 0;
		int open = 0;
		size_t n = all ? s->nr_ksyms : s->nr_kpend;

		for (i = 0; i < n; i++) {
			size_t ki = all ? i : s->kpend[i];
			struct ksym *k = &s->ksyms[ki];

			if (k->module != mod)
				continue;
			if (!open) {
				at = pp_item__begin(out, 0);
				pp_buf__append_str(out, mod);
				pp_buf__pad(out, 8);
				nr_at = out->len;
				pp_buf__append(out, &nr, 4);
				pp_buf__append(out, &zero, 4);
				open = 1;
			}
			pp_buf__append(out, &k->addr, 8);
			pp_buf__append(out, &k->size, 4);
			pp_buf__append(out, &k->type, 1);
			pp_buf__append_str(out, k->name);
			nr++;
		}
		if (open) {
			if (!out->error)
				memcpy(out->data + nr_at, &nr, 4);
			pp_item__end(out, at);
		}
	}
	s->nr_kpend = 0;
}

/**
 * pp_syms__pending() - items for what was discovered since the last call.
 * @s: collector; @ksyms, @usyms, @mmaps: receive KSYMS, USYMS, MMAPS items.
 */
void pp_syms__pending(struct pp_syms *s, struct pp_buf *ksyms, struct pp_buf *usyms,
		      struct pp_buf *mmaps)
{
	size_t i;

	if (s->kall_pending) {
		if (!s->ksyms_loaded)
			load_kallsyms(s);
		emit_ksyms(s, ksyms, 1);
		s->kall_pending = 0;
	} else if (s->nr_kpend) {
		emit_ksyms(s, ksyms, 0);
	}
	for (i = 0; i < s->nr_dpend; i++) {
		struct dso *d = &s->dsos[s->dpend[i]];
		size_t at, nr_at;

		if (d->jit) {
			if (!d->state)
				d->state = load_jit(d, usyms) ? -1 : 1;
			continue;
		}
		/*
		 * The first item of a DSO may be empty (its hits fell outside any
		 * symbol): it still tells readers the symbols are in the file, so
		 * they do not go looking for the DSO on their own machine.
		 */
		if (!d->nr_hits && d->announced)
			continue;
		d->announced = 1;
		/* the symbols hit since the last flush, sorted by start */
		if (d->nr_hits)
			qsort_r(d->hits, d->nr_hits, sizeof(*d->hits), hit_cmp, d);
		usyms_item_begin(usyms, d, (uint32_t)d->nr_hits, &at, &nr_at);
		for (size_t k = 0; k < d->nr_hits; k++) {
			const struct usym *u = &d->syms[d->hits[k]];
			uint32_t size = u->size || d->sorted ? u->size : usym_room(d, d->hits[k]);

			usym_put(usyms, u->start, size, u->name);
		}
		pp_item__end(usyms, at);
		d->nr_hits = 0;
	}
	s->nr_dpend = 0;
	if (s->new_mmaps.len && mmaps) {
		pp_buf__append(mmaps, s->new_mmaps.data, s->new_mmaps.len);
		pp_buf__reset(&s->new_mmaps);
	}
}
