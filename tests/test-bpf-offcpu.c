// SPDX-License-Identifier: MIT
/*
 * Off-CPU aggregation in the kernel (record/bpf-offcpu.c, bpf/offcpu.bpf.c)
 * with ground truth: tests/helpers/bpf-sleeper sleeps 20 x 50 ms inside
 * pp_sleep_here() and prints that function's address and size. The drained
 * BPF_AGG items must hold about 1 s of 'S' time for the helper, on a user
 * stack whose innermost frame lies inside pp_sleep_here. The test then
 * writes a trace file the way pp-record will (MACHINE, TASKS, MMAPS,
 * BPF_AGG, KSYMS, USYMS) and, when pp-analyze is beside the test binary,
 * checks that `pp-analyze offcpu` names pp_sleep_here from the file alone.
 * Skips where BPF is unavailable or the helper is not built.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <cmocka.h>
#include <bpf/bpf.h>

#include "pp/bpf.h"
#include "pp/bpf-agg.h"
#include "pp/format.h"
#include "pp/io.h"
#include "pp/meta.h"
#include "pp/writer.h"
#include "../record/record.h"
#include "../bpf/offcpu.h"

static char exe_dir[PATH_MAX];

static int find_file(const char *const *cands, char *out, size_t len)
{
	for (int i = 0; cands[i]; i++) {
		snprintf(out, len, "%s/%s", exe_dir, cands[i]);
		if (!access(out, X_OK))
			return 0;
	}
	return -ENOENT;
}

struct sleeper {
	pid_t pid;
	uint64_t func, size;
	int go, out;
};

/* Fork the helper, stopped until sleeper_go(). */
static int sleeper_start(struct sleeper *sl, const char *path)
{
	int gp[2], op[2];
	char c;

	if (pipe(gp) || pipe(op))
		return -errno;
	sl->pid = fork();
	if (sl->pid == 0) {
		close(gp[1]);
		close(op[0]);
		if (read(gp[0], &c, 1) != 1)
			_exit(1);
		dup2(op[1], 1);
		execl(path, path, "20", "50", (char *)NULL);
		_exit(127);
	}
	close(gp[0]);
	close(op[1]);
	sl->go = gp[1];
	sl->out = op[0];
	return sl->pid > 0 ? 0 : -errno;
}

static int sleeper_go(struct sleeper *sl)
{
	char line[128];
	ssize_t n;
	size_t got = 0;

	if (write(sl->go, "g", 1) != 1)
		return -EIO;
	while (got < sizeof(line) - 1 && (n = read(sl->out, line + got, sizeof(line) - 1 - got)) > 0) {
		got += (size_t)n;
		if (memchr(line, '\n', got))
			break;
	}
	line[got] = '\0';
	if (sscanf(line, "%lx %lx", &sl->func, &sl->size) != 2)
		return -EINVAL;
	return 0;
}

struct collected {
	struct pp_buf chunks[128];
	uint64_t first[128], last[128];
	int nr;
};

static void check_items(const struct collected *col, const struct sleeper *sl,
			uint64_t *total, int *found)
{
	struct pp_bpf_stacks *stacks = pp_bpf_stacks__new();

	assert_non_null(stacks);
	*total = 0;
	*found = 0;
	for (int i = 0; i < col->nr; i++) {
		struct pp_item_iter it;
		struct pp_item item;

		pp_item_iter__init(&it, col->chunks[i].data, col->chunks[i].len);
		while (pp_item_iter__next(&it, &item)) {
			struct pp_bpf_agg_entry e;
			int k = pp_bpf_agg__decode(&item, stacks, &e, NULL);

			assert_true(k >= 0);
			if (k != PP_BPF_AGG_OFFCPU || e.s.pid != (uint32_t)sl->pid)
				continue;
			if (e.s.state == 'S') {
				*total += e.s.total_ns;
				/* every blocking of the helper keeps its stacks */
				assert_true(e.s.nr_user > 0 && e.s.nr_kernel > 0);
			}
			for (unsigned int u = 0; u < e.s.nr_user; u++) {
				uint64_t ip = pp_bpf_agg__ip(e.user_ips, u);

				if (ip >= sl->func && ip < sl->func + sl->size)
					*found = 1;
			}
		}
		assert_int_equal(it.bad, 0);
	}
	assert_int_equal(pp_bpf_stacks__missing(stacks), 0);
	pp_bpf_stacks__free(stacks);
}

