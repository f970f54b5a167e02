/* SPDX-License-Identifier: MIT */
/*
 * pp BPF: in-kernel sample filters attached to perf events, and in-kernel
 * aggregation (off-CPU time, futex contention) flushed into the trace file
 * as BPF_AGG items. The programs live in bpf/ (CO-RE, BTF of the running
 * kernel); this is the user side, in libpp-record.
 *
 * Every function that needs the kernel returns -errno and fills a one-line
 * message (err, errlen) that the tool prints as is: a host without BPF or
 * BTF gets e.g. "BPF unavailable: the kernel has no BTF
 * (/sys/kernel/btf/vmlinux missing)" and the rest of pp still works.
 *
 * The drains write BPF_AGG items with the codec of the format library
 * (include/pp/bpf-agg.h); the payload is specified in spec/pp-bpf.md.
 */
#ifndef PP_BPF_H
#define PP_BPF_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct pp_buf;
struct pp_syms;
struct pp_ksym_bpf;

/**
 * pp_bpf__available() - whether this kernel can load pp's BPF programs.
 * @err, @errlen: receives the reason when it cannot.
 *
 * Checks for kernel BTF and a working bpf(2). Return: 0 or -errno.
 */
int pp_bpf__available(char *err, size_t errlen);

/**
 * pp_bpf__set_verbose() - let libbpf's own messages through to stderr
 * (off by default: load failures are summarised in the one-line error).
 * @level: 0 quiet, 1 warnings, 2 debug (verifier logs).
 */
void pp_bpf__set_verbose(int level);

/* ---- filters: a BPF program on each perf event fd drops samples ---- */

/*
 * struct pp_bpf_filter_opts - which checks are on; a field < 0 is off.
 * Fill with pp_bpf_filter_opts__init() then pp_bpf_filter__parse_opt().
 */
struct pp_bpf_filter_opts {
	int irqs_disabled;		/* keep samples taken with IRQs off (1) / on (0) */
	int tif_need_resched;		/* keep samples whose task has NEED_RESCHED set (1) / clear (0) */
	long nr_running_min;		/* keep when this CPU's run queue holds >= N tasks */
	long nr_running_max;		/* keep when it holds <= N */
	long exclude_pid;		/* drop samples of this process (tgid) */
	int sched_policy;		/* keep tasks of this policy (SCHED_* number) */
	int prio_min, prio_max;		/* keep tasks whose kernel prio is within (0-139) */
	int unwind;			/* > 0: walk kept samples' user stacks too (not a check) */
};

/* Long options for getopt_long(), in this order; see PP_BPF_FILTER_LONG_OPTIONS. */
enum pp_bpf_filter_opt {
	PP_BPF_OPT_IRQS_DISABLED,
	PP_BPF_OPT_TIF_NEED_RESCHED,
	PP_BPF_OPT_NR_RUNNING_MIN,
	PP_BPF_OPT_NR_RUNNING_MAX,
	PP_BPF_OPT_EXCLUDE_PID,
	PP_BPF_OPT_SCHED_POLICY,
	PP_BPF_OPT_PRIO,
	PP_BPF_OPT_NR,
};

/*
 * Entries to paste into a struct option table; getopt_long() then returns
 * (@base + enum pp_bpf_filter_opt), to hand to pp_bpf_filter__parse_index().
 */
#define PP_BPF_FILTER_LONG_OPTIONS(base)						\
	{ "irqs_disabled", optional_argument, NULL, (base) + PP_BPF_OPT_IRQS_DISABLED },	\
	{ "tif_need_resched", optional_argument, NULL, (base) + PP_BPF_OPT_TIF_NEED_RESCHED }, \
	{ "nr_running_min", required_argument, NULL, (base) + PP_BPF_OPT_NR_RUNNING_MIN },	\
	{ "nr_running_max", required_argument, NULL, (base) + PP_BPF_OPT_NR_RUNNING_MAX },	\
	{ "exclude_pid", required_argument, NULL, (base) + PP_BPF_OPT_EXCLUDE_PID },	\
	{ "sched_policy", required_argument, NULL, (base) + PP_BPF_OPT_SCHED_POLICY },	\
	{ "prio", required_argument, NULL, (base) + PP_BPF_OPT_PRIO }

