/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * The few kernel types pp's BPF programs read, instead of a generated
 * multi-megabyte vmlinux.h. Each struct lists only the members used; with
 * preserve_access_index, clang records the accesses as CO-RE relocations and
 * libbpf fixes the offsets against the running kernel's BTF at load time, so
 * the layout written here does not have to match the kernel's.
 */
#ifndef PP_BPF_VMLINUX_MIN_H
#define PP_BPF_VMLINUX_MIN_H

typedef unsigned char __u8;
typedef unsigned short __u16;
typedef unsigned int __u32;
typedef unsigned long long __u64;
typedef signed char __s8;
typedef short __s16;
typedef int __s32;
typedef long long __s64;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u64 __be64;
typedef __u32 __wsum;
typedef int pid_t;
typedef _Bool bool;
#define true 1
#define false 0

/* UAPI constants (linux/bpf.h) that the map definitions and helpers use. */
enum bpf_map_type {
	BPF_MAP_TYPE_HASH = 1,
	BPF_MAP_TYPE_ARRAY = 2,
	BPF_MAP_TYPE_PERF_EVENT_ARRAY = 4,
	BPF_MAP_TYPE_PERCPU_ARRAY = 6,
	BPF_MAP_TYPE_STACK_TRACE = 7,
	BPF_MAP_TYPE_LRU_HASH = 9,
	BPF_MAP_TYPE_HASH_OF_MAPS = 13,
	BPF_MAP_TYPE_RINGBUF = 27,
};
#define BPF_F_NO_PREALLOC	(1U << 0)
#define BPF_F_MMAPABLE		(1U << 10)
#define BPF_F_INNER_MAP		(1U << 12)
#define BPF_ANY		0
#define BPF_NOEXIST	1
#define BPF_F_USER_STACK	(1ULL << 8)
#define BPF_F_FAST_STACK_CMP	(1ULL << 9)
#define BPF_F_CURRENT_CPU	0xffffffffULL
#define PERF_MAX_STACK_DEPTH	127

/* x86_64 struct pt_regs (same layout as the UAPI one). */
struct pt_regs {
	unsigned long r15, r14, r13, r12, bp, bx, r11, r10, r9, r8;
	unsigned long ax, cx, dx, si, di, orig_ax, ip, cs, flags, sp, ss;
};
#define PP_X86_EFLAGS_IF	0x200UL

/* Context of a BPF_PROG_TYPE_PERF_EVENT program (UAPI bpf_perf_event_data). */
struct bpf_perf_event_data {
	struct pt_regs regs;
	__u64 sample_period;
	__u64 addr;
};

struct rq;

struct cfs_rq {
	struct rq *rq;			/* CONFIG_FAIR_GROUP_SCHED only */
} __attribute__((preserve_access_index));

struct sched_entity {
	struct cfs_rq *cfs_rq;
} __attribute__((preserve_access_index));

struct rq {
	unsigned int nr_running;
	struct cfs_rq cfs;
} __attribute__((preserve_access_index));

struct thread_info {
	unsigned long flags;
} __attribute__((preserve_access_index));

struct mm_struct {
	unsigned long arg_start;
} __attribute__((preserve_access_index));

struct task_struct {
	struct thread_info thread_info;
	unsigned int __state;
	unsigned int flags;
	int prio;
	int static_prio;
	unsigned int policy;
	pid_t pid;
	pid_t tgid;
	struct sched_entity se;
	struct task_struct *real_parent;
	struct mm_struct *mm;
	char comm[16];
} __attribute__((preserve_access_index));

struct linux_binprm {
	const char *filename;
} __attribute__((preserve_access_index));

/* The context of raw_tp programs (for the arguments of global functions). */
struct bpf_raw_tracepoint_args {
	__u64 args[0];
};

#define PP_PF_KTHREAD		0x00200000

#endif /* PP_BPF_VMLINUX_MIN_H */
