// SPDX-License-Identifier: MIT
/*
 * pp-record - record perf events into a pp trace file.
 *
 * Threads: the main thread drains the per-CPU rings into per-CPU chunk
 * buffers (no allocation, no syscall per record); a full buffer, and every
 * --flush-interval any non-empty one, is handed to the writer thread through a bounded queue and replaced
 * by a free buffer from a fixed pool. When no buffer is free the data is
 * dropped, counted, and reported in a LOST chunk: the drain never waits for
 * the disk. The writer thread compresses and appends chunks in order, then
 * learns symbols from the records it just wrote and appends KSYMS/USYMS/MMAPS.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <malloc.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "pp/analyzer.h"
#include "pp/bpf.h"
#include "pp/format.h"
#include "pp/ftpages.h"
#include "pp/host.h"
#include "pp/io.h"
#include "pp/meta.h"
#include "pp/perf.h"
#include "pp/sample.h"
#include "pp/workload.h"
#include "pp/writer.h"
#include "../record/record.h"

#define EXIT_USAGE		2

static const char usage_text[] =
"Usage: pp-record [OPTIONS] [-- COMMAND [ARGS...]]\n"
"       pp-record [OPTIONS] PROFILER [PROFILER OPTIONS] [-- COMMAND [ARGS...]]\n"
"Record perf events (tracepoints, samples, probes) into a pp trace file.\n"
"With a PROFILER (see pp-analyze list), record exactly the events that\n"
"`pp-analyze PROFILER` with the same options needs, e.g.\n"
"  pp-record profile -F 499 -- ./app    then    pp-analyze profile\n"
"Without --, the first word that is no option is a PROFILER when it names one,\n"
"else a COMMAND when it is a path or a program in PATH, else an error.\n"
"\n"
"Events:\n"
"  -e, --event EVENT[,EVENT...]  events to record (repeatable):\n"
"        SYS:NAME[/FILTER/ATTR/.../]  tracepoint, '*' wildcards, ftrace filter;\n"
"                                     ATTR: stack, max-stack=N, alias=NAME (and\n"
"                                     analyzer keys key=, top-by=, ... kept as given)\n"
"        uprobe:FUNC@/path/bin[//ATTR/]  uprobe (uretprobe: for returns)\n"
"        usdt:PROVIDER:NAME@/path/bin[/FILTER/ATTR/]  USDT probe, arguments as\n"
"                                     fields arg1..argN (pp-analyze usdt list BIN)\n"
"        kprobe:FUNC                  kprobe (where the kernel has kprobes)\n"
"        cpu-clock, task-clock, page-faults, context-switches, cpu-migrations,\n"
"        cycles, instructions, cache-misses, branch-misses ...\n"
"        'EVENT help' (or: -e EVENT help) prints the event's format and exits\n"
"  -F, --freq HZ              sample stacks at HZ (cycles, or cpu-clock without a PMU)\n"
"  -g, --call-graph[=MODE]    record call chains for every event; MODE fp (frame\n"
"                             pointers, the default) or dwarf[,SIZE]: SIZE bytes\n"
"                             of user stack (default 8192) unwound with the\n"
"                             DSOs' .eh_frame at record time\n"
"      --exclude-user         do not sample user space\n"
"      --exclude-kernel       do not sample the kernel\n"
"Targets (default: all CPUs, all tasks):\n"
"  -a, --all-cpus             system-wide, also with a COMMAND\n"
"  -C, --cpu CPUS             only these CPUs (e.g. 0-3,6)\n"
"  -p, --pid PID[,PID...]     only these processes (and their new threads)\n"
"  -t, --tid TID[,TID...]     only these threads\n"
"      --cgroups NAME[,...]   only these cgroups: a path below /sys/fs/cgroup,\n"
"                             or a regex matching whole paths (e.g. 'system.slice/.*')\n"
"  -- COMMAND ARGS            run COMMAND, record it (and its children) until it\n"
"                             exits; pp-record exits with its status\n"
"Recording:\n"
"  -o, --output FILE          output file (default pp.trace; an old FILE is kept\n"
"                             as FILE.old)\n"
"  -d, --duration TIME        stop after TIME (e.g. 10, 10s, 500ms)\n"
"  -m, --mmap-pages PAGES     ring-buffer pages per CPU, a power of two (default\n"
"                             2 MiB of pages, 1 MiB beyond 64 CPUs; 64 pages for\n"
"                             offcpu or lock alone)\n"
"      --chunk-size BYTES     raw bytes per data chunk (default 256K; K/M suffix)\n"
"      --queue N              chunks queued to the writer before dropping (default 32)\n"
"      --flush-interval MS    hand what was recorded to the file at least every MS\n"
"                             milliseconds (default 250): a killed recorder loses\n"
"                             at most about that much\n"
"      --codec CODEC          lz4 (default), zstd or none\n"
"  -z, --compress             archival: zstd level 2 in 1 MiB chunks flushed\n"
"                             every second, compressed on idle CPU time (smaller\n"
"                             files for about the CPU of lz4): --codec zstd\n"
"                             --compression-level 2 --chunk-size 1M\n"
"                             --flush-interval 1000; when the writer falls\n"
"                             behind, chunks step down to faster levels rather\n"
"                             than losing events; --encoding fields for the\n"
"                             smallest files (about twice the CPU)\n"
"      --compression-level N  zstd level 1..19 (default 3 with --codec zstd)\n"
"      --encoding ENC         data chunk encoding: cached (repeated records\n"
"                             stored once, times as deltas; the default),\n"
"                             fields (cached, with samples stored field by\n"
"                             field: a third smaller with zstd) or plain\n"
"  -r, --realtime PRIO        drain the rings at SCHED_FIFO priority PRIO+1, and\n"
"                             write at PRIO when the writer falls behind, so a\n"
"                             busy host cannot starve the recorder into losing\n"
"                             events (default 1 when allowed; 0 = off)\n"
"      --bpf-output SRC       record the records a BPF program emits, with their\n"
"                             BTF: SRC = execsnoop (built in) or OBJ.bpf.o:MAP:STRUCT;\n"
"                             system-wide only (-a or -C)\n"
"      --rotate TIME|SIZE     start a new file every TIME (30s, 10m, 1h) or SIZE\n"
"                             (100M, 1G); each is complete and analyzes alone,\n"
"                             named -o's STEM-YYYYMMDD-HHMMSS-NNNN.EXT (UTC)\n"
"      --max-files N          with --rotate or --flight-recorder: keep the newest N\n"
"      --flight-recorder TIME keep only the last TIME of records in memory; write\n"
"                             them to a new file (named as --rotate's) on SIGUSR2\n"
"                             or when an event marked 'trigger' fires\n"
"                             (-e 'SYS:NAME/FILTER/trigger/'), and go on\n"
"      --flight-size SIZE     at most SIZE kept in memory (default 256M)\n"
"      --kallsyms=all         embed every kernel symbol, not only those hit\n"
"      --no-sideband          no comm/fork/exit/mmap records\n"
"      --ftrace               read tracepoints from a tracefs instance's ring\n"
"                             buffers (as trace-cmd does), not perf_event rings:\n"
"                             cheaper for the traced tasks at high event rates;\n"
"                             no stacks on tracepoints, no --cgroups or BPF filters\n"
"  -q, --quiet                no summary, no live status line (shown each second\n"
"                             when stderr is a terminal)\n"
"  -v, --verbose              show libbpf's messages (BPF verifier logs)\n"
PP_BPF_FILTER_USAGE
"  -h, --help                 this help\n"
"  -V, --version              version\n"
"Exit status: 0 ok (or the COMMAND's status), 1 runtime error, 2 usage error.\n";

/* ---- options ---- */

struct opts {
	struct pp_evspec *specs;
	int nr_specs;
	const char *output;
	const char *cpus;
	const char *pids;
	const char *tids;
	const char *cgroups;
	int all_cpus;
	double duration;	/* seconds, 0 = none */
	int output_set;		/* -o given (else "pp.trace") */
	int freq;
	int callgraph;
	uint32_t dwarf_stack;		/* --call-graph=dwarf: user stack bytes, 0: fp */
	int exclude_user, exclude_kernel;
	unsigned int mmap_pages;
	size_t chunk_size;
	int queue;
	int flush_ms;		/* --flush-interval: data reaches the file at least this often */
	int codec;
	int level;		/* codec level, 0 = default */
	int encoding;		/* enum pp_data_encoding; -1: by the codec */
	int rt_prio;		/* -1 = default (1 when allowed), 0 = off */
	int kallsyms_all;
	int no_sideband;
	int ftrace;		/* --ftrace: tracepoints through a tracefs instance */
	int quiet;
	int help_events;
	char **workload;
	char *cmdline;
	const char *profiler;	/* pp-record PROFILER ...: events chosen by the module */
	struct pp_bpf_filter_opts bpf;	/* in-kernel filters on every event */
	int agg_kind;		/* enum pp_agg: the profiler's BPF aggregator, 0 none */
	char agg_path[400];	/* the binary it probes (pp_event_reqs.agg_path) */
	const char *bpf_output;	/* --bpf-output SRC: a BPF event source */
	int system_wide;	/* a module's events must see every task (pp_event_reqs) */
	uint64_t rotate_ns, rotate_bytes;	/* --rotate TIME|SIZE */
	int max_files;		/* --max-files */
	uint64_t flight_ns;	/* --flight-recorder TIME */
	size_t flight_size;	/* --flight-size */
};

static void die_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* Parse one -e entry into a new spec; a request's stack and rate come with it. */
static struct pp_evspec *add_spec(struct opts *o, const char *entry, const char *who)
{
	struct pp_evspec *nv = realloc(o->specs, (size_t)(o->nr_specs + 1) * sizeof(*nv));
	char err[512];

	if (!nv)
		die("out of memory");
	o->specs = nv;
	if (pp_evspec__parse(entry, &nv[o->nr_specs], err, sizeof(err))) {
		if (who)
			die_usage("%s: %s", who, err);
		die_usage("%s", err);
	}
	return &nv[o->nr_specs++];
}

static void add_reqs(struct opts *o, const struct pp_event_reqs *reqs, const char *who)
{
	for (int i = 0; i < reqs->nr; i++) {
		const struct pp_event_req *q = &reqs->req[i];
		struct pp_evspec *sp = add_spec(o, q->spec, who);

		sp->stack |= q->callchain;
		sp->freq = q->freq;
		o->exclude_user |= q->exclude_user;
		o->exclude_kernel |= q->exclude_kernel;
	}
	o->system_wide |= reqs->system_wide;
}

/*
 * -e ARG: an entry naming a profiler used as an event source
 * ('profile/-F 500/', 'task-state', 'breakpoint/0x1000:w/') records that
 * profiler's events (the module table decides which entries those are);
 * the rest parses as plain events.
 */
static void add_event_arg(struct opts *o, char *arg)
{
	char err[512], *entries[PP_MAX_EVENT_REQS];
	int n = pp_evspec__split(arg, entries, PP_MAX_EVENT_REQS);

	if (n < 0)
		die_usage("too many events in '-e %s' (at most %d)", arg, PP_MAX_EVENT_REQS);
	for (int i = 0; i < n; i++) {
		struct pp_event_reqs reqs;
		int r = pp_analyzer__source_events(entries[i], NULL, &reqs, err, sizeof(err));

		if (r < 0)
			die_usage("%s", err);
		if (r > 0)
			add_reqs(o, &reqs, entries[i]);
		else
			add_spec(o, entries[i], NULL);
	}
}

/*
 * pp-record PROFILER [profiler options] [-- COMMAND]: record exactly the
 * events the analyzer module asks for, so `pp-analyze PROFILER` can replay.
 */
/*
 * Whether pp-record's option word @w (a short option of @shortopts or a
 * long one of @lopts) takes the next word as its value: `-m 64`, `--rotate 1s`,
 * `-g dwarf`. Return: -1 when @w is no pp-record option.
 */
static int record_opt_arity(const char *w, const char *next, const char *shortopts,
			    const struct option *lopts)
{
	int has = -1;

	if (w[1] == '-') {
		size_t n = strcspn(w + 2, "=");

		for (const struct option *l = lopts; l->name; l++) {
			if (strlen(l->name) == n && !strncmp(l->name, w + 2, n))
				has = w[2 + n] ? no_argument : l->has_arg;
		}
	} else if (w[1] != ':' && w[1] != '+') {
		const char *p = strchr(shortopts, w[1]);

		if (p)
			has = p[1] != ':' || w[2] ? no_argument : required_argument;
		if (p && w[1] == 'g' && !w[2])
			has = optional_argument;
	}
	if (has == optional_argument)	/* -g dwarf: the getopt loop looks ahead */
		return next && !pp_call_graph_mode(next, NULL, NULL, 0);
	return has < 0 ? -1 : has == required_argument;
}

/*
 * pp-record PROFILER [options] [-- COMMAND]: perf-prof puts every option after
 * the profiler's name. Words before `--` the profiler does not take but
 * pp-record does (`-q`, `-z`, `-m 64`, `--rotate 1s`) are moved, with their
 * value, to @rec (after the program name @rec[0]); the rest stay in @words,
 * compacted. Return: the number of words left in @words.
 */
static int split_record_words(const struct pp_analyzer *a, int n, char **words, char **rec,
			      int *nrec, const char *shortopts, const struct option *lopts)
{
	int i, m = 0, ar;

	for (i = 0; i < n && strcmp(words[i], "--"); i++) {
		const char *w = words[i];

		/*
		 * `task-state -g dwarf`: the profiler takes -g (it wants stacks),
		 * the mode is pp-record's: both get -g, pp-record the mode.
		 */
		if ((!strcmp(w, "-g") || !strcmp(w, "--call-graph")) && i + 1 < n &&
		    pp_opts__takes(a, w) && !pp_call_graph_mode(words[i + 1], NULL, NULL, 0)) {
			words[m++] = words[i];
			rec[(*nrec)++] = words[i];
			rec[(*nrec)++] = words[++i];
			continue;
		}
		if (w[0] != '-' || !w[1] || pp_opts__takes(a, w) || !strcmp(w, "-h") ||
		    !strcmp(w, "--help") ||
		    (ar = record_opt_arity(w, i + 1 < n ? words[i + 1] : NULL, shortopts, lopts)) < 0) {
			words[m++] = words[i];
			continue;
		}
		rec[(*nrec)++] = words[i];
		if (ar && i + 1 < n)
			rec[(*nrec)++] = words[++i];
	}
	while (i < n)
		words[m++] = words[i++];
	words[m] = NULL;
	return m;
}

