// SPDX-License-Identifier: MIT
/*
 * The recorder object (include/pp/recorder.h): the per-CPU streams and the
 * drain, the writer thread and its queue, the ftrace readers, rotation and
 * the flight recorder, and the metadata a file starts with.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/epoll.h>
#include <sys/stat.h>

#include "pp/bpf.h"
#include "pp/format.h"
#include "pp/ftpages.h"
#include "pp/host.h"
#include "pp/io.h"
#include "pp/meta.h"
#include "pp/perf.h"
#include "pp/recorder.h"
#include "pp/records.h"
#include "pp/sample.h"
#include "pp/walker.h"
#include "pp/writer.h"
#include "record.h"
#include "../bpf/unwind.h"

/* ---- chunk buffers, queue, writer thread ---- */

/*
 * A ring's records are not always in time order: a record's time is taken
 * before its space is reserved, and an interrupt in between (a sample, its
 * BPF program walking a stack for tens of microseconds) writes its own
 * records first: an exec's COMM lands after a sample 18 us younger. The
 * drain holds each ring's newest records back and puts a late one in its
 * place; nesting (task, softirq, irq, NMI) writes a few records at most.
 */
#define HOLD_N		8

struct stream {
	uint32_t cpu;
	uint32_t id;		/* the chunks' stream: the CPU, PP_STREAM_FTRACE | CPU */
	uint8_t *buf;
	size_t len;		/* record bytes taken into buf (encoded or not) */
	struct pp_reccache_enc *enc;	/* records encoded as taken (rec.enc_drain) */
	uint64_t first_ts, last_ts, nr;
	uint64_t nr_ev;		/* of the nr records in buf, the events (samples) */
	uint64_t opened_ns;	/* monotonic time of the first record in buf */
	uint64_t lost_kernel;	/* PERF_RECORD_LOST */
	uint64_t lost_samples;	/* PERF_RECORD_LOST_SAMPLES */
	/* recorder drops not yet reported (under q.lock) */
	uint64_t drop_records, drop_bytes, drop_first, drop_last;
	uint64_t dropped_total;
	uint64_t unwritten;	/* records not written after a write error */
	/* --ftrace: buf holds a DATA encoding 3 payload (pp/ftpages.h) */
	int pages;
	uint32_t nr_pages;
	uint64_t dropped;	/* the kernel's drops, told by the chunk */
	int64_t clock_offset;	/* the chunk's: its pages' times + it = CLOCK_MONOTONIC */
	/* the newest records, held back in time order (stream_add()) */
	struct held {
		const struct perf_event_header *h;	/* in the ring, or in own */
		uint8_t *own;
		size_t own_cap;
		uint64_t t, now;
		uint64_t pass;	/* the drain that took it from the ring */
		int ei, has_t;
	} hold[HOLD_N];
	unsigned int hold_head, nr_hold;
};

struct qitem {
	uint8_t *buf;		/* the pool's buffer */
	uint8_t *data;		/* the payload: buf, or encoded inside it (desc.encoded) */
	size_t len;		/* its size */
	size_t plain;		/* the record bytes it holds */
	uint64_t nr_ev;		/* events (samples) in buf */
	struct pp_chunk_desc desc;
};

struct pp_recorder {
	struct pp_recorder_opts o;
	struct pp_evdescs *es;		/* o.es */
	struct pp_perf_evlist *el;
	struct pp_writer *w;
	struct pp_io *io;
	struct pp_syms *syms;
	int scan_syms;
	struct pp_unwind *unw;		/* --call-graph=dwarf: stacks unwound before written */
	/*
	 * ... with the maps of every CPU's stream drained so far: the drain
	 * copies each MMAP2, FORK and exec COMM to @side (lock); the writer
	 * learns them before it unwinds a chunk (side_learn()).
	 */
	struct pp_buf side, side_w;
	struct pp_ksym_bpf *ksym;	/* kernel symbols one by one, loaded at first need */
	int ksym_tried, ksym_ok;
	struct stream *streams;
	int nr_streams;
	struct pp_ftrace *ft;	/* --ftrace: streams[nr_cpus + ci] are its CPUs' */
	size_t ft_cap;		/* bytes of an ftrace pages chunk */
	pthread_t *ft_readers;	/* a thread per ftrace ring (ft_reader_main()), or NULL */
	int nr_ft_readers;	/* started */
	int ft_stop;		/* they stop (atomic) */
	int nr_ft_evsels;	/* the evsels ftrace reads */
	struct pp_ftpages *ft_dec;	/* the writer's: -z stores pages' records (ft_transcode()) */
	uint8_t *ft_rec;
	size_t ft_rec_cap;
	uint64_t *counts;	/* per evsel */

	pthread_mutex_t lock;
	sem_t wake;		/* the writer's wake-up: a post never waits (writer_wake()) */
	struct qitem *q;
	int qcap, qhead, qlen;
	int wake_qlen;		/* a full chunk wakes the writer when the queue holds this many */
	int boost_qlen;		/* the writer goes realtime when the queue holds this many */
	int writer_rt;		/* it is (writer_boost()) */
	int writer_idle;	/* zstd (-z): it compresses at SCHED_IDLE until boosted */
	int writer_active;	/* a thread owns r->w: the writer, or the drain (stream_flush()) */
	int write_inline;	/* the drain writes its timed flushes itself when it may */
	uint64_t drained_max;	/* the most bytes one ring held at the last drain */
	uint64_t inline_max;	/* ... up to which the drain may write (stream_flush()) */
	pthread_t writer;
	uint8_t **pool;
	int nr_pool;
	int stop_writer;
	int lost_pending;
	int fatal;		/* -errno from the writer */
	uint64_t unwritten_ev;	/* events recorded that a write error kept from the file (lock) */
	struct pp_rec_layout *layout;	/* sample time offsets for PP_DATA_CACHED */
	uint32_t nr_layout;
	uint32_t *time_off;		/* per evsel: the layout's time offset, 0 none */
	int enc_drain;			/* the drain encodes (see stream_add()) */
	uint64_t pass;			/* drains so far (the held records') */
	uint64_t peak_rss_kib;		/* at the stop (pp_recorder__summary()) */
	size_t buf_size;		/* of a pool buffer */
	struct pp_bpf_filter *filter;	/* --irqs_disabled ... on every fd */
	struct pp_walker *walker;	/* -g by the kernel-side walker, NULL: none */
	char cg_mode[768];		/* MACHINE's call_graph */
	struct pp_buf machine;		/* MACHINE as written first, for the last one */
	struct pp_bpf_offcpu *offcpu;	/* pp-record offcpu */
	struct pp_bpf_lock *lockp;	/* pp-record lock */
	struct pp_bpf_mem *mem;		/* pp-record kmemleak|kmemprof --user --bpf */
	struct pp_bpf_output *bpfout;	/* --bpf-output */
	int agg_pending;		/* the writer should drain the aggregator */
	struct pp_rotate rot;		/* --rotate, --flight-recorder: the files */
	int rotating;			/* --rotate */
	int out_fd;			/* the current file (status line) */
	struct pp_flight *fl;		/* --flight-recorder */
	uint64_t fl_window;		/* its TIME */
	uint8_t *trigger;		/* per evsel: a sample asks for a dump */
	uint64_t trigger_ts;		/* drain: a trigger's time, for the main loop */
	uint64_t dump_ts;		/* a dump of up to this time for the writer (lock) */
	uint64_t last_dump_ts;		/* no new dump within the window after it */
	uint64_t dumps, dump_fail;
	int agg_busy;			/* the writer is draining it */
	uint64_t agg_items, agg_windows;
	uint64_t stepped_down;		/* chunks compressed faster to keep up */
	uint64_t data_raw, data_stored, data_chunks;
	char cpulist[1024];		/* MACHINE's */
	char out_name[PATH_MAX];	/* the file being written (rotation: the current one) */
	uint64_t t0;			/* pp_recorder__start() */
	uint64_t flush_ns, flush_next;	/* --flush-interval */
	uint64_t agg_last;		/* the aggregator's last window */
	int agg_only;			/* an aggregator and the side-band, no event */
	int started, stopped, writer_started, sync_ready;
	double secs;			/* recorded, at the stop */
	uint64_t bytes;			/* the file's, at the stop */
	char errmsg[4096];		/* the last failure (rec_fail()) */
	int usage;			/* it was a usage error: 1, 2 (pp_recorder__new()) */
};

/* Note a failure: @usage (pp_recorder__new()) and a message. Return: @ret. */
static int rec_fail(struct pp_recorder *r, int usage, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int rec_fail(struct pp_recorder *r, int usage, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->errmsg, sizeof(r->errmsg), fmt, ap);
	va_end(ap);
	r->usage = usage;
	return ret;
}

/* A message for the caller (pp_recorder_opts.message): the library prints nothing. */
static void rec_say(const struct pp_recorder *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void rec_say(const struct pp_recorder *r, const char *fmt, ...)
{
	char line[PATH_MAX + 512];
	va_list ap;

	if (!r->o.message)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	r->o.message(r->o.message_ctx, line);
}

/* The kernel refused @d's filter: a usage error that names the fields it has. */
static int filter_rejected(struct pp_recorder *r, const struct pp_evdesc *d)
{
	char fields[2048];

	pp_tracefs_fields(d->format, fields, sizeof(fields));
	return rec_fail(r, 2, -EINVAL, "filter '%s' rejected by the kernel for %s; its fields: %s",
			d->filter, d->name, fields);
}

/* Whether @d's spec marks it as a flight recorder's trigger. */
static int is_trigger(const struct pp_recorder *r, const struct pp_evdesc *d)
{
	return d->spec >= 0 && d->spec < r->o.nr_specs && r->o.specs[d->spec].trigger;
}

uint64_t pp_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}


/* pp_syms' source of kernel symbols: BPF when it loads, else -ENOSYS (kallsyms). */
static int ksym_text(void *ctx, uint64_t addr, char *text, size_t len)
{
	struct pp_recorder *r = ctx;
	int ret;

	if (!r->ksym_tried) {
		r->ksym_tried = 1;
		/* an aggregator's object carries the program: no second load */
		r->ksym = r->offcpu ? pp_bpf_offcpu__ksym(r->offcpu) :
			  r->lockp ? pp_bpf_lock__ksym(r->lockp) : NULL;
		if (!r->ksym)
			r->ksym = pp_ksym_bpf__new();
	}
	if (!r->ksym)
		return -ENOSYS;
	ret = pp_ksym_bpf__lookup(r->ksym, addr, text, len);
	if (ret && !r->ksym_ok) {
		/* loads but cannot run here: /proc/kallsyms instead */
		pp_ksym_bpf__free(r->ksym);
		r->ksym = NULL;
		return -ENOSYS;
	}
	r->ksym_ok |= !ret;
	return ret;
}

static uint64_t sample_type_of(uint64_t id, void *ctx)
{
	struct pp_recorder *r = ctx;
	int ei = pp_perf_evlist__find_id(r->el, id);

	return ei < 0 ? 0 : r->el->evsels[ei].attr.sample_type;
}

#define META_ZSTD_MIN	16384	/* metadata chunks from this size on: zstd */

/*
 * Metadata is written once and read once: from META_ZSTD_MIN on, with the
 * default lz4, it is compressed with zstd level 3, which stores the /proc
 * snapshot in about half what lz4 leaves. Below it, setting up a zstd
 * context (0.7 ms) costs more than the few hundred bytes it would save.
 */
static void write_meta(struct pp_recorder *r, uint16_t type, struct pp_buf *b)
{
	struct pp_chunk_desc d = { .type = type, .stream = PP_STREAM_META };
	uint8_t *out = NULL;
	size_t out_len = 0;
	int err;

	if (!b->len || r->fatal || !r->w)	/* no file: the flight recorder */
		return;
	if (b->error) {
		r->fatal = b->error;
		return;
	}
	if (b->len < META_ZSTD_MIN || r->o.codec != PP_CODEC_LZ4) {
		err = pp_writer__append_chunk(r->w, &d, b->data, b->len);
	} else {
		err = pp_writer__compress(PP_CODEC_ZSTD, 3, &d, b->data, b->len, &out, &out_len);
		if (!err)
			err = pp_writer__append_prepared(r->w, out, out_len, 0);
		free(out);
	}
	if (err)
		r->fatal = err;
}

