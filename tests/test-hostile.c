// SPDX-License-Identifier: MIT
/*
 * Hostile files made from real recordings (tests/data): each test takes a
 * trace pp-record wrote, changes what an attacker who knows the spec would
 * change inside a decoded payload, frames it again with valid sizes and
 * CRCs, and checks that the reader ends, counts the damage under its name
 * and still reads the rest. Every read runs under an alarm: a decoder that
 * loops fails the test instead of hanging it.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "pp/format.h"
#include "pp/ftpages.h"
#include "pp/io.h"
#include "pp/meta.h"
#include "pp/reader.h"
#include "pp/writer.h"
#include "../format/format-internal.h"
#include "../replay/replay-internal.h"

#define ALARM_S	10

static void on_alarm(int sig)
{
	static const char msg[] = "test-hostile: a decoder did not end within the alarm\n";

	(void)sig;
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(3);
	_exit(2);
}

/* A file of tests/data, found from the working directory or the binary's. */
static uint8_t *load(const char *name, size_t *len)
{
	char path[8192], exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *f;
	uint8_t *buf;
	long sz;

	snprintf(path, sizeof(path), "tests/data/%s", name);
	f = fopen(path, "rb");
	if (!f && n > 0) {
		char *slash;

		exe[n] = 0;
		slash = strrchr(exe, '/');
		if (slash)
			*slash = 0;
		snprintf(path, sizeof(path), "%s/../../tests/data/%s", exe, name);
		f = fopen(path, "rb");
	}
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	sz = ftell(f);
	assert_true(sz > 64);
	rewind(f);
	buf = malloc((size_t)sz);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)sz, f), (size_t)sz);
	fclose(f);
	*len = (size_t)sz;
	return buf;
}

/*
 * Change the decoded payload of the chunks @edit picks (it returns the new
 * length, or 0 to leave the chunk as it is) and frame every chunk again,
 * index and footer new. Return: the new file (pp_io_mem), to free.
 */
typedef size_t (*edit_fn)(struct pp_chunk_header *h, uint8_t *payload, size_t len,
			  size_t cap, void *ctx);

static struct pp_io *refile(const uint8_t *file, size_t len, edit_fn edit, void *ctx,
			    int *edited)
{
	struct pp_io *io = pp_io_mem__new(NULL, 0, 64u << 20);
	struct pp_writer_opts wo = { .codec = PP_CODEC_LZ4 };
	struct pp_writer *w;
	size_t off = 64;

	assert_non_null(io);
	w = pp_writer__new(io, &wo);
	assert_non_null(w);
	*edited = 0;
	while (off + PP_CH_HEADER_SIZE <= len) {
		struct pp_chunk_header h;
		struct pp_chunk_desc d = { 0 };
		size_t cap, n;
		uint8_t *raw;

		assert_int_equal(pp_chunk_header__decode(file + off, &h), 0);
		assert_true(off + PP_CH_HEADER_SIZE + h.stored_size + 8 <= len);
		cap = (size_t)PP_CHUNK_MAX_RAW + 65536;	/* an edit may decode the payload */
		raw = calloc(1, cap);
		assert_non_null(raw);
		assert_int_equal(pp_codec_decompress(h.codec, file + off + PP_CH_HEADER_SIZE,
						     h.stored_size, raw, h.raw_size), 0);
		n = h.raw_size;
		if (h.type != PP_CHUNK_INDEX && h.type != PP_CHUNK_FOOTER) {
			size_t m = edit ? edit(&h, raw, n, cap, ctx) : 0;

			if (m) {
				n = m;
				(*edited)++;
			}
			d.type = h.type;
			d.flags = h.flags;
			d.encoding = h.encoding;
			d.encoded = h.encoding != PP_DATA_PLAIN;
			d.stream = h.stream;
			d.first_ts = h.first_ts;
			d.last_ts = h.last_ts;
			assert_int_equal(pp_writer__append_chunk(w, &d, raw, n), 0);
		}
		free(raw);
		off += PP_CH_HEADER_SIZE + h.stored_size + 8;
	}
	assert_int_equal(pp_writer__close(w), 0);
	return io;
}

/* PP_HOSTILE_OUT=DIR keeps each hostile file, to try the tools on. */
static void keep(struct pp_io *io, const char *name)
{
	const char *dir = getenv("PP_HOSTILE_OUT");
	char path[4096];
	const uint8_t *b;
	size_t len;
	FILE *f;

	if (!dir)
		return;
	snprintf(path, sizeof(path), "%s/%s.trace", dir, name);
	b = pp_io_mem__data(io, &len);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, len, f), len);
	fclose(f);
}

