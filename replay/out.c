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

#define PP_OUT_CAP	(1u << 16)

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
 * pp_out__reserve_slow() - room for @n bytes at the end of the buffer.
 * @o: output; @n: bytes (at most the buffer size).
 * Return: where to write; the caller adds what it wrote to o->len. On an
 * error a scratch area is returned so callers need not test.
 */
char *pp_out__reserve_slow(struct pp_out *o, size_t n)
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
 * pp_out__write_slow() - append @n bytes: the path for a full buffer or a
 * large write (pp_out__write() in replay.h handles the common case inline).
 * @o: output; @p: bytes; @n: count.
 */
void pp_out__write_slow(struct pp_out *o, const void *p, size_t n)
{
	char *d;

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
	d = pp_out__reserve(o, n);
	if (o->error || !d)
		return;
	memcpy(d, p, n);
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

static const char dec_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/**
 * pp_dec_len() - the number of decimal digits of @v: comparisons, not a
 * division per digit.
 */
static inline size_t dec_len(uint64_t v)
{
	size_t n = 1;

	for (;;) {
		if (v < 10)
			return n;
		if (v < 100)
			return n + 1;
		if (v < 1000)
			return n + 2;
		if (v < 10000)
			return n + 3;
		v /= 10000;
		n += 4;
	}
}

/**
 * pp_dec_put() - write the pp_dec_len(@v) digits of @v so they end at @end.
 *
 * Backwards two at a time, straight into the destination (a scratch copy's
 * 2-byte stores read back as wider loads stalled store forwarding, once the
 * hottest spot of `trace`); 32-bit divisions once @v fits them.
 */
static inline void dec_put(char *end, uint64_t v)
{
	uint32_t w;

	while (v > UINT32_MAX) {
		unsigned int r = (unsigned int)(v % 100);

		v /= 100;
		end -= 2;
		end[0] = dec_pairs[2 * r];
		end[1] = dec_pairs[2 * r + 1];
	}
	w = (uint32_t)v;
	while (w >= 100) {
		uint32_t r = w % 100;

		w /= 100;
		end -= 2;
		end[0] = dec_pairs[2 * r];
		end[1] = dec_pairs[2 * r + 1];
	}
	if (w >= 10) {
		end[-2] = dec_pairs[2 * w];
		end[-1] = dec_pairs[2 * w + 1];
	} else {
		end[-1] = (char)('0' + w);
	}
}

size_t pp_dec_len(uint64_t v)
{
	return dec_len(v);
}

void pp_dec_put(char *end, uint64_t v)
{
	dec_put(end, v);
}

/**
 * pp_out__u64() - append a decimal unsigned number, without printf.
 * @o: output; @v: value.
 */
void pp_out__u64(struct pp_out *o, uint64_t v)
{
	size_t n = dec_len(v);
	char *d = pp_out__reserve(o, n);

	if (!d)
		return;
	o->len += n;
	dec_put(d + n, v);
}

/**
 * pp_dec_put6() - the six digits of @v (below 1,000,000, zero-padded) at @d:
 * three pairs, for the microseconds every `trace` line prints twice.
 */
void pp_dec_put6(char *d, uint32_t v)
{
	uint32_t hi = v / 10000 % 100, lo = v % 10000, mid = lo / 100;

	lo %= 100;
	memcpy(d, dec_pairs + 2 * hi, 2);
	memcpy(d + 2, dec_pairs + 2 * mid, 2);
	memcpy(d + 4, dec_pairs + 2 * lo, 2);
}

/**
 * pp_out__u64_pad() - append @v in decimal, right-aligned in @width
 * characters of @pad (' ' as "%7u", '0' as "%06u"); wider numbers whole.
 * @o: output; @v: value; @width: at most 64; @pad: fill character.
 */
void pp_out__u64_pad(struct pp_out *o, uint64_t v, size_t width, char pad)
{
	size_t n = dec_len(v), total = n < width ? width : n;
	char *d = pp_out__reserve(o, total);

	if (!d)
		return;
	o->len += total;
	for (size_t i = 0; i < total - n; i++)	/* a few bytes: no memset call */
		d[i] = pad;
	dec_put(d + total, v);
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

/*
 * Length of the well-formed UTF-8 sequence at @s (RFC 3629: no overlongs,
 * no surrogates, nothing above U+10FFFF), 0 when the byte at @s starts none.
 */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char c = s[0];
	size_t n;
	unsigned char lo = 0x80, hi = 0xbf;

	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++) {
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	}
	return n;
}

/**
 * pp_out__json_str() - append @s as a quoted JSON string.
 * @o: output; @s: string (NULL gives null).
 *
 * JSON text is UTF-8 (RFC 8259), and a comm, a path or a string field is
 * any bytes: quotes, backslashes and control bytes are escaped, well-formed
 * UTF-8 passes through, and each byte that is not part of one becomes
 * U+FFFD, so a parser never meets an invalid document.
 */
