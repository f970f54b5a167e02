// SPDX-License-Identifier: MIT
/*
 * The perf_event layer (see include/pp/perf.h).
 *
 * Ring protocol (perf_event_open(2), "MMAP layout"): the kernel writes
 * records at data_head and never overtakes data_tail. We load data_head with
 * acquire semantics so the record bytes we then read are the ones the kernel
 * wrote before publishing the head, and store data_tail with release
 * semantics so our reads finish before the kernel may reuse the space.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "pp/perf.h"
#include "pp/evspec.h"
#include "pp/records.h"
#include "pp/sample.h"
#include "pp/tracefs.h"

#define BOUNCE_SIZE	65536	/* perf_event_header.size is a u16 */

/**
 * pp_perf_event__open() - perf_event_open(2).
 * @attr: attributes (attr->size is set here if 0).
 * @pid: thread or -1; @cpu: CPU or -1; @group_fd: leader or -1;
 * @flags: PERF_FLAG_*.
 *
 * Return: fd, or -errno.
 */
int pp_perf_event__open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			unsigned long flags)
{
	long fd;

	if (!attr->size)
		attr->size = sizeof(*attr);
	fd = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd,
		     flags | PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : (int)fd;
}

static int ioctl_ret(int fd, unsigned long req, unsigned long arg)
{
	return ioctl(fd, req, arg) < 0 ? -errno : 0;
}

/** pp_perf_event__enable() - PERF_EVENT_IOC_ENABLE. @fd: event. Return: 0 or -errno. */
int pp_perf_event__enable(int fd)
{
	return ioctl_ret(fd, PERF_EVENT_IOC_ENABLE, 0);
}

/** pp_perf_event__disable() - PERF_EVENT_IOC_DISABLE. @fd: event. Return: 0 or -errno. */
int pp_perf_event__disable(int fd)
{
	return ioctl_ret(fd, PERF_EVENT_IOC_DISABLE, 0);
}

/**
 * pp_perf_event__id() - PERF_EVENT_IOC_ID.
 * @fd: event; @id: receives the id.
 * Return: 0 or -errno.
 */
int pp_perf_event__id(int fd, uint64_t *id)
{
	return ioctl(fd, PERF_EVENT_IOC_ID, id) < 0 ? -errno : 0;
}

/**
 * pp_perf_event__set_filter() - PERF_EVENT_IOC_SET_FILTER.
 * @fd: tracepoint event; @filter: ftrace filter expression.
 * Return: 0 or -errno (-EINVAL: rejected).
 */
int pp_perf_event__set_filter(int fd, const char *filter)
{
	return ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter) < 0 ? -errno : 0;
}

/**
 * pp_perf_event__set_output() - PERF_EVENT_IOC_SET_OUTPUT.
 * @fd: event; @target_fd: event whose (mmap'ed) ring receives @fd's records.
 * Return: 0 or -errno.
 */
int pp_perf_event__set_output(int fd, int target_fd)
{
	return ioctl_ret(fd, PERF_EVENT_IOC_SET_OUTPUT, (unsigned long)target_fd);
}

/**
 * pp_perf_event__set_bpf() - PERF_EVENT_IOC_SET_BPF.
 * @fd: event; @prog_fd: BPF program.
 * Return: 0 or -errno.
 */
int pp_perf_event__set_bpf(int fd, int prog_fd)
{
	return ioctl_ret(fd, PERF_EVENT_IOC_SET_BPF, (unsigned long)prog_fd);
}

/**
 * pp_perf_ring__mmap() - map the ring of @fd.
 * @r: ring (zeroed here); @fd: event; @cpu: its CPU;
 * @pages: data pages, power of two.
 * Return: 0 or -errno.
 */
int pp_perf_ring__mmap(struct pp_perf_ring *r, int fd, int cpu, unsigned int pages)
{
	long psz = sysconf(_SC_PAGESIZE);
	void *p;

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	if (!pages || (pages & (pages - 1)))
		return -EINVAL;
	r->mmap_len = (size_t)(pages + 1) * (size_t)psz;
	p = mmap(NULL, r->mmap_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		r->mmap_len = 0;
		return -errno;
	}
	r->bounce = malloc(BOUNCE_SIZE);
	if (!r->bounce) {
		munmap(p, r->mmap_len);
		r->mmap_len = 0;
		return -ENOMEM;
	}
	r->fd = fd;
	r->cpu = cpu;
	r->meta = p;
	r->data = (uint8_t *)p + psz;
	r->size = (uint64_t)pages * (uint64_t)psz;
	r->mask = r->size - 1;
	r->tail = r->meta->data_tail;
	r->head = r->tail;
	return 0;
}

