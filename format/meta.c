// SPDX-License-Identifier: MIT
/*
 * Payload builders and bounds-checked iterators, and the codec of the fixed
 * file and chunk headers. Everything here trusts no length it reads.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "format-internal.h"

void pp_buf__init(struct pp_buf *b)
{
	memset(b, 0, sizeof(*b));
}

void pp_buf__exit(struct pp_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

void pp_buf__reset(struct pp_buf *b)
{
	b->len = 0;
	b->error = 0;
}

/**
 * pp_buf__reserve() - make room for @n more bytes.
 * @b: buffer.
 * @n: bytes.
 *
 * Return: 0, or -ENOMEM (also recorded in b->error).
 */
int pp_buf__reserve(struct pp_buf *b, size_t n)
{
	size_t need, nc;
	uint8_t *nd;

	if (b->error)
		return b->error;
	if (n > SIZE_MAX / 2 - b->len)
		return b->error = -ENOMEM;
	need = b->len + n;
	if (need <= b->cap)
		return 0;
	nc = b->cap ? b->cap : 256;
	while (nc < need)
		nc *= 2;
	nd = realloc(b->data, nc);
	if (!nd)
		return b->error = -ENOMEM;
	b->data = nd;
	b->cap = nc;
	return 0;
}

/** pp_buf__append() - append @n bytes; Return: 0 or -ENOMEM (sticky). */
int pp_buf__append(struct pp_buf *b, const void *p, size_t n)
{
	if (pp_buf__reserve(b, n))
		return b->error;
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	return 0;
}

/** pp_buf__append_str() - append @s and its NUL. */
int pp_buf__append_str(struct pp_buf *b, const char *s)
{
	return pp_buf__append(b, s, strlen(s) + 1);
}

/** pp_buf__pad() - append zero bytes up to a multiple of @align. */
int pp_buf__pad(struct pp_buf *b, size_t align)
{
	static const uint8_t zero[64];
	size_t n = (align - b->len % align) % align;

	return pp_buf__append(b, zero, n);
}

/**
 * pp_item__begin() - open an item of @kind at the end of @b.
 * Return: its offset, for pp_item__end().
 */
size_t pp_item__begin(struct pp_buf *b, uint16_t kind)
{
	uint8_t h[8] = { 0 };
	size_t start;

	pp_buf__pad(b, 8);
	start = b->len;
	pp_put_le16(h + 4, kind);
	pp_buf__append(b, h, sizeof(h));
	return start;
}

/** pp_item__end() - pad the item opened at @start to 8 bytes and store its size. */
void pp_item__end(struct pp_buf *b, size_t start)
{
	pp_buf__pad(b, 8);
	if (!b->error)
		pp_put_le32(b->data + start, (uint32_t)(b->len - start));
}

void pp_item_iter__init(struct pp_item_iter *it, const void *payload, size_t len)
{
	it->p = payload;
	it->len = len;
	it->off = 0;
	it->bad = 0;
}

/**
 * pp_item_iter__next() - the next item of a metadata payload.
 * Return: 1 with @item filled, 0 at the end or when an item is malformed
 * (it->bad set): a size below 8, not a multiple of 8, or past the payload.
 */
int pp_item_iter__next(struct pp_item_iter *it, struct pp_item *item)
{
	uint32_t size;

	if (it->bad || it->len - it->off < sizeof(struct pp_item_header))
		return 0;
	size = pp_get_le32(it->p + it->off);
	if (size < 8 || size % 8 || size > it->len - it->off) {
		it->bad = 1;
		return 0;
	}
	item->kind = pp_get_le16(it->p + it->off + 4);
	item->body = it->p + it->off + 8;
	item->size = size - 8;
	it->off += size;
	return 1;
}

void pp_cur__init(struct pp_cur *c, const void *p, size_t len)
{
	c->p = p;
	c->len = len;
	c->off = 0;
	c->bad = 0;
}

static int cur_need(struct pp_cur *c, size_t n)
{
	if (c->bad || n > c->len - c->off) {
		c->bad = 1;
		return -1;
	}
	return 0;
}

