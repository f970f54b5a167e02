// SPDX-License-Identifier: MIT
/*
 * What analyzers call on an event: tracepoint field access, decoded field
 * printing (compiled plan, else libtraceevent on a guarded record, else
 * name=value), stacks and symbols.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/perf_event.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>
#include "replay-internal.h"
#include "fmt-check.h"

/**
 * pp_evsel__field() - find a tracepoint field of @ev by name.
 * @ev: event; @name: field name (common_* included).
 * Return: the field, or NULL.
 */
struct tep_format_field *pp_evsel__field(const struct pp_evsel *ev, const char *name)
{
	if (!ev->tp)
		return NULL;
	return tep_find_any_field(ev->tp, name);
}

/**
 * pp_evsel__fields() - @ev's own field names for a message.
 * @ev: event; @buf, @len: destination.
 * Return: @buf, "it has: a, b" (cut with ", ..." when long).
 */
char *pp_evsel__fields(const struct pp_evsel *ev, char *buf, size_t len)
{
	size_t n = 0;

	if (!ev->tp) {
		snprintf(buf, len, "it has no format");
		return buf;
	}
	buf[0] = '\0';
	for (const struct tep_format_field *f = ev->tp->format.fields; f; f = f->next) {
		if (n + strlen(f->name) + 8 > len) {
			snprintf(buf + n, len - n, ", ...");
			return buf;
		}
		n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "it has: ", f->name);
	}
	if (!n)
		snprintf(buf, len, "it has no fields");
	return buf;
}

/**
 * pp_evsel__field_signed() - is @f declared signed?
 * @f: field, or NULL. Return: 1 or 0.
 */
int pp_evsel__field_signed(const struct tep_format_field *f)
{
	return f && (f->flags & TEP_FIELD_IS_SIGNED) ? 1 : 0;
}

/**
 * pp_event__num() - read a numeric field, sign-extended when signed.
 * @e: event; @f: field of its tracepoint; @val: receives the value.
 * Return: 0, -ENOENT (no field), -EINVAL (record too short).
 */
int pp_event__num(const struct pp_event *e, const struct tep_format_field *f, uint64_t *val)
{
	const uint8_t *p;
	uint64_t v;

	if (!f || !e->raw)
		return -ENOENT;
	if ((uint64_t)f->offset + (uint64_t)f->size > e->raw_size)
		return -EINVAL;
	p = (const uint8_t *)e->raw + f->offset;
	switch (f->size) {
	case 1:
		v = *p;
		if (f->flags & TEP_FIELD_IS_SIGNED)
			v = (uint64_t)(int64_t)(int8_t)*p;
		break;
	case 2: {
		uint16_t x;

		memcpy(&x, p, 2);
		v = (f->flags & TEP_FIELD_IS_SIGNED) ? (uint64_t)(int64_t)(int16_t)x : x;
		break;
	}
	case 4: {
		uint32_t x;

		memcpy(&x, p, 4);
		v = (f->flags & TEP_FIELD_IS_SIGNED) ? (uint64_t)(int64_t)(int32_t)x : x;
		break;
	}
	case 8:
		memcpy(&v, p, 8);
		break;
	default:
		return -EINVAL;
	}
	*val = v;
	return 0;
}

/**
 * pp_event__str() - read a string field (char array or __data_loc) into @buf.
 * @e: event; @f: field; @buf, @len: destination, NUL-terminated.
 * Return: 0 or -errno.
 */
int pp_event__str(const struct pp_event *e, const struct tep_format_field *f, char *buf, size_t len)
{
	uint32_t off, n;

	if (!f || !e->raw || !len)
		return -ENOENT;
	if ((uint64_t)f->offset + (uint64_t)f->size > e->raw_size)
		return -EINVAL;
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		uint32_t loc;

		if (f->size != 4)
			return -EINVAL;
		memcpy(&loc, (const uint8_t *)e->raw + f->offset, 4);
		off = loc & 0xffff;
		n = loc >> 16;
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			off += (uint32_t)f->offset + 4;
	} else {
		off = (uint32_t)f->offset;
		n = (uint32_t)f->size;
	}
	if ((uint64_t)off + n > e->raw_size)
		return -EINVAL;
	if (n >= len)
		n = (uint32_t)len - 1;
	memcpy(buf, (const uint8_t *)e->raw + off, n);
	buf[n] = '\0';
	buf[strnlen(buf, n)] = '\0';
	return 0;
}

