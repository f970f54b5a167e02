// SPDX-License-Identifier: MIT
/*
 * -g by the kernel-side walker (spec/pp-record.md, "Whole stacks: the
 * kernel-side walker"): the recorder's side of bpf/unwind.bpf.h.
 *
 * Processes: a process is known once its executable mappings are in the
 * walker's maps. The drain asks for one when a sample of it came without a
 * walk (the walker did not know it), when a known process forks, and again
 * when a known process execs or maps code; a thread of its own reads
 * /proc/PID/maps, names each mapped file's DSO (one per device and inode,
 * one table per build-id), writes the mappings, then builds the tables it
 * lacks (record/cfi.c) and loads them. Until a table is in, the walker
 * walks that code by frame pointer and counts it. The drain never waits
 * for the thread: a queue under a lock held for a push or a pop.
 *
 * The join: the walker writes its walk to the CPU's ring just before the
 * kernel writes the sample, so a walk waits (a few per ring) for the next
 * sample of its thread on that ring, which an interrupt's own walk and
 * sample may come before (the latest walk of the thread is taken). A walk
 * whose sample was dropped after the program ran (a tracepoint's filter, a
 * full ring) is too old for the next one and is let go. A tracepoint's
 * sample is stamped after its program ran, a sampling event's (cpu-clock)
 * before: a walk may be a little younger than its sample (UW_SKEW_NS).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <bpf/libbpf.h>

#include "pp/bpf.h"
#include "pp/elf.h"
#include "pp/sample.h"
#include "record.h"
#include "bpf-internal.h"
#include "../bpf/unwind.h"

#define UW_WAIT		4		/* walks waiting for their samples, per ring */
#define UW_AGE_NS	10000000ull	/* a walk older than a sample by more is not its */
#define UW_SKEW_NS	1000000ull	/* or younger by more (see pp_uwalk__join()) */
#define UW_QUEUE	4096		/* requests waiting for the thread */
#define UW_PIDS		8192		/* the process set's slots (a power of two) */
#define UW_MAX_PROCS	4000		/* processes known (the walker's map holds 4096) */
#define UW_MAX_DSOS	1000		/* tables (its map of maps holds 1024) */
#define UW_MAX_ROWS	(4u << 20)	/* rows in all: 64 MiB of kernel memory */

struct uw_wait {
	uint64_t time;
	struct pp_unwind_out o;
};

struct uw_ring {
	int n;
	struct uw_wait w[UW_WAIT];	/* oldest first */
};

enum { REQ_SCAN, REQ_FORGET, REQ_PREBUILD, REQ_COPY };

struct uw_req {
	uint32_t pid;
	uint32_t kind;
	uint32_t parent;	/* REQ_COPY's */
};

/* A process slot: 0 empty, else pid; state below. */
struct uw_pid {
	uint32_t pid;
	uint8_t state;		/* PID_QUEUED, PID_KNOWN, PID_GONE (a tombstone) */
	uint8_t pending;	/* a scan waits in the queue */
	uint64_t scanned;	/* when its last scan began (CLOCK_MONOTONIC ns), or 0 */
	uint64_t arg_start;	/* its mm->arg_start as the walker last saw it, or 0 */
};

enum { PID_FREE, PID_QUEUED, PID_KNOWN, PID_GONE };

struct uw_dso {
	uint64_t dev, ino;
	uint8_t bid[PP_ELF_BUILD_ID_MAX];
	int bid_size;
	uint32_t id;		/* the walker's: 0 when it has no table */
	long alias;		/* the DSO of the same build-id whose table it shares, or -1 */
	int built;		/* its table was asked for */
};

struct pp_uwalk {
	struct pp_bpf_unwind_maps m;	/* the walker's maps */
	int have_maps;		/* else the join only (tests) */
	int all;		/* every process is recorded (not a workload, -p) */
	int widened;		/* the join sees every task's samples, not the targets' */
	int nr_rings;
	struct uw_ring *rings;

	pthread_mutex_t lock;	/* the queue, the process set, the counters below */
	int efd;		/* wakes the thread: a request queued, or stop */
	struct ring_buffer *asks;	/* the walker's unknown processes (unwind_ask) */
	pthread_t thread;
	int started, stop;
	int idle;		/* the thread waits: nothing queued, no table to build */
	struct uw_req q[UW_QUEUE];
	unsigned int qhead, qlen;
	struct uw_pid pids[UW_PIDS];
	unsigned int nr_pids, nr_gone;
	char *prebuild;		/* a program about to run (REQ_PREBUILD) */

