// SPDX-License-Identifier: MIT
/*
 * BPF sample filters (bpf/filter.bpf.c) attached to perf event fds with
 * PERF_EVENT_IOC_SET_BPF, plus what every pp BPF object shares: the
 * availability probe, libbpf's print hook and one-line load errors.
 */
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <linux/perf_event.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>

#include "pp/bpf.h"
#include "pp/perf.h"
#include "record.h"
#include "bpf-internal.h"
#include "../bpf/filter.h"
#include "../bpf/stack.h"
#include "../bpf/unwind.h"
#include "bpf/filter.skel.h"

static int bpf_verbose;

static int print_hook(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if ((int)level > bpf_verbose - 1)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/** pp_bpf_init_print() - install pp's libbpf print hook. */
void pp_bpf_init_print(void)
{
	libbpf_set_print(print_hook);
}

/**
 * pp_bpf__set_verbose() - let libbpf's messages through.
 * @level: 0 quiet, 1 warnings, 2 info, 3 debug (verifier logs).
 */
void pp_bpf__set_verbose(int level)
{
	bpf_verbose = level;
	pp_bpf_init_print();
}

/** pp_bpf_mono_ns() - CLOCK_MONOTONIC now. Return: ns. */
uint64_t pp_bpf_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* No kernel BTF: the one reason told before trying. Return: 0 or -EOPNOTSUPP. */
int pp_bpf_btf_check(char *err, size_t errlen)
{
	pp_bpf_init_print();
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		snprintf(err, errlen, "BPF unavailable: the kernel has no BTF "
			 "(/sys/kernel/btf/vmlinux missing; needs CONFIG_DEBUG_INFO_BTF)");
		return -EOPNOTSUPP;
	}
	return 0;
}

/**
 * pp_bpf__available() - whether this kernel can load pp's BPF programs.
 * @err, @errlen: the reason when it cannot.
 * Return: 0, -EOPNOTSUPP (no BTF or no BPF), -EPERM.
 */
int pp_bpf__available(char *err, size_t errlen)
{
	int ret = pp_bpf_btf_check(err, errlen);

	if (ret)
		return ret;
	ret = libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_PERF_EVENT, NULL);
	if (ret == 1)
		return 0;
	/* the probe answers "not supported" where it was refused */
	if (ret == -EPERM || ret == -EACCES || geteuid()) {
		snprintf(err, errlen, "BPF not permitted: run as root (or with CAP_BPF and CAP_PERFMON)");
		return -EPERM;
	}
	snprintf(err, errlen, "BPF unavailable: the kernel refuses BPF programs (%s)",
		 ret < 0 ? strerror(-ret) : "program type not supported");
	return -EOPNOTSUPP;
}

/**
 * pp_bpf_load_error() - one line for a failed open/load/attach.
 * @what: object name; @ret: -errno; @err, @errlen: destination.
 * Return: @ret.
 */
int pp_bpf_load_error(const char *what, int ret, char *err, size_t errlen)
{
	/*
	 * Whether bpf(2) works at all is asked only now: its probe (three
	 * program loads) was a tenth of an off-CPU profiler's start-up.
	 */
	if (pp_bpf__available(err, errlen))
		return ret;
	if (ret == -EPERM || ret == -EACCES)
		snprintf(err, errlen, "%s: loading the BPF program is not permitted "
			 "(run as root, or with CAP_BPF and CAP_PERFMON)", what);
	else
		snprintf(err, errlen, "%s: loading the BPF program failed: %s "
			 "(pp-record -v shows the verifier log)", what, strerror(-ret));
	return ret;
}

/* ---- options ---- */

static const char *const opt_names[PP_BPF_OPT_NR] = {
	[PP_BPF_OPT_IRQS_DISABLED] = "irqs_disabled",
	[PP_BPF_OPT_TIF_NEED_RESCHED] = "tif_need_resched",
	[PP_BPF_OPT_NR_RUNNING_MIN] = "nr_running_min",
	[PP_BPF_OPT_NR_RUNNING_MAX] = "nr_running_max",
	[PP_BPF_OPT_EXCLUDE_PID] = "exclude_pid",
	[PP_BPF_OPT_SCHED_POLICY] = "sched_policy",
	[PP_BPF_OPT_PRIO] = "prio",
};

