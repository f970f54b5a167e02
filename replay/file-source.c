// SPDX-License-Identifier: MIT
/*
 * The file source of a replay session: the chunk list built from the
 * index (or a scan), one cursor per stream that loads its chunks in turn,
 * metadata delivered up to the time being merged, the claims a DATA chunk
 * makes checked against the file's metadata (spec/pp-trace-format.md 5.8),
 * and the k-way merge of the streams by timestamp.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <traceevent/event-parse.h>
#include "pp/ftpages.h"
#include "pp/meta.h"
#include "pp/sample.h"
#include "replay-internal.h"
#include "mem.h"

/* ---- the file source ---- */

/*
 * A chunk may be read more than once (metadata pass, then its stream): its
 * damage is reported once. Messages are remembered by hash.
 */
static int warned_before(struct pp_session *s, const char *msg)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (*msg)
		h = (h ^ (uint8_t)*msg++) * 0x100000001b3ull;
	h |= 1;
	for (size_t i = 0; i < s->nr_warned; i++) {
		if (s->warned[i] == h)
			return 1;
	}
	if (s->nr_warned < sizeof(s->warned) / sizeof(s->warned[0]))
		s->warned[s->nr_warned++] = h;
	return 0;
}

static void reader_print(int level, const char *msg, void *ctx)
{
	struct pp_session *s = ctx;

	if (level == 0 && warned_before(s, msg))
		return;
	if (level == 0) {
		s->reader_warnings++;
		/*
		 * A torn last chunk is how a killed recorder's file ends: said
		 * in one line with where it ends (warn_unclosed()), at the end.
		 */
		if (!strncmp(msg, "file truncated", 14) && !s->torn[0]) {
			snprintf(s->torn, sizeof(s->torn), "%s", msg);
			return;
		}
		pp_session__warn(s, "%s", msg);
	}
	else if (s->opts.verbose >= level)
		fprintf(stderr, "pp-analyze: %s\n", msg);
}

