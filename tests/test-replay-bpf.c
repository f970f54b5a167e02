// SPDX-License-Identifier: MIT
/*
 * BPF aggregates through the replay core (replay/bpf-agg.c): a file's
 * BPF_AGG items reach the module's ->bpf_item() decoded, only those of its
 * aggregator (.bpf_agg), after its init, filtered by -p, with the frames of
 * OFFCPU_REF items resolved; malformed items are skipped. No kernel needed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "pp/bpf.h"
#include "pp/bpf-agg.h"
#include "pp/format.h"
#include "pp/io.h"
#include "pp/meta.h"
#include "pp/replay.h"
#include "pp/writer.h"

struct got_items {
	int inited;
	int before_init;		/* items delivered before ->init */
	int windows, stacks;
	uint64_t start_ns, total_ns;
	uint32_t pids[8];
	int refs_ok;			/* the REF item's frames, resolved and aligned */
	uint32_t max_kernel;		/* the deepest kernel stack seen */
	uint64_t first_kip;		/* its innermost frame */
};

static struct got_items g_items;

static int items_init(struct pp_session *s)
{
	g_items.inited = 1;
	return 0;
}

static void items_item(struct pp_session *s, const struct pp_bpf_item *it)
{
	if (!g_items.inited)
		g_items.before_init++;
	assert_int_equal(it->agg, PP_AGG_OFFCPU);
	if (it->kind == PP_BPF_ITEM_WINDOW) {
		g_items.windows++;
		g_items.start_ns = it->start_ns;
		return;
	}
	assert_int_equal(it->kind, PP_BPF_ITEM_STACK);
	if (g_items.stacks < 8)
		g_items.pids[g_items.stacks] = it->pid;
	g_items.stacks++;
	g_items.total_ns += it->total_ns;
	if (it->nr_kernel > g_items.max_kernel) {
		g_items.max_kernel = it->nr_kernel;
		g_items.first_kip = it->kernel_ips[0];
	}
	if (it->pid == 7 && it->nr_kernel == 2 && it->nr_user == 1 &&
	    ((uintptr_t)it->kernel_ips & 7) == 0 && it->kernel_ips[1] == 0xffffffff81000020ull &&
	    it->user_ips[0] == 0x401000 && it->state == 'S' && !strcmp(it->comm, "seven"))
		g_items.refs_ok++;
}

static const struct pp_analyzer items_analyzer = {
	.name = "items",
	.bpf_agg = PP_AGG_OFFCPU,
	.init = items_init,
	.bpf_item = items_item,
};

static void run_items(const char *path, const char *pids)
{
	struct pp_opts o = { .output = "/dev/null", .pids = pids };
	struct pp_session *s = pp_session__new(&items_analyzer, &o);

	memset(&g_items, 0, sizeof(g_items));
	assert_non_null(s);
	assert_int_equal(pp_session__open_file(s, path), 0);
	assert_int_equal(pp_session__run(s), 0);
	pp_session__free(s);
}

/*
 * A file of two BPF_AGG chunks (an offcpu window with STACK, OFFCPU_REF and
 * inline items, a lock window and item, a malformed item): the module gets
 * the offcpu windows and aggregates only, after its init, with the REF's
 * frames resolved into aligned arrays; -p keeps the aggregates of its pids.
 */
