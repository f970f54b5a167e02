// SPDX-License-Identifier: MIT
/*
 * multi-trace: latency between events joined by a key. Each -e option is a
 * group of alternatives: the entries of the last -e end an interval, every
 * other entry starts one (-e A -e B; -e A,C -e B,D: A or C starts, B or D
 * ends; a single -e A,B: A starts, B ends); key=FIELD on an entry names its join field:
 * the event's field of that name when it has one (sched_waking's pid, the
 * wakee), else key=pid, tid or cpu for the sample's own (default tid). Prints
 * calls, total, min, p50, p95, p99, max per start -> end pair (per key with
 * --perins); --than TIME prints each slower instance, with --detail the
 * events recorded in between; --heatmap NAME renders a time x latency SVG.
 * A lost window drops every open interval.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pp/replay.h"
#include "analyzers.h"
#include "heatmap.h"
#include "hist.h"
#include "sched-common.h"
#include "json.h"

enum mt_key { MT_KEY_TID, MT_KEY_PID, MT_KEY_CPU, MT_KEY_FIELD };

struct mt_role {
	int role;			/* 0 none, 1 start, 2 end */
	enum mt_key kind;
	struct tep_format_field *f;
};

struct mt_open {
	uint64_t since;			/* 0 = none */
	int start;			/* evsel idx of the start */
};

struct mt_stat {
	uint64_t key;
	int key_signed;			/* the key is a signed field's: print it signed */
	int start;
	struct pp_hist h;
};

#define MT_RING		1024
#define MT_RAW		512

struct mt_saved {
	struct pp_event e;
	uint8_t raw[MT_RAW];
};

#define MT_SRC_BASE	256		/* start ids of source entries: MT_SRC_BASE + entry */

struct multi_trace {
	struct mt_role src_roles[PP_MAX_EVENTS];	/* per -e entry naming a profiler */
	const char *src_names[PP_MAX_EVENTS];
	struct mt_role *roles;		/* per evsel */
	size_t nr_evsels;
	struct pp_sched_opts so;
	struct pp_kmap open;		/* key -> struct mt_open */
	struct pp_kmap stats;		/* (key or 0) << 16 | start -> struct mt_stat */
	struct pp_heatmap *hm;
	const char *end_name;
	struct mt_saved *ring;		/* --detail: the last MT_RING events */
	size_t ring_head;
	uint64_t lost;
};

