// SPDX-License-Identifier: MIT
/* Unit tests of the trace-file library: round trips, truncation, bit flips, caps. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <cmocka.h>
#include "pp/format.h"
#include "pp/io.h"
#include "pp/meta.h"
#include "pp/reader.h"
#include "pp/writer.h"
#include "../format/format-internal.h"

#define NR_TYPES 10

static const uint16_t all_types[NR_TYPES] = {
	PP_CHUNK_MACHINE, PP_CHUNK_ATTRS, PP_CHUNK_FORMATS, PP_CHUNK_TASKS, PP_CHUNK_MMAPS,
	PP_CHUNK_KSYMS, PP_CHUNK_USYMS, PP_CHUNK_DATA, PP_CHUNK_LOST, PP_CHUNK_DATA,
};

/* A payload that compresses: perf-like records with a counter inside. */
static size_t make_payload(uint8_t *p, size_t cap, unsigned seed)
{
	size_t len = 0;

	for (unsigned i = 0; len + 48 <= cap && i < 40 + seed * 7; i++) {
		uint32_t type = 9;
		uint16_t misc = 2, size = 48;
		uint64_t v[5] = { 1000 + seed, i, 4242, (uint64_t)seed << 32 | i, 77 };

		memcpy(p + len, &type, 4);
		memcpy(p + len + 4, &misc, 2);
		memcpy(p + len + 6, &size, 2);
		memcpy(p + len + 8, v, 40);
		len += 48;
	}
	return len;
}

struct expect {
	uint16_t type;
	uint32_t stream;
	uint64_t first_ts, last_ts;
	uint8_t data[4096];
	size_t len;
	uint64_t start, end;	/* chunk's byte range in the file */
};

/* Write NR_TYPES chunks (plus index and footer if @close) into @io. */
static void write_file(struct pp_io *io, uint8_t codec, int close_it, unsigned index_every,
		       struct expect *ex)
{
	struct pp_writer_opts o = { .codec = codec, .chunk_size = 4096, .index_every = index_every };
	struct pp_writer *w = pp_writer__new(io, &o);

	assert_non_null(w);
	for (int i = 0; i < NR_TYPES; i++) {
		struct pp_chunk_desc d = {
			.type = all_types[i],
			.flags = all_types[i] == PP_CHUNK_DATA ? PP_CHUNK_CRITICAL : 0,
			.stream = all_types[i] == PP_CHUNK_DATA ? (uint32_t)i % 2 : PP_STREAM_META,
			.first_ts = 1000u * (unsigned)i + 1, .last_ts = 1000u * (unsigned)i + 999,
			.encoding = i == 9 ? PP_DATA_CACHED : PP_DATA_PLAIN,
		};

		ex[i].type = d.type;
		ex[i].stream = d.stream;
		ex[i].first_ts = d.first_ts;
		ex[i].last_ts = d.last_ts;
		ex[i].len = make_payload(ex[i].data, sizeof(ex[i].data), (unsigned)i);
		if (i == 4)
			ex[i].len = 0;	/* an empty chunk is legal */
		ex[i].start = pp_writer__bytes(w);
		assert_int_equal(pp_writer__append_chunk(w, &d, ex[i].data, ex[i].len), 0);
	}
	for (int i = 0; i < NR_TYPES; i++) {
		uint8_t hb[56];

		/* The chunk alone: an index chunk may follow it within the same append. */
		assert_int_equal(pp_io__pread(io, hb, sizeof(hb), ex[i].start), 56);
		ex[i].end = ex[i].start + 64 + pp_get_le32(hb + 16);
	}
	if (close_it)
		assert_int_equal(pp_writer__close(w), 0);
	else
		pp_writer__abort(w);
}

/* Read all chunks, checking each against @ex; returns the number of data chunks matched. */
static int read_all(struct pp_io *io, const struct expect *ex, int *matched,
		    struct pp_reader_stats *st, int *saw_footer)
{
	struct pp_reader *r = pp_reader__open(io, NULL);
	struct pp_chunk c;
	int n = 0, rc;

	if (!r)
		return -errno;
	memset(matched, 0, sizeof(int) * NR_TYPES);
	*saw_footer = 0;
	while ((rc = pp_reader__next(r, &c)) == 1) {
		if (c.hdr->type == PP_CHUNK_INDEX)
			continue;
		if (c.hdr->type == PP_CHUNK_FOOTER) {
			*saw_footer = 1;
			continue;
		}
		for (int i = 0; i < NR_TYPES; i++) {
			if (ex[i].start != c.offset)
				continue;
			assert_int_equal(c.hdr->type, ex[i].type);
			assert_int_equal(c.hdr->stream, ex[i].stream);
			assert_int_equal(c.hdr->first_ts, ex[i].first_ts);
			assert_int_equal(c.hdr->last_ts, ex[i].last_ts);
			assert_int_equal(c.size, ex[i].len);
			assert_memory_equal(c.data, ex[i].data, ex[i].len);
			matched[i] = 1;
			n++;
		}
	}
	assert_true(rc == 0);
	*st = *pp_reader__stats(r);
	pp_reader__free(r);
	return n;
}

static void test_crc32c(void **state)
{
	/* The check value of CRC-32C. */
	assert_int_equal(pp_crc32c(0, "123456789", 9), 0xE3069283u);
	/* Chaining gives the CRC of the concatenation. */
	assert_int_equal(pp_crc32c(pp_crc32c(0, "1234", 4), "56789", 5), 0xE3069283u);
	assert_int_equal(pp_crc32c(0, "", 0), 0);
}

static void roundtrip(uint8_t codec, int use_file)
{
	struct expect ex[NR_TYPES];
	struct pp_reader_stats st;
	int matched[NR_TYPES], footer;
	char path[] = "/tmp/pp-test-format.XXXXXX";
	struct pp_io *io;
	int fd = -1;

	if (use_file) {
		fd = mkstemp(path);
		assert_true(fd >= 0);
		unlink(path);
		io = pp_io_file__new(fd, 1);
	} else {
		io = pp_io_mem__new(NULL, 0, 0);
	}
	assert_non_null(io);
	write_file(io, codec, 1, 4, ex);
	assert_int_equal(read_all(io, ex, matched, &st, &footer), NR_TYPES);
	assert_true(footer);
	assert_true(st.has_footer);
	assert_int_equal(st.corrupt, 0);
	assert_false(st.truncated);
	pp_io__free(io);
}

static void test_roundtrip_mem_lz4(void **s) { roundtrip(PP_CODEC_LZ4, 0); }
static void test_roundtrip_mem_zstd(void **s) { roundtrip(PP_CODEC_ZSTD, 0); }
static void test_roundtrip_mem_none(void **s) { roundtrip(PP_CODEC_NONE, 0); }
static void test_roundtrip_file_lz4(void **s) { roundtrip(PP_CODEC_LZ4, 1); }
static void test_roundtrip_file_zstd(void **s) { roundtrip(PP_CODEC_ZSTD, 1); }

