/* SPDX-License-Identifier: MIT */
/*
 * pp analyzer modules - the profilers pp-analyze runs over a trace file or
 * live rings (trace, stat, top, num-dist, profile, ...).
 *
 * Like perf's struct perf_tool: a module is one static struct pp_analyzer of
 * callbacks in its own file under analyzers/, listed in the one table of
 * analyzers/registry.c. The replay core copies the struct and fills every
 * missing callback with a no-op stub (pp_analyzer__fill_stubs()), so the
 * dispatch loop never tests for NULL. A module never knows whether its events
 * come from a file or from the kernel.
 *
 * Everything a callback receives (events, records, strings) is lent for the
 * duration of the call; a module that keeps something copies it.
 */
#ifndef PP_ANALYZER_H
#define PP_ANALYZER_H

#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include "pp/evspec.h"

struct pp_session;
struct pp_evsel;

/* Common options a module may accept (struct pp_analyzer.opts bit mask). */
enum pp_opt_bit {
	PP_OPT_EVENTS		= 1u << 0,	/* -e EVENT,... */
	PP_OPT_INTERVAL		= 1u << 1,	/* -i MS */
	PP_OPT_CALLCHAIN	= 1u << 2,	/* -g */
	PP_OPT_FREQ		= 1u << 3,	/* -F HZ */
	PP_OPT_FLAME		= 1u << 4,	/* --flame-graph FILE */
	PP_OPT_THAN		= 1u << 5,	/* --than TIME|N */
	PP_OPT_PERINS		= 1u << 6,	/* --perins */
	PP_OPT_JSON		= 1u << 7,	/* --json */
	PP_OPT_EXCLUDE		= 1u << 8,	/* --exclude-user/--exclude-kernel */
};

/**
 * struct pp_mod_opt - one option a module accepts beyond the common ones.
 * @name: long name without dashes ("filter"), also the pp_opts__mod() key.
 * @short_name: one-letter form ('S' for -S), 0 when none.
 * @has_arg: 0 a flag; PP_ARG_REQUIRED takes a value (--filter GLOB,
 *           --filter=GLOB, -xVALUE); PP_ARG_OPTIONAL takes one only after '='
 *           (--sample, --sample=1M).
 * @help: one line for `pp-analyze PROFILER help`, e.g. "GLOB[,GLOB]  comm globs".
 *
 * A table ends with an entry whose @name is NULL.
 */
enum { PP_ARG_REQUIRED = 1, PP_ARG_OPTIONAL = 2 };

struct pp_mod_opt {
	const char *name;
	char short_name;
	int has_arg;
	const char *help;
};

#define PP_MAX_MOD_OPTS		32
#define PP_MAX_EVENTS		64

/* A module option given on the command line ("" for a flag). */
struct pp_mod_val {
	const char *name;		/* the table's name */
	const char *value;
};

/**
 * struct pp_opts - the parsed command line of one profiler run.
 *
 * Filled by pp_opts__parse(); the strings point into argv.
 */
/*
 * One bound of --time: absent, an absolute perf-clock time (as trace prints
 * it), a time after the file's first record, or a share of the file's span.
 */
enum pp_time_kind {
	PP_TIME_NONE = 0,
	PP_TIME_ABS,			/* @v: ns */
	PP_TIME_REL,			/* @v: ns after the file's first record */
	PP_TIME_PCT,			/* @v: parts per billion of the span (1% = 10^7) */
};

struct pp_time_bound {
	int kind;			/* enum pp_time_kind */
	uint64_t v;
};

/* --time START,END: resolved against the file by pp_time_window__resolve(). */
struct pp_time_window {
	const char *arg;		/* as given, NULL = no window */
	struct pp_time_bound lo, hi;
};

/**
 * pp_time_window__parse() - parse a --time argument (spec/pp-analyze.md).
 * @arg: "START,END" (each bound empty, SEC[.FRAC], +TIME[ns|us|ms|s] or
 *       PCT%), "A%-B%" or "P%/N" (the N-th P% slice, as perf report).
 * @w: receives the bounds; @w->arg points at @arg.
 * Return: 0, or -EINVAL when malformed.
 */
int pp_time_window__parse(const char *arg, struct pp_time_window *w);