/**
 * pp_session__prefetch_event() - start loading what printing @e's fields
 * will read first (its print plan's memo slot); call before its head.
 * @s: session; @e: event.
 */
void pp_session__prefetch_event(struct pp_session *s, const struct pp_event *e)
{
	struct pp_evsel *ev = (struct pp_evsel *)e->evsel;

	(void)s;
	if (ev->plan && e->raw)
		pp_print_plan__prefetch(ev->plan, e->raw, e->raw_size);
}

/**
 * pp_session__print_event() - write the decoded fields of a tracepoint event.
 * @s: session; @e: event.
 */
void pp_session__print_event(struct pp_session *s, const struct pp_event *e)
{
	struct pp_evsel *ev = (struct pp_evsel *)e->evsel;
	struct tep_record r;
	struct trace_seq seq;

	if (ev->btf && e->raw) {
		/* a BPF output record: its fields from the BTF stored in the file */
		char buf[4096];
		int n = pp_btf_fmt__print(ev->btf, e->raw, e->raw_size, buf, sizeof(buf));

		pp_out__puts(&s->out, buf);
		if (n < 0)
			pp_out__puts(&s->out, " [short record]");
		return;
	}
	if (!ev->tp || !e->raw)
		return;
	if (ev->plan && !pp_print_plan__run(ev->plan, e->raw, e->raw_size, &s->out))
		return;
	/*
	 * libtraceevent reads wherever the format points: it gets only records
	 * whose fields and __data_loc areas the guard found inside, of formats
	 * whose print work that bounds. Anything else prints field by field.
	 */
	if (!pp_fmt_guard__tep_ok(ev->guard) || !pp_fmt_guard__record(ev->guard, e->raw, e->raw_size)) {
		pp_fmt_print_fields(&s->out, ev->tp, e->raw, e->raw_size);
		return;
	}
	memset(&r, 0, sizeof(r));
	r.ts = e->time;
	r.cpu = (int)e->cpu;
	r.size = (int)e->raw_size;
	r.data = (void *)e->raw;
	trace_seq_init(&seq);
	tep_print_event(s->tep, &seq, &r, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&seq);
	pp_out__write(&s->out, seq.buffer, seq.len);
	trace_seq_destroy(&seq);
}

static void json_num(struct pp_out *o, uint64_t v, int is_signed)
{
	if (is_signed)
		pp_out__i64(o, (int64_t)v);
	else
		pp_out__u64(o, v);
}

/* One field's value: a string, a number, an address, or an array of numbers. */
static void json_field(struct pp_out *o, const struct pp_event *e, struct tep_format_field *f)
{
	unsigned long flags = f->flags;
	int is_signed = !!(flags & TEP_FIELD_IS_SIGNED);
	uint32_t off = (uint32_t)f->offset, n = (uint32_t)f->size;
	unsigned int esz;
	uint64_t v;

	if ((uint64_t)f->offset + (uint64_t)f->size > e->raw_size) {
		pp_out__puts(o, "null");
		return;
	}
	if (flags & TEP_FIELD_IS_STRING) {
		char buf[4096];

		if (pp_event__str(e, f, buf, sizeof(buf)))
			pp_out__puts(o, "null");
		else
			pp_out__json_str(o, buf);
		return;
	}
	if (flags & TEP_FIELD_IS_DYNAMIC) {
		uint32_t loc;

		if (f->size != 4) {
			pp_out__puts(o, "null");
			return;
		}
		memcpy(&loc, (const uint8_t *)e->raw + f->offset, 4);
		off = loc & 0xffff;
		n = loc >> 16;
		if (flags & TEP_FIELD_IS_RELATIVE)
			off += (uint32_t)f->offset + 4;
		if ((uint64_t)off + n > e->raw_size) {
			pp_out__puts(o, "null");
			return;
		}
	}
	if (flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) {
		esz = f->elementsize > 0 && f->elementsize <= 8 ? (unsigned int)f->elementsize : 1;
		pp_out__putc(o, '[');
		for (uint32_t i = 0; i + esz <= n; i += esz) {
			if (i)
				pp_out__putc(o, ',');
			if (pp_fmt_load_int((const uint8_t *)e->raw + off + i, esz, is_signed, &v))
				v = 0;
			json_num(o, v, is_signed);
		}
		pp_out__putc(o, ']');
		return;
	}
	if (pp_fmt_load_int((const uint8_t *)e->raw + off, n, is_signed, &v)) {
		pp_out__puts(o, "null");
		return;
	}
	if (flags & TEP_FIELD_IS_POINTER)
		pp_out__printf(o, "\"0x%llx\"", (unsigned long long)v);
	else
		json_num(o, v, is_signed);
}