static void write_lost(struct pp_recorder *r)
{
	struct pp_buf b;
	int i;

	pp_buf__init(&b);
	pthread_mutex_lock(&r->lock);
	for (i = 0; i < r->nr_streams; i++) {
		struct stream *s = &r->streams[i];
		struct pp_lost_item it = { 0 };
		size_t at;

		if (!s->drop_records && !s->drop_bytes)
			continue;
		it.stream = s->cpu;
		it.reason = 2;
		it.first_ts = s->drop_first;
		it.last_ts = s->drop_last;
		it.count = s->drop_records;
		it.bytes = s->drop_bytes;
		s->drop_records = s->drop_bytes = s->drop_first = s->drop_last = 0;
		at = pp_item__begin(&b, 0);
		pp_buf__append(&b, &it, sizeof(it));
		pp_item__end(&b, at);
	}
	r->lost_pending = 0;
	pthread_mutex_unlock(&r->lock);
	if (b.len && r->fl) {
		pp_flight__lost(r->fl, b.data, b.len);	/* in every later dump */
	} else if (b.len && !r->fatal) {
		struct pp_chunk_desc d = { .type = PP_CHUNK_LOST, .stream = PP_STREAM_META };
		int err = pp_writer__append_chunk(r->w, &d, b.data, b.len);

		if (err)
			r->fatal = err;
	}
	pp_buf__exit(&b);
}

static void write_syms(struct pp_recorder *r)
{
	struct pp_buf k, u, m;

	pp_buf__init(&k);
	pp_buf__init(&u);
	pp_buf__init(&m);
	pp_syms__pending(r->syms, &k, &u, &m);
	write_meta(r, PP_CHUNK_MMAPS, &m);
	write_meta(r, PP_CHUNK_KSYMS, &k);
	write_meta(r, PP_CHUNK_USYMS, &u);
	pp_buf__exit(&k);
	pp_buf__exit(&u);
	pp_buf__exit(&m);
}

/*
 * Where the time of each event's samples lies, so the cached encoding can
 * store times as deltas: after the header, IDENTIFIER, then IP and TID
 * when present (perf_event_open(2) sample layout).
 */
static int build_layout(struct pp_recorder *r)
{
	size_t n = 0;
	int ei, k;

	for (ei = 0; ei < r->el->nr_evsels; ei++)
		n += (size_t)r->el->evsels[ei].nr_ids;
	r->layout = calloc(n ? n : 1, sizeof(*r->layout));
	r->time_off = calloc((size_t)r->el->nr_evsels + 1, sizeof(*r->time_off));
	if (!r->layout || !r->time_off)
		return rec_fail(r, 0, -ENOMEM, "out of memory");
	for (ei = 0; ei < r->el->nr_evsels; ei++) {
		const struct pp_perf_evsel *e = &r->el->evsels[ei];
		uint64_t st = e->attr.sample_type;
		uint32_t off = 16;

		if (!(st & PERF_SAMPLE_TIME) || !(st & PERF_SAMPLE_IDENTIFIER))
			continue;
		off += st & PERF_SAMPLE_IP ? 8 : 0;
		off += st & PERF_SAMPLE_TID ? 8 : 0;
		r->time_off[ei] = off;
		for (k = 0; k < e->nr_ids; k++) {
			if (!e->ids[k])
				continue;
			r->layout[r->nr_layout].id = e->ids[k];
			r->layout[r->nr_layout++].time_off = off;
		}
	}
	return 0;
}

/*
 * Under a storm of wake-ups the drain thread competes with every busy task
 * for the CPU, and a ring fills before it runs (perf loses events there).
 * At SCHED_FIFO it runs as soon as the watermark wakes it; it only copies
 * or encodes (stream_add()).
 */
static int set_realtime(const struct pp_recorder *r)
{
	const struct pp_recorder_opts *o = &r->o;
	int prio = o->rt_prio < 0 ? 1 : o->rt_prio;
	struct sched_param sp = { .sched_priority = prio + 1 };
	int err;

	if (!o->rt_prio)
		return 0;
	err = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	if (err && o->rt_prio > 0)
		rec_say(r, "cannot record at realtime priority %d: %s", o->rt_prio, strerror(err));
	return !err;
}

/*
 * The writer thread (compression) runs at its base policy while it keeps
 * up, and at SCHED_FIFO one below the drain (which it never delays) from
 * when r->boost_qlen chunks wait until its queue is empty again: a writer
 * starved by a busy host would fill the queue and make the drain drop
 * chunks, but a realtime writer compressing a 1 MiB zstd chunk holds its
 * CPU for milliseconds, which delayed the sched benchmark by 5% (15 rounds
 * of -z). Its base policy is SCHED_OTHER, and SCHED_IDLE with zstd
 * (r->writer_idle, -z): zstd then runs on CPU time no task wants, as
 * trace-cmd's compression runs after its recording, until a backlog of
 * r->boost_qlen chunks. Called with r->lock held, by the drain to raise it
 * and by the writer to lower it.
 */
static void writer_boost(struct pp_recorder *r, int on)
{
	struct sched_param sp = { .sched_priority = 0 };

	if (!r->o.rt_prio || r->writer_rt == on)
		return;
	r->writer_rt = on;
	if (on)
		sp.sched_priority = r->o.rt_prio < 0 ? 1 : r->o.rt_prio;
	pthread_setschedparam(r->writer, on ? SCHED_FIFO : r->writer_idle ? SCHED_IDLE : SCHED_OTHER,
			      &sp);
}

/*
 * Wake the writer. A semaphore, not a condition variable: the drain posts
 * at realtime priority to a writer that may run at SCHED_IDLE, and glibc's
 * pthread_cond_signal() can wait for a waiter that was preempted inside
 * pthread_cond_wait() - behind every busy task, while the rings fill. The
 * lock the two share inherits priority; sem_post() never waits.
 */
static void writer_wake(struct pp_recorder *r)
{
	sem_post(&r->wake);
}

/*
 * Move what the BPF aggregator (offcpu, lock) summed in the kernel into the
 * file: new processes' TASKS/MMAPS first, then the BPF_AGG chunk, then the
 * symbols its stacks hit. Runs on the writer thread, like every append.
 */
static void write_agg(struct pp_recorder *r)
{
	struct pp_buf p, t, m;
	uint64_t first = 0, last = 0;
	int n;

	pp_buf__init(&p);
	pp_buf__init(&t);
	pp_buf__init(&m);
	if (r->offcpu)
		n = pp_bpf_offcpu__drain(r->offcpu, &p, &first, &last, r->syms, &t, &m);
	else if (r->lockp)
		n = pp_bpf_lock__drain(r->lockp, &p, &first, &last, r->syms, &t, &m);
	else
		n = pp_bpf_mem__drain(r->mem, &p, &first, &last, r->syms, &t, &m);
	write_meta(r, PP_CHUNK_TASKS, &t);
	write_meta(r, PP_CHUNK_MMAPS, &m);
	if (n >= 0 && p.len && !r->fatal) {
		struct pp_chunk_desc d = { .type = PP_CHUNK_BPF_AGG, .stream = PP_STREAM_META,
					   .first_ts = first, .last_ts = last };
		int err = pp_writer__append_chunk(r->w, &d, p.data, p.len);

		if (err)
			r->fatal = err;
		r->agg_items += (uint64_t)n;
		r->agg_windows++;
	} else if (n < 0 && !r->fatal) {
		rec_say(r, "reading the BPF aggregate: %s", strerror(-n));
	}
	write_syms(r);
	pp_buf__exit(&p);
	pp_buf__exit(&t);
	pp_buf__exit(&m);
}

/*
 * Close the aggregator's window (pp_bpf_offcpu__flip) unless the writer
 * still has one to drain or is draining it. Return: whether it was closed.
 */
static int agg_close(struct pp_recorder *r)
{
	int ok;

	pthread_mutex_lock(&r->lock);
	ok = !r->agg_pending && !r->agg_busy;
	pthread_mutex_unlock(&r->lock);
	if (!ok)
		return 0;
	if (r->offcpu)
		pp_bpf_offcpu__flip(r->offcpu);
	else if (r->lockp)
		pp_bpf_lock__flip(r->lockp);
	else
		pp_bpf_mem__flip(r->mem);
	return 1;
}

/*
 * The BPF parts: the filter program on every event fd (not the side-band
 * dummy, which has no samples), and the offcpu/lock aggregator of
 * `pp-record offcpu|lock`, limited to the workload or -p process.
 */
/* --bpf-output: the program (opened by the caller) loaded and pointed at its events. */
static int attach_bpf_output(struct pp_recorder *r)
{
	const char *name = pp_bpf_output__event_name(r->bpfout);
	char err[512];
	int ei;

	for (ei = 0; ei < r->el->nr_evsels; ei++) {
		const struct pp_perf_evsel *e = &r->el->evsels[ei];

		if (strcmp(e->name, name))
			continue;
		if (pp_bpf_output__attach(r->bpfout, r->el->cpus, e->fds, r->el->nr_cpus, err,
					  sizeof(err)))
			return rec_fail(r, 0, -EINVAL, "%s", err);
		break;
	}
	return 0;
}

/* A note of the walker's for the user. */
static void walker_say(void *ctx, const char *msg)
{
	const struct pp_recorder *r = ctx;

	if (!r->o.quiet)
		rec_say(r, "%s", msg);
}

/*
 * @child: the workload, else @procs (@nr_procs): the -p processes, all of
 * which the aggregator follows.
 */
static int attach_bpf(struct pp_recorder *r, pid_t child, const pid_t *procs, int nr_procs)
{
	const struct pp_recorder_opts *o = &r->o;
	const int widened = o->widen && (child > 0 || nr_procs);
	char err[512];
	int ei, k, ret;

	if (r->bpfout && attach_bpf_output(r))
		return -EINVAL;

	/* -a, cgroups, widened -t: every process; widened: the targets' only */
	if (r->walker && (ret = pp_walker__attach(r->walker, o->cgroup_fds || (!o->widen &&
						 !r->el->nr_threads) || (o->widen && !widened),
						 widened, child, o->child_path, procs, nr_procs, r->cg_mode,
						 sizeof(r->cg_mode), err, sizeof(err))))
		return rec_fail(r, 0, ret, "%s", err);
	if (pp_bpf_filter_opts__active(&o->bpf)) {
		r->filter = pp_bpf_filter__new(&o->bpf, err, sizeof(err));
		if (!r->filter)
			return rec_fail(r, 0, -EINVAL, "%s", err);
		for (ei = 0; ei < r->el->nr_evsels; ei++) {
			const struct pp_perf_evsel *e = &r->el->evsels[ei];

			if ((e->attr.type == PERF_TYPE_SOFTWARE &&
			     (e->attr.config == PERF_COUNT_SW_DUMMY ||
			      e->attr.config == PERF_COUNT_SW_BPF_OUTPUT)) ||
			    pp_walker__walks(r->walker, ei))
				continue;
			for (k = 0; k < e->nr_ids; k++)
				if (e->fds[k] >= 0 &&
				    pp_bpf_filter__attach(r->filter, e->fds[k], e->attr.type, err,
							  sizeof(err)))
					return rec_fail(r, 0, -EINVAL, "%s: %s", e->name, err);
		}
	}
	if (o->agg == PP_AGG_OFFCPU) {
		struct pp_bpf_offcpu_opts oo = { .pid = child > 0 ? child : 0, .pids = procs,
						 .nr_pids = nr_procs,
						 .fp_user_stack = o->call_graph == PP_CG_FP };

		r->offcpu = pp_bpf_offcpu__new(&oo, err, sizeof(err));
		if (!r->offcpu)
			return rec_fail(r, 0, -EINVAL, "offcpu: %s", err);
		/* its blocked user stacks: by the walker where it runs */
		snprintf(r->cg_mode, sizeof(r->cg_mode), "%s",
			 pp_bpf_offcpu__walker(r->offcpu) ? "bpf" : "fp");
	} else if (o->agg == PP_AGG_LOCK) {
		struct pp_bpf_lock_opts lo = { .pid = child > 0 ? child : 0, .pids = procs,
					       .nr_pids = nr_procs,
					       .fp_user_stack = o->call_graph == PP_CG_FP };

		r->lockp = pp_bpf_lock__new(&lo, err, sizeof(err));
		if (!r->lockp)
			return rec_fail(r, 0, -EINVAL, "lock: %s", err);
		snprintf(r->cg_mode, sizeof(r->cg_mode), "%s",
			 pp_bpf_lock__walker(r->lockp) ? "bpf" : "fp");
	} else if (o->agg == PP_AGG_MEM) {
		struct pp_bpf_mem_opts mo = { .pid = child > 0 ? child : 0, .pids = procs,
					      .nr_pids = nr_procs, .libc = o->agg_path, .track = 1 };

		r->mem = pp_bpf_mem__new(&mo, err, sizeof(err));
		if (!r->mem)
			return rec_fail(r, 0, -EINVAL, "%s --bpf: %s", o->profiler, err);
	}
	return 0;
}

