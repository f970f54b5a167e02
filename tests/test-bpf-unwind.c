// SPDX-License-Identifier: MIT
/*
 * The kernel-side stack walker (bpf/unwind.bpf.h) on real samples: a child
 * built without frame pointers (tests/helpers/nofp-work) spends its time in
 * a qsort() comparator, under the C library's qsort, which has none either.
 * The walker's maps hold the child's executable mappings and the compact
 * tables of their DSOs (record/cfi.c); cpu-clock samples the whole host
 * with the sample filter program, which walks each kept sample's user
 * stack. Every sample of the child has its walk just before it in the
 * ring, and the walks are whole: from the comparator through qsort,
 * work_inner, work_outer and main to _start. Every walk passes through
 * work_outer and main; a few come from its clock reads between sorts (its
 * CPU-time clock is a system call, slower on a loaded host: 5 of 295 once),
 * so 90% at least pass through work_inner.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "pp/bpf.h"
#include "pp/elf.h"
#include "pp/perf.h"
#include "pp/sample.h"
#include "../record/record.h"
#include "../record/bpf-internal.h"
#include "../bpf/unwind.h"

#define MAXM 64

struct cmap {
	uint64_t start, end, pgoff;
	char path[PATH_MAX];
};

static struct cmap cmaps[MAXM];
static int nr_cmaps;
static char helper[PATH_MAX];

static int read_child_maps(pid_t pid)
{
	char fn[64], line[PATH_MAX + 128];
	FILE *f;

	snprintf(fn, sizeof(fn), "/proc/%d/maps", (int)pid);
	f = fopen(fn, "r");
	if (!f)
		return -1;
	nr_cmaps = 0;
	while (fgets(line, sizeof(line), f) && nr_cmaps < MAXM) {
		unsigned long long s, e, off;
		char perm[8], path[PATH_MAX] = "";

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095s", &s, &e, perm, &off, path) < 4 ||
		    perm[2] != 'x' || path[0] != '/')
			continue;
		cmaps[nr_cmaps] = (struct cmap){ s, e, off, "" };
		snprintf(cmaps[nr_cmaps].path, PATH_MAX, "%s", path);
		nr_cmaps++;
	}
	fclose(f);
	return 0;
}

/* Whether the child's executable mappings read include the C library's. */
static int maps_libc(void)
{
	for (int i = 0; i < nr_cmaps; i++)
		if (strstr(cmaps[i].path, "/libc.so"))
			return 1;
	return 0;
}

/* The runtime range of @name of the helper in the child, from its ELF symbol. */
static int sym_range(const char *name, uint64_t *lo, uint64_t *hi)
{
	struct pp_elf *e = pp_elf__open(helper);
	struct pp_elf_sym s;
	int ret = -1;

	if (!e)
		return -1;
	if (!pp_elf__find_func(e, name, &s)) {
		for (int i = 0; i < nr_cmaps; i++) {
			const struct cmap *m = &cmaps[i];

			if (strcmp(m->path, helper) || s.offset < m->pgoff ||
			    s.offset >= m->pgoff + (m->end - m->start))
				continue;
			*lo = m->start + s.offset - m->pgoff;
			*hi = *lo + (s.size ? s.size : 1);
			ret = 0;
		}
	}
	pp_elf__close(e);
	return ret;
}

static int skip_reason(void)
{
	char err[256];

	if (pp_bpf__available(err, sizeof(err))) {
		print_message("skip: %s\n", err);
		return 1;
	}
	if (!pp_bpf_kernel_at_least(5, 17)) {
		print_message("skip: the walker needs bpf_loop (Linux 5.17)\n");
		return 1;
	}
	return 0;
}

/* Tables for the child's DSOs, its mappings, in the walker's maps. */
static void load_child(const struct pp_bpf_unwind_maps *m, pid_t pid)
{
	struct pp_unwind_map um[MAXM];

	for (int i = 0; i < nr_cmaps; i++) {
		struct pp_cfi_table t;
		uint32_t id = 0;

		/* one table per file, shared by its mappings */
		for (int j = 0; j < i && !id; j++)
			if (!strcmp(cmaps[j].path, cmaps[i].path))
				id = um[j].dso;
		if (!id && !pp_cfi__build(cmaps[i].path, &t)) {
			id = (uint32_t)i + 1;
			assert_int_equal(pp_bpf_unwind__add_dso(m, id, &t), 0);
			pp_cfi__free(&t);
		}
		um[i] = (struct pp_unwind_map){ cmaps[i].start, cmaps[i].end, cmaps[i].pgoff, id, 0 };
	}
	assert_int_equal(pp_bpf_unwind__set_proc(m, (uint32_t)pid, 0, um, (unsigned int)nr_cmaps), 0);
}