/**
 * pp_session__json_fields() - the payload of a tracepoint event or a BPF
 * output record as JSON members.
 * @s: session; @e: event.
 *
 * A tracepoint gives ,"fields":{NAME:VALUE,...} of its own fields (not the
 * common_* ones), in format order: strings as strings, signed fields as
 * signed numbers, pointers as "0x..." strings, arrays as arrays of numbers,
 * null for what the record is too short to hold. A BPF output record gives
 * ,"text":"..." (its fields as trace prints them; nested structs do not map
 * to one flat object). Nothing for other events.
 */
void pp_session__json_fields(struct pp_session *s, const struct pp_event *e)
{
	struct pp_evsel *ev = (struct pp_evsel *)e->evsel;
	int first = 1;

	if (ev->btf && e->raw) {
		char buf[4096];

		pp_btf_fmt__print(ev->btf, e->raw, e->raw_size, buf, sizeof(buf));
		pp_out__puts(&s->out, ",\"text\":");
		pp_out__json_str(&s->out, buf);
		return;
	}
	if (!ev->tp || !e->raw)
		return;
	pp_out__puts(&s->out, ",\"fields\":{");
	for (struct tep_format_field *f = ev->tp->format.fields; f; f = f->next) {
		if (!first)
			pp_out__putc(&s->out, ',');
		first = 0;
		pp_out__json_str(&s->out, f->name);
		pp_out__putc(&s->out, ':');
		json_field(&s->out, e, f);
	}
	pp_out__putc(&s->out, '}');
}

/**
 * pp_session__sym() - symbolize @addr of @pid.
 * @s: session; @pid: process; @addr: address; @kernel: kernel address;
 * @buf, @len: receives the name; @dso: receives the DSO, may be NULL.
 * Return: 1 if a symbol was found, 0 otherwise.
 */
int pp_session__sym(struct pp_session *s, uint32_t pid, uint64_t addr, int kernel,
		    char *buf, size_t len, const char **dso)
{
	return pp_symtab__lookup(s->syms, pid, addr, kernel, buf, len, dso);
}

/* Walk @e's callchain callee first; @fn gets each frame. */
static int is_kernel_addr(uint64_t a)
{
	return a >= 0xffff800000000000ull;
}

/**
 * pp_session__print_stack() - print the callchain of @e, callee first.
 * @s: session; @e: event; @indent: line prefix.
 */
void pp_session__print_stack(struct pp_session *s, const struct pp_event *e, const char *indent)
{
	int kernel = 0;
	const struct pp_evspec *spec = e->evsel->spec;
	uint32_t shown = 0, max = spec && spec->max_stack ? (uint32_t)spec->max_stack : 1024;

	for (uint32_t i = 0; i < e->nr_callchain && shown < max; i++) {
		uint64_t ip = e->callchain[i];
		const char *dso = NULL;
		char name[256];

		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			kernel = ip == (uint64_t)PERF_CONTEXT_KERNEL;
			continue;
		}
		if (ip < 4096)		/* the end marker of a frame-pointer walk */
			continue;
		pp_session__sym(s, e->pid, ip, kernel || is_kernel_addr(ip), name, sizeof(name), &dso);
		pp_out__printf(&s->out, "%s%16llx %s (%s)\n", indent, (unsigned long long)ip, name,
			       dso ? dso : "[unknown]");
		shown++;
	}
}

/**
 * pp_session__fold_stack() - "comm;outer;...;inner", kernel frames "_[k]".
 * @s: session; @e: event; @buf, @len: destination.
 * Return: length written (without the NUL).
 */
