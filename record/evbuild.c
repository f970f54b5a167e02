// SPDX-License-Identifier: MIT
/*
 * The one spec -> perf_event_attr builder (include/pp/evspec.h): pp-record
 * and pp-analyze --live open exactly the same events for the same -e entries
 * and module requests, so a live run sees what a recording would hold.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pp/evspec.h"
#include "pp/perf.h"
#include "pp/tracefs.h"

#define BASE_SAMPLE_TYPE	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
				 PERF_SAMPLE_CPU)
#define DEFAULT_SAMPLE_HZ	99

/**
 * pp_evdescs__add() - append an event with the attributes every pp event has.
 * @ds: list; @name: its recorded name.
 * Return: the event (valid until the next append), or NULL without memory.
 */
struct pp_evdesc *pp_evdescs__add(struct pp_evdescs *ds, const char *name)
{
	struct pp_evdesc *nv = realloc(ds->v, (size_t)(ds->nr + 1) * sizeof(*nv)), *d;

	if (!nv)
		return NULL;
	ds->v = nv;
	d = &nv[ds->nr];
	memset(d, 0, sizeof(*d));
	d->name = strdup(name);
	if (!d->name)
		return NULL;
	ds->nr++;
	d->spec = -1;
	d->attr.size = sizeof(d->attr);
	d->attr.sample_type = BASE_SAMPLE_TYPE;
	d->attr.sample_id_all = 1;
	d->attr.use_clockid = 1;
	d->attr.clockid = CLOCK_MONOTONIC;
	d->attr.disabled = 1;
	return d;
}

static struct pp_evdesc *desc_new(struct pp_evdescs *ds, const char *name, int idx)
{
	struct pp_evdesc *d = pp_evdescs__add(ds, name);

	if (d)
		d->spec = idx;
	return d;
}

/*
 * A stack with each sample: the kernel's callchain; with --call-graph=dwarf
 * the user registers and the top of the user stack too, for pp-record to
 * unwind with the DSOs' CFI (record/unwind.c), and no user frame-pointer
 * walk (it is replaced).
 */
static void set_stack(struct perf_event_attr *a, int stack, int max_stack,
		      const struct pp_evbuild_opts *bo)
{
	if (!stack)
		return;
	a->sample_type |= PERF_SAMPLE_CALLCHAIN;
	if (max_stack > 0)
		a->sample_max_stack = (uint16_t)max_stack;
	if (bo && bo->dwarf_stack) {
		a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a->sample_regs_user = PP_UNWIND_REGS_MASK;
		a->sample_stack_user = bo->dwarf_stack;
		a->exclude_callchain_user = 1;
	}
}

