// SPDX-License-Identifier: MIT
/*
 * tracefs access for the recorder and the live source of pp-analyze: find or
 * mount tracefs, read its files (and /proc's), event ids and format texts,
 * expand sys:name wildcards, pack formats as FORMATS items.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "record.h"

static const char *tracefs_path;

static int has_events(const char *dir)
{
	char p[256];
	struct stat st;

	snprintf(p, sizeof(p), "%s/events", dir);
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/**
 * pp_tracefs_dir() - the tracefs mount, mounting it if needed.
 * @mounted: set to 1 if this call mounted it (may be NULL).
 * Return: path, or NULL with errno set.
 */
const char *pp_tracefs_dir(int *mounted)
{
	if (mounted)
		*mounted = 0;
	if (tracefs_path)
		return tracefs_path;
	if (has_events("/sys/kernel/tracing"))
		return tracefs_path = "/sys/kernel/tracing";
	if (has_events("/sys/kernel/debug/tracing"))
		return tracefs_path = "/sys/kernel/debug/tracing";
	if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) == 0 &&
	    has_events("/sys/kernel/tracing")) {
		if (mounted)
			*mounted = 1;
		return tracefs_path = "/sys/kernel/tracing";
	}
	if (!errno)
		errno = ENOENT;
	return NULL;
}

/**
 * pp_file_read() - a whole file into a malloc'ed NUL-terminated string.
 * @path: the file; @len: receives the length, may be NULL.
 * Return: the contents, or NULL with errno set (EFBIG above 64 MiB).
 */
char *pp_file_read(const char *path, size_t *len)
{
	char *buf = NULL;
	size_t n = 0, cap = 0;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	for (;;) {
		ssize_t r;

		if (cap - n < 4097) {
			char *nb;

			cap = cap ? cap * 2 : 16384;
			if (cap > (64u << 20)) {
				errno = EFBIG;
				goto fail;
			}
			nb = realloc(buf, cap);
			if (!nb)
				goto fail;
			buf = nb;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		if (!r)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = 0;
	if (len)
		*len = n;
	return buf;
fail:
	err = errno;
	close(fd);
	free(buf);
	errno = err;
	return NULL;
}

/**
 * pp_tracefs_read() - read a tracefs file.
 * @rel: path relative to the tracefs dir; @len: receives the length or NULL.
 * Return: malloc'ed NUL-terminated contents, or NULL with errno set.
 */
char *pp_tracefs_read(const char *rel, size_t *len)
{
	const char *dir = pp_tracefs_dir(NULL);
	char path[512];

	if (!dir)
		return NULL;
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, rel) >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	return pp_file_read(path, len);
}

/* Write @line to tracefs's uprobe_events. Return: 0 or -errno. */
static int uprobe_events_write(const char *line)
{
	const char *dir = pp_tracefs_dir(NULL);
	char path[512];
	ssize_t n;
	int fd, err = 0;

	if (!dir)
		return -errno;
	snprintf(path, sizeof(path), "%s/uprobe_events", dir);
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, line, strlen(line));
	if (n < 0)
		err = -errno;
	else if ((size_t)n != strlen(line))
		err = -EIO;
	close(fd);
	return err;
}

