// SPDX-License-Identifier: MIT
/*
 * BPF output records decoded from stored BTF (replay/btf-print.c): a BTF
 * made by hand with libbpf's writer (ints of every size and sign, char
 * array, int array, enum, pointer, nested struct, typedef, bit fields) and
 * a record with known values must print exactly; short records, tiny output
 * buffers, garbage BTF and wrong type ids fail cleanly; the FORMATS item
 * round trip finds the decoder by event name.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <bpf/btf.h>

#include "pp/bpf.h"
#include "pp/meta.h"
#include "../replay/btf-print.h"

struct inner {
	uint16_t a;
	int8_t b;
};

/* The C twin of the hand-made BTF struct "rec" (64 bytes). */
struct rec {
	int32_t i;
	uint32_t u;
	int64_t big;
	int16_t s;
	char name[8];
	uint8_t pad1[2];
	uint32_t color;
	uint64_t p;
	int32_t arr[3];
	struct inner in;
	uint32_t t;
	uint32_t bits;			/* f1:3 at bit 0, f2:5 at bit 3 */
};
_Static_assert(sizeof(struct rec) == 64, "rec");

static uint32_t rec_id;

static struct btf *make_btf(void)
{
	struct btf *b = btf__new_empty();
	int t_int, t_uint, t_ll, t_short, t_char, t_u16, t_s8, t_enum, t_ptr, t_name, t_arr,
	    t_inner, t_u32, t_rec;

	assert_non_null(b);
	t_int = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	t_uint = btf__add_int(b, "unsigned int", 4, 0);
	t_ll = btf__add_int(b, "long long", 8, BTF_INT_SIGNED);
	t_short = btf__add_int(b, "short", 2, BTF_INT_SIGNED);
	t_char = btf__add_int(b, "char", 1, BTF_INT_CHAR | BTF_INT_SIGNED);
	t_u16 = btf__add_int(b, "unsigned short", 2, 0);
	t_s8 = btf__add_int(b, "signed char", 1, BTF_INT_SIGNED);
	t_enum = btf__add_enum(b, "color", 4);
	assert_true(t_enum > 0);
	assert_int_equal(btf__add_enum_value(b, "RED", 0), 0);
	assert_int_equal(btf__add_enum_value(b, "GREEN", 1), 0);
	assert_int_equal(btf__add_enum_value(b, "BLUE", 2), 0);
	t_ptr = btf__add_ptr(b, 0);
	t_name = btf__add_array(b, t_int, t_char, 8);
	t_arr = btf__add_array(b, t_int, t_int, 3);
	t_inner = btf__add_struct(b, "inner", 4);
	assert_int_equal(btf__add_field(b, "a", t_u16, 0, 0), 0);
	assert_int_equal(btf__add_field(b, "b", t_s8, 16, 0), 0);
	t_u32 = btf__add_typedef(b, "u32", t_uint);
	t_rec = btf__add_struct(b, "rec", 64);
	assert_true(t_rec > 0);
	assert_int_equal(btf__add_field(b, "i", t_int, 0, 0), 0);
	assert_int_equal(btf__add_field(b, "u", t_uint, 32, 0), 0);
	assert_int_equal(btf__add_field(b, "big", t_ll, 64, 0), 0);
	assert_int_equal(btf__add_field(b, "s", t_short, 128, 0), 0);
	assert_int_equal(btf__add_field(b, "name", t_name, 144, 0), 0);
	assert_int_equal(btf__add_field(b, "c", t_enum, 224, 0), 0);
	assert_int_equal(btf__add_field(b, "p", t_ptr, 256, 0), 0);
	assert_int_equal(btf__add_field(b, "arr", t_arr, 320, 0), 0);
	assert_int_equal(btf__add_field(b, "in", t_inner, 416, 0), 0);
	assert_int_equal(btf__add_field(b, "t", t_u32, 448, 0), 0);
	assert_int_equal(btf__add_field(b, "f1", t_uint, 480, 3), 0);
	assert_int_equal(btf__add_field(b, "f2", t_uint, 483, 5), 0);
	rec_id = (uint32_t)t_rec;
	return b;
}

static void fill(struct rec *r)
{
	memset(r, 0, sizeof(*r));
	r->i = -5;
	r->u = 4000000000u;
	r->big = -1234567890123LL;
	r->s = -2;
	memcpy(r->name, "abc", 4);
	r->color = 1;
	r->p = 0xdeadbeef;
	r->arr[0] = 1;
	r->arr[1] = -2;
	r->arr[2] = 3;
	r->in.a = 65535;
	r->in.b = -1;
	r->t = 7;
	r->bits = 5 | 17 << 3;
}

