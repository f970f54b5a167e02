// SPDX-License-Identifier: MIT
/*
 * What the replay core and pp-record ask of the module table
 * (analyzers/registry.c): the events a profiler needs, which -e entries name
 * a profiler used as an event source, and each module's help. The table
 * itself lists the modules and nothing else, so adding a profiler is its
 * file plus one line there.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "pp/analyzer.h"
#include "pp/evspec.h"
#include "pp/replay.h"
#include "pp/workload.h"

/** pp_analyzer__lib() - the path of pp's library @name (see pp/analyzer.h). */
int pp_analyzer__lib(const char *name, char *buf, size_t len)
{
	return pp_workload__lib(name, buf, len);
}

/**
 * pp_analyzer__record_events() - the events `pp-record PROFILER [options]` opens.
 * @profiler: module name; @argc, @argv: its options;
 * @out: receives the requests; @err, @errlen: one-line message on failure.
 * Return: 0, -ENOENT (no such module) or -EINVAL.
 */
int pp_analyzer__record_events(const char *profiler, int argc, char **argv,
			       struct pp_event_reqs *out, char *err, size_t errlen)
{
	const struct pp_analyzer *a = pp_analyzer__find(profiler);
	struct pp_opts o;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!a) {
		snprintf(err, errlen, "no profiler '%s' (see pp-analyze list)", profiler);
		return -ENOENT;
	}
	ret = pp_opts__parse(a, argc, argv, &o, err, errlen);
	if (ret)
		return ret;
	/* the aggregator, unless it is optional and not asked for (kmemleak --bpf) */
	out->agg = a->bpf_agg_opt && !pp_opts__mod(&o, a->bpf_agg_opt) ? 0 : a->bpf_agg;
	if (a->events) {
		ret = a->events(&o, out);
		if (ret)	/* the module's own words, else the errno's */
			snprintf(err, errlen, "%s", out->err[0] ? out->err : strerror(-ret));
		out->system_wide = a->needs_system_wide && !out->task_only;
		return ret;
	}
	if (!o.nr_events) {
		snprintf(err, errlen, "%s needs events: -e EVENT,...", profiler);
		return -EINVAL;
	}
	for (int i = 0; i < o.nr_events; i++) {
		struct pp_event_reqs sub;
		struct pp_event_req *r;

		ret = pp_analyzer__source_events(o.events[i], a, &sub, err, errlen);
		if (ret < 0)
			return ret;
		if (ret > 0) {
			for (int k = 0; k < sub.nr && out->nr < PP_MAX_EVENT_REQS; k++)
				out->req[out->nr++] = sub.req[k];
			out->system_wide |= sub.system_wide;
			continue;
		}
		if (out->nr >= PP_MAX_EVENT_REQS) {
			snprintf(err, errlen, "too many events");
			return -EINVAL;
		}
		r = &out->req[out->nr++];
		r->spec = o.events[i];
		r->callchain = o.callchain;
		r->exclude_user = o.exclude_user;
		r->exclude_kernel = o.exclude_kernel;
	}
	return 0;
}

/**
 * pp_analyzer__source() - the module an -e entry names as an event source.
 * @entry: the -e entry; @host: the module whose -e it is, or NULL;
 * @buf, @len: storage for the module's arguments; @o: receives its options;
 * @err, @errlen: message on failure.
 * Return: the module, or NULL (errno 0: not a source; EINVAL: bad options).
 */
const struct pp_analyzer *pp_analyzer__source(const char *entry, const struct pp_analyzer *host,
					      char *buf, size_t len, struct pp_opts *o, char *err,
					      size_t errlen)
{
	const char *slash = strchr(entry, '/'), *end;
	size_t n = slash ? (size_t)(slash - entry) : strlen(entry);
	const struct pp_analyzer *a = NULL;
	char *argv[32], *save = NULL, *tok;
	int argc = 0;

	errno = 0;
	for (size_t i = 0; pp_analyzer__nth(i); i++) {
		const struct pp_analyzer *m = pp_analyzer__nth(i);

		if (m->source && strlen(m->name) == n && !strncmp(m->name, entry, n))
			a = m;
	}
	if (!a)
		return NULL;
	if (!slash && pp_evspec__is_named(a->name) && !(host && host->source_event))
		return NULL;	/* "page-faults": the plain event */
	if (host && !host->source_event) {
		snprintf(err, errlen, "%s does not take profiler events ('%s')", host->name, entry);
		errno = EINVAL;
		return NULL;
	}
	/* The first /.../ block holds the module's options, e.g. "-F 500". */
	end = slash ? strchr(slash + 1, '/') : NULL;
	n = slash ? (end ? (size_t)(end - slash - 1) : strlen(slash + 1)) : 0;
	if (n >= len) {
		snprintf(err, errlen, "'%s': options too long", entry);
		errno = EINVAL;
		return NULL;
	}
	memcpy(buf, slash ? slash + 1 : "", n);
	buf[n] = '\0';
	for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		if (argc == 32) {
			snprintf(err, errlen, "'%s': too many options", entry);
			errno = EINVAL;
			return NULL;
		}
		argv[argc++] = tok;
	}
	if (pp_opts__parse(a, argc, argv, o, err, errlen)) {
		char msg[256];

		snprintf(msg, sizeof(msg), "%s", err);
		snprintf(err, errlen, "'%s': %s", entry, msg);
		errno = EINVAL;
		return NULL;
	}
	return a;
}

