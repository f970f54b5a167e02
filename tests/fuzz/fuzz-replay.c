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
 *
 * DATA chunks come in every encoding, made by the real encoders from the
 * program's records (encodings 1 and 2) or as the kernel's pages (3), so
 * the record cache, field cache and ftrace page decoders are reached with
 * payloads they would accept, and, through PATCH, with payloads changed
 * after encoding as an attacker who knows the spec would change them.
 *
 * The mutator (LLVMFuzzerCustomMutator) knows the program's structure: it
 * mutates one item of a metadata chunk, one perf record of a DATA chunk, one
 * page or the type table of an ftrace payload, one PATCH entry or one
 * MACHINE value in place (framing kept), writes boundary values into their
 * fields, adds a PATCH after an encoded chunk, duplicates, drops or moves
 * chunks and changes their streams and times; and otherwise leaves the
 * bytes to libFuzzer's own mutations.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "pp/analyzer.h"
#include "pp/ftpages.h"
#include "pp/io.h"
#include "pp/meta.h"
#include "pp/replay.h"
#include "pp/writer.h"
#include "../../format/format-internal.h"
#include "replay-prog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
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

/* What the builder keeps between program chunks. */
struct builder {
	struct pp_writer *w;
	struct pp_buf b;		/* the chunk being framed */
	struct pp_buf enc;		/* an encoded DATA payload, until the chunk after it */
	struct pp_chunk_desc pend;	/* its description (pend.type 0: none) */
	struct pp_rec_layout lay[256];	/* sample id -> time offset, from ATTRS */
	uint32_t nr_lay;
};

/*
 * The time layout of each sample id in the ATTRS items of @body, made as
 * pp-record makes it (spec 5.8): after the header, IDENTIFIER, IP and TID.
 */
static void attrs_layout(struct builder *bd, const uint8_t *body, size_t len)
{
	struct pp_item_iter it;
	struct pp_item item;

	pp_item_iter__init(&it, body, len);
	while (pp_item_iter__next(&it, &item)) {
		const uint8_t *p = item.body;
		uint32_t asz, nr, off = 16;
		uint64_t st;
		size_t ids;

		if (item.size < 8 + 32)
			continue;
		asz = le32(p);
		nr = le32(p + 4);
		ids = 8 + (((size_t)asz + 7) & ~(size_t)7);
		if (asz < 32 || ids > item.size)
			continue;
		st = le64(p + 8 + 24);
		if (!(st & PERF_SAMPLE_TIME) || !(st & PERF_SAMPLE_IDENTIFIER))
			continue;
		off += st & PERF_SAMPLE_IP ? 8 : 0;
		off += st & PERF_SAMPLE_TID ? 8 : 0;
		for (uint32_t k = 0; k < nr && ids + 8 * ((size_t)k + 1) <= item.size; k++) {
			uint64_t id = le64(p + ids + 8 * (size_t)k);
			uint32_t i;

			for (i = 0; i < bd->nr_lay && bd->lay[i].id != id; i++)
				;
			if (i < bd->nr_lay || bd->nr_lay == sizeof(bd->lay) / sizeof(bd->lay[0]))
				continue;	/* two layouts of one id make the chunk undecodable */
			bd->lay[bd->nr_lay].id = id;
			bd->lay[bd->nr_lay++].time_off = off;
		}
	}
}

/* PATCH: its entries written into the encoded payload pending. */
static void patch(struct builder *bd, const uint8_t *body, size_t len)
{
	size_t n = bd->enc.len;

	if (!bd->pend.type || !n)
		return;
	for (size_t at = 0; at + PROG_PATCH_SIZE <= len; at += PROG_PATCH_SIZE) {
		size_t w = (size_t)1 << (le32(body + at + 4) & 3), off = le32(body + at) % n;
		uint64_t v = le64(body + at + 8);

		if (w > n)
			continue;
		if (off + w > n)
			off = n - w;
		for (size_t i = 0; i < w; i++)
			bd->enc.data[off + i] = (uint8_t)(v >> (8 * i));
	}
}

/* The encoded DATA chunk pending, appended. */
static void flush(struct builder *bd)
{
	if (bd->pend.type && !bd->enc.error && bd->enc.len <= PP_CHUNK_MAX_RAW)
		pp_writer__append_chunk(bd->w, &bd->pend, bd->enc.data, bd->enc.len);
	bd->pend.type = 0;
	pp_buf__reset(&bd->enc);
}