	/* the thread's */
	struct uw_dso *dsos;
	size_t nr_dsos, cap_dsos;
	uint32_t next_id;
	struct uw_build {
		long dso;
		char *path, *alt;	/* map_files/..., the mapped path */
	} builds[UW_MAX_DSOS];
	unsigned int nr_builds;

	/* counts: the drain's (no lock), the thread's (under lock) */
	struct pp_uwalk_stats st;
	uint64_t dso_rows, dsos_loaded, dso_failed, build_ns, procs;
	uint64_t forked;	/* children known as their parent's copy */
};

/* ---- the process set (under w->lock) ---- */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * The set again without its tombstones: with hosts' process churn they
 * would fill every free slot, and a pid not in the set would then be sought
 * through all of them.
 */
static void pids_rehash(struct pp_uwalk *w)
{
	struct uw_pid *old = malloc(sizeof(w->pids));

	if (!old)
		return;	/* slower lookups, until the next exit */
	memcpy(old, w->pids, sizeof(w->pids));
	memset(w->pids, 0, sizeof(w->pids));
	for (unsigned int j = 0; j < UW_PIDS; j++) {
		unsigned int i = (old[j].pid * 2654435761u) & (UW_PIDS - 1);

		if (old[j].state != PID_QUEUED && old[j].state != PID_KNOWN)
			continue;
		while (w->pids[i].state != PID_FREE)
			i = (i + 1) & (UW_PIDS - 1);
		w->pids[i] = old[j];
	}
	w->nr_gone = 0;
	free(old);
}

static struct uw_pid *pid_slot(struct pp_uwalk *w, uint32_t pid, int add)
{
	unsigned int i = (pid * 2654435761u) & (UW_PIDS - 1);
	struct uw_pid *tomb = NULL;

	for (unsigned int n = 0; n < UW_PIDS; n++, i = (i + 1) & (UW_PIDS - 1)) {
		struct uw_pid *p = &w->pids[i];

		if (p->state == PID_FREE) {
			if (!add)
				return NULL;
			if (w->nr_pids >= UW_MAX_PROCS)
				return NULL;
			if (tomb) {
				p = tomb;
				w->nr_gone--;
			}
			*p = (struct uw_pid){ .pid = pid, .state = PID_QUEUED };
			w->nr_pids++;
			return p;
		}
		if (p->state == PID_GONE) {
			if (!tomb)
				tomb = p;
			continue;
		}
		if (p->pid == pid)
			return p;
	}
	if (add && tomb && w->nr_pids < UW_MAX_PROCS) {
		*tomb = (struct uw_pid){ .pid = pid, .state = PID_QUEUED };
		w->nr_gone--;
		w->nr_pids++;
	}
	return add ? tomb : NULL;
}

static void wake(struct pp_uwalk *w)
{
	uint64_t one = 1;

	if (w->efd >= 0 && write(w->efd, &one, sizeof(one)) < 0) {
		/* the counter is full: the thread is awake */
	}
}

static int push_req(struct pp_uwalk *w, struct uw_req rq)
{
	if (w->qlen == UW_QUEUE)
		return -ENOSPC;	/* asked again by its next sample */
	w->q[(w->qhead + w->qlen) % UW_QUEUE] = rq;
	w->qlen++;
	wake(w);
	return 0;
}

static int push(struct pp_uwalk *w, uint32_t pid, uint32_t kind)
{
	return push_req(w, (struct uw_req){ pid, kind, 0 });
}

enum { ASK_NEW = 1, ASK_KNOWN = 2 };

/*
 * Queue a scan of @pid when @how allows: ASK_NEW, a process not known yet
 * (it is then); ASK_KNOWN, a known one (its maps changed).
 */
static struct uw_pid *ask_locked(struct pp_uwalk *w, uint32_t pid, int how)
{
	unsigned int before = w->nr_pids;
	struct uw_pid *p = pid_slot(w, pid, how & ASK_NEW);

	if (p && !p->pending && ((how & ASK_KNOWN) || w->nr_pids > before))
		p->pending = !push(w, pid, REQ_SCAN);
	return p;
}

static void ask(struct pp_uwalk *w, uint32_t pid, int how)
{
	if (!pid || !w->have_maps)
		return;
	pthread_mutex_lock(&w->lock);
	ask_locked(w, pid, how);
	pthread_mutex_unlock(&w->lock);
}

/* See record/record.h. */
void pp_uwalk__track(struct pp_uwalk *w, uint32_t pid)
{
	ask(w, pid, ASK_NEW);
}

