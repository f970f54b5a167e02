// SPDX-License-Identifier: MIT
/*
 * USDT probes (SystemTap SDT, sys/sdt.h): read the probes of an ELF file's
 * .note.stapsdt section and place them as tracefs uprobe events whose fetch
 * arguments decode the probe's argument specs ("-4@%edi", "8@-8(%rbp)",
 * "4@$5", "-8@sym(%rip)") into fields arg1..argN.
 *
 * Why tracefs uprobe_events and not the uprobe PMU: a tracefs probe event is
 * a tracepoint with a format, so its arguments are fetched in the kernel at
 * the probe (registers and memory of the probed task, no user stack copies)
 * and everything pp does with tracepoint fields works unchanged: the format
 * goes into the file, the kernel filter tests arg1..argN, and the analyzers
 * print and key them. The semaphore (the probe's "is enabled" counter) is
 * the kernel's uprobe reference counter, PATH:OFFSET(REF_CTR_OFFSET) in the
 * probe definition (the PMU's ref_ctr_offset config bits are the same thing).
 *
 * The events are named pp_usdt/PROVIDER__NAME_HASH, where HASH covers the
 * whole definition: an event of that name left by another pp (or a killed
 * one) is the same probe and is reused. Events this process created are
 * removed at exit, once its perf events on them are closed.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <libelf.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "pp/evspec.h"
#include "pp/tracefs.h"
#include "record.h"

#define USDT_NOTE_TYPE	3
#define USDT_GROUP	"pp_usdt"
#define MAX_CREATED	64

static char created[MAX_CREATED][96];
static int nr_created;

/* An x86-64 register name of any width -> the kernel's pt_regs name. */
static const char *x86_reg(const char *r, int *width)
{
	static const struct {
		const char *kname, *names[4];	/* 64, 32, 16, 8 bits */
	} regs[] = {
		{ "ax", { "rax", "eax", "ax", "al" } }, { "bx", { "rbx", "ebx", "bx", "bl" } },
		{ "cx", { "rcx", "ecx", "cx", "cl" } }, { "dx", { "rdx", "edx", "dx", "dl" } },
		{ "si", { "rsi", "esi", "si", "sil" } }, { "di", { "rdi", "edi", "di", "dil" } },
		{ "bp", { "rbp", "ebp", "bp", "bpl" } }, { "sp", { "rsp", "esp", "sp", "spl" } },
		{ "r8", { "r8", "r8d", "r8w", "r8b" } }, { "r9", { "r9", "r9d", "r9w", "r9b" } },
		{ "r10", { "r10", "r10d", "r10w", "r10b" } },
		{ "r11", { "r11", "r11d", "r11w", "r11b" } },
		{ "r12", { "r12", "r12d", "r12w", "r12b" } },
		{ "r13", { "r13", "r13d", "r13w", "r13b" } },
		{ "r14", { "r14", "r14d", "r14w", "r14b" } },
		{ "r15", { "r15", "r15d", "r15w", "r15b" } },
		{ "ip", { "rip", "eip", "ip", NULL } },
	};
	static const int widths[4] = { 64, 32, 16, 8 };

	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		for (int w = 0; w < 4; w++)
			if (regs[i].names[w] && !strcmp(r, regs[i].names[w])) {
				if (width)
					*width = widths[w];
				return regs[i].kname;
			}
	return NULL;
}

/**
 * pp_usdt_arg_fetch() - one SDT argument spec as a uprobe fetch argument.
 * @spec: "[-]SIZE@OPERAND" as sys/sdt.h writes it on x86-64: %REG, $IMM,
 *        DISP(%REG), (%REG), SYM[+-OFF](%rip).
 * @sym_off: resolves SYM to its file offset (for @+OFFSET), may be NULL
 *           (then a symbol operand fails); @ctx: its argument.
 * @out, @size: receive "%di:s32", "-8(%bp):s64", "\5:s32", "@+0x4018:s64".
 * @err, @errlen: why a spec is not supported.
 * Return: 0 or -EINVAL.
 */