static pid_t start_child(void)
{
	char exe[PATH_MAX];
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		execl(helper, helper, "qsort", "60", (char *)NULL);
		_exit(127);
	}
	/*
	 * Once it exec'd, its maps are the helper's; the dynamic loader maps
	 * the C library after that: wait for both (a cold page cache makes the
	 * second take a while).
	 */
	for (int i = 0; i < 1000; i++) {
		char fn[64];
		ssize_t n;

		snprintf(fn, sizeof(fn), "/proc/%d/exe", (int)pid);
		n = readlink(fn, exe, sizeof(exe) - 1);
		if (n > 0) {
			exe[n] = 0;
			if (!strcmp(exe, helper) && !read_child_maps(pid) && maps_libc())
				return pid;
		}
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return -1;
}

/* CPU time @pid has spent in user mode, in clock ticks; -1 when gone. */
static long child_ticks(pid_t pid)
{
	char fn[64], buf[1024], *p;
	long utime = -1;
	FILE *f;

	snprintf(fn, sizeof(fn), "/proc/%d/stat", (int)pid);
	f = fopen(fn, "r");
	if (!f)
		return -1;
	/* after "(comm)": state, then fields 4..13, utime is field 14 */
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')))
		sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %ld", &utime);
	fclose(f);
	return utime;
}

