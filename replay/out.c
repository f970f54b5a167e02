// SPDX-License-Identifier: MIT
/*
 * Buffered output for analyzers: one big buffer flushed with write(2), so
 * printing an event costs no syscall and no allocation.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "pp/replay.h"

#define PP_OUT_CAP	(1u << 20)

/**
 * pp_out__init() - set up buffered output on @fd.
 * @o: output; @fd: descriptor (not closed by pp_out__exit()).
 */
void pp_out__init(struct pp_out *o, int fd)
{
	memset(o, 0, sizeof(*o));
	o->fd = fd;
	o->buf = malloc(PP_OUT_CAP);
	o->cap = o->buf ? PP_OUT_CAP : 0;
	if (!o->buf)
		o->error = -ENOMEM;
}

/**
 * pp_out__flush() - write the buffered bytes.
 * @o: output.
 * Return: 0 or -errno (sticky).
 */
int pp_out__flush(struct pp_out *o)
{
	size_t off = 0;

	while (off < o->len && !o->error) {
		ssize_t n = write(o->fd, o->buf + off, o->len - off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			o->error = -errno;
			break;
		}
		off += (size_t)n;
	}
	o->len = 0;
	return o->error;
}

/**
 * pp_out__exit() - flush and free the buffer.
 * @o: output.
 */
void pp_out__exit(struct pp_out *o)
{
	if (o->buf)
		pp_out__flush(o);
	free(o->buf);
	o->buf = NULL;
	o->cap = 0;
}

/**
 * pp_out__reserve() - room for @n bytes at the end of the buffer.
 * @o: output; @n: bytes (at most the buffer size).
 * Return: where to write; the caller adds what it wrote to o->len. On an
 * error a scratch area is returned so callers need not test.
 */
char *pp_out__reserve(struct pp_out *o, size_t n)
{
	static char scratch[4096];

	if (o->len + n > o->cap)
		pp_out__flush(o);
	if (o->error || n > o->cap) {
		o->len = 0;
		return n <= sizeof(scratch) ? scratch : NULL;
	}
	return o->buf + o->len;
}

/**
 * pp_out__write() - append @n bytes.
 * @o: output; @p: bytes; @n: count.
 */
void pp_out__write(struct pp_out *o, const void *p, size_t n)
{
	if (n > o->cap / 2) {
		pp_out__flush(o);
		while (n && !o->error) {
			ssize_t w = write(o->fd, p, n);

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				o->error = -errno;
				break;
			}
			p = (const char *)p + w;
			n -= (size_t)w;
		}
		return;
	}
	char *d = pp_out__reserve(o, n);

	if (o->error || !d)
		return;
	if (n <= 32) {
		/* Most writes are a few bytes: fixed-size moves beat a memcpy call. */
		const char *sp = p;
		size_t k = n;

		while (k >= 8) {
			uint64_t x;

			memcpy(&x, sp, 8);
			memcpy(d, &x, 8);
			d += 8;
			sp += 8;
			k -= 8;
		}
		if (k & 4) {
			uint32_t x;

			memcpy(&x, sp, 4);
			memcpy(d, &x, 4);
			d += 4;
			sp += 4;
		}
		if (k & 2) {
			uint16_t x;

			memcpy(&x, sp, 2);
			memcpy(d, &x, 2);
			d += 2;
			sp += 2;
		}
		if (k & 1)
			*d = *sp;
	} else {
		memcpy(d, p, n);
	}
	o->len += n;
}

/**
 * pp_out__puts() - append a string.
 * @o: output; @s: string.
 */
void pp_out__puts(struct pp_out *o, const char *s)
{
	pp_out__write(o, s, strlen(s));
}

/**
 * pp_out__putc() - append a character.
 * @o: output; @c: character.
 */
void pp_out__putc(struct pp_out *o, char c)
{
	if (o->len < o->cap) {
		o->buf[o->len++] = c;
		return;
	}
	pp_out__write(o, &c, 1);
}

/**
 * pp_out__printf() - append formatted text.
 * @o: output; @fmt: printf format.
 */
void pp_out__printf(struct pp_out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->cap - o->len < 512)
		pp_out__flush(o);
	if (o->error)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < o->cap - o->len) {
		o->len += (size_t)n;
		return;
	}
	/* Longer than what was left: flush and retry in a heap buffer. */
	char *tmp = malloc((size_t)n + 1);

	if (!tmp)
		return;
	va_start(ap, fmt);
	vsnprintf(tmp, (size_t)n + 1, fmt, ap);
	va_end(ap);
	pp_out__write(o, tmp, (size_t)n);
	free(tmp);
}

/**
 * pp_out__u64() - append a decimal unsigned number, without printf.
 * @o: output; @v: value.
 */
void pp_out__u64(struct pp_out *o, uint64_t v)
{
	size_t n = 1;
	char *d;

	for (uint64_t t = v; t >= 10; t /= 10)
		n++;
	d = pp_out__reserve(o, n);
	if (!d)
		return;
	o->len += n;
	do {
		d[--n] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
}

/**
 * pp_out__i64() - append a decimal signed number.
 * @o: output; @v: value.
 */
void pp_out__i64(struct pp_out *o, int64_t v)
{
	if (v < 0) {
		pp_out__putc(o, '-');
		pp_out__u64(o, (uint64_t)0 - (uint64_t)v);
		return;
	}
	pp_out__u64(o, (uint64_t)v);
}

/**
 * pp_out__json_str() - append @s as a quoted JSON string.
 * @o: output; @s: string (NULL gives null).
 */
void pp_out__json_str(struct pp_out *o, const char *s)
{
	if (!s) {
		pp_out__puts(o, "null");
		return;
	}
	pp_out__putc(o, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			pp_out__putc(o, '\\');
			pp_out__putc(o, (char)c);
		} else if (c < 0x20) {
			pp_out__printf(o, "\\u%04x", c);
		} else {
			pp_out__putc(o, (char)c);
		}
	}
	pp_out__putc(o, '"');
}
