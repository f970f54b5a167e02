// SPDX-License-Identifier: MIT
/*
 * convert --to=chrome: Trace Event JSON ({"traceEvents":[...]}) that
 * ui.perfetto.dev and chrome://tracing open. Written as the events come,
 * one object a line; what is kept is one entry per thread, CPU, process
 * named and event counted.
 *
 * - CPU tracks: a pseudo process "CPUs" (pid PP_CHROME_CPU_PID), one thread
 *   per CPU, "CPU N" with tid N + 1 (readers take tid 0 for none). Each sched_switch ends the slice of the task that ran on that
 *   CPU since the previous switch there ("X", named COMM/TID, args pid, tid
 *   and the state it left in); the idle task gets none.
 * - Thread states: on each thread's own track, an "X" slice per state
 *   interval, with task-state's rules (analyzers/task-state.c): a switch-out
 *   starts S, D or R+ (preempted) from prev_state, a wakeup turns S/D into
 *   R+, a switch-in or any event in the thread's own context starts R; a
 *   lost window forgets every state. Named running, runnable, sleeping,
 *   uninterruptible, stopped, idle, dead (task-state's R, R+, S, D, T, I, X).
 * - Instants: every other event, "i" on its thread, args its cpu, decoded
 *   fields and stack; lost windows are global instants.
 * - Counters: per event, its count in each -i interval (100 ms by default),
 *   "C" on the CPUs process, back to 0 after a quiet interval.
 * - Metadata: process_name and thread_name ("M") when a name is first seen
 *   or changes; CPU threads sorted by number.
 * Times are perf-clock microseconds with nanosecond decimals.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "convert.h"
#include "json.h"
#include "sched-common.h"

#define PP_CHROME_CPU_PID	0x7fffff00u	/* no real pid is this high (PID_MAX_LIMIT 4M) */
#define CH_MAX_CPUS		4096
#define CH_DEFAULT_BUCKET	100000000ull	/* 100 ms */

static const char *const state_slice[PP_ST_NR] = {
	[PP_ST_R] = "running", [PP_ST_RP] = "runnable", [PP_ST_S] = "sleeping",
	[PP_ST_D] = "uninterruptible", [PP_ST_T] = "stopped", [PP_ST_I] = "idle",
	[PP_ST_X] = "dead",
};

struct ch_thread {
	uint32_t tid, pid;	/* pid 0 until an event in its own context tells */
	int state;		/* enum pp_sched_state, -1 unknown */
	uint64_t since;
	char named[16];		/* the comm its thread_name carries, "" none yet */
};

struct ch_cpu {
	int on;			/* a task's slice is open */
	uint32_t tid, pid;
	uint64_t since;
	char comm[16];
};

struct ch_proc {
	char named[16];
};

struct chrome {
	struct pp_convert_stats *st;
	const struct pp_evsel *sw, *wk[3];
	struct tep_format_field *prev_pid, *prev_state, *prev_comm, *next_pid, *next_comm;
	struct tep_format_field *wk_pid[3], *wk_comm[3];
	struct pp_kmap threads, procs;
	struct ch_cpu *cpus;
	size_t nr_cpus;
	int first;		/* no event written yet */
	/* counters */
	uint64_t bucket_ns, bucket;	/* current bucket index + 1, 0 none */
	uint64_t *counts, *shown;	/* by evsel index: this bucket, last written */
	size_t nr_evsels;
	struct pp_evsel *evsels;
};

static void put_ts(struct pp_out *o, uint64_t ns)
{
	pp_out__printf(o, "%llu.%03llu", (unsigned long long)(ns / 1000),
		       (unsigned long long)(ns % 1000));
}

