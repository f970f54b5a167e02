/* SPDX-License-Identifier: MIT */
/*
 * Builders and bounds-checked iterators for chunk payloads: metadata items
 * (struct pp_item_header sequences) and perf records in DATA chunks.
 */
#ifndef PP_META_H
#define PP_META_H

#include <stddef.h>
#include <stdint.h>
#include "pp/format.h"

/* pp's release: --version of both tools, the MACHINE pp_version key, man pages */
#define PP_VERSION "0.1"

/* A growable byte buffer with a sticky allocation error. */
struct pp_buf {
	uint8_t *data;
	size_t len;
	size_t cap;
	int error;		/* -ENOMEM after a failed growth */
};

void pp_buf__init(struct pp_buf *b);
void pp_buf__exit(struct pp_buf *b);
void pp_buf__reset(struct pp_buf *b);
/** pp_buf__reserve() - make room for @n more bytes. Return 0 or -ENOMEM. */
int pp_buf__reserve(struct pp_buf *b, size_t n);
/** pp_buf__append() - append bytes. Return 0 or -ENOMEM (sticky). */
int pp_buf__append(struct pp_buf *b, const void *p, size_t n);
/** pp_buf__append_str() - append a string with its NUL. */
int pp_buf__append_str(struct pp_buf *b, const char *s);
/** pp_buf__pad() - append zeros up to a multiple of @align. */
int pp_buf__pad(struct pp_buf *b, size_t align);

/**
 * pp_item__begin() - start an item of @kind in @b.
 * Return: the item's offset in @b, to pass to pp_item__end().
 */
size_t pp_item__begin(struct pp_buf *b, uint16_t kind);
/** pp_item__end() - pad to 8 and write the item size. */
void pp_item__end(struct pp_buf *b, size_t start);

/* Bounds-checked walk of the items of a metadata payload. */
struct pp_item_iter {
	const uint8_t *p;
	size_t len;
	size_t off;
	int bad;		/* set when a malformed item stopped the walk */
};

struct pp_item {
	uint16_t kind;
	const uint8_t *body;	/* after the 8-byte item header */
	size_t size;		/* body bytes */
};

void pp_item_iter__init(struct pp_item_iter *it, const void *payload, size_t len);
/** pp_item_iter__next() - Return: 1 with @item, 0 at the end or on a malformed item. */
int pp_item_iter__next(struct pp_item_iter *it, struct pp_item *item);

/*
 * A cursor over the bytes of one item body for decoders: every get fails
 * (returns -1 and sets bad) rather than reading past the end.
 */
struct pp_cur {
	const uint8_t *p;
	size_t len;
	size_t off;
	int bad;
};

void pp_cur__init(struct pp_cur *c, const void *p, size_t len);
int pp_cur__u8(struct pp_cur *c, uint8_t *v);
int pp_cur__u16(struct pp_cur *c, uint16_t *v);
int pp_cur__u32(struct pp_cur *c, uint32_t *v);
int pp_cur__u64(struct pp_cur *c, uint64_t *v);
/** pp_cur__bytes() - lend @n bytes. */
int pp_cur__bytes(struct pp_cur *c, const uint8_t **v, size_t n);
/** pp_cur__str() - lend a NUL-terminated string found within the bounds. */
int pp_cur__str(struct pp_cur *c, const char **s);
/** pp_cur__align() - skip to a multiple of @a from the start. */
int pp_cur__align(struct pp_cur *c, size_t a);

/* Little-endian field access used by the codec. */
static inline uint16_t pp_get_le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t pp_get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t pp_get_le64(const uint8_t *p)
{
	return (uint64_t)pp_get_le32(p) | (uint64_t)pp_get_le32(p + 4) << 32;
}
static inline void pp_put_le16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static inline void pp_put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}
static inline void pp_put_le64(uint8_t *p, uint64_t v)
{
	pp_put_le32(p, (uint32_t)v);
	pp_put_le32(p + 4, (uint32_t)(v >> 32));
}

/* The machine description: key\0value\0 pairs. */
/** pp_machine__get() - look up @key in a MACHINE payload. Return value or NULL. */
const char *pp_machine__get(const void *payload, size_t len, const char *key);
/** pp_machine__put() - append a pair. */
int pp_machine__put(struct pp_buf *b, const char *key, const char *value);

/* Perf records in a DATA payload: struct perf_event_header { u32 type; u16 misc; u16 size; }. */
struct pp_rec_iter {
	const uint8_t *p;
	size_t len;
	size_t off;
	int bad;		/* a record size ran past the payload or was < 8 */
};

struct pp_rec {
	uint32_t type;
	uint16_t misc;
	uint16_t size;
	const uint8_t *data;	/* the whole record, header included */
};

void pp_rec_iter__init(struct pp_rec_iter *it, const void *payload, size_t len);
/** pp_rec_iter__next() - Return: 1 with @rec, 0 at the end or on a malformed record. */
int pp_rec_iter__next(struct pp_rec_iter *it, struct pp_rec *rec);

/** pp_crc32c() - CRC32C (Castagnoli) of @len bytes, continuing from @crc (start 0). */
uint32_t pp_crc32c(uint32_t crc, const void *data, size_t len);

/* Encode/decode the fixed structures (little-endian on disk). */
void pp_file_header__encode(const struct pp_file_header *h, uint8_t out[64]);
/** Return: 0, -EINVAL (magic), -EBADMSG (crc), -EPROTONOSUPPORT (major). */
int pp_file_header__decode(const uint8_t in[64], struct pp_file_header *h);
void pp_chunk_header__encode(const struct pp_chunk_header *h, uint8_t out[56]);
/** Return: 0, -EINVAL (magic), -EBADMSG (crc or sizes out of caps). */
int pp_chunk_header__decode(const uint8_t in[56], struct pp_chunk_header *h);

#endif /* PP_META_H */