static int mt_init(struct pp_session *s)
{
	struct multi_trace *mt = calloc(1, sizeof(*mt));
	const struct pp_opts *o = pp_session__opts(s);
	size_t nr;
	struct pp_evsel *evs = pp_session__evsels(s, &nr);
	const char *last[8];
	int nr_last = 0, starts = 0, ends = 0, ret;

	if (!mt)
		return -ENOMEM;
	pp_session__set_priv(s, mt);
	pp_kmap__init(&mt->open, sizeof(struct mt_open));
	pp_kmap__init(&mt->stats, sizeof(struct mt_stat));
	ret = pp_sched_opts__parse(&mt->so, pp_session__opts(s), "multi-trace");
	if (ret)
		return ret;
	if (o->nr_events < 2) {
		fprintf(stderr, "pp-analyze: multi-trace needs at least two events: -e START -e END\n");
		return -EINVAL;
	}
	/*
	 * Each -e is a group: the entries of the last group end an interval
	 * (`-e 'A,B' -e C`: A or B starts, C ends). With one -e only, its last
	 * entry ends.
	 */
	for (int i = o->nr_events - 1; i >= 0; i--) {
		if (o->nr_event_groups > 1 && o->event_group[i] != o->event_group[o->nr_events - 1])
			break;
		if (nr_last == 8)
			return pp_analyzer__err("multi-trace", -EINVAL, "at most 8 end events");
		last[nr_last++] = pp_session__evspec(s, i)->pattern;
		if (o->nr_event_groups <= 1)
			break;
	}
	if (nr_last == o->nr_events) {
		fprintf(stderr, "pp-analyze: multi-trace needs start events before the end ones: -e START -e END\n");
		return -EINVAL;
	}
	mt->roles = calloc(nr ? nr : 1, sizeof(*mt->roles));
	if (!mt->roles)
		return -ENOMEM;
	mt->nr_evsels = nr;
	for (size_t i = 0; i < nr; i++) {
		const struct pp_evspec *sp = evs[i].spec;
		struct mt_role *r = &mt->roles[i];

		if (!sp)
			continue;
		r->role = 1;
		for (int k = 0; k < nr_last; k++) {
			if (!strcmp(sp->pattern, last[k]))
				r->role = 2;
		}
		if (r->role == 2) {
			ends++;
			mt->end_name = evs[i].name;
		} else {
			starts++;
		}
		/*
		 * key= names the event's own field when it has one of that name:
		 * sched_waking's pid is the task woken, while the sample's pid is
		 * the waker's. Only an event without such a field joins by the
		 * sample's pid, tid or cpu.
		 */
		r->f = sp->key[0] ? pp_evsel__field(&evs[i], sp->key) : NULL;
		if (r->f)
			r->kind = MT_KEY_FIELD;
		else if (!sp->key[0] || !strcmp(sp->key, "tid"))
			r->kind = MT_KEY_TID;
		else if (!strcmp(sp->key, "pid"))
			r->kind = MT_KEY_PID;
		else if (!strcmp(sp->key, "cpu"))
			r->kind = MT_KEY_CPU;
		else {
			char fl[512];

			return pp_analyzer__err("multi-trace", -EINVAL, "%s has no field '%s' (%s)",
				evs[i].name, sp->key, pp_evsel__fields(&evs[i], fl, sizeof(fl)));
		}
	}
	/* Entries naming a profiler used as a source (-e 'task-state/-S/'). */
	for (int i = 0; i < o->nr_events; i++) {
		const struct pp_evspec *sp = pp_session__evspec(s, i);
		struct mt_role *r = &mt->src_roles[i];

		if (!sp->source)
			continue;
		r->role = o->nr_event_groups > 1 ? (o->event_group[i] == o->event_group[o->nr_events - 1] ? 2 : 1) :
			  (i == o->nr_events - 1 ? 2 : 1);
		if (r->role == 2)
			ends++;
		else
			starts++;
		if (!sp->key[0] || !strcmp(sp->key, "tid"))
			r->kind = MT_KEY_TID;
		else if (!strcmp(sp->key, "pid"))
			r->kind = MT_KEY_PID;
		else if (!strcmp(sp->key, "cpu"))
			r->kind = MT_KEY_CPU;
		else {
			return pp_analyzer__err("multi-trace", -EINVAL, "%s: a profiler source joins by key=tid, pid or cpu",
				o->events[i]);
		}
	}
	if (!starts || !ends)
		return pp_analyzer__err("multi-trace", -ENOENT, "the trace lacks the %s events",
			starts ? "end" : "start");
	if (mt->so.heatmap) {
		ret = pp_session__output_ok(s, "--heatmap", mt->so.heatmap);
		if (ret)
			return ret;
		mt->hm = pp_heatmap__new(0);
		if (!mt->hm)
			return -ENOMEM;
	}
	if (mt->so.detail) {
		mt->ring = calloc(MT_RING, sizeof(*mt->ring));
		if (!mt->ring)
			return -ENOMEM;
	}
	return 0;
}

static int mt_key(const struct mt_role *r, const struct pp_event *e, uint64_t *key)
{
	switch (r->kind) {
	case MT_KEY_TID:
		*key = e->tid;
		return 0;
	case MT_KEY_PID:
		*key = e->pid;
		return 0;
	case MT_KEY_CPU:
		*key = e->cpu;
		return 0;
	default:
		return pp_event__num(e, r->f, key);
	}
}

/* "START -> END": the name of the start event @start and of the end. */
static const char *mt_pair(struct pp_session *s, const struct multi_trace *mt, int start, char *buf,
			   size_t len)
{
	size_t nr;
	struct pp_evsel *evs = pp_session__evsels(s, &nr);

	snprintf(buf, len, "%s -> %s", (size_t)start < nr ? evs[start].name :
		 start >= MT_SRC_BASE && mt->src_names[start - MT_SRC_BASE] ?
		 mt->src_names[start - MT_SRC_BASE] : "?", mt->end_name ? mt->end_name : "?");
	return buf;
}

