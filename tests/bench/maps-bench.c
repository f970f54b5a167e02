// SPDX-License-Identifier: MIT
/*
 * maps-bench - the replay symbol tables' map insertions, timed alone.
 *
 * N maps of one process inserted top down, as mmap hands addresses out
 * (each new map goes below all the others), then N lookups. A sorted array
 * moved every map at each insertion (quadratic); the treap of
 * replay/symbols.c does not.
 *
 * usage: maps-bench [N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../../replay/replay-internal.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 200000;
	struct pp_symtab *t = pp_symtab__new();
	const char *dso;
	char name[64];
	double t0, t1, t2;
	unsigned long found = 0;

	if (!t || !n)
		return 1;
	t0 = now();
	for (unsigned long i = 0; i < n; i++)
		if (pp_symtab__add_mmap(t, 1, 0x7f0000000000ull - (i + 1) * 0x2000ull, 0x1000, 0, NULL, 0,
					i & 1 ? "/l/a.so" : "/l/b.so"))
			return 1;
	t1 = now();
	for (unsigned long i = 0; i < n; i++) {
		pp_symtab__lookup(t, 1, 0x7f0000000000ull - (i + 1) * 0x2000ull + 8, 0, name, sizeof(name), &dso);
		found += dso[0] != '[';
	}
	t2 = now();
	printf("maps-bench: %lu maps top down: insert %.3f s (%.0f ns each), lookup %.3f s, %lu found\n",
	       n, t1 - t0, (t1 - t0) * 1e9 / (double)n, t2 - t1, found);
	pp_symtab__free(t);
	return found == n ? 0 : 1;
}
