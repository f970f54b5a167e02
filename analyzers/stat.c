// SPDX-License-Identifier: MIT
/*
 * stat: count events, printed every -i interval (per CPU with --perins),
 * or once at the end; --json gives one object per line. Text starts with
 * a header that says what the columns count; the last interval, cut short
 * by the end of the events, says how long it really was.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include "pp/replay.h"
#include "analyzers.h"
#include "json.h"
#include "pmu.h"

#define STAT_MAX_CPUS	4096	/* as the replay core's streams */

/* One event's counts per CPU, grown to the highest CPU it was seen on. */
struct stat_row {
	uint64_t *c;
	uint32_t n;
};

struct stat_state {
	struct stat_row *rows;	/* [evsel] */
	uint32_t nr_cpus;	/* CPUs shown: the machine's, or up to the highest seen */
	size_t nr_evsels;
	uint64_t start;		/* the first event */
	int header_done;
};

/*
 * Tables are sized by the CPUs events were seen on, never by MACHINE's
 * nr_cpus alone: a file claiming 100M CPUs asked for gigabytes here.
 */
static int stat_grow(struct stat_row *r, uint32_t cpu)
{
	uint32_t n = r->n ? r->n : 4;
	uint64_t *c;

	while (n <= cpu)
		n *= 2;
	if (n > STAT_MAX_CPUS)
		n = STAT_MAX_CPUS;
	c = realloc(r->c, n * sizeof(*c));
	if (!c)
		return -ENOMEM;
	memset(c + r->n, 0, (n - r->n) * sizeof(*c));
	r->c = c;
	r->n = n;
	return 0;
}

static int stat_init(struct pp_session *s)
{
	struct stat_state *st = calloc(1, sizeof(*st));
	const char *v = pp_session__machine(s, "nr_cpus");
	long cpus = v ? strtol(v, NULL, 10) : 0;

	if (!st)
		return -ENOMEM;
	pp_session__evsels(s, &st->nr_evsels);
	if (!st->nr_evsels)
		st->nr_evsels = 1;
	st->rows = calloc(st->nr_evsels, sizeof(*st->rows));
	if (!st->rows) {
		free(st);
		return -ENOMEM;
	}
	/* --perins shows every CPU of the machine, idle ones too, if the claim is plausible */
	st->nr_cpus = cpus > 0 && cpus <= STAT_MAX_CPUS ? (uint32_t)cpus : 1;
	pp_session__set_priv(s, st);
	return 0;
}

static void stat_sample(struct pp_session *s, const struct pp_event *e)
{
	struct stat_state *st = pp_session__priv(s);
	struct stat_row *r;

	if (e->cpu >= STAT_MAX_CPUS || (size_t)e->evsel->idx >= st->nr_evsels)
		return;
	r = &st->rows[e->evsel->idx];
	if (e->cpu >= r->n && stat_grow(r, e->cpu))
		return;
	if (e->cpu >= st->nr_cpus)
		st->nr_cpus = e->cpu + 1;
	if (!st->start)
		st->start = e->time;
	r->c[e->cpu] += pp_pmu__weight(e);	/* a hardware counter's sample stands for its period */
}

/* @ns as "50 ms", "250 us", "1.5 s": the way -i is written. */
static void fmt_dur(uint64_t ns, char *buf, size_t len)
{
	if (ns >= 1000000000ull && ns % 1000000ull == 0)
		snprintf(buf, len, "%g s", (double)ns / 1e9);
	else if (ns % 1000000ull == 0)
		snprintf(buf, len, "%llu ms", (unsigned long long)(ns / 1000000ull));
	else if (ns % 1000ull == 0)
		snprintf(buf, len, "%llu us", (unsigned long long)(ns / 1000ull));
	else
		snprintf(buf, len, "%llu ns", (unsigned long long)ns);
}

/*
 * Text mode's header, before the first row: what a row covers, what TIME
 * and COUNT are, then the column names.
 */
static void stat_header(struct pp_session *s, struct stat_state *st, uint64_t now)
{
	const struct pp_opts *o = pp_session__opts(s);
	struct pp_out *out = pp_session__out(s);
	char iv[32];

	if (o->json || st->header_done)
		return;
	st->header_done = 1;
	if (o->interval_ns) {
		fmt_dur(o->interval_ns, iv, sizeof(iv));
		pp_out__printf(out, "# events per %s interval; TIME: the interval's end, "
			       "COUNT: events in it%s\n", iv, o->perins ? ", per CPU" : "");
	} else {
		pp_out__printf(out, "# events over %.6f s, first to last event; TIME: the last event, "
			       "COUNT: events%s\n",
			       st->start && now > st->start ? (double)(now - st->start) / 1e9 : 0.0,
			       o->perins ? ", per CPU" : "");
	}
	if (o->perins)
		pp_out__printf(out, "%-15s  %-5s  %-32s %12s\n", "# TIME", "[CPU]", "EVENT", "COUNT");
	else
		pp_out__printf(out, "%-15s  %-32s %12s\n", "# TIME", "EVENT", "COUNT");
}