/* --detail with --json: one element of the outlier's "events" array. */
static void mt_json_event(struct pp_session *s, const struct pp_event *e, const char *mark, int first)
{
	struct pp_out *o = pp_session__out(s);
	char tb[32];

	pp_session__format_time(s, e->time, tb);
	pp_out__puts(o, first ? "{\"mark\":" : ",{\"mark\":");
	pp_out__json_str(o, mark);
	pp_json__str(s, "time", tb);
	pp_json__u64(s, "ts", e->time);
	pp_json__task(s, e);
	pp_json__event(s, e);
	pp_out__putc(o, '}');
}

static void mt_print_event(struct pp_session *s, const struct pp_event *e, const char *mark)
{
	struct pp_out *o = pp_session__out(s);
	char tb[32];

	pp_session__format_time(s, e->time, tb);
	pp_out__printf(o, "  %s %s %16s %7u/%-7u [%03u] %s: ", mark, tb, pp_session__comm(s, e->tid),
		       e->pid, e->tid, e->cpu, e->evsel->name);
	if (e->evsel->tp && e->raw)
		pp_session__print_event(s, e);
	pp_out__putc(o, '\n');
}

static void mt_detail(struct pp_session *s, struct multi_trace *mt, uint64_t from,
		      const struct pp_event *end)
{
	int json = pp_session__opts(s)->json, first = 1;

	if (json)
		pp_out__puts(pp_session__out(s), ",\"events\":[");
	for (size_t i = 0; i < MT_RING; i++) {
		struct mt_saved *sv = &mt->ring[(mt->ring_head + i) % MT_RING];

		if (!sv->e.evsel || sv->e.time < from || sv->e.time > end->time)
			continue;
		if (json)
			mt_json_event(s, &sv->e, sv->e.time == from ? "start" : "", first);
		else
			mt_print_event(s, &sv->e, sv->e.time == from ? "start" : "     ");
		first = 0;
	}
	if (json) {
		mt_json_event(s, end, "end", first);
		pp_out__putc(pp_session__out(s), ']');
	} else {
		mt_print_event(s, end, "end  ");
	}
}

static void mt_save(struct multi_trace *mt, const struct pp_event *e)
{
	struct mt_saved *sv = &mt->ring[mt->ring_head];
	uint32_t n = e->raw_size < MT_RAW ? e->raw_size : MT_RAW;

	sv->e = *e;
	sv->e.callchain = NULL;
	sv->e.nr_callchain = 0;
	sv->e.record = NULL;
	if (e->raw && n == e->raw_size) {
		memcpy(sv->raw, e->raw, n);
		sv->e.raw = sv->raw;
		sv->e.raw_size = n;
	} else {
		sv->e.raw = NULL;	/* too big to keep: printed without fields */
		sv->e.raw_size = 0;
	}
	mt->ring_head = (mt->ring_head + 1) % MT_RING;
}

static void mt_handle(struct pp_session *s, struct multi_trace *mt, const struct mt_role *r, int id,
		      const struct pp_event *e);

static void mt_sample(struct pp_session *s, const struct pp_event *e)
{
	struct multi_trace *mt = pp_session__priv(s);

	if ((size_t)e->evsel->idx >= mt->nr_evsels)
		return;
	mt_handle(s, mt, &mt->roles[e->evsel->idx], e->evsel->idx, &e[0]);
}

/* An event of a profiler source: a start or end like any other, named after the profiler. */
static void mt_source_event(struct pp_session *s, const struct pp_src_event *se)
{
	struct multi_trace *mt = pp_session__priv(s);

	if (se->entry < 0 || se->entry >= PP_MAX_EVENTS)
		return;
	mt->src_names[se->entry] = se->source;
	if (mt->src_roles[se->entry].role == 2)
		mt->end_name = se->source;
	mt_handle(s, mt, &mt->src_roles[se->entry], MT_SRC_BASE + se->entry, &se->e);
}

