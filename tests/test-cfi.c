// SPDX-License-Identifier: MIT
/*
 * Compact unwind tables (record/cfi.c): the rows of real DSOs (this test
 * and the C library), the steps of the walker on made-up frames (x86-64's
 * PLT rule, aarch64's link register), and a whole walk of this process's
 * own stack from a qsort() comparator: through the C library, built
 * without frame pointers, and functions of ours built without them too,
 * one of which keeps a variable-length array (its CFA is on the frame
 * pointer), up to _start, whose return address is undefined.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "pp/elf.h"
#include "../record/record.h"

int main(void);

/* ---- this process's executable maps ---- */

struct xmap {
	uint64_t start, end, pgoff;
	char path[256];
	struct pp_cfi_table t;
	int built;		/* 1 built, -1 failed */
};

static struct xmap maps[64];
static int nr_maps;
static uint64_t stack_lo, stack_hi;

static void read_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off;
		char perm[8], path[256] = "";

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %255s", &s, &e, perm, &off, path) < 4)
			continue;
		if (!strcmp(path, "[stack]")) {
			stack_lo = s;
			stack_hi = e;
		}
		if (perm[2] != 'x' || path[0] != '/' || nr_maps == 64)
			continue;
		maps[nr_maps].start = s;
		maps[nr_maps].end = e;
		maps[nr_maps].pgoff = off;
		snprintf(maps[nr_maps].path, sizeof(maps[nr_maps].path), "%s", path);
		nr_maps++;
	}
	fclose(f);
}

static struct xmap *map_of(uint64_t pc)
{
	for (int i = 0; i < nr_maps; i++) {
		if (pc >= maps[i].start && pc < maps[i].end) {
			if (!maps[i].built)
				maps[i].built = pp_cfi__build(maps[i].path, &maps[i].t) ? -1 : 1;
			return maps[i].built > 0 ? &maps[i] : NULL;
		}
	}
	return NULL;
}

static void free_maps(void)
{
	for (int i = 0; i < nr_maps; i++)
		pp_cfi__free(&maps[i].t);
	nr_maps = 0;
}

/* ---- tables of real DSOs ---- */

static void check_table(const char *path)
{
	struct pp_cfi_table t;
	size_t unsup = 0, none = 0;

	assert_int_equal(pp_cfi__build(path, &t), 0);
	assert_true(t.fdes > 0);
	assert_true(t.nr > t.fdes / 2);
	for (size_t i = 0; i < t.nr; i++) {
		if (i)
			assert_true(t.rows[i].off > t.rows[i - 1].off);
		unsup += t.rows[i].cfa == PP_CFI_UNSUPPORTED;
		none += t.rows[i].cfa == PP_CFI_NONE;
	}
	/* a handful of hand-written routines may use rules no walker follows */
	assert_true(unsup * 100 <= t.nr);
	assert_true(none > 0);	/* the end of the last FDE at least */
	assert_int_equal(t.rows[t.nr - 1].cfa, PP_CFI_NONE);
	assert_null(pp_cfi__find(&t, t.rows[0].off - 1));
	assert_ptr_equal(pp_cfi__find(&t, t.rows[0].off), &t.rows[0]);
	assert_ptr_equal(pp_cfi__find(&t, t.rows[t.nr - 1].off + 100), &t.rows[t.nr - 1]);
	print_message("%s: %zu FDEs, %zu rows (%zu bytes), %llu bytes of code, %zu unsupported\n",
		      path, t.fdes, t.nr, t.nr * sizeof(struct pp_cfi_row),
		      (unsigned long long)t.covered, unsup);
	pp_cfi__free(&t);
}

static void test_tables(void **state)
{
	(void)state;
	read_maps();
	for (int i = 0; i < nr_maps; i++) {
		if (strstr(maps[i].path, "/libc.so") || strstr(maps[i].path, "test-cfi"))
			check_table(maps[i].path);
	}
	free_maps();
	assert_int_equal(pp_cfi__build("/nonexistent", &(struct pp_cfi_table){ 0 }), -ENOENT);
}

/* ---- steps on made-up frames ---- */

static uint64_t fake_stack[16];
#define FAKE_SP 0x7ffc0000u

