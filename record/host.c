// SPDX-License-Identifier: MIT
/*
 * The metadata a trace carries about this host (include/pp/host.h), written
 * once for pp-record and for the live source of pp-analyze.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "pp/evspec.h"
#include "pp/host.h"
#include "pp/tracefs.h"

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * "MAJ:MIN=NAME,..." of /proc/partitions: block tracepoints carry only a
 * dev_t, and the analyzing host has other devices (blktrace names them).
 */
static void block_devices(struct pp_buf *b)
{
	FILE *f = fopen("/proc/partitions", "r");
	char line[256], name[64], list[4096];
	unsigned int maj, min;
	unsigned long long blocks;
	size_t len = 0;

	if (!f)
		return;
	list[0] = 0;
	while (fgets(line, sizeof(line), f)) {
		int n;

		if (sscanf(line, "%u %u %llu %63s", &maj, &min, &blocks, name) != 4)
			continue;
		n = snprintf(list + len, sizeof(list) - len, "%s%u:%u=%s", len ? "," : "", maj, min,
			     name);
		if (n < 0 || (size_t)n >= sizeof(list) - len)
			break;		/* the first devices are the disks; partitions follow */
		len += (size_t)n;
	}
	fclose(f);
	if (len)
		pp_machine__put(b, "block_devices", list);
}

/**
 * pp_host__describe() - the MACHINE keys of this host.
 * @b: payload; @cpulist: the CPUs recorded ("0-1", "0,1"); @cmdline: the command.
 * Return: 0 or -ENOMEM.
 */
int pp_host__describe(struct pp_buf *b, const char *cpulist, const char *cmdline)
{
	struct utsname u;
	char v[64];
	uint64_t rt, mt;

	if (!uname(&u)) {
		pp_machine__put(b, "hostname", u.nodename);
		pp_machine__put(b, "sysname", u.sysname);
		pp_machine__put(b, "release", u.release);
		pp_machine__put(b, "version", u.version);
		pp_machine__put(b, "machine", u.machine);
	}
	snprintf(v, sizeof(v), "%ld", sysconf(_SC_NPROCESSORS_CONF));
	pp_machine__put(b, "nr_cpus", v);
	pp_machine__put(b, "cpus", cpulist);
	snprintf(v, sizeof(v), "%ld", sysconf(_SC_PAGESIZE));
	pp_machine__put(b, "page_size", v);
	pp_machine__put(b, "cmdline", cmdline);
	pp_machine__put(b, "clock", "monotonic");
	block_devices(b);
	/* read back to back: the wall-clock time of an event is derived from them */
	rt = clock_ns(CLOCK_REALTIME);
	mt = clock_ns(CLOCK_MONOTONIC);
	snprintf(v, sizeof(v), "%llu", (unsigned long long)rt);
	pp_machine__put(b, "start_realtime_ns", v);
	snprintf(v, sizeof(v), "%llu", (unsigned long long)mt);
	pp_machine__put(b, "start_monotonic_ns", v);
	return b->error ? -ENOMEM : 0;
}

/**
 * pp_host__formats() - header_page, the tracepoints' formats, printk_formats.
 * @b: payload; @ds: the events.
 * Return: 0 or -ENOMEM.
 */
int pp_host__formats(struct pp_buf *b, const struct pp_evdescs *ds)
{
	char *t = pp_tracefs_read("events/header_page", NULL);

	if (t)
		pp_tracefs_put_format(b, PP_FMT_HEADER_PAGE, "", "header_page", t);
	free(t);
	for (int i = 0; i < ds->nr; i++) {
		const struct pp_evdesc *d = &ds->v[i];

		if (d->format)
			pp_tracefs_put_format(b, PP_FMT_EVENT, d->sys, d->event, d->format);
	}
	t = pp_tracefs_read("printk_formats", NULL);
	if (t)
		pp_tracefs_put_format(b, PP_FMT_PRINTK, "", "printk_formats", t);
	free(t);
	return b->error ? -ENOMEM : 0;
}
