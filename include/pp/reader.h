/* SPDX-License-Identifier: MIT */
/*
 * pp_reader - streaming reader of pp trace files.
 *
 * The reader opens by the footer and index when the file was closed cleanly,
 * by scanning when it was not, and walks chunks in file order. It never reads
 * or writes outside its buffers on any input, and its memory is bounded by
 * the chunk size caps, not the file size. Damage is reported, counted and
 * skipped: a corrupt chunk is dropped and reading resumes at the next valid
 * chunk header.
 *
 * Memory handed out (chunk payloads, records) is lent: valid until the next
 * call on the same reader or cursor.
 */
#ifndef PP_READER_H
#define PP_READER_H

#include <stddef.h>
#include <stdint.h>
#include "pp/format.h"
#include "pp/io.h"

struct pp_reader;

/* Damage and statistics, cumulative over the reader's life. */
struct pp_reader_stats {
	uint64_t chunks;		/* valid chunks returned or skipped as unknown */
	uint64_t unknown_skipped;	/* unknown non-critical chunks skipped */
	uint64_t corrupt;		/* chunks dropped: bad CRC, bad sizes, undecodable */
	uint64_t resyncs;		/* times the reader scanned for the next header */
	uint64_t bytes_skipped;		/* bytes passed over while resyncing */
	int      truncated;		/* file ends inside a chunk */
	uint64_t truncated_at;		/* offset of that torn chunk */
	int      has_footer;		/* a valid footer was found */
	int      opened_by_index;	/* the index chain was used */
	int      header_damaged;	/* the file header CRC did not match */
	int      foreign_order;		/* perf records are in the other byte order */
	uint64_t file_size;
	/*
	 * DATA chunks skipped (counted in corrupt too) for a lie a check of
	 * spec/pp-trace-format.md 5.8 caught, each under its own name:
	 */
	uint64_t bad_pages;		/* encoding 3: events that do not walk forward inside a page's commit */
	uint64_t bad_types;		/* encoding 3: a type naming no recorded event or another, or an event of another's size */
	uint64_t bad_machine;		/* encoding 3: byte order or word size not the file's */
	uint64_t bad_stream;		/* encoding 3: the pages' CPU not the chunk's stream */
	uint64_t bad_dropped;		/* an impossible kernel drop count, or drops of no event */
	uint64_t bad_layout;		/* encodings 1, 2: a time offset not where the event's sample_type puts it */
};

/*
 * What a DATA chunk says about one event, for pp_reader_opts.check to hold
 * against ATTRS and FORMATS before the chunk's records are made: a layout
 * entry (encodings 1 and 2: @time_off) or a type table entry (encoding 3:
 * @ftype and @sample_type; the check may set @min_size and @max_size, the
 * data sizes its format allows, 0 for unchecked).
 */
struct pp_data_claim {
	uint8_t  encoding;
	uint64_t id;
	uint32_t time_off;
	uint16_t ftype;
	uint64_t sample_type;
	uint32_t min_size, max_size;
};

/* 0 when @c agrees with the file's metadata (or cannot be told), else non-zero. */
typedef int (*pp_claim_fn)(void *ctx, struct pp_data_claim *c);

struct pp_chunk {
	const struct pp_chunk_header *hdr;	/* decoded header (host order) */
	uint64_t offset;			/* header offset in the file */
	const uint8_t *data;			/* decompressed payload; for DATA, plain perf records */
	uint32_t size;				/* its size (raw_size, or the decoded size) */
};

/** Diagnostic hook: level 0 = warning, 1 = info, 2 = debug. */
typedef void (*pp_print_fn)(int level, const char *msg, void *ctx);

/* File bytes [off, off + len) in @buf, read ahead of the chunk asked for. */
struct pp_read_window {
	const struct pp_io *io;	/* of whose file */
	uint8_t *buf;
	size_t cap;
	size_t len;
	uint64_t off;
};

/*
 * struct pp_scratch - buffers the readers of one file can share, for what is
 * dead once a chunk is read: the read-ahead window of file bytes, and the
 * decompressed payload of an encoded DATA chunk, which decodes into the
 * reader's own records buffer. A replay has a reader per stream, whose
 * chunks alternate in the file: with one window, each part of the file is
 * read once, not once per stream, and the working set stays in the caches.
 * Zeroed to start; the caller frees it with pp_scratch__release() after the
 * readers that use it.
 */
struct pp_scratch {
	uint8_t *buf;
	size_t cap;
	struct pp_read_window win;
};

void pp_scratch__release(struct pp_scratch *s);

