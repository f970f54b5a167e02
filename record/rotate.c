// SPDX-License-Identifier: MIT
/*
 * Output files of a long recording: pp-record --rotate=TIME|SIZE closes a
 * file at a chunk boundary and starts the next, and --flight-recorder dumps
 * what it keeps into new files (record/flight.c). Either way each file must
 * analyze alone, so each starts with the recording's own metadata (MACHINE,
 * FORMATS, ATTRS, kept from the first file) and a fresh symbol collector
 * that snapshots the processes anew; the symbols its data hits follow it.
 *
 * Names sort by time: -o DIR/pp.trace gives DIR/pp-YYYYMMDD-HHMMSS-NNNN.trace
 * (UTC at the file's start, NNNN the file's number in this run, so files
 * started in the same second still sort, and a name is never reused).
 * --max-files=N removes the oldest files of this run beyond N, never files
 * it did not write.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pp/io.h"
#include "pp/writer.h"
#include "record.h"

/**
 * pp_rotate_parse() - parse --rotate's argument: a TIME ("30s", "500ms",
 * "10m", "1h", a bare number of seconds) or a SIZE ("64K", "100M", "2G").
 * @arg: the argument; @ns, @bytes: receive one of them (the other 0).
 * Return: 0 or -EINVAL.
 */
int pp_rotate_parse(const char *arg, uint64_t *ns, uint64_t *bytes)
{
	char *end;
	double v;

	*ns = *bytes = 0;
	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || v <= 0 || v > 1e12)
		return -EINVAL;
	if (!*end || !strcmp(end, "s"))
		*ns = (uint64_t)(v * 1e9);
	else if (!strcmp(end, "ms"))
		*ns = (uint64_t)(v * 1e6);
	else if (!strcmp(end, "m") || !strcmp(end, "min"))
		*ns = (uint64_t)(v * 60e9);
	else if (!strcmp(end, "h"))
		*ns = (uint64_t)(v * 3600e9);
	else if (!strcmp(end, "K") || !strcmp(end, "k") || !strcmp(end, "KB"))
		*bytes = (uint64_t)(v * 1024);
	else if (!strcmp(end, "M") || !strcmp(end, "MB"))
		*bytes = (uint64_t)(v * 1048576);
	else if (!strcmp(end, "G") || !strcmp(end, "GB"))
		*bytes = (uint64_t)(v * 1073741824.0);
	else
		return -EINVAL;
	if (*ns && *ns < 100000000ull)
		return -EINVAL;		/* under 100 ms: a file per flush */
	if (!*ns && *bytes < 4096)
		return -EINVAL;
	return 0;
}

/**
 * pp_rotate__init() - set up the output files of a run.
 * @rt: state, zeroed by the caller; @output: -o (its stem and extension
 * name the files); @max_files: 0 for no limit.
 */
void pp_rotate__init(struct pp_rotate *rt, const char *output, int max_files)
{
	const char *slash = strrchr(output, '/'), *dot = strrchr(output, '.');

	rt->output = output;
	rt->max_files = max_files;
	/* the extension is the last dot of the file name, not of a directory */
	rt->ext_at = dot && dot > (slash ? slash + 1 : output) ? (size_t)(dot - output) :
		     strlen(output);
	for (int i = 0; i < PP_ROTATE_META; i++)
		pp_buf__init(&rt->meta[i].b);
	pp_buf__init(&rt->sb);
}

/** pp_rotate__exit() - free the names and the kept metadata. */
void pp_rotate__exit(struct pp_rotate *rt)
{
	for (int i = 0; i < rt->nr_names; i++)
		free(rt->names[i]);
	free(rt->names);
	rt->names = NULL;
	rt->nr_names = 0;
	for (int i = 0; i < PP_ROTATE_META; i++)
		pp_buf__exit(&rt->meta[i].b);
	pp_buf__exit(&rt->sb);
}

/**
 * pp_rotate__next_name() - the name of the next file: STEM-YYYYMMDD-HHMMSS-NNNN.EXT.
 * @rt: state (its counter advances); @buf, @len: destination.
 */
