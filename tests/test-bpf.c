// SPDX-License-Identifier: MIT
/*
 * Tests of the BPF filters (record/bpf.c, bpf/filter.bpf.c) on real perf
 * events, with ground truth: two identical event sets run side by side, one
 * with the filter attached, and the samples are counted per process.
 *  - --exclude_pid on cpu-clock removes exactly the samples of a spinning
 *    child (none left; the other processes keep theirs);
 *  - --exclude_pid on a tracepoint: a child makes exactly N getppid() calls,
 *    the unfiltered set sees N, the filtered one 0, and ours are kept;
 *  - --nr_running_min=3 on CPU 0 keeps almost nothing while one task spins
 *    there, and almost everything while four do.
 * Skips (with the reason) where BPF or perf_event_open is not available.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "pp/bpf.h"
#include "pp/perf.h"
#include "pp/sample.h"
#include "../record/record.h"

static void test_parse_opts(void **state)
{
	struct pp_bpf_filter_opts o;
	char err[256], d[256];

	pp_bpf_filter_opts__init(&o);
	assert_false(pp_bpf_filter_opts__active(&o));
	assert_int_equal(pp_bpf_filter__describe(&o, d, sizeof(d)), 0);
	assert_int_equal(pp_bpf_filter__parse_opt(&o, "irqs_disabled", NULL, err, sizeof(err)), 0);
	assert_int_equal(o.irqs_disabled, 1);
	assert_int_equal(pp_bpf_filter__parse_opt(&o, "--tif_need_resched=0", NULL, err, sizeof(err)), 0);
	assert_int_equal(o.tif_need_resched, 0);
	assert_int_equal(pp_bpf_filter__parse_opt(&o, "nr_running_min", "2", err, sizeof(err)), 0);
	assert_int_equal(pp_bpf_filter__parse_opt(&o, "nr_running_max", "1", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "above"));
	assert_int_equal(pp_bpf_filter__parse_opt(&o, "nr_running_max", "8", err, sizeof(err)), 0);
	assert_int_equal(pp_bpf_filter__parse_opt(&o, "exclude_pid", "0", err, sizeof(err)), -EINVAL);
	assert_int_equal(pp_bpf_filter__parse_opt(&o, "exclude_pid", "x", err, sizeof(err)), -EINVAL);
	assert_int_equal(pp_bpf_filter__parse_opt(&o, "exclude_pid", "42", err, sizeof(err)), 0);
	assert_int_equal(pp_bpf_filter__parse_opt(&o, "sched_policy", "fifo", err, sizeof(err)), 0);
	assert_int_equal(o.sched_policy, 1);
	assert_int_equal(pp_bpf_filter__parse_opt(&o, "sched_policy", "SCHED_IDLE", err, sizeof(err)), 0);
	assert_int_equal(o.sched_policy, 5);
	assert_int_equal(pp_bpf_filter__parse_opt(&o, "sched_policy", "bogus", err, sizeof(err)), -EINVAL);
	assert_int_equal(pp_bpf_filter__parse_opt(&o, "prio", "120-139", err, sizeof(err)), 0);
	assert_int_equal(o.prio_min, 120);
	assert_int_equal(o.prio_max, 139);
	assert_int_equal(pp_bpf_filter__parse_opt(&o, "prio", "139-120", err, sizeof(err)), -EINVAL);
	assert_int_equal(pp_bpf_filter__parse_opt(&o, "prio", "140", err, sizeof(err)), -EINVAL);
	assert_int_equal(pp_bpf_filter__parse_opt(&o, "irqs_disabled", "2", err, sizeof(err)), -EINVAL);
	assert_int_equal(pp_bpf_filter__parse_opt(&o, "freq", "2", err, sizeof(err)), -ENOENT);
	assert_int_equal(pp_bpf_filter__parse_index(&o, PP_BPF_OPT_NR, "2", err, sizeof(err)), -ENOENT);
	assert_true(pp_bpf_filter_opts__active(&o));
	pp_bpf_filter__describe(&o, d, sizeof(d));
	assert_string_equal(d, "irqs_disabled=1,tif_need_resched=0,nr_running_min=2,"
			       "nr_running_max=8,exclude_pid=42,sched_policy=5,prio=120-139");
	/* Truncation stays NUL-terminated. */
	assert_true(pp_bpf_filter__describe(&o, d, 10) < 10);
	assert_int_equal(strlen(d), 9);
}

