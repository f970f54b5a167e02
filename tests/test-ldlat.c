// SPDX-License-Identifier: MIT
/*
 * ldlat-loads: the names of union perf_mem_data_src fields on constructed
 * values (analyzers/memsrc.c), the latency of a weight and the statistics
 * of a table row, the event chosen from a fake sysfs PMU directory, the
 * PMU/TERMS/MODS entry and its sysfs resolution (record/evspec.c), and the
 * whole report replayed from a trace written here with known samples.
 *
 * `test-ldlat write PATH` writes that trace and exits, for the e2e test
 * (tests/e2e/ldlat-loads.sh) to run pp-analyze on it.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>
#include <linux/perf_event.h>
#include "pp/analyzer.h"
#include "pp/evspec.h"
#include "pp/format.h"
#include "pp/io.h"
#include "pp/meta.h"
#include "pp/replay.h"
#include "pp/writer.h"
#include "../analyzers/memsrc.h"
#include "../analyzers/ldlat.h"

#define S(a, s)	((uint64_t)PERF_MEM_##a##_##s << PERF_MEM_##a##_SHIFT)
#define LVLNUM(x) ((uint64_t)PERF_MEM_LVLNUM_##x << PERF_MEM_LVLNUM_SHIFT)

/* The data sources of the synthetic trace, as Intel PEBS reports them. */
#define D_L1	(S(OP, LOAD) | S(LVL, HIT) | S(LVL, L1) | LVLNUM(L1) | S(SNOOP, NONE) | \
		 S(TLB, L1) | S(TLB, L2) | S(TLB, HIT))
#define D_LFB	(S(OP, LOAD) | S(LVL, HIT) | S(LVL, LFB) | LVLNUM(LFB) | S(SNOOP, NONE) | \
		 S(TLB, L1) | S(TLB, L2) | S(TLB, HIT))
#define D_L3	(S(OP, LOAD) | S(LVL, HIT) | S(LVL, L3) | LVLNUM(L3) | S(SNOOP, HITM) | \
		 S(TLB, L1) | S(TLB, L2) | S(TLB, HIT))
#define D_RAM	(S(OP, LOAD) | S(LVL, HIT) | S(LVL, LOC_RAM) | LVLNUM(RAM) | S(SNOOP, MISS) | \
		 S(TLB, WK) | S(TLB, HIT) | S(LOCK, LOCKED))
#define D_REM	(S(OP, LOAD) | S(LVL, HIT) | S(LVL, REM_RAM1) | LVLNUM(RAM) | \
		 S(REMOTE, REMOTE) | ((uint64_t)PERF_MEM_HOPS_1 << PERF_MEM_HOPS_SHIFT) | \
		 S(SNOOP, HIT) | S(TLB, WK) | S(TLB, MISS))
#define D_STORE	(S(OP, STORE) | S(LVL, HIT) | S(LVL, L1) | LVLNUM(L1))

static char b1[96];

static const char *lvl(uint64_t d)
{
	return pp_memsrc__level(d, b1, sizeof(b1));
}

static void test_level(void **state)
{
	(void)state;
	assert_string_equal(lvl(D_L1), "L1 hit");
	assert_string_equal(lvl(D_LFB), "LFB/MAB hit");
	assert_string_equal(lvl(D_L3), "L3 hit");
	assert_string_equal(lvl(D_RAM), "Local RAM hit");
	assert_string_equal(lvl(D_REM), "Remote node, same socket RAM hit");
	/* remote without hops; PMEM; CXL; L4 and an unnamed level number */
	assert_string_equal(lvl(S(LVL, HIT) | LVLNUM(RAM) | S(REMOTE, REMOTE)), "Remote RAM hit");
	assert_string_equal(lvl(S(LVL, HIT) | LVLNUM(PMEM)), "PMEM hit");
	assert_string_equal(lvl(S(LVL, MISS) | LVLNUM(CXL)), "CXL miss");
	assert_string_equal(lvl(S(LVL, HIT) | LVLNUM(L4)), "L4 hit");
	assert_string_equal(lvl(S(LVL, HIT) | ((uint64_t)7 << PERF_MEM_LVLNUM_SHIFT)), "L7 hit");
	assert_string_equal(lvl(S(LVL, HIT) | LVLNUM(ANY_CACHE)), "Any cache hit");
	/* an older kernel: mem_lvl only, perf's names, several joined */
	assert_string_equal(lvl(S(LVL, HIT) | S(LVL, REM_RAM1)), "Remote RAM (1 hop) hit");
	assert_string_equal(lvl(S(LVL, HIT) | S(LVL, REM_CCE2)), "Remote Cache (2 hops) hit");
	assert_string_equal(lvl(S(LVL, MISS) | S(LVL, L2) | S(LVL, L3)), "L2 or L3 miss");
	assert_string_equal(lvl(S(LVL, HIT) | S(LVL, UNC)), "Uncached hit");
	assert_string_equal(lvl(S(LVL, IO)), "I/O");
	/* lvl_num N/A falls back to mem_lvl; nothing at all is N/A */
	assert_string_equal(lvl(S(LVL, HIT) | S(LVL, L2) | LVLNUM(NA)), "L2 hit");
	assert_string_equal(lvl(0), "N/A");
	assert_string_equal(lvl(S(LVL, NA) | S(LVL, HIT)), "N/A");
	/* a short buffer is cut, never overrun */
	{
		char small[6];

		memset(small, 'x', sizeof(small));
		pp_memsrc__level(D_REM, small, 5);
		assert_string_equal(small, "Remo");
		assert_int_equal(small[5], 'x');
	}
}

