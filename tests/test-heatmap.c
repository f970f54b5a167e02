// SPDX-License-Identifier: MIT
/* Unit tests for analyzers/heatmap.c: cells, column coarsening, SVG validity. */
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
#include "xml-valid.h"

#include "../analyzers/heatmap.h"

static char *render(const struct pp_heatmap *hm, const struct pp_heatmap_opts *opts)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	assert_non_null(fp);
	assert_int_equal(pp_heatmap__write_svg(hm, fp, opts), 0);
	fclose(fp);
	return buf;
}

static size_t count_str(const char *hay, const char *needle)
{
	size_t n = 0;

	for (; (hay = strstr(hay, needle)); hay++)
		n++;
	return n;
}

static void test_cells(void **state)
{
	struct pp_heatmap_opts opts = {
		.title = "rundelay <us>",
		.subtitle = "sched_waking -> sched_switch",
		.unit = PP_UNIT_NS,
	};
	struct pp_heatmap *hm = pp_heatmap__new(1000000);	/* 1 ms columns */
	char *out;
	int i;

	assert_non_null(hm);
	pp_heatmap__set_start(hm, 10000000000ull);
	for (i = 0; i < 3; i++)
		assert_int_equal(pp_heatmap__add(hm, 10000000000ull + 100, 1500), 0);
	assert_int_equal(pp_heatmap__add(hm, 10000000000ull + 2500000, 3000000), 0);
	assert_int_equal(pp_heatmap__add(hm, 10000000000ull + 2600000, 0), 0);
	assert_int_equal(pp_heatmap__add(hm, 5, 1), 0);		/* before the origin: column 0 */
	assert_int_equal(pp_heatmap__count(hm), 6);
	out = render(hm, &opts);
	assert_valid_xml(out);
	assert_non_null(strstr(out, ">rundelay &lt;us&gt;</text>"));
	assert_non_null(strstr(out, ">sched_waking -&gt; sched_switch</text>"));
	assert_non_null(strstr(out, "<title>time 0ns - 1.00ms, [1.02us, 2.05us): 3</title>"));
	assert_non_null(strstr(out, "<title>time 2.00ms - 3.00ms, [2.10ms, 4.19ms): 1</title>"));
	assert_non_null(strstr(out, "<title>time 2.00ms - 3.00ms, [0]: 1</title>"));
	assert_non_null(strstr(out, "<title>time 0ns - 1.00ms, [1ns, 2ns): 1</title>"));
	assert_int_equal(count_str(out, "<rect class=\"c\""), 4);
	assert_non_null(strstr(out, "(columns of 1.00ms)"));
	assert_non_null(strstr(out, ">latency (log2)</text>"));
	free(out);
	pp_heatmap__free(hm);
	pp_heatmap__free(NULL);
}

static void test_coarsen(void **state)
{
	struct pp_heatmap *hm = pp_heatmap__new(0);		/* automatic: 1 ms first */
	char *out;

	assert_non_null(hm);
	assert_int_equal(pp_heatmap__add(hm, 0, 100), 0);
	assert_int_equal(pp_heatmap__add(hm, 1000000, 100), 0);
	assert_int_equal(pp_heatmap__add(hm, 1023000000, 100), 0);	/* last 1 ms column */
	out = render(hm, NULL);
	assert_non_null(strstr(out, "(columns of 1.00ms)"));
	assert_non_null(strstr(out, "<title>time 1.02s - 1.02s, [64, 128): 1</title>"));
	free(out);
	assert_int_equal(pp_heatmap__add(hm, 1024000000, 100), 0);	/* needs 2 ms columns */
	out = render(hm, NULL);
	assert_valid_xml(out);
	assert_non_null(strstr(out, "(columns of 2.00ms)"));
	/* the first two 1 ms columns merged into one cell of 2 */
	assert_non_null(strstr(out, "<title>time 0ns - 2.00ms, [64, 128): 2</title>"));
	assert_int_equal(count_str(out, "<rect class=\"c\""), 3);
	free(out);
	/* an hour of events stays within the column cap */
	assert_int_equal(pp_heatmap__add(hm, 3600ull * 1000000000ull, 7), 0);
	out = render(hm, NULL);
	assert_non_null(strstr(out, "(columns of 4.10s)"));
	assert_int_equal(count_str(out, "<rect class=\"c\""), 2);
	free(out);
	pp_heatmap__free(hm);
}

static void test_empty_and_file(void **state)
{
	struct pp_heatmap *hm = pp_heatmap__new(0);
	char dir[] = "/tmp/pp-test-hm-XXXXXX", path[128];
	char *out;

	assert_non_null(hm);
	out = render(hm, NULL);
	assert_valid_xml(out);
	assert_non_null(strstr(out, "no events"));
	assert_non_null(strstr(out, "Latency heat map"));
	free(out);

	assert_non_null(mkdtemp(dir));
	pp_heatmap__add(hm, 1, 1);
	snprintf(path, sizeof(path), "%s/hm", dir);
	assert_int_equal(pp_heatmap__write_file(hm, path, NULL), 0);
	snprintf(path, sizeof(path), "%s/hm.svg", dir);
	assert_int_equal(access(path, R_OK), 0);
	assert_int_equal(pp_heatmap__write_file(hm, path, NULL), 0);	/* no .svg.svg */
	unlink(path);
	snprintf(path, sizeof(path), "%s/hm.svg.svg", dir);
	assert_int_not_equal(access(path, R_OK), 0);
	rmdir(dir);
	assert_int_equal(pp_heatmap__write_file(hm, "/nonexistent-dir/hm", NULL), -ENOENT);
	pp_heatmap__free(hm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cells),
		cmocka_unit_test(test_coarsen),
		cmocka_unit_test(test_empty_and_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