/* See record/record.h. */
void pp_uwalk__widened(struct pp_uwalk *w)
{
	w->widened = 1;
}

/* See record/record.h. */
void pp_uwalk__prebuild(struct pp_uwalk *w, const char *path)
{
	char *p = strdup(path);

	if (!p || !w->have_maps) {
		free(p);
		return;
	}
	pthread_mutex_lock(&w->lock);
	free(w->prebuild);
	w->prebuild = p;
	push(w, 0, REQ_PREBUILD);
	pthread_mutex_unlock(&w->lock);
}

/* See record/record.h. */
void pp_uwalk__expect(struct pp_uwalk *w, uint32_t pid)
{
	if (!pid || !w->have_maps)
		return;
	pthread_mutex_lock(&w->lock);
	pid_slot(w, pid, 1);	/* queued: its exec asks for the scan */
	pthread_mutex_unlock(&w->lock);
}

/* See record/record.h. */
void pp_uwalk__sideband(struct pp_uwalk *w, const struct perf_event_header *h)
{
	const uint32_t *v = (const uint32_t *)(h + 1);
	struct uw_pid *p;

	if (!w->have_maps || h->size < sizeof(*h) + 16)
		return;
	switch (h->type) {
	case PERF_RECORD_COMM:	/* pid, tid, comm */
		if (h->misc & PERF_RECORD_MISC_COMM_EXEC) {
			pthread_mutex_lock(&w->lock);
			p = ask_locked(w, v[0], ASK_KNOWN);
			if (p)	/* the new image's: read with its maps */
				p->arg_start = 0;
			pthread_mutex_unlock(&w->lock);
		}
		break;
	case PERF_RECORD_MMAP2: {
		/* pid, tid, addr, len, pgoff, then 24 bytes of device, inode or build-id: prot */
		uint32_t prot;

		if (h->size < sizeof(*h) + 60)
			return;
		memcpy(&prot, (const uint8_t *)v + 56, 4);
		if (prot & 4 /* PROT_EXEC */)
			ask(w, v[0], ASK_KNOWN);
		break;
	}
	case PERF_RECORD_FORK:	/* pid, ppid, tid, ptid */
		if (v[0] == v[2] && v[0] != v[1]) {	/* a new process */
			struct uw_pid *c;

			pthread_mutex_lock(&w->lock);
			p = pid_slot(w, v[1], 0);
			/*
			 * a copy of its parent's memory: the walk copies the
			 * parent's maps when it first meets it (PP_UW_FORK_COPY),
			 * and the thread again once the parent's reads asked for
			 * before this fork are done (the queue's order)
			 */
			if (p && p->state != PID_GONE) {
				c = pid_slot(w, v[0], 0);
				if (!c && (c = pid_slot(w, v[0], 1))) {
					c->state = PID_KNOWN;
					c->arg_start = p->arg_start;
					w->forked++;
				}
				if (c)
					push_req(w, (struct uw_req){ v[0], REQ_COPY, v[1] });
			}
			pthread_mutex_unlock(&w->lock);
		}
		break;
	case PERF_RECORD_EXIT:
		if (v[0] == v[2]) {	/* the process, not a thread */
			pthread_mutex_lock(&w->lock);
			p = pid_slot(w, v[0], 0);
			if (p && p->state != PID_GONE) {
				p->state = PID_GONE;
				w->nr_pids--;
				w->nr_gone++;
				push(w, v[0], REQ_FORGET);
				if (w->nr_gone > UW_PIDS / 4)
					pids_rehash(w);
			}
			pthread_mutex_unlock(&w->lock);
		}
		break;
	}
}

/* ---- the thread: maps, DSOs, tables ---- */

/* Build and load DSO @d's table from @path. Return: 1, or 0 when it has none. */
static int dso_build(struct pp_uwalk *w, struct uw_dso *d, const char *path)
{
	struct pp_cfi_table t;
	uint64_t t0 = now_ns();
	int ok = 0;

	if (!pp_cfi__build(path, &t)) {
		pthread_mutex_lock(&w->lock);
		ok = w->dsos_loaded < UW_MAX_DSOS && w->dso_rows + t.nr <= UW_MAX_ROWS;
		pthread_mutex_unlock(&w->lock);
		if (ok)
			ok = !pp_bpf_unwind__add_dso(&w->m, d->id, &t);
		if (ok) {
			pthread_mutex_lock(&w->lock);
			w->dsos_loaded++;
			w->dso_rows += t.nr;
			pthread_mutex_unlock(&w->lock);
		}
		pp_cfi__free(&t);
	}
	pthread_mutex_lock(&w->lock);
	w->build_ns += now_ns() - t0;
	w->dso_failed += !ok;
	pthread_mutex_unlock(&w->lock);
	if (!ok)	/* walked by frame pointer, not counted as waiting */
		pp_bpf_unwind__no_dso(&w->m, d->id);
	return ok;
}

