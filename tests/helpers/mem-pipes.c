// SPDX-License-Identifier: MIT
/*
 * Test workload for kmemleak's kernel side: create N pipes (default 100),
 * write a byte into each (a pipe buffer page), then close them all. Every
 * pipe_inode_info, buffer array and buffer page the kernel allocated for
 * them is freed at the close, synchronously. Then a membarrier
 * (synchronize_rcu) so callbacks queued by the closes are on their way.
 */
#include <stdlib.h>
#include <unistd.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 100;
	int (*fds)[2] = calloc((size_t)n, sizeof(*fds));

	if (!fds)
		return 1;
	for (long i = 0; i < n; i++) {
		if (pipe(fds[i]))
			return 1;
		if (write(fds[i][1], "x", 1) != 1)
			return 1;
	}
	for (long i = 0; i < n; i++) {
		close(fds[i][0]);
		close(fds[i][1]);
	}
	free(fds);
	syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0);
	return 0;
}
