// SPDX-License-Identifier: MIT
/*
 * Test workload for syscalls: N lseek(-1, ...) calls that all fail with
 * EBADF, then M getppid() calls that all succeed (argv[1], argv[2], default
 * 1000 and 500), so the counts and error counts are known exactly.
 */
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	int m = argc > 2 ? atoi(argv[2]) : 500;

	for (int i = 0; i < n; i++)
		syscall(SYS_lseek, -1, 0L, SEEK_SET);
	for (int i = 0; i < m; i++)
		syscall(SYS_getppid);
	return 0;
}
