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
 * pp_workload__start() - fork @argv[0] held before exec.
 * @w: filled here; @argv: NULL-terminated command.
 * Return: 0, or -errno.
 */
int pp_workload__start(struct pp_workload *w, char **argv)
{
	int go[2], ep[2], err;

	w->pid = -1;
	w->go_fd = w->err_fd = -1;
	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(ep, O_CLOEXEC)) {
		err = -errno;
		close(go[0]);
		close(go[1]);
		return err;
	}
	w->pid = fork();
	if (w->pid < 0) {
		err = -errno;
		close(go[0]);
		close(go[1]);
		close(ep[0]);
		close(ep[1]);
		return err;
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
		execvp(argv[0], argv);
		e = errno;
		if (write(ep[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(ep[1]);
	w->go_fd = go[1];
	w->err_fd = ep[0];
	return 0;
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
