// SPDX-License-Identifier: MIT
/*
 * kmemleak: what was allocated and never freed, grouped by allocation
 * stack (perf-prof kmemleak). The pairing is the core's (analyzers/kmem.c).
 */
#include "pp/replay.h"
#include "analyzers.h"
#include "kmem.h"

static int kmemleak_init(struct pp_session *s)
{
	return pp_kmem__init(s, PP_KMEM_LEAK);
}

static const struct pp_mod_opt kmemleak_opts[] = {
	PP_KMEM_MOD_OPTS,
	{ NULL, 0, 0, NULL },
};

const struct pp_analyzer pp_analyzer_kmemleak = {
	.name = "kmemleak",
	.desc = "memory allocated and never freed, by allocation stack (kernel or libc allocators)",
	.help = "pp-analyze kmemleak [--user [--libc PATH] [--bpf | --sample[=BYTES]]] [--alloc EV --free EV]\n"
		"                    [--top N] [-i MS] [--flame-graph FILE] [--pprof FILE] [--json]\n"
		"                    [FILE | --live ...]\n"
		"  pairs allocations and frees by pointer and reports what is still allocated at\n"
		"  the end (and at each -i), per allocation stack: bytes, objects, comms, oldest age.\n"
		"  kernel (default): kmem:kmalloc/kfree, kmem:kmem_cache_alloc/kmem_cache_free,\n"
		"    kmem:mm_page_alloc/mm_page_free (by pfn, 4 KiB << order); recorded on every CPU,\n"
		"    allocations kept for the targets (-p, -- CMD), frees from any task\n"
		"  --user: malloc, calloc, realloc, reallocarray, free, posix_memalign, aligned_alloc,\n"
		"    memalign, valloc, pvalloc of the libc the target maps (uprobes and uretprobes\n"
		"    with the registers; posix_memalign's pointer is read from its caller's frame)\n"
		"  --user --bpf: the same allocators paired in the kernel (BPF uprobes): the file holds\n"
		"    per-stack sums and the live blocks per stack each second, not every call: far\n"
		"    less overhead and a far smaller file, for production hosts (kmemprof reads it too)\n"
		"  --user --sample[=BYTES] -- CMD: CMD loads pp's sampler (libpp-heap.so), which\n"
		"    reports one allocation every BYTES on average (default 512K, 1: every call) and\n"
		"    the frees of those: bytes and objects are weighted estimates, at a tiny cost\n"
		"  --alloc 'EVENT//ptr=FIELD/size=FIELD/stack/' --free 'EVENT//ptr=FIELD/': any events\n"
		"  frees of memory allocated before the recording are counted; objects allocated\n"
		"  before a lost window are reported as uncertain, not as leaks.\n"
		"  --flame-graph FILE: FILE.folded and FILE.svg weighted by outstanding bytes\n"
		"  --pprof FILE: a heap profile (alloc_objects, alloc_space, inuse_objects, inuse_space)\n"
		"  example: pp-record kmemleak --user -- ./app; pp-analyze kmemleak --flame-graph leaks\n"
		"           pp-record kmemleak --user --sample -- ./app; pp-analyze kmemleak --pprof heap.pb.gz\n"
		"           pp-record kmemleak --user --bpf -p PID -d 60; pp-analyze kmemleak\n",
	.opts = PP_OPT_INTERVAL | PP_OPT_FLAME | PP_OPT_JSON,
	.needs_system_wide = 1,
	.mod_opts = kmemleak_opts,
	.bpf_agg = PP_AGG_MEM,
	.bpf_agg_opt = "bpf",
	.events = pp_kmem__events,
	.match = pp_kmem__src_match,
	.init = kmemleak_init,
	.sample = pp_kmem__sample,
	.lost = pp_kmem__lost,
	.bpf_item = pp_kmem__bpf_item,
	.task = pp_kmem__task,
	.interval = pp_kmem__interval,
	.report = pp_kmem__report,
	.deinit = pp_kmem__deinit,
};
