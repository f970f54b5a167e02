// SPDX-License-Identifier: MIT
/*
 * Test workload for hrtimer: W windows (default 5) of BURST ms (default 40)
 * in which burst_getppid() makes getppid system calls as fast as it can
 * (the syscall instruction inline, so a sample in the kernel has this
 * function as its user frame), separated by GAP ms (default 60) in which
 * quiet_spin() burns the CPU without any system call. Prints one line
 * "window START END" per burst window (CLOCK_MONOTONIC ns, the perf clock)
 * and "calls N" at the end. Usage: hrtimer-burst [W [BURST [GAP]]].
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sys/syscall.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline)) long burst_getppid(uint64_t end)
{
	long n = 0;

	do {
		for (int i = 0; i < 64; i++) {
			long ret = SYS_getppid;

			__asm__ volatile("syscall" : "+a"(ret) : : "rcx", "r11", "memory");
			n++;
		}
	} while (now_ns() < end);
	return n;
}

__attribute__((noinline)) void quiet_spin(uint64_t end)
{
	volatile uint64_t x = 0;

	do {
		for (int i = 0; i < 100000; i++)
			x += (uint64_t)i;
	} while (now_ns() < end);
}

int main(int argc, char **argv)
{
	int w = argc > 1 ? atoi(argv[1]) : 5;
	uint64_t burst = (argc > 2 ? strtoull(argv[2], NULL, 10) : 40) * 1000000ull;
	uint64_t gap = (argc > 3 ? strtoull(argv[3], NULL, 10) : 60) * 1000000ull;
	long calls = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	quiet_spin(now_ns() + gap);
	for (int i = 0; i < w; i++) {
		uint64_t start = now_ns(), end;

		calls += burst_getppid(start + burst);
		end = now_ns();
		printf("window %llu %llu\n", (unsigned long long)start, (unsigned long long)end);
		quiet_spin(end + gap);
	}
	printf("calls %ld\n", calls);
	return 0;
}
