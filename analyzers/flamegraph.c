// SPDX-License-Identifier: MIT
/*
 * Flame graphs: interned frames and stacks, folded output, and an
 * interactive SVG written from scratch.
 *
 * Storage: frame names live in one string pool, found through an
 * open-addressing hash table of frame ids. A stack is a run of frame ids in
 * one id pool, found through a second hash table. Adding a known stack
 * hashes and compares only; growth is amortised doubling.
 *
 * Rendering: the stacks are sorted by frame names, so stacks sharing a
 * prefix are neighbours; one pass over them opens and closes frames like a
 * depth-first walk of the merged tree, giving each frame its [start, width)
 * in weight units. The SVG carries those units (data-s, data-w) so the
 * script can zoom without recomputing the layout.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph.h"

#define FG_MAX_DEPTH	1024
#define FG_UNKNOWN	"[unknown]"

struct fg_stack {
	uint32_t start;		/* first frame id in fg->ids */
	uint32_t nr;
	uint64_t weight;
	uint64_t before;	/* differential: the base profile's weight */
	uint32_t hash;
	uint32_t sliced;	/* ids[start] is a slice label */
};

struct pp_flame {
	/* frames */
	char *pool;
	size_t pool_len, pool_cap;
	uint32_t *frame_off;	/* id -> offset in pool */
	uint32_t *frame_hash;
	uint32_t nr_frames, frames_cap;
	uint32_t *frame_tab;	/* id + 1, 0 = empty */
	uint32_t frame_tab_size;	/* power of two */
	/* stacks */
	uint32_t *ids;
	size_t nr_ids, ids_cap;
	struct fg_stack *stacks;
	uint32_t nr_stacks, stacks_cap;
	uint32_t *stack_tab;
	uint32_t stack_tab_size;
	uint64_t total;
	uint64_t total_before;	/* differential: sum of the stacks' before weights */
	int diff;		/* made by pp_flame__diff(): stacks have two weights */
	/* scratch for one incoming stack */
	uint32_t tmp[FG_MAX_DEPTH + 1];
	int has_slice;
	uint32_t slice_id;
};

static uint32_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a */

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
	}
	return (uint32_t)(h ^ (h >> 32));
}

static uint32_t hash_ids(const uint32_t *ids, size_t nr, int sliced)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ (uint64_t)sliced;
	size_t i;

	for (i = 0; i < nr; i++) {
		h ^= ids[i];
		h *= 0xff51afd7ed558ccdull;
		h ^= h >> 29;
	}
	return (uint32_t)(h ^ (h >> 32));
}

/* Grow *@arr so it holds @need elements of @size bytes (flamegraph.h). */
int pp_grow_from(void **arr, size_t *cap, size_t need, size_t size, size_t first)
{
	size_t ncap = *cap ? *cap : first;
	void *p;

	if (need <= *cap)
		return 0;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2 / size)
			return -ENOMEM;
		ncap *= 2;
	}
	p = realloc(*arr, ncap * size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

/* pp_grow_from() from 64 elements (flamegraph.h). */
int pp_grow(void **arr, size_t *cap, size_t need, size_t size)
{
	return pp_grow_from(arr, cap, need, size, 64);
}

static int grow32(void **arr, uint32_t *cap, size_t need, size_t size)
{
	size_t c = *cap;
	int err;

	if (need > UINT32_MAX / 2)
		return -ENOMEM;
	err = pp_grow(arr, &c, need, size);
	*cap = (uint32_t)c;
	return err;
}

struct pp_flame *pp_flame__new(void)
{
	struct pp_flame *fg = calloc(1, sizeof(*fg));

	if (!fg)
		return NULL;
	fg->frame_tab_size = 1024;
	fg->stack_tab_size = 1024;
	fg->frame_tab = calloc(fg->frame_tab_size, sizeof(uint32_t));
	fg->stack_tab = calloc(fg->stack_tab_size, sizeof(uint32_t));
	if (!fg->frame_tab || !fg->stack_tab) {
		pp_flame__free(fg);
		errno = ENOMEM;
		return NULL;
	}
	return fg;
}

void pp_flame__free(struct pp_flame *fg)
{
	if (!fg)
		return;
	free(fg->pool);
	free(fg->frame_off);
	free(fg->frame_hash);
	free(fg->frame_tab);
	free(fg->ids);
	free(fg->stacks);
	free(fg->stack_tab);
	free(fg);
}

static inline const char *frame_name(const struct pp_flame *fg, uint32_t id)
{
	return fg->pool + fg->frame_off[id];
}

static uint32_t frame_hash_of(const struct pp_flame *fg, uint32_t id)
{
	return fg->frame_hash[id];
}

static uint32_t stack_hash_of(const struct pp_flame *fg, uint32_t id)
{
	return fg->stacks[id].hash;
}

/*
 * Double a table of id+1 entries. On failure the old table stays valid,
 * only fuller than planned, so callers may ignore the error.
 */
static int rehash(struct pp_flame *fg, uint32_t **tab, uint32_t *size, uint32_t nr,
		  uint32_t (*hash_of)(const struct pp_flame *, uint32_t))
{
	uint32_t nsize = *size * 2, i, j, *ntab;

	if (nsize < *size)
		return -ENOMEM;
	ntab = calloc(nsize, sizeof(*ntab));
	if (!ntab)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		j = hash_of(fg, i) & (nsize - 1);
		while (ntab[j])
			j = (j + 1) & (nsize - 1);
		ntab[j] = i + 1;
	}
	free(*tab);
	*tab = ntab;
	*size = nsize;
	return 0;
}

