/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * The kernel-side walk of a user stack (spec/pp-record.md, "Unwind
 * tables"), included by the sample filter program so that one program per
 * perf event both filters and walks: from the task's user registers, frame
 * by frame, each PC looked up in its process's executable mappings
 * (unwind_procs), its mapping's DSO table binary-searched (dso_rows, one
 * inner array per DSO, shared by every process that maps it), and the
 * caller's registers computed by the row's rules; code whose table is not
 * loaded, or that has none, is walked by frame pointer. The frames go to
 * the CPU's ring (unwind_out) just before the kernel writes the sample,
 * which the recorder joins to it; or, in an aggregator (bpf/stack.bpf.h
 * with PP_STACK_WALK), into the stack it keeps.
 */
#ifndef PP_BPF_UNWIND_BPF_H
#define PP_BPF_UNWIND_BPF_H

#include "unwind.h"

/* Only pointers to it in the code: clang would describe the row as a forward declaration. */
const volatile struct pp_unwind_row uw_row_btf;

struct unwind_rows_inner {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	/* mmapable: user space writes a table in place (record/bpf-unwind.c) */
	__uint(map_flags, BPF_F_INNER_MAP | BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct pp_unwind_row);
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH_OF_MAPS);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__array(values, struct unwind_rows_inner);
} unwind_rows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct pp_unwind_dso);
} unwind_dsos SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct pp_unwind_proc);
} unwind_procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} unwind_out SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pp_unwind_out);
} unwind_buf SEC(".maps");

/* Processes the walker does not know (tgids), for the recorder to read now. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16384);
} unwind_ask SEC(".maps");

/* When each was last asked for: once per PP_UW_ASK_NS at most. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u64);
} unwind_asked SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PP_UW_STATS);
	__type(key, __u32);
	__type(value, __u64);
} unwind_stats SEC(".maps");

static __always_inline void uw_count(__u32 k, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&unwind_stats, &k);

	if (v)
		*v += n;
}

struct uw_state {
	__u64 pc, sp, fp, lr;
	struct pp_unwind_proc *proc;
	struct pp_unwind_out *out;
	__u32 end;
};

/*
 * The binary searches run as bpf_loop() callbacks: as plain loops each
 * halving doubles the paths the verifier explores.
 */
struct uw_search {
	__u32 lo, hi, fail;
	__u64 key;
	struct pp_unwind_proc *proc;
	void *rows;
};

/* One halving over @s->proc's mappings: the last one starting at or below key. */
static long uw_map_half(__u32 i, void *ctx)
{
	struct uw_search *s = ctx;
	__u32 mid;

	if (s->hi - s->lo <= 1)
		return 1;
	mid = (s->lo + s->hi) / 2;
	if (mid >= PP_UNWIND_MAPS) {
		s->fail = 1;
		return 1;
	}
	if (s->proc->m[mid].start <= s->key)
		s->lo = mid;
	else
		s->hi = mid;
	return 0;
}

/* The mapping of @pc among @p's, or NULL. */
static __always_inline struct pp_unwind_map *uw_map(struct pp_unwind_proc *p, __u64 pc)
{
	struct uw_search s = { .lo = 0, .hi = p->nr, .key = pc, .proc = p };
	__u32 lo;

	if (s.hi > PP_UNWIND_MAPS)
		s.hi = PP_UNWIND_MAPS;
	if (!s.hi)
		return NULL;
	bpf_loop(9, uw_map_half, &s, 0);
	lo = s.lo;
	if (s.fail || lo >= PP_UNWIND_MAPS)
		return NULL;
	if (pc < p->m[lo].start || pc >= p->m[lo].end)
		return NULL;
	return &p->m[lo];
}

/* One halving over @s->rows: the last row whose off is at or below key. */
static long uw_row_half(__u32 i, void *ctx)
{
	struct uw_search *s = ctx;
	struct pp_unwind_row *r;
	__u32 mid;

	if (s->hi - s->lo <= 1)
		return 1;
	mid = (s->lo + s->hi) / 2;
	r = bpf_map_lookup_elem(s->rows, &mid);
	if (!r) {
		s->fail = 1;
		return 1;
	}
	if (r->off <= s->key)
		s->lo = mid;
	else
		s->hi = mid;
	return 0;
}

