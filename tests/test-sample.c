// SPDX-License-Identifier: MIT
/* Unit tests of the bounds-checked perf record parser (record/sample.c). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <errno.h>
#include <cmocka.h>
#include <linux/perf_event.h>

#include "pp/sample.h"

#define ST_BASE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)

struct rb {
	uint8_t b[512];
	size_t n;
};

static void put(struct rb *r, const void *p, size_t n)
{
	memcpy(r->b + r->n, p, n);
	r->n += n;
}

static void put64(struct rb *r, uint64_t v) { put(r, &v, 8); }
static void put32(struct rb *r, uint32_t v) { put(r, &v, 4); }

static void begin(struct rb *r, uint32_t type)
{
	struct perf_event_header h = { .type = type };

	memset(r, 0, sizeof(*r));
	put(r, &h, sizeof(h));
}

static void finish(struct rb *r)
{
	uint16_t sz = (uint16_t)r->n;

	memcpy(r->b + 6, &sz, 2);
}

/* A tracepoint sample with a callchain of 3 and a raw block of 12 (+4 pad). */
static void build_tp_sample(struct rb *r)
{
	begin(r, PERF_RECORD_SAMPLE);
	put64(r, 0x1234);		/* identifier */
	put32(r, 100); put32(r, 101);	/* pid, tid */
	put64(r, 5000000000ull);	/* time */
	put32(r, 1); put32(r, 0);	/* cpu, res */
	put64(r, 1);			/* period */
	put64(r, 3);			/* nr callchain */
	put64(r, PERF_CONTEXT_KERNEL);
	put64(r, 0xffffffff81000000ull);
	put64(r, 0xffffffff81000010ull);
	put32(r, 12);			/* raw size: 4 + 12 = 16, aligned */
	put(r, "abcdefghijkl", 12);
	finish(r);
}

#define ST_TP (ST_BASE | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW)

static void test_sample_ok(void **state)
{
	struct pp_sample s;
	struct rb r;

	build_tp_sample(&r);
	assert_int_equal(pp_sample__parse(ST_TP, r.b, r.n, &s), 0);
	assert_int_equal(s.type, PERF_RECORD_SAMPLE);
	assert_int_equal(s.size, r.n);
	assert_int_equal(s.id, 0x1234);
	assert_int_equal(s.pid, 100);
	assert_int_equal(s.tid, 101);
	assert_int_equal(s.time, 5000000000ull);
	assert_int_equal(s.cpu, 1);
	assert_int_equal(s.period, 1);
	assert_int_equal(s.nr_callchain, 3);
	assert_int_equal(s.callchain[2], 0xffffffff81000010ull);
	assert_int_equal(s.raw_size, 12);
	assert_memory_equal(s.raw, "abcdefghijkl", 12);
	assert_int_equal(pp_sample__id(r.b, r.n), 0x1234);
}

static void test_sample_every_truncation(void **state)
{
	struct pp_sample s;
	struct rb r;
	size_t n;

	build_tp_sample(&r);
	/* A header claiming less than the fields need: every cut must fail. */
	for (n = 8; n < r.n; n++) {
		uint16_t sz = (uint16_t)n;
		struct rb t = r;

		memcpy(t.b + 6, &sz, 2);
		assert_int_equal(pp_sample__parse(ST_TP, t.b, n, &s), -EINVAL);
	}
	/* Buffer shorter than the header's size. */
	for (n = 0; n < r.n; n++)
		assert_int_equal(pp_sample__parse(ST_TP, r.b, n, &s), -EINVAL);
	assert_int_equal(pp_sample__id(r.b, 4), 0);
	assert_int_equal(pp_sample__parse(ST_TP, NULL, 0, &s), -EINVAL);
}

