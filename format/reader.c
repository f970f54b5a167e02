// SPDX-License-Identifier: MIT
/*
 * The streaming trace reader. It walks chunks in file order, holding one
 * stored and one raw payload buffer (each at most the chunk caps), and the
 * index once it is asked for. Every size read from the file is checked
 * against the caps and the file size before it is used.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "pp/ftpages.h"
#include "pp/reader.h"
#include "format-internal.h"

enum {
	RC_EOF = 0,
	RC_OK = 1,
	RC_TRUNC = 2,		/* the file ends inside this chunk */
	RC_BADHDR = 3,		/* no valid chunk header here */
	RC_BADPAYLOAD = 4,	/* valid header, damaged payload or trailer */
	RC_UNKNOWN = 5,		/* unknown non-critical type */
};

#define SCAN_WINDOW	(64 * 1024)

struct pp_reader {
	struct pp_io *io;
	int own_io;
	struct pp_reader_opts opts;
	struct pp_file_header fh;
	struct pp_footer footer;
	uint64_t footer_off;
	uint64_t pos;
	uint64_t size;
	struct pp_read_window *win;	/* own_win, or the scratch's */
	struct pp_read_window own_win;
	uint8_t *raw;
	size_t raw_cap;
	uint8_t *plain;		/* decoded DATA records of encoded chunks */
	size_t plain_cap;
	struct pp_ftpages *ftp;	/* decoder of PP_DATA_FTRACE chunks, at first need */
	struct pp_chunk_header hdr;
	struct pp_reader_stats st;
	struct pp_index_entry *index;
	size_t nr_index;
	int index_tried;
	int stopped;		/* -EPROTO after an unknown critical chunk */
	int at_end;
	int raw_only;		/* pp_reader__sideband_at(): DATA records left encoded */
};

__attribute__((format(printf, 3, 4)))
static void rd_print(struct pp_reader *r, int level, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!r->opts.print)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	r->opts.print(level, msg, r->opts.print_ctx);
}

/*
 * A buffer starts at 64 KiB (small files, metadata) and past that takes the
 * size of a recorder's default chunk at once: a stream's first chunks are
 * often flushes of less, and each step through 128 KiB was an mmap, a
 * prefault and an munmap of a buffer used for a chunk or two (4% of a
 * `trace` replay of the bench's sched file here).
 */
#define GROW_FIRST	(64 * 1024)
#define GROW_CHUNK	(256 * 1024)

/*
 * Make @buf hold @need bytes. Its contents are not kept: every caller fills
 * it anew (a realloc would copy them into pages not faulted in yet).
 */
static int grow(uint8_t **buf, size_t *cap, size_t need)
{
	uint8_t *nb;
	size_t nc;

	if (need <= *cap)
		return 0;
	nc = *cap > GROW_FIRST ? *cap : need > GROW_FIRST ? GROW_CHUNK : GROW_FIRST;
	while (nc < need)
		nc *= 2;
	nb = malloc(nc);
	if (!nb)
		return -ENOMEM;
	pp_prefault(nb, nc);
	free(*buf);
	*buf = nb;
	*cap = nc;
	return 0;
}

static int read_exact(struct pp_reader *r, void *buf, size_t len, uint64_t off)
{
	ssize_t n = pp_io__pread(r->io, buf, len, off);

	if (n < 0)
		return (int)n;
	return (size_t)n == len ? 0 : -ENODATA;
}

/** pp_reader__known_type() - whether this reader understands chunk @type. */
int pp_reader__known_type(uint16_t type)
{
	switch (type) {
	case PP_CHUNK_MACHINE: case PP_CHUNK_ATTRS: case PP_CHUNK_FORMATS:
	case PP_CHUNK_TASKS: case PP_CHUNK_MMAPS: case PP_CHUNK_KSYMS:
	case PP_CHUNK_USYMS: case PP_CHUNK_DATA: case PP_CHUNK_LOST: case PP_CHUNK_BPF_AGG:
	case PP_CHUNK_INDEX: case PP_CHUNK_FOOTER:
		return 1;
	default:
		return 0;
	}
}