static int sampling_supported(uint32_t type, uint64_t config)
{
	struct perf_event_attr a = { .type = type, .config = config, .size = sizeof(a),
				     .disabled = 1, .sample_freq = DEFAULT_SAMPLE_HZ, .freq = 1 };
	int fd = pp_perf_event__open(&a, -1, 0, -1, 0);

	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

/*
 * Can the event @a (type, config, precision, sample bits, clock) be opened
 * here? A PMU event's terms and sample bits are the kernel's to judge.
 * Return: 0 or -errno.
 */
static int attr_opens(const struct perf_event_attr *a)
{
	struct perf_event_attr t = *a;
	int fd;

	t.disabled = 1;
	fd = pp_perf_event__open(&t, -1, 0, -1, 0);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

static int add_tracepoints(struct pp_evdescs *ds, const struct pp_evspec *sp, int idx, int stack,
			   const struct pp_evbuild_opts *bo,
			   char *err, size_t errlen)
{
	char **names = NULL;
	int mounted = 0, n, k, ret = 0;

	if (!pp_tracefs_dir(&mounted)) {
		snprintf(err, errlen, "tracefs is not mounted and cannot be mounted at "
			 "/sys/kernel/tracing: %s", strerror(errno));
		return -ENOENT;
	}
	ds->mounted_tracefs |= mounted;
	n = pp_tracefs_expand(sp->sys, sp->event, &names);
	if (n < 0) {
		snprintf(err, errlen, "cannot list tracepoints: %s", strerror(-n));
		return n;
	}
	if (!n) {
		snprintf(err, errlen, "unknown tracepoint '%s:%s' (no match in %s/events)", sp->sys,
			 sp->event, pp_tracefs_dir(NULL));
		return -ENOENT;
	}
	for (k = 0; k < n; k++) {
		char *colon = strchr(names[k], ':');
		struct pp_evdesc *d;
		long long id;

		if (ret)
			goto next;
		*colon = '\0';
		id = pp_tracefs_event_id(names[k], colon + 1);
		if (id < 0) {
			snprintf(err, errlen, "cannot read the id of %s:%s: %s", names[k], colon + 1,
				 strerror((int)-id));
			ret = (int)id;
			goto next;
		}
		*colon = ':';
		d = desc_new(ds, names[k], idx);
		if (!d) {
			ret = -ENOMEM;
			goto next;
		}
		d->sys = strndup(names[k], (size_t)(colon - names[k]));
		d->event = strdup(colon + 1);
		d->filter = sp->filter[0] ? strdup(sp->filter) : NULL;
		if (!d->sys || !d->event || (sp->filter[0] && !d->filter)) {
			ret = -ENOMEM;
			goto next;
		}
		d->format = pp_tracefs_format(d->sys, d->event);
		d->help = sp->help;
		d->attr.type = PERF_TYPE_TRACEPOINT;
		d->attr.config = (uint64_t)id;
		d->attr.sample_period = 1;
		d->attr.sample_type |= PERF_SAMPLE_RAW;
		set_stack(&d->attr, stack, sp->max_stack, bo);
next:
		free(names[k]);
	}
	free(names);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	return ret;
}

/*
 * A USDT probe: one tracefs uprobe event per site of PROVIDER:NAME in the
 * binary (inlined probes have several), each recorded under the spec's
 * name, with the arguments as the fields of its format (record/usdt.c).
 */
static int add_usdt(struct pp_evdescs *ds, const struct pp_evspec *sp, int idx, int stack,
		    const struct pp_evbuild_opts *bo, char *err, size_t errlen)
{
	struct pp_usdt_probe *v;
	int n, k, found = 0, ret = 0;

	n = pp_usdt__list(sp->path, &v, err, errlen);
	if (n < 0)
		return n;
	for (k = 0; k < n && !ret; k++) {
		char sys[64], event[96];
		struct pp_evdesc *d;
		long long id;

		if (strcmp(v[k].provider, sp->sys) || strcmp(v[k].name, sp->event))
			continue;
		found++;
		ret = pp_usdt__define(sp->path, &v[k], sys, event, err, errlen);
		if (ret)
			break;
		id = pp_tracefs_event_id(sys, event);
		if (id < 0) {
			snprintf(err, errlen, "cannot read the id of %s:%s: %s", sys, event,
				 strerror((int)-id));
			ret = (int)id;
			break;
		}
		d = desc_new(ds, sp->pattern, idx);
		if (!d || !(d->sys = strdup(sys)) || !(d->event = strdup(event)) ||
		    (sp->filter[0] && !(d->filter = strdup(sp->filter)))) {
			snprintf(err, errlen, "out of memory");
			ret = -ENOMEM;
			break;
		}
		d->format = pp_tracefs_format(sys, event);
		d->help = sp->help;
		d->attr.type = PERF_TYPE_TRACEPOINT;
		d->attr.config = (uint64_t)id;
		d->attr.sample_period = 1;
		d->attr.sample_type |= PERF_SAMPLE_RAW;
		set_stack(&d->attr, stack, sp->max_stack, bo);
	}
	free(v);
	if (!ret && !found) {
		snprintf(err, errlen, "usdt: no probe %s:%s in %s (see pp-analyze usdt list %s)",
			 sp->sys, sp->event, sp->path, sp->path);
		ret = -ENOENT;
	}
	return ret;
}

/**
 * pp_evdescs__add_spec() - build the events of @sp and append them to @ds.
 * @ds: list; @sp: spec; @idx: its index; @bo: command-line options;
 * @err, @errlen: message on failure.
 * Return: 0 or -errno.
 */
int pp_evdescs__add_spec(struct pp_evdescs *ds, const struct pp_evspec *sp, int idx,
			 const struct pp_evbuild_opts *bo, char *err, size_t errlen)
{
	int stack = sp->stack || bo->callchain;
	uint32_t freq = sp->freq ? sp->freq : bo->freq;
	struct pp_evdesc *d;
	int r;

	if (sp->kind == PP_EV_TRACEPOINT)
		return add_tracepoints(ds, sp, idx, stack, bo, err, errlen);
	if (sp->kind == PP_EV_USDT)
		return add_usdt(ds, sp, idx, stack, bo, err, errlen);
	d = desc_new(ds, sp->pattern, idx);
	if (!d) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	d->help = sp->help;
	switch (sp->kind) {
	case PP_EV_UPROBE:
	case PP_EV_KPROBE:
		d->probe_func = strdup(sp->func);
		d->probe_path = sp->kind == PP_EV_UPROBE ? strdup(sp->path) : NULL;
		if (!d->probe_func || (sp->kind == PP_EV_UPROBE && !d->probe_path)) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		if (sp->kind == PP_EV_UPROBE) {
			r = pp_uprobe_attr(&d->attr, d->probe_func, d->probe_path, sp->retprobe, err,
					   errlen);
			if (r)
				return r;
		} else if (pp_kprobe_attr(&d->attr, d->probe_func, sp->retprobe)) {
			snprintf(err, errlen, "kprobes are not supported by this kernel (no kprobe "
				 "PMU): %s", sp->pattern);
			return -EOPNOTSUPP;
		}
		d->attr.sample_period = 1;
		d->attr.sample_type |= PERF_SAMPLE_IP;
		if (sp->regs || sp->ustack) {
#if defined(__x86_64__)
			/* ax (return value), dx, si, di (first three arguments), sp */
			d->attr.sample_type |= PERF_SAMPLE_REGS_USER;
			d->attr.sample_regs_user = (1ull << 0) | (1ull << 3) | (1ull << 4) |
						   (1ull << 5) | (1ull << 7);
			if (sp->ustack) {
				d->attr.sample_type |= PERF_SAMPLE_STACK_USER;
				d->attr.sample_stack_user = sp->ustack;
			}
#else
			snprintf(err, errlen, "%s: the regs and ustack attributes are x86_64 only",
				 sp->pattern);
			return -EOPNOTSUPP;
#endif
		}
		break;
	case PP_EV_BREAKPOINT:
		d->attr.type = PERF_TYPE_BREAKPOINT;
		d->attr.bp_addr = sp->bp_addr;
		d->attr.bp_len = sp->bp_len;
		d->attr.bp_type = sp->bp_type;
		d->attr.sample_period = 1;
		d->attr.sample_type |= PERF_SAMPLE_IP | PERF_SAMPLE_ADDR;
		break;
	case PP_EV_SOFTWARE:
	case PP_EV_HARDWARE:
	case PP_EV_HW_CACHE:
		d->attr.type = sp->kind == PP_EV_SOFTWARE ? PERF_TYPE_SOFTWARE :
			       sp->kind == PP_EV_HW_CACHE ? PERF_TYPE_HW_CACHE : PERF_TYPE_HARDWARE;
		d->attr.config = sp->config;
		d->attr.sample_type |= PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD;
		if (sp->kind == PP_EV_SOFTWARE && (sp->config == PERF_COUNT_SW_PAGE_FAULTS ||
						   sp->config == PERF_COUNT_SW_PAGE_FAULTS_MIN ||
						   sp->config == PERF_COUNT_SW_PAGE_FAULTS_MAJ))
			d->attr.sample_type |= PERF_SAMPLE_ADDR;	/* the faulting address */
		if (freq || sp->kind != PP_EV_SOFTWARE || sp->config == PERF_COUNT_SW_CPU_CLOCK ||
		    sp->config == PERF_COUNT_SW_TASK_CLOCK) {
			d->attr.freq = 1;
			d->attr.sample_freq = freq ? freq : DEFAULT_SAMPLE_HZ;
			d->sampling = 1;
		} else {
			d->attr.sample_period = 1;
		}
		d->attr.exclude_user = !!bo->exclude_user;
		d->attr.exclude_kernel = !!bo->exclude_kernel;
		if (sp->kind != PP_EV_SOFTWARE && !sampling_supported(d->attr.type, d->attr.config)) {
			snprintf(err, errlen, "%s is not supported here (no hardware PMU?); use "
				 "cpu-clock", sp->pattern);
			return -EOPNOTSUPP;
		}
		break;
	case PP_EV_PMU:
		r = pp_pmu_attr(&d->attr, PP_PMU_SYSFS, sp->pmu, sp->terms, err, errlen);
		if (r)
			return r;
		d->attr.precise_ip = (uint32_t)sp->precise;
		d->attr.sample_type |= PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD;
		if (pp_evspec__is_mem(sp))
			d->attr.sample_type |= PERF_SAMPLE_ADDR | PERF_SAMPLE_WEIGHT_STRUCT |
					       PERF_SAMPLE_DATA_SRC;
		d->attr.freq = 1;
		d->attr.sample_freq = freq ? freq : DEFAULT_SAMPLE_HZ;
		d->sampling = 1;
		d->attr.exclude_user = bo->exclude_user || sp->kernel_only;
		d->attr.exclude_kernel = bo->exclude_kernel || sp->user_only;
		r = attr_opens(&d->attr);
		if (r == -EINVAL && (d->attr.sample_type & PERF_SAMPLE_WEIGHT_STRUCT)) {
			/* before Linux 5.12: the weight as one u64 (the same latency) */
			d->attr.sample_type &= ~(uint64_t)PERF_SAMPLE_WEIGHT_STRUCT;
			d->attr.sample_type |= PERF_SAMPLE_WEIGHT;
			r = attr_opens(&d->attr);
		}
		if (r) {
			snprintf(err, errlen, "%s cannot be opened here: %s", sp->pattern,
				 strerror(-r));
			return -EOPNOTSUPP;
		}
		break;
	case PP_EV_TRACEPOINT:
	case PP_EV_USDT:
		break;
	}
	set_stack(&d->attr, stack, sp->max_stack, bo);
	return 0;
}

/**
 * pp_evdescs__add_req() - parse request @rq and build its events.
 * @ds: list; @rq: request; @idx: spec index; @bo: command-line options;
 * @err, @errlen: message on failure.
 * Return: 0 or -errno.
 */
int pp_evdescs__add_req(struct pp_evdescs *ds, const struct pp_event_req *rq, int idx,
			const struct pp_evbuild_opts *bo, char *err, size_t errlen)
{
	struct pp_evbuild_opts o = *bo;
	struct pp_evspec *sp = malloc(sizeof(*sp));
	int r;

	if (!sp) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	r = pp_evspec__parse(rq->spec, sp, err, errlen);
	if (!r) {
		sp->stack |= rq->callchain;
		if (rq->freq)
			sp->freq = rq->freq;
		o.exclude_user |= rq->exclude_user;
		o.exclude_kernel |= rq->exclude_kernel;
		r = pp_evdescs__add_spec(ds, sp, idx, &o, err, errlen);
	}
	free(sp);
	return r;
}

/**
 * pp_evdescs__add_sampler() - the -F sampler: cycles, else cpu-clock.
 * @ds: list; @bo: the frequency, -g and exclusions.
 * Return: the event, or NULL without memory.
 */
struct pp_evdesc *pp_evdescs__add_sampler(struct pp_evdescs *ds, const struct pp_evbuild_opts *bo)
{
	int hw = sampling_supported(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	struct pp_evdesc *d = desc_new(ds, hw ? "cycles" : "cpu-clock", -1);

	if (!d)
		return NULL;
	d->attr.type = hw ? PERF_TYPE_HARDWARE : PERF_TYPE_SOFTWARE;
	d->attr.config = hw ? PERF_COUNT_HW_CPU_CYCLES : PERF_COUNT_SW_CPU_CLOCK;
	d->attr.freq = 1;
	d->attr.sample_freq = bo->freq ? bo->freq : DEFAULT_SAMPLE_HZ;
	d->attr.sample_type |= PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD;
	d->attr.exclude_user = !!bo->exclude_user;
	d->attr.exclude_kernel = !!bo->exclude_kernel;
	d->sampling = 1;
	set_stack(&d->attr, bo->callchain, 0, bo);
	return d;
}

/**
 * pp_evdescs__add_sideband() - the dummy side-band event.
 * @ds: list.
 * Return: the event, or NULL without memory.
 */
struct pp_evdesc *pp_evdescs__add_sideband(struct pp_evdescs *ds)
{
	struct pp_evdesc *d = desc_new(ds, "sideband", -1);

	if (!d)
		return NULL;
	d->attr.type = PERF_TYPE_SOFTWARE;
	d->attr.config = PERF_COUNT_SW_DUMMY;
	d->attr.comm = 1;
	d->attr.comm_exec = 1;
	d->attr.task = 1;
	d->attr.mmap = 1;
	d->attr.mmap2 = 1;
	d->attr.build_id = 1;
	return d;
}

/**
 * pp_evdescs__exit() - free the events' strings and the array.
 * @ds: list; accepts an empty one.
 */
void pp_evdescs__exit(struct pp_evdescs *ds)
{
	for (int i = 0; i < ds->nr; i++) {
		struct pp_evdesc *d = &ds->v[i];

		free(d->name);
		free(d->filter);
		free(d->sys);
		free(d->event);
		free(d->format);
		free(d->probe_path);
		free(d->probe_func);
	}
	free(ds->v);
	ds->v = NULL;
	ds->nr = 0;
}
