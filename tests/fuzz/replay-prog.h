/* SPDX-License-Identifier: MIT */
/*
 * The input language of fuzz-replay (tests/fuzz/fuzz-replay.c): a byte
 * program that describes a trace chunk by chunk, so a mutation changes what
 * a chunk holds, never whether it passes the reader's checks (the builder
 * frames items and records and the writer computes every CRC).
 *
 *   u8 options: bits 0-1 codec (0 none, 1 lz4, 2 zstd, 3 lz4),
 *               bit 2 closed (index and footer), bits 3-7 index_every - 1
 *   then chunks until the end: u8 kind (% PROG_KINDS), u8 stream
 *   (0xff: META), u32 len (LE), u64 first_ts, u64 last_ts, len bytes
 *
 * Bodies: MACHINE as key\0value\0 pairs; item chunks as pp items (those
 * after a malformed one dropped); DATA as perf records (the same).
 *
 * The DATA kinds of the other encodings reach their decoders through the
 * real encoders: DATA_CACHED and DATA_FIELDS hold perf records, which the
 * builder encodes (pp_reccache_encode, pp_fieldcode_encode) with the time
 * layout the ATTRS items before them give; DATA_FTRACE holds an encoding 3
 * payload as pp-record --ftrace stores it (payload header, type table,
 * pages: the kernel is its encoder), stream PP_STREAM_FTRACE | stream.
 * A PATCH right after an encoded DATA chunk changes its encoded payload
 * before it is framed: entries of u32 offset (modulo the payload's size),
 * u32 width (1 << (w & 3) bytes), u64 value (LE). So a mutation can say
 * what an attacker who knows the encoding writes, and still pass the CRCs.
 */
#ifndef PP_FUZZ_REPLAY_PROG_H
#define PP_FUZZ_REPLAY_PROG_H

#include <stdint.h>
#include "pp/format.h"

#define PROG_CHUNK_HDR	22
#define PROG_PATCH	0	/* not a chunk type: edits the encoded DATA chunk before it */
#define PROG_PATCH_SIZE	16

struct prog_kind {
	uint16_t type;		/* enum pp_chunk_type, or PROG_PATCH */
	uint8_t encoding;	/* DATA: enum pp_data_encoding */
};

static const struct prog_kind prog_kinds[] = {
	{ PP_CHUNK_MACHINE, 0 }, { PP_CHUNK_ATTRS, 0 }, { PP_CHUNK_FORMATS, 0 },
	{ PP_CHUNK_TASKS, 0 }, { PP_CHUNK_MMAPS, 0 }, { PP_CHUNK_KSYMS, 0 },
	{ PP_CHUNK_USYMS, 0 }, { PP_CHUNK_DATA, PP_DATA_PLAIN }, { PP_CHUNK_LOST, 0 },
	{ PP_CHUNK_BPF_AGG, 0 }, { PP_CHUNK_DATA, PP_DATA_CACHED },
	{ PP_CHUNK_DATA, PP_DATA_FIELDS }, { PP_CHUNK_DATA, PP_DATA_FTRACE },
	{ PROG_PATCH, 0 },
};
#define PROG_KINDS	(sizeof(prog_kinds) / sizeof(prog_kinds[0]))

/* The kind of a program chunk header's first byte. */
static inline const struct prog_kind *prog_kind(uint8_t k)
{
	return &prog_kinds[k % PROG_KINDS];
}

#endif
