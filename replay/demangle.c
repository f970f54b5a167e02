// SPDX-License-Identifier: MIT
/*
 * Demangling of C++ (Itanium ABI) and Rust (legacy and v0) symbol names,
 * with libiberty's demangler: the one binutils and gdb use, so a name reads
 * the same in pp as in objdump, nm -C and gdb.
 *
 * Names are demangled with their parameters (DMGL_PARAMS | DMGL_ANSI), as
 * perf report prints them; a legacy Rust name loses its "::h<hash>" suffix
 * (libiberty keeps it only with DMGL_VERBOSE).
 */
#include <stdlib.h>
#include <string.h>
#include <libiberty/demangle.h>

#include "replay-internal.h"

/**
 * pp_demangle() - the readable form of a mangled symbol name.
 * @name: a symbol name as the ELF file or kallsyms has it.
 *
 * Only names that look mangled are given to the demangler ("_Z..." C++,
 * "_R..." Rust v0, "_ZN...17h<hash>E" Rust legacy), so plain C names cost a
 * two-byte test.
 * Return: the demangled name (malloc'd, the caller frees it), or NULL if
 * @name is not a mangled name the demangler understands.
 */
char *pp_demangle(const char *name)
{
	const char *p = name;

	if (!p || p[0] != '_')
		return NULL;
	/* a leading extra underscore (Mach-O style) is never a name of ours */
	if (p[1] != 'Z' && p[1] != 'R')
		return NULL;
	return cplus_demangle(p, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
}
