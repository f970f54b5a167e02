/* SPDX-License-Identifier: MIT */
/* Private header of the format library. */
#ifndef PP_FORMAT_INTERNAL_H
#define PP_FORMAT_INTERNAL_H

#include <stdarg.h>
#include "pp/format.h"
#include "pp/meta.h"
#include "pp/reader.h"
#include "pp/writer.h"

/* Chunk header field offsets (see spec, "Chunk header"). */
#define PP_CH_OFF_SEQ		24
#define PP_CH_OFF_PAYLOAD_CRC	48
#define PP_CH_OFF_HEADER_CRC	52
#define PP_CH_HEADER_SIZE	56
#define PP_CH_TRAILER_SIZE	8

#define PP_FH_SIZE		64
#define PP_FH_CRC_OFF		60

/* Index chunks are written at least this often, and hold at most this many entries. */
#define PP_INDEX_DEFAULT_EVERY	256
#define PP_INDEX_MAX_ENTRIES	(PP_CHUNK_MAX_RAW / sizeof(struct pp_index_entry))

/* Compressed-size bound for a raw payload of @len bytes, for any codec. */
size_t pp_codec_bound(uint8_t codec, size_t len);
/* Compress; return the stored size, or 0 if it did not fit/failed. */
size_t pp_codec_compress(uint8_t codec, int level, const void *src, size_t len,
			 void *dst, size_t cap);
/*
 * Compress with zstd block boundaries at the @nr_cuts offsets @cuts
 * (increasing, inside @len): each column gets its own entropy tables.
 * Still one frame; other codecs ignore the cuts.
 */
size_t pp_codec_compress_cuts(uint8_t codec, int level, const void *src, size_t len,
			      void *dst, size_t cap, const size_t *cuts, int nr_cuts);
/* Decompress exactly @raw bytes; return 0 or -EBADMSG / -EPROTONOSUPPORT / -ENOMEM. */
int pp_codec_decompress(uint8_t codec, const void *src, size_t stored,
			void *dst, size_t raw);

/* DATA encoding 1 (record cache), spec 5.8. */
size_t pp_reccache_bound(size_t len, uint32_t nr_layout);
size_t pp_reccache_encode(const uint8_t *src, size_t len, const struct pp_rec_layout *lay,
			  uint32_t nr_lay, uint8_t *dst);
int64_t pp_reccache_plain_size(const uint8_t *src, size_t len);
int pp_reccache_decode(const uint8_t *src, size_t len, uint8_t *dst, size_t *dst_len);
int pp_reccache_literals(const uint8_t *src, size_t len,
			 void (*fn)(const uint8_t *rec, uint16_t size, void *ctx), void *ctx);

/* DATA encoding 2 (field cache), spec 5.8. */
size_t pp_fieldcode_bound(size_t len, uint32_t nr_layout);
#define PP_FC_CUTS	8
size_t pp_fieldcode_encode(const uint8_t *src, size_t len, const struct pp_rec_layout *lay,
			   uint32_t nr_lay, uint8_t *dst, size_t *cuts, int *nr_cuts);
int pp_fieldcode_decode(const uint8_t *src, size_t len, uint8_t *dst, size_t *dst_len);
int pp_fieldcode_literals(const uint8_t *src, size_t len,
			  void (*fn)(const uint8_t *rec, uint16_t size, void *ctx), void *ctx);

#endif
