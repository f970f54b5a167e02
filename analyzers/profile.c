// SPDX-License-Identifier: MIT
/*
 * profile: stacks sampled at a frequency (cpu-clock, -F HZ, default 99).
 * By default the hottest functions, as `perf report --stdio --no-children`
 * shows them: a table sorted by self share, with the total share (the
 * function and its callees) and the samples; with -i one table per
 * interval. --folded prints the stacks folded instead ("comm;outer;...;inner
 * N", kernel frames "_[k]"); --flame-graph FILE writes them to FILE.folded
 * and FILE.svg, where -i makes each interval a time slice.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/perf_event.h>
#include "pp/replay.h"
#include "analyzers.h"
#include "flamegraph.h"
#include "pprof.h"
#include "fgdiff.h"
#include "json.h"

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
	uint32_t fn;		/* its function in the table */
	uint32_t used;
};

/*
 * A function of the table: a frame name in one DSO (two programs' "main"
 * are two rows, as in perf report). Its samples count since the last table.
 */
struct prof_fn {
	uint32_t name_id;	/* its flame-graph frame id */
	uint32_t dso;		/* index in profile.dsos */
	uint64_t self;		/* samples with it innermost */
	uint64_t total;		/* samples with it anywhere on the stack */
	uint64_t seen;		/* the sample that last added to total (recursion counts once) */
	char *sym;		/* the symbol, without "_[k]" */
	int kernel;
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
	uint32_t ids_off, nr_ids;	/* in ids_pool and fns_pool */
	uint32_t epoch;			/* valid while equal to profile.epoch */
};

struct profile {
	struct chain_ent *chains;
	uint64_t *chain_pool;
	uint32_t *ids_pool, *fns_pool;
	uint32_t chain_len, ids_len;
	size_t chain_cap, ids_cap;
	uint32_t epoch;
	struct pp_flame *fg;
	struct pp_pprof *pprof;	/* --pprof FILE */
	int sliced;
	/* options */
	int folded;		/* --folded: stacks, not the table */
	int children;		/* --children: sort by total, callers listed */
	double pct_limit;	/* --percent-limit: rows under it hidden */
	int top;		/* --top: a live table redrawn each interval */
	int tty;		/* ... in place: the output is a terminal */
	/* the table */
	struct prof_fn *fns;
	uint32_t nr_fns;
	size_t cap_fns;
	uint32_t *fn_tab;	/* fn index + 1 by (name_id, dso), 0 = empty */
	uint32_t fn_tab_size;	/* power of two */
	char **dsos;
	const char **dso_keys;	/* the pointers the symbol lookup gave */
	uint32_t nr_dsos;
	size_t cap_dsos;
	uint64_t samples;	/* since the last table */
	uint64_t seq;		/* every sample, for prof_fn.seen */
	uint64_t first_ts, last_ts;	/* of the samples */
	const struct pp_evsel *ev;	/* the sampling event, for the header */
	int tables;		/* printed so far */
	struct frame_ent cache[1u << PROFILE_CACHE_BITS];
	struct comm_ent comms[PROFILE_COMM_SIZE];
	uint32_t ids[256];
	uint32_t frame_fns[256];	/* the function of each ids[] frame after the comm */
	uint64_t ips[256];
	uint8_t kern[256];
};

