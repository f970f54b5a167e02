// SPDX-License-Identifier: MIT
/*
 * Unit tests for the decoding and arithmetic of the catalog profilers:
 * blktrace's operations and device names, kvm-exit's reason names (VMX,
 * SVM, KVM_EXIT_*), kvmmmu's page roles, hrtimer's burst window.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "../analyzers/blktrace.h"
#include "../analyzers/hrtimer.h"
#include "../analyzers/kvm-exit.h"
#include "../analyzers/kvmmmu.h"
#include "../analyzers/pmu.h"
#include <linux/perf_event.h>

static void test_blk_op(void **state)
{
	(void)state;
	assert_int_equal(pp_blk_op("W"), PP_BLK_WRITE);
	assert_int_equal(pp_blk_op("WS"), PP_BLK_WRITE);
	assert_int_equal(pp_blk_op("FWS"), PP_BLK_WRITE);	/* preflush + write */
	assert_int_equal(pp_blk_op("WFS"), PP_BLK_WRITE);	/* write + FUA */
	assert_int_equal(pp_blk_op("R"), PP_BLK_READ);
	assert_int_equal(pp_blk_op("RA"), PP_BLK_READ);
	assert_int_equal(pp_blk_op("F"), PP_BLK_FLUSH);
	assert_int_equal(pp_blk_op("FF"), PP_BLK_FLUSH);
	assert_int_equal(pp_blk_op("FN"), PP_BLK_OTHER);
	assert_int_equal(pp_blk_op("D"), PP_BLK_DISCARD);
	assert_int_equal(pp_blk_op("DE"), PP_BLK_SECURE_ERASE);
	assert_int_equal(pp_blk_op("Z"), PP_BLK_WRITE_ZEROES);
	assert_int_equal(pp_blk_op("N"), PP_BLK_OTHER);
	assert_int_equal(pp_blk_op(""), PP_BLK_OTHER);
	assert_string_equal(pp_blk_op_names[PP_BLK_WRITE], "write");
	assert_string_equal(pp_blk_op_names[PP_BLK_DISCARD], "discard");
}

static void test_blk_dev_name(void **state)
{
	const char *list = "7:0=loop0,8:0=sda,8:1=sda1,254:0=vda,7:10=loop10";
	char buf[32];

	(void)state;
	assert_string_equal(pp_blk_dev_name(list, 7, 0, buf, sizeof(buf)), "loop0");
	assert_string_equal(pp_blk_dev_name(list, 8, 1, buf, sizeof(buf)), "sda1");
	assert_string_equal(pp_blk_dev_name(list, 7, 10, buf, sizeof(buf)), "loop10");
	assert_string_equal(pp_blk_dev_name(list, 254, 0, buf, sizeof(buf)), "vda");
	assert_null(pp_blk_dev_name(list, 7, 1, buf, sizeof(buf)));	/* 7:1 is not 7:10 */
	assert_null(pp_blk_dev_name(list, 54, 0, buf, sizeof(buf)));	/* 54:0 is not 254:0 */
	assert_null(pp_blk_dev_name(NULL, 7, 0, buf, sizeof(buf)));
	assert_null(pp_blk_dev_name("7:0=", 7, 0, buf, sizeof(buf)));
	assert_null(pp_blk_dev_name(list, 8, 0, buf, 3));		/* does not fit */
}

