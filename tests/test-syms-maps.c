// SPDX-License-Identifier: MIT
/*
 * The symbol collector's process maps (record/symbols.c): learnt from MMAP2,
 * inherited at FORK, dropped at exec, and used to resolve user addresses.
 * Thousands of processes, so the per-process table grows; the maps are
 * this test binary's own text segment, so a hit names a real function.
 * The side-band is scanned per CPU stream, so records come out of time
 * order: a child's FORK before its parent's MMAP2, an exec after the maps
 * of the new image.
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <cmocka.h>

#include "pp/meta.h"
#include "../record/record.h"

#define NR_PROCS	3000
#define FIRST_PID	10000

__attribute__((noinline)) int syms_target_fn(int x);
__attribute__((noinline)) int syms_target_fn(int x)
{
	return x * 3 + 1;
}

static struct {
	uint64_t start, len, pgoff;
	char path[PATH_MAX];
} text;

/* This binary's executable mapping, from /proc/self/maps. */
static int find_text(void)
{
	char exe[PATH_MAX], line[PATH_MAX + 128];
	uint64_t fn = (uint64_t)(uintptr_t)&syms_target_fn;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *f;

	if (n <= 0)
		return -1;
	exe[n] = 0;
	f = fopen("/proc/self/maps", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off;
		char perms[8];
		int at = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &s, &e, perms, &off, &at) < 4 ||
		    !at)
			continue;
		line[strcspn(line, "\n")] = 0;
		if (perms[2] == 'x' && !strcmp(line + at, exe) && fn >= s && fn < e) {
			text.start = s;
			text.len = e - s;
			text.pgoff = off;
			snprintf(text.path, sizeof(text.path), "%s", exe);
			fclose(f);
			return 0;
		}
	}
	fclose(f);
	return -1;
}

/* Every event: sample_type IDENTIFIER|IP|TID|TIME, with sample_id_all. */
#define ST	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME)

/* A record with the sample_id trailer (pid/tid, @ns, id) after @body. */
static void put(struct pp_buf *b, uint32_t type, uint16_t misc, const void *body, size_t len,
		uint32_t pid, uint64_t ns)
{
	struct perf_event_header h = { .type = type, .misc = misc,
				       .size = (uint16_t)(sizeof(h) + len + 24) };
	uint64_t id = 1;

	pp_buf__append(b, &h, sizeof(h));
	pp_buf__append(b, body, len);
	pp_buf__append(b, &pid, 4);
	pp_buf__append(b, &pid, 4);
	pp_buf__append(b, &ns, 8);
	pp_buf__append(b, &id, 8);
}

static void put_mmap2_at(struct pp_buf *b, uint32_t pid, const char *path, uint64_t ns)
{
	uint8_t body[64 + PATH_MAX] = { 0 };
	size_t len = 64 + ((strlen(path) + 1 + 7) & ~(size_t)7);
	uint32_t prot = 5;

	memcpy(body, &pid, 4);
	memcpy(body + 4, &pid, 4);
	memcpy(body + 8, &text.start, 8);
	memcpy(body + 16, &text.len, 8);
	memcpy(body + 24, &text.pgoff, 8);
	memcpy(body + 56, &prot, 4);
	memcpy(body + 64, path, strlen(path) + 1);
	put(b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, body, len, pid, ns);
}

static void put_fork_at(struct pp_buf *b, uint32_t pid, uint32_t ppid, uint64_t ns)
{
	uint32_t body[6] = { pid, ppid, pid, ppid, (uint32_t)ns, (uint32_t)(ns >> 32) };

	put(b, PERF_RECORD_FORK, 0, body, sizeof(body), pid, ns);
}

static void put_exec_at(struct pp_buf *b, uint32_t pid, uint64_t ns)
{
	uint8_t body[24] = { 0 };

	memcpy(body, &pid, 4);
	memcpy(body + 4, &pid, 4);
	memcpy(body + 8, "x", 2);
	put(b, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, body, sizeof(body), pid, ns);
}

/* Records of the first part of the test happen in order, 1 us apart. */
static uint64_t clock_ns = 1000000;

static void put_mmap2(struct pp_buf *b, uint32_t pid, const char *path)
{
	put_mmap2_at(b, pid, path, clock_ns += 1000);
}

