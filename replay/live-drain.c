// SPDX-License-Identifier: MIT
/*
 * The live source's drain: a thread of its own that waits on the rings and
 * copies what they hold into per-stream pending buffers, at SCHED_FIFO where
 * the host allows it, while the session's thread analyzes.
 *
 * Draining in the analyzing thread lost events under load: a round that
 * analyzes for long (symbolizing a burst of stacks, printing to a slow
 * terminal) left the rings unread and they overflowed. Here a ring is read
 * as soon as it passes its watermark whatever the analysis is doing; what
 * waits is memory, bounded per stream, and what would go past the bound is
 * dropped and counted.
 *
 * Each pass over the rings is stamped with the monotonic time it started:
 * every record the kernel timestamped before that (less the publication
 * slack the caller allows) is in a pending buffer once the pass is over.
 * That is the watermark the session merges to.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include "pp/perf.h"
#include "pp/records.h"
#include "pp/sample.h"
#include "pp/tracefs.h"
#include "pp/walker.h"
#include "live-drain.h"

#define DRAIN_PEND_MAX	(256u << 20)	/* per-stream pending cap */

struct pp_live_drain {
	struct pp_perf_evlist *el;
	struct pp_ftrace *ft;
	struct pp_walker *walker;	/* -g: joins each walk to its sample */
	int nr;			/* streams: el's CPUs, then ft's */
	struct pp_live_pend *fill;	/* what the thread appends to */
	int kick;		/* eventfd: a pass now, or the final one */
	pthread_t th;
	int started;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	/* under mu */
	uint64_t drained_to;	/* start of the last finished pass */
	uint64_t fullest;	/* most bytes one ring held since the last take */
	uint64_t lost;		/* ring reads dropped at the cap since then */
	int ready;		/* a watermark wake-up brought records */
	int final;		/* the events are off: one last pass, then exit */
	int done;		/* the thread has exited */
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Room for @more bytes in @p: 0, or -ENOMEM past the cap. */
static int pend_room(struct pp_live_pend *p, size_t more)
{
	size_t ncap = p->cap ? p->cap : 65536;
	uint8_t *nb;

	if (p->len + more <= p->cap)
		return 0;
	while (ncap < p->len + more)
		ncap *= 2;
	nb = ncap <= DRAIN_PEND_MAX ? realloc(p->buf, ncap) : NULL;
	if (!nb)
		return -ENOMEM;
	p->buf = nb;
	p->cap = ncap;
	return 0;
}

struct ft_emit {
	struct pp_live_drain *d;
	struct pp_live_pend *p;
};

/* A record made of an ftrace event, appended to its CPU's pending buffer. */
static void ft_emit(void *ctx, const struct perf_event_header *h, int tag, uint64_t ts)
{
	struct ft_emit *c = ctx;

	(void)tag;
	(void)ts;
	if (pend_room(c->p, h->size)) {
		c->d->lost++;
		return;
	}
	memcpy(c->p->buf + c->p->len, h, h->size);
	c->p->len += h->size;
}

/* Ring @ci's records through the walker: a walk stays with it, a sample takes its frames. */
static void walk_ring(struct pp_live_drain *d, int ci, struct pp_perf_ring *r,
		      struct pp_live_pend *p)
{
	const struct perf_event_header *h;

