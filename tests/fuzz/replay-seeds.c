// SPDX-License-Identifier: MIT
/*
 * Seeds of fuzz-replay: replay-seeds OUTDIR [TRACE...]. Each real trace is
 * written as a program (tests/fuzz/replay-prog.h), chunk for chunk, each
 * DATA chunk in its own encoding (1 and 2 as the records the builder
 * encodes again, 3 as the stored pages), then with the others plain, in
 * encoding 1 and in encoding 2; a
 * synthetic one adds what the recordings lack: LOST items, BPF_AGG windows
 * and every aggregate kind (offcpu, lock with a waker, STACK, OFFCPU_REF),
 * a LOST before the first DATA chunk, and a killed writer (no footer).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pp/bpf-agg.h"
#include "pp/meta.h"
#include "pp/reader.h"
#include "../../format/format-internal.h"
#include "replay-prog.h"

static int kind_of(uint16_t type, uint8_t enc)
{
	for (size_t i = 0; i < PROG_KINDS; i++)
		if (prog_kinds[i].type == type && prog_kinds[i].encoding == enc)
			return (int)i;
	return -1;
}

static void put_chunk(struct pp_buf *p, uint16_t type, uint8_t enc, uint32_t stream,
		      uint64_t first, uint64_t last, const void *body, size_t len)
{
	uint8_t h[PROG_CHUNK_HDR];

	h[0] = (uint8_t)kind_of(type, enc);
	h[1] = stream == PP_STREAM_META ? 0xff : (uint8_t)stream;
	for (int i = 0; i < 4; i++)
		h[2 + i] = (uint8_t)(len >> (8 * i));
	for (int i = 0; i < 8; i++) {
		h[6 + i] = (uint8_t)(first >> (8 * i));
		h[14 + i] = (uint8_t)(last >> (8 * i));
	}
	pp_buf__append(p, h, sizeof(h));
	pp_buf__append(p, body, len);
}

static void save(const char *dir, const char *name, const struct pp_buf *p)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(p->data, 1, p->len, f) != p->len) {
		perror(path);
		exit(1);
	}
	fclose(f);
}

/* The decompressed, still encoded payload of the chunk at @off of @path (malloc'ed). */
static uint8_t *stored_payload(const char *path, uint64_t off, size_t *len)
{
	uint8_t hb[PP_CH_HEADER_SIZE], *st, *raw;
	struct pp_chunk_header h;
	FILE *f = fopen(path, "rb");

	if (!f || fseeko(f, (off_t)off, SEEK_SET) || fread(hb, 1, sizeof(hb), f) != sizeof(hb) ||
	    pp_chunk_header__decode(hb, &h)) {
		fprintf(stderr, "%s: no chunk at %llu\n", path, (unsigned long long)off);
		exit(1);
	}
	st = malloc(h.stored_size + 1);
	raw = malloc(h.raw_size + 1);
	if (!st || !raw || fread(st, 1, h.stored_size, f) != h.stored_size ||
	    pp_codec_decompress(h.codec, st, h.stored_size, raw, h.raw_size)) {
		fprintf(stderr, "%s: chunk at %llu does not decompress\n", path,
			(unsigned long long)off);
		exit(1);
	}
	fclose(f);
	free(st);
	*len = h.raw_size;
	return raw;
}

/*
 * A real trace, chunk for chunk: DATA in the encoding it has (@data_as: in
 * this one instead, but for pages), the reader's records for encodings 0 to
 * 2, the stored pages for 3.
 */
#define AS_STORED 0xff
static void from_trace(const char *dir, const char *trace, uint8_t opts, uint8_t data_as)
{
	struct pp_reader *r = pp_reader__open_path(trace, NULL);
	struct pp_chunk c;
	struct pp_buf p;
	char name[256];
	const char *base = strrchr(trace, '/');

	if (!r) {
		perror(trace);
		exit(1);
	}
	pp_buf__init(&p);
	pp_buf__append(&p, &opts, 1);
	while (pp_reader__next(r, &c) == 1) {
		uint8_t enc = c.hdr->type == PP_CHUNK_DATA ? c.hdr->encoding : 0;

		if (c.hdr->type == PP_CHUNK_DATA && enc != PP_DATA_FTRACE && data_as != AS_STORED)
			enc = data_as;
		if (kind_of(c.hdr->type, enc) < 0)
			continue;
		if (enc == PP_DATA_FTRACE) {
			size_t len;
			uint8_t *raw = stored_payload(trace, c.offset, &len);

			put_chunk(&p, c.hdr->type, enc, c.hdr->stream & 0xff, c.hdr->first_ts,
				  c.hdr->last_ts, raw, len);
			free(raw);
			continue;
		}
		put_chunk(&p, c.hdr->type, enc, c.hdr->stream, c.hdr->first_ts, c.hdr->last_ts,
			  c.data, c.size);
	}
	snprintf(name, sizeof(name), "%s-%u-%u", base ? base + 1 : trace, opts, data_as);
	save(dir, name, &p);
	pp_buf__exit(&p);
	pp_reader__free(r);
}

