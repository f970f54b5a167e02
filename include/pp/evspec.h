/* SPDX-License-Identifier: MIT */
/*
 * pp event specs - the one parser of `-e` entries and the one builder of
 * perf_event attributes from them (record/evspec.c), shared by pp-record and
 * the live source of pp-analyze, so that whatever one can record the other
 * can open, with the same names, attributes and errors.
 *
 * An -e argument is a comma list of entries; an entry is
 *
 *	HEAD[/FILTER/ATTR/ATTR.../][ help]
 *
 * HEAD is a tracepoint "sys:name" (fnmatch patterns allowed), a named
 * software or hardware event ("cpu-clock", "page-faults", "cycles"), a probe
 * "uprobe:FUNC@/path", "uretprobe:...", "kprobe:FUNC", "kretprobe:FUNC", a
 * USDT probe "usdt:PROVIDER:NAME@/path", or a breakpoint
 * "mem:ADDR[/LEN][:rwx]", or a raw PMU event "PMU/TERMS/MODS" as perf
 * writes it ("cpu/mem-loads,ldlat=30/pp", "ibs_op//") for the PMUs of
 * PP_EVSPEC_PMUS. A probe's path and a breakpoint's length contain
 * slashes, so their blocks start at "//" (an empty filter):
 * "uprobe:f@/bin/x//stack/". A USDT probe has fields (arg1..argN) and so a
 * filter: its blocks start at the first '/' after the path of an existing
 * file ("usdt:app:req@/bin/app/arg1>100/stack/"), else at "//". A profiler used as an event source
 * ("profile/-F 500/") is decided by the module table, not here.
 */
#ifndef PP_EVSPEC_H
#define PP_EVSPEC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/perf_event.h>

enum pp_evspec_kind {
	PP_EV_TRACEPOINT,
	PP_EV_UPROBE,
	PP_EV_KPROBE,
	PP_EV_SOFTWARE,
	PP_EV_HARDWARE,
	PP_EV_BREAKPOINT,	/* mem:ADDR[/LEN][:rwx] */
	PP_EV_USDT,		/* usdt:PROVIDER:NAME@/path (record/usdt.c) */
	PP_EV_HW_CACHE,		/* a hardware cache event: "dTLB-load-misses", "LLC-loads" */
	PP_EV_PMU,		/* PMU/TERMS/MODS: "cpu/mem-loads,ldlat=30/pp", "ibs_op//" */
};

/* The PMUs whose events an entry may name as PMU/TERMS/MODS (perf's syntax). */
#define PP_EVSPEC_PMUS		{ "cpu", "cpu_core", "cpu_atom", "ibs_op", "ibs_fetch" }

#define PP_EVSPEC_FILTER_MAX	1024
#define PP_EVSPEC_ATTR_MAX	64	/* one key=VALUE value */
#define PP_EVSPEC_MAX_TOP	8

/**
 * struct pp_evspec - one parsed -e entry.
 * @kind: what HEAD names.
 * @pattern: HEAD as given ("sched:sched_*", "uprobe:f@/bin/x", "cpu-clock");
 *           a breakpoint's is normalized to the recorded name
 *           ("mem:0x1000/4:w"), so a recording and its replay agree.
 * @sys, @event: a tracepoint's parts (may hold wildcards); a USDT
 *               probe's provider and name.
 * @func, @path, @retprobe: a probe's function (or 0xOFFSET) and binary.
 * @config: a named event's perf config.
 * @bp_addr, @bp_len, @bp_type: a breakpoint.
 * @filter: the kernel filter (tracepoints), "" when none.
 * @stack, @max_stack: ATTR stack, max-stack=N (0: default depth).
 * @alias, @key, @comm, @num, @ptr, @size, @role: ATTR key=VALUE, "" when absent.
 * @top_by, @top_add: repeatable ATTRs top-by=FIELD and top-add=FIELD.
 * @untraced, @trigger: ATTR flags (multi-trace; @trigger also asks
 *                      pp-record --flight-recorder for a dump).
 * @regs: ATTR regs: a probe's samples carry the user registers that hold
 *        the arguments and the return value (x86_64: ax, dx, si, di), so
 *        a module reads malloc's size at entry and its pointer at return.
 * @ustack: ATTR ustack=N: a probe's samples carry N bytes of the user stack
 *          from the stack pointer (and the registers carry sp): what a
 *          returning function wrote into its caller's frame.
 * @pmu, @terms: a PMU event's PMU ("cpu") and its terms ("mem-loads,ldlat=30"):
 *               format terms of /sys/bus/event_source/devices/PMU/format and
 *               event aliases of .../events, resolved when the event is built.
 * @precise: its modifiers' p count (precise_ip 0..3).
 * @user_only, @kernel_only: its modifiers u and k.
 * @help: the entry ended in " help": print the event's format, record nothing.
 * @freq: sampling frequency for this event (a module's request), 0 = -F.
 * @source: the entry names a profiler used as an event source
 *          (pp_evspec__parse_source()).
 */
