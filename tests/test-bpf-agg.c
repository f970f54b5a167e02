// SPDX-License-Identifier: MIT
/*
 * Unit tests of the BPF_AGG item codec (format/bpf-agg.c): every writer's
 * items decode to what was written, at the offsets of spec/pp-bpf.md; an
 * item cut short anywhere, or with counts that overrun it, is refused
 * without reading past its end (the bodies are copied to buffers of their
 * exact size, for the sanitized build); the stack table holds many names.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "pp/bpf-agg.h"
#include "pp/format.h"
#include "pp/meta.h"

static const uint64_t kips[3] = { 0xffffffff81000010ull, 0xffffffff81000020ull,
				  0xffffffff81000030ull };
static const uint64_t uips[2] = { 0x401000, 0x401100 };
static const uint64_t wips[4] = { 0x402000, 0x402100, 0x402200, 0x402300 };

static struct pp_bpf_agg_stack stack_hdr(uint32_t pid, uint32_t tid, unsigned int nk,
					 unsigned int nu, uint32_t state, uint64_t addr)
{
	struct pp_bpf_agg_stack s;

	memset(&s, 0, sizeof(s));
	s.pid = pid;
	s.tid = tid;
	s.total_ns = 1000 + pid;
	s.count = 3;
	s.max_ns = 700;
	s.addr = addr;
	s.state = state;
	s.nr_kernel = (uint16_t)nk;
	s.nr_user = (uint16_t)nu;
	memcpy(s.comm, "worker", 7);
	return s;
}

static struct pp_bpf_agg_waker waker_tail(unsigned int nu)
{
	struct pp_bpf_agg_waker wk;

	memset(&wk, 0, sizeof(wk));
	wk.pid = 7;
	wk.tid = 12;
	wk.nr_user = (uint16_t)nu;
	memcpy(wk.comm, "waker", 6);
	return wk;
}

static void assert_ips(const uint8_t *got, const uint64_t *want, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		assert_true(pp_bpf_agg__ip(got, i) == want[i]);
}

/* The items of one payload, for the walks below. */
static int collect(const struct pp_buf *b, struct pp_item *items, int max)
{
	struct pp_item_iter it;
	struct pp_item item;
	int n = 0;

	pp_item_iter__init(&it, b->data, b->len);
	while (n < max && pp_item_iter__next(&it, &item))
		items[n++] = item;
	assert_int_equal(it.bad, 0);
	return n;
}

/*
 * One payload as a drain writes it (a window, then stack items of every
 * kind and an unknown one) decodes back field for field, frame for frame,
 * and the window carries the count set after its items.
 */
