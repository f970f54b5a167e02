// SPDX-License-Identifier: MIT
/*
 * Bounds-checked perf record parsing (see include/pp/sample.h).
 *
 * A small cursor walks the record body; every fetch checks what remains, so
 * a hostile size field can at worst make a parse fail with -EINVAL.
 */
#include <errno.h>
#include <string.h>
#include <linux/perf_event.h>

#include "pp/sample.h"

struct scur {
	const uint8_t *p;
	size_t left;
	int bad;
};

static const uint8_t *scur_take(struct scur *c, size_t n)
{
	const uint8_t *p;

	if (c->bad || n > c->left) {
		c->bad = 1;
		return NULL;
	}
	p = c->p;
	c->p += n;
	c->left -= n;
	return p;
}

static uint64_t scur_u64(struct scur *c)
{
	const uint8_t *p = scur_take(c, 8);
	uint64_t v = 0;

	if (p)
		memcpy(&v, p, 8);
	return v;
}

static void scur_u32x2(struct scur *c, uint32_t *a, uint32_t *b)
{
	const uint8_t *p = scur_take(c, 8);

	if (p) {
		memcpy(a, p, 4);
		memcpy(b, p + 4, 4);
	}
}

/* Take @nr u64 entries; NULL (and bad) if they do not fit. */
static const uint64_t *scur_u64s(struct scur *c, uint64_t nr)
{
	if (nr > c->left / 8) {
		c->bad = 1;
		return NULL;
	}
	return (const uint64_t *)(const void *)scur_take(c, (size_t)nr * 8);
}

/* Check the perf_event_header against @size; fill type/misc/size. */
static int rec_header(const void *rec, size_t size, struct pp_sample *s)
{
	struct perf_event_header h;

	if (!rec || size < sizeof(h))
		return -EINVAL;
	memcpy(&h, rec, sizeof(h));
	if (h.size < sizeof(h) || h.size > size)
		return -EINVAL;
	s->type = h.type;
	s->misc = h.misc;
	s->size = h.size;
	return 0;
}

static size_t read_size(uint64_t read_format)
{
	size_t per = 8;		/* value */

	if (read_format & PERF_FORMAT_ID)
		per += 8;
	if (read_format & PERF_FORMAT_LOST)
		per += 8;
	if (read_format & PERF_FORMAT_GROUP)
		return 0;	/* variable: computed from nr */
	return per + 8 * !!(read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) +
	       8 * !!(read_format & PERF_FORMAT_TOTAL_TIME_RUNNING);
}

static void parse_read(struct scur *c, uint64_t read_format, struct pp_sample *s)
{
	const uint8_t *start = c->p;
	size_t n = read_size(read_format);

	if (read_format & PERF_FORMAT_GROUP) {
		uint64_t nr = scur_u64(c), per = 1;

		if (read_format & PERF_FORMAT_TOTAL_TIME_ENABLED)
			scur_u64(c);
		if (read_format & PERF_FORMAT_TOTAL_TIME_RUNNING)
			scur_u64(c);
		per += !!(read_format & PERF_FORMAT_ID) + !!(read_format & PERF_FORMAT_LOST);
		if (nr > (uint64_t)-1 / per) {
			c->bad = 1;
			return;
		}
		scur_u64s(c, nr * per);
	} else {
		scur_take(c, n);
	}
	if (!c->bad) {
		s->read = start;
		s->read_size = (uint32_t)(c->p - start);
	}
}

/**
 * pp_sample__parse_fmt() - parse a PERF_RECORD_SAMPLE with the full layout.
 * @fmt: layout from the event's attr.
 * @rec: the record, perf_event_header included.
 * @size: bytes available at @rec.
 * @s: receives the fields (pointers lent from @rec).
 *
 * Return: 0, or -EINVAL if the record is short, malformed or not a sample.
 */
int pp_sample__parse_fmt(const struct pp_sample_fmt *fmt, const void *rec, size_t size,
			 struct pp_sample *s)
{
	uint64_t st = fmt->sample_type;
	struct scur c;
	int err;

	memset(s, 0, sizeof(*s));
	err = rec_header(rec, size, s);
	if (err)
		return err;
	if (s->type != PERF_RECORD_SAMPLE)
		return -EINVAL;
	c.p = (const uint8_t *)rec + sizeof(struct perf_event_header);
	c.left = s->size - sizeof(struct perf_event_header);
	c.bad = 0;

