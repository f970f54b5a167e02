// SPDX-License-Identifier: MIT
/*
 * Test workload: spin for SECONDS in code copied to an anonymous executable
 * mapping (as a JIT does: no file maps it, so the recorder looks for
 * /tmp/perf-PID.map), after putting at that path what MODE says:
 *   map            a valid perf map naming the code "jit_spin_code"
 *   fifo           a FIFO (opening it for reading blocks)
 *   symlink TARGET a symlink to TARGET (/dev/zero, another user's file)
 *   big            a sparse regular file of 1 GiB without a newline
 *   none           nothing
 * The path stays at exit, as a JIT's perf map does (the caller removes it).
 * Environment: PP_PIDFILE=F writes our pid to F once the map is in place.
 * Exit 3 on an architecture it has no code for.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#if defined(__x86_64__)
/* loop: sub rdi, 1; jne loop; ret */
static const uint8_t code[] = { 0x48, 0x83, 0xef, 0x01, 0x75, 0xfa, 0xc3 };
#elif defined(__aarch64__)
/* loop: subs x0, x0, #1; b.ne loop; ret */
static const uint8_t code[] = { 0x00, 0x04, 0x00, 0xf1, 0xe1, 0xff, 0xff, 0x54,
				0xc0, 0x03, 0x5f, 0xd6 };
#endif

static char path[64];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
#if defined(__x86_64__) || defined(__aarch64__)
	double secs = argc > 1 ? strtod(argv[1], NULL) : 1.0, end;
	const char *mode = argc > 2 ? argv[2] : "map", *pidfile = getenv("PP_PIDFILE");
	void (*fn)(unsigned long);
	uint8_t *mem;

	mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
		   -1, 0);
	if (mem == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	memcpy(mem, code, sizeof(code));
	__builtin___clear_cache((char *)mem, (char *)mem + sizeof(code));
	fn = (void (*)(unsigned long))(uintptr_t)mem;

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	unlink(path);
	if (!strcmp(mode, "map")) {
		FILE *f = fopen(path, "w");

		if (!f) {
			perror(path);
			return 1;
		}
		fprintf(f, "%lx %zx jit_spin_code\n", (unsigned long)(uintptr_t)mem, sizeof(code));
		fclose(f);
	} else if (!strcmp(mode, "fifo")) {
		if (mkfifo(path, 0644)) {
			perror(path);
			return 1;
		}
	} else if (!strcmp(mode, "symlink") && argc > 3) {
		if (symlink(argv[3], path)) {
			perror(path);
			return 1;
		}
	} else if (!strcmp(mode, "big")) {
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);

		if (fd < 0 || ftruncate(fd, 1l << 30)) {
			perror(path);
			return 1;
		}
		close(fd);
	} else if (strcmp(mode, "none")) {
		fprintf(stderr, "jit-spin: bad mode '%s'\n", mode);
		return 2;
	}
	if (pidfile) {
		FILE *f = fopen(pidfile, "w");

		if (f) {
			fprintf(f, "%d\n", (int)getpid());
			fclose(f);
		}
	}
	for (end = now() + secs; now() < end;)
		fn(1000000);
	return 0;
#else
	(void)argc;
	(void)argv;
	(void)path;
	(void)now;
	return 3;
#endif
}
