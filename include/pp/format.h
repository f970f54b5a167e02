/* SPDX-License-Identifier: MIT */
/*
 * pp trace file, version 1: on-disk structures.
 *
 * This header mirrors spec/pp-trace-format.md byte for byte. Every multi-byte
 * integer in these structures is little-endian on disk, whatever the host.
 * Chunk payloads that carry raw perf records keep the producer's byte order,
 * which the file header records.
 */
#ifndef PP_FORMAT_H
#define PP_FORMAT_H

#include <stdint.h>

#define PP_FILE_MAGIC		"PPTRACE\0"	/* 8 bytes */
#define PP_FORMAT_MAJOR		1
#define PP_FORMAT_MINOR		0

#define PP_CHUNK_MAGIC		0x4b435050u	/* "PPCK" */
#define PP_CHUNK_END_MAGIC	0x454b4350u	/* "PCKE" */

/* Caps a reader enforces before allocating; a writer never exceeds them. */
#define PP_CHUNK_MAX_RAW	(16u << 20)	/* decompressed payload */
#define PP_CHUNK_MAX_STORED	(PP_CHUNK_MAX_RAW + PP_CHUNK_MAX_RAW / 255 + 64)

enum pp_byte_order {
	PP_ORDER_LITTLE = 1,
	PP_ORDER_BIG    = 2,
};

/* File header: 64 bytes at offset 0. */
struct pp_file_header {
	char     magic[8];		/* "PPTRACE\0" */
	uint16_t major;			/* 1: a reader refuses another major */
	uint16_t minor;			/* additions that old readers may ignore */
	uint8_t  byte_order;		/* enum pp_byte_order of the producer */
	uint8_t  word_size;		/* producer's sizeof(long): 4 or 8 */
	uint16_t header_size;		/* 64 */
	uint32_t flags;			/* none defined; readers ignore unknown bits */
	uint32_t chunk_size;		/* writer's target raw chunk size */
	uint64_t created_ns;		/* CLOCK_REALTIME at creation, ns */
	uint8_t  file_id[16];		/* random; repeated in the footer */
	uint8_t  reserved[12];		/* zero */
	uint32_t crc;			/* CRC32C of bytes 0..59 */
};
_Static_assert(sizeof(struct pp_file_header) == 64, "file header is 64 bytes");

/* Chunk header flags. */
#define PP_CHUNK_CRITICAL	0x0001u	/* a reader that does not know the type must stop */

enum pp_codec {
	PP_CODEC_NONE = 0,
	PP_CODEC_LZ4  = 1,		/* one LZ4 block (LZ4_compress_default) */
	PP_CODEC_ZSTD = 2,		/* one zstd frame (ZSTD_compress) */
};

/* Chunk header: 56 bytes, then stored_size payload bytes, then the trailer. */
struct pp_chunk_header {
	uint32_t magic;			/* PP_CHUNK_MAGIC */
	uint16_t type;			/* enum pp_chunk_type */
	uint16_t flags;			/* PP_CHUNK_CRITICAL ... */
	uint8_t  codec;			/* enum pp_codec */
	uint8_t  encoding;		/* type-specific payload encoding, 0 = plain */
	uint16_t reserved;		/* zero */
	uint32_t stream;		/* CPU number, or PP_STREAM_META */
	uint32_t stored_size;		/* payload bytes in the file */
	uint32_t raw_size;		/* payload bytes after decompression */
	uint64_t seq;			/* 0, 1, 2 ... in file order */
	uint64_t first_ts;		/* perf clock ns of the first record, 0 if none */
	uint64_t last_ts;		/* perf clock ns of the last record, 0 if none */
	uint32_t payload_crc;		/* CRC32C of the stored payload */
	uint32_t header_crc;		/* CRC32C of bytes 0..51 of this header */
};
_Static_assert(sizeof(struct pp_chunk_header) == 56, "chunk header is 56 bytes");

/* Chunk trailer: 8 bytes right after the payload. */
struct pp_chunk_trailer {
	uint32_t magic;			/* PP_CHUNK_END_MAGIC */
	uint32_t stored_size;		/* equal to the header's */
};
_Static_assert(sizeof(struct pp_chunk_trailer) == 8, "chunk trailer is 8 bytes");

#define PP_STREAM_META		0xffffffffu
#define PP_STREAM_FTRACE	0x80000000u	/* | CPU: a DATA stream of pp-record --ftrace */

enum pp_chunk_type {
	PP_CHUNK_MACHINE	= 0x0001,	/* key\0value\0 pairs */
	PP_CHUNK_ATTRS		= 0x0002,	/* perf_event_attr + ids + name items */
	PP_CHUNK_FORMATS	= 0x0003,	/* tracefs format texts */
	PP_CHUNK_TASKS		= 0x0004,	/* pid, tid, comm snapshot */
	PP_CHUNK_MMAPS		= 0x0005,	/* mappings with build-ids */
	PP_CHUNK_KSYMS		= 0x0006,	/* kernel symbols */
	PP_CHUNK_USYMS		= 0x0007,	/* user DSO function symbols */
	PP_CHUNK_DATA		= 0x0010,	/* perf records of one stream (critical) */
	PP_CHUNK_LOST		= 0x0011,	/* records the recorder itself lost */
	PP_CHUNK_BPF_AGG	= 0x0012,	/* in-kernel aggregates (offcpu, lock): spec/pp-bpf.md */
	PP_CHUNK_INDEX		= 0x0020,	/* chunk locations */
	PP_CHUNK_FOOTER		= 0x0021,	/* last chunk of a cleanly closed file */
};

