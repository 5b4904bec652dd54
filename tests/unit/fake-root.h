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

#endif
