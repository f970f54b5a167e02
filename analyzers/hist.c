// SPDX-License-Identifier: MIT
/*
 * Log-linear histograms, linear histograms, ns formatting, TIME parsing.
 * See hist.h for the bucket layout and its error bound.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"

#define BAR_WIDTH	52

/* Bucket of @v: exact below PP_HIST_SUB, then PP_HIST_SUB per octave. */
static inline unsigned int hist_index(uint64_t v)
{
	unsigned int e;

	if (v < PP_HIST_SUB)
		return (unsigned int)v;
	e = 63 - (unsigned int)__builtin_clzll(v);
	return (e - PP_HIST_SUB_BITS + 1) * PP_HIST_SUB +
	       (unsigned int)((v >> (e - PP_HIST_SUB_BITS)) - PP_HIST_SUB);
}

/* Lowest value and width of bucket @idx. */
static void hist_bucket_range(unsigned int idx, uint64_t *lo, uint64_t *width)
{
	unsigned int g, sub, shift;

	if (idx < PP_HIST_SUB) {
		*lo = idx;
		*width = 1;
		return;
	}
	g = idx / PP_HIST_SUB;
	sub = idx % PP_HIST_SUB;
	shift = g - 1;		/* e - PP_HIST_SUB_BITS with e = g + SUB_BITS - 1 */
	*lo = (uint64_t)(PP_HIST_SUB + sub) << shift;
	*width = (uint64_t)1 << shift;
}

/* Power of two (floor(log2)) of the values in bucket @idx (idx > 0). */
static unsigned int hist_bucket_log2(unsigned int idx)
{
	if (idx < PP_HIST_SUB)
		return 63 - (unsigned int)__builtin_clzll(idx);
	return idx / PP_HIST_SUB + PP_HIST_SUB_BITS - 1;
}

void pp_hist__init(struct pp_hist *h)
{
	h->calls = 0;
	h->total = 0;
	h->min = UINT64_MAX;
	h->max = 0;
	h->buckets = NULL;
}

void pp_hist__exit(struct pp_hist *h)
{
	if (!h)
		return;
	free(h->buckets);
	pp_hist__init(h);
}

struct pp_hist *pp_hist__new(void)
{
	struct pp_hist *h = malloc(sizeof(*h));

	if (!h)
		return NULL;
	pp_hist__init(h);
	return h;
}

void pp_hist__free(struct pp_hist *h)
{
	if (!h)
		return;
	free(h->buckets);
	free(h);
}

static int hist_alloc(struct pp_hist *h)
{
	if (h->buckets)
		return 0;
	h->buckets = calloc(PP_HIST_NR_BUCKETS, sizeof(*h->buckets));
	return h->buckets ? 0 : -ENOMEM;
}

int pp_hist__add_n(struct pp_hist *h, uint64_t value, uint64_t n)
{
	if (!n)
		return 0;
	if (__builtin_expect(!h->buckets, 0) && hist_alloc(h))
		return -ENOMEM;
	h->buckets[hist_index(value)] += n;
	h->calls += n;
	h->total += value * n;
	if (value < h->min)
		h->min = value;
	if (value > h->max)
		h->max = value;
	return 0;
}

int pp_hist__add(struct pp_hist *h, uint64_t value)
{
	return pp_hist__add_n(h, value, 1);
}

int pp_hist__merge(struct pp_hist *dst, const struct pp_hist *src)
{
	unsigned int i;

	if (!src->calls)
		return 0;
	if (hist_alloc(dst))
		return -ENOMEM;
	for (i = 0; i < PP_HIST_NR_BUCKETS; i++)
		dst->buckets[i] += src->buckets[i];
	dst->calls += src->calls;
	dst->total += src->total;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	return 0;
}

void pp_hist__reset(struct pp_hist *h)
{
	/* Clearing 15 KiB is cheap next to an interval; an empty one skips it. */
	if (h->buckets && h->calls)
		memset(h->buckets, 0, PP_HIST_NR_BUCKETS * sizeof(*h->buckets));
	h->calls = 0;
	h->total = 0;
	h->min = UINT64_MAX;
	h->max = 0;
}

