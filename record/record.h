/* SPDX-License-Identifier: MIT */
/* Private header of the recorder (record/). */
#ifndef PP_RECORD_H
#define PP_RECORD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <linux/perf_event.h>

#include "pp/evspec.h"
#include "pp/meta.h"
#include "pp/tracefs.h"

/*
 * The trace format's item bodies are little-endian (spec/pp-trace-format.md,
 * section 1). The recorder fills them with host-order stores, which is only
 * right on a little-endian host: a big-endian port converts them first.
 */
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "pp-record writes little-endian item bodies with host stores: port the writers first"
#endif

/* tracefs (record/tracefs.c): include/pp/tracefs.h */

/* event specs and the attr builder (record/evspec.c, evbuild.c): include/pp/evspec.h */

/* ---- symbols and side-band (record/symbols.c) ---- */

struct pp_syms;

/** pp_syms__new() - symbol collector; @all_kallsyms: emit every kernel symbol. */
struct pp_syms *pp_syms__new(int all_kallsyms);
/** pp_syms__free() - free; accepts NULL. */
void pp_syms__free(struct pp_syms *s);

/**
 * pp_syms__snapshot() - TASKS and MMAPS items of the running processes.
 * @s: collector (learns the maps); @tasks, @mmaps: receive the items.
 * @only, @nr_only: restrict to these pids (NULL: all).
 */
void pp_syms__snapshot(struct pp_syms *s, struct pp_buf *tasks, struct pp_buf *mmaps,
		       const pid_t *only, int nr_only);

/** pp_syms__has_maps() - whether maps of @pid are known (snapshot, fork, mmap). */
int pp_syms__has_maps(const struct pp_syms *s, uint32_t pid);

/**
 * pp_syms__learn() - make @s know the maps of @pid: unless the snapshot,
 * a FORK of a known parent or MMAP2 records told them, read /proc once for
 * this process (again after it forks anew or execs), TASKS and MMAPS items
 * into @tasks and @mmaps.
 */
void pp_syms__learn(struct pp_syms *s, uint32_t pid, struct pp_buf *tasks, struct pp_buf *mmaps);

/**
 * pp_syms__scan() - learn from a DATA payload: MMAP2/COMM/EXIT records
 * update the maps; sample ips and callchains mark symbols as hit.
 * @s: collector; @data, @len: raw perf records.
 * @sample_type_of: id -> sample_type (0 if unknown); @ctx for it.
 */
void pp_syms__scan(struct pp_syms *s, const void *data, size_t len,
		   uint64_t (*sample_type_of)(uint64_t id, void *ctx), void *ctx);

/* ---- compact unwind tables (record/cfi.c) ---- */

/* How a row finds the CFA (pp_cfi_row.cfa). */
enum {
	PP_CFI_NONE = 0,	/* no FDE covers this code: walk it by frame pointer */
	PP_CFI_CFA_SP,		/* CFA = SP + cfa_off */
	PP_CFI_CFA_FP,		/* CFA = FP + cfa_off */
	PP_CFI_CFA_PLT,		/* x86-64 PLT: SP + 8, + 8 more when (PC & 15) >= arg */
	PP_CFI_END,		/* the outermost frame: the return address is undefined */
	PP_CFI_UNSUPPORTED,	/* a rule no walker here follows (an expression, a register) */
};

/* Where a row finds a register of the caller (pp_cfi_row.fp, .ra). */
enum {
	PP_CFI_SAME = 0,	/* unchanged (the frame pointer; aarch64's link register) */
	PP_CFI_AT,		/* saved at CFA + offset */
	PP_CFI_UNDEF,		/* not recoverable */
};

