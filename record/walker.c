// SPDX-License-Identifier: MIT
/*
 * -g by the kernel-side walker for a set of events (include/pp/walker.h):
 * the recorder's and the live source's. The tables and the join are
 * record/uwalk.c's, the program record/bpf.c's; this file ties them to an
 * evlist.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "pp/perf.h"
#include "pp/sample.h"
#include "pp/walker.h"
#include "record.h"

/* How long the start waits for the tables of the processes named (-p, a workload). */
#define UW_SETTLE_MS	10000
#define UW_BUF		65536	/* a sample rewritten with its walk */

struct pp_walker {
	struct pp_perf_evlist *el;
	struct pp_walker_opts o;
	struct pp_bpf_filter *prog;	/* the filter program with the walker */
	struct pp_uwalk *uw;		/* NULL: not attached, or fallen back */
	int out_ei;			/* the walks' output event */
	uint8_t *walked;		/* per evsel: its samples are walked */
	uint8_t *buf;			/* UW_BUF bytes */
};

static void say(const struct pp_walker *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const struct pp_walker *w, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	if (!w->o.say)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	w->o.say(w->o.ctx, line);
}

int pp_walker__new(struct pp_perf_evlist *el, const struct pp_walker_opts *o,
		   struct pp_walker **out, char *mode, size_t mode_len, char *err, size_t errlen)
{
	struct perf_event_attr a_out = {
		.type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_BPF_OUTPUT,
		.size = sizeof(struct perf_event_attr), .sample_period = 1,
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			       PERF_SAMPLE_RAW,
		.sample_id_all = 1, .disabled = 1, .use_clockid = 1, .clockid = CLOCK_MONOTONIC,
	};
	struct pp_walker *w;
	char why[128];
	int any = 0, ei;