/* The index lists every chunk, in file order, and points at real chunks. */
static void test_index(void **state)
{
	struct expect ex[NR_TYPES];
	const struct pp_index_entry *idx;
	struct pp_io *io = pp_io_mem__new(NULL, 0, 0);
	struct pp_reader *r;
	struct pp_chunk c;
	size_t nr;

	write_file(io, PP_CODEC_LZ4, 1, 3, ex);
	r = pp_reader__open(io, NULL);
	assert_non_null(r);
	assert_non_null(pp_reader__footer(r));
	{
		uint8_t hb[56];
		uint64_t raw = 0;

		for (int i = 7; i <= 9; i += 2) {
			assert_int_equal(pp_io__pread(io, hb, sizeof(hb), ex[i].start), 56);
			raw += pp_get_le32(hb + 20);
		}
		assert_int_equal(pp_reader__footer(r)->data_raw_bytes, raw);
	}
	idx = pp_reader__index(r, &nr);
	assert_non_null(idx);
	assert_int_equal(nr, NR_TYPES);
	for (size_t i = 0; i < nr; i++) {
		assert_int_equal(idx[i].offset, ex[i].start);
		assert_int_equal(idx[i].type, ex[i].type);
		assert_int_equal(idx[i].stream, ex[i].stream);
		assert_int_equal(pp_reader__read_at(r, idx[i].offset, &c), 1);
		assert_memory_equal(c.data, ex[i].data, ex[i].len);
	}
	assert_true(pp_reader__stats(r)->opened_by_index);
	pp_reader__free(r);
	pp_io__free(io);
}

/* A killed writer leaves no index or footer: the file opens by scanning. */
static void test_no_footer_scans(void **state)
{
	struct expect ex[NR_TYPES];
	struct pp_reader_stats st;
	int matched[NR_TYPES], footer;
	struct pp_io *io = pp_io_mem__new(NULL, 0, 0);
	struct pp_reader *r;
	size_t nr;

	write_file(io, PP_CODEC_LZ4, 0, 1000, ex);
	assert_int_equal(read_all(io, ex, matched, &st, &footer), NR_TYPES);
	assert_false(footer);
	assert_false(st.has_footer);
	assert_false(st.truncated);
	r = pp_reader__open(io, NULL);
	assert_null(pp_reader__index(r, &nr));
	assert_int_equal(nr, 0);
	pp_reader__free(r);
	pp_io__free(io);
}

/* Append a chunk made by hand (sequence @seq), its CRCs computed here. */
static uint64_t put_chunk(struct pp_io *io, uint16_t type, const void *payload, size_t len,
			  uint64_t seq)
{
	struct pp_chunk_desc d = { .type = type, .stream = PP_STREAM_META };
	uint64_t off = (uint64_t)pp_io__size(io);
	uint8_t *buf;
	size_t blen;

	assert_int_equal(pp_writer__compress(PP_CODEC_NONE, 0, &d, payload, len, &buf, &blen), 0);
	pp_put_le64(buf + PP_CH_OFF_SEQ, seq);
	pp_put_le32(buf + PP_CH_OFF_PAYLOAD_CRC, pp_crc32c(0, buf + PP_CH_HEADER_SIZE, len));
	pp_put_le32(buf + PP_CH_OFF_HEADER_CRC, pp_crc32c(0, buf, PP_CH_OFF_HEADER_CRC));
	assert_int_equal(pp_io__write(io, buf, blen), 0);
	free(buf);
	return off;
}

static int index_warnings;

static void count_print(int level, const char *msg, void *ctx)
{
	(void)level;
	(void)ctx;
	if (strstr(msg, "index"))
		index_warnings++;
}

/*
 * A file of two chunks (DATA at @off[0], MACHINE at @off[1]) closed by an
 * index of @nr entries: entry i names the chunk at off[pick[i]] (2: an
 * offset past the end), @bad_type makes the last entry's type lie.
 */
static struct pp_io *hostile_index(const int *pick, uint32_t nr, int bad_type)
{
	struct pp_io *io = pp_io_mem__new(NULL, 0, 0);
	struct pp_writer_opts wo = { .codec = PP_CODEC_NONE, .index_every = 1000 };
	struct pp_chunk_desc dd = { .type = PP_CHUNK_DATA, .flags = PP_CHUNK_CRITICAL, .stream = 0,
				    .first_ts = 10, .last_ts = 20, .nr_records = 1 };
	struct pp_chunk_desc md = { .type = PP_CHUNK_MACHINE, .stream = PP_STREAM_META };
	uint8_t rec[48], *idx, foot[64], fid[16];
	uint64_t off[3], at;
	struct pp_writer *w;

	make_payload(rec, sizeof(rec), 1);
	w = pp_writer__new(io, &wo);
	assert_non_null(w);
	off[0] = pp_writer__bytes(w);
	assert_int_equal(pp_writer__append_chunk(w, &dd, rec, sizeof(rec)), 0);
	off[1] = pp_writer__bytes(w);
	assert_int_equal(pp_writer__append_chunk(w, &md, "a=1\n", 4), 0);
	off[2] = pp_writer__bytes(w) + 100000;
	pp_writer__abort(w);
	idx = calloc(1, 16 + (size_t)nr * 32);
	assert_non_null(idx);
	pp_put_le32(idx + 8, nr);
	for (uint32_t i = 0; i < nr; i++) {
		uint8_t *e = idx + 16 + i * 32;
		int k = pick[i];

		pp_put_le64(e, off[k]);
		pp_put_le64(e + 8, k ? 0 : 10);
		pp_put_le64(e + 16, k ? 0 : 20);
		pp_put_le32(e + 24, k ? PP_STREAM_META : 0);
		pp_put_le16(e + 28, bad_type && i == nr - 1 ? PP_CHUNK_LOST :
				    k ? PP_CHUNK_MACHINE : PP_CHUNK_DATA);
		pp_put_le16(e + 30, k ? 0 : PP_CHUNK_CRITICAL);
	}
	at = put_chunk(io, PP_CHUNK_INDEX, idx, 16 + (size_t)nr * 32, 2);
	free(idx);
	memset(foot, 0, sizeof(foot));
	pp_put_le64(foot, at);
	pp_put_le64(foot + 8, 3);
	assert_int_equal(pp_io__pread(io, fid, 16, 32), 16);
	memcpy(foot + 48, fid, 16);
	put_chunk(io, PP_CHUNK_FOOTER, foot, sizeof(foot), 3);
	return io;
}

/*
 * An index is trusted only if every entry names the chunk at its offset, in
 * order, once: else one warning and the file is scanned (each chunk once).
 */