/* Usage lines for the filters, for a tool's --help. */
#define PP_BPF_FILTER_USAGE								\
	"BPF filters (attached to every event; a sample that fails one is dropped in the kernel):\n" \
	"  --irqs_disabled[=0|1]    keep samples taken with interrupts disabled (1) or enabled (0);\n" \
	"                           sampling events and probes only, not tracepoints\n"	\
	"  --tif_need_resched[=0|1] keep samples whose task has TIF_NEED_RESCHED set (1) or clear (0)\n" \
	"  --nr_running_min=N       keep samples while this CPU's run queue holds at least N tasks\n" \
	"  --nr_running_max=N       keep samples while it holds at most N tasks\n"	\
	"  --exclude_pid=PID        drop the samples of process PID\n"			\
	"  --sched_policy=POLICY    keep tasks of POLICY: NORMAL, FIFO, RR, BATCH, IDLE, DEADLINE, EXT or a number\n" \
	"  --prio=N[-M]             keep tasks whose kernel priority is N (or within N-M): 0-99 RT, 100-139 normal (120 = nice 0)\n"

/** pp_bpf_filter_opts__init() - every check off. */
void pp_bpf_filter_opts__init(struct pp_bpf_filter_opts *o);

/** pp_bpf_filter_opts__active() - Return: 1 if any check is on. */
int pp_bpf_filter_opts__active(const struct pp_bpf_filter_opts *o);

/**
 * pp_bpf_filter__parse_opt() - parse one filter option.
 * @o: options to update.
 * @name: option name without dashes ("nr_running_min"); "name=value" is
 *        accepted too when @value is NULL.
 * @value: its argument, or NULL (irqs_disabled, tif_need_resched mean 1).
 * @err, @errlen: one-line message on failure.
 *
 * Return: 0, -ENOENT if @name is not a filter option, -EINVAL on a bad value.
 */
int pp_bpf_filter__parse_opt(struct pp_bpf_filter_opts *o, const char *name, const char *value,
			     char *err, size_t errlen);

/**
 * pp_bpf_filter__parse_index() - as pp_bpf_filter__parse_opt() for the
 * option number getopt_long() returned minus the table's base.
 * @o, @idx (enum pp_bpf_filter_opt), @value (optarg), @err, @errlen.
 * Return: 0, -ENOENT (bad index), -EINVAL.
 */
int pp_bpf_filter__parse_index(struct pp_bpf_filter_opts *o, int idx, const char *value,
			       char *err, size_t errlen);

/**
 * pp_bpf_filter__describe() - the active checks as text for the MACHINE
 * "filters" key and `pp-analyze info`: "bpf:nr_running_min=2,exclude_pid=42".
 * @o, @buf, @len. Return: length written ("" when no check is on).
 */
size_t pp_bpf_filter__describe(const struct pp_bpf_filter_opts *o, char *buf, size_t len);

struct pp_bpf_filter;

/**
 * pp_bpf_filter__new() - load the filter program once for @o.
 * @o: the checks; @err, @errlen: message on failure.
 * Return: the filter (free with pp_bpf_filter__free()), or NULL with errno.
 */
struct pp_bpf_filter *pp_bpf_filter__new(const struct pp_bpf_filter_opts *o, char *err,
					 size_t errlen);

/**
 * pp_bpf_filter__attach() - PERF_EVENT_IOC_SET_BPF the filter on one fd.
 * @f: filter; @perf_fd: an event fd (one per CPU, thread: call for each).
 * @attr_type: the event's perf_event_attr.type: PERF_TYPE_TRACEPOINT takes
 *             the tracepoint program, SOFTWARE/HARDWARE/BREAKPOINT the
 *             perf_event one, a dynamic PMU type (uprobe, kprobe) the kprobe
 *             one; other values try each.
 * @err, @errlen: message on failure.
 *
 * Return: 0, -EOPNOTSUPP (e.g. --irqs_disabled on a tracepoint), or -errno.
 */
int pp_bpf_filter__attach(struct pp_bpf_filter *f, int perf_fd, uint32_t attr_type, char *err,
			  size_t errlen);

/**
 * pp_bpf_filter__counts() - samples the programs kept and dropped so far,
 * summed over CPUs. Return: 0 or -errno.
 */
int pp_bpf_filter__counts(struct pp_bpf_filter *f, uint64_t *kept, uint64_t *dropped);

/** pp_bpf_filter__free() - detach-free (the fds keep nothing); accepts NULL. */
void pp_bpf_filter__free(struct pp_bpf_filter *f);

/* ---- off-CPU time aggregated at sched_switch ---- */

/*
 * Targets: @pid and the @nr_pids processes of @pids (-p A,B), and what they
 * fork from then on; none (0, 0) = every process but the caller's own.
 */
struct pp_bpf_offcpu_opts {
	pid_t pid;			/* only this process (tgid); 0 = all */
	const pid_t *pids;		/* and these (running: the stack walker reads them first) */
	int nr_pids;
	uint64_t min_ns;		/* ignore blocks shorter than this */
	int include_preempted;		/* count involuntary switches (state 'R') too */
	int kernel_threads;		/* include kernel threads */
	int no_kernel_stack;
	int no_user_stack;
	int fp_user_stack;		/* user stacks by frame pointer, not the kernel-side walker */
	int no_bpf_loop;		/* hash stacks as before 5.17, without bpf_loop() (tests) */
};