static void record_profiler(struct opts *o, int argc, char **argv)
{
	const struct pp_analyzer *a = pp_analyzer__find(argv[0]);
	struct pp_event_reqs reqs;
	struct pp_opts po;
	char err[512];
	int k, n = argc - 1, parsed, ret;

	/*
	 * Help, as pp-analyze gives it: `PROFILER help`, and -h/--help before
	 * any `--`; also `help` further on in the positional slot (pp-analyze's
	 * file, of no use to a recording): asking for help must never start an
	 * unbounded recording.
	 */
	for (k = 0; k < n && strcmp(argv[1 + k], "--"); k++) {
		if (!strcmp(argv[1 + k], "-h") || !strcmp(argv[1 + k], "--help") ||
		    (!k && !strcmp(argv[1], "help"))) {
			pp_analyzer__help(a, stdout);
			exit(0);
		}
	}
	parsed = !pp_opts__parse(a, n, &argv[1], &po, err, sizeof(err));
	if (parsed && po.input && !strcmp(po.input, "help")) {
		pp_analyzer__help(a, stdout);
		exit(0);
	}
	ret = pp_analyzer__record_events(argv[0], n, &argv[1], &reqs, err, sizeof(err));
	/*
	 * pp-analyze's FILE means nothing to a recording: a stray word is a
	 * mistake, unless the module took it (breakpoint's ADDR).
	 */
	if (parsed && po.input && (ret || !reqs.input_used))
		die_usage("%s: unexpected argument '%s' (a COMMAND to record goes after --: "
			  "pp-record %s [OPTIONS] -- COMMAND)", argv[0], po.input, argv[0]);
	if (ret == -ENODEV)	/* the host lacks the hardware: no usage error */
		die("%s: %s", argv[0], err);
	if (ret)
		die_usage("%s: %s", argv[0], err);
	if (k < n) {
		if (k + 1 == n)
			die_usage("no COMMAND after --");
		o->workload = &argv[k + 2];
	}
	add_reqs(o, &reqs, argv[0]);
	/*
	 * The targets mean the same to both tools: `pp-record task-state -p PID`
	 * records PID, as `pp-record -p PID task-state` does.
	 */
	if (parsed) {
		if (po.pids && !o->pids)
			o->pids = po.pids;
		if (po.tids && !o->tids)
			o->tids = po.tids;
		if (po.cpus && !o->cpus)
			o->cpus = po.cpus;
		/* and so do the file and the duration: `pp-record offcpu -o F -d 5` */
		if (po.output) {
			if (!*po.output)
				die_usage("empty output file name");
			if (o->output_set && strcmp(o->output, po.output))
				die_usage("two output files: '%s' and '%s'", o->output,
					  po.output);
			o->output = po.output;
		}
		if (po.duration_ns && !o->duration)
			o->duration = (double)po.duration_ns / 1e9;
	}
	o->profiler = argv[0];
	/*
	 * The module says which in-kernel aggregator it reads (struct
	 * pp_analyzer.bpf_agg, when its options ask for it: kmemleak --bpf).
	 */
	o->agg_kind = reqs.agg;
	snprintf(o->agg_path, sizeof(o->agg_path), "%s", reqs.agg_path);
}

static void die_usage(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* a profiler's message names its own help: one hint is enough */
	fprintf(stderr, "pp-record: %s%s\n", msg,
		strstr(msg, "(see ") ? "" : " (see pp-record --help)");
	exit(EXIT_USAGE);
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

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
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

/* -d: as pp-analyze's, 1 ms to 365 days; what cannot be a time is refused, not wrapped. */
static double parse_duration(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || !(v >= 0) || v > 1e12)	/* also NaN and inf */
		die_usage("bad duration '%s' (1ms to 365d)", s);
	if (!strcmp(end, "ms"))
		v /= 1e3;
	else if (!strcmp(end, "us"))
		v /= 1e6;
	else if (!strcmp(end, "m") || !strcmp(end, "min"))
		v *= 60;
	else if (*end && strcmp(end, "s"))
		die_usage("bad duration '%s' (use s, ms, us or m)", s);
	if (v < 1e-3 || v > 365.0 * 86400)
		die_usage("duration '%s' out of range (1ms to 365d)", s);
	return v;
}

static size_t parse_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	if (end == s)
		die_usage("bad size '%s'", s);
	if (*end == 'k' || *end == 'K')
		v <<= 10, end++;
	else if (*end == 'm' || *end == 'M')
		v <<= 20, end++;
	if (*end)
		die_usage("bad size '%s'", s);
	return (size_t)v;
}

static long parse_long(const char *s, const char *what, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || *end || errno || v < lo || v > hi)
		die_usage("bad %s '%s' (%ld..%ld)", what, s, lo, hi);
	return v;
}

/*
 * Whether @word, given without `--`, is a COMMAND: a path (it has a '/'),
 * or an executable file in PATH, where execvp() will find it.
 */
static int is_command(const char *word)
{
	const char *path = getenv("PATH"), *p, *end;
	char file[PATH_MAX];
	struct stat st;

	if (strchr(word, '/'))
		return 1;
	if (!path)
		path = "/bin:/usr/bin";	/* execvp()'s default */
	for (p = path; ; p = end + 1) {
		int len;

		end = strchr(p, ':');
		len = end ? (int)(end - p) : (int)strlen(p);
		/* an empty entry is the current directory */
		snprintf(file, sizeof(file), "%.*s%s%s", len, p, len ? "/" : "", word);
		if (!stat(file, &st) && S_ISREG(st.st_mode) && !access(file, X_OK))
			return 1;
		if (!end)
			return 0;
	}
}

static void parse_opts(int argc, char **argv, struct opts *o)
{
	enum { O_EXCL_USER = 256, O_EXCL_KERNEL, O_CGROUPS, O_CHUNK, O_QUEUE, O_CODEC,
	       O_KALLSYMS, O_NOSB, O_FTRACE, O_LEVEL, O_ENCODING, O_BPFOUT, O_FLUSH, O_ROTATE, O_MAXF, O_FLIGHT, O_FLSIZE,
	       O_BPF = 512 };
	static const struct option lopts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "freq", required_argument, NULL, 'F' },
		{ "call-graph", optional_argument, NULL, 'g' },
		{ "exclude-user", no_argument, NULL, O_EXCL_USER },
		{ "exclude-kernel", no_argument, NULL, O_EXCL_KERNEL },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' },
		{ "cgroups", required_argument, NULL, O_CGROUPS },
		{ "output", required_argument, NULL, 'o' },
		{ "duration", required_argument, NULL, 'd' },
		{ "mmap-pages", required_argument, NULL, 'm' },
		{ "chunk-size", required_argument, NULL, O_CHUNK },
		{ "queue", required_argument, NULL, O_QUEUE },
		{ "flush-interval", required_argument, NULL, O_FLUSH },
		{ "codec", required_argument, NULL, O_CODEC },
		{ "compress", no_argument, NULL, 'z' },
		{ "compression-level", required_argument, NULL, O_LEVEL },
		{ "encoding", required_argument, NULL, O_ENCODING },
		{ "realtime", required_argument, NULL, 'r' },
		PP_BPF_FILTER_LONG_OPTIONS(O_BPF),
		{ "kallsyms", required_argument, NULL, O_KALLSYMS },
		{ "bpf-output", required_argument, NULL, O_BPFOUT },
		{ "no-sideband", no_argument, NULL, O_NOSB },
		{ "ftrace", no_argument, NULL, O_FTRACE },
		{ "rotate", required_argument, NULL, O_ROTATE },
		{ "max-files", required_argument, NULL, O_MAXF },
		{ "flight-recorder", required_argument, NULL, O_FLIGHT },
		{ "flight-size", required_argument, NULL, O_FLSIZE },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	char err[512];
	size_t cl = 0;
	static const char shortopts[] = "+e:F:gaC:p:t:o:d:m:qvhVzr:";
	int c, i, z_chunk = 0, chunk_set = 0, flush_set = 0, pages_set = 0, pass2 = 0;

	o->output = "pp.trace";
	o->mmap_pages = 0;	/* by the CPUs recorded: ring_pages() */
	o->chunk_size = 256 << 10;
	o->queue = 32;
	o->flush_ms = 250;
	o->codec = PP_CODEC_LZ4;
	o->encoding = -1;
	o->rt_prio = -1;
	pp_bpf_filter_opts__init(&o->bpf);
	for (i = 0; i < argc; i++)
		cl += strlen(argv[i]) + 1;
	o->cmdline = calloc(1, cl + 1);
	for (i = 0; o->cmdline && i < argc; i++) {
		if (i)
			strcat(o->cmdline, " ");
		strcat(o->cmdline, argv[i]);
	}

