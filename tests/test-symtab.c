// SPDX-License-Identifier: MIT
/*
 * Replay symbol tables: demangling of C++ and Rust names (on by default,
 * off with --no-demangle), the maps of a process kept in a treap (checked
 * against a plain model under random overlapping insertions), and the cut
 * of frame-pointer chains at their first junk frame.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <linux/perf_event.h>
#include "pp/meta.h"
#include "../replay/replay-internal.h"

static void test_demangle(void **state)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "_ZN2pp7Spinner4spinEm", "pp::Spinner::spin(unsigned long)" },
		{ "_ZNSt6vectorIiSaIiEE9push_backERKi",
		  "std::vector<int, std::allocator<int> >::push_back(int const&)" },
		/* Rust legacy: the hash suffix goes */
		{ "_ZN6pptest11spin_legacy17h0123456789abcdefE", "pptest::spin_legacy" },
		/* Rust v0: the crate disambiguator goes */
		{ "_RNvCs15kBYyAo9fc_6pptest7spin_v0", "pptest::spin_v0" },
		{ "_RNvNtCs1234_7mycrate3foo3bar", "mycrate::foo::bar" },
	};
	static const char *const plain[] = { "main", "spin_alpha", "_start", "__libc_start_call_main",
					     "_Z", "_Zgarbage!", "_R", "" };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *d = pp_demangle(cases[i].in);

		assert_non_null(d);
		assert_string_equal(d, cases[i].out);
		free(d);
	}
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
		assert_null(pp_demangle(plain[i]));
	assert_null(pp_demangle(NULL));
}

/* A USYMS item of DSO @path (no build-id) with @n functions of 0x100 bytes at 0x1000, 0x1100... */
static void usyms_item(struct pp_buf *b, const char *path, const char *const *names, uint32_t n)
{
	uint8_t hdr[24] = { 0, PP_USYMS_SRC_SYMTAB };

	pp_buf__reset(b);
	pp_buf__append(b, hdr, 24);
	pp_buf__append(b, &n, 4);
	pp_buf__append_str(b, path);
	pp_buf__pad(b, 8);
	for (uint32_t i = 0; i < n; i++) {
		uint64_t start = 0x1000 + 0x100ull * i;
		uint32_t size = 0x100;

		pp_buf__append(b, &start, 8);
		pp_buf__append(b, &size, 4);
		pp_buf__append_str(b, names[i]);
	}
}

static void test_symtab_demangle(void **state)
{
	static const char *const names[] = { "_ZN2pp7Spinner4spinEm", "_RNvCs15kBYyAo9fc_6pptest7spin_v0",
					     "plain_c" };
	struct pp_symtab *t = pp_symtab__new();
	struct pp_buf b;
	const char *dso, *path;
	char name[256];
	size_t nsym;
	int src;

	assert_non_null(t);
	pp_buf__init(&b);
	usyms_item(&b, "/x/app", names, 3);
	assert_int_equal(pp_symtab__add_usyms(t, b.data, b.len), 0);
	assert_int_equal(pp_symtab__add_mmap(t, 7, 0x400000, 0x10000, 0, NULL, 0, "/x/app"), 0);
	assert_int_equal(pp_symtab__lookup(t, 7, 0x401010, 0, name, sizeof(name), &dso), 1);
	assert_string_equal(name, "pp::Spinner::spin(unsigned long)");
	assert_string_equal(dso, "app");
	/* twice: the demangled name is kept, not demangled again */
	assert_int_equal(pp_symtab__lookup(t, 7, 0x401020, 0, name, sizeof(name), &dso), 1);
	assert_string_equal(name, "pp::Spinner::spin(unsigned long)");
	assert_int_equal(pp_symtab__lookup(t, 7, 0x401110, 0, name, sizeof(name), &dso), 1);
	assert_string_equal(name, "pptest::spin_v0");
	assert_int_equal(pp_symtab__lookup(t, 7, 0x401210, 0, name, sizeof(name), &dso), 1);
	assert_string_equal(name, "plain_c");
	/* the source the recorder named the DSO from */
	assert_int_equal(pp_symtab__dso(t, 0, &path, &src, &nsym), 0);
	assert_string_equal(path, "/x/app");
	assert_int_equal(src, PP_USYMS_SRC_SYMTAB);
	assert_int_equal(nsym, 3);
	assert_int_equal(pp_symtab__dso(t, 1, &path, &src, &nsym), -ENOENT);
	pp_symtab__free(t);

	/* --no-demangle: the names as the file has them */
	t = pp_symtab__new();
	assert_non_null(t);
	pp_symtab__set_demangle(t, 0);
	assert_int_equal(pp_symtab__add_usyms(t, b.data, b.len), 0);
	assert_int_equal(pp_symtab__add_mmap(t, 7, 0x400000, 0x10000, 0, NULL, 0, "/x/app"), 0);
	assert_int_equal(pp_symtab__lookup(t, 7, 0x401010, 0, name, sizeof(name), &dso), 1);
	assert_string_equal(name, "_ZN2pp7Spinner4spinEm");
	pp_buf__exit(&b);
	pp_symtab__free(t);
}

