/* SPDX-License-Identifier: MIT */
/*
 * pp replay core: a source (trace file or live rings) -> cross-CPU merge by
 * timestamp -> decoding with the formats embedded in the file -> analyzer
 * callbacks. Also the helpers analyzers use: buffered output, tracepoint
 * field access, event names, comm lookup and symbolization.
 */
#ifndef PP_REPLAY_H
#define PP_REPLAY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "pp/analyzer.h"

struct tep_handle;
struct tep_event;
struct tep_format_field;

/* An event of the trace: one ATTRS item. */
struct pp_btf_fmt;

struct pp_evsel {
	int idx;
	char name[128];			/* "sched:sched_switch", "cpu-clock" */
	uint32_t type;			/* perf attr type */
	uint64_t config;
	uint64_t sample_type;
	uint64_t read_format;
	uint64_t sample_regs_user;	/* registers user samples carry (the regs attribute) */
	uint64_t sample_freq;		/* Hz when sampled at a frequency (-F), else 0 */
	uint64_t sample_period;		/* a sample every N events when not at a frequency, else 0 */
	struct tep_event *tp;		/* tracepoint format, NULL if none */
	const struct pp_evspec *spec;	/* the -e entry it matched, NULL if none */
	void *plan;			/* compiled print plan (replay/print.c) */
	void *guard;			/* what a record must hold before libtraceevent prints it (replay/fmt-check.c) */
	uint64_t nr_samples;		/* samples replayed */
	uint64_t nr_lost;
	void *priv;			/* free for the analyzer */
	void *src;			/* the event source it feeds (replay core), or NULL */
	const struct pp_btf_fmt *btf;	/* BPF output record layout (FORMATS BTF), or NULL */
};

/* Buffered output: one big buffer, written with one write(2) when full. */
struct pp_out {
	char *buf;
	size_t len;
	size_t cap;
	int fd;
	int error;
};

void pp_out__init(struct pp_out *o, int fd);
void pp_out__exit(struct pp_out *o);
/** pp_out__flush() - write the buffer out. Return: 0 or -errno. */
int pp_out__flush(struct pp_out *o);
/** pp_out__reserve_slow() - pp_out__reserve() when the buffer is full or in error. */
char *pp_out__reserve_slow(struct pp_out *o, size_t n);

/**
 * pp_out__reserve() - make sure @n bytes fit; Return: pointer to write at.
 * Inline: most calls find the room there.
 */
static inline char *pp_out__reserve(struct pp_out *o, size_t n)
{
	if (o->cap - o->len >= n && !o->error)
		return o->buf + o->len;
	return pp_out__reserve_slow(o, n);
}
/** pp_out__write_slow() - pp_out__write() when the buffer is full or @n is large. */
void pp_out__write_slow(struct pp_out *o, const void *p, size_t n);
void pp_out__puts(struct pp_out *o, const char *s);

/**
 * pp_out__write() - append @n bytes; inline because most writes are a few
 * bytes and a call plus a memcpy call cost more than the copy.
 */
static inline void pp_out__write(struct pp_out *o, const void *p, size_t n)
{
	char *d = o->buf + o->len;
	const char *sp = (const char *)p;

	if (n > 32 || o->cap - o->len < n) {
		pp_out__write_slow(o, p, n);
		return;
	}
	o->len += n;
	while (n >= 8) {
		uint64_t x;

		__builtin_memcpy(&x, sp, 8);
		__builtin_memcpy(d, &x, 8);
		d += 8;
		sp += 8;
		n -= 8;
	}
	if (n & 4) {
		uint32_t x;

		__builtin_memcpy(&x, sp, 4);
		__builtin_memcpy(d, &x, 4);
		d += 4;
		sp += 4;
	}
	if (n & 2) {
		uint16_t x;

		__builtin_memcpy(&x, sp, 2);
		__builtin_memcpy(d, &x, 2);
		d += 2;
		sp += 2;
	}
	if (n & 1)
		*d = *sp;
}