static const char expect[] = "i=-5 u=4000000000 big=-1234567890123 s=-2 name=abc c=GREEN "
			     "p=0xdeadbeef arr=[1,-2,3] in={a=65535 b=-1} t=7 f1=5 f2=17";

static void test_print(void **state)
{
	struct btf *b = make_btf();
	uint32_t sz;
	const void *raw = btf__raw_data(b, &sz);
	struct pp_btf_fmt *f;
	struct rec r;
	uint8_t padded[72];
	char out[256], err[128], tiny[8];
	int n;

	(void)state;
	assert_non_null(raw);
	f = pp_btf_fmt__new(raw, sz, rec_id, err, sizeof(err));
	if (!f)
		print_message("%s\n", err);
	assert_non_null(f);
	btf__free(b);			/* the decoder keeps its own copy */
	assert_int_equal(pp_btf_fmt__record_size(f), 64);
	assert_string_equal(pp_btf_fmt__type_name(f), "struct rec");
	fill(&r);
	n = pp_btf_fmt__print(f, &r, sizeof(r), out, sizeof(out));
	assert_string_equal(out, expect);
	assert_int_equal(n, (int)strlen(expect));
	/* perf pads raw data: extra bytes after the struct are ignored */
	memset(padded, 0xff, sizeof(padded));
	memcpy(padded, &r, sizeof(r));
	assert_int_equal(pp_btf_fmt__print(f, padded, sizeof(padded), out, sizeof(out)), n);
	assert_string_equal(out, expect);
	/* an unterminated char array stops at its bound; escapes */
	memcpy(r.name, "ab\ncdefg", 8);
	pp_btf_fmt__print(f, &r, sizeof(r), out, sizeof(out));
	assert_non_null(strstr(out, " name=ab\\x0acdefg c=GREEN "));
	/* an enum value without a name prints as a number */
	r.color = 9;
	pp_btf_fmt__print(f, &r, sizeof(r), out, sizeof(out));
	assert_non_null(strstr(out, " c=9 "));
	/* short record: the fields that fit, then '?', and -EINVAL */
	fill(&r);
	assert_int_equal(pp_btf_fmt__print(f, &r, 20, out, sizeof(out)), -EINVAL);
	assert_true(!strncmp(out, "i=-5 u=4000000000 big=-1234567890123 s=-2 name=? c=? p=?", 56));
	assert_int_equal(pp_btf_fmt__print(f, &r, 0, out, sizeof(out)), -EINVAL);
	/* tiny output buffer: truncated, terminated, full length returned */
	assert_int_equal(pp_btf_fmt__print(f, &r, sizeof(r), tiny, sizeof(tiny)), n);
	assert_string_equal(tiny, "i=-5 u=");
	pp_btf_fmt__free(f);
}

static void test_bad_input(void **state)
{
	struct btf *b = make_btf();
	uint32_t sz;
	const uint8_t *raw = btf__raw_data(b, &sz);
	uint8_t junk[256], copy[4096];
	char err[128];

	(void)state;
	memset(junk, 0x5a, sizeof(junk));
	assert_null(pp_btf_fmt__new(junk, sizeof(junk), 1, err, sizeof(err)));
	print_message("garbage: %s\n", err);
	assert_null(pp_btf_fmt__new(raw, 10, rec_id, err, sizeof(err)));
	assert_null(pp_btf_fmt__new(raw, sz, 1, err, sizeof(err)));	/* "int": not a struct */
	print_message("int: %s\n", err);
	assert_null(pp_btf_fmt__new(raw, sz, 9999, err, sizeof(err)));
	/* every truncation and every single-byte flip: a clean error or a decoder that prints */
	assert_true(sz <= sizeof(copy));
	for (uint32_t cut = 0; cut < sz; cut++)
		pp_btf_fmt__free(pp_btf_fmt__new(raw, cut, rec_id, err, sizeof(err)));
	for (uint32_t at = 0; at < sz; at++) {
		struct pp_btf_fmt *f;
		struct rec r;
		char out[512];

		memcpy(copy, raw, sz);
		copy[at] ^= 0xa5;
		f = pp_btf_fmt__new(copy, sz, rec_id, err, sizeof(err));
		if (!f)
			continue;
		fill(&r);
		pp_btf_fmt__print(f, &r, sizeof(r), out, sizeof(out));
		pp_btf_fmt__print(f, &r, 7, out, sizeof(out));
		pp_btf_fmt__free(f);
	}
	btf__free(b);
}

