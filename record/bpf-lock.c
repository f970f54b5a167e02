// SPDX-License-Identifier: MIT
/*
 * Futex contention in the kernel (bpf/lock.bpf.c): load and attach the
 * sys_enter/sys_exit programs, and drain the wait-time aggregates into
 * BPF_AGG items of kind LOCK.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>

#include "pp/bpf.h"
#include "pp/bpf-agg.h"
#include "pp/meta.h"
#include "record.h"
#include "bpf-internal.h"
#include "../bpf/lock.h"
#include "../bpf/unwind.h"
#include "bpf/lock.skel.h"

struct pp_bpf_lock {
	struct lock_bpf *skel;
	struct pp_uwalk *uw;		/* fills the walker's maps; NULL: frame pointers */
	struct pp_bpf_windows ws;
	struct pp_lock_key *keys;
	uint64_t *uips, *wips;
	struct pp_buf synth;
};

/**
 * pp_bpf_lock__new() - load and attach the futex wait program.
 * @o: options or NULL; @err, @errlen: message on failure.
 * Return: collector, or NULL with errno set.
 */
struct pp_bpf_lock *pp_bpf_lock__new(const struct pp_bpf_lock_opts *o, char *err, size_t errlen)
{
	LIBBPF_OPTS(bpf_object_open_opts, open_opts);
	struct pp_bpf_lock *lk;
	struct pp_lock_cfg *c;
	char why[128];
	int ret, walk;

	ret = pp_bpf_btf_check(err, errlen);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	lk = calloc(1, sizeof(*lk));
	if (!lk)
		goto nomem;
	pp_buf__init(&lk->synth);
	lk->keys = calloc(PP_LOCK_MAX_KEYS, sizeof(*lk->keys));
	lk->uips = calloc(PP_LOCK_MAX_DEPTH, sizeof(uint64_t));
	lk->wips = calloc(PP_LOCK_MAX_DEPTH, sizeof(uint64_t));
	if (!lk->keys || !lk->uips || !lk->wips)
		goto nomem;
	pp_bpf_core_opts(&open_opts);
	lk->skel = lock_bpf__open_opts(&open_opts);
	if (!lk->skel) {
		ret = pp_bpf_load_error("lock", -errno, err, errlen);
		goto fail;
	}
	c = (struct pp_lock_cfg *)&lk->skel->rodata->cfg;
	c->follow = o ? pp_bpf_follow__targets(o->pid, o->pids, o->nr_pids) : 0;
	c->exclude_tgid = c->follow ? 0 : (unsigned int)getpid();
	c->min_ns = o ? o->min_ns : 0;
	c->futex_nr = SYS_futex;
	pp_bpf_follow__prepare(lk->skel->progs.pp_follow_fork, lk->skel->maps.procs, c->follow);
	pp_bpf_lazy_hash(lk->skel->maps.agg);
	pp_bpf_lazy_hash(lk->skel->maps.procs);
	pp_bpf_lazy_hash(lk->skel->maps.start);
	pp_bpf_lazy_hash(lk->skel->maps.waking);
	pp_bpf_lazy_hash(lk->skel->maps.stacks);
	/* syscall programs and bpf_snprintf(): 5.14; before, kallsyms serve */
	bpf_program__set_autoload(lk->skel->progs.pp_ksym, pp_bpf_kernel_at_least(5, 14));
	lk->skel->rodata->pp_stack_loop = pp_bpf_kernel_at_least(5, 17);
	walk = !(o && o->fp_user_stack) && pp_uwalk_available(why, sizeof(why));
	lk->skel->rodata->pp_stack_walk = walk;
	ret = lock_bpf__load(lk->skel);
	if (ret) {
		pp_bpf_load_error("lock", ret, err, errlen);
		goto fail;
	}
	if (o)
		pp_bpf_follow__seed(lk->skel->maps.procs, o->pid, o->pids, o->nr_pids);
	pp_bpf_warm_stacks(bpf_map__fd(lk->skel->maps.stacks));
	if (walk && !(lk->uw = pp_uwalk__agg(lk->skel->obj, o ? o->pids : NULL, o ? o->nr_pids : 0,
					      err, errlen))) {
		ret = -ENOMEM;
		goto fail;
	}
	ret = lock_bpf__attach(lk->skel);
	if (ret) {
		snprintf(err, errlen, "lock: attaching to sys_enter/sys_exit failed: %s", strerror(-ret));
		goto fail;
	}
	lk->ws.start_ns = pp_bpf_mono_ns();
	return lk;
nomem:
	snprintf(err, errlen, "out of memory");
	ret = -ENOMEM;
fail:
	pp_bpf_lock__free(lk);
	errno = -ret;
	return NULL;
}

/** pp_bpf_lock__flip() - as pp_bpf_offcpu__flip(). @lk: collector. */
void pp_bpf_lock__flip(struct pp_bpf_lock *lk)
{
	pp_bpf_windows__close(&lk->ws, &lk->skel->bss->gen, PP_BPF_SRC_LOCK);
}