static void test_walk_child(void **state)
{
	struct perf_event_attr clk = {
		.type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(struct perf_event_attr), .freq = 1, .sample_freq = 999,
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
		.sample_id_all = 1, .disabled = 1, .use_clockid = 1, .clockid = CLOCK_MONOTONIC,
	};
	struct perf_event_attr out = {
		.type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_BPF_OUTPUT,
		.size = sizeof(struct perf_event_attr), .sample_period = 1,
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			       PERF_SAMPLE_RAW,
		.sample_id_all = 1, .disabled = 1, .use_clockid = 1, .clockid = CLOCK_MONOTONIC,
	};
	struct pp_bpf_filter_opts o;
	struct pp_bpf_unwind_maps maps;
	struct pp_perf_evlist *el;
	struct pp_bpf_filter *f;
	uint64_t in_lo, in_hi, out_lo, out_hi, main_lo, main_hi;
	uint64_t samples = 0, walks = 0, whole = 0, named = 0, sorting = 0, stats[PP_UW_STATS];
	int pending = 0, unpaired = 0;
	char err[256];
	pid_t pid;

	(void)state;
	if (skip_reason())
		skip();
	pp_bpf_filter_opts__init(&o);
	o.unwind = 1;
	f = pp_bpf_filter__new(&o, err, sizeof(err));
	if (!f)
		fail_msg("the walker does not load: %s", err);
	pid = start_child();
	assert_true(pid > 0);	/* its maps are read */
	assert_int_equal(sym_range("work_inner", &in_lo, &in_hi), 0);
	assert_int_equal(sym_range("work_outer", &out_lo, &out_hi), 0);
	assert_int_equal(sym_range("main", &main_lo, &main_hi), 0);
	pp_bpf_filter__unwind_maps(f, &maps);
	load_child(&maps, pid);

	el = pp_perf_evlist__new(NULL, 0, NULL, 0);
	assert_non_null(el);
	el->mmap_pages = 256;
	assert_int_equal(pp_perf_evlist__add(el, &clk, "cpu-clock", NULL), 0);
	assert_int_equal(pp_perf_evlist__add(el, &out, "unwind", NULL), 1);
	if (pp_perf_evlist__open(el))
		fail_msg("cannot open the events: %s", el->err);
	for (int i = 0; i < el->evsels[0].nr_ids; i++) {
		if (el->evsels[0].fds[i] >= 0 &&
		    pp_bpf_filter__attach(f, el->evsels[0].fds[i], clk.type, err, sizeof(err)))
			fail_msg("attach: %s", err);
	}
	assert_int_equal(pp_bpf_unwind__set_outputs(&maps, el->cpus, el->evsels[1].fds, el->nr_cpus), 0);
	pp_perf_evlist__enable(el);
	/* about 300 samples: 0.3 s of the child's CPU time, however loaded the host (30 s at most) */
	{
		long t0 = child_ticks(pid), hz = sysconf(_SC_CLK_TCK);

		for (int i = 0; i < 300; i++) {
			usleep(100000);
			if (child_ticks(pid) - t0 >= hz * 3 / 10)
				break;
		}
	}
	pp_perf_evlist__disable(el);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);

	for (int c = 0; c < el->nr_cpus; c++) {
		struct pp_perf_ring *r = &el->rings[c];
		const struct perf_event_header *h;

		if (!r->meta)
			continue;
		pp_perf_ring__read_begin(r);
		pending = 0;
		while ((h = pp_perf_ring__next(r))) {
			struct pp_sample s;
			struct pp_unwind_out w;
			int ei;

			if (h->type != PERF_RECORD_SAMPLE || h->size < 16)
				continue;
			ei = pp_perf_evlist__find_id(el, pp_sample__id(h, h->size));
			if (ei < 0 || pp_sample__parse(el->evsels[ei].attr.sample_type, h, h->size, &s))
				continue;
			if (s.pid != (uint32_t)pid)
				continue;
			if (ei == 0) {
				samples++;
				unpaired += !pending;
				pending = 0;
				continue;
			}
			/* a walk: the sample it belongs to comes next */
			unpaired += pending;
			pending = 1;
			memset(&w, 0, sizeof(w));
			memcpy(&w, s.raw, s.raw_size < sizeof(w) ? s.raw_size : sizeof(w));
			assert_int_equal(w.magic, PP_UNWIND_MAGIC);
			assert_true(w.nr >= 1 && w.nr <= PP_UNWIND_FRAMES);
			walks++;
			whole += w.end == PP_UW_END_START;
			{
				int inner = 0, outer = 0, in_main = 0;

				for (int k = 0; k < w.nr; k++) {
					uint64_t ip = w.ips[k];

					inner |= ip >= in_lo && ip < in_hi;
					outer |= ip >= out_lo && ip < out_hi;
					in_main |= ip >= main_lo && ip < main_hi;
				}
				named += outer && in_main;
				sorting += inner && outer && in_main;
			}
		}
		pp_perf_ring__read_end(r);
	}
	assert_int_equal(pp_bpf_unwind__stats(&maps, stats), 0);
	print_message("child: %llu samples, %llu walks, %llu whole, %llu through work_outer and "
		      "main, %llu of them through work_inner; frames by table %llu, by frame "
		      "pointer %llu\n", (unsigned long long)samples, (unsigned long long)walks,
		      (unsigned long long)whole, (unsigned long long)named,
		      (unsigned long long)sorting,
		      (unsigned long long)stats[PP_UW_STAT_FRAMES_CFI],
		      (unsigned long long)stats[PP_UW_STAT_FRAMES_FP]);
	assert_true(samples >= 100);
	assert_int_equal(walks, samples);	/* every kept sample has its walk */
	assert_int_equal(unpaired, 0);		/* just before it */
	assert_true(whole * 100 >= walks * 99);
	assert_true(named * 100 >= walks * 99);
	assert_true(sorting * 10 >= walks * 9);
	pp_perf_evlist__free(el);
	pp_bpf_filter__free(f);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_walk_child),
	};
	char self[PATH_MAX - 32], resolved[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	(void)argc;
	(void)argv;
	if (n <= 0)
		return 1;
	self[n] = 0;
	slash = strrchr(self, '/');
	*slash = 0;
	/* build/tests/helpers, also from a sanitized build's tests (build/asan/tests) */
	snprintf(helper, sizeof(helper), "%s/helpers/nofp-work", self);
	if (access(helper, X_OK))
		snprintf(helper, sizeof(helper), "%s/../../tests/helpers/nofp-work", self);
	if (!realpath(helper, resolved)) {
		fprintf(stderr, "tests/helpers/nofp-work is not built (make)\n");
		return 1;
	}
	memcpy(helper, resolved, sizeof(helper));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