static void test_sample_huge_counts(void **state)
{
	struct pp_sample s;
	struct rb r;
	uint64_t big = ~0ull;

	build_tp_sample(&r);
	/* callchain nr at offset 8 + 8 + 8 + 8 + 8 + 8 = 48 */
	memcpy(r.b + 48, &big, 8);
	assert_int_equal(pp_sample__parse(ST_TP, r.b, r.n, &s), -EINVAL);
	big = 1ull << 61;
	memcpy(r.b + 48, &big, 8);
	assert_int_equal(pp_sample__parse(ST_TP, r.b, r.n, &s), -EINVAL);

	build_tp_sample(&r);
	/* raw size at 48 + 8 + 24 = 80 */
	memcpy(r.b + 80, &(uint32_t){ 0xffffffffu }, 4);
	assert_int_equal(pp_sample__parse(ST_TP, r.b, r.n, &s), -EINVAL);
}

static void test_sample_wrong_type(void **state)
{
	struct pp_sample s;
	struct rb r;

	build_tp_sample(&r);
	r.b[0] = PERF_RECORD_COMM;
	assert_int_equal(pp_sample__parse(ST_TP, r.b, r.n, &s), -EINVAL);
}

static void test_sample_read_group(void **state)
{
	struct pp_sample_fmt fmt = {
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_READ | PERF_SAMPLE_PERIOD,
		.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED,
	};
	struct pp_sample s;
	struct rb r;

	begin(&r, PERF_RECORD_SAMPLE);
	put64(&r, 7);		/* identifier */
	put64(&r, 99);		/* period */
	put64(&r, 2);		/* nr */
	put64(&r, 1000);	/* time enabled */
	put64(&r, 10); put64(&r, 7);	/* value, id */
	put64(&r, 20); put64(&r, 8);
	finish(&r);
	assert_int_equal(pp_sample__parse_fmt(&fmt, r.b, r.n, &s), 0);
	assert_int_equal(s.period, 99);
	assert_int_equal(s.read_size, 48);
	/* nr too large for the record */
	memcpy(r.b + 24, &(uint64_t){ 3 }, 8);
	assert_int_equal(pp_sample__parse_fmt(&fmt, r.b, r.n, &s), -EINVAL);
}

static void test_sample_ip_addr_regs_stack(void **state)
{
	struct pp_sample_fmt fmt = {
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_ADDR |
			       PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |
			       PERF_SAMPLE_PHYS_ADDR,
		.sample_regs_user = 0x7,
	};
	struct pp_sample s;
	struct rb r;

	begin(&r, PERF_RECORD_SAMPLE);
	put64(&r, 7);
	put64(&r, 0x400000);	/* ip */
	put64(&r, 0xdead);	/* addr */
	put64(&r, 2);		/* abi 64 */
	put64(&r, 1); put64(&r, 2); put64(&r, 3);
	put64(&r, 16);		/* stack size */
	put64(&r, 0); put64(&r, 0);
	put64(&r, 8);		/* dyn size */
	put64(&r, 0x1000);	/* phys addr */
	finish(&r);
	assert_int_equal(pp_sample__parse_fmt(&fmt, r.b, r.n, &s), 0);
	assert_int_equal(s.ip, 0x400000);
	assert_int_equal(s.addr, 0xdead);
	assert_int_equal(s.user_regs[2], 3);
	assert_int_equal(s.user_stack_size, 16);
	assert_int_equal(s.user_stack_dyn_size, 8);
	assert_int_equal(s.phys_addr, 0x1000);
}

static void test_sample_id_trailer(void **state)
{
	struct pp_sample s;
	struct rb r;
	uint64_t t;

	/* COMM: pid, tid, comm[16], then the trailer. */
	begin(&r, PERF_RECORD_COMM);
	put32(&r, 42); put32(&r, 42);
	put(&r, "worker\0\0\0\0\0\0\0\0\0\0", 16);
	put32(&r, 42); put32(&r, 43);	/* sample_id: pid, tid */
	put64(&r, 777);			/* time */
	put32(&r, 1); put32(&r, 0);	/* cpu */
	put64(&r, 0xabc);		/* identifier */
	finish(&r);
	assert_int_equal(pp_sample_id__size(ST_BASE), 32);
	assert_int_equal(pp_sample_id__parse(ST_BASE, r.b, r.n, &s), 0);
	assert_int_equal(s.pid, 42);
	assert_int_equal(s.tid, 43);
	assert_int_equal(s.time, 777);
	assert_int_equal(s.cpu, 1);
	assert_int_equal(s.id, 0xabc);
	assert_int_equal(pp_sample__id(r.b, r.n), 0xabc);
	assert_int_equal(pp_sample__time(ST_BASE, r.b, r.n, &t), 0);
	assert_int_equal(t, 777);
	/* A sample is refused by the trailer parser. */
	r.b[0] = PERF_RECORD_SAMPLE;
	assert_int_equal(pp_sample_id__parse(ST_BASE, r.b, r.n, &s), -EINVAL);
}

