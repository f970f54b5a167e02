/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * Stacks named by a 64-bit hash of their frames, for the aggregators
 * (offcpu, lock, memleak). Define PP_STACKS_MAX (entries of `stacks`) first,
 * and PP_STACK_CTX, the program's context type, when it is not a raw
 * tracepoint's (a global function's ctx argument must name the type the
 * verifier expects of the program: struct pt_regs for a uprobe).
 *
 * With PP_STACK_WALK defined, a program also walks user stacks with the
 * kernel-side walker (bpf/unwind.bpf.h) where user space set pp_stack_walk
 * and fills the walker's maps (record/uwalk.c); a process the walker does
 * not know yet gets the kernel's frame-pointer walk.
 *
 * Unlike a STACK_TRACE map, whose ids are hash buckets that two different
 * stacks can collide in (the second one is then lost, for the whole run),
 * nothing is lost until the map is full, and the map is allocated as used
 * (pp_bpf_lazy_hash()); user space warms it up (pp_bpf_warm_hash()).
 */
#ifndef PP_STACK_BPF_H
#define PP_STACK_BPF_H

#include "stack.h"

#ifndef PP_STACK_CTX
#define PP_STACK_CTX struct bpf_raw_tracepoint_args
#endif

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PP_STACKS_MAX);
	__type(key, __u64);
	__type(value, struct pp_stack);
} stacks SEC(".maps");

/* Where a stack is taken before it is known to be new. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pp_stack);
} scratch SEC(".maps");

unsigned long long stacks_lost;		/* stacks not stored: map full */

#ifdef PP_STACK_WALK
#include "unwind.bpf.h"

/* Set by user space where the walker runs: rodata, so the other path is dead code. */
const volatile bool pp_stack_walk;

/* The current task's user stack by the walker into @ips. Return: its bytes, or -1. */
static __always_inline long stack_walk(__u64 *ips)
{
	__u32 zero = 0, nr;
	struct pp_unwind_out *o = bpf_map_lookup_elem(&unwind_buf, &zero);

	if (!o || uw_walk_into(o))
		return -1;
	nr = o->nr;
	if (nr > PP_STACK_DEPTH)
		nr = PP_STACK_DEPTH;
	if (!nr)
		return -1;
	__builtin_memset(ips, 0, PP_STACK_DEPTH * sizeof(*ips));
	if (bpf_probe_read_kernel(ips, nr * sizeof(*ips), o->ips))
		return -1;
	return (long)nr * (long)sizeof(*ips);
}
#endif

#define PP_EEXIST	17

/* Set by user space where bpf_loop() exists (5.17): rodata, so the other path is dead code. */
const volatile bool pp_stack_loop;

#define STACK_BLOCK	8		/* frames hashed per step */

struct stack_hash {
	const struct pp_stack *st;
	__u64 h;
};

static __always_inline __u64 stack_mix(__u64 h, const struct pp_stack *st, __u32 block)
{
#pragma unroll
	for (__u32 j = 0; j < STACK_BLOCK; j++) {
		__u32 i = block * STACK_BLOCK + j;

		if (i < PP_STACK_DEPTH) {
			h = (h ^ st->ips[i]) * 0x100000001b3ull;
			h ^= h >> 29;
		}
	}
	return h;
}

static long stack_hash_block(__u32 block, void *arg)
{
	struct stack_hash *x = arg;

	x->h = stack_mix(x->h, x->st, block);
	return 0;
}

/*
 * The current stack (kernel, or user with BPF_F_USER_STACK) stored in
 * `stacks`. Return: its hash, 0 if there is none or it could not be stored.
 */
__noinline __u64 stack_of(PP_STACK_CTX *ctx, __u64 flags)
{
	__u32 zero = 0;
	struct pp_stack *st = bpf_map_lookup_elem(&scratch, &zero);
	__u64 h = 0xcbf29ce484222325ull;
	long n;

	if (!st)
		return 0;
	n = -1;
#ifdef PP_STACK_WALK
	if (pp_stack_walk && (flags & BPF_F_USER_STACK))
		n = stack_walk(st->ips);
#endif
	if (n < 0)
		n = bpf_get_stack(ctx, st->ips, sizeof(st->ips), flags);
	if (n <= 0)
		return 0;
	/*
	 * A block of frames at a time (bpf_get_stack() zeroes the rest of the
	 * buffer): the verifier follows a branch per block, not per frame.
	 * Where bpf_loop() exists its callback is verified once.
	 */
	n = (n / 8 + STACK_BLOCK - 1) / STACK_BLOCK;
	if (pp_stack_loop) {
		struct stack_hash x = { .st = st, .h = h };

		bpf_loop((__u32)n, stack_hash_block, &x, 0);
		h = x.h;
	} else {
		for (__u32 b = 0; b < (PP_STACK_DEPTH + STACK_BLOCK - 1) / STACK_BLOCK; b++) {
			if (b >= n)
				break;
			h = stack_mix(h, st, b);
		}
	}
	h |= 1;				/* never 0 */
	if (!bpf_map_lookup_elem(&stacks, &h)) {
		long ret = bpf_map_update_elem(&stacks, &h, st, BPF_NOEXIST);

		if (ret && ret != -PP_EEXIST) {	/* EEXIST: another CPU stored it */
			__sync_fetch_and_add(&stacks_lost, 1);
			return 0;
		}
	}
	return h;
}

#endif /* PP_STACK_BPF_H */
