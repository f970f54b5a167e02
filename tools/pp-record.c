// SPDX-License-Identifier: MIT
/*
 * pp-record - record perf events into a pp trace file: the command line of
 * the recorder (include/pp/recorder.h, record/recorder.c). With the options
 * parsed (tools/record-opts.c), it builds the events, resolves the
 * targets, starts the COMMAND, and runs the recorder until a signal, -d or
 * the COMMAND's end.
 */
#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "pp/analyzer.h"
#include "pp/bpf.h"
#include "pp/format.h"
#include "pp/perf.h"
#include "pp/recorder.h"
#include "pp/workload.h"
#include "../record/record.h"
#include "record-opts.h"

/*
 * While the COMMAND waits for a CPU to exec: the events are on, drain them
 * (a loaded host kept a child from running for 0.4 s, and the rings of a
 * system-wide task-state overflowed before the first drain). An error here
 * comes back from the recording loop.
 */
static void drain_idle(void *rec)
{
	char err[256];

	pp_recorder__run(rec, 0, err, sizeof(err));
}

/* Width of the live status line on stderr, 0 when none is shown. */
static int status_len;

/* Blank the status line, so what is printed next starts a clean line. */
static void status_clear(void)
{
	if (status_len)
		fprintf(stderr, "\r%*s\r", status_len, "");
	status_len = 0;
}

