// SPDX-License-Identifier: MIT
/*
 * sched-migrate: who moves between CPUs, how often, from where to where,
 * and what moved them, from sched:sched_migrate_task (perf-prof's
 * sched-migrate). The event fires in the context of whoever moves the task
 * (the task waking it, the load balancer, the migration thread of a
 * sched_setaffinity): its `pid` field names the task that moves, and that is
 * the task -p, -t, the COMMAND and --filter select. Per task the migrations;
 * per CPU pair (from -> to) the migrations; --detail prints each one, -g its
 * stack (the path that moved it), and --flame-graph NAME the stacks under the
 * moved task's comm.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pp/replay.h"
#include "analyzers.h"
#include "fgdiff.h"
#include "json.h"
#include "sched-common.h"

#define SM_EVENT	"sched:sched_migrate_task"
#define SM_FRAMES	256

struct sm_task {
	uint32_t tid;
	uint64_t migrations;
	char comm[16];
};

struct sm_pair {
	uint32_t from, to;
	uint64_t migrations;
};

struct sched_migrate {
	const struct pp_evsel *ev;
	const struct tep_format_field *pid, *comm, *prio, *orig_cpu, *dest_cpu;
	struct pp_sched_opts so;
	struct pp_kmap tasks;		/* tid -> struct sm_task */
	struct pp_kmap pairs;		/* from << 32 | to -> struct sm_pair */
	struct pp_flame *fg;
	char names[SM_FRAMES][128];
	const char *frames[SM_FRAMES];
};

static int sm_events(const struct pp_opts *o, struct pp_event_reqs *out)
{
	out->nr = 1;
	out->req[0].spec = SM_EVENT;
	out->req[0].callchain = o->callchain;
	return 0;
}

static int sm_init(struct pp_session *s)
{
	const struct pp_opts *o = pp_session__opts(s);
	struct sched_migrate *sm = calloc(1, sizeof(*sm));
	struct pp_evsel *evs;
	size_t nr;
	int ret;

	if (!sm)
		return -ENOMEM;
	pp_session__set_priv(s, sm);
	pp_kmap__init(&sm->tasks, sizeof(struct sm_task));
	pp_kmap__init(&sm->pairs, sizeof(struct sm_pair));
	ret = pp_sched_opts__parse(&sm->so, o, "sched-migrate");
	if (ret)
		return ret;
	evs = pp_session__evsels(s, &nr);
	for (size_t i = 0; i < nr; i++) {
		if (evs[i].tp && !strcmp(evs[i].name, SM_EVENT))
			sm->ev = &evs[i];
	}
	if (sm->ev) {
		sm->pid = pp_evsel__field(sm->ev, "pid");
		sm->comm = pp_evsel__field(sm->ev, "comm");
		sm->prio = pp_evsel__field(sm->ev, "prio");
		sm->orig_cpu = pp_evsel__field(sm->ev, "orig_cpu");
		sm->dest_cpu = pp_evsel__field(sm->ev, "dest_cpu");
	}
	if (!sm->pid || !sm->comm || !sm->orig_cpu || !sm->dest_cpu)
		return pp_analyzer__err("sched-migrate", -ENOENT, "needs %s in the trace "
					"(pp-record sched-migrate ...)", SM_EVENT);
	if (o->flame_graph && !o->callchain)
		return pp_analyzer__err("sched-migrate", -EINVAL,
					"--flame-graph needs -g (the stacks of the migrations)");
	if (o->flame_graph && !(sm->fg = pp_flame__new()))
		return -ENOMEM;
	return 0;
}

/*
 * --detail: "TIME COMM TID prio PRIO: cpu FROM -> TO  by COMM TID", then the
 * stack with -g; with --json a "migration" object, the stack as "stack".
 */
