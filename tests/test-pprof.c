// SPDX-License-Identifier: MIT
/*
 * Unit tests for analyzers/pprof.c: what the collector aggregates, and the
 * file it writes read back with zlib and protobuf-c (the same schema,
 * analyzers/pprof.proto): sample types, period, labels, locations
 * innermost first, the string table, and errors. Stacks here are pseudo
 * frames only, which need no session; tests/e2e/export-pprof.sh covers
 * code addresses, mappings and build-ids with go tool pprof.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <cmocka.h>

#include "../analyzers/pprof.h"
#include "analyzers/pprof.pb-c.h"

static const struct pp_pprof_desc desc = {
	.types = { { "off_cpu", "nanoseconds" }, { "switches", "count" } }, .nr_types = 2,
	.period_type = { "cpu", "nanoseconds" }, .period = 1000,
	.default_type = "off_cpu", .comment = "unit test",
};

/* Write @pp to a temporary file and read it back, unzipped and unpacked. */
static Pp__Pprof__Profile *roundtrip(struct pp_pprof *pp, uint64_t start, uint64_t end)
{
	char path[] = "/tmp/pp-test-pprof-XXXXXX";
	static uint8_t buf[1 << 20];
	int fd = mkstemp(path), n;
	gzFile gz;

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(pp_pprof__write(pp, NULL, start, end, path), 0);
	gz = gzopen(path, "rb");
	assert_non_null(gz);
	assert_int_equal(gzdirect(gz), 0);	/* really gzip */
	n = gzread(gz, buf, sizeof(buf));
	assert_true(n > 0 && n < (int)sizeof(buf));
	gzclose(gz);
	unlink(path);
	Pp__Pprof__Profile *p = pp__pprof__profile__unpack(NULL, (size_t)n, buf);

	assert_non_null(p);
	return p;
}

static const char *str(const Pp__Pprof__Profile *p, int64_t i)
{
	assert_true(i >= 0 && (size_t)i < p->n_string_table);
	return p->string_table[i];
}

/* The function name of location @id. */
static const char *loc_name(const Pp__Pprof__Profile *p, uint64_t id)
{
	assert_true(id >= 1 && id <= p->n_location);
	const Pp__Pprof__Location *l = p->location[id - 1];

	assert_int_equal(l->id, id);
	assert_int_equal(l->n_line, 1);
	uint64_t f = l->line[0]->function_id;

	assert_true(f >= 1 && f <= p->n_function);
	assert_int_equal(p->function[f - 1]->id, f);
	return str(p, p->function[f - 1]->name);
}

static const Pp__Pprof__Label *label(const Pp__Pprof__Sample *s, const Pp__Pprof__Profile *p,
				      const char *key)
{
	for (size_t i = 0; i < s->n_label; i++) {
		if (!strcmp(str(p, s->label[i]->key), key))
			return s->label[i];
	}
	fail_msg("no label %s", key);
	return NULL;
}

