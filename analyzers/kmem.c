// SPDX-License-Identifier: MIT
/*
 * The core of kmemleak and kmemprof: allocations and frees paired by
 * pointer.
 *
 * Events: the kernel's allocators (kmem:kmalloc/kfree,
 * kmem:kmem_cache_alloc/kmem_cache_free, kmem:mm_page_alloc/mm_page_free
 * by pfn with 4 KiB << order bytes), libc's allocators through uprobes
 * with the argument registers (entry: the size and the stack; return: the
 * pointer, in ax), or any events named by --alloc/--free with their ptr=
 * and size= fields (perf-prof's form).
 *
 * Pointers live in separate spaces: kernel slab objects, kernel pages (pfn)
 * and each process's heap. An allocation stack is interned once, keyed by
 * its addresses (and the process, when it has user frames); stacks whose
 * frames get the same names are merged at the report.
 *
 * Honesty about what the trace cannot tell: a free of a pointer the trace
 * never saw allocated was allocated before the recording (counted); an
 * object still allocated when records were lost may have had its free in
 * the lost window: it is reported as uncertain, not as a leak.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "pp/replay.h"
#include "analyzers.h"
#include "fgdiff.h"
#include "hist.h"
#include "json.h"
#include "kmem.h"
#include "sched-common.h"

#define KMEM_MAX_FRAMES		128
#define KMEM_MAX_COMMS		4
#define KMEM_DEFAULT_TOP	20
#define KMEM_USTACK		"1024"	/* bytes of stack posix_memalign's return records */

/* What an event is to the profilers. */
enum kmem_role {
	KR_NONE = 0,
	KR_ALLOC,		/* a tracepoint (or --alloc event) with the pointer and size */
	KR_FREE,		/* a tracepoint (or --free event) with the pointer */
	KR_UENTRY,		/* uprobe on a libc allocator: the arguments */
	KR_URET,		/* uretprobe on it: the pointer returned */
	KR_SALLOC,		/* --sample: pp_heap_alloc(ptr, size, mean), a sampled block */
	KR_SFREE,		/* --sample: pp_heap_free(ptr), a sampled block freed */
	KR_SSTATS,		/* --sample: pp_heap_stats(samples, untracked) at a process's exit */
};

/*
 * --sample: the probes of pp's sampler (record/preload/heap.c), their
 * roles, and what pp-record preloads into the COMMAND.
 */
#define HEAP_LIB		"libpp-heap.so"
#define HEAP_ENV		"PP_HEAP_SAMPLE"
#define HEAP_DEFAULT_MEAN	524288ull

static const struct {
	const char *name;
	int role;
} heap_probes[] = {
	{ "pp_heap_alloc", KR_SALLOC },
	{ "pp_heap_free", KR_SFREE },
	{ "pp_heap_stats", KR_SSTATS },
};

/* The pointer spaces (a process's heap is KS_USER + pid). */
enum kmem_space { KS_SLAB = 0, KS_PAGE = 1, KS_USER = 2 };

/* libc's allocators, as probed with --user. */
enum kmem_ufunc {
	UF_MALLOC, UF_CALLOC, UF_REALLOC, UF_REALLOCARRAY, UF_FREE, UF_POSIX_MEMALIGN,
	UF_ALIGNED_ALLOC, UF_MEMALIGN, UF_VALLOC, UF_PVALLOC, UF_NR
};

static const char *const ufunc_names[UF_NR] = {
	"malloc", "calloc", "realloc", "reallocarray", "free", "posix_memalign",
	"aligned_alloc", "memalign", "valloc", "pvalloc",
};

/* x86_64 perf_regs bits of the registers the regs attribute records. */
#define REG_AX	0
#define REG_DX	3
#define REG_SI	4
#define REG_DI	5
#define REG_SP	7

struct kev {
	int role;
	int space;
	int ufunc;
	int user_stack_only;
	struct tep_format_field *ptr, *size, *order;
};

struct kobj {
	uint64_t ptr;			/* 0: empty slot */
	uint64_t size;			/* bytes it stands for (--sample: weighted) */
	uint64_t objs;			/* objects it stands for (1 unless sampled) */
	uint64_t time;
	uint32_t space;
	uint32_t stack;			/* index into stacks, UINT32_MAX: none */
	uint32_t tid;
	uint32_t lossgen;		/* loss windows seen before it was allocated */
};

struct kstk {
	uint64_t hash;
	uint32_t pid;			/* the process its user frames belong to, 0: kernel only */
	uint32_t nr;
	size_t off;			/* into ips/kern */
	uint64_t calls, bytes;		/* kmemprof: this interval */
	uint64_t tot_calls, tot_bytes;	/* kmemprof: the whole run */
	uint32_t tid;			/* a task that allocated here (its comm) */
	int32_t *fids;			/* flame graph frame ids, lazily */
	/* --bpf: the live blocks of the last window, and who allocated here */
	uint64_t live_bytes, live_objs, live_oldest;
	char comm[16];
	/* kmemleak, filled at each report */
	uint64_t out_bytes, out_objs, oldest;
	char comms[KMEM_MAX_COMMS][16];
	int nr_comms;
};

/* A pending libc call of a thread: the entry seen, its return not yet. */
struct upend {
	int active;
	int ufunc;
	int depth;			/* nested allocator calls inside it (realloc -> malloc) */
	uint64_t size, old, memptr;
	uint32_t stack;			/* interned at the return */
	uint64_t time;
};

struct kmem {
	int mode;
	int top;
	int bpf;			/* the file (or live run) holds --bpf aggregates */
	uint64_t bpf_now;		/* end of the last window */
	uint64_t bpf_windows, bpf_dropped, bpf_stacks_lost;
	struct kev *evs;
	size_t nr_evs;
	/* outstanding objects: open addressing, linear probing */
	struct kobj *objs;
	size_t obj_cap, nr_objs;
	/* interned stacks */
	struct kstk *stks;
	size_t nr_stks, stk_cap;
	uint32_t *stk_hash;		/* index + 1, 0: empty */
	size_t stk_hash_cap;
	uint64_t *ips;
	uint8_t *kern;
	size_t nr_ips, ips_cap;
	struct pp_kmap pend;		/* tid -> struct upend */
	uint32_t lossgen;
	/* counters */
	uint64_t allocs, alloc_bytes, frees, frees_unknown, realloc_moves, reused;
	uint64_t orphan_returns, failed, posix_unknown, int_bytes, int_calls;
	uint64_t lost_windows, lost_records;
	/* --sample: the sampler's probes */
	int track;			/* keep the outstanding objects (kmemleak, --pprof) */
	uint64_t mean;			/* bytes per sample on average, 1: every call */
	uint64_t samples, sampler_samples, sampler_untracked, sampler_exits;
	int nomem;
};

/* --- explicit --alloc/--free specs ------------------------------------- */

struct xspec {
	char head[512];
	char ptr[64], size[64];
};

/* "HEAD[/FILTER/ATTR/...]": probes start their blocks at "//". */
static void xspec_parse(const char *v, struct xspec *x)
{
	const char *b, *p;
	size_t n;

	memset(x, 0, sizeof(*x));
	if (!strncmp(v, "uprobe:", 7) || !strncmp(v, "uretprobe:", 10) || !strncmp(v, "kprobe:", 7) ||
	    !strncmp(v, "kretprobe:", 10))
		b = strstr(v, "//");
	else
		b = strchr(v, '/');
	n = b ? (size_t)(b - v) : strlen(v);
	if (n >= sizeof(x->head))
		n = sizeof(x->head) - 1;
	memcpy(x->head, v, n);
	if (!b)
		return;
	p = strchr(b + 1, '/');		/* end of the filter block */
	while (p && *p == '/') {
		const char *a = p + 1, *e = strchr(a, '/');
		size_t l = e ? (size_t)(e - a) : strlen(a);

		if (l > 4 && !strncmp(a, "ptr=", 4) && l - 4 < sizeof(x->ptr))
			memcpy(x->ptr, a + 4, l - 4);
		else if (l > 5 && !strncmp(a, "size=", 5) && l - 5 < sizeof(x->size))
			memcpy(x->size, a + 5, l - 5);
		p = e;
	}
}

/* --- events ------------------------------------------------------------ */

/*
 * The libc a command will map: libc.so.6 where the dynamic linker looks
 * first (LD_LIBRARY_PATH, then the system directories).
 */
