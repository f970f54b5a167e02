// SPDX-License-Identifier: MIT
/*
 * A replay session's metadata: the recorded events (ATTRS, their ids, the
 * profiler's specs they match, the sample layouts), the tracepoint formats
 * (FORMATS, checked before libtraceevent parses them), the MACHINE
 * description, and the TASKS, MMAPS, LOST and symbol chunks as the file
 * source meets them.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <traceevent/event-parse.h>
#include "pp/meta.h"
#include "pp/sample.h"
#include "replay-internal.h"
#include "mem.h"

/* ---- events ---- */

/**
 * pp_session__evsel_by_id() - the event owning sample id @id.
 * @s: session; @id: sample id.
 * Return: the event or NULL.
 */
struct pp_evsel *pp_session__evsel_by_id(const struct pp_session *s, uint64_t id)
{
	size_t mask = s->idmap_cap - 1, i;

	if (!s->idmap_cap)
		return NULL;
	for (i = (size_t)((id * 0x9e3779b97f4a7c15ull) >> 20) & mask;; i = (i + 1) & mask) {
		if (s->idmap[i].id == id)
			return (struct pp_evsel *)&s->evsels[s->idmap[i].evsel];
		if (!s->idmap[i].id)
			return NULL;
	}
}

static int idmap_add(struct pp_session *s, uint64_t id, int evsel)
{
	size_t mask, i;

	if (!id)
		return 0;
	s->idmap_gen++;
	if ((s->idmap_nr + 1) * 2 > s->idmap_cap) {
		size_t ncap = s->idmap_cap ? s->idmap_cap * 2 : 256, ocap = s->idmap_cap;
		struct pp_idmap_ent *old = s->idmap, *n = calloc(ncap, sizeof(*n));

		if (!n)
			return -ENOMEM;
		s->idmap = n;
		s->idmap_cap = ncap;
		s->idmap_nr = 0;
		for (size_t j = 0; j < ocap; j++) {
			if (old[j].id)
				idmap_add(s, old[j].id, old[j].evsel);
		}
		free(old);
	}
	mask = s->idmap_cap - 1;
	for (i = (size_t)((id * 0x9e3779b97f4a7c15ull) >> 20) & mask;; i = (i + 1) & mask) {
		if (s->idmap[i].id == id) {
			s->idmap[i].evsel = evsel;
			return 0;
		}
		if (!s->idmap[i].id)
			break;
	}
	s->idmap[i].id = id;
	s->idmap[i].evsel = evsel;
	s->idmap_nr++;
	return 0;
}

/* Does the event @name match the -e entry @sp? */
int pp_session__spec_matches(const struct pp_evspec *sp, const char *name)
{
	/* tracepoint names are patterns; a probe's path is not */
	return sp->kind == PP_EV_TRACEPOINT ? !fnmatch(sp->pattern, name, 0) :
	       !strcmp(sp->pattern, name);
}

/*
 * Does the module's ->events() ask for @name beyond the -e entries (a
 * sampler it adds, as hrtimer's cpu-clock)? Those reach it with -e given.
 */
static int module_requests(const struct pp_session *s, const char *name)
{
	struct pp_event_reqs reqs;

	if (!s->nr_specs || !s->a.events)
		return 0;
	memset(&reqs, 0, sizeof(reqs));
	if (s->a.events(&s->opts, &reqs))
		return 0;
	for (int r = 0; r < reqs.nr; r++) {
		struct pp_evspec sp;
		char err[256];

		if (!pp_evspec__parse(reqs.req[r].spec, &sp, err, sizeof(err)) &&
		    pp_session__spec_matches(&sp, name))
			return 1;
	}
	return 0;
}

static const struct pp_evspec *match_spec(const struct pp_session *s, const char *name)
{
	for (int i = 0; i < s->nr_specs; i++) {
		const struct pp_evspec *sp = &s->specs[i];

		if (!sp->source && pp_session__spec_matches(sp, name))
			return sp;
	}
	return NULL;
}

/**
 * pp_session__add_evsel() - add an event (an ATTRS item or a live event).
 * @s: session; @attr: attr bytes; @attr_size: their size;
 * @name: event name; @ids, @nr_ids: its sample ids.
 * Return: 0 or -errno.
 */
