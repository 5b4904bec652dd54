/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Directory listings that another user cannot stall: getdents64() of
 * every directory in one bounded child (core/bounded.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/bounded.h"
#include "core/internal.h"
#include "dir-list.h"

/*
 * A listing: getdents64() in the child, whose records come back as they
 * are, a buffer a message, each after a header: 0 (more to come), 1 (the
 * end) or a negative errno.
 */
#define LIST_HEADER 8
#define LIST_BUFFER (32 * 1024)

struct list_args {
	const int *dirs;
	size_t n;
};

/*
 * The listings: getdents64() of each directory in the child, whose
 * records come back as they are, a buffer a message, each after a
 * header: the directory's index, and 0 (more to come), 1 (its end) or a
 * negative errno. One child for all: a child is most of the cost.
 */
static void list_work(const struct splitlock_ctx *ctx, void *arg, int sock)
{
	char buf[LIST_BUFFER] __attribute__((aligned(8)));
	const struct list_args *a = arg;

	(void)ctx;
	for (size_t i = 0; i < a->n; i++) {
		int32_t index = (int32_t)i;

		if (a->dirs[i] < 0)
			continue;
		memcpy(buf + 4, &index, sizeof(index));
		for (;;) {
			long n = syscall(SYS_getdents64, a->dirs[i], buf + LIST_HEADER,
					 sizeof(buf) - LIST_HEADER);
			int32_t status = n < 0 ? -errno : n == 0 ? 1 : 0;

			memcpy(buf, &status, sizeof(status));
			if (send(sock, buf, LIST_HEADER + (size_t)(n > 0 ? n : 0), MSG_NOSIGNAL) < 0)
				return;
			if (status)
				break;
		}
	}
}

static int add_name(char ***list, size_t *n, size_t *cap, const char *name)
{
	if (*n == *cap) {
		size_t ncap = *cap ? 2 * *cap : 16;
		char **grown = realloc(*list, ncap * sizeof(**list));

		if (!grown)
			return -ENOMEM;
		*list = grown;
		*cap = ncap;
	}
	(*list)[*n] = strdup(name);
	if (!(*list)[*n])
		return -ENOMEM;
	(*n)++;
	return 0;
}

/* The names of one buffer of linux_dirent64 records that @keep accepts. */
static int add_records(const char *buf, ssize_t len, bool (*keep)(const char *name, void *data),
		       void *data, char ***list, size_t *n, size_t *cap)
{
	int r = 0;

	for (ssize_t off = 0; r == 0 && off + 19 < len;) {
		unsigned short reclen;
		const char *name = buf + off + 19;

		memcpy(&reclen, buf + off + 16, sizeof(reclen));
		if (reclen < 20 || off + reclen > len || !memchr(name, '\0', reclen - 19U))
			return -EIO;
		off += reclen;
		if (streq(name, ".") || streq(name, "..") || (keep && !keep(name, data)))
			continue;
		r = add_name(list, n, cap, name);
	}
	return r;
}

struct listing {
	char **list;
	size_t n, cap;
	int r;           /* 0, or a negative errno */
	bool done;
};

/*
 * getdents64() takes the directory's lock shared, always (no cache), and
 * any user who can read the directory can hold it, with a mkdir() queued
 * behind it: root's status, mitigate and mode waited in the listings of
 * /etc/sysctl.d, /usr/lib/sysctl.d, /etc/default/grub.d and
 * /boot/loader/entries (ninth review). A directory that only its owner,
 * we, can read is listed here; the others in one bounded child.
 */
int sl_dir_lists_bounded(const struct splitlock_ctx *ctx, const char *const *paths, int *dirs,
			 size_t n_dirs, bool (*keep)(const char *name, void *data), void *data,
			 char ***names, int *counts)
{
	struct listing *l = calloc(n_dirs ? n_dirs : 1, sizeof(*l));
	struct list_args a = { dirs, n_dirs };
	struct bounded b = { .action = "listing" };
	size_t left = 0;
	char *buf = NULL;
	bool started = false;
	int r = 0;

	if (!l)
		r = -ENOMEM;
	for (size_t i = 0; r == 0 && i < n_dirs; i++) {
		struct stat st;

		names[i] = NULL;
		if (dirs[i] < 0) {
			l[i].done = true;
			l[i].r = dirs[i];
		} else if (fstat(dirs[i], &st) == 0 && st.st_uid == geteuid() &&
			   !(st.st_mode & (S_IRGRP | S_IROTH))) {
			int m = dir_list(dirs[i], keep, data, &l[i].list);

			dirs[i] = -1;
			l[i].done = true;
			l[i].r = m < 0 ? m : 0;
			l[i].n = m < 0 ? 0 : (size_t)m;
		} else {
			left++;
		}
	}
	if (r == 0 && left) {
		buf = malloc(LIST_BUFFER);
		r = !buf ? -ENOMEM : n_dirs > BOUNDED_MAX_FDS ? -E2BIG :
		    sl_bounded_start(ctx, paths[0], list_work, &a, dirs, n_dirs, &b);
		started = r == 0;
		if (r == -EAGAIN)
			r = -ETIMEDOUT;
	}
	for (size_t i = 0; r == -EAFNOSUPPORT && i < n_dirs; i++) {
		int m;

		if (l[i].done)
			continue;
		m = dir_list(dirs[i], keep, data, &l[i].list);
		dirs[i] = -1;
		l[i].done = true;
		l[i].r = m < 0 ? m : 0;
		l[i].n = m < 0 ? 0 : (size_t)m;
		if (--left == 0)
			r = 0;
	}
	while (r == 0 && left) {
		int32_t status, index;
		size_t cur = 0;
		ssize_t len;

		while (l[cur].done)
			cur++;
		r = sl_bounded_wait(ctx, paths[cur], &b);
		if (r < 0)
			break;
		len = recv(b.sock, buf, LIST_BUFFER, 0);
		if (len < LIST_HEADER) {
			r = len < 0 ? -errno : -EIO;
			break;
		}
		memcpy(&status, buf, sizeof(status));
		memcpy(&index, buf + 4, sizeof(index));
		if (index < 0 || (size_t)index >= n_dirs || l[index].done) {
			r = -EIO;
			break;
		}
		if (status < 0) {
			l[index].r = status;
		} else {
			int e = add_records(buf + LIST_HEADER, len - LIST_HEADER, keep, data,
					    &l[index].list, &l[index].n, &l[index].cap);

			if (e == -ENOMEM) {
				r = e;
				break;
			}
			if (e < 0)
				l[index].r = e;
		}
		if (status != 0) {
			l[index].done = true;
			left--;
		}
	}
	if (started)
		sl_bounded_end(ctx, paths[0], &b);
	free(buf);
	for (size_t i = 0; i < n_dirs; i++) {
		if (dirs[i] >= 0)
			close(dirs[i]);
		dirs[i] = -1;
	}
	for (size_t i = 0; l && i < n_dirs; i++) {
		if (r < 0 || l[i].r < 0 || l[i].n > (size_t)INT32_MAX) {
			dir_list_free(l[i].list, l[i].n);
			counts[i] = r < 0 ? r : l[i].r < 0 ? l[i].r : -EOVERFLOW;
			continue;
		}
		if (l[i].n)
			qsort(l[i].list, l[i].n, sizeof(*l[i].list), dir_list_cmp);
		names[i] = l[i].list;
		counts[i] = (int)l[i].n;
	}
	free(l);
	return r;
}

int sl_dir_list_bounded(const struct splitlock_ctx *ctx, const char *path, int dir,
			bool (*keep)(const char *name, void *data), void *data, char ***names)
{
	int count, r = sl_dir_lists_bounded(ctx, &path, &dir, 1, keep, data, names, &count);

	return r < 0 ? r : count;
}