void pp_rotate__next_name(struct pp_rotate *rt, char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;
	char ts[32];

	gmtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%Y%m%d-%H%M%S", &tm);
	snprintf(buf, len, "%.*s-%s-%04u%s", (int)rt->ext_at, rt->output, ts, ++rt->seq,
		 rt->output + rt->ext_at);
}

/**
 * pp_rotate__added() - a file of this run now exists at @name: remember it
 * and remove the oldest beyond --max-files.
 */
void pp_rotate__added(struct pp_rotate *rt, const char *name)
{
	char **nv = realloc(rt->names, (size_t)(rt->nr_names + 1) * sizeof(*nv));

	if (!nv)
		return;
	rt->names = nv;
	rt->names[rt->nr_names] = strdup(name);
	if (!rt->names[rt->nr_names])
		return;
	rt->nr_names++;
	rt->files++;
	while (rt->max_files > 0 && rt->nr_names > rt->max_files) {
		if (unlink(rt->names[0]) && errno != ENOENT)
			fprintf(stderr, "pp-record: cannot remove %s: %s\n", rt->names[0],
				strerror(errno));
		rt->removed++;
		free(rt->names[0]);
		memmove(rt->names, rt->names + 1, (size_t)(rt->nr_names - 1) * sizeof(*rt->names));
		rt->nr_names--;
	}
}

/**
 * pp_rotate__keep() - keep a copy of a metadata payload every file starts
 * with (MACHINE, FORMATS, ATTRS), in the order given.
 */
void pp_rotate__keep(struct pp_rotate *rt, uint16_t type, const struct pp_buf *b)
{
	if (rt->nr_meta == PP_ROTATE_META)
		return;
	rt->meta[rt->nr_meta].type = type;
	pp_buf__append(&rt->meta[rt->nr_meta].b, b->data, b->len);
	rt->nr_meta++;
}

/**
 * pp_rotate__due() - whether the current file is to be closed before the
 * next chunk: opened --rotate TIME ago, or grown to --rotate SIZE.
 * @now: CLOCK_MONOTONIC ns; @size: the file's size.
 */
int pp_rotate__due(const struct pp_rotate *rt, uint64_t now, uint64_t size)
{
	if (rt->every_ns && now - rt->opened_ns >= rt->every_ns)
		return 1;
	return rt->bytes && size >= rt->bytes;
}

static int put_meta(struct pp_writer *w, uint16_t type, const struct pp_buf *b)
{
	struct pp_chunk_desc d = { .type = type, .stream = PP_STREAM_META };

	if (b->error)
		return b->error;
	return b->len ? pp_writer__append_chunk(w, &d, b->data, b->len) : 0;
}

/**
 * pp_rotate__start() - open the next file and write what it needs to stand
 * alone: the kept metadata, then TASKS and MMAPS of a new symbol collector
 * (all processes, or those of rt->snap), and every kernel symbol with
 * --kallsyms=all.
 * @rt: state; @now: CLOCK_MONOTONIC ns (the file's opening time);
 * @io, @w, @syms: receive the file, its writer and the collector (the
 * caller frees them); @name, @namelen: receive the file's name;
 * @err, @errlen: message.
 * Return: 0 or -errno with @err set.
 */
int pp_rotate__start(struct pp_rotate *rt, uint64_t now, struct pp_io **io, struct pp_writer **w,
		     struct pp_syms **syms, char *name, size_t namelen, char *err, size_t errlen)
{
	struct pp_buf t, m, k, u;
	int fd, r = 0;