/* --rotate: close the file (index, footer) and go on in a new one that stands alone. */
static void rotate_file(struct pp_recorder *r)
{
	char name[PATH_MAX], err[PATH_MAX + 128];
	int e = pp_writer__close(r->w);

	pp_io__free(r->io);
	pp_syms__free(r->syms);
	r->w = NULL;
	r->io = NULL;
	r->syms = NULL;
	r->out_fd = -1;
	if (!e)
		e = pp_rotate__start(&r->rot, pp_mono_ns(), &r->io, &r->w, &r->syms, name, sizeof(name),
				     err, sizeof(err));
	else
		snprintf(err, sizeof(err), "cannot complete %s: %s",
			 r->rot.names[r->rot.nr_names - 1], strerror(-e));
	if (e) {
		rec_say(r, "%s", err);
		r->fatal = e;
		return;
	}
	r->out_fd = r->rot.fd;
}

/* --flight-recorder: the records up to @t into a new file. */
static void flight_dump(struct pp_recorder *r, uint64_t t)
{
	char name[PATH_MAX], err[PATH_MAX + 128];
	uint64_t nr;
	int e = pp_flight__dump(r->fl, t, &r->rot, pp_mono_ns(), sample_type_of, r, name, sizeof(name),
				&nr, err, sizeof(err));

	if (e) {
		rec_say(r, "flight recorder: %s", err);
		r->dump_fail++;
		return;
	}
	r->dumps++;
	if (!r->o.quiet)
		rec_say(r, "flight recorder: %llu records of the last %.3g s written to %s",
			(unsigned long long)nr, (double)r->fl_window / 1e9, name);
}

/*
 * With zstd, a chunk of ftrace pages is stored as the records its pages
 * hold, in the chunk's encoding (the record cache by default), not as the
 * pages: a fifth of the bytes on getppid events, and the idle writer
 * (writer_boost()) pays for the decoding where the reader threads did no
 * work per event. A chunk stepped down to lz4 keeps its pages. Return: 0,
 * or -errno with @it as it was (the pages are stored).
 */
static int ft_transcode(struct pp_recorder *r, struct qitem *it)
{
	size_t n = 0, off;
	uint32_t nr = 0;
	int err;

	if (!r->ft_dec && !(r->ft_dec = pp_ftpages__new()))
		return -ENOMEM;
	err = pp_ftpages__decode(r->ft_dec, it->data, it->len, &r->ft_rec, &r->ft_rec_cap, &n,
				 PP_CHUNK_MAX_RAW, it->desc.last_ts, NULL, NULL);
	if (err)
		return err;
	for (off = 0; off + sizeof(struct perf_event_header) <= n; nr++)
		off += ((const struct perf_event_header *)(r->ft_rec + off))->size;
	it->data = r->ft_rec;
	it->len = n;
	it->desc.encoding = (uint8_t)r->o.encoding;
	it->desc.encoded = 0;
	it->desc.nr_records = nr;
	return 0;
}

/*
 * Learn the maps every CPU's stream told so far, before a chunk's stacks
 * are unwound (--call-graph=dwarf) or their symbols looked up. A process
 * that moved to another CPU has its stacks in that CPU's chunk, which may
 * be written before the chunk with its exec's maps (an address waits only
 * UPEND_SCANS scans for its map: then it has no symbol in the file); the
 * same records, scanned again in their own chunk, change nothing.
 */
static void side_learn(struct pp_recorder *r)
{
	struct pp_buf t;

	pthread_mutex_lock(&r->lock);
	t = r->side;
	r->side = r->side_w;
	pthread_mutex_unlock(&r->lock);
	pp_syms__scan_side(r->syms, r->unw, t.data, t.len, sample_type_of, r);
	pp_buf__reset(&t);
	r->side_w = t;
}

/*
 * Append the chunk of @it to the file (or the flight recorder), compressed;
 * @backlog: chunks waiting behind it. Runs on the thread that owns the
 * file writer (r->writer_active): the writer thread, or the drain for a
 * chunk it writes itself (stream_flush()).
 * Return: the events of @it that did not reach the file.
 */
static uint64_t write_item(struct pp_recorder *r, struct qitem *it, int backlog)
{
	uint64_t lost_ev = it->nr_ev;	/* until the chunk is in the file */

	if ((r->fl || r->rotating) && it->desc.encoding != PP_DATA_FTRACE)
		pp_rotate__sideband(&r->rot, it->buf, it->len);
	if (r->fl) {
		if (!pp_flight__add(r->fl, &it->desc, it->buf, it->len))
			lost_ev = 0;
	} else if (r->rotating && !r->fatal &&
		   pp_rotate__due(&r->rot, pp_mono_ns(), pp_writer__bytes(r->w))) {
		rotate_file(r);
	}
	if (!r->fatal && !r->fl) {
		uint8_t *out = NULL;
		size_t out_len = 0;
		uint64_t seq = pp_writer__chunks(r->w);
		int err;

		uint8_t codec = (uint8_t)r->o.codec;
		int level = r->o.level;

		/* the maps first, then each stack unwound in place */
		if (r->unw && it->desc.encoding != PP_DATA_FTRACE) {
			side_learn(r);
			pp_syms__scan_unwind(r->syms, r->unw, it->buf, &it->len, sample_type_of, r);
		}

		/*
		 * Compression must never cost events: when chunks wait, a slow
		 * zstd level steps down to the fastest one, and far behind to
		 * lz4 (the codec is per chunk), before the queue fills. An
		 * idle writer's backlog is expected: it steps down past the
		 * half of the queue where it is boosted.
		 */
		if (codec == PP_CODEC_ZSTD &&
		    backlog * 8 >= r->qcap * (r->writer_idle ? 5 : 2))
			level = 1;
		if (codec == PP_CODEC_ZSTD &&
		    backlog * 4 >= r->qcap * (r->writer_idle ? 3 : 2))
			codec = PP_CODEC_LZ4;
		if (codec == PP_CODEC_LZ4 && it->desc.encoding == PP_DATA_FIELDS)
			it->desc.encoding = PP_DATA_CACHED;	/* lz4's faster one */
		if (codec != r->o.codec || level != r->o.level)
			r->stepped_down++;
		if (codec == PP_CODEC_ZSTD && it->desc.encoding == PP_DATA_FTRACE)
			ft_transcode(r, it);
		err = pp_writer__compress(codec, level, &it->desc, it->data, it->len,
					  &out, &out_len);
		if (!err)
			err = pp_writer__append_prepared(r->w, out, out_len,
							 it->desc.nr_records);
		/* an error may come from the index after it: the chunk is in */
		if (pp_writer__chunks(r->w) > seq)
			lost_ev = 0;
		free(out);
		if (err)
			r->fatal = err;
		r->data_raw += it->desc.encoded ? it->plain : it->len;	/* unwound */
		r->data_stored += out_len;
		r->data_chunks++;
		if (!err && r->scan_syms && !r->unw && it->desc.encoding != PP_DATA_FTRACE) {
			side_learn(r);
			pp_syms__scan(r->syms, it->data, it->len, sample_type_of, r);	/* records */
			write_syms(r);
		} else if (!err && r->unw) {
			write_syms(r);
		}
	}
	return lost_ev;
}

static void *writer_main(void *arg)
{
	struct pp_recorder *r = arg;

	for (;;) {
		struct qitem it;
		uint64_t lost_ev = 0, dump;
		int lost, agg, backlog;

		pthread_mutex_lock(&r->lock);
		/* the drain may be writing a chunk itself: it wakes us after */
		while (r->writer_active ||
		       (!r->qlen && !r->stop_writer && !r->lost_pending && !r->agg_pending &&
			!r->dump_ts)) {
			pthread_mutex_unlock(&r->lock);
			while (sem_wait(&r->wake) && errno == EINTR)
				;
			pthread_mutex_lock(&r->lock);
		}
		/* a closed window is drained before the end: the main thread takes the rest */
		if (!r->qlen && r->stop_writer && !r->lost_pending && !r->agg_pending &&
		    !r->dump_ts) {
			pthread_mutex_unlock(&r->lock);
			break;
		}
		r->writer_active = 1;
		lost = r->lost_pending;
		/* the aggregate after the data queued before it (see the main loop) */
		agg = r->agg_pending && !r->qlen;
		if (agg) {
			r->agg_pending = 0;
			r->agg_busy = 1;
		}
		/* a dump after the data queued before it, like the aggregate */
		dump = r->qlen ? 0 : r->dump_ts;
		r->dump_ts = dump ? 0 : r->dump_ts;
		it.buf = NULL;
		if (r->qlen) {
			it = r->q[r->qhead];
			r->qhead = (r->qhead + 1) % r->qcap;
			r->qlen--;
		}
		backlog = r->qlen;
		if (!backlog && !r->stop_writer)
			writer_boost(r, 0);
		pthread_mutex_unlock(&r->lock);

		if (lost)
			write_lost(r);
		if (agg) {
			write_agg(r);
			pthread_mutex_lock(&r->lock);
			r->agg_busy = 0;
			pthread_mutex_unlock(&r->lock);
		}
		if (dump)
			flight_dump(r, dump);
		if (it.buf)
			lost_ev = write_item(r, &it, backlog);
		pthread_mutex_lock(&r->lock);
		if (it.buf)
			r->pool[r->nr_pool++] = it.buf;
		r->unwritten_ev += lost_ev;
		r->writer_active = 0;
		pthread_mutex_unlock(&r->lock);
	}
	return NULL;
}

/*
 * Whether a buffer is free, allocated at its first use: a recording whose
 * data fits in a few chunks at a time (an aggregator's side-band) never
 * pays for the whole pool. Called with r->lock held.
 */
static int pool_ready(struct pp_recorder *r)
{
	uint8_t **b;

	if (!r->nr_pool)
		return 0;
	b = &r->pool[r->nr_pool - 1];
	return *b || (*b = malloc(r->buf_size));
}

/* Start @s's next chunk in its buffer. */
static void stream_begin(struct pp_recorder *r, struct stream *s)
{
	if (s->enc)
		pp_reccache_enc__start(s->enc, s->buf, r->o.chunk_size, r->layout, r->nr_layout);
}

/*
 * Hand a stream's buffer to the writer; drop it (counted) if no buffer is
 * free. A full chunk (@wake 0) wakes the writer only once the queue holds
 * r->wake_qlen chunks; a flush, a drop and anything else the writer must do
 * now wake it at once. A flush (@wake 1) the writer has nothing before is
 * written by the caller itself with r->write_inline.
 */
