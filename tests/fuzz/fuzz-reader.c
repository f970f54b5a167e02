// SPDX-License-Identifier: MIT
/*
 * libFuzzer target over the trace reader: open the input as a trace, walk
 * every chunk, the index, and the items and records inside the payloads.
 * Any crash, out-of-bounds access or undefined behaviour is a reader bug.
 */
#include <stddef.h>
#include <stdint.h>
#include "pp/bpf-agg.h"
#include "pp/io.h"
#include "pp/meta.h"
#include "pp/reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void walk_payload(const struct pp_chunk *c, struct pp_bpf_stacks *stacks)
{
	struct pp_item_iter it;
	struct pp_item item;

	if (c->hdr->type == PP_CHUNK_DATA) {
		struct pp_rec_iter ri;
		struct pp_rec rec;

		pp_rec_iter__init(&ri, c->data, c->size);
		while (pp_rec_iter__next(&ri, &rec))
			;
		return;
	}
	if (c->hdr->type == PP_CHUNK_MACHINE) {
		(void)pp_machine__get(c->data, c->size, "hostname");
		return;
	}
	if (c->hdr->type == PP_CHUNK_BPF_AGG) {
		/* the table spans the file, as in the replay core */
		pp_item_iter__init(&it, c->data, c->size);
		while (pp_item_iter__next(&it, &item)) {
			struct pp_bpf_agg_entry e;
			struct pp_bpf_agg_window w;
			volatile uint64_t sum = 0;
			int k = pp_bpf_agg__decode(&item, stacks, &e, &w);

			if (k != PP_BPF_AGG_OFFCPU && k != PP_BPF_AGG_LOCK)
				continue;
			for (unsigned int i = 0; i < e.s.nr_kernel; i++)
				sum += pp_bpf_agg__ip(e.kernel_ips, i);
			for (unsigned int i = 0; i < e.s.nr_user; i++)
				sum += pp_bpf_agg__ip(e.user_ips, i);
			for (unsigned int i = 0; e.has_waker && i < e.waker.nr_user; i++)
				sum += pp_bpf_agg__ip(e.waker_ips, i);
			(void)sum;
		}
		return;
	}
	pp_item_iter__init(&it, c->data, c->size);
	while (pp_item_iter__next(&it, &item)) {
		struct pp_cur cur;
		const char *s;
		uint64_t v;

		pp_cur__init(&cur, item.body, item.size);
		while (!pp_cur__str(&cur, &s) && !pp_cur__u64(&cur, &v))
			;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pp_io *io = pp_io_mem__new(data, size, 0);
	const struct pp_index_entry *idx;
	struct pp_reader *r;
	struct pp_bpf_stacks *stacks;
	struct pp_chunk c;
	size_t nr;

	if (!io)
		return 0;
	stacks = pp_bpf_stacks__new();
	r = stacks ? pp_reader__open(io, NULL) : NULL;
	if (r) {
		idx = pp_reader__index(r, &nr);
		for (size_t i = 0; idx && i < nr && i < 64; i++)
			if (pp_reader__read_at(r, idx[i].offset, &c) == 1)
				walk_payload(&c, stacks);
		pp_reader__seek(r, 0);
		while (pp_reader__next(r, &c) == 1)
			walk_payload(&c, stacks);
		pp_reader__free(r);
	}
	pp_bpf_stacks__free(stacks);
	pp_io__free(io);
	return 0;
}