struct pp_bpf_offcpu;

/**
 * pp_bpf_offcpu__new() - load and attach the off-CPU program.
 * @o: options (NULL: all user tasks, blocked states only).
 * @err, @errlen: message on failure.
 * Return: the collector, or NULL with errno set.
 */
struct pp_bpf_offcpu *pp_bpf_offcpu__new(const struct pp_bpf_offcpu_opts *o, char *err,
					 size_t errlen);

/**
 * pp_bpf_offcpu__drain() - move what the kernel aggregated since the last
 * drain into BPF_AGG items.
 * @oc: collector.
 * @payload: receives one WINDOW item, then STACK items for stacks not
 *           written before and one OFFCPU_REF item per aggregate (appended).
 * @first_ts, @last_ts: receive the window (chunk header times).
 * @syms: when not NULL, the symbol collector learns the maps of processes
 *        seen for the first time (TASKS/MMAPS items into @tasks and @mmaps)
 *        and marks every stack address as hit, so the recorder's next
 *        KSYMS/USYMS flush covers them.
 * @tasks, @mmaps: for @syms, may be NULL when @syms is.
 *
 * Return: number of OFFCPU items, or -errno.
 */
int pp_bpf_offcpu__drain(struct pp_bpf_offcpu *oc, struct pp_buf *payload, uint64_t *first_ts,
			 uint64_t *last_ts, struct pp_syms *syms, struct pp_buf *tasks,
			 struct pp_buf *mmaps);

/**
 * pp_bpf_offcpu__flip() - close the window the next drain reads (the drain
 * closes it itself when this was not called): what is summed from now on
 * goes into the next one. A no-op while a closed window awaits its drain.
 * Lets the recorder read the side-band after the window is closed, so the
 * FORK and MMAP2 records of every process the window names are known when
 * it is drained. Not concurrently with __drain().
 * @oc: collector.
 */
void pp_bpf_offcpu__flip(struct pp_bpf_offcpu *oc);

/**
 * pp_bpf_offcpu__ksym() - a kernel symbol resolver (record/ksym.c) on the
 * program the off-CPU object carries for it; free it before @oc.
 * Return: NULL without memory, or where the kernel (before 5.14) could not
 * load that program.
 */
struct pp_ksym_bpf *pp_bpf_offcpu__ksym(struct pp_bpf_offcpu *oc);

/**
 * pp_bpf_offcpu__start_fd() - the map of the threads away from the CPU
 * (tid -> struct pp_offcpu_start), for tests that play a switch-in the
 * kernel did not trace. @oc: collector.
 */
int pp_bpf_offcpu__start_fd(struct pp_bpf_offcpu *oc);

/** pp_bpf_offcpu__free() - detach and free; accepts NULL. */
void pp_bpf_offcpu__free(struct pp_bpf_offcpu *oc);

/* ---- futex contention (lock wait time) aggregated at sys_enter/sys_exit ---- */

/* Targets as for struct pp_bpf_offcpu_opts. */
struct pp_bpf_lock_opts {
	pid_t pid;			/* only this process (tgid); 0 = all */
	const pid_t *pids;		/* and these */
	int nr_pids;
	uint64_t min_ns;		/* ignore shorter waits */
	int fp_user_stack;		/* user stacks by frame pointer, not the kernel-side walker */
};

struct pp_bpf_lock;

/**
 * pp_bpf_lock__new() - load and attach the futex wait program.
 * @o: options (NULL: all processes); @err, @errlen: message on failure.
 * Return: the collector, or NULL with errno set.
 */
struct pp_bpf_lock *pp_bpf_lock__new(const struct pp_bpf_lock_opts *o, char *err, size_t errlen);

/**
 * pp_bpf_lock__drain() - as pp_bpf_offcpu__drain(), with LOCK items
 * (addr = futex address, user stack only) after a WINDOW of source LOCK.
 * Return: number of LOCK items, or -errno.
 */
int pp_bpf_lock__drain(struct pp_bpf_lock *lk, struct pp_buf *payload, uint64_t *first_ts,
		       uint64_t *last_ts, struct pp_syms *syms, struct pp_buf *tasks,
		       struct pp_buf *mmaps);

/** pp_bpf_lock__flip() - as pp_bpf_offcpu__flip(). @lk: collector. */
void pp_bpf_lock__flip(struct pp_bpf_lock *lk);

/** pp_bpf_lock__ksym() - as pp_bpf_offcpu__ksym(), on the lock object. */
struct pp_ksym_bpf *pp_bpf_lock__ksym(struct pp_bpf_lock *lk);

/** pp_bpf_lock__free() - detach and free; accepts NULL. */
void pp_bpf_lock__free(struct pp_bpf_lock *lk);

