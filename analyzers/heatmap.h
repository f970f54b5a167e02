/* SPDX-License-Identifier: MIT */
/*
 * Latency heat map: x = time columns, y = power-of-two latency rows,
 * colour = number of events, written as an SVG by pp (axes, legend, a
 * tooltip on every cell).
 *
 * Columns have a fixed width (@slot_ns), or, with @slot_ns = 0, an
 * automatic one: it starts at 1 ms and doubles (merging column pairs)
 * whenever the trace would need more than PP_HEATMAP_MAX_COLS columns, so
 * memory stays bounded whatever the trace length. With a fixed width the
 * same doubling happens if the cap is hit. Adding is O(1) and allocates
 * only when the time span grows.
 */
#ifndef PP_ANALYZERS_HEATMAP_H
#define PP_ANALYZERS_HEATMAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hist.h"	/* enum pp_unit */

#define PP_HEATMAP_MAX_COLS	1024
#define PP_HEATMAP_ROWS		65	/* row 0: value 0; row r: [2^(r-1), 2^r) */

struct pp_heatmap;

/* SVG options; any field may be 0/NULL for the default. */
struct pp_heatmap_opts {
	const char *title;	/* default "Latency heat map" */
	const char *subtitle;	/* e.g. "sys_enter -> sys_exit"; default none */
	enum pp_unit unit;	/* unit of the y values; default PP_UNIT_NONE */
};

/**
 * pp_heatmap__new() - create an empty heat map
 * @slot_ns: column width in ns, 0 for automatic
 *
 * The time origin is the time of the first event added (see
 * pp_heatmap__set_start()); x labels are seconds from it.
 *
 * Return: the heat map, freed with pp_heatmap__free(); NULL and errno on error.
 */
struct pp_heatmap *pp_heatmap__new(uint64_t slot_ns);

/**
 * pp_heatmap__free() - free a heat map
 * @hm: the heat map (NULL accepted)
 */
void pp_heatmap__free(struct pp_heatmap *hm);

/**
 * pp_heatmap__set_start() - set the time origin (e.g. the trace start)
 * @hm: the heat map, before the first pp_heatmap__add()
 * @start_ns: origin in ns (same clock as the event times)
 */
void pp_heatmap__set_start(struct pp_heatmap *hm, uint64_t start_ns);

/**
 * pp_heatmap__add() - count one event
 * @hm: the heat map
 * @time_ns: when it happened (events before the origin count in column 0)
 * @value: its latency (or any value in the heat map's unit)
 *
 * Return: 0 or -ENOMEM.
 */
int pp_heatmap__add(struct pp_heatmap *hm, uint64_t time_ns, uint64_t value);

/**
 * pp_heatmap__count() - number of events added
 * @hm: the heat map
 *
 * Return: the count.
 */
uint64_t pp_heatmap__count(const struct pp_heatmap *hm);

/**
 * pp_heatmap__write_svg() - render the heat map
 * @hm: the heat map
 * @fp: output stream
 * @opts: options (NULL for defaults)
 *
 * An empty heat map gives a valid SVG saying "no events".
 *
 * Return: 0 or -EIO.
 */
int pp_heatmap__write_svg(const struct pp_heatmap *hm, FILE *fp,
			  const struct pp_heatmap_opts *opts);

/**
 * pp_heatmap__write_file() - write the SVG to @path
 * @hm: the heat map
 * @path: file name (--heatmap FILE; ".svg" is appended unless present)
 * @opts: options (NULL for defaults)
 *
 * Return: 0 or -errno (the failing file is named on stderr).
 */
int pp_heatmap__write_file(const struct pp_heatmap *hm, const char *path,
			   const struct pp_heatmap_opts *opts);

#endif /* PP_ANALYZERS_HEATMAP_H */
