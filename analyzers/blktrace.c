// SPDX-License-Identifier: MIT
/*
 * blktrace: per-request latency of block I/O by stage, as btt names them:
 *
 *	Q  block_bio_queue	the bio is submitted (the submitter's context)
 *	G  block_getrq		a request is allocated for it
 *	I  block_rq_insert	the request enters the scheduler / dispatch list
 *	D  block_rq_issue	the driver gets it
 *	C  block_rq_complete	the device is done
 *
 * The events of one request are joined by (dev, sector). Each stage is the
 * time from the previous event the request showed to this one (Q2G, G2I,
 * I2D, D2C; G2D when the request was issued directly without an insert),
 * and Q2C is the whole request, from its first event to its completion.
 * Figures are per device (major:minor and the name the recorder saw in
 * /proc/partitions) and operation (read, write, flush, discard, ...).
 * --than TIME prints each slower request with its stage times and, when
 * stacks were recorded (-g, or --than at record time), the submitter's
 * stack; --heatmap NAME renders the Q2C latencies; a lost window drops the
 * requests in flight. A bio merged into another request never completes by
 * its own sector: such entries are aged out and counted as unfinished.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pp/replay.h"
#include "analyzers.h"
#include "heatmap.h"
#include "hist.h"
#include "json.h"
#include "latrow.h"
#include "sched-common.h"
#include "blktrace.h"

enum { BT_Q, BT_G, BT_I, BT_D, BT_C, BT_NR };
static const char bt_letter[BT_NR] = { 'Q', 'G', 'I', 'D', 'C' };
static const char *const bt_event[BT_NR] = {
	"block:block_bio_queue", "block:block_getrq", "block:block_rq_insert",
	"block:block_rq_issue", "block:block_rq_complete",
};

#define BT_AGE_NS	(30ull * 1000000000ull)	/* an unfinished request is dropped after */
#define BT_SWEEP	65536			/* new requests between two sweeps */

/* A request in flight. */
struct bt_req {
	struct bt_req *next;		/* hash chain or free list */
	uint32_t dev;
	uint64_t sector;
	uint64_t t[BT_NR];		/* 0: not seen */
	uint32_t nr_sector;
	uint32_t pid, tid;
	int op;
	char comm[16];
	struct pp_stack_copy *stack;	/* the submitter's, with --than */
};

/* Figures of one (device, op). */
struct bt_stat {
	uint32_t dev;
	int op;
	struct pp_hist stage[BT_NR][BT_NR];	/* [from][to] */
	struct pp_hist whole;			/* Q2C */
};

struct blktrace {
	const struct pp_evsel *ev[BT_NR];
	struct tep_format_field *dev_f[BT_NR], *sector_f[BT_NR], *nr_f[BT_NR], *rwbs_f[BT_NR];
	struct tep_format_field *comm_f[BT_NR], *err_f;
	struct bt_req **tab;		/* hash of requests in flight */
	size_t cap, nr;
	struct bt_req *free_reqs;
	uint64_t since_sweep;
	struct pp_kmap stats;		/* dev << 8 | op -> struct bt_stat */
	struct pp_sched_opts so;
	struct pp_heatmap *hm;
	char *names;			/* MACHINE block_devices, split */
	uint64_t lost, unfinished, errors;
	int than;
};

const char *const pp_blk_op_names[PP_BLK_OP_NR] = {
	"read", "write", "flush", "discard", "secure-erase", "write-zeroes", "other",
};

int pp_blk_op(const char *rwbs)
{
	const char *p = rwbs;

	/* A leading F is a preflush when an operation letter follows it. */
	if (p[0] == 'F' && p[1] && strchr("RWDFN", p[1]))
		p++;
	switch (p[0]) {
	case 'R':
		return PP_BLK_READ;
	case 'W':
		return PP_BLK_WRITE;
	case 'F':
		return PP_BLK_FLUSH;
	case 'D':
		return p[1] == 'E' ? PP_BLK_SECURE_ERASE : PP_BLK_DISCARD;
	case 'Z':
		return PP_BLK_WRITE_ZEROES;
	default:
		return PP_BLK_OTHER;
	}
}

