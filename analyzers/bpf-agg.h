/* SPDX-License-Identifier: MIT */
/*
 * Private to analyzers/offcpu.c and analyzers/lock.c: both take BPF
 * aggregate items from the replay core with one engine, kept in offcpu.c:
 * pp_bpf_agg_view__, the modules' view of the aggregates (the replay core's
 * side is pp_bpf_agg_feed__, the file codec pp_bpf_agg__).
 */
#ifndef PP_ANALYZERS_BPF_AGG_H
#define PP_ANALYZERS_BPF_AGG_H

#include <stdint.h>

struct pp_session;
struct pp_bpf_item;

int pp_bpf_agg_view__init(struct pp_session *s, int kind);
void pp_bpf_agg_view__item(struct pp_session *s, const struct pp_bpf_item *it);
void pp_bpf_agg_view__report(struct pp_session *s);
/* The options offcpu and lock accept beyond the common ones (--pprof FILE). */
extern const struct pp_mod_opt pp_bpf_agg_view_opts[];
void pp_bpf_agg_view__deinit(struct pp_session *s);

#endif /* PP_ANALYZERS_BPF_AGG_H */