/**
 * pp_time_window__resolve() - the window in perf-clock ns for a file whose
 * records span @first..@last.
 * @w: parsed window; @first, @last: the file's span.
 * @start, @end: receive the inclusive window.
 * @err, @errlen: a one-line message on failure.
 * Return: 0, -EINVAL (empty, or outside the span).
 */
int pp_time_window__resolve(const struct pp_time_window *w, uint64_t first, uint64_t last,
			    uint64_t *start, uint64_t *end, char *err, size_t errlen);

struct pp_opts {
	const char *events[PP_MAX_EVENTS];	/* -e entries, split at top-level commas */
	int nr_events;
	int event_group[PP_MAX_EVENTS];	/* the -e option (0, 1, ...) each entry came from */
	int nr_event_groups;		/* number of -e options */
	struct pp_mod_val mod[PP_MAX_MOD_OPTS];	/* module options, in command-line order */
	int nr_mod;
	uint64_t interval_ns;		/* -i MS, 0 = none */
	int callchain;			/* -g */
	uint32_t freq;			/* -F, 0 = module default */
	const char *flame_graph;	/* --flame-graph FILE (FILE.folded, FILE.svg) */
	uint64_t than;			/* --than, ns for times, raw for numbers */
	int than_set;
	int perins;			/* --perins */
	int json;			/* --json: one JSON object per line */
	int exclude_user;
	int exclude_kernel;
	uint64_t max_events;		/* -N, 0 = no limit */
	const char *cpus;		/* -C list, NULL = all */
	int all_cpus;			/* -a: every CPU even with a workload (--live) */
	const char *pids;		/* -p list */
	const char *tids;		/* -t list */
	const char *input;		/* --input FILE / positional FILE */
	const char *output;		/* -o FILE, NULL = stdout */
	int live;			/* --live */
	int ftrace;			/* --live --ftrace: tracepoints from a tracefs instance */
	uint64_t duration_ns;		/* --live: stop after this long (-d SEC) */
	int verbose;
	int no_demangle;		/* --no-demangle: C++/Rust names as mangled */
	const char *debuginfod;		/* --debuginfod[=URLS]: "" = $DEBUGINFOD_URLS */
	struct pp_time_window time;	/* --time START,END; time.arg NULL = the whole file */
	char **workload;		/* --live: argv after `--`, NULL-terminated, or NULL */
	int nr_workload;
	uint64_t max_memory;		/* --max-memory SIZE in bytes, 0 = the default bound */
};

/**
 * pp_opts__mod() - the value of module option @name (the last one given).
 * @o: parsed options; @name: the option's long name.
 * Return: the value, "" for a flag that was given, NULL when absent.
 */
const char *pp_opts__mod(const struct pp_opts *o, const char *name);

/**
 * pp_opts__bytes() - a size option's value: digits with an optional K, M,
 * G or T suffix (powers of 1024; "512K", "1MiB", "4096").
 * Return: 0 or -EINVAL.
 */
int pp_opts__bytes(const char *s, uint64_t *out);

/**
 * pp_opts__mod_nth() - the @n-th occurrence of a repeatable module option.
 * Return: the value, or NULL past the last one.
 */
const char *pp_opts__mod_nth(const struct pp_opts *o, const char *name, int n);

/* A decoded record handed to ->sample(). */
struct pp_event {
	const struct pp_evsel *evsel;	/* the event (name, tracepoint format) */
	uint64_t time;			/* perf clock (CLOCK_MONOTONIC) ns */
	uint32_t pid, tid, cpu;
	uint64_t ip;
	uint64_t period;
	const void *raw;		/* tracepoint record, NULL if none */
	uint32_t raw_size;
	const uint64_t *callchain;	/* with PERF_CONTEXT_* markers */
	uint32_t nr_callchain;
	const void *record;		/* the perf record, header included; 8-byte aligned, as @callchain */
	uint64_t addr;			/* PERF_SAMPLE_ADDR (page-faults, breakpoints), else 0 */
	const uint64_t *regs;		/* PERF_SAMPLE_REGS_USER (probes with the regs attribute), else NULL */
	uint64_t regs_mask;		/* which registers @regs holds, lowest perf_regs bit first */
	const uint8_t *user_stack;	/* PERF_SAMPLE_STACK_USER (ustack=N): from the user sp, else NULL */
	uint64_t user_stack_size;	/* bytes of @user_stack the kernel could copy */
	uint64_t weight;		/* PERF_SAMPLE_WEIGHT(_STRUCT) as recorded (a load's latency), else 0 */
	uint64_t data_src;		/* PERF_SAMPLE_DATA_SRC (union perf_mem_data_src), else 0 */
};