void die(const char *fmt, ...)
{
	va_list ap;

	status_clear();
	fputs("pp-record: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* ---- events ---- */

static void print_event_help(const struct pp_evdesc *d)
{
	char fields[2048];

	if (!d->sys) {
		printf("%s: records pid, tid, time, cpu%s%s\n\n", d->name,
		       d->attr.sample_type & PERF_SAMPLE_ADDR ? ", the data address" : "",
		       d->attr.sample_type & PERF_SAMPLE_CALLCHAIN ? " and the stack" : "");
		return;
	}
	printf("%s:%s\n%s\n", d->sys, d->event, d->format ? d->format : "(no format)\n");
	pp_tracefs_fields(d->format ? d->format : "", fields, sizeof(fields));
	printf("fields: %s\n", fields);
	printf("record: pp-record -e '%s:%s/FILTER/stack/' -o pp.trace -- COMMAND\n\n", d->sys,
	       d->event);
}

/* The perf events of the specs, the -F sampler and the side-band (record/evbuild.c). */
static void build_events(struct opts *o, struct pp_evdescs *es)
{
	const struct pp_evbuild_opts bo = {
		.callchain = o->callgraph, .freq = (uint32_t)o->freq, .dwarf_stack = o->dwarf_stack,
		.exclude_user = o->exclude_user, .exclude_kernel = o->exclude_kernel,
	};
	int tracefs_needed = 0, mounted = 0, i, sampling = 0;
	char err[512];

	for (i = 0; i < o->nr_specs; i++)
		tracefs_needed |= o->specs[i].kind == PP_EV_TRACEPOINT ||
				  o->specs[i].kind == PP_EV_USDT;
	if (tracefs_needed && !pp_tracefs_dir(&mounted))
		die("tracefs is not mounted and cannot be mounted at /sys/kernel/tracing: %s",
		    strerror(errno));
	if (mounted)
		fprintf(stderr, "pp-record: mounted tracefs at /sys/kernel/tracing\n");

	for (i = 0; i < o->nr_specs; i++) {
		int r = pp_evdescs__add_spec(es, &o->specs[i], i, &bo, err, sizeof(err));

		if (r == -EINVAL || r == -ENOENT)
			die_usage("%s", err);
		if (r)
			die("%s", err);
	}
	if (o->help_events) {
		for (i = 0; i < es->nr; i++)
			print_event_help(&es->v[i]);
		exit(0);
	}
	for (i = 0; i < es->nr; i++)
		sampling |= es->v[i].sampling;
	if (o->freq && !sampling) {
		struct pp_evdesc *e = pp_evdescs__add_sampler(es, &bo);

		if (!e)
			die("out of memory");
		if (!o->quiet)
			fprintf(stderr, "pp-record: sampling %s at %d Hz%s\n", e->name, o->freq,
				e->attr.type == PERF_TYPE_HARDWARE ? "" :
				" (no hardware cycles event here)");
	}
	if (!o->no_sideband && !pp_evdescs__add_sideband(es))
		die("out of memory");
}

/* ---- the run ---- */

static volatile sig_atomic_t got_stop, got_chld;

static void on_stop(int sig)
{
	got_stop = sig;
}

static void on_chld(int sig)
{
	got_chld = 1;
}

/* --flight-recorder: SIGUSR2 asks for a dump of what came before it */
static volatile sig_atomic_t got_usr2;
static volatile uint64_t usr2_ns;

static void on_usr2(int sig)
{
	usr2_ns = pp_mono_ns();	/* clock_gettime is async-signal-safe */
	got_usr2 = sig;
}

static void set_signals(const struct opts *o)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = on_usr2;
	if (o->flight_ns)
		sigaction(SIGUSR2, &sa, NULL);
	sa.sa_handler = on_chld;
	sa.sa_flags = SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* Who is recorded: the CPUs, and the threads, processes or cgroups of -p, -t, --cgroups. */
struct targets {
	int *cpus, nr_cpus;
	pid_t *threads, *procs;
	int nr_threads, nr_procs;
	int *cg_fds, nr_cg;
};

static void resolve_targets(const struct opts *o, struct targets *t)
{
	char msg[PATH_MAX + 128];
	int i, err = 0;

	if (o->cpus) {
		t->nr_cpus = pp_perf_cpus__parse(o->cpus, &t->cpus);
		if (t->nr_cpus < 0)
			die_usage("bad CPU list '%s'", o->cpus);
		for (i = 0; i < t->nr_cpus; i++) {
			char p[64];

			snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpu%d", t->cpus[i]);
			if (access(p, F_OK))
				die_usage("no CPU %d on this machine", t->cpus[i]);
		}
	} else {
		t->nr_cpus = pp_perf_cpus__online(&t->cpus);
		if (t->nr_cpus < 0)
			die("cannot read the online CPUs: %s", strerror(-t->nr_cpus));
	}
	if ((o->pids && (err = pp_targets__pids(o->pids, 1, &t->threads, &t->nr_threads,
						 &t->procs, &t->nr_procs, msg, sizeof(msg)))) ||
	    (o->tids && (err = pp_targets__pids(o->tids, 0, &t->threads, &t->nr_threads,
						 &t->procs, &t->nr_procs, msg, sizeof(msg)))) ||
	    (o->cgroups && (err = pp_targets__cgroups(o->cgroups, &t->cg_fds, &t->nr_cg, msg,
						       sizeof(msg))))) {
		if (err == -EINVAL)
			die_usage("%s", msg);
		die("%s", msg);
	}
}

/*
 * --bpf-output SRC: open the BPF program (its BTF goes into FORMATS) and a
 * PERF_COUNT_SW_BPF_OUTPUT event per CPU for it to write into; the recorder
 * loads the program and points it at those events.
 */
static struct pp_bpf_output *add_bpf_output(const struct opts *o, struct pp_evdescs *es)
{
	struct pp_bpf_output *out;
	struct pp_evdesc *e;
	char err[512];

	if (o->pids || o->tids || o->cgroups || !(o->all_cpus || o->cpus))
		die_usage("--bpf-output records system-wide: give -a or -C, not -p/-t/--cgroups");
	out = pp_bpf_output__new(o->bpf_output, err, sizeof(err));
	if (!out)
		die("%s", err);
	e = pp_evdescs__add(es, pp_bpf_output__event_name(out));
	if (!e)
		die("out of memory");
	e->attr.type = PERF_TYPE_SOFTWARE;
	e->attr.config = PERF_COUNT_SW_BPF_OUTPUT;
	e->attr.sample_type |= PERF_SAMPLE_RAW;
	e->attr.sample_period = 1;
	return out;
}

/*
 * Whether the live status line goes to stderr: a terminal, no -q, and no
 * COMMAND writing its output to a terminal too (its lines and the status
 * rewritten in place would mix).
 */
static int status_wanted(const struct opts *o)
{
	if (o->quiet || !isatty(STDERR_FILENO))
		return 0;
	return !o->workload || !isatty(STDOUT_FILENO);
}

/* The live status line, rewritten in place. */
static void status_show(const struct pp_recorder *rec, uint64_t elapsed_ns)
{
	char line[192];
	int n = pp_recorder__status(rec, elapsed_ns, line, sizeof(line));

	if (n < 0)
		return;
	if (n >= (int)sizeof(line))
		n = (int)sizeof(line) - 1;
	/* spaces over the rest of a longer previous line: no terminal escapes needed */
	fprintf(stderr, "\r%s%*s", line, status_len > n ? status_len - n : 0, "");
	if (n > status_len)
		status_len = n;
}

/*
 * Record until a signal, -d after @t0, a write error or the end of @child (> 0).
 * Return: 1 when @child ended, its wait status in *@child_status.
 */
static int record_loop(struct pp_recorder *rec, const struct opts *o, uint64_t t0, pid_t child,
		       int *child_status)
{
	uint64_t t_end = 0, status_next = 0;
	char err[256];
	int ret;

	if (o->duration > 0)
		t_end = t0 + (uint64_t)(o->duration * 1e9);
	if (status_wanted(o))
		status_next = t0 + 1000000000ull;
	while (!got_stop) {
		int timeout = -1;
		uint64_t now = pp_mono_ns();

		if (t_end) {
			if (now >= t_end)
				break;
			timeout = (int)((t_end - now) / 1000000) + 1;
		}
		ret = pp_recorder__run(rec, timeout, err, sizeof(err));
		if (ret == -EIO)
			break;	/* a write error: pp_recorder__stop() tells it */
		if (ret)
			die("%s", err);
		if (got_usr2) {
			got_usr2 = 0;
			pp_recorder__dump(rec, usr2_ns);
		}
		/* at most once a second, on the recorder's own wake-ups */
		now = pp_mono_ns();
		if (status_next && now >= status_next) {
			status_show(rec, now - t0);
			status_next = now + 1000000000ull;
		}
		if (child > 0 && got_chld) {
			got_chld = 0;
			if (waitpid(child, child_status, WNOHANG) == child)
				return 1;
		}
	}
	return 0;
}

/* What the recorder says while it runs: a line that starts over the status line. */
static void rec_message(void *ctx, const char *line)
{
	const struct opts *o = ctx;

	fprintf(stderr, "%spp-record: %s\n", isatty(STDERR_FILENO) && !o->quiet ? "\r" : "", line);
}

/* The recorder's options from the command line's and the targets. */
static void recorder_opts(const struct opts *o, struct pp_evdescs *es, const struct targets *t,
			  struct pp_recorder_opts *ro)
{
	*ro = (struct pp_recorder_opts){
		.sz = sizeof(*ro), .es = es, .specs = o->specs, .nr_specs = o->nr_specs,
		.bpf = o->bpf, .agg = o->agg_kind, .agg_path = o->agg_path,
		.profiler = o->profiler,
		.cpus = t->cpus, .nr_cpus = t->nr_cpus, .threads = t->threads,
		.nr_threads = t->nr_threads, .cgroup_fds = t->cg_fds, .nr_cgroups = t->nr_cg,
		.procs = t->procs, .nr_procs = t->nr_procs, .pids_given = o->pids != NULL,
		.child = -1, .output = o->output, .mmap_pages = o->mmap_pages,
		.chunk_size = o->chunk_size, .queue = o->queue, .flush_ms = o->flush_ms,
		.codec = o->codec, .level = o->level, .encoding = o->encoding,
		.rt_prio = o->rt_prio, .kallsyms_all = o->kallsyms_all, .ftrace = o->ftrace,
		.call_graph = o->call_graph, .dwarf_stack = o->dwarf_stack, .rotate_ns = o->rotate_ns,
		.rotate_bytes = o->rotate_bytes, .max_files = o->max_files,
		.flight_ns = o->flight_ns, .flight_size = o->flight_size, .quiet = o->quiet,
		.cmdline = o->cmdline, .message = rec_message, .message_ctx = (void *)o,
	};
}

/*
 * A module whose events concern two tasks (sched_switch runs in the
 * previous task's context) takes them from every task on every CPU (widen):
 * the targets go into the file and the module keeps theirs. A COMMAND is
 * started, held before its exec; unless recorded system-wide, the events
 * follow it (enabled at its exec, inherited by its children).
 */
static void set_targets(const struct opts *o, struct pp_evdescs *es, struct targets *t,
			struct pp_workload *wl, struct pp_recorder_opts *ro)
{
	static char child_pid[16];
	int i, err;

	ro->widen = o->system_wide && (o->pids || o->tids ||
				       (o->workload && !o->all_cpus && !o->cpus && !o->cgroups));
	ro->target_pids = ro->widen ? o->pids : NULL;
	ro->target_tids = ro->widen ? o->tids : NULL;
	if (ro->widen && !o->quiet)
		fprintf(stderr, "pp-record: %s: events of every task on every CPU, kept for the "
			"targets at analysis\n", o->profiler ? o->profiler : "profiler event");
	if (o->workload) {
		err = pp_workload__start(wl, o->workload, o->preload, o->preload_env);
		if (err)
			die("cannot start the workload: %s", strerror(-err));
		ro->child = wl->pid;
		ro->child_path = wl->path;
		ro->follow = !o->all_cpus && !o->cpus && !o->cgroups && !ro->widen;
		if (ro->widen && ro->child > 0) {
			snprintf(child_pid, sizeof(child_pid), "%d", (int)ro->child);
			ro->target_pids = child_pid;
		}
		if (ro->follow) {
			if (pp_targets__add(&t->threads, &t->nr_threads, ro->child))
				die("out of memory");
			ro->threads = t->threads;
			ro->nr_threads = t->nr_threads;
			for (i = 0; i < es->nr; i++) {
				es->v[i].attr.inherit = 1;
				es->v[i].attr.enable_on_exec = 1;
			}
		}
	}
	if (o->pids && !ro->widen) {
		for (i = 0; i < es->nr; i++)
			es->v[i].attr.inherit = 1;
	}
}

/*
 * What the profiler's probes cost the target, measured here, said once the
 * recording is on (pp_event_reqs.trap_note).
 */
static void trap_note(const struct opts *o)
{
	uint64_t ns;

	if (!o->trap_note[0] || o->quiet)
		return;
	if (!pp_uprobe_cost(&ns))
		fprintf(stderr, "pp-record: %s: %s (the traps, measured here: %.1f us a call)\n",
			o->profiler, o->trap_note, (double)ns / 1000.0);
	else
		fprintf(stderr, "pp-record: %s: %s\n", o->profiler, o->trap_note);
}

/**
 * main() - pp-record entry point.
 * @argc: argument count; @argv: arguments.
 * Return: exit status.
 */
int main(int argc, char **argv)
{
	struct opts o = { 0 };
	struct pp_evdescs es = { 0 };
	struct targets t = { 0 };
	struct pp_workload wl = { .pid = -1, .go_fd = -1, .err_fd = -1 };
	struct pp_recorder_opts ro;
	struct pp_recorder *rec;
	struct pp_bpf_output *bpf_out = NULL;
	int child_status = 0, child_done, usage, err, ret = 0;
	uint64_t t0;
	char msg[8192];

	/*
	 * The writer thread allocates and frees chunk-sized buffers for every
	 * chunk. Served by mmap they fault in anew each time (a third of the
	 * recorder's CPU under load); kept in the heap they are reused.
	 */
	mallopt(M_MMAP_THRESHOLD, 64 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	parse_opts(argc, argv, &o);
	srandom((unsigned int)(pp_mono_ns() ^ (uint64_t)getpid()));
	build_events(&o, &es);
	if (o.bpf_output)
		bpf_out = add_bpf_output(&o, &es);
	resolve_targets(&o, &t);
	set_signals(&o);
	recorder_opts(&o, &es, &t, &ro);
	ro.bpf_output = bpf_out;
	set_targets(&o, &es, &t, &wl, &ro);

	atexit(pp_output__cleanup);	/* an uncommitted file goes */
	rec = pp_recorder__new(&ro, msg, sizeof(msg), &usage);
	if (!rec) {
		pp_workload__stop(&wl, NULL);
		if (usage == 2) {	/* it says all there is to say */
			fprintf(stderr, "pp-record: %s\n", msg);
			exit(EXIT_USAGE);
		}
		if (usage)
			die_usage("%s", msg);
		die("%s", msg);
	}
	t0 = pp_mono_ns();
	if (pp_recorder__start(rec, msg, sizeof(msg)))
		die("%s", msg);
	trap_note(&o);
	err = pp_workload__go_while(&wl, drain_idle, rec);
	if (err) {
		/* nothing was recorded: the old FILE stays, the temporary goes */
		pp_recorder__free(rec);
		fprintf(stderr, "pp-record: cannot run '%s': %s\n", o.workload[0], strerror(-err));
		exit(127);	/* pp_output__cleanup() */
	}
	if (pp_recorder__commit(rec, msg, sizeof(msg))) {
		pp_workload__stop(&wl, NULL);
		die("%s", msg);
	}

	child_done = record_loop(rec, &o, t0, ro.child, &child_status);

	status_clear();	/* the summary replaces it */
	if (got_usr2)
		pp_recorder__dump(rec, usr2_ns);
	err = pp_recorder__stop(rec);
	if (ro.child > 0 && !child_done) {
		/* recording ended first (signal, -d, write error): end the workload too */
		pp_workload__stop(&wl, &child_status);
		child_done = 1;
	}
	if (err) {
		fprintf(stderr, "pp-record: write error on %s: %s; the file is readable up to the "
			"last complete chunk\n", pp_recorder__output(rec), strerror(-err));
		ret = 1;
	}
	if (!o.quiet)
		pp_recorder__summary(rec, stderr);
	pp_recorder__free(rec);
	pp_bpf_output__free(bpf_out);
	if (ro.child > 0 && child_done && !ret) {
		if (WIFEXITED(child_status))
			ret = WEXITSTATUS(child_status);
		else if (WIFSIGNALED(child_status))
			ret = 128 + WTERMSIG(child_status);
	}
	return ret;
}
