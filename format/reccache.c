// SPDX-License-Identifier: MIT
/*
 * DATA encoding 1, "record cache" (spec 5.8). Tracing records repeat: the
 * same task switches to the same task, the same wake-up recurs, and only the
 * time differs. Each record is split into its time (stored as a delta in a
 * column of varints) and the rest, which is either a reference to one of the
 * 255 most recently used distinct records or a literal. Three columns (ops,
 * times, literals) give LZ4 and zstd homogeneous data.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "pp/writer.h"
#include "mru.h"
#include "format-internal.h"

#define MRU_SIZE	PP_MRU_MAX
#define HASH_BITS	10
#define HDR_SIZE	16	/* plain_size, nr_records, nr_layout, 0 */
#define COLS_SIZE	16	/* ops_len, times_len, lits_len, 0 */

/*
 * Where layout entry @l puts the time in a record of @size, 0 for none. The
 * offset comes from the file: it is checked in 64 bits, as time_off + 8 in
 * 32 bits wraps for an offset near 4 GiB and would let a write land outside
 * the record.
 */
static uint32_t lay_time_off(const struct pp_rec_layout *l, uint16_t size)
{
	return l && l->time_off >= 16 && (uint64_t)l->time_off + 8 <= size ? l->time_off : 0;
}

/* A sample's id, or 0 with *ok 0 when @rec is no sample that carries one. */
static int sample_id(const uint8_t *rec, uint32_t type, uint16_t size, uint64_t *id)
{
	if (type != 9 /* PERF_RECORD_SAMPLE */ || size < 16)
		return 0;
	memcpy(id, rec + 8, 8);
	return 1;
}

/* The encoder's lookup: the recorder's few layouts, scanned. */
static uint32_t time_off_of(const struct pp_rec_layout *lay, uint32_t nr, const uint8_t *rec,
			    uint32_t type, uint16_t size)
{
	uint64_t id;

	if (!sample_id(rec, type, size, &id))
		return 0;
	for (uint32_t i = 0; i < nr; i++)
		if (lay[i].id == id)
			return lay_time_off(&lay[i], size);
	return 0;
}