static int find_system_libc(char *buf, size_t len)
{
	static const char *const dirs[] = {
		"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu",
		"/usr/lib/aarch64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib",
	};
	const char *llp = getenv("LD_LIBRARY_PATH");
	char path[512];

	while (llp && *llp) {
		size_t n = strcspn(llp, ":");

		if (n && n < 400) {
			snprintf(path, sizeof(path), "%.*s/libc.so.6", (int)n, llp);
			if (!access(path, R_OK) && strlen(path) < len) {
				memcpy(buf, path, strlen(path) + 1);
				return 0;
			}
		}
		llp += n + !!llp[n];
	}
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/libc.so.6", dirs[i]);
		if (!access(path, R_OK) && strlen(path) < len) {
			memcpy(buf, path, strlen(path) + 1);
			return 0;
		}
	}
	return -ENOENT;
}

/* The libc @pid maps (0: the one a command would map), into @buf. Return: 0 or -ENOENT. */
static int find_libc(uint32_t pid, char *buf, size_t len)
{
	char path[64], line[1024];
	FILE *f;
	int ret = -ENOENT;

	if (!pid)
		return find_system_libc(buf, len);
	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	f = fopen(path, "r");
	if (!f)
		return -ENOENT;
	while (fgets(line, sizeof(line), f)) {
		char *name = strchr(line, '/'), *base;

		if (!name)
			continue;
		name[strcspn(name, "\n")] = '\0';
		base = strrchr(name, '/') + 1;
		if (!strncmp(base, "libc.so", 7) || (!strncmp(base, "libc-", 5) && strstr(base, ".so"))) {
			if (strlen(name) < len) {
				memcpy(buf, name, strlen(name) + 1);
				ret = 0;
			}
			break;
		}
	}
	fclose(f);
	return ret;
}

/* Spec strings handed out by pp_kmem__events(): they live until exit. */
static char ev_pool[8192];

/*
 * Add a user probe (exclude_kernel; with a stack when @callchain) whose spec
 * is @fmt's, kept in ev_pool from *@used on. Return: 0, or -E2BIG with
 * out->err set.
 */
__attribute__((format(printf, 4, 5)))
static int add_probe(struct pp_event_reqs *out, size_t *used, int callchain, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(ev_pool + *used, sizeof(ev_pool) - *used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(ev_pool) - *used || out->nr >= PP_MAX_EVENT_REQS) {
		snprintf(out->err, sizeof(out->err), "a probed path is too long");
		return -E2BIG;
	}
	out->req[out->nr].spec = ev_pool + *used;
	out->req[out->nr].callchain = callchain;
	out->req[out->nr].exclude_kernel = 1;
	out->nr++;
	*used += (size_t)n + 1;
	return 0;
}

/*
 * --sample[=BYTES]: the COMMAND loads pp's sampler, which reports one block
 * every BYTES allocated on average through its probes; frees of those
 * blocks come through another.
 */
static int heap_events(const struct pp_opts *o, const char *val, struct pp_event_reqs *out)
{
	uint64_t mean = HEAP_DEFAULT_MEAN;
	size_t used = 0;

	if (*val && (pp_opts__bytes(val, &mean) || !mean)) {
		snprintf(out->err, sizeof(out->err), "bad --sample '%s' (bytes per sample on average, "
			 "as 512K or 1M; 1 for every call)", val);
		return -EINVAL;
	}
	if (!o->workload || o->pids || o->tids) {
		snprintf(out->err, sizeof(out->err), "--sample loads pp's sampler into the COMMAND it "
			 "starts (-- COMMAND); for a running process use --user or --user --bpf");
		return -EINVAL;
	}
	if (pp_analyzer__lib(HEAP_LIB, out->preload, sizeof(out->preload))) {
		snprintf(out->err, sizeof(out->err), "--sample: pp's sampler %s is neither beside the "
			 "program nor in ../lib/pp (PP_LIB_DIR=DIR names its directory)", HEAP_LIB);
		return -ENOENT;
	}
	for (size_t i = 0; i < sizeof(heap_probes) / sizeof(heap_probes[0]); i++) {
		int alloc = heap_probes[i].role == KR_SALLOC;

		if (add_probe(out, &used, alloc, "uprobe:%s@%s//regs/%s", heap_probes[i].name,
			      out->preload, alloc ? "stack/" : ""))
			return -E2BIG;
	}
	snprintf(out->preload_env, sizeof(out->preload_env), HEAP_ENV "=%llu", (unsigned long long)mean);
	out->task_only = 1;
	return 0;
}

/**
 * pp_kmem__events() - the events of kmemleak and kmemprof for @o.
 * @o: options; @out: receives the requests.
 * Return: 0 or -errno with @out->err set.
 */
int pp_kmem__events(const struct pp_opts *o, struct pp_event_reqs *out)
{
	static const char *const kernel[] = {
		"kmem:kmalloc", "kmem:kmem_cache_alloc", "kmem:mm_page_alloc",
		"kmem:kfree", "kmem:kmem_cache_free", "kmem:mm_page_free", "kmem:mm_page_free_batched",
	};
	const char *v, *libc_opt = pp_opts__mod(o, "libc");
	int user = pp_opts__mod(o, "user") != NULL;
	int explicit = pp_opts__mod(o, "alloc") || pp_opts__mod(o, "free");
	int bpf = pp_opts__mod(o, "bpf") != NULL;
	const char *sample = pp_opts__mod(o, "sample");

	out->nr = 0;
	if (sample && (!user || bpf || explicit)) {
		snprintf(out->err, sizeof(out->err), "--sample samples libc's allocators in a COMMAND: "
			 "it goes with --user, without --bpf or --alloc/--free");
		return -EINVAL;
	}
	if (sample)
		return heap_events(o, sample, out);
	if (bpf && !user) {
		snprintf(out->err, sizeof(out->err), "--bpf sums libc's allocators in the kernel: "
			 "it goes with --user");
		return -EINVAL;
	}
	if (explicit) {
		if (!pp_opts__mod(o, "alloc") || !pp_opts__mod(o, "free")) {
			snprintf(out->err, sizeof(out->err), "--alloc and --free go together");
			return -EINVAL;
		}
		if (user) {
			snprintf(out->err, sizeof(out->err), "--user probes libc: no --alloc/--free with it");
			return -EINVAL;
		}
		for (int k = 0; k < 2; k++) {
			for (int i = 0; (v = pp_opts__mod_nth(o, k ? "free" : "alloc", i)); i++) {
				if (out->nr == PP_MAX_EVENT_REQS) {
					snprintf(out->err, sizeof(out->err), "too many --alloc/--free events");
					return -E2BIG;
				}
				out->req[out->nr].spec = v;
				out->req[out->nr].callchain = !k;
				out->nr++;
			}
		}
		return 0;
	}
	if (user) {
		char libc[400];
		size_t used = 0;
		uint32_t pid = o->pids ? (uint32_t)strtoul(o->pids, NULL, 10) : 0;

#if !defined(__x86_64__)
		snprintf(out->err, sizeof(out->err), "--user reads the allocators' registers: x86_64 only");
		return -EOPNOTSUPP;
#endif
		if (libc_opt)
			snprintf(libc, sizeof(libc), "%s", libc_opt);
		else if (find_libc(pid, libc, sizeof(libc))) {
			snprintf(out->err, sizeof(out->err), "--user: no libc %s%s (give --libc PATH)",
				 pid ? "mapped by process " : "found", pid ? o->pids : "");
			return -ENOENT;
		}
		snprintf(out->trap_note, sizeof(out->trap_note), "each allocator call traps into the "
			 "kernel at its entry and return%s; a COMMAND run with --sample pays that once "
			 "per 512 KiB", bpf ? ", where a BPF program runs" : "");
		if (bpf) {
			/* no event: the aggregator (.bpf_agg) probes this libc */
			if (strlen(libc) >= sizeof(out->agg_path)) {
				snprintf(out->err, sizeof(out->err), "--libc path too long");
				return -E2BIG;
			}
			snprintf(out->agg_path, sizeof(out->agg_path), "%s", libc);
			out->task_only = 1;
			return 0;
		}
		for (int f = 0; f < UF_NR; f++) {
			for (int ret = 0; ret < 2; ret++) {
				if (ret && f == UF_FREE)
					continue;
				/*
				 * posix_memalign's pointer is in its caller's memory,
				 * mostly a local variable: the return takes the top of
				 * the stack along. The stack at the return: at the
				 * entry, the caller's frame is not yet on the
				 * frame-pointer chain (libc's allocators push none),
				 * so the function calling malloc would be missing.
				 */
				if (add_probe(out, &used, ret, "%s:%s@%s//%sregs/%s",
					      ret ? "uretprobe" : "uprobe", ufunc_names[f], libc,
					      ret ? "stack/" : "",
					      ret && f == UF_POSIX_MEMALIGN ? "ustack=" KMEM_USTACK "/" : ""))
					return -E2BIG;
			}
		}
		out->task_only = 1;	/* uprobes on the targets, not on every process */
		return 0;
	}
	for (size_t i = 0; i < sizeof(kernel) / sizeof(kernel[0]); i++) {
		out->req[out->nr].spec = kernel[i];
		out->req[out->nr].callchain = i < 3;
		out->nr++;
	}
	return 0;
}

