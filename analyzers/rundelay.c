// SPDX-License-Identifier: MIT
/*
 * rundelay: run-queue delay, the time a task waits for a CPU once it is
 * runnable: from its wakeup (sched_waking, else sched_wakeup /
 * sched_wakeup_new) or its preemption (switched out runnable) to the
 * sched_switch that runs it. calls, total, min, p50/p95/p99, max overall or
 * per thread (--perins); --than TIME prints each longer wait. A lost window
 * drops every pending wait (its switch-in may be in the hole).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pp/replay.h"
#include "analyzers.h"
#include "hist.h"
#include "sched-common.h"
#include "json.h"

struct rd_thread {
	uint32_t tid;
	int comm_ok;
	uint64_t since;		/* runnable since, 0 = not waiting */
	uint32_t wake_cpu;
	int preempted;
	char comm[16];
	struct pp_hist h;
};

struct rundelay {
	struct pp_sched_fields sf;
	struct pp_sched_opts so;
	struct pp_kmap threads;
	struct pp_hist all;
	uint64_t lost;
};

static int rd_events(const struct pp_opts *o, struct pp_event_reqs *out)
{
	out->nr = 3;
	out->req[0].spec = "sched:sched_switch";
	out->req[1].spec = "sched:sched_waking";
	out->req[2].spec = "sched:sched_wakeup_new";
	return 0;
}

static int rd_init(struct pp_session *s)
{
	struct rundelay *rd = calloc(1, sizeof(*rd));
	int ret;

	if (!rd)
		return -ENOMEM;
	pp_session__set_priv(s, rd);
	pp_kmap__init(&rd->threads, sizeof(struct rd_thread));
	pp_hist__init(&rd->all);
	ret = pp_sched_opts__parse(&rd->so, pp_session__opts(s), "rundelay");
	if (ret)
		return ret;
	return pp_sched_fields__init(&rd->sf, s, "rundelay", 1);
}

static struct rd_thread *rd_thread(struct rundelay *rd, uint32_t tid, const struct pp_event *e,
				   const struct tep_format_field *comm_f)
{
	int created;
	struct rd_thread *t = pp_kmap__get(&rd->threads, tid, &created);
	char comm[16];

	if (!t)
		return NULL;
	if (created) {
		t->tid = tid;
		pp_hist__init(&t->h);
		t->comm_ok = !rd->so.nr_filter;
	}
	if (comm_f && !pp_event__str(e, comm_f, comm, sizeof(comm)) && strcmp(comm, t->comm)) {
		memcpy(t->comm, comm, sizeof(comm));
		t->comm_ok = pp_sched_opts__comm_ok(&rd->so, comm);
	}
	return t;
}

static void rd_switch(struct pp_session *s, struct rundelay *rd, const struct pp_event *e)
{
	const struct pp_sched_fields *sf = &rd->sf;
	const struct pp_opts *o = pp_session__opts(s);
	uint64_t prev, next, pstate;
	struct rd_thread *t;

	if (pp_event__num(e, sf->prev_pid, &prev) || pp_event__num(e, sf->next_pid, &next) ||
	    pp_event__num(e, sf->prev_state, &pstate))
		return;
	/* Switch events of every task arrive (.needs_system_wide): keep the targets'. */
	if (prev && pp_session__is_target(s, (uint32_t)prev) &&
	    (t = rd_thread(rd, (uint32_t)prev, e, sf->prev_comm))) {
		if (pp_sched_state_of(pstate) == PP_ST_RP) {
			t->since = e->time;
			t->wake_cpu = e->cpu;
			t->preempted = 1;
		} else {
			t->since = 0;
		}
	}
	if (!next || !pp_session__is_target(s, (uint32_t)next) ||
	    !(t = rd_thread(rd, (uint32_t)next, e, sf->next_comm)))
		return;
	if (t->since && e->time >= t->since && t->comm_ok) {
		uint64_t d = e->time - t->since;

		pp_hist__add(&t->h, d);
		if (o->than_set && d > o->than && o->json) {
			pp_json__begin(s, "outlier", t->since);
			pp_json__str(s, "comm", t->comm);
			pp_json__u64(s, "tid", t->tid);
			pp_json__str(s, "cause", t->preempted ? "preempted" : "woken");
			pp_json__u64(s, "from_cpu", t->wake_cpu);
			pp_json__u64(s, "cpu", e->cpu);
			pp_json__u64(s, "duration", d);
			pp_json__end(s);
		} else if (o->than_set && d > o->than) {
			char tb[32], db[16];

			pp_session__format_time(s, t->since, tb);
			pp_out__printf(pp_session__out(s), "%s %16s %7u %s on cpu %u after %s on cpu %u: waited %s\n",
				       tb, t->comm, t->tid, t->preempted ? "preempted" : "woken", e->cpu,
				       t->preempted ? "switch-out" : "wakeup", t->wake_cpu,
				       pp_sched_ns(db, d));
		}
	}
	t->since = 0;
}

