// SPDX-License-Identifier: MIT
/*
 * The checks between a trace file's tracepoint formats and libtraceevent
 * (replay/fmt-check.c): hostile texts are refused before parsing, every
 * format of the running kernel passes, fields must fit a record, and the
 * guard sends to tep_print_event only what it can bound.
 */
#include <errno.h>
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <traceevent/event-parse.h>
#include "pp/replay.h"
#include "../replay/fmt-check.h"

#define HDR "name: e\nID: 7\nformat:\n" \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n" \
	"\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n" \
	"\tfield:int b;\toffset:12;\tsize:4;\tsigned:1;\n" \
	"\tfield:__data_loc char[] s;\toffset:16;\tsize:4;\tsigned:0;\n" \
	"\tfield:__data_loc u8[] buf;\toffset:20;\tsize:4;\tsigned:0;\n\n"

static char *repeat(const char *head, const char *unit, size_t n, const char *tail)
{
	size_t hl = strlen(head), ul = strlen(unit), tl = strlen(tail);
	char *t = malloc(hl + ul * n + tl + 1), *p = t;

	assert_non_null(t);
	memcpy(p, head, hl);
	p += hl;
	for (size_t i = 0; i < n; i++, p += ul)
		memcpy(p, unit, ul);
	memcpy(p, tail, tl + 1);
	return t;
}

static int check(const char *text)
{
	char why[160];

	return pp_fmt_check_text(text, strlen(text), why, sizeof(why));
}

/* The inputs that overflowed libtraceevent's stack or took it seconds. */
static void test_text_refused(void **state)
{
	char *t;

	(void)state;
	t = repeat(HDR "print fmt: \"%d\", ", "!", 28 * 1024, "REC->a\n");
	assert_int_equal(check(t), -E2BIG);
	free(t);
	t = repeat(HDR "print fmt: \"%d\", ", "(", 38000, "\n");
	assert_int_equal(check(t), -E2BIG);
	free(t);
	t = repeat(HDR "print fmt: \"%d\", ", "REC->a + ", 1000, "1\n");
	assert_int_equal(check(t), -E2BIG);
	free(t);
	/* a type name of many tokens, the declaration running over lines without ';' */
	t = repeat("name: e\nID: 7\nformat:\n\tfield:", "u\n", 1000, "a;\toffset:0;\tsize:4;\tsigned:0;\n\n"
		   "print fmt: \"\"\n");
	assert_int_equal(check(t), -E2BIG);
	free(t);
	t = repeat(HDR "print fmt: \"", "x", PP_FMT_MAX_TEXT, "\"\n");
	assert_int_equal(check(t), -E2BIG);
	free(t);
	t = repeat("name: e\nID: 7\nformat:\n", "\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n",
		   PP_FMT_MAX_FIELDS + 1, "\nprint fmt: \"\"\n");
	assert_int_equal(check(t), -E2BIG);
	free(t);
	/* a dereference of anything but the record (the replay fuzzer's find: a
	 * ternary whose branch read 'offcpuREC->' crashed libtraceevent) */
	t = repeat(HDR "print fmt: \"%d\", REC->a ? 1 : offcpuREC->a", "", 0, "\n");
	assert_int_equal(check(t), -EINVAL);
	free(t);
	t = repeat(HDR "print fmt: \"%d\", \"x\"->a", "", 0, "\n");
	assert_int_equal(check(t), -EINVAL);
	free(t);
	t = repeat(HDR "print fmt: \"%d\", (REC)->a + REC->a", "", 0, "\n");
	assert_int_equal(check(t), 0);
	free(t);
	/*
	 * a field it does not declare: libtraceevent crashed on one in
	 * __print_flags() (the replay fuzzer's find, a sched_switch format cut
	 * inside "REC->prev_state"); the declared ones, array and __data_loc
	 * names included, pass
	 */
	t = repeat(HDR "print fmt: \"%s\", __print_flags(REC->prev_st, \"|\", { 1, \"S\" })",
		   "", 0, "\n");
	assert_int_equal(check(t), -EINVAL);
	free(t);
	t = repeat(HDR "print fmt: \"%s\", __print_symbolic((REC)->c, { 1, \"S\" })", "", 0, "\n");
	assert_int_equal(check(t), -EINVAL);
	free(t);
	t = repeat(HDR "print fmt: \"%s %d %d\", __print_flags(REC->b, \"|\", { 1, \"S\" }), "
		   "REC->common_type, (REC)->s", "", 0, "\n");
	assert_int_equal(check(t), 0);
	free(t);
	/* within the bounds: nesting the kernel could write */
	t = repeat(HDR "print fmt: \"%d\", ", "(", 60, "REC->a");
	{
		char *u = repeat(t, ")", 60, "\n");

		assert_int_equal(check(u), 0);
		free(u);
	}
	free(t);
}