static void test_core_items(void **state)
{
	uint64_t k[2] = { 0xffffffff81000010ull, 0xffffffff81000020ull }, u[1] = { 0x401000 };
	struct pp_bpf_agg_stack seven = { .pid = 7, .tid = 8, .total_ns = 100, .count = 2,
					  .state = 'S', .comm = "seven" };
	struct pp_bpf_agg_stack nine = { .pid = 9, .tid = 9, .total_ns = 50, .count = 1,
					 .state = 'D', .comm = "nine" };
	struct pp_bpf_agg_window w = { .source = PP_BPF_SRC_OFFCPU, .start_ns = 1000,
				       .end_ns = 2000 };
	struct pp_bpf_agg_stack lk = { .pid = 7, .tid = 8, .total_ns = 5, .count = 1,
				       .addr = 0x1234 };
	char path[64];
	struct pp_buf b;
	struct pp_writer *wr;
	struct pp_io *io;
	size_t at;
	int fd;

	snprintf(path, sizeof(path), "/tmp/pp-test-items-%d.trace", getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	io = pp_io_file__new(fd, 1);
	wr = pp_writer__new(io, NULL);
	assert_non_null(wr);
	pp_buf__init(&b);
	pp_machine__put(&b, "hostname", "testhost");
	{
		struct pp_chunk_desc d = { .type = PP_CHUNK_MACHINE, .stream = PP_STREAM_META };

		assert_int_equal(pp_writer__append_chunk(wr, &d, b.data, b.len), 0);
	}
	/* chunk 1: offcpu window, two stacks by name, a REF to them, an inline item */
	pp_buf__reset(&b);
	at = pp_item__begin(&b, PP_BPF_AGG_WINDOW);
	pp_buf__append(&b, &w, sizeof(w));
	pp_item__end(&b, at);
	pp_bpf_put_stack_def(&b, 0x11, k, 2);
	pp_bpf_put_stack_def(&b, 0x23, u, 1);
	pp_bpf_put_ref(&b, &seven, 0x11, 0x23);
	pp_bpf_put_stack(&b, PP_BPF_AGG_OFFCPU, &nine, k, 1, NULL, 0, NULL, NULL);
	at = pp_item__begin(&b, PP_BPF_AGG_OFFCPU);	/* malformed: shorter than its header */
	pp_buf__append(&b, &nine, 8);
	pp_item__end(&b, at);
	{
		struct pp_chunk_desc d = { .type = PP_CHUNK_BPF_AGG, .stream = PP_STREAM_META,
					   .first_ts = 1000, .last_ts = 2000 };

		assert_int_equal(pp_writer__append_chunk(wr, &d, b.data, b.len), 0);
	}
	/* chunk 2: a lock window and item (not the module's), another offcpu window */
	pp_buf__reset(&b);
	w.source = PP_BPF_SRC_LOCK;
	at = pp_item__begin(&b, PP_BPF_AGG_WINDOW);
	pp_buf__append(&b, &w, sizeof(w));
	pp_item__end(&b, at);
	pp_bpf_put_stack(&b, PP_BPF_AGG_LOCK, &lk, NULL, 0, u, 1, NULL, NULL);
	w.source = PP_BPF_SRC_OFFCPU;
	w.start_ns = 2000;
	w.end_ns = 3000;
	at = pp_item__begin(&b, PP_BPF_AGG_WINDOW);
	pp_buf__append(&b, &w, sizeof(w));
	pp_item__end(&b, at);
	pp_bpf_put_ref(&b, &seven, 0x11, 0x23);
	{
		struct pp_chunk_desc d = { .type = PP_CHUNK_BPF_AGG, .stream = PP_STREAM_META,
					   .first_ts = 2000, .last_ts = 3000 };

		assert_int_equal(pp_writer__append_chunk(wr, &d, b.data, b.len), 0);
	}
	assert_int_equal(pp_writer__close(wr), 0);
	pp_io__free(io);
	pp_buf__exit(&b);

	run_items(path, NULL);
	assert_int_equal(g_items.before_init, 0);
	assert_int_equal(g_items.windows, 2);
	assert_true(g_items.start_ns == 2000);
	assert_int_equal(g_items.stacks, 3);
	assert_int_equal(g_items.refs_ok, 2);
	assert_true(g_items.total_ns == 100 + 50 + 100);

	run_items(path, "9");
	assert_int_equal(g_items.windows, 2);
	assert_int_equal(g_items.stacks, 1);
	assert_int_equal(g_items.pids[0], 9);
	unlink(path);
}

/*
 * A stack of 65,535 frames referenced 100 times: the module sees it cut to
 * 1,024 frames (innermost kept), so a crafted file cannot make it copy
 * 512 KB per reference.
 */
static void test_deep_stack_cut(void **state)
{
	struct pp_bpf_agg_stack one = { .pid = 7, .tid = 8, .total_ns = 1, .count = 1,
					.state = 'S', .comm = "deep" };
	struct pp_bpf_agg_window w = { .source = PP_BPF_SRC_OFFCPU, .start_ns = 1000,
				       .end_ns = 2000 };
	struct pp_chunk_desc d = { .type = PP_CHUNK_BPF_AGG, .stream = PP_STREAM_META,
				   .first_ts = 1000, .last_ts = 2000 };
	uint64_t *ips = malloc(65535 * sizeof(*ips));
	char path[64];
	struct pp_buf b;
	struct pp_writer *wr;
	struct pp_io *io;
	size_t at;
	int fd;

	assert_non_null(ips);
	for (int i = 0; i < 65535; i++)
		ips[i] = 0xffffffff81000000ull + (uint64_t)i;
	snprintf(path, sizeof(path), "/tmp/pp-test-deep-%d.trace", getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	io = pp_io_file__new(fd, 1);
	wr = pp_writer__new(io, NULL);
	assert_non_null(wr);
	pp_buf__init(&b);
	at = pp_item__begin(&b, PP_BPF_AGG_WINDOW);
	pp_buf__append(&b, &w, sizeof(w));
	pp_item__end(&b, at);
	pp_bpf_put_stack_def(&b, 0x11, ips, 65535);
	for (int i = 0; i < 100; i++)
		pp_bpf_put_ref(&b, &one, 0x11, 0);
	assert_int_equal(pp_writer__append_chunk(wr, &d, b.data, b.len), 0);
	assert_int_equal(pp_writer__close(wr), 0);
	pp_io__free(io);
	pp_buf__exit(&b);
	free(ips);

	run_items(path, NULL);
	assert_int_equal(g_items.stacks, 100);
	assert_int_equal(g_items.max_kernel, 1024);
	assert_true(g_items.first_kip == 0xffffffff81000000ull);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_core_items),
		cmocka_unit_test(test_deep_stack_cut),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
