// SPDX-License-Identifier: MIT
/*
 * The one -e entry parser (include/pp/evspec.h): tracepoints with a kernel
 * filter and attributes, named software and hardware events, probes and
 * breakpoints; and the probe PMUs (uprobe, kprobe) with ELF symbol -> file
 * offset lookup. pp-record and pp-analyze (files and --live) all parse here.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/hw_breakpoint.h>

#include "pp/evspec.h"
#include "pp/perf.h"
#include "record.h"

/* The one table of named events; sampling ones default to 99 Hz. */
static const struct {
	const char *name;
	enum pp_evspec_kind kind;
	uint64_t config;
} named_events[] = {
	{ "cpu-clock",		PP_EV_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock",		PP_EV_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults",	PP_EV_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults",		PP_EV_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "minor-faults",	PP_EV_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults",	PP_EV_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "context-switches",	PP_EV_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs",			PP_EV_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations",	PP_EV_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations",		PP_EV_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "cycles",		PP_EV_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles",		PP_EV_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions",	PP_EV_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references",	PP_EV_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses",	PP_EV_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branches",		PP_EV_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses",	PP_EV_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
#define HWC(c, op, res) (PERF_COUNT_HW_CACHE_##c | PERF_COUNT_HW_CACHE_OP_##op << 8 | \
			 PERF_COUNT_HW_CACHE_RESULT_##res << 16)
	{ "L1-dcache-loads",	PP_EV_HW_CACHE, HWC(L1D, READ, ACCESS) },
	{ "L1-dcache-load-misses", PP_EV_HW_CACHE, HWC(L1D, READ, MISS) },
	{ "LLC-loads",		PP_EV_HW_CACHE, HWC(LL, READ, ACCESS) },
	{ "LLC-load-misses",	PP_EV_HW_CACHE, HWC(LL, READ, MISS) },
	{ "LLC-stores",		PP_EV_HW_CACHE, HWC(LL, WRITE, ACCESS) },
	{ "LLC-store-misses",	PP_EV_HW_CACHE, HWC(LL, WRITE, MISS) },
	{ "dTLB-loads",		PP_EV_HW_CACHE, HWC(DTLB, READ, ACCESS) },
	{ "dTLB-load-misses",	PP_EV_HW_CACHE, HWC(DTLB, READ, MISS) },
	{ "dTLB-stores",	PP_EV_HW_CACHE, HWC(DTLB, WRITE, ACCESS) },
	{ "dTLB-store-misses",	PP_EV_HW_CACHE, HWC(DTLB, WRITE, MISS) },
	{ "iTLB-loads",		PP_EV_HW_CACHE, HWC(ITLB, READ, ACCESS) },
	{ "iTLB-load-misses",	PP_EV_HW_CACHE, HWC(ITLB, READ, MISS) },
#undef HWC
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define ENTRY_MAX	2048

static const char *const pmu_names[] = PP_EVSPEC_PMUS;

/* The length of the PMU name when @s (up to @end) begins "PMU/", else 0. */
static size_t pmu_head(const char *s, const char *end)
{
	for (size_t i = 0; i < ARRAY_SIZE(pmu_names); i++) {
		size_t n = strlen(pmu_names[i]);

		if ((size_t)(end - s) > n && !strncmp(s, pmu_names[i], n) && s[n] == '/')
			return n;
	}
	return 0;
}

/* Where a PMU entry "PMU/TERMS/MODS" starting at @s ends: its commas are the terms'. */
static char *pmu_entry_end(char *s, size_t n)
{
	char *close = strchr(s + n + 1, '/'), *p;

	if (!close)
		return s + strlen(s);
	for (p = close + 1; (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'); p++)
		;
	if (*p && *p != ',') {
		p = strchr(p, ',');
		return p ? p : s + strlen(s);
	}
	return p;
}

/**
 * pp_evspec__is_named() - whether @name is a named software/hardware event.
 * @name: an event name.
 * Return: 1 or 0.
 */
int pp_evspec__is_named(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(named_events); i++)
		if (!strcmp(name, named_events[i].name))
			return 1;
	return 0;
}

/*
 * Where an entry's HEAD ends. A probe's path and a breakpoint's length hold
 * slashes, so their blocks begin at "//"; any other HEAD ends at its first
 * slash. @end: the end of the entry (a comma or NUL when splitting).
 */
static const char *head_end(const char *s, const char *end)
{
	const char *slash = memchr(s, '/', (size_t)(end - s));
	const char *at = memchr(s, '@', (size_t)(end - s));

	if (!strncmp(s, "usdt:", 5) && at) {
		/* a USDT filter: the path ends before the first '/' after an existing file */
		char path[PATH_MAX];
		struct stat st;

		for (const char *p = at + 2; p < end; p++) {
			if (*p != '/' || (size_t)(p - at - 1) >= sizeof(path))
				continue;
			memcpy(path, at + 1, (size_t)(p - at - 1));
			path[p - at - 1] = '\0';
			if (!stat(path, &st) && S_ISREG(st.st_mode))
				return p;
		}
	}
	if (!strncmp(s, "mem:", 4) || (at && (!slash || at < slash))) {
		for (const char *p = s; p + 1 < end; p++)
			if (p[0] == '/' && p[1] == '/')
				return p;
		return end;
	}
	return slash ? slash : end;
}

/**
 * pp_evspec__split() - split an -e argument into entries, in place.
 * @arg: the argument; @entries, @max: receive pointers into @arg.
 *
 * An entry ends at a comma outside its blocks: after HEAD (see head_end()),
 * a block section runs to a '/' that is followed by a comma or the end.
 * Return: the number of entries, or -E2BIG.
 */
int pp_evspec__split(char *arg, char **entries, int max)
{
	char *p = arg;
	int n = 0;

	while (*p) {
		char *start = p, *comma = strchr(p, ','), *lim = comma ? comma : p + strlen(p);
		size_t pn = pmu_head(start, start + strlen(start));
		char *h = pn ? start : (char *)head_end(start, lim);

		if (pn) {
			lim = pmu_entry_end(start, pn);
		} else if (*h == '/') {
			/* blocks: the first '/' followed by ',' or NUL past HEAD's own */
			char *q = h + 1;

			while (*q && !(*q == '/' && (q[1] == ',' || !q[1])))
				q++;
			lim = *q ? q + 1 : q;
		}
		p = *lim ? lim + 1 : lim;
		*lim = '\0';
		if (!*start)
			continue;
		if (n == max)
			return -E2BIG;
		entries[n++] = start;
	}
	return n;
}

static int set_str(char *dst, size_t size, const char *v, const char *what, char *err,
		   size_t errlen)
{
	size_t n = strlen(v);

	if (n >= size) {
		snprintf(err, errlen, "%s '%.40s...' is too long (at most %zu bytes)", what, v,
			 size - 1);
		return -EINVAL;
	}
	memcpy(dst, v, n + 1);
	return 0;
}

/* One ATTR block: "stack", "max-stack=N", "key=FIELD", ... */
static int parse_attr(struct pp_evspec *sp, const char *a, char *err, size_t errlen)
{
	static const struct {
		const char *key;
		size_t off;
	} strs[] = {
		{ "alias", offsetof(struct pp_evspec, alias) },
		{ "key", offsetof(struct pp_evspec, key) },
		{ "comm", offsetof(struct pp_evspec, comm) },
		{ "num", offsetof(struct pp_evspec, num) },
		{ "ptr", offsetof(struct pp_evspec, ptr) },
		{ "size", offsetof(struct pp_evspec, size) },
		{ "role", offsetof(struct pp_evspec, role) },
	};
	const char *eq = strchr(a, '=');
	size_t klen = eq ? (size_t)(eq - a) : strlen(a);
	const char *v = eq ? eq + 1 : NULL;

#define KEY(k) (klen == sizeof(k) - 1 && !strncmp(a, k, klen))
	if (!klen)
		return 0;
	if (KEY("stack") && !v) {
		sp->stack = 1;
		return 0;
	}
	if (KEY("untraced") && !v) {
		sp->untraced = 1;
		return 0;
	}
	if (KEY("trigger") && !v) {
		sp->trigger = 1;
		return 0;
	}
	if (KEY("regs") && !v) {
		sp->regs = 1;
		return 0;
	}
	if (KEY("ustack") && v) {
		char *end;
		long n = strtol(v, &end, 10);

		if (end == v || *end || n < 8 || n > 65528 || n % 8) {
			snprintf(err, errlen, "bad ustack '%s' (8..65528, a multiple of 8)", v);
			return -EINVAL;
		}
		sp->ustack = (uint32_t)n;
		return 0;
	}
	if (KEY("max-stack") && v) {
		char *end;
		long n = strtol(v, &end, 10);

		if (end == v || *end || n < 1 || n > 1024) {
			snprintf(err, errlen, "bad max-stack '%s' (1..1024)", v);
			return -EINVAL;
		}
		sp->max_stack = (int)n;
		sp->stack = 1;
		return 0;
	}
	if ((KEY("top-by") || KEY("top-add")) && v) {
		int by = KEY("top-by");
		int *nr = by ? &sp->nr_top_by : &sp->nr_top_add;

		if (*nr == PP_EVSPEC_MAX_TOP) {
			snprintf(err, errlen, "at most %d %.*s= attributes", PP_EVSPEC_MAX_TOP,
				 (int)klen, a);
			return -EINVAL;
		}
		if (set_str(by ? sp->top_by[*nr] : sp->top_add[*nr], PP_EVSPEC_ATTR_MAX, v,
			    by ? "top-by" : "top-add", err, errlen))
			return -EINVAL;
		(*nr)++;
		return 0;
	}
	for (size_t i = 0; v && i < ARRAY_SIZE(strs); i++)
		if (strlen(strs[i].key) == klen && !strncmp(a, strs[i].key, klen))
			return set_str((char *)sp + strs[i].off, PP_EVSPEC_ATTR_MAX, v, strs[i].key,
				       err, errlen);
#undef KEY
	snprintf(err, errlen, "unknown attribute '%s' (known: stack, max-stack=N, alias=NAME, "
		 "key=, top-by=, top-add=, comm=, num=, ptr=, size=, role=, untraced, trigger, regs, ustack=N)", a);
	return -EINVAL;
}

/*
 * "mem:ADDR[/LEN][:rwx]" as perf writes it: a hardware breakpoint on ADDR
 * (hex or decimal), LEN 1, 2, 4 or 8 bytes (default 4; execute: a long),
 * access r, w, x or a mix of r and w (default rw).
 */
static int parse_breakpoint(const char *s, struct pp_evspec *sp, char *err, size_t errlen)
{
	const char *p = s + 4;
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(p, &end, 0);
	if (errno || end == p)
		goto bad;
	sp->bp_addr = v;
	sp->bp_len = 4;
	sp->bp_type = HW_BREAKPOINT_R | HW_BREAKPOINT_W;
	if (*end == '/') {
		p = end + 1;
		v = strtoull(p, &end, 0);
		if (end == p || (v != 1 && v != 2 && v != 4 && v != 8))
			goto bad;
		sp->bp_len = (uint32_t)v;
	}
	if (*end == ':') {
		sp->bp_type = 0;
		for (p = end + 1; *p; p++) {
			if (*p == 'r')
				sp->bp_type |= HW_BREAKPOINT_R;
			else if (*p == 'w')
				sp->bp_type |= HW_BREAKPOINT_W;
			else if (*p == 'x')
				sp->bp_type |= HW_BREAKPOINT_X;
			else
				goto bad;
		}
		end = (char *)p;
		if (!sp->bp_type || ((sp->bp_type & HW_BREAKPOINT_X) && sp->bp_type != HW_BREAKPOINT_X))
			goto bad;
	}
	if (*end)
		goto bad;
	if (sp->bp_type == HW_BREAKPOINT_X)
		sp->bp_len = sizeof(long);
	sp->kind = PP_EV_BREAKPOINT;
	pp_evspec__breakpoint_name(sp->bp_addr, sp->bp_len, sp->bp_type, sp->pattern,
				   sizeof(sp->pattern));
	return 0;
bad:
	snprintf(err, errlen, "'%s': expected mem:ADDR[/LEN][:rwx] (LEN 1, 2, 4, 8; x alone)", s);
	return -EINVAL;
}

/**
 * pp_evspec__breakpoint_name() - the event name of a breakpoint, as recorded:
 * "mem:0xADDR/LEN:rwx".
 * @addr, @len, @type: the breakpoint; @buf, @size: destination.
 * Return: @buf.
 */
char *pp_evspec__breakpoint_name(uint64_t addr, uint32_t len, uint32_t type, char *buf,
				 size_t size)
{
	snprintf(buf, size, "mem:%#llx/%u:%s%s%s", (unsigned long long)addr, len,
		 type & HW_BREAKPOINT_R ? "r" : "", type & HW_BREAKPOINT_W ? "w" : "",
		 type & HW_BREAKPOINT_X ? "x" : "");
	return buf;
}

/* HEAD: what kind of event, and its parts. */
static int parse_head(const char *s, struct pp_evspec *sp, char *err, size_t errlen)
{
	const char *colon = strchr(s, ':');

	if (!*s) {
		snprintf(err, errlen, "empty event name");
		return -EINVAL;
	}
	if (!strncmp(s, "mem:", 4))
		return parse_breakpoint(s, sp, err, errlen);
	if (set_str(sp->pattern, sizeof(sp->pattern), s, "event", err, errlen))
		return -EINVAL;
	if (!strncmp(s, "uprobe:", 7) || !strncmp(s, "uretprobe:", 10)) {
		const char *f = colon + 1, *a = strchr(f, '@');

		sp->kind = PP_EV_UPROBE;
		sp->retprobe = s[1] == 'r';
		if (!a || a == f || !a[1] || (size_t)(a - f) >= sizeof(sp->func)) {
			snprintf(err, errlen, "'%s': expected uprobe:FUNC@/path/to/binary", s);
			return -EINVAL;
		}
		memcpy(sp->func, f, (size_t)(a - f));
		return set_str(sp->path, sizeof(sp->path), a + 1, "path", err, errlen);
	}
	if (!strncmp(s, "usdt:", 5)) {
		const char *prov = s + 5, *c2 = strchr(prov, ':'), *a = c2 ? strchr(c2, '@') : NULL;

		sp->kind = PP_EV_USDT;
		if (!c2 || c2 == prov || !a || a == c2 + 1 || !a[1] ||
		    (size_t)(c2 - prov) >= sizeof(sp->sys) ||
		    (size_t)(a - c2 - 1) >= sizeof(sp->event)) {
			snprintf(err, errlen, "'%s': expected usdt:PROVIDER:NAME@/path/to/binary", s);
			return -EINVAL;
		}
		memcpy(sp->sys, prov, (size_t)(c2 - prov));
		memcpy(sp->event, c2 + 1, (size_t)(a - c2 - 1));
		return set_str(sp->path, sizeof(sp->path), a + 1, "path", err, errlen);
	}
	if (!strncmp(s, "kprobe:", 7) || !strncmp(s, "kretprobe:", 10)) {
		sp->kind = PP_EV_KPROBE;
		sp->retprobe = s[1] == 'r';
		if (!colon[1]) {
			snprintf(err, errlen, "'%s': expected kprobe:FUNC", s);
			return -EINVAL;
		}
		return set_str(sp->func, sizeof(sp->func), colon + 1, "function", err, errlen);
	}
	if (colon) {
		size_t sl = (size_t)(colon - s);

		sp->kind = PP_EV_TRACEPOINT;
		if (!sl || !colon[1] || strchr(colon + 1, ':') || strchr(s, '@')) {
			snprintf(err, errlen, "'%s': expected SYSTEM:EVENT", s);
			return -EINVAL;
		}
		if (sl >= sizeof(sp->sys)) {
			snprintf(err, errlen, "'%s': system name too long", s);
			return -EINVAL;
		}
		memcpy(sp->sys, s, sl);
		return set_str(sp->event, sizeof(sp->event), colon + 1, "event", err, errlen);
	}
	for (size_t i = 0; i < ARRAY_SIZE(named_events); i++) {
		if (!strcmp(s, named_events[i].name)) {
			sp->kind = named_events[i].kind;
			sp->config = named_events[i].config;
			return 0;
		}
	}
	snprintf(err, errlen, "unknown event '%s' (expected SYSTEM:EVENT, uprobe:FUNC@PATH, "
		 "usdt:PROVIDER:NAME@PATH, "
		 "kprobe:FUNC, mem:ADDR[/LEN][:rwx], cpu-clock, page-faults, cycles, ...)", s);
	return -ENOENT;
}

/* "FILTER/ATTR/.../" after HEAD's slash, in place. */
static int parse_blocks(char *blocks, const char *entry, struct pp_evspec *sp, char *err,
			size_t errlen)
{
	char *end = strchr(blocks, '/'), *p;
	int r;

	if (!end) {
		snprintf(err, errlen, "'%s': the filter section must end with '/'", entry);
		return -EINVAL;
	}
	*end = '\0';
	if (set_str(sp->filter, sizeof(sp->filter), blocks, "filter", err, errlen))
		return -EINVAL;
	for (p = end + 1; *p;) {
		char *e = strchr(p, '/');

		if (e)
			*e = '\0';
		r = parse_attr(sp, p, err, errlen);
		if (r)
			return r;
		if (!e)
			break;
		p = e + 1;
	}
	return 0;
}

/* @entry copied into @buf, its " help" suffix taken off; Return: 0 or -EINVAL. */
static int entry_copy(const char *entry, char *buf, size_t size, struct pp_evspec *sp, char *err,
		      size_t errlen)
{
	size_t l = strlen(entry);

	memset(sp, 0, sizeof(*sp));
	if (l >= size) {
		snprintf(err, errlen, "event '%.40s...' is too long", entry);
		return -EINVAL;
	}
	memcpy(buf, entry, l + 1);
	if (l > 5 && !strcmp(buf + l - 5, " help")) {
		sp->help = 1;
		buf[l - 5] = '\0';
	}
	return 0;
}

/* A term's name: letters, digits, '_', '-', '.'; not a path. */
static int term_name_ok(const char *s, size_t n)
{
	if (!n || s[0] == '.')
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '-' || s[i] == '.'))
			return 0;
	return 1;
}

/* One term "NAME[=VALUE]": its name's length and value (1 when none). Return: 0, -EINVAL. */
static int term_split(const char *t, size_t len, size_t *nlen, uint64_t *v)
{
	const char *eq = memchr(t, '=', len);
	char num[32], *end;

	*nlen = eq ? (size_t)(eq - t) : len;
	*v = 1;
	if (!term_name_ok(t, *nlen))
		return -EINVAL;
	if (!eq)
		return 0;
	if ((size_t)(t + len - eq - 1) >= sizeof(num) || eq + 1 == t + len)
		return -EINVAL;
	memcpy(num, eq + 1, (size_t)(t + len - eq - 1));
	num[t + len - eq - 1] = '\0';
	errno = 0;
	*v = strtoull(num, &end, 0);
	return errno || *end || num[0] == '-' ? -EINVAL : 0;
}

/* "PMU/TERMS/MODS": the PMU, its terms (checked, resolved when built) and modifiers. */
static int parse_pmu(const char *s, size_t n, struct pp_evspec *sp, char *err, size_t errlen)
{
	const char *terms = s + n + 1, *close = strchr(terms, '/'), *t;

	if (!close) {
		snprintf(err, errlen, "'%s': expected PMU/TERMS/[MODIFIERS]", s);
		return -EINVAL;
	}
	if ((size_t)(close - terms) >= sizeof(sp->terms)) {
		snprintf(err, errlen, "'%s': terms too long", s);
		return -EINVAL;
	}
	memcpy(sp->pmu, s, n);
	sp->pmu[n] = '\0';
	memcpy(sp->terms, terms, (size_t)(close - terms));
	sp->terms[close - terms] = '\0';
	for (t = sp->terms; *t;) {
		const char *c = strchr(t, ',');
		size_t len = c ? (size_t)(c - t) : strlen(t), nlen;
		uint64_t v;

		if (term_split(t, len, &nlen, &v)) {
			snprintf(err, errlen, "'%s': bad term '%.*s' (NAME or NAME=NUMBER)", s, (int)len, t);
			return -EINVAL;
		}
		t += len + !!c;
	}
	for (const char *m = close + 1; *m; m++) {
		if (*m == 'p' && sp->precise < 3) {
			sp->precise++;
		} else if (*m == 'u') {
			sp->user_only = 1;
		} else if (*m == 'k') {
			sp->kernel_only = 1;
		} else {
			snprintf(err, errlen, "'%s': bad modifier '%c' (p, pp, ppp, u, k)", s, *m);
			return -EINVAL;
		}
	}
	sp->kind = PP_EV_PMU;
	return set_str(sp->pattern, sizeof(sp->pattern), s, "event", err, errlen);
}

/**
 * pp_evspec__parse() - parse one entry "HEAD[/FILTER/ATTR.../][ help]".
 * @entry: the entry; @sp: receives the parts; @err, @errlen: message.
 * Return: 0, -EINVAL or -ENOENT with @err set.
 */
int pp_evspec__parse(const char *entry, struct pp_evspec *sp, char *err, size_t errlen)
{
	char buf[ENTRY_MAX], *h;
	int r;

	if (entry_copy(entry, buf, sizeof(buf), sp, err, errlen))
		return -EINVAL;
	if (pmu_head(buf, buf + strlen(buf)))
		return parse_pmu(buf, pmu_head(buf, buf + strlen(buf)), sp, err, errlen);
	h = (char *)head_end(buf, buf + strlen(buf));
	if (*h == '/') {
		*h = '\0';
		r = parse_blocks(h + 1, entry, sp, err, errlen);
		if (r)
			return r;
	}
	r = parse_head(buf, sp, err, errlen);
	if (r)
		return r;
	if (sp->filter[0] && sp->kind != PP_EV_TRACEPOINT && sp->kind != PP_EV_USDT) {
		snprintf(err, errlen, "'%s': a kernel filter applies to tracepoints and USDT "
			 "probes only", entry);
		return -EINVAL;
	}
	return 0;
}

/**
 * pp_evspec__parse_source() - parse the entry of a profiler used as an event
 * source, "NAME[/OPTIONS/ATTR.../]": @sp gets NAME as its pattern, the
 * attributes, and @source set; the options block is the module's.
 * @entry, @sp, @err, @errlen: as for pp_evspec__parse().
 * Return: 0 or -EINVAL.
 */
int pp_evspec__parse_source(const char *entry, struct pp_evspec *sp, char *err, size_t errlen)
{
	char buf[ENTRY_MAX], *h;

	if (entry_copy(entry, buf, sizeof(buf), sp, err, errlen))
		return -EINVAL;
	h = strchr(buf, '/');
	if (h) {
		*h = '\0';
		if (parse_blocks(h + 1, entry, sp, err, errlen))
			return -EINVAL;
		sp->filter[0] = '\0';
	}
	sp->source = 1;
	return set_str(sp->pattern, sizeof(sp->pattern), buf, "profiler", err, errlen);
}

/* A small sysfs file @root/@pmu/@file into @buf, its newline cut. Return: 0 or -errno. */
static int pmu_read(const char *root, const char *pmu, const char *file, char *buf, size_t size)
{
	char path[512];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s/%s", root, pmu, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return -EINVAL;
	buf[n] = 0;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
	return 0;
}

/* The PMU type number from sysfs, or -errno. */
static int pmu_type(const char *pmu)
{
	char buf[32];
	int r = pmu_read(PP_PMU_SYSFS, pmu, "type", buf, sizeof(buf));

	return r ? r : atoi(buf);
}

/**
 * pp_evspec__is_mem() - does PMU event @sp sample memory accesses?
 * Return: 1 or 0.
 */
int pp_evspec__is_mem(const struct pp_evspec *sp)
{
	const char *t = sp->terms;

	if (sp->kind != PP_EV_PMU)
		return 0;
	if (!strcmp(sp->pmu, "ibs_op"))
		return 1;
	while (*t) {
		size_t len = strcspn(t, ",");

		if ((len == 9 && !strncmp(t, "mem-loads", 9)) || (len == 10 && !strncmp(t, "mem-stores", 10)))
			return 1;
		t += len + (t[len] == ',');
	}
	return 0;
}

/**
 * pp_pmu_has() - whether PMU @pmu (and its @file, when not NULL) exists under @root.
 * Return: 1 or 0.
 */
int pp_pmu_has(const char *root, const char *pmu, const char *file)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s/%s", root, pmu, file ? file : "type");
	return !access(path, R_OK);
}

