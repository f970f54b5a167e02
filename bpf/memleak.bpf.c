// SPDX-License-Identifier: (MIT OR GPL-2.0)
/*
 * libc's allocators aggregated in the kernel (kmemleak and kmemprof
 * --user --bpf). A uprobe on each allocator's entry keeps the requested
 * size per thread; the uretprobe takes the returned pointer and the user
 * stack (at the return, as the uprobe mode does: at the entry the caller's
 * frame is not on the frame-pointer chain yet), adds the block to the sums
 * of its (process, stack) and, for kmemleak, keeps it by address until
 * free() deletes it. User space drains the sums every second and walks the
 * live blocks: one item per allocation stack instead of three records per
 * malloc/free pair.
 *
 * The attach cookie says which allocator a probe is on (enum pp_mem_fn).
 * The pairing follows analyzers/kmem.c: an allocator called inside another
 * (realloc -> malloc) is the outer call's; free() inside an allocator is
 * the allocator's business (realloc(p, 0)); a failed call allocates nothing.
 */
#include "vmlinux-min.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "memleak.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

const volatile struct pp_mem_cfg cfg = {};

unsigned int gen;			/* written by user space */
unsigned long long dropped;		/* allocations or frees not counted: maps full */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PP_MEM_MAX_TASKS);
	__type(key, __u32);
	__type(value, struct pp_mem_pend);
} pend SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PP_MEM_MAX_OBJS);
	__type(key, struct pp_mem_obj_key);
	__type(value, struct pp_mem_obj);
} objs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PP_MEM_MAX_KEYS);
	__type(key, struct pp_mem_key);
	__type(value, struct pp_mem_val);
} agg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PP_MEM_MAX_PROCS);
	__type(key, struct pp_mem_free_key);
	__type(value, struct pp_mem_free_val);
} frees SEC(".maps");

#define PP_STACKS_MAX	PP_MEM_MAX_STACKS
#define PP_STACK_CTX	struct pt_regs
#include "stack.bpf.h"

/* One more of counter @what (enum pp_mem_count) of process @tgid. */
static __always_inline void count_proc(__u32 tgid, int what)
{
	struct pp_mem_free_key k = { .tgid = tgid, .gen = gen & 1 };
	struct pp_mem_free_val *v = bpf_map_lookup_elem(&frees, &k);

	if (!v) {
		struct pp_mem_free_val nv = {};

		bpf_map_update_elem(&frees, &k, &nv, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&frees, &k);
		if (!v) {
			__sync_fetch_and_add(&dropped, 1);
			return;
		}
	}
	if (what == PP_MEM_FREED)
		__sync_fetch_and_add(&v->frees, 1);
	else if (what == PP_MEM_UNKNOWN)
		__sync_fetch_and_add(&v->unknown, 1);
	else if (what == PP_MEM_FAILED)
		__sync_fetch_and_add(&v->failed, 1);
	else
		__sync_fetch_and_add(&v->untracked, 1);
}

/* A block of @tgid goes back to the allocator. */
static __always_inline void free_block(__u32 tgid, __u64 ptr)
{
	struct pp_mem_obj_key k = { .ptr = ptr, .tgid = tgid };

	if (!cfg.track)
		return;
	count_proc(tgid, bpf_map_delete_elem(&objs, &k) ? PP_MEM_UNKNOWN : PP_MEM_FREED);
}

/* @size bytes allocated from @stack: into the window's sums. */
static __always_inline void count_alloc(__u32 tgid, __u32 tid, __u64 stack, __u64 size)
{
	struct pp_mem_key k = { .ustack = stack, .tgid = tgid, .gen = gen & 1 };
	struct pp_mem_val *v = bpf_map_lookup_elem(&agg, &k);

	if (!v) {
		struct pp_mem_val nv = { .tid = tid };

		bpf_get_current_comm(&nv.comm, sizeof(nv.comm));
		bpf_map_update_elem(&agg, &k, &nv, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&agg, &k);
		if (!v) {
			__sync_fetch_and_add(&dropped, 1);
			return;
		}
	}
	__sync_fetch_and_add(&v->bytes, size);
	__sync_fetch_and_add(&v->calls, 1);
}

