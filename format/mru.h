/* SPDX-License-Identifier: MIT */
/*
 * The most-recently-used list of the DATA record caches (encodings 1 and 2,
 * format/reccache.c and format/fieldcode.c): the same list for both, of 255
 * entries (encoding 1) or 254 (encoding 2, whose op 255 is a field literal).
 *
 * The encoder keeps the records in nodes and their order as an array of
 * node numbers, most recent first, in entries head..head+nr-1 of a longer
 * array. A node's position is found with memchr and a hit moves the entries
 * before it by one with memmove: both vectorised over at most 255 bytes,
 * where walking a linked list chased up to 255 dependent pointers (the
 * encoder's hottest loop when many distinct records recur).
 *
 * The decoder's view of the same list (struct pp_mru_ring): a literal goes
 * in front by moving head down (O(1); when head reaches 0 the live entries
 * are moved back to the end, once every PP_MRU_SLOTS - 255 literals); a hit
 * at position p moves the p entries before it by one.
 */
#ifndef PP_FORMAT_MRU_H
#define PP_FORMAT_MRU_H

#include <stdint.h>
#include <string.h>

#define PP_MRU_MAX	255
#define PP_MRU_SLOTS	2048

struct pp_mru_node {
	const uint8_t *rec;
	uint16_t size;
};

struct pp_mru {
	struct pp_mru_node n[PP_MRU_MAX];
	unsigned int head;
	int nr, cap;
	uint8_t ord[PP_MRU_SLOTS];
};

/* An empty list of at most @cap (<= PP_MRU_MAX) entries. */
static inline void pp_mru_init(struct pp_mru *s, int cap)
{
	s->head = PP_MRU_SLOTS;
	s->nr = 0;
	s->cap = cap;
}

/* List position of node @i (in the list). */
static inline unsigned int pp_mru_pos(const struct pp_mru *s, uint8_t i)
{
	const uint8_t *f = &s->ord[s->head], *p = memchr(f, i, (size_t)s->nr);

	return (unsigned int)(p - f);
}

/* Node @i (a hit at position @pos) to the front, now standing for @rec. */
static inline void pp_mru_touch(struct pp_mru *s, uint8_t i, unsigned int pos, const uint8_t *rec)
{
	memmove(&s->ord[s->head + 1], &s->ord[s->head], pos);
	s->ord[s->head] = i;
	s->n[i].rec = rec;
}

/* A literal: a new node, or the least recently used one, at the front. */
static inline uint8_t pp_mru_insert(struct pp_mru *s, const uint8_t *rec, uint16_t size)
{
	uint8_t i;

	if (s->nr < s->cap) {
		i = (uint8_t)s->nr;
	} else {
		i = s->ord[s->head + (unsigned int)s->nr - 1];
		s->nr--;
	}
	if (!s->head) {
		unsigned int to = PP_MRU_SLOTS - (unsigned int)s->nr;

		memmove(&s->ord[to], &s->ord[0], (size_t)s->nr);
		s->head = to;
	}
	s->ord[--s->head] = i;
	s->nr++;
	s->n[i].rec = rec;
	s->n[i].size = size;
	return i;
}

struct pp_mru_ring {
	const uint8_t *rec[PP_MRU_SLOTS];
	uint16_t size[PP_MRU_SLOTS];
	unsigned int head;
	int nr, cap;
};

static inline void pp_mru_ring_init(struct pp_mru_ring *r, int cap)
{
	r->head = PP_MRU_SLOTS;
	r->nr = 0;
	r->cap = cap;
}

/* Entry at position @pos to the front, now standing for @rec. Return: 0 or -1. */
static inline int pp_mru_ring_hit(struct pp_mru_ring *r, unsigned int pos, const uint8_t **rec,
				  uint16_t *size)
{
	unsigned int h = r->head;

	if ((int)pos >= r->nr)
		return -1;
	*rec = r->rec[h + pos];
	*size = r->size[h + pos];
	memmove(&r->rec[h + 1], &r->rec[h], pos * sizeof(r->rec[0]));
	memmove(&r->size[h + 1], &r->size[h], pos * sizeof(r->size[0]));
	r->rec[h] = *rec;
	r->size[h] = *size;
	return 0;
}

static inline void pp_mru_ring_insert(struct pp_mru_ring *r, const uint8_t *rec, uint16_t size)
{
	if (r->nr == r->cap)
		r->nr--;		/* the last one falls off */
	if (!r->head) {
		unsigned int to = PP_MRU_SLOTS - (unsigned int)r->nr;

		memmove(&r->rec[to], &r->rec[0], (size_t)r->nr * sizeof(r->rec[0]));
		memmove(&r->size[to], &r->size[0], (size_t)r->nr * sizeof(r->size[0]));
		r->head = to;
	}
	r->head--;
	r->rec[r->head] = rec;
	r->size[r->head] = size;
	r->nr++;
}

#endif /* PP_FORMAT_MRU_H */
