// SPDX-License-Identifier: MIT
/*
 * Validate a tracepoint format before trusting libtraceevent with it (see
 * fmt-check.h). The text check runs once per FORMATS item, the field check
 * and the guard once per event; only pp_fmt_guard__record() runs per record.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include "pp/replay.h"
#include "fmt-check.h"

/* Tokens as libtraceevent's reader splits them, close enough to bound it. */
enum tok {
	T_END, T_WORD, T_STR, T_OP, T_OPEN, T_CLOSE, T_COMMA, T_SEMI,
};

struct lex {
	const char *p, *end;
	const char *tok;	/* where the last token starts */
	int arrow;		/* the last T_OP was "->" or "." (a member, not an operator) */
};

static int is_word(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

static enum tok next_tok(struct lex *l)
{
	static const char two[][3] = { "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "->" };
	const char *p = l->p;
	char c;

	while (p < l->end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	if (p >= l->end) {
		l->p = p;
		return T_END;
	}
	c = *p;
	l->tok = p;
	l->arrow = 0;
	if (is_word(c)) {
		while (p < l->end && is_word(*p))
			p++;
		l->p = p;
		return T_WORD;
	}
	if (c == '"' || c == '\'') {
		for (p++; p < l->end && *p != c; p++) {
			if (*p == '\\' && p + 1 < l->end)
				p++;
		}
		l->p = p < l->end ? p + 1 : p;
		return T_STR;
	}
	l->p = p + 1;
	switch (c) {
	case '(': case '[': case '{':
		return T_OPEN;
	case ')': case ']': case '}':
		return T_CLOSE;
	case ',':
		return T_COMMA;
	case ';':
		return T_SEMI;
	case '.':
		l->arrow = 1;
		return T_OP;
	}
	if (p + 1 < l->end) {
		for (size_t i = 0; i < sizeof(two) / sizeof(two[0]); i++) {
			if (p[0] == two[i][0] && p[1] == two[i][1]) {
				l->p = p + 2;
				l->arrow = i == 8;
				break;
			}
		}
	}
	return T_OP;
}

/* Does the line at @p (its leading blanks skipped) start with @key? */
static const char *after_key(const char *p, const char *end, const char *key)
{
	size_t n = strlen(key);

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if ((size_t)(end - p) >= n && !memcmp(p, key, n))
		return p + n;
	return NULL;
}

/* The names the field: lines declare, as spans of the text. */
struct names {
	const char *p[PP_FMT_MAX_FIELDS];
	uint8_t n[PP_FMT_MAX_FIELDS];
	size_t nr;
};

static int declared(const struct names *nm, const char *w, size_t n)
{
	for (size_t i = 0; i < nm->nr; i++)
		if (nm->n[i] == n && !memcmp(nm->p[i], w, n))
			return 1;
	return 0;
}

/*
 * Is the operator @op (@n bytes) one libtraceevent gives a precedence
 * (get_op_prio() > 0), or the ':' of a ?: ? Only those may follow the false
 * branch of a ?: or an index [...]: there it calls process_op() with no
 * right operand for any other, and crashes (the replay fuzzer's find).
 */
static int op_placeable(const char *op, size_t n)
{
	static const char *const ops[] = {
		"~", "!", "*", "/", "%", "+", "-", "<", ">", "&", "^", "|", "?", ":",
		"<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
	};

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (strlen(ops[i]) == n && !memcmp(ops[i], op, n))
			return 1;
	return 0;
}

/* The tokens of the print format's arguments: their count and depth. */
static int check_print(const char *p, const char *end, const struct names *nm, char *why,
		       size_t wlen)
{
	struct lex l = { .p = p, .end = end };
	int field_next = 0;	/* the token after REC-> names a field */
	unsigned int ops[PP_FMT_MAX_DEPTH + 2];
	uint8_t cond[PP_FMT_MAX_DEPTH + 2];	/* a ?:'s false branch is open at this level */
	int after_index = 0;	/* the last token closed an index [...] */
	char prev_open = 0;	/* the last token, when it opened a bracket */
	size_t lvl = 0, tokens = 0, depth = 0;	/* depth: levels + operators open */
	const char *wstart = NULL, *wend = NULL;	/* the last token, when a word */
	enum tok t, prev = T_END;

	ops[0] = 0;
	cond[0] = 0;
	while ((t = next_tok(&l)) != T_END) {
		size_t n = (size_t)(l.p - l.tok);

		if (++tokens > PP_FMT_MAX_PRINT_TOKENS) {
			snprintf(why, wlen, "its print format has over %d tokens",
				 PP_FMT_MAX_PRINT_TOKENS);
			return -E2BIG;
		}
		/*
		 * After a ?:'s false branch or an index, only an operator with a
		 * precedence, a ',' or a ')' (a member "->" of REC inside the branch).
		 */
		if ((cond[lvl] || after_index) &&
		    ((t == T_OP && !op_placeable(l.tok, n) && !(l.arrow && l.p[-1] == '>')) ||
		     (t == T_OPEN && *l.tok != '(') || (t == T_CLOSE && *l.tok != ')') ||
		     t == T_SEMI)) {
			snprintf(why, wlen, "its print format has '%.*s' after a ?: or an index",
				 (int)n, l.tok);
			return -EINVAL;
		}
		after_index = 0;
		/*
		 * A statement expression "({ ... })" (kvmmmu's formats): libtraceevent
		 * refuses the arguments at its '{' and parses nothing after it.
		 */
		if (t == T_OPEN && *l.tok == '{' && prev_open == '(')
			return 0;
		prev_open = t == T_OPEN ? *l.tok : 0;
		switch (t) {
		case T_OPEN:
			ops[++lvl] = 0;
			cond[lvl] = 0;
			depth++;
			break;
		case T_CLOSE:
			if (lvl) {
				depth -= ops[lvl] + 1;
				lvl--;
			}
			after_index = *l.tok == ']';
			break;
		case T_COMMA:
			depth -= ops[lvl];
			ops[lvl] = 0;
			cond[lvl] = 0;
			break;
		case T_OP:
			/*
			 * Only the record is dereferenced in a kernel print format
			 * (REC->field or (REC)->field, in all 2,323 formats here); any
			 * other NAME-> reaches libtraceevent paths that crash on it.
			 */
			if (l.arrow && l.p[-1] == '>' && prev != T_CLOSE &&
			    (!wend || wend - wstart != 3 || memcmp(wstart, "REC", 3))) {
				snprintf(why, wlen, "its print format dereferences something but REC");
				return -EINVAL;
			}
			field_next = l.arrow && l.p[-1] == '>';
			if (l.arrow)
				break;
			if (n == 1 && *l.tok == ':')
				cond[lvl] = 1;
			ops[lvl]++;
			depth++;
			break;
		default:
			break;
		}
		prev = t;
		wstart = wend = NULL;
		if (t == T_WORD) {
			for (wend = wstart = l.p; wstart > p && is_word(wstart[-1]); wstart--)
				;
			/*
			 * A field the format does not declare: libtraceevent
			 * takes it in __print_flags() and __print_symbolic()
			 * without looking, and crashes (the replay fuzzer's find).
			 */
			if (field_next && !declared(nm, wstart, (size_t)(wend - wstart))) {
				snprintf(why, wlen, "its print format reads REC->%.*s, not a field of it",
					 (int)(wend - wstart > 64 ? 64 : wend - wstart), wstart);
				return -EINVAL;
			}
		}
		if (t != T_OP)
			field_next = 0;
		if (depth > PP_FMT_MAX_DEPTH) {
			snprintf(why, wlen, "its print format nests over %d operators and brackets",
				 PP_FMT_MAX_DEPTH);
			return -E2BIG;
		}
	}
	return 0;
}

/**
 * pp_fmt_check_text() - may libtraceevent parse this event format?
 * @text, @len: the format text; @why, @wlen: the reason when refused.
 * Return: 0 or -E2BIG.
 */
int pp_fmt_check_text(const char *text, size_t len, char *why, size_t wlen)
{
	static __thread struct names nm;
	const char *p = text, *end = text + len;
	size_t fields = 0;

	nm.nr = 0;
	if (len > PP_FMT_MAX_TEXT) {
		snprintf(why, wlen, "its format has %zu bytes (at most %d)", len, PP_FMT_MAX_TEXT);
		return -E2BIG;
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *q;
		const char *eol = nl ? nl : end;

		if ((q = after_key(p, eol, "field:"))) {
			/* the declaration runs to ';', over newlines if it must */
			struct lex l = { .p = q, .end = end };
			const char *name = NULL;
			size_t n = 0, name_len = 0, brackets = 0;
			enum tok t;

			if (++fields > PP_FMT_MAX_FIELDS) {
				snprintf(why, wlen, "its format has over %d fields", PP_FMT_MAX_FIELDS);
				return -E2BIG;
			}
			while ((t = next_tok(&l)) != T_END && t != T_SEMI) {
				if (++n > PP_FMT_MAX_DECL_TOKENS) {
					snprintf(why, wlen,
						 "field %zu is declared with over %d tokens", fields,
						 PP_FMT_MAX_DECL_TOKENS);
					return -E2BIG;
				}
				/* the name: the last word outside brackets ("char comm[16]") */
				if (t == T_OPEN)
					brackets++;
				else if (t == T_CLOSE && brackets)
					brackets--;
				else if (t == T_WORD && !brackets)
					for (name = l.p, name_len = 0; name > q && is_word(name[-1]);
					     name--)
						name_len++;
			}
			if (name && name_len <= 255) {
				nm.p[nm.nr] = name;
				nm.n[nm.nr++] = (uint8_t)name_len;
			}
		} else if ((q = after_key(p, eol, "print fmt:"))) {
			return check_print(q, end, &nm, why, wlen);
		}
		p = eol + 1;
	}
	return 0;
}

static int field_fits(const struct tep_format_field *f, char *why, size_t wlen)
{
	if (f->offset < 0 || f->size < 0 || (int64_t)f->offset + f->size > PP_FMT_MAX_RECORD) {
		snprintf(why, wlen, "field %s (offset %d, size %d) lies outside any record",
			 f->name, f->offset, f->size);
		return -EINVAL;
	}
	if ((f->flags & TEP_FIELD_IS_DYNAMIC) && f->size != 4) {
		snprintf(why, wlen, "field %s: a __data_loc of %d bytes, not 4", f->name, f->size);
		return -EINVAL;
	}
	return 0;
}

/*
 * One printk_formats line as libtraceevent can take it: 0xADDR : "TEXT"
 * with two characters of TEXT at least (tep_register_print_string() looks
 * for a "\n" two bytes before the closing quote, before its copy when TEXT
 * is shorter: found by fuzz-replay under ASan).
 */
static int printk_line_ok(const char *l, size_t n)
{
	size_t k = 2;

	if (n < 2 || l[0] != '0' || (l[1] != 'x' && l[1] != 'X'))
		return 0;
	while (k < n && k < 18 && isxdigit((unsigned char)l[k]))
		k++;
	if (k == 2 || n - k < 5 || memcmp(l + k, " : \"", 4))
		return 0;
	return l[n - 1] == '"' && n - 1 >= k + 6;
}

/**
 * pp_fmt_printk_clean() - the parsable lines of a printk_formats text.
 * @text: the text; @dropped: receives the lines dropped.
 * Return: the new text, or NULL without memory.
 */
char *pp_fmt_printk_clean(const char *text, size_t *dropped)
{
	size_t len = strlen(text), o = 0;
	char *out = malloc(len + 2);	/* a last line without its newline gets one */

	*dropped = 0;
	if (!out)
		return NULL;
	for (const char *l = text; *l;) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l);

		if (printk_line_ok(l, n)) {
			memcpy(out + o, l, n);
			o += n;
			out[o++] = '\n';
		} else if (n) {
			(*dropped)++;
		}
		l += n + (nl != NULL);
	}
	out[o] = '\0';
	return out;
}

/**
 * pp_fmt_check_fields() - does every field of a parsed event fit a record?
 * @ev: parsed event; @why, @wlen: the reason.
 * Return: 0 or -EINVAL.
 */
int pp_fmt_check_fields(const struct tep_event *ev, char *why, size_t wlen)
{
	for (const struct tep_format_field *f = ev->format.common_fields; f; f = f->next) {
		if (field_fits(f, why, wlen))
			return -EINVAL;
	}
	for (const struct tep_format_field *f = ev->format.fields; f; f = f->next) {
		if (field_fits(f, why, wlen))
			return -EINVAL;
	}
	return 0;
}

struct gdyn {
	uint32_t off;		/* of the __data_loc word */
	uint8_t rel;		/* __rel_loc: relative to the end of the word */
	uint8_t str;		/* printed with __get_str(): must hold a NUL */
	const struct tep_format_field *f;
};

struct pp_fmt_guard {
	uint32_t fixed_end;	/* every field (and __data_loc word) ends here or before */
	int tep_ok;
	size_t nr_dyn;
	struct gdyn dyn[];
};

/*
 * The conversions of a print format: only those libtraceevent handles by
 * printf of a bounded value, widths and precisions given as small numbers
 * (a "%.*s" precision from an argument only bounds a NUL-ended string).
 */
static int conversions_ok(const char *fmt)
{
	for (const char *p = fmt; p && *p; p++) {
		unsigned long w;
		int star_prec = 0;

		if (*p != '%')
			continue;
		p++;
		if (*p == '%')
			continue;
		while (*p && strchr("-+ #0", *p))
			p++;
		if (*p == '*')
			return 0;
		for (w = 0; *p >= '0' && *p <= '9'; p++) {
			w = w * 10 + (unsigned long)(*p - '0');
			if (w > PP_FMT_MAX_WIDTH)
				return 0;
		}
		if (*p == '.') {
			p++;
			if (*p == '*') {
				star_prec = 1;
				p++;
			}
			for (w = 0; *p >= '0' && *p <= '9'; p++) {
				w = w * 10 + (unsigned long)(*p - '0');
				if (w > PP_FMT_MAX_WIDTH)
					return 0;
			}
		}
		while (*p && strchr("hlLqzjt", *p))
			p++;
		if (!*p || !strchr("diuxXocsp", *p))
			return 0;
		if (star_prec && *p != 's')
			return 0;
	}
	return 1;
}

/* The field an argument names; libtraceevent's own cache left as it is. */
static struct tep_format_field *arg_field(struct tep_event *ev, struct tep_format_field **slot,
					  const char *name)
{
	if (*slot)
		return *slot;
	return name ? tep_find_any_field(ev, name) : NULL;
}

static struct gdyn *dyn_of(struct pp_fmt_guard *g, const struct tep_format_field *f)
{
	for (size_t i = 0; f && i < g->nr_dyn; i++) {
		if (g->dyn[i].f == f)
			return &g->dyn[i];
	}
	return NULL;
}

static int is_atom(const struct tep_print_arg *a, uint64_t min, uint64_t max, uint64_t *v)
{
	uint64_t x;

	if (!a || a->type != TEP_PRINT_ATOM || !a->atom.atom)
		return 0;
	x = strtoull(a->atom.atom, NULL, 0);
	if (v)
		*v = x;
	return x >= min && x <= max;
}

/* A __get_dynamic_array(X) / __get_dynamic_array_len(X) of a guarded field. */
static const struct tep_format_field *dynarray(struct pp_fmt_guard *g, struct tep_event *ev,
					       struct tep_print_arg *a, int want_len)
{
	struct tep_format_field *f;

	if (!a || a->type != (want_len ? TEP_PRINT_DYNAMIC_ARRAY_LEN : TEP_PRINT_DYNAMIC_ARRAY))
		return NULL;
	f = arg_field(ev, &a->dynarray.field, NULL);
	return dyn_of(g, f) ? f : NULL;
}

/*
 * May tep_print_event() evaluate @a on a record pp_fmt_guard__record()
 * accepted? Every read it makes is then inside the record, every loop it
 * runs is bounded by the record and no division traps.
 */
static int arg_ok(struct pp_fmt_guard *g, struct tep_event *ev, struct tep_print_arg *a, int depth)
{
	uint64_t c, e;

	if (!a || depth > 2 * PP_FMT_MAX_DEPTH)
		return 0;
	switch (a->type) {
	case TEP_PRINT_ATOM:
		return a->atom.atom != NULL;
	case TEP_PRINT_FIELD:
		return arg_field(ev, &a->field.field, a->field.name) != NULL;
	case TEP_PRINT_TYPE:
		return arg_ok(g, ev, a->typecast.item, depth + 1);
	case TEP_PRINT_OP:
		if (!a->op.op)
			return 0;
		if ((a->op.op[0] == '/' || a->op.op[0] == '%') &&
		    !is_atom(a->op.right, 1, UINT64_MAX, NULL))
			return 0;	/* a divisor from the record may be 0 */
		if (a->op.left && a->op.left->type == TEP_PRINT_NULL && strchr("!~+-", a->op.op[0]))
			return arg_ok(g, ev, a->op.right, depth + 1);
		return arg_ok(g, ev, a->op.left, depth + 1) && arg_ok(g, ev, a->op.right, depth + 1);
	case TEP_PRINT_FLAGS:
		return arg_ok(g, ev, a->flags.field, depth + 1);
	case TEP_PRINT_SYMBOL:
		return arg_ok(g, ev, a->symbol.field, depth + 1);
	case TEP_PRINT_STRING: {
		struct gdyn *d = dyn_of(g, arg_field(ev, &a->string.field, a->string.string));

		if (!d)
			return 0;
		d->str = 1;
		return 1;
	}
	case TEP_PRINT_BITMASK:
	case TEP_PRINT_CPUMASK:
		return dyn_of(g, arg_field(ev, &a->bitmask.field, a->bitmask.bitmask)) != NULL;
	case TEP_PRINT_DYNAMIC_ARRAY:
	case TEP_PRINT_DYNAMIC_ARRAY_LEN:
		return dyn_of(g, arg_field(ev, &a->dynarray.field, NULL)) != NULL;
	case TEP_PRINT_HEX:
	case TEP_PRINT_HEX_STR: {
		/* the length must be the area's own: __print_hex(buf, __get_dynamic_array_len(buf)) */
		const struct tep_format_field *f = dynarray(g, ev, a->hex.field, 0);
		struct tep_format_field *sf;

		if (f)
			return dynarray(g, ev, a->hex.size, 1) == f;
		if (!a->hex.field || a->hex.field->type != TEP_PRINT_FIELD)
			return 0;
		sf = arg_field(ev, &a->hex.field->field.field, a->hex.field->field.name);
		return sf && is_atom(a->hex.size, 0, (uint64_t)sf->size, NULL);
	}
	case TEP_PRINT_INT_ARRAY: {
		/* __print_array(__get_dynamic_array(x), __get_dynamic_array_len(x) / C, E), C >= E */
		const struct tep_format_field *f = dynarray(g, ev, a->int_array.field, 0);
		struct tep_print_arg *n = a->int_array.count;
		struct tep_format_field *sf;

		if (!is_atom(a->int_array.el_size, 1, 8, &e) || (e & (e - 1)))
			return 0;
		if (f)
			return n && n->type == TEP_PRINT_OP && n->op.op && !strcmp(n->op.op, "/") &&
			       dynarray(g, ev, n->op.left, 1) == f && is_atom(n->op.right, e, 1u << 16, NULL);
		if (!a->int_array.field || a->int_array.field->type != TEP_PRINT_FIELD)
			return 0;
		sf = arg_field(ev, &a->int_array.field->field.field, a->int_array.field->field.name);
		return sf && is_atom(n, 0, (uint64_t)sf->size / e, &c);
	}
	default:
		/* functions, binary strings, NULL: nothing pp can bound */
		return 0;
	}
}

/**
 * pp_fmt_guard__new() - the per-record bound of @ev's fields and whether its
 * print format may go to tep_print_event().
 * @ev: an event pp_fmt_check_fields() accepted.
 * Return: the guard, or NULL without memory.
 */
struct pp_fmt_guard *pp_fmt_guard__new(struct tep_event *ev)
{
	const struct tep_format_field *lists[2] = { ev->format.common_fields, ev->format.fields };
	struct pp_fmt_guard *g;
	size_t nr_dyn = 0;

	for (int i = 0; i < 2; i++) {
		for (const struct tep_format_field *f = lists[i]; f; f = f->next)
			nr_dyn += !!(f->flags & TEP_FIELD_IS_DYNAMIC);
	}
	g = calloc(1, sizeof(*g) + nr_dyn * sizeof(g->dyn[0]));
	if (!g)
		return NULL;
	for (int i = 0; i < 2; i++) {
		for (const struct tep_format_field *f = lists[i]; f; f = f->next) {
			uint32_t end = (uint32_t)f->offset + (uint32_t)f->size;

			if (end > g->fixed_end)
				g->fixed_end = end;
			if (f->flags & TEP_FIELD_IS_DYNAMIC) {
				struct gdyn *d = &g->dyn[g->nr_dyn++];

				d->off = (uint32_t)f->offset;
				d->rel = !!(f->flags & TEP_FIELD_IS_RELATIVE);
				d->f = f;
			}
		}
	}
	g->tep_ok = ev->print_fmt.format && !(ev->flags & (TEP_EVENT_FL_ISFTRACE |
			TEP_EVENT_FL_ISPRINT | TEP_EVENT_FL_ISBPRINT | TEP_EVENT_FL_FAILED)) &&
		    conversions_ok(ev->print_fmt.format);
	for (struct tep_print_arg *a = ev->print_fmt.args; g->tep_ok && a; a = a->next)
		g->tep_ok = arg_ok(g, ev, a, 0);
	return g;
}

/** pp_fmt_guard__tep_ok() - may tep_print_event() print a guarded record? */
int pp_fmt_guard__tep_ok(const struct pp_fmt_guard *g)
{
	return g && g->tep_ok;
}

/**
 * pp_fmt_guard__record() - does the record hold every field and area?
 * @g: guard; @raw, @size: the record.
 * Return: 1 or 0.
 */
int pp_fmt_guard__record(const struct pp_fmt_guard *g, const void *raw, uint32_t size)
{
	const uint8_t *d = raw;

	if (size < g->fixed_end)
		return 0;
	for (size_t i = 0; i < g->nr_dyn; i++) {
		const struct gdyn *x = &g->dyn[i];
		uint32_t loc, off, n;

		memcpy(&loc, d + x->off, 4);
		off = (loc & 0xffff) + (x->rel ? x->off + 4 : 0);
		n = loc >> 16;
		if ((uint64_t)off + n > size)
			return 0;
		if (x->str && n && !memchr(d + off, 0, n))
			return 0;
	}
	return 1;
}

/**
 * pp_fmt_load_int() - an integer field of @size bytes at @p (unaligned),
 * sign-extended when @is_signed.
 * Return: 0, or -EINVAL for a size other than 1, 2, 4, 8.
 */
int pp_fmt_load_int(const uint8_t *p, unsigned int size, int is_signed, uint64_t *v)
{
	switch (size) {
	case 1:
		*v = is_signed ? (uint64_t)(int64_t)(int8_t)p[0] : p[0];
		return 0;
	case 2: {
		uint16_t x;

		memcpy(&x, p, 2);
		*v = is_signed ? (uint64_t)(int64_t)(int16_t)x : x;
		return 0;
	}
	case 4: {
		uint32_t x;

		memcpy(&x, p, 4);
		*v = is_signed ? (uint64_t)(int64_t)(int32_t)x : x;
		return 0;
	}
	case 8:
		memcpy(v, p, 8);
		return 0;
	}
	return -EINVAL;
}

/* The bytes of @f in the record (a __data_loc's area), or -1 when outside. */
static int field_area(const struct tep_format_field *f, const uint8_t *d, uint32_t size,
		      uint32_t *off, uint32_t *n)
{
	if ((int64_t)f->offset + f->size > size || f->offset < 0 || f->size < 0)
		return -1;
	*off = (uint32_t)f->offset;
	*n = (uint32_t)f->size;
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		uint32_t loc;

		if (f->size != 4)
			return -1;
		memcpy(&loc, d + f->offset, 4);
		*off = (loc & 0xffff) + ((f->flags & TEP_FIELD_IS_RELATIVE) ? (uint32_t)f->offset + 4 : 0);
		*n = loc >> 16;
		if ((uint64_t)*off + *n > size)
			return -1;
	}
	return 0;
}

