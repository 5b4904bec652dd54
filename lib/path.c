/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Resolving system paths under the context's root.
 *
 * openat2(RESOLVE_IN_ROOT) treats the root as "/" for every component,
 * symlinks included, so a fake root (or a hostile one) can never lead us to
 * a file outside it. Kernels older than 5.6 lack openat2; there we resolve
 * relative to the root descriptor, which is what the real root needs anyway.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "internal.h"

static bool real_root(const struct splitlock_ctx *ctx)
{
	return streq(ctx->root, "/");
}

int sl_open(const struct splitlock_ctx *ctx, const char *path, int flags,
	    mode_t mode)
{
	struct open_how how = {
		.flags = (uint64_t)(flags | O_CLOEXEC),
		.mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0,
		.resolve = RESOLVE_IN_ROOT,
	};
	int fd;

	if (real_root(ctx)) {
		fd = open(path, flags | O_CLOEXEC, mode);
		return fd < 0 ? -errno : fd;
	}
	while (*path == '/')
		path++;
	if (!*path)
		path = ".";
	fd = (int)syscall(SYS_openat2, ctx->root_fd, path, &how, sizeof(how));
	if (fd < 0 && errno == ENOSYS)
		fd = openat(ctx->root_fd, path, flags | O_CLOEXEC, mode);
	return fd < 0 ? -errno : fd;
}

int sl_open_dir(const struct splitlock_ctx *ctx, const char *path)
{
	return sl_open(ctx, path, O_RDONLY | O_DIRECTORY, 0);
}

/* Open the parent directory of @path; *base points into @path. */
static int open_parent(const struct splitlock_ctx *ctx, const char *path,
		       const char **base)
{
	char parent[PATH_MAX];
	const char *slash = strrchr(path, '/');
	size_t len;

	if (!slash) {
		*base = path;
		return sl_open_dir(ctx, ".");
	}
	len = (size_t)(slash - path);
	if (len >= sizeof(parent))
		return -ENAMETOOLONG;
	memcpy(parent, path, len);
	parent[len] = '\0';
	*base = slash + 1;
	return sl_open_dir(ctx, len ? parent : "/");
}

int sl_lstat(const struct splitlock_ctx *ctx, const char *path,
	     struct stat *st)
{
	const char *base;
	_cleanup_close_ int dfd = open_parent(ctx, path, &base);

	if (dfd < 0)
		return dfd;
	if (fstatat(dfd, *base ? base : ".", st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	return 0;
}

int sl_readlink(const struct splitlock_ctx *ctx, const char *path, char *buf,
		size_t size)
{
	const char *base;
	_cleanup_close_ int dfd = open_parent(ctx, path, &base);
	ssize_t n;

	if (dfd < 0)
		return dfd;
	n = readlinkat(dfd, base, buf, size - 1);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return (int)n;
}

int sl_access(const struct splitlock_ctx *ctx, const char *path, int mode)
{
	_cleanup_close_ int fd = sl_open(ctx, path, O_PATH, 0);

	if (fd < 0)
		return fd;
	if (mode == F_OK)
		return 0;
	if (faccessat(fd, "", mode, AT_EMPTY_PATH) < 0)
		return -errno;
	return 0;
}