/* Start one event object: the separator, "{" and "ph". */
static void ev_open(struct chrome *c, struct pp_out *o, const char *ph)
{
	switch (ph[0]) {
	case 'M': c->st->metadata++; break;
	case 'C': c->st->counters++; break;
	case 'i': c->st->instants++; break;
	default: break;	/* X: counted by kind where written */
	}
	pp_out__puts(o, c->first ? "\n{\"ph\":\"" : ",\n{\"ph\":\"");
	c->first = 0;
	pp_out__puts(o, ph);
	pp_out__putc(o, '"');
}

static void meta(struct chrome *c, struct pp_out *o, const char *what, uint32_t pid, uint32_t tid,
		 int with_tid, const char *name)
{
	ev_open(c, o, "M");
	pp_out__printf(o, ",\"cat\":\"__metadata\",\"name\":\"%s\",\"pid\":%u", what, pid);
	if (with_tid)
		pp_out__printf(o, ",\"tid\":%u", tid);
	pp_out__puts(o, ",\"args\":{\"name\":");
	pp_out__json_str(o, name);
	pp_out__puts(o, "}}");
}

/* Name @pid's process and @tid's thread after @comm, once per name. */
static void name_task(struct pp_session *s, struct chrome *c, struct ch_thread *t, const char *comm)
{
	struct pp_out *o = pp_session__out(s);
	uint32_t pid = t->pid ? t->pid : t->tid;

	if (!comm || !*comm)
		return;
	if (strncmp(t->named, comm, sizeof(t->named) - 1)) {
		snprintf(t->named, sizeof(t->named), "%s", comm);
		meta(c, o, "thread_name", pid, t->tid, 1, comm);
	}
	if (pid == t->tid) {
		struct ch_proc *p = pp_kmap__get(&c->procs, pid, NULL);

		if (p && strncmp(p->named, comm, sizeof(p->named) - 1)) {
			snprintf(p->named, sizeof(p->named), "%s", comm);
			meta(c, o, "process_name", pid, 0, 0, comm);
		}
	}
}

static struct ch_thread *thread_get(struct chrome *c, uint32_t tid)
{
	int created;
	struct ch_thread *t = pp_kmap__get(&c->threads, tid, &created);

	if (t && created) {
		t->tid = tid;
		t->state = -1;
	}
	return t;
}

/* End @t's state at @now with its slice. */
static void close_state(struct pp_session *s, struct chrome *c, struct ch_thread *t, uint64_t now)
{
	struct pp_out *o = pp_session__out(s);

	if (t->state < 0 || now < t->since)
		return;
	name_task(s, c, t, pp_session__comm(s, t->tid));
	ev_open(c, o, "X");
	c->st->state_slices++;
	pp_out__printf(o, ",\"cat\":\"state\",\"name\":\"%s\",\"pid\":%u,\"tid\":%u,\"ts\":",
		       state_slice[t->state], t->pid ? t->pid : t->tid, t->tid);
	put_ts(o, t->since);
	pp_out__puts(o, ",\"dur\":");
	put_ts(o, now - t->since);
	pp_out__putc(o, '}');
}

static void set_state(struct ch_thread *t, int st, uint64_t now)
{
	t->state = st;
	t->since = now;
}

static void switch_in(struct pp_session *s, struct chrome *c, struct ch_thread *t, uint64_t now)
{
	if (t->state >= 0 && t->state != PP_ST_R)
		close_state(s, c, t, now);
	set_state(t, PP_ST_R, now);
}

