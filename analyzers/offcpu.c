// SPDX-License-Identifier: MIT
/*
 * offcpu: off-CPU time aggregated in the kernel by BPF (bpf/offcpu.bpf.c).
 * Prints the stacks where tasks were blocked longest and, with
 * --flame-graph FILE, writes an off-CPU flame graph weighted by blocked
 * time (ns): FILE.folded, FILE.svg.
 *
 * .bpf_agg asks for the aggregator: pp-record offcpu loads it and writes
 * what it sums into the file, --live loads it for the run, and either way
 * the replay core hands the items to ->bpf_item(). Symbols come from the
 * session like for samples.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pp/replay.h"
#include "analyzers.h"
#include "flamegraph.h"
#include "pprof.h"
#include "hist.h"
#include "bpf-agg.h"
#include "fgdiff.h"
#include "json.h"

#define OFFCPU_TOP	10
#define OFFCPU_MAX_FRAMES	256
/*
 * Aggregates kept, frames included: a kernel's maps hold far less, a
 * crafted file (one deep stack referenced 100k times) asked for ~100 GB.
 */
#define OFFCPU_MAX_BYTES	(512ull << 20)

/* One aggregate, its frames copied (items are lent for the callback). */
struct ostack {
	uint32_t pid, tid;
	char comm[16];
	uint64_t total_ns, count, max_ns;
	uint64_t addr;			/* lock: the futex */
	uint32_t state;			/* offcpu: 'S', 'D', 'R' */
	uint32_t nr_kernel, nr_user;
	uint32_t waker_pid, waker_tid;	/* lock: who woke the waits (waker_tid 0: unknown) */
	uint32_t nr_waker;
	char waker_comm[16];
	uint64_t *ips;			/* nr_kernel + nr_user (+ nr_waker), innermost first */
};

struct offcpu {
	int kind;			/* PP_AGG_OFFCPU or PP_AGG_LOCK */
	struct ostack *v;
	size_t nr, cap;
	uint64_t windows, dropped, stacks_lost;
	uint64_t first_ts, last_ts;
	uint64_t bytes;			/* held by v and the frames */
	int nomem;
};

static int offcpu_add(struct offcpu *oc, const struct pp_bpf_item *it)
{
	size_t n = (size_t)it->nr_kernel + it->nr_user + it->nr_waker;
	struct ostack *st;

	if (oc->bytes + sizeof(*st) + n * 8 > OFFCPU_MAX_BYTES)
		return -E2BIG;
	if (pp_grow_from((void **)&oc->v, &oc->cap, oc->nr + 1, sizeof(*oc->v), 256))
		return -ENOMEM;
	st = &oc->v[oc->nr];
	memset(st, 0, sizeof(*st));
	st->pid = it->pid;
	st->tid = it->tid;
	memcpy(st->comm, it->comm, sizeof(st->comm));
	st->comm[sizeof(st->comm) - 1] = '\0';
	st->total_ns = it->total_ns;
	st->count = it->count;
	st->max_ns = it->max_ns;
	st->addr = it->addr;
	st->state = it->state;
	st->nr_kernel = it->nr_kernel;
	st->nr_user = it->nr_user;
	if (it->waker_tid) {
		st->waker_pid = it->waker_pid;
		st->waker_tid = it->waker_tid;
		st->nr_waker = it->nr_waker;
		memcpy(st->waker_comm, it->waker_comm, sizeof(st->waker_comm));
		st->waker_comm[sizeof(st->waker_comm) - 1] = '\0';
	}
	st->ips = malloc(n ? n * 8 : 1);
	if (!st->ips)
		return -ENOMEM;
	if (it->nr_kernel)
		memcpy(st->ips, it->kernel_ips, (size_t)it->nr_kernel * 8);
	if (it->nr_user)
		memcpy(st->ips + it->nr_kernel, it->user_ips, (size_t)it->nr_user * 8);
	if (st->nr_waker)
		memcpy(st->ips + it->nr_kernel + it->nr_user, it->waker_ips,
		       (size_t)st->nr_waker * 8);
	oc->nr++;
	oc->bytes += sizeof(*st) + n * 8;
	return 0;
}

