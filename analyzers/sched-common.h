/* SPDX-License-Identifier: MIT */
/*
 * Shared by the scheduling and latency profilers (task-state, rundelay,
 * syscalls, multi-trace, nested-trace, oncpu, hrcount, percpu-stat):
 *
 * - module options (-S, -D, --filter GLOB, --detail, --heatmap NAME, ...):
 *   each module lists them in its pp_mod_opt table, pp_opts__parse() checks
 *   them, pp_sched_opts__parse() turns them into fields;
 * - a u64 -> entry hash map (thread ids, join keys) whose entries are
 *   allocated once per new key, never per event;
 * - sched_switch / wakeup field lookup and task-state letters;
 * - printing a callchain that was copied earlier.
 */
#ifndef PP_ANALYZERS_SCHED_COMMON_H
#define PP_ANALYZERS_SCHED_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include "pp/replay.h"

#define PP_SCHED_MAX_FILTERS	16
#define PP_SCHED_MAX_STACK	128

/* Task states as task-state prints them (index into pp_sched_state_names). */
enum pp_sched_state {
	PP_ST_R = 0,	/* running on a CPU */
	PP_ST_RP,	/* R+: runnable, waiting for a CPU (preempted or woken) */
	PP_ST_S,	/* interruptible sleep */
	PP_ST_D,	/* uninterruptible sleep */
	PP_ST_T,	/* stopped (T) or traced (t) */
	PP_ST_I,	/* idle kernel thread */
	PP_ST_X,	/* dead, zombie, parked, other */
	PP_ST_NR,
};

extern const char *const pp_sched_state_names[PP_ST_NR];

/* Module options beyond struct pp_opts. */
struct pp_sched_opts {
	unsigned int states;			/* bit per enum pp_sched_state, 0 = all */
	const char *filter[PP_SCHED_MAX_FILTERS];	/* comm globs */
	int nr_filter;
	int detail;				/* --detail */
	const char *heatmap;			/* --heatmap NAME */
	int perthread;				/* --perthread (syscalls) */
	uint64_t bucket_ns;			/* --bucket TIME (hrcount) */
	char *storage;				/* copies of the --filter values */
};

/**
 * pp_sched_opts__parse() - module options from the parsed command line.
 * @so: receives the options (zeroed first); free with pp_sched_opts__exit().
 * @o: the options pp_opts__parse() filled (module options in o->mod).
 * @module: module name, for messages.
 *
 * State flags are the long names running, runnable, interruptible (-S),
 * uninterruptible (-D), stopped, idle, dead; --filter is repeatable and
 * comma separated; --bucket or --period is a time.
 * Return: 0, or -EINVAL with a one-line message on stderr.
 */
int pp_sched_opts__parse(struct pp_sched_opts *so, const struct pp_opts *o, const char *module);

/* Option table entries shared by the scheduling modules. */
#define PP_SCHED_OPT_FILTER \
	{ "filter", 0, 1, "GLOB[,GLOB]  only tasks whose comm matches (repeatable)" }

/** pp_sched_opts__exit() - free what pp_sched_opts__parse() allocated. */
void pp_sched_opts__exit(struct pp_sched_opts *so);

/**
 * pp_sched_opts__comm_ok() - does @comm pass the --filter globs?
 * Return: 1 when there is no filter or a glob matches, else 0.
 */
int pp_sched_opts__comm_ok(const struct pp_sched_opts *so, const char *comm);

/*
 * A hash map from a u64 key to a fixed-size entry (open addressing,
 * linear probing, grown at 50% load). Entries are allocated in blocks and
 * never move, so a pointer to one stays valid until pp_kmap__exit().
 */
struct pp_kmap {
	uint64_t *keys;
	void **vals;
	size_t cap;			/* power of two */
	size_t nr;
	size_t entry_size;
	char *block;			/* current allocation block */
	size_t block_used, block_cap;
	void **blocks;			/* every block, for freeing */
	size_t nr_blocks;
};

/** pp_kmap__init() - an empty map of entries of @entry_size bytes. */
void pp_kmap__init(struct pp_kmap *m, size_t entry_size);

/** pp_kmap__exit() - free the map and every entry; accepts an empty map. */
void pp_kmap__exit(struct pp_kmap *m);

/**
 * pp_kmap__find() - the entry of @key.
 * Return: the entry, or NULL when absent.
 */
void *pp_kmap__find(const struct pp_kmap *m, uint64_t key);

/**
 * pp_kmap__get() - the entry of @key, created zeroed when absent.
 * @created: set to 1 when the entry is new (may be NULL).
 * Return: the entry, or NULL on allocation failure.
 */
void *pp_kmap__get(struct pp_kmap *m, uint64_t key, int *created);

/**
 * pp_kmap__nth() - iterate: the @i-th slot's entry and key.
 * Return: the entry, or NULL for an empty slot; iterate i < m->cap.
 */
void *pp_kmap__nth(const struct pp_kmap *m, size_t i, uint64_t *key);

/* Field handles of the scheduler tracepoints, looked up once per evsel. */
struct pp_sched_fields {
	const struct pp_evsel *sw, *waking, *wakeup, *wakeup_new;
	struct tep_format_field *prev_pid, *prev_state, *prev_comm, *next_pid, *next_comm;
	struct tep_format_field *wk_pid[3], *wk_comm[3];
};

/**
 * pp_sched_fields__init() - find sched_switch and the wakeup events of @s.
 * @need_wakeup: also require one of sched_waking/sched_wakeup.
 * Return: 0, or -ENOENT with a message naming what to record.
 */
int pp_sched_fields__init(struct pp_sched_fields *sf, struct pp_session *s, const char *module,
			  int need_wakeup);

/**
 * pp_sched_state_of() - the state a task leaves the CPU in, from prev_state.
 * Return: an enum pp_sched_state.
 */
enum pp_sched_state pp_sched_state_of(uint64_t prev_state);

/**
 * pp_sched_states_parse() - "-S", "-D", ... letters to a state bit mask.
 * Return: the bit, 0 if @name is not a state option.
 */
unsigned int pp_sched_state_bit(const char *name);

/* A callchain copied out of an event, to print later. */
struct pp_stack_copy {
	uint64_t ips[PP_SCHED_MAX_STACK];
	uint32_t nr;
	uint32_t pid, tid;
	const struct pp_evsel *evsel;
};

/** pp_stack_copy__set() - copy @e's callchain (cut at PP_SCHED_MAX_STACK). */
void pp_stack_copy__set(struct pp_stack_copy *c, const struct pp_event *e);

/**
 * pp_stack_copy__print() - print a copied stack, one frame a line, callee
 * first, each prefixed by @indent.
 */
void pp_stack_copy__print(struct pp_session *s, const struct pp_stack_copy *c, const char *indent);

/**
 * pp_stack_copy__json() - a copied stack as the member ,"stack":[...] of a
 * --json object (json.h), callee first; nothing for an empty stack.
 */
void pp_stack_copy__json(struct pp_session *s, const struct pp_stack_copy *c);

/**
 * pp_stack_copy__frames() - the frames of a copied stack, root first, with
 * @comm as the root frame; kernel frames suffixed "_[k]".
 * Return: number of frames.
 */
size_t pp_stack_copy__frames(struct pp_session *s, const struct pp_stack_copy *c, const char *comm,
			     char (*names)[128], const char **frames, size_t max);

/**
 * pp_sched_ns() - format ns for a table: "20.1ms"; @buf of 16 bytes.
 * Return: @buf.
 */
char *pp_sched_ns(char *buf, uint64_t ns);

#endif /* PP_ANALYZERS_SCHED_COMMON_H */
