// SPDX-License-Identifier: MIT
/* Unit tests for analyzers/flamegraph.c: folded output, SVG validity and content. */
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

#include "../analyzers/flamegraph.h"

#define ADD(fg, w, ...) do {							\
	const char *const f_[] = { __VA_ARGS__ };				\
	assert_int_equal(pp_flame__add(fg, f_, sizeof(f_) / sizeof(f_[0]), w), 0); \
} while (0)

static char *folded(const struct pp_flame *fg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	assert_non_null(fp);
	assert_int_equal(pp_flame__write_folded(fg, fp), 0);
	fclose(fp);
	return buf;
}

static char *svg(const struct pp_flame *fg, const struct pp_flame_opts *opts)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	assert_non_null(fp);
	assert_int_equal(pp_flame__write_svg(fg, fp, opts), 0);
	fclose(fp);
	return buf;
}

static void test_folded_known(void **state)
{
	struct pp_flame *fg = pp_flame__new();
	char *out;

	assert_non_null(fg);
	ADD(fg, 3, "bash", "main", "read", "ksys_read_[k]");
	ADD(fg, 2, "bash", "main", "write");
	ADD(fg, 4, "bash", "main", "read", "ksys_read_[k]");	/* same stack: merged */
	ADD(fg, 0, "bash", "ignored");				/* zero weight: ignored */
	ADD(fg, 1, "semi;colon", "line\nbreak", "");
	assert_int_equal(pp_flame__add(fg, NULL, 0, 5), 0);
	out = folded(fg);
	assert_string_equal(out,
		"bash;main;read;ksys_read_[k] 7\n"
		"bash;main;write 2\n"
		"semi:colon;line break;[unknown] 1\n"
		"[unknown] 5\n");
	assert_int_equal(pp_flame__total(fg), 15);
	free(out);

	pp_flame__reset(fg);
	assert_int_equal(pp_flame__total(fg), 0);
	ADD(fg, 9, "x", "y");
	out = folded(fg);
	assert_string_equal(out, "x;y 9\n");
	free(out);
	pp_flame__free(fg);
	pp_flame__free(NULL);
}

/* Stacks added by frame ids fold like the same stacks added by names. */
static void test_add_ids(void **state)
{
	struct pp_flame *fg = pp_flame__new();
	uint32_t ids[3];
	int64_t id;
	char *out;

	assert_non_null(fg);
	ADD(fg, 2, "bash", "main", "read");
	id = pp_flame__intern(fg, "bash");
	assert_true(id >= 0);
	ids[0] = (uint32_t)id;
	ids[1] = (uint32_t)pp_flame__intern(fg, "main");
	ids[2] = (uint32_t)pp_flame__intern(fg, "read");
	assert_int_equal(pp_flame__add_ids(fg, ids, 3, 5), 0);	/* merges with the named one */
	assert_int_equal(pp_flame__intern(fg, NULL), pp_flame__intern(fg, "[unknown]"));
	ids[2] = (uint32_t)pp_flame__intern(fg, "semi;colon");
	assert_int_equal(pp_flame__add_ids(fg, ids, 3, 1), 0);
	assert_int_equal(pp_flame__add_ids(fg, ids, 3, 0), 0);	/* zero weight: ignored */
	assert_int_equal(pp_flame__set_slice(fg, "12:00:00"), 0);
	assert_int_equal(pp_flame__add_ids(fg, ids, 2, 4), 0);
	out = folded(fg);
	assert_string_equal(out,
		"bash;main;read 7\n"
		"bash;main;semi:colon 1\n"
		"12:00:00;bash;main 4\n");
	free(out);
	pp_flame__free(fg);
}

