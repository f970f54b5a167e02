// SPDX-License-Identifier: MIT
/*
 * ldlat-loads: memory loads slower than a threshold, sampled by the
 * hardware (perf-prof's ldlat-loads, perf mem record/report). Intel PEBS
 * mem-loads with the load-latency threshold ldlat (cpu/mem-loads,ldlat=N/pp)
 * or AMD IBS op (ibs_op//, its ldlat term where the PMU has one) give each
 * sample the load's IP, its data address, its latency in cycles (weight)
 * and where the data came from (union perf_mem_data_src, memsrc.h).
 *
 * The report gives the latency distribution (calls, min, avg, p50, p95,
 * p99, max in cycles) of the loads by data source, snoop, data TLB and
 * lock, by symbol of the load IP and, with --addr, by data address; per
 * interval with -i; --flame-graph weighs comm;stack;[source] by cycles.
 * Real hardware only: where there is no such PMU, pp-record ldlat-loads and
 * --live fail with one line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include "pp/replay.h"
#include "analyzers.h"
#include "fgdiff.h"
#include "hist.h"
#include "json.h"
#include "latrow.h"
#include "memsrc.h"
#include "ldlat.h"

#define LDLAT_DEFAULT		30	/* cycles, as perf mem */
#define LDLAT_DEFAULT_HZ	4000	/* perf record's default rate */
#define LDLAT_TOP		20
#define LDLAT_MAX_KEYS		4096	/* per table; more go to "[other]" */

/* The tables of the report, in its order. */
enum { T_SOURCE, T_SNOOP, T_TLB, T_LOCK, T_SYMBOL, T_ADDR, NR_T };

static const char *const t_name[NR_T] = { "source", "snoop", "tlb", "lock", "symbol", "addr" };
static const char *const t_title[NR_T] = { "DATA SOURCE", "SNOOP", "DATA TLB", "LOCKED",
					   "SYMBOL", "DATA ADDRESS" };

struct lgrp_ent {
	char *key;
	struct pp_hist h;
};

/* A string-keyed table of histograms (open addressing, FNV-1a). */
struct lgrp {
	struct lgrp_ent *v;
	size_t cap, nr;
};

struct ldlat {
	struct lgrp t[NR_T];
	struct pp_hist all;
	uint64_t not_loads, under_than, no_weight;
	uint64_t than;
	int addr, top;
	struct pp_flame *fg;
};

static const struct pp_mod_opt ldlat_mod_opts[] = {
	{ "ldlat", 0, 1, "CYCLES  record loads of at least CYCLES (default 30; 3..65535 on Intel)" },
	{ "addr", 0, 0, "also group the loads by data address" },
	{ "top", 0, 1, "N  rows of the symbol and address tables (default 20, 0: all)" },
	{ NULL, 0, 0, NULL },
};

static uint64_t fnv(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ull;
	return h;
}

static struct pp_hist *lgrp_get(struct lgrp *g, const char *key)
{
	size_t i;

	if ((g->nr + 1) * 2 > g->cap) {
		size_t ncap = g->cap ? g->cap * 2 : 64;
		struct lgrp_ent *n = calloc(ncap, sizeof(*n));

		if (!n)
			return NULL;
		for (size_t k = 0; k < g->cap; k++) {
			if (!g->v[k].key)
				continue;
			for (i = fnv(g->v[k].key) & (ncap - 1); n[i].key; i = (i + 1) & (ncap - 1))
				;
			n[i] = g->v[k];
		}
		free(g->v);
		g->v = n;
		g->cap = ncap;
	}
	for (i = fnv(key) & (g->cap - 1); g->v[i].key; i = (i + 1) & (g->cap - 1))
		if (!strcmp(g->v[i].key, key))
			return &g->v[i].h;
	if (g->nr >= LDLAT_MAX_KEYS && strcmp(key, "[other]"))
		return lgrp_get(g, "[other]");
	g->v[i].key = strdup(key);
	if (!g->v[i].key)
		return NULL;
	pp_hist__init(&g->v[i].h);
	g->nr++;
	return &g->v[i].h;
}

