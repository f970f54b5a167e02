// SPDX-License-Identifier: MIT
/*
 * Unit tests of the one -e parser, splitter and attr builder
 * (record/evspec.c, record/evbuild.c) and of the one rule that decides
 * whether an entry names a profiler (analyzers/registry.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <time.h>
#include <cmocka.h>
#include <linux/hw_breakpoint.h>

#include "pp/analyzer.h"
#include "pp/evspec.h"

static struct pp_evspec sp;
static char err[512];

static int parse(const char *e)
{
	err[0] = '\0';
	return pp_evspec__parse(e, &sp, err, sizeof(err));
}

static void test_split(void **state)
{
	char a[] = "sched:a/prev_pid>1,x/key=pid/,uprobe:f@/bin/x//stack/,cpu-clock,,"
		   "mem:0x10/8:w//stack/,profile/-F 500/,sched:b";
	char *e[8];

	assert_int_equal(pp_evspec__split(a, e, 8), 6);
	assert_string_equal(e[0], "sched:a/prev_pid>1,x/key=pid/");
	assert_string_equal(e[1], "uprobe:f@/bin/x//stack/");
	assert_string_equal(e[2], "cpu-clock");
	assert_string_equal(e[3], "mem:0x10/8:w//stack/");
	assert_string_equal(e[4], "profile/-F 500/");
	assert_string_equal(e[5], "sched:b");
	{
		char b[] = "a:b,c:d,e:f";

		assert_int_equal(pp_evspec__split(b, e, 2), -E2BIG);
	}
	{
		char c[] = "uprobe:f@/usr/lib/x.so,sched:b";	/* a path's slashes are no blocks */

		assert_int_equal(pp_evspec__split(c, e, 8), 2);
		assert_string_equal(e[0], "uprobe:f@/usr/lib/x.so");
	}
}

static void test_parse_tracepoint(void **state)
{
	assert_int_equal(parse("sched:sched_*/prev_pid>0/key=prev_pid/top-by=a/top-by=b/"
			       "top-add=c/comm=prev_comm/num=x/alias=sw/untraced/trigger/"
			       "max-stack=7/"), 0);
	assert_int_equal(sp.kind, PP_EV_TRACEPOINT);
	assert_string_equal(sp.pattern, "sched:sched_*");
	assert_string_equal(sp.sys, "sched");
	assert_string_equal(sp.event, "sched_*");
	assert_string_equal(sp.filter, "prev_pid>0");
	assert_string_equal(sp.key, "prev_pid");
	assert_int_equal(sp.nr_top_by, 2);
	assert_string_equal(sp.top_by[1], "b");
	assert_string_equal(sp.top_add[0], "c");
	assert_string_equal(sp.comm, "prev_comm");
	assert_string_equal(sp.alias, "sw");
	assert_int_equal(sp.untraced, 1);
	assert_int_equal(sp.trigger, 1);
	assert_int_equal(sp.max_stack, 7);
	assert_int_equal(sp.stack, 1);
	assert_int_equal(parse("sched:sched_switch//untraced/"), 0);
	assert_int_equal(sp.untraced, 1);
	assert_string_equal(sp.filter, "");
	assert_int_equal(parse("sched:sched_switch help"), 0);
	assert_int_equal(sp.help, 1);
	assert_string_equal(sp.pattern, "sched:sched_switch");
}

static void test_parse_others(void **state)
{
	assert_int_equal(parse("uprobe:do_x@/bin/true//stack/"), 0);
	assert_int_equal(sp.kind, PP_EV_UPROBE);
	assert_string_equal(sp.func, "do_x");
	assert_string_equal(sp.path, "/bin/true");
	assert_string_equal(sp.pattern, "uprobe:do_x@/bin/true");
	assert_int_equal(sp.stack, 1);
	assert_int_equal(sp.retprobe, 0);
	assert_int_equal(parse("uretprobe:0x1234@/bin/true"), 0);
	assert_int_equal(sp.retprobe, 1);
	assert_int_equal(parse("kprobe:do_sys_open"), 0);
	assert_int_equal(sp.kind, PP_EV_KPROBE);
	/* breakpoints are named as recorded, whatever the spelling */
	assert_int_equal(parse("mem:4096/8:w//stack/"), 0);
	assert_int_equal(sp.kind, PP_EV_BREAKPOINT);
	assert_string_equal(sp.pattern, "mem:0x1000/8:w");
	assert_int_equal(sp.bp_type, HW_BREAKPOINT_W);
	assert_int_equal(sp.stack, 1);
	assert_int_equal(parse("mem:0x1000"), 0);
	assert_string_equal(sp.pattern, "mem:0x1000/4:rw");
	assert_int_equal(parse("mem:0x1000:x"), 0);
	assert_int_equal(sp.bp_len, sizeof(long));
	assert_int_equal(parse("page-faults"), 0);
	assert_int_equal(sp.kind, PP_EV_SOFTWARE);
	assert_int_equal(sp.config, PERF_COUNT_SW_PAGE_FAULTS);
	assert_int_equal(parse("cycles"), 0);
	assert_int_equal(sp.kind, PP_EV_HARDWARE);
}