	*out = NULL;
	err[0] = '\0';
	snprintf(mode, mode_len, "%s", o->dwarf ? "dwarf" : "fp");
	w = calloc(1, sizeof(*w));
	if (!w || !(w->walked = calloc((size_t)el->nr_evsels + 1, 1))) {
		free(w);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	w->el = el;
	w->o = *o;
	for (ei = 0; ei < el->nr_evsels; ei++) {
		const struct perf_event_attr *a = &el->evsels[ei].attr;

		w->walked[ei] = (a->sample_type & PERF_SAMPLE_CALLCHAIN) && !a->exclude_user &&
				!a->exclude_callchain_user && !el->evsels[ei].external;
		any |= w->walked[ei];
		if (a->use_clockid)
			a_out.clockid = a->clockid;	/* one clock in a ring */
	}
	if (!any)
		mode[0] = '\0';	/* no user stack: no call_graph to tell */
	if (!any || o->dwarf || o->mode == PP_CG_FP || o->mode == PP_CG_DWARF) {
		pp_walker__free(w);
		return 0;
	}
	if (!pp_uwalk_available(why, sizeof(why))) {
		if (o->mode != PP_CG_BPF) {
			snprintf(mode, mode_len, "fp (the kernel-side walker does not run here: %s)",
				 why);
			say(w, "-g: user stacks by frame pointer: %s", why);
		}
		pp_walker__free(w);
		if (o->mode == PP_CG_BPF) {
			snprintf(err, errlen, "--call-graph bpf: %s", why);
			return -EOPNOTSUPP;
		}
		return 0;
	}
	w->out_ei = pp_perf_evlist__add(el, &a_out, "unwind", NULL);
	if (w->out_ei < 0) {
		pp_walker__free(w);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	el->evsels[w->out_ei].system_wide = 1;
	snprintf(mode, mode_len, "bpf");
	*out = w;
	return 0;
}

/* Plain -g without the walker, @why: the events keep the frame-pointer walk. */
static void walker_off(struct pp_walker *w, char *mode, size_t mode_len, const char *why)
{
	snprintf(mode, mode_len, "fp (the kernel-side walker: %s)", why);
	memset(w->walked, 0, (size_t)w->el->nr_evsels);
	pp_uwalk__free(w->uw);
	w->uw = NULL;
	pp_bpf_filter__free(w->prog);
	w->prog = NULL;
	say(w, "-g: user stacks by frame pointer: the kernel-side walker: %s", why);
}

/* The walks' output: each CPU's output event. Return: 0 or -errno, @err set. */
static int walker_start(struct pp_walker *w, int all, char *err, size_t errlen)
{
	const struct pp_perf_evlist *el = w->el;
	const struct pp_perf_evsel *out = &el->evsels[w->out_ei];
	struct pp_bpf_filter_opts fo = w->o.filter;
	struct pp_bpf_unwind_maps um;
	int nt = out->nr_ids / el->nr_cpus, k, *fds;

	fo.unwind = 1;
	w->prog = pp_bpf_filter__new(&fo, err, errlen);
	if (!w->prog)
		return -EINVAL;
	w->buf = malloc(UW_BUF);
	fds = calloc((size_t)el->nr_cpus, sizeof(*fds));
	if (!w->buf || !fds) {
		free(fds);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (k = 0; k < el->nr_cpus; k++)
		fds[k] = out->fds[k * nt];
	pp_bpf_filter__unwind_maps(w->prog, &um);
	if (pp_bpf_unwind__set_outputs(&um, el->cpus, fds, el->nr_cpus) < 0)
		snprintf(err, errlen, "cannot point it at the unwind events");
	else
		w->uw = pp_uwalk__new(&um, el->nr_cpus, all, err, errlen);
	free(fds);
	return w->uw ? 0 : -EINVAL;
}

int pp_walker__attach(struct pp_walker *w, int all, int widened, pid_t child,
		      const char *child_path,
		      const pid_t *procs, int nr, char *mode, size_t mode_len, char *err,
		      size_t errlen)
{
	const int bpf = w->o.mode == PP_CG_BPF;
	char why[512];
	int ei, k;

	if (walker_start(w, all, why, sizeof(why))) {
		if (bpf) {
			snprintf(err, errlen, "--call-graph bpf: %s", why);
			return -EINVAL;
		}
		walker_off(w, mode, mode_len, why);
		return 0;
	}
	for (ei = 0; ei < w->el->nr_evsels; ei++) {
		const struct pp_perf_evsel *e = &w->el->evsels[ei];

		for (k = 0; w->walked[ei] && k < e->nr_ids; k++) {
			if (e->fds[k] < 0 ||
			    !pp_bpf_filter__attach(w->prog, e->fds[k], e->attr.type, why, sizeof(why)))
				continue;
			/* plain -g: an event the program cannot be on keeps frame pointers */
			if (bpf || k) {
				snprintf(err, errlen, "%s%s: %s", bpf ? "--call-graph bpf: " : "",
					 e->name, why);
				return -EINVAL;
			}
			say(w, "-g: %s: user stacks by frame pointer: %s", e->name, why);
			w->walked[ei] = 0;
			break;
		}
	}
	if (widened)
		pp_uwalk__widened(w->uw);
	if (child > 0)
		pp_uwalk__expect(w->uw, (uint32_t)child);	/* not exec'd yet */
	if (child > 0 && child_path && *child_path)
		pp_uwalk__prebuild(w->uw, child_path);
	for (k = 0; k < nr; k++)
		pp_uwalk__track(w->uw, (uint32_t)procs[k]);
	/* whole stacks from the first sample of the processes named */
	if ((nr || (child > 0 && child_path && *child_path)) &&
	    pp_uwalk__settle(w->uw, UW_SETTLE_MS))
		say(w, "-g: the unwind tables of the processes are not all built after %d s: "
		    "their first stacks may be walked by frame pointer", UW_SETTLE_MS / 1000);
	return 0;
}

void pp_walker__enable(struct pp_walker *w)
{
	const struct pp_perf_evsel *e;

	if (!w || !w->uw)
		return;
	e = &w->el->evsels[w->out_ei];
	for (int k = 0; k < e->nr_ids; k++)
		if (e->fds[k] >= 0)
			pp_perf_event__enable(e->fds[k]);
}

const struct perf_event_header *pp_walker__record(struct pp_walker *w, int ci,
						  const struct perf_event_header *h, int ei)
{
	const uint64_t st = ei >= 0 ? w->el->evsels[ei].attr.sample_type : 0;
	struct pp_sample x;
	size_t n;

	if (!w->uw)
		return h;
	if (h->type != PERF_RECORD_SAMPLE) {
		if (h->type == PERF_RECORD_LOST || h->type == PERF_RECORD_LOST_SAMPLES)
			pp_uwalk__lost(w->uw, ci);
		else
			pp_uwalk__sideband(w->uw, h);
		return h;
	}
	if (ei < 0 || (ei != w->out_ei && !w->walked[ei]))
		return h;
	if (pp_sample__parse(st, h, h->size, &x))
		return ei == w->out_ei ? NULL : h;
	if (ei == w->out_ei) {
		pp_uwalk__walk(w->uw, ci, x.raw, x.raw_size, x.time);
		return NULL;
	}
	n = pp_uwalk__join(w->uw, ci, h, h->size, st, &x, w->buf, UW_BUF);
	return n ? (const struct perf_event_header *)w->buf : h;
}

int pp_walker__walks(const struct pp_walker *w, int ei)
{
	return w && ei >= 0 && ei < w->el->nr_evsels && w->walked[ei];
}

int pp_walker__output(const struct pp_walker *w)
{
	return w ? w->out_ei : -1;
}

int pp_walker__active(const struct pp_walker *w)
{
	return w && w->uw;
}

int pp_walker__filter_counts(struct pp_walker *w, uint64_t *kept, uint64_t *dropped)
{
	return w && w->prog ? pp_bpf_filter__counts(w->prog, kept, dropped) : -ENOENT;
}

void pp_walker__summary(const struct pp_walker *w, char *buf, size_t len)
{
	if (w && w->uw)
		pp_uwalk__summary(w->uw, buf, len);
	else if (len)
		buf[0] = '\0';
}

struct pp_uwalk *pp_walker__uwalk(const struct pp_walker *w)
{
	return w ? w->uw : NULL;
}

void pp_walker__free(struct pp_walker *w)
{
	if (!w)
		return;
	pp_uwalk__free(w->uw);	/* its thread, before the maps it fills */
	pp_bpf_filter__free(w->prog);
	free(w->walked);
	free(w->buf);
	free(w);
}