/* "uprobe:malloc@/usr/lib/.../libc.so.6": the allocator, or -1. */
static int ufunc_of(const char *name, int *ret)
{
	const char *c = strchr(name, ':'), *at = strchr(name, '@');

	if (!c || !at || at < c)
		return -1;
	if (!strncmp(name, "uprobe:", 7))
		*ret = 0;
	else if (!strncmp(name, "uretprobe:", 10))
		*ret = 1;
	else
		return -1;
	for (int f = 0; f < UF_NR; f++) {
		if (strlen(ufunc_names[f]) == (size_t)(at - c - 1) && !strncmp(c + 1, ufunc_names[f], (size_t)(at - c - 1)))
			return f;
	}
	return -1;
}

/* "uprobe:pp_heap_alloc@.../libpp-heap.so": the sampler probe's role, or KR_NONE. */
static int heap_role(const char *name)
{
	const char *at = strchr(name, '@');

	if (strncmp(name, "uprobe:", 7) || !at)
		return KR_NONE;
	for (size_t i = 0; i < sizeof(heap_probes) / sizeof(heap_probes[0]); i++) {
		size_t l = strlen(heap_probes[i].name);

		if ((size_t)(at - name - 7) == l && !strncmp(name + 7, heap_probes[i].name, l))
			return heap_probes[i].role;
	}
	return KR_NONE;
}

/* Is @ev named by an --alloc (1) or --free (2) option of @o? @x receives the spec. */
static int explicit_role(const struct pp_opts *o, const struct pp_evsel *ev, struct xspec *x)
{
	const char *v;

	for (int k = 0; k < 2; k++) {
		for (int i = 0; (v = pp_opts__mod_nth(o, k ? "free" : "alloc", i)); i++) {
			xspec_parse(v, x);
			if (!strcmp(x->head, ev->name))
				return k + 1;
		}
	}
	return 0;
}

static int builtin_role(const char *name, int *space)
{
	static const struct {
		const char *name;
		int role, space;
	} tab[] = {
		{ "kmem:kmalloc", KR_ALLOC, KS_SLAB },
		{ "kmem:kmalloc_node", KR_ALLOC, KS_SLAB },
		{ "kmem:kmem_cache_alloc", KR_ALLOC, KS_SLAB },
		{ "kmem:kmem_cache_alloc_node", KR_ALLOC, KS_SLAB },
		{ "kmem:kfree", KR_FREE, KS_SLAB },
		{ "kmem:kmem_cache_free", KR_FREE, KS_SLAB },
		{ "kmem:mm_page_alloc", KR_ALLOC, KS_PAGE },
		{ "kmem:mm_page_free", KR_FREE, KS_PAGE },
		{ "kmem:mm_page_free_batched", KR_FREE, KS_PAGE },
	};

	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		if (!strcmp(tab[i].name, name)) {
			*space = tab[i].space;
			return tab[i].role;
		}
	}
	return KR_NONE;
}

/**
 * pp_kmem__src_match() - does @ev feed kmemleak/kmemprof run with @o?
 * Return: 1 or 0.
 */
int pp_kmem__src_match(const struct pp_opts *o, const struct pp_evsel *ev)
{
	struct xspec x;
	int space, ret;

	if (pp_opts__mod(o, "alloc") || pp_opts__mod(o, "free"))
		return explicit_role(o, ev, &x) != 0;
	return builtin_role(ev->name, &space) != KR_NONE || ufunc_of(ev->name, &ret) >= 0 ||
	       heap_role(ev->name) != KR_NONE;
}

/* --- init -------------------------------------------------------------- */

static struct tep_format_field *need_field(const struct pp_evsel *ev, const char *name,
					   const char *what, const char *mod)
{
	struct tep_format_field *f = pp_evsel__field(ev, name);

	if (!f)
		pp_analyzer__err(mod, -EINVAL, "%s has no field '%s' (for %s=)", ev->name,
			name, what);
	return f;
}

/**
 * pp_kmem__init() - classify the trace's events and allocate the state.
 * @s: session; @mode: enum pp_kmem_mode.
 * Return: 0 or -errno (message printed).
 */
int pp_kmem__init(struct pp_session *s, int mode)
{
	const struct pp_opts *o = pp_session__opts(s);
	const char *mod = mode == PP_KMEM_LEAK ? "kmemleak" : "kmemprof";
	const char *top = pp_opts__mod(o, "top");
	struct kmem *km = calloc(1, sizeof(*km));
	struct pp_evsel *evs;
	size_t nr;
	int explicit = pp_opts__mod(o, "alloc") || pp_opts__mod(o, "free");
	int allocs = 0, frees = 0;

	if (!km)
		return -ENOMEM;
	pp_session__set_priv(s, km);
	km->mode = mode;
	km->track = mode == PP_KMEM_LEAK || pp_opts__mod(o, "pprof");
	km->top = KMEM_DEFAULT_TOP;
	pp_kmap__init(&km->pend, sizeof(struct upend));
	if (top) {
		char *end;
		long n = strtol(top, &end, 10);

		if (end == top || *end || n < 0 || n > 1000000)
			return pp_analyzer__err(mod, -EINVAL, "bad --top '%s' (a count, 0 for all)", top);
		km->top = (int)n;
	}
	if (explicit && (!pp_opts__mod(o, "alloc") || !pp_opts__mod(o, "free")))
		return pp_analyzer__err(mod, -EINVAL, "--alloc and --free go together");
	if (pp_pprof__check_opt(s))
		return -EINVAL;
	if (pp_session__bpf_agg(s) == PP_AGG_MEM) {
		/* the kernel paired them: the items say it all (pp_kmem__bpf_item) */
		if (explicit)
			return pp_analyzer__err(mod, -EINVAL, "the trace holds --bpf aggregates of libc's "
				"allocators: no --alloc/--free");
		km->bpf = 1;
		return 0;
	}
	evs = pp_session__evsels(s, &nr);
	km->evs = calloc(nr ? nr : 1, sizeof(*km->evs));
	if (!km->evs)
		return -ENOMEM;
	km->nr_evs = nr;
	for (size_t i = 0; i < nr; i++) {
		struct kev *k = &km->evs[evs[i].idx < (int)nr ? evs[i].idx : 0];
		const struct pp_evsel *ev = &evs[i];
		struct xspec x;
		int role, ret, f;

		memset(k, 0, sizeof(*k));
		if (explicit) {
			role = explicit_role(o, ev, &x);
			if (!role)
				continue;
			if (!ev->tp)
				return pp_analyzer__err(mod, -EINVAL, "%s has no fields for ptr=/size= (a tracepoint "
					"is needed)", ev->name);
			k->role = role == 1 ? KR_ALLOC : KR_FREE;
			k->space = KS_SLAB;
			k->ptr = need_field(ev, x.ptr[0] ? x.ptr : "ptr", "ptr", mod);
			if (!k->ptr)
				return -EINVAL;
			if (role == 1 && x.size[0] && !(k->size = need_field(ev, x.size, "size", mod)))
				return -EINVAL;
		} else if ((role = builtin_role(ev->name, &k->space)) != KR_NONE) {
			k->role = role;
			if (k->space == KS_PAGE) {
				k->ptr = need_field(ev, "pfn", "ptr", mod);
				k->order = pp_evsel__field(ev, "order");
			} else {
				k->ptr = need_field(ev, "ptr", "ptr", mod);
				if (role == KR_ALLOC)
					k->size = need_field(ev, "bytes_alloc", "size", mod);
			}
			if (!k->ptr || (role == KR_ALLOC && k->space == KS_SLAB && !k->size))
				return -EINVAL;
		} else if ((role = heap_role(ev->name)) != KR_NONE) {
			if (!ev->sample_regs_user)
				return pp_analyzer__err(mod, -EINVAL, "%s was recorded without registers (record "
					"with: pp-record %s --user --sample -- CMD)", ev->name, mod);
			k->role = role;
			k->space = KS_USER;
			k->user_stack_only = 1;
			role = role == KR_SALLOC ? KR_ALLOC : role == KR_SFREE ? KR_FREE : KR_NONE;
		} else if ((f = ufunc_of(ev->name, &ret)) >= 0) {
			if (!ev->sample_regs_user)
				return pp_analyzer__err(mod, -EINVAL, "%s was recorded without registers (record "
					"with: pp-record %s --user ...)", ev->name, mod);
			k->role = ret ? KR_URET : KR_UENTRY;
			k->ufunc = f;
			k->space = KS_USER;
			k->user_stack_only = 1;
			role = f == UF_FREE ? KR_FREE : KR_ALLOC;
		} else {
			continue;
		}
		allocs += role == KR_ALLOC;
		frees += role == KR_FREE;
	}
	if (!allocs || (mode == PP_KMEM_LEAK && !frees))
		return pp_analyzer__err(mod, -ENOENT, "the trace has no %s events (record with: pp-record %s "
			"[--user] -- CMD)", allocs ? "free" : "allocation", mod);
	return 0;
}

