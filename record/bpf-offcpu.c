// SPDX-License-Identifier: MIT
/*
 * Off-CPU profiling in the kernel (bpf/offcpu.bpf.c): load and attach the
 * sched_switch program, and drain its aggregates into BPF_AGG items.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>

#include "pp/bpf.h"
#include "pp/bpf-agg.h"
#include "pp/meta.h"
#include "record.h"
#include "bpf-internal.h"
#include "../bpf/offcpu.h"
#include "../bpf/unwind.h"
#include "bpf/offcpu.skel.h"

#define RELEASE_EVERY	16	/* drains between releases of unused stacks */

/* Batch size of map reads: more than any hash bucket holds. */
#define BATCH	1024

/* The stack cache: open addressing, at most half full, doubled as it fills. */
#define SCACHE_MIN_BITS	6	/* small: the tests grow it too */

struct cached_stack {
	uint64_t key;			/* stack hash; 0: empty slot */
	uint64_t *ips;
	uint32_t nr;
	uint32_t used;			/* window that last used it */
	uint8_t gone;			/* deleted from the map, frames kept a while */
};

/* A growable sorted set of stack names. */
struct u64set {
	uint64_t *v;
	size_t nr, cap;
};

struct pp_bpf_offcpu {
	struct offcpu_bpf *skel;
	struct pp_uwalk *uw;		/* fills the walker's maps; NULL: frame pointers */
	struct pp_bpf_windows ws;
	struct pp_offcpu_key *keys;	/* PP_OFFCPU_MAX_KEYS, drain scratch */
	struct pp_offcpu_val *vals;	/* idem */
	uint64_t *kips, *uips;		/* PP_OFFCPU_MAX_DEPTH each */
	/*
	 * Stacks read from the `stacks` map, by hash: an entry's frames do not
	 * change until user space deletes it, so a stack that blocks again in
	 * the next windows is not read again. Stacks unused for a whole window
	 * (and not held by a sleeping thread) are deleted.
	 */
	struct cached_stack *stacks;	/* 1 << scache_bits slots */
	uint32_t scache_bits;
	uint32_t nr_cached;
	struct pp_bpf_stacks *written;	/* stacks defined in the output so far */
	struct pp_bpf_stacks *scanned;	/* stacks (user: per process) marked as hit */
	uint32_t window;		/* drains so far */
	int no_batch;			/* the kernel has no batch map operations */
	struct u64set held;		/* stacks sleeping threads hold (at a release) */
	struct u64set orphans;		/* in the map, never read: at the last release */
	uint32_t *skeys;		/* BATCH, to read `start` */
	struct pp_offcpu_start *svals;	/* BATCH */
	struct pp_buf synth;
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
	char why[128];
	int ret, walk;