/* The DSO of the file at @dev, @ino if the walker knows it, else -1. */
static long dso_find(const struct pp_uwalk *w, uint64_t dev, uint64_t ino)
{
	for (size_t i = 0; i < w->nr_dsos; i++)
		if (w->dsos[i].dev == dev && w->dsos[i].ino == ino)
			return (long)i;
	return -1;
}

/*
 * The DSO of the file mapped at @dev, @ino (opened as @path): one per
 * device and inode, one table per build-id (another entry of the same
 * build-id is its alias). Return: its index, or -1 without memory.
 */
static long dso_of(struct pp_uwalk *w, uint64_t dev, uint64_t ino, const char *path)
{
	uint8_t bid[PP_ELF_BUILD_ID_MAX];
	int bsz = 0;
	struct pp_elf *e;
	struct uw_dso *d;
	long di = dso_find(w, dev, ino);

	if (di >= 0)
		return di;
	e = pp_elf__open(path);
	if (e) {
		bsz = pp_elf__build_id(e, bid);
		pp_elf__close(e);
	}
	if (w->nr_dsos == w->cap_dsos) {
		size_t cap = w->cap_dsos ? 2 * w->cap_dsos : 64;
		struct uw_dso *v = realloc(w->dsos, cap * sizeof(*v));

		if (!v)
			return -1;
		w->dsos = v;
		w->cap_dsos = cap;
	}
	d = &w->dsos[w->nr_dsos];
	memset(d, 0, sizeof(*d));
	d->dev = dev;
	d->ino = ino;
	d->bid_size = bsz > 0 ? bsz : 0;
	d->alias = -1;
	memcpy(d->bid, bid, (size_t)d->bid_size);
	for (size_t i = 0; d->bid_size && i < w->nr_dsos; i++) {
		const struct uw_dso *o = &w->dsos[i];

		if (o->alias < 0 && o->bid_size == d->bid_size &&
		    !memcmp(o->bid, d->bid, (size_t)d->bid_size)) {
			d->alias = (long)i;	/* the same file elsewhere (a container) */
			d->built = 1;
			break;
		}
	}
	if (d->alias < 0)
		d->id = ++w->next_id;
	return (long)w->nr_dsos++;
}

/* The walker's id for DSO @di (its build-id's), 0 for -1 (no DSO). */
static uint32_t dso_id(const struct pp_uwalk *w, long di)
{
	if (di < 0)
		return 0;
	if (w->dsos[di].alias >= 0)
		di = w->dsos[di].alias;
	return w->dsos[di].id;
}

/* @pid's mm->arg_start (/proc/PID/stat, field 48), or 0. */
static uint64_t arg_start(uint32_t pid)
{
	char name[64], buf[2048], *p;
	unsigned long long v = 0;
	FILE *f;
	int i;

	snprintf(name, sizeof(name), "/proc/%u/stat", pid);
	f = fopen(name, "re");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')'))) {
		/* fields 3 to 47 after the comm, then arg_start */
		for (i = 3, p++; i <= 47 && p; i++)
			p = strchr(p + 1, ' ');
		if (p)
			v = strtoull(p + 1, NULL, 10);
	}
	fclose(f);
	return v;
}

/* DSO @di's table, to be built (from @at, else @path) unless it is or will be. */
static void want_table(struct pp_uwalk *w, long di, const char *at, const char *path)
{
	if (di < 0 || w->dsos[di].built || w->nr_builds >= UW_MAX_DSOS)
		return;
	w->dsos[di].built = 1;
	w->builds[w->nr_builds].dso = di;
	w->builds[w->nr_builds].path = strdup(at);
	w->builds[w->nr_builds].alt = strdup(path);
	w->nr_builds++;
}

#define PREBUILD_MAX	32	/* files of a program's */

struct prebuild {
	struct pp_uwalk *w;
	int depth, files;
};

static void prebuild_file(struct prebuild *c, const char *path);

/* A DT_NEEDED name: where the loader finds it on a Debian host (no RUNPATH). */
static void prebuild_needed(void *ctx, const char *name)
{
	static const char *const dirs[] = {
#if defined(__x86_64__)
		"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
#elif defined(__aarch64__)
		"/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
#endif
		"/lib64", "/usr/lib64", "/lib", "/usr/lib", "/usr/local/lib",
	};
	struct prebuild *c = ctx;
	char path[4096];

	if (strchr(name, '/')) {
		prebuild_file(c, name);
		return;
	}
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dirs[i], name);
		if (!access(path, R_OK)) {
			prebuild_file(c, path);
			return;
		}
	}
}

