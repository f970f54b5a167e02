/* SPDX-License-Identifier: MIT */
/*
 * pp_writer - appends chunks to a pp trace file (spec/pp-trace-format.md).
 *
 * The writer is append-only: it never seeks back. It writes the file header
 * at creation, one chunk per pp_writer__append_chunk() call, an index chunk
 * every index_every chunks, and an index plus footer at pp_writer__close().
 * It is not thread-safe: one thread appends.
 */
#ifndef PP_WRITER_H
#define PP_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include "pp/io.h"

struct pp_writer;

struct pp_writer_opts {
	uint8_t  codec;		/* enum pp_codec; default PP_CODEC_LZ4 */
	int      level;		/* codec level (zstd); 0 = default */
	uint32_t chunk_size;	/* target raw chunk size recorded in the header */
	uint32_t index_every;	/* chunks between index chunks; 0 = 256 */
	int      sync;		/* fdatasync after each chunk */
};

/**
 * pp_writer__new() - start a trace file on @io.
 * @io: destination, empty; the writer borrows it (the caller frees it after
 *      pp_writer__close()).
 * @opts: options, or NULL for defaults.
 *
 * Writes the file header. Return: writer, or NULL with errno set.
 */
struct pp_writer *pp_writer__new(struct pp_io *io, const struct pp_writer_opts *opts);

/**
 * struct pp_rec_layout - where the time of a sample of event @id lies, for
 * the PP_DATA_CACHED encoding: byte offset from the start of the
 * PERF_RECORD_SAMPLE (header included), 0 if the sample carries no time.
 */
struct pp_rec_layout {
	uint64_t id;
	uint32_t time_off;
};

/**
 * struct pp_chunk_desc - what the caller says about a chunk to append.
 */
struct pp_chunk_desc {
	uint16_t type;		/* enum pp_chunk_type */
	uint16_t flags;		/* PP_CHUNK_CRITICAL for types readers must understand */
	uint8_t  encoding;	/* type-specific; 0 = plain */
	uint32_t stream;	/* CPU, or PP_STREAM_META */
	uint64_t first_ts;
	uint64_t last_ts;
	uint64_t nr_records;	/* DATA only: perf records in the payload (footer stats) */
	const struct pp_rec_layout *layout;	/* PP_DATA_CACHED: sample time offsets */
	uint32_t nr_layout;
	uint8_t  encoded;	/* the payload is already in @encoding (pp_reccache_enc) */
};

/**
 * pp_writer__append_chunk() - compress @data and append it as one chunk.
 * @w: writer.
 * @desc: chunk type, stream and time range.
 * @data: raw payload.
 * @len: raw payload size, at most PP_CHUNK_MAX_RAW.
 *
 * Codec NONE is used when compression does not shrink the payload.
 * Return: 0, or -errno (sticky: later calls fail too).
 */
int pp_writer__append_chunk(struct pp_writer *w, const struct pp_chunk_desc *desc,
			    const void *data, size_t len);

/**
 * pp_writer__compress() - compress a payload into a ready-to-write chunk.
 * @codec: enum pp_codec.
 * @level: codec level, 0 = default.
 * @desc: chunk description.
 * @data: raw payload; @len: its size.
 * @out: receives a malloc'ed buffer holding header + payload + trailer, with
 *       seq and CRCs left for pp_writer__append_prepared() to fill.
 * @out_len: its size.
 *
 * Thread-safe (no writer state): lets a recorder compress on worker threads.
 * Return: 0 or -errno.
 */
int pp_writer__compress(uint8_t codec, int level, const struct pp_chunk_desc *desc,
			const void *data, size_t len, uint8_t **out, size_t *out_len);

/*
 * A streaming encoder of DATA encoding 1 (PP_DATA_CACHED, spec 5.8): a
 * recorder hands it each record as it takes it from a ring, and the plain
 * records are never stored. A record is read once, where it lies; only a
 * literal is copied, to its final place in the payload. Not thread-safe:
 * one per producer.
 */
struct pp_reccache_enc;

/**
 * pp_reccache_enc__new() - an encoder (about 10 KiB); pp_reccache_enc__free() frees it.
 * Return: the encoder, or NULL on ENOMEM.
 */
struct pp_reccache_enc *pp_reccache_enc__new(void);
void pp_reccache_enc__free(struct pp_reccache_enc *e);

/** pp_reccache_enc__buf_size() - the buffer pp_reccache_enc__start() needs. */
static inline size_t pp_reccache_enc__buf_size(size_t plain_max, uint32_t nr_layout)
{
	return 32 + (size_t)nr_layout * 16 + plain_max + (plain_max / 8 + 1) * 11;
}

/**
 * pp_reccache_enc__start() - begin a payload in @buf.
 * @buf: pp_reccache_enc__buf_size(@plain_max, @nr_lay) bytes, the encoder's
 *       until pp_reccache_enc__finish().
 * @plain_max: the most record bytes pp_reccache_enc__add() will be given.
 * @lay, @nr_lay: the layout written in the payload (borrowed).
 */
void pp_reccache_enc__start(struct pp_reccache_enc *e, uint8_t *buf, size_t plain_max,
			    const struct pp_rec_layout *lay, uint32_t nr_lay);

/**
 * pp_reccache_enc__add() - encode one perf record.
 * @rec: the record (read once, not kept); @size: its header's size, >= 8.
 * @time_off: where its time lies: the time_off of @lay's entry for its
 *            sample id when it is a sample with one, else 0 (as a reader
 *            finds it, so only the caller's layout may say it).
 */
void pp_reccache_enc__add(struct pp_reccache_enc *e, const void *rec, uint16_t size,
			  uint32_t time_off);

/**
 * pp_reccache_enc__finish() - end the payload.
 * @payload: receives where it starts, inside the buffer.
 * Return: its size, for pp_writer__compress() with desc->encoded set.
 */
size_t pp_reccache_enc__finish(struct pp_reccache_enc *e, uint8_t **payload);

/**
 * pp_writer__append_prepared() - append a chunk built by pp_writer__compress().
 * @w: writer; @buf, @len: from pp_writer__compress() (buf is modified:
 *     seq and CRCs are set here). @nr_records: as in pp_chunk_desc.
 *
 * Return: 0 or -errno.
 */
int pp_writer__append_prepared(struct pp_writer *w, uint8_t *buf, size_t len,
			       uint64_t nr_records);

/** pp_writer__bytes() - bytes written so far (file size). */
uint64_t pp_writer__bytes(const struct pp_writer *w);

/** pp_writer__chunks() - chunks written so far. */
uint64_t pp_writer__chunks(const struct pp_writer *w);

/**
 * pp_writer__close() - write the last index and the footer, then free @w.
 * @w: writer, or NULL.
 *
 * After an earlier error no footer is written (the file stays readable by
 * scanning). Return: 0 or the first -errno the writer met.
 */
int pp_writer__close(struct pp_writer *w);

/** pp_writer__abort() - free @w without writing index or footer. Accepts NULL. */
void pp_writer__abort(struct pp_writer *w);

#endif /* PP_WRITER_H */
