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
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "pp/meta.h"
#include "replay-internal.h"

struct pp_sym {
	uint64_t addr;
	uint64_t size;
	const char *name;
	const char *mod;	/* kernel module, "" = vmlinux; NULL for user */
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
	struct { uint64_t off, vaddr, len; } segs[8];
	int nr_segs;
};

struct pp_map {
	uint64_t start, end, pgoff;
	int dso;
};

/*
 * The maps of one or more processes, sorted by start. A forked process
 * shares its parent's set (@refs counts the sharers) until one of them
 * changes: then that one gets its own copy.
 */
struct pp_mapset {
	uint32_t refs;
	uint32_t uid;		/* gen of its last change: equal uids, equal maps */
	uint32_t nr, cap;
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
	uint64_t kbase;		/* lowest vmlinux symbol */
	int kbase_ok;
	struct pp_dso *dsos;
	size_t nr_dsos, cap_dsos;
	struct pp_proc *procs;	/* open addressing by pid */
	size_t procs_cap, procs_nr;
	char **strs;		/* every string we own */
	size_t nr_strs, cap_strs;
	uint32_t gen;		/* bumped whenever a lookup's answer may change */
	uint32_t kver;		/* gen of the last kernel symbol change */
	uint32_t uver;		/* gen of the last user symbol change */
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
	d = strdup(s);
	if (d)
		t->strs[t->nr_strs++] = d;
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

/* The process @pid, added (without maps) if new; NULL when out of memory. */
static struct pp_proc *proc_get(struct pp_symtab *t, uint32_t pid)
{
	struct pp_proc *p;

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

	if (ms && ms->refs == 1 && ms->nr < ms->cap)
		return 0;
	cap = ms ? ms->nr + 1 : 8;
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
		n->refs = 1;
		n->nr = ms ? ms->nr : 0;
		if (ms) {
			memcpy(n->m, ms->m, ms->nr * sizeof(n->m[0]));
			ms->refs--;
		}
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
	free(t->dsos);
	free(t->procs);
	free(t);
}

static int cmp_sym(const void *a, const void *b)
{
	const struct pp_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
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
		t->nr_ksyms++;
	}
	t->ksorted = 0;
	return 0;
}

static struct pp_dso *dso_get(struct pp_symtab *t, const uint8_t *bid, size_t bsz, const char *path)
{
	for (size_t i = 0; i < t->nr_dsos; i++) {
		struct pp_dso *d = &t->dsos[i];

		if (bsz && d->build_id_size == bsz && !memcmp(d->build_id, bid, bsz))
			return d;
		if ((!bsz || !d->build_id_size) && path && d->path && !strcmp(d->path, path)) {
			if (bsz && !d->build_id_size) {
				memcpy(d->build_id, bid, bsz);
				d->build_id_size = (uint8_t)bsz;
			}
			return d;
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

	pp_cur__init(&c, body, size);
	if (pp_cur__u8(&c, &bsz) || pp_cur__u8(&c, &pad) || pp_cur__u8(&c, &pad) ||
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
		if (!d->syms[d->nr_syms].name)
			return -ENOMEM;
		d->nr_syms++;
	}
	d->sorted = 0;
	d->source = 1;
	return 0;
}

/* Index of the first map of @ms starting above @addr. */
static size_t map_upper(const struct pp_mapset *ms, uint64_t addr)
{
	size_t lo = 0, hi = ms->nr;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (ms->m[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int map_insert(struct pp_symtab *t, uint32_t pid, uint64_t start, uint64_t end,
		      uint64_t pgoff, int dso)
{
	struct pp_proc *p = proc_get(t, pid);
	struct pp_mapset *ms;
	size_t i;

	if (!p || mapset_own(p))
		return -ENOMEM;
	ms = p->ms;
	ms->uid = ++t->gen;
	/* Drop the maps of this process that the new one overlaps. */
	for (i = 0; i < ms->nr;) {
		if (ms->m[i].start < end && ms->m[i].end > start) {
			memmove(&ms->m[i], &ms->m[i + 1], (ms->nr - i - 1) * sizeof(ms->m[0]));
			ms->nr--;
			continue;
		}
		i++;
	}
	/* after the maps starting below it (none starts at @start any more) */
	i = map_upper(ms, start);
	memmove(&ms->m[i + 1], &ms->m[i], (ms->nr - i) * sizeof(ms->m[0]));
	ms->m[i] = (struct pp_map){ .start = start, .end = end, .pgoff = pgoff, .dso = dso };
	ms->nr++;
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
	for (uint32_t i = 0; i < pms->nr; i++) {
		struct pp_map m = pms->m[i];

		if (map_insert(t, pid, m.start, m.end, m.pgoff, m.dso))
			break;
	}
	mapset_put(pms);
}

static const struct pp_sym *sym_find(struct pp_sym *syms, size_t nr, uint64_t addr)
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
	const struct pp_sym *s = &syms[lo - 1];

	if (s->size && addr >= s->addr + s->size)
		return NULL;
	return s;
}

/* Read ELF symbols, segments and the build-id of @path into @d. Return 0 or -errno. */
static int elf_load(struct pp_symtab *t, struct pp_dso *d, const char *path, int check_bid)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *e;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	size_t phnum;
	int ret = -ENOENT, bid_ok = !check_bid || !d->build_id_size;
	struct pp_sym *syms = NULL;
	size_t nr = 0, cap = 0;

	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || !gelf_getehdr(e, &eh))
		goto out;
	d->nr_segs = 0;
	if (!elf_getphdrnum(e, &phnum)) {
		for (size_t i = 0; i < phnum && d->nr_segs < 8; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD) {
				d->segs[d->nr_segs].off = ph.p_offset;
				d->segs[d->nr_segs].vaddr = ph.p_vaddr;
				d->segs[d->nr_segs].len = ph.p_filesz;
				d->nr_segs++;
			}
		}
	}
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_NOTE && !bid_ok) {
			size_t off = 0, noff, doff;
			GElf_Nhdr nh;

			data = elf_getdata(scn, NULL);
			while (data && (off = gelf_getnote(data, off, &nh, &noff, &doff)) > 0) {
				if (nh.n_type == NT_GNU_BUILD_ID && nh.n_descsz >= d->build_id_size &&
				    !memcmp((uint8_t *)data->d_buf + doff, d->build_id, d->build_id_size))
					bid_ok = 1;
			}
			continue;
		}
		if (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !sh.sh_entsize)
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(data, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    !sym.st_value)
				continue;
			name = elf_strptr(e, sh.sh_link, sym.st_name);
			if (!name || !*name)
				continue;
			if (nr == cap) {
				size_t n = cap ? cap * 2 : 1024;
				struct pp_sym *a = realloc(syms, n * sizeof(*a));

				if (!a)
					goto out;
				syms = a;
				cap = n;
			}
			syms[nr].addr = sym.st_value;
			syms[nr].size = sym.st_size;
			syms[nr].name = own_str(t, name);
			syms[nr].mod = NULL;
			if (!syms[nr].name)
				goto out;
			nr++;
		}
	}
	if (!bid_ok || !nr) {
		ret = -ENOENT;
		goto out;
	}
	free(d->syms);
	d->syms = syms;
	d->nr_syms = nr;
	d->sorted = 0;
	syms = NULL;
	ret = 0;
