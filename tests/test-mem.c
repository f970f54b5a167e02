// SPDX-License-Identifier: MIT
/* Unit tests for replay/mem.c: --max-memory sizes, the checkpoint measure and the RLIMIT_DATA backstop. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <cmocka.h>

#include "../replay/mem.h"

#if defined(__SANITIZE_ADDRESS__)
#define ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ASAN 1
#endif
#endif

static void test_parse(void **state)
{
	static const struct { const char *s; uint64_t v; } good[] = {
		{ "16M", 16ull << 20 }, { "16m", 16ull << 20 }, { "65536K", 64ull << 20 },
		{ "2G", 2ull << 30 }, { "1GiB", 1ull << 30 }, { "3TB", 3ull << 40 },
		{ "16777216", 16ull << 20 }, { "20000000B", 20000000 },
	};
	static const char *const bad[] = {
		"", "M", "-1G", "+1G", " 1G", "1G ", "15M", "16777215", "1X", "1Gi", "1GiBx",
		"16777216T", "99999999999999999999", "1.5G",
	};
	uint64_t v;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		v = 0;
		if (pp_mem__parse(good[i].s, &v) || v != good[i].v)
			fail_msg("'%s': %llu, want %llu", good[i].s, (unsigned long long)v,
				 (unsigned long long)good[i].v);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (pp_mem__parse(bad[i], &v) != -EINVAL)
			fail_msg("'%s' accepted as %llu", bad[i], (unsigned long long)v);
	}
}

static void test_default(void **state)
{
	assert_true(pp_mem__default() >= 256ull << 20);
}

static void test_format(void **state)
{
	char b[32];

	pp_mem__format(48ull << 20, b, sizeof(b));
	assert_string_equal(b, "48 MiB");
	pp_mem__format(3ull << 29, b, sizeof(b));
	assert_string_equal(b, "1.5 GiB");
	pp_mem__format(100, b, sizeof(b));
	assert_string_equal(b, "100 B");
}

/* The checkpoint sees an allocation as it is made, and its free. */
static void test_over(void **state)
{
	struct rlimit old;
	char *p;

	assert_int_equal(getrlimit(RLIMIT_DATA, &old), 0);
	pp_mem__set_limit(0, 0);
	assert_false(pp_mem__over());
	pp_mem__set_limit(pp_mem__used() + (32ull << 20), 1);
	assert_false(pp_mem__over());
	p = malloc(64u << 20);
	assert_non_null(p);
	memset(p, 1, 64u << 20);	/* the sanitizer counts it anyway; the kernel's count needs no touch */
	assert_true(pp_mem__over());
	free(p);
	assert_false(pp_mem__over());
	pp_mem__set_limit(0, 0);
	assert_int_equal(setrlimit(RLIMIT_DATA, &old), 0);
}

/*
 * Between two checkpoints an allocation cannot pass the bound by more than
 * the headroom: the kernel refuses it (release builds; a sanitizer's shadow
 * memory is beyond any RLIMIT_DATA).
 */
static void test_backstop(void **state)
{
#ifdef ASAN
	skip();
#else
	struct rlimit old, now;
	uint64_t lim = 64ull << 20;
	void *p;

	assert_int_equal(getrlimit(RLIMIT_DATA, &old), 0);
	pp_mem__set_limit(lim, 1);
	assert_int_equal(getrlimit(RLIMIT_DATA, &now), 0);
	if (old.rlim_cur == RLIM_INFINITY || old.rlim_cur > lim + PP_MEM_HEADROOM)
		assert_int_equal(now.rlim_cur, lim + PP_MEM_HEADROOM);
	p = malloc(lim + PP_MEM_HEADROOM);
	assert_null(p);
	p = malloc(16u << 20);	/* under the bound: still served */
	assert_non_null(p);
	free(p);
	pp_mem__set_limit(0, 0);
	assert_int_equal(setrlimit(RLIMIT_DATA, &old), 0);
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_default),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_over),
		cmocka_unit_test(test_backstop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