/* The rules from @off on, up to the next row's off. 16 bytes. */
struct pp_cfi_row {
	uint32_t off;		/* file offset of the first instruction */
	uint8_t cfa;		/* PP_CFI_NONE.. */
	uint8_t fp;		/* rule of the frame pointer (rbp, x29) */
	uint8_t ra;		/* rule of the return address */
	uint8_t arg;		/* PP_CFI_CFA_PLT: the threshold */
	int32_t cfa_off;
	int16_t fp_off, ra_off;
};

/* A DSO's rows, sorted by off. */
struct pp_cfi_table {
	struct pp_cfi_row *rows;
	size_t nr;
	size_t fdes;		/* FDEs read */
	uint64_t covered;	/* bytes of code the FDEs describe */
};

/**
 * pp_cfi__build() - the compact unwind table of the ELF file @path (its
 * .eh_frame, else .debug_frame), x86-64 or aarch64.
 * Return: 0, -ENOENT (no CFI), -EOPNOTSUPP (another machine), -errno.
 */
int pp_cfi__build(const char *path, struct pp_cfi_table *t);
struct Elf;
/** pp_cfi__build_elf() - pp_cfi__build() of an open ELF. */
int pp_cfi__build_elf(struct Elf *elf, struct pp_cfi_table *t);
/** pp_cfi__find() - the row that covers file offset @off, or NULL (before the first). */
const struct pp_cfi_row *pp_cfi__find(const struct pp_cfi_table *t, uint64_t off);
/** pp_cfi__free() - free the rows; accepts a zeroed table. */
void pp_cfi__free(struct pp_cfi_table *t);

/* The registers a walk carries from frame to frame. */
struct pp_cfi_regs {
	uint64_t pc, sp, fp;
	uint64_t lr;		/* aarch64's link register; 0 once unknown */
};

/**
 * pp_cfi__step() - from the frame of @r to its caller's, by @row (the row
 * of @r->pc, looked up at pc - 1 for a return address), x86-64 when @x86
 * else aarch64; @read(@ctx, addr, &v) reads 8 bytes of the stack, 0 on
 * success.
 * Return: 0 (r is the caller's), 1 (the outermost frame), -1 (cannot).
 */
int pp_cfi__step(const struct pp_cfi_row *row, int x86, struct pp_cfi_regs *r,
		 int (*read)(void *ctx, uint64_t addr, uint64_t *v), void *ctx);

/* ---- the kernel-side walker's maps (record/bpf-unwind.c) ---- */

struct pp_bpf_filter;
struct pp_unwind_map;

/*
 * The walker's maps (bpf/unwind.bpf.h) in a program that includes it: the
 * sample filter (pp_bpf_filter_opts.unwind, pp_bpf_filter__unwind_maps())
 * or an aggregator that walks the stacks it keeps (bpf/stack.bpf.h).
 */
struct pp_bpf_unwind_maps {
	int rows;	/* DSO id -> its rows (an inner array) */
	int dsos;	/* DSO id -> struct pp_unwind_dso */
	int procs;	/* tgid -> struct pp_unwind_proc */
	int out;	/* CPU -> its BPF output event (-1: the program keeps its walks) */
	int stats;	/* per-CPU counters, PP_UW_STAT_* */
	int ask;	/* a ring buffer of the tgids the walker does not know */
};

/** pp_bpf_filter__unwind_maps() - the fds of @f's walker maps (record/bpf-unwind.c). */
void pp_bpf_filter__unwind_maps(struct pp_bpf_filter *f, struct pp_bpf_unwind_maps *m);

/**
 * pp_bpf_unwind__add_dso() - load @t as DSO @id's table into the walker's
 * maps @m, replacing one of that id.
 * Return: 0 or -errno (the map of maps is full: -E2BIG).
 */
int pp_bpf_unwind__add_dso(const struct pp_bpf_unwind_maps *m, uint32_t id,
			   const struct pp_cfi_table *t);
/**
 * pp_bpf_unwind__no_dso() - DSO @id has no table (no CFI, over a bound):
 * its code is walked by frame pointer, not counted as waiting for one.
 * Return: 0 or -errno.
 */
