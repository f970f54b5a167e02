// SPDX-License-Identifier: MIT
/*
 * Test workload for offcpu vs task-state: two threads with their own names
 * sleep a known pattern each, in their own function: "pp-nap-long" sleeps
 * N_LONG (default 10) x 40 ms in pp_nap_long(), "pp-nap-short" N_SHORT
 * (default 40) x 5 ms in pp_nap_short(). The sleeps are inline nanosleep
 * system calls so the user stack at the switch starts in the function.
 * Built -O0 with frame pointers.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sys/syscall.h>

static long n_long = 10, n_short = 40;

static void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "a"((long)SYS_nanosleep), "D"(&ts), "S"(0L)
			 : "rcx", "r11", "memory");
	(void)ret;
}

__attribute__((noinline)) void pp_nap_long(void)
{
	for (long i = 0; i < n_long; i++)
		nap(40);
}

__attribute__((noinline)) void pp_nap_short(void)
{
	for (long i = 0; i < n_short; i++)
		nap(5);
}

static void *long_main(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "pp-nap-long");
	pp_nap_long();
	return NULL;
}

static void *short_main(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "pp-nap-short");
	pp_nap_short();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t a, b;

	if (argc > 1)
		n_long = strtol(argv[1], NULL, 10);
	if (argc > 2)
		n_short = strtol(argv[2], NULL, 10);
	pthread_create(&a, NULL, long_main, NULL);
	pthread_create(&b, NULL, short_main, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}