/*
 * Chunks are read through a window: one pread brings a chunk's header,
 * payload and trailer, and usually the next chunks of the file too (three
 * preads per chunk were a tenth of a replay here). Small, as every stream of
 * a replay has its own reader; a larger chunk widens it to its size.
 */
#define READ_WINDOW	(64 * 1024)

/*
 * The @len bytes at @off (within the file's size), from the window or
 * read into it. Return: a pointer valid until the next call, or NULL with
 * *err set (-ENODATA: the file is shorter than it said).
 */
static const uint8_t *read_span(struct pp_reader *r, uint64_t off, size_t len, int *err)
{
	struct pp_read_window *w = r->win;
	size_t want = len > READ_WINDOW ? len : READ_WINDOW;
	ssize_t n;

	if (w->io == r->io && off >= w->off && off - w->off <= w->len &&
	    len <= w->len - (off - w->off))
		return w->buf + (off - w->off);
	if (want > r->size - off)
		want = (size_t)(r->size - off);
	w->len = 0;
	if (grow(&w->buf, &w->cap, want)) {
		*err = -ENOMEM;
		return NULL;
	}
	n = pp_io__pread(r->io, w->buf, want, off);
	if (n < 0) {
		*err = (int)n;
		return NULL;
	}
	w->io = r->io;
	w->off = off;
	w->len = (size_t)n;
	if ((size_t)n < len) {
		*err = -ENODATA;
		return NULL;
	}
	return w->buf;
}

/*
 * An allocation failed: the host's limit, not damage in the file. Said as
 * such (a chunk reported "damaged" would send the user to the wrong
 * culprit); the caller gets -ENOMEM and stops.
 */
static int no_memory(struct pp_reader *r, const struct pp_chunk_header *h, uint64_t off,
		     size_t bytes)
{
	rd_print(r, 0, "chunk %llu at offset %llu: out of memory (%zu bytes)",
		 (unsigned long long)h->seq, (unsigned long long)off, bytes);
	return -ENOMEM;
}

/* pp_ftpages' check of a type table entry, by the reader's check. */
static int ftype_check(void *ctx, struct pp_ftpage_type *t)
{
	struct pp_reader *r = ctx;
	struct pp_data_claim c = { .encoding = PP_DATA_FTRACE, .id = t->id, .ftype = t->type,
				   .sample_type = t->sample_type };
	int ret = r->opts.check(r->opts.check_ctx, &c);

	t->min_size = c.min_size;
	t->max_size = c.max_size;
	return ret;
}

/* What an encoding 3 decode failed on, counted under its name; NULL if it did not. */
static const char *ftrace_damage(struct pp_reader *r, int err)
{
	if (err != -EBADMSG)
		return err ? "ftrace pages do not decode" : NULL;
	switch (pp_ftpages__damage(r->ftp)) {
	case PP_FTD_PAGE:
		r->st.bad_pages++;
		return "an ftrace page's events do not walk forward inside its commit";
	case PP_FTD_TYPES:
		r->st.bad_types++;
		return "ftrace pages name an event type that is not the recorded one's";
	case PP_FTD_DROPPED:
		r->st.bad_dropped++;
		return "ftrace pages tell an impossible drop count";
	default:
		return "ftrace pages do not decode";
	}
}

/*
 * An encoding 3 header that disagrees with the file: pages in another byte
 * order or word size than the file header's (the producer's), or of
 * another CPU than the chunk's stream. Counted; Return: why, or NULL.
 */
static const char *ftrace_lie(struct pp_reader *r, const struct pp_chunk_header *h,
			      const uint8_t *p)
{
	if (h->raw_size < PP_FTPAGE_HDR_SIZE)
		return NULL;	/* the decoder says */
	if ((p[11] != 0) != (r->fh.byte_order == PP_ORDER_BIG) ||
	    (p[10] != r->fh.word_size && (r->fh.word_size == 4 || r->fh.word_size == 8))) {
		r->st.bad_machine++;
		return "ftrace pages of another byte order or word size than the file's";
	}
	if (pp_get_le32(p) != (h->stream & ~PP_STREAM_FTRACE) || !(h->stream & PP_STREAM_FTRACE)) {
		r->st.bad_stream++;
		return "ftrace pages of another CPU than the chunk's stream";
	}
	return NULL;
}

