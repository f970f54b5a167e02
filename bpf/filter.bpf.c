// SPDX-License-Identifier: (MIT OR GPL-2.0)
/*
 * pp sample filters: one check function, three entry points for the three
 * kinds of perf event a program can be attached to with
 * PERF_EVENT_IOC_SET_BPF: sampling events (cpu-clock, ...) take a
 * BPF_PROG_TYPE_PERF_EVENT program, tracepoints a BPF_PROG_TYPE_TRACEPOINT
 * one, uprobes and kprobes a BPF_PROG_TYPE_KPROBE one. Returning 0 drops the
 * sample before it reaches the ring. A kept sample's user stack can be
 * walked here too (bpf/unwind.bpf.h): one program per event does both.
 */
#include "vmlinux-min.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "filter.h"
/*
 * A child's walk copies its parent's maps: the recorder's walker sees each
 * EXIT in the side-band and deletes the copy (record/uwalk.c).
 */
#define PP_UW_FORK_COPY
#include "unwind.bpf.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

const volatile struct pp_filter_cfg cfg = {};

/*
 * The run queue of this CPU. The per-CPU variable runqueues cannot be used:
 * without CONFIG_KALLSYMS_ALL the verifier finds no address for it. The
 * current task's scheduling entity leads there instead: se.cfs_rq->rq with
 * group scheduling, else the cfs_rq is embedded in the rq.
 */
static __always_inline struct rq *this_rq(struct task_struct *t)
{
	struct cfs_rq *cfs = BPF_CORE_READ(t, se.cfs_rq);

	if (bpf_core_field_exists(cfs->rq))
		return BPF_CORE_READ(cfs, rq);
	return (struct rq *)((char *)cfs - bpf_core_field_offset(struct rq, cfs));
}

/* Hits and drops, for the recorder's summary: [0] kept, [1] dropped. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} counts SEC(".maps");

static __always_inline int count(int keep)
{
	__u32 k = keep ? 0 : 1;
	__u64 *v = bpf_map_lookup_elem(&counts, &k);

	if (v)
		*v += 1;
	return keep;
}

/*
 * @regs_flags: the interrupted EFLAGS when the event gives registers, or ~0
 * when it does not (tracepoints: irqs_disabled is refused at attach then).
 */
static __always_inline int keep(unsigned long regs_flags)
{
	unsigned int mask = cfg.mask;
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();

	if (mask & PP_FILTER_IRQS_DISABLED) {
		unsigned int off = !(regs_flags & PP_X86_EFLAGS_IF);

		if (off != cfg.irqs_disabled)
			return count(0);
	}
	if (mask & PP_FILTER_EXCLUDE_PID) {
		if ((__u32)(bpf_get_current_pid_tgid() >> 32) == cfg.exclude_pid)
			return count(0);
	}
	if (mask & (PP_FILTER_NR_RUNNING_MIN | PP_FILTER_NR_RUNNING_MAX)) {
		struct rq *rq = this_rq(t);
		unsigned int nr = BPF_CORE_READ(rq, nr_running);

		if ((mask & PP_FILTER_NR_RUNNING_MIN) && nr < cfg.nr_running_min)
			return count(0);
		if ((mask & PP_FILTER_NR_RUNNING_MAX) && nr > cfg.nr_running_max)
			return count(0);
	}
	if (!(mask & (PP_FILTER_NEED_RESCHED | PP_FILTER_SCHED_POLICY | PP_FILTER_PRIO)))
		return count(1);
	if (mask & PP_FILTER_NEED_RESCHED) {
		unsigned long fl = BPF_CORE_READ(t, thread_info.flags);
		unsigned int set = (fl >> cfg.tif_bit) & 1;

		if (set != cfg.need_resched)
			return count(0);
	}
	if (mask & PP_FILTER_SCHED_POLICY) {
		if (BPF_CORE_READ(t, policy) != cfg.sched_policy)
			return count(0);
	}
	if (mask & PP_FILTER_PRIO) {
		int prio = BPF_CORE_READ(t, prio);

		if (prio < cfg.prio_min || prio > cfg.prio_max)
			return count(0);
	}
	return count(1);
}

/* A kept sample's user stack, walked here (cfg.unwind), goes just before it. */
static __always_inline int kept(void *ctx, int k)
{
	if (k && cfg.unwind)
		uw_walk(ctx);
	return k;
}

SEC("perf_event")
int pp_filter_perf(struct bpf_perf_event_data *ctx)
{
	return kept(ctx, keep(ctx->regs.flags));
}

SEC("tracepoint")
int pp_filter_tp(void *ctx)
{
	return kept(ctx, keep(~0UL));
}

SEC("kprobe")
int pp_filter_kprobe(struct pt_regs *ctx)
{
	return kept(ctx, keep(ctx->flags));
}
