// SPDX-License-Identifier: MIT
/*
 * syms-bench - the recorder's user-symbol work, timed alone.
 *
 * What pp-record does when a stack recording starts: the /proc snapshot
 * (maps and build-ids), then samples that hit every executable map (each
 * DSO's symbol table read, the first lookups scanned, the rest after a
 * sort), then the USYMS items. The bench maps every shared library of
 * DIR (executable, as the loader would) into itself and samples only itself,
 * so the work does not depend on what else runs. Each round uses a new
 * collector; the page cache is warm after the first.
 *
 * usage: syms-bench [ROUNDS] [HITS_PER_MAP] [DIR]
 */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "pp/meta.h"
#include "pp/sample.h"
#include "../../record/record.h"

#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID)

static uint64_t st_of(uint64_t id, void *ctx)
{
	return ST;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One user sample of @pid at @ip. */
static void put_sample(struct pp_buf *b, uint32_t pid, uint64_t ip)
{
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 32 };
	uint64_t id = 1;

	pp_buf__append(b, &h, sizeof(h));
	pp_buf__append(b, &id, 8);
	pp_buf__append(b, &ip, 8);
	pp_buf__append(b, &pid, 4);
	pp_buf__append(b, &pid, 4);
}

/* Map every ELF shared library (*.so*) of @dir, whole and executable. Return: how many. */
static int map_libs(const char *dir)
{
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, alphasort), nr = 0;

	for (int i = 0; i < n; i++) {
		char path[4096], magic[4];
		struct stat st;
		int fd;

		if (fnmatch("*.so*", ents[i]->d_name, 0))
			goto next;
		snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			goto next;
		if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 4096 &&
		    pread(fd, magic, 4, 0) == 4 && !memcmp(magic, "\177ELF", 4) &&
		    mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) != MAP_FAILED)
			nr++;
		close(fd);
next:
		free(ents[i]);
	}
	free(ents);
	return nr;
}

/* Samples spread over every executable file map of this process. */
static void make_samples(struct pp_buf *b, int hits)
{
	char line[4608];
	uint32_t pid = (uint32_t)getpid();
	FILE *f = fopen("/proc/self/maps", "re");

	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi;
		char perm[8];

		if (sscanf(line, "%llx-%llx %7s", &lo, &hi, perm) != 3 || perm[2] != 'x' ||
		    !strchr(line, '/'))
			continue;
		for (int i = 0; i < hits; i++)
			put_sample(b, pid, lo + (hi - lo) / (uint64_t)hits * (uint64_t)i);
	}
	if (f)
		fclose(f);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 10, hits = argc > 2 ? atoi(argv[2]) : 64;
	const char *dir = argc > 3 ? argv[3] : "/usr/lib/x86_64-linux-gnu";
	pid_t self = getpid();
	int nlibs = map_libs(dir);
	double best[3] = { 1e9, 1e9, 1e9 }, sum[3] = { 0 };
	struct pp_buf samples;
	size_t usyms_len = 0;

	pp_buf__init(&samples);
	make_samples(&samples, hits);
	for (int r = 0; r < rounds; r++) {
		struct pp_syms *s = pp_syms__new(0);
		struct pp_buf tasks, mmaps, ksyms, usyms;
		double t0, t1, t2, t3;

		pp_buf__init(&tasks);
		pp_buf__init(&mmaps);
		pp_buf__init(&ksyms);
		pp_buf__init(&usyms);
		t0 = now();
		pp_syms__snapshot(s, &tasks, &mmaps, &self, 1);
		t1 = now();
		pp_syms__scan(s, samples.data, samples.len, st_of, NULL);
		t2 = now();
		pp_syms__pending(s, &ksyms, &usyms, &mmaps);
		t3 = now();
		double t[3] = { t1 - t0, t2 - t1, t3 - t2 };

		for (int i = 0; i < 3; i++) {
			sum[i] += t[i];
			if (t[i] < best[i])
				best[i] = t[i];
		}
		usyms_len = usyms.len;
		pp_buf__exit(&tasks);
		pp_buf__exit(&mmaps);
		pp_buf__exit(&ksyms);
		pp_buf__exit(&usyms);
		pp_syms__free(s);
	}
	printf("libraries %d, samples %zu, USYMS bytes %zu\n", nlibs, samples.len / 32, usyms_len);
	printf("%-10s %10s %10s\n", "phase", "best ms", "mean ms");
	const char *names[3] = { "snapshot", "scan", "pending" };

	for (int i = 0; i < 3; i++)
		printf("%-10s %10.2f %10.2f\n", names[i], best[i] * 1e3, sum[i] / rounds * 1e3);
	pp_buf__exit(&samples);
	return 0;
}
