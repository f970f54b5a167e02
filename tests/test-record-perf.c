// SPDX-License-Identifier: MIT
/*
 * Tests of the perf_event layer (record/perf.c) on the real kernel: a dummy
 * software event with comm/task side-band on this process, a one-page ring
 * so records wrap, and CPU list parsing. Skips when perf_event_open is denied.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "pp/perf.h"
#include "pp/sample.h"

static void test_cpus_parse(void **state)
{
	int *c = NULL;

	assert_int_equal(pp_perf_cpus__parse("0-3,6", &c), 5);
	assert_int_equal(c[4], 6);
	free(c);
	assert_int_equal(pp_perf_cpus__parse("3,1,1-2", &c), 3);
	assert_int_equal(c[0], 1);
	assert_int_equal(c[2], 3);
	free(c);
	assert_int_equal(pp_perf_cpus__parse("", &c), -EINVAL);
	assert_int_equal(pp_perf_cpus__parse("2-1", &c), -EINVAL);
	assert_int_equal(pp_perf_cpus__parse("a", &c), -EINVAL);
	assert_int_equal(pp_perf_cpus__parse("1,", &c), 1);
	free(c);
	assert_true(pp_perf_cpus__online(&c) > 0);
	free(c);
}

static void test_ring_wraps(void **state)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.comm = 1,
		.task = 1,
		.sample_id_all = 1,
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
		.use_clockid = 1,
		.clockid = CLOCK_MONOTONIC,
		.disabled = 1,
		.wakeup_events = 1,
	};
	struct pp_perf_ring ring;
	uint64_t id = 0, comms = 0, total = 0, last_time = 0;
	int fd, i, err;

	fd = pp_perf_event__open(&attr, 0, -1, -1, 0);
	if (fd == -EACCES || fd == -EPERM) {
		skip();
		return;
	}
	assert_true(fd >= 0);
	assert_int_equal(pp_perf_event__id(fd, &id), 0);
	assert_int_equal(pp_perf_ring__mmap(&ring, fd, -1, 3), -EINVAL);
	err = pp_perf_ring__mmap(&ring, fd, -1, 1);
	assert_int_equal(err, 0);
	assert_int_equal(pp_perf_event__enable(fd), 0);
	/* 200 rounds of rename + fork/exit, draining as we go: wraps many times. */
	for (i = 0; i < 200; i++) {
		const struct perf_event_header *h;
		char name[16];
		pid_t pid;

		snprintf(name, sizeof(name), "pp-t%d", i);
		prctl(PR_SET_NAME, name);
		pid = fork();
		if (pid == 0)
			_exit(0);
		waitpid(pid, NULL, 0);
		pp_perf_ring__read_begin(&ring);
		while ((h = pp_perf_ring__next(&ring))) {
			struct pp_sample s;

			total++;
			assert_int_equal(pp_sample__id(h, h->size), id);
			assert_int_equal(pp_sample_id__parse(attr.sample_type, h, h->size, &s), 0);
			assert_true(s.time >= last_time);
			last_time = s.time;
			if (h->type == PERF_RECORD_COMM)
				comms++;
		}
		pp_perf_ring__read_end(&ring);
	}
	pp_perf_event__disable(fd);
	assert_true(comms >= 200);
	assert_true(total >= 200);
	assert_int_equal(ring.corrupt, 0);
	pp_perf_ring__munmap(&ring);
	close(fd);
}

static void test_evlist_find_id(void **state)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.disabled = 1,
		.sample_type = PERF_SAMPLE_IDENTIFIER,
	};
	struct pp_perf_evlist *el;
	int i, err;

	el = pp_perf_evlist__new(NULL, 0, NULL, 0);
	assert_non_null(el);
	el->mmap_pages = 2;
	assert_int_equal(pp_perf_evlist__add(el, &attr, "a", NULL), 0);
	assert_int_equal(pp_perf_evlist__add(el, &attr, "b", NULL), 1);
	err = pp_perf_evlist__open(el);
	if (err == -EACCES || err == -EPERM) {
		pp_perf_evlist__free(el);
		skip();
		return;
	}
	assert_int_equal(err, 0);
	for (i = 0; i < el->evsels[1].nr_ids; i++)
		assert_int_equal(pp_perf_evlist__find_id(el, el->evsels[1].ids[i]), 1);
	assert_int_equal(pp_perf_evlist__find_id(el, 0), -1);
	assert_int_equal(pp_perf_evlist__enable(el), 0);
	assert_int_equal(pp_perf_evlist__poll(el, 0, NULL), 0);
	pp_perf_evlist__free(el);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpus_parse),
		cmocka_unit_test(test_ring_wraps),
		cmocka_unit_test(test_evlist_find_id),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
