// SPDX-License-Identifier: MIT
/*
 * --call-graph=dwarf: user stacks unwound at record time with the DSOs'
 * call frame information (.eh_frame, .debug_frame), by elfutils' libdwfl
 * unwinder, from the user registers and the top of the user stack the
 * kernel copies into each sample.
 *
 * The recorder unwinds while it writes and stores the frames as an ordinary
 * callchain (record/symbols.c rewrites the sample): the file needs no unwind
 * tables, no stack copies, no reader change, and stays as small as with
 * frame pointers, where perf's --call-graph dwarf files carry 8 KiB of stack
 * per sample.
 *
 * One Dwfl per process, kept while its maps stay: modules are reported as
 * the unwinder meets their addresses (a DSO whose CFI is never needed is
 * never opened), at map start - pgoff as perf does; a new map of the
 * process drops it (pp_unwind__forget()).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elfutils/libdwfl.h>

#include "record.h"

#define UPROC_MAX	4096	/* processes with a Dwfl at once: then all are dropped */

struct uproc {
	uint32_t pid;
	Dwfl *dwfl;
	uint8_t attached;	/* dwfl_attach_state() done (needs one module first) */
};

struct pp_unwind {
	struct uproc *v;
	size_t n, cap;
	/* the sample being unwound */
	const uint64_t *regs;	/* PP_UNWIND_REGS_MASK order */
	const uint8_t *stack;
	uint64_t stack_size, sp;
	uint32_t pid, tid;
	struct pp_unwind_maps maps;
	uint64_t *out;
	uint32_t nr, max;
};

/**
 * pp_call_graph_mode() - parse a --call-graph MODE as perf spells it, and
 * pp's own.
 * @s: "fp", "dwarf", "dwarf,SIZE" or "bpf"; @mode: receives PP_CG_*, may be
 *   NULL; @dwarf_stack: receives the user stack bytes per sample (0 but for
 *   dwarf), may be NULL; @err, @len: the message.
 *
 * SIZE is rounded up to 8 bytes and must lie in 8..65528 (the kernel's
 * limit: the whole sample must fit 64 KiB).
 * Return: 0, or -EINVAL with @err set.
 */
int pp_call_graph_mode(const char *s, int *mode, uint32_t *dwarf_stack, char *err, size_t len)
{
	unsigned long v = 8192;
	char *end;

	if (!strcmp(s, "fp") || !strcmp(s, "bpf")) {
		if (mode)
			*mode = s[0] == 'f' ? PP_CG_FP : PP_CG_BPF;
		if (dwarf_stack)
			*dwarf_stack = 0;
		return 0;
	}
	if (strncmp(s, "dwarf", 5) || (s[5] && s[5] != ',')) {
		if (err)
			snprintf(err, len, "bad --call-graph mode '%s' (fp, dwarf, dwarf,SIZE or bpf)",
				 s);
		return -EINVAL;
	}
	if (s[5] == ',') {
		errno = 0;
		v = strtoul(s + 6, &end, 10);
		if (s[6] < '0' || s[6] > '9' || *end || errno || v < 8 || v > 65528) {
			if (err)
				snprintf(err, len, "bad --call-graph dwarf stack size '%s' (8 to 65528 bytes)",
					 s + 6);
			return -EINVAL;
		}
	}
	if (mode)
		*mode = PP_CG_DWARF;
	if (dwarf_stack)
		*dwarf_stack = (uint32_t)((v + 7) & ~7ul);
	return 0;
}

/** pp_unwind__new() - an unwinder. Return: it, or NULL. */
struct pp_unwind *pp_unwind__new(void)
{
	return calloc(1, sizeof(struct pp_unwind));
}

static void uproc_drop(struct uproc *p)
{
	if (p->dwfl)
		dwfl_end(p->dwfl);
	p->dwfl = NULL;
	p->attached = 0;
}

/** pp_unwind__free() - free; accepts NULL. */
void pp_unwind__free(struct pp_unwind *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->n; i++)
		uproc_drop(&u->v[i]);
	free(u->v);
	free(u);
}

/**
 * pp_unwind__forget() - the maps of @pid changed (mmap, exec): its modules
 * are reported again when next needed.
 */
void pp_unwind__forget(struct pp_unwind *u, uint32_t pid)
{
	for (size_t i = 0; u && i < u->n; i++) {
		if (u->v[i].pid == pid) {
			uproc_drop(&u->v[i]);
			u->v[i] = u->v[--u->n];
			return;
		}
	}
}

/* ---- libdwfl callbacks ---- */

/*
 * Every module is reported with its file (report_at()): there is no ELF to
 * find. libdwfl's own finders fall back to debuginfod, which libdwfl loads
 * with dlopen(): in a static pp-record that maps a second libc with a heap
 * of its own into the process and corrupted the writer's memory (zstd
 * contexts failed, chunks went out uncompressed). A recorder on a
 * production host reaches no network either.
 */
static int no_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		  char **file_name, Elf **elfp)
{
	return -1;
}

/*
 * A module's separate debug file, where the CFI may be .debug_frame only:
 * /usr/lib/debug/.build-id/NN/NNNN....debug of its build-id, on this host.
 */
static int local_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			   Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			   GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	const unsigned char *id;
	GElf_Addr vaddr;
	char path[PATH_MAX];
	int n = dwfl_module_build_id(mod, &id, &vaddr), len, fd;

	if (n < 2)
		return -1;
	len = snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%02x/", id[0]);
	for (int i = 1; i < n && len < (int)sizeof(path) - 8; i++)
		len += snprintf(path + len, sizeof(path) - (size_t)len, "%02x", id[i]);
	snprintf(path + len, sizeof(path) - (size_t)len, ".debug");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	*debuginfo_file_name = strdup(path);
	return fd;
}

