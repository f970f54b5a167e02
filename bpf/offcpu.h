/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * Shared by bpf/offcpu.bpf.c and record/bpf-offcpu.c: the aggregation key
 * and value of the off-CPU program and its configuration. This is the
 * kernel-user interface, not the on-disk record (struct pp_bpf_agg_stack).
 */
#ifndef PP_BPF_OFFCPU_H
#define PP_BPF_OFFCPU_H

#include "stack.h"

#define PP_OFFCPU_MAX_DEPTH	PP_STACK_DEPTH
#define PP_OFFCPU_MAX_STACKS	16384	/* distinct stacks held at once */
#define PP_OFFCPU_MAX_KEYS	16384
#define PP_OFFCPU_MAX_TASKS	16384

struct pp_offcpu_cfg {
	unsigned int follow;		/* 1: the processes in `procs`; 0: every one */
	unsigned int include_preempted;
	unsigned int kernel_threads;
	unsigned int kernel_stack;
	unsigned int user_stack;
	unsigned int exclude_tgid;	/* the recorder itself, when follow is 0 */
	unsigned long long min_ns;
};

/* Per sleeping thread, from switch-out to switch-in. */
struct pp_offcpu_start {
	unsigned long long ts;
	unsigned long long kstack, ustack;
	unsigned int tgid;
	unsigned int state;		/* 'S', 'D', 'R' */
};

struct pp_offcpu_key {
	unsigned long long kstack, ustack;
	unsigned int tgid, pid;
	unsigned int state;
	unsigned int gen;		/* drain generation: user space flips it */
};

struct pp_offcpu_val {
	unsigned long long total_ns;
	unsigned long long count;
	unsigned long long max_ns;
	char comm[16];
};

#endif /* PP_BPF_OFFCPU_H */
