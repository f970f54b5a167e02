// SPDX-License-Identifier: MIT
/*
 * Format library benchmark on real perf records: takes the data section of a
 * perf.data file (perf record without -z), cuts it into chunks at record
 * boundaries and writes/reads it with each codec and DATA encoding, in memory.
 * Prints bytes per record and write/read throughput.
 *
 *   format-bench perf.data [chunk_kib] [time_offset]
 *
 * time_offset: byte offset of the time in the file's samples (32 for perf's
 * default IDENTIFIER|IP|TID|TIME|... layout), used by the cached encoding.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "pp/format.h"
#include "pp/io.h"
#include "pp/meta.h"
#include "pp/reader.h"
#include "pp/writer.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static const struct { uint8_t codec, enc; const char *name; } modes[] = {
		{ PP_CODEC_NONE, PP_DATA_PLAIN, "none  plain" },
		{ PP_CODEC_LZ4,  PP_DATA_PLAIN, "lz4   plain" },
		{ PP_CODEC_LZ4,  PP_DATA_CACHED, "lz4   cached" },
		{ PP_CODEC_ZSTD, PP_DATA_PLAIN, "zstd  plain" },
		{ PP_CODEC_ZSTD, PP_DATA_CACHED, "zstd  cached" },
		{ PP_CODEC_ZSTD, PP_DATA_FIELDS, "zstd  fields" },
	};
	size_t chunk = (argc > 2 ? (size_t)atoi(argv[2]) : 256) * 1024;
	uint32_t time_off = argc > 3 ? (uint32_t)atoi(argv[3]) : 32;
	struct pp_rec_layout lay[64];
	uint32_t nr_lay = 0;
	uint64_t off, size, nrec = 0;
	uint8_t *data;
	FILE *f;

	if (argc < 2) {
		fprintf(stderr, "usage: format-bench perf.data [chunk_kib]\n");
		return 2;
	}
	f = fopen(argv[1], "rb");
	if (!f || fseek(f, 40, SEEK_SET) || fread(&off, 8, 1, f) != 1 || fread(&size, 8, 1, f) != 1 ||
	    size > (1ull << 32)) {
		fprintf(stderr, "format-bench: %s: not a perf.data file\n", argv[1]);
		return 1;
	}
	data = malloc(size);
	if (!data || fseek(f, (long)off, SEEK_SET) || fread(data, 1, size, f) != size) {
		fprintf(stderr, "format-bench: cannot read the data section\n");
		return 1;
	}
	fclose(f);
	{
		struct pp_rec_iter it;
		struct pp_rec rec;

		pp_rec_iter__init(&it, data, size);
		while (pp_rec_iter__next(&it, &rec)) {
			uint64_t id;
			uint32_t i;

			nrec++;
			if (rec.type != 9 || rec.size < 16)
				continue;
			memcpy(&id, rec.data + 8, 8);
			for (i = 0; i < nr_lay && lay[i].id != id; i++)
				;
			if (i == nr_lay && nr_lay < 64)
				lay[nr_lay++] = (struct pp_rec_layout){ .id = id, .time_off = time_off };
		}
	}
	printf("%llu records, %.1f bytes/record raw, chunks of %zu KiB\n",
	       (unsigned long long)nrec, (double)size / (double)nrec, chunk / 1024);
	printf("%-12s %12s %10s %12s %12s\n", "codec", "file bytes", "B/record", "write MB/s", "read MB/s");
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		struct pp_writer_opts o = { .codec = modes[m].codec, .chunk_size = (uint32_t)chunk,
					    .level = getenv("LEVEL") ? atoi(getenv("LEVEL")) : 0 };
		struct pp_io *io = pp_io_mem__new(NULL, 0, (size_t)size * 2 + (1 << 20));
		struct pp_writer *w = pp_writer__new(io, &o);
		struct pp_reader *r;
		struct pp_chunk c;
		uint64_t pos = 0, got = 0;
		double t0 = now(), tw, tr;
		size_t flen;

		while (pos < size) {
			struct pp_rec_iter it;
			struct pp_rec rec;
			size_t n = size - pos < chunk ? (size_t)(size - pos) : chunk, used = 0;
			struct pp_chunk_desc d = { .type = PP_CHUNK_DATA, .flags = PP_CHUNK_CRITICAL,
						   .encoding = modes[m].enc,
						   .layout = lay, .nr_layout = nr_lay };

			pp_rec_iter__init(&it, data + pos, n);
			while (pp_rec_iter__next(&it, &rec))
				used = it.off;
			if (!used)
				break;
			if (pp_writer__append_chunk(w, &d, data + pos, used))
				return 1;
			pos += used;
		}
		pp_writer__close(w);
		tw = now() - t0;
		pp_io_mem__data(io, &flen);
		t0 = now();
		r = pp_reader__open(io, NULL);
		while (pp_reader__next(r, &c) == 1) {
			struct pp_rec_iter it;
			struct pp_rec rec;

			if (c.hdr->type != PP_CHUNK_DATA)
				continue;
			pp_rec_iter__init(&it, c.data, c.size);
			while (pp_rec_iter__next(&it, &rec))
				got++;
		}
		tr = now() - t0;
		pp_reader__free(r);
		pp_io__free(io);
		printf("%-12s %12zu %10.2f %12.0f %12.0f%s\n", modes[m].name, flen,
		       (double)flen / (double)nrec, (double)size / tw / 1e6, (double)size / tr / 1e6,
		       got == nrec ? "" : "  RECORD COUNT MISMATCH");
	}
	free(data);
	return 0;
}
