/* SPDX-License-Identifier: MIT */
/*
 * pp_perf - the perf_event layer: open events, mmap per-CPU rings, drain them.
 *
 * libperf is not packaged here, so this is pp's own. Two levels:
 *  - thin wrappers around perf_event_open(2) and its ioctls (pp_perf_event__*);
 *  - struct pp_perf_ring, one mmap'ed ring read with the documented barriers
 *    (acquire load of data_head, release store of data_tail), a record that
 *    wraps around the end of the ring handed back from a bounce buffer;
 *  - struct pp_perf_evlist, a set of events opened on a set of CPUs (all
 *    threads) or on threads x CPUs, with one ring per CPU that every event on
 *    that CPU writes into (PERF_EVENT_IOC_SET_OUTPUT), an epoll set over the
 *    rings and id -> event lookup.
 *
 * No allocation or syscall happens while reading a ring: read_begin() is one
 * acquire load, next() pointer arithmetic (plus a memcpy for a wrapped
 * record), read_end() one release store.
 */
#ifndef PP_PERF_H
#define PP_PERF_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

/**
 * pp_perf_event__open() - perf_event_open(2).
 * @attr: attributes (attr->size is set here if 0).
 * @pid: thread, -1 for all; @cpu: CPU, -1 for any; @group_fd: -1 or a leader;
 * @flags: PERF_FLAG_* (PERF_FLAG_FD_CLOEXEC is always added).
 *
 * Return: fd, or -errno.
 */
int pp_perf_event__open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			unsigned long flags);

/** pp_perf_event__enable() - PERF_EVENT_IOC_ENABLE. Return: 0 or -errno. */
int pp_perf_event__enable(int fd);
/** pp_perf_event__disable() - PERF_EVENT_IOC_DISABLE. Return: 0 or -errno. */
int pp_perf_event__disable(int fd);
/** pp_perf_event__id() - PERF_EVENT_IOC_ID into @id. Return: 0 or -errno. */
int pp_perf_event__id(int fd, uint64_t *id);
/**
 * pp_perf_event__set_filter() - PERF_EVENT_IOC_SET_FILTER (ftrace filter syntax).
 * Return: 0, or -EINVAL when the kernel rejects the filter, or -errno.
 */
int pp_perf_event__set_filter(int fd, const char *filter);
/** pp_perf_event__set_output() - PERF_EVENT_IOC_SET_OUTPUT to @target_fd's ring. */
int pp_perf_event__set_output(int fd, int target_fd);
/** pp_perf_event__set_bpf() - PERF_EVENT_IOC_SET_BPF with @prog_fd. */
int pp_perf_event__set_bpf(int fd, int prog_fd);

/* One mmap'ed ring buffer. */
struct pp_perf_ring {
	int fd;				/* the event fd the ring belongs to */
	int cpu;			/* CPU of the ring, -1 if per thread */
	struct perf_event_mmap_page *meta;
	uint8_t *data;			/* data area */
	uint64_t size;			/* data area bytes, power of two */
	uint64_t mask;			/* size - 1 */
	size_t mmap_len;		/* meta page + data */
	uint64_t head;			/* data_head snapshot of read_begin() */
	uint64_t tail;			/* our read cursor, published by read_end() */
	uint8_t *bounce;		/* 64 KiB: a wrapped record is copied here */
	uint64_t corrupt;		/* times a bad record size made us skip to head */
	uint64_t lost_told;		/* events its PERF_RECORD_LOSTs counted */
	int hup;			/* its fd's task exited: polled edge-triggered */
};

/**
 * pp_perf_ring__mmap() - map the ring of @fd.
 * @r: ring to fill (zeroed here).
 * @fd: event fd; @cpu: recorded in the ring.
 * @pages: data pages, a power of two (1 meta page is added).
 *
 * Return: 0 or -errno (-EINVAL if @pages is not a power of two).
 */
int pp_perf_ring__mmap(struct pp_perf_ring *r, int fd, int cpu, unsigned int pages);