/* Nearest rank of @pct among @calls values: ceil(pct/100 * calls), at least 1. */
static uint64_t pct_rank(double pct, uint64_t calls)
{
	long double r = (long double)pct * (long double)calls / 100.0L;
	uint64_t rank = (uint64_t)r;

	if ((long double)rank < r)
		rank++;
	return rank ? rank : 1;
}

uint64_t pp_hist__percentile(const struct pp_hist *h, double pct)
{
	if (!h->calls || !h->buckets)
		return 0;
	if (!(pct > 0))		/* also NaN */
		return h->min;
	if (pct >= 100)
		return h->max;
	return pp_hist__at_rank(h, pct_rank(pct, h->calls));
}

uint64_t pp_hist__at_rank(const struct pp_hist *h, uint64_t rank)
{
	uint64_t cum = 0, lo, width, v;
	unsigned int i;

	if (!h->calls || !h->buckets)
		return 0;
	for (i = 0; i < PP_HIST_NR_BUCKETS; i++) {
		cum += h->buckets[i];
		if (cum >= rank)
			break;
	}
	if (i == PP_HIST_NR_BUCKETS)
		return h->max;
	hist_bucket_range(i, &lo, &width);
	v = lo + (width - 1) / 2;
	if (v < h->min)
		v = h->min;
	if (v > h->max)
		v = h->max;
	return v;
}

void pp_hist__stats(const struct pp_hist *h, struct pp_hist_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (!h->calls)
		return;
	st->calls = h->calls;
	st->total = h->total;
	st->min = h->min;
	st->max = h->max;
	st->avg = h->total / h->calls;
	st->p50 = pp_hist__percentile(h, 50);
	st->p95 = pp_hist__percentile(h, 95);
	st->p99 = pp_hist__percentile(h, 99);
}

void pp_shist__init(struct pp_shist *h)
{
	pp_hist__init(&h->pos);
	pp_hist__init(&h->neg);
}

void pp_shist__exit(struct pp_shist *h)
{
	pp_hist__exit(&h->pos);
	pp_hist__exit(&h->neg);
}

int pp_shist__add(struct pp_shist *h, int64_t value)
{
	/* the magnitude of INT64_MIN is 2^63: computed unsigned, it fits */
	return value < 0 ? pp_hist__add(&h->neg, 0 - (uint64_t)value) :
			   pp_hist__add(&h->pos, (uint64_t)value);
}

void pp_shist__reset(struct pp_shist *h)
{
	pp_hist__reset(&h->pos);
	pp_hist__reset(&h->neg);
}

/* The value of nearest rank @rank (1 = the smallest) of both halves. */
static int64_t shist_at_rank(const struct pp_shist *h, uint64_t rank)
{
	/* negative values in ascending order are the magnitudes in descending order */
	if (rank <= h->neg.calls)
		return (int64_t)(0 - pp_hist__at_rank(&h->neg, h->neg.calls - rank + 1));
	return (int64_t)pp_hist__at_rank(&h->pos, rank - h->neg.calls);
}

void pp_shist__stats(const struct pp_shist *h, struct pp_shist_stats *st)
{
	uint64_t calls = h->pos.calls + h->neg.calls;

	memset(st, 0, sizeof(*st));
	if (!calls)
		return;
	st->calls = calls;
	st->total = (int64_t)(h->pos.total - h->neg.total);
	st->min = h->neg.calls ? (int64_t)(0 - h->neg.max) : (int64_t)h->pos.min;
	st->max = h->pos.calls ? (int64_t)h->pos.max : (int64_t)(0 - h->neg.min);
	st->avg = st->total / (int64_t)calls;
	st->p50 = shist_at_rank(h, pct_rank(50, calls));
	st->p95 = shist_at_rank(h, pct_rank(95, calls));
	st->p99 = shist_at_rank(h, pct_rank(99, calls));
}

/* "|@@@@    |" scaled to @max. */
static void print_bar(FILE *fp, uint64_t count, uint64_t max)
{
	unsigned int n = 0, i;

	if (max)
		n = (unsigned int)((long double)count * BAR_WIDTH / max);
	if (count && !n)
		n = 1;
	fputc('|', fp);
	for (i = 0; i < BAR_WIDTH; i++)
		fputc(i < n ? '@' : ' ', fp);
	fputs("|\n", fp);
}

