// SPDX-License-Identifier: MIT
/*
 * Hardware counters from samples (pmu.h): weights, derived metrics, and the
 * hit-rate profilers llcstat and tlbstat share. Per CPU, or per thread with
 * --perthread; per interval with -i. Each key's row gives, per pair,
 * accesses, misses (sums of the sample periods) and the hit rate.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include "pp/replay.h"
#include "analyzers.h"
#include "json.h"
#include "sched-common.h"
#include "pmu.h"

#define PMU_MAX_PAIRS	4
#define PMU_DEFAULT_HZ	1000

int pp_pmu__is_counter(const struct pp_evsel *ev)
{
	return ev && (ev->type == PERF_TYPE_HARDWARE || ev->type == PERF_TYPE_HW_CACHE);
}

uint64_t pp_pmu__weight(const struct pp_event *e)
{
	if (!pp_pmu__is_counter(e->evsel))
		return 1;
	return e->period ? e->period : 1;
}

double pp_pmu__hit_pct(uint64_t accesses, uint64_t misses)
{
	double p;

	if (!accesses)
		return -1;
	if (misses >= accesses)
		return 0;
	p = 100.0 * (1.0 - (double)misses / (double)accesses);
	return p > 100 ? 100 : p;
}

double pp_pmu__ratio(uint64_t num, uint64_t den)
{
	return den ? (double)num / (double)den : -1;
}

const struct pp_pmu_metric pp_pmu_metrics[] = {
	{ "insn per cycle", "instructions", "cycles", 0 },
	{ "insn per cycle", "instructions", "cpu-cycles", 0 },
	{ "cache misses %", "cache-misses", "cache-references", 1 },
	{ "branch misses %", "branch-misses", "branches", 1 },
	{ "L1-dcache load misses %", "L1-dcache-load-misses", "L1-dcache-loads", 1 },
	{ "LLC load misses %", "LLC-load-misses", "LLC-loads", 1 },
	{ "dTLB load misses %", "dTLB-load-misses", "dTLB-loads", 1 },
	{ "iTLB load misses %", "iTLB-load-misses", "iTLB-loads", 1 },
};
const int pp_pmu_nr_metrics = (int)(sizeof(pp_pmu_metrics) / sizeof(pp_pmu_metrics[0]));

double pp_pmu__metric(const struct pp_pmu_metric *m, const char *const *names,
		      const uint64_t *sums, int nr)
{
	int n = -1, d = -1;
	double r;

	for (int i = 0; i < nr; i++) {
		if (!strcmp(names[i], m->num))
			n = i;
		if (!strcmp(names[i], m->den))
			d = i;
	}
	if (n < 0 || d < 0)
		return -1;
	r = pp_pmu__ratio(sums[n], sums[d]);
	return r < 0 ? r : m->pct ? 100 * r : r;
}

/* --- llcstat, tlbstat --- */

struct pmu_key {
	uint64_t c[2 * PMU_MAX_PAIRS];	/* access, miss per pair */
	uint32_t key;
	int seen;
};

struct pmustat {
	const struct pp_pmustat_def *d;
	const struct pp_evsel *ev[2 * PMU_MAX_PAIRS];
	struct pp_kmap keys;		/* cpu or tid -> pmu_key */
	int perthread;
};

const struct pp_mod_opt pp_pmustat_mod_opts[] = {
	{ "perthread", 0, 0, "per thread instead of per CPU" },
	{ NULL, 0, 0, NULL },
};

int pp_pmustat__events(const struct pp_pmustat_def *d, const struct pp_opts *o,
		       struct pp_event_reqs *out)
{
	out->nr = 0;
	for (int i = 0; i < d->nr && i < PMU_MAX_PAIRS; i++) {
		const char *ev[2] = { d->pairs[i].access, d->pairs[i].miss };

		for (int k = 0; k < 2; k++) {
			struct pp_event_req *r = &out->req[out->nr++];

			r->spec = ev[k];
			r->freq = o->freq ? o->freq : PMU_DEFAULT_HZ;
			r->exclude_user = o->exclude_user;
			r->exclude_kernel = o->exclude_kernel;
		}
	}
	return 0;
}

int pp_pmustat__init(struct pp_session *s, const struct pp_pmustat_def *d)
{
	struct pmustat *p = calloc(1, sizeof(*p));
	size_t nr;
	struct pp_evsel *evs = pp_session__evsels(s, &nr);
	int any = 0;

	if (!p)
		return -ENOMEM;
	pp_session__set_priv(s, p);
	p->d = d;
	pp_kmap__init(&p->keys, sizeof(struct pmu_key));
	p->perthread = pp_opts__mod(pp_session__opts(s), "perthread") != NULL;
	for (size_t i = 0; i < nr; i++)
		for (int k = 0; k < 2 * d->nr; k++) {
			const char *name = k & 1 ? d->pairs[k / 2].miss : d->pairs[k / 2].access;

			if (pp_pmu__is_counter(&evs[i]) && !strcmp(evs[i].name, name)) {
				p->ev[k] = &evs[i];
				any = 1;
			}
		}
	if (!any)
		return pp_analyzer__err(d->module, -ENOENT, "the trace has none of its hardware counters; record "
			"with: pp-record %s (on a host with a hardware PMU)", d->module);
	return 0;
}

