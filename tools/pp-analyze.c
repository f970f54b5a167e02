// SPDX-License-Identifier: MIT
/*
 * pp-analyze - replay a pp trace file (or live rings) through a profiler.
 *
 *   pp-analyze info [--json] [FILE]     what the file holds, and its damage
 *   pp-analyze dump [FILE]              every chunk and record, raw
 *   pp-analyze list                     the profilers
 *   pp-analyze usdt list BINARY         the USDT probes of a binary
 *   pp-analyze --symbols BINARY         pprof's symbolizer (gperftools' PPROF_PATH)
 *   pp-analyze PROFILER help            usage of one profiler
 *   pp-analyze PROFILER [options] [FILE|--input FILE]
 *   pp-analyze PROFILER --live [options] [-d SEC]
 *
 * The input defaults to pp.trace. `-i MS` is the interval, as in perf-prof.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/perf_event.h>
#include "pp/evspec.h"
#include "pp/meta.h"
#include "pp/reader.h"
#include "pp/sample.h"
#include "../replay/replay-internal.h"
#include "../replay/mem.h"

static struct pp_session *g_session;

static void on_signal(int sig)
{
	if (g_session)
		pp_session__stop(g_session);
}

static void usage(FILE *fp)
{
	fputs("usage: pp-analyze info [--json] [FILE]\n"
	      "       pp-analyze dump [FILE]\n"
	      "       pp-analyze list\n"
	      "       pp-analyze usdt list BINARY   (USDT probes: -e usdt:PROVIDER:NAME@BINARY)\n"
	      "       pp-analyze --symbols BINARY   (maps and 0xADDRs on stdin, as pprof --symbols)\n"
	      "       pp-analyze PROFILER help\n"
	      "       pp-analyze PROFILER [options] [FILE | --input FILE]   (default pp.trace)\n"
	      "       pp-analyze PROFILER --live [--ftrace] [options] [-d SEC]\n"
	      "common options: -e EVENT,...  -i MS (interval)  -a  -C CPUS  -p PIDS  -t TIDS  -N N\n"
	      "                -g  -F HZ  --flame-graph FILE  --than TIME  --perins  --json  -o FILE\n"
	      "                --no-demangle  --debuginfod[=URLS]\n"
	      "                --time START,END  --max-memory SIZE (default: half the RAM)\n",
	      fp);
}

static void cmd_list(void)
{
	const struct pp_analyzer *a;
	int w = 12;	/* the names' column: one space wider than the longest name */

	for (size_t i = 0; (a = pp_analyzer__nth(i)); i++)
		if ((int)strlen(a->name) + 1 > w)
			w = (int)strlen(a->name) + 1;
	printf("profilers:\n");
	for (size_t i = 0; (a = pp_analyzer__nth(i)); i++)
		printf("  %-*s %s\n", w, a->name, a->desc);
	printf("commands:\n  %-*s %s\n  %-*s %s\n  %-*s %s\n", w, "info", "what a trace file holds",
	       w, "dump", "every record of a trace file, raw", w, "--symbols",
	       "BINARY: pprof's symbolizer for tcmalloc (PPROF_PATH=pp-analyze)");
}

/* ---- info ---- */

struct info {
	uint64_t lost[1024];
	uint64_t lost_rec[1024];
	uint64_t types[32];
};

static struct info g_info;

static void info_lost(struct pp_session *s, const struct pp_lost *l)
{
	uint32_t c = l->cpu < 1024 ? l->cpu : 1023;

	if (l->source == 2)
		g_info.lost_rec[c] += l->count;
	else
		g_info.lost[c] += l->count;
}

static void info_task(struct pp_session *s, const struct pp_task_event *t)
{
	g_info.types[t->kind == PP_TASK_COMM ? PERF_RECORD_COMM :
		     t->kind == PP_TASK_FORK ? PERF_RECORD_FORK : PERF_RECORD_EXIT]++;
}

static void info_mmap(struct pp_session *s, const struct pp_mmap_event *m) { g_info.types[PERF_RECORD_MMAP2]++; }

