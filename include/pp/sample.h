/* SPDX-License-Identifier: MIT */
/*
 * pp_sample - bounds-checked parsing of perf records.
 *
 * A PERF_RECORD_SAMPLE body is laid out by the attr's sample_type (plus
 * read_format, branch_sample_type and the register masks for the fields that
 * depend on them); every other record carries, with sample_id_all, a trailer
 * of the sample_type bits TID, TIME, ID, STREAM_ID, CPU and IDENTIFIER.
 * These parsers never read past the size they are given. Pointers stored in
 * struct pp_sample point into the record (lent, not copied; may be unaligned
 * only if the record itself is).
 */
#ifndef PP_SAMPLE_H
#define PP_SAMPLE_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* What the layout of a sample depends on: copy these from the attr. */
struct pp_sample_fmt {
	uint64_t sample_type;
	uint64_t read_format;
	uint64_t branch_sample_type;
	uint64_t sample_regs_user;
	uint64_t sample_regs_intr;
};

struct pp_sample {
	uint32_t type;			/* perf_event_header.type */
	uint16_t misc;			/* perf_event_header.misc */
	uint16_t size;			/* perf_event_header.size */
	uint64_t id;			/* IDENTIFIER or ID */
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint64_t stream_id;
	uint32_t cpu;
	uint64_t period;
	const uint8_t *read;		/* PERF_SAMPLE_READ block, read_size bytes */
	uint32_t read_size;
	uint64_t nr_callchain;
	const uint64_t *callchain;	/* nr_callchain entries, context markers included */
	uint32_t raw_size;
	const void *raw;
	uint64_t nr_branch;
	const void *branch;		/* nr_branch struct perf_branch_entry */
	uint64_t user_abi;
	const uint64_t *user_regs;	/* popcount(sample_regs_user) entries */
	uint64_t user_stack_size;
	const void *user_stack;
	uint64_t user_stack_dyn_size;
	uint64_t weight;
	uint64_t data_src;
	uint64_t transaction;
	uint64_t intr_abi;
	const uint64_t *intr_regs;
	uint64_t phys_addr;
	uint64_t cgroup;
	uint64_t data_page_size;
	uint64_t code_page_size;
	uint64_t aux_size;
	const void *aux;
};

/**
 * pp_sample__parse_fmt() - parse a PERF_RECORD_SAMPLE with the full layout.
 * @fmt: layout from the event's attr.
 * @rec: the record, perf_event_header included.
 * @size: bytes available at @rec (the header's size must fit within it).
 * @s: receives the fields (zeroed first; pointers lent from @rec).
 *
 * Return: 0, or -EINVAL if the record is short, malformed or not a sample.
 */
int pp_sample__parse_fmt(const struct pp_sample_fmt *fmt, const void *rec, size_t size,
			 struct pp_sample *s);

/**
 * pp_sample__parse() - parse a PERF_RECORD_SAMPLE given only sample_type.
 * @sample_type: the attr's sample_type. PERF_SAMPLE_READ is parsed as
 *   read_format 0 and the register sets as empty masks; use
 *   pp_sample__parse_fmt() when the attr sets them.
 * @rec: the record; @size: bytes available; @s: receives the fields.
 *
 * Return: 0, or -EINVAL on a short or malformed record.
 */
int pp_sample__parse(uint64_t sample_type, const void *rec, size_t size, struct pp_sample *s);

/**
 * pp_sample_id__parse() - parse the sample_id trailer of a non-sample record.
 * @sample_type: the attr's sample_type (sample_id_all must have been set).
 * @rec: the record; @size: bytes available.
 * @s: receives type/misc/size and pid, tid, time, id, stream_id, cpu.
 *
 * Return: 0, or -EINVAL if the record is too short to hold the trailer.
 */
int pp_sample_id__parse(uint64_t sample_type, const void *rec, size_t size,
			struct pp_sample *s);

/**
 * pp_sample__id() - the event id of any record, thanks to PERF_SAMPLE_IDENTIFIER.
 * @rec: the record; @size: bytes available.
 *
 * The id is the first u64 of a SAMPLE body, the last u64 of other records.
 * Records the kernel makes without a sample_id (none with sample_id_all,
 * except PERF_RECORD_FINISHED_ROUND and such user-space types) give nonsense,
 * so callers look the id up and ignore unknown ids.
 * Return: the id, or 0 if the record is too short (kernel ids are never 0).
 */
uint64_t pp_sample__id(const void *rec, size_t size);

/**
 * pp_sample_id__size() - bytes of the sample_id trailer for @sample_type.
 */
size_t pp_sample_id__size(uint64_t sample_type);

