// SPDX-License-Identifier: MIT
/*
 * libc's allocators in the kernel (bpf/memleak.bpf.c): attach the entry and
 * return programs to the allocators of one libc by file offset (the offsets
 * the uprobe mode uses, pp_elf_sym_offset()), and drain the window's sums
 * and the live blocks into BPF_AGG items of kind MEM.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
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
#include "../bpf/memleak.h"
#include "bpf/memleak.skel.h"

#define MEM_MAX_TARGETS	64
#define BATCH		1024	/* entries per map batch read */

/* The symbols of enum pp_mem_fn; malloc and free must exist, the rest may not. */
static const char *const mem_fn_names[PP_MEM_NR] = {
	"malloc", "calloc", "realloc", "reallocarray", "free", "posix_memalign",
	"aligned_alloc", "memalign", "valloc", "pvalloc",
};

/* A live block read from `objs`, to sum by (process, stack). */
struct live {
	uint32_t tgid, tid;
	uint64_t stack, size, ts;
};

struct pp_bpf_mem {
	struct memleak_bpf *skel;
	struct pp_bpf_windows ws;
	struct bpf_link **links;
	int nr_links;
	int track;
	int no_batch;			/* the kernel has no batch map operations */
	struct pp_mem_key *keys;	/* PP_MEM_MAX_KEYS, drain scratch */
	struct pp_mem_val *vals;
	struct pp_mem_obj_key *okeys;	/* BATCH */
	struct pp_mem_obj *ovals;	/* BATCH */
	struct live *live;		/* the live blocks of a drain */
	size_t nr_live, live_cap;
	uint64_t *uips;			/* PP_STACK_DEPTH */
	struct pp_bpf_stacks *written;	/* stacks defined in the output so far */
	struct pp_bpf_stacks *scanned;	/* (process, stack) marked as hit for the symbols */
	struct pp_buf synth;
};

/*
 * Where the probe of the function at file offset @off of @fd goes. The
 * kernel emulates a probed push, jump or nop, but runs most other
 * instructions out of line with a single step: a second trap per call,
 * which made probing free() (test %rdi,%rdi) the most expensive part of
 * the whole mode. An instruction that only sets the flags (test reg,reg;
 * cmp $imm,disp(%rip)) changes nothing the programs read (the argument
 * registers, the stack pointer, the return address at its top) and
 * cannot branch, so every call reaches the next instruction in the same
 * state: the probe goes there (a function that branches back to its own
 * second instruction would be counted twice; compilers do not emit that
 * at an entry). Return: the offset to probe.
 */
static uint64_t probe_point(int fd, uint64_t off)
{
#if defined(__x86_64__)
	uint8_t b[16];
	size_t i = 0, len = 0;

	if (fd < 0 || pread(fd, b, sizeof(b), (off_t)off) != (ssize_t)sizeof(b))
		return off;
	if ((b[0] & 0xf0) == 0x40)
		i = 1;					/* REX */
	if ((b[i] == 0x84 || b[i] == 0x85) && (b[i + 1] & 0xc0) == 0xc0)
		len = i + 2;				/* test reg, reg */
	else if ((b[i] == 0x80 || b[i] == 0x83) && b[i + 1] == 0x3d)
		len = i + 7;				/* cmp $imm8, disp32(%rip) */
	else if (b[i] == 0x81 && b[i + 1] == 0x3d)
		len = i + 10;				/* cmp $imm32, disp32(%rip) */
	return off + len;
#else
	return off;
#endif
}

static int attach(struct pp_bpf_mem *mc, struct bpf_program *prog, int ret, pid_t pid,
		  const char *libc, uint64_t off, int fn)
{
	LIBBPF_OPTS(bpf_uprobe_opts, uo, .retprobe = ret, .bpf_cookie = (uint64_t)fn);
	struct bpf_link *l = bpf_program__attach_uprobe_opts(prog, pid, libc, (size_t)off, &uo);

	if (!l)
		return -errno;
	mc->links[mc->nr_links++] = l;
	return 0;
}