/*
 * Put @v into the bits a format file names ("config:0-7", "config1:0-15",
 * "config:0-7,32-35": the value's low bits go to the first range).
 */
static int format_apply(struct perf_event_attr *a, const char *fmt, uint64_t v)
{
	__u64 *cfg;
	const char *p;

	if (!strncmp(fmt, "config:", 7)) {
		cfg = &a->config;
		p = fmt + 7;
	} else if (!strncmp(fmt, "config1:", 8)) {
		cfg = &a->config1;
		p = fmt + 8;
	} else if (!strncmp(fmt, "config2:", 8)) {
		cfg = &a->config2;
		p = fmt + 8;
	} else {
		return -EINVAL;
	}
	while (*p) {
		char *end;
		unsigned long lo = strtoul(p, &end, 10), hi = lo, w;
		uint64_t mask;

		if (end == p)
			return -EINVAL;
		if (*end == '-') {
			p = end + 1;
			hi = strtoul(p, &end, 10);
			if (end == p)
				return -EINVAL;
		}
		if (lo > 63 || hi > 63 || hi < lo)
			return -EINVAL;
		w = hi - lo + 1;
		mask = w == 64 ? ~0ull : (1ull << w) - 1;
		*cfg = (*cfg & ~(mask << lo)) | ((v & mask) << lo);
		v = w == 64 ? 0 : v >> w;
		p = end;
		if (*p == ',')
			p++;
		else if (*p)
			return -EINVAL;
	}
	return v ? -ERANGE : 0;
}

