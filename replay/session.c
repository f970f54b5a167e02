// SPDX-License-Identifier: MIT
/*
 * The replay session: metadata, the file source with one cursor per stream,
 * the k-way merge by timestamp and the dispatch to the analyzer callbacks.
 *
 * Memory: one chunk buffer per stream (bounded by the chunk size cap), the
 * chunk list (32 bytes a chunk) and the metadata tables; never the file.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <traceevent/event-parse.h>
#include "pp/ftpages.h"
#include "pp/meta.h"
#include "pp/sample.h"
#include "replay-internal.h"
#include "mem.h"

static void stub_sample(struct pp_session *s, const struct pp_event *e) {}
static void stub_lost(struct pp_session *s, const struct pp_lost *l) {}
static void stub_task(struct pp_session *s, const struct pp_task_event *t) {}
static void stub_mmap(struct pp_session *s, const struct pp_mmap_event *m) {}
static void stub_bpf_item(struct pp_session *s, const struct pp_bpf_item *item) {}
static void stub_interval(struct pp_session *s, uint64_t now) {}
static void stub_session(struct pp_session *s) {}
static int stub_init(struct pp_session *s) { return 0; }

/**
 * pp_analyzer__fill_stubs() - replace every NULL callback of @a by a no-op.
 * @a: a writable copy of a module.
 */
void pp_analyzer__fill_stubs(struct pp_analyzer *a)
{
	if (!a->init)
		a->init = stub_init;
	if (!a->sample)
		a->sample = stub_sample;
	if (!a->lost)
		a->lost = stub_lost;
	if (!a->comm)
		a->comm = stub_task;
	if (!a->fork)
		a->fork = stub_task;
	if (!a->exit)
		a->exit = stub_task;
	if (!a->mmap)
		a->mmap = stub_mmap;
	if (!a->bpf_item)
		a->bpf_item = stub_bpf_item;
	if (!a->interval)
		a->interval = stub_interval;
	if (!a->report)
		a->report = stub_session;
	if (!a->deinit)
		a->deinit = stub_session;
}

/* The kernel's PID_MAX_LIMIT on 64-bit: no pid or tid is above it. */
#define PP_PID_MAX	4194304

static int parse_list(const char *s, uint32_t *out, int max)
{
	int n = 0;

	while (s && *s) {
		char *end;
		unsigned long v;

		if (*s < '0' || *s > '9')	/* strtoul() takes "-1" */
			return -EINVAL;
		v = strtoul(s, &end, 10);
		if (n >= max || v > PP_PID_MAX)
			return -EINVAL;
		out[n++] = (uint32_t)v;
		s = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return -EINVAL;
	}
	return n;
}

static int parse_cpus(struct pp_session *s, const char *list)
{
	const char *p = list;

	while (*p) {
		char *end;
		unsigned long a, b;

		if (*p < '0' || *p > '9')	/* strtoul() takes "-1" */
			return -EINVAL;
		a = strtoul(p, &end, 10);
		b = a;
		if (*end == '-') {
			p = end + 1;
			if (*p < '0' || *p > '9')
				return -EINVAL;
			b = strtoul(p, &end, 10);
		}
		if (a > b || b >= 1024)
			return -EINVAL;
		for (unsigned long c = a; c <= b; c++)
			s->cpu_mask[c / 64] |= 1ull << (c % 64);
		if (*end == ',')
			end++;
		else if (*end)
			return -EINVAL;
		p = end;
	}
	s->cpu_filter = 1;
	return 0;
}

/**
 * pp_session__new() - a replay session for module @a with options @o.
 * @a: module; @o: parsed options (copied).
 * Return: session, or NULL with errno set (a message is printed for bad options).
 */
struct pp_session *pp_session__new(const struct pp_analyzer *a, const struct pp_opts *o)
{
	struct pp_session *s = calloc(1, sizeof(*s));
	int fd = STDOUT_FILENO;

	if (!s)
		return NULL;
	s->a = *a;
	pp_analyzer__fill_stubs(&s->a);
	s->opts = *o;
	for (int i = 0; i < o->nr_events; i++) {
		struct pp_src *src = &s->srcs[s->nr_srcs];
		struct pp_evspec *sp = &s->specs[s->nr_specs++];
		char err[256];

		src->a = NULL;
		if (s->nr_srcs < PP_MAX_SOURCES) {
			src->a = pp_analyzer__source(o->events[i], a, src->buf, sizeof(src->buf),
						     &src->o, err, sizeof(err));
			if (!src->a && errno) {
				fprintf(stderr, "pp-analyze: %s\n", err);
				goto err;
			}
		}
		if (src->a) {
			/* a profiler's entry: its events are matched by the source, not by name */
			if (pp_evspec__parse_source(o->events[i], sp, err, sizeof(err))) {
				fprintf(stderr, "pp-analyze: %s\n", err);
				goto err;
			}
			src->entry = i;
			s->nr_srcs++;
			continue;
		}
		if (pp_evspec__parse(o->events[i], sp, err, sizeof(err))) {
			fprintf(stderr, "pp-analyze: %s\n", err);
			goto err;
		}
	}
	if (o->flame_graph) {
		int ret = pp_session__output_ok(s, "--flame-graph", o->flame_graph);

		if (ret) {
			free(s);
			errno = -ret;
			return NULL;
		}
	}
	if (o->cpus && parse_cpus(s, o->cpus)) {
		fprintf(stderr, "pp-analyze: %s: bad CPU list '%s' (CPUs from 0 to 1023, e.g. 0-3,6)\n",
			a->name, o->cpus);
		goto err;
	}
	if (o->pids && (s->nr_pids = parse_list(o->pids, s->pids, 64)) <= 0) {
		fprintf(stderr, "pp-analyze: %s: bad pid list '%s' (pids from 0 to %d, comma-separated)\n",
			a->name, o->pids, PP_PID_MAX);
		goto err;
	}
	if (o->tids && (s->nr_tids = parse_list(o->tids, s->tids, 64)) <= 0) {
		fprintf(stderr, "pp-analyze: %s: bad tid list '%s' (tids from 0 to %d, comma-separated)\n",
			a->name, o->tids, PP_PID_MAX);
		goto err;
	}
	for (int i = 0; i < s->nr_pids; i++)
		pp_session__add_target(s, s->pids[i], 0);
	for (int i = 0; i < s->nr_tids; i++)
		pp_session__add_target(s, s->tids[i], 1);
	if (o->output) {
		fd = open(o->output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0) {
			fprintf(stderr, "pp-analyze: cannot create %s: %s\n", o->output, strerror(errno));
			goto err;
		}
	}
	pp_out__init(&s->out, fd);
	s->syms = pp_symtab__new();
	if (s->syms) {
		pp_symtab__set_demangle(s->syms, !o->no_demangle);
		/* --debuginfod[=URLS], or DEBUGINFOD_URLS as libdebuginfod's other users */
		if (o->debuginfod && pp_debuginfod_urls(o->debuginfod)) {
			fprintf(stderr, "pp-analyze: --debuginfod: no server (give --debuginfod=URLS "
				"or set DEBUGINFOD_URLS)\n");
			goto err;
		}
		pp_symtab__set_debuginfod(s->syms, !pp_debuginfod_urls(NULL));
	}
	s->tep = tep_alloc();
	if (!s->syms || !s->tep || s->out.error) {
		pp_session__free(s);
		errno = ENOMEM;
		return NULL;
	}
	return s;
err:
	free(s);
	errno = EINVAL;
	return NULL;
}

static void warn_torn(struct pp_session *s);

/**
 * pp_session__free() - free a session; accepts NULL.
 * @s: session.
 */
void pp_session__free(struct pp_session *s)
{
	if (!s)
		return;
	warn_torn(s);	/* the run did not get to say it */
	pp_out__exit(&s->out);
	if (s->out.fd != STDOUT_FILENO && s->out.fd >= 0)
		close(s->out.fd);
	if (s->src)
		s->src->free(s);
	pp_bpfagg__free(s);
	for (int i = 0; i < s->nr_srcs; i++) {
		if (s->srcs[i].inited && s->srcs[i].a->src_free)
			s->srcs[i].a->src_free(s->srcs[i].state);
	}
	for (size_t i = 0; i < s->nr_evsels; i++) {
		pp_print_plan__free(s->evsels[i].plan);
		free(s->evsels[i].guard);
	}
	free(s->refused);
	for (size_t i = 0; i < s->nr_streams; i++) {
		free(s->streams[i].buf);
		free(s->streams[i].align);
		pp_reader__free(s->streams[i].rd);
	}
	pp_scratch__release(&s->scratch);
	free(s->streams);
	free(s->heap);
	free(s->entries);
	pp_reader__free(s->reader);
	free(s->machine);
	free(s->idmap);
	free(s->tasks);
	free(s->tgt_procs.v);
	free(s->tgt_tids.v);
	pp_symtab__free(s->syms);
	if (s->tep)
		tep_free(s->tep);
	pp_btf_fmts__exit(&s->btf_fmts);
	if (s->fcache) {
		for (int i = 0; i < s->fcache->nr_blocks; i++)
			free(s->fcache->blocks[i]);
		free(s->fcache);
	}
	free(s);
}

/**
 * pp_session__opts() - the options of the run.
 * @s: session. Return: options.
 */
const struct pp_opts *pp_session__opts(const struct pp_session *s) { return &s->opts; }

/**
 * pp_session__evspec() - the parsed -e entry @i.
 * @s: session; @i: entry index.
 * Return: the spec, or NULL out of range.
 */
const struct pp_evspec *pp_session__evspec(const struct pp_session *s, int i)
{
	return i >= 0 && i < s->nr_specs ? &s->specs[i] : NULL;
}
/**
 * pp_session__out() - the buffered stdout of the run.
 * @s: session. Return: output.
 */
struct pp_out *pp_session__out(struct pp_session *s) { return &s->out; }
/**
 * pp_session__priv() - the analyzer's state.
 * @s: session. Return: what pp_session__set_priv() stored.
 */
void *pp_session__priv(const struct pp_session *s) { return s->priv; }
/**
 * pp_session__set_priv() - store the analyzer's state.
 * @s: session; @priv: state (freed by the analyzer's deinit).
 */
void pp_session__set_priv(struct pp_session *s, void *priv) { s->priv = priv; }
/**
 * pp_session__tep() - libtraceevent handle loaded from the file's formats.
 * @s: session. Return: handle.
 */
struct tep_handle *pp_session__tep(const struct pp_session *s) { return s->tep; }
/**
 * pp_session__stats() - replay counters.
 * @s: session. Return: counters.
 */
const struct pp_session_stats *pp_session__stats(const struct pp_session *s) { return &s->stats; }
/**
 * pp_session__bpf_agg() - the aggregator the session reads.
 * @s: session. Return: enum pp_agg, 0 for none.
 */
int pp_session__bpf_agg(const struct pp_session *s) { return s->a.bpf_agg; }

/**
 * pp_session__interval_start() - start of the interval being ended.
 * @s: session. Return: perf-clock ns, 0 without -i or before the first event.
 *
 * Both for a boundary and for the last, partial interval, ->interval() runs
 * before next_tick moves on, so the interval began one -i before it.
 */
