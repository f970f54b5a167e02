// SPDX-License-Identifier: MIT
/*
 * Common profiler options (PROFILERS.md) and -e entry parsing.
 *
 * `-i MS` is the interval, as in perf-prof; the input file is `--input FILE`
 * or the one positional argument (default pp.trace).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pp/analyzer.h"
#include "pp/replay.h"
#include "mem.h"

static int opt_err(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int opt_err(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (err && len)
		vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/*
 * "10", "10ms", "5us", "1s", "300ns": to ns; a bare number is in @unit.
 * Digits only: strtoull() would take "-5" as 2^64-5, and a product that
 * overflows is refused rather than wrapped.
 */
static int parse_time(const char *s, uint64_t unit, uint64_t *out)
{
	char *end;
	unsigned long long v;
	uint64_t mult;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -ERANGE;
	if (!*end)
		mult = unit;
	else if (!strcmp(end, "ns"))
		mult = 1;
	else if (!strcmp(end, "us"))
		mult = 1000ull;
	else if (!strcmp(end, "ms"))
		mult = 1000000ull;
	else if (!strcmp(end, "s"))
		mult = 1000000000ull;
	else
		return -EINVAL;
	if (v > UINT64_MAX / mult)
		return -ERANGE;
	*out = v * mult;
	return 0;
}

