/* SPDX-License-Identifier: MIT */
/*
 * The items of a BPF_AGG chunk (PP_CHUNK_BPF_AGG): what in-kernel
 * aggregation (off-CPU time, futex contention) leaves in the trace file.
 * Part of the format library: the recorder's drains (record/bpf-offcpu.c,
 * bpf-lock.c) write items with these functions and the replay core
 * (replay/bpf-agg.c) decodes them, so both sides share one codec that knows
 * nothing of BPF itself.
 *
 * One stem for the concept, one prefix per object: pp_bpf_agg__ is this
 * codec, pp_bpf_agg_feed__ the replay core's feed of decoded items to a
 * module (replay/bpf-agg.c), pp_bpf_agg_view__ the offcpu and lock modules'
 * view of them (analyzers/bpf-agg.h).
 *
 * This header mirrors spec/pp-bpf.md section 3 byte for byte; item bodies
 * are little-endian like every metadata item.
 */
#ifndef PP_BPF_AGG_H
#define PP_BPF_AGG_H

#include <stddef.h>
#include <stdint.h>

struct pp_buf;
struct pp_item;

/* Item kinds of a BPF_AGG payload. */
enum pp_bpf_agg_kind {
	PP_BPF_AGG_WINDOW = 1,		/* struct pp_bpf_agg_window: what follows covers */
	PP_BPF_AGG_OFFCPU = 2,		/* struct pp_bpf_agg_stack + ips */
	PP_BPF_AGG_LOCK   = 3,		/* struct pp_bpf_agg_stack + ips */
	PP_BPF_AGG_STACK  = 4,		/* struct pp_bpf_agg_stack_def + ips: a named stack */
	PP_BPF_AGG_OFFCPU_REF = 5,	/* struct pp_bpf_agg_stack + two stack names */
	PP_BPF_AGG_MEM    = 6,		/* struct pp_bpf_agg_stack + two stack names */
};

/*
 * Item body of kind PP_BPF_AGG_MEM: laid out as OFFCPU_REF (the frames
 * defined by STACK items), its fields read by @state:
 * 'A' allocations of the window: total_ns = bytes, count = calls;
 * 'O' live blocks at the window's end: total_ns = bytes, count = blocks,
 *     max_ns = allocation time of the oldest (CLOCK_MONOTONIC), tid its thread;
 * 'F' frees of the window, no stack: count = of blocks allocated while
 *     probed, addr = of blocks allocated before, total_ns = allocator calls
 *     that failed, max_ns = posix_memalign blocks whose pointer could not
 *     be read (counted in the sums, not kept as live).
 */
#define PP_MEM_ALLOCS	'A'
#define PP_MEM_LIVE	'O'
#define PP_MEM_FREES	'F'

/*
 * Item body of kind PP_BPF_AGG_STACK: 16 bytes, then u64 ips[nr], innermost
 * first. Defines stack @id for the BPF_AGG items that follow in the file.
 */
struct pp_bpf_agg_stack_def {
	uint64_t id;			/* never 0 */
	uint16_t nr;
	uint16_t reserved[3];
};
_Static_assert(sizeof(struct pp_bpf_agg_stack_def) == 16, "stack definition is 16 bytes");

/*
 * Item body of kind PP_BPF_AGG_OFFCPU_REF: struct pp_bpf_agg_stack (its
 * nr_kernel and nr_user 0), then u64 kernel stack id, u64 user stack id
 * (0: none): an OFFCPU item whose stacks were defined by STACK items.
 */
#define PP_BPF_AGG_REF_SIZE	(64 + 16)

/* Source of a window. */
enum pp_bpf_agg_source {
	PP_BPF_SRC_OFFCPU = 1,
	PP_BPF_SRC_LOCK   = 2,
	PP_BPF_SRC_MEM    = 3,
};

/*
 * Item body of kind PP_BPF_AGG_WINDOW: 40 bytes (32 in files written before
 * stacks_lost existed: a shorter item reads as stacks_lost 0).
 */
struct pp_bpf_agg_window {
	uint32_t source;		/* enum pp_bpf_agg_source */
	uint32_t nr_items;		/* stack items that follow for this window */
	uint64_t start_ns;		/* CLOCK_MONOTONIC, like perf record times */
	uint64_t end_ns;
	uint64_t dropped;		/* events the kernel could not aggregate (maps full) */
	uint64_t stacks_lost;		/* events aggregated without their stack (map full) */
};
_Static_assert(sizeof(struct pp_bpf_agg_window) == 40, "window item is 40 bytes");
#define PP_BPF_AGG_WINDOW_MIN	32	/* the smallest valid window item */

/*
 * Item body of kinds PP_BPF_AGG_OFFCPU / _LOCK: 64 bytes, then
 * u64 ips[nr_kernel + nr_user]: kernel frames innermost first, then user
 * frames innermost first.
 */
struct pp_bpf_agg_stack {
	uint32_t pid;			/* process (tgid) */
	uint32_t tid;
	uint64_t total_ns;		/* time blocked (off-CPU) or waiting (lock) */
	uint64_t count;			/* blocking episodes / contended waits */
	uint64_t max_ns;		/* longest one */
	uint64_t addr;			/* lock: futex user address; offcpu: 0 */
	uint32_t state;			/* offcpu: 'S', 'D' or 'R' (preempted); lock: 0 */
	uint16_t nr_kernel;
	uint16_t nr_user;
	char comm[16];
};
_Static_assert(sizeof(struct pp_bpf_agg_stack) == 64, "stack item is 64 bytes");

/*
 * Optional tail of a LOCK item, after its frames: the thread whose futex
 * wake ended the waits (32 bytes), then u64 ips[nr_user], its user stack at
 * the wake-up, innermost first. Present when the item is long enough.
 */
