/* SPDX-License-Identifier: MIT */
/*
 * DATA encoding 3, ftrace pages (spec/pp-trace-format.md 5.8): the pages of
 * one CPU's ftrace ring as the kernel hands them out, stored as they are by
 * pp-record --ftrace and turned into the PERF_RECORD_SAMPLEs their perf
 * events would have written when read. The recorder does no work per
 * event; the reader walks the pages itself, forward only (a page is input).
 */
#ifndef PP_FTPAGES_H
#define PP_FTPAGES_H

#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

/* The sample fields a record made of an ftrace event can have. */
#define PP_FTPAGE_SAMPLE_TYPES	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
				 PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | \
				 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW)

/*
 * The pid of a sample made of an ftrace event whose thread's process the
 * maker did not know: readers take it from TASKS and FORK records (the
 * tid when those do not say).
 */
#define PP_FTPAGE_PID_UNKNOWN	0xffffffffu

/* Payload header, 32 bytes, then nr_types entries of 24 bytes, then the pages. */
#define PP_FTPAGE_HDR_SIZE	32
#define PP_FTPAGE_TYPE_SIZE	24
#define PP_FTPAGE_PAGE_HDR	8	/* u32 len, u32 0 before each page */
#define PP_FTPAGE_MAX_PAGE	(1u << 20)
/* What a writer stores in one chunk: its records stay under the plain cap. */
#define PP_FTPAGE_MAX_PAYLOAD	(1u << 20)

struct pp_ftpage_type {
	uint16_t type;			/* tracefs id: the events' common_type */
	uint64_t id;			/* the sample id of this CPU's records */
	uint64_t sample_type;		/* a subset of PP_FTPAGE_SAMPLE_TYPES */
	int tag;			/* given back with its records */
	/*
	 * The data sizes an event of this type can have, by its format: a
	 * page with an event of this type outside them is damaged (its
	 * common_type was rewritten). 0: not checked.
	 */
	uint32_t min_size, max_size;
};

/*
 * What made the last pp_ftpages__decode() refuse a payload, each a check of
 * spec/pp-trace-format.md 5.8 that readers count under its own name.
 */
enum pp_ftpage_damage {
	PP_FTD_NONE,
	PP_FTD_SIZES,		/* a size or count runs past the payload */
	PP_FTD_PAGE,		/* a page's events do not walk forward inside its commit */
	PP_FTD_TYPES,		/* a type names no recorded event, another, or an event has another type's size */
	PP_FTD_DROPPED,		/* an impossible drop count, or drops told by a chunk of no type */
};

/* Drops above this in one chunk or page are not a ring's: the count is damaged. */
#define PP_FTPAGE_MAX_DROPPED	(1ull << 40)

/*
 * A check of a type table entry against the file's metadata, before any
 * page is read: 0 if @t is the recorded event whose format has its type
 * (it may then set @t's size bounds), else non-zero.
 */
typedef int (*pp_ftpage_check_fn)(void *ctx, struct pp_ftpage_type *t);

struct pp_ftpages;

typedef void (*pp_ftpage_emit_fn)(void *ctx, const struct perf_event_header *h, int tag,
				  uint64_t ts);
/* The process of thread @tid, or PP_FTPAGE_PID_UNKNOWN. */
typedef uint32_t (*pp_ftpage_pid_fn)(void *ctx, int32_t tid);

struct pp_ftpages *pp_ftpages__new(void);
void pp_ftpages__free(struct pp_ftpages *d);

/*
 * pp_ftpages__set() - decode pages of CPU @cpu, @page_size bytes at most,
 * whose header's commit field is @long_size (4 or 8) bytes, of byte order
 * @big_endian, holding events of the @nr types @t (copied).
 * Return: 0, -EINVAL (a size out of range, a type twice), -ENOMEM.
 */
int pp_ftpages__set(struct pp_ftpages *d, uint32_t cpu, uint32_t page_size, int long_size,
		    int big_endian, const struct pp_ftpage_type *t, int nr);

/* pp_ftpages__set_clock() - add @offset ns to the pages' times from now on. */
void pp_ftpages__set_clock(struct pp_ftpages *d, int64_t offset);

/*
 * pp_ftpages__page() - each event of the @len bytes of @page (its header,
 * then at least its committed data) as a record to @emit: a
 * PERF_RECORD_LOST first when the page says events were missed before it,
 * then a PERF_RECORD_SAMPLE per event of a known type, its pid from @pid_of
 * (NULL: PP_FTPAGE_PID_UNKNOWN).
 * The page is walked whole first, forward only, each event inside the
 * commit: a damaged page makes no record.
 * Return: samples made, -EINVAL for a page whose sizes do not hold, or
 * -EBADMSG for one whose events do not (a length past the commit, below
 * its header, or a data event too short for its common fields).
 */
int pp_ftpages__page(struct pp_ftpages *d, const void *page, size_t len, pp_ftpage_pid_fn pid_of,
		     void *pid_ctx, pp_ftpage_emit_fn emit, void *ctx);

/*
 * pp_ftpages__lost() - a PERF_RECORD_LOST of @lost events at @ts, as the
 * kernel writes one for the first type's id, to @emit.
 */
void pp_ftpages__lost(struct pp_ftpages *d, uint64_t lost, uint64_t ts, pp_ftpage_emit_fn emit,
		      void *ctx);

/* A chunk payload's header fields. */
struct pp_ftpage_chunk {
	uint32_t cpu;
	uint32_t page_size;
	uint16_t nr_types;
	uint8_t long_size;
	uint8_t big_endian;
	uint32_t nr_pages;
	uint64_t dropped;		/* events the kernel dropped, reported at the end */
	int64_t clock_offset;		/* added to the pages' times: the file's clock */
};

/* pp_ftpages__put_header() - the payload header and type table at @out. Return: bytes. */
size_t pp_ftpages__put_header(uint8_t *out, const struct pp_ftpage_chunk *c,
			      const struct pp_ftpage_type *t);

/*
 * pp_ftpages__decode() - the records of the payload @in, @len bytes, into
 * *@out (grown, *@cap bytes, at most @max): *@out_len gets their size.
 * @end_ts: the chunk's last_ts, the time of the kernel's drops when no
 * event comes before them.
 * @check: asked about each type table entry (NULL: none is checked).
 * Return: 0, -EBADMSG (an invalid payload: pp_ftpages__damage() says
 * which check failed), -EFBIG (over @max), -ENOMEM.
 */
int pp_ftpages__decode(struct pp_ftpages *d, const uint8_t *in, size_t len, uint8_t **out,
		       size_t *cap, size_t *out_len, size_t max, uint64_t end_ts,
		       pp_ftpage_check_fn check, void *check_ctx);

/* pp_ftpages__damage() - why the last pp_ftpages__decode() said -EBADMSG. */
enum pp_ftpage_damage pp_ftpages__damage(const struct pp_ftpages *d);

#endif
