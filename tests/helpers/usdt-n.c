// SPDX-License-Identifier: MIT
/*
 * Test workload for USDT probes (sys/sdt.h from systemtap-sdt-dev): for
 * i = 1..N (default 100), fire pp_test:tick with
 *   arg1 = i (int), arg2 = i * 1000 (long), arg3 = -i (short), arg4 = 5
 *   (a constant), arg5 = the global 'ticks' = 7 * i, arg6 = i + 42 (read
 *   back from memory),
 * then pp_test:tock with arg1 = i. tick has a semaphore and fires only
 * while it is set, as applications guard costly arguments: N hits prove
 * the recorder set it. The compiler chooses the operands (registers,
 * frame slots, constants): pp-analyze usdt list shows them.
 */
#define _SDT_HAS_SEMAPHORES 1
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>

unsigned short pp_test_tick_semaphore __attribute__((section(".probes"), used));
unsigned short pp_test_tock_semaphore __attribute__((section(".probes"), used));
long ticks;

__attribute__((noinline)) static void tick(int i, volatile long *slot)
{
	short neg = (short)-i;

	ticks = i * 7L;
	*slot = i + 42;
	if (pp_test_tick_semaphore)
		STAP_PROBE6(pp_test, tick, i, (long)i * 1000, neg, 5, ticks, *slot);
	STAP_PROBE1(pp_test, tock, i);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 100, i;
	volatile long slot[4];

	for (i = 1; i <= n; i++)
		tick((int)i, &slot[i & 3]);
	printf("%ld\n", ticks);
	return 0;
}
