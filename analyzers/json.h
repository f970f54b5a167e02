/* SPDX-License-Identifier: MIT */
/*
 * --json output of the profilers: JSON Lines, one object per line and
 * nothing else on stdout. Every object starts with the same three members,
 * {"type":"row","time":"15:51:34.129271","ts":1327069394997, ...}: its
 * shape (spec/pp-analyze.md lists each profiler's), the wall clock as the
 * text output prints it, and the perf-clock ns it stands for. A module
 * writes its other members with pp_json__str() and friends, which put the
 * comma first, and ends the object with pp_json__end().
 */
#ifndef PP_ANALYZERS_JSON_H
#define PP_ANALYZERS_JSON_H

#include <stdint.h>
#include "pp/replay.h"

/**
 * pp_json__begin() - open an object: {"type":@type,"time":...,"ts":@ts
 * @s: session (its output and clock); @type: the object's shape;
 * @ts: perf-clock ns (an event's time, an interval's end).
 */
void pp_json__begin(struct pp_session *s, const char *type, uint64_t ts);

/** pp_json__end() - close the object and its line. */
void pp_json__end(struct pp_session *s);

/** pp_json__str() - member ,"@key":"@v" (escaped; NULL gives null). */
void pp_json__str(struct pp_session *s, const char *key, const char *v);

/** pp_json__u64() - member ,"@key":@v. */
void pp_json__u64(struct pp_session *s, const char *key, uint64_t v);

/** pp_json__i64() - member ,"@key":@v, signed. */
void pp_json__i64(struct pp_session *s, const char *key, int64_t v);

/**
 * pp_json__hex() - member ,"@key":"0x..." for an address: addresses go
 * past 2^53, where many JSON readers lose digits of a number.
 */
void pp_json__hex(struct pp_session *s, const char *key, uint64_t v);

/** pp_json__task() - members ,"comm","pid","tid","cpu" of event @e. */
void pp_json__task(struct pp_session *s, const struct pp_event *e);

/**
 * pp_json__frame() - one stack frame as an array element:
 * {"ip":"0x...","sym":"...","dso":"..."}, preceded by a comma unless @first.
 * @pid: the process (ignored for a kernel frame); @kernel: a kernel address.
 */
void pp_json__frame(struct pp_session *s, uint32_t pid, uint64_t ip, int kernel, int first);

/**
 * pp_json__stack() - member ,"stack":[FRAME,...] of @e's callchain, callee
 * first as the text output prints it (max-stack= honoured); nothing when
 * @e has no callchain.
 */
void pp_json__stack(struct pp_session *s, const struct pp_event *e);

/**
 * pp_json__event() - members ,"event":NAME and what the event carries: the
 * decoded tracepoint fields as ,"fields":{...}, a BPF output record's
 * decoded text as ,"text", a sample's ,"period" and ,"ip", a data
 * address's ,"addr".
 */
void pp_json__event(struct pp_session *s, const struct pp_event *e);

#endif /* PP_ANALYZERS_JSON_H */