size_t pp_session__fold_stack(struct pp_session *s, const struct pp_event *e, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s", pp_session__comm(s, e->tid));
	size_t off = n < 0 ? 0 : (size_t)n >= len ? len - 1 : (size_t)n;
	int kernel_at[1024];
	uint64_t ips[1024];
	uint32_t nr = 0;
	int kernel = 0;

	for (uint32_t i = 0; i < e->nr_callchain && nr < 1024; i++) {
		uint64_t ip = e->callchain[i];

		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			kernel = ip == (uint64_t)PERF_CONTEXT_KERNEL;
			continue;
		}
		if (ip < 4096)		/* the end marker of a frame-pointer walk */
			continue;
		ips[nr] = ip;
		kernel_at[nr++] = kernel || is_kernel_addr(ip);
	}
	while (nr--) {
		char name[256];

		pp_session__sym(s, e->pid, ips[nr], kernel_at[nr], name, sizeof(name), NULL);
		n = snprintf(buf + off, len - off, ";%s%s", name, kernel_at[nr] ? "_[k]" : "");
		if (n < 0 || (size_t)n >= len - off)
			break;
		off += (size_t)n;
	}
	return off;
}

/**
 * pp_session__sym_version() - changes whenever a lookup of @pid's addresses
 * (@kernel: kernel addresses) may change its answer.
 */
uint64_t pp_session__sym_version(const struct pp_session *s, uint32_t pid, int kernel)
{
	return pp_symtab__version(s->syms, pid, kernel);
}

/**
 * pp_session__frame_name() - the symbol of @ip of @pid, "_[k]" appended for
 * a kernel frame, as pp_session__stack_frames() names it.
 * @buf: at least 128 bytes. Return: its length.
 */
size_t pp_session__frame_name(struct pp_session *s, uint32_t pid, uint64_t ip, int kernel,
			      char *buf)
{
	size_t nl;

	pp_session__sym(s, pid, ip, kernel, buf, 120, NULL);
	nl = strnlen(buf, 119);
	if (kernel) {
		memcpy(buf + nl, "_[k]", 4);
		nl += 4;
	}
	buf[nl] = '\0';
	return nl;
}

/*
 * The name of frame @ip of @pid (0 for kernel frames), from the frame cache,
 * resolving and caching it on a miss. Return: the name, or NULL if the cache
 * cannot be used (out of memory): the caller resolves it itself.
 */
static const char *frame_cached(struct pp_session *s, uint32_t pid, uint64_t ip, int kernel)
{
	uint64_t ver = pp_symtab__version(s->syms, pid, kernel);
	struct pp_fcache *c = s->fcache;
	struct pp_fcache_ent *ent;
	char name[128];
	size_t nl;
	uint64_t h;

	if (!c) {
		c = s->fcache = calloc(1, sizeof(*c));
		if (!c)
			return NULL;
	}
	h = (ip ^ (ver << 40) ^ (ver >> 24)) * 0x9e3779b97f4a7c15ull;
	ent = &c->e[h >> (64 - 12)];
	if (ent->name && ent->ip == ip && ent->ver == ver)
		return ent->name;
	nl = pp_session__frame_name(s, pid, ip, kernel, name) + 1;
	if (!c->nr_blocks || c->used + nl > PP_FCACHE_BLOCK) {
		if (c->nr_blocks == PP_FCACHE_MAX_BLOCKS) {
			/*
			 * Full: the caller resolves this frame itself, and the cache
			 * starts over at the next stack (names already handed out
			 * for this one must stay valid until then).
			 */
			c->full = 1;
			return NULL;
		}
		c->blocks[c->nr_blocks] = malloc(PP_FCACHE_BLOCK);
		if (!c->blocks[c->nr_blocks])
			return NULL;
		c->nr_blocks++;
		c->used = 0;
	}
	ent->name = memcpy(c->blocks[c->nr_blocks - 1] + c->used, name, nl);
	c->used += nl;
	ent->ip = ip;
	ent->ver = ver;
	return ent->name;
}

/**
 * pp_session__stack_ips() - @e's code addresses, outermost caller first.
 * @s: session; @e: event; @ips, @kernel: receive up to @max frames.
 * Return: number of frames.
 */
size_t pp_session__stack_ips(const struct pp_session *s, const struct pp_event *e, uint64_t *ips,
			     uint8_t *kernel, size_t max)
{
	uint32_t idx[1024];
	uint8_t kern[1024];
	uint32_t nr = 0;
	int k = 0;
	size_t n = 0;

	(void)s;
	for (uint32_t i = 0; i < e->nr_callchain && nr < 1024; i++) {
		uint64_t ip = e->callchain[i];

		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			k = ip == (uint64_t)PERF_CONTEXT_KERNEL;
			continue;
		}
		if (ip < 4096)		/* the end marker of a frame-pointer walk */
			continue;
		idx[nr] = i;
		kern[nr++] = (uint8_t)(k || is_kernel_addr(ip));
	}
	while (nr-- && n < max) {
		ips[n] = e->callchain[idx[nr]];
		kernel[n++] = kern[nr];
	}
	return n;
}

