// SPDX-License-Identifier: MIT
/*
 * BPF output records printed field by field from the BTF stored in the
 * trace (see btf-print.h). The BTF is hostile input: libbpf's btf__new()
 * checks that type ids and names are in bounds; this file bounds the rest:
 * the depth of nesting and of typedef chains, the number of array elements
 * printed, the total work of one record (members, elements and enum values
 * looked at: nested arrays of structs multiply), and every read against the
 * record size.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>

#include "pp/bpf.h"
#include "pp/meta.h"
#include "btf-print.h"

#define MAX_DEPTH	8		/* nested structs/arrays */
#define MAX_CHAIN	16		/* typedef/const/volatile links */
#define MAX_ELEMS	64		/* array elements printed */
#define MAX_WORK	4096		/* values and enum entries looked at per record */

struct pp_btf_fmt {
	struct btf *btf;
	int big;			/* producer is big endian */
	uint32_t type_id;
	size_t size;
	char type_name[80];
};

/* Output: snprintf semantics, never past @len. */
struct pout {
	int big;
	char *buf;
	size_t len, pos;
	int short_rec;
	unsigned int work;		/* MAX_WORK: then "..." and nothing more */
};


static void out_mem(struct pout *o, const char *s, size_t n)
{
	if (o->pos < o->len) {
		size_t room = o->len - o->pos;

		memcpy(o->buf + o->pos, s, n < room ? n : room);
	}
	o->pos += n;
}

static void out_str(struct pout *o, const char *s)
{
	out_mem(o, s, strlen(s));
}

/* Spend @n of the record's work; 0 once spent ("..." printed once). */
static int spend(struct pout *o, unsigned int n)
{
	if (o->work >= MAX_WORK)
		return 0;
	o->work += n;
	if (o->work < MAX_WORK)
		return 1;
	out_mem(o, "...", 3);
	return 0;
}

/* @how: 'd' signed, 'u' unsigned, 'x' hex with 0x. */
static void out_num(struct pout *o, int how, unsigned long long v)
{
	char t[32];
	int n;

	if (how == 'd')
		n = snprintf(t, sizeof(t), "%lld", (long long)v);
	else if (how == 'x')
		n = snprintf(t, sizeof(t), "0x%llx", v);
	else
		n = snprintf(t, sizeof(t), "%llu", v);
	if (n > 0)
		out_mem(o, t, (size_t)n);
}

/* Skip typedefs and qualifiers. Return: the type, or NULL (loop, bad id). */
static const struct btf_type *resolve(const struct btf *btf, uint32_t id, uint32_t *out_id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	for (int i = 0; t && i < MAX_CHAIN; i++) {
		switch (btf_kind(t)) {
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_CONST:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG:
			id = t->type;
			t = btf__type_by_id(btf, id);
			break;
		default:
			if (out_id)
				*out_id = id;
			return t;
		}
	}
	return NULL;
}

/*
 * An integer of @n bytes (at most 8) in the producer's byte order, which
 * the BTF header tells (libbpf reads BTF of either order).
 */
static unsigned long long load(const uint8_t *p, size_t n, int big)
{
	unsigned long long v = 0;

	if (n > 8)
		n = 8;
	for (size_t i = 0; i < n; i++) {
		if (big)
			v = v << 8 | p[i];
		else
			v |= (unsigned long long)p[i] << (8 * i);
	}
	return v;
}

/* A name from the string section; "?" when the offset is bad. */
static const char *bname(const struct btf *btf, uint32_t off)
{
	const char *s = btf__name_by_offset(btf, off);

	return s ? s : "?";
}

static void put_char(struct pout *o, unsigned char c)
{
	if (c >= 0x20 && c < 0x7f && c != '\\') {
		char ch = (char)c;

		out_mem(o, &ch, 1);
	} else {
		char t[8];

		snprintf(t, sizeof(t), "\\x%02x", c);
		out_str(o, t);
	}
}

static int is_char_type(const struct btf *btf, uint32_t id)
{
	const struct btf_type *t = resolve(btf, id, NULL);

	return t && btf_is_int(t) && t->size == 1 &&
	       (btf_int_encoding(t) & BTF_INT_CHAR || btf_int_bits(t) == 8);
}

