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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blk_op),
		cmocka_unit_test(test_blk_dev_name),
		cmocka_unit_test(test_kvm_reasons),
		cmocka_unit_test(test_kvm_mmu_role),
		cmocka_unit_test(test_burst),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
