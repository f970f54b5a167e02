// SPDX-License-Identifier: MIT
/*
 * Unit tests for format/ftpages.c: DATA encoding 3, ftrace ring pages turned
 * into perf records (spec/pp-trace-format.md 5.8), on pages built here
 * byte by byte as the kernel lays them out, and on damaged payloads.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "pp/ftpages.h"
#include "pp/meta.h"

#define PAGE	4096
#define ST	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
		 PERF_SAMPLE_CPU | PERF_SAMPLE_RAW)

struct page {
	uint8_t b[PAGE];
	size_t len;			/* header + data */
};

static void page_init(struct page *p, uint64_t ts)
{
	memset(p, 0, sizeof(*p));
	memcpy(p->b, &ts, 8);
	p->len = 16;
}

static void put32(struct page *p, uint32_t v)
{
	memcpy(p->b + p->len, &v, 4);
	p->len += 4;
}

/* An event of @words 4-byte words of data (type_len = words), @delta ns after the last. */
static void event(struct page *p, uint32_t delta, uint16_t type, int32_t pid, int words)
{
	uint8_t d[112] = { 0 };

	put32(p, delta << 5 | (uint32_t)words);
	memcpy(d, &type, 2);
	memcpy(d + 4, &pid, 4);
	for (int i = 8; i < words * 4; i++)
		d[i] = (uint8_t)i;
	memcpy(p->b + p->len, d, (size_t)words * 4);
	p->len += (size_t)words * 4;
}

/* A time extend of @delta ns (type_len 30). */
static void extend(struct page *p, uint64_t delta)
{
	put32(p, (uint32_t)(delta & ((1u << 27) - 1)) << 5 | 30);
	put32(p, (uint32_t)(delta >> 27));
}

static void page_done(struct page *p, uint64_t flags)
{
	uint64_t commit = (p->len - 16) | flags;

	memcpy(p->b + 8, &commit, 8);
}

/* A payload of @nr pages for CPU 1, one type (42, ST, id 77), @dropped, @offset. */
static size_t payload(uint8_t *out, const struct page *pages, int nr, uint64_t dropped,
		      int64_t offset)
{
	struct pp_ftpage_type t = { .type = 42, .id = 77, .sample_type = ST };
	struct pp_ftpage_chunk c = { .cpu = 1, .page_size = PAGE, .nr_types = 1, .long_size = 8,
				     .nr_pages = (uint32_t)nr, .dropped = dropped,
				     .clock_offset = offset };
	size_t n = pp_ftpages__put_header(out, &c, &t);

	for (int i = 0; i < nr; i++) {
		pp_put_le32(out + n, (uint32_t)pages[i].len);
		pp_put_le32(out + n + 4, 0);
		memcpy(out + n + 8, pages[i].b, pages[i].len);
		n += 8 + ((pages[i].len + 7) & ~(size_t)7);
	}
	return n;
}

struct rec {
	uint32_t type, size;
	uint64_t id, time, lost;
	uint32_t pid, tid, cpu, raw_size;
	uint8_t raw[64];
};

/* The records of @buf: samples of ST and LOST records. */
static int records(const uint8_t *buf, size_t len, struct rec *r, int max)
{
	size_t pos = 0;
	int n = 0;

	while (pos + 8 <= len && n < max) {
		const uint8_t *p = buf + pos;
		struct perf_event_header h;

		memcpy(&h, p, sizeof(h));
		assert_true(h.size >= 8 && pos + h.size <= len);
		memset(&r[n], 0, sizeof(r[n]));
		r[n].type = h.type;
		r[n].size = h.size;
		if (h.type == PERF_RECORD_SAMPLE) {
			assert_int_equal(h.misc, PERF_RECORD_MISC_KERNEL);
			memcpy(&r[n].id, p + 8, 8);
			memcpy(&r[n].pid, p + 16, 4);
			memcpy(&r[n].tid, p + 20, 4);
			memcpy(&r[n].time, p + 24, 8);
			memcpy(&r[n].cpu, p + 32, 4);
			memcpy(&r[n].raw_size, p + 40, 4);
			assert_true(r[n].raw_size <= sizeof(r[n].raw));
			memcpy(r[n].raw, p + 44, r[n].raw_size);
			assert_int_equal((4 + r[n].raw_size) % 8, 0);
			assert_int_equal(h.size, 44 + r[n].raw_size);
		} else if (h.type == PERF_RECORD_LOST) {
			memcpy(&r[n].id, p + 8, 8);
			memcpy(&r[n].lost, p + 16, 8);
			memcpy(&r[n].pid, p + 24, 4);
			memcpy(&r[n].time, p + 32, 8);
		}
		pos += h.size;
		n++;
	}
	assert_int_equal(pos, len);
	return n;
}

