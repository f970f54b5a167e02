// SPDX-License-Identifier: MIT
/*
 * kvmmmu: the KVM MMU building the guest's page tables (shadow or TDP).
 *
 * Counts per page role (level, direct or shadow, access, guest mode, SMM):
 * page-table pages created (kvmmmu:kvm_mmu_get_page with created), found
 * already there (without), zapped (kvm_mmu_prepare_zap_page); mappings
 * installed per level (kvm_mmu_set_spte, kvm_tdp_mmu_spte_changed to a
 * present spte), fast page faults, huge pages split.
 *
 * Latencies per vCPU thread (--perins: each thread), the steps of a fault:
 * fault -> request (kvm:kvm_page_fault -> kvm_mmu_spte_requested: finding the
 * host page), request -> map (-> the spte of that gfn is set, page-table
 * pages allocated on the way), and fault -> map, the whole.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pp/replay.h"
#include "analyzers.h"
#include "hist.h"
#include "json.h"
#include "latrow.h"
#include "sched-common.h"
#include "kvmmmu.h"

enum { KM_FAULT, KM_GET, KM_ZAP, KM_REQ, KM_SET, KM_TDP, KM_FAST, KM_SPLIT, KM_NR };
static const char *const km_event[KM_NR] = {
	"kvm:kvm_page_fault", "kvmmmu:kvm_mmu_get_page", "kvmmmu:kvm_mmu_prepare_zap_page",
	"kvmmmu:kvm_mmu_spte_requested", "kvmmmu:kvm_mmu_set_spte",
	"kvmmmu:kvm_tdp_mmu_spte_changed", "kvmmmu:fast_page_fault",
	"kvmmmu:kvm_mmu_split_huge_page",
};

enum { KL_FAULT_REQ, KL_REQ_MAP, KL_FAULT_MAP, KL_NR };
static const char *const kl_name[KL_NR] = { "fault->request", "request->map", "fault->map" };

#define KM_LEVELS	6

struct km_vcpu {
	uint64_t fault, req;		/* times, 0 = none open */
	uint64_t gfn;			/* of the request */
};

struct km_role {
	uint32_t tid, role;
	uint64_t created, found, zapped;
};

struct km_lat {
	uint32_t tid;
	int stage;
	struct pp_hist h;
};

struct km_thread {
	uint32_t tid;
	uint64_t mapped[KM_LEVELS + 1];	/* by level, 0 = unknown */
	uint64_t fast, split, faults;
};

struct kvmmmu {
	const struct pp_evsel *ev[KM_NR];
	struct tep_format_field *gfn_f[KM_NR], *role_f[KM_NR], *level_f[KM_NR];
	struct tep_format_field *created_f, *new_spte_f;
	struct pp_kmap vcpus;		/* tid -> km_vcpu */
	struct pp_kmap roles;		/* tid << 32 | role -> km_role */
	struct pp_kmap lats;		/* tid << 8 | stage -> km_lat */
	struct pp_kmap threads;		/* tid -> km_thread */
	uint64_t lost;
	uint64_t total[KM_NR];		/* events of each kind in the whole trace */
};

char *pp_kvm_mmu_role(uint32_t word, char *buf, size_t len)
{
	static const char *const access[8] = { "---", "--x", "w--", "w-x", "-u-", "-ux", "wu-", "wux" };
	unsigned int level = word & 0xf, direct = (word >> 7) & 1, acc = (word >> 8) & 7;
	unsigned int guest_mode = (word >> 17) & 1, smm = (word >> 24) & 0xff;

	snprintf(buf, len, "L%u %s %s%s%s", level, direct ? "direct" : "shadow", access[acc],
		 guest_mode ? " nested" : "", smm ? " smm" : "");
	return buf;
}

/* What a role is counted by: level, direct, access, guest mode, SMM. */
static uint32_t km_role_key(uint32_t word)
{
	return (word & 0xf) | (word & (1u << 7)) | (word & (7u << 8)) | (word & (1u << 17)) |
	       ((word >> 24) & 0xff ? 1u << 24 : 0);
}

static int km_events(const struct pp_opts *o, struct pp_event_reqs *out)
{
	(void)o;
	out->nr = KM_NR;
	for (int i = 0; i < KM_NR; i++)
		out->req[i].spec = km_event[i];
	return 0;
}