/*
 * Encodings 1 and 2: a layout entry whose time offset is not the one its
 * event's sample_type gives (the reader's check says): times would be
 * written over other fields. Counted; Return: 1 if so.
 */
static int layout_lie(struct pp_reader *r, const struct pp_chunk_header *h, const uint8_t *p)
{
	uint32_t nr;

	if (!r->opts.check || (h->encoding != PP_DATA_CACHED && h->encoding != PP_DATA_FIELDS) ||
	    h->raw_size < 16)
		return 0;
	nr = pp_get_le32(p + 8);
	if (nr > (h->raw_size - 16) / 16)
		return 0;	/* the decoder says */
	for (uint32_t i = 0; i < nr; i++) {
		struct pp_data_claim c = { .encoding = h->encoding,
					   .id = pp_get_le64(p + 16 + (size_t)i * 16),
					   .time_off = pp_get_le32(p + 16 + (size_t)i * 16 + 8) };

		if (r->opts.check(r->opts.check_ctx, &c)) {
			r->st.bad_layout++;
			return 1;
		}
	}
	return 0;
}

/*
 * Read the chunk at @off. On RC_OK, @c is filled. On RC_BADPAYLOAD and
 * RC_UNKNOWN, *next is the offset after the chunk. Negative: -errno.
 */