static void put_fork(struct pp_buf *b, uint32_t pid, uint32_t ppid)
{
	put_fork_at(b, pid, ppid, clock_ns += 1000);
}

static void put_exec(struct pp_buf *b, uint32_t pid)
{
	put_exec_at(b, pid, clock_ns += 1000);
}

/* A user-mode sample of @pid at @ip. */
static void put_sample(struct pp_buf *b, uint32_t pid, uint64_t ip)
{
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .misc = PERF_RECORD_MISC_USER,
				       .size = sizeof(h) + 32 };
	uint64_t id = 1, ns = clock_ns += 1000;

	pp_buf__append(b, &h, sizeof(h));
	pp_buf__append(b, &id, 8);
	pp_buf__append(b, &ip, 8);
	pp_buf__append(b, &pid, 4);
	pp_buf__append(b, &pid, 4);
	pp_buf__append(b, &ns, 8);
}

static uint64_t sample_type_of(uint64_t id, void *ctx)
{
	return ST;
}

static void scan(struct pp_syms *s, struct pp_buf *b)
{
	pp_syms__scan(s, b->data, b->len, sample_type_of, NULL);
	pp_buf__reset(b);
}

/* Whether the USYMS items due now name syms_target_fn. */
static int names_target(struct pp_syms *s)
{
	struct pp_buf k, u, m;
	int found;

	pp_buf__init(&k);
	pp_buf__init(&u);
	pp_buf__init(&m);
	pp_syms__pending(s, &k, &u, &m);
	found = u.len && memmem(u.data, u.len, "syms_target_fn", 15) != NULL;
	pp_buf__exit(&k);
	pp_buf__exit(&u);
	pp_buf__exit(&m);
	return found;
}

/* Each test: a fresh collector and a buffer of records to scan. */
struct fixture {
	struct pp_syms *s;
	struct pp_buf b;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f || !(f->s = pp_syms__new(0)))
		return -1;
	pp_buf__init(&f->b);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	pp_buf__exit(&f->b);
	pp_syms__free(f->s);
	free(f);
	return 0;
}

static void test_maps_follow_processes(void **state)
{
	struct fixture *f = *state;
	struct pp_syms *s = f->s;
	struct pp_buf *b = &f->b;
	uint64_t fn = (uint64_t)(uintptr_t)&syms_target_fn;

	if (!text.len)
		skip();
	assert_int_equal(syms_target_fn(1), 4);
	for (uint32_t i = 0; i < NR_PROCS; i++)
		put_mmap2(b, FIRST_PID + i, text.path);
	scan(s, b);
	for (uint32_t i = 0; i < NR_PROCS; i++)
		assert_true(pp_syms__has_maps(s, FIRST_PID + i));
	assert_false(pp_syms__has_maps(s, FIRST_PID - 1));
	assert_false(pp_syms__has_maps(s, FIRST_PID + NR_PROCS));

	/* a child inherits its parent's maps; a child of an unknown parent has none */
	put_fork(b, 90000, FIRST_PID);
	put_fork(b, 90001, 7);
	scan(s, b);
	assert_true(pp_syms__has_maps(s, 90000));
	assert_false(pp_syms__has_maps(s, 90001));

	/* exec drops the maps of that process only */
	put_exec(b, FIRST_PID);
	scan(s, b);
	assert_false(pp_syms__has_maps(s, FIRST_PID));
	assert_true(pp_syms__has_maps(s, 90000));
	assert_true(pp_syms__has_maps(s, FIRST_PID + 1));

	/* a newer map at the same place shadows the older one */
	put_mmap2(b, FIRST_PID + 1, "/nonexistent/pp-test-shadow");
	put_sample(b, FIRST_PID + 1, fn);
	put_sample(b, FIRST_PID, fn);		/* exec'd: no maps any more */
	scan(s, b);
	assert_false(names_target(s));

	/* the inherited map resolves the function */
	put_sample(b, 90000, fn);
	scan(s, b);
	assert_true(names_target(s));
}

/*
 * Two CPU streams scanned one after the other: CPU 0 holds the FORKs of a
 * parent's children, CPU 1 (scanned later) the parent's exec and the
 * MMAP2 of its new image, all before the forks in time.
 */