static void test_sample_id_short(void **state)
{
	struct pp_sample s;
	struct rb r;

	begin(&r, PERF_RECORD_EXIT);
	put64(&r, 1);
	finish(&r);
	assert_int_equal(pp_sample_id__parse(ST_BASE, r.b, r.n, &s), -EINVAL);
	r.b[6] = 4;	/* size below the header */
	assert_int_equal(pp_sample_id__parse(ST_BASE, r.b, r.n, &s), -EINVAL);
	assert_int_equal(pp_sample__id(r.b, r.n), 0);
}

static void test_sample_time(void **state)
{
	struct rb r;
	uint64_t t;

	build_tp_sample(&r);
	assert_int_equal(pp_sample__time(ST_TP, r.b, r.n, &t), 0);
	assert_int_equal(t, 5000000000ull);
	assert_int_equal(pp_sample__time(PERF_SAMPLE_IDENTIFIER, r.b, r.n, &t), -ENOENT);
	assert_int_equal(pp_sample__time(ST_TP, r.b, 10, &t), -EINVAL);
}


/*
 * Build a sample of @st with distinct field values, a callchain of @nr_cc
 * and a raw block of @raw bytes (padded as the kernel pads it).
 */
static void build_layout_sample(struct rb *r, uint64_t st, uint64_t nr_cc, uint32_t raw)
{
	static const uint8_t bytes[32] = "0123456789abcdefghijklmnopqrstu";
	size_t pad;

	begin(r, PERF_RECORD_SAMPLE);
	if (st & PERF_SAMPLE_IDENTIFIER)
		put64(r, 0x1d);
	if (st & PERF_SAMPLE_IP)
		put64(r, 0x7f0000001234ull);
	if (st & PERF_SAMPLE_TID) {
		put32(r, 4242);
		put32(r, 4343);
	}
	if (st & PERF_SAMPLE_TIME)
		put64(r, 123456789012ull);
	if (st & PERF_SAMPLE_ADDR)
		put64(r, 0xdead0000beefull);
	if (st & PERF_SAMPLE_ID)
		put64(r, 0x1e);
	if (st & PERF_SAMPLE_STREAM_ID)
		put64(r, 0x1f);
	if (st & PERF_SAMPLE_CPU) {
		put32(r, 3);
		put32(r, 0);
	}
	if (st & PERF_SAMPLE_PERIOD)
		put64(r, 10101);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		put64(r, nr_cc);
		for (uint64_t i = 0; i < nr_cc; i++)
			put64(r, i ? 0xffffffff81000000ull + i : PERF_CONTEXT_KERNEL);
	}
	if (st & PERF_SAMPLE_RAW) {
		put32(r, raw);
		put(r, bytes, raw);
		pad = (8 - ((4 + raw) & 7)) & 7;
		put(r, "\0\0\0\0\0\0\0", pad);
	}
	finish(r);
}

/* The fast path and the reference agree on @rec of @size (header size @hsize). */
static void check_same(const struct pp_sample_layout *l, uint64_t st, struct rb *r, size_t size)
{
	struct pp_sample ref;
	struct pp_sample hot;
	int a, b;

	memset(&hot, 0xa5, sizeof(hot));
	a = pp_sample__parse(st, r->b, size, &ref);
	b = pp_sample__parse_hot(l, r->b, size, &hot);
	if (a != b)
		fail_msg("sample_type %#llx size %zu header %u: reference %d, fast %d",
			 (unsigned long long)st, size, (unsigned)ref.size, a, b);
	if (a)
		return;
	assert_int_equal(hot.ip, ref.ip);
	assert_int_equal(hot.pid, ref.pid);
	assert_int_equal(hot.tid, ref.tid);
	assert_int_equal(hot.time, ref.time);
	assert_int_equal(hot.addr, ref.addr);
	assert_int_equal(hot.cpu, ref.cpu);
	assert_int_equal(hot.period, ref.period);
	assert_int_equal(hot.nr_callchain, ref.nr_callchain);
	assert_ptr_equal(hot.callchain, ref.callchain);
	assert_int_equal(hot.raw_size, ref.raw_size);
	assert_ptr_equal(hot.raw, ref.raw);
}

