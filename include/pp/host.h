/* SPDX-License-Identifier: MIT */
/*
 * What the capture library reads of this host for a trace's metadata, so a
 * recording and a live run describe the machine and the event formats alike
 * (record/host.c).
 */
#ifndef PP_HOST_H
#define PP_HOST_H

#include "pp/meta.h"

struct pp_evdescs;

/**
 * pp_host__describe() - the MACHINE keys of this host: hostname, sysname,
 * release, version, machine, nr_cpus, cpus (@cpulist), page_size, cmdline
 * (@cmdline), clock, and start_realtime_ns/start_monotonic_ns read back to
 * back (spec/pp-trace-format.md 5.1).
 * @b: MACHINE payload to append to.
 * Return: 0, or -ENOMEM (@b's sticky error).
 */
int pp_host__describe(struct pp_buf *b, const char *cpulist, const char *cmdline);

/**
 * pp_host__formats() - the FORMATS items of @ds: this host's header_page,
 * the format of every tracepoint in @ds, then printk_formats
 * (spec/pp-trace-format.md 5.3).
 * @b: FORMATS payload to append to; @ds: the events.
 * Return: 0, or -ENOMEM (@b's sticky error).
 */
int pp_host__formats(struct pp_buf *b, const struct pp_evdescs *ds);

#endif /* PP_HOST_H */
