// SPDX-License-Identifier: MIT
/*
 * JSON Lines helpers of the profilers (json.h): the members every object
 * starts with, tasks, stacks and events, all escaped by pp_out__json_str().
 */
#include <stdio.h>
#include <string.h>
#include "pp/replay.h"
#include "json.h"

#define JSON_MAX_FRAMES	1024

/**
 * pp_json__begin() - {"type":@type,"time":"WALLCLOCK","ts":@ts
 * @s: session; @type: the object's shape; @ts: perf-clock ns.
 */
void pp_json__begin(struct pp_session *s, const char *type, uint64_t ts)
{
	struct pp_out *o = pp_session__out(s);
	char tbuf[32];

	pp_session__format_time(s, ts, tbuf);
	pp_out__puts(o, "{\"type\":");
	pp_out__json_str(o, type);
	pp_out__puts(o, ",\"time\":");
	pp_out__json_str(o, tbuf);
	pp_out__puts(o, ",\"ts\":");
	pp_out__u64(o, ts);
}

/**
 * pp_json__end() - "}" and the end of the line.
 * @s: session.
 */
void pp_json__end(struct pp_session *s)
{
	pp_out__puts(pp_session__out(s), "}\n");
}

static void key(struct pp_out *o, const char *k)
{
	pp_out__putc(o, ',');
	pp_out__json_str(o, k);
	pp_out__putc(o, ':');
}

/**
 * pp_json__str() - a string member.
 * @s: session; @k: name; @v: value, NULL for null.
 */
void pp_json__str(struct pp_session *s, const char *k, const char *v)
{
	struct pp_out *o = pp_session__out(s);

	key(o, k);
	pp_out__json_str(o, v);
}

/**
 * pp_json__u64() - an unsigned number member.
 * @s: session; @k: name; @v: value.
 */
void pp_json__u64(struct pp_session *s, const char *k, uint64_t v)
{
	struct pp_out *o = pp_session__out(s);

	key(o, k);
	pp_out__u64(o, v);
}

/**
 * pp_json__i64() - a signed number member.
 * @s: session; @k: name; @v: value.
 */
void pp_json__i64(struct pp_session *s, const char *k, int64_t v)
{
	struct pp_out *o = pp_session__out(s);

	key(o, k);
	pp_out__i64(o, v);
}

/**
 * pp_json__hex() - an address member, as a "0x..." string.
 * @s: session; @k: name; @v: value.
 */
void pp_json__hex(struct pp_session *s, const char *k, uint64_t v)
{
	struct pp_out *o = pp_session__out(s);

	key(o, k);
	pp_out__printf(o, "\"0x%llx\"", (unsigned long long)v);
}

/**
 * pp_json__task() - the task and CPU of an event.
 * @s: session; @e: event.
 */
void pp_json__task(struct pp_session *s, const struct pp_event *e)
{
	pp_json__str(s, "comm", pp_session__comm(s, e->tid));
	pp_json__u64(s, "pid", e->pid);
	pp_json__u64(s, "tid", e->tid);
	pp_json__u64(s, "cpu", e->cpu);
}

/**
 * pp_json__frame() - {"ip":"0x...","sym":"...","dso":"..."}.
 * @s: session; @pid: process; @ip: address; @kernel: kernel frame;
 * @first: no comma before it.
 */
void pp_json__frame(struct pp_session *s, uint32_t pid, uint64_t ip, int kernel, int first)
{
	struct pp_out *o = pp_session__out(s);
	const char *dso = NULL;
	char name[256];

	pp_session__sym(s, pid, ip, kernel, name, sizeof(name), &dso);
	if (!first)
		pp_out__putc(o, ',');
	pp_out__printf(o, "{\"ip\":\"0x%llx\",\"sym\":", (unsigned long long)ip);
	pp_out__json_str(o, name);
	pp_out__puts(o, ",\"dso\":");
	pp_out__json_str(o, dso ? dso : "[unknown]");
	pp_out__putc(o, '}');
}

/**
 * pp_json__stack() - ,"stack":[...] of @e, callee first.
 * @s: session; @e: event.
 */
void pp_json__stack(struct pp_session *s, const struct pp_event *e)
{
	static uint64_t ips[JSON_MAX_FRAMES];
	static uint8_t kern[JSON_MAX_FRAMES];
	const struct pp_evspec *spec = e->evsel ? e->evsel->spec : NULL;
	size_t n, shown = 0, max = spec && spec->max_stack ? (size_t)spec->max_stack : JSON_MAX_FRAMES;

	if (!e->nr_callchain)
		return;
	n = pp_session__stack_ips(s, e, ips, kern, JSON_MAX_FRAMES);
	key(pp_session__out(s), "stack");
	pp_out__putc(pp_session__out(s), '[');
	/* pp_session__stack_ips() gives the outermost caller first */
	while (n-- && shown < max)
		pp_json__frame(s, e->pid, ips[n], kern[n], !shown++);
	pp_out__putc(pp_session__out(s), ']');
}

/**
 * pp_json__event() - the event's name and payload.
 * @s: session; @e: event.
 */
void pp_json__event(struct pp_session *s, const struct pp_event *e)
{
	pp_json__str(s, "event", e->evsel->name);
	if (e->evsel->tp || e->evsel->btf) {
		pp_session__json_fields(s, e);
		return;
	}
	if (e->period) {
		pp_json__u64(s, "period", e->period);
		pp_json__hex(s, "ip", e->ip);
	}
	if (e->addr) {
		pp_json__hex(s, "addr", e->addr);
		if (!e->period)
			pp_json__hex(s, "ip", e->ip);
	}
}