/** pp_perf_ring__munmap() - unmap and free the bounce buffer; accepts a zeroed ring. */
void pp_perf_ring__munmap(struct pp_perf_ring *r);

/**
 * pp_perf_ring__read_begin() - snapshot the producer position.
 * Return: bytes ready to read.
 */
static inline uint64_t pp_perf_ring__read_begin(struct pp_perf_ring *r)
{
	r->head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	return r->head - r->tail;
}

/**
 * pp_perf_ring__next() - the next record up to the snapshot.
 * @r: ring after pp_perf_ring__read_begin().
 *
 * Return: the record (perf_event_header first), lent until
 * pp_perf_ring__read_end() or the next call, or NULL when the snapshot is
 * consumed. A record that wraps is copied into the bounce buffer.
 */
const struct perf_event_header *pp_perf_ring__next(struct pp_perf_ring *r);

/**
 * pp_perf_ring__read_end() - give the consumed space back to the kernel.
 */
static inline void pp_perf_ring__read_end(struct pp_perf_ring *r)
{
	__atomic_store_n(&r->meta->data_tail, r->tail, __ATOMIC_RELEASE);
}

/* A set of events over CPUs (and optionally threads), one ring per CPU. */
struct pp_perf_evsel {
	struct perf_event_attr attr;
	char *name;			/* "sched:sched_switch", "cpu-clock", ... */
	char *filter;			/* ftrace filter or NULL */
	int *fds;			/* [cpu_idx * nr_threads + thread_idx], -1 = none */
	uint64_t *ids;			/* same index; PERF_EVENT_IOC_ID */
	int nr_ids;			/* = nr_cpus * nr_threads once open */
	void *priv;			/* the caller's */
	int external;			/* delivered by another source (ftrace): not
					   opened; ids[] are made up, unique in the list */
	uint64_t probe_tp;		/* an inherited uprobe: opened as this tracepoint */
	char probe_name[64];		/* its tracefs name, removed at close; "" none */
	int system_wide;		/* one per CPU (pid -1) even when the list follows
					   threads: fds[cpu_idx * nr_threads] (a BPF
					   output event); added after the others */
};

struct pp_perf_evlist {
	int nr_cpus;
	int *cpus;
	int nr_threads;			/* 0: system-wide (pid -1) */
	pid_t *threads;
	int nr_evsels;
	struct pp_perf_evsel *evsels;
	struct pp_perf_ring *rings;	/* [nr_cpus] */
	unsigned int mmap_pages;	/* data pages per ring (default 64) */
	unsigned int watermark;		/* wakeup bytes; 0 = a quarter of the ring */
	unsigned int ftrace_pages;	/* --ftrace ring pages per CPU; 0 = mmap_pages */
	unsigned long open_flags;	/* PERF_FLAG_PID_CGROUP: threads[] are cgroup fds */
	int epfd;
	struct pp_perf_idmap { uint64_t id; int evsel; int cpu_idx; } *idmap;
	int nr_idmap;
	char err[256];			/* why the last call failed */
	int err_evsel;			/* which event failed, -1 if none */
	int err_cpu;			/* on which CPU, -1 if none */
	int no_lost_format;		/* the kernel has no PERF_FORMAT_LOST (before 6.0) */
};

/**
 * pp_perf_cpus__online() - parse /sys/devices/system/cpu/online.
 * @cpus: receives a malloc'ed array of CPU numbers (caller frees).
 * Return: number of CPUs, or -errno.
 */
int pp_perf_cpus__online(int **cpus);

/**
 * pp_perf_cpus__parse() - parse a CPU list such as "0-3,6".
 * @s: the list; @cpus: receives a malloc'ed sorted array without duplicates.
 * Return: count, or -EINVAL on a malformed list, -ENOMEM.
 */
int pp_perf_cpus__parse(const char *s, int **cpus);

/**
 * pp_perf_ring_pages() - the data pages of a ring per CPU that pp-record and
 * --live drain: 2 MiB each up to 64 CPUs, 1 MiB beyond.
 */