static void lgrp_exit(struct lgrp *g)
{
	for (size_t i = 0; i < g->cap; i++) {
		free(g->v[i].key);
		pp_hist__exit(&g->v[i].h);
	}
	free(g->v);
	memset(g, 0, sizeof(*g));
}

static void lgrp_reset(struct lgrp *g)
{
	for (size_t i = 0; i < g->cap; i++)
		if (g->v[i].key)
			pp_hist__reset(&g->v[i].h);
}

/**
 * pp_ldlat__classify() - the latency of a memory sample, and whether it
 * counts as a load of the report.
 * @sample_type: the event's; @weight, @data_src: the sample's.
 * @lat: receives the latency in cycles.
 * Return: PP_LDLAT_LOAD, PP_LDLAT_NOT_LOAD (mem_op without LOAD: IBS
 * samples every op) or PP_LDLAT_NO_WEIGHT (the event records no weight).
 */
int pp_ldlat__classify(uint64_t sample_type, uint64_t weight, uint64_t data_src, uint64_t *lat)
{
	*lat = pp_memsrc__latency(weight, sample_type);
	if (!(sample_type & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)))
		return PP_LDLAT_NO_WEIGHT;
	if ((sample_type & PERF_SAMPLE_DATA_SRC) && !pp_memsrc__is_load(data_src))
		return PP_LDLAT_NOT_LOAD;
	return PP_LDLAT_LOAD;
}

/**
 * pp_ldlat__events() - the event ldlat-loads records, from the PMUs under @root.
 * @root: sysfs PMU directory; @o: options; @out: receives the request.
 * Return: 0, -ENODEV (no PMU, @out->err says so) or -EINVAL.
 */
int pp_ldlat__events(const char *root, const struct pp_opts *o, struct pp_event_reqs *out)
{
	static char spec[128];
	const char *v = pp_opts__mod(o, "ldlat");
	unsigned long ldlat = LDLAT_DEFAULT;
	const char *pmu = NULL;
	char *end;

	out->nr = 0;
	if (v) {
		ldlat = strtoul(v, &end, 0);
		if (end == v || *end || ldlat < 1 || ldlat > 65535) {
			snprintf(out->err, sizeof(out->err), "bad --ldlat '%s' (cycles, 1..65535)", v);
			return -EINVAL;
		}
	}
	/* Intel: the core PMU's mem-loads alias (hybrid: the P-cores'), else AMD IBS op. */
	if (pp_analyzer__pmu_has(root, "cpu", "events/mem-loads"))
		pmu = "cpu";
	else if (pp_analyzer__pmu_has(root, "cpu_core", "events/mem-loads"))
		pmu = "cpu_core";
	if (pmu && pp_analyzer__pmu_has(root, pmu, "events/mem-loads-aux")) {
		/* Sapphire Rapids, Alder Lake P-cores: the kernel opens mem-loads only in a group */
		snprintf(out->err, sizeof(out->err), "this CPU samples mem-loads only in a group led by "
			 "%s/mem-loads-aux/, which pp does not open", pmu);
		return -ENODEV;
	}
	if (pmu) {
		if (ldlat < 3) {
			snprintf(out->err, sizeof(out->err), "--ldlat %lu: PEBS counts loads of 3 "
				 "cycles or more", ldlat);
			return -EINVAL;
		}
		snprintf(spec, sizeof(spec), "%s/mem-loads,ldlat=%lu/pp", pmu, ldlat);
	} else if (pp_analyzer__pmu_has(root, "ibs_op", NULL)) {
		/* IBS's own threshold (where it has one) takes its own range: only when asked */
		if (v && pp_analyzer__pmu_has(root, "ibs_op", "format/ldlat"))
			snprintf(spec, sizeof(spec), "ibs_op/ldlat=%lu/", ldlat);
		else
			snprintf(spec, sizeof(spec), "ibs_op//");
	} else {
		snprintf(out->err, sizeof(out->err), "no PEBS mem-loads or AMD IBS op PMU on this host");
		return -ENODEV;
	}
	out->req[0].spec = spec;
	out->req[0].freq = o->freq ? o->freq : LDLAT_DEFAULT_HZ;
	out->req[0].callchain = o->callchain;
	out->req[0].exclude_user = o->exclude_user;
	out->req[0].exclude_kernel = o->exclude_kernel;
	out->nr = 1;
	return 0;
}

