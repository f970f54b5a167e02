// SPDX-License-Identifier: MIT
/*
 * Unit tests of the output files of long runs (record/rotate.c) and of the
 * flight recorder's memory (record/flight.c): --rotate arguments, file
 * names, --max-files, eviction by time and size, and a dump's window cut
 * record by record.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <dirent.h>
#include <cmocka.h>
#include <linux/perf_event.h>

#include "../record/record.h"

#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)

static void test_parse(void **state)
{
	uint64_t ns, b;

	(void)state;
	assert_int_equal(pp_rotate_parse("30s", &ns, &b), 0);
	assert_true(ns == 30000000000ull && !b);
	assert_int_equal(pp_rotate_parse("2", &ns, &b), 0);
	assert_true(ns == 2000000000ull);
	assert_int_equal(pp_rotate_parse("500ms", &ns, &b), 0);
	assert_true(ns == 500000000ull);
	assert_int_equal(pp_rotate_parse("10m", &ns, &b), 0);
	assert_true(ns == 600000000000ull);
	assert_int_equal(pp_rotate_parse("1h", &ns, &b), 0);
	assert_true(ns == 3600000000000ull);
	assert_int_equal(pp_rotate_parse("64K", &ns, &b), 0);
	assert_true(b == 65536 && !ns);
	assert_int_equal(pp_rotate_parse("1.5G", &ns, &b), 0);
	assert_true(b == 1610612736ull);
	assert_int_equal(pp_rotate_parse("100MB", &ns, &b), 0);
	assert_true(b == 104857600ull);
	assert_int_equal(pp_rotate_parse("0", &ns, &b), -EINVAL);
	assert_int_equal(pp_rotate_parse("-1s", &ns, &b), -EINVAL);
	assert_int_equal(pp_rotate_parse("10ms", &ns, &b), -EINVAL);
	assert_int_equal(pp_rotate_parse("1K", &ns, &b), -EINVAL);
	assert_int_equal(pp_rotate_parse("5q", &ns, &b), -EINVAL);
	assert_int_equal(pp_rotate_parse("", &ns, &b), -EINVAL);
	assert_int_equal(pp_rotate_parse("s", &ns, &b), -EINVAL);
}

static int matches(const char *name, const char *stem, const char *seq, const char *ext)
{
	size_t sl = strlen(stem);

	/* STEM-YYYYMMDD-HHMMSS-SEQ.EXT */
	if (strncmp(name, stem, sl) || name[sl] != '-' || name[sl + 9] != '-' ||
	    name[sl + 16] != '-')
		return 0;
	for (int i = 1; i < 16; i++)
		if (i != 9 && (name[sl + i] < '0' || name[sl + i] > '9'))
			return 0;
	return !strncmp(name + sl + 17, seq, 4) && !strcmp(name + sl + 21, ext);
}

static void test_names(void **state)
{
	struct pp_rotate rt;
	char n[512];

	(void)state;
	memset(&rt, 0, sizeof(rt));
	pp_rotate__init(&rt, "dir/pp.trace", 0);
	pp_rotate__next_name(&rt, n, sizeof(n));
	assert_true(matches(n, "dir/pp", "0001", ".trace"));
	pp_rotate__next_name(&rt, n, sizeof(n));
	assert_true(matches(n, "dir/pp", "0002", ".trace"));
	pp_rotate__exit(&rt);
	/* a dot in a directory is no extension */
	memset(&rt, 0, sizeof(rt));
	pp_rotate__init(&rt, "a.d/out", 0);
	pp_rotate__next_name(&rt, n, sizeof(n));
	assert_true(matches(n, "a.d/out", "0001", ""));
	pp_rotate__exit(&rt);
	memset(&rt, 0, sizeof(rt));
	pp_rotate__init(&rt, ".hidden", 0);
	pp_rotate__next_name(&rt, n, sizeof(n));
	assert_true(matches(n, ".hidden", "0001", ""));
	pp_rotate__exit(&rt);
}

static void test_max_files(void **state)
{
	char dir[] = "/tmp/pp-test-rotate.XXXXXX", out[256], n[512];
	struct pp_rotate rt;
	int left = 0;
	DIR *d;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(out, sizeof(out), "%s/x.trace", dir);
	snprintf(n, sizeof(n), "%s/x-20000101-000000-0001.trace", dir);	/* another run's */
	fclose(fopen(n, "w"));
	memset(&rt, 0, sizeof(rt));
	pp_rotate__init(&rt, out, 2);
	assert_true(pp_rotate__due(&rt, 5, 0) == 0);	/* neither TIME nor SIZE */
	for (int i = 0; i < 5; i++) {
		FILE *f;

		pp_rotate__next_name(&rt, n, sizeof(n));
		f = fopen(n, "w");
		assert_non_null(f);
		fclose(f);
		pp_rotate__added(&rt, n);
	}
	assert_int_equal(rt.nr_names, 2);
	assert_int_equal((int)rt.files, 5);
	assert_int_equal((int)rt.removed, 3);
	assert_true(matches(strrchr(rt.names[0], '/') + 1, "x", "0004", ".trace"));
	assert_true(matches(strrchr(rt.names[1], '/') + 1, "x", "0005", ".trace"));
	/* a file of another run next to them stays */
	d = opendir(dir);
	for (struct dirent *de; (de = readdir(d));)
		left += de->d_name[0] != '.';
	closedir(d);
	assert_int_equal(left, 3);
	for (int i = 0; i < rt.nr_names; i++)
		unlink(rt.names[i]);
	snprintf(n, sizeof(n), "%s/x-20000101-000000-0001.trace", dir);
	assert_int_equal(unlink(n), 0);
	pp_rotate__exit(&rt);
	rmdir(dir);

	memset(&rt, 0, sizeof(rt));
	rt.every_ns = 1000;
	rt.opened_ns = 10;
	assert_int_equal(pp_rotate__due(&rt, 1009, 0), 0);
	assert_int_equal(pp_rotate__due(&rt, 1010, 0), 1);
	rt.every_ns = 0;
	rt.bytes = 4096;
	assert_int_equal(pp_rotate__due(&rt, 1 << 30, 4095), 0);
	assert_int_equal(pp_rotate__due(&rt, 0, 4096), 1);
}

