// SPDX-License-Identifier: MIT
/*
 * percpu-stat: a preselected set of counters per CPU, no -e needed:
 * context switches, migrations, syscalls, hard irqs, softirqs and page
 * faults (user and kernel), printed every -i interval or once at the end.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pp/replay.h"
#include "analyzers.h"
#include "sched-common.h"
#include "json.h"

#define PS_MAX_CPUS	4096

static const struct {
	const char *event, *column;
} ps_cols[] = {
	{ "sched:sched_switch", "cs" },
	{ "sched:sched_migrate_task", "migrations" },
	{ "raw_syscalls:sys_enter", "syscalls" },
	{ "irq:irq_handler_entry", "irqs" },
	{ "irq:softirq_entry", "softirqs" },
	{ "exceptions:page_fault_user", "faults-user" },
	{ "exceptions:page_fault_kernel", "faults-kernel" },
};
#define PS_NR	(sizeof(ps_cols) / sizeof(ps_cols[0]))

struct percpu_stat {
	int *col;			/* per evsel: column or -1 */
	size_t nr_evsels;
	uint32_t max_cpu;
	uint64_t counts[PS_MAX_CPUS][PS_NR];
};

static int ps_events(const struct pp_opts *o, struct pp_event_reqs *out)
{
	out->nr = (int)PS_NR;
	for (size_t i = 0; i < PS_NR; i++)
		out->req[i].spec = ps_cols[i].event;
	return 0;
}

static int ps_init(struct pp_session *s)
{
	struct percpu_stat *ps = calloc(1, sizeof(*ps));
	size_t nr;
	struct pp_evsel *evs = pp_session__evsels(s, &nr);
	int any = 0;

	if (!ps)
		return -ENOMEM;
	pp_session__set_priv(s, ps);
	ps->col = calloc(nr ? nr : 1, sizeof(*ps->col));
	if (!ps->col)
		return -ENOMEM;
	ps->nr_evsels = nr;
	for (size_t i = 0; i < nr; i++) {
		ps->col[i] = -1;
		for (size_t c = 0; c < PS_NR; c++) {
			if (!strcmp(evs[i].name, ps_cols[c].event)) {
				ps->col[i] = (int)c;
				any = 1;
			}
		}
	}
	if (!any)
		return pp_analyzer__err("percpu-stat", -ENOENT, "the trace has none of its events (record with "
			"pp-record -a -e sched:sched_switch,sched:sched_migrate_task,raw_syscalls:sys_enter,"
			"irq:irq_handler_entry,irq:softirq_entry,exceptions:page_fault_user,"
			"exceptions:page_fault_kernel)");
	return 0;
}

static void ps_sample(struct pp_session *s, const struct pp_event *e)
{
	struct percpu_stat *ps = pp_session__priv(s);
	int c;

	if ((size_t)e->evsel->idx >= ps->nr_evsels || e->cpu >= PS_MAX_CPUS)
		return;
	c = ps->col[e->evsel->idx];
	if (c < 0)
		return;
	ps->counts[e->cpu][c]++;
	if (e->cpu > ps->max_cpu)
		ps->max_cpu = e->cpu;
}

static void ps_print(struct pp_session *s, uint64_t now)
{
	struct percpu_stat *ps = pp_session__priv(s);
	const struct pp_opts *o = pp_session__opts(s);
	struct pp_out *out = pp_session__out(s);
	uint64_t total[PS_NR] = { 0 };
	char tbuf[32];

	pp_session__format_time(s, now, tbuf);
	if (!o->json) {
		pp_out__printf(out, "%s\n%5s", tbuf, "cpu");
		for (size_t c = 0; c < PS_NR; c++)
			pp_out__printf(out, " %13s", ps_cols[c].column);
		pp_out__putc(out, '\n');
	}
	for (uint32_t cpu = 0; cpu <= ps->max_cpu; cpu++) {
		if (o->json) {
			pp_json__begin(s, "row", now);
			pp_out__printf(out, ",\"cpu\":%u", cpu);
		} else {
			pp_out__printf(out, "%5u", cpu);
		}
		for (size_t c = 0; c < PS_NR; c++) {
			if (o->json)
				pp_out__printf(out, ",\"%s\":%llu", ps_cols[c].column,
					       (unsigned long long)ps->counts[cpu][c]);
			else
				pp_out__printf(out, " %13llu", (unsigned long long)ps->counts[cpu][c]);
			total[c] += ps->counts[cpu][c];
			ps->counts[cpu][c] = 0;
		}
		pp_out__puts(out, o->json ? "}\n" : "\n");
	}
	if (o->json) {
		pp_json__begin(s, "total", now);
		for (size_t c = 0; c < PS_NR; c++)
			pp_json__u64(s, ps_cols[c].column, total[c]);
		pp_json__end(s);
	} else {
		pp_out__printf(out, "%5s", "all");
		for (size_t c = 0; c < PS_NR; c++)
			pp_out__printf(out, " %13llu", (unsigned long long)total[c]);
		pp_out__putc(out, '\n');
	}
}

static void ps_report(struct pp_session *s)
{
	if (!pp_session__opts(s)->interval_ns)
		ps_print(s, pp_session__stats(s)->last_ts);
}

static void ps_deinit(struct pp_session *s)
{
	struct percpu_stat *ps = pp_session__priv(s);

	if (ps)
		free(ps->col);
	free(ps);
}

const struct pp_analyzer pp_analyzer_percpu_stat = {
	.no_symbols = 1,
	.name = "percpu-stat",
	.desc = "per-CPU counters: context switches, migrations, syscalls, irqs, softirqs, page faults",
	.help = "pp-analyze percpu-stat [-i MS] [--json] [FILE]\n"
		"  record: pp-record percpu-stat, or pp-record -a -e sched:sched_switch,sched:sched_migrate_task,\n"
		"    raw_syscalls:sys_enter,irq:irq_handler_entry,irq:softirq_entry,exceptions:page_fault_user,\n"
		"    exceptions:page_fault_kernel\n",
	.opts = PP_OPT_INTERVAL | PP_OPT_JSON,
	.events = ps_events,
	.init = ps_init,
	.sample = ps_sample,
	.interval = ps_print,
	.report = ps_report,
	.deinit = ps_deinit,
};