/*
 * Every layout of the bits the fast path reads (every subset: IDENTIFIER,
 * IP, TID, TIME, ADDR, ID, STREAM_ID, CPU, PERIOD, CALLCHAIN, RAW), with
 * empty and full callchains and raw blocks of every padding, cut at every
 * length (in the header's size and in the bytes available), and with a
 * callchain or raw size that overruns: the fast path gives what
 * pp_sample__parse() gives, or fails where it fails.
 */
/*
 * A walk's frames spliced into a sample (the kernel-side unwinder): the
 * kernel part kept, a frame-pointer user part replaced, RAW kept, the
 * record grown; no frames: the user part dropped; a callchain that lies
 * about its length, or no room: left alone.
 */
static void test_set_user_chain(void **state)
{
	static const uint64_t walk[4] = { 0x401000, 0x402000, 0x403000, 0x404000 };
	uint8_t out[1024];
	struct pp_sample s;
	struct rb r;
	size_t n;

	(void)state;
	build_tp_sample(&r);
	/* the tracepoint sample, with a user part by frame pointer: two frames */
	{
		struct rb u;

		begin(&u, PERF_RECORD_SAMPLE);
		put(&u, r.b + 8, 40);		/* identifier .. period */
		put64(&u, 6);
		put(&u, r.b + 56, 24);		/* the kernel part */
		put64(&u, PERF_CONTEXT_USER);
		put64(&u, 0x400100);
		put64(&u, 0x400200);
		put(&u, r.b + 80, 16);		/* raw */
		finish(&u);
		r = u;
	}
	n = pp_sample__set_user_chain(r.b, r.n, ST_TP, walk, 4, 0, 0, out, sizeof(out));
	assert_int_equal(n, r.n + 16);
	assert_int_equal(pp_sample__parse(ST_TP, out, n, &s), 0);
	assert_int_equal(s.nr_callchain, 8);
	assert_int_equal(s.callchain[0], PERF_CONTEXT_KERNEL);
	assert_int_equal(s.callchain[2], 0xffffffff81000010ull);
	assert_int_equal(s.callchain[3], PERF_CONTEXT_USER);
	assert_memory_equal(&s.callchain[4], walk, sizeof(walk));
	assert_int_equal(s.raw_size, 12);
	assert_memory_equal(s.raw, "abcdefghijkl", 12);
	assert_int_equal(s.tid, 101);

	/* no frames: the kernel part alone */
	n = pp_sample__set_user_chain(r.b, r.n, ST_TP, walk, 0, 0, 0, out, sizeof(out));
	assert_int_equal(n, r.n - 24);
	assert_int_equal(pp_sample__parse(ST_TP, out, n, &s), 0);
	assert_int_equal(s.nr_callchain, 3);
	assert_int_equal(s.raw_size, 12);

	/* a byte range after the callchain dropped: the raw block */
	n = pp_sample__set_user_chain(r.b, r.n, ST_TP, walk, 1, r.n - 16, r.n, out, sizeof(out));
	assert_int_equal(n, r.n - 16 - 8);
	/* a range that starts inside the callchain, or runs past the record */
	assert_int_equal(pp_sample__set_user_chain(r.b, r.n, ST_TP, walk, 1, 60, 70, out,
						   sizeof(out)), 0);
	assert_int_equal(pp_sample__set_user_chain(r.b, r.n, ST_TP, walk, 1, r.n - 8, r.n + 8,
						   out, sizeof(out)), 0);
	/* no room in @out */
	assert_int_equal(pp_sample__set_user_chain(r.b, r.n, ST_TP, walk, 4, 0, 0, out, r.n), 0);
	/* no callchain in the layout, or one longer than the record */
	assert_int_equal(pp_sample__set_user_chain(r.b, r.n, ST_BASE, walk, 4, 0, 0, out,
						   sizeof(out)), 0);
	{
		uint64_t big = 1000;

		memcpy(r.b + 48, &big, 8);
		assert_int_equal(pp_sample__set_user_chain(r.b, r.n, ST_TP, walk, 4, 0, 0, out,
							   sizeof(out)), 0);
	}
}

