// SPDX-License-Identifier: MIT
/*
 * breakpoint: hardware breakpoints (PERF_TYPE_BREAKPOINT) on data or code
 * addresses: who reads, writes or executes the address, with stacks. The
 * address is given as perf writes it, `mem:ADDR[/LEN][:rwx]`, either with
 * -e or as the argument (`pp-record breakpoint 0x601040/8:w -- CMD`). Each
 * hit prints a line and its stack; the report counts hits per thread and
 * instruction. Also an event source for trace and multi-trace
 * (-e 'breakpoint/0x601040:w/').
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include "pp/replay.h"
#include "analyzers.h"
#include "json.h"
#include "sched-common.h"

struct bp_site {
	uint32_t pid, tid;
	uint64_t ip;
	uint64_t hits;
	const struct pp_evsel *ev;
};

struct breakpoint {
	struct pp_kmap sites;		/* hash(tid, ip, evsel) -> struct bp_site */
	int summary;
	uint64_t total;
};

/* Storage for "mem:..." specs built from the argument: lives until exit. */
static char bp_specs[8][96];
static int bp_nr_specs;

static int bp_events(const struct pp_opts *o, struct pp_event_reqs *out)
{
	for (int i = 0; i < o->nr_events && out->nr < PP_MAX_EVENT_REQS; i++) {
		if (strncmp(o->events[i], "mem:", 4)) {
			snprintf(out->err, sizeof(out->err), "'%s' is not mem:ADDR[/LEN][:rwx]",
				 o->events[i]);
			return -EINVAL;
		}
		out->req[out->nr].spec = o->events[i];
		out->req[out->nr++].callchain = 1;
	}
	/* The argument: an address (pp-record breakpoint 0x601040/8:w -- CMD). */
	if (o->input && (!strncmp(o->input, "0x", 2) || !strncmp(o->input, "mem:", 4))) {
		char *sp;

		if (bp_nr_specs == 8) {
			snprintf(out->err, sizeof(out->err), "at most 8 addresses");
			return -E2BIG;
		}
		sp = bp_specs[bp_nr_specs++];
		snprintf(sp, sizeof(bp_specs[0]), "%s%s", strncmp(o->input, "mem:", 4) ? "mem:" : "",
			 o->input);
		out->req[out->nr].spec = sp;
		out->req[out->nr++].callchain = 1;
		out->input_used = 1;
	}
	if (!out->nr) {
		snprintf(out->err, sizeof(out->err),
			 "needs an address: ADDR[/LEN][:rwx] or -e mem:ADDR...");
		return -EINVAL;
	}
	return 0;
}

static int bp_init(struct pp_session *s)
{
	struct breakpoint *bp = calloc(1, sizeof(*bp));
	size_t nr;
	struct pp_evsel *evs = pp_session__evsels(s, &nr);
	int found = 0;

	if (!bp)
		return -ENOMEM;
	pp_session__set_priv(s, bp);
	pp_kmap__init(&bp->sites, sizeof(struct bp_site));
	bp->summary = pp_opts__mod(pp_session__opts(s), "summary") != NULL;
	for (size_t i = 0; i < nr; i++)
		found |= evs[i].type == PERF_TYPE_BREAKPOINT;
	if (!found)
		return pp_analyzer__err("breakpoint", -ENOENT, "the trace has no breakpoint event "
			"(record with: pp-record breakpoint ADDR[/LEN][:rwx] -- CMD)");
	return 0;
}

static void bp_describe(struct pp_session *s, const struct pp_event *e, char *buf, size_t len)
{
	char sym[96];
	int kernel = e->ip >= 0xffff800000000000ull;

	pp_session__sym(s, e->pid, e->ip, kernel, sym, sizeof(sym), NULL);
	snprintf(buf, len, "%.40s ip %llx %s", e->evsel->name, (unsigned long long)e->ip, sym);
}

static void bp_sample(struct pp_session *s, const struct pp_event *e)
{
	struct breakpoint *bp = pp_session__priv(s);
	struct bp_site *st;
	uint64_t key;
	int created;

	if (e->evsel->type != PERF_TYPE_BREAKPOINT)
		return;
	bp->total++;
	key = e->ip * 0x9e3779b97f4a7c15ull ^ ((uint64_t)e->tid << 20) ^ (uint64_t)e->evsel->idx;
	st = pp_kmap__get(&bp->sites, key, &created);
	if (st) {
		if (created) {
			st->pid = e->pid;
			st->tid = e->tid;
			st->ip = e->ip;
			st->ev = e->evsel;
		}
		st->hits++;
	}
	if (!bp->summary && pp_session__opts(s)->json) {
		char sym[128];

		pp_session__sym(s, e->pid, e->ip, e->ip >= 0xffff800000000000ull, sym, sizeof(sym), NULL);
		pp_json__begin(s, "hit", e->time);
		pp_json__task(s, e);
		pp_json__str(s, "breakpoint", e->evsel->name);
		pp_json__hex(s, "addr", e->addr);
		pp_json__hex(s, "ip", e->ip);
		pp_json__str(s, "sym", sym);
		pp_json__stack(s, e);
		pp_json__end(s);
	} else if (!bp->summary) {
		struct pp_out *o = pp_session__out(s);
		char tb[32], d[160];

		pp_session__format_time(s, e->time, tb);
		bp_describe(s, e, d, sizeof(d));
		pp_out__printf(o, "%s %16s %7u/%-7u [%03u] %s\n", tb, pp_session__comm(s, e->tid), e->pid,
			       e->tid, e->cpu, d);
		if (e->nr_callchain)
			pp_session__print_stack(s, e, "\t");
	}
}