static void write_trace(const char *path, struct collected *col, struct pp_buf *tasks,
			struct pp_buf *mmaps, struct pp_syms *syms)
{
	struct pp_chunk_desc d = { .stream = PP_STREAM_META };
	struct pp_buf m, k, u, mm;
	struct pp_writer *w;
	struct pp_io *io;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	assert_true(fd >= 0);
	io = pp_io_file__new(fd, 1);
	assert_non_null(io);
	w = pp_writer__new(io, NULL);
	assert_non_null(w);
	pp_buf__init(&m);
	pp_machine__put(&m, "sysname", "Linux");
	pp_machine__put(&m, "clock", "monotonic");
	pp_machine__put(&m, "cmdline", "test-bpf-offcpu");
	d.type = PP_CHUNK_MACHINE;
	assert_int_equal(pp_writer__append_chunk(w, &d, m.data, m.len), 0);
	d.type = PP_CHUNK_TASKS;
	assert_int_equal(pp_writer__append_chunk(w, &d, tasks->data, tasks->len), 0);
	d.type = PP_CHUNK_MMAPS;
	assert_int_equal(pp_writer__append_chunk(w, &d, mmaps->data, mmaps->len), 0);
	for (int i = 0; i < col->nr; i++) {
		d.type = PP_CHUNK_BPF_AGG;
		d.first_ts = col->first[i];
		d.last_ts = col->last[i];
		assert_int_equal(pp_writer__append_chunk(w, &d, col->chunks[i].data,
							 col->chunks[i].len), 0);
	}
	d.first_ts = d.last_ts = 0;
	pp_buf__init(&k);
	pp_buf__init(&u);
	pp_buf__init(&mm);
	pp_syms__pending(syms, &k, &u, &mm);
	d.type = PP_CHUNK_KSYMS;
	if (k.len)
		assert_int_equal(pp_writer__append_chunk(w, &d, k.data, k.len), 0);
	d.type = PP_CHUNK_USYMS;
	if (u.len)
		assert_int_equal(pp_writer__append_chunk(w, &d, u.data, u.len), 0);
	assert_int_equal(pp_writer__close(w), 0);
	pp_io__free(io);
	pp_buf__exit(&m);
	pp_buf__exit(&k);
	pp_buf__exit(&u);
	pp_buf__exit(&mm);
}

static int ksym_text(void *ctx, uint64_t addr, char *text, size_t len)
{
	return pp_ksym_bpf__lookup(ctx, addr, text, len);
}

