// SPDX-License-Identifier: MIT
/*
 * The flight recorder (pp-record --flight-recorder=TIME): the data chunks
 * the drain hands over are kept in memory, not written, and only those of
 * the last TIME (by their records' times, plus a second of slack) stay; memory is bounded by
 * --flight-size too, the oldest chunks going first. A dump (SIGUSR2, or an
 * event marked `trigger`) at time T writes the records of [T - TIME, T] into
 * a new complete file next to -o (record/rotate.c names it and writes the
 * metadata every file starts with); recording goes on, and the records
 * after T stay for a later dump.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pp/ftpages.h"
#include "pp/io.h"
#include "pp/sample.h"
#include "pp/writer.h"
#include "record.h"

#define FLIGHT_SLACK_NS	1000000000ull

struct fchunk {
	struct pp_chunk_desc d;
	uint8_t *buf;
	size_t len;
};

struct pp_flight {
	uint64_t window_ns;
	size_t max_bytes;
	struct fchunk *v;		/* a ring of chunks, oldest at head */
	size_t cap, head, nr;
	size_t bytes;
	uint64_t newest;		/* the latest record time seen */
	uint64_t evicted_bytes;		/* dropped for --flight-size before their time */
	struct pp_buf lost;		/* LOST items since the start, in every dump */
	uint8_t *tmp;			/* one chunk's records, trimmed to a dump's window */
	size_t tmp_cap;
	struct pp_ftpages *ftp;		/* ftrace pages into records, at first need */
	uint8_t *pages_rec;		/* their records */
	size_t pages_cap;
};

/**
 * pp_flight__new() - a flight recorder keeping @window_ns of records in at
 * most @max_bytes. Return: it, or NULL without memory.
 */
struct pp_flight *pp_flight__new(uint64_t window_ns, size_t max_bytes)
{
	struct pp_flight *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->window_ns = window_ns;
	f->max_bytes = max_bytes;
	pp_buf__init(&f->lost);
	return f;
}

/** pp_flight__free() - free the recorder and what it keeps; accepts NULL. */
void pp_flight__free(struct pp_flight *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nr; i++)
		free(f->v[(f->head + i) % f->cap].buf);
	free(f->v);
	free(f->tmp);
	pp_ftpages__free(f->ftp);
	free(f->pages_rec);
	pp_buf__exit(&f->lost);
	free(f);
}

static void drop_oldest(struct pp_flight *f)
{
	struct fchunk *c = &f->v[f->head];

	f->bytes -= c->len;
	free(c->buf);
	c->buf = NULL;
	f->head = (f->head + 1) % f->cap;
	f->nr--;
}

/**
 * pp_flight__add() - keep a copy of a data chunk; drop what is older than
 * the window before the newest record, and the oldest beyond the size.
 * @f: recorder; @d: its description; @buf, @len: raw perf records.
 * Return: 0 or -ENOMEM (the chunk is not kept).
 */