	if (st & PERF_SAMPLE_IDENTIFIER)
		s->id = scur_u64(&c);
	if (st & PERF_SAMPLE_IP)
		s->ip = scur_u64(&c);
	if (st & PERF_SAMPLE_TID)
		scur_u32x2(&c, &s->pid, &s->tid);
	if (st & PERF_SAMPLE_TIME)
		s->time = scur_u64(&c);
	if (st & PERF_SAMPLE_ADDR)
		s->addr = scur_u64(&c);
	if (st & PERF_SAMPLE_ID)
		s->id = scur_u64(&c);
	if (st & PERF_SAMPLE_STREAM_ID)
		s->stream_id = scur_u64(&c);
	if (st & PERF_SAMPLE_CPU) {
		uint32_t res;

		scur_u32x2(&c, &s->cpu, &res);
	}
	if (st & PERF_SAMPLE_PERIOD)
		s->period = scur_u64(&c);
	if (st & PERF_SAMPLE_READ)
		parse_read(&c, fmt->read_format, s);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		s->nr_callchain = scur_u64(&c);
		s->callchain = scur_u64s(&c, s->nr_callchain);
	}
	if (st & PERF_SAMPLE_RAW) {
		const uint8_t *p = scur_take(&c, 4);

		if (p) {
			memcpy(&s->raw_size, p, 4);
			s->raw = scur_take(&c, s->raw_size);
			/* the raw block is padded so the next field is 8-aligned */
			scur_take(&c, (8 - ((4 + (size_t)s->raw_size) & 7)) & 7);
		}
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		s->nr_branch = scur_u64(&c);
		if (fmt->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			scur_u64(&c);
		if (s->nr_branch > c.left / 24)
			c.bad = 1;
		else
			s->branch = scur_take(&c, (size_t)s->nr_branch * 24);
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		s->user_abi = scur_u64(&c);
		if (s->user_abi)
			s->user_regs = scur_u64s(&c, __builtin_popcountll(fmt->sample_regs_user));
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		s->user_stack_size = scur_u64(&c);
		if (s->user_stack_size) {
			if (s->user_stack_size > c.left)
				c.bad = 1;
			else
				s->user_stack = scur_take(&c, (size_t)s->user_stack_size);
			s->user_stack_dyn_size = scur_u64(&c);
		}
	}
	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		s->weight = scur_u64(&c);
	if (st & PERF_SAMPLE_DATA_SRC)
		s->data_src = scur_u64(&c);
	if (st & PERF_SAMPLE_TRANSACTION)
		s->transaction = scur_u64(&c);
	if (st & PERF_SAMPLE_REGS_INTR) {
		s->intr_abi = scur_u64(&c);
		if (s->intr_abi)
			s->intr_regs = scur_u64s(&c, __builtin_popcountll(fmt->sample_regs_intr));
	}
	if (st & PERF_SAMPLE_PHYS_ADDR)
		s->phys_addr = scur_u64(&c);
	if (st & PERF_SAMPLE_CGROUP)
		s->cgroup = scur_u64(&c);
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE)
		s->data_page_size = scur_u64(&c);
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE)
		s->code_page_size = scur_u64(&c);
	if (st & PERF_SAMPLE_AUX) {
		s->aux_size = scur_u64(&c);
		if (s->aux_size > c.left)
			c.bad = 1;
		else
			s->aux = scur_take(&c, (size_t)s->aux_size);
	}
	return c.bad ? -EINVAL : 0;
}

/**
 * pp_sample__parse() - parse a PERF_RECORD_SAMPLE given only sample_type.
 * @sample_type: the attr's sample_type.
 * @rec: the record; @size: bytes available; @s: receives the fields.
 *
 * Return: 0, or -EINVAL on a short or malformed record.
 */
int pp_sample__parse(uint64_t sample_type, const void *rec, size_t size, struct pp_sample *s)
{
	struct pp_sample_fmt fmt = { .sample_type = sample_type };

	return pp_sample__parse_fmt(&fmt, rec, size, s);
}

/**
 * pp_sample_id__size() - bytes of the sample_id trailer for @sample_type.
 * @sample_type: the attr's sample_type.
 *
 * Return: trailer size in bytes.
 */
