// SPDX-License-Identifier: MIT
/*
 * Test workload for time windows: phase A makes exactly N getppid() system
 * calls, then it sleeps GAP milliseconds, then phase B makes exactly M.
 * `phases N M GAP_MS`; a window that ends or starts inside the gap selects
 * one phase exactly, however slow the machine runs the phases themselves.
 */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 100;
	long m = argc > 2 ? strtol(argv[2], NULL, 10) : 100;
	long gap = argc > 3 ? strtol(argv[3], NULL, 10) : 500;
	struct timespec ts = { gap / 1000, (gap % 1000) * 1000000 };

	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);	/* never cached by libc */
	while (nanosleep(&ts, &ts))
		;
	for (long i = 0; i < m; i++)
		syscall(SYS_getppid);
	return 0;
}
