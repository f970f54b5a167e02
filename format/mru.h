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
 * The decoder keeps the same list: an op names a position, whose node
 * pp_mru_take() brings to the front (one memmove of at most 255 bytes; a
 * list of pointers and sizes moved two arrays, 10 bytes an entry); a
 * literal is inserted as by the encoder. A literal goes in front by moving
 * head down (O(1); when head reaches 0 the live entries are moved back to
 * the end, once every PP_MRU_SLOTS - 255 literals).
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

/*
 * The decoder: the entry at position @pos (a hit) to the front. Its node
 * number goes to @node: the caller reads the record it stands for and points
 * it at the copy it makes. Return: 0, or -1 past the list's end.
 */
static inline int pp_mru_take(struct pp_mru *s, unsigned int pos, uint8_t *node)
{
	if ((int)pos >= s->nr)
		return -1;
	*node = s->ord[s->head + pos];
	memmove(&s->ord[s->head + 1], &s->ord[s->head], pos);
	s->ord[s->head] = *node;
	return 0;
}

#endif /* PP_FORMAT_MRU_H */