/* Apply the comma-separated @terms; @alias: 1 when they may name event aliases. */
static int pmu_terms(struct perf_event_attr *a, const char *root, const char *pmu,
		     const char *terms, int alias, char *err, size_t errlen)
{
	const char *t = terms;

	while (*t) {
		const char *c = strchr(t, ',');
		size_t len = c ? (size_t)(c - t) : strlen(t), nlen;
		char name[96], file[128], val[256];
		uint64_t v;
		int r;

		if (term_split(t, len, &nlen, &v) || nlen >= sizeof(name)) {
			snprintf(err, errlen, "%s: bad term '%.*s'", pmu, (int)len, t);
			return -EINVAL;
		}
		memcpy(name, t, nlen);
		name[nlen] = '\0';
		snprintf(file, sizeof(file), "format/%s", name);
		if (!pmu_read(root, pmu, file, val, sizeof(val))) {
			r = format_apply(a, val, v);
			if (r) {
				snprintf(err, errlen, "%s: term '%.*s' does not fit its format '%s'", pmu,
					 (int)len, t, val);
				return -EINVAL;
			}
		} else {
			snprintf(file, sizeof(file), "events/%s", name);
			if (!alias || memchr(t, '=', len) ||
			    pmu_read(root, pmu, file, val, sizeof(val))) {
				snprintf(err, errlen, "%s: unknown term '%s' (not in %s/%s/format or "
					 "events)", pmu, name, root, pmu);
				return -ENOENT;
			}
			r = pmu_terms(a, root, pmu, val, 0, err, errlen);
			if (r)
				return r;
		}
		t += len + !!c;
	}
	return 0;
}

