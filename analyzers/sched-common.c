// SPDX-License-Identifier: MIT
/*
 * Helpers shared by the scheduling and latency profilers: module options,
 * a u64-keyed entry map, sched tracepoint fields, copied stacks.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pp/replay.h"
#include "sched-common.h"
#include "hist.h"
#include "json.h"

const char *const pp_sched_state_names[PP_ST_NR] = {
	[PP_ST_R] = "R", [PP_ST_RP] = "R+", [PP_ST_S] = "S", [PP_ST_D] = "D",
	[PP_ST_T] = "T", [PP_ST_I] = "I", [PP_ST_X] = "X",
};

/**
 * pp_sched_state_bit() - the state bit of a state option name ("S", "D", ...).
 * @name: option name without dashes.
 * Return: the bit, or 0.
 */
unsigned int pp_sched_state_bit(const char *name)
{
	for (int i = 0; i < PP_ST_NR; i++) {
		if (!strcmp(name, pp_sched_state_names[i]))
			return 1u << i;
	}
	return 0;
}

/* Module option name of each state (task-state -S, -D, ...). */
static const char *const state_opt[PP_ST_NR] = {
	[PP_ST_R] = "running", [PP_ST_RP] = "runnable", [PP_ST_S] = "interruptible",
	[PP_ST_D] = "uninterruptible", [PP_ST_T] = "stopped", [PP_ST_I] = "idle", [PP_ST_X] = "dead",
};

/**
 * pp_sched_opts__parse() - collect the module options from the parsed command line.
 * @so: receives the options; @o: the parsed options; @module: for messages.
 *
 * pp_opts__parse() already refused what the module's table does not list;
 * this turns the values into fields (state bits, comm globs, times).
 * Return: 0, -ENOMEM or -EINVAL (message printed).
 */
int pp_sched_opts__parse(struct pp_sched_opts *so, const struct pp_opts *o, const char *module)
{
	const char *v;
	size_t len = 0;
	char *p;

	memset(so, 0, sizeof(*so));
	for (int st = 0; st < PP_ST_NR; st++) {
		if (pp_opts__mod(o, state_opt[st]))
			so->states |= 1u << st;
	}
	so->detail = pp_opts__mod(o, "detail") != NULL;
	so->perthread = pp_opts__mod(o, "perthread") != NULL;
	so->heatmap = pp_opts__mod(o, "heatmap");
	v = pp_opts__mod(o, "bucket");
	if (!v)
		v = pp_opts__mod(o, "period");
	if (v && (pp_time_parse(v, &so->bucket_ns) || !so->bucket_ns ||
		  so->bucket_ns > 3600000000000ull)) {
		return pp_analyzer__err(module, -EINVAL, "bad bucket '%s' (a time from 1ns to 1h, e.g. 100us, "
			"1ms)", v);
	}
	for (int n = 0; (v = pp_opts__mod_nth(o, "filter", n)); n++)
		len += strlen(v) + 1;
	if (!len)
		return 0;
	so->storage = malloc(len);
	if (!so->storage)
		return -ENOMEM;
	p = so->storage;
	for (int n = 0; (v = pp_opts__mod_nth(o, "filter", n)); n++) {
		char *save = NULL, *g;

		strcpy(p, v);
		for (g = strtok_r(p, ",", &save); g; g = strtok_r(NULL, ",", &save)) {
			if (so->nr_filter >= PP_SCHED_MAX_FILTERS) {
				pp_sched_opts__exit(so);
				return pp_analyzer__err(module, -EINVAL, "too many --filter globs");
			}
			so->filter[so->nr_filter++] = g;
		}
		p += strlen(v) + 1;
	}
	return 0;
}

/**
 * pp_sched_opts__exit() - free the options' storage.
 * @so: options (zeroed ones accepted).
 */
void pp_sched_opts__exit(struct pp_sched_opts *so)
{
	free(so->storage);
	so->storage = NULL;
}

/**
 * pp_sched_opts__comm_ok() - does @comm pass the --filter globs?
 * @so: options; @comm: task name.
 * Return: 1 or 0.
 */
int pp_sched_opts__comm_ok(const struct pp_sched_opts *so, const char *comm)
{
	if (!so->nr_filter)
		return 1;
	for (int i = 0; i < so->nr_filter; i++) {
		if (!fnmatch(so->filter[i], comm, 0))
			return 1;
	}
	return 0;
}

/* ---- u64 -> entry map ---- */

static inline size_t kmap_hash(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return (size_t)k;
}

