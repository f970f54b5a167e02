// SPDX-License-Identifier: MIT
/*
 * -e EVENT parsing: sys:name[/filter/ATTR.../], uprobe:func@/path,
 * uretprobe:..., kprobe:func, software and hardware event names; and the
 * probe PMUs (uprobe, kprobe) with ELF symbol -> file offset lookup.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/hw_breakpoint.h>

#include "record.h"

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
};

/* Analyzer-level attributes accepted (and kept out of the kernel attr). */
static const char *const passive_attrs[] = {
	"key", "top-by", "top-add", "comm", "ptr", "size", "num", "role", "untraced", "trigger",
};

/**
 * pp_evspec_free() - free an array of specs.
 * @specs: array or NULL; @nr: entries.
 */
void pp_evspec_free(struct pp_evspec *specs, int nr)
{
	int i;

	for (i = 0; i < nr; i++) {
		free(specs[i].name);
		free(specs[i].sys);
		free(specs[i].event);
		free(specs[i].filter);
		free(specs[i].func);
		free(specs[i].path);
		free(specs[i].alias);
	}
	free(specs);
}

static int parse_attr(struct pp_evspec *sp, const char *a, char *err, size_t errlen)
{
	const char *eq = strchr(a, '=');
	size_t klen = eq ? (size_t)(eq - a) : strlen(a);
	size_t i;

	if (!klen)
		return 0;
	if (!strcmp(a, "stack")) {
		sp->stack = 1;
		return 0;
	}
	if (klen == 9 && !strncmp(a, "max-stack", 9) && eq) {
		char *end;
		long v = strtol(eq + 1, &end, 10);

		if (*end || v < 1 || v > 1024) {
			snprintf(err, errlen, "bad max-stack '%s' (1..1024)", eq + 1);
			return -EINVAL;
		}
		sp->max_stack = (int)v;
		sp->stack = 1;
		return 0;
	}
	if (klen == 5 && !strncmp(a, "alias", 5) && eq) {
		free(sp->alias);
		sp->alias = strdup(eq + 1);
		return sp->alias ? 0 : -ENOMEM;
	}
	for (i = 0; i < sizeof(passive_attrs) / sizeof(passive_attrs[0]); i++)
		if (strlen(passive_attrs[i]) == klen && !strncmp(a, passive_attrs[i], klen))
			return 0;
	snprintf(err, errlen, "unknown attribute '%.*s' (known: stack, max-stack=N, alias=NAME, "
		 "key=, top-by=, top-add=, comm=, ptr=, size=, num=, role=, untraced, trigger)",
		 (int)klen, a);
	return -EINVAL;
}

static int parse_attrs(struct pp_evspec *sp, char *p, char *err, size_t errlen)
{
	while (*p) {
		char *e = strchr(p, '/');
		int r;

		if (e)
			*e = 0;
		r = parse_attr(sp, p, err, errlen);
		if (r)
			return r;
		if (!e)
			break;
		p = e + 1;
	}
	return 0;
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
	return 0;
bad:
	snprintf(err, errlen, "'%s': expected mem:ADDR[/LEN][:rwx] (LEN 1, 2, 4, 8; x alone)", s);
	return -EINVAL;
}

/**
 * pp_evspec_breakpoint_name() - the event name of a breakpoint, as recorded:
 * "mem:0xADDR/LEN:rwx".
 * @sp: a PP_EV_BREAKPOINT spec; @buf, @len: destination.
 * Return: @buf.
 */
char *pp_evspec_breakpoint_name(const struct pp_evspec *sp, char *buf, size_t len)
{
	snprintf(buf, len, "mem:%#llx/%u:%s%s%s", (unsigned long long)sp->bp_addr, sp->bp_len,
		 sp->bp_type & HW_BREAKPOINT_R ? "r" : "", sp->bp_type & HW_BREAKPOINT_W ? "w" : "",
		 sp->bp_type & HW_BREAKPOINT_X ? "x" : "");
	return buf;
}

