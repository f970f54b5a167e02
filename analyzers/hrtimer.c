// SPDX-License-Identifier: MIT
/*
 * hrtimer: high-resolution conditional sampling. A cpu-clock sampler with
 * call chains ticks every period (--period TIME or -F HZ, default 1 ms) on
 * each CPU; the -e events are counted per CPU (per thread with
 * --perthread). A tick whose CPU (thread) saw at least N events (--than N,
 * default 1) in the period before it prints the stack that was running:
 * what the CPU was doing while the events burst. The window is exact: the
 * times of the last N events are kept, so a burst is "N events in the
 * period ending at the tick", not "since the previous tick".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include "pp/replay.h"
#include "analyzers.h"
#include "hist.h"
#include "json.h"
#include "sched-common.h"
#include "hrtimer.h"

#define HT_DEFAULT_HZ	1000

int pp_burst__init(struct pp_burst *b, uint32_t n)
{
	memset(b, 0, sizeof(*b));
	if (!n || n > PP_BURST_MAX)
		return -EINVAL;
	b->ring = calloc(n, sizeof(*b->ring));
	if (!b->ring)
		return -ENOMEM;
	b->n = n;
	return 0;
}

void pp_burst__add(struct pp_burst *b, uint64_t t)
{
	b->ring[b->head] = t;
	b->head = b->head + 1 == b->n ? 0 : b->head + 1;
	if (b->fill < b->n)
		b->fill++;
}

uint32_t pp_burst__count(const struct pp_burst *b, uint64_t now, uint64_t period)
{
	uint32_t c = 0;

	/* newest first: head - 1, head - 2, ... */
	for (uint32_t i = 0; i < b->fill; i++) {
		uint32_t k = (b->head + b->n - 1 - i) % b->n;
		uint64_t t = b->ring[k];

		if (t > now)
			continue;
		if (now - t >= period)
			break;
		c++;
	}
	return c;
}

int pp_burst__hit(const struct pp_burst *b, uint64_t now, uint64_t period)
{
	return b->fill == b->n && pp_burst__count(b, now, period) == b->n;
}

void pp_burst__exit(struct pp_burst *b)
{
	free(b->ring);
	memset(b, 0, sizeof(*b));
}

struct ht_key {
	struct pp_burst burst;
	int ok;
};

struct hrtimer {
	struct pp_sched_opts so;
	struct pp_kmap keys;		/* cpu or tid -> struct ht_key */
	uint32_t n;
	uint64_t period;
	uint64_t ticks, hits, events;
};

static uint64_t ht_period_opt(const struct pp_opts *o, int *bad)
{
	const char *v = pp_opts__mod(o, "period");
	uint64_t ns = 0;

	*bad = 0;
	if (v && (pp_time_parse(v, &ns) || ns < 10000 || ns > 1000000000ull))
		*bad = 1;
	return ns;
}

static int ht_events(const struct pp_opts *o, struct pp_event_reqs *out)
{
	int bad;
	uint64_t period = ht_period_opt(o, &bad);

	if (bad) {
		snprintf(out->err, sizeof(out->err), "hrtimer: bad --period '%s' (10us to 1s)",
			 pp_opts__mod(o, "period"));
		return -EINVAL;
	}
	if (!o->nr_events) {
		snprintf(out->err, sizeof(out->err), "hrtimer: needs the events to count: -e EVENT,...");
		return -EINVAL;
	}
	if (o->nr_events >= PP_MAX_EVENT_REQS) {
		snprintf(out->err, sizeof(out->err), "hrtimer: too many events");
		return -EINVAL;
	}
	out->nr = 0;
	for (int i = 0; i < o->nr_events; i++)
		out->req[out->nr++].spec = o->events[i];
	out->req[out->nr].spec = "cpu-clock";
	out->req[out->nr].callchain = 1;
	out->req[out->nr].exclude_user = o->exclude_user;
	out->req[out->nr].exclude_kernel = o->exclude_kernel;
	out->req[out->nr].freq = period ? (uint32_t)(1000000000ull / period) :
				 o->freq ? o->freq : HT_DEFAULT_HZ;
	out->nr++;
	return 0;
}

static int ht_is_tick(const struct pp_evsel *ev)
{
	return ev->type == PERF_TYPE_SOFTWARE && ev->config == PERF_COUNT_SW_CPU_CLOCK;
}

static int ht_init(struct pp_session *s)
{
	struct hrtimer *h = calloc(1, sizeof(*h));
	const struct pp_opts *o = pp_session__opts(s);
	size_t nr;
	struct pp_evsel *evs = pp_session__evsels(s, &nr);
	const struct pp_evsel *tick = NULL;
	int ret, bad, counted = 0;

	if (!h)
		return -ENOMEM;
	pp_session__set_priv(s, h);
	pp_kmap__init(&h->keys, sizeof(struct ht_key));
	ret = pp_sched_opts__parse(&h->so, o, "hrtimer");
	if (ret)
		return ret;
	if (!o->nr_events)
		return pp_analyzer__err("hrtimer", -EINVAL, "needs the events to count: -e EVENT,...");
	if (o->than_set && (!o->than || o->than > PP_BURST_MAX))
		return pp_analyzer__err("hrtimer", -EINVAL, "bad --than %llu (events in a period, 1 to %u)",
			(unsigned long long)o->than, PP_BURST_MAX);
	h->n = o->than_set ? (uint32_t)o->than : 1;
	h->period = ht_period_opt(o, &bad);
	if (bad)
		return pp_analyzer__err("hrtimer", -EINVAL, "bad --period '%s' (10us to 1s)",
			pp_opts__mod(o, "period"));
	for (size_t i = 0; i < nr; i++) {
		if (ht_is_tick(&evs[i]))
			tick = &evs[i];
		else if (evs[i].spec)
			counted++;
	}
	if (!tick)
		return pp_analyzer__err("hrtimer", -ENOENT, "the trace has no cpu-clock samples; record "
			"with: pp-record hrtimer -e EVENT ...");
	if (!counted)
		return pp_analyzer__err("hrtimer", -ENOENT, "the trace has none of the -e events");
	if (!h->period)
		h->period = o->freq ? 1000000000ull / o->freq :
			    tick->sample_freq ? 1000000000ull / tick->sample_freq :
			    tick->sample_period ? tick->sample_period : 1000000000ull / HT_DEFAULT_HZ;
	return 0;
}

