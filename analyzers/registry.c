// SPDX-License-Identifier: MIT
/*
 * The one static table of analyzer modules: greppable, and safe under static
 * linking (constructors in .a archives can be dropped silently).
 */
#include <string.h>
#include "pp/analyzer.h"

/*
 * One line per module: M(NAME) is pp_analyzer_NAME, defined in its own file
 * (analyzers/NAME.c, '_' for '-'). Adding a profiler is that file and this
 * line; `make check-layers` fails on a module left out.
 */
#define PP_MODULES(M) \
	M(trace) \
	M(stat) \
	M(top) \
	M(num_dist) \
	M(profile) \
	M(task_state) \
	M(rundelay) \
	M(syscalls) \
	M(multi_trace) \
	M(oncpu) \
	M(hrcount) \
	M(percpu_stat) \
	M(nested_trace) \
	M(offcpu) \
	M(lock) \
	M(page_faults) \
	M(breakpoint) \
	M(convert) \
	M(kmemleak) \
	M(kmemprof) \
	M(blktrace) \
	M(kvm_exit) \
	M(hrtimer) \
	M(kvmmmu) \
	M(llcstat) \
	M(tlbstat) \
	M(ldlat_loads) \
	M(sched_migrate)

#define PP_DECLARE(n) extern const struct pp_analyzer pp_analyzer_##n;
PP_MODULES(PP_DECLARE)

#define PP_ENTRY(n) &pp_analyzer_##n,
static const struct pp_analyzer *const registry[] = { PP_MODULES(PP_ENTRY) };

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
