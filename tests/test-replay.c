// SPDX-License-Identifier: MIT
/*
 * Replay core tests on traces written with pp_writer: cross-CPU merge order,
 * out-of-order counting, tracepoint decoding from the embedded format, comm
 * and lost windows, and damaged files (truncated, bit-flipped) that must give
 * the intact part plus a warning, never a crash.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <linux/perf_event.h>
#include "pp/analyzer.h"
#include "pp/format.h"
#include "pp/io.h"
#include "pp/meta.h"
#include "pp/replay.h"
#include "pp/writer.h"
#include "../replay/replay-internal.h"

static const char header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";

static const char wakeup_fmt[] =
	"name: sched_wakeup\nID: 300\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"comm=%s pid=%d prio=%d target_cpu=%03d\", REC->comm, REC->pid, REC->prio, "
	"REC->target_cpu\n";

#define SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
		     PERF_SAMPLE_CPU | PERF_SAMPLE_RAW)
#define EV_ID 1000

/* A SAMPLE of sched_wakeup: id, pid/tid, time, cpu, raw. */
static size_t put_sample(uint8_t *p, uint32_t cpu, uint64_t ts, uint32_t pid, int prio)
{
	uint8_t raw[36];
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .misc = PERF_RECORD_MISC_KERNEL };
	uint64_t id = EV_ID;
	uint32_t u32[2] = { pid, pid }, raw_size = sizeof(raw);
	uint32_t cpu_res[2] = { cpu, 0 };
	size_t off = 8;

	memset(raw, 0, sizeof(raw));
	raw[0] = 300 & 0xff;
	raw[1] = 300 >> 8;
	memcpy(raw + 4, &pid, 4);
	snprintf((char *)raw + 8, 16, "task%u", pid);
	memcpy(raw + 24, &pid, 4);
	memcpy(raw + 28, &prio, 4);
	memcpy(raw + 32, &cpu, 4);
	memcpy(p + off, &id, 8); off += 8;
	memcpy(p + off, u32, 8); off += 8;
	memcpy(p + off, &ts, 8); off += 8;
	memcpy(p + off, cpu_res, 8); off += 8;
	memcpy(p + off, &raw_size, 4); off += 4;
	memcpy(p + off, raw, sizeof(raw)); off += sizeof(raw);
	h.size = (uint16_t)off;
	memcpy(p, &h, 8);
	return off;
}

/* A PERF_RECORD_LOST with a sample_id trailer. */
static size_t put_lost(uint8_t *p, uint32_t cpu, uint64_t ts, uint64_t n)
{
	struct perf_event_header h = { .type = PERF_RECORD_LOST, .size = 56 };
	uint64_t body[2] = { EV_ID, n };
	uint32_t tid[2] = { 0, 0 }, cpu_res[2] = { cpu, 0 };
	uint64_t id = EV_ID;

	memcpy(p, &h, 8);
	memcpy(p + 8, body, 16);
	memcpy(p + 24, tid, 8);
	memcpy(p + 32, &ts, 8);
	memcpy(p + 40, cpu_res, 8);
	memcpy(p + 48, &id, 8);
	return 56;
}

static void append(struct pp_writer *w, uint16_t type, uint32_t stream, const void *p, size_t n,
		   uint64_t first, uint64_t last, uint64_t nr)
{
	struct pp_chunk_desc d = { .type = type, .stream = stream, .first_ts = first,
				   .last_ts = last, .nr_records = nr,
				   .flags = type == PP_CHUNK_DATA ? PP_CHUNK_CRITICAL : 0 };

	assert_int_equal(pp_writer__append_chunk(w, &d, p, n), 0);
}

/*
 * Write a trace: metadata, then per CPU 3 DATA chunks of @per records; CPU c
 * has times c + 2k (interleaved). With @swap, one record is out of order.
 * Returns the path.
 */
static uint32_t g_nr_cpus = 2;	/* streams of make_trace() */

