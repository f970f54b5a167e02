/* SPDX-License-Identifier: MIT */
/*
 * Flame graphs: collect weighted stacks, write them folded (flamegraph.pl,
 * inferno, speedscope) and as an interactive SVG rendered by pp itself.
 *
 * A stack is an array of frame strings, root first: by convention the
 * comm, then the outermost caller, ..., then the innermost frame. Kernel
 * frames must already carry the "_[k]" suffix. Frames and stacks are
 * interned in hash tables: adding a stack seen before costs hashing only,
 * with no allocation; new frames and stacks grow arrays amortised.
 *
 * With -i, pp_flame__set_slice() sets a label (e.g. "12:00:01.000") that
 * prefixes the stacks added afterwards: it becomes their root frame in both
 * outputs, as "LABEL;comm;...;inner N" in the folded file.
 *
 * SVG colours by frame kind: slice labels grey, the first frame after them
 * (the comm) blue, frames ending in "_[k]" orange, other frames red/yellow;
 * the shade is a deterministic hash of the name. Click zooms, "Reset zoom"
 * resets, "Search" (or Ctrl-F) asks for a regex, highlights matches and
 * shows their share of the total.
 */
#ifndef PP_ANALYZERS_FLAMEGRAPH_H
#define PP_ANALYZERS_FLAMEGRAPH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hist.h"	/* enum pp_unit */

struct pp_flame;

/* Output options; any field may be 0/NULL for the default. */
struct pp_flame_opts {
	const char *title;	/* default "Flame Graph" */
	const char *subtitle;	/* e.g. "off-CPU time (ns)"; default none */
	const char *count_name;	/* what a weight counts: default "samples" */
	enum pp_unit unit;	/* PP_UNIT_NS: hover shows weights as times */
	unsigned int width;	/* image width in pixels, default 1200 */
};

/**
 * pp_flame__new() - create an empty flame graph collector
 *
 * Return: the collector, freed with pp_flame__free(); NULL and errno on error.
 */
struct pp_flame *pp_flame__new(void);

/**
 * pp_flame__free() - free a collector and every string it copied
 * @fg: the collector (NULL accepted)
 */
void pp_flame__free(struct pp_flame *fg);

/**
 * pp_flame__add() - add @weight to a stack
 * @fg: the collector
 * @frames: @nr frame names, root (comm) first; copied, the caller keeps them.
 *          NULL or empty names are stored as "[unknown]"; ';' and newlines in
 *          names are replaced by ':' and ' ' in the folded output.
 * @nr: number of frames (0 adds to an empty stack, printed as "[unknown]";
 *      stacks deeper than 1024 frames are cut at the innermost end)
 * @weight: samples, or ns of off-CPU time, or bytes, ... (0 is ignored)
 *
 * Return: 0 or -ENOMEM.
 */
int pp_flame__add(struct pp_flame *fg, const char *const *frames, size_t nr, uint64_t weight);

/**
 * pp_flame__intern() - the id of frame @name, for pp_flame__add_ids()
 * @fg: the collector
 * @name: the frame (copied); NULL or empty is "[unknown]"
 *
 * Ids stay valid for the collector's life (pp_flame__reset() included): a
 * caller that sees the same frames again keeps their ids and skips hashing
 * the names.
 *
 * Return: the id (>= 0), or -ENOMEM.
 */
int64_t pp_flame__intern(struct pp_flame *fg, const char *name);

/**
 * pp_flame__add_ids() - pp_flame__add() with frames given by their ids
 * @fg: the collector
 * @ids: @nr ids from pp_flame__intern(), root first (at most 1024 are used)
 * @nr: number of frames
 * @weight: as for pp_flame__add()
 *
 * Return: 0 or -ENOMEM.
 */
int pp_flame__add_ids(struct pp_flame *fg, const uint32_t *ids, size_t nr, uint64_t weight);

/**
 * pp_flame__set_slice() - prefix the following stacks with a time-slice label
 * @fg: the collector
 * @label: the label (copied), or NULL to stop prefixing
 *
 * Return: 0 or -ENOMEM.
 */
int pp_flame__set_slice(struct pp_flame *fg, const char *label);

/**
 * pp_flame__reset() - forget every stack (keeps memory and the slice label)
 * @fg: the collector
 */
void pp_flame__reset(struct pp_flame *fg);

/**
 * pp_flame__total() - sum of the weights added since creation or reset
 * @fg: the collector
 *
 * Return: the total weight.
 */