static int km_init(struct pp_session *s)
{
	struct kvmmmu *km = calloc(1, sizeof(*km));
	size_t nr;
	struct pp_evsel *evs = pp_session__evsels(s, &nr);
	int any = 0;

	if (!km)
		return -ENOMEM;
	pp_session__set_priv(s, km);
	pp_kmap__init(&km->vcpus, sizeof(struct km_vcpu));
	pp_kmap__init(&km->roles, sizeof(struct km_role));
	pp_kmap__init(&km->lats, sizeof(struct km_lat));
	pp_kmap__init(&km->threads, sizeof(struct km_thread));
	for (size_t i = 0; i < nr; i++)
		for (int k = 0; k < KM_NR; k++) {
			if (!evs[i].tp || strcmp(evs[i].name, km_event[k]))
				continue;
			km->ev[k] = &evs[i];
			km->gfn_f[k] = pp_evsel__field(&evs[i], "gfn");
			km->role_f[k] = pp_evsel__field(&evs[i], "role");
			km->level_f[k] = pp_evsel__field(&evs[i], "level");
			if (k == KM_GET)
				km->created_f = pp_evsel__field(&evs[i], "created");
			if (k == KM_TDP)
				km->new_spte_f = pp_evsel__field(&evs[i], "new_spte");
			any |= k != KM_FAULT;
		}
	if (!any)
		return pp_analyzer__err("kvmmmu", -ENOENT, "the trace has no kvmmmu events; record with: "
			"pp-record kvmmmu");
	return 0;
}

static void km_lat(struct pp_session *s, struct kvmmmu *km, uint32_t tid, int stage, uint64_t d)
{
	uint32_t k = pp_session__opts(s)->perins ? tid : 0;
	int created;
	struct km_lat *l = pp_kmap__get(&km->lats, (uint64_t)k << 8 | (uint64_t)stage, &created);

	if (!l)
		return;
	if (created) {
		l->tid = k;
		l->stage = stage;
		pp_hist__init(&l->h);
	}
	pp_hist__add(&l->h, d);
}

static struct km_thread *km_thread(struct pp_session *s, struct kvmmmu *km, uint32_t tid)
{
	uint32_t k = pp_session__opts(s)->perins ? tid : 0;
	int created;
	struct km_thread *t = pp_kmap__get(&km->threads, k, &created);

	if (t && created)
		t->tid = k;
	return t;
}

static void km_mapped(struct pp_session *s, struct kvmmmu *km, const struct pp_event *e,
		      struct km_vcpu *v, uint64_t gfn, uint64_t level)
{
	struct km_thread *t = km_thread(s, km, e->tid);

	if (t)
		t->mapped[level <= KM_LEVELS ? level : 0]++;
	if (!v)
		return;
	/* The spte a request asked for: the request (and its fault) end here. */
	if (v->req && gfn == v->gfn && e->time >= v->req) {
		km_lat(s, km, e->tid, KL_REQ_MAP, e->time - v->req);
		if (v->fault && v->fault <= v->req)
			km_lat(s, km, e->tid, KL_FAULT_MAP, e->time - v->fault);
		v->req = 0;
		v->fault = 0;
	}
}

static void km_sample(struct pp_session *s, const struct pp_event *e)
{
	struct kvmmmu *km = pp_session__priv(s);
	struct km_vcpu *v;
	uint64_t gfn = 0, level = 0, x = 0;
	int k;

	for (k = 0; k < KM_NR; k++)
		if (e->evsel == km->ev[k])
			break;
	if (k == KM_NR)
		return;
	km->total[k]++;
	v = pp_kmap__get(&km->vcpus, e->tid, NULL);
	if (km->gfn_f[k])
		pp_event__num(e, km->gfn_f[k], &gfn);
	if (km->level_f[k])
		pp_event__num(e, km->level_f[k], &level);
	switch (k) {
	case KM_FAULT: {
		struct km_thread *t = km_thread(s, km, e->tid);

		if (t)
			t->faults++;
		if (v) {
			v->fault = e->time;
			v->req = 0;
		}
		break;
	}
	case KM_REQ:
		if (!v)
			break;
		if (v->fault && e->time >= v->fault)
			km_lat(s, km, e->tid, KL_FAULT_REQ, e->time - v->fault);
		v->req = e->time;
		v->gfn = gfn;
		break;
	case KM_SET:
		km_mapped(s, km, e, v, gfn, level);
		break;
	case KM_TDP:
		/* a present leaf: bit 11 (SPTE_MMU_PRESENT) set in the new spte */
		if (km->new_spte_f && !pp_event__num(e, km->new_spte_f, &x) && (x & (1ull << 11)))
			km_mapped(s, km, e, v, gfn, level);
		break;
	case KM_GET:
	case KM_ZAP: {
		uint64_t role = 0, created = 0;
		uint32_t tid = pp_session__opts(s)->perins ? e->tid : 0, rk;
		struct km_role *r;
		int c;

		if (!km->role_f[k] || pp_event__num(e, km->role_f[k], &role))
			break;
		rk = km_role_key((uint32_t)role);
		r = pp_kmap__get(&km->roles, (uint64_t)tid << 32 | rk, &c);
		if (!r)
			break;
		if (c) {
			r->tid = tid;
			r->role = rk;
		}
		if (k == KM_ZAP)
			r->zapped++;
		else if (km->created_f && !pp_event__num(e, km->created_f, &created) && created)
			r->created++;
		else
			r->found++;
		break;
	}
	case KM_FAST:
	case KM_SPLIT: {
		struct km_thread *t = km_thread(s, km, e->tid);

		if (t && k == KM_FAST)
			t->fast++;
		else if (t)
			t->split++;
		break;
	}
	}
}