static int ldlat_events(const struct pp_opts *o, struct pp_event_reqs *out)
{
	return pp_ldlat__events(PP_PMU_SYSFS, o, out);
}

/* Memory samples, whatever the host that recorded them: weight or data source. */
static int ldlat_src_match(const struct pp_opts *o, const struct pp_evsel *ev)
{
	(void)o;
	return !!(ev->sample_type & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT |
				     PERF_SAMPLE_DATA_SRC));
}

static int ldlat_init(struct pp_session *s)
{
	const struct pp_opts *o = pp_session__opts(s);
	struct ldlat *l = calloc(1, sizeof(*l));
	const char *top = pp_opts__mod(o, "top");
	size_t nr;
	struct pp_evsel *evs = pp_session__evsels(s, &nr);
	int any = 0;
	char *end;

	if (!l)
		return -ENOMEM;
	pp_session__set_priv(s, l);
	pp_hist__init(&l->all);
	l->than = o->than_set ? o->than : 0;
	l->addr = pp_opts__mod(o, "addr") != NULL;
	l->top = LDLAT_TOP;
	if (top) {
		long n = strtol(top, &end, 10);

		if (end == top || *end || n < 0 || n > 1000000)
			return pp_analyzer__err("ldlat-loads", -EINVAL, "bad --top '%s'", top);
		l->top = (int)n;
	}
	for (size_t i = 0; i < nr; i++)
		any |= ldlat_src_match(o, &evs[i]);
	if (!any)
		return pp_analyzer__err("ldlat-loads", -ENOENT, "the trace has no memory-load samples; record "
			"with: pp-record ldlat-loads (on a host with Intel PEBS or AMD IBS)");
	if (o->flame_graph) {
		l->fg = pp_flame__new();
		if (!l->fg)
			return -ENOMEM;
	}
	return 0;
}

static void add(struct ldlat *l, int t, const char *key, uint64_t lat)
{
	struct pp_hist *h = lgrp_get(&l->t[t], key);

	if (h)
		pp_hist__add(h, lat);
}

static void flame_add(struct pp_session *s, struct ldlat *l, const struct pp_event *e,
		      const char *sym, const char *src, uint64_t lat)
{
	char buf[8192], leaf[96];
	const char *frames[1026];
	size_t nr = 0;
	char *p = buf, *semi;

	pp_session__fold_stack(s, e, buf, sizeof(buf) - 1);
	for (;;) {
		semi = strchr(p, ';');
		if (semi)
			*semi = '\0';
		if (nr < 1024)
			frames[nr++] = p;
		if (!semi)
			break;
		p = semi + 1;
	}
	if (!e->nr_callchain)
		frames[nr++] = sym;
	snprintf(leaf, sizeof(leaf), "[%s]", src);
	frames[nr++] = leaf;
	pp_flame__add(l->fg, frames, nr, lat);
}

static void ldlat_sample(struct pp_session *s, const struct pp_event *e)
{
	struct ldlat *l = pp_session__priv(s);
	uint64_t lat, d = e->data_src;
	char src[96], buf[96], sym[256];
	int kernel = e->ip >= 0xffff800000000000ull;

	if (!ldlat_src_match(NULL, e->evsel))
		return;
	switch (pp_ldlat__classify(e->evsel->sample_type, e->weight, d, &lat)) {
	case PP_LDLAT_NOT_LOAD:
		l->not_loads++;
		return;
	case PP_LDLAT_NO_WEIGHT:
		l->no_weight++;
		return;
	}
	if (lat < l->than) {
		l->under_than++;
		return;
	}
	pp_hist__add(&l->all, lat);
	add(l, T_SOURCE, pp_memsrc__level(d, src, sizeof(src)), lat);
	add(l, T_SNOOP, pp_memsrc__snoop(d, buf, sizeof(buf)), lat);
	add(l, T_TLB, pp_memsrc__tlb(d, buf, sizeof(buf)), lat);
	add(l, T_LOCK, pp_memsrc__lock(d), lat);
	pp_session__sym(s, e->pid, e->ip, kernel, sym, sizeof(sym) - 4, NULL);
	if (kernel)
		strcat(sym, "_[k]");
	add(l, T_SYMBOL, sym, lat);
	if (l->addr) {
		snprintf(buf, sizeof(buf), "%#llx", (unsigned long long)e->addr);
		add(l, T_ADDR, buf, lat);
	}
	if (l->fg)
		flame_add(s, l, e, sym, src, lat);
}

