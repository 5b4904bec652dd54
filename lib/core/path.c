/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Resolving system paths under the context's root.
 *
 * openat2(RESOLVE_IN_ROOT) treats the root as "/" for every component,
 * symlinks included, so a fake root (or a hostile one) can never lead us to
 * a file outside it. Where openat2 is missing (seccomp filters of some
 * container runtimes, valgrind) the same walk is done here, one component at
 * a time, with O_NOFOLLOW at each step. SPLITLOCK_NO_OPENAT2=1 forces that
 * path, for the tests.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <time.h>

#include "core/bounded.h"
#include "core/internal.h"

static bool real_root(const struct splitlock_ctx *ctx)
{
	return streq(ctx->root, "/");
}

#define MAX_SYMLINKS 40

static bool same_inode(int a, int b)
{
	struct stat sa, sb;

	return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* RESOLVE_IN_ROOT by hand: "/" and ".." never leave @root_fd. */
static int open_in_root_by_hand(int root_fd, const char *path, int flags,
				mode_t mode)
{
	char work[PATH_MAX * 2];
	size_t pos = 0;
	int dir, links = 0;

	if (strlen(path) >= sizeof(work))
		return -ENAMETOOLONG;
	strcpy(work, path);
	dir = fcntl(root_fd, F_DUPFD_CLOEXEC, 0);
	if (dir < 0)
		return -errno;
	for (;;) {
		char comp[NAME_MAX + 1], target[PATH_MAX];
		size_t len;
		bool last;
		struct stat st;
		int next;

		while (work[pos] == '/')
			pos++;
		len = strcspn(work + pos, "/");
		if (len == 0) {
			/* The path named a directory itself ("/", "a/."). */
			next = openat(dir, ".", flags | O_NOFOLLOW | O_CLOEXEC, mode);
			close(dir);
			return next < 0 ? -errno : next;
		}
		if (len > NAME_MAX) {
			close(dir);
			return -ENAMETOOLONG;
		}
		memcpy(comp, work + pos, len);
		comp[len] = '\0';
		pos += len;
		last = work[pos + strspn(work + pos, "/")] == '\0';

		if (streq(comp, ".") && !last)
			continue;
		if (streq(comp, "..")) {
			if (!same_inode(dir, root_fd)) {
				next = openat(dir, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
				if (next < 0) {
					close(dir);
					return -errno;
				}
				close(dir);
				dir = next;
			}
			if (last)
				strcpy(work + pos, "/.");
			continue;
		}
		if (fstatat(dir, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode) &&
		    (!last || !(flags & O_NOFOLLOW))) {
			ssize_t n = readlinkat(dir, comp, target, sizeof(target) - 1);
			size_t rest = strlen(work + pos);

			if (n <= 0 || ++links > MAX_SYMLINKS ||
			    (size_t)n + rest + 2 > sizeof(work)) {
				close(dir);
				return n < 0 ? -errno : -ELOOP;
			}
			target[n] = '\0';
			/* The link's text replaces the component: [target][rest]. */
			memmove(work + n, work + pos, rest + 1);
			memcpy(work, target, (size_t)n);
			pos = 0;
			if (target[0] == '/') {
				close(dir);
				dir = fcntl(root_fd, F_DUPFD_CLOEXEC, 0);
				if (dir < 0)
					return -errno;
			}
			continue;
		}
		if (last) {
			/* "name/" must be a directory, as the kernel insists. */
			int dironly = work[pos] == '/' ? O_DIRECTORY : 0;

			next = openat(dir, comp, flags | dironly | O_NOFOLLOW | O_CLOEXEC, mode);
			close(dir);
			return next < 0 ? -errno : next;
		}
		next = openat(dir, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(dir);
		if (next < 0)
			return -errno;
		dir = next;
	}
}

/* "run" or "proc" for a path under /run or /proc, else NULL. */
static const char *lockable_top(const char *path)
{
	while (*path == '/')
		path++;
	/*
	 * Not slctl's own state: RESOLVE_CACHED also fails, with EAGAIN, for
	 * a name that is cached whenever the mount table changes during the
	 * walk (any user can change it in a namespace of its own, in a
	 * loop), so "missing" from it is a guess. A drop that guessed its
	 * lease directory missing left the penalty off (seventh review).
	 * /run/slctl exists (tmpfiles.d) and only root can hold its lock; an
	 * ordinary lookup of a name that exists takes no lock of /run's.
	 * What is guessed here is read for display or configuration only.
	 */
	if (sl_state_path(path))
		return NULL;
	if (strncmp(path, "run/", 4) == 0)
		return "run";
	if (strncmp(path, "proc/", 5) == 0)
		return "proc";
	return NULL;
}

/*
 * /run is a tmpfs that every user can read, and so a directory whose lock
 * any user can hold, shared, for as long as it likes (a getdents64() into
 * a buffer of its own FUSE file system that never answers); a mkdir() of
 * the user's then queues behind it for the lock exclusively, and every
 * lookup of a name that /run does not have (tmpfs keeps no negative
 * entries) queues behind that, unkillably: root's status and mitigate
 * waited there (fifth review). /proc is readable by everyone too, and the
 * name of a reaped process is missing there (sixth review; the lease
 * checks look up other runs' PIDs). A name that exists on a tmpfs is
 * always in the dentry cache, so a lookup that RESOLVE_CACHED cannot
 * finish there is of a missing name: -ENOENT without taking any lock.
 * -EAGAIN where that cannot be told (procfs, another file system, a
 * kernel before 5.12, a create), and the caller looks up the usual way.
 */
static int open_run_cached(const struct splitlock_ctx *ctx, const char *path, int flags)
{
	const char *top = lockable_top(path);
	char top_path[8];

	struct open_how how = {
		.flags = (uint64_t)(flags | O_CLOEXEC),
		.resolve = RESOLVE_CACHED | (real_root(ctx) ? 0 : RESOLVE_IN_ROOT),
	};
	struct open_how run_how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = how.resolve,
	};
	int dir = real_root(ctx) ? AT_FDCWD : ctx->root_fd;
	struct statfs fs;
	int fd, run;

	/* O_TMPFILE includes O_DIRECTORY's bit: compared whole. */
	if ((flags & (O_CREAT | O_TRUNC)) || (flags & O_TMPFILE) == O_TMPFILE ||
	    ctx->no_openat2 || !top)
		return -EAGAIN;
	snprintf(top_path, sizeof(top_path), "%s%s", real_root(ctx) ? "/" : "", top);
	if (!real_root(ctx))
		while (*path == '/')
			path++;
	fd = (int)syscall(SYS_openat2, dir, path, &how, sizeof(how));
	if (fd >= 0)
		return fd;
	if (errno != EAGAIN)
		return errno == ENOENT || errno == ENOTDIR || errno == ELOOP || errno == EACCES ?
			-errno : -EAGAIN;
	run = (int)syscall(SYS_openat2, dir, top_path, &run_how, sizeof(run_how));
	if (run < 0)
		return -EAGAIN;
	fd = fstatfs(run, &fs) == 0 && fs.f_type == TMPFS_MAGIC ? -ENOENT : -EAGAIN;
	close(run);
	return fd;
}

/* The ordinary walk, which may wait on any directory's lock. */
#define OPENAT2_RETRIES 16

static int open_walk(const struct splitlock_ctx *ctx, const char *path, int flags, mode_t mode)
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
	if (!ctx->no_openat2) {
		/*
		 * A walk that took ".." (a symlink such as 99-sysctl.conf ->
		 * ../sysctl.conf) while anything on the system was renamed or
		 * mounted fails with EAGAIN: the kernel cannot vouch that it
		 * stayed in the root and asks for a retry (openat2(2)). On a
		 * busy system that dropped a drop-in from status now and then
		 * (seen in the CI's ASan run). Retried, then walked by hand.
		 */
		for (int tries = 0;; tries++) {
			fd = (int)syscall(SYS_openat2, ctx->root_fd, path, &how, sizeof(how));
			if (fd >= 0)
				return fd;
			if (errno != EAGAIN || tries == OPENAT2_RETRIES)
				break;
		}
		if (errno == EAGAIN)
			return open_in_root_by_hand(ctx->root_fd, path, flags, mode);
		if (errno != ENOSYS && errno != EPERM)
			return -errno;
		/* Seccomp filters answer ENOSYS or EPERM; remember it. */
		((struct splitlock_ctx *)ctx)->no_openat2 = true;
	}
	return open_in_root_by_hand(ctx->root_fd, path, flags, mode);
}

/*
 * /proc/sys and /sys: directories every user can read, and so whose lock
 * any user can hold, shared, for as long as it likes (a getdents64() into
 * a FUSE-backed buffer), with a mkdir() queued behind it. A lookup of a
 * name that is not in the dentry cache then waits, unkillably: on
 * /proc/sys always (procfs answers RESOLVE_CACHED with -ECHILD, and on
 * 5.7-6.1 keeps no entry for a missing name such as
 * split_lock_mitigate), under /sys once an entry was evicted. Root's
 * status and mitigate waited there (eighth review).
 *
 * /run/slctl too, slctl's own state (see sl_state_path()).
 */
static bool user_lockable(const char *path)
{
	while (*path == '/')
		path++;
	return strncmp(path, "proc/sys/", 9) == 0 || strncmp(path, "sys/", 4) == 0 ||
	       sl_state_path(path);
}

struct open_args {
	const char *path;
	int flags;
	mode_t mode;
};

static void open_work(const struct splitlock_ctx *ctx, void *arg, int sock)
{
	struct open_args *a = arg;

	sl_send_fd(sock, open_walk(ctx, a->path, a->flags, a->mode));
}

/* The walk in a child, which hands the descriptor back. */
static int open_bounded(const struct splitlock_ctx *ctx, const char *path, int flags,
			mode_t mode)
{
	struct open_args a = { path, flags, mode };
	struct bounded b = { .action = "lookup", .fallback = sl_state_path(path) };
	int r = sl_bounded_start(ctx, path, open_work, &a, NULL, 0, &b);

	if ((r == -EAGAIN && sl_state_path(path)) || r == -EAFNOSUPPORT)
		return open_walk(ctx, path, flags, mode);
	if (r == -EAGAIN)
		return -ETIMEDOUT;
	return r < 0 ? r : sl_bounded_fd(ctx, path, &b);
}

struct mkdir_args {
	int dir;
	const char *name;
	mode_t mode;
};

/* The new directory, opened, with exactly @a->mode, or a negative errno. */
static int mkdir_open(const struct mkdir_args *a)
{
	int fd;

	if (mkdirat(a->dir, a->name, a->mode) < 0)
		return -errno;
	fd = openat(a->dir, a->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 && fchmod(fd, a->mode) < 0) {
		close(fd);
		fd = -1;
	}
	return fd < 0 ? -errno : fd;
}

static void mkdir_work(const struct splitlock_ctx *ctx, void *arg, int sock)
{
	(void)ctx;
	sl_send_fd(sock, mkdir_open(arg));
}

int sl_mkdirat_bounded(const struct splitlock_ctx *ctx, int dir, const char *name,
		       mode_t mode, const char *path)
{
	struct mkdir_args a = { dir, name, mode };
	struct bounded b = { .action = "lookup" };
	int r = sl_bounded_start(ctx, path, mkdir_work, &a, &dir, 1, &b);

	if (r == -EAFNOSUPPORT)
		return mkdir_open(&a);
	if (r == -EAGAIN)
		return -ETIMEDOUT;
	return r < 0 ? r : sl_bounded_fd(ctx, path, &b);
}

/* From the dentry cache where it answers; else in a bounded child. */
static int open_cached_or_bounded(const struct splitlock_ctx *ctx, const char *path, int flags,
				  mode_t mode)
{
	struct open_how how = {
		.flags = (uint64_t)(flags | O_CLOEXEC),
		.resolve = RESOLVE_CACHED | (real_root(ctx) ? 0 : RESOLVE_IN_ROOT),
	};
	const char *rel = path;
	int fd;

	if (!real_root(ctx))
		while (*rel == '/')
			rel++;
	if (!ctx->no_openat2 && *rel) {
		fd = (int)syscall(SYS_openat2, real_root(ctx) ? AT_FDCWD : ctx->root_fd, rel,
				  &how, sizeof(how));
		if (fd >= 0)
			return fd;
		if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP || errno == EACCES)
			return -errno;
	}
	return open_bounded(ctx, path, flags, mode);
}

