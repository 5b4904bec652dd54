/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Files of a small fake root for the unit tests that drive the public API
 * under --root: the test fills @root (mkdtemp) and writes and reads files
 * by their path inside it.
 */
#ifndef SLCTL_FAKE_ROOT_H
#define SLCTL_FAKE_ROOT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "libsplitlock.h"

static char root[64];

/* Writes @text to @path under the root, creating the directories on the way. */
static void put(const char *path, const char *text)
{
	char full[256], *slash;
	FILE *f;

	snprintf(full, sizeof(full), "%s%s", root, path);
	for (slash = strchr(full + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(full, 0755);
		*slash = '/';
	}
	f = fopen(full, "w");
	if (!f)
		abort();
	fputs(text, f);
	fclose(f);
}

/* @path's text under the root (up to 4 KiB, until the next call), or NULL. */
static __attribute__((unused)) char *get(const char *path)
{
	static char buf[4096];
	char full[256];
	FILE *f;
	size_t n;

	snprintf(full, sizeof(full), "%s%s", root, path);
	f = fopen(full, "r");
	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* A new empty root, /tmp/slctl-test-@name-XXXXXX. */
static __attribute__((unused)) void fake_root_make(const char *name)
{
	snprintf(root, sizeof(root), "/tmp/slctl-test-%s-XXXXXX", name);
	if (!mkdtemp(root))
		abort();
}

/* A context on the root that logs nothing. */
static __attribute__((unused)) struct splitlock_ctx *fake_root_ctx(void)
{
	struct splitlock_ctx *ctx = splitlock_new(root);

	if (!ctx)
		abort();
	splitlock_set_log_priority(ctx, 0);
	return ctx;
}

/* The root and all in it, gone. */
static __attribute__((unused)) void fake_root_remove(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		abort();
}

#endif
