// SPDX-License-Identifier: MIT
/*
 * A minimal BTF of the running kernel for the CO-RE relocations of the
 * aggregators (offcpu, lock), in the manner of `bpftool gen min_core_btf`:
 * only the structs and fields their programs read, with this kernel's
 * offsets, found by walking /sys/kernel/btf/vmlinux only as far as they are.
 *
 * Why: given the whole vmlinux BTF, libbpf copies its 5.5 MB twice and
 * indexes every type for each object it loads, which cost more recorder CPU
 * than the off-CPU aggregation itself. With this BTF as btf_custom_path (and
 * raw_tp programs, which need no attach BTF id) libbpf never reads vmlinux
 * BTF. Where anything is missing, the caller lets libbpf use the whole.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <bpf/libbpf.h>

#include "pp/meta.h"
#include "bpf-internal.h"

/* The BTF format (include/uapi/linux/btf.h), as far as this file needs it. */
#define BTF_MAGIC		0xeB9F
#define BTF_KIND_INT		1
#define BTF_KIND_PTR		2
#define BTF_KIND_ARRAY		3
#define BTF_KIND_STRUCT		4
#define BTF_KIND_UNION		5
#define BTF_KIND_ENUM		6
#define BTF_KIND_TYPEDEF	8
#define BTF_KIND_VOLATILE	9
#define BTF_KIND_CONST		10
#define BTF_KIND_RESTRICT	11
#define BTF_KIND_FUNC_PROTO	13
#define BTF_KIND_VAR		14
#define BTF_KIND_DATASEC	15
#define BTF_KIND_DECL_TAG	17
#define BTF_KIND_TYPE_TAG	18
#define BTF_KIND_ENUM64		19

struct btf_hdr {
	uint16_t magic;
	uint8_t version, flags;
	uint32_t hdr_len, type_off, type_len, str_off, str_len;
};

struct btf_t {
	uint32_t name_off, info, size;	/* size or type */
};

struct btf_m {
	uint32_t name_off, type, offset;
};

#define KIND(t)		(((t)->info >> 24) & 0x1f)
#define VLEN(t)		((t)->info & 0xffff)
#define KFLAG(t)	((t)->info >> 31)

/* Every CKPT-th type id's offset is kept: a lookup walks at most CKPT-1 types. */
#define CKPT_SHIFT	6
#define CKPT		(1u << CKPT_SHIFT)

struct vmbtf {
	const uint8_t *types;
	const char *strs;
	uint32_t type_len, str_len;
	uint32_t *ckpt;			/* offset in types of ids 0, CKPT, 2 CKPT, ... */
	uint32_t cap;			/* entries of ckpt */
	uint32_t nr;			/* ids 1..nr-1 walked so far */
	uint32_t pos;			/* offset of id nr */
	int bad;			/* the walk met a malformed type */
	const char *const *names;	/* structs wanted, NULL-terminated */
	const struct btf_t **found;	/* their first complete definition */
};

/* Bytes of type data after struct btf_t, or -1 for an unknown kind. */
static long extra_size(const struct btf_t *t)
{
	switch (KIND(t)) {
	case BTF_KIND_INT:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
		return 4;
	case BTF_KIND_ARRAY:
		return 12;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_DATASEC:
	case BTF_KIND_ENUM64:
		return 12L * VLEN(t);
	case BTF_KIND_ENUM:
	case BTF_KIND_FUNC_PROTO:
		return 8L * VLEN(t);
	case BTF_KIND_PTR:
	case 7:			/* FWD */
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case 12:		/* FUNC */
	case 16:		/* FLOAT */
	case BTF_KIND_TYPE_TAG:
		return 0;
	default:
		return -1;
	}
}

/*
 * Walk one more type: its checkpoint, and whether it is a wanted struct.
 * Return: 1, 0 at the end, -EINVAL for a malformed type.
 */