static const char *make_trace(int per, int with_lost, int do_close)
{
	static char path[64];
	struct pp_buf b;
	struct pp_writer *w;
	struct pp_io *io;
	int fd;

	snprintf(path, sizeof(path), "/tmp/pp-test-replay-%d.trace", getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	io = pp_io_file__new(fd, 1);
	assert_non_null(io);
	w = pp_writer__new(io, NULL);
	assert_non_null(w);

	pp_buf__init(&b);
	pp_machine__put(&b, "hostname", "testhost");
	pp_machine__put(&b, "release", "6.18.0");
	{
		char n[16];	/* the streams' CPUs: a sample on another is damage */

		snprintf(n, sizeof(n), "%u", g_nr_cpus);
		pp_machine__put(&b, "nr_cpus", n);
	}
	pp_machine__put(&b, "start_realtime_ns", "1700000000000000000");
	pp_machine__put(&b, "start_monotonic_ns", "1000");
	append(w, PP_CHUNK_MACHINE, PP_STREAM_META, b.data, b.len, 0, 0, 0);

	pp_buf__reset(&b);
	size_t it = pp_item__begin(&b, PP_FMT_HEADER_PAGE);
	pp_buf__append_str(&b, "header_page");
	pp_buf__append_str(&b, "header_page");
	pp_buf__append_str(&b, header_page);
	pp_item__end(&b, it);
	it = pp_item__begin(&b, PP_FMT_EVENT);
	pp_buf__append_str(&b, "sched");
	pp_buf__append_str(&b, "sched_wakeup");
	pp_buf__append_str(&b, wakeup_fmt);
	pp_item__end(&b, it);
	append(w, PP_CHUNK_FORMATS, PP_STREAM_META, b.data, b.len, 0, 0, 0);

	pp_buf__reset(&b);
	{
		struct perf_event_attr attr = { .type = PERF_TYPE_TRACEPOINT, .size = sizeof(attr),
						.config = 300, .sample_type = SAMPLE_TYPE,
						.sample_id_all = 1 };
		uint32_t hdr[2] = { sizeof(attr), 2 };
		uint64_t ids[2] = { EV_ID, EV_ID + 1 };

		it = pp_item__begin(&b, 0);
		pp_buf__append(&b, hdr, 8);
		pp_buf__append(&b, &attr, sizeof(attr));
		pp_buf__pad(&b, 8);
		pp_buf__append(&b, ids, sizeof(ids));
		pp_buf__append_str(&b, "sched:sched_wakeup");
		pp_item__end(&b, it);
	}
	append(w, PP_CHUNK_ATTRS, PP_STREAM_META, b.data, b.len, 0, 0, 0);

	pp_buf__reset(&b);
	{
		struct pp_task_item t = { .pid = 7, .tid = 7 };

		snprintf(t.comm, sizeof(t.comm), "seven");
		it = pp_item__begin(&b, 0);
		pp_buf__append(&b, &t, sizeof(t));
		pp_item__end(&b, it);
	}
	append(w, PP_CHUNK_TASKS, PP_STREAM_META, b.data, b.len, 0, 0, 0);

	uint8_t *data = malloc((size_t)per * 96 + 64);

	assert_non_null(data);
	for (int chunk = 0; chunk < 3; chunk++) {
		for (uint32_t cpu = 0; cpu < g_nr_cpus; cpu++) {
			size_t len = 0;
			uint64_t first = 0, last = 0;

			for (int k = 0; k < per; k++) {
				uint64_t ts = 1000000 + (uint64_t)(chunk * per + k) * g_nr_cpus * 1000 +
					      cpu * 1000;

				if (!first)
					first = ts;
				last = ts;
				len += put_sample(data + len, cpu, ts, 7 + cpu, chunk * per + k);
			}
			if (with_lost && cpu == 1 && chunk == 1)
				len += put_lost(data + len, cpu, last, 5);
			append(w, PP_CHUNK_DATA, cpu, data, len, first, last, (uint64_t)per);
		}
	}
	free(data);
	pp_buf__exit(&b);
	if (do_close)
		assert_int_equal(pp_writer__close(w), 0);
	else
		pp_writer__abort(w);
	pp_io__free(io);
	return path;
}

/* A counting analyzer that checks the time order. */
struct counter {
	uint64_t samples, lost, lost_windows, last_ts, order_errors, comm_ok;
	int prio_next[2];
};

static struct counter g_cnt;

static void cnt_sample(struct pp_session *s, const struct pp_event *e)
{
	uint64_t prio;

	if (e->time < g_cnt.last_ts)
		g_cnt.order_errors++;
	g_cnt.last_ts = e->time;
	g_cnt.samples++;
	if (!strcmp(pp_session__comm(s, 7), "seven"))
		g_cnt.comm_ok++;
	if (!pp_event__num(e, pp_evsel__field(e->evsel, "prio"), &prio) && e->cpu < 2) {
		if ((int)prio != g_cnt.prio_next[e->cpu])
			g_cnt.order_errors++;
		g_cnt.prio_next[e->cpu] = (int)prio + 1;
	}
}

static void cnt_lost(struct pp_session *s, const struct pp_lost *l)
{
	g_cnt.lost += l->count;
	g_cnt.lost_windows++;
}

static const struct pp_analyzer counter_analyzer = {
	.name = "counter",
	.opts = PP_OPT_EVENTS,
	.sample = cnt_sample,
	.lost = cnt_lost,
};

static int run_counter(const char *path)
{
	struct pp_opts o = { .output = "/dev/null" };
	struct pp_session *s = pp_session__new(&counter_analyzer, &o);
	int ret;

	memset(&g_cnt, 0, sizeof(g_cnt));
	assert_non_null(s);
	ret = pp_session__open_file(s, path);
	if (!ret)
		ret = pp_session__run(s);
	pp_session__free(s);
	return ret;
}

static void test_merge_order(void **state)
{
	const char *path = make_trace(50, 1, 1);

	assert_int_equal(run_counter(path), 0);
	assert_int_equal(g_cnt.samples, 300);
	assert_int_equal(g_cnt.order_errors, 0);
	assert_int_equal(g_cnt.comm_ok, 300);
	assert_int_equal(g_cnt.lost, 5);
	assert_int_equal(g_cnt.lost_windows, 1);
	unlink(path);
}

/* 16 streams: the heap merge (more than 8 streams) keeps exact time order. */
static void test_merge_heap(void **state)
{
	const char *path;

	g_nr_cpus = 16;
	path = make_trace(30, 1, 1);
	g_nr_cpus = 2;
	assert_int_equal(run_counter(path), 0);
	assert_int_equal(g_cnt.samples, 16 * 3 * 30);
	assert_int_equal(g_cnt.order_errors, 0);
	assert_int_equal(g_cnt.lost, 5);
	unlink(path);
}

/* Kernel symbols: the recorded size bounds a symbol; past it, [kernel]+0x / module+0x. */
static void test_ksym_size(void **state)
{
	struct pp_symtab *t = pp_symtab__new();
	struct pp_buf b;
	char name[64];
	const char *dso;
	uint32_t nr = 2, zero = 0;
	struct { uint64_t addr; uint32_t size; char type; const char *name; } syms[2] = {
		{ 0xffffffff81000000ull, 0x100, 'T', "_stext" },
		{ 0xffffffff81001000ull, 0x40, 'T', "do_thing" },
	};

	assert_non_null(t);
	pp_buf__init(&b);
	pp_buf__append_str(&b, "");
	pp_buf__pad(&b, 8);
	pp_buf__append(&b, &nr, 4);
	pp_buf__append(&b, &zero, 4);
	for (int i = 0; i < 2; i++) {
		pp_buf__append(&b, &syms[i].addr, 8);
		pp_buf__append(&b, &syms[i].size, 4);
		pp_buf__append(&b, &syms[i].type, 1);
		pp_buf__append_str(&b, syms[i].name);
	}
	assert_int_equal(pp_symtab__add_ksyms(t, b.data, b.len), 0);
	pp_buf__reset(&b);
	pp_buf__append_str(&b, "e1000");
	pp_buf__pad(&b, 8);
	nr = 1;
	pp_buf__append(&b, &nr, 4);
	pp_buf__append(&b, &zero, 4);
	{
		uint64_t a = 0xffffffffc0000000ull;
		uint32_t sz = 0x20;
		char ty = 't';

		pp_buf__append(&b, &a, 8);
		pp_buf__append(&b, &sz, 4);
		pp_buf__append(&b, &ty, 1);
		pp_buf__append_str(&b, "e1000_xmit");
	}
	assert_int_equal(pp_symtab__add_ksyms(t, b.data, b.len), 0);
	pp_buf__exit(&b);

	assert_int_equal(pp_symtab__lookup(t, 0, 0xffffffff8100103full, 1, name, sizeof(name), &dso), 1);
	assert_string_equal(name, "do_thing");
	assert_string_equal(dso, "[kernel.kallsyms]");
	assert_int_equal(pp_symtab__lookup(t, 0, 0xffffffff81001040ull, 1, name, sizeof(name), &dso), 0);
	assert_string_equal(name, "[kernel]+0x1040");
	assert_int_equal(pp_symtab__lookup(t, 0, 0xffffffffc0000100ull, 1, name, sizeof(name), &dso), 0);
	assert_string_equal(name, "e1000+0x100");
	assert_string_equal(dso, "e1000");
	pp_symtab__free(t);
}

/*
 * A forked process shares its parent's maps: lookups in the child name the
 * parent's DSOs; a later mmap in either changes only that process; the
 * symbol version follows the map set, not the pid.
 */
static void test_fork_maps(void **state)
{
	struct pp_symtab *t = pp_symtab__new();
	uint64_t ksyms, dsos, dsos_syms, maps, v;
	const char *dso;
	char name[128];

	assert_non_null(t);
	assert_int_equal(pp_symtab__add_mmap(t, 100, 0x1000, 0x1000, 0, NULL, 0, "/x/a.so"), 0);
	assert_int_equal(pp_symtab__add_mmap(t, 100, 0x3000, 0x1000, 0, NULL, 0, "/x/b.so"), 0);
	pp_symtab__fork(t, 100, 200);
	assert_true(pp_symtab__version(t, 200, 0) == pp_symtab__version(t, 100, 0));
	pp_symtab__lookup(t, 200, 0x1010, 0, name, sizeof(name), &dso);
	assert_string_equal(dso, "a.so");
	pp_symtab__coverage(t, &ksyms, &dsos, &dsos_syms, &maps);
	assert_int_equal(maps, 4);		/* counted per process */

	/* the parent maps c.so over a.so: the child keeps a.so */
	v = pp_symtab__version(t, 200, 0);
	assert_int_equal(pp_symtab__add_mmap(t, 100, 0x1000, 0x800, 0, NULL, 0, "/x/c.so"), 0);
	assert_true(pp_symtab__version(t, 200, 0) == v);
	assert_true(pp_symtab__version(t, 100, 0) != v);
	pp_symtab__lookup(t, 100, 0x1010, 0, name, sizeof(name), &dso);
	assert_string_equal(dso, "c.so");
	pp_symtab__lookup(t, 200, 0x1010, 0, name, sizeof(name), &dso);
	assert_string_equal(dso, "a.so");
	pp_symtab__lookup(t, 100, 0x1900, 0, name, sizeof(name), &dso);
	assert_string_equal(dso, "[unknown]");	/* a.so's overlapped map is gone */

	/* the child maps d.so: the parent is unchanged */
	assert_int_equal(pp_symtab__add_mmap(t, 200, 0x5000, 0x1000, 0, NULL, 0, "/x/d.so"), 0);
	pp_symtab__lookup(t, 100, 0x5010, 0, name, sizeof(name), &dso);
	assert_string_equal(dso, "[unknown]");
	pp_symtab__lookup(t, 200, 0x5010, 0, name, sizeof(name), &dso);
	assert_string_equal(dso, "d.so");
	pp_symtab__lookup(t, 200, 0x3010, 0, name, sizeof(name), &dso);
	assert_string_equal(dso, "b.so");

	/* a fork into a process with maps of its own merges the parent's in */
	pp_symtab__fork(t, 100, 200);
	pp_symtab__lookup(t, 200, 0x1010, 0, name, sizeof(name), &dso);
	assert_string_equal(dso, "c.so");
	pp_symtab__lookup(t, 200, 0x5010, 0, name, sizeof(name), &dso);
	assert_string_equal(dso, "d.so");
	pp_symtab__coverage(t, &ksyms, &dsos, &dsos_syms, &maps);
	assert_int_equal(maps, 2 + 3);	/* c, b; and c, b, d (c replaced a) */
	/* processes without maps share one version; the kernel has its own */
	assert_true(pp_symtab__version(t, 300, 0) == pp_symtab__version(t, 301, 0));
	assert_true(pp_symtab__version(t, 300, 1) != pp_symtab__version(t, 300, 0));
	pp_symtab__free(t);
}

/*
 * A FORK names the child after its parent: pp_session__set_comm() given
 * the parent's comm, a pointer into the task table, while adding the child
 * grows (and frees) that table. ASan saw the copy read freed memory.
 */
static void test_comm_from_table(void **state)
{
	struct pp_opts o = { .output = "/dev/null" };
	struct pp_session *s = pp_session__new(&counter_analyzer, &o);
	char want[16];

	assert_non_null(s);
	pp_session__set_comm(s, 1, 1, "parent");
	for (uint32_t tid = 2; tid < 5000; tid++)
		pp_session__set_comm(s, 1, tid, pp_session__comm(s, tid - 1 - (tid & 1)));
	for (uint32_t tid = 1; tid < 5000; tid++)
		assert_string_equal(pp_session__comm(s, tid), "parent");
	/* a comm of 15 bytes and more is cut at 15 */
	pp_session__set_comm(s, 9, 9, "0123456789abcdefXYZ");
	snprintf(want, sizeof(want), "%s", "0123456789abcde");
	assert_string_equal(pp_session__comm(s, 9), want);
	/* tid 0xffffffff, perf's "none", is no task: the table does not grow for it */
	{
		size_t cap = s->tasks_cap, nr = s->tasks_nr;

		for (int i = 0; i < 64; i++)
			pp_session__set_comm(s, 7, UINT32_MAX, "none");
		assert_int_equal(s->tasks_nr, nr);
		assert_int_equal(s->tasks_cap, cap);
		assert_string_equal(pp_session__comm(s, UINT32_MAX), "<...>");
	}
	pp_session__free(s);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Symbol tables fed by a hostile file stay O(log n) per item: 100k DSOs
 * (their lookup was linear), 100k maps of one process (each insertion
 * scanned them all) and 100k misses in a module of 100k symbols (each
 * walked back to the module's first symbol). Seconds before, not minutes.
 */
#define BIG_N	100000
static void test_symtab_big(void **state)
{
	struct pp_symtab *t = pp_symtab__new();
	uint64_t ksyms, dsos, dsos_syms, maps;
	struct pp_buf b;
	uint32_t nr = BIG_N, zero = 0;
	const char *dso;
	char name[64];
	double t0 = now_s();

	assert_non_null(t);
	for (uint32_t i = 0; i < BIG_N; i++) {
		snprintf(name, sizeof(name), "/lib/x%u.so", i);
		assert_int_equal(pp_symtab__add_mmap(t, 1, 0x10000 + i * 0x2000ull, 0x1000, 0, NULL, 0,
						     name), 0);
	}
	/* one process: each map replaces the last, over the same range */
	for (uint32_t i = 0; i < BIG_N; i++)
		assert_int_equal(pp_symtab__add_mmap(t, 2, 0x10000, 0x1000, 0, NULL, 0, "/lib/x7.so"), 0);
	pp_symtab__coverage(t, &ksyms, &dsos, &dsos_syms, &maps);
	assert_int_equal(dsos, BIG_N);
	assert_int_equal(maps, BIG_N + 1);
	pp_symtab__lookup(t, 1, 0x10000 + 4242 * 0x2000ull + 8, 0, name, sizeof(name), &dso);
	assert_string_equal(dso, "x4242.so");
	pp_symtab__lookup(t, 2, 0x10008, 0, name, sizeof(name), &dso);
	assert_string_equal(dso, "x7.so");

	/* a module of 100k symbols of 16 bytes each, every 64 bytes; misses in between */
	pp_buf__init(&b);
	pp_buf__append_str(&b, "big");
	pp_buf__pad(&b, 8);
	pp_buf__append(&b, &nr, 4);
	pp_buf__append(&b, &zero, 4);
	for (uint32_t i = 0; i < BIG_N; i++) {
		uint64_t a = 0xffffffffc0000000ull + i * 64ull;
		uint32_t sz = 16;
		char ty = 't';

		pp_buf__append(&b, &a, 8);
		pp_buf__append(&b, &sz, 4);
		pp_buf__append(&b, &ty, 1);
		pp_buf__append_str(&b, "f");
	}
	assert_int_equal(pp_symtab__add_ksyms(t, b.data, b.len), 0);
	pp_buf__exit(&b);
	for (uint32_t i = 0; i < BIG_N; i++) {
		uint64_t a = 0xffffffffc0000000ull + (BIG_N - 1 - i) * 64ull + 32;

		assert_int_equal(pp_symtab__lookup(t, 0, a, 1, name, sizeof(name), &dso), 0);
	}
	assert_string_equal(name, "big+0x20");
	pp_symtab__free(t);
	assert_true(now_s() - t0 < 20.0);
}

static void test_no_footer_scan(void **state)
{
	const char *path = make_trace(20, 0, 0);

	assert_int_equal(run_counter(path), 0);
	assert_int_equal(g_cnt.samples, 120);
	assert_int_equal(g_cnt.order_errors, 0);
	unlink(path);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static void test_trace_output(void **state)
{
	const char *path = make_trace(2, 0, 1);
	const struct pp_analyzer *a = pp_analyzer__find("trace");
	char out[80];
	struct pp_opts o;
	char err[128];
	char *argv[] = { "-e", NULL, NULL };
	char ev[] = "sched:sched_wakeup";
	struct pp_session *s;
	size_t len;
	char *text;

	assert_non_null(a);
	argv[1] = ev;
	assert_int_equal(pp_opts__parse(a, 2, argv, &o, err, sizeof(err)), 0);
	snprintf(out, sizeof(out), "/tmp/pp-test-replay-%d.out", getpid());
	o.output = out;
	s = pp_session__new(a, &o);
	assert_non_null(s);
	assert_int_equal(pp_session__open_file(s, path), 0);
	assert_int_equal(pp_session__run(s), 0);
	pp_session__free(s);
	text = slurp(out, &len);
	/* 12 events; the first from CPU 0 at 1000000 ns, pid 7, prio 0. */
	assert_non_null(strstr(text, "seven       7/7 [  0] 0.001000: sched:sched_wakeup: "
					"comm=task7 pid=7 prio=0 target_cpu=000\n"));
	assert_non_null(strstr(text, "      8/8 [  1] 0.001001: sched:sched_wakeup: "
					"comm=task8 pid=8 prio=0 target_cpu=001\n"));
	{
		int lines = 0;

		for (size_t i = 0; i < len; i++)
			lines += text[i] == '\n';
		assert_int_equal(lines, 12);
	}
	free(text);
	unlink(out);
	unlink(path);
}

/* Damage: every truncation point and bit flips give no crash. */
static void test_damaged(void **state)
{
	const char *path = make_trace(30, 1, 1);
	size_t len;
	char *orig = slurp(path, &len);
	char dpath[80];

	snprintf(dpath, sizeof(dpath), "%s.bad", path);
	for (size_t cut = 0; cut < len; cut += len / 37 + 1) {
		int fd = open(dpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		assert_true(fd >= 0);
		assert_int_equal(write(fd, orig, cut), (ssize_t)cut);
		close(fd);
		run_counter(dpath);
		assert_true(g_cnt.samples <= 180);
		assert_int_equal(g_cnt.order_errors, 0);
	}
	srand(1);
	for (int round = 0; round < 60; round++) {
		char *copy = malloc(len);
		int fd;

		memcpy(copy, orig, len);
		for (int k = 0; k < 3; k++) {
			size_t at = (size_t)rand() % len;

			copy[at] ^= (char)(1 << (rand() % 8));
		}
		fd = open(dpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		assert_int_equal(write(fd, copy, len), (ssize_t)len);
		close(fd);
		run_counter(dpath);
		assert_true(g_cnt.samples <= 180);
		free(copy);
	}
	/* A flip inside the last DATA chunk of an unindexed file loses that chunk only. */
	free(orig);
	path = make_trace(30, 1, 0);
	orig = slurp(path, &len);
	{
		char *copy = malloc(len);
		int fd;

		memcpy(copy, orig, len);
		copy[len - 100] ^= 0x40;
		fd = open(dpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		assert_int_equal(write(fd, copy, len), (ssize_t)len);
		close(fd);
		run_counter(dpath);
		assert_true(g_cnt.samples >= 120 && g_cnt.samples < 180);
		free(copy);
	}
	free(orig);
	unlink(dpath);
	unlink(path);
}

static void test_options(void **state)
{
	const struct pp_analyzer *a = pp_analyzer__find("stat");
	struct pp_opts o;
	char err[128];
	char e1[] = "sched:sched_switch/prev_pid>0/key=prev_pid/,sched:sched_wakeup";
	char *argv[] = { "-e", e1, "-i", "100", "--perins", "x.trace" };
	struct pp_evspec sp;

	assert_int_equal(pp_opts__parse(a, 6, argv, &o, err, sizeof(err)), 0);
	assert_int_equal(o.nr_events, 2);
	assert_string_equal(o.events[0], "sched:sched_switch/prev_pid>0/key=prev_pid/");
	assert_string_equal(o.events[1], "sched:sched_wakeup");
	assert_int_equal(o.interval_ns, 100000000ull);
	assert_int_equal(o.perins, 1);
	assert_string_equal(o.input, "x.trace");
	assert_int_equal(pp_evspec__parse(o.events[0], &sp, err, sizeof(err)), 0);
	assert_string_equal(sp.pattern, "sched:sched_switch");
	assert_string_equal(sp.filter, "prev_pid>0");
	assert_string_equal(sp.key, "prev_pid");
	{
		char *bad[] = { "-F", "99" };

		assert_int_equal(pp_opts__parse(a, 2, bad, &o, err, sizeof(err)), -EINVAL);
	}
	{
		struct pp_event_reqs r;
		char *pargv[] = { "-F", "999" };

		assert_int_equal(pp_analyzer__record_events("profile", 2, pargv, &r, err, sizeof(err)), 0);
		assert_int_equal(r.nr, 1);
		assert_string_equal(r.req[0].spec, "cpu-clock");
		assert_int_equal(r.req[0].freq, 999);
		assert_int_equal(r.req[0].callchain, 1);
		assert_int_equal(pp_analyzer__record_events("nope", 0, NULL, &r, err, sizeof(err)), -ENOENT);
	}
}

/* Module options: parsed from the module's table, refused elsewhere. */
/*
 * Each option is parsed in one place: a module option that a common option
 * (or another of the module's) shadows would never reach the module. Every
 * module's every option, long and short, must come back as that option.
 */
static void test_mod_options_unshadowed(void **state)
{
	const struct pp_analyzer *a;
	int n = 0;

	for (size_t i = 0; (a = pp_analyzer__nth(i)); i++) {
		for (const struct pp_mod_opt *m = a->mod_opts; m && m->name; m++) {
			char lng[64], shrt[3] = { '-', m->short_name, 0 }, val[] = "1";
			char *argv[2] = { lng, val };
			struct pp_opts o;
			char err[256];

			assert_non_null(m->help);
			snprintf(lng, sizeof(lng), "--%s", m->name);
			assert_int_equal(pp_opts__parse(a, m->has_arg ? 2 : 1, argv, &o, err,
							sizeof(err)), 0);
			assert_int_equal(o.nr_mod, 1);
			assert_string_equal(o.mod[0].name, m->name);
			n++;
			if (!m->short_name)
				continue;
			argv[0] = shrt;
			assert_int_equal(pp_opts__parse(a, m->has_arg ? 2 : 1, argv, &o, err,
							sizeof(err)), 0);
			assert_int_equal(o.nr_mod, 1);
			assert_string_equal(o.mod[0].name, m->name);
		}
	}
	assert_true(n > 10);
}

static void test_mod_options(void **state)
{
	const struct pp_analyzer *ts = pp_analyzer__find("task-state");
	const struct pp_analyzer *mt = pp_analyzer__find("multi-trace");
	struct pp_opts o;
	char err[128];
	char *argv[] = { "-S", "--filter", "a*,b", "-D", "--filter=c", "--than", "1ms" };
	char e1[] = "sys:a,sys:b", e2[] = "sys:c";
	char *margv[] = { "-e", e1, "-e", e2, "--detail", "--heatmap", "hm" };
	const struct pp_analyzer *a;

	assert_int_equal(pp_opts__parse(ts, 7, argv, &o, err, sizeof(err)), 0);
	assert_string_equal(pp_opts__mod(&o, "interruptible"), "");
	assert_string_equal(pp_opts__mod(&o, "uninterruptible"), "");
	assert_null(pp_opts__mod(&o, "running"));
	assert_string_equal(pp_opts__mod(&o, "filter"), "c");
	assert_string_equal(pp_opts__mod_nth(&o, "filter", 0), "a*,b");
	assert_null(pp_opts__mod_nth(&o, "filter", 2));
	assert_int_equal(o.than, 1000000);
	{
		char *bad[] = { "--detail" };
		char *bad2[] = { "--filter" };
		char *bad3[] = { "-Sx" };

		assert_int_equal(pp_opts__parse(ts, 1, bad, &o, err, sizeof(err)), -EINVAL);
		assert_int_equal(pp_opts__parse(ts, 1, bad2, &o, err, sizeof(err)), -EINVAL);
		assert_int_equal(pp_opts__parse(ts, 1, bad3, &o, err, sizeof(err)), -EINVAL);
	}
	assert_int_equal(pp_opts__parse(mt, 7, margv, &o, err, sizeof(err)), 0);
	assert_int_equal(o.nr_events, 3);
	assert_int_equal(o.nr_event_groups, 2);
	assert_int_equal(o.event_group[0], 0);
	assert_int_equal(o.event_group[1], 0);
	assert_int_equal(o.event_group[2], 1);
	assert_string_equal(pp_opts__mod(&o, "heatmap"), "hm");
	/* No module option hides a common one. */
	for (size_t i = 0; (a = pp_analyzer__nth(i)); i++) {
		for (const struct pp_mod_opt *m = a->mod_opts; m && m->name; m++)
			assert_false(m->short_name && strchr("eigFoCdptNv", m->short_name));
	}
}

/* --json strings: escapes, UTF-8 kept, bytes that are not UTF-8 replaced. */
/* Text from a file for a terminal: control and C1 bytes as \xNN, the rest as is. */
static void test_text_escape(void **state)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "plain name", "plain name" },
		{ "a\x1b[2Jb\x07", "a\\x1b[2Jb\\x07" },
		{ "caf\xc3\xa9 \xe2\x82\xac", "caf\xc3\xa9 \xe2\x82\xac" },	/* UTF-8 stays */
		{ "c1\xc2\x9b" "1m", "c1\\xc2\\x9b" "1m" },		/* U+009B, a CSI */
		{ "x\x9by\x7f\xff", "x\\x9by\\x7f\xff" },	/* 0xff is shown, not obeyed */
	};
	char buf[1024], small[8];
	struct pp_out o;
	FILE *f;
	size_t n;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		n = pp_text_escape(buf, sizeof(buf), cases[i].in);
		assert_string_equal(buf, cases[i].out);
		assert_int_equal(n + 1, pp_text_size(cases[i].in));
	}
	/* cut before an escape that does not fit whole */
	pp_text_escape(small, sizeof(small), "abcd\x1b");
	assert_string_equal(small, "abcd");
	/* pp_out__text: long input, escapes across its buffer's end */
	f = tmpfile();
	assert_non_null(f);
	pp_out__init(&o, fileno(f));
	char in[400];

	for (int i = 0; i < 399; i++)
		in[i] = i % 3 ? 'a' : '\x01';
	in[399] = '\0';
	pp_out__text(&o, in);
	pp_out__exit(&o);
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	assert_int_equal(n, 133 * 4 + 266);
	assert_memory_equal(buf, "\\x01aa\\x01aa", 12);
	/* pp_out__text_n: a record's string field, no NUL at its end */
	f = tmpfile();
	assert_non_null(f);
	pp_out__init(&o, fileno(f));
	pp_out__text_n(&o, "ok\x1b[31mred", 7);
	pp_out__text_n(&o, "|clean|", 7);
	pp_out__exit(&o);
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	assert_string_equal(buf, "ok\\x1b[31m|clean|");
}

/* Decimal output without printf: every digit count, both 32/64-bit paths, padding. */
static void test_out_decimal(void **state)
{
	static const uint64_t vals[] = {
		0, 9, 10, 99, 100, 999, 1000, 9999, 10000, 12345, 99999, 100000, 1000000,
		4294967295ull, 4294967296ull, 10000000000ull, 18446744073709551615ull,
	};
	char want[8192], buf[8192];
	struct pp_out o;
	size_t n, w = 0;
	FILE *f;

	(void)state;
	f = tmpfile();
	assert_non_null(f);
	pp_out__init(&o, fileno(f));
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		char one[32];

		snprintf(one, sizeof(one), "%llu", (unsigned long long)vals[i]);
		assert_int_equal(pp_dec_len(vals[i]), strlen(one));
		pp_out__u64(&o, vals[i]);
		pp_out__putc(&o, '|');
		pp_out__u64_pad(&o, vals[i], 7, ' ');
		pp_out__putc(&o, '|');
		pp_out__u64_pad(&o, vals[i], 6, '0');
		pp_out__putc(&o, '\n');
		w += (size_t)snprintf(want + w, sizeof(want) - w, "%llu|%7llu|%06llu\n",
				      (unsigned long long)vals[i], (unsigned long long)vals[i],
				      (unsigned long long)vals[i]);
	}
	pp_out__exit(&o);
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	assert_string_equal(buf, want);
}

static void test_json_str(void **state)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "plain", "\"plain\"" },
		{ "q\"b\\", "\"q\\\"b\\\\\"" },
		{ "t\tn\nc\x01", "\"t\\tn\\nc\\u0001\"" },
		{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"" },
		{ "a\xff" "b", "\"a\\ufffdb\"" },			/* never a UTF-8 byte */
		{ "\xc3", "\"\\ufffd\"" },				/* cut sequence */
		{ "\xc0\xaf", "\"\\ufffd\\ufffd\"" },			/* overlong */
		{ "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"" },	/* surrogate */
		{ "\xe2\x82", "\"\\ufffd\\ufffd\"" },			/* cut 3-byte */
	};
	char buf[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pp_out o;
		FILE *f = tmpfile();
		size_t n;

		assert_non_null(f);
		pp_out__init(&o, fileno(f));
		pp_out__json_str(&o, cases[i].in);
		pp_out__exit(&o);
		rewind(f);
		n = fread(buf, 1, sizeof(buf) - 1, f);
		buf[n] = '\0';
		fclose(f);
		assert_string_equal(buf, cases[i].out);
	}
}

