// SPDX-License-Identifier: MIT
/*
 * BPF aggregates through the replay core. The items of a file's BPF_AGG
 * chunks (file source), or of the aggregator a live run loads and drains
 * every second (live source), are decoded here once and handed to the
 * module's ->bpf_item(): a module reads what offcpu or lock summed in the
 * kernel without a chunk, a BPF object or a map in sight, and the same
 * module code runs on a file and live. pp_bpf_agg_feed__ is this feed;
 * the codec it decodes with is pp_bpf_agg__ (pp/bpf-agg.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "pp/bpf.h"
#include "pp/bpf-agg.h"
#include "pp/meta.h"
#include "replay-internal.h"

/* The module interface numbers aggregators as the file numbers windows. */
_Static_assert((int)PP_AGG_OFFCPU == (int)PP_BPF_SRC_OFFCPU, "offcpu window source");
_Static_assert((int)PP_AGG_LOCK == (int)PP_BPF_SRC_LOCK, "lock window source");
_Static_assert((int)PP_AGG_MEM == (int)PP_BPF_SRC_MEM, "mem window source");
_Static_assert(PP_BPF_MEM_ALLOCS == PP_MEM_ALLOCS && PP_BPF_MEM_LIVE == PP_MEM_LIVE &&
	       PP_BPF_MEM_FREES == PP_MEM_FREES, "mem item states");

#define BPF_AGG_DRAIN_NS	1000000000ull	/* live: drain as often as pp-record */
/*
 * Frames kept per stack part (kernel, user, waker): the kernel stores at
 * most 127 (perf_event_max_stack); a file may claim 65,535, which a module
 * would copy for each of its 100k references.
 */
#define BPF_AGG_MAX_FRAMES	1024

