/* SPDX-License-Identifier: MIT */
/*
 * Tracepoint formats from a trace file are hostile input. libtraceevent's
 * parser recurses once per operator or parenthesis, appends type-name
 * tokens in quadratic time, and its printer reads wherever a field's offset,
 * a __data_loc word or a length expression points. This file stands between
 * the file and libtraceevent:
 *  - pp_fmt_check_text(): before tep_parse_event(), bounds the text (size,
 *    tokens per field declaration, fields, print-format tokens, expression
 *    depth), so parsing is linear-ish and its recursion shallow, and lets
 *    the print format dereference only REC, and only for declared fields;
 *  - pp_fmt_check_fields(): after parsing, every field must fit a record
 *    (offset + size within 64 KiB, __data_loc words of 4 bytes);
 *  - pp_fmt_guard: what a record must satisfy before tep_print_event() sees
 *    it (every field inside it, every __data_loc inside it, strings ended),
 *    and whether the print format holds only constructs whose work that
 *    check bounds; if not, pp prints the fields generically (name=value).
 */
#ifndef PP_REPLAY_FMT_CHECK_H
#define PP_REPLAY_FMT_CHECK_H

#include <stddef.h>
#include <stdint.h>

struct tep_event;
struct pp_out;

#define PP_FMT_MAX_TEXT		(64 * 1024)	/* bytes of one event format */
#define PP_FMT_MAX_FIELDS	1024		/* field: lines */
#define PP_FMT_MAX_DECL_TOKENS	64		/* tokens of one field declaration */
#define PP_FMT_MAX_PRINT_TOKENS	16384		/* tokens after "print fmt:" */
#define PP_FMT_MAX_DEPTH	128		/* nesting + operators of one expression */
#define PP_FMT_MAX_RECORD	65535		/* a tracepoint record fits a perf record */
#define PP_FMT_MAX_WIDTH	64		/* printf width or precision */

/**
 * pp_fmt_check_text() - may libtraceevent parse this event format?
 * @text, @len: the format text ("name: ...\nID: ...\nformat:\n...print fmt: ...").
 * @why, @wlen: receives the reason when refused.
 * Return: 0, -E2BIG when it exceeds one of the PP_FMT_MAX_* bounds, or
 * -EINVAL when its print format dereferences anything but REC or reads a
 * field it does not declare.
 */
int pp_fmt_check_text(const char *text, size_t len, char *why, size_t wlen);

/**
 * pp_fmt_printk_clean() - the lines of a printk_formats text that
 * libtraceevent can parse safely: `0xADDR : "TEXT"`, an address of 1 to 16
 * hex digits, TEXT closed by the line's last character. libtraceevent reads
 * past the end of a line cut after its colon; other lines are dropped.
 * @text: the file's text; @dropped: receives the number of lines dropped.
 * Return: a new NUL-terminated text (the caller frees it), or NULL without
 * memory.
 */
char *pp_fmt_printk_clean(const char *text, size_t *dropped);

/**
 * pp_fmt_check_fields() - does every field of a parsed event fit a record?
 * @ev: parsed event; @why, @wlen: receives the reason.
 * Return: 0 or -EINVAL.
 */
int pp_fmt_check_fields(const struct tep_event *ev, char *why, size_t wlen);

struct pp_fmt_guard;

/**
 * pp_fmt_guard__new() - the per-record bound of @ev's fields, and whether
 * its print format may go to tep_print_event().
 * @ev: an event pp_fmt_check_fields() accepted.
 * Return: the guard (free with free()), or NULL without memory.
 */
struct pp_fmt_guard *pp_fmt_guard__new(struct tep_event *ev);

/**
 * pp_fmt_guard__tep_ok() - may a record that passes pp_fmt_guard__record()
 * be printed by tep_print_event()? 0 when the print format holds something
 * whose work the record check does not bound (a division by a non-constant,
 * a length from an expression, a width over PP_FMT_MAX_WIDTH or from an
 * argument, a failed or binary print format).
 */
int pp_fmt_guard__tep_ok(const struct pp_fmt_guard *g);

/**
 * pp_fmt_guard__record() - does a record of @size bytes hold every field
 * of the event, every __data_loc area, and a NUL inside each __data_loc
 * string? Costs one compare plus one step per __data_loc field.
 * Return: 1 or 0.
 */
int pp_fmt_guard__record(const struct pp_fmt_guard *g, const void *raw, uint32_t size);

/**
 * pp_fmt_print_fields() - "name=value ..." of @ev's own fields (no common_*)
 * read from @raw with every read bounded: numbers in decimal (pointers in
 * hex), strings up to their NUL, other arrays as ARRAY[xx, ...] (the first
 * 64 elements), "?" for a field outside the record.
 * @o: output.
 */
void pp_fmt_print_fields(struct pp_out *o, const struct tep_event *ev, const void *raw,
			 uint32_t size);

/** pp_fmt_load_int() - an integer field at @p, sign-extended when @is_signed. Return: 0 or -EINVAL. */
int pp_fmt_load_int(const uint8_t *p, unsigned int size, int is_signed, uint64_t *v);

#endif /* PP_REPLAY_FMT_CHECK_H */
