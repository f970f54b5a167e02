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
#include "pp/io.h"
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
	uint8_t width;		/* "%Nd", "%0Nd", "%-Nd" (N < 32) done without printf; 0 = no */
	char pad;		/* ' ' or '0' */
	uint8_t left;		/* '-' flag */
	const struct pnode *n;		/* the argument, compiled */
	const char *lit;
	size_t lit_len;
};

/* Evaluation context of one record. */
struct ctx {
	const uint8_t *d;
	uint32_t size;
	int bad;
};

struct pnode;

/*
 * The memo: a record's printed fields depend on its bytes alone, and tracing
 * records repeat (the same task switches to the same task again, which is
 * why DATA's record cache pays). A direct-mapped table of recent records
 * and their text lets a repeat cost a hash, a compare and a copy instead of
 * a walk over every field. Records and texts too long for a slot are not
 * kept.
 */
#define MEMO_SLOTS	1024
#define MEMO_RAW	64
#define MEMO_OUT	188

struct memo_slot {
	uint16_t raw_len;	/* 0: empty */
	uint16_t out_len;
	uint8_t raw[MEMO_RAW];
	char out[MEMO_OUT];
};

struct pp_print_plan {
	size_t nr;
	char *lits;		/* literal text, owned */
	struct pnode *nodes;	/* every node, for freeing */
	struct memo_slot *memo;	/* MEMO_SLOTS, allocated on first use; NULL: none */
	const void *pf_raw;	/* the record pp_print_plan__prefetch() hashed */
	size_t pf_slot;		/* and its slot */
	int memo_off;		/* 1: no memory for it, do without */
	uint32_t memo_from;	/* bytes before it are read by no field: not compared */
	struct step steps[];
};

static size_t mod_len(int lmod)
{
	return lmod == 2 || lmod == 4 ? 2 : lmod ? 1 : 0;
}