/**
 * pp_kmap__init() - an empty map.
 * @m: map; @entry_size: bytes per entry.
 */
void pp_kmap__init(struct pp_kmap *m, size_t entry_size)
{
	memset(m, 0, sizeof(*m));
	m->entry_size = (entry_size + 15) & ~(size_t)15;
}

/**
 * pp_kmap__exit() - free everything.
 * @m: map.
 */
void pp_kmap__exit(struct pp_kmap *m)
{
	for (size_t i = 0; i < m->nr_blocks; i++)
		free(m->blocks[i]);
	free(m->blocks);
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

/**
 * pp_kmap__find() - look @key up.
 * @m: map; @key: key.
 * Return: entry or NULL.
 */
void *pp_kmap__find(const struct pp_kmap *m, uint64_t key)
{
	if (!m->cap)
		return NULL;
	for (size_t i = kmap_hash(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (!m->vals[i])
			return NULL;
		if (m->keys[i] == key)
			return m->vals[i];
	}
}

static int kmap_grow(struct pp_kmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 256;
	uint64_t *keys = calloc(cap, sizeof(*keys));
	void **vals = calloc(cap, sizeof(*vals));

	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++) {
		size_t j;

		if (!m->vals[i])
			continue;
		for (j = kmap_hash(m->keys[i]) & (cap - 1); vals[j]; j = (j + 1) & (cap - 1))
			;
		keys[j] = m->keys[i];
		vals[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = cap;
	return 0;
}

static void *kmap_alloc(struct pp_kmap *m)
{
	void *p;

	if (m->block_used + m->entry_size > m->block_cap) {
		size_t cap = m->entry_size * 64;
		void **blocks = realloc(m->blocks, (m->nr_blocks + 1) * sizeof(*blocks));

		if (!blocks)
			return NULL;
		m->blocks = blocks;
		m->block = calloc(1, cap);
		if (!m->block)
			return NULL;
		m->blocks[m->nr_blocks++] = m->block;
		m->block_used = 0;
		m->block_cap = cap;
	}
	p = m->block + m->block_used;
	m->block_used += m->entry_size;
	return p;
}

/**
 * pp_kmap__get() - find or create the entry of @key.
 * @m: map; @key: key; @created: set to 1 for a new entry (may be NULL).
 * Return: entry or NULL on ENOMEM.
 */
void *pp_kmap__get(struct pp_kmap *m, uint64_t key, int *created)
{
	void *v = pp_kmap__find(m, key);
	size_t i;

	if (created)
		*created = 0;
	if (v)
		return v;
	if ((m->nr + 1) * 2 > m->cap && kmap_grow(m))
		return NULL;
	v = kmap_alloc(m);
	if (!v)
		return NULL;
	for (i = kmap_hash(key) & (m->cap - 1); m->vals[i]; i = (i + 1) & (m->cap - 1))
		;
	m->keys[i] = key;
	m->vals[i] = v;
	m->nr++;
	if (created)
		*created = 1;
	return v;
}

/**
 * pp_kmap__nth() - the entry in slot @i.
 * @m: map; @i: slot below m->cap; @key: receives its key (may be NULL).
 * Return: entry, or NULL for an empty slot.
 */
void *pp_kmap__nth(const struct pp_kmap *m, size_t i, uint64_t *key)
{
	if (i >= m->cap || !m->vals[i])
		return NULL;
	if (key)
		*key = m->keys[i];
	return m->vals[i];
}

/* ---- sched tracepoints ---- */

/**
 * pp_sched_fields__init() - find sched_switch and the wakeup events.
 * @sf: receives the handles; @s: session; @module: for messages;
 * @need_wakeup: require a wakeup event too.
 * Return: 0 or -ENOENT (message printed).
 */
int pp_sched_fields__init(struct pp_sched_fields *sf, struct pp_session *s, const char *module,
			  int need_wakeup)
{
	static const char *const wk[3] = { "sched:sched_waking", "sched:sched_wakeup",
					   "sched:sched_wakeup_new" };
	size_t nr;
	struct pp_evsel *evs = pp_session__evsels(s, &nr);

	memset(sf, 0, sizeof(*sf));
	for (size_t i = 0; i < nr; i++) {
		struct pp_evsel *ev = &evs[i];

		if (!ev->tp)
			continue;
		if (!strcmp(ev->name, "sched:sched_switch")) {
			sf->sw = ev;
			sf->prev_pid = pp_evsel__field(ev, "prev_pid");
			sf->prev_state = pp_evsel__field(ev, "prev_state");
			sf->prev_comm = pp_evsel__field(ev, "prev_comm");
			sf->next_pid = pp_evsel__field(ev, "next_pid");
			sf->next_comm = pp_evsel__field(ev, "next_comm");
		}
		for (int w = 0; w < 3; w++) {
			if (strcmp(ev->name, wk[w]))
				continue;
			if (w == 0)
				sf->waking = ev;
			else if (w == 1)
				sf->wakeup = ev;
			else
				sf->wakeup_new = ev;
			sf->wk_pid[w] = pp_evsel__field(ev, "pid");
			sf->wk_comm[w] = pp_evsel__field(ev, "comm");
		}
	}
	if (!sf->sw || !sf->prev_pid || !sf->prev_state || !sf->next_pid) {
		fprintf(stderr, "pp-analyze: %s needs sched:sched_switch in the trace "
			"(pp-record -e sched:sched_switch,sched:sched_waking ...)\n", module);
		return -ENOENT;
	}
	if (need_wakeup && !sf->waking && !sf->wakeup && !sf->wakeup_new) {
		fprintf(stderr, "pp-analyze: %s needs sched:sched_waking or sched:sched_wakeup in the trace\n",
			module);
		return -ENOENT;
	}
	return 0;
}

/**
 * pp_sched_state_of() - the state a task leaves the CPU in.
 * @prev_state: sched_switch prev_state (TASK_REPORT bits, 0x100 = preempted).
 * Return: the state.
 */
enum pp_sched_state pp_sched_state_of(uint64_t prev_state)
{
	uint64_t st = prev_state & 0xff;

	if (!st)
		return PP_ST_RP;
	if (st & 0x01)
		return PP_ST_S;
	if (st & 0x02)
		return PP_ST_D;
	if (st & 0x0c)
		return PP_ST_T;
	if (st & 0x80)
		return PP_ST_I;
	return PP_ST_X;
}

/* ---- copied stacks ---- */

/**
 * pp_stack_copy__set() - copy @e's callchain.
 * @c: destination; @e: event.
 */
void pp_stack_copy__set(struct pp_stack_copy *c, const struct pp_event *e)
{
	uint32_t n = e->nr_callchain < PP_SCHED_MAX_STACK ? e->nr_callchain : PP_SCHED_MAX_STACK;

	if (n)
		memcpy(c->ips, e->callchain, n * sizeof(c->ips[0]));
	c->nr = n;
	c->pid = e->pid;
	c->tid = e->tid;
	c->evsel = e->evsel;
}

static void stack_event(const struct pp_stack_copy *c, struct pp_event *e)
{
	memset(e, 0, sizeof(*e));
	e->evsel = c->evsel;
	e->pid = c->pid;
	e->tid = c->tid;
	e->callchain = c->ips;
	e->nr_callchain = c->nr;
}

/**
 * pp_stack_copy__print() - print a copied stack.
 * @s: session; @c: the stack; @indent: line prefix.
 */
void pp_stack_copy__print(struct pp_session *s, const struct pp_stack_copy *c, const char *indent)
{
	struct pp_event e;

	if (!c->nr || !c->evsel)
		return;
	stack_event(c, &e);
	pp_session__print_stack(s, &e, indent);
}

/**
 * pp_stack_copy__json() - a copied stack as a JSON member.
 * @s: session; @c: the stack.
 */
void pp_stack_copy__json(struct pp_session *s, const struct pp_stack_copy *c)
{
	struct pp_event e;

	if (!c->nr || !c->evsel)
		return;
	stack_event(c, &e);
	pp_json__stack(s, &e);
}

/**
 * pp_stack_copy__frames() - frames of a copied stack, root first.
 * @s: session; @c: stack; @comm: root frame; @names, @frames, @max: storage.
 * Return: number of frames.
 */
size_t pp_stack_copy__frames(struct pp_session *s, const struct pp_stack_copy *c, const char *comm,
			     char (*names)[128], const char **frames, size_t max)
{
	struct pp_event e;
	size_t n;

	if (!max)
		return 0;
	if (!c->evsel) {
		snprintf(names[0], 128, "%s", comm);
		frames[0] = names[0];
		return 1;
	}
	stack_event(c, &e);
	n = pp_session__stack_frames(s, &e, names, frames, max);
	if (n)
		snprintf(names[0], 128, "%s", comm);
	return n;
}

/**
 * pp_sched_ns() - ns for a table cell.
 * @buf: 16 bytes; @ns: value.
 * Return: @buf.
 */
char *pp_sched_ns(char *buf, uint64_t ns)
{
	return pp_ns_format(buf, 16, ns);
}