static void print_type(const struct pp_btf_fmt *f, struct pout *o, uint32_t id,
		       const uint8_t *rec, size_t size, size_t off, int depth);

static void print_int(struct pout *o, const struct btf_type *t, const uint8_t *p,
		      unsigned int bit_off, unsigned int bits)
{
	unsigned int enc = btf_int_encoding(t);
	unsigned long long v;

	if (t->size > 8) {		/* __int128: hex, low word last */
		unsigned long long lo = load(p + (o->big ? 8 : 0), 8, o->big),
				   hi = load(p + (o->big ? 0 : 8), 8, o->big);
		char buf[48];

		snprintf(buf, sizeof(buf), "0x%llx%016llx", hi, lo);
		out_str(o, buf);
		return;
	}
	v = load(p, t->size, o->big);
	if (!bits)
		bits = btf_int_bits(t);
	bit_off += btf_int_offset(t);
	if (bit_off + bits > t->size * 8u) {
		out_mem(o, "?", 1);
		return;
	}
	if (o->big)		/* bit offsets count from the most significant end */
		bit_off = t->size * 8u - bit_off - bits;
	if (bits < 64) {
		v >>= bit_off;
		v &= (1ULL << bits) - 1;
		if (enc & BTF_INT_SIGNED && bits && v >> (bits - 1))
			v |= ~0ULL << bits;
	}
	if (enc & BTF_INT_BOOL)
		out_str(o, v ? "true" : "false");
	else if (enc & BTF_INT_SIGNED)
		out_num(o, 'd', v);
	else
		out_num(o, 'u', v);
}

static void print_enum(const struct btf *btf, struct pout *o, const struct btf_type *t,
		       const uint8_t *p)
{
	unsigned long long v = load(p, t->size, o->big);
	int sign = btf_kflag(t);
	unsigned short n = btf_vlen(t);

	if (t->size < 8 && sign && t->size && v >> (t->size * 8 - 1))
		v |= ~0ULL << (t->size * 8);
	if (!spend(o, n / 16u))		/* a search of up to 65535 names */
		return;
	if (btf_is_enum(t)) {
		const struct btf_enum *e = btf_enum(t);

		for (unsigned short i = 0; i < n; i++)
			if ((unsigned long long)(long long)(int)e[i].val == v ||
			    (unsigned long long)(uint32_t)e[i].val == v) {
				out_str(o, bname(btf, e[i].name_off));
				return;
			}
	} else {
		const struct btf_enum64 *e = btf_enum64(t);

		for (unsigned short i = 0; i < n; i++)
			if (btf_enum64_value(&e[i]) == v) {
				out_str(o, bname(btf, e[i].name_off));
				return;
			}
	}
	out_num(o, sign ? 'd' : 'u', v);
}

static void print_members(const struct pp_btf_fmt *f, struct pout *o, const struct btf_type *t,
			  const uint8_t *rec, size_t size, size_t off, int depth)
{
	const struct btf_member *m = btf_members(t);
	unsigned short n = btf_vlen(t);

	for (unsigned short i = 0; i < n; i++) {
		const char *name;

		if (!spend(o, 1))
			return;
		name = bname(f->btf, m[i].name_off);
		unsigned int boff = btf_member_bit_offset(t, i), bsz = btf_member_bitfield_size(t, i);
		const struct btf_type *mt = resolve(f->btf, m[i].type, NULL);

		if (i)
			out_mem(o, " ", 1);
		out_str(o, name && *name ? name : "(anon)");
		out_mem(o, "=", 1);
		if (bsz && mt && btf_is_int(mt)) {
			size_t at = off + boff / 8;

			if (at + mt->size > size || mt->size > 8) {
				out_mem(o, "?", 1);
				o->short_rec = 1;
				continue;
			}
			/* bit field: read the container at the byte, shift inside */
			print_int(o, mt, rec + at, boff % 8, bsz);
			continue;
		}
		print_type(f, o, m[i].type, rec, size, off + boff / 8, depth + 1);
	}
}

