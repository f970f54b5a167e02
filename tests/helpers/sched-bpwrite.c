// SPDX-License-Identifier: MIT
/*
 * Test workload for breakpoint: prints the address of a global variable,
 * waits for SIGUSR1 (so a recorder can set a breakpoint on it), then writes
 * the variable exactly N times (argv[1], default 100) in bp_write_once().
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

volatile long pp_bp_target;
static volatile sig_atomic_t go;

static void on_usr1(int sig)
{
	(void)sig;
	go = 1;
}

__attribute__((noinline)) void bp_write_once(long i)
{
	pp_bp_target = i;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100;
	sigset_t mask, old;

	signal(SIGUSR1, on_usr1);
	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	sigprocmask(SIG_BLOCK, &mask, &old);
	printf("%lx\n", (unsigned long)&pp_bp_target);
	fflush(stdout);
	while (!go)
		sigsuspend(&old);
	for (long i = 0; i < n; i++)
		bp_write_once(i);
	return 0;
}