static int read_chunk(struct pp_reader *r, uint64_t off, struct pp_chunk *c, uint64_t *next,
		      int decode_unknown)
{
	const uint8_t *hb, *stored, *tb;
	struct pp_chunk_header *h = &r->hdr;
	uint8_t **rawp = &r->raw;
	size_t *capp = &r->raw_cap;
	uint64_t end;
	int err;

	if (off >= r->size)
		return RC_EOF;
	if (r->size - off < PP_CH_HEADER_SIZE)
		return RC_TRUNC;
	hb = read_span(r, off, PP_CH_HEADER_SIZE, &err);
	if (!hb)
		return err == -ENODATA ? RC_TRUNC : err;
	if (pp_chunk_header__decode(hb, h))
		return RC_BADHDR;
	end = off + PP_CH_HEADER_SIZE + h->stored_size + PP_CH_TRAILER_SIZE;
	if (end > r->size)
		return RC_TRUNC;
	*next = end;
	if (!pp_reader__known_type(h->type)) {
		if (h->flags & PP_CHUNK_CRITICAL)
			return -EPROTO;
		if (!decode_unknown)
			return RC_UNKNOWN;
	}
	/* a payload that decodes into r->plain is dead after it: the shared buffer */
	if (r->opts.scratch && h->type == PP_CHUNK_DATA && h->encoding != PP_DATA_PLAIN &&
	    !r->raw_only) {
		rawp = &r->opts.scratch->buf;
		capp = &r->opts.scratch->cap;
	}
	if (grow(rawp, capp, h->raw_size ? h->raw_size : 1))
		return no_memory(r, h, off, h->raw_size);
	stored = read_span(r, off + PP_CH_HEADER_SIZE, (size_t)h->stored_size + PP_CH_TRAILER_SIZE,
			   &err);
	if (!stored)
		return err == -ENOMEM ? no_memory(r, h, off, h->stored_size) :
		       err == -ENODATA ? RC_TRUNC : err;
	tb = stored + h->stored_size;
	if (pp_get_le32(tb) != PP_CHUNK_END_MAGIC || pp_get_le32(tb + 4) != h->stored_size) {
		rd_print(r, 0, "chunk %llu at offset %llu: damaged trailer, chunk skipped",
			 (unsigned long long)h->seq, (unsigned long long)off);
		return RC_BADPAYLOAD;
	}
	if (pp_crc32c(0, stored, h->stored_size) != h->payload_crc) {
		rd_print(r, 0, "chunk %llu at offset %llu: payload CRC mismatch, chunk skipped",
			 (unsigned long long)h->seq, (unsigned long long)off);
		return RC_BADPAYLOAD;
	}
	err = pp_codec_decompress(h->codec, stored, h->stored_size, *rawp, h->raw_size);
	if (err == -ENOMEM)
		return no_memory(r, h, off, h->raw_size);
	if (err) {
		rd_print(r, 0, "chunk %llu at offset %llu: %s, chunk skipped",
			 (unsigned long long)h->seq, (unsigned long long)off,
			 err == -EPROTONOSUPPORT ? "unsupported codec" : "payload does not decompress");
		return RC_BADPAYLOAD;
	}
	c->data = *rawp;
	c->size = h->raw_size;
	if (h->type == PP_CHUNK_DATA && h->encoding != PP_DATA_PLAIN && !r->raw_only) {
		size_t out = 0, need;
		const char *why;

		if (h->encoding == PP_DATA_FTRACE) {	/* pages into records */
			why = ftrace_lie(r, h, *rawp);
			if (why) {
				rd_print(r, 0, "chunk %llu at offset %llu: %s, chunk skipped",
					 (unsigned long long)h->seq, (unsigned long long)off, why);
				return RC_BADPAYLOAD;
			}
			if (!r->ftp && !(r->ftp = pp_ftpages__new()))
				return no_memory(r, h, off, sizeof(struct pp_ftpages *));
			err = pp_ftpages__decode(r->ftp, *rawp, h->raw_size, &r->plain,
						 &r->plain_cap, &out, PP_CHUNK_MAX_RAW, h->last_ts,
						 r->opts.check ? ftype_check : NULL, r);
			need = r->plain_cap * 2;
			why = err == -EFBIG ? "ftrace pages make more than 16 MiB of records"
					    : ftrace_damage(r, err);
		} else if (layout_lie(r, h, *rawp)) {
			rd_print(r, 0, "chunk %llu at offset %llu: a layout puts a time where its "
				 "event's sample_type has none, chunk skipped",
				 (unsigned long long)h->seq, (unsigned long long)off);
			return RC_BADPAYLOAD;
		} else {
			int64_t plain = h->encoding == PP_DATA_CACHED ||
					h->encoding == PP_DATA_FIELDS ?
					pp_reccache_plain_size(*rawp, h->raw_size) : -EPROTONOSUPPORT;

			need = plain > 0 ? (size_t)plain : 1;
			if (plain >= 0 && grow(&r->plain, &r->plain_cap, need))
				return no_memory(r, h, off, need);
			err = plain < 0 ? (int)plain :
			      h->encoding == PP_DATA_FIELDS ?
			      pp_fieldcode_decode(*rawp, h->raw_size, r->plain, &out) :
			      pp_reccache_decode(*rawp, h->raw_size, r->plain, &out);
			why = plain == -EPROTONOSUPPORT ? "unknown data encoding"
							: "records do not decode";
		}
		if (err == -ENOMEM)
			return no_memory(r, h, off, need);
		if (err) {
			rd_print(r, 0, "chunk %llu at offset %llu: %s, chunk skipped",
				 (unsigned long long)h->seq, (unsigned long long)off, why);
			return RC_BADPAYLOAD;
		}
		c->data = r->plain;
		c->size = (uint32_t)out;
	}
	c->hdr = h;
	c->offset = off;
	return RC_OK;
}

/* Find the next offset after @from where a valid chunk header starts, or r->size. */
static uint64_t resync(struct pp_reader *r, uint64_t from)
{
	uint8_t *win = malloc(SCAN_WINDOW);
	uint64_t off = from;

	if (!win)
		return r->size;
	while (off + 4 <= r->size) {
		ssize_t n = pp_io__pread(r->io, win, SCAN_WINDOW, off);

		if (n < 4)
			break;
		for (ssize_t i = 0; i + 4 <= n; i++) {
			uint8_t hb[PP_CH_HEADER_SIZE];
			struct pp_chunk_header h;

			if (pp_get_le32(win + i) != PP_CHUNK_MAGIC)
				continue;
			if (read_exact(r, hb, sizeof(hb), off + (uint64_t)i))
				continue;
			if (!pp_chunk_header__decode(hb, &h)) {
				free(win);
				return off + (uint64_t)i;
			}
		}
		off += (uint64_t)n - 3;	/* keep a magic split across windows */
	}
	free(win);
	return r->size;
}

