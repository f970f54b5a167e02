// SPDX-License-Identifier: (MIT OR GPL-2.0)
/*
 * Kernel symbol of one address, on demand: user space writes `addr`, runs
 * this program with BPF_PROG_TEST_RUN and reads `text`, the kernel's own
 * "%pS" rendering ("name+0xoff/0xsize [module]"). This gives the recorder
 * the few kernel symbols that samples hit without reading all of
 * /proc/kallsyms (120k lines that the kernel formats one by one).
 */
#include "vmlinux-min.h"
#include <bpf/bpf_helpers.h>
#include "ksym.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

__u64 addr;
char text[PP_KSYM_TEXT_LEN];
long ret;

SEC("syscall")
int pp_ksym(void *ctx)
{
	static const char fmt[] = "%pS";
	__u64 arg = addr;

	ret = bpf_snprintf(text, sizeof(text), fmt, &arg, sizeof(arg));
	return 0;
}