static int skip_reason(void)
{
	char err[256];

	if (pp_bpf__available(err, sizeof(err))) {
		print_message("skip: %s\n", err);
		return 1;
	}
	return 0;
}

/* An evlist of one event on @cpus (NULL: all), with the filter on every fd. */
static struct pp_perf_evlist *open_set(const struct perf_event_attr *attr, const int *cpus,
				       int nr_cpus, struct pp_bpf_filter *f)
{
	struct pp_perf_evlist *el = pp_perf_evlist__new(cpus, nr_cpus, NULL, 0);
	char err[256];

	if (!el)
		return NULL;
	el->mmap_pages = 256;
	if (pp_perf_evlist__add(el, attr, "ev", NULL) < 0 || pp_perf_evlist__open(el)) {
		print_message("skip: cannot open the event: %s\n", el->err);
		pp_perf_evlist__free(el);
		return NULL;
	}
	for (int i = 0; f && i < el->evsels[0].nr_ids; i++) {
		if (el->evsels[0].fds[i] < 0)
			continue;
		if (pp_bpf_filter__attach(f, el->evsels[0].fds[i], attr->type, err, sizeof(err))) {
			print_message("attach: %s\n", err);
			fail();
		}
	}
	return el;
}

/* Count the samples of @pid and of everyone else. */
static void drain(struct pp_perf_evlist *el, uint64_t sample_type, uint32_t pid,
		  uint64_t *of_pid, uint64_t *others)
{
	for (int c = 0; c < el->nr_cpus; c++) {
		struct pp_perf_ring *r = &el->rings[c];
		const struct perf_event_header *h;

		if (!r->meta)
			continue;
		pp_perf_ring__read_begin(r);
		while ((h = pp_perf_ring__next(r))) {
			struct pp_sample s;

			if (h->type != PERF_RECORD_SAMPLE ||
			    pp_sample__parse(sample_type, h, h->size, &s))
				continue;
			if (s.pid == pid)
				(*of_pid)++;
			else
				(*others)++;
		}
		pp_perf_ring__read_end(r);
	}
}