/**
 * pp_bpf_agg_view__item() - ->bpf_item of the offcpu and lock modules: sum the
 * windows, keep the aggregates (merged at the report).
 * @s: session; @it: the item.
 */
void pp_bpf_agg_view__item(struct pp_session *s, const struct pp_bpf_item *it)
{
	struct offcpu *oc = pp_session__priv(s);

	if (it->kind == PP_BPF_ITEM_WINDOW) {
		oc->windows++;
		oc->dropped += it->dropped;
		oc->stacks_lost += it->stacks_lost;
		if (!oc->first_ts || it->start_ns < oc->first_ts)
			oc->first_ts = it->start_ns;
		if (it->end_ns > oc->last_ts)
			oc->last_ts = it->end_ns;
	} else if (it->kind == PP_BPF_ITEM_STACK && !oc->nomem) {
		int ret = offcpu_add(oc, it);

		if (ret)
			oc->nomem = 1;
		if (ret == -E2BIG)
			pp_session__warn(s, "aggregates exceed %llu MiB: later ones left out",
					 OFFCPU_MAX_BYTES >> 20);
		else if (ret)
			pp_session__warn(s, "out of memory: later aggregates left out");
	}
}

/* Same task and stack: merged across windows. */
static int ostack_cmp_key(const void *a, const void *b)
{
	const struct ostack *x = a, *y = b;
	size_t n;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->state != y->state)
		return x->state < y->state ? -1 : 1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->nr_kernel != y->nr_kernel)
		return x->nr_kernel < y->nr_kernel ? -1 : 1;
	if (x->nr_user != y->nr_user)
		return x->nr_user < y->nr_user ? -1 : 1;
	if (x->waker_tid != y->waker_tid)
		return x->waker_tid < y->waker_tid ? -1 : 1;
	if (x->nr_waker != y->nr_waker)
		return x->nr_waker < y->nr_waker ? -1 : 1;
	n = (size_t)x->nr_kernel + x->nr_user + x->nr_waker;
	return memcmp(x->ips, y->ips, n * 8);
}