static int fake_read(void *ctx, uint64_t addr, uint64_t *v)
{
	(void)ctx;
	if (addr < FAKE_SP || addr >= FAKE_SP + sizeof(fake_stack) || (addr & 7))
		return -1;
	*v = fake_stack[(addr - FAKE_SP) / 8];
	return 0;
}

static void test_steps(void **state)
{
	struct pp_cfi_row sp16 = { .cfa = PP_CFI_CFA_SP, .cfa_off = 16, .fp = PP_CFI_AT,
				   .fp_off = -16, .ra = PP_CFI_AT, .ra_off = -8 };
	struct pp_cfi_row plt = { .cfa = PP_CFI_CFA_PLT, .arg = 11, .ra = PP_CFI_AT, .ra_off = -8 };
	struct pp_cfi_row leaf = { .cfa = PP_CFI_CFA_SP, .cfa_off = 0, .ra = PP_CFI_SAME };
	struct pp_cfi_row end = { .cfa = PP_CFI_END };
	struct pp_cfi_regs r;

	(void)state;
	memset(fake_stack, 0, sizeof(fake_stack));
	fake_stack[0] = 0x1111;		/* saved rbp at SP */
	fake_stack[1] = 0x401234;	/* return address */
	r = (struct pp_cfi_regs){ .pc = 0x400100, .sp = FAKE_SP, .fp = 0x99 };
	assert_int_equal(pp_cfi__step(&sp16, 1, &r, fake_read, NULL), 0);
	assert_int_equal(r.pc, 0x401234);
	assert_int_equal(r.sp, FAKE_SP + 16);
	assert_int_equal(r.fp, 0x1111);

	/* PLT: before the push (pc & 15 < 11) the RA is at SP, after it at SP + 8 */
	fake_stack[0] = 0x402000;
	fake_stack[1] = 0x403000;
	r = (struct pp_cfi_regs){ .pc = 0x400a06, .sp = FAKE_SP, .fp = 7 };
	assert_int_equal(pp_cfi__step(&plt, 1, &r, fake_read, NULL), 0);
	assert_int_equal(r.pc, 0x402000);
	assert_int_equal(r.fp, 7);	/* unchanged */
	r = (struct pp_cfi_regs){ .pc = 0x400a0b, .sp = FAKE_SP, .fp = 7 };
	assert_int_equal(pp_cfi__step(&plt, 1, &r, fake_read, NULL), 0);
	assert_int_equal(r.pc, 0x403000);
	assert_int_equal(r.sp, FAKE_SP + 16);

	/* aarch64 leaf: the return address is still in x30, signed bits dropped */
	r = (struct pp_cfi_regs){ .pc = 0x400100, .sp = FAKE_SP, .fp = 5,
				  .lr = 0x0012000000405678ull };
	assert_int_equal(pp_cfi__step(&leaf, 0, &r, fake_read, NULL), 0);
	assert_int_equal(r.pc, 0x405678);
	assert_int_equal(r.lr, 0);
	/* ... and once the link register is unknown, a leaf rule cannot go on */
	assert_int_equal(pp_cfi__step(&leaf, 0, &r, fake_read, NULL), -1);
	/* x86-64 never keeps the return address in a register */
	r.lr = 0x405678;
	assert_int_equal(pp_cfi__step(&leaf, 1, &r, fake_read, NULL), -1);

	assert_int_equal(pp_cfi__step(&end, 1, &r, fake_read, NULL), 1);
	assert_int_equal(pp_cfi__step(NULL, 1, &r, fake_read, NULL), -1);
	/* a stack that is not readable there */
	r = (struct pp_cfi_regs){ .pc = 0x400100, .sp = FAKE_SP + 4096 };
	assert_int_equal(pp_cfi__step(&sp16, 1, &r, fake_read, NULL), -1);
}

/* ---- a whole walk of this stack ---- */

#define MAX_FRAMES 64
static uint64_t walked[MAX_FRAMES];
static int nr_walked, walk_end;
static int walk_unsupported;

static int self_read(void *ctx, uint64_t addr, uint64_t *v)
{
	(void)ctx;
	if (addr < stack_lo || addr + 8 > stack_hi || (addr & 7))
		return -1;
	memcpy(v, (const void *)(uintptr_t)addr, 8);
	return 0;
}

#define NO_FP __attribute__((noipa, optimize("omit-frame-pointer")))

