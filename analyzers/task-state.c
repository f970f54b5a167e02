// SPDX-License-Identifier: MIT
/*
 * task-state: per thread, the time spent in each scheduler state, from
 * sched:sched_switch and the wakeup events:
 *
 *   R   running: switched in -> switched out
 *   R+  runnable, waiting for a CPU: preempted (or woken) -> switched in
 *   S/D/T/I/X  the prev_state it was switched out in -> woken (or switched
 *       in when the wakeup was not recorded)
 *
 * calls, total, min, p50, p95, p99, max per state (per thread with
 * --perins); -S/-D/... select states; --than TIME prints each longer
 * interval with the stack the task blocked in; -g --flame-graph NAME writes
 * an off-CPU flame graph weighted by the time off the CPU under the
 * switch-out stack: for a task that blocked, switch-out -> wakeup (the
 * run-queue wait after the wakeup is R's, as in the table); for one
 * preempted, switch-out -> switch-in. A lost window forgets every
 * thread's state, so no interval spans a hole.
 *
 * The end of an interval may be missing with no lost window: perf delivers
 * no sample in an idle task's context on some kernels and VMs (here: a task
 * woken on an idle CPU 1 has neither its sched_waking, raised in the idle
 * task's interrupt, nor the idle task's switch to it), so how often it
 * happens depends on how busy the CPUs are. A thread seen running (an event
 * in its own context, its own switch-out first of all) was switched in
 * before: its off-CPU interval is counted there, ending at that event, an
 * upper bound of the real end. Counts never depend on those events.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pp/replay.h"
#include "analyzers.h"
#include "flamegraph.h"
#include "pprof.h"
#include "hist.h"
#include "sched-common.h"
#include "fgdiff.h"
#include "json.h"

struct ts_thread {
	uint32_t tid;
	int state;			/* enum pp_sched_state, -1 unknown */
	uint64_t since;			/* start of the current state */
	uint64_t off_since;		/* switched out at, 0 = on CPU or unknown */
	int off_state;			/* state it was switched out in */
	int comm_ok;
	char comm[16];
	struct pp_hist h[PP_ST_NR];
	struct pp_stack_copy stack;	/* switch-out stack */
};

struct task_state {
	struct pp_sched_fields sf;
	struct pp_sched_opts so;
	struct pp_kmap threads;
	struct pp_hist all[PP_ST_NR];
	struct pp_flame *fg;
	struct pp_pprof *pprof;		/* --pprof FILE: off-CPU ns per stack */
	char names[PP_SCHED_MAX_STACK + 2][128];
	const char *frames[PP_SCHED_MAX_STACK + 2];
	uint64_t lost_resets;
};

static int ts_events(const struct pp_opts *o, struct pp_event_reqs *out)
{
	out->nr = 3;
	out->req[0].spec = "sched:sched_switch";
	out->req[0].callchain = o->callchain;
	out->req[1].spec = "sched:sched_waking";
	out->req[2].spec = "sched:sched_wakeup_new";
	return 0;
}

/* --pprof: what the off-CPU flame graph shows, as a profile of ns off CPU. */
static int ts_pprof_open(struct pp_session *s, struct task_state *ts)
{
	static const struct pp_pprof_desc d = {
		.types = { { "off_cpu", "nanoseconds" }, { "switches", "count" } }, .nr_types = 2,
		.default_type = "off_cpu",
		.comment = "pp-analyze task-state: time off the CPU per switch-out stack",
	};

	return pp_pprof__open_opt(s, &d, &ts->pprof);
}

/* The off-CPU interval of @t ending at @now, into the profile. */
static void ts_pprof_add(struct pp_session *s, struct task_state *ts, struct ts_thread *t,
			 uint64_t now)
{
	const struct pp_stack_copy *c = &t->stack;
	struct pp_event e = { .evsel = c->evsel, .pid = c->evsel ? c->pid : t->tid, .tid = t->tid,
			      .callchain = c->ips, .nr_callchain = c->evsel ? c->nr : 0 };
	uint64_t ips[PP_SCHED_MAX_STACK];
	uint8_t kern[PP_SCHED_MAX_STACK];
	char leaf[16];
	const char *leaves[1] = { leaf };
	int64_t v[2] = { (int64_t)(now - t->off_since), 1 };
	size_t nr = e.evsel ? pp_session__stack_ips(s, &e, ips, kern, PP_SCHED_MAX_STACK) : 0;

	/* a stack-less interval is "[S]" in the flame graph too */
	snprintf(leaf, sizeof(leaf), "[%s]", pp_sched_state_names[t->off_state]);
	if (pp_pprof__add(ts->pprof, s, e.pid, t->tid, t->comm, ips, kern, nr, leaves, nr ? 0 : 1, v))
		pp_session__fail(s, -ENOMEM);
}