	if (!o)
		o = &def;
	ret = pp_bpf_btf_check(err, errlen);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	oc = calloc(1, sizeof(*oc));
	if (!oc)
		goto nomem;
	pp_buf__init(&oc->synth);
	oc->keys = malloc(PP_OFFCPU_MAX_KEYS * sizeof(*oc->keys));	/* filled before use */
	oc->vals = malloc(PP_OFFCPU_MAX_KEYS * sizeof(*oc->vals));
	oc->kips = calloc(PP_OFFCPU_MAX_DEPTH, sizeof(uint64_t));
	oc->uips = calloc(PP_OFFCPU_MAX_DEPTH, sizeof(uint64_t));
	oc->scache_bits = SCACHE_MIN_BITS;
	oc->stacks = calloc(1u << SCACHE_MIN_BITS, sizeof(*oc->stacks));
	oc->skeys = calloc(BATCH, sizeof(*oc->skeys));
	oc->svals = calloc(BATCH, sizeof(*oc->svals));
	oc->written = pp_bpf_stacks__new();
	oc->scanned = pp_bpf_stacks__new();
	if (!oc->keys || !oc->vals || !oc->kips || !oc->uips || !oc->stacks || !oc->skeys ||
	    !oc->svals || !oc->written || !oc->scanned)
		goto nomem;
	pp_bpf_core_opts(&open_opts);
	oc->skel = offcpu_bpf__open_opts(&open_opts);
	if (!oc->skel) {
		ret = pp_bpf_load_error("offcpu", -errno, err, errlen);
		goto fail;
	}
	c = (struct pp_offcpu_cfg *)&oc->skel->rodata->cfg;
	c->follow = pp_bpf_follow__targets(o->pid, o->pids, o->nr_pids);
	c->exclude_tgid = c->follow ? 0 : (unsigned int)getpid();
	c->include_preempted = !!o->include_preempted;
	c->kernel_threads = !!o->kernel_threads;
	c->kernel_stack = !o->no_kernel_stack;
	c->user_stack = !o->no_user_stack;
	c->min_ns = o->min_ns;
	pp_bpf_follow__prepare(oc->skel->progs.pp_follow_fork, oc->skel->maps.procs, c->follow);
	pp_bpf_lazy_hash(oc->skel->maps.agg);
	pp_bpf_lazy_hash(oc->skel->maps.procs);
	pp_bpf_lazy_hash(oc->skel->maps.stacks);
	/* syscall programs and bpf_snprintf(): 5.14; before, kallsyms serve */
	bpf_program__set_autoload(oc->skel->progs.pp_ksym, pp_bpf_kernel_at_least(5, 14));
	oc->skel->rodata->pp_stack_loop = !o->no_bpf_loop && pp_bpf_kernel_at_least(5, 17);
	walk = c->user_stack && !o->fp_user_stack && !o->no_bpf_loop &&
	       pp_uwalk_available(why, sizeof(why));
	oc->skel->rodata->pp_stack_walk = walk;
	pp_bpf_lazy_hash(oc->skel->maps.start);
	ret = offcpu_bpf__load(oc->skel);
	if (ret) {
		pp_bpf_load_error("offcpu", ret, err, errlen);
		goto fail;
	}
	pp_bpf_follow__seed(oc->skel->maps.procs, o->pid, o->pids, o->nr_pids);
	pp_bpf_warm_stacks(bpf_map__fd(oc->skel->maps.stacks));
	if (walk && !(oc->uw = pp_uwalk__agg(oc->skel->obj, o->pids, o->nr_pids, err, errlen))) {
		ret = -ENOMEM;
		goto fail;
	}
	ret = offcpu_bpf__attach(oc->skel);
	if (ret) {
		snprintf(err, errlen, "offcpu: attaching to sched_switch failed: %s", strerror(-ret));
		goto fail;
	}
	oc->ws.start_ns = pp_bpf_mono_ns();
	return oc;
nomem:
	snprintf(err, errlen, "out of memory");
	ret = -ENOMEM;
fail:
	pp_bpf_offcpu__free(oc);
	errno = -ret;
	return NULL;
}

/* See record/record.h. */
struct pp_uwalk *pp_bpf_offcpu__walker(struct pp_bpf_offcpu *oc)
{
	return oc->uw;
}

static uint32_t scache_size(const struct pp_bpf_offcpu *oc)
{
	return 1u << oc->scache_bits;
}

static uint32_t slot_of(const struct pp_bpf_offcpu *oc, uint64_t key)
{
	return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> (64 - oc->scache_bits));
}

/* The slot of @key, or the empty slot where it would go. */
static struct cached_stack *scache_slot(struct pp_bpf_offcpu *oc, uint64_t key)
{
	uint32_t i = slot_of(oc, key);

	while (oc->stacks[i].key && oc->stacks[i].key != key)
		i = (i + 1) & (scache_size(oc) - 1);
	return &oc->stacks[i];
}

/* Double the table (it stays at most half full). Return: 0 or -ENOMEM. */
static int scache_grow(struct pp_bpf_offcpu *oc)
{
	struct cached_stack *old = oc->stacks;
	uint32_t n = scache_size(oc);

	oc->stacks = calloc((size_t)n * 2, sizeof(*oc->stacks));
	if (!oc->stacks) {
		oc->stacks = old;
		return -ENOMEM;
	}
	oc->scache_bits++;
	for (uint32_t i = 0; i < n; i++)
		if (old[i].key)
			*scache_slot(oc, old[i].key) = old[i];
	free(old);
	return 0;
}

/* Empty slot @i, moving later entries of its probe run back into the gap. */
static void scache_remove(struct pp_bpf_offcpu *oc, uint32_t i)
{
	uint32_t j = i, k, mask = scache_size(oc) - 1;

	free(oc->stacks[i].ips);
	memset(&oc->stacks[i], 0, sizeof(oc->stacks[i]));
	oc->nr_cached--;
	for (;;) {
		j = (j + 1) & mask;
		if (!oc->stacks[j].key)
			return;
		k = slot_of(oc, oc->stacks[j].key);
		/* stays if its home slot k lies cyclically in (i, j] */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		oc->stacks[i] = oc->stacks[j];
		memset(&oc->stacks[j], 0, sizeof(oc->stacks[j]));
		i = j;
	}
}

