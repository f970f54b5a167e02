/* SPDX-License-Identifier: MIT */
/*
 * Private to the convert profiler (analyzers/convert*.c): one writer per
 * output format, each with an init, a per-event and a per-lost-window
 * callback and an end, all streaming to the session's output.
 */
#ifndef PP_ANALYZERS_CONVERT_H
#define PP_ANALYZERS_CONVERT_H

#include <stdint.h>
#include "pp/analyzer.h"
#include "pp/replay.h"

/* What a conversion wrote, for the --json summary. */
struct pp_convert_stats {
	uint64_t events;		/* events converted */
	uint64_t cpu_slices, state_slices, instants, counters, metadata;	/* chrome */
	uint64_t frames;		/* stack frames written */
	uint64_t lost;			/* lost windows met */
};

struct pp_convert_fmt {
	const char *name;	/* --to=NAME */
	const char *desc;	/* for help and messages */
	/*
	 * allocate the writer's state in *@state, counting what it writes in
	 * @st (lives as long as the state); 0 or -errno (message printed)
	 */
	int (*init)(struct pp_session *s, void **state, struct pp_convert_stats *st);
	void (*sample)(struct pp_session *s, void *state, const struct pp_event *e);
	void (*lost)(struct pp_session *s, void *state, const struct pp_lost *l);
	void (*end)(struct pp_session *s, void *state);	/* finish the output */
	void (*free)(void *state);			/* accepts NULL */
};

extern const struct pp_convert_fmt pp_convert_chrome;
extern const struct pp_convert_fmt pp_convert_perf_script;

/**
 * pp_convert_is_dummy() - is @ev the recorder's side-band carrier (a dummy
 * software event that samples nothing)? Formats leave it out.
 */
int pp_convert_is_dummy(const struct pp_evsel *ev);

#endif /* PP_ANALYZERS_CONVERT_H */