static int ts_init(struct pp_session *s)
{
	struct task_state *ts = calloc(1, sizeof(*ts));
	const struct pp_opts *o = pp_session__opts(s);
	int ret;

	if (!ts)
		return -ENOMEM;
	pp_session__set_priv(s, ts);
	pp_kmap__init(&ts->threads, sizeof(struct ts_thread));
	for (int i = 0; i < PP_ST_NR; i++)
		pp_hist__init(&ts->all[i]);
	ret = pp_sched_opts__parse(&ts->so, o, "task-state");
	if (ret)
		return ret;
	ret = pp_sched_fields__init(&ts->sf, s, "task-state", 0);
	if (ret)
		return ret;
	if (o->flame_graph) {
		ts->fg = pp_flame__new();
		if (!ts->fg)
			return -ENOMEM;
	}
	ret = ts_pprof_open(s, ts);
	if (ret)
		return ret;
	return pp_fgdiff__init(s, "task-state");
}

static int state_on(const struct task_state *ts, int st)
{
	return !ts->so.states || (ts->so.states & (1u << st));
}

static struct ts_thread *thread_get(struct task_state *ts, uint32_t tid, const struct pp_event *e,
				    const struct tep_format_field *comm_f)
{
	int created;
	struct ts_thread *t = pp_kmap__get(&ts->threads, tid, &created);
	char comm[16];

	if (!t)
		return NULL;
	if (created) {
		t->tid = tid;
		t->state = -1;
		for (int i = 0; i < PP_ST_NR; i++)
			pp_hist__init(&t->h[i]);
	}
	if (comm_f && !pp_event__str(e, comm_f, comm, sizeof(comm)) &&
	    (created || strcmp(comm, t->comm))) {
		memcpy(t->comm, comm, sizeof(comm));
		t->comm_ok = pp_sched_opts__comm_ok(&ts->so, comm);
	} else if (created) {
		t->comm_ok = !ts->so.nr_filter;
	}
	return t;
}

/* End the current state of @t at @now: count it, print it if above --than. */
static void close_state(struct pp_session *s, struct task_state *ts, struct ts_thread *t, uint64_t now,
			int with_stack)
{
	const struct pp_opts *o = pp_session__opts(s);
	uint64_t d;

	if (t->state < 0 || now < t->since || !t->comm_ok || !state_on(ts, t->state))
		return;
	d = now - t->since;
	pp_hist__add(&t->h[t->state], d);
	if (o->than_set && d > o->than && o->json) {
		pp_json__begin(s, "outlier", t->since);
		pp_json__str(s, "comm", t->comm);
		pp_json__u64(s, "tid", t->tid);
		pp_json__str(s, "state", pp_sched_state_names[t->state]);
		pp_json__u64(s, "duration", d);
		if (with_stack)
			pp_stack_copy__json(s, &t->stack);
		pp_json__end(s);
	} else if (o->than_set && d > o->than) {
		struct pp_out *out = pp_session__out(s);
		char tb[32], db[16];

		pp_session__format_time(s, t->since, tb);
		pp_out__printf(out, "%s %16s %7u %-2s %s\n", tb, t->comm, t->tid,
			       pp_sched_state_names[t->state], pp_sched_ns(db, d));
		if (with_stack)
			pp_stack_copy__print(s, &t->stack, "\t");
	}
}

static void off_cpu(struct pp_session *s, struct task_state *ts, struct ts_thread *t, uint64_t now)
{
	size_t n;

	if ((!ts->fg && !ts->pprof) || !t->off_since || now < t->off_since || !t->comm_ok ||
	    !state_on(ts, t->off_state))
		return;
	if (ts->pprof)
		ts_pprof_add(s, ts, t, now);
	if (!ts->fg)
		return;
	n = pp_stack_copy__frames(s, &t->stack, t->comm, ts->names, ts->frames, PP_SCHED_MAX_STACK + 1);
	if (n == 1) {
		snprintf(ts->names[1], 128, "[%s]", pp_sched_state_names[t->off_state]);
		ts->frames[1] = ts->names[1];
		n = 2;
	}
	pp_flame__add(ts->fg, ts->frames, n, now - t->off_since);
}

