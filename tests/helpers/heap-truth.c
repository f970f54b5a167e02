// SPDX-License-Identifier: MIT
/*
 * Ground truth for the sampled heap profiler (kmemleak/kmemprof --user
 * --sample):  heap-truth MIB [threads] [fork]
 *
 * Three functions allocate exactly MIB MiB each:
 *   small_blocks(): MIB * 16384 mallocs of 64 bytes;
 *   mixed_blocks(): MIB * 128 rounds of 8 blocks of 16 to 4240 bytes (8 KiB
 *                   a round) through malloc, calloc, aligned_alloc,
 *                   posix_memalign, memalign and realloc;
 *                   both keep their last 1024 blocks and free each block
 *                   1024 allocations later (a heap in use, not one block
 *                   reused), and the rest before they return;
 *   leak_blocks():  MIB * 4 mallocs of 256 KiB, never freed (not touched:
 *                   address space, not memory).
 * So kmemprof sees MIB MiB under each function, in 16384 * MIB, 1024 * MIB
 * and 4 * MIB calls, and kmemleak MIB MiB in 4 * MIB objects outstanding
 * under leak_blocks, nothing under the others.
 * threads: the three run at once, one thread each (the same totals).
 * fork: then a child runs the three again (twice the totals, the child's
 * leak in its own process).
 * touch: small_blocks() and mixed_blocks() write every byte of their blocks
 * and read it back, as programs use what they allocate (make bench's
 * workload: 20 million allocations take about a second).
 * time: print the seconds the three took ("heap-truth: 0.123 s") to stderr.
 * shuffle: each new block frees a random one of the last 1024 (a seeded
 * generator): lifetimes and addresses without a period, as in programs.
 */
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

static long mib;
static int touch, shuffle;

static void *check(void *p)
{
	if (!p) {
		perror("heap-truth: allocation");
		exit(1);
	}
	return p;
}

#define RING 1024

/* A function's last RING blocks: each new one frees the one RING before it. */
struct ring {
	void *b[RING];
	unsigned long n;
	uint64_t x;		/* shuffle: the generator */
};

static volatile uint64_t sink;

static void keep(struct ring *r, void *p, size_t n)
{
	void **slot;

	if (shuffle) {		/* xorshift64: a block lives a random while */
		r->x ^= r->x << 13;
		r->x ^= r->x >> 7;
		r->x ^= r->x << 17;
		slot = &r->b[r->x % RING];
		r->n++;
	} else {
		slot = &r->b[r->n++ % RING];
	}

	*(char *)p = 1;		/* a use the compiler cannot drop */
	/* an interposer that put a header before blocks would break this */
	if (!touch && malloc_usable_size(p) < n) {
		fprintf(stderr, "heap-truth: malloc_usable_size %zu < %zu\n", malloc_usable_size(p), n);
		exit(1);
	}
	if (touch) {
		uint64_t sum = 0;

		memset(p, (int)r->n, n);
		for (size_t i = 0; i + 8 <= n; i += 8)
			sum += *(uint64_t *)((char *)p + i);
		sink += sum;
	}
	free(*slot);
	*slot = p;
}

static void drop_all(struct ring *r)
{
	for (int i = 0; i < RING; i++) {
		free(r->b[i]);
		r->b[i] = NULL;
	}
}

__attribute__((noinline)) void *small_blocks(void *arg)
{
	static struct ring r = { .x = 0x9e3779b97f4a7c15ull };

	for (long i = 0; i < mib * 16384; i++)
		keep(&r, check(malloc(64)), 64);
	drop_all(&r);
	return NULL;
}

__attribute__((noinline)) void *mixed_blocks(void *arg)
{
	static struct ring r = { .x = 0x2545f4914f6cdd1dull };

	for (long i = 0; i < mib * 128; i++) {
		void *q = NULL;

		keep(&r, check(malloc(16)), 16);
		keep(&r, check(calloc(1, 48)), 48);
		keep(&r, check(aligned_alloc(16, 112)), 112);
		if (posix_memalign(&q, 64, 240))
			check(NULL);
		keep(&r, q, 240);
		keep(&r, check(memalign(32, 496)), 496);
		keep(&r, check(realloc(NULL, 1008)), 1008);	/* an allocation */
		keep(&r, check(malloc(2032)), 2032);
		keep(&r, check(calloc(4240, 1)), 4240);
	}
	drop_all(&r);
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
	int threads = 0, forks = 0, timed = 0;
	struct timespec t0, t1;
	pid_t c;

	mib = argc > 1 ? strtol(argv[1], NULL, 10) : 1;
	for (int i = 2; i < argc; i++) {
		threads |= !strcmp(argv[i], "threads");
		forks |= !strcmp(argv[i], "fork");
		touch |= !strcmp(argv[i], "touch");
		timed |= !strcmp(argv[i], "time");
		shuffle |= !strcmp(argv[i], "shuffle");
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	run(threads);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (timed)
		fprintf(stderr, "heap-truth: %.3f s\n",
			(double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
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
