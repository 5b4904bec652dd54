/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Reading small files whole, and replacing files atomically. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/xattr.h>

#include "dir-list.h"
#include "core/internal.h"

int sl_read_fd(int fd, size_t max, char **out, size_t *len)
{
	size_t size = 4096, used = 0;
	char *buf = malloc(size);

	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t n;

		if (used + 1 >= size) {
			char *bigger;

			if (size >= max + 1) {
				free(buf);
				return -EFBIG;
			}
			size = size * 2 > max + 1 ? max + 1 : size * 2;
			bigger = realloc(buf, size);
			if (!bigger) {
				free(buf);
				return -ENOMEM;
			}
			buf = bigger;
		}
		n = read(fd, buf + used, size - used - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			free(buf);
			return -errno;
		}
		if (n == 0)
			break;
		used += (size_t)n;
	}
	buf[used] = '\0';
	*out = buf;
	if (len)
		*len = used;
	return 0;
}

static const char *file_type(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFIFO: return "a FIFO";
	case S_IFSOCK: return "a socket";
	case S_IFCHR: return "a character device";
	case S_IFBLK: return "a block device";
	default: return "not a regular file";
	}
}

/*
 * Open a file to read it whole, refusing what is not a plain file, with the
 * errnos of systemd's stat_verify_regular() (src/basic/stat-util.c): a
 * symlink at the last component is not followed (-ELOOP), a directory is
 * -EISDIR, a FIFO, socket or device -EBADFD. O_NONBLOCK keeps open() from
 * waiting for a writer at a FIFO, which would hang even `slctl status`.
 * @follow lets the last component be a symlink, still resolved inside the
 * root, for readers that must see what a tool following links sees.
 */
int sl_open_regular(const struct splitlock_ctx *ctx, const char *path, bool follow)
{
	struct stat st;
	int fd = sl_open(ctx, path, O_RDONLY | O_NOCTTY | O_NONBLOCK |
			 (follow ? 0 : O_NOFOLLOW), 0);

	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	if (S_ISREG(st.st_mode))
		return fd;
	close(fd);
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	sl_err(ctx, "%s is %s; it was not read", path, file_type(st.st_mode));
	return -EBADFD;
}

int sl_read_file(const struct splitlock_ctx *ctx, const char *path,
		 size_t max, char **out, size_t *len)
{
	_cleanup_close_ int fd = sl_open_regular(ctx, path, false);

	if (fd < 0)
		return fd;
	return sl_read_fd(fd, max, out, len);
}

/* First line of a small file (sysfs, procfs), without the newline. */
int sl_read_line(const struct splitlock_ctx *ctx, const char *path,
		 char *buf, size_t size)
{
	_cleanup_close_ int fd = sl_open_regular(ctx, path, false);
	ssize_t n;
	char *nl;

	if (fd < 0)
		return fd;
	do
		n = read(fd, buf, size - 1);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	return 0;
}

static int write_all(int fd, const char *data, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, data, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

/* ".#NAME." and 8 hex digits: a temporary file of ours. */
static bool is_temporary_of(const char *entry, void *prefix)
{
	return startswith(entry, prefix) && strlen(entry) == strlen(prefix) + 8;
}

/*
 * A temporary file is in use while its writer holds a flock on it (from
 * its create until after the rename); one that nobody holds was left by a
 * writer that was killed. Nobody's lock on the directory is involved: a
 * directory such as /etc/sysctl.d can be opened, and so flocked, by every
 * user, who could then hang root's writers. A writer that finds its new
 * file taken by a sweeper first lets it go (write_file()); a user who
 * flocks a temporary file (readable once it has the target's mode) only
 * keeps it from being swept, never blocks anyone: every flock here is
 * non-blocking.
 */
void sl_remove_stale_temporary(int dirfd, const char *entry)
{
	_cleanup_close_ int fd = openat(dirfd, entry, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
					O_NOCTTY | O_CLOEXEC);
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0)
		return;
	unlinkat(dirfd, entry, 0);
}

/* Temporary files of ours that a killed run left behind. */
static void remove_stale_temporaries(int dirfd, const char *name)
{
	char prefix[NAME_MAX + 1], **stale = NULL;
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), n;

	snprintf(prefix, sizeof(prefix), ".#%.200s.", name);
	if (fd < 0)
		return;
	n = dir_list(fd, is_temporary_of, prefix, &stale);
	for (int i = 0; i < n; i++)
		sl_remove_stale_temporary(dirfd, stale[i]);
	dir_list_free(stale, n > 0 ? (size_t)n : 0);
}

