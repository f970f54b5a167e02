// SPDX-License-Identifier: MIT
/*
 * --diff BASE: differential flame graphs (see fgdiff.h). The BASE replay is
 * a second session of the same module, run from the first one's init; the
 * module's report in that session hands its collector over through
 * pp_fgdiff__write(). One diff at a time: pp-analyze runs one profiler.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "pp/analyzer.h"
#include "pp/replay.h"
#include "fgdiff.h"

static struct {
	struct pp_session *owner;	/* the session with --diff */
	struct pp_session *base_run;	/* the BASE replay while it runs */
	struct pp_flame *base;		/* BASE's flame graph (a copy) */
	const char *base_path;
	int normalize;
} g_diff;

int pp_fgdiff__init(struct pp_session *s, const char *name)
{
	const struct pp_opts *o = pp_session__opts(s);
	const char *base = pp_opts__mod(o, "diff");
	const struct pp_analyzer *a;
	struct pp_session *bs;
	struct pp_opts bo;
	int ret;

	if (s == g_diff.base_run)
		return 0;
	if (!base) {
		if (pp_opts__mod(o, "no-normalize"))
			return pp_analyzer__err(name, -EINVAL, "--no-normalize needs --diff BASE");
		return 0;
	}
	if (!*base)
		return pp_analyzer__err(name, -EINVAL, "--diff needs a BASE trace file");
	if (!o->flame_graph)
		return pp_analyzer__err(name, -EINVAL, "--diff needs --flame-graph NAME (NAME.folded gets "
			"'stack before after' lines, NAME.svg the differential graph)");
	if (o->interval_ns)
		return pp_analyzer__err(name, -EINVAL, "--diff compares whole runs: not with -i");
	if (g_diff.owner)
		return pp_analyzer__err(name, -EINVAL, "one --diff at a time");
	a = pp_analyzer__find(name);
	if (!a)
		return -EINVAL;
	/* the same options, minus the diff's own and the outputs */
	bo = *o;
	bo.nr_mod = 0;
	for (int i = 0; i < o->nr_mod; i++) {
		if (strcmp(o->mod[i].name, "diff") && strcmp(o->mod[i].name, "no-normalize"))
			bo.mod[bo.nr_mod++] = o->mod[i];
	}
	bo.input = base;
	bo.output = "/dev/null";
	bs = pp_session__new(a, &bo);
	if (!bs)
		return errno == EINVAL ? -EINVAL : -errno;
	g_diff.base_run = bs;
	ret = pp_session__open_file(bs, base) ? -EIO : pp_session__run(bs);
	g_diff.base_run = NULL;
	pp_session__free(bs);
	if (ret) {
		pp_flame__free(g_diff.base);
		g_diff.base = NULL;
		return ret;
	}
	g_diff.owner = s;
	g_diff.base_path = base;
	g_diff.normalize = !pp_opts__mod(o, "no-normalize");
	return 0;
}

int pp_flame__report(struct pp_session *s, const struct pp_flame *fg, const char *name,
		     const struct pp_flame_opts *fo)
{
	int ret = pp_flame__write_files(fg, name, fo);

	if (!ret)
		fprintf(stderr, "pp-analyze: wrote %s.folded and %s.svg\n", name, name);
	pp_session__fail(s, ret);
	return ret;
}

int pp_fgdiff__write(struct pp_session *s, const struct pp_flame *fg, const char *name,
		     const struct pp_flame_opts *fo)
{
	struct pp_flame_opts dfo;
	struct pp_flame *empty, *d;
	char title[160], sub[512];
	int ret;

	if (s == g_diff.base_run) {
		/* a copy: the module frees its own */
		empty = pp_flame__new();
		d = empty ? pp_flame__diff(empty, fg, 0) : NULL;
		pp_flame__free(empty);
		if (!d) {
			fprintf(stderr, "pp-analyze: out of memory for the --diff base flame graph\n");
			pp_session__fail(s, -ENOMEM);
			return -ENOMEM;
		}
		pp_flame__free(g_diff.base);
		g_diff.base = d;
		return 0;
	}
	if (s != g_diff.owner)
		return pp_flame__report(s, fg, name, fo);
	empty = g_diff.base ? NULL : pp_flame__new();	/* BASE drew none: all is new */
	d = g_diff.base || empty ? pp_flame__diff(g_diff.base ? g_diff.base : empty, fg,
						  g_diff.normalize) : NULL;
	pp_flame__free(empty);
	if (!d) {
		fprintf(stderr, "pp-analyze: out of memory for the differential flame graph\n");
		pp_session__fail(s, -ENOMEM);
		return -ENOMEM;
	}
	dfo = fo ? *fo : (struct pp_flame_opts){ 0 };
	snprintf(title, sizeof(title), "%s: difference", dfo.title ? dfo.title : "Flame Graph");
	snprintf(sub, sizeof(sub), "red grew, blue shrank, from %s%s; widths: this run", g_diff.base_path,
		 g_diff.normalize ? " (scaled to this run's total)" : "");
	dfo.title = title;
	dfo.subtitle = sub;
	ret = pp_flame__write_files(d, name, &dfo);
	if (!ret)
		fprintf(stderr, "pp-analyze: wrote %s.folded (before after) and %s.svg, against %s\n",
			name, name, g_diff.base_path);
	pp_flame__free(d);
	pp_session__fail(s, ret);
	return ret;
}

void pp_fgdiff__exit(struct pp_session *s)
{
	if (s != g_diff.owner)
		return;
	pp_flame__free(g_diff.base);
	memset(&g_diff, 0, sizeof(g_diff));
}
