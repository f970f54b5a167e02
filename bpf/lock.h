/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * Shared by bpf/lock.bpf.c and record/bpf-lock.c: futex wait aggregation
 * key and value (the kernel-user interface, not the on-disk record).
 */
#ifndef PP_BPF_LOCK_H
#define PP_BPF_LOCK_H

#include "stack.h"

#define PP_LOCK_MAX_DEPTH	PP_STACK_DEPTH
#define PP_LOCK_MAX_STACKS	4096	/* distinct user stacks of a run */
#define PP_LOCK_MAX_KEYS	16384
#define PP_LOCK_MAX_TASKS	16384

struct pp_lock_cfg {
	unsigned int follow;		/* 1: the processes in `procs`; 0: every one */
	unsigned int futex_nr;		/* futex(2) syscall number of this arch */
	unsigned int exclude_tgid;	/* the recorder itself, when follow is 0 */
	unsigned int pad;
	unsigned long long min_ns;
};

/* Per waiting thread, from entering futex(2) to leaving it. */
struct pp_lock_start {
	unsigned long long ts;
	unsigned long long uaddr;
	unsigned long long ustack;	/* stack names (struct pp_stack), 0 none */
	unsigned long long waker_ustack;	/* the waker's at the wake-up */
	unsigned int tgid;
	unsigned int waker_tid;		/* the thread whose futex wake woke it, 0 unknown */
	char waker_comm[16];
};

/* A wait is aggregated per waiter and per waker (tid and stack). */
struct pp_lock_key {
	unsigned long long uaddr;
	unsigned long long ustack, waker_ustack;
	unsigned int tgid, pid;
	unsigned int gen;
	unsigned int waker_tid;
};

struct pp_lock_val {
	unsigned long long total_ns;
	unsigned long long count;
	unsigned long long max_ns;
	char comm[16];
	char waker_comm[16];
};

#endif /* PP_BPF_LOCK_H */