int pp_bpf_unwind__no_dso(const struct pp_bpf_unwind_maps *m, uint32_t id);
/** pp_bpf_unwind__del_dso() - forget DSO @id's table. */
void pp_bpf_unwind__del_dso(const struct pp_bpf_unwind_maps *m, uint32_t id);
/**
 * pp_bpf_unwind__set_proc() - process @tgid's executable mappings (at most
 * PP_UNWIND_MAPS, any order; dso 0: walked by frame pointer), read while
 * its mm->arg_start was @arg_start (0: unknown; /proc/PID/stat's field 48).
 * Return: 0 or -errno.
 */
int pp_bpf_unwind__set_proc(const struct pp_bpf_unwind_maps *m, uint32_t tgid,
			    uint64_t arg_start, const struct pp_unwind_map *maps, unsigned int nr);
/**
 * pp_bpf_unwind__copy_proc() - process @tgid's mappings are @parent's (a
 * fork). Return: 0, or -errno (-ENOENT: @parent is not known).
 */
int pp_bpf_unwind__copy_proc(const struct pp_bpf_unwind_maps *m, uint32_t parent, uint32_t tgid);
/** pp_bpf_unwind__del_proc() - forget process @tgid. */
void pp_bpf_unwind__del_proc(const struct pp_bpf_unwind_maps *m, uint32_t tgid);
/**
 * pp_bpf_unwind__set_outputs() - where the walks go: on CPU @cpus[i], the
 * BPF output event @fds[i] (-1: none), whose records join that CPU's ring.
 * Return: 0 or -errno.
 */
int pp_bpf_unwind__set_outputs(const struct pp_bpf_unwind_maps *m, const int *cpus,
			       const int *fds, int n);
/** pp_bpf_unwind__stats() - the walker's counters (PP_UW_STATS of them), summed over CPUs. */
int pp_bpf_unwind__stats(const struct pp_bpf_unwind_maps *m, uint64_t *out);

/* An executable mapping of a file (pp_procmaps__next()). */
struct pp_exec_map {
	unsigned long long start, end, pgoff;
	uint64_t dev, ino;	/* device: major << 32 | minor */
};

/* A reader of a process's executable file mappings (record/procmaps.c). */
struct pp_procmaps {
	int fd;
	FILE *f;		/* the text, when the kernel has no PROCMAP_QUERY */
	int query;		/* by the ioctl */
	int have_path;
	uint64_t cur, next;	/* the ioctl's: this mapping's start, where the next is sought */
	char line[4096];
	char path[4096];
};

/**
 * pp_procmaps__open() - start reading /proc/@pid/maps; @text: parse the
 * text even where the kernel answers PROCMAP_QUERY (tests compare both).
 * Return: 0, or -errno (the process is gone).
 */
int pp_procmaps__open(struct pp_procmaps *it, uint32_t pid, int text);
/**
 * pp_procmaps__next() - the next executable mapping of a file, by address.
 * Return: 1, or 0 at the end (or when the process went away).
 */
int pp_procmaps__next(struct pp_procmaps *it, struct pp_exec_map *m);
/**
 * pp_procmaps__path() - the path of the mapping pp_procmaps__next() gave
 * last (as /proc/PID/maps shows it: " (deleted)" for an unlinked file),
 * asked for only when needed; "" when it is gone. Valid until the next call.
 */
const char *pp_procmaps__path(struct pp_procmaps *it);
void pp_procmaps__close(struct pp_procmaps *it);

/* ---- -g by the kernel-side walker (record/uwalk.c) ---- */

/*
 * The recorder's side of the walker: which processes it knows (their
 * executable mappings read from /proc, again when they map code or exec),
 * each DSO's table built once per build-id by a thread of its own and
 * loaded into the walker's maps, and the join of each walk to the sample it
 * belongs to (the next sample of its thread on its CPU's ring), whose user
 * callchain it replaces. A sample without its walk keeps the kernel's
 * frame-pointer chain and asks for its process to be known.
 */