/* Remove the probes of pp processes that are gone ("p:pp_PID/uN ..."). */
static void uprobe_remove_stale(void)
{
	char *text = pp_tracefs_read("uprobe_events", NULL), *line, *save = NULL;

	for (line = text ? strtok_r(text, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
		char del[160];
		unsigned int pid, seq;

		if (sscanf(line, "%*[pr]:pp_%u/u%u ", &pid, &seq) != 2)
			continue;
		if (pid == (unsigned int)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(del, sizeof(del), "-:pp_%u/u%u\n", pid, seq);
		uprobe_events_write(del);
	}
	free(text);
}

long long pp_tracefs_uprobe_add(const char *path, uint64_t off, int ret, uint64_t ref_ctr,
				char *name, size_t len)
{
	static unsigned int seq;
	static int swept;
	char line[4352], sys[32], ev[32];
	long long id;
	int err;

	if (strpbrk(path, " \t\n") || strlen(path) > 4096)
		return -EINVAL;
	if (!swept) {
		swept = 1;
		uprobe_remove_stale();
	}
	snprintf(sys, sizeof(sys), "pp_%d", (int)getpid());
	snprintf(ev, sizeof(ev), "u%u", __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED));
	if (ref_ctr)
		snprintf(line, sizeof(line), "%c:%s/%s %s:0x%llx(0x%llx)\n", ret ? 'r' : 'p', sys, ev, path,
			 (unsigned long long)off, (unsigned long long)ref_ctr);
	else
		snprintf(line, sizeof(line), "%c:%s/%s %s:0x%llx\n", ret ? 'r' : 'p', sys, ev, path,
			 (unsigned long long)off);
	err = uprobe_events_write(line);
	if (err)
		return err;
	snprintf(name, len, "%s/%s", sys, ev);
	id = pp_tracefs_event_id(sys, ev);
	if (id < 0)
		pp_tracefs_uprobe_del(name);
	return id;
}

int pp_tracefs_uprobe_del(const char *name)
{
	char line[96];

	snprintf(line, sizeof(line), "-:%s\n", name);
	return uprobe_events_write(line);
}

/**
 * pp_tracefs_put_format() - one FORMATS item: @sys, @name and @text.
 * @b: buffer; @kind: PP_FMT_*; @sys, @name: the event; @text: its format.
 */
void pp_tracefs_put_format(struct pp_buf *b, uint16_t kind, const char *sys, const char *name,
			   const char *text)
{
	size_t at = pp_item__begin(b, kind);

	pp_buf__append_str(b, sys);
	pp_buf__append_str(b, name);
	pp_buf__append_str(b, text);
	pp_item__end(b, at);
}

static int push(char ***v, int *n, const char *sys, const char *name)
{
	char **nv = realloc(*v, (size_t)(*n + 1) * sizeof(char *));
	char *s;

	if (!nv)
		return -ENOMEM;
	*v = nv;
	if (asprintf(&s, "%s:%s", sys, name) < 0)
		return -ENOMEM;
	nv[(*n)++] = s;
	return 0;
}

static int is_dir(const char *dir, const char *name)
{
	char p[1280];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/**
 * pp_tracefs_expand() - tracepoints matching @sys:@name patterns.
 * @sys: system pattern; @name: event pattern; @out: receives the names.
 * Return: count or -errno.
 */
int pp_tracefs_expand(const char *sys, const char *name, char ***out)
{
	const char *dir = pp_tracefs_dir(NULL);
	char evdir[512], sdir[1024];
	struct dirent *d, *e;
	DIR *ds, *de;
	char **v = NULL;
	int n = 0, err = 0;

	*out = NULL;
	if (!dir)
		return -errno;
	snprintf(evdir, sizeof(evdir), "%s/events", dir);
	ds = opendir(evdir);
	if (!ds)
		return -errno;
	while (!err && (d = readdir(ds))) {
		if (d->d_name[0] == '.' || fnmatch(sys, d->d_name, 0) || !is_dir(evdir, d->d_name))
			continue;
		snprintf(sdir, sizeof(sdir), "%s/%s", evdir, d->d_name);
		de = opendir(sdir);
		if (!de)
			continue;
		while ((e = readdir(de))) {
			if (e->d_name[0] == '.' || fnmatch(name, e->d_name, 0) ||
			    !is_dir(sdir, e->d_name))
				continue;
			err = push(&v, &n, d->d_name, e->d_name);
			if (err)
				break;
		}
		closedir(de);
	}
	closedir(ds);
	if (err) {
		while (n)
			free(v[--n]);
		free(v);
		return err;
	}
	if (n)
		qsort(v, (size_t)n, sizeof(*v), cmp_str);
	*out = v;
	return n;
}

/**
 * pp_tracefs_event_id() - tracepoint id.
 * @sys: system; @name: event.
 * Return: id or -errno.
 */
long long pp_tracefs_event_id(const char *sys, const char *name)
{
	char rel[512], *s;
	long long id;

	snprintf(rel, sizeof(rel), "events/%s/%s/id", sys, name);
	s = pp_tracefs_read(rel, NULL);
	if (!s)
		return -errno;
	id = strtoll(s, NULL, 10);
	free(s);
	return id;
}

/**
 * pp_tracefs_format() - format text of a tracepoint.
 * @sys: system; @name: event.
 * Return: malloc'ed text or NULL.
 */
char *pp_tracefs_format(const char *sys, const char *name)
{
	char rel[512];

	snprintf(rel, sizeof(rel), "events/%s/%s/format", sys, name);
	return pp_tracefs_read(rel, NULL);
}

/**
 * pp_tracefs_fields() - the field names of a format, comma separated.
 * @format: format text; @buf, @size: output.
 * Return: @buf.
 */
char *pp_tracefs_fields(const char *format, char *buf, size_t size)
{
	const char *p = format;
	size_t n = 0;

	buf[0] = 0;
	while (p && (p = strstr(p, "field:"))) {
		const char *semi = strchr(p, ';'), *nm;
		size_t l;

		if (!semi)
			break;
		/* the name is the last word before ';', minus any [N] */
		nm = semi;
		while (nm > p && nm[-1] != ' ' && nm[-1] != '*')
			nm--;
		l = (size_t)(semi - nm);
		if (memchr(nm, '[', l))
			l = (size_t)((const char *)memchr(nm, '[', l) - nm);
		if (l && strncmp(nm, "common_", 7) && n + l + 3 < size) {
			if (n) {
				memcpy(buf + n, ", ", 2);
				n += 2;
			}
			memcpy(buf + n, nm, l);
			n += l;
			buf[n] = 0;
		}
		p = semi;
	}
	return buf;
}