/**
 * pp_session__stack_frames() - the frames of @e's callchain, root first.
 * @s: session; @e: event;
 * @names: storage for @max names of 128 bytes;
 * @frames: receives pointers into @names: comm, outermost caller, ..., innermost
 *          (kernel frames suffixed "_[k]");
 * @max: capacity of both arrays.
 * Return: number of frames.
 */
size_t pp_session__stack_frames(struct pp_session *s, const struct pp_event *e, char (*names)[128],
				const char **frames, size_t max)
{
	uint64_t ips[1024];
	uint8_t kern[1024];
	size_t n = 0, nr;

	if (!max)
		return 0;
	if (s->fcache && s->fcache->full) {
		/* start over rather than grow without bound */
		for (int i = 0; i < s->fcache->nr_blocks; i++)
			free(s->fcache->blocks[i]);
		memset(s->fcache, 0, sizeof(*s->fcache));
	}
	{
		const char *comm = pp_session__comm(s, e->tid);
		size_t cl = strnlen(comm, 127);

		memcpy(names[0], comm, cl);
		names[0][cl] = '\0';
	}
	frames[n++] = names[0];
	nr = pp_session__stack_ips(s, e, ips, kern, max - 1 < 1024 ? max - 1 : 1024);
	for (size_t i = 0; i < nr; i++, n++) {
		const char *cached = frame_cached(s, kern[i] ? 0 : e->pid, ips[i], kern[i]);

		if (cached) {
			frames[n] = cached;
		} else {
			pp_session__frame_name(s, e->pid, ips[i], kern[i], names[n]);
			frames[n] = names[n];
		}
	}
	return n;
}

/**
 * pp_session__format_time() - "HH:MM:SS.uuuuuu" wall clock of @ts (local
 * time), or "SSSSS.uuuuuu" perf-clock seconds when the file has no clock pair.
 * @s: session; @ts: perf-clock ns; @buf: at least 32 bytes.
 * Return: length.
 */
size_t pp_session__format_time(struct pp_session *s, uint64_t ts, char *buf)
{
	static __thread time_t cached_sec = (time_t)-1;
	static __thread char cached[16];
	uint64_t rt = pp_session__realtime(s, ts);
	uint32_t us;
	time_t sec;

	if (!rt) {
		int n = snprintf(buf, 32, "%llu.%06llu", (unsigned long long)(ts / 1000000000ull),
				 (unsigned long long)(ts % 1000000000ull / 1000));

		return n < 0 ? 0 : (size_t)n;
	}
	sec = (time_t)(rt / 1000000000ull);
	us = (uint32_t)(rt % 1000000000ull / 1000);
	if (sec != cached_sec) {
		struct tm tm;

		localtime_r(&sec, &tm);
		strftime(cached, sizeof(cached), "%H:%M:%S", &tm);
		cached_sec = sec;
	}
	memcpy(buf, cached, 8);
	buf[8] = '.';
	pp_dec_put6(buf + 9, us);
	buf[15] = '\0';
	return 15;
}

/**
 * pp_session__map() - the mapping of @addr of @pid.
 * @s: session; @kernel: a kernel address; @m: receives it.
 * Return: 1 when found, else 0.
 */
int pp_session__map(struct pp_session *s, uint32_t pid, uint64_t addr, int kernel,
		    struct pp_map_info *m)
{
	return pp_symtab__map(s->syms, pid, addr, kernel, m);
}

/**
 * pp_session__sym_offset() - how far @addr of @pid is into its symbol
 * (perf script's "sym+0xoff").
 * @s: session; @kernel: a kernel address; @off: receives the distance.
 * Return: 1 when the address is in a known symbol, else 0.
 */
int pp_session__sym_offset(struct pp_session *s, uint32_t pid, uint64_t addr, int kernel,
			   uint64_t *off)
{
	return pp_symtab__sym_offset(s->syms, pid, addr, kernel, off);
}
