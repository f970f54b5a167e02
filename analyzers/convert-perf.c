// SPDX-License-Identifier: MIT
/*
 * convert --to=perf-script: each event as `perf script` (perf 6.x, default
 * fields) prints it, so the scripts written for that text take pp files:
 *
 *   COMM TID [CPU] SEC.USEC: [PERIOD] EVENT: FIELDS
 *   \t    ADDR SYM+0xOFF (DSO)          one line per frame, callee first
 *   (blank line after a stack)
 *
 * as perf lays it out: COMM is right-aligned in 16 columns unless the event
 * has a stack; TID in 5; [CPU] when the event samples the CPU; the time
 * truncated to microseconds; PERIOD (10 columns) for samples that are not
 * tracepoints; EVENT right-aligned to the longest event name of the file;
 * a sample without a stack gets its ip, symbol and DSO on the line. In
 * stacks, user addresses are the DSO's (run-time address less the mapping's
 * start plus its file offset) and kernel ones are as they are, the DSO is
 * the file's path or [kernel.kallsyms] (a module as [NAME]); a frame
 * without a symbol is [unknown], as perf writes them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include "convert.h"

#define PS_MAX_FRAMES	1024

struct ps {
	struct pp_convert_stats *st;
	int width;		/* the longest event name */
	uint64_t ips[PS_MAX_FRAMES];
	uint8_t kern[PS_MAX_FRAMES];
};

static int ps_init(struct pp_session *s, void **state, struct pp_convert_stats *st)
{
	struct ps *p = calloc(1, sizeof(*p));
	struct pp_evsel *ev;
	size_t nr;

	if (!p)
		return -ENOMEM;
	p->st = st;
	ev = pp_session__evsels(s, &nr);
	for (size_t i = 0; i < nr; i++) {
		int n = (int)strlen(ev[i].name);

		if (!pp_convert_is_dummy(&ev[i]) && n > p->width)
			p->width = n;
	}
	*state = p;
	return 0;
}

/* " ADDR SYM+0xOFF (DSO)" of one code address, @rel: user addresses DSO-relative. */
static void ps_frame(struct pp_session *s, struct pp_out *o, uint32_t pid, uint64_t ip, int kernel,
		     int rel)
{
	struct pp_map_info m;
	const char *dso = NULL;
	char name[256];
	uint64_t off = 0, addr = ip;
	int found = pp_session__sym(s, pid, ip, kernel, name, sizeof(name), &dso);
	int mapped = pp_session__map(s, pid, ip, kernel, &m);

	if (found && !pp_session__sym_offset(s, pid, ip, kernel, &off))
		off = 0;
	if (rel && !kernel && mapped)
		addr = ip - m.start + m.pgoff;
	pp_out__printf(o, "%16llx ", (unsigned long long)addr);
	if (found)
		pp_out__printf(o, "%s+0x%llx", name, (unsigned long long)off);
	else
		pp_out__puts(o, "[unknown]");
	pp_out__puts(o, " (");
	if (kernel)
		pp_out__printf(o, dso && *dso && *dso != '[' ? "[%s]" : "%s",
			       dso && *dso ? dso : "[kernel.kallsyms]");
	else
		pp_out__puts(o, mapped && m.path ? m.path : "[unknown]");
	pp_out__putc(o, ')');
}

static void ps_sample(struct pp_session *s, void *state, const struct pp_event *e)
{
	struct ps *p = state;
	struct pp_out *o = pp_session__out(s);
	const struct pp_evsel *ev = e->evsel;
	size_t nr = e->nr_callchain ? pp_session__stack_ips(s, e, p->ips, p->kern, PS_MAX_FRAMES) : 0;
	int fields = ev->tp || ev->btf;

	if (pp_convert_is_dummy(ev))
		return;
	p->st->events++;
	p->st->frames += nr;
	pp_out__printf(o, nr ? "%s " : "%16s ", pp_session__comm(s, e->tid));
	pp_out__printf(o, "%5u ", e->tid);
	if (ev->sample_type & PERF_SAMPLE_CPU)
		pp_out__printf(o, "[%03u] ", e->cpu);
	pp_out__printf(o, "%5llu.%06llu: ", (unsigned long long)(e->time / 1000000000ull),
		       (unsigned long long)(e->time % 1000000000ull / 1000));
	if (!fields)
		pp_out__printf(o, "%10llu ", (unsigned long long)e->period);
	pp_out__printf(o, "%*s: ", p->width, ev->name);
	if (fields) {
		pp_session__print_event(s, e);
	} else if (!nr && e->ip) {
		pp_out__putc(o, ' ');
		ps_frame(s, o, e->pid, e->ip, e->ip >= 0xffff800000000000ull, 0);
	}
	pp_out__putc(o, '\n');
	if (!nr)
		return;
	while (nr--) {		/* stack_ips() gives the root first: print callee first */
		pp_out__putc(o, '\t');
		ps_frame(s, o, e->pid, p->ips[nr], p->kern[nr], 1);
		pp_out__putc(o, '\n');
	}
	pp_out__putc(o, '\n');
}

static void ps_end(struct pp_session *s, void *state)
{
}

static void ps_free(void *state)
{
	free(state);
}

static void ps_lost(struct pp_session *s, void *state, const struct pp_lost *l)
{
	struct ps *p = state;

	p->st->lost++;	/* perf script prints nothing for them either (without --show-lost-events) */
}

const struct pp_convert_fmt pp_convert_perf_script = {
	.name = "perf-script",
	.desc = "perf script text",
	.init = ps_init,
	.sample = ps_sample,
	.lost = ps_lost,
	.end = ps_end,
	.free = ps_free,
};
