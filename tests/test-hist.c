// SPDX-License-Identifier: MIT
/* Unit tests for analyzers/hist.c: percentiles, merge, reset, printing, TIME parsing. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../analyzers/hist.h"

/* |got - want| <= want/64: the documented bound. */
static void assert_within_bound(uint64_t got, uint64_t want)
{
	uint64_t diff = got > want ? got - want : want - got;

	if (diff * 64 > want)
		fail_msg("got %llu, want %llu (+-1/64)", (unsigned long long)got,
			 (unsigned long long)want);
}

static void test_percentiles_1_to_1000(void **state)
{
	struct pp_hist h;
	struct pp_hist_stats st;
	uint64_t v;

	pp_hist__init(&h);
	for (v = 1000; v >= 1; v--)
		assert_int_equal(pp_hist__add(&h, v), 0);
	pp_hist__stats(&h, &st);
	assert_int_equal(st.calls, 1000);
	assert_int_equal(st.total, 500500);
	assert_int_equal(st.min, 1);
	assert_int_equal(st.max, 1000);
	assert_int_equal(st.avg, 500);
	assert_within_bound(st.p50, 500);
	assert_within_bound(st.p95, 950);
	assert_within_bound(st.p99, 990);
	assert_int_equal(pp_hist__percentile(&h, 0), 1);
	assert_int_equal(pp_hist__percentile(&h, 100), 1000);
	/* small values are exact */
	assert_int_equal(pp_hist__percentile(&h, 1), 10);
	assert_int_equal(pp_hist__percentile(&h, 2.5), 25);
	pp_hist__exit(&h);
}

static void test_percentiles_bound_wide(void **state)
{
	struct pp_hist *h = pp_hist__new();
	uint64_t vals[] = { 33, 1000, 123456, 999999937ull, 1ull << 40, (1ull << 62) + 12345,
			    UINT64_MAX };
	size_t i;

	assert_non_null(h);
	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		pp_hist__reset(h);
		/* one value, surrounded so min/max clamping does not hide the bucket error */
		assert_int_equal(pp_hist__add(h, 0), 0);
		assert_int_equal(pp_hist__add(h, vals[i]), 0);
		assert_int_equal(pp_hist__add(h, UINT64_MAX), 0);
		assert_within_bound(pp_hist__percentile(h, 50), vals[i]);
	}
	pp_hist__free(h);
}

static void test_empty(void **state)
{
	struct pp_hist h;
	struct pp_hist_stats st;

	pp_hist__init(&h);
	pp_hist__stats(&h, &st);
	assert_int_equal(st.calls, 0);
	assert_int_equal(st.min, 0);
	assert_int_equal(pp_hist__percentile(&h, 50), 0);
	pp_hist__print_log2(&h, stdout, PP_UNIT_NS);
	pp_hist__exit(&h);
	pp_hist__exit(NULL);
	pp_hist__free(NULL);
}

static void test_merge_reset(void **state)
{
	struct pp_hist a, b;
	uint64_t v;

	pp_hist__init(&a);
	pp_hist__init(&b);
	for (v = 1; v <= 500; v++)
		pp_hist__add(&a, v);
	for (v = 501; v <= 1000; v++)
		pp_hist__add(&b, v);
	assert_int_equal(pp_hist__merge(&a, &b), 0);
	assert_int_equal(a.calls, 1000);
	assert_int_equal(a.min, 1);
	assert_int_equal(a.max, 1000);
	assert_within_bound(pp_hist__percentile(&a, 99), 990);
	/* merge into an empty, never-allocated histogram */
	pp_hist__reset(&b);
	assert_int_equal(b.calls, 0);
	assert_int_equal(pp_hist__percentile(&b, 50), 0);
	assert_int_equal(pp_hist__merge(&b, &a), 0);
	assert_within_bound(pp_hist__percentile(&b, 50), 500);
	pp_hist__reset(&a);
	assert_int_equal(a.calls, 0);
	assert_int_equal(a.total, 0);
	pp_hist__add_n(&a, 7, 3);
	assert_int_equal(a.calls, 3);
	assert_int_equal(a.total, 21);
	assert_int_equal(pp_hist__percentile(&a, 50), 7);
	pp_hist__exit(&a);
	pp_hist__exit(&b);
}