static void test_hostile_index(void **state)
{
	static const int good[] = { 0, 1 }, dup[4000] = { 0 }, back[] = { 1, 0 },
			 outside[] = { 0, 2 }, typo[] = { 0, 1 };
	struct { const int *pick; uint32_t nr; int bad_type, ok; } cases[] = {
		{ good, 2, 0, 1 }, { dup, 4000, 0, 0 }, { back, 2, 0, 0 },
		{ outside, 2, 0, 0 }, { typo, 2, 1, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pp_reader_opts ro = { .print = count_print };
		struct pp_io *io = hostile_index(cases[i].pick, cases[i].nr, cases[i].bad_type);
		const struct pp_index_entry *idx;
		struct pp_reader *r = pp_reader__open(io, &ro);
		struct pp_chunk c;
		size_t nr = 99;
		int chunks = 0;

		assert_non_null(r);
		assert_non_null(pp_reader__footer(r));
		index_warnings = 0;
		idx = pp_reader__index(r, &nr);
		if (cases[i].ok) {
			assert_non_null(idx);
			assert_int_equal(nr, 2);
		} else {
			assert_null(idx);
			assert_int_equal(nr, 0);
		}
		assert_int_equal(index_warnings, !cases[i].ok);
		while (pp_reader__next(r, &c) == 1)
			chunks += c.hdr->type == PP_CHUNK_DATA;
		assert_int_equal(chunks, 1);
		pp_reader__free(r);
		pp_io__free(io);
	}
}

#if !defined(__SANITIZE_ADDRESS__)
static char oom_msg[512];

static void keep_print(int level, const char *msg, void *ctx)
{
	(void)level;
	(void)ctx;
	snprintf(oom_msg, sizeof(oom_msg), "%s", msg);
}
#endif

/*
 * A 16 MiB chunk read with too little address space left: the reader says
 * "out of memory" and returns -ENOMEM, never "payload does not decompress"
 * (damage) nor nothing. In a child with an address-space limit, which
 * AddressSanitizer's shadow memory cannot live under.
 */
static void test_out_of_memory(void **state)
{
#if defined(__SANITIZE_ADDRESS__)
	skip();
#else
	struct pp_writer_opts wo = { .codec = PP_CODEC_LZ4 };
	struct pp_chunk_desc md = { .type = PP_CHUNK_MACHINE, .stream = PP_STREAM_META };
	struct pp_io *io = pp_io_mem__new(NULL, 0, 0);
	struct pp_writer *w = pp_writer__new(io, &wo);
	uint8_t *big = calloc(1, PP_CHUNK_MAX_RAW);
	int status;
	pid_t pid;

	assert_non_null(w);
	assert_non_null(big);
	assert_int_equal(pp_writer__append_chunk(w, &md, big, PP_CHUNK_MAX_RAW), 0);
	assert_int_equal(pp_writer__close(w), 0);
	free(big);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		struct pp_reader_opts ro = { .print = keep_print };
		struct pp_reader *r = pp_reader__open(io, &ro);
		struct rlimit rl;
		struct pp_chunk c;
		long vm = 0;
		FILE *f = fopen("/proc/self/statm", "r");
		int ret;

		if (!r || !f || fscanf(f, "%ld", &vm) != 1)
			_exit(10);
		fclose(f);
		rl.rlim_cur = rl.rlim_max = (rlim_t)vm * (rlim_t)sysconf(_SC_PAGESIZE) + (4u << 20);
		if (setrlimit(RLIMIT_AS, &rl))
			_exit(11);
		ret = pp_reader__next(r, &c);
		if (ret != -ENOMEM)
			_exit(12);
		if (!strstr(oom_msg, "out of memory") || strstr(oom_msg, "decompress"))
			_exit(13);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	pp_io__free(io);
#endif
}

/* Cut the file at every byte: exactly the complete chunks before the cut read back. */
static void test_truncate_everywhere(void **state)
{
	struct expect ex[NR_TYPES];
	struct pp_reader_stats st;
	int matched[NR_TYPES], footer;
	struct pp_io *io = pp_io_mem__new(NULL, 0, 0);
	const uint8_t *bytes;
	size_t len;

	write_file(io, PP_CODEC_LZ4, 1, 4, ex);
	bytes = pp_io_mem__data(io, &len);
	for (size_t cut = 0; cut < len; cut++) {
		struct pp_io *t = pp_io_mem__new(bytes, cut, 0);
		int expect_n = 0, at_boundary = cut == 64, n;

		for (int i = 0; i < NR_TYPES; i++) {
			if (ex[i].end <= cut)
				expect_n++;
			if (ex[i].end == cut || ex[i].start == cut)
				at_boundary = 1;
		}
		n = read_all(t, ex, matched, &st, &footer);
		if (cut < 64) {
			assert_int_equal(n, -EINVAL);
		} else {
			assert_int_equal(n, expect_n);
			for (int i = 0; i < expect_n; i++)
				assert_true(matched[i]);
			assert_false(footer);
			assert_int_equal(st.corrupt, 0);
			/* Inside a chunk (not after an index chunk either): truncation is reported. */
			if (!at_boundary && cut < ex[NR_TYPES - 1].end)
				assert_true(st.truncated || st.corrupt);
			if (st.truncated)
				assert_true(st.truncated_at < cut);
		}
		pp_io__free(t);
	}
	pp_io__free(io);
}

/* Flip each bit of the file in turn: only the chunk holding it is lost. */
static void test_bit_flips(void **state)
{
	struct expect ex[NR_TYPES];
	struct pp_reader_stats st;
	int matched[NR_TYPES], footer;
	struct pp_io *io = pp_io_mem__new(NULL, 0, 0);
	const uint8_t *bytes;
	uint8_t *copy;
	size_t len;

	write_file(io, PP_CODEC_LZ4, 1, 1000, ex);
	bytes = pp_io_mem__data(io, &len);
	copy = malloc(len);
	for (size_t off = 0; off < len; off++) {
		for (int bit = 0; bit < 8; bit += 3) {
			struct pp_io *t;
			int hit = -1, n;

			memcpy(copy, bytes, len);
			copy[off] ^= (uint8_t)(1u << bit);
			t = pp_io_mem__new(copy, len, 0);
			for (int i = 0; i < NR_TYPES; i++)
				if (off >= ex[i].start && off < ex[i].end)
					hit = i;
			n = read_all(t, ex, matched, &st, &footer);
			if (off < 64) {
				/* Magic damage: not a pp file; other header bytes: read on. */
				if (off < 8) {
					assert_int_equal(n, -EINVAL);
				} else if (off == 8 || off == 9) {
					assert_true(n == -EPROTONOSUPPORT);
				} else {
					assert_int_equal(n, NR_TYPES);
					assert_true(st.header_damaged);
				}
			} else if (hit >= 0) {
				assert_int_equal(n, NR_TYPES - 1);
				assert_false(matched[hit]);
				assert_int_equal(st.corrupt, 1);
			} else {
				/* Index or footer damaged: all data chunks still read. */
				assert_int_equal(n, NR_TYPES);
			}
			pp_io__free(t);
		}
	}
	free(copy);
	pp_io__free(io);
}

static void test_unknown_chunks(void **state)
{
	struct pp_io *io = pp_io_mem__new(NULL, 0, 0);
	struct pp_writer *w = pp_writer__new(io, NULL);
	struct pp_chunk_desc skip = { .type = 0x7001, .stream = PP_STREAM_META };
	struct pp_chunk_desc crit = { .type = 0x7002, .flags = PP_CHUNK_CRITICAL, .stream = 0 };
	struct pp_chunk_desc data = { .type = PP_CHUNK_DATA, .stream = 0 };
	struct pp_reader *r;
	struct pp_chunk c;
	int nr_data = 0, rc;

	pp_writer__append_chunk(w, &data, "abcdefgh", 8);
	pp_writer__append_chunk(w, &skip, "future", 6);
	pp_writer__append_chunk(w, &data, "ijklmnop", 8);
	pp_writer__append_chunk(w, &crit, "must know", 9);
	pp_writer__append_chunk(w, &data, "qrstuvwx", 8);
	assert_int_equal(pp_writer__close(w), 0);
	r = pp_reader__open(io, NULL);
	while ((rc = pp_reader__next(r, &c)) == 1)
		nr_data += c.hdr->type == PP_CHUNK_DATA;
	assert_int_equal(rc, -EPROTO);
	assert_int_equal(nr_data, 2);
	assert_int_equal(pp_reader__stats(r)->unknown_skipped, 1);
	assert_int_equal(pp_reader__next(r, &c), -EPROTO);	/* stays stopped */
	assert_non_null(strstr(pp_reader__strerror(-EPROTO), "does not understand"));
	pp_reader__free(r);
	pp_io__free(io);
}

/* A header with a valid CRC but sizes past the caps is refused, not allocated. */
static void test_oversized_refused(void **state)
{
	struct pp_chunk_header h = {
		.type = PP_CHUNK_DATA, .stored_size = 0xfffffff0u, .raw_size = 0xffffffffu,
	};
	struct pp_io *io = pp_io_mem__new(NULL, 0, 0);
	struct pp_writer *w = pp_writer__new(io, NULL);
	struct pp_chunk_desc data = { .type = PP_CHUNK_DATA, .stream = 0 };
	struct pp_chunk_header back;
	uint8_t hb[56];
	struct pp_reader *r;
	struct pp_chunk c;
	int n = 0;

	pp_chunk_header__encode(&h, hb);
	pp_put_le32(hb + 52, pp_crc32c(0, hb, 52));
	assert_int_equal(pp_chunk_header__decode(hb, &back), -EBADMSG);
	h.stored_size = 100;
	h.raw_size = PP_CHUNK_MAX_RAW + 1;
	pp_chunk_header__encode(&h, hb);
	pp_put_le32(hb + 52, pp_crc32c(0, hb, 52));
	assert_int_equal(pp_chunk_header__decode(hb, &back), -EBADMSG);

	/* In a file: the bad header is skipped and the next chunk reads. */
	pp_io__write(io, hb, sizeof(hb));
	pp_writer__append_chunk(w, &data, "after", 5);
	pp_writer__abort(w);
	r = pp_reader__open(io, NULL);
	while (pp_reader__next(r, &c) == 1)
		n++;
	assert_int_equal(n, 1);
	assert_int_equal(pp_reader__stats(r)->corrupt, 1);
	assert_true(pp_reader__stats(r)->resyncs >= 1);
	assert_int_equal(pp_writer__compress(PP_CODEC_LZ4, 0, &data, hb, PP_CHUNK_MAX_RAW + 1,
					     (uint8_t **)&r, (size_t *)&n), -EINVAL);
	pp_reader__free(r);
	pp_io__free(io);
}

/* A full disk: the writer fails with ENOSPC and what was written reads back. */
static void test_full_disk(void **state)
{
	struct expect ex[NR_TYPES];
	struct pp_reader_stats st;
	int matched[NR_TYPES], footer, err = 0, written = 0;
	struct pp_io *io = pp_io_mem__new(NULL, 0, 1500);
	struct pp_writer *w = pp_writer__new(io, NULL);

	for (int i = 0; i < NR_TYPES && !err; i++) {
		struct pp_chunk_desc d = { .type = PP_CHUNK_DATA, .stream = 0, .first_ts = 1 };

		ex[i].type = d.type;
		ex[i].stream = 0;
		ex[i].first_ts = 1;
		ex[i].last_ts = 0;
		ex[i].len = make_payload(ex[i].data, 400, 100 + (unsigned)i);
		ex[i].start = pp_writer__bytes(w);
		err = pp_writer__append_chunk(w, &d, ex[i].data, ex[i].len);
		if (!err)
			written++;
		ex[i].end = err ? 0 : pp_writer__bytes(w);
		if (err)
			ex[i].start = (uint64_t)-1;
	}
	assert_int_equal(err, -ENOSPC);
	assert_int_equal(pp_writer__close(w), -ENOSPC);
	for (int i = written + 1; i < NR_TYPES; i++)
		ex[i].start = (uint64_t)-1;
	assert_int_equal(read_all(io, ex, matched, &st, &footer), written);
	assert_true(written > 0);
	pp_io__free(io);
}

/* pp_reccache_literals() and pp_reader__sideband_at(): the records are appended here. */
struct lit_ctx {
	uint8_t buf[64 * 1024];
	size_t len;
	int n;
};

static void lit_cb(const uint8_t *rec, uint16_t size, void *ctx)
{
	struct lit_ctx *lc = ctx;

	assert_true(lc->len + size <= sizeof(lc->buf));
	memcpy(lc->buf + lc->len, rec, size);
	lc->len += size;
	lc->n++;
}

/*
 * Read back the one DATA chunk of @io: it has @enc, decodes to @plain, and
 * its side-band walk (samples left encoded) gives @want's records. Return:
 * the reader, at that chunk (@c).
 */
static struct pp_reader *read_back(struct pp_io *io, uint8_t enc, const uint8_t *plain,
				   size_t len, const struct lit_ctx *want, struct pp_chunk *c)
{
	static struct lit_ctx got;
	struct pp_reader *r = pp_reader__open(io, NULL);

	assert_non_null(r);
	assert_int_equal(pp_reader__next(r, c), 1);
	assert_int_equal(c->hdr->encoding, enc);
	assert_int_equal(c->size, len);
	assert_memory_equal(c->data, plain, len);
	got.len = 0;
	got.n = 0;
	assert_int_equal(pp_reader__sideband_at(r, c->offset, lit_cb, &got), 1);
	assert_int_equal(got.n, want->n);
	assert_memory_equal(got.buf, want->buf, want->len);
	return r;
}

static const struct pp_rec_layout cached_lay[2] = {
	{ .id = 42, .time_off = 16 }, { .id = 43, .time_off = 24 },
};

/*
 * Records for the record cache, to @cap - 216 bytes: samples of the two
 * events of cached_lay (ids 42 and 43) and other records, of mixed sizes,
 * that repeat but for their times. Return: their size.
 */
static size_t cached_plain(uint8_t *plain, size_t cap)
{
	size_t len = 0;
	uint64_t x = 88172645463325252ull;

	for (int i = 0; len + 200 < cap - 16; i++) {
		uint16_t size = (uint16_t)(32 + 8 * (i % 3) + (i % 5 == 0 ? 3 : 0));
		uint32_t type = (uint32_t)(i % 7 == 0 ? 3 : 9);
		uint64_t t = 1000000ull + (uint64_t)i * 1234 - (i % 11 == 0 ? 5000 : 0);
		uint64_t id = 42 + (uint64_t)(i % 2);

		memcpy(plain + len, &type, 4);
		memset(plain + len + 4, 0, 2);
		memcpy(plain + len + 6, &size, 2);
		for (size_t k = 8; k < size; k++) {
			x ^= x << 13; x ^= x >> 7; x ^= x << 17;
			plain[len + k] = (uint8_t)(k == 30 ? x % 2 : k);
		}
		memcpy(plain + len + 8, &id, 8);
		memcpy(plain + len + (id == 42 ? 16 : 24), &t, 8);
		len += size;
	}
	return len;
}

/* Record cache: mixed record types and sizes, repeats, a torn tail, all codecs. */
static void test_cached_encoding(void **state)
{
	static struct lit_ctx want, got;
	static uint8_t plain[64 * 1024], enc[256 * 1024], dec[64 * 1024];
	const struct pp_rec_layout *lay = cached_lay;
	size_t len = cached_plain(plain, sizeof(plain)), elen, dlen;

	for (size_t off = 0; off < len;) {	/* the non-sample records, expected */
		uint16_t size;

		memcpy(&size, plain + off + 6, 2);
		if (plain[off] != 9)
			lit_cb(plain + off, size, &want);
		off += size;
	}
	assert_true(want.n > 10);
	memcpy(plain + len, "\x01\x02\x03", 3);	/* a torn record at the end */
	len += 3;
	for (uint8_t codec = 0; codec <= PP_CODEC_ZSTD; codec++) {
		struct pp_writer_opts o = { .codec = codec };
		struct pp_io *io = pp_io_mem__new(NULL, 0, 0);
		struct pp_writer *w = pp_writer__new(io, &o);
		struct pp_chunk_desc d = { .type = PP_CHUNK_DATA, .encoding = PP_DATA_CACHED,
					   .layout = lay, .nr_layout = 2 };
		struct pp_reader *r;
		struct pp_chunk c;

		assert_int_equal(pp_writer__append_chunk(w, &d, plain, len), 0);
		d.encoding = 7;
		assert_int_equal(pp_writer__append_chunk(w, &d, plain, 16), -EINVAL);
		assert_int_equal(pp_writer__close(w), 0);
		r = read_back(io, PP_DATA_CACHED, plain, len, &want, &c);
		assert_int_equal(pp_reader__sideband_at(r, c.offset + 1, lit_cb, &got), -EBADMSG);
		pp_reader__free(r);
		pp_io__free(io);
	}
	/* Repeats were found, and every damaged payload is refused or decodes in bounds. */
	elen = pp_reccache_encode(plain, len, lay, 2, enc);
	assert_true(elen > 0 && elen < len);
	assert_int_equal(pp_reccache_decode(enc, elen, dec, &dlen), 0);
	assert_int_equal(dlen, len);
	assert_memory_equal(dec, plain, len);
	for (size_t i = 0; i < elen; i += 7) {
		enc[i] ^= 0x5a;
		if (pp_reccache_plain_size(enc, elen) >= 0 &&
		    (size_t)pp_reccache_plain_size(enc, elen) <= sizeof(dec))
			(void)pp_reccache_decode(enc, elen, dec, &dlen);
		enc[i] ^= 0x5a;
	}
	for (size_t cut = 0; cut < elen; cut += 13) {
		if (pp_reccache_plain_size(enc, cut) >= 0)
			assert_int_not_equal(pp_reccache_decode(enc, cut, dec, &dlen), 0);
		got.len = 0;
		got.n = 0;
		assert_int_equal(pp_reccache_literals(enc, cut, lit_cb, &got), -EBADMSG);
	}
	got.len = 0;
	got.n = 0;
	assert_int_equal(pp_reccache_literals(enc, elen, lit_cb, &got), 0);
	assert_int_equal(got.n, want.n);
	assert_memory_equal(got.buf, want.buf, want.len);
	{
		/*
		 * A layout's time offset near 4 GiB: time_off + 8 wrapped in 32 bits
		 * and the decoder wrote a time outside the record. Decoded into a
		 * buffer of exactly the plain size, so ASan sees any stray write.
		 */
		uint8_t *exact = malloc(len);
		uint8_t save[4];

		assert_non_null(exact);
		memcpy(save, enc + 16 + 8, 4);
		pp_put_le32(enc + 16 + 8, 0xfffffff8u);
		(void)pp_reccache_decode(enc, elen, exact, &dlen);
		pp_put_le32(enc + 16 + 8, 0xffffffffu);
		(void)pp_reccache_decode(enc, elen, exact, &dlen);
		memcpy(enc + 16 + 8, save, 4);
		/* two layouts for one event id: refused, not one of them guessed */
		memcpy(save, enc + 16 + 16, 4);
		memcpy(enc + 16 + 16, enc + 16, 8);
		assert_int_not_equal(pp_reccache_decode(enc, elen, exact, &dlen), 0);
		free(exact);
	}
}

/*
 * Readers sharing one pp_scratch: each one's records stay its own while the
 * other reads encoded, plain and metadata chunks and walks side-band.
 */
static void test_shared_scratch(void **state)
{
	static uint8_t plain[64 * 1024], copy[64 * 1024];
	struct pp_writer_opts o = { .codec = PP_CODEC_LZ4 };
	struct pp_io *io = pp_io_mem__new(NULL, 0, 0);
	struct pp_writer *w = pp_writer__new(io, &o);
	struct pp_scratch sc = { 0 };
	struct pp_reader_opts ro = { .no_index = 1, .scratch = &sc };
	struct pp_reader *a, *b;
	struct pp_chunk ca, cb;
	size_t len = cached_plain(plain, sizeof(plain)), half = 0;
	uint64_t off[4];
	static struct lit_ctx got;

	(void)state;
	while (half < len / 2) {	/* the records of the first half */
		uint16_t size;

		memcpy(&size, plain + half + 6, 2);
		half += size;
	}
	for (int i = 0; i < 4; i++) {
		struct pp_chunk_desc d = { .type = PP_CHUNK_DATA, .stream = (uint32_t)(i & 1),
					   .encoding = i < 2 ? PP_DATA_CACHED : PP_DATA_PLAIN,
					   .layout = cached_lay, .nr_layout = 2 };

		if (i == 3)
			d = (struct pp_chunk_desc){ .type = PP_CHUNK_TASKS,
						    .stream = PP_STREAM_META };
		off[i] = pp_writer__bytes(w);
		assert_int_equal(pp_writer__append_chunk(w, &d, i & 1 ? plain + half : plain,
							  i & 1 ? len - half : half), 0);
	}
	assert_int_equal(pp_writer__close(w), 0);
	a = pp_reader__open(io, &ro);
	b = pp_reader__open(io, &ro);
	assert_non_null(a);
	assert_non_null(b);
	for (int i = 0; i < 4; i++) {	/* a holds chunk i while b reads every other */
		assert_int_equal(pp_reader__read_at(a, off[i], &ca), 1);
		memcpy(copy, ca.data, ca.size);
		for (int j = 0; j < 4; j++) {
			if (j == i)
				continue;
			assert_int_equal(pp_reader__read_at(b, off[j], &cb), 1);
			assert_memory_equal(cb.data, j & 1 ? plain + half : plain,
					    j & 1 ? len - half : half);
			assert_memory_equal(ca.data, copy, ca.size);
		}
		got.len = 0;
		got.n = 0;
		assert_int_equal(pp_reader__sideband_at(b, off[i ? 0 : 1], lit_cb, &got), 1);
		assert_true(got.n > 0);
		assert_memory_equal(ca.data, copy, ca.size);
	}
	assert_true(sc.cap >= len - half);
	assert_true(pp_reader__buffer_bytes(a) >= sc.cap);
	{
		/* another file, its chunks at the same offsets: not read from a's window */
		struct pp_io *io2 = pp_io_mem__new(NULL, 0, 0);
		struct pp_reader *c2;

		w = pp_writer__new(io2, &o);
		for (int i = 0; i < 2; i++) {
			struct pp_chunk_desc d = { .type = PP_CHUNK_DATA, .stream = 0,
						   .encoding = PP_DATA_CACHED,
						   .layout = cached_lay, .nr_layout = 2 };

			assert_int_equal(pp_writer__append_chunk(w, &d, plain + half, half), 0);
		}
		assert_int_equal(pp_writer__close(w), 0);
		assert_int_equal(pp_reader__read_at(a, off[0], &ca), 1);
		c2 = pp_reader__open(io2, &ro);
		assert_non_null(c2);
		assert_int_equal(pp_reader__read_at(c2, off[0], &cb), 1);
		assert_memory_equal(cb.data, plain + half, half);
		pp_reader__free(c2);
		pp_io__free(io2);
	}
	pp_reader__free(a);
	pp_reader__free(b);
	pp_scratch__release(&sc);
	assert_null(sc.buf);
	pp_io__free(io);
}

/*
 * The streaming encoder (a recorder's drain) writes what pp_reccache_encode()
 * writes, chunk after chunk in one reused buffer - where its hash still
 * names the last chunk's literals at the same addresses - and the writer
 * takes its payload as encoded.
 */
static void test_cached_streaming(void **state)
{
	static uint8_t plain[64 * 1024], want[256 * 1024], dec[64 * 1024];
	size_t len = cached_plain(plain, sizeof(plain));
	size_t cap = pp_reccache_enc__buf_size(len, 2);
	struct pp_reccache_enc *e = pp_reccache_enc__new();
	uint8_t *buf = malloc(cap), *payload;

	assert_non_null(e);
	assert_non_null(buf);
	/* whole chunks, then parts starting at other records: other data at the same places */
	for (int round = 0; round < 6; round++) {
		size_t from = 0, to = len, n, wlen, dlen, off;

		for (int k = 0; k < round % 3; k++) {
			uint16_t size;

			memcpy(&size, plain + from + 6, 2);
			from += size;
		}
		if (round >= 3)
			to = from + (len - from) / 2;
		for (off = from; off < to;) {	/* whole records only */
			uint16_t size;

			memcpy(&size, plain + off + 6, 2);
			if (off + size > to)
				break;
			off += size;
		}
		to = off;
		pp_reccache_enc__start(e, buf, len, cached_lay, 2);
		for (off = from; off < to;) {
			uint32_t type;
			uint16_t size;
			uint64_t id;

			memcpy(&type, plain + off, 4);
			memcpy(&size, plain + off + 6, 2);
			memcpy(&id, plain + off + 8, 8);
			pp_reccache_enc__add(e, plain + off, size,
					     type == 9 ? (id == 42 ? 16u : 24u) : 0);
			off += size;
		}
		n = pp_reccache_enc__finish(e, &payload);
		assert_true(payload >= buf && payload + n <= buf + cap);
		wlen = pp_reccache_encode(plain + from, to - from, cached_lay, 2, want);
		assert_int_equal(n, wlen);
		assert_memory_equal(payload, want, n);
		assert_int_equal(pp_reccache_decode(payload, n, dec, &dlen), 0);
		assert_int_equal(dlen, to - from);
		assert_memory_equal(dec, plain + from, dlen);
		if (round == 5) {
			struct pp_writer_opts o = { .codec = PP_CODEC_LZ4 };
			struct pp_io *io = pp_io_mem__new(NULL, 0, 0);
			struct pp_writer *w = pp_writer__new(io, &o);
			struct pp_chunk_desc d = { .type = PP_CHUNK_DATA,
						   .encoding = PP_DATA_CACHED, .encoded = 1 };
			struct pp_reader *r;
			struct pp_chunk c;

			assert_int_equal(pp_writer__append_chunk(w, &d, payload, n), 0);
			assert_int_equal(pp_writer__close(w), 0);
			r = pp_reader__open(io, NULL);
			assert_non_null(r);
			assert_int_equal(pp_reader__next(r, &c), 1);
			assert_int_equal(c.hdr->encoding, PP_DATA_CACHED);
			assert_int_equal(c.size, to - from);
			assert_memory_equal(c.data, plain + from, c.size);
			pp_reader__free(r);
			pp_io__free(io);
		}
	}
	free(buf);
	pp_reccache_enc__free(e);
}

/* Append a sched_switch-like (@id 42) or sched_wakeup-like (43) sample. */
static size_t put_sched(uint8_t *p, uint64_t id, uint16_t size, uint32_t pid, uint32_t other,
			uint64_t t, uint32_t state)
{
	static const char *comms[] = { "sched-messaging", "kworker/0:1", "sched-messaging",
				       "bash", "sched-messaging" };
	uint32_t type = 9, w;

	memset(p, 0, size);
	memcpy(p, &type, 4);
	memcpy(p + 6, &size, 2);
	memcpy(p + 8, &id, 8);
	memcpy(p + 16, &pid, 4);
	memcpy(p + 20, &pid, 4);
	memcpy(p + 24, &t, 8);
	w = size - 44u;
	memcpy(p + 40, &w, 4);
	w = id == 42 ? 0x03010174 : 0x05010176;
	memcpy(p + 44, &w, 4);
	memcpy(p + 48, &pid, 4);
	strcpy((char *)p + 52, comms[(id == 42 ? pid : other) % 5]);
	memcpy(p + 68, id == 42 ? &pid : &other, 4);
	w = 120;
	memcpy(p + 72, &w, 4);
	memcpy(p + 76, &state, 4);
	if (size >= 112) {
		strcpy((char *)p + 84, comms[other % 5]);
		memcpy(p + 100, &other, 4);
		memcpy(p + 104, &w, 4);
	}
	return size;
}

/* Field cache (encoding 2): sched-like samples, side-band, escapes, a torn tail. */
static void test_fields_encoding(void **state)
{
	static struct lit_ctx want, got;
	static uint8_t plain[160 * 1024], enc[512 * 1024], enc1[512 * 1024], dec[160 * 1024];
	static uint8_t z1[512 * 1024], z2[512 * 1024];
	const struct pp_rec_layout lay[2] = { { .id = 42, .time_off = 24 }, { .id = 43, .time_off = 24 } };
	size_t len = 0, elen, dlen, cuts[PP_FC_CUTS], p;
	uint32_t cur = 1000, nt, nw, joins = 0;
	uint64_t x = 88172645463325252ull, t = 5000000;
	int nr_cuts;

	for (int i = 0; len + 300 < sizeof(plain) - 16; i++) {
		uint32_t next, wakee;

		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		t += 200 + x % 60000;
		if (i == 500)
			t += 5000000000ull;	/* a gap of 5 s: an escaped delta */
		if (i == 900)
			t -= 100000;		/* out of order: a negative delta */
		next = 1000 + (uint32_t)(x >> 20) % 40;
		wakee = 1000 + (uint32_t)(x >> 30) % 40;
		if (i % 3 == 0) {
			/* a wake-up, now and then one 4 bytes longer */
			len += put_sched(plain + len, 43, i % 97 ? 80 : 84, cur, wakee, t, 1);
		} else if (i % 61 == 0) {
			uint32_t type = 3;	/* side-band: a COMM, not a sample */
			uint16_t size = 40;

			memset(plain + len, 0, size);
			memcpy(plain + len, &type, 4);
			memcpy(plain + len + 6, &size, 2);
			memcpy(plain + len + 8, &i, 4);	/* each a new one */
			strcpy((char *)plain + len + 16, "renamed");
			len += size;
		} else if (i % 53 == 0) {
			/* a sample of an event without a layout entry: a plain literal */
			len += put_sched(plain + len, 44, 80, cur, wakee, t, 0);
		} else {
			len += put_sched(plain + len, 42, 112, cur, next, t, (uint32_t)(x >> 40) % 2);
			cur = next;
		}
	}
	for (size_t off = 0; off < len;) {
		uint16_t size;

		memcpy(&size, plain + off + 6, 2);
		if (plain[off] != 9)
			lit_cb(plain + off, size, &want);
		off += size;
	}
	assert_true(want.n > 10);
	memcpy(plain + len, "\x01\x02\x03", 3);
	len += 3;

	elen = pp_fieldcode_encode(plain, len, lay, 2, enc, cuts, &nr_cuts);
	assert_true(elen > 0 && elen <= pp_fieldcode_bound(len, 2));
	assert_int_equal(pp_fieldcode_decode(enc, elen, dec, &dlen), 0);
	assert_int_equal(dlen, len);
	assert_memory_equal(dec, plain, len);
	/* two tables (the two events), a text group (comms), two escaped deltas */
	assert_int_equal(pp_get_le32(enc + 12), 2);
	p = 16 + 2 * 16;
	for (int i = 0; i < 2; i++) {
		assert_int_equal(pp_get_le32(enc + p), (uint32_t)i);
		nw = pp_get_le32(enc + p + 4);
		assert_int_equal(nw, i ? 21 : 28);
		for (uint32_t k = 0; k < nw; k++)
			joins += enc[p + 8 + 8 * k + 6];
		p += 8 + 8 * nw;
	}
	assert_true(joins >= 3);
	nt = pp_get_le32(enc + p + 8);
	assert_int_equal(pp_get_le32(enc + p + 12), 2);
	assert_true(nt > 1000);
	assert_int_equal(nr_cuts, 5);
	/* zstd of encoding 2, with its block cuts, beats zstd of encoding 1 */
	{
		size_t e1 = pp_reccache_encode(plain, len, lay, 2, enc1);
		size_t s1 = pp_codec_compress(PP_CODEC_ZSTD, 4, enc1, e1, z1, sizeof(z1));
		size_t s2 = pp_codec_compress_cuts(PP_CODEC_ZSTD, 4, enc, elen, z2, sizeof(z2),
						   cuts, nr_cuts);

		assert_true(s1 > 0 && s2 > 0 && s2 < s1);
		assert_int_equal(pp_codec_decompress(PP_CODEC_ZSTD, z2, s2, enc1, elen), 0);
		assert_memory_equal(enc1, enc, elen);
	}
	/* the side-band, walked without decoding the samples */
	got.len = 0;
	got.n = 0;
	assert_int_equal(pp_fieldcode_literals(enc, elen, lit_cb, &got), 0);
	assert_int_equal(got.n, want.n);
	assert_memory_equal(got.buf, want.buf, want.len);

	/* Through the writer and the reader, every codec. */
	for (uint8_t codec = 0; codec <= PP_CODEC_ZSTD; codec++) {
		struct pp_writer_opts o = { .codec = codec };
		struct pp_io *io = pp_io_mem__new(NULL, 0, 0);
		struct pp_writer *w = pp_writer__new(io, &o);
		struct pp_chunk_desc d = { .type = PP_CHUNK_DATA, .encoding = PP_DATA_FIELDS,
					   .layout = lay, .nr_layout = 2 };
		struct pp_reader *r;
		struct pp_chunk c;

		assert_int_equal(pp_writer__append_chunk(w, &d, plain, len), 0);
		assert_int_equal(pp_writer__close(w), 0);
		r = read_back(io, PP_DATA_FIELDS, plain, len, &want, &c);
		pp_reader__free(r);
		pp_io__free(io);
	}

	/*
	 * Damage: every flipped byte is refused or decodes within the plain size
	 * (an exact buffer, for ASan); every cut is refused.
	 */
	{
		uint8_t *exact = malloc(len);
		size_t t0 = 16 + 2 * 16;	/* table 0 */
		uint8_t save;

		assert_non_null(exact);
		/* every byte of the header and tables, then a sample of the columns */
		for (size_t i = 0; i < elen; i += i < 1024 ? 1 : 61) {
			for (int v = 0; v < 3; v++) {
				save = enc[i];
				enc[i] = v == 0 ? save ^ 0x5a : v == 1 ? 0xff : 0;
				if (pp_reccache_plain_size(enc, elen) == (int64_t)len)
					(void)pp_fieldcode_decode(enc, elen, exact, &dlen);
				got.len = 0;
				got.n = 0;
				(void)pp_fieldcode_literals(enc, elen, lit_cb, &got);
				enc[i] = save;
			}
		}
		for (size_t cut = 0; cut < elen; cut += cut < 1024 ? 1 : 101) {
			assert_int_not_equal(pp_fieldcode_decode(enc, cut, exact, &dlen), 0);
			assert_int_equal(pp_fieldcode_literals(enc, cut, lit_cb, &got), -EBADMSG);
		}
		/* a predictor naming a later word of the record */
		enc[t0 + 8 + 8 * 3 + 4] = 5;
		enc[t0 + 8 + 8 * 3 + 5] = 0;
		assert_int_equal(pp_fieldcode_decode(enc, elen, exact, &dlen), -EBADMSG);
		assert_int_equal(pp_fieldcode_encode(plain, len, lay, 2, enc, cuts, &nr_cuts), elen);
		/* word 0 joined to nothing; a join of 2 */
		enc[t0 + 8 + 6] = 1;
		assert_int_equal(pp_fieldcode_decode(enc, elen, exact, &dlen), -EBADMSG);
		enc[t0 + 8 + 6] = 0;
		enc[t0 + 8 + 8 + 6] = 2;
		assert_int_equal(pp_fieldcode_decode(enc, elen, exact, &dlen), -EBADMSG);
		enc[t0 + 8 + 8 + 6] = 0;
		/* a table for a layout entry that does not exist; too many words */
		pp_put_le32(enc + t0, 2);
		assert_int_equal(pp_fieldcode_decode(enc, elen, exact, &dlen), -EBADMSG);
		pp_put_le32(enc + t0, 0);
		pp_put_le32(enc + t0 + 4, 129);
		assert_int_equal(pp_fieldcode_decode(enc, elen, exact, &dlen), -EBADMSG);
		pp_put_le32(enc + t0 + 4, 28);
		/* more tables than layout entries */
		pp_put_le32(enc + 12, 3);
		assert_int_equal(pp_fieldcode_decode(enc, elen, exact, &dlen), -EBADMSG);
		pp_put_le32(enc + 12, 2);
		assert_int_equal(pp_fieldcode_decode(enc, elen, exact, &dlen), 0);
		assert_memory_equal(exact, plain, len);
		free(exact);
	}
}

static void test_items(void **state)
{
	struct pp_buf b;
	struct pp_item_iter it;
	struct pp_item item;
	struct pp_cur cur;
	const char *s;
	uint64_t v;
	size_t start;

	pp_buf__init(&b);
	start = pp_item__begin(&b, 7);
	pp_buf__append(&b, "\x2a\0\0\0\0\0\0\0", 8);
	pp_buf__append_str(&b, "name");
	pp_item__end(&b, start);
	start = pp_item__begin(&b, 8);
	pp_item__end(&b, start);
	assert_int_equal(b.len, 24 + 8);

	pp_item_iter__init(&it, b.data, b.len);
	assert_int_equal(pp_item_iter__next(&it, &item), 1);
	assert_int_equal(item.kind, 7);
	pp_cur__init(&cur, item.body, item.size);
	assert_int_equal(pp_cur__u64(&cur, &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(pp_cur__str(&cur, &s), 0);
	assert_string_equal(s, "name");
	assert_int_equal(pp_cur__u64(&cur, &v), -1);	/* past the end */
	assert_true(cur.bad);
	assert_int_equal(pp_item_iter__next(&it, &item), 1);
	assert_int_equal(item.size, 0);
	assert_int_equal(pp_item_iter__next(&it, &item), 0);
	assert_false(it.bad);

	/* A size running past the payload stops the walk. */
	pp_put_le32(b.data, 4096);
	pp_item_iter__init(&it, b.data, b.len);
	assert_int_equal(pp_item_iter__next(&it, &item), 0);
	assert_true(it.bad);
	/* An unterminated string is refused. */
	pp_cur__init(&cur, "abc", 3);
	assert_int_equal(pp_cur__str(&cur, &s), -1);
	pp_buf__exit(&b);

	pp_buf__init(&b);
	pp_machine__put(&b, "hostname", "box");
	pp_machine__put(&b, "release", "6.18");
	assert_string_equal(pp_machine__get(b.data, b.len, "release"), "6.18");
	assert_null(pp_machine__get(b.data, b.len, "nope"));
	assert_null(pp_machine__get(b.data, b.len - 1, "release"));
	pp_buf__exit(&b);
}

static void test_records(void **state)
{
	uint8_t p[64] = { 0 };
	struct pp_rec_iter it;
	struct pp_rec rec;
	uint16_t sz = 24;
	uint32_t type = 9;

	memcpy(p, &type, 4);
	memcpy(p + 6, &sz, 2);
	memcpy(p + 24, &type, 4);
	sz = 16;
	memcpy(p + 30, &sz, 2);
	pp_rec_iter__init(&it, p, 40);
	assert_int_equal(pp_rec_iter__next(&it, &rec), 1);
	assert_int_equal(rec.size, 24);
	assert_int_equal(pp_rec_iter__next(&it, &rec), 1);
	assert_int_equal(rec.size, 16);
	assert_int_equal(pp_rec_iter__next(&it, &rec), 0);
	assert_false(it.bad);
	/* A record running past the payload. */
	pp_rec_iter__init(&it, p, 39);
	assert_int_equal(pp_rec_iter__next(&it, &rec), 1);
	assert_int_equal(pp_rec_iter__next(&it, &rec), 0);
	assert_true(it.bad);
	/* A zero size never loops. */
	memset(p, 0, sizeof(p));
	pp_rec_iter__init(&it, p, sizeof(p));
	assert_int_equal(pp_rec_iter__next(&it, &rec), 0);
	assert_true(it.bad);
}

/* A big-endian producer's file opens, with its perf records flagged foreign. */
static void test_foreign_byte_order(void **state)
{
	struct pp_file_header fh = { .major = 1, .byte_order = PP_ORDER_BIG, .word_size = 8 };
	uint8_t buf[64];
	struct pp_io *io;
	struct pp_reader *r;

	pp_file_header__encode(&fh, buf);
	io = pp_io_mem__new(buf, sizeof(buf), 0);
	r = pp_reader__open(io, NULL);
	assert_non_null(r);
	assert_int_equal(pp_reader__header(r)->byte_order, PP_ORDER_BIG);
	assert_true(pp_reader__stats(r)->foreign_order);
	pp_reader__free(r);
	pp_io__free(io);
}

static void test_not_a_trace(void **state)
{
	char junk[64] = "hello world, this is not a trace file";
	struct pp_io *io = pp_io_mem__new(junk, sizeof(junk), 0);

	assert_null(pp_reader__open(io, NULL));
	assert_int_equal(errno, EINVAL);
	assert_string_equal(pp_reader__strerror(EINVAL), "not a pp trace file");
	pp_io__free(io);
	io = pp_io_mem__new(NULL, 0, 0);
	assert_null(pp_reader__open(io, NULL));
	pp_io__free(io);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc32c),
		cmocka_unit_test(test_roundtrip_mem_lz4),
		cmocka_unit_test(test_roundtrip_mem_zstd),
		cmocka_unit_test(test_roundtrip_mem_none),
		cmocka_unit_test(test_roundtrip_file_lz4),
		cmocka_unit_test(test_roundtrip_file_zstd),
		cmocka_unit_test(test_index),
		cmocka_unit_test(test_no_footer_scans),
		cmocka_unit_test(test_hostile_index),
		cmocka_unit_test(test_out_of_memory),
		cmocka_unit_test(test_truncate_everywhere),
		cmocka_unit_test(test_bit_flips),
		cmocka_unit_test(test_unknown_chunks),
		cmocka_unit_test(test_oversized_refused),
		cmocka_unit_test(test_full_disk),
		cmocka_unit_test(test_cached_encoding),
		cmocka_unit_test(test_shared_scratch),
		cmocka_unit_test(test_cached_streaming),
		cmocka_unit_test(test_fields_encoding),
		cmocka_unit_test(test_items),
		cmocka_unit_test(test_records),
		cmocka_unit_test(test_foreign_byte_order),
		cmocka_unit_test(test_not_a_trace),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