	while ((h = pp_perf_ring__next(r))) {
		int ei = pp_perf_evlist__find_id(d->el, pp_sample__id(h, h->size));

		if (!(h = pp_walker__record(d->walker, ci, h, ei)))
			continue;
		if (pend_room(p, h->size)) {
			d->lost++;	/* the analysis cannot keep up: dropped, said so */
			continue;
		}
		memcpy(p->buf + p->len, h, h->size);
		p->len += h->size;
	}
}

/* One pass over every ring, under mu; @final: read the ftrace rings to the end. */
static void drain_pass(struct pp_live_drain *d, int final)
{
	uint64_t start = mono_ns(), moved = 0;
	struct pp_perf_evlist *el = d->el;

	for (int i = 0; i < el->nr_cpus; i++) {
		struct pp_perf_ring *r = &el->rings[i];
		struct pp_live_pend *p = &d->fill[i];
		const struct perf_event_header *h;
		uint64_t avail;

		if (!r->meta || !(avail = pp_perf_ring__read_begin(r)))
			continue;
		if (avail > d->fullest)
			d->fullest = avail;
		if (d->walker) {
			walk_ring(d, i, r, p);
		} else if (pend_room(p, avail)) {
			d->lost++;	/* the analysis cannot keep up: dropped, said so */
			r->tail = r->head;
		} else {
			while ((h = pp_perf_ring__next(r))) {
				memcpy(p->buf + p->len, h, h->size);
				p->len += h->size;
			}
		}
		pp_perf_ring__read_end(r);
		moved += avail;
	}
	for (int i = 0; final && i < el->nr_cpus; i++) {
		uint64_t rec[PP_LOST_RECORD_MAX / 8];
		uint16_t n = pp_perf_evlist__untold_lost(el, i, rec);

		if (n && !pend_room(&d->fill[i], n)) {
			memcpy(d->fill[i].buf + d->fill[i].len, rec, n);
			d->fill[i].len += n;
		}
	}
	for (int i = 0; d->ft && i < el->nr_cpus; i++) {
		struct ft_emit c = { d, &d->fill[el->nr_cpus + i] };
		size_t len = c.p->len;

		pp_ftrace__read(d->ft, i, final, ft_emit, &c);
		moved += c.p->len - len;
	}
	d->drained_to = start;
	if (moved)
		d->ready = 1;
}

static void *drain_thread(void *arg)
{
	struct pp_live_drain *d = arg;
	int final = 0;

	while (!final) {
		uint64_t v;

		pp_perf_evlist__poll(d->el, -1, NULL);
		if (read(d->kick, &v, sizeof(v)) < 0 && errno != EAGAIN)
			break;
		pthread_mutex_lock(&d->mu);
		final = d->final;
		drain_pass(d, final);
		pthread_cond_broadcast(&d->cv);
		pthread_mutex_unlock(&d->mu);
	}
	pthread_mutex_lock(&d->mu);
	d->done = 1;
	pthread_cond_broadcast(&d->cv);
	pthread_mutex_unlock(&d->mu);
	return NULL;
}

static void kick(struct pp_live_drain *d)
{
	uint64_t one = 1;

	if (write(d->kick, &one, sizeof(one)) < 0)
		return;		/* the counter is full: a kick is pending anyway */
}

/*
 * The thread, created at SCHED_FIFO priority 2 (above the analysis, which
 * takes priority 1 while busy): made at the normal policy and raised from
 * inside, it could wait behind every runnable task on a loaded host for its
 * first run while the command filled the rings. Where the policy is
 * refused, at the normal one.
 */
static int drain_create(struct pp_live_drain *d)
{
	struct sched_param sp = { .sched_priority = 2 };
	pthread_attr_t at;
	int ret = -1;

	if (!pthread_attr_init(&at)) {
		if (!pthread_attr_setinheritsched(&at, PTHREAD_EXPLICIT_SCHED) &&
		    !pthread_attr_setschedpolicy(&at, SCHED_FIFO) &&
		    !pthread_attr_setschedparam(&at, &sp))
			ret = pthread_create(&d->th, &at, drain_thread, d);
		pthread_attr_destroy(&at);
	}
	if (ret)
		ret = pthread_create(&d->th, NULL, drain_thread, d);
	return -ret;
}

int pp_live_drain__start(struct pp_live_drain **out, struct pp_perf_evlist *el,
			 struct pp_ftrace *ft, struct pp_walker *walker)
{
	struct pp_live_drain *d = calloc(1, sizeof(*d));
	sigset_t all, old;
	int ret;