/* Parse one spec "head[/filter/attr/.../]" (already split from its list). */
static int parse_one(char *s, struct pp_evspec *sp, char *err, size_t errlen)
{
	char *slash, *colon, *at;
	size_t l;
	int r;

	memset(sp, 0, sizeof(*sp));
	sp->max_stack = 0;
	l = strlen(s);
	if (l > 5 && !strcmp(s + l - 5, " help")) {
		sp->help = 1;
		s[l - 5] = 0;
	}
	slash = strchr(s, '/');
	at = strchr(s, '@');
	if (!strncmp(s, "mem:", 4)) {
		/* breakpoints: LEN follows one slash; attributes follow "//": mem:A/8:w//stack/ */
		char *sec = strstr(s, "//");

		if (sec) {
			*sec = 0;
			r = parse_attrs(sp, sec + 2, err, errlen);
			if (r)
				return r;
		}
		r = parse_breakpoint(s, sp, err, errlen);
		if (r)
			return r;
		sp->name = strdup(s);
		return sp->name ? 0 : -ENOMEM;
	}
	if (at && (!slash || at < slash)) {
		/* probes: the path has slashes; attributes follow "//": FUNC@PATH//ATTR/ */
		char *sec = strstr(at, "//");

		if (sec) {
			*sec = 0;
			r = parse_attrs(sp, sec + 2, err, errlen);
			if (r)
				return r;
		}
	} else if (slash) {
		char *p = slash + 1, *end = strchr(p, '/');

		*slash = 0;
		if (!end) {
			snprintf(err, errlen, "'%s': the filter section must end with '/'", s);
			return -EINVAL;
		}
		*end = 0;
		if (*p) {
			sp->filter = strdup(p);
			if (!sp->filter)
				return -ENOMEM;
		}
		r = parse_attrs(sp, end + 1, err, errlen);
		if (r)
			return r;
	}
	if (!*s) {
		snprintf(err, errlen, "empty event name");
		return -EINVAL;
	}
	sp->name = strdup(s);
	if (!sp->name)
		return -ENOMEM;
	colon = strchr(s, ':');
	if (colon && (!strncmp(s, "uprobe:", 7) || !strncmp(s, "uretprobe:", 10))) {
		char *f = colon + 1, *a = strchr(f, '@');

		sp->kind = PP_EV_UPROBE;
		sp->retprobe = s[1] == 'r';
		if (!a || a == f || !a[1]) {
			snprintf(err, errlen, "'%s': expected uprobe:FUNC@/path/to/binary", s);
			return -EINVAL;
		}
		sp->func = strndup(f, (size_t)(a - f));
		sp->path = strdup(a + 1);
		return sp->func && sp->path ? 0 : -ENOMEM;
	}
	if (colon && (!strncmp(s, "kprobe:", 7) || !strncmp(s, "kretprobe:", 10))) {
		sp->kind = PP_EV_KPROBE;
		sp->retprobe = s[1] == 'r';
		sp->func = strdup(colon + 1);
		if (!sp->func)
			return -ENOMEM;
		if (!*sp->func) {
			snprintf(err, errlen, "'%s': expected kprobe:FUNC", s);
			return -EINVAL;
		}
		return 0;
	}
	if (colon) {
		sp->kind = PP_EV_TRACEPOINT;
		sp->sys = strndup(s, (size_t)(colon - s));
		sp->event = strdup(colon + 1);
		if (!sp->sys || !sp->event)
			return -ENOMEM;
		if (!*sp->sys || !*sp->event || strchr(sp->event, ':')) {
			snprintf(err, errlen, "'%s': expected SYSTEM:EVENT", s);
			return -EINVAL;
		}
		return 0;
	}
	for (size_t i = 0; i < sizeof(named_events) / sizeof(named_events[0]); i++) {
		if (!strcmp(s, named_events[i].name)) {
			sp->kind = named_events[i].kind;
			sp->config = named_events[i].config;
			return 0;
		}
	}
	snprintf(err, errlen, "unknown event '%s' (expected SYSTEM:EVENT, uprobe:FUNC@PATH, "
		 "kprobe:FUNC, mem:ADDR[/LEN][:rwx], cpu-clock, page-faults, cycles, ...)", s);
	return -ENOENT;
}

/**
 * pp_evspec_parse() - parse one -e argument (a comma list), append specs.
 * @arg: the argument; @specs, @nr: growing array; @err, @errlen: message.
 * Return: 0 or -errno.
 */
int pp_evspec_parse(const char *arg, struct pp_evspec **specs, int *nr, char *err, size_t errlen)
{
	char *copy = strdup(arg), *p, *start;
	int in_section = 0, r = 0;

	if (!copy)
		return -ENOMEM;
	/* Split on commas outside a /.../ section: a section ends with '/' before ',' or end. */
	start = copy;
	for (p = copy;; p++) {
		int probe = strchr(start, '@') || !strncmp(start, "mem:", 4);

		if (*p == '/' && !in_section && !probe)
			in_section = 1;
		else if (*p == '/' && !in_section && probe && p[1] == '/')
			in_section = 1, p++;
		if (*p == ',' && in_section && p[-1] == '/')
			in_section = 0;
		if (*p == 0 || (*p == ',' && !in_section)) {
			int last = *p == 0;
			struct pp_evspec *nv;

			*p = 0;
			if (*start) {
				nv = realloc(*specs, (size_t)(*nr + 1) * sizeof(*nv));
				if (!nv) {
					r = -ENOMEM;
					break;
				}
				*specs = nv;
				r = parse_one(start, &nv[*nr], err, errlen);
				(*nr)++;	/* even on failure, so free covers it */
				if (r)
					break;
			}
			if (last)
				break;
			start = p + 1;
			in_section = 0;
		}
	}
	free(copy);
	return r;
}

/* The PMU type number from sysfs, or -errno. */
static int pmu_type(const char *pmu)
{
	char path[256], buf[32];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", pmu);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EINVAL;
	buf[n] = 0;
	return atoi(buf);
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
			snprintf(err, errlen, "uprobe: %s: %s", path,
				 r == -ENOENT ? "no such function symbol" :
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
