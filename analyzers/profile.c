// SPDX-License-Identifier: MIT
/*
 * profile: stacks sampled at a frequency (cpu-clock, -F HZ, default 99),
 * printed folded ("comm;outer;...;inner N", kernel frames "_[k]") and, with
 * --flame-graph FILE, written to FILE.folded and FILE.svg; with -i each
 * interval is a time slice of the flame graph.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include "pp/replay.h"
#include "analyzers.h"
#include "flamegraph.h"

/*
 * Flame-graph frame ids by (symbol version, ip): samples repeat the same
 * frames, and a hit skips the symbol search and the hashing of the name.
 * The version stands for the process's maps (shared by forked processes)
 * or the kernel's symbols, so no pid is needed.
 */
#define PROFILE_CACHE_BITS	12

struct frame_ent {
	uint64_t ip;
	uint64_t ver;
	uint32_t id;
	uint32_t used;
};

/* The comm frame's id by thread, while the comm stays the same. */
#define PROFILE_COMM_SIZE	1024

struct comm_ent {
	uint32_t tid1;		/* tid + 1, 0 = empty */
	uint32_t id;
	char comm[16];
};

/*
 * Whole call chains: the frame ids a raw callchain (context markers
 * included) folds to, under the kernel's and the process's symbol
 * versions. Samples repeat their call chains (a quarter of them are new in
 * a busy system-wide recording), and a known one skips every frame. The
 * chains and ids live in two pools, dropped together when they grow large.
 */
#define PROFILE_CHAINS		4096
#define PROFILE_CHAIN_MAX	512		/* longer ones are not kept */
#define PROFILE_POOL_MAX	(4u << 20)	/* entries of either pool */

struct chain_ent {
	uint64_t hash;
	uint64_t kver, uver;
	uint32_t chain_off, nr_chain;	/* in chain_pool */
	uint32_t ids_off, nr_ids;	/* in ids_pool */
	uint32_t epoch;			/* valid while equal to profile.epoch */
};

struct profile {
	struct chain_ent *chains;
	uint64_t *chain_pool;
	uint32_t *ids_pool;
	uint32_t chain_len, chain_cap, ids_len, ids_cap;
	uint32_t epoch;
	struct pp_flame *fg;
	char names[256][128];
	const char *frames[256];
	int sliced;
	struct frame_ent cache[1u << PROFILE_CACHE_BITS];
	struct comm_ent comms[PROFILE_COMM_SIZE];
	uint32_t ids[256];
	uint64_t ips[256];
	uint8_t kern[256];
};

static int profile_events(const struct pp_opts *o, struct pp_event_reqs *out)
{
	struct pp_event_req *r = &out->req[0];

	out->nr = 1;
	r->spec = "cpu-clock";
	r->callchain = 1;
	r->freq = o->freq ? o->freq : 99;
	r->exclude_user = o->exclude_user;
	r->exclude_kernel = o->exclude_kernel;
	return 0;
}

static int profile_init(struct pp_session *s)
{
	struct profile *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	p->fg = pp_flame__new();
	if (!p->fg) {
		free(p);
		return -ENOMEM;
	}
	p->chains = calloc(PROFILE_CHAINS, sizeof(*p->chains));	/* optional */
	p->epoch = 1;
	pp_session__set_priv(s, p);
	return 0;
}

static void profile_slice(struct pp_session *s, struct profile *p, uint64_t ts)
{
	char label[48];

	pp_session__format_time(s, ts, label);
	pp_flame__set_slice(p->fg, label);
	p->sliced = 1;
}

/* The frame id of the comm of @tid; -ENOMEM. */
static int64_t comm_id(struct pp_session *s, struct profile *p, uint32_t tid)
{
	const char *comm = pp_session__comm(s, tid);
	struct comm_ent *c = &p->comms[(tid * 2654435761u) >> 22];
	char name[128];
	size_t cl = strnlen(comm, 127);
	int64_t id;

	if (c->tid1 == tid + 1 && cl < sizeof(c->comm) && !memcmp(c->comm, comm, cl + 1))
		return c->id;
	memcpy(name, comm, cl);
	name[cl] = '\0';
	id = pp_flame__intern(p->fg, name);
	if (id >= 0 && cl < sizeof(c->comm)) {
		c->tid1 = tid + 1;
		c->id = (uint32_t)id;
		memcpy(c->comm, name, cl + 1);
	}
	return id;
}