/* @path and, two levels deep, the files the loader maps with it: tables wanted. */
static void prebuild_file(struct prebuild *c, const char *path)
{
	char interp[4096];
	struct stat st;
	struct pp_elf *e;
	size_t before = c->w->nr_dsos;
	long di;

	if (c->files >= PREBUILD_MAX || stat(path, &st) || !S_ISREG(st.st_mode))
		return;
	di = dso_of(c->w, ((uint64_t)major(st.st_dev) << 32) | minor(st.st_dev),
		    (uint64_t)st.st_ino, path);
	if (di < 0 || (size_t)di < before)
		return;	/* known already: so are its own */
	c->files++;
	want_table(c->w, di, path, path);
	if (c->depth >= 2 || !(e = pp_elf__open(path)))
		return;
	c->depth++;
	if (!pp_elf__deps(e, interp, sizeof(interp), prebuild_needed, c) && interp[0])
		prebuild_file(c, interp);
	c->depth--;
	pp_elf__close(e);
}

/*
 * Read @pid's executable mappings into the walker, with @seen, its
 * arg_start as the walker saw it (0: read it here); the tables they lack
 * are built after (w->builds), when no process waits to be read.
 */
static void scan(struct pp_uwalk *w, uint32_t pid, uint64_t seen)
{
	struct pp_unwind_map *um = calloc(PP_UNWIND_MAPS, sizeof(*um));
	/* before the maps: an exec in between makes it differ, and the walk ask again */
	uint64_t as = seen ? seen : arg_start(pid);
	struct pp_procmaps it;
	struct pp_exec_map e;
	unsigned int n = 0;
	char name[96];
	int err = um ? pp_procmaps__open(&it, pid, 0) : -ENOMEM;

	while (!err && n < PP_UNWIND_MAPS && pp_procmaps__next(&it, &e)) {
		long di = dso_find(w, e.dev, e.ino);

		/* a file met before, its table built or on the way: no path needed */
		if (di < 0 || !w->dsos[di].built) {
			const char *path = pp_procmaps__path(&it), *at;

			if (path[0] != '/')
				continue;
			/* by map_files: a deleted file, another mount namespace's */
			snprintf(name, sizeof(name), "/proc/%u/map_files/%llx-%llx", pid, e.start,
				 e.end);
			at = access(name, R_OK) ? path : name;
			if (di < 0)
				di = dso_of(w, e.dev, e.ino, at);
			/* by this path: map_files/ while the process lives, then the file */
			want_table(w, di, at, path);
		}
		um[n++] = (struct pp_unwind_map){ e.start, e.end, e.pgoff, dso_id(w, di), 0 };
	}
	if (!err)
		pp_procmaps__close(&it);
	if (n)
		pp_bpf_unwind__set_proc(&w->m, pid, as, um, n);
	pthread_mutex_lock(&w->lock);
	{
		struct uw_pid *p = pid_slot(w, pid, 0);

		if (p && p->state == PID_QUEUED && n) {
			p->state = PID_KNOWN;
			w->procs++;
		} else if (p && p->state == PID_QUEUED && !p->pending) {
			/* gone (or going) before it was read: no slot kept for it */
			p->state = PID_GONE;
			w->nr_pids--;
			w->nr_gone++;
		}
		if (p && n && !p->arg_start)	/* for its children (FORK) */
			p->arg_start = as;
	}
	pthread_mutex_unlock(&w->lock);
	free(um);
}

/* The oldest table asked for: built and loaded. */
static void build_one(struct pp_uwalk *w)
{
	struct uw_build b = w->builds[0];

	memmove(&w->builds[0], &w->builds[1], (size_t)(--w->nr_builds) * sizeof(b));
	dso_build(w, &w->dsos[b.dso], b.path && !access(b.path, R_OK) ? b.path : b.alt ? b.alt : "");
	free(b.path);
	free(b.alt);
}