void pp_pmustat__sample(struct pp_session *s, const struct pp_event *e)
{
	struct pmustat *p = pp_session__priv(s);
	uint32_t k = p->perthread ? e->tid : e->cpu;
	struct pmu_key *pk;
	int created;

	for (int i = 0; i < 2 * p->d->nr; i++) {
		if (e->evsel != p->ev[i])
			continue;
		pk = pp_kmap__get(&p->keys, k, &created);
		if (!pk)
			return;
		pk->key = k;
		pk->seen = 1;
		pk->c[i] += pp_pmu__weight(e);
		return;
	}
}

static int cmp_key(const void *a, const void *b)
{
	const struct pmu_key *x = *(const struct pmu_key *const *)a;
	const struct pmu_key *y = *(const struct pmu_key *const *)b;

	return x->key < y->key ? -1 : x->key > y->key;
}

void pp_pmustat__print(struct pp_session *s, uint64_t now)
{
	struct pmustat *p = pp_session__priv(s);
	const struct pp_opts *o = pp_session__opts(s);
	struct pp_out *out = pp_session__out(s);
	struct pmu_key **list = malloc((p->keys.nr ? p->keys.nr : 1) * sizeof(*list));
	size_t n = 0;
	char tb[32];

	if (!list)
		return;
	for (size_t i = 0; i < p->keys.cap; i++) {
		struct pmu_key *pk = pp_kmap__nth(&p->keys, i, NULL);

		if (pk && pk->seen)
			list[n++] = pk;
	}
	qsort(list, n, sizeof(*list), cmp_key);
	pp_session__format_time(s, now, tb);
	if (!o->json) {
		pp_out__printf(out, "%s %s", tb, p->perthread ? "            comm     tid" : "CPU  ");
		for (int i = 0; i < p->d->nr; i++)
			pp_out__printf(out, " %14s %14s %8s", p->d->pairs[i].access, p->d->pairs[i].miss,
				       "hit%");
		pp_out__putc(out, '\n');
	}
	for (size_t i = 0; i < n; i++) {
		struct pmu_key *pk = list[i];

		if (o->json) {
			pp_json__begin(s, "row", now);
			if (p->perthread) {
				pp_json__str(s, "comm", pp_session__comm(s, pk->key));
				pp_json__u64(s, "tid", pk->key);
			} else {
				pp_json__u64(s, "cpu", pk->key);
			}
			for (int k = 0; k < p->d->nr; k++) {
				double h = pp_pmu__hit_pct(pk->c[2 * k], pk->c[2 * k + 1]);
				char key[48];

				pp_json__u64(s, p->d->pairs[k].access, pk->c[2 * k]);
				pp_json__u64(s, p->d->pairs[k].miss, pk->c[2 * k + 1]);
				snprintf(key, sizeof(key), "%s_hit_pct", p->d->pairs[k].label);
				if (h >= 0)
					pp_out__printf(out, ",\"%s\":%.2f", key, h);
				else
					pp_out__printf(out, ",\"%s\":null", key);
			}
			pp_json__end(s);
		} else {
			if (p->perthread)
				pp_out__printf(out, "%s %16s %7u", tb, pp_session__comm(s, pk->key), pk->key);
			else
				pp_out__printf(out, "%s %03u  ", tb, pk->key);
			for (int k = 0; k < p->d->nr; k++) {
				double h = pp_pmu__hit_pct(pk->c[2 * k], pk->c[2 * k + 1]);

				pp_out__printf(out, " %14llu %14llu", (unsigned long long)pk->c[2 * k],
					       (unsigned long long)pk->c[2 * k + 1]);
				if (h >= 0)
					pp_out__printf(out, " %7.2f%%", h);
				else
					pp_out__printf(out, " %8s", "-");
			}
			pp_out__putc(out, '\n');
		}
		memset(pk->c, 0, sizeof(pk->c));
		pk->seen = 0;
	}
	free(list);
}

void pp_pmustat__report(struct pp_session *s)
{
	if (!pp_session__opts(s)->interval_ns)
		pp_pmustat__print(s, pp_session__stats(s)->last_ts);
}

void pp_pmustat__deinit(struct pp_session *s)
{
	struct pmustat *p = pp_session__priv(s);

	if (!p)
		return;
	pp_kmap__exit(&p->keys);
	free(p);
}
