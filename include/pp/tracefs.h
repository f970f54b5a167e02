/* SPDX-License-Identifier: MIT */
/*
 * tracefs and /proc access shared by the recorder and the live source of
 * pp-analyze (record/tracefs.c): find or mount tracefs, read its files,
 * expand sys:name wildcards, read an event's id and format, and pack the
 * formats as FORMATS items (include/pp/meta.h).
 */
#ifndef PP_TRACEFS_H
#define PP_TRACEFS_H

#include <stddef.h>
#include <stdint.h>

struct pp_buf;

/**
 * pp_file_read() - a whole file (tracefs, /proc) into memory.
 * @path: the file; @len: receives the length, may be NULL.
 *
 * Reads until EOF rather than trusting st_size (pseudo files report 0).
 * Return: malloc'ed NUL-terminated contents (caller frees), or NULL with
 * errno set (EFBIG above 64 MiB).
 */
char *pp_file_read(const char *path, size_t *len);

/**
 * pp_tracefs_dir() - the tracefs mount, mounting it at /sys/kernel/tracing
 * if needed.
 * @mounted: set to 1 if this call mounted it (the caller says so), may be NULL.
 * Return: path (static), or NULL with errno set.
 */
const char *pp_tracefs_dir(int *mounted);

/**
 * pp_tracefs_read() - read a file below the tracefs dir.
 * @rel: path relative to the tracefs dir ("events/header_page").
 * @len: receives the length, may be NULL.
 * Return: malloc'ed NUL-terminated contents, or NULL with errno set.
 */
char *pp_tracefs_read(const char *rel, size_t *len);

/**
 * pp_tracefs_expand() - the tracepoints matching @sys:@name (fnmatch patterns).
 * @out: receives a malloc'ed array of "sys:name" malloc'ed strings, sorted.
 * Return: count (0 if none), or -errno.
 */
int pp_tracefs_expand(const char *sys, const char *name, char ***out);

/** pp_tracefs_event_id() - tracepoint id of sys:name, or -errno. */
long long pp_tracefs_event_id(const char *sys, const char *name);

/** pp_tracefs_format() - malloc'ed format text of sys:name, or NULL. */
char *pp_tracefs_format(const char *sys, const char *name);

/**
 * pp_tracefs_fields() - the field names of a format text, comma separated,
 * into @buf of @size bytes. Return: @buf.
 */
char *pp_tracefs_fields(const char *format, char *buf, size_t size);

/**
 * pp_tracefs_uprobe_add() - a uprobe (or uretprobe) made through tracefs's
 * uprobe_events, to be opened as a tracepoint. A perf event of the uprobe
 * PMU cannot be inherited: at each fork or thread the kernel reads its path
 * again from a pointer (attr.config1) in the forking task, whose memory is
 * not the recorder's (EFAULT: pthread_create() fails in the traced program).
 * A tracepoint has no pointer. Named "pp_PID/uN"; probes of a pp that died
 * (its PID gone) are removed on the way.
 * @path, @off: the file and the offset in it; @ret: a return probe;
 * @ref_ctr: the offset of its USDT semaphore, 0 when none.
 * @name, @len: receive "pp_PID/uN" for pp_tracefs_uprobe_del().
 * Return: the tracepoint's id, or -errno (-EINVAL: a path uprobe_events
 * cannot take, with white space in it).
 */
long long pp_tracefs_uprobe_add(const char *path, uint64_t off, int ret, uint64_t ref_ctr,
				char *name, size_t len);

/**
 * pp_tracefs_uprobe_del() - remove a probe of pp_tracefs_uprobe_add(), once
 * no perf event uses it. Return: 0 or -errno.
 */
int pp_tracefs_uprobe_del(const char *name);

/**
 * pp_tracefs_put_format() - append one FORMATS item to @b.
 * @kind: PP_FMT_HEADER_PAGE, PP_FMT_EVENT or PP_FMT_PRINTK;
 * @sys, @name: the event ("" and "header_page" for the others);
 * @text: the format text. Errors stick in @b (pp_buf).
 */
void pp_tracefs_put_format(struct pp_buf *b, uint16_t kind, const char *sys, const char *name,
			   const char *text);

/* ---- tracepoints read from a tracefs instance's rings (record/ftrace.c) ---- */

struct pp_ftrace;
struct perf_event_header;
struct pp_perf_evlist;
struct pp_evdescs;
struct pp_ftpage_type;

/**
 * pp_ftrace__open_evlist() - the ftrace source of @el's tracepoints: the
 * evsels marked external (pp_perf_evsel.external, after
 * pp_perf_evlist__open()), built from @ds (same order), read from a tracefs
 * instance on @el's CPUs with rings of @el's size, polled with @el's rings.
 * @ft: receives the source; @bad: receives the index of the event that
 * failed, -1 if none.
 * Return: 0, -EINVAL (the kernel rejected @ds->v[*bad]'s filter), -EOPNOTSUPP
 * (an event asks for stacks or registers), -EEXIST (an event given twice),
 * -ENOENT (no tracepoint to read) or another -errno; @err says why.
 */
int pp_ftrace__open_evlist(struct pp_perf_evlist *el, const struct pp_evdescs *ds,
			   struct pp_ftrace **ft, int *bad, char *err, size_t errlen);
int pp_ftrace__set_pids(struct pp_ftrace *ft, const int *pids, int nr, int children);
int pp_ftrace__start(struct pp_ftrace *ft);
void pp_ftrace__stop(struct pp_ftrace *ft);
uint64_t pp_ftrace__read(struct pp_ftrace *ft, int ci, int final,
			 void (*emit)(void *ctx, const struct perf_event_header *h, int tag,
				      uint64_t ts), void *ctx);
uint64_t pp_ftrace__pages(struct pp_ftrace *ft, int ci, int final, uint8_t *(*slot)(void *ctx),
			  void (*done)(void *ctx, size_t len, uint64_t ts), void *ctx);
size_t pp_ftrace__page_size(const struct pp_ftrace *ft);
int pp_ftrace__nr_types(const struct pp_ftrace *ft);
int pp_ftrace__types(const struct pp_ftrace *ft, int ci, struct pp_ftpage_type *t);
uint64_t pp_ftrace__dropped(struct pp_ftrace *ft, int ci);
uint64_t pp_ftrace__events(struct pp_ftrace *ft);
int64_t pp_ftrace__clock_offset(struct pp_ftrace *ft);
int pp_ftrace__fd(const struct pp_ftrace *ft, int ci);
void pp_ftrace__free(struct pp_ftrace *ft);

#endif /* PP_TRACEFS_H */
