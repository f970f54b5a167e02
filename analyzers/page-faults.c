// SPDX-License-Identifier: MIT
/*
 * page-faults: the software event page-faults sampled on every fault with
 * PERF_SAMPLE_ADDR and the stack: each fault prints its address, the
 * faulting instruction and the stack (perf-prof page-faults), and the report
 * counts faults per process. Also an event source for trace and multi-trace
 * (-e page-faults).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include "pp/replay.h"
#include "analyzers.h"
#include "json.h"
#include "sched-common.h"

struct pf_proc {
	uint32_t pid;
	uint64_t faults;
	uint64_t lo, hi;		/* lowest and highest faulting address */
};

struct page_faults {
	struct pp_kmap procs;		/* pid -> struct pf_proc */
	int summary;
	uint64_t total;
};

static int pf_is_fault(const struct pp_evsel *ev)
{
	return ev->type == PERF_TYPE_SOFTWARE && (ev->config == PERF_COUNT_SW_PAGE_FAULTS ||
						  ev->config == PERF_COUNT_SW_PAGE_FAULTS_MIN ||
						  ev->config == PERF_COUNT_SW_PAGE_FAULTS_MAJ);
}

static int pf_events(const struct pp_opts *o, struct pp_event_reqs *out)
{
	out->nr = 1;
	out->req[0].spec = "page-faults";
	out->req[0].callchain = 1;
	out->req[0].exclude_user = o->exclude_user;
	out->req[0].exclude_kernel = o->exclude_kernel;
	return 0;
}

static int pf_init(struct pp_session *s)
{
	struct page_faults *pf = calloc(1, sizeof(*pf));
	size_t nr;
	struct pp_evsel *evs = pp_session__evsels(s, &nr);
	int found = 0;

	if (!pf)
		return -ENOMEM;
	pp_session__set_priv(s, pf);
	pp_kmap__init(&pf->procs, sizeof(struct pf_proc));
	pf->summary = pp_opts__mod(pp_session__opts(s), "summary") != NULL;
	for (size_t i = 0; i < nr; i++)
		found |= pf_is_fault(&evs[i]);
	if (!found)
		return pp_analyzer__err("page-faults", -ENOENT, "the trace has no page-faults event "
			"(record with: pp-record page-faults -- CMD)");
	return 0;
}

/* "addr ADDR ip IP SYM" */
static void pf_describe(struct pp_session *s, const struct pp_event *e, char *buf, size_t len)
{
	char sym[96];
	int kernel = e->ip >= 0xffff800000000000ull;

	pp_session__sym(s, e->pid, e->ip, kernel, sym, sizeof(sym), NULL);
	snprintf(buf, len, "addr %llx ip %llx %s", (unsigned long long)e->addr,
		 (unsigned long long)e->ip, sym);
}

static void pf_sample(struct pp_session *s, const struct pp_event *e)
{
	struct page_faults *pf = pp_session__priv(s);
	struct pf_proc *p;
	int created;

	if (!pf_is_fault(e->evsel))
		return;
	pf->total++;
	p = pp_kmap__get(&pf->procs, e->pid, &created);
	if (p) {
		if (created) {
			p->pid = e->pid;
			p->lo = e->addr;
		}
		p->faults++;
		if (e->addr < p->lo)
			p->lo = e->addr;
		if (e->addr > p->hi)
			p->hi = e->addr;
	}
	if (!pf->summary && pp_session__opts(s)->json) {
		char sym[96];

		pp_session__sym(s, e->pid, e->ip, e->ip >= 0xffff800000000000ull, sym, sizeof(sym), NULL);
		pp_json__begin(s, "fault", e->time);
		pp_json__task(s, e);
		pp_json__hex(s, "addr", e->addr);
		pp_json__hex(s, "ip", e->ip);
		pp_json__str(s, "sym", sym);
		pp_json__stack(s, e);
		pp_json__end(s);
	} else if (!pf->summary) {
		struct pp_out *o = pp_session__out(s);
		char tb[32], d[160];

		pp_session__format_time(s, e->time, tb);
		pf_describe(s, e, d, sizeof(d));
		pp_out__printf(o, "%s %16s %7u/%-7u [%03u] page-fault: %s\n", tb,
			       pp_session__comm(s, e->tid), e->pid, e->tid, e->cpu, d);
		if (e->nr_callchain)
			pp_session__print_stack(s, e, "\t");
	}
}

