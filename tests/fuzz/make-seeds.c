// SPDX-License-Identifier: MIT
/* Write small valid trace files as fuzzing seeds: make-seeds DIR */
#include <stdio.h>
#include <string.h>
#include "pp/format.h"
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
	for (int i = 0; i < 4; i++) {
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
	return 0;
}
