// SPDX-License-Identifier: MIT
/*
 * The output file of a recording (record/record.h, "the output file"):
 * locked against a second recorder of the same path, written to a
 * temporary next to it, and put in its place only once recording started.
 * One output per process: the state is what an exit handler must undo.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "record.h"

/* The temporary the recording goes to until it started: removed at any exit before. */
static char out_tmp[PATH_MAX];
/* FILE.lock, held (flock) from before the temporary exists until exit. */
static char out_lock[PATH_MAX];

void pp_output__cleanup(void)
{
	if (out_tmp[0])
		unlink(out_tmp);
	out_tmp[0] = '\0';
	/* unlinked while still locked: a recorder that opened it retries (lock_output()) */
	if (out_lock[0])
		unlink(out_lock);
	out_lock[0] = '\0';
}

/*
 * Two recorders with the same -o would both rename an existing FILE to
 * FILE.old and their temporaries to FILE: one recording and the previous
 * trace lost, both reporting success. Each holds an exclusive flock on
 * FILE.lock for its whole run, so a second one fails at once. The holder
 * removes the lock file at exit while it still holds the lock; one who
 * locked a removed file (its inode is no longer at the path) tries again.
 * A killed recorder's lock file stays, unlocked: the next one takes it.
 */
static int lock_output(const char *path, char *err, size_t len)
{
	char pid[32];
	int tries;

	snprintf(out_lock, sizeof(out_lock), "%s.lock", path);
	for (tries = 0; tries < 100; tries++) {
		int fd = open(out_lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600), n;
		struct stat a, b;

		if (fd < 0) {
			out_lock[0] = '\0';
			snprintf(err, len, "cannot create %s: %s", path, strerror(errno));	/* the user's name */
			return -1;
		}
		if (flock(fd, LOCK_EX | LOCK_NB)) {
			int e = errno;

			n = (int)pread(fd, pid, sizeof(pid) - 1, 0);
			pid[n > 0 ? n : 0] = '\0';
			pid[strcspn(pid, "\n")] = '\0';
			close(fd);
			out_lock[0] = '\0';
			if (e == EWOULDBLOCK)
				snprintf(err, len, "%s is being recorded by another pp-record%s%s%s", path,
					 *pid ? " (pid " : "", pid, *pid ? ")" : "");
			else
				snprintf(err, len, "cannot lock %s.lock: %s", path, strerror(e));
			return -1;
		}
		if (!fstat(fd, &a) && !lstat(out_lock, &b) && a.st_dev == b.st_dev &&
		    a.st_ino == b.st_ino) {
			n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
			/* the pid is only for the message of a second recorder */
			if (!ftruncate(fd, 0))
				n = (int)pwrite(fd, pid, (size_t)n, 0);
			return 0;	/* kept open, and so locked, until exit */
		}
		close(fd);	/* removed by its holder meanwhile */
	}
	out_lock[0] = '\0';
	snprintf(err, len, "cannot lock %s.lock", path);
	return -1;
}

int pp_output__create(const char *path, char *err, size_t len, int *usage)
{
	struct stat st;
	int fd = -1, tries;

	*usage = 1;
	if (strlen(path) + 16 >= sizeof(out_tmp)) {
		snprintf(err, len, "output path too long");
		return -1;
	}
	if (!lstat(path, &st) && S_ISDIR(st.st_mode)) {
		snprintf(err, len, "output '%s' is a directory", path);
		return -1;
	}
	*usage = 0;
	if (lock_output(path, err, len))
		return -1;
	for (tries = 0; tries < 100 && fd < 0; tries++) {
		snprintf(out_tmp, sizeof(out_tmp), "%s.tmp.%d.%x", path, (int)getpid(),
			 (unsigned int)random());
		fd = open(out_tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST) {
			out_tmp[0] = '\0';
			snprintf(err, len, "cannot create %s: %s", path, strerror(errno));
			return -1;
		}
	}
	if (fd < 0) {
		out_tmp[0] = '\0';
		snprintf(err, len, "cannot create a temporary file next to %s", path);
	}
	return fd;
}

int pp_output__commit(const char *path, char *err, size_t len)
{
	char old[PATH_MAX + 8];
	struct stat st;

	if (!lstat(path, &st)) {
		snprintf(old, sizeof(old), "%s.old", path);
		if (rename(path, old)) {
			snprintf(err, len, "cannot rename %s to %s: %s", path, old, strerror(errno));
			return -1;
		}
	}
	if (rename(out_tmp, path)) {
		snprintf(err, len, "cannot rename %s to %s: %s", out_tmp, path, strerror(errno));
		return -1;
	}
	out_tmp[0] = '\0';
	return 0;
}
