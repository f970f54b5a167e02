/* SPDX-License-Identifier: MIT */
/*
 * Perf records made in user space as the kernel writes them: the sample
 * identity fields and PERF_RECORD_LOST. Used where pp stands in for the
 * kernel: ftrace pages made into samples (format/ftpages.c) and drops no
 * record told (record/perf.c).
 */
#ifndef PP_RECORDS_H
#define PP_RECORDS_H

#include <stdint.h>
#include <string.h>
#include <linux/perf_event.h>

static inline uint8_t *pp_sample_put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
	return p + 8;
}

static inline uint8_t *pp_sample_put32x2(uint8_t *p, uint32_t a, uint32_t b)
{
	memcpy(p, &a, 4);
	memcpy(p + 4, &b, 4);
	return p + 8;
}

/*
 * The fields a sample and a sample_id trailer share, in perf's order: pid
 * and tid, time, id, stream id, CPU (those @sample_type has).
 */
static inline uint8_t *pp_sample_put_ident(uint8_t *p, uint64_t sample_type, uint32_t pid,
					   uint32_t tid, uint64_t ts, uint64_t id, uint32_t cpu)
{
	if (sample_type & PERF_SAMPLE_TID)
		p = pp_sample_put32x2(p, pid, tid);
	if (sample_type & PERF_SAMPLE_TIME)
		p = pp_sample_put64(p, ts);
	if (sample_type & PERF_SAMPLE_ID)
		p = pp_sample_put64(p, id);
	if (sample_type & PERF_SAMPLE_STREAM_ID)
		p = pp_sample_put64(p, id);
	if (sample_type & PERF_SAMPLE_CPU)
		p = pp_sample_put32x2(p, cpu, 0);
	return p;
}

#define PP_LOST_RECORD_MAX	80	/* bytes pp_sample__lost_record() may write */

/**
 * pp_sample__lost_record() - a PERF_RECORD_LOST of @lost events at @ts on
 * @cpu, as the kernel writes it for the event @id of @sample_type
 * (sample_id_all), into @buf (PP_LOST_RECORD_MAX bytes).
 * Return: the record's size.
 */
static inline uint16_t pp_sample__lost_record(void *buf, uint64_t sample_type, uint64_t id,
					      uint64_t lost, uint64_t ts, uint32_t cpu)
{
	struct perf_event_header *h = (struct perf_event_header *)buf;
	uint8_t *p = (uint8_t *)(h + 1);

	p = pp_sample_put64(p, id);
	p = pp_sample_put64(p, lost);
	p = pp_sample_put_ident(p, sample_type, UINT32_MAX, UINT32_MAX, ts, id, cpu);
	if (sample_type & PERF_SAMPLE_IDENTIFIER)
		p = pp_sample_put64(p, id);
	h->type = PERF_RECORD_LOST;
	h->misc = 0;
	h->size = (uint16_t)(p - (uint8_t *)buf);
	return h->size;
}

#endif