static int vmbtf_step(struct vmbtf *v)
{
	const struct btf_t *t = (const void *)(v->types + v->pos);
	long extra;

	if (v->bad)
		return -EINVAL;
	if (v->pos + sizeof(struct btf_t) > v->type_len)
		return v->pos == v->type_len ? 0 : (v->bad = -EINVAL);
	extra = extra_size(t);
	if (extra < 0 || v->pos + sizeof(*t) + (size_t)extra > v->type_len ||
	    v->nr >> CKPT_SHIFT >= v->cap)
		return (v->bad = -EINVAL);
	if (!(v->nr & (CKPT - 1)))
		v->ckpt[v->nr >> CKPT_SHIFT] = v->pos;
	if (KIND(t) == BTF_KIND_STRUCT && VLEN(t) && t->name_off < v->str_len) {
		const char *name = v->strs + t->name_off;

		for (size_t i = 0; v->names[i]; i++)
			if (!v->found[i] && !strcmp(name, v->names[i]))
				v->found[i] = t;
	}
	v->nr++;
	v->pos += (uint32_t)(sizeof(*t) + (size_t)extra);
	return 1;
}

/*
 * Walk the types until every wanted struct is found. The walk goes no
 * further than it must: vmlinux BTF is 3.5 MB of cold memory (2 ms to
 * read through), and the structs the aggregators read come in its first
 * few hundred types; vmbtf_type() walks on when it is asked for more.
 * Return: 0, -ENOENT if a struct is missing, -EINVAL, -ENOMEM.
 */
static int vmbtf_index(struct vmbtf *v, const uint8_t *data, size_t len)
{
	struct btf_hdr h;
	size_t missing;
	int r;

	if (len < sizeof(h))
		return -EINVAL;
	memcpy(&h, data, sizeof(h));
	if (h.magic != BTF_MAGIC || h.hdr_len < sizeof(h) || h.hdr_len > len ||
	    h.type_off > len - h.hdr_len || h.type_len > len - h.hdr_len - h.type_off ||
	    h.str_off > len - h.hdr_len || h.str_len > len - h.hdr_len - h.str_off || !h.str_len)
		return -EINVAL;
	v->types = data + h.hdr_len + h.type_off;
	v->strs = (const char *)data + h.hdr_len + h.str_off;
	v->type_len = h.type_len;
	v->str_len = h.str_len;
	if (v->strs[v->str_len - 1])
		return -EINVAL;
	/* at most one type per 12 bytes */
	v->cap = (v->type_len / (uint32_t)sizeof(struct btf_t) + 2) / CKPT + 1;
	v->ckpt = malloc((size_t)v->cap * sizeof(*v->ckpt));
	if (!v->ckpt)
		return -ENOMEM;
	v->ckpt[0] = 0;		/* id 0 (void) has no record: never walked from */
	v->nr = 1;
	do {
		for (missing = 0; v->names[missing] && v->found[missing]; missing++)
			;
		if (!v->names[missing])
			return 0;
	} while ((r = vmbtf_step(v)) > 0);
	return r < 0 ? r : -ENOENT;
}

static const struct btf_t *vmbtf_type(struct vmbtf *v, uint32_t id)
{
	uint32_t cur, pos;

	while (id >= v->nr)
		if (vmbtf_step(v) <= 0)
			return NULL;
	if (!id)
		return NULL;
	cur = id & ~(CKPT - 1);
	pos = v->ckpt[id >> CKPT_SHIFT];
	if (!cur) {		/* the first records start at id 1 */
		cur = 1;
		pos = 0;
	}
	for (; cur < id; cur++)	/* checked by vmbtf_step() */
		pos += (uint32_t)(sizeof(struct btf_t) +
				  (size_t)extra_size((const void *)(v->types + pos)));
	return (const void *)(v->types + pos);
}

static const char *vmbtf_name(const struct vmbtf *v, uint32_t off)
{
	return off < v->str_len ? v->strs + off : "";
}

/* Skip typedefs and qualifiers. */
static const struct btf_t *vmbtf_resolve(struct vmbtf *v, uint32_t id)
{
	const struct btf_t *t = vmbtf_type(v, id);
	int depth = 0;

	while (t && depth++ < 32) {
		switch (KIND(t)) {
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_CONST:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG:
			t = vmbtf_type(v, t->size);
			continue;
		default:
			return t;
		}
	}
	return NULL;
}

/*
 * Member @name of struct/union @t, looking into anonymous members.
 * @base: bit offset of @t. Return: the member's type, *@bit_off set, or NULL.
 */
