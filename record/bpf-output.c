// SPDX-License-Identifier: MIT
/*
 * BPF output events (spec/pp-bpf.md section 6): a BPF program writes
 * records with bpf_perf_event_output() into a perf event array whose slots
 * are the recorder's per-CPU PERF_COUNT_SW_BPF_OUTPUT events, so the records
 * arrive as PERF_SAMPLE_RAW samples in the ordinary rings. The recorder
 * stores the program's BTF and the id of the record struct in FORMATS, and
 * any reader decodes the records field by field from that, whatever
 * machine it runs on.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>

#include "pp/bpf.h"
#include "pp/meta.h"
#include "bpf-internal.h"
#include "bpf/execsnoop.skel.h"

/* Built-in event sources: bpf/<name>.bpf.c. */
static const struct builtin {
	const char *name;
	const char *map;
	const char *type;
	const void *(*elf)(size_t *sz);
} builtins[] = {
	{ "execsnoop", "events", "pp_execsnoop_event", execsnoop_bpf__elf_bytes },
};

struct pp_bpf_output {
	struct bpf_object *obj;
	struct bpf_map *map;
	struct bpf_link **links;
	int nr_links;
	uint32_t type_id;
	char name[64];
	char event[80];
	char type[64];
};

/**
 * pp_bpf_output__new() - open a built-in source or OBJ.bpf.o:MAP:STRUCT.
 * @spec: the source; @err, @errlen: message on failure.
 * Return: the source, or NULL with errno set.
 */
struct pp_bpf_output *pp_bpf_output__new(const char *spec, char *err, size_t errlen)
{
	const char *map = NULL, *type = NULL;
	struct pp_bpf_output *bo;
	char path[512], mname[128];
	struct btf *btf;
	size_t i;
	int ret;