static __always_inline void new_block(__u32 tgid, __u32 tid, __u64 ptr, __u64 size, __u64 stack)
{
	count_alloc(tgid, tid, stack, size);
	if (cfg.track) {
		struct pp_mem_obj_key k = { .ptr = ptr, .tgid = tgid };
		struct pp_mem_obj o = {
			.size = size, .stack = stack, .ts = bpf_ktime_get_ns(), .tid = tid,
		};

		if (bpf_map_update_elem(&objs, &k, &o, BPF_ANY))
			__sync_fetch_and_add(&dropped, 1);
	}
}

SEC("uprobe")
int pp_mem_entry(struct pt_regs *ctx)
{
	__u64 pt = bpf_get_current_pid_tgid();
	__u32 tgid = pt >> 32, tid = (__u32)pt;
	__u32 fn = (__u32)bpf_get_attach_cookie(ctx);
	struct pp_mem_pend *p, np = {};

	if (tgid == cfg.exclude_tgid)
		return 0;
	p = bpf_map_lookup_elem(&pend, &tid);
	if (fn == PP_MEM_FREE) {
		/* free() inside realloc(p, 0) and the like: the outer call says it */
		if (!p && ctx->di)
			free_block(tgid, ctx->di);
		return 0;
	}
	if (p) {
		p->depth++;
		return 0;
	}
	np.fn = fn;
	switch (fn) {
	case PP_MEM_MALLOC:
	case PP_MEM_VALLOC:
		np.size = ctx->di;
		break;
	case PP_MEM_PVALLOC:
		np.size = (ctx->di + 4095) & ~4095ull;
		break;
	case PP_MEM_CALLOC:
		np.size = ctx->di * ctx->si;
		break;
	case PP_MEM_REALLOC:
		np.old = ctx->di;
		np.size = ctx->si;
		break;
	case PP_MEM_REALLOCARRAY:
		np.old = ctx->di;
		np.size = ctx->si * ctx->dx;
		break;
	case PP_MEM_POSIX_MEMALIGN:
		np.memptr = ctx->di;
		np.size = ctx->dx;
		break;
	default:	/* aligned_alloc, memalign (alignment, size) */
		np.size = ctx->si;
		break;
	}
	if (bpf_map_update_elem(&pend, &tid, &np, BPF_ANY))
		__sync_fetch_and_add(&dropped, 1);
	return 0;
}

SEC("uretprobe")
int pp_mem_return(struct pt_regs *ctx)
{
	__u64 pt = bpf_get_current_pid_tgid();
	__u32 tgid = pt >> 32, tid = (__u32)pt;
	struct pp_mem_pend *p = bpf_map_lookup_elem(&pend, &tid), c;
	__u64 ax = ctx->ax, stack, ptr = 0;

	if (!p)
		return 0;	/* its entry was before the probes */
	if (p->depth) {
		p->depth--;
		return 0;
	}
	c = *p;
	bpf_map_delete_elem(&pend, &tid);
	if (c.fn == PP_MEM_POSIX_MEMALIGN) {
		/* it returns an error code and writes the pointer to *memptr */
		if (ax) {
			count_proc(tgid, PP_MEM_FAILED);
			return 0;
		}
		if (c.memptr)
			bpf_probe_read_user(&ptr, sizeof(ptr), (const void *)c.memptr);
		stack = stack_of(ctx, BPF_F_USER_STACK);
		if (!ptr) {
			count_proc(tgid, PP_MEM_UNTRACKED);
			count_alloc(tgid, tid, stack, c.size);
			return 0;
		}
		new_block(tgid, tid, ptr, c.size, stack);
		return 0;
	}
	if (c.fn == PP_MEM_REALLOC || c.fn == PP_MEM_REALLOCARRAY) {
		/* realloc(p, 0) frees; a failed realloc leaves the old block */
		if (c.old && (ax || !c.size))
			free_block(tgid, c.old);
		if (!ax) {
			if (c.size)
				count_proc(tgid, PP_MEM_FAILED);
			return 0;
		}
	} else if (!ax) {
		count_proc(tgid, PP_MEM_FAILED);
		return 0;
	}
	stack = stack_of(ctx, BPF_F_USER_STACK);
	new_block(tgid, tid, ax, c.size, stack);
	return 0;
}
