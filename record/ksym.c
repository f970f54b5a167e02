// SPDX-License-Identifier: MIT
/*
 * Kernel symbols of single addresses through the kernel's own "%pS"
 * (bpf/ksym.bpf.c), and the parser of that text. The recorder asks only for
 * the addresses that samples hit, so it does not have to read and sort all of
 * /proc/kallsyms; where BPF is unavailable it reads /proc/kallsyms as before.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>

#include "record.h"
#include "bpf-internal.h"
#include "../bpf/ksym.h"
#include "bpf/ksym.skel.h"

struct pp_ksym_bpf {
	struct ksym_bpf *skel;		/* its own object, or NULL: an aggregator's */
	int prog_fd;
	volatile unsigned long long *addr;	/* the program's globals (mapped .bss) */
	volatile char *text;
	volatile long *ret;
};

/**
 * pp_ksym_bpf__new() - load the symbol program.
 * Return: resolver, or NULL (with errno) where BPF is unavailable.
 */
struct pp_ksym_bpf *pp_ksym_bpf__new(void)
{
	struct pp_ksym_bpf *k = calloc(1, sizeof(*k));
	int ret;

	if (!k)
		return NULL;
	pp_bpf_init_print();
	k->skel = ksym_bpf__open_and_load();
	if (!k->skel) {
		ret = errno ? errno : EINVAL;
		free(k);
		errno = ret;
		return NULL;
	}
	k->prog_fd = bpf_program__fd(k->skel->progs.pp_ksym);
	k->addr = &k->skel->bss->ksym_addr;
	k->text = k->skel->bss->ksym_text;
	k->ret = &k->skel->bss->ksym_ret;
	return k;
}

/**
 * pp_ksym_bpf__use() - a resolver on the pp_ksym program of a loaded
 * object (bpf/ksym.bpf.h), which stays its owner.
 * @prog_fd: the program (< 0: not loaded); @addr, @text, @ret: its globals, mapped.
 * Return: resolver, or NULL (errno ENOSYS: program not loaded, ENOMEM).
 */
struct pp_ksym_bpf *pp_ksym_bpf__use(int prog_fd, unsigned long long *addr, char *text,
				     long *ret)
{
	struct pp_ksym_bpf *k;

	if (prog_fd < 0) {
		errno = ENOSYS;
		return NULL;
	}
	k = calloc(1, sizeof(*k));
	if (!k)
		return NULL;
	k->prog_fd = prog_fd;
	k->addr = addr;
	k->text = text;
	k->ret = ret;
	return k;
}

/** pp_ksym_bpf__free() - unload (unless borrowed); accepts NULL. @k: resolver. */
void pp_ksym_bpf__free(struct pp_ksym_bpf *k)
{
	if (!k)
		return;
	ksym_bpf__destroy(k->skel);
	free(k);
}

/**
 * pp_ksym_bpf__lookup() - the kernel's "%pS" text for @addr.
 * @k: resolver; @addr: kernel address; @text, @len: destination.
 * Return: 0, or -errno if the program could not run.
 */
int pp_ksym_bpf__lookup(struct pp_ksym_bpf *k, uint64_t addr, char *text, size_t len)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	size_t i;
	int ret;

	if (!len)
		return -EINVAL;
	*k->addr = addr;
	*k->ret = 0;
	ret = bpf_prog_test_run_opts(k->prog_fd, &opts);
	if (ret)
		return ret < 0 ? ret : -EIO;
	if (*k->ret <= 0)
		return *k->ret < 0 ? (int)*k->ret : -EIO;
	for (i = 0; i + 1 < len && i + 1 < PP_KSYM_TEXT_LEN && k->text[i]; i++)
		text[i] = k->text[i];
	text[i] = 0;
	return 0;
}

/**
 * pp_ksym_parse() - split the "%pS" text of @addr.
 * @text: "name+0xoff/0xsize" with an optional " [module]" (and, on some
 * kernels, a build id after the module name); @addr: the address asked for.
 * @out: receives start, size, name and module (pointing into @text).
 * Return: 0, or -ENOENT when the kernel knew no symbol (the text is the
 * bare address).
 */
int pp_ksym_parse(const char *text, uint64_t addr, struct pp_ksym_text *out)
{
	const char *plus, *slash, *end = text + strlen(text), *mod = NULL, *p;
	unsigned long long off, size;
	char *e;

	memset(out, 0, sizeof(*out));
	p = strstr(text, " [");
	if (p && end[-1] == ']') {
		mod = p + 2;
		out->module = mod;
		out->module_len = strcspn(mod, " ]");
		end = p;
	}
	/* "name+0xoff/0xsize": scan back from the end for '/' then '+'. */
	for (slash = end; slash > text && *slash != '/'; slash--)
		;
	for (plus = slash; plus > text && *plus != '+'; plus--)
		;
	if (slash <= text || plus <= text || strncmp(plus, "+0x", 3) || strncmp(slash, "/0x", 3))
		return -ENOENT;
	off = strtoull(plus + 3, &e, 16);
	if (e != slash)
		return -ENOENT;
	size = strtoull(slash + 3, &e, 16);
	if (e != end || off > addr)
		return -ENOENT;
	out->name = text;
	out->name_len = (size_t)(plus - text);
	out->start = addr - off;
	out->size = size > 0xffffffffu ? 0 : (uint32_t)size;
	return 0;
}