static void offcpu_sleeper(int no_bpf_loop)
{
	static const char *const helpers[] = { "helpers/bpf-sleeper", "../../tests/helpers/bpf-sleeper",
					       NULL };
	static const char *const analyzers[] = { "../pp-analyze", NULL };
	struct pp_bpf_offcpu_opts oo = { 0 };
	struct pp_bpf_offcpu *oc;
	struct pp_ksym_bpf *ksym;
	struct collected col = { .nr = 0 };
	struct pp_buf tasks, mmaps;
	struct pp_syms *syms;
	struct sleeper sl;
	char helper[PATH_MAX + 64], err[256];
	uint64_t total, wall;
	struct timespec t0, t1;
	int found, st, done = 0;

	if (pp_bpf__available(err, sizeof(err))) {
		print_message("skip: %s\n", err);
		skip();
	}
	if (find_file(helpers, helper, sizeof(helper))) {
		print_message("skip: tests/helpers/bpf-sleeper is not built\n");
		skip();
	}
	assert_int_equal(sleeper_start(&sl, helper), 0);
	oo.pid = sl.pid;
	oo.no_bpf_loop = no_bpf_loop;
	oc = pp_bpf_offcpu__new(&oo, err, sizeof(err));
	if (!oc)
		print_message("%s\n", err);
	assert_non_null(oc);
	syms = pp_syms__new(0);
	assert_non_null(syms);
	/* kernel symbols through the program the object carries (as pp-record) */
	ksym = pp_bpf_offcpu__ksym(oc);
	assert_non_null(ksym);
	pp_syms__set_ksym_fn(syms, ksym_text, ksym);
	pp_buf__init(&tasks);
	pp_buf__init(&mmaps);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(sleeper_go(&sl), 0);
	/*
	 * Its maps, as pp-record learns its targets' at the start: on a loaded
	 * host a drain may first meet its stacks after it has ended.
	 */
	pp_syms__learn(syms, (uint32_t)sl.pid, &tasks, &mmaps);
	/*
	 * Drain every 20 ms (the recorder: every second), so that unused
	 * stacks are released (every 16 drains) while the helper still
	 * sleeps on the same stack: no aggregate may lose its frames.
	 */
	while (!done && col.nr < 127) {
		usleep(20000);
		done = waitpid(sl.pid, &st, WNOHANG) == sl.pid;
		pp_buf__init(&col.chunks[col.nr]);
		assert_true(pp_bpf_offcpu__drain(oc, &col.chunks[col.nr], &col.first[col.nr],
						 &col.last[col.nr], syms, &tasks, &mmaps) >= 0);
		col.nr++;
	}
	assert_true(done);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	wall = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000ull + (uint64_t)t1.tv_nsec -
	       (uint64_t)t0.tv_nsec;
	check_items(&col, &sl, &total, &found);
	print_message("sleeper: %.3f s off-CPU in 'S' over %d drains; pp_sleep_here at %#lx %s\n",
		      (double)total / 1e9, col.nr, (unsigned long)sl.func,
		      found ? "found in a user stack" : "NOT found");
	/*
	 * 20 sleeps of 50 ms: at least 1 s, less the timer's slack; at most the
	 * helper's whole life, since a loaded host adds its run-queue wait
	 * after each wakeup to the time off the CPU.
	 */
	print_message("the helper lived %.3f s\n", (double)wall / 1e9);
	assert_true(total >= 900000000ull && total <= wall);
	assert_true(found);

	{
		char trace[] = "/tmp/pp-test-offcpu-XXXXXX", cmd[2 * PATH_MAX + 128], analyze[PATH_MAX + 64];
		char line[512];
		int tfd = mkstemp(trace), named = 0;
		FILE *p;

		assert_true(tfd >= 0);
		close(tfd);
		write_trace(trace, &col, &tasks, &mmaps, syms);
		if (!find_file(analyzers, analyze, sizeof(analyze))) {
			snprintf(cmd, sizeof(cmd), "%s offcpu %s 2>&1", analyze, trace);
			p = popen(cmd, "r");
			assert_non_null(p);
			while (fgets(line, sizeof(line), p)) {
				print_message("| %s", line);
				if (strstr(line, "pp_sleep_here"))
					named |= 1;
				if (strstr(line, "do_nanosleep_[k]"))
					named |= 2;
			}
			assert_int_equal(pclose(p), 0);
			assert_int_equal(named, 3);
		} else {
			print_message("pp-analyze not beside the test: file round trip not checked\n");
		}
		unlink(trace);
	}
	for (int i = 0; i < col.nr; i++)
		pp_buf__exit(&col.chunks[i]);
	pp_buf__exit(&tasks);
	pp_buf__exit(&mmaps);
	pp_syms__free(syms);
	pp_ksym_bpf__free(ksym);
	pp_bpf_offcpu__free(oc);
	close(sl.go);
	close(sl.out);
}

static void test_offcpu_sleeper(void **state)
{
	offcpu_sleeper(0);
}

/* The same where the kernel has no bpf_loop() (before 5.17): stacks hashed in blocks. */
static void test_offcpu_sleeper_no_bpf_loop(void **state)
{
	offcpu_sleeper(1);
}

/*
 * WINDOW items: the 40-byte form round-trips; a 32-byte one from older files
 * reads with stacks_lost 0; anything shorter is malformed.
 */
static void test_window_sizes(void **state)
{
	struct pp_bpf_agg_window w = {
		.source = PP_BPF_SRC_OFFCPU, .nr_items = 3, .start_ns = 10, .end_ns = 20,
		.dropped = 4, .stacks_lost = 5,
	}, got;
	uint8_t body[sizeof(w)];
	struct pp_item item = { .kind = PP_BPF_AGG_WINDOW, .body = body };

	memcpy(body, &w, sizeof(w));
	item.size = sizeof(w);
	assert_int_equal(pp_bpf_agg__decode(&item, NULL, NULL, &got), PP_BPF_AGG_WINDOW);
	assert_memory_equal(&got, &w, sizeof(w));
	item.size = 32;
	memset(&got, 0xff, sizeof(got));
	assert_int_equal(pp_bpf_agg__decode(&item, NULL, NULL, &got), PP_BPF_AGG_WINDOW);
	assert_true(got.dropped == 4 && got.end_ns == 20 && got.nr_items == 3);
	assert_true(got.stacks_lost == 0);
	item.size = 31;
	assert_int_equal(pp_bpf_agg__decode(&item, NULL, NULL, &got), -EINVAL);
}

