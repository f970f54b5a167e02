// SPDX-License-Identifier: MIT
/*
 * Seeds of fuzz-replay: replay-seeds OUTDIR [TRACE...]. Each real trace is
 * written as a program (tests/fuzz/replay-prog.h), chunk for chunk; a
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
#include "replay-prog.h"

static int kind_of(uint16_t type)
{
	for (size_t i = 0; i < PROG_KINDS; i++)
		if (prog_kinds[i] == type)
			return (int)i;
	return -1;
}

static void put_chunk(struct pp_buf *p, uint16_t type, uint32_t stream, uint64_t first,
		      uint64_t last, const void *body, size_t len)
{
	uint8_t h[PROG_CHUNK_HDR];

	h[0] = (uint8_t)kind_of(type);
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

/* A real trace, chunk for chunk (its DATA decoded to plain records by the reader). */
static void from_trace(const char *dir, const char *trace, uint8_t opts)
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
		if (kind_of(c.hdr->type) < 0)
			continue;
		put_chunk(&p, c.hdr->type, c.hdr->stream, c.hdr->first_ts, c.hdr->last_ts, c.data,
			  c.size);
	}
	snprintf(name, sizeof(name), "%s-%u", base ? base + 1 : trace, opts);
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
	put_chunk(&p, PP_CHUNK_MACHINE, PP_STREAM_META, 0, 0, b.data, b.len);
	/* a LOST before any DATA (a recorder whose queue overflowed at start) */
	pp_buf__reset(&b);
	lost[0] = 1 | 2ull << 32;
	at = pp_item__begin(&b, 0);
	pp_buf__append(&b, lost, sizeof(lost));
	pp_item__end(&b, at);
	put_chunk(&p, PP_CHUNK_LOST, PP_STREAM_META, 5, 6, b.data, b.len);
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
	put_chunk(&p, PP_CHUNK_BPF_AGG, PP_STREAM_META, 1, 9, b.data, b.len);
	for (int i = 0; i < 2; i++) {
		pp_buf__reset(&b);
		for (int k = 0; k < 8; k++) {
			rec[16] = (uint8_t)(k * 3 + i);
			pp_buf__append(&b, rec, sizeof(rec));
		}
		put_chunk(&p, PP_CHUNK_DATA, (uint32_t)i, 10, 40, b.data, b.len);
	}
	pp_buf__reset(&b);
	lost[0] = 0 | 1ull << 32;
	at = pp_item__begin(&b, 0);
	pp_buf__append(&b, lost, sizeof(lost));
	pp_item__end(&b, at);
	put_chunk(&p, PP_CHUNK_LOST, PP_STREAM_META, 20, 30, b.data, b.len);
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
		from_trace(argv[1], argv[i], 1 | 4);	/* lz4, closed */
		from_trace(argv[1], argv[i], 0);	/* none, killed */
	}
	return 0;
}
