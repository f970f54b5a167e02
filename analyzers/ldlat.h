/* SPDX-License-Identifier: MIT */
/*
 * ldlat-loads (analyzers/ldlat-loads.c): what its unit tests reach. The
 * data-source names are memsrc.h's.
 */
#ifndef PP_ANALYZERS_LDLAT_H
#define PP_ANALYZERS_LDLAT_H

#include <stdint.h>
#include "pp/replay.h"
#include "hist.h"

enum {
	PP_LDLAT_LOAD = 0,	/* a load: counted */
	PP_LDLAT_NOT_LOAD,	/* another op (IBS samples every op) */
	PP_LDLAT_NO_WEIGHT,	/* the event records no latency */
};

/**
 * pp_ldlat__classify() - the latency of a memory sample (cycles, into
 * *@lat) and whether the report counts it.
 * @sample_type: its event's; @weight, @data_src: the sample's.
 * Return: PP_LDLAT_LOAD, PP_LDLAT_NOT_LOAD or PP_LDLAT_NO_WEIGHT.
 */
int pp_ldlat__classify(uint64_t sample_type, uint64_t weight, uint64_t data_src, uint64_t *lat);

/**
 * pp_ldlat__events() - the event ldlat-loads records, chosen from the PMUs
 * under @root (PP_PMU_SYSFS; tests: a copy): Intel cpu (or cpu_core) with a
 * mem-loads alias, else ibs_op.
 * @o: its options (--ldlat, -F, -g, exclusions); @out: receives one request.
 * Return: 0; -ENODEV with @out->err "no PEBS mem-loads or AMD IBS op PMU on
 * this host" (or naming the mem-loads-aux group a CPU needs); -EINVAL on a
 * bad --ldlat.
 */
int pp_ldlat__events(const char *root, const struct pp_opts *o, struct pp_event_reqs *out);

/**
 * pp_ldlat__row() - one text row of a table: @label, loads, share of
 * @share_of, min, avg, p50, p95, p99, max of @h (cycles).
 */
void pp_ldlat__row(struct pp_out *o, const char *label, const struct pp_hist *h, uint64_t share_of);

#endif /* PP_ANALYZERS_LDLAT_H */