static void test_streams_out_of_order(void **state)
{
	struct fixture *f = *state;
	struct pp_syms *s = f->s;
	struct pp_buf *b = &f->b;
	uint64_t fn = (uint64_t)(uintptr_t)&syms_target_fn;

	if (!text.len)
		skip();
	/* CPU 0: the children, forked at 300..310 */
	for (uint32_t i = 0; i < 10; i++)
		put_fork_at(b, 600 + i, 500, 300 + i);
	/* and a child that exec'd at 400 into an image not yet described */
	put_exec_at(b, 605, 400);
	scan(s, b);
	assert_false(pp_syms__has_maps(s, 600));
	/* CPU 1: the parent's exec at 100, its new text at 200 */
	put_exec_at(b, 500, 100);
	put_mmap2_at(b, 500, text.path, 200);
	scan(s, b);
	assert_true(pp_syms__has_maps(s, 500));
	assert_true(pp_syms__has_maps(s, 600));
	assert_true(pp_syms__has_maps(s, 609));
	assert_false(pp_syms__has_maps(s, 605));	/* exec'd: not its parent's image */

	/* an exec scanned after the new image's map keeps that map */
	put_mmap2_at(b, 700, text.path, 250);
	put_exec_at(b, 700, 240);
	/* and a map of the old image, scanned after the exec, is dropped */
	put_mmap2_at(b, 701, text.path, 230);
	put_exec_at(b, 702, 240);
	scan(s, b);
	put_exec_at(b, 701, 240);
	put_mmap2_at(b, 702, text.path, 230);
	scan(s, b);
	assert_true(pp_syms__has_maps(s, 700));
	assert_false(pp_syms__has_maps(s, 701));
	assert_false(pp_syms__has_maps(s, 702));

	/* a pid used again: the new process forked from one without maps has none */
	put_fork_at(b, 700, 900, 260);
	scan(s, b);
	assert_false(pp_syms__has_maps(s, 700));

	/* the function of a child resolves through its parent */
	put_sample(b, 607, fn);
	scan(s, b);
	assert_true(names_target(s));
}

/*
 * A sample scanned before the records that tell its map (CPU 1's chunk
 * with the sample first, CPU 0's with the FORK and the parent's map
 * after): its address waits, and is named once they are scanned.
 */
static void test_sample_before_its_fork(void **state)
{
	struct fixture *f = *state;
	struct pp_syms *s = f->s;
	struct pp_buf *b = &f->b;
	uint64_t fn = (uint64_t)(uintptr_t)&syms_target_fn;

	if (!text.len)
		skip();
	put_sample(b, 651, fn);
	scan(s, b);
	assert_false(names_target(s));
	put_mmap2_at(b, 650, text.path, 200);
	put_fork_at(b, 651, 650, 300);
	scan(s, b);
	assert_true(names_target(s));
}

/*
 * A process that exec'd on one CPU and ran on another: its samples' chunk
 * is scanned before the one with its MMAP2. Thousands of samples at one
 * address wait as that one address, so the target's address, sampled
 * after them, still waits too and is named once the map is scanned (each
 * sample used to wait on its own; 4096 filled the list).
 */
static void test_repeats_wait_once(void **state)
{
	struct fixture *f = *state;
	struct pp_syms *s = f->s;
	struct pp_buf *b = &f->b;
	uint64_t fn = (uint64_t)(uintptr_t)&syms_target_fn;
	uint64_t other = (uint64_t)(uintptr_t)&find_text;

	if (!text.len)
		skip();
	for (int i = 0; i < 5000; i++)
		put_sample(b, 661, other);
	put_sample(b, 661, fn);
	scan(s, b);
	assert_false(names_target(s));
	put_mmap2_at(b, 661, text.path, 200);
	scan(s, b);
	assert_true(names_target(s));
}

/*
 * An address hit once is not sought again (a stack's frames repeat), until
 * the maps change: hit in a map of a file without symbols, then in the
 * test's text mapped over it, it names the function.
 */