static int lay_cmp(const void *a, const void *b)
{
	const struct pp_rec_layout *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* The decoder's lookup: a file may list a million layouts; sorted, searched. */
static uint32_t time_off_sorted(const struct pp_rec_layout *lay, uint32_t nr, const uint8_t *rec,
				uint32_t type, uint16_t size)
{
	struct pp_rec_layout key;

	if (!sample_id(rec, type, size, &key.id))
		return 0;
	return lay_time_off(bsearch(&key, lay, nr, sizeof(*lay), lay_cmp), size);
}

/* Equal records, ignoring the 8 time bytes at @toff (0: none). */
static int same_rec(const uint8_t *a, const uint8_t *b, uint16_t size, uint32_t toff)
{
	if (!toff)
		return !memcmp(a, b, size);
	return !memcmp(a, b, toff) && !memcmp(a + toff + 8, b + toff + 8, size - toff - 8u);
}

/*
 * Hash of a record without its time: each 8-byte word (records are 8-byte
 * multiples) times its own odd constant, the products summed. The
 * multiplies do not wait on each other, so the hash costs about one cycle a
 * word; the top bits of the mixed sum pick the slot. A poor hash costs a
 * literal, never a wrong record: a hit is compared byte for byte.
 */
static uint64_t rec_hash(const uint8_t *p, uint16_t size, uint32_t toff)
{
	static const uint64_t k[4] = { 0x9e3779b97f4a7c15ull, 0xc2b2ae3d27d4eb4full,
				       0x165667b19e3779f9ull, 0xd6e8feb86659fd93ull };
	uint64_t h0 = size, h1 = 0, h2 = 0, h3 = 0;
	uint16_t i = 0;

	for (; i + 32 <= size; i += 32) {
		uint64_t w[4];

		memcpy(w, p + i, 32);
		if (toff && toff - i < 32u)
			w[(toff - i) / 8] = 0;
		h0 += w[0] * (k[0] + 2u * i);
		h1 += w[1] * (k[1] + 2u * i);
		h2 += w[2] * (k[2] + 2u * i);
		h3 += w[3] * (k[3] + 2u * i);
	}
	for (; i + 8 <= size; i += 8) {
		uint64_t w;

		memcpy(&w, p + i, 8);
		if (toff == i)
			w = 0;
		h1 = (h1 ^ w) * k[(i >> 3) & 3];
	}
	for (; i < size; i++)
		h2 = (h2 ^ p[i]) * 0x100000001b3ull;
	h0 += h1 * k[1] + h2 * k[2] + h3 * k[3];
	h0 ^= h0 >> 29;
	h0 *= 0xff51afd7ed558ccdull;
	return h0 ^ (h0 >> 32);
}

static size_t put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

static int get_varint(const uint8_t *p, size_t len, size_t *off, uint64_t *v)
{
	uint64_t x = 0;

	for (int shift = 0; shift < 64; shift += 7) {
		uint8_t b;

		if (*off >= len)
			return -1;
		b = p[(*off)++];
		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -1;
}

/**
 * pp_reccache_bound() - largest encoded size of @len plain bytes with @nr_layout entries.
 */
size_t pp_reccache_bound(size_t len, uint32_t nr_layout)
{
	/* Every record is at least 8 bytes: one op and at most 10 varint bytes each. */
	return pp_reccache_enc__buf_size(len, nr_layout);
}

/*
 * The streaming encoder. Its buffer holds the payload's header room, then
 * the ops, times and literals columns, each as large as @plain_max bytes of
 * 8-byte records could make it. A literal is copied once, to its place in
 * the payload; the list's nodes point at those copies, so a record is read
 * once, where the caller has it. pp_reccache_enc__finish() moves the two
 * short columns up against the literals and writes the header before them.
 */
/*
 * A hash slot: the node (top 8 bits) and its literal, as an offset into the
 * literals (low 24 bits). A plain word, stored whole: as bit-fields, the
 * store was a read-modify-write of the word and a byte store.
 */
typedef uint32_t rc_slot;
#define SLOT_NODE(v)	((uint8_t)((v) >> 24))
#define SLOT_LIT(v)	((v) & 0xffffffu)

struct pp_reccache_enc {
	const struct pp_rec_layout *lay;
	uint32_t nr_lay;
	uint8_t *buf;
	size_t hdr, ops_at, times_at, lits_at;
	size_t nops, ntimes, nlits, plain;
	uint32_t nrec;
	uint64_t prev_time;
	struct pp_mru mru;
	/*
	 * By hash of the record, the node that last held such a record. Not
	 * cleared between chunks: a slot is a hint, taken only for a node of
	 * this chunk whose literal is where the slot says and whose bytes are
	 * the record's.
	 */
	rc_slot hash[1u << HASH_BITS];
};

struct pp_reccache_enc *pp_reccache_enc__new(void)
{
	return calloc(1, sizeof(struct pp_reccache_enc));
}

void pp_reccache_enc__free(struct pp_reccache_enc *e)
{
	free(e);
}

void pp_reccache_enc__start(struct pp_reccache_enc *e, uint8_t *buf, size_t plain_max,
			    const struct pp_rec_layout *lay, uint32_t nr_lay)
{
	size_t max_rec = plain_max / 8 + 1;

	e->lay = lay;
	e->nr_lay = nr_lay;
	e->buf = buf;
	e->hdr = HDR_SIZE + (size_t)nr_lay * 16 + COLS_SIZE;
	e->ops_at = e->hdr;
	e->times_at = e->ops_at + max_rec;
	e->lits_at = e->times_at + max_rec * 10;
	e->nops = e->ntimes = e->nlits = e->plain = 0;
	e->nrec = 0;
	e->prev_time = 0;
	pp_mru_init(&e->mru, MRU_SIZE);
}

void pp_reccache_enc__add(struct pp_reccache_enc *e, const void *rec, uint16_t size,
			  uint32_t time_off)
{
	const uint8_t *src = rec;
	uint8_t *lits = e->buf + e->lits_at;
	uint32_t toff = time_off >= 16 && time_off + 8u <= size ? time_off : 0;
	rc_slot *slot = NULL;
	int hit = -1;

	/*
	 * The record before, again but for its time (a task's run of one
	 * event, a tracepoint in a loop): a hit at the front of the list,
	 * found without hashing and without the hash table's cache miss. The
	 * first 16 bytes (header, id) tell most other records apart at once.
	 */
	if (e->mru.nr && size >= 16) {
		uint8_t f = e->mru.ord[e->mru.head];
		const struct pp_mru_node *n = &e->mru.n[f];

		uint64_t a[2], b[2];

		memcpy(a, n->rec, 16);	/* inlined: two loads each */
		memcpy(b, src, 16);
		if (n->size == size && a[0] == b[0] && a[1] == b[1] &&
		    same_rec(n->rec, src, size, toff))
			hit = f;
	}
	if (hit < 0) {
		slot = &e->hash[rec_hash(src, size, toff) >> (64 - HASH_BITS)];
		rc_slot v = *slot;

		if (SLOT_NODE(v) < e->mru.nr) {
			const struct pp_mru_node *n = &e->mru.n[SLOT_NODE(v)];

			if (n->rec == lits + SLOT_LIT(v) && n->size == size &&
			    same_rec(n->rec, src, size, toff))
				hit = SLOT_NODE(v);
		}
	}
	if (toff) {
		uint64_t t, d;

		memcpy(&t, src + toff, 8);
		d = t - e->prev_time;
		e->ntimes += put_varint(e->buf + e->times_at + e->ntimes,
					d << 1 ^ (uint64_t)((int64_t)d >> 63));
		e->prev_time = t;
	}
	if (hit >= 0) {
		unsigned int pos = slot ? pp_mru_pos(&e->mru, (uint8_t)hit) : 0;

		e->buf[e->ops_at + e->nops++] = (uint8_t)(pos + 1);
		pp_mru_touch(&e->mru, (uint8_t)hit, pos, e->mru.n[hit].rec);
	} else {
		e->buf[e->ops_at + e->nops++] = 0;
		memcpy(lits + e->nlits, src, size);
		if (toff)
			memset(lits + e->nlits + toff, 0, 8);
		*slot = (uint32_t)(pp_mru_insert(&e->mru, lits + e->nlits, size) & 0xffu) << 24 |
			SLOT_LIT((uint32_t)e->nlits);
		e->nlits += size;
	}
	e->plain += size;
	e->nrec++;
}

/* Bytes that are no whole record (a torn tail): kept as a literal after the records. */
static void enc_tail(struct pp_reccache_enc *e, const uint8_t *src, size_t len)
{
	memcpy(e->buf + e->lits_at + e->nlits, src, len);
	e->nlits += len;
	e->plain += len;
}

size_t pp_reccache_enc__finish(struct pp_reccache_enc *e, uint8_t **payload)
{
	size_t p = e->lits_at - e->ntimes - e->nops - e->hdr;
	uint8_t *d = e->buf + p;

	memmove(e->buf + e->lits_at - e->ntimes, e->buf + e->times_at, e->ntimes);
	memmove(e->buf + e->lits_at - e->ntimes - e->nops, e->buf + e->ops_at, e->nops);
	pp_put_le32(d, (uint32_t)e->plain);
	pp_put_le32(d + 4, e->nrec);
	pp_put_le32(d + 8, e->nr_lay);
	pp_put_le32(d + 12, 0);
	d += HDR_SIZE;
	for (uint32_t i = 0; i < e->nr_lay; i++, d += 16) {
		memcpy(d, &e->lay[i].id, 8);
		pp_put_le32(d + 8, e->lay[i].time_off);
		pp_put_le32(d + 12, 0);
	}
	pp_put_le32(d, (uint32_t)e->nops);
	pp_put_le32(d + 4, (uint32_t)e->ntimes);
	pp_put_le32(d + 8, (uint32_t)e->nlits);
	pp_put_le32(d + 12, 0);
	*payload = e->buf + p;
	return e->hdr + e->nops + e->ntimes + e->nlits;
}

/**
 * pp_reccache_encode() - encode plain records.
 * @src: plain perf records; @len: their size (a torn tail is kept as a literal).
 * @lay: id -> time offset table; @nr_lay: its entries.
 * @dst: output of at least pp_reccache_bound() bytes.
 *
 * Return: the encoded size, 0 on ENOMEM.
 */
size_t pp_reccache_encode(const uint8_t *src, size_t len, const struct pp_rec_layout *lay,
			  uint32_t nr_lay, uint8_t *dst)
{
	struct pp_reccache_enc *e = pp_reccache_enc__new();
	uint8_t *buf = malloc(pp_reccache_bound(len, nr_lay)), *payload;
	size_t off = 0, n = 0;

	if (!e || !buf)
		goto out;
	pp_reccache_enc__start(e, buf, len, lay, nr_lay);
	while (len - off >= 8) {
		uint32_t type;
		uint16_t size;

		memcpy(&type, src + off, 4);
		memcpy(&size, src + off + 6, 2);
		if (size < 8 || size > len - off)
			break;
		pp_reccache_enc__add(e, src + off, size,
				     time_off_of(lay, nr_lay, src + off, type, size));
		off += size;
	}
	enc_tail(e, src + off, len - off);
	n = pp_reccache_enc__finish(e, &payload);
	memcpy(dst, payload, n);
out:
	free(buf);
	pp_reccache_enc__free(e);
	return n;
}

/**
 * pp_reccache_plain_size() - the decoded size an encoded payload declares.
 * Return: the size (at most PP_CHUNK_MAX_RAW), or -EBADMSG.
 */
int64_t pp_reccache_plain_size(const uint8_t *src, size_t len)
{
	if (len < HDR_SIZE || pp_get_le32(src) > PP_CHUNK_MAX_RAW)
		return -EBADMSG;
	return pp_get_le32(src);
}

/**
 * pp_reccache_literals() - call @fn for each record of an encoded payload
 * that is stored as a literal and is not a PERF_RECORD_SAMPLE, without
 * decoding the rest (--time reads the side-band of chunks before its window
 * this way). Side-band records carry no encoded time, so a literal is the
 * record as written; a copy op repeats an identical earlier record, which
 * is not handed out again.
 * @src, @len: the encoded payload; @fn, @ctx: called with each record (lent,
 * unaligned).
 * Return: 0, or -EBADMSG for a payload whose columns do not add up.
 */
int pp_reccache_literals(const uint8_t *src, size_t len,
			 void (*fn)(const uint8_t *rec, uint16_t size, void *ctx), void *ctx)
{
	uint32_t nrec, nr_lay, nops, ntimes, nlits, nr_lit = 0;
	const uint8_t *ops, *lits;
	size_t p, lpos = 0;

	if (len < HDR_SIZE)
		return -EBADMSG;
	nrec = pp_get_le32(src + 4);
	nr_lay = pp_get_le32(src + 8);
	if (nr_lay > (len - HDR_SIZE) / 16 || len - HDR_SIZE - (size_t)nr_lay * 16 < COLS_SIZE)
		return -EBADMSG;
	p = HDR_SIZE + (size_t)nr_lay * 16;
	nops = pp_get_le32(src + p);
	ntimes = pp_get_le32(src + p + 4);
	nlits = pp_get_le32(src + p + 8);
	p += COLS_SIZE;
	if (nops != nrec || (uint64_t)nops + ntimes + nlits != len - p)
		return -EBADMSG;
	ops = src + p;
	lits = ops + nops + ntimes;
	for (uint32_t r = 0; r < nops; r++)
		nr_lit += !ops[r];
	for (uint32_t r = 0; r < nr_lit; r++) {
		uint32_t type;
		uint16_t size;

		if (nlits - lpos < 8)
			return -EBADMSG;
		memcpy(&size, lits + lpos + 6, 2);
		if (size < 8 || size > nlits - lpos)
			return -EBADMSG;
		memcpy(&type, lits + lpos, 4);
		if (type != 9 /* PERF_RECORD_SAMPLE */)
			fn(lits + lpos, size, ctx);
		lpos += size;
	}
	return 0;
}

/**
 * pp_reccache_decode() - decode an encoded payload into plain records.
 * @src: encoded payload; @len: its size.
 * @o: output buffer of at least pp_reccache_plain_size() bytes.
 * @dst_len: receives the decoded size.
 *
 * Every count and offset is checked against the payload and the caps.
 * Return: 0, or -EBADMSG for a malformed payload, -ENOMEM.
 */
int pp_reccache_decode(const uint8_t *src, size_t len, uint8_t *o, size_t *dst_len)
{
	struct pp_mru st;
	struct pp_rec_layout *lay = NULL;
	size_t p = HDR_SIZE, tpos = 0, lpos = 0, out = 0;
	uint32_t plain, nrec, nr_lay, nops, ntimes, nlits;
	const uint8_t *ops, *times, *lits;
	uint64_t prev_time = 0;
	int err = -EBADMSG;

	if (len < HDR_SIZE)
		return -EBADMSG;
	pp_mru_init(&st, MRU_SIZE);
	plain = pp_get_le32(src);
	nrec = pp_get_le32(src + 4);
	nr_lay = pp_get_le32(src + 8);
	if (plain > PP_CHUNK_MAX_RAW || nr_lay > (len - HDR_SIZE) / 16)
		return -EBADMSG;
	if (len - HDR_SIZE - (size_t)nr_lay * 16 < COLS_SIZE)
		return -EBADMSG;
	lay = malloc(((size_t)nr_lay + 1) * sizeof(*lay));
	if (!lay) {
		err = -ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < nr_lay; i++, p += 16) {
		memcpy(&lay[i].id, src + p, 8);
		lay[i].time_off = pp_get_le32(src + p + 8);
	}
	qsort(lay, nr_lay, sizeof(*lay), lay_cmp);
	for (uint32_t i = 1; i < nr_lay; i++)
		if (lay[i].id == lay[i - 1].id)
			goto out;	/* two layouts for one event: which? */
	nops = pp_get_le32(src + p);
	ntimes = pp_get_le32(src + p + 4);
	nlits = pp_get_le32(src + p + 8);
	p += COLS_SIZE;
	if (nops != nrec || (uint64_t)nops + ntimes + nlits != len - p)
		goto out;
	ops = src + p;
	times = ops + nops;
	lits = times + ntimes;
	for (uint32_t r = 0; r < nrec; r++) {
		const uint8_t *rec;
		uint32_t type, toff;
		uint16_t size;
		uint64_t zz;

		if (ops[r]) {
			uint8_t i;

			if (pp_mru_take(&st, ops[r] - 1u, &i) || st.n[i].size > plain - out)
				goto out;
			size = st.n[i].size;
			memcpy(o + out, st.n[i].rec, size);
			/* Entries point into @o, which does not move. */
			st.n[i].rec = o + out;
		} else {
			if (nlits - lpos < 8)
				goto out;
			memcpy(&size, lits + lpos + 6, 2);
			if (size < 8 || size > nlits - lpos || size > plain - out)
				goto out;
			memcpy(o + out, lits + lpos, size);
			lpos += size;
			pp_mru_insert(&st, o + out, size);
		}
		rec = o + out;
		memcpy(&type, rec, 4);
		toff = time_off_sorted(lay, nr_lay, rec, type, size);
		if (toff) {
			uint64_t t;

			if (get_varint(times, ntimes, &tpos, &zz))
				goto out;
			t = prev_time + ((zz >> 1) ^ (uint64_t)-(int64_t)(zz & 1));
			memcpy(o + out + toff, &t, 8);
			prev_time = t;
		}
		out += size;
	}
	if (nlits - lpos != plain - out || tpos != ntimes)
		goto out;
	memcpy(o + out, lits + lpos, nlits - lpos);
	out += nlits - lpos;
	*dst_len = out;
	err = 0;
out:
	free(lay);
	return err;
}
