// SPDX-License-Identifier: MIT
/*
 * offcpu: off-CPU time aggregated in the kernel by BPF (bpf/offcpu.bpf.c),
 * stored in the trace as BPF_AGG chunks (spec/pp-bpf.md). Prints the stacks
 * where tasks were blocked longest and, with --flame-graph FILE, writes an
 * off-CPU flame graph weighted by blocked time (ns): FILE.folded, FILE.svg.
 *
 * The chunks are found by walking the file (pp_bpf_agg__for_each_chunk):
 * the replay core delivers perf records, and these are not. Symbols come
 * from the file's KSYMS/USYMS and MMAPS through the session. With --live
 * the program is loaded here and drained when the run ends.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "pp/replay.h"
#include "pp/bpf.h"
#include "pp/meta.h"
#include "analyzers.h"
#include "flamegraph.h"
#include "hist.h"
#include "bpf-agg.h"

#define OFFCPU_TOP	10
#define OFFCPU_MAX_FRAMES	256

struct ostack {
	struct pp_bpf_agg_stack s;
	struct pp_bpf_agg_waker w;	/* lock: who woke the waits (w.tid 0: unknown) */
	uint64_t *ips;			/* nr_kernel + nr_user (+ w.nr_user), innermost first */
};

struct offcpu {
	uint16_t kind;			/* PP_BPF_AGG_OFFCPU or PP_BPF_AGG_LOCK */
	uint32_t source;		/* PP_BPF_SRC_* of the windows to read */
	struct ostack *v;
	size_t nr, cap;
	uint64_t windows, dropped, stacks_lost, bad;
	uint64_t first_ts, last_ts;
	struct pp_bpf_offcpu *live;
	struct pp_bpf_lock *live_lock;
	struct pp_bpf_stacks *stacks;	/* defined by STACK items */
};