/**
 * pp_sample__set_user_chain() - the sample @rec (@size bytes, @sample_type
 * with PERF_SAMPLE_CALLCHAIN, without READ) rewritten into @out (@cap
 * bytes, not @rec): its callchain's kernel part kept (up to a
 * PERF_CONTEXT_USER), then PERF_CONTEXT_USER and the @nf user @frames (no
 * user part when @nf is 0), every field after the callchain kept but the
 * bytes [@drop_from, @drop_to) of @rec (0, 0: none), and the header's size.
 * Return: the new size, or 0 when @rec's callchain is not what it says or
 * the record would not fit (@cap, 65,535 bytes).
 */
size_t pp_sample__set_user_chain(const void *rec, size_t size, uint64_t sample_type,
				 const uint64_t *frames, uint32_t nf, size_t drop_from,
				 size_t drop_to, void *out, size_t cap);

/**
 * pp_sample__time() - the time of any record of an event with @sample_type
 * (sample or sample_id trailer), without a full parse.
 * @sample_type: the attr's sample_type; @rec, @size: the record.
 * @time: receives the time.
 *
 * Return: 0, or -ENOENT if the record carries no time, -EINVAL if short.
 */
int pp_sample__time(uint64_t sample_type, const void *rec, size_t size, uint64_t *time);

/*
 * The fast path: where the fields of an event's samples lie when every
 * field before the callchain has a fixed size (offsets from the record
 * start, header included), so a sample is read without walking its
 * sample_type. Replay reads every sample through it when it applies;
 * tests/test-sample.c holds it equal to pp_sample__parse() on every
 * layout of these bits and every truncation.
 */
#define PP_SAMPLE_FAST_BITS	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |	\
				 PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |		\
				 PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |	\
				 PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW)

struct pp_sample_layout {
	uint8_t ok;		/* sample_type has only PP_SAMPLE_FAST_BITS */
	uint8_t callchain, raw;
	uint16_t ip, tid, time, addr, cpu, period;	/* 0 = absent */
	uint16_t fixed;		/* end of the fixed fields */
};

/**
 * pp_sample_layout__init() - the fixed layout of samples of @sample_type.
 * @l: receives it; l->ok is 0 when @sample_type has bits outside
 *   PP_SAMPLE_FAST_BITS (use pp_sample__parse_fmt() then).
 * @sample_type: the attr's sample_type.
 */
void pp_sample_layout__init(struct pp_sample_layout *l, uint64_t sample_type);

static inline uint64_t pp_sample_rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static inline uint32_t pp_sample_rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/**
 * pp_sample__parse_hot() - read a PERF_RECORD_SAMPLE of layout @l (l->ok).
 * @l: from pp_sample_layout__init(); @rec: the record (its type is not
 *   checked: the caller dispatches samples only); @size: bytes available;
 * @h: receives the fields of PP_SAMPLE_FAST_BITS (ip, pid, tid, time, addr,
 *   cpu, period, the callchain and raw block) as pp_sample__parse() gives
 *   them; the others are left as they are.
 *
 * Inline: it runs once per sample in replay.
 * Return: 0, or -EINVAL when pp_sample__parse() would refuse the record.
 */
static inline int pp_sample__parse_hot(const struct pp_sample_layout *l, const void *rec,
				       size_t size, struct pp_sample *h)
{
	const uint8_t *r = (const uint8_t *)rec;
	size_t end, off;
	uint16_t hsize;

	if (size < 8)
		return -EINVAL;
	memcpy(&hsize, r + 6, 2);
	end = hsize;
	if (end < 8 || end > size || l->fixed > end)
		return -EINVAL;
	h->ip = l->ip ? pp_sample_rd64(r + l->ip) : 0;
	h->pid = l->tid ? pp_sample_rd32(r + l->tid) : 0;
	h->tid = l->tid ? pp_sample_rd32(r + l->tid + 4) : 0;
	h->time = l->time ? pp_sample_rd64(r + l->time) : 0;
	h->addr = l->addr ? pp_sample_rd64(r + l->addr) : 0;
	h->cpu = l->cpu ? pp_sample_rd32(r + l->cpu) : 0;
	h->period = l->period ? pp_sample_rd64(r + l->period) : 0;
	h->callchain = NULL;
	h->nr_callchain = 0;
	h->raw = NULL;
	h->raw_size = 0;
	off = l->fixed;
	if (l->callchain) {
		uint64_t nr;

		if (end - off < 8)
			return -EINVAL;
		nr = pp_sample_rd64(r + off);
		off += 8;
		if (nr > (end - off) / 8)
			return -EINVAL;
		h->callchain = (const uint64_t *)(const void *)(r + off);
		h->nr_callchain = nr;
		off += (size_t)nr * 8;
	}
	if (l->raw) {
		uint32_t rs, pad;

		if (end - off < 4)
			return -EINVAL;
		rs = pp_sample_rd32(r + off);
		off += 4;
		if (rs > end - off)
			return -EINVAL;
		h->raw = r + off;
		h->raw_size = rs;
		off += rs;
		pad = (8 - ((4 + rs) & 7)) & 7;
		if (pad > end - off)
			return -EINVAL;
	}
	return 0;
}

#endif /* PP_SAMPLE_H */