static void sm_detail(struct pp_session *s, const struct pp_event *e, const char *comm,
		      uint64_t tid, uint64_t prio, uint64_t from, uint64_t to)
{
	struct pp_out *out = pp_session__out(s);
	char tbuf[32];

	if (pp_session__opts(s)->json) {
		pp_json__begin(s, "migration", e->time);
		pp_out__puts(out, ",\"comm\":");
		pp_out__json_str(out, comm);
		pp_out__printf(out, ",\"tid\":%llu,\"prio\":%llu,\"from\":%llu,\"to\":%llu,\"by\":",
			       (unsigned long long)tid, (unsigned long long)prio,
			       (unsigned long long)from, (unsigned long long)to);
		pp_out__json_str(out, pp_session__comm(s, e->tid));
		pp_out__printf(out, ",\"by_tid\":%u", e->tid);
		pp_json__stack(s, e);
		pp_out__puts(out, "}\n");
		return;
	}
	pp_session__format_time(s, e->time, tbuf);
	pp_out__printf(out, "%s %16s %7llu prio %3llu: cpu %3llu -> %3llu  by %s %u\n", tbuf, comm,
		       (unsigned long long)tid, (unsigned long long)prio, (unsigned long long)from,
		       (unsigned long long)to, pp_session__comm(s, e->tid), e->tid);
	if (e->nr_callchain)
		pp_session__print_stack(s, e, "\t");
}

static void sm_sample(struct pp_session *s, const struct pp_event *e)
{
	struct sched_migrate *sm = pp_session__priv(s);
	uint64_t tid, from, to, prio = 0;
	char comm[16] = "";
	struct sm_task *t;
	struct sm_pair *p;

	if (e->evsel != sm->ev || pp_event__num(e, sm->pid, &tid) ||
	    pp_event__num(e, sm->orig_cpu, &from) || pp_event__num(e, sm->dest_cpu, &to))
		return;
	if (sm->prio)
		pp_event__num(e, sm->prio, &prio);
	pp_event__str(e, sm->comm, comm, sizeof(comm));
	/* every task's migrations arrive (.needs_system_wide): count the targets' */
	if (!pp_session__is_target(s, (uint32_t)tid) || !pp_sched_opts__comm_ok(&sm->so, comm))
		return;
	t = pp_kmap__get(&sm->tasks, tid, NULL);
	p = pp_kmap__get(&sm->pairs, from << 32 | (to & 0xffffffffu), NULL);
	if (!t || !p) {
		pp_session__fail(s, -ENOMEM);
		return;
	}
	t->tid = (uint32_t)tid;
	memcpy(t->comm, comm, sizeof(comm));
	t->migrations++;
	p->from = (uint32_t)from;
	p->to = (uint32_t)to;
	p->migrations++;
	if (sm->so.detail)
		sm_detail(s, e, comm, tid, prio, from, to);
	if (sm->fg && e->nr_callchain) {
		size_t nr = pp_session__stack_frames(s, e, sm->names, sm->frames, SM_FRAMES);

		/* under the task that moved, not the one that moved it */
		if (nr) {
			snprintf(sm->names[0], sizeof(sm->names[0]), "%s", comm);
			sm->frames[0] = sm->names[0];
		}
		if (pp_flame__add(sm->fg, sm->frames, nr, 1))
			pp_session__fail(s, -ENOMEM);
	}
}