/* The CPU track: close what ran on @cpu, open @next's slice. */
static void cpu_switch(struct pp_session *s, struct chrome *c, const struct pp_event *e,
		       uint32_t prev, int pstate, uint32_t next, const char *next_comm)
{
	struct pp_out *o = pp_session__out(s);
	struct ch_cpu *cpu;

	if (e->cpu >= CH_MAX_CPUS)
		return;
	if (e->cpu >= c->nr_cpus) {
		size_t n = e->cpu + 1;
		struct ch_cpu *p = realloc(c->cpus, n * sizeof(*p));

		if (!p)
			return;
		memset(p + c->nr_cpus, 0, (n - c->nr_cpus) * sizeof(*p));
		for (size_t i = c->nr_cpus; i < n; i++) {
			char name[32];

			snprintf(name, sizeof(name), "CPU %zu", i);
			meta(c, o, "thread_name", PP_CHROME_CPU_PID, (uint32_t)i + 1, 1, name);
			ev_open(c, o, "M");
			pp_out__printf(o, ",\"cat\":\"__metadata\",\"name\":\"thread_sort_index\",\"pid\":%u,\"tid\":%zu,"
				       "\"args\":{\"sort_index\":%zu}}", PP_CHROME_CPU_PID, i + 1, i);
		}
		c->cpus = p;
		c->nr_cpus = n;
	}
	cpu = &c->cpus[e->cpu];
	if (cpu->on && cpu->tid == prev && e->time >= cpu->since) {
		ev_open(c, o, "X");
		c->st->cpu_slices++;
		pp_out__puts(o, ",\"cat\":\"cpu\",\"name\":");
		{
			char name[40];

			snprintf(name, sizeof(name), "%s/%u", cpu->comm, cpu->tid);
			pp_out__json_str(o, name);
		}
		pp_out__printf(o, ",\"pid\":%u,\"tid\":%u,\"ts\":", PP_CHROME_CPU_PID, e->cpu + 1);
		put_ts(o, cpu->since);
		pp_out__puts(o, ",\"dur\":");
		put_ts(o, e->time - cpu->since);
		pp_out__printf(o, ",\"args\":{\"pid\":%u,\"tid\":%u,\"end_state\":\"%s\"}}",
			       cpu->pid, cpu->tid, pp_sched_state_names[pstate]);
	}
	cpu->on = next != 0;
	cpu->tid = next;
	cpu->since = e->time;
	snprintf(cpu->comm, sizeof(cpu->comm), "%s", next_comm);
	{
		struct ch_thread *t = pp_kmap__find(&c->threads, next);

		cpu->pid = t && t->pid ? t->pid : next;
	}
}

static void on_switch(struct pp_session *s, struct chrome *c, const struct pp_event *e)
{
	uint64_t prev, next, pstate;
	char ncomm[16] = "";
	struct ch_thread *t;
	int st;

	if (pp_event__num(e, c->prev_pid, &prev) || pp_event__num(e, c->next_pid, &next) ||
	    pp_event__num(e, c->prev_state, &pstate))
		return;
	st = (int)pp_sched_state_of(pstate);
	if (c->next_comm)
		pp_event__str(e, c->next_comm, ncomm, sizeof(ncomm));
	if (prev && (t = thread_get(c, (uint32_t)prev))) {
		if (t->state >= 0 && t->state != PP_ST_R)
			switch_in(s, c, t, e->time);
		if (t->state == PP_ST_R)
			close_state(s, c, t, e->time);
		set_state(t, st, e->time);
	}
	if (next && (t = thread_get(c, (uint32_t)next)))
		switch_in(s, c, t, e->time);
	cpu_switch(s, c, e, (uint32_t)prev, st, (uint32_t)next, ncomm);
}

static void on_wakeup(struct pp_session *s, struct chrome *c, const struct pp_event *e, int i)
{
	struct ch_thread *t;
	uint64_t pid;

	if (pp_event__num(e, c->wk_pid[i], &pid) || !pid)
		return;
	t = thread_get(c, (uint32_t)pid);
	if (!t || t->state == PP_ST_R || t->state == PP_ST_RP)
		return;
	close_state(s, c, t, e->time);
	set_state(t, PP_ST_RP, e->time);
}

/*
 * Counters: the finished bucket's count of each event that had some (or
 * had some in the bucket before), and a 0 at the next bucket's start when
 * the event then goes quiet for longer; @next is the bucket starting now.
 */