/*
 * One row. @len is the time the count covers; @partial: the last interval,
 * shorter than -i.
 */
static void stat_row(struct pp_session *s, const char *tbuf, uint64_t now, const char *name,
		     int cpu, uint64_t count, uint64_t len, int partial)
{
	struct pp_out *o = pp_session__out(s);

	if (pp_session__opts(s)->json) {
		pp_json__begin(s, "count", now);
		pp_out__puts(o, ",\"event\":");
		pp_out__json_str(o, name);
		if (cpu >= 0) {
			pp_out__puts(o, ",\"cpu\":");
			pp_out__u64(o, (uint64_t)cpu);
		}
		pp_out__puts(o, ",\"count\":");
		pp_out__u64(o, count);
		pp_out__puts(o, ",\"interval_ns\":");
		pp_out__u64(o, len);
		pp_out__puts(o, partial ? ",\"partial\":true}\n" : ",\"partial\":false}\n");
		return;
	}
	if (cpu >= 0)
		pp_out__printf(o, "%s  [%03d]  %-32s %12llu", tbuf, cpu, name, (unsigned long long)count);
	else
		pp_out__printf(o, "%s  %-32s %12llu", tbuf, name, (unsigned long long)count);
	if (partial)
		pp_out__printf(o, "  (partial: %.3f ms)", (double)len / 1e6);
	pp_out__putc(o, '\n');
}

static void stat_print(struct pp_session *s, uint64_t now)
{
	struct stat_state *st = pp_session__priv(s);
	const struct pp_opts *o = pp_session__opts(s);
	size_t nr;
	struct pp_evsel *evs = pp_session__evsels(s, &nr);
	uint64_t from = o->interval_ns ? pp_session__interval_start(s) : st->start, len;
	int partial;
	char tbuf[32];

	len = from && now > from ? now - from : 0;
	partial = o->interval_ns && len < o->interval_ns;
	stat_header(s, st, now);
	pp_session__format_time(s, now, tbuf);
	const char *names[PP_MAX_EVENTS];
	uint64_t sums[PP_MAX_EVENTS];
	int nr_hw = 0;

	for (size_t e = 0; e < nr && e < st->nr_evsels; e++) {
		const struct stat_row *r = &st->rows[e];
		uint64_t sum = 0;

		if (o->nr_events && !evs[e].spec)
			continue;
		/* the side-band carrier (comm/mmap records) has no samples to count */
		if (evs[e].type == PERF_TYPE_SOFTWARE && evs[e].config == PERF_COUNT_SW_DUMMY)
			continue;
		if (o->perins) {
			for (uint32_t cpu = 0; cpu < st->nr_cpus; cpu++)
				stat_row(s, tbuf, now, evs[e].name, (int)cpu,
					 cpu < r->n ? r->c[cpu] : 0, len, partial);
		} else {
			for (uint32_t cpu = 0; cpu < r->n; cpu++)
				sum += r->c[cpu];
			stat_row(s, tbuf, now, evs[e].name, -1, sum, len, partial);
			if (pp_pmu__is_counter(&evs[e]) && nr_hw < PP_MAX_EVENTS) {
				names[nr_hw] = evs[e].name;
				sums[nr_hw++] = sum;
			}
		}
	}
	/* what perf stat derives from the counters: insn per cycle, miss rates */
	for (int m = 0; m < pp_pmu_nr_metrics && nr_hw > 1; m++) {
		double v = pp_pmu__metric(&pp_pmu_metrics[m], names, sums, nr_hw);

		if (v < 0)
			continue;
		if (o->json) {
			pp_json__begin(s, "metric", now);
			pp_json__str(s, "metric", pp_pmu_metrics[m].name);
			pp_out__printf(pp_session__out(s), ",\"value\":%.4f", v);
			pp_json__end(s);
		} else {
			pp_out__printf(pp_session__out(s), "%s  %-32s %12.2f\n", tbuf,
				       pp_pmu_metrics[m].name, v);
		}
	}
	for (size_t e = 0; e < st->nr_evsels; e++)
		if (st->rows[e].n)
			memset(st->rows[e].c, 0, st->rows[e].n * sizeof(uint64_t));
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

	if (st) {
		for (size_t e = 0; e < st->nr_evsels; e++)
			free(st->rows[e].c);
		free(st->rows);
	}
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