/*
 * After the false branch of a ?: or an index [...], libtraceevent takes
 * only an operator it gives a precedence: on any other ('@', '[', '.', ']',
 * '}', ';', ...) it calls process_op() without a right operand and crashes
 * (the replay fuzzer's find: a sched_switch format ending in '"R"@').
 * What it parses there, and kvmmmu's statement expressions, still pass,
 * and libtraceevent parses each of them.
 */
static void test_text_after_cond_or_index(void **state)
{
	static const char *const refused[] = {
		"REC->a ? 1 : 2@", "REC->a ? 1 : \"R\"[0]", "REC->a ? 1 : REC->b[0]",
		"REC->a ? 1 : 2]", "REC->a ? 1 : 2}", "REC->a ? 1 : 2;", "REC->a ? 1 : 2.x",
		"REC->a ? 1 : 2{", "REC->a[0]@", "REC->a[0][1]", "REC->a[0].x", "REC->a[0] = 1",
		"REC->a ? 1 : (2)[0]",
	};
	static const char *const passed[] = {
		"REC->a ? 1 : 2", "REC->a ? 1 : 2 + 1", "REC->a ? 1 : REC->b ? 2 : 3",
		"(REC->a ? 1 : 2), REC->b", "REC->a[0] + 1", "REC->a ? 1 : -REC->b",
		"REC->a ? 1 : (int)REC->b", "REC->a ? 1 : REC->b, \"x\"",
		"__print_flags(REC->a ? 1 : 2, \"|\", { 1, \"S\" })",
		"({ int x[] = { 1 }; x[0]; }), REC->a",
	};
	char t[1024];

	(void)state;
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		snprintf(t, sizeof(t), HDR "print fmt: \"%%d\", %s\n", refused[i]);
		if (check(t) != -EINVAL)
			fail_msg("accepted: %s", refused[i]);
	}
	for (size_t i = 0; i < sizeof(passed) / sizeof(passed[0]); i++) {
		struct tep_handle *tep = tep_alloc();
		struct tep_event *ev = NULL;

		snprintf(t, sizeof(t), HDR "print fmt: \"%%d\", %s\n", passed[i]);
		if (check(t))
			fail_msg("refused: %s", passed[i]);
		tep_set_loglevel(TEP_LOG_NONE);
		tep_parse_format(tep, &ev, t, strlen(t), "s");
		tep_free(tep);
	}
}

/* Every format of the running kernel passes both checks. */
static void test_kernel_formats_pass(void **state)
{
	glob_t g;
	size_t nr = 0, tep_ok = 0;

	(void)state;
	if (glob("/sys/kernel/tracing/events/*/*/format", 0, NULL, &g) || !g.gl_pathc) {
		skip();
		return;
	}
	for (size_t i = 0; i < g.gl_pathc; i++) {
		struct tep_handle *tep = tep_alloc();
		struct tep_event *ev = NULL;
		static char buf[1 << 20];
		char why[160];
		FILE *f = fopen(g.gl_pathv[i], "r");
		size_t n;

		if (!f) {
			tep_free(tep);
			continue;
		}
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = '\0';
		if (pp_fmt_check_text(buf, n, why, sizeof(why)))
			fail_msg("%s refused: %s", g.gl_pathv[i], why);
		tep_set_loglevel(TEP_LOG_NONE);
		tep_set_long_size(tep, 8);
		tep_parse_format(tep, &ev, buf, n, "sys");
		if (ev) {
			struct pp_fmt_guard *gd;

			if (pp_fmt_check_fields(ev, why, sizeof(why)))
				fail_msg("%s: fields refused: %s", g.gl_pathv[i], why);
			gd = pp_fmt_guard__new(ev);
			assert_non_null(gd);
			tep_ok += (size_t)pp_fmt_guard__tep_ok(gd);
			free(gd);
		}
		nr++;
		tep_free(tep);
	}
	globfree(&g);
	print_message("%zu kernel formats: %zu printable by libtraceevent behind the guard\n", nr,
		      tep_ok);
	/* nearly all: the rest print as name=value */
	assert_true(tep_ok * 10 >= nr * 9);
}