/* An encoded DATA chunk of @k from @body into bd->enc, pending (a PATCH may follow). */
static void encode(struct builder *bd, const struct prog_kind *k, struct pp_chunk_desc *d,
		   const uint8_t *body, size_t n)
{
	size_t cuts[PP_FC_CUTS], len;
	int nr_cuts = 0;

	d->encoding = k->encoding;
	d->encoded = 1;
	if (k->encoding == PP_DATA_FTRACE) {
		d->stream = PP_STREAM_FTRACE | (d->stream & 0xff);
		pp_buf__append(&bd->enc, body, n);
	} else {
		frame(&bd->b, PP_CHUNK_DATA, body, n);
		if (bd->b.error)
			return;
		len = k->encoding == PP_DATA_FIELDS ? pp_fieldcode_bound(bd->b.len, bd->nr_lay)
						    : pp_reccache_bound(bd->b.len, bd->nr_lay);
		if (pp_buf__reserve(&bd->enc, len))
			return;
		len = k->encoding == PP_DATA_FIELDS
		      ? pp_fieldcode_encode(bd->b.data, bd->b.len, bd->lay, bd->nr_lay,
					    bd->enc.data, cuts, &nr_cuts)
		      : pp_reccache_encode(bd->b.data, bd->b.len, bd->lay, bd->nr_lay,
					   bd->enc.data);
		if (!len)
			return;
		bd->enc.len = len;
	}
	bd->pend = *d;
}