/** pp_perf_ring__munmap() - unmap @r; accepts a zeroed ring. */
void pp_perf_ring__munmap(struct pp_perf_ring *r)
{
	if (r->meta)
		munmap(r->meta, r->mmap_len);
	free(r->bounce);
	r->meta = NULL;
	r->data = NULL;
	r->bounce = NULL;
	r->mmap_len = 0;
}

/**
 * pp_perf_ring__next() - the next record of the snapshot.
 * @r: ring after pp_perf_ring__read_begin().
 * Return: the record, lent; NULL when the snapshot is consumed.
 */
const struct perf_event_header *pp_perf_ring__next(struct pp_perf_ring *r)
{
	const struct perf_event_header *h;
	uint64_t left = r->head - r->tail, off, first;
	uint16_t size;

	if (left < sizeof(*h))
		return NULL;
	off = r->tail & r->mask;
	/* Records are 8-byte aligned and the ring a multiple of 8: the header never wraps. */
	h = (const struct perf_event_header *)(r->data + off);
	size = h->size;
	if (size < sizeof(*h) || size > left) {
		/* Cannot happen with a sane kernel; do not loop on it. */
		r->corrupt++;
		r->tail = r->head;
		return NULL;
	}
	if (off + size > r->size) {
		first = r->size - off;
		memcpy(r->bounce, r->data + off, first);
		memcpy(r->bounce + first, r->data, size - first);
		h = (const struct perf_event_header *)r->bounce;
	}
	r->tail += size;
	if (h->type == PERF_RECORD_LOST && size >= 24)
		r->lost_told += pp_sample_rd64((const uint8_t *)h + 16);
	/* the kernel wrote the ring on its CPU: ask for the lines ahead early */
	__builtin_prefetch(r->data + ((r->tail + 384) & r->mask));
	return h;
}

static int parse_cpu_list(const char *s, int **out)
{
	int *v = NULL, n = 0, cap = 0;
	const char *p = s;

	while (*p && *p != '\n') {
		char *end;
		long a, b;

		a = strtol(p, &end, 10);
		if (end == p || a < 0 || a > 65535)
			goto bad;
		b = a;
		p = end;
		if (*p == '-') {
			p++;
			b = strtol(p, &end, 10);
			if (end == p || b < a || b > 65535)
				goto bad;
			p = end;
		}
		for (; a <= b; a++) {
			int i, dup = 0;

			for (i = 0; i < n; i++)
				dup |= v[i] == a;
			if (dup)
				continue;
			if (n == cap) {
				int *nv;

				cap = cap ? cap * 2 : 16;
				nv = realloc(v, (size_t)cap * sizeof(*v));
				if (!nv) {
					free(v);
					return -ENOMEM;
				}
				v = nv;
			}
			v[n++] = (int)a;
		}
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			goto bad;
	}
	if (!n)
		goto bad;
	/* insertion sort: lists are short */
	for (int i = 1; i < n; i++) {
		int x = v[i], j = i - 1;

		while (j >= 0 && v[j] > x) {
			v[j + 1] = v[j];
			j--;
		}
		v[j + 1] = x;
	}
	*out = v;
	return n;
bad:
	free(v);
	return -EINVAL;
}

/**
 * pp_perf_cpus__parse() - parse a CPU list such as "0-3,6".
 * @s: list; @cpus: receives a malloc'ed sorted array.
 * Return: count or -errno.
 */
int pp_perf_cpus__parse(const char *s, int **cpus)
{
	return parse_cpu_list(s, cpus);
}

/**
 * pp_perf_cpus__online() - the online CPUs.
 * @cpus: receives a malloc'ed array.
 * Return: count or -errno.
 */