uint64_t pp_session__interval_start(const struct pp_session *s)
{
	uint64_t iv = s->opts.interval_ns;

	return iv && s->next_tick > iv ? s->next_tick - iv : 0;
}

/* pp_session__set_interval(): see pp/replay.h. */
void pp_session__set_interval(struct pp_session *s, uint64_t ns)
{
	s->opts.interval_ns = ns;
}

/**
 * pp_session__evsels() - the events of the trace.
 * @s: session; @nr: receives the count.
 * Return: array.
 */
struct pp_evsel *pp_session__evsels(struct pp_session *s, size_t *nr)
{
	*nr = s->nr_evsels;
	return s->evsels;
}

/**
 * pp_session__stop() - ask the run loop to stop; async-signal-safe.
 * @s: session.
 */
void pp_session__stop(struct pp_session *s)
{
	s->stop = 1;
}

/**
 * pp_session__fail() - make pp_session__run() return @err (the first one).
 * @s: session; @err: -errno, the message already printed.
 */
void pp_session__fail(struct pp_session *s, int err)
{
	if (!s->fail && err < 0)
		s->fail = err;
}

/**
 * pp_session__output_ok() - can the output @path be written?
 * @s: session; @opt: the option that names it; @path: the file.
 * Return: 0, -EINVAL (empty, or a directory), -errno of its directory.
 */
int pp_session__output_ok(struct pp_session *s, const char *opt, const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[4096];
	struct stat st;
	int err = 0;

	/* "" and "dir/" would write hidden files (".folded", "dir/.svg") */
	if (!*path || (slash && !slash[1])) {
		fprintf(stderr, "pp-analyze: %s: %s needs a file name, not '%s'\n", s->a.name, opt,
			path);
		return -EINVAL;
	}
	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		fprintf(stderr, "pp-analyze: %s: %s '%s' is a directory, not a file name\n",
			s->a.name, opt, path);
		return -EINVAL;
	}
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	if (stat(dir, &st))
		err = errno;
	else if (!S_ISDIR(st.st_mode))
		err = ENOTDIR;
	else if (access(dir, W_OK | X_OK))
		err = errno;
	if (err) {
		fprintf(stderr, "pp-analyze: %s: cannot write %s '%s': %s: %s\n", s->a.name, opt, path,
			dir, strerror(err));
		return -err;
	}
	return 0;
}

/**
 * pp_session__warn() - print a warning line on stderr.
 * @s: session; @fmt: printf format.
 */
