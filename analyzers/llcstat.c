// SPDX-License-Identifier: MIT
/*
 * llcstat: last-level cache hit rate from the hardware counters
 * cache-references and cache-misses, per CPU (per thread with --perthread),
 * per interval with -i. Real hardware only: where there is no PMU,
 * pp-record llcstat and --live fail with one line (pmu.c does the work).
 */
#include "pp/replay.h"
#include "analyzers.h"
#include "pmu.h"

static const struct pp_pmu_pair llc_pairs[] = {
	{ "LLC", "cache-references", "cache-misses" },
};

static const struct pp_pmustat_def llc_def = { "llcstat", llc_pairs, 1 };

static int llc_events(const struct pp_opts *o, struct pp_event_reqs *out)
{
	return pp_pmustat__events(&llc_def, o, out);
}

static int llc_init(struct pp_session *s)
{
	return pp_pmustat__init(s, &llc_def);
}

const struct pp_analyzer pp_analyzer_llcstat = {
	.name = "llcstat",
	.desc = "LLC hit rate from hardware counters, per CPU or thread (real hardware only)",
	.help = "pp-analyze llcstat [--perthread] [-F HZ] [-i MS] [--json] [FILE]\n"
		"  cache-references and cache-misses sampled at -F HZ (default 1000); each\n"
		"  sample's period is the events since the previous one, so their sum counts\n"
		"  record with: pp-record -a llcstat -d 10s (needs a hardware PMU)\n",
	.mod_opts = pp_pmustat_mod_opts,
	.no_symbols = 1,
	.opts = PP_OPT_INTERVAL | PP_OPT_FREQ | PP_OPT_JSON | PP_OPT_EXCLUDE,
	.events = llc_events,
	.init = llc_init,
	.sample = pp_pmustat__sample,
	.interval = pp_pmustat__print,
	.report = pp_pmustat__report,
	.deinit = pp_pmustat__deinit,
};
