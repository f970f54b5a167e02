// SPDX-License-Identifier: MIT
/*
 * BPF output events end to end: `pp-record -a --bpf-output execsnoop`
 * while tests/helpers/bpf-execs execs /bin/true N times must give exactly N
 * exec records whose ppid is the helper, decoded from the BTF stored in the
 * trace (replay/btf-print.c), never from this host's kernel BTF, with
 * comm=true and filename=/bin/true. The decoding walks the file like a
 * reader on another machine: FORMATS (PP_FMT_BTF), ATTRS (event names by
 * sample id), DATA (PERF_SAMPLE_RAW of the bpf-output event).
 *
 * With arguments, `test-bpf-output --dump FILE` prints every BPF output
 * record of FILE as "EVENT: name=value ..." (used by tests/e2e/bpf-output.sh).
 * Skips without BPF, root, or the binaries beside it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <cmocka.h>

#include "pp/bpf.h"
#include "pp/format.h"
#include "pp/meta.h"
#include "pp/reader.h"
#include "../replay/btf-print.h"

struct attr_ent {
	uint64_t id;
	uint64_t sample_type;
	char name[128];
};

struct dump {
	struct pp_btf_fmts fmts;
	struct attr_ent *a;
	size_t nr, cap;
	FILE *out;
	long records, bad;
};

static void add_attrs(struct dump *d, const uint8_t *p, size_t len)
{
	struct pp_item_iter it;
	struct pp_item item;

	pp_item_iter__init(&it, p, len);
	while (pp_item_iter__next(&it, &item)) {
		struct perf_event_attr attr;
		uint32_t attr_size, nr_ids;
		const uint8_t *ab, *ids;
		const char *name;
		struct pp_cur c;

		pp_cur__init(&c, item.body, item.size);
		if (pp_cur__u32(&c, &attr_size) || pp_cur__u32(&c, &nr_ids) ||
		    pp_cur__bytes(&c, &ab, attr_size) || pp_cur__align(&c, 8) ||
		    nr_ids > 65536 || pp_cur__bytes(&c, &ids, (size_t)nr_ids * 8) ||
		    pp_cur__str(&c, &name))
			continue;
		memset(&attr, 0, sizeof(attr));
		memcpy(&attr, ab, attr_size < sizeof(attr) ? attr_size : sizeof(attr));
		for (uint32_t i = 0; i < nr_ids; i++) {
			if (d->nr == d->cap) {
				size_t ncap = d->cap ? 2 * d->cap : 64;
				struct attr_ent *nv = realloc(d->a, ncap * sizeof(*nv));

				if (!nv)
					return;
				d->a = nv;
				d->cap = ncap;
			}
			memcpy(&d->a[d->nr].id, ids + 8 * i, 8);
			d->a[d->nr].sample_type = attr.sample_type;
			snprintf(d->a[d->nr].name, sizeof(d->a[d->nr].name), "%s", name);
			d->nr++;
		}
	}
}

/* The raw data of a sample, by walking the sample_type fields. */
static int sample_raw(const uint8_t *r, size_t size, uint64_t st, const uint8_t **raw,
		      uint32_t *raw_size)
{
	size_t off = 8;

#define SKIP(flag, n) do { if (st & (flag)) off += (n); } while (0)
	SKIP(PERF_SAMPLE_IDENTIFIER, 8);
	SKIP(PERF_SAMPLE_IP, 8);
	SKIP(PERF_SAMPLE_TID, 8);
	SKIP(PERF_SAMPLE_TIME, 8);
	SKIP(PERF_SAMPLE_ADDR, 8);
	SKIP(PERF_SAMPLE_ID, 8);
	SKIP(PERF_SAMPLE_STREAM_ID, 8);
	SKIP(PERF_SAMPLE_CPU, 8);
	SKIP(PERF_SAMPLE_PERIOD, 8);
#undef SKIP
	if (st & PERF_SAMPLE_READ)
		return -EINVAL;
	if (st & PERF_SAMPLE_CALLCHAIN) {
		uint64_t nr;

		if (off + 8 > size)
			return -EINVAL;
		memcpy(&nr, r + off, 8);
		if (nr > (size - off - 8) / 8)
			return -EINVAL;
		off += 8 + nr * 8;
	}
	if (!(st & PERF_SAMPLE_RAW) || off + 4 > size)
		return -EINVAL;
	memcpy(raw_size, r + off, 4);
	if (*raw_size > size - off - 4)
		return -EINVAL;
	*raw = r + off + 4;
	return 0;
}

