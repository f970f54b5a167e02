// SPDX-License-Identifier: MIT
/*
 * Test workload for multi-trace's join: a child process named "mt-wakee"
 * blocks reading a pipe, and the parent ("mt-waker") wakes it exactly N
 * times (argv[1], default 50), each time only once the child is seen asleep
 * (state S in /proc), so every write is one sched_waking of the child, in
 * the parent's context: the event's pid field is the child, the sample's
 * pid the parent. Prints the child's pid on stdout first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sched.h>
#include <time.h>
#include <sys/prctl.h>
#include <sys/wait.h>

/* The state letter of process @pid ('S' asleep), or 0. */
static char state_of(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');	/* the comm may hold spaces */
	return p && p[1] == ' ' ? p[2] : 0;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 50;
	int to_child[2], to_parent[2];
	pid_t child;
	char c = 'x';

	if (pipe(to_child) || pipe(to_parent))
		return 1;
	child = fork();
	if (child < 0)
		return 1;
	if (!child) {
		prctl(PR_SET_NAME, "mt-wakee");
		for (int i = 0; i < n; i++) {
			if (read(to_child[0], &c, 1) != 1)
				return 1;
			if (write(to_parent[1], &c, 1) != 1)
				return 1;
		}
		return 0;
	}
	prctl(PR_SET_NAME, "mt-waker");
	printf("%d\n", (int)child);
	fflush(stdout);
	for (int i = 0; i < n; i++) {
		/*
		 * Asleep in read(): the write below must wake it. Seen asleep
		 * twice 100us apart, so it is past schedule(), not about to.
		 */
		for (;;) {
			struct timespec ts = { 0, 100000 };

			while (state_of(child) != 'S')
				sched_yield();
			nanosleep(&ts, NULL);
			if (state_of(child) == 'S')
				break;
		}
		if (write(to_child[1], &c, 1) != 1 || read(to_parent[0], &c, 1) != 1)
			return 1;
	}
	waitpid(child, NULL, 0);
	return 0;
}
