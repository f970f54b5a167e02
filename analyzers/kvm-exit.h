/* SPDX-License-Identifier: MIT */
/* kvm-exit's reason names, exposed for unit tests (tests/test-catalog.c). */
#ifndef PP_ANALYZERS_KVM_EXIT_H
#define PP_ANALYZERS_KVM_EXIT_H

#include <stddef.h>
#include <stdint.h>

#define PP_KVM_ISA_VMX	1	/* kvm_exit's isa: Intel VMX */
#define PP_KVM_ISA_SVM	2	/* AMD SVM */

/**
 * pp_kvm_exit_reason() - the name of a hardware exit reason (kvm:kvm_exit's
 * exit_reason) for @isa: VMX basic exit reasons (the low 16 bits) or SVM
 * exit codes; "VMX_N" / "SVM_0xN" when unknown.
 * @buf, @len: storage for an unknown one. Return: the name.
 */
const char *pp_kvm_exit_reason(uint32_t isa, uint32_t reason, char *buf, size_t len);

/**
 * pp_kvm_user_reason() - the name of a KVM_EXIT_* reason of
 * kvm:kvm_userspace_exit ("IO", "MMIO", "HLT", ...); "restart" when @err is
 * -EINTR, "error" for another negative @err, "EXIT_N" when unknown.
 */
const char *pp_kvm_user_reason(uint32_t reason, int32_t err, char *buf, size_t len);

#endif /* PP_ANALYZERS_KVM_EXIT_H */
