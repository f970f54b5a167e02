// SPDX-License-Identifier: MIT
/*
 * DATA encoding 3: ftrace ring pages into perf records (include/pp/ftpages.h,
 * spec/pp-trace-format.md 5.8). The pages come from a file that may be
 * damaged: pp walks each page itself, forward only, every size checked
 * against the page's commit (libtraceevent's kbuffer trusts the lengths).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pp/ftpages.h"
#include "pp/records.h"
#include "format-internal.h"

#define COMMIT_MASK	((1u << 27) - 1)
#define MISSED_EVENTS	(1u << 31)
#define MISSED_STORED	(1u << 30)
/*
 * A writer maps the ring's clock to its file's with an offset it measures
 * again from time to time (pp-record: every 250 ms, per chunk): a new
 * measure a few tens of ns lower puts an event right after a chunk's start
 * before the last one of its CPU's chunk before. A time at most this far
 * behind its CPU's last one is taken as that one; further behind, it is
 * left as it is (a reader that went back to an earlier chunk).
 */
#define CLOCK_STEP_NS	10000
#define MAX_CPUS	65536		/* CPUs whose last time is kept */

struct pp_ftpages {
	uint32_t cpu;
	uint32_t page_size;
	int long_size, big;
	int16_t *by_type;		/* common_type -> types index + 1 */
	struct pp_ftpage_type *types;
	int nr_types;
	uint64_t last_ts;
	int64_t clock_offset;		/* added to the pages' times */
	uint64_t *cpu_ts;		/* per CPU: its last event's time (CLOCK_STEP_NS) */
	uint32_t nr_cpu_ts;
	enum pp_ftpage_damage damage;	/* of the last decode */
	uint64_t rec[8192];		/* the record being made (64 KiB, aligned) */
};

struct pp_ftpages *pp_ftpages__new(void)
{
	struct pp_ftpages *d = calloc(1, sizeof(*d));

	if (!d || !(d->by_type = calloc(65536, sizeof(int16_t)))) {
		free(d);
		return NULL;
	}
	return d;
}

void pp_ftpages__free(struct pp_ftpages *d)
{
	if (!d)
		return;
	free(d->by_type);
	free(d->cpu_ts);
	free(d->types);
	free(d);
}

int pp_ftpages__set(struct pp_ftpages *d, uint32_t cpu, uint32_t page_size, int long_size,
		    int big_endian, const struct pp_ftpage_type *t, int nr)
{
	struct pp_ftpage_type *n;
	int i;

	if ((long_size != 4 && long_size != 8) || page_size < 64 ||
	    page_size > PP_FTPAGE_MAX_PAGE || nr < 0 || nr > INT16_MAX)
		return -EINVAL;
	for (i = 0; i < d->nr_types; i++)
		d->by_type[d->types[i].type] = 0;
	d->nr_types = 0;
	for (i = 0; i < nr; i++) {
		if (d->by_type[t[i].type] || (t[i].sample_type & ~(uint64_t)PP_FTPAGE_SAMPLE_TYPES)) {
			for (int j = 0; j < i; j++)
				d->by_type[t[j].type] = 0;
			return -EINVAL;
		}
		d->by_type[t[i].type] = (int16_t)(i + 1);
	}
	n = realloc(d->types, (size_t)(nr ? nr : 1) * sizeof(*n));
	if (!n) {
		for (i = 0; i < nr; i++)
			d->by_type[t[i].type] = 0;
		return -ENOMEM;
	}
	d->types = n;
	memcpy(n, t, (size_t)nr * sizeof(*n));
	d->nr_types = nr;
	d->page_size = page_size;
	d->cpu = cpu;
	if (cpu >= d->nr_cpu_ts && cpu < MAX_CPUS) {	/* without it, times stay as stored */
		uint32_t want = cpu + 1 > 2 * d->nr_cpu_ts ? cpu + 1 : 2 * d->nr_cpu_ts;
		uint64_t *v = realloc(d->cpu_ts, want * sizeof(*v));

		if (v) {
			memset(v + d->nr_cpu_ts, 0, (want - d->nr_cpu_ts) * sizeof(*v));
			d->cpu_ts = v;
			d->nr_cpu_ts = want;
		}
	}
	d->long_size = long_size;
	d->big = big_endian;
	return 0;
}

