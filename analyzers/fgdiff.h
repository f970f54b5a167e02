/* SPDX-License-Identifier: MIT */
/*
 * Differential flame graphs for the modules that draw one (profile,
 * task-state -g, offcpu): `--diff BASE.trace` replays BASE through the same
 * module with the same options first, keeps its flame graph, and at the
 * report writes NAME.folded with two counts per stack ("stack before
 * after", difffolded.pl's format) and NAME.svg coloured by growth (red) and
 * shrink (blue); BASE's counts are scaled to this run's total unless
 * `--no-normalize`. Without --diff, pp_fgdiff__write() writes the plain
 * flame graph, so a module has one call for both.
 */
#ifndef PP_ANALYZERS_FGDIFF_H
#define PP_ANALYZERS_FGDIFF_H

#include "flamegraph.h"

struct pp_session;

/**
 * pp_flame__report() - a module's --flame-graph at its report: write
 * @name.folded and @name.svg, say so on stderr, or fail the session with
 * the error (pp_session__fail()).
 * @s: session; @fg: the graph; @name: the files' name; @fo: as
 * pp_flame__write_files() takes it (NULL: defaults).
 * Return: 0 or -errno.
 */
int pp_flame__report(struct pp_session *s, const struct pp_flame *fg, const char *name,
		     const struct pp_flame_opts *fo);

/* The module options, for a module's pp_mod_opt table. */
#define PP_FGDIFF_OPTS \
	{ "diff", 0, 1, "BASE  with --flame-graph: a differential flame graph, BASE (a trace) before, FILE after" }, \
	{ "no-normalize", 0, 0, "with --diff: compare raw counts (default: BASE scaled to FILE's total)" }

/**
 * pp_fgdiff__init() - in a module's init: with --diff BASE, replay BASE
 * through module @name with the same options (no --diff; its output
 * discarded) and keep its flame graph for the report.
 * @s: session; @name: the module's name (pp_analyzer__find()).
 *
 * Return: 0 (also without --diff, and inside the BASE replay itself),
 * -EINVAL for a usage error (--diff without --flame-graph, with -i;
 * --no-normalize without --diff), or the BASE replay's error; the message
 * is printed.
 */
int pp_fgdiff__init(struct pp_session *s, const char *name);

/**
 * pp_fgdiff__write() - a module's flame graph output: NAME.folded and NAME.svg
 * of @fg, or of its difference from BASE with --diff; inside the BASE
 * replay, keeps a copy of @fg and writes nothing. Prints what it wrote or
 * why it could not, and fails the session (pp_session__fail()) on error.
 * @s: session; @fg: the module's collector; @name: --flame-graph NAME;
 * @fo: SVG options.
 *
 * Return: 0 or -errno.
 */
int pp_fgdiff__write(struct pp_session *s, const struct pp_flame *fg, const char *name,
		     const struct pp_flame_opts *fo);

/** pp_fgdiff__exit() - in a module's deinit: free what pp_fgdiff__init() kept. */
void pp_fgdiff__exit(struct pp_session *s);

#endif /* PP_ANALYZERS_FGDIFF_H */