/*
 * Replace @name in @dirfd with @data so that a reader, a crash or a full disk
 * sees the old file or the new one, never a mix: write a temporary file in
 * the same directory, fsync it, rename it over the target, fsync the
 * directory. A symlink at @name is refused, never followed or replaced.
 * An existing file keeps its mode, owner, group and extended attributes
 * (ACLs, SELinux label); a new one gets @mode, whatever the umask.
 * Concurrent writers of one file need no turns: each renames a whole file
 * of its own, and the last rename wins.
 */
static int write_file(int dirfd, const char *name, const char *data,
		      size_t len, mode_t mode, const char *like);

static int write_at(int dirfd, const char *name, const char *data, size_t len,
		    mode_t mode, const char *like)
{
	remove_stale_temporaries(dirfd, name);
	return write_file(dirfd, name, data, len, mode, like);
}

int sl_write_file_atomic_at(int dirfd, const char *name, const char *data,
			    size_t len, mode_t mode)
{
	return write_at(dirfd, name, data, len, mode, NULL);
}

/*
 * Every extended attribute of @from onto @to: the SELinux label
 * (security.selinux), POSIX ACLs (system.posix_acl_access), capabilities,
 * user.* attributes. A replaced file must be the same file to everyone who
 * checks it; one we cannot copy fails the write rather than lose it.
 */
static int copy_xattrs(int from, int to)
{
	_cleanup_free_ char *names = NULL, *value = NULL;
	ssize_t n = flistxattr(from, NULL, 0);
	size_t cap = 0;

	if (n < 0)
		return errno == ENOTSUP ? 0 : -errno;
	if (n == 0)
		return 0;
	names = malloc((size_t)n);
	if (!names)
		return -ENOMEM;
	n = flistxattr(from, names, (size_t)n);
	if (n < 0)
		return -errno;
	for (const char *name = names; name < names + n; name += strlen(name) + 1) {
		ssize_t size = fgetxattr(from, name, NULL, 0);

		if (size < 0)
			return -errno;
		if ((size_t)size + 1 > cap) {
			char *bigger = realloc(value, (size_t)size + 1);

			if (!bigger)
				return -ENOMEM;
			value = bigger;
			cap = (size_t)size + 1;
		}
		size = fgetxattr(from, name, value, cap);
		if (size < 0)
			return -errno;
		if (fsetxattr(to, name, value, (size_t)size, 0) < 0)
			return -errno;
	}
	return 0;
}

/*
 * The temporary file @fd becomes the same file as @name was, apart from its
 * bytes: owner and group first (chown clears set-id bits), then the
 * attributes (an ACL rewrites the group bits), then the exact mode.
 */
static int copy_metadata(int dirfd, const char *name, const struct stat *st, int fd)
{
	_cleanup_close_ int old = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
					 O_NOCTTY | O_CLOEXEC);
	struct stat now;
	int r;

	if (old < 0)
		return -errno;
	if (fstat(old, &now) < 0)
		return -errno;
	if (now.st_ino != st->st_ino || now.st_dev != st->st_dev)
		return -ESTALE;
	if (fchown(fd, st->st_uid, st->st_gid) < 0)
		return -errno;
	r = copy_xattrs(old, fd);
	if (r < 0)
		return r;
	if (fchmod(fd, st->st_mode & 07777) < 0)
		return -errno;
	return 0;
}

/* @like: a file in the same directory whose metadata the result takes
 * (NULL: @name itself, when it exists). */
