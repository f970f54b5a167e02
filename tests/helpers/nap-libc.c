// SPDX-License-Identifier: MIT
/*
 * Test workload for --call-graph=dwarf: sleep MS milliseconds (default 20)
 * N times (default 10) in nap_in_libc(), through libc's nanosleep(). Debian's
 * libc has no frame pointers: a frame-pointer walk from the syscall in
 * clock_nanosleep() skips nap_in_libc() (the off-CPU stack reads
 * main;clock_nanosleep); a DWARF unwind must show it in every stack.
 * With a third argument "hop", each nap starts on the next CPU: its stacks
 * come in another CPU's stream than the exec's maps. PP_WARMUP_MS=N sleeps
 * N ms in main first (through usleep(), not nap_in_libc()): a recorder that
 * builds unwind tables for the process has them by the first nap.
 * PP_WAIT_USR1=1 then waits in main for SIGUSR1: a test sends it once the
 * recorder of this process (-p) has its events on. With "fork" for the third
 * argument, main forks then: the child naps N times at once and exits, then
 * the parent does (a walker must know the child from its first stack).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

__attribute__((noinline)) void nap_in_libc(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts))
		;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	long ms = argc > 2 ? atol(argv[2]) : 20;
	int hop = argc > 3 && !strcmp(argv[3], "hop");
	int fork_first = argc > 3 && !strcmp(argv[3], "fork");
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	if (getenv("PP_WARMUP_MS"))
		usleep((useconds_t)atoi(getenv("PP_WARMUP_MS")) * 1000);
	if (getenv("PP_WAIT_USR1")) {
		sigset_t set;
		int sig;

		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		sigprocmask(SIG_BLOCK, &set, NULL);
		sigwait(&set, &sig);
	}
	if (fork_first) {
		pid_t c = fork();

		if (c < 0)
			return 1;
		if (!c) {
			for (int i = 0; i < n; i++)
				nap_in_libc(ms);
			_exit(0);
		}
		if (waitpid(c, NULL, 0) != c)
			return 1;
	}

	for (int i = 0; i < n; i++) {
		if (hop && ncpu > 1) {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET((int)(i % ncpu), &set);
			sched_setaffinity(0, sizeof(set), &set);
		}
		nap_in_libc(ms);
	}
	return 0;
}