/* Id of frame @name, added if new; -ENOMEM on failure. */
static int64_t frame_intern(struct pp_flame *fg, const char *name)
{
	uint32_t h, j, id;
	size_t len;

	if (!name || !*name)
		name = FG_UNKNOWN;
	h = hash_str(name);
	for (j = h & (fg->frame_tab_size - 1); fg->frame_tab[j];
	     j = (j + 1) & (fg->frame_tab_size - 1)) {
		id = fg->frame_tab[j] - 1;
		if (fg->frame_hash[id] == h && !strcmp(frame_name(fg, id), name))
			return id;
	}
	len = strlen(name) + 1;
	/* keep one empty slot so probing ends, even after a failed rehash */
	if (fg->nr_frames + 2 > fg->frame_tab_size || fg->pool_len + len > UINT32_MAX)
		return -ENOMEM;
	if (pp_grow((void **)&fg->pool, &fg->pool_cap, fg->pool_len + len, 1))
		return -ENOMEM;
	if (fg->nr_frames + 1 > fg->frames_cap) {
		uint32_t cap = fg->frames_cap;

		if (grow32((void **)&fg->frame_off, &cap, fg->nr_frames + 1, sizeof(uint32_t)))
			return -ENOMEM;
		cap = fg->frames_cap;
		if (grow32((void **)&fg->frame_hash, &cap, fg->nr_frames + 1, sizeof(uint32_t)))
			return -ENOMEM;
		fg->frames_cap = cap;
	}
	id = fg->nr_frames++;
	memcpy(fg->pool + fg->pool_len, name, len);
	fg->frame_off[id] = (uint32_t)fg->pool_len;
	fg->frame_hash[id] = h;
	fg->pool_len += len;
	fg->frame_tab[j] = id + 1;
	if (fg->nr_frames * 2 > fg->frame_tab_size)
		rehash(fg, &fg->frame_tab, &fg->frame_tab_size, fg->nr_frames, frame_hash_of);
	return id;
}

int pp_flame__set_slice(struct pp_flame *fg, const char *label)
{
	int64_t id;

	if (!label) {
		fg->has_slice = 0;
		return 0;
	}
	id = frame_intern(fg, label);
	if (id < 0)
		return (int)id;
	fg->has_slice = 1;
	fg->slice_id = (uint32_t)id;
	return 0;
}

int64_t pp_flame__intern(struct pp_flame *fg, const char *name)
{
	return frame_intern(fg, name);
}

/* Add @weight (and @before) to the stack of the @n ids in fg->tmp. */
static int add_tmp(struct pp_flame *fg, uint32_t n, uint64_t weight, uint64_t before);

int pp_flame__add(struct pp_flame *fg, const char *const *frames, size_t nr, uint64_t weight)
{
	uint32_t n = 0;
	int64_t id;
	size_t i;

	if (!weight)
		return 0;
	if (nr > FG_MAX_DEPTH)
		nr = FG_MAX_DEPTH;
	if (fg->has_slice)
		fg->tmp[n++] = fg->slice_id;
	for (i = 0; i < nr; i++) {
		id = frame_intern(fg, frames[i]);
		if (id < 0)
			return (int)id;
		fg->tmp[n++] = (uint32_t)id;
	}
	return add_tmp(fg, n, weight, 0);
}

int pp_flame__add_ids(struct pp_flame *fg, const uint32_t *ids, size_t nr, uint64_t weight)
{
	uint32_t n = 0;

	if (!weight)
		return 0;
	if (nr > FG_MAX_DEPTH)
		nr = FG_MAX_DEPTH;
	if (fg->has_slice)
		fg->tmp[n++] = fg->slice_id;
	memcpy(fg->tmp + n, ids, nr * sizeof(*ids));
	return add_tmp(fg, n + (uint32_t)nr, weight, 0);
}