static void test_hit_again_after_new_map(void **state)
{
	struct fixture *f = *state;
	struct pp_syms *s = f->s;
	struct pp_buf *b = &f->b;
	uint64_t fn = (uint64_t)(uintptr_t)&syms_target_fn;

	if (!text.len)
		skip();
	put_mmap2(b, 670, "/nonexistent/pp-test-shadow");
	for (int i = 0; i < 3; i++)
		put_sample(b, 670, fn);
	scan(s, b);
	assert_false(names_target(s));
	put_mmap2(b, 670, text.path);
	put_sample(b, 670, fn);
	scan(s, b);
	assert_true(names_target(s));
}

static void put_exit_at(struct pp_buf *b, uint32_t pid, uint32_t ppid, uint64_t ns)
{
	uint32_t body[6] = { pid, ppid, pid, ppid, (uint32_t)ns, (uint32_t)(ns >> 32) };

	put(b, PERF_RECORD_EXIT, 0, body, sizeof(body), pid, ns);
}

#define SEC	1000000000ull

/*
 * An exited process's maps are released 2 s (in the records' time) after
 * its EXIT: 20,000 short processes leave none behind. A parent that exits
 * before its child keeps them while the child lives (the child's inherited
 * maps are its), and goes after it. A pid reused by a new process within
 * those 2 s keeps the new process's maps.
 */
static void test_exited_released(void **state)
{
	struct fixture *f = *state;
	struct pp_syms *s = f->s;
	struct pp_buf *b = &f->b;
	uint64_t fn = (uint64_t)(uintptr_t)&syms_target_fn, t = 1000 * SEC;

	if (!text.len)
		skip();
	put_mmap2_at(b, 700, text.path, t + 1000);
	put_fork_at(b, 701, 700, t + 2000);
	put_exit_at(b, 700, 1, t + 3000);
	put_mmap2_at(b, 710, text.path, t + 3500);
	put_exit_at(b, 710, 1, t + 3600);
	put_fork_at(b, 710, 700, t + 3700);	/* pid 710 again, within the 2 s */
	for (uint32_t i = 0; i < 20000; i++) {
		put_mmap2_at(b, 100000 + i, text.path, t + 4000 + 10 * i);
		put_exit_at(b, 100000 + i, 1, t + 4005 + 10 * i);
	}
	scan(s, b);
	assert_true(pp_syms__has_maps(s, 100000));	/* within its 2 s */
	clock_ns = t + 3 * SEC;
	put_sample(b, 701, fn);
	scan(s, b);
	for (uint32_t i = 0; i < 20000; i++)
		assert_false(pp_syms__has_maps(s, 100000 + i));
	/* the child of the exited parent: its inherited map still names the function */
	assert_true(pp_syms__has_maps(s, 701));
	assert_true(names_target(s));
	assert_true(pp_syms__has_maps(s, 710));	/* the new 710, forked from 700 */
	/* the children exit: 2 s on, they go, then their parent */
	put_exit_at(b, 701, 700, t + 3 * SEC + 1000);
	put_exit_at(b, 710, 700, t + 3 * SEC + 2000);
	for (int k = 6; k <= 9; k++) {
		clock_ns = t + (uint64_t)k * SEC;
		put_sample(b, 999, fn);
		scan(s, b);
	}
	assert_false(pp_syms__has_maps(s, 701));
	assert_false(pp_syms__has_maps(s, 710));
	assert_false(pp_syms__has_maps(s, 700));
}

/*
 * pp_syms__learn() reads /proc once per process: this one gets its maps;
 * kthreadd (pid 2) has none, and is not read a second time.
 */
static void test_learn_once(void **state)
{
	struct fixture *f = *state;
	struct pp_buf t, m;

	pp_buf__init(&t);
	pp_buf__init(&m);
	pp_syms__learn(f->s, (uint32_t)getpid(), &t, &m);
	assert_true(pp_syms__has_maps(f->s, (uint32_t)getpid()));
	assert_true(t.len > 0 && m.len > 0);
	pp_buf__reset(&t);
	pp_buf__reset(&m);
	pp_syms__learn(f->s, (uint32_t)getpid(), &t, &m);
	assert_int_equal(t.len + m.len, 0);
	if (access("/proc/2/stat", R_OK))
		goto out;	/* no kthreadd in this pid namespace */
	pp_syms__learn(f->s, 2, &t, &m);
	assert_false(pp_syms__has_maps(f->s, 2));
	assert_true(t.len > 0);
	pp_buf__reset(&t);
	pp_syms__learn(f->s, 2, &t, &m);
	assert_int_equal(t.len + m.len, 0);
out:
	pp_buf__exit(&t);
	pp_buf__exit(&m);
}

