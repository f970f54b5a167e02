// SPDX-License-Identifier: MIT
/*
 * pp-analyze --symbols BINARY: the symbolizer protocol of `pprof --symbols`,
 * which gperftools runs as $PPROF_PATH when its heap checker reports leaks
 * (HEAPCHECK=draconian), so the report names functions.
 *
 * Standard input: the process's /proc/self/maps lines, then the addresses,
 * one "0xHEX" per line (a line holding a 0x number is an address, any other
 * a map line). Standard output: one line per address, in input order: the
 * function's name, or "??" when none is known. An address no map line
 * covers is looked up in BINARY as a link-time address.
 *
 * Functions come from each mapped file's .symtab or .dynsym, or from its
 * separate debug file (by build-id or debuglink), as for trace files.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pp/elf.h"
#include "replay-internal.h"

#define PS_MAX_MAPS	4096
#define PS_MAX_ADDRS	(1u << 20)

struct ps_map {
	uint64_t start, end, pgoff;
	char *path;
};

/* The functions of one file, sorted by file offset. */
struct ps_file {
	char *path;
	struct pp_elf *elf, *dbg;
	struct pp_elf_sym *syms;
	size_t nr;
	int loaded;
};

static int cmp_sym(const void *a, const void *b)
{
	const struct pp_elf_sym *x = a, *y = b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static void file_load(struct ps_file *f)
{
	struct pp_elf *src;
	size_t pos = 0, cap;

	f->loaded = 1;
	f->elf = pp_elf__open(f->path);
	if (!f->elf)
		return;
	src = f->elf;
	if (!pp_elf__has_symtab(f->elf)) {
		f->dbg = pp_elf__debug_file(f->elf, f->path);
		if (f->dbg)
			src = f->dbg;
	}
	cap = pp_elf__nr_symbols(src);
	f->syms = calloc(cap ? cap : 1, sizeof(*f->syms));
	if (!f->syms)
		return;
	while (f->nr < cap) {
		int n = pp_elf__funcs(src, &pos, f->syms + f->nr, cap - f->nr);

		if (n <= 0)
			break;
		f->nr += (size_t)n;
	}
	qsort(f->syms, f->nr, sizeof(*f->syms), cmp_sym);
}

/* The function holding file offset @off, or NULL. */
static const char *file_lookup(struct ps_file *f, uint64_t off)
{
	size_t lo = 0, hi;

	if (!f->loaded)
		file_load(f);
	hi = f->nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->syms[mid].offset <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	/* a symbol without a size covers up to the next one */
	{
		const struct pp_elf_sym *s = &f->syms[lo - 1];

		if (s->size && off >= s->offset + s->size)
			return NULL;
		return s->name;
	}
}

static struct ps_file *file_get(struct ps_file **files, size_t *nr, const char *path)
{
	struct ps_file *nv;

	for (size_t i = 0; i < *nr; i++) {
		if (!strcmp((*files)[i].path, path))
			return &(*files)[i];
	}
	nv = realloc(*files, (*nr + 1) * sizeof(*nv));
	if (!nv)
		return NULL;
	*files = nv;
	memset(&nv[*nr], 0, sizeof(nv[*nr]));
	nv[*nr].path = strdup(path);
	if (!nv[*nr].path)
		return NULL;
	return &nv[(*nr)++];
}

/* "START-END PERMS PGOFF DEV INODE PATH": 1 when it is one with a path. */
static int parse_map(const char *line, struct ps_map *m)
{
	unsigned long long start, end, pgoff;
	int n = 0;
	const char *p;

	if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %n", &start, &end, &pgoff, &n) != 3 || !n)
		return 0;
	p = line + n;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p != '/')
		return 0;
	m->start = start;
	m->end = end;
	m->pgoff = pgoff;
	m->path = strdup(p);
	if (!m->path)
		return 0;
	m->path[strcspn(m->path, "\r\n")] = '\0';
	return 1;
}

/* A "0x..." word of @line, as pprof looks for one. Return: 1 and *@addr. */
static int parse_addr(const char *line, uint64_t *addr)
{
	for (const char *p = line; *p; p++) {
		if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && isxdigit((unsigned char)p[2]) &&
		    (p == line || !isalnum((unsigned char)p[-1]))) {
			*addr = strtoull(p + 2, NULL, 16);
			return 1;
		}
	}
	return 0;
}

/**
 * pp_pprof_symbols() - answer a `pprof --symbols BINARY` request.
 * @binary: the program (for addresses no map line covers).
 * @in: the maps and addresses; @out: one name per address.
 * Return: 0, or -errno (message printed) when the input cannot be held.
 */
int pp_pprof_symbols(const char *binary, FILE *in, FILE *out)
{
	struct ps_map *maps = calloc(PS_MAX_MAPS, sizeof(*maps));
	uint64_t *addrs = NULL;
	size_t nr_maps = 0, nr_addrs = 0, cap_addrs = 0, nr_files = 0;
	struct ps_file *files = NULL, *prog;
	char line[4096];
	int ret = 0;

	if (!maps)
		return -ENOMEM;
	while (fgets(line, sizeof(line), in)) {
		uint64_t a;

		if (parse_addr(line, &a)) {
			if (nr_addrs == PS_MAX_ADDRS) {
				fprintf(stderr, "pp-analyze: --symbols: more than %u addresses\n", PS_MAX_ADDRS);
				ret = -E2BIG;
				goto out;
			}
			if (nr_addrs == cap_addrs) {
				size_t nc = cap_addrs ? cap_addrs * 2 : 1024;
				uint64_t *na = realloc(addrs, nc * sizeof(*na));

				if (!na) {
					ret = -ENOMEM;
					goto out;
				}
				addrs = na;
				cap_addrs = nc;
			}
			addrs[nr_addrs++] = a;
		} else if (nr_maps < PS_MAX_MAPS && parse_map(line, &maps[nr_maps])) {
			nr_maps++;
		}
	}
	prog = file_get(&files, &nr_files, binary);
	for (size_t i = 0; i < nr_addrs; i++) {
		const char *name = NULL;
		size_t k;

		for (k = 0; k < nr_maps; k++) {
			if (addrs[i] >= maps[k].start && addrs[i] < maps[k].end)
				break;
		}
		if (k < nr_maps) {
			struct ps_file *f = file_get(&files, &nr_files, maps[k].path);

			if (f)
				name = file_lookup(f, addrs[i] - maps[k].start + maps[k].pgoff);
		} else if (prog) {
			uint64_t off;

			prog = file_get(&files, &nr_files, binary);	/* files may have moved */
			if (!prog->loaded)
				file_load(prog);
			if (prog->elf && !pp_elf__offset(prog->elf, addrs[i], &off))
				name = file_lookup(prog, off);
		}
		/* pprof prints "__libc_start_main", not its symbol version */
		fprintf(out, "%.*s\n", name ? (int)strcspn(name, "@") : 2, name ? name : "??");
	}
	if (fflush(out)) {
		fprintf(stderr, "pp-analyze: --symbols: cannot write the names: %s\n", strerror(errno));
		ret = -EIO;
	}
out:
	for (size_t i = 0; i < nr_files; i++) {
		free(files[i].syms);
		pp_elf__close(files[i].dbg);
		pp_elf__close(files[i].elf);
		free(files[i].path);
	}
	free(files);
	for (size_t i = 0; i < nr_maps; i++)
		free(maps[i].path);
	free(maps);
	free(addrs);
	return ret;
}
