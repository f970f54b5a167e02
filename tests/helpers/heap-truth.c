// SPDX-License-Identifier: MIT
/*
 * Ground truth for the sampled heap profiler (kmemleak/kmemprof --user
 * --sample):  heap-truth MIB [threads] [fork]
 *
 * Three functions allocate exactly MIB MiB each:
 *   small_blocks(): MIB * 16384 mallocs of 64 bytes, each freed at once;
 *   mixed_blocks(): MIB * 128 rounds of 8 blocks of 16 to 4240 bytes (8 KiB
 *                   a round) through malloc, calloc, aligned_alloc,
 *                   posix_memalign, memalign and realloc, each freed;
 *   leak_blocks():  MIB * 4 mallocs of 256 KiB, never freed (not touched:
 *                   address space, not memory).
 * So kmemprof sees MIB MiB under each function, in 16384 * MIB, 1024 * MIB
 * and 4 * MIB calls, and kmemleak MIB MiB in 4 * MIB objects outstanding
 * under leak_blocks, nothing under the others.
 * threads: the three run at once, one thread each (the same totals).
 * fork: then a child runs the three again (twice the totals, the child's
 * leak in its own process).
 * touch: small_blocks() and mixed_blocks() write every byte of their blocks,
 * as programs do with what they allocate (make bench's workload).
 */
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static long mib;
static int touch;

static void *check(void *p)
{
	if (!p) {
		perror("heap-truth: allocation");
		exit(1);
	}
	return p;
}

static void *use(void *p, size_t n)
{
	if (touch)
		memset(p, 1, n);
	return p;
}

__attribute__((noinline)) void *small_blocks(void *arg)
{
	for (long i = 0; i < mib * 16384; i++) {
		char *p = check(malloc(64));

		p[0] = (char)i;		/* a use the compiler cannot drop */
		if (touch)
			memset(p, (int)i, 64);
		free(p);
	}
	return NULL;
}

__attribute__((noinline)) void *mixed_blocks(void *arg)
{
	for (long i = 0; i < mib * 128; i++) {
		void *q = NULL, *r;

		free(use(check(malloc(16)), 16));
		free(use(check(calloc(1, 48)), 48));
		free(use(check(aligned_alloc(16, 112)), 112));
		if (posix_memalign(&q, 64, 240))
			check(NULL);
		free(use(q, 240));
		free(use(check(memalign(32, 496)), 496));
		r = check(realloc(NULL, 1008));	/* an allocation */
		free(use(r, 1008));
		free(use(check(malloc(2032)), 2032));
		free(use(check(calloc(4240, 1)), 4240));
	}
	return NULL;
}

static void *leaked[1 << 20];

__attribute__((noinline)) void *leak_blocks(void *arg)
{
	for (long i = 0; i < mib * 4 && i < (1 << 20); i++)
		leaked[i] = check(malloc(256 << 10));
	return NULL;
}

static void run(int threads)
{
	void *(*fn[3])(void *) = { small_blocks, mixed_blocks, leak_blocks };
	pthread_t t[3];

	for (int i = 0; i < 3; i++) {
		if (!threads)
			fn[i](NULL);
		else if (pthread_create(&t[i], NULL, fn[i], NULL))
			check(NULL);
	}
	for (int i = 0; threads && i < 3; i++)
		pthread_join(t[i], NULL);
}

int main(int argc, char **argv)
{
	int threads = 0, forks = 0;
	pid_t c;

	mib = argc > 1 ? strtol(argv[1], NULL, 10) : 1;
	for (int i = 2; i < argc; i++) {
		threads |= !strcmp(argv[i], "threads");
		forks |= !strcmp(argv[i], "fork");
		touch |= !strcmp(argv[i], "touch");
	}
	run(threads);
	if (!forks)
		return 0;
	c = fork();
	if (c < 0)
		return 1;
	if (!c) {
		run(threads);
		exit(0);
	}
	return waitpid(c, NULL, 0) == c ? 0 : 1;
}
