// SPDX-License-Identifier: (MIT OR GPL-2.0)
/*
 * Futex contention aggregated in the kernel: time from entering futex(2)
 * with a waiting operation (WAIT, WAIT_BITSET, LOCK_PI, LOCK_PI2,
 * WAIT_REQUEUE_PI) to leaving it, summed per (process, thread, futex
 * address, user stack). glibc only calls futex to wait when a lock is
 * contended, so this is lock wait time. Attached to the raw sys_enter and
 * sys_exit tracepoints (BTF), which needs no tracefs.
 *
 * The waker: a thread entering futex(2) with a waking operation (WAKE,
 * WAKE_BITSET, WAKE_OP, UNLOCK_PI, REQUEUE, CMP_REQUEUE) is marked until it
 * leaves; when such a thread wakes (sched_waking) a thread that waits in
 * futex, the waiter records the waker's tid, comm and user stack, and the
 * wait is aggregated under that waker. A wait that ends for another reason
 * (timeout, signal, lock handed over without a wake) has no waker.
 */
#include "vmlinux-min.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "lock.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

const volatile struct pp_lock_cfg cfg = {};

unsigned int gen;
unsigned long long dropped;

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, PP_LOCK_MAX_TASKS);
	__type(key, __u32);
	__type(value, struct pp_lock_start);
} start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PP_LOCK_MAX_KEYS);
	__type(key, struct pp_lock_key);
	__type(value, struct pp_lock_val);
} agg SEC(".maps");

/* Threads inside a futex wake operation: tid -> futex address. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, PP_LOCK_MAX_TASKS);
	__type(key, __u32);
	__type(value, __u64);
} waking SEC(".maps");

#define PP_STACKS_MAX	PP_LOCK_MAX_STACKS
#define PP_STACK_WALK	/* the waiters' and wakers' user stacks walked whole (record/bpf-lock.c) */
#include "stack.bpf.h"

#define FUTEX_WAIT		0
#include "follow.bpf.h"
#include "ksym.bpf.h"

#define FUTEX_WAKE		1
#define FUTEX_REQUEUE		3
#define FUTEX_CMP_REQUEUE	4
#define FUTEX_WAKE_OP		5
#define FUTEX_LOCK_PI		6
#define FUTEX_UNLOCK_PI		7
#define FUTEX_WAKE_BITSET	10
#define FUTEX_WAIT_BITSET	9
#define FUTEX_WAIT_REQUEUE_PI	11
#define FUTEX_LOCK_PI2		13
#define FUTEX_CMD_MASK		0x7f

SEC("raw_tp/sys_enter")
int BPF_PROG(pp_lock_enter, struct pt_regs *regs, long id)
{
	__u64 pt = bpf_get_current_pid_tgid();
	__u32 tgid = pt >> 32, pid = (__u32)pt;
	struct pp_lock_start s = {};
	unsigned int cmd;

	if (id != cfg.futex_nr)
		return 0;
	if (!pp_followed(tgid))
		return 0;
	cmd = BPF_CORE_READ(regs, si) & FUTEX_CMD_MASK;
	if (cmd == FUTEX_WAKE || cmd == FUTEX_WAKE_BITSET || cmd == FUTEX_WAKE_OP ||
	    cmd == FUTEX_UNLOCK_PI || cmd == FUTEX_REQUEUE || cmd == FUTEX_CMP_REQUEUE) {
		__u64 uaddr = BPF_CORE_READ(regs, di);

		bpf_map_update_elem(&waking, &pid, &uaddr, BPF_ANY);
		return 0;
	}
	if (cmd != FUTEX_WAIT && cmd != FUTEX_WAIT_BITSET && cmd != FUTEX_LOCK_PI &&
	    cmd != FUTEX_LOCK_PI2 && cmd != FUTEX_WAIT_REQUEUE_PI)
		return 0;
	s.ts = bpf_ktime_get_ns();
	s.uaddr = BPF_CORE_READ(regs, di);
	s.tgid = tgid;
	s.ustack = stack_of((struct bpf_raw_tracepoint_args *)ctx, BPF_F_USER_STACK);
	s.waker_ustack = 0;
	if (bpf_map_update_elem(&start, &pid, &s, BPF_ANY))
		__sync_fetch_and_add(&dropped, 1);
	return 0;
}

SEC("raw_tp/sys_exit")
int BPF_PROG(pp_lock_exit, struct pt_regs *regs, long ret)
{
	__u32 pid = (__u32)bpf_get_current_pid_tgid();
	struct pp_lock_start *s = bpf_map_lookup_elem(&start, &pid);
	struct pp_lock_key k = {};
	struct pp_lock_val *v;
	char wcomm[16];
	__u64 delta;

	if (!s) {
		bpf_map_delete_elem(&waking, &pid);	/* a waker leaves futex(2) */
		return 0;
	}
	delta = bpf_ktime_get_ns() - s->ts;
	k.uaddr = s->uaddr;
	k.tgid = s->tgid;
	k.pid = pid;
	k.ustack = s->ustack;
	k.gen = gen & 1;
	k.waker_tid = s->waker_tid;
	k.waker_ustack = s->waker_tid ? s->waker_ustack : 0;
	__builtin_memcpy(wcomm, s->waker_comm, sizeof(wcomm));
	bpf_map_delete_elem(&start, &pid);
	if (delta < cfg.min_ns)
		return 0;
	v = bpf_map_lookup_elem(&agg, &k);
	if (!v) {
		struct pp_lock_val nv = {};

		bpf_get_current_comm(&nv.comm, sizeof(nv.comm));
		if (k.waker_tid)
			__builtin_memcpy(nv.waker_comm, wcomm, sizeof(nv.waker_comm));
		bpf_map_update_elem(&agg, &k, &nv, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&agg, &k);
		if (!v) {
			__sync_fetch_and_add(&dropped, 1);
			return 0;
		}
	}
	__sync_fetch_and_add(&v->total_ns, delta);
	__sync_fetch_and_add(&v->count, 1);
	if (delta > v->max_ns)
		v->max_ns = delta;
	return 0;
}

/* A thread inside a futex wake operation wakes a waiter: it is the waker. */
SEC("raw_tp/sched_waking")
int BPF_PROG(pp_lock_waking, struct task_struct *p)
{
	__u32 me = (__u32)bpf_get_current_pid_tgid(), tid;
	struct pp_lock_start *s;

	if (!bpf_map_lookup_elem(&waking, &me))
		return 0;
	tid = BPF_CORE_READ(p, pid);
	s = bpf_map_lookup_elem(&start, &tid);
	if (!s)
		return 0;
	s->waker_tid = me;
	s->waker_ustack = stack_of((struct bpf_raw_tracepoint_args *)ctx, BPF_F_USER_STACK);
	bpf_get_current_comm(&s->waker_comm, sizeof(s->waker_comm));
	return 0;
}
