// SPDX-License-Identifier: MIT
/*
 * Print plans: a tracepoint's print_fmt compiled once into a list of steps
 * (literal text, integer field in decimal or hex, string field), so printing
 * an event costs field reads and digit loops instead of libtraceevent's
 * interpreter (about 1.7 us an event). What a plan cannot reproduce exactly
 * (flags, symbols, ops, casts, %p, helpers) makes compile return NULL and the
 * caller uses tep_print_event. tests/test-replay-plan.c checks that the plan
 * prints what libtraceevent prints for every format of the running kernel
 * that it claims.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include "pp/replay.h"

enum step_kind {
	STEP_LIT,
	STEP_NUM,
	STEP_STR,
};

struct step {
	enum step_kind kind;
	uint8_t len_mod;	/* 0 int, 1 long, 2/5 long long, 3 short, 4 char */
	char conv;		/* d u x X s */
	char fmt[16];		/* printf format when width/flags are used, else "" */
	struct tep_print_arg *arg;	/* owned by the tep handle */
	const char *lit;
	size_t lit_len;
};

/* Evaluation context of one record. */
struct ctx {
	const uint8_t *d;
	uint32_t size;
	int bad;
};

struct pp_print_plan {
	size_t nr;
	char *lits;		/* literal text, owned */
	struct step steps[];
};

static size_t mod_len(int lmod)
{
	return lmod == 2 || lmod == 4 ? 2 : lmod ? 1 : 0;
}

/* Parse one conversion at @p ("%...c"); Return: its length or 0 if unsupported. */
static size_t parse_conv(const char *p, struct step *st, int *needs_fmt)
{
	const char *q = p + 1;
	int lmod = 0;

	*needs_fmt = 0;
	while (*q == '-' || *q == '0' || *q == '#' || *q == ' ' || *q == '+') {
		*needs_fmt = 1;
		q++;
	}
	while (*q >= '0' && *q <= '9') {
		*needs_fmt = 1;
		q++;
	}
	if (*q == '.')
		return 0;
	if (q[0] == 'l' && q[1] == 'l') {
		lmod = 2;
		q += 2;
	} else if (q[0] == 'L') {
		lmod = 5;	/* long long, one character */
		q++;
	} else if (q[0] == 'l') {
		lmod = 1;
		q++;
	} else if (q[0] == 'h' && q[1] == 'h') {
		lmod = 4;
		q += 2;
	} else if (q[0] == 'h') {
		lmod = 3;
		q++;
	} else if (q[0] == 'z') {
		lmod = 1;
		q++;
	}
	switch (*q) {
	case 'd': case 'i': case 'u': case 'x': case 'X':
		st->kind = STEP_NUM;
		st->conv = *q == 'i' ? 'd' : *q;
		break;
	case 's':
		if (lmod)
			return 0;
		st->kind = STEP_STR;
		st->conv = 's';
		break;
	default:
		return 0;
	}
	st->len_mod = (uint8_t)lmod;
	if (*needs_fmt) {
		size_t n = (size_t)(q - p) + 1;

		if (n + 3 >= sizeof(st->fmt))
			return 0;
		/* Widen to long long so one snprintf call fits every case. */
		memcpy(st->fmt, p, (size_t)(q - p) - mod_len(lmod));
		st->fmt[(size_t)(q - p) - mod_len(lmod)] = '\0';
		if (st->kind == STEP_NUM)
			strcat(st->fmt, "ll");
		strncat(st->fmt, q, 1);
		(void)n;
	}
	return (size_t)(q - p) + 1;
}