/* Raw numbers in labels: 1024 -> "1K", as bpftrace does for powers of two. */
static char *label_format(char *buf, size_t len, uint64_t v, enum pp_unit unit)
{
	static const char sfx[] = "KMGTPE";
	unsigned int i = 0;

	if (unit == PP_UNIT_NS)
		return pp_ns_format(buf, len, v);
	while (v >= 1024 && !(v & 1023) && i < sizeof(sfx) - 1) {
		v >>= 10;
		i++;
	}
	if (i)
		snprintf(buf, len, "%llu%c", (unsigned long long)v, sfx[i - 1]);
	else
		snprintf(buf, len, "%llu", (unsigned long long)v);
	return buf;
}

void pp_hist__print_log2(const struct pp_hist *h, FILE *fp, enum pp_unit unit)
{
	uint64_t rows[65] = { 0 };	/* [0]: value 0; [k+1]: [2^k, 2^(k+1)) */
	uint64_t max = 0;
	unsigned int i, first = 65, last = 0;
	char a[32], b[32], label[72];

	if (!h->calls || !h->buckets)
		return;
	rows[0] = h->buckets[0];
	for (i = 1; i < PP_HIST_NR_BUCKETS; i++)
		rows[hist_bucket_log2(i) + 1] += h->buckets[i];
	for (i = 0; i < 65; i++) {
		if (!rows[i])
			continue;
		if (first == 65)
			first = i;
		last = i;
		if (rows[i] > max)
			max = rows[i];
	}
	for (i = first; i <= last; i++) {
		if (i == 0) {
			snprintf(label, sizeof(label), "[%s]", label_format(a, sizeof(a), 0, unit));
		} else if (i == 64) {
			snprintf(label, sizeof(label), "[%s, ...)",
				 label_format(a, sizeof(a), (uint64_t)1 << 63, unit));
		} else if (i == 1 && unit != PP_UNIT_NS) {
			snprintf(label, sizeof(label), "[1]");
		} else {
			snprintf(label, sizeof(label), "[%s, %s)",
				 label_format(a, sizeof(a), (uint64_t)1 << (i - 1), unit),
				 label_format(b, sizeof(b), (uint64_t)1 << i, unit));
		}
		fprintf(fp, "%-20s %10llu ", label, (unsigned long long)rows[i]);
		print_bar(fp, rows[i], max);
	}
}

int pp_lhist__init(struct pp_lhist *lh, uint64_t min, uint64_t max, uint64_t step)
{
	uint64_t nr;

	memset(lh, 0, sizeof(*lh));
	if (max <= min || !step)
		return -EINVAL;
	nr = (max - min) / step + ((max - min) % step ? 1 : 0);
	if (nr > 100000)
		return -EINVAL;
	lh->counts = calloc(nr, sizeof(*lh->counts));
	if (!lh->counts)
		return -ENOMEM;
	lh->min = min;
	lh->max = max;
	lh->step = step;
	lh->nr = nr;
	return 0;
}

void pp_lhist__exit(struct pp_lhist *lh)
{
	if (!lh)
		return;
	free(lh->counts);
	memset(lh, 0, sizeof(*lh));
}

void pp_lhist__add(struct pp_lhist *lh, uint64_t value)
{
	lh->calls++;
	if (value < lh->min)
		lh->under++;
	else if (value >= lh->max)
		lh->over++;
	else
		lh->counts[(value - lh->min) / lh->step]++;
}

void pp_lhist__reset(struct pp_lhist *lh)
{
	if (lh->counts)
		memset(lh->counts, 0, lh->nr * sizeof(*lh->counts));
	lh->under = lh->over = lh->calls = 0;
}

