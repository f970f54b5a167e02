// SPDX-License-Identifier: MIT
/*
 * The live source: the module's events opened on this host's per-CPU rings
 * (include/pp/perf.h), merged and dispatched like a file's records.
 *
 * Nothing here decodes on its own: the local tracefs formats (header_page,
 * each event's format, printk_formats) are packed into a FORMATS payload and
 * fed to the loader the file source uses, the machine description and the
 * task table likewise, so an analyzer sees exactly what a replay shows it.
 *
 * A thread of its own drains the rings (replay/live-drain.c); each round
 * appends what it handed over to the streams' buffers, then merges the
 * records older than the start of its last pass over the rings, minus a
 * small slack for records the kernel timestamped but had not yet
 * published; the rest waits for the next round. On stop everything left is
 * merged.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <linux/perf_event.h>
#include <traceevent/event-parse.h>
#include "pp/evspec.h"
#include "pp/host.h"
#include "pp/meta.h"
#include "pp/perf.h"
#include "pp/tracefs.h"
#include "pp/walker.h"
#include "pp/workload.h"
#include "live-drain.h"
#include "replay-internal.h"

#define LIVE_SLACK_NS		2000000ull	/* publication delay allowed for */
#define LIVE_POLL_MS		100
#define LIVE_STREAM_MAX		(256u << 20)	/* per-stream buffer cap */