struct pp_reader_opts {
	pp_print_fn print;	/* NULL: silent */
	void *print_ctx;
	int no_index;		/* ignore footer and index, always scan */
	struct pp_scratch *scratch;	/* NULL: the reader's own buffers */
	pp_claim_fn check;	/* NULL: a chunk's claims are not checked against metadata */
	void *check_ctx;
};

/**
 * pp_reader__open() - open a trace on @io.
 * @io: source; borrowed, must outlive the reader.
 * @opts: options or NULL.
 *
 * Checks the file header (magic, version, CRC) and looks for the footer.
 * Return: reader, or NULL with errno set (EINVAL: not a pp trace,
 * EPROTONOSUPPORT: another major version, EBADMSG: header corrupt).
 */
struct pp_reader *pp_reader__open(struct pp_io *io, const struct pp_reader_opts *opts);

/** pp_reader__header() - the decoded file header. */
const struct pp_file_header *pp_reader__header(const struct pp_reader *r);

/** pp_reader__footer() - the decoded footer, or NULL if the file has none. */
const struct pp_footer *pp_reader__footer(const struct pp_reader *r);

/**
 * pp_reader__next() - the next valid chunk in file order.
 * @r: reader.
 * @c: receives the chunk (payload lent until the next call).
 *
 * Damaged chunks are skipped with a warning; unknown non-critical types are
 * skipped and counted. INDEX and FOOTER chunks are returned (callers skip
 * what they do not want); the footer is the last chunk returned.
 * Return: 1 with @c filled, 0 at the end, -EPROTO for an unknown critical
 * chunk (the reader stops there), other -errno on I/O errors.
 */
int pp_reader__next(struct pp_reader *r, struct pp_chunk *c);

/**
 * pp_reader__read_at() - read and decode the chunk whose header is at @off.
 * Same contract as pp_reader__next() but does not move the file cursor.
 * Return: 1, or -EBADMSG if no valid chunk lies there, or -errno.
 */
int pp_reader__read_at(struct pp_reader *r, uint64_t off, struct pp_chunk *c);

/**
 * pp_reader__sideband_at() - the records other than PERF_RECORD_SAMPLE of
 * the DATA chunk at @off, without decoding its samples (an encoded chunk's
 * literals are walked, spec 5.8): what a replay needs of a chunk it skips
 * (COMM, FORK, EXIT, MMAP) at a fraction of the cost of reading it.
 * @r: reader; @off: chunk header offset.
 * @fn: called with each record, in chunk order (lent, not aligned; a
 *      record repeated by a copy op is given once); @ctx: its argument.
 * Return: 1, -EBADMSG (no valid DATA chunk there, or it does not decode:
 * warned), or -errno.
 */
int pp_reader__sideband_at(struct pp_reader *r, uint64_t off,
			   void (*fn)(const uint8_t *rec, uint16_t size, void *ctx), void *ctx);

/**
 * pp_reader__seek() - move the file cursor to @off (a chunk header offset
 * from the index, or 0 for the beginning).
 */
void pp_reader__seek(struct pp_reader *r, uint64_t off);

/**
 * pp_reader__index() - the chunk index from the file's index chunks.
 * @r: reader.
 * @nr: receives the number of entries.
 *
 * Return: entries in file order (owned by the reader), or NULL if the file
 * has no usable index (then callers scan with pp_reader__next()).
 */
const struct pp_index_entry *pp_reader__index(struct pp_reader *r, size_t *nr);

/**
 * pp_reader__io() - the io @r reads. A second reader opened on it (e.g. one
 * per stream, each with its own buffers) shares the file but not the
 * lent memory.
 */
struct pp_io *pp_reader__io(const struct pp_reader *r);

/**
 * pp_reader__buffer_bytes() - what @r's chunk buffers hold allocated, those
 * of the pp_scratch it shares included: it changes only when a larger chunk
 * made them grow (in this reader or in another that shares them).
 */
size_t pp_reader__buffer_bytes(const struct pp_reader *r);

/** pp_reader__stats() - damage and counters so far. */
const struct pp_reader_stats *pp_reader__stats(const struct pp_reader *r);

/** pp_reader__known_type() - whether this reader understands @type. */
int pp_reader__known_type(uint16_t type);

/**
 * pp_reader__strerror() - one-line text for an error of pp_reader__open()
 * (positive errno) or of the other calls (-errno).
 */
const char *pp_reader__strerror(int err);

/** pp_reader__free() - free; accepts NULL. Does not free the io. */
void pp_reader__free(struct pp_reader *r);

/**
 * pp_reader__open_path() - convenience: open a file by path with a file io
 * owned by the reader.
 */
struct pp_reader *pp_reader__open_path(const char *path, const struct pp_reader_opts *opts);

#endif /* PP_READER_H */
