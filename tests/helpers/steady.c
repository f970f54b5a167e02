// SPDX-License-Identifier: MIT
/*
 * Benchmark workload: getppid() system calls at a steady RATE per second
 * for SECS seconds (`steady RATE SECS`), in batches of RATE/100 paced by
 * the clock: a long file whose every second holds about RATE events.
 */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	long rate = argc > 1 ? strtol(argv[1], NULL, 10) : 100000;
	double secs = argc > 2 ? atof(argv[2]) : 10, t0 = now();
	long batch = rate / 100 > 0 ? rate / 100 : 1;

	for (long k = 0; now() < t0 + secs; k++) {
		double due = t0 + (double)k / 100;
		struct timespec ts;

		for (long i = 0; i < batch; i++)
			syscall(SYS_getppid);
		due += 0.01;
		if (due > now()) {
			double d = due - now();

			ts.tv_sec = (time_t)d;
			ts.tv_nsec = (long)((d - (double)ts.tv_sec) * 1e9);
			nanosleep(&ts, NULL);
		}
	}
	return 0;
}