int pp_session__add_evsel(struct pp_session *s, const struct perf_event_attr *attr, size_t attr_size,
			  const char *name, const uint64_t *ids, size_t nr_ids)
{
	struct perf_event_attr a;
	struct pp_evsel *ev = NULL;

	memset(&a, 0, sizeof(a));
	memcpy(&a, attr, attr_size < sizeof(a) ? attr_size : sizeof(a));
	/* The same event again (attrs appended later): just add ids. */
	for (size_t i = 0; i < s->nr_evsels; i++) {
		if (!strcmp(s->evsels[i].name, name) && s->evsels[i].sample_type == a.sample_type)
			ev = &s->evsels[i];
	}
	if (!ev) {
		if (s->nr_evsels >= PP_MAX_EVSELS)
			return -E2BIG;
		ev = &s->evsels[s->nr_evsels];
		memset(ev, 0, sizeof(*ev));
		ev->idx = (int)s->nr_evsels++;
		pp_text_escape(ev->name, sizeof(ev->name), name);	/* printed as text */
		ev->type = a.type;
		ev->config = a.config;
		ev->sample_type = a.sample_type;
		ev->read_format = a.read_format;
		ev->sample_regs_user = a.sample_regs_user;
		if (a.freq)
			ev->sample_freq = a.sample_freq;
		else
			ev->sample_period = a.sample_period;
		pp_sample_layout__init(&s->fast[ev->idx], a.sample_type);
		ev->spec = match_spec(s, name);
		s->mod_req[ev->idx] = !ev->spec && module_requests(s, name);
		for (int k = 0; k < s->nr_srcs && !ev->src; k++) {
			if (s->srcs[k].a->match(&s->srcs[k].o, ev))
				ev->src = &s->srcs[k];
		}
	}
	for (size_t i = 0; i < nr_ids; i++) {
		int ret = idmap_add(s, ids[i], ev->idx);

		if (ret)
			return ret;
	}
	return 0;
}

/**
 * pp_session__link_formats() - attach the tracepoint formats to the events.
 * @s: session.
 */
void pp_session__link_formats(struct pp_session *s)
{
	for (size_t i = 0; i < s->nr_evsels; i++) {
		struct pp_evsel *ev = &s->evsels[i];
		char sys[128], *colon;

		if (!ev->btf)
			ev->btf = pp_btf_fmts__find(&s->btf_fmts, ev->name);
		if (ev->tp || ev->type != PERF_TYPE_TRACEPOINT)
			continue;
		snprintf(sys, sizeof(sys), "%s", ev->name);
		colon = strchr(sys, ':');
		if (!colon)
			continue;
		*colon = '\0';
		ev->tp = tep_find_event_by_name(s->tep, sys, colon + 1);
		if (!ev->tp)
			ev->tp = tep_find_event(s->tep, (int)ev->config);
		for (size_t r = 0; ev->tp && r < s->nr_refused; r++) {
			if (s->refused[r] == ev->tp)
				ev->tp = NULL;
		}
		if (!ev->tp)
			continue;
		if (!ev->guard)
			ev->guard = pp_fmt_guard__new(ev->tp);
		if (!ev->plan)
			ev->plan = pp_print_plan__compile(s->tep, ev->tp);
	}
}

static int meta_attrs(struct pp_session *s, const uint8_t *data, size_t len)
{
	struct pp_item_iter it;
	struct pp_item item;

	pp_item_iter__init(&it, data, len);
	while (pp_item_iter__next(&it, &item)) {
		struct pp_cur c;
		uint32_t attr_size, nr_ids;
		const uint8_t *attr, *idp;
		const char *name;
		uint64_t ids[256];

		pp_cur__init(&c, item.body, item.size);
		if (pp_cur__u32(&c, &attr_size) || pp_cur__u32(&c, &nr_ids) ||
		    pp_cur__bytes(&c, &attr, attr_size) || pp_cur__align(&c, 8) ||
		    nr_ids > 256 || pp_cur__bytes(&c, &idp, (size_t)nr_ids * 8) ||
		    pp_cur__str(&c, &name) || attr_size < PERF_ATTR_SIZE_VER0) {
			pp_session__warn(s, "malformed ATTRS item skipped");
			continue;
		}
		for (uint32_t i = 0; i < nr_ids; i++)
			ids[i] = pp_get_le64(idp + 8 * i);
		if (pp_session__add_evsel(s, (const struct perf_event_attr *)attr, attr_size, name,
					  ids, nr_ids))
			pp_session__warn(s, "too many events, '%s' ignored", name);
	}
	if (it.bad)
		pp_session__warn(s, "malformed ATTRS chunk");
	return 0;
}