static void test_round_trip(void **state)
{
	struct pp_bpf_agg_window w = {
		.source = PP_BPF_SRC_LOCK, .start_ns = 100, .end_ns = 200, .dropped = 4,
		.stacks_lost = 5,
	}, gw;
	struct pp_bpf_agg_stack off = stack_hdr(7, 8, 3, 2, 'D', 0);
	struct pp_bpf_agg_stack lk = stack_hdr(7, 9, 0, 2, 0, 0x7ffd1000);
	struct pp_bpf_agg_stack lkw = stack_hdr(7, 10, 0, 1, 0, 0x7ffd2000);
	struct pp_bpf_agg_stack ref = stack_hdr(9, 9, 0, 0, 'S', 0);
	struct pp_bpf_agg_waker wk = waker_tail(4);
	struct pp_bpf_stacks *t = pp_bpf_stacks__new();
	struct pp_bpf_agg_entry e;
	struct pp_item items[16];
	struct pp_buf b;
	size_t at, unknown;
	int n;

	assert_non_null(t);
	pp_buf__init(&b);
	at = pp_bpf_put_window(&b, &w);
	pp_bpf_put_stack(&b, PP_BPF_AGG_OFFCPU, &off, kips, 3, uips, 2, NULL, NULL);
	pp_bpf_put_stack(&b, PP_BPF_AGG_LOCK, &lk, NULL, 0, uips, 2, NULL, NULL);
	pp_bpf_put_stack(&b, PP_BPF_AGG_LOCK, &lkw, NULL, 0, uips, 1, &wk, wips);
	pp_bpf_put_stack_def(&b, 0x11, kips, 3);
	pp_bpf_put_stack_def(&b, 0x23, uips, 2);
	pp_bpf_put_ref(&b, &ref, 0x11, 0x23);
	unknown = pp_item__begin(&b, 77);
	pp_buf__append(&b, "future", 6);
	pp_item__end(&b, unknown);
	pp_bpf_set_window_items(&b, at, 4);
	assert_int_equal(b.error, 0);
	assert_int_equal(at, 0);

	n = collect(&b, items, 16);
	assert_int_equal(n, 8);

	/* WINDOW: 40 bytes, nr_items patched at offset 4 */
	assert_int_equal(items[0].size, 40);
	memset(&gw, 0xff, sizeof(gw));
	assert_int_equal(pp_bpf_agg__decode(&items[0], t, &e, &gw), PP_BPF_AGG_WINDOW);
	w.nr_items = 4;
	assert_memory_equal(&gw, &w, sizeof(w));
	/* without somewhere to put it, a window is still recognised */
	assert_int_equal(pp_bpf_agg__decode(&items[0], t, &e, NULL), PP_BPF_AGG_WINDOW);

	/* OFFCPU with frames inline: kernel then user */
	assert_int_equal(items[1].size, 64 + 5 * 8);
	assert_int_equal(pp_bpf_agg__decode(&items[1], t, &e, NULL), PP_BPF_AGG_OFFCPU);
	assert_int_equal(e.kind, PP_BPF_AGG_OFFCPU);
	assert_memory_equal(&e.s, &off, sizeof(off));
	assert_ips(e.kernel_ips, kips, 3);
	assert_ips(e.user_ips, uips, 2);
	assert_int_equal(e.has_waker, 0);
	assert_null(e.waker_ips);

	/* LOCK without a waker */
	assert_int_equal(pp_bpf_agg__decode(&items[2], t, &e, NULL), PP_BPF_AGG_LOCK);
	assert_memory_equal(&e.s, &lk, sizeof(lk));
	assert_ips(e.user_ips, uips, 2);
	assert_int_equal(e.has_waker, 0);

	/* LOCK with the waker tail after its frames */
	assert_int_equal(items[3].size, 64 + 8 + 32 + 4 * 8);
	assert_int_equal(pp_bpf_agg__decode(&items[3], t, &e, NULL), PP_BPF_AGG_LOCK);
	assert_memory_equal(&e.s, &lkw, sizeof(lkw));
	assert_ips(e.user_ips, uips, 1);
	assert_int_equal(e.has_waker, 1);
	assert_memory_equal(&e.waker, &wk, sizeof(wk));
	assert_ips(e.waker_ips, wips, 4);
	assert_true(e.waker_ips == items[3].body + 64 + 8 + sizeof(wk));

	/* STACK: id at 0, nr at 8, frames at 16 */
	assert_int_equal(items[4].size, 16 + 3 * 8);
	{
		uint64_t id;
		uint16_t nr;

		memcpy(&id, items[4].body, 8);
		memcpy(&nr, items[4].body + 8, 2);
		assert_true(id == 0x11);
		assert_int_equal(nr, 3);
		assert_ips(items[4].body + 16, kips, 3);
	}
	assert_int_equal(pp_bpf_agg__decode(&items[4], t, &e, NULL), PP_BPF_AGG_STACK);
	assert_int_equal(pp_bpf_agg__decode(&items[5], t, &e, NULL), PP_BPF_AGG_STACK);

	/* OFFCPU_REF: 80 bytes, names at 64 and 72; read back as OFFCPU */
	assert_int_equal(items[6].size, PP_BPF_AGG_REF_SIZE);
	{
		uint64_t names[2];

		memcpy(names, items[6].body + 64, sizeof(names));
		assert_true(names[0] == 0x11 && names[1] == 0x23);
	}
	assert_int_equal(pp_bpf_agg__decode(&items[6], t, &e, NULL), PP_BPF_AGG_OFFCPU);
	assert_int_equal(e.kind, PP_BPF_AGG_OFFCPU);
	assert_int_equal(e.s.nr_kernel, 3);
	assert_int_equal(e.s.nr_user, 2);
	assert_true(e.s.pid == 9 && e.s.state == 'S' && e.s.total_ns == ref.total_ns);
	assert_string_equal(e.s.comm, "worker");
	assert_ips(e.kernel_ips, kips, 3);
	assert_ips(e.user_ips, uips, 2);
	assert_int_equal(pp_bpf_stacks__missing(t), 0);

	/* an unknown kind is skipped, not refused */
	assert_int_equal(pp_bpf_agg__decode(&items[7], t, &e, NULL), 0);
	/* without a table, STACK and OFFCPU_REF are unknown kinds too */
	assert_int_equal(pp_bpf_agg__decode(&items[4], NULL, &e, NULL), 0);
	assert_int_equal(pp_bpf_agg__decode(&items[6], NULL, &e, NULL), 0);

	pp_buf__exit(&b);
	pp_bpf_stacks__free(t);
}