uint64_t pp_flame__total(const struct pp_flame *fg);

/**
 * pp_flame__diff() - a differential flame graph of two collectors
 * @base: the profile before (its weights are the "before" counts)
 * @cur: the profile after (its weights size the frames)
 * @normalize: scale @base's weights by total(@cur)/total(@base), rounded to
 *             the nearest, so that a longer or busier base run does not read
 *             as growth everywhere (difffolded.pl -n); ignored when @base is empty
 *
 * Every stack of either collector is in the result, with both weights (0
 * where a side lacks it): pp_flame__write_folded() writes
 * "frame;... BEFORE AFTER" lines, as difffolded.pl does, first the stacks of
 * @cur in their order, then those only @base has. pp_flame__write_svg()
 * sizes frames by the after weights (a stack that vanished has no width) and
 * colours each by its change: red grew, blue shrank, saturated in proportion
 * to the largest change, white unchanged; the hover text adds the before
 * weight and the change in percent. pp_flame__total() is the after total.
 *
 * Return: a new collector (pp_flame__free()), or NULL with errno set.
 */
struct pp_flame *pp_flame__diff(const struct pp_flame *base, const struct pp_flame *cur, int normalize);

/**
 * pp_flame__total_before() - sum of the before weights of a differential collector
 * @fg: the collector (0 for one that is not differential)
 */
uint64_t pp_flame__total_before(const struct pp_flame *fg);

/**
 * pp_flame__write_folded() - write "frame;frame;... WEIGHT" lines
 * @fg: the collector
 * @fp: output stream
 *
 * Stacks come out in the order they were first added.
 *
 * Return: 0, -ENOMEM, or -EIO on a write error.
 */
int pp_flame__write_folded(const struct pp_flame *fg, FILE *fp);

/**
 * pp_flame__stack() - the @i-th stack, in the order pp_flame__write_folded() writes them
 * @fg: the collector
 * @i: the stack's index, from 0
 * @frames: receives up to @max frame names, root first, as added (the
 *          folded output's ';' and newline replacements not made); lent
 *          until the collector changes
 * @max: room in @frames
 * @slice: receives the stack's time-slice label, or NULL when it has none
 *         (the label is not among @frames)
 * @weight: receives the stack's weight
 *
 * For output the folded text cannot give, such as JSON.
 *
 * Return: the number of frames (when above @max, only @max were stored),
 * or -ENOENT past the last stack.
 */
int pp_flame__stack(const struct pp_flame *fg, size_t i, const char **frames, size_t max,
		    const char **slice, uint64_t *weight);

/**
 * pp_flame__write_svg() - render the interactive SVG
 * @fg: the collector
 * @fp: output stream
 * @opts: options (NULL for defaults)
 *
 * Frames are merged by prefix and sorted by name, as flamegraph.pl does;
 * frames narrower than 0.1 pixel are left out. An empty collector gives a
 * valid SVG saying "no samples".
 *
 * Return: 0, -ENOMEM or -EIO.
 */
int pp_flame__write_svg(const struct pp_flame *fg, FILE *fp, const struct pp_flame_opts *opts);

/**
 * pp_flame__write_files() - write NAME.folded and NAME.svg
 * @fg: the collector
 * @name: path prefix given with --flame-graph
 * @opts: SVG options (NULL for defaults)
 *
 * Return: 0 or -errno (the failing file is named on stderr).
 */
int pp_flame__write_files(const struct pp_flame *fg, const char *name,
			  const struct pp_flame_opts *opts);

/**
 * pp_xml_put() - write @s as XML character data or attribute value
 * @fp: output stream
 * @s: any bytes; markup characters are escaped, and invalid UTF-8 or
 *     control characters (which no escape can make valid XML) become '?'
 */
void pp_xml_put(FILE *fp, const char *s);

/**
 * pp_grow() - grow the array *@arr (capacity *@cap) to hold @need elements
 * of @size bytes, doubling from 64. Return: 0 or -ENOMEM (nothing changed).
 */
int pp_grow(void **arr, size_t *cap, size_t need, size_t size);

/**
 * pp_grow_from() - pp_grow() whose first capacity is @first elements, for an
 * array whose usual size is known (a pool of 4096 frames, 256 stacks).
 * Return: 0 or -ENOMEM (nothing changed).
 */
int pp_grow_from(void **arr, size_t *cap, size_t need, size_t size, size_t first);

#endif /* PP_ANALYZERS_FLAMEGRAPH_H */