/* A window of lost records (kernel PERF_RECORD_LOST[_SAMPLES] or LOST chunk). */
struct pp_lost {
	uint32_t cpu;			/* stream */
	uint64_t first_ts, last_ts;	/* window; equal when only one time is known */
	uint64_t count;			/* records lost, 0 if only bytes are known */
	uint64_t bytes;
	int source;			/* 0 kernel ring, 1 LOST_SAMPLES, 2 recorder */
};

/* What a struct pp_task_event tells. */
enum pp_task_kind {
	PP_TASK_COMM = 1,		/* a task's name, set or changed by an exec */
	PP_TASK_FORK,			/* a task was made */
	PP_TASK_EXIT,			/* a task ended */
};

/* COMM, FORK, EXIT side-band. */
struct pp_task_event {
	enum pp_task_kind kind;
	uint64_t time;
	uint32_t pid, tid, ppid, ptid, cpu;
	const char *comm;		/* COMM only */
	int exec;			/* COMM caused by exec */
};

/* MMAP/MMAP2 side-band. */
struct pp_mmap_event {
	uint64_t time;
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	uint32_t prot;
	const uint8_t *build_id;
	uint32_t build_id_size;
	const char *filename;
};

/* In-kernel BPF aggregators: enum pp_agg (pp/evspec.h). */

/* What a mem aggregate is (struct pp_bpf_item.state of agg PP_AGG_MEM). */
enum pp_bpf_mem_state {
	PP_BPF_MEM_ALLOCS = 'A',	/* allocated in the window */
	PP_BPF_MEM_LIVE   = 'O',	/* still allocated at its end */
	PP_BPF_MEM_FREES  = 'F',	/* freed in the window */
};

/* What a struct pp_bpf_item is. */
enum pp_bpf_item_kind {
	PP_BPF_ITEM_WINDOW = 1,		/* the stacks that follow were summed over it */
	PP_BPF_ITEM_STACK  = 2,		/* one aggregate: a task, a stack, its time */
};

/**
 * struct pp_bpf_item - one decoded item of an in-kernel aggregate, handed
 * to ->bpf_item() in file order (file source) or as drained (live source).
 * @kind: enum pp_bpf_item_kind.
 * @agg: the aggregator it comes from (enum pp_agg).
 *
 * A window (@kind PP_BPF_ITEM_WINDOW):
 * @start_ns, @end_ns: the time it covers (CLOCK_MONOTONIC, as event times).
 * @dropped: events the kernel could not aggregate (its maps were full).
 * @stacks_lost: events aggregated without their stack.
 *
 * An aggregate (@kind PP_BPF_ITEM_STACK), of the last window delivered:
 * @pid, @tid, @comm: the task (process and thread).
 * @total_ns, @count, @max_ns: time blocked (offcpu) or waiting (lock) in
 *     the window, number of episodes, the longest one.
 * mem: @state says what the item is: PP_BPF_MEM_ALLOCS ('A') what the task's
 *     process allocated from the stack in the window (@bytes, @count calls;
 *     @tid, @comm the first thread); PP_BPF_MEM_LIVE ('O') its blocks from the
 *     stack still allocated at the window's end (@bytes, @count blocks,
 *     @oldest_ns when the oldest was allocated, @tid its thread);
 *     PP_BPF_MEM_FREES ('F', no stack) the process's frees in the window (@count
 *     of blocks allocated while probed, @frees_unknown of blocks allocated
 *     before, @failed allocator calls that returned no memory, @untracked
 *     posix_memalign blocks whose pointer could not be read). The live
 *     blocks of each window replace the last window's.
 * @addr: lock: the futex user address; offcpu: 0.
 * @state: offcpu: 'S', 'D' or 'R' (preempted); lock: 0.
 * @kernel_ips, @nr_kernel; @user_ips, @nr_user: the stacks, innermost
 *     first (a stack the file lost reads as empty, and is warned about).
 * @waker_pid, @waker_tid, @waker_comm, @waker_ips, @nr_waker: lock: the
 *     thread whose futex wake ended the waits, and its user stack at the
 *     wake-up; @waker_tid 0 when unknown (timeout, signal).
 *
 * Like every callback argument, the item and its arrays are lent for the
 * call; a module that keeps them copies.
 */
