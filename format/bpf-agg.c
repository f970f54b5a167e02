// SPDX-License-Identifier: MIT
/*
 * The codec of BPF_AGG items (spec/pp-bpf.md section 3): the writers the
 * recorder's drains call, the stack table of STACK items, and the decoder
 * the replay core calls. Everything here trusts no size it reads.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/random.h>

#include "pp/bpf-agg.h"
#include "format-internal.h"

/**
 * pp_bpf_put_window() - append a WINDOW item.
 * @payload: destination; @w: the window.
 * Return: the item's offset, for pp_bpf_set_window_items().
 */
size_t pp_bpf_put_window(struct pp_buf *payload, const struct pp_bpf_agg_window *w)
{
	size_t at = pp_item__begin(payload, PP_BPF_AGG_WINDOW);

	pp_buf__append(payload, w, sizeof(*w));
	pp_item__end(payload, at);
	return at;
}

/**
 * pp_bpf_set_window_items() - patch nr_items of the WINDOW item at @at.
 * @payload: the payload; @at: from pp_bpf_put_window(); @nr_items: the count.
 *
 * The drains know the count only after writing the items, and the window
 * goes first so a reader knows what the items cover before reading them.
 */
void pp_bpf_set_window_items(struct pp_buf *payload, size_t at, uint32_t nr_items)
{
	size_t off = at + sizeof(struct pp_item_header) +
		     offsetof(struct pp_bpf_agg_window, nr_items);

	if (payload->error || off + sizeof(nr_items) > payload->len)
		return;
	memcpy(payload->data + off, &nr_items, sizeof(nr_items));
}

/**
 * pp_bpf_put_stack() - append one OFFCPU/LOCK item.
 * @payload: destination; @kind: enum pp_bpf_agg_kind; @hdr: struct
 * pp_bpf_agg_stack with nr_kernel/nr_user set; @kips, @uips: the frames;
 * @waker: LOCK only, the waker tail (nr_user set) or NULL; @wips: its frames.
 */
void pp_bpf_put_stack(struct pp_buf *payload, uint16_t kind, const void *hdr,
		      const uint64_t *kips, unsigned int nr_kernel, const uint64_t *uips,
		      unsigned int nr_user, const struct pp_bpf_agg_waker *waker,
		      const uint64_t *wips)
{
	size_t at = pp_item__begin(payload, kind);

	pp_buf__append(payload, hdr, sizeof(struct pp_bpf_agg_stack));
	if (nr_kernel)
		pp_buf__append(payload, kips, nr_kernel * sizeof(uint64_t));
	if (nr_user)
		pp_buf__append(payload, uips, nr_user * sizeof(uint64_t));
	if (waker) {
		pp_buf__append(payload, waker, sizeof(*waker));
		if (waker->nr_user)
			pp_buf__append(payload, wips, waker->nr_user * sizeof(uint64_t));
	}
	pp_item__end(payload, at);
}

/* ---- the stack table of STACK items ---- */

struct stack_slot {
	uint64_t id;			/* 0: empty */
	uint64_t *ips;
	uint32_t nr;
};

struct pp_bpf_stacks {
	struct stack_slot *v;
	size_t cap, nr;			/* cap: power of two, at most half full */
	uint64_t seed;
	uint64_t missing;
};

struct pp_bpf_stacks *pp_bpf_stacks__new(void)
{
	struct pp_bpf_stacks *t = calloc(1, sizeof(*t));
	struct timespec ts;

	if (!t)
		return NULL;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (getrandom(&t->seed, sizeof(t->seed), GRND_NONBLOCK) != sizeof(t->seed))
		t->seed = (uint64_t)ts.tv_nsec * 0xbf58476d1ce4e5b9ull ^ (uintptr_t)t;
	return t;
}

void pp_bpf_stacks__free(struct pp_bpf_stacks *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->cap; i++)
		free(t->v[i].ips);
	free(t->v);
	free(t);
}

uint64_t pp_bpf_stacks__missing(const struct pp_bpf_stacks *t)
{
	return t ? t->missing : 0;
}

/*
 * Slots are picked from the id mixed with a per-table random seed: ids come
 * from the file, and a crafted file must not make every id probe the same
 * run (quadratic time).
 */