static const struct pp_analyzer info_analyzer = {
	.name = "info",
	/* Counts every record of the file, whatever targets it names. */
	.needs_system_wide = 1,
	.lost = info_lost,
	.task = info_task,
	.mmap = info_mmap,
};

static void print_wall(uint64_t ns)
{
	time_t sec = (time_t)(ns / 1000000000ull);
	struct tm tm;
	char buf[64];

	localtime_r(&sec, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
	printf("%s.%06llu", buf, (unsigned long long)(ns % 1000000000ull / 1000));
}

/* A MACHINE value, escaped for the terminal (a few live at once). */
static const char *mget(const struct pp_session *s, const char *key, const char *dflt)
{
	static char bufs[4][8192];
	static int next;
	const char *v = pp_session__machine(s, key);
	char *b = bufs[next++ % 4];

	pp_text_escape(b, sizeof(bufs[0]), v ? v : dflt);
	return b;
}

/* KEY's number in MACHINE's user_stacks ("stacks=N walked=N ..."), 0 when absent. */
static unsigned long long ustat(const char *v, const char *key)
{
	size_t kl = strlen(key);

	for (const char *p = v; p && *p; p = strchr(p, ' '), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, kl) && p[kl] == '=')
			return strtoull(p + kl + 1, NULL, 10);
	return 0;
}

/*
 * Which unwinder made the user stacks (-g): MACHINE's call_graph, and with
 * the kernel-side walker its counts: how many stacks it walked, why the
 * ones it did not finish stopped, how many kept frame pointers and why.
 */
static void info_call_graph(const struct pp_session *s)
{
	static const char *const ends[][2] = {
		{ "depth", "at 127 frames" }, { "read", "the stack unreadable" },
		{ "unsupported", "a rule the walker does not follow" },
		{ "fp_end", "a frame-pointer walk ended" }, { "no_regs", "no user registers" },
	};
	const char *mode = pp_session__machine(s, "call_graph");
	const char *v = pp_session__machine(s, "user_stacks");
	unsigned long long n, walked, fp, cut = 0;

	if (!mode)
		return;
	if (strcmp(mode, "bpf"))
		printf("user stacks: %s\n", mode[0] == 'f' && mode[1] == 'p' && !mode[2] ?
		       "fp (frame pointers, --call-graph fp)" : mget(s, "call_graph", ""));
	if (strcmp(mode, "bpf"))
		return;
	if (!v) {
		printf("user stacks: bpf (the kernel-side walker; no counts: the recording did not end)\n");
		return;
	}
	n = ustat(v, "stacks");
	walked = ustat(v, "walked");
	fp = n - walked;
	printf("user stacks: bpf (the kernel-side walker): %llu stacks, %llu walked whole", n,
	       ustat(v, "whole"));
	for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]); i++)
		cut += ustat(v, ends[i][0]);
	if (cut) {
		const char *sep = "";

		printf(", %llu cut (", cut);
		for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
			unsigned long long c = ustat(v, ends[i][0]);

			if (c)
				printf("%s%llu %s", sep, c, ends[i][1]);
			if (c)
				sep = ", ";
		}
		printf(")");
	}
	if (fp)
		printf(", %llu by frame pointer (%llu of processes not known yet, %llu other)", fp,
		       ustat(v, "fp_no_proc"), ustat(v, "fp_other"));
	printf("\n             frames: %llu by the tables, %llu by frame pointer (%llu while a "
	       "table was being built); tables of %llu DSOs (%llu rows, %llu without CFI), built "
	       "in %llu ms\n", ustat(v, "frames_cfi"), ustat(v, "frames_fp"), ustat(v, "no_table"),
	       ustat(v, "dsos"), ustat(v, "rows"), ustat(v, "dso_failed"), ustat(v, "build_ms"));
}

/* The sizes info reads off every chunk header. */
struct info_chunks {
	uint64_t nr, stored, raw, data, types[0x30];
};