/* A chunk of @n samples at times t0, t0 + step, ... */
static size_t chunk(uint8_t *buf, int n, uint64_t t0, uint64_t step, struct pp_chunk_desc *d)
{
	size_t off = 0;

	memset(d, 0, sizeof(*d));
	d->type = PP_CHUNK_DATA;
	for (int i = 0; i < n; i++) {
		struct {
			struct perf_event_header h;
			uint64_t id;
			uint32_t pid, tid;
			uint64_t time;
			uint32_t cpu, res;
		} s = { { PERF_RECORD_SAMPLE, 0, sizeof(s) }, 7, 1, 1, t0 + (uint64_t)i * step, 0, 0 };

		memcpy(buf + off, &s, sizeof(s));
		off += sizeof(s);
	}
	d->first_ts = t0;
	d->last_ts = t0 + (uint64_t)(n - 1) * step;
	d->nr_records = (uint64_t)n;
	return off;
}

static uint64_t st_of(uint64_t id, void *ctx)
{
	(void)ctx;
	return id == 7 ? ST : 0;
}

#define S 1000000000ull

static void test_flight(void **state)
{
	struct pp_flight *f = pp_flight__new(2 * S, 1 << 20);
	struct pp_chunk_desc d;
	static uint8_t buf[64 << 10];
	char dir[] = "/tmp/pp-test-flight.XXXXXX", out[256], name[512], err[512];
	struct pp_rotate rt;
	uint64_t bytes, nr;
	double secs;
	size_t len;
	pid_t self = getpid();

	(void)state;
	assert_non_null(f);
	/* one chunk a second, 10 samples 100 ms apart: [k s, k s + 0.9 s] */
	for (int k = 1; k <= 10; k++) {
		len = chunk(buf, 10, (uint64_t)k * S, S / 10, &d);
		assert_int_equal(pp_flight__add(f, &d, buf, len), 0);
	}
	/* newest 10.9 s: kept are chunks whose last record >= 10.9 - 2 - 1 (slack) s */
	pp_flight__status(f, &bytes, &secs);
	assert_int_equal((int)(bytes / len), 4);	/* chunks 7..10 */
	assert_true(secs > 3.8 && secs < 4.0);

	assert_non_null(mkdtemp(dir));
	snprintf(out, sizeof(out), "%s/f.trace", dir);
	memset(&rt, 0, sizeof(rt));
	pp_rotate__init(&rt, out, 0);
	rt.snap = &self;
	rt.nr_snap = 1;
	/* dump at 10.45 s: the samples of [8.45, 10.45] = 8.5..8.9, 9.0..9.9, 10.0..10.4 */
	assert_int_equal(pp_flight__dump(f, 10 * S + S * 45 / 100, &rt, 0, st_of, NULL, name,
					 sizeof(name), &nr, err, sizeof(err)), 0);
	assert_int_equal((int)nr, 5 + 10 + 5);
	assert_int_equal(access(name, R_OK), 0);
	/* what it kept stays for the next dump */
	assert_int_equal(pp_flight__dump(f, 11 * S, &rt, 0, st_of, NULL, name, sizeof(name), &nr,
					 err, sizeof(err)), 0);
	assert_int_equal((int)nr, 10 + 10);
	for (int i = 0; i < rt.nr_names; i++)
		unlink(rt.names[i]);
	pp_rotate__exit(&rt);
	rmdir(dir);

	/* the size bound: the oldest go, the newest stays */
	pp_flight__free(f);
	f = pp_flight__new(100 * S, 3 * len);
	for (int k = 1; k <= 10; k++) {
		len = chunk(buf, 10, (uint64_t)k * S, S / 10, &d);
		assert_int_equal(pp_flight__add(f, &d, buf, len), 0);
	}
	pp_flight__status(f, &bytes, &secs);
	assert_true(bytes <= 3 * len && bytes >= len);
	pp_flight__free(f);
	pp_flight__free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_max_files),
		cmocka_unit_test(test_flight),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