/*
 * Functions of a library with thousands of symbols in no order (libc's
 * .dynsym): each sampled address is named by the symbol that starts where
 * its function starts, whether found by a scan of the table (the first
 * lookups) or in the sorted table.
 */
static void test_names_library_functions(void **state)
{
	/* more than LINEAR_LOOKUPS: the table is sorted with hits pending */
	static const char *const fns[] = {
		"qsort", "strtoul", "fputs", "getenv", "mkstemp", "fopen", "fclose", "fread",
		"fwrite", "printf", "snprintf", "sscanf", "atoi", "calloc", "realloc", "free",
		"malloc", "close", "lseek", "getppid", "sleep", "usleep", "abort", "rewind",
		"setvbuf", "fflush",
	};
	struct fixture *f = *state;
	struct pp_buf t, m, k, u;
	uint32_t pid = (uint32_t)getpid();

	pp_buf__init(&t);
	pp_buf__init(&m);
	pp_buf__init(&k);
	pp_buf__init(&u);
	pp_syms__learn(f->s, pid, &t, &m);
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		void *fn = dlsym(RTLD_DEFAULT, fns[i]);

		assert_non_null(fn);
		put_sample(&f->b, pid, (uint64_t)(uintptr_t)fn + 1);
	}
	scan(f->s, &f->b);
	pp_syms__pending(f->s, &k, &u, &m);
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		void *fn = dlsym(RTLD_DEFAULT, fns[i]);
		char maps[PATH_MAX + 128];
		uint64_t off = 0;
		const uint8_t *p = NULL;
		void *alias, *lib;
		Dl_info dl;
		FILE *mf = fopen("/proc/self/maps", "r");

		/* the function's file offset, from the mapping that holds it */
		assert_non_null(mf);
		while (fgets(maps, sizeof(maps), mf)) {
			unsigned long long s, e, pg;

			if (sscanf(maps, "%llx-%llx %*s %llx", &s, &e, &pg) == 3 &&
			    (uintptr_t)fn >= s && (uintptr_t)fn < e)
				off = (uint64_t)(uintptr_t)fn - s + pg;
		}
		fclose(mf);
		assert_true(off != 0);
		/*
		 * A USYMS entry (start, size, name) at that offset: an alias of
		 * it (the one perf names: strtoumax for strtoul), which dlsym()
		 * finds unless only an old version has it (cfree@GLIBC_2.2.5
		 * for free).
		 */
		for (size_t at = 0; at + 12 < u.len; at++)
			if (!memcmp(u.data + at, &off, 8)) {
				p = u.data + at;
				break;
			}
		assert_non_null(p);
		assert_true(p[12] != 0);
		/*
		 * Looked up in the function's own library: an interposer
		 * (ASan's strtoumax) is not the alias the file names.
		 */
		assert_true(dladdr(fn, &dl) != 0);
		lib = dlopen(dl.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
		assert_non_null(lib);
		alias = dlsym(lib, (const char *)p + 12);
		dlclose(lib);
		if (alias && alias != fn)
			print_message("%s is named %s, which is elsewhere\n", fns[i], (const char *)p + 12);
		assert_true(alias == fn || !alias);
	}
	pp_buf__exit(&t);
	pp_buf__exit(&m);
	pp_buf__exit(&k);
	pp_buf__exit(&u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_maps_follow_processes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_streams_out_of_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sample_before_its_fork, setup, teardown),
		cmocka_unit_test_setup_teardown(test_repeats_wait_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hit_again_after_new_map, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exited_released, setup, teardown),
		cmocka_unit_test_setup_teardown(test_learn_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_names_library_functions, setup, teardown),
	};

	find_text();	/* the tests skip if this binary's text is not found */

	return cmocka_run_group_tests(tests, NULL, NULL);
}