static const char *const chunk_names[0x30] = {
	[PP_CHUNK_MACHINE] = "machine", [PP_CHUNK_ATTRS] = "attrs",
	[PP_CHUNK_FORMATS] = "formats", [PP_CHUNK_TASKS] = "tasks",
	[PP_CHUNK_MMAPS] = "mmaps", [PP_CHUNK_KSYMS] = "ksyms",
	[PP_CHUNK_USYMS] = "usyms", [PP_CHUNK_DATA] = "data",
	[PP_CHUNK_LOST] = "lost", [PP_CHUNK_BPF_AGG] = "bpf_agg",
	[PP_CHUNK_INDEX] = "index", [PP_CHUNK_FOOTER] = "footer",
};

static void json_key(struct pp_out *o, const char *k, int first)
{
	pp_out__printf(o, "%s\"%s\":", first ? "" : ",", k);
}

static void json_u64(struct pp_out *o, const char *k, uint64_t v)
{
	json_key(o, k, 0);
	pp_out__u64(o, v);
}

static void json_machine(struct pp_out *o, const struct pp_session *s, const char *k,
			 const char *key)
{
	json_key(o, k, 0);
	pp_out__json_str(o, pp_session__machine(s, key));
}

/* Did the reader (@rs) or the replay find any damage? (info's "damage: none" otherwise) */
static int info_damaged(const struct pp_session *s, const struct pp_reader_stats *rs)
{
	return rs->corrupt || rs->truncated || rs->resyncs || s->stats.bad_records ||
	       s->stats.out_of_order || pp_session__lies(s, rs, NULL, 0);
}

/*
 * info --json: the same as the text, one object on one line; the damage
 * checks by key (pp_session__lie()), every one present, 0 when clean.
 */
static void info_json(struct pp_session *s, const char *path, const struct info_chunks *ch,
		      const struct pp_reader_stats *rs)
{
	struct pp_out *o = pp_session__out(s);
	uint64_t ksyms, dsos, dsos_syms, maps, n, lost = 0, lost_rec = 0;
	const char *name, *key;
	int first = 1;

	pp_out__printf(o, "{\"type\":\"info\",\"file\":");
	pp_out__json_str(o, path);
	json_u64(o, "bytes", pp_reader__stats(s->reader)->file_size);
	json_machine(o, s, "host", "hostname");
	json_machine(o, s, "kernel", "release");
	json_machine(o, s, "arch", "machine");
	json_u64(o, "nr_cpus", strtoull(mget(s, "nr_cpus", "0"), NULL, 10));
	json_machine(o, s, "cpus_online", "cpus");
	json_machine(o, s, "command", "cmdline");
	json_machine(o, s, "filters", "filters");
	json_machine(o, s, "call_graph", "call_graph");
	json_machine(o, s, "user_stacks", "user_stacks");
	json_machine(o, s, "recorder", "pp_version");
	json_machine(o, s, "clock", "clock");
	if (pp_session__machine(s, "recorder_peak_rss_kib"))
		json_u64(o, "recorder_peak_rss_kib",
			 strtoull(mget(s, "recorder_peak_rss_kib", "0"), NULL, 10));
	if (s->stats.first_ts) {
		json_u64(o, "first_ts", s->stats.first_ts);
		json_u64(o, "duration_ns", s->stats.last_ts - s->stats.first_ts);
		if (s->have_clock)
			json_u64(o, "start_realtime_ns", pp_session__realtime(s, s->stats.first_ts));
	}
	json_key(o, "chunks", 0);
	pp_out__printf(o, "{\"total\":%llu,\"data\":%llu,\"stored_bytes\":%llu,\"raw_bytes\":%llu,"
		       "\"by_type\":{", (unsigned long long)ch->nr, (unsigned long long)ch->data,
		       (unsigned long long)ch->stored, (unsigned long long)ch->raw);
	for (int t = 0; t < 0x30; t++) {
		if (!ch->types[t])
			continue;
		json_key(o, chunk_names[t] ? chunk_names[t] : "unknown", first);
		pp_out__u64(o, ch->types[t]);
		first = 0;
	}
	pp_out__printf(o, "}}");
	json_key(o, "records", 0);
	pp_out__printf(o, "{\"total\":%llu,\"samples\":%llu,\"comm\":%llu,\"fork\":%llu,"
		       "\"exit\":%llu,\"mmap\":%llu}",
		       (unsigned long long)s->stats.records, (unsigned long long)s->stats.samples,
		       (unsigned long long)g_info.types[PERF_RECORD_COMM],
		       (unsigned long long)g_info.types[PERF_RECORD_FORK],
		       (unsigned long long)g_info.types[PERF_RECORD_EXIT],
		       (unsigned long long)g_info.types[PERF_RECORD_MMAP2]);
	json_key(o, "events", 0);
	pp_out__putc(o, '[');
	for (size_t i = 0; i < s->nr_evsels; i++) {
		pp_out__printf(o, "%s{\"name\":", i ? "," : "");
		pp_out__json_str(o, s->evsels[i].name);
		json_u64(o, "samples", s->evsels[i].nr_samples);
		pp_out__putc(o, '}');
	}
	pp_out__putc(o, ']');
	for (int cpu = 0; cpu < 1024; cpu++) {
		lost += g_info.lost[cpu];
		lost_rec += g_info.lost_rec[cpu];
	}
	json_key(o, "lost", 0);
	pp_out__printf(o, "{\"kernel\":%llu,\"recorder\":%llu,\"samples\":%llu}",
		       (unsigned long long)lost, (unsigned long long)lost_rec,
		       (unsigned long long)s->stats.lost_samples);
	pp_symtab__coverage(s->syms, &ksyms, &dsos, &dsos_syms, &maps);
	json_key(o, "symbols", 0);
	pp_out__printf(o, "{\"kernel\":%llu,\"dsos\":%llu,\"dsos_with_symbols\":%llu,\"maps\":%llu}",
		       (unsigned long long)ksyms, (unsigned long long)dsos,
		       (unsigned long long)dsos_syms, (unsigned long long)maps);
	json_u64(o, "cut_stacks", s->stats.cut_stacks);
	json_key(o, "index", 0);
	pp_out__printf(o, "%s", pp_reader__stats(s->reader)->has_footer ? "true" : "false");
	json_key(o, "damage", 0);
	pp_out__printf(o, "{\"none\":%s,\"corrupt_chunks\":%llu,\"resyncs\":%llu,"
		       "\"bytes_skipped\":%llu,\"truncated\":%s,\"bad_records\":%llu,"
		       "\"out_of_order\":%llu", info_damaged(s, rs) ? "false" : "true",
		       (unsigned long long)rs->corrupt, (unsigned long long)rs->resyncs,
		       (unsigned long long)rs->bytes_skipped, rs->truncated ? "true" : "false",
		       (unsigned long long)s->stats.bad_records,
		       (unsigned long long)s->stats.out_of_order);
	for (size_t i = 0; !pp_session__lie(s, rs, i, &name, &key, &n); i++)
		json_u64(o, key, n);
	pp_out__printf(o, "}}\n");
}

