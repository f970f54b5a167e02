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
#include "fgdiff.h"
#include "json.h"

/*
 * "COMM PID/TID [CPU] " of recent tasks: a task prints the same head on
 * every event until it moves CPU or renames itself, and formatting it was a
 * fifth of `trace`'s work. Direct-mapped by tid; a head longer than a slot
 * is formatted each time.
 */
#define HEAD_SLOTS	256

struct head_slot {
	uint32_t tid, pid, cpu;
	uint32_t gen;		/* pp_session__comm_gen() when made */
	uint8_t len;		/* 0: empty */
	char text[46];
};

struct trace {
	struct pp_flame *fg;
	char names[256][128];
	const char *frames[256];
	struct head_slot heads[HEAD_SLOTS];
	uint64_t sec;		/* the second of the last event's time... */
	char sec_text[24];	/* ...in decimal, and a dot */
	uint8_t sec_len;	/* 0: none yet */
	const char *name;	/* the last event name printed... */
	size_t name_len;	/* ...and its length */
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

/* "WALLCLOCK COMM PID/TID [CPU] SEC.USEC: NAME: " */
static void trace_head(struct pp_session *s, const struct pp_event *e, const char *name)
{
	struct pp_out *o = pp_session__out(s);
	struct trace *t = pp_session__priv(s);
	uint32_t gen = pp_session__comm_gen(s);
	struct head_slot *h;
	char tbuf[32], *d;
	size_t n = pp_session__format_time(s, e->time, tbuf);

	pp_out__write(o, tbuf, n);
	pp_out__putc(o, ' ');
	h = &t->heads[(e->tid * 2654435761u) >> 24];
	/* the same thread, and no comm changed since: its comm too */
	if (h->len && h->tid == e->tid && h->pid == e->pid && h->cpu == e->cpu && h->gen == gen) {
		pp_out__write(o, h->text, h->len);
	} else {
		const char *comm = pp_session__comm(s, e->tid);
		size_t start;

		pp_out__reserve(o, sizeof(h->text));	/* no flush inside a head that fits */
		start = o->len;
		put_padded(o, comm, 16);
		pp_out__putc(o, ' ');
		pp_out__u64_pad(o, e->pid, 7, ' ');
		pp_out__putc(o, '/');
		pp_out__u64(o, e->tid);
		pp_out__write(o, " [", 2);
		pp_out__u64_pad(o, e->cpu, 3, ' ');
		pp_out__write(o, "] ", 2);
		h->len = 0;
		if (o->len >= start && o->len - start <= sizeof(h->text) && !o->error) {
			h->tid = e->tid;
			h->pid = e->pid;
			h->cpu = e->cpu;
			h->gen = gen;
			h->len = (uint8_t)(o->len - start);
			memcpy(h->text, o->buf + start, h->len);
		}
	}
	/* "SEC.USEC: ": SEC and its dot kept while the second lasts */
	if (e->time / 1000000000ull != t->sec || !t->sec_len) {
		t->sec = e->time / 1000000000ull;
		t->sec_len = (uint8_t)(pp_dec_len(t->sec) + 1);
		pp_dec_put(t->sec_text + t->sec_len - 1, t->sec);
		t->sec_text[t->sec_len - 1] = '.';
	}
	if (name != t->name) {
		t->name = name;
		t->name_len = strlen(name);
	}
	d = pp_out__reserve(o, t->sec_len + 6 + 2 + t->name_len + 2);
	if (!d)
		return;
	memcpy(d, t->sec_text, t->sec_len);
	d += t->sec_len;
	pp_dec_put6(d, (uint32_t)(e->time % 1000000000ull / 1000));
	memcpy(d + 6, ": ", 2);
	memcpy(d + 8, name, t->name_len);
	memcpy(d + 8 + t->name_len, ": ", 2);
	o->len += t->sec_len + 6 + 2 + t->name_len + 2;
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
	if (e->evsel->tp)
		pp_session__prefetch_event(s, e);
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

	if (!t->fg)
		return;
	pp_flame__report(s, t->fg, o->flame_graph, NULL);
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
