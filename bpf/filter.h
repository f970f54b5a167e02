/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * Shared by bpf/filter.bpf.c and record/bpf.c: the filter configuration,
 * placed in the program's read-only data before load so the verifier prunes
 * the checks that are off. Plain fixed-size types only (both compilers).
 */
#ifndef PP_BPF_FILTER_H
#define PP_BPF_FILTER_H

#define PP_FILTER_IRQS_DISABLED		(1u << 0)
#define PP_FILTER_NEED_RESCHED		(1u << 1)
#define PP_FILTER_NR_RUNNING_MIN	(1u << 2)
#define PP_FILTER_NR_RUNNING_MAX	(1u << 3)
#define PP_FILTER_EXCLUDE_PID		(1u << 4)
#define PP_FILTER_SCHED_POLICY		(1u << 5)
#define PP_FILTER_PRIO			(1u << 6)

struct pp_filter_cfg {
	unsigned int mask;		/* PP_FILTER_* checks that are on */
	unsigned int irqs_disabled;	/* wanted value, 0 or 1 */
	unsigned int need_resched;	/* wanted value, 0 or 1 */
	unsigned int tif_bit;		/* TIF_NEED_RESCHED of the running kernel */
	unsigned int nr_running_min;
	unsigned int nr_running_max;
	unsigned int exclude_pid;	/* a process (tgid) */
	unsigned int sched_policy;	/* SCHED_* number */
	int prio_min;			/* kernel prio (0-139), inclusive */
	int prio_max;
	unsigned int unwind;		/* walk kept samples' user stacks (bpf/unwind.bpf.h) */
};

#endif /* PP_BPF_FILTER_H */