static struct stack_slot *stacks_slot(struct stack_slot *v, size_t cap, uint64_t seed,
				      uint64_t id)
{
	uint64_t h = (id ^ seed) * 0x9e3779b97f4a7c15ull;
	size_t i = (size_t)((h ^ (h >> 31)) >> 16) & (cap - 1);

	while (v[i].id && v[i].id != id)
		i = (i + 1) & (cap - 1);
	return &v[i];
}

/*
 * Define stack @id (a redefinition keeps the first); @ips NULL: remember the
 * id only. Return: 1 if @id is new, 0 if known, -ENOMEM.
 */
static int stacks_add(struct pp_bpf_stacks *t, uint64_t id, const uint8_t *ips, uint32_t nr)
{
	struct stack_slot *sl;

	if ((t->nr + 1) * 2 > t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 256;
		struct stack_slot *nv = calloc(ncap, sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		for (size_t i = 0; i < t->cap; i++)
			if (t->v[i].id)
				*stacks_slot(nv, ncap, t->seed, t->v[i].id) = t->v[i];
		free(t->v);
		t->v = nv;
		t->cap = ncap;
	}
	sl = stacks_slot(t->v, t->cap, t->seed, id);
	if (sl->id)
		return 0;
	if (ips && nr) {
		sl->ips = malloc(nr * sizeof(uint64_t));
		if (!sl->ips)
			return -ENOMEM;
		memcpy(sl->ips, ips, nr * sizeof(uint64_t));
		sl->nr = nr;
	}
	sl->id = id;
	t->nr++;
	return 1;
}

/**
 * pp_bpf_stacks__mark() - remember that stack @id was written.
 * @t: table (ids only); @id: not 0. Return: 1 the first time, 0 after, -ENOMEM.
 */
int pp_bpf_stacks__mark(struct pp_bpf_stacks *t, uint64_t id)
{
	return stacks_add(t, id, NULL, 0);
}

/* Frames of stack @id (0 frames for 0 or an undefined id, counted). */
static const uint8_t *stacks_get(struct pp_bpf_stacks *t, uint64_t id, uint16_t *nr)
{
	struct stack_slot *sl;

	*nr = 0;
	if (!id)
		return NULL;
	sl = t->cap ? stacks_slot(t->v, t->cap, t->seed, id) : NULL;
	if (!sl || !sl->id) {
		t->missing++;
		return NULL;
	}
	*nr = (uint16_t)sl->nr;
	return (const uint8_t *)sl->ips;
}

/**
 * pp_bpf_agg__decode() - check and decode one BPF_AGG item.
 * @item: the item; @stacks: table of STACK items, or NULL;
 * @e: receives a stack item; @w: receives a window or NULL.
 * Return: the kind (OFFCPU for an OFFCPU_REF item), 0 for an unknown kind
 * (STACK and OFFCPU_REF without @stacks), -EINVAL if malformed, -ENOMEM.
 */
int pp_bpf_agg__decode(const struct pp_item *item, struct pp_bpf_stacks *stacks,
		       struct pp_bpf_agg_entry *e, struct pp_bpf_agg_window *w)
{
	struct pp_bpf_agg_stack_def def;
	uint64_t ref[2];
	size_t need;

	switch (item->kind) {
	case PP_BPF_AGG_WINDOW:
		if (item->size < PP_BPF_AGG_WINDOW_MIN)
			return -EINVAL;
		if (w) {
			memset(w, 0, sizeof(*w));
			memcpy(w, item->body, item->size < sizeof(*w) ? item->size : sizeof(*w));
		}
		return PP_BPF_AGG_WINDOW;
	case PP_BPF_AGG_STACK:
		if (!stacks)
			return 0;
		if (item->size < sizeof(def))
			return -EINVAL;
		memcpy(&def, item->body, sizeof(def));
		if (!def.id || item->size < sizeof(def) + (size_t)def.nr * 8)
			return -EINVAL;
		if (stacks_add(stacks, def.id, item->body + sizeof(def), def.nr) < 0)
			return -ENOMEM;
		return PP_BPF_AGG_STACK;
	case PP_BPF_AGG_OFFCPU_REF:
	case PP_BPF_AGG_MEM:
		if (!stacks)
			return 0;
		if (item->size < PP_BPF_AGG_REF_SIZE)
			return -EINVAL;
		memcpy(&e->s, item->body, sizeof(e->s));
		memcpy(ref, item->body + sizeof(e->s), sizeof(ref));
		e->kind = item->kind == PP_BPF_AGG_MEM ? PP_BPF_AGG_MEM : PP_BPF_AGG_OFFCPU;
		e->s.comm[sizeof(e->s.comm) - 1] = '\0';
		e->kernel_ips = stacks_get(stacks, ref[0], &e->s.nr_kernel);
		e->user_ips = stacks_get(stacks, ref[1], &e->s.nr_user);
		e->has_waker = 0;
		e->waker_ips = NULL;
		return e->kind;
	case PP_BPF_AGG_OFFCPU:
	case PP_BPF_AGG_LOCK:
		if (item->size < sizeof(e->s))
			return -EINVAL;
		memcpy(&e->s, item->body, sizeof(e->s));
		need = sizeof(e->s) + ((size_t)e->s.nr_kernel + e->s.nr_user) * 8;
		if (item->size < need)
			return -EINVAL;
		e->kind = item->kind;
		e->s.comm[sizeof(e->s.comm) - 1] = '\0';
		e->kernel_ips = item->body + sizeof(e->s);
		e->user_ips = e->kernel_ips + (size_t)e->s.nr_kernel * 8;
		e->has_waker = 0;
		e->waker_ips = NULL;
		if (item->kind == PP_BPF_AGG_LOCK && item->size >= need + sizeof(e->waker)) {
			memcpy(&e->waker, item->body + need, sizeof(e->waker));
			if (item->size < need + sizeof(e->waker) + (size_t)e->waker.nr_user * 8)
				return -EINVAL;
			e->waker.comm[sizeof(e->waker.comm) - 1] = '\0';
			e->waker_ips = item->body + need + sizeof(e->waker);
			e->has_waker = 1;
		}
		return item->kind;
	default:
		return 0;
	}
}

/**
 * pp_bpf_put_stack_def() - append a STACK item defining @id.
 * @payload: destination; @id: name (not 0); @ips, @nr: the frames.
 */
void pp_bpf_put_stack_def(struct pp_buf *payload, uint64_t id, const uint64_t *ips,
			  unsigned int nr)
{
	struct pp_bpf_agg_stack_def def = { .id = id, .nr = (uint16_t)nr };
	size_t at = pp_item__begin(payload, PP_BPF_AGG_STACK);

	pp_buf__append(payload, &def, sizeof(def));
	if (nr)
		pp_buf__append(payload, ips, nr * sizeof(uint64_t));
	pp_item__end(payload, at);
}

/* An item of kind @kind: @hdr, then the names @kstack and @ustack. */
static void put_ref(struct pp_buf *payload, uint16_t kind, const struct pp_bpf_agg_stack *hdr,
		    uint64_t kstack, uint64_t ustack)
{
	uint64_t ref[2] = { kstack, ustack };
	size_t at = pp_item__begin(payload, kind);

	pp_buf__append(payload, hdr, sizeof(*hdr));
	pp_buf__append(payload, ref, sizeof(ref));
	pp_item__end(payload, at);
}

/**
 * pp_bpf_put_ref() - append an OFFCPU_REF item.
 * @payload: destination; @hdr: the aggregate (nr_kernel, nr_user 0);
 * @kstack, @ustack: names of stacks defined before (0: none).
 */
void pp_bpf_put_ref(struct pp_buf *payload, const struct pp_bpf_agg_stack *hdr, uint64_t kstack,
		    uint64_t ustack)
{
	put_ref(payload, PP_BPF_AGG_OFFCPU_REF, hdr, kstack, ustack);
}

/**
 * pp_bpf_put_mem() - append a MEM item (the layout of OFFCPU_REF).
 * @payload: destination; @hdr: the aggregate (state 'A', 'O' or 'F');
 * @kstack, @ustack: names of stacks defined before (0: none).
 */
void pp_bpf_put_mem(struct pp_buf *payload, const struct pp_bpf_agg_stack *hdr, uint64_t kstack,
		    uint64_t ustack)
{
	put_ref(payload, PP_BPF_AGG_MEM, hdr, kstack, ustack);
}
