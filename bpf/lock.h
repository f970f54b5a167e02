/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * Shared by bpf/lock.bpf.c and record/bpf-lock.c: futex wait aggregation
 * key and value (the kernel-user interface, not the on-disk record).
 */
#ifndef PP_BPF_LOCK_H
#define PP_BPF_LOCK_H

#define PP_LOCK_MAX_DEPTH	127
#define PP_LOCK_MAX_STACKS	4096
#define PP_LOCK_MAX_KEYS	16384
#define PP_LOCK_MAX_TASKS	16384

struct pp_lock_cfg {
	unsigned int tgid;		/* 0 = every process */
	unsigned int futex_nr;		/* futex(2) syscall number of this arch */
	unsigned long long min_ns;
};

struct pp_lock_start {
	unsigned long long ts;
	unsigned long long uaddr;
	int ustack;
	unsigned int tgid;
};

struct pp_lock_key {
	unsigned long long uaddr;
	unsigned int tgid, pid;
	int ustack;
	unsigned int gen;
};

struct pp_lock_val {
	unsigned long long total_ns;
	unsigned long long count;
	unsigned long long max_ns;
	char comm[16];
};

#endif /* PP_BPF_LOCK_H */
