/* SPDX-License-Identifier: MIT */
/*
 * The recorder: perf events (and, with .ftrace, a tracefs instance's rings)
 * drained into a pp trace file, a series of rotated files, or a flight
 * recorder's memory (spec/pp-record.md). pp-record is its command line.
 *
 *	struct pp_recorder_opts o = { .sz = sizeof(o), .es = &es, ... };
 *	r = pp_recorder__new(&o, err, sizeof(err), &usage);	events open, file started
 *	pp_recorder__start(r, err, sizeof(err));		events on
 *	(start the workload)
 *	pp_recorder__commit(r, err, sizeof(err));		the file takes its name
 *	while (...)
 *		pp_recorder__run(r, timeout_ms, err, sizeof(err));	drain, flush, write
 *	pp_recorder__stop(r);					off, all written
 *	pp_recorder__summary(r, stderr);
 *	pp_recorder__free(r);
 *
 * Threads: the caller's thread drains the per-CPU rings into per-CPU chunk
 * buffers (no allocation, no syscall per record); a full buffer, and every
 * .flush_ms any non-empty one, goes to a writer thread through a bounded
 * queue and is replaced by a free buffer from a fixed pool. When no buffer
 * is free the data is dropped, counted, and reported in a LOST chunk: the
 * drain never waits for the disk. The writer compresses and appends chunks
 * in order, then learns symbols from the records it just wrote and appends
 * KSYMS/USYMS/MMAPS. With .ftrace, a reader thread per tracefs ring.
 */
#ifndef PP_RECORDER_H
#define PP_RECORDER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "pp/bpf.h"
#include "pp/evspec.h"

struct pp_recorder;
struct pp_bpf_output;

/**
 * struct pp_recorder_opts - what to record, where to, and how.
 * @sz: sizeof(struct pp_recorder_opts) as the caller knows it (fields past
 *      it read as 0), as libbpf's opts.
 *
 * What: @es: the events (borrowed; the recorder may add its own); @specs,
 * @nr_specs: the -e specs @es's entries point at (pp_evdesc.spec: a
 * trigger); @bpf_output: a --bpf-output source whose event is in @es
 * (borrowed); @bpf: in-kernel filters on every event; @agg, @agg_path: the
 * in-kernel aggregator to load (enum pp_agg) and the binary it probes;
 * @profiler: the profiler that chose the events (messages), or NULL.
 *
 * Where: @cpus, @nr_cpus: the CPUs (each opened on); @threads, @nr_threads:
 * per-thread events (NULL: every task) unless @cgroup_fds, @nr_cgroups;
 * @widen: the events see every task, the targets go into the file
 * (@target_pids, @target_tids: MACHINE's keys); @child: the workload (> 0)
 * (@child_path: the program it will exec, or NULL),
 * @follow: its events are enabled at its exec and inherited; @procs,
 * @nr_procs: the -p processes (the aggregator's and the snapshot's);
 * @pids_given: -p was given (their children are followed under --ftrace).
 *
 * How: @output: the file (or the stem of rotated and dumped files);
 * @mmap_pages: ring pages per CPU (0: the default); @chunk_size, @queue,
 * @flush_ms, @codec, @level, @encoding (enum pp_data_encoding): chunks;
 * @rt_prio: -1 default, 0 off, else SCHED_FIFO priority; @kallsyms_all;
 * @ftrace: tracepoints through a tracefs instance; @call_graph:
 * --call-graph's mode (PP_CG_*, record/record.h: plain -g walks user
 * stacks in the kernel where it can); @dwarf_stack: --call-graph=dwarf's
 * stack bytes (stacks unwound before written);
 * @rotate_ns, @rotate_bytes, @max_files; @flight_ns, @flight_size: a
 * flight recorder; @quiet: no messages but errors; @cmdline: MACHINE's;
 * @message, @message_ctx: what the recorder has to say while it runs (a
 * write error, a flight-recorder dump), one line without a tool prefix or
 * newline; NULL: nothing is said (the library prints nothing itself).
 */