static void test_events(void **state)
{
	struct pp_ftpages *d = pp_ftpages__new();
	static struct page pg[2];
	static uint8_t in[3 * PAGE];
	uint8_t *out = NULL;
	size_t cap = 0, len, n;
	struct rec r[8];

	(void)state;
	page_init(&pg[0], 1000);
	event(&pg[0], 0, 42, 123, 4);		/* 1000 */
	event(&pg[0], 5, 43, 9, 3);		/* 1005, not ours */
	extend(&pg[0], (1ull << 27) + 3);	/* 1005 + 2^27 + 3 */
	event(&pg[0], 2, 42, 0, 5);		/* ... + 2, the idle task */
	page_done(&pg[0], 0);
	page_init(&pg[1], 5000000000ull);
	event(&pg[1], 0, 42, 7, 4);
	page_done(&pg[1], 1ull << 31);		/* events missed before it */
	n = payload(in, pg, 2, 11, 0);
	assert_int_equal(pp_ftpages__decode(d, in, n, &out, &cap, &len, 1 << 20, 0, NULL, NULL), 0);
	assert_int_equal(records(out, len, r, 8), 5);

	assert_int_equal(r[0].type, PERF_RECORD_SAMPLE);
	assert_int_equal(r[0].id, 77);
	assert_int_equal(r[0].pid, PP_FTPAGE_PID_UNKNOWN);	/* the reader's to find */
	assert_int_equal(r[0].tid, 123);
	assert_int_equal(r[0].time, 1000);
	assert_int_equal(r[0].cpu, 1);
	assert_int_equal(r[0].raw_size, 20);		/* 16 bytes, padded as perf pads */
	assert_int_equal(r[0].raw[0], 42);
	assert_int_equal(r[0].raw[15], 15);
	assert_int_equal(r[0].raw[16], 0);

	assert_int_equal(r[1].type, PERF_RECORD_SAMPLE);
	assert_int_equal(r[1].pid, 0);
	assert_int_equal(r[1].tid, 0);
	assert_int_equal(r[1].time, 1000 + 5 + (1ull << 27) + 3 + 2);
	assert_int_equal(r[1].raw_size, 20);

	assert_int_equal(r[2].type, PERF_RECORD_LOST);	/* the page's missed events */
	assert_int_equal(r[2].id, 77);
	assert_int_equal(r[2].lost, 1);
	assert_int_equal(r[2].pid, UINT32_MAX);
	assert_int_equal(r[3].type, PERF_RECORD_SAMPLE);
	assert_int_equal(r[3].time, 5000000000ull);
	assert_int_equal(r[4].type, PERF_RECORD_LOST);	/* the kernel's drops, at the end */
	assert_int_equal(r[4].lost, 11);
	assert_int_equal(r[4].time, 5000000000ull);

	/* pages of another clock: the offset makes the file's times */
	n = payload(in, pg, 2, 11, -400);
	assert_int_equal(pp_ftpages__decode(d, in, n, &out, &cap, &len, 1 << 20, 0, NULL, NULL), 0);
	assert_int_equal(records(out, len, r, 8), 5);
	assert_int_equal(r[0].time, 600);
	assert_int_equal(r[2].time, 5000000000ull - 400);	/* the page's LOST too */
	assert_int_equal(r[4].time, 5000000000ull - 400);

	/* records past the cap: refused, not cut */
	assert_int_equal(pp_ftpages__decode(d, in, n, &out, &cap, &len, 100, 0, NULL, NULL), -EFBIG);

	/* a chunk of no page that tells the kernel's drops: at the chunk's end */
	n = payload(in, pg, 0, 5, 0);
	assert_int_equal(pp_ftpages__decode(d, in, n, &out, &cap, &len, 1 << 20, 777, NULL, NULL), 0);
	assert_int_equal(records(out, len, r, 8), 1);
	assert_int_equal(r[0].type, PERF_RECORD_LOST);
	assert_int_equal(r[0].lost, 5);
	assert_int_equal(r[0].time, 777);
	free(out);
	pp_ftpages__free(d);
}

