// SPDX-License-Identifier: MIT
/*
 * Names of union perf_mem_data_src fields and the latency of a weight
 * (memsrc.h). Bits are read by shift and width, so a trace recorded on a
 * big-endian host decodes the same (the value is a u64, not a bit field).
 */
#include <stdio.h>
#include <string.h>
#include <linux/perf_event.h>
#include "memsrc.h"

#define F_OP(d)		pp_memsrc__field(d, PERF_MEM_OP_SHIFT, 5)
#define F_LVL(d)	pp_memsrc__field(d, PERF_MEM_LVL_SHIFT, 14)
#define F_SNOOP(d)	pp_memsrc__field(d, PERF_MEM_SNOOP_SHIFT, 5)
#define F_LOCK(d)	pp_memsrc__field(d, PERF_MEM_LOCK_SHIFT, 2)
#define F_TLB(d)	pp_memsrc__field(d, PERF_MEM_TLB_SHIFT, 7)
#define F_LVLNUM(d)	pp_memsrc__field(d, PERF_MEM_LVLNUM_SHIFT, 4)
#define F_REMOTE(d)	pp_memsrc__field(d, PERF_MEM_REMOTE_SHIFT, 1)
#define F_SNOOPX(d)	pp_memsrc__field(d, PERF_MEM_SNOOPX_SHIFT, 2)
#define F_BLK(d)	pp_memsrc__field(d, PERF_MEM_BLK_SHIFT, 3)
#define F_HOPS(d)	pp_memsrc__field(d, PERF_MEM_HOPS_SHIFT, 3)

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* A growing string in a caller's buffer: never overflows, always terminated. */
struct sbuf {
	char *b;
	size_t len, n;
};

static void sb_add(struct sbuf *s, const char *str)
{
	int r;

	if (!s->len || s->n >= s->len - 1)
		return;
	r = snprintf(s->b + s->n, s->len - s->n, "%s", str);
	if (r > 0)
		s->n += (size_t)r < s->len - s->n ? (size_t)r : s->len - s->n - 1;
}

/* The names of the set bits of @v (bit i: @names[i], NULL: skipped), joined by " or ". */
static int sb_bits(struct sbuf *s, uint64_t v, const char *const *names, size_t nr)
{
	int n = 0;

	for (size_t i = 0; i < nr; i++) {
		if (!(v & (1ull << i)) || !names[i])
			continue;
		if (n++)
			sb_add(s, " or ");
		sb_add(s, names[i]);
	}
	return n;
}

static char *na(char *buf, size_t len)
{
	snprintf(buf, len, "N/A");
	return buf;
}

int pp_memsrc__is_load(uint64_t dsrc)
{
	return !!(F_OP(dsrc) & PERF_MEM_OP_LOAD);
}

char *pp_memsrc__op(uint64_t dsrc, char *buf, size_t len)
{
	static const char *const names[] = { NULL, "Load", "Store", "Prefetch", "Exec" };
	struct sbuf s = { buf, len, 0 };

	if (len)
		buf[0] = '\0';
	if (!sb_bits(&s, F_OP(dsrc), names, ARRAY_SIZE(names)))
		return na(buf, len);
	return buf;
}

