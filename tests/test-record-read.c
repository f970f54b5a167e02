// SPDX-License-Identifier: MIT
/*
 * Checker for pp-record's files, used by tests/e2e/record-*.sh, and a unit
 * test of its own decoding when run without arguments.
 *
 *   test-record-read FILE [--pid PID] [--syms PID]
 *
 * prints "key value" lines: footer, corrupt, truncated, chunk counts per
 * type, "event NAME N" per attr name, "pid_event PID NAME N" (with --pid),
 * "lost_kernel N", "lost_recorder N", and with --syms PID the user symbol
 * of each sample's ip and of every user callchain frame of that pid,
 * resolved only from the file (MMAPS/MMAP2 + USYMS): "usym NAME N"
 * (--syms -1: every pid).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <linux/perf_event.h>

#include "pp/format.h"
#include "pp/ftpages.h"
#include "pp/io.h"
#include "pp/meta.h"
#include "pp/reader.h"
#include "pp/sample.h"
#include "pp/writer.h"

struct attr_ent {
	uint64_t id;
	uint64_t sample_type;
	int name_idx;
};

struct usym {
	uint64_t start;
	uint32_t size;
	const char *name;
};

struct dso {
	uint8_t bid[20];
	int bsz;
	char *path;
	struct usym *syms;
	uint32_t nr;
};

struct map {
	uint32_t pid;
	uint64_t start, len, pgoff;
	uint8_t bid[20];
	int bsz;
	char *path;
};

#define TIDS 65536		/* tid -> pid, for samples made of ftrace events */

struct ctx {
	struct { uint32_t tid, pid; } tids[TIDS];
	struct attr_ent *ids;
	int nr_ids;
	char *names[256];
	uint64_t counts[256];
	uint64_t pid_counts[256];
	int nr_names;
	struct dso *dsos;
	int nr_dsos;
	struct map *maps;
	int nr_maps;
	char *sym_names[4096];
	uint64_t sym_counts[4096];
	int nr_sym_names;
	uint64_t lost_kernel, lost_recorder, unresolved;
	uint64_t chunks_by_type[64];
	char *blobs[65536];
	int nr_blobs;
};

static void *keep(struct ctx *c, const void *p, size_t n)
{
	char *b = malloc(n);

	if (!b)
		abort();
	memcpy(b, p, n);
	if (c->nr_blobs < 65536)
		c->blobs[c->nr_blobs++] = b;
	return b;
}

static void decode_attrs(struct ctx *c, const uint8_t *p, size_t len)
{
	struct pp_item_iter it;
	struct pp_item item;

	pp_item_iter__init(&it, p, len);
	while (pp_item_iter__next(&it, &item)) {
		struct pp_cur cur;
		uint32_t asz, nr, k;
		const uint8_t *attr, *ids;
		const char *name;
		struct perf_event_attr a = { 0 };
		int ni;

		pp_cur__init(&cur, item.body, item.size);
		if (pp_cur__u32(&cur, &asz) || pp_cur__u32(&cur, &nr) ||
		    pp_cur__bytes(&cur, &attr, asz) || pp_cur__align(&cur, 8) ||
		    pp_cur__bytes(&cur, &ids, (size_t)nr * 8) || pp_cur__str(&cur, &name))
			continue;
		memcpy(&a, attr, asz < sizeof(a) ? asz : sizeof(a));
		if (c->nr_names >= 256)
			continue;
		ni = c->nr_names++;
		c->names[ni] = keep(c, name, strlen(name) + 1);
		c->ids = realloc(c->ids, (size_t)(c->nr_ids + nr) * sizeof(*c->ids));
		for (k = 0; k < nr; k++) {
			struct attr_ent *e = &c->ids[c->nr_ids++];

			memcpy(&e->id, ids + 8 * k, 8);
			e->sample_type = a.sample_type;
			e->name_idx = ni;
		}
	}
}

static struct attr_ent *find_id(struct ctx *c, uint64_t id)
{
	for (int i = 0; i < c->nr_ids; i++)
		if (c->ids[i].id == id)
			return &c->ids[i];
	return NULL;
}

static void add_map(struct ctx *c, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		    const uint8_t *bid, int bsz, const char *path)
{
	struct map *m;

	c->maps = realloc(c->maps, (size_t)(c->nr_maps + 1) * sizeof(*c->maps));
	m = &c->maps[c->nr_maps++];
	m->pid = pid;
	m->start = start;
	m->len = len;
	m->pgoff = pgoff;
	m->bsz = bsz > 20 ? 20 : bsz;
	memcpy(m->bid, bid, (size_t)m->bsz);
	m->path = keep(c, path, strlen(path) + 1);
}