static void load_footer(struct pp_reader *r)
{
	uint8_t buf[PP_FOOTER_CHUNK_SIZE];
	struct pp_chunk c;
	uint64_t off, next;
	const uint8_t *p;

	if (r->size < PP_FH_SIZE + PP_FOOTER_CHUNK_SIZE)
		return;
	off = r->size - PP_FOOTER_CHUNK_SIZE;
	if (read_exact(r, buf, sizeof(buf), off))
		return;
	if (pp_get_le16(buf + 4) != PP_CHUNK_FOOTER)
		return;
	if (read_chunk(r, off, &c, &next, 0) != RC_OK || c.hdr->type != PP_CHUNK_FOOTER ||
	    c.size != sizeof(struct pp_footer))
		return;
	p = c.data;
	r->footer.last_index = pp_get_le64(p);
	r->footer.nr_chunks = pp_get_le64(p + 8);
	r->footer.first_ts = pp_get_le64(p + 16);
	r->footer.last_ts = pp_get_le64(p + 24);
	r->footer.data_raw_bytes = pp_get_le64(p + 32);
	r->footer.data_records = pp_get_le64(p + 40);
	memcpy(r->footer.file_id, p + 48, 16);
	if (memcmp(r->footer.file_id, r->fh.file_id, 16)) {
		rd_print(r, 0, "footer belongs to another file; ignoring it");
		return;
	}
	if (r->footer.last_index >= off)
		r->footer.last_index = 0;
	r->footer_off = off;
	r->st.has_footer = 1;
}

/**
 * pp_reader__open() - open a trace on @io.
 * @io: source, borrowed.
 * @opts: options, or NULL.
 *
 * Return: reader, or NULL with errno: EINVAL (not a pp trace), EPROTONOSUPPORT
 * (another major version), ENOMEM, or the I/O error.
 */
struct pp_reader *pp_reader__open(struct pp_io *io, const struct pp_reader_opts *opts)
{
	uint8_t fh[PP_FH_SIZE];
	struct pp_reader *r;
	int64_t size;
	int err;

	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->io = io;
	if (opts)
		r->opts = *opts;
	r->win = r->opts.scratch ? &r->opts.scratch->win : &r->own_win;
	size = pp_io__size(io);
	if (size < 0) {
		err = (int)size;
		goto fail;
	}
	r->size = (uint64_t)size;
	r->st.file_size = r->size;
	err = read_exact(r, fh, sizeof(fh), 0);
	if (err) {
		err = err == -ENODATA ? -EINVAL : err;
		goto fail;
	}
	err = pp_file_header__decode(fh, &r->fh);
	if (err == -EBADMSG) {
		rd_print(r, 0, "file header CRC mismatch: header damaged, reading on");
		r->st.header_damaged = 1;
		if (r->fh.major != PP_FORMAT_MAJOR) {
			err = -EPROTONOSUPPORT;
			goto fail;
		}
		err = 0;
	}
	if (err)
		goto fail;
	if (r->fh.byte_order != PP_ORDER_LITTLE && r->fh.byte_order != PP_ORDER_BIG)
		r->fh.byte_order = PP_ORDER_LITTLE;
	{
		const uint16_t one = 1;
		uint8_t host = *(const uint8_t *)&one ? PP_ORDER_LITTLE : PP_ORDER_BIG;

		/* Metadata is little-endian everywhere; perf records are not. */
		if (r->fh.byte_order != host) {
			r->st.foreign_order = 1;
			rd_print(r, 0, "recorded on a %s-endian host: its perf records cannot be "
				 "decoded on this one", r->fh.byte_order == PP_ORDER_BIG ? "big" : "little");
		}
	}
	r->pos = PP_FH_SIZE;
	if (!r->opts.no_index)
		load_footer(r);
	return r;
fail:
	free(r);
	errno = -err;
	return NULL;
}

/**
 * pp_reader__open_path() - open the trace file at @path (the reader owns the fd).
 * Return: reader, or NULL with errno set.
 */
struct pp_reader *pp_reader__open_path(const char *path, const struct pp_reader_opts *opts)
{
	struct pp_reader *r;
	struct pp_io *io;
	struct stat st;
	int fd, err;

