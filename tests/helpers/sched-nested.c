// SPDX-License-Identifier: MIT
/*
 * Test workload for nested-trace: nest_outer() sleeps 2 ms itself and calls
 * nest_inner(), which sleeps 3 ms, N times (argv[1], default 10). So
 * nest_outer's total is ~5 ms and its self time ~2 ms per call.
 */
#include <stdlib.h>
#include <time.h>

static void nap(long ms)
{
	struct timespec ts = { 0, ms * 1000000L };

	nanosleep(&ts, NULL);
}

__attribute__((noinline)) void nest_inner(void)
{
	nap(3);
}

__attribute__((noinline)) void nest_outer(void)
{
	nap(2);
	nest_inner();
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;

	for (int i = 0; i < n; i++)
		nest_outer();
	return 0;
}