const char *pp_blk_dev_name(const char *list, uint32_t major, uint32_t minor, char *buf,
			    size_t len)
{
	char want[24];
	size_t wl;
	const char *p = list;

	if (!list)
		return NULL;
	wl = (size_t)snprintf(want, sizeof(want), "%u:%u=", major, minor);
	while (p && *p) {
		if (!strncmp(p, want, wl)) {
			const char *v = p + wl, *end = strchr(v, ',');
			size_t n = end ? (size_t)(end - v) : strlen(v);

			if (!n || n >= len)
				return NULL;
			memcpy(buf, v, n);
			buf[n] = 0;
			return buf;
		}
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return NULL;
}

static int bt_events(const struct pp_opts *o, struct pp_event_reqs *out)
{
	out->nr = BT_NR;
	for (int i = 0; i < BT_NR; i++) {
		out->req[i].spec = bt_event[i];
		/* The submitter's stack: where a request is born. */
		out->req[i].callchain = (i == BT_Q || i == BT_G) && (o->callchain || o->than_set);
	}
	return 0;
}

static size_t bt_hash(uint32_t dev, uint64_t sector, size_t cap)
{
	uint64_t k = (sector ^ ((uint64_t)dev << 40) ^ dev) * 0x9e3779b97f4a7c15ull;

	return (size_t)(k >> 20) & (cap - 1);
}

static struct bt_req **bt_slot(struct blktrace *bt, uint32_t dev, uint64_t sector)
{
	struct bt_req **pp = &bt->tab[bt_hash(dev, sector, bt->cap)];

	while (*pp && ((*pp)->dev != dev || (*pp)->sector != sector))
		pp = &(*pp)->next;
	return pp;
}

static void bt_unlink(struct blktrace *bt, struct bt_req **pp)
{
	struct bt_req *r = *pp;

	*pp = r->next;
	free(r->stack);
	r->stack = NULL;
	r->next = bt->free_reqs;
	bt->free_reqs = r;
	bt->nr--;
}

static int bt_grow(struct blktrace *bt)
{
	size_t ncap = bt->cap ? bt->cap * 2 : 1024;
	struct bt_req **nt = calloc(ncap, sizeof(*nt));

	if (!nt)
		return -ENOMEM;
	for (size_t i = 0; i < bt->cap; i++) {
		struct bt_req *r = bt->tab[i], *n;

		for (; r; r = n) {
			size_t h = bt_hash(r->dev, r->sector, ncap);

			n = r->next;
			r->next = nt[h];
			nt[h] = r;
		}
	}
	free(bt->tab);
	bt->tab = nt;
	bt->cap = ncap;
	return 0;
}

static uint64_t bt_last(const struct bt_req *r)
{
	uint64_t t = 0;

	for (int i = 0; i < BT_NR; i++)
		if (r->t[i] > t)
			t = r->t[i];
	return t;
}

/* Drop the requests that saw nothing for BT_AGE_NS: merged bios, lost completions. */
static void bt_sweep(struct blktrace *bt, uint64_t now)
{
	for (size_t i = 0; i < bt->cap; i++) {
		struct bt_req **pp = &bt->tab[i];

		while (*pp) {
			if (now > bt_last(*pp) + BT_AGE_NS) {
				bt->unfinished++;
				bt_unlink(bt, pp);
			} else {
				pp = &(*pp)->next;
			}
		}
	}
}

static struct bt_req *bt_new(struct blktrace *bt, uint32_t dev, uint64_t sector, uint64_t now)
{
	struct bt_req *r;

	if (++bt->since_sweep >= BT_SWEEP) {
		bt->since_sweep = 0;
		bt_sweep(bt, now);
	}
	if (bt->nr >= bt->cap / 2 && bt_grow(bt))
		return NULL;
	r = bt->free_reqs;
	if (r)
		bt->free_reqs = r->next;
	else if (!(r = malloc(sizeof(*r))))
		return NULL;
	memset(r, 0, sizeof(*r));
	r->dev = dev;
	r->sector = sector;
	r->next = bt->tab[bt_hash(dev, sector, bt->cap)];
	bt->tab[bt_hash(dev, sector, bt->cap)] = r;
	bt->nr++;
	return r;
}

static int bt_init(struct pp_session *s)
{
	struct blktrace *bt = calloc(1, sizeof(*bt));
	const struct pp_opts *o = pp_session__opts(s);
	size_t nr;
	struct pp_evsel *evs = pp_session__evsels(s, &nr);
	const char *names;
	int ret;

	if (!bt)
		return -ENOMEM;
	pp_session__set_priv(s, bt);
	pp_kmap__init(&bt->stats, sizeof(struct bt_stat));
	ret = pp_sched_opts__parse(&bt->so, o, "blktrace");
	if (ret)
		return ret;
	for (size_t i = 0; i < nr; i++) {
		for (int k = 0; k < BT_NR; k++) {
			if (strcmp(evs[i].name, bt_event[k]) || !evs[i].tp)
				continue;
			bt->ev[k] = &evs[i];
			bt->dev_f[k] = pp_evsel__field(&evs[i], "dev");
			bt->sector_f[k] = pp_evsel__field(&evs[i], "sector");
			bt->nr_f[k] = pp_evsel__field(&evs[i], "nr_sector");
			bt->rwbs_f[k] = pp_evsel__field(&evs[i], "rwbs");
			bt->comm_f[k] = pp_evsel__field(&evs[i], "comm");
			if (k == BT_C)
				bt->err_f = pp_evsel__field(&evs[i], "error");
			if (!bt->dev_f[k] || !bt->sector_f[k] || !bt->rwbs_f[k])
				return pp_analyzer__err("blktrace", -EINVAL, "%s lacks dev, sector or rwbs",
					bt_event[k]);
		}
	}
	if (!bt->ev[BT_C] || (!bt->ev[BT_Q] && !bt->ev[BT_G] && !bt->ev[BT_I] && !bt->ev[BT_D]))
		return pp_analyzer__err("blktrace", -ENOENT, "the trace lacks block:block_rq_complete and a "
			"start event; record with: pp-record blktrace");
	names = pp_session__machine(s, "block_devices");
	if (names && !(bt->names = strdup(names)))
		return -ENOMEM;
	bt->than = o->than_set;
	if (bt->so.heatmap) {
		ret = pp_session__output_ok(s, "--heatmap", bt->so.heatmap);
		if (ret)
			return ret;
		bt->hm = pp_heatmap__new(0);
		if (!bt->hm)
			return -ENOMEM;
	}
	return bt_grow(bt);
}

static struct bt_stat *bt_stat(struct blktrace *bt, uint32_t dev, int op)
{
	int created;
	struct bt_stat *st = pp_kmap__get(&bt->stats, (uint64_t)dev << 8 | (uint64_t)op, &created);

	if (st && created) {
		st->dev = dev;
		st->op = op;
		for (int i = 0; i < BT_NR; i++)
			for (int j = 0; j < BT_NR; j++)
				pp_hist__init(&st->stage[i][j]);
		pp_hist__init(&st->whole);
	}
	return st;
}

static void bt_dev_str(struct blktrace *bt, uint32_t dev, char *id, size_t idlen, char *name,
		       size_t namelen)
{
	uint32_t maj = dev >> 20, min = dev & 0xfffff;

	snprintf(id, idlen, "%u:%u", maj, min);
	if (!pp_blk_dev_name(bt->names, maj, min, name, namelen))
		snprintf(name, namelen, "?");
}

static void bt_outlier(struct pp_session *s, struct blktrace *bt, const struct bt_req *r,
		       uint64_t d)
{
	struct pp_out *o = pp_session__out(s);
	char id[24], name[64], tb[32], db[16];
	int first = BT_C;

	for (int k = 0; k < BT_C; k++)
		if (r->t[k]) {
			first = k;
			break;
		}
	bt_dev_str(bt, r->dev, id, sizeof(id), name, sizeof(name));
	if (pp_session__opts(s)->json) {
		pp_json__begin(s, "outlier", r->t[first]);
		pp_json__str(s, "dev", id);
		pp_json__str(s, "name", name);
		pp_json__str(s, "op", pp_blk_op_names[r->op]);
		pp_json__u64(s, "sector", r->sector);
		pp_json__u64(s, "nr_sector", r->nr_sector);
		if (r->comm[0]) {
			pp_json__str(s, "comm", r->comm);
			pp_json__u64(s, "pid", r->pid);
			pp_json__u64(s, "tid", r->tid);
		}
		static const char *const key[BT_NR] = { "queue", "getrq", "insert", "issue", "complete" };

		for (int k = 0; k < BT_NR; k++)
			if (r->t[k])
				pp_json__u64(s, key[k], r->t[k]);
		pp_json__u64(s, "latency", d);
		if (r->stack)
			pp_stack_copy__json(s, r->stack);
		pp_json__end(s);
		return;
	}
	pp_session__format_time(s, r->t[first], tb);
	pp_out__printf(o, "%s %s %s %s %llu + %u", tb, id, name, pp_blk_op_names[r->op],
		       (unsigned long long)r->sector, r->nr_sector);
	if (r->comm[0])
		pp_out__printf(o, " [%s %u]", r->comm, r->tid);
	for (int k = first, prev = -1; k < BT_NR; k++) {
		if (!r->t[k])
			continue;
		if (prev >= 0)
			pp_out__printf(o, " %c2%c %s", bt_letter[prev], bt_letter[k],
				       pp_sched_ns(db, r->t[k] - r->t[prev]));
		prev = k;
	}
	pp_out__printf(o, " Q2C %s\n", pp_sched_ns(db, d));
	if (r->stack)
		pp_stack_copy__print(s, r->stack, "    ");
}

static void bt_complete(struct pp_session *s, struct blktrace *bt, struct bt_req *r, uint64_t now)
{
	struct bt_stat *st = bt_stat(bt, r->dev, r->op);
	int first = -1, prev = -1;

	if (!st)
		return;
	r->t[BT_C] = now;
	for (int k = 0; k < BT_NR; k++) {
		if (!r->t[k])
			continue;
		if (first < 0)
			first = k;
		if (prev >= 0)
			pp_hist__add(&st->stage[prev][k], r->t[k] - r->t[prev]);
		prev = k;
	}
	if (first < BT_C) {
		uint64_t d = now - r->t[first];

		pp_hist__add(&st->whole, d);
		if (bt->hm)
			pp_heatmap__add(bt->hm, now, d);
		if (bt->than && d > pp_session__opts(s)->than)
			bt_outlier(s, bt, r, d);
	}
}

static void bt_sample(struct pp_session *s, const struct pp_event *e)
{
	struct blktrace *bt = pp_session__priv(s);
	uint64_t dev, sector, nr = 0;
	char rwbs[16];
	struct bt_req **pp, *r;
	int k;

	for (k = 0; k < BT_NR; k++)
		if (e->evsel == bt->ev[k])
			break;
	if (k == BT_NR || pp_event__num(e, bt->dev_f[k], &dev) ||
	    pp_event__num(e, bt->sector_f[k], &sector) ||
	    pp_event__str(e, bt->rwbs_f[k], rwbs, sizeof(rwbs)))
		return;
	if (bt->nr_f[k])
		pp_event__num(e, bt->nr_f[k], &nr);
	pp = bt_slot(bt, (uint32_t)dev, sector);
	r = *pp;
	if (k == BT_C) {
		uint64_t err;

		if (!r)
			return;		/* started before the trace */
		if (bt->err_f && !pp_event__num(e, bt->err_f, &err) && err)
			bt->errors++;
		if (e->time >= bt_last(r))
			bt_complete(s, bt, r, e->time);
		bt_unlink(bt, pp);
		return;
	}
	/* A stage seen again, or out of order: a new request at the same place. */
	if (r && (r->t[k] || bt_last(r) > e->time)) {
		bt->unfinished++;
		bt_unlink(bt, pp);
		r = NULL;
	}
	if (!r) {
		/*
		 * With -p/-t/COMMAND keep the targets' requests: those a target
		 * queued (Q, G run in the submitter's context). A request first
		 * seen later has no known submitter and counts only without targets.
		 */
		if (!pp_session__is_target(s, k <= BT_G ? e->tid : 0))
			return;
		r = bt_new(bt, (uint32_t)dev, sector, e->time);
		if (!r)
			return;
	}
	r->t[k] = e->time;
	r->op = pp_blk_op(rwbs);
	if (nr)
		r->nr_sector = (uint32_t)nr;
	/* The submitter is whoever queued the bio (or allocated the request). */
	if ((k == BT_Q || (k == BT_G && !r->t[BT_Q])) && !r->comm[0]) {
		r->pid = e->pid;
		r->tid = e->tid;
		if (!bt->comm_f[k] || pp_event__str(e, bt->comm_f[k], r->comm, sizeof(r->comm)))
			snprintf(r->comm, sizeof(r->comm), "%s", pp_session__comm(s, e->tid));
		if (bt->than && e->nr_callchain && (r->stack = malloc(sizeof(*r->stack))))
			pp_stack_copy__set(r->stack, e);
	}
}

static void bt_lost(struct pp_session *s, const struct pp_lost *l)
{
	struct blktrace *bt = pp_session__priv(s);

	(void)l;
	for (size_t i = 0; i < bt->cap; i++)
		while (bt->tab[i])
			bt_unlink(bt, &bt->tab[i]);
	bt->lost++;
}

static int bt_cmp(const void *a, const void *b)
{
	const struct bt_stat *x = *(const struct bt_stat *const *)a;
	const struct bt_stat *y = *(const struct bt_stat *const *)b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->op - y->op;
}

static void bt_print(struct pp_session *s, uint64_t now)
{
	struct blktrace *bt = pp_session__priv(s);
	const struct pp_opts *o = pp_session__opts(s);
	struct pp_out *out = pp_session__out(s);
	struct bt_stat **list = malloc((bt->stats.nr ? bt->stats.nr : 1) * sizeof(*list));
	size_t n = 0;
	char tb[32];

	if (!list)
		return;
	for (size_t i = 0; i < bt->stats.cap; i++) {
		struct bt_stat *st = pp_kmap__nth(&bt->stats, i, NULL);

		if (st && st->whole.calls)
			list[n++] = st;
	}
	qsort(list, n, sizeof(*list), bt_cmp);
	pp_session__format_time(s, now, tb);
	if (!o->json)
		pp_out__printf(out, "%s block I/O latency by stage (Q queue, G getrq, I insert, "
			       "D issue, C complete)\n", tb);
	for (size_t i = 0; i < n; i++) {
		struct bt_stat *st = list[i];
		char id[24], name[64], label[8];

		bt_dev_str(bt, st->dev, id, sizeof(id), name, sizeof(name));
		if (o->json) {
			pp_json__begin(s, "blktrace", now);
			pp_json__str(s, "dev", id);
			pp_json__str(s, "name", name);
			pp_json__str(s, "op", pp_blk_op_names[st->op]);
			pp_json__u64(s, "requests", st->whole.calls);
			pp_out__puts(out, ",\"stages\":{");
			for (int a = 0, first = 1; a < BT_NR; a++)
				for (int b = a + 1; b < BT_NR; b++) {
					if (!st->stage[a][b].calls)
						continue;
					snprintf(label, sizeof(label), "%c2%c", bt_letter[a], bt_letter[b]);
					if (!first)
						pp_out__putc(out, ',');
					first = 0;
					pp_out__json_str(out, label);
					pp_out__putc(out, ':');
					pp_latrow__json_obj(s, &st->stage[a][b]);
				}
			pp_out__putc(out, '}');
			pp_latrow__json(s, "Q2C", &st->whole);
			pp_json__end(s);
			continue;
		}
		pp_out__printf(out, "\n%s %s %s: %llu requests\n", id, name, pp_blk_op_names[st->op],
			       (unsigned long long)st->whole.calls);
		pp_latrow__header(out, 6, "stage");
		for (int a = 0; a < BT_NR; a++)
			for (int b = a + 1; b < BT_NR; b++) {
				if (!st->stage[a][b].calls)
					continue;
				snprintf(label, sizeof(label), "%c2%c", bt_letter[a], bt_letter[b]);
				pp_latrow__text(out, 6, label, &st->stage[a][b]);
			}
		pp_latrow__text(out, 6, "Q2C", &st->whole);
	}
	if (!n && !o->json)
		pp_out__printf(out, "no completed requests\n");
	for (size_t i = 0; i < n; i++) {
		for (int a = 0; a < BT_NR; a++)
			for (int b = 0; b < BT_NR; b++)
				pp_hist__reset(&list[i]->stage[a][b]);
		pp_hist__reset(&list[i]->whole);
	}
	free(list);
}

static void bt_report(struct pp_session *s)
{
	struct blktrace *bt = pp_session__priv(s);

	if (!pp_session__opts(s)->interval_ns)
		bt_print(s, pp_session__stats(s)->last_ts);
	if (bt->lost)
		pp_analyzer__warn("blktrace", "%llu lost windows: requests in flight across "
			"them were dropped", (unsigned long long)bt->lost);
	if (bt->errors)
		pp_analyzer__warn("blktrace", "%llu requests completed with an error",
			(unsigned long long)bt->errors);
	if (bt->hm) {
		struct pp_heatmap_opts ho = { .title = "pp blktrace request latency",
					      .subtitle = "Q2C: queue -> complete",
					      .unit = PP_UNIT_NS };
		int ret = pp_heatmap__write_file(bt->hm, bt->so.heatmap, &ho);

		if (!ret)
			fprintf(stderr, "pp-analyze: wrote heat map %s\n", bt->so.heatmap);
		pp_session__fail(s, ret);
	}
}

static void bt_deinit(struct pp_session *s)
{
	struct blktrace *bt = pp_session__priv(s);

	if (!bt)
		return;
	for (size_t i = 0; i < bt->cap; i++)
		while (bt->tab[i])
			bt_unlink(bt, &bt->tab[i]);
	while (bt->free_reqs) {
		struct bt_req *r = bt->free_reqs;

		bt->free_reqs = r->next;
		free(r);
	}
	for (size_t i = 0; i < bt->stats.cap; i++) {
		struct bt_stat *st = pp_kmap__nth(&bt->stats, i, NULL);

		if (!st)
			continue;
		for (int a = 0; a < BT_NR; a++)
			for (int b = 0; b < BT_NR; b++)
				pp_hist__exit(&st->stage[a][b]);
		pp_hist__exit(&st->whole);
	}
	pp_kmap__exit(&bt->stats);
	pp_heatmap__free(bt->hm);
	pp_sched_opts__exit(&bt->so);
	free(bt->tab);
	free(bt->names);
	free(bt);
}

static const struct pp_mod_opt bt_mod_opts[] = {
	{ "heatmap", 0, 1, "NAME  request latency heat map (time x Q2C): NAME.svg" },
	{ NULL, 0, 0, NULL },
};

const struct pp_analyzer pp_analyzer_blktrace = {
	.name = "blktrace",
	.desc = "block I/O latency per device and op by stage: queue, getrq, insert, issue, complete",
	.help = "pp-analyze blktrace [-g] [--than TIME] [--heatmap NAME] [-i MS] [--json] [FILE]\n"
		"  stages (btt names): Q2G bio queued -> request allocated, G2I -> inserted,\n"
		"  I2D -> issued to the driver, D2C -> completed (G2D: issued without insert);\n"
		"  Q2C is the whole request. Requests are joined by (dev, sector).\n"
		"  record with: pp-record blktrace [-g] -a -o FILE (stacks of the submitters with -g)\n"
		"  example: pp-analyze blktrace --than 10ms FILE\n",
	.mod_opts = bt_mod_opts,
	.needs_system_wide = 1,
	.no_symbols = 0,
	.opts = PP_OPT_INTERVAL | PP_OPT_THAN | PP_OPT_CALLCHAIN | PP_OPT_JSON,
	.events = bt_events,
	.init = bt_init,
	.sample = bt_sample,
	.lost = bt_lost,
	.interval = bt_print,
	.report = bt_report,
	.deinit = bt_deinit,
};
