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

struct stat_state {
	uint64_t *counts;	/* [evsel * nr_cpus + cpu] */
	uint32_t nr_cpus;
	size_t nr_evsels;
	uint64_t start;		/* the first event */
	int header_done;
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
	for (size_t e = 0; e < nr && e < st->nr_evsels; e++) {
		uint64_t *c = &st->counts[e * st->nr_cpus], sum = 0;

		if (o->nr_events && !evs[e].spec)
			continue;
		/* the side-band carrier (comm/mmap records) has no samples to count */
		if (evs[e].type == PERF_TYPE_SOFTWARE && evs[e].config == PERF_COUNT_SW_DUMMY)
			continue;
		if (o->perins) {
			for (uint32_t cpu = 0; cpu < st->nr_cpus; cpu++)
				stat_row(s, tbuf, now, evs[e].name, (int)cpu, c[cpu], len, partial);
		} else {
			for (uint32_t cpu = 0; cpu < st->nr_cpus; cpu++)
				sum += c[cpu];
			stat_row(s, tbuf, now, evs[e].name, -1, sum, len, partial);
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
