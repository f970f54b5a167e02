/* SPDX-License-Identifier: MIT */
/*
 * Latency and value statistics for analyzers: a log-linear histogram with
 * percentiles, log2/linear terminal histograms, ns formatting and a parser
 * for TIME options.
 *
 * Error bound. Values below 2^PP_HIST_SUB_BITS (32) are counted exactly.
 * Above, every power-of-two range [2^e, 2^(e+1)) is split into 32 equal
 * sub-buckets, so a bucket's width is at most 1/32 of its lower bound.
 * Percentiles report the bucket's midpoint (clamped to the observed min/max),
 * so a reported percentile differs from the exact nearest-rank value by at
 * most 1/64 (1.5625%) of that value. calls, total, min and max are exact;
 * avg is total/calls (integer division).
 *
 * Cost: pp_hist__add() is O(1) (a clz and a shift) and never allocates
 * except once, on the first value of a histogram (the bucket array, about
 * 15 KiB, is allocated lazily so empty per-key histograms cost 40 bytes).
 */
#ifndef PP_ANALYZERS_HIST_H
#define PP_ANALYZERS_HIST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PP_HIST_SUB_BITS	5
#define PP_HIST_SUB		(1u << PP_HIST_SUB_BITS)
#define PP_HIST_NR_BUCKETS	((64 - PP_HIST_SUB_BITS + 1) * PP_HIST_SUB)

/* Unit of the values: selects how numbers are printed. */
enum pp_unit {
	PP_UNIT_NONE = 0,	/* plain numbers (bytes, counts, ...) */
	PP_UNIT_NS   = 1,	/* nanoseconds, printed as ns/us/ms/s */
};

/*
 * A histogram. Embed it (pp_hist__init/__exit) or allocate it
 * (pp_hist__new/__free). Fields are read-only for users.
 */
struct pp_hist {
	uint64_t calls;		/* number of values */
	uint64_t total;		/* sum of values (wraps on overflow) */
	uint64_t min;		/* UINT64_MAX when empty */
	uint64_t max;		/* 0 when empty */
	uint64_t *buckets;	/* PP_HIST_NR_BUCKETS counters, lazily allocated */
};

/* Summary of a histogram as printed by analyzers. */
struct pp_hist_stats {
	uint64_t calls, total, min, max, avg;
	uint64_t p50, p95, p99;
};

/**
 * pp_hist__init() - initialise an embedded, empty histogram
 * @h: the histogram
 */
void pp_hist__init(struct pp_hist *h);

/**
 * pp_hist__exit() - release the memory of an embedded histogram
 * @h: the histogram (NULL accepted); left empty and reusable
 */
void pp_hist__exit(struct pp_hist *h);

/**
 * pp_hist__new() - allocate an empty histogram
 *
 * Return: the histogram, freed with pp_hist__free(); NULL and errno on error.
 */
struct pp_hist *pp_hist__new(void);

/**
 * pp_hist__free() - free a histogram from pp_hist__new()
 * @h: the histogram (NULL accepted)
 */
void pp_hist__free(struct pp_hist *h);

/**
 * pp_hist__add() - count one value
 * @h: the histogram
 * @value: the value (e.g. a latency in ns)
 *
 * Return: 0, or -ENOMEM if the bucket array could not be allocated (only
 * possible on the first value after init/new/exit).
 */
int pp_hist__add(struct pp_hist *h, uint64_t value);

/**
 * pp_hist__add_n() - count @n copies of one value
 * @h: the histogram
 * @value: the value
 * @n: how many times (0 does nothing)
 *
 * Return: 0 or -ENOMEM as pp_hist__add().
 */
int pp_hist__add_n(struct pp_hist *h, uint64_t value, uint64_t n);

/**
 * pp_hist__merge() - add every value of @src into @dst
 * @dst: destination
 * @src: source, unchanged
 *
 * Return: 0 or -ENOMEM.
 */
int pp_hist__merge(struct pp_hist *dst, const struct pp_hist *src);

/**
 * pp_hist__reset() - empty a histogram for the next interval, keeping its memory
 * @h: the histogram
 */
void pp_hist__reset(struct pp_hist *h);

/**
 * pp_hist__percentile() - value at a percentile (nearest rank)
 * @h: the histogram
 * @pct: percentile in [0, 100]; 50 for the median
 *
 * Return: the smallest value v such that at least @pct percent of the values
 * are <= v, within the error bound above; 0 for an empty histogram.
 */
uint64_t pp_hist__percentile(const struct pp_hist *h, double pct);

/**
 * pp_hist__at_rank() - value of nearest rank @rank (1: the smallest, calls:
 * the largest), within the error bound above; 0 for an empty histogram.
 * @h: the histogram
 * @rank: the rank
 */
uint64_t pp_hist__at_rank(const struct pp_hist *h, uint64_t rank);