/* Burn @sec of CPU time (not wall time: a loaded host stretches it, never cuts it). */
static void spin_for(double sec)
{
	struct timespec a, b;
	volatile unsigned long x = 0;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	do {
		for (int i = 0; i < 100000; i++)
			x += (unsigned long)i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	} while ((double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9 < sec);
}

/* A child that spins @sec on @cpu (-1: any), once a byte arrives on @go (-1: at once). */
static pid_t spawn_spinner(double sec, int cpu, int go)
{
	pid_t p = fork();

	if (p == 0) {
		char c;

		if (go >= 0 && read(go, &c, 1) != 1)
			_exit(1);
		if (cpu >= 0) {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(cpu, &set);
			sched_setaffinity(0, sizeof(set), &set);
		}
		spin_for(sec);
		_exit(0);
	}
	return p;
}

static const struct perf_event_attr cpu_clock = {
	.type = PERF_TYPE_SOFTWARE,
	.config = PERF_COUNT_SW_CPU_CLOCK,
	.size = sizeof(struct perf_event_attr),
	.freq = 1,
	.sample_freq = 1000,
	.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
	.sample_id_all = 1,
	.disabled = 1,
	.use_clockid = 1,
	.clockid = CLOCK_MONOTONIC,
};

static void test_exclude_pid_cpu_clock(void **state)
{
	struct pp_bpf_filter_opts o;
	struct pp_perf_evlist *plain, *filtered;
	struct pp_bpf_filter *f;
	uint64_t p_child = 0, p_other = 0, f_child = 0, f_other = 0;
	char err[256], arg[32];
	pid_t child;
	int st, go[2];

	if (skip_reason())
		skip();
	/* the child spins once the events are on: a loaded host may take seconds to open them */
	assert_int_equal(pipe(go), 0);
	child = spawn_spinner(1.5, -1, go[0]);
	assert_true(child > 0);
	close(go[0]);
	pp_bpf_filter_opts__init(&o);
	snprintf(arg, sizeof(arg), "%d", (int)child);
	assert_int_equal(pp_bpf_filter__parse_opt(&o, "exclude_pid", arg, err, sizeof(err)), 0);
	f = pp_bpf_filter__new(&o, err, sizeof(err));
	if (!f)
		print_message("%s\n", err);
	assert_non_null(f);
	plain = open_set(&cpu_clock, NULL, 0, NULL);
	filtered = open_set(&cpu_clock, NULL, 0, f);
	if (!plain || !filtered) {
		kill(child, SIGKILL);
		waitpid(child, &st, 0);
		skip();
	}
	pp_perf_evlist__enable(plain);
	pp_perf_evlist__enable(filtered);
	assert_int_equal(write(go[1], "g", 1), 1);
	close(go[1]);
	waitpid(child, &st, 0);
	pp_perf_evlist__disable(plain);
	pp_perf_evlist__disable(filtered);
	drain(plain, cpu_clock.sample_type, (uint32_t)child, &p_child, &p_other);
	drain(filtered, cpu_clock.sample_type, (uint32_t)child, &f_child, &f_other);
	print_message("cpu-clock: child %llu -> %llu, others %llu -> %llu\n",
		      (unsigned long long)p_child, (unsigned long long)f_child,
		      (unsigned long long)p_other, (unsigned long long)f_other);
	assert_true(p_child > 200);
	assert_int_equal(f_child, 0);
	/*
	 * The others are all kept: the two runs see about as many samples of
	 * other tasks (within 10%, and 20 samples on an idle host where there
	 * are only a handful).
	 */
	assert_true(f_other * 10 + 200 >= p_other * 9 && f_other * 10 <= p_other * 11 + 200);
	{
		uint64_t kept, dropped;

		assert_int_equal(pp_bpf_filter__counts(f, &kept, &dropped), 0);
		assert_true(dropped >= p_child * 9 / 10);
	}
	pp_perf_evlist__free(plain);
	pp_perf_evlist__free(filtered);
	pp_bpf_filter__free(f);
}

/* A child that makes exactly 1000 getppid() calls once a byte comes down the pipe. */
static pid_t run_getppid_child(int pfd[2])
{
	pid_t child;
	char go;

	if (pipe(pfd))
		return -1;
	child = fork();
	if (child == 0) {
		close(pfd[1]);
		if (read(pfd[0], &go, 1) != 1)
			_exit(1);
		for (int i = 0; i < 1000; i++)
			syscall(SYS_getppid);
		_exit(0);
	}
	close(pfd[0]);
	return child;
}

static void test_exclude_pid_tracepoint(void **state)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(struct perf_event_attr),
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			       PERF_SAMPLE_RAW,
		.sample_id_all = 1,
		.disabled = 1,
		.use_clockid = 1,
		.clockid = CLOCK_MONOTONIC,
	};
	struct pp_bpf_filter_opts o;
	struct pp_perf_evlist *plain, *filtered;
	struct pp_bpf_filter *f;
	uint64_t p_child = 0, p_other = 0, f_child = 0, f_other = 0;
	char err[256], arg[32];
	int pfd[2], st;
	long long id;
	pid_t child;

	if (skip_reason())
		skip();
	if (!pp_tracefs_dir(NULL)) {
		print_message("skip: no tracefs\n");
		skip();
	}
	id = pp_tracefs_event_id("syscalls", "sys_enter_getppid");
	if (id < 0) {
		print_message("skip: no syscalls:sys_enter_getppid tracepoint\n");
		skip();
	}
	attr.config = (uint64_t)id;
	child = run_getppid_child(pfd);
	/*
	 * A program on a tracepoint filters every perf event of that
	 * tracepoint (one program array per tracepoint), so the two runs are
	 * one after the other: the unfiltered one first.
	 */
	plain = open_set(&attr, NULL, 0, NULL);
	assert_non_null(plain);
	pp_perf_evlist__enable(plain);
	assert_int_equal(write(pfd[1], "g", 1), 1);
	for (int i = 0; i < 10; i++)
		syscall(SYS_getppid);
	waitpid(child, &st, 0);
	pp_perf_evlist__disable(plain);
	drain(plain, attr.sample_type, (uint32_t)child, &p_child, &p_other);
	pp_perf_evlist__free(plain);

	child = run_getppid_child(pfd);
	pp_bpf_filter_opts__init(&o);
	snprintf(arg, sizeof(arg), "%d", (int)child);
	assert_int_equal(pp_bpf_filter__parse_opt(&o, "exclude_pid", arg, err, sizeof(err)), 0);
	f = pp_bpf_filter__new(&o, err, sizeof(err));
	assert_non_null(f);
	filtered = open_set(&attr, NULL, 0, f);
	assert_non_null(filtered);
	pp_perf_evlist__enable(filtered);
	assert_int_equal(write(pfd[1], "g", 1), 1);
	for (int i = 0; i < 10; i++)
		syscall(SYS_getppid);
	waitpid(child, &st, 0);
	pp_perf_evlist__disable(filtered);
	close(pfd[1]);
	drain(filtered, attr.sample_type, (uint32_t)child, &f_child, &f_other);
	print_message("getppid: child %llu -> %llu, others %llu -> %llu\n",
		      (unsigned long long)p_child, (unsigned long long)f_child,
		      (unsigned long long)p_other, (unsigned long long)f_other);
	assert_int_equal(p_child, 1000);
	assert_int_equal(f_child, 0);
	assert_true(p_other >= 10);
	assert_true(f_other >= 10);
	pp_perf_evlist__free(filtered);
	pp_bpf_filter__free(f);
}