static void stream_flush(struct pp_recorder *r, struct stream *s, int wake)
{
	struct qitem it = { .buf = s->buf, .data = s->buf, .len = s->len, .plain = s->len,
			    .nr_ev = s->nr_ev };

	if (!s->len)
		return;
	if (s->enc) {
		it.len = pp_reccache_enc__finish(s->enc, &it.data);
		it.desc.encoded = 1;
	}
	if (s->pages) {	/* the header's counts, known now */
		pp_put_le32(s->buf + 12, s->nr_pages);
		pp_put_le64(s->buf + 16, s->dropped);
		it.desc.encoded = 1;
	}
	it.desc.type = PP_CHUNK_DATA;
	it.desc.flags = PP_CHUNK_CRITICAL;
	it.desc.stream = s->id;
	it.desc.first_ts = s->first_ts;
	it.desc.last_ts = s->last_ts;
	it.desc.nr_records = s->nr;
	it.desc.encoding = s->pages ? PP_DATA_FTRACE : (uint8_t)r->o.encoding;
	it.desc.layout = r->layout;
	it.desc.nr_layout = r->nr_layout;
	pthread_mutex_lock(&r->lock);
	if (wake && r->write_inline && !r->qlen && !r->writer_active && !r->lost_pending &&
	    !r->fatal && r->drained_max <= r->inline_max) {
		/*
		 * A timed flush while the writer sleeps with nothing queued:
		 * written here, where the chunk was just encoded and is in
		 * this CPU's cache, and the writer is not woken - at idle,
		 * its wake-up was two fifths of the recorder's CPU. Only
		 * while the rings fill slowly: a write() can sleep (dirty
		 * page throttling pauses a task up to 200 ms), and the rings
		 * must hold what comes meanwhile.
		 */
		uint64_t lost_ev;

		r->writer_active = 1;
		pthread_mutex_unlock(&r->lock);
		lost_ev = write_item(r, &it, 0);
		pthread_mutex_lock(&r->lock);
		r->writer_active = 0;
		r->unwritten_ev += lost_ev;
		wake = r->qlen || r->stop_writer || r->lost_pending || r->agg_pending ||
		       r->dump_ts;
	} else if (pool_ready(r) && r->qlen < r->qcap && !r->fatal) {
		r->q[(r->qhead + r->qlen) % r->qcap] = it;
		r->qlen++;
		s->buf = r->pool[--r->nr_pool];
	} else if (r->fatal) {
		s->unwritten += s->nr;	/* the file cannot take more */
		r->unwritten_ev += s->nr_ev;
		wake = 1;
	} else {
		if (!s->drop_records)
			s->drop_first = s->first_ts;
		s->drop_last = s->last_ts;
		s->drop_records += s->nr;
		s->drop_bytes += s->len;
		s->dropped_total += s->nr;
		r->lost_pending = 1;
		wake = 1;
	}
	if (r->qlen >= r->boost_qlen || r->lost_pending)
		writer_boost(r, 1);
	if (wake || r->qlen >= r->wake_qlen)
		writer_wake(r);
	pthread_mutex_unlock(&r->lock);
	s->len = 0;
	s->nr = 0;
	s->nr_ev = 0;
	s->nr_pages = 0;
	s->dropped = 0;
	s->first_ts = s->last_ts = 0;
	stream_begin(r, s);
}

/*
 * Take record @h of event @ei (-1: none known) into @s; @has_t: it carries
 * time @t.
 */
static inline void stream_take(struct pp_recorder *r, struct stream *s,
			       const struct perf_event_header *h, uint64_t now, int ei,
			       uint64_t t, int has_t)
{
	if (s->len + h->size > r->o.chunk_size)
		stream_flush(r, s, 0);
	if (!s->len)
		s->opened_ns = now;
	if (s->enc)
		pp_reccache_enc__add(s->enc, h, h->size,
				     h->type == PERF_RECORD_SAMPLE && ei >= 0 ? r->time_off[ei] : 0);
	else
		memcpy(s->buf + s->len, h, h->size);
	s->len += h->size;
	s->nr++;

	if (has_t) {
		if (!s->first_ts)
			s->first_ts = t;
		s->last_ts = t;
	}
	switch (h->type) {
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_FORK:
	case PERF_RECORD_COMM:
		if ((r->unw || r->scan_syms) &&
		    (h->type != PERF_RECORD_COMM || (h->misc & PERF_RECORD_MISC_COMM_EXEC))) {
			pthread_mutex_lock(&r->lock);
			pp_buf__append(&r->side, h, h->size);
			pthread_mutex_unlock(&r->lock);
		}
		break;
	case PERF_RECORD_SAMPLE:
		if (ei >= 0) {
			r->counts[ei]++;
			s->nr_ev++;
			if (r->trigger && r->trigger[ei] && !r->trigger_ts)
				r->trigger_ts = t ? t : pp_mono_ns();
		}
		break;
	case PERF_RECORD_LOST:
		if (h->size >= 24) {
			uint64_t lost;

			memcpy(&lost, (const uint8_t *)h + 16, 8);
			s->lost_kernel += lost;
		}
		break;
	case PERF_RECORD_LOST_SAMPLES:
		if (h->size >= 16) {
			uint64_t lost;

			memcpy(&lost, (const uint8_t *)h + 8, 8);
			s->lost_samples += lost;
		}
		break;
	}
}

/* @e's record, in its own copy: the ring's space, or the walker's buffer, is reused. */
static void held_own(struct held *e)
{
	if ((const uint8_t *)e->h == e->own)
		return;
	if (e->own_cap < e->h->size) {
		uint8_t *v = realloc(e->own, e->h->size);

		if (!v)
			return;	/* kept where it is: taken at once by hold_settle() */
		e->own = v;
		e->own_cap = e->h->size;
	}
	memcpy(e->own, e->h, e->h->size);
	e->h = (const struct perf_event_header *)e->own;
}

static void hold_take_oldest(struct pp_recorder *r, struct stream *s)
{
	struct held *e = &s->hold[s->hold_head];

	stream_take(r, s, e->h, e->now, e->ei, e->t, e->has_t);
	s->hold_head = (s->hold_head + 1) % HOLD_N;
	s->nr_hold--;
}

/*
 * The end of a drain of @s's ring. The records held since an earlier drain
 * are taken (a late record comes microseconds after the ones it belongs
 * before: it was in the ring by this drain), so none waits longer than a
 * flush interval; this drain's are copied out of the ring. With @all, all
 * are taken (the last drain).
 */
static void hold_settle(struct pp_recorder *r, struct stream *s, int all)
{
	while (s->nr_hold && s->hold[s->hold_head].pass < r->pass)
		hold_take_oldest(r, s);
	for (unsigned int i = 0; i < s->nr_hold; i++) {
		struct held *e = &s->hold[(s->hold_head + i) % HOLD_N];

		held_own(e);
		if ((const uint8_t *)e->h != e->own)
			all = 1;	/* no memory for the copy: all of them now */
	}
	while (all && s->nr_hold)
		hold_take_oldest(r, s);
}

static inline void stream_add(struct pp_recorder *r, struct stream *s,
			      const struct perf_event_header *h, uint64_t now)
{
	int ei = pp_perf_evlist__find_id(r->el, pp_sample__id(h, h->size));
	const struct perf_event_header *in = h;
	struct held *e;
	unsigned int at;
	uint64_t t = 0;
	int has_t;

	if (r->walker && !(h = pp_walker__record(r->walker, (int)(s - r->streams), h, ei)))
		return;
	has_t = ei >= 0 && !pp_sample__time(r->el->evsels[ei].attr.sample_type, h, h->size, &t);
	if (s->nr_hold == HOLD_N)
		hold_take_oldest(r, s);
	at = s->nr_hold;
	if (at) {
		const struct held *last = &s->hold[(s->hold_head + at - 1) % HOLD_N];

		if (!has_t)
			t = last->t;	/* no time: where it came */
		/* a late one (rare): after the held ones of its time or older */
		while (at && s->hold[(s->hold_head + at - 1) % HOLD_N].t > t)
			at--;
		for (unsigned int k = s->nr_hold; k > at; k--) {
			struct held tmp = s->hold[(s->hold_head + k) % HOLD_N];

			s->hold[(s->hold_head + k) % HOLD_N] = s->hold[(s->hold_head + k - 1) % HOLD_N];
			s->hold[(s->hold_head + k - 1) % HOLD_N] = tmp;
		}
	}
	e = &s->hold[(s->hold_head + at) % HOLD_N];
	*e = (struct held){ h, e->own, e->own_cap, t, now, r->pass, ei, has_t };
	s->nr_hold++;
	if (h != in)	/* the walker's buffer: the next record reuses it */
		held_own(e);
	if (((const uint8_t *)e->h != e->own && h != in) ||
	    (ei >= 0 && r->trigger && r->trigger[ei]))
		hold_settle(r, s, 1);	/* uncopied, or a trigger: its dump is due now */
}

struct ft_ctx {
	struct pp_recorder *r;
	struct stream *s;
	int ci;
};

/* Start @s's ftrace pages payload: its header and its CPU's event types. */
static void ft_begin(struct pp_recorder *r, struct stream *s, int ci)
{
	int nt = pp_ftrace__nr_types(r->ft);
	struct pp_ftpage_type t[nt ? nt : 1];
	struct pp_ftpage_chunk c = {
		.cpu = s->cpu, .page_size = (uint32_t)pp_ftrace__page_size(r->ft),
		.nr_types = (uint16_t)pp_ftrace__types(r->ft, ci, t),
		.long_size = sizeof(long), .big_endian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__,
		.clock_offset = pp_ftrace__clock_offset(r->ft),
	};

	s->clock_offset = c.clock_offset;
	s->len = pp_ftpages__put_header(s->buf, &c, t);
	s->opened_ns = pp_mono_ns();
}

/* Where the next page of an ftrace stream is read to: in its chunk, as stored. */
static uint8_t *ft_slot(void *ctx)
{
	struct ft_ctx *c = ctx;
	struct stream *s = c->s;

	if (s->len && s->len + PP_FTPAGE_PAGE_HDR + pp_ftrace__page_size(c->r->ft) > c->r->ft_cap)
		stream_flush(c->r, s, 0);
	if (!s->len)
		ft_begin(c->r, s, c->ci);
	return s->buf + s->len + PP_FTPAGE_PAGE_HDR;
}

/*
 * A page of @len bytes was read to ft_slot(), its first event at @ts or
 * after: the chunk's times are bounds, the first page's and now.
 */
static void ft_done(void *ctx, size_t len, uint64_t ts)
{
	struct stream *s = ((struct ft_ctx *)ctx)->s;
	size_t pad = ((len + 7) & ~(size_t)7) - len;

	pp_put_le32(s->buf + s->len, (uint32_t)len);
	pp_put_le32(s->buf + s->len + 4, 0);
	memset(s->buf + s->len + PP_FTPAGE_PAGE_HDR + len, 0, pad);
	s->len += PP_FTPAGE_PAGE_HDR + len + pad;
	s->nr_pages++;
	s->nr++;	/* a page is this stream's record (what a drop counts) */
	if (!s->first_ts)
		s->first_ts = ts + (uint64_t)s->clock_offset;
	s->last_ts = pp_mono_ns();
}

/* Take what the rings hold into the streams; @final: the events are off. */
static void drain_all(struct pp_recorder *r, int final)
{
	uint64_t now = pp_mono_ns(), max = 0;
	int ci;

	r->pass++;
	for (ci = 0; ci < r->el->nr_cpus; ci++) {
		struct pp_perf_ring *ring = &r->el->rings[ci];
		struct stream *s = &r->streams[ci];
		const struct perf_event_header *h;
		uint64_t n;

		if (!ring->meta || !(n = pp_perf_ring__read_begin(ring))) {
			hold_settle(r, s, 0);	/* a quiet ring's held records go too */
			continue;
		}
		if (n > max)
			max = n;
		while ((h = pp_perf_ring__next(ring)))
			stream_add(r, s, h, now);
		hold_settle(r, s, 0);	/* before the ring's space is given back */
		pp_perf_ring__read_end(ring);
	}
	r->drained_max = max;
	for (ci = 0; final && ci < r->el->nr_cpus; ci++) {
		uint64_t rec[PP_LOST_RECORD_MAX / 8];

		if (pp_perf_evlist__untold_lost(r->el, ci, rec))
			stream_add(r, &r->streams[ci], (const struct perf_event_header *)rec, now);
		hold_settle(r, &r->streams[ci], 1);
	}
	for (ci = 0; r->ft && !r->ft_readers && ci < r->el->nr_cpus; ci++) {
		struct ft_ctx c = { r, &r->streams[r->el->nr_cpus + ci], ci };
		uint64_t d;

		pp_ftrace__pages(r->ft, ci, final, ft_slot, ft_done, &c);
		if (final && (d = pp_ftrace__dropped(r->ft, ci))) {
			if (!c.s->len)
				ft_begin(r, c.s, ci);	/* a chunk of no page to say so */
			c.s->dropped += d;
			c.s->lost_kernel += d;
		}
	}
}

static void drain(struct pp_recorder *r)
{
	drain_all(r, 0);
}

struct ft_reader {
	struct pp_recorder *r;
	int ci;
};

/*
 * A reader of one ftrace ring, as trace-cmd has: woken by its ring (at half
 * of it) or every 100 ms, it reads the ring into its stream and hands the
 * stream's chunk to the writer every --flush-interval. One drain for every
 * CPU's ring (and the perf rings) lost events now and then at 12M events/s
 * on 2 CPUs, even with 4 MiB rings; a reader at the drain's priority per
 * ring lost none (spec/pp-record.md, "--ftrace").
 */
static void *ft_reader_main(void *arg)
{
	struct ft_reader *fr = arg;
	struct pp_recorder *r = fr->r;
	struct stream *s = &r->streams[r->el->nr_cpus + fr->ci];
	struct ft_ctx c = { r, s, fr->ci };
	struct pollfd p = { .fd = pp_ftrace__fd(r->ft, fr->ci), .events = POLLIN };
	uint64_t flush_ns = (uint64_t)r->o.flush_ms * 1000000ull;

	set_realtime(r);
	while (!__atomic_load_n(&r->ft_stop, __ATOMIC_ACQUIRE)) {
		poll(&p, 1, r->o.flush_ms < 100 ? r->o.flush_ms : 100);
		pp_ftrace__pages(r->ft, fr->ci, 0, ft_slot, ft_done, &c);
		if (s->len && pp_mono_ns() - s->opened_ns >= flush_ns)
			stream_flush(r, s, 1);
	}
	free(fr);
	return NULL;
}

/*
 * Start a reader per ftrace ring, their fds out of the drain's poll; not
 * with a flight recorder, whose dumps flush every stream from the drain.
 * Return: 0, or -errno with the error set.
 */
static int ft_readers_start(struct pp_recorder *r)
{
	int ci;

	if (!r->ft || r->fl)
		return 0;
	r->ft_readers = calloc((size_t)r->el->nr_cpus, sizeof(*r->ft_readers));
	if (!r->ft_readers)
		return rec_fail(r, 0, -ENOMEM, "out of memory");
	for (ci = 0; ci < r->el->nr_cpus; ci++) {
		struct ft_reader *fr = malloc(sizeof(*fr));

		epoll_ctl(r->el->epfd, EPOLL_CTL_DEL, pp_ftrace__fd(r->ft, ci), NULL);
		if (!fr)
			return rec_fail(r, 0, -ENOMEM, "out of memory");
		*fr = (struct ft_reader){ r, ci };
		if (pthread_create(&r->ft_readers[ci], NULL, ft_reader_main, fr)) {
			free(fr);
			return rec_fail(r, 0, -EAGAIN, "cannot start the ftrace reader threads");
		}
		r->nr_ft_readers++;
	}
	return 0;
}

/* Stop the readers: the drain reads the rest of the rings at the stop. */
static void ft_readers_stop(struct pp_recorder *r)
{
	if (!r->ft_readers)
		return;
	__atomic_store_n(&r->ft_stop, 1, __ATOMIC_RELEASE);
	for (int ci = 0; ci < r->nr_ft_readers; ci++)
		pthread_join(r->ft_readers[ci], NULL);
	free(r->ft_readers);
	r->ft_readers = NULL;
}

static void flush_old(struct pp_recorder *r, uint64_t now, int all)
{
	int ci;

	/* a file cut (rotation, a dump) at a flush: no held record crosses it */
	for (ci = 0; all && (r->rotating || r->fl) && ci < r->el->nr_cpus; ci++)
		hold_settle(r, &r->streams[ci], 1);

	for (ci = 0; ci < r->nr_streams; ci++) {
		struct stream *s = &r->streams[ci];

		if (s->pages && r->ft_readers)
			continue;	/* its reader's */
		if (s->len && (all || now - s->opened_ns >= 1000000000ull))
			stream_flush(r, s, 1);
	}
}

/* ---- metadata ---- */

static void put_machine(struct pp_recorder *r, struct pp_buf *b, const char *cpulist)
{
	char filters[4096] = "";
	size_t fl = 0;
	int i;

	pp_host__describe(b, cpulist, r->o.cmdline ? r->o.cmdline : "pp-record");
	pp_machine__put(b, "pp_version", PP_VERSION);
	for (i = 0; i < r->es->nr; i++) {
		struct pp_evdesc *e = &r->es->v[i];

		if (e->filter && fl + strlen(e->name) + strlen(e->filter) + 4 < sizeof(filters))
			fl += (size_t)snprintf(filters + fl, sizeof(filters) - fl, "%s%s=%s",
					       fl ? ";" : "", e->name, e->filter);
	}
	if (pp_bpf_filter_opts__active(&r->o.bpf) && fl + 8 < sizeof(filters)) {
		fl += (size_t)snprintf(filters + fl, sizeof(filters) - fl, "%s", fl ? ";" : "");
		pp_bpf_filter__describe(&r->o.bpf, filters + fl, sizeof(filters) - fl);
	}
	pp_machine__put(b, "filters", filters);
	if (r->o.target_pids)
		pp_machine__put(b, "target_pids", r->o.target_pids);
	if (r->o.target_tids)
		pp_machine__put(b, "target_tids", r->o.target_tids);
}

static int put_formats(struct pp_recorder *r, struct pp_buf *b)
{
	pp_host__formats(b, r->es);
	if (r->bpfout && pp_bpf_output__put_format(r->bpfout, b))
		return rec_fail(r, 0, -EINVAL, "cannot describe the BPF output records: no BTF");
	return 0;
}

static void put_attrs(struct pp_recorder *r, struct pp_buf *b)
{
	int i, k;

	for (i = 0; i < r->el->nr_evsels; i++) {
		struct pp_perf_evsel *e = &r->el->evsels[i];
		struct pp_attr_item it;
		uint32_t nr = 0;
		size_t at, nr_at;

		if (i == pp_walker__output(r->walker))
			continue;	/* its records are the samples' frames */
		at = pp_item__begin(b, 0);

		for (k = 0; k < e->nr_ids; k++)
			nr += e->fds[k] >= 0 || e->external;
		struct perf_event_attr a = e->attr;

		/*
		 * --call-graph=dwarf: the samples as written, their stacks unwound
		 * (only then: without it, a probe's registers and stack, such as
		 * kmemleak's ustack=, are written as sampled)
		 */
		if (r->o.dwarf_stack && a.sample_type != pp_syms_dwarf_sample_type(a.sample_type)) {
			a.sample_type = pp_syms_dwarf_sample_type(a.sample_type);
			a.sample_regs_user = 0;
			a.sample_stack_user = 0;
		}
		it.attr_size = sizeof(e->attr);
		it.nr_ids = nr;
		nr_at = b->len;
		pp_buf__append(b, &it, sizeof(it));
		pp_buf__append(b, &a, sizeof(a));
		pp_buf__pad(b, 8);
		for (k = 0; k < e->nr_ids; k++)
			if (e->fds[k] >= 0 || e->external)
				pp_buf__append(b, &e->ids[k], 8);
		pp_buf__append_str(b, e->name);
		pp_item__end(b, at);
		(void)nr_at;
	}
}


static void fmt_bytes(char *buf, size_t n, double v)
{
	if (v >= 1 << 30)
		snprintf(buf, n, "%.2f GiB", v / (1 << 30));
	else if (v >= 1 << 20)
		snprintf(buf, n, "%.2f MiB", v / (1 << 20));
	else if (v >= 1 << 10)
		snprintf(buf, n, "%.1f KiB", v / (1 << 10));
	else
		snprintf(buf, n, "%.0f B", v);
}

/*
 * The live status line: the counters the drain keeps on the caller's
 * thread, and the file's size (what the writer thread appended so far).
 */
int pp_recorder__status(const struct pp_recorder *r, uint64_t elapsed_ns, char *line, size_t len)
{
	uint64_t events = 0, lost = 0;
	struct stat st;
	char sz[32];
	int i, n;

	for (i = 0; i < r->el->nr_evsels; i++)
		events += r->counts[i];
	if (r->ft)
		events += pp_ftrace__events(r->ft);
	for (i = 0; i < r->nr_streams; i++)
		lost += r->streams[i].lost_kernel + r->streams[i].lost_samples +
			r->streams[i].dropped_total;
	fmt_bytes(sz, sizeof(sz), fstat(r->out_fd, &st) ? 0.0 : (double)st.st_size);
	n = snprintf(line, len, "pp-record: %llu s, %llu events, %s written, %llu lost",
		     (unsigned long long)(elapsed_ns / 1000000000ull),
		     (unsigned long long)events, sz, (unsigned long long)lost);
	if (r->fl && n > 0 && n < (int)len) {
		uint64_t kept;
		double secs;

		/* read while the writer adds: a figure for the eye, not an account */
		pp_flight__status(r->fl, &kept, &secs);
		fmt_bytes(sz, sizeof(sz), (double)kept);
		n = snprintf(line, len, "pp-record: %llu s, %llu events, flight "
			     "recorder: %s kept (%.1f s), %llu dumps, %llu lost",
			     (unsigned long long)(elapsed_ns / 1000000000ull),
			     (unsigned long long)events, sz, secs, (unsigned long long)r->dumps,
			     (unsigned long long)lost);
	}
	return n;
}

/* MACHINE, FORMATS, ATTRS: into the file, and kept for the next ones. */
static void write_meta_kept(struct pp_recorder *r, uint16_t type, struct pp_buf *b)
{
	if (r->rotating || r->fl)
		pp_rotate__keep(&r->rot, type, b);
	write_meta(r, type, b);
}

/*
 * --rotate, --flight-recorder: the files of the run (record/rotate.c); a new
 * file's symbol snapshot covers @snap (@nr_snap 0: every process). With
 * --rotate, @first receives the first file's name.
 */
static int files_init(struct pp_recorder *r, const struct pp_writer_opts *wo, const pid_t *snap,
		      int nr_snap, char *first, size_t len)
{
	const struct pp_recorder_opts *o = &r->o;

	pp_rotate__init(&r->rot, o->output, o->max_files);
	r->rot.every_ns = o->rotate_ns;
	r->rot.bytes = o->rotate_bytes;
	r->rot.wo = *wo;
	r->rot.kallsyms_all = o->kallsyms_all;
	r->rot.snap = snap;
	r->rot.nr_snap = nr_snap;
	r->rot.ksym_fn = ksym_text;
	r->rot.ksym_ctx = r;
	r->rot.sample_type_of = sample_type_of;
	r->rot.st_ctx = r;
	r->rotating = o->rotate_ns || o->rotate_bytes;
	if (r->rotating)
		pp_rotate__next_name(&r->rot, first, len);
	if (o->flight_ns) {
		r->fl = pp_flight__new(o->flight_ns, o->flight_size);
		r->fl_window = o->flight_ns;
		if (!r->fl)
			return rec_fail(r, 0, -ENOMEM, "out of memory");
	}
	return 0;
}

