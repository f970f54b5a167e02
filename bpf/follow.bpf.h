/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * Following a target process and the processes it forks, for the BPF
 * aggregators (offcpu, lock). Include after the program's `cfg` (which has
 * `follow`, 0 = every process, and an `exclude_tgid`, the recorder's own
 * process when it records every other); user space puts the targets (one
 * or several processes: -p A,B) in `procs` (pp_bpf_follow__seed()), and each
 * fork of a followed process adds the child.
 */
#ifndef PP_FOLLOW_BPF_H
#define PP_FOLLOW_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, __u8);
} procs SEC(".maps");

SEC("raw_tp/sched_process_fork")
int BPF_PROG(pp_follow_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = BPF_CORE_READ(parent, tgid), ctgid = BPF_CORE_READ(child, tgid);
	__u8 one = 1;

	if (cfg.follow && ptgid != ctgid && bpf_map_lookup_elem(&procs, &ptgid))
		bpf_map_update_elem(&procs, &ctgid, &one, BPF_ANY);
	return 0;
}

/* Is process @tgid one to record? (Not the recorder itself.) */
static __always_inline int pp_followed(__u32 tgid)
{
	if (tgid == cfg.exclude_tgid)
		return 0;
	return !cfg.follow || bpf_map_lookup_elem(&procs, &tgid);
}

#endif