static int add_tmp(struct pp_flame *fg, uint32_t n, uint64_t weight, uint64_t before)
{
	uint32_t h, j, sid;
	struct fg_stack *st;

	h = hash_ids(fg->tmp, n, fg->has_slice);
	for (j = h & (fg->stack_tab_size - 1); fg->stack_tab[j];
	     j = (j + 1) & (fg->stack_tab_size - 1)) {
		st = &fg->stacks[fg->stack_tab[j] - 1];
		if (st->hash == h && st->nr == n && st->sliced == (uint32_t)fg->has_slice &&
		    !memcmp(fg->ids + st->start, fg->tmp, n * sizeof(uint32_t))) {
			st->weight += weight;
			st->before += before;
			fg->total += weight;
			fg->total_before += before;
			return 0;
		}
	}
	if (fg->nr_stacks + 2 > fg->stack_tab_size || fg->nr_ids + n > UINT32_MAX ||
	    pp_grow((void **)&fg->ids, &fg->ids_cap, fg->nr_ids + n, sizeof(uint32_t)) ||
	    grow32((void **)&fg->stacks, &fg->stacks_cap, fg->nr_stacks + 1, sizeof(*fg->stacks)))
		return -ENOMEM;
	sid = fg->nr_stacks++;
	st = &fg->stacks[sid];
	st->start = (uint32_t)fg->nr_ids;
	st->nr = n;
	st->weight = weight;
	st->before = before;
	st->hash = h;
	st->sliced = (uint32_t)fg->has_slice;
	memcpy(fg->ids + fg->nr_ids, fg->tmp, n * sizeof(uint32_t));
	fg->nr_ids += n;
	fg->total += weight;
	fg->total_before += before;
	fg->stack_tab[j] = sid + 1;
	if (fg->nr_stacks * 2 > fg->stack_tab_size)
		rehash(fg, &fg->stack_tab, &fg->stack_tab_size, fg->nr_stacks, stack_hash_of);
	return 0;
}

void pp_flame__reset(struct pp_flame *fg)
{
	memset(fg->stack_tab, 0, fg->stack_tab_size * sizeof(uint32_t));
	fg->nr_stacks = 0;
	fg->nr_ids = 0;
	fg->total = 0;
	fg->total_before = 0;
}

uint64_t pp_flame__total(const struct pp_flame *fg)
{
	return fg->total;
}

uint64_t pp_flame__total_before(const struct pp_flame *fg)
{
	return fg->total_before;
}

/* Add every stack of @src to @dst as before (@as_before) or after weights, scaled by @num/@den. */
static int merge_side(struct pp_flame *dst, const struct pp_flame *src, int as_before,
		      uint64_t num, uint64_t den)
{
	for (uint32_t i = 0; i < src->nr_stacks; i++) {
		const struct fg_stack *st = &src->stacks[i];
		uint64_t w = st->weight;
		int err;

		for (uint32_t k = 0; k < st->nr; k++) {
			int64_t id = frame_intern(dst, frame_name(src, src->ids[st->start + k]));

			if (id < 0)
				return (int)id;
			dst->tmp[k] = (uint32_t)id;
		}
		if (den && num != den)	/* rounded to the nearest */
			w = (uint64_t)(((unsigned __int128)w * num + den / 2) / den);
		dst->has_slice = (int)st->sliced;
		err = add_tmp(dst, st->nr, as_before ? 0 : w, as_before ? w : 0);
		dst->has_slice = 0;
		if (err)
			return err;
	}
	return 0;
}

struct pp_flame *pp_flame__diff(const struct pp_flame *base, const struct pp_flame *cur, int normalize)
{
	struct pp_flame *d = pp_flame__new();
	int err;

	if (!d)
		return NULL;
	d->diff = 1;
	err = merge_side(d, cur, 0, 1, 1);
	if (!err)
		err = normalize && base->total ? merge_side(d, base, 1, cur->total, base->total)
					       : merge_side(d, base, 1, 1, 1);
	if (err) {
		pp_flame__free(d);
		errno = -err;
		return NULL;
	}
	return d;
}

/* Folded lines are built in one buffer and written a block at a time. */
struct fold_out {
	FILE *fp;
	size_t n;
	char buf[64 * 1024];
};

static void fold_flush(struct fold_out *f)
{
	if (f->n)
		fwrite(f->buf, 1, f->n, f->fp);
	f->n = 0;
}

static void fold_put(struct fold_out *f, const char *s, size_t len)
{
	while (len) {
		size_t k = sizeof(f->buf) - f->n;

		if (!k) {
			fold_flush(f);
			k = sizeof(f->buf);
		}
		if (k > len)
			k = len;
		memcpy(f->buf + f->n, s, k);
		f->n += k;
		s += k;
		len -= k;
	}
}

/* A frame name in folded form: ';' and line breaks would split the line. */
static void fold_name(struct fold_out *f, const char *s)
{
	for (;;) {
		size_t run = strcspn(s, ";\n\r");

		fold_put(f, s, run);
		s += run;
		if (!*s)
			return;
		fold_put(f, *s == ';' ? ":" : " ", 1);
		s++;
	}
}