/*
 * @t is on a CPU at @now: end its off-CPU or runnable state there, as a
 * switch-in does. For a thread whose switch-in was seen it is already R.
 */
static void switch_in(struct pp_session *s, struct task_state *ts, struct ts_thread *t, uint64_t now)
{
	if (t->state >= 0 && t->state != PP_ST_R)
		close_state(s, ts, t, now, 1);
	off_cpu(s, ts, t, now);
	t->state = PP_ST_R;
	t->since = now;
	t->off_since = 0;
}

static void ts_switch(struct pp_session *s, struct task_state *ts, const struct pp_event *e)
{
	const struct pp_sched_fields *sf = &ts->sf;
	uint64_t prev, next, pstate;
	struct ts_thread *t;

	if (pp_event__num(e, sf->prev_pid, &prev) || pp_event__num(e, sf->next_pid, &next) ||
	    pp_event__num(e, sf->prev_state, &pstate))
		return;
	/* Switch events of every task arrive (.needs_system_wide): keep the targets'. */
	if (prev && pp_session__is_target(s, (uint32_t)prev)) {
		t = thread_get(ts, (uint32_t)prev, e, sf->prev_comm);
		if (t) {
			/* leaving the CPU, so it ran: its switch-in may be missing */
			if (t->state >= 0 && t->state != PP_ST_R)
				switch_in(s, ts, t, e->time);
			if (t->state == PP_ST_R)
				close_state(s, ts, t, e->time, 0);
			t->state = (int)pp_sched_state_of(pstate);
			t->since = e->time;
			t->off_since = e->time;
			t->off_state = t->state;
			if (e->nr_callchain && (uint32_t)prev == e->tid)
				pp_stack_copy__set(&t->stack, e);
			else
				t->stack.nr = 0;
		}
	}
	if (next && pp_session__is_target(s, (uint32_t)next)) {
		t = thread_get(ts, (uint32_t)next, e, sf->next_comm);
		if (t)
			switch_in(s, ts, t, e->time);
	}
}

static void ts_wakeup(struct pp_session *s, struct task_state *ts, const struct pp_event *e,
		      const struct tep_format_field *pid_f, const struct tep_format_field *comm_f)
{
	struct ts_thread *t;
	uint64_t pid;

	if (pp_event__num(e, pid_f, &pid) || !pid || !pp_session__is_target(s, (uint32_t)pid))
		return;
	t = thread_get(ts, (uint32_t)pid, e, comm_f);
	if (!t || t->state == PP_ST_R || t->state == PP_ST_RP)
		return;
	close_state(s, ts, t, e->time, 1);
	/* off-CPU time is the blocked time: the run-queue wait after it is R's */
	off_cpu(s, ts, t, e->time);
	t->off_since = 0;
	t->state = PP_ST_RP;
	t->since = e->time;
}

static void ts_sample(struct pp_session *s, const struct pp_event *e)
{
	struct task_state *ts = pp_session__priv(s);
	const struct pp_sched_fields *sf = &ts->sf;
	struct ts_thread *t;

	/* An event in a thread's own context: it is running, whatever was missed. */
	t = e->tid ? pp_kmap__find(&ts->threads, e->tid) : NULL;
	if (t && t->state >= 0 && t->state != PP_ST_R)
		switch_in(s, ts, t, e->time);
	if (e->evsel == sf->sw)
		ts_switch(s, ts, e);
	else if (e->evsel == sf->waking)
		ts_wakeup(s, ts, e, sf->wk_pid[0], sf->wk_comm[0]);
	else if (e->evsel == sf->wakeup)
		ts_wakeup(s, ts, e, sf->wk_pid[1], sf->wk_comm[1]);
	else if (e->evsel == sf->wakeup_new)
		ts_wakeup(s, ts, e, sf->wk_pid[2], sf->wk_comm[2]);
}