struct pp_uwalk;

/* What the walks were, for the summary and the file (pp-analyze info). */
struct pp_uwalk_stats {
	uint64_t stacks;	/* samples with a user callchain */
	uint64_t walked;	/* of them, joined to their walk */
	uint64_t ends[6];	/* walked, by why the walk stopped: PP_UW_END_* */
	uint64_t fp_no_proc;	/* not walked: the process was not known yet */
	uint64_t fp_other;	/* not walked: another reason (no walk record) */
	uint64_t out_fail;	/* walks the kernel could not write (of fp_other) */
	uint64_t frames_cfi;	/* frames the tables walked */
	uint64_t frames_fp;	/* frames walked by frame pointer */
	uint64_t no_table;	/* of those, frames whose table was not loaded yet */
	uint64_t procs;		/* processes known */
	uint64_t dsos;		/* tables loaded */
	uint64_t dso_rows;	/* their rows */
	uint64_t dso_failed;	/* DSOs without a table (no CFI, unreadable, over the bound) */
	uint64_t build_ns;	/* time spent building and loading tables */
};

/**
 * pp_uwalk__new() - the walker whose maps are @m (NULL: the join only, for
 * tests), for @nr_cpus rings (0: an aggregator keeps its walks, no join);
 * @all: every process is recorded (else those tracked, and their
 * children); starts the table thread. Return: it, or NULL with @err set.
 */
struct pp_uwalk *pp_uwalk__new(const struct pp_bpf_unwind_maps *m, int nr_cpus, int all, char *err,
			       size_t len);
/** pp_uwalk__free() - stop the thread, free; accepts NULL. */
void pp_uwalk__free(struct pp_uwalk *w);
/** pp_uwalk__track() - know process @pid (read its maps, build its tables): queued. */
void pp_uwalk__track(struct pp_uwalk *w, uint32_t pid);
/**
 * pp_uwalk__settle() - wait until the thread has read every process asked
 * for so far and built their tables, @timeout_ms at most: the stacks of
 * processes known before the events are on are then whole from the first.
 * Return: 0, or -ETIMEDOUT.
 */
int pp_uwalk__settle(struct pp_uwalk *w, int timeout_ms);
/**
 * pp_uwalk__widened() - the events' samples are every task's, the targets
 * (tracked, expected, and their children) kept at analysis: a sample without
 * its walk asks about nothing, and only the targets' stacks are counted.
 */
void pp_uwalk__widened(struct pp_uwalk *w);
/**
 * pp_uwalk__prebuild() - build the tables of the program at @path (the
 * workload, about to exec), its interpreter and the libraries it needs, as
 * a Debian loader finds them: queued (pp_uwalk__settle() waits for them).
 */
void pp_uwalk__prebuild(struct pp_uwalk *w, const char *path);
/** pp_uwalk__expect() - know process @pid from its exec on (the workload, not started yet). */
void pp_uwalk__expect(struct pp_uwalk *w, uint32_t pid);
/**
 * pp_uwalk__sideband() - a side-band record @h of ring @ci: a known
 * process's exec or code mapping reads its maps again, its fork makes the
 * child known, its exit forgets it.
 */
void pp_uwalk__sideband(struct pp_uwalk *w, const struct perf_event_header *h);
/**
 * pp_uwalk__walk() - a walk (struct pp_unwind_out, @size bytes: a walk
 * record's raw data) taken at @time on ring @ci, waiting for its sample.
 */
void pp_uwalk__walk(struct pp_uwalk *w, int ci, const void *raw, size_t size, uint64_t time);
/**
 * pp_uwalk__join() - sample @rec (@size bytes, @sample_type) on ring @ci,
 * parsed as @s (its pid, tid, time and callchain), rewritten into @out (@cap
 * bytes) with the user frames of its walk.
 * Return: the new size, or 0: keep @rec as it is (no walk, or no user chain).
 */