	*out = NULL;
	if (!d)
		return -ENOMEM;
	d->el = el;
	d->ft = ft;
	d->walker = walker;
	d->nr = el->nr_cpus * (ft ? 2 : 1);
	d->fill = calloc((size_t)d->nr, sizeof(*d->fill));
	d->kick = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	pthread_mutex_init(&d->mu, NULL);
	pthread_cond_init(&d->cv, NULL);
	if (!d->fill || d->kick < 0) {
		ret = d->fill ? -errno : -ENOMEM;
		goto fail;
	}
	ret = pp_perf_evlist__add_pollfd(el, d->kick);
	if (ret)
		goto fail;
	/* Signals (SIGINT, SIGCHLD) stay with the session's thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = drain_create(d);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret)
		goto fail;
	d->started = 1;
	*out = d;
	return 0;
fail:
	pp_live_drain__free(d);
	return ret;
}

/* Deadline @ms from now for pthread_cond_timedwait (CLOCK_REALTIME). */
static struct timespec deadline_in(int ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

/* Swap the pending buffers into @b (emptied) and read the pass's figures, under mu. */
static void take_locked(struct pp_live_drain *d, struct pp_live_batch *b)
{
	for (int i = 0; i < d->nr; i++) {
		struct pp_live_pend t = d->fill[i];

		d->fill[i] = b->pend[i];
		d->fill[i].len = 0;
		b->pend[i] = t;
	}
	b->drained_to = d->drained_to;
	b->fullest = d->fullest;
	b->lost = d->lost;
	d->fullest = 0;
	d->lost = 0;
	d->ready = 0;
}

int pp_live_drain__take(struct pp_live_drain *d, int timeout_ms, struct pp_live_batch *b)
{
	struct timespec until = deadline_in(timeout_ms);
	int timedout = 0;

	pthread_mutex_lock(&d->mu);
	while (!d->ready && !d->done && !timedout)
		timedout = pthread_cond_timedwait(&d->cv, &d->mu, &until) == ETIMEDOUT;
	if (!d->ready && !d->done) {
		/* Nothing passed a watermark: a pass now, so that the watermark moves on. */
		uint64_t want = mono_ns();

		kick(d);
		while (d->drained_to < want && !d->done)
			pthread_cond_wait(&d->cv, &d->mu);
	}
	take_locked(d, b);
	pthread_mutex_unlock(&d->mu);
	return 0;
}

void pp_live_drain__finish(struct pp_live_drain *d, struct pp_live_batch *b)
{
	pthread_mutex_lock(&d->mu);
	d->final = 1;
	pthread_mutex_unlock(&d->mu);
	kick(d);
	pthread_join(d->th, NULL);
	d->started = 0;
	pthread_mutex_lock(&d->mu);
	take_locked(d, b);
	pthread_mutex_unlock(&d->mu);
}

struct pp_live_batch *pp_live_batch__new(const struct pp_live_drain *d)
{
	struct pp_live_batch *b = calloc(1, sizeof(*b));

	if (b && !(b->pend = calloc((size_t)d->nr, sizeof(*b->pend)))) {
		free(b);
		return NULL;
	}
	if (b)
		b->nr = d->nr;
	return b;
}

void pp_live_batch__free(struct pp_live_batch *b)
{
	if (!b)
		return;
	for (int i = 0; i < b->nr; i++)
		free(b->pend[i].buf);
	free(b->pend);
	free(b);
}

void pp_live_drain__free(struct pp_live_drain *d)
{
	if (!d)
		return;
	if (d->started) {
		pthread_mutex_lock(&d->mu);
		d->final = 1;
		pthread_mutex_unlock(&d->mu);
		kick(d);
		pthread_join(d->th, NULL);
	}
	for (int i = 0; d->fill && i < d->nr; i++)
		free(d->fill[i].buf);
	free(d->fill);
	if (d->kick >= 0)
		close(d->kick);
	pthread_mutex_destroy(&d->mu);
	pthread_cond_destroy(&d->cv);
	free(d);
}
