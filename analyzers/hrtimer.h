/* SPDX-License-Identifier: MIT */
/* hrtimer's burst window, exposed for unit tests (tests/test-catalog.c). */
#ifndef PP_ANALYZERS_HRTIMER_H
#define PP_ANALYZERS_HRTIMER_H

#include <stdint.h>

/*
 * The times of the last @n events of one CPU or thread, to answer "did at
 * least @n events fire in the period before T?" exactly: they did when the
 * oldest of the last @n is after T - period.
 */
struct pp_burst {
	uint64_t *ring;		/* @n times, oldest at @head once full */
	uint32_t n, head, fill;
};

/** pp_burst__init() - an empty window of @n (1..PP_BURST_MAX) times. Return: 0 or -ENOMEM. */
int pp_burst__init(struct pp_burst *b, uint32_t n);
#define PP_BURST_MAX	(1u << 20)

/** pp_burst__add() - an event at @t (times in order). */
void pp_burst__add(struct pp_burst *b, uint64_t t);

/**
 * pp_burst__hit() - did @n events fire in (@now - @period, @now]?
 * Return: 1 or 0.
 */
int pp_burst__hit(const struct pp_burst *b, uint64_t now, uint64_t period);

/** pp_burst__count() - events in (@now - @period, @now], counting at most @n. */
uint32_t pp_burst__count(const struct pp_burst *b, uint64_t now, uint64_t period);

/** pp_burst__exit() - free; accepts a zeroed window. */
void pp_burst__exit(struct pp_burst *b);

#endif /* PP_ANALYZERS_HRTIMER_H */
