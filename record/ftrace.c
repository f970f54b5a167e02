// SPDX-License-Identifier: MIT
/*
 * The ftrace source of pp-record --ftrace (and pp-analyze --live --ftrace):
 * tracepoints read from a tracefs
 * instance's per-CPU ring buffers (per_cpu/cpuN/trace_pipe_raw) instead of
 * perf_event rings. A tracepoint costs the traced task less on this path
 * (no perf sample to prepare, no perf ring to reserve), which is where the
 * highest event rates are lost. Each event read becomes the PERF_RECORD_SAMPLE
 * its perf_event would have written (spec/pp-record.md, "--ftrace"), so the
 * file and every reader stay as they are.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pthread.h>
#include <time.h>

#include <traceevent/kbuffer.h>
#include <tracefs/tracefs.h>

#include "pp/ftpages.h"
#include "pp/perf.h"
#include "record.h"

#define FT_PREFIX	"pp-record-"
#define FT_CLOCK_SUFFIX	"-clock"
#define FT_SYNC_NS	250000000ull	/* the clocks' offset is measured this often */
#define FT_SYNC_TRIES	4
#define FT_TGIDS	4096		/* tid -> tgid cache slots, a power of two */
#define FT_COMMIT_MASK	((1ul << 27) - 1)	/* a page header's commit: data bytes */
#define FT_MISSED_STORED (1ul << 30)		/* ... and a lost count after them */

struct ft_event {
	uint16_t type;			/* its tracefs id, the records' common_type */
	uint64_t sample_type;
	const uint64_t *ids;		/* per CPU index (pp_perf_evsel.ids) */
	int stride;			/* ids of one CPU index (the evlist's threads) */
	int tag;			/* the caller's, given back with its records */
};

struct pp_ftrace {
	struct tracefs_instance *inst;
	int nr_cpus;
	const int *cpus;
	int *fds;
	uint64_t *dropped_seen;		/* per CPU: kernel drops already reported */
	uint64_t *last_ts;		/* per CPU: the time of the last event read */
	struct ft_event *evs;
	int nr_evs;
	int16_t *by_type;		/* common_type -> evs index + 1; 0: not ours */
	struct pp_ftpages *dec;		/* pp_ftrace__read(): pages into records */
	int dec_ci;			/* the CPU index it is set for, -1 none */
	uint8_t *page;
	size_t page_size;
	int max_pages;			/* read at most about two rings' worth at a time */
	/* trace_clock local: the offset to CLOCK_MONOTONIC, from a marker instance */
	int local;
	struct tracefs_instance *clk;
	int marker_fd;
	int *clk_fds;
	struct kbuffer *clk_kb;
	uint8_t *clk_page;
	int64_t clock_offset;		/* CLOCK_MONOTONIC - trace clock, ns */
	uint64_t synced_ns;		/* when it was measured */
	unsigned int sync_seq;
	pthread_mutex_t clock_lock;	/* readers of several CPUs ask for the offset */
	struct { int32_t tid, tgid; } tgids[FT_TGIDS];
	int running;
};

static struct pp_ftrace *exit_ft;	/* what the exit handler takes down */

/* Instances named pp-record-PID whose recorder died without taking them down. */
static int stale_cb(const char *name, void *ctx)
{
	char *end;
	long pid;

	(void)ctx;
	if (strncmp(name, FT_PREFIX, strlen(FT_PREFIX)))
		return 0;
	pid = strtol(name + strlen(FT_PREFIX), &end, 10);
	if ((*end && strcmp(end, FT_CLOCK_SUFFIX)) || end == name + strlen(FT_PREFIX) || pid <= 0)
		return 0;	/* not one of ours */
	/* ours is not made yet: one of our pid is a dead recorder's */
	if (pid == getpid() || (kill((pid_t)pid, 0) && errno == ESRCH)) {
		struct tracefs_instance *i = tracefs_instance_alloc(NULL, name);

		if (i) {
			tracefs_instance_destroy(i);
			tracefs_instance_free(i);
		}
	}
	return 0;
}

static void clock_setup(struct pp_ftrace *ft, const char *name);

static void take_down(void)
{
	if (exit_ft)
		pp_ftrace__free(exit_ft);
}

