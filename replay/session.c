// SPDX-License-Identifier: MIT
/*
 * The replay session: metadata, the task table, targets, the dispatch to
 * the analyzer callbacks and the run; the file source and the k-way merge
 * are replay/file-source.c.
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
	if (!a->task)
		a->task = stub_task;
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
	pp_bpf_agg_feed__free(s);
	for (int i = 0; i < s->nr_srcs; i++) {
		if (s->srcs[i].inited && s->srcs[i].a->source->free)
			s->srcs[i].a->source->free(s->srcs[i].state);
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

/* The one place that writes `pp-analyze: PROFILER: MESSAGE`. */
static void analyzer_vprint(const char *profiler, const char *fmt, va_list ap)
{
	fprintf(stderr, "pp-analyze: %s: ", profiler);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

/**
 * pp_analyzer__err() - print `pp-analyze: PROFILER: MESSAGE` on stderr.
 * @profiler: module name; @err: returned; @fmt: printf format of MESSAGE.
 * Return: @err.
 */
int pp_analyzer__err(const char *profiler, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	analyzer_vprint(profiler, fmt, ap);
	va_end(ap);
	return err;
}

/**
 * pp_analyzer__warn() - print `pp-analyze: PROFILER: MESSAGE` on stderr, uncounted.
 * @profiler: module name; @fmt: printf format of MESSAGE.
 */
void pp_analyzer__warn(const char *profiler, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	analyzer_vprint(profiler, fmt, ap);
	va_end(ap);
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

/*
 * --time: a record before the window is not delivered, but what it says
 * about tasks (COMM, FORK, EXIT, MMAP) still names and symbolizes the
 * window's samples: the session takes it in, with the module's callbacks
 * muted.
 */
void pp_session__dispatch_sideband(struct pp_session *s, uint32_t stream, const uint8_t *rec,
				    uint16_t size, struct pp_evsel *ev)
{
	struct pp_analyzer a = s->a;
	uint64_t records = s->stats.records;
	uint32_t type;

	memcpy(&type, rec, sizeof(type));
	if (type != PERF_RECORD_COMM && type != PERF_RECORD_FORK && type != PERF_RECORD_EXIT &&
	    type != PERF_RECORD_MMAP && type != PERF_RECORD_MMAP2)
		return;
	s->a.task = stub_task;
	s->a.mmap = stub_mmap;
	pp_session__dispatch_ev(s, stream, rec, size, ev);
	s->a.task = a.task;
	s->a.mmap = a.mmap;
	s->stats.records = records;
}

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

/* Does the file hold an event of the module's ->events() requests (or its ->match)? */
static int module_events_held(struct pp_session *s, char *names, size_t len)
{
	struct pp_event_reqs reqs;
	size_t n = 0;

	names[0] = '\0';
	if (s->a.match) {
		for (size_t i = 0; i < s->nr_evsels; i++) {
			if (s->a.match(&s->opts, &s->evsels[i]))
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
			if (pp_session__spec_matches(&sp, s->evsels[i].name))
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
			found = pp_session__spec_matches(sp, s->evsels[k].name);
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
			found = src->a->match(&src->o, &s->evsels[k]);
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
		if (pp_bpf_agg_feed__file_has(s))
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

		ret = src->a->source->init ? src->a->source->init(s, &src->o, &src->state) : 0;
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
	pp_bpf_agg_feed__finish(s);
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