/* The plain model: maps in insertion order, a new one drops those it overlaps. */
struct model_map {
	uint64_t start, end;
	int id;
};

static void model_insert(struct model_map *m, size_t *n, uint64_t start, uint64_t end, int id)
{
	size_t k = 0;

	for (size_t i = 0; i < *n; i++)
		if (!(m[i].start < end && start < m[i].end))
			m[k++] = m[i];
	m[k++] = (struct model_map){ start, end, id };
	*n = k;
}

static const char *model_find(const struct model_map *m, size_t n, uint64_t addr)
{
	static char name[32];

	for (size_t i = 0; i < n; i++) {
		if (addr >= m[i].start && addr < m[i].end) {
			snprintf(name, sizeof(name), "d%d.so", m[i].id);
			return name;
		}
	}
	return "[unknown]";
}

/*
 * Random maps over a small range (so they overlap a lot), inserted into the
 * treap and the model; every address of the range gives the same DSO, and
 * the counts agree. Then a fork merges the parent's maps into a child.
 */
static void test_maps_random(void **state)
{
	enum { N = 3000, SPAN = 0x400 };
	struct model_map *m = calloc(N, sizeof(*m));
	struct pp_symtab *t = pp_symtab__new();
	uint64_t ksyms, dsos, dsos_syms, maps;
	size_t n = 0;
	const char *dso;
	char name[64], path[32];
	unsigned int seed = 12345;

	assert_non_null(m);
	assert_non_null(t);
	for (int i = 0; i < N; i++) {
		uint64_t start = 0x10000 + (rand_r(&seed) % SPAN) * 0x10;
		uint64_t len = (1 + rand_r(&seed) % 8) * 0x10;

		snprintf(path, sizeof(path), "/l/d%d.so", i);
		assert_int_equal(pp_symtab__add_mmap(t, 1, start, len, 0, NULL, 0, path), 0);
		model_insert(m, &n, start, start + len, i);
		if (i % 100 == 99) {
			for (uint64_t a = 0x10000 - 0x10; a < 0x10000 + SPAN * 0x10 + 0x100; a += 8) {
				pp_symtab__lookup(t, 1, a, 0, name, sizeof(name), &dso);
				assert_string_equal(dso, model_find(m, n, a));
			}
		}
	}
	pp_symtab__coverage(t, &ksyms, &dsos, &dsos_syms, &maps);
	assert_int_equal(maps, n);
	/* a child with a map of its own gets the parent's merged in */
	assert_int_equal(pp_symtab__add_mmap(t, 2, 0x900000, 0x1000, 0, NULL, 0, "/l/own.so"), 0);
	pp_symtab__fork(t, 1, 2);
	for (uint64_t a = 0x10000; a < 0x10000 + SPAN * 0x10; a += 8) {
		pp_symtab__lookup(t, 2, a, 0, name, sizeof(name), &dso);
		assert_string_equal(dso, model_find(m, n, a));
	}
	pp_symtab__lookup(t, 2, 0x900010, 0, name, sizeof(name), &dso);
	assert_string_equal(dso, "own.so");
	pp_symtab__free(t);
	free(m);
}

/*
 * 200k maps handed out top down, as mmap does: each goes first. All stay
 * (none overlaps) and each is found (the array kept sorted moved all of
 * them at each insertion; the treap does not: see make bench for times).
 */
static void test_maps_top_down(void **state)
{
	enum { N = 200000 };
	struct pp_symtab *t = pp_symtab__new();
	uint64_t ksyms, dsos, dsos_syms, maps;
	const char *dso;
	char name[64];

	assert_non_null(t);
	for (uint32_t i = 0; i < N; i++) {
		uint64_t start = 0x7f0000000000ull - (uint64_t)(i + 1) * 0x2000;

		assert_int_equal(pp_symtab__add_mmap(t, 1, start, 0x1000, 0, NULL, 0,
						     i % 2 ? "/l/odd.so" : "/l/even.so"), 0);
	}
	pp_symtab__coverage(t, &ksyms, &dsos, &dsos_syms, &maps);
	assert_int_equal(maps, N);
	for (uint32_t i = 0; i < N; i += 997) {
		uint64_t start = 0x7f0000000000ull - (uint64_t)(i + 1) * 0x2000;

		pp_symtab__lookup(t, 1, start + 0x10, 0, name, sizeof(name), &dso);
		assert_string_equal(dso, i % 2 ? "odd.so" : "even.so");
		pp_symtab__lookup(t, 1, start + 0x1010, 0, name, sizeof(name), &dso);
		assert_string_equal(dso, "[unknown]");	/* the gap between two maps */
	}
	pp_symtab__free(t);
}

/*
 * Maps of pid 2^32 - 1 (perf's -1, the kernel's) are refused: its pid + 1
 * marked an empty slot, so a second one dropped the first one's maps
 * unfreed (found by fuzz-replay; ASan's leak check fails here without it).
 */
