// SPDX-License-Identifier: MIT
/*
 * DATA encoding 2, "field cache" (spec 5.8), for archival files (zstd).
 * Encoding 1's record cache, with two changes that let zstd see streams of
 * like values instead of whole records:
 *
 * - times: the deltas as four byte planes (low bytes of every delta, then
 *   the next bytes, ...): the high planes are nearly constant, the low ones
 *   noise that no longer breaks up the others;
 * - literal samples: each 4-byte word is XORed with a predictor chosen per
 *   event for the chunk (an earlier word of the same record: pid = tid =
 *   common_pid; a word of the event's previous record: prev_pid = the last
 *   next_pid; or nothing), and the results are stored word by word, byte
 *   plane by byte plane, so equal words become runs of zeros.
 *
 * Encoding 1 stays the lz4 default: this one costs a second pass over the
 * literals, which zstd's smaller input pays back, lz4's does not.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "mru.h"
#include "format-internal.h"

#define FC_MRU		254	/* list entries; op 255 is a field literal */
#define FC_OP		255
#define FC_MAXW		128	/* field literals are at most 512 bytes */
#define FC_TABLES	255	/* layout entries 0..254 may have a table */
#define FC_SAMPLE	32	/* literals a table's predictors are chosen on */
#define FC_RAW		0xffff	/* predictor: none */
#define FC_PREV		0x8000	/* predictor: word of the event's previous record */
#define FC_ESC		0xffffffffu	/* time delta in the escape column */
#define HDR_SIZE	16	/* plain_size, nr_records, nr_layout, nr_tables */
#define COLS_SIZE	24	/* ops, sel, nr_times, nr_esc, lits, fields */

/* Word @j of a record of @size whose time (8 bytes at @toff, 0: none) reads as 0. */
static uint32_t fc_word(const uint8_t *rec, uint32_t size, uint32_t toff, uint32_t j)
{
	uint32_t w;

	if (!rec || (uint64_t)j * 4 + 4 > size || (toff && j * 4 - toff < 8))
		return 0;
	memcpy(&w, rec + j * 4, 4);
	return w;
}

/* The value predictor @p gives word @k of @rec (its previous record @prev). */
static uint32_t fc_pred(uint16_t p, const uint8_t *rec, uint32_t size, uint32_t toff,
			const uint8_t *prev, uint32_t psize, uint32_t ptoff)
{
	if (p == FC_RAW)
		return 0;
	if (p & FC_PREV)
		return fc_word(prev, psize, ptoff, p & ~FC_PREV);
	return fc_word(rec, size, toff, p);
}

/* ---- encoder ---- */

/* A literal to field-code: the record, its table, its event's previous record. */
struct fc_lit {
	const uint8_t *rec, *prev;
	uint16_t size, psize;
	uint16_t toff, ptoff;
	uint8_t tab;
};

/* Per table: its layout entry, words, predictors, counts, plane cursors. */
struct fc_tab {
	uint32_t li, nw, nlit;
	uint16_t pred[FC_MAXW];
	uint8_t join[FC_MAXW];	/* stored interleaved with word k - 1 */
	uint32_t cnt[FC_MAXW];
	size_t at[FC_MAXW];	/* first byte of the word's first value */
	uint32_t step[FC_MAXW];	/* bytes from one record's value to the next */
	uint32_t bstep[FC_MAXW];	/* bytes from one byte of a value to the next */
	uint32_t cur[FC_MAXW];
};

/* Text: printable bytes or NULs, two printable at least (a comm, a name). */
static int fc_text(uint32_t v)
{
	int pr = 0;

	for (int b = 0; b < 4; b++, v >>= 8) {
		uint8_t c = (uint8_t)v;

		if (c >= 0x20 && c < 0x7f)
			pr++;
		else if (c)
			return 0;
	}
	return pr >= 2;
}

/**
 * pp_fieldcode_bound() - largest encoded size of @len plain bytes with @nr_layout entries.
 */