/* Integer cast by type name: size in bytes and signedness; Return -1 if unknown. */
static int cast_of(const char *t, int *is_signed)
{
	int u = !strncmp(t, "unsigned ", 9) || t[0] == 'u' || !strcmp(t, "size_t") ||
		!strcmp(t, "bool") || !strcmp(t, "_Bool");

	*is_signed = !u;
	if (strchr(t, '*'))
		return *is_signed = 0, 8;
	if (strstr(t, "long long") || strstr(t, "64"))
		return 8;
	if (strstr(t, "long") || !strcmp(t, "size_t") || !strcmp(t, "ssize_t"))
		return 8;
	if (strstr(t, "int") || strstr(t, "32"))
		return 4;
	if (strstr(t, "short") || strstr(t, "16"))
		return 2;
	if (strstr(t, "char") || strstr(t, "8") || !strcmp(t, "bool"))
		return 1;
	return -1;
}

static struct tep_format_field *field_of(struct tep_event *ev, struct tep_print_arg *a)
{
	if (!a->field.field)
		a->field.field = tep_find_any_field(ev, a->field.name);
	return a->field.field;
}

static int check_num(struct tep_event *ev, struct tep_print_arg *a)
{
	int sg;

	if (!a)
		return -1;
	switch (a->type) {
	case TEP_PRINT_ATOM:
		return a->atom.atom && (a->atom.atom[0] >= '0' && a->atom.atom[0] <= '9') ? 0 : -1;
	case TEP_PRINT_FIELD: {
		struct tep_format_field *f = field_of(ev, a);

		if (!f || (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)))
			return -1;
		return f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8 ? 0 : -1;
	}
	case TEP_PRINT_TYPE:
		return cast_of(a->typecast.type, &sg) < 0 ? -1 : check_num(ev, a->typecast.item);
	case TEP_PRINT_OP: {
		const char *op = a->op.op;

		if (!strcmp(op, "?")) {
			if (!a->op.right || a->op.right->type != TEP_PRINT_OP || strcmp(a->op.right->op.op, ":"))
				return -1;
			return check_num(ev, a->op.left) || check_num(ev, a->op.right->op.left) ||
			       check_num(ev, a->op.right->op.right);
		}
		if (!strcmp(op, "!") || !strcmp(op, "~"))
			return check_num(ev, a->op.right);
		static const char *const bin[] = { "+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>", "==",
						   "!=", "<", ">", "<=", ">=", "&&", "||" };
		for (size_t i = 0; i < sizeof(bin) / sizeof(bin[0]); i++) {
			if (!strcmp(op, bin[i]))
				return check_num(ev, a->op.left) || check_num(ev, a->op.right);
		}
		return -1;
	}
	default:
		return -1;
	}
}

static int check_flags(struct tep_print_flag_sym *f)
{
	for (; f; f = f->next) {
		if (!f->value || !f->str || f->value[0] < '0' || f->value[0] > '9')
			return -1;
	}
	return 0;
}

static int check_str(struct tep_event *ev, struct tep_print_arg *a)
{
	if (!a)
		return -1;
	switch (a->type) {
	case TEP_PRINT_ATOM:
		return a->atom.atom ? 0 : -1;
	case TEP_PRINT_STRING: {
		if (!a->string.field)
			a->string.field = tep_find_any_field(ev, a->string.string);
		return a->string.field && (a->string.field->flags & TEP_FIELD_IS_DYNAMIC) &&
		       a->string.field->size == 4 ? 0 : -1;
	}
	case TEP_PRINT_FIELD: {
		struct tep_format_field *f = field_of(ev, a);

		if (!f || !(f->flags & TEP_FIELD_IS_STRING))
			return -1;
		return (f->flags & TEP_FIELD_IS_DYNAMIC) ? (f->size == 4 ? 0 : -1) :
		       (f->flags & TEP_FIELD_IS_ARRAY) ? 0 : -1;
	}
	case TEP_PRINT_FLAGS:
		return check_num(ev, a->flags.field) || check_flags(a->flags.flags);
	case TEP_PRINT_SYMBOL:
		return check_num(ev, a->symbol.field) || check_flags(a->symbol.symbols);
	case TEP_PRINT_OP:
		if (strcmp(a->op.op, "?") || !a->op.right || a->op.right->type != TEP_PRINT_OP ||
		    strcmp(a->op.right->op.op, ":"))
			return -1;
		return check_num(ev, a->op.left) || check_str(ev, a->op.right->op.left) ||
		       check_str(ev, a->op.right->op.right);
	default:
		return -1;
	}
}