/**
 * pp_bpf_mem__new() - load the allocator program and attach it.
 * @o: options; @err, @errlen: message on failure.
 * Return: collector, or NULL with errno set.
 */
struct pp_bpf_mem *pp_bpf_mem__new(const struct pp_bpf_mem_opts *o, char *err, size_t errlen)
{
	LIBBPF_OPTS(bpf_object_open_opts, open_opts);
	uint64_t offs[PP_MEM_NR];
	int have[PP_MEM_NR] = { 0 };
	pid_t targets[MEM_MAX_TARGETS];
	int nr_targets = 0, fd;
	struct pp_bpf_mem *mc = NULL;
	struct pp_mem_cfg *c;
	int ret;

	if (!o || !o->libc || !*o->libc) {
		snprintf(err, errlen, "no libc to probe");
		errno = EINVAL;
		return NULL;
	}
	if (access(o->libc, R_OK)) {
		ret = -errno;
		snprintf(err, errlen, "cannot read %s: %s", o->libc, strerror(errno));
		errno = -ret;
		return NULL;
	}
	/* the offsets first: a file that is no libc fails before any BPF work */
	fd = open(o->libc, O_RDONLY | O_CLOEXEC);
	for (int f = 0; f < PP_MEM_NR; f++) {
		ret = pp_elf_sym_offset(o->libc, mem_fn_names[f], &offs[f]);
		if (!ret) {
			offs[f] = probe_point(fd, offs[f]);
			have[f] = 1;
			/* two names of one function (memalign, aligned_alloc): probed once */
			for (int g = 0; g < f; g++)
				if (have[g] && offs[g] == offs[f])
					have[f] = 0;
			continue;
		}
		if (ret == -ENOENT && f != PP_MEM_MALLOC && f != PP_MEM_FREE)
			continue;
		if (ret == -ENOENT)
			snprintf(err, errlen, "%s has no '%s' (not a libc?)", o->libc,
				 mem_fn_names[f]);
		else
			snprintf(err, errlen, "%s: %s", o->libc,
				 ret == -ENOEXEC ? "not an ELF file" : strerror(-ret));
		if (fd >= 0)
			close(fd);
		errno = -ret;
		return NULL;
	}
	if (fd >= 0)
		close(fd);
	if (o->pid > 0)
		targets[nr_targets++] = o->pid;
	for (int i = 0; o->pids && i < o->nr_pids && nr_targets < MEM_MAX_TARGETS; i++)
		if (o->pids[i] > 0 && o->pids[i] != o->pid)
			targets[nr_targets++] = o->pids[i];
	if (!nr_targets)
		targets[nr_targets++] = -1;	/* every process */
	ret = pp_bpf_btf_check(err, errlen);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	mc = calloc(1, sizeof(*mc));
	if (!mc)
		goto nomem;
	pp_buf__init(&mc->synth);
	mc->track = !!o->track;
	mc->links = calloc((size_t)nr_targets * PP_MEM_NR * 2, sizeof(*mc->links));
	mc->keys = malloc(PP_MEM_MAX_KEYS * sizeof(*mc->keys));	/* filled before use */
	mc->vals = malloc(PP_MEM_MAX_KEYS * sizeof(*mc->vals));
	mc->okeys = calloc(BATCH, sizeof(*mc->okeys));
	mc->ovals = calloc(BATCH, sizeof(*mc->ovals));
	mc->uips = calloc(PP_STACK_DEPTH, sizeof(uint64_t));
	mc->written = pp_bpf_stacks__new();
	mc->scanned = pp_bpf_stacks__new();
	if (!mc->links || !mc->keys || !mc->vals || !mc->okeys || !mc->ovals || !mc->uips ||
	    !mc->written || !mc->scanned)
		goto nomem;
	pp_bpf_core_opts(&open_opts);
	mc->skel = memleak_bpf__open_opts(&open_opts);
	if (!mc->skel) {
		ret = pp_bpf_load_error("memleak", -errno, err, errlen);
		goto fail;
	}
	c = (struct pp_mem_cfg *)&mc->skel->rodata->cfg;
	c->exclude_tgid = targets[0] < 0 ? (unsigned int)getpid() : 0;
	c->track = (unsigned int)mc->track;
	pp_bpf_lazy_hash(mc->skel->maps.pend);
	pp_bpf_lazy_hash(mc->skel->maps.objs);
	pp_bpf_lazy_hash(mc->skel->maps.agg);
	pp_bpf_lazy_hash(mc->skel->maps.frees);
	pp_bpf_lazy_hash(mc->skel->maps.stacks);
	if (!mc->track)		/* kmemprof: no block is kept */
		bpf_map__set_max_entries(mc->skel->maps.objs, 1);
	mc->skel->rodata->pp_stack_loop = pp_bpf_kernel_at_least(5, 17);
	ret = memleak_bpf__load(mc->skel);
	if (ret) {
		pp_bpf_load_error("memleak", ret, err, errlen);
		goto fail;
	}
	pp_bpf_warm_stacks(bpf_map__fd(mc->skel->maps.stacks));
	for (int t = 0; t < nr_targets; t++) {
		for (int f = 0; f < PP_MEM_NR; f++) {
			if (!have[f])
				continue;
			ret = attach(mc, mc->skel->progs.pp_mem_entry, 0, targets[t], o->libc, offs[f], f);
			if (!ret && f != PP_MEM_FREE)
				ret = attach(mc, mc->skel->progs.pp_mem_return, 1, targets[t], o->libc,
					     offs[f], f);
			if (ret) {
				snprintf(err, errlen, "attaching to %s in %s%s failed: %s",
					 mem_fn_names[f], o->libc,
					 targets[t] > 0 ? " (the target process)" : "", strerror(-ret));
				goto fail;
			}
		}
	}
	mc->ws.start_ns = pp_bpf_mono_ns();
	return mc;
nomem:
	snprintf(err, errlen, "out of memory");
	ret = -ENOMEM;
fail:
	pp_bpf_mem__free(mc);
	errno = -ret;
	return NULL;
}