/* `pp-analyze info` as text: the file, its host, its chunks, events, symbols and health. */
static void info_text(struct pp_session *s, const char *path, const struct info_chunks *ch,
		      struct pp_reader *r)
{
	uint64_t ksyms, dsos, dsos_syms, maps;
	const struct pp_reader_stats *rs;

	printf("file:        %s (%llu bytes)\n", path,
	       (unsigned long long)pp_reader__stats(s->reader)->file_size);
	printf("host:        %s\n", mget(s, "hostname", "?"));
	printf("kernel:      %s %s %s\n", mget(s, "sysname", "?"),
	       mget(s, "release", "?"),
	       mget(s, "version", ""));
	printf("arch:        %s\n", mget(s, "machine", "?"));
	printf("cpus:        %s (online %s)\n", mget(s, "nr_cpus", "?"),
	       mget(s, "cpus", "?"));
	printf("command:     %s\n", mget(s, "cmdline", "?"));
	{
		const char *f = mget(s, "filters", "");

		/* Kernel filters (EVENT=FILTER) and BPF filters (bpf:...), ';' separated. */
		printf("filters:     %s\n", *f ? f : "none");
		f = mget(s, "target_pids", "");
		if (*f)
			printf("targets:     processes %s and their descendants (events of every task "
			       "recorded)\n", f);
		f = mget(s, "target_tids", "");
		if (*f)
			printf("targets:     threads %s (events of every task recorded)\n", f);
	}
	printf("recorder:    pp %s, clock %s", mget(s, "pp_version", "?"), mget(s, "clock", "?"));
	if (pp_session__machine(s, "recorder_peak_rss_kib"))
		printf(", peak RSS %.1f MiB",
		       strtod(mget(s, "recorder_peak_rss_kib", "0"), NULL) / 1024.0);
	printf("\n");
	if (s->stats.first_ts) {
		uint64_t dur = s->stats.last_ts - s->stats.first_ts;

		printf("start:       ");
		if (s->have_clock)
			print_wall(pp_session__realtime(s, s->stats.first_ts));
		else
			printf("%llu ns (perf clock)", (unsigned long long)s->stats.first_ts);
		printf("\nduration:    %llu.%06llu s\n", (unsigned long long)(dur / 1000000000ull),
		       (unsigned long long)(dur % 1000000000ull / 1000));
	}
	printf("chunks:      %llu (data %llu), %llu bytes stored, %llu bytes raw",
	       (unsigned long long)ch->nr, (unsigned long long)ch->data,
	       (unsigned long long)ch->stored, (unsigned long long)ch->raw);
	if (ch->stored)
		printf(" (%.2fx)", (double)ch->raw / (double)ch->stored);
	printf("\n  by type:  ");
	for (int t = 0; t < 0x30; t++) {
		if (ch->types[t])
			printf(" %s=%llu", chunk_names[t] ? chunk_names[t] : "unknown",
			       (unsigned long long)ch->types[t]);
	}
	printf("\nrecords:     %llu (%llu samples, %llu comm, %llu fork, %llu exit, %llu mmap)\n",
	       (unsigned long long)s->stats.records, (unsigned long long)s->stats.samples,
	       (unsigned long long)g_info.types[PERF_RECORD_COMM],
	       (unsigned long long)g_info.types[PERF_RECORD_FORK],
	       (unsigned long long)g_info.types[PERF_RECORD_EXIT],
	       (unsigned long long)g_info.types[PERF_RECORD_MMAP2]);
	printf("events:\n");
	for (size_t i = 0; i < s->nr_evsels; i++)
		printf("  %-40s %12llu%s\n", s->evsels[i].name,
		       (unsigned long long)s->evsels[i].nr_samples,
		       s->evsels[i].type == PERF_TYPE_TRACEPOINT && !s->evsels[i].tp ?
		       "  (no format: fields not decodable)" : "");
	printf("lost:       ");
	{
		int any = 0;

		for (int cpu = 0; cpu < 1024; cpu++) {
			if (g_info.lost[cpu] || g_info.lost_rec[cpu]) {
				printf(" cpu%d=%llu", cpu, (unsigned long long)(g_info.lost[cpu] + g_info.lost_rec[cpu]));
				if (g_info.lost_rec[cpu])
					printf("(recorder %llu)", (unsigned long long)g_info.lost_rec[cpu]);
				any = 1;
			}
		}
		if (s->stats.lost_samples) {
			printf(" samples=%llu", (unsigned long long)s->stats.lost_samples);
			any = 1;
		}
		printf("%s\n", any ? "" : " none");
	}
	pp_symtab__coverage(s->syms, &ksyms, &dsos, &dsos_syms, &maps);
	printf("symbols:     %llu kernel, %llu DSOs (%llu with embedded symbols), %llu maps\n",
	       (unsigned long long)ksyms, (unsigned long long)dsos, (unsigned long long)dsos_syms,
	       (unsigned long long)maps);
	{
		/* which source named each DSO whose symbols the file carries */
		static const char *const src[] = { "embedded", ".symtab", "debug file",
						   "MiniDebugInfo", ".dynsym only", "perf map" };
		const char *dpath;
		size_t nsym;
		int so;

		for (size_t i = 0; !pp_symtab__dso(s->syms, i, &dpath, &so, &nsym); i++)
			if (so >= 0 && so < (int)(sizeof(src) / sizeof(src[0])))
				printf("  %-40s %-14s %zu symbols\n", dpath, src[so], nsym);
	}
	info_call_graph(s);
	if (s->stats.cut_stacks)
		printf("stacks:      %llu cut at a bad frame (%llu entries dropped)\n",
		       (unsigned long long)s->stats.cut_stacks, (unsigned long long)s->stats.cut_frames);
	rs = pp_reader__stats(s->reader);
	printf("index:       %s\n", rs->has_footer ? "footer and index" : "none (file not closed cleanly; scanned)");
	/* The plain scan above saw every chunk: its counts are the complete ones. */
	if (r)
		rs = pp_reader__stats(r);
	if (info_damaged(s, rs)) {
		char lies[512];

		printf("damage:      %llu corrupt chunks, %llu resyncs, %llu bytes skipped",
		       (unsigned long long)rs->corrupt, (unsigned long long)rs->resyncs,
		       (unsigned long long)rs->bytes_skipped);
		if (rs->truncated)
			printf(", truncated at %llu", (unsigned long long)rs->truncated_at);
		printf(", %llu bad records, %llu out of order", (unsigned long long)s->stats.bad_records,
		       (unsigned long long)s->stats.out_of_order);
		if (pp_session__lies(s, rs, lies, sizeof(lies)))
			printf(" (%s)", lies);
		printf("\n");
	} else {
		printf("damage:      none\n");
	}
}