struct pp_sample;
size_t pp_uwalk__join(struct pp_uwalk *w, int ci, const void *rec, size_t size,
		      uint64_t sample_type, const struct pp_sample *s, void *out, size_t cap);
/** pp_uwalk__lost() - ring @ci lost records: its waiting walks may have lost their samples. */
void pp_uwalk__lost(struct pp_uwalk *w, int ci);
/** pp_uwalk__stats() - the counts so far (the kernel's too). */
void pp_uwalk__stats(struct pp_uwalk *w, struct pp_uwalk_stats *st);
/** pp_uwalk__summary() - the counts as the line pp-record's summary prints. */
void pp_uwalk__summary(struct pp_uwalk *w, char *buf, size_t len);
/**
 * pp_uwalk__agg() - the walker of an aggregator's BPF object @obj, loaded
 * with bpf/stack.bpf.h's PP_STACK_WALK and pp_stack_walk set: it reads every
 * process the program asks about (the program walks only the tasks it
 * follows), and the running processes @pids (@nr) before it returns (10 s
 * at most). Return: it, or NULL with @err set.
 */
struct bpf_object;
struct pp_uwalk *pp_uwalk__agg(struct bpf_object *obj, const pid_t *pids, int nr, char *err,
			       size_t len);
/**
 * pp_bpf_offcpu__walker(), pp_bpf_lock__walker() - the walker that fills
 * the aggregator's tables (its user stacks are walked whole), or NULL: they
 * are frame-pointer stacks.
 */
struct pp_bpf_offcpu;
struct pp_bpf_lock;
struct pp_uwalk *pp_bpf_offcpu__walker(struct pp_bpf_offcpu *oc);
struct pp_uwalk *pp_bpf_lock__walker(struct pp_bpf_lock *lk);
/**
 * pp_uwalk_available() - whether the walker runs here (BPF with BTF, Linux
 * 5.17's bpf_loop, an x86-64 build). Return: 1, or 0 with @err saying why.
 */
int pp_uwalk_available(char *err, size_t len);

struct pp_walker;
/** pp_walker__uwalk() - @w's walker (include/pp/walker.h), for its counts; NULL: none. */
struct pp_uwalk *pp_walker__uwalk(const struct pp_walker *w);

/* ---- --call-graph=dwarf (record/unwind.c) ---- */

struct pp_unwind;

/* Where a process's DSOs are mapped: @map_at gives the file and its map of @addr. */
struct pp_unwind_maps {
	int (*map_at)(void *ctx, uint32_t pid, uint64_t addr, const char **path, uint64_t *start,
		      uint64_t *pgoff);
	void *ctx;
};

/* --call-graph MODE (pp_call_graph_mode()) */
enum pp_call_graph {
	PP_CG_DEFAULT,		/* plain -g: the walker where it runs, else fp */
	PP_CG_FP,		/* the kernel's frame-pointer walk */
	PP_CG_DWARF,		/* the user stack copied, unwound by pp-record */
	PP_CG_BPF,		/* the kernel-side walker, or an error */
};

int pp_call_graph_mode(const char *s, int *mode, uint32_t *dwarf_stack, char *err, size_t len);
struct pp_unwind *pp_unwind__new(void);
void pp_unwind__free(struct pp_unwind *u);
void pp_unwind__forget(struct pp_unwind *u, uint32_t pid);
uint32_t pp_unwind__user(struct pp_unwind *u, uint32_t pid, uint32_t tid,
			 const struct pp_unwind_maps *maps, const uint64_t *regs,
			 const uint8_t *stack, uint64_t stack_size, uint64_t *out, uint32_t max);