int sl_open_bounded(const struct splitlock_ctx *ctx, const char *path, int flags)
{
	if (ctx->lookup_stalled)
		return -ETIMEDOUT;
	return open_cached_or_bounded(ctx, path, flags, 0);
}

int sl_open(const struct splitlock_ctx *ctx, const char *path, int flags,
	    mode_t mode)
{
	int fd;

	if (ctx->lookup_stalled && user_lockable(path) && !sl_state_path(path))
		return -ETIMEDOUT;
	fd = open_run_cached(ctx, path, flags);
	if (fd != -EAGAIN)
		return fd;
	if (user_lockable(path) && !(flags & O_CREAT) && (flags & O_TMPFILE) != O_TMPFILE)
		return open_cached_or_bounded(ctx, path, flags, mode);
	return open_walk(ctx, path, flags, mode);
}

int sl_open_dir(const struct splitlock_ctx *ctx, const char *path)
{
	return sl_open(ctx, path, O_RDONLY | O_DIRECTORY, 0);
}

/* Open the parent directory of @path; *base points into @path. */
int sl_open_parent(const struct splitlock_ctx *ctx, const char *path,
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
	_cleanup_close_ int dfd = -1;
	int fd, r;

	/* Under /run or /proc, without waiting on its lock (open_run_cached()). */
	fd = open_run_cached(ctx, path, O_PATH | O_NOFOLLOW);
	if (fd >= 0) {
		r = fstat(fd, st) < 0 ? -errno : 0;
		close(fd);
		return r;
	}
	if (fd != -EAGAIN)
		return fd;
	if (user_lockable(path)) {
		/* No fstatat() on the parent: that lookup would not be bounded. */
		fd = sl_open(ctx, path, O_PATH | O_NOFOLLOW, 0);
		if (fd < 0)
			return fd;
		r = fstat(fd, st) < 0 ? -errno : 0;
		close(fd);
		return r;
	}
	dfd = sl_open_parent(ctx, path, &base);
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
	_cleanup_close_ int dfd = sl_open_parent(ctx, path, &base);
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