/* Decode @item with its body cut to @size bytes, in a buffer of exactly that size. */
static int decode_cut(const struct pp_item *item, size_t size, struct pp_bpf_stacks *t,
		      struct pp_bpf_agg_entry *e)
{
	uint8_t *copy = malloc(size ? size : 1);
	struct pp_item cut = { .kind = item->kind, .body = copy, .size = size };
	struct pp_bpf_agg_window w;
	int k;

	assert_non_null(copy);
	memcpy(copy, item->body, size);
	k = pp_bpf_agg__decode(&cut, t, e, &w);
	free(copy);
	return k;
}

/*
 * Every item cut short at every length: refused where the spec says the
 * fixed part or the frames no longer fit, read as the shorter form where
 * one exists (a 32-byte window, a LOCK item without its waker tail).
 */
static void test_truncated(void **state)
{
	struct pp_bpf_agg_window w = { .source = PP_BPF_SRC_OFFCPU, .nr_items = 1 };
	struct pp_bpf_agg_stack off = stack_hdr(7, 8, 3, 2, 'S', 0);
	struct pp_bpf_agg_stack lkw = stack_hdr(7, 10, 0, 2, 0, 0x7ffd2000);
	struct pp_bpf_agg_stack ref = stack_hdr(9, 9, 0, 0, 'S', 0);
	struct pp_bpf_agg_waker wk = waker_tail(4);
	struct pp_bpf_stacks *t = pp_bpf_stacks__new();
	struct pp_bpf_agg_entry e;
	struct pp_item items[8];
	struct pp_buf b;
	int n;

	assert_non_null(t);
	pp_buf__init(&b);
	pp_bpf_put_window(&b, &w);
	pp_bpf_put_stack(&b, PP_BPF_AGG_OFFCPU, &off, kips, 3, uips, 2, NULL, NULL);
	pp_bpf_put_stack(&b, PP_BPF_AGG_LOCK, &lkw, NULL, 0, uips, 2, &wk, wips);
	pp_bpf_put_stack_def(&b, 0x11, kips, 3);
	pp_bpf_put_ref(&b, &ref, 0x11, 0);
	n = collect(&b, items, 8);
	assert_int_equal(n, 5);

	for (size_t sz = 0; sz < items[0].size; sz++)
		assert_int_equal(decode_cut(&items[0], sz, t, &e),
				 sz < PP_BPF_AGG_WINDOW_MIN ? -EINVAL : PP_BPF_AGG_WINDOW);
	for (size_t sz = 0; sz < items[1].size; sz++)
		assert_int_equal(decode_cut(&items[1], sz, t, &e), -EINVAL);
	{
		size_t need = 64 + 2 * 8, tail = need + sizeof(wk);

		for (size_t sz = 0; sz < items[2].size; sz++) {
			int k = decode_cut(&items[2], sz, t, &e);

			if (sz < need || sz >= tail) {
				assert_int_equal(k, -EINVAL);
			} else {
				assert_int_equal(k, PP_BPF_AGG_LOCK);
				assert_int_equal(e.has_waker, 0);
				assert_int_equal(e.s.nr_user, 2);
			}
		}
	}
	for (size_t sz = 0; sz < items[3].size; sz++)
		assert_int_equal(decode_cut(&items[3], sz, t, &e), -EINVAL);
	assert_int_equal(pp_bpf_agg__decode(&items[3], t, &e, NULL), PP_BPF_AGG_STACK);
	for (size_t sz = 0; sz < items[4].size; sz++)
		assert_int_equal(decode_cut(&items[4], sz, t, &e), -EINVAL);
	assert_int_equal(pp_bpf_agg__decode(&items[4], t, &e, NULL), PP_BPF_AGG_OFFCPU);
	assert_int_equal(e.s.nr_kernel, 3);
	/* nothing refused above reached the table */
	assert_int_equal(pp_bpf_stacks__missing(t), 0);

	/* the payload cut anywhere: the walk stops, what it yields still decodes */
	for (size_t len = 0; len < b.len; len++) {
		uint8_t *copy = malloc(len ? len : 1);
		struct pp_item_iter it;
		struct pp_item item;
		int got = 0;

		assert_non_null(copy);
		memcpy(copy, b.data, len);
		pp_item_iter__init(&it, copy, len);
		while (pp_item_iter__next(&it, &item)) {
			assert_true(pp_bpf_agg__decode(&item, t, &e, NULL) > 0);
			got++;
		}
		assert_true(got < n);
		free(copy);
	}
	pp_buf__exit(&b);
	pp_bpf_stacks__free(t);
}