out:
	free(syms);
	if (e)
		elf_end(e);
	close(fd);
	return ret;
}

static void dso_load(struct pp_symtab *t, struct pp_dso *d)
{
	char path[512];
	int n;

	if (d->source)
		return;
	d->source = -1;
	if (d->build_id_size >= 2) {
		n = snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%02x/", d->build_id[0]);
		for (int i = 1; i < d->build_id_size && n < (int)sizeof(path) - 8; i++)
			n += snprintf(path + n, sizeof(path) - (size_t)n, "%02x", d->build_id[i]);
		snprintf(path + n, sizeof(path) - (size_t)n, ".debug");
		if (!elf_load(t, d, path, 0)) {
			d->source = 2;
			return;
		}
	}
	if (d->path && d->path[0] == '/' && !elf_load(t, d, d->path, 1))
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
	const struct pp_sym *s;

	if (!t->ksorted) {
		if (t->nr_ksyms)
			qsort(t->ksyms, t->nr_ksyms, sizeof(*t->ksyms), cmp_sym);
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
		copy_name(buf, len, s->name);
		return 1;
	}
	if (s && s->mod && s->mod[0]) {
		size_t i = lo - 1;

		while (i > 0 && t->ksyms[i - 1].mod && !strcmp(t->ksyms[i - 1].mod, s->mod))
			i--;
		snprintf(buf, len, "%s+0x%llx", s->mod, (unsigned long long)(addr - t->ksyms[i].addr));
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
	const struct pp_sym *s;

	if (kernel)
		return ksym_lookup(t, addr, buf, len, dso);
	const struct pp_proc *p = proc_find(t, pid);
	const struct pp_mapset *ms = p ? p->ms : NULL;
	size_t i = ms ? map_upper(ms, addr) : 0;

	if (i && addr < ms->m[i - 1].end) {
		const struct pp_map *m = &ms->m[i - 1];
		struct pp_dso *d = &t->dsos[m->dso];
		uint64_t off = addr - m->start + m->pgoff, vaddr = off;

		dso_load(t, d);
		if (dso)
			*dso = d->short_name;
		for (int k = 0; k < d->nr_segs; k++) {
			if (off >= d->segs[k].off && off < d->segs[k].off + d->segs[k].len) {
				vaddr = off - d->segs[k].off + d->segs[k].vaddr;
				break;
			}
		}
		ensure_sorted(d->syms, d->nr_syms, &d->sorted);
		s = sym_find(d->syms, d->nr_syms, vaddr);
		if (!s && !d->nr_segs)	/* a non-PIE executable: symbols are absolute */
			s = sym_find(d->syms, d->nr_syms, addr);
		if (s) {
			copy_name(buf, len, s->name);
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