/* ---- libc's allocators aggregated at their uprobes (kmemleak/kmemprof --bpf) ---- */

/*
 * Targets: the uprobes fire in @pid and the @nr_pids processes of @pids
 * (each probe is attached per process); none (0, 0) = every process that
 * maps @libc, but the caller's own.
 */
struct pp_bpf_mem_opts {
	pid_t pid;			/* this process (tgid); 0 = see above */
	const pid_t *pids;		/* and these */
	int nr_pids;
	const char *libc;		/* the libc whose allocators are probed */
	int track;			/* keep the live blocks (kmemleak), not only the sums */
};

struct pp_bpf_mem;

/**
 * pp_bpf_mem__new() - load the allocator program and attach it to the
 * allocators of @o->libc (file offsets of their ELF symbols).
 * @o: options (@o->libc is required); @err, @errlen: message on failure.
 * Return: the collector, or NULL with errno set.
 */
struct pp_bpf_mem *pp_bpf_mem__new(const struct pp_bpf_mem_opts *o, char *err, size_t errlen);

/**
 * pp_bpf_mem__drain() - as pp_bpf_offcpu__drain(), with MEM items after a
 * WINDOW of source MEM: what each (process, user stack) allocated in the
 * window, each process's frees, and (with @o->track) the live blocks per
 * (process, stack) at the drain.
 * Return: number of MEM items, or -errno.
 */
int pp_bpf_mem__drain(struct pp_bpf_mem *mc, struct pp_buf *payload, uint64_t *first_ts,
		      uint64_t *last_ts, struct pp_syms *syms, struct pp_buf *tasks,
		      struct pp_buf *mmaps);

/** pp_bpf_mem__flip() - as pp_bpf_offcpu__flip(). @mc: collector. */
void pp_bpf_mem__flip(struct pp_bpf_mem *mc);

/** pp_bpf_mem__free() - detach and free; accepts NULL. */
void pp_bpf_mem__free(struct pp_bpf_mem *mc);

/* ---- BPF output events: records a BPF program emits, described by BTF ---- */

/*
 * FORMATS item kind PP_FMT_BTF (include/pp/format.h) holds the BTF of a BPF
 * output event's record. Body
 * (spec/pp-bpf.md section 6): char system[] "bpf-output" NUL, char name[]
 * NUL (the event is "system:name" in ATTRS), char text[] NUL ("struct X"),
 * zero pad to 8, u32 type_id, u32 btf_size, u8 btf[btf_size], zero pad.
 */
#define PP_BPF_OUTPUT_SYSTEM	"bpf-output"

struct pp_bpf_output;

/**
 * pp_bpf_output__new() - open (not load) a BPF event source.
 * @spec: a built-in program name ("execsnoop"), or OBJ.bpf.o:MAP:STRUCT,
 *        an object file whose programs write struct STRUCT records to the
 *        BPF_MAP_TYPE_PERF_EVENT_ARRAY map MAP with bpf_perf_event_output().
 * @err, @errlen: one-line message on failure.
 *
 * Finds the struct in the object's BTF. The perf side is the caller's: a
 * PERF_TYPE_SOFTWARE / PERF_COUNT_SW_BPF_OUTPUT event with PERF_SAMPLE_RAW
 * and sample_period 1, opened on each CPU (pid -1), handed to
 * pp_bpf_output__attach().
 * Return: the source (free with pp_bpf_output__free()), or NULL with errno.
 */
struct pp_bpf_output *pp_bpf_output__new(const char *spec, char *err, size_t errlen);

/**
 * pp_bpf_output__event_name() - "bpf-output:NAME", the name the perf event
 * must carry in ATTRS so readers pair its samples with the BTF item.
 */
const char *pp_bpf_output__event_name(const struct pp_bpf_output *bo);

/**
 * pp_bpf_output__put_format() - append the PP_FMT_BTF item to a FORMATS
 * payload: the object's raw BTF and the id of the emitted struct.
 * @bo: source; @b: FORMATS payload. Return: 0 or -errno.
 */
int pp_bpf_output__put_format(const struct pp_bpf_output *bo, struct pp_buf *b);

/**
 * pp_bpf_output__attach() - load the program, point its perf event array at
 * the BPF output event of each CPU and attach.
 * @bo: source; @cpus, @fds: @n CPU numbers and the event fd opened on each
 * (fd < 0: skipped); @err, @errlen: message on failure.
 * Return: 0 or -errno.
 */
int pp_bpf_output__attach(struct pp_bpf_output *bo, const int *cpus, const int *fds, int n,
			  char *err, size_t errlen);

/** pp_bpf_output__free() - detach and free; accepts NULL. */
void pp_bpf_output__free(struct pp_bpf_output *bo);

#endif /* PP_BPF_H */