/** pp_out__putc() - append one character. */
static inline void pp_out__putc(struct pp_out *o, char c)
{
	if (o->len < o->cap) {
		o->buf[o->len++] = c;
		return;
	}
	pp_out__write_slow(o, &c, 1);
}
void pp_out__printf(struct pp_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pp_out__u64(struct pp_out *o, uint64_t v);
/* Decimal digits without printf (replay/out.c): their number, and writing them backwards from @end. */
size_t pp_dec_len(uint64_t v);
void pp_dec_put(char *end, uint64_t v);
/** pp_dec_put6() - the six digits of @v (< 1,000,000) at @d, zero-padded. */
void pp_dec_put6(char *d, uint32_t v);
/** pp_out__u64_pad() - @v in decimal, right-aligned in @width characters of @pad. */
void pp_out__u64_pad(struct pp_out *o, uint64_t v, size_t width, char pad);
void pp_out__i64(struct pp_out *o, int64_t v);
/** pp_out__json_str() - write @s as a JSON string with quotes. */
void pp_out__json_str(struct pp_out *o, const char *s);
/* Strings from a file, for a terminal: control and invalid bytes as \xNN (replay/out.c). */
size_t pp_text_escape(char *dst, size_t cap, const char *src);
size_t pp_text_size(const char *src);
void pp_out__text(struct pp_out *o, const char *s);

/**
 * pp_out__text_n() - pp_out__text() of @n bytes that need not end in a NUL
 * (a record's string field, whose bytes come from the file).
 */
void pp_out__text_n(struct pp_out *o, const char *s, size_t n);

/* Session: one replay run. */
struct pp_session;

struct pp_session_stats {
	uint64_t records;		/* perf records read from DATA */
	uint64_t samples;
	uint64_t out_of_order;		/* records older than the last delivered */
	uint64_t unknown_id;		/* records whose id is not in ATTRS */
	uint64_t bad_records;		/* records that failed to parse */
	uint64_t lost_records;		/* kernel LOST counts */
	uint64_t lost_samples;		/* LOST_SAMPLES counts */
	uint64_t lost_recorder;		/* LOST chunk counts */
	uint64_t lost_windows;
	uint64_t decode_errors;
	uint64_t data_chunks;
	uint64_t meta_chunks;
	uint64_t first_ts, last_ts;
	uint64_t cut_stacks;		/* callchains cut at a bad user frame */
	uint64_t cut_frames;		/* entries dropped from them */
	/* records skipped for a lie (spec/pp-trace-format.md 5.8), by check */
	uint64_t bad_cpu;		/* samples on a CPU at or past the recorded CPU count */
	uint64_t bad_lost;		/* kernel drop counts no ring could have */
};

/**
 * pp_session__new() - a replay session for module @a with options @o.
 * Return: session, or NULL with errno set.
 */
struct pp_session *pp_session__new(const struct pp_analyzer *a, const struct pp_opts *o);

/**
 * pp_session__open_file() - use the trace at @path as the source.
 * Reads the metadata at the beginning (machine, attrs, formats).
 * Return: 0 or -errno (a message is printed).
 */
int pp_session__open_file(struct pp_session *s, const char *path);

/**
 * pp_session__open_live() - open the module's events on this host's rings.
 * Return: 0 or -errno (a message is printed).
 */
int pp_session__open_live(struct pp_session *s);

/**
 * pp_session__run() - init the module, replay every event, report.
 * Return: 0 or -errno.
 */
int pp_session__run(struct pp_session *s);

/** pp_session__free() - free; accepts NULL. */
void pp_session__free(struct pp_session *s);

/** pp_session__stop() - ask the run loop to stop (signal-safe). */
void pp_session__stop(struct pp_session *s);

/* Accessors for analyzers. */
const struct pp_opts *pp_session__opts(const struct pp_session *s);

/**
 * pp_session__evspec() - the parsed -e entry @i (pp_opts.events[@i]): its
 * filter and attributes (key=, top-by=, ...); a profiler used as an event
 * source has @source set and its attributes only.
 * Return: the spec, NULL when @i is out of range.
 */
const struct pp_evspec *pp_session__evspec(const struct pp_session *s, int i);
struct pp_out *pp_session__out(struct pp_session *s);
void *pp_session__priv(const struct pp_session *s);
void pp_session__set_priv(struct pp_session *s, void *priv);
struct tep_handle *pp_session__tep(const struct pp_session *s);
const struct pp_session_stats *pp_session__stats(const struct pp_session *s);
/**
 * pp_session__bpf_agg() - the in-kernel aggregator whose items the session
 * hands to ->bpf_item() (enum pp_agg), 0 when it reads events: known from
 * ->init() on. A module whose aggregator is optional (.bpf_agg_opt) asks
 * it to know which of the two a file or a live run holds.
 */
int pp_session__bpf_agg(const struct pp_session *s);
/**
 * pp_session__interval_start() - where the interval that ->interval() is
 * ending began (the previous -i boundary, or the first event): an
 * interval callback computes its real length as @now minus this. The last
 * interval, which ends at the last event, is the one shorter than -i.
 * Return: perf-clock ns; 0 without -i or before the first event.
 */
uint64_t pp_session__interval_start(const struct pp_session *s);
/**
 * pp_session__set_interval() - set -i from a module's init, when the user
 * gave none and the module needs intervals (profile --top: 1 s).
 * @s: session; @ns: the interval, ns.
 */
void pp_session__set_interval(struct pp_session *s, uint64_t ns);
/** pp_session__evsels() - the events of the trace. Return: array of @nr. */
struct pp_evsel *pp_session__evsels(struct pp_session *s, size_t *nr);
/** pp_session__machine() - a MACHINE key's value, or NULL. */
const char *pp_session__machine(const struct pp_session *s, const char *key);
/** pp_session__comm() - the last comm known for @tid (or its pid); never NULL. */
const char *pp_session__comm(const struct pp_session *s, uint32_t tid);
/**
 * pp_session__comm_gen() - a number that changes whenever a comm may have:
 * while it stays, pp_session__comm() gives every thread what it gave.
 */
uint32_t pp_session__comm_gen(const struct pp_session *s);
/**
 * pp_session__is_target() - is thread @tid one of the tasks the run is about?
 * @s: session; @tid: a kernel task id from an event's fields (prev_pid,
 *     next_pid, the pid of a wakeup).
 *
 * The targets are the -p processes (every thread, and the processes they
 * fork later), the -t threads, else the COMMAND of a live run and its
 * descendants, else those the recorder wrote when it widened the recording
 * for a .needs_system_wide module (MACHINE target_pids, target_tids); forks
 * are followed through the FORK records. Meant for .needs_system_wide
 * modules, whose events the core does not filter on the sample's pid.
 * Return: 1 when @tid is a target or there are no targets, else 0.
 */
int pp_session__is_target(const struct pp_session *s, uint32_t tid);
/** pp_session__realtime() - wall-clock ns for a perf-clock time, 0 if unknown. */
uint64_t pp_session__realtime(const struct pp_session *s, uint64_t ts);
/**
 * pp_session__fail() - make the run fail although it goes on to its end: an
 * output the module could not write (a flame graph, a heat map). The
 * module prints its message first; the first error is kept.
 * @s: session; @err: -errno; -EINVAL makes it a usage error (exit 2),
 *     anything else a runtime failure (exit 1).
 */
void pp_session__fail(struct pp_session *s, int err);

/**
 * pp_session__output_ok() - check an output name a module will write at
 * its report (--flame-graph NAME, --heatmap NAME) before the run, so a
 * typo costs no replay: not empty, not a directory, in a directory that
 * exists and can be written. Prints `pp-analyze: MESSAGE` when not.
 * @s: session; @opt: the option, for the message ("--heatmap");
 * @path: the file that will be written (NAME.svg).
 * Return: 0, -EINVAL (empty or a directory: usage), -errno (the directory).
 */
int pp_session__output_ok(struct pp_session *s, const char *opt, const char *path);

/** pp_session__warn() - a warning line on stderr (counted). */
void pp_session__warn(struct pp_session *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/**
 * pp_session__sym() - symbolize @addr of @pid.
 * @s: session; @pid: process (ignored for kernel addresses).
 * @addr: the address.
 * @kernel: 1 when the address is a kernel one.
 * @buf, @len: receives "func", or "dso+0xoff", or "0xaddr".
 * @dso: receives the DSO name or "[kernel.kallsyms]", may be NULL.
 *
 * Order: embedded KSYMS/USYMS, /usr/lib/debug/.build-id, the DSO path on
 * this machine, else "dso+0xoff" (never a bare [unknown] when the DSO is known).
 * Return: 1 if a symbol was found, 0 otherwise (buf still filled).
 */
int pp_session__sym(struct pp_session *s, uint32_t pid, uint64_t addr, int kernel,
		    char *buf, size_t len, const char **dso);

/*
 * The mapping an address falls in, for outputs that carry mappings (pprof).
 * @start, @end, @pgoff: its address range and file offset (the kernel: from
 * its lowest symbol to the top of the address space, offset 0).
 * @path: the file ("[kernel.kallsyms]" for the kernel); @build_id,
 * @build_id_size: its build-id (size 0 when unknown). Lent until the
 * session's maps or symbols change.
 */
struct pp_map_info {
	uint64_t start, end, pgoff;
	const char *path;
	const uint8_t *build_id;
	uint32_t build_id_size;
};

/**
 * pp_session__map() - the mapping of @addr of @pid (@kernel: a kernel address).
 * @m: receives it.
 * Return: 1 when found, 0 when the address is in no known mapping.
 */
int pp_session__map(struct pp_session *s, uint32_t pid, uint64_t addr, int kernel,
		    struct pp_map_info *m);

/**
 * pp_session__sym_offset() - how far @addr of @pid (@kernel: a kernel
 * address) is into the symbol pp_session__sym() names (perf script's
 * "sym+0xoff").
 * @off: receives the distance.
 * Return: 1 when the address is in a known symbol, else 0.
 */
int pp_session__sym_offset(struct pp_session *s, uint32_t pid, uint64_t addr, int kernel,
			   uint64_t *off);

/**
 * pp_session__print_stack() - print the callchain of @e, one frame a line,
 * callee first, each line prefixed by @indent.
 */
void pp_session__print_stack(struct pp_session *s, const struct pp_event *e, const char *indent);

/**
 * pp_session__fold_stack() - append the folded stack of @e to @b:
 * "comm;outer;...;inner" with kernel frames suffixed "_[k]".
 * @buf, @len: destination, NUL-terminated. Return: length written.
 */
size_t pp_session__fold_stack(struct pp_session *s, const struct pp_event *e, char *buf, size_t len);

/**
 * pp_session__stack_frames() - the frames of @e's callchain, root first:
 * comm, outermost caller, ..., innermost; kernel frames suffixed "_[k]".
 * @names: storage for @max names; @frames: receives pointers: frames[0] into
 * names[0] (the comm, which a caller may rewrite), the others into @names or
 * the session's frame cache, valid until the next call.
 * Return: number of frames (at least 1, the comm).
 */
size_t pp_session__stack_frames(struct pp_session *s, const struct pp_event *e, char (*names)[128],
				const char **frames, size_t max);

/**
 * pp_session__stack_ips() - the code addresses pp_session__stack_frames()
 * names after the comm, in its order (outermost caller first), without the
 * context markers.
 * @ips: receives up to @max addresses; @kernel: receives 1 for each kernel
 * frame, else 0.
 * Return: the number of addresses.
 */
size_t pp_session__stack_ips(const struct pp_session *s, const struct pp_event *e, uint64_t *ips,
			     uint8_t *kernel, size_t max);

/**
 * pp_session__frame_name() - the name pp_session__stack_frames() gives the
 * frame @ip of @pid: the symbol, with "_[k]" for a kernel frame.
 * @buf: at least 128 bytes. Return: its length.
 */
size_t pp_session__frame_name(struct pp_session *s, uint32_t pid, uint64_t ip, int kernel,
			      char *buf);

/**
 * pp_session__sym_version() - what pp_session__sym() of an address of @pid
 * (@kernel: of a kernel address) depends on, as one number: it changes when
 * the process's maps or the symbols change, and processes with the same
 * maps (forked, before they change them) share it. A cache of names keyed
 * by (version, address) needs no pid.
 */
uint64_t pp_session__sym_version(const struct pp_session *s, uint32_t pid, int kernel);

/**
 * pp_session__format_time() - "HH:MM:SS.uuuuuu" (local wall clock) of @ts,
 * or perf-clock "SEC.USEC" when the file has no clock pair. @buf: 32 bytes.
 * Return: length.
 */
size_t pp_session__format_time(struct pp_session *s, uint64_t ts, char *buf);

/**
 * pp_session__prefetch_event() - start loading what printing @e's fields
 * will read; call it before printing the line's head.
 */
void pp_session__prefetch_event(struct pp_session *s, const struct pp_event *e);
/**
 * pp_session__print_event() - write the decoded fields of a tracepoint event
 * (like perf script), with the compiled plan when it handles the format.
 */
void pp_session__print_event(struct pp_session *s, const struct pp_event *e);

/**
 * pp_session__json_fields() - append the payload of @e as JSON members:
 * ,"fields":{...} for a tracepoint (its own fields, typed), ,"text":"..."
 * for a BPF output record, nothing otherwise.
 */
void pp_session__json_fields(struct pp_session *s, const struct pp_event *e);

/* Tracepoint field access. */
/**
 * pp_event__field() - find field @name of @e's tracepoint (cached by name).
 * Return: the libtraceevent field, or NULL.
 */
struct tep_format_field *pp_evsel__field(const struct pp_evsel *ev, const char *name);
/**
 * pp_evsel__fields() - "it has: a, b, c": @ev's own fields (not common_*)
 * for a message about a field it lacks ("it has no fields" when none,
 * "it has no format" for an event without one).
 * @buf, @len: destination. Return: @buf.
 */
char *pp_evsel__fields(const struct pp_evsel *ev, char *buf, size_t len);
/**
 * pp_evsel__field_signed() - is field @f declared signed in its format
 * (`signed:1`, such as a syscall's ret)? A module reading it as a number
 * keeps its sign: pp_event__num() sign-extends it, the module must print,
 * sum and compare it as int64_t. Return: 1 or 0 (also for NULL).
 */
int pp_evsel__field_signed(const struct tep_format_field *f);
/**
 * pp_event__num() - read a numeric field; common_pid etc. included.
 * Return: 0 with @val set, -ENOENT if no such field, -EINVAL if short.
 */
int pp_event__num(const struct pp_event *e, const struct tep_format_field *f, uint64_t *val);
/**
 * pp_event__str() - read a string or char-array field into @buf.
 * Return: 0 or -errno.
 */
int pp_event__str(const struct pp_event *e, const struct tep_format_field *f, char *buf, size_t len);

/*
 * Print plans: libtraceevent's print format compiled once into field reads
 * and formatted writes (replay/print.c).
 */
struct pp_print_plan;
/**
 * pp_print_plan__compile() - compile @ev's print_fmt.
 * Return: plan, or NULL when the format holds something the plan cannot
 * handle (then tep_print_event is used).
 */
struct pp_print_plan *pp_print_plan__compile(struct tep_handle *tep, struct tep_event *ev);
/**
 * pp_print_plan__run() - print one record's fields with @plan.
 * Return: 0, or -EINVAL when the record does not fit (caller falls back).
 */
int pp_print_plan__run(struct pp_print_plan *plan, const void *raw, uint32_t size,
		       struct pp_out *o);
/**
 * pp_print_plan__prefetch() - start loading what pp_print_plan__run() of
 * the same record will read (call it, print the line's head, then run).
 */
void pp_print_plan__prefetch(struct pp_print_plan *plan, const void *raw, uint32_t size);
/** pp_print_plan__free() - accepts NULL. */
void pp_print_plan__free(struct pp_print_plan *plan);

#endif /* PP_REPLAY_H */