static void test_maps_pid_minus_one(void **state)
{
	struct pp_symtab *t = pp_symtab__new();
	uint64_t ksyms, dsos, dsos_syms, maps;
	const char *dso;
	char name[64];

	assert_non_null(t);
	assert_int_not_equal(pp_symtab__add_mmap(t, UINT32_MAX, 0x400000, 0x1000, 0, NULL, 0,
						 "/x/a"), 0);
	assert_int_not_equal(pp_symtab__add_mmap(t, UINT32_MAX, 0x500000, 0x1000, 0, NULL, 0,
						 "/x/b"), 0);
	assert_int_equal(pp_symtab__add_mmap(t, 7, 0x400000, 0x1000, 0, NULL, 0, "/x/app"), 0);
	pp_symtab__coverage(t, &ksyms, &dsos, &dsos_syms, &maps);
	assert_int_equal(maps, 1);
	pp_symtab__lookup(t, UINT32_MAX, 0x400010, 0, name, sizeof(name), &dso);
	assert_string_equal(dso, "[unknown]");
	pp_symtab__lookup(t, 7, 0x400010, 0, name, sizeof(name), &dso);
	assert_string_equal(dso, "app");
	pp_symtab__free(t);
}

static int last_junk;

static uint32_t cut(struct pp_symtab *t, uint32_t pid, const uint64_t *ch, uint32_t nr)
{
	return pp_symtab__cut_chain(t, pid, ch, nr, &last_junk);
}

/* A synthetic frame-pointer chain: cut at its first junk frame, kernel part kept. */
static void test_cut_chain(void **state)
{
	const uint64_t K = (uint64_t)PERF_CONTEXT_KERNEL, U = (uint64_t)PERF_CONTEXT_USER;
	const uint64_t a = 0x401010, b = 0x401234, c = 0x7f0000001100ull;
	struct pp_symtab *t = pp_symtab__new();

	assert_non_null(t);
	assert_int_equal(pp_symtab__add_mmap(t, 5, 0x400000, 0x10000, 0, NULL, 0, "/x/app"), 0);
	assert_int_equal(pp_symtab__add_mmap(t, 5, 0x7f0000000000ull, 0x10000, 0, NULL, 0, "/x/libc.so.6"), 0);
	{	/* all good: kept whole */
		const uint64_t ch[] = { K, 0xffffffff81000010ull, U, a, b, c };

		assert_int_equal(cut(t, 5, ch, 6), 6);
		assert_int_equal(last_junk, 0);
	}
	{	/* zeros that end the chain: cut, but no junk */
		const uint64_t ch[] = { U, a, b, 0, 0 };

		assert_int_equal(cut(t, 5, ch, 5), 3);
		assert_int_equal(last_junk, 0);
	}
	{	/* an ASCII word ("ailed to"): cut there, what follows goes too */
		const uint64_t ch[] = { K, 0xffffffff81000010ull, U, a, b, 0x6f742064656c6961ull, c };

		assert_int_equal(cut(t, 5, ch, 7), 5);
		assert_int_equal(last_junk, 1);
	}
	{	/* zero, a small integer, an unmapped word */
		const uint64_t z[] = { U, a, 0, c }, s[] = { U, a, b, 0x2a, c }, w[] = { U, a, 0xffffffff, c };

		assert_int_equal(cut(t, 5, z, 4), 2);
		assert_int_equal(last_junk, 1);
		assert_int_equal(cut(t, 5, s, 5), 3);
		assert_int_equal(cut(t, 5, w, 4), 2);
	}
	{	/* the first user frame (the sample's ip) may be the bad one */
		const uint64_t ch[] = { U, 0x10, a };

		assert_int_equal(cut(t, 5, ch, 3), 1);
	}
	{	/* a loop to the depth limit keeps one frame; recursion that ends does not cut */
		const uint64_t loop[] = { U, a, b, b, b, b, b, b }, rec[] = { U, a, b, b, b, b, c };

		assert_int_equal(cut(t, 5, loop, 8), 3);
		assert_int_equal(cut(t, 5, rec, 7), 7);
	}
	{	/* kernel frames are the kernel's unwinder's: kept */
		const uint64_t ch[] = { K, 0xffffffff81000010ull, 0x1234, U, a };

		assert_int_equal(cut(t, 5, ch, 5), 5);
	}
	{	/* maps unknown: only what no map can hold is cut */
		const uint64_t ch[] = { U, a, 0xffffffff, 0x6f742064656c6961ull, a };

		assert_int_equal(cut(t, 99, ch, 5), 3);
	}
	pp_symtab__free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_demangle),
		cmocka_unit_test(test_symtab_demangle),
		cmocka_unit_test(test_maps_random),
		cmocka_unit_test(test_maps_top_down),
		cmocka_unit_test(test_maps_pid_minus_one),
		cmocka_unit_test(test_cut_chain),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