static int ostack_cmp_total(const void *a, const void *b)
{
	const struct ostack *x = a, *y = b;

	if (x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	return ostack_cmp_key(a, b);
}

static void offcpu_merge(struct offcpu *oc)
{
	size_t out = 0;

	if (!oc->nr)
		return;
	qsort(oc->v, oc->nr, sizeof(*oc->v), ostack_cmp_key);
	for (size_t i = 1; i < oc->nr; i++) {
		struct ostack *d = &oc->v[out];

		if (!ostack_cmp_key(d, &oc->v[i])) {
			d->total_ns += oc->v[i].total_ns;
			d->count += oc->v[i].count;
			if (oc->v[i].max_ns > d->max_ns)
				d->max_ns = oc->v[i].max_ns;
			free(oc->v[i].ips);
		} else {
			oc->v[++out] = oc->v[i];
		}
	}
	oc->nr = out + 1;
	qsort(oc->v, oc->nr, sizeof(*oc->v), ostack_cmp_total);
}

static int offcpu_events(const struct pp_opts *o, struct pp_event_reqs *out)
{
	out->nr = 0;		/* no perf event: the BPF aggregator (.bpf_agg) */
	return 0;
}

/**
 * pp_bpf_agg_view__init() - init for the offcpu and lock modules.
 * @s: session; @kind: PP_AGG_OFFCPU or PP_AGG_LOCK.
 * Return: 0 or -ENOMEM.
 */
int pp_bpf_agg_view__init(struct pp_session *s, int kind)
{
	struct offcpu *oc = calloc(1, sizeof(*oc));

	if (!oc)
		return -ENOMEM;
	oc->kind = kind;
	pp_session__set_priv(s, oc);
	return pp_pprof__check_opt(s);	/* --pprof FILE is written at the report */
}

static int offcpu_init(struct pp_session *s)
{
	int ret = pp_bpf_agg_view__init(s, PP_AGG_OFFCPU);

	return ret ? ret : pp_fgdiff__init(s, "offcpu");
}

static const struct pp_mod_opt offcpu_mod_opts[] = {
	PP_PPROF_MOD_OPT,
	PP_FGDIFF_OPTS,
	{ NULL, 0, 0, NULL },
};

static void frame_name(struct pp_session *s, uint32_t pid, uint64_t ip, int kernel, char *buf,
		       size_t len)
{
	char name[120];

	pp_session__sym(s, pid, ip, kernel, name, sizeof(name), NULL);
	snprintf(buf, len, "%s%s", name, kernel ? "_[k]" : "");
}

/*
 * The kernel stack is taken inside the BPF program: its own frames (the
 * program and the tracepoint trampoline) come first. A program without a
 * name (live: kallsyms' [bpf] lines are not loaded) is one of them too: an
 * off-CPU stack otherwise starts in the scheduler. Return: how many.
 */
static unsigned int bpf_frames(struct pp_session *s, const struct ostack *st)
{
	unsigned int k;

	for (k = 0; k < st->nr_kernel && k < 4; k++) {
		char name[120];

		if (!pp_session__sym(s, st->pid, st->ips[k], 1, name, sizeof(name), NULL))
			continue;
		if (strncmp(name, "bpf_prog_", 9) && strncmp(name, "bpf_trace_run", 13) &&
		    strncmp(name, "__bpf_trace_", 12) && strncmp(name, "__traceiter_", 12))
			break;
	}
	return k == st->nr_kernel ? 0 : k;
}

/*
 * Drop those frames before merging: how the tracepoint reaches the program
 * changes while it runs (a direct static call with one probe attached,
 * __traceiter_sched_switch with several), which split one blocked stack
 * in two.
 */
static void strip_bpf_frames(struct pp_session *s, struct offcpu *oc)
{
	for (size_t i = 0; i < oc->nr; i++) {
		struct ostack *st = &oc->v[i];
		unsigned int k = bpf_frames(s, st);
		size_t n = (size_t)st->nr_kernel + st->nr_user + st->nr_waker;

		if (!k)
			continue;
		memmove(st->ips, st->ips + k, (n - k) * 8);
		st->nr_kernel -= k;
	}
}

struct lk {
	uint32_t pid;
	uint64_t addr, total, count, max;
	uint32_t threads;
	size_t order;			/* the first stack's rank: ties keep it */
	char comm[16];
};

static int lk_cmp_key(const void *a, const void *b)
{
	const struct lk *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int lk_cmp_total(const void *a, const void *b)
{
	const struct lk *x = a, *y = b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/*
 * Top contended locks: waits summed per (process, futex address); with
 * --json, every lock as a "lock" object.
 */
static void lock_table(struct pp_session *s, struct offcpu *oc, struct pp_out *out, uint64_t total)
{
	struct lk *v;
	size_t nr = 0;
	char t1[32], t2[32];

	v = calloc(oc->nr ? oc->nr : 1, sizeof(*v));
	if (!v)
		return;
	/* Sorted by (pid, lock), one pass sums each lock: n log n, not a scan per stack. */
	for (size_t i = 0; i < oc->nr; i++) {
		const struct ostack *st = &oc->v[i];

		v[i].pid = st->pid;
		v[i].addr = st->addr;
		v[i].total = st->total_ns;
		v[i].count = st->count;
		v[i].max = st->max_ns;
		v[i].threads = 1;
		v[i].order = i;
		memcpy(v[i].comm, st->comm, sizeof(v[i].comm));
	}
	qsort(v, oc->nr, sizeof(*v), lk_cmp_key);
	for (size_t i = 0; i < oc->nr; i++) {
		if (nr && v[nr - 1].pid == v[i].pid && v[nr - 1].addr == v[i].addr) {
			struct lk *d = &v[nr - 1];

			d->total += v[i].total;
			d->count += v[i].count;
			d->threads++;
			if (v[i].max > d->max)
				d->max = v[i].max;
		} else {
			v[nr++] = v[i];
		}
	}
	qsort(v, nr, sizeof(*v), lk_cmp_total);
	if (pp_session__opts(s)->json) {
		for (size_t i = 0; i < nr; i++) {
			pp_json__begin(s, "lock", oc->last_ts);
			pp_json__str(s, "comm", v[i].comm);
			pp_json__u64(s, "pid", v[i].pid);
			pp_json__hex(s, "addr", v[i].addr);
			pp_json__u64(s, "wait", v[i].total);
			pp_json__u64(s, "waits", v[i].count);
			pp_json__u64(s, "max", v[i].max);
			pp_json__u64(s, "threads", v[i].threads);
			pp_json__end(s);
		}
		free(v);
		return;
	}
	pp_out__printf(out, "\n%-16s %7s %-18s %10s %8s %10s %6s\n", "COMM", "PID", "LOCK", "WAIT",
		       "WAITS", "MAX", "SHARE");
	for (size_t i = 0; i < nr && i < OFFCPU_TOP; i++)
		pp_out__printf(out, "%-16s %7u 0x%-16llx %10s %8llu %10s %5.1f%%\n", v[i].comm, v[i].pid,
			       (unsigned long long)v[i].addr, pp_ns_format(t1, sizeof(t1), v[i].total),
			       (unsigned long long)v[i].count, pp_ns_format(t2, sizeof(t2), v[i].max),
			       total ? 100.0 * (double)v[i].total / (double)total : 0.0);
	free(v);
}

/* Frames of @pid, innermost first, as a JSON array member. */
static void json_frames(struct pp_session *s, const char *key, uint32_t pid, const uint64_t *ips,
			uint32_t nr, int kernel)
{
	struct pp_out *out = pp_session__out(s);

	pp_out__printf(out, ",\"%s\":[", key);
	for (uint32_t i = 0; i < nr; i++)
		pp_json__frame(s, pid, ips[i], kernel, !i);
	pp_out__putc(out, ']');
}

/*
 * --json: a "summary" object, the "lock" objects (lock), then one "stack"
 * object per aggregate, most time first: every one, not only the top 10.
 */
static void bpf_agg_json(struct pp_session *s, struct offcpu *oc, uint64_t total)
{
	int lock = oc->kind == PP_AGG_LOCK;

	pp_json__begin(s, "summary", oc->last_ts);
	pp_json__u64(s, "total", total);
	pp_json__u64(s, "stacks", oc->nr);
	pp_json__u64(s, "duration", oc->last_ts - oc->first_ts);
	pp_json__u64(s, "windows", oc->windows);
	pp_json__u64(s, "dropped", oc->dropped);
	pp_json__u64(s, "stacks_lost", oc->stacks_lost);
	pp_json__end(s);
	if (lock)
		lock_table(s, oc, pp_session__out(s), total);
	for (size_t i = 0; i < oc->nr; i++) {
		const struct ostack *st = &oc->v[i];
		char state[2] = { st->state ? (char)st->state : '?', 0 };

		pp_json__begin(s, "stack", oc->last_ts);
		pp_json__str(s, "comm", st->comm);
		pp_json__u64(s, "pid", st->pid);
		pp_json__u64(s, "tid", st->tid);
		if (lock)
			pp_json__hex(s, "addr", st->addr);
		else
			pp_json__str(s, "state", state);
		pp_json__u64(s, "total", st->total_ns);
		pp_json__u64(s, "count", st->count);
		pp_json__u64(s, "avg", st->count ? st->total_ns / st->count : 0);
		pp_json__u64(s, "max", st->max_ns);
		json_frames(s, "kernel_stack", st->pid, st->ips, st->nr_kernel, 1);
		json_frames(s, "user_stack", st->pid, st->ips + st->nr_kernel, st->nr_user, 0);
		if (lock && st->waker_tid) {
			struct pp_out *out = pp_session__out(s);

			pp_out__puts(out, ",\"waker\":{\"comm\":");
			pp_out__json_str(out, st->waker_comm);
			pp_out__printf(out, ",\"pid\":%u,\"tid\":%u", st->waker_pid, st->waker_tid);
			json_frames(s, "stack", st->waker_pid, st->ips + st->nr_kernel + st->nr_user,
				    st->nr_waker, 0);
			pp_out__putc(out, '}');
		} else if (lock) {
			pp_out__puts(pp_session__out(s), ",\"waker\":null");
		}
		pp_json__end(s);
	}
}

/* The text report: totals, the lock table (lock), the 10 longest stacks. */
static void bpf_agg_text(struct pp_session *s, struct offcpu *oc, uint64_t total)
{
	struct pp_out *out = pp_session__out(s);
	char names[1][128];
	char t1[32], t2[32], t3[32];
	int lock = oc->kind == PP_AGG_LOCK;

	pp_out__printf(out, "%s: %s in %zu stacks over %s", lock ? "futex wait time" : "off-CPU time",
		       pp_ns_format(t1, sizeof(t1), total), oc->nr,
		       pp_ns_format(t2, sizeof(t2), oc->last_ts - oc->first_ts));
	if (oc->dropped)
		pp_out__printf(out, " (%llu events not aggregated: BPF maps full)",
			       (unsigned long long)oc->dropped);
	if (oc->stacks_lost)
		pp_out__printf(out, " (%llu events without their stack: the kernel could not store it)",
			       (unsigned long long)oc->stacks_lost);
	pp_out__printf(out, "\n");
	if (lock)
		lock_table(s, oc, out, total);
	for (size_t i = 0; i < oc->nr && i < OFFCPU_TOP; i++) {
		const struct ostack *st = &oc->v[i];
		char what[40];

		if (lock)
			snprintf(what, sizeof(what), "lock 0x%llx", (unsigned long long)st->addr);
		else
			snprintf(what, sizeof(what), "state %c", st->state ? (char)st->state : '?');
		pp_out__printf(out, "\n%s %u/%u %s: %s total, %llu times, avg %s, max %s (%.1f%%)\n",
			       st->comm, st->pid, st->tid, what,
			       pp_ns_format(t1, sizeof(t1), st->total_ns),
			       (unsigned long long)st->count,
			       pp_ns_format(t2, sizeof(t2), st->count ? st->total_ns / st->count : 0),
			       pp_ns_format(t3, sizeof(t3), st->max_ns),
			       total ? 100.0 * (double)st->total_ns / (double)total : 0.0);
		for (unsigned int k = 0; k < st->nr_kernel; k++) {
			frame_name(s, st->pid, st->ips[k], 1, names[0], sizeof(names[0]));
			pp_out__printf(out, "    %s\n", names[0]);
		}
		for (unsigned int u = 0; u < st->nr_user; u++) {
			frame_name(s, st->pid, st->ips[st->nr_kernel + u], 0, names[0],
				   sizeof(names[0]));
			pp_out__printf(out, "    %s\n", names[0]);
		}
		if (!st->nr_kernel && !st->nr_user)
			pp_out__printf(out, "    [no stack]\n");
		if (lock && st->waker_tid) {
			const uint64_t *wips = st->ips + st->nr_kernel + st->nr_user;

			pp_out__printf(out, "  woken by %s %u/%u:\n", st->waker_comm, st->waker_pid, st->waker_tid);
			for (unsigned int u = 0; u < st->nr_waker; u++) {
				frame_name(s, st->waker_pid, wips[u], 0, names[0], sizeof(names[0]));
				pp_out__printf(out, "    %s\n", names[0]);
			}
			if (!st->nr_waker)
				pp_out__printf(out, "    [no stack]\n");
		} else if (lock) {
			pp_out__printf(out, "  woken by: unknown (timeout, signal or no futex wake seen)\n");
		}
	}
}

/* The flame graph NAME.folded, NAME.svg, weighted by time. */
static void bpf_agg_flame(struct pp_session *s, struct offcpu *oc, const char *name)
{
	static char names[OFFCPU_MAX_FRAMES][128];
	const char *frames[OFFCPU_MAX_FRAMES];
	struct pp_flame *fg;
	int lock = oc->kind == PP_AGG_LOCK;

	fg = pp_flame__new();
	if (!fg) {
		pp_session__fail(s, pp_analyzer__err(lock ? "lock" : "offcpu", -ENOMEM,
						     "out of memory for the flame graph"));
		return;
	}
	for (size_t i = 0; i < oc->nr; i++) {
		const struct ostack *st = &oc->v[i];
		size_t n = 0;

		snprintf(names[n], sizeof(names[n]), "%s", st->comm);
		frames[n] = names[n];
		n++;
		/* Root first: user frames outermost to innermost, then kernel ones. */
		for (int u = (int)st->nr_user - 1; u >= 0 && n < OFFCPU_MAX_FRAMES; u--, n++) {
			frame_name(s, st->pid, st->ips[st->nr_kernel + (unsigned int)u], 0,
				   names[n], sizeof(names[n]));
			frames[n] = names[n];
		}
		for (int k = (int)st->nr_kernel - 1; k >= 0 && n < OFFCPU_MAX_FRAMES; k--, n++) {
			frame_name(s, st->pid, st->ips[k], 1, names[n], sizeof(names[n]));
			frames[n] = names[n];
		}
		if (lock && n < OFFCPU_MAX_FRAMES) {
			snprintf(names[n], sizeof(names[n]), "[lock 0x%llx]", (unsigned long long)st->addr);
			frames[n] = names[n];
			n++;
		}
		if (lock && st->waker_tid && n < OFFCPU_MAX_FRAMES) {
			snprintf(names[n], sizeof(names[n]), "[woken by %s]", st->waker_comm);
			frames[n] = names[n];
			n++;
		}
		pp_flame__add(fg, frames, n, st->total_ns);
	}
	{
		struct pp_flame_opts fo = {
			.title = lock ? "pp lock wait time" : "pp off-CPU time",
			.subtitle = lock ? "futex wait time per user stack and lock (BPF)" :
					   "blocked time per stack (BPF, sched_switch)",
			.count_name = "ns", .unit = PP_UNIT_NS,
		};

		pp_fgdiff__write(s, fg, name, &fo);
	}
	pp_flame__free(fg);
}

/* --pprof FILE: the flame graph's stacks as a profile of blocked (waited) ns and episodes. */
static void bpf_agg_pprof(struct pp_session *s, struct offcpu *oc, const char *path)
{
	int lock = oc->kind == PP_AGG_LOCK;
	struct pp_pprof_desc d = {
		.types = { { lock ? "lock_wait" : "off_cpu", "nanoseconds" },
			   { lock ? "waits" : "switches", "count" } }, .nr_types = 2,
		.default_type = lock ? "lock_wait" : "off_cpu",
		.comment = lock ? "pp-analyze lock: futex wait time (BPF)" :
				  "pp-analyze offcpu: blocked time (BPF, sched_switch)",
	};
	static uint64_t ips[OFFCPU_MAX_FRAMES];
	static uint8_t kern[OFFCPU_MAX_FRAMES];
	char lk[40], wk[40];
	const char *leaves[2] = { lk, wk };
	struct pp_pprof *pp;

	if (pp_pprof__open_opt(s, &d, &pp)) {
		pp_session__fail(s, -EINVAL);
		return;
	}
	for (size_t i = 0; pp && i < oc->nr; i++) {
		const struct ostack *st = &oc->v[i];
		int64_t v[2] = { (int64_t)st->total_ns, (int64_t)st->count };
		size_t n = 0, nl = 0;

		/* Root first, as the flame graph: user outermost to innermost, then kernel. */
		for (int u = (int)st->nr_user - 1; u >= 0 && n < OFFCPU_MAX_FRAMES; u--, n++) {
			ips[n] = st->ips[st->nr_kernel + (unsigned int)u];
			kern[n] = 0;
		}
		for (int k = (int)st->nr_kernel - 1; k >= 0 && n < OFFCPU_MAX_FRAMES; k--, n++) {
			ips[n] = st->ips[k];
			kern[n] = 1;
		}
		if (lock) {
			snprintf(lk, sizeof(lk), "[lock 0x%llx]", (unsigned long long)st->addr);
			nl = 1;
			if (st->waker_tid) {
				snprintf(wk, sizeof(wk), "[woken by %s]", st->waker_comm);
				nl = 2;
			}
		}
		if (pp_pprof__add(pp, s, st->pid, st->tid, st->comm, ips, kern, n, leaves, nl, v)) {
			pp_session__fail(s, pp_analyzer__err(lock ? "lock" : "offcpu", -ENOMEM,
							     "out of memory for --pprof"));
			pp_pprof__free(pp);
			return;
		}
	}
	pp_pprof__report(pp, s, oc->first_ts, oc->last_ts, path);
	pp_pprof__free(pp);
}

/**
 * pp_bpf_agg_view__report() - report of the offcpu and lock modules.
 * @s: session.
 */
void pp_bpf_agg_view__report(struct pp_session *s)
{
	struct offcpu *oc = pp_session__priv(s);
	const struct pp_opts *o = pp_session__opts(s);
	struct pp_out *out = pp_session__out(s);
	uint64_t total = 0;
	int lock = oc->kind == PP_AGG_LOCK;

	strip_bpf_frames(s, oc);
	offcpu_merge(oc);
	for (size_t i = 0; i < oc->nr; i++)
		total += oc->v[i].total_ns;
	if (!oc->windows) {
		pp_out__printf(out, "no %s data in this trace (record it with: pp-record %s ...)\n",
			       lock ? "lock" : "off-CPU", lock ? "lock" : "offcpu");
		return;
	}
	if (o->json)
		bpf_agg_json(s, oc, total);
	else
		bpf_agg_text(s, oc, total);
	pp_out__flush(out);
	if (pp_opts__mod(o, "pprof"))
		bpf_agg_pprof(s, oc, pp_opts__mod(o, "pprof"));
	if (!o->flame_graph)
		return;
	bpf_agg_flame(s, oc, o->flame_graph);
}

/**
 * pp_bpf_agg_view__deinit() - free the state of the offcpu and lock modules.
 * @s: session.
 */
void pp_bpf_agg_view__deinit(struct pp_session *s)
{
	struct offcpu *oc = pp_session__priv(s);

	pp_fgdiff__exit(s);
	if (!oc)
		return;
	for (size_t i = 0; i < oc->nr; i++)
		free(oc->v[i].ips);
	free(oc->v);
	free(oc);
}

/* offcpu's and lock's own options. */
const struct pp_mod_opt pp_bpf_agg_view_opts[] = {
	PP_PPROF_MOD_OPT,
	{ NULL, 0, 0, NULL },
};

const struct pp_analyzer pp_analyzer_offcpu = {
	.name = "offcpu",
	.desc = "off-CPU time aggregated in the kernel by BPF: top blocked stacks and flame graph",
	.help = "pp-analyze offcpu [--flame-graph FILE] [--json] [FILE | --live [-p PID,...] [-- CMD]]\n"
		"  reads what pp-record offcpu wrote, or with --live what its BPF program\n"
		"  sums for the run (off-CPU time per task, kernel stack and user stack,\n"
		"  summed in the kernel at sched_switch);\n"
		"  prints the 10 stacks with the most blocked time; --flame-graph writes\n"
		"  FILE.folded and FILE.svg weighted by blocked time (ns); --diff BASE.trace:\n"
		"  differential flame graph against BASE (red grew, blue shrank).\n"
		"  --pprof FILE writes the same stacks as a pprof profile (off_cpu ns, switches).\n"
		"  example: pp-record offcpu -- ./app; pp-analyze offcpu --flame-graph app-offcpu\n",
	.opts = PP_OPT_FLAME | PP_OPT_JSON,
	.mod_opts = offcpu_mod_opts,
	.bpf_agg = PP_AGG_OFFCPU,
	.events = offcpu_events,
	.init = offcpu_init,
	.bpf_item = pp_bpf_agg_view__item,
	.report = pp_bpf_agg_view__report,
	.deinit = pp_bpf_agg_view__deinit,
};