/* --- tables ------------------------------------------------------------ */

static inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

static inline size_t obj_slot(const struct kmem *km, uint32_t space, uint64_t ptr)
{
	return (size_t)mix64(ptr ^ ((uint64_t)space << 48) ^ space) & (km->obj_cap - 1);
}

static int obj_grow(struct kmem *km)
{
	size_t ocap = km->obj_cap, ncap = ocap ? ocap * 2 : 4096;
	struct kobj *old = km->objs, *nv = calloc(ncap, sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	km->objs = nv;
	km->obj_cap = ncap;
	for (size_t i = 0; i < ocap; i++) {
		size_t j;

		if (!old[i].ptr)
			continue;
		for (j = obj_slot(km, old[i].space, old[i].ptr); nv[j].ptr; j = (j + 1) & (ncap - 1))
			;
		nv[j] = old[i];
	}
	free(old);
	return 0;
}

/* The slot of (@space, @ptr), or of the empty slot where it would go. */
static size_t obj_find(const struct kmem *km, uint32_t space, uint64_t ptr)
{
	size_t i;

	for (i = obj_slot(km, space, ptr); km->objs[i].ptr; i = (i + 1) & (km->obj_cap - 1)) {
		if (km->objs[i].ptr == ptr && km->objs[i].space == space)
			break;
	}
	return i;
}

/* Remove slot @i: shift the run after it back (no tombstones). */
static void obj_del(struct kmem *km, size_t i)
{
	size_t mask = km->obj_cap - 1, j = i;

	km->objs[i].ptr = 0;
	km->nr_objs--;
	for (;;) {
		size_t home;

		j = (j + 1) & mask;
		if (!km->objs[j].ptr)
			return;
		home = obj_slot(km, km->objs[j].space, km->objs[j].ptr);
		/* may the entry at j move to the hole at i? */
		if ((j > i && (home <= i || home > j)) || (j < i && (home <= i && home > j))) {
			km->objs[i] = km->objs[j];
			km->objs[j].ptr = 0;
			i = j;
		}
	}
}

static void obj_add(struct kmem *km, uint32_t space, uint64_t ptr, uint64_t size, uint64_t objs,
		    uint32_t stack, uint64_t time, uint32_t tid)
{
	size_t i;

	if ((km->nr_objs + 1) * 4 > km->obj_cap * 3 && obj_grow(km)) {
		km->nomem = 1;
		return;
	}
	i = obj_find(km, space, ptr);
	if (km->objs[i].ptr)
		km->reused++;	/* its free was not seen (lost, or a path no event covers) */
	else
		km->nr_objs++;
	km->objs[i] = (struct kobj){ .ptr = ptr, .size = size, .objs = objs, .time = time, .space = space,
				     .stack = stack, .tid = tid, .lossgen = km->lossgen };
}

/* Return: 1 when the object was known (and is gone), 0 when not. */
static int obj_free(struct kmem *km, uint32_t space, uint64_t ptr)
{
	size_t i;

	if (!km->obj_cap)
		goto unknown;
	i = obj_find(km, space, ptr);
	if (!km->objs[i].ptr)
		goto unknown;
	km->frees += km->objs[i].objs;	/* a sampled block's free stands for as many */
	obj_del(km, i);
	return 1;
unknown:
	km->frees++;
	km->frees_unknown++;
	return 0;
}

/*
 * The stack of @n frames @ips (@kern: which are kernel frames), of process
 * @pid when it has user frames (else 0), interned. Return: its index, or
 * UINT32_MAX without memory.
 */
static uint32_t stack_intern_ips(struct kmem *km, uint32_t pid, const uint64_t *ips,
				 const uint8_t *kern, size_t n, uint32_t tid)
{
	uint64_t h = 0x9e3779b97f4a7c15ull;
	size_t i;

	h = mix64(h ^ pid);
	for (i = 0; i < n; i++)
		h = mix64(h ^ ips[i] ^ ((uint64_t)kern[i] << 63));
	if (km->stk_hash_cap) {
		for (i = h & (km->stk_hash_cap - 1); km->stk_hash[i]; i = (i + 1) & (km->stk_hash_cap - 1)) {
			const struct kstk *st = &km->stks[km->stk_hash[i] - 1];

			if (st->hash == h && st->pid == pid && st->nr == n &&
			    !memcmp(km->ips + st->off, ips, n * 8) && !memcmp(km->kern + st->off, kern, n))
				return km->stk_hash[i] - 1;
		}
	}
	/* new stack */
	if ((km->nr_stks + 1) * 2 > km->stk_hash_cap) {
		size_t ncap = km->stk_hash_cap ? km->stk_hash_cap * 2 : 1024;
		uint32_t *nh = calloc(ncap, sizeof(*nh));

		if (!nh)
			goto nomem;
		for (size_t k = 0; k < km->nr_stks; k++) {
			size_t j;

			for (j = km->stks[k].hash & (ncap - 1); nh[j]; j = (j + 1) & (ncap - 1))
				;
			nh[j] = (uint32_t)k + 1;
		}
		free(km->stk_hash);
		km->stk_hash = nh;
		km->stk_hash_cap = ncap;
	}
	if (pp_grow_from((void **)&km->stks, &km->stk_cap, km->nr_stks + 1, sizeof(*km->stks), 256))
		goto nomem;
	if (km->nr_ips + n > km->ips_cap) {
		size_t icap = km->ips_cap, kcap = km->ips_cap;	/* one capacity for both */

		if (pp_grow_from((void **)&km->ips, &icap, km->nr_ips + n, 8, 4096) ||
		    pp_grow_from((void **)&km->kern, &kcap, km->nr_ips + n, 1, 4096))
			goto nomem;
		km->ips_cap = icap;
	}
	memcpy(km->ips + km->nr_ips, ips, n * 8);
	memcpy(km->kern + km->nr_ips, kern, n);
	km->stks[km->nr_stks] = (struct kstk){ .hash = h, .pid = pid, .nr = (uint32_t)n,
					       .off = km->nr_ips, .tid = tid,
					       .live_oldest = UINT64_MAX };
	km->nr_ips += n;
	for (i = h & (km->stk_hash_cap - 1); km->stk_hash[i]; i = (i + 1) & (km->stk_hash_cap - 1))
		;
	km->stk_hash[i] = (uint32_t)km->nr_stks + 1;
	return (uint32_t)km->nr_stks++;
nomem:
	km->nomem = 1;
	return UINT32_MAX;
}

static uint32_t stack_intern(struct pp_session *s, struct kmem *km, const struct pp_event *e,
			     int user_only)
{
	uint64_t ips[KMEM_MAX_FRAMES];
	uint8_t kern[KMEM_MAX_FRAMES];
	size_t n = pp_session__stack_ips(s, e, ips, kern, KMEM_MAX_FRAMES), m = 0;
	uint32_t pid = 0;

	for (size_t i = 0; i < n; i++) {
		if (user_only && kern[i])
			continue;
		ips[m] = ips[i];
		kern[m++] = kern[i];
		if (!kern[i])
			pid = e->pid;
	}
	return stack_intern_ips(km, pid, ips, kern, m, e->tid);
}

/* --- events in ----------------------------------------------------------- */

/* @calls allocations of @size bytes in all from @stack. */
static void count_allocs(struct kmem *km, uint32_t stack, uint64_t calls, uint64_t size)
{
	km->allocs += calls;
	km->alloc_bytes += size;
	km->int_calls += calls;
	km->int_bytes += size;
	if (stack != UINT32_MAX) {
		struct kstk *st = &km->stks[stack];

		st->calls += calls;
		st->bytes += size;
		st->tot_calls += calls;
		st->tot_bytes += size;
	}
}

static void count_alloc(struct kmem *km, uint32_t stack, uint64_t size)
{
	count_allocs(km, stack, 1, size);
}

/* A block at @ptr standing for @objs allocations of @size bytes in all. */
static void new_objects(struct kmem *km, uint32_t space, uint64_t ptr, uint64_t size, uint64_t objs,
			uint32_t stack, const struct pp_event *e)
{
	count_allocs(km, stack, objs, size);
	if (km->track)
		obj_add(km, space, ptr, size, objs, stack, e->time, e->tid);
}

static void new_object(struct kmem *km, uint32_t space, uint64_t ptr, uint64_t size,
		       uint32_t stack, const struct pp_event *e)
{
	new_objects(km, space, ptr, size, 1, stack, e);
}

/* Register @bit of @e's sample (the regs attribute), 0 when absent. */
static uint64_t reg(const struct pp_event *e, int bit)
{
	uint64_t below;

	if (!e->regs || !(e->regs_mask & (1ull << bit)))
		return 0;
	below = e->regs_mask & ((1ull << bit) - 1);
	return e->regs[__builtin_popcountll(below)];
}

static void user_entry(struct pp_session *s, struct kmem *km, const struct kev *k,
		       const struct pp_event *e)
{
	struct upend *p;
	uint64_t di = reg(e, REG_DI), si = reg(e, REG_SI), dx = reg(e, REG_DX);
	int created;

	p = pp_kmap__get(&km->pend, e->tid, &created);
	if (!p) {
		km->nomem = 1;
		return;
	}
	if (k->ufunc == UF_FREE) {
		/* free() inside realloc(p, 0) and the like: the outer call says it */
		if (!p->active && di)
			obj_free(km, KS_USER + e->pid, di);
		return;
	}
	if (p->active) {
		p->depth++;
		return;
	}
	memset(p, 0, sizeof(*p));
	p->active = 1;
	p->ufunc = k->ufunc;
	p->time = e->time;
	switch (k->ufunc) {
	case UF_MALLOC:
	case UF_VALLOC:
		p->size = di;
		break;
	case UF_PVALLOC:
		p->size = (di + 4095) & ~4095ull;
		break;
	case UF_CALLOC:
		p->size = di * si;
		break;
	case UF_REALLOC:
		p->old = di;
		p->size = si;
		break;
	case UF_REALLOCARRAY:
		p->old = di;
		p->size = si * dx;
		break;
	case UF_POSIX_MEMALIGN:
		p->memptr = di;
		p->size = dx;
		break;
	default:	/* aligned_alloc, memalign (alignment, size) */
		p->size = si;
		break;
	}
}

static void user_return(struct pp_session *s, struct kmem *km, const struct pp_event *e)
{
	struct upend *p = pp_kmap__find(&km->pend, e->tid);
	uint64_t ax = reg(e, REG_AX);
	uint32_t space = KS_USER + e->pid;

	if (!p || !p->active) {
		km->orphan_returns++;	/* its entry is before the recording or lost */
		return;
	}
	if (p->depth) {
		p->depth--;
		return;
	}
	/*
	 * The call is the entry's: two names of one address (memalign and
	 * aligned_alloc) both fire, the first entry and the last return count.
	 */
	p->active = 0;
	p->stack = stack_intern(s, km, e, 1);
	if (p->ufunc == UF_REALLOC || p->ufunc == UF_REALLOCARRAY) {
		/* realloc(p, 0) frees; a failed realloc leaves the old block */
		if (p->old && (ax || !p->size)) {
			if (km->track)
				obj_free(km, space, p->old);
			if (ax)
				km->realloc_moves++;
		}
		if (!ax && p->size)
			km->failed++;
		if (ax)
			new_object(km, space, ax, p->size, p->stack, e);
		return;
	}
	if (p->ufunc == UF_POSIX_MEMALIGN) {
		/*
		 * It returns an error code and writes the pointer to *memptr:
		 * read there from the stack the return recorded, when memptr
		 * is in it; elsewhere (a heap field) the block is counted, not
		 * tracked.
		 */
		uint64_t sp = reg(e, REG_SP), ptr;

		if (ax) {
			km->failed++;
			return;
		}
		if (e->user_stack && sp && p->memptr >= sp && p->memptr - sp + 8 <= e->user_stack_size) {
			memcpy(&ptr, e->user_stack + (p->memptr - sp), 8);
			if (ptr) {
				new_object(km, space, ptr, p->size, p->stack, e);
				return;
			}
		}
		count_alloc(km, p->stack, p->size);
		km->posix_unknown++;
		return;
	}
	if (!ax) {
		km->failed++;
		return;
	}
	new_object(km, space, ax, p->size, p->stack, e);
}

/*
 * The stack of a sampled block without the sampler's own frames: those
 * innermost that lie in the mapping of the probe (libpp-heap.so).
 */
static uint32_t heap_stack(struct pp_session *s, struct kmem *km, const struct pp_event *e)
{
	uint64_t ips[KMEM_MAX_FRAMES];
	uint8_t kern[KMEM_MAX_FRAMES];
	size_t n = pp_session__stack_ips(s, e, ips, kern, KMEM_MAX_FRAMES), m = 0;
	struct pp_map_info lib;
	int known = pp_session__map(s, e->pid, e->ip, 0, &lib);

	for (size_t i = 0; i < n; i++) {
		if (!kern[i]) {
			ips[m] = ips[i];
			kern[m++] = 0;
		}
	}
	while (known && m && ips[m - 1] >= lib.start && ips[m - 1] < lib.end)
		m--;
	return stack_intern_ips(km, m ? e->pid : 0, ips, kern, m, e->tid);
}

/*
 * pp_heap_alloc(ptr, size, mean): a block of size bytes that held one of
 * the points laid every mean bytes on average (exponential gaps), which
 * happens with the probability p = 1 - exp(-size/mean): it stands for
 * size/p bytes and 1/p allocations. mean 1: every allocation, as it is.
 */
static void heap_alloc(struct pp_session *s, struct kmem *km, const struct pp_event *e)
{
	uint64_t ptr = reg(e, REG_DI), size = reg(e, REG_SI), mean = reg(e, REG_DX);
	uint64_t bytes = size, objs = 1;

	km->samples++;
	km->mean = mean;
	if (mean > 1 && size) {
		double p = -expm1(-(double)size / (double)mean), n = 1.0 / p;
		/* a whole count, rounded up or down at random (the block's address
		 * and time as the draw): the sums stay unbiased */
		double u = (double)(mix64(ptr ^ e->time) >> 11) * (1.0 / 9007199254740992.0);

		bytes = (uint64_t)((double)size / p + 0.5);
		objs = (uint64_t)n + (u < n - floor(n));
	}
	if (ptr)
		new_objects(km, KS_USER + e->pid, ptr, bytes, objs, heap_stack(s, km, e), e);
}

/** pp_kmem__sample() - one event: an allocation, a free, or half of a libc call. */
void pp_kmem__sample(struct pp_session *s, const struct pp_event *e)
{
	struct kmem *km = pp_session__priv(s);
	const struct kev *k;
	uint64_t ptr = 0, size = 0;

	if ((size_t)e->evsel->idx >= km->nr_evs)
		return;
	k = &km->evs[e->evsel->idx];
	switch (k->role) {
	case KR_ALLOC:
		if (!pp_session__is_target(s, e->tid))
			return;
		if (pp_event__num(e, k->ptr, &ptr) || !ptr || (k->space == KS_PAGE && ptr == UINT64_MAX))
			return;
		if (k->space == KS_PAGE) {
			uint64_t order = 0;

			if (k->order)
				pp_event__num(e, k->order, &order);
			size = order < 32 ? 4096ull << order : 0;
		} else if (k->size) {
			pp_event__num(e, k->size, &size);
		}
		new_object(km, k->space, ptr, size, stack_intern(s, km, e, 0), e);
		return;
	case KR_FREE:
		/* frees count from any task: an object may die in another context */
		if (km->track && !pp_event__num(e, k->ptr, &ptr) && ptr &&
		    !(k->space == KS_PAGE && ptr == UINT64_MAX))
			obj_free(km, k->space, ptr);
		return;
	case KR_UENTRY:
		if (pp_session__is_target(s, e->tid))
			user_entry(s, km, k, e);
		return;
	case KR_URET:
		if (pp_session__is_target(s, e->tid))
			user_return(s, km, e);
		return;
	case KR_SALLOC:
		if (pp_session__is_target(s, e->tid))
			heap_alloc(s, km, e);
		return;
	case KR_SFREE:
		if (km->track && reg(e, REG_DI))
			obj_free(km, KS_USER + e->pid, reg(e, REG_DI));
		return;
	case KR_SSTATS:
		km->sampler_exits++;
		km->sampler_samples += reg(e, REG_DI);
		km->sampler_untracked += reg(e, REG_SI);
		return;
	}
}

/**
 * pp_kmem__lost() - records were lost: what is allocated now may have had
 * its free in the window (uncertain), and a libc call may have lost a half.
 */
void pp_kmem__lost(struct pp_session *s, const struct pp_lost *l)
{
	struct kmem *km = pp_session__priv(s);

	km->lossgen++;
	km->lost_windows++;
	km->lost_records += l->count;
	for (size_t i = 0; i < km->pend.cap; i++) {
		struct upend *p = pp_kmap__nth(&km->pend, i, NULL);

		if (p)
			p->active = 0;
	}
}

/** pp_kmem__task() - a thread that ended has no call pending any more. */
void pp_kmem__task(struct pp_session *s, const struct pp_task_event *t)
{
	struct kmem *km = pp_session__priv(s);
	struct upend *p = t->kind == PP_TASK_EXIT ? pp_kmap__find(&km->pend, t->tid) : NULL;

	if (p)
		p->active = 0;
}

/*
 * pp_kmem__bpf_item() - one aggregate of --user --bpf: what a stack
 * allocated in a window (kmemprof's calls and bytes), a process's frees,
 * or the blocks of a stack still allocated at the window's end; those of a
 * window replace the last one's (kmemleak's outstanding objects).
 */
void pp_kmem__bpf_item(struct pp_session *s, const struct pp_bpf_item *it)
{
	struct kmem *km = pp_session__priv(s);
	uint8_t kern[KMEM_MAX_FRAMES] = { 0 };
	uint64_t ips[KMEM_MAX_FRAMES];
	uint32_t stack, n;
	struct kstk *st;

	if (!km || !km->bpf || it->agg != PP_AGG_MEM)
		return;
	if (it->kind == PP_BPF_ITEM_WINDOW) {
		for (size_t i = 0; i < km->nr_stks; i++) {
			km->stks[i].live_bytes = km->stks[i].live_objs = 0;
			km->stks[i].live_oldest = UINT64_MAX;
		}
		km->bpf_windows++;
		km->bpf_dropped += it->dropped;
		km->bpf_stacks_lost += it->stacks_lost;
		if (it->end_ns > km->bpf_now)
			km->bpf_now = it->end_ns;
		return;
	}
	if (it->state == PP_BPF_MEM_FREES) {
		km->frees += it->count + it->frees_unknown;
		km->frees_unknown += it->frees_unknown;
		km->failed += it->failed;
		km->posix_unknown += it->untracked;
		return;
	}
	/* user frames only, as the uprobe mode keeps them, outermost first as events' */
	n = it->nr_user < KMEM_MAX_FRAMES ? it->nr_user : KMEM_MAX_FRAMES;
	for (uint32_t i = 0; i < n; i++)
		ips[i] = it->user_ips[n - 1 - i];
	stack = stack_intern_ips(km, n ? it->pid : 0, ips, kern, n, it->tid);
	if (stack == UINT32_MAX)
		return;
	st = &km->stks[stack];
	if (!st->comm[0] && it->comm[0])
		memcpy(st->comm, it->comm, sizeof(st->comm));
	if (it->state == PP_BPF_MEM_ALLOCS) {
		count_allocs(km, stack, it->count, it->bytes);
	} else if (it->state == PP_BPF_MEM_LIVE) {
		st->live_bytes += it->bytes;
		st->live_objs += it->count;
		if (it->oldest_ns < st->live_oldest)
			st->live_oldest = it->oldest_ns;
	}
}

/* The comm of stack @st's allocations. */
static const char *stack_comm(struct pp_session *s, const struct kstk *st)
{
	return st->comm[0] ? st->comm : pp_session__comm(s, st->tid);
}

/* --- reports ------------------------------------------------------------- */

/* A row of the report: the stacks whose frames have the same names. */
struct krow {
	char *key;			/* the frame names, innermost first, '\n' separated */
	uint32_t stack;			/* the first stack (to print) */
	uint64_t bytes, count, oldest;
	char comms[KMEM_MAX_COMMS][16];
	int nr_comms;
};

static void add_comm(char (*comms)[16], int *nr, const char *comm)
{
	for (int i = 0; i < *nr; i++) {
		if (!strncmp(comms[i], comm, 15))
			return;
	}
	if (*nr < KMEM_MAX_COMMS)
		snprintf(comms[(*nr)++], 16, "%s", comm);
}

static char *stack_key(struct pp_session *s, const struct kmem *km, const struct kstk *st)
{
	size_t cap = (size_t)st->nr * 130 + 2, n = 0;
	char *key = malloc(cap);

	if (!key)
		return NULL;
	key[0] = '\0';
	/* innermost first */
	for (uint32_t i = st->nr; i-- > 0;) {
		char name[160];
		size_t l = pp_session__frame_name(s, st->pid, km->ips[st->off + i], km->kern[st->off + i], name);

		if (l > 128)
			l = 128;
		memcpy(key + n, name, l);
		n += l;
		key[n++] = '\n';
	}
	key[n] = '\0';
	return key;
}

static int cmp_key(const void *a, const void *b)
{
	return strcmp(((const struct krow *)a)->key, ((const struct krow *)b)->key);
}

static int cmp_bytes(const void *a, const void *b)
{
	const struct krow *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->key, y->key);
}

