/* SPDX-License-Identifier: MIT */
/*
 * pp-record's command line: the options (struct opts), their parsing and
 * checks, and the PROFILER words that choose the events through the module
 * table (tools/record-opts.c). tools/pp-record.c runs what they say.
 */
#ifndef PP_TOOLS_RECORD_OPTS_H
#define PP_TOOLS_RECORD_OPTS_H

#include <stddef.h>
#include <stdint.h>

#include "pp/bpf.h"
#include "pp/evspec.h"

#define EXIT_USAGE		2

/* ---- options ---- */

struct opts {
	struct pp_evspec *specs;
	int nr_specs;
	const char *output;
	const char *cpus;
	const char *pids;
	const char *tids;
	const char *cgroups;
	int all_cpus;
	double duration;	/* seconds, 0 = none */
	int output_set;		/* -o given (else "pp.trace") */
	int freq;
	int callgraph;
	int call_graph;			/* --call-graph MODE: PP_CG_* (record/record.h) */
	uint32_t dwarf_stack;		/* --call-graph=dwarf: user stack bytes, 0: fp */
	int exclude_user, exclude_kernel;
	unsigned int mmap_pages;
	size_t chunk_size;
	int queue;
	int flush_ms;		/* --flush-interval: data reaches the file at least this often */
	int codec;
	int level;		/* codec level, 0 = default */
	int encoding;		/* enum pp_data_encoding; -1: by the codec */
	int rt_prio;		/* -1 = default (1 when allowed), 0 = off */
	int kallsyms_all;
	int no_sideband;
	int ftrace;		/* --ftrace: tracepoints through a tracefs instance */
	int quiet;
	int help_events;
	char **workload;
	char *cmdline;
	const char *profiler;	/* pp-record PROFILER ...: events chosen by the module */
	struct pp_bpf_filter_opts bpf;	/* in-kernel filters on every event */
	int agg_kind;		/* enum pp_agg: the profiler's BPF aggregator, 0 none */
	char agg_path[400];	/* the binary it probes (pp_event_reqs.agg_path) */
	char preload[400];	/* a library of pp's the COMMAND loads (pp_event_reqs.preload) */
	char preload_env[64];	/* and what it reads from the environment */
	char trap_note[192];	/* its probes trap on every call: what (pp_event_reqs.trap_note) */
	const char *bpf_output;	/* --bpf-output SRC: a BPF event source */
	int system_wide;	/* a module's events must see every task (pp_event_reqs) */
	uint64_t rotate_ns, rotate_bytes;	/* --rotate TIME|SIZE */
	int max_files;		/* --max-files */
	uint64_t flight_ns;	/* --flight-recorder TIME */
	size_t flight_size;	/* --flight-size */
};

/* Parse pp-record's command line into @o; usage errors exit with EXIT_USAGE. */
void parse_opts(int argc, char **argv, struct opts *o);

/* A usage error: one line naming --help, exit EXIT_USAGE (record-opts.c). */
void die_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* A runtime error: one line, exit 1; clears the status line (pp-record.c). */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif
