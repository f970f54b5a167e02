// SPDX-License-Identifier: MIT
/*
 * A replay session's dispatch: each record, from a file or live rings,
 * checked (CPU, tasks, --time window), decoded into the event the profiler
 * sees (the fast sample layout, else the full parser) and handed to its
 * callbacks; the interval ticks between records.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <traceevent/event-parse.h>
#include "pp/ftpages.h"
#include "pp/meta.h"
#include "pp/sample.h"
#include "replay-internal.h"
#include "mem.h"

/* ---- dispatch ---- */

static int pass_cpu(const struct pp_session *s, uint32_t cpu)
{
	return !s->cpu_filter || (cpu < 1024 && (s->cpu_mask[cpu / 64] & (1ull << (cpu % 64))));
}

/*
 * -p/-t on the sample's pid and tid; without them the targets a widened
 * recording or live run follows (and their descendants).
 */
static int pass_tasks(const struct pp_session *s, uint32_t pid, uint32_t tid)
{
	if (!s->nr_pids && !s->nr_tids)
		return !s->targets || target_has(s, pid, tid);
	if (s->nr_pids) {
		int ok = 0;

		for (int i = 0; i < s->nr_pids; i++)
			ok |= s->pids[i] == pid;
		if (!ok)
			return 0;
	}
	if (s->nr_tids) {
		int ok = 0;

		for (int i = 0; i < s->nr_tids; i++)
			ok |= s->tids[i] == tid;
		if (!ok)
			return 0;
	}
	return 1;
}

/**
 * pp_session__pass_tasks() - does the task @pid/@tid pass -p/-t (or the
 * targets)? For what is not a sample, such as a BPF aggregate.
 * @s: session; @pid, @tid: the task. Return: 1 or 0.
 */
int pp_session__pass_tasks(const struct pp_session *s, uint32_t pid, uint32_t tid)
{
	return pass_tasks(s, pid, tid);
}

/**
 * pp_session__tick() - call the interval callback for every -i boundary
 * passed by time @ts (event time, or the clock in live mode).
 * @s: session; @ts: perf-clock ns.
 */
void pp_session__tick(struct pp_session *s, uint64_t ts)
{
	uint64_t iv = s->opts.interval_ns;

	if (!iv)
		return;
	if (!s->next_tick) {
		s->next_tick = sat_add(ts, iv);
		return;
	}
	/*
	 * Times come from the file: near UINT64_MAX the next tick would wrap and
	 * every event would tick forever. A tick that cannot be represented is
	 * the last one (UINT64_MAX: no more).
	 */
	while (ts >= s->next_tick && s->next_tick != UINT64_MAX && !s->stop) {
		uint64_t gap;

		s->a.interval(s, s->next_tick);
		s->tick_pending = 0;
		gap = ts - s->next_tick;
		/* A long gap: skip empty intervals after the first one. */
		if (iv <= UINT64_MAX / 100 && gap > 100 * iv)
			s->next_tick = sat_add(s->next_tick, gap / iv * iv);
		else
			s->next_tick = sat_add(s->next_tick, iv);
	}
	s->tick_pending = 1;
}

/*
 * The sample a module sees (struct pp_event), from the parser's: the one
 * place a field of the perf sample becomes one of the event. Inline: with
 * the fast path's sample, whose other fields are zero, it folds to the
 * stores of the fields read.
 */
static inline void event_of(const struct pp_evsel *ev, const struct pp_sample *smp,
			    struct pp_event *e)
{
	e->time = smp->time;
	e->pid = smp->pid;
	e->tid = smp->tid;
	e->cpu = smp->cpu;
	e->ip = smp->ip;
	e->period = smp->period;
	e->raw = smp->raw;
	e->raw_size = smp->raw_size;
	e->callchain = smp->callchain;
	e->nr_callchain = (uint32_t)smp->nr_callchain;
	e->addr = smp->addr;
	e->regs = smp->user_regs;
	e->regs_mask = smp->user_regs ? ev->sample_regs_user : 0;
	e->user_stack = smp->user_stack;
	e->user_stack_size = !smp->user_stack ? 0 :
			     smp->user_stack_dyn_size < smp->user_stack_size ?
			     smp->user_stack_dyn_size : smp->user_stack_size;
	e->weight = smp->weight;
	e->data_src = smp->data_src;
}

static void dispatch_sample(struct pp_session *s, struct pp_evsel *ev, const uint8_t *rec, uint16_t size)
{
	const struct pp_sample_layout *f = &s->fast[ev->idx];
	struct pp_event e;
	int to_host, to_src;

	if (f->ok) {	/* the fast path: fixed offsets, the rest of the sample none */
		struct pp_sample smp = { 0 };

		if (pp_sample__parse_hot(f, rec, size, &smp)) {
			s->stats.bad_records++;
			return;
		}
		event_of(ev, &smp, &e);
	} else {
		struct pp_sample smp;
		struct pp_sample_fmt fmt = { .sample_type = ev->sample_type,
					     .read_format = ev->read_format,
					     .sample_regs_user = ev->sample_regs_user };

		if (pp_sample__parse_fmt(&fmt, rec, size, &smp)) {
			s->stats.bad_records++;
			return;
		}
		event_of(ev, &smp, &e);
	}
	/* a CPU the machine has not: a lie that would size per-CPU tables */
	if (s->nr_cpus && e.cpu >= s->nr_cpus && (ev->sample_type & PERF_SAMPLE_CPU)) {
		s->stats.bad_cpu++;
		return;
	}
	if (e.pid == PP_FTPAGE_PID_UNKNOWN) {	/* made of an ftrace event: its process */
		const struct pp_task *t = task_slot(s, e.tid);

		e.pid = t && t->tid ? t->pid : e.tid;
	}
	if (e.nr_callchain) {	/* junk frames of a frame-pointer walk: cut, for every output */
		int junk;
		uint32_t keep = pp_symtab__cut_chain(s->syms, e.pid, e.callchain, e.nr_callchain, &junk);

		if (junk) {
			s->stats.cut_stacks++;
			s->stats.cut_frames += e.nr_callchain - keep;
		}
		e.nr_callchain = keep;
	}
	if (!pass_cpu(s, e.cpu))
		return;
	/*
	 * A .needs_system_wide module keeps its targets' events itself (a
	 * switch to a target runs in another task's context): its events skip
	 * the task filter; the others pass it.
	 */
	to_host = ev->spec || !s->nr_specs || s->mod_req[ev->idx];
	to_src = ev->src != NULL;
	if (!pass_tasks(s, e.pid, e.tid)) {
		to_host = to_host && s->a.needs_system_wide;
		to_src = to_src && ((struct pp_src *)ev->src)->a->needs_system_wide;
	}
	if (!to_host && !to_src)
		return;
	if (s->opts.interval_ns)
		pp_session__tick(s, e.time);
	/* A thread first seen here is named after its process, as documented. */
	if (e.tid != e.pid) {
		struct pp_task *t = task_slot(s, e.tid);

		if (!t || !t->tid) {
			struct pp_task *pt = task_slot(s, e.pid);

			if (pt && pt->tid)
				pp_session__set_comm(s, e.pid, e.tid, pt->comm);
		}
	}
	e.evsel = ev;
	e.record = rec;
	ev->nr_samples++;
	s->stats.samples++;
	if (to_src) {
		struct pp_src *src = ev->src;
		struct pp_src_event se;
		int more;

		do {	/* one event may end two intervals (task-state) */
			se.source = src->a->name;
			se.entry = src->entry;
			se.start = 0;
			se.addr = 0;
			se.text[0] = '\0';
			more = src->a->source->sample(s, src->state, &e, &se);
			if (more > 0)
				s->a.source_event(s, &se);
		} while (more > 1);
	}
	if (to_host)
		s->a.sample(s, &e);
	if (s->opts.max_events && ++s->delivered >= s->opts.max_events)
		s->stop = 1;
}

static size_t bounded_strlen(const uint8_t *p, size_t max)
{
	const uint8_t *z = memchr(p, 0, max);

	return z ? (size_t)(z - p) : max;
}

/**
 * pp_session__dispatch() - decode one perf record and call the analyzer.
 * @s: session; @stream: CPU stream; @rec: the record; @size: its size.
 */
void pp_session__dispatch(struct pp_session *s, uint32_t stream, const uint8_t *rec, uint16_t size)
{
	pp_session__dispatch_ev(s, stream, rec, size,
				pp_session__evsel_by_id(s, pp_sample__id(rec, size)));
}

