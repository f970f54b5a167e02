/* SPDX-License-Identifier: MIT */
/*
 * The one core of the memory profilers kmemleak and kmemprof
 * (analyzers/kmem.c): which events are allocations and frees (the kernel's
 * kmem tracepoints, libc's allocators through uprobes, or the events of
 * --alloc/--free), allocation stacks interned once, and the table of
 * outstanding objects keyed by pointer.
 */
#ifndef PP_ANALYZERS_KMEM_H
#define PP_ANALYZERS_KMEM_H

#include "pp/replay.h"
#include "pprof.h"

/* Which report the core feeds. */
enum pp_kmem_mode {
	PP_KMEM_LEAK = 0,	/* kmemleak: what is still allocated */
	PP_KMEM_PROF = 1,	/* kmemprof: bytes and calls per allocation stack */
};

/* Module options both profilers take. */
#define PP_KMEM_MOD_OPTS \
	{ "alloc", 0, 1, "EVENT//ptr=F/size=F/stack/  an allocation event (repeatable)" }, \
	{ "free", 0, 1, "EVENT//ptr=F/  a free event (repeatable)" }, \
	{ "user", 0, 0, "libc's allocators (malloc, free, ...) through uprobes, not the kernel's" }, \
	{ "libc", 0, 1, "PATH  the libc to probe with --user (default: the one the target maps)" }, \
	{ "bpf", 0, 0, "with --user: sum in the kernel (BPF), a small file and less overhead" }, \
	{ "sample", 0, PP_ARG_OPTIONAL, "BYTES  with --user -- CMD: one allocation every BYTES on average " \
	  "(default 512K; 1: every call), weighted, through pp's preloaded sampler" }, \
	{ "top", 0, 1, "N  stacks printed (default 20, 0: all)" }, \
	PP_PPROF_MOD_OPT

/** pp_kmem__events() - ->events of both profilers (@mode: enum pp_kmem_mode). */
int pp_kmem__events(const struct pp_opts *o, struct pp_event_reqs *out);
/** pp_kmem__src_match() - does the trace event @ev feed the profilers? */
int pp_kmem__src_match(const struct pp_opts *o, const struct pp_evsel *ev);
/** pp_kmem__init() - ->init: classify the trace's events. Return: 0 or -errno. */
int pp_kmem__init(struct pp_session *s, int mode);
void pp_kmem__sample(struct pp_session *s, const struct pp_event *e);
void pp_kmem__lost(struct pp_session *s, const struct pp_lost *l);
/** pp_kmem__bpf_item() - ->bpf_item: the aggregates of --user --bpf. */
void pp_kmem__bpf_item(struct pp_session *s, const struct pp_bpf_item *it);
void pp_kmem__task(struct pp_session *s, const struct pp_task_event *t);
void pp_kmem__interval(struct pp_session *s, uint64_t now);
void pp_kmem__report(struct pp_session *s);
void pp_kmem__deinit(struct pp_session *s);

#endif /* PP_ANALYZERS_KMEM_H */