/* Fan-out: 64 x 64 structs of 1000 members each print a bounded prefix. */
static void test_fan_out(void **state)
{
	struct btf *b = btf__new_empty();
	int t_int, t_w, t_a1, t_a2, t_rec;
	size_t rsz = 64 * 64 * 4000;
	uint8_t *rec = calloc(1, rsz);
	char name[16], err[128], *out = malloc(1 << 20);
	const void *raw;
	struct pp_btf_fmt *f;
	uint32_t sz;
	int n;

	(void)state;
	assert_non_null(b);
	assert_non_null(rec);
	assert_non_null(out);
	t_int = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	t_w = btf__add_struct(b, "w", 4000);
	for (int i = 0; i < 1000; i++) {
		snprintf(name, sizeof(name), "m%d", i);
		assert_int_equal(btf__add_field(b, name, t_int, (uint32_t)i * 32, 0), 0);
	}
	t_a1 = btf__add_array(b, t_int, t_w, 64);
	t_a2 = btf__add_array(b, t_int, t_a1, 64);
	t_rec = btf__add_struct(b, "rec", (uint32_t)rsz);
	assert_int_equal(btf__add_field(b, "a", t_a2, 0, 0), 0);
	raw = btf__raw_data(b, &sz);
	f = pp_btf_fmt__new(raw, sz, (uint32_t)t_rec, err, sizeof(err));
	assert_non_null(f);
	/* 4M values unbounded (24 MB of text); a few thousand with the cap */
	n = pp_btf_fmt__print(f, rec, rsz, out, 1 << 20);
	assert_true(n > 0 && n < 100000);
	assert_non_null(strstr(out, "..."));
	pp_btf_fmt__free(f);
	btf__free(b);
	free(rec);
	free(out);
}

static void test_format_item(void **state)
{
	struct btf *b = make_btf();
	uint32_t sz, v[2];
	const void *raw = btf__raw_data(b, &sz);
	struct pp_btf_fmts set = { 0 };
	struct pp_item_iter it;
	struct pp_item item;
	struct pp_buf p;
	struct rec r;
	char out[256], err[128];
	size_t at;
	int n = 0;

	(void)state;
	pp_buf__init(&p);
	at = pp_item__begin(&p, PP_FMT_EVENT);	/* another kind: ignored */
	pp_buf__append_str(&p, "sched");
	pp_buf__append_str(&p, "sched_switch");
	pp_buf__append_str(&p, "format text");
	pp_item__end(&p, at);
	at = pp_item__begin(&p, PP_FMT_BTF);
	pp_buf__append_str(&p, PP_BPF_OUTPUT_SYSTEM);
	pp_buf__append_str(&p, "test");
	pp_buf__append_str(&p, "struct rec");
	pp_buf__pad(&p, 8);
	v[0] = rec_id;
	v[1] = sz;
	pp_buf__append(&p, v, sizeof(v));
	pp_buf__append(&p, raw, sz);
	pp_item__end(&p, at);
	at = pp_item__begin(&p, PP_FMT_BTF);	/* malformed: btf_size past the item */
	pp_buf__append_str(&p, PP_BPF_OUTPUT_SYSTEM);
	pp_buf__append_str(&p, "bad");
	pp_buf__append_str(&p, "struct rec");
	pp_buf__pad(&p, 8);
	v[1] = 1u << 30;
	pp_buf__append(&p, v, sizeof(v));
	pp_item__end(&p, at);
	assert_int_equal(p.error, 0);
	pp_item_iter__init(&it, p.data, p.len);
	while (pp_item_iter__next(&it, &item)) {
		int ret = pp_btf_fmts__add_item(&set, &item, err, sizeof(err));

		if (n++ == 2)
			assert_int_equal(ret, -EINVAL);
		else
			assert_int_equal(ret, 0);
	}
	assert_int_equal(n, 3);
	assert_int_equal(set.nr, 1);
	assert_null(pp_btf_fmts__find(&set, "bpf-output:bad"));
	assert_null(pp_btf_fmts__find(&set, "sched:sched_switch"));
	assert_non_null(pp_btf_fmts__find(&set, "bpf-output:test"));
	fill(&r);
	pp_btf_fmt__print(pp_btf_fmts__find(&set, "bpf-output:test"), &r, sizeof(r), out,
			  sizeof(out));
	assert_string_equal(out, expect);
	pp_btf_fmts__exit(&set);
	pp_buf__exit(&p);
	btf__free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_print),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_format_item),
		cmocka_unit_test(test_fan_out),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