static const struct {
	const char *name;
	int policy;
} policies[] = {
	{ "NORMAL", 0 }, { "OTHER", 0 }, { "FIFO", 1 }, { "RR", 2 }, { "BATCH", 3 },
	{ "IDLE", 5 }, { "DEADLINE", 6 }, { "EXT", 7 },
};

/** pp_bpf_filter_opts__init() - every check off. @o: options. */
void pp_bpf_filter_opts__init(struct pp_bpf_filter_opts *o)
{
	o->irqs_disabled = -1;
	o->tif_need_resched = -1;
	o->nr_running_min = -1;
	o->nr_running_max = -1;
	o->exclude_pid = -1;
	o->sched_policy = -1;
	o->prio_min = -1;
	o->prio_max = -1;
	o->unwind = -1;
}

/** pp_bpf_filter_opts__active() - @o: options. Return: 1 if any check is on. */
int pp_bpf_filter_opts__active(const struct pp_bpf_filter_opts *o)
{
	return o->irqs_disabled >= 0 || o->tif_need_resched >= 0 || o->nr_running_min >= 0 ||
	       o->nr_running_max >= 0 || o->exclude_pid >= 0 || o->sched_policy >= 0 ||
	       o->prio_min >= 0;
}

static int parse_num(const char *s, long min, long max, long *v)
{
	char *end;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	*v = strtol(s, &end, 10);
	if (errno || *end || *v < min || *v > max)
		return -EINVAL;
	return 0;
}

/**
 * pp_bpf_filter__parse_index() - parse option number @idx.
 * @o: options; @idx: enum pp_bpf_filter_opt; @value: argument or NULL;
 * @err, @errlen: message on failure.
 * Return: 0, -ENOENT, -EINVAL.
 */
int pp_bpf_filter__parse_index(struct pp_bpf_filter_opts *o, int idx, const char *value,
			       char *err, size_t errlen)
{
	const char *name;
	long v, w;
	char *dash;

	if (idx < 0 || idx >= PP_BPF_OPT_NR)
		return -ENOENT;
	name = opt_names[idx];
	switch (idx) {
	case PP_BPF_OPT_IRQS_DISABLED:
	case PP_BPF_OPT_TIF_NEED_RESCHED:
		if (!value)
			v = 1;
		else if (parse_num(value, 0, 1, &v))
			goto bad;
		if (idx == PP_BPF_OPT_IRQS_DISABLED)
			o->irqs_disabled = (int)v;
		else
			o->tif_need_resched = (int)v;
		return 0;
	case PP_BPF_OPT_NR_RUNNING_MIN:
	case PP_BPF_OPT_NR_RUNNING_MAX:
		if (parse_num(value, 0, 1 << 30, &v))
			goto bad;
		if (idx == PP_BPF_OPT_NR_RUNNING_MIN)
			o->nr_running_min = v;
		else
			o->nr_running_max = v;
		if (o->nr_running_min >= 0 && o->nr_running_max >= 0 &&
		    o->nr_running_min > o->nr_running_max) {
			snprintf(err, errlen, "--nr_running_min=%ld is above --nr_running_max=%ld",
				 o->nr_running_min, o->nr_running_max);
			return -EINVAL;
		}
		return 0;
	case PP_BPF_OPT_EXCLUDE_PID:
		if (parse_num(value, 1, 0x7fffffff, &v))
			goto bad;
		o->exclude_pid = v;
		return 0;
	case PP_BPF_OPT_SCHED_POLICY:
		if (!value)
			goto bad;
		for (size_t i = 0; i < sizeof(policies) / sizeof(policies[0]); i++) {
			if (!strcasecmp(value, policies[i].name) ||
			    (!strncasecmp(value, "SCHED_", 6) && !strcasecmp(value + 6, policies[i].name))) {
				o->sched_policy = policies[i].policy;
				return 0;
			}
		}
		if (parse_num(value, 0, 31, &v))
			goto bad;
		o->sched_policy = (int)v;
		return 0;
	case PP_BPF_OPT_PRIO: {
		char tmp[32];

		if (!value || strlen(value) >= sizeof(tmp))
			goto bad;
		strcpy(tmp, value);
		dash = strchr(tmp, '-');
		if (dash)
			*dash = '\0';
		if (parse_num(tmp, 0, 139, &v))
			goto bad;
		w = v;
		if (dash && parse_num(dash + 1, 0, 139, &w))
			goto bad;
		if (w < v)
			goto bad;
		o->prio_min = (int)v;
		o->prio_max = (int)w;
		return 0;
	}
	}
	return -ENOENT;
bad:
	if (idx == PP_BPF_OPT_SCHED_POLICY)
		snprintf(err, errlen, "--%s=%s: expected NORMAL, FIFO, RR, BATCH, IDLE, DEADLINE, "
			 "EXT or a number", name, value ? value : "");
	else if (idx == PP_BPF_OPT_PRIO)
		snprintf(err, errlen, "--prio=%s: expected N or N-M within 0-139", value ? value : "");
	else if (idx <= PP_BPF_OPT_TIF_NEED_RESCHED)
		snprintf(err, errlen, "--%s=%s: expected 0 or 1", name, value ? value : "");
	else
		snprintf(err, errlen, "--%s%s%s: expected a %snumber", name, value ? "=" : "",
			 value ? value : "", idx == PP_BPF_OPT_EXCLUDE_PID ? "positive " : "");
	return -EINVAL;
}

