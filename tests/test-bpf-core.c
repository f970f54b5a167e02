// SPDX-License-Identifier: MIT
/*
 * The minimal CO-RE BTF (record/bpf-core.c): built from this kernel's
 * /sys/kernel/btf/vmlinux, it must parse with libbpf and give every field
 * the offset libbpf finds in the full vmlinux BTF; damaged input (every
 * truncation of the header, random bytes) must fail cleanly, not crash.
 * Skips (with the reason) on a kernel without BTF.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <bpf/btf.h>

#include "pp/meta.h"
#include "pp/tracefs.h"
#include "../record/bpf-internal.h"

/* Bit offset of direct member @field of struct @name in @btf, or -1. */
static long member_off(const struct btf *btf, const char *name, const char *field, long *size)
{
	int id = btf__find_by_name_kind(btf, name, BTF_KIND_STRUCT);
	const struct btf_type *t;
	const struct btf_member *m;

	if (id < 0)
		return -1;
	t = btf__type_by_id(btf, id);
	*size = t->size;
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++)
		if (!strcmp(btf__name_by_offset(btf, m[i].name_off), field))
			return btf_member_bit_offset(t, i);
	return -1;
}

static void test_offsets_match_libbpf(void **state)
{
	static const char *const fields[][2] = {
		{ "task_struct", "flags" }, { "task_struct", "pid" }, { "task_struct", "tgid" },
		{ "task_struct", "comm" }, { "pt_regs", "di" }, { "pt_regs", "si" },
	};
	struct btf *full, *min;
	struct pp_buf out;
	size_t len;
	void *data = pp_file_read("/sys/kernel/btf/vmlinux", &len);

	if (!data) {
		print_message("skip: no /sys/kernel/btf/vmlinux (kernel without BTF)\n");
		skip();
	}
	pp_buf__init(&out);
	assert_int_equal(pp_bpf_min_btf(data, len, &out), 0);
	assert_true(out.len < 4096);
	full = btf__new(data, (uint32_t)len);
	min = btf__new(out.data, (uint32_t)out.len);
	assert_non_null(full);
	assert_non_null(min);
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		long fs = 0, ms = 0;
		long f = member_off(full, fields[i][0], fields[i][1], &fs);
		long m = member_off(min, fields[i][0], fields[i][1], &ms);

		if (f < 0)
			continue;	/* nested in an anonymous member: not comparable here */
		assert_int_equal(m, f);
		assert_int_equal(ms, fs);
	}
	btf__free(full);
	btf__free(min);
	pp_buf__exit(&out);
	free(data);
}

static void test_damaged_input(void **state)
{
	struct pp_buf out;
	uint8_t junk[4096];
	size_t len;
	uint8_t *data = (uint8_t *)pp_file_read("/sys/kernel/btf/vmlinux", &len);

	pp_buf__init(&out);
	srand(7);
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (uint8_t)rand();
	assert_int_equal(pp_bpf_min_btf(junk, sizeof(junk), &out), -EINVAL);
	assert_int_equal(pp_bpf_min_btf(junk, 0, &out), -EINVAL);
	if (!data) {
		print_message("skip: no /sys/kernel/btf/vmlinux (kernel without BTF)\n");
		skip();
	}
	for (size_t cut = 0; cut < 64; cut++)
		assert_int_not_equal(pp_bpf_min_btf(data, cut, &out), 0);
	/* the type section cut short */
	assert_int_not_equal(pp_bpf_min_btf(data, len / 2, &out), 0);
	/* a type of unknown kind in the first type */
	memcpy(junk, data, 64);
	junk[24 + 7] = 0x1f;
	assert_int_equal(pp_bpf_min_btf(junk, sizeof(junk), &out), -EINVAL);
	assert_int_equal(out.len, 0);
	pp_buf__exit(&out);
	free(data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_offsets_match_libbpf),
		cmocka_unit_test(test_damaged_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