/**
 * pp_syms__scan_side() - learn maps from MMAP2, FORK and exec COMM records
 * of other streams ahead of their chunks, so that a stack unwound before
 * them finds its process's maps (the same records scanned again later
 * change nothing); samples are skipped. @u (NULL when
 * nothing is unwound) forgets each changed process.
 */
void pp_syms__scan_side(struct pp_syms *s, struct pp_unwind *u, const void *data, size_t len,
			uint64_t (*sample_type_of)(uint64_t id, void *ctx), void *ctx);

/**
 * pp_syms__scan_unwind() - pp_syms__scan() for a DATA payload of a
 * --call-graph=dwarf recording, before it is written: each sample that
 * carries user registers and stack is unwound and rewritten in place, its
 * callchain's user part replaced by the unwound frames and the registers
 * and stack dropped (the payload shrinks: *@len is updated), as the
 * sample_type pp_syms_dwarf_sample_type() gives, which the file's ATTRS
 * must say.
 * @s: collector; @u: unwinder; @data, @len: raw perf records;
 * @sample_type_of: id -> the kernel's sample_type (0 if unknown); @ctx.
 */
void pp_syms__scan_unwind(struct pp_syms *s, struct pp_unwind *u, uint8_t *data, size_t *len,
			  uint64_t (*sample_type_of)(uint64_t id, void *ctx), void *ctx);

/** pp_syms_dwarf_sample_type() - the sample_type a rewritten sample of @st has. */
uint64_t pp_syms_dwarf_sample_type(uint64_t st);

/**
 * pp_syms__pending() - move what was discovered since the last call into
 * items: KSYMS into @ksyms, USYMS into @usyms, new MMAPS into @mmaps.
 */
void pp_syms__pending(struct pp_syms *s, struct pp_buf *ksyms, struct pp_buf *usyms,
		      struct pp_buf *mmaps);

/**
 * pp_syms__set_ksym_fn() - resolve kernel addresses one by one with @fn
 * (the "%pS" text of an address, as pp_ksym_bpf__lookup() gives) instead of
 * reading /proc/kallsyms. @fn returning -ENOSYS before any symbol was found
 * means it is unavailable: the collector then reads /proc/kallsyms.
 */
void pp_syms__set_ksym_fn(struct pp_syms *s,
			  int (*fn)(void *ctx, uint64_t addr, char *text, size_t len), void *ctx);

/* ---- kernel symbols through BPF (record/ksym.c) ---- */

struct pp_ksym_bpf;

/** pp_ksym_bpf__new() - load bpf/ksym.bpf.c. Return: NULL if BPF is unavailable. */
struct pp_ksym_bpf *pp_ksym_bpf__new(void);
/**
 * pp_ksym_bpf__use() - a resolver on the pp_ksym program of an object that
 * includes bpf/ksym.bpf.h (@addr, @text, @ret: its mapped globals); the
 * object stays loaded by its owner. Return: NULL without memory or where
 * @prog_fd < 0 (the program was not loaded).
 */
struct pp_ksym_bpf *pp_ksym_bpf__use(int prog_fd, unsigned long long *addr, char *text,
				     long *ret);
/** pp_ksym_bpf__free() - unload (unless borrowed); accepts NULL. */
void pp_ksym_bpf__free(struct pp_ksym_bpf *k);
/** pp_ksym_bpf__lookup() - the kernel's "%pS" text of @addr. Return: 0 or -errno. */
int pp_ksym_bpf__lookup(struct pp_ksym_bpf *k, uint64_t addr, char *text, size_t len);

/* A "%pS" text split: the symbol holding an address. */
struct pp_ksym_text {
	uint64_t start;
	uint32_t size;
	const char *name, *module;	/* into the text, not terminated */
	size_t name_len, module_len;	/* module_len 0: vmlinux */
};

/** pp_ksym_parse() - split the "%pS" text of @addr. Return: 0, -ENOENT if no symbol. */
int pp_ksym_parse(const char *text, uint64_t addr, struct pp_ksym_text *out);