static int cmp_ent(const void *a, const void *b)
{
	const struct lgrp_ent *x = *(const struct lgrp_ent *const *)a;
	const struct lgrp_ent *y = *(const struct lgrp_ent *const *)b;

	if (x->h.calls != y->h.calls)
		return x->h.calls > y->h.calls ? -1 : 1;
	return strcmp(x->key, y->key);
}

/**
 * pp_ldlat__row() - one text row: LABEL loads share% min avg p50 p95 p99 max
 * (cycles). @o: output; @label: first column; @h: the latencies;
 * @share_of: the loads the share is of (0: share 0).
 */
void pp_ldlat__row(struct pp_out *o, const char *label, const struct pp_hist *h, uint64_t share_of)
{
	struct pp_hist_stats hs;

	pp_hist__stats(h, &hs);
	pp_out__printf(o, "%-32s %9llu %6.2f%% %7llu %7llu %7llu %7llu %7llu %7llu\n", label,
		       (unsigned long long)hs.calls, share_of ? 100.0 * (double)hs.calls / (double)share_of : 0.0,
		       (unsigned long long)hs.min, (unsigned long long)hs.avg,
		       (unsigned long long)hs.p50, (unsigned long long)hs.p95,
		       (unsigned long long)hs.p99, (unsigned long long)hs.max);
}

static void print_table(struct pp_session *s, struct ldlat *l, int t, uint64_t now)
{
	const struct pp_opts *o = pp_session__opts(s);
	struct pp_out *out = pp_session__out(s);
	struct lgrp *g = &l->t[t];
	struct lgrp_ent **list = malloc((g->nr ? g->nr : 1) * sizeof(*list));
	size_t n = 0, shown;

	if (!list)
		return;
	for (size_t i = 0; i < g->cap; i++)
		if (g->v[i].key && g->v[i].h.calls)
			list[n++] = &g->v[i];
	qsort(list, n, sizeof(*list), cmp_ent);
	shown = (t == T_SYMBOL || t == T_ADDR) && l->top && (size_t)l->top < n ? (size_t)l->top : n;
	if (!o->json && n) {
		pp_out__printf(out, "\n%-32s %9s %7s %7s %7s %7s %7s %7s %7s\n", t_title[t], "loads",
			       "share", "min", "avg", "p50", "p95", "p99", "max");
	}
	for (size_t i = 0; i < shown; i++) {
		if (o->json) {
			pp_json__begin(s, "ldlat", now);
			pp_json__str(s, "by", t_name[t]);
			pp_json__str(s, "key", list[i]->key);
			pp_latrow__json(s, NULL, &list[i]->h);
			pp_json__end(s);
		} else {
			pp_ldlat__row(out, list[i]->key, &list[i]->h, l->all.calls);
		}
	}
	if (!o->json && shown < n)
		pp_out__printf(out, "... %zu more (--top 0 shows all)\n", n - shown);
	free(list);
}