int pp_flame__write_folded(const struct pp_flame *fg, FILE *fp)
{
	struct fold_out *f = malloc(sizeof(*f));
	const struct fg_stack *st;
	uint32_t i, k;

	if (!f)
		return -ENOMEM;
	f->fp = fp;
	f->n = 0;
	for (i = 0; i < fg->nr_stacks; i++) {
		char num[24], *e = num + sizeof(num), *d = e;
		uint64_t w;

		st = &fg->stacks[i];
		if (!st->nr)
			fold_put(f, FG_UNKNOWN, sizeof(FG_UNKNOWN) - 1);
		for (k = 0; k < st->nr; k++) {
			if (k)
				fold_put(f, ";", 1);
			fold_name(f, frame_name(fg, fg->ids[st->start + k]));
		}
		if (st->sliced && st->nr == 1)
			fold_put(f, ";" FG_UNKNOWN, sizeof(";" FG_UNKNOWN) - 1);
		*--d = '\n';
		w = st->weight;
		do {
			*--d = (char)('0' + w % 10);
			w /= 10;
		} while (w);
		*--d = ' ';
		if (fg->diff) {		/* "stack before after", as difffolded.pl writes */
			w = st->before;
			do {
				*--d = (char)('0' + w % 10);
				w /= 10;
			} while (w);
			*--d = ' ';
		}
		fold_put(f, d, (size_t)(e - d));
	}
	fold_flush(f);
	free(f);
	return ferror(fp) ? -EIO : 0;
}

int pp_flame__stack(const struct pp_flame *fg, size_t i, const char **frames, size_t max,
		    const char **slice, uint64_t *weight)
{
	const struct fg_stack *st;
	uint32_t k, first;

	if (i >= fg->nr_stacks)
		return -ENOENT;
	st = &fg->stacks[i];
	first = st->sliced && st->nr ? 1 : 0;
	*slice = first ? frame_name(fg, fg->ids[st->start]) : NULL;
	*weight = st->weight;
	for (k = first; k < st->nr && k - first < max; k++)
		frames[k - first] = frame_name(fg, fg->ids[st->start + k]);
	return (int)(st->nr - first);
}

/* ---- SVG ---- */

#define SVG_FRAME_H	16
#define SVG_FONT	12
#define SVG_PAD		10
#define SVG_TOP		54	/* title, subtitle, buttons */
#define SVG_BOTTOM	28	/* details line */
#define SVG_CHAR_W	(SVG_FONT * 0.59)
#define SVG_MIN_PX	0.1

enum fg_kind { FG_ROOT, FG_SLICE, FG_COMM, FG_KERNEL, FG_USER };

struct fg_node {
	uint32_t frame;		/* UINT32_MAX for the root "all" */
	uint32_t depth;		/* 0 = root */
	uint64_t start, width;
	uint64_t before;	/* differential: the base's weight of the frame */
	enum fg_kind kind;
};

/* Length of the valid UTF-8 sequence at @s that XML accepts, 0 if none. */
static size_t utf8_seq(const unsigned char *s)
{
	unsigned char c = s[0];

	if (c < 0x80)
		return (c >= 0x20 || c == '\t') ? 1 : 0;
	if (c >= 0xc2 && c <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80)
			return 0;
		if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0))
			return 0;	/* overlong, surrogate */
		if (c == 0xef && s[1] == 0xbf && s[2] >= 0xbe)
			return 0;	/* U+FFFE, U+FFFF */
		return 3;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 || (s[3] & 0xc0) != 0x80)
			return 0;
		if ((c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] >= 0x90))
			return 0;
		return 4;
	}
	return 0;
}

/*
 * Write at most @max characters of @s, XML-escaped; invalid UTF-8 and
 * control characters become '?'. Return the number of characters of @s
 * left unwritten.
 */
static size_t put_xml_n(FILE *fp, const char *str, size_t max)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = 0, len;

	while (*s) {
		if (n == max) {
			size_t rest = 0;

			for (; *s; s++)
				rest += (*s & 0xc0) != 0x80;
			return rest;
		}
		switch (*s) {
		case '<': fputs("&lt;", fp); len = 1; break;
		case '>': fputs("&gt;", fp); len = 1; break;
		case '&': fputs("&amp;", fp); len = 1; break;
		case '"': fputs("&quot;", fp); len = 1; break;
		case '\'': fputs("&apos;", fp); len = 1; break;
		default:
			len = utf8_seq(s);
			if (!len) {
				fputc('?', fp);
				len = 1;
			} else {
				fwrite(s, 1, len, fp);
			}
		}
		s += len;
		n++;
	}
	return 0;
}

void pp_xml_put(FILE *fp, const char *s)
{
	put_xml_n(fp, s, SIZE_MAX);
}

/* Characters in @s, counting a UTF-8 sequence (or stray byte) as one. */
static size_t nr_chars(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = 0;

	for (; *s; s++)
		n += (*s & 0xc0) != 0x80;
	return n;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !memcmp(s + a - b, suffix, b);
}

