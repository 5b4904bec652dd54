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
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "bootloader.h"

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
	if (mkdirat(fd, "slctl", 0700) < 0 && errno != EEXIST) {
		r = -errno;
		close(fd);
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

int sl_lock(struct splitlock_ctx *ctx, char **why)
{
	_cleanup_close_ int dir = -1;
	struct stat st;
	int fd, r;

	*why = NULL;
	dir = sl_open_state_dir(ctx, why);
	if (dir < 0)
		return dir;
	fd = openat(dir, "lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK |
		    O_CLOEXEC, 0600);
	if (fd < 0)
		return refuse(why, -errno, "cannot open " SL_LOCK_FILE ": %m");
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return refuse(why, -EBADFD, SL_LOCK_FILE " is not a regular file");
	}
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