/* A format pp refuses: one warning that names the event (a few, then a count). */
static void refuse_format(struct pp_session *s, const char *sys, const char *name,
			  const char *why)
{
	if (++s->fmt_warned <= 16)
		pp_session__warn(s, "%s:%s: format refused, its records are not decoded: %s", sys,
				 name, why);
	else if (s->fmt_warned == 17)
		pp_session__warn(s, "more formats refused (not listed)");
}

/*
 * An event format from the file reaches libtraceevent only within the bounds
 * of pp_fmt_check_text(), and its parsed fields must fit a record (spec/pp-analyze.md,
 * "Formats and BTF from the file are untrusted").
 */
static void parse_event_format(struct pp_session *s, const char *sys, const char *name,
			       const char *text)
{
	struct tep_event *ev = NULL;
	size_t len = strlen(text);
	char why[160];

	if (pp_fmt_check_text(text, len, why, sizeof(why))) {
		refuse_format(s, sys, name, why);
		return;
	}
	if (tep_parse_format(s->tep, &ev, text, len, sys) && !ev) {
		pp_session__warn(s, "cannot parse the format of %s:%s", sys, name);
		return;
	}
	if (ev && pp_fmt_check_fields(ev, why, sizeof(why))) {
		struct tep_event **v = realloc(s->refused, (s->nr_refused + 1) * sizeof(*v));

		if (v) {
			s->refused = v;
			s->refused[s->nr_refused++] = ev;
		}
		refuse_format(s, sys, name, why);
	}
}

static int meta_formats(struct pp_session *s, const uint8_t *data, size_t len)
{
	struct pp_item_iter it;
	struct pp_item item;

	pp_item_iter__init(&it, data, len);
	while (pp_item_iter__next(&it, &item)) {
		struct pp_cur c;
		const char *sys, *name, *text;

		pp_cur__init(&c, item.body, item.size);
		if (pp_cur__str(&c, &sys) || pp_cur__str(&c, &name) || pp_cur__str(&c, &text))
			continue;
		switch (item.kind) {
		case PP_FMT_HEADER_PAGE: {
			char why[160];

			/* the same bounds as an event's text before libtraceevent reads it */
			if (pp_fmt_check_text(text, strlen(text), why, sizeof(why))) {
				pp_session__warn(s, "header_page refused: %s", why);
				break;
			}
			if (tep_parse_header_page(s->tep, (char *)text, strlen(text),
						  tep_get_long_size(s->tep)) == 0)
				s->header_page_ok = 1;
			break;
		}
		case PP_FMT_EVENT:
			if (tep_find_event_by_name(s->tep, sys, name))
				break;
			parse_event_format(s, sys, name, text);
			break;
		case PP_FMT_PRINTK: {
			size_t dropped;
			char *clean = pp_fmt_printk_clean(text, &dropped);

			if (dropped)
				pp_session__warn(s, "printk_formats: %zu malformed lines ignored",
						 dropped);
			if (clean)
				tep_parse_printk_formats(s->tep, clean);
			free(clean);
			break;
		}
		case PP_FMT_BTF: {
			char err[256];

			if (pp_btf_fmts__add_item(&s->btf_fmts, &item, err, sizeof(err)))
				pp_session__warn(s, "%s:%s: %s", sys, name, err);
			break;
		}
		default:
			break;
		}
	}
	pp_session__link_formats(s);
	return 0;
}

