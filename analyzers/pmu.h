/* SPDX-License-Identifier: MIT */
/*
 * Hardware counters read from samples: a counter recorded at a frequency
 * (the only way pp records a hardware event) carries in each sample the
 * number of events since the previous one (PERF_SAMPLE_PERIOD), so the sum
 * of the periods is the count. Shared by stat (-e cycles,instructions,...:
 * counts and derived metrics), llcstat and tlbstat (hit rates).
 */
#ifndef PP_ANALYZERS_PMU_H
#define PP_ANALYZERS_PMU_H

#include <stdint.h>
#include "pp/replay.h"

/** pp_pmu__is_counter() - a hardware (or hardware cache) event? */
int pp_pmu__is_counter(const struct pp_evsel *ev);

/**
 * pp_pmu__weight() - what one sample of @e counts: its period for a
 * hardware counter (at least 1), else 1 (a tracepoint, a software event).
 */
uint64_t pp_pmu__weight(const struct pp_event *e);

/**
 * pp_pmu__hit_pct() - 100 * (1 - @misses / @accesses), clamped to 0..100
 * (sampled estimates can show more misses than accesses); -1 when
 * @accesses is 0 (nothing to rate).
 */
double pp_pmu__hit_pct(uint64_t accesses, uint64_t misses);

/** pp_pmu__ratio() - @num / @den, -1 when @den is 0. */
double pp_pmu__ratio(uint64_t num, uint64_t den);

/* A metric derived from two counters, as perf stat prints them. */
struct pp_pmu_metric {
	const char *name;	/* "insn per cycle" */
	const char *num, *den;	/* event names */
	int pct;		/* 100 * num / den ("cache misses %") */
};

extern const struct pp_pmu_metric pp_pmu_metrics[];
extern const int pp_pmu_nr_metrics;

/**
 * pp_pmu__metric() - the value of metric @m from the counts @sums of the
 * events named @names (@nr of them). Return: the value, or -1 when an
 * event is missing or the denominator is 0.
 */
double pp_pmu__metric(const struct pp_pmu_metric *m, const char *const *names,
		      const uint64_t *sums, int nr);

/* A hit-rate profiler (llcstat, tlbstat): pairs of access and miss events. */
struct pp_pmu_pair {
	const char *label;	/* "LLC", "dTLB" */
	const char *access, *miss;
};

struct pp_pmustat_def {
	const char *module;
	const struct pp_pmu_pair *pairs;
	int nr;			/* at most 4 */
};

int pp_pmustat__events(const struct pp_pmustat_def *d, const struct pp_opts *o,
		       struct pp_event_reqs *out);
int pp_pmustat__init(struct pp_session *s, const struct pp_pmustat_def *d);
void pp_pmustat__sample(struct pp_session *s, const struct pp_event *e);
void pp_pmustat__print(struct pp_session *s, uint64_t now);
void pp_pmustat__report(struct pp_session *s);
void pp_pmustat__deinit(struct pp_session *s);

extern const struct pp_mod_opt pp_pmustat_mod_opts[];

#endif /* PP_ANALYZERS_PMU_H */