/*
 * A dump asked for (@t: pp_recorder__dump(), or a trigger event in the
 * last drain): what the rings hold is drained and handed over first, then
 * the writer dumps up to the request's time. A trigger within the window
 * after the last dump is part of what that dump showed: no new file for it.
 */
static void flight_request(struct pp_recorder *r, uint64_t now, uint64_t t)
{
	if (r->trigger_ts) {
		if ((!r->last_dump_ts || r->trigger_ts > r->last_dump_ts + r->fl_window) &&
		    r->trigger_ts > t)
			t = r->trigger_ts;
		r->trigger_ts = 0;
	}
	if (!t)
		return;
	drain(r);
	flush_old(r, now, 1);	/* the held records too: what the rings had is in the dump */
	pthread_mutex_lock(&r->lock);
	if (t > r->dump_ts)
		r->dump_ts = t;
	writer_wake(r);
	pthread_mutex_unlock(&r->lock);
	r->last_dump_ts = t;
}

/*
 * Whether a kernel ring filled (not the writer's queue): 0 no, 2 a perf ring
 * that tracepoints write to (--ftrace would take them), 1 another.
 */
static int ring_full_hint(const struct pp_recorder *r)
{
	int i, full = 0, tp = 0;

	for (i = 0; i < r->nr_streams; i++) {
		if (r->streams[i].lost_kernel || r->streams[i].lost_samples)
			full = 1;
	}
	for (i = 0; i < r->el->nr_evsels; i++)
		tp |= r->el->evsels[i].attr.type == PERF_TYPE_TRACEPOINT &&
		      !r->el->evsels[i].external;
	return full ? 1 + tp : 0;
}

/*
 * --ftrace: the tracepoints go through a tracefs instance of their own, on
 * the evlist's CPUs, with its ring size; their perf events were not opened
 * (pp_perf_evsel.external) but have ids, which the records made of ftrace's
 * events carry. Targets: @pids (with @children the tasks they fork) unless
 * the events must see every task (@widen).
 */
static int ftrace_open(struct pp_recorder *r, int widen, const pid_t *pids, int nr_pids, int children)
{
	char err[2400];
	int ret, bad;

	if (r->o.cgroup_fds)
		return rec_fail(r, 1, -EINVAL, "--ftrace: no --cgroups (a tracefs instance filters by pid only)");
	if (pp_bpf_filter_opts__active(&r->o.bpf))
		return rec_fail(r, 1, -EINVAL, "--ftrace: no BPF filters (they attach to perf events)");
	ret = pp_ftrace__open_evlist(r->el, r->es, &r->ft, &bad, err, sizeof(err));
	if (ret == -EINVAL && bad >= 0 && r->es->v[bad].filter && r->es->v[bad].format)
		return filter_rejected(r, &r->es->v[bad]);
	if (ret == -EOPNOTSUPP || ret == -EEXIST || ret == -ENOENT)
		return rec_fail(r, 1, ret, "%s", err);
	if (ret)
		return rec_fail(r, 0, ret, "--ftrace: %s", err);
	if (!widen && nr_pids && (ret = pp_ftrace__set_pids(r->ft, pids, nr_pids, children)))
		return rec_fail(r, 0, ret, "--ftrace: cannot set the instance's pids: %s", strerror(-ret));
	return 0;
}


/* ---- the recorder object ---- */

/*
 * -g: the kernel-side walker of the events that take a user stack
 * (include/pp/walker.h), its output event added last, after the events
 * whose rings it joins. Return: 0 or -errno (rec_fail()).
 */
static int walker_add(struct pp_recorder *r)
{
	const struct pp_walker_opts wo = { .mode = r->o.call_graph, .dwarf = !!r->o.dwarf_stack,
					   .filter = r->o.bpf, .say = walker_say, .ctx = r };
	char err[256];
	int ret = pp_walker__new(r->el, &wo, &r->walker, r->cg_mode, sizeof(r->cg_mode), err,
				 sizeof(err));

	return ret ? rec_fail(r, ret == -EOPNOTSUPP ? 2 : 0, ret, "%s", err) : 0;
}

/* The events, each opened on every CPU: the evlist and its rings (and ftrace's). */
static int rec_open(struct pp_recorder *r)
{
	const struct pp_recorder_opts *o = &r->o;
	const int *targets = o->cgroup_fds ? o->cgroup_fds : o->widen ? NULL : o->threads;
	int nr_targets = o->cgroup_fds ? o->nr_cgroups : o->widen ? 0 : o->nr_threads;
	int i, err;

	for (i = 0; i < o->nr_cpus; i++) {
		size_t l = strlen(r->cpulist);

		snprintf(r->cpulist + l, sizeof(r->cpulist) - l, "%s%d", i ? "," : "", o->cpus[i]);
	}
	r->el = pp_perf_evlist__new(o->cpus, o->nr_cpus, targets, nr_targets);
	if (!r->el)
		return rec_fail(r, 0, -ENOMEM, "out of memory");
	if (o->cgroup_fds)
		r->el->open_flags = PERF_FLAG_PID_CGROUP;
	/*
	 * The default ring: 2 MiB per CPU (pp_perf_ring_pages()), woken when
	 * half full. A drain takes 1 MiB a CPU per wake-up with 1 MiB left
	 * before a loss, where a 1 MiB ring woken at a quarter took 256 KiB
	 * with 768 KiB left: the wake-ups, each to cold caches, cost a tenth of
	 * the recorder's CPU on the sched benchmark. Beyond 64 CPUs, 1 MiB each
	 * (kernel memory: perf's default is 512 KiB).
	 */
	r->el->mmap_pages = o->mmap_pages ? o->mmap_pages : pp_perf_ring_pages(o->nr_cpus);
	r->el->watermark = (unsigned int)(r->el->mmap_pages * (size_t)sysconf(_SC_PAGESIZE) / 2);
	/*
	 * ftrace's rings, twice the default: woken at half a ring, at 12M
	 * getppid events/s on 2 CPUs (124 MB/s a CPU) a 2 MiB ring leaves its
	 * reader 8 ms (spec/pp-record.md, "--ftrace"). Kernel memory: 4 MiB a
	 * CPU.
	 */
	if (!o->mmap_pages && o->ftrace)
		r->el->ftrace_pages = pp_perf_ring_pages(o->nr_cpus) * 2;
	for (i = 0; i < r->es->nr; i++) {
		const struct pp_evdesc *d = &r->es->v[i];
		int ei = pp_perf_evlist__add(r->el, &d->attr, d->name, d->filter);

		if (ei < 0)
			return rec_fail(r, 0, -ENOMEM, "out of memory");
		/* a flight recorder's trigger is seen as it comes: on perf_event */
		r->el->evsels[ei].external = o->ftrace && d->attr.type == PERF_TYPE_TRACEPOINT &&
					     !is_trigger(r, d);
		r->nr_ft_evsels += r->el->evsels[ei].external;
	}
	if ((err = walker_add(r)))
		return err;
	err = pp_perf_evlist__open(r->el);
	if (err) {
		int ei = r->el->err_evsel;

		if (ei >= 0 && err == -EINVAL && r->es->v[ei].filter && r->es->v[ei].format &&
		    strstr(r->el->err, "filter"))
			return filter_rejected(r, &r->es->v[ei]);
		if (err == -EACCES || err == -EPERM)
			return rec_fail(r, 0, err, "%s (run as root or lower kernel.perf_event_paranoid)",
					r->el->err);
		if (ei >= 0 && (err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV))
			return rec_fail(r, 0, err, "%s: the event is not supported here", r->el->err);
		if (err == -ENOMEM || (err == -EPERM && strstr(r->el->err, "mmap")))
			return rec_fail(r, 0, err, "%s (try a smaller -m)", r->el->err);
		return rec_fail(r, 0, err, "%s", r->el->err);
	}
	if (o->ftrace)
		return ftrace_open(r, o->widen, o->follow ? &o->child : o->threads,
				   o->follow ? 1 : o->nr_threads, o->follow || o->pids_given);
	return 0;
}

/* The output: a temporary file (named at commit), rotated files, or none (a flight recorder). */
static int rec_output(struct pp_recorder *r)
{
	const struct pp_recorder_opts *o = &r->o;
	struct pp_writer_opts wo = { .codec = (uint8_t)o->codec, .level = o->level,
				     .chunk_size = (uint32_t)o->chunk_size };
	char msg[PATH_MAX + 64];
	int usage, fd;

	snprintf(r->out_name, sizeof(r->out_name), "%s", o->output);
	if ((o->flight_ns || o->rotate_ns || o->rotate_bytes) &&
	    files_init(r, &wo, o->follow ? &o->child : o->procs, o->follow ? 1 : o->nr_procs,
		       r->out_name, sizeof(r->out_name)))
		return -ENOMEM;
	if (r->fl)
		return 0;
	fd = pp_output__create(r->out_name, msg, sizeof(msg), &usage);
	if (fd < 0)
		return rec_fail(r, usage, -EINVAL, "%s", msg);
	r->out_fd = fd;	/* its size for the status line */
	r->io = pp_io_file__new(fd, 1);
	if (!r->io)
		return rec_fail(r, 0, -errno, "cannot set up output: %s", strerror(errno));
	r->w = pp_writer__new(r->io, &wo);
	if (!r->w)
		return rec_fail(r, 0, -errno, "cannot start %s: %s", r->out_name, strerror(errno));
	return 0;
}

/* MACHINE, FORMATS, ATTRS, the TASKS and MMAPS snapshot, and the symbols. */
static int rec_meta(struct pp_recorder *r)
{
	const struct pp_recorder_opts *o = &r->o;
	struct pp_buf b, mm;
	int i, err;

	pp_buf__init(&b);
	put_machine(r, &b, r->cpulist);
	if (r->es->nr && r->cg_mode[0])
		pp_machine__put(&b, "call_graph", r->cg_mode);
	pp_buf__append(&r->machine, b.data, b.len);
	write_meta_kept(r, PP_CHUNK_MACHINE, &b);
	pp_buf__reset(&b);
	err = put_formats(r, &b);
	if (!err) {
		write_meta_kept(r, PP_CHUNK_FORMATS, &b);
		pp_buf__reset(&b);
		put_attrs(r, &b);
		write_meta_kept(r, PP_CHUNK_ATTRS, &b);
		pp_buf__reset(&b);
		r->syms = pp_syms__new(o->kallsyms_all);
		if (!r->syms || (o->dwarf_stack && !(r->unw = pp_unwind__new())))
			err = rec_fail(r, 0, -ENOMEM, "out of memory");
	}
	if (err) {
		pp_buf__exit(&b);
		return err;
	}
	pp_syms__set_ksym_fn(r->syms, ksym_text, r);
	pp_buf__init(&mm);
	for (i = 0; i < r->es->nr; i++)
		r->scan_syms |= !!(r->es->v[i].attr.sample_type &
				   (PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN));
	/*
	 * A system-wide aggregator reads /proc for the processes its stacks
	 * name, at each drain (pp_syms__learn): of a host's processes, only
	 * those that block are read, not all at start.
	 */
	if (!o->follow && !(o->agg && !o->nr_procs && !r->scan_syms))
		pp_syms__snapshot(r->syms, &b, &mm, o->nr_procs ? o->procs : NULL, o->nr_procs);
	write_meta(r, PP_CHUNK_TASKS, &b);
	write_meta(r, PP_CHUNK_MMAPS, &mm);
	pp_buf__exit(&mm);
	pp_buf__exit(&b);
	if (r->fatal)
		return rec_fail(r, 0, r->fatal, "cannot write %s: %s", r->out_name,
				strerror(-r->fatal));
	if (o->kallsyms_all)
		write_syms(r);
	return 0;
}