struct pp_evspec {
	enum pp_evspec_kind kind;
	char pattern[512];
	char sys[64];
	char event[192];
	char func[256];
	char path[256];
	int retprobe;
	uint64_t config;
	uint64_t bp_addr;
	uint32_t bp_len;
	uint32_t bp_type;
	char filter[PP_EVSPEC_FILTER_MAX];
	int stack;
	int max_stack;
	char alias[PP_EVSPEC_ATTR_MAX];
	char key[PP_EVSPEC_ATTR_MAX];
	char comm[PP_EVSPEC_ATTR_MAX];
	char num[PP_EVSPEC_ATTR_MAX];
	char ptr[PP_EVSPEC_ATTR_MAX];
	char size[PP_EVSPEC_ATTR_MAX];
	char role[PP_EVSPEC_ATTR_MAX];
	char top_by[PP_EVSPEC_MAX_TOP][PP_EVSPEC_ATTR_MAX];
	int nr_top_by;
	char top_add[PP_EVSPEC_MAX_TOP][PP_EVSPEC_ATTR_MAX];
	int nr_top_add;
	int untraced;
	int trigger;
	int regs;
	uint32_t ustack;
	char pmu[32];
	char terms[256];
	int precise;
	int user_only, kernel_only;
	int help;
	uint32_t freq;
	int source;
};

/**
 * pp_evspec__split() - split an -e argument into entries, in place.
 * @arg: the argument (commas between entries are replaced by NULs).
 * @entries: receives pointers into @arg; @max: its size.
 *
 * Commas inside an entry's /.../ blocks, and in a probe's path, do not split.
 * Return: the number of entries (empty ones dropped), or -E2BIG.
 */
int pp_evspec__split(char *arg, char **entries, int max);

/**
 * pp_evspec__parse() - parse one entry.
 * @entry: "HEAD[/FILTER/ATTR.../][ help]".
 * @sp: receives the parts (zeroed first).
 * @err, @errlen: a one-line message on failure, naming the entry.
 * Return: 0, -EINVAL (bad syntax, unknown attribute, too long), -ENOENT
 * (HEAD names no kind of event).
 */
int pp_evspec__parse(const char *entry, struct pp_evspec *sp, char *err, size_t errlen);

/**
 * pp_evspec__parse_source() - parse an entry naming a profiler used as an
 * event source, "NAME[/OPTIONS/ATTR.../]" (the module table decides that it
 * is one): @sp gets NAME as @pattern, the attributes (key=, ...) and
 * @source set; the OPTIONS block is the module's own.
 * Return: 0 or -EINVAL with @err set.
 */
int pp_evspec__parse_source(const char *entry, struct pp_evspec *sp, char *err, size_t errlen);

/**
 * pp_evspec__is_named() - whether @name is a named software or hardware
 * event ("page-faults"), which a profiler of the same name must not shadow.
 */
int pp_evspec__is_named(const char *name);

/* One event a module needs recorded (pp-record PROFILER) or opened (--live). */
struct pp_event_req {
	const char *spec;		/* "sys:name[/filter/ATTR/...]", "cpu-clock", ... */
	int callchain;			/* record PERF_SAMPLE_CALLCHAIN */
	int exclude_user;
	int exclude_kernel;
	uint32_t freq;			/* sampling frequency, 0 = every event */
};

#define PP_MAX_EVENT_REQS	64

/*
 * In-kernel BPF aggregators (struct pp_analyzer.bpf_agg, pp_event_reqs.agg):
 * what `pp-record PROFILER` loads and writes as BPF_AGG chunks, and what
 * --live loads and drains. Their numbers are the window sources of
 * spec/pp-bpf.md.
 */
