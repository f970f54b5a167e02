// SPDX-License-Identifier: MIT
/*
 * oncpu: which tasks ran on which CPUs and for how long, from
 * sched:sched_switch (switch-in -> switch-out on the same CPU): per task and
 * CPU the run time and the number of times it was switched in. A lost
 * window on a CPU forgets who was running there.
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

#define OC_MAX_CPUS	4096

struct oc_run {
	uint32_t tid, cpu;
	uint64_t time, runs;
	char comm[16];
};

struct oc_cpu {
	uint32_t tid;		/* running, 0 = idle or unknown */
	uint64_t since;		/* 0 = unknown */
};

struct oncpu {
	struct pp_sched_fields sf;
	struct pp_sched_opts so;
	struct pp_kmap runs;		/* tid << 16 | cpu -> struct oc_run */
	struct oc_cpu cpus[OC_MAX_CPUS];
};

static int oc_events(const struct pp_opts *o, struct pp_event_reqs *out)
{
	out->nr = 1;
	out->req[0].spec = "sched:sched_switch";
	return 0;
}

static int oc_init(struct pp_session *s)
{
	struct oncpu *oc = calloc(1, sizeof(*oc));
	int ret;

	if (!oc)
		return -ENOMEM;
	pp_session__set_priv(s, oc);
	pp_kmap__init(&oc->runs, sizeof(struct oc_run));
	ret = pp_sched_opts__parse(&oc->so, pp_session__opts(s), "oncpu");
	if (ret)
		return ret;
	return pp_sched_fields__init(&oc->sf, s, "oncpu", 0);
}

static void oc_sample(struct pp_session *s, const struct pp_event *e)
{
	struct oncpu *oc = pp_session__priv(s);
	uint64_t prev, next;
	struct oc_cpu *c;

	if (e->evsel != oc->sf.sw || e->cpu >= OC_MAX_CPUS ||
	    pp_event__num(e, oc->sf.prev_pid, &prev) || pp_event__num(e, oc->sf.next_pid, &next))
		return;
	c = &oc->cpus[e->cpu];
	if (prev && c->since && c->tid == prev && e->time >= c->since) {
		char comm[16] = "";
		int created;
		struct oc_run *r;

		pp_event__str(e, oc->sf.prev_comm, comm, sizeof(comm));
		/* Every task's switches arrive (.needs_system_wide): count the targets'. */
		if (pp_sched_opts__comm_ok(&oc->so, comm) && pp_session__is_target(s, (uint32_t)prev)) {
			r = pp_kmap__get(&oc->runs, prev << 16 | e->cpu, &created);
			if (r) {
				if (created) {
					r->tid = (uint32_t)prev;
					r->cpu = e->cpu;
				}
				memcpy(r->comm, comm, sizeof(comm));
				r->time += e->time - c->since;
				r->runs++;
			}
		}
	}
	c->tid = (uint32_t)next;
	c->since = e->time;
}

static void oc_lost(struct pp_session *s, const struct pp_lost *l)
{
	struct oncpu *oc = pp_session__priv(s);

	if (l->cpu < OC_MAX_CPUS)
		oc->cpus[l->cpu].since = 0;
}

static int cmp_run(const void *a, const void *b)
{
	const struct oc_run *x = *(const struct oc_run *const *)a;
	const struct oc_run *y = *(const struct oc_run *const *)b;

	if (x->time != y->time)
		return x->time > y->time ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static void oc_print(struct pp_session *s, uint64_t now)
{
	struct oncpu *oc = pp_session__priv(s);
	const struct pp_opts *o = pp_session__opts(s);
	struct pp_out *out = pp_session__out(s);
	struct oc_run **list = malloc((oc->runs.nr ? oc->runs.nr : 1) * sizeof(*list));
	size_t n = 0;
	char tbuf[32];

	if (!list)
		return;
	for (size_t i = 0; i < oc->runs.cap; i++) {
		struct oc_run *r = pp_kmap__nth(&oc->runs, i, NULL);

		if (r && r->runs)
			list[n++] = r;
	}
	qsort(list, n, sizeof(*list), cmp_run);
	pp_session__format_time(s, now, tbuf);
	if (!o->json)
		pp_out__printf(out, "%s\n%16s %7s %4s %12s %8s\n", tbuf, "comm", "tid", "cpu", "time", "runs");
	for (size_t i = 0; i < n; i++) {
		struct oc_run *r = list[i];
		char b[16];

		if (o->json) {
			pp_json__begin(s, "row", now);
			pp_out__puts(out, ",\"comm\":");
			pp_out__json_str(out, r->comm);
			pp_out__printf(out, ",\"tid\":%u,\"cpu\":%u,\"oncpu\":%llu,\"runs\":%llu}\n", r->tid,
				       r->cpu, (unsigned long long)r->time, (unsigned long long)r->runs);
		} else {
			pp_out__printf(out, "%16s %7u %4u %12s %8llu\n", r->comm, r->tid, r->cpu,
				       pp_sched_ns(b, r->time), (unsigned long long)r->runs);
		}
		r->time = 0;
		r->runs = 0;
	}
	free(list);
}

static void oc_report(struct pp_session *s)
{
	if (!pp_session__opts(s)->interval_ns)
		oc_print(s, pp_session__stats(s)->last_ts);
}

static void oc_deinit(struct pp_session *s)
{
	struct oncpu *oc = pp_session__priv(s);

	if (!oc)
		return;
	pp_kmap__exit(&oc->runs);
	pp_sched_opts__exit(&oc->so);
	free(oc);
}

static const struct pp_mod_opt oc_mod_opts[] = {
	PP_SCHED_OPT_FILTER,
	{ NULL, 0, 0, NULL },
};

const struct pp_analyzer pp_analyzer_oncpu = {
	.no_symbols = 1,
	.name = "oncpu",
	.desc = "which tasks ran on which CPUs and for how long (sched_switch)",
	.help = "pp-analyze oncpu [-i MS] [--json] [FILE]\n"
		"  needs sched:sched_switch (pp-record -a -e sched:sched_switch)\n"
		"  example: pp-analyze oncpu --filter 'kworker*'\n",
	.mod_opts = oc_mod_opts,
	.needs_system_wide = 1,
	.opts = PP_OPT_INTERVAL | PP_OPT_JSON,
	.events = oc_events,
	.init = oc_init,
	.sample = oc_sample,
	.lost = oc_lost,
	.interval = oc_print,
	.report = oc_report,
	.deinit = oc_deinit,
};
