// SPDX-License-Identifier: MIT
/*
 * Test workload for kmemleak/kmemprof, with ground truth:
 *   mem-leaks K SIZE N
 * leak_blocks() mallocs K blocks of SIZE bytes and never frees them; each
 * churn_*() function makes N allocations of its allocator (malloc, calloc,
 * realloc growing a block, aligned_alloc, memalign, posix_memalign) and
 * frees every one.
 * So exactly K objects, K * SIZE bytes, stay allocated under leak_blocks()
 * and none under the churn functions. PP_PIDFILE=F writes our pid first;
 * PP_WAIT=F waits for file F to exist before allocating (a recorder that
 * attaches with -p is ready).
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *leaked[100000];

__attribute__((noinline)) void leak_blocks(long k, long size)
{
	for (long i = 0; i < k && i < 100000; i++) {
		leaked[i] = malloc((size_t)size);
		memset(leaked[i], 1, (size_t)size);
	}
}

__attribute__((noinline)) void churn_malloc(long n)
{
	for (long i = 0; i < n; i++)
		free(malloc(16 + (size_t)i % 512));
}

__attribute__((noinline)) void churn_calloc(long n)
{
	for (long i = 0; i < n; i++)
		free(calloc(4, 8 + (size_t)i % 64));
}

__attribute__((noinline)) void churn_realloc(long n)
{
	for (long i = 0; i < n; i++) {
		char *p = realloc(NULL, 32);

		p = realloc(p, 64);
		p = realloc(p, 4096);
		free(p);
	}
}

__attribute__((noinline)) void churn_aligned(long n)
{
	for (long i = 0; i < n; i++) {
		void *q = NULL;

		free(aligned_alloc(64, 128));
		free(memalign(256, 512));
		if (posix_memalign(&q, 64, 256))
			exit(1);
		free(q);
	}
}

int main(int argc, char **argv)
{
	long k = argc > 1 ? strtol(argv[1], NULL, 10) : 10;
	long size = argc > 2 ? strtol(argv[2], NULL, 10) : 100;
	long n = argc > 3 ? strtol(argv[3], NULL, 10) : 1000;
	const char *pidfile = getenv("PP_PIDFILE"), *wait = getenv("PP_WAIT");

	if (pidfile) {
		FILE *f = fopen(pidfile, "w");

		if (f) {
			fprintf(f, "%d\n", (int)getpid());
			fclose(f);
		}
	}
	while (wait && access(wait, F_OK))
		usleep(10000);
	churn_malloc(n);
	leak_blocks(k, size);
	churn_calloc(n);
	churn_realloc(n);
	churn_aligned(n);
	return 0;
}
