// SPDX-License-Identifier: MIT
/*
 * Test workload: burn SECONDS (default 1) of CPU time, alternating between two
 * known functions, spin_alpha (2/3 of the time) and spin_beta (1/3), so a
 * sampling profile must resolve to them. Built -O0 with frame pointers.
 * `spin SECONDS fork` spins in a forked child (no exec): its maps are the
 * parent's, which no MMAP record announces.
 *
 * CPU time, not wall time: cpu-clock samples a task only while it runs, so a
 * test can expect about SECONDS x HZ samples however many other tasks share
 * the CPUs (on a loaded host the spin just lasts longer).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

volatile unsigned long pp_spin_sink;

__attribute__((noinline)) void spin_alpha(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		pp_spin_sink += i * 3;
}

__attribute__((noinline)) void spin_beta(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		pp_spin_sink ^= i * 7;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0, end = now() + secs;
	unsigned long beta;

	if (argc > 2 && !strcmp(argv[2], "fork")) {
		pid_t c = fork();

		if (c > 0) {
			waitpid(c, NULL, 0);
			return 0;
		}
	}

	/* PP_SPIN_BETA=N: spin_beta's share of a round (default 1000000, alpha's is 2000000) */
	beta = getenv("PP_SPIN_BETA") ? strtoul(getenv("PP_SPIN_BETA"), NULL, 10) : 1000000;
	while (now() < end) {
		spin_alpha(2000000);
		spin_beta(beta);
	}
	/*
	 * PP_SPIN_CPU_FILE=F: append the CPU time we got, in ms, so a test can
	 * expect samples in proportion to it rather than to the wall time a
	 * loaded machine may not give.
	 */
	if (getenv("PP_SPIN_CPU_FILE")) {
		FILE *f = fopen(getenv("PP_SPIN_CPU_FILE"), "a");
		struct timespec cpu;

		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
		if (f) {
			fprintf(f, "%ld\n", (long)cpu.tv_sec * 1000 + cpu.tv_nsec / 1000000);
			fclose(f);
		}
	}
	return 0;
}