static int cmd_info(const char *path, int json)
{
	struct pp_opts o = { 0 };
	struct pp_session *s = pp_session__new(&info_analyzer, &o);
	struct pp_reader *r;
	struct pp_chunk c;
	struct info_chunks ch = { 0 };
	int ret;

	if (!s)
		return 1;
	pp_mem__set_limit(pp_mem__default(), 0);
	if (pp_session__open_file(s, path)) {
		pp_session__free(s);
		return 1;
	}
	ret = pp_session__run(s);
	if (pp_mem__exceeded()) {	/* said in one line: no report of part of the file */
		pp_session__free(s);
		return 1;
	}
	/* Sizes: a plain scan of every chunk header. */
	{
		/* the same checks as the replay's, for the same counts */
		struct pp_reader_opts ro = { .check = pp_session__check_claim, .check_ctx = s };

		r = pp_reader__open_path(path, &ro);
	}
	while (r && pp_reader__next(r, &c) == 1) {
		ch.nr++;
		ch.stored += c.hdr->stored_size;
		ch.raw += c.hdr->raw_size;
		if (c.hdr->type < 0x30)
			ch.types[c.hdr->type]++;
		ch.data += c.hdr->type == PP_CHUNK_DATA;
	}
	if (json) {
		/* the plain scan saw every chunk: its counts are the complete ones */
		info_json(s, path, &ch, pp_reader__stats(r ? r : s->reader));
		pp_reader__free(r);
		pp_session__free(s);
		return ret ? 1 : 0;
	}
	info_text(s, path, &ch, r);
	pp_reader__free(r);
	pp_session__free(s);
	return ret ? 1 : 0;
}