/*
 * Add the objects still allocated to their stacks' out_bytes, out_objs,
 * oldest and comms; those allocated before a loss of records (their free
 * may have been lost) go to @unc_objs and @unc_bytes instead.
 */
static void sum_outstanding(struct pp_session *s, struct kmem *km, uint64_t *unc_objs,
			    uint64_t *unc_bytes)
{
	for (size_t i = 0; i < km->obj_cap; i++) {
		const struct kobj *ob = &km->objs[i];
		struct kstk *st;

		if (!ob->ptr)
			continue;
		if (ob->lossgen < km->lossgen) {
			*unc_objs += ob->objs;
			*unc_bytes += ob->size;
			continue;
		}
		if (ob->stack == UINT32_MAX)
			continue;
		st = &km->stks[ob->stack];
		st->out_bytes += ob->size;
		st->out_objs += ob->objs;
		if (ob->time < st->oldest)
			st->oldest = ob->time;
		add_comm(st->comms, &st->nr_comms, pp_session__comm(s, ob->tid));
	}
}

/*
 * The rows for the report: kmemleak the outstanding objects (certain ones),
 * kmemprof the allocations of the interval (@total: of the whole run).
 * Return: the rows (*@nr of them, merged, sorted by bytes), NULL if none.
 */
static struct krow *make_rows(struct pp_session *s, struct kmem *km, int total, size_t *nr,
			      uint64_t *unc_objs, uint64_t *unc_bytes)
{
	struct krow *rows;
	size_t n = 0;

	*nr = 0;
	*unc_objs = *unc_bytes = 0;
	for (size_t i = 0; i < km->nr_stks; i++) {
		struct kstk *st = &km->stks[i];

		st->out_bytes = st->out_objs = 0;
		st->oldest = UINT64_MAX;
		st->nr_comms = 0;
	}
	if (km->mode == PP_KMEM_LEAK && km->bpf) {
		for (size_t i = 0; i < km->nr_stks; i++) {
			struct kstk *st = &km->stks[i];

			st->out_bytes = st->live_bytes;
			st->out_objs = st->live_objs;
			st->oldest = st->live_oldest;
			if (st->out_objs)
				add_comm(st->comms, &st->nr_comms, stack_comm(s, st));
		}
	} else if (km->mode == PP_KMEM_LEAK) {
		sum_outstanding(s, km, unc_objs, unc_bytes);
	} else {
		for (size_t i = 0; i < km->nr_stks; i++) {
			struct kstk *st = &km->stks[i];

			st->out_bytes = total ? st->tot_bytes : st->bytes;
			st->out_objs = total ? st->tot_calls : st->calls;
			if (st->out_objs)
				add_comm(st->comms, &st->nr_comms, stack_comm(s, st));
		}
	}
	rows = calloc(km->nr_stks ? km->nr_stks : 1, sizeof(*rows));
	if (!rows)
		return NULL;
	for (size_t i = 0; i < km->nr_stks; i++) {
		const struct kstk *st = &km->stks[i];

		if (!st->out_objs)
			continue;
		rows[n].key = stack_key(s, km, st);
		if (!rows[n].key)
			break;
		rows[n].stack = (uint32_t)i;
		rows[n].bytes = st->out_bytes;
		rows[n].count = st->out_objs;
		rows[n].oldest = st->oldest;
		memcpy(rows[n].comms, st->comms, sizeof(rows[n].comms));
		rows[n].nr_comms = st->nr_comms;
		n++;
	}
	/* merge the stacks that read the same */
	qsort(rows, n, sizeof(*rows), cmp_key);
	{
		size_t w = 0;

		for (size_t i = 0; i < n; i++) {
			if (w && !strcmp(rows[w - 1].key, rows[i].key)) {
				struct krow *r = &rows[w - 1];

				r->bytes += rows[i].bytes;
				r->count += rows[i].count;
				if (rows[i].oldest < r->oldest)
					r->oldest = rows[i].oldest;
				for (int c = 0; c < rows[i].nr_comms; c++)
					add_comm(r->comms, &r->nr_comms, rows[i].comms[c]);
				free(rows[i].key);
				continue;
			}
			rows[w++] = rows[i];
		}
		n = w;
	}
	qsort(rows, n, sizeof(*rows), cmp_bytes);
	*nr = n;
	return rows;
}

