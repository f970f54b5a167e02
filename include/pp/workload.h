/* SPDX-License-Identifier: MIT */
/*
 * The COMMAND after `--` of pp-record and pp-analyze --live (record/workload.c):
 * forked first and held before exec, so its pid is known while the events
 * are opened (enable_on_exec, or a target pid), then let go.
 */
#ifndef PP_WORKLOAD_H
#define PP_WORKLOAD_H

#include <stddef.h>
#include <sys/types.h>

/**
 * struct pp_workload - a forked COMMAND waiting for pp_workload__go().
 * @pid: the child, -1 when none (or reaped here).
 * @go_fd: write end of the pipe the child waits on, -1 once used.
 * @err_fd: read end that receives the errno of a failed exec, -1 once used.
 * @path: the program it will exec, as the PATH search finds it ("" if not
 *        found: the exec will fail).
 */
struct pp_workload {
	pid_t pid;
	int go_fd;
	int err_fd;
	char path[4096];
};

/**
 * pp_workload__start() - fork @argv[0] (PATH searched) held before exec.
 * @w: filled here; @argv: NULL-terminated.
 * @preload: a library the command loads first (put before the LD_PRELOAD
 *           it inherits), or NULL.
 * @env: one "NAME=VALUE" added to (or replacing in) its environment, or NULL.
 *
 * The child takes SIGINT, SIGTERM and SIGPIPE with their default action.
 * Return: 0, or -errno (@w->pid is -1).
 */
int pp_workload__start(struct pp_workload *w, char **argv, const char *preload, const char *env);

/**
 * pp_workload__lib() - where pp's library @name ("libpp-heap.so") is:
 * $PP_LIB_DIR, else beside the running program (a build directory), else
 * in ../lib/pp from it (an installed pp).
 * @buf, @len: receive the path.
 * Return: 0, or -ENOENT.
 */
int pp_workload__lib(const char *name, char *buf, size_t len);

/**
 * pp_workload__go() - let the child exec and wait until it did.
 * @w: a started workload; does nothing when none was started.
 * Return: 0, or -errno of the failed exec (the child is reaped, pid -1).
 */
int pp_workload__go(struct pp_workload *w);

/**
 * pp_workload__go_while() - pp_workload__go(), calling @idle(@ctx) about
 * every 10 ms until the child exec'd or failed: on a loaded host the child
 * may wait a long time for a CPU, and the events already on fill their
 * rings meanwhile (@idle drains them).
 * Return: as pp_workload__go().
 */
int pp_workload__go_while(struct pp_workload *w, void (*idle)(void *ctx), void *ctx);

/**
 * pp_workload__stop() - end a child still running (SIGTERM), reap it and
 * close the pipes; fine on a workload never started or already reaped.
 * @w: the workload.
 * @status: receives the wait status when the child was reaped here, may be NULL.
 * Return: 1 when a child was reaped here, else 0.
 */
int pp_workload__stop(struct pp_workload *w, int *status);

#endif /* PP_WORKLOAD_H */
