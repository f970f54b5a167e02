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
 */
#ifndef PP_FUZZ_REPLAY_PROG_H
#define PP_FUZZ_REPLAY_PROG_H

#include <stdint.h>
#include "pp/format.h"

#define PROG_CHUNK_HDR	22

static const uint16_t prog_kinds[] = {
	PP_CHUNK_MACHINE, PP_CHUNK_ATTRS, PP_CHUNK_FORMATS, PP_CHUNK_TASKS, PP_CHUNK_MMAPS,
	PP_CHUNK_KSYMS, PP_CHUNK_USYMS, PP_CHUNK_DATA, PP_CHUNK_LOST, PP_CHUNK_BPF_AGG,
};
#define PROG_KINDS	(sizeof(prog_kinds) / sizeof(prog_kinds[0]))

#endif