static void free_rows(struct krow *rows, size_t n)
{
	for (size_t i = 0; rows && i < n; i++)
		free(rows[i].key);
	free(rows);
}

static const char *human_bytes(char *buf, size_t len, uint64_t b)
{
	if (b >= 10ull << 30)
		snprintf(buf, len, "%.1f GiB", (double)b / (double)(1ull << 30));
	else if (b >= 10ull << 20)
		snprintf(buf, len, "%.1f MiB", (double)b / (double)(1ull << 20));
	else if (b >= 10ull << 10)
		snprintf(buf, len, "%.1f KiB", (double)b / 1024.0);
	else
		snprintf(buf, len, "%llu B", (unsigned long long)b);
	return buf;
}

static void print_rows(struct pp_session *s, struct kmem *km, struct krow *rows, size_t n,
		       uint64_t now, uint64_t unc_objs, uint64_t unc_bytes, const char *when)
{
	const struct pp_opts *o = pp_session__opts(s);
	struct pp_out *out = pp_session__out(s);
	int leak = km->mode == PP_KMEM_LEAK;
	uint64_t bytes = 0, count = 0;
	size_t shown = km->top ? (size_t)km->top : n;
	char b1[32], t1[32];

	for (size_t i = 0; i < n; i++) {
		bytes += rows[i].bytes;
		count += rows[i].count;
	}
	if (o->json) {
		pp_json__begin(s, leak ? "kmemleak_summary" : "kmemprof_summary", now);
		pp_json__str(s, "when", when);
		pp_json__u64(s, "bytes", bytes);
		pp_json__u64(s, leak ? "objects" : "calls", count);
		pp_json__u64(s, "stacks", n);
		pp_json__u64(s, "allocations", km->allocs);
		pp_json__u64(s, "alloc_bytes", km->alloc_bytes);
		if (leak) {
			pp_json__u64(s, "frees", km->frees);
			pp_json__u64(s, "frees_before_recording", km->frees_unknown);
			pp_json__u64(s, "uncertain_objects", unc_objs);
			pp_json__u64(s, "uncertain_bytes", unc_bytes);
			pp_json__u64(s, "untracked_posix_memalign", km->posix_unknown);
		}
		pp_json__u64(s, "failed", km->failed);
		pp_json__u64(s, "lost_windows", km->lost_windows);
		if (km->samples) {
			pp_json__u64(s, "sample_bytes", km->mean);
			pp_json__u64(s, "samples", km->samples);
		}
		pp_json__end(s);
		for (size_t i = 0; i < n && i < shown; i++) {
			const struct krow *r = &rows[i];
			const struct kstk *st = &km->stks[r->stack];
			struct pp_out *jo = pp_session__out(s);

			pp_json__begin(s, leak ? "kmemleak_stack" : "kmemprof_stack", now);
			pp_json__u64(s, "bytes", r->bytes);
			pp_json__u64(s, leak ? "objects" : "calls", r->count);
			if (leak)
				pp_json__u64(s, "oldest_age_ns", now > r->oldest ? now - r->oldest : 0);
			pp_out__puts(jo, ",\"comms\":[");
			for (int c = 0; c < r->nr_comms; c++) {
				if (c)
					pp_out__putc(jo, ',');
				pp_out__json_str(jo, r->comms[c]);
			}
			pp_out__puts(jo, "],\"stack\":[");
			for (uint32_t f = st->nr; f-- > 0;)
				pp_json__frame(s, st->pid, km->ips[st->off + f], km->kern[st->off + f],
					       f == st->nr - 1);
			pp_out__putc(jo, ']');
			pp_json__end(s);
		}
		return;
	}
	if (leak) {
		pp_out__printf(out, "%s: %s in %llu objects outstanding, %zu stacks (%llu allocations, "
			       "%llu frees, %llu of them of memory allocated before the recording)\n",
			       when, human_bytes(b1, sizeof(b1), bytes), (unsigned long long)count, n,
			       (unsigned long long)km->allocs, (unsigned long long)km->frees,
			       (unsigned long long)km->frees_unknown);
		if (km->lost_windows)
			pp_out__printf(out, "%llu lost windows (%llu records): %llu objects (%s) allocated "
				       "before a loss are uncertain, not counted as leaks\n",
				       (unsigned long long)km->lost_windows,
				       (unsigned long long)km->lost_records,
				       (unsigned long long)unc_objs, human_bytes(b1, sizeof(b1), unc_bytes));
		if (km->posix_unknown)
			pp_out__printf(out, "%llu posix_memalign blocks not tracked (the pointer is "
				       "written to memory, not returned)\n",
				       (unsigned long long)km->posix_unknown);
	} else {
		pp_out__printf(out, "%s: %s in %llu allocations, %zu stacks\n", when,
			       human_bytes(b1, sizeof(b1), bytes), (unsigned long long)count, n);
	}
	if (km->samples && km->mean > 1)
		pp_out__printf(out, "sampled: one allocation every %s on average, %llu samples: bytes and "
			       "counts are estimates\n", human_bytes(b1, sizeof(b1), km->mean),
			       (unsigned long long)km->samples);
	for (size_t i = 0; i < n && i < shown; i++) {
		const struct krow *r = &rows[i];
		const struct kstk *st = &km->stks[r->stack];

		pp_out__printf(out, "\n%s in %llu %s", human_bytes(b1, sizeof(b1), r->bytes),
			       (unsigned long long)r->count, leak ? "objects" : "allocations");
		if (leak)
			pp_out__printf(out, ", oldest %s",
				       pp_ns_format(t1, sizeof(t1), now > r->oldest ? now - r->oldest : 0));
		pp_out__printf(out, ", comm");
		for (int c = 0; c < r->nr_comms; c++) {
			pp_out__putc(out, c ? ',' : ' ');
			pp_out__text(out, r->comms[c]);
		}
		pp_out__printf(out, " (%.1f%%)\n", bytes ? 100.0 * (double)r->bytes / (double)bytes : 0.0);
		for (uint32_t f = st->nr; f-- > 0;) {
			char name[160];

			pp_session__frame_name(s, st->pid, km->ips[st->off + f], km->kern[st->off + f], name);
			pp_out__printf(out, "    ");
			pp_out__text(out, name);
			pp_out__putc(out, '\n');
		}
		if (!st->nr)
			pp_out__printf(out, "    [no stack]\n");
	}
	if (n > shown)
		pp_out__printf(out, "\n... %zu more stacks (--top 0 shows all)\n", n - shown);
}