static void decode_mmaps(struct ctx *c, const uint8_t *p, size_t len)
{
	struct pp_item_iter it;
	struct pp_item item;

	pp_item_iter__init(&it, p, len);
	while (pp_item_iter__next(&it, &item)) {
		struct pp_mmap_item mi;
		const char *fn;
		struct pp_cur cur;

		if (item.size < sizeof(mi))
			continue;
		memcpy(&mi, item.body, sizeof(mi));
		pp_cur__init(&cur, item.body + sizeof(mi), item.size - sizeof(mi));
		if (pp_cur__str(&cur, &fn))
			continue;
		add_map(c, mi.pid, mi.start, mi.len, mi.pgoff, mi.build_id, mi.build_id_size, fn);
	}
}

static void decode_usyms(struct ctx *c, const uint8_t *p, size_t len)
{
	struct pp_item_iter it;
	struct pp_item item;

	pp_item_iter__init(&it, p, len);
	while (pp_item_iter__next(&it, &item)) {
		struct pp_cur cur;
		const uint8_t *bid;
		const char *path;
		uint8_t bsz, pad;
		uint32_t nr, k;
		struct dso *d;

		pp_cur__init(&cur, item.body, item.size);
		if (pp_cur__u8(&cur, &bsz) || pp_cur__u8(&cur, &pad) || pp_cur__u8(&cur, &pad) ||
		    pp_cur__u8(&cur, &pad) || pp_cur__bytes(&cur, &bid, 20) ||
		    pp_cur__u32(&cur, &nr) || pp_cur__str(&cur, &path) || pp_cur__align(&cur, 8))
			continue;
		c->dsos = realloc(c->dsos, (size_t)(c->nr_dsos + 1) * sizeof(*c->dsos));
		d = &c->dsos[c->nr_dsos++];
		memset(d, 0, sizeof(*d));
		d->bsz = bsz > 20 ? 20 : bsz;
		memcpy(d->bid, bid, (size_t)d->bsz);
		d->path = keep(c, path, strlen(path) + 1);
		d->syms = calloc(nr ? nr : 1, sizeof(*d->syms));
		for (k = 0; k < nr; k++) {
			const char *nm;

			if (pp_cur__u64(&cur, &d->syms[k].start) ||
			    pp_cur__u32(&cur, &d->syms[k].size) || pp_cur__str(&cur, &nm))
				break;
			d->syms[k].name = keep(c, nm, strlen(nm) + 1);
		}
		d->nr = k;
	}
}

static void decode_lost(struct ctx *c, const uint8_t *p, size_t len)
{
	struct pp_item_iter it;
	struct pp_item item;

	pp_item_iter__init(&it, p, len);
	while (pp_item_iter__next(&it, &item)) {
		struct pp_lost_item li;

		if (item.size < sizeof(li))
			continue;
		memcpy(&li, item.body, sizeof(li));
		c->lost_recorder += li.count;
	}
}

static const char *resolve(struct ctx *c, uint32_t pid, uint64_t addr)
{
	for (int i = c->nr_maps; i-- > 0;) {
		struct map *m = &c->maps[i];
		uint64_t off;

		if (m->pid != pid || addr < m->start || addr >= m->start + m->len)
			continue;
		off = addr - m->start + m->pgoff;
		for (int k = 0; k < c->nr_dsos; k++) {
			struct dso *d = &c->dsos[k];
			const char *best = NULL;

			if (m->bsz ? (d->bsz != m->bsz || memcmp(d->bid, m->bid, (size_t)m->bsz)) :
				     strcmp(d->path, m->path))
				continue;
			for (uint32_t s = 0; s < d->nr; s++) {
				if (d->syms[s].start <= off &&
				    (off < d->syms[s].start + d->syms[s].size || !d->syms[s].size))
					best = d->syms[s].name;
			}
			if (best)
				return best;
		}
		return NULL;
	}
	return NULL;
}

static void count_sym(struct ctx *c, const char *name)
{
	int i;

	for (i = 0; i < c->nr_sym_names; i++)
		if (!strcmp(c->sym_names[i], name))
			break;
	if (i == c->nr_sym_names) {
		if (i >= 4096)
			return;
		c->sym_names[c->nr_sym_names++] = (char *)name;
	}
	c->sym_counts[i]++;
}

static void set_pid(struct ctx *c, uint32_t pid, uint32_t tid)
{
	c->tids[tid % TIDS].tid = tid;
	c->tids[tid % TIDS].pid = pid;
}

/* The process of @tid, as TASKS and the side-band said (else @tid). */
static uint32_t pid_of(const struct ctx *c, uint32_t tid)
{
	return c->tids[tid % TIDS].tid == tid && tid ? c->tids[tid % TIDS].pid : tid;
}

