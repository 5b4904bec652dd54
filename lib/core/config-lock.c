/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One slctl at a time changes the boot configuration: an exclusive flock on
 * /run/slctl/lock under the root. The file stays (it is on tmpfs on a
 * running system); the lock goes with the descriptor.
 *
 * The lock lives in a directory of its own, mode 0700 and owned by root
 * (or by whoever runs slctl on a root of their own): in a directory every
 * user can write, such as /run/lock, any user could create or hold the file
 * and so block every change. A directory that is a symlink, belongs to
 * someone else or lets others write is refused, not repaired: somebody
 * prepared it, and the admin should know. The leases of lease.c live in
 * the same directory, for the same reason.
 *
 * Every directory and lock file here is created with its mode set
 * explicitly: the umask is the caller's, and the caller may be a user who
 * reached us through pkexec with umask 0777, which would otherwise leave a
 * /run/slctl of mode 0000 that every later check refuses until reboot.
 * No lock is waited on without a bound (sl_flock_wait()).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>

#include "core/internal.h"

static int refuse(char **why, int err, const char *format, ...) _printf_(3, 4);

static int refuse(char **why, int err, const char *format, ...)
{
	va_list ap;

	va_start(ap, format);
	if (vasprintf(why, format, ap) < 0)
		*why = NULL;
	va_end(ap);
	return err;
}

/*
 * A directory we have just made gets its mode here, whatever the umask
 * made of it; one that already existed keeps the check below.
 */
static int fix_created_mode(int dirfd, const char *name, mode_t mode)
{
	_cleanup_close_ int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
					O_CLOEXEC);

	if (fd < 0 || fchmod(fd, mode) < 0)
		return -errno;
	return 0;
}

int sl_open_state_dir(struct splitlock_ctx *ctx, char **why)
{
	struct stat st;
	int fd, r;

	r = sl_mkdir_p(ctx, "/run", 0755);
	if (r < 0)
		return refuse(why, r, "cannot create /run: %s", strerror(-r));
	fd = sl_open_dir(ctx, "/run");
	if (fd < 0)
		return refuse(why, fd, "cannot open /run: %s", strerror(-fd));
	/*
	 * Created only when it is missing: mkdir() takes /run's lock
	 * exclusively even where the name exists, and any user can hold
	 * that lock, shared, for as long as it likes (a getdents64() of /run
	 * into a buffer of its own FUSE file system that never answers):
	 * the drop of a lease waited there, unkillably, with the penalty
	 * off. A lookup of a name that exists takes no lock at all; the
	 * lookup of a missing one, and the mkdir, do, and are made in a
	 * bounded child (core/bounded.c; ninth review). tmpfiles.d makes the
	 * directory at boot.
	 */
	r = sl_lstat(ctx, SL_STATE_DIR, &st);
	if (r == -ENOENT) {
		r = sl_mkdirat_bounded(ctx, fd, "slctl", 0700, SL_STATE_DIR);
		if (r >= 0)
			close(r);
		r = r == -EEXIST ? 0 : r;
	}
	if (r < 0) {
		close(fd);
		if (r == -ETIMEDOUT)
			return refuse(why, r, "the lookup of " SL_STATE_DIR " has waited %d "
				      "seconds on the lock of /run, which another process holds",
				      SL_LOOKUP_TIMEOUT_MS / 1000);
		return refuse(why, r, "cannot create " SL_STATE_DIR ": %s", strerror(-r));
	}
	r = fstatat(fd, "slctl", &st, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
	if (r == 0 && S_ISLNK(st.st_mode))
		r = refuse(why, -ELOOP, SL_STATE_DIR " is a symbolic link; the lock is taken "
			   "only in a directory of its own");
	else if (r == 0 && !S_ISDIR(st.st_mode))
		r = refuse(why, -ENOTDIR, SL_STATE_DIR " is not a directory");
	else if (r == 0 && ((st.st_uid != 0 && st.st_uid != geteuid()) ||
			    (st.st_mode & 07777) != 0700))
		r = refuse(why, -EUCLEAN, SL_STATE_DIR " has owner uid %u and mode %04o; "
			   "the lock is taken only in a directory of root's with mode "
			   "0700, remove it",
			   (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
	else if (r < 0)
		r = refuse(why, r, "cannot inspect " SL_STATE_DIR ": %s", strerror(-r));
	if (r < 0) {
		close(fd);
		return r;
	}
	/* What we checked is what we open: no symlink, the same inode. */
	r = openat(fd, "slctl", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	close(fd);
	if (r < 0)
		return refuse(why, -errno, "cannot open " SL_STATE_DIR ": %m");
	{
		struct stat now;

		if (fstat(r, &now) < 0 || now.st_ino != st.st_ino || now.st_dev != st.st_dev) {
			close(r);
			return refuse(why, -ESTALE, SL_STATE_DIR " changed while it was "
				      "being checked");
		}
	}
	return r;
}

int sl_mkdirat_mode(int dirfd, const char *name, mode_t mode)
{
	if (mkdirat(dirfd, name, mode) < 0)
		return errno == EEXIST ? 0 : -errno;
	return fix_created_mode(dirfd, name, mode);
}

int sl_open_lock_file(int dirfd, const char *name)
{
	struct stat st, dst;
	int fd = openat(dirfd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK |
			O_CLOEXEC, 0600);

	if (fd < 0)
		return -errno;
	/* Ours alone, whatever the umask made of a new one: a lock another
	 * user may open is a lock another user may hold. */
	if (fstat(fd, &st) < 0 || fstat(dirfd, &dst) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	if (!S_ISREG(st.st_mode) || st.st_uid != dst.st_uid || st.st_nlink != 1) {
		close(fd);
		return -EBADFD;
	}
	if ((st.st_mode & 07777) != 0600 && fchmod(fd, 0600) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	return fd;
}

int sl_flock_wait(int fd, unsigned timeout_ms)
{
	struct timespec pause = { .tv_nsec = 5 * 1000 * 1000 };
	unsigned waited_ms = 0;

	for (;;) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return 0;
		if (errno != EWOULDBLOCK && errno != EINTR)
			return -errno;
		if (waited_ms >= timeout_ms)
			return -ETIMEDOUT;
		/* Polled, not blocked in flock(): a library has no alarm of its
		 * own to cut a blocking wait short. 5 ms at first, then 50. */
		nanosleep(&pause, NULL);
		waited_ms += (unsigned)(pause.tv_nsec / 1000000);
		if (waited_ms >= 100)
			pause.tv_nsec = 50 * 1000 * 1000;
	}
}

int sl_lock(struct splitlock_ctx *ctx, char **why)
{
	_cleanup_close_ int dir = -1;
	int fd, r;

	*why = NULL;
	dir = sl_open_state_dir(ctx, why);
	if (dir < 0)
		return dir;
	fd = sl_open_lock_file(dir, "lock");
	if (fd == -EBADFD)
		return refuse(why, fd, SL_LOCK_FILE " is not a regular file of "
			      SL_STATE_DIR "'s owner");
	if (fd < 0)
		return refuse(why, fd, "cannot open " SL_LOCK_FILE ": %s", strerror(-fd));
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		r = errno == EWOULDBLOCK ? -EBUSY : -errno;
		close(fd);
		if (r == -EBUSY)
			return refuse(why, r, "another process is changing the boot "
				      "configuration (it holds " SL_LOCK_FILE ")");
		return refuse(why, r, "cannot lock " SL_LOCK_FILE ": %s", strerror(-r));
	}
	return fd;
}
