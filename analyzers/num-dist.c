// SPDX-License-Identifier: MIT
/*
 * num-dist: distribution of a numeric field (num=FIELD) per event: calls,
 * total, min, avg, p50/p95/p99, max; --than N prints the events above N.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include "pp/replay.h"
#include "analyzers.h"
#include "hist.h"
#include "json.h"

struct nd_ev {
	struct tep_format_field *f;
	struct pp_hist h;
	int used;
};

struct num_dist {
	struct nd_ev *evs;
	size_t nr;
};

static int nd_init_setup(struct pp_session *s)
{
	size_t nr;
	struct pp_evsel *evs = pp_session__evsels(s, &nr);
	struct num_dist *d = calloc(1, sizeof(*d));
	int any = 0;

	if (!d)
		return -ENOMEM;
	pp_session__set_priv(s, d);
	d->evs = calloc(nr ? nr : 1, sizeof(*d->evs));
	if (!d->evs)
		return -ENOMEM;
	d->nr = nr;
	for (size_t i = 0; i < nr; i++) {
		const struct pp_evspec *sp = evs[i].spec;

		pp_hist__init(&d->evs[i].h);
		if (!sp)
			continue;
		if (!sp->num[0]) {
			fprintf(stderr, "pp-analyze: num-dist: %s needs num=FIELD, e.g. -e '%s//num=FIELD/'\n",
				evs[i].name, evs[i].name);
			return -EINVAL;
		}
		d->evs[i].f = pp_evsel__field(&evs[i], sp->num);
		if (!d->evs[i].f) {
			fprintf(stderr, "pp-analyze: num-dist: %s has no field '%s'\n", evs[i].name, sp->num);
			return -EINVAL;
		}
		d->evs[i].used = 1;

		any = 1;
	}
	if (!any) {
		fprintf(stderr, "pp-analyze: num-dist needs -e 'sys:name//num=FIELD/'\n");
		return -EINVAL;
	}
	return 0;
}

static void nd_sample(struct pp_session *s, const struct pp_event *e)
{
	struct num_dist *d = pp_session__priv(s);
	const struct pp_opts *o = pp_session__opts(s);
	struct nd_ev *ne;
	uint64_t v;

	if ((size_t)e->evsel->idx >= d->nr)
		return;
	ne = &d->evs[e->evsel->idx];
	if (!ne->used || pp_event__num(e, ne->f, &v))
		return;
	pp_hist__add(&ne->h, v);
	if (o->than_set && v > o->than && o->json) {
		pp_json__begin(s, "outlier", e->time);
		pp_json__task(s, e);
		pp_json__str(s, "event", e->evsel->name);
		pp_json__str(s, "field", e->evsel->spec->num);
		pp_json__u64(s, "value", v);
		pp_json__end(s);
	} else if (o->than_set && v > o->than) {
		struct pp_out *out = pp_session__out(s);
		char tbuf[32];

		pp_session__format_time(s, e->time, tbuf);
		pp_out__printf(out, "%s %16s %7u/%u [%03u] %s: %s=%llu\n", tbuf,
			       pp_session__comm(s, e->tid), e->pid, e->tid, e->cpu, e->evsel->name,
			       e->evsel->spec->num, (unsigned long long)v);
	}
}

static void nd_print(struct pp_session *s, uint64_t now)
{
	struct num_dist *d = pp_session__priv(s);
	struct pp_out *o = pp_session__out(s);
	int json = pp_session__opts(s)->json;
	size_t nr;
	struct pp_evsel *evs = pp_session__evsels(s, &nr);
	char tbuf[32];

	pp_session__format_time(s, now, tbuf);
	if (!json)
		pp_out__printf(o, "%s\n%-32s %10s %14s %10s %10s %10s %10s %10s %10s\n", tbuf, "event",
			       "calls", "total", "min", "avg", "p50", "p95", "p99", "max");
	for (size_t i = 0; i < d->nr && i < nr; i++) {
		struct pp_hist_stats st;

		if (!d->evs[i].used)
			continue;
		pp_hist__stats(&d->evs[i].h, &st);
		if (json) {
			pp_json__begin(s, "row", now);
			pp_out__puts(o, ",\"event\":");
			pp_out__json_str(o, evs[i].name);
			pp_out__puts(o, ",\"field\":");
			pp_out__json_str(o, evs[i].spec->num);
			pp_out__printf(o, ",\"calls\":%llu,\"total\":%llu,\"min\":%llu,\"avg\":%llu,"
				       "\"p50\":%llu,\"p95\":%llu,\"p99\":%llu,\"max\":%llu}\n",
				       (unsigned long long)st.calls, (unsigned long long)st.total,
				       (unsigned long long)st.min, (unsigned long long)st.avg,
				       (unsigned long long)st.p50, (unsigned long long)st.p95,
				       (unsigned long long)st.p99, (unsigned long long)st.max);
		} else {
			pp_out__printf(o, "%-32s %10llu %14llu %10llu %10llu %10llu %10llu %10llu %10llu\n",
				       evs[i].name, (unsigned long long)st.calls,
				       (unsigned long long)st.total, (unsigned long long)st.min,
				       (unsigned long long)st.avg, (unsigned long long)st.p50,
				       (unsigned long long)st.p95, (unsigned long long)st.p99,
				       (unsigned long long)st.max);
		}
		pp_hist__reset(&d->evs[i].h);
	}
}

static void nd_report(struct pp_session *s)
{
	if (!pp_session__opts(s)->interval_ns)
		nd_print(s, pp_session__stats(s)->last_ts);
}

static void nd_deinit(struct pp_session *s)
{
	struct num_dist *d = pp_session__priv(s);

	if (!d)
		return;
	for (size_t i = 0; d->evs && i < d->nr; i++)
		pp_hist__exit(&d->evs[i].h);
	free(d->evs);
	free(d);
}

/* A failed setup frees what it built: the core calls deinit only after a successful init. */
static int nd_init(struct pp_session *s)
{
	int ret = nd_init_setup(s);

	if (ret) {
		nd_deinit(s);
		pp_session__set_priv(s, NULL);
	}
	return ret;
}

const struct pp_analyzer pp_analyzer_num_dist = {
	.no_symbols = 1,
	.name = "num-dist",
	.desc = "distribution of a numeric field: calls, total, min, avg, p50/p95/p99, max",
	.help = "pp-analyze num-dist -e 'sys:name//num=FIELD/' [-i MS] [--than N] [--json] [FILE]\n"
		"  example: pp-analyze num-dist -e 'sched:sched_stat_runtime//num=runtime/' --than 1ms\n",
	.opts = PP_OPT_EVENTS | PP_OPT_INTERVAL | PP_OPT_THAN | PP_OPT_JSON,
	.init = nd_init,
	.sample = nd_sample,
	.interval = nd_print,
	.report = nd_report,
	.deinit = nd_deinit,
};