size_t pp_fieldcode_bound(size_t len, uint32_t nr_layout)
{
	size_t nt = nr_layout < FC_TABLES ? nr_layout : FC_TABLES;

	/* Records are at least 8 bytes: op, sel, 4 time bytes, 8 escape bytes each. */
	return HDR_SIZE + (size_t)nr_layout * 16 + nt * (8 + FC_MAXW * 8) + COLS_SIZE +
	       len + (len / 8 + 1) * 14;
}

/* Layout entry of a sample, or -1. */
static int fc_lay_index(const struct pp_rec_layout *lay, uint32_t nr, const uint8_t *rec,
			uint32_t type, uint16_t size)
{
	uint64_t id;

	if (type != 9 /* PERF_RECORD_SAMPLE */ || size < 16)
		return -1;
	memcpy(&id, rec + 8, 8);
	for (uint32_t i = 0; i < nr; i++)
		if (lay[i].id == id)
			return (int)i;
	return -1;
}

static uint32_t fc_time_off(const struct pp_rec_layout *l, uint16_t size)
{
	return l && l->time_off >= 16 && (uint64_t)l->time_off + 8 <= size ? l->time_off : 0;
}

/*
 * The predictor of each word of table @t: the candidate (none, an earlier
 * word of the record, any word of the previous record) that leaves the
 * fewest non-zero words over the table's first FC_SAMPLE literals. Ties go
 * to the earlier candidate, none first: a raw value keeps its structure.
 */
static void fc_choose(struct fc_tab *t, const struct fc_lit *lits, const uint32_t *idx,
		      uint32_t n)
{
	uint32_t w[FC_SAMPLE][FC_MAXW], pw[FC_SAMPLE][FC_MAXW], nw[FC_SAMPLE];

	for (uint32_t i = 0; i < n; i++) {
		const struct fc_lit *l = &lits[idx[i]];

		nw[i] = l->size / 4u;
		for (uint32_t j = 0; j < t->nw; j++) {
			w[i][j] = fc_word(l->rec, l->size, l->toff, j);
			pw[i][j] = fc_word(l->prev, l->psize, l->ptoff, j);
		}
	}
	for (uint32_t k = 0; k < t->nw; k++) {
		uint32_t best = 0, c;
		uint16_t bp = FC_RAW;

		for (uint32_t i = 0; i < n; i++)
			best += k < nw[i] && w[i][k];
		for (uint32_t j = 0; j < k && best; j++) {
			c = 0;
			for (uint32_t i = 0; i < n; i++)
				c += k < nw[i] && (w[i][k] ^ w[i][j]);
			if (c < best) {
				best = c;
				bp = (uint16_t)j;
			}
		}
		for (uint32_t j = 0; j < t->nw && best; j++) {
			c = 0;
			for (uint32_t i = 0; i < n; i++)
				c += k < nw[i] && (w[i][k] ^ pw[i][j]);
			if (c < best) {
				best = c;
				bp = (uint16_t)(FC_PREV | j);
			}
		}
		t->pred[k] = bp;
	}
	/*
	 * Runs of text words (most residuals text) are stored record by record,
	 * so zstd matches a whole comm; numbers go in byte planes.
	 */
	uint8_t tx[FC_MAXW];

	for (uint32_t k = 0; k < t->nw; k++) {
		uint32_t text = 0;

		for (uint32_t i = 0; i < n; i++) {
			text += k < nw[i] && fc_text(w[i][k]);
		}
		tx[k] = text * 2 > n;
		t->join[k] = k && tx[k] && tx[k - 1] && t->cnt[k] == t->cnt[k - 1];
	}
}

/* Where each word's values go, from @fields on; return the end. */
static size_t fc_place(struct fc_tab *t, size_t fields)
{
	for (uint32_t k = 0, g; k < t->nw; k += g) {
		for (g = 1; k + g < t->nw && t->join[k + g]; g++)
			;
		for (uint32_t m = 0; m < g; m++) {
			t->at[k + m] = fields + m * 4;
			t->step[k + m] = g > 1 ? g * 4 : 1;
			t->bstep[k + m] = g > 1 ? 1 : t->cnt[k];
		}
		fields += (size_t)g * 4 * t->cnt[k];
	}
	return fields;
}