int pp_cur__u8(struct pp_cur *c, uint8_t *v)
{
	if (cur_need(c, 1))
		return -1;
	*v = c->p[c->off++];
	return 0;
}

int pp_cur__u16(struct pp_cur *c, uint16_t *v)
{
	if (cur_need(c, 2))
		return -1;
	*v = pp_get_le16(c->p + c->off);
	c->off += 2;
	return 0;
}

int pp_cur__u32(struct pp_cur *c, uint32_t *v)
{
	if (cur_need(c, 4))
		return -1;
	*v = pp_get_le32(c->p + c->off);
	c->off += 4;
	return 0;
}

int pp_cur__u64(struct pp_cur *c, uint64_t *v)
{
	if (cur_need(c, 8))
		return -1;
	*v = pp_get_le64(c->p + c->off);
	c->off += 8;
	return 0;
}

int pp_cur__bytes(struct pp_cur *c, const uint8_t **v, size_t n)
{
	if (cur_need(c, n))
		return -1;
	*v = c->p + c->off;
	c->off += n;
	return 0;
}

int pp_cur__str(struct pp_cur *c, const char **s)
{
	const uint8_t *nul;

	if (c->bad)
		return -1;
	nul = memchr(c->p + c->off, 0, c->len - c->off);
	if (!nul) {
		c->bad = 1;
		return -1;
	}
	*s = (const char *)c->p + c->off;
	c->off = (size_t)(nul - c->p) + 1;
	return 0;
}

int pp_cur__align(struct pp_cur *c, size_t a)
{
	size_t n = (a - c->off % a) % a;

	if (cur_need(c, n))
		return -1;
	c->off += n;
	return 0;
}

/**
 * pp_machine__get() - value of @key in a MACHINE payload of key\0value\0 pairs.
 * Return: the value (points into @payload), or NULL.
 */
const char *pp_machine__get(const void *payload, size_t len, const char *key)
{
	struct pp_cur c;
	const char *k, *v;

	pp_cur__init(&c, payload, len);
	while (c.off < c.len) {
		if (pp_cur__str(&c, &k) || pp_cur__str(&c, &v))
			return NULL;
		if (!strcmp(k, key))
			return v;
	}
	return NULL;
}

/** pp_machine__put() - append a key/value pair to a MACHINE payload. */
int pp_machine__put(struct pp_buf *b, const char *key, const char *value)
{
	pp_buf__append_str(b, key);
	return pp_buf__append_str(b, value ? value : "");
}

void pp_rec_iter__init(struct pp_rec_iter *it, const void *payload, size_t len)
{
	it->p = payload;
	it->len = len;
	it->off = 0;
	it->bad = 0;
}

/**
 * pp_rec_iter__next() - the next perf record of a DATA payload.
 * Return: 1 with @rec, 0 at the end or on a record whose size is below 8 or
 * runs past the payload (it->bad set).
 */
int pp_rec_iter__next(struct pp_rec_iter *it, struct pp_rec *rec)
{
	const uint8_t *p;
	uint16_t size;

	if (it->bad || it->off >= it->len)
		return 0;
	if (it->len - it->off < 8) {
		it->bad = 1;
		return 0;
	}
	p = it->p + it->off;
	memcpy(&size, p + 6, 2);	/* producer order == host order, checked at open */
	if (size < 8 || size > it->len - it->off) {
		it->bad = 1;
		return 0;
	}
	memcpy(&rec->type, p, 4);
	memcpy(&rec->misc, p + 4, 2);
	rec->size = size;
	rec->data = p;
	it->off += size;
	return 1;
}

/** pp_file_header__encode() - the 64 on-disk bytes of @h, CRC included. */
void pp_file_header__encode(const struct pp_file_header *h, uint8_t out[64])
{
	memset(out, 0, PP_FH_SIZE);
	memcpy(out, PP_FILE_MAGIC, 8);
	pp_put_le16(out + 8, h->major);
	pp_put_le16(out + 10, h->minor);
	out[12] = h->byte_order;
	out[13] = h->word_size;
	pp_put_le16(out + 14, PP_FH_SIZE);
	pp_put_le32(out + 16, h->flags);
	pp_put_le32(out + 20, h->chunk_size);
	pp_put_le64(out + 24, h->created_ns);
	memcpy(out + 32, h->file_id, 16);
	pp_put_le32(out + PP_FH_CRC_OFF, pp_crc32c(0, out, PP_FH_CRC_OFF));
}

