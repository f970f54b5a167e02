// SPDX-License-Identifier: MIT
/* Payload codecs: none, one LZ4 block, one zstd frame. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <lz4.h>
#include <zstd.h>
#include <zstd_errors.h>
#include "format-internal.h"

/*
 * zstd contexts, one pair per thread, kept between chunks: ZSTD_compress()
 * and ZSTD_decompress() allocate and clear a fresh context for every call
 * (a megabyte at level 3), which cost more than compressing a small chunk.
 */
struct zctx {
	ZSTD_CCtx *c;
	ZSTD_DCtx *d;
};

static pthread_key_t zkey;
static pthread_once_t zonce = PTHREAD_ONCE_INIT;
static int zkey_ok;

static void zctx_free(void *p)
{
	struct zctx *z = p;

	ZSTD_freeCCtx(z->c);
	ZSTD_freeDCtx(z->d);
	free(z);
}

static void zkey_init(void)
{
	zkey_ok = !pthread_key_create(&zkey, zctx_free);
}

/* This thread's contexts, or NULL (then the one-shot calls are used). */
static struct zctx *zctx_get(void)
{
	struct zctx *z;

	pthread_once(&zonce, zkey_init);
	if (!zkey_ok)
		return NULL;
	z = pthread_getspecific(zkey);
	if (!z) {
		z = calloc(1, sizeof(*z));
		if (!z || pthread_setspecific(zkey, z)) {
			free(z);
			return NULL;
		}
	}
	return z;
}

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
		struct zctx *z = zctx_get();
		size_t n;

		if (z && !z->c)
			z->c = ZSTD_createCCtx();
		if (z && z->c)
			n = ZSTD_compressCCtx(z->c, dst, cap, src, len, level ? level : 3);
		else
			n = ZSTD_compress(dst, cap, src, len, level ? level : 3);
		return ZSTD_isError(n) ? 0 : n;
	}
	default:
		if (len > cap)
			return 0;
		memcpy(dst, src, len);
		return len;
	}
}

size_t pp_codec_compress_cuts(uint8_t codec, int level, const void *src, size_t len,
			      void *dst, size_t cap, const size_t *cuts, int nr_cuts)
{
	ZSTD_outBuffer ob = { dst, cap, 0 };
	struct zctx *z;
	size_t from = 0;

	if (codec != PP_CODEC_ZSTD || !nr_cuts)
		return pp_codec_compress(codec, level, src, len, dst, cap);
	z = zctx_get();
	if (z && !z->c)
		z->c = ZSTD_createCCtx();
	if (!z || !z->c)
		return pp_codec_compress(codec, level, src, len, dst, cap);
	ZSTD_CCtx_reset(z->c, ZSTD_reset_session_and_parameters);
	/* The pledged size puts raw_size in the frame header (spec 4.3). */
	if (ZSTD_isError(ZSTD_CCtx_setParameter(z->c, ZSTD_c_compressionLevel, level ? level : 3)) ||
	    ZSTD_isError(ZSTD_CCtx_setPledgedSrcSize(z->c, len)))
		return 0;
	for (int i = 0; i <= nr_cuts; i++) {
		size_t to = i < nr_cuts ? cuts[i] : len;
		ZSTD_EndDirective end = i < nr_cuts ? ZSTD_e_flush : ZSTD_e_end;
		ZSTD_inBuffer ib;
		size_t left;

		if (to < from || to > len)
			return 0;
		ib = (ZSTD_inBuffer){ (const uint8_t *)src + from, to - from, 0 };
		do {
			left = ZSTD_compressStream2(z->c, &ob, &ib, end);
			if (ZSTD_isError(left))
				return 0;
			/* Output full with input or a flush left: it does not fit. */
			if (left && ob.pos == ob.size)
				return 0;
		} while (left || ib.pos < ib.size);
		from = to;
	}
	return ob.pos;
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
		struct zctx *z;
		size_t n;

		if (fsz != raw)
			return -EBADMSG;
		z = zctx_get();
		if (z && !z->d)
			z->d = ZSTD_createDCtx();
		if (z && z->d)
			n = ZSTD_decompressDCtx(z->d, dst, raw, src, stored);
		else
			n = ZSTD_decompress(dst, raw, src, stored);
		if (ZSTD_isError(n) && ZSTD_getErrorCode(n) == ZSTD_error_memory_allocation)
			return -ENOMEM;	/* the host's fault, not the file's */
		return !ZSTD_isError(n) && n == raw ? 0 : -EBADMSG;
	}
	default:
		return -EPROTONOSUPPORT;
	}
}