/* ---- dump ---- */

static const char *rec_name(uint32_t t)
{
	static const char *const n[] = {
		[PERF_RECORD_MMAP] = "MMAP", [PERF_RECORD_LOST] = "LOST", [PERF_RECORD_COMM] = "COMM",
		[PERF_RECORD_EXIT] = "EXIT", [PERF_RECORD_THROTTLE] = "THROTTLE",
		[PERF_RECORD_UNTHROTTLE] = "UNTHROTTLE", [PERF_RECORD_FORK] = "FORK",
		[PERF_RECORD_READ] = "READ", [PERF_RECORD_SAMPLE] = "SAMPLE", [PERF_RECORD_MMAP2] = "MMAP2",
		[PERF_RECORD_AUX] = "AUX", [PERF_RECORD_ITRACE_START] = "ITRACE_START",
		[PERF_RECORD_LOST_SAMPLES] = "LOST_SAMPLES", [PERF_RECORD_SWITCH] = "SWITCH",
		[PERF_RECORD_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE", [PERF_RECORD_NAMESPACES] = "NAMESPACES",
		[PERF_RECORD_KSYMBOL] = "KSYMBOL", [PERF_RECORD_BPF_EVENT] = "BPF_EVENT",
		[PERF_RECORD_CGROUP] = "CGROUP", [PERF_RECORD_TEXT_POKE] = "TEXT_POKE",
	};

	return t < sizeof(n) / sizeof(n[0]) && n[t] ? n[t] : "UNKNOWN";
}

/* A chunk's stream as a reader names it: "meta", a CPU, "ftrace:CPU". */
static const char *stream_name(char *buf, size_t len, uint32_t stream)
{
	if (stream == PP_STREAM_META)
		return "meta";
	snprintf(buf, len, stream & PP_STREAM_FTRACE ? "ftrace:%u" : "%u",
		 stream & ~PP_STREAM_FTRACE);
	return buf;
}

static int cmd_dump(const char *path)
{
	struct pp_opts o = { 0 };
	struct pp_session *s = pp_session__new(&info_analyzer, &o);
	struct pp_reader_opts ro = { 0 };
	struct pp_reader *r;
	struct pp_chunk c;
	struct pp_out *out;
	int ret;

	if (!s)
		return 1;
	r = pp_reader__open_path(path, &ro);
	if (!r) {
		fprintf(stderr, "pp-analyze: %s: %s\n", path, pp_reader__strerror(errno));
		pp_session__free(s);
		return 1;
	}
	out = pp_session__out(s);
	while ((ret = pp_reader__next(r, &c)) == 1) {
		struct pp_rec_iter it;
		struct pp_rec rec;
		char sn[24];
		const char *stream = stream_name(sn, sizeof(sn), c.hdr->stream);

		pp_out__printf(out, "\n# chunk %llu at %#llx: type %#x stream %s codec %u stored %u raw %u ts %llu..%llu\n",
			       (unsigned long long)c.hdr->seq, (unsigned long long)c.offset, c.hdr->type,
			       stream, c.hdr->codec, c.hdr->stored_size, c.hdr->raw_size,
			       (unsigned long long)c.hdr->first_ts, (unsigned long long)c.hdr->last_ts);
		if (c.hdr->type != PP_CHUNK_DATA) {
			pp_session__meta_chunk(s, c.hdr->type, c.data, c.size, c.hdr->stream);
			continue;
		}
		pp_rec_iter__init(&it, c.data, c.size);
		while (pp_rec_iter__next(&it, &rec)) {
			uint64_t id = pp_sample__id(rec.data, rec.size), ts = 0;
			struct pp_evsel *ev = pp_session__evsel_by_id(s, id);

			pp_session__record_ts(s, rec.data, rec.size, &ts);
			pp_out__printf(out, "%llu [%s] %s size %u misc %#x id %llu %s",
				       (unsigned long long)ts, stream, rec_name(rec.type),
				       rec.size, rec.misc, (unsigned long long)id, ev ? ev->name : "(unknown id)");
			if (rec.type == PERF_RECORD_SAMPLE && ev) {
				struct pp_sample smp;

				if (!pp_sample__parse(ev->sample_type, rec.data, rec.size, &smp))
					/* pid -1: the tid's process, told by the task table (ftrace pages) */
					pp_out__printf(out, " pid %d tid %u cpu %u period %llu raw %u chain %llu",
						       (int)smp.pid, smp.tid, smp.cpu, (unsigned long long)smp.period,
						       smp.raw_size, (unsigned long long)smp.nr_callchain);
				else
					pp_out__puts(out, " (malformed)");
			}
			pp_out__putc(out, '\n');
			/* 32-bit offsets: a 16-bit one wraps past 65,520 and never ends */
			for (uint32_t off = 0; off < rec.size; off += 16) {
				pp_out__printf(out, "  %04x:", off);
				for (uint32_t k = off; k < off + 16 && k < rec.size; k++)
					pp_out__printf(out, " %02x", rec.data[k]);
				pp_out__putc(out, '\n');
			}
		}
		if (it.bad)
			pp_out__puts(out, "# malformed record: rest of chunk skipped\n");
	}
	pp_out__flush(out);
	if (ret < 0)
		fprintf(stderr, "pp-analyze: %s: %s\n", path, ret == -EPROTO ? "unknown critical chunk" : strerror(-ret));
	{
		const struct pp_reader_stats *rs = pp_reader__stats(r);

		if (rs->corrupt || rs->truncated)
			fprintf(stderr, "pp-analyze: warning: damaged trace: %llu corrupt chunks%s\n",
				(unsigned long long)rs->corrupt, rs->truncated ? ", truncated" : "");
	}
	pp_reader__free(r);
	pp_session__free(s);
	return 0;
}

static int cmd_profiler(const struct pp_analyzer *a, int argc, char **argv)
{
	struct pp_opts o;
	struct pp_session *s;
	char err[256];
	int ret = 0;

	if (pp_opts__parse(a, argc, argv, &o, err, sizeof(err))) {
		fprintf(stderr, "pp-analyze: %s: %s\n", a->name, err);
		return 2;
	}
	if (o.workload && !o.live) {
		fprintf(stderr, "pp-analyze: %s: a command after '--' needs --live "
			"(to trace a command into a file, use pp-record)\n", a->name);
		return 2;
	}
	if (!o.live && o.duration_ns) {
		fprintf(stderr, "pp-analyze: %s: -d needs --live\n", a->name);
		return 2;
	}
	pp_mem__set_limit(o.max_memory ? o.max_memory : pp_mem__default(), !!o.max_memory);
	s = pp_session__new(a, &o);
	if (!s)
		return errno == EINVAL ? 2 : 1;
	g_session = s;
	if (o.live)
		ret = pp_session__open_live(s);
	else if (pp_session__open_file(s, o.input ? o.input : "pp.trace"))
		ret = -EIO;	/* a file that cannot be read is no usage error */
	if (!ret)
		ret = pp_session__run(s);
	g_session = NULL;
	pp_session__free(s);
	/* spec/pp-errors.md: -EINVAL from options, events or a module's init is usage */
	return ret == -EINVAL ? 2 : ret ? 1 : 0;
}

int main(int argc, char **argv)
{
	const struct pp_analyzer *a;
	struct sigaction sa = { .sa_handler = on_signal };

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("pp-analyze %s\n", PP_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "list")) {
		cmd_list();
		return 0;
	}
	if (!strcmp(argv[1], "usdt")) {
		char err[512];

		if (argc != 4 || strcmp(argv[2], "list")) {
			fprintf(stderr, "pp-analyze: usage: pp-analyze usdt list BINARY\n");
			return 2;
		}
		if (pp_usdt__print_list(argv[3], stdout, err, sizeof(err))) {
			fprintf(stderr, "pp-analyze: %s\n", err);
			return 1;
		}
		return 0;
	}
	if (!strcmp(argv[1], "info")) {
		const char *path = "pp.trace";
		int json = 0;

		for (int i = 2; i < argc; i++) {
			if (!strcmp(argv[i], "--json")) {
				json = 1;
			} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
				puts("usage: pp-analyze info [--json] [FILE]   (FILE: pp.trace by default)\n"
				     "  what FILE holds, and its damage; --json: one JSON object");
				return 0;
			} else if (argv[i][0] == '-' && argv[i][1]) {
				fprintf(stderr, "pp-analyze: info: unknown option '%s' "
					"(usage: pp-analyze info [--json] [FILE])\n", argv[i]);
				return 2;
			} else {
				path = argv[i];
			}
		}
		return cmd_info(path, json);
	}
	if (!strcmp(argv[1], "dump"))
		return cmd_dump(argc > 2 ? argv[2] : "pp.trace");
	if (!strcmp(argv[1], "--symbols") || !strcmp(argv[1], "symbols")) {
		if (argc != 3) {
			fprintf(stderr, "pp-analyze: --symbols BINARY: one program, addresses on stdin\n");
			return 2;
		}
		return pp_pprof_symbols(argv[2], stdin, stdout) ? 1 : 0;
	}
	a = pp_analyzer__find(argv[1]);
	if (!a) {
		fprintf(stderr, "pp-analyze: unknown command or profiler '%s' (see pp-analyze list)\n", argv[1]);
		return 2;
	}
	if (argc > 2 && (!strcmp(argv[2], "help") || !strcmp(argv[2], "-h") ||
			 !strcmp(argv[2], "--help"))) {
		pp_analyzer__help(a, stdout);
		return 0;
	}
	return cmd_profiler(a, argc - 2, argv + 2);
}
