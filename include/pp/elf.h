/* SPDX-License-Identifier: MIT */
/*
 * pp_elf - the one ELF symbol reader of pp (record/elf.c), for the recorder
 * (USYMS, uprobe offsets, build-ids) and for replay (symbols from a debug
 * file or the DSO on the analyzing machine).
 *
 * One set of rules, whoever asks:
 * - ELF32 and ELF64, either byte order; every offset and size is checked
 *   against the file before it is read.
 * - Functions come from .symtab, or from .dynsym when there is no .symtab.
 *   The users complete a stripped file from its separate debug file
 *   (pp_elf__debug_file()), else its MiniDebugInfo (pp_elf__minidebug()).
 * - A function is an STT_FUNC or STT_GNU_IFUNC symbol with a name, a
 *   nonzero value, and a section index naming an executable section
 *   (SHF_EXECINSTR) of the file. Zero-size symbols are kept (size 0: up to
 *   the next symbol).
 * - Its file offset is its address converted through the PT_LOAD segment
 *   whose file bytes hold it; a function no segment holds is left out. A
 *   separate debug file keeps the segments' addresses but not their file
 *   bytes: its offsets come from the segments of the file it describes
 *   (pp_elf__set_segments()), else are taken equal to the addresses (as ld
 *   lays out the text of most objects).
 * - The build-id is the first NT_GNU_BUILD_ID note named "GNU" of the
 *   PT_NOTE segments, else of the SHT_NOTE sections; at most
 *   PP_ELF_BUILD_ID_MAX bytes of it are kept.
 * - .gnu_debuglink: a NUL-terminated file name, padded to 4, and the CRC-32
 *   (zlib's) of the debug file, in the file's byte order.
 *
 * Only the headers are read at open; the section headers when first needed;
 * the symbols with pread, a batch at a time; the string table is mapped, so
 * the pages of names nobody reads are never touched.
 */
#ifndef PP_ELF_H
#define PP_ELF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define PP_ELF_BUILD_ID_MAX	20
#define PP_ELF_MAX_SEGS		16	/* PT_LOAD segments kept */

struct pp_elf;

/* A PT_LOAD segment. */
struct pp_elf_seg {
	uint64_t vaddr;
	uint64_t offset;
	uint64_t filesz;
	uint64_t memsz;
	uint32_t flags;		/* PF_X, PF_W, PF_R */
};

/* A function symbol. */
struct pp_elf_sym {
	const char *name;	/* lent: see pp_elf__funcs() */
	uint64_t vaddr;		/* st_value */
	uint64_t offset;	/* file offset of vaddr */
	uint64_t size;		/* 0: unknown */
	uint8_t type;		/* STT_FUNC or STT_GNU_IFUNC */
	uint8_t bind;		/* STB_* */
};

/* The largest file pp_elf__open() reads (a DSO or a debug file). */
#define PP_ELF_MAX_FILE		(4ull << 30)

/**
 * pp_elf__open() - open an ELF file and read its headers.
 * @path: the file; paths come from trace files and other users' processes:
 * only a regular file is opened, never blocking (a FIFO, a device: EINVAL),
 * of at most PP_ELF_MAX_FILE bytes (EFBIG).
 *
 * Return: the reader, or NULL with errno set (ENOEXEC: not an ELF file pp
 * can read; ENOMEM; or open(2)'s error). Free with pp_elf__close().
 */
struct pp_elf *pp_elf__open(const char *path);

/**
 * pp_elf__open_fd() - pp_elf__open() on a file already open.
 * @fd: the file, read with pread; owned by the reader from now on, even on
 *   failure (closed by pp_elf__close(), or before NULL is returned).
 *
 * Return: the reader, or NULL with errno set.
 */
struct pp_elf *pp_elf__open_fd(int fd);

/**
 * pp_elf__close() - close the file and free the reader.
 * @e: reader or NULL. Names lent by it go too, unless taken with
 *   pp_elf__take_strings().
 */
void pp_elf__close(struct pp_elf *e);

/**
 * pp_elf__build_id() - the GNU build-id of the file.
 * @e: reader; @out: receives up to PP_ELF_BUILD_ID_MAX bytes.
 *
 * Return: its size, or 0 if the file has none.
 */
int pp_elf__build_id(struct pp_elf *e, uint8_t out[PP_ELF_BUILD_ID_MAX]);

/**
 * pp_elf__debuglink() - the .gnu_debuglink of a stripped file.
 * @e: reader; @name, @len: receive the debug file's name (a base name, to
 *   look for beside the file, in its .debug/ and under /usr/lib/debug/);
 * @crc: receives the CRC-32 the debug file must have.
 *
 * Return: 0, -ENOENT if the file has no (well-formed) debuglink, or
 * -ENAMETOOLONG if @len cannot hold it.
 */
int pp_elf__debuglink(struct pp_elf *e, char *name, size_t len, uint32_t *crc);

/**
 * pp_elf__debug_file() - the separate debug file of a stripped file.
 * @e: reader of the stripped file; @path: its path (its directory is
 *   where a debuglink is looked for).
 *
 * Looked for as gdb does: by build-id under /usr/lib/debug/.build-id, then
 * by .gnu_debuglink beside the file, in its .debug/ and under
 * /usr/lib/debug/DIR. A candidate must have the build-id of @e (or, when
 * @e has none, the debuglink's CRC). The debug file takes @e's segments,
 * so its functions come at @e's file offsets.
 * Return: its reader (pp_elf__close() it), or NULL.
 */
