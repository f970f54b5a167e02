/* SPDX-License-Identifier: MIT */
/*
 * One latency row, printed the same way by the profilers that pair events
 * into latencies (blktrace, kvm-exit, kvmmmu): calls, total, min, avg,
 * p50, p95, p99, max of a pp_hist, as a table row or as JSON members.
 */
#ifndef PP_ANALYZERS_LATROW_H
#define PP_ANALYZERS_LATROW_H

#include "pp/replay.h"
#include "hist.h"

/** pp_latrow__header() - the column titles after a @width-wide label column. */
void pp_latrow__header(struct pp_out *o, int width, const char *label);

/** pp_latrow__text() - "LABEL calls total min avg p50 p95 p99 max\n". */
void pp_latrow__text(struct pp_out *o, int width, const char *label, const struct pp_hist *h);

/**
 * pp_latrow__json() - the figures of @h as JSON members: inline
 * (,"calls":N,...) when @key is NULL, else as ,"@key":{"calls":N,...}.
 */
void pp_latrow__json(struct pp_session *s, const char *key, const struct pp_hist *h);

/** pp_latrow__json_obj() - the figures of @h as one JSON object {"calls":N,...}. */
void pp_latrow__json_obj(struct pp_session *s, const struct pp_hist *h);

#endif /* PP_ANALYZERS_LATROW_H */