/*
 * STACK items define stacks once; OFFCPU_REF items read them back by name;
 * a name never defined reads as no stack and is counted; malformed items
 * are refused; without a table both kinds are skipped.
 */
static void test_stack_refs(void **state)
{
	uint64_t k[3] = { 0xffffffff81000010ull, 0xffffffff81000020ull, 0xffffffff81000030ull };
	uint64_t u[2] = { 0x401000, 0x401100 };
	struct pp_bpf_agg_stack hdr = { .pid = 7, .tid = 8, .total_ns = 100, .count = 2,
					.state = 'S' };
	struct pp_bpf_stacks *t = pp_bpf_stacks__new();
	struct pp_item_iter it;
	struct pp_item item;
	struct pp_bpf_agg_entry e;
	struct pp_buf b;
	int kinds[8], n = 0;

	assert_non_null(t);
	pp_buf__init(&b);
	pp_bpf_put_stack_def(&b, 0x11, k, 3);
	pp_bpf_put_stack_def(&b, 0x23, u, 2);
	pp_bpf_put_ref(&b, &hdr, 0x11, 0x23);
	pp_bpf_put_ref(&b, &hdr, 0x11, 0x99);	/* user stack never defined */
	pp_bpf_put_ref(&b, &hdr, 0, 0);
	pp_item_iter__init(&it, b.data, b.len);
	while (pp_item_iter__next(&it, &item)) {
		kinds[n] = pp_bpf_agg__decode(&item, t, &e, NULL);
		if (n == 2) {
			assert_int_equal(e.s.nr_kernel, 3);
			assert_int_equal(e.s.nr_user, 2);
			assert_true(pp_bpf_agg__ip(e.kernel_ips, 2) == k[2]);
			assert_true(pp_bpf_agg__ip(e.user_ips, 1) == u[1]);
			assert_true(e.s.pid == 7 && e.s.total_ns == 100 && e.s.state == 'S');
		} else if (n == 3) {
			assert_int_equal(e.s.nr_kernel, 3);
			assert_int_equal(e.s.nr_user, 0);
		} else if (n == 4) {
			assert_int_equal(e.s.nr_kernel + e.s.nr_user, 0);
		}
		n++;
	}
	assert_int_equal(n, 5);
	assert_int_equal(kinds[0], PP_BPF_AGG_STACK);
	assert_int_equal(kinds[1], PP_BPF_AGG_STACK);
	assert_int_equal(kinds[2], PP_BPF_AGG_OFFCPU);
	assert_int_equal(kinds[3], PP_BPF_AGG_OFFCPU);
	assert_int_equal(kinds[4], PP_BPF_AGG_OFFCPU);
	assert_int_equal(pp_bpf_stacks__missing(t), 1);
	/* without a table: skipped */
	pp_item_iter__init(&it, b.data, b.len);
	while (pp_item_iter__next(&it, &item))
		assert_int_equal(pp_bpf_agg__decode(&item, NULL, &e, NULL), 0);
	/* malformed: a STACK item shorter than its frames, id 0, a short REF */
	{
		struct pp_bpf_agg_stack_def def = { .id = 5, .nr = 4 };
		uint8_t body[16 + 8 * 3];
		struct pp_item bad = { .kind = PP_BPF_AGG_STACK, .body = body, .size = sizeof(body) };

		memset(body, 0, sizeof(body));
		memcpy(body, &def, sizeof(def));
		assert_int_equal(pp_bpf_agg__decode(&bad, t, &e, NULL), -EINVAL);
		def.id = 0;
		def.nr = 1;
		memcpy(body, &def, sizeof(def));
		assert_int_equal(pp_bpf_agg__decode(&bad, t, &e, NULL), -EINVAL);
		bad.kind = PP_BPF_AGG_OFFCPU_REF;
		bad.size = PP_BPF_AGG_REF_SIZE - 1;
		assert_int_equal(pp_bpf_agg__decode(&bad, t, &e, NULL), -EINVAL);
	}
	pp_buf__exit(&b);
	pp_bpf_stacks__free(t);
}

