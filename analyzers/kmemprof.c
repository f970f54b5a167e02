// SPDX-License-Identifier: MIT
/*
 * kmemprof: allocation hot spots, bytes and calls per allocation stack
 * (perf-prof kmemprof), per interval with -i. The same events and core as
 * kmemleak (analyzers/kmem.c).
 */
#include "pp/replay.h"
#include "analyzers.h"
#include "kmem.h"

static int kmemprof_init(struct pp_session *s)
{
	return pp_kmem__init(s, PP_KMEM_PROF);
}

static const struct pp_mod_opt kmemprof_opts[] = {
	PP_KMEM_MOD_OPTS,
	{ NULL, 0, 0, NULL },
};

const struct pp_analyzer pp_analyzer_kmemprof = {
	.name = "kmemprof",
	.desc = "allocation hot spots: bytes and calls per allocation stack (kernel or libc)",
	.help = "pp-analyze kmemprof [--user [--libc PATH] [--bpf | --sample[=BYTES]]] [--alloc EV --free EV]\n"
		"                    [--top N] [-i MS] [--flame-graph FILE] [--pprof FILE] [--json]\n"
		"                    [FILE | --live ...]\n"
		"  bytes and calls per allocation stack, over the run or per -i interval; the same\n"
		"  events as kmemleak (kernel allocators by default, --user for libc's)\n"
		"  --user --bpf: libc's allocators summed per stack in the kernel (BPF uprobes): far\n"
		"    less overhead and a far smaller file; -i then counts whole seconds\n"
		"  --user --sample[=BYTES] -- CMD: CMD loads pp's sampler, which reports one allocation\n"
		"    every BYTES on average (default 512K, 1: every call): weighted estimates, for\n"
		"    production (a counter per call, a trap per sample)\n"
		"  --flame-graph FILE: FILE.folded and FILE.svg weighted by bytes allocated\n"
		"  --pprof FILE: a heap profile (alloc_objects, alloc_space, inuse_objects, inuse_space)\n"
		"  example: pp-record kmemprof --user -- ./app; pp-analyze kmemprof -i 1000\n"
		"           pp-record kmemprof --user --bpf -- ./app; pp-analyze kmemprof --flame-graph a\n"
		"           pp-record kmemprof --user --sample -- ./app; pp-analyze kmemprof --pprof a.pb.gz\n",
	.opts = PP_OPT_INTERVAL | PP_OPT_FLAME | PP_OPT_JSON,
	.needs_system_wide = 1,
	.mod_opts = kmemprof_opts,
	.bpf_agg = PP_AGG_MEM,
	.bpf_agg_opt = "bpf",
	.events = pp_kmem__events,
	.match = pp_kmem__src_match,
	.init = kmemprof_init,
	.sample = pp_kmem__sample,
	.lost = pp_kmem__lost,
	.bpf_item = pp_kmem__bpf_item,
	.task = pp_kmem__task,
	.interval = pp_kmem__interval,
	.report = pp_kmem__report,
	.deinit = pp_kmem__deinit,
};
