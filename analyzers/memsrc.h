/* SPDX-License-Identifier: MIT */
/*
 * Memory-access samples (Intel PEBS mem-loads, AMD IBS op): the names of
 * the fields of union perf_mem_data_src, as perf mem prints them, and the
 * latency a sample's weight carries. Used by ldlat-loads.
 *
 * The data source is a u64 of bit fields (include/uapi/linux/perf_event.h):
 * mem_op (bits 0-4), mem_lvl (5-18), mem_snoop (19-23), mem_lock (24-25),
 * mem_dtlb (26-32), mem_lvl_num (33-36), mem_remote (37), mem_snoopx
 * (38-39), mem_blk (40-42), mem_hops (43-45).
 */
#ifndef PP_ANALYZERS_MEMSRC_H
#define PP_ANALYZERS_MEMSRC_H

#include <stddef.h>
#include <stdint.h>

/** pp_memsrc__field() - the bits of @dsrc at @shift, @width wide. */
static inline uint64_t pp_memsrc__field(uint64_t dsrc, unsigned int shift, unsigned int width)
{
	return (dsrc >> shift) & ((1ull << width) - 1);
}

/** pp_memsrc__is_load() - does @dsrc describe a load (mem_op has LOAD)? */
int pp_memsrc__is_load(uint64_t dsrc);

/**
 * pp_memsrc__op() - "Load", "Store", "Prefetch", "Exec" (joined by " or "
 * when several bits are set), "N/A" when none. Return: @buf.
 */
char *pp_memsrc__op(uint64_t dsrc, char *buf, size_t len);

/**
 * pp_memsrc__level() - where the access was served, as perf mem's
 * "Memory access" column: from mem_lvl_num when set ("L1 hit", "LFB/MAB
 * hit", "L2 hit", "L3 hit", "Local RAM hit", "Remote node, same socket RAM
 * hit", "PMEM hit", "CXL hit", "Any cache hit", ...), else from the mem_lvl
 * bits ("L3 hit", "Remote RAM (1 hop) hit", "L1 or L2 miss", ...), the
 * suffix " hit" or " miss" from mem_lvl's HIT and MISS bits; "N/A" when
 * neither says anything. Return: @buf.
 */
char *pp_memsrc__level(uint64_t dsrc, char *buf, size_t len);

/**
 * pp_memsrc__snoop() - "None", "Hit", "Miss", "HitM", "Fwd", "Peer" (from
 * mem_snoop and mem_snoopx, joined by " or "), "N/A" when none. Return: @buf.
 */
char *pp_memsrc__snoop(uint64_t dsrc, char *buf, size_t len);

/**
 * pp_memsrc__tlb() - the data TLB: "L1 or L2 hit", "Walker hit", "Walker
 * miss", "Fault", ... (mem_dtlb's levels joined by " or ", then " hit" or
 * " miss"), "N/A" when none. Return: @buf.
 */
char *pp_memsrc__tlb(uint64_t dsrc, char *buf, size_t len);

/** pp_memsrc__lock() - "Yes" (a locked instruction), "No" (also when 0), or "N/A". */
const char *pp_memsrc__lock(uint64_t dsrc);

/**
 * pp_memsrc__blocked() - why the load was blocked: "Data", "Addr",
 * "Data or Addr", "N/A" (mem_blk). Return: @buf.
 */
char *pp_memsrc__blocked(uint64_t dsrc, char *buf, size_t len);

/**
 * pp_memsrc__latency() - the load latency (cycles) a sample's weight
 * carries: with PERF_SAMPLE_WEIGHT_STRUCT in @sample_type the low 32 bits
 * (var1_dw; Intel puts the instruction latency in var2_w, bits 32-47),
 * with PERF_SAMPLE_WEIGHT the whole value, else 0.
 */
uint64_t pp_memsrc__latency(uint64_t weight, uint64_t sample_type);

#endif /* PP_ANALYZERS_MEMSRC_H */