struct untraced {
	int start_fd;
	pid_t tid;
	int ok;
};

/*
 * The worker: plays an interval whose switch-in the kernel did not trace
 * (an entry in `start` while it runs, 'D', 5 ms old), then sleeps 20 ms
 * at once, so that its next switch-out meets that entry.
 */
static void *untraced_worker(void *arg)
{
	struct untraced *u = arg;
	struct timespec now, nap = { 0, 20000000 };
	struct pp_offcpu_start st;
	uint32_t key;

	u->tid = (pid_t)syscall(SYS_gettid);
	key = (uint32_t)u->tid;
	clock_gettime(CLOCK_MONOTONIC, &now);
	memset(&st, 0, sizeof(st));
	st.ts = (unsigned long long)now.tv_sec * 1000000000ull + (unsigned long long)now.tv_nsec -
		5000000ull;
	st.tgid = (unsigned int)getpid();
	st.state = 'D';
	u->ok = !bpf_map_update_elem(u->start_fd, &key, &st, BPF_ANY);
	nanosleep(&nap, NULL);
	return NULL;
}

/*
 * A thread switched in without a sched_switch (this VM's idle CPU, now and
 * then) still has its entry when it next leaves: that interval is counted
 * there, once, ending at that switch-out (spec/pp-bpf.md, section 4) -
 * before, the new entry replaced it and the wait was lost.
 */
static void test_untraced_switch_in(void **state)
{
	pid_t self = getpid();
	struct pp_bpf_offcpu_opts oo = { .pids = &self, .nr_pids = 1 };
	struct pp_bpf_offcpu *oc;
	struct pp_bpf_stacks *stacks;
	struct untraced u = { 0 };
	struct pp_item_iter it;
	struct pp_item item;
	struct pp_buf b;
	pthread_t t;
	uint64_t d_count = 0, d_ns = 0, s_count = 0;
	char err[256];

	if (pp_bpf__available(err, sizeof(err))) {
		print_message("skip: %s\n", err);
		skip();
	}
	oc = pp_bpf_offcpu__new(&oo, err, sizeof(err));
	if (!oc)
		fail_msg("%s", err);
	u.start_fd = pp_bpf_offcpu__start_fd(oc);
	assert_int_equal(pthread_create(&t, NULL, untraced_worker, &u), 0);
	pthread_join(t, NULL);
	assert_true(u.ok);
	stacks = pp_bpf_stacks__new();
	assert_non_null(stacks);
	pp_buf__init(&b);
	assert_true(pp_bpf_offcpu__drain(oc, &b, NULL, NULL, NULL, NULL, NULL) > 0);
	pp_item_iter__init(&it, b.data, b.len);
	while (pp_item_iter__next(&it, &item)) {
		struct pp_bpf_agg_entry e;

		if (pp_bpf_agg__decode(&item, stacks, &e, NULL) != PP_BPF_AGG_OFFCPU ||
		    e.s.tid != (uint32_t)u.tid)
			continue;
		if (e.s.state == 'D') {
			d_count += e.s.count;
			d_ns += e.s.total_ns;
		} else if (e.s.state == 'S') {
			s_count += e.s.count;
		}
	}
	print_message("untraced switch-in: D %llu times, %llu ns; S %llu times\n",
		      (unsigned long long)d_count, (unsigned long long)d_ns,
		      (unsigned long long)s_count);
	assert_int_equal(d_count, 1);
	assert_true(d_ns >= 5000000);
	assert_true(s_count >= 1);
	pp_buf__exit(&b);
	pp_bpf_stacks__free(stacks);
	pp_bpf_offcpu__free(oc);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window_sizes),
		cmocka_unit_test(test_stack_refs),
		cmocka_unit_test(test_untraced_switch_in),
		cmocka_unit_test(test_offcpu_sleeper),
		cmocka_unit_test(test_offcpu_sleeper_no_bpf_loop),
	};
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n > 0) {
		self[n] = '\0';
		snprintf(exe_dir, sizeof(exe_dir), "%s", dirname(self));
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