/* Samples on CPU 0 over one phase with @nr spinners pinned there. */
static void nr_running_phase(struct pp_bpf_filter *f, int nr, uint64_t *plain_n,
			     uint64_t *kept_n)
{
	static const int cpu0[] = { 0 };
	struct pp_perf_evlist *plain, *filtered;
	uint64_t a = 0, b = 0, c = 0, d = 0;
	pid_t kids[8];
	int st;

	plain = open_set(&cpu_clock, cpu0, 1, NULL);
	filtered = open_set(&cpu_clock, cpu0, 1, f);
	assert_non_null(plain);
	assert_non_null(filtered);
	for (int i = 0; i < nr; i++)
		kids[i] = spawn_spinner(1.0, 0, -1);
	usleep(100000);		/* let them all reach CPU 0 */
	pp_perf_evlist__enable(plain);
	pp_perf_evlist__enable(filtered);
	usleep(600000);
	pp_perf_evlist__disable(plain);
	pp_perf_evlist__disable(filtered);
	for (int i = 0; i < nr; i++)
		waitpid(kids[i], &st, 0);
	drain(plain, cpu_clock.sample_type, 0, &a, &b);
	drain(filtered, cpu_clock.sample_type, 0, &c, &d);
	*plain_n = a + b;
	*kept_n = c + d;
	pp_perf_evlist__free(plain);
	pp_perf_evlist__free(filtered);
}

static void test_nr_running_min(void **state)
{
	struct pp_bpf_filter_opts o;
	struct pp_bpf_filter *f, *never;
	uint64_t p1, k1, p3, k3;
	cpu_set_t set, old;
	char err[256];
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	if (skip_reason())
		skip();
	if (ncpu < 2) {
		print_message("skip: needs 2 CPUs\n");
		skip();
	}
	/* Keep this process off CPU 0. */
	sched_getaffinity(0, sizeof(old), &old);
	CPU_ZERO(&set);
	CPU_SET(1, &set);
	sched_setaffinity(0, sizeof(set), &set);
	pp_bpf_filter_opts__init(&o);
	assert_int_equal(pp_bpf_filter__parse_opt(&o, "nr_running_min", "5", err, sizeof(err)), 0);
	f = pp_bpf_filter__new(&o, err, sizeof(err));
	assert_non_null(f);
	pp_bpf_filter_opts__init(&o);
	assert_int_equal(pp_bpf_filter__parse_opt(&o, "nr_running_min", "100000", err, sizeof(err)), 0);
	never = pp_bpf_filter__new(&o, err, sizeof(err));
	assert_non_null(never);
	/*
	 * Whatever else runs on CPU 0 of a shared host only adds to its run
	 * queue: six spinners pinned there always reach 5, and no host reaches
	 * 100000 (a threshold of 5 with one spinner would depend on the host).
	 */
	nr_running_phase(never, 1, &p1, &k1);
	nr_running_phase(f, 6, &p3, &k3);
	print_message("CPU 0: nr_running_min=100000, 1 spinner %llu -> %llu; "
		      "nr_running_min=5, 6 spinners %llu -> %llu\n",
		      (unsigned long long)p1, (unsigned long long)k1,
		      (unsigned long long)p3, (unsigned long long)k3);
	sched_setaffinity(0, sizeof(old), &old);
	pp_bpf_filter__free(f);			/* before a failed assert leaves */
	pp_bpf_filter__free(never);
	assert_true(p1 > 300 && p3 > 300);
	assert_int_equal(k1, 0);		/* nothing kept below the threshold */
	assert_true(k3 * 10 >= p3 * 9);		/* over 90% kept above it */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_opts),
		cmocka_unit_test(test_exclude_pid_cpu_clock),
		cmocka_unit_test(test_exclude_pid_tracepoint),
		cmocka_unit_test(test_nr_running_min),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
