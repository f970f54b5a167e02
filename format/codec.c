// SPDX-License-Identifier: MIT
/* Payload codecs: none, one LZ4 block, one zstd frame. */
#include <errno.h>
#include <string.h>
#include <lz4.h>
#include <zstd.h>
#include "format-internal.h"

size_t pp_codec_bound(uint8_t codec, size_t len)
{
	switch (codec) {
	case PP_CODEC_LZ4:
		return (size_t)LZ4_compressBound((int)len);
	case PP_CODEC_ZSTD:
		return ZSTD_compressBound(len);
	default:
		return len;
	}
}

size_t pp_codec_compress(uint8_t codec, int level, const void *src, size_t len,
			 void *dst, size_t cap)
{
	switch (codec) {
	case PP_CODEC_LZ4: {
		int n = LZ4_compress_default(src, dst, (int)len, (int)cap);

		return n > 0 ? (size_t)n : 0;
	}
	case PP_CODEC_ZSTD: {
		size_t n = ZSTD_compress(dst, cap, src, len, level ? level : 3);

		return ZSTD_isError(n) ? 0 : n;
	}
	default:
		if (len > cap)
			return 0;
		memcpy(dst, src, len);
		return len;
	}
}

int pp_codec_decompress(uint8_t codec, const void *src, size_t stored,
			void *dst, size_t raw)
{
	switch (codec) {
	case PP_CODEC_NONE:
		if (stored != raw)
			return -EBADMSG;
		memcpy(dst, src, raw);
		return 0;
	case PP_CODEC_LZ4: {
		int n = LZ4_decompress_safe(src, dst, (int)stored, (int)raw);

		return n >= 0 && (size_t)n == raw ? 0 : -EBADMSG;
	}
	case PP_CODEC_ZSTD: {
		unsigned long long fsz = ZSTD_getFrameContentSize(src, stored);
		size_t n;

		if (fsz != raw)
			return -EBADMSG;
		n = ZSTD_decompress(dst, raw, src, stored);
		return !ZSTD_isError(n) && n == raw ? 0 : -EBADMSG;
	}
	default:
		return -EPROTONOSUPPORT;
	}
}