struct scan {
	uint64_t data_chunks, records;
	struct pp_reader_stats st;
};

/* Read every chunk of @io as a replay does, under the alarm. */
static void scan(struct pp_io *io, struct scan *s)
{
	struct pp_reader *r;
	struct pp_chunk c;

	memset(s, 0, sizeof(*s));
	alarm(ALARM_S);
	r = pp_reader__open(io, NULL);
	assert_non_null(r);
	while (pp_reader__next(r, &c) == 1) {
		if (c.hdr->type != PP_CHUNK_DATA)
			continue;
		s->data_chunks++;
		for (uint32_t off = 0; off + 8 <= c.size;) {
			uint16_t size;

			memcpy(&size, c.data + off + 6, 2);
			if (size < 8)
				break;
			off += size;
			s->records++;
		}
	}
	s->st = *pp_reader__stats(r);
	pp_reader__free(r);
	alarm(0);
}

/* ---- encoding 3: pages walked forward only ---- */

/* Where the first page with at least @need data bytes lies in an encoding 3 payload. */
static uint8_t *ft_page(uint8_t *p, size_t len, uint32_t need, uint32_t *commit)
{
	size_t pos = PP_FTPAGE_HDR_SIZE + (size_t)pp_get_le16(p + 8) * PP_FTPAGE_TYPE_SIZE;
	uint32_t nr = pp_get_le32(p + 12);

	assert_int_equal(p[10], 8);	/* long_size, as recorded here */
	for (uint32_t i = 0; i < nr && pos + 8 <= len; i++) {
		uint32_t plen = pp_get_le32(p + pos);
		uint8_t *page = p + pos + 8;

		*commit = pp_get_le32(page + 8) & ((1u << 27) - 1);
		if (*commit >= need)
			return page;
		pos += 8 + ((plen + 7) & ~7u);
	}
	return NULL;
}

enum ft_lie {
	FT_PAD_SELF,		/* a padding whose length points back at its own header */
	FT_PAD_CYCLE,		/* a time extend, then a padding back to it */
	FT_PAD_PAST,		/* a padding past the commit */
	FT_LEN_ZERO,		/* a type_len 0 event whose length word is 0 */
};

struct ft_edit {
	enum ft_lie lie;
	int done;
};

static size_t ft_edit(struct pp_chunk_header *h, uint8_t *p, size_t len, size_t cap,
		      void *ctx)
{
	struct ft_edit *e = ctx;
	uint32_t commit;
	uint8_t *page, *d;

	(void)cap;
	if (e->done || h->type != PP_CHUNK_DATA || h->encoding != PP_DATA_FTRACE)
		return 0;
	page = ft_page(p, len, 32, &commit);
	if (!page)
		return 0;
	d = page + 16;
	switch (e->lie) {
	case FT_PAD_SELF:
		pp_put_le32(d, 1u << 5 | 29);
		pp_put_le32(d + 4, (uint32_t)-4);
		break;
	case FT_PAD_CYCLE:
		pp_put_le32(d, 30);
		pp_put_le32(d + 4, 0);
		pp_put_le32(d + 8, 1u << 5 | 29);
		pp_put_le32(d + 12, (uint32_t)-12);
		break;
	case FT_PAD_PAST:
		pp_put_le32(d, 1u << 5 | 29);
		pp_put_le32(d + 4, commit);
		break;
	case FT_LEN_ZERO:
		pp_put_le32(d, 0);
		pp_put_le32(d + 4, 0);
		break;
	}
	e->done = 1;
	return len;
}

static void test_ftrace_walk(void **state)
{
	size_t len;
	uint8_t *file = load("ftrace-sched.trace", &len);
	struct pp_io *io;
	struct scan good, bad;
	int edited;

	(void)state;
	io = refile(file, len, NULL, NULL, &edited);
	scan(io, &good);
	pp_io__free(io);
	assert_int_equal(good.st.corrupt, 0);
	assert_true(good.data_chunks >= 2);
	for (int lie = FT_PAD_SELF; lie <= FT_LEN_ZERO; lie++) {
		static const char *const names[] = { "ft-pad-self", "ft-pad-cycle", "ft-pad-past",
						     "ft-len-zero" };
		struct ft_edit e = { .lie = (enum ft_lie)lie };

		io = refile(file, len, ft_edit, &e, &edited);
		assert_int_equal(edited, 1);
		keep(io, names[lie]);
		scan(io, &bad);
		pp_io__free(io);
		/* the page's chunk is damage, counted; the other chunks still read */
		assert_int_equal(bad.st.corrupt, 1);
		assert_int_equal(bad.st.bad_pages, 1);
		assert_int_equal(bad.data_chunks, good.data_chunks - 1);
	}
	free(file);
}