/* The per-CPU streams, the writer's queue and its pool of buffers. */
static int rec_streams(struct pp_recorder *r)
{
	const struct pp_recorder_opts *o = &r->o;
	int i;

	r->nr_streams = r->el->nr_cpus * (r->ft ? 2 : 1);
	r->streams = calloc((size_t)r->nr_streams, sizeof(*r->streams));
	r->counts = calloc((size_t)r->el->nr_evsels, sizeof(*r->counts));
	r->qcap = o->queue;
	/*
	 * The writer wakes for a megabyte of full chunks (four of the default
	 * 256 KiB), not for each: a wake-up of a thread that slept finds its
	 * caches cold, and on the sched benchmark one per chunk cost about a
	 * tenth of the recorder's CPU. At most a quarter of the queue waits.
	 */
	r->wake_qlen = (int)((1u << 20) / o->chunk_size);
	if (r->wake_qlen > r->qcap / 4)
		r->wake_qlen = r->qcap / 4;
	if (r->wake_qlen < 1)
		r->wake_qlen = 1;
	/* 8 of the 32 chunks of 256 KiB, 4 of 1 MiB (-z) */
	r->boost_qlen = r->qcap / 8 > 2 * r->wake_qlen ? r->qcap / 8 : 2 * r->wake_qlen;
	if (r->boost_qlen > r->qcap / 4)
		r->boost_qlen = r->qcap / 4;
	if (r->boost_qlen < 1)
		r->boost_qlen = 1;
	r->q = calloc((size_t)r->qcap, sizeof(*r->q));
	r->pool = calloc((size_t)(r->qcap + r->nr_streams), sizeof(*r->pool));
	if (!r->streams || !r->counts || !r->q || !r->pool)
		return rec_fail(r, 0, -ENOMEM, "out of memory");
	/*
	 * The record cache's encoding is done by the drain as it takes each
	 * record from its ring: a record is read once, and only one that is
	 * no repeat is copied (a chunk of plain records written by the drain
	 * and encoded by the writer was one cold copy and one cold read more,
	 * a sixth of the recorder's CPU on the sched benchmark). What reads
	 * plain records before they are written - unwinding, the symbol scan,
	 * the flight recorder, rotation - keeps the writer encoding.
	 */
	r->enc_drain = o->encoding == PP_DATA_CACHED && !r->unw && !r->scan_syms && !r->fl &&
		       !r->rotating;
	/* lz4 only: zstd runs at SCHED_IDLE, off the realtime drain (writer_boost()) */
	r->write_inline = r->enc_drain && !r->ft && o->codec != PP_CODEC_ZSTD;
	/* at most an eighth of a ring per interval: a 200 ms stall then uses a tenth */
	r->inline_max = (uint64_t)r->el->mmap_pages * (uint64_t)sysconf(_SC_PAGESIZE) / 8;
	r->buf_size = r->enc_drain ? pp_reccache_enc__buf_size(o->chunk_size, r->nr_layout) :
				     o->chunk_size;
	if (r->ft) {
		/* a chunk of pages: --chunk-size, room for one page at least, 1 MiB at most */
		size_t one = PP_FTPAGE_HDR_SIZE + PP_FTPAGE_TYPE_SIZE * (size_t)r->nr_ft_evsels +
			     PP_FTPAGE_PAGE_HDR + pp_ftrace__page_size(r->ft);

		r->ft_cap = o->chunk_size < PP_FTPAGE_MAX_PAYLOAD ? o->chunk_size :
								    PP_FTPAGE_MAX_PAYLOAD;
		if (r->ft_cap < one)
			r->ft_cap = one;
		if (r->buf_size < r->ft_cap)
			r->buf_size = r->ft_cap;
	}
	for (i = 0; i < r->nr_streams; i++) {
		r->streams[i].cpu = (uint32_t)r->el->cpus[i % r->el->nr_cpus];
		r->streams[i].pages = i >= r->el->nr_cpus;
		r->streams[i].id = r->streams[i].cpu | (i < r->el->nr_cpus ? 0 : PP_STREAM_FTRACE);
		r->streams[i].buf = malloc(r->buf_size);
		if (!r->streams[i].buf)
			return rec_fail(r, 0, -ENOMEM, "out of memory");
	}
	r->nr_pool = r->qcap;	/* allocated as used: pool_ready() */
	if (r->enc_drain) {
		for (i = 0; i < r->el->nr_cpus; i++) {	/* ftrace pages are stored as they are */
			r->streams[i].enc = pp_reccache_enc__new();
			if (!r->streams[i].enc)
				return rec_fail(r, 0, -ENOMEM, "out of memory");
			stream_begin(r, &r->streams[i]);
		}
	}
	return 0;
}

/* The writer thread, then the caller's at realtime priority (the drain). */
static int rec_writer_start(struct pp_recorder *r)
{
	pthread_mutexattr_t ma;
	sigset_t all, old;
	int err;

	/*
	 * Priority inheritance: the drain (realtime) takes this lock to
	 * queue a chunk, and a writer at normal priority preempted while
	 * it holds it would keep the drain waiting behind every busy
	 * task while the rings fill.
	 */
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
	pthread_mutex_init(&r->lock, &ma);
	pthread_mutexattr_destroy(&ma);
	sem_init(&r->wake, 0, 0);
	r->sync_ready = 1;
	/* the writer thread takes no signals: they must interrupt epoll_wait */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&r->writer, NULL, writer_main, r);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		return rec_fail(r, 0, -err, "cannot start the writer thread");
	r->writer_started = 1;
	/* after the writer thread started, so that only the drain runs at RT priority */
	if (set_realtime(r) && r->o.codec == PP_CODEC_ZSTD && !r->fl) {
		/* -z compresses on idle CPU time (writer_boost()) */
		pthread_mutex_lock(&r->lock);
		r->writer_idle = 1;
		r->boost_qlen = r->qcap / 2 > 1 ? r->qcap / 2 : 1;
		r->writer_rt = 1;
		writer_boost(r, 0);
		pthread_mutex_unlock(&r->lock);
	}
	return 0;
}

struct pp_recorder *pp_recorder__new(const struct pp_recorder_opts *opts, char *err, size_t len,
				     int *usage)
{
	struct pp_recorder *r;
	int i;

	*usage = 0;
	if (!opts || opts->sz < offsetof(struct pp_recorder_opts, es) + sizeof(opts->es) ||
	    !opts->es) {
		snprintf(err, len, "pp_recorder__new: no events");
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		snprintf(err, len, "out of memory");
		return NULL;
	}
	memcpy(&r->o, opts, opts->sz < sizeof(r->o) ? opts->sz : sizeof(r->o));
	r->es = r->o.es;
	r->bpfout = r->o.bpf_output;
	r->out_fd = -1;
	if (rec_open(r) || rec_output(r) || rec_meta(r) || build_layout(r) ||
	    attach_bpf(r, r->o.child, r->o.pids_given ? r->o.procs : NULL,
		       r->o.pids_given ? r->o.nr_procs : 0))
		goto fail;
	/* the aggregators' stacks need the maps that FORK and MMAP2 records tell */
	if (r->offcpu || r->lockp || r->mem)
		r->scan_syms = 1;
	if (r->fl) {
		r->scan_syms = 0;	/* each dump collects the symbols of its records */
		r->trigger = calloc((size_t)r->el->nr_evsels, 1);
		if (!r->trigger) {
			rec_fail(r, 0, -ENOMEM, "out of memory");
			goto fail;
		}
		for (i = 0; i < r->el->nr_evsels && i < r->es->nr; i++)
			r->trigger[i] = is_trigger(r, &r->es->v[i]);
	}
	if (rec_streams(r) || rec_writer_start(r))
		goto fail;
	r->agg_only = r->offcpu || r->lockp || r->mem;
	for (i = 0; i < r->el->nr_evsels; i++)
		r->agg_only &= r->el->evsels[i].attr.type == PERF_TYPE_SOFTWARE &&
			       r->el->evsels[i].attr.config == PERF_COUNT_SW_DUMMY;
	return r;
fail:
	snprintf(err, len, "%s", r->errmsg);
	*usage = r->usage;
	pp_recorder__free(r);
	return NULL;
}

int pp_recorder__start(struct pp_recorder *r, char *err, size_t len)
{
	int ret;

	r->t0 = pp_mono_ns();
	/*
	 * An aggregator alone (its ring buffers hold only the side-band, which
	 * wakes the loop by watermark) needs the loop once a second, for its
	 * drain, and writes its window then. Otherwise the loop wakes at least
	 * every --flush-interval (250 ms), drains the rings and hands every
	 * buffer that holds anything to the writer: what a SIGKILL loses is at
	 * most that interval (and what the writer had not appended yet). A
	 * watermark wake-up before it costs one comparison.
	 */
	r->flush_ns = (uint64_t)r->o.flush_ms * 1000000ull;
	r->flush_next = r->t0 + r->flush_ns;
	r->started = 1;
	if (!r->o.follow && (ret = pp_perf_evlist__enable(r->el))) {
		snprintf(err, len, "cannot enable events: %s", strerror(-ret));
		return ret;
	}
	/* the walks' event: not the workload's, on from now */
	if (r->o.follow)
		pp_walker__enable(r->walker);
	if (r->ft && (ret = pp_ftrace__start(r->ft))) {
		snprintf(err, len, "cannot turn the tracefs instance on: %s", strerror(-ret));
		return ret;
	}
	if ((ret = ft_readers_start(r))) {
		snprintf(err, len, "%s", r->errmsg);
		return ret;
	}
	return 0;
}

int pp_recorder__commit(struct pp_recorder *r, char *err, size_t len)
{
	if (!r->fl && pp_output__commit(r->out_name, err, len))
		return -1;
	if (r->rotating) {
		pp_rotate__added(&r->rot, r->out_name);
		r->rot.opened_ns = r->t0;
	}
	return 0;
}

int pp_recorder__run(struct pp_recorder *r, int timeout_ms, char *err, size_t len)
{
	uint64_t now = pp_mono_ns();
	int timeout, hup = 0, ret;

	if (!r->agg_only)
		timeout = r->flush_next > now ? (int)((r->flush_next - now + 999999) / 1000000) : 0;
	else	/* overdue: the writer still drains the last window */
		timeout = r->agg_last + 1000000000ull > now ?
			  (int)((r->agg_last + 1000000000ull - now) / 1000000) + 1 : 10;
	if (timeout_ms >= 0 && timeout_ms < timeout)
		timeout = timeout_ms;
	ret = pp_perf_evlist__poll(r->el, timeout, &hup);
	if (ret < 0) {
		snprintf(err, len, "epoll: %s", strerror(-ret));
		return ret;
	}
	drain(r);
	now = pp_mono_ns();
	if (r->agg_only) {
		flush_old(r, now, 0);
	} else if (now >= r->flush_next) {
		flush_old(r, now, 1);
		r->flush_next += r->flush_ns;
		if (r->flush_next <= now)
			r->flush_next = now + r->flush_ns;
	}
	if ((r->offcpu || r->lockp || r->mem) && now - r->agg_last >= 1000000000ull &&
	    agg_close(r)) {
		/*
		 * The window is closed, then the side-band read: every process
		 * it names forked or mapped before the close, so its FORK and
		 * MMAP2 records are in what is flushed now, and the writer
		 * scans them before it drains: the drain need not read /proc
		 * for those processes.
		 */
		drain(r);
		flush_old(r, now, 1);
		pthread_mutex_lock(&r->lock);
		r->agg_pending = 1;
		writer_wake(r);
		pthread_mutex_unlock(&r->lock);
		r->agg_last = now;
	}
	if (r->fl)
		flight_request(r, now, 0);
	return r->fatal ? -EIO : 0;
}

void pp_recorder__dump(struct pp_recorder *r, uint64_t t)
{
	if (r->fl)
		flight_request(r, pp_mono_ns(), t);
}

/* Stop the writer thread once it wrote what is queued. */
static void writer_stop(struct pp_recorder *r)
{
	if (!r->writer_started)
		return;
	pthread_mutex_lock(&r->lock);
	r->stop_writer = 1;
	writer_boost(r, 1);	/* what waits, idle writer or not: now, on a busy host too */
	writer_wake(r);
	pthread_mutex_unlock(&r->lock);
	pthread_join(r->writer, NULL);
	r->writer_started = 0;
}