/**
 * pp_bpf_filter__parse_opt() - parse one filter option by name.
 * @o: options; @name: without dashes, or "name=value"; @value: argument or
 * NULL; @err, @errlen: message on failure.
 * Return: 0, -ENOENT (not a filter option), -EINVAL.
 */
int pp_bpf_filter__parse_opt(struct pp_bpf_filter_opts *o, const char *name, const char *value,
			     char *err, size_t errlen)
{
	size_t n;

	while (*name == '-')
		name++;
	n = strcspn(name, "=");
	if (name[n] == '=' && !value)
		value = name + n + 1;
	for (int i = 0; i < PP_BPF_OPT_NR; i++) {
		if (strlen(opt_names[i]) == n && !strncmp(opt_names[i], name, n))
			return pp_bpf_filter__parse_index(o, i, value, err, errlen);
	}
	return -ENOENT;
}

/**
 * pp_bpf_filter__describe() - the active checks as "a=1,b=2".
 * @o: options; @buf, @len: destination.
 * Return: length written.
 */
size_t pp_bpf_filter__describe(const struct pp_bpf_filter_opts *o, char *buf, size_t len)
{
	size_t n = 0;

#define PUT(...) do {								\
		if (n < len)							\
			n += (size_t)snprintf(buf + n, len - n, __VA_ARGS__);	\
	} while (0)
	if (len)
		buf[0] = '\0';
	if (o->irqs_disabled >= 0)
		PUT("%sirqs_disabled=%d", n ? "," : "", o->irqs_disabled);
	if (o->tif_need_resched >= 0)
		PUT("%stif_need_resched=%d", n ? "," : "", o->tif_need_resched);
	if (o->nr_running_min >= 0)
		PUT("%snr_running_min=%ld", n ? "," : "", o->nr_running_min);
	if (o->nr_running_max >= 0)
		PUT("%snr_running_max=%ld", n ? "," : "", o->nr_running_max);
	if (o->exclude_pid >= 0)
		PUT("%sexclude_pid=%ld", n ? "," : "", o->exclude_pid);
	if (o->sched_policy >= 0)
		PUT("%ssched_policy=%d", n ? "," : "", o->sched_policy);
	if (o->prio_min >= 0) {
		if (o->prio_min == o->prio_max)
			PUT("%sprio=%d", n ? "," : "", o->prio_min);
		else
			PUT("%sprio=%d-%d", n ? "," : "", o->prio_min, o->prio_max);
	}
#undef PUT
	return n < len ? n : (len ? len - 1 : 0);
}

/* ---- the loaded filter ---- */

struct pp_bpf_filter {
	struct filter_bpf *skel;
	int irqs_check;
};

/*
 * TIF_NEED_RESCHED is a #define, absent from BTF. x86 moved to the generic
 * TIF bits in 6.18 (bit 4); before, it was bit 3.
 */