static NO_FP void walk_here(void)
{
	struct pp_cfi_regs r = { 0 };
	int x86 = 1;

#if defined(__x86_64__)
	__asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
			 : "=r"(r.pc), "=r"(r.sp), "=r"(r.fp));
#elif defined(__aarch64__)
	x86 = 0;
	__asm__ volatile("adr %0, .\n\tmov %1, sp\n\tmov %2, x29\n\tmov %3, x30"
			 : "=r"(r.pc), "=r"(r.sp), "=r"(r.fp), "=r"(r.lr));
#else
	return;
#endif
	nr_walked = 0;
	walk_end = -1;
	for (int n = 0; n < MAX_FRAMES; n++) {
		const struct xmap *m = map_of(r.pc);
		const struct pp_cfi_row *row;

		walked[nr_walked++] = r.pc;
		if (!m)
			break;
		/* a return address is after its call: look the call up */
		row = pp_cfi__find(&m->t, r.pc - m->start + m->pgoff - (n ? 1 : 0));
		if (row && row->cfa == PP_CFI_UNSUPPORTED)
			walk_unsupported++;
		walk_end = pp_cfi__step(row, x86, &r, self_read, NULL);
		if (walk_end)
			break;
	}
}

static int cmp_calls;

static NO_FP int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	if (!cmp_calls++)
		walk_here();
	return (x > y) - (x < y);
}

static NO_FP void level3(int n)
{
	int v[8];

	for (int i = 0; i < 8; i++)
		v[i] = (n * 7 + i * 13) % 17;
	qsort(v, 8, sizeof(v[0]), cmp_int);
	__asm__ volatile("" ::: "memory");
}

static NO_FP void level2(int n)
{
	volatile char vla[(n & 63) + 16];	/* variable length: the CFA is on the frame pointer */

	vla[0] = (char)n;
	level3(n + vla[0]);
	__asm__ volatile("" ::: "memory");
}

static NO_FP void level1(int n)
{
	volatile char pad[200];

	for (int i = 0; i < 200; i++)
		pad[i] = (char)i;
	level2(n + pad[n % 200]);
	__asm__ volatile("" ::: "memory");
}

/* Index of the first walked frame in function @name of this test, -1 if none. */
static int frame_in(struct pp_elf *self, uint64_t bias, const char *name)
{
	struct pp_elf_sym s;

	if (pp_elf__find_func(self, name, &s))
		return -1;
	for (int i = 0; i < nr_walked; i++) {
		if (walked[i] - bias >= s.vaddr && walked[i] - bias < s.vaddr + s.size)
			return i;
	}
	return -1;
}

static void test_walk(void **state)
{
	struct pp_elf *self;
	struct pp_elf_sym ms;
	uint64_t bias;
	int at[5], libc = 0;
	static const char *const names[] = { "walk_here", "level3", "level2", "level1", "main" };

	(void)state;
#if !defined(__x86_64__) && !defined(__aarch64__)
	skip();
#endif
	read_maps();
	level1(3);
	self = pp_elf__open("/proc/self/exe");
	assert_non_null(self);
	assert_int_equal(pp_elf__find_func(self, "main", &ms), 0);
	bias = (uint64_t)(uintptr_t)&main - ms.vaddr;
	for (int i = 0; i < 5; i++) {
		at[i] = frame_in(self, bias, names[i]);
		if (at[i] < 0) {
			for (int j = 0; j < nr_walked; j++)
				print_message("frame %d: %#llx\n", j, (unsigned long long)walked[j]);
			fail_msg("no frame in %s among %d (walk ended %d)", names[i], nr_walked,
				 walk_end);
		}
		if (i)
			assert_true(at[i] > at[i - 1]);
	}
	/* between walk_here (via cmp_int) and level3: qsort, the C library's (or a sanitizer's) */
	for (int j = at[0] + 1; j < at[1]; j++) {
		const struct xmap *m = map_of(walked[j]);

		libc += m && strstr(m->path, ".so") != NULL;
	}
	assert_true(libc >= 1);
	/* past main: the C library's start, then _start, whose return address is undefined */
	assert_int_equal(walk_end, 1);
	assert_int_equal(walk_unsupported, 0);
	print_message("walked %d frames, %d in qsort, to _start\n", nr_walked, libc);
	pp_elf__close(self);
	free_maps();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tables),
		cmocka_unit_test(test_steps),
		cmocka_unit_test(test_walk),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