static void km_lost(struct pp_session *s, const struct pp_lost *l)
{
	struct kvmmmu *km = pp_session__priv(s);

	(void)l;
	for (size_t i = 0; i < km->vcpus.cap; i++) {
		struct km_vcpu *v = pp_kmap__nth(&km->vcpus, i, NULL);

		if (v)
			v->fault = v->req = 0;
	}
	km->lost++;
}

static int cmp_role(const void *a, const void *b)
{
	const struct km_role *x = *(const struct km_role *const *)a;
	const struct km_role *y = *(const struct km_role *const *)b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->role < y->role ? -1 : x->role > y->role;
}

static void km_print(struct pp_session *s, uint64_t now)
{
	struct kvmmmu *km = pp_session__priv(s);
	const struct pp_opts *o = pp_session__opts(s);
	struct pp_out *out = pp_session__out(s);
	size_t n = 0, cap = km->roles.nr ? km->roles.nr : 1;
	struct km_role **roles = malloc(cap * sizeof(*roles));
	char tb[32], rb[64], label[96];

	if (!roles)
		return;
	pp_session__format_time(s, now, tb);
	for (size_t i = 0; i < km->roles.cap; i++) {
		struct km_role *r = pp_kmap__nth(&km->roles, i, NULL);

		if (r && (r->created || r->found || r->zapped))
			roles[n++] = r;
	}
	qsort(roles, n, sizeof(*roles), cmp_role);
	if (!o->json)
		pp_out__printf(out, "%s KVM MMU\n%spage-table pages by role %10s %10s %10s\n", tb,
			       o->perins ? "            vcpu thread " : "", "created", "found", "zapped");
	for (size_t i = 0; i < n; i++) {
		struct km_role *r = roles[i];

		pp_kvm_mmu_role(r->role, rb, sizeof(rb));
		if (o->json) {
			pp_json__begin(s, "role", now);
			if (o->perins) {
				pp_json__str(s, "comm", pp_session__comm(s, r->tid));
				pp_json__u64(s, "tid", r->tid);
			}
			pp_json__str(s, "role", rb);
			pp_json__u64(s, "created", r->created);
			pp_json__u64(s, "found", r->found);
			pp_json__u64(s, "zapped", r->zapped);
			pp_json__end(s);
		} else {
			if (o->perins)
				pp_out__printf(out, "%16s %7u ", pp_session__comm(s, r->tid), r->tid);
			pp_out__printf(out, "  %-22s %10llu %10llu %10llu\n", rb,
				       (unsigned long long)r->created, (unsigned long long)r->found,
				       (unsigned long long)r->zapped);
		}
		r->created = r->found = r->zapped = 0;
	}
	free(roles);
	for (size_t i = 0; i < km->threads.cap; i++) {
		struct km_thread *t = pp_kmap__nth(&km->threads, i, NULL);
		uint64_t total = 0;

		if (!t)
			continue;
		for (int l = 0; l <= KM_LEVELS; l++)
			total += t->mapped[l];
		if (!total && !t->faults && !t->fast && !t->split)
			continue;
		if (o->json) {
			pp_json__begin(s, "maps", now);
			if (o->perins) {
				pp_json__str(s, "comm", pp_session__comm(s, t->tid));
				pp_json__u64(s, "tid", t->tid);
			}
			pp_json__u64(s, "faults", t->faults);
			pp_json__u64(s, "mapped", total);
			for (int l = 1; l <= KM_LEVELS; l++) {
				char key[16];

				snprintf(key, sizeof(key), "L%d", l);
				if (t->mapped[l])
					pp_json__u64(s, key, t->mapped[l]);
			}
			pp_json__u64(s, "fast", t->fast);
			pp_json__u64(s, "split", t->split);
			pp_json__end(s);
		} else {
			if (o->perins)
				pp_out__printf(out, "%16s %7u ", pp_session__comm(s, t->tid), t->tid);
			pp_out__printf(out, "faults %llu, mappings %llu (", (unsigned long long)t->faults,
				       (unsigned long long)total);
			for (int l = 1, first = 1; l <= KM_LEVELS; l++)
				if (t->mapped[l]) {
					pp_out__printf(out, "%sL%d %llu", first ? "" : ", ", l,
						       (unsigned long long)t->mapped[l]);
					first = 0;
				}
			pp_out__printf(out, "), fast page faults %llu, huge pages split %llu\n",
				       (unsigned long long)t->fast, (unsigned long long)t->split);
		}
		memset(t->mapped, 0, sizeof(t->mapped));
		t->faults = t->fast = t->split = 0;
	}
	if (!o->json)
		pp_latrow__header(out, o->perins ? 40 : 16, "latency");
	for (size_t i = 0; i < km->lats.cap; i++) {
		struct km_lat *l = pp_kmap__nth(&km->lats, i, NULL);

		if (!l || !l->h.calls)
			continue;
		if (o->json) {
			pp_json__begin(s, "latency", now);
			if (o->perins) {
				pp_json__str(s, "comm", pp_session__comm(s, l->tid));
				pp_json__u64(s, "tid", l->tid);
			}
			pp_json__str(s, "stage", kl_name[l->stage]);
			pp_latrow__json(s, NULL, &l->h);
			pp_json__end(s);
		} else {
			if (o->perins)
				snprintf(label, sizeof(label), "%16s %7u %-15s", pp_session__comm(s, l->tid),
					 l->tid, kl_name[l->stage]);
			else
				snprintf(label, sizeof(label), "%s", kl_name[l->stage]);
			pp_latrow__text(out, o->perins ? 40 : 16, label, &l->h);
		}
		pp_hist__reset(&l->h);
	}
}