/*
 * The row of file offset @off in DSO @dso's table, or NULL: none there, or
 * no table (*@waiting: it is not loaded yet; a DSO that has none is in
 * unwind_dsos without rows).
 */
static __always_inline struct pp_unwind_row *uw_row(__u32 dso, __u64 off, int *waiting)
{
	struct pp_unwind_dso *d = bpf_map_lookup_elem(&unwind_dsos, &dso);
	struct uw_search s = { .key = off };
	struct pp_unwind_row *r;

	*waiting = !d;
	s.rows = bpf_map_lookup_elem(&unwind_rows, &dso);
	if (!d || !s.rows || !d->nr_rows || off > 0xffffffffull)
		return NULL;
	s.hi = d->nr_rows;
	bpf_loop(32, uw_row_half, &s, 0);
	if (s.fail)
		return NULL;
	r = bpf_map_lookup_elem(s.rows, &s.lo);
	return r && r->off <= off ? r : NULL;
}

static __always_inline int uw_read(__u64 addr, __u64 *v)
{
	return bpf_probe_read_user(v, sizeof(*v), (const void *)addr);
}

/* One frame by frame pointer (x86-64: [fp] the caller's fp, [fp + 8] the return address). */
static __always_inline int uw_fp_step(struct uw_state *s)
{
	__u64 ra, fp;

	if (!s->fp || s->fp < s->sp || (s->fp & 7))
		return PP_UW_END_FP;
	if (uw_read(s->fp + 8, &ra) || uw_read(s->fp, &fp))
		return PP_UW_END_READ;
	if (!ra)
		return PP_UW_END_FP;
	s->sp = s->fp + 16;
	s->fp = fp;
	s->pc = ra;
	return -1;
}

/* One frame by the rules of @r (as record/cfi.c's pp_cfi__step()). */
static __always_inline int uw_cfi_step(struct uw_state *s, struct pp_unwind_row *r)
{
	__u64 cfa, ra, fp = s->fp;

	switch (r->cfa) {
	case PP_UW_CFA_SP:
		cfa = s->sp + (__s64)r->cfa_off;
		break;
	case PP_UW_CFA_FP:
		cfa = s->fp + (__s64)r->cfa_off;
		break;
	case PP_UW_CFA_PLT:
		cfa = s->sp + 8 + ((s->pc & 15) >= r->arg ? 8 : 0);
		break;
	case PP_UW_END:
		return PP_UW_END_START;
	default:
		return PP_UW_END_UNSUP;
	}
	if (r->ra == PP_UW_AT) {
		if (uw_read(cfa + (__s64)r->ra_off, &ra))
			return PP_UW_END_READ;
	} else if (r->ra == PP_UW_SAME && s->lr) {
		ra = s->lr;
	} else {
		return PP_UW_END_UNSUP;
	}
	if (r->fp == PP_UW_AT && uw_read(cfa + (__s64)r->fp_off, &fp))
		return PP_UW_END_READ;
	if (!ra || cfa < s->sp)
		return PP_UW_END_READ;
	s->pc = ra;
	s->sp = cfa;
	s->fp = fp;
	s->lr = 0;
	return -1;
}

static long uw_frame(__u32 i, void *ctx)
{
	struct uw_state *s = ctx;
	struct pp_unwind_out *o = s->out;
	struct pp_unwind_map *m;
	struct pp_unwind_row *r = NULL;
	int end, waiting = 0;

	if (i >= PP_UNWIND_FRAMES) {
		s->end = PP_UW_END_DEPTH;
		return 1;
	}
	o->ips[i] = s->pc;
	o->nr = i + 1;
	m = uw_map(s->proc, s->pc);
	if (m && m->dso) {
		/* a return address is after its call: look the call up */
		r = uw_row(m->dso, s->pc - m->start + m->pgoff - (i ? 1 : 0), &waiting);
		if (waiting)
			o->no_table++;
	}
	if (r && r->cfa != PP_UW_NONE) {
		end = uw_cfi_step(s, r);
		o->by_cfi++;
	} else {
		end = uw_fp_step(s);
	}
	if (end >= 0) {
		s->end = end;
		return 1;
	}
	return 0;
}

/*
 * Walk the current task's user stack into @out (counted). Return: 0, or -1
 * for a kernel thread, or a process whose maps the recorder has not told
 * (asked for, counted).
 */