static uint64_t read_field(struct ctx *c, const struct tep_format_field *f)
{
	const uint8_t *p;
	uint64_t v = 0;

	if ((uint64_t)f->offset + (uint64_t)f->size > c->size) {
		c->bad = 1;
		return 0;
	}
	p = c->d + f->offset;
	switch (f->size) {
	case 1: v = *p; break;
	case 2: { uint16_t x; memcpy(&x, p, 2); v = x; break; }
	case 4: { uint32_t x; memcpy(&x, p, 4); v = x; break; }
	default: memcpy(&v, p, 8); break;
	}
	return v;
}

static int64_t eval_num(struct ctx *c, const struct tep_print_arg *a)
{
	switch (a->type) {
	case TEP_PRINT_ATOM:
		return (int64_t)strtoull(a->atom.atom, NULL, 0);
	case TEP_PRINT_FIELD:
		return (int64_t)read_field(c, a->field.field);
	case TEP_PRINT_TYPE: {
		int64_t v = eval_num(c, a->typecast.item);
		int sg, sz = cast_of(a->typecast.type, &sg);

		switch (sz) {
		case 1: return sg ? (int8_t)v : (int64_t)(uint8_t)v;
		case 2: return sg ? (int16_t)v : (int64_t)(uint16_t)v;
		case 4: return sg ? (int32_t)v : (int64_t)(uint32_t)v;
		default: return v;
		}
	}
	case TEP_PRINT_OP: {
		const char *op = a->op.op;
		uint64_t l, r;

		if (op[0] == '?')
			return eval_num(c, a->op.left) ? eval_num(c, a->op.right->op.left) :
							  eval_num(c, a->op.right->op.right);
		if (op[0] == '!' && !op[1])
			return !eval_num(c, a->op.right);
		if (op[0] == '~')
			return ~eval_num(c, a->op.right);
		/* libtraceevent evaluates in unsigned long long: do the same */
		l = (uint64_t)eval_num(c, a->op.left);
		r = (uint64_t)eval_num(c, a->op.right);
		switch (op[0]) {
		case '+': return (int64_t)(l + r);
		case '-': return (int64_t)(l - r);
		case '*': return (int64_t)(l * r);
		case '/': if (!r) { c->bad = 1; return 0; } return (int64_t)(l / r);
		case '%': if (!r) { c->bad = 1; return 0; } return (int64_t)(l % r);
		case '^': return (int64_t)(l ^ r);
		case '&': return op[1] == '&' ? (l && r) : (int64_t)(l & r);
		case '|': return op[1] == '|' ? (l || r) : (int64_t)(l | r);
		case '=': return l == r;
		case '!': return l != r;
		case '<':
			if (op[1] == '<')
				return (int64_t)(l << (r & 63));	/* as x86 shifts */
			return op[1] == '=' ? l <= r : l < r;
		case '>':
			if (op[1] == '>')
				return (int64_t)(l >> (r & 63));
			return op[1] == '=' ? l >= r : l > r;
		}
		c->bad = 1;
		return 0;
	}
	default:
		c->bad = 1;
		return 0;
	}
}

static void put_hex0x(struct pp_out *o, uint64_t v)
{
	char tmp[24];
	int n = snprintf(tmp, sizeof(tmp), "0x%llx", (unsigned long long)v);

	pp_out__write(o, tmp, (size_t)n);
}

