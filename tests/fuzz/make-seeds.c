// SPDX-License-Identifier: MIT
/* Write small valid trace files as fuzzing seeds: make-seeds DIR */
#include <stdio.h>
#include <string.h>
#include "pp/bpf-agg.h"
#include "pp/format.h"
#include "pp/ftpages.h"
#include "pp/io.h"
#include "pp/meta.h"
#include "pp/writer.h"

static void seed(const char *dir, const char *name, uint8_t codec, int close_it, uint8_t enc)
{
	static const struct pp_rec_layout lay[1] = { { .id = 7, .time_off = 16 } };
	struct pp_writer_opts o = { .codec = codec, .index_every = 3 };
	struct pp_io *io = pp_io_mem__new(NULL, 0, 0);
	struct pp_writer *w = pp_writer__new(io, &o);
	struct pp_buf b;
	const uint8_t *bytes;
	char path[4096];
	size_t len, start;
	FILE *f;

	pp_buf__init(&b);
	pp_machine__put(&b, "hostname", "seed");
	pp_machine__put(&b, "release", "6.18");
	pp_writer__append_chunk(w, &(struct pp_chunk_desc){ .type = PP_CHUNK_MACHINE,
			.stream = PP_STREAM_META }, b.data, b.len);
	pp_buf__reset(&b);
	start = pp_item__begin(&b, PP_FMT_EVENT);
	pp_buf__append_str(&b, "sched");
	pp_buf__append_str(&b, "sched_switch");
	pp_buf__append_str(&b, "name: sched_switch\nID: 1\nformat:\n");
	pp_item__end(&b, start);
	pp_writer__append_chunk(w, &(struct pp_chunk_desc){ .type = PP_CHUNK_FORMATS,
			.stream = PP_STREAM_META }, b.data, b.len);
	{
		/* a BPF_AGG payload with one item of each kind */
		static const uint64_t ips[3] = { 0xffffffff81000010ull, 0x401000, 0x401100 };
		struct pp_bpf_agg_window win = { .source = PP_BPF_SRC_OFFCPU, .start_ns = 1,
						 .end_ns = 9 };
		struct pp_bpf_agg_stack st = { .pid = 7, .tid = 7, .total_ns = 5, .count = 1,
					       .nr_kernel = 1, .nr_user = 2, .comm = "seed" };
		struct pp_bpf_agg_waker wk = { .pid = 7, .tid = 8, .nr_user = 1, .comm = "waker" };
		size_t at;

		pp_buf__reset(&b);
		at = pp_bpf_put_window(&b, &win);
		pp_bpf_put_stack(&b, PP_BPF_AGG_OFFCPU, &st, ips, 1, ips + 1, 2, NULL, NULL);
		st.nr_kernel = 0;
		st.nr_user = 1;
		pp_bpf_put_stack(&b, PP_BPF_AGG_LOCK, &st, NULL, 0, ips + 1, 1, &wk, ips + 2);
		pp_bpf_put_stack_def(&b, 0x11, ips, 1);
		st.nr_user = 0;
		pp_bpf_put_ref(&b, &st, 0x11, 0x23);
		pp_bpf_set_window_items(&b, at, 3);
		pp_writer__append_chunk(w, &(struct pp_chunk_desc){ .type = PP_CHUNK_BPF_AGG,
				.stream = PP_STREAM_META, .first_ts = 1, .last_ts = 9 },
				b.data, b.len);
	}
	for (int i = 0; i < 4 && enc == PP_DATA_FTRACE; i++) {
		/* one ftrace page of 20 events of type 1 (sched_switch) */
		struct pp_ftpage_type t = { .type = 1, .id = 7, .sample_type =
			PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			PERF_SAMPLE_CPU | PERF_SAMPLE_RAW };
		struct pp_ftpage_chunk c = { .cpu = (uint32_t)i % 2, .page_size = 4096,
					     .nr_types = 1, .long_size = 8, .nr_pages = 1 };
		uint8_t pay[PP_FTPAGE_HDR_SIZE + PP_FTPAGE_TYPE_SIZE + 8 + 16 + 20 * 20];
		size_t n = pp_ftpages__put_header(pay, &c, &t), at = n;
		uint64_t ts = 10u * (unsigned)i + 1, commit = 20 * 20;

		n += 8;
		memcpy(pay + n, &ts, 8);
		memcpy(pay + n + 8, &commit, 8);
		n += 16;
		for (int k = 0; k < 20; k++, n += 20) {
			uint32_t h = (uint32_t)(k % 2) << 5 | 4;	/* 16 bytes, delta 0 or 1 */
			uint8_t ev[16] = { 1, 0, 0, 0, 7, 0, 0, 0, (uint8_t)k };

			memcpy(pay + n, &h, 4);
			memcpy(pay + n + 4, ev, 16);
		}
		pp_put_le32(pay + at, (uint32_t)(n - at - 8));
		pp_put_le32(pay + at + 4, 0);
		pp_writer__append_chunk(w, &(struct pp_chunk_desc){ .type = PP_CHUNK_DATA,
				.flags = PP_CHUNK_CRITICAL, .stream = PP_STREAM_FTRACE | (uint32_t)i % 2,
				.first_ts = ts, .last_ts = ts + 20, .encoding = enc, .encoded = 1 },
				pay, n);
	}
	for (int i = 0; i < 4 && enc != PP_DATA_FTRACE; i++) {
		/* samples of id 7 with a time at byte 16; every third repeats */
		uint8_t rec[32] = { 9, 0, 0, 0, 2, 0, 32, 0, 7 };

		pp_buf__reset(&b);
		for (int k = 0; k < 20; k++) {
			rec[16] = (uint8_t)(k * 3 + i);
			rec[24] = (uint8_t)(k % 3);
			pp_buf__append(&b, rec, sizeof(rec));
		}
		pp_writer__append_chunk(w, &(struct pp_chunk_desc){ .type = PP_CHUNK_DATA,
				.flags = PP_CHUNK_CRITICAL, .stream = (uint32_t)i % 2,
				.first_ts = 10u * (unsigned)i + 1, .last_ts = 10u * (unsigned)i + 9,
				.encoding = enc, .layout = lay, .nr_layout = 1 },
				b.data, b.len);
	}
	if (close_it)
		pp_writer__close(w);
	else
		pp_writer__abort(w);
	bytes = pp_io_mem__data(io, &len);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (f) {
		fwrite(bytes, 1, len, f);
		fclose(f);
	}
	pp_buf__exit(&b);
	pp_io__free(io);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: make-seeds DIR\n");
		return 2;
	}
	seed(argv[1], "lz4-closed.trace", PP_CODEC_LZ4, 1, PP_DATA_PLAIN);
	seed(argv[1], "zstd-closed.trace", PP_CODEC_ZSTD, 1, PP_DATA_PLAIN);
	seed(argv[1], "none-closed.trace", PP_CODEC_NONE, 1, PP_DATA_PLAIN);
	seed(argv[1], "lz4-killed.trace", PP_CODEC_LZ4, 0, PP_DATA_PLAIN);
	seed(argv[1], "none-cached.trace", PP_CODEC_NONE, 1, PP_DATA_CACHED);
	seed(argv[1], "lz4-cached.trace", PP_CODEC_LZ4, 1, PP_DATA_CACHED);
	seed(argv[1], "none-fields.trace", PP_CODEC_NONE, 1, PP_DATA_FIELDS);
	seed(argv[1], "zstd-fields.trace", PP_CODEC_ZSTD, 1, PP_DATA_FIELDS);
	seed(argv[1], "lz4-ftrace.trace", PP_CODEC_LZ4, 1, PP_DATA_FTRACE);
	return 0;
}