void pp_ftpages__set_clock(struct pp_ftpages *d, int64_t offset)
{
	d->clock_offset = offset;
}

void pp_ftpages__lost(struct pp_ftpages *d, uint64_t lost, uint64_t ts, pp_ftpage_emit_fn emit,
		      void *ctx)
{
	const struct pp_ftpage_type *e = &d->types[0];

	if (!d->nr_types)
		return;
	pp_sample__lost_record(d->rec, e->sample_type, e->id, lost, ts, d->cpu);
	emit(ctx, (struct perf_event_header *)d->rec, -1, ts);
}

static uint64_t rd_long(const struct pp_ftpages *d, const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < d->long_size; i++)
		v |= (uint64_t)p[d->big ? d->long_size - 1 - i : i] << (8 * i);
	return v;
}

static uint32_t rd32(const struct pp_ftpages *d, const uint8_t *p)
{
	return d->big ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
		      : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static uint64_t rd64(const struct pp_ftpages *d, const uint8_t *p)
{
	uint64_t a = rd32(d, p), b = rd32(d, p + 4);

	return d->big ? a << 32 | b : b << 32 | a;
}

/* Ring event header types (type_len) that are not data of that many words. */
#define TL_LENGTH	0	/* data of the length the next u32 gives */
#define TL_PADDING	29
#define TL_EXTEND	30
#define TL_STAMP	31
#define TS_SHIFT	27
#define TS_MSB		(0xf8ull << 56)	/* an absolute stamp has not these bits */

/*
 * Where a walk of one page's events stands: @pos, the offset of the next
 * event header from the start of the data (after the page header), and
 * @ts, the time so far.
 */
struct page_walk {
	const uint8_t *data;
	uint32_t size;			/* commit: the data bytes */
	uint32_t pos;
	uint64_t ts;
};

/*
 * The page's next data event, walking forward only: every header, length
 * word and event is checked to lie inside the commit, and every step moves
 * on by at least 4 bytes, padding and time stamps included, so no length,
 * however crafted, makes a walk go back or stand still (libtraceevent's
 * kbuffer skips padding inside its own loop and follows a padding whose
 * length points back at itself for ever). Times as the kernel's writer makes
 * them and kbuffer reads them: a padding's delta counts (a discarded event
 * keeps its delta), an absolute stamp keeps the top bits of the time.
 * Return: 1 with the event's data at *@ev, its size in *@len; 0 at the
 * end; -1 if the page is damaged.
 */
static int page_walk_next(const struct pp_ftpages *d, struct page_walk *w, const uint8_t **ev,
			  uint32_t *len)
{
	while (w->pos < w->size) {
		uint32_t word, tl, delta, arg = 0, left = w->size - w->pos;
		uint64_t n;
		const uint8_t *p = w->data + w->pos;

		if (left < 4)
			return -1;
		word = rd32(d, p);
		tl = d->big ? word >> 27 : word & 31;
		delta = d->big ? word & ((1u << TS_SHIFT) - 1) : word >> 5;
		if (tl == TL_LENGTH || tl >= TL_PADDING) {
			if (left < 8)
				return -1;
			arg = rd32(d, p + 4);
		}
		switch (tl) {
		case TL_PADDING:	/* arg bytes after its header; null padding too */
			n = 4 + (uint64_t)arg;
			if (n > left)
				return -1;
			w->ts += delta;
			w->pos += (uint32_t)n;
			continue;
		case TL_EXTEND:
			w->ts += ((uint64_t)arg << TS_SHIFT) + delta;
			w->pos += 8;
			continue;
		case TL_STAMP:
			w->ts = (((uint64_t)arg << TS_SHIFT) + delta) | (w->ts & TS_MSB);
			w->pos += 8;
			continue;
		case TL_LENGTH:		/* arg counts itself */
			if (arg < 4)
				return -1;
			n = ((uint64_t)arg - 4 + 3) & ~(uint64_t)3;
			if (n > left - 8)
				return -1;
			*ev = p + 8;
			w->pos += 8 + (uint32_t)n;
			break;
		default:
			n = (uint64_t)tl * 4;
			if (n > left - 4)
				return -1;
			*ev = p + 4;
			w->pos += 4 + (uint32_t)n;
			break;
		}
		/* common_type and common_pid: a data event has them */
		if (n < 8)
			return -1;
		w->ts += delta;
		*len = (uint32_t)n;
		return 1;
	}
	return 0;
}

static void page_walk_init(const struct pp_ftpages *d, struct page_walk *w, const uint8_t *page,
			   uint32_t size)
{
	w->data = page + 8 + d->long_size;
	w->size = size;
	w->pos = 0;
	w->ts = rd64(d, page);
}

/* The recorded type of the event at @data (its common_type), NULL when none is. */
static const struct pp_ftpage_type *type_of(const struct pp_ftpages *d, const uint8_t *data)
{
	uint16_t type;
	int slot;

	memcpy(&type, data, 2);
	slot = d->by_type[type];
	return slot ? &d->types[slot - 1] : NULL;
}

/*
 * The whole page, walked once before any record is made: its structure,
 * then whether an event of a recorded type has a size its format does not
 * allow (the payload of another event with its common_type rewritten).
 * Return 0, PP_FTD_PAGE or PP_FTD_TYPES.
 */
static int page_check(const struct pp_ftpages *d, const void *page, uint32_t size)
{
	const uint8_t *data;
	struct page_walk w;
	uint32_t len;
	int ret, bad_size = 0;

	page_walk_init(d, &w, page, size);
	while ((ret = page_walk_next(d, &w, &data, &len)) > 0) {
		const struct pp_ftpage_type *e = type_of(d, data);

		if (e && (len < e->min_size || (e->max_size && len > e->max_size)))
			bad_size = 1;
	}
	if (ret < 0)
		return PP_FTD_PAGE;
	return bad_size ? PP_FTD_TYPES : 0;
}

int pp_ftpages__page(struct pp_ftpages *d, const void *page, size_t len, pp_ftpage_pid_fn pid_of,
		     void *pid_ctx, pp_ftpage_emit_fn emit, void *ctx)
{
	struct perf_event_header *h = (void *)d->rec;
	size_t hdr = 8 + (size_t)d->long_size, data_end, need;
	const uint8_t *data;
	struct page_walk w;
	uint64_t commit, t;
	uint32_t size;
	int n = 0, ret;

	if (!d->long_size || len < hdr)
		return -EINVAL;
	commit = rd_long(d, (const uint8_t *)page + 8);
	data_end = hdr + (commit & COMMIT_MASK);
	need = data_end + ((commit & MISSED_STORED) ? (size_t)d->long_size : 0);
	if (data_end > d->page_size || need > len || need > d->page_size)
		return -EINVAL;
	/* the whole page first: a damaged one gives no record at all */
	ret = page_check(d, page, (uint32_t)(commit & COMMIT_MASK));
	if (ret) {
		d->damage = ret;
		return -EBADMSG;
	}
	if ((commit & MISSED_EVENTS) && (commit & MISSED_STORED) &&
	    rd_long(d, (const uint8_t *)page + data_end) > PP_FTPAGE_MAX_DROPPED) {
		d->damage = PP_FTD_DROPPED;
		return -EBADMSG;
	}
	if (commit & MISSED_EVENTS) {
		/* as kbuffer tells it: an int, 1 when not stored or not positive */
		int missed = (commit & MISSED_STORED) ? (int)rd_long(d, (const uint8_t *)page + data_end)
						       : -1;

		pp_ftpages__lost(d, missed > 0 ? (uint64_t)missed : 1,
				 rd64(d, page) + (uint64_t)d->clock_offset, emit, ctx);
	}
	page_walk_init(d, &w, page, (uint32_t)(commit & COMMIT_MASK));
	while (page_walk_next(d, &w, &data, &size) > 0) {
		const struct pp_ftpage_type *e = type_of(d, data);
		uint8_t *p = (uint8_t *)(h + 1);
		int32_t tid;

		if (!e)
			continue;
		memcpy(&tid, data + 4, 4);	/* common_pid */
		t = w.ts + (uint64_t)d->clock_offset;	/* mod 2^64, as the spec says */
		if (d->cpu < d->nr_cpu_ts) {
			uint64_t *last = &d->cpu_ts[d->cpu];

			if (t < *last && *last - t <= CLOCK_STEP_NS)
				t = *last;
			*last = t;
		}
		d->last_ts = t;
		if (e->sample_type & PERF_SAMPLE_IDENTIFIER)
			p = pp_sample_put64(p, e->id);
		if (e->sample_type & PERF_SAMPLE_IP)
			p = pp_sample_put64(p, 0);
		p = pp_sample_put_ident(p, e->sample_type,
			      tid <= 0 ? (uint32_t)tid :
			      pid_of ? pid_of(pid_ctx, tid) : PP_FTPAGE_PID_UNKNOWN,
			      (uint32_t)tid, t, e->id, d->cpu);
		if (e->sample_type & PERF_SAMPLE_PERIOD)
			p = pp_sample_put64(p, 1);
		if (e->sample_type & PERF_SAMPLE_RAW) {
			/* u32 size, then the data, padded as perf pads it to 8 */
			uint32_t raw = ((size + 4 + 7) & ~7u) - 4;

			if ((size_t)(p - (uint8_t *)d->rec) + 4 + raw > sizeof(d->rec) - 8)
				continue;
			memcpy(p, &raw, 4);
			memcpy(p + 4, data, size);
			memset(p + 4 + size, 0, raw - size);
			p += 4 + raw;
		}
		h->type = PERF_RECORD_SAMPLE;
		h->misc = PERF_RECORD_MISC_KERNEL;
		h->size = (uint16_t)(p - (uint8_t *)d->rec);
		emit(ctx, h, e->tag, t);
		n++;
	}
	return n;
}

size_t pp_ftpages__put_header(uint8_t *out, const struct pp_ftpage_chunk *c,
			      const struct pp_ftpage_type *t)
{
	uint8_t *p = out;

	pp_put_le32(p, c->cpu);
	pp_put_le32(p + 4, c->page_size);
	pp_put_le16(p + 8, c->nr_types);
	p[10] = c->long_size;
	p[11] = c->big_endian;
	pp_put_le32(p + 12, c->nr_pages);
	pp_put_le64(p + 16, c->dropped);
	pp_put_le64(p + 24, (uint64_t)c->clock_offset);
	p += PP_FTPAGE_HDR_SIZE;
	for (int i = 0; i < c->nr_types; i++, p += PP_FTPAGE_TYPE_SIZE) {
		pp_put_le16(p, t[i].type);
		pp_put_le16(p + 2, 0);
		pp_put_le32(p + 4, 0);
		pp_put_le64(p + 8, t[i].id);
		pp_put_le64(p + 16, t[i].sample_type);
	}
	return (size_t)(p - out);
}

struct out_buf {
	uint8_t **out;
	size_t *cap, len, max;
	int err;
};

static void out_emit(void *ctx, const struct perf_event_header *h, int tag, uint64_t ts)
{
	struct out_buf *o = ctx;

	(void)tag;
	(void)ts;
	if (o->err)
		return;
	if (o->len + h->size > o->max) {
		o->err = -EFBIG;
		return;
	}
	if (o->len + h->size > *o->cap) {
		size_t ncap = *o->cap ? *o->cap : 65536;
		uint8_t *n;

		while (ncap < o->len + h->size)
			ncap *= 2;
		if (ncap > o->max)
			ncap = o->max;
		n = realloc(*o->out, ncap);
		if (!n) {
			o->err = -ENOMEM;
			return;
		}
		*o->out = n;
		*o->cap = ncap;
	}
	memcpy(*o->out + o->len, h, h->size);
	o->len += h->size;
}

static int id_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Whether two types of a table claim one sample id (one would be read as the other). */
static int ids_repeat(const struct pp_ftpage_type *t, int nr)
{
	uint64_t *ids;
	int rep = 0;

	if (nr < 2)
		return 0;
	ids = malloc((size_t)nr * sizeof(*ids));
	if (!ids)
		return 0;
	for (int i = 0; i < nr; i++)
		ids[i] = t[i].id;
	qsort(ids, (size_t)nr, sizeof(*ids), id_cmp);
	for (int i = 1; i < nr && !rep; i++)
		rep = ids[i] == ids[i - 1];
	free(ids);
	return rep;
}

enum pp_ftpage_damage pp_ftpages__damage(const struct pp_ftpages *d)
{
	return d->damage;
}

int pp_ftpages__decode(struct pp_ftpages *d, const uint8_t *in, size_t len, uint8_t **out,
		       size_t *cap, size_t *out_len, size_t max, uint64_t end_ts,
		       pp_ftpage_check_fn check, void *check_ctx)
{
	struct out_buf o = { .out = out, .cap = cap, .max = max };
	struct pp_ftpage_type *t = NULL;
	struct pp_ftpage_chunk c;
	size_t pos;
	int ret;

	*out_len = 0;
	d->damage = PP_FTD_SIZES;
	if (len < PP_FTPAGE_HDR_SIZE)
		return -EBADMSG;
	c.cpu = pp_get_le32(in);
	c.page_size = pp_get_le32(in + 4);
	c.nr_types = pp_get_le16(in + 8);
	c.long_size = in[10];
	c.big_endian = in[11];
	c.nr_pages = pp_get_le32(in + 12);
	c.dropped = pp_get_le64(in + 16);
	c.clock_offset = (int64_t)pp_get_le64(in + 24);
	pos = PP_FTPAGE_HDR_SIZE;
	if (c.big_endian > 1 || c.nr_types > INT16_MAX ||
	    (len - pos) / PP_FTPAGE_TYPE_SIZE < c.nr_types)
		return -EBADMSG;
	t = malloc(((size_t)c.nr_types + 1) * sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (int i = 0; i < c.nr_types; i++, pos += PP_FTPAGE_TYPE_SIZE) {
		t[i].type = pp_get_le16(in + pos);
		t[i].id = pp_get_le64(in + pos + 8);
		t[i].sample_type = pp_get_le64(in + pos + 16);
		t[i].tag = i;
		t[i].min_size = t[i].max_size = 0;
		if (check && check(check_ctx, &t[i])) {
			free(t);
			d->damage = PP_FTD_TYPES;
			return -EBADMSG;
		}
	}
	ret = pp_ftpages__set(d, c.cpu, c.page_size, c.long_size, c.big_endian, t, c.nr_types);
	if (!ret && ids_repeat(t, c.nr_types))
		ret = -EINVAL;
	free(t);
	if (ret == -EINVAL && (c.long_size == 4 || c.long_size == 8) && c.page_size >= 64 &&
	    c.page_size <= PP_FTPAGE_MAX_PAGE)
		d->damage = PP_FTD_TYPES;	/* a type listed twice, or a sample bit ftrace has not */
	if (ret)
		return ret == -ENOMEM ? ret : -EBADMSG;
	/* drops no ring could have, or of no event: nothing to tell them as */
	if (c.dropped > PP_FTPAGE_MAX_DROPPED || (c.dropped && !c.nr_types)) {
		d->damage = PP_FTD_DROPPED;
		return -EBADMSG;
	}
	d->last_ts = 0;
	d->clock_offset = c.clock_offset;
	for (uint32_t i = 0; i < c.nr_pages; i++) {
		uint32_t plen;

		if (len - pos < PP_FTPAGE_PAGE_HDR)
			return -EBADMSG;
		plen = pp_get_le32(in + pos);
		pos += PP_FTPAGE_PAGE_HDR;
		if (plen > len - pos || plen > c.page_size)
			return -EBADMSG;
		ret = pp_ftpages__page(d, in + pos, plen, NULL, NULL, out_emit, &o);
		if (ret == -EINVAL)
			d->damage = PP_FTD_SIZES;
		if (ret < 0)
			return -EBADMSG;
		if (o.err)
			return o.err;
		pos += ((size_t)plen + 7) & ~(size_t)7;
		if (pos > len)
			return -EBADMSG;
	}
	if (pos != len)
		return -EBADMSG;
	if (c.dropped)	/* a chunk of no event tells its drops at its end */
		pp_ftpages__lost(d, c.dropped, d->last_ts ? d->last_ts : end_ts, out_emit, &o);
	if (o.err)
		return o.err;
	*out_len = o.len;
	d->damage = PP_FTD_NONE;
	return 0;
}
