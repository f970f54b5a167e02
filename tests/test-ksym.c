// SPDX-License-Identifier: MIT
/*
 * Kernel symbols one by one (record/ksym.c, bpf/ksym.bpf.c): the "%pS"
 * parser on crafted texts, then the BPF resolver against /proc/kallsyms on
 * every 500th kernel text symbol: the same start address, a name found at
 * that address, and a size that ends at or before the next symbol.
 * The resolver part skips (with the reason) where BPF is unavailable.
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

#include "../record/record.h"

static void check(const char *text, uint64_t addr, int ret, uint64_t start, uint32_t size,
		  const char *name, const char *module)
{
	struct pp_ksym_text t;

	assert_int_equal(pp_ksym_parse(text, addr, &t), ret);
	if (ret)
		return;
	assert_true(t.start == start);
	assert_int_equal(t.size, size);
	assert_int_equal(t.name_len, strlen(name));
	assert_memory_equal(t.name, name, t.name_len);
	assert_int_equal(t.module_len, strlen(module));
	if (t.module_len)
		assert_memory_equal(t.module, module, t.module_len);
}

static void test_parse(void **state)
{
	check("schedule+0x2f/0xa0", 0x102f, 0, 0x1000, 0xa0, "schedule", "");
	check("schedule+0x0/0xa0", 0x1000, 0, 0x1000, 0xa0, "schedule", "");
	check("ext4_map_blocks+0x10/0x400 [ext4]", 0x2010, 0, 0x2000, 0x400, "ext4_map_blocks",
	      "ext4");
	check("foo.cold+0x3/0x9 [mod 0123456789abcdef]", 0x13, 0, 0x10, 9, "foo.cold", "mod");
	check("a+b+0x1/0x2", 0x11, 0, 0x10, 2, "a+b", "");
	check("bpf_prog_6deef7357e7b4530_pp_offcpu_switch+0x56/0x1a0 [bpf]", 0x156, 0, 0x100,
	      0x1a0, "bpf_prog_6deef7357e7b4530_pp_offcpu_switch", "bpf");
	/* no symbol: the kernel prints the bare address */
	check("0xffffffffc0001234", 0xffffffffc0001234ull, -ENOENT, 0, 0, "", "");
	check("", 1, -ENOENT, 0, 0, "", "");
	check("x+0x10/0x20", 0x8, -ENOENT, 0, 0, "", "");	/* offset beyond addr */
	check("x+0xzz/0x20", 0x100, -ENOENT, 0, 0, "", "");
}

struct ks {
	uint64_t addr;
	char name[256];
};

static void test_bpf_vs_kallsyms(void **state)
{
	struct pp_ksym_bpf *k = pp_ksym_bpf__new();
	struct ks *v = NULL;
	size_t n = 0, cap = 0, checked = 0;
	char line[512];
	FILE *f;

	if (!k) {
		print_message("skip: BPF symbol program unavailable: %s\n", strerror(errno));
		skip();
	}
	f = fopen("/proc/kallsyms", "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a;
		char type, name[256];

		if (sscanf(line, "%llx %c %255s", &a, &type, name) != 3 || !a ||
		    (type != 't' && type != 'T'))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 4096;
			v = realloc(v, cap * sizeof(*v));
			assert_non_null(v);
		}
		v[n].addr = a;
		snprintf(v[n].name, sizeof(v[n].name), "%s", name);
		n++;
	}
	fclose(f);
	if (n < 1000) {
		free(v);
		pp_ksym_bpf__free(k);
		print_message("skip: /proc/kallsyms shows no addresses\n");
		skip();
	}
	for (size_t i = 0; i + 1 < n; i += 500) {
		uint64_t a = v[i].addr;
		struct pp_ksym_text t;
		char text[640];
		int named = 0;

		/* the first symbol of a run of aliases, and the address after it */
		while (i + 1 < n && v[i + 1].addr == a)
			i++;
		if (i + 1 >= n || v[i + 1].addr < a)
			continue;		/* not in address order here */
		assert_int_equal(pp_ksym_bpf__lookup(k, a + 1, text, sizeof(text)), 0);
		assert_int_equal(pp_ksym_parse(text, a + 1, &t), 0);
		assert_true(t.start == a);
		assert_true(t.size > 0 && a + t.size <= v[i + 1].addr);
		for (size_t j = i; j < n && v[j].addr == a && !named; j--) {
			named = strlen(v[j].name) == t.name_len &&
				!strncmp(v[j].name, t.name, t.name_len);
			if (!j)
				break;
		}
		if (!named)
			fail_msg("%s: no symbol of that name at %#llx", text, (unsigned long long)a);
		checked++;
	}
	assert_true(checked > 100);
	free(v);
	pp_ksym_bpf__free(k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_bpf_vs_kallsyms),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