/* A new clock offset a little lower: no time before its CPU's last one. */
static void test_clock_step(void **state)
{
	struct pp_ftpages *d = pp_ftpages__new();
	static struct page pg;
	static uint8_t in[2 * PAGE];
	uint8_t *out = NULL;
	size_t cap = 0, len, n;
	struct rec r[4];

	(void)state;
	page_init(&pg, 1000000);
	event(&pg, 0, 42, 5, 4);
	event(&pg, 100, 42, 5, 4);
	page_done(&pg, 0);
	n = payload(in, &pg, 1, 0, 0);
	assert_int_equal(pp_ftpages__decode(d, in, n, &out, &cap, &len, 1 << 20, 0, NULL, NULL), 0);
	assert_int_equal(records(out, len, r, 4), 2);
	assert_int_equal(r[1].time, 1000100);

	/* the next chunk, measured 100 ns lower: its first event would be 50 ns back */
	page_init(&pg, 1000150);
	event(&pg, 0, 42, 5, 4);
	event(&pg, 100, 42, 5, 4);
	page_done(&pg, 0);
	n = payload(in, &pg, 1, 0, -100);
	assert_int_equal(pp_ftpages__decode(d, in, n, &out, &cap, &len, 1 << 20, 0, NULL, NULL), 0);
	assert_int_equal(records(out, len, r, 4), 2);
	assert_int_equal(r[0].time, 1000100);	/* its CPU's last time */
	assert_int_equal(r[1].time, 1000150);	/* as stored */

	/* far back (a reader that went back to an earlier chunk): as stored */
	page_init(&pg, 1000300);
	event(&pg, 0, 42, 5, 4);
	page_done(&pg, 0);
	n = payload(in, &pg, 1, 0, -50000);
	assert_int_equal(pp_ftpages__decode(d, in, n, &out, &cap, &len, 1 << 20, 0, NULL, NULL), 0);
	assert_int_equal(records(out, len, r, 4), 1);
	assert_int_equal(r[0].time, 950300);
	free(out);
	pp_ftpages__free(d);
}

static void test_damaged(void **state)
{
	struct pp_ftpages *d = pp_ftpages__new();
	static struct page pg[1];
	static uint8_t in[2 * PAGE], bad[2 * PAGE];
	uint8_t *out = NULL;
	size_t cap = 0, len, n;
	uint64_t commit;

	(void)state;
	page_init(&pg[0], 1000);
	event(&pg[0], 0, 42, 123, 4);
	page_done(&pg[0], 0);
	n = payload(in, pg, 1, 0, 0);
	assert_int_equal(pp_ftpages__decode(d, in, n, &out, &cap, &len, 1 << 20, 0, NULL, NULL), 0);
	/* every cut of the payload is refused, never read past */
	for (size_t cut = 0; cut < n; cut++) {
		uint8_t *c = malloc(cut ? cut : 1);

		memcpy(c, in, cut);
		assert_int_equal(pp_ftpages__decode(d, c, cut, &out, &cap, &len, 1 << 20, 0, NULL, NULL),
				 -EBADMSG);
		free(c);
	}
	/* a commit past the stored page */
	memcpy(bad, in, n);
	commit = 4000;
	memcpy(bad + PP_FTPAGE_HDR_SIZE + PP_FTPAGE_TYPE_SIZE + 8 + 8, &commit, 8);
	assert_int_equal(pp_ftpages__decode(d, bad, n, &out, &cap, &len, 1 << 20, 0, NULL, NULL), -EBADMSG);
	/* a sample field ftrace has not */
	memcpy(bad, in, n);
	pp_put_le64(bad + PP_FTPAGE_HDR_SIZE + 16, ST | PERF_SAMPLE_CALLCHAIN);
	assert_int_equal(pp_ftpages__decode(d, bad, n, &out, &cap, &len, 1 << 20, 0, NULL, NULL), -EBADMSG);
	/* a long size of 3 */
	memcpy(bad, in, n);
	bad[10] = 3;
	assert_int_equal(pp_ftpages__decode(d, bad, n, &out, &cap, &len, 1 << 20, 0, NULL, NULL), -EBADMSG);
	/* bytes left over */
	memcpy(bad, in, n);
	memset(bad + n, 0, 8);
	assert_int_equal(pp_ftpages__decode(d, bad, n + 8, &out, &cap, &len, 1 << 20, 0, NULL, NULL), -EBADMSG);
	/* and the good one still decodes after them all */
	assert_int_equal(pp_ftpages__decode(d, in, n, &out, &cap, &len, 1 << 20, 0, NULL, NULL), 0);
	assert_int_equal(len, 64);
	free(out);
	pp_ftpages__free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_clock_step),
		cmocka_unit_test(test_damaged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
