// SPDX-License-Identifier: MIT
/*
 * migrate-n N: a child named pp-migrate, born pinned to CPU 0, moves between
 * CPUs 0 and 1 exactly N times with sched_setaffinity(): each call moves it
 * (the migration thread carries it over before the call returns), and no
 * other move is possible while it is pinned. tests/e2e/sched-migrate.sh
 * counts N migrations for it, N/2 each way.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 10;
	pid_t pid;
	int st;

	/* the parent runs on CPU 0 from here: its child starts there, unmoved */
	if (pin(0)) {
		perror("migrate-n: pin to CPU 0");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("migrate-n: fork");
		return 1;
	}
	if (!pid) {
		prctl(PR_SET_NAME, "pp-migrate");
		for (long i = 0; i < n; i++) {
			int to = i % 2 ? 0 : 1;

			if (pin(to) || sched_getcpu() != to) {
				perror("migrate-n: move");
				_exit(1);
			}
		}
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid)
		return 1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
