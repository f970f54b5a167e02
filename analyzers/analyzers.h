/* SPDX-License-Identifier: MIT */
/* Private to analyzers/: the modules listed in registry.c. */
#ifndef PP_ANALYZERS_H
#define PP_ANALYZERS_H

#include "pp/analyzer.h"

extern const struct pp_analyzer pp_analyzer_trace;
extern const struct pp_analyzer pp_analyzer_stat;
extern const struct pp_analyzer pp_analyzer_top;
extern const struct pp_analyzer pp_analyzer_num_dist;
extern const struct pp_analyzer pp_analyzer_profile;
extern const struct pp_analyzer pp_analyzer_offcpu;
extern const struct pp_analyzer pp_analyzer_lock;
extern const struct pp_analyzer pp_analyzer_page_faults;
extern const struct pp_analyzer pp_analyzer_breakpoint;

#endif /* PP_ANALYZERS_H */