/**
 * ftrace_new() - a tracefs instance of its own, stopped, for @cpus.
 * @cpus, @nr_cpus: the CPUs to read (kept by reference).
 * @buf_bytes: ring bytes per CPU; @err, @errlen: why it failed.
 *
 * The instance clocks events with the "local" trace clock, whose offset to
 * CLOCK_MONOTONIC (the clock of the perf records beside them) it measures
 * (clock_setup()), or with CLOCK_MONOTONIC itself ("mono") where that
 * cannot be; drops new events rather than overwriting old ones when a ring
 * is full, and is destroyed at exit, normal or not; one
 * left by a recorder that was killed is destroyed by the next one.
 * Return: the source, or NULL.
 */
static struct pp_ftrace *ftrace_new(const int *cpus, int nr_cpus, size_t buf_bytes, char *err,
				     size_t errlen)
{
	struct pp_ftrace *ft = calloc(1, sizeof(*ft));
	char name[64], kb[32];
	int i;

	if (!ft || !(ft->fds = malloc((size_t)nr_cpus * sizeof(int))) ||
	    !(ft->dropped_seen = calloc((size_t)nr_cpus, sizeof(uint64_t))) ||
	    !(ft->last_ts = calloc((size_t)nr_cpus, sizeof(uint64_t))) ||
	    !(ft->by_type = calloc(65536, sizeof(int16_t)))) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		goto fail;
	}
	for (i = 0; i < nr_cpus; i++)
		ft->fds[i] = -1;
	ft->marker_fd = -1;
	pthread_mutex_init(&ft->clock_lock, NULL);
	ft->cpus = cpus;
	ft->nr_cpus = nr_cpus;
	tracefs_instances_walk(stale_cb, NULL);
	snprintf(name, sizeof(name), FT_PREFIX "%d", (int)getpid());
	ft->inst = tracefs_instance_create(name);
	if (!ft->inst) {
		snprintf(err, errlen, "cannot create the tracefs instance %s: %s", name, strerror(errno));
		goto fail;
	}
	exit_ft = ft;
	atexit(take_down);
	snprintf(kb, sizeof(kb), "%zu", buf_bytes >> 10 ? buf_bytes >> 10 : 1);
	if (tracefs_instance_file_write(ft->inst, "tracing_on", "0") < 0 ||
	    tracefs_instance_file_write(ft->inst, "trace_clock", "mono") < 0 ||
	    tracefs_instance_file_write(ft->inst, "options/overwrite", "0") < 0 ||
	    tracefs_instance_file_write(ft->inst, "buffer_size_kb", kb) < 0) {
		snprintf(err, errlen, "cannot set up the tracefs instance %s: %s", name, strerror(errno));
		goto fail;
	}
	/* a sub-buffer is a page unless the kernel was told otherwise */
	ft->page_size = (size_t)sysconf(_SC_PAGESIZE);
	{
		long long v;

		if (!tracefs_instance_file_read_number(ft->inst, "buffer_subbuf_size_kb", &v) &&
		    v > 0 && v <= 1024)
			ft->page_size = (size_t)v << 10;
	}
	/* a bound on one read's pages: the ring's and more (its reader pages) */
	ft->max_pages = (int)(buf_bytes / ft->page_size) * 2 + 8;
	ft->page = malloc(ft->page_size);
	ft->dec = pp_ftpages__new();
	ft->dec_ci = -1;
	if (!ft->page || !ft->dec) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		goto fail;
	}
	for (i = 0; i < nr_cpus; i++) {
		char rel[64];

		snprintf(rel, sizeof(rel), "per_cpu/cpu%d/trace_pipe_raw", cpus[i]);
		ft->fds[i] = tracefs_instance_file_open(ft->inst, rel, O_RDONLY | O_NONBLOCK);
		if (ft->fds[i] < 0) {
			snprintf(err, errlen, "cannot open %s: %s", rel, strerror(errno));
			goto fail;
		}
	}
	clock_setup(ft, name);
	return ft;
fail:
	{
		int e = errno;

		pp_ftrace__free(ft);
		errno = e;
	}
	return NULL;
}

