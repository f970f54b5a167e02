// SPDX-License-Identifier: MIT
/*
 * tlbstat: data and instruction TLB hit rates from the hardware cache
 * counters dTLB-loads / dTLB-load-misses and iTLB-loads / iTLB-load-misses,
 * per CPU (per thread with --perthread), per interval with -i. Real
 * hardware only: where there is no PMU, pp-record tlbstat and --live fail
 * with one line (pmu.c does the work).
 */
#include "pp/replay.h"
#include "analyzers.h"
#include "pmu.h"

static const struct pp_pmu_pair tlb_pairs[] = {
	{ "dTLB", "dTLB-loads", "dTLB-load-misses" },
	{ "iTLB", "iTLB-loads", "iTLB-load-misses" },
};

static const struct pp_pmustat_def tlb_def = { "tlbstat", tlb_pairs, 2 };

static int tlb_events(const struct pp_opts *o, struct pp_event_reqs *out)
{
	return pp_pmustat__events(&tlb_def, o, out);
}

static int tlb_init(struct pp_session *s)
{
	return pp_pmustat__init(s, &tlb_def);
}

const struct pp_analyzer pp_analyzer_tlbstat = {
	.name = "tlbstat",
	.desc = "dTLB and iTLB hit rates from hardware counters, per CPU or thread (real hardware only)",
	.help = "pp-analyze tlbstat [--perthread] [-F HZ] [-i MS] [--json] [FILE]\n"
		"  dTLB-loads, dTLB-load-misses, iTLB-loads, iTLB-load-misses sampled at -F HZ\n"
		"  (default 1000); the sum of the sample periods is the count\n"
		"  record with: pp-record -a tlbstat -d 10s (needs a hardware PMU)\n",
	.mod_opts = pp_pmustat_mod_opts,
	.no_symbols = 1,
	.opts = PP_OPT_INTERVAL | PP_OPT_FREQ | PP_OPT_JSON | PP_OPT_EXCLUDE,
	.events = tlb_events,
	.init = tlb_init,
	.sample = pp_pmustat__sample,
	.interval = pp_pmustat__print,
	.report = pp_pmustat__report,
	.deinit = pp_pmustat__deinit,
};
