/* SPDX-License-Identifier: MIT */
/*
 * pp_io - the small I/O interface the trace writer and reader go through.
 *
 * Two back-ends: a file descriptor and a growable memory buffer, so the
 * whole format round-trips in memory in tests. Errors are sticky: after the
 * first failure every call fails with the same -errno (see pp_io__error()).
 */
#ifndef PP_IO_H
#define PP_IO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct pp_io;

struct pp_io_ops {
	/* Append @len bytes at the end. Return 0 or -errno. */
	int (*write)(struct pp_io *io, const void *buf, size_t len);
	/* Read up to @len bytes at @off. Return bytes read (0 at end) or -errno. */
	ssize_t (*pread)(struct pp_io *io, void *buf, size_t len, uint64_t off);
	/* Current size in bytes, or -errno. */
	int64_t (*size)(struct pp_io *io);
	/* Make appended data durable (fdatasync for files). Return 0 or -errno. */
	int (*sync)(struct pp_io *io);
	/* Release the back-end's resources. */
	void (*close)(struct pp_io *io);
};

struct pp_io {
	const struct pp_io_ops *ops;
	int error;			/* sticky -errno, 0 while healthy */
};

/**
 * pp_io_file__new() - I/O over an open file descriptor.
 * @fd: descriptor, positioned at the end for writing (O_APPEND is fine).
 * @own: close @fd when the io is freed.
 *
 * Return: new io (free with pp_io__free()), or NULL with errno set.
 */
struct pp_io *pp_io_file__new(int fd, int own);

/**
 * pp_io_mem__new() - I/O over memory.
 * @data: initial contents copied in (may be NULL).
 * @len: bytes of @data.
 * @cap: most bytes the buffer may ever hold; a write beyond fails with -ENOSPC
 *       (lets tests simulate a full disk). 0 means 1 GiB.
 *
 * Return: new io, or NULL with errno set.
 */
struct pp_io *pp_io_mem__new(const void *data, size_t len, size_t cap);

/**
 * pp_io_mem__data() - the bytes written so far to a memory io.
 * @io: a memory io.
 * @len: receives the length.
 *
 * Return: pointer into the io's buffer, valid until the next write or free.
 */
const uint8_t *pp_io_mem__data(struct pp_io *io, size_t *len);

int pp_io__write(struct pp_io *io, const void *buf, size_t len);
ssize_t pp_io__pread(struct pp_io *io, void *buf, size_t len, uint64_t off);
int64_t pp_io__size(struct pp_io *io);
int pp_io__sync(struct pp_io *io);
int pp_io__error(const struct pp_io *io);

/** pp_io__free() - close and free; accepts NULL. */
void pp_io__free(struct pp_io *io);

/**
 * pp_prefault() - fault in the pages of a new buffer in one call (one fault
 * per page is slow in VMs); a no-op where the kernel lacks the advice.
 * @p, @len: the buffer; only its whole pages are touched.
 */
void pp_prefault(void *p, size_t len);

#endif /* PP_IO_H */