struct pp_elf *pp_elf__debug_file(struct pp_elf *e, const char *path);

/**
 * pp_elf__minidebug() - the MiniDebugInfo (.gnu_debugdata) of a stripped file.
 * @e: reader of the stripped file.
 *
 * The xz-compressed ELF file in that section, decompressed into memory
 * (bounded), with @e's segments: its .symtab has the functions @e's .dynsym
 * lacks (the two together name the file's functions).
 * Return: its reader (pp_elf__close() it), or NULL with errno set.
 */
struct pp_elf *pp_elf__minidebug(struct pp_elf *e);

/**
 * pp_elf_build_id_path() - where a debug file of build-id @bid is installed.
 * @bid, @size: the build-id (at least 2 bytes); @path, @len: receive
 *   /usr/lib/debug/.build-id/xx/yyyy.debug.
 *
 * Return: 0, or -EINVAL if @size is too short or @len too small.
 */
int pp_elf_build_id_path(const uint8_t *bid, int size, char *path, size_t len);

/**
 * pp_elf__deps() - what the dynamic loader maps for @e: its PT_INTERP path
 * into @interp (@ilen bytes; "" without one) and each DT_NEEDED name (64 at
 * most) passed to @fn.
 * Return: 0, or -ENOEXEC (a malformed dynamic section), -ENOMEM.
 */
int pp_elf__deps(struct pp_elf *e, char *interp, size_t ilen,
		 void (*fn)(void *ctx, const char *name), void *ctx);

/**
 * pp_elf__segments() - the PT_LOAD segments, in file order.
 * @e: reader; @segs: receives a pointer to them, valid as long as @e.
 *
 * Return: how many (at most PP_ELF_MAX_SEGS).
 */
int pp_elf__segments(const struct pp_elf *e, const struct pp_elf_seg **segs);

/**
 * pp_elf__set_segments() - take the file offsets of another file's
 * segments: those of the stripped file a separate debug file describes.
 * @e: reader (of the debug file); @segs, @nr: the other file's PT_LOADs.
 */
void pp_elf__set_segments(struct pp_elf *e, const struct pp_elf_seg *segs, int nr);

/**
 * pp_elf__offset() - file offset of address @vaddr.
 * @e: reader; @vaddr: address in the file's layout; @off: receives it.
 *
 * Return: 0, or -ENOENT if no segment's file bytes hold @vaddr.
 */
int pp_elf__offset(const struct pp_elf *e, uint64_t vaddr, uint64_t *off);

/**
 * pp_elf__has_symtab() - whether the functions come from a .symtab.
 * @e: reader.
 *
 * Return: 1 for .symtab, 0 for .dynsym or no table at all.
 */
int pp_elf__has_symtab(struct pp_elf *e);

/**
 * pp_elf__nr_symbols() - entries of the table the functions come from.
 * @e: reader.
 *
 * Return: a bound on the functions pp_elf__funcs() gives (0: no table).
 */
size_t pp_elf__nr_symbols(struct pp_elf *e);

/**
 * pp_elf__funcs() - the next functions of the file, in table order.
 * @e: reader; @pos: position in the table, 0 to start;
 * @out: receives them; @n: room in @out.
 *
 * Names point into the mapped string table: valid until pp_elf__close(),
 * or as long as the caller keeps the mapping of pp_elf__take_strings().
 * They are not read here (a name's page is touched only by who reads it).
 * Return: how many were stored, 0 at the end, or -errno (-EIO: the file
 * changed under the reader, -ENOMEM).
 */
int pp_elf__funcs(struct pp_elf *e, size_t *pos, struct pp_elf_sym *out, size_t n);

/**
 * pp_elf__find_func() - the first function named @name.
 * @e: reader; @name: symbol name; @out: receives it.
 *
 * Return: 0, -ENOENT if there is none, or -errno.
 */
int pp_elf__find_func(struct pp_elf *e, const char *name, struct pp_elf_sym *out);

/**
 * pp_elf__take_strings() - keep the names after pp_elf__close().
 * @e: reader; @len: receives the length of the mapping.
 *
 * Return: the mapping the names point into, now the caller's to munmap(),
 * or NULL if no string table is mapped.
 */
void *pp_elf__take_strings(struct pp_elf *e, size_t *len);

/**
 * pp_elf_file_crc32() - the CRC-32 .gnu_debuglink records, of a whole file.
 * @path: the file; @crc: receives it.
 *
 * Return: 0 or -errno.
 */
int pp_elf_file_crc32(const char *path, uint32_t *crc);

/**
 * pp_sym_order() - of two function names at one address, the one perf
 * names a frame by (its choose_best_symbol(), for names only): fewer
 * leading underscores, then the longer name, then the greater by strcmp
 * (libc's __GI_____strtoll_l_internal over __GI_____strtol_l_internal).
 * Return: > 0 when @a is preferred, < 0 when @b is, 0 when equal.
 */
static inline int pp_sym_order(const char *a, const char *b)
{
	size_t ua = strspn(a, "_"), ub = strspn(b, "_"), la, lb;

	if (ua != ub)
		return ua < ub ? 1 : -1;
	la = strlen(a);
	lb = strlen(b);
	if (la != lb)
		return la > lb ? 1 : -1;
	return strcmp(a, b);
}

#endif /* PP_ELF_H */