static int cmp_task(const void *a, const void *b)
{
	const struct sm_task *x = *(const struct sm_task *const *)a;
	const struct sm_task *y = *(const struct sm_task *const *)b;

	if (x->migrations != y->migrations)
		return x->migrations > y->migrations ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int cmp_pair(const void *a, const void *b)
{
	const struct sm_pair *x = *(const struct sm_pair *const *)a;
	const struct sm_pair *y = *(const struct sm_pair *const *)b;

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->to < y->to ? -1 : x->to > y->to;
}

/* The entries of @m with migrations, sorted by @cmp; NULL when out of memory. */
static void **sm_sorted(const struct pp_kmap *m, size_t off, size_t *n,
			int (*cmp)(const void *, const void *))
{
	void **list = malloc((m->nr ? m->nr : 1) * sizeof(*list));

	*n = 0;
	if (!list)
		return NULL;
	for (size_t i = 0; i < m->cap; i++) {
		char *v = pp_kmap__nth(m, i, NULL);
		uint64_t migrations;

		if (!v)
			continue;
		memcpy(&migrations, v + off, sizeof(migrations));
		if (migrations)
			list[(*n)++] = v;
	}
	qsort(list, *n, sizeof(*list), cmp);
	return list;
}

static void sm_print(struct pp_session *s, uint64_t now)
{
	struct sched_migrate *sm = pp_session__priv(s);
	int json = pp_session__opts(s)->json;
	struct pp_out *out = pp_session__out(s);
	size_t nt, np;
	struct sm_task **tasks = (struct sm_task **)sm_sorted(&sm->tasks,
		offsetof(struct sm_task, migrations), &nt, cmp_task);
	struct sm_pair **pairs = (struct sm_pair **)sm_sorted(&sm->pairs,
		offsetof(struct sm_pair, migrations), &np, cmp_pair);
	char tbuf[32];

	if (!tasks || !pairs) {
		free(tasks);
		free(pairs);
		pp_session__fail(s, -ENOMEM);
		return;
	}
	pp_session__format_time(s, now, tbuf);
	if (!json)
		pp_out__printf(out, "%s\n%16s %7s %10s\n", tbuf, "comm", "tid", "migrations");
	for (size_t i = 0; i < nt; i++) {
		struct sm_task *t = tasks[i];

		if (json) {
			pp_json__begin(s, "row", now);
			pp_out__puts(out, ",\"comm\":");
			pp_out__json_str(out, t->comm);
			pp_out__printf(out, ",\"tid\":%u,\"migrations\":%llu}\n", t->tid,
				       (unsigned long long)t->migrations);
		} else {
			pp_out__printf(out, "%16s %7u %10llu\n", t->comm, t->tid,
				       (unsigned long long)t->migrations);
		}
		t->migrations = 0;
	}
	if (!json && np)
		pp_out__printf(out, "%8s %6s %10s\n", "from cpu", "to cpu", "migrations");
	for (size_t i = 0; i < np; i++) {
		struct sm_pair *p = pairs[i];

		if (json) {
			pp_json__begin(s, "cpus", now);
			pp_out__printf(out, ",\"from\":%u,\"to\":%u,\"migrations\":%llu}\n", p->from,
				       p->to, (unsigned long long)p->migrations);
		} else {
			pp_out__printf(out, "%8u %6u %10llu\n", p->from, p->to,
				       (unsigned long long)p->migrations);
		}
		p->migrations = 0;
	}
	free(tasks);
	free(pairs);
}

static void sm_report(struct pp_session *s)
{
	struct sched_migrate *sm = pp_session__priv(s);
	const struct pp_opts *o = pp_session__opts(s);

	if (!o->interval_ns)
		sm_print(s, pp_session__stats(s)->last_ts);
	if (!sm->fg)
		return;
	pp_flame__report(s, sm->fg, o->flame_graph, NULL);
}

static void sm_deinit(struct pp_session *s)
{
	struct sched_migrate *sm = pp_session__priv(s);

	if (!sm)
		return;
	pp_kmap__exit(&sm->tasks);
	pp_kmap__exit(&sm->pairs);
	pp_sched_opts__exit(&sm->so);
	pp_flame__free(sm->fg);
	free(sm);
}

static const struct pp_mod_opt sm_mod_opts[] = {
	PP_SCHED_OPT_FILTER,
	{ "detail", 0, 0, "print each migration (with its stack under -g)" },
	{ NULL, 0, 0, NULL },
};

const struct pp_analyzer pp_analyzer_sched_migrate = {
	.name = "sched-migrate",
	.desc = "task migrations between CPUs: per task, per CPU pair, and what moved them",
	.help = "pp-analyze sched-migrate [--detail] [--filter GLOB] [-g [--flame-graph NAME]] "
		"[-i MS] [--json] [FILE]\n"
		"  needs sched:sched_migrate_task (pp-record sched-migrate -- COMMAND)\n"
		"  the migrations of the tasks selected (-p, -t, the COMMAND, --filter on\n"
		"  the moved task's comm), whoever moved them; -g: the stack that moved them\n"
		"  example: pp-record sched-migrate -g -- ./app && pp-analyze sched-migrate --detail -g\n",
	.mod_opts = sm_mod_opts,
	.needs_system_wide = 1,
	.opts = PP_OPT_INTERVAL | PP_OPT_JSON | PP_OPT_CALLCHAIN | PP_OPT_FLAME,
	.events = sm_events,
	.init = sm_init,
	.sample = sm_sample,
	.interval = sm_print,
	.report = sm_report,
	.deinit = sm_deinit,
};