static int u64set_add(struct u64set *s, uint64_t key)
{
	if (s->nr == s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 256;
		uint64_t *n = realloc(s->v, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		s->v = n;
		s->cap = ncap;
	}
	s->v[s->nr++] = key;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static int u64set_has(const struct u64set *s, uint64_t key)
{
	return s->nr && bsearch(&key, s->v, s->nr, sizeof(key), cmp_u64);
}

static int add_held(struct pp_bpf_offcpu *oc, const struct pp_offcpu_start *v)
{
	if (v->kstack && u64set_add(&oc->held, v->kstack))
		return -ENOMEM;
	if (v->ustack && u64set_add(&oc->held, v->ustack))
		return -ENOMEM;
	return 0;
}

/*
 * The stacks that sleeping threads (entries of `start`) hold, sorted into
 * oc->held. Return: 0, or -errno (then nothing may be released).
 */
static int held_stacks(struct pp_bpf_offcpu *oc)
{
	int sfd = bpf_map__fd(oc->skel->maps.start);
	uint32_t *keys = oc->skeys;
	struct pp_offcpu_start *vals = oc->svals;
	uint32_t batch = 0, count, key, next, *prev = NULL;
	int ret, first = 1;

	oc->held.nr = 0;
	if (!oc->no_batch) {
		do {
			count = BATCH;
			ret = bpf_map_lookup_batch(sfd, first ? NULL : &batch, &batch, keys, vals,
						   &count, NULL);
			first = 0;
			for (uint32_t i = 0; i < count && (!ret || ret == -ENOENT); i++)
				if (add_held(oc, &vals[i]))
					return -ENOMEM;
		} while (!ret);
		if (ret != -ENOENT && ret != -EINVAL && ret != -ENOTSUP && ret != -EOPNOTSUPP)
			return ret;
		if (ret != -ENOENT) {
			oc->no_batch = 1;
			oc->held.nr = 0;
		}
	}
	if (oc->no_batch) {
		while (!bpf_map_get_next_key(sfd, prev, &next)) {
			key = next;
			prev = &key;
			if (!bpf_map_lookup_elem(sfd, &key, vals) && add_held(oc, &vals[0]))
				return -ENOMEM;
		}
	}
	if (oc->held.nr)
		qsort(oc->held.v, oc->held.nr, sizeof(uint64_t), cmp_u64);
	return 0;
}

/*
 * Stacks the drain never reads (their switch was not aggregated: agg or
 * start full, LRU eviction, shorter than min_ns) stay in the map: delete
 * those found orphaned at two releases in a row (a stack stored since the
 * last drain is read by the next one, well before the next release).
 */
static void release_orphans(struct pp_bpf_offcpu *oc, int stfd)
{
	struct u64set now = { 0 };
	uint64_t key, next, *prev = NULL;

	while (!bpf_map_get_next_key(stfd, prev, &next)) {
		key = next;
		prev = &key;
		if (scache_slot(oc, key)->key || u64set_has(&oc->held, key))
			continue;
		if (u64set_add(&now, key))
			break;
	}
	for (size_t i = 0; i < now.nr; i++)
		if (u64set_has(&oc->orphans, now.v[i]))
			bpf_map_delete_elem(stfd, &now.v[i]);
	if (now.nr)
		qsort(now.v, now.nr, sizeof(uint64_t), cmp_u64);
	free(oc->orphans.v);
	oc->orphans = now;
}

/*
 * Release the stacks that neither this window nor the previous one used and
 * that no sleeping thread holds, so the stack map does not fill up over a
 * long run while stacks that keep blocking stay read once. A stack leaves
 * the map first and its cached frames one release later: a switch
 * aggregated between the generation flip and the deletion may still name
 * it, and is answered from the cache. Done every RELEASE_EVERY drains, or at
 * each drain while a quarter of the map is cached.
 */
static void release_stacks(struct pp_bpf_offcpu *oc)
{
	int stfd = bpf_map__fd(oc->skel->maps.stacks);
	uint32_t i = 0;

	/* reading the sleepers walks every bucket of `start`: not every drain */
	if (oc->window % RELEASE_EVERY && oc->nr_cached <= PP_OFFCPU_MAX_STACKS / 4)
		return;
	if (held_stacks(oc))
		return;			/* sleepers unknown: release nothing */
	while (i < scache_size(oc)) {
		struct cached_stack *c = &oc->stacks[i];

		if (!c->key || oc->window - c->used < 2 || u64set_has(&oc->held, c->key)) {
			i++;
			continue;
		}
		if (!c->gone) {
			bpf_map_delete_elem(stfd, &c->key);
			c->gone = 1;
			i++;
			continue;
		}
		scache_remove(oc, i);	/* an entry moved into slot i is seen next */
	}
	release_orphans(oc, stfd);
}

/* Frames of stack @key (cached), or 0 frames for none. */
static unsigned int read_stack(struct pp_bpf_offcpu *oc, uint64_t key, uint64_t *tmp,
			       const uint64_t **ips)
{
	struct cached_stack *c;
	unsigned int n = 0;

	*ips = tmp;
	if (!key)
		return 0;
	if ((oc->nr_cached + 1) * 2 > scache_size(oc) && scache_grow(oc))
		return 0;
	c = scache_slot(oc, key);
	if (!c->key) {
		memset(tmp, 0, PP_OFFCPU_MAX_DEPTH * sizeof(uint64_t));
		if (bpf_map_lookup_elem(bpf_map__fd(oc->skel->maps.stacks), &key, tmp))
			return 0;
		while (n < PP_OFFCPU_MAX_DEPTH && tmp[n])
			n++;
		if (!n)
			return 0;
		c->ips = malloc(n * sizeof(uint64_t));
		if (!c->ips)
			return n;
		memcpy(c->ips, tmp, n * sizeof(uint64_t));
		c->nr = n;
		c->key = key;
		oc->nr_cached++;
	}
	c->used = oc->window;
	c->gone = 0;		/* named again: back in the map, or named from before */
	*ips = c->ips;
	return c->nr;
}

/*
 * The aggregates of generation @old into oc->keys/vals, deleted from the
 * map. Return: how many, or -errno.
 */
static long take_old(struct pp_bpf_offcpu *oc, unsigned int old)
{
	int afd = bpf_map__fd(oc->skel->maps.agg);
	struct pp_offcpu_key key, *prev = NULL;
	uint32_t batch = 0, count, nr = 0, got = 0;
	int ret = 0, first = 1;

	if (!oc->no_batch) {
		/* All entries (both generations) in batches, keep the old ones. */
		do {
			count = PP_OFFCPU_MAX_KEYS - got < BATCH ? PP_OFFCPU_MAX_KEYS - got : BATCH;
			if (!count)
				break;
			ret = bpf_map_lookup_batch(afd, first ? NULL : &batch, &batch,
						   oc->keys + got, oc->vals + got, &count, NULL);
			first = 0;
			if (ret && ret != -ENOENT)
				break;
			for (uint32_t i = 0; i < count; i++, got++) {
				if (oc->keys[got].gen != old)
					continue;
				oc->keys[nr] = oc->keys[got];
				oc->vals[nr] = oc->vals[got];
				nr++;
			}
			got = nr;
		} while (!ret);
		if (!ret || ret == -ENOENT) {
			count = nr;
			if (nr && bpf_map_delete_batch(afd, oc->keys, &count, NULL))
				for (uint32_t i = 0; i < nr; i++)
					bpf_map_delete_elem(afd, &oc->keys[i]);
			return nr;
		}
		if (ret != -EINVAL && ret != -ENOTSUP && ret != -EOPNOTSUPP && ret != -ENOSPC)
			return ret;
		if (ret != -ENOSPC)
			oc->no_batch = 1;	/* else: a bucket too big for the rest, once */
		nr = 0;
	}
	while (nr < PP_OFFCPU_MAX_KEYS && !bpf_map_get_next_key(afd, prev, &oc->keys[nr])) {
		prev = &oc->keys[nr];
		if (oc->keys[nr].gen == old)
			nr++;
		else {
			key = oc->keys[nr];
			prev = &key;
		}
	}
	got = 0;
	for (uint32_t i = 0; i < nr; i++) {
		if (bpf_map_lookup_elem(afd, &oc->keys[i], &oc->vals[got]))
			continue;
		bpf_map_delete_elem(afd, &oc->keys[i]);
		oc->keys[got++] = oc->keys[i];
	}
	return got;
}

/**
 * pp_bpf_offcpu__flip() - close the window: switches from now on are summed
 * into the next one. A no-op while a closed window waits for its drain.
 * @oc: collector.
 */
void pp_bpf_offcpu__flip(struct pp_bpf_offcpu *oc)
{
	pp_bpf_windows__close(&oc->ws, &oc->skel->bss->gen, PP_BPF_SRC_OFFCPU);
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
	struct pp_bpf_agg_window w;
	unsigned int old;
	size_t at;
	long nr;
	int items = 0;

	old = pp_bpf_windows__take(&oc->ws, &oc->skel->bss->gen, PP_BPF_SRC_OFFCPU,
				   &oc->skel->bss->dropped, &oc->skel->bss->stacks_lost, &w);
	oc->window++;
	nr = take_old(oc, old);
	if (nr < 0)
		return (int)nr;
	at = pp_bpf_put_window(payload, &w);
	pp_buf__reset(&oc->synth);
	for (long i = 0; i < nr; i++) {
		const struct pp_offcpu_key *k = &oc->keys[i];
		const struct pp_offcpu_val *v = &oc->vals[i];
		const uint64_t *kips, *uips;
		struct pp_bpf_agg_stack s;
		unsigned int nk, nu;

		nk = read_stack(oc, k->kstack, oc->kips, &kips);
		nu = read_stack(oc, k->ustack, oc->uips, &uips);
		memset(&s, 0, sizeof(s));
		s.pid = k->tgid;
		s.tid = k->pid;
		s.total_ns = v->total_ns;
		s.count = v->count;
		s.max_ns = v->max_ns;
		s.state = k->state;
		memcpy(s.comm, v->comm, sizeof(s.comm));
		s.comm[sizeof(s.comm) - 1] = '\0';
		/* each distinct stack once per file, then referred to by name */
		if (nk && pp_bpf_stacks__mark(oc->written, k->kstack) == 1)
			pp_bpf_put_stack_def(payload, k->kstack, kips, nk);
		if (nu && pp_bpf_stacks__mark(oc->written, k->ustack) == 1)
			pp_bpf_put_stack_def(payload, k->ustack, uips, nu);
		pp_bpf_put_ref(payload, &s, nk ? k->kstack : 0, nu ? k->ustack : 0);
		if (syms) {
			/*
			 * Symbols: the frames of a kernel stack, or of a user
			 * stack in a process, are marked as hit the first time.
			 */
			uint64_t ukey = (k->ustack ^ ((uint64_t)s.pid * 0x9e3779b97f4a7c15ull)) | 1;
			unsigned int sk = nk && pp_bpf_stacks__mark(oc->scanned, k->kstack) == 1 ? nk : 0;
			unsigned int su = nu && pp_bpf_stacks__mark(oc->scanned, ukey) == 1 ? nu : 0;

			pp_syms__learn(syms, s.pid, tasks, mmaps);
			if (sk || su)
				pp_bpf_synth_sample(&oc->synth, s.pid, s.tid, kips, sk, uips, su);
		}
		items++;
	}
	/* Patch the item count into the window. */
	w.nr_items = (uint32_t)items;
	pp_bpf_set_window_items(payload, at, w.nr_items);
	if (syms)
		pp_bpf_scan_synth(syms, &oc->synth);
	release_stacks(oc);
	if (first_ts)
		*first_ts = w.start_ns;
	if (last_ts)
		*last_ts = w.end_ns;
	return payload->error ? payload->error : items;
}

/** pp_bpf_offcpu__ksym() - a resolver on the object's pp_ksym program. */
struct pp_ksym_bpf *pp_bpf_offcpu__ksym(struct pp_bpf_offcpu *oc)
{
	/* not loaded before 5.14: NULL */
	return pp_ksym_bpf__use(bpf_program__fd(oc->skel->progs.pp_ksym), &oc->skel->bss->ksym_addr,
				oc->skel->bss->ksym_text, &oc->skel->bss->ksym_ret);
}

int pp_bpf_offcpu__start_fd(struct pp_bpf_offcpu *oc)
{
	return bpf_map__fd(oc->skel->maps.start);
}

/** pp_bpf_offcpu__free() - detach and free; accepts NULL. @oc: collector. */
void pp_bpf_offcpu__free(struct pp_bpf_offcpu *oc)
{
	if (!oc)
		return;
	offcpu_bpf__destroy(oc->skel);
	pp_uwalk__free(oc->uw);	/* after the program that asks it */
	if (oc->stacks)
		for (size_t i = 0; i < scache_size(oc); i++)
			free(oc->stacks[i].ips);
	free(oc->stacks);
	pp_bpf_stacks__free(oc->written);
	pp_bpf_stacks__free(oc->scanned);
	free(oc->held.v);
	free(oc->orphans.v);
	free(oc->skeys);
	free(oc->svals);
	free(oc->vals);
	free(oc->keys);
	free(oc->kips);
	free(oc->uips);
	pp_buf__exit(&oc->synth);
	free(oc);
}