/**
 * pp_elf_sym_offset() - file offset of function @func in ELF @path.
 * Return: 0 with *@off, -ENOENT (no such symbol), -errno.
 */
int pp_elf_sym_offset(const char *path, const char *func, uint64_t *off);

/* ---- the output file (record/output.c) ---- */

/**
 * pp_output__create() - a new temporary file next to @path, written from the
 * start, after taking @path.lock (flock, held until exit) so that a second
 * recorder of the same @path fails at once. @path itself is replaced only by
 * pp_output__commit(), so a run that never starts leaves an old @path as it was.
 * Return: the file's fd, or -1 with @err set (@len bytes) and @usage 1 when
 * the path itself is wrong (too long, a directory).
 */
int pp_output__create(const char *path, char *err, size_t len, int *usage);
/**
 * pp_output__commit() - recording started: an existing @path (even a
 * symlink: the link itself) becomes @path.old and the temporary @path.
 * Return: 0, or -1 with @err set.
 */
int pp_output__commit(const char *path, char *err, size_t len);
/** pp_output__cleanup() - remove the temporary (if not committed) and the lock; for atexit(). */
void pp_output__cleanup(void);

/* ---- targets (record/targets.c) ---- */

/** pp_targets__add() - append @p to @v (@n) unless there. Return: 0 or -ENOMEM. */
int pp_targets__add(pid_t **v, int *n, pid_t p);
/**
 * pp_targets__pids() - a -p (@threads_of: every thread of each process) or -t
 * LIST, comma-separated: the threads appended to @threads, each id to @procs.
 * Return: 0, -EINVAL (a bad or unknown id) or -ENOMEM, with @err set (@len bytes).
 */
int pp_targets__pids(const char *list, int threads_of, pid_t **threads, int *nr_threads,
		     pid_t **procs, int *nr_procs, char *err, size_t len);
/**
 * pp_targets__cgroups() - --cgroups LIST: each entry a perf_event cgroup path
 * below the hierarchy, or else a regular expression (POSIX extended, matched
 * against the whole relative path) selecting every matching cgroup, as
 * perf-prof does; their directory fds appended to @fds (@nr).
 * Return: 0, -EINVAL (no hierarchy, no match, a bad pattern) or -ENOMEM, with @err set.
 */
int pp_targets__cgroups(const char *list, int **fds, int *nr, char *err, size_t len);

/* ---- output files: rotation and flight-recorder dumps (record/rotate.c, flight.c) ---- */

struct pp_io;
struct pp_writer;
#include "pp/writer.h"

#define PP_ROTATE_META	4

/*
 * struct pp_rotate - the files of one run (--rotate, --flight-recorder).
 * @output: -o, whose stem and extension name the files; @ext_at: where its
 * extension starts; @seq: files named so far; @every_ns, @bytes: --rotate;
 * @max_files: --max-files (0: no limit); @names: this run's files that
 * exist, oldest first; @files, @removed: files written and removed;
 * @opened_ns: when the current file started; @meta: the metadata every
 * file starts with; @wo: writer options; @kallsyms_all, @snap, @nr_snap:
 * what the symbol snapshot of a new file covers (@nr_snap 0: every
 * process); @ksym_fn, @ksym_ctx: pp_syms__set_ksym_fn() for new collectors;
 * @sb: the side-band records seen, which new collectors scan; @sample_type_of,
 * @st_ctx: an event id's sample_type, for that scan.
 */