static void test_slices(void **state)
{
	struct pp_flame *fg = pp_flame__new();
	char *out;

	assert_non_null(fg);
	assert_int_equal(pp_flame__set_slice(fg, "10:00:01.000000"), 0);
	ADD(fg, 1, "cc1", "main");
	ADD(fg, 2, "cc1", "main");
	assert_int_equal(pp_flame__set_slice(fg, "10:00:02.000000"), 0);
	ADD(fg, 4, "cc1", "main");
	assert_int_equal(pp_flame__set_slice(fg, NULL), 0);
	ADD(fg, 8, "cc1", "main");
	out = folded(fg);
	assert_string_equal(out,
		"10:00:01.000000;cc1;main 3\n"
		"10:00:02.000000;cc1;main 4\n"
		"cc1;main 8\n");
	free(out);
	out = svg(fg, NULL);
	assert_valid_xml(out);
	assert_non_null(strstr(out, "<title>10:00:02.000000 (4 samples, 26.67%)</title>"));
	free(out);
	pp_flame__free(fg);
}

/* pp_flame__stack() walks the stacks in folded order, the slice label apart. */
static void test_stack_iter(void **state)
{
	struct pp_flame *fg = pp_flame__new();
	const char *f[4], *slice;
	uint64_t w;

	assert_non_null(fg);
	ADD(fg, 3, "bash", "main", "semi;colon");
	assert_int_equal(pp_flame__set_slice(fg, "10:00:01.000000"), 0);
	ADD(fg, 2, "cc1", "main", "parse", "lex");
	assert_int_equal(pp_flame__stack(fg, 0, f, 4, &slice, &w), 3);
	assert_null(slice);
	assert_int_equal(w, 3);
	assert_string_equal(f[0], "bash");
	assert_string_equal(f[2], "semi;colon");		/* as added */
	assert_int_equal(pp_flame__stack(fg, 1, f, 2, &slice, &w), 4);	/* only 2 stored */
	assert_string_equal(slice, "10:00:01.000000");
	assert_int_equal(w, 2);
	assert_string_equal(f[0], "cc1");
	assert_string_equal(f[1], "main");
	assert_int_equal(pp_flame__stack(fg, 2, f, 4, &slice, &w), -ENOENT);
	pp_flame__free(fg);
}

static void test_svg_content(void **state)
{
	struct pp_flame_opts opts = {
		.title = "Off-CPU <time>",
		.subtitle = "off-CPU time (ns)",
		.unit = PP_UNIT_NS,
	};
	struct pp_flame *fg = pp_flame__new();
	char *out;

	assert_non_null(fg);
	ADD(fg, 3000000, "bash", "main", "read", "ksys_read_[k]");
	ADD(fg, 1000000, "bash", "main", "std::vector<int>::push_back&'\"");
	ADD(fg, 1, "bash", "tiny");	/* far below 0.1 px: left out */
	out = svg(fg, &opts);
	assert_valid_xml(out);
	assert_non_null(strstr(out, ">Off-CPU &lt;time&gt;</text>"));
	assert_non_null(strstr(out, ">off-CPU time (ns)</text>"));
	assert_non_null(strstr(out, "<title>all (4.00ms, 100.00%)</title>"));
	assert_non_null(strstr(out, "<title>bash (4.00ms, 100.00%)</title>"));
	assert_non_null(strstr(out, "<title>read (3.00ms, 75.00%)</title>"));
	assert_non_null(strstr(out, "<title>ksys_read_[k] (3.00ms, 75.00%)</title>"));
	assert_non_null(strstr(out, "<title>std::vector&lt;int&gt;::push_back&amp;&apos;&quot; (1.00ms, 25.00%)</title>"));
	assert_null(strstr(out, "<title>tiny"));
	/* full labels fit: 1180 px for all; 295 px for the 25% frame */
	assert_non_null(strstr(out, ">ksys_read_[k]</text>"));
	/* kernel frames orange-ish (r >= 225, b < 60), comm blue-ish */
	assert_non_null(strstr(out, "<script"));
	assert_non_null(strstr(out, "fg_search"));
	free(out);
	pp_flame__free(fg);
}