static int write_file(int dirfd, const char *name, const char *data,
		      size_t len, mode_t mode, const char *like)
{
	char tmp[NAME_MAX + 1];
	struct stat st;
	bool exists = false;
	uint32_t rnd;
	int fd, r;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISLNK(st.st_mode))
			return -ELOOP;
		if (!S_ISREG(st.st_mode))
			return -EEXIST;
		exists = true;
	} else if (errno != ENOENT) {
		return -errno;
	}
	if (like) {
		if (fstatat(dirfd, like, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return -errno;
		if (!S_ISREG(st.st_mode))
			return -EBADFD;
		exists = true;
	} else {
		like = name;
	}

	/*
	 * In use until renamed: see sl_remove_stale_temporary(). A sweeper
	 * that took the flock between our create and ours is removing the
	 * file: leave it to it and take another name.
	 */
	for (int tries = 0;; tries++) {
		if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != sizeof(rnd))
			rnd = (uint32_t)getpid() ^ (uint32_t)(uintptr_t)&rnd ^ (uint32_t)tries;
		r = snprintf(tmp, sizeof(tmp), ".#%.200s.%08x", name, rnd);
		if (r < 0 || (size_t)r >= sizeof(tmp))
			return -ENAMETOOLONG;
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			    O_CLOEXEC, 0600);
		if (fd < 0)
			return -errno;
		if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
			struct stat mine, named;

			/* Ours from now on; unless a sweeper unlinked it first. */
			if (fstat(fd, &mine) == 0 &&
			    fstatat(dirfd, tmp, &named, AT_SYMLINK_NOFOLLOW) == 0 &&
			    mine.st_ino == named.st_ino && mine.st_dev == named.st_dev)
				break;
			r = -EWOULDBLOCK;
		} else {
			r = -errno;
		}
		close(fd);
		if (r != -EWOULDBLOCK || tries >= 8)
			return r;
	}
	r = write_all(fd, data, len);
	if (r == 0 && !exists && fchmod(fd, mode) < 0)
		r = -errno;
	if (r == 0 && exists)
		r = copy_metadata(dirfd, like, &st, fd);
	/*
	 * Replaced since we looked: by a concurrent writer of the same file
	 * (writers take no turns), whose file has the same metadata, copied
	 * in turn. Look again, a few times.
	 */
	for (int tries = 0; r == -ESTALE && tries < 16; tries++) {
		if (fstatat(dirfd, like, &st, AT_SYMLINK_NOFOLLOW) < 0)
			r = -errno;
		else if (!S_ISREG(st.st_mode))
			r = -EBADFD;
		else
			r = copy_metadata(dirfd, like, &st, fd);
	}
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	if (r == 0 && renameat(dirfd, tmp, dirfd, name) < 0)
		r = -errno;
	if (r < 0)
		unlinkat(dirfd, tmp, 0);
	/* fsync() above has said what close() could: the data is there. */
	close(fd);
	if (r < 0)
		return r;
	if (fsync(dirfd) < 0)
		return -errno;
	return 0;
}

int sl_write_atomic(const struct splitlock_ctx *ctx, const char *path,
		    const char *data, size_t len, mode_t mode)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	_cleanup_close_ int dfd = -1;

	if (!slash || (size_t)(slash - path) >= sizeof(dir))
		return -EINVAL;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	dfd = sl_open_dir(ctx, *dir ? dir : "/");
	if (dfd < 0)
		return dfd;
	return sl_write_file_atomic_at(dfd, slash + 1, data, len, mode);
}

int sl_write_atomic_like(const struct splitlock_ctx *ctx, const char *path,
			 const char *data, size_t len, const char *like)
{
	const char *slash = strrchr(path, '/'), *lslash = strrchr(like, '/');
	_cleanup_free_ char *dir = NULL;
	_cleanup_close_ int dfd = -1;

	if (!slash || !lslash || slash - path != lslash - like ||
	    strncmp(path, like, (size_t)(slash - path)) != 0)
		return -EINVAL;
	dir = strndup(path, (size_t)(slash - path));
	if (!dir)
		return -ENOMEM;
	dfd = sl_open_dir(ctx, *dir ? dir : "/");
	if (dfd < 0)
		return dfd;
	return write_at(dfd, slash + 1, data, len, 0600, lslash + 1);
}

int sl_mkdir_p(const struct splitlock_ctx *ctx, const char *path, mode_t mode)
{
	char prefix[PATH_MAX];
	size_t len = strlen(path);

	if (len >= sizeof(prefix))
		return -ENAMETOOLONG;
	for (size_t i = 1; i <= len; i++) {
		if (path[i] != '/' && path[i] != '\0')
			continue;
		memcpy(prefix, path, i);
		prefix[i] = '\0';
		_cleanup_close_ int fd = sl_open_dir(ctx, prefix);
		if (fd >= 0)
			continue;
		if (fd != -ENOENT)
			return fd;

		const char *base;
		char parent[PATH_MAX];
		char *slash = strrchr(prefix, '/');

		memcpy(parent, prefix, (size_t)(slash - prefix));
		parent[slash - prefix] = '\0';
		base = slash + 1;
		_cleanup_close_ int pfd = sl_open_dir(ctx, *parent ? parent : "/");
		if (pfd < 0)
			return pfd;
		if (mkdirat(pfd, base, mode) < 0 && errno != EEXIST)
			return -errno;
	}
	return 0;
}
