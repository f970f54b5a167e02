// SPDX-License-Identifier: MIT
/*
 * stat: count events, printed every -i interval (per CPU with --perins),
 * or once at the end; --json gives one object per line.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include "pp/replay.h"
#include "analyzers.h"

struct stat_state {
	uint64_t *counts;	/* [evsel * nr_cpus + cpu] */
	uint32_t nr_cpus;
	size_t nr_evsels;
	uint64_t start;		/* start of the current interval */
};

static int stat_grow(struct stat_state *st, uint32_t cpus)
{
	uint64_t *n = calloc(st->nr_evsels * cpus, sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (size_t e = 0; e < st->nr_evsels; e++)
		for (uint32_t c = 0; c < st->nr_cpus; c++)
			n[e * cpus + c] = st->counts[e * st->nr_cpus + c];
	free(st->counts);
	st->counts = n;
	st->nr_cpus = cpus;
	return 0;
}

static int stat_init(struct pp_session *s)
{
	struct stat_state *st = calloc(1, sizeof(*st));
	const char *v = pp_session__machine(s, "nr_cpus");

	if (!st)
		return -ENOMEM;
	pp_session__evsels(s, &st->nr_evsels);
	if (!st->nr_evsels)
		st->nr_evsels = 1;
	if (stat_grow(st, v && atoi(v) > 0 ? (uint32_t)atoi(v) : 1)) {
		free(st);
		return -ENOMEM;
	}
	pp_session__set_priv(s, st);
	return 0;
}

static void stat_sample(struct pp_session *s, const struct pp_event *e)
{
	struct stat_state *st = pp_session__priv(s);

	if (e->cpu >= st->nr_cpus && (e->cpu >= 4096 || stat_grow(st, e->cpu + 1)))
		return;
	if ((size_t)e->evsel->idx >= st->nr_evsels)
		return;
	if (!st->start)
		st->start = e->time;
	st->counts[(size_t)e->evsel->idx * st->nr_cpus + e->cpu]++;
}

static void stat_row(struct pp_session *s, const char *tbuf, uint64_t now, const char *name,
		     int cpu, uint64_t count)
{
	struct pp_out *o = pp_session__out(s);

	if (pp_session__opts(s)->json) {
		pp_out__puts(o, "{\"time\":");
		pp_out__json_str(o, tbuf);
		pp_out__puts(o, ",\"ts\":");
		pp_out__u64(o, now);
		pp_out__puts(o, ",\"event\":");
		pp_out__json_str(o, name);
		if (cpu >= 0) {
			pp_out__puts(o, ",\"cpu\":");
			pp_out__u64(o, (uint64_t)cpu);
		}
		pp_out__puts(o, ",\"count\":");
		pp_out__u64(o, count);
		pp_out__puts(o, "}\n");
		return;
	}
	if (cpu >= 0)
		pp_out__printf(o, "%s  [%03d]  %-32s %12llu\n", tbuf, cpu, name, (unsigned long long)count);
	else
		pp_out__printf(o, "%s  %-32s %12llu\n", tbuf, name, (unsigned long long)count);
}

static void stat_print(struct pp_session *s, uint64_t now)
{
	struct stat_state *st = pp_session__priv(s);
	const struct pp_opts *o = pp_session__opts(s);
	size_t nr;
	struct pp_evsel *evs = pp_session__evsels(s, &nr);
	char tbuf[32];

	pp_session__format_time(s, now, tbuf);
	for (size_t e = 0; e < nr && e < st->nr_evsels; e++) {
		uint64_t *c = &st->counts[e * st->nr_cpus], sum = 0;

		if (o->nr_events && !evs[e].spec)
			continue;
		/* the side-band carrier (comm/mmap records) has no samples to count */
		if (evs[e].type == PERF_TYPE_SOFTWARE && evs[e].config == PERF_COUNT_SW_DUMMY)
			continue;
		if (o->perins) {
			for (uint32_t cpu = 0; cpu < st->nr_cpus; cpu++)
				stat_row(s, tbuf, now, evs[e].name, (int)cpu, c[cpu]);
		} else {
			for (uint32_t cpu = 0; cpu < st->nr_cpus; cpu++)
				sum += c[cpu];
			stat_row(s, tbuf, now, evs[e].name, -1, sum);
		}
	}
	memset(st->counts, 0, st->nr_evsels * st->nr_cpus * sizeof(uint64_t));
}

static void stat_interval(struct pp_session *s, uint64_t now)
{
	stat_print(s, now);
}

static void stat_report(struct pp_session *s)
{
	if (!pp_session__opts(s)->interval_ns)
		stat_print(s, pp_session__stats(s)->last_ts);
}

static void stat_deinit(struct pp_session *s)
{
	struct stat_state *st = pp_session__priv(s);

	if (st)
		free(st->counts);
	free(st);
}

const struct pp_analyzer pp_analyzer_stat = {
	.no_symbols = 1,
	.name = "stat",
	.desc = "count events per interval (per CPU with --perins)",
	.help = "pp-analyze stat -e EVENT,... [-i MS] [--perins] [--json] [FILE]\n"
		"  example: pp-analyze stat -e 'sched:*' -i 1000 pp.trace\n",
	.opts = PP_OPT_EVENTS | PP_OPT_INTERVAL | PP_OPT_PERINS | PP_OPT_JSON,
	.init = stat_init,
	.sample = stat_sample,
	.interval = stat_interval,
	.report = stat_report,
	.deinit = stat_deinit,
};
