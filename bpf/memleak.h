/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * Shared by bpf/memleak.bpf.c and record/bpf-mem.c: the maps' keys and
 * values of the libc allocator aggregator and its configuration. This is
 * the kernel-user interface, not the on-disk record (the MEM items of
 * spec/pp-bpf.md).
 */
#ifndef PP_BPF_MEMLEAK_H
#define PP_BPF_MEMLEAK_H

#include "stack.h"

#define PP_MEM_MAX_STACKS	16384	/* distinct allocation stacks */
#define PP_MEM_MAX_KEYS		16384	/* (process, stack) sums of a window */
#define PP_MEM_MAX_TASKS	16384	/* threads inside an allocator */
#define PP_MEM_MAX_PROCS	4096	/* processes with frees in a window */
#define PP_MEM_MAX_OBJS		(1 << 20)	/* live blocks tracked */

/* The allocators, as the attach cookie names them (analyzers/kmem.c's order). */
enum pp_mem_fn {
	PP_MEM_MALLOC, PP_MEM_CALLOC, PP_MEM_REALLOC, PP_MEM_REALLOCARRAY, PP_MEM_FREE,
	PP_MEM_POSIX_MEMALIGN, PP_MEM_ALIGNED_ALLOC, PP_MEM_MEMALIGN, PP_MEM_VALLOC,
	PP_MEM_PVALLOC, PP_MEM_NR
};

struct pp_mem_cfg {
	unsigned int exclude_tgid;	/* the recorder, when every process is probed */
	unsigned int track;		/* keep the live blocks (kmemleak), not only the sums */
};

/* A thread inside an allocator: from its entry to its return. */
struct pp_mem_pend {
	unsigned long long size, old, memptr;
	unsigned int fn;		/* enum pp_mem_fn */
	unsigned int depth;		/* allocator calls nested in it (realloc -> malloc) */
};

/* A live block, by address and process. */
struct pp_mem_obj_key {
	unsigned long long ptr;
	unsigned int tgid;
	unsigned int pad;
};

struct pp_mem_obj {
	unsigned long long size;
	unsigned long long stack;	/* user stack name, 0: none */
	unsigned long long ts;		/* allocated at, CLOCK_MONOTONIC */
	unsigned int tid;
	unsigned int pad;
};

/* What a process allocated from one stack in a window. */
struct pp_mem_key {
	unsigned long long ustack;
	unsigned int tgid;
	unsigned int gen;		/* drain generation: user space flips it */
};

struct pp_mem_val {
	unsigned long long bytes;
	unsigned long long calls;
	unsigned int tid;		/* the first thread that allocated there */
	unsigned int pad;
	char comm[16];
};

/* A process's frees (and failed calls) in a window. */
struct pp_mem_free_key {
	unsigned int tgid;
	unsigned int gen;
};

struct pp_mem_free_val {
	unsigned long long frees;	/* of blocks allocated while probed */
	unsigned long long unknown;	/* of blocks allocated before */
	unsigned long long failed;	/* allocator calls that returned no memory */
	unsigned long long untracked;	/* posix_memalign blocks whose pointer was unreadable */
};

/* Which counter of struct pp_mem_free_val. */
enum pp_mem_count { PP_MEM_FREED, PP_MEM_UNKNOWN, PP_MEM_FAILED, PP_MEM_UNTRACKED };

#endif /* PP_BPF_MEMLEAK_H */
