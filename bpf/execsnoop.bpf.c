// SPDX-License-Identifier: (MIT OR GPL-2.0)
/*
 * A BPF event source for pp-record --bpf-output execsnoop: at every
 * sched_process_exec, emit one struct pp_execsnoop_event through a
 * BPF_MAP_TYPE_PERF_EVENT_ARRAY into the recorder's per-CPU
 * PERF_COUNT_SW_BPF_OUTPUT events. The struct reaches the trace file as
 * BTF (taken from this object), not as C.
 */
#include "vmlinux-min.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "execsnoop.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

/* Keeps struct pp_execsnoop_event in the object's BTF for the recorder. */
struct pp_execsnoop_event *pp_execsnoop_type __attribute__((unused));

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} events SEC(".maps");

SEC("tp_btf/sched_process_exec")
int BPF_PROG(pp_execsnoop, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	struct pp_execsnoop_event e = {};

	e.pid = BPF_CORE_READ(p, tgid);
	e.ppid = BPF_CORE_READ(p, real_parent, tgid);
	e.uid = (__u32)bpf_get_current_uid_gid();
	e.old_pid = old_pid;
	BPF_CORE_READ_STR_INTO(&e.comm, p, comm);
	bpf_probe_read_kernel_str(e.filename, sizeof(e.filename), BPF_CORE_READ(bprm, filename));
	bpf_perf_event_output(ctx, &events, BPF_F_CURRENT_CPU, &e, sizeof(e));
	return 0;
}