size_t pp_sample_id__size(uint64_t sample_type)
{
	size_t n = 0;

	if (sample_type & PERF_SAMPLE_TID)
		n += 8;
	if (sample_type & PERF_SAMPLE_TIME)
		n += 8;
	if (sample_type & PERF_SAMPLE_ID)
		n += 8;
	if (sample_type & PERF_SAMPLE_STREAM_ID)
		n += 8;
	if (sample_type & PERF_SAMPLE_CPU)
		n += 8;
	if (sample_type & PERF_SAMPLE_IDENTIFIER)
		n += 8;
	return n;
}

/**
 * pp_sample_id__parse() - parse the sample_id trailer of a non-sample record.
 * @sample_type: the attr's sample_type.
 * @rec: the record; @size: bytes available.
 * @s: receives type/misc/size and pid, tid, time, id, stream_id, cpu.
 *
 * Return: 0, or -EINVAL if the record is too short to hold the trailer.
 */
int pp_sample_id__parse(uint64_t sample_type, const void *rec, size_t size,
			struct pp_sample *s)
{
	size_t n = pp_sample_id__size(sample_type);
	struct scur c;
	uint32_t res;
	int err;

	memset(s, 0, sizeof(*s));
	err = rec_header(rec, size, s);
	if (err)
		return err;
	if (s->type == PERF_RECORD_SAMPLE)
		return -EINVAL;
	if (n > (size_t)s->size - sizeof(struct perf_event_header))
		return -EINVAL;
	c.p = (const uint8_t *)rec + s->size - n;
	c.left = n;
	c.bad = 0;
	if (sample_type & PERF_SAMPLE_TID)
		scur_u32x2(&c, &s->pid, &s->tid);
	if (sample_type & PERF_SAMPLE_TIME)
		s->time = scur_u64(&c);
	if (sample_type & PERF_SAMPLE_ID)
		s->id = scur_u64(&c);
	if (sample_type & PERF_SAMPLE_STREAM_ID)
		s->stream_id = scur_u64(&c);
	if (sample_type & PERF_SAMPLE_CPU)
		scur_u32x2(&c, &s->cpu, &res);
	if (sample_type & PERF_SAMPLE_IDENTIFIER)
		s->id = scur_u64(&c);
	return c.bad ? -EINVAL : 0;
}

/**
 * pp_sample__id() - the event id of any record (PERF_SAMPLE_IDENTIFIER).
 * @rec: the record; @size: bytes available.
 *
 * Return: the id, or 0 if the record is too short.
 */
uint64_t pp_sample__id(const void *rec, size_t size)
{
	struct perf_event_header h;
	uint64_t id;

	if (!rec || size < sizeof(h))
		return 0;
	memcpy(&h, rec, sizeof(h));
	if (h.size > size || h.size < sizeof(h) + 8)
		return 0;
	if (h.type == PERF_RECORD_SAMPLE)
		memcpy(&id, (const uint8_t *)rec + sizeof(h), 8);
	else
		memcpy(&id, (const uint8_t *)rec + h.size - 8, 8);
	return id;
}

/**
 * pp_sample__time() - the time of any record without a full parse.
 * @sample_type: the attr's sample_type; @rec, @size: the record.
 * @time: receives the time.
 *
 * Return: 0, -ENOENT if the record carries no time, -EINVAL if short.
 */
int pp_sample__time(uint64_t sample_type, const void *rec, size_t size, uint64_t *time)
{
	struct perf_event_header h;
	size_t off;

	if (!(sample_type & PERF_SAMPLE_TIME))
		return -ENOENT;
	if (!rec || size < sizeof(h))
		return -EINVAL;
	memcpy(&h, rec, sizeof(h));
	if (h.size > size || h.size < sizeof(h))
		return -EINVAL;
	if (h.type == PERF_RECORD_SAMPLE) {
		off = sizeof(h);
		off += 8 * !!(sample_type & PERF_SAMPLE_IDENTIFIER);
		off += 8 * !!(sample_type & PERF_SAMPLE_IP);
		off += 8 * !!(sample_type & PERF_SAMPLE_TID);
	} else {
		size_t n = pp_sample_id__size(sample_type);

		if (n > (size_t)h.size - sizeof(h))
			return -EINVAL;
		off = h.size - n;
		off += 8 * !!(sample_type & PERF_SAMPLE_TID);
	}
	if (off + 8 > h.size)
		return -EINVAL;
	memcpy(time, (const uint8_t *)rec + off, 8);
	return 0;
}