unsigned int pp_perf_ring_pages(int nr_cpus);

/**
 * pp_perf_evlist__new() - an empty event list.
 * @cpus: CPUs to open on (copied), or NULL for all online CPUs.
 * @nr_cpus: entries of @cpus.
 * @threads: threads to follow (copied), or NULL for every thread (system-wide).
 * @nr_threads: entries of @threads.
 *
 * Return: evlist (free with pp_perf_evlist__free()), or NULL with errno set.
 */
struct pp_perf_evlist *pp_perf_evlist__new(const int *cpus, int nr_cpus,
					   const pid_t *threads, int nr_threads);

/**
 * pp_perf_evlist__add() - add an event (not opened yet).
 * @el: list; @attr: attributes (copied); @name: display name (copied);
 * @filter: ftrace filter (copied) or NULL.
 *
 * Return: the event's index, or -errno.
 */
int pp_perf_evlist__add(struct pp_perf_evlist *el, const struct perf_event_attr *attr,
			const char *name, const char *filter);

/**
 * pp_perf_evlist__open() - open every event on every CPU (x thread), mmap one
 * ring per CPU, redirect the other fds there, apply filters, read ids.
 * @el: list, with mmap_pages and watermark set as wanted.
 *
 * Events are opened as given: set attr.disabled or enable_on_exec yourself.
 * A CPU on which the first event cannot be opened with ENODEV is dropped.
 * Return: 0, or -errno with el->err, err_evsel and err_cpu describing it
 * (-EINVAL from SET_FILTER means the filter was rejected).
 */
int pp_perf_evlist__open(struct pp_perf_evlist *el);

/** pp_perf_evlist__enable() - enable every fd. Return: 0 or the first -errno. */
int pp_perf_evlist__enable(struct pp_perf_evlist *el);
/** pp_perf_evlist__disable() - disable every fd. Return: 0 or the first -errno. */
int pp_perf_evlist__disable(struct pp_perf_evlist *el);

/**
 * pp_perf_evlist__untold_lost() - after the last read of ring @ci, with the
 * events off: the events the kernel dropped there that no PERF_RECORD_LOST
 * told. The kernel writes that record at the ring's next event only: a
 * ring that filled up just before its events' last one (a command's exit)
 * loses the rest silently. The events count every drop (PERF_FORMAT_LOST,
 * Linux 6.0), so the difference is known.
 * @el: list; @ci: ring index; @buf: PP_LOST_RECORD_MAX bytes (pp/records.h).
 * Return: the size of the PERF_RECORD_LOST of the difference written to
 * @buf (stamped now, as the ring's first event), 0 when there is none or
 * the kernel cannot count.
 */
uint16_t pp_perf_evlist__untold_lost(struct pp_perf_evlist *el, int ci, void *buf);

/**
 * pp_perf_evlist__poll() - wait until a ring passes its watermark or @timeout_ms.
 * Return: number of ready fds (0 on timeout or EINTR), or -errno. A ring
 * whose events are all gone (followed threads exited) reports EPOLLHUP; the
 * count of those goes to *@hup if not NULL.
 */
int pp_perf_evlist__poll(struct pp_perf_evlist *el, int timeout_ms, int *hup);

/**
 * pp_perf_evlist__add_pollfd() - make pp_perf_evlist__poll() wake when @fd
 * is readable too (another source of the same recording).
 * Return: 0 or -errno.
 */
int pp_perf_evlist__add_pollfd(struct pp_perf_evlist *el, int fd);

/**
 * pp_perf_evlist__find_id() - the event that owns sample id @id.
 * Return: event index, or -1.
 */
int pp_perf_evlist__find_id(const struct pp_perf_evlist *el, uint64_t id);

/** pp_perf_evlist__close() - unmap rings and close fds (the list stays usable for reading attrs). */
void pp_perf_evlist__close(struct pp_perf_evlist *el);

/** pp_perf_evlist__free() - close and free; accepts NULL. */
void pp_perf_evlist__free(struct pp_perf_evlist *el);

#endif /* PP_PERF_H */
