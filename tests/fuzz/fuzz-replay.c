// SPDX-License-Identifier: MIT
/*
 * libFuzzer target over the whole analysis path: the input is a program
 * (tests/fuzz/replay-prog.h) that builds a valid trace in memory (items and
 * records framed, CRCs, index and footer from the format library's
 * writer), which then goes through `pp-analyze info`, `dump` and every
 * profiler in this process (pp-analyze.c is linked in, its main renamed).
 * Damaged chunks are the reader fuzzer's business: here every chunk is
 * valid, so the formats, symbols, tasks, BPF aggregates and samples inside
 * reach the decoders and the profilers.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "pp/analyzer.h"
#include "pp/io.h"
#include "pp/meta.h"
#include "pp/replay.h"
#include "pp/writer.h"
#include "replay-prog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);
int pp_analyze_main(int argc, char **argv);

static int g_fd = -1;
static char g_path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int null = open("/dev/null", O_WRONLY);

	(void)argc;
	(void)argv;
	g_fd = memfd_create("fuzz-replay.trace", 0);
	if (g_fd < 0 || null < 0)
		abort();
	snprintf(g_path, sizeof(g_path), "/proc/self/fd/%d", g_fd);
	/* the reports go to stdout: away (-close_fd_mask=2 takes the warnings) */
	dup2(null, 1);
	close(null);
	return 0;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
	return le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* Frame @body as the payload of a chunk of @type into @b. */
static void frame(struct pp_buf *b, uint16_t type, const uint8_t *body, size_t len)
{
	if (type == PP_CHUNK_MACHINE) {
		pp_buf__append(b, body, len);
		if (!len || body[len - 1])
			pp_buf__append(b, "", 1);
	} else if (type == PP_CHUNK_DATA) {
		size_t off = 0;

		while (off + 8 <= len) {
			uint16_t sz = (uint16_t)(body[off + 6] | body[off + 7] << 8);

			if (sz < 8 || off + sz > len)
				break;
			pp_buf__append(b, body + off, sz);
			off += sz;
		}
	} else {
		struct pp_item_iter it;
		struct pp_item item;

		pp_item_iter__init(&it, body, len);
		while (pp_item_iter__next(&it, &item)) {
			size_t at = pp_item__begin(b, item.kind);

			pp_buf__append(b, item.body, item.size);
			pp_item__end(b, at);
		}
	}
}

/* Build the trace the program describes into the memfd. Return: 0 or -1. */
static int build(const uint8_t *data, size_t size)
{
	static const uint8_t codecs[4] = { PP_CODEC_NONE, PP_CODEC_LZ4, PP_CODEC_ZSTD,
					   PP_CODEC_LZ4 };
	struct pp_writer_opts wo;
	struct pp_io *io = pp_io_mem__new(NULL, 0, 0);
	struct pp_writer *w;
	const uint8_t *file;
	struct pp_buf b;
	size_t off = 1, len;
	int closed;

	if (!size || !io)
		return pp_io__free(io), -1;
	memset(&wo, 0, sizeof(wo));
	wo.codec = codecs[data[0] & 3];
	wo.index_every = (uint32_t)(data[0] >> 3) + 1;
	closed = data[0] & 4;
	w = pp_writer__new(io, &wo);
	if (!w)
		return pp_io__free(io), -1;
	pp_buf__init(&b);
	while (off + PROG_CHUNK_HDR <= size) {
		const uint8_t *h = data + off;
		struct pp_chunk_desc d = { 0 };
		size_t n = le32(h + 2);

		off += PROG_CHUNK_HDR;
		if (n > size - off)
			n = size - off;
		d.type = prog_kinds[h[0] % PROG_KINDS];
		d.stream = h[1] == 0xff ? PP_STREAM_META : h[1];
		if (d.type != PP_CHUNK_DATA)
			d.stream = PP_STREAM_META;
		else
			d.flags = PP_CHUNK_CRITICAL;
		d.first_ts = le64(h + 6);
		d.last_ts = le64(h + 14);
		pp_buf__reset(&b);
		frame(&b, d.type, data + off, n);
		off += n;
		if (!b.error && b.len <= PP_CHUNK_MAX_RAW)
			pp_writer__append_chunk(w, &d, b.data, b.len);
	}
	pp_buf__exit(&b);
	if (closed)
		pp_writer__close(w);
	else
		pp_writer__abort(w);
	file = pp_io_mem__data(io, &len);
	if (ftruncate(g_fd, 0) || pwrite(g_fd, file, len, 0) != (ssize_t)len) {
		pp_io__free(io);
		return -1;
	}
	/* PP_FUZZ_SAVE=FILE: the trace an input builds, to look at or replay with pp-analyze */
	if (getenv("PP_FUZZ_SAVE")) {
		FILE *f = fopen(getenv("PP_FUZZ_SAVE"), "w");

		if (f) {
			fwrite(file, 1, len, f);
			fclose(f);
		}
	}
	pp_io__free(io);
	return 0;
}

static void run(const char *cmd, const char *a1, const char *a2)
{
	char *argv[6];
	int argc = 0;

	argv[argc++] = (char *)"pp-analyze";
	argv[argc++] = (char *)cmd;
	if (a1)
		argv[argc++] = (char *)a1;
	if (a2)
		argv[argc++] = (char *)a2;
	argv[argc++] = g_path;
	argv[argc] = NULL;
	pp_analyze_main(argc, argv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct pp_analyzer *a;

	if (build(data, size))
		return 0;
	run("info", NULL, NULL);
	run("dump", NULL, NULL);
	for (size_t i = 0; (a = pp_analyzer__nth(i)); i++)
		run(a->name, NULL, NULL);
	/* options that take other paths through the modules */
	run("stat", "--perins", "-i1");
	run("trace", "--json", NULL);
	run("profile", "--children", NULL);
	run("lock", "--json", NULL);
	run("offcpu", "--json", NULL);
	return 0;
}
