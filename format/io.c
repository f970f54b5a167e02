// SPDX-License-Identifier: MIT
/* pp_io back-ends: file descriptor and memory. Errors are sticky. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "pp/io.h"

struct pp_io_file {
	struct pp_io io;
	int fd;
	int own;
};

struct pp_io_mem {
	struct pp_io io;
	uint8_t *data;
	size_t len;
	size_t alloc;
	size_t cap;
};

static int file_write(struct pp_io *io, const void *buf, size_t len)
{
	struct pp_io_file *f = (struct pp_io_file *)io;
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = write(f->fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static ssize_t file_pread(struct pp_io *io, void *buf, size_t len, uint64_t off)
{
	struct pp_io_file *f = (struct pp_io_file *)io;
	uint8_t *p = buf;
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(f->fd, p + done, len - done, (off_t)(off + done));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

static int64_t file_size(struct pp_io *io)
{
	struct pp_io_file *f = (struct pp_io_file *)io;
	struct stat st;

	if (fstat(f->fd, &st))
		return -errno;
	return st.st_size;
}

static int file_sync(struct pp_io *io)
{
	struct pp_io_file *f = (struct pp_io_file *)io;

	if (fdatasync(f->fd) && errno != EINVAL && errno != EROFS)
		return -errno;
	return 0;
}

static void file_close(struct pp_io *io)
{
	struct pp_io_file *f = (struct pp_io_file *)io;

	if (f->own && f->fd >= 0)
		close(f->fd);
}

static const struct pp_io_ops file_ops = {
	.write = file_write,
	.pread = file_pread,
	.size  = file_size,
	.sync  = file_sync,
	.close = file_close,
};

/**
 * pp_io_file__new() - I/O over a file descriptor.
 * @fd: descriptor; writes append at its current position.
 * @own: close @fd in pp_io__free().
 *
 * Return: new io (free with pp_io__free()), or NULL with errno set.
 */
struct pp_io *pp_io_file__new(int fd, int own)
{
	struct pp_io_file *f;

	if (fd < 0) {
		errno = EBADF;
		return NULL;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->io.ops = &file_ops;
	f->fd = fd;
	f->own = own;
	return &f->io;
}

static int mem_write(struct pp_io *io, const void *buf, size_t len)
{
	struct pp_io_mem *m = (struct pp_io_mem *)io;

	if (len > m->cap - m->len)
		return -ENOSPC;
	if (m->len + len > m->alloc) {
		size_t na = m->alloc ? m->alloc : 4096;
		uint8_t *nd;

		while (na < m->len + len)
			na *= 2;
		if (na > m->cap)
			na = m->cap;
		nd = realloc(m->data, na);
		if (!nd)
			return -ENOMEM;
		m->data = nd;
		m->alloc = na;
	}
	memcpy(m->data + m->len, buf, len);
	m->len += len;
	return 0;
}

static ssize_t mem_pread(struct pp_io *io, void *buf, size_t len, uint64_t off)
{
	struct pp_io_mem *m = (struct pp_io_mem *)io;

	if (off >= m->len)
		return 0;
	if (len > m->len - off)
		len = m->len - (size_t)off;
	memcpy(buf, m->data + off, len);
	return (ssize_t)len;
}

static int64_t mem_size(struct pp_io *io)
{
	return (int64_t)((struct pp_io_mem *)io)->len;
}

static int mem_sync(struct pp_io *io)
{
	return 0;
}

static void mem_close(struct pp_io *io)
{
	free(((struct pp_io_mem *)io)->data);
}

static const struct pp_io_ops mem_ops = {
	.write = mem_write,
	.pread = mem_pread,
	.size  = mem_size,
	.sync  = mem_sync,
	.close = mem_close,
};

/**
 * pp_io_mem__new() - I/O over a memory buffer.
 * @data: initial contents, copied (may be NULL).
 * @len: bytes of @data.
 * @cap: size limit; writes past it fail with -ENOSPC. 0 means 1 GiB.
 *
 * Return: new io, or NULL with errno set.
 */
struct pp_io *pp_io_mem__new(const void *data, size_t len, size_t cap)
{
	struct pp_io_mem *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->io.ops = &mem_ops;
	m->cap = cap ? cap : (size_t)1 << 30;
	if (len > m->cap)
		m->cap = len;
	if (len && mem_write(&m->io, data, len)) {
		free(m);
		errno = ENOMEM;
		return NULL;
	}
	return &m->io;
}

/**
 * pp_io_mem__data() - contents of a memory io.
 * @io: memory io.
 * @len: receives the length.
 *
 * Return: pointer valid until the next write or pp_io__free().
 */
const uint8_t *pp_io_mem__data(struct pp_io *io, size_t *len)
{
	struct pp_io_mem *m = (struct pp_io_mem *)io;

	*len = m->len;
	return m->data;
}

/** pp_io__write() - append; Return: 0 or the sticky -errno. */
int pp_io__write(struct pp_io *io, const void *buf, size_t len)
{
	int err;

	if (io->error)
		return io->error;
	err = io->ops->write(io, buf, len);
	if (err)
		io->error = err;
	return err;
}

/** pp_io__pread() - read at an offset; Return: bytes read (0 at end) or -errno. */
ssize_t pp_io__pread(struct pp_io *io, void *buf, size_t len, uint64_t off)
{
	return io->ops->pread(io, buf, len, off);
}

/** pp_io__size() - current size, or -errno. */
int64_t pp_io__size(struct pp_io *io)
{
	return io->ops->size(io);
}

/** pp_io__sync() - make appended data durable; Return: 0 or -errno (sticky). */
int pp_io__sync(struct pp_io *io)
{
	int err;

	if (io->error)
		return io->error;
	err = io->ops->sync(io);
	if (err)
		io->error = err;
	return err;
}

/** pp_io__error() - the sticky error, 0 if none. */
int pp_io__error(const struct pp_io *io)
{
	return io->error;
}

/** pp_io__free() - close the back-end and free; accepts NULL. */
void pp_io__free(struct pp_io *io)
{
	if (!io)
		return;
	io->ops->close(io);
	free(io);
}

/*
 * The chunk buffers and tables this is called for are touched whole soon
 * after: one call instead of a fault per page (a tenth of replaying a small
 * file, faults being slow in VMs). Kernels before 5.14 do not know the
 * advice: the pages then fault in as they are touched.
 */
void pp_prefault(void *p, size_t len)
{
#ifdef MADV_POPULATE_WRITE
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = ((uintptr_t)p + pg - 1) & ~(pg - 1), e = ((uintptr_t)p + len) & ~(pg - 1);

	if (e > a)
		madvise((void *)a, e - a, MADV_POPULATE_WRITE);
#else
	(void)p;
	(void)len;
#endif
}