/* DATA chunk encodings (chunk header byte 9). */
enum pp_data_encoding {
	PP_DATA_PLAIN = 0,		/* perf records as read from the ring */
	PP_DATA_CACHED = 1,		/* record cache, spec 5.8; the reader undoes it */
	PP_DATA_FIELDS = 2,		/* record cache with field-coded literals, spec 5.8 */
	PP_DATA_FTRACE = 3,		/* ftrace ring pages (pp/ftpages.h), spec 5.8 */
};

/*
 * Metadata item: every metadata chunk payload (all types but DATA and FOOTER)
 * is a sequence of items, each 8-byte aligned in the raw payload.
 */
struct pp_item_header {
	uint32_t size;			/* whole item incl. this header, multiple of 8 */
	uint16_t kind;			/* type-specific, 0 if unused */
	uint16_t flags;			/* zero */
};
_Static_assert(sizeof(struct pp_item_header) == 8, "item header is 8 bytes");

/* PP_CHUNK_ATTRS item body (kind 0). */
struct pp_attr_item {
	uint32_t attr_size;		/* bytes of perf_event_attr that follow */
	uint32_t nr_ids;		/* u64 sample ids after the attr */
	/* u8  attr[attr_size], zero-padded to 8 */
	/* u64 ids[nr_ids] */
	/* char name[] NUL-terminated, zero-padded to 8 */
};

/* PP_CHUNK_FORMATS item kinds. */
enum pp_format_kind {
	PP_FMT_HEADER_PAGE  = 1,	/* events/header_page */
	PP_FMT_EVENT        = 2,	/* events/SYS/NAME/format */
	PP_FMT_PRINTK       = 3,	/* printk_formats */
	PP_FMT_KALLSYMS     = 4,	/* reserved: kallsyms text for libtraceevent */
	PP_FMT_BTF          = 5,	/* BTF of a BPF output record: spec/pp-bpf.md 6 */
};
/* body: char system[] NUL, char name[] NUL, char text[] NUL, zero pad */

/* PP_CHUNK_TASKS item body (kind 0). */
struct pp_task_item {
	uint32_t pid;
	uint32_t tid;
	uint32_t ppid;
	uint32_t reserved;
	char     comm[16];
};

/* PP_CHUNK_MMAPS item body (kind 0). */
struct pp_mmap_item {
	uint32_t pid;
	uint32_t prot;
	uint64_t start;
	uint64_t len;
	uint64_t pgoff;
	uint8_t  build_id_size;		/* 0..20 */
	uint8_t  reserved[3];
	uint8_t  build_id[20];
	/* char filename[] NUL, zero pad */
};

/* PP_CHUNK_KSYMS item body: kind 0 = symbols of one module ("" = vmlinux). */
/*
 * char module[] NUL, zero pad to 8, then u32 nr, u32 0, then nr entries of
 * { u64 addr; u32 size; char type; char name[] NUL } packed (not aligned).
 */

/* PP_CHUNK_USYMS item body: kind 0 = symbols of one DSO. */
/*
 * u8 build_id_size, u8 source (PP_USYMS_SRC_*), u8[2] 0, u8 build_id[20], u32 nr,
 * char path[] NUL, pad 8, then nr entries { u64 start; u32 size; char name[] NUL }
 * packed, sorted by start.
 */
enum pp_usyms_source {
	PP_USYMS_SRC_UNKNOWN	= 0,	/* not said (files before the field) */
	PP_USYMS_SRC_SYMTAB	= 1,	/* the DSO's own .symtab */
	PP_USYMS_SRC_DEBUG	= 2,	/* its separate debug file (build-id, debuglink) */
	PP_USYMS_SRC_MINIDEBUG	= 3,	/* its .gnu_debugdata (MiniDebugInfo) */
	PP_USYMS_SRC_DYNSYM	= 4,	/* its .dynsym: exported functions only */
	PP_USYMS_SRC_PERFMAP	= 5,	/* a JIT's /tmp/perf-PID.map */
	PP_USYMS_SRC_MAX	= 5,
};

/* PP_CHUNK_LOST item body (kind 0). */
struct pp_lost_item {
	uint32_t stream;
	uint32_t reason;		/* 1 = ring overflow, 2 = recorder queue full, 3 = write error */
	uint64_t first_ts;
	uint64_t last_ts;
	uint64_t count;			/* records lost (0 if only bytes are known) */
	uint64_t bytes;
};

/* PP_CHUNK_INDEX payload: header then entries. */
struct pp_index_header {
	uint64_t prev_index;		/* file offset of the previous index chunk, 0 if none */
	uint32_t nr;
	uint32_t reserved;
};
struct pp_index_entry {
	uint64_t offset;		/* chunk header offset */
	uint64_t first_ts;
	uint64_t last_ts;
	uint32_t stream;
	uint16_t type;
	uint16_t flags;
};
_Static_assert(sizeof(struct pp_index_entry) == 32, "index entry is 32 bytes");

/* PP_CHUNK_FOOTER payload (stored uncompressed, 64 bytes). */
struct pp_footer {
	uint64_t last_index;		/* offset of the last index chunk, 0 if none */
	uint64_t nr_chunks;		/* chunks before the footer */
	uint64_t first_ts;
	uint64_t last_ts;
	uint64_t data_raw_bytes;	/* sum of raw_size of DATA chunks */
	uint64_t data_records;		/* perf records in DATA chunks */
	uint8_t  file_id[16];		/* same as the file header */
};
_Static_assert(sizeof(struct pp_footer) == 64, "footer is 64 bytes");

#define PP_FOOTER_CHUNK_SIZE	(sizeof(struct pp_chunk_header) + sizeof(struct pp_footer) + \
				 sizeof(struct pp_chunk_trailer))

#endif /* PP_FORMAT_H */
