// SPDX-License-Identifier: MIT
/*
 * --time START,END: the window of a replay.
 *
 * A bound is absolute (seconds as `trace` prints them, 12345.678901), after
 * the file's first record (+1.5s, +200ms) or a share of the file's span
 * (10%), as perf report's --time takes them; `A%-B%` and `P%/N` are perf's
 * percent forms. The session resolves the bounds against the span of the
 * file's DATA chunks (pp_time_window__resolve()), reads only the chunks
 * that overlap the window and delivers only the records inside it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pp/analyzer.h"

#define NS_PER_S	1000000000ull
#define PPB_PER_PCT	10000000ull	/* parts per billion in one percent */

/*
 * "DIGITS[.DIGITS]" scaled by @scale (a power of ten): 1.5 with scale 10^9
 * is 1500000000. Digits past the scale's precision are refused rather than
 * rounded: they would not mean what the user wrote. Return: chars used, or
 * -1 (malformed, overflow).
 */
static int parse_decimal(const char *s, uint64_t scale, uint64_t *out)
{
	const char *p = s;
	uint64_t ip = 0, frac = 0, f = scale;

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (ip > (UINT64_MAX - 9) / 10)
			return -1;
		ip = ip * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return -1;
		for (; *p >= '0' && *p <= '9'; p++) {
			f /= 10;
			if (!f) {
				if (*p != '0')
					return -1;
				continue;
			}
			frac += (uint64_t)(*p - '0') * f;
		}
	}
	if (ip > (UINT64_MAX - frac) / scale)
		return -1;
	*out = ip * scale + frac;
	return (int)(p - s);
}

/* A time unit suffix at @s (none: seconds); Return: ns per unit, 0 unknown. */
static uint64_t unit_ns(const char *s, size_t n)
{
	if (!n || (n == 1 && *s == 's'))
		return NS_PER_S;
	if (n == 2 && !strncmp(s, "ms", 2))
		return 1000000ull;
	if (n == 2 && !strncmp(s, "us", 2))
		return 1000ull;
	if (n == 2 && !strncmp(s, "ns", 2))
		return 1;
	return 0;
}

/* A time with an optional unit, to ns: "1.5", "1.5s", "200ms", "3us". */
static int parse_time_unit(const char *s, size_t n, uint64_t *ns)
{
	char buf[64];
	uint64_t v, u;
	int used;

	if (n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	/* the unit first: its power of ten is the precision of the number */
	used = 0;
	while (used < (int)n && ((buf[used] >= '0' && buf[used] <= '9') || buf[used] == '.'))
		used++;
	u = unit_ns(buf + used, n - (size_t)used);
	if (!u)
		return -1;
	buf[used] = '\0';
	if (parse_decimal(buf, u, &v) != used)
		return -1;
	*ns = v;
	return 0;
}

/* One bound of "START,END", @n bytes at @s. */
static int parse_bound(const char *s, size_t n, struct pp_time_bound *b)
{
	uint64_t v;

	b->kind = PP_TIME_NONE;
	b->v = 0;
	if (!n)
		return 0;
	if (s[n - 1] == '%') {
		char buf[32];

		if (n - 1 >= sizeof(buf) || n == 1)
			return -1;
		memcpy(buf, s, n - 1);
		buf[n - 1] = '\0';
		if (parse_decimal(buf, PPB_PER_PCT, &v) != (int)(n - 1) || v > 100 * PPB_PER_PCT)
			return -1;
		b->kind = PP_TIME_PCT;
		b->v = v;
		return 0;
	}
	if (*s == '+') {
		if (parse_time_unit(s + 1, n - 1, &v))
			return -1;
		b->kind = PP_TIME_REL;
		b->v = v;
		return 0;
	}
	if (parse_time_unit(s, n, &v))
		return -1;
	b->kind = PP_TIME_ABS;
	b->v = v;
	return 0;
}

int pp_time_window__parse(const char *arg, struct pp_time_window *w)
{
	const char *comma = strchr(arg, ','), *slash, *dash;

	memset(w, 0, sizeof(*w));
	if (comma) {
		if (strchr(comma + 1, ','))
			return -EINVAL;		/* one window: perf's lists of ranges are not taken */
		if (parse_bound(arg, (size_t)(comma - arg), &w->lo) ||
		    parse_bound(comma + 1, strlen(comma + 1), &w->hi))
			return -EINVAL;
		w->arg = arg;
		return 0;
	}
	slash = strchr(arg, '/');
	if (slash) {
		/* P%/N: the N-th slice of P percent (perf report --time 10%/2) */
		uint64_t p, k;
		char *end;

		if (slash == arg || slash[-1] != '%' || parse_bound(arg, (size_t)(slash - arg), &w->lo) ||
		    !w->lo.v || slash[1] < '1' || slash[1] > '9')
			return -EINVAL;
		errno = 0;
		k = strtoull(slash + 1, &end, 10);
		p = w->lo.v;
		if (errno || *end || !k || k > 100 * PPB_PER_PCT / p)
			return -EINVAL;
		w->lo.v = (k - 1) * p;
		w->hi.kind = PP_TIME_PCT;
		w->hi.v = k * p;
		w->arg = arg;
		return 0;
	}
	dash = strchr(arg, '-');
	if (dash && dash > arg && dash[-1] == '%') {
		/* A%-B%: both bounds are percentages */
		if (parse_bound(arg, (size_t)(dash - arg), &w->lo) ||
		    parse_bound(dash + 1, strlen(dash + 1), &w->hi) ||
		    w->hi.kind != PP_TIME_PCT)
			return -EINVAL;
		w->arg = arg;
		return 0;
	}
	return -EINVAL;
}

static uint64_t bound_ns(const struct pp_time_bound *b, uint64_t first, uint64_t last, uint64_t dflt)
{
	switch (b->kind) {
	case PP_TIME_ABS:
		return b->v;
	case PP_TIME_REL:
		return b->v > UINT64_MAX - first ? UINT64_MAX : first + b->v;
	case PP_TIME_PCT:
		return first + (uint64_t)((unsigned __int128)(last - first) * b->v /
					  (100 * PPB_PER_PCT));
	default:
		return dflt;
	}
}

/* Seconds as trace prints them: 12345.678901. */
static void fmt_ts(char *buf, size_t len, uint64_t ns)
{
	snprintf(buf, len, "%llu.%06llu", (unsigned long long)(ns / NS_PER_S),
		 (unsigned long long)(ns % NS_PER_S / 1000));
}

int pp_time_window__resolve(const struct pp_time_window *w, uint64_t first, uint64_t last,
			    uint64_t *start, uint64_t *end, char *err, size_t errlen)
{
	char a[32], b[32], f[32], l[32];
	uint64_t lo, hi;

	if (last < first)
		last = first;
	lo = bound_ns(&w->lo, first, last, first);
	hi = bound_ns(&w->hi, first, last, last);
	fmt_ts(a, sizeof(a), lo);
	fmt_ts(b, sizeof(b), hi);
	fmt_ts(f, sizeof(f), first);
	fmt_ts(l, sizeof(l), last);
	if (lo > last || hi < first) {
		snprintf(err, errlen, "--time '%s': the window %s-%s is outside the file's records (%s-%s)",
			 w->arg, a, b, f, l);
		return -EINVAL;
	}
	if (hi < lo) {
		snprintf(err, errlen, "--time '%s': the window is empty (it ends at %s, before its start %s)",
			 w->arg, b, a);
		return -EINVAL;
	}
	*start = lo;
	*end = hi;
	return 0;
}