/*
 * Counts that claim more than the item holds, a STACK named 0, a comm
 * without its NUL: refused or repaired, never read past the body.
 */
static void test_malformed(void **state)
{
	struct pp_bpf_stacks *t = pp_bpf_stacks__new();
	struct pp_bpf_agg_entry e;
	uint8_t body[256];
	struct pp_item item = { .body = body };
	struct pp_bpf_agg_stack s = stack_hdr(1, 1, 0, 0, 'S', 0);
	struct pp_bpf_agg_stack_def def = { .id = 5, .nr = 4 };
	struct pp_bpf_agg_waker wk = waker_tail(0);

	assert_non_null(t);
	memset(body, 0, sizeof(body));

	/* OFFCPU and LOCK whose frame counts overrun the item */
	s.nr_kernel = 0xffff;
	memcpy(body, &s, sizeof(s));
	item.kind = PP_BPF_AGG_OFFCPU;
	item.size = sizeof(body);
	assert_int_equal(pp_bpf_agg__decode(&item, t, &e, NULL), -EINVAL);
	s.nr_kernel = 0;
	s.nr_user = 25;			/* 64 + 200 > 256 */
	memcpy(body, &s, sizeof(s));
	item.kind = PP_BPF_AGG_LOCK;
	assert_int_equal(pp_bpf_agg__decode(&item, t, &e, NULL), -EINVAL);

	/* a LOCK tail whose frames overrun the item */
	s.nr_user = 1;
	memcpy(body, &s, sizeof(s));
	wk.nr_user = 0xffff;
	memcpy(body + 72, &wk, sizeof(wk));
	item.size = 72 + sizeof(wk) + 8;
	assert_int_equal(pp_bpf_agg__decode(&item, t, &e, NULL), -EINVAL);

	/* a comm filling all 16 bytes reads NUL-terminated */
	memset(s.comm, 'x', sizeof(s.comm));
	s.nr_user = 0;
	memcpy(body, &s, sizeof(s));
	item.kind = PP_BPF_AGG_OFFCPU;
	item.size = sizeof(s);
	assert_int_equal(pp_bpf_agg__decode(&item, t, &e, NULL), PP_BPF_AGG_OFFCPU);
	assert_int_equal(strlen(e.s.comm), sizeof(e.s.comm) - 1);

	/* STACK: frames past the item, or named 0 */
	memcpy(body, &def, sizeof(def));
	item.kind = PP_BPF_AGG_STACK;
	item.size = 16 + 3 * 8;
	assert_int_equal(pp_bpf_agg__decode(&item, t, &e, NULL), -EINVAL);
	def.id = 0;
	def.nr = 1;
	memcpy(body, &def, sizeof(def));
	assert_int_equal(pp_bpf_agg__decode(&item, t, &e, NULL), -EINVAL);

	/* a REF naming stacks no STACK item defined: no frames, counted */
	memset(body, 0, sizeof(body));
	s = stack_hdr(3, 3, 0, 0, 'S', 0);
	memcpy(body, &s, sizeof(s));
	{
		uint64_t names[2] = { 5, 6 };

		memcpy(body + 64, names, sizeof(names));
	}
	item.kind = PP_BPF_AGG_OFFCPU_REF;
	item.size = PP_BPF_AGG_REF_SIZE;
	assert_int_equal(pp_bpf_agg__decode(&item, t, &e, NULL), PP_BPF_AGG_OFFCPU);
	assert_int_equal(e.s.nr_kernel + e.s.nr_user, 0);
	assert_int_equal(pp_bpf_stacks__missing(t), 2);
	assert_int_equal(pp_bpf_stacks__missing(NULL), 0);
	pp_bpf_stacks__free(t);
	pp_bpf_stacks__free(NULL);
}