int pp_usdt_arg_fetch(const char *spec, int (*sym_off)(void *ctx, const char *sym, uint64_t *off),
		      void *ctx, char *out, size_t size, char *err, size_t errlen)
{
	const char *at = strchr(spec, '@'), *op, *lp;
	char type[8], reg[16];
	int sign = 0, bytes, n;
	char *end;
	long v;

	if (!at)
		goto bad;
	v = strtol(spec, &end, 10);
	if (end != at || v == 0)
		goto bad;
	sign = v < 0;
	bytes = (int)(v < 0 ? -v : v);
	if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8)
		goto bad;
	snprintf(type, sizeof(type), "%c%d", sign ? 's' : 'u', bytes * 8);
	op = at + 1;
	if (*op == '%') {
		if (!x86_reg(op + 1, NULL))
			goto bad;
		n = snprintf(out, size, "%%%s:%s", x86_reg(op + 1, NULL), type);
	} else if (*op == '$') {
		long long imm;

		errno = 0;
		imm = strtoll(op + 1, &end, 0);
		if (errno || end == op + 1 || *end)
			goto bad;
		n = snprintf(out, size, "\\%lld:%s", imm, type);
	} else if ((lp = strchr(op, '(')) != NULL) {
		size_t rl;
		const char *rp = strchr(lp, ')');

		if (!rp || rp[1] || lp[1] != '%' || strchr(lp, ','))
			goto bad;
		rl = (size_t)(rp - lp - 2);
		if (rl >= sizeof(reg))
			goto bad;
		memcpy(reg, lp + 2, rl);
		reg[rl] = '\0';
		if (!strcmp(reg, "rip")) {
			/* SYM[+-OFF](%rip): a global, at its offset in the file */
			char sym[256];
			const char *pm = op;
			long long add = 0;
			uint64_t off;

			while (pm < lp && *pm != '+' && *pm != '-')
				pm++;
			if (pm == op || (size_t)(pm - op) >= sizeof(sym))
				goto bad;
			memcpy(sym, op, (size_t)(pm - op));
			sym[pm - op] = '\0';
			if (pm < lp) {
				add = strtoll(pm, &end, 0);
				if (end != lp)
					goto bad;
			}
			if (!sym_off || sym_off(ctx, sym, &off)) {
				snprintf(err, errlen, "usdt argument '%s': no symbol '%s' in the "
					 "binary", spec, sym);
				return -EINVAL;
			}
			n = snprintf(out, size, "@+%#llx:%s", (unsigned long long)(off + (uint64_t)add),
				     type);
		} else {
			long long disp = 0;

			if (!x86_reg(reg, NULL))
				goto bad;
			if (lp > op) {
				errno = 0;
				disp = strtoll(op, &end, 0);
				if (errno || end != lp)
					goto bad;
			}
			n = snprintf(out, size, "%+lld(%%%s):%s", disp, x86_reg(reg, NULL), type);
		}
	} else {
		goto bad;
	}
	if (n < 0 || (size_t)n >= size)
		goto bad;
	return 0;
bad:
	snprintf(err, errlen, "usdt argument '%s' is not supported (x86-64 SIZE@%%REG, "
		 "SIZE@$IMM, SIZE@DISP(%%REG), SIZE@SYM(%%rip))", spec);
	return -EINVAL;
}

/* ---- .note.stapsdt ---- */

struct usdt_elf {
	int fd;
	Elf *elf;
};

static int usdt_elf_open(struct usdt_elf *u, const char *path, char *err, size_t errlen)
{
	elf_version(EV_CURRENT);
	u->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (u->fd < 0) {
		int r = -errno;

		snprintf(err, errlen, "usdt: cannot read %s: %s", path, strerror(errno));
		return r;
	}
	u->elf = elf_begin(u->fd, ELF_C_READ, NULL);
	if (!u->elf || elf_kind(u->elf) != ELF_K_ELF || gelf_getclass(u->elf) != ELFCLASS64) {
		snprintf(err, errlen, "usdt: %s: not a 64-bit ELF file", path);
		if (u->elf)
			elf_end(u->elf);
		close(u->fd);
		return -ENOEXEC;
	}
	return 0;
}

