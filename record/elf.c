// SPDX-License-Identifier: MIT
/*
 * The ELF symbol reader (see include/pp/elf.h for its rules).
 *
 * Headers of either class and byte order are decoded field by field into
 * host-order structs; the fields of the host's own layout (ELF64, same byte
 * order) compile to plain loads. Every offset read is checked against the
 * file's size first, so a hostile or truncated file fails with ENOEXEC or
 * gives fewer symbols, never a read outside the file or the mapping.
 *
 * The recorder opens one file per mapped DSO at start-up (for its build-id)
 * and reads the symbol tables of the sampled ones while it drains: so the
 * open reads only the ELF and program headers, the build-id comes from the
 * PT_NOTE segments when they have it, and the string table is mapped, not
 * read (mapping the whole file through libelf cost a page fault per page
 * and a TLB shootdown at the end, a millisecond per DSO).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <lzma.h>
#include <zlib.h>

#include "pp/elf.h"
#include "record.h"

#define MAX_PHDRS	1024		/* program headers read at most */
#define MAX_SHDRS	(1u << 20)	/* section headers read at most */
#define MAX_SYMTAB	(256u << 20)	/* symbol table bytes read at most */
#define MAX_SHSTRTAB	(1u << 20)	/* section name bytes read at most */
#define MAX_NOTES	8		/* PT_NOTE segments kept */
#define NOTE_MAX	4096		/* bytes of a note segment or section read */
#define SYM_BATCH	2048		/* symbols read at once */

struct elf_sec {
	uint32_t type, link;
	uint64_t flags, offset, size, entsize;
	uint32_t name;
};

struct pp_elf {
	int fd;
	uint64_t file_size;
	uint8_t is64, swap;
	uint8_t native64;		/* ELF64 in host byte order */
	uint8_t sized;			/* file_size is known (else UINT64_MAX) */
	uint64_t shoff;
	uint32_t shnum, shstrndx;
	struct pp_elf_seg segs[PP_ELF_MAX_SEGS];
	int nr_segs;
	struct { uint64_t offset, size, align; } notes[MAX_NOTES];
	int nr_notes;
	uint64_t interp_off, interp_size;	/* PT_INTERP, size 0: none */
	uint64_t dyn_off, dyn_size;		/* PT_DYNAMIC, size 0: none */

	struct elf_sec *sh;		/* section headers, read when first needed */
	int sh_state;			/* 0 not read, 1 read, -1 unreadable */

	int tab_state;			/* 0 not chosen, 1 chosen, -1 none */
	int has_symtab;
	uint64_t tab_offset, tab_entsize;
	size_t nr_syms;
	uint8_t *batch;			/* raw symbols [batch_first, +batch_nr) */
	size_t batch_first, batch_nr;
	const char *str;		/* the string table, in the mapping */
	uint64_t str_size;
	void *map;
	size_t map_len;
};

/* ---- decoding ---- */

static uint64_t get(const struct pp_elf *e, const void *p, size_t n)
{
	switch (n) {
	case 1:
		return *(const uint8_t *)p;
	case 2: {
		uint16_t v;

		memcpy(&v, p, 2);
		return e->swap ? __builtin_bswap16(v) : v;
	}
	case 4: {
		uint32_t v;

		memcpy(&v, p, 4);
		return e->swap ? __builtin_bswap32(v) : v;
	}
	default: {
		uint64_t v;

		memcpy(&v, p, 8);
		return e->swap ? __builtin_bswap64(v) : v;
	}
	}
}

