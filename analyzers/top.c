// SPDX-License-Identifier: MIT
/*
 * top: split events into counters by a key (key=FIELD, default the pid),
 * summing fields (top-by=FIELD sorts by it, top-add=FIELD adds a column),
 * named by comm=FIELD; sorted descending, every -i interval or at the end.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include "pp/replay.h"
#include "analyzers.h"
#include "flamegraph.h"
#include "json.h"

#define TOP_MAX_COLS	64

struct top_col {
	char name[160];
	int evsel;
	struct tep_format_field *field;	/* NULL: count calls */
	int sort;			/* a top-by column */
	int is_signed;			/* the field is signed: its sum too */
};

struct top_ev {
	struct tep_format_field *key;
	struct tep_format_field *comm;
	int has_key;
	int str_key;			/* key= names a string field (prev_comm) */
	int signed_key;			/* key= names a signed field: -1 is no 2^64-1 */
};

#define TOP_SKEY_LEN	64

struct top_row {
	uint64_t key;			/* the value, or the hash of skey */
	char comm[16];
	char skey[TOP_SKEY_LEN];	/* string key, "" for numeric keys */
	int is_str;
	int is_signed;			/* @key is an int64_t */
};

struct top {
	struct top_col cols[TOP_MAX_COLS];
	int nr_cols;
	int sort_col;
	struct top_ev *evs;
	size_t nr_evs;
	int show_comm;
	int any_str_key;
	struct top_row *rows;
	uint64_t *vals;			/* [row * nr_cols + col] */
	size_t nr_rows, cap_rows;
	int64_t *hash;			/* row index + 1, 0 = empty */
	size_t hash_cap;
	size_t *order;
};

static int top_add_col(struct top *t, int evsel, const char *evname, const char *field,
		       struct tep_format_field *f, int sort)
{
	struct top_col *c;

	if (t->nr_cols >= TOP_MAX_COLS)
		return -E2BIG;
	c = &t->cols[t->nr_cols++];
	c->evsel = evsel;
	c->field = f;
	c->sort = sort;
	c->is_signed = pp_evsel__field_signed(f);
	if (field)
		snprintf(c->name, sizeof(c->name), "%s", field);
	else
		snprintf(c->name, sizeof(c->name), "%s", evname);
	return 0;
}

static int top_init(struct pp_session *s)
{
	const struct pp_opts *o = pp_session__opts(s);
	struct top *t = calloc(1, sizeof(*t));
	size_t nr;
	struct pp_evsel *evs = pp_session__evsels(s, &nr);
	char fl[512];

	if (!t)
		return -ENOMEM;
	pp_session__set_priv(s, t);
	t->evs = calloc(nr ? nr : 1, sizeof(*t->evs));
	if (!t->evs)
		return -ENOMEM;
	t->nr_evs = nr;
	t->sort_col = -1;
	t->show_comm = 1;
	for (size_t i = 0; i < nr; i++) {
		const struct pp_evspec *sp = evs[i].spec;
		struct top_ev *te = &t->evs[i];

		if (o->nr_events && !sp)
			continue;
		if (sp && sp->key[0]) {
			te->key = pp_evsel__field(&evs[i], sp->key);
			if (!te->key)
				return pp_analyzer__err("top", -EINVAL, "%s has no field '%s' (%s)", evs[i].name,
					sp->key, pp_evsel__fields(&evs[i], fl, sizeof(fl)));
			te->has_key = 1;
			te->str_key = !!(te->key->flags & TEP_FIELD_IS_STRING);
			te->signed_key = !te->str_key && pp_evsel__field_signed(te->key);
			t->any_str_key |= te->str_key;
			t->show_comm = 0;
		}
		if (sp && sp->comm[0]) {
			te->comm = pp_evsel__field(&evs[i], sp->comm);
			if (!te->comm)
				return pp_analyzer__err("top", -EINVAL, "%s has no field '%s' (%s)", evs[i].name,
					sp->comm, pp_evsel__fields(&evs[i], fl, sizeof(fl)));
			t->show_comm = 1;
		}
		if (!sp || (!sp->nr_top_by && !sp->nr_top_add)) {
			if (top_add_col(t, (int)i, evs[i].name, NULL, NULL, 0))
				return -E2BIG;
			continue;
		}
		for (int k = 0; k < sp->nr_top_by + sp->nr_top_add; k++) {
			int by = k < sp->nr_top_by;
			const char *fn = by ? sp->top_by[k] : sp->top_add[k - sp->nr_top_by];
			struct tep_format_field *f = pp_evsel__field(&evs[i], fn);

			if (!f)
				return pp_analyzer__err("top", -EINVAL, "%s has no field '%s' (%s)", evs[i].name,
					fn, pp_evsel__fields(&evs[i], fl, sizeof(fl)));
			if (by && t->sort_col < 0)
				t->sort_col = t->nr_cols;
			if (top_add_col(t, (int)i, evs[i].name, fn, f, by))
				return -E2BIG;
		}
	}
	if (!t->nr_cols)
		return pp_analyzer__err("top", -EINVAL, "no events to count");
	if (t->sort_col < 0)
		t->sort_col = 0;
	return 0;
}