static void usdt_elf_close(struct usdt_elf *u)
{
	elf_end(u->elf);
	close(u->fd);
}

/* The file offset of virtual address @va: the PT_LOAD segment holding it. */
static int va_to_off(Elf *elf, uint64_t va, uint64_t *off)
{
	size_t n;

	if (elf_getphdrnum(elf, &n))
		return -ENOEXEC;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (va >= ph.p_vaddr && va < ph.p_vaddr + ph.p_filesz) {
			*off = va - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -ENOENT;
}

static Elf_Scn *section(Elf *elf, const char *name, GElf_Shdr *sh)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, sh))
			continue;
		n = elf_strptr(elf, shstrndx, sh->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/* sym_off callback: a data or function symbol's file offset (symtab, then dynsym). */
static int elf_sym_off(void *ctx, const char *name, uint64_t *off)
{
	Elf *elf = ctx;
	Elf_Scn *scn = NULL;

	for (int pass = 0; pass < 2; pass++) {
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			Elf_Data *d;

			if (!gelf_getshdr(scn, &sh) ||
			    sh.sh_type != (pass ? SHT_DYNSYM : SHT_SYMTAB) || !sh.sh_entsize)
				continue;
			d = elf_getdata(scn, NULL);
			for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
				GElf_Sym s;
				const char *sn;

				if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF)
					continue;
				sn = elf_strptr(elf, sh.sh_link, s.st_name);
				if (sn && !strcmp(sn, name))
					return va_to_off(elf, s.st_value, off);
			}
		}
	}
	return -ENOENT;
}

/**
 * pp_usdt__list() - the USDT probes of ELF @path.
 * @path: the binary or library; @out: receives a malloc'ed array (caller
 * frees) of probes with their file offsets (prelink-adjusted); @err, @errlen.
 * Return: the number of probes (0: none), or -errno with @err set.
 */