static void mt_handle(struct pp_session *s, struct multi_trace *mt, const struct mt_role *r, int id,
		      const struct pp_event *e)
{
	const struct pp_opts *o = pp_session__opts(s);
	struct mt_open *op;
	uint64_t key, d;

	if (!r->role || mt_key(r, e, &key))
		return;
	if (r->role == 1) {
		op = pp_kmap__get(&mt->open, key, NULL);
		if (op) {
			op->since = e->time;
			op->start = id;
		}
		if (mt->ring)
			mt_save(mt, e);
		return;
	}
	op = pp_kmap__find(&mt->open, key);
	if (!op || !op->since || e->time < op->since) {
		if (mt->ring)
			mt_save(mt, e);
		return;
	}
	d = e->time - op->since;
	{
		uint64_t skey = ((o->perins ? key : 0) << 16) | (uint64_t)op->start;
		int created;
		struct mt_stat *st = pp_kmap__get(&mt->stats, skey, &created);

		if (st) {
			if (created) {
				st->key = key;
				st->key_signed = pp_evsel__field_signed(r->f);
				st->start = op->start;
				pp_hist__init(&st->h);
			}
			pp_hist__add(&st->h, d);
		}
	}
	if (mt->hm)
		pp_heatmap__add(mt->hm, e->time, d);
	if (o->than_set && d > o->than && o->json) {
		char pair[300];

		pp_json__begin(s, "outlier", op->since);
		pp_json__str(s, "pair", mt_pair(s, mt, op->start, pair, sizeof(pair)));
		pp_json__u64(s, "key", key);
		pp_json__u64(s, "duration", d);
		if (mt->ring)
			mt_detail(s, mt, op->since, e);
		pp_json__end(s);
	} else if (o->than_set && d > o->than) {
		char tb[32], db[16];

		pp_session__format_time(s, op->since, tb);
		if (pp_evsel__field_signed(r->f))
			pp_out__printf(pp_session__out(s), "%s key %lld latency %s\n", tb, (long long)key,
				       pp_sched_ns(db, d));
		else
			pp_out__printf(pp_session__out(s), "%s key %llu latency %s\n", tb,
				       (unsigned long long)key, pp_sched_ns(db, d));
		if (mt->ring)
			mt_detail(s, mt, op->since, e);
	}
	if (mt->ring)
		mt_save(mt, e);
	op->since = 0;
}

static void mt_lost(struct pp_session *s, const struct pp_lost *l)
{
	struct multi_trace *mt = pp_session__priv(s);

	for (size_t i = 0; i < mt->open.cap; i++) {
		struct mt_open *op = pp_kmap__nth(&mt->open, i, NULL);

		if (op)
			op->since = 0;
	}
	mt->lost++;
}

