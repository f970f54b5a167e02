/* SPDX-License-Identifier: MIT */
/* Private to record/bpf*.c: what the filter and aggregation files share. */
#ifndef PP_RECORD_BPF_INTERNAL_H
#define PP_RECORD_BPF_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pp/bpf.h"
#include "pp/bpf-agg.h"

struct pp_buf;
struct pp_syms;

/**
 * pp_bpf_load_error() - turn a libbpf load/attach failure into one line.
 * @what: "filter", "offcpu"...; @ret: -errno; @err, @errlen: destination.
 * Return: @ret.
 */
int pp_bpf_load_error(const char *what, int ret, char *err, size_t errlen);

/**
 * pp_bpf_btf_check() - fail early, with the reason, where the kernel has no
 * BTF; whether bpf(2) works is asked by pp_bpf_load_error() on a failure.
 * Return: 0 or -EOPNOTSUPP.
 */
int pp_bpf_btf_check(char *err, size_t errlen);


/** pp_bpf_init_print() - install pp's libbpf print hook once. */
void pp_bpf_init_print(void);

/** pp_bpf_kernel_at_least() - whether the kernel is @maj.@min or later (0 if unknown). */
int pp_bpf_kernel_at_least(int maj, int min);

/** pp_bpf_mono_ns() - CLOCK_MONOTONIC now, ns. */
uint64_t pp_bpf_mono_ns(void);

/**
 * pp_bpf_synth_sample() - append to @b a synthetic PERF_RECORD_SAMPLE
 * (IDENTIFIER|TID|CALLCHAIN) carrying one aggregated stack, so that
 * pp_bpf_scan_synth() can mark its addresses as hit in the symbol collector.
 */
void pp_bpf_synth_sample(struct pp_buf *b, uint32_t pid, uint32_t tid, const uint64_t *kips,
			 unsigned int nr_kernel, const uint64_t *uips, unsigned int nr_user);

/** pp_bpf_scan_synth() - feed the records of @b to pp_syms__scan(). */
void pp_bpf_scan_synth(struct pp_syms *syms, const struct pp_buf *b);

/**
 * pp_bpf_follow__targets() - whether an aggregator follows target
 * processes: @pid, or one of the @nr_pids of @pids (values <= 0 ignored).
 * Return: 1 (cfg.follow of bpf/follow.bpf.h) or 0 (every process).
 */
unsigned int pp_bpf_follow__targets(pid_t pid, const pid_t *pids, int nr_pids);

/**
 * pp_bpf_follow__seed() - put the target processes (@pid and the @nr_pids
 * of @pids; values <= 0 ignored) in an aggregator's `procs` map
 * (bpf/follow.bpf.h); their children join at fork.
 */
struct bpf_map;
struct bpf_program;
void pp_bpf_follow__seed(struct bpf_map *procs, pid_t pid, const pid_t *pids, int nr_pids);

/**
 * pp_bpf_follow__prepare() - before loading: with no target (@follow 0)
 * the fork program @fork is not loaded and @procs keeps one entry.
 */
void pp_bpf_follow__prepare(struct bpf_program *fork, struct bpf_map *procs, unsigned int follow);

/**
 * pp_bpf_read_stack() - the stack named @name (0: none) of the `stacks`
 * hash @fd into @ips (PP_STACK_DEPTH entries, innermost first).
 * Return: its number of frames, 0 if unknown.
 */
unsigned int pp_bpf_read_stack(int fd, uint64_t name, uint64_t *ips);

/**
 * pp_bpf_lazy_hash() - let the hash map @m allocate its elements as they are
 * used instead of all at load, where the kernel allows it for tracing
 * programs (6.1 and later): loading then costs almost nothing. An LRU hash
 * becomes a plain hash there: when full it refuses new keys (the programs
 * count them as dropped) instead of evicting the oldest. Use it for maps
 * whose entries are deleted as they are used, like a thread's start time.
 */
void pp_bpf_lazy_hash(struct bpf_map *m);

/**
 * pp_bpf_warm_stacks() - fill the per-CPU element caches of the lazy
 * `stacks` hash @fd (struct pp_stack values) before its programs run.
 */
void pp_bpf_warm_stacks(int fd);

/**
 * pp_bpf_min_btf() - build into @out a minimal BTF holding only the structs
 * and fields the aggregators read, from the vmlinux BTF @data of @len bytes.
 * Return: 0, -ENOENT (a struct or field is missing), -EINVAL, -ENOMEM.
 */
int pp_bpf_min_btf(const void *data, size_t len, struct pp_buf *out);

/**
 * pp_bpf_core_btf() - path of the running kernel's minimal BTF (a memfd,
 * built once), for bpf_object_open_opts.btf_custom_path; NULL if it cannot
 * be built, and libbpf then reads the whole vmlinux BTF.
 */
const char *pp_bpf_core_btf(void);

/**
 * pp_bpf_core_opts() - open options of an aggregator: its CO-RE target is
 * pp_bpf_core_btf() when that exists. @opts: to fill (LIBBPF_OPTS-initialised).
 */
struct bpf_object_open_opts;
void pp_bpf_core_opts(struct bpf_object_open_opts *opts);

/*
 * The windows of an aggregator. Its programs sum into the generation
 * `gen` (in .bss) names; closing a window flips it, and the drain reads
 * the old generation. Counters of what was lost go into each window.
 */
struct pp_bpf_windows {
	uint64_t start_ns;		/* of the open window */
	uint64_t dropped_seen, lost_seen;
	int closed;			/* a window closed, not drained yet */
	unsigned int old;		/* its generation */
	struct pp_bpf_agg_window w;	/* its header */
};

/*
 * pp_bpf_windows__close() - close the open window: flip *@gen, fill the
 * header's @source and times. A no-op while a closed window awaits its
 * drain.
 */
void pp_bpf_windows__close(struct pp_bpf_windows *ws, unsigned int *gen, uint16_t source);

/*
 * pp_bpf_windows__take() - the closed window to drain (closing the open
 * one first if none is), once no program can still add to it: its header
 * into @w, with what the cumulative counters @dropped and @lost (may be
 * NULL) grew by. Return: its generation.
 */
unsigned int pp_bpf_windows__take(struct pp_bpf_windows *ws, unsigned int *gen, uint16_t source,
				  const unsigned long long *dropped,
				  const unsigned long long *lost, struct pp_bpf_agg_window *w);

#endif /* PP_RECORD_BPF_INTERNAL_H */