/* A positive integer of at most @max, digits only (no sign, no suffix). */
static int parse_count(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || !v || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/* The accepted ranges, in the messages too (spec/pp-analyze.md, common options). */
#define PP_INTERVAL_MIN		1000ull			/* 1us */
#define PP_INTERVAL_MAX		(86400ull * 1000000000ull)	/* 24h */
#define PP_DURATION_MIN		1000000ull		/* 1ms */
#define PP_DURATION_MAX		(31536000ull * 1000000000ull)	/* 365 days */

/* One -e argument: its entries, split by the one splitter (pp_evspec__split()). */
static int add_events(struct pp_opts *o, char *arg, char *err, size_t errlen)
{
	int room = PP_MAX_EVENTS - o->nr_events;
	int n = pp_evspec__split(arg, (char **)&o->events[o->nr_events], room);

	if (n < 0)
		return opt_err(err, errlen, "too many events (at most %d)", PP_MAX_EVENTS);
	if (!n)
		return opt_err(err, errlen, "-e needs an event name");
	for (int i = 0; i < n; i++)
		o->event_group[o->nr_events++] = o->nr_event_groups;
	o->nr_event_groups++;
	return 0;
}

/* The module option of @a named @name (long) or @c (short), or NULL. */
static const struct pp_mod_opt *find_mod_opt(const struct pp_analyzer *a, const char *name, char c)
{
	for (const struct pp_mod_opt *m = a->mod_opts; m && m->name; m++) {
		if (name ? !strcmp(m->name, name) : (m->short_name && m->short_name == c))
			return m;
	}
	return NULL;
}

static int add_mod(const struct pp_analyzer *a, int argc, char **argv, int *i, const char *name,
		   char c, const char *val, struct pp_opts *o, char *err, size_t errlen)
{
	const char *arg = argv[*i];
	const struct pp_mod_opt *m = find_mod_opt(a, name, c);

	if (!m)
		return opt_err(err, errlen, "unknown option '%s' (see pp-analyze %s help)", arg, a->name);
	if (m->has_arg == PP_ARG_REQUIRED && !val) {
		if (*i + 1 >= argc)
			return opt_err(err, errlen, "option '%s' needs a value", arg);
		val = argv[++*i];
	} else if (!m->has_arg && val) {
		return opt_err(err, errlen, "option '%s' takes no value", arg);
	}
	if (o->nr_mod >= PP_MAX_MOD_OPTS)
		return opt_err(err, errlen, "too many options");
	o->mod[o->nr_mod].name = m->name;
	o->mod[o->nr_mod].value = val ? val : "";
	o->nr_mod++;
	return 0;
}

/**
 * pp_opts__mod_nth() - the @n-th occurrence of module option @name.
 * @o: parsed options; @name: long name; @n: 0 for the first.
 * Return: the value ("" for a flag), or NULL.
 */
const char *pp_opts__mod_nth(const struct pp_opts *o, const char *name, int n)
{
	for (int i = 0; i < o->nr_mod; i++) {
		if (!strcmp(o->mod[i].name, name) && n-- == 0)
			return o->mod[i].value;
	}
	return NULL;
}

/**
 * pp_opts__mod() - the value of module option @name, the last one given.
 * @o: parsed options; @name: long name.
 * Return: the value ("" for a flag), or NULL when absent.
 */
const char *pp_opts__mod(const struct pp_opts *o, const char *name)
{
	for (int i = o->nr_mod - 1; i >= 0; i--) {
		if (!strcmp(o->mod[i].name, name))
			return o->mod[i].value;
	}
	return NULL;
}

struct opt_def {
	const char *l;		/* long name */
	char s;			/* short name */
	int arg;		/* takes an argument (2: optional, as --NAME=VALUE only) */
	unsigned int bit;	/* PP_OPT_* needed, 0 = always accepted */
};

static const struct opt_def opt_defs[] = {
	{ "event", 'e', 1, PP_OPT_EVENTS },
	{ "interval", 'i', 1, PP_OPT_INTERVAL },
	{ "call-graph", 'g', 0, PP_OPT_CALLCHAIN },
	{ "freq", 'F', 1, PP_OPT_FREQ },
	{ "flame-graph", 0, 1, PP_OPT_FLAME },
	{ "than", 0, 1, PP_OPT_THAN },
	{ "perins", 0, 0, PP_OPT_PERINS },
	{ "json", 0, 0, PP_OPT_JSON },
	{ "exclude-user", 0, 0, PP_OPT_EXCLUDE },
	{ "exclude-kernel", 0, 0, PP_OPT_EXCLUDE },
	{ "input", 0, 1, 0 },
	{ "output", 'o', 1, 0 },
	{ "live", 0, 0, 0 },
	{ "ftrace", 0, 0, 0 },
	{ "time", 0, 1, 0 },
	{ "duration", 'd', 1, 0 },
	{ "cpu", 'C', 1, 0 },
	{ "all-cpus", 'a', 0, 0 },
	{ "pid", 'p', 1, 0 },
	{ "tid", 't', 1, 0 },
	{ "N", 'N', 1, 0 },
	{ "verbose", 'v', 0, 0 },
	{ "no-demangle", 0, 0, 0 },
	{ "debuginfod", 0, 2, 0 },
	{ "max-memory", 0, 1, 0 },
	{ NULL, 0, 0, 0 },
};

/* The common option named @name (long) or @c (short), NULL when there is none. */
static const struct opt_def *find_opt_def(const char *name, char c)
{
	for (const struct opt_def *d = opt_defs; d->l; d++) {
		if (name ? !strcmp(d->l, name) : d->s == c)
			return d;
	}
	return NULL;
}

int pp_opts__takes(const struct pp_analyzer *a, const char *arg)
{
	const struct opt_def *d;
	char name[32];
	const char *ln = NULL;
	char c = 0;

	if (arg[0] != '-' || !arg[1] || !strcmp(arg, "--"))
		return 0;
	if (arg[1] == '-') {
		size_t n = strcspn(arg + 2, "=");

		if (n >= sizeof(name))
			return 0;
		memcpy(name, arg + 2, n);
		name[n] = '\0';
		ln = name;
	} else {
		c = arg[1];
	}
	d = find_opt_def(ln, c);
	if (d)
		return !d->bit || (a->opts & d->bit);
	return find_mod_opt(a, ln, c) != NULL;
}

/**
 * pp_opts__parse() - parse common options for module @a.
 * @a: module; @argc, @argv: arguments after the profiler name.
 * @o: receives the options; @err, @errlen: one-line message on failure.
 *
 * Return: 0, or -EINVAL with @err set.
 */
int pp_opts__parse(const struct pp_analyzer *a, int argc, char **argv, struct pp_opts *o,
		   char *err, size_t errlen)
{
	memset(o, 0, sizeof(*o));
	for (int i = 0; i < argc; i++) {
		const char *arg = argv[i], *val = NULL;
		const struct opt_def *d = NULL;
		char name[32];

		if (!strcmp(arg, "--")) {
			if (i + 1 >= argc)
				return opt_err(err, errlen, "'--' needs a command after it");
			o->workload = argv + i + 1;
			o->nr_workload = argc - i - 1;
			break;
		}
		if (arg[0] != '-' || !arg[1]) {
			if (o->input)
				return opt_err(err, errlen, "unexpected argument '%s'", arg);
			o->input = arg;
			continue;
		}
		if (arg[1] == '-') {
			const char *eq = strchr(arg + 2, '=');
			size_t n = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);

			if (n >= sizeof(name))
				return opt_err(err, errlen, "unknown option '%s'", arg);
			memcpy(name, arg + 2, n);
			name[n] = '\0';
			d = find_opt_def(name, 0);
			if (eq)
				val = eq + 1;
			if (!d) {
				int ret = add_mod(a, argc, argv, &i, name, 0, val, o, err, errlen);

				if (ret)
					return ret;
				continue;
			}
		} else {
			d = find_opt_def(NULL, arg[1]);
			if (d && arg[2])
				val = arg + 2;
			if (!d) {
				int ret = add_mod(a, argc, argv, &i, NULL, arg[1], arg[2] ? arg + 2 : NULL,
						  o, err, errlen);

				if (ret)
					return ret;
				continue;
			}
		}
		if (d->bit && !(a->opts & d->bit))
			return opt_err(err, errlen, "%s does not take option '%s'", a->name, arg);
		if (d->arg == 1 && !val) {
			if (i + 1 >= argc)
				return opt_err(err, errlen, "option '%s' needs a value", arg);
			val = argv[++i];
		} else if (!d->arg && val) {
			return opt_err(err, errlen, "option '%s' takes no value", arg);
		}

		switch (d->s) {
		case 'e': {
			int ret = add_events(o, (char *)val, err, errlen);

			if (ret)
				return ret;
			break;
		}
		case 'i':
			if (parse_time(val, 1000000ull, &o->interval_ns) ||
			    o->interval_ns < PP_INTERVAL_MIN || o->interval_ns > PP_INTERVAL_MAX)
				return opt_err(err, errlen, "bad interval '%s' (from 1us to 24h: MS, or an "
					       "integer with ns/us/ms/s)", val);
			break;
		case 'g':
			o->callchain = 1;
			break;
		case 'F': {
			char *end;
			unsigned long v = strtoul(val, &end, 10);

			if (*val < '0' || *val > '9' || *end || !v || v > 100000)
				return opt_err(err, errlen, "bad frequency '%s' (1 to 100000 Hz)", val);
			o->freq = (uint32_t)v;
			break;
		}
		case 'o':
			if (!*val)
				return opt_err(err, errlen, "empty output file name");
			o->output = val;
			break;
		case 'd':
			if (parse_time(val, 1000000000ull, &o->duration_ns) ||
			    o->duration_ns < PP_DURATION_MIN || o->duration_ns > PP_DURATION_MAX)
				return opt_err(err, errlen, "bad duration '%s' (from 1ms to 31536000s: whole "
					       "seconds, or an integer with ns/us/ms/s)", val);
			break;
		case 'C':
			o->cpus = val;
			break;
		case 'a':
			o->all_cpus = 1;
			break;
		case 'p':
			o->pids = val;
			break;
		case 't':
			o->tids = val;
			break;
		case 'N':
			if (parse_count(val, UINT64_MAX, &o->max_events))
				return opt_err(err, errlen, "bad -N '%s' (a number of events from 1 to %llu)",
					       val, (unsigned long long)UINT64_MAX);
			break;
		case 'v':
			o->verbose++;
			break;
		default:
			if (!strcmp(d->l, "flame-graph")) {
				o->flame_graph = val;
			} else if (!strcmp(d->l, "than")) {
				if (parse_time(val, 1, &o->than))
					return opt_err(err, errlen, "bad --than '%s' (from 0 to %llu: a number, "
						       "or a time with ns/us/ms/s)", val,
						       (unsigned long long)UINT64_MAX);
				o->than_set = 1;
			} else if (!strcmp(d->l, "perins")) {
				o->perins = 1;
			} else if (!strcmp(d->l, "json")) {
				o->json = 1;
			} else if (!strcmp(d->l, "exclude-user")) {
				o->exclude_user = 1;
			} else if (!strcmp(d->l, "exclude-kernel")) {
				o->exclude_kernel = 1;
			} else if (!strcmp(d->l, "input")) {
				o->input = val;
			} else if (!strcmp(d->l, "live")) {
				o->live = 1;
			} else if (!strcmp(d->l, "ftrace")) {
				o->ftrace = 1;
			} else if (!strcmp(d->l, "no-demangle")) {
				o->no_demangle = 1;
			} else if (!strcmp(d->l, "debuginfod")) {
				if (val && !*val)
					return opt_err(err, errlen, "--debuginfod= needs URLS");
				o->debuginfod = val ? val : "";
			} else if (!strcmp(d->l, "max-memory")) {
				if (pp_mem__parse(val, &o->max_memory))
					return opt_err(err, errlen, "bad --max-memory '%s' (a size of 16M or "
						       "more: bytes, or an integer with K, M, G or T)", val);
			} else if (!strcmp(d->l, "time")) {
				if (pp_time_window__parse(val, &o->time))
					return opt_err(err, errlen, "bad --time '%s' (START,END: seconds as trace "
						       "prints them, +TIME after the file's start with "
						       "ns/us/ms/s, or PCT%%; either may be empty; or "
						       "A%%-B%%, P%%/N)", val);
			}
			break;
		}
	}
	if (o->ftrace && !o->live)
		return opt_err(err, errlen, "--ftrace says how --live reads tracepoints: not "
			       "without --live");
	if (o->live && o->time.arg)
		return opt_err(err, errlen, "--time selects a window of a trace file: not with --live");
	return 0;
}