int pp_flight__add(struct pp_flight *f, const struct pp_chunk_desc *d, const void *buf, size_t len)
{
	struct fchunk *c;

	if (f->nr == f->cap) {
		size_t ncap = f->cap ? f->cap * 2 : 64;
		struct fchunk *nv = malloc(ncap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		for (size_t i = 0; i < f->nr; i++)
			nv[i] = f->v[(f->head + i) % f->cap];
		free(f->v);
		f->v = nv;
		f->cap = ncap;
		f->head = 0;
	}
	c = &f->v[(f->head + f->nr) % f->cap];
	c->buf = malloc(len ? len : 1);
	if (!c->buf)
		return -ENOMEM;
	memcpy(c->buf, buf, len);
	c->len = len;
	c->d = *d;
	f->nr++;
	f->bytes += len;
	if (d->last_ts > f->newest)
		f->newest = d->last_ts;
	/*
	 * A dump's time precedes the newest record by what was drained after
	 * it (one flush, or a backlog of chunks): a second of slack keeps the
	 * start of its window.
	 */
	while (f->nr > 1 && f->v[f->head].d.last_ts + f->window_ns + FLIGHT_SLACK_NS < f->newest)
		drop_oldest(f);
	while (f->nr > 1 && f->bytes > f->max_bytes) {
		f->evicted_bytes += f->v[f->head].len;
		drop_oldest(f);
	}
	return 0;
}

/** pp_flight__lost() - LOST items (their own times inside) for every later dump. */
void pp_flight__lost(struct pp_flight *f, const void *items, size_t len)
{
	pp_buf__append(&f->lost, items, len);
}

/**
 * pp_flight__status() - what is kept: bytes, and the seconds from the
 * oldest kept chunk to the newest record.
 */
void pp_flight__status(const struct pp_flight *f, uint64_t *bytes, double *secs)
{
	*bytes = f->bytes;
	*secs = f->nr ? (double)(f->newest - f->v[f->head].d.first_ts) / 1e9 : 0.0;
}

/*
 * The records of chunk @c whose time lies in [@from, @to], into f->tmp.
 * Records without a time (none of pp's events) are kept.
 * Return: their bytes; *@nr, *@first, *@last: their count and times.
 */
static size_t trim(struct pp_flight *f, const struct fchunk *c, uint64_t from, uint64_t to,
		   uint64_t (*sample_type_of)(uint64_t id, void *ctx), void *ctx, uint64_t *nr,
		   uint64_t *first, uint64_t *last)
{
	size_t off = 0, n = 0;

	*nr = *first = *last = 0;
	if (f->tmp_cap < c->len) {
		uint8_t *nb = realloc(f->tmp, c->len);

		if (!nb)
			return 0;
		f->tmp = nb;
		f->tmp_cap = c->len;
	}
	while (off + sizeof(struct perf_event_header) <= c->len) {
		const struct perf_event_header *h = (const void *)(c->buf + off);
		uint64_t st, t;

		if (h->size < sizeof(*h) || off + h->size > c->len)
			break;
		st = sample_type_of(pp_sample__id(h, h->size), ctx);
		if (st && !pp_sample__time(st, h, h->size, &t)) {
			if (t < from || t > to) {
				off += h->size;
				continue;
			}
			if (!*first)
				*first = t;
			*last = t;
		}
		memcpy(f->tmp + n, h, h->size);
		n += h->size;
		(*nr)++;
		off += h->size;
	}
	return n;
}

/**
 * pp_flight__dump() - write the records of [@t_end - window, @t_end] into a
 * new file (pp_rotate__start()), with the symbols they hit and the losses.
 * @f: recorder; @t_end: the dump's time (CLOCK_MONOTONIC ns); @rt: output
 * files; @now: CLOCK_MONOTONIC ns; @sample_type_of, @ctx: an event id's
 * sample_type; @name, @namelen: receive the file's name; @nr_records:
 * receives the records written; @err, @errlen: message.
 * Return: 0 or -errno with @err set (the file may be left incomplete).
 */
int pp_flight__dump(struct pp_flight *f, uint64_t t_end, struct pp_rotate *rt, uint64_t now,
		    uint64_t (*sample_type_of)(uint64_t id, void *ctx), void *ctx, char *name,
		    size_t namelen, uint64_t *nr_records, char *err, size_t errlen)
{
	uint64_t from = t_end > f->window_ns ? t_end - f->window_ns : 0;
	struct pp_syms *syms;
	struct pp_writer *w;
	struct pp_io *io;
	int r;

	*nr_records = 0;
	err[0] = '\0';
	r = pp_rotate__start(rt, now, &io, &w, &syms, name, namelen, err, errlen);
	for (size_t i = 0; !r && i < f->nr; i++) {
		const struct fchunk *c = &f->v[(f->head + i) % f->cap];
		struct pp_chunk_desc d = c->d;
		size_t n;

		if (c->d.last_ts < from || c->d.first_ts > t_end)
			continue;
		if (c->d.encoding == PP_DATA_FTRACE) {
			/* ftrace pages: their records, trimmed as any */
			struct fchunk rc = { .d = c->d };

			if (!f->ftp && !(f->ftp = pp_ftpages__new())) {
				r = -ENOMEM;
				break;
			}
			r = pp_ftpages__decode(f->ftp, c->buf, c->len, &f->pages_rec,
					       &f->pages_cap, &rc.len, PP_CHUNK_MAX_RAW, c->d.last_ts, NULL, NULL);
			if (r)
				break;
			rc.buf = f->pages_rec;
			d.encoding = PP_DATA_PLAIN;
			d.encoded = 0;
			n = trim(f, &rc, from, t_end, sample_type_of, ctx, &d.nr_records,
				 &d.first_ts, &d.last_ts);
		} else {
			n = trim(f, c, from, t_end, sample_type_of, ctx, &d.nr_records,
				 &d.first_ts, &d.last_ts);
		}
		if (!n)
			continue;
		r = pp_writer__append_chunk(w, &d, f->tmp, n);
		if (r)
			break;
		*nr_records += d.nr_records;
		pp_syms__scan(syms, f->tmp, n, sample_type_of, ctx);
		r = pp_rotate__write_syms(w, syms);
	}
	if (!r && f->lost.len) {
		struct pp_chunk_desc d = { .type = PP_CHUNK_LOST, .stream = PP_STREAM_META };

		r = pp_writer__append_chunk(w, &d, f->lost.data, f->lost.len);
	}
	if (r && !err[0])
		snprintf(err, errlen, "cannot write %s: %s", name, strerror(-r));
	{
		int e = pp_writer__close(w);

		if (!r && e) {
			r = e;
			snprintf(err, errlen, "cannot write %s: %s", name, strerror(-e));
		}
	}
	pp_io__free(io);
	pp_syms__free(syms);
	return r;
}
