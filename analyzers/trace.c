// SPDX-License-Identifier: MIT
/*
 * trace: print every event in time order - wall-clock and kernel time, comm,
 * pid/tid, CPU, event name, decoded fields, and the stack when the event has
 * one; --flame-graph FILE collects the stacks of all events.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pp/replay.h"
#include "analyzers.h"
#include "flamegraph.h"
#include "json.h"

struct trace {
	struct pp_flame *fg;
	char names[256][128];
	const char *frames[256];
};

static int trace_init(struct pp_session *s)
{
	const struct pp_opts *o = pp_session__opts(s);
	struct trace *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	if (o->flame_graph) {
		t->fg = pp_flame__new();
		if (!t->fg) {
			free(t);
			return -ENOMEM;
		}
	}
	pp_session__set_priv(s, t);
	return 0;
}

/* Right-align @s in @w columns. */
static void put_padded(struct pp_out *o, const char *s, size_t w)
{
	size_t n = strlen(s);
	char *d = pp_out__reserve(o, n + w);

	if (!d)
		return;
	size_t pad = n < w ? w - n : 0;

	memset(d, ' ', pad);
	memcpy(d + pad, s, n);
	o->len += pad + n;
}

static void put_uint_w(struct pp_out *o, uint64_t v, int w)
{
	size_t n = 1, total;
	char *d;

	for (uint64_t t = v; t >= 10; t /= 10)
		n++;
	total = n < (size_t)w ? (size_t)w : n;
	d = pp_out__reserve(o, total);
	if (!d)
		return;
	o->len += total;
	for (size_t i = 0; i < total - n; i++)	/* a few bytes: no memset call */
		d[i] = ' ';
	d += total;
	do {
		*--d = (char)('0' + v % 10);
		v /= 10;
	} while (v);
}

/* "WALLCLOCK COMM PID/TID [CPU] SEC.USEC: NAME: " */
static void trace_head(struct pp_session *s, const struct pp_event *e, const char *name)
{
	struct pp_out *o = pp_session__out(s);
	char tbuf[32];
	size_t n = pp_session__format_time(s, e->time, tbuf);

	pp_out__write(o, tbuf, n);
	pp_out__putc(o, ' ');
	put_padded(o, pp_session__comm(s, e->tid), 16);
	pp_out__putc(o, ' ');
	put_uint_w(o, e->pid, 7);
	pp_out__putc(o, '/');
	pp_out__u64(o, e->tid);
	pp_out__write(o, " [", 2);
	put_uint_w(o, e->cpu, 3);
	pp_out__write(o, "] ", 2);
	pp_out__u64(o, e->time / 1000000000ull);
	pp_out__putc(o, '.');
	{
		uint64_t us = e->time % 1000000000ull / 1000;
		char d[6];

		for (int i = 5; i >= 0; i--) {
			d[i] = (char)('0' + us % 10);
			us /= 10;
		}
		pp_out__write(o, d, 6);
	}
	pp_out__write(o, ": ", 2);
	pp_out__puts(o, name);
	pp_out__write(o, ": ", 2);
}

/* The stack of @e: printed when @print, added to the flame graph. */
static void trace_stack(struct pp_session *s, struct trace *t, const struct pp_event *e, int print)
{
	if (print && e->nr_callchain)
		pp_session__print_stack(s, e, "\t");
	if (t->fg && e->nr_callchain) {
		size_t nr = pp_session__stack_frames(s, e, t->names, t->frames, 256);

		pp_flame__add(t->fg, t->frames, nr, 1);
	}
}

static void trace_sample(struct pp_session *s, const struct pp_event *e)
{
	struct trace *t = pp_session__priv(s);
	struct pp_out *o = pp_session__out(s);

	if (pp_session__opts(s)->json) {
		pp_json__begin(s, "event", e->time);
		pp_json__task(s, e);
		pp_json__event(s, e);
		pp_json__stack(s, e);
		pp_json__end(s);
		trace_stack(s, t, e, 0);
		return;
	}
	trace_head(s, e, e->evsel->name);
	if (e->evsel->tp || e->evsel->btf)
		pp_session__print_event(s, e);
	else if (e->period)
		pp_out__printf(o, "period %llu ip %llx", (unsigned long long)e->period,
			       (unsigned long long)e->ip);
	else if (e->addr)
		pp_out__printf(o, "addr %llx ip %llx", (unsigned long long)e->addr,
			       (unsigned long long)e->ip);
	pp_out__putc(o, '\n');
	trace_stack(s, t, e, 1);
}