static void rd_wakeup(struct pp_session *s, struct rundelay *rd, const struct pp_event *e, int w)
{
	struct rd_thread *t;
	uint64_t pid;

	/* sched_wakeup follows sched_waking for the same wakeup: keep the first. */
	if (w == 1 && rd->sf.waking)
		return;
	if (pp_event__num(e, rd->sf.wk_pid[w], &pid) || !pid || !pp_session__is_target(s, (uint32_t)pid))
		return;
	t = rd_thread(rd, (uint32_t)pid, e, rd->sf.wk_comm[w]);
	if (!t || t->since)
		return;
	t->since = e->time;
	t->wake_cpu = e->cpu;
	t->preempted = 0;
}

static void rd_sample(struct pp_session *s, const struct pp_event *e)
{
	struct rundelay *rd = pp_session__priv(s);

	if (e->evsel == rd->sf.sw)
		rd_switch(s, rd, e);
	else if (e->evsel == rd->sf.waking)
		rd_wakeup(s, rd, e, 0);
	else if (e->evsel == rd->sf.wakeup)
		rd_wakeup(s, rd, e, 1);
	else if (e->evsel == rd->sf.wakeup_new)
		rd_wakeup(s, rd, e, 2);
}

static void rd_lost(struct pp_session *s, const struct pp_lost *l)
{
	struct rundelay *rd = pp_session__priv(s);

	for (size_t i = 0; i < rd->threads.cap; i++) {
		struct rd_thread *t = pp_kmap__nth(&rd->threads, i, NULL);

		if (t)
			t->since = 0;
	}
	rd->lost++;
}

static void rd_row(struct pp_session *s, uint64_t now, const struct rd_thread *t,
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
		pp_out__printf(o, ",\"calls\":%llu,\"total\":%llu,\"min\":%llu,\"avg\":%llu,\"p50\":%llu,"
			       "\"p95\":%llu,\"p99\":%llu,\"max\":%llu}\n",
			       (unsigned long long)hs.calls, (unsigned long long)hs.total,
			       (unsigned long long)hs.min, (unsigned long long)hs.avg,
			       (unsigned long long)hs.p50, (unsigned long long)hs.p95,
			       (unsigned long long)hs.p99, (unsigned long long)hs.max);
		return;
	}
	if (t)
		pp_out__printf(o, "%16s %7u ", t->comm, t->tid);
	else
		pp_out__printf(o, "%24s ", "all");
	pp_out__printf(o, "%8llu %10s %10s %10s %10s %10s %10s %10s\n", (unsigned long long)hs.calls,
		       pp_sched_ns(b[0], hs.total), pp_sched_ns(b[1], hs.min), pp_sched_ns(b[2], hs.avg),
		       pp_sched_ns(b[3], hs.p50), pp_sched_ns(b[4], hs.p95), pp_sched_ns(b[5], hs.p99),
		       pp_sched_ns(b[6], hs.max));
}