/* FNV-1a: string keys are hashed into the numeric key, then compared. */
static uint64_t str_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 0x100000001b3ull;
	return h;
}

static struct top_row *top_row(struct top *t, uint64_t key, const char *skey, size_t *idx)
{
	size_t mask, i;

	if ((t->nr_rows + 1) * 2 > t->hash_cap) {
		size_t ncap = t->hash_cap ? t->hash_cap * 2 : 1024;
		int64_t *h = calloc(ncap, sizeof(*h));

		if (!h)
			return NULL;
		free(t->hash);
		t->hash = h;
		t->hash_cap = ncap;
		for (size_t r = 0; r < t->nr_rows; r++) {
			for (i = (t->rows[r].key * 0x9e3779b97f4a7c15ull >> 17) & (ncap - 1); h[i];
			     i = (i + 1) & (ncap - 1))
				;
			h[i] = (int64_t)r + 1;
		}
	}
	mask = t->hash_cap - 1;
	for (i = (key * 0x9e3779b97f4a7c15ull >> 17) & mask; t->hash[i]; i = (i + 1) & mask) {
		size_t r = (size_t)t->hash[i] - 1;

		if (t->rows[r].key == key && t->rows[r].is_str == !!skey &&
		    (!skey || !strcmp(t->rows[r].skey, skey))) {
			*idx = r;
			return &t->rows[r];
		}
	}
	if (t->nr_rows == t->cap_rows) {
		size_t rcap = t->cap_rows, vcap = t->cap_rows;	/* vals: nr_cols a row */

		if (pp_grow_from((void **)&t->rows, &rcap, t->nr_rows + 1, sizeof(*t->rows), 256) ||
		    pp_grow_from((void **)&t->vals, &vcap, t->nr_rows + 1,
				 (size_t)t->nr_cols * sizeof(*t->vals), 256))
			return NULL;
		t->cap_rows = rcap;
	}
	*idx = t->nr_rows;
	t->hash[i] = (int64_t)t->nr_rows + 1;
	memset(&t->rows[*idx], 0, sizeof(t->rows[0]));
	t->rows[*idx].key = key;
	if (skey) {
		t->rows[*idx].is_str = 1;
		snprintf(t->rows[*idx].skey, sizeof(t->rows[*idx].skey), "%s", skey);
	}
	memset(&t->vals[*idx * (size_t)t->nr_cols], 0, (size_t)t->nr_cols * sizeof(uint64_t));
	t->nr_rows++;
	return &t->rows[*idx];
}

static void top_sample(struct pp_session *s, const struct pp_event *e)
{
	struct top *t = pp_session__priv(s);
	int ev = e->evsel->idx;
	struct top_ev *te;
	struct top_row *row;
	uint64_t key = e->pid;
	char skey[TOP_SKEY_LEN];
	size_t idx;

	if ((size_t)ev >= t->nr_evs)
		return;
	te = &t->evs[ev];
	if (te->str_key) {
		if (pp_event__str(e, te->key, skey, sizeof(skey)))
			return;
		key = str_hash(skey);
	} else if (te->has_key && pp_event__num(e, te->key, &key)) {
		return;
	}
	row = top_row(t, key, te->str_key ? skey : NULL, &idx);
	if (!row)
		return;
	row->is_signed = te->signed_key;
	if (te->comm)
		pp_event__str(e, te->comm, row->comm, sizeof(row->comm));
	else if (!row->comm[0] && !te->has_key)
		snprintf(row->comm, sizeof(row->comm), "%s", pp_session__comm(s, e->tid));
	for (int c = 0; c < t->nr_cols; c++) {
		const struct top_col *col = &t->cols[c];
		uint64_t v;

		if (col->evsel != ev)
			continue;
		if (!col->field)
			t->vals[idx * (size_t)t->nr_cols + (size_t)c]++;
		else if (!pp_event__num(e, col->field, &v))
			t->vals[idx * (size_t)t->nr_cols + (size_t)c] += v;
	}
}

static struct top *sort_ctx;

static int top_cmp(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int nc = sort_ctx->nr_cols, sc = sort_ctx->sort_col;
	uint64_t vx = sort_ctx->vals[x * (size_t)nc + (size_t)sc];
	uint64_t vy = sort_ctx->vals[y * (size_t)nc + (size_t)sc];
	const struct top_row *rx = &sort_ctx->rows[x], *ry = &sort_ctx->rows[y];

	if (vx != vy) {
		if (sort_ctx->cols[sc].is_signed)
			return (int64_t)vx < (int64_t)vy ? 1 : -1;
		return vx < vy ? 1 : -1;
	}
	if (rx->is_str || ry->is_str)
		return strcmp(rx->skey, ry->skey);
	if (rx->is_signed && ry->is_signed)
		return (int64_t)rx->key < (int64_t)ry->key ? -1 : (int64_t)rx->key > (int64_t)ry->key;
	return rx->key < ry->key ? -1 : rx->key > ry->key;
}