static void test_kvm_reasons(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(pp_kvm_exit_reason(PP_KVM_ISA_VMX, 30, b, sizeof(b)), "IO_INSTRUCTION");
	assert_string_equal(pp_kvm_exit_reason(PP_KVM_ISA_VMX, 48, b, sizeof(b)), "EPT_VIOLATION");
	assert_string_equal(pp_kvm_exit_reason(PP_KVM_ISA_VMX, 12, b, sizeof(b)), "HLT");
	/* bit 31 (entry failure) and others above the basic reason are masked */
	assert_string_equal(pp_kvm_exit_reason(PP_KVM_ISA_VMX, 0x80000021u, b, sizeof(b)), "INVALID_STATE");
	assert_string_equal(pp_kvm_exit_reason(PP_KVM_ISA_VMX, 35, b, sizeof(b)), "VMX_35");
	assert_string_equal(pp_kvm_exit_reason(PP_KVM_ISA_VMX, 999, b, sizeof(b)), "VMX_999");
	assert_string_equal(pp_kvm_exit_reason(PP_KVM_ISA_SVM, 0x07b, b, sizeof(b)), "IOIO");
	assert_string_equal(pp_kvm_exit_reason(PP_KVM_ISA_SVM, 0x400, b, sizeof(b)), "NPF");
	assert_string_equal(pp_kvm_exit_reason(PP_KVM_ISA_SVM, 0x078, b, sizeof(b)), "HLT");
	assert_string_equal(pp_kvm_exit_reason(PP_KVM_ISA_SVM, 0x000, b, sizeof(b)), "READ_CR0");
	assert_string_equal(pp_kvm_exit_reason(PP_KVM_ISA_SVM, 0x014, b, sizeof(b)), "WRITE_CR4");
	assert_string_equal(pp_kvm_exit_reason(PP_KVM_ISA_SVM, 0x027, b, sizeof(b)), "READ_DR7");
	assert_string_equal(pp_kvm_exit_reason(PP_KVM_ISA_SVM, 0x04e, b, sizeof(b)), "EXCP_PF");
	assert_string_equal(pp_kvm_exit_reason(PP_KVM_ISA_SVM, 0x049, b, sizeof(b)), "EXCP_9");
	assert_string_equal(pp_kvm_exit_reason(PP_KVM_ISA_SVM, 0x093, b, sizeof(b)), "CR3_WRITE_TRAP");
	assert_string_equal(pp_kvm_exit_reason(PP_KVM_ISA_SVM, 0xffffffffu, b, sizeof(b)), "INVALID");
	assert_string_equal(pp_kvm_exit_reason(PP_KVM_ISA_SVM, 0x500, b, sizeof(b)), "SVM_0x500");
	assert_string_equal(pp_kvm_exit_reason(7, 1, b, sizeof(b)), "ISA7_1");
	assert_string_equal(pp_kvm_user_reason(2, 0, b, sizeof(b)), "IO");
	assert_string_equal(pp_kvm_user_reason(6, 0, b, sizeof(b)), "MMIO");
	assert_string_equal(pp_kvm_user_reason(5, 0, b, sizeof(b)), "HLT");
	assert_string_equal(pp_kvm_user_reason(2, -EINTR, b, sizeof(b)), "restart");
	assert_string_equal(pp_kvm_user_reason(2, -EFAULT, b, sizeof(b)), "error");
	assert_string_equal(pp_kvm_user_reason(500, 0, b, sizeof(b)), "EXIT_500");
}

static void test_kvm_mmu_role(void **state)
{
	char b[64];

	(void)state;
	/* level 1, direct (bit 7), access wux (7 << 8) */
	assert_string_equal(pp_kvm_mmu_role(1 | 1u << 7 | 7u << 8, b, sizeof(b)), "L1 direct wux");
	/* level 4, shadow, access --x, guest mode, smm */
	assert_string_equal(pp_kvm_mmu_role(4 | 1u << 8 | 1u << 17 | 1u << 24, b, sizeof(b)),
			    "L4 shadow --x nested smm");
	/* other bits (quadrant, efer_nx, cr0_wp, ad_disabled) do not show */
	assert_string_equal(pp_kvm_mmu_role(2 | 3u << 5 | 1u << 12 | 1u << 13 | 1u << 16, b, sizeof(b)),
			    "L2 shadow ---");
}

static void test_burst(void **state)
{
	struct pp_burst b;

	(void)state;
	assert_int_equal(pp_burst__init(&b, 0), -EINVAL);
	assert_int_equal(pp_burst__init(&b, PP_BURST_MAX + 1), -EINVAL);
	assert_int_equal(pp_burst__init(&b, 3), 0);
	assert_false(pp_burst__hit(&b, 100, 50));
	pp_burst__add(&b, 10);
	pp_burst__add(&b, 20);
	assert_false(pp_burst__hit(&b, 30, 50));	/* 2 of 3 */
	assert_int_equal(pp_burst__count(&b, 30, 50), 2);
	pp_burst__add(&b, 40);
	assert_true(pp_burst__hit(&b, 40, 50));		/* 10, 20, 40 in (-10, 40] */
	assert_true(pp_burst__hit(&b, 59, 50));		/* (9, 59] */
	assert_false(pp_burst__hit(&b, 60, 50));	/* (10, 60]: 10 is out */
	assert_int_equal(pp_burst__count(&b, 60, 50), 2);
	pp_burst__add(&b, 70);				/* wraps: 20, 40, 70 */
	assert_true(pp_burst__hit(&b, 70, 51));
	assert_false(pp_burst__hit(&b, 70, 50));	/* (20, 70]: 20 is out */
	assert_int_equal(pp_burst__count(&b, 70, 50), 2);
	assert_int_equal(pp_burst__count(&b, 1000, 50), 0);
	/* an event after the tick is not counted for it */
	assert_int_equal(pp_burst__count(&b, 45, 50), 2);
	pp_burst__exit(&b);
	pp_burst__exit(&b);
}

