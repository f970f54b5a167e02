// SPDX-License-Identifier: MIT
/*
 * rate-gen - make syscalls:sys_enter_getppid events at a set rate, for the
 * loss frontier of make bench.
 *
 *   rate-gen EVENTS_PER_SECOND SECONDS [THREADS]
 *
 * THREADS threads (default: one per online CPU) each call getppid() at
 * their share of the rate, paced against the monotonic clock in slices of
 * 100 us (a thread behind its schedule catches up at once, one ahead
 * sleeps). Prints "calls N seconds S" on stdout: N is exact, so a recorder
 * that kept every event has N of them (plus other processes' getppid).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

static double rate_per_thread, seconds;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *run(void *arg)
{
	uint64_t *calls = arg, t0 = now_ns(), end = t0 + (uint64_t)(seconds * 1e9), n = 0;

	for (;;) {
		uint64_t t = now_ns(), due;

		if (t >= end)
			break;
		due = (uint64_t)((double)(t - t0) * rate_per_thread / 1e9);
		if (n >= due) {
			struct timespec ts = { 0, 100000 };

			nanosleep(&ts, NULL);
			continue;
		}
		while (n < due) {
			syscall(SYS_getppid);
			n++;
		}
	}
	*calls = n;
	return NULL;
}

int main(int argc, char **argv)
{
	long nthreads = argc > 3 ? atol(argv[3]) : sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t *calls, total = 0;
	pthread_t *tids;
	uint64_t t0;
	long i;

	if (argc < 3 || atof(argv[1]) <= 0 || atof(argv[2]) <= 0 || nthreads < 1 || nthreads > 1024) {
		fprintf(stderr, "usage: rate-gen EVENTS_PER_SECOND SECONDS [THREADS]\n");
		return 2;
	}
	rate_per_thread = atof(argv[1]) / (double)nthreads;
	seconds = atof(argv[2]);
	calls = calloc((size_t)nthreads, sizeof(*calls));
	tids = calloc((size_t)nthreads, sizeof(*tids));
	if (!calls || !tids)
		return 1;
	t0 = now_ns();
	for (i = 0; i < nthreads; i++)
		if (pthread_create(&tids[i], NULL, run, &calls[i])) {
			fprintf(stderr, "rate-gen: cannot start a thread\n");
			return 1;
		}
	for (i = 0; i < nthreads; i++) {
		pthread_join(tids[i], NULL);
		total += calls[i];
	}
	printf("calls %llu seconds %.3f\n", (unsigned long long)total, (double)(now_ns() - t0) / 1e9);
	return 0;
}
