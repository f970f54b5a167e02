// SPDX-License-Identifier: MIT
/*
 * A process's executable file mappings, from /proc/PID/maps: by the
 * PROCMAP_QUERY ioctl where the kernel has it (Linux 6.11+), which hands
 * over only the mappings asked for (executable, file-backed) and their
 * path only when asked; else by parsing the text, every mapping formatted
 * with its path. A process of 300 mappings of which 40 run code costs the
 * table thread 40 small queries instead of 300 lines (spec/pp-record.md,
 * "Unwind tables").
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "record.h"

/* The ioctl's ABI (uapi linux/fs.h, 6.11), which older headers lack. */
struct pp_procmap_query {
	uint64_t size;
	uint64_t query_flags;
	uint64_t query_addr;
	uint64_t vma_start;
	uint64_t vma_end;
	uint64_t vma_flags;
	uint64_t vma_page_size;
	uint64_t vma_offset;
	uint64_t inode;
	uint32_t dev_major;
	uint32_t dev_minor;
	uint32_t vma_name_size;
	uint32_t build_id_size;
	uint64_t vma_name_addr;
	uint64_t build_id_addr;
};
_Static_assert(sizeof(struct pp_procmap_query) == 104, "struct procmap_query");

#define PP_PROCMAP_QUERY	_IOWR('f', 17, struct pp_procmap_query)
#define PP_PMQ_EXECUTABLE	0x04
#define PP_PMQ_COVERING_OR_NEXT	0x10
#define PP_PMQ_FILE_BACKED	0x20

/*
 * One line of /proc/PID/maps: its range, offset, device (major << 32 |
 * minor), inode and path, when it maps a file executable. Return: 0, or -1.
 */
static int pp_exec_map_line(const char *line, unsigned long long *start, unsigned long long *end,
		     unsigned long long *pgoff, uint64_t *dev, uint64_t *ino, char *path,
		     size_t size)
{
	unsigned long long inode;
	unsigned int maj, min;
	char perms[8];
	int n = 0;

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", start, end, perms, pgoff, &maj, &min,
		   &inode, &n) < 7 || perms[2] != 'x' || line[n] != '/')
		return -1;
	if (dev)
		*dev = ((uint64_t)maj << 32) | min;
	if (ino)
		*ino = inode;
	snprintf(path, size, "%s", line + n);
	path[strcspn(path, "\n")] = 0;
	return 0;
}

static int query(struct pp_procmaps *it, uint64_t addr, uint64_t flags, char *name,
		 size_t size, struct pp_procmap_query *q)
{
	memset(q, 0, sizeof(*q));
	q->size = sizeof(*q);
	q->query_flags = PP_PMQ_EXECUTABLE | PP_PMQ_FILE_BACKED | flags;
	q->query_addr = addr;
	if (name) {
		q->vma_name_addr = (uint64_t)(uintptr_t)name;
		q->vma_name_size = (uint32_t)size;
	}
	return ioctl(it->fd, PP_PROCMAP_QUERY, q) ? -errno : 0;
}

/* See record/record.h. */
int pp_procmaps__open(struct pp_procmaps *it, uint32_t pid, int text)
{
	char name[64];

	memset(it, 0, sizeof(*it));
	snprintf(name, sizeof(name), "/proc/%u/maps", pid);
	it->fd = open(name, O_RDONLY | O_CLOEXEC);
	if (it->fd < 0)
		return -errno;
	it->query = !text;
	return 0;
}

/* The text, from where it stands: the next executable file mapping's line. */
static int next_line(struct pp_procmaps *it, struct pp_exec_map *m)
{
	if (!it->f && !(it->f = fdopen(it->fd, "re")))
		return 0;
	while (fgets(it->line, sizeof(it->line), it->f))
		if (!pp_exec_map_line(it->line, &m->start, &m->end, &m->pgoff, &m->dev, &m->ino,
				      it->path, sizeof(it->path)))
			return 1;
	return 0;
}

/* See record/record.h. */
int pp_procmaps__next(struct pp_procmaps *it, struct pp_exec_map *m)
{
	struct pp_procmap_query q;
	int ret;

	it->have_path = 0;
	if (it->fd < 0)
		return 0;
	if (!it->query) {
		it->have_path = next_line(it, m);
		return it->have_path;
	}
	ret = query(it, it->next, PP_PMQ_COVERING_OR_NEXT, NULL, 0, &q);
	if (ret == -ENOTTY || ret == -EINVAL) {	/* before 6.11: the text */
		it->query = 0;
		return pp_procmaps__next(it, m);
	}
	if (ret)	/* -ENOENT: no more; -ESRCH: the process is gone */
		return 0;
	m->start = q.vma_start;
	m->end = q.vma_end;
	m->pgoff = q.vma_offset;
	m->dev = ((uint64_t)q.dev_major << 32) | q.dev_minor;
	m->ino = q.inode;
	it->cur = q.vma_start;
	it->next = q.vma_end;
	return 1;
}

/* See record/record.h. */
const char *pp_procmaps__path(struct pp_procmaps *it)
{
	struct pp_procmap_query q;

	if (!it->have_path) {
		it->path[0] = 0;
		if (it->query && !query(it, it->cur, 0, it->path, sizeof(it->path), &q) &&
		    q.vma_start == it->cur && q.vma_name_size)
			it->have_path = 1;
		else
			it->path[0] = 0;
	}
	return it->path;
}

/* See record/record.h. */
void pp_procmaps__close(struct pp_procmaps *it)
{
	if (it->f)
		fclose(it->f);
	else if (it->fd >= 0)
		close(it->fd);
	it->f = NULL;
	it->fd = -1;
}