/** pp_bpf_mem__flip() - as pp_bpf_offcpu__flip(). @mc: collector. */
void pp_bpf_mem__flip(struct pp_bpf_mem *mc)
{
	pp_bpf_windows__close(&mc->ws, &mc->skel->bss->gen, PP_BPF_SRC_MEM);
}

/*
 * The entries of generation @old of the hash @fd (keys of @ksize bytes whose
 * generation is at @genoff, values of @vsize) into @keys/@vals, deleted from
 * the map; at most @max. Return: how many.
 */
static size_t take_gen(int fd, unsigned int old, void *keys, void *vals, size_t ksize,
		       size_t vsize, size_t genoff, size_t max)
{
	uint8_t key[32], *prev = NULL;
	size_t nr = 0, got = 0;
	unsigned int g;

	while (nr < max && !bpf_map_get_next_key(fd, prev, (uint8_t *)keys + nr * ksize)) {
		uint8_t *k = (uint8_t *)keys + nr * ksize;

		memcpy(&g, k + genoff, sizeof(g));
		if (g == old) {
			prev = k;
			nr++;
		} else {
			memcpy(key, k, ksize);
			prev = key;
		}
	}
	for (size_t i = 0; i < nr; i++) {
		uint8_t *k = (uint8_t *)keys + i * ksize;

		if (bpf_map_lookup_elem(fd, k, (uint8_t *)vals + got * vsize))
			continue;
		bpf_map_delete_elem(fd, k);
		memmove((uint8_t *)keys + got * ksize, k, ksize);
		got++;
	}
	return got;
}

