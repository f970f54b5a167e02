// SPDX-License-Identifier: MIT
/*
 * Off-CPU profiling in the kernel (bpf/offcpu.bpf.c): load and attach the
 * sched_switch program, and drain its aggregates into BPF_AGG items.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>

#include "pp/bpf.h"
#include "pp/meta.h"
#include "bpf-internal.h"
#include "../bpf/offcpu.h"
#include "bpf/offcpu.skel.h"

struct pp_bpf_offcpu {
	struct offcpu_bpf *skel;
	uint64_t window_start;
	uint64_t dropped_seen;
	struct pp_offcpu_key *keys;	/* PP_OFFCPU_MAX_KEYS, drain scratch */
	uint64_t *kips, *uips;		/* PP_OFFCPU_MAX_DEPTH each */
	struct pp_buf synth;
	struct pp_bpf_seen seen;
};

/**
 * pp_bpf_offcpu__new() - load and attach the off-CPU program.
 * @o: options or NULL; @err, @errlen: message on failure.
 * Return: collector, or NULL with errno set.
 */
struct pp_bpf_offcpu *pp_bpf_offcpu__new(const struct pp_bpf_offcpu_opts *o, char *err,
					 size_t errlen)
{
	struct pp_bpf_offcpu_opts def = { 0 };
	LIBBPF_OPTS(bpf_object_open_opts, open_opts);
	struct pp_bpf_offcpu *oc;
	struct pp_offcpu_cfg *c;
	int ret;

	if (!o)
		o = &def;
	ret = pp_bpf__available(err, errlen);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	oc = calloc(1, sizeof(*oc));
	if (!oc)
		goto nomem;
	pp_buf__init(&oc->synth);
	oc->keys = calloc(PP_OFFCPU_MAX_KEYS, sizeof(*oc->keys));
	oc->kips = calloc(PP_OFFCPU_MAX_DEPTH, sizeof(uint64_t));
	oc->uips = calloc(PP_OFFCPU_MAX_DEPTH, sizeof(uint64_t));
	if (!oc->keys || !oc->kips || !oc->uips)
		goto nomem;
	pp_bpf_core_opts(&open_opts);
	oc->skel = offcpu_bpf__open_opts(&open_opts);
	if (!oc->skel) {
		ret = pp_bpf_load_error("offcpu", -errno, err, errlen);
		goto fail;
	}
	c = (struct pp_offcpu_cfg *)&oc->skel->rodata->cfg;
	c->tgid = (unsigned int)o->pid;
	c->include_preempted = !!o->include_preempted;
	c->kernel_threads = !!o->kernel_threads;
	c->kernel_stack = !o->no_kernel_stack;
	c->user_stack = !o->no_user_stack;
	c->min_ns = o->min_ns;
	pp_bpf_lazy_hash(oc->skel->maps.agg);
	pp_bpf_lazy_hash(oc->skel->maps.procs);
	ret = offcpu_bpf__load(oc->skel);
	if (ret) {
		pp_bpf_load_error("offcpu", ret, err, errlen);
		goto fail;
	}
	pp_bpf_follow__seed(oc->skel->maps.procs, oc->skel->rodata->cfg.tgid);
	ret = offcpu_bpf__attach(oc->skel);
	if (ret) {
		snprintf(err, errlen, "offcpu: attaching to sched_switch failed: %s", strerror(-ret));
		goto fail;
	}
	oc->window_start = pp_bpf_mono_ns();
	return oc;
nomem:
	snprintf(err, errlen, "out of memory");
	ret = -ENOMEM;
fail:
	pp_bpf_offcpu__free(oc);
	errno = -ret;
	return NULL;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/*
 * Free the stack ids of the drained aggregates that no sleeping thread
 * still refers to, so the stack map does not fill up over a long run.
 */
static void release_stacks(struct pp_bpf_offcpu *oc, int *ids, size_t nr)
{
	int sfd = bpf_map__fd(oc->skel->maps.start), stfd = bpf_map__fd(oc->skel->maps.stacks);
	uint32_t key, next, *prev = NULL;
	struct pp_offcpu_start v;

	qsort(ids, nr, sizeof(*ids), cmp_int);
	while (!bpf_map_get_next_key(sfd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(sfd, &key, &v))
			continue;
		for (size_t i = 0; i < nr; i++) {
			if (ids[i] == v.kstack || ids[i] == v.ustack)
				ids[i] = -1;
		}
	}
	for (size_t i = 0; i < nr; i++) {
		uint32_t k = (uint32_t)ids[i];

		if (ids[i] >= 0 && (i == 0 || ids[i] != ids[i - 1]))
			bpf_map_delete_elem(stfd, &k);
	}
}

/**
 * pp_bpf_offcpu__drain() - move the aggregates into BPF_AGG items.
 * @oc: collector; @payload: receives a WINDOW item then OFFCPU items;
 * @first_ts, @last_ts: receive the window; @syms, @tasks, @mmaps: optional
 * symbol collector and where its TASKS/MMAPS items go.
 * Return: number of OFFCPU items, or -errno.
 */
int pp_bpf_offcpu__drain(struct pp_bpf_offcpu *oc, struct pp_buf *payload, uint64_t *first_ts,
			 uint64_t *last_ts, struct pp_syms *syms, struct pp_buf *tasks,
			 struct pp_buf *mmaps)
{
	int afd = bpf_map__fd(oc->skel->maps.agg), stfd = bpf_map__fd(oc->skel->maps.stacks);
	unsigned int old = oc->skel->bss->gen & 1;
	struct pp_bpf_agg_window w = { .source = PP_BPF_SRC_OFFCPU };
	struct pp_offcpu_key key, *prev = NULL;
	size_t nr = 0, at, nr_ids = 0;
	uint64_t dropped;
	int *ids, items = 0;

	/* New switches go to the other generation from now on. */
	__atomic_store_n(&oc->skel->bss->gen, old ^ 1, __ATOMIC_RELEASE);
	w.start_ns = oc->window_start;
	w.end_ns = pp_bpf_mono_ns();
	oc->window_start = w.end_ns;
	dropped = __atomic_load_n(&oc->skel->bss->dropped, __ATOMIC_RELAXED);
	w.dropped = dropped - oc->dropped_seen;
	oc->dropped_seen = dropped;

	while (nr < PP_OFFCPU_MAX_KEYS && !bpf_map_get_next_key(afd, prev, &oc->keys[nr])) {
		prev = &oc->keys[nr];
		if (oc->keys[nr].gen == old)
			nr++;
		else {
			key = oc->keys[nr];
			prev = &key;
		}
	}
	ids = calloc(nr * 2 + 1, sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	at = pp_item__begin(payload, PP_BPF_AGG_WINDOW);
	pp_buf__append(payload, &w, sizeof(w));
	pp_item__end(payload, at);
	pp_buf__reset(&oc->synth);
	for (size_t i = 0; i < nr; i++) {
		const struct pp_offcpu_key *k = &oc->keys[i];
		struct pp_offcpu_val v;
		struct pp_bpf_agg_stack s;
		unsigned int nk, nu;

		if (bpf_map_lookup_elem(afd, k, &v))
			continue;
		bpf_map_delete_elem(afd, k);
		nk = pp_bpf_read_stack(stfd, k->kstack, oc->kips, PP_OFFCPU_MAX_DEPTH);
		nu = pp_bpf_read_stack(stfd, k->ustack, oc->uips, PP_OFFCPU_MAX_DEPTH);
		if (k->kstack >= 0)
			ids[nr_ids++] = k->kstack;
		if (k->ustack >= 0)
			ids[nr_ids++] = k->ustack;
		memset(&s, 0, sizeof(s));
		s.pid = k->tgid;
		s.tid = k->pid;
		s.total_ns = v.total_ns;
		s.count = v.count;
		s.max_ns = v.max_ns;
		s.state = k->state;
		s.nr_kernel = (uint16_t)nk;
		s.nr_user = (uint16_t)nu;
		memcpy(s.comm, v.comm, sizeof(s.comm));
		s.comm[sizeof(s.comm) - 1] = '\0';
		pp_bpf_put_stack(payload, PP_BPF_AGG_OFFCPU, &s, oc->kips, nk, oc->uips, nu, NULL,
				 NULL);
		if (syms) {
			pp_bpf_seen_learn(&oc->seen, syms, s.pid, tasks, mmaps);
			pp_bpf_synth_sample(&oc->synth, s.pid, s.tid, oc->kips, nk, oc->uips, nu);
		}
		items++;
	}
	/* Patch the item count into the window. */
	w.nr_items = (uint32_t)items;
	if (!payload->error)
		memcpy(payload->data + at + sizeof(struct pp_item_header), &w, sizeof(w));
	if (syms)
		pp_bpf_scan_synth(syms, &oc->synth);
	release_stacks(oc, ids, nr_ids);
	free(ids);
	if (first_ts)
		*first_ts = w.start_ns;
	if (last_ts)
		*last_ts = w.end_ns;
	return payload->error ? payload->error : items;
}

/** pp_bpf_offcpu__free() - detach and free; accepts NULL. @oc: collector. */
void pp_bpf_offcpu__free(struct pp_bpf_offcpu *oc)
{
	if (!oc)
		return;
	offcpu_bpf__destroy(oc->skel);
	free(oc->keys);
	free(oc->kips);
	free(oc->uips);
	pp_buf__exit(&oc->synth);
	pp_bpf_seen_free(&oc->seen);
	free(oc);
}