struct pp_bpf_agg_feed {
	struct pp_bpf_stacks *stacks;	/* STACK items read so far, in file order */
	uint64_t bad;			/* malformed items skipped */
	uint64_t cut;			/* stacks cut to BPF_AGG_MAX_FRAMES */
	uint64_t *ips;			/* aligned copy of one item's frames */
	size_t ips_cap;
	struct pp_bpf_offcpu *offcpu;	/* live source */
	struct pp_bpf_lock *lock;
	struct pp_bpf_mem *mem;
	uint64_t next_drain;
	int win_skip;			/* --time: this window is outside it, and so its stacks */
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static struct pp_bpf_agg_feed *feed_get(struct pp_session *s)
{
	struct pp_bpf_agg_feed *ba = s->bpf_agg_feed;

	if (ba)
		return ba;
	ba = calloc(1, sizeof(*ba));
	if (!ba)
		return NULL;
	ba->stacks = pp_bpf_stacks__new();
	if (!ba->stacks) {
		free(ba);
		return NULL;
	}
	s->bpf_agg_feed = ba;
	return ba;
}

/* Copy @n frames of @src (unaligned in a chunk) to @dst. */
static void copy_ips(uint64_t *dst, const uint8_t *src, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		dst[i] = pp_bpf_agg__ip(src, i);
}

/* Hand the aggregate @e to the module (after the -p/-t filter). Return: 0 or -ENOMEM. */
static int deliver_stack(struct pp_session *s, struct pp_bpf_agg_feed *ba,
			 const struct pp_bpf_agg_entry *e, int agg)
{
	size_t nk = e->s.nr_kernel, nu = e->s.nr_user, nw = e->has_waker ? e->waker.nr_user : 0;
	struct pp_bpf_item it;

	if (!pp_session__pass_tasks(s, e->s.pid, e->s.tid))
		return 0;
	if (nk > BPF_AGG_MAX_FRAMES || nu > BPF_AGG_MAX_FRAMES || nw > BPF_AGG_MAX_FRAMES) {
		ba->cut++;	/* innermost frames kept */
		nk = nk > BPF_AGG_MAX_FRAMES ? BPF_AGG_MAX_FRAMES : nk;
		nu = nu > BPF_AGG_MAX_FRAMES ? BPF_AGG_MAX_FRAMES : nu;
		nw = nw > BPF_AGG_MAX_FRAMES ? BPF_AGG_MAX_FRAMES : nw;
	}
	/* always a buffer: frame pointers are computed into it even for 0 frames */
	if (!ba->ips || nk + nu + nw > ba->ips_cap) {
		size_t ncap = nk + nu + nw + 256;
		uint64_t *n = realloc(ba->ips, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		ba->ips = n;
		ba->ips_cap = ncap;
	}
	memset(&it, 0, sizeof(it));
	it.kind = PP_BPF_ITEM_STACK;
	it.agg = agg;
	it.pid = e->s.pid;
	it.tid = e->s.tid;
	memcpy(it.comm, e->s.comm, sizeof(it.comm));
	it.total_ns = e->s.total_ns;
	it.count = e->s.count;
	it.max_ns = e->s.max_ns;
	it.addr = e->s.addr;
	it.state = e->s.state;
	if (agg == PP_AGG_MEM) {
		it.bytes = e->s.total_ns;
		it.oldest_ns = e->s.state == PP_MEM_LIVE ? e->s.max_ns : 0;
		if (e->s.state == PP_MEM_FREES) {
			it.frees_unknown = e->s.addr;
			it.failed = e->s.total_ns;
			it.untracked = e->s.max_ns;
			it.bytes = 0;
		}
		it.total_ns = it.max_ns = it.addr = 0;
	}
	copy_ips(ba->ips, e->kernel_ips, (unsigned int)nk);
	copy_ips(ba->ips + nk, e->user_ips, (unsigned int)nu);
	it.kernel_ips = ba->ips;
	it.nr_kernel = (uint32_t)nk;
	it.user_ips = ba->ips + nk;
	it.nr_user = (uint32_t)nu;
	if (e->has_waker && e->waker.tid) {
		copy_ips(ba->ips + nk + nu, e->waker_ips, (unsigned int)nw);
		it.waker_pid = e->waker.pid;
		it.waker_tid = e->waker.tid;
		memcpy(it.waker_comm, e->waker.comm, sizeof(it.waker_comm));
		it.waker_ips = ba->ips + nk + nu;
		it.nr_waker = (uint32_t)nw;
	}
	s->a.bpf_item(s, &it);
	return 0;
}

/**
 * pp_bpf_agg_feed__payload() - decode the items of one BPF_AGG payload (a file's
 * chunk or a live drain) and hand those of the module's aggregator to its
 * ->bpf_item().
 * @s: session; @p, @len: the payload.
 *
 * STACK items fill the session's stack table, which OFFCPU_REF items read;
 * malformed items are counted and warned about at the end of the run.
 * Return: 0, or -ENOMEM (not the payload's fault: the caller stops).
 */
int pp_bpf_agg_feed__payload(struct pp_session *s, const uint8_t *p, size_t len)
{
	struct pp_bpf_agg_feed *ba;
	struct pp_item_iter it;
	struct pp_item item;

	if (!s->a.bpf_agg)
		return 0;
	ba = feed_get(s);
	if (!ba)
		return -ENOMEM;
	pp_item_iter__init(&it, p, len);
	while (pp_item_iter__next(&it, &item)) {
		struct pp_bpf_agg_entry e;
		struct pp_bpf_agg_window w;
		int k = pp_bpf_agg__decode(&item, ba->stacks, &e, &w), agg;

		if (k == -ENOMEM)
			return -ENOMEM;
		if (k < 0) {
			ba->bad++;
			continue;
		}
		if (k == PP_BPF_AGG_WINDOW) {
			struct pp_bpf_item wi;

			if ((int)w.source != s->a.bpf_agg)
				continue;
			ba->win_skip = s->win && (w.end_ns < s->win_start || w.start_ns > s->win_end);
			if (ba->win_skip)
				continue;
			/*
			 * -i: the boundaries passed before the window began end
			 * their intervals; its sums go to the interval it began in
			 * (a window is the drain period, a second).
			 */
			pp_session__tick(s, w.start_ns);
			memset(&wi, 0, sizeof(wi));
			wi.kind = PP_BPF_ITEM_WINDOW;
			wi.agg = (int)w.source;
			wi.start_ns = w.start_ns;
			wi.end_ns = w.end_ns;
			wi.dropped = w.dropped;
			wi.stacks_lost = w.stacks_lost;
			s->a.bpf_item(s, &wi);
			continue;
		}
		agg = k == PP_BPF_AGG_OFFCPU ? PP_AGG_OFFCPU : k == PP_BPF_AGG_LOCK ? PP_AGG_LOCK :
		      k == PP_BPF_AGG_MEM ? PP_AGG_MEM : 0;
		if (!agg || agg != s->a.bpf_agg || ba->win_skip)
			continue;
		if (deliver_stack(s, ba, &e, agg))
			return -ENOMEM;
	}
	if (it.bad)
		ba->bad++;
	return 0;
}

/**
 * pp_bpf_agg_feed__open_live() - load the module's aggregator for a live run.
 * @s: session; @workload: the COMMAND's pid, 0 when none.
 *
 * It follows the -p processes, else the COMMAND, else every process (and
 * the core keeps -t threads); what the targets fork is followed too.
 * Return: 0 (nothing to do for a module without .bpf_agg) or -errno, with
 * a message printed.
 */
int pp_bpf_agg_feed__open_live(struct pp_session *s, pid_t workload)
{
	pid_t pids[64];
	int nr = 0;
	struct pp_bpf_agg_feed *ba;
	char err[256];

	/* an optional aggregator (kmemleak --bpf) not asked for: the module's events */
	if (s->a.bpf_agg_opt && !pp_opts__mod(&s->opts, s->a.bpf_agg_opt))
		s->a.bpf_agg = 0;
	if (!s->a.bpf_agg)
		return 0;
	ba = feed_get(s);
	if (!ba)
		return -ENOMEM;
	for (int i = 0; i < s->nr_pids && nr < 64; i++)
		pids[nr++] = (pid_t)s->pids[i];
	/*
	 * Else the workload, as .pid (as pp-record passes it): the stack
	 * walker reads the .pids at once, and a workload's maps are ours
	 * until its exec.
	 */
	if (nr || workload < 0)
		workload = 0;
	err[0] = '\0';
	if (s->a.bpf_agg == PP_AGG_OFFCPU) {
		struct pp_bpf_offcpu_opts o = { .pid = workload, .pids = pids, .nr_pids = nr };

		ba->offcpu = pp_bpf_offcpu__new(&o, err, sizeof(err));
	} else if (s->a.bpf_agg == PP_AGG_LOCK) {
		struct pp_bpf_lock_opts o = { .pid = workload, .pids = pids, .nr_pids = nr };

		ba->lock = pp_bpf_lock__new(&o, err, sizeof(err));
	} else if (s->a.bpf_agg == PP_AGG_MEM) {
		struct pp_event_reqs reqs;
		struct pp_bpf_mem_opts o = { .pid = workload, .pids = pids, .nr_pids = nr,
					     .track = 1 };

		/* the module names the libc, as its events would */
		memset(&reqs, 0, sizeof(reqs));
		if (!s->a.events || s->a.events(&s->opts, &reqs) || !reqs.agg_path[0]) {
			fprintf(stderr, "pp-analyze: %s: %s\n", s->a.name,
				reqs.err[0] ? reqs.err : "no binary to probe");
			return -EINVAL;
		}
		o.libc = reqs.agg_path;
		ba->mem = pp_bpf_mem__new(&o, err, sizeof(err));
	} else {
		fprintf(stderr, "pp-analyze: %s: unknown BPF aggregator %d\n", s->a.name,
			s->a.bpf_agg);
		return -EINVAL;
	}
	if (!ba->offcpu && !ba->lock && !ba->mem) {
		int ret = errno ? -errno : -EINVAL;

		fprintf(stderr, "pp-analyze: %s\n", err);
		return ret;
	}
	ba->next_drain = mono_ns() + BPF_AGG_DRAIN_NS;
	return 0;
}

/**
 * pp_bpf_agg_feed__drain() - live: move what the aggregator summed since the last
 * drain to the module (one window and its aggregates). A no-op without a
 * live aggregator.
 * @s: session.
 */
void pp_bpf_agg_feed__drain(struct pp_session *s)
{
	struct pp_bpf_agg_feed *ba = s->bpf_agg_feed;
	struct pp_buf b;
	int n;

	if (!ba || (!ba->offcpu && !ba->lock && !ba->mem))
		return;
	pp_buf__init(&b);
	if (ba->offcpu)
		n = pp_bpf_offcpu__drain(ba->offcpu, &b, NULL, NULL, NULL, NULL, NULL);
	else if (ba->lock)
		n = pp_bpf_lock__drain(ba->lock, &b, NULL, NULL, NULL, NULL, NULL);
	else
		n = pp_bpf_mem__drain(ba->mem, &b, NULL, NULL, NULL, NULL, NULL);
	if (n < 0)
		pp_session__warn(s, "reading the BPF aggregate: %s", strerror(-n));
	else if (pp_bpf_agg_feed__payload(s, b.data, b.len))
		pp_session__warn(s, "out of memory: BPF aggregate items dropped");
	pp_buf__exit(&b);
	ba->next_drain = mono_ns() + BPF_AGG_DRAIN_NS;
}

/**
 * pp_bpf_agg_feed__poll() - live: drain when a second has passed since the last
 * drain, so the kernel's maps do not fill up on a long run.
 * @s: session; @now: CLOCK_MONOTONIC ns.
 */
void pp_bpf_agg_feed__poll(struct pp_session *s, uint64_t now)
{
	struct pp_bpf_agg_feed *ba = s->bpf_agg_feed;

	if (ba && (ba->offcpu || ba->lock || ba->mem) && now >= ba->next_drain)
		pp_bpf_agg_feed__drain(s);
}

/**
 * pp_bpf_agg_feed__finish() - warn about what could not be read: malformed items,
 * stacks referred to but never defined (their chunk was damaged).
 * @s: session.
 */
void pp_bpf_agg_feed__finish(struct pp_session *s)
{
	struct pp_bpf_agg_feed *ba = s->bpf_agg_feed;

	if (!ba)
		return;
	if (ba->bad)
		pp_session__warn(s, "%llu malformed BPF_AGG items skipped",
				 (unsigned long long)ba->bad);
	if (ba->cut)
		pp_session__warn(s, "%llu stacks deeper than %d frames: cut to their %d innermost",
				 (unsigned long long)ba->cut, BPF_AGG_MAX_FRAMES, BPF_AGG_MAX_FRAMES);
	if (pp_bpf_stacks__missing(ba->stacks))
		pp_session__warn(s, "%llu stacks referred to but not defined (damaged chunks): shown empty",
				 (unsigned long long)pp_bpf_stacks__missing(ba->stacks));
}

/**
 * pp_bpf_agg_feed__free() - detach a live aggregator and free; fine when unused.
 * @s: session.
 */
void pp_bpf_agg_feed__free(struct pp_session *s)
{
	struct pp_bpf_agg_feed *ba = s->bpf_agg_feed;

	if (!ba)
		return;
	pp_bpf_offcpu__free(ba->offcpu);
	pp_bpf_lock__free(ba->lock);
	pp_bpf_mem__free(ba->mem);
	pp_bpf_stacks__free(ba->stacks);
	free(ba->ips);
	free(ba);
	s->bpf_agg_feed = NULL;
}

/**
 * pp_bpf_agg_feed__file_has() - does the file hold a window of the module's
 * aggregator? Asked before the run, so a file recorded for another
 * profiler fails with a message instead of an empty report.
 * @s: session with a file open.
 * Return: 1 or 0.
 */
int pp_bpf_agg_feed__file_has(struct pp_session *s)
{
	for (size_t i = 0; i < s->nr_entries; i++) {
		struct pp_item_iter it;
		struct pp_item item;
		struct pp_chunk c;

		if (s->entries[i].type != PP_CHUNK_BPF_AGG ||
		    pp_reader__read_at(s->reader, s->entries[i].offset, &c) != 1)
			continue;
		pp_item_iter__init(&it, c.data, c.size);
		while (pp_item_iter__next(&it, &item)) {
			struct pp_bpf_agg_entry e;
			struct pp_bpf_agg_window w;

			if (pp_bpf_agg__decode(&item, NULL, &e, &w) == PP_BPF_AGG_WINDOW &&
			    (int)w.source == s->a.bpf_agg)
				return 1;
		}
	}
	return 0;
}