/**
 * pp_fmt_print_fields() - "name=value ..." of @ev's own fields, bounded.
 * @o: output; @ev: event; @raw, @size: the record.
 */
void pp_fmt_print_fields(struct pp_out *o, const struct tep_event *ev, const void *raw,
			 uint32_t size)
{
	const uint8_t *d = raw;
	int first = 1;

	for (const struct tep_format_field *f = ev->format.fields; f; f = f->next) {
		uint32_t off, n;
		uint64_t v = 0;

		if (!first)
			pp_out__putc(o, ' ');
		first = 0;
		pp_out__puts(o, f->name);
		pp_out__putc(o, '=');
		if (field_area(f, d, size, &off, &n)) {
			pp_out__putc(o, '?');
			continue;
		}
		if (f->flags & TEP_FIELD_IS_STRING) {
			pp_out__write(o, d + off, strnlen((const char *)d + off, n));
			continue;
		}
		if (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) {
			uint32_t esz = f->elementsize > 0 && f->elementsize <= 8 &&
				       !(f->elementsize & (f->elementsize - 1)) ? (uint32_t)f->elementsize : 1;

			pp_out__puts(o, "ARRAY[");
			for (uint32_t i = 0; i + esz <= n; i += esz) {
				if (i / esz == 64) {
					pp_out__puts(o, ", ...");
					break;
				}
				pp_fmt_load_int(d + off + i, (unsigned int)esz, 0, &v);
				pp_out__printf(o, "%s%0*" PRIx64, i ? ", " : "", (int)esz * 2, v);
			}
			pp_out__putc(o, ']');
			continue;
		}
		if (pp_fmt_load_int(d + off, (unsigned int)f->size, !!(f->flags & TEP_FIELD_IS_SIGNED), &v)) {
			pp_out__puts(o, "ARRAY[");
			for (uint32_t i = 0; i < n && i < 64; i++)
				pp_out__printf(o, "%s%02x", i ? ", " : "", d[off + i]);
			pp_out__puts(o, n > 64 ? ", ...]" : "]");
			continue;
		}
		if (f->flags & TEP_FIELD_IS_POINTER)
			pp_out__printf(o, "0x%" PRIx64, v);
		else if (f->flags & TEP_FIELD_IS_SIGNED)
			pp_out__i64(o, (int64_t)v);
		else
			pp_out__u64(o, v);
	}
}