/**
 * pp_bpf_lock__drain() - move the futex wait aggregates into LOCK items.
 * @lk: collector; @payload: receives a WINDOW item then LOCK items;
 * @first_ts, @last_ts: the window; @syms, @tasks, @mmaps: optional symbol
 * collector and where its TASKS/MMAPS items go.
 * Return: number of LOCK items, or -errno.
 */
int pp_bpf_lock__drain(struct pp_bpf_lock *lk, struct pp_buf *payload, uint64_t *first_ts,
		       uint64_t *last_ts, struct pp_syms *syms, struct pp_buf *tasks,
		       struct pp_buf *mmaps)
{
	int afd = bpf_map__fd(lk->skel->maps.agg), stfd = bpf_map__fd(lk->skel->maps.stacks);
	struct pp_lock_key key, *prev = NULL;
	struct pp_bpf_agg_window w;
	unsigned int old;
	size_t nr = 0, at;
	int items = 0;

	old = pp_bpf_windows__take(&lk->ws, &lk->skel->bss->gen, PP_BPF_SRC_LOCK,
				   &lk->skel->bss->dropped, &lk->skel->bss->stacks_lost, &w);
	while (nr < PP_LOCK_MAX_KEYS && !bpf_map_get_next_key(afd, prev, &lk->keys[nr])) {
		if (lk->keys[nr].gen == old) {
			prev = &lk->keys[nr];
			nr++;
		} else {
			key = lk->keys[nr];
			prev = &key;
		}
	}
	at = pp_bpf_put_window(payload, &w);
	pp_buf__reset(&lk->synth);
	for (size_t i = 0; i < nr; i++) {
		const struct pp_lock_key *k = &lk->keys[i];
		struct pp_bpf_agg_waker wk;
		struct pp_bpf_agg_stack s;
		struct pp_lock_val v;
		unsigned int nu, nw;

		if (bpf_map_lookup_elem(afd, k, &v))
			continue;
		bpf_map_delete_elem(afd, k);
		nu = pp_bpf_read_stack(stfd, k->ustack, lk->uips);
		nw = pp_bpf_read_stack(stfd, k->waker_ustack, lk->wips);
		memset(&s, 0, sizeof(s));
		s.pid = k->tgid;
		s.tid = k->pid;
		s.total_ns = v.total_ns;
		s.count = v.count;
		s.max_ns = v.max_ns;
		s.addr = k->uaddr;
		s.nr_user = (uint16_t)nu;
		memcpy(s.comm, v.comm, sizeof(s.comm));
		s.comm[sizeof(s.comm) - 1] = '\0';
		memset(&wk, 0, sizeof(wk));
		wk.pid = k->tgid;
		wk.tid = k->waker_tid;
		wk.nr_user = (uint16_t)nw;
		memcpy(wk.comm, v.waker_comm, sizeof(wk.comm));
		wk.comm[sizeof(wk.comm) - 1] = '\0';
		pp_bpf_put_stack(payload, PP_BPF_AGG_LOCK, &s, NULL, 0, lk->uips, nu,
				 k->waker_tid ? &wk : NULL, lk->wips);
		if (syms) {
			pp_syms__learn(syms, s.pid, tasks, mmaps);
			pp_bpf_synth_sample(&lk->synth, s.pid, s.tid, NULL, 0, lk->uips, nu);
			if (k->waker_tid && nw)
				pp_bpf_synth_sample(&lk->synth, s.pid, wk.tid, NULL, 0, lk->wips, nw);
		}
		items++;
	}
	w.nr_items = (uint32_t)items;
	pp_bpf_set_window_items(payload, at, w.nr_items);
	if (syms)
		pp_bpf_scan_synth(syms, &lk->synth);
	/*
	 * User stacks of lock waits repeat; the stack map is sized for the
	 * distinct ones of a run and not trimmed here (a waiter still inside
	 * futex may refer to any of them).
	 */
	if (first_ts)
		*first_ts = w.start_ns;
	if (last_ts)
		*last_ts = w.end_ns;
	return payload->error ? payload->error : items;
}

/** pp_bpf_lock__ksym() - a resolver on the object's pp_ksym program. */
struct pp_ksym_bpf *pp_bpf_lock__ksym(struct pp_bpf_lock *lk)
{
	/* not loaded before 5.14: NULL */
	return pp_ksym_bpf__use(bpf_program__fd(lk->skel->progs.pp_ksym), &lk->skel->bss->ksym_addr,
				lk->skel->bss->ksym_text, &lk->skel->bss->ksym_ret);
}

/** pp_bpf_lock__free() - detach and free; accepts NULL. @lk: collector. */
/* See record/record.h. */
struct pp_uwalk *pp_bpf_lock__walker(struct pp_bpf_lock *lk)
{
	return lk->uw;
}

void pp_bpf_lock__free(struct pp_bpf_lock *lk)
{
	if (!lk)
		return;
	lock_bpf__destroy(lk->skel);
	pp_uwalk__free(lk->uw);	/* after the program that asks it */
	free(lk->keys);
	free(lk->uips);
	free(lk->wips);
	pp_buf__exit(&lk->synth);
	free(lk);
}
