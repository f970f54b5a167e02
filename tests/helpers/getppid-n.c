// SPDX-License-Identifier: MIT
/* Test workload: make exactly N getppid() system calls (default 1000), then exit. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1000, i;

	for (i = 0; i < n; i++)
		syscall(SYS_getppid);	/* never cached by libc */
	return argc > 2 ? atoi(argv[2]) : 0;	/* optional exit status */
}