static uint64_t fc_hash(const uint8_t *p, uint16_t size, uint32_t toff)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ size;
	uint16_t i = 0;

	for (; i + 8 <= size; i += 8) {
		uint64_t w;

		memcpy(&w, p + i, 8);
		if (toff == i)
			w = 0;
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	for (; i < size; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h ^ (h >> 29);
}

static int fc_same(const uint8_t *a, const uint8_t *b, uint16_t size, uint32_t toff)
{
	if (!toff)
		return !memcmp(a, b, size);
	return !memcmp(a, b, toff) && !memcmp(a + toff + 8, b + toff + 8, size - toff - 8u);
}

#define FC_HASH_BITS	12

/**
 * pp_fieldcode_encode() - encode plain records as DATA encoding 2.
 * @src: plain perf records; @len: their size (a torn tail is kept as a literal).
 * @lay: id -> time offset table; @nr_lay: its entries.
 * @dst: output of at least pp_fieldcode_bound() bytes.
 * @cuts, @nr_cuts: receive up to PP_FC_CUTS column boundaries in @dst, where
 * a zstd block should end (pp_codec_compress_cuts()).
 *
 * Return: the encoded size, 0 when out of memory.
 */
size_t pp_fieldcode_encode(const uint8_t *src, size_t len, const struct pp_rec_layout *lay,
			   uint32_t nr_lay, uint8_t *dst, size_t *cuts, int *nr_cuts)
{
	size_t maxrec = len / 8 + 1, nops = 0, nlits = 0, nfl = 0, off = 0, p, fields = 0;
	struct { const uint8_t *rec; uint8_t node; } *hash;
	const uint8_t *last[FC_TABLES] = { 0 };
	uint16_t last_size[FC_TABLES] = { 0 }, last_toff[FC_TABLES] = { 0 };
	int tab_of[FC_TABLES];
	uint32_t nr_tab = 0, nt = 0, nesc = 0, nrec = 0, *idx = NULL, *tdelta;
	uint8_t *ops, *lits, *sel;
	uint64_t *esc, prev_time = 0;
	struct fc_lit *fl;
	struct fc_tab *tabs = NULL;
	struct pp_mru *st;

	hash = calloc((size_t)1 << FC_HASH_BITS, sizeof(*hash));
	st = malloc(sizeof(*st));
	ops = malloc(maxrec * 2 + len);
	tdelta = malloc(maxrec * 4);
	esc = malloc(maxrec * 8);
	fl = malloc(maxrec * sizeof(*fl));
	if (!hash || !st || !ops || !tdelta || !esc || !fl)
		goto nomem;
	sel = ops + maxrec;
	lits = sel + maxrec;
	pp_mru_init(st, FC_MRU);
	for (int i = 0; i < FC_TABLES; i++)
		tab_of[i] = -1;
	while (off < len) {
		const uint8_t *rec = src + off;
		uint32_t type, toff = 0;
		uint16_t size;
		uint64_t h;
		int hit = -1, li;

		if (len - off < 8)
			break;
		memcpy(&type, rec, 4);
		memcpy(&size, rec + 6, 2);
		if (size < 8 || size > len - off)
			break;
		li = fc_lay_index(lay, nr_lay, rec, type, size);
		if (li >= 0)
			toff = fc_time_off(&lay[li], size);
		h = fc_hash(rec, size, toff) >> (64 - FC_HASH_BITS);
		if (hash[h].rec) {
			const struct pp_mru_node *n = &st->n[hash[h].node];

			if (n->rec == hash[h].rec && n->size == size &&
			    fc_same(n->rec, rec, size, toff))
				hit = hash[h].node;
		}
		if (toff) {
			uint64_t t, d;

			memcpy(&t, rec + toff, 8);
			d = t - prev_time;
			prev_time = t;
			tdelta[nt++] = d < FC_ESC ? (uint32_t)d : FC_ESC;
			if (d >= FC_ESC)
				esc[nesc++] = d;
		}
		if (hit >= 0) {
			unsigned int pos = pp_mru_pos(st, (uint8_t)hit);

			ops[nops++] = (uint8_t)(pos + 1);
			pp_mru_touch(st, (uint8_t)hit, pos, rec);
			hash[h].node = (uint8_t)hit;
		} else if (li >= 0 && li < FC_TABLES && toff && !(toff & 3) && !(size & 3) &&
			   size <= FC_MAXW * 4) {
			struct fc_lit *l = &fl[nfl++];

			if (tab_of[li] < 0)
				tab_of[li] = 0;		/* used; numbered below */
			l->rec = rec;
			l->size = size;
			l->toff = (uint16_t)toff;
			l->prev = last[li];
			l->psize = last_size[li];
			l->ptoff = last_toff[li];
			l->tab = (uint8_t)li;		/* the layout entry, for now */
			ops[nops++] = FC_OP;
			hash[h].node = pp_mru_insert(st, rec, size);
		} else {
			ops[nops++] = 0;
			memcpy(lits + nlits, rec, size);
			if (toff)
				memset(lits + nlits + toff, 0, 8);
			nlits += size;
			hash[h].node = pp_mru_insert(st, rec, size);
		}
		hash[h].rec = rec;
		if (li >= 0 && li < FC_TABLES) {
			last[li] = rec;
			last_size[li] = size;
			last_toff[li] = (uint16_t)toff;
		}
		nrec++;
		off += size;
	}
	memcpy(lits + nlits, src + off, len - off);
	nlits += len - off;

	/* Tables in layout order; each literal's table; predictors; plane offsets. */
	for (int i = 0; i < FC_TABLES; i++)
		if (tab_of[i] >= 0)
			tab_of[i] = (int)nr_tab++;
	if (nr_tab) {
		tabs = calloc(nr_tab, sizeof(*tabs));
		idx = malloc(nr_tab * FC_SAMPLE * sizeof(*idx));
		if (!tabs || !idx)
			goto nomem;
	}
	for (int i = 0; i < FC_TABLES; i++)
		if (tab_of[i] >= 0)
			tabs[tab_of[i]].li = (uint32_t)i;
	for (size_t i = 0; i < nfl; i++) {
		struct fc_tab *t;

		fl[i].tab = (uint8_t)tab_of[fl[i].tab];
		t = &tabs[fl[i].tab];
		sel[i] = fl[i].tab;
		if (t->nw < fl[i].size / 4u)
			t->nw = fl[i].size / 4u;
		for (uint32_t k = 0; k < fl[i].size / 4u; k++)
			t->cnt[k]++;
		if (t->nlit < FC_SAMPLE)
			idx[fl[i].tab * FC_SAMPLE + t->nlit] = (uint32_t)i;
		t->nlit++;
	}
	for (uint32_t i = 0; i < nr_tab; i++) {
		struct fc_tab *t = &tabs[i];

		fc_choose(t, fl, &idx[i * FC_SAMPLE], t->nlit < FC_SAMPLE ? t->nlit : FC_SAMPLE);
		fields = fc_place(t, fields);
	}

	/* The payload. */
	pp_put_le32(dst, (uint32_t)len);
	pp_put_le32(dst + 4, nrec);
	pp_put_le32(dst + 8, nr_lay);
	pp_put_le32(dst + 12, nr_tab);
	p = HDR_SIZE;
	for (uint32_t i = 0; i < nr_lay; i++, p += 16) {
		memcpy(dst + p, &lay[i].id, 8);
		pp_put_le32(dst + p + 8, lay[i].time_off);
		pp_put_le32(dst + p + 12, 0);
	}
	for (uint32_t i = 0; i < nr_tab; i++) {
		const struct fc_tab *t = &tabs[i];

		pp_put_le32(dst + p, t->li);
		pp_put_le32(dst + p + 4, t->nw);
		p += 8;
		for (uint32_t k = 0; k < t->nw; k++, p += 8) {
			pp_put_le32(dst + p, t->cnt[k]);
			dst[p + 4] = (uint8_t)t->pred[k];
			dst[p + 5] = (uint8_t)(t->pred[k] >> 8);
			dst[p + 6] = t->join[k];
			dst[p + 7] = 0;
		}
	}
	pp_put_le32(dst + p, (uint32_t)nops);
	pp_put_le32(dst + p + 4, (uint32_t)nfl);
	pp_put_le32(dst + p + 8, nt);
	pp_put_le32(dst + p + 12, nesc);
	pp_put_le32(dst + p + 16, (uint32_t)nlits);
	pp_put_le32(dst + p + 20, (uint32_t)fields);
	p += COLS_SIZE;
	memcpy(dst + p, ops, nops);
	p += nops;
	memcpy(dst + p, sel, nfl);
	p += nfl;
	*nr_cuts = 0;
	for (uint32_t b = 0; b < 4; b++) {
		/* A block per time plane: each its own Huffman table (spec 5.8). */
		if (nt >= 1024)
			cuts[(*nr_cuts)++] = p;
		for (uint32_t i = 0; i < nt; i++)
			dst[p++] = (uint8_t)(tdelta[i] >> (8 * b));
	}
	for (uint32_t i = 0; i < nesc; i++, p += 8)
		memcpy(dst + p, &esc[i], 8);
	memcpy(dst + p, lits, nlits);
	p += nlits;
	if (nt >= 1024)
		cuts[(*nr_cuts)++] = p;
	for (size_t i = 0; i < nfl; i++) {
		const struct fc_lit *l = &fl[i];
		struct fc_tab *t = &tabs[l->tab];

		for (uint32_t k = 0; k < l->size / 4u; k++) {
			uint32_t v = fc_word(l->rec, l->size, l->toff, k) ^
				     fc_pred(t->pred[k], l->rec, l->size, l->toff,
					     l->prev, l->psize, l->ptoff);
			uint8_t *o = dst + p + t->at[k] + (size_t)t->cur[k]++ * t->step[k];
			size_t bs = t->bstep[k];

			o[0] = (uint8_t)v;
			o[bs] = (uint8_t)(v >> 8);
			o[2 * bs] = (uint8_t)(v >> 16);
			o[3 * bs] = (uint8_t)(v >> 24);
		}
	}
	p += fields;
out:
	free(tabs);
	free(idx);
	free(fl);
	free(esc);
	free(tdelta);
	free(ops);
	free(st);
	free(hash);
	return p;
nomem:
	p = 0;
	goto out;
}

/* ---- decoder ---- */


struct fc_dlay {
	uint64_t id;
	uint32_t time_off;
	int tab;
};

static int fc_dlay_cmp(const void *a, const void *b)
{
	const struct fc_dlay *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* A parsed payload: header, layout, tables and where each column lies. */
struct fc_hdr {
	uint32_t plain, nrec, nr_lay, nr_tab;
	uint32_t nops, nsel, nt, nesc, nlits, nfields;
	const uint8_t *ops, *sel, *times, *esc, *lits, *fields;
	size_t tab_off;		/* first table in the payload */
};

/* Check the header and column sizes of @src. Return: 0 or -EBADMSG. */
static int fc_parse(const uint8_t *src, size_t len, struct fc_hdr *h)
{
	size_t p;
	uint64_t sum;

	if (len < HDR_SIZE)
		return -EBADMSG;
	h->plain = pp_get_le32(src);
	h->nrec = pp_get_le32(src + 4);
	h->nr_lay = pp_get_le32(src + 8);
	h->nr_tab = pp_get_le32(src + 12);
	if (h->plain > PP_CHUNK_MAX_RAW || h->nr_lay > (len - HDR_SIZE) / 16 ||
	    h->nr_tab > FC_TABLES || h->nr_tab > h->nr_lay)
		return -EBADMSG;
	p = HDR_SIZE + (size_t)h->nr_lay * 16;
	h->tab_off = p;
	for (uint32_t i = 0; i < h->nr_tab; i++) {
		uint32_t nw;

		if (len - p < 8)
			return -EBADMSG;
		nw = pp_get_le32(src + p + 4);
		if (nw > FC_MAXW || (len - p - 8) / 8 < nw)
			return -EBADMSG;
		p += 8 + (size_t)nw * 8;
	}
	if (len - p < COLS_SIZE)
		return -EBADMSG;
	h->nops = pp_get_le32(src + p);
	h->nsel = pp_get_le32(src + p + 4);
	h->nt = pp_get_le32(src + p + 8);
	h->nesc = pp_get_le32(src + p + 12);
	h->nlits = pp_get_le32(src + p + 16);
	h->nfields = pp_get_le32(src + p + 20);
	p += COLS_SIZE;
	sum = (uint64_t)h->nops + h->nsel + (uint64_t)h->nt * 4 + (uint64_t)h->nesc * 8 +
	      h->nlits + h->nfields;
	if (h->nops != h->nrec || h->nesc > h->nt || sum != len - p)
		return -EBADMSG;
	h->ops = src + p;
	h->sel = h->ops + h->nops;
	h->times = h->sel + h->nsel;
	h->esc = h->times + (size_t)h->nt * 4;
	h->lits = h->esc + (size_t)h->nesc * 8;
	h->fields = h->lits + h->nlits;
	return 0;
}

/**
 * pp_fieldcode_literals() - call @fn for each record of an encoding 2 payload
 * stored as a plain literal and not a PERF_RECORD_SAMPLE (side-band), as
 * pp_reccache_literals() does for encoding 1. Field literals are samples.
 * Return: 0, or -EBADMSG for a payload whose columns do not add up.
 */
int pp_fieldcode_literals(const uint8_t *src, size_t len,
			  void (*fn)(const uint8_t *rec, uint16_t size, void *ctx), void *ctx)
{
	struct fc_hdr h;
	uint32_t nr_lit = 0;
	size_t lpos = 0;

	if (fc_parse(src, len, &h))
		return -EBADMSG;
	for (uint32_t r = 0; r < h.nops; r++)
		nr_lit += !h.ops[r];
	for (uint32_t r = 0; r < nr_lit; r++) {
		uint32_t type;
		uint16_t size;

		if (h.nlits - lpos < 8)
			return -EBADMSG;
		memcpy(&size, h.lits + lpos + 6, 2);
		if (size < 8 || size > h.nlits - lpos)
			return -EBADMSG;
		memcpy(&type, h.lits + lpos, 4);
		if (type != 9 /* PERF_RECORD_SAMPLE */)
			fn(h.lits + lpos, size, ctx);
		lpos += size;
	}
	return 0;
}

/* A decoding table: predictors, and per word its planes' start, count, cursor. */
struct fc_dtab {
	uint32_t nw;
	int li;
	const uint8_t *last;	/* the event's previous record (in the output) */
	uint32_t lsize, ltoff;
	uint16_t pred[FC_MAXW];
	uint32_t cnt[FC_MAXW], cur[FC_MAXW];
	uint8_t join[FC_MAXW];
	const uint8_t *at[FC_MAXW];
	uint32_t step[FC_MAXW], bstep[FC_MAXW];
};

/* Read the tables of @h into @t. Return: 0 or -EBADMSG. */
static int fc_tables(const uint8_t *src, const struct fc_hdr *h, struct fc_dtab *t)
{
	size_t p = h->tab_off;
	uint64_t fields = 0;
	int prev_li = -1;

	for (uint32_t i = 0; i < h->nr_tab; i++) {
		uint32_t li = pp_get_le32(src + p);

		t[i].nw = pp_get_le32(src + p + 4);
		/* Layout entries in increasing order: one table each, 255 at most. */
		if (li >= h->nr_lay || li >= FC_TABLES || (int)li <= prev_li || t[i].nw < 2)
			return -EBADMSG;
		prev_li = (int)li;
		t[i].li = (int)li;
		t[i].last = NULL;
		p += 8;
		for (uint32_t k = 0; k < t[i].nw; k++, p += 8) {
			uint16_t pr = (uint16_t)(src[p + 4] | src[p + 5] << 8);

			t[i].cnt[k] = pp_get_le32(src + p);
			t[i].cur[k] = 0;
			t[i].join[k] = src[p + 6];
			if (pr != FC_RAW && (pr & FC_PREV ? (pr & ~FC_PREV) >= FC_MAXW : pr >= k))
				return -EBADMSG;
			/* A word joins the one before it only with as many values. */
			if (src[p + 6] > 1 || src[p + 7] ||
			    (t[i].join[k] && (!k || t[i].cnt[k] != t[i].cnt[k - 1])))
				return -EBADMSG;
			t[i].pred[k] = pr;
		}
		for (uint32_t k = 0, g; k < t[i].nw; k += g) {
			for (g = 1; k + g < t[i].nw && t[i].join[k + g]; g++)
				;
			if (fields + (uint64_t)t[i].cnt[k] * 4 * g > h->nfields)
				return -EBADMSG;
			for (uint32_t m = 0; m < g; m++) {
				t[i].at[k + m] = h->fields + fields + m * 4;
				t[i].step[k + m] = g > 1 ? g * 4 : 1;
				t[i].bstep[k + m] = g > 1 ? 1 : t[i].cnt[k];
			}
			fields += (uint64_t)t[i].cnt[k] * 4 * g;
		}
	}
	return fields == h->nfields ? 0 : -EBADMSG;
}

/* Word @k of a field literal of table @t, decoded into @o. Return: 0 or -1. */
static int fc_get(struct fc_dtab *t, uint32_t k, uint8_t *o, uint32_t size, uint32_t toff)
{
	const uint8_t *pl;
	size_t bs;
	uint32_t v;

	if (k >= t->nw || t->cur[k] >= t->cnt[k])
		return -1;
	pl = t->at[k] + (size_t)t->cur[k]++ * t->step[k];
	bs = t->bstep[k];
	v = (uint32_t)pl[0] | (uint32_t)pl[bs] << 8 | (uint32_t)pl[2 * bs] << 16 |
	    (uint32_t)pl[3 * bs] << 24;
	/* The words before k are in place; the time words are still zero. */
	v ^= fc_pred(t->pred[k], o, size, toff, t->last, t->lsize, t->ltoff);
	memcpy(o + k * 4, &v, 4);
	return 0;
}

/**
 * pp_fieldcode_decode() - decode an encoding 2 payload into plain records.
 * @src: encoded payload; @len: its size.
 * @o: output buffer of at least pp_reccache_plain_size() bytes.
 * @dst_len: receives the decoded size.
 *
 * Every count and offset is checked against the payload and the caps.
 * Return: 0, or -EBADMSG for a malformed payload, -ENOMEM.
 */
int pp_fieldcode_decode(const uint8_t *src, size_t len, uint8_t *o, size_t *dst_len)
{
	struct fc_hdr h;
	struct pp_mru *st = NULL;
	struct fc_dlay *lay = NULL;
	struct fc_dtab *tabs = NULL;
	size_t lpos = 0, out = 0, spos = 0;
	uint32_t tpos = 0, epos = 0;
	uint64_t prev_time = 0;
	int err = -EBADMSG;

	if (fc_parse(src, len, &h))
		return -EBADMSG;
	st = malloc(sizeof(*st));
	lay = malloc(((size_t)h.nr_lay + 1) * sizeof(*lay));
	tabs = malloc(((size_t)h.nr_tab + 1) * sizeof(*tabs));
	if (!st || !lay || !tabs) {
		err = -ENOMEM;
		goto out;
	}
	pp_mru_init(st, FC_MRU);
	if (fc_tables(src, &h, tabs))
		goto out;
	for (uint32_t i = 0; i < h.nr_lay; i++) {
		memcpy(&lay[i].id, src + HDR_SIZE + (size_t)i * 16, 8);
		lay[i].time_off = pp_get_le32(src + HDR_SIZE + (size_t)i * 16 + 8);
		lay[i].tab = -1;
	}
	for (uint32_t i = 0; i < h.nr_tab; i++)
		lay[tabs[i].li].tab = (int)i;
	qsort(lay, h.nr_lay, sizeof(*lay), fc_dlay_cmp);
	for (uint32_t i = 1; i < h.nr_lay; i++)
		if (lay[i].id == lay[i - 1].id)
			goto out;
	for (uint32_t r = 0; r < h.nrec; r++) {
		const struct fc_dlay *l = NULL;
		uint8_t op = h.ops[r], *rec = o + out;
		uint32_t type, toff = 0;
		uint16_t size;
		int ft = -1;

		if (op == FC_OP) {
			struct fc_dtab *t;

			if (spos >= h.nsel || h.sel[spos] >= h.nr_tab || h.plain - out < 8)
				goto out;
			ft = h.sel[spos++];
			t = &tabs[ft];
			/* Header words first: they give the size. */
			if (fc_get(t, 0, rec, 8, 0) || fc_get(t, 1, rec, 8, 0))
				goto out;
			memcpy(&size, rec + 6, 2);
			if (size < 16 || size & 3 || size > t->nw * 4 || size > h.plain - out)
				goto out;
			/* The time offset is the layout's for this table's event and size. */
			{
				struct fc_dlay key;
				const struct fc_dlay *tl;

				memcpy(&key.id, src + HDR_SIZE + (size_t)t->li * 16, 8);
				tl = bsearch(&key, lay, h.nr_lay, sizeof(*lay), fc_dlay_cmp);
				toff = tl->time_off >= 16 && (uint64_t)tl->time_off + 8 <= size ?
				       tl->time_off : 0;
			}
			if (!toff || toff & 3)
				goto out;
			memset(rec + 8, 0, size - 8u);
			for (uint32_t k = 2; k < size / 4u; k++)
				if (fc_get(t, k, rec, size, toff))
					goto out;
			pp_mru_insert(st, rec, size);
		} else if (op) {
			uint8_t i;

			if (pp_mru_take(st, op - 1u, &i) || st->n[i].size > h.plain - out)
				goto out;
			size = st->n[i].size;
			memcpy(rec, st->n[i].rec, size);
			st->n[i].rec = rec;
		} else {
			if (h.nlits - lpos < 8)
				goto out;
			memcpy(&size, h.lits + lpos + 6, 2);
			if (size < 8 || size > h.nlits - lpos || size > h.plain - out)
				goto out;
			memcpy(rec, h.lits + lpos, size);
			lpos += size;
			pp_mru_insert(st, rec, size);
		}
		memcpy(&type, rec, 4);
		if (type == 9 /* PERF_RECORD_SAMPLE */ && size >= 16) {
			struct fc_dlay key;

			memcpy(&key.id, rec + 8, 8);
			l = bsearch(&key, lay, h.nr_lay, sizeof(*lay), fc_dlay_cmp);
		}
		/* A field literal decodes to its table's event, as the encoder wrote it. */
		if (ft >= 0 && (!l || l->tab != ft))
			goto out;
		toff = l && l->time_off >= 16 && (uint64_t)l->time_off + 8 <= size ? l->time_off : 0;
		if (toff) {
			uint64_t d, t;

			if (tpos >= h.nt)
				goto out;
			d = (uint64_t)h.times[tpos] | (uint64_t)h.times[h.nt + tpos] << 8 |
			    (uint64_t)h.times[2 * (size_t)h.nt + tpos] << 16 |
			    (uint64_t)h.times[3 * (size_t)h.nt + tpos] << 24;
			tpos++;
			if (d == FC_ESC) {
				if (epos >= h.nesc)
					goto out;
				memcpy(&d, h.esc + (size_t)epos++ * 8, 8);
				if (d < FC_ESC)
					goto out;
			}
			t = prev_time + d;
			memcpy(rec + toff, &t, 8);
			prev_time = t;
		}
		if (l && l->tab >= 0) {
			struct fc_dtab *t = &tabs[l->tab];

			t->last = rec;
			t->lsize = size;
			t->ltoff = toff;
		}
		out += size;
	}
	if (h.nlits - lpos != h.plain - out || tpos != h.nt || epos != h.nesc || spos != h.nsel)
		goto out;
	for (uint32_t i = 0; i < h.nr_tab; i++)
		for (uint32_t k = 0; k < tabs[i].nw; k++)
			if (tabs[i].cur[k] != tabs[i].cnt[k])
				goto out;
	memcpy(o + out, h.lits + lpos, h.nlits - lpos);
	out += h.nlits - lpos;
	*dst_len = out;
	err = 0;
out:
	free(tabs);
	free(lay);
	free(st);
	return err;
}