struct pp_recorder_opts {
	size_t sz;
	struct pp_evdescs *es;
	const struct pp_evspec *specs;
	int nr_specs;
	struct pp_bpf_output *bpf_output;
	struct pp_bpf_filter_opts bpf;
	int agg;
	const char *agg_path;
	const char *profiler;

	const int *cpus;
	int nr_cpus;
	const pid_t *threads;
	int nr_threads;
	const int *cgroup_fds;
	int nr_cgroups;
	int widen;
	const char *target_pids, *target_tids;
	pid_t child;
	const char *child_path;
	int follow;
	const pid_t *procs;
	int nr_procs;
	int pids_given;

	const char *output;
	unsigned int mmap_pages;
	size_t chunk_size;
	int queue;
	int flush_ms;
	int codec;
	int level;
	int encoding;
	int rt_prio;
	int kallsyms_all;
	int ftrace;
	int call_graph;
	uint32_t dwarf_stack;
	uint64_t rotate_ns, rotate_bytes;
	int max_files;
	uint64_t flight_ns;
	size_t flight_size;
	int quiet;
	const char *cmdline;
	void (*message)(void *ctx, const char *line);
	void *message_ctx;
};

/**
 * pp_recorder__new() - open the events, start the output (a temporary file
 * until pp_recorder__commit(); none with a flight recorder), write its
 * metadata and symbol snapshot, attach the BPF parts, start the writer.
 * Return: the recorder, or NULL with @err set (@len bytes, one line, no
 * tool prefix) and *@usage 1 for a usage error (the options cannot work
 * here), 2 for a usage error that says all there is to say (no hint to
 * add), 0 for a runtime one.
 */
struct pp_recorder *pp_recorder__new(const struct pp_recorder_opts *opts, char *err, size_t len,
				     int *usage);
/**
 * pp_recorder__start() - turn the events on (unless .follow: at the
 * workload's exec) and the ftrace readers. Return: 0 or -errno with @err set.
 */
int pp_recorder__start(struct pp_recorder *r, char *err, size_t len);
/**
 * pp_recorder__commit() - recording started: the file takes its name (an
 * old one kept as NAME.old). Return: 0 or -1 with @err set.
 */
int pp_recorder__commit(struct pp_recorder *r, char *err, size_t len);
/**
 * pp_recorder__run() - one round: wait for the rings (at most @timeout_ms,
 * less when a flush is due), drain them, hand chunks to the writer, close
 * an aggregator's window, answer a trigger. Return: 0; -EIO when a write
 * error ended the recording (pp_recorder__stop() says which); another
 * -errno with @err set.
 */
int pp_recorder__run(struct pp_recorder *r, int timeout_ms, char *err, size_t len);
/** pp_recorder__dump() - a flight recorder: write what came up to @t (CLOCK_MONOTONIC ns). */
void pp_recorder__dump(struct pp_recorder *r, uint64_t t);
/**
 * pp_recorder__stop() - events off, the rest drained and written, the file
 * completed. Return: 0 or the -errno of a write error (the file is
 * readable up to the last complete chunk).
 */
int pp_recorder__stop(struct pp_recorder *r);
/** pp_recorder__output() - the file written last (rotation: the newest). */
const char *pp_recorder__output(const struct pp_recorder *r);
/**
 * pp_recorder__status() - the live status line for @elapsed_ns, without
 * a newline. Return: its length (snprintf's), or < 0.
 */
int pp_recorder__status(const struct pp_recorder *r, uint64_t elapsed_ns, char *line, size_t len);
/** pp_recorder__summary() - the end-of-run summary (after pp_recorder__stop()) to @fp. */
void pp_recorder__summary(const struct pp_recorder *r, FILE *fp);
/** pp_recorder__free() - stop what runs (nothing more written) and free; accepts NULL. */
void pp_recorder__free(struct pp_recorder *r);

/** pp_mono_ns() - CLOCK_MONOTONIC now, in ns (async-signal-safe). */
uint64_t pp_mono_ns(void);

#endif /* PP_RECORDER_H */