struct pp_bpf_agg_waker {
	uint32_t pid;			/* process (tgid) */
	uint32_t tid;			/* waking thread */
	uint16_t nr_user;
	uint16_t reserved[3];
	char comm[16];
};
_Static_assert(sizeof(struct pp_bpf_agg_waker) == 32, "waker tail is 32 bytes");

/* ---- writing ---- */

/**
 * pp_bpf_put_window() - append a WINDOW item.
 * @payload: destination; @w: the window (nr_items may be set later with
 * pp_bpf_set_window_items(), once the items are written).
 * Return: the item's offset in @payload, for pp_bpf_set_window_items().
 */
size_t pp_bpf_put_window(struct pp_buf *payload, const struct pp_bpf_agg_window *w);

/**
 * pp_bpf_set_window_items() - set nr_items of the WINDOW item at @at.
 * @payload: the payload (left alone after an allocation error);
 * @at: from pp_bpf_put_window(); @nr_items: stack items that followed.
 */
void pp_bpf_set_window_items(struct pp_buf *payload, size_t at, uint32_t nr_items);

/**
 * pp_bpf_put_stack() - append one OFFCPU/LOCK item with its frames inline.
 * @payload: destination; @kind: PP_BPF_AGG_OFFCPU or _LOCK;
 * @hdr: its struct pp_bpf_agg_stack (nr_kernel/nr_user as the frames);
 * @kips, @nr_kernel, @uips, @nr_user: the frames, innermost first;
 * @waker: LOCK only, the waker tail (nr_user set) or NULL; @wips: its frames.
 */
void pp_bpf_put_stack(struct pp_buf *payload, uint16_t kind, const void *hdr,
		      const uint64_t *kips, unsigned int nr_kernel, const uint64_t *uips,
		      unsigned int nr_user, const struct pp_bpf_agg_waker *waker,
		      const uint64_t *wips);

/**
 * pp_bpf_put_stack_def() - append a STACK item naming frames @ips as @id.
 * @payload: destination; @id: the name (not 0); @ips, @nr: the frames.
 */
void pp_bpf_put_stack_def(struct pp_buf *payload, uint64_t id, const uint64_t *ips,
			  unsigned int nr);

/**
 * pp_bpf_put_ref() - append an OFFCPU_REF item.
 * @payload: destination; @hdr: the aggregate (nr_kernel, nr_user 0);
 * @kstack, @ustack: names of stacks defined before (0: none).
 */
void pp_bpf_put_ref(struct pp_buf *payload, const struct pp_bpf_agg_stack *hdr, uint64_t kstack,
		    uint64_t ustack);

/**
 * pp_bpf_put_mem() - append a MEM item: as pp_bpf_put_ref().
 */
void pp_bpf_put_mem(struct pp_buf *payload, const struct pp_bpf_agg_stack *hdr, uint64_t kstack,
		    uint64_t ustack);

/* ---- the stack table ---- */

/*
 * The stacks that STACK items defined, by id: a reader's table, which
 * OFFCPU_REF items read; a writer uses it as the set of names it wrote
 * (pp_bpf_stacks__mark()), to write each stack once.
 */
struct pp_bpf_stacks;

/** pp_bpf_stacks__new() - an empty table. Return: it or NULL. */
struct pp_bpf_stacks *pp_bpf_stacks__new(void);
/** pp_bpf_stacks__free() - free; accepts NULL. */
void pp_bpf_stacks__free(struct pp_bpf_stacks *t);
/** pp_bpf_stacks__missing() - references to stacks never defined, so far. */
uint64_t pp_bpf_stacks__missing(const struct pp_bpf_stacks *t);

/**
 * pp_bpf_stacks__mark() - remember that stack @id was written.
 * @t: table (ids only); @id: not 0.
 * Return: 1 the first time, 0 after, -ENOMEM.
 */
int pp_bpf_stacks__mark(struct pp_bpf_stacks *t, uint64_t id);

/* ---- reading ---- */

/* A decoded stack item (pointers lent from the payload or the stack table). */
struct pp_bpf_agg_entry {
	uint16_t kind;
	struct pp_bpf_agg_stack s;
	const uint8_t *kernel_ips;	/* nr_kernel u64, possibly unaligned: read with memcpy */
	const uint8_t *user_ips;
	int has_waker;			/* LOCK: the waker tail is present */
	struct pp_bpf_agg_waker waker;
	const uint8_t *waker_ips;	/* waker.nr_user u64 */
};

/**
 * pp_bpf_agg__decode() - check and decode one BPF_AGG item.
 * @item: from pp_item_iter__next() over a BPF_AGG payload.
 * @stacks: table that STACK items fill and OFFCPU_REF items read (a
 *          reference to an undefined stack reads as no stack); NULL: STACK,
 *          OFFCPU_REF and MEM items are skipped like unknown kinds.
 * @e: receives a stack item (kinds OFFCPU, LOCK, MEM; an OFFCPU_REF item
 *     is returned as OFFCPU, its frames, and a MEM item's, lent from @stacks).
 * @w: receives a window (kind WINDOW); may be NULL.
 *
 * Return: the kind, 0 for an unknown kind (skip it), -EINVAL if malformed,
 * -ENOMEM.
 */
int pp_bpf_agg__decode(const struct pp_item *item, struct pp_bpf_stacks *stacks,
		       struct pp_bpf_agg_entry *e, struct pp_bpf_agg_window *w);

/**
 * pp_bpf_agg__ip() - the @i-th address of @ips.
 */
static inline uint64_t pp_bpf_agg__ip(const uint8_t *ips, unsigned int i)
{
	uint64_t v;

	__builtin_memcpy(&v, ips + 8 * (size_t)i, 8);
	return v;
}

#endif /* PP_BPF_AGG_H */