struct pp_bpf_item {
	int kind;
	int agg;
	uint64_t start_ns, end_ns;
	uint64_t dropped, stacks_lost;
	uint32_t pid, tid;
	char comm[16];
	uint64_t total_ns, count, max_ns;
	uint64_t addr;
	uint32_t state;
	const uint64_t *kernel_ips, *user_ips;
	uint32_t nr_kernel, nr_user;
	uint32_t waker_pid, waker_tid;
	char waker_comm[16];
	const uint64_t *waker_ips;
	uint32_t nr_waker;
	uint64_t bytes, oldest_ns, frees_unknown, failed, untracked;	/* mem */
};

/**
 * struct pp_src_event - what a module used as an event source inside another
 * profiler (`pp-analyze trace -e 'profile/-F 500/,sched:sched_switch'`)
 * hands to its host's ->source_event(), in time order with the other events.
 * @source: the source module's name ("profile", "task-state", ...).
 * @entry: index of the host's -e entry (pp_opts.events[]) it came from, so a
 *         host finds its group and key= attribute.
 * @e: the event to show: time (the end, for an interval), pid, tid, cpu, ip
 *     and the stack; @e.evsel is the underlying perf event.
 * @start: interval start (task-state); equal to @e.time for a point event.
 * @addr: data address (page-faults, breakpoint), 0 if none.
 * @text: what follows the source name on a line ("S 20.1ms", "addr 0x... W").
 */
struct pp_src_event {
	const char *source;
	int entry;
	struct pp_event e;
	uint64_t start;
	uint64_t addr;
	char text[160];
};

/**
 * struct pp_source_ops - what a module does as an event source inside another
 * profiler (-e 'NAME/OPTS/' to a host with ->source_event); the events it
 * reads are those its ->match takes.
 * @init: allocate *@state (the events are known); NULL: no state.
 * @sample: turn one event into @out; 1 when @out is filled, 0 when the event
 *          only updates state, 2 when @out is filled and the event makes one
 *          more: the core hands @out to the host and calls again with the
 *          same event.
 * @free: free @state (accepts NULL); NULL when @init is.
 */
struct pp_source_ops {
	int (*init)(struct pp_session *s, const struct pp_opts *o, void **state);
	int (*sample)(struct pp_session *s, void *state, const struct pp_event *e,
		      struct pp_src_event *out);
	void (*free)(void *state);
};

/**
 * struct pp_analyzer - one profiler module: what it is (name, help, options,
 * events), then what it does - @init, @sample, @report and @deinit, and the
 * optional ones it needs - and, for a module that is an event source in
 * other profilers too, @source. A callback left NULL does nothing.
 *
 * @name, @desc: "trace", one-line description for `pp-analyze list`.
 * @help: usage text after the common options (module options, examples).
 * @opts: the common options it accepts (enum pp_opt_bit).
 * @needs_system_wide: its events concern two tasks (sched_switch: prev and
 *        next; a wakeup: the waker's context, the wakee's pid), so following
 *        only the target tasks' own contexts misses half of them. With -p,
 *        -t or a COMMAND, live mode and `pp-record PROFILER` (or -e PROFILER)
 *        still open its events on every CPU for every task, the replay core
 *        does not filter them on the sample's pid, and the module keeps the
 *        targets' events itself with pp_session__is_target() on the tasks'
 *        own fields (prev_pid, next_pid, the wakee's pid).
 * @no_symbols: it never names code (counters, distributions): the replay
 *              core skips loading symbols and tracking process maps, which
 *              is most of the work on a file with many processes.
 * @mod_opts: its own options (NULL-name terminated table), or NULL.
 * @bpf_agg: the in-kernel aggregator it reads (enum pp_agg), 0 for none:
 *           `pp-record PROFILER` loads it and writes what it sums into the
 *           file, --live loads it for the run; either way the replay core
 *           hands its items to @bpf_item.
 * @bpf_agg_opt: the module option that asks for @bpf_agg ("bpf": kmemleak
 *           --user --bpf), NULL when the module always reads it. With it,
 *           @bpf_agg is loaded only when the option is given, and a file is
 *           read through @bpf_agg when it holds its windows, through the
 *           module's events otherwise.
 * @events: the events it needs for @o (default when NULL: each -e as given).
 * @match: the file's events it reads, when @events cannot say (a name and
 *         perf type of the trace; as a source, configured by @o): 1 yes, 0 no.
 * @init: validate options against the session's events, allocate state in
 *        pp_session__set_priv(); return 0 or -errno (with a message printed).
 * @sample: one event, in time order.
 * @report: final report after the last event.
 * @deinit: free state; also called after a failed @init, so it must accept
 *          whatever @init built before it failed (no state at all included).
 * @lost: a lost window; never before @init (windows met while the file is
 *        opened are held, at most 64, and delivered right after).
 * @interval: tick every -i interval; @now is the end of the interval.
 * @task, @mmap: side-band (COMM, FORK, EXIT: @t->kind; MMAP), in time order.
 * @bpf_item: one item of the aggregate @bpf_agg names (windows first, then
 *            their aggregates), filtered on -p/-t like samples.
 * @source_event: as a host: one event of a source (NULL: the module takes none).
 * @source: as an event source (NULL: the module is none).
 */