/* The frame id of @ip of @pid under symbol version @ver; -ENOMEM. */
static int64_t frame_id(struct pp_session *s, struct profile *p, uint32_t pid, uint64_t ip,
			int kernel, uint64_t ver)
{
	uint64_t h = (ip ^ (ver << 40) ^ (ver >> 24)) * 0x9e3779b97f4a7c15ull;
	struct frame_ent *c = &p->cache[h >> (64 - PROFILE_CACHE_BITS)];
	char name[128];
	int64_t id;

	if (c->used && c->ip == ip && c->ver == ver)
		return c->id;
	pp_session__frame_name(s, pid, ip, kernel, name);
	id = pp_flame__intern(p->fg, name);
	if (id >= 0) {
		c->ip = ip;
		c->ver = ver;
		c->id = (uint32_t)id;
		c->used = 1;
	}
	return id;
}

static uint64_t chain_hash(const uint64_t *c, uint32_t nr, uint64_t kver, uint64_t uver)
{
	uint64_t h = (kver * 0x9e3779b97f4a7c15ull) ^ uver ^ nr;

	for (uint32_t i = 0; i < nr; i++) {
		h ^= c[i];
		h *= 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	return h | 1;
}

/* Keep chain @c (@nr entries) as folding to the @nr_ids ids at p->ids + 1. */
static void chain_keep(struct profile *p, struct chain_ent *ce, uint64_t h, const uint64_t *c,
		       uint32_t nr, uint64_t kver, uint64_t uver, uint32_t nr_ids)
{
	if (p->chain_len + nr > PROFILE_POOL_MAX || p->ids_len + nr_ids > PROFILE_POOL_MAX) {
		/* start over: every kept chain points into the pools */
		p->chain_len = p->ids_len = 0;
		p->epoch++;
	}
	if (p->chain_len + nr > p->chain_cap) {
		uint32_t cap = p->chain_cap ? p->chain_cap : 16384;
		uint64_t *n;

		while (cap < p->chain_len + nr)
			cap *= 2;
		n = realloc(p->chain_pool, cap * sizeof(*n));
		if (!n)
			return;
		p->chain_pool = n;
		p->chain_cap = cap;
	}
	if (p->ids_len + nr_ids > p->ids_cap) {
		uint32_t cap = p->ids_cap ? p->ids_cap : 16384;
		uint32_t *n;

		while (cap < p->ids_len + nr_ids)
			cap *= 2;
		n = realloc(p->ids_pool, cap * sizeof(*n));
		if (!n)
			return;
		p->ids_pool = n;
		p->ids_cap = cap;
	}
	ce->hash = h;
	ce->kver = kver;
	ce->uver = uver;
	ce->chain_off = p->chain_len;
	ce->nr_chain = nr;
	ce->ids_off = p->ids_len;
	ce->nr_ids = nr_ids;
	ce->epoch = p->epoch;
	memcpy(p->chain_pool + p->chain_len, c, nr * sizeof(*c));
	p->chain_len += nr;
	memcpy(p->ids_pool + p->ids_len, p->ids + 1, nr_ids * sizeof(uint32_t));
	p->ids_len += nr_ids;
}

/* A sample with a callchain: its frames, root first, as pp_session__stack_frames() names them. */
static void add_stack(struct pp_session *s, struct profile *p, const struct pp_event *e)
{
	uint64_t kver = pp_session__sym_version(s, 0, 1), uver = pp_session__sym_version(s, e->pid, 0);
	uint32_t nc = e->nr_callchain;
	struct chain_ent *ce = NULL;
	uint64_t h = 0;
	int64_t id = comm_id(s, p, e->tid);
	size_t nr;

	if (id < 0)
		return;
	p->ids[0] = (uint32_t)id;
	if (p->chains && nc <= PROFILE_CHAIN_MAX) {
		h = chain_hash(e->callchain, nc, kver, uver);
		ce = &p->chains[h % PROFILE_CHAINS];
		if (ce->hash == h && ce->epoch == p->epoch && ce->nr_chain == nc &&
		    ce->kver == kver && ce->uver == uver &&
		    !memcmp(p->chain_pool + ce->chain_off, e->callchain, nc * sizeof(uint64_t))) {
			memcpy(p->ids + 1, p->ids_pool + ce->ids_off, ce->nr_ids * sizeof(uint32_t));
			pp_flame__add_ids(p->fg, p->ids, ce->nr_ids + 1, 1);
			return;
		}
	}
	nr = pp_session__stack_ips(s, e, p->ips, p->kern, 255);
	for (size_t i = 0; i < nr; i++) {
		id = p->kern[i] ? frame_id(s, p, 0, p->ips[i], 1, kver) :
				  frame_id(s, p, e->pid, p->ips[i], 0, uver);
		if (id < 0)
			return;
		p->ids[i + 1] = (uint32_t)id;
	}
	/* frame_id() may load symbols: the versions then change, keep nothing */
	if (ce && kver == pp_session__sym_version(s, 0, 1) &&
	    uver == pp_session__sym_version(s, e->pid, 0))
		chain_keep(p, ce, h, e->callchain, nc, kver, uver, (uint32_t)nr);
	pp_flame__add_ids(p->fg, p->ids, nr + 1, 1);
}

static void profile_sample(struct pp_session *s, const struct pp_event *e)
{
	struct profile *p = pp_session__priv(s);
	const struct pp_opts *o = pp_session__opts(s);
	size_t nr;

	if (e->evsel->tp)	/* a tracepoint recorded beside: not a profile sample */
		return;
	if (o->interval_ns && !p->sliced)
		profile_slice(s, p, e->time - e->time % o->interval_ns);
	if (e->nr_callchain) {
		add_stack(s, p, e);
		return;
	} else {
		char name[120];
		int kernel = e->ip >= 0xffff800000000000ull;

		snprintf(p->names[0], 128, "%s", pp_session__comm(s, e->tid));
		pp_session__sym(s, e->pid, e->ip, kernel, name, sizeof(name), NULL);
		snprintf(p->names[1], 128, "%s%s", name, kernel ? "_[k]" : "");
		p->frames[0] = p->names[0];
		p->frames[1] = p->names[1];
		nr = 2;
	}
	pp_flame__add(p->fg, p->frames, nr, 1);
}

static void profile_interval(struct pp_session *s, uint64_t now)
{
	profile_slice(s, pp_session__priv(s), now);
}

static void profile_report(struct pp_session *s)
{
	struct profile *p = pp_session__priv(s);
	const struct pp_opts *o = pp_session__opts(s);
	struct pp_out *out = pp_session__out(s);
	FILE *fp;
	int fd;

	pp_out__flush(out);
	fd = dup(out->fd);
	fp = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (fp) {
		pp_flame__write_folded(p->fg, fp);
		fclose(fp);
	} else if (fd >= 0) {
		close(fd);
	}
	if (o->flame_graph) {
		struct pp_flame_opts fo = { .title = "pp profile", .count_name = "samples" };

		int ret = pp_flame__write_files(p->fg, o->flame_graph, &fo);

		if (!ret)
			fprintf(stderr, "pp-analyze: wrote %s.folded and %s.svg\n", o->flame_graph,
				o->flame_graph);
		pp_session__fail(s, ret);
	}
}

static void profile_deinit(struct pp_session *s)
{
	struct profile *p = pp_session__priv(s);

	if (p) {
		pp_flame__free(p->fg);
		free(p->chains);
		free(p->chain_pool);
		free(p->ids_pool);
	}
	free(p);
}

/* As an event source (trace -e 'profile/-F 500/'): the cpu-clock or cycles samples. */
static int profile_src_match(const struct pp_opts *o, const struct pp_evsel *ev)
{
	return (ev->type == PERF_TYPE_SOFTWARE && ev->config == PERF_COUNT_SW_CPU_CLOCK) ||
	       (ev->type == PERF_TYPE_HARDWARE && ev->config == PERF_COUNT_HW_CPU_CYCLES);
}

static int profile_src_sample(struct pp_session *s, void *state, const struct pp_event *e,
			      struct pp_src_event *out)
{
	char sym[96];
	int kernel = e->ip >= 0xffff800000000000ull;

	out->e = *e;
	pp_session__sym(s, e->pid, e->ip, kernel, sym, sizeof(sym), NULL);
	snprintf(out->text, sizeof(out->text), "%.32s ip %llx %s", e->evsel->name,
		 (unsigned long long)e->ip, sym);
	return 1;
}

const struct pp_analyzer pp_analyzer_profile = {
	.name = "profile",
	.desc = "sampled stacks (cpu-clock at -F HZ): folded stacks and flame graph",
	.help = "pp-analyze profile [-F HZ] [-g] [-i MS] [--flame-graph FILE] [FILE]\n"
		"  records cpu-clock with call chains; -i makes time-sliced flame graphs\n"
		"  example: pp-record profile -F 999 -- ./app; pp-analyze profile --flame-graph app\n"
		"  as an event source: pp-analyze trace -e 'profile/-F 500/,sched:sched_switch'\n",
	.opts = PP_OPT_FREQ | PP_OPT_CALLCHAIN | PP_OPT_INTERVAL | PP_OPT_FLAME | PP_OPT_EXCLUDE,
	.events = profile_events,
	.init = profile_init,
	.sample = profile_sample,
	.interval = profile_interval,
	.report = profile_report,
	.deinit = profile_deinit,
	.src_match = profile_src_match,
	.src_sample = profile_src_sample,
};
