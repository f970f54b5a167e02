// SPDX-License-Identifier: MIT
/*
 * Test workload: make exactly N getppid() system calls (default 1000), each
 * from the noinline function do_getppid() (a uprobe target), then exit with
 * the optional second argument as status. Environment:
 *   PP_PIDFILE=F  write our pid to F first
 *   PP_LSEEK=M    also make M lseek(-1, i, SEEK_SET) calls, i = 0..M-1
 *                 (failing calls whose offset field a kernel filter can test)
 *   PP_GAP_US=U   sleep U microseconds after each getppid(): a steady stream
 *   PP_PROGRESS=F keep in F (8 bytes, mapped) the CLOCK_MONOTONIC time in ns
 *                 of the latest getppid(), so a test knows when the last
 *                 call was made even when a loaded host starved us
 *   PP_STOP_PARENT=1  SIGSTOP our parent first (a recorder that started us:
 *                 nothing reads the rings until the test resumes it); this
 *                 makes one getppid() call more
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <fcntl.h>
#include <stdint.h>
#include <signal.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>

__attribute__((noinline)) long do_getppid(void)
{
	return syscall(SYS_getppid);	/* never cached by libc */
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1000, i;
	const char *pidfile = getenv("PP_PIDFILE"), *ls = getenv("PP_LSEEK");
	long gap = getenv("PP_GAP_US") ? strtol(getenv("PP_GAP_US"), NULL, 10) : 0;
	struct timespec ts = { gap / 1000000, (gap % 1000000) * 1000 }, now;
	volatile uint64_t *progress = NULL;

	if (pidfile) {
		FILE *f = fopen(pidfile, "w");

		if (f) {
			fprintf(f, "%d\n", (int)getpid());
			fclose(f);
		}
	}
	if (getenv("PP_PROGRESS")) {
		int fd = open(getenv("PP_PROGRESS"), O_RDWR | O_CREAT | O_TRUNC, 0644);
		void *m;

		if (fd < 0 || ftruncate(fd, 8))
			return 1;
		m = mmap(NULL, 8, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (m == MAP_FAILED)
			return 1;
		progress = m;
		close(fd);
	}
	if (getenv("PP_STOP_PARENT"))
		kill(getppid(), SIGSTOP);
	for (i = 0; i < n; i++) {
		do_getppid();
		if (progress) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			*progress = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
		}
		if (gap > 0)
			nanosleep(&ts, NULL);
	}
	if (ls) {
		long m = strtol(ls, NULL, 10);

		for (i = 0; i < m; i++)
			syscall(SYS_lseek, -1, i, SEEK_SET);
	}
	return argc > 2 ? atoi(argv[2]) : 0;
}