/* ---- claims held against the metadata, through a replay ---- */

static uint64_t g_samples;

static void count_sample(struct pp_session *s, const struct pp_event *e)
{
	(void)s;
	(void)e;
	g_samples++;
}

static const struct pp_analyzer count_analyzer = {
	.name = "count",
	.opts = PP_OPT_EVENTS,
	.sample = count_sample,
};

struct replay {
	uint64_t samples, lies, lost_records;
	struct pp_reader_stats sum;	/* the stream readers' */
	char text[512];
};

/* Replay @io as pp-analyze does, under the alarm. */
static void replay(struct pp_io *io, const char *name, struct replay *out)
{
	struct pp_opts o = { .output = "/dev/null" };
	char path[256];
	const uint8_t *b;
	struct pp_session *s;
	size_t len;
	FILE *f;

	memset(out, 0, sizeof(*out));
	snprintf(path, sizeof(path), "/tmp/pp-test-hostile-%d-%s.trace", getpid(), name);
	b = pp_io_mem__data(io, &len);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, len, f), len);
	fclose(f);
	g_samples = 0;
	alarm(ALARM_S);
	s = pp_session__new(&count_analyzer, &o);
	assert_non_null(s);
	assert_int_equal(pp_session__open_file(s, path), 0);
	pp_session__run(s);
	for (size_t i = 0; i < s->nr_streams; i++) {
		const struct pp_reader_stats *st;

		if (!s->streams[i].rd)
			continue;
		st = pp_reader__stats(s->streams[i].rd);
		out->sum.corrupt += st->corrupt;
		out->sum.bad_pages += st->bad_pages;
		out->sum.bad_types += st->bad_types;
		out->sum.bad_machine += st->bad_machine;
		out->sum.bad_stream += st->bad_stream;
		out->sum.bad_dropped += st->bad_dropped;
		out->sum.bad_layout += st->bad_layout;
	}
	out->lies = pp_session__lies(s, &out->sum, out->text, sizeof(out->text));
	out->samples = g_samples;
	out->lost_records = s->stats.lost_records;
	pp_session__free(s);
	alarm(0);
	unlink(path);
}

/* Encodings 1 and 2: every layout's time offset moved by 4 (aligned, inside the record). */
static size_t layout_edit(struct pp_chunk_header *h, uint8_t *p, size_t len, size_t cap,
			  void *ctx)
{
	uint32_t nr;

	(void)cap;
	(void)ctx;
	if (h->type != PP_CHUNK_DATA ||
	    (h->encoding != PP_DATA_CACHED && h->encoding != PP_DATA_FIELDS) || len < 16)
		return 0;
	nr = pp_get_le32(p + 8);
	for (uint32_t i = 0; i < nr; i++) {
		uint8_t *t = p + 16 + (size_t)i * 16 + 8;

		if (pp_get_le32(t))
			pp_put_le32(t, pp_get_le32(t) + 4);
	}
	return nr ? len : 0;
}

static void test_layout_lie(void **state)
{
	static const char *const files[] = { "cached-sched.trace", "fields-sched.trace" };

	(void)state;
	for (int i = 0; i < 2; i++) {
		size_t len;
		uint8_t *file = load(files[i], &len);
		struct replay good, bad;
		struct pp_io *io;
		int edited;

		io = refile(file, len, NULL, NULL, &edited);
		replay(io, "good", &good);
		pp_io__free(io);
		assert_int_equal(good.lies, 0);
		assert_true(good.samples >= 1000);
		io = refile(file, len, layout_edit, NULL, &edited);
		assert_true(edited >= 1);
		keep(io, i ? "fields-time-off" : "cached-time-off");
		replay(io, "layout", &bad);
		pp_io__free(io);
		assert_int_equal(bad.sum.bad_layout, edited);
		assert_true(bad.lies >= (uint64_t)edited);
		assert_non_null(strstr(bad.text, "layout misplaces the time"));
		assert_true(bad.samples < good.samples);
		free(file);
	}
}

