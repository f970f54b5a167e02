// SPDX-License-Identifier: MIT
/* Latency rows shared by blktrace, kvm-exit and kvmmmu (latrow.h). */
#include "latrow.h"
#include "sched-common.h"

void pp_latrow__header(struct pp_out *o, int width, const char *label)
{
	pp_out__printf(o, "%-*s %8s %10s %10s %10s %10s %10s %10s %10s\n", width, label, "calls",
		       "total", "min", "avg", "p50", "p95", "p99", "max");
}

void pp_latrow__text(struct pp_out *o, int width, const char *label, const struct pp_hist *h)
{
	struct pp_hist_stats hs;
	char b[7][16];

	pp_hist__stats(h, &hs);
	pp_out__printf(o, "%-*s %8llu %10s %10s %10s %10s %10s %10s %10s\n", width, label,
		       (unsigned long long)hs.calls, pp_sched_ns(b[0], hs.total),
		       pp_sched_ns(b[1], hs.min), pp_sched_ns(b[2], hs.avg), pp_sched_ns(b[3], hs.p50),
		       pp_sched_ns(b[4], hs.p95), pp_sched_ns(b[5], hs.p99), pp_sched_ns(b[6], hs.max));
}

static void latrow_members(struct pp_out *o, const struct pp_hist *h)
{
	struct pp_hist_stats hs;

	pp_hist__stats(h, &hs);
	pp_out__printf(o, "\"calls\":%llu,\"total\":%llu,\"min\":%llu,\"avg\":%llu,\"p50\":%llu,"
		       "\"p95\":%llu,\"p99\":%llu,\"max\":%llu", (unsigned long long)hs.calls,
		       (unsigned long long)hs.total, (unsigned long long)hs.min,
		       (unsigned long long)hs.avg, (unsigned long long)hs.p50,
		       (unsigned long long)hs.p95, (unsigned long long)hs.p99,
		       (unsigned long long)hs.max);
}

void pp_latrow__json_obj(struct pp_session *s, const struct pp_hist *h)
{
	struct pp_out *o = pp_session__out(s);

	pp_out__putc(o, '{');
	latrow_members(o, h);
	pp_out__putc(o, '}');
}

void pp_latrow__json(struct pp_session *s, const char *key, const struct pp_hist *h)
{
	struct pp_out *o = pp_session__out(s);

	pp_out__putc(o, ',');
	if (!key) {
		latrow_members(o, h);
		return;
	}
	pp_out__json_str(o, key);
	pp_out__putc(o, ':');
	pp_latrow__json_obj(s, h);
}
