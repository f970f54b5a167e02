/* SPDX-License-Identifier: MIT */
/*
 * Decoding of BPF output records from the BTF stored in the trace
 * (FORMATS item PP_FMT_BTF, spec/pp-bpf.md section 6): never the analyzing
 * host's kernel BTF. A record prints as "name=value" pairs separated by
 * spaces: integers of any size (signed, unsigned, char, bool), enums by
 * name, char arrays as strings, other arrays as [a,b,...], nested structs
 * and unions as {a=1 b=2}, pointers as hex, bit fields. Every read is
 * checked against the record size; what does not fit prints as "?".
 */
#ifndef PP_ANALYZERS_BTF_PRINT_H
#define PP_ANALYZERS_BTF_PRINT_H

#include <stddef.h>
#include <stdint.h>

struct pp_item;
struct pp_btf_fmt;

/**
 * pp_btf_fmt__new() - a decoder for records of type @type_id.
 * @btf_data, @size: raw BTF (copied and validated by libbpf's btf__new()).
 * @type_id: the record type (a struct or union, possibly behind typedefs).
 * @err, @errlen: one-line message on failure.
 * Return: the decoder (free with pp_btf_fmt__free()), or NULL with errno.
 */
struct pp_btf_fmt *pp_btf_fmt__new(const void *btf_data, size_t size, uint32_t type_id,
				   char *err, size_t errlen);

/**
 * pp_btf_fmt__print() - format one record.
 * @f: decoder; @rec, @size: the record (PERF_SAMPLE_RAW data; may carry
 * padding after the struct); @buf, @len: output, always NUL-terminated when
 * @len > 0 (truncated to fit). No allocation.
 * Return: the length the full text needs (as snprintf), or -EINVAL when the
 * record is shorter than the struct (the fields that fit are printed).
 */
int pp_btf_fmt__print(const struct pp_btf_fmt *f, const void *rec, size_t size, char *buf,
		      size_t len);

/** pp_btf_fmt__record_size() - bytes of the record struct. */
size_t pp_btf_fmt__record_size(const struct pp_btf_fmt *f);

/** pp_btf_fmt__type_name() - "struct NAME" of the record type. */
const char *pp_btf_fmt__type_name(const struct pp_btf_fmt *f);

/** pp_btf_fmt__free() - free; accepts NULL. */
void pp_btf_fmt__free(struct pp_btf_fmt *f);

/* The decoders of a trace, by event name ("bpf-output:execsnoop"). */
struct pp_btf_fmts {
	struct pp_btf_fmts_entry {
		char name[128];
		struct pp_btf_fmt *f;
	} *v;
	size_t nr;
};

/**
 * pp_btf_fmts__add_item() - add the decoder of one FORMATS item of kind
 * PP_FMT_BTF (other kinds: ignored, return 0). An event already known keeps
 * its first decoder.
 * @set: zero-initialized set; @item: from pp_item_iter__next() over a
 * FORMATS payload; @err, @errlen: message when the item is malformed.
 * Return: 0, or -EINVAL/-ENOMEM (the item is skipped).
 */
int pp_btf_fmts__add_item(struct pp_btf_fmts *set, const struct pp_item *item, char *err,
			  size_t errlen);

/**
 * pp_btf_fmts__find() - the decoder for event @name ("bpf-output:NAME",
 * the ATTRS name of the perf event), or NULL.
 */
const struct pp_btf_fmt *pp_btf_fmts__find(const struct pp_btf_fmts *set, const char *name);

/** pp_btf_fmts__exit() - free the decoders. */
void pp_btf_fmts__exit(struct pp_btf_fmts *set);

#endif /* PP_ANALYZERS_BTF_PRINT_H */
