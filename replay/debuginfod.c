// SPDX-License-Identifier: MIT
/*
 * Debug files by build-id from debuginfod servers, through Debian's
 * libdebuginfod (elfutils): its client, its cache (~/.cache/debuginfod_client)
 * and its DEBUGINFOD_URLS, DEBUGINFOD_TIMEOUT, ... settings.
 *
 * pp-analyze is a static binary; the client is loaded with dlopen() when
 * first needed, as elfutils' own static libdw does it, so an analysis that
 * never asks costs nothing and a host without libdebuginfod still runs
 * (the lookup then fails once with one line).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay-internal.h"

struct debuginfod_client;

static struct {
	int state;		/* 0 not loaded, 1 loaded, -1 unavailable */
	void *lib;
	struct debuginfod_client *(*begin)(void);
	int (*find_debuginfo)(struct debuginfod_client *c, const unsigned char *bid, int len,
			      char **path);
	void (*end)(struct debuginfod_client *c);
	struct debuginfod_client *client;
} g_dbgd;

static int load(void)
{
	if (g_dbgd.state)
		return g_dbgd.state > 0 ? 0 : -ENOENT;
	g_dbgd.state = -1;
	g_dbgd.lib = dlopen("libdebuginfod.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!g_dbgd.lib) {
		fprintf(stderr, "pp-analyze: --debuginfod: cannot load libdebuginfod.so.1 "
			"(install libdebuginfod1): %s\n", dlerror());
		return -ENOENT;
	}
	*(void **)&g_dbgd.begin = dlsym(g_dbgd.lib, "debuginfod_begin");
	*(void **)&g_dbgd.find_debuginfo = dlsym(g_dbgd.lib, "debuginfod_find_debuginfo");
	*(void **)&g_dbgd.end = dlsym(g_dbgd.lib, "debuginfod_end");
	if (!g_dbgd.begin || !g_dbgd.find_debuginfo || !g_dbgd.end ||
	    !(g_dbgd.client = g_dbgd.begin())) {
		fprintf(stderr, "pp-analyze: --debuginfod: libdebuginfod.so.1 is not usable\n");
		return -ENOENT;
	}
	g_dbgd.state = 1;
	return 0;
}

/**
 * pp_debuginfod_find() - the debug file of build-id @bid from the servers
 * of DEBUGINFOD_URLS (downloaded into libdebuginfod's cache if needed).
 * @bid, @size: the build-id.
 *
 * Return: an open file descriptor of it (the caller closes it), or -errno
 * (-ENOENT: no server has it, or no client).
 */
int pp_debuginfod_find(const uint8_t *bid, int size)
{
	char *path = NULL;
	int fd;

	if (size <= 0 || !getenv("DEBUGINFOD_URLS") || !*getenv("DEBUGINFOD_URLS") || load())
		return -ENOENT;
	fd = g_dbgd.find_debuginfo(g_dbgd.client, bid, size, &path);
	free(path);
	return fd;
}

/**
 * pp_debuginfod_urls() - set the servers: --debuginfod=URLS.
 * @urls: space-separated URLs, or NULL/"" to keep $DEBUGINFOD_URLS.
 * Return: 0, or -EINVAL when neither gives a server.
 */
int pp_debuginfod_urls(const char *urls)
{
	if (urls && *urls)
		return setenv("DEBUGINFOD_URLS", urls, 1) ? -errno : 0;
	return getenv("DEBUGINFOD_URLS") && *getenv("DEBUGINFOD_URLS") ? 0 : -EINVAL;
}