/* Random bodies of every kind and size: the decoder answers, and stays in bounds. */
static void test_random_items(void **state)
{
	struct pp_bpf_stacks *t = pp_bpf_stacks__new();
	uint64_t x = 0x9e3779b97f4a7c15ull;

	assert_non_null(t);
	for (int round = 0; round < 20000; round++) {
		struct pp_bpf_agg_entry e;
		struct pp_bpf_agg_window w;
		size_t size;
		uint8_t *body;
		struct pp_item item;
		int k;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		size = (size_t)(x % 200);
		body = malloc(size ? size : 1);
		assert_non_null(body);
		for (size_t i = 0; i < size; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			/* small counts often, so some items are well formed */
			body[i] = (uint8_t)(x % 4 ? x % 3 : x >> 8);
		}
		item.kind = (uint16_t)(round % 8);
		item.body = body;
		item.size = size;
		k = pp_bpf_agg__decode(&item, t, &e, &w);
		assert_true(k == -EINVAL || k == 0 || k == PP_BPF_AGG_WINDOW ||
			    k == PP_BPF_AGG_OFFCPU || k == PP_BPF_AGG_LOCK || k == PP_BPF_AGG_STACK ||
			    k == PP_BPF_AGG_MEM);
		if (k == PP_BPF_AGG_OFFCPU || k == PP_BPF_AGG_LOCK || k == PP_BPF_AGG_MEM) {
			volatile uint64_t sum = 0;

			/* every frame lent is readable (ASan checks the copy's bounds) */
			for (unsigned int i = 0; i < e.s.nr_kernel; i++)
				sum += pp_bpf_agg__ip(e.kernel_ips, i);
			for (unsigned int i = 0; i < e.s.nr_user; i++)
				sum += pp_bpf_agg__ip(e.user_ips, i);
			for (unsigned int i = 0; e.has_waker && i < e.waker.nr_user; i++)
				sum += pp_bpf_agg__ip(e.waker_ips, i);
			(void)sum;
		}
		free(body);
	}
	pp_bpf_stacks__free(t);
}