/*
 * MACHINE's number @key when in [@lo, @hi]. The file's claims size
 * nothing here without a bound: an out-of-range value is ignored, with a
 * warning.
 */
static int machine_num(struct pp_session *s, const char *key, long long lo, long long hi,
		       long long *out)
{
	const char *v = pp_session__machine(s, key);
	char *end;
	long long n;

	if (!v)
		return 0;
	errno = 0;
	n = strtoll(v, &end, 10);
	if (errno || end == v || n < lo || n > hi) {
		pp_session__warn(s, "MACHINE: %s=%.32s is not plausible (%lld to %lld): ignored",
				 key, v, lo, hi);
		return 0;
	}
	*out = n;
	return 1;
}

/* MACHINE target_pids / target_tids: the recorder widened the events for the module. */
static void machine_targets(struct pp_session *s, const char *key, int thread)
{
	const char *v = pp_session__machine(s, key);

	while (v && *v) {
		char *end;
		unsigned long id = strtoul(v, &end, 10);

		if (end == v)
			break;
		if (id && id < UINT32_MAX)
			pp_session__add_target(s, (uint32_t)id, thread);
		v = *end == ',' ? end + 1 : end;
	}
}

static void meta_machine(struct pp_session *s, const uint8_t *data, size_t len)
{
	const char *v;
	long long n;
	uint8_t *copy = malloc(len + 1);

	if (!copy)
		return;
	memcpy(copy, data, len);
	copy[len] = '\0';
	free(s->machine);
	s->machine = copy;
	s->machine_len = len;
	v = pp_session__machine(s, "start_realtime_ns");
	if (v) {
		const char *m = pp_session__machine(s, "start_monotonic_ns");

		if (m) {
			s->start_real = strtoull(v, NULL, 10);
			s->start_mono = strtoull(m, NULL, 10);
			s->have_clock = 1;
		}
	}
	if (machine_num(s, "page_size", 512, 1ll << 30, &n) && !(n & (n - 1)))
		tep_set_page_size(s->tep, (int)n);
	if (machine_num(s, "nr_cpus", 1, PP_MAX_STREAMS, &n)) {
		tep_set_cpus(s->tep, (int)n);
		s->nr_cpus = (uint32_t)n;
	}
	if (!s->nr_pids && !s->nr_tids) {
		machine_targets(s, "target_pids", 0);
		machine_targets(s, "target_tids", 1);
	}
}

static void meta_tasks(struct pp_session *s, const uint8_t *data, size_t len)
{
	struct pp_item_iter it;
	struct pp_item item;

	pp_item_iter__init(&it, data, len);
	while (pp_item_iter__next(&it, &item)) {
		char comm[17];

		if (item.size < sizeof(struct pp_task_item))
			continue;
		memcpy(comm, item.body + 16, 16);
		comm[16] = '\0';
		pp_session__set_comm(s, pp_get_le32(item.body), pp_get_le32(item.body + 4), comm);
	}
}

static void meta_mmaps(struct pp_session *s, const uint8_t *data, size_t len)
{
	struct pp_item_iter it;
	struct pp_item item;

	pp_item_iter__init(&it, data, len);
	while (pp_item_iter__next(&it, &item)) {
		struct pp_cur c;
		const uint8_t *bid;
		const char *fn;
		uint8_t bsz;

		pp_cur__init(&c, item.body, item.size);
		c.off = 32;
		if (item.size < 56 || pp_cur__u8(&c, &bsz) || pp_cur__align(&c, 4) ||
		    pp_cur__bytes(&c, &bid, 20) || pp_cur__str(&c, &fn))
			continue;
		pp_symtab__add_mmap(s->syms, pp_get_le32(item.body), pp_get_le64(item.body + 8),
				    pp_get_le64(item.body + 16), pp_get_le64(item.body + 24),
				    bid, bsz > 20 ? 20 : bsz, fn);
	}
}

/*
 * Every lost window reaches the module through here: never before its
 * init (its private data does not exist yet). Those met while the file is
 * opened are held, a bounded number, and delivered right after init.
 */