struct live {
	struct pp_perf_evlist *el;
	struct pp_evdescs descs;	/* what el was built from */
	const char *tracefs;
	struct pp_workload wl;	/* the COMMAND after `--` */
	int follow;		/* events follow the workload (enable_on_exec) */
	int widen;		/* -p/-t/workload, yet every task: the module filters */
	pid_t *watch;		/* -p/-t: stop when these are all gone */
	int nr_watch;
	int need_syms;		/* some event samples ips or stacks */
	int use_ftrace;		/* --ftrace: tracepoints from a tracefs instance */
	int rt;			/* it may wait for and drain the rings at SCHED_FIFO */
	struct pp_ftrace *ft;	/* their source; streams[nr_cpus + i] are its CPUs' */
	struct pp_walker *walker;	/* -g: the kernel-side walker, NULL: frame pointers */
	struct pp_live_drain *drain;	/* the thread that reads the rings (live-drain.c) */
	struct pp_live_batch *batch;	/* what it handed over last */
	uint64_t start;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- events ---- */

/*
 * The module's requests built by the capture library (record/evbuild.c),
 * exactly as pp-record builds them; load_formats() packs their tracepoint
 * formats. The descriptions stay alive with the source: a probe's attr
 * points to its path.
 */
static int add_events(struct live *lv, const struct pp_event_reqs *rq)
{
	const struct pp_evbuild_opts bo = { 0 };
	char err[512];
	int ret;

	for (int i = 0; i < rq->nr; i++) {
		int mounted = lv->descs.mounted_tracefs;

		ret = pp_evdescs__add_req(&lv->descs, &rq->req[i], i, &bo, err, sizeof(err));
		if (lv->descs.mounted_tracefs && !mounted)
			fprintf(stderr, "pp-analyze: mounted tracefs at /sys/kernel/tracing\n");
		if (ret) {
			fprintf(stderr, "pp-analyze: %s\n", err);
			/* an entry that names no event here is a usage error, as in pp-record */
			return ret == -ENOENT ? -EINVAL : ret;
		}
	}
	if (!pp_evdescs__add_sideband(&lv->descs))
		return -ENOMEM;
	for (int i = 0; i < lv->descs.nr; i++) {
		const struct pp_evdesc *d = &lv->descs.v[i];

		if (d->sys && !lv->tracefs)
			lv->tracefs = pp_tracefs_dir(NULL);
		ret = pp_perf_evlist__add(lv->el, &d->attr, d->name, d->filter);
		if (ret < 0) {
			fprintf(stderr, "pp-analyze: cannot add %s: %s\n", d->name, strerror(-ret));
			return ret;
		}
		lv->el->evsels[ret].external = lv->use_ftrace &&
					       d->attr.type == PERF_TYPE_TRACEPOINT;
		if (d->attr.sample_type & (PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN))
			lv->need_syms = 1;
	}
	return 0;
}

/* The module's events, as pp_analyzer__record_events() gives them to pp-record. */
static int live_reqs(struct pp_session *s, struct pp_event_reqs *rq)
{
	const struct pp_opts *o = &s->opts;

	memset(rq, 0, sizeof(*rq));
	if (s->a.events) {
		int ret = s->a.events(o, rq);

		if (ret)
			fprintf(stderr, "pp-analyze: %s: %s%s\n", s->a.name,
				rq->err[0] ? "" : "cannot build its events: ",
				rq->err[0] ? rq->err : strerror(-ret));
		rq->system_wide = s->a.needs_system_wide && !rq->task_only;
		return ret;
	}
	if (!o->nr_events) {
		fprintf(stderr, "pp-analyze: %s --live needs events: -e EVENT,...\n", s->a.name);
		return -EINVAL;
	}
	for (int i = 0; i < o->nr_events && rq->nr < PP_MAX_EVENT_REQS; i++) {
		struct pp_event_req *r;
		int k;

		/* A profiler used as an event source: its own events. */
		for (k = 0; k < s->nr_srcs && s->srcs[k].entry != i; k++)
			;
		if (k < s->nr_srcs) {
			struct pp_event_reqs sub = { .nr = 0 };
			int ret = s->srcs[k].a->events ? s->srcs[k].a->events(&s->srcs[k].o, &sub) : -EINVAL;

			if (ret) {
				fprintf(stderr, "pp-analyze: %s: %s\n", o->events[i],
					sub.err[0] ? sub.err : "cannot build its events");
				return ret;
			}
			for (int j = 0; j < sub.nr && rq->nr < PP_MAX_EVENT_REQS; j++)
				rq->req[rq->nr++] = sub.req[j];
			rq->system_wide |= s->srcs[k].a->needs_system_wide;
			continue;
		}
		r = &rq->req[rq->nr++];
		r->spec = o->events[i];
		r->callchain = o->callchain;
		r->exclude_user = o->exclude_user;
		r->exclude_kernel = o->exclude_kernel;
		r->freq = o->freq;
	}
	return 0;
}

/* ---- targets ---- */

/* Append every thread of process @pid (or @pid alone when @all_threads is 0). */
static int add_threads(pid_t **v, int *nr, pid_t pid, int all_threads)
{
	char path[64];
	DIR *d = NULL;
	struct dirent *e;
	pid_t *n;

	if (all_threads) {
		snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
		d = opendir(path);
		if (!d)
			return -ESRCH;
	}
	for (;;) {
		pid_t t = pid;

		if (d) {
			e = readdir(d);
			if (!e)
				break;
			if (!isdigit((unsigned char)e->d_name[0]))
				continue;
			t = (pid_t)atoi(e->d_name);
		}
		n = realloc(*v, (size_t)(*nr + 1) * sizeof(**v));
		if (!n) {
			if (d)
				closedir(d);
			return -ENOMEM;
		}
		*v = n;
		n[(*nr)++] = t;
		if (!d)
			break;
	}
	if (d)
		closedir(d);
	return 0;
}

static int parse_targets(const char *list, int procs, pid_t **v, int *nr)
{
	const char *p = list;

	while (*p) {
		char *end;
		long pid = strtol(p, &end, 10);

		if (end == p || pid <= 0 || (*end && *end != ',')) {
			fprintf(stderr, "pp-analyze: bad %s list '%s'\n", procs ? "pid" : "tid", list);
			return -EINVAL;
		}
		if (add_threads(v, nr, (pid_t)pid, procs)) {
			fprintf(stderr, "pp-analyze: no such %s %ld\n", procs ? "process" : "thread", pid);
			return -ESRCH;
		}
		p = *end ? end + 1 : end;
	}
	return 0;
}

/* ---- metadata through the file loaders ---- */

static void load_machine(struct pp_session *s, struct live *lv)
{
	struct pp_buf b;
	char cpus[1024] = "";

	pp_buf__init(&b);
	for (int i = 0; i < lv->el->nr_cpus; i++) {
		size_t l = strlen(cpus);

		snprintf(cpus + l, sizeof(cpus) - l, "%s%d", i ? "," : "", lv->el->cpus[i]);
	}
	if (!pp_host__describe(&b, cpus, "(live)"))
		pp_session__meta_chunk(s, PP_CHUNK_MACHINE, b.data, b.len, PP_STREAM_META);
	pp_buf__exit(&b);
}

static void load_formats(struct pp_session *s, struct live *lv)
{
	struct pp_buf b;

	if (!lv->tracefs)
		return;
	pp_buf__init(&b);
	if (!pp_host__formats(&b, &lv->descs))
		pp_session__meta_chunk(s, PP_CHUNK_FORMATS, b.data, b.len, PP_STREAM_META);
	pp_buf__exit(&b);
}

/* TASKS items for the threads of @pid (all processes when @pid is 0). */
static void task_items(struct pp_buf *b, pid_t only)
{
	DIR *pd = opendir("/proc");
	struct dirent *p;

	while (pd && (p = readdir(pd))) {
		char path[64];
		DIR *td;
		struct dirent *t;
		pid_t pid;

		if (!isdigit((unsigned char)p->d_name[0]))
			continue;
		pid = (pid_t)atoi(p->d_name);
		if (only && pid != only)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
		td = opendir(path);
		while (td && (t = readdir(td))) {
			struct pp_task_item it;
			char cpath[320], comm[64];
			size_t n;
			int fd;
			ssize_t r;
			size_t at;

			if (!isdigit((unsigned char)t->d_name[0]))
				continue;
			snprintf(cpath, sizeof(cpath), "/proc/%d/task/%s/comm", (int)pid, t->d_name);
			fd = open(cpath, O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				continue;
			r = read(fd, comm, sizeof(comm) - 1);
			close(fd);
			if (r <= 0)
				continue;
			comm[r] = '\0';
			n = strcspn(comm, "\n");
			comm[n] = '\0';
			memset(&it, 0, sizeof(it));
			pp_put_le32((uint8_t *)&it.pid, (uint32_t)pid);
			pp_put_le32((uint8_t *)&it.tid, (uint32_t)atoi(t->d_name));
			memcpy(it.comm, comm, n < 16 ? n : 15);
			at = pp_item__begin(b, 0);
			pp_buf__append(b, &it, sizeof(it));
			pp_item__end(b, at);
		}
		if (td)
			closedir(td);
	}
	if (pd)
		closedir(pd);
}

static void load_tasks(struct pp_session *s, const pid_t *procs, int nr)
{
	struct pp_buf b;

	pp_buf__init(&b);
	if (!nr)
		task_items(&b, 0);
	for (int i = 0; i < nr; i++)
		task_items(&b, procs[i]);
	if (!b.error)
		pp_session__meta_chunk(s, PP_CHUNK_TASKS, b.data, b.len, PP_STREAM_META);
	pp_buf__exit(&b);
}

/*
 * Kernel symbols from /proc/kallsyms in KSYMS item form (sizes up to the next
 * symbol), and the executable maps of the processes, for stacks.
 */
static void load_symbols(struct pp_session *s, const pid_t *procs, int nr)
{
	char *ks = pp_file_read("/proc/kallsyms", NULL), *line, *save = NULL;
	struct pp_buf b;
	DIR *pd;
	struct dirent *p;

	pp_buf__init(&b);
	if (ks) {
		size_t nr_at;
		uint32_t count = 0, zero = 0;
		uint64_t prev_addr = 0;
		size_t prev_size_at = 0;

		pp_buf__append_str(&b, "");
		pp_buf__pad(&b, 8);
		nr_at = b.len;
		pp_buf__append(&b, &count, 4);
		pp_buf__append(&b, &zero, 4);
		for (line = strtok_r(ks, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			unsigned long long addr;
			char type, name[256];
			uint32_t sz = 0;

			if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 || !addr ||
			    strchr(line, '['))
				continue;	/* modules: their own items would be needed */
			if (type != 't' && type != 'T' && type != 'w' && type != 'W')
				continue;
			if (count && addr >= prev_addr && addr - prev_addr < (1u << 30) && !b.error) {
				uint32_t psz = (uint32_t)(addr - prev_addr);

				memcpy(b.data + prev_size_at, &psz, 4);
			}
			pp_buf__append(&b, &addr, 8);
			prev_size_at = b.len;
			pp_buf__append(&b, &sz, 4);
			pp_buf__append(&b, &type, 1);
			pp_buf__append_str(&b, name);
			prev_addr = addr;
			count++;
		}
		if (!b.error) {
			memcpy(b.data + nr_at, &count, 4);
			pp_symtab__add_ksyms(s->syms, b.data, b.len);
		}
		free(ks);
	}
	pp_buf__exit(&b);
	pd = nr ? NULL : opendir("/proc");
	for (int i = 0; pd || i < nr; i++) {
		char path[64], *maps, *l, *sv = NULL;
		pid_t pid;

		if (pd) {
			p = readdir(pd);
			if (!p)
				break;
			if (!isdigit((unsigned char)p->d_name[0]))
				continue;
			pid = (pid_t)atoi(p->d_name);
		} else {
			pid = procs[i];
		}
		snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
		maps = pp_file_read(path, NULL);
		for (l = maps ? strtok_r(maps, "\n", &sv) : NULL; l; l = strtok_r(NULL, "\n", &sv)) {
			unsigned long long start, end, off;
			char perms[8];
			int pos = 0;

			if (sscanf(l, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &off,
				   &pos) < 4 || !pos || perms[2] != 'x' || l[pos] != '/')
				continue;
			pp_symtab__add_mmap(s->syms, (uint32_t)pid, start, end - start, off, NULL, 0,
					    l + pos);
		}
		free(maps);
	}
	if (pd)
		closedir(pd);
}

/* ---- open ---- */

static void live_free(struct live *lv)
{
	if (!lv)
		return;
	pp_live_drain__free(lv->drain);	/* before the rings it reads */
	pp_live_batch__free(lv->batch);
	pp_walker__free(lv->walker);
	pp_workload__stop(&lv->wl, NULL);
	free(lv->watch);
	pp_ftrace__free(lv->ft);
	pp_perf_evlist__free(lv->el);
	pp_evdescs__exit(&lv->descs);
	free(lv);
}

static int open_error(struct live *lv, int err)
{
	const char *m = lv->el->err[0] ? lv->el->err : strerror(-err);

	if (err == -EACCES || err == -EPERM)
		fprintf(stderr, "pp-analyze: %s (run as root or lower kernel.perf_event_paranoid)\n", m);
	else if (err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV)
		fprintf(stderr, "pp-analyze: %s: the event is not supported here%s\n", m,
			strstr(m, "cycles") || strstr(m, "instructions") ?
			" (no hardware PMU? use cpu-clock)" : "");
	else
		fprintf(stderr, "pp-analyze: %s\n", m);
	return err;
}

static const struct pp_input_ops live_source;

static void walker_say(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "pp-analyze: %s\n", msg);
}

/* -g: the events' user stacks by the kernel-side walker, as pp-record's. */
static int walker_add(struct live *lv)
{
	struct pp_walker_opts wo = { .say = walker_say };
	char mode[256], err[256];
	int ret;

	pp_bpf_filter_opts__init(&wo.filter);	/* no check of pp-record's */
	ret = pp_walker__new(lv->el, &wo, &lv->walker, mode, sizeof(mode), err, sizeof(err));

	if (ret)
		fprintf(stderr, "pp-analyze: %s\n", err);
	return ret;
}

/**
 * pp_live__open() - open the module's events on the local rings.
 * @s: session.
 *
 * The events are the module's own (its ->events(), or each -e), on every
 * online CPU or -C, for every thread or -p/-t, or following the workload
 * given after `--`. Formats come from the local tracefs (mounted if needed)
 * through the same loader as a file's FORMATS chunk.
 * Return: 0 or -errno (a one-line message is printed).
 */
int pp_live__open(struct pp_session *s)
{
	const struct pp_opts *o = &s->opts;
	struct pp_event_reqs rq;
	struct live *lv;
	int *cpus = NULL, nr_cpus = 0, nr_threads = 0, nr_procs = 0, nr_tasks, ret;
	pid_t *threads = NULL, *procs = NULL;

	lv = calloc(1, sizeof(*lv));
	if (!lv)
		return -ENOMEM;
	lv->wl.pid = -1;
	lv->wl.go_fd = lv->wl.err_fd = -1;
	s->live = lv;
	s->src = &live_source;
	ret = live_reqs(s, &rq);
	if (ret)
		return ret;
	if (o->cpus) {
		nr_cpus = pp_perf_cpus__parse(o->cpus, &cpus);
		if (nr_cpus <= 0) {
			fprintf(stderr, "pp-analyze: bad CPU list '%s'\n", o->cpus);
			return -EINVAL;
		}
	}
	if (o->pids && (ret = parse_targets(o->pids, 1, &threads, &nr_threads)))
		goto out;
	if (o->pids && (ret = parse_targets(o->pids, 0, &procs, &nr_procs)))
		goto out;
	if (o->tids && (ret = parse_targets(o->tids, 0, &threads, &nr_threads)))
		goto out;
	/*
	 * A module whose events concern two tasks (sched_switch) sees them on
	 * every CPU for every task and keeps its targets itself.
	 */
	lv->widen = rq.system_wide && (o->pids || o->tids || o->workload);
	/*
	 * The run ends when every -p process (or -t thread) is gone. A ring's
	 * hang-up says only that the thread whose fd carries it exited: with
	 * -p A,B that is A's, while B still runs.
	 */
	if ((o->pids || o->tids) &&
	    (ret = parse_targets(o->pids ? o->pids : o->tids, 0, &lv->watch, &lv->nr_watch)))
		goto out;
	if (o->workload) {
		ret = pp_workload__start(&lv->wl, o->workload, rq.preload, rq.preload_env);
		if (ret) {
			fprintf(stderr, "pp-analyze: cannot start %s: %s\n", o->workload[0],
				strerror(-ret));
			goto out;
		}
		lv->follow = !o->cpus && !o->all_cpus && !o->pids && !o->tids && !lv->widen;
		if (lv->widen && !o->pids && !o->tids)
			pp_session__add_target(s, (uint32_t)lv->wl.pid, 0);
		if (lv->follow && (ret = add_threads(&threads, &nr_threads, lv->wl.pid, 0)))
			goto out;
		if (lv->follow && (ret = add_threads(&procs, &nr_procs, lv->wl.pid, 0)))
			goto out;
	}
	/* widened -p: every task's events, every task's comm and maps */
	nr_tasks = lv->widen && o->pids ? 0 : nr_procs;
	lv->el = pp_perf_evlist__new(cpus, nr_cpus, lv->widen ? NULL : threads,
				     lv->widen ? 0 : nr_threads);
	if (!lv->el) {
		ret = -ENOMEM;
		goto out;
	}
	lv->el->mmap_pages = pp_perf_ring_pages(lv->el->nr_cpus);
	lv->use_ftrace = o->ftrace;
	ret = add_events(lv, &rq);
	if (ret)
		goto out;
	for (int i = 0; i < lv->el->nr_evsels; i++) {
		struct pp_perf_evsel *e = &lv->el->evsels[i];

		e->attr.inherit = !lv->widen && (lv->follow || o->pids);
		e->attr.enable_on_exec = lv->follow;
	}
	/* after: its output event is on every CPU, not inherited, on when told */
	if (lv->need_syms && (ret = walker_add(lv)))
		goto out;
	/* The events, formats, machine and tasks through the file's loaders. */
	tep_set_long_size(s->tep, sizeof(long));
	tep_set_file_bigendian(s->tep, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ?
			       TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(s->tep, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ?
				TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	load_machine(s, lv);
	load_formats(s, lv);
	/*
	 * The tasks and their maps before the events are opened: reading
	 * /proc and every DSO's symbols takes a while on a loaded host, and
	 * once open the events are enabled at once (or at the COMMAND's
	 * exec), so whoever watches for our perf fds knows they are on.
	 */
	if (!lv->follow)
		load_tasks(s, procs, nr_tasks);
	if (lv->need_syms || s->a.bpf_agg)	/* a BPF aggregate has stacks too */
		load_symbols(s, procs, lv->follow ? 0 : nr_tasks);
	ret = pp_perf_evlist__open(lv->el);
	if (ret) {
		open_error(lv, ret);
		goto out;
	}
	if (lv->use_ftrace) {
		char err[2400];
		int bad;

		ret = pp_ftrace__open_evlist(lv->el, &lv->descs, &lv->ft, &bad, err, sizeof(err));
		if (!ret && !lv->widen && nr_threads &&
		    (ret = pp_ftrace__set_pids(lv->ft, threads, nr_threads, lv->follow || o->pids)))
			snprintf(err, sizeof(err), "--ftrace: cannot set the instance's pids: %s",
				 strerror(-ret));
		if (ret) {
			fprintf(stderr, "pp-analyze: %s\n", err);
			/* what the kernel or ftrace cannot take is a usage error, as in pp-record */
			if (ret == -EINVAL || ret == -EOPNOTSUPP || ret == -EEXIST || ret == -ENOENT)
				ret = -EINVAL;
			goto out;
		}
	}
	if (lv->walker) {
		char mode[256], err[512];

		const int widened = lv->widen && (o->workload || o->pids);

		/* -a, widened -t: every process; widened: the targets' only */
		ret = pp_walker__attach(lv->walker, (!lv->widen && !lv->el->nr_threads) ||
					(lv->widen && !widened), widened,
					o->workload ? lv->wl.pid : 0, lv->wl.path, o->pids ? procs : NULL,
					o->pids ? nr_procs : 0, mode, sizeof(mode), err, sizeof(err));
		if (ret) {
			fprintf(stderr, "pp-analyze: %s\n", err);
			goto out;
		}
	}
	for (int i = 0; i < lv->el->nr_evsels; i++) {
		struct pp_perf_evsel *e = &lv->el->evsels[i];
		uint64_t *ids;
		size_t n = 0;

		if (i == pp_walker__output(lv->walker))
			continue;	/* its records are the samples' frames */
		ids = malloc(sizeof(*ids) * (size_t)(e->nr_ids ? e->nr_ids : 1));
		if (!ids) {
			ret = -ENOMEM;
			goto out;
		}
		for (int k = 0; k < e->nr_ids; k++) {
			if (e->fds[k] >= 0 || e->external)
				ids[n++] = e->ids[k];
		}
		ret = pp_session__add_evsel(s, &e->attr, sizeof(e->attr), e->name, ids, n);
		free(ids);
		if (ret) {
			fprintf(stderr, "pp-analyze: too many events\n");
			goto out;
		}
	}
	pp_session__link_formats(s);
	/* the module's BPF aggregator, following the same targets */
	ret = pp_bpf_agg_feed__open_live(s, o->workload ? lv->wl.pid : 0);
	if (ret)
		goto out;
	/* One stream per ring (per perf ring, then per ftrace ring). */
	s->nr_streams = (size_t)lv->el->nr_cpus * (lv->ft ? 2 : 1);
	s->streams = calloc(s->nr_streams, sizeof(*s->streams));
	if (!s->streams) {
		s->nr_streams = 0;
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < s->nr_streams; i++) {
		int ci = (int)(i % (size_t)lv->el->nr_cpus);

		s->streams[i].id = (uint32_t)lv->el->cpus[ci] |
				   (i < (size_t)lv->el->nr_cpus ? 0 : PP_STREAM_FTRACE);
		s->streams[i].next_entry = -1;
	}
	ret = 0;
out:
	free(cpus);
	free(threads);
	free(procs);
	return ret;
}

/* ---- run ---- */

/* Drop what @st merged already: its head record and what follows it stay. */
static void stream_compact(struct pp_stream *st)
{
	size_t keep = st->head ? (size_t)(st->head - st->buf) : st->off;

	if (keep) {
		memmove(st->buf, st->buf + keep, st->len - keep);
		st->len -= keep;
		st->off -= keep;
		if (st->head)
			st->head = st->buf;
	}
}

/* Room for @more bytes after @st's records: 0, or -ENOMEM past the cap. */
static int stream_room(struct pp_stream *st, size_t more)
{
	size_t ncap = st->cap ? st->cap : 65536, head_off = st->head ? (size_t)(st->head - st->buf) : 0;
	uint8_t *nb;

	if (st->len + more <= st->cap)
		return 0;
	while (ncap < st->len + more)
		ncap *= 2;
	nb = ncap <= LIVE_STREAM_MAX ? realloc(st->buf, ncap) : NULL;
	if (!nb)
		return -ENOMEM;
	st->buf = nb;
	st->cap = ncap;
	if (st->head)
		st->head = st->buf + head_off;
	return 0;
}

/*
 * Append what the drain thread handed over to each stream, after the
 * records not merged yet, and merge from each stream's head on.
 */
static void live_deliver(struct pp_session *s, struct pp_live_batch *b)
{
	s->stats.lost_recorder += b->lost;
	for (int i = 0; i < b->nr; i++) {
		struct pp_live_pend *p = &b->pend[i];
		struct pp_stream *st = &s->streams[i];

		if (!p->len)
			continue;
		stream_compact(st);
		if (stream_room(st, p->len)) {
			s->stats.lost_recorder++;	/* cannot keep up: dropped, and said so */
		} else {
			memcpy(st->buf + st->len, p->buf, p->len);
			st->len += p->len;
			st->data = st->buf;
			if (!st->head)
				pp_session__stream_advance(s, st);
		}
		p->len = 0;
	}
}

/*
 * Analyze at SCHED_FIFO (@on) or at the base policy. The drain thread reads
 * the rings whatever the analysis does, but what it reads waits in memory
 * until analyzed: while the events come fast the analysis keeps the
 * realtime policy, as pp-record's writer does while chunks wait, or on a
 * host with scores of runnable tasks it waits a CFS period behind them
 * (hundreds of ms) per round. Where it is refused it stays off.
 */
static void live_rt(struct live *lv, int on)
{
	struct sched_param sp = { .sched_priority = on ? 1 : 0 };

	if (lv->rt && sched_setscheduler(0, on ? SCHED_FIFO : SCHED_OTHER, &sp))
		lv->rt = 0;
}

/* Is one of the widened -p processes still there? */
static int watch_alive(const struct live *lv)
{
	for (int i = 0; i < lv->nr_watch; i++) {
		if (!kill(lv->watch[i], 0) || errno == EPERM)
			return 1;
	}
	return 0;
}

/*
 * The source's run: read the rings until stopped: SIGINT/SIGTERM, -d, -N,
 * the workload's exit, or every followed thread gone.
 */
static int live_run(struct pp_session *s)
{
	struct live *lv = s->live;
	uint64_t deadline = 0, now, ring_bytes;
	int ret, done = 0;

	if (!lv || !lv->el)
		return -EINVAL;
	if (!lv->follow) {
		ret = pp_perf_evlist__enable(lv->el);
		if (ret) {
			fprintf(stderr, "pp-analyze: cannot enable the events: %s\n", strerror(-ret));
			return ret;
		}
	}
	if (lv->ft && (ret = pp_ftrace__start(lv->ft))) {
		fprintf(stderr, "pp-analyze: cannot turn the tracefs instance on: %s\n",
			strerror(-ret));
		return ret;
	}
	lv->start = mono_ns();
	if (s->opts.duration_ns)
		deadline = lv->start + s->opts.duration_ns;
	pp_session__tick(s, lv->start);
	if (lv->follow)
		pp_walker__enable(lv->walker);	/* the walks' event: on from now */
	ret = pp_live_drain__start(&lv->drain, lv->el, lv->ft,
				   pp_walker__active(lv->walker) ? lv->walker : NULL);
	if (!ret && !(lv->batch = pp_live_batch__new(lv->drain)))
		ret = -ENOMEM;
	if (ret) {
		fprintf(stderr, "pp-analyze: cannot start reading the rings: %s\n", strerror(-ret));
		return ret;
	}
	ret = pp_workload__go(&lv->wl);
	if (ret) {
		fprintf(stderr, "pp-analyze: cannot run %s: %s\n", s->opts.workload[0], strerror(-ret));
		return ret;
	}
	lv->rt = 1;
	ring_bytes = (uint64_t)lv->el->mmap_pages * (uint64_t)sysconf(_SC_PAGESIZE);
	while (!s->stop && !done) {
		int timeout = LIVE_POLL_MS;
		uint64_t wm;

		now = mono_ns();
		if (deadline && deadline <= now)
			break;
		if (deadline && (deadline - now) / 1000000 < (uint64_t)timeout)
			timeout = (int)((deadline - now) / 1000000) + 1;
		if (s->opts.interval_ns && s->next_tick > now &&
		    (s->next_tick - now) / 1000000 < (uint64_t)timeout)
			timeout = (int)((s->next_tick - now) / 1000000) + 1;
		pp_live_drain__take(lv->drain, timeout, lv->batch);
		if (lv->wl.pid > 0 && waitpid(lv->wl.pid, NULL, WNOHANG) == lv->wl.pid) {
			lv->wl.pid = -1;
			done = 1;
		}
		if (lv->nr_watch && !watch_alive(lv))
			done = 1;	/* -p/-t: every target is gone */
		live_deliver(s, lv->batch);
		/* A ring an eighth full at a pass: the events come fast. */
		live_rt(lv, lv->batch->fullest >= ring_bytes / 8);
		wm = lv->batch->drained_to;
		pp_bpf_agg_feed__poll(s, wm);
		if (wm > LIVE_SLACK_NS) {
			pp_session__merge(s, wm - LIVE_SLACK_NS);
			pp_session__tick(s, wm - LIVE_SLACK_NS);
		}
	}
	pp_perf_evlist__disable(lv->el);
	if (lv->ft)
		pp_ftrace__stop(lv->ft);
	/* Stopped by a signal or a limit: still deliver what was read, unless -N says no. */
	if (!(s->opts.max_events && s->delivered >= s->opts.max_events))
		s->stop = 0;
	live_rt(lv, 0);
	pp_live_drain__finish(lv->drain, lv->batch);
	live_deliver(s, lv->batch);
	pp_session__merge(s, UINT64_MAX);
	pp_bpf_agg_feed__drain(s);
	now = mono_ns();
	if (s->last_ts < now && !s->opts.interval_ns)
		s->last_ts = now;
	s->stats.last_ts = s->last_ts;
	if (s->opts.verbose && pp_walker__active(lv->walker)) {
		char line[512];

		pp_walker__summary(lv->walker, line, sizeof(line));
		fprintf(stderr, "pp-analyze: %s\n", line);
	}
	for (int i = 0; i < lv->el->nr_cpus; i++) {
		if (lv->el->rings[i].corrupt)
			pp_session__warn(s, "cpu %d: %llu corrupt ring records skipped",
					 lv->el->cpus[i], (unsigned long long)lv->el->rings[i].corrupt);
	}
	return 0;
}

/* The source's free: close the rings, end the workload; fine if never opened. */
static void live_source_free(struct pp_session *s)
{
	live_free(s->live);
	s->live = NULL;
}

/* A live stream's records come only from its ring, drained by live_run(). */
static int live_refill(struct pp_session *s, struct pp_stream *st)
{
	return 0;
}

static const struct pp_input_ops live_source = {
	.name = "live",
	.run = live_run,
	.refill = live_refill,
	.free = live_source_free,
};

/**
 * pp_session__open_live() - open the module's events on this host's rings.
 * @s: session.
 * Return: 0 or -errno.
 */
int pp_session__open_live(struct pp_session *s)
{
	return pp_live__open(s);
}