static void ts_lost(struct pp_session *s, const struct pp_lost *l)
{
	struct task_state *ts = pp_session__priv(s);

	/* Any thread may have changed state inside the hole: start over. */
	for (size_t i = 0; i < ts->threads.cap; i++) {
		struct ts_thread *t = pp_kmap__nth(&ts->threads, i, NULL);

		if (t) {
			t->state = -1;
			t->off_since = 0;
		}
	}
	ts->lost_resets++;
}

static void row(struct pp_session *s, uint64_t now, const struct ts_thread *t, int st,
		const struct pp_hist *h)
{
	struct pp_out *o = pp_session__out(s);
	struct pp_hist_stats hs;
	char b[7][16];

	pp_hist__stats(h, &hs);
	if (pp_session__opts(s)->json) {
		pp_json__begin(s, "row", now);
		if (t) {
			pp_json__str(s, "comm", t->comm);
			pp_json__u64(s, "tid", t->tid);
		}
		pp_out__printf(o, ",\"state\":\"%s\",\"calls\":%llu,\"total\":%llu,\"min\":%llu,"
			       "\"p50\":%llu,\"p95\":%llu,\"p99\":%llu,\"max\":%llu}\n",
			       pp_sched_state_names[st], (unsigned long long)hs.calls,
			       (unsigned long long)hs.total, (unsigned long long)hs.min,
			       (unsigned long long)hs.p50, (unsigned long long)hs.p95,
			       (unsigned long long)hs.p99, (unsigned long long)hs.max);
		return;
	}
	if (t)
		pp_out__printf(o, "%16s %7u ", t->comm, t->tid);
	pp_out__printf(o, "%-2s %8llu %10s %10s %10s %10s %10s %10s\n", pp_sched_state_names[st],
		       (unsigned long long)hs.calls, pp_sched_ns(b[0], hs.total),
		       pp_sched_ns(b[1], hs.min), pp_sched_ns(b[2], hs.p50),
		       pp_sched_ns(b[3], hs.p95), pp_sched_ns(b[4], hs.p99),
		       pp_sched_ns(b[5], hs.max));
}