static void test_svg_clip_and_hostile(void **state)
{
	struct pp_flame *fg = pp_flame__new();
	char longname[300], *out, *p;

	assert_non_null(fg);
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	ADD(fg, 100, "comm", longname);
	ADD(fg, 1, "comm", "\xff\xfe bad \x01 utf8 \xc3\xa9 \xed\xa0\x80");
	ADD(fg, 1, "comm", "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac");
	out = svg(fg, NULL);
	assert_valid_xml(out);
	/* the long name is clipped to its rect and ends with ".." */
	p = strstr(out, "\">aaaaaaaaaa");
	assert_non_null(p);
	p = strchr(p, '<');
	assert_non_null(p);
	assert_memory_equal(p - 2, "..", 2);
	assert_true(p - strstr(out, "\">aaaaaaaaaa") < 200);
	assert_non_null(strstr(out, "?? bad ? utf8 \xc3\xa9 ???"));
	free(out);
	pp_flame__free(fg);
}

static void test_empty_and_files(void **state)
{
	struct pp_flame *fg = pp_flame__new();
	char dir[] = "/tmp/pp-test-flame-dir-XXXXXX", path[128], *out;
	FILE *fp;

	assert_non_null(fg);
	out = svg(fg, NULL);
	assert_valid_xml(out);
	assert_non_null(strstr(out, "no samples"));
	free(out);

	assert_non_null(mkdtemp(dir));
	ADD(fg, 2, "a", "b");
	snprintf(path, sizeof(path), "%s/fg", dir);
	assert_int_equal(pp_flame__write_files(fg, path, NULL), 0);
	snprintf(path, sizeof(path), "%s/fg.folded", dir);
	fp = fopen(path, "r");
	assert_non_null(fp);
	{
		char line[64];

		assert_non_null(fgets(line, sizeof(line), fp));
		assert_string_equal(line, "a;b 2\n");
	}
	fclose(fp);
	unlink(path);
	snprintf(path, sizeof(path), "%s/fg.svg", dir);
	assert_int_equal(access(path, R_OK), 0);
	unlink(path);
	rmdir(dir);
	assert_true(pp_flame__write_files(fg, "/nonexistent-dir/fg", NULL) < 0);
	pp_flame__free(fg);
}

static void test_many_stacks(void **state)
{
	struct pp_flame *fg = pp_flame__new();
	char a[32], b[32], *out, *line;
	const char *f[4];
	unsigned int i, lines = 0;

	assert_non_null(fg);
	/* enough frames and stacks to rehash both tables several times */
	for (i = 0; i < 20000; i++) {
		snprintf(a, sizeof(a), "fn%u", i % 3000);
		snprintf(b, sizeof(b), "leaf%u", i % 7);
		f[0] = "comm";
		f[1] = "main";
		f[2] = a;
		f[3] = b;
		assert_int_equal(pp_flame__add(fg, f, 4, 1), 0);
	}
	assert_int_equal(pp_flame__total(fg), 20000);
	out = folded(fg);
	for (line = out; (line = strchr(line, '\n')); line++)
		lines++;
	/* (i % 3000, i % 7) repeats only every 21000: 20000 distinct stacks */
	assert_int_equal(lines, 20000);
	free(out);
	out = svg(fg, NULL);
	assert_valid_xml(out);
	free(out);
	pp_flame__free(fg);
}