static void dump_data(struct dump *d, const uint8_t *p, size_t len)
{
	struct pp_rec_iter it;
	struct pp_rec rec;
	char line[2048];

	pp_rec_iter__init(&it, p, len);
	while (pp_rec_iter__next(&it, &rec)) {
		const struct pp_btf_fmt *f;
		const struct attr_ent *a = NULL;
		const uint8_t *raw;
		uint32_t raw_size;
		uint64_t id;

		if (rec.type != PERF_RECORD_SAMPLE || rec.size < 16)
			continue;
		memcpy(&id, rec.data + 8, 8);
		for (size_t i = 0; i < d->nr && !a; i++)
			if (d->a[i].id == id)
				a = &d->a[i];
		if (!a || !(f = pp_btf_fmts__find(&d->fmts, a->name)))
			continue;
		if (sample_raw(rec.data, rec.size, a->sample_type, &raw, &raw_size) ||
		    pp_btf_fmt__print(f, raw, raw_size, line, sizeof(line)) < 0) {
			d->bad++;
			continue;
		}
		fprintf(d->out, "%s: %s\n", a->name, line);
		d->records++;
	}
}

/* Print every BPF output record of @path to @out. Return: records, or -errno. */
static long dump_file(const char *path, FILE *out)
{
	struct dump d = { .out = out };
	struct pp_reader *r = pp_reader__open_path(path, NULL);
	struct pp_chunk c;
	char err[256];
	int rc;

	if (!r)
		return -errno;
	while ((rc = pp_reader__next(r, &c)) == 1) {
		if (c.hdr->type == PP_CHUNK_FORMATS) {
			struct pp_item_iter it;
			struct pp_item item;

			pp_item_iter__init(&it, c.data, c.size);
			while (pp_item_iter__next(&it, &item))
				if (pp_btf_fmts__add_item(&d.fmts, &item, err, sizeof(err)))
					fprintf(stderr, "%s: %s\n", path, err);
		} else if (c.hdr->type == PP_CHUNK_ATTRS) {
			add_attrs(&d, c.data, c.size);
		} else if (c.hdr->type == PP_CHUNK_DATA) {
			dump_data(&d, c.data, c.size);
		}
	}
	pp_reader__free(r);
	pp_btf_fmts__exit(&d.fmts);
	free(d.a);
	if (d.bad)
		fprintf(stderr, "%s: %ld BPF output records could not be decoded\n", path, d.bad);
	return rc < 0 ? rc : d.records;
}

static char exe_dir[PATH_MAX];

static void test_execsnoop(void **state)
{
	char rec[PATH_MAX + 64], helper[PATH_MAX + 64], trace[] = "/tmp/pp-test-bpfout-XXXXXX";
	char cmd[3 * PATH_MAX + 256], err[256], line[2048], want[64];
	int fd, n = 7, matched = 0;
	long total;
	FILE *p, *out;
	int helper_pid = 0;

	(void)state;
	if (pp_bpf__available(err, sizeof(err))) {
		print_message("skip: %s\n", err);
		skip();
	}
	snprintf(rec, sizeof(rec), "%s/../pp-record", exe_dir);
	snprintf(helper, sizeof(helper), "%s/helpers/bpf-execs", exe_dir);
	if (access(rec, X_OK) || access(helper, X_OK) || geteuid()) {
		print_message("skip: needs root, pp-record and helpers/bpf-execs beside the test\n");
		skip();
	}
	fd = mkstemp(trace);
	assert_true(fd >= 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "%s -q -a --bpf-output execsnoop -o %s -- %s %d /bin/true 2>&1",
		 rec, trace, helper, n);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		if (!helper_pid)
			helper_pid = atoi(line);
		print_message("| %s", line);
	}
	assert_int_equal(pclose(p), 0);
	assert_true(helper_pid > 0);
	out = tmpfile();
	assert_non_null(out);
	total = dump_file(trace, out);
	assert_true(total >= n);
	rewind(out);
	snprintf(want, sizeof(want), " ppid=%d ", helper_pid);
	while (fgets(line, sizeof(line), out)) {
		if (!strstr(line, want))
			continue;
		print_message("%s", line);
		assert_true(!strncmp(line, "bpf-output:execsnoop: pid=", 26));
		assert_non_null(strstr(line, " comm=true filename=/bin/true\n"));
		matched++;
	}
	fclose(out);
	print_message("%d exec records of helper %d (of %ld in the file)\n", matched, helper_pid,
		      total);
	assert_int_equal(matched, n);
	unlink(trace);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_execsnoop),
	};
	char self[PATH_MAX];
	ssize_t n;

	if (argc == 3 && !strcmp(argv[1], "--dump")) {
		long r = dump_file(argv[2], stdout);

		if (r < 0) {
			fprintf(stderr, "%s: %s\n", argv[2], strerror((int)-r));
			return 1;
		}
		return 0;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		snprintf(exe_dir, sizeof(exe_dir), "%s", dirname(self));
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