static void test_aggregate(void **state)
{
	struct pp_pprof *pp = pp_pprof__new(&desc);
	const char *const ab[] = { "[a]", "[b]" }, *const c[] = { "[c]" };
	const int64_t v1[] = { 3, 5 }, v2[] = { 1, 1 }, v3[] = { 7, 2 };

	(void)state;
	assert_non_null(pp);
	assert_int_equal(pp_pprof__add(pp, NULL, 10, 11, "one", NULL, NULL, 0, ab, 2, v1), 0);
	assert_int_equal(pp_pprof__add(pp, NULL, 10, 11, "one", NULL, NULL, 0, ab, 2, v2), 0);
	assert_int_equal(pp_pprof__add(pp, NULL, 10, 12, "one", NULL, NULL, 0, ab, 2, v3), 0);
	assert_int_equal(pp_pprof__add(pp, NULL, 20, 20, "two", NULL, NULL, 0, c, 1, v3), 0);
	assert_int_equal(pp_pprof__add(pp, NULL, 20, 20, "two", NULL, NULL, 0, NULL, 0, v2), 0);
	/* (stack, pid, tid, comm) keys: tid 12 and the empty stack are their own */
	assert_int_equal(pp_pprof__samples(pp), 4);

	Pp__Pprof__Profile *p = roundtrip(pp, 0, 0);

	assert_string_equal(str(p, 0), "");
	assert_int_equal(p->n_sample_type, 2);
	assert_string_equal(str(p, p->sample_type[0]->type), "off_cpu");
	assert_string_equal(str(p, p->sample_type[0]->unit), "nanoseconds");
	assert_string_equal(str(p, p->sample_type[1]->type), "switches");
	assert_string_equal(str(p, p->sample_type[1]->unit), "count");
	assert_string_equal(str(p, p->default_sample_type), "off_cpu");
	assert_non_null(p->period_type);
	assert_string_equal(str(p, p->period_type->type), "cpu");
	assert_int_equal(p->period, 1000);
	assert_int_equal(p->n_comment, 1);
	assert_string_equal(str(p, p->comment[0]), "unit test");
	assert_int_equal(p->time_nanos, 0);
	assert_int_equal(p->duration_nanos, 0);
	assert_int_equal(p->n_mapping, 0);	/* pseudo frames have none */
	assert_int_equal(p->n_sample, 4);

	/* first sample: [a];[b] of tid 11, values summed, innermost first */
	const Pp__Pprof__Sample *s = p->sample[0];

	assert_int_equal(s->n_value, 2);
	assert_int_equal(s->value[0], 4);
	assert_int_equal(s->value[1], 6);
	assert_int_equal(s->n_location_id, 2);
	assert_string_equal(loc_name(p, s->location_id[0]), "[b]");
	assert_string_equal(loc_name(p, s->location_id[1]), "[a]");
	assert_string_equal(str(p, label(s, p, "comm")->str), "one");
	assert_int_equal(label(s, p, "pid")->num, 10);
	assert_int_equal(label(s, p, "tid")->num, 11);
	/* tid 12 shares the locations */
	assert_int_equal(p->sample[1]->value[0], 7);
	assert_int_equal(label(p->sample[1], p, "tid")->num, 12);
	assert_int_equal(p->sample[1]->location_id[0], s->location_id[0]);
	/* the empty stack is "[unknown]" */
	assert_int_equal(p->sample[3]->n_location_id, 1);
	assert_string_equal(loc_name(p, p->sample[3]->location_id[0]), "[unknown]");
	/* locations of pseudo frames: no mapping, no address */
	for (size_t i = 0; i < p->n_location; i++) {
		assert_int_equal(p->location[i]->mapping_id, 0);
		assert_int_equal(p->location[i]->address, 0);
	}
	/* every string once */
	for (size_t i = 0; i < p->n_string_table; i++)
		for (size_t j = i + 1; j < p->n_string_table; j++)
			assert_string_not_equal(p->string_table[i], p->string_table[j]);
	pp__pprof__profile__free_unpacked(p, NULL);
	pp_pprof__free(pp);
}

static void test_many(void **state)
{
	struct pp_pprof *pp = pp_pprof__new(&desc);
	char names[3000][16];
	const char *leaf[1];
	int64_t v[2] = { 1, 1 };

	(void)state;
	/* past the first hash-table sizes; each stack added twice */
	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < 3000; i++) {
			snprintf(names[i], sizeof(names[i]), "[f%d]", i);
			leaf[0] = names[i];
			assert_int_equal(pp_pprof__add(pp, NULL, 1, 1, "x", NULL, NULL, 0, leaf, 1, v), 0);
		}
	}
	assert_int_equal(pp_pprof__samples(pp), 3000);
	Pp__Pprof__Profile *p = roundtrip(pp, 0, 0);

	assert_int_equal(p->n_sample, 3000);
	assert_int_equal(p->n_location, 3000);
	assert_int_equal(p->n_function, 3000);
	for (size_t i = 0; i < p->n_sample; i++) {
		char want[32];

		snprintf(want, sizeof(want), "[f%zu]", i);
		assert_int_equal(p->sample[i]->value[0], 2);
		assert_string_equal(loc_name(p, p->sample[i]->location_id[0]), want);
	}
	pp__pprof__profile__free_unpacked(p, NULL);
	pp_pprof__free(pp);
}

static void test_errors(void **state)
{
	struct pp_pprof_desc bad = desc;
	struct pp_pprof *pp;

	(void)state;
	bad.nr_types = 0;
	errno = 0;
	assert_null(pp_pprof__new(&bad));
	assert_int_equal(errno, EINVAL);
	bad.nr_types = PP_PPROF_MAX_TYPES + 1;
	assert_null(pp_pprof__new(&bad));
	assert_null(pp_pprof__new(NULL));
	pp_pprof__free(NULL);
	assert_int_equal(pp_pprof__samples(NULL), 0);

	pp = pp_pprof__new(&desc);
	assert_non_null(pp);
	/* an empty profile is still a valid one */
	Pp__Pprof__Profile *p = roundtrip(pp, 0, 0);

	assert_int_equal(p->n_sample, 0);
	assert_int_equal(p->n_sample_type, 2);
	pp__pprof__profile__free_unpacked(p, NULL);
	/* a directory that does not exist: -errno, no crash */
	assert_true(pp_pprof__write(pp, NULL, 0, 0, "/nonexistent-dir/x.pb.gz") < 0);
	pp_pprof__free(pp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_aggregate),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