static void decode_tasks(struct ctx *c, const uint8_t *p, size_t len)
{
	struct pp_item_iter it;
	struct pp_item item;

	pp_item_iter__init(&it, p, len);
	while (pp_item_iter__next(&it, &item)) {
		if (item.size >= 8)
			set_pid(c, pp_get_le32(item.body), pp_get_le32(item.body + 4));
	}
}

static void data_pass(struct ctx *c, const uint8_t *p, size_t len, int pass, long pid,
		      long sym_pid)
{
	struct pp_rec_iter it;
	struct pp_rec r;

	pp_rec_iter__init(&it, p, len);
	while (pp_rec_iter__next(&it, &r)) {
		if (pass == 0) {
			if (r.type == PERF_RECORD_MMAP2 && r.size >= 80) {
				uint32_t mpid;
				uint64_t a, l, pg;
				const char *fn = (const char *)r.data + 72;

				if (!memchr(fn, 0, (size_t)r.size - 72))
					continue;
				memcpy(&mpid, r.data + 8, 4);
				memcpy(&a, r.data + 16, 8);
				memcpy(&l, r.data + 24, 8);
				memcpy(&pg, r.data + 32, 8);
				add_map(c, mpid, a, l, pg, r.data + 44,
					(r.misc & PERF_RECORD_MISC_MMAP_BUILD_ID) ? r.data[40] : 0, fn);
			} else if (r.type == PERF_RECORD_COMM && r.size >= 16) {
				set_pid(c, pp_get_le32(r.data + 8), pp_get_le32(r.data + 12));
			} else if (r.type == PERF_RECORD_FORK && r.size >= 24) {
				set_pid(c, pp_get_le32(r.data + 8), pp_get_le32(r.data + 16));
			} else if (r.type == PERF_RECORD_LOST && r.size >= 24) {
				uint64_t l;

				memcpy(&l, r.data + 16, 8);
				c->lost_kernel += l;
			} else if (r.type == PERF_RECORD_LOST_SAMPLES && r.size >= 16) {
				uint64_t l;

				memcpy(&l, r.data + 8, 8);
				c->lost_kernel += l;
			}
			continue;
		}
		if (r.type == PERF_RECORD_SAMPLE) {
			struct attr_ent *e = find_id(c, pp_sample__id(r.data, r.size));
			struct pp_sample s;
			int user;

			if (!e || pp_sample__parse(e->sample_type, r.data, r.size, &s))
				continue;
			c->counts[e->name_idx]++;
			if (s.pid == PP_FTPAGE_PID_UNKNOWN)
				s.pid = pid_of(c, s.tid);
			if (pid > 0 && s.pid == (uint32_t)pid)
				c->pid_counts[e->name_idx]++;
			if (!sym_pid || (sym_pid > 0 && s.pid != (uint32_t)sym_pid))
				continue;
			user = (s.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_USER;
			if ((e->sample_type & PERF_SAMPLE_IP) && user) {
				const char *n = resolve(c, s.pid, s.ip);

				if (n)
					count_sym(c, n);
				else
					c->unresolved++;
			}
			user = 0;
			for (uint64_t k = 0; k < s.nr_callchain; k++) {
				uint64_t a;

				memcpy(&a, &s.callchain[k], 8);
				if (a >= (uint64_t)PERF_CONTEXT_MAX) {
					user = a == (uint64_t)PERF_CONTEXT_USER;
					continue;
				}
				if (user) {
					const char *n = resolve(c, s.pid, a);

					if (n) {
						char buf[300];

						snprintf(buf, sizeof(buf), "chain:%s", n);
						count_sym(c, keep(c, buf, strlen(buf) + 1));
					}
				}
			}
		}
	}
}

static int check_file(const char *path, long pid, long sym_pid)
{
	struct pp_reader *rd = pp_reader__open_path(path, NULL);
	const struct pp_reader_stats *st;
	struct ctx *c = calloc(1, sizeof(*c));
	struct pp_chunk ch;
	int pass, ret, i;

	if (!rd) {
		fprintf(stderr, "cannot open %s: %s\n", path, strerror(errno));
		return 1;
	}
	for (pass = 0; pass < 2; pass++) {
		pp_reader__seek(rd, 0);
		while ((ret = pp_reader__next(rd, &ch)) == 1) {
			uint16_t t = ch.hdr->type;

			if (pass == 0) {
				c->chunks_by_type[t < 64 ? t : 63]++;
				if (t == PP_CHUNK_ATTRS)
					decode_attrs(c, ch.data, ch.size);
				else if (t == PP_CHUNK_MMAPS)
					decode_mmaps(c, ch.data, ch.size);
				else if (t == PP_CHUNK_USYMS)
					decode_usyms(c, ch.data, ch.size);
				else if (t == PP_CHUNK_LOST)
					decode_lost(c, ch.data, ch.size);
				else if (t == PP_CHUNK_TASKS)
					decode_tasks(c, ch.data, ch.size);
			}
			if (t == PP_CHUNK_DATA)
				data_pass(c, ch.data, ch.size, pass, pid, sym_pid);
		}
		if (ret < 0)
			printf("read_error %d\n", ret);
	}
	st = pp_reader__stats(rd);
	printf("footer %d\ncorrupt %llu\ntruncated %d\n", st->has_footer,
	       (unsigned long long)st->corrupt, st->truncated);
	printf("chunks_machine %llu\nchunks_formats %llu\nchunks_attrs %llu\nchunks_tasks %llu\n"
	       "chunks_mmaps %llu\nchunks_ksyms %llu\nchunks_usyms %llu\nchunks_data %llu\n"
	       "chunks_lost %llu\n",
	       (unsigned long long)c->chunks_by_type[PP_CHUNK_MACHINE],
	       (unsigned long long)c->chunks_by_type[PP_CHUNK_FORMATS],
	       (unsigned long long)c->chunks_by_type[PP_CHUNK_ATTRS],
	       (unsigned long long)c->chunks_by_type[PP_CHUNK_TASKS],
	       (unsigned long long)c->chunks_by_type[PP_CHUNK_MMAPS],
	       (unsigned long long)c->chunks_by_type[PP_CHUNK_KSYMS],
	       (unsigned long long)c->chunks_by_type[PP_CHUNK_USYMS],
	       (unsigned long long)c->chunks_by_type[PP_CHUNK_DATA],
	       (unsigned long long)c->chunks_by_type[PP_CHUNK_LOST]);
	for (i = 0; i < c->nr_names; i++) {
		printf("event %s %llu\n", c->names[i], (unsigned long long)c->counts[i]);
		if (pid > 0)
			printf("pid_event %ld %s %llu\n", pid, c->names[i],
			       (unsigned long long)c->pid_counts[i]);
	}
	for (i = 0; i < c->nr_sym_names; i++)
		printf("usym %s %llu\n", c->sym_names[i], (unsigned long long)c->sym_counts[i]);
	if (sym_pid)
		printf("usym_unresolved %llu\n", (unsigned long long)c->unresolved);
	printf("lost_kernel %llu\nlost_recorder %llu\n", (unsigned long long)c->lost_kernel,
	       (unsigned long long)c->lost_recorder);
	pp_reader__free(rd);
	for (i = 0; i < c->nr_dsos; i++)
		free(c->dsos[i].syms);
	for (i = 0; i < c->nr_blobs; i++)
		free(c->blobs[i]);
	free(c->dsos);
	free(c->maps);
	free(c->ids);
	free(c);
	return 0;
}

/* Unit test: a USYMS item built as pp-record builds it decodes and resolves. */
static void test_usyms_roundtrip(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));
	struct pp_buf b;
	uint8_t hdr[4] = { 3, 0, 0, 0 }, bid[20] = { 1, 2, 3 };
	uint32_t nr = 2, sz;
	uint64_t start;
	size_t at;

	pp_buf__init(&b);
	at = pp_item__begin(&b, 0);
	pp_buf__append(&b, hdr, 4);
	pp_buf__append(&b, bid, 20);
	pp_buf__append(&b, &nr, 4);
	pp_buf__append_str(&b, "/bin/x");
	pp_buf__pad(&b, 8);
	start = 0x1000; sz = 0x10;
	pp_buf__append(&b, &start, 8); pp_buf__append(&b, &sz, 4); pp_buf__append_str(&b, "f1");
	start = 0x1010; sz = 0x20;
	pp_buf__append(&b, &start, 8); pp_buf__append(&b, &sz, 4); pp_buf__append_str(&b, "f2");
	pp_item__end(&b, at);
	decode_usyms(c, b.data, b.len);
	assert_int_equal(c->nr_dsos, 1);
	assert_int_equal(c->dsos[0].nr, 2);
	add_map(c, 7, 0x400000, 0x10000, 0, bid, 3, "/bin/x");
	assert_string_equal(resolve(c, 7, 0x401018), "f2");
	assert_string_equal(resolve(c, 7, 0x401004), "f1");
	assert_null(resolve(c, 8, 0x401004));
	pp_buf__exit(&b);
	free(c->dsos[0].syms);
	for (int i = 0; i < c->nr_blobs; i++)
		free(c->blobs[i]);
	free(c->dsos);
	free(c->maps);
	free(c);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_usyms_roundtrip),
	};
	long pid = 0, sym_pid = 0;
	int i;

	if (argc < 2)
		return cmocka_run_group_tests(tests, NULL, NULL);
	for (i = 2; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--pid"))
			pid = strtol(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--syms"))
			sym_pid = strtol(argv[i + 1], NULL, 10);
	}
	return check_file(argv[1], pid, sym_pid);
}