static int cmp_thread(const void *a, const void *b)
{
	const struct ts_thread *x = *(const struct ts_thread *const *)a;
	const struct ts_thread *y = *(const struct ts_thread *const *)b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static void ts_print(struct pp_session *s, uint64_t now)
{
	struct task_state *ts = pp_session__priv(s);
	const struct pp_opts *o = pp_session__opts(s);
	struct pp_out *out = pp_session__out(s);
	struct ts_thread **list;
	size_t n = 0;
	char tbuf[32];

	pp_session__format_time(s, now, tbuf);
	list = malloc((ts->threads.nr ? ts->threads.nr : 1) * sizeof(*list));
	if (!list)
		return;
	for (size_t i = 0; i < ts->threads.cap; i++) {
		struct ts_thread *t = pp_kmap__nth(&ts->threads, i, NULL);

		if (t)
			list[n++] = t;
	}
	qsort(list, n, sizeof(*list), cmp_thread);
	if (!o->json)
		pp_out__printf(out, "%s\n%s%-2s %8s %10s %10s %10s %10s %10s %10s\n", tbuf,
			       o->perins ? "            comm     tid " : "", "St", "calls", "total",
			       "min", "p50", "p95", "p99", "max");
	for (int st = 0; st < PP_ST_NR; st++)
		pp_hist__reset(&ts->all[st]);
	for (size_t i = 0; i < n; i++) {
		for (int st = 0; st < PP_ST_NR; st++) {
			if (!list[i]->h[st].calls)
				continue;
			if (o->perins)
				row(s, now, list[i], st, &list[i]->h[st]);
			else
				pp_hist__merge(&ts->all[st], &list[i]->h[st]);
			pp_hist__reset(&list[i]->h[st]);
		}
	}
	if (!o->perins) {
		for (int st = 0; st < PP_ST_NR; st++) {
			if (ts->all[st].calls)
				row(s, now, NULL, st, &ts->all[st]);
		}
	}
	free(list);
}

static void ts_report(struct pp_session *s)
{
	struct task_state *ts = pp_session__priv(s);
	const struct pp_opts *o = pp_session__opts(s);

	if (!o->interval_ns)
		ts_print(s, pp_session__stats(s)->last_ts);
	if (ts->lost_resets)
		pp_analyzer__warn("task-state", "%llu lost windows: thread states restarted after each",
			(unsigned long long)ts->lost_resets);
	if (ts->fg) {
		struct pp_flame_opts fo = { .title = "pp task-state: off-CPU time",
					    .subtitle = "weighted by time off the CPU",
					    .count_name = "ns", .unit = PP_UNIT_NS };

		pp_fgdiff__write(s, ts->fg, o->flame_graph, &fo);
	}
	pp_pprof__report(ts->pprof, s, pp_session__stats(s)->first_ts,
			 pp_session__stats(s)->last_ts, pp_opts__mod(o, "pprof"));
}

static void ts_deinit(struct pp_session *s)
{
	struct task_state *ts = pp_session__priv(s);

	pp_fgdiff__exit(s);
	if (!ts)
		return;
	for (size_t i = 0; i < ts->threads.cap; i++) {
		struct ts_thread *t = pp_kmap__nth(&ts->threads, i, NULL);

		for (int st = 0; t && st < PP_ST_NR; st++)
			pp_hist__exit(&t->h[st]);
	}
	for (int st = 0; st < PP_ST_NR; st++)
		pp_hist__exit(&ts->all[st]);
	pp_kmap__exit(&ts->threads);
	pp_flame__free(ts->fg);
	pp_pprof__free(ts->pprof);
	pp_sched_opts__exit(&ts->so);
	free(ts);
}

/*
 * As an event source (trace -e 'task-state/-S/'): one event per off-CPU
 * interval, emitted when the task is switched back in: its state, the
 * length, and the stack it blocked in. A switch-in that was not recorded
 * (see the top of the file) shows as a second switch-out: the interval is
 * emitted there, ending at it.
 */
struct ts_src_thread {
	uint64_t since;			/* switched out at, 0 = on CPU or unknown */
	int state;
	uint32_t pid;
	struct pp_stack_copy stack;
};

struct ts_src {
	struct pp_sched_fields sf;
	struct pp_sched_opts so;
	struct pp_kmap threads;		/* tid -> struct ts_src_thread */
	struct pp_stack_copy ended;	/* stack of an interval ended by a switch-out */
	int again;			/* the event's switch-in is still to emit */
};

static int ts_src_match(const struct pp_opts *o, const struct pp_evsel *ev)
{
	return !strcmp(ev->name, "sched:sched_switch");
}

static void ts_src_free(void *state)
{
	struct ts_src *src = state;

	if (!src)
		return;
	pp_kmap__exit(&src->threads);
	pp_sched_opts__exit(&src->so);
	free(src);
}

static int ts_src_init(struct pp_session *s, const struct pp_opts *o, void **state)
{
	struct ts_src *src = calloc(1, sizeof(*src));
	int ret;

	if (!src)
		return -ENOMEM;
	pp_kmap__init(&src->threads, sizeof(struct ts_src_thread));
	ret = pp_sched_opts__parse(&src->so, o, "task-state");
	if (!ret)
		ret = pp_sched_fields__init(&src->sf, s, "task-state", 0);
	if (ret) {
		ts_src_free(src);
		return ret;
	}
	*state = src;
	return 0;
}

/*
 * End thread @tid's off-CPU interval at @e into @out, with the stack in
 * @stack. Return: 1 when @out is filled, 0 when the options leave it out.
 */
static int ts_src_emit(struct pp_session *s, struct ts_src *src, struct ts_src_thread *t, uint32_t tid,
		       const struct pp_stack_copy *stack, const struct pp_event *e,
		       struct pp_src_event *out)
{
	uint64_t since = t->since;
	char db[16];

	t->since = 0;
	if (e->time < since || (src->so.states && !(src->so.states & (1u << t->state))) ||
	    !pp_sched_opts__comm_ok(&src->so, pp_session__comm(s, tid)))
		return 0;
	out->e = *e;
	out->e.pid = t->pid;
	out->e.tid = tid;
	out->e.ip = 0;
	out->e.callchain = stack->nr ? stack->ips : NULL;
	out->e.nr_callchain = stack->nr;
	out->start = since;
	snprintf(out->text, sizeof(out->text), "%s %s", pp_sched_state_names[t->state],
		 pp_sched_ns(db, e->time - since));
	return 1;
}

static int ts_src_sample(struct pp_session *s, void *state, const struct pp_event *e,
			 struct pp_src_event *out)
{
	struct ts_src *src = state;
	struct ts_src_thread *t;
	uint64_t prev, next, pstate;
	int filled = 0;

	if (pp_event__num(e, src->sf.prev_pid, &prev) || pp_event__num(e, src->sf.next_pid, &next) ||
	    pp_event__num(e, src->sf.prev_state, &pstate))
		return 0;
	if (src->again) {
		src->again = 0;	/* called again for this event: only its switch-in is left */
	} else if (prev && pp_session__is_target(s, (uint32_t)prev)) {
		t = pp_kmap__get(&src->threads, prev, NULL);
		if (t) {
			/* switched out while off the CPU: the switch-in was not recorded */
			if (t->since) {
				src->ended = t->stack;
				filled = ts_src_emit(s, src, t, (uint32_t)prev, &src->ended, e, out);
			}
			t->since = e->time;
			t->state = (int)pp_sched_state_of(pstate);
			t->pid = (uint32_t)prev == e->tid ? e->pid : (uint32_t)prev;
			t->stack.nr = 0;
			if (e->nr_callchain && (uint32_t)prev == e->tid)
				pp_stack_copy__set(&t->stack, e);
		}
	}
	t = next ? pp_kmap__find(&src->threads, next) : NULL;
	if (!t || !t->since || next == prev)
		return filled;
	if (filled) {
		src->again = 1;
		return 2;
	}
	return ts_src_emit(s, src, t, (uint32_t)next, &t->stack, e, out);
}

static const struct pp_mod_opt ts_mod_opts[] = {
	{ "interruptible", 'S', 0, "show S (interruptible sleep)" },
	{ "uninterruptible", 'D', 0, "show D (uninterruptible sleep)" },
	{ "running", 'R', 0, "show R (running on a CPU)" },
	{ "runnable", 0, 0, "show R+ (preempted or woken, waiting for a CPU)" },
	{ "stopped", 'T', 0, "show T (stopped or traced)" },
	{ "idle", 'I', 0, "show I (idle kernel threads)" },
	{ "dead", 'X', 0, "show X (dead, zombie, parked)" },
	PP_SCHED_OPT_FILTER,
	PP_PPROF_MOD_OPT,
	PP_FGDIFF_OPTS,
	{ NULL, 0, 0, NULL },
};

static const struct pp_source_ops ts_source = {
	.init = ts_src_init,
	.sample = ts_src_sample,
	.free = ts_src_free,
};

const struct pp_analyzer pp_analyzer_task_state = {
	.name = "task-state",
	.desc = "time per thread in each state (R, R+, S, D, T, I): calls, total, min, p50/p95/p99, max",
	.help = "pp-analyze task-state [--perins] [--than TIME] [-g --flame-graph NAME] [-i MS] [--json] [FILE]\n"
		"  needs sched:sched_switch (+ sched:sched_waking / sched_wakeup[_new]); record with\n"
		"    pp-record -a -g -e sched:sched_switch,sched:sched_waking,sched:sched_wakeup_new\n"
		"  or pp-record task-state [-p PID | -- COMMAND]: with -p/-t/COMMAND the events are\n"
		"  still taken on every CPU, and the tasks' own (prev_pid, next_pid) are kept\n"
		"  --than TIME prints each longer interval with the stack the task blocked in;\n"
		"  --flame-graph NAME: off-CPU flame graph (NAME.folded, NAME.svg) weighted by ns off CPU\n"
		"  --pprof FILE: the same stacks as a pprof profile (off_cpu ns, switches)\n"
		"  --diff BASE.trace: differential off-CPU flame graph of FILE against BASE\n"
		"  example: pp-analyze task-state -S --filter 'sleep*' --than 10ms -g\n",
	.mod_opts = ts_mod_opts,
	.needs_system_wide = 1,
	.opts = PP_OPT_INTERVAL | PP_OPT_CALLCHAIN | PP_OPT_FLAME | PP_OPT_THAN | PP_OPT_PERINS |
		PP_OPT_JSON,
	.events = ts_events,
	.init = ts_init,
	.sample = ts_sample,
	.lost = ts_lost,
	.interval = ts_print,
	.report = ts_report,
	.deinit = ts_deinit,
	.match = ts_src_match,
	.source = &ts_source,
};