/* The walker of the events, or of the offcpu or lock aggregator, or NULL. */
static struct pp_uwalk *rec_walker(const struct pp_recorder *r)
{
	struct pp_uwalk *uw = pp_walker__uwalk(r->walker);

	return uw ? uw : r->offcpu ? pp_bpf_offcpu__walker(r->offcpu) :
	       r->lockp ? pp_bpf_lock__walker(r->lockp) : NULL;
}

/*
 * The walker's counts as MACHINE's user_stacks (pp-analyze info reads it):
 * KEY=N words (spec/pp-trace-format.md, 5.1).
 */
static void walker_describe(struct pp_recorder *r, char *buf, size_t len)
{
	static const char *const ends[PP_UW_END_NR] = { "whole", "depth", "read", "unsupported",
							 "fp_end", "no_regs" };
	struct pp_uwalk_stats st;
	size_t n;

	pp_uwalk__stats(rec_walker(r), &st);
	n = (size_t)snprintf(buf, len, "stacks=%llu walked=%llu",
			     (unsigned long long)st.stacks, (unsigned long long)st.walked);
	for (int i = 0; i < PP_UW_END_NR && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, " %s=%llu", ends[i],
				      (unsigned long long)st.ends[i]);
	if (n < len)
		snprintf(buf + n, len - n, " fp_no_proc=%llu fp_other=%llu out_fail=%llu "
			 "frames_cfi=%llu frames_fp=%llu no_table=%llu procs=%llu dsos=%llu "
			 "rows=%llu dso_failed=%llu build_ms=%llu",
			 (unsigned long long)st.fp_no_proc, (unsigned long long)st.fp_other,
			 (unsigned long long)st.out_fail, (unsigned long long)st.frames_cfi,
			 (unsigned long long)st.frames_fp,
			 (unsigned long long)st.no_table, (unsigned long long)st.procs,
			 (unsigned long long)st.dsos, (unsigned long long)st.dso_rows,
			 (unsigned long long)st.dso_failed,
			 (unsigned long long)(st.build_ns / 1000000));
}

static void walker_summary(const struct pp_recorder *r, FILE *fp)
{
	char line[512];

	pp_uwalk__summary(rec_walker(r), line, sizeof(line));
	fprintf(fp, "  %s\n", line);
}

/* The recorder's peak resident memory so far (KiB): /proc's VmHWM, as ps and top see it. */
static uint64_t peak_rss_kib(void)
{
	unsigned long long kib = 0;
	char line[256];
	struct rusage ru;
	FILE *f = fopen("/proc/self/status", "re");

	while (f && fgets(line, sizeof(line), f) && sscanf(line, "VmHWM: %llu", &kib) != 1)
		;
	if (f)
		fclose(f);
	if (!kib && !getrusage(RUSAGE_SELF, &ru))
		kib = (unsigned long long)ru.ru_maxrss;
	return kib;
}

int pp_recorder__stop(struct pp_recorder *r)
{
	int err;

	if (r->offcpu || r->lockp || r->mem)
		agg_close(r);
	pp_perf_evlist__disable(r->el);
	if (r->ft)
		pp_ftrace__stop(r->ft);
	ft_readers_stop(r);
	drain_all(r, 1);
	flush_old(r, pp_mono_ns(), 1);
	if (r->fl)
		flight_request(r, pp_mono_ns(), 0);	/* a trigger in the last drain */
	writer_stop(r);
	if (!r->fatal && (r->offcpu || r->lockp || r->mem))
		write_agg(r);
	if (!r->fatal)
		write_syms(r);
	if (!r->fatal && r->machine.len) {
		char d[1024];

		/* MACHINE again, what only the end knows added: the last one counts */
		if (rec_walker(r)) {
			/* the aggregator's: not known when MACHINE was first written */
			if (!pp_walker__active(r->walker))
				pp_machine__put(&r->machine, "call_graph", r->cg_mode);
			walker_describe(r, d, sizeof(d));
			pp_machine__put(&r->machine, "user_stacks", d);
		}
		r->peak_rss_kib = peak_rss_kib();
		snprintf(d, sizeof(d), "%llu", (unsigned long long)r->peak_rss_kib);
		pp_machine__put(&r->machine, "recorder_peak_rss_kib", d);
		write_meta(r, PP_CHUNK_MACHINE, &r->machine);
	}
	r->secs = (double)(pp_mono_ns() - r->t0) / 1e9;
	err = pp_writer__close(r->w);
	r->w = NULL;
	if (!r->fatal && err)
		r->fatal = err;
	r->bytes = (uint64_t)(r->io && pp_io__size(r->io) > 0 ? pp_io__size(r->io) : 0);
	pp_io__free(r->io);
	r->io = NULL;
	if (r->rotating && r->rot.nr_names)
		snprintf(r->out_name, sizeof(r->out_name), "%s", r->rot.names[r->rot.nr_names - 1]);
	r->stopped = 1;
	return r->fatal;
}

const char *pp_recorder__output(const struct pp_recorder *r)
{
	return r->out_name;
}

void pp_recorder__summary(const struct pp_recorder *r, FILE *fp)
{
	uint64_t total = 0, ft_total = 0, lost = 0;
	int agg = r->offcpu || r->lockp || r->mem;
	char sz[32];
	int i;

	for (i = 0; i < r->el->nr_evsels; i++)
		total += r->counts[i];
	if (r->ft)	/* the kernel counts what was read, all events together */
		total += ft_total = pp_ftrace__events(r->ft);
	fmt_bytes(sz, sizeof(sz), (double)r->bytes);
	if (r->fl)
		fprintf(fp, "pp-record: %.3f s, %llu events recorded, flight recorder: %llu dumps "
			"next to %s%s\n", r->secs, (unsigned long long)total,
			(unsigned long long)r->dumps, r->o.output, r->dump_fail ? " (some failed)" : "");
	else if (total || !agg)
		fprintf(fp, "pp-record: %.3f s, %llu events recorded, %s written to %s (%.1f "
			"bytes/event, data compression %.2fx)\n", r->secs, (unsigned long long)total,
			sz, r->out_name, total ? (double)r->bytes / (double)total : 0.0,
			r->data_stored ? (double)r->data_raw / (double)r->data_stored : 0.0);
	else	/* an aggregator alone records no event */
		fprintf(fp, "pp-record: %.3f s, %s written to %s\n", r->secs, sz, r->out_name);
	if (r->rotating)
		fprintf(fp, "  rotation: %llu files%s, the last %s\n", (unsigned long long)r->rot.files,
			r->rot.removed ? " (the oldest removed: --max-files)" : "", r->out_name);
	for (i = 0; i < r->el->nr_evsels; i++) {
		const struct pp_perf_evsel *e = &r->el->evsels[i];

		if (!strcmp(e->name, "sideband") || i == pp_walker__output(r->walker))
			continue;
		if (e->external && r->nr_ft_evsels > 1)
			fprintf(fp, "  %-40s %12s\n", e->name, "(ftrace)");
		else
			fprintf(fp, "  %-40s %12llu\n", e->name,
				(unsigned long long)(e->external ? ft_total : r->counts[i]));
	}
	for (i = 0; i < r->nr_streams; i++) {
		const struct stream *s = &r->streams[i];
		int corrupt = i < r->el->nr_cpus && r->el->rings[i].corrupt;

		lost += s->lost_kernel + s->lost_samples + s->dropped_total;
		if (s->unwritten)
			fprintf(fp, "  cpu%u: %llu records not written (write error)\n", s->cpu,
				(unsigned long long)s->unwritten);
		if (s->lost_kernel || s->lost_samples || s->dropped_total || corrupt)
			fprintf(fp, "  LOST %scpu%u: %llu records (kernel ring full), %llu samples, "
				"%llu records dropped by pp-record (writer queue full)%s\n",
				i < r->el->nr_cpus ? "" : "ftrace ", s->cpu,
				(unsigned long long)s->lost_kernel, (unsigned long long)s->lost_samples,
				(unsigned long long)s->dropped_total, corrupt ? ", ring corrupt" : "");
	}
	if (pp_bpf_filter_opts__active(&r->o.bpf) && (r->filter || r->walker)) {
		uint64_t kept = 0, dropped = 0, k2 = 0, d2 = 0;

		if (!pp_walker__filter_counts(r->walker, &k2, &d2)) {
			kept += k2;
			dropped += d2;
		}
		if (!r->filter || !pp_bpf_filter__counts(r->filter, &k2, &d2))
			fprintf(fp, "  BPF filter: %llu samples kept, %llu dropped in the kernel\n",
				(unsigned long long)(kept + (r->filter ? k2 : 0)),
				(unsigned long long)(dropped + (r->filter ? d2 : 0)));
	}
	if (rec_walker(r))
		walker_summary(r, fp);
	if (r->stepped_down)
		fprintf(fp, "  %llu chunks compressed at a faster level to keep up\n",
			(unsigned long long)r->stepped_down);
	if (agg)
		fprintf(fp, "  %s: %llu aggregated stacks in %llu windows\n",
			r->offcpu ? "offcpu" : r->lockp ? "lock" : r->o.profiler,
			(unsigned long long)r->agg_items, (unsigned long long)r->agg_windows);
	if (r->unwritten_ev || r->fatal)
		fprintf(fp, "  lost: %llu events recorded but not written (write error)\n",
			(unsigned long long)r->unwritten_ev);
	if (r->fatal)
		return;
	if (!lost)
		fprintf(fp, "  lost: none\n");
	else if (ring_full_hint(r))
		fprintf(fp, "  the kernel's rings filled: a larger -m keeps more%s\n",
			ring_full_hint(r) > 1 ? "; for tracepoints at high rates, --ftrace costs "
						"the traced tasks less" : "");
	/* last, and not "WORD:" as the events' lines are: scripts read those */
	if (r->peak_rss_kib)
		fprintf(fp, "  peak RSS: %.1f MiB\n", (double)r->peak_rss_kib / 1024.0);
}

void pp_recorder__free(struct pp_recorder *r)
{
	int i;

	if (!r)
		return;
	if (r->el && !r->stopped)
		pp_perf_evlist__disable(r->el);
	ft_readers_stop(r);
	writer_stop(r);
	pp_writer__close(r->w);	/* not stopped: the file is dropped (pp_output__cleanup()) */
	pp_io__free(r->io);
	pp_ksym_bpf__free(r->ksym);	/* may be on the aggregator's program */
	pp_bpf_filter__free(r->filter);
	pp_bpf_offcpu__free(r->offcpu);
	pp_bpf_lock__free(r->lockp);
	pp_bpf_mem__free(r->mem);
	pp_flight__free(r->fl);
	pp_ftrace__free(r->ft);
	pp_ftpages__free(r->ft_dec);
	free(r->ft_rec);
	free(r->trigger);
	if (r->rotating || r->fl)
		pp_rotate__exit(&r->rot);
	for (i = 0; r->streams && i < r->nr_streams; i++) {
		free(r->streams[i].buf);
		for (int k = 0; k < HOLD_N; k++)
			free(r->streams[i].hold[k].own);
		pp_reccache_enc__free(r->streams[i].enc);
	}
	free(r->streams);
	for (i = 0; r->pool && i < r->nr_pool; i++)	/* the rest are in streams or queued */
		free(r->pool[i]);
	for (i = 0; r->q && i < r->qlen; i++)
		free(r->q[(r->qhead + i) % r->qcap].buf);
	free(r->pool);
	free(r->q);
	free(r->counts);
	free(r->layout);
	free(r->time_off);
	pp_syms__free(r->syms);
	pp_unwind__free(r->unw);
	pp_buf__exit(&r->side);
	pp_buf__exit(&r->side_w);
	pp_buf__exit(&r->machine);
	pp_walker__free(r->walker);
	pp_perf_evlist__free(r->el);
	if (r->sync_ready) {
		pthread_mutex_destroy(&r->lock);
		sem_destroy(&r->wake);
	}
	free(r);
}