/* Whether the running kernel is @maj.@min or later; 0 if unknown. */
int pp_bpf_kernel_at_least(int maj, int min)
{
	struct utsname u;
	int a = 0, b = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &a, &b) != 2)
		return 0;
	return a > maj || (a == maj && b >= min);
}

static int tif_need_resched_bit(char *err, size_t errlen)
{
	struct utsname u;

	if (uname(&u))
		return -EINVAL;
	if (strcmp(u.machine, "x86_64")) {
		snprintf(err, errlen, "--tif_need_resched: not supported on %s yet", u.machine);
		return -EOPNOTSUPP;
	}
	return pp_bpf_kernel_at_least(6, 18) ? 4 : 3;
}

/**
 * pp_bpf_filter__new() - load the filter program for @o.
 * @o: checks; @err, @errlen: message on failure.
 * Return: filter, or NULL with errno set.
 */
struct pp_bpf_filter *pp_bpf_filter__new(const struct pp_bpf_filter_opts *o, char *err,
					 size_t errlen)
{
	struct pp_bpf_filter *f;
	struct pp_filter_cfg *c;
	int ret;

	ret = pp_bpf_btf_check(err, errlen);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	f = calloc(1, sizeof(*f));
	if (!f) {
		snprintf(err, errlen, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	f->skel = filter_bpf__open();
	if (!f->skel) {
		ret = pp_bpf_load_error("BPF filter", -errno, err, errlen);
		goto fail;
	}
	c = (struct pp_filter_cfg *)&f->skel->rodata->cfg;
	memset(c, 0, sizeof(*c));
	if (o->irqs_disabled >= 0) {
		c->mask |= PP_FILTER_IRQS_DISABLED;
		c->irqs_disabled = (unsigned int)o->irqs_disabled;
		f->irqs_check = 1;
	}
	if (o->tif_need_resched >= 0) {
		ret = tif_need_resched_bit(err, errlen);
		if (ret < 0)
			goto fail;
		c->mask |= PP_FILTER_NEED_RESCHED;
		c->need_resched = (unsigned int)o->tif_need_resched;
		c->tif_bit = (unsigned int)ret;
	}
	if (o->nr_running_min >= 0) {
		c->mask |= PP_FILTER_NR_RUNNING_MIN;
		c->nr_running_min = (unsigned int)o->nr_running_min;
	}
	if (o->nr_running_max >= 0) {
		c->mask |= PP_FILTER_NR_RUNNING_MAX;
		c->nr_running_max = (unsigned int)o->nr_running_max;
	}
	if (o->exclude_pid >= 0) {
		c->mask |= PP_FILTER_EXCLUDE_PID;
		c->exclude_pid = (unsigned int)o->exclude_pid;
	}
	if (o->sched_policy >= 0) {
		c->mask |= PP_FILTER_SCHED_POLICY;
		c->sched_policy = (unsigned int)o->sched_policy;
	}
	if (o->prio_min >= 0) {
		c->mask |= PP_FILTER_PRIO;
		c->prio_min = o->prio_min;
		c->prio_max = o->prio_max;
	}
	if (o->unwind > 0) {
		c->unwind = 1;
	} else {
		/* no walk: its maps as small as they go */
		bpf_map__set_max_entries(f->skel->maps.unwind_rows, 1);
		bpf_map__set_max_entries(f->skel->maps.unwind_dsos, 1);
		bpf_map__set_max_entries(f->skel->maps.unwind_procs, 1);
		bpf_map__set_max_entries(f->skel->maps.unwind_asked, 1);
		bpf_map__set_max_entries(f->skel->maps.unwind_ask, 4096);
	}
	ret = filter_bpf__load(f->skel);
	if (ret) {
		pp_bpf_load_error(o->unwind > 0 ? "BPF stack walker" : "BPF filter", ret, err,
				  errlen);
		goto fail;
	}
	return f;
fail:
	pp_bpf_filter__free(f);
	errno = ret < 0 ? -ret : EINVAL;
	return NULL;
}

/**
 * pp_bpf_filter__attach() - PERF_EVENT_IOC_SET_BPF on @perf_fd.
 * @f: filter; @perf_fd: event fd; @attr_type: its attr.type;
 * @err, @errlen: message on failure.
 * Return: 0, -EOPNOTSUPP or -errno.
 */
int pp_bpf_filter__attach(struct pp_bpf_filter *f, int perf_fd, uint32_t attr_type, char *err,
			  size_t errlen)
{
	struct bpf_program *order[3];
	int n = 0, ret = -EINVAL;

	switch (attr_type) {
	case PERF_TYPE_TRACEPOINT:
		if (f->irqs_check) {
			snprintf(err, errlen, "--irqs_disabled needs a sampling event or a probe: "
				 "tracepoints give the filter no registers");
			return -EOPNOTSUPP;
		}
		order[n++] = f->skel->progs.pp_filter_tp;
		break;
	case PERF_TYPE_HARDWARE:
	case PERF_TYPE_SOFTWARE:
	case PERF_TYPE_HW_CACHE:
	case PERF_TYPE_RAW:
	case PERF_TYPE_BREAKPOINT:
		order[n++] = f->skel->progs.pp_filter_perf;
		break;
	default:
		order[n++] = f->skel->progs.pp_filter_kprobe;
		order[n++] = f->skel->progs.pp_filter_perf;
		if (!f->irqs_check)
			order[n++] = f->skel->progs.pp_filter_tp;
		break;
	}
	for (int i = 0; i < n; i++) {
		struct bpf_program *p = order[i];

		ret = pp_perf_event__set_bpf(perf_fd, bpf_program__fd(p));
		/*
		 * Tracepoints and probes keep their programs in one array per
		 * tracepoint, shared by every perf event on it: the program is
		 * in already from the fd of another CPU.
		 */
		if (ret == -EEXIST && p != f->skel->progs.pp_filter_perf)
			ret = 0;
		if (!ret)
			return 0;
		if (ret != -EINVAL)
			break;
	}
	snprintf(err, errlen, "attaching the BPF filter to the event failed: %s%s", strerror(-ret),
		 ret == -EEXIST ? " (the event has a BPF program already)" : "");
	return ret;
}

/**
 * pp_bpf_filter__counts() - samples kept and dropped so far.
 * @f: filter; @kept, @dropped: receive the sums over CPUs.
 * Return: 0 or -errno.
 */
int pp_bpf_filter__counts(struct pp_bpf_filter *f, uint64_t *kept, uint64_t *dropped)
{
	int ncpu = libbpf_num_possible_cpus();
	int fd = bpf_map__fd(f->skel->maps.counts);
	uint64_t *v;
	uint32_t k;

	*kept = *dropped = 0;
	if (ncpu <= 0)
		return ncpu ? ncpu : -EINVAL;
	v = calloc((size_t)ncpu, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (k = 0; k < 2; k++) {
		if (bpf_map_lookup_elem(fd, &k, v)) {
			free(v);
			return -errno;
		}
		for (int i = 0; i < ncpu; i++)
			*(k ? dropped : kept) += v[i];
	}
	free(v);
	return 0;
}

/* See record/bpf-internal.h. */
void pp_bpf_filter__unwind_maps(struct pp_bpf_filter *f, struct pp_bpf_unwind_maps *m)
{
	m->rows = bpf_map__fd(f->skel->maps.unwind_rows);
	m->dsos = bpf_map__fd(f->skel->maps.unwind_dsos);
	m->procs = bpf_map__fd(f->skel->maps.unwind_procs);
	m->out = bpf_map__fd(f->skel->maps.unwind_out);
	m->stats = bpf_map__fd(f->skel->maps.unwind_stats);
	m->ask = bpf_map__fd(f->skel->maps.unwind_ask);
}

/** pp_bpf_filter__free() - free @f; accepts NULL. */
void pp_bpf_filter__free(struct pp_bpf_filter *f)
{
	if (!f)
		return;
	filter_bpf__destroy(f->skel);
	free(f);
}

/**
 * pp_bpf_follow__prepare() - see record/bpf-internal.h.
 * @fork: the fork program; @procs: the map; @follow: targets or not.
 */
void pp_bpf_follow__prepare(struct bpf_program *fork, struct bpf_map *procs, unsigned int follow)
{
	if (follow)
		return;
	/* every process: no fork to follow (one program load and attach less) */
	bpf_program__set_autoload(fork, false);
	bpf_map__set_max_entries(procs, 1);
}

/**
 * pp_bpf_follow__targets() - see record/bpf-internal.h.
 * @pid, @pids, @nr_pids: the targets. Return: 1 when there is one, else 0.
 */
unsigned int pp_bpf_follow__targets(pid_t pid, const pid_t *pids, int nr_pids)
{
	if (pid > 0)
		return 1;
	for (int i = 0; i < nr_pids; i++)
		if (pids[i] > 0)
			return 1;
	return 0;
}

/**
 * pp_bpf_follow__seed() - see record/bpf-internal.h.
 * @procs: the map; @pid, @pids, @nr_pids: the targets.
 */
void pp_bpf_follow__seed(struct bpf_map *procs, pid_t pid, const pid_t *pids, int nr_pids)
{
	__u32 tgid;
	__u8 one = 1;

	if (pid > 0) {
		tgid = (__u32)pid;
		bpf_map__update_elem(procs, &tgid, sizeof(tgid), &one, sizeof(one), BPF_ANY);
	}
	for (int i = 0; i < nr_pids; i++) {
		if (pids[i] <= 0)
			continue;
		tgid = (__u32)pids[i];
		bpf_map__update_elem(procs, &tgid, sizeof(tgid), &one, sizeof(one), BPF_ANY);
	}
}

void pp_bpf_lazy_hash(struct bpf_map *m)
{
	/* Before 6.1 the verifier refuses them in tracing programs. */
	if (!pp_bpf_kernel_at_least(6, 1))
		return;
	/* An LRU hash is always preallocated (16384 elements: a tenth of start-up). */
	if (bpf_map__type(m) == BPF_MAP_TYPE_LRU_HASH)
		bpf_map__set_type(m, BPF_MAP_TYPE_HASH);
	bpf_map__set_map_flags(m, bpf_map__map_flags(m) | BPF_F_NO_PREALLOC);
}

unsigned int pp_bpf_read_stack(int fd, uint64_t name, uint64_t *ips)
{
	unsigned int n = 0;

	if (!name || bpf_map_lookup_elem(fd, &name, ips))
		return 0;
	while (n < PP_STACK_DEPTH && ips[n])
		n++;
	return n;
}

#define WARM_STACKS	16	/* elements allocated per CPU at start */

/*
 * A map allocated as used starts with one free element per CPU for values
 * this big, refilled from irq_work, which cannot run inside the scheduler:
 * the first switch (or wake-up) would store one stack and lose the next.
 * Allocating and freeing a few elements on every CPU fills those caches.
 */
void pp_bpf_warm_stacks(int fd)
{
	int ncpu = libbpf_num_possible_cpus();
	struct pp_stack *v = calloc(WARM_STACKS, sizeof(*v));
	uint64_t keys[WARM_STACKS];
	cpu_set_t old, one;

	if (!v || ncpu <= 0 || sched_getaffinity(0, sizeof(old), &old)) {
		free(v);
		return;
	}
	for (int i = 0; i < WARM_STACKS; i++)
		keys[i] = 2 * (uint64_t)(i + 1);	/* even: never a stack name */
	for (int cpu = 0; cpu < ncpu && cpu < CPU_SETSIZE; cpu++) {
		__u32 n = WARM_STACKS;

		if (!CPU_ISSET(cpu, &old))
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one))
			continue;
		/* in two syscalls where the kernel has batch operations */
		if (bpf_map_update_batch(fd, keys, v, &n, NULL)) {
			for (int i = 0; i < WARM_STACKS; i++)
				bpf_map_update_elem(fd, &keys[i], &v[i], BPF_NOEXIST);
		}
		n = WARM_STACKS;
		if (bpf_map_delete_batch(fd, keys, &n, NULL)) {
			for (int i = 0; i < WARM_STACKS; i++)
				bpf_map_delete_elem(fd, &keys[i]);
		}
	}
	sched_setaffinity(0, sizeof(old), &old);
	free(v);
}
