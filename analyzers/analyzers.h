/* SPDX-License-Identifier: MIT */
/* Private to analyzers/: what every module file includes (the module table is registry.c). */
#ifndef PP_ANALYZERS_H
#define PP_ANALYZERS_H

#include "pp/analyzer.h"

#endif /* PP_ANALYZERS_H */
