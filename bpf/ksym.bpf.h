/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * Kernel symbol of one address, on demand: user space writes `ksym_addr`,
 * runs pp_ksym with BPF_PROG_TEST_RUN and reads `ksym_text`, the kernel's
 * own "%pS" rendering ("name+0xoff/0xsize [module]"). This gives the
 * recorder the few kernel symbols that samples hit without reading all of
 * /proc/kallsyms (120k lines that the kernel formats one by one).
 *
 * Alone in bpf/ksym.bpf.c, and part of the aggregators' objects (offcpu,
 * lock), which need it at their first drain: loading a second object cost
 * its own feature probes, BTF and maps.
 */
#ifndef PP_KSYM_BPF_H
#define PP_KSYM_BPF_H

#include "ksym.h"

__u64 ksym_addr;
char ksym_text[PP_KSYM_TEXT_LEN];
long ksym_ret;

SEC("syscall")
int pp_ksym(void *ctx)
{
	static const char fmt[] = "%pS";
	__u64 arg = ksym_addr;

	ksym_ret = bpf_snprintf(ksym_text, sizeof(ksym_text), fmt, &arg, sizeof(arg));
	return 0;
}

#endif /* PP_KSYM_BPF_H */
