// SPDX-License-Identifier: MIT
/*
 * The one static table of analyzer modules: greppable, and safe under static
 * linking (constructors in .a archives can be dropped silently).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "pp/replay.h"
#include "analyzers.h"
#include "sched-common.h"

static const struct pp_analyzer *const registry[] = {
	&pp_analyzer_trace,
	&pp_analyzer_stat,
	&pp_analyzer_top,
	&pp_analyzer_num_dist,
	&pp_analyzer_profile,
	&pp_analyzer_task_state,
	&pp_analyzer_rundelay,
	&pp_analyzer_syscalls,
	&pp_analyzer_multi_trace,
	&pp_analyzer_oncpu,
	&pp_analyzer_hrcount,
	&pp_analyzer_percpu_stat,
	&pp_analyzer_nested_trace,
	&pp_analyzer_offcpu,
	&pp_analyzer_lock,
};

/**
 * pp_analyzer__find() - look a module up by name.
 * @name: module name.
 * Return: the module, or NULL.
 */
const struct pp_analyzer *pp_analyzer__find(const char *name)
{
	for (size_t i = 0; i < sizeof(registry) / sizeof(registry[0]); i++) {
		if (!strcmp(registry[i]->name, name))
			return registry[i];
	}
	return NULL;
}

/**
 * pp_analyzer__nth() - the @i-th module.
 * @i: index.
 * Return: the module, or NULL past the end.
 */
const struct pp_analyzer *pp_analyzer__nth(size_t i)
{
	return i < sizeof(registry) / sizeof(registry[0]) ? registry[i] : NULL;
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
	if (a->events)
		return a->events(&o, out);
	if (!o.nr_events) {
		snprintf(err, errlen, "%s needs events: -e EVENT,...", profiler);
		return -EINVAL;
	}
	for (int i = 0; i < o.nr_events; i++) {
		struct pp_event_req *r = &out->req[out->nr++];
		struct pp_evspec spec;

		if (pp_evspec__parse(o.events[i], &spec)) {
			snprintf(err, errlen, "bad event '%s'", o.events[i]);
			return -EINVAL;
		}
		r->spec = o.events[i];
		r->callchain = o.callchain || spec.stack;
		r->exclude_user = o.exclude_user;
		r->exclude_kernel = o.exclude_kernel;
	}
	return 0;
}