static void test_parse_errors(void **state)
{
	static const char *const bad[] = {
		"", "nosuch", "sched:", ":x", "a:b:c", "sched:x/flt", "sched:x//bogus/",
		"sched:x//max-stack=0/", "sched:x//max-stack=2000/", "uprobe:f", "uprobe:@/bin/x",
		"uprobe:f@", "kprobe:", "mem:zz", "mem:0x10/3", "mem:0x10:rx", "mem:0x10:q",
		"cpu-clock/a==1/",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_true(parse(bad[i]) < 0);
		assert_true(err[0] != '\0');
	}
	{
		char big[3000];

		memset(big, 'a', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		memcpy(big, "sched:x/", 8);
		assert_int_equal(parse(big), -EINVAL);
	}
	{
		char many[1024] = "sched:x//";

		for (int i = 0; i < 9; i++)
			strcat(many, "top-by=a/");
		assert_int_equal(parse(many), -EINVAL);
	}
}

static void test_build(void **state)
{
	struct pp_evdescs ds = { 0 };
	struct pp_evbuild_opts bo = { .callchain = 1, .freq = 0 };
	struct pp_event_req rq = { .spec = "page-faults//max-stack=3/", .exclude_kernel = 1 };

	assert_int_equal(pp_evdescs__add_req(&ds, &rq, 0, &bo, err, sizeof(err)), 0);
	assert_int_equal(ds.nr, 1);
	assert_string_equal(ds.v[0].name, "page-faults");
	assert_int_equal(ds.v[0].attr.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(ds.v[0].attr.sample_period, 1);
	assert_true(ds.v[0].attr.sample_type & PERF_SAMPLE_ADDR);
	assert_true(ds.v[0].attr.sample_type & PERF_SAMPLE_CALLCHAIN);
	assert_int_equal(ds.v[0].attr.sample_max_stack, 3);
	assert_int_equal(ds.v[0].attr.exclude_kernel, 1);
	assert_int_equal(ds.v[0].attr.disabled, 1);
	assert_int_equal(ds.v[0].attr.clockid, CLOCK_MONOTONIC);
	rq = (struct pp_event_req){ .spec = "cpu-clock", .freq = 499 };
	bo.callchain = 0;
	assert_int_equal(pp_evdescs__add_req(&ds, &rq, 1, &bo, err, sizeof(err)), 0);
	assert_int_equal(ds.v[1].attr.freq, 1);
	assert_int_equal(ds.v[1].attr.sample_freq, 499);
	assert_int_equal(ds.v[1].sampling, 1);
	assert_int_equal(ds.v[1].spec, 1);
	assert_false(ds.v[1].attr.sample_type & PERF_SAMPLE_CALLCHAIN);
	rq = (struct pp_event_req){ .spec = "mem:0x1000/8:w" };
	assert_int_equal(pp_evdescs__add_req(&ds, &rq, 2, &bo, err, sizeof(err)), 0);
	assert_string_equal(ds.v[2].name, "mem:0x1000/8:w");
	assert_int_equal(ds.v[2].attr.type, PERF_TYPE_BREAKPOINT);
	assert_int_equal(ds.v[2].attr.bp_addr, 0x1000);
	assert_int_equal(ds.v[2].attr.bp_len, 8);
	assert_non_null(pp_evdescs__add_sideband(&ds));
	assert_int_equal(ds.v[3].attr.mmap2, 1);
	rq = (struct pp_event_req){ .spec = "nosuch" };
	assert_int_equal(pp_evdescs__add_req(&ds, &rq, 4, &bo, err, sizeof(err)), -ENOENT);
	pp_evdescs__exit(&ds);
	assert_int_equal(ds.nr, 0);
}

/* The one rule: which -e entries name a profiler, for which host. */
static void test_source_rule(void **state)
{
	const struct pp_analyzer *trace = pp_analyzer__find("trace");
	const struct pp_analyzer *stat = pp_analyzer__find("stat");
	struct pp_opts o;
	char buf[256];

	assert_non_null(trace);
	assert_non_null(stat);
	/* pp-record's own -e: the plain event of that name */
	assert_null(pp_analyzer__source("page-faults", NULL, buf, sizeof(buf), &o, err, sizeof(err)));
	assert_int_equal(errno, 0);
	/* a host that takes sources: the profiler, which shows more */
	assert_non_null(pp_analyzer__source("page-faults", trace, buf, sizeof(buf), &o, err,
					    sizeof(err)));
	/* a host that takes none: the plain event; with options, an error */
	assert_null(pp_analyzer__source("page-faults", stat, buf, sizeof(buf), &o, err, sizeof(err)));
	assert_int_equal(errno, 0);
	assert_null(pp_analyzer__source("profile/-F 500/", stat, buf, sizeof(buf), &o, err,
					sizeof(err)));
	assert_int_equal(errno, EINVAL);
	assert_non_null(pp_analyzer__source("profile/-F 500/", NULL, buf, sizeof(buf), &o, err,
					    sizeof(err)));
	assert_int_equal(o.freq, 500);
	assert_non_null(pp_analyzer__source("task-state", NULL, buf, sizeof(buf), &o, err,
					    sizeof(err)));
	assert_null(pp_analyzer__source("sched:sched_switch", trace, buf, sizeof(buf), &o, err,
					sizeof(err)));
	assert_int_equal(errno, 0);
	assert_int_equal(pp_evspec__parse_source("task-state/-S/key=pid/", &sp, err, sizeof(err)), 0);
	assert_string_equal(sp.pattern, "task-state");
	assert_string_equal(sp.key, "pid");
	assert_string_equal(sp.filter, "");
	assert_int_equal(sp.source, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_parse_tracepoint),
		cmocka_unit_test(test_parse_others),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_build),
		cmocka_unit_test(test_source_rule),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
