// SPDX-License-Identifier: MIT
/*
 * Unit tests of the ELF symbol reader (record/elf.c) on real files: a small
 * program compiled here with and without -g, stripped, with a separate
 * debug file found by .gnu_debuglink and by build-id, as 32-bit, and the
 * system's libc.so.6. What readelf says is the reference.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "pp/elf.h"
#include "../record/record.h"

#define LIBC "/usr/lib/x86_64-linux-gnu/libc.so.6"

static char dir[64];

static const char prog[] =
	"static int __attribute__((noinline)) quiet_helper(int x) { return x * 3 + 1; }\n"
	"int __attribute__((noinline)) visible_func(int x) { return quiet_helper(x) + 2; }\n"
	"static int pick(void) { return 7; }\n"
	"int (*resolve_me(void))(void) { return pick; }\n"
	"int ifunc_func(void) __attribute__((ifunc(\"resolve_me\")));\n"
	"int main(int argc, char **argv) { return visible_func(argc) + ifunc_func(); }\n";

static int sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

static int have_tools(void)
{
	return !sh("command -v gcc >/dev/null && command -v objcopy >/dev/null && "
		   "command -v readelf >/dev/null");
}

/* "readelf -s" value of function @sym (any version) in @file (first match), or 0. */
static uint64_t readelf_value(const char *file, const char *sym)
{
	char cmd[512], line[256];
	unsigned long long v = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd),
		 "readelf -sW %s | awk '{ split($8, n, \"@\") } n[1] == \"%s\" && $4 ~ /FUNC/ { print $2; exit }'", file, sym);
	p = popen(cmd, "r");
	if (p && fgets(line, sizeof(line), p))
		v = strtoull(line, NULL, 16);
	if (p)
		pclose(p);
	return v;
}

/* The build-id readelf -n prints for @file, as bytes; return its size. */
static int readelf_build_id(const char *file, uint8_t *out)
{
	char cmd[512], hex[128];
	FILE *p;
	int n = 0;

	snprintf(cmd, sizeof(cmd), "readelf -n %s | awk '/Build ID/ { print $3; exit }'", file);
	p = popen(cmd, "r");
	if (p && fgets(hex, sizeof(hex), p))
		for (; n < PP_ELF_BUILD_ID_MAX && sscanf(hex + 2 * n, "%2hhx", &out[n]) == 1; n++)
			;
	if (p)
		pclose(p);
	return n;
}

static int group_setup(void **state)
{
	char path[128];
	FILE *f;

	if (!have_tools())
		return 0;
	snprintf(dir, sizeof(dir), "/tmp/pp-test-elf.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/p.c", dir);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(prog, f);
	fclose(f);
	/* plain, with -g, stripped with a debuglink, 32-bit (if gcc can) */
	if (sh("cd %s && gcc -O1 -Wl,--build-id -o plain p.c && gcc -g -O1 -Wl,--build-id -o dbg p.c &&"
	       " cp plain stripped && objcopy --only-keep-debug stripped stripped.debug &&"
	       " strip --strip-all stripped && objcopy --add-gnu-debuglink=stripped.debug stripped &&"
	       " gcc -O1 -Wl,--build-id=none -o nobid p.c && cp nobid nobid-stripped &&"
	       " objcopy --only-keep-debug nobid-stripped nobid-stripped.debug &&"
	       " strip --strip-all nobid-stripped &&"
	       " objcopy --add-gnu-debuglink=nobid-stripped.debug nobid-stripped", dir))
		return -1;
	sh("cd %s && gcc -m32 -O1 -o p32 p.c 2>/dev/null", dir);
	return 0;
}

static int group_teardown(void **state)
{
	if (dir[0])
		sh("rm -rf %s", dir);
	return 0;
}

#define NEED_TOOLS() do { if (!dir[0]) skip(); } while (0)

static struct pp_elf *open_in(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return pp_elf__open(path);
}

/* Every function of @e; @nr receives how many. */
static struct pp_elf_sym *all_funcs(struct pp_elf *e, size_t *nr)
{
	size_t cap = pp_elf__nr_symbols(e) + 1, pos = 0;
	struct pp_elf_sym *v = calloc(cap, sizeof(*v));
	int n;