static void kind_colour(enum fg_kind kind, const char *name, char *buf, size_t len)
{
	uint32_t h = hash_str(name);
	unsigned int a = h & 0xff, b = (h >> 8) & 0xff, c = (h >> 16) & 0xff;

	switch (kind) {
	case FG_ROOT:
		snprintf(buf, len, "rgb(200,200,200)");
		break;
	case FG_SLICE:
		snprintf(buf, len, "rgb(%u,%u,%u)", 185 + a % 30, 185 + a % 30, 195 + a % 30);
		break;
	case FG_COMM:
		snprintf(buf, len, "rgb(%u,%u,%u)", 80 + a % 60, 150 + b % 50, 215 + c % 40);
		break;
	case FG_KERNEL:
		snprintf(buf, len, "rgb(%u,%u,%u)", 235 + a % 20, 160 + b % 55, 40 + c % 40);
		break;
	case FG_USER:
		snprintf(buf, len, "rgb(%u,%u,%u)", 210 + a % 45, 50 + b % 90, c % 50);
		break;
	}
}

/*
 * Differential: red for a frame that grew, blue for one that shrank, the
 * more saturated the larger the change against the largest one; white when
 * it did not change (flamegraph.pl's colours for difffolded.pl input).
 */
static void diff_colour(int64_t delta, uint64_t max, char *buf, size_t len)
{
	unsigned int v = 255;
	uint64_t a = delta < 0 ? (uint64_t)-delta : (uint64_t)delta;

	if (max && a)
		v = (unsigned int)(210.0 * (double)(max - (a < max ? a : max)) / (double)max);
	if (delta > 0)
		snprintf(buf, len, "rgb(255,%u,%u)", v, v);
	else if (delta < 0)
		snprintf(buf, len, "rgb(%u,%u,255)", v, v);
	else
		snprintf(buf, len, "rgb(250,250,250)");
}

static void put_weight(FILE *fp, uint64_t w, const struct pp_flame_opts *o)
{
	char buf[32];

	if (o->unit == PP_UNIT_NS)
		fputs(pp_ns_format(buf, sizeof(buf), w), fp);
	else {
		fprintf(fp, "%llu ", (unsigned long long)w);
		pp_xml_put(fp, o->count_name);
	}
}

static int stack_cmp(const void *pa, const void *pb, void *arg)
{
	const struct pp_flame *fg = arg;
	const struct fg_stack *a = &fg->stacks[*(const uint32_t *)pa];
	const struct fg_stack *b = &fg->stacks[*(const uint32_t *)pb];
	uint32_t i, n = a->nr < b->nr ? a->nr : b->nr, fa, fb;
	int c;

	for (i = 0; i < n; i++) {
		fa = fg->ids[a->start + i];
		fb = fg->ids[b->start + i];
		if (fa == fb)
			continue;
		c = strcmp(frame_name(fg, fa), frame_name(fg, fb));
		if (c)
			return c;
	}
	return a->nr < b->nr ? -1 : a->nr > b->nr;
}

static enum fg_kind frame_kind(const struct pp_flame *fg, const struct fg_stack *st, uint32_t k)
{
	const char *name = frame_name(fg, fg->ids[st->start + k]);

	if (st->sliced && k == 0)
		return FG_SLICE;
	if (k == (st->sliced ? 1u : 0u))
		return FG_COMM;
	if (ends_with(name, "_[k]"))
		return FG_KERNEL;
	return FG_USER;
}

/* Lay out the merged tree: one node per visible frame, root first. */
static int layout(const struct pp_flame *fg, double px_per_unit, struct fg_node **out,
		  size_t *nr_out, uint32_t *max_depth)
{
	struct fg_node *nodes = NULL;
	size_t nr = 0, cap = 0;
	uint32_t *order, *open_frame = NULL, i, k, depth = 0, c;
	uint64_t *open_start = NULL, *open_bstart = NULL, x = 0, xb = 0;
	enum fg_kind *open_kind = NULL;
	int err = -ENOMEM;

	*max_depth = 0;
	order = malloc((fg->nr_stacks + 1) * sizeof(*order));
	open_frame = malloc((FG_MAX_DEPTH + 2) * sizeof(*open_frame));
	open_start = malloc((FG_MAX_DEPTH + 2) * sizeof(*open_start));
	open_kind = malloc((FG_MAX_DEPTH + 2) * sizeof(*open_kind));
	open_bstart = malloc((FG_MAX_DEPTH + 2) * sizeof(*open_bstart));
	if (!order || !open_frame || !open_start || !open_kind || !open_bstart)
		goto out;
	for (i = 0, c = 0; i < fg->nr_stacks; i++)
		if (fg->stacks[i].weight)
			order[c++] = i;
	qsort_r(order, c, sizeof(*order), stack_cmp, (void *)fg);

	if (pp_grow((void **)&nodes, &cap, 1, sizeof(*nodes)))
		goto out;
	nodes[nr++] = (struct fg_node){ UINT32_MAX, 0, 0, fg->total, 0, FG_ROOT };

	/* open_*[d] describe the open frame at depth d + 1; depth = how many are open */
	for (i = 0; i <= c; i++) {
		const struct fg_stack *st = i < c ? &fg->stacks[order[i]] : NULL;
		uint32_t common = 0, n = st ? st->nr : 0;

		while (st && common < depth && common < n &&
		       open_frame[common] == fg->ids[st->start + common])
			common++;
		while (depth > common) {
			depth--;
			if ((double)(x - open_start[depth]) * px_per_unit < SVG_MIN_PX)
				continue;
			if (pp_grow((void **)&nodes, &cap, nr + 1, sizeof(*nodes)))
				goto out;
			nodes[nr++] = (struct fg_node){ open_frame[depth], depth + 1,
							open_start[depth], x - open_start[depth],
							xb - open_bstart[depth], open_kind[depth] };
			if (depth + 1 > *max_depth)
				*max_depth = depth + 1;
		}
		if (!st)
			break;
		for (k = depth; k < n; k++) {
			open_frame[k] = fg->ids[st->start + k];
			open_start[k] = x;
			open_bstart[k] = xb;
			open_kind[k] = frame_kind(fg, st, k);
		}
		depth = n;
		x += st->weight;
		xb += st->before;
	}
	*out = nodes;
	*nr_out = nr;
	nodes = NULL;
	err = 0;
out:
	free(nodes);
	free(order);
	free(open_frame);
	free(open_start);
	free(open_kind);
	free(open_bstart);
	if (!err)
		(*out)[0].before = fg->total_before;	/* the root: every stack, vanished ones too */
	return err;
}