static const struct pp_mod_opt profile_mod_opts[] = {
	{ "folded", 0, 0, "print the stacks folded (comm;outer;...;inner COUNT), not the table" },
	{ "children", 0, 0, "sort by Total% and list callers too (perf report --children)" },
	{ "no-children", 0, 0, "sort by Self% (the default, as perf report --no-children)" },
	{ "percent-limit", 0, 1, "PCT  hide rows under PCT percent (Self%, or Total% with --children)" },
	PP_PPROF_MOD_OPT,
	{ "top", 0, 0, "with --live: redraw the hottest functions in place every -i (default 1 s), as perf top" },
	PP_FGDIFF_OPTS,
	{ NULL, 0, 0, NULL },
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

/* What one sample weighs in cpu time: the sampling period, in ns. */
static int64_t sample_ns(const struct pp_evsel *ev)
{
	if (ev->sample_freq)
		return (int64_t)(1000000000ull / ev->sample_freq);
	return (int64_t)ev->sample_period;	/* cpu-clock -c N: every N ns */
}

/* --pprof: samples and cpu time (samples times the period) per stack. */
static int profile_pprof_open(struct pp_session *s, struct profile *p)
{
	struct pp_pprof_desc d = {
		.types = { { "samples", "count" }, { "cpu", "nanoseconds" } }, .nr_types = 2,
		.period_type = { "cpu", "nanoseconds" }, .default_type = "cpu",
		.comment = "pp-analyze profile (cpu-clock samples)",
	};
	size_t nr;
	struct pp_evsel *ev = pp_session__evsels(s, &nr);

	for (size_t i = 0; i < nr; i++) {
		if (!ev[i].tp) {
			d.period = sample_ns(&ev[i]);
			break;
		}
	}
	return pp_pprof__open_opt(s, &d, &p->pprof);
}

static int profile_init(struct pp_session *s)
{
	const struct pp_opts *o = pp_session__opts(s);
	const char *lim = pp_opts__mod(o, "percent-limit");
	struct profile *p;
	double pct = 0;
	int ret;

	if (lim) {
		char *end;

		errno = 0;
		pct = strtod(lim, &end);
		if (!*lim || *end || errno || !isfinite(pct) || pct < 0 || pct > 100)
			return pp_analyzer__err("profile", -EINVAL, "bad --percent-limit '%s' (a percentage, 0 to 100)",
				lim);
	}
	if (pp_opts__mod(o, "children") && pp_opts__mod(o, "no-children"))
		return pp_analyzer__err("profile", -EINVAL, "--children and --no-children contradict each other");
	if (pp_opts__mod(o, "folded") && (lim || pp_opts__mod(o, "children")))
		return pp_analyzer__err("profile", -EINVAL, "--%s sorts the table, which --folded does not print",
			lim ? "percent-limit" : "children");
	if (pp_opts__mod(o, "top")) {
		const char *why = !o->live ? "needs --live (it redraws what the kernel samples now)" :
				  pp_opts__mod(o, "folded") ? "prints the table, not --folded" :
				  o->json ? "draws for a terminal: not with --json (use -i for JSON intervals)" :
				  o->flame_graph ? "draws for a terminal: not with --flame-graph" : NULL;

		if (why)
			return pp_analyzer__err("profile", -EINVAL, "--top %s", why);
		if (!o->interval_ns)
			pp_session__set_interval(s, 1000000000ull);
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->top = pp_opts__mod(o, "top") != NULL;
	p->tty = p->top && isatty(pp_session__out(s)->fd);
	p->folded = pp_opts__mod(o, "folded") != NULL;
	p->children = pp_opts__mod(o, "children") != NULL;
	p->pct_limit = pct;
	p->fg = pp_flame__new();
	if (!p->fg) {
		free(p);
		return -ENOMEM;
	}
	p->chains = calloc(PROFILE_CHAINS, sizeof(*p->chains));	/* optional */
	p->epoch = 1;
	pp_session__set_priv(s, p);
	ret = profile_pprof_open(s, p);
	if (ret)
		return ret;
	return pp_fgdiff__init(s, "profile");
}

static void profile_slice(struct pp_session *s, struct profile *p, uint64_t ts)
{
	char label[48];

	pp_session__format_time(s, ts, label);
	pp_flame__set_slice(p->fg, label);
	p->sliced = 1;
}

/* The index of DSO @dso in p->dsos, added when new; -ENOMEM. */
static int64_t dso_idx(struct profile *p, const char *dso)
{
	uint32_t i;

	if (!dso)
		dso = "[unknown]";
	for (i = 0; i < p->nr_dsos; i++)	/* few DSOs, and only on a frame-cache miss */
		if (p->dso_keys[i] == dso || !strcmp(p->dsos[i], dso))
			return i;
	if (p->nr_dsos == p->cap_dsos) {
		size_t dcap = p->cap_dsos, kcap = p->cap_dsos;	/* one capacity for both */

		if (pp_grow_from((void **)&p->dsos, &dcap, p->nr_dsos + 1, sizeof(*p->dsos), 32) ||
		    pp_grow_from((void **)&p->dso_keys, &kcap, p->nr_dsos + 1, sizeof(*p->dso_keys), 32))
			return -ENOMEM;
		p->cap_dsos = dcap;
	}
	p->dsos[i] = strdup(dso);
	if (!p->dsos[i])
		return -ENOMEM;
	p->dso_keys[i] = dso;
	return p->nr_dsos++;
}

static uint32_t fn_hash(uint32_t name_id, uint32_t dso)
{
	return (uint32_t)((((uint64_t)name_id << 32) | dso) * 0x9e3779b97f4a7c15ull >> 32);
}

static int fn_rehash(struct profile *p)
{
	uint32_t size = p->fn_tab_size ? p->fn_tab_size * 2 : 1024;
	uint32_t *tab = calloc(size, sizeof(*tab));

	if (!tab)
		return -ENOMEM;
	for (uint32_t i = 0; i < p->nr_fns; i++) {
		uint32_t h = fn_hash(p->fns[i].name_id, p->fns[i].dso) & (size - 1);

		while (tab[h])
			h = (h + 1) & (size - 1);
		tab[h] = i + 1;
	}
	free(p->fn_tab);
	p->fn_tab = tab;
	p->fn_tab_size = size;
	return 0;
}

/*
 * The table's function for frame @name_id of symbol @sym in DSO @dso,
 * added when new; -ENOMEM.
 */
static int64_t fn_get(struct profile *p, uint32_t name_id, const char *sym, const char *dso,
		      int kernel)
{
	int64_t d = dso_idx(p, dso);
	struct prof_fn *f;
	uint32_t h;

	if (d < 0)
		return d;
	if ((p->nr_fns + 1) * 2 > p->fn_tab_size && fn_rehash(p))
		return -ENOMEM;
	h = fn_hash(name_id, (uint32_t)d) & (p->fn_tab_size - 1);
	for (; p->fn_tab[h]; h = (h + 1) & (p->fn_tab_size - 1)) {
		f = &p->fns[p->fn_tab[h] - 1];
		if (f->name_id == name_id && f->dso == (uint32_t)d)
			return p->fn_tab[h] - 1;
	}
	if (pp_grow_from((void **)&p->fns, &p->cap_fns, (size_t)p->nr_fns + 1, sizeof(*p->fns), 1024))
		return -ENOMEM;
	f = &p->fns[p->nr_fns];
	memset(f, 0, sizeof(*f));
	f->sym = strdup(sym);
	if (!f->sym)
		return -ENOMEM;
	f->name_id = name_id;
	f->dso = (uint32_t)d;
	f->kernel = kernel;
	p->fn_tab[h] = p->nr_fns + 1;
	return p->nr_fns++;
}

/* One sample whose frames after the comm are the functions @fns, outermost first. */
static void account(struct profile *p, const struct pp_event *e, const uint32_t *fns, size_t nr)
{
	uint64_t seq = ++p->seq;

	if (!p->ev)
		p->ev = e->evsel;
	if (!p->first_ts)
		p->first_ts = e->time;
	p->last_ts = e->time;
	p->samples++;
	if (nr)
		p->fns[fns[nr - 1]].self++;
	for (size_t i = 0; i < nr; i++) {
		struct prof_fn *f = &p->fns[fns[i]];

		if (f->seen != seq) {
			f->seen = seq;
			f->total++;
		}
	}
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

/*
 * The frame id of @ip of @pid under symbol version @ver, and in *@fn its
 * function in the table; -ENOMEM.
 */
static int64_t frame_id(struct pp_session *s, struct profile *p, uint32_t pid, uint64_t ip,
			int kernel, uint64_t ver, uint32_t *fn)
{
	uint64_t h = (ip ^ (ver << 40) ^ (ver >> 24)) * 0x9e3779b97f4a7c15ull;
	struct frame_ent *c = &p->cache[h >> (64 - PROFILE_CACHE_BITS)];
	const char *dso = NULL;
	char name[128];
	int64_t id, f;
	size_t nl;

	if (c->used && c->ip == ip && c->ver == ver) {
		*fn = c->fn;
		return c->id;
	}
	/*
	 * The name pp_session__frame_name() gives, from one lookup that also
	 * names the DSO: the symbol, "_[k]" appended for a kernel frame.
	 */
	pp_session__sym(s, pid, ip, kernel, name, 120, &dso);
	nl = strnlen(name, 119);
	memcpy(name + nl, kernel ? "_[k]" : "", kernel ? 5 : 1);
	id = pp_flame__intern(p->fg, name);
	if (id < 0)
		return id;
	name[nl] = '\0';
	f = fn_get(p, (uint32_t)id, name, dso, kernel);
	if (f < 0)
		return f;
	c->ip = ip;
	c->ver = ver;
	c->id = (uint32_t)id;
	c->fn = (uint32_t)f;
	c->used = 1;
	*fn = (uint32_t)f;
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
	if (pp_grow_from((void **)&p->chain_pool, &p->chain_cap, (size_t)p->chain_len + nr,
			 sizeof(*p->chain_pool), 16384))
		return;
	if (p->ids_len + nr_ids > p->ids_cap) {
		size_t icap = p->ids_cap, fcap = p->ids_cap;	/* one capacity for both */

		if (pp_grow_from((void **)&p->ids_pool, &icap, (size_t)p->ids_len + nr_ids,
				 sizeof(*p->ids_pool), 16384) ||
		    pp_grow_from((void **)&p->fns_pool, &fcap, (size_t)p->ids_len + nr_ids,
				 sizeof(*p->fns_pool), 16384))
			return;
		p->ids_cap = icap;
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
	memcpy(p->fns_pool + p->ids_len, p->frame_fns, nr_ids * sizeof(uint32_t));
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
			account(p, e, p->fns_pool + ce->ids_off, ce->nr_ids);
			return;
		}
	}
	nr = pp_session__stack_ips(s, e, p->ips, p->kern, 255);
	for (size_t i = 0; i < nr; i++) {
		id = p->kern[i] ? frame_id(s, p, 0, p->ips[i], 1, kver, &p->frame_fns[i]) :
				  frame_id(s, p, e->pid, p->ips[i], 0, uver, &p->frame_fns[i]);
		if (id < 0)
			return;
		p->ids[i + 1] = (uint32_t)id;
	}
	/* frame_id() may load symbols: the versions then change, keep nothing */
	if (ce && kver == pp_session__sym_version(s, 0, 1) &&
	    uver == pp_session__sym_version(s, e->pid, 0))
		chain_keep(p, ce, h, e->callchain, nc, kver, uver, (uint32_t)nr);
	pp_flame__add_ids(p->fg, p->ids, nr + 1, 1);
	account(p, e, p->frame_fns, nr);
}

static void profile_sample(struct pp_session *s, const struct pp_event *e)
{
	struct profile *p = pp_session__priv(s);
	const struct pp_opts *o = pp_session__opts(s);
	int kernel = e->ip >= 0xffff800000000000ull;
	int64_t id;

	if (e->evsel->tp)	/* a tracepoint recorded beside: not a profile sample */
		return;
	if (p->pprof) {
		int64_t v[2] = { 1, sample_ns(e->evsel) };

		if (pp_pprof__add_event(p->pprof, s, e, NULL, 0, v))
			pp_session__fail(s, -ENOMEM);
	}
	if (o->interval_ns && !p->sliced)
		profile_slice(s, p, e->time - e->time % o->interval_ns);
	if (e->nr_callchain) {
		add_stack(s, p, e);
		return;
	}
	/* no call chain: the comm and the sampled ip */
	id = comm_id(s, p, e->tid);
	if (id < 0)
		return;
	p->ids[0] = (uint32_t)id;
	id = frame_id(s, p, kernel ? 0 : e->pid, e->ip, kernel,
		      pp_session__sym_version(s, kernel ? 0 : e->pid, kernel), &p->frame_fns[0]);
	if (id < 0)
		return;
	p->ids[1] = (uint32_t)id;
	pp_flame__add_ids(p->fg, p->ids, 2, 1);
	account(p, e, p->frame_fns, 1);
}

static double pct(uint64_t n, uint64_t of)
{
	return of ? 100.0 * (double)n / (double)of : 0.0;
}

/* Table order: the sort column, then the other one, then by name and DSO. */
static int fn_cmp(const struct prof_fn *a, const struct prof_fn *b, int children,
		  char *const *dsos)
{
	uint64_t ka = children ? a->total : a->self, kb = children ? b->total : b->self;
	uint64_t oa = children ? a->self : a->total, ob = children ? b->self : b->total;
	int c;

	if (ka != kb)
		return ka > kb ? -1 : 1;
	if (oa != ob)
		return oa > ob ? -1 : 1;
	c = strcmp(a->sym, b->sym);
	return c ? c : strcmp(dsos[a->dso], dsos[b->dso]);
}

static int fn_cmp_self(const void *x, const void *y, void *dsos)
{
	return fn_cmp(*(struct prof_fn *const *)x, *(struct prof_fn *const *)y, 0, dsos);
}

static int fn_cmp_total(const void *x, const void *y, void *dsos)
{
	return fn_cmp(*(struct prof_fn *const *)x, *(struct prof_fn *const *)y, 1, dsos);
}

/* The header's "of cpu-clock at 999 Hz" part. */
static void event_desc(const struct profile *p, char *buf, size_t len)
{
	const struct pp_evsel *ev = p->ev;

	if (!ev)
		snprintf(buf, len, "cpu-clock");
	else if (ev->sample_freq)
		snprintf(buf, len, "%s at %llu Hz", ev->name, (unsigned long long)ev->sample_freq);
	else if (ev->sample_period)
		snprintf(buf, len, "%s every %llu", ev->name, (unsigned long long)ev->sample_period);
	else
		snprintf(buf, len, "%s", ev->name);
}

/*
 * --top on a terminal: perf top's screen, redrawn every interval. The first
 * draw clears the terminal; later ones move the cursor home and overwrite,
 * each line ended by erase-to-end-of-line and the screen by
 * erase-below: no flicker, and no copy of every screen in the terminal's
 * scroll-back (a terminal such as tmux keeps what a full clear removes). A
 * header with the samples and their rate, then as many rows as the
 * terminal has lines for.
 */
static void top_draw(struct pp_session *s, struct profile *p, struct prof_fn **rows, uint32_t nr,
		     uint64_t from, uint64_t now, const char *tbuf, const char *ev)
{
	struct pp_out *out = pp_session__out(s);
	struct winsize ws = { 0 };
	double secs = from && now > from ? (double)(now - from) / 1e9 : 0.0;
	uint32_t lines = 24, cols = 80;

	if (!ioctl(out->fd, TIOCGWINSZ, &ws) && ws.ws_row && ws.ws_col) {
		lines = ws.ws_row;
		cols = ws.ws_col;
	}
	pp_out__puts(out, p->tables++ ? "\033[H" : "\033[H\033[2J");
	pp_out__printf(out, "pp-analyze profile --top  %s  %llu samples", tbuf,
		       (unsigned long long)p->samples);
	if (secs > 0)
		pp_out__printf(out, " in %.3f s (%.1f/s)", secs, (double)p->samples / secs);
	pp_out__printf(out, " of %.*s\033[K\n", cols > 80 ? (int)cols - 60 : 20, ev);
	pp_out__printf(out, "%8s  %8s  %8s  %s\033[K\n", "Self%", "Total%", "Samples", "Function (DSO)");
	for (uint32_t i = 0; i < nr && i + 3 < lines; i++) {
		const struct prof_fn *f = rows[i];
		char line[512];
		int n = snprintf(line, sizeof(line), "%7.2f%%  %7.2f%%  %8llu  %s (%s)",
				 pct(f->self, p->samples), pct(f->total, p->samples),
				 (unsigned long long)f->self, f->sym, p->dsos[f->dso]);

		if (n > 0 && (uint32_t)n > cols)	/* one screen line each */
			line[cols] = '\0';
		pp_out__text(out, line);
		pp_out__puts(out, "\033[K\n");
	}
	pp_out__puts(out, "\033[J");
	pp_out__flush(out);
}

/*
 * The hottest functions since the last table, which covered up to @from
 * (0: the first sample), as of @now: the text table or one JSON object a
 * row. Counts start over after.
 */
static void print_table(struct pp_session *s, struct profile *p, uint64_t from, uint64_t now)
{
	const struct pp_opts *o = pp_session__opts(s);
	struct pp_out *out = pp_session__out(s);
	struct prof_fn **rows = p->nr_fns ? malloc(p->nr_fns * sizeof(*rows)) : NULL;
	uint32_t nr = 0;
	char tbuf[32], ev[160];

	if (p->nr_fns && !rows) {
		pp_analyzer__err("profile", -ENOMEM, "out of memory");
		return;
	}
	for (uint32_t i = 0; i < p->nr_fns; i++) {
		struct prof_fn *f = &p->fns[i];
		uint64_t key = p->children ? f->total : f->self;

		if (key && pct(key, p->samples) >= p->pct_limit)
			rows[nr++] = f;
	}
	if (nr)
		qsort_r(rows, nr, sizeof(*rows), p->children ? fn_cmp_total : fn_cmp_self, p->dsos);
	pp_session__format_time(s, now, tbuf);
	event_desc(p, ev, sizeof(ev));
	if (p->tty) {
		/* the last interval, cut short by the end, would replace a full screen */
		if (!(from && now - from < o->interval_ns))
			top_draw(s, p, rows, nr, from, now, tbuf, ev);
		free(rows);
		goto reset;
	}
	if (!o->json) {
		if (p->tables++)
			pp_out__putc(out, '\n');
		pp_out__printf(out, "# %llu samples of %s", (unsigned long long)p->samples, ev);
		if (o->interval_ns)	/* the last interval, cut short by the end, says so */
			pp_out__printf(out, ", interval ending %s (%s%.3f s)\n", tbuf,
				       now - from < o->interval_ns ? "partial: " : "",
				       from && now > from ? (double)(now - from) / 1e9 : 0.0);
		else
			pp_out__printf(out, " over %.3f s\n",
				       p->last_ts > p->first_ts ? (double)(p->last_ts - p->first_ts) / 1e9 : 0.0);
		pp_out__puts(out, "# Self%, Samples: samples with the function innermost; "
			     "Total%: samples with it anywhere on the stack\n");
		if (pp_session__stats(s)->cut_stacks)	/* so far: the replay goes on with -i */
			pp_out__printf(out, "# %llu stacks cut at a bad frame (frame-pointer walk "
				       "through code without frame pointers)\n",
				       (unsigned long long)pp_session__stats(s)->cut_stacks);
		if (p->pct_limit > 0)
			pp_out__printf(out, "# rows under %g%% %s hidden (--percent-limit)\n", p->pct_limit,
				       p->children ? "Total%" : "Self%");
		pp_out__printf(out, "%8s  %8s  %8s  %s\n", "#  Self%", "Total%", "Samples", "Function (DSO)");
	}
	for (uint32_t i = 0; i < nr; i++) {
		const struct prof_fn *f = rows[i];

		if (!o->json) {
			pp_out__printf(out, "%7.2f%%  %7.2f%%  %8llu  %s (%s)\n", pct(f->self, p->samples),
				       pct(f->total, p->samples), (unsigned long long)f->self, f->sym,
				       p->dsos[f->dso]);
			continue;
		}
		pp_json__begin(s, "row", now);
		pp_out__puts(out, ",\"event\":");
		pp_out__json_str(out, p->ev ? p->ev->name : "cpu-clock");
		pp_out__puts(out, ",\"symbol\":");
		pp_out__json_str(out, f->sym);
		pp_out__puts(out, ",\"dso\":");
		pp_out__json_str(out, p->dsos[f->dso]);
		pp_out__printf(out, ",\"kernel\":%s,\"self_samples\":%llu,\"total_samples\":%llu,"
			       "\"self_pct\":%.2f,\"total_pct\":%.2f,\"samples\":%llu}\n",
			       f->kernel ? "true" : "false", (unsigned long long)f->self,
			       (unsigned long long)f->total, pct(f->self, p->samples),
			       pct(f->total, p->samples), (unsigned long long)p->samples);
	}
	free(rows);
	if (p->top)	/* a live table is read as it comes */
		pp_out__flush(out);
reset:
	for (uint32_t i = 0; i < p->nr_fns; i++)
		p->fns[i].self = p->fns[i].total = 0;
	p->samples = 0;
	p->first_ts = p->last_ts = 0;
}

/* --json --folded: each stack as an object, its frames as the folded line's. */
static void print_stacks_json(struct pp_session *s, struct profile *p, uint64_t now)
{
	struct pp_out *out = pp_session__out(s);
	const char *frames[1024], *slice;
	uint64_t w;
	int nr;

	for (size_t i = 0; (nr = pp_flame__stack(p->fg, i, frames, 1024, &slice, &w)) >= 0; i++) {
		pp_json__begin(s, "folded", now);
		pp_out__puts(out, ",\"event\":");
		pp_out__json_str(out, p->ev ? p->ev->name : "cpu-clock");
		if (slice) {
			pp_out__puts(out, ",\"slice\":");
			pp_out__json_str(out, slice);
		}
		pp_out__puts(out, ",\"frames\":[");
		for (int k = 0; k < nr && k < 1024; k++) {
			if (k)
				pp_out__putc(out, ',');
			pp_out__json_str(out, frames[k]);
		}
		pp_out__puts(out, "],\"samples\":");
		pp_out__u64(out, w);
		pp_out__puts(out, "}\n");
	}
}

static void profile_interval(struct pp_session *s, uint64_t now)
{
	struct profile *p = pp_session__priv(s);

	if (!p->folded)
		print_table(s, p, pp_session__interval_start(s), now);
	profile_slice(s, p, now);
}

static void profile_report(struct pp_session *s)
{
	struct profile *p = pp_session__priv(s);
	const struct pp_opts *o = pp_session__opts(s);
	struct pp_out *out = pp_session__out(s);
	uint64_t end = p->last_ts ? p->last_ts : pp_session__stats(s)->last_ts;
	FILE *fp;
	int fd;

	if (!p->folded) {
		if (!o->interval_ns)	/* with -i, each interval printed its own */
			print_table(s, p, 0, end);
	} else if (o->json) {
		print_stacks_json(s, p, end);
	} else {
		pp_out__flush(out);
		fd = dup(out->fd);
		fp = fd >= 0 ? fdopen(fd, "w") : NULL;
		if (fp) {
			pp_flame__write_folded(p->fg, fp);
			fclose(fp);
		} else if (fd >= 0) {
			close(fd);
		}
	}
	if (o->flame_graph) {
		struct pp_flame_opts fo = { .title = "pp profile", .count_name = "samples" };

		pp_fgdiff__write(s, p->fg, o->flame_graph, &fo);
	}
	pp_pprof__report(p->pprof, s, pp_session__stats(s)->first_ts, end, pp_opts__mod(o, "pprof"));
}

static void profile_deinit(struct pp_session *s)
{
	struct profile *p = pp_session__priv(s);

	pp_fgdiff__exit(s);
	if (p) {
		pp_flame__free(p->fg);
		pp_pprof__free(p->pprof);
		free(p->chains);
		free(p->chain_pool);
		free(p->ids_pool);
		free(p->fns_pool);
		for (uint32_t i = 0; i < p->nr_fns; i++)
			free(p->fns[i].sym);
		free(p->fns);
		free(p->fn_tab);
		for (uint32_t i = 0; i < p->nr_dsos; i++)
			free(p->dsos[i]);
		free(p->dsos);
		free(p->dso_keys);
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

static const struct pp_source_ops profile_source = {
	.sample = profile_src_sample,
};

const struct pp_analyzer pp_analyzer_profile = {
	.name = "profile",
	.desc = "sampled stacks (cpu-clock at -F HZ): hottest functions, folded stacks, flame graph",
	.help = "pp-analyze profile [-F HZ] [-g] [-i MS] [--children] [--percent-limit PCT] [--folded]\n"
		"                   [--flame-graph FILE [--diff BASE [--no-normalize]]] [--json] [FILE]\n"
		"       pp-analyze profile --live --top [-i MS] [-p PID | -- COMMAND]\n"
		"  records cpu-clock with call chains; prints the hottest functions, as perf report\n"
		"  --no-children does: Self% (the function innermost), Total% (anywhere on the\n"
		"  stack), Samples, Function (DSO); -i prints one table per interval and makes\n"
		"  time-sliced flame graphs; --live --top [-i MS]: redrawn in place on a terminal\n"
		"  (perf top), plain interval tables otherwise; --diff BASE.trace --flame-graph NAME: differential\n"
		"  flame graph of FILE against BASE (red grew, blue shrank), NAME.folded 'stack before after'\n"
		"  example: pp-record profile -F 999 -- ./app; pp-analyze profile --flame-graph app\n"
		"  as an event source: pp-analyze trace -e 'profile/-F 500/,sched:sched_switch'\n",
	.opts = PP_OPT_FREQ | PP_OPT_CALLCHAIN | PP_OPT_INTERVAL | PP_OPT_FLAME | PP_OPT_EXCLUDE |
		PP_OPT_JSON,
	.mod_opts = profile_mod_opts,
	.events = profile_events,
	.init = profile_init,
	.sample = profile_sample,
	.interval = profile_interval,
	.report = profile_report,
	.deinit = profile_deinit,
	.match = profile_src_match,
	.source = &profile_source,
};
