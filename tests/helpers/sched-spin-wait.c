// SPDX-License-Identifier: MIT
/*
 * Test workload for rundelay: on CPU 0 (or CPU argv[3]), a thread named
 * "rd-spinner" burns the CPU while a thread named "rd-waiter" sleeps 2 ms
 * N times (argv[1], default 50); every wakeup of the waiter must queue behind
 * the spinner, so rundelay shows N wakeups with a delay for rd-waiter.
 * argv[2] spinners (default 2). Built -O0.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

static volatile int stop;
static volatile unsigned long sink;
static int cpu;

static void pin(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void *spinner(void *arg)
{
	prctl(PR_SET_NAME, "rd-spinner");
	pin();
	while (!stop)
		sink++;
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 50;
	int nspin = argc > 2 ? atoi(argv[2]) : 2;
	struct timespec ts = { 0, 2000000 };
	pthread_t th[16];

	cpu = argc > 3 ? atoi(argv[3]) : 0;
	if (nspin > 16)
		nspin = 16;
	for (int i = 0; i < nspin; i++)
		pthread_create(&th[i], NULL, spinner, NULL);
	prctl(PR_SET_NAME, "rd-waiter");
	pin();
	for (int i = 0; i < n; i++)
		nanosleep(&ts, NULL);
	stop = 1;
	for (int i = 0; i < nspin; i++)
		pthread_join(th[i], NULL);
	return 0;
}