int pp_usdt__list(const char *path, struct pp_usdt_probe **out, char *err, size_t errlen)
{
	struct usdt_elf u;
	struct pp_usdt_probe *v = NULL;
	GElf_Shdr sh, base_sh;
	Elf_Scn *scn, *base;
	Elf_Data *d;
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;
	int n = 0, r;

	*out = NULL;
	r = usdt_elf_open(&u, path, err, errlen);
	if (r)
		return r;
	scn = section(u.elf, ".note.stapsdt", &sh);
	base = section(u.elf, ".stapsdt.base", &base_sh);
	d = scn ? elf_getdata(scn, NULL) : NULL;
	while (d && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		const char *desc = (const char *)d->d_buf + desc_off, *p, *e = desc + nh.n_descsz;
		struct pp_usdt_probe pr = { 0 }, *nv;
		uint64_t pc, sbase, sema;
		const char *strs[3];

		if (nh.n_type != USDT_NOTE_TYPE || nh.n_namesz != 8 ||
		    memcmp((const char *)d->d_buf + name_off, "stapsdt", 8) || nh.n_descsz < 27)
			continue;
		memcpy(&pc, desc, 8);
		memcpy(&sbase, desc + 8, 8);
		memcpy(&sema, desc + 16, 8);
		p = desc + 24;
		for (int k = 0; k < 3; k++) {
			const char *z = memchr(p, '\0', (size_t)(e - p));

			if (!z)
				goto skip;
			strs[k] = p;
			p = z + 1;
			if (p > e)
				goto skip;
		}
		if (strlen(strs[0]) >= sizeof(pr.provider) || strlen(strs[1]) >= sizeof(pr.name) ||
		    strlen(strs[2]) >= sizeof(pr.args))
			goto skip;
		strcpy(pr.provider, strs[0]);
		strcpy(pr.name, strs[1]);
		strcpy(pr.args, strs[2]);
		/* prelinked: the note holds link-time addresses, .stapsdt.base says how far they moved */
		if (base && sbase) {
			pc += base_sh.sh_addr - sbase;
			if (sema)
				sema += base_sh.sh_addr - sbase;
		}
		pr.addr = pc;
		if (va_to_off(u.elf, pc, &pr.offset))
			goto skip;
		pr.sema_addr = sema;
		if (sema && va_to_off(u.elf, sema, &pr.sema_offset))
			goto skip;
		nv = realloc(v, (size_t)(n + 1) * sizeof(*v));
		if (!nv) {
			free(v);
			usdt_elf_close(&u);
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		v = nv;
		v[n++] = pr;
skip:
		;
	}
	usdt_elf_close(&u);
	*out = v;
	return n;
}

/**
 * pp_usdt__fetchargs() - the uprobe fetch arguments "arg1=... arg2=..." of
 * a probe's argument specs @args (space separated) in binary @path.
 * @out, @size: destination; @nr_args: receives the count; @err, @errlen.
 * Return: 0 or -errno with @err set.
 */
int pp_usdt__fetchargs(const char *path, const char *args, char *out, size_t size, int *nr_args,
		       char *err, size_t errlen)
{
	struct usdt_elf u;
	char buf[512], *tok, *save = NULL;
	size_t len = 0;
	int r, k = 0;

	out[0] = '\0';
	*nr_args = 0;
	if (strlen(args) >= sizeof(buf)) {
		snprintf(err, errlen, "usdt arguments too long");
		return -EINVAL;
	}
	strcpy(buf, args);
	r = usdt_elf_open(&u, path, err, errlen);
	if (r)
		return r;
	for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		char f[128];

		r = pp_usdt_arg_fetch(tok, elf_sym_off, u.elf, f, sizeof(f), err, errlen);
		if (r)
			break;
		k++;
		r = snprintf(out + len, size - len, "%sarg%d=%s", len ? " " : "", k, f);
		if (r < 0 || (size_t)r >= size - len) {
			snprintf(err, errlen, "usdt arguments too long");
			r = -EINVAL;
			break;
		}
		len += (size_t)r;
		r = 0;
	}
	usdt_elf_close(&u);
	*nr_args = k;
	return r;
}

/* FNV-1a: the definition's fingerprint in the event name. */
static uint32_t fnv(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 16777619u;
	return h;
}

/* Close this process's perf events, then remove the probe events it created. */
static void usdt_cleanup(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	char path[512], line[128];
	int fd;

	/* an event in use cannot be removed: at exit the perf fds are no longer needed */
	while (d && (de = readdir(d))) {
		char link[64];
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/self/fd/%s", de->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		if (!strcmp(link, "anon_inode:[perf_event]"))
			close(atoi(de->d_name));
	}
	if (d)
		closedir(d);
	/* nor while its ring is mapped */
	{
		FILE *f = fopen("/proc/self/maps", "re");
		char ln[512];

		while (f && fgets(ln, sizeof(ln), f)) {
			unsigned long lo, hi;

			if (strstr(ln, "[perf_event]") && sscanf(ln, "%lx-%lx", &lo, &hi) == 2)
				munmap((void *)lo, hi - lo);
		}
		if (f)
			fclose(f);
	}
	if (!pp_tracefs_dir(NULL))
		return;
	snprintf(path, sizeof(path), "%s/uprobe_events", pp_tracefs_dir(NULL));
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return;
	for (int i = 0; i < nr_created; i++) {
		int n = snprintf(line, sizeof(line), "-:%s/%s\n", USDT_GROUP, created[i]);

		if (write(fd, line, (size_t)n) < 0) {
			/* still in use by another recorder: it stays for that one */
		}
	}
	close(fd);
}

/**
 * pp_usdt__define() - the tracefs uprobe event of probe @p in @path,
 * created unless an identical one exists.
 * @sys, @event: receive its group and name (sizes 64 and 96).
 * @err, @errlen: message.
 * Return: 0 or -errno with @err set.
 */
