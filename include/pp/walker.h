/* SPDX-License-Identifier: MIT */
/*
 * pp_walker - -g by the kernel-side walker, for a set of events: which of
 * them take a walked user stack, the filter program that walks it on each
 * of their fds, the walks' output event ("unwind", one per CPU, in the same
 * rings), the thread that builds each process's unwind tables, and the join
 * of each walk to its sample as the rings are read.
 *
 * pp-record's recorder and pp-analyze's live source each own one, so a live
 * `-g` stack is the stack a recording of the same run holds.
 *
 *	pp_walker__new()	events added, before the evlist is opened
 *	pp_walker__attach()	opened: the program on the fds, the tables
 *	pp_walker__enable()	the output event on (when the events follow a workload)
 *	pp_walker__record()	each record read off a ring, in ring order
 *	pp_walker__free()
 */
#ifndef PP_WALKER_H
#define PP_WALKER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>
#include "pp/bpf.h"

struct pp_perf_evlist;
struct pp_walker;

/**
 * struct pp_walker_opts - how the stacks are wanted.
 * @mode: --call-graph's (enum pp_call_graph, record/record.h; 0: plain -g,
 *        the walker where it runs, else frame pointers);
 * @dwarf: --call-graph dwarf: no walker;
 * @filter: the --irqs_disabled ... checks, done by the walker's program on
 *          the events it walks (the caller's own filter skips them:
 *          pp_walker__walks());
 * @say: a note for the user (frame pointers instead, and why), or NULL.
 */
struct pp_walker_opts {
	int mode;
	int dwarf;
	struct pp_bpf_filter_opts filter;
	void (*say)(void *ctx, const char *msg);
	void *ctx;
};

/**
 * pp_walker__new() - the walker of @el's events that take a user stack.
 * @el: the events (not opened); the output event is added to it, last;
 * @o: the options (copied);
 * @out: the walker, or NULL: the stacks are the kernel's frame-pointer walks;
 * @mode: MACHINE's call_graph ("bpf", "fp", "fp (why)", "dwarf"; "": no event
 *        takes a user stack), @mode_len;
 * @err: why it failed (--call-graph bpf where the walker cannot run).
 * Return: 0, or -errno.
 */
int pp_walker__new(struct pp_perf_evlist *el, const struct pp_walker_opts *o,
		   struct pp_walker **out, char *mode, size_t mode_len, char *err, size_t errlen);

/**
 * pp_walker__attach() - @w's program on the opened events, its tables' thread.
 * @all: every process is recorded (else those whose samples come without a
 * walk, @child, @procs and their children); @widened: the events see every
 * task, their targets are @child or @procs (and children), kept at analysis;
 * @child: the workload (> 0), held before its exec: known from its exec on,
 * the tables of @child_path (may be NULL), its interpreter and libraries
 * built before; @procs, @nr: the -p processes, read now. It waits (10 s at
 * most) for those tables.
 * Where plain -g
 * cannot walk, the events keep frame pointers, @mode says why and @w stays
 * inert; --call-graph bpf fails.
 * Return: 0, or -errno with @err set.
 */
int pp_walker__attach(struct pp_walker *w, int all, int widened, pid_t child,
		      const char *child_path,
		      const pid_t *procs, int nr, char *mode, size_t mode_len, char *err,
		      size_t errlen);

/** pp_walker__enable() - turn the output event on (it is opened disabled). */
void pp_walker__enable(struct pp_walker *w);

/**
 * pp_walker__record() - record @h of ring @ci, of event @ei (-1: side-band
 * or unknown), in ring order.
 * Return: the record to keep (@h, or @h rewritten with its walk's frames:
 * valid until the next call), or NULL: a walk, kept for its sample.
 */
const struct perf_event_header *pp_walker__record(struct pp_walker *w, int ci,
						  const struct perf_event_header *h, int ei);

/** pp_walker__walks() - Return: 1 if event @ei's stacks are walked by @w (NULL: 0). */
int pp_walker__walks(const struct pp_walker *w, int ei);
/** pp_walker__output() - Return: the output event's index in the evlist, or -1. */
int pp_walker__output(const struct pp_walker *w);
/** pp_walker__active() - Return: 1 if @w walks (attached, not fallen back). */
int pp_walker__active(const struct pp_walker *w);
/** pp_walker__filter_counts() - as pp_bpf_filter__counts() for @w's program. */
int pp_walker__filter_counts(struct pp_walker *w, uint64_t *kept, uint64_t *dropped);

/**
 * pp_walker__summary() - "user stacks: N, M walked ..." as pp-record's
 * summary says it, or "" where @w does not walk.
 */
void pp_walker__summary(const struct pp_walker *w, char *buf, size_t len);

/** pp_walker__free() - its thread stopped, the program detached; accepts NULL. */
void pp_walker__free(struct pp_walker *w);

#endif