/**
 * pp_file_header__decode() - parse and check a file header.
 * Return: 0; -EINVAL if the magic is wrong; -EPROTONOSUPPORT for another
 * major version; -EBADMSG if the CRC does not match (@h is filled anyway).
 */
int pp_file_header__decode(const uint8_t in[64], struct pp_file_header *h)
{
	uint32_t crc;

	memset(h, 0, sizeof(*h));
	if (memcmp(in, PP_FILE_MAGIC, 8))
		return -EINVAL;
	memcpy(h->magic, in, 8);
	h->major = pp_get_le16(in + 8);
	h->minor = pp_get_le16(in + 10);
	h->byte_order = in[12];
	h->word_size = in[13];
	h->header_size = pp_get_le16(in + 14);
	h->flags = pp_get_le32(in + 16);
	h->chunk_size = pp_get_le32(in + 20);
	h->created_ns = pp_get_le64(in + 24);
	memcpy(h->file_id, in + 32, 16);
	h->crc = pp_get_le32(in + PP_FH_CRC_OFF);
	crc = pp_crc32c(0, in, PP_FH_CRC_OFF);
	if (crc != h->crc)
		return -EBADMSG;
	if (h->major != PP_FORMAT_MAJOR)
		return -EPROTONOSUPPORT;
	return 0;
}

/** pp_chunk_header__encode() - the 56 on-disk bytes of @h, with @h's CRCs as given. */
void pp_chunk_header__encode(const struct pp_chunk_header *h, uint8_t out[56])
{
	pp_put_le32(out, PP_CHUNK_MAGIC);
	pp_put_le16(out + 4, h->type);
	pp_put_le16(out + 6, h->flags);
	out[8] = h->codec;
	out[9] = h->encoding;
	pp_put_le16(out + 10, 0);
	pp_put_le32(out + 12, h->stream);
	pp_put_le32(out + 16, h->stored_size);
	pp_put_le32(out + 20, h->raw_size);
	pp_put_le64(out + 24, h->seq);
	pp_put_le64(out + 32, h->first_ts);
	pp_put_le64(out + 40, h->last_ts);
	pp_put_le32(out + 48, h->payload_crc);
	pp_put_le32(out + 52, h->header_crc);
}

/**
 * pp_chunk_header__decode() - parse and check a chunk header.
 * Return: 0; -EINVAL if the magic is wrong; -EBADMSG if the header CRC does
 * not match or a size exceeds the caps (stored > PP_CHUNK_MAX_STORED,
 * raw > PP_CHUNK_MAX_RAW).
 */
int pp_chunk_header__decode(const uint8_t in[56], struct pp_chunk_header *h)
{
	h->magic = pp_get_le32(in);
	if (h->magic != PP_CHUNK_MAGIC)
		return -EINVAL;
	h->type = pp_get_le16(in + 4);
	h->flags = pp_get_le16(in + 6);
	h->codec = in[8];
	h->encoding = in[9];
	h->reserved = pp_get_le16(in + 10);
	h->stream = pp_get_le32(in + 12);
	h->stored_size = pp_get_le32(in + 16);
	h->raw_size = pp_get_le32(in + 20);
	h->seq = pp_get_le64(in + 24);
	h->first_ts = pp_get_le64(in + 32);
	h->last_ts = pp_get_le64(in + 40);
	h->payload_crc = pp_get_le32(in + 48);
	h->header_crc = pp_get_le32(in + 52);
	if (pp_crc32c(0, in, PP_CH_OFF_HEADER_CRC) != h->header_crc)
		return -EBADMSG;
	if (h->stored_size > PP_CHUNK_MAX_STORED || h->raw_size > PP_CHUNK_MAX_RAW)
		return -EBADMSG;
	return 0;
}
