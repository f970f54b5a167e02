// SPDX-License-Identifier: MIT
/*
 * DATA encoding 1, "record delta" (spec 5.8): each record body is stored as
 * the word-wise difference from the last record of the same type and size
 * that fell in its slot. Consecutive samples of one event differ in a few
 * fields (time, pids), so most encoded bytes become zero.
 */
#include <errno.h>
#include <string.h>
#include "format-internal.h"

#define DELTA_SLOTS 64

static unsigned slot_of(uint32_t type, uint16_t size)
{
	return (type * 31u + size) % DELTA_SLOTS;
}

/* dst = a - b (sign = -1) or a + b (sign = +1), word-wise then byte-wise. */
static void combine(uint8_t *dst, const uint8_t *a, const uint8_t *b, size_t n, int sign)
{
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t x, y;

		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		x = sign > 0 ? x + y : x - y;
		memcpy(dst + i, &x, 8);
	}
	for (; i < n; i++)
		dst[i] = (uint8_t)(sign > 0 ? a[i] + b[i] : a[i] - b[i]);
}

static int rec_at(const uint8_t *p, size_t len, size_t off, uint32_t *type, uint16_t *size)
{
	if (len - off < 8)
		return -1;
	memcpy(type, p + off, 4);
	memcpy(size, p + off + 6, 2);
	if (*size < 8 || *size > len - off)
		return -1;
	return 0;
}

/**
 * pp_delta_encode() - encode plain records @src into @dst (same length).
 * Bytes after a malformed record are copied unchanged.
 */
void pp_delta_encode(const uint8_t *src, uint8_t *dst, size_t len)
{
	const uint8_t *ref[DELTA_SLOTS] = { 0 };
	size_t off = 0;

	while (off < len) {
		uint32_t type;
		uint16_t size;
		unsigned s;

		if (rec_at(src, len, off, &type, &size)) {
			memcpy(dst + off, src + off, len - off);
			return;
		}
		s = slot_of(type, size);
		memcpy(dst + off, src + off, 8);
		if (ref[s] && !memcmp(ref[s], src + off, 4) && !memcmp(ref[s] + 6, src + off + 6, 2))
			combine(dst + off + 8, src + off + 8, ref[s] + 8, size - 8u, -1);
		else
			memcpy(dst + off + 8, src + off + 8, size - 8u);
		ref[s] = src + off;
		off += size;
	}
}

/**
 * pp_delta_decode() - undo pp_delta_encode() in place.
 * Return: 0, or -EBADMSG if a record size runs past the payload (the bytes
 * before it are decoded).
 */
int pp_delta_decode(uint8_t *buf, size_t len)
{
	const uint8_t *ref[DELTA_SLOTS] = { 0 };
	size_t off = 0;

	while (off < len) {
		uint32_t type;
		uint16_t size;
		unsigned s;

		if (rec_at(buf, len, off, &type, &size))
			return -EBADMSG;
		s = slot_of(type, size);
		if (ref[s] && !memcmp(ref[s], buf + off, 4) && !memcmp(ref[s] + 6, buf + off + 6, 2))
			combine(buf + off + 8, buf + off + 8, ref[s] + 8, size - 8u, +1);
		ref[s] = buf + off;
		off += size;
	}
	return 0;
}