static const Dwfl_Callbacks dwfl_cbs = {
	.find_elf = no_elf,
	.find_debuginfo = local_debuginfo,
};

/* Report the DSO mapped at @addr, unless a module covers it. Return: 0, or -1. */
static int report_at(struct pp_unwind *u, Dwfl *dwfl, uint64_t addr)
{
	const char *path;
	uint64_t start, pgoff;
	Dwfl_Module *m;

	if (dwfl_addrmodule(dwfl, addr))
		return 0;
	if (u->maps.map_at(u->maps.ctx, u->pid, addr, &path, &start, &pgoff))
		return -1;
	dwfl_report_begin_add(dwfl);
	m = dwfl_report_elf(dwfl, path, path, -1, start - pgoff, false);
	dwfl_report_end(dwfl, NULL, NULL);
	return m ? 0 : -1;
}

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct pp_unwind *u = arg;

	if (*thread_argp)
		return 0;
	*thread_argp = u;
	return (pid_t)u->tid;
}

/* Stack words come from the sample's copy; anything else is unknown. */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct pp_unwind *u = arg;

	if (addr < u->sp || addr - u->sp > u->stack_size || u->stack_size - (addr - u->sp) < 8)
		return false;
	memcpy(result, u->stack + (addr - u->sp), 8);
	return true;
}

/* perf's x86-64 register numbers in PP_UNWIND_REGS_MASK order, by DWARF number 0..16 */
static const uint8_t dwarf_to_sample[17] = {
	0,		/* rax: AX */
	3,		/* rdx: DX */
	2,		/* rcx: CX */
	1,		/* rbx: BX */
	4,		/* rsi: SI */
	5,		/* rdi: DI */
	6,		/* rbp: BP */
	7,		/* rsp: SP */
	9, 10, 11, 12, 13, 14, 15, 16,	/* r8..r15: the 10th to 17th of the mask */
	8,		/* rip: IP */
};

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct pp_unwind *u = arg;
	Dwarf_Word r[17];

	for (int i = 0; i < 17; i++)
		r[i] = u->regs[dwarf_to_sample[i]];
	return dwfl_thread_state_registers(thread, 0, 17, r);
}

static const Dwfl_Thread_Callbacks thread_cbs = {
	.next_thread = next_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct pp_unwind *u = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, &activation) || !pc)
		return DWARF_CB_ABORT;
	u->out[u->nr++] = pc;
	/* the next step reads this frame's CFI: its module must be known */
	if (u->nr >= u->max || report_at(u, dwfl_thread_dwfl(dwfl_frame_thread(state)),
					 activation ? pc : pc - 1))
		return DWARF_CB_ABORT;
	return DWARF_CB_OK;
}

static struct uproc *uproc_get(struct pp_unwind *u, uint32_t pid)
{
	struct uproc *p;

	for (size_t i = 0; i < u->n; i++)
		if (u->v[i].pid == pid)
			return &u->v[i];
	if (u->n >= UPROC_MAX) {
		for (size_t i = 0; i < u->n; i++)
			uproc_drop(&u->v[i]);
		u->n = 0;
	}
	if (u->n == u->cap) {
		size_t cap = u->cap ? u->cap * 2 : 16;
		struct uproc *v = realloc(u->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		u->v = v;
		u->cap = cap;
	}
	p = &u->v[u->n++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	return p;
}

/**
 * pp_unwind__user() - unwind one sample's user stack.
 * @u: unwinder; @pid, @tid: the sample's; @maps: where the DSOs of @pid are
 *   mapped; @regs: the sample's user registers (PP_UNWIND_REGS_MASK);
 * @stack, @stack_size: its copy of the stack from the user SP on;
 * @out, @max: receive the frames, innermost first (the IP, then return
 *   addresses, as a frame-pointer callchain has them).
 *
 * Return: the number of frames (at least the IP when @max allows), or 0.
 */
uint32_t pp_unwind__user(struct pp_unwind *u, uint32_t pid, uint32_t tid,
			 const struct pp_unwind_maps *maps, const uint64_t *regs,
			 const uint8_t *stack, uint64_t stack_size, uint64_t *out, uint32_t max)
{
	struct uproc *p;
	uint64_t ip = regs[8];

	if (!max || !ip)
		return 0;
	u->regs = regs;
	u->sp = regs[7];
	u->stack = stack;
	u->stack_size = stack_size;
	u->pid = pid;
	u->tid = tid;
	u->maps = *maps;
	u->out = out;
	u->nr = 0;
	u->max = max;
	p = uproc_get(u, pid);
	if (!p)
		goto ip_only;
	if (!p->dwfl) {
		p->dwfl = dwfl_begin(&dwfl_cbs);
		if (!p->dwfl)
			goto ip_only;
	}
	if (report_at(u, p->dwfl, ip))
		goto ip_only;
	if (!p->attached) {
		if (!dwfl_attach_state(p->dwfl, NULL, (pid_t)pid, &thread_cbs, u))
			goto ip_only;
		p->attached = 1;
	}
	dwfl_getthread_frames(p->dwfl, (pid_t)tid, frame_cb, u);
	if (u->nr)
		return u->nr;
ip_only:
	out[0] = ip;
	return 1;
}