char *pp_memsrc__level(uint64_t dsrc, char *buf, size_t len)
{
	/* mem_lvl bits from LVL_L1 up: hit, miss and n/a are the suffix's */
	static const char *const lvl[] = {
		NULL, NULL, NULL, "L1", "LFB/MAB", "L2", "L3", "Local RAM", "Remote RAM (1 hop)",
		"Remote RAM (2 hops)", "Remote Cache (1 hop)", "Remote Cache (2 hops)", "I/O",
		"Uncached",
	};
	static const char *const lvlnum[16] = {
		[5] = "L2 MHB", [6] = "Memory-side cache", [8] = "Uncached",
		[PERF_MEM_LVLNUM_CXL] = "CXL", [PERF_MEM_LVLNUM_IO] = "I/O",
		[PERF_MEM_LVLNUM_ANY_CACHE] = "Any cache", [PERF_MEM_LVLNUM_LFB] = "LFB/MAB",
		[PERF_MEM_LVLNUM_RAM] = "RAM", [PERF_MEM_LVLNUM_PMEM] = "PMEM",
	};
	static const char *const hops[8] = {
		NULL, "core, same node", "node, same socket", "socket, same board", "board",
	};
	uint64_t l = F_LVL(dsrc), num = F_LVLNUM(dsrc);
	const char *suffix = l & PERF_MEM_LVL_HIT ? " hit" : l & PERF_MEM_LVL_MISS ? " miss" : "";
	struct sbuf s = { buf, len, 0 };
	char tmp[16];

	if (len)
		buf[0] = '\0';
	if (num && num != PERF_MEM_LVLNUM_NA) {
		if (F_REMOTE(dsrc)) {
			sb_add(&s, "Remote ");
			if (hops[F_HOPS(dsrc)]) {
				sb_add(&s, hops[F_HOPS(dsrc)]);
				sb_add(&s, " ");
			}
		} else if (num == PERF_MEM_LVLNUM_RAM) {
			sb_add(&s, "Local ");
		}
		if (lvlnum[num]) {
			sb_add(&s, lvlnum[num]);
		} else {
			snprintf(tmp, sizeof(tmp), "L%u", (unsigned int)num);
			sb_add(&s, tmp);
		}
		sb_add(&s, suffix);
		return buf;
	}
	if (!sb_bits(&s, l, lvl, ARRAY_SIZE(lvl)))
		return na(buf, len);
	sb_add(&s, suffix);
	return buf;
}

char *pp_memsrc__snoop(uint64_t dsrc, char *buf, size_t len)
{
	static const char *const snoop[] = { NULL, "None", "Hit", "Miss", "HitM" };
	static const char *const snoopx[] = { "Fwd", "Peer" };
	struct sbuf s = { buf, len, 0 };
	int n;

	if (len)
		buf[0] = '\0';
	n = sb_bits(&s, F_SNOOP(dsrc), snoop, ARRAY_SIZE(snoop));
	if (n && F_SNOOPX(dsrc))
		sb_add(&s, " or ");
	n += sb_bits(&s, F_SNOOPX(dsrc), snoopx, ARRAY_SIZE(snoopx));
	return n ? buf : na(buf, len);
}

char *pp_memsrc__tlb(uint64_t dsrc, char *buf, size_t len)
{
	static const char *const tlb[] = { NULL, NULL, NULL, "L1", "L2", "Walker", "Fault" };
	uint64_t t = F_TLB(dsrc);
	struct sbuf s = { buf, len, 0 };

	if (len)
		buf[0] = '\0';
	if (!sb_bits(&s, t, tlb, ARRAY_SIZE(tlb)))
		return na(buf, len);
	sb_add(&s, t & PERF_MEM_TLB_HIT ? " hit" : t & PERF_MEM_TLB_MISS ? " miss" : "");
	return buf;
}

const char *pp_memsrc__lock(uint64_t dsrc)
{
	uint64_t l = F_LOCK(dsrc);

	if (l & PERF_MEM_LOCK_NA)
		return "N/A";
	return l & PERF_MEM_LOCK_LOCKED ? "Yes" : "No";
}

char *pp_memsrc__blocked(uint64_t dsrc, char *buf, size_t len)
{
	static const char *const blk[] = { NULL, "Data", "Addr" };
	struct sbuf s = { buf, len, 0 };

	if (len)
		buf[0] = '\0';
	return sb_bits(&s, F_BLK(dsrc), blk, ARRAY_SIZE(blk)) ? buf : na(buf, len);
}

uint64_t pp_memsrc__latency(uint64_t weight, uint64_t sample_type)
{
	if (sample_type & PERF_SAMPLE_WEIGHT_STRUCT)
		return weight & 0xffffffffull;
	if (sample_type & PERF_SAMPLE_WEIGHT)
		return weight;
	return 0;
}