/* The script: hover details, click to zoom, regex search with matched share. */
static const char fg_script[] =
"var fg = { zs: 0, zw: 0, zd: 0, re: null };\n"
"function fg_init(evt) {\n"
"	var svg = document.documentElement;\n"
"	fg.W = +svg.getAttribute('data-width'); fg.total = +svg.getAttribute('data-total');\n"
"	fg.pad = +svg.getAttribute('data-pad'); fg.cw = +svg.getAttribute('data-charw');\n"
"	fg.details = document.getElementById('details');\n"
"	fg.matched = document.getElementById('matched');\n"
"	fg.unzoom = document.getElementById('unzoom');\n"
"	fg.frames = document.querySelectorAll('g.f');\n"
"	fg.zw = fg.total;\n"
"	for (var i = 0; i < fg.frames.length; i++) {\n"
"		var g = fg.frames[i], t = g.querySelector('title').textContent;\n"
"		g.fgname = t.substring(0, t.lastIndexOf(' ('));\n"
"		g.fgs = +g.getAttribute('data-s'); g.fgw = +g.getAttribute('data-w');\n"
"		g.fgd = +g.getAttribute('data-d');\n"
"		g.addEventListener('mouseover', function (e) { fg.details.textContent = this.querySelector('title').textContent; });\n"
"		g.addEventListener('mouseout', function (e) { fg.details.textContent = ' '; });\n"
"		g.addEventListener('click', function (e) { fg_zoom(this.fgs, this.fgw, this.fgd); });\n"
"	}\n"
"	fg.unzoom.addEventListener('click', function (e) { fg_zoom(0, fg.total, 0); });\n"
"	document.getElementById('search').addEventListener('click', function (e) { fg.re ? fg_clear() : fg_search(); });\n"
"	fg.matched.addEventListener('click', function (e) { fg_clear(); });\n"
"	window.addEventListener('keydown', function (e) {\n"
"		if ((e.ctrlKey || e.metaKey) && e.key === 'f') { e.preventDefault(); fg_search(); }\n"
"		else if (e.key === 'Escape') { fg_clear(); fg_zoom(0, fg.total, 0); }\n"
"	});\n"
"}\n"
"function fg_fit(g, w) {\n"
"	var text = g.querySelector('text'), n = Math.floor((w - 6) / fg.cw), s = g.fgname;\n"
"	if (n < 3) { text.textContent = ''; return; }\n"
"	if (s.length > n) s = s.substring(0, n - 2) + '..';\n"
"	text.textContent = s;\n"
"}\n"
"function fg_zoom(zs, zw, zd) {\n"
"	var span = fg.W - 2 * fg.pad;\n"
"	fg.zs = zs; fg.zw = zw; fg.zd = zd;\n"
"	fg.unzoom.style.display = (zw < fg.total || zd > 0) ? 'inline' : 'none';\n"
"	for (var i = 0; i < fg.frames.length; i++) {\n"
"		var g = fg.frames[i], rect = g.querySelector('rect'), text = g.querySelector('text');\n"
"		var x, w;\n"
"		if (g.fgd >= zd && g.fgs >= zs && g.fgs + g.fgw <= zs + zw) {\n"
"			x = fg.pad + (g.fgs - zs) / zw * span; w = g.fgw / zw * span;\n"
"			g.style.opacity = 1;\n"
"		} else if (g.fgd < zd && g.fgs <= zs && g.fgs + g.fgw >= zs + zw) {\n"
"			x = fg.pad; w = span; g.style.opacity = 0.6;\n"
"		} else {\n"
"			g.style.display = 'none'; continue;\n"
"		}\n"
"		g.style.display = (w < 0.1) ? 'none' : 'inline';\n"
"		rect.setAttribute('x', x.toFixed(2)); rect.setAttribute('width', w.toFixed(2));\n"
"		text.setAttribute('x', (x + 3).toFixed(2));\n"
"		fg_fit(g, w);\n"
"	}\n"
"}\n"
"function fg_search() {\n"
"	var term = prompt('Search frames (regular expression):', '');\n"
"	if (term === null || term === '') return;\n"
"	var re; try { re = new RegExp(term); } catch (e) { alert('bad regular expression: ' + e.message); return; }\n"
"	fg_clear(); fg.re = re;\n"
"	var iv = [];\n"
"	for (var i = 0; i < fg.frames.length; i++) {\n"
"		var g = fg.frames[i], rect = g.querySelector('rect');\n"
"		if (g.fgd === 0 || !re.test(g.fgname)) continue;\n"
"		rect.setAttribute('data-o', rect.getAttribute('fill'));\n"
"		rect.setAttribute('fill', 'rgb(230,0,230)');\n"
"		iv.push([g.fgs, g.fgs + g.fgw]);\n"
"	}\n"
"	iv.sort(function (a, b) { return a[0] - b[0]; });\n"
"	var sum = 0, end = -1;\n"
"	for (var j = 0; j < iv.length; j++) {\n"
"		var s = Math.max(iv[j][0], end);\n"
"		if (iv[j][1] > s) { sum += iv[j][1] - s; end = iv[j][1]; }\n"
"	}\n"
"	fg.matched.textContent = 'Matched: ' + (fg.total ? 100 * sum / fg.total : 0).toFixed(2) + '% (click to clear)';\n"
"	document.getElementById('search').textContent = 'Clear search';\n"
"}\n"
"function fg_clear() {\n"
"	if (!fg.re) return;\n"
"	fg.re = null;\n"
"	for (var i = 0; i < fg.frames.length; i++) {\n"
"		var rect = fg.frames[i].querySelector('rect'), o = rect.getAttribute('data-o');\n"
"		if (o) { rect.setAttribute('fill', o); rect.removeAttribute('data-o'); }\n"
"	}\n"
"	fg.matched.textContent = ' ';\n"
"	document.getElementById('search').textContent = 'Search';\n"
"}\n";