static __always_inline int uw_walk_into(struct pp_unwind_out *out)
{
	struct task_struct *t = bpf_get_current_task_btf();
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct uw_state s = { 0 };
	struct pt_regs *regs;
	__u64 arg_start;

	/* a kernel thread, or a task past exit_mm() (its last switches): no user stack */
	if ((BPF_CORE_READ(t, flags) & PP_PF_KTHREAD) || !BPF_CORE_READ(t, mm))
		return -1;
	s.out = out;
	s.proc = bpf_map_lookup_elem(&unwind_procs, &tgid);
	uw_count(PP_UW_STAT_STACKS, 1);
	arg_start = BPF_CORE_READ(t, mm, arg_start);
	if (s.proc && s.proc->arg_start && s.proc->arg_start != arg_start)
		s.proc = NULL;	/* exec'd since its maps were read */
#ifdef PP_UW_FORK_COPY
	if (!s.proc) {
		/* a child not read yet that has not exec'd: its parent's maps, as fork copied them */
		__u32 ptgid = BPF_CORE_READ(t, real_parent, tgid);
		struct pp_unwind_proc *pp = bpf_map_lookup_elem(&unwind_procs, &ptgid);

		if (pp && ptgid != tgid && pp->arg_start && pp->arg_start == arg_start &&
		    !bpf_map_update_elem(&unwind_procs, &tgid, pp, BPF_NOEXIST)) {
			s.proc = bpf_map_lookup_elem(&unwind_procs, &tgid);
			uw_count(PP_UW_STAT_FORKED, 1);
		}
	}
#endif
	if (!s.proc) {
		__u64 now = bpf_ktime_get_ns(), *last = bpf_map_lookup_elem(&unwind_asked, &tgid);

		uw_count(PP_UW_STAT_NO_PROC, 1);
		/* the recorder reads its maps as soon as it is told, not at its next drain */
		if (!last || now - *last > PP_UW_ASK_NS) {
			struct pp_unwind_ask a = { .tgid = tgid, .time = now, .arg_start = arg_start };

			bpf_map_update_elem(&unwind_asked, &tgid, &now, BPF_ANY);
			bpf_ringbuf_output(&unwind_ask, &a, sizeof(a), 0);
		}
		return -1;
	}
	regs = (struct pt_regs *)bpf_task_pt_regs(t);
	if (!regs)
		return -1;
	bpf_probe_read_kernel(&s.pc, 8, &regs->ip);
	bpf_probe_read_kernel(&s.sp, 8, &regs->sp);
	bpf_probe_read_kernel(&s.fp, 8, &regs->bp);
	s.out->magic = PP_UNWIND_MAGIC;
	s.out->tid = (__u32)bpf_get_current_pid_tgid();
	s.out->nr = 0;
	s.out->by_cfi = 0;
	s.out->no_table = 0;
	s.end = PP_UW_END_DEPTH;
	if (!s.pc)
		s.end = PP_UW_END_NO_REGS;
	else
		bpf_loop(PP_UNWIND_FRAMES + 1, uw_frame, &s, 0);
	s.out->end = (unsigned char)s.end;
	uw_count(PP_UW_STAT_FRAMES_CFI, s.out->by_cfi);
	uw_count(PP_UW_STAT_FRAMES_FP, s.out->nr - s.out->by_cfi);
	uw_count(PP_UW_STAT_NO_TABLE, s.out->no_table);
	uw_count(PP_UW_STAT_END + (s.end < PP_UW_END_NR ? s.end : PP_UW_END_DEPTH), 1);
	return 0;
}

/*
 * Walk the current task's user stack and write it to the CPU's ring; the
 * sample follows it there.
 */
static __always_inline void uw_walk(void *ctx)
{
	__u32 zero = 0, n;
	struct pp_unwind_out *o = bpf_map_lookup_elem(&unwind_buf, &zero);
	__u64 size;

	if (!o || uw_walk_into(o))
		return;
	n = o->nr;
	size = PP_UNWIND_OUT_HDR + (__u64)(n > PP_UNWIND_FRAMES ? PP_UNWIND_FRAMES : n) * 8;
	if (size > sizeof(struct pp_unwind_out))
		size = sizeof(struct pp_unwind_out);
	if (bpf_perf_event_output(ctx, &unwind_out, BPF_F_CURRENT_CPU, o, size))
		uw_count(PP_UW_STAT_OUT_FAIL, 1);
}

#endif /* PP_BPF_UNWIND_BPF_H */
