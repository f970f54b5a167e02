/* SPDX-License-Identifier: MIT */
/*
 * pprof export: the stacks a profiler draws as a flame graph, written as a
 * gzip-compressed profile.proto (analyzers/pprof.proto) that `go tool
 * pprof`, Pyroscope, Parca and Grafana read.
 *
 * A profiler creates one collector with its sample types (what each value
 * counts, in what unit), adds each weighted stack once (the same place it
 * adds it to its flame graph) and writes the file at its report. Stacks are
 * aggregated on (frames, pid, tid, comm): memory grows with the distinct
 * stacks, not with the samples.
 *
 * Frames are code addresses, root first (as pp_session__stack_ips() gives
 * them): each becomes a Location in the Mapping it falls in (file, range,
 * offset, build-id) with one Line naming its Function, symbolized by pp
 * (Mapping.has_functions is set, so clients do not symbolize again).
 * Pseudo frames ("[S]", "[lock 0x...]") are Locations with a function and
 * no mapping. The comm, pid and tid of each stack are Sample labels.
 */
#ifndef PP_ANALYZERS_PPROF_H
#define PP_ANALYZERS_PPROF_H

#include <stddef.h>
#include <stdint.h>

struct pp_session;
struct pp_event;
struct pp_pprof;

#define PP_PPROF_MAX_TYPES	4

/* One sample type: what a value measures ("cpu") and its unit ("nanoseconds"). */
struct pp_pprof_type {
	const char *type;
	const char *unit;
};

/**
 * struct pp_pprof_desc - what a profile holds.
 * @types, @nr_types: the sample types, at most PP_PPROF_MAX_TYPES; every
 *                    add passes one value for each, in this order.
 * @period_type: what one sampling period is ("cpu", "nanoseconds"); its
 *               type NULL when the profile is not sampled.
 * @period: the sampling period in @period_type's unit, 0 when none.
 * @default_type: the type `go tool pprof` shows first (one of @types), or NULL.
 * @comment: one line about where the profile comes from, or NULL.
 */
struct pp_pprof_desc {
	struct pp_pprof_type types[PP_PPROF_MAX_TYPES];
	size_t nr_types;
	struct pp_pprof_type period_type;
	int64_t period;
	const char *default_type;
	const char *comment;
};

/**
 * pp_pprof__new() - an empty collector
 * @desc: the sample types (copied; the strings must outlive the collector)
 *
 * Return: the collector, freed with pp_pprof__free(); NULL and errno
 * (EINVAL for a bad @desc, ENOMEM).
 */
struct pp_pprof *pp_pprof__new(const struct pp_pprof_desc *desc);

/** pp_pprof__free() - free a collector; accepts NULL. */
void pp_pprof__free(struct pp_pprof *pp);

/**
 * pp_pprof__add() - add @values to one stack
 * @pp: the collector
 * @s: the session, to symbolize @ips and find their mappings
 * @pid, @tid, @comm: the task (labels); @comm NULL for none
 * @ips, @kernel: @nr code addresses, root (outermost caller) first, and 1
 *                for each kernel address (see pp_session__stack_ips())
 * @leaves, @nr_leaves: pseudo frames added below the innermost address, in
 *                      order ("[S]", "[lock 0x10]"), or NULL, 0
 * @values: one value per sample type of the collector
 *
 * A stack with no frame at all gets the single frame "[unknown]".
 * Return: 0 or -ENOMEM.
 */
int pp_pprof__add(struct pp_pprof *pp, struct pp_session *s, uint32_t pid, uint32_t tid,
		  const char *comm, const uint64_t *ips, const uint8_t *kernel, size_t nr,
		  const char *const *leaves, size_t nr_leaves, const int64_t *values);

/**
 * pp_pprof__add_event() - pp_pprof__add() of an event's own callchain (or
 * its ip when it has none), under the comm the session knows for its thread
 * @pp: the collector; @s: the session; @e: the event
 * @leaves, @nr_leaves, @values: as for pp_pprof__add()
 *
 * Return: 0 or -ENOMEM.
 */
int pp_pprof__add_event(struct pp_pprof *pp, struct pp_session *s, const struct pp_event *e,
			const char *const *leaves, size_t nr_leaves, const int64_t *values);

/**
 * pp_pprof__write() - write the profile, gzip-compressed, to @path
 * @pp: the collector; @s: the session (wall-clock time of @start_ns)
 * @start_ns, @end_ns: what the profile covers (perf clock), for its time
 *                     and duration; 0, 0 when unknown
 * @path: the file ("-" is not accepted: the output is binary)
 *
 * Return: 0, -ENOMEM, or -errno of the failed write (a message is printed
 * as "pp-analyze: PATH: ...").
 */
int pp_pprof__write(struct pp_pprof *pp, struct pp_session *s, uint64_t start_ns, uint64_t end_ns,
		    const char *path);

/**
 * pp_pprof__report() - what every profiler does with --pprof at its report:
 * write @pp to @path, say so on stderr, fail the session on an error.
 * @pp: the collector (NULL: nothing to do); @s, @start_ns, @end_ns, @path:
 * as for pp_pprof__write().
 */
void pp_pprof__report(struct pp_pprof *pp, struct pp_session *s, uint64_t start_ns,
		      uint64_t end_ns, const char *path);

/**
 * pp_pprof__samples() - number of distinct stacks held (for tests and bench).
 */
size_t pp_pprof__samples(const struct pp_pprof *pp);

/* The --pprof module option, for a module's pp_mod_opt table. */
#define PP_PPROF_MOD_OPT \
	{ "pprof", 0, 1, "FILE  also write the stacks as a gzip'd pprof profile (go tool pprof, Pyroscope, Parca)" }

/**
 * pp_pprof__check_opt() - check a module's --pprof FILE before the replay
 * (a module that creates its collector only at its report)
 * @s: the session
 *
 * Return: 0 (also when --pprof was not given), or -errno with a message:
 * -EINVAL for "-" or a directory, the directory's error otherwise.
 */
int pp_pprof__check_opt(struct pp_session *s);

/**
 * pp_pprof__open_opt() - the collector for a module's --pprof option
 * @s: the session (its --pprof value is checked like a flame-graph name)
 * @desc: the sample types
 * @pp: receives the collector, or NULL when --pprof was not given
 *
 * Return: 0, or -errno (message printed) for a bad path or no memory.
 */
int pp_pprof__open_opt(struct pp_session *s, const struct pp_pprof_desc *desc, struct pp_pprof **pp);

#endif /* PP_ANALYZERS_PPROF_H */