int pp_flame__write_svg(const struct pp_flame *fg, FILE *fp, const struct pp_flame_opts *user_opts)
{
	struct pp_flame_opts o = { 0 };
	struct fg_node *nodes = NULL;
	size_t nr = 0, i, rest;
	uint32_t max_depth = 0;
	uint64_t max_delta = 0;
	double span, px, x, w, y;
	unsigned int height;
	char colour[32];
	int err;

	if (user_opts)
		o = *user_opts;
	if (!o.title)
		o.title = "Flame Graph";
	if (!o.count_name)
		o.count_name = "samples";
	if (!o.width)
		o.width = 1200;
	if (o.width < 200)
		o.width = 200;
	span = o.width - 2.0 * SVG_PAD;
	px = fg->total ? span / (double)fg->total : 0;

	if (fg->total) {
		err = layout(fg, px, &nodes, &nr, &max_depth);
		if (err)
			return err;
	}
	height = SVG_TOP + (max_depth + 1) * SVG_FRAME_H + SVG_BOTTOM;
	for (i = 0; fg->diff && i < nr; i++) {
		uint64_t a = nodes[i].width > nodes[i].before ? nodes[i].width - nodes[i].before
							       : nodes[i].before - nodes[i].width;

		if (a > max_delta)
			max_delta = a;
	}

	fprintf(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\" "
		"viewBox=\"0 0 %u %u\" onload=\"fg_init(evt)\" data-width=\"%u\" data-total=\"%llu\" "
		"data-pad=\"%d\" data-charw=\"%.3f\">\n",
		o.width, height, o.width, height, o.width, (unsigned long long)fg->total, SVG_PAD,
		SVG_CHAR_W);
	fputs("<!-- Flame graph rendered by pp. Click a frame to zoom, Ctrl-F to search. -->\n", fp);
	fprintf(fp, "<style type=\"text/css\">\n"
		"text { font-family: Verdana, sans-serif; font-size: %dpx; fill: #000; }\n"
		"#title { font-size: 17px; text-anchor: middle; }\n"
		"#subtitle { text-anchor: middle; fill: #555; }\n"
		".button { cursor: pointer; fill: #226; }\n"
		".button:hover { text-decoration: underline; }\n"
		"g.f:hover rect { stroke: #000; stroke-width: 0.5; }\n"
		"g.f text { pointer-events: none; }\n"
		"g.f { cursor: pointer; }\n"
		"</style>\n", SVG_FONT);
	fprintf(fp, "<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n", fg_script);
	fprintf(fp, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"#f8f8f4\"/>\n",
		o.width, height);
	fprintf(fp, "<text id=\"title\" x=\"%.1f\" y=\"22\">", o.width / 2.0);
	pp_xml_put(fp, o.title);
	fputs("</text>\n", fp);
	if (o.subtitle) {
		fprintf(fp, "<text id=\"subtitle\" x=\"%.1f\" y=\"40\">", o.width / 2.0);
		pp_xml_put(fp, o.subtitle);
		fputs("</text>\n", fp);
	}
	fprintf(fp, "<text id=\"unzoom\" class=\"button\" x=\"%d\" y=\"22\" style=\"display:none\">"
		"Reset zoom</text>\n", SVG_PAD);
	fprintf(fp, "<text id=\"search\" class=\"button\" x=\"%u\" y=\"22\" text-anchor=\"end\">"
		"Search</text>\n", o.width - SVG_PAD);
	fprintf(fp, "<text id=\"details\" x=\"%d\" y=\"%u\"> </text>\n", SVG_PAD, height - 10);
	fprintf(fp, "<text id=\"matched\" class=\"button\" x=\"%u\" y=\"%u\" text-anchor=\"end\"> </text>\n",
		o.width - SVG_PAD, height - 10);
	if (!fg->total)
		fprintf(fp, "<text x=\"%.1f\" y=\"%u\" text-anchor=\"middle\">no samples</text>\n",
			o.width / 2.0, SVG_TOP + SVG_FRAME_H);

	fputs("<g id=\"frames\">\n", fp);
	for (i = 0; i < nr; i++) {
		const struct fg_node *n = &nodes[i];
		const char *name = n->frame == UINT32_MAX ? "all" : frame_name(fg, n->frame);
		size_t fit;

		x = SVG_PAD + (double)n->start * px;
		w = (double)n->width * px;
		y = height - SVG_BOTTOM - (n->depth + 1.0) * SVG_FRAME_H;
		if (fg->diff)
			diff_colour((int64_t)(n->width - n->before), max_delta, colour, sizeof(colour));
		else
			kind_colour(n->kind, name, colour, sizeof(colour));
		fprintf(fp, "<g class=\"f\" data-s=\"%llu\" data-w=\"%llu\" data-d=\"%u\"><title>",
			(unsigned long long)n->start, (unsigned long long)n->width, n->depth);
		pp_xml_put(fp, name);
		fputs(" (", fp);
		put_weight(fp, n->width, &o);
		fprintf(fp, ", %.2f%%", 100.0 * (double)n->width / (double)fg->total);
		if (fg->diff) {
			fputs("; before ", fp);
			put_weight(fp, n->before, &o);
			fprintf(fp, ", %+.2f%%", n->before ? 100.0 * ((double)n->width - (double)n->before) /
						   (double)n->before : 100.0);
		}
		fputs(")</title>", fp);
		fprintf(fp, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"%s\" "
			"rx=\"2\" ry=\"2\"/><text x=\"%.2f\" y=\"%.1f\">",
			x, y, w, SVG_FRAME_H - 1, colour, x + 3, y + SVG_FRAME_H - 4.5);
		/* clip the label to the rect: whole name, "prefix..", or nothing */
		fit = w > 6 ? (size_t)((w - 6) / SVG_CHAR_W) : 0;
		if (fit >= 3) {
			if (nr_chars(name) <= fit) {
				pp_xml_put(fp, name);
			} else {
				rest = put_xml_n(fp, name, fit - 2);
				if (rest)
					fputs("..", fp);
			}
		}
		fputs("</text></g>\n", fp);
	}
	fputs("</g>\n</svg>\n", fp);
	free(nodes);
	return ferror(fp) ? -EIO : 0;
}

static int write_one(const struct pp_flame *fg, const char *name, const char *ext,
		     const struct pp_flame_opts *opts)
{
	size_t len = strlen(name) + strlen(ext) + 1;
	char *path = malloc(len);
	FILE *fp;
	int err;

	if (!path)
		return -ENOMEM;
	snprintf(path, len, "%s%s", name, ext);
	fp = fopen(path, "w");
	if (!fp) {
		err = -errno;
		fprintf(stderr, "pp-analyze: cannot create %s: %s\n", path, strerror(errno));
		free(path);
		return err;
	}
	err = opts ? pp_flame__write_svg(fg, fp, opts) : pp_flame__write_folded(fg, fp);
	if (fclose(fp) && !err)
		err = -errno;
	if (err)
		fprintf(stderr, "pp-analyze: cannot write %s: %s\n", path, strerror(-err));
	free(path);
	return err;
}

int pp_flame__write_files(const struct pp_flame *fg, const char *name,
			  const struct pp_flame_opts *opts)
{
	static const struct pp_flame_opts defaults;
	int err;

	err = write_one(fg, name, ".folded", NULL);
	if (err)
		return err;
	return write_one(fg, name, ".svg", opts ? opts : &defaults);
}
