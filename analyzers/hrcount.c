// SPDX-License-Identifier: MIT
/*
 * hrcount: high-resolution counts of the -e events, in buckets of 1 ms (or
 * --bucket TIME) to see bursts: per event, the count in every bucket of the
 * interval (-i, default the whole trace) with a bar, and the busiest bucket.
 * At most PP_HRC_MAX buckets per interval; a longer span widens the buckets.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pp/replay.h"
#include "analyzers.h"
#include "sched-common.h"
#include "json.h"

#define PP_HRC_MAX	4096

struct hrc_ev {
	uint64_t counts[PP_HRC_MAX];
	uint64_t total;
};

struct hrcount {
	struct pp_sched_opts so;
	struct hrc_ev *evs;
	size_t nr;
	uint64_t bucket;	/* current width */
	uint64_t start;		/* start of the interval, 0 = not yet */
	uint64_t last;
};

static int hrc_init(struct pp_session *s)
{
	struct hrcount *h = calloc(1, sizeof(*h));
	size_t nr;
	int ret;

	if (!h)
		return -ENOMEM;
	pp_session__set_priv(s, h);
	ret = pp_sched_opts__parse(&h->so, pp_session__opts(s), "hrcount");
	if (ret)
		return ret;
	if (!pp_session__opts(s)->nr_events) {
		fprintf(stderr, "pp-analyze: hrcount needs events: -e EVENT,...\n");
		return -EINVAL;
	}
	pp_session__evsels(s, &nr);
	h->evs = calloc(nr ? nr : 1, sizeof(*h->evs));
	if (!h->evs)
		return -ENOMEM;
	h->nr = nr;
	h->bucket = h->so.bucket_ns ? h->so.bucket_ns : 1000000;
	return 0;
}

/* Double the bucket width, merging bucket pairs. */
static void hrc_widen(struct hrcount *h)
{
	for (size_t i = 0; i < h->nr; i++) {
		uint64_t *c = h->evs[i].counts;

		for (size_t b = 0; b < PP_HRC_MAX / 2; b++)
			c[b] = c[2 * b] + c[2 * b + 1];
		memset(c + PP_HRC_MAX / 2, 0, PP_HRC_MAX / 2 * sizeof(*c));
	}
	h->bucket *= 2;
}

static void hrc_sample(struct pp_session *s, const struct pp_event *e)
{
	struct hrcount *h = pp_session__priv(s);
	uint64_t b;

	if ((size_t)e->evsel->idx >= h->nr || !e->evsel->spec)
		return;
	if (!h->start)
		h->start = e->time - e->time % h->bucket;
	if (e->time < h->start)
		return;
	while ((b = (e->time - h->start) / h->bucket) >= PP_HRC_MAX)
		hrc_widen(h);
	h->evs[e->evsel->idx].counts[b]++;
	h->evs[e->evsel->idx].total++;
	if (e->time > h->last)
		h->last = e->time;
}

static void hrc_print(struct pp_session *s, uint64_t now)
{
	struct hrcount *h = pp_session__priv(s);
	struct pp_out *out = pp_session__out(s);
	int json = pp_session__opts(s)->json;
	size_t nr;
	struct pp_evsel *evs = pp_session__evsels(s, &nr);
	uint64_t nb = h->start && h->last >= h->start ? (h->last - h->start) / h->bucket + 1 : 0;
	char tbuf[32], wb[16], mb[16];

	pp_session__format_time(s, now, tbuf);
	for (size_t i = 0; i < h->nr && i < nr; i++) {
		struct hrc_ev *ev = &h->evs[i];
		uint64_t max = 0, maxb = 0;

		if (!evs[i].spec)
			continue;
		for (uint64_t b = 0; b < nb; b++) {
			if (ev->counts[b] > max) {
				max = ev->counts[b];
				maxb = b;
			}
		}
		if (json) {
			pp_json__begin(s, "row", now);
			pp_json__u64(s, "start_ts", h->start);
			pp_out__puts(out, ",\"event\":");
			pp_out__json_str(out, evs[i].name);
			pp_out__printf(out, ",\"bucket_ns\":%llu,\"total\":%llu,\"max\":%llu,\"counts\":[",
				       (unsigned long long)h->bucket, (unsigned long long)ev->total,
				       (unsigned long long)max);
			for (uint64_t b = 0; b < nb; b++)
				pp_out__printf(out, "%s%llu", b ? "," : "", (unsigned long long)ev->counts[b]);
			pp_out__puts(out, "]}\n");
		} else {
			pp_out__printf(out, "%s %s: %llu events, buckets of %s, busiest %llu at +%s\n", tbuf,
				       evs[i].name, (unsigned long long)ev->total,
				       pp_sched_ns(wb, h->bucket), (unsigned long long)max,
				       pp_sched_ns(mb, maxb * h->bucket));
			for (uint64_t b = 0; b < nb; b++) {
				int bar = max ? (int)(ev->counts[b] * 40 / max) : 0;
				char ob[16];

				if (!ev->counts[b])
					continue;
				pp_out__printf(out, "  +%-10s %8llu |%.*s\n", pp_sched_ns(ob, b * h->bucket),
					       (unsigned long long)ev->counts[b], bar,
					       "########################################");
			}
		}
		memset(ev->counts, 0, sizeof(ev->counts));
		ev->total = 0;
	}
	h->start = 0;
	h->last = 0;
	h->bucket = h->so.bucket_ns ? h->so.bucket_ns : 1000000;
}

static void hrc_report(struct pp_session *s)
{
	if (!pp_session__opts(s)->interval_ns)
		hrc_print(s, pp_session__stats(s)->last_ts);
}

static void hrc_deinit(struct pp_session *s)
{
	struct hrcount *h = pp_session__priv(s);

	if (!h)
		return;
	pp_sched_opts__exit(&h->so);
	free(h->evs);
	free(h);
}

static const struct pp_mod_opt hrc_mod_opts[] = {
	{ "bucket", 0, 1, "TIME  bucket width (default 1ms; 100us, 10us, ...)" },
	{ "period", 0, 1, "TIME  the same, by perf-prof's name" },
	{ NULL, 0, 0, NULL },
};

const struct pp_analyzer pp_analyzer_hrcount = {
	.no_symbols = 1,
	.name = "hrcount",
	.desc = "high-resolution counts (1 ms buckets or finer) of events, to see bursts",
	.help = "pp-analyze hrcount -e EVENT,... [-i MS] [--json] [FILE]\n"
		"  example: pp-analyze hrcount -e irq:softirq_entry --bucket 100us -i 1000\n",
	.mod_opts = hrc_mod_opts,
	.opts = PP_OPT_EVENTS | PP_OPT_INTERVAL | PP_OPT_JSON,
	.init = hrc_init,
	.sample = hrc_sample,
	.interval = hrc_print,
	.report = hrc_report,
	.deinit = hrc_deinit,
};
