// SPDX-License-Identifier: MIT
/*
 * Test workload for BPF output events: fork and exec PATH (default
 * /bin/true) N times (default 5), one after the other, and print our pid:
 * the parent pid every exec record must carry.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 5;
	const char *path = argc > 2 ? argv[2] : "/bin/true";

	printf("%d\n", (int)getpid());
	fflush(stdout);
	for (long i = 0; i < n; i++) {
		pid_t p = fork();

		if (p == 0) {
			execl(path, path, (char *)NULL);
			_exit(127);
		}
		if (p < 0 || waitpid(p, NULL, 0) != p)
			return 1;
	}
	return 0;
}
