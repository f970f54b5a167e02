// SPDX-License-Identifier: MIT
/*
 * libpp-heap.so: the sampled heap profiler's half in the profiled process
 * (pp-record kmemleak|kmemprof --user --sample -- COMMAND preloads it).
 *
 * It interposes the allocators (malloc, calloc, realloc, reallocarray,
 * free, posix_memalign, aligned_alloc, memalign, valloc, pvalloc,
 * malloc_usable_size, and C++'s operator new and delete) and forwards each
 * call to the allocator that comes next in the lookup order (libc's, or
 * jemalloc or tcmalloc when the program links one). It decides in the
 * process which calls the profile needs, so that the kernel is reached only
 * for those:
 *
 * - Allocations are sampled by bytes: a thread's allocations are laid end
 *   to end and a point falls every PP_HEAP_SAMPLE bytes on average, at
 *   exponentially distributed distances (a Poisson process); a block with
 *   a point in it is sampled. A block of s bytes is so sampled with the
 *   probability 1 - exp(-s/N) and stands for s / (1 - exp(-s/N)) bytes: the
 *   weighted sums are unbiased. The cost of an allocation not sampled is a
 *   thread-local compare and subtract.
 * - A sampled block is reported by calling pp_heap_alloc(ptr, size, N),
 *   a function that does nothing and on which the recorder has put a
 *   uprobe (with the registers and the frame-pointer stack): one trap per
 *   sample. Its address goes into a table; free() of an address in the
 *   table calls pp_heap_free(ptr) before the block is released (so that
 *   no allocation of the same address can be reported before it). A
 *   counting filter, read without a lock, answers "not sampled" for almost
 *   every free at the cost of one load.
 * - PP_HEAP_SAMPLE=1: every allocation and every free is reported (exact
 *   counts, the cost of a trap per call). 0 or unset: the default 524288.
 * - At exit, pp_heap_stats(samples, untracked) tells how many samples this
 *   process took and how many could not be tracked (no memory for the
 *   table), so a reader can tell samples lost on the way.
 *
 * Where interposers break: allocations made before the library is set up
 * or while dlsym() looks the allocators up are served from a static arena
 * (free() ignores them, realloc() copies them out); a fork()ed child keeps
 * sampling (the table's lock is held across fork); threads have their own
 * counters; malloc_usable_size() of an arena block answers its size.
 *
 * Built with frame pointers and without any other dependency than libc.
 */
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#define EXPORT		__attribute__((visibility("default")))
#define TLS		__thread __attribute__((tls_model("initial-exec")))
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

#define DEFAULT_MEAN	524288u
#define FILTER_BITS	19		/* 512 KiB of counters */
#define TABLE_MIN	4096		/* slots, a power of two */
#define ARENA_SIZE	(256 * 1024)

/* The probes: empty functions the recorder puts uprobes on. */
void pp_heap_alloc(void *ptr, size_t size, size_t mean);
void pp_heap_free(void *ptr);
void pp_heap_stats(uint64_t samples, uint64_t untracked);

/*
 * Each is a one-byte nop (which the kernel emulates, no single step) and a
 * return, written in assembly so that no compiler merges the three or
 * drops a call to them. Not a 5-byte nop: Linux 6.18 turns a uprobe on one
 * into a call to a trampoline, and a fork()ed child's hits of such a probe
 * never reach the perf events it inherited (its samples are lost).
 */
#if defined(__x86_64__)
#define PROBE(name) \
	".globl " #name "\n\t.type " #name ", @function\n" #name ":\n\t" \
	"nop\n\tret\n\t.size " #name ", .-" #name "\n"
#elif defined(__aarch64__)
#define PROBE(name) \
	".globl " #name "\n\t.type " #name ", %function\n" #name ":\n\tnop\n\tret\n" \
	"\t.size " #name ", .-" #name "\n"