static void show(struct pp_session *s, struct kmem *km, uint64_t now, int total, const char *when)
{
	uint64_t unc_objs, unc_bytes;
	size_t n;
	struct krow *rows = make_rows(s, km, total, &n, &unc_objs, &unc_bytes);

	print_rows(s, km, rows, n, now, unc_objs, unc_bytes, when);
	free_rows(rows, n);
}

/* Flame graph frames of a stack, root first, cached as ids. */
static int32_t *stack_fids(struct pp_session *s, struct kmem *km, struct pp_flame *fg, struct kstk *st)
{
	if (st->fids)
		return st->fids;
	st->fids = malloc((st->nr ? st->nr : 1) * sizeof(*st->fids));
	if (!st->fids)
		return NULL;
	for (uint32_t f = 0; f < st->nr; f++) {
		char name[160];

		pp_session__frame_name(s, st->pid, km->ips[st->off + f], km->kern[st->off + f], name);
		st->fids[f] = (int32_t)pp_flame__intern(fg, name);
	}
	return st->fids;
}

static void flame(struct pp_session *s, struct kmem *km, const char *name)
{
	struct pp_flame *fg = pp_flame__new();
	uint32_t ids[KMEM_MAX_FRAMES + 1];
	int leak = km->mode == PP_KMEM_LEAK;

	if (!fg) {
		pp_session__fail(s, -ENOMEM);
		return;
	}
	if (leak && !km->bpf) {
		for (size_t i = 0; i < km->obj_cap; i++) {
			const struct kobj *ob = &km->objs[i];
			struct kstk *st;
			int32_t *fids;

			if (!ob->ptr || ob->stack == UINT32_MAX || ob->lossgen < km->lossgen)
				continue;
			st = &km->stks[ob->stack];
			fids = stack_fids(s, km, fg, st);
			if (!fids)
				break;
			ids[0] = (uint32_t)pp_flame__intern(fg, pp_session__comm(s, ob->tid));
			for (uint32_t f = 0; f < st->nr; f++)
				ids[1 + f] = (uint32_t)fids[f];
			pp_flame__add_ids(fg, ids, st->nr + 1, ob->size);
		}
	} else {
		/* per stack: what is still allocated (kmemleak from BPF aggregates), or all of it */
		for (size_t i = 0; i < km->nr_stks; i++) {
			struct kstk *st = &km->stks[i];
			uint64_t bytes = leak ? st->live_bytes : st->tot_bytes;
			int32_t *fids;

			if (!bytes)
				continue;
			fids = stack_fids(s, km, fg, st);
			if (!fids)
				break;
			ids[0] = (uint32_t)pp_flame__intern(fg, stack_comm(s, st));
			for (uint32_t f = 0; f < st->nr; f++)
				ids[1 + f] = (uint32_t)fids[f];
			pp_flame__add_ids(fg, ids, st->nr + 1, bytes);
		}
	}
	{
		struct pp_flame_opts fo = {
			.title = leak ? "pp kmemleak: outstanding memory" : "pp kmemprof: allocated memory",
			.subtitle = leak ? "bytes still allocated per allocation stack" :
					   "bytes allocated per allocation stack",
			.count_name = "bytes",
		};

		pp_flame__report(s, fg, name, &fo);
	}
	pp_flame__free(fg);
}