/**
 * ftrace_add() - record the tracepoint @sys:@name through @ft.
 * @type: its tracefs id; @sample_type: the records to make (a subset of
 * identifier, ip, tid, time, id, stream_id, cpu, period, raw);
 * @ids: its ids per CPU index of the evlist (kept by reference), @stride
 * ids apart; @filter: its ftrace filter or NULL; @tag: given back with each
 * of its records (pp_ftrace__read()).
 * Return: 0, -EOPNOTSUPP (a sample field ftrace has not: stacks, registers),
 * -EEXIST (the event was added already), -EINVAL (the kernel rejected the
 * filter) or another -errno; @err says why.
 */
static int ftrace_add(struct pp_ftrace *ft, const char *sys, const char *name, uint16_t type,
		      uint64_t sample_type, const uint64_t *ids, int stride, const char *filter,
		      int tag, char *err, size_t errlen)
{
	struct ft_event *n;

	if (sample_type & ~(uint64_t)PP_FTPAGE_SAMPLE_TYPES) {
		snprintf(err, errlen, "%s:%s: --ftrace records no stacks, registers or "
			 "addresses (those need perf_event rings)", sys, name);
		return -EOPNOTSUPP;
	}
	if (ft->by_type[type]) {
		snprintf(err, errlen, "%s:%s given twice: a tracefs instance has one filter "
			 "per event (record it without --ftrace)", sys, name);
		return -EEXIST;
	}
	if (ft->nr_evs >= INT16_MAX) {
		snprintf(err, errlen, "%s:%s: too many events", sys, name);
		return -E2BIG;
	}
	n = realloc(ft->evs, (size_t)(ft->nr_evs + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	ft->evs = n;
	if (filter && *filter &&
	    tracefs_event_file_write(ft->inst, sys, name, "filter", filter) < 0) {
		int e = errno;

		snprintf(err, errlen, "filter '%s' rejected for %s:%s: %s", filter, sys, name,
			 strerror(e));
		return e == EINVAL ? -EINVAL : -e;
	}
	if (tracefs_event_enable(ft->inst, sys, name) < 0) {
		int e = errno ? errno : ENOENT;

		snprintf(err, errlen, "cannot enable %s:%s in the tracefs instance: %s", sys,
			 name, strerror(e));
		return -e;
	}
	n[ft->nr_evs] = (struct ft_event){ .type = type, .sample_type = sample_type,
					   .ids = ids, .stride = stride, .tag = tag };
	ft->by_type[type] = (int16_t)++ft->nr_evs;
	return 0;
}

/**
 * pp_ftrace__set_pids() - only the tasks @pids (and, with @children, the
 * tasks they fork from now on), by the instance's set_event_pid.
 * Return: 0 or -errno.
 */
int pp_ftrace__set_pids(struct pp_ftrace *ft, const int *pids, int nr, int children)
{
	char buf[32];
	int fd, i, ret = 0;

	if (tracefs_instance_file_write(ft->inst, "options/event-fork", children ? "1" : "0") < 0)
		return -errno;
	fd = tracefs_instance_file_open(ft->inst, "set_event_pid", O_WRONLY | O_TRUNC);
	if (fd < 0)
		return -errno;
	/* one write per pid: the file parses each write on its own */
	for (i = 0; i < nr && !ret; i++) {
		int l = snprintf(buf, sizeof(buf), "%d ", (int)pids[i]);

		if (write(fd, buf, (size_t)l) != l)
			ret = -errno;
	}
	close(fd);
	return ret;
}

/* See include/pp/tracefs.h. */
int pp_ftrace__open_evlist(struct pp_perf_evlist *el, const struct pp_evdescs *ds,
			   struct pp_ftrace **ftp, int *bad, char *err, size_t errlen)
{
	size_t ring = (size_t)(el->ftrace_pages ? el->ftrace_pages : el->mmap_pages) *
		      (size_t)sysconf(_SC_PAGESIZE);
	int i, n = 0, ret, nt = el->nr_threads ? el->nr_threads : 1;
	struct pp_ftrace *ft;

	*ftp = NULL;
	*bad = -1;
	ft = ftrace_new(el->cpus, el->nr_cpus, ring, err, errlen);
	if (!ft)	/* not -ENOENT, which says no tracepoint was given */
		return !errno ? -ENOMEM : errno == ENOENT ? -ENODEV : -errno;
	for (i = 0; i < el->nr_evsels && i < ds->nr; i++) {
		const struct pp_evdesc *d = &ds->v[i];

		if (!el->evsels[i].external)
			continue;
		n++;
		ret = ftrace_add(ft, d->sys, d->event, (uint16_t)d->attr.config,
				 d->attr.sample_type, el->evsels[i].ids, nt, d->filter, i, err, errlen);
		if (ret) {
			*bad = i;
			goto fail;
		}
	}
	ret = -ENOENT;
	if (!n) {
		snprintf(err, errlen, "--ftrace: no tracepoint to record");
		goto fail;
	}
	for (i = 0; i < el->nr_cpus; i++) {
		ret = pp_perf_evlist__add_pollfd(el, ft->fds[i]);
		if (ret) {
			snprintf(err, errlen, "--ftrace: epoll: %s", strerror(-ret));
			goto fail;
		}
	}
	*ftp = ft;
	return 0;
fail:
	pp_ftrace__free(ft);
	return ret;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Whether the "local" trace clock (sched_clock, what trace-cmd uses) agrees
 * across CPUs: with the TSC as clocksource it does. Elsewhere the instance
 * keeps "mono", which costs the traced task more per event (on this VM,
 * two getppid threads: 13.4M events/s with local, 11.0M with mono).
 */
static int local_clock_ok(void)
{
	char buf[32] = "";
	int fd = open("/sys/devices/system/clocksource/clocksource0/current_clocksource",
		      O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 && !strncmp(buf, "tsc\n", 4);
}

/*
 * The clock instance: "local" like the recording one, no event, a small
 * ring that only our trace_marker writes reach.
 */
static int clock_open(struct pp_ftrace *ft, const char *name)
{
	char cname[80];

	snprintf(cname, sizeof(cname), "%s" FT_CLOCK_SUFFIX, name);
	ft->clk = tracefs_instance_create(cname);
	if (!ft->clk || !(ft->clk_fds = malloc((size_t)ft->nr_cpus * sizeof(int))) ||
	    !(ft->clk_page = malloc(ft->page_size)) ||
	    !(ft->clk_kb = kbuffer_alloc(KBUFFER_LSIZE_SAME_AS_HOST, KBUFFER_ENDIAN_SAME_AS_HOST)))
		return -1;
	for (int i = 0; i < ft->nr_cpus; i++)
		ft->clk_fds[i] = -1;
	if (tracefs_instance_file_write(ft->clk, "buffer_size_kb", "16") < 0 ||
	    tracefs_instance_file_write(ft->clk, "trace_clock", "local") < 0 ||
	    tracefs_instance_file_write(ft->clk, "tracing_on", "1") < 0)
		return -1;
	ft->marker_fd = tracefs_instance_file_open(ft->clk, "trace_marker", O_WRONLY);
	if (ft->marker_fd < 0)
		return -1;
	/* a marker lands on the CPU its writer runs on: any of all */
	for (int i = 0; i < ft->nr_cpus; i++) {
		char rel[64];

		snprintf(rel, sizeof(rel), "per_cpu/cpu%d/trace_pipe_raw", ft->cpus[i]);
		ft->clk_fds[i] = tracefs_instance_file_open(ft->clk, rel, O_RDONLY | O_NONBLOCK);
		if (ft->clk_fds[i] < 0)
			return -1;
	}
	return 0;
}

/*
 * Measure CLOCK_MONOTONIC - the trace clock: write markers to the clock
 * instance between two CLOCK_MONOTONIC reads and read their trace times;
 * of FT_SYNC_TRIES, the one whose write took least (the error is at most
 * half of it, a few hundred ns). Return: 0, or -1 (no marker came back).
 */
static int clock_sync(struct pp_ftrace *ft)
{
	uint64_t t0[FT_SYNC_TRIES], t1[FT_SYNC_TRIES], best_span = UINT64_MAX;
	int64_t best = 0;
	unsigned int seq = ft->sync_seq;
	int found = 0;

	for (int k = 0; k < FT_SYNC_TRIES; k++) {
		char msg[32];
		int n = snprintf(msg, sizeof(msg), "pp-clock %u", seq + (unsigned int)k);

		t0[k] = mono_ns();
		if (write(ft->marker_fd, msg, (size_t)n) != n)
			return -1;
		t1[k] = mono_ns();
	}
	ft->sync_seq += FT_SYNC_TRIES;
	for (int i = 0; i < ft->nr_cpus; i++) {
		while (read(ft->clk_fds[i], ft->clk_page, ft->page_size) > 0) {
			unsigned long long ts;
			void *data;

			if (kbuffer_load_subbuffer(ft->clk_kb, ft->clk_page) < 0)
				continue;
			for (data = kbuffer_read_event(ft->clk_kb, &ts); data;
			     data = kbuffer_next_event(ft->clk_kb, &ts)) {
				int size = kbuffer_event_size(ft->clk_kb);
				const char *m = memmem(data, (size_t)size, "pp-clock ", 9);
				unsigned int k;

				if (!m || sscanf(m + 9, "%u", &k) != 1 || k - seq >= FT_SYNC_TRIES)
					continue;
				k -= seq;
				if (t1[k] - t0[k] < best_span) {
					best_span = t1[k] - t0[k];
					best = (int64_t)(t0[k] + (t1[k] - t0[k]) / 2) - (int64_t)ts;
				}
				found = 1;
			}
		}
	}
	if (!found)
		return -1;
	ft->clock_offset = best;
	ft->synced_ns = t1[FT_SYNC_TRIES - 1];
	return 0;
}

/*
 * Go "local" when the clocks allow it and the offset can be measured; else
 * "mono" (the offset 0). Before the instance starts.
 */
static void clock_setup(struct pp_ftrace *ft, const char *name)
{
	if (local_clock_ok() && !clock_open(ft, name) && !clock_sync(ft) &&
	    tracefs_instance_file_write(ft->inst, "trace_clock", "local") >= 0) {
		ft->local = 1;
		return;
	}
	ft->local = 0;
	ft->clock_offset = 0;
	tracefs_instance_file_write(ft->inst, "trace_clock", "mono");
}

/**
 * pp_ftrace__clock_offset() - what to add to the pages' times for
 * CLOCK_MONOTONIC, measured again when FT_SYNC_NS old.
 */
int64_t pp_ftrace__clock_offset(struct pp_ftrace *ft)
{
	int64_t off;

	pthread_mutex_lock(&ft->clock_lock);
	if (ft->local && mono_ns() - ft->synced_ns > FT_SYNC_NS)
		clock_sync(ft);	/* on failure, the last offset stays */
	off = ft->clock_offset;
	pthread_mutex_unlock(&ft->clock_lock);
	return off;
}

/** pp_ftrace__fd() - the fd of CPU index @ci's ring (to poll). */
int pp_ftrace__fd(const struct pp_ftrace *ft, int ci)
{
	return ft->fds[ci];
}

/** pp_ftrace__start() - turn the instance on. Return: 0 or -errno. */
int pp_ftrace__start(struct pp_ftrace *ft)
{
	if (tracefs_instance_file_write(ft->inst, "tracing_on", "1") < 0)
		return -errno;
	ft->running = 1;
	return 0;
}

/** pp_ftrace__stop() - turn it off; what it holds can still be read. */
void pp_ftrace__stop(struct pp_ftrace *ft)
{
	if (ft->running)
		tracefs_instance_file_write(ft->inst, "tracing_on", "0");
	ft->running = 0;
}

static inline unsigned int tgid_slot(int32_t tid)
{
	return ((uint32_t)tid * 2654435761u) >> 20 & (FT_TGIDS - 1);
}

/*
 * The process of thread @tid, for pp-analyze --live: what /proc told before
 * (one slot per hash: a collision asks again), else /proc's word;
 * PP_FTPAGE_PID_UNKNOWN when the task is gone (the session's task table
 * may know it from a FORK record).
 */
static uint32_t tgid_of(void *ctx, int32_t tid)
{
	struct pp_ftrace *ft = ctx;
	unsigned int h = tgid_slot(tid);
	char path[64], buf[512];
	uint32_t tgid = PP_FTPAGE_PID_UNKNOWN;
	ssize_t n;
	int fd;

	if (ft->tgids[h].tid == tid)
		return (uint32_t)ft->tgids[h].tgid;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n > 0) {
			char *p;

			buf[n] = 0;
			p = strstr(buf, "\nTgid:");
			if (p)
				tgid = (uint32_t)strtol(p + 6, NULL, 10);
		}
	}
	if (tgid != PP_FTPAGE_PID_UNKNOWN) {
		ft->tgids[h].tid = tid;
		ft->tgids[h].tgid = (int32_t)tgid;
	}
	return tgid;
}

/*
 * The kernel's counts for CPU index @ci, from per_cpu/cpuN/stats: events it
 * dropped (its ring was full; without overwrite, no page says so: only an
 * overrun in overwrite mode marks the next page read as missing events) and
 * events read.
 */
static void kernel_stats(struct pp_ftrace *ft, int ci, uint64_t *dropped, uint64_t *read_ev)
{
	char rel[64], *txt, *p;

	*dropped = *read_ev = 0;
	snprintf(rel, sizeof(rel), "per_cpu/cpu%d/stats", ft->cpus[ci]);
	txt = tracefs_instance_file_read(ft->inst, rel, NULL);
	if (!txt)
		return;
	if ((p = strstr(txt, "dropped events:")))
		*dropped = strtoull(p + 15, NULL, 10);
	if ((p = strstr(txt, "read events:")))
		*read_ev = strtoull(p + 12, NULL, 10);
	free(txt);
}

/** pp_ftrace__dropped() - events CPU index @ci's ring dropped since the last call. */
uint64_t pp_ftrace__dropped(struct pp_ftrace *ft, int ci)
{
	uint64_t d, rd, n = 0;

	kernel_stats(ft, ci, &d, &rd);
	if (d > ft->dropped_seen[ci])
		n = d - ft->dropped_seen[ci];
	ft->dropped_seen[ci] = d;
	return n;
}

/** pp_ftrace__events() - events read from the instance so far, all CPUs. */
uint64_t pp_ftrace__events(struct pp_ftrace *ft)
{
	uint64_t d, rd, n = 0;

	for (int ci = 0; ci < ft->nr_cpus; ci++) {
		kernel_stats(ft, ci, &d, &rd);
		n += rd;
	}
	return n;
}

/** pp_ftrace__page_size() - the bytes of a ring page (sub-buffer). */
size_t pp_ftrace__page_size(const struct pp_ftrace *ft)
{
	return ft->page_size;
}

/**
 * pp_ftrace__types() - the events of CPU index @ci as DATA encoding 3
 * describes them, into @t (room for pp_ftrace__nr_types()), tags the
 * evsel indexes. Return: how many.
 */
int pp_ftrace__types(const struct pp_ftrace *ft, int ci, struct pp_ftpage_type *t)
{
	for (int i = 0; i < ft->nr_evs; i++) {
		const struct ft_event *e = &ft->evs[i];

		t[i] = (struct pp_ftpage_type){ .type = e->type, .id = e->ids[ci * e->stride],
						.sample_type = e->sample_type, .tag = e->tag };
	}
	return ft->nr_evs;
}

int pp_ftrace__nr_types(const struct pp_ftrace *ft)
{
	return ft->nr_evs;
}

/**
 * pp_ftrace__pages() - read what CPU index @ci's ring holds, page by page:
 * each into @slot(@ctx) (room for pp_ftrace__page_size() bytes), then
 * @done(@ctx, its bytes, its time): its header and its committed data,
 * what DATA encoding 3 stores of it.
 * @final: the instance is stopped, read all.
 *
 * While the instance runs, the reading stops at the second page in a row
 * that is not three quarters full. Such a page is the one being written,
 * which the kernel hands out by copying its events one by one (the next read
 * of it too), or the rest of one read so before, which full pages may
 * follow. Reading on while a busy writer keeps up the pace would copy every
 * event so, and never end; stopping at the first such page would leave
 * full pages of older events for the next wake-up, behind the newer events
 * of other CPUs (pp-analyze --live merges as it reads).
 * Return: pages read.
 */
uint64_t pp_ftrace__pages(struct pp_ftrace *ft, int ci, int final, uint8_t *(*slot)(void *ctx),
			  void (*done)(void *ctx, size_t len, uint64_t ts), void *ctx)
{
	const size_t hdr = 8 + sizeof(long);
	uint64_t nr = 0;
	int pages, partial = 0;

	for (pages = 0; pages < ft->max_pages * (final ? 2 : 1) && partial < 2; pages++) {
		uint8_t *page = slot(ctx);
		ssize_t got = read(ft->fds[ci], page, ft->page_size);
		unsigned long commit;
		uint64_t ts;
		size_t len;

		if (got < (ssize_t)hdr)
			break;
		memcpy(&ts, page, 8);
		memcpy(&commit, page + 8, sizeof(long));
		len = hdr + (commit & FT_COMMIT_MASK);
		if (commit & FT_MISSED_STORED)
			len += sizeof(long);
		if (len > (size_t)got)
			len = (size_t)got;
		if (!final && len - hdr < ft->page_size / 4 * 3)
			partial++;
		else
			partial = 0;
		done(ctx, len, ts);
		nr++;
	}
	return nr;
}

struct read_ctx {
	struct pp_ftrace *ft;
	int ci;
	uint64_t nr;
	pp_ftpage_emit_fn emit;
	void *ctx;
};

static uint8_t *read_slot(void *ctx)
{
	return ((struct read_ctx *)ctx)->ft->page;
}

static void read_emit(void *ctx, const struct perf_event_header *h, int tag, uint64_t ts)
{
	struct read_ctx *c = ctx;

	if (tag >= 0)
		c->ft->last_ts[c->ci] = ts;
	c->emit(c->ctx, h, tag, ts);
}

static void read_done(void *ctx, size_t len, uint64_t ts)
{
	struct read_ctx *c = ctx;
	int n = pp_ftpages__page(c->ft->dec, c->ft->page, len, tgid_of, c->ft, read_emit, c);

	(void)ts;
	if (n > 0)
		c->nr += (uint64_t)n;
}

/**
 * pp_ftrace__read() - read what CPU index @ci's ring holds, each event as a
 * perf record to @emit, with its event's tag and time; events the kernel
 * dropped as PERF_RECORD_LOST, with tag -1 (pp_ftpages__page()).
 * @final: the instance is stopped, take the kernel's drop count now.
 * Return: events read.
 */
uint64_t pp_ftrace__read(struct pp_ftrace *ft, int ci, int final,
			 void (*emit)(void *ctx, const struct perf_event_header *h, int tag,
				      uint64_t ts), void *ctx)
{
	struct read_ctx c = { ft, ci, 0, emit, ctx };
	struct pp_ftpage_type t[ft->nr_evs ? ft->nr_evs : 1];
	uint64_t d;

	if (!ft->nr_evs)
		return 0;
	if (ft->dec_ci != ci) {
		if (pp_ftpages__set(ft->dec, (uint32_t)ft->cpus[ci], (uint32_t)ft->page_size,
				    (int)sizeof(long), __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__, t,
				    pp_ftrace__types(ft, ci, t)))
			return 0;
		ft->dec_ci = ci;
	}
	pp_ftpages__set_clock(ft->dec, pp_ftrace__clock_offset(ft));
	pp_ftrace__pages(ft, ci, final, read_slot, read_done, &c);
	if (final && (d = pp_ftrace__dropped(ft, ci)))
		pp_ftpages__lost(ft->dec, d, ft->last_ts[ci], emit, ctx);
	return c.nr;
}

/** pp_ftrace__free() - stop, destroy the instance, free; accepts NULL. */
void pp_ftrace__free(struct pp_ftrace *ft)
{
	int i;

	if (!ft)
		return;
	if (exit_ft == ft)
		exit_ft = NULL;
	for (i = 0; ft->fds && i < ft->nr_cpus; i++) {
		if (ft->fds[i] >= 0)
			close(ft->fds[i]);
	}
	if (ft->inst) {
		pp_ftrace__stop(ft);
		tracefs_instance_destroy(ft->inst);
		tracefs_instance_free(ft->inst);
	}
	for (i = 0; ft->clk_fds && i < ft->nr_cpus; i++) {
		if (ft->clk_fds[i] >= 0)
			close(ft->clk_fds[i]);
	}
	free(ft->clk_fds);
	free(ft->clk_page);
	if (ft->marker_fd >= 0)
		close(ft->marker_fd);
	if (ft->clk) {
		tracefs_instance_destroy(ft->clk);
		tracefs_instance_free(ft->clk);
	}
	if (ft->clk_kb)
		kbuffer_free(ft->clk_kb);
	pp_ftpages__free(ft->dec);
	free(ft->page);
	free(ft->evs);
	free(ft->by_type);
	free(ft->dropped_seen);
	free(ft->last_ts);
	free(ft->fds);
	free(ft);
}