enum pp_agg {
	PP_AGG_NONE	= 0,
	PP_AGG_OFFCPU	= 1,		/* off-CPU time per stack (sched_switch) */
	PP_AGG_LOCK	= 2,		/* futex wait time per stack and waker */
	PP_AGG_MEM	= 3,		/* libc allocations and live blocks per stack */
};

/*
 * @system_wide: the events must be opened on every CPU for every task even
 * with -p, -t or a COMMAND (a module with .needs_system_wide asked for
 * them): the recorder then writes the targets to the file (MACHINE keys
 * target_pids, target_tids) and the module keeps the targets' events itself.
 * @task_only: the module has .needs_system_wide, but these events follow
 * only the targets (kmemleak --user: uprobes on the targets' libc, not on
 * every process of the host); the module still filters on the targets.
 * @agg: the in-kernel aggregator to load (enum pp_agg, 0 none): the module's
 * .bpf_agg, unless its .bpf_agg_opt is not among the options.
 * @agg_path: the binary the module's BPF aggregator probes, when it probes
 * one (kmemleak --user --bpf: the libc, found as the uprobe mode finds it).
 * @err: a module's events() that fails says why here, one line without a
 * tool prefix: the tool that asked (pp-record, pp-analyze --live) prints it.
 * @input_used: 1 when events() took the positional word as its argument
 * (`pp-record breakpoint 0x601040/8:w`), which then names no file.
 * @trap_note: set when every call of a probed function traps into the
 * kernel (kmemleak --user: the allocators): what that is, in a few words;
 * pp-record measures a trap here (pp_uprobe_cost()) and says it once.
 * @preload, @preload_env: a library of pp's the COMMAND must load
 * (LD_PRELOAD, before any the user gave) and one NAME=VALUE it reads
 * (kmemleak --user --sample: libpp-heap.so, PP_HEAP_SAMPLE=BYTES); "" none.
 * The events probe that library, so they need a COMMAND to start.
 */
struct pp_event_reqs {
	struct pp_event_req req[PP_MAX_EVENT_REQS];
	int nr;
	int system_wide;
	int task_only;
	int input_used;
	int agg;
	char agg_path[400];
	char preload[400];
	char preload_env[64];
	char trap_note[192];
	char err[192];
};

/**
 * pp_pmu_attr() - fill @attr's type, config, config1 and config2 for the
 * PMU event @pmu/@terms from the PMU's sysfs directory under @root.
 * @attr: attributes; @root: "/sys/bus/event_source/devices" (tests: a copy);
 * @pmu: "cpu"; @terms: "mem-loads,ldlat=30": each term is a format field
 *        (format/NAME: "config1:0-15", value 1 when none is given) or an
 *        event alias (events/NAME: its own terms), later terms overriding
 *        earlier ones field by field.
 * @err, @errlen: message on failure.
 * Return: 0, -ENODEV (no such PMU), -ENOENT (unknown term) or -EINVAL.
 */
int pp_pmu_attr(struct perf_event_attr *attr, const char *root, const char *pmu,
		const char *terms, char *err, size_t errlen);

/**
 * pp_evspec__is_mem() - whether PMU event @sp samples memory accesses: its
 * terms name a mem-loads or mem-stores alias (Intel PEBS), or its PMU is
 * ibs_op (AMD IBS). Such an event records the data address, the weight
 * (the load latency in cycles) and the data source, as perf mem does.
 * Return: 1 or 0.
 */
int pp_evspec__is_mem(const struct pp_evspec *sp);

/**
 * pp_pmu_has() - whether the PMU @pmu exists under @root, and when @file is
 * not NULL, whether it has that file ("events/mem-loads", "format/ldlat").
 * Return: 1 or 0.
 */
int pp_pmu_has(const char *root, const char *pmu, const char *file);

#define PP_PMU_SYSFS		"/sys/bus/event_source/devices"

/* What a whole command line adds to every event built (-g, -F, --exclude-*). */
struct pp_evbuild_opts {
	int callchain;		/* -g: a stack with every event */
	uint32_t freq;		/* -F HZ for sampling events, 0: their default */
	int exclude_user;
	int exclude_kernel;
	uint32_t dwarf_stack;	/* --call-graph=dwarf: user stack bytes per sample, 0: fp */
};

