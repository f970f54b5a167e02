// SPDX-License-Identifier: MIT
/*
 * C++ allocations for the heap sampler:  heap-cxx N
 * new_arrays() makes N `new char[100]` (operator new[]) and deletes each,
 * new_objects() N `new Obj` of 48 bytes (operator new) and deletes each,
 * both from libstdc++'s operators, which keep no frame pointer: the stacks
 * must still start at these functions.
 */
#include <cstdlib>

struct Obj {
	char b[48];
};

/* C names, as the test looks them up */
extern "C" void new_arrays(long n);
extern "C" void new_objects(long n);

__attribute__((noinline)) void new_arrays(long n)
{
	for (long i = 0; i < n; i++) {
		char *p = new char[100];

		p[0] = (char)i;
		delete[] p;
	}
}

__attribute__((noinline)) void new_objects(long n)
{
	for (long i = 0; i < n; i++) {
		Obj *o = new Obj;

		o->b[0] = (char)i;
		delete o;
	}
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 1000;

	new_arrays(n);
	new_objects(n);
	return 0;
}
