// SPDX-License-Identifier: MIT
/*
 * Test workload with mangled names: burn CPU for SECONDS (default 1) in a
 * C++ member function, pp::Spinner::spin(unsigned long), and in two
 * functions carrying Rust-mangled names (a legacy one with its hash suffix
 * and a v0 one), so a profile must show all three demangled. Built -O0 with
 * frame pointers, like the C helpers.
 */
#include <cstdlib>
#include <ctime>

volatile unsigned long pp_cxx_sink;

namespace pp {
struct Spinner {
	__attribute__((noinline)) void spin(unsigned long n);
};

void Spinner::spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		pp_cxx_sink += i * 3;
}
} // namespace pp

/* pptest::spin_legacy and pptest::spin_v0, as rustc would name them */
extern "C" void rust_legacy(unsigned long n) __asm__("_ZN6pptest11spin_legacy17h0123456789abcdefE");
extern "C" void rust_v0(unsigned long n) __asm__("_RNvCs15kBYyAo9fc_6pptest7spin_v0");

extern "C" __attribute__((noinline)) void rust_legacy(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		pp_cxx_sink ^= i * 5;
}

extern "C" __attribute__((noinline)) void rust_v0(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		pp_cxx_sink ^= i * 7;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 1.0);
	pp::Spinner s;

	while (now() < end) {
		s.spin(1000000);
		rust_legacy(1000000);
		rust_v0(1000000);
	}
	return 0;
}
