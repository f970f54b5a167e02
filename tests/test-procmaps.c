// SPDX-License-Identifier: MIT
/*
 * The reader of a process's executable file mappings (record/procmaps.c):
 * by PROCMAP_QUERY it gives exactly what the text of /proc/PID/maps gives,
 * mapping for mapping and path for path, for this process (its own binary,
 * libc, a library it loads) and for a child it forks; a process that is
 * gone gives nothing.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "../record/record.h"

struct seen {
	struct pp_exec_map m[512];
	char path[512][256];
	int n;
};

/* Return: whether the ioctl answered (not the text). */
static int read_all(uint32_t pid, int text, int paths, struct seen *s)
{
	int query;

	struct pp_procmaps it;

	memset(s, 0, sizeof(*s));
	assert_int_equal(pp_procmaps__open(&it, pid, text), 0);
	while (s->n < 512 && pp_procmaps__next(&it, &s->m[s->n])) {
		if (paths)
			snprintf(s->path[s->n], sizeof(s->path[0]), "%s", pp_procmaps__path(&it));
		s->n++;
	}
	query = it.query;
	pp_procmaps__close(&it);
	return query;
}

/* Linux 6.11 and later answer PROCMAP_QUERY: the ioctl must be the one used there. */
static int kernel_has_query(void)
{
	struct utsname u;
	int major = 0, minor = 0;

	return !uname(&u) && sscanf(u.release, "%d.%d", &major, &minor) == 2 &&
	       (major > 6 || (major == 6 && minor >= 11));
}

static void same(uint32_t pid)
{
	static struct seen t, q;
	int libc = 0;

	assert_int_equal(read_all(pid, 1, 1, &t), 0);
	assert_int_equal(read_all(pid, 0, 1, &q), kernel_has_query());
	assert_true(t.n >= 3);	/* the test, libc, ld.so at least */
	assert_int_equal(q.n, t.n);
	for (int i = 0; i < t.n; i++) {
		assert_int_equal(q.m[i].start, t.m[i].start);
		assert_int_equal(q.m[i].end, t.m[i].end);
		assert_int_equal(q.m[i].pgoff, t.m[i].pgoff);
		assert_int_equal(q.m[i].dev, t.m[i].dev);
		assert_int_equal(q.m[i].ino, t.m[i].ino);
		assert_string_equal(q.path[i], t.path[i]);
		libc += strstr(t.path[i], "/libc.so.6") != NULL;
	}
	assert_int_equal(libc, 1);
	/* the mappings without their paths: the same ranges */
	read_all(pid, 0, 0, &q);
	assert_int_equal(q.n, t.n);
	for (int i = 0; i < t.n; i++)
		assert_int_equal(q.m[i].start, t.m[i].start);
}

static void test_self(void **state)
{
	(void)state;
	same((uint32_t)getpid());
}

/* A library loaded now shows up in both, at the same place. */
static void test_dlopen(void **state)
{
	static struct seen t;
	void *h = dlopen("libz.so.1", RTLD_NOW);
	int found = 0;

	(void)state;
	assert_non_null(h);
	same((uint32_t)getpid());
	read_all((uint32_t)getpid(), 0, 1, &t);
	for (int i = 0; i < t.n; i++)
		found += strstr(t.path[i], "libz.so") != NULL;
	assert_int_equal(found, 1);
	dlclose(h);
}

static void test_child(void **state)
{
	int p[2];
	pid_t pid;
	char c;

	(void)state;
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		close(p[1]);
		if (read(p[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(p[0]);
	same((uint32_t)pid);
	close(p[1]);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
}

/* A process that is gone: open fails, or the reading ends at once. */
static void test_gone(void **state)
{
	struct pp_procmaps it;
	struct pp_exec_map m;
	pid_t pid = fork();

	(void)state;
	assert_true(pid >= 0);
	if (!pid)
		_exit(0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	for (int text = 0; text < 2; text++) {
		if (pp_procmaps__open(&it, (uint32_t)pid, text))
			continue;
		assert_int_equal(pp_procmaps__next(&it, &m), 0);
		pp_procmaps__close(&it);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_self),
		cmocka_unit_test(test_dlopen),
		cmocka_unit_test(test_child),
		cmocka_unit_test(test_gone),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
