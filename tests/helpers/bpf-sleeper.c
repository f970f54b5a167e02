// SPDX-License-Identifier: MIT
/*
 * Test workload for off-CPU profiling: sleep N times (default 20) for MS
 * milliseconds (default 50) inside the noinline function pp_sleep_here(),
 * called from pp_sleep_outer(). The sleep is a nanosleep system call made
 * by an inline syscall instruction, so the user stack taken at the context
 * switch starts inside pp_sleep_here itself (a libc wrapper without frame
 * pointer would hide its caller). Prints "ADDR SIZE" of pp_sleep_here first:
 * the ground truth for the addresses a stack must hold.
 * Built -O0 with frame pointers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sys/syscall.h>

__attribute__((noinline)) void pp_sleep_here(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "a"((long)SYS_nanosleep), "D"(&ts), "S"(0L)
			 : "rcx", "r11", "memory");
	(void)ret;
}

__attribute__((noinline)) void pp_sleep_end(void)
{
}

__attribute__((noinline)) void pp_sleep_outer(long n, long ms)
{
	for (long i = 0; i < n; i++)
		pp_sleep_here(ms);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 20;
	long ms = argc > 2 ? strtol(argv[2], NULL, 10) : 50;

	printf("%lx %lx\n", (unsigned long)pp_sleep_here,
	       (unsigned long)((char *)pp_sleep_end - (char *)pp_sleep_here));
	fflush(stdout);
	pp_sleep_outer(n, ms);
	return 0;
}