static void flush_bucket(struct pp_session *s, struct chrome *c, uint64_t next)
{
	struct pp_out *o = pp_session__out(s);

	for (size_t i = 0; c->bucket && i < c->nr_evsels; i++) {
		uint64_t v = c->counts[i];

		if (!v && !c->shown[i])
			continue;
		for (int zero = 0; zero < 2; zero++) {
			ev_open(c, o, "C");
			pp_out__puts(o, ",\"cat\":\"counter\",\"name\":");
			pp_out__json_str(o, c->evsels[i].name);
			pp_out__printf(o, ",\"pid\":%u,\"ts\":", PP_CHROME_CPU_PID);
			put_ts(o, (c->bucket - 1 + (uint64_t)zero) * c->bucket_ns);
			pp_out__printf(o, ",\"args\":{\"count\":%llu}}",
				       (unsigned long long)(zero ? 0 : v));
			c->shown[i] = zero ? 0 : v;
			if (!v || next <= c->bucket + 1)
				break;
		}
		c->counts[i] = 0;
	}
}

static void count(struct pp_session *s, struct chrome *c, const struct pp_event *e)
{
	uint64_t b = e->time / c->bucket_ns + 1;	/* 0 stands for none */

	if (b != c->bucket) {
		flush_bucket(s, c, b);
		c->bucket = b;
	}
	if (e->evsel->idx >= 0 && (size_t)e->evsel->idx < c->nr_evsels)
		c->counts[e->evsel->idx]++;
}

static void instant(struct pp_session *s, struct chrome *c, const struct pp_event *e)
{
	struct pp_out *o = pp_session__out(s);

	ev_open(c, o, "i");
	pp_out__puts(o, ",\"s\":\"t\",\"cat\":\"event\",\"name\":");
	pp_out__json_str(o, e->evsel->name);
	pp_out__printf(o, ",\"pid\":%u,\"tid\":%u,\"ts\":", e->pid, e->tid);
	put_ts(o, e->time);
	pp_out__printf(o, ",\"args\":{\"cpu\":%u", e->cpu);
	if (e->evsel->tp || e->evsel->btf)
		pp_session__json_fields(s, e);
	else if (e->ip)
		pp_out__printf(o, ",\"ip\":\"0x%llx\",\"period\":%llu", (unsigned long long)e->ip,
			       (unsigned long long)e->period);
	pp_json__stack(s, e);
	pp_out__puts(o, "}}");
}

static void ch_sample(struct pp_session *s, void *state, const struct pp_event *e)
{
	struct chrome *c = state;
	struct ch_thread *t;

	if (pp_convert_is_dummy(e->evsel))
		return;
	c->st->events++;
	count(s, c, e);
	/* an event in a thread's own context: it runs (task-state's rule) */
	if (e->tid && (t = thread_get(c, e->tid))) {
		if (e->pid && !t->pid)
			t->pid = e->pid;
		if (t->state >= 0 && t->state != PP_ST_R)
			switch_in(s, c, t, e->time);
	}
	if (c->sw && e->evsel == c->sw) {
		on_switch(s, c, e);
		return;
	}
	for (int i = 0; i < 3; i++) {
		if (c->wk[i] && e->evsel == c->wk[i])
			on_wakeup(s, c, e, i);
	}
	instant(s, c, e);
}

static void ch_lost(struct pp_session *s, void *state, const struct pp_lost *l)
{
	struct chrome *c = state;
	struct pp_out *o = pp_session__out(s);

	for (size_t i = 0; i < c->threads.cap; i++) {
		struct ch_thread *t = pp_kmap__nth(&c->threads, i, NULL);

		if (t)
			t->state = -1;
	}
	for (size_t i = 0; i < c->nr_cpus; i++)
		c->cpus[i].on = 0;
	c->st->lost++;
	ev_open(c, o, "i");
	pp_out__printf(o, ",\"s\":\"g\",\"cat\":\"lost\",\"name\":\"lost %llu records on CPU %u\","
		       "\"pid\":%u,\"tid\":%u,\"ts\":", (unsigned long long)l->count, l->cpu,
		       PP_CHROME_CPU_PID, l->cpu + 1);
	put_ts(o, l->first_ts);
	pp_out__puts(o, "}");
}