static struct ht_key *ht_key(struct hrtimer *h, uint64_t k)
{
	int created;
	struct ht_key *hk = pp_kmap__get(&h->keys, k, &created);

	if (hk && created)
		hk->ok = !pp_burst__init(&hk->burst, h->n);
	return hk && hk->ok ? hk : NULL;
}

static void ht_sample(struct pp_session *s, const struct pp_event *e)
{
	struct hrtimer *h = pp_session__priv(s);
	const struct pp_opts *o = pp_session__opts(s);
	uint64_t k = h->so.perthread ? e->tid : e->cpu;
	struct ht_key *hk;
	uint32_t c;

	if (!ht_is_tick(e->evsel)) {
		if (!e->evsel->spec || !(hk = ht_key(h, k)))
			return;
		pp_burst__add(&hk->burst, e->time);
		h->events++;
		return;
	}
	h->ticks++;
	hk = pp_kmap__find(&h->keys, k);
	if (!hk || !hk->ok || !pp_burst__hit(&hk->burst, e->time, h->period))
		return;
	h->hits++;
	c = pp_burst__count(&hk->burst, e->time, h->period);
	if (o->json) {
		pp_json__begin(s, "sample", e->time);
		pp_json__task(s, e);
		pp_json__u64(s, "count", c);
		pp_json__u64(s, "period", h->period);
		pp_json__stack(s, e);
		pp_json__end(s);
	} else {
		char tb[32], pb[16];

		pp_session__format_time(s, e->time, tb);
		pp_out__printf(pp_session__out(s), "%s %16s %7u/%-7u [%03u] %s%u events in %s\n", tb,
			       pp_session__comm(s, e->tid), e->pid, e->tid, e->cpu,
			       c == h->n ? ">=" : "", c, pp_sched_ns(pb, h->period));
		pp_session__print_stack(s, e, "    ");
	}
}

static void ht_report(struct pp_session *s)
{
	struct hrtimer *h = pp_session__priv(s);
	const struct pp_opts *o = pp_session__opts(s);
	char pb[16];

	if (o->json) {
		pp_json__begin(s, "summary", pp_session__stats(s)->last_ts);
		pp_json__u64(s, "ticks", h->ticks);
		pp_json__u64(s, "hits", h->hits);
		pp_json__u64(s, "events", h->events);
		pp_json__u64(s, "than", h->n);
		pp_json__u64(s, "period", h->period);
		pp_json__end(s);
		return;
	}
	pp_out__printf(pp_session__out(s), "# %llu of %llu ticks had at least %u events in the %s "
		       "before them on their %s (%llu events)\n", (unsigned long long)h->hits,
		       (unsigned long long)h->ticks, h->n, pp_sched_ns(pb, h->period),
		       h->so.perthread ? "thread" : "CPU", (unsigned long long)h->events);
}

static void ht_deinit(struct pp_session *s)
{
	struct hrtimer *h = pp_session__priv(s);

	if (!h)
		return;
	for (size_t i = 0; i < h->keys.cap; i++) {
		struct ht_key *hk = pp_kmap__nth(&h->keys, i, NULL);

		if (hk)
			pp_burst__exit(&hk->burst);
	}
	pp_kmap__exit(&h->keys);
	pp_sched_opts__exit(&h->so);
	free(h);
}

static const struct pp_mod_opt ht_mod_opts[] = {
	{ "period", 0, 1, "TIME  sampling period and burst window (10us to 1s; default 1ms, or 1/-F)" },
	{ "perthread", 0, 0, "count and sample per thread instead of per CPU" },
	{ NULL, 0, 0, NULL },
};

const struct pp_analyzer pp_analyzer_hrtimer = {
	.name = "hrtimer",
	.desc = "conditional sampling: the stack running when events burst (N in a period)",
	.help = "pp-analyze hrtimer -e EVENT[,EVENT] [--period TIME | -F HZ] [--than N] [--perthread] [--json] [FILE]\n"
		"  a cpu-clock tick every period samples the stack; it is printed when its CPU\n"
		"  (thread with --perthread) saw at least N of the events (default 1) in the period\n"
		"  record with: pp-record hrtimer -e EVENT --period 1ms [-a | -- COMMAND]\n"
		"  example: pp-analyze hrtimer -e syscalls:sys_enter_getppid --period 1ms --than 20 FILE\n",
	.mod_opts = ht_mod_opts,
	.opts = PP_OPT_EVENTS | PP_OPT_FREQ | PP_OPT_THAN | PP_OPT_JSON | PP_OPT_EXCLUDE,
	.events = ht_events,
	.init = ht_init,
	.sample = ht_sample,
	.report = ht_report,
	.deinit = ht_deinit,
};