/* A process the walker met without knowing it (unwind_ask): read it now, or again (an exec). */
static int asked(void *ctx, void *data, size_t size)
{
	struct pp_uwalk *w = ctx;
	struct pp_unwind_ask a;
	struct uw_pid *p;

	if (size < sizeof(a) || !w->have_maps)
		return 0;
	memcpy(&a, data, sizeof(a));
	pthread_mutex_lock(&w->lock);
	p = pid_slot(w, a.tgid, 0);
	/* read since that sample, as the same image: the walker knows it by now */
	if (!p || p->state != PID_KNOWN || p->scanned <= a.time || p->arg_start != a.arg_start) {
		/* a tracepoint's program runs for every task: only the recorded ones */
		p = ask_locked(w, a.tgid, w->all ? ASK_NEW | ASK_KNOWN : ASK_KNOWN);
		if (p)
			p->arg_start = a.arg_start;
	}
	pthread_mutex_unlock(&w->lock);
	return 0;
}

static void *uw_main(void *arg)
{
	struct pp_uwalk *w = arg;
	struct pollfd pf[2] = { { .fd = w->efd, .events = POLLIN },
				{ .fd = w->asks ? ring_buffer__epoll_fd(w->asks) : -1,
				  .events = POLLIN } };

	/*
	 * Ahead of the host's tasks (a table is tens of milliseconds of CPU,
	 * once per build-id; a stack walked before its table is in is cut),
	 * behind the realtime drain, which it never holds up.
	 */
	setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), -10);
	for (;;) {
		uint64_t v, as = 0;
		struct uw_req rq;

		if (w->asks)
			ring_buffer__consume(w->asks);
		pthread_mutex_lock(&w->lock);
		if (w->stop) {
			pthread_mutex_unlock(&w->lock);
			break;
		}
		w->idle = !w->qlen && !w->nr_builds;
		if (!w->qlen) {
			pthread_mutex_unlock(&w->lock);
			if (w->nr_builds) {	/* no process waits: a table */
				build_one(w);
				continue;
			}
			if (poll(pf, 2, -1) > 0 && (pf[0].revents & POLLIN) &&
			    read(w->efd, &v, sizeof(v)) < 0) {
				/* another wake-up read it */
			}
			continue;
		}
		rq = w->q[w->qhead];
		w->qhead = (w->qhead + 1) % UW_QUEUE;
		w->qlen--;
		if (rq.kind == REQ_SCAN || rq.kind == REQ_COPY) {
			struct uw_pid *p = pid_slot(w, rq.pid, 0);

			if (!p || p->state == PID_GONE) {
				pthread_mutex_unlock(&w->lock);
				continue;
			}
			if (rq.kind == REQ_SCAN)
				p->pending = 0;	/* a mapping from now on asks again */
			p->scanned = now_ns();
			as = p->arg_start;
		}
		pthread_mutex_unlock(&w->lock);
		if (rq.kind == REQ_SCAN) {
			scan(w, rq.pid, as);
		} else if (rq.kind == REQ_COPY) {
			if (pp_bpf_unwind__copy_proc(&w->m, rq.parent, rq.pid))
				scan(w, rq.pid, 0);	/* its parent was not read */
		} else if (rq.kind == REQ_PREBUILD) {
			struct prebuild c = { w, 0, 0 };
			char *path;

			pthread_mutex_lock(&w->lock);
			path = w->prebuild;
			w->prebuild = NULL;
			pthread_mutex_unlock(&w->lock);
			if (path)
				prebuild_file(&c, path);
			free(path);
		} else {
			pp_bpf_unwind__del_proc(&w->m, rq.pid);
		}
	}
	return NULL;
}

/* ---- the join (the drain's) ---- */

/* See record/record.h. */
void pp_uwalk__walk(struct pp_uwalk *w, int ci, const void *raw, size_t size, uint64_t time)
{
	struct uw_ring *r;
	struct uw_wait *x;
	struct pp_unwind_out h;

	if (ci < 0 || ci >= w->nr_rings || size < PP_UNWIND_OUT_HDR)
		return;
	memcpy(&h, raw, PP_UNWIND_OUT_HDR);
	if (h.magic != PP_UNWIND_MAGIC || h.nr > PP_UNWIND_FRAMES ||
	    size < PP_UNWIND_OUT_HDR + (size_t)h.nr * 8)
		return;
	r = &w->rings[ci];
	/* the oldest go: too old for any sample to come, or no room */
	while (r->n && (r->n == UW_WAIT || r->w[0].time + UW_AGE_NS < time)) {
		memmove(&r->w[0], &r->w[1], (size_t)(r->n - 1) * sizeof(r->w[0]));
		r->n--;
	}
	x = &r->w[r->n++];
	x->time = time;
	memcpy(&x->o, raw, PP_UNWIND_OUT_HDR + (size_t)h.nr * 8);
}