static const struct pp_evsel *find_ev(struct pp_evsel *ev, size_t nr, const char *name)
{
	for (size_t i = 0; i < nr; i++) {
		if (ev[i].tp && !strcmp(ev[i].name, name))
			return &ev[i];
	}
	return NULL;
}

static int ch_init(struct pp_session *s, void **state, struct pp_convert_stats *st)
{
	static const char *const wk[3] = { "sched:sched_waking", "sched:sched_wakeup",
					   "sched:sched_wakeup_new" };
	const struct pp_opts *o = pp_session__opts(s);
	struct chrome *c = calloc(1, sizeof(*c));
	struct pp_out *out = pp_session__out(s);

	if (!c)
		return -ENOMEM;
	*state = c;
	c->st = st;
	pp_kmap__init(&c->threads, sizeof(struct ch_thread));
	pp_kmap__init(&c->procs, sizeof(struct ch_proc));
	c->evsels = pp_session__evsels(s, &c->nr_evsels);
	c->counts = calloc(c->nr_evsels ? c->nr_evsels : 1, sizeof(*c->counts));
	c->shown = calloc(c->nr_evsels ? c->nr_evsels : 1, sizeof(*c->shown));
	if (!c->counts || !c->shown)
		return -ENOMEM;
	c->bucket_ns = o->interval_ns ? o->interval_ns : CH_DEFAULT_BUCKET;
	c->sw = find_ev(c->evsels, c->nr_evsels, "sched:sched_switch");
	if (c->sw) {
		c->prev_pid = pp_evsel__field(c->sw, "prev_pid");
		c->prev_state = pp_evsel__field(c->sw, "prev_state");
		c->prev_comm = pp_evsel__field(c->sw, "prev_comm");
		c->next_pid = pp_evsel__field(c->sw, "next_pid");
		c->next_comm = pp_evsel__field(c->sw, "next_comm");
		if (!c->prev_pid || !c->prev_state || !c->next_pid)
			c->sw = NULL;	/* an odd format: its events become instants */
	}
	for (int i = 0; i < 3; i++) {
		c->wk[i] = find_ev(c->evsels, c->nr_evsels, wk[i]);
		c->wk_pid[i] = c->wk[i] ? pp_evsel__field(c->wk[i], "pid") : NULL;
		c->wk_comm[i] = c->wk[i] ? pp_evsel__field(c->wk[i], "comm") : NULL;
		if (!c->wk_pid[i])
			c->wk[i] = NULL;
	}
	c->first = 1;
	pp_out__puts(out, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"pp-analyze convert\"},"
		     "\"traceEvents\":[");
	meta(c, out, "process_name", PP_CHROME_CPU_PID, 0, 0, "CPUs");
	ev_open(c, out, "M");
	pp_out__printf(out, ",\"cat\":\"__metadata\",\"name\":\"process_sort_index\",\"pid\":%u,"
		       "\"args\":{\"sort_index\":-1}}",
		       PP_CHROME_CPU_PID);
	return 0;
}

static void ch_end(struct pp_session *s, void *state)
{
	struct chrome *c = state;

	flush_bucket(s, c, c->bucket + 1);
	pp_out__puts(pp_session__out(s), "\n]}\n");
}

static void ch_free(void *state)
{
	struct chrome *c = state;

	if (!c)
		return;
	pp_kmap__exit(&c->threads);
	pp_kmap__exit(&c->procs);
	free(c->cpus);
	free(c->counts);
	free(c->shown);
	free(c);
}

const struct pp_convert_fmt pp_convert_chrome = {
	.name = "chrome",
	.desc = "Trace Event JSON",
	.init = ch_init,
	.sample = ch_sample,
	.lost = ch_lost,
	.end = ch_end,
	.free = ch_free,
};