	ret = pp_bpf__available(err, errlen);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	pp_bpf_init_print();
	bo = calloc(1, sizeof(*bo));
	if (!bo) {
		snprintf(err, errlen, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	for (i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++) {
		if (!strcmp(spec, builtins[i].name)) {
			size_t sz;
			const void *elf = builtins[i].elf(&sz);
			LIBBPF_OPTS(bpf_object_open_opts, oo, .object_name = builtins[i].name);

			bo->obj = bpf_object__open_mem(elf, sz, &oo);
			map = builtins[i].map;
			type = builtins[i].type;
			snprintf(bo->name, sizeof(bo->name), "%s", spec);
			break;
		}
	}
	if (!map) {
		const char *c1 = strchr(spec, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		const char *base;
		size_t n;

		if (!c2 || c1 == spec || c2 == c1 + 1 || !c2[1] || (size_t)(c1 - spec) >= sizeof(path)) {
			snprintf(err, errlen, "bpf output '%s': give a built-in source (execsnoop) or "
				 "OBJ.bpf.o:MAP:STRUCT", spec);
			ret = -EINVAL;
			goto fail;
		}
		memcpy(path, spec, (size_t)(c1 - spec));
		path[c1 - spec] = '\0';
		snprintf(bo->type, sizeof(bo->type), "%s", c2 + 1);
		type = bo->type;
		base = strrchr(path, '/');
		base = base ? base + 1 : path;
		n = strcspn(base, ".");
		snprintf(bo->name, sizeof(bo->name), "%.*s", (int)n, base);
		bo->obj = bpf_object__open_file(path, NULL);
		if (!bo->obj) {
			snprintf(err, errlen, "bpf output: cannot open %s: %s", path, strerror(errno));
			ret = -errno;
			goto fail;
		}
		snprintf(mname, sizeof(mname), "%.*s", (int)(c2 - c1 - 1), c1 + 1);
		bo->map = bpf_object__find_map_by_name(bo->obj, mname);
		if (!bo->map) {
			snprintf(err, errlen, "bpf output: %s has no map '%s'", path, mname);
			ret = -ENOENT;
			goto fail;
		}
	}
	if (!bo->obj) {
		ret = pp_bpf_load_error("bpf output", -errno, err, errlen);
		goto fail;
	}
	if (!bo->map)
		bo->map = bpf_object__find_map_by_name(bo->obj, map);
	if (!bo->map || bpf_map__type(bo->map) != BPF_MAP_TYPE_PERF_EVENT_ARRAY) {
		snprintf(err, errlen, "bpf output %s: map is not a BPF_MAP_TYPE_PERF_EVENT_ARRAY",
			 bo->name);
		ret = -EINVAL;
		goto fail;
	}
	btf = bpf_object__btf(bo->obj);
	ret = btf ? btf__find_by_name_kind(btf, type, BTF_KIND_STRUCT) : -ENOENT;
	if (ret < 0) {
		snprintf(err, errlen, "bpf output %s: no struct %s in the object's BTF (declare a "
			 "global 'struct %s *unused' so clang keeps it)", bo->name, type, type);
		ret = -ENOENT;
		goto fail;
	}
	bo->type_id = (uint32_t)ret;
	snprintf(bo->type, sizeof(bo->type), "%s", type);
	snprintf(bo->event, sizeof(bo->event), PP_BPF_OUTPUT_SYSTEM ":%s", bo->name);
	return bo;
fail:
	pp_bpf_output__free(bo);
	errno = -ret;
	return NULL;
}

/** pp_bpf_output__event_name() - "bpf-output:NAME". @bo: source. */
const char *pp_bpf_output__event_name(const struct pp_bpf_output *bo)
{
	return bo->event;
}

/**
 * pp_bpf_output__put_format() - append the PP_FMT_BTF item.
 * @bo: source; @b: FORMATS payload. Return: 0 or -errno.
 */
int pp_bpf_output__put_format(const struct pp_bpf_output *bo, struct pp_buf *b)
{
	const struct btf *btf = bpf_object__btf(bo->obj);
	const void *raw;
	uint32_t v[2];
	char text[80];
	size_t at;

	if (!btf)
		return -ENOENT;
	raw = btf__raw_data(btf, &v[1]);
	if (!raw)
		return -ENOMEM;
	v[0] = bo->type_id;
	snprintf(text, sizeof(text), "struct %s", bo->type);
	at = pp_item__begin(b, PP_FMT_BTF);
	pp_buf__append_str(b, PP_BPF_OUTPUT_SYSTEM);
	pp_buf__append_str(b, bo->name);
	pp_buf__append_str(b, text);
	pp_buf__pad(b, 8);
	pp_buf__append(b, v, sizeof(v));
	pp_buf__append(b, raw, v[1]);
	pp_item__end(b, at);
	return b->error;
}

/**
 * pp_bpf_output__attach() - load, fill the perf event array, attach.
 * @bo: source; @cpus, @fds, @n: the per-CPU BPF output events;
 * @err, @errlen: message on failure. Return: 0 or -errno.
 */
int pp_bpf_output__attach(struct pp_bpf_output *bo, const int *cpus, const int *fds, int n,
			  char *err, size_t errlen)
{
	struct bpf_program *prog;
	int ret, i, nprog = 0, mfd;

	ret = bpf_object__load(bo->obj);
	if (ret)
		return pp_bpf_load_error("bpf output", ret, err, errlen);
	mfd = bpf_map__fd(bo->map);
	for (i = 0; i < n; i++) {
		uint32_t k = (uint32_t)cpus[i];
		uint32_t fd = (uint32_t)fds[i];

		if (fds[i] < 0)
			continue;
		if (bpf_map_update_elem(mfd, &k, &fd, BPF_ANY)) {
			ret = -errno;
			snprintf(err, errlen, "bpf output %s: cannot put the CPU %d event in map %s: %s",
				 bo->name, cpus[i], bpf_map__name(bo->map), strerror(-ret));
			return ret;
		}
	}
	bpf_object__for_each_program(prog, bo->obj)
		nprog++;
	bo->links = calloc((size_t)nprog + 1, sizeof(*bo->links));
	if (!bo->links)
		return -ENOMEM;
	bpf_object__for_each_program(prog, bo->obj) {
		struct bpf_link *l = bpf_program__attach(prog);

		if (!l) {
			ret = -errno;
			snprintf(err, errlen, "bpf output %s: attaching %s failed: %s", bo->name,
				 bpf_program__name(prog), strerror(-ret));
			return ret;
		}
		bo->links[bo->nr_links++] = l;
	}
	return 0;
}

/** pp_bpf_output__free() - detach and free; accepts NULL. @bo: source. */
void pp_bpf_output__free(struct pp_bpf_output *bo)
{
	if (!bo)
		return;
	for (int i = 0; i < bo->nr_links; i++)
		bpf_link__destroy(bo->links[i]);
	free(bo->links);
	bpf_object__close(bo->obj);
	free(bo);
}