/* "%[0|-]N" with one flag at most: padding the plan can do itself. */
static void simple_width(const char *p, const char *end, struct step *st)
{
	char pad = ' ';
	int left = 0, w = 0;

	if (*p == '0' || *p == '-') {
		pad = *p == '0' ? '0' : ' ';
		left = *p == '-';
		p++;
	}
	if (p >= end || *p < '1' || *p > '9')
		return;
	for (; p < end; p++) {
		if (*p < '0' || *p > '9')
			return;
		w = w * 10 + (*p - '0');
		if (w > 31)
			return;
	}
	st->width = (uint8_t)w;
	st->pad = pad;
	st->left = (uint8_t)left;
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
	for (unsigned int w = 0; *q >= '0' && *q <= '9'; q++) {
		*needs_fmt = 1;
		w = w * 10 + (unsigned int)(*q - '0');
		if (w > 64)	/* a width from a hostile file: snprintf would pad it all */
			return 0;
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
		if (st->kind == STEP_NUM)
			simple_width(p + 1, q - mod_len(lmod), st);
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

/*
 * A field's value as C sees REC->field: a field declared signed is
 * sign-extended (the kernel's own trace prints an s8 of -1 with %d as -1
 * and finds it below 0, where libtraceevent reads 255).
 */
static uint64_t read_field(struct ctx *c, const struct tep_format_field *f)
{
	const uint8_t *p;
	uint64_t v = 0;
	int sg = !!(f->flags & TEP_FIELD_IS_SIGNED);

	if ((uint64_t)f->offset + (uint64_t)f->size > c->size) {
		c->bad = 1;
		return 0;
	}
	p = c->d + f->offset;
	switch (f->size) {
	case 1: v = sg ? (uint64_t)(int64_t)(int8_t)*p : *p; break;
	case 2: { uint16_t x; memcpy(&x, p, 2); v = sg ? (uint64_t)(int64_t)(int16_t)x : x; break; }
	case 4: { uint32_t x; memcpy(&x, p, 4); v = sg ? (uint64_t)(int64_t)(int32_t)x : x; break; }
	default: memcpy(&v, p, 8); break;
	}
	return v;
}

/*
 * The argument tree, rebuilt at compile time with constants parsed once
 * (libtraceevent keeps them as strings: strtoull per event was a third of
 * the cost of printing).
 */
enum pnode_kind {
	P_CONST, P_FIELD, P_CAST, P_COND, P_NOT, P_BNOT, P_BIN,
	P_SATOM, P_SDYN, P_SFIELD, P_FLAGS, P_SYMBOL, P_SCOND,
};

struct pfsym {
	uint64_t val;
	const char *str;
	size_t len;		/* strlen(str), counted once */
};

struct pnode {
	uint8_t kind;
	char op, op2;			/* P_BIN: the operator's two characters */
	uint8_t sz, sg;			/* P_CAST; P_BIN: compare, divide, shift signed */
	uint8_t ts;			/* the value's C type is signed (see c_signed()) */
	int64_t val;			/* P_CONST */
	const struct tep_format_field *f;
	const char *str, *delim;	/* P_SATOM, P_FLAGS delimiter */
	size_t len, dlen;		/* their lengths, counted once */
	struct pnode *a, *b, *c;	/* operands; P_COND/P_SCOND: cond, then, else */
	struct pfsym *syms;		/* P_FLAGS, P_SYMBOL */
	size_t nr_syms;
	struct pnode *next_alloc;
};

static int64_t eval_num(struct ctx *c, const struct pnode *n)
{
	switch (n->kind) {
	case P_CONST:
		return n->val;
	case P_FIELD:
		return (int64_t)read_field(c, n->f);
	case P_CAST: {
		int64_t v = eval_num(c, n->a);

		switch (n->sz) {
		case 1: return n->sg ? (int8_t)v : (int64_t)(uint8_t)v;
		case 2: return n->sg ? (int16_t)v : (int64_t)(uint16_t)v;
		case 4: return n->sg ? (int32_t)v : (int64_t)(uint32_t)v;
		default: return v;
		}
	}
	case P_COND:
		return eval_num(c, n->a) ? eval_num(c, n->b) : eval_num(c, n->c);
	case P_NOT:
		return !eval_num(c, n->a);
	case P_BNOT:
		return ~eval_num(c, n->a);
	case P_BIN: {
		/*
		 * In 64 bits, signed where C's operands are both signed (the
		 * kernel's REC->a < 0 of an s8 of -1 is true; libtraceevent's
		 * unsigned long long makes it false). Signedness changes the
		 * result of the comparisons, / % and >> only.
		 */
		uint64_t l = (uint64_t)eval_num(c, n->a), r = (uint64_t)eval_num(c, n->b);
		int64_t sl = (int64_t)l, sr = (int64_t)r;

		if (n->sg) {
			switch (n->op) {
			case '/':
			case '%':
				if (!r || (sl == INT64_MIN && sr == -1)) {
					c->bad = 1;
					return 0;
				}
				return n->op == '/' ? sl / sr : sl % sr;
			case '<':
				if (n->op2 != '<')
					return n->op2 == '=' ? sl <= sr : sl < sr;
				break;
			case '>':
				if (n->op2 == '>')
					return sl >> (r & 63);
				return n->op2 == '=' ? sl >= sr : sl > sr;
			}
		}
		switch (n->op) {
		case '+': return (int64_t)(l + r);
		case '-': return (int64_t)(l - r);
		case '*': return (int64_t)(l * r);
		case '/': if (!r) { c->bad = 1; return 0; } return (int64_t)(l / r);
		case '%': if (!r) { c->bad = 1; return 0; } return (int64_t)(l % r);
		case '^': return (int64_t)(l ^ r);
		case '&': return n->op2 == '&' ? (l && r) : (int64_t)(l & r);
		case '|': return n->op2 == '|' ? (l || r) : (int64_t)(l | r);
		case '=': return l == r;
		case '!': return l != r;
		case '<':
			if (n->op2 == '<')
				return (int64_t)(l << (r & 63));	/* as x86 shifts */
			return n->op2 == '=' ? l <= r : l < r;
		case '>':
			if (n->op2 == '>')
				return (int64_t)(l >> (r & 63));
			return n->op2 == '=' ? l >= r : l > r;
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

/*
 * A NUL-padded string field of at most @max bytes: one pass finds both the
 * end and whether every byte is printable (the usual case, written as is);
 * anything else goes through pp_out__text_n() exactly as before.
 */
static void put_cstr_n(struct pp_out *o, const char *s, size_t max)
{
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	size_t i = 0;

	/*
	 * Eight bytes a step (a comm is two): a byte's high bit in @bad says
	 * it is not printable ASCII - it has its own high bit set, or its low
	 * seven bits plus 0x60 stay below 0x80 (below 0x20, NUL included),
	 * or they plus 1 reach 0x80 (0x7f). No sum carries into the next byte.
	 */
	for (; i + 8 <= max; i += 8) {
		uint64_t w, x, bad;

		memcpy(&w, s + i, 8);
		x = w & ~highs;
		bad = (w | ~(x + 0x60 * ones) | (x + ones)) & highs;
		if (bad) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			i += (size_t)__builtin_ctzll(bad) / 8;
#else
			i += (size_t)__builtin_clzll(bad) / 8;
#endif
			goto end;
		}
	}
	while (i < max && (unsigned char)s[i] >= 0x20 && (unsigned char)s[i] < 0x7f)
		i++;
end:
	if (i == max || !s[i]) {
		pp_out__write(o, s, i);
		return;
	}
	pp_out__text_n(o, s, strnlen(s, max));
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
	put_cstr_n(o, (const char *)c->d + off, n);
}

static void eval_str(struct ctx *c, struct pp_out *o, const struct pnode *n)
{
	switch (n->kind) {
	case P_SATOM:
		pp_out__write(o, n->str, n->len);
		return;
	case P_SDYN:
		put_dyn(c, o, n->f);
		return;
	case P_SFIELD:
		if ((uint64_t)n->f->offset + (uint64_t)n->f->size > c->size) {
			c->bad = 1;
			return;
		}
		put_cstr_n(o, (const char *)c->d + n->f->offset, (size_t)n->f->size);
		return;
	case P_FLAGS: {
		uint64_t val = (uint64_t)eval_num(c, n->a);
		int printed = 0;

		for (size_t i = 0; i < n->nr_syms; i++) {
			uint64_t fv = n->syms[i].val;

			if (!val && !fv) {
				pp_out__write(o, n->syms[i].str, n->syms[i].len);
				break;
			}
			if (fv && (val & fv) == fv) {
				if (printed && n->delim)
					pp_out__write(o, n->delim, n->dlen);
				pp_out__write(o, n->syms[i].str, n->syms[i].len);
				printed = 1;
				val &= ~fv;
			}
		}
		if (val) {
			if (printed && n->delim)
				pp_out__write(o, n->delim, n->dlen);
			put_hex0x(o, val);
		}
		return;
	}
	case P_SYMBOL: {
		uint64_t val = (uint64_t)eval_num(c, n->a);

		for (size_t i = 0; i < n->nr_syms; i++) {
			if (val == n->syms[i].val) {
				pp_out__write(o, n->syms[i].str, n->syms[i].len);
				return;
			}
		}
		put_hex0x(o, val);
		return;
	}
	case P_SCOND:
		eval_str(c, o, eval_num(c, n->a) ? n->b : n->c);
		return;
	default:
		c->bad = 1;
		return;
	}
}

static struct pnode *pnode_new(struct pp_print_plan *plan, uint8_t kind)
{
	struct pnode *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->kind = kind;
	n->next_alloc = plan->nodes;
	plan->nodes = n;
	return n;
}

static struct pnode *build_num(struct pp_print_plan *plan, struct tep_print_arg *a);

static struct pfsym *build_syms(struct tep_print_flag_sym *f, size_t *nr)
{
	struct pfsym *v;
	size_t n = 0;

	for (struct tep_print_flag_sym *x = f; x; x = x->next)
		n++;
	v = calloc(n ? n : 1, sizeof(*v));
	if (!v)
		return NULL;
	for (n = 0; f; f = f->next, n++) {
		v[n].val = strtoull(f->value, NULL, 0);
		v[n].str = f->str;
		v[n].len = strlen(f->str);
	}
	*nr = n;
	return v;
}

static struct pnode *build_num1(struct pp_print_plan *plan, struct tep_print_arg *a);
static struct pnode *build_num_node(struct pp_print_plan *plan, struct tep_print_arg *a);

/*
 * Numeric tree of an argument check_num() accepted, with constant operators
 * folded: formats spell masks as ((0x1 | 0x2 | ...) + 1) << 1) - 1, and
 * walking that for each record was most of the cost of sched_switch.
 */
static struct pnode *build_num(struct pp_print_plan *plan, struct tep_print_arg *a)
{
	struct pnode *n = build_num1(plan, a);
	struct ctx c = { .d = NULL, .size = 0 };
	int64_t v;

	if (!n || n->kind == P_CONST || n->kind == P_FIELD)
		return n;
	if ((n->a && n->a->kind != P_CONST) || (n->b && n->b->kind != P_CONST) ||
	    (n->c && n->c->kind != P_CONST))
		return n;
	v = eval_num(&c, n);
	if (c.bad)
		return n;	/* e.g. division by zero: keep, fail per record as before */
	n->kind = P_CONST;	/* children stay on plan->nodes for freeing */
	n->val = v;
	return n;
}

/*
 * Whether C types node @n's value signed: integer promotion makes anything
 * narrower than int an int; a literal is an int unless it has a u suffix or
 * is a hex one past INT_MAX; arithmetic is signed when both operands are
 * (the usual conversions), a comparison or ! is an int, a shift has its
 * left operand's type.
 */
static int c_signed(const struct pnode *n, const char *atom)
{
	switch (n->kind) {
	case P_CONST:
		return !strpbrk(atom, "uU") &&
		       !((atom[1] == 'x' || atom[1] == 'X') && (uint64_t)n->val > INT32_MAX);
	case P_FIELD:
		return n->f->size < 4 || (n->f->flags & TEP_FIELD_IS_SIGNED);
	case P_CAST:
		return n->sz < 4 || n->sg;
	case P_COND:
		return n->b->ts && n->c->ts;
	case P_NOT:
		return 1;
	case P_BNOT:
		return n->a->ts;
	case P_BIN:
		if (n->op == '=' || n->op == '!' || (n->op == '&' && n->op2 == '&') ||
		    (n->op == '|' && n->op2 == '|') ||
		    ((n->op == '<' || n->op == '>') && n->op2 != n->op))
			return 1;
		if ((n->op == '<' || n->op == '>') && n->op2 == n->op)
			return n->a->ts;
		return n->a->ts && n->b->ts;
	default:
		return 0;
	}
}

/* The node of @a (build_num_node()) with its C type's signedness, and its operator's. */
static struct pnode *build_num1(struct pp_print_plan *plan, struct tep_print_arg *a)
{
	struct pnode *n = build_num_node(plan, a);

	if (!n)
		return NULL;
	n->ts = (uint8_t)c_signed(n, a->type == TEP_PRINT_ATOM ? a->atom.atom : "");
	if (n->kind == P_BIN)	/* operands converted to one type: signed if both are */
		n->sg = (uint8_t)(n->op == '>' && n->op2 == '>' ? n->a->ts : n->a->ts && n->b->ts);
	return n;
}

static struct pnode *build_num_node(struct pp_print_plan *plan, struct tep_print_arg *a)
{
	struct pnode *n;
	int sg;

	switch (a->type) {
	case TEP_PRINT_ATOM:
		n = pnode_new(plan, P_CONST);
		if (n)
			n->val = (int64_t)strtoull(a->atom.atom, NULL, 0);
		return n;
	case TEP_PRINT_FIELD:
		n = pnode_new(plan, P_FIELD);
		if (n)
			n->f = a->field.field;
		return n;
	case TEP_PRINT_TYPE:
		n = pnode_new(plan, P_CAST);
		if (!n)
			return NULL;
		n->sz = (uint8_t)cast_of(a->typecast.type, &sg);
		n->sg = (uint8_t)sg;
		n->a = build_num(plan, a->typecast.item);
		return n->a ? n : NULL;
	case TEP_PRINT_OP: {
		const char *op = a->op.op;

		if (op[0] == '?') {
			n = pnode_new(plan, P_COND);
			if (!n)
				return NULL;
			n->a = build_num(plan, a->op.left);
			n->b = build_num(plan, a->op.right->op.left);
			n->c = build_num(plan, a->op.right->op.right);
			return n->a && n->b && n->c ? n : NULL;
		}
		if ((op[0] == '!' && !op[1]) || op[0] == '~') {
			n = pnode_new(plan, op[0] == '!' ? P_NOT : P_BNOT);
			if (!n)
				return NULL;
			n->a = build_num(plan, a->op.right);
			return n->a ? n : NULL;
		}
		n = pnode_new(plan, P_BIN);
		if (!n)
			return NULL;
		n->op = op[0];
		n->op2 = op[1];
		n->a = build_num(plan, a->op.left);
		n->b = build_num(plan, a->op.right);
		return n->a && n->b ? n : NULL;
	}
	default:
		return NULL;
	}
}

/* String tree of an argument check_str() accepted. */
static struct pnode *build_str(struct pp_print_plan *plan, struct tep_print_arg *a)
{
	struct pnode *n;

	switch (a->type) {
	case TEP_PRINT_ATOM:
		n = pnode_new(plan, P_SATOM);
		if (n) {
			n->str = a->atom.atom;
			n->len = strlen(n->str);
		}
		return n;
	case TEP_PRINT_STRING:
		n = pnode_new(plan, P_SDYN);
		if (n)
			n->f = a->string.field;
		return n;
	case TEP_PRINT_FIELD:
		n = pnode_new(plan, (a->field.field->flags & TEP_FIELD_IS_DYNAMIC) ? P_SDYN : P_SFIELD);
		if (n)
			n->f = a->field.field;
		return n;
	case TEP_PRINT_FLAGS:
	case TEP_PRINT_SYMBOL: {
		int fl = a->type == TEP_PRINT_FLAGS;

		n = pnode_new(plan, fl ? P_FLAGS : P_SYMBOL);
		if (!n)
			return NULL;
		n->a = build_num(plan, fl ? a->flags.field : a->symbol.field);
		n->delim = fl ? a->flags.delim : NULL;
		n->dlen = n->delim ? strlen(n->delim) : 0;
		n->syms = build_syms(fl ? a->flags.flags : a->symbol.symbols, &n->nr_syms);
		return n->a && n->syms ? n : NULL;
	}
	case TEP_PRINT_OP:
		n = pnode_new(plan, P_SCOND);
		if (!n)
			return NULL;
		n->a = build_num(plan, a->op.left);
		n->b = build_str(plan, a->op.right->op.left);
		n->c = build_str(plan, a->op.right->op.right);
		return n->a && n->b && n->c ? n : NULL;
	default:
		return NULL;
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
		st->n = st->kind == STEP_STR ? build_str(plan, arg) : build_num(plan, arg);
		if (!st->n)
			goto fail;
		nr++;
		p += n;
		arg = arg->next;
	}
	if (arg)	/* more args than conversions: not a shape we know */
		goto fail;
	lits[litlen] = '\0';
	plan->nr = nr;
	/*
	 * The memo compares a record from the first byte a field the plan
	 * reads starts at: the common header (flags, preempt count) varies
	 * between records that print the same. A dynamic string may point
	 * anywhere: then every byte counts.
	 */
	plan->memo_from = UINT32_MAX;
	for (const struct pnode *pn = plan->nodes; pn; pn = pn->next_alloc) {
		if (pn->kind == P_SDYN)
			plan->memo_from = 0;
		else if (pn->f && (uint32_t)pn->f->offset < plan->memo_from)
			plan->memo_from = (uint32_t)pn->f->offset;
	}
	if (plan->memo_from == UINT32_MAX)
		plan->memo_from = 0;
	(void)tep;
	return plan;
fail:
	pp_print_plan__free(plan);
	return NULL;
}

static void put_u64(struct pp_out *o, uint64_t v, int hex, int upper)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	size_t n = 1;
	char *d;

	if (!hex) {
		pp_out__u64(o, v);
		return;
	}
	for (uint64_t t = v; t >= 16; t >>= 4)
		n++;
	d = pp_out__reserve(o, n);
	if (!d)
		return;
	o->len += n;
	do {
		d[--n] = digits[v & 15];
		v >>= 4;
	} while (v);
}

static void put_padded_num(struct pp_out *o, const struct step *st, uint64_t v, int is_signed)
{
	static const char lo[] = "0123456789abcdef", up[] = "0123456789ABCDEF";
	const char *digits = st->conv == 'X' ? up : lo;
	unsigned int base = st->conv == 'x' || st->conv == 'X' ? 16 : 10;
	char tmp[72], *p = tmp + sizeof(tmp);
	size_t n, w = st->width;
	int neg = is_signed && (int64_t)v < 0;

	if (neg)
		v = (uint64_t)0 - v;
	do {
		*--p = digits[v % base];
		v /= base;
	} while (v);
	if (st->left) {
		if (neg)
			*--p = '-';
		n = (size_t)(tmp + sizeof(tmp) - p);
		pp_out__write(o, p, n);
		for (; n < w; n++)
			pp_out__putc(o, ' ');
		return;
	}
	n = (size_t)(tmp + sizeof(tmp) - p) + (size_t)neg;
	if (st->pad == '0') {
		for (; n < w; n++)
			*--p = '0';
		if (neg)
			*--p = '-';
	} else {
		if (neg)
			*--p = '-';
		for (; n < w; n++)
			*--p = ' ';
	}
	pp_out__write(o, p, (size_t)(tmp + sizeof(tmp) - p));
}

/* Print one record's fields with @plan: 0, or -EINVAL when a field lies outside it. */
static int plan_run(const struct pp_print_plan *plan, const void *raw, uint32_t size,
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
			eval_str(&c, o, st->n);
			continue;
		}
		/* most arguments are a plain field: read it without the tree walk */
		uint64_t v = st->n->kind == P_FIELD ? read_field(&c, st->n->f) :
			     (uint64_t)eval_num(&c, st->n);
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
		if (st->width) {
			put_padded_num(o, st, v, is_signed);
			continue;
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

/*
 * The memo slot of record @raw of @size bytes: a multiplicative hash of its
 * words, in two lanes that do not wait on each other's multiplies (one
 * chain of eight was 4% of a `trace` replay).
 */
static size_t memo_hash(const uint8_t *raw, uint32_t size)
{
	uint64_t h = size, h2 = 0, w, w2;
	uint32_t i;

	for (i = 0; i + 16 <= size; i += 16) {
		memcpy(&w, raw + i, 8);
		memcpy(&w2, raw + i + 8, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ull;
		h2 = (h2 ^ w2) * 0xc2b2ae3d27d4eb4full;
	}
	h ^= h2 * 0x165667b19e3779f9ull;
	if (i + 8 <= size) {
		memcpy(&w, raw + i, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ull;
		i += 8;
	}
	if (i < size) {
		/* the last 1-7 bytes, in loads of fixed size (no library call) */
		const uint8_t *t = raw + i;
		uint32_t x4;
		uint16_t x2;

		w = 0;
		if (size & 4) {
			memcpy(&x4, t, 4);
			w = x4;
			t += 4;
		}
		if (size & 2) {
			memcpy(&x2, t, 2);
			w = (w << 16) | x2;
			t += 2;
		}
		if (size & 1)
			w = (w << 8) | *t;
		h = (h ^ w) * 0x9e3779b97f4a7c15ull;
	}
	return (size_t)(h >> 40) % MEMO_SLOTS;
}

/* Whether @plan's memo may hold a record of @size bytes. */
static int memo_fits(const struct pp_print_plan *plan, uint32_t size)
{
	return size <= MEMO_RAW + plan->memo_from && size > plan->memo_from && !plan->memo_off;
}

/**
 * pp_print_plan__prefetch() - start loading the memo slot of a record that
 * pp_print_plan__run() will print next: the slot is a cache miss on most
 * records (the table is larger than the caches' share it gets), and what the
 * caller prints before the fields (time, task) hides it.
 * @plan: plan; @raw, @size: the tracepoint record.
 */
void pp_print_plan__prefetch(struct pp_print_plan *plan, const void *raw, uint32_t size)
{
	const char *m;

	if (!plan->memo || !memo_fits(plan, size))
		return;
	plan->pf_raw = raw;
	plan->pf_slot = memo_hash((const uint8_t *)raw + plan->memo_from, size - plan->memo_from);
	m = (const char *)&plan->memo[plan->pf_slot];
	for (size_t i = 0; i < sizeof(struct memo_slot); i += 64)
		__builtin_prefetch(m + i);
}

/**
 * pp_print_plan__run() - print one record's fields with @plan, from its memo
 * when the same bytes were printed lately.
 * @plan: plan; @raw, @size: the tracepoint record; @o: output.
 * Return: 0, or -EINVAL when a field lies outside the record (nothing printed).
 */
int pp_print_plan__run(struct pp_print_plan *plan, const void *raw, uint32_t size,
		       struct pp_out *o)
{
	struct memo_slot *m;
	const uint8_t *key;
	uint32_t klen;
	size_t start;
	int ret;

	if (!memo_fits(plan, size))
		return plan_run(plan, raw, size, o);
	if (!plan->memo) {
		plan->memo = calloc(MEMO_SLOTS, sizeof(*plan->memo));
		if (!plan->memo) {
			plan->memo_off = 1;
			return plan_run(plan, raw, size, o);
		}
		pp_prefault(plan->memo, MEMO_SLOTS * sizeof(*plan->memo));
	}
	key = (const uint8_t *)raw + plan->memo_from;
	klen = size - plan->memo_from;
	m = &plan->memo[plan->pf_raw == raw ? plan->pf_slot : memo_hash(key, klen)];
	plan->pf_raw = NULL;
	if (m->raw_len == klen && !memcmp(m->raw, key, klen)) {
		/* most lines: longer than pp_out__write() copies inline */
		char *d = pp_out__reserve(o, m->out_len);

		if (d) {
			memcpy(d, m->out, m->out_len);
			o->len += m->out_len;
		}
		return 0;
	}
	/* room for a slot's text first: no flush can split a text that fits one */
	if (!pp_out__reserve(o, MEMO_OUT) || o->error)
		return plan_run(plan, raw, size, o);
	start = o->len;
	ret = plan_run(plan, raw, size, o);
	if (!ret && o->len >= start && o->len - start <= MEMO_OUT && !o->error) {
		m->raw_len = (uint16_t)klen;
		m->out_len = (uint16_t)(o->len - start);
		memcpy(m->raw, key, klen);
		memcpy(m->out, o->buf + start, m->out_len);
	}
	return ret;
}

/**
 * pp_print_plan__free() - free a plan; accepts NULL.
 * @plan: plan.
 */
void pp_print_plan__free(struct pp_print_plan *plan)
{
	if (!plan)
		return;
	while (plan->nodes) {
		struct pnode *n = plan->nodes;

		plan->nodes = n->next_alloc;
		free(n->syms);
		free(n);
	}
	free(plan->lits);
	free(plan->memo);
	free(plan);
}