/*
 * The user registers sampled for --call-graph=dwarf (x86-64: AX, BX, CX,
 * DX, SI, DI, BP, SP, IP and R8-R15, the registers DWARF CFI can restore).
 */
#define PP_UNWIND_REGS_MASK	0xff01ffull

/**
 * struct pp_evdesc - one perf event built from a spec: what perf_event_open
 * needs, and what the file records of it.
 * @attr: the attributes (disabled, CLOCK_MONOTONIC, sample_id_all).
 * @name: the recorded name ("sched:sched_switch", "uprobe:f@/bin/x").
 * @filter: the kernel filter, NULL when none.
 * @sys, @event, @format: a tracepoint's parts and its tracefs format text.
 * @probe_path, @probe_func: own the strings a probe's config1 points to.
 * @spec: index of the spec it came from, -1 for the -F sampler.
 * @sampling: samples at a frequency (cpu-clock, cycles).
 * @help: its spec asked for a description, not a recording ("EVENT help").
 */
struct pp_evdesc {
	struct perf_event_attr attr;
	char *name;
	char *filter;
	char *sys, *event, *format;
	char *probe_path, *probe_func;
	int spec;
	int sampling;
	int help;
};

struct pp_evdescs {
	struct pp_evdesc *v;
	int nr;
	int mounted_tracefs;	/* building mounted tracefs (for the tool to say so) */
};

/**
 * pp_evdescs__add() - append an event with the attributes every pp event has
 * (identifier, tid, time, cpu; disabled; CLOCK_MONOTONIC; sample_id_all),
 * for the caller to complete (a BPF output event).
 * Return: the event (valid until the next append), or NULL without memory.
 */
struct pp_evdesc *pp_evdescs__add(struct pp_evdescs *ds, const char *name);

/**
 * pp_evdescs__add_spec() - build the events of spec @sp (a tracepoint
 * pattern expands to every match) and append them to @ds.
 * @ds: growing list; @sp: the spec; @idx: its index (pp_evdesc.spec);
 * @bo: the command line's -g, -F and exclusions; @err, @errlen: message.
 *
 * Tracepoints need tracefs (pp_tracefs_dir() mounts it); probes need their
 * PMU; a hardware event needs a PMU that samples. A spec with @help set
 * gets its events built all the same, for the caller to describe.
 * Return: 0 or -errno with @err set.
 */
int pp_evdescs__add_spec(struct pp_evdescs *ds, const struct pp_evspec *sp, int idx,
			 const struct pp_evbuild_opts *bo, char *err, size_t errlen);

/**
 * pp_evdescs__add_req() - parse a module's (or a command line's) request
 * @rq and build its events: the request's stack, frequency and exclusions
 * add to @bo's. @idx, @err, @errlen: as for pp_evdescs__add_spec(). The
 * request's spec must be one entry (pp_evspec__split() first).
 * Return: 0 or -errno with @err set.
 */
int pp_evdescs__add_req(struct pp_evdescs *ds, const struct pp_event_req *rq, int idx,
			const struct pp_evbuild_opts *bo, char *err, size_t errlen);

/**
 * pp_evdescs__add_sampler() - the -F sampler when no spec samples: cycles
 * where the hardware samples, else cpu-clock, at @bo->freq.
 * Return: the event added, or NULL without memory.
 */
struct pp_evdesc *pp_evdescs__add_sampler(struct pp_evdescs *ds, const struct pp_evbuild_opts *bo);

/**
 * pp_evdescs__add_sideband() - the dummy event carrying comm, fork, exit and
 * mmap2 records (with build-ids). Return: the event, or NULL.
 */
struct pp_evdesc *pp_evdescs__add_sideband(struct pp_evdescs *ds);

/** pp_evdescs__exit() - free every event's strings and the array. */
void pp_evdescs__exit(struct pp_evdescs *ds);

/**
 * pp_evspec__breakpoint_name() - "mem:0xADDR/LEN:rwx", the recorded name of
 * a breakpoint. Return: @buf.
 */
char *pp_evspec__breakpoint_name(uint64_t addr, uint32_t len, uint32_t type, char *buf,
				 size_t size);