	/*
	 * Non-blocking: a FIFO with no writer must not hang the open. The
	 * reader seeks (the footer, the index, damage): only a file or a block
	 * device will do.
	 */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return NULL;
	err = 0;
	if (fstat(fd, &st))
		err = errno;
	else if (S_ISDIR(st.st_mode))
		err = EISDIR;
	else if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))
		err = ESPIPE;
	else if (fcntl(fd, F_SETFL, 0) < 0)
		err = errno;
	if (err) {
		close(fd);
		errno = err;
		return NULL;
	}
	io = pp_io_file__new(fd, 1);
	if (!io) {
		err = errno;
		close(fd);
		errno = err;
		return NULL;
	}
	r = pp_reader__open(io, opts);
	if (!r) {
		err = errno;
		pp_io__free(io);
		errno = err;
		return NULL;
	}
	r->own_io = 1;
	return r;
}

const struct pp_file_header *pp_reader__header(const struct pp_reader *r)
{
	return &r->fh;
}

const struct pp_footer *pp_reader__footer(const struct pp_reader *r)
{
	return r->st.has_footer ? &r->footer : NULL;
}

struct pp_io *pp_reader__io(const struct pp_reader *r)
{
	return r->io;
}

size_t pp_reader__buffer_bytes(const struct pp_reader *r)
{
	return r->own_win.cap + r->raw_cap + r->plain_cap +
	       (r->opts.scratch ? r->opts.scratch->cap + r->opts.scratch->win.cap : 0);
}

/** pp_scratch__release() - free a shared buffer's memory; accepts NULL. */
void pp_scratch__release(struct pp_scratch *s)
{
	if (!s)
		return;
	free(s->buf);
	free(s->win.buf);
	memset(s, 0, sizeof(*s));
}

const struct pp_reader_stats *pp_reader__stats(const struct pp_reader *r)
{
	return &r->st;
}

/**
 * pp_reader__next() - the next valid chunk in file order.
 * @r: reader.
 * @c: receives the chunk; its payload is lent until the next call.
 *
 * Damaged chunks are skipped (counted in the stats, with a warning through
 * the print hook); unknown non-critical chunks are skipped and counted.
 * Return: 1 with @c, 0 at the end, -EPROTO at an unknown critical chunk,
 * other -errno on I/O or memory errors.
 */
int pp_reader__next(struct pp_reader *r, struct pp_chunk *c)
{
	uint64_t next = 0;
	int rc;

	if (r->stopped)
		return r->stopped;
	for (;;) {
		if (r->at_end)
			return 0;
		rc = read_chunk(r, r->pos, c, &next, 0);
		switch (rc) {
		case RC_OK:
			r->st.chunks++;
			r->pos = next;
			if (c->hdr->type == PP_CHUNK_FOOTER)
				r->at_end = 1;
			return 1;
		case RC_EOF:
			r->at_end = 1;
			return 0;
		case RC_TRUNC:
			r->st.truncated = 1;
			r->st.truncated_at = r->pos;
			rd_print(r, 0, "file truncated at offset %llu (%llu bytes of a torn chunk ignored)",
				 (unsigned long long)r->pos, (unsigned long long)(r->size - r->pos));
			r->at_end = 1;
			return 0;
		case RC_UNKNOWN:
			r->st.chunks++;
			r->st.unknown_skipped++;
			rd_print(r, 2, "skipping unknown chunk type 0x%04x at offset %llu",
				 r->hdr.type, (unsigned long long)r->pos);
			r->pos = next;
			continue;
		case RC_BADPAYLOAD:
			r->st.corrupt++;
			r->pos = next;
			continue;
		case RC_BADHDR: {
			uint64_t to = resync(r, r->pos + 1);

			r->st.corrupt++;
			r->st.resyncs++;
			r->st.bytes_skipped += to - r->pos;
			rd_print(r, 0, "damaged chunk header at offset %llu: skipped %llu bytes to %s",
				 (unsigned long long)r->pos, (unsigned long long)(to - r->pos),
				 to < r->size ? "the next chunk" : "the end of the file");
			r->pos = to;
			continue;
		}
		case -EPROTO:
			rd_print(r, 0, "chunk at offset %llu has unknown critical type 0x%04x: "
				 "this file needs a newer pp", (unsigned long long)r->pos, r->hdr.type);
			r->stopped = -EPROTO;
			return -EPROTO;
		default:
			return rc;
		}
	}
}