static void put_dyn(struct ctx *c, struct pp_out *o, const struct tep_format_field *f)
{
	uint32_t loc, off, n;

	if ((uint64_t)f->offset + 4 > c->size) {
		c->bad = 1;
		return;
	}
	memcpy(&loc, c->d + f->offset, 4);
	off = loc & 0xffff;
	n = loc >> 16;
	if (f->flags & TEP_FIELD_IS_RELATIVE)
		off += (uint32_t)f->offset + 4;
	if (off > c->size) {
		c->bad = 1;
		return;
	}
	if ((uint64_t)off + n > c->size)
		n = c->size - off;
	pp_out__write(o, c->d + off, strnlen((const char *)c->d + off, n));
}

static void eval_str(struct ctx *c, struct pp_out *o, const struct tep_print_arg *a)
{
	switch (a->type) {
	case TEP_PRINT_ATOM:
		pp_out__puts(o, a->atom.atom);
		return;
	case TEP_PRINT_STRING:
		put_dyn(c, o, a->string.field);
		return;
	case TEP_PRINT_FIELD: {
		const struct tep_format_field *f = a->field.field;

		if (f->flags & TEP_FIELD_IS_DYNAMIC) {
			put_dyn(c, o, f);
			return;
		}
		if ((uint64_t)f->offset + (uint64_t)f->size > c->size) {
			c->bad = 1;
			return;
		}
		pp_out__write(o, c->d + f->offset, strnlen((const char *)c->d + f->offset, (size_t)f->size));
		return;
	}
	case TEP_PRINT_FLAGS: {
		uint64_t val = (uint64_t)eval_num(c, a->flags.field);
		int printed = 0;

		for (const struct tep_print_flag_sym *f = a->flags.flags; f; f = f->next) {
			uint64_t fv = strtoull(f->value, NULL, 0);

			if (!val && !fv) {
				pp_out__puts(o, f->str);
				break;
			}
			if (fv && (val & fv) == fv) {
				if (printed && a->flags.delim)
					pp_out__puts(o, a->flags.delim);
				pp_out__puts(o, f->str);
				printed = 1;
				val &= ~fv;
			}
		}
		if (val) {
			if (printed && a->flags.delim)
				pp_out__puts(o, a->flags.delim);
			put_hex0x(o, val);
		}
		return;
	}
	case TEP_PRINT_SYMBOL: {
		uint64_t val = (uint64_t)eval_num(c, a->symbol.field);

		for (const struct tep_print_flag_sym *f = a->symbol.symbols; f; f = f->next) {
			if (val == strtoull(f->value, NULL, 0)) {
				pp_out__puts(o, f->str);
				return;
			}
		}
		put_hex0x(o, val);
		return;
	}
	case TEP_PRINT_OP:
		if (eval_num(c, a->op.left))
			eval_str(c, o, a->op.right->op.left);
		else
			eval_str(c, o, a->op.right->op.right);
		return;
	default:
		c->bad = 1;
		return;
	}
}

/**
 * pp_print_plan__compile() - compile @ev's print format.
 * @tep: handle; @ev: event.
 * Return: plan, or NULL when the format holds something the plan does not handle.
 */
struct pp_print_plan *pp_print_plan__compile(struct tep_handle *tep, struct tep_event *ev)
{
	const char *fmt = ev->print_fmt.format, *p;
	struct tep_print_arg *arg = ev->print_fmt.args;
	struct pp_print_plan *plan;
	size_t max, nr = 0, litlen = 0;
	char *lits;