/* --diff: the union of both sides, "stack before after", base scaled to the new total. */
static void test_diff(void **state)
{
	struct pp_flame *base = pp_flame__new(), *cur = pp_flame__new(), *d;
	char *text;

	(void)state;
	ADD(base, 30, "a", "x");
	ADD(base, 10, "a", "y");
	ADD(base, 5, "a", "w");		/* gone in cur */
	ADD(cur, 10, "a", "x");
	ADD(cur, 30, "a", "y");
	ADD(cur, 20, "a", "z");		/* new in cur */
	/* normalised: base's 45 scaled to 60 (x 40, y 13.33 -> 13, w 6.67 -> 7) */
	d = pp_flame__diff(base, cur, 1);
	assert_non_null(d);
	text = folded(d);
	assert_string_equal(text, "a;x 40 10\na;y 13 30\na;z 0 20\na;w 7 0\n");
	free(text);
	assert_int_equal(pp_flame__total(d), 60);
	assert_int_equal(pp_flame__total_before(d), 60);
	/*
	 * Colours by change against the largest (x: -30): x full blue, z
	 * (+20) and y (+17) red in proportion, "a" (60 vs 53 visible) too.
	 */
	text = svg(d, NULL);
	assert_non_null(strstr(text, "<title>x (10 samples, 16.67%; before 40 samples, -75.00%)</title>"
				     "<rect"));
	assert_non_null(strstr(strstr(text, "<title>x ("), "fill=\"rgb(0,0,255)\""));
	assert_true(strstr(strstr(text, "<title>x ("), "fill=\"rgb(0,0,255)\"") <
		    strstr(strstr(text, "<title>x ("), "</g>"));
	assert_non_null(strstr(text, "<title>z (20 samples, 33.33%; before 0 samples, +100.00%)</title>"));
	assert_non_null(strstr(strstr(text, "<title>z ("), "fill=\"rgb(255,70,70)\""));
	assert_non_null(strstr(strstr(text, "<title>y ("), "fill=\"rgb(255,91,91)\""));
	/* the root counts every before weight: 60 vs 60 is no change */
	assert_non_null(strstr(text, "<title>all (60 samples, 100.00%; before 60 samples, +0.00%)</title>"));
	assert_non_null(strstr(strstr(text, "<title>all ("), "fill=\"rgb(250,250,250)\""));
	assert_null(strstr(text, "<title>w ("));	/* no width after */
	free(text);
	pp_flame__free(d);

	/* raw counts */
	d = pp_flame__diff(base, cur, 0);
	assert_non_null(d);
	text = folded(d);
	assert_string_equal(text, "a;x 30 10\na;y 10 30\na;z 0 20\na;w 5 0\n");
	free(text);
	assert_int_equal(pp_flame__total_before(d), 45);
	pp_flame__free(d);

	/* an empty base: everything is new, nothing scaled (no division by 0) */
	pp_flame__reset(base);
	d = pp_flame__diff(base, cur, 1);
	assert_non_null(d);
	text = folded(d);
	assert_string_equal(text, "a;x 0 10\na;y 0 30\na;z 0 20\n");
	free(text);
	pp_flame__free(d);
	pp_flame__free(base);
	pp_flame__free(cur);
}

/* pp_grow_from(): the first capacity, then doubling; a large enough array is left alone. */
static void test_grow(void **state)
{
	uint64_t *v = NULL;
	size_t cap = 0;

	(void)state;
	assert_int_equal(pp_grow_from((void **)&v, &cap, 1, sizeof(*v), 256), 0);
	assert_int_equal(cap, 256);
	v[255] = 1;
	assert_int_equal(pp_grow_from((void **)&v, &cap, 256, sizeof(*v), 256), 0);
	assert_int_equal(cap, 256);
	assert_int_equal(pp_grow_from((void **)&v, &cap, 1025, sizeof(*v), 256), 0);
	assert_int_equal(cap, 2048);
	assert_int_equal(v[255], 1);
	assert_int_equal(pp_grow_from((void **)&v, &cap, SIZE_MAX / 4, sizeof(*v), 256), -ENOMEM);
	assert_int_equal(cap, 2048);
	free(v);
	v = NULL;
	cap = 0;
	assert_int_equal(pp_grow((void **)&v, &cap, 65, sizeof(*v)), 0);
	assert_int_equal(cap, 128);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_folded_known),
		cmocka_unit_test(test_add_ids),
		cmocka_unit_test(test_slices),
		cmocka_unit_test(test_stack_iter),
		cmocka_unit_test(test_svg_content),
		cmocka_unit_test(test_svg_clip_and_hostile),
		cmocka_unit_test(test_empty_and_files),
		cmocka_unit_test(test_many_stacks),
		cmocka_unit_test(test_diff),
		cmocka_unit_test(test_grow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
