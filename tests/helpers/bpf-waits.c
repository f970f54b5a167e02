// SPDX-License-Identifier: MIT
/*
 * Test workload for offcpu and lock with several -p processes: a thread
 * named "pp-waiter" blocks exactly N times (default 20) in
 * futex(FUTEX_WAIT) on one word, from the noinline pp_wait_here(). The main
 * thread wakes it each time only once /proc/self/task/TID/wchan names a
 * futex function, i.e. once the waiter has left the run queue there: every
 * wait is one off-CPU interval in state S (offcpu) and one futex wait on
 * the word (lock), however busy the machine.
 *
 * Protocol: prints "PID TID ADDR" (ADDR: the futex word, hex) and waits
 * for a line on stdin; then does the N waits, prints "done" and waits for
 * EOF on stdin before it exits. The waiter blocks in a read of a pipe before
 * its waits and after them, so that only the N waits begin and end while
 * a profiler started after the first line and stopped before EOF watches.
 * The waiter's system calls are inline syscall instructions, so its user
 * stacks start in its own functions. Built -O0 with frame pointers.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

static unsigned int word;		/* the futex: the number of waits ended */
static long nwaits = 20;
static int gate[2];			/* main -> waiter: start (1 byte), never the end */
static volatile long waiter_tid;

static long sys3(long nr, long a, long b, long c)
{
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return ret;
}

static long futex_wait(unsigned int *w, unsigned int val)
{
	register long r10 __asm__("r10") = 0;	/* no timeout */
	long ret;

	__asm__ volatile("syscall" : "=a"(ret)
			 : "a"((long)SYS_futex), "D"(w), "S"(0L /* FUTEX_WAIT */), "d"((long)val),
			   "r"(r10)
			 : "rcx", "r11", "memory");
	return ret;
}

__attribute__((noinline)) void pp_wait_gate(void)
{
	char c;

	sys3(SYS_read, gate[0], (long)&c, 1);
}

__attribute__((noinline)) void pp_wait_here(void)
{
	for (unsigned int i = 0; i < (unsigned int)nwaits; i++)
		while (__atomic_load_n(&word, __ATOMIC_SEQ_CST) == i)
			futex_wait(&word, i);
}

static void *waiter_main(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "pp-waiter");
	waiter_tid = sys3(SYS_gettid, 0, 0, 0);
	pp_wait_gate();
	pp_wait_here();
	pp_wait_gate();			/* until the process exits */
	return NULL;
}

/* Is the waiter off the run queue in a function whose name holds @what? */
static int asleep_in(const char *what)
{
	char path[64], buf[128];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%ld/wchan", waiter_tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return strstr(buf, what) != NULL;
}

int main(int argc, char **argv)
{
	char line[64];
	pthread_t t;

	if (argc > 1)
		nwaits = strtol(argv[1], NULL, 10);
	if (pipe(gate) || pthread_create(&t, NULL, waiter_main, NULL))
		return 1;
	while (!waiter_tid)
		sched_yield();
	printf("%d %ld %lx\n", getpid(), waiter_tid, (unsigned long)&word);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	if (write(gate[1], "g", 1) != 1)
		return 1;
	for (long i = 0; i < nwaits; i++) {
		/* yielding is a preemption (state R), which neither profiler counts */
		while (!asleep_in("futex"))
			sched_yield();
		__atomic_store_n(&word, (unsigned int)(i + 1), __ATOMIC_SEQ_CST);
		syscall(SYS_futex, &word, 1 /* FUTEX_WAKE */, 1, NULL, NULL, 0);
	}
	/* the last wait is over (back on a CPU, out of futex) once it reads the gate again */
	while (!asleep_in("pipe"))
		sched_yield();
	printf("done\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin))
		;
	return 0;
}
