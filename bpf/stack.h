/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * Shared by the aggregators' BPF programs (bpf/stack.bpf.h) and user space:
 * a stack as stored in their `stacks` hash, named by a 64-bit hash of its
 * frames (0 = no stack).
 */
#ifndef PP_BPF_STACK_H
#define PP_BPF_STACK_H

#define PP_STACK_DEPTH	127	/* PERF_MAX_STACK_DEPTH */

/* The frames, innermost first, zero-padded. */
struct pp_stack {
	unsigned long long ips[PP_STACK_DEPTH];
};

#endif /* PP_BPF_STACK_H */
