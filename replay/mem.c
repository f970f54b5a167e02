// SPDX-License-Identifier: MIT
/*
 * pp-analyze's memory bound. A file from a stranger decides how many
 * streams, chunks, tasks, symbols and stacks the replay holds; every one of
 * them is capped, and their sum is bounded here:
 *
 *  - the bound (--max-memory SIZE, default half of the machine's RAM) is
 *    compared with what malloc holds (mallinfo2(): the heap and its mmapped
 *    blocks; the sanitizer's own count in ASan builds) after every chunk,
 *    metadata item batch and PP_MEM_CHECK_RECORDS records: past it the
 *    session stops with one line that names the bound and how to raise it;
 *  - between two checks the heap can grow by one decoded chunk and a few
 *    thousand records' state, so in release builds RLIMIT_DATA is set
 *    PP_MEM_HEADROOM (or an eighth of the bound) above it: an allocation
 *    that would pass it fails, and the failure is reported the same way.
 *    Sanitized builds reserve terabytes of shadow memory: no RLIMIT there.
 */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "mem.h"
#include "replay-internal.h"

#if defined(__SANITIZE_ADDRESS__)
#define PP_MEM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PP_MEM_ASAN 1
#endif
#endif

#ifdef PP_MEM_ASAN
size_t __sanitizer_get_current_allocated_bytes(void);
#endif

static uint64_t g_limit;	/* 0: no bound */
static int g_explicit;		/* set by --max-memory */
static int g_reported;

/**
 * pp_mem__default() - the bound without --max-memory: half of the RAM,
 * at least 256 MiB.
 */
uint64_t pp_mem__default(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	uint64_t ram = pages > 0 && psz > 0 ? (uint64_t)pages * (uint64_t)psz : 0;

	return ram / 2 > (256ull << 20) ? ram / 2 : 256ull << 20;
}

/**
 * pp_opts__bytes() - a size: an integer with an optional K, M, G or T
 * suffix (powers of 1024, an optional "iB" or "B" after it).
 * Return: 0 or -EINVAL.
 */
int pp_opts__bytes(const char *s, uint64_t *out)
{
	static const char units[] = "KMGT";
	unsigned long long v;
	const char *u;
	char *end;
	int shift = 0;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	if (*end && (u = strchr(units, end[0] & ~0x20))) {
		shift = 10 * (int)(u - units + 1);
		end++;
		if (!strcmp(end, "iB") || !strcmp(end, "B"))
			end += strlen(end);
	} else if (!strcmp(end, "B")) {
		end++;
	}
	if (*end || v > (UINT64_MAX >> shift))
		return -EINVAL;
	*out = (uint64_t)v << shift;
	return 0;
}

/**
 * pp_mem__parse() - a size as pp_opts__bytes() reads it, PP_MEM_MIN at least.
 * Return: 0 or -EINVAL.
 */
int pp_mem__parse(const char *s, uint64_t *out)
{
	uint64_t v;

	if (pp_opts__bytes(s, &v) || v < PP_MEM_MIN)
		return -EINVAL;
	*out = v;
	return 0;
}

#ifndef PP_MEM_ASAN
static int g_statm = -1;

/* The data and stack pages the kernel counts for us (/proc/self/statm), in bytes. */
static uint64_t vm_data(void)
{
	char buf[128];
	unsigned long long f[6];
	ssize_t n;

	if (g_statm < 0)
		g_statm = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
	n = g_statm >= 0 ? pread(g_statm, buf, sizeof(buf) - 1, 0) : -1;
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if (sscanf(buf, "%llu %llu %llu %llu %llu %llu", &f[0], &f[1], &f[2], &f[3], &f[4], &f[5]) != 6)
		return 0;
	return (uint64_t)f[5] * (uint64_t)sysconf(_SC_PAGESIZE);
}
#endif

/**
 * pp_mem__set_limit() - bound what malloc holds to @bytes from now on.
 * @bytes: the bound, 0 for none; @explicit_bound: given as --max-memory
 * (the message says so).
 */
void pp_mem__set_limit(uint64_t bytes, int explicit_bound)
{
	g_limit = bytes;
	g_explicit = explicit_bound;
	g_reported = 0;
#ifndef PP_MEM_ASAN
	if (bytes) {
		uint64_t room = bytes / 8 > PP_MEM_HEADROOM ? bytes / 8 : PP_MEM_HEADROOM;
		struct rlimit rl;

		if (!getrlimit(RLIMIT_DATA, &rl)) {
			uint64_t want = bytes + room;

			/* never above what the user's own ulimit -d says */
			if (rl.rlim_cur == RLIM_INFINITY || want < rl.rlim_cur) {
				rl.rlim_cur = want;
				setrlimit(RLIMIT_DATA, &rl);
			}
		}
	}
#endif
}

uint64_t pp_mem__limit(void) { return g_limit; }

/**
 * pp_mem__used() - the process's data memory: its heap, mmapped blocks,
 * static data and stack (VmData and the stack: what RLIMIT_DATA bounds),
 * or in sanitized builds what the sanitizer's malloc holds.
 */
uint64_t pp_mem__used(void)
{
#ifdef PP_MEM_ASAN
	return __sanitizer_get_current_allocated_bytes();
#else
	return vm_data();
#endif
}

/**
 * pp_mem__over() - is the bound exceeded? Return: 1 or 0.
 */
int pp_mem__over(void)
{
	return g_limit && pp_mem__used() > g_limit;
}

/**
 * pp_mem__format() - @bytes for a message: "1.5 GiB", "64 MiB".
 */
void pp_mem__format(uint64_t bytes, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	int u = 0;

	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	if (v == (double)(uint64_t)v)
		snprintf(buf, len, "%" PRIu64 " %s", (uint64_t)v, unit[u]);
	else
		snprintf(buf, len, "%.1f %s", v, unit[u]);
}

/* Has the bound been reported exceeded? */
int pp_mem__exceeded(void) { return g_reported; }

/**
 * pp_mem__report() - say, once, that the bound was exceeded and how to
 * raise it (spec/pp-errors.md: exit 1, a runtime failure).
 */
void pp_mem__report(void)
{
	char lim[32], used[32];

	if (g_reported || !g_limit)
		return;
	g_reported = 1;
	pp_mem__format(g_limit, lim, sizeof(lim));
	pp_mem__format(pp_mem__used(), used, sizeof(used));
	/* under it: an allocation failed at the backstop, or the machine is out of memory */
	fprintf(stderr, "pp-analyze: memory bound exceeded: %s in use%s, the bound is %s%s "
		"(raise it with --max-memory SIZE)\n", used,
		pp_mem__used() > g_limit ? "" : " and an allocation failed", lim,
		g_explicit ? "" : " (half the RAM)");
}

/**
 * pp_session__mem_check() - a checkpoint: past the bound, report it and
 * stop the session, which then returns -ENOMEM without a report.
 * Return: 0, or -ENOMEM when past the bound.
 */
int pp_session__mem_check(struct pp_session *s)
{
	if (!pp_mem__over())
		return 0;
	pp_mem__report();
	pp_session__fail(s, -ENOMEM);
	s->stop = 1;
	return -ENOMEM;
}