/*
 * Counter values as a recording holds them: samples of cycles and
 * instructions at a frequency, each with the period since the previous one.
 */
static void test_pmu_counts(void **state)
{
	struct pp_evsel cyc = { .type = PERF_TYPE_HARDWARE, .config = PERF_COUNT_HW_CPU_CYCLES };
	struct pp_evsel ins = { .type = PERF_TYPE_HARDWARE, .config = PERF_COUNT_HW_INSTRUCTIONS };
	struct pp_evsel tlb = { .type = PERF_TYPE_HW_CACHE };
	struct pp_evsel tp = { .type = PERF_TYPE_TRACEPOINT };
	struct pp_evsel sw = { .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_CPU_CLOCK };
	static const uint64_t cyc_periods[] = { 1000, 2500000, 2600000, 2400000, 2500000 };
	static const uint64_t ins_periods[] = { 1000, 3000000, 3100000, 2900000, 3000000, 1000 };
	const char *names[3] = { "cycles", "instructions", "cache-misses" };
	uint64_t sums[3] = { 0, 0, 0 };
	struct pp_event e = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(cyc_periods) / sizeof(cyc_periods[0]); i++) {
		e.evsel = &cyc;
		e.period = cyc_periods[i];
		sums[0] += pp_pmu__weight(&e);
	}
	for (size_t i = 0; i < sizeof(ins_periods) / sizeof(ins_periods[0]); i++) {
		e.evsel = &ins;
		e.period = ins_periods[i];
		sums[1] += pp_pmu__weight(&e);
	}
	assert_int_equal(sums[0], 10001000);
	assert_int_equal(sums[1], 12002000);
	/* insn per cycle: 12002000 / 10001000 */
	assert_true(pp_pmu__metric(&pp_pmu_metrics[0], names, sums, 2) > 1.2000 - 1e-4);
	assert_true(pp_pmu__metric(&pp_pmu_metrics[0], names, sums, 2) < 1.2001);
	/* cache misses % needs cache-references, absent */
	assert_true(pp_pmu__metric(&pp_pmu_metrics[2], names, sums, 3) < 0);
	/* a zero denominator rates nothing */
	sums[0] = 0;
	assert_true(pp_pmu__metric(&pp_pmu_metrics[0], names, sums, 2) < 0);
	/* a sample of a counter without a period counts 1; others always 1 */
	e.evsel = &tlb;
	e.period = 0;
	assert_int_equal(pp_pmu__weight(&e), 1);
	e.period = 77;
	assert_int_equal(pp_pmu__weight(&e), 77);
	e.evsel = &tp;
	assert_int_equal(pp_pmu__weight(&e), 1);
	e.evsel = &sw;		/* cpu-clock's period is ns, not events */
	assert_int_equal(pp_pmu__weight(&e), 1);
	assert_true(pp_pmu__is_counter(&cyc) && pp_pmu__is_counter(&tlb));
	assert_false(pp_pmu__is_counter(&tp) || pp_pmu__is_counter(&sw) || pp_pmu__is_counter(NULL));
}

static void test_pmu_hit(void **state)
{
	(void)state;
	/* dTLB-loads 1000000, dTLB-load-misses 2500: 99.75% */
	assert_true(pp_pmu__hit_pct(1000000, 2500) > 99.7499 && pp_pmu__hit_pct(1000000, 2500) < 99.7501);
	assert_true(pp_pmu__hit_pct(400, 100) > 74.999 && pp_pmu__hit_pct(400, 100) < 75.001);
	assert_true(pp_pmu__hit_pct(100, 0) == 100);
	assert_true(pp_pmu__hit_pct(100, 150) == 0);	/* sampled misses above accesses */
	assert_true(pp_pmu__hit_pct(0, 5) < 0);		/* nothing to rate */
	assert_true(pp_pmu__ratio(1, 0) < 0);
	assert_true(pp_pmu__ratio(3, 4) == 0.75);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blk_op),
		cmocka_unit_test(test_blk_dev_name),
		cmocka_unit_test(test_kvm_reasons),
		cmocka_unit_test(test_kvm_mmu_role),
		cmocka_unit_test(test_burst),
		cmocka_unit_test(test_pmu_counts),
		cmocka_unit_test(test_pmu_hit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
