/* SPDX-License-Identifier: MIT */
/*
 * Private to analyzers/offcpu.c and analyzers/lock.c: both read BPF_AGG
 * chunks (spec/pp-bpf.md) with one engine, kept in offcpu.c.
 */
#ifndef PP_ANALYZERS_BPF_AGG_H
#define PP_ANALYZERS_BPF_AGG_H

#include <stdint.h>

struct pp_session;

int pp_bpf_agg_an__init(struct pp_session *s, uint16_t kind);
void pp_bpf_agg_an__report(struct pp_session *s);
void pp_bpf_agg_an__deinit(struct pp_session *s);

#endif /* PP_ANALYZERS_BPF_AGG_H */
