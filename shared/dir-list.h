/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Directory listing: the names in a directory that a filter accepts,
 * sorted bytewise (the order systemd, GRUB and kernel-install apply .d
 * files in). The caller opens the directory under the context's root.
 */
#ifndef SPLITLOCK_SHARED_DIR_LIST_H
#define SPLITLOCK_SHARED_DIR_LIST_H

#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "macro.h"

static inline void dir_list_free(char **names, size_t n)
{
	for (size_t i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
}

static inline int dir_list_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Names in the directory open at @dirfd (which is consumed: closed in any
 * case) for which @keep (NULL: all but "." and "..") returns true, sorted.
 * Returns the count with *@names malloc'ed (free with dir_list_free()), or
 * a negative errno and *@names NULL.
 */
static inline int dir_list(int dirfd, bool (*keep)(const char *name, void *data),
			   void *data, char ***names)
{
	DIR *dir = fdopendir(dirfd);
	char **list = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	int r = 0;

	*names = NULL;
	if (!dir) {
		r = -errno;
		close(dirfd);
		return r;
	}
	for (;;) {
		errno = 0;
		de = readdir(dir);
		if (!de) {
			r = errno ? -errno : 0;
			break;
		}
		if (streq(de->d_name, ".") || streq(de->d_name, ".."))
			continue;
		if (keep && !keep(de->d_name, data))
			continue;
		if (n == cap) {
			size_t ncap = cap ? 2 * cap : 16;
			char **grown = realloc(list, ncap * sizeof(*list));

			if (!grown) {
				r = -ENOMEM;
				break;
			}
			list = grown;
			cap = ncap;
		}
		list[n] = strdup(de->d_name);
		if (!list[n]) {
			r = -ENOMEM;
			break;
		}
		n++;
	}
	closedir(dir);
	if (r < 0 || n > (size_t)INT32_MAX) {
		dir_list_free(list, n);
		return r < 0 ? r : -EOVERFLOW;
	}
	if (n)
		qsort(list, n, sizeof(*list), dir_list_cmp);
	*names = list;
	return (int)n;
}

#endif