static void test_other_fields(void **state)
{
	(void)state;
	assert_string_equal(pp_memsrc__snoop(D_L1, b1, sizeof(b1)), "None");
	assert_string_equal(pp_memsrc__snoop(D_L3, b1, sizeof(b1)), "HitM");
	assert_string_equal(pp_memsrc__snoop(S(SNOOP, HIT) |
					     ((uint64_t)PERF_MEM_SNOOPX_FWD << PERF_MEM_SNOOPX_SHIFT),
					     b1, sizeof(b1)), "Hit or Fwd");
	assert_string_equal(pp_memsrc__snoop(((uint64_t)PERF_MEM_SNOOPX_PEER << PERF_MEM_SNOOPX_SHIFT),
					     b1, sizeof(b1)), "Peer");
	assert_string_equal(pp_memsrc__snoop(S(SNOOP, NA), b1, sizeof(b1)), "N/A");
	assert_string_equal(pp_memsrc__tlb(D_L1, b1, sizeof(b1)), "L1 or L2 hit");
	assert_string_equal(pp_memsrc__tlb(D_RAM, b1, sizeof(b1)), "Walker hit");
	assert_string_equal(pp_memsrc__tlb(D_REM, b1, sizeof(b1)), "Walker miss");
	assert_string_equal(pp_memsrc__tlb(S(TLB, OS), b1, sizeof(b1)), "Fault");
	assert_string_equal(pp_memsrc__tlb(S(TLB, NA), b1, sizeof(b1)), "N/A");
	assert_string_equal(pp_memsrc__lock(D_RAM), "Yes");
	assert_string_equal(pp_memsrc__lock(D_L1), "No");
	assert_string_equal(pp_memsrc__lock(S(LOCK, NA)), "N/A");
	assert_string_equal(pp_memsrc__op(D_L1, b1, sizeof(b1)), "Load");
	assert_string_equal(pp_memsrc__op(D_STORE, b1, sizeof(b1)), "Store");
	assert_string_equal(pp_memsrc__op(S(OP, PFETCH) | S(OP, EXEC), b1, sizeof(b1)),
			    "Prefetch or Exec");
	assert_string_equal(pp_memsrc__op(0, b1, sizeof(b1)), "N/A");
	assert_string_equal(pp_memsrc__blocked(((uint64_t)(PERF_MEM_BLK_DATA | PERF_MEM_BLK_ADDR)
						<< PERF_MEM_BLK_SHIFT), b1, sizeof(b1)), "Data or Addr");
	assert_string_equal(pp_memsrc__blocked(0, b1, sizeof(b1)), "N/A");
	assert_true(pp_memsrc__is_load(D_REM));
	assert_false(pp_memsrc__is_load(D_STORE));
}