static void ldlat_print(struct pp_session *s, uint64_t now)
{
	struct ldlat *l = pp_session__priv(s);
	const struct pp_opts *o = pp_session__opts(s);
	struct pp_out *out = pp_session__out(s);
	char tb[32];

	pp_session__format_time(s, now, tb);
	if (o->json) {
		pp_json__begin(s, "ldlat_summary", now);
		pp_json__u64(s, "loads", l->all.calls);
		pp_json__u64(s, "not_loads", l->not_loads);
		pp_json__u64(s, "under_than", l->under_than);
		pp_latrow__json(s, "latency", &l->all);
		pp_json__end(s);
	} else {
		pp_out__printf(out, "%s ldlat-loads: %llu loads", tb, (unsigned long long)l->all.calls);
		if (l->than)
			pp_out__printf(out, " of %llu+ cycles (%llu under --than)",
				       (unsigned long long)l->than, (unsigned long long)l->under_than);
		if (l->not_loads)
			pp_out__printf(out, ", %llu samples of other ops skipped",
				       (unsigned long long)l->not_loads);
		if (l->no_weight)
			pp_out__printf(out, ", %llu samples without a latency skipped",
				       (unsigned long long)l->no_weight);
		pp_out__printf(out, "; latency in cycles\n");
		if (l->all.calls) {
			pp_out__printf(out, "%-32s %9s %7s %7s %7s %7s %7s %7s %7s\n", "ALL", "loads",
				       "share", "min", "avg", "p50", "p95", "p99", "max");
			pp_ldlat__row(out, "all loads", &l->all, l->all.calls);
		}
	}
	for (int t = 0; t < NR_T; t++)
		if (t != T_ADDR || l->addr)
			print_table(s, l, t, now);
	if (!o->json)
		pp_out__putc(out, '\n');
	pp_hist__reset(&l->all);
	for (int t = 0; t < NR_T; t++)
		lgrp_reset(&l->t[t]);
	l->not_loads = l->under_than = l->no_weight = 0;
}

static void ldlat_report(struct pp_session *s)
{
	struct ldlat *l = pp_session__priv(s);
	const struct pp_opts *o = pp_session__opts(s);

	if (!o->interval_ns)
		ldlat_print(s, pp_session__stats(s)->last_ts);
	if (l->fg) {
		struct pp_flame_opts fo = {
			.title = "ldlat-loads", .subtitle = "load latency (cycles) by stack and data source",
			.count_name = "cycles",
		};

		pp_flame__report(s, l->fg, o->flame_graph, &fo);
	}
}

static void ldlat_deinit(struct pp_session *s)
{
	struct ldlat *l = pp_session__priv(s);

	if (!l)
		return;
	for (int t = 0; t < NR_T; t++)
		lgrp_exit(&l->t[t]);
	pp_hist__exit(&l->all);
	pp_flame__free(l->fg);
	free(l);
}

const struct pp_analyzer pp_analyzer_ldlat_loads = {
	.name = "ldlat-loads",
	.desc = "memory loads above a latency threshold by data source, symbol, address "
		"(Intel PEBS or AMD IBS only)",
	.help = "pp-analyze ldlat-loads [--ldlat CYCLES] [--than CYCLES] [--addr] [--top N] [-g]\n"
		"                         [-F HZ] [-i MS] [--flame-graph FILE] [--json] [FILE]\n"
		"  loads sampled by Intel PEBS (cpu/mem-loads,ldlat=CYCLES/pp) or AMD IBS op\n"
		"  (ibs_op//, with ldlat= where the PMU has it; else every op is sampled and\n"
		"  --than keeps the slow loads), -F HZ (default 4000); each load has its IP,\n"
		"  data address, latency (the sample weight, cycles) and data source\n"
		"  tables: calls, share, min, avg, p50, p95, p99, max latency by data source\n"
		"  (L1, LFB/MAB, L2, L3, Local RAM, Remote ..., as perf mem), snoop, data\n"
		"  TLB, locked, symbol of the load IP and, with --addr, data address\n"
		"  --than CYCLES: only loads of at least CYCLES\n"
		"  --flame-graph FILE: FILE.folded and FILE.svg, comm;stack;[source] by cycles\n"
		"  record with: pp-record -a ldlat-loads -d 10s (needs Intel PEBS or AMD IBS)\n",
	.mod_opts = ldlat_mod_opts,
	.opts = PP_OPT_INTERVAL | PP_OPT_FREQ | PP_OPT_JSON | PP_OPT_EXCLUDE | PP_OPT_THAN |
		PP_OPT_CALLCHAIN | PP_OPT_FLAME,
	.events = ldlat_events,
	.match = ldlat_src_match,
	.init = ldlat_init,
	.sample = ldlat_sample,
	.interval = ldlat_print,
	.report = ldlat_report,
	.deinit = ldlat_deinit,
};