/*
 * The table past its first growth: every name kept with its frames, a
 * redefinition keeps the first, mark() tells a new name from a known one.
 */
static void test_stack_table(void **state)
{
	struct pp_bpf_stacks *t = pp_bpf_stacks__new();
	struct pp_bpf_stacks *marks = pp_bpf_stacks__new();
	struct pp_bpf_agg_stack ref = stack_hdr(4, 4, 0, 0, 'S', 0);
	struct pp_bpf_agg_entry e;
	struct pp_item items[2];
	struct pp_buf b;
	const unsigned int nr = 3000;

	assert_non_null(t);
	assert_non_null(marks);
	pp_buf__init(&b);
	for (unsigned int i = 1; i <= nr; i++) {
		uint64_t ips[2] = { i, (uint64_t)i << 32 };

		pp_buf__reset(&b);
		pp_bpf_put_stack_def(&b, i * 4096ull, ips, 1 + i % 2);
		assert_int_equal(collect(&b, items, 2), 1);
		assert_int_equal(pp_bpf_agg__decode(&items[0], t, &e, NULL), PP_BPF_AGG_STACK);
		assert_int_equal(pp_bpf_stacks__mark(marks, i * 4096ull), 1);
	}
	/* redefining 4096 with other frames keeps the first */
	{
		uint64_t other[2] = { 0xdead, 0xbeef };

		pp_buf__reset(&b);
		pp_bpf_put_stack_def(&b, 4096, other, 2);
		collect(&b, items, 2);
		assert_int_equal(pp_bpf_agg__decode(&items[0], t, &e, NULL), PP_BPF_AGG_STACK);
	}
	for (unsigned int i = 1; i <= nr; i++) {
		pp_buf__reset(&b);
		pp_bpf_put_ref(&b, &ref, i * 4096ull, 0);
		collect(&b, items, 2);
		assert_int_equal(pp_bpf_agg__decode(&items[0], t, &e, NULL), PP_BPF_AGG_OFFCPU);
		assert_int_equal(e.s.nr_kernel, 1 + i % 2);
		assert_int_equal(e.s.nr_user, 0);
		assert_true(pp_bpf_agg__ip(e.kernel_ips, 0) == i);
		assert_int_equal(pp_bpf_stacks__mark(marks, i * 4096ull), 0);
	}
	assert_int_equal(pp_bpf_stacks__missing(t), 0);
	pp_buf__exit(&b);
	pp_bpf_stacks__free(t);
	pp_bpf_stacks__free(marks);
}

/* The count goes into a window only where the window is. */
static void test_window_items(void **state)
{
	struct pp_bpf_agg_window w = { .source = PP_BPF_SRC_OFFCPU, .nr_items = 9 }, got;
	struct pp_item items[2];
	struct pp_buf b;
	size_t at;

	pp_buf__init(&b);
	pp_buf__append(&b, "x", 1);	/* the window starts 8-aligned after it */
	at = pp_bpf_put_window(&b, &w);
	assert_int_equal(at, 8);
	pp_bpf_set_window_items(&b, at, 2);
	pp_bpf_set_window_items(&b, b.len, 3);	/* past the end: ignored */
	{
		struct pp_item_iter it;

		pp_item_iter__init(&it, b.data + 8, b.len - 8);
		assert_int_equal(pp_item_iter__next(&it, &items[0]), 1);
	}
	assert_int_equal(pp_bpf_agg__decode(&items[0], NULL, NULL, &got), PP_BPF_AGG_WINDOW);
	assert_int_equal(got.nr_items, 2);
	pp_buf__exit(&b);
}

/*
 * MEM items (kmemleak --bpf): 80 bytes, the layout of OFFCPU_REF, the user
 * stack by name; decoded as MEM with the frames of their STACK item and
 * every field as written ('A' bytes and calls, 'O' the oldest's time, 'F'
 * no stack and its counters); cut anywhere, refused; without a table,
 * skipped as unknown.
 */