#endif
#ifdef PROBE
__asm__(".pushsection .text\n\t.p2align 4\n" PROBE(pp_heap_alloc) "\t.p2align 4\n"
	PROBE(pp_heap_free) "\t.p2align 4\n" PROBE(pp_heap_stats) ".popsection\n");
#else
#error "libpp-heap: no probe functions for this architecture"
#endif

/* The allocators that come next in the lookup order. */
static struct {
	void *(*malloc)(size_t);
	void (*free)(void *);
	void *(*calloc)(size_t, size_t);
	void *(*realloc)(void *, size_t);
	void *(*reallocarray)(void *, size_t, size_t);
	int (*posix_memalign)(void **, size_t, size_t);
	void *(*aligned_alloc)(size_t, size_t);
	void *(*memalign)(size_t, size_t);
	void *(*valloc)(size_t);
	void *(*pvalloc)(size_t);
	size_t (*malloc_usable_size)(void *);
} real;

enum { ST_NONE, ST_RESOLVING, ST_READY };
enum { MODE_OFF, MODE_SAMPLE, MODE_EXACT };

static int state;		/* ST_*, changed with atomics */
static int mode;		/* MODE_*, set once at set-up */
static uint64_t mean = DEFAULT_MEAN;

/* Per thread: bytes to the next point, the generator, a guard. */
static TLS uint64_t t_left;
static TLS uint64_t t_rng;
static TLS int t_busy;

/* Sampled blocks: a counting filter read without a lock, a table under one. */
static uint8_t *filter;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t *table;		/* addresses, 0: empty */
static size_t table_cap, table_nr;
static uint64_t nr_samples, nr_untracked;

/* --- the start-up arena ---------------------------------------------------- */

static char arena[ARENA_SIZE] __attribute__((aligned(64)));
static size_t arena_used;

static inline int in_arena(const void *p)
{
	return (uintptr_t)p - (uintptr_t)arena < ARENA_SIZE;
}