static int cmp_stat(const void *a, const void *b)
{
	const struct mt_stat *x = *(const struct mt_stat *const *)a;
	const struct mt_stat *y = *(const struct mt_stat *const *)b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

static void mt_print(struct pp_session *s, uint64_t now)
{
	struct multi_trace *mt = pp_session__priv(s);
	const struct pp_opts *o = pp_session__opts(s);
	struct pp_out *out = pp_session__out(s);
	size_t n = 0;
	struct mt_stat **list = malloc((mt->stats.nr ? mt->stats.nr : 1) * sizeof(*list));
	char tbuf[32];

	if (!list)
		return;
	for (size_t i = 0; i < mt->stats.cap; i++) {
		struct mt_stat *st = pp_kmap__nth(&mt->stats, i, NULL);

		if (st && st->h.calls)
			list[n++] = st;
	}
	qsort(list, n, sizeof(*list), cmp_stat);
	pp_session__format_time(s, now, tbuf);
	if (!o->json)
		pp_out__printf(out, "%s\n%-48s %s%8s %10s %10s %10s %10s %10s %10s\n", tbuf, "start -> end",
			       o->perins ? "      key " : "", "calls", "total", "min", "p50", "p95",
			       "p99", "max");
	for (size_t i = 0; i < n; i++) {
		struct mt_stat *st = list[i];
		struct pp_hist_stats hs;
		char pair[300], b[6][16];

		mt_pair(s, mt, st->start, pair, sizeof(pair));
		pp_hist__stats(&st->h, &hs);
		if (o->json) {
			pp_json__begin(s, "row", now);
			pp_out__puts(out, ",\"pair\":");
			pp_out__json_str(out, pair);
			if (o->perins)
				pp_out__printf(out, st->key_signed ? ",\"key\":%lld" : ",\"key\":%llu",
					       (unsigned long long)st->key);
			pp_out__printf(out, ",\"calls\":%llu,\"total\":%llu,\"min\":%llu,\"p50\":%llu,"
				       "\"p95\":%llu,\"p99\":%llu,\"max\":%llu}\n",
				       (unsigned long long)hs.calls, (unsigned long long)hs.total,
				       (unsigned long long)hs.min, (unsigned long long)hs.p50,
				       (unsigned long long)hs.p95, (unsigned long long)hs.p99,
				       (unsigned long long)hs.max);
		} else {
			pp_out__printf(out, "%-48s ", pair);
			if (o->perins)
				pp_out__printf(out, st->key_signed ? "%9lld " : "%9llu ",
					       (unsigned long long)st->key);
			pp_out__printf(out, "%8llu %10s %10s %10s %10s %10s %10s\n",
				       (unsigned long long)hs.calls, pp_sched_ns(b[0], hs.total),
				       pp_sched_ns(b[1], hs.min), pp_sched_ns(b[2], hs.p50),
				       pp_sched_ns(b[3], hs.p95), pp_sched_ns(b[4], hs.p99),
				       pp_sched_ns(b[5], hs.max));
		}
		pp_hist__reset(&st->h);
	}
	free(list);
}

static void mt_report(struct pp_session *s)
{
	struct multi_trace *mt = pp_session__priv(s);

	if (!pp_session__opts(s)->interval_ns)
		mt_print(s, pp_session__stats(s)->last_ts);
	if (mt->lost)
		pp_analyzer__warn("multi-trace", "%llu lost windows: intervals open across them were dropped",
			(unsigned long long)mt->lost);
	if (mt->hm) {
		struct pp_heatmap_opts ho = { .title = "pp multi-trace latency", .unit = PP_UNIT_NS };

		int ret = pp_heatmap__write_file(mt->hm, mt->so.heatmap, &ho);

		if (!ret)
			fprintf(stderr, "pp-analyze: wrote heat map %s\n", mt->so.heatmap);
		pp_session__fail(s, ret);
	}
}

static void mt_deinit(struct pp_session *s)
{
	struct multi_trace *mt = pp_session__priv(s);

	if (!mt)
		return;
	for (size_t i = 0; i < mt->stats.cap; i++) {
		struct mt_stat *st = pp_kmap__nth(&mt->stats, i, NULL);

		if (st)
			pp_hist__exit(&st->h);
	}
	pp_kmap__exit(&mt->stats);
	pp_kmap__exit(&mt->open);
	pp_heatmap__free(mt->hm);
	pp_sched_opts__exit(&mt->so);
	free(mt->ring);
	free(mt->roles);
	free(mt);
}

static const struct pp_mod_opt mt_mod_opts[] = {
	{ "detail", 0, 0, "with --than: print the events between start and end" },
	{ "heatmap", 0, 1, "NAME  latency heat map (time x latency): NAME.svg" },
	{ NULL, 0, 0, NULL },
};

const struct pp_analyzer pp_analyzer_multi_trace = {
	.name = "multi-trace",
	.desc = "latency between events joined by a key: calls, total, min, p50/p95/p99, max",
	.help = "pp-analyze multi-trace -e START[,START2] -e 'END[//key=FIELD/]' [--perins] [--than TIME] [-i MS] [--json] [FILE]\n"
		"  each -e is a group of alternatives: the last -e ends an interval, the others start\n"
		"  one (-e 'A,B' -e C: A or B starts, C ends); key=FIELD\n"
		"  (or key=cpu|pid|tid, default tid) joins them\n"
		"  profilers as events (key=tid, pid or cpu): -e 'page-faults' -e 'task-state/-S/'\n"
		"  example: pp-analyze multi-trace -e 'irq:softirq_entry//key=cpu/' -e 'irq:softirq_exit//key=cpu/' --than 100us --detail\n",
	.mod_opts = mt_mod_opts,
	.opts = PP_OPT_EVENTS | PP_OPT_INTERVAL | PP_OPT_THAN | PP_OPT_PERINS | PP_OPT_JSON,
	.init = mt_init,
	.sample = mt_sample,
	.lost = mt_lost,
	.interval = mt_print,
	.report = mt_report,
	.deinit = mt_deinit,
	.source_event = mt_source_event,
};