/* An event of a profiler used as a source: "...: profile: cpu-clock ip ... SYM". */
static void trace_source(struct pp_session *s, const struct pp_src_event *se)
{
	struct trace *t = pp_session__priv(s);
	struct pp_out *o = pp_session__out(s);

	if (pp_session__opts(s)->json) {
		pp_json__begin(s, "source", se->e.time);
		pp_json__task(s, &se->e);
		pp_json__str(s, "source", se->source);
		pp_json__str(s, "event", se->e.evsel ? se->e.evsel->name : NULL);
		pp_json__u64(s, "start_ts", se->start);
		if (se->addr)
			pp_json__hex(s, "addr", se->addr);
		pp_json__str(s, "text", se->text);
		pp_json__stack(s, &se->e);
		pp_json__end(s);
		trace_stack(s, t, &se->e, 0);
		return;
	}
	trace_head(s, &se->e, se->source);
	pp_out__puts(o, se->text);
	pp_out__putc(o, '\n');
	trace_stack(s, t, &se->e, 1);
}

static void trace_lost(struct pp_session *s, const struct pp_lost *l)
{
	struct pp_out *o = pp_session__out(s);
	char tbuf[32];

	if (pp_session__opts(s)->json) {
		pp_json__begin(s, "lost", l->first_ts);
		pp_json__u64(s, "cpu", l->cpu);
		pp_json__u64(s, "count", l->count);
		pp_json__u64(s, "last_ts", l->last_ts);
		pp_json__str(s, "source", l->source == 2 ? "recorder" : "kernel");
		pp_json__end(s);
		return;
	}
	pp_session__format_time(s, l->first_ts, tbuf);
	pp_out__printf(o, "%s LOST %llu events on CPU %u%s\n", tbuf, (unsigned long long)l->count,
		       l->cpu, l->source == 2 ? " (recorder)" : "");
}

static void trace_report(struct pp_session *s)
{
	struct trace *t = pp_session__priv(s);
	const struct pp_opts *o = pp_session__opts(s);

	int ret;

	if (!t->fg)
		return;
	ret = pp_flame__write_files(t->fg, o->flame_graph, NULL);
	if (!ret)
		fprintf(stderr, "pp-analyze: wrote %s.folded and %s.svg\n", o->flame_graph,
			o->flame_graph);
	pp_session__fail(s, ret);
}

static void trace_deinit(struct pp_session *s)
{
	struct trace *t = pp_session__priv(s);

	if (t)
		pp_flame__free(t->fg);
	free(t);
}

const struct pp_analyzer pp_analyzer_trace = {
	.name = "trace",
	.desc = "print events with decoded fields and stacks, in time order",
	.help = "pp-analyze trace [-e EVENT,...] [-g] [--flame-graph FILE] [--json] [FILE]\n"
		"  every event of the file, or only those matching -e (wildcards allowed)\n"
		"  profilers as event sources, merged by time: -e 'profile/-F 500/', 'task-state/-S/',\n"
		"    'page-faults', 'breakpoint/ADDR[:rwx]/' (pp-record takes the same -e)\n"
		"  example: pp-analyze trace -e 'sched:sched_switch' pp.trace\n"
		"           pp-analyze trace -e 'profile/-F 500/,sched:sched_switch' pp.trace\n",
	.opts = PP_OPT_EVENTS | PP_OPT_CALLCHAIN | PP_OPT_FLAME | PP_OPT_JSON,
	.init = trace_init,
	.sample = trace_sample,
	.lost = trace_lost,
	.report = trace_report,
	.deinit = trace_deinit,
	.source_event = trace_source,
};
