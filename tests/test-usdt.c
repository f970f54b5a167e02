// SPDX-License-Identifier: MIT
/*
 * Unit tests of USDT support (record/usdt.c, record/evspec.c): the SDT
 * argument specs as tracefs uprobe fetch arguments, the usdt: event spec
 * and where its filter starts, and the .note.stapsdt reader on the test
 * helper built with sys/sdt.h.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <cmocka.h>

#include "pp/evspec.h"

static char out[128], err[512];

static int sym_off(void *ctx, const char *sym, uint64_t *off)
{
	(void)ctx;
	if (strcmp(sym, "ticks"))
		return -ENOENT;
	*off = 0x3018;
	return 0;
}

static const char *fetch(const char *spec)
{
	err[0] = '\0';
	if (pp_usdt_arg_fetch(spec, sym_off, NULL, out, sizeof(out), err, sizeof(err)))
		return NULL;
	return out;
}

static void test_arg_fetch(void **state)
{
	(void)state;
	assert_string_equal(fetch("-4@%edi"), "%di:s32");
	assert_string_equal(fetch("8@%rax"), "%ax:u64");
	assert_string_equal(fetch("-2@%dx"), "%dx:s16");
	assert_string_equal(fetch("1@%r9b"), "%r9:u8");
	assert_string_equal(fetch("-8@%r15"), "%r15:s64");
	assert_string_equal(fetch("4@$5"), "\\5:u32");
	assert_string_equal(fetch("-4@$-17"), "\\-17:s32");
	assert_string_equal(fetch("8@-8(%rbp)"), "-8(%bp):u64");
	assert_string_equal(fetch("-4@24(%rsp)"), "+24(%sp):s32");
	assert_string_equal(fetch("-8@(%rsi)"), "+0(%si):s64");
	assert_string_equal(fetch("-8@ticks(%rip)"), "@+0x3018:s64");
	assert_string_equal(fetch("4@ticks+8(%rip)"), "@+0x3020:u32");
	/* not supported: one clear message each */
	assert_null(fetch("3@%eax"));
	assert_null(fetch("4@%ah"));
	assert_null(fetch("8@(%rax,%rbx,8)"));
	assert_non_null(strstr(err, "not supported"));
	assert_null(fetch("8@[sp, 16]"));
	assert_null(fetch("%eax"));
	assert_null(fetch("-8@nosuch(%rip)"));
	assert_non_null(strstr(err, "no symbol 'nosuch'"));
	assert_null(fetch("8@0x10"));
}

static void test_spec(void **state)
{
	struct pp_evspec sp;
	char self[256];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char e[600];

	(void)state;
	assert_true(n > 0);
	self[n] = '\0';
	assert_int_equal(pp_evspec__parse("usdt:libc:setjmp@/lib/x.so", &sp, err, sizeof(err)), 0);
	assert_int_equal(sp.kind, PP_EV_USDT);
	assert_string_equal(sp.sys, "libc");
	assert_string_equal(sp.event, "setjmp");
	assert_string_equal(sp.path, "/lib/x.so");
	assert_string_equal(sp.pattern, "usdt:libc:setjmp@/lib/x.so");
	/* a path that is no file here: blocks at "//" */
	assert_int_equal(pp_evspec__parse("usdt:a:b@/no/such//stack/", &sp, err, sizeof(err)), 0);
	assert_string_equal(sp.path, "/no/such");
	assert_int_equal(sp.stack, 1);
	assert_string_equal(sp.filter, "");
	/* an existing file: the filter right after its path */
	snprintf(e, sizeof(e), "usdt:a:b@%s/arg1>5 && arg2==3/key=arg1/", self);
	assert_int_equal(pp_evspec__parse(e, &sp, err, sizeof(err)), 0);
	assert_string_equal(sp.path, self);
	assert_string_equal(sp.filter, "arg1>5 && arg2==3");
	assert_string_equal(sp.key, "arg1");
	snprintf(e, sizeof(e), "usdt:a:b@%s//trigger/", self);
	assert_int_equal(pp_evspec__parse(e, &sp, err, sizeof(err)), 0);
	assert_string_equal(sp.filter, "");
	assert_int_equal(sp.trigger, 1);
	/* split keeps the filter's commas-free blocks in one entry */
	{
		char arg[700], *ents[4];

		snprintf(arg, sizeof(arg), "usdt:a:b@%s/arg1>5/,sched:sched_switch", self);
		assert_int_equal(pp_evspec__split(arg, ents, 4), 2);
		assert_string_equal(ents[1], "sched:sched_switch");
	}
	assert_int_equal(pp_evspec__parse("usdt:a@/bin/x", &sp, err, sizeof(err)), -EINVAL);
	assert_int_equal(pp_evspec__parse("usdt::b@/bin/x", &sp, err, sizeof(err)), -EINVAL);
	assert_int_equal(pp_evspec__parse("usdt:a:b@", &sp, err, sizeof(err)), -EINVAL);
	assert_int_equal(pp_evspec__parse("usdt:a:b", &sp, err, sizeof(err)), -EINVAL);
}

static void test_notes(void **state)
{
	struct pp_usdt_probe *v;
	char path[512], fa[1024];
	const char *b = getenv("PP_BUILD");
	int n, nr, tick = -1;

	(void)state;
	snprintf(path, sizeof(path), "%s/tests/helpers/usdt-n", b ? b : "build");
	if (access(path, R_OK))
		skip();
	n = pp_usdt__list(path, &v, err, sizeof(err));
	assert_int_equal(n, 2);
	for (int i = 0; i < n; i++) {
		assert_string_equal(v[i].provider, "pp_test");
		assert_true(v[i].offset > 0);
		assert_true(v[i].sema_offset > 0 && v[i].sema_addr > 0);
		if (!strcmp(v[i].name, "tick"))
			tick = i;
	}
	assert_true(tick >= 0);
	assert_int_equal(pp_usdt__fetchargs(path, v[tick].args, fa, sizeof(fa), &nr, err,
					    sizeof(err)), 0);
	assert_int_equal(nr, 6);
	assert_non_null(strstr(fa, "arg1="));
	assert_non_null(strstr(fa, "arg4=\\5:s32"));
	free(v);
	/* a file without probes; one that is no ELF */
	assert_int_equal(pp_usdt__list("/proc/self/exe", &v, err, sizeof(err)), 0);
	free(v);
	assert_true(pp_usdt__list("/etc/hostname", &v, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "not a 64-bit ELF"));
	assert_true(pp_usdt__list("/no/such", &v, err, sizeof(err)) < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arg_fetch),
		cmocka_unit_test(test_spec),
		cmocka_unit_test(test_notes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
