// SPDX-License-Identifier: MIT
/*
 * Test workload for pp-record --flight-recorder: phases of N marked system
 * calls (default 100), each phase its own call, apart by GAP seconds:
 *   A: getpgid(0) x N, then GAP seconds of nothing
 *   B: getsid(0) x N, then the dump request (MODE), then
 *   C: sched_yield() x N, then GAP seconds of nothing
 *   D: getpriority(PRIO_PROCESS, 0) x N, then a second dump request
 * MODE "signal": the request is SIGUSR2 to the parent (the recorder, which
 * runs us as its COMMAND), and we wait until a new file shows in DIR (the
 * recorder took the signal's time before it creates the dump), so the next
 * phase comes after that time. MODE "trigger": the request is one
 * getppid() (recorded as the trigger event), which marks the time itself.
 * Usage: flight-phases DIR MODE [GAP [N]]
 */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/syscall.h>

static int files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d)))
		n += strstr(de->d_name, ".trace") != NULL && !strstr(de->d_name, ".lock");
	if (d)
		closedir(d);
	return n;
}

static void request(const char *dir, const char *mode)
{
	if (!strcmp(mode, "trigger")) {
		syscall(SYS_getppid);
		return;
	}
	int before = files(dir);

	kill(getppid(), SIGUSR2);
	for (int i = 0; i < 6000 && files(dir) == before; i++)
		usleep(10000);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".", *mode = argc > 2 ? argv[2] : "signal";
	unsigned int gap = argc > 3 ? (unsigned int)atoi(argv[3]) : 5;
	long n = argc > 4 ? strtol(argv[4], NULL, 10) : 100, i;

	for (i = 0; i < n; i++)
		syscall(SYS_getpgid, 0);
	sleep(gap);
	for (i = 0; i < n; i++)
		syscall(SYS_getsid, 0);
	request(dir, mode);
	for (i = 0; i < n; i++)
		syscall(SYS_sched_yield);
	sleep(gap);
	for (i = 0; i < n; i++)
		syscall(SYS_getpriority, PRIO_PROCESS, 0);
	request(dir, mode);
	return 0;
}
