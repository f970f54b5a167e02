// SPDX-License-Identifier: MIT
/*
 * The kernel-side stack walker's maps (bpf/unwind.bpf.h), filled from user
 * space: a DSO's compact unwind table (record/cfi.c) becomes an array map of
 * its own, inserted in the walker's map of maps under the DSO's id, shared
 * by every process that maps it; a process's executable mappings name those
 * ids; each CPU's slot of the output array is a BPF output event whose
 * records go to that CPU's ring.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "record.h"
#include "bpf-internal.h"
#include "../bpf/unwind.h"

_Static_assert(sizeof(struct pp_unwind_row) == sizeof(struct pp_cfi_row),
	       "the BPF row is record/cfi.c's row");
_Static_assert(PP_UW_CFA_PLT == PP_CFI_CFA_PLT && PP_UW_END == PP_CFI_END &&
	       PP_UW_UNSUPPORTED == PP_CFI_UNSUPPORTED && PP_UW_AT == PP_CFI_AT,
	       "the BPF rules are record/cfi.c's");

/* See record/record.h. */
int pp_bpf_unwind__add_dso(const struct pp_bpf_unwind_maps *m, uint32_t id,
			   const struct pp_cfi_table *t)
{
	/* as the template (bpf/unwind.bpf.h): of any size, and the same flags */
	LIBBPF_OPTS(bpf_map_create_opts, mo, .map_flags = BPF_F_INNER_MAP | BPF_F_MMAPABLE);
	struct pp_unwind_dso d = { .nr_rows = (unsigned int)t->nr };
	size_t size = t->nr * sizeof(struct pp_cfi_row);
	int fd, ret = 0;
	void *v;

	if (!t->nr || t->nr > UINT32_MAX / 2)
		return -EINVAL;
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "pp_uw_rows", sizeof(uint32_t),
			    sizeof(struct pp_cfi_row), (uint32_t)t->nr, &mo);
	if (fd < 0)
		return fd;
	/* written in place: a copy, where an update per row costs a syscall's checks each */
	v = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (v == MAP_FAILED) {
		ret = -errno;
		goto out;
	}
	memcpy(v, t->rows, size);
	munmap(v, size);
	ret = bpf_map_update_elem(m->rows, &id, &fd, BPF_ANY);
	if (!ret)
		ret = bpf_map_update_elem(m->dsos, &id, &d, BPF_ANY);
	if (ret)
		bpf_map_delete_elem(m->rows, &id);
out:
	close(fd);	/* the map of maps holds it */
	return ret < 0 ? ret : 0;
}

/* See record/record.h. */
int pp_bpf_unwind__no_dso(const struct pp_bpf_unwind_maps *m, uint32_t id)
{
	struct pp_unwind_dso d = { 0 };

	return bpf_map_update_elem(m->dsos, &id, &d, BPF_ANY) < 0 ? -errno : 0;
}

/* See record/record.h. */
void pp_bpf_unwind__del_dso(const struct pp_bpf_unwind_maps *m, uint32_t id)
{

	bpf_map_delete_elem(m->dsos, &id);
	bpf_map_delete_elem(m->rows, &id);
}

static int map_cmp(const void *a, const void *b)
{
	const struct pp_unwind_map *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* See record/record.h. */
int pp_bpf_unwind__set_proc(const struct pp_bpf_unwind_maps *m, uint32_t tgid,
			    uint64_t arg_start, const struct pp_unwind_map *maps, unsigned int nr)
{
	struct pp_unwind_proc *p = calloc(1, sizeof(*p));
	int ret;

	if (!p)
		return -ENOMEM;
	p->nr = nr < PP_UNWIND_MAPS ? nr : PP_UNWIND_MAPS;
	p->arg_start = arg_start;
	memcpy(p->m, maps, p->nr * sizeof(*maps));
	qsort(p->m, p->nr, sizeof(p->m[0]), map_cmp);
	ret = bpf_map_update_elem(m->procs, &tgid, p, BPF_ANY);
	free(p);
	return ret < 0 ? ret : 0;
}

/* See record/record.h. */
int pp_bpf_unwind__copy_proc(const struct pp_bpf_unwind_maps *m, uint32_t parent, uint32_t tgid)
{
	struct pp_unwind_proc *p = malloc(sizeof(*p));
	int ret = -ENOMEM;

	if (p) {
		ret = bpf_map_lookup_elem(m->procs, &parent, p);
		if (!ret)
			ret = bpf_map_update_elem(m->procs, &tgid, p, BPF_ANY);
	}
	free(p);
	return ret < 0 ? ret : 0;
}

/* See record/record.h. */
void pp_bpf_unwind__del_proc(const struct pp_bpf_unwind_maps *m, uint32_t tgid)
{

	bpf_map_delete_elem(m->procs, &tgid);
}

/* See record/record.h. */
int pp_bpf_unwind__set_outputs(const struct pp_bpf_unwind_maps *m, const int *cpus,
			       const int *fds, int n)
{

	for (int i = 0; i < n; i++) {
		uint32_t k = (uint32_t)cpus[i];

		if (fds[i] >= 0 && bpf_map_update_elem(m->out, &k, &fds[i], BPF_ANY))
			return -errno;
	}
	return 0;
}

/* See record/record.h. */
int pp_bpf_unwind__stats(const struct pp_bpf_unwind_maps *m, uint64_t *out)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *v;

	memset(out, 0, PP_UW_STATS * sizeof(*out));
	if (ncpu <= 0)
		return ncpu ? ncpu : -EINVAL;
	v = calloc((size_t)ncpu, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (uint32_t k = 0; k < PP_UW_STATS; k++) {
		if (bpf_map_lookup_elem(m->stats, &k, v))
			continue;
		for (int c = 0; c < ncpu; c++)
			out[k] += v[c];
	}
	free(v);
	return 0;
}