static struct tep_event *parse(struct tep_handle *tep, const char *text)
{
	struct tep_event *ev = NULL;

	tep_set_loglevel(TEP_LOG_NONE);
	tep_set_long_size(tep, 8);
	assert_int_equal(check(text), 0);
	tep_parse_format(tep, &ev, text, strlen(text), "sys");
	assert_non_null(ev);
	return ev;
}

static void test_fields_outside_refused(void **state)
{
	static const char *const bad[] = {
		"name: e\nID: 7\nformat:\n\n\tfield:int a;\toffset:65534;\tsize:4;\tsigned:1;\n\n"
		"print fmt: \"%d\", REC->a\n",
		"name: e\nID: 7\nformat:\n\n\tfield:int a;\toffset:8;\tsize:70000;\tsigned:1;\n\n"
		"print fmt: \"%d\", REC->a\n",
		"name: e\nID: 7\nformat:\n\n\tfield:__data_loc char[] s;\toffset:8;\tsize:2;\tsigned:1;\n\n"
		"print fmt: \"%s\", __get_str(s)\n",
	};
	char why[160];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct tep_handle *tep = tep_alloc();

		if (pp_fmt_check_fields(parse(tep, bad[i]), why, sizeof(why)) != -EINVAL)
			fail_msg("accepted: %s", bad[i]);
		tep_free(tep);
	}
	{
		struct tep_handle *tep = tep_alloc();

		assert_int_equal(pp_fmt_check_fields(parse(tep, HDR "print fmt: \"%d\", REC->a\n"), why,
						     sizeof(why)), 0);
		tep_free(tep);
	}
}

static int tep_ok(const char *print)
{
	struct tep_handle *tep = tep_alloc();
	char text[4096];
	struct pp_fmt_guard *g;
	int ok;

	snprintf(text, sizeof(text), "%sprint fmt: %s\n", HDR, print);
	g = pp_fmt_guard__new(parse(tep, text));
	assert_non_null(g);
	ok = pp_fmt_guard__tep_ok(g);
	free(g);
	tep_free(tep);
	return ok;
}

/* What libtraceevent crashed or hung on prints as name=value instead. */
static void test_guard_print_format(void **state)
{
	(void)state;
	assert_true(tep_ok("\"a=%d b=%d s=%s\", REC->a, REC->b, __get_str(s)"));
	assert_true(tep_ok("\"%d\", REC->a / 1000"));
	assert_true(tep_ok("\"%-16s %08x\", __get_str(s), REC->a"));
	assert_true(tep_ok("\"%.*s\", REC->a, __get_str(s)"));
	assert_true(tep_ok("\"%s\", __print_hex(__get_dynamic_array(buf), __get_dynamic_array_len(buf))"));
	assert_true(tep_ok("\"%s\", __print_array(__get_dynamic_array(buf), "
			   "__get_dynamic_array_len(buf) / 4, 4)"));
	assert_false(tep_ok("\"%d\", REC->a / REC->b"));
	assert_false(tep_ok("\"%d\", REC->a % 0"));
	assert_false(tep_ok("\"%d\", REC->a / 0"));
	assert_false(tep_ok("\"%2147483647d\", REC->a"));
	assert_false(tep_ok("\"%.100000d\", REC->a"));
	assert_false(tep_ok("\"%*d\", REC->a, REC->b"));
	assert_false(tep_ok("\"%n\", REC->a"));
	assert_false(tep_ok("\"%s\", __print_hex(__get_dynamic_array(buf), REC->a)"));
	assert_false(tep_ok("\"%s\", __print_hex(__get_dynamic_array(buf), -1)"));
	assert_false(tep_ok("\"%s\", __print_array(__get_dynamic_array(buf), "
			    "__get_dynamic_array_len(buf), 4)"));
}