	*nr = 0;
	assert_non_null(v);
	while ((n = pp_elf__funcs(e, &pos, v + *nr, 7)) > 0)	/* odd batches on purpose */
		*nr += (size_t)n;
	assert_true(n == 0);
	assert_true(*nr < cap);
	return v;
}

static const struct pp_elf_sym *find(const struct pp_elf_sym *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

static void test_symtab_rules(void **state)
{
	struct pp_elf *e;
	struct pp_elf_sym *v;
	const struct pp_elf_sym *s;
	char path[128];
	size_t n;

	NEED_TOOLS();
	snprintf(path, sizeof(path), "%s/dbg", dir);
	e = pp_elf__open(path);
	assert_non_null(e);
	assert_int_equal(pp_elf__has_symtab(e), 1);
	v = all_funcs(e, &n);
	/* a static function is only in .symtab */
	s = find(v, n, "quiet_helper");
	assert_non_null(s);
	assert_int_equal(s->vaddr, readelf_value(path, "quiet_helper"));
	assert_int_equal(s->type, 2 /* STT_FUNC */);
	assert_true(s->size > 0);
	/* the file offset is the address through its PT_LOAD: the bytes are there */
	{
		uint64_t off;

		assert_int_equal(pp_elf__offset(e, s->vaddr, &off), 0);
		assert_int_equal(off, s->offset);
	}
	/* IFUNC counts; undefined (printf@GLIBC...) and non-function symbols do not */
	s = find(v, n, "ifunc_func");
	assert_non_null(s);
	assert_int_equal(s->type, 10 /* STT_GNU_IFUNC */);
	assert_non_null(find(v, n, "main"));
	assert_null(find(v, n, "__libc_start_main"));
	for (size_t i = 0; i < n; i++) {
		assert_true(v[i].name[0]);
		assert_true(v[i].vaddr);
	}
	free(v);
	pp_elf__close(e);
}

static void test_find_func_and_uprobe_offset(void **state)
{
	struct pp_elf_sym s;
	struct pp_elf *e;
	char path[128];
	uint64_t off;

	NEED_TOOLS();
	e = open_in("plain");
	assert_non_null(e);
	assert_int_equal(pp_elf__find_func(e, "visible_func", &s), 0);
	assert_int_equal(pp_elf__find_func(e, "no_such_func", &s), -ENOENT);
	pp_elf__close(e);
	snprintf(path, sizeof(path), "%s/plain", dir);
	assert_int_equal(pp_elf_sym_offset(path, "visible_func", &off), 0);
	assert_int_equal(off, s.offset);
	assert_int_equal(pp_elf_sym_offset(path, "nope", &off), -ENOENT);
	assert_int_equal(pp_elf_sym_offset("/etc/hostname", "main", &off), -ENOEXEC);
	assert_int_equal(pp_elf_sym_offset("/nonexistent/x", "main", &off), -ENOENT);
}

static void test_build_id(void **state)
{
	uint8_t a[PP_ELF_BUILD_ID_MAX], b[PP_ELF_BUILD_ID_MAX];
	struct pp_elf *e;
	char path[128];
	int n;

	NEED_TOOLS();
	snprintf(path, sizeof(path), "%s/stripped", dir);
	n = readelf_build_id(path, b);
	assert_int_equal(n, 20);
	e = pp_elf__open(path);
	assert_non_null(e);
	assert_int_equal(pp_elf__build_id(e, a), n);
	assert_memory_equal(a, b, (size_t)n);
	pp_elf__close(e);
	/* the debug file has the same one */
	e = open_in("stripped.debug");
	assert_non_null(e);
	assert_int_equal(pp_elf__build_id(e, a), n);
	assert_memory_equal(a, b, (size_t)n);
	pp_elf__close(e);
	e = open_in("nobid");
	assert_non_null(e);
	assert_int_equal(pp_elf__build_id(e, a), 0);
	pp_elf__close(e);
}

static void test_stripped_and_debuglink(void **state)
{
	struct pp_elf *e, *d;
	struct pp_elf_sym *v, *dv;
	const struct pp_elf_sym *s, *p;
	char name[64], path[128];
	uint32_t crc, fcrc;
	size_t n, dn;

	NEED_TOOLS();
	e = open_in("stripped");
	assert_non_null(e);
	/* only .dynsym: main is not exported, so no function of the program */
	assert_int_equal(pp_elf__has_symtab(e), 0);
	v = all_funcs(e, &n);
	assert_null(find(v, n, "quiet_helper"));
	free(v);
	assert_int_equal(pp_elf__debuglink(e, name, sizeof(name), &crc), 0);
	assert_string_equal(name, "stripped.debug");
	snprintf(path, sizeof(path), "%s/stripped.debug", dir);
	assert_int_equal(pp_elf_file_crc32(path, &fcrc), 0);
	assert_int_equal(crc, fcrc);
	assert_int_equal(pp_elf__debuglink(e, name, 4, &crc), -ENAMETOOLONG);
	/* the debug file, found beside it, gives the .symtab at the stripped file's offsets */
	snprintf(path, sizeof(path), "%s/stripped", dir);
	d = pp_elf__debug_file(e, path);
	assert_non_null(d);
	assert_int_equal(pp_elf__has_symtab(d), 1);
	dv = all_funcs(d, &dn);
	s = find(dv, dn, "quiet_helper");
	assert_non_null(s);
	pp_elf__close(d);
	pp_elf__close(e);
	/* the same offsets as the unstripped program's */
	e = open_in("plain");
	v = all_funcs(e, &n);
	p = find(v, n, "quiet_helper");
	assert_non_null(p);
	assert_int_equal(p->offset, s->offset);
	assert_int_equal(p->vaddr, s->vaddr);
	assert_int_equal(n, dn);
	free(v);
	free(dv);
	pp_elf__close(e);
	/* without a build-id, the debuglink's CRC decides */
	e = open_in("nobid-stripped");
	snprintf(path, sizeof(path), "%s/nobid-stripped", dir);
	d = pp_elf__debug_file(e, path);
	assert_non_null(d);
	pp_elf__close(d);
	sh("cd %s && printf x >> nobid-stripped.debug", dir);
	d = pp_elf__debug_file(e, path);
	assert_null(d);
	pp_elf__close(e);
}

static void test_debug_file_alone(void **state)
{
	struct pp_elf_sym *v, *pv;
	const struct pp_elf_sym *s, *p;
	const struct pp_elf_seg *segs;
	struct pp_elf *e;
	size_t n, pn;
	int nsegs;

	NEED_TOOLS();
	/* segments without file bytes: offsets are taken equal to addresses */
	e = open_in("stripped.debug");
	assert_non_null(e);
	nsegs = pp_elf__segments(e, &segs);
	assert_true(nsegs > 0);
	v = all_funcs(e, &n);
	s = find(v, n, "quiet_helper");
	assert_non_null(s);
	assert_int_equal(s->offset, s->vaddr);
	pp_elf__close(e);
	e = open_in("plain");
	pv = all_funcs(e, &pn);
	p = find(pv, pn, "quiet_helper");
	/* gcc's default layout: the text's offset is its address */
	assert_int_equal(p->offset, s->offset);
	free(v);
	free(pv);
	pp_elf__close(e);
}

static void test_elf32(void **state)
{
	struct pp_elf_sym *v;
	struct pp_elf *e;
	char path[128];
	size_t n;

	NEED_TOOLS();
	snprintf(path, sizeof(path), "%s/p32", dir);
	if (access(path, R_OK))
		skip();		/* no 32-bit gcc support here */
	e = pp_elf__open(path);
	assert_non_null(e);
	v = all_funcs(e, &n);
	assert_non_null(find(v, n, "quiet_helper"));
	assert_int_equal(find(v, n, "visible_func")->vaddr, readelf_value(path, "visible_func"));
	free(v);
	pp_elf__close(e);
}

static void test_not_elf_and_truncated(void **state)
{
	struct pp_elf_sym *v;
	struct pp_elf *e;
	char path[128];
	size_t n;

	NEED_TOOLS();
	errno = 0;
	assert_null(pp_elf__open("/etc/hostname"));
	assert_int_equal(errno, ENOEXEC);
	assert_null(pp_elf__open("/nonexistent/x"));
	assert_int_equal(errno, ENOENT);
	/* cut at every few hundred bytes: never a crash, never a function outside the file */
	for (int cut = 16; cut < 20000; cut += 211) {
		sh("head -c %d %s/dbg > %s/cut", cut, dir, dir);
		snprintf(path, sizeof(path), "%s/cut", dir);
		e = pp_elf__open(path);
		if (!e)
			continue;
		v = all_funcs(e, &n);
		free(v);
		pp_elf__build_id(e, (uint8_t[PP_ELF_BUILD_ID_MAX]){ 0 });
		pp_elf__close(e);
	}
}

struct deps {
	char names[64][256];
	int nr;
};

static void dep_name(void *ctx, const char *name)
{
	struct deps *d = ctx;

	if (d->nr < 64)
		snprintf(d->names[d->nr++], sizeof(d->names[0]), "%s", name);
}

/* This test program's loader and libraries, as the dynamic section names them. */
static void test_deps(void **state)
{
	struct pp_elf *e = pp_elf__open("/proc/self/exe");
	struct deps d = { .nr = 0 };
	char interp[4096];
	int libc = 0, cmocka = 0;

	(void)state;
	assert_non_null(e);
	assert_int_equal(pp_elf__deps(e, interp, sizeof(interp), dep_name, &d), 0);
	assert_string_equal(interp + strlen(interp) - strlen(".so.2"), ".so.2");
	assert_int_equal(interp[0], '/');
	assert_int_equal(access(interp, R_OK), 0);
	for (int i = 0; i < d.nr; i++) {
		libc += !strcmp(d.names[i], "libc.so.6");
		cmocka += !strncmp(d.names[i], "libcmocka.so", 12);
	}
	assert_int_equal(libc, 1);
	assert_int_equal(cmocka, 1);
	pp_elf__close(e);
	/* libc needs the loader (and, being runnable, names it as its interpreter too) */
	e = pp_elf__open(LIBC);
	if (e) {
		d.nr = 0;
		assert_int_equal(pp_elf__deps(e, interp, sizeof(interp), dep_name, &d), 0);
		assert_true(d.nr >= 1);
		assert_non_null(strstr(d.names[0], "ld-linux"));
		pp_elf__close(e);
	}
}

static void test_libc(void **state)
{
	uint8_t bid[PP_ELF_BUILD_ID_MAX], want[PP_ELF_BUILD_ID_MAX];
	struct pp_elf *e, *d;
	struct pp_elf_sym *v, *dv;
	const struct pp_elf_sym *s;
	size_t n, dn;
	int nb;

	if (access(LIBC, R_OK))
		skip();
	e = pp_elf__open(LIBC);
	assert_non_null(e);
	nb = pp_elf__build_id(e, bid);
	if (have_tools()) {
		assert_int_equal(readelf_build_id(LIBC, want), nb);
		assert_memory_equal(bid, want, (size_t)nb);
	}
	v = all_funcs(e, &n);
	assert_true(n > 1000);
	s = find(v, n, "malloc");
	assert_non_null(s);
	if (have_tools())
		assert_int_equal(s->vaddr, readelf_value(LIBC, "malloc"));
	/* memcpy is an IFUNC in libc */
	assert_non_null(find(v, n, "memcpy"));
	d = pp_elf__debug_file(e, LIBC);
	if (d) {
		/* libc6-dbg: the debug file has the static functions too */
		dv = all_funcs(d, &dn);
		assert_true(dn > n);
		assert_non_null(find(dv, dn, "__libc_start_call_main"));
		s = find(dv, dn, "malloc");
		assert_non_null(s);
		assert_int_equal(s->offset, find(v, n, "malloc")->offset);
		free(dv);
		pp_elf__close(d);
	}
	free(v);
	pp_elf__close(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_symtab_rules),
		cmocka_unit_test(test_find_func_and_uprobe_offset),
		cmocka_unit_test(test_build_id),
		cmocka_unit_test(test_stripped_and_debuglink),
		cmocka_unit_test(test_debug_file_alone),
		cmocka_unit_test(test_elf32),
		cmocka_unit_test(test_not_elf_and_truncated),
		cmocka_unit_test(test_libc),
		cmocka_unit_test(test_deps),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
