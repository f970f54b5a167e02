// SPDX-License-Identifier: MIT
/*
 * --call-graph=dwarf on the recorder's side: the mode's spellings, and the
 * in-place rewrite of a sample carrying user registers and stack into one
 * with a plain callchain (kernel part kept, RAW and the sample_id trailer
 * kept, registers and stack dropped, never larger), next to records left
 * as they were (the unwinding itself: tests/e2e/record-callgraph-dwarf.sh).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <cmocka.h>

#include "pp/meta.h"
#include "pp/sample.h"
#include "../record/record.h"

static void test_mode(void **state)
{
	char err[128];
	uint32_t st = 1;
	int mode = -1;

	assert_int_equal(pp_call_graph_mode("fp", &mode, &st, err, sizeof(err)), 0);
	assert_int_equal(st, 0);
	assert_int_equal(mode, PP_CG_FP);
	assert_int_equal(pp_call_graph_mode("bpf", &mode, &st, err, sizeof(err)), 0);
	assert_int_equal(st, 0);
	assert_int_equal(mode, PP_CG_BPF);
	assert_int_equal(pp_call_graph_mode("dwarf", &mode, &st, err, sizeof(err)), 0);
	assert_int_equal(st, 8192);
	assert_int_equal(mode, PP_CG_DWARF);
	assert_int_equal(pp_call_graph_mode("dwarf,1001", NULL, &st, err, sizeof(err)), 0);
	assert_int_equal(st, 1008);	/* rounded up to 8 */
	assert_int_equal(pp_call_graph_mode("dwarf,65528", NULL, &st, NULL, 0), 0);
	static const char *const bad[] = { "dwarf,0", "dwarf,", "dwarf,65529", "dwarf,-8", "dwarf,8k",
					   "dwarfs", "lbr", "", "fp,1", "bpf,1" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		assert_int_equal(pp_call_graph_mode(bad[i], &mode, &st, err, sizeof(err)), -EINVAL);
		assert_true(strstr(err, "call-graph") != NULL);
	}
	(void)state;
}

#define ST	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
		 PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | PERF_SAMPLE_REGS_USER | \
		 PERF_SAMPLE_STACK_USER)
#define NREGS	17
#define STACK	256

static uint64_t type_of(uint64_t id, void *ctx)
{
	return id == 42 ? ST : id == 7 ? (ST & ~(PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)) : 0;
}

static void put(uint8_t *b, size_t *at, const void *p, size_t n)
{
	memcpy(b + *at, p, n);
	*at += n;
}

/* A sample of id 42: two kernel frames, RAW of 12 bytes, registers, 256 bytes of stack. */
static size_t make_sample(uint8_t *b, uint64_t ip)
{
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .misc = PERF_RECORD_MISC_USER };
	uint64_t id = 42, pt = 7ull << 32 | 7, time = 1000, nr = 3;
	uint64_t cc[3] = { (uint64_t)PERF_CONTEXT_KERNEL, 0xffffffff81000010ull, 0xffffffff81000020ull };
	uint32_t raw = 12;
	uint8_t rawb[12] = "rawpayload!";
	uint64_t abi = PERF_SAMPLE_REGS_ABI_64, regs[NREGS] = { 0 }, ss = STACK, dyn = STACK;
	uint8_t stack[STACK];
	size_t at = 8;

	regs[7] = 0x7ffc00001000ull;	/* SP */
	regs[8] = ip;			/* IP */
	memset(stack, 0, sizeof(stack));
	put(b, &at, &id, 8);
	put(b, &at, &ip, 8);
	put(b, &at, &pt, 8);
	put(b, &at, &time, 8);
	put(b, &at, &nr, 8);
	put(b, &at, cc, sizeof(cc));
	put(b, &at, &raw, 4);
	put(b, &at, rawb, 12);
	put(b, &at, &abi, 8);
	put(b, &at, regs, sizeof(regs));
	put(b, &at, &ss, 8);
	put(b, &at, stack, sizeof(stack));
	put(b, &at, &dyn, 8);
	h.size = (uint16_t)at;
	memcpy(b, &h, 8);
	return at;
}

static void test_rewrite(void **state)
{
	struct pp_syms *s = pp_syms__new(0);
	struct pp_unwind *u = pp_unwind__new();
	uint8_t buf[4096];
	size_t len = 0, one, len0;
	struct pp_rec_iter it;
	struct pp_rec r;
	int n = 0;

	assert_non_null(s);
	assert_non_null(u);
	one = make_sample(buf, 0x401000);	/* no map holds it: the IP alone */
	len += one;
	{	/* a COMM record between: left as it is */
		struct perf_event_header h = { .type = PERF_RECORD_COMM, .size = 32 };

		memcpy(buf + len, &h, 8);
		memcpy(buf + len + 8, "\x07\0\0\0\x07\0\0\0comm\0\0\0\0\0\0\0\0\0\0\0", 24);
		len += 32;
	}
	len += make_sample(buf + len, 0x402000);
	len0 = len;
	pp_syms__scan_unwind(s, u, buf, &len, type_of, NULL);
	assert_true(len < len0);
	pp_rec_iter__init(&it, buf, len);
	while (pp_rec_iter__next(&it, &r)) {
		struct pp_sample smp;
		uint64_t st = pp_syms_dwarf_sample_type(ST);

		if (r.type == PERF_RECORD_COMM) {
			assert_int_equal(r.size, 32);
			assert_memory_equal(r.data + 16, "comm", 5);
			continue;
		}
		assert_int_equal(r.type, PERF_RECORD_SAMPLE);
		assert_int_equal(pp_sample__parse(st, r.data, r.size, &smp), 0);
		assert_int_equal(smp.size, r.size);
		assert_true(r.size < one);
		assert_int_equal(smp.pid, 7);
		assert_int_equal(smp.time, 1000);
		assert_int_equal(smp.nr_callchain, 5);
		assert_true(smp.callchain[0] == (uint64_t)PERF_CONTEXT_KERNEL);
		assert_true(smp.callchain[2] == 0xffffffff81000020ull);
		assert_true(smp.callchain[3] == (uint64_t)PERF_CONTEXT_USER);
		assert_true(smp.callchain[4] == (n ? 0x402000 : 0x401000));
		assert_int_equal(smp.raw_size, 12);
		assert_memory_equal(smp.raw, "rawpayload!", 12);
		n++;
	}
	assert_int_equal(n, 2);
	assert_true(pp_syms_dwarf_sample_type(ST) == (ST & ~(PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)));
	assert_true(pp_syms_dwarf_sample_type(PERF_SAMPLE_IP) == PERF_SAMPLE_IP);
	pp_unwind__free(u);
	pp_syms__free(s);
}

/* A truncated sample (its stack cut short): left as it is, never read past. */
static void test_rewrite_short(void **state)
{
	struct pp_syms *s = pp_syms__new(0);
	struct pp_unwind *u = pp_unwind__new();
	uint8_t buf[4096], copy[4096];
	size_t len = make_sample(buf, 0x401000);
	uint16_t cut = (uint16_t)(len - 200);

	memcpy(buf + 6, &cut, 2);	/* the header says less than the fields need */
	len = cut;
	memcpy(copy, buf, len);
	pp_syms__scan_unwind(s, u, buf, &len, type_of, NULL);
	assert_int_equal(len, cut);
	assert_memory_equal(buf, copy, len);
	pp_unwind__free(u);
	pp_syms__free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mode),
		cmocka_unit_test(test_rewrite),
		cmocka_unit_test(test_rewrite_short),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
