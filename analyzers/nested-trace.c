// SPDX-License-Identifier: MIT
/*
 * nested-trace: nested entry/exit pairs (function call trees) per thread,
 * with total and self time per function. Entry events: uprobe:F@BIN,
 * kprobe:F, or a tracepoint whose name has "entry"/"enter"; exit events:
 * uretprobe:F@BIN, kretprobe:F, or "exit"/"return" tracepoints. The function
 * of a pair is the name with those words stripped, so uprobe:f@/bin/x and
 * uretprobe:f@/bin/x pair, as do irq:softirq_entry and irq:softirq_exit.
 * An exit pops its function's frame (and any deeper frame left open); a lost
 * window empties every thread's stack.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pp/replay.h"
#include "analyzers.h"
#include "hist.h"
#include "sched-common.h"
#include "json.h"

#define NT_DEPTH	64

struct nt_func {
	char name[128];
	struct pp_hist total, self;
};

struct nt_frame {
	int func;
	uint64_t since, child;
};

struct nt_thread {
	int depth;
	struct nt_frame f[NT_DEPTH];
};

struct nt_role {
	int dir;		/* 0 none, 1 entry, 2 exit */
	int func;
};

struct nested_trace {
	struct nt_role *roles;
	size_t nr_evsels;
	struct nt_func *funcs;
	int nr_funcs;
	struct pp_kmap threads;
	uint64_t lost, unmatched;
};

/* "uprobe:f@/bin/x" -> "f@/bin/x", "irq:softirq_entry" -> "irq:softirq"; Return: direction. */
static int nt_classify(const char *name, char *func, size_t len)
{
	static const struct { const char *prefix; int dir; } pfx[] = {
		{ "uprobe:", 1 }, { "kprobe:", 1 }, { "uretprobe:", 2 }, { "kretprobe:", 2 },
	};
	static const struct { const char *word; int dir; } words[] = {
		{ "_entry", 1 }, { "_enter", 1 }, { "_exit", 2 }, { "_return", 2 },
	};

	for (size_t i = 0; i < sizeof(pfx) / sizeof(pfx[0]); i++) {
		size_t n = strlen(pfx[i].prefix);

		if (!strncmp(name, pfx[i].prefix, n)) {
			snprintf(func, len, "%s", name + n);
			return pfx[i].dir;
		}
	}
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		const char *w = strstr(name, words[i].word);

		if (w) {
			snprintf(func, len, "%.*s%s", (int)(w - name), name, w + strlen(words[i].word));
			return words[i].dir;
		}
	}
	return 0;
}

static int nt_init(struct pp_session *s)
{
	struct nested_trace *nt = calloc(1, sizeof(*nt));
	size_t nr;
	struct pp_evsel *evs = pp_session__evsels(s, &nr);
	int entries = 0;

	if (!nt)
		return -ENOMEM;
	pp_session__set_priv(s, nt);
	pp_kmap__init(&nt->threads, sizeof(struct nt_thread));
	nt->roles = calloc(nr ? nr : 1, sizeof(*nt->roles));
	nt->funcs = calloc(nr ? nr : 1, sizeof(*nt->funcs));
	if (!nt->roles || !nt->funcs)
		return -ENOMEM;
	nt->nr_evsels = nr;
	for (size_t i = 0; i < nr; i++) {
		char func[128];
		int dir, f;

		if (pp_session__opts(s)->nr_events && !evs[i].spec)
			continue;
		dir = nt_classify(evs[i].name, func, sizeof(func));
		if (!dir)
			continue;
		for (f = 0; f < nt->nr_funcs && strcmp(nt->funcs[f].name, func); f++)
			;
		if (f == nt->nr_funcs) {
			memcpy(nt->funcs[f].name, func, sizeof(func));
			pp_hist__init(&nt->funcs[f].total);
			pp_hist__init(&nt->funcs[f].self);
			nt->nr_funcs++;
		}
		nt->roles[i].dir = dir;
		nt->roles[i].func = f;
		entries += dir == 1;
	}
	if (!entries) {
		fprintf(stderr, "pp-analyze: nested-trace needs entry/exit events, e.g. "
			"-e uprobe:f@/bin/x,uretprobe:f@/bin/x (recorded by pp-record -e ...)\n");
		return -ENOENT;
	}
	return 0;
}