/* Field @f of the ELF struct @T (Ehdr, Phdr, Shdr, Sym) at @p, of either class. */
#define FIELD(e, p, T, f)							\
	((e)->is64 ? get((e), (const uint8_t *)(p) + offsetof(Elf64_##T, f),	\
			 sizeof(((Elf64_##T *)0)->f)) :				\
		     get((e), (const uint8_t *)(p) + offsetof(Elf32_##T, f),	\
			 sizeof(((Elf32_##T *)0)->f)))
#define SIZE(e, T)	((e)->is64 ? sizeof(Elf64_##T) : sizeof(Elf32_##T))

/* Read exactly @len bytes at @off (a short read: past the end, -ENOEXEC). */
static int pread_at(const struct pp_elf *e, void *buf, uint64_t len, uint64_t off)
{
	ssize_t n;

	if (off > e->file_size || len > e->file_size - off || len > SSIZE_MAX ||
	    off > (uint64_t)INT64_MAX - len)
		return -ENOEXEC;
	n = pread(e->fd, buf, (size_t)len, (off_t)off);
	if (n >= 0 && (size_t)n < len)
		return -ENOEXEC;
	return n < 0 ? -EIO : 0;
}

/* ---- open ---- */

static int read_phdrs(struct pp_elf *e, uint64_t phoff, uint32_t phnum)
{
	size_t esz = SIZE(e, Phdr);
	uint8_t small[32 * sizeof(Elf64_Phdr)], *ph = small;
	int err;

	if (!phnum)
		return 0;
	if (phnum > MAX_PHDRS)
		return -ENOEXEC;
	if (phnum * esz > sizeof(small))
		ph = malloc(phnum * esz);
	if (!ph)
		return -ENOMEM;
	err = pread_at(e, ph, phnum * esz, phoff);
	for (uint32_t i = 0; !err && i < phnum; i++) {
		const uint8_t *p = ph + i * esz;
		uint32_t type = (uint32_t)FIELD(e, p, Phdr, p_type);

		if (type == PT_LOAD && e->nr_segs < PP_ELF_MAX_SEGS) {
			struct pp_elf_seg *s = &e->segs[e->nr_segs++];

			s->vaddr = FIELD(e, p, Phdr, p_vaddr);
			s->offset = FIELD(e, p, Phdr, p_offset);
			s->filesz = FIELD(e, p, Phdr, p_filesz);
			s->memsz = FIELD(e, p, Phdr, p_memsz);
			s->flags = (uint32_t)FIELD(e, p, Phdr, p_flags);
		} else if (type == PT_INTERP) {
			e->interp_off = FIELD(e, p, Phdr, p_offset);
			e->interp_size = FIELD(e, p, Phdr, p_filesz);
		} else if (type == PT_DYNAMIC) {
			e->dyn_off = FIELD(e, p, Phdr, p_offset);
			e->dyn_size = FIELD(e, p, Phdr, p_filesz);
		} else if (type == PT_NOTE && e->nr_notes < MAX_NOTES) {
			e->notes[e->nr_notes].offset = FIELD(e, p, Phdr, p_offset);
			e->notes[e->nr_notes].size = FIELD(e, p, Phdr, p_filesz);
			e->notes[e->nr_notes].align = FIELD(e, p, Phdr, p_align);
			e->nr_notes++;
		}
	}
	if (ph != small)
		free(ph);
	return err;
}

/*
 * A separate debug file (objcopy --only-keep-debug, dh_strip) keeps the
 * program headers but not the bytes: its executable segments have no file
 * bytes. Their offsets are then taken equal to their addresses, until
 * pp_elf__set_segments() gives the real ones.
 */
static void debug_file_segments(struct pp_elf *e)
{
	int debug = 0;

	for (int i = 0; i < e->nr_segs; i++)
		if ((e->segs[i].flags & PF_X) && e->segs[i].memsz && !e->segs[i].filesz)
			debug = 1;
	if (!debug)
		return;
	for (int i = 0; i < e->nr_segs; i++) {
		e->segs[i].offset = e->segs[i].vaddr;
		e->segs[i].filesz = e->segs[i].memsz;
	}
}

/**
 * pp_elf__open_fd() - pp_elf__open() on a file already open.
 * @fd: the file; owned by the reader from now on, even on failure.
 *
 * Return: the reader, or NULL with errno set.
 */
struct pp_elf *pp_elf__open_fd(int fd)
{
	uint8_t eh[sizeof(Elf64_Ehdr)];
	struct pp_elf *e;
	uint64_t phoff;
	uint32_t phnum;
	ssize_t got;
	int err = -ENOEXEC;

	if (fd < 0) {
		errno = EBADF;
		return NULL;
	}
	e = calloc(1, sizeof(*e));
	if (!e) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	e->fd = fd;
	/*
	 * The size is asked for only when a section is mapped: a short read
	 * fails a read past the end as well, and the start-up snapshot opens
	 * one file per DSO just for its build-id.
	 */
	e->file_size = UINT64_MAX;
	got = pread(fd, eh, sizeof(eh), 0);
	if (got < EI_NIDENT || memcmp(eh, ELFMAG, SELFMAG) || eh[EI_VERSION] != EV_CURRENT)
		goto fail;
	if (eh[EI_CLASS] != ELFCLASS64 && eh[EI_CLASS] != ELFCLASS32)
		goto fail;
	if (eh[EI_DATA] != ELFDATA2LSB && eh[EI_DATA] != ELFDATA2MSB)
		goto fail;
	e->is64 = eh[EI_CLASS] == ELFCLASS64;
	e->swap = (eh[EI_DATA] == ELFDATA2LSB) != (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__);
	e->native64 = e->is64 && !e->swap;
	if ((size_t)got < SIZE(e, Ehdr))
		goto fail;
	phoff = FIELD(e, eh, Ehdr, e_phoff);
	phnum = (uint32_t)FIELD(e, eh, Ehdr, e_phnum);
	e->shoff = FIELD(e, eh, Ehdr, e_shoff);
	e->shnum = (uint32_t)FIELD(e, eh, Ehdr, e_shnum);
	e->shstrndx = (uint32_t)FIELD(e, eh, Ehdr, e_shstrndx);
	if ((phnum && FIELD(e, eh, Ehdr, e_phentsize) != SIZE(e, Phdr)) ||
	    ((e->shnum || e->shoff) && FIELD(e, eh, Ehdr, e_shentsize) != SIZE(e, Shdr)))
		goto fail;
	if (phnum == PN_XNUM)
		goto fail;	/* 65535+ segments: no DSO pp maps has them */
	err = read_phdrs(e, phoff, phnum);
	if (err)
		goto fail;
	debug_file_segments(e);
	return e;
fail:
	pp_elf__close(e);
	errno = -err;
	return NULL;
}

/* Learn the file's size (for what is mapped). Return: 0 or -errno. */
static int file_sized(struct pp_elf *e)
{
	struct stat st;

	if (e->sized)
		return 0;
	if (fstat(e->fd, &st))
		return -errno;
	e->file_size = (uint64_t)st.st_size;
	e->sized = 1;
	return 0;
}

/*
 * Open @path for reading only if it is a regular file of at most
 * PP_ELF_MAX_FILE bytes. Paths come from trace files and from other users'
 * processes: a FIFO must not block open(2) (O_NONBLOCK), nor a device (a
 * symlink to /dev/zero) be read forever. Return: fd, or -1 with errno set.
 */
static int open_regular(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;
	int err;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st))
		err = errno;
	else if (!S_ISREG(st.st_mode))
		err = EINVAL;
	else if ((uint64_t)st.st_size > PP_ELF_MAX_FILE)
		err = EFBIG;
	else
		return fd;
	close(fd);
	errno = err;
	return -1;
}

/**
 * pp_elf__open() - open an ELF file and read its headers.
 * @path: the file: only a regular file (a FIFO or a device is refused
 * without blocking: EINVAL) of at most PP_ELF_MAX_FILE bytes (EFBIG).
 *
 * Return: the reader, or NULL with errno set. Free with pp_elf__close().
 */
struct pp_elf *pp_elf__open(const char *path)
{
	int fd = open_regular(path);

	if (fd < 0)
		return NULL;
	return pp_elf__open_fd(fd);
}

/**
 * pp_elf__close() - close the file and free the reader.
 * @e: reader or NULL.
 */
void pp_elf__close(struct pp_elf *e)
{
	if (!e)
		return;
	if (e->map)
		munmap(e->map, e->map_len);
	free(e->sh);
	free(e->batch);
	close(e->fd);
	free(e);
}

/* ---- sections ---- */

static int read_shdrs(struct pp_elf *e)
{
	size_t esz = SIZE(e, Shdr);
	uint8_t *raw = NULL;
	uint32_t n = e->shnum;

	if (e->sh_state)
		return e->sh_state > 0 ? 0 : -ENOENT;
	e->sh_state = -1;
	if (!e->shoff || file_sized(e))
		return -ENOENT;
	if (!n) {
		/* more than SHN_LORESERVE sections: the count is in section 0 */
		uint8_t s0[sizeof(Elf64_Shdr)];

		if (pread_at(e, s0, esz, e->shoff))
			return -ENOENT;
		n = (uint32_t)FIELD(e, s0, Shdr, sh_size);
	}
	if (!n || n > MAX_SHDRS)
		return -ENOENT;
	raw = malloc((size_t)n * esz);
	e->sh = calloc(n, sizeof(*e->sh));
	if (!raw || !e->sh || pread_at(e, raw, (uint64_t)n * esz, e->shoff)) {
		free(raw);
		free(e->sh);
		e->sh = NULL;
		return -ENOENT;
	}
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *p = raw + (size_t)i * esz;
		struct elf_sec *s = &e->sh[i];

		s->name = (uint32_t)FIELD(e, p, Shdr, sh_name);
		s->type = (uint32_t)FIELD(e, p, Shdr, sh_type);
		s->flags = FIELD(e, p, Shdr, sh_flags);
		s->offset = FIELD(e, p, Shdr, sh_offset);
		s->size = FIELD(e, p, Shdr, sh_size);
		s->link = (uint32_t)FIELD(e, p, Shdr, sh_link);
		s->entsize = FIELD(e, p, Shdr, sh_entsize);
	}
	free(raw);
	e->shnum = n;
	e->sh_state = 1;
	return 0;
}

/* The bytes of section @s exist in the file (not NOBITS, not compressed). */
static int sec_in_file(const struct pp_elf *e, const struct elf_sec *s)
{
	return s->type != SHT_NOBITS && !(s->flags & SHF_COMPRESSED) && s->offset <= e->file_size &&
	       s->size <= e->file_size - s->offset;
}

/* Index of the section named @name, or -1. The names are read at once. */
static int sec_by_name(struct pp_elf *e, const char *name)
{
	const struct elf_sec *ss;
	size_t len = strlen(name) + 1;
	int found = -1;
	char *names;

	if (read_shdrs(e) || e->shstrndx >= e->shnum)
		return -1;
	ss = &e->sh[e->shstrndx];
	if (!sec_in_file(e, ss) || !ss->size || ss->size > MAX_SHSTRTAB)
		return -1;
	names = malloc(ss->size);
	if (!names || pread_at(e, names, ss->size, ss->offset)) {
		free(names);
		return -1;
	}
	for (uint32_t i = 1; i < e->shnum && found < 0; i++) {
		uint64_t at = e->sh[i].name;

		if (at < ss->size && ss->size - at >= len && !memcmp(names + at, name, len))
			found = (int)i;
	}
	free(names);
	return found;
}

/* ---- notes, build-id, debuglink ---- */

/*
 * The GNU build-id note in @len bytes of notes at @p, padded to @align
 * (4, or 8 in segments aligned so). Return: its size or 0.
 */
static int notes_build_id(const struct pp_elf *e, const uint8_t *p, size_t len, uint64_t align,
			  uint8_t out[PP_ELF_BUILD_ID_MAX])
{
	size_t off = 0, pad = align == 8 ? 7 : 3;

	while (len - off >= 12) {
		uint32_t namesz = (uint32_t)get(e, p + off, 4);
		uint32_t descsz = (uint32_t)get(e, p + off + 4, 4);
		uint32_t type = (uint32_t)get(e, p + off + 8, 4);
		size_t name = off + 12, desc, next;

		if (namesz > len - name)
			return 0;
		desc = name + ((namesz + pad) & ~pad);
		if (desc > len || descsz > len - desc)
			return 0;
		next = desc + ((descsz + pad) & ~pad);
		if (type == NT_GNU_BUILD_ID && namesz == 4 && !memcmp(p + name, "GNU", 4) && descsz) {
			size_t n = descsz > PP_ELF_BUILD_ID_MAX ? PP_ELF_BUILD_ID_MAX : descsz;

			memcpy(out, p + desc, n);
			return (int)n;
		}
		if (next >= len)
			return 0;
		off = next;
	}
	return 0;
}

/**
 * pp_elf__build_id() - the GNU build-id of the file.
 * @e: reader; @out: receives up to PP_ELF_BUILD_ID_MAX bytes.
 *
 * Return: its size, or 0 if the file has none.
 */
int pp_elf__build_id(struct pp_elf *e, uint8_t out[PP_ELF_BUILD_ID_MAX])
{
	uint8_t buf[NOTE_MAX];
	int n;

	for (int i = 0; i < e->nr_notes; i++) {
		uint64_t sz = e->notes[i].size;

		if (!sz || sz > sizeof(buf) || pread_at(e, buf, sz, e->notes[i].offset))
			continue;
		n = notes_build_id(e, buf, (size_t)sz, e->notes[i].align, out);
		if (n)
			return n;
	}
	/* no PT_NOTE with it (an object, or a debug file whose notes moved): sections */
	if (read_shdrs(e))
		return 0;
	for (uint32_t i = 1; i < e->shnum; i++) {
		const struct elf_sec *s = &e->sh[i];

		if (s->type != SHT_NOTE || !s->size || s->size > sizeof(buf) || !sec_in_file(e, s) ||
		    pread_at(e, buf, s->size, s->offset))
			continue;
		n = notes_build_id(e, buf, (size_t)s->size, 4, out);
		if (n)
			return n;
	}
	return 0;
}

/**
 * pp_elf__debuglink() - the .gnu_debuglink of a stripped file.
 * @e: reader; @name, @len: receive the debug file's name; @crc: its CRC-32.
 *
 * Return: 0, -ENOENT, or -ENAMETOOLONG.
 */
int pp_elf__debuglink(struct pp_elf *e, char *name, size_t len, uint32_t *crc)
{
	int i = sec_by_name(e, ".gnu_debuglink");
	const struct elf_sec *s;
	char buf[4096 + 8];
	size_t n, at;

	if (i < 0)
		return -ENOENT;
	s = &e->sh[i];
	if (!sec_in_file(e, s) || s->size < 8 || s->size > sizeof(buf) ||
	    pread_at(e, buf, s->size, s->offset))
		return -ENOENT;
	n = strnlen(buf, (size_t)s->size);
	at = (n + 4) & ~(size_t)3;	/* the NUL, then padding to 4 */
	if (!n || n == s->size || at + 4 > s->size)
		return -ENOENT;
	if (n >= len)
		return -ENAMETOOLONG;
	memcpy(name, buf, n + 1);
	*crc = (uint32_t)get(e, buf + at, 4);
	return 0;
}

/**
 * pp_elf_file_crc32() - the CRC-32 .gnu_debuglink records, of a whole file.
 * @path: the file; @crc: receives it.
 *
 * Return: 0 or -errno.
 */
int pp_elf_file_crc32(const char *path, uint32_t *crc)
{
	int fd = open_regular(path);
	uLong c = crc32(0, Z_NULL, 0);
	uint8_t buf[65536];
	ssize_t n;

	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		c = crc32(c, buf, (uInt)n);
	close(fd);
	if (n < 0)
		return -EIO;
	*crc = (uint32_t)c;
	return 0;
}

/**
 * pp_elf_build_id_path() - where a debug file of build-id @bid is installed.
 * @bid, @size: the build-id (at least 2 bytes); @path, @len: receive
 *   /usr/lib/debug/.build-id/xx/yyyy.debug.
 *
 * Return: 0, or -EINVAL if @size is too short or @len too small.
 */
int pp_elf_build_id_path(const uint8_t *bid, int size, char *path, size_t len)
{
	size_t n;

	if (size < 2 || len < sizeof("/usr/lib/debug/.build-id/xx/.debug") + 2 * (size_t)size)
		return -EINVAL;
	n = (size_t)snprintf(path, len, "/usr/lib/debug/.build-id/%02x/", bid[0]);
	for (int i = 1; i < size; i++)
		n += (size_t)snprintf(path + n, len - n, "%02x", bid[i]);
	snprintf(path + n, len - n, ".debug");
	return 0;
}

/* @path, if it is the debug file of build-id @bid (or, without one, of CRC @crc). */
static struct pp_elf *debug_open(const char *path, const uint8_t *bid, int bid_size,
				 const uint32_t *crc)
{
	uint8_t b[PP_ELF_BUILD_ID_MAX];
	struct pp_elf *e;
	uint32_t c;

	if (access(path, R_OK))
		return NULL;
	if (crc && !bid_size && (pp_elf_file_crc32(path, &c) || c != *crc))
		return NULL;
	e = pp_elf__open(path);
	if (e && bid_size && (pp_elf__build_id(e, b) != bid_size || memcmp(b, bid, (size_t)bid_size))) {
		pp_elf__close(e);
		e = NULL;
	}
	return e;
}

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
struct pp_elf *pp_elf__debug_file(struct pp_elf *e, const char *path)
{
	char p[PATH_MAX], name[256], dir[PATH_MAX];
	const char *slash = path ? strrchr(path, '/') : NULL;
	uint8_t bid[PP_ELF_BUILD_ID_MAX];
	int bid_size = pp_elf__build_id(e, bid);
	struct pp_elf *dbg = NULL;
	uint32_t crc;

	if (!pp_elf_build_id_path(bid, bid_size, p, sizeof(p)))
		dbg = debug_open(p, bid, bid_size, NULL);
	if (!dbg && slash && !pp_elf__debuglink(e, name, sizeof(name), &crc)) {
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
		if (snprintf(p, sizeof(p), "%s/%s", dir, name) < (int)sizeof(p) && strcmp(p, path))
			dbg = debug_open(p, bid, bid_size, &crc);
		if (!dbg && snprintf(p, sizeof(p), "%s/.debug/%s", dir, name) < (int)sizeof(p))
			dbg = debug_open(p, bid, bid_size, &crc);
		if (!dbg && snprintf(p, sizeof(p), "/usr/lib/debug%s/%s", dir, name) < (int)sizeof(p))
			dbg = debug_open(p, bid, bid_size, &crc);
	}
	if (dbg)
		pp_elf__set_segments(dbg, e->segs, e->nr_segs);
	return dbg;
}

/* ---- MiniDebugInfo ---- */

#define MINIDEBUG_MAX_IN	(64u << 20)	/* compressed bytes read at most */
#define MINIDEBUG_MAX_OUT	(256ull << 20)	/* decompressed bytes at most */
#define MINIDEBUG_MEMLIMIT	(64u << 20)	/* xz decoder memory at most */

/**
 * pp_elf__minidebug() - the MiniDebugInfo of a stripped file.
 * @e: reader of the stripped file.
 *
 * The section .gnu_debugdata (Fedora's and others' MiniDebugInfo) holds an
 * xz-compressed ELF file whose .symtab has the functions the .dynsym lacks.
 * It is decompressed (at most MINIDEBUG_MAX_OUT bytes, the decoder given at
 * most MINIDEBUG_MEMLIMIT) into an anonymous memory file, so the reader
 * reads it as any other; it takes @e's segments, so its functions come at
 * @e's file offsets. Its functions complete @e's .dynsym, they do not
 * replace it.
 * Return: its reader (pp_elf__close() it), or NULL with errno set (ENOENT:
 * no such section; EINVAL: not xz data; EFBIG: too large).
 */
struct pp_elf *pp_elf__minidebug(struct pp_elf *e)
{
	lzma_stream strm = LZMA_STREAM_INIT;
	uint8_t *in = NULL, *out = NULL;
	const struct elf_sec *sec;
	struct pp_elf *inner = NULL;
	uint64_t total = 0;
	int i = sec_by_name(e, ".gnu_debugdata"), fd = -1, err = ENOENT;
	lzma_ret r;

	if (i < 0)
		goto out;
	sec = &e->sh[i];
	err = EINVAL;
	if (!sec_in_file(e, sec) || !sec->size)
		goto out;
	err = EFBIG;
	if (sec->size > MINIDEBUG_MAX_IN)
		goto out;
	err = ENOMEM;
	in = malloc(sec->size);
	out = malloc(1u << 16);
	if (!in || !out)
		goto out;
	err = EINVAL;
	if (pread_at(e, in, sec->size, sec->offset) ||
	    lzma_stream_decoder(&strm, MINIDEBUG_MEMLIMIT, 0) != LZMA_OK)
		goto out;
	fd = memfd_create("pp-minidebuginfo", MFD_CLOEXEC);
	if (fd < 0) {
		err = errno;
		goto out;
	}
	strm.next_in = in;
	strm.avail_in = (size_t)sec->size;
	do {
		strm.next_out = out;
		strm.avail_out = 1u << 16;
		r = lzma_code(&strm, LZMA_FINISH);
		size_t n = (1u << 16) - strm.avail_out;

		if (r != LZMA_OK && r != LZMA_STREAM_END)
			goto out;
		total += n;
		if (total > MINIDEBUG_MAX_OUT) {
			err = EFBIG;
			goto out;
		}
		if (n && pwrite(fd, out, n, (off_t)(total - n)) != (ssize_t)n) {
			err = errno ? errno : EIO;
			goto out;
		}
		if (r == LZMA_OK && !strm.avail_in && strm.avail_out)
			goto out;	/* input ended before the stream did */
	} while (r != LZMA_STREAM_END);
	inner = pp_elf__open_fd(fd);
	fd = -1;			/* the reader's now, or closed */
	if (inner)
		pp_elf__set_segments(inner, e->segs, e->nr_segs);
	err = inner ? 0 : errno;
out:
	lzma_end(&strm);
	free(in);
	free(out);
	if (fd >= 0)
		close(fd);
	if (!inner)
		errno = err;
	return inner;
}

/* ---- segments ---- */

/**
 * pp_elf__segments() - the PT_LOAD segments, in file order.
 * @e: reader; @segs: receives a pointer to them.
 *
 * Return: how many.
 */
int pp_elf__segments(const struct pp_elf *e, const struct pp_elf_seg **segs)
{
	*segs = e->segs;
	return e->nr_segs;
}

/**
 * pp_elf__set_segments() - take the file offsets of another file's segments.
 * @e: reader (of the debug file); @segs, @nr: the other file's PT_LOADs.
 */
void pp_elf__set_segments(struct pp_elf *e, const struct pp_elf_seg *segs, int nr)
{
	if (nr > PP_ELF_MAX_SEGS)
		nr = PP_ELF_MAX_SEGS;
	memcpy(e->segs, segs, (size_t)nr * sizeof(*segs));
	e->nr_segs = nr;
}

static int seg_offset(const struct pp_elf *e, uint64_t vaddr, uint64_t *off)
{
	for (int k = 0; k < e->nr_segs; k++) {
		const struct pp_elf_seg *s = &e->segs[k];

		if (vaddr >= s->vaddr && vaddr - s->vaddr < s->filesz) {
			*off = vaddr - s->vaddr + s->offset;
			return 0;
		}
	}
	return -ENOENT;
}

/**
 * pp_elf__offset() - file offset of address @vaddr.
 * @e: reader; @vaddr: address; @off: receives it.
 *
 * Return: 0, or -ENOENT if no segment's file bytes hold @vaddr.
 */
int pp_elf__offset(const struct pp_elf *e, uint64_t vaddr, uint64_t *off)
{
	return seg_offset(e, vaddr, off);
}

/* See include/pp/elf.h. */
int pp_elf__deps(struct pp_elf *e, char *interp, size_t ilen,
		 void (*fn)(void *ctx, const char *name), void *ctx)
{
	const size_t esz = e->is64 ? sizeof(Elf64_Dyn) : sizeof(Elf32_Dyn);
	uint64_t strtab = 0, strsz = 0, off, n = e->dyn_size / esz;
	uint64_t needed[64];
	unsigned int nr = 0;
	uint8_t *dyn, *str;
	int err = 0;

	if (ilen)
		interp[0] = '\0';
	if (e->interp_size && ilen) {
		uint64_t len = e->interp_size < ilen ? e->interp_size : ilen - 1;

		if (pread_at(e, interp, len, e->interp_off))
			interp[0] = '\0';
		interp[len] = '\0';
	}
	if (!n)
		return 0;
	if (n > 4096)
		return -ENOEXEC;
	dyn = malloc(n * esz);
	if (!dyn)
		return -ENOMEM;
	err = pread_at(e, dyn, n * esz, e->dyn_off);
	for (uint64_t i = 0; !err && i < n; i++) {
		const uint8_t *d = dyn + i * esz;
		int64_t tag = e->is64 ? (int64_t)get(e, d, 8) : (int32_t)get(e, d, 4);
		uint64_t val = e->is64 ? get(e, d + 8, 8) : get(e, d + 4, 4);

		if (tag == DT_NULL)
			break;
		if (tag == DT_STRTAB)
			strtab = val;
		else if (tag == DT_STRSZ)
			strsz = val;
		else if (tag == DT_NEEDED && nr < 64)
			needed[nr++] = val;
	}
	free(dyn);
	if (err || !nr)
		return err;
	/* DT_STRTAB is an address: its place in the file by the segments */
	if (!strsz || strsz > (16u << 20) || seg_offset(e, strtab, &off))
		return -ENOEXEC;
	str = malloc(strsz + 1);
	if (!str)
		return -ENOMEM;
	err = pread_at(e, str, strsz, off);
	str[strsz] = '\0';
	for (unsigned int i = 0; !err && i < nr; i++)
		if (needed[i] < strsz && str[needed[i]])
			fn(ctx, (const char *)str + needed[i]);
	free(str);
	return err;
}

/* ---- symbols ---- */

/* Choose .symtab, else .dynsym, and map its string table. Return: 0 or -ENOENT. */
static int choose_table(struct pp_elf *e)
{
	const struct elf_sec *tab = NULL, *str;
	uint64_t page, moff;

	if (e->tab_state)
		return e->tab_state > 0 ? 0 : -ENOENT;
	e->tab_state = -1;
	if (read_shdrs(e))
		return -ENOENT;
	for (uint32_t i = 1; i < e->shnum && (!tab || tab->type != SHT_SYMTAB); i++) {
		const struct elf_sec *s = &e->sh[i];

		if ((s->type == SHT_SYMTAB || (s->type == SHT_DYNSYM && !tab)) && s->size &&
		    s->entsize == SIZE(e, Sym) && s->link < e->shnum && sec_in_file(e, s) &&
		    s->size <= MAX_SYMTAB)
			tab = s;
	}
	if (!tab)
		return -ENOENT;
	str = &e->sh[tab->link];
	if (str->type != SHT_STRTAB || !str->size || !sec_in_file(e, str))
		return -ENOENT;
	/*
	 * The strings are mapped, not read: of a library's hundreds of
	 * kilobytes of names only the pages of the few that are looked up are
	 * touched. A file truncated in place while mapped would fault at the
	 * next name read: package managers replace files, they do not rewrite
	 * them.
	 */
	page = (uint64_t)sysconf(_SC_PAGESIZE);
	moff = str->offset & ~(page - 1);
	e->map_len = (size_t)(str->offset + str->size - moff);
	e->map = mmap(NULL, e->map_len, PROT_READ, MAP_PRIVATE, e->fd, (off_t)moff);
	if (e->map == MAP_FAILED) {
		e->map = NULL;
		return -ENOENT;
	}
	e->str = (const char *)e->map + (str->offset - moff);
	e->str_size = str->size;
	if (e->str[e->str_size - 1]) {
		munmap(e->map, e->map_len);
		e->map = NULL;
		return -ENOENT;		/* not NUL-terminated: a name could run off */
	}
	e->has_symtab = tab->type == SHT_SYMTAB;
	e->tab_offset = tab->offset;
	e->tab_entsize = tab->entsize;
	e->nr_syms = (size_t)(tab->size / tab->entsize);
	e->tab_state = 1;
	return 0;
}

/**
 * pp_elf__has_symtab() - whether the functions come from a .symtab.
 * @e: reader.
 *
 * Return: 1 or 0.
 */
int pp_elf__has_symtab(struct pp_elf *e)
{
	return !choose_table(e) && e->has_symtab;
}

/**
 * pp_elf__nr_symbols() - entries of the table the functions come from.
 * @e: reader.
 *
 * Return: that many, or 0.
 */
size_t pp_elf__nr_symbols(struct pp_elf *e)
{
	return choose_table(e) ? 0 : e->nr_syms;
}

/*
 * The rules of a function (include/pp/elf.h): decode raw symbol @p into @out.
 * The name is not read, only its index checked: index 0 is the empty name.
 * Return: 1 if it is one.
 */
static int sym_func(const struct pp_elf *e, const uint8_t *p, struct pp_elf_sym *out)
{
	uint64_t value, size;
	uint32_t name;
	uint16_t shndx;
	uint8_t info;

	if (e->native64) {
		/* the host's own layout: plain loads, no per-field class and order tests */
		Elf64_Sym es;

		memcpy(&es, p, sizeof(es));
		info = es.st_info;
		name = es.st_name;
		shndx = es.st_shndx;
		value = es.st_value;
		size = es.st_size;
	} else {
		info = (uint8_t)FIELD(e, p, Sym, st_info);
		name = (uint32_t)FIELD(e, p, Sym, st_name);
		shndx = (uint16_t)FIELD(e, p, Sym, st_shndx);
		value = FIELD(e, p, Sym, st_value);
		size = FIELD(e, p, Sym, st_size);
	}
	if (ELF64_ST_TYPE(info) != STT_FUNC && ELF64_ST_TYPE(info) != STT_GNU_IFUNC)
		return 0;
	if (!name || name >= e->str_size || !value || shndx == SHN_UNDEF || shndx >= e->shnum ||
	    shndx >= SHN_LORESERVE ||
	    !(e->sh[shndx].flags & SHF_EXECINSTR))
		return 0;
	if (seg_offset(e, value, &out->offset))
		return 0;
	out->name = e->str + name;
	out->vaddr = value;
	out->size = size;
	out->type = ELF64_ST_TYPE(info);
	out->bind = ELF64_ST_BIND(info);
	return 1;
}

/**
 * pp_elf__funcs() - the next functions of the file, in table order.
 * @e: reader; @pos: position in the table; @out, @n: room for them.
 *
 * Return: how many were stored, 0 at the end, or -errno.
 */
int pp_elf__funcs(struct pp_elf *e, size_t *pos, struct pp_elf_sym *out, size_t n)
{
	size_t got = 0, esz;

	if (choose_table(e))
		return 0;
	esz = (size_t)e->tab_entsize;
	if (!e->batch) {
		e->batch = malloc(SYM_BATCH * esz);
		if (!e->batch)
			return -ENOMEM;
		e->batch_nr = 0;
	}
	while (got < n && *pos < e->nr_syms) {
		size_t i = *pos;

		if (i < e->batch_first || i - e->batch_first >= e->batch_nr) {
			size_t nr = e->nr_syms - i < SYM_BATCH ? e->nr_syms - i : SYM_BATCH;

			if (pread_at(e, e->batch, (uint64_t)nr * esz, e->tab_offset + (uint64_t)i * esz)) {
				e->batch_nr = 0;
				return -EIO;
			}
			e->batch_first = i;
			e->batch_nr = nr;
		}
		/* the rest of this batch, as far as @out has room (locals: @out may alias @pos) */
		size_t j = i - e->batch_first, end = e->batch_nr;
		const uint8_t *raw = e->batch;

		for (; j < end && got < n; j++)
			got += (size_t)sym_func(e, raw + j * esz, &out[got]);
		*pos = e->batch_first + j;
	}
	return (int)got;
}

/**
 * pp_elf__find_func() - the first function named @name.
 * @e: reader; @name: symbol name; @out: receives it.
 *
 * Return: 0, -ENOENT, or -errno.
 */
int pp_elf__find_func(struct pp_elf *e, const char *name, struct pp_elf_sym *out)
{
	struct pp_elf_sym v[256];
	size_t pos = 0;
	int n;

	while ((n = pp_elf__funcs(e, &pos, v, 256)) > 0)
		for (int i = 0; i < n; i++)
			if (!strcmp(v[i].name, name)) {
				*out = v[i];
				return 0;
			}
	return n < 0 ? n : -ENOENT;
}

/**
 * pp_elf__take_strings() - keep the names after pp_elf__close().
 * @e: reader; @len: receives the length of the mapping.
 *
 * Return: the mapping, now the caller's to munmap(), or NULL.
 */
void *pp_elf__take_strings(struct pp_elf *e, size_t *len)
{
	void *m = e->map;

	*len = e->map_len;
	e->map = NULL;
	return m;
}

/**
 * pp_elf_sym_offset() - file offset of function @func in ELF @path, for a
 * uprobe.
 * @path: ELF file; @func: symbol name; @off: receives the offset.
 *
 * Return: 0, -ENOENT (no such function), -ENOEXEC (not ELF), -errno.
 */
int pp_elf_sym_offset(const char *path, const char *func, uint64_t *off)
{
	struct pp_elf *e = pp_elf__open(path);
	struct pp_elf_sym sym;
	int err;

	if (!e)
		return -errno;
	err = pp_elf__find_func(e, func, &sym);
	if (!err)
		*off = sym.offset;
	pp_elf__close(e);
	return err;
}