parse:
	while ((c = getopt_long(argc, argv, shortopts, lopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			add_event_arg(o, optarg);
			break;
		case 'F':
			o->freq = (int)parse_long(optarg, "frequency", 1, 100000);
			break;
		case 'g': {
			/* perf's spellings: --call-graph=dwarf and --call-graph dwarf */
			const char *mode = optarg;
			char msg[128];

			if (!mode && optind < argc && !pp_call_graph_mode(argv[optind], NULL, NULL, 0))
				mode = argv[optind++];
			o->callgraph = 1;
			if (mode && pp_call_graph_mode(mode, &o->dwarf_stack, msg, sizeof(msg)))
				die_usage("%s", msg);
			break;
		}
		case O_EXCL_USER:
			o->exclude_user = 1;
			break;
		case O_EXCL_KERNEL:
			o->exclude_kernel = 1;
			break;
		case 'a':
			o->all_cpus = 1;
			break;
		case 'C':
			o->cpus = optarg;
			break;
		case 'p':
			o->pids = optarg;
			break;
		case 't':
			o->tids = optarg;
			break;
		case O_CGROUPS:
			o->cgroups = optarg;
			break;
		case 'o':
			if (!*optarg)
				die_usage("empty output file name");
			o->output = optarg;
			o->output_set = 1;
			break;
		case 'd':
			o->duration = parse_duration(optarg);
			break;
		case 'm':
			o->mmap_pages = (unsigned int)parse_long(optarg, "page count", 1, 1 << 20);
			if (o->mmap_pages & (o->mmap_pages - 1))
				die_usage("-m %s: the page count must be a power of two", optarg);
			pages_set = 1;
			break;
		case O_CHUNK:
			chunk_set = 1;
			o->chunk_size = parse_size(optarg);
			if (o->chunk_size < (64 << 10) || o->chunk_size > PP_CHUNK_MAX_RAW)
				die_usage("--chunk-size must be within 64K..16M");
			break;
		case O_QUEUE:
			o->queue = (int)parse_long(optarg, "queue length", 1, 4096);
			break;
		case O_FLUSH:
			o->flush_ms = (int)parse_long(optarg, "flush interval (ms)", 1, 3600000);
			flush_set = 1;
			break;
		case O_CODEC:
			if (!strcmp(optarg, "lz4"))
				o->codec = PP_CODEC_LZ4;
			else if (!strcmp(optarg, "zstd"))
				o->codec = PP_CODEC_ZSTD;
			else if (!strcmp(optarg, "none"))
				o->codec = PP_CODEC_NONE;
			else
				die_usage("unknown codec '%s' (lz4, zstd, none)", optarg);
			break;
		case 'z':
			o->codec = PP_CODEC_ZSTD;
			if (!o->level)
				o->level = 2;	/* spec/pp-record.md: why not higher */
			z_chunk = 1;
			break;
		case O_LEVEL:
			o->level = (int)parse_long(optarg, "compression level", 1, 19);
			break;
		case O_ENCODING:
			if (!strcmp(optarg, "cached"))
				o->encoding = PP_DATA_CACHED;
			else if (!strcmp(optarg, "fields"))
				o->encoding = PP_DATA_FIELDS;
			else if (!strcmp(optarg, "plain"))
				o->encoding = PP_DATA_PLAIN;
			else
				die_usage("unknown encoding '%s' (cached, fields, plain)", optarg);
			break;
		case 'r':
			o->rt_prio = (int)parse_long(optarg, "realtime priority", 0, 99);
			break;
		case O_BPF ... O_BPF + PP_BPF_OPT_NR - 1:
			if (pp_bpf_filter__parse_index(&o->bpf, c - O_BPF, optarg, err, sizeof(err)))
				die_usage("%s", err);
			break;
		case O_KALLSYMS:
			if (strcmp(optarg, "all"))
				die_usage("--kallsyms takes 'all'");
			o->kallsyms_all = 1;
			break;
		case O_BPFOUT:
			o->bpf_output = optarg;
			break;
		case O_NOSB:
			o->no_sideband = 1;
			break;
		case O_FTRACE:
			o->ftrace = 1;
			break;
		case O_ROTATE:
			if (pp_rotate_parse(optarg, &o->rotate_ns, &o->rotate_bytes))
				die_usage("bad --rotate '%s': a TIME of at least 100ms (30s, 10m, "
					  "1h) or a SIZE of at least 4K (64K, 100M, 1G)", optarg);
			break;
		case O_MAXF:
			o->max_files = (int)parse_long(optarg, "--max-files", 1, 1000000);
			break;
		case O_FLIGHT: {
			uint64_t b;

			if (pp_rotate_parse(optarg, &o->flight_ns, &b) || !o->flight_ns)
				die_usage("bad --flight-recorder '%s': a TIME of at least 100ms "
					  "(10s, 500ms, 2m)", optarg);
			break;
		}
		case O_FLSIZE: {
			uint64_t ns, b;

			if (pp_rotate_parse(optarg, &ns, &b) || !b)
				die_usage("bad --flight-size '%s': a SIZE (64M, 1G)", optarg);
			o->flight_size = (size_t)b;
			break;
		}
		case 'q':
			o->quiet = 1;
			break;
		case 'v':
			pp_bpf__set_verbose(3);	/* libbpf's messages, verifier logs */
			break;
		case 'h':
			fputs(usage_text, stdout);
			exit(0);
		case 'V':
			printf("pp-record %s\n", PP_VERSION);
			exit(0);
		default:
			fprintf(stderr, "pp-record: see pp-record --help\n");
			exit(EXIT_USAGE);
		}
	}
	/*
	 * The first word that is no option: after `--` a COMMAND; else a
	 * PROFILER when it names one, `help`, a COMMAND when it is one (a path,
	 * or a program in PATH), and anything else a mistyped profiler.
	 * pp-record's own options after the PROFILER get a second pass.
	 */
	if (pass2) {
		if (optind < argc)
			die_usage("unexpected argument '%s'", argv[optind]);
	} else if (optind < argc && strcmp(argv[optind - 1], "--") &&
		   pp_analyzer__find(argv[optind])) {
		char **rec = calloc((size_t)(argc - optind) + 2, sizeof(*rec));
		int np, nrec = 1;

		if (!rec)
			die_usage("out of memory");
		rec[0] = argv[0];
		np = 1 + split_record_words(pp_analyzer__find(argv[optind]), argc - optind - 1,
					    &argv[optind + 1], rec, &nrec, shortopts, lopts);
		record_profiler(o, np, &argv[optind]);
		optind = argc;
		if (nrec > 1) {
			argc = nrec;
			argv = rec;
			optind = 0;	/* glibc: start getopt afresh on the new vector */
			pass2 = 1;
			goto parse;
		}
	}
	if (z_chunk && !chunk_set)
		o->chunk_size = 1 << 20;
	/* Chunks of a second hold 4x the records of 250 ms ones: smaller files. */
	if (z_chunk && !flush_set)
		o->flush_ms = 1000;
	/*
	 * The record cache (encoding 1) with every codec: the drain encodes it
	 * as it reads (see enc_drain). Samples field by field (encoding 2) make
	 * zstd files a third smaller, but the writer encodes them from plain
	 * records the drain copied: -z cost twice the CPU per event, during
	 * the recording (spec/pp-record.md).
	 */
	if (o->encoding < 0)
		o->encoding = PP_DATA_CACHED;
	/* lz4 chunks take encoding 1, the field cache's faster twin: say so, not silently */
	if (o->encoding == PP_DATA_FIELDS && o->codec != PP_CODEC_ZSTD)
		die_usage("--encoding fields needs zstd (-z or --codec zstd); with lz4, use cached");
	if (optind < argc) {
		int dashdash = !strcmp(argv[optind - 1], "--");

		if (!dashdash && argc - optind == 1 && !strcmp(argv[optind], "help")) {
			if (!o->nr_specs) {	/* `pp-record help` */
				fputs(usage_text, stdout);
				exit(0);
			}
			o->help_events = 1;
		} else if (!dashdash && !is_command(argv[optind])) {
			fprintf(stderr, "pp-record: unknown profiler '%s' (see pp-analyze list)\n",
				argv[optind]);
			exit(EXIT_USAGE);
		} else {
			o->workload = &argv[optind];
		}
	}
	for (i = 0; i < o->nr_specs; i++)
		o->help_events |= o->specs[i].help;
	/*
	 * An aggregator alone has only the side-band in its ring buffers
	 * (FORK, EXIT, COMM, MMAP2: a few hundred bytes per process): a
	 * quarter of the default, whose pages cost a twentieth of its CPU.
	 */
	if (o->agg_kind && !o->nr_specs && !o->freq && !o->bpf_output && !pages_set)
		o->mmap_pages = 64;
	if (!o->nr_specs && !o->freq && !o->agg_kind && !o->bpf_output)
		die_usage("no events: give -e EVENT or -F HZ");
	if ((o->pids != NULL) + (o->tids != NULL) + (o->cgroups != NULL) > 1)
		die_usage("-p, -t and --cgroups exclude each other");
	if ((o->pids || o->tids) && o->workload)
		die_usage("-p/-t and a COMMAND exclude each other");
	if (o->exclude_user && o->exclude_kernel)
		die_usage("--exclude-user and --exclude-kernel together exclude everything");
	if (o->flight_ns && (o->rotate_ns || o->rotate_bytes))
		die_usage("--flight-recorder and --rotate exclude each other");
	if (o->max_files && !o->flight_ns && !o->rotate_ns && !o->rotate_bytes)
		die_usage("--max-files needs --rotate or --flight-recorder");
	if (o->flight_ns && o->agg_kind)
		die_usage("--flight-recorder keeps records: not with an in-kernel aggregator "
			  "(offcpu, lock)");
	if (o->flight_size && !o->flight_ns)
		die_usage("--flight-size needs --flight-recorder");
	if (!o->flight_size)
		o->flight_size = 256u << 20;
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

/* ---- chunk buffers, queue, writer thread ---- */

struct stream {
	uint32_t cpu;
	uint32_t id;		/* the chunks' stream: the CPU, PP_STREAM_FTRACE | CPU */
	uint8_t *buf;
	size_t len;		/* record bytes taken into buf (encoded or not) */
	struct pp_reccache_enc *enc;	/* records encoded as taken (rec.enc_drain) */
	uint64_t first_ts, last_ts, nr;
	uint64_t nr_ev;		/* of the nr records in buf, the events (samples) */
	uint64_t opened_ns;	/* monotonic time of the first record in buf */
	uint64_t lost_kernel;	/* PERF_RECORD_LOST */
	uint64_t lost_samples;	/* PERF_RECORD_LOST_SAMPLES */
	/* recorder drops not yet reported (under q.lock) */
	uint64_t drop_records, drop_bytes, drop_first, drop_last;
	uint64_t dropped_total;
	uint64_t unwritten;	/* records not written after a write error */
	/* --ftrace: buf holds a DATA encoding 3 payload (pp/ftpages.h) */
	int pages;
	uint32_t nr_pages;
	uint64_t dropped;	/* the kernel's drops, told by the chunk */
	int64_t clock_offset;	/* the chunk's: its pages' times + it = CLOCK_MONOTONIC */
};

struct qitem {
	uint8_t *buf;		/* the pool's buffer */
	uint8_t *data;		/* the payload: buf, or encoded inside it (desc.encoded) */
	size_t len;		/* its size */
	size_t plain;		/* the record bytes it holds */
	uint64_t nr_ev;		/* events (samples) in buf */
	struct pp_chunk_desc desc;
};

struct rec {
	struct opts *o;
	struct pp_evdescs es;
	struct pp_perf_evlist *el;
	struct pp_writer *w;
	struct pp_io *io;
	struct pp_syms *syms;
	int scan_syms;
	struct pp_unwind *unw;		/* --call-graph=dwarf: stacks unwound before written */
	struct pp_ksym_bpf *ksym;	/* kernel symbols one by one, loaded at first need */
	int ksym_tried, ksym_ok;
	struct stream *streams;
	int nr_streams;
	struct pp_ftrace *ft;	/* --ftrace: streams[nr_cpus + ci] are its CPUs' */
	size_t ft_cap;		/* bytes of an ftrace pages chunk */
	pthread_t *ft_readers;	/* a thread per ftrace ring (ft_reader_main()), or NULL */
	int ft_stop;		/* they stop (atomic) */
	int nr_ft_evsels;	/* the evsels ftrace reads */
	struct pp_ftpages *ft_dec;	/* the writer's: -z stores pages' records (ft_transcode()) */
	uint8_t *ft_rec;
	size_t ft_rec_cap;
	uint64_t *counts;	/* per evsel */

	pthread_mutex_t lock;
	sem_t wake;		/* the writer's wake-up: a post never waits (writer_wake()) */
	struct qitem *q;
	int qcap, qhead, qlen;
	int wake_qlen;		/* a full chunk wakes the writer when the queue holds this many */
	int boost_qlen;		/* the writer goes realtime when the queue holds this many */
	int writer_rt;		/* it is (writer_boost()) */
	int writer_idle;	/* zstd (-z): it compresses at SCHED_IDLE until boosted */
	int writer_active;	/* a thread owns r->w: the writer, or the drain (stream_flush()) */
	int write_inline;	/* the drain writes its timed flushes itself when it may */
	uint64_t drained_max;	/* the most bytes one ring held at the last drain */
	uint64_t inline_max;	/* ... up to which the drain may write (stream_flush()) */
	pthread_t writer;
	uint8_t **pool;
	int nr_pool;
	int stop_writer;
	int lost_pending;
	int fatal;		/* -errno from the writer */
	uint64_t unwritten_ev;	/* events recorded that a write error kept from the file (lock) */
	struct pp_rec_layout *layout;	/* sample time offsets for PP_DATA_CACHED */
	uint32_t nr_layout;
	uint32_t *time_off;		/* per evsel: the layout's time offset, 0 none */
	int enc_drain;			/* the drain encodes (see stream_add()) */
	size_t buf_size;		/* of a pool buffer */
	struct pp_bpf_filter *filter;	/* --irqs_disabled ... on every fd */
	struct pp_bpf_offcpu *offcpu;	/* pp-record offcpu */
	struct pp_bpf_lock *lockp;	/* pp-record lock */
	struct pp_bpf_mem *mem;		/* pp-record kmemleak|kmemprof --user --bpf */
	struct pp_bpf_output *bpfout;	/* --bpf-output */
	int agg_pending;		/* the writer should drain the aggregator */
	struct pp_rotate rot;		/* --rotate, --flight-recorder: the files */
	int rotating;			/* --rotate */
	int out_fd;			/* the current file (status line) */
	struct pp_flight *fl;		/* --flight-recorder */
	uint64_t fl_window;		/* its TIME */
	uint8_t *trigger;		/* per evsel: a sample asks for a dump */
	uint64_t trigger_ts;		/* drain: a trigger's time, for the main loop */
	uint64_t dump_ts;		/* a dump of up to this time for the writer (lock) */
	uint64_t last_dump_ts;		/* no new dump within the window after it */
	uint64_t dumps, dump_fail;
	int agg_busy;			/* the writer is draining it */
	uint64_t agg_items, agg_windows;
	uint64_t stepped_down;		/* chunks compressed faster to keep up */
	uint64_t data_raw, data_stored, data_chunks;
	const char *target_pids, *target_tids;	/* widened recording: MACHINE keys */
};

static volatile sig_atomic_t got_stop, got_chld;

static void on_stop(int sig)
{
	got_stop = sig;
}

static void on_chld(int sig)
{
	got_chld = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* --flight-recorder: SIGUSR2 asks for a dump of what came before it */
static volatile sig_atomic_t got_usr2;
static volatile uint64_t usr2_ns;

static void on_usr2(int sig)
{
	usr2_ns = now_ns();	/* clock_gettime is async-signal-safe */
	got_usr2 = sig;
}

/* pp_syms' source of kernel symbols: BPF when it loads, else -ENOSYS (kallsyms). */
static int ksym_text(void *ctx, uint64_t addr, char *text, size_t len)
{
	struct rec *r = ctx;
	int ret;

	if (!r->ksym_tried) {
		r->ksym_tried = 1;
		/* an aggregator's object carries the program: no second load */
		r->ksym = r->offcpu ? pp_bpf_offcpu__ksym(r->offcpu) :
			  r->lockp ? pp_bpf_lock__ksym(r->lockp) : NULL;
		if (!r->ksym)
			r->ksym = pp_ksym_bpf__new();
	}
	if (!r->ksym)
		return -ENOSYS;
	ret = pp_ksym_bpf__lookup(r->ksym, addr, text, len);
	if (ret && !r->ksym_ok) {
		/* loads but cannot run here: /proc/kallsyms instead */
		pp_ksym_bpf__free(r->ksym);
		r->ksym = NULL;
		return -ENOSYS;
	}
	r->ksym_ok |= !ret;
	return ret;
}

static uint64_t sample_type_of(uint64_t id, void *ctx)
{
	struct rec *r = ctx;
	int ei = pp_perf_evlist__find_id(r->el, id);

	return ei < 0 ? 0 : r->el->evsels[ei].attr.sample_type;
}

#define META_ZSTD_MIN	16384	/* metadata chunks from this size on: zstd */

/*
 * Metadata is written once and read once: from META_ZSTD_MIN on, with the
 * default lz4, it is compressed with zstd level 3, which stores the /proc
 * snapshot in about half what lz4 leaves. Below it, setting up a zstd
 * context (0.7 ms) costs more than the few hundred bytes it would save.
 */
static void write_meta(struct rec *r, uint16_t type, struct pp_buf *b)
{
	struct pp_chunk_desc d = { .type = type, .stream = PP_STREAM_META };
	uint8_t *out = NULL;
	size_t out_len = 0;
	int err;

	if (!b->len || r->fatal || !r->w)	/* no file: the flight recorder */
		return;
	if (b->error) {
		r->fatal = b->error;
		return;
	}
	if (b->len < META_ZSTD_MIN || r->o->codec != PP_CODEC_LZ4) {
		err = pp_writer__append_chunk(r->w, &d, b->data, b->len);
	} else {
		err = pp_writer__compress(PP_CODEC_ZSTD, 3, &d, b->data, b->len, &out, &out_len);
		if (!err)
			err = pp_writer__append_prepared(r->w, out, out_len, 0);
		free(out);
	}
	if (err)
		r->fatal = err;
}

static void write_lost(struct rec *r)
{
	struct pp_buf b;
	int i;

	pp_buf__init(&b);
	pthread_mutex_lock(&r->lock);
	for (i = 0; i < r->nr_streams; i++) {
		struct stream *s = &r->streams[i];
		struct pp_lost_item it = { 0 };
		size_t at;

		if (!s->drop_records && !s->drop_bytes)
			continue;
		it.stream = s->cpu;
		it.reason = 2;
		it.first_ts = s->drop_first;
		it.last_ts = s->drop_last;
		it.count = s->drop_records;
		it.bytes = s->drop_bytes;
		s->drop_records = s->drop_bytes = s->drop_first = s->drop_last = 0;
		at = pp_item__begin(&b, 0);
		pp_buf__append(&b, &it, sizeof(it));
		pp_item__end(&b, at);
	}
	r->lost_pending = 0;
	pthread_mutex_unlock(&r->lock);
	if (b.len && r->fl) {
		pp_flight__lost(r->fl, b.data, b.len);	/* in every later dump */
	} else if (b.len && !r->fatal) {
		struct pp_chunk_desc d = { .type = PP_CHUNK_LOST, .stream = PP_STREAM_META };
		int err = pp_writer__append_chunk(r->w, &d, b.data, b.len);

		if (err)
			r->fatal = err;
	}
	pp_buf__exit(&b);
}

static void write_syms(struct rec *r)
{
	struct pp_buf k, u, m;

	pp_buf__init(&k);
	pp_buf__init(&u);
	pp_buf__init(&m);
	pp_syms__pending(r->syms, &k, &u, &m);
	write_meta(r, PP_CHUNK_MMAPS, &m);
	write_meta(r, PP_CHUNK_KSYMS, &k);
	write_meta(r, PP_CHUNK_USYMS, &u);
	pp_buf__exit(&k);
	pp_buf__exit(&u);
	pp_buf__exit(&m);
}

/*
 * Where the time of each event's samples lies, so the cached encoding can
 * store times as deltas: after the header, IDENTIFIER, then IP and TID
 * when present (perf_event_open(2) sample layout).
 */
static void build_layout(struct rec *r)
{
	size_t n = 0;
	int ei, k;

	for (ei = 0; ei < r->el->nr_evsels; ei++)
		n += (size_t)r->el->evsels[ei].nr_ids;
	r->layout = calloc(n ? n : 1, sizeof(*r->layout));
	r->time_off = calloc((size_t)r->el->nr_evsels + 1, sizeof(*r->time_off));
	if (!r->layout || !r->time_off)
		die("out of memory");
	for (ei = 0; ei < r->el->nr_evsels; ei++) {
		const struct pp_perf_evsel *e = &r->el->evsels[ei];
		uint64_t st = e->attr.sample_type;
		uint32_t off = 16;

		if (!(st & PERF_SAMPLE_TIME) || !(st & PERF_SAMPLE_IDENTIFIER))
			continue;
		off += st & PERF_SAMPLE_IP ? 8 : 0;
		off += st & PERF_SAMPLE_TID ? 8 : 0;
		r->time_off[ei] = off;
		for (k = 0; k < e->nr_ids; k++) {
			if (!e->ids[k])
				continue;
			r->layout[r->nr_layout].id = e->ids[k];
			r->layout[r->nr_layout++].time_off = off;
		}
	}
}

/*
 * Under a storm of wake-ups the drain thread competes with every busy task
 * for the CPU, and a ring fills before it runs (perf loses events there).
 * At SCHED_FIFO it runs as soon as the watermark wakes it; it only copies
 * or encodes (stream_add()).
 */
static int set_realtime(const struct opts *o)
{
	int prio = o->rt_prio < 0 ? 1 : o->rt_prio;
	struct sched_param sp = { .sched_priority = prio + 1 };
	int err;

	if (!o->rt_prio)
		return 0;
	err = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	if (err && o->rt_prio > 0)
		fprintf(stderr, "pp-record: cannot record at realtime priority %d: %s\n",
			o->rt_prio, strerror(err));
	return !err;
}

/*
 * The writer thread (compression) runs at its base policy while it keeps
 * up, and at SCHED_FIFO one below the drain (which it never delays) from
 * when r->boost_qlen chunks wait until its queue is empty again: a writer
 * starved by a busy host would fill the queue and make the drain drop
 * chunks, but a realtime writer compressing a 1 MiB zstd chunk holds its
 * CPU for milliseconds, which delayed the sched benchmark by 5% (15 rounds
 * of -z). Its base policy is SCHED_OTHER, and SCHED_IDLE with zstd
 * (r->writer_idle, -z): zstd then runs on CPU time no task wants, as
 * trace-cmd's compression runs after its recording, until a backlog of
 * r->boost_qlen chunks. Called with r->lock held, by the drain to raise it
 * and by the writer to lower it.
 */
static void writer_boost(struct rec *r, int on)
{
	struct sched_param sp = { .sched_priority = 0 };

	if (!r->o->rt_prio || r->writer_rt == on)
		return;
	r->writer_rt = on;
	if (on)
		sp.sched_priority = r->o->rt_prio < 0 ? 1 : r->o->rt_prio;
	pthread_setschedparam(r->writer, on ? SCHED_FIFO : r->writer_idle ? SCHED_IDLE : SCHED_OTHER,
			      &sp);
}

/*
 * Wake the writer. A semaphore, not a condition variable: the drain posts
 * at realtime priority to a writer that may run at SCHED_IDLE, and glibc's
 * pthread_cond_signal() can wait for a waiter that was preempted inside
 * pthread_cond_wait() - behind every busy task, while the rings fill. The
 * lock the two share inherits priority; sem_post() never waits.
 */
static void writer_wake(struct rec *r)
{
	sem_post(&r->wake);
}

/*
 * Move what the BPF aggregator (offcpu, lock) summed in the kernel into the
 * file: new processes' TASKS/MMAPS first, then the BPF_AGG chunk, then the
 * symbols its stacks hit. Runs on the writer thread, like every append.
 */
static void write_agg(struct rec *r)
{
	struct pp_buf p, t, m;
	uint64_t first = 0, last = 0;
	int n;

	pp_buf__init(&p);
	pp_buf__init(&t);
	pp_buf__init(&m);
	if (r->offcpu)
		n = pp_bpf_offcpu__drain(r->offcpu, &p, &first, &last, r->syms, &t, &m);
	else if (r->lockp)
		n = pp_bpf_lock__drain(r->lockp, &p, &first, &last, r->syms, &t, &m);
	else
		n = pp_bpf_mem__drain(r->mem, &p, &first, &last, r->syms, &t, &m);
	write_meta(r, PP_CHUNK_TASKS, &t);
	write_meta(r, PP_CHUNK_MMAPS, &m);
	if (n >= 0 && p.len && !r->fatal) {
		struct pp_chunk_desc d = { .type = PP_CHUNK_BPF_AGG, .stream = PP_STREAM_META,
					   .first_ts = first, .last_ts = last };
		int err = pp_writer__append_chunk(r->w, &d, p.data, p.len);

		if (err)
			r->fatal = err;
		r->agg_items += (uint64_t)n;
		r->agg_windows++;
	} else if (n < 0 && !r->fatal) {
		fprintf(stderr, "pp-record: reading the BPF aggregate: %s\n", strerror(-n));
	}
	write_syms(r);
	pp_buf__exit(&p);
	pp_buf__exit(&t);
	pp_buf__exit(&m);
}

/*
 * Close the aggregator's window (pp_bpf_offcpu__flip) unless the writer
 * still has one to drain or is draining it. Return: whether it was closed.
 */
static int agg_close(struct rec *r)
{
	int ok;

	pthread_mutex_lock(&r->lock);
	ok = !r->agg_pending && !r->agg_busy;
	pthread_mutex_unlock(&r->lock);
	if (!ok)
		return 0;
	if (r->offcpu)
		pp_bpf_offcpu__flip(r->offcpu);
	else if (r->lockp)
		pp_bpf_lock__flip(r->lockp);
	else
		pp_bpf_mem__flip(r->mem);
	return 1;
}

/*
 * The BPF parts: the filter program on every event fd (not the side-band
 * dummy, which has no samples), and the offcpu/lock aggregator of
 * `pp-record offcpu|lock`, limited to the workload or -p process.
 */
/*
 * --bpf-output SRC: open the BPF program (its BTF goes into FORMATS) and a
 * PERF_COUNT_SW_BPF_OUTPUT event per CPU for it to write into; the program
 * is loaded and pointed at those events in attach_bpf().
 */
static void add_bpf_output(struct rec *r)
{
	const struct opts *o = r->o;
	struct pp_evdesc *e;
	char err[512];

	if (o->pids || o->tids || o->cgroups || !(o->all_cpus || o->cpus))
		die_usage("--bpf-output records system-wide: give -a or -C, not -p/-t/--cgroups");
	r->bpfout = pp_bpf_output__new(o->bpf_output, err, sizeof(err));
	if (!r->bpfout)
		die("%s", err);
	e = pp_evdescs__add(&r->es, pp_bpf_output__event_name(r->bpfout));
	if (!e)
		die("out of memory");
	e->attr.type = PERF_TYPE_SOFTWARE;
	e->attr.config = PERF_COUNT_SW_BPF_OUTPUT;
	e->attr.sample_type |= PERF_SAMPLE_RAW;
	e->attr.sample_period = 1;
}

static void attach_bpf_output(struct rec *r)
{
	const char *name = pp_bpf_output__event_name(r->bpfout);
	char err[512];
	int ei;

	for (ei = 0; ei < r->el->nr_evsels; ei++) {
		const struct pp_perf_evsel *e = &r->el->evsels[ei];

		if (strcmp(e->name, name))
			continue;
		if (pp_bpf_output__attach(r->bpfout, r->el->cpus, e->fds, r->el->nr_cpus, err,
					  sizeof(err)))
			die("%s", err);
		return;
	}
}

/*
 * @child: the workload, else @procs (@nr_procs): the -p processes, all of
 * which the aggregator follows.
 */
static void attach_bpf(struct rec *r, pid_t child, const pid_t *procs, int nr_procs)
{
	const struct opts *o = r->o;
	char err[512];
	int ei, k;

	if (r->bpfout)
		attach_bpf_output(r);

	if (pp_bpf_filter_opts__active(&o->bpf)) {
		r->filter = pp_bpf_filter__new(&o->bpf, err, sizeof(err));
		if (!r->filter)
			die("%s", err);
		for (ei = 0; ei < r->el->nr_evsels; ei++) {
			const struct pp_perf_evsel *e = &r->el->evsels[ei];

			if (e->attr.type == PERF_TYPE_SOFTWARE &&
			    (e->attr.config == PERF_COUNT_SW_DUMMY ||
			     e->attr.config == PERF_COUNT_SW_BPF_OUTPUT))
				continue;
			for (k = 0; k < e->nr_ids; k++)
				if (e->fds[k] >= 0 &&
				    pp_bpf_filter__attach(r->filter, e->fds[k], e->attr.type, err,
							  sizeof(err)))
					die("%s: %s", e->name, err);
		}
	}
	if (o->agg_kind == PP_AGG_OFFCPU) {
		struct pp_bpf_offcpu_opts oo = { .pid = child > 0 ? child : 0, .pids = procs,
						 .nr_pids = nr_procs };

		r->offcpu = pp_bpf_offcpu__new(&oo, err, sizeof(err));
		if (!r->offcpu)
			die("offcpu: %s", err);
	} else if (o->agg_kind == PP_AGG_LOCK) {
		struct pp_bpf_lock_opts lo = { .pid = child > 0 ? child : 0, .pids = procs,
					       .nr_pids = nr_procs };

		r->lockp = pp_bpf_lock__new(&lo, err, sizeof(err));
		if (!r->lockp)
			die("lock: %s", err);
	} else if (o->agg_kind == PP_AGG_MEM) {
		struct pp_bpf_mem_opts mo = { .pid = child > 0 ? child : 0, .pids = procs,
					      .nr_pids = nr_procs, .libc = o->agg_path, .track = 1 };

		r->mem = pp_bpf_mem__new(&mo, err, sizeof(err));
		if (!r->mem)
			die("%s --bpf: %s", o->profiler, err);
	}
}

/* --rotate: close the file (index, footer) and go on in a new one that stands alone. */
static void rotate_file(struct rec *r)
{
	char name[PATH_MAX], err[PATH_MAX + 128];
	int e = pp_writer__close(r->w);

	pp_io__free(r->io);
	pp_syms__free(r->syms);
	r->w = NULL;
	r->io = NULL;
	r->syms = NULL;
	r->out_fd = -1;
	if (!e)
		e = pp_rotate__start(&r->rot, now_ns(), &r->io, &r->w, &r->syms, name, sizeof(name),
				     err, sizeof(err));
	else
		snprintf(err, sizeof(err), "cannot complete %s: %s",
			 r->rot.names[r->rot.nr_names - 1], strerror(-e));
	if (e) {
		fprintf(stderr, "pp-record: %s\n", err);
		r->fatal = e;
		return;
	}
	r->out_fd = r->rot.fd;
}

/* --flight-recorder: the records up to @t into a new file. */
static void flight_dump(struct rec *r, uint64_t t)
{
	char name[PATH_MAX], err[PATH_MAX + 128];
	uint64_t nr;
	int e = pp_flight__dump(r->fl, t, &r->rot, now_ns(), sample_type_of, r, name, sizeof(name),
				&nr, err, sizeof(err));

	if (e) {
		fprintf(stderr, "pp-record: flight recorder: %s\n", err);
		r->dump_fail++;
		return;
	}
	r->dumps++;
	if (!r->o->quiet)
		fprintf(stderr, "%spp-record: flight recorder: %llu records of the last %.3g s "
			"written to %s\n", isatty(STDERR_FILENO) && !r->o->quiet ? "\r" : "",
			(unsigned long long)nr, (double)r->fl_window / 1e9, name);
}

/*
 * With zstd, a chunk of ftrace pages is stored as the records its pages
 * hold, in the chunk's encoding (the record cache by default), not as the
 * pages: a fifth of the bytes on getppid events, and the idle writer
 * (writer_boost()) pays for the decoding where the reader threads did no
 * work per event. A chunk stepped down to lz4 keeps its pages. Return: 0,
 * or -errno with @it as it was (the pages are stored).
 */
static int ft_transcode(struct rec *r, struct qitem *it)
{
	size_t n = 0, off;
	uint32_t nr = 0;
	int err;

	if (!r->ft_dec && !(r->ft_dec = pp_ftpages__new()))
		return -ENOMEM;
	err = pp_ftpages__decode(r->ft_dec, it->data, it->len, &r->ft_rec, &r->ft_rec_cap, &n,
				 PP_CHUNK_MAX_RAW, it->desc.last_ts, NULL, NULL);
	if (err)
		return err;
	for (off = 0; off + sizeof(struct perf_event_header) <= n; nr++)
		off += ((const struct perf_event_header *)(r->ft_rec + off))->size;
	it->data = r->ft_rec;
	it->len = n;
	it->desc.encoding = (uint8_t)r->o->encoding;
	it->desc.encoded = 0;
	it->desc.nr_records = nr;
	return 0;
}

/*
 * Append the chunk of @it to the file (or the flight recorder), compressed;
 * @backlog: chunks waiting behind it. Runs on the thread that owns the
 * file writer (r->writer_active): the writer thread, or the drain for a
 * chunk it writes itself (stream_flush()).
 * Return: the events of @it that did not reach the file.
 */
static uint64_t write_item(struct rec *r, struct qitem *it, int backlog)
{
	uint64_t lost_ev = it->nr_ev;	/* until the chunk is in the file */

	if ((r->fl || r->rotating) && it->desc.encoding != PP_DATA_FTRACE)
		pp_rotate__sideband(&r->rot, it->buf, it->len);
	if (r->fl) {
		if (!pp_flight__add(r->fl, &it->desc, it->buf, it->len))
			lost_ev = 0;
	} else if (r->rotating && !r->fatal &&
		   pp_rotate__due(&r->rot, now_ns(), pp_writer__bytes(r->w))) {
		rotate_file(r);
	}
	if (!r->fatal && !r->fl) {
		uint8_t *out = NULL;
		size_t out_len = 0;
		uint64_t seq = pp_writer__chunks(r->w);
		int err;

		uint8_t codec = (uint8_t)r->o->codec;
		int level = r->o->level;

		/* the maps first, then each stack unwound in place */
		if (r->unw && it->desc.encoding != PP_DATA_FTRACE)
			pp_syms__scan_unwind(r->syms, r->unw, it->buf, &it->len, sample_type_of, r);

		/*
		 * Compression must never cost events: when chunks wait, a slow
		 * zstd level steps down to the fastest one, and far behind to
		 * lz4 (the codec is per chunk), before the queue fills. An
		 * idle writer's backlog is expected: it steps down past the
		 * half of the queue where it is boosted.
		 */
		if (codec == PP_CODEC_ZSTD &&
		    backlog * 8 >= r->qcap * (r->writer_idle ? 5 : 2))
			level = 1;
		if (codec == PP_CODEC_ZSTD &&
		    backlog * 4 >= r->qcap * (r->writer_idle ? 3 : 2))
			codec = PP_CODEC_LZ4;
		if (codec == PP_CODEC_LZ4 && it->desc.encoding == PP_DATA_FIELDS)
			it->desc.encoding = PP_DATA_CACHED;	/* lz4's faster one */
		if (codec != r->o->codec || level != r->o->level)
			r->stepped_down++;
		if (codec == PP_CODEC_ZSTD && it->desc.encoding == PP_DATA_FTRACE)
			ft_transcode(r, it);
		err = pp_writer__compress(codec, level, &it->desc, it->data, it->len,
					  &out, &out_len);
		if (!err)
			err = pp_writer__append_prepared(r->w, out, out_len,
							 it->desc.nr_records);
		/* an error may come from the index after it: the chunk is in */
		if (pp_writer__chunks(r->w) > seq)
			lost_ev = 0;
		free(out);
		if (err)
			r->fatal = err;
		r->data_raw += it->desc.encoded ? it->plain : it->len;	/* unwound */
		r->data_stored += out_len;
		r->data_chunks++;
		if (!err && r->scan_syms && !r->unw && it->desc.encoding != PP_DATA_FTRACE) {
			pp_syms__scan(r->syms, it->data, it->len, sample_type_of, r);	/* records */
			write_syms(r);
		} else if (!err && r->unw) {
			write_syms(r);
		}
	}
	return lost_ev;
}

static void *writer_main(void *arg)
{
	struct rec *r = arg;

	for (;;) {
		struct qitem it;
		uint64_t lost_ev = 0, dump;
		int lost, agg, backlog;

		pthread_mutex_lock(&r->lock);
		/* the drain may be writing a chunk itself: it wakes us after */
		while (r->writer_active ||
		       (!r->qlen && !r->stop_writer && !r->lost_pending && !r->agg_pending &&
			!r->dump_ts)) {
			pthread_mutex_unlock(&r->lock);
			while (sem_wait(&r->wake) && errno == EINTR)
				;
			pthread_mutex_lock(&r->lock);
		}
		/* a closed window is drained before the end: the main thread takes the rest */
		if (!r->qlen && r->stop_writer && !r->lost_pending && !r->agg_pending &&
		    !r->dump_ts) {
			pthread_mutex_unlock(&r->lock);
			break;
		}
		r->writer_active = 1;
		lost = r->lost_pending;
		/* the aggregate after the data queued before it (see the main loop) */
		agg = r->agg_pending && !r->qlen;
		if (agg) {
			r->agg_pending = 0;
			r->agg_busy = 1;
		}
		/* a dump after the data queued before it, like the aggregate */
		dump = r->qlen ? 0 : r->dump_ts;
		r->dump_ts = dump ? 0 : r->dump_ts;
		it.buf = NULL;
		if (r->qlen) {
			it = r->q[r->qhead];
			r->qhead = (r->qhead + 1) % r->qcap;
			r->qlen--;
		}
		backlog = r->qlen;
		if (!backlog && !r->stop_writer)
			writer_boost(r, 0);
		pthread_mutex_unlock(&r->lock);

		if (lost)
			write_lost(r);
		if (agg) {
			write_agg(r);
			pthread_mutex_lock(&r->lock);
			r->agg_busy = 0;
			pthread_mutex_unlock(&r->lock);
		}
		if (dump)
			flight_dump(r, dump);
		if (it.buf)
			lost_ev = write_item(r, &it, backlog);
		pthread_mutex_lock(&r->lock);
		if (it.buf)
			r->pool[r->nr_pool++] = it.buf;
		r->unwritten_ev += lost_ev;
		r->writer_active = 0;
		pthread_mutex_unlock(&r->lock);
	}
	return NULL;
}

/*
 * Whether a buffer is free, allocated at its first use: a recording whose
 * data fits in a few chunks at a time (an aggregator's side-band) never
 * pays for the whole pool. Called with r->lock held.
 */
static int pool_ready(struct rec *r)
{
	uint8_t **b;

	if (!r->nr_pool)
		return 0;
	b = &r->pool[r->nr_pool - 1];
	return *b || (*b = malloc(r->buf_size));
}

/*
 * The default ring: 2 MiB per CPU, woken (r.el->watermark) when half full.
 * A drain takes 1 MiB a CPU per wake-up with 1 MiB left before a loss,
 * where a 1 MiB ring woken at a quarter took 256 KiB with 768 KiB left:
 * the wake-ups, each to cold caches, cost a tenth of the recorder's CPU on
 * the sched benchmark. Beyond 64 CPUs, 1 MiB each (kernel memory: perf's
 * default is 512 KiB).
 */
static unsigned int ring_pages(int nr_cpus)
{
	return nr_cpus <= 64 ? (2u << 20) / (unsigned int)sysconf(_SC_PAGESIZE) :
			       (1u << 20) / (unsigned int)sysconf(_SC_PAGESIZE);
}

/* Start @s's next chunk in its buffer. */
static void stream_begin(struct rec *r, struct stream *s)
{
	if (s->enc)
		pp_reccache_enc__start(s->enc, s->buf, r->o->chunk_size, r->layout, r->nr_layout);
}

/*
 * Hand a stream's buffer to the writer; drop it (counted) if no buffer is
 * free. A full chunk (@wake 0) wakes the writer only once the queue holds
 * r->wake_qlen chunks; a flush, a drop and anything else the writer must do
 * now wake it at once. A flush (@wake 1) the writer has nothing before is
 * written by the caller itself with r->write_inline.
 */
static void stream_flush(struct rec *r, struct stream *s, int wake)
{
	struct qitem it = { .buf = s->buf, .data = s->buf, .len = s->len, .plain = s->len,
			    .nr_ev = s->nr_ev };

	if (!s->len)
		return;
	if (s->enc) {
		it.len = pp_reccache_enc__finish(s->enc, &it.data);
		it.desc.encoded = 1;
	}
	if (s->pages) {	/* the header's counts, known now */
		pp_put_le32(s->buf + 12, s->nr_pages);
		pp_put_le64(s->buf + 16, s->dropped);
		it.desc.encoded = 1;
	}
	it.desc.type = PP_CHUNK_DATA;
	it.desc.flags = PP_CHUNK_CRITICAL;
	it.desc.stream = s->id;
	it.desc.first_ts = s->first_ts;
	it.desc.last_ts = s->last_ts;
	it.desc.nr_records = s->nr;
	it.desc.encoding = s->pages ? PP_DATA_FTRACE : (uint8_t)r->o->encoding;
	it.desc.layout = r->layout;
	it.desc.nr_layout = r->nr_layout;
	pthread_mutex_lock(&r->lock);
	if (wake && r->write_inline && !r->qlen && !r->writer_active && !r->lost_pending &&
	    !r->fatal && r->drained_max <= r->inline_max) {
		/*
		 * A timed flush while the writer sleeps with nothing queued:
		 * written here, where the chunk was just encoded and is in
		 * this CPU's cache, and the writer is not woken - at idle,
		 * its wake-up was two fifths of the recorder's CPU. Only
		 * while the rings fill slowly: a write() can sleep (dirty
		 * page throttling pauses a task up to 200 ms), and the rings
		 * must hold what comes meanwhile.
		 */
		uint64_t lost_ev;

		r->writer_active = 1;
		pthread_mutex_unlock(&r->lock);
		lost_ev = write_item(r, &it, 0);
		pthread_mutex_lock(&r->lock);
		r->writer_active = 0;
		r->unwritten_ev += lost_ev;
		wake = r->qlen || r->stop_writer || r->lost_pending || r->agg_pending ||
		       r->dump_ts;
	} else if (pool_ready(r) && r->qlen < r->qcap && !r->fatal) {
		r->q[(r->qhead + r->qlen) % r->qcap] = it;
		r->qlen++;
		s->buf = r->pool[--r->nr_pool];
	} else if (r->fatal) {
		s->unwritten += s->nr;	/* the file cannot take more */
		r->unwritten_ev += s->nr_ev;
		wake = 1;
	} else {
		if (!s->drop_records)
			s->drop_first = s->first_ts;
		s->drop_last = s->last_ts;
		s->drop_records += s->nr;
		s->drop_bytes += s->len;
		s->dropped_total += s->nr;
		r->lost_pending = 1;
		wake = 1;
	}
	if (r->qlen >= r->boost_qlen || r->lost_pending)
		writer_boost(r, 1);
	if (wake || r->qlen >= r->wake_qlen)
		writer_wake(r);
	pthread_mutex_unlock(&r->lock);
	s->len = 0;
	s->nr = 0;
	s->nr_ev = 0;
	s->nr_pages = 0;
	s->dropped = 0;
	s->first_ts = s->last_ts = 0;
	stream_begin(r, s);
}

/*
 * Take record @h of event @ei (-1: none known) into @s; @has_t: it carries
 * time @t.
 */
static inline void stream_take(struct rec *r, struct stream *s,
			       const struct perf_event_header *h, uint64_t now, int ei,
			       uint64_t t, int has_t)
{
	if (s->len + h->size > r->o->chunk_size)
		stream_flush(r, s, 0);
	if (!s->len)
		s->opened_ns = now;
	if (s->enc)
		pp_reccache_enc__add(s->enc, h, h->size,
				     h->type == PERF_RECORD_SAMPLE && ei >= 0 ? r->time_off[ei] : 0);
	else
		memcpy(s->buf + s->len, h, h->size);
	s->len += h->size;
	s->nr++;

	if (has_t) {
		if (!s->first_ts)
			s->first_ts = t;
		s->last_ts = t;
	}
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		if (ei >= 0) {
			r->counts[ei]++;
			s->nr_ev++;
			if (r->trigger && r->trigger[ei] && !r->trigger_ts)
				r->trigger_ts = t ? t : now_ns();
		}
		break;
	case PERF_RECORD_LOST:
		if (h->size >= 24) {
			uint64_t lost;

			memcpy(&lost, (const uint8_t *)h + 16, 8);
			s->lost_kernel += lost;
		}
		break;
	case PERF_RECORD_LOST_SAMPLES:
		if (h->size >= 16) {
			uint64_t lost;

			memcpy(&lost, (const uint8_t *)h + 8, 8);
			s->lost_samples += lost;
		}
		break;
	}
}

static inline void stream_add(struct rec *r, struct stream *s,
			      const struct perf_event_header *h, uint64_t now)
{
	int ei = pp_perf_evlist__find_id(r->el, pp_sample__id(h, h->size));
	uint64_t t = 0;
	int has_t = ei >= 0 && !pp_sample__time(r->el->evsels[ei].attr.sample_type, h, h->size,
						&t);

	stream_take(r, s, h, now, ei, t, has_t);	/* t read after it is set */
}

struct ft_ctx {
	struct rec *r;
	struct stream *s;
	int ci;
};

/* Start @s's ftrace pages payload: its header and its CPU's event types. */
static void ft_begin(struct rec *r, struct stream *s, int ci)
{
	int nt = pp_ftrace__nr_types(r->ft);
	struct pp_ftpage_type t[nt ? nt : 1];
	struct pp_ftpage_chunk c = {
		.cpu = s->cpu, .page_size = (uint32_t)pp_ftrace__page_size(r->ft),
		.nr_types = (uint16_t)pp_ftrace__types(r->ft, ci, t),
		.long_size = sizeof(long), .big_endian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__,
		.clock_offset = pp_ftrace__clock_offset(r->ft),
	};

	s->clock_offset = c.clock_offset;
	s->len = pp_ftpages__put_header(s->buf, &c, t);
	s->opened_ns = now_ns();
}

/* Where the next page of an ftrace stream is read to: in its chunk, as stored. */
static uint8_t *ft_slot(void *ctx)
{
	struct ft_ctx *c = ctx;
	struct stream *s = c->s;

	if (s->len && s->len + PP_FTPAGE_PAGE_HDR + pp_ftrace__page_size(c->r->ft) > c->r->ft_cap)
		stream_flush(c->r, s, 0);
	if (!s->len)
		ft_begin(c->r, s, c->ci);
	return s->buf + s->len + PP_FTPAGE_PAGE_HDR;
}

/*
 * A page of @len bytes was read to ft_slot(), its first event at @ts or
 * after: the chunk's times are bounds, the first page's and now.
 */
static void ft_done(void *ctx, size_t len, uint64_t ts)
{
	struct stream *s = ((struct ft_ctx *)ctx)->s;
	size_t pad = ((len + 7) & ~(size_t)7) - len;

	pp_put_le32(s->buf + s->len, (uint32_t)len);
	pp_put_le32(s->buf + s->len + 4, 0);
	memset(s->buf + s->len + PP_FTPAGE_PAGE_HDR + len, 0, pad);
	s->len += PP_FTPAGE_PAGE_HDR + len + pad;
	s->nr_pages++;
	s->nr++;	/* a page is this stream's record (what a drop counts) */
	if (!s->first_ts)
		s->first_ts = ts + (uint64_t)s->clock_offset;
	s->last_ts = now_ns();
}

/* Take what the rings hold into the streams; @final: the events are off. */
static void drain_all(struct rec *r, int final)
{
	uint64_t now = now_ns(), max = 0;
	int ci;

	for (ci = 0; ci < r->el->nr_cpus; ci++) {
		struct pp_perf_ring *ring = &r->el->rings[ci];
		struct stream *s = &r->streams[ci];
		const struct perf_event_header *h;
		uint64_t n;

		if (!ring->meta || !(n = pp_perf_ring__read_begin(ring)))
			continue;
		if (n > max)
			max = n;
		while ((h = pp_perf_ring__next(ring)))
			stream_add(r, s, h, now);
		pp_perf_ring__read_end(ring);
	}
	r->drained_max = max;
	for (ci = 0; r->ft && !r->ft_readers && ci < r->el->nr_cpus; ci++) {
		struct ft_ctx c = { r, &r->streams[r->el->nr_cpus + ci], ci };
		uint64_t d;

		pp_ftrace__pages(r->ft, ci, final, ft_slot, ft_done, &c);
		if (final && (d = pp_ftrace__dropped(r->ft, ci))) {
			if (!c.s->len)
				ft_begin(r, c.s, ci);	/* a chunk of no page to say so */
			c.s->dropped += d;
			c.s->lost_kernel += d;
		}
	}
}

static void drain(struct rec *r)
{
	drain_all(r, 0);
}

struct ft_reader {
	struct rec *r;
	int ci;
};

/*
 * A reader of one ftrace ring, as trace-cmd has: woken by its ring (at half
 * of it) or every 100 ms, it reads the ring into its stream and hands the
 * stream's chunk to the writer every --flush-interval. One drain for every
 * CPU's ring (and the perf rings) lost events now and then at 12M events/s
 * on 2 CPUs, even with 4 MiB rings; a reader at the drain's priority per
 * ring lost none (spec/pp-record.md, "--ftrace").
 */
static void *ft_reader_main(void *arg)
{
	struct ft_reader *fr = arg;
	struct rec *r = fr->r;
	struct stream *s = &r->streams[r->el->nr_cpus + fr->ci];
	struct ft_ctx c = { r, s, fr->ci };
	struct pollfd p = { .fd = pp_ftrace__fd(r->ft, fr->ci), .events = POLLIN };
	uint64_t flush_ns = (uint64_t)r->o->flush_ms * 1000000ull;

	set_realtime(r->o);
	while (!__atomic_load_n(&r->ft_stop, __ATOMIC_ACQUIRE)) {
		poll(&p, 1, r->o->flush_ms < 100 ? r->o->flush_ms : 100);
		pp_ftrace__pages(r->ft, fr->ci, 0, ft_slot, ft_done, &c);
		if (s->len && now_ns() - s->opened_ns >= flush_ns)
			stream_flush(r, s, 1);
	}
	free(fr);
	return NULL;
}

/*
 * Start a reader per ftrace ring, their fds out of the drain's poll; not
 * with a flight recorder, whose dumps flush every stream from the drain.
 * Return: 0, or -errno (the drain reads them then).
 */
static int ft_readers_start(struct rec *r)
{
	int ci;

	if (!r->ft || r->fl)
		return 0;
	r->ft_readers = calloc((size_t)r->el->nr_cpus, sizeof(*r->ft_readers));
	if (!r->ft_readers)
		return -ENOMEM;
	for (ci = 0; ci < r->el->nr_cpus; ci++) {
		struct ft_reader *fr = malloc(sizeof(*fr));

		epoll_ctl(r->el->epfd, EPOLL_CTL_DEL, pp_ftrace__fd(r->ft, ci), NULL);
		if (!fr)
			die("out of memory");
		*fr = (struct ft_reader){ r, ci };
		if (pthread_create(&r->ft_readers[ci], NULL, ft_reader_main, fr))
			die("cannot start the ftrace reader threads");
	}
	return 0;
}

/* Stop the readers: the drain reads the rest of the rings at the stop. */
static void ft_readers_stop(struct rec *r)
{
	if (!r->ft_readers)
		return;
	__atomic_store_n(&r->ft_stop, 1, __ATOMIC_RELEASE);
	for (int ci = 0; ci < r->el->nr_cpus; ci++)
		pthread_join(r->ft_readers[ci], NULL);
	free(r->ft_readers);
	r->ft_readers = NULL;
}

static void flush_old(struct rec *r, uint64_t now, int all)
{
	int ci;

	for (ci = 0; ci < r->nr_streams; ci++) {
		struct stream *s = &r->streams[ci];

		if (s->pages && r->ft_readers)
			continue;	/* its reader's */
		if (s->len && (all || now - s->opened_ns >= 1000000000ull))
			stream_flush(r, s, 1);
	}
}

/* ---- metadata ---- */

static void put_machine(struct rec *r, struct pp_buf *b, const char *cpulist)
{
	char filters[4096] = "";
	size_t fl = 0;
	int i;

	pp_host__describe(b, cpulist, r->o->cmdline ? r->o->cmdline : "pp-record");
	pp_machine__put(b, "pp_version", PP_VERSION);
	for (i = 0; i < r->es.nr; i++) {
		struct pp_evdesc *e = &r->es.v[i];

		if (e->filter && fl + strlen(e->name) + strlen(e->filter) + 4 < sizeof(filters))
			fl += (size_t)snprintf(filters + fl, sizeof(filters) - fl, "%s%s=%s",
					       fl ? ";" : "", e->name, e->filter);
	}
	if (pp_bpf_filter_opts__active(&r->o->bpf) && fl + 8 < sizeof(filters)) {
		fl += (size_t)snprintf(filters + fl, sizeof(filters) - fl, "%s", fl ? ";" : "");
		pp_bpf_filter__describe(&r->o->bpf, filters + fl, sizeof(filters) - fl);
	}
	pp_machine__put(b, "filters", filters);
	if (r->target_pids)
		pp_machine__put(b, "target_pids", r->target_pids);
	if (r->target_tids)
		pp_machine__put(b, "target_tids", r->target_tids);
}

static void put_formats(struct rec *r, struct pp_buf *b)
{
	pp_host__formats(b, &r->es);
	if (r->bpfout && pp_bpf_output__put_format(r->bpfout, b))
		die("cannot describe the BPF output records: no BTF");
}

static void put_attrs(struct rec *r, struct pp_buf *b)
{
	int i, k;

	for (i = 0; i < r->el->nr_evsels; i++) {
		struct pp_perf_evsel *e = &r->el->evsels[i];
		struct pp_attr_item it;
		uint32_t nr = 0;
		size_t at = pp_item__begin(b, 0), nr_at;

		for (k = 0; k < e->nr_ids; k++)
			nr += e->fds[k] >= 0 || e->external;
		struct perf_event_attr a = e->attr;

		/*
		 * --call-graph=dwarf: the samples as written, their stacks unwound
		 * (only then: without it, a probe's registers and stack, such as
		 * kmemleak's ustack=, are written as sampled)
		 */
		if (r->o->dwarf_stack && a.sample_type != pp_syms_dwarf_sample_type(a.sample_type)) {
			a.sample_type = pp_syms_dwarf_sample_type(a.sample_type);
			a.sample_regs_user = 0;
			a.sample_stack_user = 0;
		}
		it.attr_size = sizeof(e->attr);
		it.nr_ids = nr;
		nr_at = b->len;
		pp_buf__append(b, &it, sizeof(it));
		pp_buf__append(b, &a, sizeof(a));
		pp_buf__pad(b, 8);
		for (k = 0; k < e->nr_ids; k++)
			if (e->fds[k] >= 0 || e->external)
				pp_buf__append(b, &e->ids[k], 8);
		pp_buf__append_str(b, e->name);
		pp_item__end(b, at);
		(void)nr_at;
	}
}

/* ---- main ---- */

static void fmt_bytes(char *buf, size_t n, double v)
{
	if (v >= 1 << 30)
		snprintf(buf, n, "%.2f GiB", v / (1 << 30));
	else if (v >= 1 << 20)
		snprintf(buf, n, "%.2f MiB", v / (1 << 20));
	else if (v >= 1 << 10)
		snprintf(buf, n, "%.1f KiB", v / (1 << 10));
	else
		snprintf(buf, n, "%.0f B", v);
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

/*
 * The live status line, rewritten in place: the counters the drain keeps on
 * this thread, and the file's size (what the writer thread appended so far).
 */
static void status_show(const struct rec *r, uint64_t elapsed_ns, int fd)
{
	uint64_t events = 0, lost = 0;
	struct stat st;
	char sz[32], line[192];
	int i, n;

	for (i = 0; i < r->el->nr_evsels; i++)
		events += r->counts[i];
	if (r->ft)
		events += pp_ftrace__events(r->ft);
	for (i = 0; i < r->nr_streams; i++)
		lost += r->streams[i].lost_kernel + r->streams[i].lost_samples +
			r->streams[i].dropped_total;
	fmt_bytes(sz, sizeof(sz), fstat(fd, &st) ? 0.0 : (double)st.st_size);
	n = snprintf(line, sizeof(line), "pp-record: %llu s, %llu events, %s written, %llu lost",
		     (unsigned long long)(elapsed_ns / 1000000000ull),
		     (unsigned long long)events, sz, (unsigned long long)lost);
	if (r->fl && n > 0 && n < (int)sizeof(line)) {
		uint64_t kept;
		double secs;

		/* read while the writer adds: a figure for the eye, not an account */
		pp_flight__status(r->fl, &kept, &secs);
		fmt_bytes(sz, sizeof(sz), (double)kept);
		n = snprintf(line, sizeof(line), "pp-record: %llu s, %llu events, flight "
			     "recorder: %s kept (%.1f s), %llu dumps, %llu lost",
			     (unsigned long long)(elapsed_ns / 1000000000ull),
			     (unsigned long long)events, sz, secs, (unsigned long long)r->dumps,
			     (unsigned long long)lost);
	}
	if (n < 0)
		return;
	if (n >= (int)sizeof(line))
		n = (int)sizeof(line) - 1;
	/* spaces over the rest of a longer previous line: no terminal escapes needed */
	fprintf(stderr, "\r%s%*s", line, status_len > n ? status_len - n : 0, "");
	if (n > status_len)
		status_len = n;
}

/* MACHINE, FORMATS, ATTRS: into the file, and kept for the next ones. */
static void write_meta_kept(struct rec *r, uint16_t type, struct pp_buf *b)
{
	if (r->rotating || r->fl)
		pp_rotate__keep(&r->rot, type, b);
	write_meta(r, type, b);
}

/*
 * --rotate, --flight-recorder: the files of the run (record/rotate.c); a new
 * file's symbol snapshot covers @snap (@nr_snap 0: every process). With
 * --rotate, @first receives the first file's name.
 */
static void files_init(struct rec *r, const struct pp_writer_opts *wo, const pid_t *snap,
		       int nr_snap, char *first, size_t len)
{
	const struct opts *o = r->o;

	pp_rotate__init(&r->rot, o->output, o->max_files);
	r->rot.every_ns = o->rotate_ns;
	r->rot.bytes = o->rotate_bytes;
	r->rot.wo = *wo;
	r->rot.kallsyms_all = o->kallsyms_all;
	r->rot.snap = snap;
	r->rot.nr_snap = nr_snap;
	r->rot.ksym_fn = ksym_text;
	r->rot.ksym_ctx = r;
	r->rot.sample_type_of = sample_type_of;
	r->rot.st_ctx = r;
	r->rotating = o->rotate_ns || o->rotate_bytes;
	if (r->rotating)
		pp_rotate__next_name(&r->rot, first, len);
	if (o->flight_ns) {
		r->fl = pp_flight__new(o->flight_ns, o->flight_size);
		r->fl_window = o->flight_ns;
		if (!r->fl)
			die("out of memory");
	}
}

/*
 * A dump asked for (SIGUSR2, or a trigger event in the last drain): what
 * the rings hold is drained and handed over first, then the writer dumps
 * up to the request's time. A trigger within the window after the last
 * dump is part of what that dump showed: no new file for it.
 */
static void flight_request(struct rec *r, uint64_t now)
{
	uint64_t t = 0;

	if (r->trigger_ts) {
		if (!r->last_dump_ts || r->trigger_ts > r->last_dump_ts + r->fl_window)
			t = r->trigger_ts;
		r->trigger_ts = 0;
	}
	if (got_usr2) {
		got_usr2 = 0;
		if (usr2_ns > t)
			t = usr2_ns;
	}
	if (!t)
		return;
	drain(r);
	flush_old(r, now, 1);
	pthread_mutex_lock(&r->lock);
	if (t > r->dump_ts)
		r->dump_ts = t;
	writer_wake(r);
	pthread_mutex_unlock(&r->lock);
	r->last_dump_ts = t;
}

/*
 * Whether a kernel ring filled (not the writer's queue): 0 no, 2 a perf ring
 * that tracepoints write to (--ftrace would take them), 1 another.
 */
static int ring_full_hint(const struct rec *r)
{
	int i, full = 0, tp = 0;

	for (i = 0; i < r->nr_streams; i++) {
		if (r->streams[i].lost_kernel || r->streams[i].lost_samples)
			full = 1;
	}
	for (i = 0; i < r->el->nr_evsels; i++)
		tp |= r->el->evsels[i].attr.type == PERF_TYPE_TRACEPOINT &&
		      !r->el->evsels[i].external;
	return full ? 1 + tp : 0;
}

/*
 * --ftrace: the tracepoints go through a tracefs instance of their own, on
 * the evlist's CPUs, with its ring size; their perf events were not opened
 * (pp_perf_evsel.external) but have ids, which the records made of ftrace's
 * events carry. Targets: @pids (with @children the tasks they fork) unless
 * the events must see every task (@widen).
 */
static void ftrace_open(struct rec *r, int widen, const pid_t *pids, int nr_pids, int children)
{
	char err[2400];
	int ret, bad;

	if (r->o->cgroups)
		die_usage("--ftrace: no --cgroups (a tracefs instance filters by pid only)");
	if (pp_bpf_filter_opts__active(&r->o->bpf))
		die_usage("--ftrace: no BPF filters (they attach to perf events)");
	ret = pp_ftrace__open_evlist(r->el, &r->es, &r->ft, &bad, err, sizeof(err));
	if (ret == -EINVAL && bad >= 0 && r->es.v[bad].filter && r->es.v[bad].format) {
		const struct pp_evdesc *d = &r->es.v[bad];
		char fields[2048];

		pp_tracefs_fields(d->format, fields, sizeof(fields));
		fprintf(stderr, "pp-record: filter '%s' rejected by the kernel for %s; "
			"its fields: %s\n", d->filter, d->name, fields);
		exit(EXIT_USAGE);
	}
	if (ret == -EOPNOTSUPP || ret == -EEXIST || ret == -ENOENT)
		die_usage("%s", err);
	if (ret)
		die("--ftrace: %s", err);
	if (!widen && nr_pids && (ret = pp_ftrace__set_pids(r->ft, pids, nr_pids, children)))
		die("--ftrace: cannot set the instance's pids: %s", strerror(-ret));
}

/**
 * main() - pp-record entry point.
 * @argc: argument count; @argv: arguments.
 * Return: exit status.
 */
int main(int argc, char **argv)
{
	struct opts o = { 0 };
	struct rec r = { 0 };
	struct pp_writer_opts wo = { 0 };
	int *cpus = NULL, nr_cpus = 0, i, err, ret = 0;
	struct pp_workload wl = { .pid = -1, .go_fd = -1, .err_fd = -1 };
	pid_t *threads = NULL, *procs = NULL, child = -1;
	int nr_threads = 0, nr_procs = 0, follow = 0, child_status = 0, child_done = 0, widen;
	char child_pid[16];
	int *cg_fds = NULL, nr_cg = 0;
	struct pp_buf b;
	char cpulist[1024] = "";
	uint64_t t0, t_end = 0, agg_last = 0, status_next = 0, flush_ns, flush_next;
	int agg_only, out_fd = -1;
	const char *out_name;
	char first_name[PATH_MAX];
	pthread_t wt;
	struct sigaction sa;
	char sz[32];

	/*
	 * The writer thread allocates and frees chunk-sized buffers for every
	 * chunk. Served by mmap they fault in anew each time (a third of the
	 * recorder's CPU under load); kept in the heap they are reused.
	 */
	mallopt(M_MMAP_THRESHOLD, 64 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	r.o = &o;
	parse_opts(argc, argv, &o);
	srandom((unsigned int)(now_ns() ^ (uint64_t)getpid()));
	build_events(&o, &r.es);
	if (o.bpf_output)
		add_bpf_output(&r);

	/* CPUs and targets */
	if (o.cpus) {
		nr_cpus = pp_perf_cpus__parse(o.cpus, &cpus);
		if (nr_cpus < 0)
			die_usage("bad CPU list '%s'", o.cpus);
		for (i = 0; i < nr_cpus; i++) {
			char p[64];

			snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpu%d", cpus[i]);
			if (access(p, F_OK))
				die_usage("no CPU %d on this machine", cpus[i]);
		}
	} else {
		nr_cpus = pp_perf_cpus__online(&cpus);
		if (nr_cpus < 0)
			die("cannot read the online CPUs: %s", strerror(-nr_cpus));
	}
	for (i = 0; i < nr_cpus; i++) {
		size_t l = strlen(cpulist);

		snprintf(cpulist + l, sizeof(cpulist) - l, "%s%d", i ? "," : "", cpus[i]);
	}
	{
		char msg[PATH_MAX + 128];

		if ((o.pids && (err = pp_targets__pids(o.pids, 1, &threads, &nr_threads, &procs,
							 &nr_procs, msg, sizeof(msg)))) ||
		    (o.tids && (err = pp_targets__pids(o.tids, 0, &threads, &nr_threads, &procs,
							 &nr_procs, msg, sizeof(msg)))) ||
		    (o.cgroups && (err = pp_targets__cgroups(o.cgroups, &cg_fds, &nr_cg, msg,
							       sizeof(msg))))) {
			if (err == -EINVAL)
				die_usage("%s", msg);
			die("%s", msg);
		}
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = on_usr2;
	if (o.flight_ns)
		sigaction(SIGUSR2, &sa, NULL);
	sa.sa_handler = on_chld;
	sa.sa_flags = SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	/*
	 * A module whose events concern two tasks (sched_switch runs in the
	 * previous task's context) takes them from every task on every CPU;
	 * the targets go into the file and the module keeps theirs.
	 */
	widen = o.system_wide && (o.pids || o.tids ||
				  (o.workload && !o.all_cpus && !o.cpus && !o.cgroups));
	r.target_pids = widen ? o.pids : NULL;
	r.target_tids = widen ? o.tids : NULL;
	if (widen && !o.quiet)
		fprintf(stderr, "pp-record: %s: events of every task on every CPU, kept for the "
			"targets at analysis\n", o.profiler ? o.profiler : "profiler event");
	if (o.workload) {
		err = pp_workload__start(&wl, o.workload);
		if (err)
			die("cannot start the workload: %s", strerror(-err));
		child = wl.pid;
		follow = !o.all_cpus && !o.cpus && !o.cgroups && !widen;
		if (widen && child > 0) {
			snprintf(child_pid, sizeof(child_pid), "%d", (int)child);
			r.target_pids = child_pid;
		}
		if (follow) {
			if (pp_targets__add(&threads, &nr_threads, child))
				die("out of memory");
			for (i = 0; i < r.es.nr; i++) {
				r.es.v[i].attr.inherit = 1;
				r.es.v[i].attr.enable_on_exec = 1;
			}
		}
	}
	if (o.pids && !widen) {
		for (i = 0; i < r.es.nr; i++)
			r.es.v[i].attr.inherit = 1;
	}

	r.el = pp_perf_evlist__new(cpus, nr_cpus, cg_fds ? cg_fds : widen ? NULL : threads,
				   cg_fds ? nr_cg : widen ? 0 : nr_threads);
	if (!r.el)
		die("out of memory");
	if (cg_fds)
		r.el->open_flags = PERF_FLAG_PID_CGROUP;
	r.el->mmap_pages = o.mmap_pages ? o.mmap_pages : ring_pages(nr_cpus);
	r.el->watermark = (unsigned int)(r.el->mmap_pages * (size_t)sysconf(_SC_PAGESIZE) / 2);
	/*
	 * ftrace's rings, twice the default: woken at half a ring, at 12M
	 * getppid events/s on 2 CPUs (124 MB/s a CPU) a 2 MiB ring leaves its
	 * reader 8 ms (spec/pp-record.md, "--ftrace"). Kernel memory: 4 MiB a
	 * CPU.
	 */
	if (!o.mmap_pages && o.ftrace)
		r.el->ftrace_pages = ring_pages(nr_cpus) * 2;
	for (i = 0; i < r.es.nr; i++) {
		int ei = pp_perf_evlist__add(r.el, &r.es.v[i].attr, r.es.v[i].name,
					     r.es.v[i].filter);

		if (ei < 0)
			die("out of memory");
		/* a flight recorder's trigger is seen as it comes: on perf_event */
		r.el->evsels[ei].external = o.ftrace && r.es.v[i].attr.type == PERF_TYPE_TRACEPOINT &&
					    !(r.es.v[i].spec >= 0 && o.specs[r.es.v[i].spec].trigger);
		r.nr_ft_evsels += r.el->evsels[ei].external;
	}
	err = pp_perf_evlist__open(r.el);
	if (err) {
		int ei = r.el->err_evsel;

		pp_workload__stop(&wl, NULL);
		if (ei >= 0 && err == -EINVAL && r.es.v[ei].filter && r.es.v[ei].format &&
		    strstr(r.el->err, "filter")) {
			char fields[2048];

			pp_tracefs_fields(r.es.v[ei].format, fields, sizeof(fields));
			fprintf(stderr, "pp-record: filter '%s' rejected by the kernel for %s; "
				"its fields: %s\n", r.es.v[ei].filter, r.es.v[ei].name, fields);
			exit(EXIT_USAGE);
		}
		if (err == -EACCES || err == -EPERM)
			die("%s (run as root or lower kernel.perf_event_paranoid)", r.el->err);
		if (ei >= 0 && (err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV))
			die("%s: the event is not supported here", r.el->err);
		if (err == -ENOMEM || (err == -EPERM && strstr(r.el->err, "mmap")))
			die("%s (try a smaller -m)", r.el->err);
		die("%s", r.el->err);
	}
	if (o.ftrace)
		ftrace_open(&r, widen, follow ? &child : threads, follow ? 1 : nr_threads,
			    follow || o.pids);

	/* output */
	wo.codec = (uint8_t)o.codec;
	wo.level = o.level;
	wo.chunk_size = (uint32_t)o.chunk_size;
	out_name = o.output;
	if (o.flight_ns || o.rotate_ns || o.rotate_bytes)
		files_init(&r, &wo, follow ? &child : procs, follow ? 1 : nr_procs, first_name,
			   sizeof(first_name));
	if (r.rotating)
		out_name = first_name;
	if (!r.fl) {
		char msg[PATH_MAX + 64];
		int usage, fd;

		atexit(pp_output__cleanup);
		fd = pp_output__create(out_name, msg, sizeof(msg), &usage);
		if (fd < 0 && usage)
			die_usage("%s", msg);
		if (fd < 0)
			die("%s", msg);

		out_fd = fd;	/* its size for the status line */
		r.io = pp_io_file__new(fd, 1);
		if (!r.io)
			die("cannot set up output: %s", strerror(errno));
		r.w = pp_writer__new(r.io, &wo);
		if (!r.w)
			die("cannot start %s: %s", out_name, strerror(errno));
	}
	r.out_fd = out_fd;
	pp_buf__init(&b);
	put_machine(&r, &b, cpulist);
	write_meta_kept(&r, PP_CHUNK_MACHINE, &b);
	pp_buf__reset(&b);
	put_formats(&r, &b);
	write_meta_kept(&r, PP_CHUNK_FORMATS, &b);
	pp_buf__reset(&b);
	put_attrs(&r, &b);
	write_meta_kept(&r, PP_CHUNK_ATTRS, &b);
	pp_buf__reset(&b);
	{
		struct pp_buf mm;

		r.syms = pp_syms__new(o.kallsyms_all);
		if (!r.syms || (o.dwarf_stack && !(r.unw = pp_unwind__new())))
			die("out of memory");
		pp_syms__set_ksym_fn(r.syms, ksym_text, &r);
		pp_buf__init(&mm);
		for (i = 0; i < r.es.nr; i++)
			r.scan_syms |= !!(r.es.v[i].attr.sample_type &
					  (PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN));
		/*
		 * A system-wide aggregator reads /proc for the processes its
		 * stacks name, at each drain (pp_syms__learn): of a host's
		 * processes, only those that block are read, not all at start.
		 */
		if (!follow && !(o.agg_kind && !nr_procs && !r.scan_syms))
			pp_syms__snapshot(r.syms, &b, &mm, nr_procs ? procs : NULL, nr_procs);
		write_meta(&r, PP_CHUNK_TASKS, &b);
		write_meta(&r, PP_CHUNK_MMAPS, &mm);
		pp_buf__exit(&mm);
	}
	pp_buf__exit(&b);
	if (r.fatal)
		die("cannot write %s: %s", out_name, strerror(-r.fatal));
	if (o.kallsyms_all)
		write_syms(&r);

	build_layout(&r);
	attach_bpf(&r, child, o.pids ? procs : NULL, o.pids ? nr_procs : 0);
	/* the aggregators' stacks need the maps that FORK and MMAP2 records tell */
	if (r.offcpu || r.lockp || r.mem)
		r.scan_syms = 1;
	if (r.fl) {
		r.scan_syms = 0;	/* each dump collects the symbols of its records */
		r.trigger = calloc((size_t)r.el->nr_evsels, 1);
		if (!r.trigger)
			die("out of memory");
		for (i = 0; i < r.el->nr_evsels && i < r.es.nr; i++)
			r.trigger[i] = r.es.v[i].spec >= 0 && o.specs[r.es.v[i].spec].trigger;
	}

	/* buffers, queue, writer thread */
	r.nr_streams = r.el->nr_cpus * (r.ft ? 2 : 1);
	r.streams = calloc((size_t)r.nr_streams, sizeof(*r.streams));
	r.counts = calloc((size_t)r.el->nr_evsels, sizeof(*r.counts));
	r.qcap = o.queue;
	/*
	 * The writer wakes for a megabyte of full chunks (four of the default
	 * 256 KiB), not for each: a wake-up of a thread that slept finds its
	 * caches cold, and on the sched benchmark one per chunk cost about a
	 * tenth of the recorder's CPU. At most a quarter of the queue waits.
	 */
	r.wake_qlen = (int)((1u << 20) / o.chunk_size);
	if (r.wake_qlen > r.qcap / 4)
		r.wake_qlen = r.qcap / 4;
	if (r.wake_qlen < 1)
		r.wake_qlen = 1;
	/* 8 of the 32 chunks of 256 KiB, 4 of 1 MiB (-z) */
	r.boost_qlen = r.qcap / 8 > 2 * r.wake_qlen ? r.qcap / 8 : 2 * r.wake_qlen;
	if (r.boost_qlen > r.qcap / 4)
		r.boost_qlen = r.qcap / 4;
	if (r.boost_qlen < 1)
		r.boost_qlen = 1;
	r.q = calloc((size_t)r.qcap, sizeof(*r.q));
	r.pool = calloc((size_t)(r.qcap + r.nr_streams), sizeof(*r.pool));
	if (!r.streams || !r.counts || !r.q || !r.pool)
		die("out of memory");
	/*
	 * The record cache's encoding is done by the drain as it takes each
	 * record from its ring: a record is read once, and only one that is
	 * no repeat is copied (a chunk of plain records written by the drain
	 * and encoded by the writer was one cold copy and one cold read more,
	 * a sixth of the recorder's CPU on the sched benchmark). What reads
	 * plain records before they are written - unwinding, the symbol scan,
	 * the flight recorder, rotation - keeps the writer encoding.
	 */
	r.enc_drain = o.encoding == PP_DATA_CACHED && !r.unw && !r.scan_syms && !r.fl &&
		      !r.rotating;
	/* lz4 only: zstd runs at SCHED_IDLE, off the realtime drain (writer_boost()) */
	r.write_inline = r.enc_drain && !r.ft && o.codec != PP_CODEC_ZSTD;
	/* at most an eighth of a ring per interval: a 200 ms stall then uses a tenth */
	r.inline_max = (uint64_t)r.el->mmap_pages * (uint64_t)sysconf(_SC_PAGESIZE) / 8;
	r.buf_size = r.enc_drain ? pp_reccache_enc__buf_size(o.chunk_size, r.nr_layout) :
				   o.chunk_size;
	if (r.ft) {
		/* a chunk of pages: --chunk-size, room for one page at least, 1 MiB at most */
		size_t one = PP_FTPAGE_HDR_SIZE + PP_FTPAGE_TYPE_SIZE * (size_t)r.nr_ft_evsels +
			     PP_FTPAGE_PAGE_HDR + pp_ftrace__page_size(r.ft);

		r.ft_cap = o.chunk_size < PP_FTPAGE_MAX_PAYLOAD ? o.chunk_size : PP_FTPAGE_MAX_PAYLOAD;
		if (r.ft_cap < one)
			r.ft_cap = one;
		if (r.buf_size < r.ft_cap)
			r.buf_size = r.ft_cap;
	}
	for (i = 0; i < r.nr_streams; i++) {
		r.streams[i].cpu = (uint32_t)r.el->cpus[i % r.el->nr_cpus];
		r.streams[i].pages = i >= r.el->nr_cpus;
		r.streams[i].id = r.streams[i].cpu | (i < r.el->nr_cpus ? 0 : PP_STREAM_FTRACE);
		r.streams[i].buf = malloc(r.buf_size);
		if (!r.streams[i].buf)
			die("out of memory");
	}
	r.nr_pool = r.qcap;	/* allocated as used: pool_ready() */
	if (r.enc_drain) {
		for (i = 0; i < r.el->nr_cpus; i++) {	/* ftrace pages are stored as they are */
			r.streams[i].enc = pp_reccache_enc__new();
			if (!r.streams[i].enc)
				die("out of memory");
			stream_begin(&r, &r.streams[i]);
		}
	}
	{
		pthread_mutexattr_t ma;

		/*
		 * Priority inheritance: the drain (realtime) takes this lock to
		 * queue a chunk, and a writer at normal priority preempted while
		 * it holds it would keep the drain waiting behind every busy
		 * task while the rings fill.
		 */
		pthread_mutexattr_init(&ma);
		pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
		pthread_mutex_init(&r.lock, &ma);
		pthread_mutexattr_destroy(&ma);
	}
	sem_init(&r.wake, 0, 0);
	{
		sigset_t all, old;

		/* the writer thread takes no signals: they must interrupt epoll_wait */
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &old);
		if (pthread_create(&wt, NULL, writer_main, &r))
			die("cannot start the writer thread");
		r.writer = wt;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	/* after the writer thread started, so that only the drain runs at RT priority */
	if (set_realtime(&o) && o.codec == PP_CODEC_ZSTD && !r.fl) {
		/* -z compresses on idle CPU time (writer_boost()) */
		pthread_mutex_lock(&r.lock);
		r.writer_idle = 1;
		r.boost_qlen = r.qcap / 2 > 1 ? r.qcap / 2 : 1;
		r.writer_rt = 1;
		writer_boost(&r, 0);
		pthread_mutex_unlock(&r.lock);
	}

	/* go */
	t0 = now_ns();
	if (o.duration > 0)
		t_end = t0 + (uint64_t)(o.duration * 1e9);
	if (status_wanted(&o))
		status_next = t0 + 1000000000ull;
	if (!follow) {
		err = pp_perf_evlist__enable(r.el);
		if (err)
			die("cannot enable events: %s", strerror(-err));
	}
	if (r.ft && (err = pp_ftrace__start(r.ft)))
		die("cannot turn the tracefs instance on: %s", strerror(-err));
	if (ft_readers_start(&r))
		die("out of memory");
	err = pp_workload__go(&wl);
	if (err) {
		/* nothing was recorded: the old FILE stays, the temporary goes */
		pp_perf_evlist__disable(r.el);
		pthread_mutex_lock(&r.lock);
		r.stop_writer = 1;
		writer_wake(&r);
		pthread_mutex_unlock(&r.lock);
		pthread_join(wt, NULL);
		fprintf(stderr, "pp-record: cannot run '%s': %s\n", o.workload[0], strerror(-err));
		exit(127);	/* pp_output__cleanup() */
	}
	{
		char msg[2 * PATH_MAX + 64];

		if (!r.fl && pp_output__commit(out_name, msg, sizeof(msg))) {
			pp_workload__stop(&wl, NULL);
			die("%s", msg);
		}
		if (r.rotating) {
			pp_rotate__added(&r.rot, out_name);
			r.rot.opened_ns = t0;
		}
	}

	/*
	 * An aggregator alone (its ring buffers hold only the side-band, which
	 * wakes the loop by watermark) needs the loop once a second, for its
	 * drain, and writes its window then. Otherwise the loop wakes at least
	 * every --flush-interval (250 ms), drains the rings and hands every
	 * buffer that holds anything to the writer: what a SIGKILL loses is at
	 * most that interval (and what the writer had not appended yet). A
	 * watermark wake-up before it costs one comparison.
	 */
	flush_ns = (uint64_t)o.flush_ms * 1000000ull;
	flush_next = t0 + flush_ns;
	for (i = 0, agg_only = r.offcpu || r.lockp || r.mem; i < r.el->nr_evsels; i++)
		agg_only &= r.el->evsels[i].attr.type == PERF_TYPE_SOFTWARE &&
			    r.el->evsels[i].attr.config == PERF_COUNT_SW_DUMMY;
	while (!got_stop) {
		int timeout = 250, hup = 0;
		uint64_t now;

		if (!agg_only) {
			now = now_ns();
			timeout = flush_next > now ? (int)((flush_next - now + 999999) / 1000000) : 0;
		} else {
			now = now_ns();
			/* overdue: the writer still drains the last window */
			timeout = agg_last + 1000000000ull > now ?
				  (int)((agg_last + 1000000000ull - now) / 1000000) + 1 : 10;
		}

		if (t_end) {
			now = now_ns();
			if (now >= t_end)
				break;
			if ((t_end - now) / 1000000 < (uint64_t)timeout)
				timeout = (int)((t_end - now) / 1000000) + 1;
		}
		err = pp_perf_evlist__poll(r.el, timeout, &hup);
		if (err < 0)
			die("epoll: %s", strerror(-err));
		drain(&r);
		now = now_ns();
		if (agg_only) {
			flush_old(&r, now, 0);
		} else if (now >= flush_next) {
			flush_old(&r, now, 1);
			flush_next += flush_ns;
			if (flush_next <= now)
				flush_next = now + flush_ns;
		}
		if ((r.offcpu || r.lockp || r.mem) && now - agg_last >= 1000000000ull &&
		    agg_close(&r)) {
			/*
			 * The window is closed, then the side-band read: every
			 * process it names forked or mapped before the close,
			 * so its FORK and MMAP2 records are in what is flushed
			 * now, and the writer scans them before it drains: the
			 * drain need not read /proc for those processes.
			 */
			drain(&r);
			flush_old(&r, now, 1);
			pthread_mutex_lock(&r.lock);
			r.agg_pending = 1;
			writer_wake(&r);
			pthread_mutex_unlock(&r.lock);
			agg_last = now;
		}
		if (r.fl)
			flight_request(&r, now);
		if (r.fatal)
			break;
		/* at most once a second, on this loop's own wake-ups */
		if (status_next && now >= status_next) {
			status_show(&r, now - t0, r.out_fd);
			status_next = now + 1000000000ull;
		}
		if (child > 0 && got_chld) {
			got_chld = 0;
			if (waitpid(child, &child_status, WNOHANG) == child) {
				child_done = 1;
				break;
			}
		}
	}

	/* stop */
	status_clear();	/* the summary replaces it */
	if (r.offcpu || r.lockp || r.mem)
		agg_close(&r);
	pp_perf_evlist__disable(r.el);
	if (r.ft)
		pp_ftrace__stop(r.ft);
	ft_readers_stop(&r);
	drain_all(&r, 1);
	flush_old(&r, now_ns(), 1);
	if (r.fl)
		flight_request(&r, now_ns());	/* a trigger in the last drain */
	pthread_mutex_lock(&r.lock);
	r.stop_writer = 1;
	writer_boost(&r, 1);	/* what waits, idle writer or not: now, on a busy host too */
	writer_wake(&r);
	pthread_mutex_unlock(&r.lock);
	pthread_join(wt, NULL);
	if (!r.fatal && (r.offcpu || r.lockp || r.mem))
		write_agg(&r);
	if (!r.fatal)
		write_syms(&r);
	if (child > 0 && !child_done) {
		/* recording ended first (signal, -d, write error): end the workload too */
		pp_workload__stop(&wl, &child_status);
		child_done = 1;
	}
	{
		double secs = (double)(now_ns() - t0) / 1e9;
		uint64_t total = 0, ft_total = 0, bytes;
		int fatal = r.fatal;

		err = pp_writer__close(r.w);
		if (!fatal && err)
			fatal = err;
		bytes = (uint64_t)(r.io && pp_io__size(r.io) > 0 ? pp_io__size(r.io) : 0);
		pp_io__free(r.io);
		if (r.rotating && r.rot.nr_names)
			out_name = r.rot.names[r.rot.nr_names - 1];
		if (fatal) {
			fprintf(stderr, "pp-record: write error on %s: %s; the file is readable up "
				"to the last complete chunk\n", out_name, strerror(-fatal));
			ret = 1;
		}
		for (i = 0; i < r.el->nr_evsels; i++)
			total += r.counts[i];
		if (r.ft)	/* the kernel counts what was read, all events together */
			total += ft_total = pp_ftrace__events(r.ft);
		if (!o.quiet) {
			fmt_bytes(sz, sizeof(sz), (double)bytes);
			if (r.fl)
				fprintf(stderr, "pp-record: %.3f s, %llu events recorded, flight "
					"recorder: %llu dumps next to %s%s\n", secs,
					(unsigned long long)total, (unsigned long long)r.dumps,
					o.output, r.dump_fail ? " (some failed)" : "");
			else if (total || !(r.offcpu || r.lockp || r.mem))
				fprintf(stderr, "pp-record: %.3f s, %llu events recorded, %s written "
					"to %s (%.1f bytes/event, data compression %.2fx)\n", secs,
					(unsigned long long)total, sz, out_name,
					total ? (double)bytes / (double)total : 0.0,
					r.data_stored ? (double)r.data_raw / (double)r.data_stored :
							0.0);
			else	/* an aggregator alone records no event */
				fprintf(stderr, "pp-record: %.3f s, %s written to %s\n", secs, sz,
					out_name);
			if (r.rotating)
				fprintf(stderr, "  rotation: %llu files%s, the last %s\n",
					(unsigned long long)r.rot.files, r.rot.removed ?
					" (the oldest removed: --max-files)" : "", out_name);
			for (i = 0; i < r.el->nr_evsels; i++) {
				if (!strcmp(r.el->evsels[i].name, "sideband"))
					continue;
				if (r.el->evsels[i].external && r.nr_ft_evsels > 1)
					fprintf(stderr, "  %-40s %12s\n", r.el->evsels[i].name,
						"(ftrace)");
				else
					fprintf(stderr, "  %-40s %12llu\n", r.el->evsels[i].name,
						(unsigned long long)(r.el->evsels[i].external ?
								     ft_total : r.counts[i]));
			}
			for (i = 0; i < r.nr_streams; i++) {
				struct stream *s = &r.streams[i];
				int corrupt = i < r.el->nr_cpus && r.el->rings[i].corrupt;

				if (s->unwritten)
					fprintf(stderr, "  cpu%u: %llu records not written (write "
						"error)\n", s->cpu, (unsigned long long)s->unwritten);
				if (s->lost_kernel || s->lost_samples || s->dropped_total ||
				    corrupt)
					fprintf(stderr, "  LOST %scpu%u: %llu records (kernel ring full), "
						"%llu samples, %llu records dropped by pp-record "
						"(writer queue full)%s\n",
						i < r.el->nr_cpus ? "" : "ftrace ", s->cpu,
						(unsigned long long)s->lost_kernel,
						(unsigned long long)s->lost_samples,
						(unsigned long long)s->dropped_total,
						corrupt ? ", ring corrupt" : "");
			}
			if (r.filter) {
				uint64_t kept = 0, dropped = 0;

				if (!pp_bpf_filter__counts(r.filter, &kept, &dropped))
					fprintf(stderr, "  BPF filter: %llu samples kept, %llu dropped "
						"in the kernel\n", (unsigned long long)kept,
						(unsigned long long)dropped);
			}
			if (r.stepped_down)
				fprintf(stderr, "  %llu chunks compressed at a faster level to keep "
					"up\n", (unsigned long long)r.stepped_down);
			if (r.offcpu || r.lockp || r.mem)
				fprintf(stderr, "  %s: %llu aggregated stacks in %llu windows\n",
					r.offcpu ? "offcpu" : r.lockp ? "lock" : o.profiler,
					(unsigned long long)r.agg_items,
					(unsigned long long)r.agg_windows);
			if (r.unwritten_ev || fatal)
				fprintf(stderr, "  lost: %llu events recorded but not written (write "
					"error)\n", (unsigned long long)r.unwritten_ev);
			if (!fatal && (!r.streams || r.nr_streams)) {
				uint64_t lk = 0;

				for (i = 0; i < r.nr_streams; i++)
					lk += r.streams[i].lost_kernel + r.streams[i].lost_samples +
					      r.streams[i].dropped_total;
				if (!lk)
					fprintf(stderr, "  lost: none\n");
				else if (ring_full_hint(&r))
					fprintf(stderr, "  the kernel's rings filled: a larger -m keeps "
						"more%s\n", ring_full_hint(&r) > 1 ?
						"; for tracepoints at high rates, --ftrace costs the "
						"traced tasks less" : "");
			}
		}
	}
	pp_ksym_bpf__free(r.ksym);	/* may be on the aggregator's program */
	pp_bpf_filter__free(r.filter);
	pp_bpf_offcpu__free(r.offcpu);
	pp_bpf_lock__free(r.lockp);
	pp_bpf_mem__free(r.mem);
	pp_bpf_output__free(r.bpfout);
	pp_flight__free(r.fl);
	pp_ftrace__free(r.ft);
	pp_ftpages__free(r.ft_dec);
	free(r.ft_rec);
	free(r.trigger);
	if (r.rotating || r.fl)
		pp_rotate__exit(&r.rot);
	if (child > 0 && child_done && !ret) {
		if (WIFEXITED(child_status))
			ret = WEXITSTATUS(child_status);
		else if (WIFSIGNALED(child_status))
			ret = 128 + WTERMSIG(child_status);
	}
	return ret;
}