static void top_print(struct pp_session *s, uint64_t now)
{
	struct top *t = pp_session__priv(s);
	struct pp_out *o = pp_session__out(s);
	int json = pp_session__opts(s)->json;
	char tbuf[32];
	size_t *order = realloc(t->order, (t->nr_rows ? t->nr_rows : 1) * sizeof(*order));

	if (!order)
		return;
	t->order = order;
	for (size_t i = 0; i < t->nr_rows; i++)
		order[i] = i;
	sort_ctx = t;
	qsort(order, t->nr_rows, sizeof(*order), top_cmp);
	pp_session__format_time(s, now, tbuf);
	if (!json) {
		pp_out__printf(o, t->any_str_key ? "%s\n%-16s" : "%s\n%12s", tbuf, "KEY");
		if (t->show_comm)
			pp_out__printf(o, " %-16s", "COMM");
		for (int c = 0; c < t->nr_cols; c++)
			pp_out__printf(o, " %14s", t->cols[c].name);
		pp_out__putc(o, '\n');
	}
	for (size_t i = 0; i < t->nr_rows; i++) {
		size_t r = order[i];
		const uint64_t *v = &t->vals[r * (size_t)t->nr_cols];

		if (json) {
			pp_json__begin(s, "row", now);
			pp_out__puts(o, ",\"key\":");
			if (t->rows[r].is_str)
				pp_out__json_str(o, t->rows[r].skey);
			else if (t->rows[r].is_signed)
				pp_out__i64(o, (int64_t)t->rows[r].key);
			else
				pp_out__u64(o, t->rows[r].key);
			if (t->show_comm) {
				pp_out__puts(o, ",\"comm\":");
				pp_out__json_str(o, t->rows[r].comm);
			}
			for (int c = 0; c < t->nr_cols; c++) {
				pp_out__putc(o, ',');
				pp_out__json_str(o, t->cols[c].name);
				pp_out__putc(o, ':');
				if (t->cols[c].is_signed)
					pp_out__i64(o, (int64_t)v[c]);
				else
					pp_out__u64(o, v[c]);
			}
			pp_out__puts(o, "}\n");
			continue;
		}
		if (t->rows[r].is_str)
			pp_out__printf(o, "%-16s", t->rows[r].skey);
		else if (t->rows[r].is_signed)
			pp_out__printf(o, t->any_str_key ? "%-16lld" : "%12lld",
				       (long long)t->rows[r].key);
		else
			pp_out__printf(o, t->any_str_key ? "%-16llu" : "%12llu",
				       (unsigned long long)t->rows[r].key);
		if (t->show_comm)
			pp_out__printf(o, " %-16s", t->rows[r].comm);
		for (int c = 0; c < t->nr_cols; c++) {
			if (t->cols[c].is_signed)
				pp_out__printf(o, " %14lld", (long long)v[c]);
			else
				pp_out__printf(o, " %14llu", (unsigned long long)v[c]);
		}
		pp_out__putc(o, '\n');
	}
	/* Next interval starts empty. */
	t->nr_rows = 0;
	if (t->hash)
		memset(t->hash, 0, t->hash_cap * sizeof(*t->hash));
}

static void top_report(struct pp_session *s)
{
	if (!pp_session__opts(s)->interval_ns)
		top_print(s, pp_session__stats(s)->last_ts);
}

static void top_deinit(struct pp_session *s)
{
	struct top *t = pp_session__priv(s);

	if (!t)
		return;
	free(t->evs);
	free(t->rows);
	free(t->vals);
	free(t->hash);
	free(t->order);
	free(t);
}

const struct pp_analyzer pp_analyzer_top = {
	.no_symbols = 1,
	.name = "top",
	.desc = "counters split by key= and summed by top-by=/top-add=, sorted",
	.help = "pp-analyze top -e 'sys:name//key=F/top-by=F/top-add=F/comm=F/' [-i MS] [--json] [FILE]\n"
		"  key= defaults to the pid; without top-by the rows count calls\n"
		"  example: pp-analyze top -e 'kmem:kmalloc//key=call_site/top-by=bytes_alloc/'\n",
	.opts = PP_OPT_EVENTS | PP_OPT_INTERVAL | PP_OPT_JSON,
	.init = top_init,
	.sample = top_sample,
	.interval = top_print,
	.report = top_report,
	.deinit = top_deinit,
};