static int add_live(struct pp_bpf_mem *mc, const struct pp_mem_obj_key *k,
		    const struct pp_mem_obj *v)
{
	if (mc->nr_live == mc->live_cap) {
		size_t ncap = mc->live_cap ? mc->live_cap * 2 : 1024;
		struct live *n = realloc(mc->live, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		mc->live = n;
		mc->live_cap = ncap;
	}
	mc->live[mc->nr_live++] = (struct live){
		.tgid = k->tgid, .tid = v->tid, .stack = v->stack, .size = v->size, .ts = v->ts,
	};
	return 0;
}

/* Every live block into mc->live. Return: 0 or -errno. */
static int read_live(struct pp_bpf_mem *mc)
{
	int fd = bpf_map__fd(mc->skel->maps.objs);
	struct pp_mem_obj_key key, next, *prev = NULL;
	struct pp_mem_obj v;
	uint32_t count;
	uint64_t batch = 0;
	int ret, first = 1;

	mc->nr_live = 0;
	if (!mc->no_batch) {
		do {
			count = BATCH;
			ret = bpf_map_lookup_batch(fd, first ? NULL : &batch, &batch, mc->okeys,
						   mc->ovals, &count, NULL);
			first = 0;
			if (ret && ret != -ENOENT)
				break;
			for (uint32_t i = 0; i < count; i++)
				if (add_live(mc, &mc->okeys[i], &mc->ovals[i]))
					return -ENOMEM;
		} while (!ret);
		if (!ret || ret == -ENOENT)
			return 0;
		if (ret != -EINVAL && ret != -ENOTSUP && ret != -EOPNOTSUPP && ret != -ENOSPC)
			return ret;
		mc->no_batch = 1;
		mc->nr_live = 0;
	}
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (!bpf_map_lookup_elem(fd, &key, &v) && add_live(mc, &key, &v))
			return -ENOMEM;
	}
	return 0;
}

static int cmp_live(const void *a, const void *b)
{
	const struct live *x = a, *y = b;

	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	if (x->stack != y->stack)
		return x->stack < y->stack ? -1 : 1;
	return (x->ts > y->ts) - (x->ts < y->ts);
}

/*
 * Name the user stack @id of process @pid in the output: its STACK item the
 * first time, and its frames to the symbol collector the first time in this
 * process. Return: @id, or 0 when it cannot be read.
 */
static uint64_t put_stack(struct pp_bpf_mem *mc, struct pp_buf *payload, uint64_t id, uint32_t pid,
			  uint32_t tid, struct pp_syms *syms, struct pp_buf *tasks,
			  struct pp_buf *mmaps)
{
	int stfd = bpf_map__fd(mc->skel->maps.stacks);
	uint64_t ukey = (id ^ ((uint64_t)pid * 0x9e3779b97f4a7c15ull)) | 1;
	int def, scan;
	unsigned int n = 0;

	if (syms)
		pp_syms__learn(syms, pid, tasks, mmaps);
	if (!id)
		return 0;
	def = pp_bpf_stacks__mark(mc->written, id) == 1;
	scan = syms && pp_bpf_stacks__mark(mc->scanned, ukey) == 1;
	if (def || scan) {
		n = pp_bpf_read_stack(stfd, id, mc->uips);
		if (def && n)
			pp_bpf_put_stack_def(payload, id, mc->uips, n);
		if (scan && n)
			pp_bpf_synth_sample(&mc->synth, pid, tid, NULL, 0, mc->uips, n);
		if (def && !n)
			return 0;	/* never defined: a reference would read as missing */
	}
	return id;
}

/**
 * pp_bpf_mem__drain() - move the window's sums and the live blocks into MEM
 * items.
 * @mc: collector; @payload: receives a WINDOW item, then MEM items (and
 * STACK items for stacks not written before); @first_ts, @last_ts: the
 * window; @syms, @tasks, @mmaps: optional symbol collector and where its
 * TASKS/MMAPS items go.
 * Return: number of MEM items, or -errno.
 */
int pp_bpf_mem__drain(struct pp_bpf_mem *mc, struct pp_buf *payload, uint64_t *first_ts,
		      uint64_t *last_ts, struct pp_syms *syms, struct pp_buf *tasks,
		      struct pp_buf *mmaps)
{
	struct pp_mem_free_key fk[256];
	struct pp_mem_free_val fv[256];
	struct pp_bpf_agg_window w;
	struct pp_bpf_agg_stack s;
	unsigned int old;
	size_t nr, at;
	int items = 0, ret;