/**
 * pp_uprobe_attr() - fill @attr for a uprobe on @func (or 0xOFFSET) in @path
 * through the uprobe PMU; config1 points to @path, which must outlive the open.
 * Return: 0 or -errno with @err set.
 */
int pp_uprobe_attr(struct perf_event_attr *attr, const char *func, const char *path, int ret,
		   char *err, size_t errlen);

/**
 * pp_uprobe_attr_tracepoint() - for an @attr of the uprobe PMU (as
 * pp_uprobe_attr() fills it, USDT semaphore included), the same probe made
 * through tracefs (pp_tracefs_uprobe_add()): perf events of it can be
 * inherited by the children a traced task makes.
 * @name, @len: receive the probe's name, for pp_tracefs_uprobe_del().
 * Return: the tracepoint id; 0 when @attr is no uprobe; -errno when the
 * probe cannot be made.
 */
long long pp_uprobe_attr_tracepoint(const struct perf_event_attr *attr, char *name, size_t len);

/**
 * pp_uprobe_cost() - what a uprobe and a uretprobe on one function cost a
 * call here: measured on a function of the running program (best of 3
 * rounds of 300 calls, less the same calls without the probes).
 * @ns: receives the nanoseconds per call.
 * Return: 0, or -errno (no uprobe PMU, a program without its symbols).
 */
int pp_uprobe_cost(uint64_t *ns);

/** pp_kprobe_attr() - fill @attr for a kprobe on @func. Return: 0, -EOPNOTSUPP if no kprobe PMU. */
int pp_kprobe_attr(struct perf_event_attr *attr, const char *func, int ret);

/* ---- USDT probes (record/usdt.c) ---- */

/**
 * struct pp_usdt_probe - one probe site of .note.stapsdt.
 * @provider, @name: PROVIDER:NAME; @args: the argument specs ("-4@%edi 8@$5").
 * @addr, @offset: its address and file offset (prelink-adjusted).
 * @sema_addr, @sema_offset: its semaphore, 0 when it has none.
 */
struct pp_usdt_probe {
	char provider[64];
	char name[64];
	char args[512];
	uint64_t addr, offset;
	uint64_t sema_addr, sema_offset;
};

/**
 * pp_usdt__list() - the USDT probes of ELF @path: *@out a malloc'ed array
 * (caller frees). Return: their number (0: none) or -errno with @err set.
 */
int pp_usdt__list(const char *path, struct pp_usdt_probe **out, char *err, size_t errlen);

/**
 * pp_usdt_arg_fetch() - one SDT argument spec ("-4@%edi", "8@-8(%rbp)",
 * "4@$5", "-8@sym(%rip)") as a tracefs uprobe fetch argument ("%di:s32",
 * "-8(%bp):u64", "\5:u32", "@+0x4010:s64") into @out. @sym_off gives a
 * symbol's file offset (NULL: symbols fail). Return: 0 or -EINVAL with @err.
 */
int pp_usdt_arg_fetch(const char *spec, int (*sym_off)(void *ctx, const char *sym, uint64_t *off),
		      void *ctx, char *out, size_t size, char *err, size_t errlen);

/**
 * pp_usdt__fetchargs() - "arg1=FETCH arg2=FETCH ..." of @args in @path;
 * *@nr_args their count. Return: 0 or -errno with @err set.
 */
int pp_usdt__fetchargs(const char *path, const char *args, char *out, size_t size, int *nr_args,
		       char *err, size_t errlen);

/**
 * pp_usdt__define() - create (or reuse an identical) tracefs uprobe event
 * for probe @p of @path, with its semaphore as the uprobe's reference
 * counter and its arguments as fields arg1..argN; @sys (64 bytes) and
 * @event (96 bytes) receive its tracepoint name. Events created are removed
 * at exit. Return: 0 or -errno with @err set.
 */
int pp_usdt__define(const char *path, const struct pp_usdt_probe *p, char *sys, char *event,
		    char *err, size_t errlen);

/**
 * pp_usdt__print_list() - print the probes of @path to @out (pp-analyze
 * usdt list). Return: 0 or -errno with @err set.
 */
int pp_usdt__print_list(const char *path, FILE *out, char *err, size_t errlen);

#endif /* PP_EVSPEC_H */
