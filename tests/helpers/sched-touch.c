// SPDX-License-Identifier: MIT
/*
 * Test workload for page-faults: maps N fresh anonymous pages (argv[1],
 * default 64), prints "ADDR N PAGESIZE" and writes one byte in each page, so
 * exactly N first-touch page faults land in [ADDR, ADDR + N * PAGESIZE).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 64;
	long ps = sysconf(_SC_PAGESIZE);
	char *p;

	if (n <= 0)
		return 2;
	p = mmap(NULL, (size_t)(n * ps), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	madvise(p, (size_t)(n * ps), MADV_NOHUGEPAGE);
	printf("%lx %ld %ld\n", (unsigned long)p, n, ps);
	fflush(stdout);
	for (long i = 0; i < n; i++)
		((volatile char *)p)[i * ps] = 1;
	return 0;
}
