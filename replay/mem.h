/* SPDX-License-Identifier: MIT */
/*
 * pp-analyze's memory bound (--max-memory SIZE, spec/pp-analyze.md): what
 * malloc holds is measured at checkpoints of the replay, and a hard backstop
 * (RLIMIT_DATA, not in sanitized builds) fails any allocation past it.
 */
#ifndef PP_REPLAY_MEM_H
#define PP_REPLAY_MEM_H

#include <stddef.h>
#include <stdint.h>

/* Records dispatched between two checks (a power of two). */
#define PP_MEM_CHECK_RECORDS	4096
/* The backstop lies this far above the bound (more when the bound is large). */
#define PP_MEM_HEADROOM		(256ull << 20)
#define PP_MEM_MIN		(16ull << 20)

uint64_t pp_mem__default(void);
int pp_mem__parse(const char *s, uint64_t *out);
void pp_mem__set_limit(uint64_t bytes, int explicit_bound);
uint64_t pp_mem__limit(void);
uint64_t pp_mem__used(void);
int pp_mem__over(void);
void pp_mem__report(void);
void pp_mem__format(uint64_t bytes, char *buf, size_t len);
int pp_mem__exceeded(void);

struct pp_session;
int pp_session__mem_check(struct pp_session *s);

#endif