	if (!fmt || (ev->flags & (TEP_EVENT_FL_ISFTRACE | TEP_EVENT_FL_ISPRINT | TEP_EVENT_FL_FAILED)))
		return NULL;
	max = 2 * strlen(fmt) + 2;
	plan = calloc(1, sizeof(*plan) + max * sizeof(struct step));
	lits = malloc(strlen(fmt) + 1);
	if (!plan || !lits)
		goto fail;
	plan->lits = lits;
	for (p = fmt; *p;) {
		struct step *st = &plan->steps[nr];
		int needs_fmt;
		size_t n;

		if (*p != '%' || p[1] == '%') {
			/* literal run: '%%' is one '%' */
			size_t start = litlen;

			while (*p && (*p != '%' || p[1] == '%')) {
				lits[litlen++] = *p;
				p += *p == '%' ? 2 : 1;
			}
			if (nr && plan->steps[nr - 1].kind == STEP_LIT) {
				plan->steps[nr - 1].lit_len += litlen - start;
				continue;
			}
			st->kind = STEP_LIT;
			st->lit = lits + start;
			st->lit_len = litlen - start;
			nr++;
			continue;
		}
		memset(st, 0, sizeof(*st));
		n = parse_conv(p, st, &needs_fmt);
		if (!n || !arg)
			goto fail;
		if (st->kind == STEP_STR ? check_str(ev, arg) : check_num(ev, arg))
			goto fail;
		if (st->kind == STEP_STR && needs_fmt)
			goto fail;
		st->arg = arg;
		nr++;
		p += n;
		arg = arg->next;
	}
	if (arg)	/* more args than conversions: not a shape we know */
		goto fail;
	lits[litlen] = '\0';
	plan->nr = nr;
	(void)tep;
	return plan;
fail:
	pp_print_plan__free(plan);
	return NULL;
}

static void put_u64(struct pp_out *o, uint64_t v, int hex, int upper)
{
	char tmp[24];
	int i = sizeof(tmp);
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";

	if (hex) {
		do {
			tmp[--i] = digits[v & 15];
			v >>= 4;
		} while (v);
	} else {
		do {
			tmp[--i] = (char)('0' + v % 10);
			v /= 10;
		} while (v);
	}
	pp_out__write(o, tmp + i, sizeof(tmp) - (size_t)i);
}

/**
 * pp_print_plan__run() - print one record's fields with @plan.
 * @plan: plan; @raw, @size: the tracepoint record; @o: output.
 * Return: 0, or -EINVAL when a field lies outside the record (nothing printed).
 */
int pp_print_plan__run(const struct pp_print_plan *plan, const void *raw, uint32_t size,
		       struct pp_out *o)
{
	struct ctx c = { .d = raw, .size = size };
	size_t saved = o->len;

	for (size_t i = 0; i < plan->nr && !c.bad; i++) {
		const struct step *st = &plan->steps[i];

		if (st->kind == STEP_LIT) {
			pp_out__write(o, st->lit, st->lit_len);
			continue;
		}
		if (st->kind == STEP_STR) {
			eval_str(&c, o, st->arg);
			continue;
		}
		uint64_t v = (uint64_t)eval_num(&c, st->arg);
		/* printf's argument conversion for the length modifier */
		int is_signed = st->conv == 'd';

		switch (st->len_mod) {
		case 0:
			v = is_signed ? (uint64_t)(int64_t)(int32_t)v : (uint32_t)v;
			break;
		case 3:
			v = is_signed ? (uint64_t)(int64_t)(int16_t)v : (uint16_t)v;
			break;
		case 4:
			v = is_signed ? (uint64_t)(int64_t)(int8_t)v : (uint8_t)v;
			break;
		default:
			break;
		}
		if (st->fmt[0]) {
			char tmp[64];
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
			/* st->fmt was built by parse_conv() from one checked conversion */
			int n = snprintf(tmp, sizeof(tmp), st->fmt, (long long)v);
#pragma GCC diagnostic pop

			if (n > 0)
				pp_out__write(o, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
			continue;
		}
		if (is_signed && (int64_t)v < 0) {
			pp_out__putc(o, '-');
			v = (uint64_t)0 - v;
		}
		put_u64(o, v, st->conv == 'x' || st->conv == 'X', st->conv == 'X');
	}
	if (c.bad) {
		if (o->len >= saved)
			o->len = saved;	/* caller falls back to libtraceevent */
		return -EINVAL;
	}
	return 0;
}

/**
 * pp_print_plan__free() - free a plan; accepts NULL.
 * @plan: plan.
 */
void pp_print_plan__free(struct pp_print_plan *plan)
{
	if (!plan)
		return;
	free(plan->lits);
	free(plan);
}