/*
 * --pprof: per stack the four values of a heap profile, as Go's: what was
 * allocated over the run (alloc_objects, alloc_space) and what is still
 * allocated at the end (inuse_objects, inuse_space), --sample's estimates
 * when sampled.
 */
static void write_pprof(struct pp_session *s, struct kmem *km, uint64_t now, const char *path)
{
	struct pp_pprof_desc d = {
		.types = { { "alloc_objects", "count" }, { "alloc_space", "bytes" },
			   { "inuse_objects", "count" }, { "inuse_space", "bytes" } },
		.nr_types = 4,
		.period_type = { "space", "bytes" },
		.period = km->mean > 1 ? (int64_t)km->mean : 0,
		.default_type = km->mode == PP_KMEM_LEAK ? "inuse_space" : "alloc_space",
		.comment = km->mode == PP_KMEM_LEAK ? "pp kmemleak" : "pp kmemprof",
	};
	struct pp_pprof *pp = pp_pprof__new(&d);
	uint64_t unc_objs = 0, unc_bytes = 0;

	if (!pp) {
		pp_session__fail(s, -ENOMEM);
		return;
	}
	for (size_t i = 0; i < km->nr_stks; i++) {
		struct kstk *st = &km->stks[i];

		st->out_bytes = km->bpf ? st->live_bytes : 0;
		st->out_objs = km->bpf ? st->live_objs : 0;
		st->nr_comms = 0;
	}
	if (!km->bpf)
		sum_outstanding(s, km, &unc_objs, &unc_bytes);
	for (size_t i = 0; i < km->nr_stks; i++) {
		const struct kstk *st = &km->stks[i];
		int64_t v[4] = { (int64_t)st->tot_calls, (int64_t)st->tot_bytes, (int64_t)st->out_objs,
				 (int64_t)st->out_bytes };

		if (!st->tot_calls && !st->out_objs)
			continue;
		if (pp_pprof__add(pp, s, st->pid, st->tid, stack_comm(s, st), km->ips + st->off,
				  km->kern + st->off, st->nr, NULL, 0, v)) {
			pp_session__fail(s, -ENOMEM);
			break;
		}
	}
	pp_pprof__report(pp, s, pp_session__stats(s)->first_ts, now, path);
	pp_pprof__free(pp);
}

/** pp_kmem__interval() - -i: kmemleak what is outstanding now, kmemprof the interval's allocations. */
void pp_kmem__interval(struct pp_session *s, uint64_t now)
{
	struct kmem *km = pp_session__priv(s);
	char tb[32];

	pp_session__format_time(s, now, tb);
	show(s, km, now, 0, tb);
	if (!pp_session__opts(s)->json)
		pp_out__putc(pp_session__out(s), '\n');
	for (size_t i = 0; i < km->nr_stks; i++)
		km->stks[i].calls = km->stks[i].bytes = 0;
	km->int_calls = km->int_bytes = 0;
}

/** pp_kmem__report() - the final report and the flame graph. */
void pp_kmem__report(struct pp_session *s)
{
	struct kmem *km = pp_session__priv(s);
	const struct pp_opts *o = pp_session__opts(s);
	uint64_t now = pp_session__stats(s)->last_ts;

	if (km->bpf_now > now)
		now = km->bpf_now;	/* the aggregates' last window */
	if (km->nomem)
		pp_session__warn(s, "%s: out of memory: some allocations are not counted",
				 km->mode == PP_KMEM_LEAK ? "kmemleak" : "kmemprof");
	if (km->bpf_dropped)
		pp_session__warn(s, "%llu allocations or frees not counted: the kernel's maps were full",
				 (unsigned long long)km->bpf_dropped);
	if (km->bpf_stacks_lost)
		pp_session__warn(s, "%llu allocations counted without their stack: the stack map was full",
				 (unsigned long long)km->bpf_stacks_lost);
	if (km->mode == PP_KMEM_LEAK || !o->interval_ns)
		show(s, km, now, 1, km->mode == PP_KMEM_LEAK ? "at the end" : "total");
	if (km->sampler_samples - km->sampler_untracked > km->samples)
		pp_session__warn(s, "the sampler reported %llu samples in the processes that exited, the "
				 "file holds %llu: %llu or more were lost on the way",
				 (unsigned long long)(km->sampler_samples - km->sampler_untracked),
				 (unsigned long long)km->samples,
				 (unsigned long long)(km->sampler_samples - km->sampler_untracked - km->samples));
	if (km->sampler_untracked)
		pp_session__warn(s, "%llu sampled blocks could not be tracked by the sampler (no memory): "
				 "their frees were not reported", (unsigned long long)km->sampler_untracked);
	pp_out__flush(pp_session__out(s));
	if (o->flame_graph)
		flame(s, km, o->flame_graph);
	if (pp_opts__mod(o, "pprof"))
		write_pprof(s, km, now, pp_opts__mod(o, "pprof"));
}

/** pp_kmem__deinit() - free the state; accepts none. */
void pp_kmem__deinit(struct pp_session *s)
{
	struct kmem *km = pp_session__priv(s);

	if (!km)
		return;
	for (size_t i = 0; i < km->nr_stks; i++)
		free(km->stks[i].fids);
	free(km->stks);
	free(km->stk_hash);
	free(km->ips);
	free(km->kern);
	free(km->objs);
	free(km->evs);
	pp_kmap__exit(&km->pend);
	free(km);
}