int pp_usdt__define(const char *path, const struct pp_usdt_probe *p, char *sys, char *event,
		    char *err, size_t errlen)
{
	char fetch[1024], def[2048], base[64], idpath[256], tfpath[512];
	const char *dir;
	int nr, r, fd, mounted = 0;
	size_t j = 0;

	dir = pp_tracefs_dir(&mounted);
	if (!dir) {
		snprintf(err, errlen, "usdt needs tracefs (uprobe_events), which cannot be mounted "
			 "at /sys/kernel/tracing: %s", strerror(errno));
		return -ENOENT;
	}
	r = pp_usdt__fetchargs(path, p->args, fetch, sizeof(fetch), &nr, err, errlen);
	if (r)
		return r;
	if (p->sema_offset)
		snprintf(def, sizeof(def), "%s:%#llx(%#llx) %s", path,
			 (unsigned long long)p->offset, (unsigned long long)p->sema_offset, fetch);
	else
		snprintf(def, sizeof(def), "%s:%#llx %s", path, (unsigned long long)p->offset,
			 fetch);
	/* PROVIDER__NAME, identifier characters only, short enough for the kernel's 64 */
	for (const char *s = p->provider; *s && j < 24; s++)
		base[j++] = (char)((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
				   (*s >= '0' && *s <= '9') ? *s : '_');
	base[j++] = '_';
	base[j++] = '_';
	for (const char *s = p->name; *s && j < 50; s++)
		base[j++] = (char)((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
				   (*s >= '0' && *s <= '9') ? *s : '_');
	base[j] = '\0';
	snprintf(sys, 64, "%s", USDT_GROUP);
	snprintf(event, 96, "%s_%08x", base, fnv(def));
	snprintf(idpath, sizeof(idpath), "%s/events/%s/%s/id", dir, sys, event);
	if (!access(idpath, F_OK))
		return 0;	/* the same definition, made by another pp: shared */
	snprintf(tfpath, sizeof(tfpath), "%s/uprobe_events", dir);
	fd = open(tfpath, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		snprintf(err, errlen, "usdt: cannot open %s: %s (uprobes not in this kernel?)",
			 tfpath, strerror(errno));
		return r;
	}
	{
		char line[2304];
		int n = snprintf(line, sizeof(line), "p:%s/%s %s\n", sys, event, def);

		if (write(fd, line, (size_t)n) != n) {
			r = -errno;
			close(fd);
			line[n - 1] = '\0';
			snprintf(err, errlen, "usdt %s:%s: the kernel refused the probe '%s': %s",
				 p->provider, p->name, line, strerror(-r));
			return r;
		}
	}
	close(fd);
	if (nr_created < MAX_CREATED) {
		if (!nr_created)
			atexit(usdt_cleanup);
		snprintf(created[nr_created++], sizeof(created[0]), "%s", event);
	}
	return 0;
}

/**
 * pp_usdt__print_list() - "usdt list": every probe of @path, one a line:
 * PROVIDER:NAME, the address, the semaphore and the argument specs.
 * @path: the binary; @out: where. Return: 0, or -errno with @err set.
 */
int pp_usdt__print_list(const char *path, FILE *out, char *err, size_t errlen)
{
	struct pp_usdt_probe *v;
	int n = pp_usdt__list(path, &v, err, errlen);

	if (n < 0)
		return n;
	if (!n)
		fprintf(out, "%s: no USDT probes (no .note.stapsdt)\n", path);
	for (int i = 0; i < n; i++) {
		char sema[32] = "-";
		int nr = 0;

		if (v[i].sema_addr)
			snprintf(sema, sizeof(sema), "%#llx", (unsigned long long)v[i].sema_addr);
		for (const char *s = v[i].args; *s; s++)
			nr += (s == v[i].args || s[-1] == ' ') && *s != ' ';
		fprintf(out, "usdt:%s:%s@%s  addr %#llx  semaphore %s  %d args: %s\n",
			v[i].provider, v[i].name, path, (unsigned long long)v[i].addr, sema, nr,
			v[i].args[0] ? v[i].args : "-");
	}
	free(v);
	return 0;
}