static const struct btf_t *vmbtf_member(struct vmbtf *v, const struct btf_t *t,
					const char *name, uint32_t base, uint32_t *bit_off,
					int depth)
{
	const struct btf_m *m = (const void *)(t + 1);

	if (depth > 8)
		return NULL;
	for (uint32_t i = 0; i < VLEN(t); i++) {
		uint32_t off = base + (KFLAG(t) ? m[i].offset & 0xffffff : m[i].offset);
		const struct btf_t *mt;

		if (m[i].name_off) {
			if (strcmp(vmbtf_name(v, m[i].name_off), name))
				continue;
			*bit_off = off;
			return vmbtf_resolve(v, m[i].type);
		}
		mt = vmbtf_resolve(v, m[i].type);
		if (mt && (KIND(mt) == BTF_KIND_STRUCT || KIND(mt) == BTF_KIND_UNION)) {
			mt = vmbtf_member(v, mt, name, off, bit_off, depth + 1);
			if (mt)
				return mt;
		}
	}
	return NULL;
}

/* ---- the minimal BTF written out ---- */

struct minbtf {
	struct pp_buf types, strs;
	uint32_t nr;		/* next type id */
};

static uint32_t min_str(struct minbtf *b, const char *s)
{
	uint32_t off = (uint32_t)b->strs.len;

	pp_buf__append(&b->strs, s, strlen(s) + 1);
	return off;
}

static uint32_t min_type(struct minbtf *b, uint32_t name_off, uint32_t kind, uint32_t vlen,
			 uint32_t size_or_type, const void *extra, size_t extra_len)
{
	struct btf_t t = { name_off, kind << 24 | vlen, size_or_type };

	pp_buf__append(&b->types, &t, sizeof(t));
	if (extra_len)
		pp_buf__append(&b->types, extra, extra_len);
	return b->nr++;
}

/* An INT of @bytes, or an array of them, standing for the field type @t. */
static int min_field_type(struct minbtf *b, struct vmbtf *v, const struct btf_t *t,
			  uint32_t *id)
{
	uint32_t enc, arr[3];
	const struct btf_t *e;

	if (!t)
		return -ENOENT;
	switch (KIND(t)) {
	case BTF_KIND_INT:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		if (!t->size || t->size > 16)
			return -EINVAL;
		enc = t->size * 8;
		*id = min_type(b, 0, BTF_KIND_INT, 0, t->size, &enc, 4);
		return 0;
	case BTF_KIND_PTR:
		*id = min_type(b, 0, BTF_KIND_PTR, 0, 0, NULL, 0);
		return 0;
	case BTF_KIND_ARRAY:
		memcpy(arr, t + 1, sizeof(arr));
		e = vmbtf_resolve(v, arr[0]);
		if (!e || KIND(e) != BTF_KIND_INT || !e->size || e->size > 16)
			return -EINVAL;
		enc = e->size * 8;
		arr[0] = min_type(b, 0, BTF_KIND_INT, 0, e->size, &enc, 4);
		arr[1] = arr[0];
		*id = min_type(b, 0, BTF_KIND_ARRAY, 0, 0, arr, sizeof(arr));
		return 0;
	default:
		return -EINVAL;
	}
}

/* What the aggregators read; a NULL-terminated field list per struct. */
static const struct {
	const char *name;
	const char *fields[7];
} wanted[] = {
	{ "task_struct", { "flags", "pid", "tgid", "comm", "mm", "real_parent", NULL } },
	{ "pt_regs", { "di", "si", "ip", "sp", "bp", NULL } },
	{ "mm_struct", { "arg_start", NULL } },	/* the stack walker's (bpf/unwind.bpf.h) */
};

#define NR_WANTED	(sizeof(wanted) / sizeof(wanted[0]))

static int min_struct(struct minbtf *b, struct vmbtf *v, const struct btf_t *t,
		      const char *name, const char *const *fields)
{
	struct btf_m m[8];
	uint32_t n = 0, name_off;

	if (!t)
		return -ENOENT;
	for (; fields[n]; n++) {
		const struct btf_t *ft;
		uint32_t bit_off = 0;
		int ret;

		ft = vmbtf_member(v, t, fields[n], 0, &bit_off, 0);
		if (!ft)
			return -ENOENT;
		ret = min_field_type(b, v, ft, &m[n].type);
		if (ret)
			return ret;
		m[n].name_off = min_str(b, fields[n]);
		m[n].offset = bit_off;
	}
	name_off = min_str(b, name);
	min_type(b, name_off, BTF_KIND_STRUCT, n, t->size, m, n * sizeof(m[0]));
	return 0;
}