static int offcpu_add(struct offcpu *oc, const struct pp_bpf_agg_entry *e)
{
	size_t n = (size_t)e->s.nr_kernel + e->s.nr_user;
	size_t nw = e->has_waker ? e->waker.nr_user : 0;
	struct ostack *st;

	if (oc->nr == oc->cap) {
		size_t ncap = oc->cap ? oc->cap * 2 : 256;
		struct ostack *nv = realloc(oc->v, ncap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		oc->v = nv;
		oc->cap = ncap;
	}
	st = &oc->v[oc->nr];
	st->s = e->s;
	memset(&st->w, 0, sizeof(st->w));
	if (e->has_waker)
		st->w = e->waker;
	st->ips = malloc(n + nw ? (n + nw) * 8 : 1);
	if (!st->ips)
		return -ENOMEM;
	if (e->s.nr_kernel)
		memcpy(st->ips, e->kernel_ips, (size_t)e->s.nr_kernel * 8);
	if (e->s.nr_user)
		memcpy(st->ips + e->s.nr_kernel, e->user_ips, (size_t)e->s.nr_user * 8);
	if (nw)
		memcpy(st->ips + n, e->waker_ips, nw * 8);
	oc->nr++;
	return 0;
}

static int offcpu_payload(const uint8_t *p, size_t len, uint64_t first_ts, uint64_t last_ts,
			  void *ctx)
{
	struct offcpu *oc = ctx;
	struct pp_item_iter it;
	struct pp_item item;

	pp_item_iter__init(&it, p, len);
	while (pp_item_iter__next(&it, &item)) {
		struct pp_bpf_agg_entry e;
		struct pp_bpf_agg_window w;
		int k = pp_bpf_agg__decode(&item, oc->stacks, &e, &w);

		if (k == -ENOMEM) {
			return -ENOMEM;		/* not the file's fault: stop with the error */
		} else if (k < 0) {
			oc->bad++;
		} else if (k == PP_BPF_AGG_WINDOW) {
			if (w.source != oc->source)
				continue;
			oc->windows++;
			oc->dropped += w.dropped;
			oc->stacks_lost += w.stacks_lost;
			if (!oc->first_ts || w.start_ns < oc->first_ts)
				oc->first_ts = w.start_ns;
			if (w.end_ns > oc->last_ts)
				oc->last_ts = w.end_ns;
		} else if (k == oc->kind) {
			if (offcpu_add(oc, &e))
				return -ENOMEM;
		}
	}
	if (it.bad)
		oc->bad++;
	return 0;
}

/* Same task and stack: merged across windows. */
static int ostack_cmp_key(const void *a, const void *b)
{
	const struct ostack *x = a, *y = b;
	size_t n;

	if (x->s.pid != y->s.pid)
		return x->s.pid < y->s.pid ? -1 : 1;
	if (x->s.tid != y->s.tid)
		return x->s.tid < y->s.tid ? -1 : 1;
	if (x->s.state != y->s.state)
		return x->s.state < y->s.state ? -1 : 1;
	if (x->s.addr != y->s.addr)
		return x->s.addr < y->s.addr ? -1 : 1;
	if (x->s.nr_kernel != y->s.nr_kernel)
		return x->s.nr_kernel < y->s.nr_kernel ? -1 : 1;
	if (x->s.nr_user != y->s.nr_user)
		return x->s.nr_user < y->s.nr_user ? -1 : 1;
	if (x->w.tid != y->w.tid)
		return x->w.tid < y->w.tid ? -1 : 1;
	if (x->w.nr_user != y->w.nr_user)
		return x->w.nr_user < y->w.nr_user ? -1 : 1;
	n = (size_t)x->s.nr_kernel + x->s.nr_user + x->w.nr_user;
	return memcmp(x->ips, y->ips, n * 8);
}

static int ostack_cmp_total(const void *a, const void *b)
{
	const struct ostack *x = a, *y = b;

	if (x->s.total_ns != y->s.total_ns)
		return x->s.total_ns > y->s.total_ns ? -1 : 1;
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
			d->s.total_ns += oc->v[i].s.total_ns;
			d->s.count += oc->v[i].s.count;
			if (oc->v[i].s.max_ns > d->s.max_ns)
				d->s.max_ns = oc->v[i].s.max_ns;
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
	out->nr = 0;		/* no perf event: the recorder loads the BPF program */
	return 0;
}

/**
 * pp_bpf_agg_an__init() - init for the offcpu and lock modules.
 * @s: session; @kind: PP_BPF_AGG_OFFCPU or PP_BPF_AGG_LOCK.
 * Return: 0 or -errno (message printed).
 */
int pp_bpf_agg_an__init(struct pp_session *s, uint16_t kind)
{
	const struct pp_opts *o = pp_session__opts(s);
	struct offcpu *oc = calloc(1, sizeof(*oc));
	int ret;

	if (!oc)
		return -ENOMEM;
	oc->kind = kind;
	oc->source = kind == PP_BPF_AGG_LOCK ? PP_BPF_SRC_LOCK : PP_BPF_SRC_OFFCPU;
	pp_session__set_priv(s, oc);
	oc->stacks = pp_bpf_stacks__new();
	if (!oc->stacks)
		return -ENOMEM;
	if (o->live) {
		pid_t pid = o->pids ? atoi(o->pids) : 0;
		char err[256];

		if (kind == PP_BPF_AGG_LOCK) {
			struct pp_bpf_lock_opts lo = { .pid = pid };

			oc->live_lock = pp_bpf_lock__new(&lo, err, sizeof(err));
		} else {
			struct pp_bpf_offcpu_opts bo = { .pid = pid };

			oc->live = pp_bpf_offcpu__new(&bo, err, sizeof(err));
		}
		if (!oc->live && !oc->live_lock) {
			fprintf(stderr, "pp-analyze: %s\n", err);
			return -errno;
		}
		return 0;
	}
	/* The same default file as the session's (pp-analyze without a FILE). */
	ret = pp_bpf_agg__for_each_chunk(o->input ? o->input : "pp.trace", offcpu_payload, oc);
	if (ret < 0) {
		fprintf(stderr, "pp-analyze: %s: %s\n", o->input ? o->input : "pp.trace",
			strerror(-ret));
		return ret;
	}
	return 0;
}

static int offcpu_init(struct pp_session *s)
{
	return pp_bpf_agg_an__init(s, PP_BPF_AGG_OFFCPU);
}

static void frame_name(struct pp_session *s, uint32_t pid, uint64_t ip, int kernel, char *buf,
		       size_t len)
{
	char name[120];

	pp_session__sym(s, pid, ip, kernel, name, sizeof(name), NULL);
	snprintf(buf, len, "%s%s", name, kernel ? "_[k]" : "");
}

/*
 * The kernel stack is taken inside the BPF program: its own frames (the
 * program and the tracepoint trampoline) come first. Return: how many.
 */
static unsigned int bpf_frames(struct pp_session *s, const struct ostack *st)
{
	unsigned int k;

	for (k = 0; k < st->s.nr_kernel && k < 4; k++) {
		char name[120];

		pp_session__sym(s, st->s.pid, st->ips[k], 1, name, sizeof(name), NULL);
		if (strncmp(name, "bpf_prog_", 9) && strncmp(name, "bpf_trace_run", 13) &&
		    strncmp(name, "__bpf_trace_", 12) && strncmp(name, "__traceiter_", 12))
			break;
	}
	return k == st->s.nr_kernel ? 0 : k;
}

/* Top contended locks: waits summed per (process, futex address). */
static void lock_table(struct offcpu *oc, struct pp_out *out, uint64_t total)
{
	struct lk { uint32_t pid; uint64_t addr, total, count, max; uint32_t threads; char comm[16]; } *v;
	size_t nr = 0;
	char t1[32], t2[32];

	v = calloc(oc->nr ? oc->nr : 1, sizeof(*v));
	if (!v)
		return;
	for (size_t i = 0; i < oc->nr; i++) {
		const struct ostack *st = &oc->v[i];
		size_t j;

		for (j = 0; j < nr; j++) {
			if (v[j].pid == st->s.pid && v[j].addr == st->s.addr)
				break;
		}
		if (j == nr) {
			memset(&v[nr], 0, sizeof(v[nr]));
			v[nr].pid = st->s.pid;
			v[nr].addr = st->s.addr;
			memcpy(v[nr].comm, st->s.comm, sizeof(v[nr].comm));
			nr++;
		}
		v[j].total += st->s.total_ns;
		v[j].count += st->s.count;
		v[j].threads++;
		if (st->s.max_ns > v[j].max)
			v[j].max = st->s.max_ns;
	}
	for (size_t i = 1; i < nr; i++) {	/* insertion sort by total, few locks */
		struct lk t = v[i];
		size_t j = i;

		while (j > 0 && v[j - 1].total < t.total) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = t;
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

/**
 * pp_bpf_agg_an__report() - report of the offcpu and lock modules.
 * @s: session.
 */
void pp_bpf_agg_an__report(struct pp_session *s)
{
	struct offcpu *oc = pp_session__priv(s);
	const struct pp_opts *o = pp_session__opts(s);
	struct pp_out *out = pp_session__out(s);
	static char names[OFFCPU_MAX_FRAMES][128];
	const char *frames[OFFCPU_MAX_FRAMES];
	struct pp_flame *fg = NULL;
	uint64_t total = 0;
	char t1[32], t2[32], t3[32];
	int lock = oc->kind == PP_BPF_AGG_LOCK;

	if (oc->live || oc->live_lock) {
		struct pp_buf b;
		int ret;

		pp_buf__init(&b);
		if (lock)
			ret = pp_bpf_lock__drain(oc->live_lock, &b, NULL, NULL, NULL, NULL, NULL);
		else
			ret = pp_bpf_offcpu__drain(oc->live, &b, NULL, NULL, NULL, NULL, NULL);
		if (ret >= 0)
			offcpu_payload(b.data, b.len, 0, 0, oc);
		pp_buf__exit(&b);
	}
	offcpu_merge(oc);
	for (size_t i = 0; i < oc->nr; i++)
		total += oc->v[i].s.total_ns;
	if (!oc->windows) {
		pp_out__printf(out, "no %s data in this trace (record it with: pp-record %s ...)\n",
			       lock ? "lock" : "off-CPU", lock ? "lock" : "offcpu");
		return;
	}
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
	if (oc->bad)
		pp_session__warn(s, "%llu malformed BPF_AGG items skipped", (unsigned long long)oc->bad);
	if (pp_bpf_stacks__missing(oc->stacks))
		pp_session__warn(s, "%llu stacks referred to but not defined (damaged chunks): shown empty",
				 (unsigned long long)pp_bpf_stacks__missing(oc->stacks));
	if (lock)
		lock_table(oc, out, total);
	for (size_t i = 0; i < oc->nr && i < OFFCPU_TOP; i++) {
		const struct ostack *st = &oc->v[i];
		char what[40];

		if (lock)
			snprintf(what, sizeof(what), "lock 0x%llx", (unsigned long long)st->s.addr);
		else
			snprintf(what, sizeof(what), "state %c", st->s.state ? (char)st->s.state : '?');
		pp_out__printf(out, "\n%s %u/%u %s: %s total, %llu times, avg %s, max %s (%.1f%%)\n",
			       st->s.comm, st->s.pid, st->s.tid, what,
			       pp_ns_format(t1, sizeof(t1), st->s.total_ns),
			       (unsigned long long)st->s.count,
			       pp_ns_format(t2, sizeof(t2), st->s.count ? st->s.total_ns / st->s.count : 0),
			       pp_ns_format(t3, sizeof(t3), st->s.max_ns),
			       total ? 100.0 * (double)st->s.total_ns / (double)total : 0.0);
		for (unsigned int k = bpf_frames(s, st); k < st->s.nr_kernel; k++) {
			frame_name(s, st->s.pid, st->ips[k], 1, names[0], sizeof(names[0]));
			pp_out__printf(out, "    %s\n", names[0]);
		}
		for (unsigned int u = 0; u < st->s.nr_user; u++) {
			frame_name(s, st->s.pid, st->ips[st->s.nr_kernel + u], 0, names[0],
				   sizeof(names[0]));
			pp_out__printf(out, "    %s\n", names[0]);
		}
		if (!st->s.nr_kernel && !st->s.nr_user)
			pp_out__printf(out, "    [no stack]\n");
		if (lock && st->w.tid) {
			const uint64_t *wips = st->ips + st->s.nr_kernel + st->s.nr_user;

			pp_out__printf(out, "  woken by %s %u/%u:\n", st->w.comm, st->w.pid, st->w.tid);
			for (unsigned int u = 0; u < st->w.nr_user; u++) {
				frame_name(s, st->w.pid, wips[u], 0, names[0], sizeof(names[0]));
				pp_out__printf(out, "    %s\n", names[0]);
			}
			if (!st->w.nr_user)
				pp_out__printf(out, "    [no stack]\n");
		} else if (lock) {
			pp_out__printf(out, "  woken by: unknown (timeout, signal or no futex wake seen)\n");
		}
	}
	pp_out__flush(out);
	if (!o->flame_graph)
		return;
	fg = pp_flame__new();
	if (!fg)
		return;
	for (size_t i = 0; i < oc->nr; i++) {
		const struct ostack *st = &oc->v[i];
		size_t n = 0;

		snprintf(names[n], sizeof(names[n]), "%s", st->s.comm);
		frames[n] = names[n];
		n++;
		/* Root first: user frames outermost to innermost, then kernel ones. */
		for (int u = (int)st->s.nr_user - 1; u >= 0 && n < OFFCPU_MAX_FRAMES; u--, n++) {
			frame_name(s, st->s.pid, st->ips[st->s.nr_kernel + (unsigned int)u], 0,
				   names[n], sizeof(names[n]));
			frames[n] = names[n];
		}
		int skip = (int)bpf_frames(s, st);

		for (int k = (int)st->s.nr_kernel - 1; k >= skip && n < OFFCPU_MAX_FRAMES; k--, n++) {
			frame_name(s, st->s.pid, st->ips[k], 1, names[n], sizeof(names[n]));
			frames[n] = names[n];
		}
		if (lock && n < OFFCPU_MAX_FRAMES) {
			snprintf(names[n], sizeof(names[n]), "[lock 0x%llx]", (unsigned long long)st->s.addr);
			frames[n] = names[n];
			n++;
		}
		if (lock && st->w.tid && n < OFFCPU_MAX_FRAMES) {
			snprintf(names[n], sizeof(names[n]), "[woken by %s]", st->w.comm);
			frames[n] = names[n];
			n++;
		}
		pp_flame__add(fg, frames, n, st->s.total_ns);
	}
	{
		struct pp_flame_opts fo = {
			.title = lock ? "pp lock wait time" : "pp off-CPU time",
			.subtitle = lock ? "futex wait time per user stack and lock (BPF)" :
					   "blocked time per stack (BPF, sched_switch)",
			.count_name = "ns", .unit = PP_UNIT_NS,
		};

		if (!pp_flame__write_files(fg, o->flame_graph, &fo))
			fprintf(stderr, "pp-analyze: wrote %s.folded and %s.svg\n", o->flame_graph,
				o->flame_graph);
	}
	pp_flame__free(fg);
}

/**
 * pp_bpf_agg_an__deinit() - free the state of the offcpu and lock modules.
 * @s: session.
 */
void pp_bpf_agg_an__deinit(struct pp_session *s)
{
	struct offcpu *oc = pp_session__priv(s);

	if (!oc)
		return;
	for (size_t i = 0; i < oc->nr; i++)
		free(oc->v[i].ips);
	free(oc->v);
	pp_bpf_offcpu__free(oc->live);
	pp_bpf_lock__free(oc->live_lock);
	pp_bpf_stacks__free(oc->stacks);
	free(oc);
}

const struct pp_analyzer pp_analyzer_offcpu = {
	.name = "offcpu",
	.desc = "off-CPU time aggregated in the kernel by BPF: top blocked stacks and flame graph",
	.help = "pp-analyze offcpu [--flame-graph FILE] [FILE]\n"
		"  reads the BPF_AGG chunks pp-record offcpu wrote (off-CPU time per task,\n"
		"  kernel stack and user stack, summed in the kernel at sched_switch);\n"
		"  prints the 10 stacks with the most blocked time; --flame-graph writes\n"
		"  FILE.folded and FILE.svg weighted by blocked time (ns).\n"
		"  example: pp-record offcpu -- ./app; pp-analyze offcpu --flame-graph app-offcpu\n",
	.opts = PP_OPT_FLAME,
	.events = offcpu_events,
	.init = offcpu_init,
	.report = pp_bpf_agg_an__report,
	.deinit = pp_bpf_agg_an__deinit,
};
