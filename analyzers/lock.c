// SPDX-License-Identifier: MIT
/*
 * lock: futex contention aggregated in the kernel by BPF (bpf/lock.bpf.c):
 * wait time per process, thread, futex address, user stack and waker (the
 * thread whose futex wake ended the wait, with its stack), stored as
 * BPF_AGG LOCK items. Prints the most contended locks, then the stacks that
 * waited longest with who woke them; --flame-graph writes wait time per
 * stack, the lock address then "[woken by COMM]" as the leaf frames. The
 * engine is shared with offcpu; the items come through the replay core
 * (.bpf_agg, ->bpf_item()).
 */
#include "pp/replay.h"
#include "analyzers.h"
#include "bpf-agg.h"

static int lock_events(const struct pp_opts *o, struct pp_event_reqs *out)
{
	out->nr = 0;		/* no perf event: the BPF aggregator (.bpf_agg) */
	return 0;
}

static int lock_init(struct pp_session *s)
{
	return pp_bpf_agg_view__init(s, PP_AGG_LOCK);
}

const struct pp_analyzer pp_analyzer_lock = {
	.name = "lock",
	.desc = "futex contention aggregated in the kernel by BPF: top contended locks, stacks, flame graph",
	.help = "pp-analyze lock [--flame-graph FILE] [--json] [FILE | --live [-p PID,...] [-- CMD]]\n"
		"  reads what pp-record lock wrote, or with --live what its BPF program sums\n"
		"  for the run (time spent waiting in futex(2) per process, thread, lock\n"
		"  address, user stack and waker); prints the 10 most contended locks and\n"
		"  the 10 stacks that waited longest, each with the thread\n"
		"  that woke it and its stack (\"woken by\"); --flame-graph writes FILE.folded\n"
		"  and FILE.svg weighted by wait time (ns), the lock and waker as leaf frames.\n"
		"  --pprof FILE writes the same stacks as a pprof profile (lock_wait ns, waits).\n"
		"  example: pp-record lock -- ./app; pp-analyze lock --flame-graph app-locks\n",
	.opts = PP_OPT_FLAME | PP_OPT_JSON,
	.mod_opts = pp_bpf_agg_view_opts,
	.bpf_agg = PP_AGG_LOCK,
	.events = lock_events,
	.init = lock_init,
	.bpf_item = pp_bpf_agg_view__item,
	.report = pp_bpf_agg_view__report,
	.deinit = pp_bpf_agg_view__deinit,
};
