/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a regeneration tool changed: the identity (inode, size, mtime) of
 * every entry under a few directories before it runs and after it failed.
 * slctl cannot undo what a tool did to files it did not plan to write
 * (grub.cfg regenerated, a boot entry added by kernel-install with
 * /etc/kernel/tries), but it can say exactly which ones they are.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <sys/stat.h>

#include "boot/boot.h"

/* Enough for /boot and the ESP of any real system, bounded for a hostile one. */
#define SCAN_MAX_ENTRIES 100000
#define SCAN_MAX_DEPTH 8

struct scan_entry {
	char *path;
	mode_t type;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
};

struct sl_tree_scan {
	struct scan_entry *v;
	size_t n, cap;
};

static bool ignored(const char *name)
{
	size_t len = strlen(name), slen = strlen(SL_BACKUP_SUFFIX);

	/* Our own temporaries and backups come and go with every run. */
	return startswith(name, ".#") ||
	       (len > slen && streq(name + len - slen, SL_BACKUP_SUFFIX));
}

static int add(struct sl_tree_scan *s, const char *path, const struct stat *st)
{
	if (s->n == SCAN_MAX_ENTRIES)
		return -E2BIG;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		struct scan_entry *bigger = realloc(s->v, cap * sizeof(*bigger));

		if (!bigger)
			return -ENOMEM;
		s->v = bigger;
		s->cap = cap;
	}
	s->v[s->n] = (struct scan_entry){
		.path = strdup(path), .type = st->st_mode & S_IFMT, .dev = st->st_dev,
		.ino = st->st_ino, .size = st->st_size, .mtime = st->st_mtim,
	};
	if (!s->v[s->n].path)
		return -ENOMEM;
	s->n++;
	return 0;
}

/* An entry as the child sends it: the identity, then the path. */
struct wire_entry {
	uint32_t type;
	uint64_t dev, ino;
	int64_t size, mtime_sec, mtime_nsec;
};

static int emit_entry(struct sl_emitter *e, const char *path, const struct stat *st)
{
	char msg[sizeof(struct wire_entry) + PATH_MAX];
	struct wire_entry w = {
		.type = st->st_mode & S_IFMT, .dev = st->st_dev, .ino = st->st_ino,
		.size = st->st_size, .mtime_sec = st->st_mtim.tv_sec,
		.mtime_nsec = st->st_mtim.tv_nsec,
	};
	size_t n = strlen(path);

	if (n >= PATH_MAX)
		return -ENAMETOOLONG;
	memcpy(msg, &w, sizeof(w));
	memcpy(msg + sizeof(w), path, n);
	return sl_emit(e, msg, sizeof(w) + n);
}

static int take_entry(void *data, const void *msg, size_t len)
{
	_cleanup_free_ char *path = NULL;
	struct wire_entry w;
	struct stat st = { 0 };

	if (len <= sizeof(w))
		return -EIO;
	memcpy(&w, msg, sizeof(w));
	path = strndup((const char *)msg + sizeof(w), len - sizeof(w));
	if (!path)
		return -ENOMEM;
	st.st_mode = w.type;
	st.st_dev = w.dev;
	st.st_ino = w.ino;
	st.st_size = w.size;
	st.st_mtim.tv_sec = w.mtime_sec;
	st.st_mtim.tv_nsec = w.mtime_nsec;
	return add(data, path, &st);
}

static int walk(struct sl_emitter *e, int dfd, const char *path, int depth)
{
	DIR *dir = fdopendir(dfd);
	struct dirent *de;
	int r = 0;

	if (!dir) {
		close(dfd);
		return -errno;
	}
	while (r == 0 && (de = readdir(dir))) {
		_cleanup_free_ char *child = NULL;
		struct stat st;

		if (streq(de->d_name, ".") || streq(de->d_name, "..") || ignored(de->d_name))
			continue;
		if (fstatat(dirfd(dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (asprintf(&child, "%s/%s", path, de->d_name) < 0) {
			r = -ENOMEM;
			break;
		}
		r = emit_entry(e, child, &st);
		if (r == 0 && S_ISDIR(st.st_mode) && depth < SCAN_MAX_DEPTH) {
			int sub = openat(dirfd(dir), de->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (sub >= 0)
				r = walk(e, sub, child, depth + 1);
		}
	}
	closedir(dir);
	return r;
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct scan_entry *)a)->path,
		      ((const struct scan_entry *)b)->path);
}

static int scan_work(struct splitlock_ctx *ctx, void *arg, struct sl_emitter *e)
{
	const char *const *dirs = arg;
	int r = 0;

	for (size_t i = 0; r == 0 && dirs[i]; i++) {
		int fd = sl_open_dir(ctx, dirs[i]);

		if (fd >= 0)
			r = walk(e, fd, dirs[i], 0);
	}
	return r;
}

/*
 * The walk is made in a bounded child (tenth review): /boot/grub, the
 * ESP and /etc/kernel's drop-in directories are readable by every user,
 * who could hold one with a mkdir queued, and root's mode --persist
 * waited there, its new configuration written and the tool not run,
 * until ^C left it half-applied. A scan that stalls now fails, and the
 * caller undoes what it wrote.
 */
int sl_tree_scan(struct splitlock_ctx *ctx, const char *const *dirs,
		 struct sl_tree_scan **out)
{
	struct sl_tree_scan *s = calloc(1, sizeof(*s));
	int r;

	if (!s)
		return -ENOMEM;
	r = sl_run_bounded(ctx, dirs[0] ? dirs[0] : "/", "scan", scan_work, (void *)dirs,
			   take_entry, s);
	if (r < 0) {
		sl_tree_scan_free(s);
		return r;
	}
	if (s->n)
		qsort(s->v, s->n, sizeof(*s->v), cmp_entry);
	*out = s;
	return 0;
}

void sl_tree_scan_free(struct sl_tree_scan *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].path);
	free(s->v);
	free(s);
}

static bool same(const struct scan_entry *a, const struct scan_entry *b)
{
	return a->type == b->type && a->dev == b->dev && a->ino == b->ino &&
	       a->size == b->size && a->mtime.tv_sec == b->mtime.tv_sec &&
	       a->mtime.tv_nsec == b->mtime.tv_nsec;
}

int sl_tree_scan_diff(const struct sl_tree_scan *before, const struct sl_tree_scan *after,
		      int (*fn)(void *data, const char *path, enum splitlock_boot_leftover kind),
		      void *data)
{
	size_t i = 0, k = 0;
	int r = 0;

	/* Both are sorted: one merge pass. Directories only count when new or gone. */
	while (r == 0 && (i < before->n || k < after->n)) {
		int c = i == before->n ? 1 : k == after->n ? -1 :
			strcmp(before->v[i].path, after->v[k].path);

		if (c < 0) {
			r = fn(data, before->v[i].path, SPLITLOCK_LEFTOVER_REMOVED);
			i++;
		} else if (c > 0) {
			r = fn(data, after->v[k].path, SPLITLOCK_LEFTOVER_CREATED);
			k++;
		} else {
			if (!same(&before->v[i], &after->v[k]) && after->v[k].type != S_IFDIR)
				r = fn(data, after->v[k].path, SPLITLOCK_LEFTOVER_REWRITTEN);
			i++;
			k++;
		}
	}
	return r;
}