/**
 * pp_reader__read_at() - read the chunk whose header is at @off without
 * moving the cursor.
 * Return: 1 with @c, -EBADMSG if no valid chunk lies there, -EPROTO for an
 * unknown critical type, other -errno.
 */
int pp_reader__read_at(struct pp_reader *r, uint64_t off, struct pp_chunk *c)
{
	uint64_t next;
	int rc = read_chunk(r, off, c, &next, 1);

	if (rc == RC_OK)
		return 1;
	if (rc < 0)
		return rc;
	return -EBADMSG;
}

int pp_reader__sideband_at(struct pp_reader *r, uint64_t off,
			   void (*fn)(const uint8_t *rec, uint16_t size, void *ctx), void *ctx)
{
	struct pp_chunk c;
	uint64_t next;
	size_t pos = 0;
	int rc;

	r->raw_only = 1;
	rc = read_chunk(r, off, &c, &next, 1);
	r->raw_only = 0;
	if (rc < 0)
		return rc;
	if (rc != RC_OK || c.hdr->type != PP_CHUNK_DATA)
		return -EBADMSG;
	if (c.hdr->encoding == PP_DATA_CACHED || c.hdr->encoding == PP_DATA_FIELDS) {
		if (!(c.hdr->encoding == PP_DATA_FIELDS ?
		      pp_fieldcode_literals(c.data, c.size, fn, ctx) :
		      pp_reccache_literals(c.data, c.size, fn, ctx)))
			return 1;
		rd_print(r, 0, "chunk %llu at offset %llu: records do not decode, chunk skipped",
			 (unsigned long long)c.hdr->seq, (unsigned long long)off);
		return -EBADMSG;
	}
	if (c.hdr->encoding == PP_DATA_FTRACE)
		return 1;	/* samples, and the losses the pages tell of */
	if (c.hdr->encoding != PP_DATA_PLAIN) {
		rd_print(r, 0, "chunk %llu at offset %llu: unknown data encoding, chunk skipped",
			 (unsigned long long)c.hdr->seq, (unsigned long long)off);
		return -EBADMSG;
	}
	while (c.size - pos >= 8) {
		uint32_t type;
		uint16_t size;

		memcpy(&type, c.data + pos, 4);
		memcpy(&size, c.data + pos + 6, 2);
		if (size < 8 || size > c.size - pos)
			break;
		if (type != 9)	/* PERF_RECORD_SAMPLE */
			fn(c.data + pos, size, ctx);
		pos += size;
	}
	return 1;
}

/** pp_reader__seek() - move the cursor to the chunk header at @off (0: start). */
void pp_reader__seek(struct pp_reader *r, uint64_t off)
{
	r->pos = off < PP_FH_SIZE ? PP_FH_SIZE : off;
	r->at_end = 0;
}

/*
 * Whether every entry names the chunk that lies at its offset, in file
 * order, without overlap, before the footer. An index is input like the
 * rest: one listing a chunk 4,000 times would have it replayed 4,000 times.
 * One header read per chunk (32 bytes of index each): cheap next to the
 * chunks themselves.
 */
static int index_valid(struct pp_reader *r, const struct pp_index_entry *v, size_t nr)
{
	uint64_t end = PP_FH_SIZE;

	for (size_t i = 0; i < nr; i++) {
		uint8_t hb[PP_CH_HEADER_SIZE];
		struct pp_chunk_header h;

		if (v[i].offset < end || v[i].type == PP_CHUNK_INDEX ||
		    v[i].type == PP_CHUNK_FOOTER || r->footer_off - v[i].offset < sizeof(hb) ||
		    read_exact(r, hb, sizeof(hb), v[i].offset) || pp_chunk_header__decode(hb, &h))
			return 0;
		if (h.type != v[i].type || h.stream != v[i].stream || h.flags != v[i].flags ||
		    h.first_ts != v[i].first_ts || h.last_ts != v[i].last_ts)
			return 0;
		end = v[i].offset + PP_CH_HEADER_SIZE + h.stored_size + PP_CH_TRAILER_SIZE;
		if (end > r->footer_off)
			return 0;
	}
	return 1;
}