void pp_out__json_str(struct pp_out *o, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	if (!s) {
		pp_out__puts(o, "null");
		return;
	}
	pp_out__putc(o, '"');
	while (*p) {
		unsigned char c = *p;
		size_t n;

		if (c == '"' || c == '\\') {
			pp_out__putc(o, '\\');
			pp_out__putc(o, (char)c);
		} else if (c == '\n') {
			pp_out__puts(o, "\\n");
		} else if (c == '\t') {
			pp_out__puts(o, "\\t");
		} else if (c < 0x20) {
			pp_out__printf(o, "\\u%04x", c);
		} else if (c < 0x80) {
			pp_out__putc(o, (char)c);
		} else if ((n = utf8_len(p))) {
			pp_out__write(o, p, n);
			p += n;
			continue;
		} else {
			pp_out__puts(o, "\\ufffd");
		}
		p++;
	}
	pp_out__putc(o, '"');
}

/*
 * Bytes at @p that a terminal shows rather than obeys: 1 for printable
 * ASCII, the sequence's length for well-formed UTF-8 other than the C1
 * controls (U+0080..U+009F), 1 for a stray byte 0xA0..0xFF (shown as a
 * replacement character; JSON has its own rule for it); 0 for a control:
 * C0, DEL, or a C1 control, encoded or as the bare byte 0x80..0x9F.
 */
static inline size_t text_char(const unsigned char *p)
{
	size_t n;

	if (*p >= 0x20 && *p < 0x7f)
		return 1;
	if (*p < 0x80)
		return 0;
	n = utf8_len(p);
	if (!n)
		return *p >= 0xa0;
	return n == 2 && p[0] == 0xc2 && p[1] < 0xa0 ? 0 : n;
}

/**
 * pp_text_escape() - a string from a file, made safe for a terminal.
 * @dst, @cap: receives it, NUL-terminated (cap >= 1); cut before a
 * character (or an escape) that does not fit whole.
 * @src: the string.
 *
 * Comms, event, symbol, module and host names come from files written by
 * others: a control byte, DEL or a C1 control (as UTF-8 or a bare byte)
 * becomes `\xNN`; the rest is copied as it is.
 * Return: the length written.
 */
size_t pp_text_escape(char *dst, size_t cap, const char *src)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)src;
	size_t o = 0;

	while (*p) {
		size_t n = text_char(p);

		if (n) {
			if (o + n >= cap)
				break;
			memcpy(dst + o, p, n);
			p += n;
			o += n;
			continue;
		}
		if (o + 4 >= cap)
			break;
		dst[o++] = '\\';
		dst[o++] = 'x';
		dst[o++] = hex[*p >> 4];
		dst[o++] = hex[*p & 15];
		p++;
	}
	dst[o] = '\0';
	return o;
}

/**
 * pp_text_size() - the bytes pp_text_escape() needs for all of @src,
 * its NUL included; strlen(@src) + 1 when @src needs no escape.
 */
size_t pp_text_size(const char *src)
{
	const unsigned char *p = (const unsigned char *)src;
	size_t size = 1;

	while (*p) {
		size_t n = text_char(p);

		size += n ? n : 4;
		p += n ? n : 1;
	}
	return size;
}

/**
 * pp_out__text() - append @s, a string from a file, escaped as
 * pp_text_escape() does. A clean string (the usual) is one scan and a copy.
 * @o: output; @s: string.
 */
void pp_out__text(struct pp_out *o, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	char buf[256];

	while (*p >= 0x20 && *p < 0x7f)
		p++;
	if (!*p) {
		pp_out__write(o, s, (size_t)(p - (const unsigned char *)s));
		return;
	}
	pp_out__write(o, s, (size_t)(p - (const unsigned char *)s));
	while (*p) {
		size_t n = pp_text_escape(buf, sizeof(buf), (const char *)p);

		pp_out__write(o, buf, n);
		/* advance by the source bytes that produced @n output bytes */
		for (size_t w = 0; w < n;) {
			size_t c = text_char(p);

			w += c ? c : 4;
			p += c ? c : 1;
		}
	}
}

/**
 * pp_out__text_n() - pp_out__text() of @n bytes, NUL or not.
 * @o: output; @s, @n: the bytes.
 */
void pp_out__text_n(struct pp_out *o, const char *s, size_t n)
{
	char tmp[512];
	size_t i = 0;

	while (i < n && (unsigned char)s[i] >= 0x20 && (unsigned char)s[i] < 0x7f)
		i++;
	pp_out__write(o, s, i);	/* the usual case: all of it, clean */
	while (i < n) {
		size_t k = n - i < sizeof(tmp) - 1 ? n - i : sizeof(tmp) - 1;

		memcpy(tmp, s + i, k);
		tmp[k] = '\0';
		pp_out__text(o, tmp);
		i += k;
	}
}