/* Encoding 3: one lie in the first chunk's payload header or type table. */
enum ft_claim {
	FC_BIG,			/* big-endian said of little-endian pages */
	FC_LONG4,		/* long_size 4 of 8-byte pages */
	FC_CPU,			/* another CPU than the stream's */
	FC_ID_NONE,		/* a type id no event has */
	FC_ID_OTHER,		/* a type id that names another recorded event */
	FC_TYPE,		/* a type that is another event's */
	FC_DROPPED,		/* a drop count of 2^63 */
	FC_NO_TYPES,		/* nr_types 0 with drops */
};

struct fc_edit {
	enum ft_claim lie;
	int done;
};

static size_t fc_edit(struct pp_chunk_header *h, uint8_t *p, size_t len, size_t cap,
		      void *ctx)
{
	struct fc_edit *e = ctx;
	uint16_t nr = pp_get_le16(p + 8);
	uint8_t *t = p + PP_FTPAGE_HDR_SIZE;

	(void)cap;
	if (e->done || h->type != PP_CHUNK_DATA || h->encoding != PP_DATA_FTRACE || nr < 2 ||
	    !pp_get_le32(p + 12))
		return 0;
	switch (e->lie) {
	case FC_BIG:
		p[11] = 1;
		break;
	case FC_LONG4:
		p[10] = 4;
		break;
	case FC_CPU:
		pp_put_le32(p, pp_get_le32(p) + 1);
		break;
	case FC_ID_NONE:
		pp_put_le64(t + 8, 0x7777777777ull);
		break;
	case FC_ID_OTHER:
		memcpy(t + 8, t + PP_FTPAGE_TYPE_SIZE + 8, 8);
		break;
	case FC_TYPE:
		memcpy(t, t + PP_FTPAGE_TYPE_SIZE, 2);
		memset(t + PP_FTPAGE_TYPE_SIZE, 0xee, 2);
		break;
	case FC_DROPPED:
		pp_put_le64(p + 16, 1ull << 63);
		break;
	case FC_NO_TYPES:
		/* the table gone, the pages kept: nothing names their events */
		memmove(t, t + (size_t)nr * PP_FTPAGE_TYPE_SIZE,
			len - PP_FTPAGE_HDR_SIZE - (size_t)nr * PP_FTPAGE_TYPE_SIZE);
		len -= (size_t)nr * PP_FTPAGE_TYPE_SIZE;
		pp_put_le16(p + 8, 0);
		pp_put_le64(p + 16, 5);
		break;
	}
	e->done = 1;
	return len;
}

static void test_ftrace_claims(void **state)
{
	static const struct { const char *name, *says; } lies[] = {
		[FC_BIG] = { "ft-big-endian", "byte order or word size" },
		[FC_LONG4] = { "ft-long4", "byte order or word size" },
		[FC_CPU] = { "ft-cpu", "another CPU than their stream" },
		[FC_ID_NONE] = { "ft-id-none", "wrong event type" },
		[FC_ID_OTHER] = { "ft-id-other", "wrong event type" },
		[FC_TYPE] = { "ft-type", "wrong event type" },
		[FC_DROPPED] = { "ft-dropped", "impossible drop count" },
		[FC_NO_TYPES] = { "ft-no-types", "impossible drop count" },
	};
	size_t len;
	uint8_t *file = load("ftrace-sched.trace", &len);
	struct replay good, bad;
	struct pp_io *io;
	int edited;

	(void)state;
	io = refile(file, len, NULL, NULL, &edited);
	replay(io, "good", &good);
	pp_io__free(io);
	assert_int_equal(good.lies, 0);
	assert_true(good.samples > 0);
	for (int lie = FC_BIG; lie <= FC_NO_TYPES; lie++) {
		struct fc_edit e = { .lie = (enum ft_claim)lie };

		io = refile(file, len, fc_edit, &e, &edited);
		assert_int_equal(edited, 1);
		keep(io, lies[lie].name);
		replay(io, lies[lie].name, &bad);
		pp_io__free(io);
		if (!strstr(bad.text, lies[lie].says))
			fail_msg("%s: damage '%s', not '%s'", lies[lie].name, bad.text, lies[lie].says);
		assert_int_equal(bad.lies, 1);
		assert_true(bad.samples < good.samples);
	}
	free(file);
}

/* ---- what a sample or a plain LOST record claims ---- */

/* MACHINE: nr_cpus 2 said 1. */
static size_t cpus_edit(struct pp_chunk_header *h, uint8_t *p, size_t len, size_t cap, void *ctx)
{
	static const char key[] = "nr_cpus";

	(void)cap;
	(void)ctx;
	if (h->type != PP_CHUNK_MACHINE)
		return 0;
	for (size_t i = 0; i + sizeof(key) + 2 <= len; i++)
		if (!memcmp(p + i, key, sizeof(key)) && !memcmp(p + i + sizeof(key), "2", 2)) {
			p[i + sizeof(key)] = '1';
			return len;
		}
	return 0;
}