static void test_fast_path_equals_reference(void **state)
{
	static const uint64_t bits[] = {
		PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP, PERF_SAMPLE_TID, PERF_SAMPLE_TIME,
		PERF_SAMPLE_ADDR, PERF_SAMPLE_ID, PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU,
		PERF_SAMPLE_PERIOD, PERF_SAMPLE_CALLCHAIN, PERF_SAMPLE_RAW,
	};
	static const uint64_t ccs[] = { 0, 1, 5 };
	static const uint32_t raws[] = { 0, 4, 5, 11, 12, 20 };
	const size_t nbits = sizeof(bits) / sizeof(bits[0]);
	unsigned long checked = 0;

	for (unsigned int m = 0; m < (1u << nbits); m++) {
		struct pp_sample_layout l;
		uint64_t st = 0;

		for (size_t b = 0; b < nbits; b++)
			if (m & (1u << b))
				st |= bits[b];
		pp_sample_layout__init(&l, st);
		assert_int_equal(l.ok, 1);
		for (size_t c = 0; c < (st & PERF_SAMPLE_CALLCHAIN ? 3 : 1); c++) {
			for (size_t w = 0; w < (st & PERF_SAMPLE_RAW ? 6 : 1); w++) {
				struct rb r, cut;
				size_t full;

				build_layout_sample(&r, st, ccs[c], raws[w]);
				full = r.n;
				check_same(&l, st, &r, full);
				checked++;
				for (size_t n = 0; n < full; n++) {
					/* fewer bytes than the header says */
					check_same(&l, st, &r, n);
					/* a header that says fewer bytes (a truncated record) */
					cut = r;
					if (n >= 8) {
						uint16_t sz = (uint16_t)n;

						memcpy(cut.b + 6, &sz, 2);
						check_same(&l, st, &cut, n);
					}
					checked += 2;
				}
				/* a callchain count or raw size that runs past the end */
				if (st & (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW)) {
					size_t at = sizeof(struct perf_event_header) + 8 * (size_t)__builtin_popcountll(
						st & (PP_SAMPLE_FAST_BITS & ~(uint64_t)(PERF_SAMPLE_CALLCHAIN |
									       PERF_SAMPLE_RAW)));

					cut = r;
					if (st & PERF_SAMPLE_CALLCHAIN) {
						uint64_t huge = 1ull << 61;

						memcpy(cut.b + at, &huge, 8);
					} else {
						uint32_t huge = 0xfffffff0u;

						memcpy(cut.b + at, &huge, 4);
					}
					check_same(&l, st, &cut, full);
					checked++;
				}
			}
		}
	}
	/* anything else is not a fast layout */
	{
		struct pp_sample_layout l;

		pp_sample_layout__init(&l, PERF_SAMPLE_IP | PERF_SAMPLE_READ);
		assert_int_equal(l.ok, 0);
		pp_sample_layout__init(&l, PERF_SAMPLE_TID | PERF_SAMPLE_BRANCH_STACK);
		assert_int_equal(l.ok, 0);
	}
	assert_true(checked > 100000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample_ok),
		cmocka_unit_test(test_sample_every_truncation),
		cmocka_unit_test(test_sample_huge_counts),
		cmocka_unit_test(test_sample_wrong_type),
		cmocka_unit_test(test_sample_read_group),
		cmocka_unit_test(test_sample_ip_addr_regs_stack),
		cmocka_unit_test(test_sample_id_trailer),
		cmocka_unit_test(test_sample_id_short),
		cmocka_unit_test(test_sample_time),
		cmocka_unit_test(test_fast_path_equals_reference),
		cmocka_unit_test(test_set_user_chain),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
