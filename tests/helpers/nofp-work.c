// SPDX-License-Identifier: MIT
/*
 * Test workload built without frame pointers (-O2 -fomit-frame-pointer,
 * Makefile), as Debian builds its libraries: its hot path goes through the
 * C library. `nofp-work qsort SECONDS`: main -> work_outer -> work_inner ->
 * qsort() -> cmp_work() (the comparator, which burns the CPU) until it
 * has run SECONDS of CPU time (however loaded the host). Environment: PP_PIDFILE=F writes our pid to F first;
 * PP_WARMUP_MS=N sleeps N ms before the work (a recorder that reads the
 * process's maps and builds its unwind tables has them ready by then).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NOIPA __attribute__((noipa))

static volatile unsigned long sink;

NOIPA int cmp_work(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	for (int i = 0; i < 200; i++)
		sink += (unsigned long)(x ^ i) * 2654435761u;
	return (x > y) - (x < y);
}

NOIPA void work_inner(int *v, int n)
{
	for (int i = 0; i < n; i++)
		v[i] = (int)((unsigned)(i * 7919) % 1000);
	qsort(v, (size_t)n, sizeof(v[0]), cmp_work);
	sink += (unsigned long)v[0];	/* not a tail call: work_inner stays in the stack */
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

NOIPA void work_outer(double secs)
{
	int v[256];
	double end = now() + secs;

	while (now() < end)
		work_inner(v, 256);
}

int main(int argc, char **argv)
{
	const char *pidfile = getenv("PP_PIDFILE");

	if (argc < 3 || strcmp(argv[1], "qsort")) {
		fprintf(stderr, "usage: nofp-work qsort SECONDS\n");
		return 2;
	}
	if (pidfile) {
		FILE *f = fopen(pidfile, "w");

		if (f) {
			fprintf(f, "%d\n", (int)getpid());
			fclose(f);
		}
	}
	if (getenv("PP_WARMUP_MS"))
		usleep((useconds_t)atoi(getenv("PP_WARMUP_MS")) * 1000);
	work_outer(atof(argv[2]));
	return 0;
}