static void nt_sample(struct pp_session *s, const struct pp_event *e)
{
	struct nested_trace *nt = pp_session__priv(s);
	const struct nt_role *r;
	struct nt_thread *t;

	if ((size_t)e->evsel->idx >= nt->nr_evsels)
		return;
	r = &nt->roles[e->evsel->idx];
	if (!r->dir || !(t = pp_kmap__get(&nt->threads, e->tid, NULL)))
		return;
	if (r->dir == 1) {
		if (t->depth >= NT_DEPTH)
			return;
		t->f[t->depth].func = r->func;
		t->f[t->depth].since = e->time;
		t->f[t->depth].child = 0;
		t->depth++;
		return;
	}
	for (int d = t->depth - 1; d >= 0; d--) {
		struct nt_frame *fr = &t->f[d];
		uint64_t total;

		if (fr->func != r->func)
			continue;
		if (e->time < fr->since)
			break;
		total = e->time - fr->since;
		pp_hist__add(&nt->funcs[r->func].total, total);
		pp_hist__add(&nt->funcs[r->func].self, total > fr->child ? total - fr->child : 0);
		t->depth = d;
		if (d > 0)
			t->f[d - 1].child += total;
		return;
	}
	nt->unmatched++;
}

static void nt_lost(struct pp_session *s, const struct pp_lost *l)
{
	struct nested_trace *nt = pp_session__priv(s);

	for (size_t i = 0; i < nt->threads.cap; i++) {
		struct nt_thread *t = pp_kmap__nth(&nt->threads, i, NULL);

		if (t)
			t->depth = 0;
	}
	nt->lost++;
}

static void nt_print(struct pp_session *s, uint64_t now)
{
	struct nested_trace *nt = pp_session__priv(s);
	struct pp_out *out = pp_session__out(s);
	int json = pp_session__opts(s)->json;
	char tbuf[32];

	pp_session__format_time(s, now, tbuf);
	if (!json)
		pp_out__printf(out, "%s\n%-40s %8s %10s %10s %10s %10s %10s %10s\n", tbuf, "function",
			       "calls", "total", "self", "avg", "p99", "max", "self-max");
	for (int f = 0; f < nt->nr_funcs; f++) {
		struct nt_func *fn = &nt->funcs[f];
		struct pp_hist_stats t, sf;
		char b[6][16];

		if (!fn->total.calls)
			continue;
		pp_hist__stats(&fn->total, &t);
		pp_hist__stats(&fn->self, &sf);
		if (json) {
			pp_json__begin(s, "row", now);
			pp_out__puts(out, ",\"function\":");
			pp_out__json_str(out, fn->name);
			pp_out__printf(out, ",\"calls\":%llu,\"total\":%llu,\"self\":%llu,\"avg\":%llu,"
				       "\"p99\":%llu,\"max\":%llu,\"self_max\":%llu}\n",
				       (unsigned long long)t.calls, (unsigned long long)t.total,
				       (unsigned long long)sf.total, (unsigned long long)t.avg,
				       (unsigned long long)t.p99, (unsigned long long)t.max,
				       (unsigned long long)sf.max);
		} else {
			pp_out__printf(out, "%-40s %8llu %10s %10s %10s %10s %10s %10s\n", fn->name,
				       (unsigned long long)t.calls, pp_sched_ns(b[0], t.total),
				       pp_sched_ns(b[1], sf.total), pp_sched_ns(b[2], t.avg),
				       pp_sched_ns(b[3], t.p99), pp_sched_ns(b[4], t.max),
				       pp_sched_ns(b[5], sf.max));
		}
		pp_hist__reset(&fn->total);
		pp_hist__reset(&fn->self);
	}
}

static void nt_report(struct pp_session *s)
{
	struct nested_trace *nt = pp_session__priv(s);

	if (!pp_session__opts(s)->interval_ns)
		nt_print(s, pp_session__stats(s)->last_ts);
	if (nt->lost)
		pp_analyzer__warn("nested-trace", "%llu lost windows: call stacks restarted after each",
			(unsigned long long)nt->lost);
}

static void nt_deinit(struct pp_session *s)
{
	struct nested_trace *nt = pp_session__priv(s);

	if (!nt)
		return;
	for (int f = 0; nt->funcs && f < nt->nr_funcs; f++) {
		pp_hist__exit(&nt->funcs[f].total);
		pp_hist__exit(&nt->funcs[f].self);
	}
	pp_kmap__exit(&nt->threads);
	free(nt->funcs);
	free(nt->roles);
	free(nt);
}

const struct pp_analyzer pp_analyzer_nested_trace = {
	.name = "nested-trace",
	.desc = "nested entry/exit pairs (uprobe/uretprobe, kprobe/kretprobe): total and self time per function",
	.help = "pp-analyze nested-trace [-e EVENT,...] [-i MS] [--json] [FILE]\n"
		"  record: pp-record -e uprobe:outer@/bin/x,uretprobe:outer@/bin/x,uprobe:inner@/bin/x,uretprobe:inner@/bin/x -- /bin/x\n"
		"  without -e every entry/exit event of the trace is used\n",
	.opts = PP_OPT_EVENTS | PP_OPT_INTERVAL | PP_OPT_JSON,
	.init = nt_init,
	.sample = nt_sample,
	.lost = nt_lost,
	.interval = nt_print,
	.report = nt_report,
	.deinit = nt_deinit,
};
