// SPDX-License-Identifier: MIT
/*
 * Test workload for lock contention: THREADS threads (default 4) take one
 * pthread mutex ITERS times each (default 50) from pp_contend_here() and
 * hold it HOLD_US microseconds (default 2000), so the others wait in
 * futex(2). The lock call goes through the noinline pp_lock_it(): the
 * frame-pointer unwinder loses the immediate caller of a libc function
 * built without frame pointers, and that caller is pp_lock_it, not the
 * function under test. The unlock goes through pp_unlock_it() for the same
 * reason, so the waker's stack (the futex wake in the unlock) shows
 * pp_contend_here too. Prints "FUNC SIZE MUTEX" first: pp_contend_here's
 * address and size and the mutex address, the ground truth.
 * Built -O0 with frame pointers.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static pthread_mutex_t pp_mutex = PTHREAD_MUTEX_INITIALIZER;
static long iters = 50, hold_us = 2000;

__attribute__((noinline)) void pp_lock_it(pthread_mutex_t *m)
{
	pthread_mutex_lock(m);
}

__attribute__((noinline)) void pp_unlock_it(pthread_mutex_t *m)
{
	pthread_mutex_unlock(m);
}

__attribute__((noinline)) void pp_contend_here(void)
{
	for (long i = 0; i < iters; i++) {
		pp_lock_it(&pp_mutex);
		usleep((useconds_t)hold_us);
		pp_unlock_it(&pp_mutex);
	}
}

__attribute__((noinline)) void pp_contend_end(void)
{
}

static void *thread_main(void *arg)
{
	(void)arg;
	pp_contend_here();
	return NULL;
}

int main(int argc, char **argv)
{
	long nthreads = argc > 1 ? strtol(argv[1], NULL, 10) : 4;
	pthread_t t[64];

	if (argc > 2)
		iters = strtol(argv[2], NULL, 10);
	if (argc > 3)
		hold_us = strtol(argv[3], NULL, 10);
	if (nthreads < 1 || nthreads > 64)
		nthreads = 4;
	printf("%lx %lx %lx\n", (unsigned long)pp_contend_here,
	       (unsigned long)((char *)pp_contend_end - (char *)pp_contend_here),
	       (unsigned long)&pp_mutex);
	fflush(stdout);
	for (long i = 0; i < nthreads; i++)
		pthread_create(&t[i], NULL, thread_main, NULL);
	for (long i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	return 0;
}