static void print_type(const struct pp_btf_fmt *f, struct pout *o, uint32_t id,
		       const uint8_t *rec, size_t size, size_t off, int depth)
{
	const struct btf_type *t = resolve(f->btf, id, &id);
	__s64 tsz;

	if (!spend(o, 1))
		return;
	if (!t || depth > MAX_DEPTH) {
		out_mem(o, "?", 1);
		return;
	}
	tsz = btf__resolve_size(f->btf, id);
	if (tsz < 0 || off > size || (size_t)tsz > size - off) {
		out_mem(o, "?", 1);
		o->short_rec = 1;
		return;
	}
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
		print_int(o, t, rec + off, 0, 0);
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		print_enum(f->btf, o, t, rec + off);
		break;
	case BTF_KIND_PTR:
		out_num(o, 'x', load(rec + off, (size_t)tsz, o->big));
		break;
	case BTF_KIND_FLOAT: {
		char b[48];

		if (t->size == 4) {
			float v;

			memcpy(&v, rec + off, 4);
			snprintf(b, sizeof(b), "%g", (double)v);
		} else if (t->size == 8) {
			double v;

			memcpy(&v, rec + off, 8);
			snprintf(b, sizeof(b), "%g", v);
		} else {
			snprintf(b, sizeof(b), "?");
		}
		out_str(o, b);
		break;
	}
	case BTF_KIND_ARRAY: {
		const struct btf_array *a = btf_array(t);
		__s64 esz = btf__resolve_size(f->btf, a->type);

		if (esz <= 0) {
			out_mem(o, "?", 1);
			break;
		}
		if (is_char_type(f->btf, a->type)) {
			for (uint32_t i = 0; i < a->nelems && rec[off + i]; i++)
				put_char(o, rec[off + i]);
			break;
		}
		out_mem(o, "[", 1);
		for (uint32_t i = 0; i < a->nelems; i++) {
			if (i == MAX_ELEMS) {
				out_str(o, ",...");
				break;
			}
			if (o->work >= MAX_WORK)
				break;
			if (i)
				out_mem(o, ",", 1);
			print_type(f, o, a->type, rec, size, off + (size_t)esz * i, depth + 1);
		}
		out_mem(o, "]", 1);
		break;
	}
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		if (depth)
			out_mem(o, "{", 1);
		print_members(f, o, t, rec, size, off, depth);
		if (depth)
			out_mem(o, "}", 1);
		break;
	default:
		out_mem(o, "?", 1);
		break;
	}
}

/**
 * pp_btf_fmt__new() - a decoder for records of type @type_id.
 * @btf_data, @size: raw BTF; @type_id: record type; @err, @errlen: message.
 * Return: the decoder, or NULL with errno set.
 */
