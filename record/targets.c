// SPDX-License-Identifier: MIT
/*
 * What a recording is limited to (record/record.h, "targets"): the threads
 * of -p/-t lists, and the perf_event cgroups of --cgroups, by path or by a
 * regular expression over the hierarchy as perf-prof selects them.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include "record.h"

int pp_targets__add(pid_t **v, int *n, pid_t p)
{
	pid_t *nv;

	for (int i = 0; i < *n; i++)
		if ((*v)[i] == p)
			return 0;
	nv = realloc(*v, (size_t)(*n + 1) * sizeof(pid_t));
	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[(*n)++] = p;
	return 0;
}

/* One id of a -p/-t list: its threads (or itself) and itself as a process. */
static int add_id(const char *tok, int threads_of, pid_t **v, int *n, pid_t **procs,
		  int *nprocs, char *err, size_t len)
{
	const char *what = threads_of ? "pid" : "tid";
	char path[64], *end;
	struct dirent *d;
	long id;
	DIR *dir;
	int ret = 0;

	errno = 0;
	id = strtol(tok, &end, 10);
	if (end == tok || *end || errno || id < 1 || id > INT_MAX) {
		snprintf(err, len, "bad %s '%s' (%ld..%ld)", what, tok, 1L, (long)INT_MAX);
		return -EINVAL;
	}
	snprintf(path, sizeof(path), "/proc/%ld/task", id);
	dir = opendir(path);
	if (!dir) {
		snprintf(err, len, "no such %s %ld", threads_of ? "process" : "thread", id);
		return -EINVAL;
	}
	if (threads_of) {
		while (!ret && (d = readdir(dir)))
			if (d->d_name[0] >= '0' && d->d_name[0] <= '9')
				ret = pp_targets__add(v, n, (pid_t)atoi(d->d_name));
	} else {
		ret = pp_targets__add(v, n, (pid_t)id);
	}
	closedir(dir);
	if (!ret)
		ret = pp_targets__add(procs, nprocs, (pid_t)id);
	if (ret)
		snprintf(err, len, "out of memory");
	return ret;
}

int pp_targets__pids(const char *list, int threads_of, pid_t **threads, int *nr_threads,
		     pid_t **procs, int *nr_procs, char *err, size_t len)
{
	char *copy = strdup(list), *tok, *save = NULL;
	int ret = 0;

	if (!copy) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	for (tok = strtok_r(copy, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save))
		ret = add_id(tok, threads_of, threads, nr_threads, procs, nr_procs, err, len);
	free(copy);
	return ret;
}

static const char *const cgroup_roots[] = {
	"/sys/fs/cgroup/perf_event", "/sys/fs/cgroup/unified", "/sys/fs/cgroup",
};

static int is_cgroupfs(const struct statfs *sf)
{
	return (unsigned long)sf->f_type == CGROUP2_SUPER_MAGIC ||
	       (unsigned long)sf->f_type == CGROUP_SUPER_MAGIC;
}

/* A perf_event cgroup directory (v1 perf_event hierarchy or v2), or -1. */
static int open_cgroup(const char *name)
{
	for (size_t i = 0; i < sizeof(cgroup_roots) / sizeof(cgroup_roots[0]); i++) {
		char p[PATH_MAX];
		struct statfs sf;
		int fd;

		snprintf(p, sizeof(p), "%s/%s", cgroup_roots[i], name);
		fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (!fstatfs(fd, &sf) && is_cgroupfs(&sf))
			return fd;
		close(fd);
	}
	return -1;
}

/* The cgroup hierarchy perf_event cgroups live in, or NULL. */
static const char *cgroup_root(void)
{
	for (size_t i = 0; i < sizeof(cgroup_roots) / sizeof(cgroup_roots[0]); i++) {
		struct statfs sf;

		if (!statfs(cgroup_roots[i], &sf) && is_cgroupfs(&sf))
			return cgroup_roots[i];
	}
	return NULL;
}

/* nftw() passes no context: the walk of one pattern at a time. */
static regex_t cg_re;
static int *cg_match_fds;
static int cg_nr_match;
static size_t cg_root_len;

static int cgroup_visit(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	const char *rel = path + cg_root_len;
	int fd;

	if (flag != FTW_D || !*rel)
		return 0;
	rel++;			/* past the '/' */
	if (regexec(&cg_re, rel, 0, NULL, 0))
		return 0;
	if (cg_nr_match >= 1024)
		return 1;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	cg_match_fds[cg_nr_match++] = fd;
	return 0;
}

/* One --cgroups entry: its fds in cg_match_fds (cg_nr_match). */
static int match_cgroups(const char *tok, char *err, size_t len)
{
	const char *root = cgroup_root(), *name = tok[0] == '/' ? tok + 1 : tok;
	char pat[PATH_MAX + 4];
	int fd = open_cgroup(name);

	cg_match_fds = malloc((fd < 0 ? 1024 : 1) * sizeof(int));
	if (!cg_match_fds) {
		if (fd >= 0)
			close(fd);
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	cg_nr_match = 0;
	if (fd >= 0) {
		cg_match_fds[cg_nr_match++] = fd;
		return 0;
	}
	if (!root) {
		snprintf(err, len, "--cgroups: no cgroup hierarchy is mounted below /sys/fs/cgroup");
		return -EINVAL;
	}
	snprintf(pat, sizeof(pat), "^(%s)$", name);
	if (regcomp(&cg_re, pat, REG_EXTENDED | REG_NOSUB)) {
		snprintf(err, len, "--cgroups: '%s' is neither a cgroup nor a valid regular "
			 "expression", tok);
		return -EINVAL;
	}
	cg_root_len = strlen(root);
	nftw(root, cgroup_visit, 32, FTW_PHYS);
	regfree(&cg_re);
	if (!cg_nr_match) {
		snprintf(err, len, "--cgroups: no cgroup below %s is or matches '%s'", root, tok);
		return -EINVAL;
	}
	return 0;
}

int pp_targets__cgroups(const char *list, int **fds, int *nr, char *err, size_t len)
{
	char *copy = strdup(list), *tok, *save = NULL;
	int ret = copy ? 0 : -ENOMEM;

	if (!copy)
		snprintf(err, len, "out of memory");
	for (tok = copy ? strtok_r(copy, ",", &save) : NULL; tok && !ret;
	     tok = strtok_r(NULL, ",", &save)) {
		int *nf;

		ret = match_cgroups(tok, err, len);
		nf = ret ? NULL : realloc(*fds, (size_t)(*nr + cg_nr_match) * sizeof(int));
		if (!ret && !nf) {
			snprintf(err, len, "out of memory");
			ret = -ENOMEM;
		}
		for (int i = 0; nf && i < cg_nr_match; i++)
			nf[(*nr)++] = cg_match_fds[i];
		if (nf)
			*fds = nf;
		free(cg_match_fds);
		cg_match_fds = NULL;
	}
	free(copy);
	return ret;
}
