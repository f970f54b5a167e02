// SPDX-License-Identifier: MIT
/*
 * convert: a trace file into the text other tools read, streamed in time
 * order with memory bounded by threads and CPUs, not by events:
 *   --to=chrome       Trace Event JSON (Perfetto UI, chrome://tracing),
 *                     analyzers/convert-chrome.c
 *   --to=perf-script  what `perf script` prints (FlameGraph's
 *                     stackcollapse-perf.pl, speedscope), convert-perf.c
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include "analyzers.h"
#include "convert.h"

static const struct pp_convert_fmt *const formats[] = {
	&pp_convert_chrome,
	&pp_convert_perf_script,
};

struct convert {
	const struct pp_convert_fmt *fmt;
	void *state;
	struct pp_convert_stats st;
};

int pp_convert_is_dummy(const struct pp_evsel *ev)
{
	return ev->type == PERF_TYPE_SOFTWARE && ev->config == PERF_COUNT_SW_DUMMY && !ev->tp;
}

static int convert_init(struct pp_session *s)
{
	const char *to = pp_opts__mod(pp_session__opts(s), "to");
	struct convert *c;
	int err;

	if (pp_session__opts(s)->json && !pp_session__opts(s)->output)
		return pp_analyzer__err("convert", -EINVAL, "--json prints a summary on stdout: "
					"write the conversion with -o FILE");
	if (!to || !*to)
		return pp_analyzer__err("convert", -EINVAL, "say which format: --to=chrome or --to=perf-script");
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	pp_session__set_priv(s, c);
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		if (!strcmp(formats[i]->name, to))
			c->fmt = formats[i];
	}
	if (!c->fmt)
		return pp_analyzer__err("convert", -EINVAL, "unknown format '%s' (chrome, perf-script)", to);
	err = c->fmt->init(s, &c->state, &c->st);
	return err;
}

static void convert_sample(struct pp_session *s, const struct pp_event *e)
{
	struct convert *c = pp_session__priv(s);

	c->fmt->sample(s, c->state, e);
}

static void convert_lost(struct pp_session *s, const struct pp_lost *l)
{
	struct convert *c = pp_session__priv(s);

	if (c->fmt->lost)
		c->fmt->lost(s, c->state, l);
}

/* --json: what was written, one JSON Lines object on stdout (the conversion is in -o). */
static void convert_summary(struct pp_session *s, const struct convert *c)
{
	const struct pp_session_stats *ss = pp_session__stats(s);
	const struct pp_convert_stats *st = &c->st;
	struct pp_out o;
	char tb[32];

	pp_session__format_time(s, ss->last_ts, tb);
	pp_out__init(&o, 1);
	pp_out__puts(&o, "{\"type\":\"summary\",\"time\":");
	pp_out__json_str(&o, tb);
	pp_out__printf(&o, ",\"ts\":%llu,\"format\":", (unsigned long long)ss->last_ts);
	pp_out__json_str(&o, c->fmt->name);
	pp_out__puts(&o, ",\"output\":");
	pp_out__json_str(&o, pp_session__opts(s)->output);
	pp_out__printf(&o, ",\"events\":%llu,\"lost\":%llu", (unsigned long long)st->events,
		       (unsigned long long)st->lost);
	if (c->fmt == &pp_convert_chrome)
		pp_out__printf(&o, ",\"cpu_slices\":%llu,\"state_slices\":%llu,\"instants\":%llu,"
			       "\"counters\":%llu,\"metadata\":%llu",
			       (unsigned long long)st->cpu_slices, (unsigned long long)st->state_slices,
			       (unsigned long long)st->instants, (unsigned long long)st->counters,
			       (unsigned long long)st->metadata);
	else
		pp_out__printf(&o, ",\"frames\":%llu", (unsigned long long)st->frames);
	pp_out__puts(&o, "}\n");
	pp_out__flush(&o);
	pp_out__exit(&o);
}

static void convert_report(struct pp_session *s)
{
	struct convert *c = pp_session__priv(s);

	c->fmt->end(s, c->state);
	pp_out__flush(pp_session__out(s));
	if (pp_session__opts(s)->json)
		convert_summary(s, c);
}

static void convert_deinit(struct pp_session *s)
{
	struct convert *c = pp_session__priv(s);

	if (!c)
		return;
	if (c->fmt)
		c->fmt->free(c->state);
	free(c);
}

static const struct pp_mod_opt convert_mod_opts[] = {
	{ "to", 0, 1, "FORMAT  chrome (Trace Event JSON for Perfetto/chrome://tracing) or perf-script" },
	{ NULL, 0, 0, NULL },
};

const struct pp_analyzer pp_analyzer_convert = {
	.name = "convert",
	.desc = "convert a trace for other tools: Trace Event JSON (Perfetto), perf script text",
	.help = "pp-analyze convert --to=chrome|perf-script [-e EVENT,...] [-i MS] [-o OUT [--json]] [FILE]\n"
		"  --to=chrome: Trace Event JSON for ui.perfetto.dev and chrome://tracing: a track per\n"
		"    CPU with what ran there (from sched:sched_switch, slices named COMM/TID), per\n"
		"    thread its states (running, runnable, sleeping, uninterruptible) where the file\n"
		"    has sched_switch and the wakeups, an instant per other event with its fields\n"
		"    (and stack) as args, a counter per event of its count every -i MS (default\n"
		"    100), and process/thread names\n"
		"  --to=perf-script: the text `perf script` prints (comm tid [cpu] time: [period]\n"
		"    event: fields, then each stack frame as `addr sym+off (dso)`), for\n"
		"    stackcollapse-perf.pl, speedscope and other perf script readers\n"
		"  --json (with -o): a summary of what was written, as JSON Lines on stdout\n"
		"  example: pp-analyze convert --to=chrome -o run.json pp.trace\n"
		"           pp-analyze convert --to=perf-script pp.trace | stackcollapse-perf.pl\n",
	.opts = PP_OPT_EVENTS | PP_OPT_INTERVAL | PP_OPT_JSON,
	.mod_opts = convert_mod_opts,
	.init = convert_init,
	.sample = convert_sample,
	.lost = convert_lost,
	.report = convert_report,
	.deinit = convert_deinit,
};