struct pp_rotate {
	const char *output;
	size_t ext_at;
	unsigned int seq;
	uint64_t every_ns, bytes;
	int max_files;
	char **names;
	int nr_names;
	uint64_t files, removed;
	uint64_t opened_ns;
	int fd;				/* the last file opened */
	struct { uint16_t type; struct pp_buf b; } meta[PP_ROTATE_META];
	int nr_meta;
	struct pp_writer_opts wo;
	int kallsyms_all;
	const pid_t *snap;
	int nr_snap;
	int (*ksym_fn)(void *ctx, uint64_t addr, char *text, size_t len);
	void *ksym_ctx;
	struct pp_buf sb;		/* side-band records seen (pp_rotate__sideband) */
	uint64_t sb_dropped;
	uint64_t (*sample_type_of)(uint64_t id, void *ctx);
	void *st_ctx;
};

#define PP_ROTATE_SB_MAX	(16u << 20)

/** pp_rotate__sideband() - keep a chunk's side-band records for new files' maps. */
void pp_rotate__sideband(struct pp_rotate *rt, const void *buf, size_t len);

/** pp_rotate_parse() - --rotate TIME or SIZE. Return: 0 or -EINVAL. */
int pp_rotate_parse(const char *arg, uint64_t *ns, uint64_t *bytes);
/** pp_rotate__init() - @rt zeroed; names from @output; @max_files 0: no limit. */
void pp_rotate__init(struct pp_rotate *rt, const char *output, int max_files);
/** pp_rotate__exit() - free names and kept metadata. */
void pp_rotate__exit(struct pp_rotate *rt);
/** pp_rotate__next_name() - STEM-YYYYMMDD-HHMMSS-NNNN.EXT (UTC) of the next file. */
void pp_rotate__next_name(struct pp_rotate *rt, char *buf, size_t len);
/** pp_rotate__added() - @name exists now; remove the oldest beyond --max-files. */
void pp_rotate__added(struct pp_rotate *rt, const char *name);
/** pp_rotate__keep() - a metadata payload every new file starts with. */
void pp_rotate__keep(struct pp_rotate *rt, uint16_t type, const struct pp_buf *b);
/** pp_rotate__due() - whether to start the next file before the next chunk. */
int pp_rotate__due(const struct pp_rotate *rt, uint64_t now, uint64_t size);
/**
 * pp_rotate__start() - open the next file with the kept metadata and a new
 * symbol collector's snapshot. @io, @w, @syms: receive them (caller frees).
 * Return: 0 or -errno with @err set.
 */
int pp_rotate__start(struct pp_rotate *rt, uint64_t now, struct pp_io **io, struct pp_writer **w,
		     struct pp_syms **syms, char *name, size_t namelen, char *err, size_t errlen);
/** pp_rotate__write_syms() - append what @syms discovered to @w. Return: 0 or -errno. */
int pp_rotate__write_syms(struct pp_writer *w, struct pp_syms *syms);

struct pp_flight;

/** pp_flight__new() - keep @window_ns of records in at most @max_bytes. */
struct pp_flight *pp_flight__new(uint64_t window_ns, size_t max_bytes);
/** pp_flight__free() - accepts NULL. */
void pp_flight__free(struct pp_flight *f);
/** pp_flight__add() - keep a copy of a data chunk, evict the old. Return: 0 or -ENOMEM. */
int pp_flight__add(struct pp_flight *f, const struct pp_chunk_desc *d, const void *buf, size_t len);
/** pp_flight__lost() - LOST items written into every later dump. */
void pp_flight__lost(struct pp_flight *f, const void *items, size_t len);
/** pp_flight__status() - bytes kept and the seconds they span. */
void pp_flight__status(const struct pp_flight *f, uint64_t *bytes, double *secs);
/**
 * pp_flight__dump() - the records of [@t_end - window, @t_end] into a new
 * complete file. Return: 0 or -errno with @err set.
 */
int pp_flight__dump(struct pp_flight *f, uint64_t t_end, struct pp_rotate *rt, uint64_t now,
		    uint64_t (*sample_type_of)(uint64_t id, void *ctx), void *ctx, char *name,
		    size_t namelen, uint64_t *nr_records, char *err, size_t errlen);

#endif /* PP_RECORD_H */
