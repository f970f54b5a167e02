/* SPDX-License-Identifier: MIT */
/*
 * Private to replay/live.c: the thread that drains the live rings
 * (replay/live-drain.c).
 */
#ifndef PP_REPLAY_LIVE_DRAIN_H
#define PP_REPLAY_LIVE_DRAIN_H

#include <stddef.h>
#include <stdint.h>

struct pp_perf_evlist;
struct pp_ftrace;
struct pp_walker;
struct pp_live_drain;

/* Records of one stream, in ring order. */
struct pp_live_pend {
	uint8_t *buf;
	size_t len, cap;
};

/* What one take hands over: a buffer per stream (the evlist's CPUs, then ftrace's). */
struct pp_live_batch {
	struct pp_live_pend *pend;
	int nr;
	uint64_t drained_to;	/* every record stamped before this (less the slack) is in */
	uint64_t fullest;	/* the most bytes one ring held at a pass since the last take */
	uint64_t lost;		/* ring reads dropped since: the pending cap was reached */
};

/**
 * pp_live_drain__start() - start draining @el's rings (and @ft's CPUs, may
 * be NULL) in a thread of its own; @el's rings are its alone from here on,
 * until pp_live_drain__finish(). With @walker (-g, may be NULL) each record
 * goes through it as it is read: a walk is kept for its sample, which takes
 * the walk's frames.
 * Return: 0 or -errno.
 */
int pp_live_drain__start(struct pp_live_drain **d, struct pp_perf_evlist *el,
			 struct pp_ftrace *ft, struct pp_walker *walker);

/**
 * pp_live_drain__take() - wait until a ring's watermark brought records or
 * @timeout_ms passed (then drain once more), and swap what was drained into
 * @b; @b's buffers, which the caller has used up, go back to the thread.
 * Return: 0.
 */
int pp_live_drain__take(struct pp_live_drain *d, int timeout_ms, struct pp_live_batch *b);

/**
 * pp_live_drain__finish() - the events are off: drain everything left
 * (the ftrace rings to their end), stop the thread, swap the rest into @b.
 */
void pp_live_drain__finish(struct pp_live_drain *d, struct pp_live_batch *b);

/** pp_live_drain__free() - stop the thread if running and free; accepts NULL. */
void pp_live_drain__free(struct pp_live_drain *d);

/** pp_live_batch__new() - buffers for @d's streams, empty. Return: NULL on ENOMEM. */
struct pp_live_batch *pp_live_batch__new(const struct pp_live_drain *d);

/** pp_live_batch__free() - accepts NULL. */
void pp_live_batch__free(struct pp_live_batch *b);

#endif