/* Argument storage of the sources pp-record expands: lives until exit. */
static char src_pool[8192];
static size_t src_pool_used;

/**
 * pp_analyzer__source_events() - the events of an -e entry naming a source.
 * @entry: the -e entry; @host: the module whose -e it is, or NULL;
 * @out: receives the requests; @err, @errlen: message.
 * Return: 1 when @entry names a source, 0 when not, -EINVAL.
 */
int pp_analyzer__source_events(const char *entry, const struct pp_analyzer *host,
			       struct pp_event_reqs *out, char *err, size_t errlen)
{
	const struct pp_analyzer *a;
	struct pp_opts o;
	int ret;

	memset(out, 0, sizeof(*out));
	a = pp_analyzer__source(entry, host, src_pool + src_pool_used, sizeof(src_pool) - src_pool_used,
				&o, err, errlen);
	if (!a)
		return errno ? -EINVAL : 0;
	src_pool_used += strlen(entry) + 1;	/* at least the option block and its NUL */
	if (src_pool_used > sizeof(src_pool))
		src_pool_used = sizeof(src_pool);
	if (!a->events) {
		snprintf(err, errlen, "'%s': %s declares no events", entry, a->name);
		return -EINVAL;
	}
	ret = a->events(&o, out);
	if (ret) {
		snprintf(err, errlen, "'%s': %s", entry, out->err[0] ? out->err : strerror(-ret));
		return -EINVAL;
	}
	out->system_wide = a->needs_system_wide && !out->task_only;
	return 1;
}

/**
 * pp_analyzer__pmu_has() - whether PMU @pmu (and its @file) exists under @root.
 * Return: 1 or 0.
 */
int pp_analyzer__pmu_has(const char *root, const char *pmu, const char *file)
{
	return pp_pmu_has(root, pmu, file);
}

/**
 * pp_analyzer__help() - print @a's help (what `pp-analyze NAME help` shows) to @f.
 */
void pp_analyzer__help(const struct pp_analyzer *a, FILE *f)
{
	fprintf(f, "%s - %s\n\n%s", a->name, a->desc, a->help);
	fprintf(f, "\ncommon options accepted:");
	if (a->opts & PP_OPT_EVENTS)
		fprintf(f, " -e");
	if (a->opts & PP_OPT_INTERVAL)
		fprintf(f, " -i MS");
	if (a->opts & PP_OPT_CALLCHAIN)
		fprintf(f, " -g");
	if (a->opts & PP_OPT_FREQ)
		fprintf(f, " -F HZ");
	if (a->opts & PP_OPT_FLAME)
		fprintf(f, " --flame-graph FILE");
	if (a->opts & PP_OPT_THAN)
		fprintf(f, " --than");
	if (a->opts & PP_OPT_PERINS)
		fprintf(f, " --perins");
	if (a->opts & PP_OPT_JSON)
		fprintf(f, " --json");
	fprintf(f, " -C -p -t -N -o --input --live --time --no-demangle --debuginfod --max-memory\n");
	if (a->mod_opts && a->mod_opts->name) {
		fprintf(f, "%s options:\n", a->name);
		for (const struct pp_mod_opt *m = a->mod_opts; m->name; m++) {
			const char *h = m->help ? m->help : "", *sep = strstr(h, "  ");
			int vl = m->has_arg && sep ? (int)(sep - h) : 0;
			int opt = m->has_arg == PP_ARG_OPTIONAL;
			char flag[64], sh[8] = "    ";

			if (m->short_name)
				snprintf(sh, sizeof(sh), "-%c, ", m->short_name);
			/* "VALUE  text": the value name goes after the flag. */
			snprintf(flag, sizeof(flag), "%s--%s%s%.*s%s", sh, m->name,
				 !vl ? "" : opt ? "[=" : " ", vl, h, vl && opt ? "]" : "");
			fprintf(f, "  %-28s %s\n", flag, vl ? sep + 2 : h);
		}
	}
}
