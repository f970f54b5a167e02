// SPDX-License-Identifier: MIT
/* Unit tests for replay/window.c: --time parsing and resolution against a file's span. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "pp/analyzer.h"

#define S 1000000000ull

/* resolve @arg against a file spanning 100 s .. 110 s */
static int win(const char *arg, uint64_t *lo, uint64_t *hi)
{
	struct pp_time_window w;
	char err[256];

	if (pp_time_window__parse(arg, &w))
		return -1;
	return pp_time_window__resolve(&w, 100 * S, 110 * S, lo, hi, err, sizeof(err)) ? -2 : 0;
}

static void test_forms(void **state)
{
	uint64_t lo, hi;

	(void)state;
	assert_int_equal(win("101.5,102", &lo, &hi), 0);
	assert_int_equal(lo, 101 * S + S / 2);
	assert_int_equal(hi, 102 * S);
	assert_int_equal(win("100.000001,", &lo, &hi), 0);	/* trace's precision */
	assert_int_equal(lo, 100 * S + 1000);
	assert_int_equal(hi, 110 * S);
	assert_int_equal(win(",+1.5s", &lo, &hi), 0);
	assert_int_equal(lo, 100 * S);
	assert_int_equal(hi, 101 * S + S / 2);
	assert_int_equal(win("+200ms,+300us", &lo, &hi), -2);	/* end before start */
	assert_int_equal(win("+200ms,+3000000us", &lo, &hi), 0);
	assert_int_equal(lo, 100 * S + 200000000ull);
	assert_int_equal(hi, 103 * S);
	assert_int_equal(win("+7ns,+8ns", &lo, &hi), 0);
	assert_int_equal(lo, 100 * S + 7);
	assert_int_equal(win("10%-20%", &lo, &hi), 0);
	assert_int_equal(lo, 101 * S);
	assert_int_equal(hi, 102 * S);
	assert_int_equal(win("12.5%,", &lo, &hi), 0);
	assert_int_equal(lo, 101 * S + S / 4);
	assert_int_equal(win("10%/2", &lo, &hi), 0);
	assert_int_equal(lo, 101 * S);
	assert_int_equal(hi, 102 * S);
	assert_int_equal(win("25%/4", &lo, &hi), 0);
	assert_int_equal(lo, 107 * S + S / 2);
	assert_int_equal(hi, 110 * S);
	assert_int_equal(win(",", &lo, &hi), 0);
	assert_int_equal(lo, 100 * S);
	assert_int_equal(hi, 110 * S);
	assert_int_equal(win("105,105", &lo, &hi), 0);	/* one instant */
}

static void test_errors(void **state)
{
	static const char *const bad[] = {
		"", "5", "abc", "1,2,3", "-1,2", "1.,2", ".5,2", "1.5x,", "+1h,", "+,", "101%,",
		"10%-", "-10%", "10%-20", "%,", "10%/0", "10%/11", "0%/1", "10/2", "1.0000000001,",
		"+1.0000001ms,", "99999999999999999999,", "18446744074,",
	};
	struct pp_time_window w;
	uint64_t lo, hi;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (pp_time_window__parse(bad[i], &w) != -EINVAL)
			fail_msg("'%s' parsed", bad[i]);
	}
	assert_int_equal(win("111,", &lo, &hi), -2);	/* after the file */
	assert_int_equal(win(",99.9", &lo, &hi), -2);	/* before it */
	assert_int_equal(win("20%-10%", &lo, &hi), -2);	/* empty */
	assert_int_equal(win("+11s,", &lo, &hi), -2);
	assert_int_equal(win("1,99", &lo, &hi), -2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forms),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