static int cmp_total(const void *a, const void *b)
{
	const struct rd_thread *x = *(const struct rd_thread *const *)a;
	const struct rd_thread *y = *(const struct rd_thread *const *)b;

	if (x->h.total != y->h.total)
		return x->h.total > y->h.total ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static void rd_print(struct pp_session *s, uint64_t now)
{
	struct rundelay *rd = pp_session__priv(s);
	const struct pp_opts *o = pp_session__opts(s);
	struct rd_thread **list = malloc((rd->threads.nr ? rd->threads.nr : 1) * sizeof(*list));
	size_t n = 0;
	char tbuf[32];

	if (!list)
		return;
	pp_session__format_time(s, now, tbuf);
	pp_hist__reset(&rd->all);
	for (size_t i = 0; i < rd->threads.cap; i++) {
		struct rd_thread *t = pp_kmap__nth(&rd->threads, i, NULL);

		if (t && t->h.calls) {
			list[n++] = t;
			pp_hist__merge(&rd->all, &t->h);
		}
	}
	qsort(list, n, sizeof(*list), cmp_total);
	if (!o->json)
		pp_out__printf(pp_session__out(s), "%s run-queue delay\n%24s %8s %10s %10s %10s %10s %10s %10s %10s\n",
			       tbuf, o->perins ? "comm     tid" : "", "calls", "total", "min", "avg",
			       "p50", "p95", "p99", "max");
	if (o->perins) {
		for (size_t i = 0; i < n; i++)
			rd_row(s, now, list[i], &list[i]->h);
	} else if (rd->all.calls) {
		rd_row(s, now, NULL, &rd->all);
	}
	for (size_t i = 0; i < n; i++)
		pp_hist__reset(&list[i]->h);
	free(list);
}

static void rd_report(struct pp_session *s)
{
	struct rundelay *rd = pp_session__priv(s);

	if (!pp_session__opts(s)->interval_ns)
		rd_print(s, pp_session__stats(s)->last_ts);
	if (rd->lost)
		pp_analyzer__warn("rundelay", "%llu lost windows: waits spanning them were dropped",
			(unsigned long long)rd->lost);
}

static void rd_deinit(struct pp_session *s)
{
	struct rundelay *rd = pp_session__priv(s);

	if (!rd)
		return;
	for (size_t i = 0; i < rd->threads.cap; i++) {
		struct rd_thread *t = pp_kmap__nth(&rd->threads, i, NULL);

		if (t)
			pp_hist__exit(&t->h);
	}
	pp_hist__exit(&rd->all);
	pp_kmap__exit(&rd->threads);
	pp_sched_opts__exit(&rd->so);
	free(rd);
}

static const struct pp_mod_opt rd_mod_opts[] = {
	PP_SCHED_OPT_FILTER,
	{ NULL, 0, 0, NULL },
};

const struct pp_analyzer pp_analyzer_rundelay = {
	.name = "rundelay",
	.desc = "run-queue delay: wakeup or preemption -> running, per task, with --than outliers",
	.help = "pp-analyze rundelay [--perins] [--than TIME] [-i MS] [--json] [FILE]\n"
		"  needs sched:sched_switch and sched:sched_waking (or sched_wakeup), e.g.\n"
		"    pp-record -a -e sched:sched_switch,sched:sched_waking,sched:sched_wakeup_new\n"
		"  example: pp-analyze rundelay --perins --than 4ms --filter 'myapp*'\n",
	.mod_opts = rd_mod_opts,
	.needs_system_wide = 1,
	.opts = PP_OPT_INTERVAL | PP_OPT_THAN | PP_OPT_PERINS | PP_OPT_JSON,
	.events = rd_events,
	.init = rd_init,
	.sample = rd_sample,
	.lost = rd_lost,
	.interval = rd_print,
	.report = rd_report,
	.deinit = rd_deinit,
};