/**
 * pp_hist__stats() - fill calls, total, min, max, avg, p50, p95, p99
 * @h: the histogram
 * @st: output; all zero for an empty histogram (min too)
 */
void pp_hist__stats(const struct pp_hist *h, struct pp_hist_stats *st);

/*
 * A histogram of signed values (a tracepoint field declared signed, such as
 * a syscall's ret): the values below zero are counted by their magnitude in
 * @neg, the others in @pos, each with the bound above. Its stats are
 * signed; calls, total, min and max are exact.
 */
struct pp_shist {
	struct pp_hist pos, neg;
};

struct pp_shist_stats {
	uint64_t calls;
	int64_t total, min, max, avg;
	int64_t p50, p95, p99;
};

/** pp_shist__init() - initialise an embedded, empty signed histogram */
void pp_shist__init(struct pp_shist *h);
/** pp_shist__exit() - release its memory; left empty and reusable */
void pp_shist__exit(struct pp_shist *h);
/** pp_shist__add() - count one value. Return: 0 or -ENOMEM. */
int pp_shist__add(struct pp_shist *h, int64_t value);
/** pp_shist__reset() - empty it for the next interval, keeping its memory */
void pp_shist__reset(struct pp_shist *h);
/** pp_shist__stats() - calls, total, min, max, avg, p50, p95, p99; zero when empty */
void pp_shist__stats(const struct pp_shist *h, struct pp_shist_stats *st);

/**
 * pp_hist__print_log2() - print a power-of-two histogram, bpftrace style
 * @h: the histogram
 * @fp: output stream
 * @unit: how to print the bucket bounds
 *
 * One line per power of two from the lowest to the highest non-empty one:
 * "[1us, 2us)    12 |@@@@@      |". Values 0 get their own "[0]" line.
 * Prints nothing for an empty histogram.
 */
void pp_hist__print_log2(const struct pp_hist *h, FILE *fp, enum pp_unit unit);

/*
 * A linear histogram (bpftrace lhist): buckets of @step from @min to @max,
 * plus one bucket below @min and one at or above @max. Exact counts.
 */
struct pp_lhist {
	uint64_t min, max, step;
	size_t nr;		/* number of in-range buckets */
	uint64_t under, over;	/* values < min, values >= max */
	uint64_t calls;
	uint64_t *counts;	/* nr counters */
};

/**
 * pp_lhist__init() - set up a linear histogram
 * @lh: the histogram
 * @min: lowest value of the first bucket
 * @max: end of the last bucket (exclusive); must be > @min
 * @step: bucket width, > 0; at most 100000 buckets
 *
 * Return: 0, -EINVAL on bad bounds, -ENOMEM.
 */
int pp_lhist__init(struct pp_lhist *lh, uint64_t min, uint64_t max, uint64_t step);

/**
 * pp_lhist__exit() - release a linear histogram's memory
 * @lh: the histogram (NULL accepted)
 */
void pp_lhist__exit(struct pp_lhist *lh);

/**
 * pp_lhist__add() - count one value (O(1), no allocation)
 * @lh: the histogram
 * @value: the value
 */
void pp_lhist__add(struct pp_lhist *lh, uint64_t value);

/**
 * pp_lhist__reset() - zero every counter
 * @lh: the histogram
 */
void pp_lhist__reset(struct pp_lhist *lh);

/**
 * pp_lhist__print() - print the non-empty span of buckets, bpftrace style
 * @lh: the histogram
 * @fp: output stream
 * @unit: how to print the bucket bounds
 */
void pp_lhist__print(const struct pp_lhist *lh, FILE *fp, enum pp_unit unit);

/**
 * pp_ns_format() - format nanoseconds for humans: "980ns", "1.25us", "12.5ms", "3.00s"
 * @buf: output buffer
 * @len: its size (16 is always enough)
 * @ns: the value
 *
 * Three significant digits from 1us up; exact below.
 *
 * Return: @buf.
 */
char *pp_ns_format(char *buf, size_t len, uint64_t ns);

/**
 * pp_value_format() - format a value in @unit (ns as pp_ns_format(), else decimal)
 * @buf: output buffer
 * @len: its size (24 is always enough)
 * @value: the value
 * @unit: the unit
 *
 * Return: @buf.
 */
char *pp_value_format(char *buf, size_t len, uint64_t value, enum pp_unit unit);

/**
 * pp_time_parse() - parse a TIME option: "10ms", "500us", "1.5s", "250ns", "42"
 * @str: the text; a bare number is in ns; units ns, us, ms, s (also "m" and
 *       "min" for minutes, "h" for hours); decimals allowed with a unit
 * @ns: output in nanoseconds
 *
 * Return: 0, or -EINVAL on junk, negative numbers, unknown units or an empty
 * string, -ERANGE on overflow. @ns is untouched on error.
 */
int pp_time_parse(const char *str, uint64_t *ns);

#endif /* PP_ANALYZERS_HIST_H */
