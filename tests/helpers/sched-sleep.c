// SPDX-License-Identifier: MIT
/*
 * Test workload for task-state: sleep exactly MS milliseconds (default 20)
 * N times (default 10) in sched_sleep_once(), a known function, so the
 * off-CPU flame graph must show it. Built -O0 with frame pointers; on x86_64
 * the syscall is issued inline, so the user IP is inside sched_sleep_once()
 * itself (libc's leaf wrappers have no frame pointer and would hide it).
 *
 * A third argument "usr1" makes it wait for SIGUSR1 before the first sleep,
 * so that a recorder attached with -p, started while it waits, sees all N.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

__attribute__((noinline)) void sched_sleep_once(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

#if defined(__x86_64__)
	long ret;

	do {
		__asm__ volatile("syscall" : "=a"(ret) : "0"(35L /* nanosleep */), "D"(&ts), "S"(&ts)
				 : "rcx", "r11", "memory");
	} while (ret == -4 /* EINTR */);
#else
	while (nanosleep(&ts, &ts))
		;
#endif
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	long ms = argc > 2 ? atol(argv[2]) : 20;

	if (argc > 3 && !strcmp(argv[3], "usr1")) {
		sigset_t set;
		int sig;

		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		sigprocmask(SIG_BLOCK, &set, NULL);
		if (sigwait(&set, &sig))
			return 1;
	}
	for (int i = 0; i < n; i++)
		sched_sleep_once(ms);
	return 0;
}