/* -1000..-1 and 1..1000: signed stats, percentiles across the two halves. */
static void test_signed(void **state)
{
	struct pp_shist h;
	struct pp_shist_stats st;

	(void)state;
	pp_shist__init(&h);
	for (int64_t v = 1; v <= 1000; v++) {
		assert_int_equal(pp_shist__add(&h, -v), 0);
		assert_int_equal(pp_shist__add(&h, v), 0);
	}
	assert_int_equal(pp_shist__add(&h, INT64_MIN), 0);
	pp_shist__stats(&h, &st);
	assert_int_equal(st.calls, 2001);
	assert_true(st.min == INT64_MIN);
	assert_true(st.max == 1000);
	assert_true(st.total == INT64_MIN);	/* the pairs cancel out */
	/* rank 1001 of 2001: the largest negative value, -1 */
	assert_true(st.p50 == -1);
	/* rank 1901: the 900th positive value */
	assert_within_bound((uint64_t)st.p95, 900);
	assert_within_bound((uint64_t)st.p99, 980);
	pp_shist__reset(&h);
	assert_int_equal(pp_shist__add(&h, -9), 0);
	pp_shist__stats(&h, &st);
	assert_true(st.min == -9 && st.max == -9 && st.p50 == -9 && st.p99 == -9 && st.avg == -9);
	pp_shist__exit(&h);
}

static void test_print_log2(void **state)
{
	struct pp_hist h;
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;

	pp_hist__init(&h);
	pp_hist__add_n(&h, 0, 1);
	pp_hist__add_n(&h, 1, 2);
	pp_hist__add_n(&h, 5, 4);		/* [4, 8) */
	pp_hist__add_n(&h, 1500, 8);		/* [1K, 2K) */
	fp = open_memstream(&buf, &len);
	assert_non_null(fp);
	pp_hist__print_log2(&h, fp, PP_UNIT_NONE);
	fclose(fp);
	assert_non_null(strstr(buf, "[0]                           1 |@@@@@@      "));
	assert_non_null(strstr(buf, "[1]                           2 |@@@@@@@@@@@@@      "));
	assert_non_null(strstr(buf, "[2, 4)                        0 |         "));
	assert_non_null(strstr(buf, "[4, 8)                        4 |@@@@@@@@@@@@@@@@@@@@@@@@@@      "));
	assert_non_null(strstr(buf, "[1K, 2K)                      8 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"));
	assert_null(strstr(buf, "[2K, 4K)"));
	free(buf);

	buf = NULL;
	pp_hist__reset(&h);
	pp_hist__add(&h, 1500000);		/* 1.5ms: [1.05ms, 2.10ms) */
	fp = open_memstream(&buf, &len);
	pp_hist__print_log2(&h, fp, PP_UNIT_NS);
	fclose(fp);
	assert_string_equal(buf, "[1.05ms, 2.10ms)              1 "
			    "|@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n");
	free(buf);
	pp_hist__exit(&h);
}