	old = pp_bpf_windows__take(&mc->ws, &mc->skel->bss->gen, PP_BPF_SRC_MEM,
				   &mc->skel->bss->dropped, &mc->skel->bss->stacks_lost, &w);
	at = pp_bpf_put_window(payload, &w);
	pp_buf__reset(&mc->synth);
	/* what each (process, stack) allocated in the window */
	nr = take_gen(bpf_map__fd(mc->skel->maps.agg), old, mc->keys, mc->vals, sizeof(*mc->keys),
		      sizeof(*mc->vals), offsetof(struct pp_mem_key, gen), PP_MEM_MAX_KEYS);
	for (size_t i = 0; i < nr; i++) {
		const struct pp_mem_key *k = &mc->keys[i];
		const struct pp_mem_val *v = &mc->vals[i];
		uint64_t id = put_stack(mc, payload, k->ustack, k->tgid, v->tid, syms, tasks, mmaps);

		memset(&s, 0, sizeof(s));
		s.pid = k->tgid;
		s.tid = v->tid;
		s.total_ns = v->bytes;
		s.count = v->calls;
		s.state = PP_MEM_ALLOCS;
		memcpy(s.comm, v->comm, sizeof(s.comm));
		s.comm[sizeof(s.comm) - 1] = '\0';
		pp_bpf_put_mem(payload, &s, 0, id);
		items++;
	}
	/* each process's frees (a few processes: read until the map is empty of them) */
	do {
		nr = take_gen(bpf_map__fd(mc->skel->maps.frees), old, fk, fv, sizeof(fk[0]),
			      sizeof(fv[0]), offsetof(struct pp_mem_free_key, gen), 256);
		for (size_t i = 0; i < nr; i++) {
			memset(&s, 0, sizeof(s));
			s.pid = fk[i].tgid;
			s.count = fv[i].frees;
			s.addr = fv[i].unknown;
			s.total_ns = fv[i].failed;
			s.max_ns = fv[i].untracked;
			s.state = PP_MEM_FREES;
			pp_bpf_put_mem(payload, &s, 0, 0);
			items++;
		}
	} while (nr == 256);
	/* the live blocks, summed by (process, stack) */
	if (mc->track) {
		ret = read_live(mc);
		if (ret)
			return ret;
		qsort(mc->live, mc->nr_live, sizeof(*mc->live), cmp_live);
		for (size_t i = 0; i < mc->nr_live;) {
			const struct live *l = &mc->live[i];
			uint64_t id;
			size_t j;

			memset(&s, 0, sizeof(s));
			s.pid = l->tgid;
			s.tid = l->tid;		/* the oldest's: sorted by time */
			s.max_ns = l->ts;
			s.state = PP_MEM_LIVE;
			for (j = i; j < mc->nr_live && mc->live[j].tgid == l->tgid &&
				    mc->live[j].stack == l->stack; j++) {
				s.total_ns += mc->live[j].size;
				s.count++;
			}
			id = put_stack(mc, payload, l->stack, l->tgid, l->tid, syms, tasks, mmaps);
			pp_bpf_put_mem(payload, &s, 0, id);
			items++;
			i = j;
		}
	}
	w.nr_items = (uint32_t)items;
	pp_bpf_set_window_items(payload, at, w.nr_items);
	if (syms)
		pp_bpf_scan_synth(syms, &mc->synth);
	if (first_ts)
		*first_ts = w.start_ns;
	if (last_ts)
		*last_ts = w.end_ns;
	return payload->error ? payload->error : items;
}

/** pp_bpf_mem__free() - detach and free; accepts NULL. @mc: collector. */
void pp_bpf_mem__free(struct pp_bpf_mem *mc)
{
	if (!mc)
		return;
	for (int i = 0; i < mc->nr_links; i++)
		bpf_link__destroy(mc->links[i]);
	memleak_bpf__destroy(mc->skel);
	pp_bpf_stacks__free(mc->written);
	pp_bpf_stacks__free(mc->scanned);
	free(mc->links);
	free(mc->keys);
	free(mc->vals);
	free(mc->okeys);
	free(mc->ovals);
	free(mc->live);
	free(mc->uips);
	pp_buf__exit(&mc->synth);
	free(mc);
}