static int cmp_site(const void *a, const void *b)
{
	const struct bp_site *x = *(const struct bp_site *const *)a;
	const struct bp_site *y = *(const struct bp_site *const *)b;

	if (x->hits != y->hits)
		return x->hits > y->hits ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->ip < y->ip ? -1 : x->ip > y->ip;
}

static void bp_report(struct pp_session *s)
{
	struct breakpoint *bp = pp_session__priv(s);
	struct pp_out *o = pp_session__out(s);
	int json = pp_session__opts(s)->json;
	struct bp_site **list = malloc((bp->sites.nr ? bp->sites.nr : 1) * sizeof(*list));
	size_t n = 0;

	if (!list)
		return;
	for (size_t i = 0; i < bp->sites.cap; i++) {
		struct bp_site *st = pp_kmap__nth(&bp->sites, i, NULL);

		if (st)
			list[n++] = st;
	}
	qsort(list, n, sizeof(*list), cmp_site);
	if (!json)
		pp_out__printf(o, "%s%-24s %16s %15s %10s  %s\n", bp->summary ? "" : "\n", "BREAKPOINT",
			       "COMM", "PID/TID", "HITS", "WHERE");
	for (size_t i = 0; i < n; i++) {
		const struct bp_site *st = list[i];
		const char *comm = pp_session__comm(s, st->tid);
		int kernel = st->ip >= 0xffff800000000000ull;
		char sym[128], pt[32];

		pp_session__sym(s, st->pid, st->ip, kernel, sym, sizeof(sym), NULL);
		if (json) {
			pp_json__begin(s, "site", pp_session__stats(s)->last_ts);
			pp_json__str(s, "breakpoint", st->ev->name);
			pp_json__str(s, "comm", comm);
			pp_json__u64(s, "pid", st->pid);
			pp_json__u64(s, "tid", st->tid);
			pp_json__hex(s, "ip", st->ip);
			pp_json__str(s, "sym", sym);
			pp_json__u64(s, "hits", st->hits);
			pp_json__end(s);
		} else {
			snprintf(pt, sizeof(pt), "%u/%u", st->pid, st->tid);
			pp_out__printf(o, "%-24s %16s %15s %10llu  %s (ip %llx)\n", st->ev->name, comm, pt,
				       (unsigned long long)st->hits, sym, (unsigned long long)st->ip);
		}
	}
	free(list);
}

static void bp_deinit(struct pp_session *s)
{
	struct breakpoint *bp = pp_session__priv(s);

	if (!bp)
		return;
	pp_kmap__exit(&bp->sites);
	free(bp);
}

/* As an event source: every hit of the breakpoints of the trace. */
static int bp_src_match(const struct pp_opts *o, const struct pp_evsel *ev)
{
	return ev->type == PERF_TYPE_BREAKPOINT;
}

static int bp_src_sample(struct pp_session *s, void *state, const struct pp_event *e,
			 struct pp_src_event *out)
{
	out->e = *e;
	out->addr = e->addr;
	bp_describe(s, e, out->text, sizeof(out->text));
	return 1;
}

static const struct pp_mod_opt bp_mod_opts[] = {
	{ "summary", 0, 0, "only the hit counts per thread and instruction, not each hit" },
	{ NULL, 0, 0, NULL },
};

static const struct pp_source_ops bp_source = {
	.sample = bp_src_sample,
};

const struct pp_analyzer pp_analyzer_breakpoint = {
	.name = "breakpoint",
	.desc = "hardware breakpoints: who reads/writes/executes an address, with stacks",
	.help = "pp-record breakpoint ADDR[/LEN][:rwx] -- CMD, then pp-analyze breakpoint [--summary] [--json] [FILE]\n"
		"  ADDR hex (e.g. from nm), LEN 1, 2, 4 or 8 bytes (default 4), access r, w, rw\n"
		"  (default) or x; the same as -e mem:ADDR[/LEN][:rwx], as in perf\n"
		"  each hit: WALLCLOCK COMM PID/TID [CPU] mem:ADDR/LEN:rw ip IP SYMBOL + stack;\n"
		"  then hits per thread and instruction\n"
		"  as an event source: pp-analyze trace -e 'breakpoint/0x601040:w/,sched:sched_switch'\n"
		"  (live mode does not open breakpoints: record them with pp-record)\n",
	.opts = PP_OPT_EVENTS | PP_OPT_JSON,
	.mod_opts = bp_mod_opts,
	.events = bp_events,
	.init = bp_init,
	.sample = bp_sample,
	.report = bp_report,
	.deinit = bp_deinit,
	.match = bp_src_match,
	.source = &bp_source,
};
