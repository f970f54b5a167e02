// SPDX-License-Identifier: MIT
/*
 * Test workload for `pp-analyze --symbols` under tcmalloc's heap checker:
 * tc_leak_here() leaks K blocks (default 5) of 1000 bytes, tc_churn()
 * allocates and frees. Run with LD_PRELOAD=libtcmalloc.so.4
 * HEAPCHECK=draconian PPROF_PATH=pp-analyze: the leak report names
 * tc_leak_here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *volatile sink;

__attribute__((noinline)) void tc_leak_here(long k)
{
	for (long i = 0; i < k; i++) {
		char *p = malloc(1000);

		memset(p, 0, 1000);
		sink = p;
		p = NULL;	/* no pointer to it stays anywhere: a leak */
	}
	sink = NULL;
}

__attribute__((noinline)) void tc_churn(long n)
{
	for (long i = 0; i < n; i++)
		free(malloc(64));
}

int main(int argc, char **argv)
{
	long k = argc > 1 ? strtol(argv[1], NULL, 10) : 5;

	tc_churn(100);
	tc_leak_here(k);
	return 0;
}