void pp_session__deliver_lost(struct pp_session *s, const struct pp_lost *l)
{
	struct pp_lost *last;

	if (window_out(s, l->first_ts, l->last_ts))
		return;
	if (s->running) {
		s->a.lost(s, l);
		return;
	}
	if (s->nr_early_lost < PP_EARLY_LOST_MAX) {
		s->early_lost[s->nr_early_lost++] = *l;
		return;
	}
	last = &s->early_lost[PP_EARLY_LOST_MAX - 1];
	last->count += l->count;
	last->bytes += l->bytes;
	if (l->first_ts < last->first_ts)
		last->first_ts = l->first_ts;
	if (l->last_ts > last->last_ts)
		last->last_ts = l->last_ts;
}

static void meta_lost(struct pp_session *s, const uint8_t *data, size_t len)
{
	struct pp_item_iter it;
	struct pp_item item;

	pp_item_iter__init(&it, data, len);
	while (pp_item_iter__next(&it, &item)) {
		struct pp_lost l;

		if (item.size < sizeof(struct pp_lost_item))
			continue;
		memset(&l, 0, sizeof(l));
		l.cpu = pp_get_le32(item.body);
		l.first_ts = pp_get_le64(item.body + 8);
		l.last_ts = pp_get_le64(item.body + 16);
		l.count = pp_get_le64(item.body + 24);
		l.bytes = pp_get_le64(item.body + 32);
		l.source = 2;
		s->stats.lost_recorder += l.count;
		s->stats.lost_windows++;
		pp_session__deliver_lost(s, &l);
	}
}

static void meta_symbols(struct pp_session *s, uint16_t type, const uint8_t *data, size_t len)
{
	struct pp_item_iter it;
	struct pp_item item;

	pp_item_iter__init(&it, data, len);
	while (pp_item_iter__next(&it, &item)) {
		if (type == PP_CHUNK_KSYMS)
			pp_symtab__add_ksyms(s->syms, item.body, item.size);
		else
			pp_symtab__add_usyms(s->syms, item.body, item.size);
	}
}

/**
 * pp_session__meta_chunk() - process one metadata chunk.
 * @s: session; @type: chunk type; @data, @len: raw payload; @stream: its stream.
 * Return: 0 or -errno.
 */
int pp_session__meta_chunk(struct pp_session *s, uint16_t type, const uint8_t *data, size_t len,
			   uint32_t stream)
{
	s->stats.meta_chunks++;
	switch (type) {
	case PP_CHUNK_MACHINE:
		meta_machine(s, data, len);
		break;
	case PP_CHUNK_ATTRS:
		meta_attrs(s, data, len);
		pp_session__link_formats(s);
		break;
	case PP_CHUNK_FORMATS:
		meta_formats(s, data, len);
		break;
	case PP_CHUNK_TASKS:
		meta_tasks(s, data, len);
		break;
	case PP_CHUNK_MMAPS:
		if (!s->a.no_symbols)
			meta_mmaps(s, data, len);
		break;
	case PP_CHUNK_KSYMS:
	case PP_CHUNK_USYMS:
		if (!s->a.no_symbols)
			meta_symbols(s, type, data, len);
		break;
	case PP_CHUNK_LOST:
		meta_lost(s, data, len);
		break;
	case PP_CHUNK_BPF_AGG:
		s->stats.meta_chunks--;		/* data, of the module's aggregator */
		if (pp_bpf_agg_feed__payload(s, data, len))
			pp_session__warn(s, "out of memory: BPF aggregate items dropped");
		break;
	default:
		s->stats.meta_chunks--;
		break;
	}
	return pp_session__mem_check(s);
}

/**
 * pp_session__record_ts() - time of a record, from its event's sample_type.
 * @s: session; @rec, @size: the record; @ts: receives the time.
 * Return: 0, -ENOENT (unknown id or no time), -EINVAL (short).
 */
int pp_session__record_ts(const struct pp_session *s, const uint8_t *rec, size_t size, uint64_t *ts)
{
	const struct pp_evsel *ev = pp_session__evsel_by_id(s, pp_sample__id(rec, size));

	if (!ev)
		return -ENOENT;
	return pp_sample__time(ev->sample_type, rec, size, ts);
}