static void put_loc(uint8_t *d, uint32_t at, uint32_t off, uint32_t len)
{
	uint32_t loc = off | len << 16;

	memcpy(d + at, &loc, 4);
}

/* The per-record bound: fields, __data_loc areas, NUL-ended strings. */
static void test_guard_record(void **state)
{
	struct tep_handle *tep = tep_alloc();
	struct tep_event *ev = parse(tep, HDR "print fmt: \"%d %s\", REC->a, __get_str(s)\n");
	struct pp_fmt_guard *g = pp_fmt_guard__new(ev);
	uint8_t d[64];
	struct pp_out o;

	(void)state;
	assert_non_null(g);
	assert_true(pp_fmt_guard__tep_ok(g));
	memset(d, 0, sizeof(d));
	d[8] = 42;
	memcpy(d + 24, "abc", 4);
	put_loc(d, 16, 24, 4);
	put_loc(d, 20, 28, 2);
	assert_true(pp_fmt_guard__record(g, d, 32));
	assert_false(pp_fmt_guard__record(g, d, 20));	/* fields past the end */
	assert_false(pp_fmt_guard__record(g, d, 29));	/* buf's area past the end */
	put_loc(d, 16, 24, 3);				/* "abc" without its NUL */
	assert_false(pp_fmt_guard__record(g, d, 32));
	put_loc(d, 16, 0xffff, 0xffff);
	assert_false(pp_fmt_guard__record(g, d, 64));

	/* the fallback prints what it can and "?" for the rest */
	put_loc(d, 16, 24, 4);
	put_loc(d, 20, 60, 8);
	pp_out__init(&o, -1);
	pp_fmt_print_fields(&o, ev, d, 32);
	assert_int_equal(o.len, strlen("a=42 b=0 s=abc buf=?"));
	assert_memory_equal(o.buf, "a=42 b=0 s=abc buf=?", o.len);
	pp_out__exit(&o);
	free(g);
	tep_free(tep);
}

/*
 * printk_formats lines libtraceevent would read past: dropped, the rest
 * kept (a text of fewer than two characters: before its copy).
 */
static void test_printk_clean(void **state)
{
	const char *in = "0xffffffff8281972f : \"thaw_processes\"\n0x1 :\n0x : \"x\"\nzz\n"
			 "0x1 : \"\n0x1 : \"unterminated\n0x12345678901234567 : \"long\"\n"
			 "0x2 : \"a \\\"quoted\\\" one\"\n0x3 : \"\"\n0x4 : \"a\"\n0x5 : \"ab\"";
	size_t dropped;
	char *out = pp_fmt_printk_clean(in, &dropped);

	assert_non_null(out);
	assert_string_equal(out, "0xffffffff8281972f : \"thaw_processes\"\n"
			    "0x2 : \"a \\\"quoted\\\" one\"\n0x5 : \"ab\"\n");
	assert_int_equal(dropped, 8);
	/* what is kept, libtraceevent reads within bounds (the ASan run checks) */
	{
		struct tep_handle *tep = tep_alloc();

		assert_non_null(tep);
		assert_int_equal(tep_parse_printk_formats(tep, out), 0);
		tep_free(tep);
	}
	free(out);
	/* one kept line with no newline: the output is one byte longer than the input */
	out = pp_fmt_printk_clean("0x1 : \"ab\"", &dropped);
	assert_non_null(out);
	assert_string_equal(out, "0x1 : \"ab\"\n");
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_printk_clean),
		cmocka_unit_test(test_text_refused),
		cmocka_unit_test(test_text_after_cond_or_index),
		cmocka_unit_test(test_kernel_formats_pass),
		cmocka_unit_test(test_fields_outside_refused),
		cmocka_unit_test(test_guard_print_format),
		cmocka_unit_test(test_guard_record),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