/* Build the trace the program describes into the memfd. Return: 0 or -1. */
static int build(const uint8_t *data, size_t size)
{
	static const uint8_t codecs[4] = { PP_CODEC_NONE, PP_CODEC_LZ4, PP_CODEC_ZSTD,
					   PP_CODEC_LZ4 };
	static struct builder bd;
	struct pp_writer_opts wo;
	struct pp_io *io = pp_io_mem__new(NULL, 0, 0);
	const uint8_t *file;
	size_t off = 1, len;
	int closed;

	if (!size || !io)
		return pp_io__free(io), -1;
	memset(&wo, 0, sizeof(wo));
	wo.codec = codecs[data[0] & 3];
	wo.index_every = (uint32_t)(data[0] >> 3) + 1;
	closed = data[0] & 4;
	bd.w = pp_writer__new(io, &wo);
	if (!bd.w)
		return pp_io__free(io), -1;
	bd.nr_lay = 0;
	bd.pend.type = 0;
	pp_buf__reset(&bd.enc);
	while (off + PROG_CHUNK_HDR <= size) {
		const uint8_t *h = data + off;
		const struct prog_kind *k = prog_kind(h[0]);
		struct pp_chunk_desc d = { 0 };
		size_t n = le32(h + 2);

		off += PROG_CHUNK_HDR;
		if (n > size - off)
			n = size - off;
		if (k->type == PROG_PATCH) {
			patch(&bd, data + off, n);
			off += n;
			continue;
		}
		flush(&bd);
		d.type = k->type;
		d.stream = h[1] == 0xff ? PP_STREAM_META : h[1];
		if (d.type != PP_CHUNK_DATA)
			d.stream = PP_STREAM_META;
		else
			d.flags = PP_CHUNK_CRITICAL;
		d.first_ts = le64(h + 6);
		d.last_ts = le64(h + 14);
		pp_buf__reset(&bd.b);
		if (d.type == PP_CHUNK_DATA && k->encoding != PP_DATA_PLAIN) {
			encode(&bd, k, &d, data + off, n);
			off += n;
			continue;
		}
		frame(&bd.b, d.type, data + off, n);
		off += n;
		if (d.type == PP_CHUNK_ATTRS && !bd.b.error)
			attrs_layout(&bd, bd.b.data, bd.b.len);
		if (!bd.b.error && bd.b.len <= PP_CHUNK_MAX_RAW)
			pp_writer__append_chunk(bd.w, &d, bd.b.data, bd.b.len);
	}
	flush(&bd);
	if (closed)
		pp_writer__close(bd.w);
	else
		pp_writer__abort(bd.w);
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

/* ---- the structure-aware mutator ---- */

struct span { size_t off, len; };

static unsigned int rnd(unsigned int *st)
{
	*st = *st * 1103515245u + 12345u;
	return *st >> 8;
}

/* The chunks of the program: where each header starts. Return: how many (at most @max). */
static size_t prog_chunks(const uint8_t *d, size_t size, struct span *v, size_t max)
{
	size_t off = 1, n = 0;

	while (off + PROG_CHUNK_HDR <= size && n < max) {
		size_t len = le32(d + off + 2);

		if (len > size - off - PROG_CHUNK_HDR)
			len = size - off - PROG_CHUNK_HDR;
		v[n].off = off;
		v[n++].len = PROG_CHUNK_HDR + len;
		off += PROG_CHUNK_HDR + len;
	}
	return n;
}

/* The units inside a chunk body: items (8-byte header, u32 size) or records (u16 size at 6). */
static size_t body_units(const uint8_t *b, size_t len, int records, struct span *v, size_t max)
{
	size_t off = 0, n = 0;

	while (off + 8 <= len && n < max) {
		size_t sz = records ? (size_t)(b[off + 6] | b[off + 7] << 8) : le32(b + off);

		if (sz < 8 || sz > len - off)
			break;
		v[n].off = off;
		v[n++].len = sz;
		off += sz;
	}
	return n;
}

/*
 * The units of an ftrace payload: its header with the type table, then each
 * page with its u32 length word. Mutations land in them whole, length words
 * included: these are the fields a page walk must not trust.
 */
static size_t ftrace_units(const uint8_t *b, size_t len, struct span *v, size_t max)
{
	size_t off, n = 0;

	if (len < PP_FTPAGE_HDR_SIZE || !max)
		return 0;
	off = PP_FTPAGE_HDR_SIZE + (size_t)(b[8] | b[9] << 8) * PP_FTPAGE_TYPE_SIZE;
	if (off > len)
		off = len;
	v[n].off = 0;
	v[n++].len = off;
	while (off + PP_FTPAGE_PAGE_HDR <= len && n < max) {
		size_t sz = PP_FTPAGE_PAGE_HDR + le32(b + off);

		if (sz > len - off)
			sz = len - off;
		v[n].off = off;
		v[n++].len = sz;
		off += sz;
	}
	return n;
}

/* A value a decoder must bound: sizes, counts, offsets, times at their edges. */
static uint64_t edge(unsigned int *st)
{
	static const uint64_t v[] = {
		0, 1, 2, 7, 8, 15, 16, 64, 255, 256, 4095, 4096, 65535, 65536, 0x7fffffff,
		0x80000000u, 0xffffffffu, 0x100000000ull, 0x7fffffffffffffffull,
		0x8000000000000000ull, UINT64_MAX, UINT64_MAX - 1, UINT64_MAX - 4096,
	};

	return v[rnd(st) % (sizeof(v) / sizeof(v[0]))];
}

static void put_le(uint8_t *p, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* The index of @type (and @enc) in prog_kinds. */
static uint8_t kind_index(uint16_t type, uint8_t enc)
{
	for (size_t i = 0; i < PROG_KINDS; i++)
		if (prog_kinds[i].type == type && prog_kinds[i].encoding == enc)
			return (uint8_t)i;
	abort();
}

/* A PATCH of one entry at @at: a boundary value at a random place of the payload. */
static size_t add_patch(uint8_t *data, size_t size, size_t max_size, size_t at, unsigned int *st)
{
	uint8_t *p = data + at;

	if (size + PROG_CHUNK_HDR + PROG_PATCH_SIZE > max_size)
		return 0;
	memmove(p + PROG_CHUNK_HDR + PROG_PATCH_SIZE, p, size - at);
	memset(p, 0, PROG_CHUNK_HDR);
	p[0] = kind_index(PROG_PATCH, 0);
	put_le(p + 2, PROG_PATCH_SIZE, 4);
	p += PROG_CHUNK_HDR;
	put_le(p, rnd(st) % 4096, 4);	/* the headers and tables lie first */
	put_le(p + 4, rnd(st), 4);
	put_le(p + 8, rnd(st) & 1 ? edge(st) : rnd(st), 8);
	return size + PROG_CHUNK_HDR + PROG_PATCH_SIZE;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	static uint8_t tmp[262144];
	struct span ch[512], un[1024];
	unsigned int st = seed;
	size_t nch = size > 1 ? prog_chunks(data, size, ch, 512) : 0, k, nu;
	const struct prog_kind *kind;
	uint8_t *h, *body;
	size_t blen, skip = 8;

	if (!nch || rnd(&st) % 4 == 0)
		return LLVMFuzzerMutate(data, size, max_size);
	k = rnd(&st) % nch;
	h = data + ch[k].off;
	body = h + PROG_CHUNK_HDR;
	blen = ch[k].len - PROG_CHUNK_HDR;
	kind = prog_kind(h[0]);
	switch (rnd(&st) % 9) {
	case 0:		/* duplicate the chunk: repeated metadata, a chunk twice in a stream */
		if (size + ch[k].len > max_size)
			break;
		memmove(h + ch[k].len, h, size - ch[k].off);
		return size + ch[k].len;
	case 1:		/* drop it */
		memmove(h, h + ch[k].len, size - ch[k].off - ch[k].len);
		return size - ch[k].len;
	case 2:		/* another stream, or edge times */
		if (rnd(&st) & 1)
			h[1] = (uint8_t)(rnd(&st) & 1 ? rnd(&st) : h[1] + 1);
		else
			put_le(h + 6 + 8 * (rnd(&st) & 1), edge(&st), 8);
		return size;
	case 3:		/* move it before another chunk (metadata after data, LOST first) */
		if (nch > 1 && ch[k].len <= sizeof(tmp)) {
			size_t to = ch[rnd(&st) % nch].off;

			if (to >= ch[k].off)
				break;
			memcpy(tmp, h, ch[k].len);
			memmove(data + to + ch[k].len, data + to, ch[k].off - to);
			memcpy(data + to, tmp, ch[k].len);
			return size;
		}
		break;
	case 4:		/* an encoded chunk changed after encoding */
		if (kind->type == PP_CHUNK_DATA && kind->encoding != PP_DATA_PLAIN) {
			size_t n = add_patch(data, size, max_size, ch[k].off + ch[k].len, &st);

			if (n)
				return n;
		}
		break;
	default:	/* one unit inside: an item, a record, a page, a MACHINE value */
		if (kind->type == PP_CHUNK_MACHINE) {
			/* a value: the bytes between two NULs, mutated in place */
			size_t a = rnd(&st) % (blen + 1), b = a;

			while (b < blen && body[b])
				b++;
			if (b > a && b - a <= sizeof(tmp)) {
				size_t n;

				memcpy(tmp, body + a, b - a);
				n = LLVMFuzzerMutate(tmp, b - a, b - a);
				memcpy(body + a, tmp, n);
				memset(body + a + n, ' ', b - a - n);
				for (size_t i = a; i < b; i++)
					if (!body[i])
						body[i] = '0';
				return size;
			}
			break;
		}
		if (kind->type == PROG_PATCH) {
			/* an entry: another place, or another value */
			size_t e = blen / PROG_PATCH_SIZE;
			uint8_t *p;

			if (!e)
				break;
			p = body + rnd(&st) % e * PROG_PATCH_SIZE;
			if (rnd(&st) & 1)
				put_le(p, rnd(&st) & 1 ? le32(p) + (rnd(&st) % 16) - 8 : rnd(&st), 4);
			else
				put_le(p + 8, edge(&st), 8);
			return size;
		}
		if (kind->type == PP_CHUNK_DATA && kind->encoding == PP_DATA_FTRACE) {
			nu = ftrace_units(body, blen, un, 1024);
			skip = 0;
		} else {
			nu = body_units(body, blen, kind->type == PP_CHUNK_DATA, un, 1024);
		}
		if (!nu)
			break;
		{
			struct span *u = &un[rnd(&st) % nu];
			uint8_t *p = body + u->off + skip;
			size_t n = u->len - skip;

			if (!n)
				break;
			if (rnd(&st) & 1) {	/* a boundary value into an aligned field */
				size_t w = (rnd(&st) & 1) ? 8 : 4, at;

				if (n < w)
					w = 4;
				if (n < w)
					break;
				at = (rnd(&st) % (n / w + 1)) * w;
				if (at + w > n)
					at = n - w;
				put_le(p + at, edge(&st), w);
				return size;
			}
			if (n <= sizeof(tmp)) {	/* the body's bytes, its size kept */
				size_t m;

				memcpy(tmp, p, n);
				m = LLVMFuzzerMutate(tmp, n, n);
				memcpy(p, tmp, m);
				return size;
			}
		}
		break;
	}
	return LLVMFuzzerMutate(data, size, max_size);
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