void pp_session__dispatch_ev(struct pp_session *s, uint32_t stream, const uint8_t *rec,
			     uint16_t size, struct pp_evsel *ev)
{
	struct perf_event_header hdr, *h = &hdr;
	struct pp_sample id;
	uint64_t idsz;

	if (!(++s->stats.records & (PP_MEM_CHECK_RECORDS - 1)))
		pp_session__mem_check(s);
	if (!ev) {
		s->stats.unknown_id++;
		return;
	}
	memcpy(&hdr, rec, sizeof(hdr));	/* records of a file need not be aligned */
	if (h->type == PERF_RECORD_SAMPLE) {
		dispatch_sample(s, ev, rec, size);
		return;
	}
	if (pp_sample_id__parse(ev->sample_type, rec, size, &id)) {
		s->stats.bad_records++;
		return;
	}
	idsz = pp_sample_id__size(ev->sample_type);
	if (size < 8 + idsz) {
		s->stats.bad_records++;
		return;
	}
	size -= (uint16_t)idsz;	/* body bytes end here */
	switch (h->type) {
	case PERF_RECORD_COMM: {
		struct pp_task_event t = { .kind = PP_TASK_COMM, .time = id.time, .cpu = id.cpu };
		char comm[17];
		size_t n;

		if (size < 16)
			break;
		t.pid = pp_sample_rd32(rec + 8);
		t.tid = pp_sample_rd32(rec + 12);
		n = bounded_strlen(rec + 16, size - 16);
		if (n > 16)
			n = 16;
		memcpy(comm, rec + 16, n);
		comm[n] = '\0';
		t.comm = comm;
		t.exec = !!(h->misc & PERF_RECORD_MISC_COMM_EXEC);
		pp_session__set_comm(s, t.pid, t.tid, comm);
		s->a.task(s, &t);
		break;
	}
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT: {
		struct pp_task_event t = { .cpu = id.cpu };

		if (size < 32)
			break;
		t.pid = pp_sample_rd32(rec + 8);
		t.ppid = pp_sample_rd32(rec + 12);
		t.tid = pp_sample_rd32(rec + 16);
		t.ptid = pp_sample_rd32(rec + 20);
		t.time = pp_sample_rd64(rec + 24);
		if (h->type == PERF_RECORD_FORK) {
			struct pp_task *pt = task_slot(s, t.ptid);

			if (pt && pt->tid)
				pp_session__set_comm(s, t.pid, t.tid, pt->comm);
			if (t.pid == t.tid && !s->a.no_symbols)
				pp_symtab__fork(s->syms, t.ppid, t.pid);
			/* What a target process forks is a target too. */
			if (s->targets && t.pid != t.ppid && idset_has(&s->tgt_procs, t.ppid))
				pp_session__add_target(s, t.pid, 0);
			t.kind = PP_TASK_FORK;
		} else {
			t.kind = PP_TASK_EXIT;
		}
		s->a.task(s, &t);
		break;
	}
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		struct pp_mmap_event m = { .time = id.time };
		size_t fn_off = h->type == PERF_RECORD_MMAP ? 32 : 72;
		char fn[4096];
		size_t n;

		if (size <= fn_off)
			break;
		m.pid = pp_sample_rd32(rec + 8);
		m.tid = pp_sample_rd32(rec + 12);
		m.start = pp_sample_rd64(rec + 16);
		m.len = pp_sample_rd64(rec + 24);
		m.pgoff = pp_sample_rd64(rec + 32);
		if (h->type == PERF_RECORD_MMAP2) {
			m.prot = pp_sample_rd32(rec + 64);
			if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
				m.build_id_size = rec[40] > 20 ? 20 : rec[40];
				m.build_id = rec + 44;
			}
		} else {
			fn_off = 40;
			if (size <= fn_off)
				break;
		}
		n = bounded_strlen(rec + fn_off, size - fn_off);
		if (n >= sizeof(fn))
			n = sizeof(fn) - 1;
		memcpy(fn, rec + fn_off, n);
		fn[n] = '\0';
		m.filename = fn;
		if (!(h->misc & PERF_RECORD_MISC_CPUMODE_MASK & PERF_RECORD_MISC_KERNEL) &&
		    !s->a.no_symbols)
			pp_symtab__add_mmap(s->syms, m.pid, m.start, m.len, m.pgoff, m.build_id,
					    m.build_id_size, fn);
		s->a.mmap(s, &m);
		break;
	}
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES: {
		struct pp_lost l = { .cpu = id.cpu, .first_ts = id.time, .last_ts = id.time };

		if (size < (h->type == PERF_RECORD_LOST ? 24 : 16))
			break;
		l.count = pp_sample_rd64(rec + (h->type == PERF_RECORD_LOST ? 16 : 8));
		if (l.count > PP_FTPAGE_MAX_DROPPED) {	/* no ring drops that many: damage */
			s->stats.bad_lost++;
			break;
		}
		if (h->type == PERF_RECORD_LOST) {
			s->stats.lost_records += l.count;
		} else {
			l.source = 1;
			s->stats.lost_samples += l.count;
		}
		(void)stream;
		ev->nr_lost += l.count;
		s->stats.lost_windows++;
		pp_session__deliver_lost(s, &l);
		break;
	}
	default:
		break;
	}
}