/* Whether the callchain of @s has a user part. */
static int has_user(const struct pp_sample *s)
{
	for (uint64_t i = 0; i < s->nr_callchain; i++)
		if (s->callchain[i] == PERF_CONTEXT_USER)
			return 1;
	return 0;
}

/* See record/record.h. */
size_t pp_uwalk__join(struct pp_uwalk *w, int ci, const void *rec, size_t size,
		      uint64_t sample_type, const struct pp_sample *s, void *out, size_t cap)
{
	struct uw_ring *r;
	size_t n;
	int i;

	if (ci < 0 || ci >= w->nr_rings || !(sample_type & PERF_SAMPLE_CALLCHAIN))
		return 0;
	r = &w->rings[ci];
	for (i = r->n - 1; i >= 0; i--)
		if (r->w[i].o.tid == s->tid && r->w[i].time <= s->time + UW_SKEW_NS &&
		    r->w[i].time + UW_AGE_NS >= s->time)
			break;
	if (i < 0) {
		/*
		 * a kernel thread's has none; a user stack the walker did not
		 * see asks; a widened event's samples are every task's: the
		 * targets and their children are known already (or from their
		 * exec), the others' stacks are not counted
		 */
		if (s->pid && has_user(s) && !w->widened) {
			w->st.stacks++;
			ask(w, s->pid, ASK_NEW);
		} else if (s->pid && has_user(s)) {
			struct uw_pid *p;

			pthread_mutex_lock(&w->lock);
			p = pid_slot(w, s->pid, 0);
			if (p && p->state != PID_GONE) {
				w->st.stacks++;
				w->st.fp_no_proc += p->state != PID_KNOWN;
			}
			pthread_mutex_unlock(&w->lock);
		}
		return 0;
	}
	n = pp_sample__set_user_chain(rec, size, sample_type, (const uint64_t *)r->w[i].o.ips,
				      r->w[i].o.nr, 0, 0, out, cap);
	if (n) {
		w->st.stacks++;
		w->st.walked++;
		w->st.ends[r->w[i].o.end < PP_UW_END_NR ? r->w[i].o.end : PP_UW_END_DEPTH]++;
	}
	memmove(&r->w[i], &r->w[i + 1], (size_t)(r->n - i - 1) * sizeof(r->w[0]));
	r->n--;
	return n;
}

/* See record/record.h. */
void pp_uwalk__lost(struct pp_uwalk *w, int ci)
{
	if (ci >= 0 && ci < w->nr_rings)
		w->rings[ci].n = 0;
}

/* See record/record.h. */
void pp_uwalk__stats(struct pp_uwalk *w, struct pp_uwalk_stats *st)
{
	uint64_t k[PP_UW_STATS];

	*st = w->st;
	if (w->have_maps && !pp_bpf_unwind__stats(&w->m, k)) {
		st->frames_cfi = k[PP_UW_STAT_FRAMES_CFI];
		st->frames_fp = k[PP_UW_STAT_FRAMES_FP];
		st->no_table = k[PP_UW_STAT_NO_TABLE];
		if (!w->widened || !w->nr_rings)	/* else the join's, of the targets */
			st->fp_no_proc = k[PP_UW_STAT_NO_PROC];
		st->out_fail = k[PP_UW_STAT_OUT_FAIL];
		if (!w->nr_rings) {	/* an aggregator's: no join, the kernel's counts */
			st->stacks = k[PP_UW_STAT_STACKS];
			st->walked = 0;
			for (int i = 0; i < PP_UW_END_NR; i++) {
				st->ends[i] = k[PP_UW_STAT_END + i];
				st->walked += st->ends[i];
			}
		}
	}
	if (st->fp_no_proc > st->stacks - st->walked)
		st->fp_no_proc = st->stacks - st->walked;
	st->fp_other = st->stacks - st->walked - st->fp_no_proc;
	pthread_mutex_lock(&w->lock);
	st->procs = w->procs + w->forked;
	st->dsos = w->dsos_loaded;
	st->dso_rows = w->dso_rows;
	st->dso_failed = w->dso_failed;
	st->build_ns = w->build_ns;
	pthread_mutex_unlock(&w->lock);
}

/* See record/record.h. */
void pp_uwalk__summary(struct pp_uwalk *w, char *buf, size_t len)
{
	struct pp_uwalk_stats st;

	pp_uwalk__stats(w, &st);
	snprintf(buf, len, "user stacks: %llu, %llu walked by the kernel-side walker (%llu whole), "
		 "%llu by frame pointer (%llu of processes not known yet); tables of %llu DSOs "
		 "built in %.0f ms", (unsigned long long)st.stacks, (unsigned long long)st.walked,
		 (unsigned long long)st.ends[PP_UW_END_START],
		 (unsigned long long)(st.stacks - st.walked), (unsigned long long)st.fp_no_proc,
		 (unsigned long long)st.dsos, (double)st.build_ns / 1e6);
}

