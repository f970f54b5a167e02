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
	struct pp_shist h;	/* an unsigned field uses h.pos only */
	int is_signed;		/* the field is declared signed (ret, a delta): its sign counts */
	int used;
};

struct num_dist {
	struct nd_ev *evs;
	size_t nr;
};

static int nd_init(struct pp_session *s)
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

		pp_shist__init(&d->evs[i].h);
		if (!sp)
			continue;
		if (!sp->num[0])
			return pp_analyzer__err("num-dist", -EINVAL, "%s needs num=FIELD, e.g. -e '%s//num=FIELD/'",
				evs[i].name, evs[i].name);
		d->evs[i].f = pp_evsel__field(&evs[i], sp->num);
		if (!d->evs[i].f) {
			char fl[512];

			return pp_analyzer__err("num-dist", -EINVAL, "%s has no field '%s' (%s)", evs[i].name,
				sp->num, pp_evsel__fields(&evs[i], fl, sizeof(fl)));
		}
		d->evs[i].is_signed = pp_evsel__field_signed(d->evs[i].f);
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
	if (ne->is_signed)
		pp_shist__add(&ne->h, (int64_t)v);
	else
		pp_hist__add(&ne->h.pos, v);
	/* --than is never negative: a signed value above it is a positive one */
	if (!o->than_set || v <= o->than || (ne->is_signed && (int64_t)v < 0))
		return;
	if (o->json) {
		pp_json__begin(s, "outlier", e->time);
		pp_json__task(s, e);
		pp_json__str(s, "event", e->evsel->name);
		pp_json__str(s, "field", e->evsel->spec->num);
		pp_json__u64(s, "value", v);
		pp_json__end(s);
	} else {
		struct pp_out *out = pp_session__out(s);
		char tbuf[32];

		pp_session__format_time(s, e->time, tbuf);
		pp_out__printf(out, "%s %16s %7u/%u [%03u] %s: %s=%llu\n", tbuf,
			       pp_session__comm(s, e->tid), e->pid, e->tid, e->cpu, e->evsel->name,
			       e->evsel->spec->num, (unsigned long long)v);
	}
}

/* Stats of @ne as printed: signed or not, as its field. */
static void nd_stats(const struct nd_ev *ne, struct pp_shist_stats *st, char (*b)[24])
{
	int64_t *sv[] = { &st->total, &st->min, &st->avg, &st->p50, &st->p95, &st->p99, &st->max };

	if (ne->is_signed) {
		pp_shist__stats(&ne->h, st);
		for (size_t k = 0; k < 7; k++)
			snprintf(b[k], 24, "%lld", (long long)*sv[k]);
	} else {
		struct pp_hist_stats u;

		pp_hist__stats(&ne->h.pos, &u);
		st->calls = u.calls;
		const uint64_t uv[7] = { u.total, u.min, u.avg, u.p50, u.p95, u.p99, u.max };

		for (size_t k = 0; k < 7; k++)
			snprintf(b[k], 24, "%llu", (unsigned long long)uv[k]);
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
		struct pp_shist_stats st;
		char b[7][24];

		if (!d->evs[i].used)
			continue;
		nd_stats(&d->evs[i], &st, b);
		if (json) {
			pp_json__begin(s, "row", now);
			pp_out__puts(o, ",\"event\":");
			pp_out__json_str(o, evs[i].name);
			pp_out__puts(o, ",\"field\":");
			pp_out__json_str(o, evs[i].spec->num);
			pp_out__printf(o, ",\"calls\":%llu,\"total\":%s,\"min\":%s,\"avg\":%s,"
				       "\"p50\":%s,\"p95\":%s,\"p99\":%s,\"max\":%s}\n",
				       (unsigned long long)st.calls, b[0], b[1], b[2], b[3], b[4], b[5],
				       b[6]);
		} else {
			pp_out__printf(o, "%-32s %10llu %14s %10s %10s %10s %10s %10s %10s\n",
				       evs[i].name, (unsigned long long)st.calls, b[0], b[1], b[2], b[3],
				       b[4], b[5], b[6]);
		}
		pp_shist__reset(&d->evs[i].h);
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
		pp_shist__exit(&d->evs[i].h);
	free(d->evs);
	free(d);
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
