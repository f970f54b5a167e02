// SPDX-License-Identifier: (MIT OR GPL-2.0)
/*
 * Off-CPU time aggregated in the kernel. At sched_switch the outgoing task
 * (still current) records when it left and its kernel and user stacks; when
 * it is woken (a task that blocked: the run-queue wait after the wakeup is
 * not its stack's, as task-state counts it) or switched in again (one that
 * was preempted) the time it spent away is added to a hash keyed by
 * (process, thread, kernel stack, user stack, state). User space
 * drains the hash every second: one aggregate per distinct blocked stack
 * instead of two records per context switch.
 *
 * The key carries a generation number that user space flips before it
 * drains the previous one, so draining never races with the updates.
 */
#include "vmlinux-min.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "offcpu.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

const volatile struct pp_offcpu_cfg cfg = {};

unsigned int gen;			/* written by user space */
unsigned long long dropped;		/* switches not aggregated: maps full */

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, PP_OFFCPU_MAX_TASKS);
	__type(key, __u32);
	__type(value, struct pp_offcpu_start);
} start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PP_OFFCPU_MAX_KEYS);
	__type(key, struct pp_offcpu_key);
	__type(value, struct pp_offcpu_val);
} agg SEC(".maps");

#define PP_STACKS_MAX	PP_OFFCPU_MAX_STACKS
#define PP_STACK_WALK	/* blocked user stacks walked whole (record/bpf-offcpu.c) */
#include "stack.bpf.h"

#include "follow.bpf.h"
#include "ksym.bpf.h"

#define TASK_RUNNING		0x0000
#define TASK_INTERRUPTIBLE	0x0001
#define TASK_UNINTERRUPTIBLE	0x0002
#define TASK_DEAD		0x0080

static __always_inline int tracked(struct task_struct *t, __u32 pid, __u32 tgid)
{
	if (!pid)
		return 0;		/* idle */
	if (!pp_followed(tgid))
		return 0;
	if (!cfg.kernel_threads && (BPF_CORE_READ(t, flags) & PP_PF_KTHREAD))
		return 0;
	return 1;
}

/*
 * Add the time thread @pid was away (since its entry @s) to its aggregate;
 * @t: the thread (its comm names a new aggregate).
 */
static __always_inline void account(struct pp_offcpu_start *s, __u32 pid, struct task_struct *t,
				    __u64 now)
{
	struct pp_offcpu_key k = {
		.tgid = s->tgid, .pid = pid, .kstack = s->kstack, .ustack = s->ustack,
		.state = s->state, .gen = gen & 1,
	};
	__u64 delta = now - s->ts;
	struct pp_offcpu_val *v;

	bpf_map_delete_elem(&start, &pid);
	if (delta < cfg.min_ns)
		return;
	v = bpf_map_lookup_elem(&agg, &k);
	if (!v) {
		struct pp_offcpu_val nv = {};

		BPF_CORE_READ_STR_INTO(&nv.comm, t, comm);
		bpf_map_update_elem(&agg, &k, &nv, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&agg, &k);
		if (!v) {
			__sync_fetch_and_add(&dropped, 1);
			return;
		}
	}
	__sync_fetch_and_add(&v->total_ns, delta);
	__sync_fetch_and_add(&v->count, 1);
	if (delta > v->max_ns)
		v->max_ns = delta;
}

SEC("raw_tp/sched_switch")
int BPF_PROG(pp_offcpu_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	__u64 now = bpf_ktime_get_ns();
	__u32 pid = BPF_CORE_READ(prev, pid), tgid = BPF_CORE_READ(prev, tgid);
	struct pp_offcpu_start *s;

	/* prev leaves: remember when, and where it blocked. */
	if (tracked(prev, pid, tgid)) {
		struct pp_offcpu_start ns = { .ts = now, .tgid = tgid };
		unsigned int st = prev_state & 0xff;

		/*
		 * Still away since its last switch-out: the kernel switched it
		 * in without this tracepoint (seen on a VM, now and then). It
		 * ran since, so that interval ends by now: an upper bound, but
		 * one interval, as task-state counts it.
		 */
		s = bpf_map_lookup_elem(&start, &pid);
		if (s)
			account(s, pid, prev, now);

		if (preempt || st == TASK_RUNNING)
			ns.state = 'R';
		else if (st & TASK_UNINTERRUPTIBLE)
			ns.state = 'D';
		else
			ns.state = 'S';
		/* an exiting thread never comes back: nothing to measure */
		if ((ns.state != 'R' || cfg.include_preempted) && !(st & TASK_DEAD)) {
			if (cfg.kernel_stack)
				ns.kstack = stack_of((struct bpf_raw_tracepoint_args *)ctx, 0);
			if (cfg.user_stack)
				ns.ustack = stack_of((struct bpf_raw_tracepoint_args *)ctx, BPF_F_USER_STACK);
			if (bpf_map_update_elem(&start, &pid, &ns, BPF_ANY))
				__sync_fetch_and_add(&dropped, 1);
		}
	}

	/* next comes back: add the time it was away (preempted, or woken unseen). */
	pid = BPF_CORE_READ(next, pid);
	s = bpf_map_lookup_elem(&start, &pid);
	if (s)
		account(s, pid, next, now);
	return 0;
}

/*
 * A blocked task is woken: its blocked time ends here, the wait for a CPU
 * that follows is not the stack's (task-state's table and flame graph end
 * S and D at the wakeup too). A preempted task (R) waits for its switch-in.
 */
SEC("raw_tp/sched_waking")
int BPF_PROG(pp_offcpu_waking, struct task_struct *p)
{
	__u32 pid = BPF_CORE_READ(p, pid);
	struct pp_offcpu_start *s = bpf_map_lookup_elem(&start, &pid);

	if (s && s->state != 'R')
		account(s, pid, p, bpf_ktime_get_ns());
	return 0;
}