	*io = NULL;
	*w = NULL;
	*syms = NULL;
	pp_rotate__next_name(rt, name, namelen);
	fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		r = -errno;
		snprintf(err, errlen, "cannot create %s: %s", name, strerror(errno));
		return r;
	}
	rt->fd = fd;
	*io = pp_io_file__new(fd, 1);
	if (!*io) {
		close(fd);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	*w = pp_writer__new(*io, &rt->wo);
	*syms = pp_syms__new(rt->kallsyms_all);
	if (!*w || !*syms) {
		snprintf(err, errlen, "cannot start %s: %s", name, strerror(errno ? errno : ENOMEM));
		return -ENOMEM;
	}
	pp_rotate__added(rt, name);
	rt->opened_ns = now;
	if (rt->ksym_fn)
		pp_syms__set_ksym_fn(*syms, rt->ksym_fn, rt->ksym_ctx);
	for (int i = 0; i < rt->nr_meta && !r; i++)
		r = put_meta(*w, rt->meta[i].type, &rt->meta[i].b);
	/* the maps the side-band told so far: processes the snapshot cannot see */
	if (rt->sb.len && rt->sample_type_of)
		pp_syms__scan(*syms, rt->sb.data, rt->sb.len, rt->sample_type_of, rt->st_ctx);
	pp_buf__init(&t);
	pp_buf__init(&m);
	pp_buf__init(&k);
	pp_buf__init(&u);
	pp_syms__snapshot(*syms, &t, &m, rt->nr_snap ? rt->snap : NULL, rt->nr_snap);
	if (!r)
		r = put_meta(*w, PP_CHUNK_TASKS, &t);
	if (!r)
		r = put_meta(*w, PP_CHUNK_MMAPS, &m);
	if (!r && (rt->kallsyms_all || rt->sb.len)) {
		pp_buf__reset(&m);
		pp_syms__pending(*syms, &k, &u, &m);
		r = put_meta(*w, PP_CHUNK_MMAPS, &m);
		if (!r)
			r = put_meta(*w, PP_CHUNK_KSYMS, &k);
		if (!r)
			r = put_meta(*w, PP_CHUNK_USYMS, &u);
	}
	pp_buf__exit(&t);
	pp_buf__exit(&m);
	pp_buf__exit(&k);
	pp_buf__exit(&u);
	if (r)
		snprintf(err, errlen, "cannot write %s: %s", name, strerror(-r));
	return r;
}

/**
 * pp_rotate__sideband() - keep the side-band records (MMAP, MMAP2, COMM,
 * FORK, EXIT) of a data chunk: every new file learns from them the maps of
 * processes that a /proc snapshot no longer or not yet shows (those that
 * exited, a COMMAND's children). At most PP_ROTATE_SB_MAX bytes are kept;
 * later ones are counted in @rt->sb_dropped.
 * @rt: state; @buf, @len: raw perf records.
 */
void pp_rotate__sideband(struct pp_rotate *rt, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	size_t off = 0;

	while (off + sizeof(struct perf_event_header) <= len) {
		const struct perf_event_header *h = (const void *)(p + off);

		if (h->size < sizeof(*h) || off + h->size > len)
			break;
		if (h->type == PERF_RECORD_MMAP || h->type == PERF_RECORD_MMAP2 ||
		    h->type == PERF_RECORD_COMM || h->type == PERF_RECORD_FORK ||
		    h->type == PERF_RECORD_EXIT) {
			if (rt->sb.len + h->size <= PP_ROTATE_SB_MAX)
				pp_buf__append(&rt->sb, h, h->size);
			else
				rt->sb_dropped++;
		}
		off += h->size;
	}
}

/**
 * pp_rotate__write_syms() - append what @syms discovered since its last
 * call (MMAPS, KSYMS, USYMS) to @w. Return: 0 or -errno.
 */
int pp_rotate__write_syms(struct pp_writer *w, struct pp_syms *syms)
{
	struct pp_buf k, u, m;
	int r;

	pp_buf__init(&k);
	pp_buf__init(&u);
	pp_buf__init(&m);
	pp_syms__pending(syms, &k, &u, &m);
	r = put_meta(w, PP_CHUNK_MMAPS, &m);
	if (!r)
		r = put_meta(w, PP_CHUNK_KSYMS, &k);
	if (!r)
		r = put_meta(w, PP_CHUNK_USYMS, &u);
	pp_buf__exit(&k);
	pp_buf__exit(&u);
	pp_buf__exit(&m);
	return r;
}
