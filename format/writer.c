// SPDX-License-Identifier: MIT
/*
 * The trace writer: file header, then chunks appended in order, an index
 * chunk every index_every chunks, and at close a last index and the footer.
 * Compression is split from appending so a recorder can compress on other
 * threads (pp_writer__compress) and append in order on one
 * (pp_writer__append_prepared).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "pp/writer.h"
#include "format-internal.h"

struct pp_writer {
	struct pp_io *io;
	struct pp_writer_opts opts;
	uint64_t offset;		/* bytes written = next chunk offset */
	uint64_t seq;
	uint64_t last_index;		/* offset of the last index chunk, 0 if none */
	struct pp_index_entry *entries;	/* chunks since the last index chunk */
	uint32_t nr_entries;
	uint64_t first_ts, last_ts;
	uint64_t data_raw, data_records;
	uint8_t file_id[16];
	int error;
};

static void random_id(uint8_t id[16])
{
	struct timespec ts;
	uint64_t x;
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		ssize_t n = read(fd, id, 16);

		close(fd);
		if (n == 16)
			return;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	x = ((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec) ^ ((uint64_t)getpid() << 32);
	for (int i = 0; i < 16; i++) {
		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		id[i] = (uint8_t)x;
	}
}

static int host_little_endian(void)
{
	const uint16_t one = 1;

	return *(const uint8_t *)&one == 1;
}

/**
 * pp_writer__new() - start a trace on @io and write its file header.
 * @io: empty destination, borrowed.
 * @opts: options or NULL.
 *
 * Return: writer, or NULL with errno set.
 */
struct pp_writer *pp_writer__new(struct pp_io *io, const struct pp_writer_opts *opts)
{
	struct pp_file_header fh = { 0 };
	struct pp_writer *w;
	struct timespec ts;
	uint8_t buf[PP_FH_SIZE];
	int err;

	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->io = io;
	if (opts)
		w->opts = *opts;
	else
		w->opts.codec = PP_CODEC_LZ4;
	if (w->opts.codec > PP_CODEC_ZSTD) {
		free(w);
		errno = EINVAL;
		return NULL;
	}
	if (!w->opts.index_every)
		w->opts.index_every = PP_INDEX_DEFAULT_EVERY;
	if (w->opts.index_every > PP_INDEX_MAX_ENTRIES)
		w->opts.index_every = PP_INDEX_MAX_ENTRIES;
	w->entries = calloc(w->opts.index_every, sizeof(*w->entries));
	if (!w->entries) {
		free(w);
		return NULL;
	}
	random_id(w->file_id);
	clock_gettime(CLOCK_REALTIME, &ts);
	fh.major = PP_FORMAT_MAJOR;
	fh.minor = PP_FORMAT_MINOR;
	fh.byte_order = host_little_endian() ? PP_ORDER_LITTLE : PP_ORDER_BIG;
	fh.word_size = sizeof(long);
	fh.chunk_size = w->opts.chunk_size;
	fh.created_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	memcpy(fh.file_id, w->file_id, 16);
	pp_file_header__encode(&fh, buf);
	err = pp_io__write(io, buf, sizeof(buf));
	if (err) {
		free(w->entries);
		free(w);
		errno = -err;
		return NULL;
	}
	w->offset = sizeof(buf);
	return w;
}

/**
 * pp_writer__compress() - build a chunk (header, payload, trailer) in memory.
 * @codec: enum pp_codec; NONE is used instead when compression does not shrink.
 * @level: codec level, 0 = default.
 * @desc: type, flags, stream, time range.
 * @data: raw payload; @len: its size (at most PP_CHUNK_MAX_RAW).
 * @out: receives a malloc'ed buffer (caller frees); @out_len: its size.
 *
 * seq and the CRCs are filled in by pp_writer__append_prepared().
 * Return: 0 or -errno.
 */
int pp_writer__compress(uint8_t codec, int level, const struct pp_chunk_desc *desc,
			const void *data, size_t len, uint8_t **out, size_t *out_len)
{
	struct pp_chunk_header h = { 0 };
	size_t bound, stored = 0;
	uint8_t *buf;

	uint8_t *tmp = NULL;
	size_t cuts[PP_FC_CUTS];
	int nr_cuts = 0;

	if (len > PP_CHUNK_MAX_RAW || codec > PP_CODEC_ZSTD)
		return -EINVAL;
	if (desc->type == PP_CHUNK_DATA && desc->encoding != PP_DATA_PLAIN && !desc->encoded) {
		int fields = desc->encoding == PP_DATA_FIELDS;

		if (desc->encoding != PP_DATA_CACHED && !fields)
			return -EINVAL;
		tmp = malloc(fields ? pp_fieldcode_bound(len, desc->nr_layout)
				    : pp_reccache_bound(len, desc->nr_layout));
		if (!tmp)
			return -ENOMEM;
		len = fields ? pp_fieldcode_encode(data, len, desc->layout, desc->nr_layout, tmp,
						   cuts, &nr_cuts)
			     : pp_reccache_encode(data, len, desc->layout, desc->nr_layout, tmp);
		if (!len || len > PP_CHUNK_MAX_RAW) {
			free(tmp);
			return len ? -E2BIG : -ENOMEM;
		}
		data = tmp;
	}
	bound = pp_codec_bound(codec, len);
	if (bound < len)
		bound = len;
	buf = malloc(PP_CH_HEADER_SIZE + bound + PP_CH_TRAILER_SIZE);
	if (!buf) {
		free(tmp);
		return -ENOMEM;
	}
	if (codec != PP_CODEC_NONE && len)
		stored = pp_codec_compress_cuts(codec, level, data, len, buf + PP_CH_HEADER_SIZE,
						bound, cuts, nr_cuts);
	if (!stored || stored >= len) {
		codec = PP_CODEC_NONE;
		stored = len;
		if (len)
			memcpy(buf + PP_CH_HEADER_SIZE, data, len);
	}
	free(tmp);
	h.type = desc->type;
	h.flags = desc->flags;
	h.codec = codec;
	h.encoding = desc->encoding;
	h.stream = desc->stream;
	h.stored_size = (uint32_t)stored;
	h.raw_size = (uint32_t)len;
	h.first_ts = desc->first_ts;
	h.last_ts = desc->last_ts;
	pp_chunk_header__encode(&h, buf);
	pp_put_le32(buf + PP_CH_HEADER_SIZE + stored, PP_CHUNK_END_MAGIC);
	pp_put_le32(buf + PP_CH_HEADER_SIZE + stored + 4, (uint32_t)stored);
	*out = buf;
	*out_len = PP_CH_HEADER_SIZE + stored + PP_CH_TRAILER_SIZE;
	return 0;
}

static int write_index(struct pp_writer *w);

static int append_raw(struct pp_writer *w, uint8_t *buf, size_t len, uint64_t nr_records,
		      int indexed)
{
	uint32_t stored = pp_get_le32(buf + 16);
	struct pp_index_entry *e;
	uint64_t first, last;
	uint16_t type;
	int err;

	if (w->error)
		return w->error;
	if (len != PP_CH_HEADER_SIZE + (size_t)stored + PP_CH_TRAILER_SIZE ||
	    pp_get_le32(buf) != PP_CHUNK_MAGIC)
		return -EINVAL;
	pp_put_le64(buf + PP_CH_OFF_SEQ, w->seq);
	pp_put_le32(buf + PP_CH_OFF_PAYLOAD_CRC, pp_crc32c(0, buf + PP_CH_HEADER_SIZE, stored));
	pp_put_le32(buf + PP_CH_OFF_HEADER_CRC, pp_crc32c(0, buf, PP_CH_OFF_HEADER_CRC));
	err = pp_io__write(w->io, buf, len);
	if (!err && w->opts.sync)
		err = pp_io__sync(w->io);
	if (err)
		return w->error = err;

	type = pp_get_le16(buf + 4);
	first = pp_get_le64(buf + 32);
	last = pp_get_le64(buf + 40);
	if (indexed) {
		e = &w->entries[w->nr_entries++];
		e->offset = w->offset;
		e->first_ts = first;
		e->last_ts = last;
		e->stream = pp_get_le32(buf + 12);
		e->type = type;
		e->flags = pp_get_le16(buf + 6);
	}
	if (type == PP_CHUNK_DATA) {
		w->data_raw += pp_get_le32(buf + 20);
		w->data_records += nr_records;
	}
	if (first && (!w->first_ts || first < w->first_ts))
		w->first_ts = first;
	if (last > w->last_ts)
		w->last_ts = last;
	w->offset += len;
	w->seq++;
	if (indexed && w->nr_entries == w->opts.index_every)
		return write_index(w);
	return 0;
}

/* An index chunk lists the chunks since the previous one and links back to it. */
static int write_index(struct pp_writer *w)
{
	struct pp_chunk_desc d = { .type = PP_CHUNK_INDEX, .stream = PP_STREAM_META };
	size_t len = sizeof(struct pp_index_header) + (size_t)w->nr_entries * 32;
	uint8_t *payload, *chunk, *p;
	uint64_t off = w->offset;
	size_t clen;
	int err;

	payload = malloc(len);
	if (!payload)
		return w->error = -ENOMEM;
	pp_put_le64(payload, w->last_index);
	pp_put_le32(payload + 8, w->nr_entries);
	pp_put_le32(payload + 12, 0);
	p = payload + 16;
	for (uint32_t i = 0; i < w->nr_entries; i++, p += 32) {
		const struct pp_index_entry *e = &w->entries[i];

		pp_put_le64(p, e->offset);
		pp_put_le64(p + 8, e->first_ts);
		pp_put_le64(p + 16, e->last_ts);
		pp_put_le32(p + 24, e->stream);
		pp_put_le16(p + 28, e->type);
		pp_put_le16(p + 30, e->flags);
		if (i == 0 || e->first_ts < d.first_ts)
			d.first_ts = e->first_ts;
		if (e->last_ts > d.last_ts)
			d.last_ts = e->last_ts;
	}
	err = pp_writer__compress(w->opts.codec, w->opts.level, &d, payload, len, &chunk, &clen);
	free(payload);
	if (err)
		return w->error = err;
	w->nr_entries = 0;
	err = append_raw(w, chunk, clen, 0, 0);
	free(chunk);
	if (!err)
		w->last_index = off;
	return err;
}

/**
 * pp_writer__append_prepared() - append a chunk made by pp_writer__compress().
 * @w: writer.
 * @buf: the chunk bytes; seq and CRCs are written into it here.
 * @len: its size.
 * @nr_records: perf records in a DATA payload (footer statistics), else 0.
 *
 * Return: 0 or -errno (sticky).
 */
int pp_writer__append_prepared(struct pp_writer *w, uint8_t *buf, size_t len,
			       uint64_t nr_records)
{
	return append_raw(w, buf, len, nr_records, 1);
}

/**
 * pp_writer__append_chunk() - compress and append one chunk.
 * @w: writer.
 * @desc: chunk description.
 * @data: raw payload; @len: its size.
 *
 * Return: 0 or -errno (sticky).
 */
int pp_writer__append_chunk(struct pp_writer *w, const struct pp_chunk_desc *desc,
			    const void *data, size_t len)
{
	uint8_t *chunk;
	size_t clen;
	int err;

	if (w->error)
		return w->error;
	err = pp_writer__compress(w->opts.codec, w->opts.level, desc, data, len, &chunk, &clen);
	if (err)
		return err;
	err = append_raw(w, chunk, clen, desc->nr_records, 1);
	free(chunk);
	return err;
}

uint64_t pp_writer__bytes(const struct pp_writer *w)
{
	return w->offset;
}

uint64_t pp_writer__chunks(const struct pp_writer *w)
{
	return w->seq;
}

/**
 * pp_writer__close() - write the last index and the footer, then free @w.
 * @w: writer, or NULL.
 *
 * Return: 0, or the first -errno met (no footer is written after an error).
 */
int pp_writer__close(struct pp_writer *w)
{
	struct pp_chunk_desc d = { .type = PP_CHUNK_FOOTER, .stream = PP_STREAM_META };
	uint8_t payload[sizeof(struct pp_footer)];
	uint8_t *chunk;
	size_t clen;
	int err;

	if (!w)
		return 0;
	err = w->error;
	if (!err && w->nr_entries)
		err = write_index(w);
	if (!err) {
		pp_put_le64(payload, w->last_index);
		pp_put_le64(payload + 8, w->seq);
		pp_put_le64(payload + 16, w->first_ts);
		pp_put_le64(payload + 24, w->last_ts);
		pp_put_le64(payload + 32, w->data_raw);
		pp_put_le64(payload + 40, w->data_records);
		memcpy(payload + 48, w->file_id, 16);
		d.first_ts = w->first_ts;
		d.last_ts = w->last_ts;
		err = pp_writer__compress(PP_CODEC_NONE, 0, &d, payload, sizeof(payload),
					  &chunk, &clen);
		if (!err) {
			err = append_raw(w, chunk, clen, 0, 0);
			free(chunk);
		}
	}
	if (!err)
		err = pp_io__sync(w->io);
	pp_writer__abort(w);
	return err;
}

/** pp_writer__abort() - free @w without index or footer; accepts NULL. */
void pp_writer__abort(struct pp_writer *w)
{
	if (!w)
		return;
	free(w->entries);
	free(w);
}
