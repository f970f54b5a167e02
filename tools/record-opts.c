// SPDX-License-Identifier: MIT
/*
 * pp-record's command line (tools/record-opts.h): the usage text, the
 * options, and `pp-record PROFILER [OPTIONS]`, whose words go to the
 * analyzer module that chooses the events and to pp-record's own options.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "pp/analyzer.h"
#include "pp/bpf.h"
#include "pp/format.h"
#include "../record/record.h"
#include "record-opts.h"

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
"  -g, --call-graph[=MODE]    record call chains for every event; user stacks\n"
"                             walked in the kernel with tables built from the\n"
"                             DSOs' .eh_frame where BPF with BTF runs, else by\n"
"                             frame pointer; MODE bpf (that walker or an error),\n"
"                             fp (frame pointers only) or dwarf[,SIZE]: SIZE\n"
"                             bytes of user stack (default 8192) unwound with\n"
"                             the DSOs' .eh_frame at record time\n"
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
		return next && !pp_call_graph_mode(next, NULL, NULL, NULL, 0);
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
		    pp_opts__takes(a, w) && !pp_call_graph_mode(words[i + 1], NULL, NULL, NULL, 0)) {
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
	snprintf(o->preload, sizeof(o->preload), "%s", reqs.preload);
	snprintf(o->preload_env, sizeof(o->preload_env), "%s", reqs.preload_env);
	snprintf(o->trap_note, sizeof(o->trap_note), "%s", reqs.trap_note);
}

void die_usage(const char *fmt, ...)
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

/* The long options' values beyond the short options' letters. */
enum { O_EXCL_USER = 256, O_EXCL_KERNEL, O_CGROUPS, O_CHUNK, O_QUEUE, O_CODEC,
       O_KALLSYMS, O_NOSB, O_FTRACE, O_LEVEL, O_ENCODING, O_BPFOUT, O_FLUSH, O_ROTATE, O_MAXF,
       O_FLIGHT, O_FLSIZE, O_BPF = 512 };

/* Which defaults the options set aside (parse_opts()). */
struct parse_flags {
	int z_chunk, chunk_set, flush_set, pages_set;
};

/* The options of how to record: rings, chunks, codecs, files. */
static void parse_opt_how(struct opts *o, int c, struct parse_flags *pf)
{
	char err[512];

	switch (c) {
	case 'm':
		o->mmap_pages = (unsigned int)parse_long(optarg, "page count", 1, 1 << 20);
		if (o->mmap_pages & (o->mmap_pages - 1))
			die_usage("-m %s: the page count must be a power of two", optarg);
		pf->pages_set = 1;
		break;
	case O_CHUNK:
		pf->chunk_set = 1;
		o->chunk_size = parse_size(optarg);
		if (o->chunk_size < (64 << 10) || o->chunk_size > PP_CHUNK_MAX_RAW)
			die_usage("--chunk-size must be within 64K..16M");
		break;
	case O_QUEUE:
		o->queue = (int)parse_long(optarg, "queue length", 1, 4096);
		break;
	case O_FLUSH:
		o->flush_ms = (int)parse_long(optarg, "flush interval (ms)", 1, 3600000);
		pf->flush_set = 1;
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
		pf->z_chunk = 1;
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
	default:
		fprintf(stderr, "pp-record: see pp-record --help\n");
		exit(EXIT_USAGE);
	}
}

/* One option @c (getopt_long()'s): what to record, from where, and the rest. */
static void parse_opt(struct opts *o, int c, int argc, char **argv, struct parse_flags *pf)
{
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

		if (!mode && optind < argc && !pp_call_graph_mode(argv[optind], NULL, NULL, NULL, 0))
			mode = argv[optind++];
		o->callgraph = 1;
		if (mode && pp_call_graph_mode(mode, &o->call_graph, &o->dwarf_stack, msg, sizeof(msg)))
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
		parse_opt_how(o, c, pf);
		}
}

/* After the options: the COMMAND or help word, the defaults they imply, and what excludes what. */
static void check_opts(struct opts *o, const struct parse_flags *pf, int argc, char **argv)
{
	int i;

	if (pf->z_chunk && !pf->chunk_set)
		o->chunk_size = 1 << 20;
	/* Chunks of a second hold 4x the records of 250 ms ones: smaller files. */
	if (pf->z_chunk && !pf->flush_set)
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
	if (o->agg_kind && !o->nr_specs && !o->freq && !o->bpf_output && !pf->pages_set)
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

void parse_opts(int argc, char **argv, struct opts *o)
{
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
	size_t cl = 0;
	static const char shortopts[] = "+e:F:gaC:p:t:o:d:m:qvhVzr:";
	struct parse_flags pf = { 0 };
	int c, i, pass2 = 0;

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
	while ((c = getopt_long(argc, argv, shortopts, lopts, NULL)) != -1)
		parse_opt(o, c, argc, argv, &pf);
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
	check_opts(o, &pf, argc, argv);
}