struct pp_analyzer {
	/* what it is */
	const char *name;
	const char *desc;
	const char *help;
	unsigned int opts;
	const struct pp_mod_opt *mod_opts;
	int needs_system_wide;
	int no_symbols;
	int bpf_agg;
	const char *bpf_agg_opt;
	int (*events)(const struct pp_opts *o, struct pp_event_reqs *out);
	int (*match)(const struct pp_opts *o, const struct pp_evsel *ev);
	/* what it does */
	int (*init)(struct pp_session *s);
	void (*sample)(struct pp_session *s, const struct pp_event *e);
	void (*report)(struct pp_session *s);
	void (*deinit)(struct pp_session *s);
	void (*lost)(struct pp_session *s, const struct pp_lost *l);
	void (*interval)(struct pp_session *s, uint64_t now);
	void (*task)(struct pp_session *s, const struct pp_task_event *t);
	void (*mmap)(struct pp_session *s, const struct pp_mmap_event *m);
	void (*bpf_item)(struct pp_session *s, const struct pp_bpf_item *item);
	void (*source_event)(struct pp_session *s, const struct pp_src_event *se);
	const struct pp_source_ops *source;
};

/**
 * pp_analyzer__source() - the module an -e entry names as an event source;
 * the one place that decides it.
 * @entry: one -e entry: "profile/-F 500/", "task-state//key=pid/", "sched:x".
 * @host: the module whose -e it is, NULL for pp-record's own -e.
 * @buf, @len: storage for the module's arguments; @o points into it.
 * @o: receives the module's options (the first /.../ block, split at spaces).
 * @err, @errlen: one-line message on failure.
 *
 * An entry names a source when its name is a source module's and either it
 * carries a /.../ block or the name is no plain event: "page-faults" alone is
 * the software event, except in a @host that takes sources (trace), where
 * the profiler of that name shows more. A source given to a @host that
 * takes none is an error.
 * Return: the module; NULL with errno 0 when @entry names no source module,
 * NULL with errno EINVAL (and @err set) when its options are bad or @host
 * takes no sources.
 */
const struct pp_analyzer *pp_analyzer__source(const char *entry, const struct pp_analyzer *host,
					      char *buf, size_t len, struct pp_opts *o, char *err,
					      size_t errlen);

/**
 * pp_analyzer__source_events() - the events an -e entry naming a source
 * module needs (pp-record -e 'profile/-F 500/').
 * @entry: the -e entry; @host: as for pp_analyzer__source(); @out: receives
 * the requests (strings in static storage that lives until exit); @err,
 * @errlen: message on failure.
 * Return: 1 when @entry names a source (@out filled), 0 when not, -EINVAL.
 */
int pp_analyzer__source_events(const char *entry, const struct pp_analyzer *host,
			       struct pp_event_reqs *out, char *err, size_t errlen);