static int cmp_proc(const void *a, const void *b)
{
	const struct pf_proc *x = *(const struct pf_proc *const *)a;
	const struct pf_proc *y = *(const struct pf_proc *const *)b;

	if (x->faults != y->faults)
		return x->faults > y->faults ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static void pf_report(struct pp_session *s)
{
	struct page_faults *pf = pp_session__priv(s);
	struct pp_out *o = pp_session__out(s);
	int json = pp_session__opts(s)->json;
	struct pf_proc **list = malloc((pf->procs.nr ? pf->procs.nr : 1) * sizeof(*list));
	size_t n = 0;

	if (!list)
		return;
	for (size_t i = 0; i < pf->procs.cap; i++) {
		struct pf_proc *p = pp_kmap__nth(&pf->procs, i, NULL);

		if (p)
			list[n++] = p;
	}
	qsort(list, n, sizeof(*list), cmp_proc);
	if (!json)
		pp_out__printf(o, "%s%8s %-16s %10s  %s\n", pf->summary ? "" : "\n", "PID", "COMM",
			       "FAULTS", "ADDRESSES");
	for (size_t i = 0; i < n; i++) {
		const struct pf_proc *p = list[i];
		const char *comm = pp_session__comm(s, p->pid);

		if (json) {
			pp_json__begin(s, "process", pp_session__stats(s)->last_ts);
			pp_json__u64(s, "pid", p->pid);
			pp_json__str(s, "comm", comm);
			pp_json__u64(s, "faults", p->faults);
			pp_json__hex(s, "lo", p->lo);
			pp_json__hex(s, "hi", p->hi);
			pp_json__end(s);
		} else {
			pp_out__printf(o, "%8u %-16s %10llu  %llx-%llx\n", p->pid, comm,
				       (unsigned long long)p->faults, (unsigned long long)p->lo,
				       (unsigned long long)p->hi);
		}
	}
	free(list);
}

static void pf_deinit(struct pp_session *s)
{
	struct page_faults *pf = pp_session__priv(s);

	if (!pf)
		return;
	pp_kmap__exit(&pf->procs);
	free(pf);
}

/* As an event source: each fault, described as above, with its stack. */
static int pf_src_match(const struct pp_opts *o, const struct pp_evsel *ev)
{
	return pf_is_fault(ev);
}

static int pf_src_sample(struct pp_session *s, void *state, const struct pp_event *e,
			 struct pp_src_event *out)
{
	out->e = *e;
	out->addr = e->addr;
	pf_describe(s, e, out->text, sizeof(out->text));
	return 1;
}

static const struct pp_mod_opt pf_mod_opts[] = {
	{ "summary", 0, 0, "only the per-process counts, not each fault" },
	{ NULL, 0, 0, NULL },
};

static const struct pp_source_ops pf_source = {
	.sample = pf_src_sample,
};

const struct pp_analyzer pp_analyzer_page_faults = {
	.name = "page-faults",
	.desc = "page faults with address, instruction and stack; per-process counts",
	.help = "pp-analyze page-faults [--summary] [--json] [FILE]\n"
		"  records the software event page-faults on every fault with the address and stack:\n"
		"    pp-record page-faults -- CMD    (or: pp-analyze page-faults --live -- CMD)\n"
		"  each fault: WALLCLOCK COMM PID/TID [CPU] page-fault: addr ADDR ip IP SYMBOL + stack;\n"
		"  then faults per process with the lowest and highest address\n"
		"  as an event source: pp-analyze trace -e 'page-faults,sched:sched_switch'\n",
	.opts = PP_OPT_JSON | PP_OPT_EXCLUDE,
	.mod_opts = pf_mod_opts,
	.events = pf_events,
	.init = pf_init,
	.sample = pf_sample,
	.report = pf_report,
	.deinit = pf_deinit,
	.match = pf_src_match,
	.source = &pf_source,
};