int pp_perf_cpus__online(int **cpus)
{
	char buf[4096];
	ssize_t n;
	int fd;

	fd = open("/sys/devices/system/cpu/online", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return n < 0 ? -errno : -EINVAL;
	buf[n] = 0;
	return parse_cpu_list(buf, cpus);
}

/**
 * pp_perf_evlist__new() - an empty event list.
 * @cpus: CPUs or NULL for all online; @nr_cpus: count;
 * @threads: threads or NULL for system-wide; @nr_threads: count.
 * Return: evlist or NULL with errno set.
 */
unsigned int pp_perf_ring_pages(int nr_cpus)
{
	return nr_cpus <= 64 ? (2u << 20) / (unsigned int)sysconf(_SC_PAGESIZE) :
			       (1u << 20) / (unsigned int)sysconf(_SC_PAGESIZE);
}

struct pp_perf_evlist *pp_perf_evlist__new(const int *cpus, int nr_cpus,
					   const pid_t *threads, int nr_threads)
{
	struct pp_perf_evlist *el = calloc(1, sizeof(*el));
	int err;

	if (!el)
		return NULL;
	el->epfd = -1;
	el->mmap_pages = 64;
	el->err_evsel = -1;
	el->err_cpu = -1;
	if (cpus && nr_cpus > 0) {
		el->cpus = malloc((size_t)nr_cpus * sizeof(int));
		if (!el->cpus)
			goto nomem;
		memcpy(el->cpus, cpus, (size_t)nr_cpus * sizeof(int));
		el->nr_cpus = nr_cpus;
	} else {
		err = pp_perf_cpus__online(&el->cpus);
		if (err < 0) {
			free(el);
			errno = -err;
			return NULL;
		}
		el->nr_cpus = err;
	}
	if (threads && nr_threads > 0) {
		el->threads = malloc((size_t)nr_threads * sizeof(pid_t));
		if (!el->threads)
			goto nomem;
		memcpy(el->threads, threads, (size_t)nr_threads * sizeof(pid_t));
		el->nr_threads = nr_threads;
	}
	return el;
nomem:
	pp_perf_evlist__free(el);
	errno = ENOMEM;
	return NULL;
}

/**
 * pp_perf_evlist__add() - add an event.
 * @el: list; @attr: copied; @name: copied; @filter: copied or NULL.
 * Return: index or -errno.
 */
int pp_perf_evlist__add(struct pp_perf_evlist *el, const struct perf_event_attr *attr,
			const char *name, const char *filter)
{
	struct pp_perf_evsel *nv, *e;

	nv = realloc(el->evsels, (size_t)(el->nr_evsels + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	el->evsels = nv;
	e = &nv[el->nr_evsels];
	memset(e, 0, sizeof(*e));
	e->attr = *attr;
	e->attr.size = sizeof(e->attr);
	e->name = strdup(name ? name : "");
	e->filter = filter && *filter ? strdup(filter) : NULL;
	if (!e->name || (filter && *filter && !e->filter)) {
		free(e->name);
		free(e->filter);
		return -ENOMEM;
	}
	return el->nr_evsels++;
}

static int nthr(const struct pp_perf_evlist *el)
{
	return el->nr_threads ? el->nr_threads : 1;
}

static int idmap_cmp(const void *a, const void *b)
{
	const struct pp_perf_idmap *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * Open @e on @cpu for @pid: an inherited uprobe as its tracepoint, and
 * counting its drops (PERF_FORMAT_LOST) where the kernel can; the attr the
 * caller keeps is the one it gave.
 */
static int open_one(struct pp_perf_evlist *el, struct pp_perf_evsel *e, pid_t pid, int cpu)
{
	unsigned long flags = e->system_wide ? 0 : el->open_flags;	/* not a cgroup's */
	struct perf_event_attr a;
	int fd;

	if (!e->attr.size)
		e->attr.size = sizeof(e->attr);
	a = e->attr;
	if (e->probe_tp) {
		a.type = PERF_TYPE_TRACEPOINT;
		a.config = e->probe_tp;
		a.config1 = a.config2 = 0;
	}
	if (!el->no_lost_format && !(a.read_format & PERF_FORMAT_GROUP))
		a.read_format |= PERF_FORMAT_LOST;
	fd = pp_perf_event__open(&a, pid, cpu, -1, flags);
	if (fd == -EINVAL && a.read_format != e->attr.read_format) {
		/* before Linux 6.0: no count of drops */
		el->no_lost_format = 1;
		a.read_format = e->attr.read_format;
		fd = pp_perf_event__open(&a, pid, cpu, -1, flags);
	}
	return fd;
}

/**
 * pp_perf_evlist__open() - open, mmap, redirect, filter, read ids.
 * @el: list.
 * Return: 0, or -errno with el->err describing the failure.
 */
int pp_perf_evlist__open(struct pp_perf_evlist *el)
{
	int nt = nthr(el), ci, ei, ti, err = 0, n = 0;
	long psz = sysconf(_SC_PAGESIZE);

	if (!el->nr_evsels) {
		snprintf(el->err, sizeof(el->err), "no events");
		return -EINVAL;
	}
	el->rings = calloc((size_t)el->nr_cpus, sizeof(*el->rings));
	el->idmap = calloc((size_t)el->nr_cpus * (size_t)nt * (size_t)el->nr_evsels,
			   sizeof(*el->idmap));
	if (!el->rings || !el->idmap)
		return -ENOMEM;
	for (ci = 0; ci < el->nr_cpus; ci++)
		el->rings[ci].fd = -1;
	for (ei = 0; ei < el->nr_evsels; ei++) {
		struct pp_perf_evsel *e = &el->evsels[ei];

		e->fds = malloc((size_t)el->nr_cpus * (size_t)nt * sizeof(int));
		e->ids = calloc((size_t)el->nr_cpus * (size_t)nt, sizeof(uint64_t));
		if (!e->fds || !e->ids)
			return -ENOMEM;
		for (ci = 0; ci < el->nr_cpus * nt; ci++)
			e->fds[ci] = -1;
		e->nr_ids = el->nr_cpus * nt;
		if (!e->attr.watermark && !e->attr.wakeup_events) {
			uint64_t bytes = (uint64_t)el->mmap_pages * (uint64_t)psz;

			e->attr.watermark = 1;
			e->attr.wakeup_watermark = el->watermark ? el->watermark :
						   (uint32_t)(bytes / 4);
		}
	}
	for (ei = 0; ei < el->nr_evsels; ei++) {
		struct pp_perf_evsel *e = &el->evsels[ei];
		long long id;

		if (!e->attr.inherit || e->external)
			continue;
		/* a uprobe PMU event cannot be inherited (pp_tracefs_uprobe_add()) */
		id = pp_uprobe_attr_tracepoint(&e->attr, e->probe_name, sizeof(e->probe_name));
		if (id < 0) {
			e->probe_name[0] = '\0';
			snprintf(el->err, sizeof(el->err), "%s: cannot make it in tracefs's uprobe_events "
				 "(which a probe that follows children needs): %s", e->name,
				 strerror((int)-id));
			return (int)id;
		}
		e->probe_tp = (uint64_t)id;
	}
	el->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (el->epfd < 0)
		return -errno;

	for (ci = 0; ci < el->nr_cpus; ci++) {
		int cpu = el->cpus[ci];
		struct pp_perf_ring *ring = &el->rings[ci];

		for (ei = 0; ei < el->nr_evsels; ei++) {
			struct pp_perf_evsel *e = &el->evsels[ei];

			for (ti = 0; ti < (e->system_wide ? 1 : nt); ti++) {
				pid_t pid = el->nr_threads && !e->system_wide ? el->threads[ti] : -1;
				int idx = ci * nt + ti, fd;

				if (e->external) {
					/*
					 * Above any id the kernel hands out (a
					 * counter from 1), one per event and CPU.
					 */
					e->ids[idx] = (1ull << 62) +
						      (uint64_t)ei * (uint64_t)el->nr_cpus *
						      (uint64_t)nt + (uint64_t)idx;
					el->idmap[n].id = e->ids[idx];
					el->idmap[n].evsel = ei;
					el->idmap[n].cpu_idx = ci;
					n++;
					continue;
				}
				fd = open_one(el, e, pid, cpu);
				if (fd < 0 && fd == -ESRCH && el->nr_threads)
					continue;	/* the thread is gone */
				if (fd < 0) {
					el->err_evsel = ei;
					el->err_cpu = cpu;
					snprintf(el->err, sizeof(el->err),
						 "perf_event_open %s on cpu %d: %s", e->name,
						 cpu, strerror(-fd));
					return fd;
				}
				e->fds[idx] = fd;
				if (ring->fd < 0) {
					err = pp_perf_ring__mmap(ring, fd, cpu, el->mmap_pages);
					if (err) {
						snprintf(el->err, sizeof(el->err),
							 "mmap of %u pages on cpu %d: %s%s",
							 el->mmap_pages, cpu, strerror(-err),
							 err == -EPERM ?
							 " (see kernel.perf_event_mlock_kb)" : "");
						return err;
					}
					{
						struct epoll_event ev = { .events = EPOLLIN,
									  .data.u32 = (uint32_t)ci };

						if (epoll_ctl(el->epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
							return -errno;
					}
				} else {
					err = pp_perf_event__set_output(fd, ring->fd);
					if (err) {
						el->err_evsel = ei;
						el->err_cpu = cpu;
						snprintf(el->err, sizeof(el->err),
							 "SET_OUTPUT %s on cpu %d: %s", e->name,
							 cpu, strerror(-err));
						return err;
					}
				}
				if (e->filter) {
					err = pp_perf_event__set_filter(fd, e->filter);
					if (err) {
						el->err_evsel = ei;
						el->err_cpu = cpu;
						snprintf(el->err, sizeof(el->err),
							 "filter '%s' rejected for %s: %s",
							 e->filter, e->name, strerror(-err));
						return err;
					}
				}
				err = pp_perf_event__id(fd, &e->ids[idx]);
				if (err) {
					snprintf(el->err, sizeof(el->err), "PERF_EVENT_IOC_ID: %s",
						 strerror(-err));
					return err;
				}
				el->idmap[n].id = e->ids[idx];
				el->idmap[n].evsel = ei;
				el->idmap[n].cpu_idx = ci;
				n++;
			}
		}
	}
	if (!n) {
		snprintf(el->err, sizeof(el->err), "no thread to follow is alive");
		return -ESRCH;
	}
	el->nr_idmap = n;
	qsort(el->idmap, (size_t)n, sizeof(*el->idmap), idmap_cmp);
	return 0;
}

static int for_each_fd(struct pp_perf_evlist *el, int (*fn)(int fd))
{
	int ei, i, err = 0;

	for (ei = 0; ei < el->nr_evsels; ei++) {
		struct pp_perf_evsel *e = &el->evsels[ei];

		for (i = 0; e->fds && i < e->nr_ids; i++) {
			if (e->fds[i] >= 0) {
				int r = fn(e->fds[i]);

				if (r && !err)
					err = r;
			}
		}
	}
	return err;
}

/** pp_perf_evlist__enable() - enable all. @el: list. Return: 0 or first -errno. */
int pp_perf_evlist__enable(struct pp_perf_evlist *el)
{
	return for_each_fd(el, pp_perf_event__enable);
}

/* See include/pp/perf.h. */
uint16_t pp_perf_evlist__untold_lost(struct pp_perf_evlist *el, int ci, void *buf)
{
	int nt = nthr(el);
	uint64_t lost = 0, id = 0, sample_type = 0, v[8];
	clockid_t clk = CLOCK_MONOTONIC;
	struct timespec ts;

	if (el->no_lost_format || ci < 0 || ci >= el->nr_cpus || !el->rings[ci].meta)
		return 0;
	for (int ei = 0; ei < el->nr_evsels; ei++) {
		struct pp_perf_evsel *e = &el->evsels[ei];

		for (int ti = 0; e->fds && ti < nt; ti++) {
			int idx = ci * nt + ti, fd = e->fds[idx];
			ssize_t n;

			if (fd < 0 || (e->attr.read_format & PERF_FORMAT_GROUP))
				continue;
			/* value, the times and id asked for, then the drops last */
			n = read(fd, v, sizeof(v));
			if (n < 16 || n % 8)
				continue;
			lost += v[n / 8 - 1];
			if (!id) {
				id = e->ids[idx];
				sample_type = e->attr.sample_type;
				if (e->attr.use_clockid)
					clk = e->attr.clockid;
			}
		}
	}
	if (!id || lost <= el->rings[ci].lost_told)
		return 0;
	clock_gettime(clk, &ts);
	return pp_sample__lost_record(buf, sample_type, id, lost - el->rings[ci].lost_told,
				      (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec,
				      (uint32_t)el->rings[ci].cpu);
}

/** pp_perf_evlist__disable() - disable all. @el: list. Return: 0 or first -errno. */
int pp_perf_evlist__disable(struct pp_perf_evlist *el)
{
	return for_each_fd(el, pp_perf_event__disable);
}

/**
 * pp_perf_evlist__poll() - epoll_wait on the rings.
 * @el: list; @timeout_ms: timeout; @hup: receives the EPOLLHUP count or NULL.
 * Return: ready count, 0 on timeout/EINTR, or -errno.
 */
int pp_perf_evlist__poll(struct pp_perf_evlist *el, int timeout_ms, int *hup)
{
	struct epoll_event evs[64];
	int n, i, h = 0;

	n = epoll_wait(el->epfd, evs, 64, timeout_ms);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	for (i = 0; i < n; i++) {
		uint32_t ci = evs[i].data.u32;
		struct pp_perf_ring *ring;

		if (!(evs[i].events & EPOLLHUP))
			continue;
		h++;
		/*
		 * The task of the ring's fd exited (-p PID): its HUP stays
		 * set, and level-triggered it would end every wait at once,
		 * a busy loop until the recording stops. Edge-triggered, the
		 * ring still wakes us when other threads' records reach its
		 * watermark.
		 */
		if (ci >= (uint32_t)el->nr_cpus)
			continue;
		ring = &el->rings[ci];
		if (!ring->hup && ring->fd >= 0) {
			struct epoll_event ev = { .events = EPOLLIN | EPOLLET, .data.u32 = ci };

			if (!epoll_ctl(el->epfd, EPOLL_CTL_MOD, ring->fd, &ev))
				ring->hup = 1;
		}
	}
	if (hup)
		*hup = h;
	return n;
}

/**
 * pp_perf_evlist__add_pollfd() - have pp_perf_evlist__poll() wake for @fd
 * too (another source's file, readable when it holds data).
 * Return: 0 or -errno.
 */
int pp_perf_evlist__add_pollfd(struct pp_perf_evlist *el, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = UINT32_MAX };

	return epoll_ctl(el->epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

/**
 * pp_perf_evlist__find_id() - event index of sample id @id.
 * @el: list; @id: id.
 * Return: index or -1.
 */
int pp_perf_evlist__find_id(const struct pp_perf_evlist *el, uint64_t id)
{
	int lo = 0, hi = el->nr_idmap - 1;

	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;

		if (el->idmap[mid].id == id)
			return el->idmap[mid].evsel;
		if (el->idmap[mid].id < id)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

/** pp_perf_evlist__close() - unmap rings, close fds. @el: list. */
void pp_perf_evlist__close(struct pp_perf_evlist *el)
{
	int ei, i;

	if (el->rings) {
		for (i = 0; i < el->nr_cpus; i++)
			pp_perf_ring__munmap(&el->rings[i]);
	}
	for (ei = 0; ei < el->nr_evsels; ei++) {
		struct pp_perf_evsel *e = &el->evsels[ei];

		for (i = 0; e->fds && i < e->nr_ids; i++) {
			if (e->fds[i] >= 0)
				close(e->fds[i]);
			e->fds[i] = -1;
		}
		if (e->probe_name[0])
			pp_tracefs_uprobe_del(e->probe_name);
		e->probe_name[0] = '\0';
		e->probe_tp = 0;
	}
	if (el->epfd >= 0)
		close(el->epfd);
	el->epfd = -1;
}

/** pp_perf_evlist__free() - close and free. @el: list or NULL. */
void pp_perf_evlist__free(struct pp_perf_evlist *el)
{
	int ei;

	if (!el)
		return;
	pp_perf_evlist__close(el);
	for (ei = 0; ei < el->nr_evsels; ei++) {
		free(el->evsels[ei].name);
		free(el->evsels[ei].filter);
		free(el->evsels[ei].fds);
		free(el->evsels[ei].ids);
	}
	free(el->evsels);
	free(el->rings);
	free(el->idmap);
	free(el->cpus);
	free(el->threads);
	free(el);
}