/**
 * pp_pmu_attr() - type and config of the PMU event @pmu/@terms from sysfs under @root.
 * @attr: attributes; @root, @pmu, @terms: the event; @err, @errlen: message.
 * Return: 0, -ENODEV, -ENOENT or -EINVAL.
 */
int pp_pmu_attr(struct perf_event_attr *attr, const char *root, const char *pmu,
		const char *terms, char *err, size_t errlen)
{
	char buf[32];

	if (pmu_read(root, pmu, "type", buf, sizeof(buf))) {
		snprintf(err, errlen, "no PMU '%s' on this host (%s/%s)", pmu, root, pmu);
		return -ENODEV;
	}
	attr->type = (uint32_t)atoi(buf);
	attr->config = attr->config1 = attr->config2 = 0;
	return pmu_terms(attr, root, pmu, terms, 1, err, errlen);
}

/* Bit of "retprobe" in the PMU's format/retprobe ("config:0"). */
static int pmu_retprobe_bit(const char *pmu)
{
	char path[256], buf[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/format/retprobe", pmu);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	return strncmp(buf, "config:", 7) ? 0 : atoi(buf + 7);
}

/**
 * pp_uprobe_attr() - fill @attr for a uprobe (or uretprobe) through the uprobe PMU.
 * @attr: attributes to fill (type, config, config1/2); @func, @path: target;
 * @ret: 1 for a return probe; @err, @errlen: message on failure.
 * Return: 0 or -errno.
 */
int pp_uprobe_attr(struct perf_event_attr *attr, const char *func, const char *path, int ret,
		   char *err, size_t errlen)
{
	uint64_t off;
	int type = pmu_type("uprobe"), r;

	if (type < 0) {
		snprintf(err, errlen, "uprobes are not supported by this kernel (no uprobe PMU)");
		return -EOPNOTSUPP;
	}
	if (access(path, R_OK)) {
		r = -errno;
		snprintf(err, errlen, "uprobe: cannot read %s: %s", path, strerror(errno));
		return r;
	}
	if (!strncmp(func, "0x", 2)) {
		off = strtoull(func, NULL, 16);
	} else {
		r = pp_elf_sym_offset(path, func, &off);
		if (r) {
			if (r == -ENOENT)
				snprintf(err, errlen, "uprobe: %s: no such function symbol '%s'", path,
					 func);
			else
				snprintf(err, errlen, "uprobe: %s: %s", path,
					 r == -ENOEXEC ? "not an ELF file" : strerror(-r));
			return r;
		}
	}
	attr->type = (uint32_t)type;
	attr->config = ret ? 1ull << pmu_retprobe_bit("uprobe") : 0;
	attr->config1 = (uint64_t)(uintptr_t)path;
	attr->config2 = off;
	return 0;
}

/* What pp_uprobe_cost() probes: a call that does nothing. */
__attribute__((noinline, used)) void pp_uprobe_cost_target(int i);
void pp_uprobe_cost_target(int i)
{
	__asm__ volatile("" : : "r"(i) : "memory");
}

/* The least time of 3 rounds of @n calls of pp_uprobe_cost_target(), in ns. */
static uint64_t time_calls(int n)
{
	uint64_t best = UINT64_MAX;

	for (int r = 0; r < 3; r++) {
		struct timespec a, b;
		uint64_t d;

		clock_gettime(CLOCK_MONOTONIC, &a);
		for (int i = 0; i < n; i++)
			pp_uprobe_cost_target(i);
		clock_gettime(CLOCK_MONOTONIC, &b);
		d = (uint64_t)(b.tv_sec - a.tv_sec) * 1000000000ull + (uint64_t)b.tv_nsec - (uint64_t)a.tv_nsec;
		if (d < best)
			best = d;
	}
	return best;
}

int pp_uprobe_cost(uint64_t *ns)
{
	char exe[PATH_MAX], err[256];
	int fd[2] = { -1, -1 }, ret = 0;
	uint64_t base, with;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return -errno;
	exe[n] = '\0';
	base = time_calls(300);
	for (int k = 0; k < 2; k++) {
		struct perf_event_attr a = { .size = sizeof(a) };

		ret = pp_uprobe_attr(&a, "pp_uprobe_cost_target", exe, k, err, sizeof(err));
		if (ret)
			goto out;
		/* counting, on this process: the probe's cost without a ring */
		fd[k] = pp_perf_event__open(&a, 0, -1, -1, 0);
		if (fd[k] < 0) {
			ret = fd[k];
			goto out;
		}
	}
	with = time_calls(300);
	*ns = with > base ? (with - base) / 300 : 0;
out:
	for (int k = 0; k < 2; k++) {
		if (fd[k] >= 0)
			close(fd[k]);
	}
	return ret;
}

/** pp_uprobe_attr_tracepoint() - the tracefs form of a uprobe PMU @attr (see pp/evspec.h). */
long long pp_uprobe_attr_tracepoint(const struct perf_event_attr *attr, char *name, size_t len)
{
	static int type = -2, retbit;
	const char *path = (const char *)(uintptr_t)attr->config1;

	if (type == -2) {
		type = pmu_type("uprobe");
		retbit = pmu_retprobe_bit("uprobe");
	}
	if (type < 0 || attr->type != (uint32_t)type || !path)
		return 0;
	/* the semaphore's offset is in config's upper 32 bits (PERF_UPROBE_REF_CTR_OFFSET_SHIFT) */
	return pp_tracefs_uprobe_add(path, attr->config2, !!(attr->config & (1ull << retbit)),
				     attr->config >> 32, name, len);
}

/**
 * pp_kprobe_attr() - fill @attr for a kprobe through the kprobe PMU.
 * @attr: attributes; @func: kernel function; @ret: return probe.
 * Return: 0, or -EOPNOTSUPP when the kernel has no kprobe PMU.
 */
int pp_kprobe_attr(struct perf_event_attr *attr, const char *func, int ret)
{
	int type = pmu_type("kprobe");

	if (type < 0)
		return -EOPNOTSUPP;
	attr->type = (uint32_t)type;
	attr->config = ret ? 1ull << pmu_retprobe_bit("kprobe") : 0;
	attr->config1 = (uint64_t)(uintptr_t)func;
	attr->config2 = 0;
	return 0;
}