static void synthetic(const char *dir)
{
	static const uint64_t ips[3] = { 0xffffffff81000010ull, 0x401000, 0x401100 };
	struct pp_bpf_agg_window win = { .source = PP_BPF_SRC_OFFCPU, .start_ns = 1, .end_ns = 9 };
	struct pp_bpf_agg_stack st = { .pid = 7, .tid = 7, .total_ns = 5, .count = 1, .state = 'S',
				       .nr_kernel = 1, .nr_user = 2, .comm = "seed" };
	struct pp_bpf_agg_waker wk = { .pid = 7, .tid = 8, .nr_user = 1, .comm = "waker" };
	uint64_t lost[5] = { 0, 5, 6, 3, 96 };
	uint8_t rec[32] = { 9, 0, 0, 0, 2, 0, 32, 0, 7 };
	struct pp_buf p, b;
	size_t at;

	pp_buf__init(&p);
	pp_buf__init(&b);
	pp_buf__append(&p, &(uint8_t){ 1 | 4 | (2 << 3) }, 1);
	pp_machine__put(&b, "hostname", "seed");
	pp_machine__put(&b, "nr_cpus", "2");
	pp_machine__put(&b, "page_size", "4096");
	put_chunk(&p, PP_CHUNK_MACHINE, 0, PP_STREAM_META, 0, 0, b.data, b.len);
	/* a LOST before any DATA (a recorder whose queue overflowed at start) */
	pp_buf__reset(&b);
	lost[0] = 1 | 2ull << 32;
	at = pp_item__begin(&b, 0);
	pp_buf__append(&b, lost, sizeof(lost));
	pp_item__end(&b, at);
	put_chunk(&p, PP_CHUNK_LOST, 0, PP_STREAM_META, 5, 6, b.data, b.len);
	/* offcpu and lock windows with each aggregate kind */
	pp_buf__reset(&b);
	at = pp_bpf_put_window(&b, &win);
	pp_bpf_put_stack(&b, PP_BPF_AGG_OFFCPU, &st, ips, 1, ips + 1, 2, NULL, NULL);
	pp_bpf_put_stack_def(&b, 0x11, ips, 1);
	pp_bpf_put_stack_def(&b, 0x23, ips + 1, 2);
	st.nr_kernel = 0;
	st.nr_user = 0;
	pp_bpf_put_ref(&b, &st, 0x11, 0x23);
	pp_bpf_set_window_items(&b, at, 2);
	win.source = PP_BPF_SRC_LOCK;
	at = pp_bpf_put_window(&b, &win);
	st.nr_user = 1;
	st.addr = 0x7fff0000;
	pp_bpf_put_stack(&b, PP_BPF_AGG_LOCK, &st, NULL, 0, ips + 1, 1, &wk, ips + 2);
	pp_bpf_set_window_items(&b, at, 1);
	put_chunk(&p, PP_CHUNK_BPF_AGG, 0, PP_STREAM_META, 1, 9, b.data, b.len);
	for (int i = 0; i < 2; i++) {
		pp_buf__reset(&b);
		for (int k = 0; k < 8; k++) {
			rec[16] = (uint8_t)(k * 3 + i);
			pp_buf__append(&b, rec, sizeof(rec));
		}
		put_chunk(&p, PP_CHUNK_DATA, 0, (uint32_t)i, 10, 40, b.data, b.len);
	}
	pp_buf__reset(&b);
	lost[0] = 0 | 1ull << 32;
	at = pp_item__begin(&b, 0);
	pp_buf__append(&b, lost, sizeof(lost));
	pp_item__end(&b, at);
	put_chunk(&p, PP_CHUNK_LOST, 0, PP_STREAM_META, 20, 30, b.data, b.len);
	save(dir, "synthetic-closed", &p);
	p.data[0] &= (uint8_t)~4;	/* the same, killed: no index, no footer */
	save(dir, "synthetic-killed", &p);
	pp_buf__exit(&b);
	pp_buf__exit(&p);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: replay-seeds OUTDIR [TRACE...]\n");
		return 2;
	}
	synthetic(argv[1]);
	for (int i = 2; i < argc; i++) {
		from_trace(argv[1], argv[i], 1 | 4, AS_STORED);		/* lz4, closed */
		from_trace(argv[1], argv[i], 0, PP_DATA_PLAIN);		/* none, killed */
		from_trace(argv[1], argv[i], 2 | 4, PP_DATA_CACHED);	/* zstd, closed */
		from_trace(argv[1], argv[i], 2 | 4, PP_DATA_FIELDS);
	}
	return 0;
}