static void test_lhist(void **state)
{
	struct pp_lhist lh;
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;
	uint64_t v;

	assert_int_equal(pp_lhist__init(&lh, 10, 5, 1), -EINVAL);
	assert_int_equal(pp_lhist__init(&lh, 0, 10, 0), -EINVAL);
	assert_int_equal(pp_lhist__init(&lh, 0, 100, 10), 0);
	for (v = 0; v < 120; v += 3)
		pp_lhist__add(&lh, v);
	assert_int_equal(lh.calls, 40);
	assert_int_equal(lh.over, 6);		/* 102..117 */
	assert_int_equal(lh.counts[0], 4);	/* 0 3 6 9 */
	assert_int_equal(lh.counts[1], 3);	/* 12 15 18 */
	fp = open_memstream(&buf, &len);
	pp_lhist__print(&lh, fp, PP_UNIT_NONE);
	fclose(fp);
	assert_non_null(strstr(buf, "[0, 10)                       4 |"));
	assert_non_null(strstr(buf, "[90, 100)                     4 |"));
	assert_non_null(strstr(buf, "[100, ...)                    6 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|"));
	free(buf);
	pp_lhist__reset(&lh);
	assert_int_equal(lh.calls, 0);
	assert_int_equal(lh.counts[0], 0);
	pp_lhist__exit(&lh);
	pp_lhist__exit(NULL);
}

static void test_ns_format(void **state)
{
	char b[32];

	assert_string_equal(pp_ns_format(b, sizeof(b), 0), "0ns");
	assert_string_equal(pp_ns_format(b, sizeof(b), 999), "999ns");
	assert_string_equal(pp_ns_format(b, sizeof(b), 1000), "1.00us");
	assert_string_equal(pp_ns_format(b, sizeof(b), 1250), "1.25us");
	assert_string_equal(pp_ns_format(b, sizeof(b), 12500000), "12.5ms");
	assert_string_equal(pp_ns_format(b, sizeof(b), 999999), "1.00ms");
	assert_string_equal(pp_ns_format(b, sizeof(b), 3000000000ull), "3.00s");
	assert_string_equal(pp_ns_format(b, sizeof(b), 250000000000ull), "250s");
	assert_string_equal(pp_value_format(b, sizeof(b), 4096, PP_UNIT_NONE), "4096");
	assert_string_equal(pp_value_format(b, sizeof(b), 4096, PP_UNIT_NS), "4.10us");
}

static void test_time_parse(void **state)
{
	static const struct { const char *s; uint64_t ns; } ok[] = {
		{ "0", 0 }, { "42", 42 }, { "250ns", 250 }, { "500us", 500000 },
		{ "10ms", 10000000 }, { "1s", 1000000000 }, { "1.5s", 1500000000 },
		{ "0.5ms", 500000 }, { ".25us", 250 }, { "2m", 120000000000ull },
		{ "1min", 60000000000ull }, { "1h", 3600000000000ull },
		{ "18446744073709551615", UINT64_MAX }, { "1.0000000001s", 1000000000 },
	};
	static const char *const bad[] = {
		"", "ms", "10 ms", " 10ms", "10ms ", "-1", "+1", "1.5", "1.", ".", "10xs",
		"10MS", "1e3", "0x10", "1..2s", "5sec", "1s2",
	};
	uint64_t ns;
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		ns = 12345;
		if (pp_time_parse(ok[i].s, &ns))
			fail_msg("rejected \"%s\"", ok[i].s);
		if (ns != ok[i].ns)
			fail_msg("\"%s\": %llu", ok[i].s, (unsigned long long)ns);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ns = 12345;
		if (pp_time_parse(bad[i], &ns) != -EINVAL)
			fail_msg("accepted \"%s\"", bad[i]);
		assert_int_equal(ns, 12345);
	}
	assert_int_equal(pp_time_parse("18446744073709551616", &ns), -ERANGE);
	assert_int_equal(pp_time_parse("18446744074s", &ns), -ERANGE);
	assert_int_equal(pp_time_parse(NULL, &ns), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_percentiles_1_to_1000),
		cmocka_unit_test(test_percentiles_bound_wide),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_merge_reset),
		cmocka_unit_test(test_signed),
		cmocka_unit_test(test_print_log2),
		cmocka_unit_test(test_lhist),
		cmocka_unit_test(test_ns_format),
		cmocka_unit_test(test_time_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
