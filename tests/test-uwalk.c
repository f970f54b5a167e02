// SPDX-License-Identifier: MIT
/*
 * The join of the kernel-side walker's walks to their samples
 * (record/uwalk.c): a walk waits on its CPU's ring for the next sample of
 * its thread, whose user callchain it replaces; an interrupt's walk and
 * sample nested between them do not mix them up; another thread's sample,
 * a sample long after the walk, or a ring that lost records does not take
 * it; a sample without its walk keeps its frame-pointer chain and is
 * counted.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "pp/sample.h"
#include "../record/record.h"
#include "../bpf/unwind.h"

#define ST	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN)
#define KIP	0xffffffff81000010ull

/* A sample of thread @tid at @t: kernel frame KIP, then the user frames @fp (fp walk). */
static size_t sample(uint8_t *b, uint32_t tid, uint64_t t, int nr_user)
{
	uint64_t *v = (uint64_t *)(b + 8);
	struct perf_event_header *h = (struct perf_event_header *)b;
	size_t n = 0;

	v[n++] = 42;				/* identifier */
	v[n++] = (uint64_t)tid << 32 | 7;	/* pid 7, tid */
	v[n++] = t;
	v[n++] = 2 + (nr_user ? 1 + (uint64_t)nr_user : 0);
	v[n++] = PERF_CONTEXT_KERNEL;
	v[n++] = KIP;
	if (nr_user) {
		v[n++] = PERF_CONTEXT_USER;
		for (int i = 0; i < nr_user; i++)
			v[n++] = 0x400000 + (uint64_t)i;
	}
	h->type = PERF_RECORD_SAMPLE;
	h->misc = 0;
	h->size = (uint16_t)(8 + n * 8);
	return h->size;
}

/* A walk of thread @tid: @nr frames from @base. */
static size_t walk(struct pp_unwind_out *o, uint32_t tid, uint64_t base, int nr)
{
	memset(o, 0, sizeof(*o));
	o->magic = PP_UNWIND_MAGIC;
	o->tid = tid;
	o->nr = (unsigned short)nr;
	o->end = PP_UW_END_START;
	for (int i = 0; i < nr; i++)
		o->ips[i] = base + (uint64_t)i;
	return PP_UNWIND_OUT_HDR + (size_t)nr * 8;
}

/* The user frames of sample @b (@n bytes): how many, the first in *@first. */
static int user_frames(const uint8_t *b, size_t n, uint64_t *first)
{
	struct pp_sample s;
	int u = -1;

	assert_int_equal(pp_sample__parse(ST, b, n, &s), 0);
	assert_int_equal(s.callchain[1], KIP);	/* the kernel part stays */
	for (uint64_t i = 0; i < s.nr_callchain; i++) {
		if (s.callchain[i] == PERF_CONTEXT_USER) {
			u = (int)(s.nr_callchain - i - 1);
			*first = u ? s.callchain[i + 1] : 0;
		}
	}
	return u;
}

/* pp_uwalk__join() of sample @rec (@n bytes), parsed as the drain does. */
static size_t join(struct pp_uwalk *w, int ci, const void *rec, size_t n, uint8_t *out)
{
	struct pp_sample s;

	assert_int_equal(pp_sample__parse(ST, rec, n, &s), 0);
	return pp_uwalk__join(w, ci, rec, n, ST, &s, out, 4096);
}