/* A module's error and warning lines: `pp-analyze: PROFILER: MESSAGE`, @err handed back. */
static void test_analyzer_err(void **state)
{
	FILE *f = tmpfile();
	int saved, ret;
	char buf[256];
	size_t n;

	(void)state;
	assert_non_null(f);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	assert_true(saved >= 0);
	assert_int_equal(dup2(fileno(f), STDERR_FILENO), STDERR_FILENO);
	ret = pp_analyzer__err("top", -EINVAL, "%s has no field '%s'", "sched:sched_switch", "x");
	pp_analyzer__warn("kvmmmu", "%d lost windows", 3);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	assert_int_equal(ret, -EINVAL);
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	assert_string_equal(buf, "pp-analyze: top: sched:sched_switch has no field 'x'\n"
				 "pp-analyze: kvmmmu: 3 lost windows\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_mod_options),
		cmocka_unit_test(test_mod_options_unshadowed),
		cmocka_unit_test(test_merge_order),
		cmocka_unit_test(test_merge_heap),
		cmocka_unit_test(test_ksym_size),
		cmocka_unit_test(test_fork_maps),
		cmocka_unit_test(test_comm_from_table),
		cmocka_unit_test(test_symtab_big),
		cmocka_unit_test(test_no_footer_scan),
		cmocka_unit_test(test_trace_output),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_json_str),
		cmocka_unit_test(test_out_decimal),
		cmocka_unit_test(test_text_escape),
		cmocka_unit_test(test_analyzer_err),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