static void test_latency(void **state)
{
	uint64_t lat;

	(void)state;
	/* WEIGHT_STRUCT: var1_dw (low 32 bits) is the load latency, var2_w the instruction's */
	assert_int_equal(pp_memsrc__latency((77ull << 32) | 123, PERF_SAMPLE_WEIGHT_STRUCT), 123);
	assert_int_equal(pp_memsrc__latency((77ull << 32) | 123, PERF_SAMPLE_WEIGHT),
			 (77ull << 32) | 123);
	assert_int_equal(pp_memsrc__latency(123, PERF_SAMPLE_ADDR), 0);
	assert_int_equal(pp_ldlat__classify(PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC,
					    (5ull << 32) | 250, D_L3, &lat), PP_LDLAT_LOAD);
	assert_int_equal(lat, 250);
	assert_int_equal(pp_ldlat__classify(PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC, 40,
					    D_STORE, &lat), PP_LDLAT_NOT_LOAD);
	assert_int_equal(pp_ldlat__classify(PERF_SAMPLE_DATA_SRC, 40, D_L1, &lat), PP_LDLAT_NO_WEIGHT);
	/* no data source recorded: a load (PEBS mem-loads samples loads only) */
	assert_int_equal(pp_ldlat__classify(PERF_SAMPLE_WEIGHT, 41, 0, &lat), PP_LDLAT_LOAD);
	assert_int_equal(lat, 41);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	static char buf[65536];
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* A row's figures: exact below 64 cycles; above, a percentile at the min or max is. */
static void test_row(void **state)
{
	static const uint64_t v[] = { 30, 30, 31, 33, 35, 37, 50, 50, 50, 60, 62, 199, 392, 496 };
	char path[64];
	struct pp_out o;
	struct pp_hist h;
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/pp-test-ldlat-row-%d", getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	pp_out__init(&o, fd);
	pp_hist__init(&h);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		assert_int_equal(pp_hist__add(&h, v[i]), 0);
	/* 14 loads of 28: 50%; sum 1555, avg 111; p50 the 7th (50), p95 and p99 the 14th */
	pp_ldlat__row(&o, "all loads", &h, 28);
	pp_hist__reset(&h);
	pp_hist__add(&h, 199);
	pp_hist__add(&h, 392);
	pp_ldlat__row(&o, "Local RAM hit", &h, 14);
	pp_out__exit(&o);
	close(fd);
	assert_string_equal(slurp(path),
		"all loads                               14  50.00%      30     111      50     496     496     496\n"
		"Local RAM hit                            2  14.29%     199     295     199     392     392     392\n");
	pp_hist__exit(&h);
	unlink(path);
}

/* ---- the PMU/TERMS/MODS entry and its sysfs resolution ---- */

static char root[64];

static void put(const char *rel, const char *text)
{
	char path[256], dir[256], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	for (slash = strchr(dir + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(dir, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void rm_root(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
}

static void intel_root(const char *pmu)
{
	char rel[128];

	snprintf(rel, sizeof(rel), "%s/type", pmu);
	put(rel, "4\n");
	snprintf(rel, sizeof(rel), "%s/format/event", pmu);
	put(rel, "config:0-7\n");
	snprintf(rel, sizeof(rel), "%s/format/umask", pmu);
	put(rel, "config:8-15\n");
	snprintf(rel, sizeof(rel), "%s/format/ldlat", pmu);
	put(rel, "config1:0-15\n");
	snprintf(rel, sizeof(rel), "%s/format/split", pmu);
	put(rel, "config:24-25,32-33\n");
	snprintf(rel, sizeof(rel), "%s/events/mem-loads", pmu);
	put(rel, "event=0xcd,umask=0x1,ldlat=3\n");
}

static void test_pmu_entry(void **state)
{
	struct pp_evspec sp;
	struct perf_event_attr a;
	char err[256], arg[] = "cpu/mem-loads,ldlat=30/pp,sched:x,ibs_op//,cpu-clock";
	char *e[8];

	(void)state;
	assert_int_equal(pp_evspec__split(arg, e, 8), 4);
	assert_string_equal(e[0], "cpu/mem-loads,ldlat=30/pp");
	assert_string_equal(e[1], "sched:x");
	assert_string_equal(e[2], "ibs_op//");
	assert_string_equal(e[3], "cpu-clock");
	assert_int_equal(pp_evspec__parse("cpu/mem-loads,ldlat=30/pp", &sp, err, sizeof(err)), 0);
	assert_int_equal(sp.kind, PP_EV_PMU);
	assert_string_equal(sp.pmu, "cpu");
	assert_string_equal(sp.terms, "mem-loads,ldlat=30");
	assert_string_equal(sp.pattern, "cpu/mem-loads,ldlat=30/pp");
	assert_int_equal(sp.precise, 2);
	assert_true(pp_evspec__is_mem(&sp));
	assert_int_equal(pp_evspec__parse("cpu/event=0x3c/uk", &sp, err, sizeof(err)), 0);
	assert_false(pp_evspec__is_mem(&sp));
	assert_true(sp.user_only && sp.kernel_only);
	assert_int_equal(pp_evspec__parse("ibs_op//", &sp, err, sizeof(err)), 0);
	assert_true(pp_evspec__is_mem(&sp));
	assert_int_equal(pp_evspec__parse("cpu/mem-loads/px", &sp, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "'cpu/mem-loads/px': bad modifier 'x' (p, pp, ppp, u, k)");
	assert_int_equal(pp_evspec__parse("cpu/ldlat=x1/", &sp, err, sizeof(err)), -EINVAL);
	assert_int_equal(pp_evspec__parse("cpu/../x/", &sp, err, sizeof(err)), -EINVAL);
	assert_int_equal(pp_evspec__parse("cpu/mem-loads", &sp, err, sizeof(err)), -EINVAL);

	snprintf(root, sizeof(root), "/tmp/pp-test-ldlat-sysfs-%d", getpid());
	intel_root("cpu");
	memset(&a, 0, sizeof(a));
	/* the alias's ldlat=3 is overridden by the later term */
	assert_int_equal(pp_pmu_attr(&a, root, "cpu", "mem-loads,ldlat=30", err, sizeof(err)), 0);
	assert_int_equal(a.type, 4);
	assert_int_equal(a.config, 0x1cd);
	assert_int_equal(a.config1, 30);
	/* a field in two ranges: the value's low bits first; a flag term is 1 */
	assert_int_equal(pp_pmu_attr(&a, root, "cpu", "split=0xf", err, sizeof(err)), 0);
	assert_int_equal(a.config, (3ull << 24) | (3ull << 32));
	assert_int_equal(pp_pmu_attr(&a, root, "cpu", "event", err, sizeof(err)), 0);
	assert_int_equal(a.config, 1);
	assert_int_equal(pp_pmu_attr(&a, root, "cpu", "umask=0x100", err, sizeof(err)), -EINVAL);
	assert_int_equal(pp_pmu_attr(&a, root, "cpu", "cmask=1", err, sizeof(err)), -ENOENT);
	assert_int_equal(pp_pmu_attr(&a, root, "ibs_op", "", err, sizeof(err)), -ENODEV);
	assert_true(pp_pmu_has(root, "cpu", "events/mem-loads"));
	assert_false(pp_pmu_has(root, "cpu", "events/mem-stores"));
	rm_root();
}

static int events_for(const char *const *args, int n, struct pp_event_reqs *out)
{
	const struct pp_analyzer *a = pp_analyzer__find("ldlat-loads");
	char *argv[8], err[256];
	struct pp_opts o;

	assert_non_null(a);
	for (int i = 0; i < n; i++)
		argv[i] = (char *)args[i];
	assert_int_equal(pp_opts__parse(a, n, argv, &o, err, sizeof(err)), 0);
	memset(out, 0, sizeof(*out));
	return pp_ldlat__events(root, &o, out);
}

static void test_events(void **state)
{
	static const char *const ldlat50[] = { "--ldlat", "50", "-F", "99" };
	static const char *const ldlat2[] = { "--ldlat", "2" };
	static const char *const ldlat256[] = { "--ldlat=256" };
	struct pp_event_reqs r;

	(void)state;
	snprintf(root, sizeof(root), "/tmp/pp-test-ldlat-sysfs-%d", getpid());
	mkdir(root, 0755);
	assert_int_equal(events_for(NULL, 0, &r), -ENODEV);
	assert_string_equal(r.err, "no PEBS mem-loads or AMD IBS op PMU on this host");
	intel_root("cpu");
	assert_int_equal(events_for(NULL, 0, &r), 0);
	assert_int_equal(r.nr, 1);
	assert_string_equal(r.req[0].spec, "cpu/mem-loads,ldlat=30/pp");
	assert_int_equal(r.req[0].freq, 4000);
	assert_int_equal(events_for(ldlat50, 4, &r), 0);
	assert_string_equal(r.req[0].spec, "cpu/mem-loads,ldlat=50/pp");
	assert_int_equal(r.req[0].freq, 99);
	assert_int_equal(events_for(ldlat2, 2, &r), -EINVAL);
	put("cpu/events/mem-loads-aux", "event=0x03,umask=0x82\n");
	assert_int_equal(events_for(NULL, 0, &r), -ENODEV);
	assert_string_equal(r.err, "this CPU samples mem-loads only in a group led by "
			    "cpu/mem-loads-aux/, which pp does not open");
	rm_root();
	mkdir(root, 0755);
	intel_root("cpu_core");	/* hybrid: the P-cores' PMU */
	assert_int_equal(events_for(NULL, 0, &r), 0);
	assert_string_equal(r.req[0].spec, "cpu_core/mem-loads,ldlat=30/pp");
	rm_root();
	mkdir(root, 0755);
	put("ibs_op/type", "11\n");
	assert_int_equal(events_for(ldlat256, 1, &r), 0);
	assert_string_equal(r.req[0].spec, "ibs_op//");	/* no ldlat format: every op */
	put("ibs_op/format/ldlat", "config1:0-11\n");
	assert_int_equal(events_for(ldlat256, 1, &r), 0);
	assert_string_equal(r.req[0].spec, "ibs_op/ldlat=256/");
	assert_int_equal(events_for(NULL, 0, &r), 0);
	assert_string_equal(r.req[0].spec, "ibs_op//");
	rm_root();
}

/* ---- the report from a trace of known samples ---- */

#define MEM_SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
			 PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU | \
			 PERF_SAMPLE_PERIOD | PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC)
#define MEM_ID	2000

struct msample {
	uint64_t ip, addr, lat, dsrc;
};

/*
 * 15 samples of pid 42 "loader": 14 loads (latencies as test_row's) and a
 * store. IPs 0x401000 (L1, LFB, L3) and 0x402000 (RAM, remote); data
 * addresses by source.
 */
static const struct msample samples[] = {
	{ 0x401000, 0x7f0000001000, 30, D_L1 }, { 0x401000, 0x7f0000001000, 30, D_L1 },
	{ 0x401000, 0x7f0000001000, 31, D_L1 }, { 0x401000, 0x7f0000001000, 33, D_L1 },
	{ 0x401000, 0x7f0000002000, 35, D_LFB }, { 0x401000, 0x7f0000002000, 37, D_LFB },
	{ 0x401000, 0x7f0000003000, 50, D_L3 }, { 0x401000, 0x7f0000003000, 50, D_L3 },
	{ 0x401000, 0x7f0000003000, 50, D_L3 }, { 0x401000, 0x7f0000003000, 60, D_L3 },
	{ 0x401000, 0x7f0000003000, 62, D_L3 },
	{ 0x402000, 0x7f0000004000, 199, D_RAM }, { 0x402000, 0x7f0000004000, 392, D_RAM },
	{ 0x402000, 0x7f0000005000, 496, D_REM },
	{ 0x402000, 0x7f0000006000, 44, D_STORE },
};

static size_t put_msample(uint8_t *p, uint64_t ts, const struct msample *m)
{
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .misc = PERF_RECORD_MISC_USER,
				       .size = 8 + 9 * 8 };
	uint32_t tid[2] = { 42, 42 }, cpu[2] = { 0, 0 };
	uint64_t id = MEM_ID, period = 1000, weight = (9ull << 32) | m->lat;
	size_t off = 8;

	memcpy(p, &h, 8);
	memcpy(p + off, &id, 8); off += 8;
	memcpy(p + off, &m->ip, 8); off += 8;
	memcpy(p + off, tid, 8); off += 8;
	memcpy(p + off, &ts, 8); off += 8;
	memcpy(p + off, &m->addr, 8); off += 8;
	memcpy(p + off, cpu, 8); off += 8;
	memcpy(p + off, &period, 8); off += 8;
	memcpy(p + off, &weight, 8); off += 8;
	memcpy(p + off, &m->dsrc, 8); off += 8;
	return off;
}

static void append(struct pp_writer *w, uint16_t type, uint32_t stream, const void *p, size_t n,
		   uint64_t first, uint64_t last, uint64_t nr)
{
	struct pp_chunk_desc d = { .type = type, .stream = stream, .first_ts = first,
				   .last_ts = last, .nr_records = nr,
				   .flags = type == PP_CHUNK_DATA ? PP_CHUNK_CRITICAL : 0 };

	if (pp_writer__append_chunk(w, &d, p, n))
		abort();
}

/* The samples at 1 ms apart from 1 s on, as a real recording would hold them. */
static int write_trace(const char *path)
{
	size_t nr = sizeof(samples) / sizeof(samples[0]), len = 0, it;
	uint8_t data[sizeof(samples) / sizeof(samples[0]) * 80];
	struct pp_writer *w;
	struct pp_io *io;
	struct pp_buf b;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		return -errno;
	io = pp_io_file__new(fd, 1);
	w = io ? pp_writer__new(io, NULL) : NULL;
	if (!w)
		return -ENOMEM;
	pp_buf__init(&b);
	pp_machine__put(&b, "hostname", "testhost");
	pp_machine__put(&b, "release", "6.18.0");
	pp_machine__put(&b, "nr_cpus", "1");
	pp_machine__put(&b, "start_realtime_ns", "1700000000000000000");
	pp_machine__put(&b, "start_monotonic_ns", "1000000000");
	append(w, PP_CHUNK_MACHINE, PP_STREAM_META, b.data, b.len, 0, 0, 0);
	pp_buf__reset(&b);
	{
		struct perf_event_attr attr = { .type = 4, .size = sizeof(attr), .config = 0x1cd,
						.config1 = 30, .precise_ip = 2, .freq = 1,
						.sample_freq = 4000, .sample_type = MEM_SAMPLE_TYPE,
						.sample_id_all = 1 };
		uint32_t hdr[2] = { sizeof(attr), 1 };
		uint64_t ids[1] = { MEM_ID };

		it = pp_item__begin(&b, 0);
		pp_buf__append(&b, hdr, 8);
		pp_buf__append(&b, &attr, sizeof(attr));
		pp_buf__pad(&b, 8);
		pp_buf__append(&b, ids, sizeof(ids));
		pp_buf__append_str(&b, "cpu/mem-loads,ldlat=30/pp");
		pp_item__end(&b, it);
	}
	append(w, PP_CHUNK_ATTRS, PP_STREAM_META, b.data, b.len, 0, 0, 0);
	pp_buf__reset(&b);
	{
		struct pp_task_item t = { .pid = 42, .tid = 42 };

		snprintf(t.comm, sizeof(t.comm), "loader");
		it = pp_item__begin(&b, 0);
		pp_buf__append(&b, &t, sizeof(t));
		pp_item__end(&b, it);
	}
	append(w, PP_CHUNK_TASKS, PP_STREAM_META, b.data, b.len, 0, 0, 0);
	for (size_t i = 0; i < nr; i++)
		len += put_msample(data + len, 1000000000ull + i * 1000000ull, &samples[i]);
	append(w, PP_CHUNK_DATA, 0, data, len, 1000000000ull, 1000000000ull + (nr - 1) * 1000000ull,
	       nr);
	pp_buf__exit(&b);
	fd = pp_writer__close(w);
	pp_io__free(io);
	return fd;
}

static char *run(const char *trace, const char *const *args, int n)
{
	const struct pp_analyzer *a = pp_analyzer__find("ldlat-loads");
	char *argv[8], err[256];
	static char out[64];
	struct pp_session *s;
	struct pp_opts o;

	for (int i = 0; i < n; i++)
		argv[i] = (char *)args[i];
	assert_int_equal(pp_opts__parse(a, n, argv, &o, err, sizeof(err)), 0);
	snprintf(out, sizeof(out), "/tmp/pp-test-ldlat-%d.out", getpid());
	o.output = out;
	s = pp_session__new(a, &o);
	assert_non_null(s);
	assert_int_equal(pp_session__open_file(s, trace), 0);
	assert_int_equal(pp_session__run(s), 0);
	pp_session__free(s);
	return slurp(out);
}

static void test_report(void **state)
{
	static const char *const json[] = { "--json", "--addr" };
	static const char *const than[] = { "--than", "100", "--json" };
	char trace[64];
	const char *t;

	(void)state;
	snprintf(trace, sizeof(trace), "/tmp/pp-test-ldlat-%d.trace", getpid());
	assert_int_equal(write_trace(trace), 0);
	t = run(trace, NULL, 0);
	assert_non_null(strstr(t, " ldlat-loads: 14 loads, 1 samples of other ops skipped; "
				  "latency in cycles\n"));
	assert_non_null(strstr(t,
		"all loads                               14 100.00%      30     111      50     496     496     496\n"));
	assert_non_null(strstr(t,
		"\nDATA SOURCE                          loads   share     min     avg     p50     p95     p99     max\n"
		"L3 hit                                   5  35.71%      50      54      50      62      62      62\n"
		"L1 hit                                   4  28.57%      30      31      30      33      33      33\n"
		"LFB/MAB hit                              2  14.29%      35      36      35      37      37      37\n"
		"Local RAM hit                            2  14.29%     199     295     199     392     392     392\n"
		"Remote node, same socket RAM hit         1   7.14%     496     496     496     496     496     496\n"));
	assert_non_null(strstr(t,
		"\nSNOOP                                loads   share     min     avg     p50     p95     p99     max\n"
		"None                                     6  42.86%      30      32      31      37      37      37\n"
		"HitM                                     5  35.71%      50      54      50      62      62      62\n"
		"Miss                                     2  14.29%     199     295     199     392     392     392\n"
		"Hit                                      1   7.14%     496     496     496     496     496     496\n"));
	assert_non_null(strstr(t, "\nDATA TLB "));
	assert_non_null(strstr(t, "\nL1 or L2 hit                            11  78.57%      30      42      37      62      62      62\n"));
	assert_non_null(strstr(t, "\nWalker hit                               2 "));
	assert_non_null(strstr(t, "\nWalker miss                              1 "));
	assert_non_null(strstr(t, "\nLOCKED "));
	assert_non_null(strstr(t, "\nNo                                      12  85.71%      30      80      37     496     496     496\n"));
	assert_non_null(strstr(t, "\nYes                                      2 "));
	assert_non_null(strstr(t, "\nSYMBOL "));
	assert_null(strstr(t, "DATA ADDRESS"));

	t = run(trace, json, 2);
	assert_non_null(strstr(t, "\"type\":\"ldlat_summary\""));
	assert_non_null(strstr(t, "\"loads\":14,\"not_loads\":1,\"under_than\":0,\"latency\":{"
				  "\"calls\":14,\"total\":1555,\"min\":30,\"avg\":111,\"p50\":50,"
				  "\"p95\":496,\"p99\":496,\"max\":496}}\n"));
	assert_non_null(strstr(t, "\"by\":\"source\",\"key\":\"Local RAM hit\",\"calls\":2,"
				  "\"total\":591,\"min\":199,\"avg\":295,\"p50\":199,\"p95\":392,"
				  "\"p99\":392,\"max\":392}\n"));
	assert_non_null(strstr(t, "\"by\":\"addr\",\"key\":\"0x7f0000003000\",\"calls\":5,"));
	assert_null(strstr(t, "0x7f0000006000"));	/* the store's */

	/* the flame graph: comm;symbol;[source], weighed by the loads' cycles */
	{
		char name[64], folded[80];
		const char *fg[] = { "--flame-graph", name };

		snprintf(name, sizeof(name), "/tmp/pp-test-ldlat-fg-%d", getpid());
		run(trace, fg, 2);
		snprintf(folded, sizeof(folded), "%s.folded", name);
		assert_string_equal(slurp(folded),
			"loader;0x401000;[L1 hit] 124\n"
			"loader;0x401000;[LFB/MAB hit] 72\n"
			"loader;0x401000;[L3 hit] 272\n"
			"loader;0x402000;[Local RAM hit] 591\n"
			"loader;0x402000;[Remote node, same socket RAM hit] 496\n");
		unlink(folded);
		snprintf(folded, sizeof(folded), "%s.svg", name);
		unlink(folded);
	}
	t = run(trace, than, 3);
	assert_non_null(strstr(t, "\"loads\":3,\"not_loads\":1,\"under_than\":11,"));
	assert_null(strstr(t, "\"key\":\"L1 hit\""));
	unlink(trace);
	snprintf(trace, sizeof(trace), "/tmp/pp-test-ldlat-%d.out", getpid());
	unlink(trace);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_level),
		cmocka_unit_test(test_other_fields),
		cmocka_unit_test(test_latency),
		cmocka_unit_test(test_row),
		cmocka_unit_test(test_pmu_entry),
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_report),
	};

	if (argc == 3 && !strcmp(argv[1], "write"))
		return write_trace(argv[2]) ? 1 : 0;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