/* A block of @n bytes aligned to @align (16 at least); its size is kept before it. */
static void *arena_alloc(size_t n, size_t align)
{
	size_t at, old, need;

	if (align < 16)
		align = 16;
	if (n > ARENA_SIZE || align > 4096)
		return NULL;
	old = __atomic_load_n(&arena_used, __ATOMIC_RELAXED);
	do {
		at = (old + 16 + align - 1) & ~(align - 1);
		need = at + ((n + 15) & ~(size_t)15);
		if (need > ARENA_SIZE)
			return NULL;
	} while (!__atomic_compare_exchange_n(&arena_used, &old, need, 0, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	*(size_t *)(arena + at - 16) = n;	/* zero-filled: calloc needs nothing more */
	return arena + at;
}

static size_t arena_size(const void *p)
{
	return *(const size_t *)((const char *)p - 16);
}

/* --- set-up ---------------------------------------------------------------- */

static void atfork_prepare(void)
{
	pthread_mutex_lock(&lock);
}

static void atfork_parent(void)
{
	pthread_mutex_unlock(&lock);
}

/* The child keeps the parent's table (its blocks are the child's too), not its counts. */
static void atfork_child(void)
{
	nr_samples = nr_untracked = 0;
	pthread_mutex_unlock(&lock);
}

static uint64_t parse_mean(const char *v)
{
	uint64_t n = 0;

	if (!v || !*v)
		return DEFAULT_MEAN;
	for (; *v >= '0' && *v <= '9'; v++) {
		if (n > UINT64_MAX / 10 - 10)
			return DEFAULT_MEAN;
		n = n * 10 + (uint64_t)(*v - '0');
	}
	return *v || !n ? DEFAULT_MEAN : n;
}

#define RESOLVE(f) (real.f = (__typeof__(real.f))dlsym(RTLD_NEXT, #f))

/*
 * Look the next allocators up (dlsym may allocate: those calls get the
 * arena) and read the rate. Called by the constructor, or by the first
 * allocation when it comes before (another library's constructor).
 */
static void setup(void)
{
	int expect = ST_NONE;

	if (!__atomic_compare_exchange_n(&state, &expect, ST_RESOLVING, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return;
	RESOLVE(malloc);
	RESOLVE(free);
	RESOLVE(calloc);
	RESOLVE(realloc);
	RESOLVE(reallocarray);
	RESOLVE(posix_memalign);
	RESOLVE(aligned_alloc);
	RESOLVE(memalign);
	RESOLVE(valloc);
	RESOLVE(pvalloc);
	RESOLVE(malloc_usable_size);
	if (!real.malloc || !real.free || !real.calloc || !real.realloc || !real.posix_memalign ||
	    !real.memalign) {
		static const char msg[] = "libpp-heap: the next allocator was not found\n";

		if (write(2, msg, sizeof(msg) - 1) < 0)
			_exit(127);
		_exit(127);
	}
	mean = parse_mean(getenv("PP_HEAP_SAMPLE"));
	mode = mean == 1 ? MODE_EXACT : MODE_SAMPLE;
	if (mode == MODE_SAMPLE) {
		uint8_t *f = mmap(NULL, (size_t)1 << FILTER_BITS, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

		if (f == MAP_FAILED)
			mode = MODE_OFF;	/* nothing sampled, nothing wrong */
		else	/* free() takes a filter as "set up": real.free is there */
			__atomic_store_n(&filter, f, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&state, ST_READY, __ATOMIC_RELEASE);
	pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}

__attribute__((constructor)) static void heap_init(void)
{
	setup();
}

__attribute__((destructor)) static void heap_fini(void)
{
	if (mode != MODE_OFF)
		pp_heap_stats(__atomic_load_n(&nr_samples, __ATOMIC_RELAXED),
			      __atomic_load_n(&nr_untracked, __ATOMIC_RELAXED));
}

/* 1 when the real allocators are there; 0 while they are looked up (use the arena). */
static inline int ready(void)
{
	int st = __atomic_load_n(&state, __ATOMIC_ACQUIRE);

	if (likely(st == ST_READY))
		return 1;
	if (st == ST_NONE)
		setup();
	return __atomic_load_n(&state, __ATOMIC_ACQUIRE) == ST_READY;
}

/* --- the byte sampler ------------------------------------------------------- */

/* xorshift64*: a thread's uniform numbers. */
static uint64_t rng_next(void)
{
	uint64_t x = t_rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	t_rng = x;
	return x * 0x2545f4914f6cdd1dull;
}

static void rng_seed(void)
{
	struct timespec ts;
	uint64_t s;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	s = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ ((uint64_t)syscall(SYS_gettid) << 16) ^
	    (uint64_t)(uintptr_t)&t_rng;
	t_rng = s ? s : 0x9e3779b97f4a7c15ull;
	rng_next();
}

/* ln(@x) for 0 < x <= 1: x = m * 2^e with m in [1, 2), ln m by its atanh series. */
static double ln(double x)
{
	union { double d; uint64_t u; } v = { .d = x };
	int e = (int)((v.u >> 52) & 0x7ff) - 1023;
	double m, t, t2, s;

	v.u = (v.u & ((1ull << 52) - 1)) | (1023ull << 52);
	m = v.d;
	t = (m - 1) / (m + 1);
	t2 = t * t;
	s = t * (1 + t2 * (1.0 / 3 + t2 * (1.0 / 5 + t2 * (1.0 / 7 + t2 * (1.0 / 9 + t2 / 11)))));
	return e * 0.69314718055994530942 + 2 * s;
}

/* Bytes to the next point: exponential with mean @mean. */
static uint64_t next_gap(void)
{
	/* u in (0, 1]: 53 random bits, never 0 */
	double u = (double)((rng_next() >> 11) + 1) * (1.0 / 9007199254740992.0);
	double g = -ln(u) * (double)mean;

	return g >= 1.8e19 ? UINT64_MAX : (uint64_t)g;
}

static inline size_t filter_slot(uint64_t p)
{
	return (size_t)((p >> 4) * 0x9e3779b97f4a7c15ull >> (64 - FILTER_BITS));
}

static inline size_t table_slot(uint64_t p, size_t cap)
{
	return (size_t)((p >> 4) * 0xc2b2ae3d27d4eb4full >> 17) & (cap - 1);
}

/* Grow the table (under the lock). Return: 0, or -1 without memory. */
static int table_grow(void)
{
	size_t ncap = table_cap ? table_cap * 2 : TABLE_MIN;
	uint64_t *nt = mmap(NULL, ncap * sizeof(*nt), PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (nt == MAP_FAILED)
		return -1;
	for (size_t i = 0; i < table_cap; i++) {
		size_t j;

		if (!table[i])
			continue;
		for (j = table_slot(table[i], ncap); nt[j]; j = (j + 1) & (ncap - 1))
			;
		nt[j] = table[i];
	}
	if (table)
		munmap(table, table_cap * sizeof(*table));
	table = nt;
	table_cap = ncap;
	return 0;
}

/* Remember sampled block @p. Return: 1, or 0 when it cannot be tracked. */
static int track(uint64_t p)
{
	size_t i, f = filter_slot(p);

	pthread_mutex_lock(&lock);
	if ((table_nr + 1) * 2 > table_cap && table_grow()) {
		pthread_mutex_unlock(&lock);
		return 0;
	}
	for (i = table_slot(p, table_cap); table[i] && table[i] != p; i = (i + 1) & (table_cap - 1))
		;
	if (!table[i]) {
		table[i] = p;
		table_nr++;
		/* a counter at 255 stays there: its slot always asks the table */
		if (filter[f] != 255)
			__atomic_store_n(&filter[f], (uint8_t)(filter[f] + 1), __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&lock);
	return 1;
}

/* Forget @p if it was sampled (its filter counter is not 0). Return: 1 if it was. */
static int untrack(uint64_t p)
{
	size_t i, j, mask, f = filter_slot(p);
	int found = 0;

	pthread_mutex_lock(&lock);
	if (!table_cap)
		goto out;
	mask = table_cap - 1;
	for (i = table_slot(p, table_cap); table[i]; i = (i + 1) & mask) {
		if (table[i] == p)
			break;
	}
	if (!table[i])
		goto out;
	found = 1;
	table_nr--;
	if (filter[f] != 255)
		__atomic_store_n(&filter[f], (uint8_t)(filter[f] - 1), __ATOMIC_RELEASE);
	/* close the hole: move back the entries of the run after it that may go there */
	table[i] = 0;
	for (j = (i + 1) & mask; table[j]; j = (j + 1) & mask) {
		size_t home = table_slot(table[j], table_cap);

		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			table[i] = table[j];
			table[j] = 0;
			i = j;
		}
	}
out:
	pthread_mutex_unlock(&lock);
	return found;
}

/*
 * An allocation of @n bytes at @p crossed the thread's next point (or the
 * thread has none yet): draw the next one and report @p when it holds a point.
 */
__attribute__((noinline, cold)) static void sample(void *p, size_t n)
{
	if (mode == MODE_OFF) {
		t_left = UINT64_MAX;	/* never here again */
		return;
	}
	if (t_busy)
		return;
	t_busy = 1;
	if (mode == MODE_EXACT) {
		t_left = 0;
		if (p) {
			__atomic_fetch_add(&nr_samples, 1, __ATOMIC_RELAXED);
			pp_heap_alloc(p, n, 1);
		}
		goto out;
	}
	if (!t_rng) {
		/* the thread's first allocation: where is its first point? */
		rng_seed();
		t_left = next_gap();
		if (n < t_left) {
			t_left -= n;
			goto out;
		}
	}
	t_left = next_gap();
	if (!p)
		goto out;
	__atomic_fetch_add(&nr_samples, 1, __ATOMIC_RELAXED);
	if (track((uint64_t)(uintptr_t)p))
		pp_heap_alloc(p, n, mean);
	else
		__atomic_fetch_add(&nr_untracked, 1, __ATOMIC_RELAXED);
out:
	t_busy = 0;
}

/* Account an allocation of @n bytes that returned @p (NULL: failed). */
static inline void account(void *p, size_t n)
{
	if (likely(n < t_left))
		t_left -= n;
	else
		sample(p, n);
}

/* A block is going back: report it first when it was sampled. Return: 1 if it was. */
static inline int release(void *p)
{
	if (mode == MODE_EXACT) {
		if (t_busy)
			return 0;
		pp_heap_free(p);
		return 1;
	}
	if (unlikely(filter && __atomic_load_n(&filter[filter_slot((uint64_t)(uintptr_t)p)],
					       __ATOMIC_ACQUIRE))) {
		if (!t_busy && untrack((uint64_t)(uintptr_t)p)) {
			pp_heap_free(p);
			return 1;
		}
	}
	return 0;
}

/* --- the interposed allocators ---------------------------------------------- */

/* C++'s, by their mangled names (no prototype in C). */
EXPORT void *_Znwm(size_t n);
EXPORT void *_Znam(size_t n);
EXPORT void *_ZnwmRKSt9nothrow_t(size_t n, const void *nt);
EXPORT void *_ZnamRKSt9nothrow_t(size_t n, const void *nt);
EXPORT void _ZdlPv(void *p);
EXPORT void _ZdaPv(void *p);
EXPORT void _ZdlPvm(void *p, size_t n);
EXPORT void _ZdaPvm(void *p, size_t n);
EXPORT void _ZdlPvRKSt9nothrow_t(void *p, const void *nt);
EXPORT void _ZdaPvRKSt9nothrow_t(void *p, const void *nt);

/*
 * malloc and free are the calls a program makes most: their common case
 * is a few instructions and a tail call. A thread's gap is 0 until its
 * first allocation took the slow path, which sets the library up: a gap
 * above 0 means the allocators are there. The filter exists only when
 * sampling is on and set up.
 */
__attribute__((noinline)) static void *malloc_slow(size_t n)
{
	void *p;

	if (unlikely(!ready()))
		return arena_alloc(n, 16);
	p = real.malloc(n);
	account(p, n);
	return p;
}

EXPORT void *malloc(size_t n)
{
	if (likely(n < t_left)) {
		t_left -= n;
		return real.malloc(n);
	}
	return malloc_slow(n);
}

__attribute__((noinline)) static void free_slow(void *p)
{
	if (!p || in_arena(p))
		return;
	if (unlikely(!ready()))
		return;		/* cannot be: only the arena serves before */
	release(p);
	real.free(p);
}

EXPORT void free(void *p)
{
	const uint8_t *f = __atomic_load_n(&filter, __ATOMIC_ACQUIRE);

	if (likely(f && !f[filter_slot((uint64_t)(uintptr_t)p)] && !in_arena(p))) {
		real.free(p);
		return;
	}
	free_slow(p);
}

EXPORT void *calloc(size_t n, size_t m)
{
	void *p;

	if (unlikely(!ready())) {
		if (m && n > SIZE_MAX / m)
			return NULL;
		return arena_alloc(n * m, 16);
	}
	p = real.calloc(n, m);
	if (p)
		account(p, n * m);
	return p;
}

/* realloc(): the old block goes (reported first, when sampled), a new one comes. */
static void *do_realloc(void *old, size_t n, size_t m, int array)
{
	size_t bytes;
	int was;
	void *p;

	if (m && n > SIZE_MAX / m) {
		errno = ENOMEM;
		return NULL;
	}
	bytes = n * m;
	if (unlikely(!ready()) || (old && in_arena(old))) {
		size_t had = old ? arena_size(old) : 0;

		p = ready() ? real.malloc(bytes) : arena_alloc(bytes, 16);
		if (p && old)
			memcpy(p, old, had < bytes ? had : bytes);
		if (p && ready())
			account(p, bytes);
		return p;
	}
	was = old && release(old);
	p = array && real.reallocarray ? real.reallocarray(old, n, m) : real.realloc(old, bytes);
	if (!p && bytes && was)		/* failed: the old block stays, no longer tracked */
		__atomic_fetch_add(&nr_untracked, 1, __ATOMIC_RELAXED);
	if (p || !old || bytes)
		account(p, bytes);
	return p;
}

EXPORT void *realloc(void *old, size_t n)
{
	return do_realloc(old, n, 1, 0);
}

EXPORT void *reallocarray(void *old, size_t n, size_t m)
{
	return do_realloc(old, n, m, 1);
}

EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
	int ret;

	if (unlikely(!ready())) {
		*out = arena_alloc(n, align);
		return *out ? 0 : ENOMEM;
	}
	ret = real.posix_memalign(out, align, n);
	if (!ret)
		account(*out, n);
	return ret;
}

EXPORT void *aligned_alloc(size_t align, size_t n)
{
	void *p;

	if (unlikely(!ready()))
		return arena_alloc(n, align);
	p = real.aligned_alloc ? real.aligned_alloc(align, n) : real.memalign(align, n);
	account(p, n);
	return p;
}

EXPORT void *memalign(size_t align, size_t n)
{
	void *p;

	if (unlikely(!ready()))
		return arena_alloc(n, align);
	p = real.memalign(align, n);
	account(p, n);
	return p;
}

EXPORT void *valloc(size_t n)
{
	void *p;

	if (unlikely(!ready()))
		return arena_alloc(n, 4096);
	p = real.valloc ? real.valloc(n) : real.memalign(4096, n);
	account(p, n);
	return p;
}

EXPORT void *pvalloc(size_t n)
{
	size_t r = (n + 4095) & ~(size_t)4095;
	void *p;

	if (unlikely(!ready()))
		return arena_alloc(r, 4096);
	p = real.pvalloc ? real.pvalloc(n) : real.memalign(4096, r);
	account(p, r);
	return p;
}

EXPORT size_t malloc_usable_size(void *p)
{
	if (!p)
		return 0;
	if (in_arena(p))
		return arena_size(p);
	if (!ready() || !real.malloc_usable_size)
		return 0;
	return real.malloc_usable_size(p);
}

/*
 * C++: operator new and delete go to malloc and free here, so that the
 * sampled stack starts at the caller of new (libstdc++'s new keeps no
 * frame pointer: through it the caller would be lost) and a program that
 * links an allocator with its own new and delete is still paired. When
 * malloc fails, the next operator new runs the new-handler and throws.
 */
static void *cxx_new(size_t n, const char *next)
{
	void *p;

	if (unlikely(!ready()))
		return arena_alloc(n ? n : 1, 16);
	p = real.malloc(n ? n : 1);
	if (likely(p)) {
		account(p, n);
		return p;
	}
	{
		void *(*nx)(size_t) = (void *(*)(size_t))dlsym(RTLD_NEXT, next);

		return nx ? nx(n) : NULL;
	}
}

EXPORT void *_Znwm(size_t n)
{
	return cxx_new(n, "_Znwm");
}

EXPORT void *_Znam(size_t n)
{
	return cxx_new(n, "_Znam");
}

/* The nothrow forms: NULL on failure. */
EXPORT void *_ZnwmRKSt9nothrow_t(size_t n, const void *nt)
{
	return malloc(n ? n : 1);
}

EXPORT void *_ZnamRKSt9nothrow_t(size_t n, const void *nt)
{
	return malloc(n ? n : 1);
}

EXPORT void _ZdlPv(void *p)
{
	free(p);
}

EXPORT void _ZdaPv(void *p)
{
	free(p);
}

EXPORT void _ZdlPvm(void *p, size_t n)
{
	free(p);
}

EXPORT void _ZdaPvm(void *p, size_t n)
{
	free(p);
}

EXPORT void _ZdlPvRKSt9nothrow_t(void *p, const void *nt)
{
	free(p);
}

EXPORT void _ZdaPvRKSt9nothrow_t(void *p, const void *nt)
{
	free(p);
}