void pp_session__warn(struct pp_session *s, const char *fmt, ...)
{
	va_list ap;

	s->warnings++;
	fputs("pp-analyze: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/**
 * pp_session__machine() - a MACHINE key's value.
 * @s: session; @key: key.
 * Return: value or NULL.
 */
const char *pp_session__machine(const struct pp_session *s, const char *key)
{
	if (!s->machine)
		return NULL;
	return pp_machine__get(s->machine, s->machine_len, key);
}

/**
 * pp_session__realtime() - wall-clock ns of a perf-clock time.
 * @s: session; @ts: CLOCK_MONOTONIC ns.
 * Return: CLOCK_REALTIME ns, or 0 when the file lacks the clock pair.
 */
uint64_t pp_session__realtime(const struct pp_session *s, uint64_t ts)
{
	if (!s->have_clock)
		return 0;
	return s->start_real + (ts - s->start_mono);
}

/* ---- tasks ---- */

static struct pp_task *task_slot(const struct pp_session *s, uint32_t tid)
{
	size_t mask = s->tasks_cap - 1, i;

	if (!s->tasks_cap)
		return NULL;
	for (i = (tid * 2654435761u) & mask;; i = (i + 1) & mask) {
		struct pp_task *t = &s->tasks[i];

		if (t->tid == tid + 1 || !t->tid)
			return t;
	}
}

/**
 * pp_session__set_comm() - remember the comm of a thread.
 * @s: session; @pid, @tid: ids; @comm: name (cut at 15 bytes), which may be
 * another task's (pp_session__comm()): the table may grow meanwhile.
 */
void pp_session__set_comm(struct pp_session *s, uint32_t pid, uint32_t tid, const char *comm)
{
	struct pp_task *t;
	char name[sizeof(t->comm)];

	/*
	 * No task has id 0xffffffff (perf's "none"; pid_max is at most 2^22):
	 * its key, tid + 1, would be the empty slot's 0, counted as a task
	 * that takes no slot, and a file naming it in every sample doubled
	 * the table at each one.
	 */
	if (tid == UINT32_MAX)
		return;
	/*
	 * @comm may be another task's, in the table that growing frees: copy
	 * it first, escaped for terminals (every comm enters here).
	 */
	pp_text_escape(name, sizeof(name), comm);
	if (s->tasks_nr * 2 >= s->tasks_cap) {
		size_t ncap = s->tasks_cap ? s->tasks_cap * 2 : 1024;
		struct pp_task *old = s->tasks, *n = calloc(ncap, sizeof(*n));
		size_t ocap = s->tasks_cap;

		if (!n)
			return;
		s->tasks = n;
		s->tasks_cap = ncap;
		for (size_t i = 0; i < ocap; i++) {
			if (old[i].tid)
				*task_slot(s, old[i].tid - 1) = old[i];
		}
		free(old);
	}
	t = task_slot(s, tid);
	if (!t->tid) {
		t->tid = tid + 1;
		s->tasks_nr++;
	}
	t->pid = pid;
	memcpy(t->comm, name, sizeof(name));
	s->comm_gen++;
}

/**
 * pp_session__comm() - the comm of @tid, or of its process, "swapper" for
 * the idle task (tid 0, as perf names it), or "<...>".
 * @s: session; @tid: thread.
 * Return: string owned by the session.
 */
const char *pp_session__comm(const struct pp_session *s, uint32_t tid)
{
	struct pp_task *t = task_slot(s, tid);

	if (t && t->tid)
		return t->comm;
	return tid ? "<...>" : "swapper";
}

/**
 * pp_session__comm_gen() - the count of comm changes: a module that keeps
 * text made from pp_session__comm() reuses it while the count stays.
 * @s: session. Return: the count (it wraps).
 */
uint32_t pp_session__comm_gen(const struct pp_session *s)
{
	return s->comm_gen;
}

/* ---- targets ---- */

static int idset_has(const struct pp_idset *set, uint32_t id)
{
	size_t mask = set->cap - 1;

	if (!set->cap)
		return 0;
	for (size_t i = (id * 2654435761u) & mask;; i = (i + 1) & mask) {
		if (set->v[i] == id + 1)
			return 1;
		if (!set->v[i])
			return 0;
	}
}

static void idset_add(struct pp_idset *set, uint32_t id)
{
	size_t mask;

	if (idset_has(set, id))
		return;
	if ((set->nr + 1) * 2 > set->cap) {
		size_t ncap = set->cap ? set->cap * 2 : 64;
		uint32_t *old = set->v, *n = calloc(ncap, sizeof(*n));
		size_t ocap = set->cap;

		if (!n)
			return;
		set->v = n;
		set->cap = ncap;
		set->nr = 0;
		for (size_t i = 0; i < ocap; i++) {
			if (old[i])
				idset_add(set, old[i] - 1);
		}
		free(old);
	}
	mask = set->cap - 1;
	for (size_t i = (id * 2654435761u) & mask;; i = (i + 1) & mask) {
		if (!set->v[i]) {
			set->v[i] = id + 1;
			set->nr++;
			return;
		}
	}
}

/**
 * pp_session__add_target() - make a process or thread a target of
 * pp_session__is_target() (from -p/-t, the live COMMAND or the file).
 * @s: session; @id: pid or tid; @thread: 1 for a thread, 0 for a process.
 */
void pp_session__add_target(struct pp_session *s, uint32_t id, int thread)
{
	idset_add(thread ? &s->tgt_tids : &s->tgt_procs, id);
	s->targets = 1;
}

/* Is the task @pid/@tid (both known, as in a sample) a target? */
static int target_has(const struct pp_session *s, uint32_t pid, uint32_t tid)
{
	return idset_has(&s->tgt_tids, tid) || idset_has(&s->tgt_procs, pid);
}

/**
 * pp_session__is_target() - is thread @tid a target of the run (-p, -t, the
 * live COMMAND, the file's targets, and what they forked)?
 * @s: session; @tid: task id from an event's fields.
 * Return: 1 when it is or when there are no targets, else 0.
 */
int pp_session__is_target(const struct pp_session *s, uint32_t tid)
{
	const struct pp_task *t;

	if (!s->targets)
		return 1;
	if (!tid)
		return 0;	/* the idle task */
	t = task_slot(s, tid);
	return target_has(s, t && t->tid ? t->pid : tid, tid);
}

/* MACHINE target_pids / target_tids: the recorder widened the events for the module. */
static void machine_targets(struct pp_session *s, const char *key, int thread)
{
	const char *v = pp_session__machine(s, key);

	while (v && *v) {
		char *end;
		unsigned long id = strtoul(v, &end, 10);

		if (end == v)
			break;
		if (id && id < UINT32_MAX)
			pp_session__add_target(s, (uint32_t)id, thread);
		v = *end == ',' ? end + 1 : end;
	}
}

/* ---- events ---- */

/**
 * pp_session__evsel_by_id() - the event owning sample id @id.
 * @s: session; @id: sample id.
 * Return: the event or NULL.
 */
struct pp_evsel *pp_session__evsel_by_id(const struct pp_session *s, uint64_t id)
{
	size_t mask = s->idmap_cap - 1, i;

	if (!s->idmap_cap)
		return NULL;
	for (i = (size_t)((id * 0x9e3779b97f4a7c15ull) >> 20) & mask;; i = (i + 1) & mask) {
		if (s->idmap[i].id == id)
			return (struct pp_evsel *)&s->evsels[s->idmap[i].evsel];
		if (!s->idmap[i].id)
			return NULL;
	}
}

static int idmap_add(struct pp_session *s, uint64_t id, int evsel)
{
	size_t mask, i;

	if (!id)
		return 0;
	s->idmap_gen++;
	if ((s->idmap_nr + 1) * 2 > s->idmap_cap) {
		size_t ncap = s->idmap_cap ? s->idmap_cap * 2 : 256, ocap = s->idmap_cap;
		struct pp_idmap_ent *old = s->idmap, *n = calloc(ncap, sizeof(*n));

		if (!n)
			return -ENOMEM;
		s->idmap = n;
		s->idmap_cap = ncap;
		s->idmap_nr = 0;
		for (size_t j = 0; j < ocap; j++) {
			if (old[j].id)
				idmap_add(s, old[j].id, old[j].evsel);
		}
		free(old);
	}
	mask = s->idmap_cap - 1;
	for (i = (size_t)((id * 0x9e3779b97f4a7c15ull) >> 20) & mask;; i = (i + 1) & mask) {
		if (s->idmap[i].id == id) {
			s->idmap[i].evsel = evsel;
			return 0;
		}
		if (!s->idmap[i].id)
			break;
	}
	s->idmap[i].id = id;
	s->idmap[i].evsel = evsel;
	s->idmap_nr++;
	return 0;
}

/* Does the event @name match the -e entry @sp? */
static int spec_matches(const struct pp_evspec *sp, const char *name)
{
	/* tracepoint names are patterns; a probe's path is not */
	return sp->kind == PP_EV_TRACEPOINT ? !fnmatch(sp->pattern, name, 0) :
	       !strcmp(sp->pattern, name);
}

/*
 * Does the module's ->events() ask for @name beyond the -e entries (a
 * sampler it adds, as hrtimer's cpu-clock)? Those reach it with -e given.
 */
static int module_requests(const struct pp_session *s, const char *name)
{
	struct pp_event_reqs reqs;

	if (!s->nr_specs || !s->a.events)
		return 0;
	memset(&reqs, 0, sizeof(reqs));
	if (s->a.events(&s->opts, &reqs))
		return 0;
	for (int r = 0; r < reqs.nr; r++) {
		struct pp_evspec sp;
		char err[256];

		if (!pp_evspec__parse(reqs.req[r].spec, &sp, err, sizeof(err)) &&
		    spec_matches(&sp, name))
			return 1;
	}
	return 0;
}

static const struct pp_evspec *match_spec(const struct pp_session *s, const char *name)
{
	for (int i = 0; i < s->nr_specs; i++) {
		const struct pp_evspec *sp = &s->specs[i];

		if (!sp->source && spec_matches(sp, name))
			return sp;
	}
	return NULL;
}

/*
 * Read a sample of layout @f into @e through the fast path of record/sample.c
 * (inline; the copy is folded away). Return: 0, or -EINVAL.
 */
static inline int fast_parse(const struct pp_sample_layout *f, const uint8_t *rec, size_t size,
			     struct pp_event *e)
{
	struct pp_sample_hot h;

	if (pp_sample__parse_hot(f, rec, size, &h))
		return -EINVAL;
	e->ip = h.ip;
	e->pid = h.pid;
	e->tid = h.tid;
	e->time = h.time;
	e->addr = h.addr;
	e->cpu = h.cpu;
	e->period = h.period;
	e->callchain = h.callchain;
	e->nr_callchain = (uint32_t)h.nr_callchain;
	e->raw = h.raw;
	e->raw_size = h.raw_size;
	e->regs = NULL;
	e->regs_mask = 0;
	e->user_stack = NULL;
	e->user_stack_size = 0;
	e->weight = 0;
	e->data_src = 0;
	return 0;
}

/**
 * pp_session__add_evsel() - add an event (an ATTRS item or a live event).
 * @s: session; @attr: attr bytes; @attr_size: their size;
 * @name: event name; @ids, @nr_ids: its sample ids.
 * Return: 0 or -errno.
 */
int pp_session__add_evsel(struct pp_session *s, const struct perf_event_attr *attr, size_t attr_size,
			  const char *name, const uint64_t *ids, size_t nr_ids)
{
	struct perf_event_attr a;
	struct pp_evsel *ev = NULL;

	memset(&a, 0, sizeof(a));
	memcpy(&a, attr, attr_size < sizeof(a) ? attr_size : sizeof(a));
	/* The same event again (attrs appended later): just add ids. */
	for (size_t i = 0; i < s->nr_evsels; i++) {
		if (!strcmp(s->evsels[i].name, name) && s->evsels[i].sample_type == a.sample_type)
			ev = &s->evsels[i];
	}
	if (!ev) {
		if (s->nr_evsels >= PP_MAX_EVSELS)
			return -E2BIG;
		ev = &s->evsels[s->nr_evsels];
		memset(ev, 0, sizeof(*ev));
		ev->idx = (int)s->nr_evsels++;
		pp_text_escape(ev->name, sizeof(ev->name), name);	/* printed as text */
		ev->type = a.type;
		ev->config = a.config;
		ev->sample_type = a.sample_type;
		ev->read_format = a.read_format;
		ev->sample_regs_user = a.sample_regs_user;
		if (a.freq)
			ev->sample_freq = a.sample_freq;
		else
			ev->sample_period = a.sample_period;
		pp_sample_layout__init(&s->fast[ev->idx], a.sample_type);
		ev->spec = match_spec(s, name);
		s->mod_req[ev->idx] = !ev->spec && module_requests(s, name);
		for (int k = 0; k < s->nr_srcs && !ev->src; k++) {
			if (s->srcs[k].a->src_match(&s->srcs[k].o, ev))
				ev->src = &s->srcs[k];
		}
	}
	for (size_t i = 0; i < nr_ids; i++) {
		int ret = idmap_add(s, ids[i], ev->idx);

		if (ret)
			return ret;
	}
	return 0;
}

/**
 * pp_session__link_formats() - attach the tracepoint formats to the events.
 * @s: session.
 */
void pp_session__link_formats(struct pp_session *s)
{
	for (size_t i = 0; i < s->nr_evsels; i++) {
		struct pp_evsel *ev = &s->evsels[i];
		char sys[128], *colon;

		if (!ev->btf)
			ev->btf = pp_btf_fmts__find(&s->btf_fmts, ev->name);
		if (ev->tp || ev->type != PERF_TYPE_TRACEPOINT)
			continue;
		snprintf(sys, sizeof(sys), "%s", ev->name);
		colon = strchr(sys, ':');
		if (!colon)
			continue;
		*colon = '\0';
		ev->tp = tep_find_event_by_name(s->tep, sys, colon + 1);
		if (!ev->tp)
			ev->tp = tep_find_event(s->tep, (int)ev->config);
		for (size_t r = 0; ev->tp && r < s->nr_refused; r++) {
			if (s->refused[r] == ev->tp)
				ev->tp = NULL;
		}
		if (!ev->tp)
			continue;
		if (!ev->guard)
			ev->guard = pp_fmt_guard__new(ev->tp);
		if (!ev->plan)
			ev->plan = pp_print_plan__compile(s->tep, ev->tp);
	}
}

static int meta_attrs(struct pp_session *s, const uint8_t *data, size_t len)
{
	struct pp_item_iter it;
	struct pp_item item;

	pp_item_iter__init(&it, data, len);
	while (pp_item_iter__next(&it, &item)) {
		struct pp_cur c;
		uint32_t attr_size, nr_ids;
		const uint8_t *attr, *idp;
		const char *name;
		uint64_t ids[256];

		pp_cur__init(&c, item.body, item.size);
		if (pp_cur__u32(&c, &attr_size) || pp_cur__u32(&c, &nr_ids) ||
		    pp_cur__bytes(&c, &attr, attr_size) || pp_cur__align(&c, 8) ||
		    nr_ids > 256 || pp_cur__bytes(&c, &idp, (size_t)nr_ids * 8) ||
		    pp_cur__str(&c, &name) || attr_size < PERF_ATTR_SIZE_VER0) {
			pp_session__warn(s, "malformed ATTRS item skipped");
			continue;
		}
		for (uint32_t i = 0; i < nr_ids; i++)
			ids[i] = pp_get_le64(idp + 8 * i);
		if (pp_session__add_evsel(s, (const struct perf_event_attr *)attr, attr_size, name,
					  ids, nr_ids))
			pp_session__warn(s, "too many events, '%s' ignored", name);
	}
	if (it.bad)
		pp_session__warn(s, "malformed ATTRS chunk");
	return 0;
}

/* A format pp refuses: one warning that names the event (a few, then a count). */
static void refuse_format(struct pp_session *s, const char *sys, const char *name,
			  const char *why)
{
	if (++s->fmt_warned <= 16)
		pp_session__warn(s, "%s:%s: format refused, its records are not decoded: %s", sys,
				 name, why);
	else if (s->fmt_warned == 17)
		pp_session__warn(s, "more formats refused (not listed)");
}

/*
 * An event format from the file reaches libtraceevent only within the bounds
 * of pp_fmt_check_text(), and its parsed fields must fit a record (spec/pp-analyze.md,
 * "Formats and BTF from the file are untrusted").
 */
static void parse_event_format(struct pp_session *s, const char *sys, const char *name,
			       const char *text)
{
	struct tep_event *ev = NULL;
	size_t len = strlen(text);
	char why[160];

	if (pp_fmt_check_text(text, len, why, sizeof(why))) {
		refuse_format(s, sys, name, why);
		return;
	}
	if (tep_parse_format(s->tep, &ev, text, len, sys) && !ev) {
		pp_session__warn(s, "cannot parse the format of %s:%s", sys, name);
		return;
	}
	if (ev && pp_fmt_check_fields(ev, why, sizeof(why))) {
		struct tep_event **v = realloc(s->refused, (s->nr_refused + 1) * sizeof(*v));

		if (v) {
			s->refused = v;
			s->refused[s->nr_refused++] = ev;
		}
		refuse_format(s, sys, name, why);
	}
}

static int meta_formats(struct pp_session *s, const uint8_t *data, size_t len)
{
	struct pp_item_iter it;
	struct pp_item item;

	pp_item_iter__init(&it, data, len);
	while (pp_item_iter__next(&it, &item)) {
		struct pp_cur c;
		const char *sys, *name, *text;

		pp_cur__init(&c, item.body, item.size);
		if (pp_cur__str(&c, &sys) || pp_cur__str(&c, &name) || pp_cur__str(&c, &text))
			continue;
		switch (item.kind) {
		case PP_FMT_HEADER_PAGE: {
			char why[160];

			/* the same bounds as an event's text before libtraceevent reads it */
			if (pp_fmt_check_text(text, strlen(text), why, sizeof(why))) {
				pp_session__warn(s, "header_page refused: %s", why);
				break;
			}
			if (tep_parse_header_page(s->tep, (char *)text, strlen(text),
						  tep_get_long_size(s->tep)) == 0)
				s->header_page_ok = 1;
			break;
		}
		case PP_FMT_EVENT:
			if (tep_find_event_by_name(s->tep, sys, name))
				break;
			parse_event_format(s, sys, name, text);
			break;
		case PP_FMT_PRINTK: {
			size_t dropped;
			char *clean = pp_fmt_printk_clean(text, &dropped);

			if (dropped)
				pp_session__warn(s, "printk_formats: %zu malformed lines ignored",
						 dropped);
			if (clean)
				tep_parse_printk_formats(s->tep, clean);
			free(clean);
			break;
		}
		case PP_FMT_BTF: {
			char err[256];

			if (pp_btf_fmts__add_item(&s->btf_fmts, &item, err, sizeof(err)))
				pp_session__warn(s, "%s:%s: %s", sys, name, err);
			break;
		}
		default:
			break;
		}
	}
	pp_session__link_formats(s);
	return 0;
}

/*
 * MACHINE's number @key when in [@lo, @hi]. The file's claims size
 * nothing here without a bound: an out-of-range value is ignored, with a
 * warning.
 */
static int machine_num(struct pp_session *s, const char *key, long long lo, long long hi,
		       long long *out)
{
	const char *v = pp_session__machine(s, key);
	char *end;
	long long n;

	if (!v)
		return 0;
	errno = 0;
	n = strtoll(v, &end, 10);
	if (errno || end == v || n < lo || n > hi) {
		pp_session__warn(s, "MACHINE: %s=%.32s is not plausible (%lld to %lld): ignored",
				 key, v, lo, hi);
		return 0;
	}
	*out = n;
	return 1;
}

static void meta_machine(struct pp_session *s, const uint8_t *data, size_t len)
{
	const char *v;
	long long n;
	uint8_t *copy = malloc(len + 1);

	if (!copy)
		return;
	memcpy(copy, data, len);
	copy[len] = '\0';
	free(s->machine);
	s->machine = copy;
	s->machine_len = len;
	v = pp_session__machine(s, "start_realtime_ns");
	if (v) {
		const char *m = pp_session__machine(s, "start_monotonic_ns");

		if (m) {
			s->start_real = strtoull(v, NULL, 10);
			s->start_mono = strtoull(m, NULL, 10);
			s->have_clock = 1;
		}
	}
	if (machine_num(s, "page_size", 512, 1ll << 30, &n) && !(n & (n - 1)))
		tep_set_page_size(s->tep, (int)n);
	if (machine_num(s, "nr_cpus", 1, PP_MAX_STREAMS, &n)) {
		tep_set_cpus(s->tep, (int)n);
		s->nr_cpus = (uint32_t)n;
	}
	if (!s->nr_pids && !s->nr_tids) {
		machine_targets(s, "target_pids", 0);
		machine_targets(s, "target_tids", 1);
	}
}

static void meta_tasks(struct pp_session *s, const uint8_t *data, size_t len)
{
	struct pp_item_iter it;
	struct pp_item item;

	pp_item_iter__init(&it, data, len);
	while (pp_item_iter__next(&it, &item)) {
		char comm[17];

		if (item.size < sizeof(struct pp_task_item))
			continue;
		memcpy(comm, item.body + 16, 16);
		comm[16] = '\0';
		pp_session__set_comm(s, pp_get_le32(item.body), pp_get_le32(item.body + 4), comm);
	}
}

static void meta_mmaps(struct pp_session *s, const uint8_t *data, size_t len)
{
	struct pp_item_iter it;
	struct pp_item item;

	pp_item_iter__init(&it, data, len);
	while (pp_item_iter__next(&it, &item)) {
		struct pp_cur c;
		const uint8_t *bid;
		const char *fn;
		uint8_t bsz;

		pp_cur__init(&c, item.body, item.size);
		c.off = 32;
		if (item.size < 56 || pp_cur__u8(&c, &bsz) || pp_cur__align(&c, 4) ||
		    pp_cur__bytes(&c, &bid, 20) || pp_cur__str(&c, &fn))
			continue;
		pp_symtab__add_mmap(s->syms, pp_get_le32(item.body), pp_get_le64(item.body + 8),
				    pp_get_le64(item.body + 16), pp_get_le64(item.body + 24),
				    bid, bsz > 20 ? 20 : bsz, fn);
	}
}

/* --time: is a record or window at @first..@last outside it? */
static inline int window_out(const struct pp_session *s, uint64_t first, uint64_t last)
{
	return s->win && (last < s->win_start || first > s->win_end);
}

/*
 * Every lost window reaches the module through here: never before its
 * init (its private data does not exist yet). Those met while the file is
 * opened are held, a bounded number, and delivered right after init.
 */
static void deliver_lost(struct pp_session *s, const struct pp_lost *l)
{
	struct pp_lost *last;

	if (window_out(s, l->first_ts, l->last_ts))
		return;
	if (s->running) {
		s->a.lost(s, l);
		return;
	}
	if (s->nr_early_lost < PP_EARLY_LOST_MAX) {
		s->early_lost[s->nr_early_lost++] = *l;
		return;
	}
	last = &s->early_lost[PP_EARLY_LOST_MAX - 1];
	last->count += l->count;
	last->bytes += l->bytes;
	if (l->first_ts < last->first_ts)
		last->first_ts = l->first_ts;
	if (l->last_ts > last->last_ts)
		last->last_ts = l->last_ts;
}

static void meta_lost(struct pp_session *s, const uint8_t *data, size_t len)
{
	struct pp_item_iter it;
	struct pp_item item;

	pp_item_iter__init(&it, data, len);
	while (pp_item_iter__next(&it, &item)) {
		struct pp_lost l;

		if (item.size < sizeof(struct pp_lost_item))
			continue;
		memset(&l, 0, sizeof(l));
		l.cpu = pp_get_le32(item.body);
		l.first_ts = pp_get_le64(item.body + 8);
		l.last_ts = pp_get_le64(item.body + 16);
		l.count = pp_get_le64(item.body + 24);
		l.bytes = pp_get_le64(item.body + 32);
		l.source = 2;
		s->stats.lost_recorder += l.count;
		s->stats.lost_windows++;
		deliver_lost(s, &l);
	}
}

static void meta_symbols(struct pp_session *s, uint16_t type, const uint8_t *data, size_t len)
{
	struct pp_item_iter it;
	struct pp_item item;

	pp_item_iter__init(&it, data, len);
	while (pp_item_iter__next(&it, &item)) {
		if (type == PP_CHUNK_KSYMS)
			pp_symtab__add_ksyms(s->syms, item.body, item.size);
		else
			pp_symtab__add_usyms(s->syms, item.body, item.size);
	}
}

/**
 * pp_session__meta_chunk() - process one metadata chunk.
 * @s: session; @type: chunk type; @data, @len: raw payload; @stream: its stream.
 * Return: 0 or -errno.
 */
int pp_session__meta_chunk(struct pp_session *s, uint16_t type, const uint8_t *data, size_t len,
			   uint32_t stream)
{
	s->stats.meta_chunks++;
	switch (type) {
	case PP_CHUNK_MACHINE:
		meta_machine(s, data, len);
		break;
	case PP_CHUNK_ATTRS:
		meta_attrs(s, data, len);
		pp_session__link_formats(s);
		break;
	case PP_CHUNK_FORMATS:
		meta_formats(s, data, len);
		break;
	case PP_CHUNK_TASKS:
		meta_tasks(s, data, len);
		break;
	case PP_CHUNK_MMAPS:
		if (!s->a.no_symbols)
			meta_mmaps(s, data, len);
		break;
	case PP_CHUNK_KSYMS:
	case PP_CHUNK_USYMS:
		if (!s->a.no_symbols)
			meta_symbols(s, type, data, len);
		break;
	case PP_CHUNK_LOST:
		meta_lost(s, data, len);
		break;
	case PP_CHUNK_BPF_AGG:
		s->stats.meta_chunks--;		/* data, of the module's aggregator */
		if (pp_bpfagg__payload(s, data, len))
			pp_session__warn(s, "out of memory: BPF aggregate items dropped");
		break;
	default:
		s->stats.meta_chunks--;
		break;
	}
	return pp_session__mem_check(s);
}

/**
 * pp_session__record_ts() - time of a record, from its event's sample_type.
 * @s: session; @rec, @size: the record; @ts: receives the time.
 * Return: 0, -ENOENT (unknown id or no time), -EINVAL (short).
 */
int pp_session__record_ts(const struct pp_session *s, const uint8_t *rec, size_t size, uint64_t *ts)
{
	const struct pp_evsel *ev = pp_session__evsel_by_id(s, pp_sample__id(rec, size));

	if (!ev)
		return -ENOENT;
	return pp_sample__time(ev->sample_type, rec, size, ts);
}

/* ---- dispatch ---- */

static int pass_cpu(const struct pp_session *s, uint32_t cpu)
{
	return !s->cpu_filter || (cpu < 1024 && (s->cpu_mask[cpu / 64] & (1ull << (cpu % 64))));
}

/*
 * -p/-t on the sample's pid and tid; without them the targets a widened
 * recording or live run follows (and their descendants).
 */
static int pass_tasks(const struct pp_session *s, uint32_t pid, uint32_t tid)
{
	if (!s->nr_pids && !s->nr_tids)
		return !s->targets || target_has(s, pid, tid);
	if (s->nr_pids) {
		int ok = 0;

		for (int i = 0; i < s->nr_pids; i++)
			ok |= s->pids[i] == pid;
		if (!ok)
			return 0;
	}
	if (s->nr_tids) {
		int ok = 0;

		for (int i = 0; i < s->nr_tids; i++)
			ok |= s->tids[i] == tid;
		if (!ok)
			return 0;
	}
	return 1;
}

/**
 * pp_session__pass_tasks() - does the task @pid/@tid pass -p/-t (or the
 * targets)? For what is not a sample, such as a BPF aggregate.
 * @s: session; @pid, @tid: the task. Return: 1 or 0.
 */
int pp_session__pass_tasks(const struct pp_session *s, uint32_t pid, uint32_t tid)
{
	return pass_tasks(s, pid, tid);
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/**
 * pp_session__tick() - call the interval callback for every -i boundary
 * passed by time @ts (event time, or the clock in live mode).
 * @s: session; @ts: perf-clock ns.
 */
void pp_session__tick(struct pp_session *s, uint64_t ts)
{
	uint64_t iv = s->opts.interval_ns;

	if (!iv)
		return;
	if (!s->next_tick) {
		s->next_tick = sat_add(ts, iv);
		return;
	}
	/*
	 * Times come from the file: near UINT64_MAX the next tick would wrap and
	 * every event would tick forever. A tick that cannot be represented is
	 * the last one (UINT64_MAX: no more).
	 */
	while (ts >= s->next_tick && s->next_tick != UINT64_MAX && !s->stop) {
		uint64_t gap;

		s->a.interval(s, s->next_tick);
		s->tick_pending = 0;
		gap = ts - s->next_tick;
		/* A long gap: skip empty intervals after the first one. */
		if (iv <= UINT64_MAX / 100 && gap > 100 * iv)
			s->next_tick = sat_add(s->next_tick, gap / iv * iv);
		else
			s->next_tick = sat_add(s->next_tick, iv);
	}
	s->tick_pending = 1;
}

static void dispatch_sample(struct pp_session *s, struct pp_evsel *ev, const uint8_t *rec, uint16_t size)
{
	const struct pp_sample_layout *f = &s->fast[ev->idx];
	struct pp_event e;
	int to_host, to_src;

	if (f->ok) {
		if (fast_parse(f, rec, size, &e)) {
			s->stats.bad_records++;
			return;
		}
	} else {
		struct pp_sample smp;
		struct pp_sample_fmt fmt = { .sample_type = ev->sample_type,
					     .read_format = ev->read_format,
					     .sample_regs_user = ev->sample_regs_user };

		if (pp_sample__parse_fmt(&fmt, rec, size, &smp)) {
			s->stats.bad_records++;
			return;
		}
		e.time = smp.time;
		e.pid = smp.pid;
		e.tid = smp.tid;
		e.cpu = smp.cpu;
		e.ip = smp.ip;
		e.period = smp.period;
		e.raw = smp.raw;
		e.raw_size = smp.raw_size;
		e.callchain = smp.callchain;
		e.nr_callchain = (uint32_t)smp.nr_callchain;
		e.addr = smp.addr;
		e.regs = smp.user_regs;
		e.regs_mask = smp.user_regs ? ev->sample_regs_user : 0;
		e.user_stack = smp.user_stack;
		e.user_stack_size = smp.user_stack ? smp.user_stack_dyn_size : 0;
		e.weight = smp.weight;
		e.data_src = smp.data_src;
		if (e.user_stack_size > smp.user_stack_size)
			e.user_stack_size = smp.user_stack_size;
	}
	/* a CPU the machine has not: a lie that would size per-CPU tables */
	if (s->nr_cpus && e.cpu >= s->nr_cpus && (ev->sample_type & PERF_SAMPLE_CPU)) {
		s->stats.bad_cpu++;
		return;
	}
	if (e.pid == PP_FTPAGE_PID_UNKNOWN) {	/* made of an ftrace event: its process */
		const struct pp_task *t = task_slot(s, e.tid);

		e.pid = t && t->tid ? t->pid : e.tid;
	}
	if (e.nr_callchain) {	/* junk frames of a frame-pointer walk: cut, for every output */
		int junk;
		uint32_t keep = pp_symtab__cut_chain(s->syms, e.pid, e.callchain, e.nr_callchain, &junk);

		if (junk) {
			s->stats.cut_stacks++;
			s->stats.cut_frames += e.nr_callchain - keep;
		}
		e.nr_callchain = keep;
	}
	if (!pass_cpu(s, e.cpu))
		return;
	/*
	 * A .needs_system_wide module keeps its targets' events itself (a
	 * switch to a target runs in another task's context): its events skip
	 * the task filter; the others pass it.
	 */
	to_host = ev->spec || !s->nr_specs || s->mod_req[ev->idx];
	to_src = ev->src != NULL;
	if (!pass_tasks(s, e.pid, e.tid)) {
		to_host = to_host && s->a.needs_system_wide;
		to_src = to_src && ((struct pp_src *)ev->src)->a->needs_system_wide;
	}
	if (!to_host && !to_src)
		return;
	if (s->opts.interval_ns)
		pp_session__tick(s, e.time);
	/* A thread first seen here is named after its process, as documented. */
	if (e.tid != e.pid) {
		struct pp_task *t = task_slot(s, e.tid);

		if (!t || !t->tid) {
			struct pp_task *pt = task_slot(s, e.pid);

			if (pt && pt->tid)
				pp_session__set_comm(s, e.pid, e.tid, pt->comm);
		}
	}
	e.evsel = ev;
	e.record = rec;
	ev->nr_samples++;
	s->stats.samples++;
	if (to_src) {
		struct pp_src *src = ev->src;
		struct pp_src_event se;
		int more;

		do {	/* one event may end two intervals (task-state) */
			se.source = src->a->name;
			se.entry = src->entry;
			se.start = 0;
			se.addr = 0;
			se.text[0] = '\0';
			more = src->a->src_sample(s, src->state, &e, &se);
			if (more > 0)
				s->a.source_event(s, &se);
		} while (more > 1);
	}
	if (to_host)
		s->a.sample(s, &e);
	if (s->opts.max_events && ++s->delivered >= s->opts.max_events)
		s->stop = 1;
}

static size_t bounded_strlen(const uint8_t *p, size_t max)
{
	const uint8_t *z = memchr(p, 0, max);

	return z ? (size_t)(z - p) : max;
}

static void dispatch_ev(struct pp_session *s, uint32_t stream, const uint8_t *rec, uint16_t size,
			struct pp_evsel *ev);

/**
 * pp_session__dispatch() - decode one perf record and call the analyzer.
 * @s: session; @stream: CPU stream; @rec: the record; @size: its size.
 */
void pp_session__dispatch(struct pp_session *s, uint32_t stream, const uint8_t *rec, uint16_t size)
{
	dispatch_ev(s, stream, rec, size, pp_session__evsel_by_id(s, pp_sample__id(rec, size)));
}

static void dispatch_ev(struct pp_session *s, uint32_t stream, const uint8_t *rec, uint16_t size,
			struct pp_evsel *ev)
{
	struct perf_event_header hdr, *h = &hdr;
	struct pp_sample id;
	uint64_t idsz;

	if (!(++s->stats.records & (PP_MEM_CHECK_RECORDS - 1)))
		pp_session__mem_check(s);
	if (!ev) {
		s->stats.unknown_id++;
		return;
	}
	memcpy(&hdr, rec, sizeof(hdr));	/* records of a file need not be aligned */
	if (h->type == PERF_RECORD_SAMPLE) {
		dispatch_sample(s, ev, rec, size);
		return;
	}
	if (pp_sample_id__parse(ev->sample_type, rec, size, &id)) {
		s->stats.bad_records++;
		return;
	}
	idsz = pp_sample_id__size(ev->sample_type);
	if (size < 8 + idsz) {
		s->stats.bad_records++;
		return;
	}
	size -= (uint16_t)idsz;	/* body bytes end here */
	switch (h->type) {
	case PERF_RECORD_COMM: {
		struct pp_task_event t = { .time = id.time, .cpu = id.cpu };
		char comm[17];
		size_t n;

		if (size < 16)
			break;
		t.pid = pp_sample_rd32(rec + 8);
		t.tid = pp_sample_rd32(rec + 12);
		n = bounded_strlen(rec + 16, size - 16);
		if (n > 16)
			n = 16;
		memcpy(comm, rec + 16, n);
		comm[n] = '\0';
		t.comm = comm;
		t.exec = !!(h->misc & PERF_RECORD_MISC_COMM_EXEC);
		pp_session__set_comm(s, t.pid, t.tid, comm);
		s->a.comm(s, &t);
		break;
	}
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT: {
		struct pp_task_event t = { .cpu = id.cpu };

		if (size < 32)
			break;
		t.pid = pp_sample_rd32(rec + 8);
		t.ppid = pp_sample_rd32(rec + 12);
		t.tid = pp_sample_rd32(rec + 16);
		t.ptid = pp_sample_rd32(rec + 20);
		t.time = pp_sample_rd64(rec + 24);
		if (h->type == PERF_RECORD_FORK) {
			struct pp_task *pt = task_slot(s, t.ptid);

			if (pt && pt->tid)
				pp_session__set_comm(s, t.pid, t.tid, pt->comm);
			if (t.pid == t.tid && !s->a.no_symbols)
				pp_symtab__fork(s->syms, t.ppid, t.pid);
			/* What a target process forks is a target too. */
			if (s->targets && t.pid != t.ppid && idset_has(&s->tgt_procs, t.ppid))
				pp_session__add_target(s, t.pid, 0);
			s->a.fork(s, &t);
		} else {
			s->a.exit(s, &t);
		}
		break;
	}
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		struct pp_mmap_event m = { .time = id.time };
		size_t fn_off = h->type == PERF_RECORD_MMAP ? 32 : 72;
		char fn[4096];
		size_t n;

		if (size <= fn_off)
			break;
		m.pid = pp_sample_rd32(rec + 8);
		m.tid = pp_sample_rd32(rec + 12);
		m.start = pp_sample_rd64(rec + 16);
		m.len = pp_sample_rd64(rec + 24);
		m.pgoff = pp_sample_rd64(rec + 32);
		if (h->type == PERF_RECORD_MMAP2) {
			m.prot = pp_sample_rd32(rec + 64);
			if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
				m.build_id_size = rec[40] > 20 ? 20 : rec[40];
				m.build_id = rec + 44;
			}
		} else {
			fn_off = 40;
			if (size <= fn_off)
				break;
		}
		n = bounded_strlen(rec + fn_off, size - fn_off);
		if (n >= sizeof(fn))
			n = sizeof(fn) - 1;
		memcpy(fn, rec + fn_off, n);
		fn[n] = '\0';
		m.filename = fn;
		if (!(h->misc & PERF_RECORD_MISC_CPUMODE_MASK & PERF_RECORD_MISC_KERNEL) &&
		    !s->a.no_symbols)
			pp_symtab__add_mmap(s->syms, m.pid, m.start, m.len, m.pgoff, m.build_id,
					    m.build_id_size, fn);
		s->a.mmap(s, &m);
		break;
	}
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES: {
		struct pp_lost l = { .cpu = id.cpu, .first_ts = id.time, .last_ts = id.time };

		if (size < (h->type == PERF_RECORD_LOST ? 24 : 16))
			break;
		l.count = pp_sample_rd64(rec + (h->type == PERF_RECORD_LOST ? 16 : 8));
		if (l.count > PP_FTPAGE_MAX_DROPPED) {	/* no ring drops that many: damage */
			s->stats.bad_lost++;
			break;
		}
		if (h->type == PERF_RECORD_LOST) {
			s->stats.lost_records += l.count;
		} else {
			l.source = 1;
			s->stats.lost_samples += l.count;
		}
		(void)stream;
		ev->nr_lost += l.count;
		s->stats.lost_windows++;
		deliver_lost(s, &l);
		break;
	}
	default:
		break;
	}
}

/* ---- the file source ---- */

/*
 * A chunk may be read more than once (metadata pass, then its stream): its
 * damage is reported once. Messages are remembered by hash.
 */
static int warned_before(struct pp_session *s, const char *msg)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (*msg)
		h = (h ^ (uint8_t)*msg++) * 0x100000001b3ull;
	h |= 1;
	for (size_t i = 0; i < s->nr_warned; i++) {
		if (s->warned[i] == h)
			return 1;
	}
	if (s->nr_warned < sizeof(s->warned) / sizeof(s->warned[0]))
		s->warned[s->nr_warned++] = h;
	return 0;
}

