// SPDX-License-Identifier: MIT
/*
 * The workload COMMAND: forked and held on a pipe before exec until the
 * events are open, so its pid can be a target and enable_on_exec fires on
 * its exec. A failed exec sends its errno back on a second pipe (close on
 * exec: EOF means the exec succeeded).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "pp/workload.h"

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/**
 * pp_workload__lib() - the path of pp's library @name.
 * @name: "libpp-heap.so"; @buf, @len: receive the path.
 * Return: 0, or -ENOENT.
 */
int pp_workload__lib(const char *name, char *buf, size_t len)
{
	const char *dir = getenv("PP_LIB_DIR");
	char exe[4096], *slash;
	ssize_t n;

	if (dir && *dir) {
		if ((size_t)snprintf(buf, len, "%s/%s", dir, name) < len && !access(buf, R_OK))
			return 0;
		return -ENOENT;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return -ENOENT;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return -ENOENT;
	*slash = '\0';
	if ((size_t)snprintf(buf, len, "%s/%s", exe, name) < len && !access(buf, R_OK))
		return 0;
	if ((size_t)snprintf(buf, len, "%s/../lib/pp/%s", exe, name) < len && !access(buf, R_OK))
		return 0;
	return -ENOENT;
}

/*
 * The child's environment: ours, with @preload put first in LD_PRELOAD and
 * @env ("NAME=VALUE") set. Built before fork(); the strings are @strs'.
 * Return: the array (free it, and @strs), or NULL without memory.
 */
static char **child_env(const char *preload, const char *env, char **strs)
{
	const char *old = getenv("LD_PRELOAD");
	size_t n = 0, m = 0, envlen = env ? strcspn(env, "=") + 1 : 0;
	char **out, *ld = NULL;

	for (char **e = environ; *e; e++)
		n++;
	out = calloc(n + 3, sizeof(*out));
	if (!out)
		return NULL;
	if (preload && asprintf(&ld, "LD_PRELOAD=%s%s%s", preload, old && *old ? ":" : "",
				old ? old : "") < 0) {
		free(out);
		return NULL;
	}
	for (char **e = environ; *e; e++) {
		if ((ld && !strncmp(*e, "LD_PRELOAD=", 11)) || (env && !strncmp(*e, env, envlen)))
			continue;
		out[m++] = *e;
	}
	if (ld)
		out[m++] = ld;
	if (env)
		out[m++] = (char *)env;
	*strs = ld;
	return out;
}

/**
 * pp_workload__start() - fork @argv[0] held before exec.
 * @w: filled here; @argv: NULL-terminated command;
 * @preload, @env: see pp/workload.h (NULL: none).
 * Return: 0, or -errno.
 */
/*
 * Until child @pid sleeps on the go pipe (5 s at most): its switch-out there
 * comes before the events are on, so a profiler that sees every task's
 * switches (task-state) does not count the wait as the command's own
 * (a loaded host can leave a new child unscheduled for that long).
 */
static void wait_held(pid_t pid)
{
	char fn[64], buf[256], *p;

	snprintf(fn, sizeof(fn), "/proc/%d/stat", (int)pid);
	for (int i = 0; i < 5000; i++) {
		FILE *f = fopen(fn, "r");
		int held = 0;

		if (!f)
			return;
		if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')))
			held = p[1] == ' ' && p[2] == 'S';
		fclose(f);
		if (held)
			return;
		usleep(1000);
	}
}

/* Where execvpe() finds @name: @name with a '/', else the first PATH entry. */
static void find_program(const char *name, char *out, size_t len)
{
	const char *path = getenv("PATH"), *p, *end;

	out[0] = '\0';
	if (strchr(name, '/')) {
		snprintf(out, len, "%s", name);
		return;
	}
	for (p = path ? path : "/usr/local/bin:/usr/bin:/bin"; p; p = *end ? end + 1 : NULL) {
		end = strchrnul(p, ':');
		snprintf(out, len, "%.*s%s%s", (int)(end - p), p, end > p ? "/" : "", name);
		if (!access(out, X_OK))
			return;
		out[0] = '\0';
	}
}

int pp_workload__start(struct pp_workload *w, char **argv, const char *preload, const char *env)
{
	char **envp = environ, *strs = NULL;
	int go[2], ep[2], err;

	w->pid = -1;
	w->go_fd = w->err_fd = -1;
	find_program(argv[0], w->path, sizeof(w->path));
	if ((preload && *preload) || (env && *env)) {
		envp = child_env(preload && *preload ? preload : NULL, env && *env ? env : NULL, &strs);
		if (!envp)
			return -ENOMEM;
	}
	if (pipe2(go, O_CLOEXEC)) {
		err = -errno;
		goto fail;
	}
	if (pipe2(ep, O_CLOEXEC)) {
		err = -errno;
		close(go[0]);
		close(go[1]);
		goto fail;
	}
	w->pid = fork();
	if (w->pid < 0) {
		err = -errno;
		close(go[0]);
		close(go[1]);
		close(ep[0]);
		close(ep[1]);
		goto fail;
	}
	if (!w->pid) {
		char c;
		int e;

		close(go[1]);
		close(ep[0]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvpe(argv[0], argv, envp);
		e = errno;
		if (write(ep[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(ep[1]);
	w->go_fd = go[1];
	w->err_fd = ep[0];
	wait_held(w->pid);
	err = 0;
fail:
	if (envp != environ) {
		free(envp);
		free(strs);
	}
	return err;
}

/**
 * pp_workload__go() - let the child exec; wait until it did or failed.
 * @w: the workload.
 * Return: 0, or -errno of the failed exec (child reaped).
 */
int pp_workload__go(struct pp_workload *w)
{
	return pp_workload__go_while(w, NULL, NULL);
}

int pp_workload__go_while(struct pp_workload *w, void (*idle)(void *ctx), void *ctx)
{
	struct pollfd p = { .fd = w->err_fd, .events = POLLIN };
	int e = 0;
	ssize_t n;

	if (w->go_fd < 0)
		return 0;
	if (write(w->go_fd, "g", 1) != 1) {
		e = errno;
		close_fd(&w->go_fd);
		return -e;
	}
	close_fd(&w->go_fd);
	/* the exec closes err_fd (EOF), a failed one writes its errno */
	while (idle && poll(&p, 1, 10) != 1)
		idle(ctx);
	do {
		n = read(w->err_fd, &e, sizeof(e));
	} while (n < 0 && errno == EINTR);
	close_fd(&w->err_fd);
	if (n == (ssize_t)sizeof(e)) {
		waitpid(w->pid, NULL, 0);
		w->pid = -1;
		return -e;
	}
	return 0;
}

/**
 * pp_workload__stop() - SIGTERM a child still there, reap it, close the pipes.
 * @w: the workload; @status: receives the wait status, may be NULL.
 * Return: 1 when a child was reaped here, else 0.
 */
int pp_workload__stop(struct pp_workload *w, int *status)
{
	int reaped = 0;

	close_fd(&w->go_fd);	/* a child still held exits on EOF */
	close_fd(&w->err_fd);
	if (w->pid > 0) {
		kill(w->pid, SIGTERM);
		reaped = waitpid(w->pid, status, 0) == w->pid;
		w->pid = -1;
	}
	return reaped;
}