static int add_entry(struct pp_session *s, size_t *cap, const struct pp_chunk_header *h, uint64_t off)
{
	struct pp_entry *e;

	if (h->type == PP_CHUNK_INDEX || h->type == PP_CHUNK_FOOTER)
		return 0;
	if (s->nr_entries == *cap) {
		size_t ncap = *cap ? *cap * 2 : 1024;
		struct pp_entry *n = realloc(s->entries, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		s->entries = n;
		*cap = ncap;
	}
	e = &s->entries[s->nr_entries++];
	e->offset = off;
	e->first_ts = h->first_ts;
	e->last_ts = h->last_ts;
	e->stream = h->stream;
	e->type = h->type;
	e->next = -1;
	return 0;
}

/*
 * The stream @id, added when new; @slots (2 x PP_MAX_STREAMS, zeroed) maps
 * ids to stream index + 1, so a file of many streams and chunks costs O(1)
 * a chunk, not a scan of the streams. NULL past PP_MAX_STREAMS or on ENOMEM.
 */
static struct pp_stream *stream_get(struct pp_session *s, uint32_t id, int32_t *slots)
{
	size_t mask = 2 * PP_MAX_STREAMS - 1, i;

	for (i = (id * 2654435761u) & mask; slots[i]; i = (i + 1) & mask) {
		if (s->streams[slots[i] - 1].id == id)
			return &s->streams[slots[i] - 1];
	}
	if (s->nr_streams >= PP_MAX_STREAMS)
		return NULL;
	if (!(s->nr_streams & (s->nr_streams + 1)) || !s->streams) {
		struct pp_stream *n = realloc(s->streams, (s->nr_streams * 2 + 2) * sizeof(*n));

		if (!n)
			return NULL;
		s->streams = n;
	}
	memset(&s->streams[s->nr_streams], 0, sizeof(s->streams[0]));
	s->streams[s->nr_streams].id = id;
	s->streams[s->nr_streams].next_entry = -1;
	slots[i] = (int32_t)s->nr_streams + 1;
	return &s->streams[s->nr_streams++];
}

/*
 * Process metadata chunks that lie before file offset @off. BPF_AGG chunks
 * are the data of a module with .bpf_agg: before it is inited (the file is
 * being opened) the walk stops at the first one, to go on from there in
 * the run.
 */
static void meta_until(struct pp_session *s, uint64_t off)
{
	while (s->meta_next < s->nr_entries && s->entries[s->meta_next].offset < off) {
		const struct pp_entry *e = &s->entries[s->meta_next];
		struct pp_chunk c;

		if (e->type == PP_CHUNK_BPF_AGG && s->a.bpf_agg && !s->running)
			return;
		s->meta_next++;

		if (e->type == PP_CHUNK_DATA || e->type == PP_CHUNK_KSYMS ||
		    e->type == PP_CHUNK_USYMS)
			continue;
		if (pp_reader__read_at(s->reader, e->offset, &c) == 1)
			pp_session__meta_chunk(s, c.hdr->type, c.data, c.size, c.hdr->stream);
	}
}

/*
 * Build the chunk list: from the index of a cleanly closed file, else by
 * scanning (a killed recorder's file), then chain each stream's DATA chunks.
 */
static int build_entries(struct pp_session *s)
{
	const struct pp_index_entry *idx = NULL;
	size_t nr = 0, cap = 0, dropped = 0;
	int32_t *tail, *slots;

	if (pp_reader__footer(s->reader))
		idx = pp_reader__index(s->reader, &nr);
	if (idx) {
		for (size_t i = 0; i < nr; i++) {
			struct pp_chunk_header h = {
				.type = idx[i].type, .stream = idx[i].stream,
				.first_ts = idx[i].first_ts, .last_ts = idx[i].last_ts,
			};

			if (add_entry(s, &cap, &h, idx[i].offset))
				return -ENOMEM;
		}
	} else {
		struct pp_chunk c;
		int ret;

		while ((ret = pp_reader__next(s->reader, &c)) == 1) {
			s->scan_last_seq = c.hdr->seq;
			if (add_entry(s, &cap, c.hdr, c.offset))
				return -ENOMEM;
		}
		if (ret == -EPROTO)
			pp_session__warn(s, "unknown critical chunk: stopping there");
		else if (ret < 0)
			pp_session__warn(s, "read error: %s", strerror(-ret));
	}
	/* Chain the DATA chunks of each stream, in file order. */
	tail = malloc(sizeof(*tail) * PP_MAX_STREAMS);
	slots = calloc(2 * PP_MAX_STREAMS, sizeof(*slots));
	if (!tail || !slots) {
		free(tail);
		free(slots);
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->nr_entries; i++) {
		struct pp_entry *e = &s->entries[i];
		struct pp_stream *st;
		size_t si;

		if (e->type != PP_CHUNK_DATA)
			continue;
		st = stream_get(s, e->stream, slots);
		if (!st && s->nr_streams < PP_MAX_STREAMS) {
			free(tail);
			free(slots);
			return -ENOMEM;
		}
		if (!st) {
			dropped++;
			continue;
		}
		si = (size_t)(st - s->streams);
		if (st->next_entry < 0)
			st->next_entry = (int32_t)i;
		else
			s->entries[tail[si]].next = (int32_t)i;
		tail[si] = (int32_t)i;
	}
	free(tail);
	free(slots);
	if (dropped)
		pp_session__warn(s, "more than %d streams: %zu DATA chunks of the others ignored",
				 PP_MAX_STREAMS, dropped);
	return 0;
}

/*
 * The data sizes @tp's format allows an event: from the end of its fixed
 * fields to that rounded up to 8 (the kernel's struct, as its ring rounds
 * it), unbounded above when a field's size is dynamic.
 */
static void format_sizes(const struct tep_event *tp, uint32_t *min, uint32_t *max)
{
	const struct tep_format_field *lists[2] = { tp->format.common_fields, tp->format.fields };
	uint32_t end = 0;
	int dyn = 0;

	for (int i = 0; i < 2; i++) {
		for (const struct tep_format_field *f = lists[i]; f; f = f->next) {
			if (f->offset >= 0 && f->size >= 0 &&
			    (uint32_t)f->offset + (uint32_t)f->size > end)
				end = (uint32_t)f->offset + (uint32_t)f->size;
			if (f->flags & (TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_RELATIVE) || !f->size)
				dyn = 1;
		}
	}
	*min = end;
	*max = dyn || end > UINT32_MAX - 8 ? 0 : (end + 7) & ~7u;
}

/**
 * pp_session__check_claim() - hold what a DATA chunk says about an event
 * against ATTRS and FORMATS (struct pp_data_claim, pp_reader_opts.check).
 * @ctx: the session; @c: the claim, whose size bounds an encoding 3 entry
 * gets from its event's format.
 *
 * An encoding 3 type must be a recorded tracepoint's, of the sample_type
 * the event was opened with and of the type its format gives; a layout's
 * time offset must be 0 or where the event's sample_type puts the time
 * (perf_event_open(2): after the identifier, IP and TID; read_format only
 * shapes what follows it).
 * Return: 0 if the claim holds or cannot be told (an id not in ATTRS for a
 * layout), 1 if it is a lie.
 */
int pp_session__check_claim(void *ctx, struct pp_data_claim *c)
{
	struct pp_session *s = ctx;
	struct pp_evsel *ev = pp_session__evsel_by_id(s, c->id);
	uint64_t st;
	uint32_t want;

	if (c->encoding == PP_DATA_FTRACE) {
		if (!ev || ev->type != PERF_TYPE_TRACEPOINT || ev->sample_type != c->sample_type)
			return 1;
		if (ev->tp) {
			if (ev->tp->id != (int)c->ftype)
				return 1;
			format_sizes(ev->tp, &c->min_size, &c->max_size);
		}
		return 0;
	}
	if (!ev || !c->time_off)
		return 0;
	st = ev->sample_type;
	if (!(st & PERF_SAMPLE_TIME))
		return 1;
	want = 8 + 8 * !!(st & PERF_SAMPLE_IDENTIFIER) + 8 * !!(st & PERF_SAMPLE_IP) +
	       8 * !!(st & PERF_SAMPLE_TID);
	return c->time_off != want;
}

/**
 * pp_session__lie() - the @i-th check of spec/pp-trace-format.md 5.8 the
 * replay makes: its name (a key of info --json and the words of the
 * warnings) and how many chunks or records it caught, @rs's skipped chunks
 * or the session's skipped records.
 * Return: 0, or -1 past the last check.
 */
int pp_session__lie(const struct pp_session *s, const struct pp_reader_stats *rs, size_t i,
		    const char **name, const char **key, uint64_t *n)
{
	const struct { const char *key, *name; uint64_t n; } lies[] = {
		{ "bad_pages", "ftrace chunks with a page walking backwards or past its commit",
		  rs ? rs->bad_pages : 0 },
		{ "bad_types", "ftrace chunks naming the wrong event type", rs ? rs->bad_types : 0 },
		{ "bad_machine", "ftrace chunks of another byte order or word size",
		  rs ? rs->bad_machine : 0 },
		{ "bad_stream", "ftrace chunks of another CPU than their stream",
		  rs ? rs->bad_stream : 0 },
		{ "bad_dropped", "ftrace chunks with an impossible drop count",
		  rs ? rs->bad_dropped : 0 },
		{ "bad_layout", "data chunks whose layout misplaces the time", rs ? rs->bad_layout : 0 },
		{ "bad_cpu", "samples on CPUs the machine has not", s->stats.bad_cpu },
		{ "bad_lost", "impossible kernel drop counts", s->stats.bad_lost },
	};

	if (i >= sizeof(lies) / sizeof(lies[0]))
		return -1;
	*name = lies[i].name;
	*key = lies[i].key;
	*n = lies[i].n;
	return 0;
}

/**
 * pp_session__lies() - the lies the checks of spec/pp-trace-format.md 5.8
 * caught, each by its name (pp_session__lie()).
 * @buf: receives "N name, ..." (@len bytes; NULL to count only).
 * Return: how many in all (0: none).
 */
uint64_t pp_session__lies(const struct pp_session *s, const struct pp_reader_stats *rs, char *buf,
			  size_t len)
{
	const char *name, *key;
	uint64_t total = 0, n;
	size_t pos = 0;

	if (buf && len)
		buf[0] = 0;
	for (size_t i = 0; !pp_session__lie(s, rs, i, &name, &key, &n); i++) {
		if (!n)
			continue;
		total += n;
		if (buf && pos < len) {
			int w = snprintf(buf + pos, len - pos, "%s%llu %s", pos ? ", " : "",
					 (unsigned long long)n, name);

			if (w > 0)
				pos += (size_t)w;
		}
	}
	return total;
}

/**
 * pp_session__open_file() - use the trace at @path as the source.
 * @s: session; @path: trace file.
 *
 * Builds the chunk list and processes the metadata in file order up to the
 * first DATA chunk; symbol chunks (appended as the recorder discovers them,
 * so after the data that needs them) are loaded up front.
 * Return: 0 or -errno (a message is printed).
 */
static const struct pp_input_ops file_source;

int pp_session__open_file(struct pp_session *s, const char *path)
{
	struct pp_reader_opts ro = { .print = reader_print, .print_ctx = s,
				     .check = pp_session__check_claim, .check_ctx = s };
	uint64_t first_data = UINT64_MAX;
	int ret;

	s->reader = pp_reader__open_path(path, &ro);
	if (!s->reader) {
		ret = -errno;
		fprintf(stderr, "pp-analyze: %s: %s\n", path, pp_reader__strerror(errno));
		return ret;
	}
	if (pp_reader__header(s->reader)->word_size == 4)
		tep_set_long_size(s->tep, 4);
	else
		tep_set_long_size(s->tep, 8);
	tep_set_file_bigendian(s->tep, pp_reader__header(s->reader)->byte_order == PP_ORDER_BIG ?
			       TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(s->tep, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ?
				TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	ret = build_entries(s);
	if (ret) {
		fprintf(stderr, "pp-analyze: %s: %s\n", path, strerror(-ret));
		return ret;
	}
	for (size_t i = 0; i < s->nr_entries; i++) {
		const struct pp_entry *e = &s->entries[i];
		struct pp_chunk c;

		if (e->type == PP_CHUNK_DATA && first_data == UINT64_MAX)
			first_data = e->offset;
		if (e->type != PP_CHUNK_KSYMS && e->type != PP_CHUNK_USYMS)
			continue;
		if (s->a.no_symbols)
			continue;
		if (pp_reader__read_at(s->reader, e->offset, &c) == 1)
			pp_session__meta_chunk(s, e->type, c.data, c.size, e->stream);
	}
	meta_until(s, first_data);
	s->path = path;
	if (!s->nr_evsels)
		pp_session__warn(s, "%s: no event descriptions (ATTRS) before the data", path);
	s->src = &file_source;
	return 0;
}

/* --time: a non-sample record of a DATA chunk wholly before the window. */
static void window_sideband_rec(const uint8_t *rec, uint16_t size, void *ctx)
{
	struct pp_session *s = ctx;
	uint64_t al[8192];	/* 64 KiB: the largest record, 8-byte aligned */

	memcpy(al, rec, size);
	pp_session__dispatch_sideband(s, 0, (const uint8_t *)al, size,
			pp_session__evsel_by_id(s, pp_sample__id((const uint8_t *)al, size)));
}

/* Load the next chunk of @st; Return: 1 loaded, 0 none left. */
static int stream_load(struct pp_session *s, struct pp_stream *st)
{
	int ret;

	while (st->next_entry >= 0 && !s->stop) {
		const struct pp_entry *e = &s->entries[st->next_entry];
		struct pp_chunk c;

		st->next_entry = e->next;
		if (s->win && e->first_ts > s->win_end)
			continue;	/* after the window: never read */
		meta_until(s, e->offset);
		if (!st->rd) {
			/* Its own reader: chunks decode into its buffers, no copy. */
			struct pp_reader_opts ro = { .print = reader_print, .print_ctx = s,
						     .no_index = 1, .scratch = &s->scratch,
						     .check = pp_session__check_claim, .check_ctx = s };

			st->rd = pp_reader__open(pp_reader__io(s->reader), &ro);
			if (!st->rd)
				return 0;
		}
		if (s->win && e->last_ts && e->last_ts < s->win_start) {
			/* before the window: its side-band only, samples left encoded */
			ret = pp_reader__sideband_at(st->rd, e->offset, window_sideband_rec, s);
			ret = ret == 1 ? 0 : ret;	/* nothing to merge */
		} else {
			ret = pp_reader__read_at(st->rd, e->offset, &c);
		}
		if (ret == -ENOMEM) {	/* said by the reader; the rest would be wrong */
			pp_session__fail(s, ret);
			s->stop = 1;
			return 0;
		}
		if (ret != 1)
			continue;
		st->data = c.data;
		st->len = c.size;
		st->off = 0;
		s->stats.data_chunks++;
		/* a checkpoint when the reader's buffers grew, the only memory a load takes */
		if (pp_reader__buffer_bytes(st->rd) == st->rd_bytes)
			return 1;
		st->rd_bytes = pp_reader__buffer_bytes(st->rd);
		return !pp_session__mem_check(s);
	}
	return 0;
}

/* The time of record @r of event @ev (as pp_session__record_ts()). */
static inline int record_time(const struct pp_session *s, const struct pp_evsel *ev,
			      const uint8_t *r, uint16_t size, uint64_t *ts)
{
	const struct pp_sample_layout *f = &s->fast[ev->idx];

	/* a sample's time at its fixed place; the header's size is checked as there */
	if (f->time) {
		struct perf_event_header h;

		memcpy(&h, r, sizeof(h));
		if (h.type == PERF_RECORD_SAMPLE && h.size >= 8 && h.size <= size &&
		    f->time + 8u <= h.size) {
			*ts = pp_sample_rd64(r + f->time);
			return 0;
		}
	}
	return pp_sample__time(ev->sample_type, r, size, ts);
}

/* pp_sample__id(), inline: the id of a record of @size bytes (its header's size). */
static inline uint64_t record_id(const uint8_t *r, uint16_t size)
{
	struct perf_event_header h;

	memcpy(&h, r, sizeof(h));
	if (h.size != size || size < sizeof(h) + 8)
		return 0;
	return pp_sample_rd64(r + (h.type == PERF_RECORD_SAMPLE ? sizeof(h) : size - 8u));
}

/* Move @st to its next record; sets st->head NULL when the stream ends. */
static void stream_advance(struct pp_session *s, struct pp_stream *st)
{
	uint64_t id;

	for (;;) {
		if (st->off + 8 > st->len) {
			if (st->off < st->len)
				s->stats.bad_records++;
			if (!s->src->refill(s, st)) {
				st->head = NULL;
				return;
			}
			continue;
		}
		const uint8_t *r = st->data + st->off;
		uint16_t size = (uint16_t)(r[6] | r[7] << 8);

		if (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
			size = (uint16_t)(r[7] | r[6] << 8);
		if (size < 8 || size > st->len - st->off) {
			s->stats.bad_records++;
			st->off = st->len;	/* the rest of this chunk is unusable */
			continue;
		}
		st->off += size;
		/*
		 * Records are handed on 8-byte aligned (a stack is read as
		 * u64s in place); only a crafted file misaligns them, by a
		 * record size that is not a multiple of 8: copy those.
		 */
		if ((uintptr_t)r & 7) {
			if (!st->align && !(st->align = malloc(65536))) {
				s->stats.bad_records++;
				continue;
			}
			memcpy(st->align, r, size);
			r = (const uint8_t *)st->align;
		}
		st->head = r;
		st->head_size = size;
		id = record_id(r, size);
		/* a stream's records mostly belong to a few events: reuse the last lookup */
		if (id != st->head_id || st->head_idgen != s->idmap_gen) {
			st->head_ev = pp_session__evsel_by_id(s, id);
			st->head_id = id;
			st->head_idgen = s->idmap_gen;
		}
		if (!st->head_ev || record_time(s, st->head_ev, r, size, &st->head_ts))
			st->head_ts = st->last_ts;
		st->last_ts = st->head_ts;
		st->records++;
		return;
	}
}

/* Merge order: time, then stream position (so the heap and the scan agree). */
static inline int stream_before(const struct pp_stream *a, const struct pp_stream *b)
{
	return a->head_ts < b->head_ts || (a->head_ts == b->head_ts && a < b);
}

static void heap_down(struct pp_stream **h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct pp_stream *t;

		if (l < n && stream_before(h[l], h[m]))
			m = l;
		if (l + 1 < n && stream_before(h[l + 1], h[m]))
			m = l + 1;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

static void deliver(struct pp_session *s, struct pp_stream *st)
{
	if (s->win && st->head_ts < s->win_start) {
		if (st->head_idgen == s->idmap_gen)
			pp_session__dispatch_sideband(s, st->id, st->head, st->head_size, st->head_ev);
		return;
	}
	if (st->head_ts < s->last_ts)
		s->stats.out_of_order++;
	else
		s->last_ts = st->head_ts;
	if (!s->stats.first_ts)
		s->stats.first_ts = st->head_ts;
	if (st->head_idgen == s->idmap_gen)
		pp_session__dispatch_ev(s, st->id, st->head, st->head_size, st->head_ev);
	else
		pp_session__dispatch(s, st->id, st->head, st->head_size);
}

/* Up to this many streams a linear scan beats the heap's bookkeeping. */
#define PP_MERGE_SCAN_MAX	8

/**
 * pp_session__merge() - dispatch the streams' records in time order while
 * the oldest head is at or before @limit (UINT64_MAX: until all are empty).
 * @s: session whose streams have their heads set by stream_advance().
 *
 * A linear scan for a few streams, a binary heap above PP_MERGE_SCAN_MAX.
 * Return: 0 or -ENOMEM.
 */
int pp_session__merge(struct pp_session *s, uint64_t limit)
{
	struct pp_stream **h;
	size_t n = 0;

	if (s->nr_streams <= PP_MERGE_SCAN_MAX) {
		while (!s->stop) {
			struct pp_stream *min = NULL;

			for (size_t i = 0; i < s->nr_streams; i++) {
				struct pp_stream *st = &s->streams[i];

				if (st->head && (!min || st->head_ts < min->head_ts))
					min = st;
			}
			if (!min || min->head_ts > limit)
				break;
			deliver(s, min);
			stream_advance(s, min);
		}
		return 0;
	}
	if (s->heap_cap < s->nr_streams) {
		h = realloc(s->heap, s->nr_streams * sizeof(*h));
		if (!h)
			return -ENOMEM;
		s->heap = h;
		s->heap_cap = s->nr_streams;
	}
	h = s->heap;
	for (size_t i = 0; i < s->nr_streams; i++) {
		if (s->streams[i].head)
			h[n++] = &s->streams[i];
	}
	for (size_t i = n / 2; i-- > 0;)
		heap_down(h, n, i);
	while (n && !s->stop) {
		struct pp_stream *st = h[0];

		if (st->head_ts > limit)
			break;
		deliver(s, st);
		stream_advance(s, st);
		if (!st->head)
			h[0] = h[--n];
		heap_down(h, n, 0);
	}
	return 0;
}

/**
 * pp_session__stream_advance() - move @st to its next record (head NULL at
 * the end of its data).
 * @s: session; @st: stream.
 */
void pp_session__stream_advance(struct pp_session *s, struct pp_stream *st)
{
	stream_advance(s, st);
}

static int run_file(struct pp_session *s)
{
	int ret;

	for (size_t i = 0; i < s->nr_streams; i++)
		stream_advance(s, &s->streams[i]);
	ret = pp_session__merge(s, s->win ? s->win_end : UINT64_MAX);
	if (!s->stop)
		meta_until(s, UINT64_MAX);
	s->stats.last_ts = s->last_ts;
	return ret;
}

/* The reader and the streams' readers are the session's: freed with it. */
static void file_free(struct pp_session *s) {}

static const struct pp_input_ops file_source = {
	.name = "file",
	.run = run_file,
	.refill = stream_load,
	.free = file_free,
};