/*
 * Follow the chain of index chunks back from the footer. Blocks are read
 * newest first and stored from the end of the array, so entries come out in
 * file order. Offsets must strictly decrease along the chain (no cycles).
 */
static void load_index(struct pp_reader *r)
{
	uint64_t off = r->footer.last_index, limit = r->footer_off, total = 0;
	struct pp_index_entry *all = NULL;
	size_t cap;

	r->index_tried = 1;
	if (!r->st.has_footer || !off)
		return;
	/* Every chunk takes at least 64 bytes: caps the entries we may ever need. */
	cap = (size_t)((r->size / (PP_CH_HEADER_SIZE + PP_CH_TRAILER_SIZE)) + 1);
	if (cap > r->footer.nr_chunks)
		cap = (size_t)r->footer.nr_chunks;
	all = calloc(cap ? cap : 1, sizeof(*all));
	if (!all)
		return;
	while (off) {
		struct pp_chunk c;
		struct pp_cur cur;
		uint64_t prev;
		uint32_t nr;

		if (off >= limit || pp_reader__read_at(r, off, &c) != 1 ||
		    c.hdr->type != PP_CHUNK_INDEX)
			goto bad;
		pp_cur__init(&cur, c.data, c.size);
		if (pp_cur__u64(&cur, &prev) || pp_cur__u32(&cur, &nr) ||
		    pp_cur__align(&cur, 16) || (uint64_t)nr * 32 != c.size - 16 ||
		    total + nr > cap)
			goto bad;
		total += nr;
		for (uint32_t i = 0; i < nr; i++) {
			struct pp_index_entry *e = &all[cap - total + i];

			pp_cur__u64(&cur, &e->offset);
			pp_cur__u64(&cur, &e->first_ts);
			pp_cur__u64(&cur, &e->last_ts);
			pp_cur__u32(&cur, &e->stream);
			pp_cur__u16(&cur, &e->type);
			pp_cur__u16(&cur, &e->flags);
			if (e->offset < PP_FH_SIZE || e->offset >= off)
				goto bad;
		}
		limit = off;
		off = prev;
	}
	memmove(all, all + (cap - total), (size_t)total * sizeof(*all));
	if (!index_valid(r, all, (size_t)total)) {
		rd_print(r, 0, "index does not match the chunks it lists; the file will be read "
			 "by scanning");
		free(all);
		return;
	}
	r->index = all;
	r->nr_index = (size_t)total;
	r->st.opened_by_index = 1;
	return;
bad:
	rd_print(r, 0, "index damaged; the file will be read by scanning");
	free(all);
}

/**
 * pp_reader__index() - the chunk index from the file's index chunks.
 * @r: reader.
 * @nr: receives the number of entries.
 *
 * Return: entries in file order (owned by the reader), or NULL when the
 * file has no usable index: callers scan with pp_reader__next() instead.
 */
const struct pp_index_entry *pp_reader__index(struct pp_reader *r, size_t *nr)
{
	if (!r->index_tried)
		load_index(r);
	*nr = r->nr_index;
	return r->index;
}

/**
 * pp_reader__strerror() - a one-line explanation of an open or read error.
 * @err: a positive errno from pp_reader__open() or a -errno from the others.
 */
const char *pp_reader__strerror(int err)
{
	if (err < 0)
		err = -err;
	switch (err) {
	case EINVAL:
		return "not a pp trace file";
	case EPROTONOSUPPORT:
		return "unsupported pp trace format version";
	case EPROTO:
		return "the file has a chunk type this version of pp does not understand";
	case EBADMSG:
		return "file header is corrupt";
	case ESPIPE:
		return "not a regular file (a trace is read with seeks: save a stream to a file first)";
	default:
		return strerror(err);
	}
}

/** pp_reader__free() - free the reader (and its io if it opened the file); accepts NULL. */
void pp_reader__free(struct pp_reader *r)
{
	if (!r)
		return;
	free(r->own_win.buf);
	free(r->raw);
	free(r->plain);
	pp_ftpages__free(r->ftp);
	free(r->index);
	if (r->own_io)
		pp_io__free(r->io);
	free(r);
}