static void test_mem_items(void **state)
{
	struct pp_bpf_agg_window w = { .source = PP_BPF_SRC_MEM, .start_ns = 1, .end_ns = 2 }, gw;
	struct pp_bpf_agg_stack a = stack_hdr(40, 41, 0, 0, PP_MEM_ALLOCS, 0);
	struct pp_bpf_agg_stack o = stack_hdr(40, 42, 0, 0, PP_MEM_LIVE, 0);
	struct pp_bpf_agg_stack f = stack_hdr(40, 0, 0, 0, PP_MEM_FREES, 17);
	struct pp_bpf_stacks *t = pp_bpf_stacks__new();
	struct pp_bpf_agg_entry e;
	struct pp_item items[8];
	struct pp_buf b;
	int n;

	assert_non_null(t);
	o.max_ns = 123456789;
	pp_buf__init(&b);
	pp_bpf_put_window(&b, &w);
	pp_bpf_put_stack_def(&b, 0x51, uips, 2);
	pp_bpf_put_mem(&b, &a, 0, 0x51);
	pp_bpf_put_mem(&b, &o, 0, 0x51);
	pp_bpf_put_mem(&b, &f, 0, 0);
	assert_int_equal(b.error, 0);
	n = collect(&b, items, 8);
	assert_int_equal(n, 5);
	assert_int_equal(pp_bpf_agg__decode(&items[0], t, &e, &gw), PP_BPF_AGG_WINDOW);
	assert_int_equal(gw.source, PP_BPF_SRC_MEM);
	assert_int_equal(pp_bpf_agg__decode(&items[1], t, &e, NULL), PP_BPF_AGG_STACK);
	for (int i = 2; i < 5; i++) {
		assert_int_equal(items[i].kind, PP_BPF_AGG_MEM);
		assert_int_equal(items[i].size, PP_BPF_AGG_REF_SIZE);
		for (size_t sz = 0; sz < items[i].size; sz++)
			assert_int_equal(decode_cut(&items[i], sz, t, &e), -EINVAL);
		assert_int_equal(pp_bpf_agg__decode(&items[i], NULL, &e, NULL), 0);
	}
	assert_int_equal(pp_bpf_agg__decode(&items[2], t, &e, NULL), PP_BPF_AGG_MEM);
	assert_int_equal(e.kind, PP_BPF_AGG_MEM);
	assert_int_equal(e.s.state, PP_MEM_ALLOCS);
	assert_int_equal(e.s.pid, 40);
	assert_int_equal(e.s.tid, 41);
	assert_int_equal(e.s.total_ns, 1040);
	assert_int_equal(e.s.count, 3);
	assert_int_equal(e.s.nr_kernel, 0);
	assert_int_equal(e.s.nr_user, 2);
	assert_ips(e.user_ips, uips, 2);
	assert_string_equal(e.s.comm, "worker");
	assert_int_equal(pp_bpf_agg__decode(&items[3], t, &e, NULL), PP_BPF_AGG_MEM);
	assert_int_equal(e.s.state, PP_MEM_LIVE);
	assert_int_equal(e.s.max_ns, 123456789);
	assert_int_equal(e.s.nr_user, 2);
	assert_int_equal(pp_bpf_agg__decode(&items[4], t, &e, NULL), PP_BPF_AGG_MEM);
	assert_int_equal(e.s.state, PP_MEM_FREES);
	assert_int_equal(e.s.addr, 17);
	assert_int_equal(e.s.nr_user, 0);
	assert_int_equal(pp_bpf_stacks__missing(t), 0);
	pp_bpf_stacks__free(t);
	pp_buf__exit(&b);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_random_items),
		cmocka_unit_test(test_stack_table),
		cmocka_unit_test(test_window_items),
		cmocka_unit_test(test_mem_items),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