/* Samples on a CPU the machine has not are counted by name, never counted as events. */
static void test_sample_cpu(void **state)
{
	size_t len;
	uint8_t *file = load("sched-all.trace", &len);
	struct replay good, bad;
	struct pp_io *io;
	int edited;

	(void)state;
	io = refile(file, len, NULL, NULL, &edited);
	replay(io, "good", &good);
	pp_io__free(io);
	assert_int_equal(good.lies, 0);
	io = refile(file, len, cpus_edit, NULL, &edited);
	assert_int_equal(edited, 1);
	keep(io, "sample-cpu");
	replay(io, "cpu", &bad);
	pp_io__free(io);
	if (!strstr(bad.text, "samples on CPUs the machine has not"))
		fail_msg("damage '%s'", bad.text);
	/* sched-all has samples on CPUs 0 and 1: those on 1 are the lie's */
	assert_true(bad.lies > 0);
	assert_true(bad.samples > 0);
	assert_int_equal(bad.samples + bad.lies, good.samples);
	free(file);
}

struct lost_edit {
	uint64_t lost;
	int done;
};

/*
 * The first DATA chunk, decoded to plain records, with a PERF_RECORD_LOST of
 * @lost events before its EXIT record, with the EXIT record's sample_id.
 */
static size_t lost_edit(struct pp_chunk_header *h, uint8_t *p, size_t len, size_t cap, void *ctx)
{
	struct lost_edit *e = ctx;
	size_t plen = cap, off = 0;
	uint8_t *plain = malloc(cap);

	assert_non_null(plain);
	if (e->done || h->type != PP_CHUNK_DATA || h->encoding != PP_DATA_CACHED ||
	    pp_reccache_decode(p, len, plain, &plen)) {
		free(plain);
		return 0;
	}
	while (off + 8 <= plen) {
		uint16_t size = pp_get_le16(plain + off + 6);

		assert_true(size >= 8 && off + size <= plen);
		if (pp_get_le32(plain + off) == PERF_RECORD_EXIT && size >= 32) {
			size_t id = size - 32, n = 0;	/* EXIT: 24 bytes, then its sample_id */
			uint16_t lsize = (uint16_t)(24 + id);

			assert_true(plen + lsize <= cap);
			memcpy(p, plain, off);
			n = off;
			pp_put_le32(p + n, PERF_RECORD_LOST);
			pp_put_le16(p + n + 4, 0);
			pp_put_le16(p + n + 6, lsize);
			pp_put_le64(p + n + 8, 0);
			pp_put_le64(p + n + 16, e->lost);
			memcpy(p + n + 24, plain + off + 32, id);
			n += lsize;
			memcpy(p + n, plain + off, plen - off);
			n += plen - off;
			h->encoding = PP_DATA_PLAIN;
			e->done = 1;
			free(plain);
			return n;
		}
		off += size;
	}
	free(plain);
	return 0;
}

/* A kernel drop count of 2^63 in a plain LOST record is damage; 5 is a loss of 5. */
static void test_lost_count(void **state)
{
	size_t len;
	uint8_t *file = load("cached-sched.trace", &len);
	struct lost_edit e = { .lost = 5 };
	struct replay bad;
	struct pp_io *io;
	int edited;

	(void)state;
	io = refile(file, len, lost_edit, &e, &edited);
	assert_int_equal(edited, 1);
	replay(io, "lost5", &bad);
	pp_io__free(io);
	assert_int_equal(bad.lies, 0);
	assert_int_equal(bad.lost_records, 5);
	e = (struct lost_edit){ .lost = 1ull << 63 };
	io = refile(file, len, lost_edit, &e, &edited);
	assert_int_equal(edited, 1);
	keep(io, "lost-2e63");
	replay(io, "lost", &bad);
	pp_io__free(io);
	if (!strstr(bad.text, "impossible kernel drop counts"))
		fail_msg("damage '%s'", bad.text);
	assert_int_equal(bad.lies, 1);
	assert_int_equal(bad.lost_records, 0);
	free(file);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ftrace_walk),
		cmocka_unit_test(test_layout_lie),
		cmocka_unit_test(test_ftrace_claims),
		cmocka_unit_test(test_sample_cpu),
		cmocka_unit_test(test_lost_count),
	};
	struct sigaction sa = { .sa_handler = on_alarm };

	sigaction(SIGALRM, &sa, NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