void pp_lhist__print(const struct pp_lhist *lh, FILE *fp, enum pp_unit unit)
{
	uint64_t max = lh->under > lh->over ? lh->under : lh->over;
	size_t i, first = SIZE_MAX, last = 0;
	char a[32], b[32], label[72];
	uint64_t hi;

	if (!lh->calls)
		return;
	for (i = 0; i < lh->nr; i++) {
		if (!lh->counts[i])
			continue;
		if (first == SIZE_MAX)
			first = i;
		last = i;
		if (lh->counts[i] > max)
			max = lh->counts[i];
	}
	if (lh->under) {
		snprintf(label, sizeof(label), "(..., %s)", pp_value_format(a, sizeof(a), lh->min, unit));
		fprintf(fp, "%-20s %10llu ", label, (unsigned long long)lh->under);
		print_bar(fp, lh->under, max);
	}
	for (i = first; first != SIZE_MAX && i <= last; i++) {
		hi = lh->min + (i + 1) * lh->step;
		if (hi > lh->max)
			hi = lh->max;
		snprintf(label, sizeof(label), "[%s, %s)",
			 pp_value_format(a, sizeof(a), lh->min + i * lh->step, unit),
			 pp_value_format(b, sizeof(b), hi, unit));
		fprintf(fp, "%-20s %10llu ", label, (unsigned long long)lh->counts[i]);
		print_bar(fp, lh->counts[i], max);
	}
	if (lh->over) {
		snprintf(label, sizeof(label), "[%s, ...)", pp_value_format(a, sizeof(a), lh->max, unit));
		fprintf(fp, "%-20s %10llu ", label, (unsigned long long)lh->over);
		print_bar(fp, lh->over, max);
	}
}

char *pp_ns_format(char *buf, size_t len, uint64_t ns)
{
	static const struct { double div; const char *name; } units[] = {
		{ 1e3, "us" }, { 1e6, "ms" }, { 1e9, "s" },
	};
	unsigned int i;
	double x;

	if (ns < 1000) {
		snprintf(buf, len, "%lluns", (unsigned long long)ns);
		return buf;
	}
	for (i = 0; i < 3; i++) {
		x = (double)ns / units[i].div;
		/* Move up a unit when rounding to 3 digits would print 1000. */
		if (x < 999.5 || i == 2)
			break;
	}
	if (x < 9.995)
		snprintf(buf, len, "%.2f%s", x, units[i].name);
	else if (x < 99.95)
		snprintf(buf, len, "%.1f%s", x, units[i].name);
	else
		snprintf(buf, len, "%.0f%s", x, units[i].name);
	return buf;
}

char *pp_value_format(char *buf, size_t len, uint64_t value, enum pp_unit unit)
{
	if (unit == PP_UNIT_NS)
		return pp_ns_format(buf, len, value);
	snprintf(buf, len, "%llu", (unsigned long long)value);
	return buf;
}

int pp_time_parse(const char *str, uint64_t *ns)
{
	static const struct { const char *name; uint64_t mult; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000ull },
		{ "m", 60000000000ull }, { "min", 60000000000ull }, { "h", 3600000000000ull },
	};
	uint64_t ip = 0, frac = 0, fdiv = 1, mult = 1, v;
	const char *p = str;
	int digits = 0, fdigits = 0;
	unsigned int i;

	if (!str)
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++, digits++) {
		uint64_t d = (uint64_t)(*p - '0');

		if (ip > UINT64_MAX / 10 || (ip == UINT64_MAX / 10 && d > UINT64_MAX % 10))
			return -ERANGE;
		ip = ip * 10 + d;
	}
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++, fdigits++) {
			if (fdigits < 18) {	/* deeper digits are below 1 ns */
				frac = frac * 10 + (uint64_t)(*p - '0');
				fdiv *= 10;
			}
		}
		if (!fdigits)
			return -EINVAL;
	}
	if (!digits && !fdigits)
		return -EINVAL;
	if (*p) {
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (!strcmp(p, units[i].name))
				break;
		if (i == sizeof(units) / sizeof(units[0]))
			return -EINVAL;
		mult = units[i].mult;
	} else if (fdigits) {
		return -EINVAL;		/* "1.5" without a unit: fractional ns */
	}
	if (ip > UINT64_MAX / mult)
		return -ERANGE;
	v = ip * mult;
	/* frac/fdiv < 1 and mult <= 3.6e12: the product fits in long double exactly enough. */
	if (frac) {
		uint64_t f = (uint64_t)((long double)frac * mult / fdiv + 0.5L);

		if (v > UINT64_MAX - f)
			return -ERANGE;
		v += f;
	}
	*ns = v;
	return 0;
}