/**
 * pp_sample_layout__init() - the fixed layout of samples of @sample_type.
 * @l: receives it (l->ok 0: not a fast layout); @sample_type: the attr's.
 */
void pp_sample_layout__init(struct pp_sample_layout *l, uint64_t sample_type)
{
	uint64_t st = sample_type;
	uint16_t off = sizeof(struct perf_event_header);

	memset(l, 0, sizeof(*l));
	if (st & ~(uint64_t)PP_SAMPLE_FAST_BITS)
		return;
	l->ok = 1;
	off += 8 * !!(st & PERF_SAMPLE_IDENTIFIER);
	if (st & PERF_SAMPLE_IP) {
		l->ip = off;
		off += 8;
	}
	if (st & PERF_SAMPLE_TID) {
		l->tid = off;
		off += 8;
	}
	if (st & PERF_SAMPLE_TIME) {
		l->time = off;
		off += 8;
	}
	if (st & PERF_SAMPLE_ADDR) {
		l->addr = off;
		off += 8;
	}
	off += 8 * !!(st & PERF_SAMPLE_ID);
	off += 8 * !!(st & PERF_SAMPLE_STREAM_ID);
	if (st & PERF_SAMPLE_CPU) {
		l->cpu = off;
		off += 8;
	}
	if (st & PERF_SAMPLE_PERIOD) {
		l->period = off;
		off += 8;
	}
	l->fixed = off;
	l->callchain = !!(st & PERF_SAMPLE_CALLCHAIN);
	l->raw = !!(st & PERF_SAMPLE_RAW);
}

/* See include/pp/sample.h. */
size_t pp_sample__set_user_chain(const void *rec, size_t size, uint64_t sample_type,
				 const uint64_t *frames, uint32_t nf, size_t drop_from,
				 size_t drop_to, void *out, size_t cap)
{
	static const uint64_t before_cc = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
		PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
		PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	const uint8_t *r = rec;
	uint8_t *o = out;
	uint64_t nr, v, ucx = (uint64_t)PERF_CONTEXT_USER;
	size_t cc = 8 + 8 * (size_t)__builtin_popcountll(sample_type & before_cc), cc_end, keep = 0;
	size_t at, len;
	uint16_t sz;

	if (!(sample_type & PERF_SAMPLE_CALLCHAIN) || (sample_type & PERF_SAMPLE_READ) ||
	    cc + 8 > size)
		return 0;
	memcpy(&nr, r + cc, 8);
	if (nr > (size - cc - 8) / 8)
		return 0;
	cc_end = cc + 8 + 8 * nr;
	if (drop_from == drop_to)
		drop_from = drop_to = size;
	if (drop_from < cc_end || drop_from > drop_to || drop_to > size)
		return 0;
	/* the kernel part: up to a PERF_CONTEXT_USER (none with exclude_callchain_user) */
	for (; keep < nr; keep++) {
		memcpy(&v, r + cc + 8 + 8 * keep, 8);
		if (v == ucx)
			break;
	}
	len = cc + 8 + 8 * (keep + (nf ? 1 + (size_t)nf : 0)) + (drop_from - cc_end) +
	      (size - drop_to);
	if (len > cap || len > 0xffff)
		return 0;
	memcpy(o, r, cc);
	v = keep + (nf ? 1 + (uint64_t)nf : 0);
	memcpy(o + cc, &v, 8);
	at = cc + 8;
	memcpy(o + at, r + cc + 8, 8 * keep);
	at += 8 * keep;
	if (nf) {
		memcpy(o + at, &ucx, 8);
		memcpy(o + at + 8, frames, 8 * (size_t)nf);
		at += 8 + 8 * (size_t)nf;
	}
	memcpy(o + at, r + cc_end, drop_from - cc_end);
	at += drop_from - cc_end;
	memcpy(o + at, r + drop_to, size - drop_to);
	at += size - drop_to;
	sz = (uint16_t)at;
	memcpy(o + 6, &sz, 2);
	return at;
}