struct pp_btf_fmt *pp_btf_fmt__new(const void *btf_data, size_t size, uint32_t type_id,
				   char *err, size_t errlen)
{
	struct pp_btf_fmt *f = calloc(1, sizeof(*f));
	const struct btf_type *t;
	const char *name;
	uint32_t id;
	__s64 sz;

	if (!f) {
		snprintf(err, errlen, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	if (size < 24 || size > (64u << 20)) {
		snprintf(err, errlen, "BTF of %zu bytes", size);
		goto bad;
	}
	f->btf = btf__new(btf_data, (__u32)size);
	if (!f->btf) {
		snprintf(err, errlen, "malformed BTF (%s)", strerror(errno));
		goto bad;
	}
	f->big = btf__endianness(f->btf) == BTF_BIG_ENDIAN;
	t = resolve(f->btf, type_id, &id);
	if (!t || !(btf_is_struct(t) || btf_is_union(t))) {
		snprintf(err, errlen, "BTF type %u is not a struct or union", type_id);
		goto bad;
	}
	sz = btf__resolve_size(f->btf, id);
	if (sz <= 0) {
		snprintf(err, errlen, "BTF type %u has no size", type_id);
		goto bad;
	}
	f->type_id = id;
	f->size = (size_t)sz;
	name = bname(f->btf, t->name_off);
	snprintf(f->type_name, sizeof(f->type_name), "%s %s", btf_is_union(t) ? "union" : "struct",
		 name && *name ? name : "(anon)");
	return f;
bad:
	pp_btf_fmt__free(f);
	errno = EINVAL;
	return NULL;
}

/**
 * pp_btf_fmt__print() - format one record as name=value pairs.
 * @f: decoder; @rec, @size: the record; @buf, @len: output.
 * Return: length of the full text, or -EINVAL if the record is short.
 */
int pp_btf_fmt__print(const struct pp_btf_fmt *f, const void *rec, size_t size, char *buf,
		      size_t len)
{
	struct pout o = { .big = f->big, .buf = buf, .len = len ? len - 1 : 0 };
	const struct btf_type *t = btf__type_by_id(f->btf, f->type_id);

	if (size >= f->size)
		print_members(f, &o, t, rec, size, 0, 0);
	else {
		o.short_rec = 1;
		print_members(f, &o, t, rec, size, 0, 0);
	}
	if (len)
		buf[o.pos < len - 1 ? o.pos : len - 1] = '\0';
	if (o.short_rec)
		return -EINVAL;
	return o.pos > 0x7fffffff ? 0x7fffffff : (int)o.pos;
}

/** pp_btf_fmt__record_size() - bytes of the record struct. @f: decoder. */
size_t pp_btf_fmt__record_size(const struct pp_btf_fmt *f)
{
	return f->size;
}

/** pp_btf_fmt__type_name() - "struct NAME". @f: decoder. */
const char *pp_btf_fmt__type_name(const struct pp_btf_fmt *f)
{
	return f->type_name;
}

/** pp_btf_fmt__free() - free; accepts NULL. @f: decoder. */
void pp_btf_fmt__free(struct pp_btf_fmt *f)
{
	if (!f)
		return;
	btf__free(f->btf);
	free(f);
}

/**
 * pp_btf_fmts__add_item() - add the decoder of a PP_FMT_BTF item.
 * @set: the set; @item: FORMATS item; @err, @errlen: message.
 * Return: 0 or -errno.
 */
int pp_btf_fmts__add_item(struct pp_btf_fmts *set, const struct pp_item *item, char *err,
			  size_t errlen)
{
	const char *sys, *name, *text;
	const uint8_t *btf;
	struct pp_btf_fmts_entry *nv;
	struct pp_btf_fmt *f;
	uint32_t type_id, btf_size;
	struct pp_cur c;
	char full[128];

	if (item->kind != PP_FMT_BTF)
		return 0;
	pp_cur__init(&c, item->body, item->size);
	if (pp_cur__str(&c, &sys) || pp_cur__str(&c, &name) || pp_cur__str(&c, &text) ||
	    pp_cur__align(&c, 8) || pp_cur__u32(&c, &type_id) || pp_cur__u32(&c, &btf_size) ||
	    pp_cur__bytes(&c, &btf, btf_size)) {
		snprintf(err, errlen, "malformed BTF format item");
		return -EINVAL;
	}
	if ((size_t)snprintf(full, sizeof(full), "%s:%s", sys, name) >= sizeof(full)) {
		snprintf(err, errlen, "BTF format item: name too long");
		return -EINVAL;
	}
	if (pp_btf_fmts__find(set, full))
		return 0;
	f = pp_btf_fmt__new(btf, btf_size, type_id, err, errlen);
	if (!f)
		return -errno;
	nv = realloc(set->v, (set->nr + 1) * sizeof(*nv));
	if (!nv) {
		pp_btf_fmt__free(f);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	set->v = nv;
	snprintf(nv[set->nr].name, sizeof(nv[set->nr].name), "%s", full);
	nv[set->nr].f = f;
	set->nr++;
	return 0;
}

/**
 * pp_btf_fmts__find() - the decoder of event @name, or NULL.
 * @set: the set; @name: "bpf-output:NAME".
 */
const struct pp_btf_fmt *pp_btf_fmts__find(const struct pp_btf_fmts *set, const char *name)
{
	for (size_t i = 0; i < set->nr; i++)
		if (!strcmp(set->v[i].name, name))
			return set->v[i].f;
	return NULL;
}

/** pp_btf_fmts__exit() - free the decoders. @set: the set. */
void pp_btf_fmts__exit(struct pp_btf_fmts *set)
{
	for (size_t i = 0; i < set->nr; i++)
		pp_btf_fmt__free(set->v[i].f);
	free(set->v);
	memset(set, 0, sizeof(*set));
}