/**
 * pp_analyzer__pmu_has() - for a module's ->events(), which chooses its
 * events from the hardware of the host that records: whether the PMU @pmu
 * exists under @root (PP_PMU_SYSFS; tests: a copy) and, when @file is not
 * NULL, has that file ("events/mem-loads", "format/ldlat").
 * Return: 1 or 0.
 */
int pp_analyzer__pmu_has(const char *root, const char *pmu, const char *file);

/**
 * pp_analyzer__lib() - for a module's ->events() that has the COMMAND load
 * a library of pp's (pp_event_reqs.preload): its path, found as
 * pp_workload__lib() finds it.
 * @name: "libpp-heap.so"; @buf, @len: receive the path.
 * Return: 0, or -ENOENT.
 */
int pp_analyzer__lib(const char *name, char *buf, size_t len);

/**
 * pp_analyzer__find() - look a module up by name in the static registry.
 * Return: the module, or NULL.
 */
const struct pp_analyzer *pp_analyzer__find(const char *name);

/** pp_analyzer__help() - print @a's help (`pp-analyze NAME help`) to @f. */
void pp_analyzer__help(const struct pp_analyzer *a, FILE *f);

/**
 * pp_analyzer__nth() - the @i-th registered module, for listing.
 * Return: the module, or NULL past the end.
 */
const struct pp_analyzer *pp_analyzer__nth(size_t i);

/**
 * pp_analyzer__fill_stubs() - replace every NULL callback of @a by a no-op.
 * @a: a writable copy of a module.
 */
void pp_analyzer__fill_stubs(struct pp_analyzer *a);

/**
 * pp_analyzer__err() - print a module's error line, `pp-analyze: PROFILER: MESSAGE`
 * (spec/pp-errors.md), on stderr.
 * @profiler: the module's name, the PROFILER of the line.
 * @err: the value to return (-EINVAL, -ENOENT, ...).
 * @fmt: printf format of MESSAGE, without the newline.
 *
 * For `return pp_analyzer__err("top", -EINVAL, "no events to count");`.
 * Return: @err.
 */
int pp_analyzer__err(const char *profiler, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/**
 * pp_analyzer__warn() - a module's own warning in the same form as its errors,
 * `pp-analyze: PROFILER: MESSAGE`, on stderr ("N lost windows: ...").
 * @profiler: the module's name; @fmt: printf format of MESSAGE, without the newline.
 *
 * Unlike pp_session__warn() (`pp-analyze: warning: MESSAGE`), the session does
 * not count it.
 */
void pp_analyzer__warn(const char *profiler, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/**
 * pp_opts__parse() - parse common options for module @a.
 * @a: module (options it does not accept are refused).
 * @argc, @argv: arguments after the profiler name.
 * @o: receives the options (zeroed first).
 * @err: receives a one-line error message on failure.
 * @errlen: size of @err.
 *
 * A positional argument is the input file. `-i MS` is the interval; the
 * input file is `--input FILE` or positional.
 * Return: 0, or -EINVAL with @err set.
 */
int pp_opts__parse(const struct pp_analyzer *a, int argc, char **argv, struct pp_opts *o,
		   char *err, size_t errlen);

/**
 * pp_opts__takes() - whether module @a takes the option word @arg.
 * @a: module; @arg: "-x", "-xVALUE", "--name" or "--name=VALUE".
 *
 * pp-record uses it to tell its own options from the profiler's when both
 * follow the profiler's name (perf-prof's order: `pp-record profile -F 99 -q`).
 * Return: 1 when pp_opts__parse() would take it as an option, else 0.
 */
int pp_opts__takes(const struct pp_analyzer *a, const char *arg);

/**
 * pp_analyzer__record_events() - the events `pp-record PROFILER [options]` opens.
 * @profiler: module name.
 * @argc, @argv: the options after the name (as for pp-analyze).
 * @out: receives the event requests; the strings point into argv or static
 *       storage.
 * @err, @errlen: one-line error message on failure.
 *
 * Return: 0, -ENOENT (no such module) or -EINVAL (bad options, @err set).
 */
int pp_analyzer__record_events(const char *profiler, int argc, char **argv,
			       struct pp_event_reqs *out, char *err, size_t errlen);

#endif /* PP_ANALYZER_H */
