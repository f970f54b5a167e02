// SPDX-License-Identifier: MIT
/*
 * The live source: the module's events opened on this host's per-CPU rings
 * (include/pp/perf.h), merged and dispatched like a file's records.
 */
#include <errno.h>
#include <stdio.h>
#include "replay-internal.h"

/**
 * pp_live__open() - open the module's events on the local rings.
 * @s: session.
 * Return: 0 or -errno.
 */
int pp_live__open(struct pp_session *s)
{
	fprintf(stderr, "pp-analyze: --live is not available in this build yet\n");
	return -EOPNOTSUPP;
}

/**
 * pp_live__run() - read the rings until stopped.
 * @s: session.
 * Return: 0 or -errno.
 */
int pp_live__run(struct pp_session *s)
{
	return -EOPNOTSUPP;
}

/**
 * pp_live__free() - close the rings; fine if never opened.
 * @s: session.
 */
void pp_live__free(struct pp_session *s)
{
}

/**
 * pp_session__open_live() - open the module's events on this host's rings.
 * @s: session.
 * Return: 0 or -errno.
 */
int pp_session__open_live(struct pp_session *s)
{
	return pp_live__open(s);
}
