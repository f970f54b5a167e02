/* SPDX-License-Identifier: MIT */
/* kvmmmu's role decoding, exposed for unit tests (tests/test-catalog.c). */
#ifndef PP_ANALYZERS_KVMMMU_H
#define PP_ANALYZERS_KVMMMU_H

#include <stddef.h>
#include <stdint.h>

/**
 * pp_kvm_mmu_role() - "L1 direct wux", "L4 shadow --x nested smm": the
 * fields of an x86 union kvm_mmu_page_role word that kvmmmu counts by
 * (level bits 0-3, direct bit 7, access bits 8-10, guest_mode bit 17,
 * smm bits 24-31). Return: @buf.
 */
char *pp_kvm_mmu_role(uint32_t word, char *buf, size_t len);

#endif /* PP_ANALYZERS_KVMMMU_H */