static void reader_print(int level, const char *msg, void *ctx)
{
	struct pp_session *s = ctx;

	if (level == 0 && warned_before(s, msg))
		return;
	if (level == 0) {
		s->reader_warnings++;
		/*
		 * A torn last chunk is how a killed recorder's file ends: said
		 * in one line with where it ends (warn_unclosed()), at the end.
		 */
		if (!strncmp(msg, "file truncated", 14) && !s->torn[0]) {
			snprintf(s->torn, sizeof(s->torn), "%s", msg);
			return;
		}
		pp_session__warn(s, "%s", msg);
	}
	else if (s->opts.verbose >= level)
		fprintf(stderr, "pp-analyze: %s\n", msg);
}

static int add_entry(struct pp_session *s, size_t *cap, const struct pp_chunk_header *h, uint64_t off)
{
	struct pp_entry *e;

	if (h->type == PP_CHUNK_INDEX || h->type == PP_CHUNK_FOOTER)
		return 0;
	if (s->nr_entries == *cap) {
		size_t ncap = *cap ? *cap * 2 : 1024;
		struct pp_entry *n = realloc(s->entries, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		s->entries = n;
		*cap = ncap;
	}
	e = &s->entries[s->nr_entries++];
	e->offset = off;
	e->first_ts = h->first_ts;
	e->last_ts = h->last_ts;
	e->stream = h->stream;
	e->type = h->type;
	e->next = -1;
	return 0;
}

/*
 * The stream @id, added when new; @slots (2 x PP_MAX_STREAMS, zeroed) maps
 * ids to stream index + 1, so a file of many streams and chunks costs O(1)
 * a chunk, not a scan of the streams. NULL past PP_MAX_STREAMS or on ENOMEM.
 */
static struct pp_stream *stream_get(struct pp_session *s, uint32_t id, int32_t *slots)
{
	size_t mask = 2 * PP_MAX_STREAMS - 1, i;

	for (i = (id * 2654435761u) & mask; slots[i]; i = (i + 1) & mask) {
		if (s->streams[slots[i] - 1].id == id)
			return &s->streams[slots[i] - 1];
	}
	if (s->nr_streams >= PP_MAX_STREAMS)
		return NULL;
	if (!(s->nr_streams & (s->nr_streams + 1)) || !s->streams) {
		struct pp_stream *n = realloc(s->streams, (s->nr_streams * 2 + 2) * sizeof(*n));

		if (!n)
			return NULL;
		s->streams = n;
	}
	memset(&s->streams[s->nr_streams], 0, sizeof(s->streams[0]));
	s->streams[s->nr_streams].id = id;
	s->streams[s->nr_streams].next_entry = -1;
	slots[i] = (int32_t)s->nr_streams + 1;
	return &s->streams[s->nr_streams++];
}

/*
 * Process metadata chunks that lie before file offset @off. BPF_AGG chunks
 * are the data of a module with .bpf_agg: before it is inited (the file is
 * being opened) the walk stops at the first one, to go on from there in
 * the run.
 */
static void meta_until(struct pp_session *s, uint64_t off)
{
	while (s->meta_next < s->nr_entries && s->entries[s->meta_next].offset < off) {
		const struct pp_entry *e = &s->entries[s->meta_next];
		struct pp_chunk c;

		if (e->type == PP_CHUNK_BPF_AGG && s->a.bpf_agg && !s->running)
			return;
		s->meta_next++;

		if (e->type == PP_CHUNK_DATA || e->type == PP_CHUNK_KSYMS ||
		    e->type == PP_CHUNK_USYMS)
			continue;
		if (pp_reader__read_at(s->reader, e->offset, &c) == 1)
			pp_session__meta_chunk(s, c.hdr->type, c.data, c.size, c.hdr->stream);
	}
}

/*
 * Build the chunk list: from the index of a cleanly closed file, else by
 * scanning (a killed recorder's file), then chain each stream's DATA chunks.
 */
static int build_entries(struct pp_session *s)
{
	const struct pp_index_entry *idx = NULL;
	size_t nr = 0, cap = 0, dropped = 0;
	int32_t *tail, *slots;

	if (pp_reader__footer(s->reader))
		idx = pp_reader__index(s->reader, &nr);
	if (idx) {
		for (size_t i = 0; i < nr; i++) {
			struct pp_chunk_header h = {
				.type = idx[i].type, .stream = idx[i].stream,
				.first_ts = idx[i].first_ts, .last_ts = idx[i].last_ts,
			};

			if (add_entry(s, &cap, &h, idx[i].offset))
				return -ENOMEM;
		}
	} else {
		struct pp_chunk c;
		int ret;

		while ((ret = pp_reader__next(s->reader, &c)) == 1) {
			s->scan_last_seq = c.hdr->seq;
			if (add_entry(s, &cap, c.hdr, c.offset))
				return -ENOMEM;
		}
		if (ret == -EPROTO)
			pp_session__warn(s, "unknown critical chunk: stopping there");
		else if (ret < 0)
			pp_session__warn(s, "read error: %s", strerror(-ret));
	}
	/* Chain the DATA chunks of each stream, in file order. */
	tail = malloc(sizeof(*tail) * PP_MAX_STREAMS);
	slots = calloc(2 * PP_MAX_STREAMS, sizeof(*slots));
	if (!tail || !slots) {
		free(tail);
		free(slots);
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->nr_entries; i++) {
		struct pp_entry *e = &s->entries[i];
		struct pp_stream *st;
		size_t si;

		if (e->type != PP_CHUNK_DATA)
			continue;
		st = stream_get(s, e->stream, slots);
		if (!st && s->nr_streams < PP_MAX_STREAMS) {
			free(tail);
			free(slots);
			return -ENOMEM;
		}
		if (!st) {
			dropped++;
			continue;
		}
		si = (size_t)(st - s->streams);
		if (st->next_entry < 0)
			st->next_entry = (int32_t)i;
		else
			s->entries[tail[si]].next = (int32_t)i;
		tail[si] = (int32_t)i;
	}
	free(tail);
	free(slots);
	if (dropped)
		pp_session__warn(s, "more than %d streams: %zu DATA chunks of the others ignored",
				 PP_MAX_STREAMS, dropped);
	return 0;
}

/*
 * The data sizes @tp's format allows an event: from the end of its fixed
 * fields to that rounded up to 8 (the kernel's struct, as its ring rounds
 * it), unbounded above when a field's size is dynamic.
 */
static void format_sizes(const struct tep_event *tp, uint32_t *min, uint32_t *max)
{
	const struct tep_format_field *lists[2] = { tp->format.common_fields, tp->format.fields };
	uint32_t end = 0;
	int dyn = 0;

	for (int i = 0; i < 2; i++) {
		for (const struct tep_format_field *f = lists[i]; f; f = f->next) {
			if (f->offset >= 0 && f->size >= 0 &&
			    (uint32_t)f->offset + (uint32_t)f->size > end)
				end = (uint32_t)f->offset + (uint32_t)f->size;
			if (f->flags & (TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_RELATIVE) || !f->size)
				dyn = 1;
		}
	}
	*min = end;
	*max = dyn || end > UINT32_MAX - 8 ? 0 : (end + 7) & ~7u;
}

/**
 * pp_session__check_claim() - hold what a DATA chunk says about an event
 * against ATTRS and FORMATS (struct pp_data_claim, pp_reader_opts.check).
 * @ctx: the session; @c: the claim, whose size bounds an encoding 3 entry
 * gets from its event's format.
 *
 * An encoding 3 type must be a recorded tracepoint's, of the sample_type
 * the event was opened with and of the type its format gives; a layout's
 * time offset must be 0 or where the event's sample_type puts the time
 * (perf_event_open(2): after the identifier, IP and TID; read_format only
 * shapes what follows it).
 * Return: 0 if the claim holds or cannot be told (an id not in ATTRS for a
 * layout), 1 if it is a lie.
 */
int pp_session__check_claim(void *ctx, struct pp_data_claim *c)
{
	struct pp_session *s = ctx;
	struct pp_evsel *ev = pp_session__evsel_by_id(s, c->id);
	uint64_t st;
	uint32_t want;

	if (c->encoding == PP_DATA_FTRACE) {
		if (!ev || ev->type != PERF_TYPE_TRACEPOINT || ev->sample_type != c->sample_type)
			return 1;
		if (ev->tp) {
			if (ev->tp->id != (int)c->ftype)
				return 1;
			format_sizes(ev->tp, &c->min_size, &c->max_size);
		}
		return 0;
	}
	if (!ev || !c->time_off)
		return 0;
	st = ev->sample_type;
	if (!(st & PERF_SAMPLE_TIME))
		return 1;
	want = 8 + 8 * !!(st & PERF_SAMPLE_IDENTIFIER) + 8 * !!(st & PERF_SAMPLE_IP) +
	       8 * !!(st & PERF_SAMPLE_TID);
	return c->time_off != want;
}

/**
 * pp_session__lie() - the @i-th check of spec/pp-trace-format.md 5.8 the
 * replay makes: its name (a key of info --json and the words of the
 * warnings) and how many chunks or records it caught, @rs's skipped chunks
 * or the session's skipped records.
 * Return: 0, or -1 past the last check.
 */
int pp_session__lie(const struct pp_session *s, const struct pp_reader_stats *rs, size_t i,
		    const char **name, const char **key, uint64_t *n)
{
	const struct { const char *key, *name; uint64_t n; } lies[] = {
		{ "bad_pages", "ftrace chunks with a page walking backwards or past its commit",
		  rs ? rs->bad_pages : 0 },
		{ "bad_types", "ftrace chunks naming the wrong event type", rs ? rs->bad_types : 0 },
		{ "bad_machine", "ftrace chunks of another byte order or word size",
		  rs ? rs->bad_machine : 0 },
		{ "bad_stream", "ftrace chunks of another CPU than their stream",
		  rs ? rs->bad_stream : 0 },
		{ "bad_dropped", "ftrace chunks with an impossible drop count",
		  rs ? rs->bad_dropped : 0 },
		{ "bad_layout", "data chunks whose layout misplaces the time", rs ? rs->bad_layout : 0 },
		{ "bad_cpu", "samples on CPUs the machine has not", s->stats.bad_cpu },
		{ "bad_lost", "impossible kernel drop counts", s->stats.bad_lost },
	};

	if (i >= sizeof(lies) / sizeof(lies[0]))
		return -1;
	*name = lies[i].name;
	*key = lies[i].key;
	*n = lies[i].n;
	return 0;
}

/**
 * pp_session__lies() - the lies the checks of spec/pp-trace-format.md 5.8
 * caught, each by its name (pp_session__lie()).
 * @buf: receives "N name, ..." (@len bytes; NULL to count only).
 * Return: how many in all (0: none).
 */
uint64_t pp_session__lies(const struct pp_session *s, const struct pp_reader_stats *rs, char *buf,
			  size_t len)
{
	const char *name, *key;
	uint64_t total = 0, n;
	size_t pos = 0;

	if (buf && len)
		buf[0] = 0;
	for (size_t i = 0; !pp_session__lie(s, rs, i, &name, &key, &n); i++) {
		if (!n)
			continue;
		total += n;
		if (buf && pos < len) {
			int w = snprintf(buf + pos, len - pos, "%s%llu %s", pos ? ", " : "",
					 (unsigned long long)n, name);

			if (w > 0)
				pos += (size_t)w;
		}
	}
	return total;
}

/**
 * pp_session__open_file() - use the trace at @path as the source.
 * @s: session; @path: trace file.
 *
 * Builds the chunk list and processes the metadata in file order up to the
 * first DATA chunk; symbol chunks (appended as the recorder discovers them,
 * so after the data that needs them) are loaded up front.
 * Return: 0 or -errno (a message is printed).
 */
static const struct pp_source_ops file_source;

int pp_session__open_file(struct pp_session *s, const char *path)
{
	struct pp_reader_opts ro = { .print = reader_print, .print_ctx = s,
				     .check = pp_session__check_claim, .check_ctx = s };
	uint64_t first_data = UINT64_MAX;
	int ret;

	s->reader = pp_reader__open_path(path, &ro);
	if (!s->reader) {
		ret = -errno;
		fprintf(stderr, "pp-analyze: %s: %s\n", path, pp_reader__strerror(errno));
		return ret;
	}
	if (pp_reader__header(s->reader)->word_size == 4)
		tep_set_long_size(s->tep, 4);
	else
		tep_set_long_size(s->tep, 8);
	tep_set_file_bigendian(s->tep, pp_reader__header(s->reader)->byte_order == PP_ORDER_BIG ?
			       TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(s->tep, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ?
				TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	ret = build_entries(s);
	if (ret) {
		fprintf(stderr, "pp-analyze: %s: %s\n", path, strerror(-ret));
		return ret;
	}
	for (size_t i = 0; i < s->nr_entries; i++) {
		const struct pp_entry *e = &s->entries[i];
		struct pp_chunk c;

		if (e->type == PP_CHUNK_DATA && first_data == UINT64_MAX)
			first_data = e->offset;
		if (e->type != PP_CHUNK_KSYMS && e->type != PP_CHUNK_USYMS)
			continue;
		if (s->a.no_symbols)
			continue;
		if (pp_reader__read_at(s->reader, e->offset, &c) == 1)
			pp_session__meta_chunk(s, e->type, c.data, c.size, e->stream);
	}
	meta_until(s, first_data);
	s->path = path;
	if (!s->nr_evsels)
		pp_session__warn(s, "%s: no event descriptions (ATTRS) before the data", path);
	s->src = &file_source;
	return 0;
}

/*
 * --time: a record before the window is not delivered, but what it says
 * about tasks (COMM, FORK, EXIT, MMAP) still names and symbolizes the
 * window's samples: the session takes it in, with the module's callbacks
 * muted.
 */
static void window_sideband(struct pp_session *s, uint32_t stream, const uint8_t *rec,
			    uint16_t size, struct pp_evsel *ev)
{
	struct pp_analyzer a = s->a;
	uint64_t records = s->stats.records;
	uint32_t type;

	memcpy(&type, rec, sizeof(type));
	if (type != PERF_RECORD_COMM && type != PERF_RECORD_FORK && type != PERF_RECORD_EXIT &&
	    type != PERF_RECORD_MMAP && type != PERF_RECORD_MMAP2)
		return;
	s->a.comm = stub_task;
	s->a.fork = stub_task;
	s->a.exit = stub_task;
	s->a.mmap = stub_mmap;
	dispatch_ev(s, stream, rec, size, ev);
	s->a.comm = a.comm;
	s->a.fork = a.fork;
	s->a.exit = a.exit;
	s->a.mmap = a.mmap;
	s->stats.records = records;
}

/* --time: a non-sample record of a DATA chunk wholly before the window. */
static void window_sideband_rec(const uint8_t *rec, uint16_t size, void *ctx)
{
	struct pp_session *s = ctx;
	uint64_t al[8192];	/* 64 KiB: the largest record, 8-byte aligned */

	memcpy(al, rec, size);
	window_sideband(s, 0, (const uint8_t *)al, size,
			pp_session__evsel_by_id(s, pp_sample__id((const uint8_t *)al, size)));
}

/* Load the next chunk of @st; Return: 1 loaded, 0 none left. */
static int stream_load(struct pp_session *s, struct pp_stream *st)
{
	int ret;

	while (st->next_entry >= 0 && !s->stop) {
		const struct pp_entry *e = &s->entries[st->next_entry];
		struct pp_chunk c;

		st->next_entry = e->next;
		if (s->win && e->first_ts > s->win_end)
			continue;	/* after the window: never read */
		meta_until(s, e->offset);
		if (!st->rd) {
			/* Its own reader: chunks decode into its buffers, no copy. */
			struct pp_reader_opts ro = { .print = reader_print, .print_ctx = s,
						     .no_index = 1, .scratch = &s->scratch,
						     .check = pp_session__check_claim, .check_ctx = s };

			st->rd = pp_reader__open(pp_reader__io(s->reader), &ro);
			if (!st->rd)
				return 0;
		}
		if (s->win && e->last_ts && e->last_ts < s->win_start) {
			/* before the window: its side-band only, samples left encoded */
			ret = pp_reader__sideband_at(st->rd, e->offset, window_sideband_rec, s);
			ret = ret == 1 ? 0 : ret;	/* nothing to merge */
		} else {
			ret = pp_reader__read_at(st->rd, e->offset, &c);
		}
		if (ret == -ENOMEM) {	/* said by the reader; the rest would be wrong */
			pp_session__fail(s, ret);
			s->stop = 1;
			return 0;
		}
		if (ret != 1)
			continue;
		st->data = c.data;
		st->len = c.size;
		st->off = 0;
		s->stats.data_chunks++;
		/* a checkpoint when the reader's buffers grew, the only memory a load takes */
		if (pp_reader__buffer_bytes(st->rd) == st->rd_bytes)
			return 1;
		st->rd_bytes = pp_reader__buffer_bytes(st->rd);
		return !pp_session__mem_check(s);
	}
	return 0;
}

/* The time of record @r of event @ev (as pp_session__record_ts()). */
static inline int record_time(const struct pp_session *s, const struct pp_evsel *ev,
			      const uint8_t *r, uint16_t size, uint64_t *ts)
{
	const struct pp_sample_layout *f = &s->fast[ev->idx];

	/* a sample's time at its fixed place; the header's size is checked as there */
	if (f->time) {
		struct perf_event_header h;

		memcpy(&h, r, sizeof(h));
		if (h.type == PERF_RECORD_SAMPLE && h.size >= 8 && h.size <= size &&
		    f->time + 8u <= h.size) {
			*ts = pp_sample_rd64(r + f->time);
			return 0;
		}
	}
	return pp_sample__time(ev->sample_type, r, size, ts);
}

/* pp_sample__id(), inline: the id of a record of @size bytes (its header's size). */
static inline uint64_t record_id(const uint8_t *r, uint16_t size)
{
	struct perf_event_header h;

	memcpy(&h, r, sizeof(h));
	if (h.size != size || size < sizeof(h) + 8)
		return 0;
	return pp_sample_rd64(r + (h.type == PERF_RECORD_SAMPLE ? sizeof(h) : size - 8u));
}

/* Move @st to its next record; sets st->head NULL when the stream ends. */
static void stream_advance(struct pp_session *s, struct pp_stream *st)
{
	uint64_t id;

	for (;;) {
		if (st->off + 8 > st->len) {
			if (st->off < st->len)
				s->stats.bad_records++;
			if (!s->src->refill(s, st)) {
				st->head = NULL;
				return;
			}
			continue;
		}
		const uint8_t *r = st->data + st->off;
		uint16_t size = (uint16_t)(r[6] | r[7] << 8);

		if (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
			size = (uint16_t)(r[7] | r[6] << 8);
		if (size < 8 || size > st->len - st->off) {
			s->stats.bad_records++;
			st->off = st->len;	/* the rest of this chunk is unusable */
			continue;
		}
		st->off += size;
		/*
		 * Records are handed on 8-byte aligned (a stack is read as
		 * u64s in place); only a crafted file misaligns them, by a
		 * record size that is not a multiple of 8: copy those.
		 */
		if ((uintptr_t)r & 7) {
			if (!st->align && !(st->align = malloc(65536))) {
				s->stats.bad_records++;
				continue;
			}
			memcpy(st->align, r, size);
			r = (const uint8_t *)st->align;
		}
		st->head = r;
		st->head_size = size;
		id = record_id(r, size);
		/* a stream's records mostly belong to a few events: reuse the last lookup */
		if (id != st->head_id || st->head_idgen != s->idmap_gen) {
			st->head_ev = pp_session__evsel_by_id(s, id);
			st->head_id = id;
			st->head_idgen = s->idmap_gen;
		}
		if (!st->head_ev || record_time(s, st->head_ev, r, size, &st->head_ts))
			st->head_ts = st->last_ts;
		st->last_ts = st->head_ts;
		st->records++;
		return;
	}
}

/* Merge order: time, then stream position (so the heap and the scan agree). */
static inline int stream_before(const struct pp_stream *a, const struct pp_stream *b)
{
	return a->head_ts < b->head_ts || (a->head_ts == b->head_ts && a < b);
}

static void heap_down(struct pp_stream **h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct pp_stream *t;

		if (l < n && stream_before(h[l], h[m]))
			m = l;
		if (l + 1 < n && stream_before(h[l + 1], h[m]))
			m = l + 1;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

static void deliver(struct pp_session *s, struct pp_stream *st)
{
	if (s->win && st->head_ts < s->win_start) {
		if (st->head_idgen == s->idmap_gen)
			window_sideband(s, st->id, st->head, st->head_size, st->head_ev);
		return;
	}
	if (st->head_ts < s->last_ts)
		s->stats.out_of_order++;
	else
		s->last_ts = st->head_ts;
	if (!s->stats.first_ts)
		s->stats.first_ts = st->head_ts;
	if (st->head_idgen == s->idmap_gen)
		dispatch_ev(s, st->id, st->head, st->head_size, st->head_ev);
	else
		pp_session__dispatch(s, st->id, st->head, st->head_size);
}

/* Up to this many streams a linear scan beats the heap's bookkeeping. */
#define PP_MERGE_SCAN_MAX	8

/**
 * pp_session__merge() - dispatch the streams' records in time order while
 * the oldest head is at or before @limit (UINT64_MAX: until all are empty).
 * @s: session whose streams have their heads set by stream_advance().
 *
 * A linear scan for a few streams, a binary heap above PP_MERGE_SCAN_MAX.
 * Return: 0 or -ENOMEM.
 */
int pp_session__merge(struct pp_session *s, uint64_t limit)
{
	struct pp_stream **h;
	size_t n = 0;

	if (s->nr_streams <= PP_MERGE_SCAN_MAX) {
		while (!s->stop) {
			struct pp_stream *min = NULL;

			for (size_t i = 0; i < s->nr_streams; i++) {
				struct pp_stream *st = &s->streams[i];

				if (st->head && (!min || st->head_ts < min->head_ts))
					min = st;
			}
			if (!min || min->head_ts > limit)
				break;
			deliver(s, min);
			stream_advance(s, min);
		}
		return 0;
	}
	if (s->heap_cap < s->nr_streams) {
		h = realloc(s->heap, s->nr_streams * sizeof(*h));
		if (!h)
			return -ENOMEM;
		s->heap = h;
		s->heap_cap = s->nr_streams;
	}
	h = s->heap;
	for (size_t i = 0; i < s->nr_streams; i++) {
		if (s->streams[i].head)
			h[n++] = &s->streams[i];
	}
	for (size_t i = n / 2; i-- > 0;)
		heap_down(h, n, i);
	while (n && !s->stop) {
		struct pp_stream *st = h[0];

		if (st->head_ts > limit)
			break;
		deliver(s, st);
		stream_advance(s, st);
		if (!st->head)
			h[0] = h[--n];
		heap_down(h, n, 0);
	}
	return 0;
}

/**
 * pp_session__stream_advance() - move @st to its next record (head NULL at
 * the end of its data).
 * @s: session; @st: stream.
 */
void pp_session__stream_advance(struct pp_session *s, struct pp_stream *st)
{
	stream_advance(s, st);
}

static int run_file(struct pp_session *s)
{
	int ret;

	for (size_t i = 0; i < s->nr_streams; i++)
		stream_advance(s, &s->streams[i]);
	ret = pp_session__merge(s, s->win ? s->win_end : UINT64_MAX);
	if (!s->stop)
		meta_until(s, UINT64_MAX);
	s->stats.last_ts = s->last_ts;
	return ret;
}

/* The reader and the streams' readers are the session's: freed with it. */
static void file_free(struct pp_session *s) {}

static const struct pp_source_ops file_source = {
	.name = "file",
	.run = run_file,
	.refill = stream_load,
	.free = file_free,
};

/* ---- names that match nothing in the file ---- */

static int is_sideband(const struct pp_evsel *ev)
{
	return ev->type == PERF_TYPE_SOFTWARE && ev->config == PERF_COUNT_SW_DUMMY;
}

/* "it holds: a, b, c": the file's events for a message (the side-band carrier left out). */
static void held_events(const struct pp_session *s, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < s->nr_evsels; i++) {
		const char *name = s->evsels[i].name;

		if (is_sideband(&s->evsels[i]))
			continue;
		if (n + strlen(name) + 8 > len) {
			snprintf(buf + n, len - n, ", ...");
			return;
		}
		n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "it holds: ", name);
	}
	if (!n)
		snprintf(buf, len, "it holds no events");
}

/* Does the file hold an event of the module's ->events() requests (or its ->src_match)? */
static int module_events_held(struct pp_session *s, char *names, size_t len)
{
	struct pp_event_reqs reqs;
	size_t n = 0;

	names[0] = '\0';
	if (s->a.src_match) {
		for (size_t i = 0; i < s->nr_evsels; i++) {
			if (s->a.src_match(&s->opts, &s->evsels[i]))
				return 1;
		}
		return 0;
	}
	memset(&reqs, 0, sizeof(reqs));
	if (s->a.events(&s->opts, &reqs) || !reqs.nr)
		return 1;	/* nothing to look for: the module's init decides */
	for (int r = 0; r < reqs.nr; r++) {
		struct pp_evspec sp;
		char err[256];

		if (pp_evspec__parse(reqs.req[r].spec, &sp, err, sizeof(err)))
			return 1;
		for (size_t i = 0; i < s->nr_evsels; i++) {
			if (spec_matches(&sp, s->evsels[i].name))
				return 1;
		}
		if (n + strlen(sp.pattern) + 3 < len)
			n += (size_t)snprintf(names + n, len - n, "%s%s", n ? ", " : "", sp.pattern);
	}
	return 0;
}

/*
 * One rule for every profiler (spec/pp-analyze.md): what the command line
 * names must be in the file. An -e entry, a profiler used as a source or a
 * CPU that matches nothing is a usage error naming what the file holds; a
 * profiler none of whose events (or aggregates) the file holds fails.
 */
static int check_names(struct pp_session *s)
{
	char held[768], names[256];
	int nr_cpus = atoi(pp_session__machine(s, "nr_cpus") ? pp_session__machine(s, "nr_cpus") : "0");

	held_events(s, held, sizeof(held));
	for (int i = 0; i < s->nr_specs; i++) {
		const struct pp_evspec *sp = &s->specs[i];
		int found = 0;

		if (sp->source)
			continue;
		for (size_t k = 0; k < s->nr_evsels && !found; k++)
			found = spec_matches(sp, s->evsels[k].name);
		if (!found) {
			fprintf(stderr, "pp-analyze: %s: no event in %s matches '%s' (%s)\n", s->a.name,
				s->path, sp->pattern, held);
			return -EINVAL;
		}
	}
	for (int i = 0; i < s->nr_srcs; i++) {
		const struct pp_src *src = &s->srcs[i];
		int found = 0;

		for (size_t k = 0; k < s->nr_evsels && !found; k++)
			found = src->a->src_match(&src->o, &s->evsels[k]);
		if (!found) {
			fprintf(stderr, "pp-analyze: %s: no event in %s feeds '%s' (%s)\n", s->a.name,
				s->path, s->opts.events[src->entry], held);
			return -EINVAL;
		}
	}
	if (s->cpu_filter && nr_cpus > 0) {
		for (int c = nr_cpus; c < 1024; c++) {
			if (s->cpu_mask[c / 64] & (1ull << (c % 64))) {
				fprintf(stderr, "pp-analyze: %s: -C %s: no CPU %d in %s (it holds CPUs 0-%d)\n",
					s->a.name, s->opts.cpus, c, s->path, nr_cpus - 1);
				return -EINVAL;
			}
		}
	}
	if (s->a.bpf_agg) {
		if (pp_bpfagg__file_has(s))
			return 0;
		/* an optional aggregator (kmemleak --bpf): the file is read by its events */
		if (s->a.bpf_agg_opt && !pp_opts__mod(&s->opts, s->a.bpf_agg_opt))
			s->a.bpf_agg = 0;
	}
	if (s->a.bpf_agg) {
		fprintf(stderr, "pp-analyze: %s: %s holds no %s aggregates (record them with: "
			"pp-record %s %s%s%s...)\n", s->a.name, s->path, s->a.name, s->a.name,
			s->a.bpf_agg_opt ? "--" : "", s->a.bpf_agg_opt ? s->a.bpf_agg_opt : "",
			s->a.bpf_agg_opt ? " " : "");
		return -ENOENT;
	}
	if (s->a.events && !s->nr_specs && !module_events_held(s, names, sizeof(names))) {
		fprintf(stderr, "pp-analyze: %s: %s holds none of its events%s%s (%s; record them "
			"with: pp-record %s ...)\n", s->a.name, s->path, *names ? ": " : "", names, held,
			s->a.name);
		return -ENOENT;
	}
	return 0;
}

/*
 * A file without footer was not closed cleanly: its recorder was killed, or
 * the disk filled. It reads to its last complete chunk; say where that is,
 * in seconds from its first event and as the chunk `pp-analyze dump` shows,
 * so what is missing at the end is not taken for the end of the workload.
 */
static void warn_unclosed(struct pp_session *s)
{
	uint64_t first = 0, last = 0;

	for (size_t i = 0; i < s->nr_entries; i++) {
		const struct pp_entry *e = &s->entries[i];

		if (e->type != PP_CHUNK_DATA || !e->first_ts)
			continue;
		if (!first || e->first_ts < first)
			first = e->first_ts;
		if (e->last_ts > last)
			last = e->last_ts;
	}
	/* the torn chunk first: "file truncated" is how damage warnings begin */
	if (first && last >= first)
		pp_session__warn(s, "%s%s%s was not closed cleanly (no footer): it ends at %.1f s, "
				 "chunk %llu", s->torn, *s->torn ? ": " : "", s->path,
				 (double)(last - first) / 1e9, (unsigned long long)s->scan_last_seq);
	else
		pp_session__warn(s, "%s%s%s was not closed cleanly (no footer): it ends at chunk "
				 "%llu, with no event", s->torn, *s->torn ? ": " : "", s->path,
				 (unsigned long long)s->scan_last_seq);
	s->torn[0] = '\0';
}

/* The held "file truncated" warning, if warn_unclosed() did not say it. */
static void warn_torn(struct pp_session *s)
{
	if (s->torn[0])
		pp_session__warn(s, "%s", s->torn);
	s->torn[0] = '\0';
}

/*
 * --time: the window in perf-clock ns, against the span of the file's DATA
 * chunks (from the index, or from the scan of a file without one); -i
 * intervals start at the window.
 */
static int window_resolve(struct pp_session *s)
{
	uint64_t first = UINT64_MAX, last = 0;
	char err[256];

	if (!s->opts.time.arg)
		return 0;
	for (size_t i = 0; i < s->nr_entries; i++) {
		const struct pp_entry *e = &s->entries[i];

		if (e->type != PP_CHUNK_DATA || !e->first_ts)
			continue;
		if (e->first_ts < first)
			first = e->first_ts;
		if (e->last_ts > last)
			last = e->last_ts;
	}
	if (first == UINT64_MAX) {
		fprintf(stderr, "pp-analyze: %s: --time '%s': %s has no timed records\n", s->a.name,
			s->opts.time.arg, s->path);
		return -EINVAL;
	}
	if (pp_time_window__resolve(&s->opts.time, first, last, &s->win_start, &s->win_end,
				    err, sizeof(err))) {
		fprintf(stderr, "pp-analyze: %s: %s\n", s->a.name, err);
		return -EINVAL;
	}
	s->win = 1;
	if (s->opts.interval_ns)
		s->next_tick = sat_add(s->win_start, s->opts.interval_ns);
	return 0;
}

/**
 * pp_session__run() - init the module, replay every event, report.
 * @s: session with a source opened.
 * Return: 0 or -errno.
 */
int pp_session__run(struct pp_session *s)
{
	const struct pp_reader_stats *rs;
	int ret = 0;

	if (s->path) {
		ret = check_names(s);
		if (!ret)
			ret = window_resolve(s);
		if (ret)
			return ret;
	}
	for (int i = 0; i < s->nr_srcs && !ret; i++) {
		struct pp_src *src = &s->srcs[i];

		ret = src->a->src_init ? src->a->src_init(s, &src->o, &src->state) : 0;
		src->inited = !ret;
	}
	if (!ret) {
		ret = s->a.init(s);
		/* a failed init may have built part of its state: deinit frees that */
		if (ret) {
			s->a.deinit(s);
			s->priv = NULL;
		}
	}
	if (ret)
		return ret;
	s->running = 1;
	for (size_t i = 0; i < s->nr_early_lost; i++) {
		if (!window_out(s, s->early_lost[i].first_ts, s->early_lost[i].last_ts))
			s->a.lost(s, &s->early_lost[i]);
	}
	s->nr_early_lost = 0;
	ret = s->src->run(s);
	if (s->opts.interval_ns && s->tick_pending) {
		/*
		 * The last records (an EXIT, a LOST) may lie past a boundary no
		 * sample ticked: end those intervals first, so the last one is
		 * never longer than -i; an empty remainder prints nothing.
		 */
		pp_session__tick(s, s->last_ts);
		if (s->last_ts > pp_session__interval_start(s))
			s->a.interval(s, s->last_ts);
	}
	pp_bpfagg__finish(s);
	if (!pp_mem__exceeded())	/* a report of part of the file would mislead */
		s->a.report(s);
	s->a.deinit(s);
	s->priv = NULL;
	pp_out__flush(&s->out);
	if (s->out.error && s->out.error != -EPIPE) {
		fprintf(stderr, "pp-analyze: write error: %s\n", strerror(-s->out.error));
		pp_session__fail(s, s->out.error == -EINVAL ? -EIO : s->out.error);
	}
	if (!ret)
		ret = s->fail;
	if (ret == -ENOMEM)	/* an allocation failed at the bound's backstop */
		pp_mem__report();
	if (s->stats.out_of_order)
		pp_session__warn(s, "%llu records out of time order",
				 (unsigned long long)s->stats.out_of_order);
	if (s->stats.bad_records)
		pp_session__warn(s, "%llu malformed records skipped",
				 (unsigned long long)s->stats.bad_records);
	if (s->stats.lost_records || s->stats.lost_samples || s->stats.lost_recorder)
		pp_session__warn(s, "lost events: %llu (kernel ring), %llu (samples), %llu (recorder)",
				 (unsigned long long)s->stats.lost_records,
				 (unsigned long long)s->stats.lost_samples,
				 (unsigned long long)s->stats.lost_recorder);
	{
		struct pp_reader_stats sum = { 0 };
		char lies[512];

		/* the stream readers read the data chunks: theirs are the counts */
		for (size_t i = 0; i < s->nr_streams; i++) {
			const struct pp_reader_stats *st;

			if (!s->streams[i].rd)
				continue;
			st = pp_reader__stats(s->streams[i].rd);
			sum.bad_pages += st->bad_pages;
			sum.bad_types += st->bad_types;
			sum.bad_machine += st->bad_machine;
			sum.bad_stream += st->bad_stream;
			sum.bad_dropped += st->bad_dropped;
			sum.bad_layout += st->bad_layout;
		}
		if (pp_session__lies(s, &sum, lies, sizeof(lies)))
			pp_session__warn(s, "damaged trace: %s", lies);
	}
	rs = s->reader ? pp_reader__stats(s->reader) : NULL;
	/* The reader said where; a summary only when it did not. */
	if (rs && (rs->corrupt || rs->truncated) && !s->reader_warnings)
		pp_session__warn(s, "damaged trace: %llu corrupt chunks skipped%s",
				 (unsigned long long)rs->corrupt,
				 rs->truncated ? ", file truncated" : "");
	if (rs && s->path && !rs->has_footer)
		warn_unclosed(s);
	warn_torn(s);
	return ret;
}