/* See record/record.h. */
int pp_uwalk_available(char *err, size_t len)
{
#if defined(__x86_64__)
	if (pp_bpf__available(err, len))
		return 0;
	if (!pp_bpf_kernel_at_least(5, 17)) {
		snprintf(err, len, "the kernel-side stack walker needs Linux 5.17 (bpf_loop)");
		return 0;
	}
	return 1;
#else
	snprintf(err, len, "the kernel-side stack walker reads x86-64 registers only");
	return 0;
#endif
}

/* See record/record.h. */
struct pp_uwalk *pp_uwalk__new(const struct pp_bpf_unwind_maps *m, int nr_cpus, int all,
			       char *err, size_t len)
{
	struct pp_uwalk *w = calloc(1, sizeof(*w));
	int e;

	if (!w || !(w->rings = calloc((size_t)(nr_cpus > 0 ? nr_cpus : 1), sizeof(*w->rings)))) {
		free(w);
		snprintf(err, len, "out of memory");
		return NULL;
	}
	w->all = all;
	w->nr_rings = nr_cpus;
	w->efd = -1;
	pthread_mutex_init(&w->lock, NULL);
	if (m) {
		w->m = *m;
		w->have_maps = 1;
		w->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		w->asks = ring_buffer__new(m->ask, asked, w, NULL);
		if (w->efd < 0 || !w->asks) {
			snprintf(err, len, "cannot set up the unwind table thread: %s",
				 strerror(errno));
			pp_uwalk__free(w);
			return NULL;
		}
		e = pthread_create(&w->thread, NULL, uw_main, w);
		if (e) {
			snprintf(err, len, "cannot start the unwind table thread: %s", strerror(e));
			pp_uwalk__free(w);
			return NULL;
		}
		w->started = 1;
	}
	return w;
}

/* See record/record.h. */
struct pp_uwalk *pp_uwalk__agg(struct bpf_object *obj, const pid_t *pids, int nr, char *err,
			       size_t len)
{
	struct pp_bpf_unwind_maps um = {
		.rows = bpf_object__find_map_fd_by_name(obj, "unwind_rows"),
		.dsos = bpf_object__find_map_fd_by_name(obj, "unwind_dsos"),
		.procs = bpf_object__find_map_fd_by_name(obj, "unwind_procs"),
		.out = -1,	/* the program keeps its walks */
		.stats = bpf_object__find_map_fd_by_name(obj, "unwind_stats"),
		.ask = bpf_object__find_map_fd_by_name(obj, "unwind_ask"),
	};
	struct pp_uwalk *w;

	if (um.rows < 0 || um.dsos < 0 || um.procs < 0 || um.stats < 0 || um.ask < 0) {
		snprintf(err, len, "the program has no stack walker maps");
		return NULL;
	}
	w = pp_uwalk__new(&um, 0, 1, err, len);
	if (!w)
		return NULL;
	for (int i = 0; i < nr; i++)
		pp_uwalk__track(w, (uint32_t)pids[i]);
	if (nr)
		pp_uwalk__settle(w, 10000);
	return w;
}

/* See record/record.h. */
int pp_uwalk__settle(struct pp_uwalk *w, int timeout_ms)
{
	for (int waited = 0;; waited += 5) {
		int done;

		pthread_mutex_lock(&w->lock);
		done = !w->started || (w->idle && !w->qlen);
		pthread_mutex_unlock(&w->lock);
		if (done)
			return 0;
		if (waited >= timeout_ms)
			return -ETIMEDOUT;
		usleep(5000);
	}
}

/* See record/record.h. */
void pp_uwalk__free(struct pp_uwalk *w)
{
	if (!w)
		return;
	if (w->started) {
		pthread_mutex_lock(&w->lock);
		w->stop = 1;
		wake(w);
		pthread_mutex_unlock(&w->lock);
		pthread_join(w->thread, NULL);
	}
	ring_buffer__free(w->asks);
	if (w->efd >= 0)
		close(w->efd);
	pthread_mutex_destroy(&w->lock);
	for (unsigned int i = 0; i < w->nr_builds; i++) {
		free(w->builds[i].path);
		free(w->builds[i].alt);
	}
	free(w->dsos);
	free(w->rings);
	free(w->prebuild);
	free(w);
}