static void km_report(struct pp_session *s)
{
	struct kvmmmu *km = pp_session__priv(s);

	const struct pp_opts *o = pp_session__opts(s);
	uint64_t any = 0;

	if (!o->interval_ns)
		km_print(s, pp_session__stats(s)->last_ts);
	for (int k = 0; k < KM_NR; k++)
		any += km->total[k];
	if (o->json) {
		pp_json__begin(s, "summary", pp_session__stats(s)->last_ts);
		for (int k = 0; k < KM_NR; k++)
			pp_json__u64(s, strchr(km_event[k], ':') + 1, km->total[k]);
		pp_json__end(s);
	} else if (!any) {
		pp_out__printf(pp_session__out(s), "no KVM MMU events in the file: no guest faulted "
			       "its memory in\n");
	}
	if (km->lost)
		pp_analyzer__warn("kvmmmu", "%llu lost windows: faults open across them were "
			"dropped", (unsigned long long)km->lost);
}

static void km_deinit(struct pp_session *s)
{
	struct kvmmmu *km = pp_session__priv(s);

	if (!km)
		return;
	for (size_t i = 0; i < km->lats.cap; i++) {
		struct km_lat *l = pp_kmap__nth(&km->lats, i, NULL);

		if (l)
			pp_hist__exit(&l->h);
	}
	pp_kmap__exit(&km->lats);
	pp_kmap__exit(&km->roles);
	pp_kmap__exit(&km->vcpus);
	pp_kmap__exit(&km->threads);
	free(km);
}

const struct pp_analyzer pp_analyzer_kvmmmu = {
	.name = "kvmmmu",
	.desc = "KVM MMU: page-table pages per role, mappings per level, fault -> map latency",
	.help = "pp-analyze kvmmmu [--perins] [-i MS] [--json] [FILE]\n"
		"  page-table pages created, found and zapped per role (level, direct/shadow,\n"
		"  access, nested, smm); mappings per level; latency fault -> request -> map\n"
		"  per vCPU thread with --perins\n"
		"  record with: pp-record kvmmmu -p VMM_PID (or -- VMM ...)\n",
	.no_symbols = 1,
	.opts = PP_OPT_INTERVAL | PP_OPT_PERINS | PP_OPT_JSON,
	.events = km_events,
	.init = km_init,
	.sample = km_sample,
	.lost = km_lost,
	.interval = km_print,
	.report = km_report,
	.deinit = km_deinit,
};