static void test_join(void **state)
{
	char err[128];
	struct pp_uwalk *w = pp_uwalk__new(NULL, 2, 1, err, sizeof(err));
	struct pp_unwind_out o;
	struct pp_uwalk_stats st;
	uint8_t rec[2048], out[4096];
	uint64_t first = 0;
	size_t n, m;

	(void)state;
	assert_non_null(w);

	/* a walk, then its sample: its 5 frames replace the 2 by frame pointer */
	pp_uwalk__walk(w, 0, &o, walk(&o, 100, 0x500000, 5), 1000);
	n = sample(rec, 100, 1010, 2);
	m = join(w, 0, rec, n, out);
	assert_int_equal(m, n + 3 * 8);
	assert_int_equal(user_frames(out, m, &first), 5);
	assert_int_equal(first, 0x500000);
	/* taken: the next sample of the thread has none */
	assert_int_equal(join(w, 0, rec, n, out), 0);

	/* nested: A's walk, an interrupt's walk and sample, A's sample */
	pp_uwalk__walk(w, 0, &o, walk(&o, 100, 0xa00000, 3), 2000);
	pp_uwalk__walk(w, 0, &o, walk(&o, 100, 0xb00000, 4), 2001);
	n = sample(rec, 100, 2002, 1);
	m = join(w, 0, rec, n, out);
	assert_int_equal(user_frames(out, m, &first), 4);
	assert_int_equal(first, 0xb00000);
	n = sample(rec, 100, 2003, 1);
	m = join(w, 0, rec, n, out);
	assert_int_equal(user_frames(out, m, &first), 3);
	assert_int_equal(first, 0xa00000);

	/* another thread's sample, another ring's: not its walk */
	pp_uwalk__walk(w, 0, &o, walk(&o, 100, 0xc00000, 3), 3000);
	n = sample(rec, 101, 3001, 1);
	assert_int_equal(join(w, 0, rec, n, out), 0);
	n = sample(rec, 100, 3001, 1);
	assert_int_equal(join(w, 1, rec, n, out), 0);
	/* a sample 20 ms after it: its own sample was dropped after the walk */
	n = sample(rec, 100, 3000 + 20000000, 1);
	assert_int_equal(join(w, 0, rec, n, out), 0);
	pp_uwalk__lost(w, 0);
	/* a sample 2 ms before the walk is not its */
	pp_uwalk__walk(w, 0, &o, walk(&o, 100, 0xc00000, 3), 2003000);
	n = sample(rec, 100, 900000, 1);
	assert_int_equal(join(w, 0, rec, n, out), 0);
	/* one stamped a little before its walk is (cpu-clock: the kernel stamps it first) */
	n = sample(rec, 100, 2002990, 1);
	m = join(w, 0, rec, n, out);
	assert_int_equal(user_frames(out, m, &first), 3);

	/* the ring lost records: its waiting walks go */
	pp_uwalk__walk(w, 0, &o, walk(&o, 100, 0xd00000, 3), 5000);
	pp_uwalk__lost(w, 0);
	n = sample(rec, 100, 5001, 1);
	assert_int_equal(join(w, 0, rec, n, out), 0);

	/* what is not a walk is ignored: a bad magic, more frames than its size */
	walk(&o, 100, 0xe00000, 3);
	o.magic = 1;
	pp_uwalk__walk(w, 0, &o, PP_UNWIND_OUT_HDR + 24, 6000);
	walk(&o, 100, 0xe00000, 3);
	pp_uwalk__walk(w, 0, &o, PP_UNWIND_OUT_HDR + 16, 6000);
	n = sample(rec, 100, 6001, 1);
	assert_int_equal(join(w, 0, rec, n, out), 0);

	/* a kernel thread's sample has no user part: not a user stack */
	n = sample(rec, 100, 7000, 0);
	assert_int_equal(join(w, 0, rec, n, out), 0);

	/* more walks than a ring keeps: the oldest go, the latest join */
	for (int i = 0; i < 10; i++)
		pp_uwalk__walk(w, 0, &o, walk(&o, 200 + (uint32_t)i, 0xf00000 + (uint64_t)i * 16, 2),
			       8000 + (uint64_t)i);
	n = sample(rec, 209, 8010, 1);
	m = join(w, 0, rec, n, out);
	assert_int_equal(user_frames(out, m, &first), 2);
	assert_int_equal(first, 0xf00000 + 9 * 16);
	n = sample(rec, 200, 8010, 1);
	assert_int_equal(join(w, 0, rec, n, out), 0);

	pp_uwalk__stats(w, &st);
	assert_int_equal(st.walked, 5);
	assert_int_equal(st.ends[PP_UW_END_START], 5);
	/* user stacks without their walk: by frame pointer, counted */
	assert_int_equal(st.stacks, 5 + 8);
	assert_int_equal(st.fp_other, 8);
	pp_uwalk__free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_join),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