/**
 * pp_bpf_min_btf() - the minimal BTF from the vmlinux BTF in @data.
 * @data, @len: /sys/kernel/btf/vmlinux; @out: receives the BTF blob.
 * Return: 0, -ENOENT if a struct or field is missing, -EINVAL if @data is
 * not BTF, -ENOMEM.
 */
int pp_bpf_min_btf(const void *data, size_t len, struct pp_buf *out)
{
	const char *names[NR_WANTED + 1];
	const struct btf_t *found[NR_WANTED] = { 0 };
	struct vmbtf v = { .names = names, .found = found };
	struct minbtf b = { .nr = 1 };
	struct btf_hdr h = { .magic = BTF_MAGIC, .version = 1, .hdr_len = sizeof(h) };
	int ret;

	for (size_t i = 0; i < NR_WANTED; i++)
		names[i] = wanted[i].name;
	names[NR_WANTED] = NULL;
	pp_buf__init(&b.types);
	pp_buf__init(&b.strs);
	pp_buf__append(&b.strs, "", 1);
	ret = vmbtf_index(&v, data, len);
	for (size_t i = 0; !ret && i < NR_WANTED; i++)
		ret = found[i] ? min_struct(&b, &v, found[i], wanted[i].name, wanted[i].fields)
			       : -ENOENT;
	if (!ret && (b.types.error || b.strs.error))
		ret = -ENOMEM;
	if (!ret) {
		h.type_len = (uint32_t)b.types.len;
		h.str_off = h.type_len;
		h.str_len = (uint32_t)b.strs.len;
		pp_buf__append(out, &h, sizeof(h));
		pp_buf__append(out, b.types.data, b.types.len);
		pp_buf__append(out, b.strs.data, b.strs.len);
		ret = out->error;
	}
	free(v.ckpt);
	pp_buf__exit(&b.types);
	pp_buf__exit(&b.strs);
	return ret;
}

/**
 * pp_bpf_core_btf() - a path to this kernel's minimal BTF, for
 * bpf_object_open_opts.btf_custom_path.
 * Built once per process into a memfd. Return: the path, or NULL where it
 * cannot be built (then let libbpf read the whole vmlinux BTF).
 */
const char *pp_bpf_core_btf(void)
{
	static char path[64];
	static int state;	/* 0 not tried, 1 built, -1 failed */
	struct pp_buf b;
	void *data = MAP_FAILED;
	struct stat st;
	int fd, mfd = -1;

	if (state)
		return state > 0 ? path : NULL;
	state = -1;
	fd = open("/sys/kernel/btf/vmlinux", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (!fstat(fd, &st) && st.st_size > 0)
		data = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	pp_buf__init(&b);
	if (data == MAP_FAILED) {
		/* Kernels before 6.16 cannot map it: read it. */
		char tmp[65536];
		ssize_t r;

		while ((r = read(fd, tmp, sizeof(tmp))) > 0)
			pp_buf__append(&b, tmp, (size_t)r);
		close(fd);
		if (r < 0 || b.error) {
			pp_buf__exit(&b);
			return NULL;
		}
		data = b.data;
		st.st_size = (off_t)b.len;
		b.data = NULL;
		b.len = b.cap = 0;
		fd = -1;
	}
	if (!pp_bpf_min_btf(data, (size_t)st.st_size, &b)) {
		mfd = memfd_create("pp-min-btf", MFD_CLOEXEC);
		if (mfd >= 0 && write(mfd, b.data, b.len) == (ssize_t)b.len) {
			snprintf(path, sizeof(path), "/proc/self/fd/%d", mfd);
			state = 1;
		} else if (mfd >= 0) {
			close(mfd);
		}
	}
	if (fd >= 0) {
		munmap(data, (size_t)st.st_size);
		close(fd);
	} else {
		free(data);
	}
	pp_buf__exit(&b);
	return state > 0 ? path : NULL;
}

/** pp_bpf_core_opts() - point @opts at the minimal BTF when there is one. */
void pp_bpf_core_opts(struct bpf_object_open_opts *opts)
{
	opts->btf_custom_path = pp_bpf_core_btf();
}
